#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dm-multipath over the two target ports: ib_srp logs in through both
# links to the same RAM disk; multipathd (multipath-tools, LIO's entry of
# its built-in table: ALUA) builds one device with two active paths. Then,
# each time under fio with crc32c verification on the multipath device:
# the target's cable of link 1 is pulled and put back (the target guest's
# NIC loses its carrier for a while: QEMU's set_link, fabric_carrier), the
# same for link 2, then the target port of link 1 is disabled and enabled
# again (its TPG's enable=0/1). For every fault: the path is seen failed (one active
# path left), fio ends without an I/O error and with no verify error, the
# path is reinstated (two active paths, two target channels). The longest
# completion latency fio saw (the I/O stall of the failover) is logged,
# with the time until the path failed and until it came back. Last, after
# multipathd is stopped and both sessions are logged out, the target has
# no channel left.
#
# ib_srp's timeouts (lib-fabric.sh fabric_srp_load, which says why the
# reconnect delay is the longer one): fast_io_fail_tmo=2,
# reconnect_delay=4, dev_loss_tmo=600. SRPT_TEST_FABRIC_FIO_SECS and
# SRPT_TEST_FABRIC_DOWN_SECS set the length of each fio run and of each
# fault (see fabric_fault).

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

need_cmd multipathd multipath fio jq
STATE=$(mktemp -d)
OUTD=$(test_out_dir)

case_setup() {
	local d1 d2 mp
	d1=$(fabric_login 1)
	d2=$(fabric_login 2)
	log "paths: $d1 (link 1) $d2 (link 2)"
	mp=$(fabric_multipath_start 2)
	echo "$mp" >"$STATE/mp"
	multipath -ll >&2
	[[ $(fabric_mpath_ll_active) == 2 ]]
	# one device with exactly these two paths
	[[ $(dmsetup ls --target multipath | grep -vc 'No devices') == 1 ]]
	multipath -ll | grep -q " ${d1#/dev/} " && multipath -ll | grep -q " ${d2#/dev/} "
	fabric_wait_target_channels 2 10
	fabric_fio_verify "$mp" 5 "$OUTD/fio-setup.json"
	log "fio before the faults: $(fabric_fio_summary "$OUTD/fio-setup.json")"
}

# fault NAME DOWN-CMD... -- UP-CMD...: see fabric_fault.
fault() {
	fabric_fault -f "$1" "$(cat "$STATE/mp")" "${@:2}"
}

fabric_on target -t 180 fabric_target_setup 128 >&2 || die "target setup failed"
fabric_rdma_setup || die "soft-RoCE setup failed"
sub_case mpath-two-paths case_setup || die "no multipath device"
sub_case link1-pull fault link1-pull fabric_carrier 1 off -- fabric_carrier 1 on || true
sub_case link2-pull fault link2-pull fabric_carrier 2 off -- fabric_carrier 2 on || true
sub_case port1-disable-enable fault port1-disable-enable \
	fabric_on target fabric_port_enable 1 0 -- fabric_on target fabric_port_enable 1 1 || true
sub_case logout-no-channels fabric_mpath_logout || true
[[ -f $OUTD/stalls.txt ]] && log "stalls: $(cat "$OUTD/stalls.txt")"
sub_exit
