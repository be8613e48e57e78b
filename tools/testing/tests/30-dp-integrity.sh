#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity through the whole data path.
#
# Target: LUN 0 iblock on a memory-backed null_blk (takes 8 MiB requests),
# LUN 1 fileio on a tmpfs file. Initiator: ib_srp with max_sect=16384 and
# sg_tablesize=2048, so 4 MiB and 8 MiB requests reach the target whole
# (max_sectors_kb is raised to max_hw_sectors_kb); on soft-iWARP
# sg_tablesize=256, siw's limit (see SG_TABLESIZE below).
#
# Test 1: fio writes random data with crc32c checksums and reads it back
# through SRP, one job per case (one after the other, in one fio run). The
# cases cover every value of every dimension at least once, not the cross
# product: backstore iblock/fileio, block size 512 B, 4 KiB, 64 KiB, 1 MiB,
# 4 MiB, 8 MiB, direct/buffered, random/sequential, queue depth 1/32
# (buffered libaio is synchronous, so the depth only matters for direct
# I/O). Each case writes its own region of the LUN; fio invalidates the page
# cache before its verify phase, so buffered cases read from the target too.
#
# Test 3: dd writes known patterns through SRP (one O_DIRECT 8 MiB request,
# which must reach the target whole; buffered 64 KiB + fsync; O_DIRECT
# 512 B). After logout the backstores are read
# directly (/dev/nullb0 with O_DIRECT, the fileio file) and compared with the
# patterns, and fio --verify_only checks every fio region on the backstores:
# what the initiator wrote is what the target stored, at the right offsets.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-dp.sh
. "$(dirname "$0")/../lib-dp.sh"

need_cmd fio jq

# LUN bs I/O pattern QD size(KiB)
CASES=(
	"blk 512 direct rand 32 512"
	"file 512 buffered seq 1 1024"
	"file 4k direct rand 1 2048"
	"blk 4k buffered rand 32 4096"
	"file 64k direct seq 32 4096"
	"blk 64k buffered rand 1 4096"
	"blk 1m direct seq 1 4096"
	"file 1m buffered rand 32 4096"
	"file 4m direct rand 32 8192"
	"blk 4m buffered seq 1 8192"
	"blk 8m direct rand 32 16384"
	"file 8m direct seq 1 16384"
)

# On soft-iWARP ib_srp can only send commands of at most 256 scatterlist
# elements: siw's ib_map_mr_sg() refuses a list longer than the memory
# region's page list (SIW_MAX_SGE_PBL, 256 entries) with -ENOMEM instead
# of mapping as much as fits, and ib_srp, which registers a long list
# with several MRs by mapping what fits, fails such a command ("Failed to
# map data (-12)") until the SCSI layer gives up. That is the initiator's
# side on siw, before the target sees anything; with sg_tablesize=256 an
# 8 MiB request reaches the target in at most 8 pieces (256 entries of at
# least 4 KiB each).
SG_TABLESIZE=2048 DD_8M_REQS=1
if [[ $SOFT_RDMA_TYPE == siw ]]; then
	SG_TABLESIZE=256 DD_8M_REQS=8
fi

dp_target -f
t0=$SECONDS
dp_login -n 2 max_sect="$DP_MAX_SECT" sg_tablesize="$SG_TABLESIZE"
declare -A disk=([blk]=${DP_DISKS[0]} [file]=${DP_DISKS[1]})
declare -A store=([blk]=/dev/nullb0 [file]=$DP_FILE)
declare -A next=([blk]=0 [file]=0)
log "login: $((SECONDS - t0))s"

# Test 1: the fio cases, each in its own 8 MiB aligned region. jobs[] holds
# the job options without --filename and --direct.
names=() jobs=() luns=() directs=()
for c in "${CASES[@]}"; do
	read -r lun bs io pat qd kib <<<"$c"
	rw=write direct=0
	[[ $pat == rand ]] && rw=randwrite
	[[ $io == direct ]] && direct=1
	names+=("$lun-$bs-$io-$pat-qd$qd") luns+=("$lun") directs+=("$direct")
	jobs+=("--rw=$rw --bs=$bs --iodepth=$qd --size=${kib}k --offset=${next[$lun]}m")
	next[$lun]=$((next[$lun] + ((kib + 8191) / 8192) * 8))
done

# fio_args TARGET: the job sections for the SRP disks (TARGET=srp) or the
# backstores (TARGET=store; O_DIRECT for null_blk, buffered for the tmpfs
# file), in the same order (fio seeds each job's random offsets from its
# position).
fio_args() {
	local i lun dev direct
	for i in "${!names[@]}"; do
		lun=${luns[$i]}
		if [[ $1 == srp ]]; then
			dev=${disk[$lun]} direct=${directs[$i]}
		else
			dev=${store[$lun]} direct=1
			[[ $lun == file ]] && direct=0
		fi
		echo "--name=${names[$i]} --filename=$dev --direct=$direct ${jobs[$i]} --stonewall"
	done
}

t0=$SECONDS
mapfile -t srp_args < <(fio_args srp | tr ' ' '\n')
dp_fio_jobs fio-cases "${srp_args[@]}" || true
log "fio cases: $((SECONDS - t0))s"

# Test 3, part 1: known patterns through SRP, after the fio regions. The
# 8 MiB O_DIRECT write must reach the target as one request (the disk's
# write count goes up by exactly 1; on siw by 1 to DD_8M_REQS, see above).
# name KiB dd-block-size oflag
DD_CASES=(
	"direct-8m 8192 8M direct"
	"buffered-64k 1024 64k -"
	"direct-512 256 512 direct"
)
declare -A dd_off
for c in "${DD_CASES[@]}"; do
	read -r name kib _ <<<"$c"
	for lun in blk file; do
		dd_off[$lun-$name]=${next[$lun]}
		next[$lun]=$((next[$lun] + ((kib + 8191) / 8192) * 8))
	done
done
dd_write_all() {
	local c name kib bs fl lun pat rc=0
	local -a s0 s1
	for c in "${DD_CASES[@]}"; do
		read -r name kib bs fl <<<"$c"
		[[ $fl == - ]] && fl=
		pat=$(dp_pattern "$name" "$kib")
		for lun in blk file; do
			read -r -a s0 <"/sys/block/${disk[$lun]#/dev/}/stat"
			dd if="$pat" of="${disk[$lun]}" bs="$bs" \
				seek=$((dd_off[$lun-$name] * 1048576)) \
				oflag=seek_bytes${fl:+,$fl} conv=fsync,notrunc status=none
			read -r -a s1 <"/sys/block/${disk[$lun]#/dev/}/stat"
			if [[ $bs == 8M ]] && ((s1[4] - s0[4] < 1 || s1[4] - s0[4] > DD_8M_REQS)); then
				echo "${disk[$lun]}: 8 MiB write took $((s1[4] - s0[4])) requests" >&2
				rc=1
			fi
		done
	done
	return "$rc"
}
t0=$SECONDS
sub_case dd-patterns-through-srp dd_write_all || true
log "dd patterns: $((SECONDS - t0))s"

t0=$SECONDS
srp_logout "${disk[blk]}"
log "logout: $((SECONDS - t0))s"

# Test 3, part 2: the backstores themselves.
backstore_fio() {
	local -a a
	mapfile -t a < <(fio_args store | tr ' ' '\n')
	fio --ioengine=libaio --verify=crc32c --verify_fatal=1 --verify_only=1 \
		--output-format=terse "${a[@]}" >/dev/null
}
backstore_dd() {
	local c name kib lun rc=0
	for c in "${DD_CASES[@]}"; do
		read -r name kib _ <<<"$c"
		for lun in blk file; do
			dp_cmp_at "/tmp/dp-$name.pat" "${store[$lun]}" "${dd_off[$lun-$name]}" \
				$((kib * 1024)) || rc=1
			dp_volume_add "dd-$lun-$name" "$((kib / 1024)).$((kib % 1024 * 10 / 1024))" \
				"$((kib / 1024)).$((kib % 1024 * 10 / 1024))" 0
		done
	done
	return "$rc"
}
t0=$SECONDS
sub_case backstore-fio-regions backstore_fio || true
sub_case backstore-dd-patterns backstore_dd || true
log "backstore checks: $((SECONDS - t0))s"

dp_summary
sub_exit
