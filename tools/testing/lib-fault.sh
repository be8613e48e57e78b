# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib-fault.sh - helpers of the fault injection tests (tests/63-fault-inject.sh,
# tests/64-fault-step.sh) on the debug kernel: failslab and fail_page_alloc
# through debugfs, restricted by stack trace to ib_srpt's text, fail-nth
# sweeps of syscall paths, srp-hostile runs without health check, and the
# kernel log read as it comes (the stack dumps would overrun the ring
# buffer). Sourced after lib.sh; fi_setup first.

FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
INIT_ID=0000000000000001000000000000abcd
# shellcheck disable=SC2034 # used by the tests
ENOMEM="Cannot allocate memory"

# fi_setup: debugfs, the fault attributes and fail-nth (else skip), the
# test's output directory OUTD, srp-hostile built into $build with the
# cases CASES (cases-faults.txt), and the kernel log reader: $KMSG gets
# every line from now on.
fi_setup() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	[[ -d $FS && -d $FP ]] ||
		skip_missing "no failslab/fail_page_alloc in debugfs: this kernel has no fault injection"
	[[ -e /proc/self/fail-nth ]] || skip_missing "no /proc/self/fail-nth"

	OUTD=$(test_out_dir)
	build=$(mktemp -d /tmp/srp-hostile.XXXXXX)
	hostile_build "$build"
	CASES=$HOSTILE_DIR/cases-faults.txt

	KMSG=$OUTD/fault-kmsg.txt
	cat /dev/kmsg >"$KMSG" &
	KMSG_PID=$!
	trap 'fi_off; kill "$KMSG_PID" 2>/dev/null || true' EXIT
}

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

# fi_text_ranges: TEXT_START/TEXT_END, ib_srpt's text, and
# REJECT_START/REJECT_END, kmem_cache_create()'s (see fi_range).
# shellcheck disable=SC2034 # used by the tests
fi_text_ranges() {
	read -r TEXT_START TEXT_END < <(srpt_text_range) || die "no ib_srpt text in /proc/kallsyms"
	read -r REJECT_START REJECT_END < <(func_range __kmem_cache_create_args) ||
		die "no __kmem_cache_create_args in /proc/kallsyms"
}

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

# want_case NAME: NAME is among the globs of FI_CASES
# (comma or blank separated; default: all).
want_case() {
	local pat
	local -a pats
	IFS=', ' read -r -a pats <<<"${FI_CASES:-*}"
	for pat in "${pats[@]}"; do
		# shellcheck disable=SC2053 # a glob
		[[ $1 == $pat ]] && return 0
	done
	return 1
}

# fi_sites [FILE]: the first reliable ib_srpt frame ("? " marks a guess
# of the unwinder) of each injected failure's stack dump in FILE (default
# $KMSG), counted: "COUNT FUNCTION+OFF/LEN", most frequent first.
fi_sites() {
	awk '/FAULT_INJECTION: forcing a failure/ { want = 1; next }
		want && /\[ib_srpt\]/ && !/; *\? / { sub(/.*;/, ""); sub(/^ */, ""); sub(/ .*/, ""); print; want = 0 }' \
		"${1:-$KMSG}" | sort | uniq -c | sort -rn
}

# case_recovered: the last sub-case of the fault tests: injection off, a
# fresh login with a WRITE/READ and data compare, and ib_srpt unloads
# (uses the test's $build, $INIT_ID and $OUTD).
case_recovered() {
	fi_off
	"$build/srp-hostile" -d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$(srpt_guid)" \
		-i "0x$INIT_ID" -t 15000 "$HOSTILE_DIR/cases.txt" cmd-read10-direct cmd-write10-direct-verify \
		>>"$OUTD/hostile.log" 2>&1 || { echo "the target did not recover (hostile.log)" >&2; return 1; }
	srpt_teardown_configfs
	srpt_unload
}
