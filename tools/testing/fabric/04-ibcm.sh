#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IB/CM logins end to end (two guests): srp-hostile -T ibcm in the
# initiator guest sends the SRP login as a CM REQ through libibumad (the
# kernel's ib_cm is unloaded here, so this process owns the CM class; the
# target's ib_srpt listens with the kernel's ib_cm), builds its own RC QP
# from the REP, and runs tools/srp-hostile/cases-ibcm.txt over link 1:
#
#   ibcm-login-io              REQ/REP/RTU, then WRITE+READ with data compare
#                              (512 B, 32 KiB, 1 MiB), one ib_cm channel on
#                              the target
#   ibcm-dreq-from-initiator   our DREQ gets a DREP, the target frees the channel
#   ibcm-dreq-from-target      enable=0 on the target: its DREQ reaches us
#   ibcm-single-replaces       a second SINGLE login: the first channel gets a
#                              DREQ, one channel left
#   ibcm-single-before-rtu     a SINGLE login while the first channel's RTU is
#                              held back: that channel gets a DREQ after its
#                              RTU, never a REJ
#   ibcm-single-after-crash    an initiator gone silent is replaced
#   ibcm-multi-maintained      two MULTI channels
#   ibcm-no-rtu                no RTU: the REP is resent, then the target
#                              frees the channel
#   ibcm-no-rtu-iu-held        the same with an IU sent before the RTU
#   ibcm-acl-none              a GID without ACL: REJ (consumer defined) with
#                              SRP_LOGIN_REJ "channel limit reached"
#   ibcm-acl-port-id[-other]   the GID-form port's port-ID ACL, matched and not
#   ibcm-bad-service-id        REJ "invalid service ID" from the target's CM
#
# and records whether srp_daemon can discover the target here (it cannot:
# see below). 05-ibcm-logins runs the hostile suite's login cases over IB/CM.
#
# Environment: SRPT_TEST_IBCM_CASES=glob,glob   only these cases of cases-ibcm.txt
#              SRPT_TEST_IBCM_ARGS=-v,...        more srp-hostile options

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"
# shellcheck source=tools/testing/lib-ibcm.sh
. "$(dirname "$0")/../lib-ibcm.sh"

[[ $(fabric_role) == initiator ]] || skip "runs in the initiator guest of the fabric"
[[ $SRPT != stock ]] || skip "$IBCM_STOCK_NO_LISTENER"
ibcm_setup
IFS=, read -r -a sel <<<"${SRPT_TEST_IBCM_CASES:-}"
rc=0
"$IBCM_BUILD/srp-hostile" "${IBCM_ARGS[@]}" "$HOSTILE_DIR/cases-ibcm.txt" "${sel[@]}" || rc=$?

# srp_daemon: it asks the subnet administrator for the ports that support
# device management, then sends DM MADs to their LIDs. RoCE has neither an
# SA nor LIDs (the port's SM LID and LID are 0) and srp_daemon addresses its
# MADs without a GRH, so it cannot find the target here; the output is kept
# as evidence. tools/dm-query (40-dm-mad) stands in for it.
if command -v srp_daemon >/dev/null; then
	sd_out=$(run_timeout 20 srp_daemon -o -v -c -i "$(fabric_rdma 1)" -p 1 2>&1) || true
	log "srp_daemon -o -c on $(fabric_rdma 1), the end of its output: $(grep -v '^ *[A-Z].*:' <<<"$sd_out" | tail -n 12 | tr -s '\n\t ' ' ')"
	log "port: $(ibv_devinfo -d "$(fabric_rdma 1)" 2>/dev/null | grep -E 'sm_lid|port_lid|link_layer' | tr -s ' \t\n' ' ')"
fi

ibcm_cleanup
exit "$rc"
