#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile initiator: tools/srp-hostile (a userspace SRP initiator on
# librdmacm/libibverbs) runs the case table tools/srp-hostile/cases.txt
# against the target: malformed logins, SRP_CMD descriptor abuse, immediate
# data overflows, task management, flow-control abuse, unknown IUs. Each case
# is a sub-result; after each case the tool checks that a fresh login with a
# WRITE(10)/READ(10) and data compare still works and that the kernel log
# shows no splat.
#
# 61-hostile-srq runs this script again with HOSTILE_MODE=srq: the TPG's
# attrib/use_srq is 1, so every channel receives from the device's shared
# receive queue; cases marked mode=ring are left out, mode=srq ones run
# (srp-hostile -M). With our module the test checks that every login of the
# run reported the intended receive mode.
#
# SRPT=stock: cases marked stock=crash are skipped, and cases marked
# stock=bad that fail are reported as SKIP "stock-known-bad" - the list of
# the stock module's failures is printed at the end of the log.
#
# Environment (vm.sh passes SRPT_TEST_* into the guest):
#   SRPT_TEST_HOSTILE_CASES=glob,glob   run only these cases
#   SRPT_TEST_HOSTILE_ARGS=-v,-F        more srp-hostile options, comma
#                                       separated (-v verbose, -vv also kernel
#                                       log lines, -F run the stock crashers)
#   SRPT_TEST_HOSTILE_FILE=NAME         another case table in tools/srp-hostile
#   SRPT_TEST_HOSTILE_SRQ_CASES=glob,.. the cases of 61-hostile-srq (default:
#                                       SRPT_TEST_HOSTILE_CASES, else all but
#                                       SRQ_LEAVE_OUT below); !glob leaves
#                                       cases out
#   SRPT_TEST_HOSTILE_STOCK_SRQ=1       run 61-hostile-srq with SRPT=stock too

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd gcc make
MODE=${HOSTILE_MODE:-ring}
[[ $MODE == ring || $MODE == srq ]] || die "HOSTILE_MODE must be ring or srq"
# 6.12's ib_srpt calls srpt_cache_put(NULL) when it releases an SRQ
# channel: a WARNING that fails the whole test (as in 31-dp-initiator-modes).
if [[ $MODE == srq && $SRPT == stock && -z ${SRPT_TEST_HOSTILE_STOCK_SRQ:-} ]]; then
	skip "stock ib_srpt WARNs in srpt_cache_put() releasing SRQ channels (SRPT_TEST_HOSTILE_STOCK_SRQ=1 runs it)"
fi
INIT_ID=0000000000000001000000000000abcd
NOACL_IP=10.211.0.99
SECOND_IP=10.211.0.98
CAP_IP=10.211.0.97

build=$(mktemp -d /tmp/srp-hostile.XXXXXX)
hostile_build "$build"

soft_rdma_setup
if [[ $MODE == srq ]]; then
	# 256 shared receives for channels that are granted 128 credits each:
	# every receive buffer serves many channels in turn, and three busy
	# channels overcommit the queue.
	srpt_load srp_max_req_size=8260 srpt_srq_size=256
else
	srpt_load srp_max_req_size=8260
fi
# LUN 0: 64 MiB brd. ACLs: our IPv4 address and our initiator port ID.
srpt_setup -b brd -s 64 -a "$IPV4" -a "0x$INIT_ID"
# map_lun N SO: export backstore SO as LUN N, mapped in every ACL so far.
map_lun() {
	local lun acl
	lun=$(srpt_add_lun "$SRPT_TPG" "$2" "$1")
	for acl in "$SRPT_TPG"/acls/*/; do
		acl=${acl%/}
		mkdir "$acl/lun_$1"
		ln -s "$lun" "$acl/lun_$1/lun_$1"
	done
}
# LUN 1: an 8 GiB null_blk without memory behind it, big enough for a
# near-4-GiB write (the immediate-data length overflow case).
# LUN 2: 16 MiB of null_blk whose every request takes 1 s, for the cases
# that abort commands while the backstore runs them (tsk-*-running*).
# Without null_blk the cases that need them skip ("requires HAVE_LUN1",
# "HAVE_SLOW_LUN"), and under CI=true the test fails here.
# LUN 2 is mapped first: mapping a LUN gives the other LUNs of each ACL a
# UNIT ATTENTION (REPORTED LUNS DATA HAS CHANGED), which LUN 1's cases do
# not expect and LUN 2's cases take with "io lun=2".
if nullblk_setup 8; then
	nullb_slow_setup srpt_slow 16 1000000000 || die "cannot make the slow null_blk device"
	so=$(backstore_iblock srpt_slow /dev/srpt_slow)
	map_lun 2 "$so"
	export HAVE_SLOW_LUN=1
	so=$(backstore_iblock srpt_null_big /dev/nullb0)
	# A serial number of its own: LUN 1's NAA designator differs from
	# the other LUNs' (cmd-xcopy-* name LUN 1 by it).
	sysfs_write "$so/wwn/vpd_unit_serial" 5a1c0e11-7b3d-4f2a-8c6e-0000000000a1 ||
		die "cannot set LUN 1's unit serial number"
	LUN1_NAA=$(backstore_naa "$so") || die "cannot read LUN 1's NAA designator"
	[[ $LUN1_NAA == 60014055a1c0e117b3d4f2a8c6e00000 ]] ||
		die "LUN 1's NAA designator is $LUN1_NAA"
	export LUN1_NAA
	map_lun 1 "$so"
	export HAVE_LUN1=1
else
	rc=0
	missing_feature "no null_blk device for LUN 1: the cases that need it skip" || rc=$?
	((rc == EXIT_SKIP)) || die "the LUN 1 setup failed"
fi
# A second name of the target port, in GID form, for the cases that need
# persistent reservations, which work only under an ACL named by port ID,
# and those only GID-named target ports match: LUN 0 again and an ACL for
# our port ID, disabled until a case enables it for itself (requires
# PR_TPG), so that the other cases still see the GUID-named port alone.
# LIO refuses REGISTER without pr/ in its dbroot.
so=$CFS/core/iblock_0/srpt_ram0
[[ -d $so ]] || die "no backstore $so for LUN 0"
PR_TPG=$(srpt_add_target "$(port_wwn "$RDMA_DEV" 1 gid)" tpgt_1) || die "cannot make the GID-named target port"
srpt_add_lun "$PR_TPG" "$so" 0 >/dev/null || die "cannot export LUN 0 on $PR_TPG"
srpt_add_acl "$PR_TPG" "0x$INIT_ID" >/dev/null || die "cannot add the port-ID ACL on $PR_TPG"
mkdir -p "$(cat "$CFS/dbroot")/pr" || die "cannot make pr/ in LIO's dbroot"
export PR_TPG
if [[ $MODE == srq ]]; then
	srpt_attrib "$SRPT_TPG" use_srq 1 || die "cannot set use_srq"
	srpt_attrib "$PR_TPG" use_srq 1 || die "cannot set use_srq on $PR_TPG"
	[[ $(srpt_attrib "$SRPT_TPG" use_srq) == 1 ]] || die "use_srq does not read back 1"
fi
# The addresses below need nothing this guest may lack: if one cannot be
# added, the setup is broken and the test fails (the cases that use it
# would only skip).
# A second address on the RDMA netdev with no ACL (unknown-initiator case).
ip addr add "$NOACL_IP/24" dev "$NETDEV" || die "cannot add $NOACL_IP to $NETDEV"
export NOACL_SRC=$NOACL_IP
# A third one with an ACL of its own: a second initiator (xch-* cases).
ip addr add "$SECOND_IP/24" dev "$NETDEV" || die "cannot add $SECOND_IP to $NETDEV"
srpt_add_acl "$SRPT_TPG" "$SECOND_IP" >/dev/null || die "cannot add an ACL for $SECOND_IP"
export SECOND_SRC=$SECOND_IP
# A fourth one with an ACL of its own for login-peer-channel-limit, which
# counts every channel from its source address: no other case uses it.
ip addr add "$CAP_IP/24" dev "$NETDEV" || die "cannot add $CAP_IP to $NETDEV"
srpt_add_acl "$SRPT_TPG" "$CAP_IP" >/dev/null || die "cannot add an ACL for $CAP_IP"
export CAP_SRC=$CAP_IP
export TPG=$SRPT_TPG
# The receive mode of this run; cases that switch use_srq restore it.
USE_SRQ=0
[[ $MODE == srq ]] && USE_SRQ=1
export USE_SRQ
# What differs on soft-iWARP (SRPT_TEST_RDMA=siw), for the case table:
# iWARP has no RNR retry, so a send to an initiator without receives ends
# the connection (flow-no-receives); and this userspace initiator cannot
# open 64 connections on siw (at the 49th its PD/CQ allocation fails,
# "Resource temporarily unavailable", before that login is sent; the
# cause, on the initiator's side, is not analysed), so the cases that need
# 64 channels are left out there.
# iWARP has no RTU either (the rtu_delay cases need CM_RTU).
# QP_ERROR_OUTCOME: what the initiator sees when the target's QP goes to
# error under it (an RDMA its registration refuses, an IU larger than the
# target's receive buffer, our receive buffers too small for a response):
# on soft-RoCE its own QP fails first ("dead"), before any CM event. On
# soft-iWARP that order has not been measured, so either is accepted there.
# NO_RECV_RNR0_OUTCOME: no receives posted and no RNR retry (flow-no-
# receives-rnr0): on soft-RoCE the target's send fails and it closes the
# channel (disconnect); on soft-iWARP not measured, as above.
# STUCK_SEND: a send to an initiator whose QP is in the error state hangs:
# soft-RoCE retries it for ever at the retry count of 7 that initiators
# ask for (flow-stuck-send-closes); on soft-iWARP the connection ends.
if [[ $SOFT_RDMA_TYPE == siw ]]; then
	export NO_RECV_OUTCOME="disconnect || dead" MANY_CONNS='' CM_RTU=''
	export QP_ERROR_OUTCOME="dead || disconnect" NO_RECV_RNR0_OUTCOME="disconnect || dead"
	export STUCK_SEND=''
else
	export NO_RECV_OUTCOME=none MANY_CONNS=1 CM_RTU=1
	export QP_ERROR_OUTCOME=dead NO_RECV_RNR0_OUTCOME=disconnect
	export STUCK_SEND=1
fi
# The debug kernel (KASAN, lockdep) is too slow for cases that need many
# large transfers to overlap (cmdbuf-budget-task-set-full).
[[ $(uname -r) == *-ibsrpt-debug ]] || export NOT_DEBUG_KERNEL=1
guid=$(srpt_guid)
log "target port $SRPT_WWN, service GUID $guid, receive mode $MODE"
kmsg_mark hostile

args=(-d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$guid" -i "0x$INIT_ID"
	-m "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" -o "${SUBRESULTS:-/dev/null}"
	-M "$MODE")
[[ $SRPT == stock ]] && args+=(-S)
# Options and case patterns are comma-separated (vm.sh splits on spaces).
IFS=, read -r -a extra <<<"${SRPT_TEST_HOSTILE_ARGS:-}"
args+=("${extra[@]}")
# What 61-hostile-srq leaves out: logins refused before a channel exists
# (srpt_cm_req_validate() and the ACL lookup answer them, use_srq is not
# read), the limits on channels, the log's rate limits and the CM's waits
# for an RTU; and ABORT TASK SET and CLEAR TASK SET, which choose the
# commands to abort by nexus and LUN (srpt_tsk_mark_ch()), while
# tsk-abort-inflight-*, tsk-abort-storm and tsk-lun-reset-* still return
# aborted commands' shared receives. The receive mode plays no part in
# their outcome; they cost about 100 s (login-connecting-timeout alone
# 15 s; srq-connecting-* test the connecting state with shared receives).
SRQ_LEAVE_OUT='!login-iu-len-*,!login-buf-fmt-*,!login-tgt-id-*,!login-opcode-*,!login-pdata-*,!login-init-id-*,!login-no-acl*,!login-port-disabled,!login-reserved-set,!login-flags-*,!login-tag-max,!login-peer-channel-limit,!login-nexus-channel-limit,!login-rej-log-ratelimited,!log-*,!login-single-rtu-never,!login-rtu-delay-io,!login-connecting-timeout,!tsk-abort-set-*,!tsk-clear-task-set-*'
sel=${SRPT_TEST_HOSTILE_CASES:-}
[[ $MODE == srq ]] && sel=${SRPT_TEST_HOSTILE_SRQ_CASES:-${sel:-$SRQ_LEAVE_OUT}}
IFS=, read -r -a cases <<<"$sel"
rc=0
"$build/srp-hostile" "${args[@]}" "$HOSTILE_DIR/${SRPT_TEST_HOSTILE_FILE:-cases.txt}" "${cases[@]}" || rc=$?
rm -rf "$build"
# The run used the intended receive queue: use_srq is back at this run's
# value (the few cases that switch it restore it) and logins in that mode
# were accepted (our module names the mode in its "login accepted" line,
# which is rate-limited, so the lines are not counted exactly).
if [[ $SRPT == ours ]]; then
	want=ring other=SRQ
	[[ $MODE == srq ]] && want=SRQ other=ring
	logins=$(kmsg_since hostile | grep 'login accepted' || true)
	n_want=$(grep -c ", $want, " <<<"$logins" || true)
	n_other=$(grep -c ", $other, " <<<"$logins" || true)
	log "logins: $n_want with $want, $n_other with $other"
	[[ $(srpt_attrib "$SRPT_TPG" use_srq) == "$USE_SRQ" ]] ||
		die "use_srq was not restored to $USE_SRQ"
	((n_want > n_other)) || die "logins in the wrong receive mode"
fi
((rc == 0)) || die "srp-hostile: some cases failed"
