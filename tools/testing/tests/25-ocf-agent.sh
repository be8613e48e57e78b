#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# named-only
#
# The Pacemaker resource agent tools/ha/SRPTarget (installed in the guest
# where the ib-srpt-ha package puts it) against this ib_srpt, on a RAM disk,
# one node's view (the agent is told it runs on nodeA, target port group 3;
# nodeB would be 4):
#   ocf-tester           resource-agents' ocf-tester passes (meta-data
#                        against ra-api-1.dtd, probes, start, stop,
#                        promote, demote, notify, twice each), nothing left
#                        in configfs afterwards
#   start-configfs       start: monitor 0 (running, unpromoted); the
#                        backstore on the RAM disk with the unit serial,
#                        group 3 implicit ALUA in Standby, the TPG's
#                        relative port ID 256 * 3 + 1, LUN 0 in the group,
#                        mapped into the initiator's ACL, TPG enabled
#   login-alua           an ib_srp login: VPD 80h is vpd_unit_serial, VPD
#                        83h's NAA is LIO's from it; REPORT TARGET PORT
#                        GROUPS shows exactly group 3, Standby, no PREF,
#                        port 0x301; a READ fails with NOT READY, "logical
#                        unit not accessible, target port in standby state"
#                        (04h/0Bh). promote: monitor 8, RTPG Active/
#                        Optimized with PREF, 1 MiB written and read back;
#                        demote: monitor 0, Standby, READ refused again;
#                        promote: the 1 MiB is still there
#   stop-logged-in       stop while the initiator is logged in: status 0,
#                        no backstore, HBA or target port left in configfs,
#                        the RDMA/CM listener untouched; monitor 7
#   idempotent           start twice, promote twice, demote twice, stop
#                        twice: all 0; monitor 7 after; nodeB gets group 4
#                        and relative port ID 0x401
#   shared-tpg           stop leaves another LU (LUN 1 on another
#                        backstore) in the same TPG, its ACL mapping and the
#                        TPG enabled; only its own LUN, mapping and
#                        backstore are gone
#   validate             validate-all: 0 for the configuration, 6
#                        (not configured) for a node missing from node_ids,
#                        without allowed_initiators, with lun=x
#
# "named-only": make check's guest stage leaves this test out (run it with
# vm.sh run 25-ocf-agent or make check-ha).

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd ocf-tester xmllint sg_rtpg sg_raw sg_inq sg_vpd
[[ -f /usr/lib/ocf/lib/heartbeat/ocf-shellfuncs ]] ||
	skip_missing "resource-agents is not installed (no ocf-shellfuncs)"

RA_DIR=/usr/lib/ocf/resource.d/ib_srpt
RA=$RA_DIR/SRPTarget
STATE=$LIB_STATE/ocf
SERIAL=ha-test-5e1a1-0001
mkdir -p "$STATE" "$RA_DIR"
# (the guest's / is a writable overlay on the host's)
install -m 755 "$(dirname "$0")/../../ha/SRPTarget" "$RA"

soft_rdma_setup
srpt_load
brd_setup 32 2
srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
PORT=$(port_wwn "$RDMA_DEV" 1)
TPG=$SRPT_CFS/$PORT/tpgt_1
SO=$CFS/core/iblock_0/ha_lu0

# The resource's parameters, as Pacemaker passes them.
export OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=ha_lu0
export OCF_RESKEY_port=$PORT OCF_RESKEY_lun=0 OCF_RESKEY_path=/dev/ram0
export OCF_RESKEY_dev_name=ha_lu0 OCF_RESKEY_vpd_unit_serial=$SERIAL
export OCF_RESKEY_allowed_initiators=$IPV4 OCF_RESKEY_tg_pt_gp=ha_gp
export OCF_RESKEY_node_ids="nodeA=3 nodeB=4" OCF_RESKEY_CRM_meta_on_node=nodeA

# ra ACTION WANT: run the agent; fail unless its status is WANT.
ra() {
	local rc=0
	"$RA" "$1" >"$STATE/ra.out" 2>&1 || rc=$?
	if ((rc != $2)); then
		echo "SRPTarget $1: status $rc, want $2: $(tr '\n' ' ' <"$STATE/ra.out")" >&2
		return 1
	fi
	log "SRPTarget $1: $rc"
}

# expect WHAT GOT WANT: fail unless GOT equals WANT.
expect() {
	[[ $2 == "$3" ]] || { echo "$1: got '$2', want '$3'" >&2; return 1; }
	log "$1: $2"
}

# left_over: print what is left in configfs of the target (target ports
# and HBAs).
left_over() {
	local d
	for d in "$SRPT_CFS"/* "$CFS"/core/*_[0-9]*; do
		[[ -d $d ]] || continue
		[[ ${d##*/} == discovery_auth ]] && continue
		echo "${d#"$CFS"/}"
	done
}

# passthrough OUT CMD...: run a SCSI pass-through command with its output
# in OUT and its messages in OUT.err; a unit attention (the ALUA state
# changed) is retried, twice at most. Returns the command's status.
passthrough() {
	local dst=$1 i rc
	shift
	for i in 1 2 3; do
		rc=0
		"$@" >"$dst" 2>"$dst.err" || rc=$?
		grep -qi 'unit attention' "$dst.err" || return "$rc"
		log "unit attention ($i): $(grep -i 'additional sense' "$dst.err" | head -n1)"
	done
	return "$rc"
}

# bytes FILE: set the array B to FILE's bytes (decimal).
bytes() {
	read -r -a B <<<"$(od -An -tu1 -v "$1" | tr -s ' \n' '  ')"
}

# rtpg DISK: print REPORT TARGET PORT GROUPS as "group state pref ports"
# lines (decimal group ID, access state, PREF bit, relative port IDs in hex
# separated by commas), decoded from the raw response.
rtpg() {
	passthrough "$STATE/rtpg.txt" sg_rtpg -d "$1" ||
		{ cat "$STATE/rtpg.txt.err" >&2; return 1; }
	tr '\n' ' ' <"$STATE/rtpg.txt" >&2
	echo >&2
	passthrough "$STATE/rtpg.bin" sg_rtpg -r "$1" ||
		{ cat "$STATE/rtpg.bin.err" >&2; return 1; }
	local -a B
	bytes "$STATE/rtpg.bin"
	local len=$(( (B[0] << 24) | (B[1] << 16) | (B[2] << 8) | B[3] )) off=4 n k p
	while ((off < 4 + len)); do
		n=${B[off + 7]}
		p=
		for ((k = 0; k < n; k++)); do
			p+="${p:+,}$(printf '0x%x' $(( (B[off + 10 + 4 * k] << 8) | B[off + 11 + 4 * k] )))"
		done
		echo "$(( (B[off + 2] << 8) | B[off + 3] )) $((B[off] & 15)) $((B[off] >> 7)) $p"
		off=$((off + 8 + 4 * n))
	done
}

# vpd_naa DISK: print the LU's NAA designator (VPD page 83h, association
# LU, type 3) in hex, from the raw page.
vpd_naa() {
	sg_vpd -p di -r "$1" >"$STATE/vpd83.bin" || return
	local -a B
	bytes "$STATE/vpd83.bin"
	local end=$((4 + ((B[2] << 8) | B[3]))) off=4 len k h
	while ((off < end)); do
		len=${B[off + 3]}
		if (((B[off + 1] & 0x3f) == 3)); then
			h=
			for ((k = 0; k < len; k++)); do
				h+=$(printf '%02x' "${B[off + 4 + k]}")
			done
			echo "$h"
			return
		fi
		off=$((off + 4 + len))
	done
	echo "no NAA designator in VPD page 83h" >&2
	return 1
}

# read_refused DISK: a READ(10) of block 0 must end in CHECK CONDITION,
# NOT READY, 04h/0Bh (target port in standby state).
read_refused() {
	local rc=0
	passthrough "$STATE/read.txt" sg_raw -r 512 "$1" 28 00 00 00 00 00 00 00 01 00 || rc=$?
	log "READ in Standby: status $rc: $(tr '\n' ' ' <"$STATE/read.txt.err")"
	grep -q 'Sense key: Not Ready' "$STATE/read.txt.err" ||
		{ echo "READ: no NOT READY sense" >&2; return 1; }
	grep -q 'Additional sense: Logical unit not accessible, target port in standby state' "$STATE/read.txt.err" ||
		{ echo "READ: not ASC/ASCQ 04h/0Bh" >&2; return 1; }
}

# dh_wait DISK STATE: when scsi_dh_alua handles DISK, wait until it shows
# the access state STATE (it learns it from the unit attention or RTPG).
dh_wait() {
	local dev=/sys/block/${1#/dev/}/device
	[[ $(cat "$dev/dh_state" 2>/dev/null) == alua ]] || return 0
	wait_for 20 grep -qx "$2" "$dev/access_state" ||
		{ echo "scsi_dh_alua: $(cat "$dev/access_state"), want $2" >&2; return 1; }
	log "scsi_dh_alua: $2"
}

case_ocf_tester() {
	local -a opts=()
	local v
	for v in port lun path dev_name vpd_unit_serial allowed_initiators tg_pt_gp node_ids CRM_meta_on_node; do
		local n=OCF_RESKEY_$v
		opts+=(-o "$v=${!n}")
	done
	ocf-tester -n ha_lu0 "${opts[@]}" "$RA" >"$STATE/ocf-tester.out" 2>&1 ||
		{ cat "$STATE/ocf-tester.out" >&2; return 1; }
	cat "$STATE/ocf-tester.out" >&2
	grep -qx "$RA passed all tests" "$STATE/ocf-tester.out"
	expect "left in configfs" "$(left_over | tr '\n' ' ')" ""
}

case_start_configfs() {
	ra monitor 7
	ra start 0
	ra monitor 0
	expect "backstore enabled" "$(cat "$SO/enable")" 1
	expect "backstore device" "$(cat "$SO/udev_path")" /dev/ram0
	expect "unit serial" "$(cat "$SO/wwn/vpd_unit_serial")" "T10 VPD Unit Serial Number: $SERIAL"
	expect "group ID" "$(cat "$SO/alua/ha_gp/tg_pt_gp_id")" 3
	expect "ALUA access type" "$(cat "$SO/alua/ha_gp/alua_access_type")" Implicit
	expect "ALUA state" "$(cat "$SO/alua/ha_gp/alua_access_state")" 2
	expect "preferred" "$(cat "$SO/alua/ha_gp/preferred")" 0
	expect "relative port ID" "$(cat "$TPG/rtpi")" 0x301
	expect "LUN's group" "$(sed -n 's/^TG Port Alias: //p' "$TPG/lun/lun_0/alua_tg_pt_gp")" ha_gp
	expect "LUN's backstore" "$(readlink -f "$TPG/lun/lun_0/ha_lu0")" "$(readlink -f "$SO")"
	expect "ACL mapping" "$(readlink -f "$TPG/acls/$IPV4/lun_0/lun")" "$(readlink -f "$TPG/lun/lun_0")"
	expect "TPG enabled" "$(cat "$TPG/enable")" 1
}

case_login_alua() {
	local disk naa
	disk=$(srp_login)
	echo "$disk" >"$STATE/disk"
	log "scsi_dh: $(cat "/sys/block/${disk#/dev/}/device/dh_state" 2>/dev/null)"
	expect "VPD 80h" "$(sg_inq -p 0x80 -r "$disk" | tail -c +5 | tr -d '\0')" "$SERIAL"
	naa=$(backstore_naa "$SO")
	expect "VPD 83h NAA" "$(vpd_naa "$disk")" "$naa"
	expect "RTPG unpromoted" "$(rtpg "$disk")" "3 2 0 0x301"
	read_refused "$disk"

	ra promote 0
	ra monitor 8
	expect "RTPG promoted" "$(rtpg "$disk")" "3 0 1 0x301"
	dh_wait "$disk" active/optimized
	head -c 1048576 /dev/urandom >"$STATE/data"
	dd if="$STATE/data" of="$disk" bs=1M count=1 oflag=direct status=none
	dd if="$disk" of="$STATE/back" bs=1M count=1 iflag=direct status=none
	cmp "$STATE/data" "$STATE/back"

	ra demote 0
	ra monitor 0
	expect "RTPG demoted" "$(rtpg "$disk")" "3 2 0 0x301"
	read_refused "$disk"

	ra promote 0
	ra monitor 8
	expect "RTPG promoted again" "$(rtpg "$disk")" "3 0 1 0x301"
	dh_wait "$disk" active/optimized
	dd if="$disk" of="$STATE/back" bs=1M count=1 iflag=direct status=none
	cmp "$STATE/data" "$STATE/back"
	log "1 MiB written while promoted is intact after demote and promote"
}

case_stop_logged_in() {
	[[ -s $STATE/disk ]] || { echo "no login from login-alua" >&2; return 1; }
	[[ -n $(srp_hosts) ]] || { echo "the initiator is not logged in" >&2; return 1; }
	ra stop 0
	ra monitor 7
	expect "left in configfs" "$(left_over | tr '\n' ' ')" ""
	expect "RDMA/CM listener" "$(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")" "$SRP_LOGIN_PORT"
	srp_logout_all
}

case_idempotent() {
	ra start 0
	ra start 0
	ra promote 0
	ra promote 0
	ra monitor 8
	ra demote 0
	ra demote 0
	ra monitor 0
	ra stop 0
	ra stop 0
	ra monitor 7
	expect "left in configfs" "$(left_over | tr '\n' ' ')" ""
	OCF_RESKEY_CRM_meta_on_node=nodeB ra start 0
	expect "nodeB's group ID" "$(cat "$SO/alua/ha_gp/tg_pt_gp_id")" 4
	expect "nodeB's relative port ID" "$(cat "$TPG/rtpi")" 0x401
	OCF_RESKEY_CRM_meta_on_node=nodeB ra stop 0
	expect "left in configfs" "$(left_over | tr '\n' ' ')" ""
}

case_shared_tpg() {
	local other
	other=$(backstore_iblock other1 /dev/ram1)
	srpt_add_target "$PORT" tpgt_1 >/dev/null
	srpt_add_lun "$TPG" "$other" 1 >/dev/null
	srpt_add_acl "$TPG" "$IPV4" >/dev/null
	srpt_enable "$TPG"
	ra start 0
	ra monitor 0
	ra stop 0
	ra monitor 7
	[[ ! -e $SO ]] || { echo "$SO is still there" >&2; return 1; }
	[[ ! -e $TPG/lun/lun_0 ]] || { echo "LUN 0 is still there" >&2; return 1; }
	[[ ! -e $TPG/acls/$IPV4/lun_0 ]] || { echo "LUN 0's mapping is still there" >&2; return 1; }
	expect "other LUN" "$(readlink -f "$TPG/lun/lun_1/other1")" "$(readlink -f "$other")"
	expect "other mapping" "$(readlink -f "$TPG/acls/$IPV4/lun_1/lun_1")" "$(readlink -f "$TPG/lun/lun_1")"
	expect "TPG enabled" "$(cat "$TPG/enable")" 1
	srpt_teardown_configfs
	core_teardown
}

case_validate() {
	ra validate-all 0
	OCF_RESKEY_CRM_meta_on_node=nodeC ra validate-all 6
	OCF_RESKEY_allowed_initiators='' ra validate-all 6
	OCF_RESKEY_lun=x ra validate-all 6
}

sub_case ocf-tester case_ocf_tester || true
sub_case start-configfs case_start_configfs || true
sub_case login-alua case_login_alua || true
sub_case stop-logged-in case_stop_logged_in || true
srp_logout_all || true
"$RA" stop >/dev/null 2>&1 || true
sub_case idempotent case_idempotent || true
# (a failed case may leave the LU: the next one starts without it)
"$RA" stop >/dev/null 2>&1 || true
sub_case shared-tpg case_shared_tpg || true
"$RA" stop >/dev/null 2>&1 || true
sub_case validate case_validate || true
sub_exit
