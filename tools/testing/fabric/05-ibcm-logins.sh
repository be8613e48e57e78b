#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hostile suite's login cases (tools/srp-hostile/cases.txt, login-*)
# over IB/CM: srp-hostile -T ibcm in the initiator guest, set up as in
# 04-ibcm (lib-ibcm.sh: ib_cm unloaded here, the CM MADs through
# libibumad), against the target port of link 1. Each case is a
# sub-result, with the same expected answer as over RDMA/CM (60-hostile).
#
# Left out: those written for the RDMA/CM layout of the login request
# (login-pdata-*: private data cut short, which IB/CM pads to 92 bytes;
# login-reserved-set: bytes 50-55, here inside the target port ID),
# login-rej-log-ratelimited (it counts lines of the target's kernel log in
# this guest's), and those that change the target's configfs from this
# guest (login-port-disabled*: $TPG; login-acl-delete-storm and
# login-peer-channel-limit: an address with an ACL of its own, $CAP_SRC;
# login-single-before-rtu, login-single-rtu-never and login-rtu-delay-io:
# $TPG, and rtu_delay is RDMA/CM's; ibcm-no-rtu* cover a missing RTU over
# IB/CM), which would only skip; ibcm-dreq-from-target and the ACL cases of
# cases-ibcm.txt (04-ibcm) cover that ground over IB/CM.
#
# Environment: SRPT_TEST_IBCM_LOGIN_CASES=glob,glob  these cases instead
#              SRPT_TEST_IBCM_ARGS=-v,...             more srp-hostile options

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
if [[ -n ${SRPT_TEST_IBCM_LOGIN_CASES:-} ]]; then
	IFS=, read -r -a lsel <<<"$SRPT_TEST_IBCM_LOGIN_CASES"
else
	mapfile -t lsel < <("$IBCM_BUILD/srp-hostile" -l "$HOSTILE_DIR/cases.txt" |
		awk '$1 ~ /^login-/ { print $1 }' |
		grep -vx -e 'login-pdata-.*' -e login-reserved-set -e login-rej-log-ratelimited \
			-e 'login-port-disabled.*' -e login-acl-delete-storm -e login-peer-channel-limit \
			-e login-single-before-rtu -e login-single-rtu-never -e login-rtu-delay-io)
fi
rc=0
"$IBCM_BUILD/srp-hostile" "${IBCM_ARGS[@]}" "$HOSTILE_DIR/cases.txt" "${lsel[@]}" || rc=$?
ibcm_cleanup
exit "$rc"
