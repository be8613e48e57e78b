#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# configfs fabric: the fabric root holds version and
# discovery_auth only; target ports (WWNs) by both names of the port (GUID
# form and 0x + 32 hex digits of the GID), every other name refused with
# EINVAL; TPGs named like the port and tpgt_1 (tag 1); the WWN reports the
# name it was made with (ours only: the stock module always reports the GID
# form); the attrib/ entries with defaults and ranges (ours only:
# max_hw_pending_time and comp_v_mask, whose bad writes fail with EINVAL;
# comp_v_mask takes every mask, also one for vectors the device lacks, and
# reads back as it is written back); ACL names in
# every accepted form, bad ones refused, other spellings of an initiator
# name normalised to the one of logins; discovery_auth/rdma_cm_port moves
# the RDMA/CM listener (login works on the new port, fails on the old one);
# TPGs made, enabled and removed (enabled, or after a disable) again and again
# do not leak relative target port IDs.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

# flip_last NAME: NAME with its last hex digit changed.
flip_last() {
	local n=$1 c=${1: -1}
	[[ $c == 0 ]] && c=1 || c=0
	echo "${n:0:${#n}-1}$c"
}

case_fabric_root() {
	local d dirs
	[[ -f $SRPT_CFS/version && -r $SRPT_CFS/version ]] || { echo "no readable version" >&2; return 1; }
	cp_read "$SRPT_CFS/version"
	log "version: '$CP_VAL'"
	cp_write_err "$SRPT_CFS/version" 1
	[[ $CP_ERR != ok ]] || { echo "version is writable" >&2; return 1; }
	[[ -f $SRPT_CFS/discovery_auth/rdma_cm_port ]] || { echo "no discovery_auth/rdma_cm_port" >&2; return 1; }
	dirs=$(find "$SRPT_CFS" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' ')
	log "fabric root: $(ls -A "$SRPT_CFS" | tr '\n' ' ')"
	[[ $dirs == "discovery_auth " ]] || { echo "directories at the fabric root: $dirs" >&2; return 1; }
	for d in "$SRPT_CFS"/*; do
		[[ -d $d || $(basename "$d") == version ]] ||
			log "note: other entry at the fabric root: $(basename "$d")"
	done
}

# wwn_ok NAME: mkdir and rmdir of WWN NAME work.
wwn_ok() {
	cp_mkdir_err "$SRPT_CFS/$1"
	[[ $CP_ERR == ok ]] || { echo "mkdir $1: $CP_ERR" >&2; return 1; }
	rmdir "$SRPT_CFS/$1"
	log "WWN $1 accepted"
}

case_wwn_bad_names() {
	local n bad=0
	for n in "$(flip_last "$WWN_GUID")" "$(flip_last "$WWN_GID")" not-a-port \
		"${WWN_GID:0:33}" "${WWN_GID#0x}" "0x0${WWN_GID#0x}" "${WWN_GUID//:/}"; do
		cp_mkdir_refused WWN "$SRPT_CFS/$n" || bad=1
	done
	((bad == 0))
}

# tpg_check WWN TPGNAME: make WWN/TPGNAME with a LUN, check the TPG's
# entries and tag 1, record the WWN name LIO reports in $REPORTED/WWN,
# remove everything again.
tpg_check() {
	local wwn=$1 tpg=$SRPT_CFS/$1/$2 e idx members rc=0
	mkdir "$SRPT_CFS/$wwn"
	mkdir "$tpg" || { rmdir "$SRPT_CFS/$wwn"; return 1; }
	for e in enable lun acls param auth np attrib; do
		[[ -e $tpg/$e ]] || { echo "$tpg/$e missing" >&2; rc=1; }
	done
	mkdir "$tpg/lun/lun_0"
	ln -s "$SO" "$tpg/lun/lun_0/$(basename "$SO")"
	idx=$(tr -d '\0' <"$tpg/lun/lun_0/statistics/scsi_tgt_port/port_index")
	members=$(tr -d '\0' <"$SO/alua/default_tg_pt_gp/members")
	log "$wwn/$2: port_index $idx; ALUA members: $members"
	[[ $idx == *+t+1 ]] || { echo "TPG tag is not 1: $idx" >&2; rc=1; }
	echo "${idx%+t+*}" >"$REPORTED/$wwn"
	rm "$tpg/lun/lun_0/$(basename "$SO")"
	rmdir "$tpg/lun/lun_0" "$tpg" "$SRPT_CFS/$wwn"
	return "$rc"
}

case_wwn_reports_name() {
	local w got rc=0
	for w in "$WWN_GUID" "$WWN_GID"; do
		[[ -f $REPORTED/$w ]] || { echo "no report for $w" >&2; rc=1; continue; }
		read -r got <"$REPORTED/$w"
		if [[ $got == "$w" ]]; then
			log "WWN $w reports $got"
		else
			echo "WWN $w reports $got" >&2
			rc=1
		fi
	done
	return "$rc"
}

# attr_range TPG NAME DEFAULT GOOD... -- BAD...
attr_range() {
	local tpg=$1 a=$2 def=$3 v rc=0 f before
	shift 3
	f=$tpg/attrib/$a
	[[ -f $f ]] || { echo "attrib/$a missing" >&2; return 1; }
	cp_read "$f"
	[[ $CP_VAL == "$def" ]] || { echo "$a defaults to $CP_VAL, expected $def" >&2; rc=1; }
	while [[ $1 != -- ]]; do
		v=$1; shift
		cp_write_err "$f" "$v"
		cp_read "$f"
		if [[ $CP_ERR != ok || $CP_VAL != "$v" ]]; then
			echo "$a=$v: write $CP_ERR, reads $CP_VAL" >&2
			rc=1
		fi
	done
	shift
	# Out of range: refused, the value stays.
	for v in "$@"; do
		cp_read "$f"
		before=$CP_VAL
		cp_write_err "$f" "$v"
		cp_read "$f"
		if [[ $CP_ERR == ok || $CP_VAL != "$before" ]]; then
			echo "$a=$v: write $CP_ERR, reads $CP_VAL (was $before)" >&2
			rc=1
		elif [[ $SRPT != stock && $CP_ERR != "Invalid argument" ]]; then
			echo "$a=$v: write $CP_ERR, expected Invalid argument" >&2
			rc=1
		else
			log "$a=$v refused ($CP_ERR), still $CP_VAL"
		fi
	done
	echo "$def" >"$f"
	return "$rc"
}

case_attribs() {
	local tpg rc=0
	tpg=$(srpt_add_target "$WWN_GUID")
	log "attrib/: $(ls "$tpg/attrib" | tr '\n' ' ')"
	attr_range "$tpg" srp_max_rdma_size 65536 65536 1048576 16777216 -- 65535 16777217 4096 abc 4294967296 || rc=1
	attr_range "$tpg" srp_max_rsp_size 256 40 1024 512 -- 39 1025 0 abc || rc=1
	attr_range "$tpg" srp_sq_size 4096 4 65535 128 -- 3 65536 0 abc 4294967300 || rc=1
	attr_range "$tpg" use_srq 0 1 0 -- 2 -1 abc || rc=1
	rmdir "$tpg" "$SRPT_CFS/$WWN_GUID"
	return "$rc"
}

# max_hw_pending_time: 60 by default and shown as "60\n"; 0 .. 3600 in
# decimal are taken; anything else (out of range, not a number, trailing
# junk, hex, too large for 32 bits, empty) fails with EINVAL and the value
# stays.
case_hw_pending_time() {
	local tpg f v rc=0 bad=(3601 -1 abc 0x10 5s '5 ' 4294967296 '')
	tpg=$(srpt_add_target "$WWN_GUID")
	f=$tpg/attrib/max_hw_pending_time
	if [[ -f $f && $(cat "$f"; echo x) != $'60\nx' ]]; then
		echo "max_hw_pending_time shows $(od -c "$f" | head -n1), expected 60 and a newline" >&2
		rc=1
	fi
	attr_range "$tpg" max_hw_pending_time 60 0 1 3600 60 -- "${bad[@]}" || rc=1
	for v in "${bad[@]}"; do
		cp_write_err "$f" "$v"
		if [[ $CP_ERR != "Invalid argument" ]]; then
			echo "max_hw_pending_time='$v': $CP_ERR, expected Invalid argument" >&2
			rc=1
		fi
	done
	rmdir "$tpg" "$SRPT_CFS/$WWN_GUID"
	return "$rc"
}

# comp_v_mask: by default every vector whatever their number ("0x" and 256
# "f": bits 0 to 1023); every mask with a bit set below 1024 is taken and
# reads back without leading zeros, also one that allows no vector the
# device uses (a value saved on a machine with more of them), which the
# kernel log names; what it shows is taken back unchanged; 0, anything
# without "0x", junk, whitespace but one newline at the end and a bit from
# 1024 up fail with EINVAL and the value stays. Nothing here depends on the
# number of vectors.
case_comp_v_mask() {
	local tpg f v def usable mark before err rc=0
	local -a bad beyond=()
	def=$(comp_mask_all)
	usable=$(usable_vectors "$RDMA_DEV") || return 1
	# Only the first vector that is not in use (there is one below 1024
	# unless the device uses all 1024).
	((usable < 1024)) && beyond=("$(comp_mask_bit "$usable")")
	# Written with echo, so each ends in a newline.
	bad=(0x0 0x000 0 1 3 ff abc 0xg 0x1z '0x1 ' ' 0x1' $'0x1\t' $'\t0x1'
		$'0x1\r' '0x 1' -0x1 +0x1 0x-1 0x0x1 '0x1,1' 0-1 '' 0x
		"$(comp_mask_bit 1024)" "0x1${def#0x}")
	tpg=$(srpt_add_target "$WWN_GUID")
	f=$tpg/attrib/comp_v_mask
	if [[ -f $f && $(cat "$f"; echo x) != "$def"$'\nx' ]]; then
		echo "comp_v_mask shows $(od -c "$f" | head -n1), expected 0x and 256 f and a newline" >&2
		rc=1
	fi
	mark=$(kmsg_mark)
	attr_range "$tpg" comp_v_mask "$def" 0x1 0x2 0xff "${beyond[@]}" \
		0xffffffffffffffffffffffff "$def" -- "${bad[@]}" || rc=1
	# Two newlines, a newline first, text after a NUL byte: refused, the
	# value stays. Each is one write: bash's echo and printf write line by
	# line, coreutils' printf at once.
	for v in '0x1\n\n' '\n0x1\n' '0x1\0z' '0x1\0'; do
		cp_read "$f"
		before=$CP_VAL
		if err=$(env printf "$v" 2>&1 >"$f"); then
			echo "comp_v_mask='$v' was taken: reads $(cat "$f")" >&2
			rc=1
		elif [[ $err != *"Invalid argument"* ]]; then
			echo "comp_v_mask='$v': $err, expected Invalid argument" >&2
			rc=1
		fi
		cp_read "$f"
		[[ $CP_VAL == "$before" ]] ||
			{ echo "comp_v_mask is $CP_VAL after writing '$v', was $before" >&2; rc=1; }
	done
	# A mask without a vector in use is taken and logged.
	if ((${#beyond[@]})) &&
		! kmsg_has "$mark" "port [0-9]+: comp_v_mask allows none of the $usable completion vectors in use; new channels take all of them"; then
		echo "comp_v_mask=${beyond[0]}: no kernel log line says that it allows none of the $usable vectors in use" >&2
		rc=1
	fi
	# Other spellings of a mask: shown in the one form, which is taken
	# back as it is; no newline is needed.
	for v in 0X2:0x2 0x0001:0x1 0xAbF:0xabf "0x$(printf '0%.0s' {1..300})1:0x1" \
		"${beyond[0]:-0x1}:${beyond[0]:-0x1}"; do
		printf '%s' "${v%%:*}" >"$f" || { echo "comp_v_mask='${v%%:*}' refused" >&2; rc=1; }
		cp_read "$f"
		[[ $CP_VAL == "${v#*:}" ]] || { echo "comp_v_mask='${v%%:*}' reads $CP_VAL" >&2; rc=1; }
		cp_write_err "$f" "$CP_VAL"
		[[ $CP_ERR == ok ]] || { echo "writing back $CP_VAL: $CP_ERR" >&2; rc=1; }
	done
	echo "$def" >"$f"
	rmdir "$tpg" "$SRPT_CFS/$WWN_GUID"
	return "$rc"
}

# acl_normalised TPG NAME CANON: mkdir of ACL NAME succeeds, the kernel log
# says that it matches logins named CANON, and a second ACL spelled CANON is
# refused (EEXIST): it would be the same initiator.
acl_normalised() {
	local mark lines rc=0
	mark=$(kmsg_mark)
	cp_mkdir_err "$1/acls/$2"
	[[ $CP_ERR == ok ]] || { echo "ACL $2: $CP_ERR" >&2; return 1; }
	lines=$(kmsg_since "$mark")
	if ! grep -qF "ACL \"$2\" matches logins named \"$3\"" <<<"$lines"; then
		echo "ACL $2: no 'matches logins named \"$3\"' in dmesg: $lines" >&2
		rc=1
	fi
	cp_mkdir_err "$1/acls/$3"
	if [[ $CP_ERR != "File exists" ]]; then
		echo "ACL $3 next to $2: $CP_ERR (expected File exists)" >&2
		[[ -d $1/acls/$3 ]] && rmdir "$1/acls/$3"
		rc=1
	fi
	rmdir "$1/acls/$2"
	((rc == 0)) && log "ACL $2 matches logins named $3; $3 next to it: $CP_ERR"
	return "$rc"
}

case_acl_names() {
	local tpg n rc=0 ifid init
	ifid=$(cp_ifid)
	init=$(cp_init_id)
	tpg=$(srpt_add_target "$WWN_GID")
	for n in "${ifid:0:4}:${ifid:4:4}:${ifid:8:4}:${ifid:12:4}" "0x$init" "$init" \
		"0x$ifid" "$IPV4" "$(cp_ipv6_full "$IPV6")" fd00:5250::77; do
		cp_mkdir_err "$tpg/acls/$n"
		if [[ $CP_ERR == ok ]]; then
			log "ACL $n accepted"
			rmdir "$tpg/acls/$n"
		else
			echo "ACL $n: $CP_ERR" >&2
			rc=1
		fi
	done
	for n in not-an-initiator 0x123 0xzz00 "0x${init}0" 1.2.3.4.5 fd00:::1 1:2:3; do
		cp_mkdir_refused ACL "$tpg/acls/$n" || rc=1
	done
	rmdir "$tpg" "$SRPT_CFS/$WWN_GID"
	return "$rc"
}

# Initiator names spelled otherwise than logins are named (LIO compares
# names byte for byte): accepted and normalised to the spelling of logins.
# The stock module keeps them as they are, so they never match.
case_acl_normalised() {
	local tpg n rc=0 ifid init
	ifid=$(cp_ifid)
	init=$(cp_init_id)
	tpg=$(srpt_add_target "$WWN_GID")
	for n in "${ifid:0:4}:${ifid:4:4}:${ifid:8:4}:${ifid:12:4}" "0x$init" "$init"; do
		[[ $n == "${n^^}" ]] || acl_normalised "$tpg" "${n^^}" "$n" || rc=1
	done
	acl_normalised "$tpg" "0X$init" "0x$init" || rc=1
	acl_normalised "$tpg" 0x1234 0x00000000000000000000000000001234 || rc=1
	acl_normalised "$tpg" "0x$ifid" "0x0000000000000000$ifid" || rc=1
	acl_normalised "$tpg" fd00:5250::77 fd00:5250:0000:0000:0000:0000:0000:0077 || rc=1
	acl_normalised "$tpg" "::ffff:$IPV4" "$IPV4" || rc=1
	acl_normalised "$tpg" 010.000.000.001 10.0.0.1 || rc=1
	rmdir "$tpg" "$SRPT_CFS/$WWN_GID"
	return "$rc"
}

case_rdma_cm_port() {
	local tpg f=$SRPT_CFS/discovery_auth/rdma_cm_port disk
	tpg=$(srpt_add_target "$WWN_GUID")
	srpt_add_lun "$tpg" "$SO" >/dev/null
	srpt_add_acl "$tpg" "$IPV4" >/dev/null
	srpt_enable "$tpg"
	srpt_set_rdma_cm_port 5555
	cp_wait_listen 5555
	[[ $(cat "$f") == 5555 ]] || { echo "rdma_cm_port reads $(cat "$f")" >&2; return 1; }
	disk=$(srp_login)
	srp_logout "$disk"
	# Move the listener.
	srpt_set_rdma_cm_port 5556
	cp_wait_listen 5556
	[[ $(cp_listen_ports | tr '\n' ' ') == "5556 " ]] ||
		{ echo "listening on $(cp_listen_ports | tr '\n' ' ') after the move" >&2; return 1; }
	[[ $(cat "$f") == 5556 ]] || { echo "rdma_cm_port reads $(cat "$f")" >&2; return 1; }
	disk=$(srp_login dest="$IPV4:5556")
	dd_verify "$disk" 1
	srp_logout "$disk"
	log "login on the old port 5555 (must fail)"
	cp_login_refused dest="$IPV4:5555"
	# 0 stops the listener.
	srpt_set_rdma_cm_port 0
	cp_wait_listen 0
	cp_login_refused dest="$IPV4:5556"
	srpt_enable "$tpg" 0
	rm "$tpg/acls/$IPV4/lun_0/lun_0"
	rmdir "$tpg/acls/$IPV4/lun_0" "$tpg/acls/$IPV4"
	rm "$tpg/lun/lun_0/$(basename "$SO")"
	rmdir "$tpg/lun/lun_0" "$tpg" "$SRPT_CFS/$WWN_GUID"
}

soft_rdma_setup
# case_rtpi_cycle: LIO gives an enabled TPG the lowest free relative target
# port ID, so a TPG made, enabled and removed again and again gets the same
# ID each time unless an ID leaks (removing an enabled TPG, then a disable
# and removal).
case_rtpi_cycle() {
	local wwn=$SRPT_CFS/$WWN_GUID tpg i r first="" made=0
	[[ -d $wwn ]] || { mkdir "$wwn"; made=1; }
	tpg=$wwn/tpgt_1
	[[ ! -d $tpg ]] || { echo "$tpg exists already" >&2; return 1; }
	for i in 1 2 3 4 5 6; do
		mkdir "$tpg"
		echo 1 >"$tpg/enable"
		r=$(cat "$tpg/rtpi")
		# Every other cycle: disable and enable once more before the rmdir.
		if ((i % 2 == 0)); then
			echo 0 >"$tpg/enable"
			echo 1 >"$tpg/enable"
			r=$r/$(cat "$tpg/rtpi")
		fi
		rmdir "$tpg"
		log "cycle $i: rtpi $r"
		first=${first:-${r%%/*}}
		[[ $r == "$first" || $r == "$first/$first" ]] ||
			{ echo "cycle $i: rtpi $r, the first cycle had $first: IDs leak" >&2; return 1; }
	done
	((made == 0)) || rmdir "$wwn"
}

srpt_load srp_max_req_size=8260
WWN_GUID=$(port_wwn "$RDMA_DEV" 1 guid)
WWN_GID=$(port_wwn "$RDMA_DEV" 1 gid)
SO=$(backstore_brd cp_ram 16)
REPORTED=$(mktemp -d)
log "port names: $WWN_GUID $WWN_GID"

sub_case fabric-root case_fabric_root || true
sub_case wwn-guid-form wwn_ok "$WWN_GUID" || true
sub_case wwn-gid-form wwn_ok "$WWN_GID" || true
sub_case wwn-bad-names case_wwn_bad_names || true
sub_case tpg-port-name-guid tpg_check "$WWN_GUID" "$WWN_GUID" || true
sub_case tpg-port-name-gid tpg_check "$WWN_GID" "$WWN_GID" || true
sub_case tpg-tpgt_1 tpg_check "$WWN_GID" tpgt_1 || true
cp_better wwn-reports-name "report the name a WWN was made with" ||
	sub_case wwn-reports-name case_wwn_reports_name || true
sub_case attribs case_attribs || true
cp_better max-hw-pending-time "have attrib/max_hw_pending_time" ||
	sub_case max-hw-pending-time case_hw_pending_time || true
cp_better comp-v-mask "have attrib/comp_v_mask" ||
	sub_case comp-v-mask case_comp_v_mask || true
sub_case acl-names case_acl_names || true
cp_better acl-normalised "normalise ACL names to the spelling of logins" ||
	sub_case acl-normalised case_acl_normalised || true
sub_case rdma_cm_port-moves-listener case_rdma_cm_port || true
sub_case rtpi-not-leaked case_rtpi_cycle || true
sub_exit
