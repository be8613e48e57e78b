#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The two-guest test that make check runs (make check-fabric runs all of
# tools/testing/fabric/): the essentials of 04-ibcm and
# 02-multipath-failover with one target setup between them.
#
#   ibcm-login-io             an IB/CM login from srp-hostile -T ibcm
#                             (libibumad; ib_cm unloaded here), WRITE+READ
#                             with data compare (512 B, 32 KiB, 1 MiB)
#   ibcm-dreq-from-initiator  our DREQ gets a DREP, the target frees the
#                             channel
#   mpath-two-paths           ib_srp over RDMA/CM on both links, one
#                             dm-multipath device with two active paths, fio
#                             verify passes
#   port1-disable-enable      the target port of link 1 disabled (enable=0)
#                             and enabled again under fio verify: the path
#                             fails over and is reinstated, no I/O or verify
#                             error, two channels again
#   logout-no-channels        multipath down, both sessions logged out, no
#                             channel left in the target
#
# The fault is shorter than in 02 (SRPT_TEST_FABRIC_FIO_SECS 35 s of fio,
# SRPT_TEST_FABRIC_DOWN_SECS 5 s down after the path failed); both can be
# set as there. The fault is the port's, not a pulled cable (02's
# link1-pull): the target ends the channel itself, so the path fails the
# same way every time. After a pulled cable the path fails only when a
# queue pair sees its retransmissions run out; in one of seven runs neither
# side's did, and the path failed after the SCSI command timeouts (75 s).

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"
# shellcheck source=tools/testing/lib-ibcm.sh
. "$(dirname "$0")/../lib-ibcm.sh"

[[ $(fabric_role) == initiator ]] || skip "runs in the initiator guest of the fabric"
need_cmd multipathd multipath fio jq
STATE=$(mktemp -d)
OUTD=$(test_out_dir)
export SRPT_TEST_FABRIC_FIO_SECS=${SRPT_TEST_FABRIC_FIO_SECS:-35}
export SRPT_TEST_FABRIC_DOWN_SECS=${SRPT_TEST_FABRIC_DOWN_SECS:-5}

# IB/CM first: ib_srp needs ib_cm, which would own the CM class.
if [[ $SRPT == stock ]]; then
	sub_result SKIP ibcm-login-io "$IBCM_STOCK_NO_LISTENER"
	sub_result SKIP ibcm-dreq-from-initiator "$IBCM_STOCK_NO_LISTENER"
	fabric_on target -t 180 fabric_target_setup 128 >&2 || die "target setup failed"
	fabric_rdma_setup || die "soft-RoCE setup failed"
else
	ibcm_setup
	"$IBCM_BUILD/srp-hostile" "${IBCM_ARGS[@]}" "$HOSTILE_DIR/cases-ibcm.txt" \
		ibcm-login-io ibcm-dreq-from-initiator || SUB_FAILED=$((SUB_FAILED + 1))
	ibcm_cleanup
fi

sub_case mpath-two-paths fabric_mpath_two_paths "$STATE/mp" || die "no multipath device"
fabric_fault_case port1-disable-enable "$STATE/mp" \
	fabric_on target fabric_port_enable 1 0 -- fabric_on target fabric_port_enable 1 1 || true
sub_case logout-no-channels fabric_mpath_logout || true
[[ -f $OUTD/stalls.txt ]] && log "stalls: $(cat "$OUTD/stalls.txt")"
sub_exit
