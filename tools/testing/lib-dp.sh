# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib-dp.sh - helpers for the ib_srpt data-path guest tests (tests 30-39).
# Source it after lib.sh:
#
#	. "$(dirname "$0")/../lib.sh"
#	. "$(dirname "$0")/../lib-dp.sh"
#
# The usual target of these tests (dp_target): LUN 0 is an iblock backstore
# on a memory-backed null_blk (it keeps the data and, unlike brd, takes 8 MiB
# requests); optional further LUNs: iblock on another block device (-e, e.g.
# dm-delay) and fileio on a tmpfs file (-f). Every fio run writes random data
# with crc32c checksums and reads it back; the MiB written and verified are
# added up in $TEST_OUT/dp-volume.txt and printed by dp_summary.
#
# Environment:
#   DP_FIO_EXTRA   more fio options for every dp_fio run (debugging)

# Largest request the tests send: 8 MiB = 16384 sectors.
DP_MAX_SECT=16384
DP_FILE=/tmp/srpt_dp_file.img
DP_DISKS=()
DP_HOST=

# dp_nullblk_setup SIZE_GIB: load null_blk with one memory-backed device
# /dev/nullb0 that accepts requests of DP_MAX_SECT sectors (memory is only
# allocated for the blocks written).
dp_nullblk_setup() {
	[[ -d /sys/module/null_blk ]] && { echo "null_blk is already loaded" >&2; return 1; }
	modprobe null_blk nr_devices=1 gb="$1" memory_backed=1 \
		max_sectors="$DP_MAX_SECT" || return
	wait_for 10 test -b /dev/nullb0
}

# dp_add_lun TPG BACKSTORE LUN: export BACKSTORE as LUN of TPG and map it in
# every ACL of the TPG.
dp_add_lun() {
	local tpg=$1 so=$2 n=$3 lun acl
	lun=$(srpt_add_lun "$tpg" "$so" "$n") || return
	for acl in "$tpg"/acls/*/; do
		acl=${acl%/}
		[[ -d $acl ]] || continue
		mkdir "$acl/lun_$n" || return
		ln -s "$lun" "$acl/lun_$n/lun_$n" || return
	done
}

# dp_target [-d DEV] [-e DEV] [-f] [-D]: soft RDMA, ib_srpt and a target:
# LUN 0 an iblock backstore on a 1 GiB memory-backed null_blk (or on block
# device DEV with -d); with -e an iblock LUN on DEV next; with -f a 256 MiB
# fileio LUN on $DP_FILE next; an ACL for $IPV4, the RDMA/CM listener on
# port 5555 and the TPG enabled (not with -D). Sets SRPT_TPG. Not for $(...).
dp_target() {
	local fileio=0 dev="" extra="" enable=1 opt wwn so n=1
	local OPTIND=1
	while getopts d:e:fD opt; do
		case $opt in
		d) dev=$OPTARG ;;
		e) extra=$OPTARG ;;
		f) fileio=1 ;;
		D) enable=0 ;;
		*) echo "dp_target: bad option" >&2; return 1 ;;
		esac
	done
	soft_rdma_setup || return
	srpt_load srp_max_req_size=8260 || return
	if [[ -z $dev ]]; then
		dp_nullblk_setup 1 || return
		dev=/dev/nullb0
	fi
	wwn=$(port_wwn "$RDMA_DEV" 1) || return
	SRPT_TPG=$(srpt_add_target "$wwn") || return
	srpt_add_acl "$SRPT_TPG" "$IPV4" >/dev/null || return
	so=$(backstore_iblock srpt_dp_blk "$dev") || return
	dp_add_lun "$SRPT_TPG" "$so" 0 || return
	if [[ -n $extra ]]; then
		so=$(backstore_iblock srpt_dp_blk$n "$extra") || return
		dp_add_lun "$SRPT_TPG" "$so" $((n++)) || return
	fi
	if ((fileio)); then
		rm -f "$DP_FILE"
		so=$(backstore_fileio srpt_dp_file "$DP_FILE" 256) || return
		dp_add_lun "$SRPT_TPG" "$so" $((n++)) || return
	fi
	if ((enable)); then
		srpt_enable "$SRPT_TPG" 1 || return
	fi
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT" || return
	log "target: $SRPT_TPG, LUN 0 on $dev${extra:+, LUN 1 on $extra}$( ((fileio)) && echo ", LUN $((n - 1)) on $DP_FILE")"
}

# dp_login [-n NLUNS] [KEY=VALUE...]: srp_login with the options, then set
# DP_DISKS (the disks in LUN order) and DP_HOST, and let every disk take the
# largest requests its limits allow (max_sectors_kb = max_hw_sectors_kb),
# without an I/O scheduler. Not for $(...).
dp_login() {
	local n=1 d q
	if [[ ${1:-} == -n ]]; then
		n=$2
		shift 2
	fi
	local out
	out=$(srp_login -n "$n" "$@") || return
	mapfile -t DP_DISKS <<<"$out"
	((${#DP_DISKS[@]} >= n)) || { echo "dp_login: only ${#DP_DISKS[@]} disk(s)" >&2; return 1; }
	DP_HOST=$(srp_host_of "${DP_DISKS[0]}") || return
	for d in "${DP_DISKS[@]}"; do
		q=/sys/block/${d#/dev/}/queue
		echo none >"$q/scheduler" 2>/dev/null || true
		echo "$(<"$q/max_hw_sectors_kb")" >"$q/max_sectors_kb" 2>/dev/null || true
		log "$d: max_sectors_kb $(<"$q/max_sectors_kb"), max_segments $(<"$q/max_segments"), queue_depth $(<"/sys/block/${d#/dev/}/device/queue_depth")"
	done
	log "$DP_HOST: ch_count $(dp_host_attr ch_count), can_queue $(dp_host_attr can_queue), req_lim $(dp_host_attr req_lim)"
}

# dp_host_attr NAME [HOST]: print an attribute of the ib_srp SCSI host
# (default $DP_HOST): req_lim, zero_req_lim, ch_count, can_queue, ...
dp_host_attr() {
	local f=/sys/class/scsi_host/${2:-$DP_HOST}/$1
	if [[ -r $f ]]; then
		echo "$(<"$f")"
	else
		echo "?"
	fi
}

# dp_srp_reload [PARAM=VALUE...]: log out every session and load ib_srp
# again with these module parameters.
dp_srp_reload() {
	srp_logout_all 60 || return
	if [[ -d /sys/module/ib_srp ]]; then
		run_timeout 30 rmmod ib_srp || { echo "rmmod ib_srp failed" >&2; return 1; }
	fi
	log "modprobe ib_srp $*"
	srp_load "$@"
}

# dp_fio NAME DEV FIO_ARG...: one fio job on DEV (libaio; the caller gives
# rw, bs, size, iodepth, direct, ...) that writes crc32c-tagged data and
# verifies it (after the write phase, or with --verify_backlog during it).
# Fails on any I/O or verify error. Logs and records the MiB written and
# verified (fio's read bytes) and the time. The JSON report is kept in
# $TEST_OUT/NAME.json.
dp_fio() {
	local name=$1 dev=$2 out js t0 rc=0 w r err dt
	shift 2
	out=$(test_out_dir)
	js=$out/$name.json
	t0=${EPOCHREALTIME/./}
	# shellcheck disable=SC2086 # DP_FIO_EXTRA is a list of options
	fio --name="$name" --filename="$dev" --ioengine=libaio --verify=crc32c \
		--verify_fatal=1 --output-format=json --output="$js" "$@" \
		${DP_FIO_EXTRA:-} >&2 || rc=$?
	t0=$((${EPOCHREALTIME/./} - t0))
	printf -v dt '%d.%d' $((t0 / 1000000)) $((t0 / 100000 % 10))
	if ! read -r w r err < <(jq -r '([.jobs[].error] | max) as $e |
			[([.jobs[].write.io_bytes] | add), ([.jobs[].read.io_bytes] | add)] |
			map(. / 104857.6 | round / 10 | tostring |
			if test("[.]") then . else . + ".0" end) + [$e] | @tsv' "$js" 2>/dev/null); then
		w=0.0 r=0.0 err="?"
	fi
	echo "$name $w $r $dt" >>"$out/dp-volume.txt"
	log "fio $name: $w MiB written, $r MiB verified, ${dt}s (status $rc, error $err)"
	if ((rc)) || [[ $err != 0 ]]; then
		grep -hiE 'verify|error|bad' "$js" 2>/dev/null | head -n 20 >&2
		echo "fio $name failed: status $rc, error $err" >&2
		return 1
	fi
	[[ $w != 0.0 || $r != 0.0 ]] || { echo "fio $name moved no data" >&2; return 1; }
}

# dp_fio_jobs TAG FIO_ARG...: one fio run of several jobs (the arguments
# hold the --name=JOB sections; add --stonewall to a job to run it after the
# ones before it), with the same verification as dp_fio. Records a sub-result
# per job (FAIL if fio reports an error for it or the job is missing from the
# report) and its volume; fails if any job failed. Report: $TEST_OUT/TAG.json.
dp_fio_jobs() {
	local tag=$1 out js rc=0 a job err w r ms bad=0
	shift
	local -a want=()
	for a in "$@"; do
		[[ $a == --name=* ]] && want+=("${a#--name=}")
	done
	out=$(test_out_dir)
	js=$out/$tag.json
	# shellcheck disable=SC2086 # DP_FIO_EXTRA is a list of options
	fio --ioengine=libaio --verify=crc32c --verify_fatal=1 \
		--output-format=json --output="$js" "$@" ${DP_FIO_EXTRA:-} >&2 || rc=$?
	local -A seen=()
	while IFS=$'\t' read -r job err w r ms; do
		seen[$job]=1
		echo "$job $w $r $ms" >>"$out/dp-volume.txt"
		if [[ $err == 0 && ( $w != 0.0 || $r != 0.0 ) ]]; then
			sub_result PASS "$job" "$w MiB written, $r MiB verified, ${ms}s"
		else
			sub_result FAIL "$job" "fio error $err, $w MiB written, $r MiB verified"
			bad=1
		fi
	done < <(jq -r 'def r1: . * 10 | round / 10 | tostring |
			if test("[.]") then . else . + ".0" end;
		.jobs[] | [.jobname, .error, (.write.io_bytes / 1048576 | r1),
		(.read.io_bytes / 1048576 | r1), (.job_runtime / 1000 | r1)] | @tsv' "$js" 2>/dev/null)
	for job in "${want[@]}"; do
		[[ -n ${seen[$job]:-} ]] && continue
		sub_result FAIL "$job" "not in fio's report (fio status $rc)"
		bad=1
	done
	if ((rc || bad)); then
		echo "fio $tag failed (status $rc)" >&2
		return 1
	fi
}

# dp_fio_ios NAME DIR: print total_ios of direction DIR (read/write) of the
# last dp_fio NAME.
dp_fio_ios() {
	jq -r "[.jobs[].$2.total_ios] | add" "$(test_out_dir)/$1.json"
}

# dp_volume_add NAME WRITTEN_MIB VERIFIED_MIB SECONDS: record a check that
# is not a dp_fio run (dd pattern checks).
dp_volume_add() {
	echo "$*" >>"$(test_out_dir)/dp-volume.txt"
}

# dp_summary: log the total MiB written and verified by this test.
dp_summary() {
	local f
	f=$(test_out_dir)/dp-volume.txt
	[[ -f $f ]] || return 0
	awk '{ w += $2; r += $3; n++ } END {
		printf "verify volume: %.1f MiB written, %.1f MiB read back and verified in %d run(s)\n", w, r, n }' "$f" |
		while read -r line; do log "$line"; done
}

# dp_pattern NAME KIB: create (once) and print /tmp/dp-NAME.pat, KIB KiB of
# random data.
dp_pattern() {
	local f=/tmp/dp-$1.pat
	[[ -f $f ]] || head -c $(($2 * 1024)) /dev/urandom >"$f" || return
	echo "$f"
}

# dp_cmp_at PATFILE DEV_OR_FILE OFFSET_MIB [BYTES]: compare PATFILE (or its
# first BYTES) with the bytes at OFFSET_MIB of DEV_OR_FILE (a block device is
# read with O_DIRECT, past the page cache).
dp_cmp_at() {
	local pat=$1 dst=$2 off=$3 size=${4:-}
	[[ -n $size ]] || size=$(stat -c %s "$pat") || return
	if [[ -b $dst ]]; then
		cmp -n "$size" "$pat" <(dd if="$dst" bs=1M skip=$((off * 1048576)) count="$size" \
			iflag=direct,count_bytes,skip_bytes status=none) ||
			{ echo "$dst at $off MiB differs from $pat" >&2; return 1; }
	else
		cmp -n "$size" -i 0:$((off * 1048576)) "$pat" "$dst" ||
			{ echo "$dst at $off MiB differs from $pat" >&2; return 1; }
	fi
}

# dp_dm_dev NAME: print the block device of device-mapper device NAME.
dp_dm_dev() {
	local d
	[[ -b /dev/mapper/$1 ]] && { echo "/dev/mapper/$1"; return 0; }
	for d in /sys/block/dm-*; do
		[[ $(cat "$d/dm/name" 2>/dev/null) == "$1" ]] || continue
		[[ -b /dev/${d##*/} ]] || mknod "/dev/${d##*/}" b "$(cut -d: -f1 "$d/dev")" \
			"$(cut -d: -f2 "$d/dev")" || return
		echo "/dev/${d##*/}"
		return 0
	done
	echo "no device-mapper device $1" >&2
	return 1
}
