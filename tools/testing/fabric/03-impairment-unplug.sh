#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The same multipath device as in 02-multipath-failover (two links, two
# target ports, multipathd), and two more faults under fio with crc32c
# verification:
# - netem on link 2 in both guests (delay 5 ms with 2 ms jitter, 1 %
#   loss, 25 % reordering, 1 % duplicates) for 20 s: no I/O error, no
#   verify error, both paths active afterwards (measured: the initiator's
#   soft-RoCE queue pair of link 2 does not survive this, it goes to error
#   every 7 s or so and ib_srp reconnects, so the path may flap meanwhile;
#   that is not asserted either way);
# - "rdma link del" of the target's soft-RoCE device of link 1 under I/O,
#   "rdma link add" of it again 8 s later: the path fails and is
#   reinstated (ours re-attaches the target port's configfs WWN to the
#   returning device by itself; the stock module does not, so with
#   SRPT=stock the case is a documented difference and skipped).
# After the logouts the target has no channel left. The stalls are logged
# as in 02-multipath-failover.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

need_cmd multipathd multipath fio jq tc
STATE=$(mktemp -d)
OUTD=$(test_out_dir)

case_setup() {
	local mp
	fabric_login 1 >/dev/null
	fabric_login 2 >/dev/null
	mp=$(fabric_multipath_start 2)
	echo "$mp" >"$STATE/mp"
	fabric_wait_target_channels 2 10
}

# netem2 on|off: netem on link 2 in both guests, or off.
netem2() {
	fabric_netem 2 "$1" && fabric_on target fabric_netem 2 "$1"
}

case_netem() {
	local rc=0
	SRPT_TEST_FABRIC_DOWN_SECS=20 fabric_fault netem-link2 "$(cat "$STATE/mp")" \
		netem2 on -- netem2 off || rc=$?
	# after a failure half-way: no netem left anywhere
	fabric_netem 2 off 2>/dev/null || true
	fabric_on target fabric_netem 2 off >/dev/null 2>&1 || true
	return "$rc"
}

case_unplug() {
	fabric_fault -f rdma-del-add-link1 "$(cat "$STATE/mp")" \
		fabric_on target fabric_rdma_del 1 -- fabric_on target fabric_rdma_add 1
}

fabric_on target -t 180 fabric_target_setup 128 >&2 || die "target setup failed"
fabric_rdma_setup || die "soft-RoCE setup failed"
sub_case mpath-two-paths case_setup || die "no multipath device"
sub_case netem-link2 case_netem || true
if [[ $SRPT == stock ]]; then
	sub_result SKIP rdma-del-add-link1 "stock ib_srpt: does not re-attach the WWN"
else
	sub_case rdma-del-add-link1 case_unplug || true
fi
sub_case logout-no-channels fabric_mpath_logout || true
[[ -f $OUTD/stalls.txt ]] && log "stalls: $(cat "$OUTD/stalls.txt")"
sub_exit
