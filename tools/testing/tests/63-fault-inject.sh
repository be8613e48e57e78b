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

FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
ROUNDS=${SRPT_TEST_FAULT_ROUNDS:-2}
PROB=${SRPT_TEST_FAULT_PROB:-20}
INIT_ID=0000000000000001000000000000abcd
[[ $ROUNDS =~ ^[0-9]+$ && $PROB =~ ^[0-9]+$ ]] || die "SRPT_TEST_FAULT_ROUNDS and _PROB must be numbers"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[[ -d $FS && -d $FP ]] ||
	skip_missing "no failslab/fail_page_alloc in debugfs: this kernel has no fault injection"
[[ -e /proc/self/fail-nth ]] || skip_missing "no /proc/self/fail-nth"

OUTD=$(test_out_dir)
build=$(mktemp -d /tmp/srp-hostile.XXXXXX)
hostile_build "$build"
CASES=$HOSTILE_DIR/cases-faults.txt

# The kernel log is read as it comes: the stack dumps would overrun the
# ring buffer.
KMSG=$OUTD/fault-kmsg.txt
cat /dev/kmsg >"$KMSG" &
KMSG_PID=$!
trap 'fi_off; kill "$KMSG_PID" 2>/dev/null || true' EXIT

# fi_write FILE VALUE: set a fault attribute.
fi_write() {
	sysfs_write "$1" "$2" || die "cannot set $1 to $2"
}

# fi_off: no more injection (fail-nth is per task and ends by itself).
fi_off() {
	local d
	for d in "$FS" "$FP"; do
		echo 0 >"$d/probability" 2>/dev/null || true
		echo 0 >"$d/times" 2>/dev/null || true
	done
}

# fi_init: both attributes fail any allocation that passes the stack
# filter, sleeping ones and single pages included, and dump its stack.
fi_init() {
	local d
	fi_off
	for d in "$FS" "$FP"; do
		fi_write "$d/interval" 1
		fi_write "$d/space" 0
		fi_write "$d/verbose" 2
		fi_write "$d/task-filter" N
		fi_write "$d/stacktrace-depth" 32
		fi_write "$d/reject-start" 0
		fi_write "$d/reject-end" 0
		fi_write "$d/ignore-gfp-wait" N
	done
	fi_write "$FP/min-order" 0
	fi_write "$FP/ignore-gfp-highmem" N
}

# fi_range START END: only allocations with a frame in [START, END) fail,
# and none inside kmem_cache_create(): slub's error path there leaks the
# cache's kobject name (sysfs_slab_add() does not put the kobject whose
# kobject_init_and_add() failed; Linux 6.12), which kmemleak reports
# through ib_srpt's login frames.
fi_range() {
	local d
	for d in "$FS" "$FP"; do
		fi_write "$d/require-start" "$1"
		fi_write "$d/require-end" "$2"
		fi_write "$d/reject-start" "$REJECT_START"
		fi_write "$d/reject-end" "$REJECT_END"
	done
}

# Every failure injected, with a stack dump or silently (__GFP_NOWARN),
# counts down an attribute's "times"; FI_BUDGET is where it starts.
FI_BUDGET=1000000

# fi_arm PROB [TIMES [ATTR...]]: fail PROB % of the matching allocations,
# at most TIMES (default $FI_BUDGET) per attribute, with the attributes
# ATTR (default both). fail-nth needs PROB 0.
fi_arm() {
	local d times=${2:-$FI_BUDGET}
	local -a attrs=("$FS" "$FP")
	if (($# > 2)); then
		attrs=("${@:3}")
	fi
	FI_ARMED=0
	for d in "${attrs[@]}"; do
		fi_write "$d/times" "$times"
		fi_write "$d/probability" "$1"
		FI_ARMED=$((FI_ARMED + times))
	done
}

# fi_used: failures injected since fi_arm.
fi_used() {
	echo $((FI_ARMED - $(<"$FS/times") - $(<"$FP/times")))
}

# fi_logged: failures that dumped their stack so far (lines in the log).
fi_logged() {
	sync_kmsg
	grep -c 'FAULT_INJECTION: forcing a failure' "$KMSG" || true
}

# sync_kmsg: wait until a marker written now has reached $KMSG.
sync_kmsg() {
	local m
	m=ib_srpt-fi-sync-$BASHPID-${EPOCHREALTIME/./}
	echo "$m" >/dev/kmsg
	wait_for 10 grep -q "$m" "$KMSG" || die "the kernel log reader is stuck"
}

# sym_next ADDR: the lowest symbol address above ADDR (hex, no 0x). The
# addresses have 16 digits: they compare as strings.
sym_next() {
	awk -v a="$1" '($1 "") > (a "") && (b == "" || ($1 "") < b) { b = $1 "" }
		END { print b }' /proc/kallsyms
}

# func_range NAME: "0xSTART 0xEND" of kernel function NAME.
func_range() {
	local start end
	start=$(awk -v n="$1" '$3 == n && ($2 == "t" || $2 == "T") { print $1; exit }' /proc/kallsyms)
	[[ -n $start ]] || return 1
	end=$(sym_next "$start")
	[[ -n $end ]] || return 1
	echo "0x$start 0x$end"
}

# srpt_text_range: "0xSTART 0xEND" around ib_srpt's functions.
srpt_text_range() {
	local first last end
	read -r first last < <(awk '$4 == "[ib_srpt]" && ($2 == "t" || $2 == "T") {
		a = $1 ""; if (f == "" || a < f) f = a; if (l == "" || a > l) l = a }
		END { print f, l }' /proc/kallsyms)
	[[ -n $first && -n $last ]] || return 1
	end=$(sym_next "$last")
	[[ -n $end ]] || end=$(printf '%x' $((0x$last + 0x10000)))
	echo "0x$first 0x$end"
}

# hostile CASE-GLOB...: run cases of cases-faults.txt without the health
# check (it would run under injection); output in $OUTD/hostile.log.
hostile() {
	"$build/srp-hostile" -d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$(srpt_guid)" \
		-i "0x$INIT_ID" -m "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" \
		-t 15000 -H -k "$CASES" "$@" >>"$OUTD/hostile.log" 2>&1
}

# setup_target: LUN 0 (64 MiB brd), ACLs for our address and port ID.
setup_target() {
	srpt_setup -b brd -s 64 -a "$IPV4" -a "0x$INIT_ID" || die "target setup failed"
}

# rebuild_target: the same target again on the brd backstore that is left.
rebuild_target() {
	local wwn tpg
	wwn=$(port_wwn "$RDMA_DEV" 1 guid) || return
	tpg=$(srpt_add_target "$wwn" "$wwn") || return
	srpt_add_lun "$tpg" "$CFS/core/iblock_0/srpt_ram0" 0 >/dev/null || return
	srpt_add_acl "$tpg" "$IPV4" >/dev/null || return
	srpt_add_acl "$tpg" "0x$INIT_ID" >/dev/null || return
	srpt_enable "$tpg" 1 || return
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT" || return
	[[ $tpg == "$SRPT_TPG" ]] || { echo "rebuilt $tpg, not $SRPT_TPG" >&2; return 1; }
}

fi_init
soft_rdma_setup
srpt_load srp_max_req_size=8260 srpt_srq_size=256
setup_target
hostile fi-prefill || die "fi-prefill failed without injection (see hostile.log)"
read -r TEXT_START TEXT_END < <(srpt_text_range) || die "no ib_srpt text in /proc/kallsyms"
read -r REJECT_START REJECT_END < <(func_range __kmem_cache_create_args) ||
	die "no __kmem_cache_create_args in /proc/kallsyms"
log "ib_srpt text: $TEXT_START-$TEXT_END"

# targeted FUNCTION CASE [ATTR...]: fail the first allocation under
# FUNCTION while srp-hostile runs CASE, with the fault attributes ATTR
# (default both); the failure must have been injected.
targeted() {
	local range n
	range=$(func_range "$1") || { echo "no function $1 in /proc/kallsyms" >&2; return 1; }
	# shellcheck disable=SC2086 # START END
	fi_range $range
	fi_arm 100 1 "${@:3}"
	hostile "$2" || { fi_off; echo "$2 failed (hostile.log)" >&2; return 1; }
	n=$(fi_used)
	fi_off
	((n == 1)) || { echo "$n failures injected under $1, not 1" >&2; return 1; }
}

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

# nth_sweep NAME ERRORS UNDO CMD...: run CMD (a shell command line, run
# with "exec" in a shell whose fail-nth is N) for N = 1, 2, ... until it
# makes no failure; after each run UNDO puts the state back. CMD must
# succeed or fail with an error message that matches ERRORS (a regex;
# "Cannot allocate memory" for ENOMEM). Prints how many runs failed.
nth_sweep() {
	local name=$1 errors=$2 undo=$3 n=1 rc err
	shift 3
	while :; do
		fi_arm 0
		rc=0
		err=$(bash -c "echo $n >/proc/thread-self/fail-nth && exec $*" 2>&1) || rc=$?
		if (($(fi_used) == 0)); then
			((rc == 0)) || { echo "$name: failed without injection: $err" >&2; return 1; }
			eval "$undo" || { echo "$name: undo failed" >&2; return 1; }
			break
		fi
		if ((rc != 0)) && ! [[ $err =~ $errors ]]; then
			echo "$name: allocation $n failed, and the step with: $err" >&2
			return 1
		fi
		eval "$undo" || { echo "$name: undo after allocation $n failed" >&2; return 1; }
		n=$((n + 1))
		((n < 500)) || { echo "$name: more than 500 allocations" >&2; return 1; }
	done
	echo "$name: $((n - 1)) allocations failed in turn"
}

ENOMEM="Cannot allocate memory"

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

case_recovered() {
	fi_off
	"$build/srp-hostile" -d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$(srpt_guid)" \
		-i "0x$INIT_ID" -t 15000 "$HOSTILE_DIR/cases.txt" cmd-read10-direct cmd-write10-direct-verify \
		>>"$OUTD/hostile.log" 2>&1 || { echo "the target did not recover (hostile.log)" >&2; return 1; }
	srpt_teardown_configfs
	srpt_unload
}

# want_case NAME: NAME is among SRPT_TEST_FAULT_CASES (default: all).
want_case() {
	local pat
	local -a pats
	IFS=', ' read -r -a pats <<<"${SRPT_TEST_FAULT_CASES:-*}"
	for pat in "${pats[@]}"; do
		# shellcheck disable=SC2053 # a glob
		[[ $1 == $pat ]] && return 0
	done
	return 1
}

# device-add-nth comes before anything makes the device's SRQ (it lives
# as long as the device), so that configfs-nth's use_srq step makes it.
for c in login-rej-lost login-session-nomem tmf-nomem tsk-set-nomem device-add-nth configfs-nth random-ring random-srq; do
	want_case "$c" || continue
	sub_case "$c" "case_${c//-/_}" || true
done
sub_case recovered case_recovered || true
fi_off
sync_kmsg

# Where the failures were injected: the first reliable ib_srpt frame of
# each dump ("? " marks a guess of the unwinder).
awk '/FAULT_INJECTION: forcing a failure/ { want = 1; next }
	want && /\[ib_srpt\]/ && !/; *\? / { sub(/.*;/, ""); sub(/^ */, ""); sub(/ .*/, ""); print; want = 0 }' \
	"$KMSG" | sort | uniq -c | sort -rn >"$OUTD/fault-sites.txt"
log "failures with a stack dump: $(fi_logged), at $(wc -l <"$OUTD/fault-sites.txt") distinct ib_srpt call sites (fault-sites.txt):"
cat "$OUTD/fault-sites.txt"
echo "NOTE fault-inject: $(fi_logged) failures with a stack dump, at $(wc -l <"$OUTD/fault-sites.txt") distinct ib_srpt call sites" >>"${SUBRESULTS:-/dev/null}"
sub_exit
