#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-kernel-only
#
# Allocation failures on ib_srpt's paths, with the debug kernel's fault
# injection (failslab and fail_page_alloc, both restricted by stack trace):
# every injected failure must end in a clean answer, with no splat in the
# kernel log, no leak (debug-kmemleak.sh at the end of the run), and the
# target must work again once injection stops. Guest runs on Debian's
# kernel leave this test out (run.sh: "debug-kernel-only").
#
# Sub-cases:
#   login-rej-lost       the first allocation under rdma_reject() fails
#                        while a login is refused (IU length too large):
#                        nothing goes out, ib_srpt logs it once, and the
#                        initiator's CM retry gets SRP_LOGIN_REJ
#                        (cases-faults.txt fi-login-rej-lost)
#   login-session-nomem  the first allocation of LIO's target_setup_session()
#                        fails: the login gets SRP_LOGIN_REJ INSUFFICIENT
#                        RESOURCES (cases-faults.txt fi-login-session-nomem)
#   login-qp-nomem       the first allocation under srpt_ch_qp_move() (the
#                        new channel's QP to RTR) fails: the login gets
#                        SRP_LOGIN_REJ INSUFFICIENT RESOURCES, counted once
#                        in discovery_auth/logins, and the next login works
#                        (cases-faults.txt fi-login-qp-nomem); SRQ mode
#                        only (see case_login_qp_nomem)
#   tmf-nomem            the first allocation of core_tmr_alloc_req() fails:
#                        the TMF is answered TASK MANAGEMENT FUNCTION FAILED
#   tsk-set-nomem        the same for an ABORT TASK SET, which ib_srpt has
#                        carried out before LIO gets it: FUNCTION COMPLETE
#   device-add-nth       fail-nth: the 1st, 2nd, ... allocation on ib_srpt's
#                        text during "rdma link add" (ib_srpt's add_one():
#                        device, ports, MAD agents) fails in turn until the
#                        step makes no more; the device is deleted after
#                        each, and then must work
#   configfs-nth         the same for each configfs step of a target's setup
#                        (port, TPG, LUN, ACL, mapped LUN, use_srq, which
#                        makes the device's SRQ, enable, RDMA/CM port): the
#                        step fails with ENOMEM (EINVAL where LIO turns the
#                        fabric's error into that) or succeeds, and is undone
#   random-ring, random-srq
#                        each allocation whose stack passes through ib_srpt's
#                        text fails with probability SRPT_TEST_FAULT_PROB %
#                        while srp-hostile runs the fi-* cases of
#                        cases-faults.txt ROUNDS times (logins, direct,
#                        indirect and immediate data, TMFs, two channels,
#                        logout): every answer must be one that case allows
#   recovered            injection off: a fresh login with a WRITE/READ and
#                        data compare works, and ib_srpt unloads
# NOTE lines give how many failures were injected and at how many distinct
# call sites in ib_srpt (the first ib_srpt frame of each stack dump).
#
# Environment:
#   SRPT_TEST_FAULT_ROUNDS=N  rounds of the fi-* cases per receive mode
#                             (default 2)
#   SRPT_TEST_FAULT_PROB=P    percent of matching allocations that fail in
#                             the random phase (default 20)
#   SRPT_TEST_FAULT_CASES=glob,glob
#                             run only these sub-cases (default all;
#                             recovered always runs)

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fault.sh
. "$(dirname "$0")/../lib-fault.sh"

ROUNDS=${SRPT_TEST_FAULT_ROUNDS:-2}
PROB=${SRPT_TEST_FAULT_PROB:-20}
FI_CASES=${SRPT_TEST_FAULT_CASES:-*}
[[ $ROUNDS =~ ^[0-9]+$ && $PROB =~ ^[0-9]+$ ]] || die "SRPT_TEST_FAULT_ROUNDS and _PROB must be numbers"
fi_setup

fi_init
soft_rdma_setup
srpt_load srp_max_req_size=8260 srpt_srq_size=256
setup_target
hostile fi-prefill || die "fi-prefill failed without injection (see hostile.log)"
fi_text_ranges
log "ib_srpt text: $TEXT_START-$TEXT_END"

# login-rej-lost: the connection manager cannot allocate the reject of a
# refused login; ib_srpt logs that, and the initiator's CM retry is
# answered. Only failslab: fail_page_alloc would fail a slab refill first,
# which slub makes good by itself.
case_login_rej_lost() {
	local n
	kmsg_mark rej-lost
	targeted rdma_reject fi-login-rej-lost "$FS" || return
	n=$(kmsg_since rej-lost |
		grep -c 'refused: the SRP_LOGIN_REJ could not be sent (-12); the initiator will ask again$' || true)
	((n == 1)) || { echo "$n log lines for the lost reject, not 1" >&2; return 1; }
}

case_login_session_nomem() {
	targeted target_setup_session fi-login-session-nomem
}

# rej_insufficient: port 1 of $RDMA_DEV's "rejected, insufficient
# resources" count in discovery_auth/logins.
rej_insufficient() {
	awk -v dev="$RDMA_DEV" '$1 == dev && $2 == "port" { p = ($3 == "1"); next }
		/^[^\t]/ { p = 0 } p && /^\trejected, insufficient resources: / { print $NF }' \
		"$SRPT_CFS/discovery_auth/logins"
}

# login-qp-nomem: in SRQ mode only. soft-RoCE's failed allocation is
# that of the QP's responder resources (rxe_qp_from_attr(), Debian's
# 6.12.118), after which rxe leaves the QP's receive task disabled for
# good: a ring-mode channel's receive queue can then never be flushed, and
# its release waits in ib_drain_rq() forever (seen: the release work
# blocked in __ib_drain_rq(), hung-task reports). A channel on the SRQ has
# no receive queue of its own to drain.
case_login_qp_nomem() {
	local r0 r1
	if ! hostile fi-prefill; then
		srpt_teardown_configfs
		rebuild_target
		hostile fi-prefill
	fi
	srpt_attrib "$SRPT_TPG" use_srq 1
	r0=$(rej_insufficient)
	[[ -n $r0 ]] || { echo "no insufficient-resources count in discovery_auth/logins" >&2; return 1; }
	targeted srpt_ch_qp_move fi-login-qp-nomem "$FS" || return
	r1=$(rej_insufficient)
	((r1 == r0 + 1)) || { echo "rejected, insufficient resources: $r0, then $r1, not one more" >&2; return 1; }
	srpt_attrib "$SRPT_TPG" use_srq 0
}

case_tmf_nomem() {
	targeted core_tmr_alloc_req fi-tmf-nomem
}

case_tsk_set_nomem() {
	targeted core_tmr_alloc_req fi-tsk-set-nomem
}

# random MODE: the fi-* cases ROUNDS times in receive mode MODE while
# PROB % of ib_srpt's allocations fail.
random() {
	local use_srq=0 i n lost
	[[ $1 == srq ]] && use_srq=1
	# A sub-case before may have failed half-way through a setup.
	if ! hostile fi-prefill; then
		srpt_teardown_configfs
		rebuild_target
		hostile fi-prefill
	fi
	srpt_attrib "$SRPT_TPG" use_srq "$use_srq"
	kmsg_mark "random-$1"
	fi_range "$TEXT_START" "$TEXT_END"
	fi_arm "$PROB"
	for ((i = 0; i < ROUNDS; i++)); do
		hostile 'fi-*' '!fi-prefill' '!fi-*-nomem' ||
			{ fi_off; echo "round $i: a case got an answer it does not allow (hostile.log)" >&2; return 1; }
	done
	n=$(fi_used)
	fi_off
	lost=$(kmsg_since "random-$1" | grep -c 'SRP_LOGIN_REJ could not be sent' || true)
	echo "NOTE fault-inject-$1: $n allocations failed in $ROUNDS rounds at ${PROB}%, $lost login rejects lost (answered on the initiator's retry)" >>"${SUBRESULTS:-/dev/null}"
	((n > 0)) || { echo "no failure was injected" >&2; return 1; }
}

case_random_ring() {
	random ring
}

case_random_srq() {
	random srq
}

case_configfs_nth() {
	local wwn tpg so acl
	srpt_teardown_configfs
	fi_range "$TEXT_START" "$TEXT_END"
	wwn=$(port_wwn "$RDMA_DEV" 1 guid)
	tpg=$SRPT_CFS/$wwn/$wwn
	so=$CFS/core/iblock_0/srpt_ram0
	acl=$tpg/acls/$IPV4
	[[ -d $so ]] || die "no backstore srpt_ram0"
	# LIO answers a WWN or TPG that the fabric could not make with
	# EINVAL, whatever the fabric's error (target_fabric_make_wwn(),
	# target_fabric_make_tpg()).
	nth_sweep port "$ENOMEM|Invalid argument" "rmdir '$SRPT_CFS/$wwn' 2>/dev/null || true" mkdir "'$SRPT_CFS/$wwn'"
	mkdir "$SRPT_CFS/$wwn"
	nth_sweep tpg "$ENOMEM|Invalid argument" "rmdir '$tpg' 2>/dev/null || true" mkdir "'$tpg'"
	mkdir "$tpg"
	nth_sweep lun "$ENOMEM" "rmdir '$tpg/lun/lun_0' 2>/dev/null || true" mkdir "'$tpg/lun/lun_0'"
	srpt_add_lun "$tpg" "$so" 0 >/dev/null
	nth_sweep acl "$ENOMEM" "rmdir '$acl' 2>/dev/null || true" mkdir "'$acl'"
	mkdir "$acl"
	nth_sweep mapped-lun "$ENOMEM" "rmdir '$acl/lun_0' 2>/dev/null || true" mkdir "'$acl/lun_0'"
	mkdir "$acl/lun_0"
	ln -s "$tpg/lun/lun_0" "$acl/lun_0/lun_0"
	# bash, not sh: dash's echo reports any failed write as "I/O error".
	nth_sweep attrib-use-srq "$ENOMEM" "echo 0 >'$tpg/attrib/use_srq'" bash -c "'echo 1 >$tpg/attrib/use_srq'"
	srpt_attrib "$tpg" use_srq 1
	nth_sweep enable "$ENOMEM" "echo 0 >'$tpg/enable'" bash -c "'echo 1 >$tpg/enable'"
	nth_sweep rdma-cm-port "$ENOMEM" "echo 0 >'$SRPT_CFS/discovery_auth/rdma_cm_port'" \
		bash -c "'echo $SRP_LOGIN_PORT >$SRPT_CFS/discovery_auth/rdma_cm_port'"
	srpt_teardown_configfs
	rebuild_target
	hostile fi-prefill || { echo "the rebuilt target does not work (hostile.log)" >&2; return 1; }
}

case_device_add_nth() {
	srpt_teardown_configfs
	rdma link delete "$RDMA_DEV"
	fi_range "$TEXT_START" "$TEXT_END"
	nth_sweep device-add "$ENOMEM" "rdma link delete '$RDMA_DEV'" \
		rdma link add "$RDMA_DEV" type "$SOFT_RDMA_TYPE" netdev "$NETDEV"
	rdma link add "$RDMA_DEV" type "$SOFT_RDMA_TYPE" netdev "$NETDEV"
	wait_for 20 rdma_port_active "$RDMA_DEV" 1
	rebuild_target
	hostile fi-prefill || { echo "the re-added device does not work (hostile.log)" >&2; return 1; }
}

# device-add-nth comes before anything makes the device's SRQ (it lives
# as long as the device), so that configfs-nth's use_srq step makes it;
# login-qp-nomem uses the SRQ.
for c in login-rej-lost login-session-nomem tmf-nomem tsk-set-nomem device-add-nth configfs-nth login-qp-nomem random-ring random-srq; do
	want_case "$c" || continue
	sub_case "$c" "case_${c//-/_}" || true
done
sub_case recovered case_recovered || true
fi_off
sync_kmsg

# Where the failures were injected.
fi_sites >"$OUTD/fault-sites.txt"
log "failures with a stack dump: $(fi_logged), at $(wc -l <"$OUTD/fault-sites.txt") distinct ib_srpt call sites (fault-sites.txt):"
cat "$OUTD/fault-sites.txt"
echo "NOTE fault-inject: $(fi_logged) failures with a stack dump, at $(wc -l <"$OUTD/fault-sites.txt") distinct ib_srpt call sites" >>"${SUBRESULTS:-/dev/null}"
sub_exit
