#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the ib_srpt test guest (runs on the host's bash over the overlay
# root). Reads /ib_srpt/env written by vm.sh, prepares the system, then either
# runs the selected tests (MODE=run), one script with its output on the
# console (MODE=exec) or an interactive shell (MODE=shell), and powers off.
#
# Results go to /ib_srpt/out (the host's run directory):
#   results.txt       one line per verdict: PASS|FAIL|SKIP <name>[: reason]
#                     (tests and their sub-cases, the latter named test/case)
#   <test>.log        the test's stdout and stderr
#   <test>.dmesg      kernel messages printed while the test ran
#   dmesg.log         the whole kernel log
#   planned.txt       the tests selected, in order
#   STARTED           written first: vm.sh boots again once when a guest
#                     died before this script started
#   DONE              written last; its absence means the guest died

set -uo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-dumb} LANG=C.UTF-8

SHARE=/ib_srpt
OUT=$SHARE/out
TESTDIR=$SHARE/tools/testing

# shellcheck source=/dev/null
. "$SHARE/env"
MODE=${MODE:-run}
if [[ ${BOOT_TRACE:-0} == 1 ]]; then
	exec 2>/dev/console
	PS4='+ ${EPOCHREALTIME} '
	set -x
fi
SRPT=${SRPT:-ours}
GUEST_KIND=${GUEST_KIND:-debian}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
UNLOAD_TIMEOUT=${UNLOAD_TIMEOUT:-30}
export SRPT SRPT_KO=$SHARE/ib_srpt.ko IB_SRPT_OUT=$OUT HOST_REPO=${HOST_REPO:-} GUEST_KIND

console() { echo "$*" >/dev/console; }
say() { console "@@ $*"; }

poweroff_now() {
	sync
	echo o >/proc/sysrq-trigger
	# The power-off tears the 9p root down: programs may no longer start.
	sleep 10 2>/dev/null
	/bin/busybox poweroff -f 2>/dev/null
}

# The initramfs mounted /dev/pts, /run, /tmp etc.; only sysctls are left.
setup_system() {
	echo 1 >/proc/sys/kernel/sysrq
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || true
	echo 0 >/proc/sys/kernel/hung_task_panic 2>/dev/null || true
	# modprobe, not the initramfs, loads from now on
	echo /sbin/modprobe >/proc/sys/kernel/modprobe
}

# vm.sh installed ours as updates/ib_srpt.ko in this run's module tree
# (/lib/modules, built on the host: depmod here takes minutes under
# emulation); updates/ ranks above the distribution's kernel/ tree.
# Check that "modprobe ib_srpt" picks it.
install_ours() {
	local want
	want=/lib/modules/$(uname -r)/updates/ib_srpt.ko
	[[ -f $SRPT_KO ]] || { console "ib_srpt.ko missing from the share"; return 1; }
	[[ $(modinfo -n ib_srpt) == "$want" ]] ||
		{ console "modprobe would load $(modinfo -n ib_srpt), not $want"; return 1; }
}

# Test selection: TESTS is a space/comma separated list of names or globs
# matched against the test's base name (with or without .sh). On the debug
# kernel (GUEST_KIND=debug) tests/debug/debug-detectors.sh comes first and
# tests/debug/debug-kmemleak.sh last.
select_tests() {
	[[ $GUEST_KIND != debug ]] || echo "$TESTDIR/tests/debug/debug-detectors.sh"
	select_named
	[[ $GUEST_KIND != debug ]] || echo "$TESTDIR/tests/debug/debug-kmemleak.sh"
}

select_named() {
	local t name pat
	local -a pats
	IFS=', ' read -r -a pats <<<"${TESTS:-*}"
	for t in "$TESTDIR"/tests/[0-9]*.sh; do
		[[ -f $t ]] || continue
		name=$(basename "$t" .sh)
		for pat in "${pats[@]}"; do
			# shellcheck disable=SC2053
			if [[ $name == $pat || $name.sh == $pat || $name == $pat-* ]]; then
				echo "$t"
				break
			fi
		done
	done
}

BAD_DMESG='WARNING:|BUG:|Oops|kernel BUG at|general protection fault|possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|lockdep|KASAN|UBSAN|hung task|blocked for more than|soft lockup|detected stall|Kernel panic|refcount_t:|list_(add|del) corruption|kmemleak|BUG [a-z0-9_-]+ \(|Redzone overwritten|Poison overwritten|KFENCE:|do not call blocking ops'

# run_bounded SECONDS LOG CMD...: run CMD in its own session; kill it after
# SECONDS. Returns its status, 124 on timeout, 125 if it cannot be killed
# (stuck in the kernel).
run_bounded() {
	local limit=$1 log=$2 pid i
	shift 2
	setsid "$@" </dev/null >>"$log" 2>&1 &
	pid=$!
	for ((i = 0; i < limit * 5; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			return
		fi
		sleep 0.2
	done
	kill -TERM -- "-$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return 124; }
		sleep 0.2
	done
	kill -KILL -- "-$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return 124; }
		sleep 0.2
	done
	return 125
}

result() {
	echo "$*" >>"$OUT/results.txt"
}

# cleanup_after NAME LOG: tear down whatever the test left behind and unload
# ib_srpt. Fails when that does not work in time.
cleanup_after() {
	local log=$2 rc

	run_bounded $((UNLOAD_TIMEOUT + 60)) "$log" \
		env UNLOAD_TIMEOUT="$UNLOAD_TIMEOUT" bash -c ". '$TESTDIR/lib.sh' && teardown_all"
	rc=$?
	if [[ -d /sys/module/ib_srpt ]]; then
		echo "ib_srpt still loaded after teardown (status $rc)" >>"$log"
		return 1
	fi
	return 0
}

run_tests() {
	local t name log sub dm start end rc verdict reason line stuck=0 no_detectors='' ok_dmesg
	local -a tests
	mapfile -t tests < <(select_tests)
	for t in "${tests[@]}"; do
		basename "$t" .sh
	done >"$OUT/planned.txt"
	say "running ${#tests[@]} test(s) against the ${SRPT} ib_srpt"
	for t in "${tests[@]}"; do
		name=$(basename "$t" .sh)
		if ((stuck)); then
			result "FAIL $name: not run, an earlier test left the kernel stuck"
			say "FAIL $name (not run)"
			continue
		fi
		if [[ -n $no_detectors ]]; then
			result "FAIL $name: not run, $no_detectors"
			say "FAIL $name (not run)"
			continue
		fi
		log=$OUT/$name.log
		sub=$OUT/$name.sub
		dm=$OUT/$name.dmesg
		: >"$log"
		: >"$sub"
		echo "ib_srpt-test: START $name" >/dev/kmsg
		start=$(date +%s)
		say "START $name"
		run_bounded "$TEST_TIMEOUT" "$log" env SUBRESULTS="$sub" TEST_NAME="$name" \
			TEST_OUT="$OUT/$name.d" bash "$t"
		rc=$?
		reason=
		case $rc in
		0) verdict=PASS ;;
		77) verdict=SKIP ;;
		124) verdict=FAIL reason="timed out after ${TEST_TIMEOUT}s" ;;
		125) verdict=FAIL reason="timed out and could not be killed" stuck=1 ;;
		*) verdict=FAIL reason="exit status $rc" ;;
		esac
		if grep -q '^FAIL' "$sub" && [[ $verdict != FAIL ]]; then
			verdict=FAIL reason="a sub-case failed"
		fi
		echo "--- teardown ---" >>"$log"
		if ! ((stuck)) && ! cleanup_after "$name" "$log"; then
			verdict=FAIL reason="${reason:+$reason; }ib_srpt did not unload" stuck=1
		fi
		echo "ib_srpt-test: END $name" >/dev/kmsg
		dmesg | sed -n "/ib_srpt-test: START $name\$/,\$p" >"$dm"
		# The runner's own markers are no reports, whatever the test's
		# name (debug-kmemleak matched "kmemleak").
		ok_dmesg='ib_srpt-test: (START|END) '
		# The debug tests scan for leaks themselves and judge the
		# suspects (kmemleak prints their number on every scan).
		[[ $name != debug-* ]] || ok_dmesg+='|kmemleak: [0-9]+ new suspected memory leaks'
		if grep -Ev "$ok_dmesg" "$dm" | grep -Eq "$BAD_DMESG"; then
			verdict=FAIL
			reason="${reason:+$reason; }kernel warning in dmesg: $(grep -Ev "$ok_dmesg" "$dm" | grep -Em1 "$BAD_DMESG" | cut -c1-160)"
		fi
		end=$(date +%s)
		while read -r line; do
			[[ $line =~ ^(PASS|FAIL|SKIP)[[:space:]]+(.*)$ ]] || continue
			result "${BASH_REMATCH[1]} $name/${BASH_REMATCH[2]}"
		done <"$sub"
		result "$verdict $name${reason:+: $reason}"
		say "$verdict $name ($((end - start))s)${reason:+: $reason}"
		# A debug kernel whose detectors are not all live proves nothing.
		if [[ $name == debug-detectors && $verdict != PASS ]]; then
			no_detectors="the kernel's detectors are not live (debug-detectors)"
		fi
		[[ -s $sub ]] || rm -f "$sub"
	done
}

main() {
	console ""
	mkdir -p "$OUT"
	: >"$OUT/STARTED"
	: >"$OUT/results.txt"
	setup_system
	dmesg -w >"$OUT/dmesg.log" 2>&1 &
	say "guest up after $(cut -d' ' -f1 /proc/uptime)s, kernel $(uname -r), SRPT=$SRPT"
	if [[ $SRPT != stock ]]; then
		if ! install_ours >"$OUT/install.log" 2>&1; then
			say "installing ib_srpt.ko failed: $(tail -n3 "$OUT/install.log")"
			result "FAIL install: installing ib_srpt.ko in the guest failed"
			echo finished >"$OUT/DONE"
			poweroff_now
		fi
		say "installed ib_srpt.ko ($(modinfo -F srcversion ib_srpt)) after $(cut -d' ' -f1 /proc/uptime)s"
	fi
	case $MODE in
	run)
		run_tests
		;;
	exec)
		# shellcheck disable=SC2016
		setsid bash -c 'bash "$1" </dev/null 2>&1 | tee "$2" >/dev/console; exit "${PIPESTATUS[0]}"' \
			_ "$SHARE/$SCRIPT" "$OUT/exec.log"
		echo "$?" >"$OUT/exec.status"
		;;
	shell)
		console "ib_srpt guest shell: helpers in $TESTDIR/lib.sh (. \$LIB), exit to power off"
		export LIB=$TESTDIR/lib.sh
		setsid -c bash -l </dev/console >/dev/console 2>&1
		;;
	esac
	sleep 0.5
	echo finished >"$OUT/DONE"
	poweroff_now
}

main
