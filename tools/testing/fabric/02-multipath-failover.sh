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
# fault (see fabric_fault); SRPT_TEST_FABRIC_FAULTS=link1-pull,... runs
# only these faults.

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

need_cmd multipathd multipath fio jq
STATE=$(mktemp -d)
OUTD=$(test_out_dir)

fabric_on target -t 180 fabric_target_setup 128 >&2 || die "target setup failed"
fabric_rdma_setup || die "soft-RoCE setup failed"
sub_case mpath-two-paths fabric_mpath_two_paths "$STATE/mp" || die "no multipath device"
fabric_fault_case link1-pull "$STATE/mp" fabric_carrier 1 off -- fabric_carrier 1 on || true
fabric_fault_case link2-pull "$STATE/mp" fabric_carrier 2 off -- fabric_carrier 2 on || true
fabric_fault_case port1-disable-enable "$STATE/mp" \
	fabric_on target fabric_port_enable 1 0 -- fabric_on target fabric_port_enable 1 1 || true
sub_case logout-no-channels fabric_mpath_logout || true
[[ -f $OUTD/stalls.txt ]] && log "stalls: $(cat "$OUTD/stalls.txt")"
sub_exit
