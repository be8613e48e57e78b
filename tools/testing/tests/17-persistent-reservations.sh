#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SCSI-3 persistent reservations from two initiators
# over RDMA/CM, as cluster fencing (fence_scsi, pacemaker) uses them. The
# target is what targetcli makes: a GID-form WWN, TPG tpgt_1, one brd LUN
# and two ACLs named by initiator port ID (0x + 32 hex digits, targetcli's
# ib.<32 hex>). ib_srp logs in twice with two initiator_ext values: two I_T
# nexuses, two disks for the same LU. sg_persist and sg_raw then check, on
# the wire:
#
#   no-pr-dir        without <dbroot>/pr (which nothing creates) REGISTER
#                    fails with NOT READY: the directory an admin must make
#   register         both register a key; READ KEYS lists both
#   full-status      READ FULL STATUS lists both with their SRP TransportIDs,
#                    which LIO builds from the ACL names: the port IDs
#   reserve-we       A reserves (write exclusive); READ RESERVATION from B
#                    shows A's key and the type
#   conflict         B's WRITE gets RESERVATION CONFLICT (sg_raw and a block
#                    layer write), B's READ and A's WRITE succeed, B's
#                    RESERVE gets RESERVATION CONFLICT
#   preempt-abort    B preempts A with PREEMPT AND ABORT while A writes with
#                    fio: A's I/O fails, B holds the reservation, only B's
#                    key is left, A's next command gets UNIT ATTENTION
#                    (registrations preempted) and then RESERVATION
#                    CONFLICT; both sessions stay logged in
#   release          B releases; A (no longer registered) writes again and
#                    B reads A's data back; B unregisters
#   fence-scsi       fence_scsi's way: type 5 (write exclusive, registrants
#                    only) lets both registered initiators write; after B
#                    fences A with PREEMPT AND ABORT, A's first WRITE gets
#                    UNIT ATTENTION (registrations preempted), the next one
#                    RESERVATION CONFLICT, and B still writes
#   ip-acl           an ACL named by IP address: LIO cannot build a
#                    TransportID from that name (READ FULL STATUS would
#                    leave the registrant out) and both initiator ports,
#                    logged in from one address, would be one registrant,
#                    so PERSISTENT RESERVE IN and OUT from it get ILLEGAL
#                    REQUEST, INVALID COMMAND OPERATION CODE, the kernel log
#                    says why, and READ/WRITE still work (the admin guide
#                    says why clusters must use port-ID ACLs)

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd sg_persist sg_raw fio

EXT_A=5250000000000001
EXT_B=52500000000000b2
KEY_A=0xa1a1
KEY_B=0xb2b2
WRITE_LBA=4096
STATE=$(mktemp -d)

# pr DISK ARG...: sg_persist without the INQUIRY header.
pr() {
	local disk=$1
	shift
	sg_persist --no-inquiry "$@" "$disk"
}

# pr_keys DISK: the registered keys (READ KEYS), sorted, one per line.
pr_keys() {
	local out
	out=$(pr "$1" --in --read-keys) || { echo "READ KEYS on $1 failed" >&2; return 1; }
	sed -n 's/^ *\(0x[0-9a-f]*\)$/\1/p' <<<"$out" | sort
}

# pr_reservation DISK: "KEY TYPE" of the reservation, or "none".
pr_reservation() {
	local out key type
	out=$(pr "$1" --in --read-reservation) || { echo "READ RESERVATION on $1 failed" >&2; return 1; }
	if grep -q 'there is NO reservation held' <<<"$out"; then
		echo none
		return
	fi
	key=$(sed -n 's/^ *Key=\(0x[0-9a-f]*\).*/\1/p' <<<"$out")
	type=$(sed -n 's/.*type: *\(.*[^ ]\) *$/\1/p' <<<"$out")
	[[ -n $key && -n $type ]] || { echo "cannot parse: $out" >&2; return 1; }
	echo "$key $type"
}

# pr_full_status DISK: READ FULL STATUS as sg_persist prints it (logged).
pr_full_status() {
	local out
	out=$(pr "$1" --in --read-full-status) || { echo "READ FULL STATUS on $1 failed" >&2; return 1; }
	log "READ FULL STATUS on $1:"$'\n'"$out"
	echo "$out"
}

# pr_transport_ids: "KEY PORTID" per registrant of pr_full_status's output
# on stdin (PORTID: the 16 bytes of the SRP TransportID in hex, which
# sg_persist prints on the lines after "RDMA initiator port identifier:").
pr_transport_ids() {
	awk '/Key=0x/ { if (id != "") print key, id
			sub(/.*Key=/, ""); key = $1; id = ""; grab = 0; next }
	     /port identifier:/ { grab = 1; next }
	     grab && /^[ 0-9a-f]+$/ { gsub(/ /, ""); id = id $0; next }
	     { grab = 0 }
	     END { if (id != "") print key, id }' | sort
}

# scsi_rw DISK read|write: one READ(10)/WRITE(10) of one 512-byte block at
# WRITE_LBA through sg_raw; prints good, conflict, ua-preempted or
# "other: <status>".
scsi_rw() {
	local disk=$1 op=$2 out rc=0 lba
	lba=$(printf '%08x' "$WRITE_LBA")
	local -a cdb=(00 "${lba:0:2}" "${lba:2:2}" "${lba:4:2}" "${lba:6:2}" 00 00 01 00)
	if [[ $op == write ]]; then
		[[ -f $STATE/block ]] || head -c 512 /dev/urandom >"$STATE/block"
		out=$(sg_raw -s 512 -i "$STATE/block" "$disk" 2a "${cdb[@]}" 2>&1) || rc=$?
	else
		out=$(sg_raw -r 512 -o "$STATE/read" "$disk" 28 "${cdb[@]}" 2>&1) || rc=$?
	fi
	if grep -qi 'Reservation Conflict' <<<"$out"; then
		echo conflict
	elif grep -qi 'Unit Attention' <<<"$out" && grep -qi 'Registrations preempted' <<<"$out"; then
		echo ua-preempted
	elif ((rc == 0)) && grep -q 'SCSI Status: Good' <<<"$out"; then
		echo good
	elif ((rc == 0)) && ! grep -q 'SCSI Status' <<<"$out"; then
		echo good
	else
		echo "other: status $rc: $(tr '\n' ' ' <<<"$out")"
	fi
}

# expect WHAT GOT WANT: fail with a message unless GOT equals WANT.
expect() {
	[[ $2 == "$3" ]] || { echo "$1: got '$2', want '$3'" >&2; return 1; }
	log "$1: $2"
}

# LIO writes the PR state of every LU to <dbroot>/pr/aptpl_<unit serial>
# on each REGISTER, APTPL or not. Without that directory (rtslib and
# targetcli do not create it) REGISTER fails with NOT READY, LOGICAL UNIT
# COMMUNICATION FAILURE, although LIO has registered the key. The admin
# guide tells to create it; this case shows why, then creates it.
case_no_pr_dir() {
	local out rc=0 mark n
	rm -rf "$PR_DIR"
	mark=$(kmsg_mark)
	out=$(pr "$DISK_A" --out --register --param-sark="$KEY_A" 2>&1) || rc=$?
	log "REGISTER without $PR_DIR: status $rc: $out"
	((rc != 0)) || { echo "REGISTER succeeded without $PR_DIR" >&2; return 1; }
	grep -qi 'not ready' <<<"$out" || { echo "REGISTER: $out" >&2; return 1; }
	n=$(kmsg_since "$mark" | grep -c 'for APTPL metadata failed') || true
	((n >= 1)) || { echo "no APTPL metadata message in the kernel log" >&2; return 1; }
	mkdir -p "$PR_DIR"
	# LIO kept the registration: remove it.
	expect "keys after the failed REGISTER" "$(pr_keys "$DISK_A")" "$KEY_A"
	pr "$DISK_A" --out --register --param-rk="$KEY_A" --param-sark=0 >/dev/null
	expect "keys after unregistering" "$(pr_keys "$DISK_A")" ""
	[[ -f $PR_DIR/aptpl_5e9a1c3d-0b7f-4c1e-9d2a-52500000a1b2 ]] ||
		{ echo "no PR state file in $PR_DIR: $(ls "$PR_DIR")" >&2; return 1; }
}

case_register() {
	mkdir -p "$PR_DIR"
	expect "keys before" "$(pr_keys "$DISK_A")" ""
	pr "$DISK_A" --out --register --param-sark="$KEY_A" >/dev/null
	pr "$DISK_B" --out --register --param-sark="$KEY_B" >/dev/null
	expect "keys seen by A" "$(pr_keys "$DISK_A" | tr '\n' ' ')" "$KEY_A $KEY_B "
	expect "keys seen by B" "$(pr_keys "$DISK_B" | tr '\n' ' ')" "$KEY_A $KEY_B "
}

case_full_status() {
	local got
	got=$(pr_full_status "$DISK_B" | pr_transport_ids | tr '\n' ' ')
	expect "TransportIDs" "$got" "$KEY_A ${ID_A#0x} $KEY_B ${ID_B#0x} "
}

case_reserve_we() {
	expect "reservation before" "$(pr_reservation "$DISK_B")" none
	pr "$DISK_A" --out --reserve --param-rk="$KEY_A" --prout-type=1 >/dev/null
	expect "reservation seen by B" "$(pr_reservation "$DISK_B")" "$KEY_A Write Exclusive"
}

case_conflict() {
	local rc=0
	expect "WRITE from B" "$(scsi_rw "$DISK_B" write)" conflict
	expect "READ from B" "$(scsi_rw "$DISK_B" read)" good
	expect "WRITE from A" "$(scsi_rw "$DISK_A" write)" good
	if dd if=/dev/zero of="$DISK_B" bs=4k count=1 seek=8 oflag=direct status=none 2>"$STATE/dd.err"; then
		echo "a block-layer write from B succeeded under A's reservation" >&2
		return 1
	fi
	log "dd to $DISK_B failed as it should: $(cat "$STATE/dd.err")"
	pr "$DISK_B" --out --reserve --param-rk="$KEY_B" --prout-type=1 >"$STATE/resv.out" 2>&1 || rc=$?
	((rc != 0)) || { echo "RESERVE from B succeeded while A holds the reservation" >&2; return 1; }
	grep -qi 'reservation conflict' "$STATE/resv.out" ||
		{ echo "RESERVE from B: $(cat "$STATE/resv.out")" >&2; return 1; }
	expect "reservation after B's RESERVE" "$(pr_reservation "$DISK_A")" "$KEY_A Write Exclusive"
}

case_preempt_abort() {
	local pid rc=0 host_a host_b h st first second
	fio --name=preempted --filename="$DISK_A" --rw=randwrite --bs=4k --size=8M \
		--ioengine=libaio --iodepth=16 --direct=1 --time_based --runtime=60 \
		--output="$STATE/fio.out" &
	pid=$!
	sleep 3
	kill -0 "$pid" 2>/dev/null || { echo "fio on A ended early: $(cat "$STATE/fio.out")" >&2; return 1; }
	pr "$DISK_B" --out --preempt-abort --param-rk="$KEY_B" --param-sark="$KEY_A" \
		--prout-type=1 >/dev/null
	log "PREEMPT AND ABORT done; waiting for fio on A"
	# shellcheck disable=SC2317
	_fio_done() { ! kill -0 "$pid" 2>/dev/null; }
	wait_for 90 _fio_done || { echo "fio on A still runs 90 s after the preemption" >&2; return 1; }
	wait "$pid" || rc=$?
	((rc != 0)) || { echo "fio on A kept writing after the preemption" >&2; return 1; }
	log "fio on A failed (status $rc): $(grep -m1 -i 'err' "$STATE/fio.out" || true)"
	expect "keys after preemption" "$(pr_keys "$DISK_B" | tr '\n' ' ')" "$KEY_B "
	expect "reservation after preemption" "$(pr_reservation "$DISK_B")" "$KEY_B Write Exclusive"
	# The block layer may have consumed the unit attention already.
	first=$(scsi_rw "$DISK_A" write)
	if [[ $first == ua-preempted ]]; then
		log "first WRITE from A: $first"
		second=$(scsi_rw "$DISK_A" write)
	else
		second=$first
	fi
	expect "WRITE from A after preemption" "$second" conflict
	expect "WRITE from B" "$(scsi_rw "$DISK_B" write)" good
	host_a=$(srp_host_of "$DISK_A")
	host_b=$(srp_host_of "$DISK_B")
	for h in "$host_a" "$host_b"; do
		st=$(cat "$(srp_rport_of_host "$h")/state")
		expect "$h after PREEMPT AND ABORT" "$st" running
	done
}

# srp_rport_of_host HOST: the srp_remote_ports entry of an ib_srp SCSI host.
srp_rport_of_host() {
	local p
	for p in /sys/class/srp_remote_ports/port-"${1#host}":*; do
		[[ -e $p ]] && { echo "$p"; return; }
	done
	echo "no remote port for $1" >&2
	return 1
}

case_release() {
	pr "$DISK_B" --out --release --param-rk="$KEY_B" --prout-type=1 >/dev/null
	expect "reservation after RELEASE" "$(pr_reservation "$DISK_A")" none
	head -c 512 /dev/urandom >"$STATE/block"
	expect "WRITE from A (not registered)" "$(scsi_rw "$DISK_A" write)" good
	expect "READ from B" "$(scsi_rw "$DISK_B" read)" good
	cmp "$STATE/block" "$STATE/read" || { echo "B did not read A's block back" >&2; return 1; }
	pr "$DISK_B" --out --register --param-rk="$KEY_B" --param-sark=0 >/dev/null
	expect "keys after B unregistered" "$(pr_keys "$DISK_A")" ""
}

# What fence_scsi does: every node registers, one reserves "write
# exclusive, registrants only" (type 5), so every registered node may
# write; fencing a node is a PREEMPT AND ABORT of its key, after which only
# its writes conflict.
case_fence_scsi() {
	local first
	pr "$DISK_A" --out --register --param-sark="$KEY_A" >/dev/null
	pr "$DISK_B" --out --register --param-sark="$KEY_B" >/dev/null
	pr "$DISK_A" --out --reserve --param-rk="$KEY_A" --prout-type=5 >/dev/null
	expect "reservation" "$(pr_reservation "$DISK_B")" "$KEY_A Write Exclusive, registrants only"
	expect "WRITE from A" "$(scsi_rw "$DISK_A" write)" good
	expect "WRITE from B (registered)" "$(scsi_rw "$DISK_B" write)" good
	pr "$DISK_B" --out --preempt-abort --param-rk="$KEY_B" --param-sark="$KEY_A" \
		--prout-type=5 >/dev/null
	expect "keys after fencing A" "$(pr_keys "$DISK_B" | tr '\n' ' ')" "$KEY_B "
	first=$(scsi_rw "$DISK_A" write)
	expect "first WRITE from fenced A" "$first" ua-preempted
	expect "WRITE from fenced A" "$(scsi_rw "$DISK_A" write)" conflict
	expect "WRITE from B" "$(scsi_rw "$DISK_B" write)" good
	pr "$DISK_B" --out --release --param-rk="$KEY_B" --prout-type=5 >/dev/null
	pr "$DISK_B" --out --register --param-rk="$KEY_B" --param-sark=0 >/dev/null
	expect "keys at the end" "$(pr_keys "$DISK_A")" ""
}

# pr_refused DISK ARG...: sg_persist must fail with ILLEGAL REQUEST,
# INVALID COMMAND OPERATION CODE (sg_persist's exit status 9: "command not
# supported"); the PR state stays as it was.
pr_refused() {
	local disk=$1 out rc=0
	shift
	out=$(pr "$disk" "$@" 2>&1) || rc=$?
	log "sg_persist $* on $disk: status $rc: $out"
	((rc == 9)) || { echo "sg_persist $*: status $rc, want 9 (not supported): $out" >&2; return 1; }
}

# An IP-address ACL (the RDMA/CM connection name, tried before the port
# ID): LIO cannot build a TransportID from that name, and every initiator
# port that logs in from that address is one I_T nexus for LIO, so the
# driver refuses PERSISTENT RESERVE IN and OUT from it as unsupported and
# says why in the kernel log. Other commands are not affected.
case_ip_acl() {
	local disk_a disk_b mark n gen dir
	srp_logout_all
	srpt_add_acl "$SRPT_TPG" "$IPV4" >/dev/null
	disk_a=$(srp_login initiator_ext="$EXT_A")
	disk_b=$(srp_login initiator_ext="$EXT_B")
	gen=$(cat "$SO/pr/res_pr_generation")
	mark=$(kmsg_mark)
	pr_refused "$disk_a" --out --register --param-sark="$KEY_A"
	pr_refused "$disk_a" --out --reserve --param-rk="$KEY_A" --prout-type=1
	pr_refused "$disk_a" --in --read-keys
	pr_refused "$disk_b" --in --read-full-status
	pr_refused "$disk_b" --in --read-reservation
	expect "WRITE from A (IP ACL)" "$(scsi_rw "$disk_a" write)" good
	expect "READ from B (IP ACL)" "$(scsi_rw "$disk_b" read)" good
	expect "PR generation after the refused commands" "$(cat "$SO/pr/res_pr_generation")" "$gen"
	expect "registrations after the refused commands" \
		"$(tr '\n' ' ' <"$SO/pr/res_pr_registered_i_pts")" "SPC-3 PR Registrations: None "
	for dir in OUT IN; do
		n=$(kmsg_since "$mark" |
			grep -cF "$IPV4: PERSISTENT RESERVE $dir refused: an ACL not named by an initiator port ID") || true
		((n >= 1)) || { echo "no 'PERSISTENT RESERVE $dir refused' line for $IPV4 in the kernel log" >&2; return 1; }
	done
	srp_logout_all
}

soft_rdma_setup
srpt_load srp_max_req_size=8260
ID_A=$(srp_initiator_port_id "$RDMA_DEV" 1 "$EXT_A")
ID_B=$(srp_initiator_port_id "$RDMA_DEV" 1 "$EXT_B")
# What targetcli makes: a unit serial (LIO names the PR state file after
# it; it can only be set before the LUN is exported), a GID-form WWN with
# TPG tpgt_1 and ib.<port ID> ACLs, stored as 0x<port ID>.
brd_setup 16
SO=$(backstore_iblock srpt_pr0 /dev/ram0)
sysfs_write "$SO/wwn/vpd_unit_serial" 5e9a1c3d-0b7f-4c1e-9d2a-52500000a1b2
SRPT_TPG=$(srpt_add_target "$(port_wwn "$RDMA_DEV" 1 gid)" tpgt_1)
srpt_add_lun "$SRPT_TPG" "$SO" >/dev/null
srpt_add_acl "$SRPT_TPG" "$ID_A" >/dev/null
srpt_add_acl "$SRPT_TPG" "$ID_B" >/dev/null
srpt_enable "$SRPT_TPG"
srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
PR_DIR=$(cat "$CFS/dbroot")/pr
DISK_A=$(srp_login initiator_ext="$EXT_A")
DISK_B=$(srp_login initiator_ext="$EXT_B")
[[ $DISK_A != "$DISK_B" ]] || die "both logins gave $DISK_A"
log "initiator A: $ID_A on $DISK_A, initiator B: $ID_B on $DISK_B"

sub_case no-pr-dir case_no_pr_dir || true
if sub_case register case_register; then
	sub_case full-status case_full_status || true
	if sub_case reserve-we case_reserve_we; then
		sub_case conflict case_conflict || true
		sub_case preempt-abort case_preempt_abort &&
			sub_case release case_release || true
	fi
	sub_case fence-scsi case_fence_scsi || true
fi
sub_case ip-acl case_ip_acl || true
sub_exit
