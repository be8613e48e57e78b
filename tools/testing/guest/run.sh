#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the ib_srpt test guest (runs on the host's bash over the overlay
# root). Reads /ib_srpt/env written by vm.sh, prepares the system, then either
# runs the selected tests (MODE=run), one script with its output on the
# console (MODE=exec) or an interactive shell (MODE=shell), and powers off.
# MODE=fabric (two guests, see lib-fabric.sh): the guest with
# ibsrpt_role=initiator runs the tests of tools/testing/fabric/ and the one
# with ibsrpt_role=target serves their requests until the initiator is done;
# the target's own files go to /ib_srpt/out/target. With FABRIC_NODES=3
# (three guests) the HA pair's guests nodeA and nodeB serve the requests,
# their files in /ib_srpt/out/nodeA and /ib_srpt/out/nodeB.
#
# Results go to /ib_srpt/out (the host's run directory):
#   results.txt       one line per verdict: PASS|FAIL|SKIP <name>[: reason]
#                     (tests and their sub-cases, the latter named test/case);
#                     NOTE lines a test wrote to $SUBRESULTS (measurements)
#   <test>.log        the test's stdout and stderr
#   <test>.dmesg      kernel messages printed while the test ran
#   dmesg.log         the whole kernel log
#   planned.txt       the tests selected, in order
#   STARTED           written first: vm.sh boots again once when a guest
#                     died before this script started
#   DONE              written last; its absence means the guest died
#   <test>.target.dmesg  (MODE=fabric) the target guest's kernel messages
#                     (three guests: <test>.nodeA.dmesg, <test>.nodeB.dmesg;
#                     a node killed by the test has none, its whole log is
#                     /ib_srpt/out/<node>/dmesg.log; one that the test
#                     booted again has all of its new boot's, that of
#                     the boot killed is out/<node>/dmesg.bootN.log)

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
export SRPT SRPT_KO=$SHARE/ib_srpt.ko IB_SRPT_OUT=$OUT GUEST_KIND

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
# tests/debug/debug-kmemleak.sh last. A test with the line
# "# debug-kernel-only" in its header needs what only the debug kernel has
# (fault injection) and runs only there. A test with the line
# "# named-only" (25-ocf-agent, make check-ha) runs only when a pattern
# without wildcards names it, so that a whole run ("*") leaves it out.
# A fabric test with the line "# fabric-nodes 3" runs only in the
# three-guest fabric (FABRIC_NODES=3), every other one only in the
# two-guest fabric. TESTS_EXCLUDE (names, space/comma separated) leaves
# tests out of what TESTS selects (make check's guest lanes).
select_tests() {
	[[ $GUEST_KIND != debug ]] || echo "$TESTDIR/tests/debug/debug-detectors.sh"
	select_named
	[[ $GUEST_KIND != debug ]] || echo "$TESTDIR/tests/debug/debug-kmemleak.sh"
}

select_named() {
	local t name pat named_only nodes
	local -a pats
	IFS=', ' read -r -a pats <<<"${TESTS:-*}"
	for t in "$TESTDIR/${TEST_SUBDIR:-tests}"/[0-9]*.sh; do
		[[ -f $t ]] || continue
		[[ " ${TESTS_EXCLUDE//,/ } " != *" $(basename "$t" .sh) "* ]] || continue
		[[ $GUEST_KIND == debug ]] || ! head -n 5 "$t" | grep -qx '# debug-kernel-only' || continue
		name=$(basename "$t" .sh)
		if [[ $MODE == fabric ]]; then
			nodes=2
			! head -n 5 "$t" | grep -qx '# fabric-nodes 3' || nodes=3
			[[ $nodes == "${FABRIC_NODES:-2}" ]] || continue
		fi
		named_only=0
		! head -n 5 "$t" | grep -qx '# named-only' || named_only=1
		for pat in "${pats[@]}"; do
			[[ $named_only == 0 || $pat != *[*?[]* ]] || continue
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

	if [[ $MODE == fabric ]]; then
		cleanup_fabric "$log"
		return
	fi
	run_bounded $((UNLOAD_TIMEOUT + 60)) "$log" \
		env UNLOAD_TIMEOUT="$UNLOAD_TIMEOUT" bash -c ". '$TESTDIR/lib.sh' && teardown_all"
	rc=$?
	if [[ -d /sys/module/ib_srpt ]]; then
		echo "ib_srpt still loaded after teardown (status $rc)" >>"$log"
		return 1
	fi
	return 0
}

# cleanup_fabric LOG: the teardown of a fabric test: this guest's
# (multipath, ib_srp, soft-RoCE, links), then each target guest's, where
# ib_srpt must unload (a node the test killed is skipped).
cleanup_fabric() {
	local log=$1 rc=0 r
	run_bounded $((UNLOAD_TIMEOUT + 60)) "$log" \
		bash -c ". '$TESTDIR/lib.sh' && . '$TESTDIR/lib-fabric.sh' && fabric_teardown" ||
		echo "initiator teardown failed" >>"$log"
	for r in $(fabric_target_roles); do
		if fabric_dead "$r"; then
			echo "--- $r was killed: no teardown there ---" >>"$log"
			continue
		fi
		echo "--- $r teardown ---" >>"$log"
		fabric_on "$r" -t $((UNLOAD_TIMEOUT + 90)) env UNLOAD_TIMEOUT="$UNLOAD_TIMEOUT" \
			bash -c ". '$TESTDIR/lib.sh' && . '$TESTDIR/lib-fabric.sh' && fabric_target_teardown" \
			>>"$log" 2>&1 || rc=1
	done
	return "$rc"
}

# first_report OK: the first line of stdin that is a report ($BAD_DMESG)
# and does not match OK, cut to 160 characters; nothing if there is none.
first_report() {
	no_fault_dumps | grep -Ev "$1" | grep -Em1 "$BAD_DMESG" | cut -c1-160 || true
}

# no_fault_dumps: stdin without the stack dumps of injected allocation
# failures (63-fault-inject) and of the allocation-failure warnings after
# them, whose frames name functions such as lockdep_init_map_type: from
# the dump's first line to "</TASK>", lines that are frames or registers
# go. Any other line in between (a WARNING from another CPU) stays.
no_fault_dumps() {
	awk '{ m = $0; sub(/^\[[ 0-9.]+\] /, "", m) }
		m ~ /FAULT_INJECTION: forcing a failure|page allocation failure|vmalloc error|failed with error -/ { d = 1; next }
		d && m ~ /<\/TASK>/ { d = 0; next }
		d && m ~ /^( |Call Trace:|CPU: |Tainted: |Hardware name: |name |RIP: |RSP: |R[A-Z0-9]+: |Code: )/ { next }
		{ print }'
}

# check_boot_log: a report in the kernel log before the first test (the
# boot, the modules loaded since) is a failure of its own, with its first
# line, rather than a detector found dead later with no reason given.
check_boot_log() {
	local line
	line=$(dmesg | first_report 'RCU lockdep checking is enabled|kmemleak: Kernel memory leak detector initialized')
	[[ -n $line ]] || return 0
	result "FAIL boot: kernel warning in dmesg before the first test: $line"
	say "FAIL boot: kernel warning in dmesg before the first test: $line"
}

run_tests() {
	local t name log sub dm start end rc verdict reason line stuck=0 no_detectors='' ok_dmesg r
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
		if [[ $MODE == fabric ]]; then
			for r in $(fabric_target_roles); do
				fabric_dead "$r" && continue
				fabric_on "$r" -t 60 fabric_mark START "$name" >>"$log" 2>&1 ||
					echo "cannot mark the $r guest's kernel log" >>"$log"
			done
		fi
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
		dmesg >"$dm.all"
		if grep -q "ib_srpt-test: START $name\$" "$dm.all"; then
			sed -n "/ib_srpt-test: START $name\$/,\$p" "$dm.all" >"$dm"
		else
			# The ring buffer wrapped past the mark: judge all of it
			# rather than nothing.
			echo "the kernel log no longer holds this test's START; all of it is judged" >>"$log"
			cp "$dm.all" "$dm"
		fi
		rm -f "$dm.all"
		if [[ $MODE == fabric ]]; then
			# Every guest's messages are judged (a killed node's
			# log ends with its power).
			for r in $(fabric_target_roles); do
				if fabric_dead "$r"; then
					echo "the $r guest was killed: its kernel log is out/$r/dmesg.log" >>"$log"
					continue
				fi
				fabric_on "$r" -t 60 fabric_mark END "$name" >/dev/null 2>&1
				fabric_on "$r" -t 60 fabric_dmesg_since "$name" >"$OUT/$name.$r.dmesg" 2>&1 ||
					{ verdict=FAIL reason="${reason:+$reason; }no kernel log from the $r guest"; }
				sed "s/^/$r: /" "$OUT/$name.$r.dmesg" >>"$dm"
			done
		fi
		# The runner's own markers are no reports, whatever the test's
		# name (debug-kmemleak matched "kmemleak").
		ok_dmesg='ib_srpt-test: (START|END) '
		# The debug tests scan for leaks themselves and judge the
		# suspects (kmemleak prints their number on every scan).
		[[ $name != debug-* ]] || ok_dmesg+='|kmemleak: [0-9]+ new suspected memory leaks'
		# Reports of known bugs in other kernel code, matched whole,
		# are not this test's failure: each is a NOTE result instead.
		if ! "$TESTDIR/known-reports.sh" <"$dm" >"$dm.judged" 2>"$dm.known"; then
			cp "$dm" "$dm.judged"
		fi
		while read -r line; do
			result "NOTE $name: $line"
		done <"$dm.known"
		line=$(first_report "$ok_dmesg" <"$dm.judged")
		rm -f "$dm.judged" "$dm.known"
		if [[ -n $line ]]; then
			verdict=FAIL
			reason="${reason:+$reason; }kernel warning in dmesg: $line"
		fi
		end=$(date +%s)
		while read -r line; do
			[[ $line =~ ^(PASS|FAIL|SKIP|NOTE)[[:space:]]+(.*)$ ]] || continue
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

# fabric_start: MODE=fabric: the network, then in the target guest the
# agent until the initiator guest is done; in the initiator guest the
# tests once the agent runs.
fabric_start() {
	local role r
	role=$(fabric_role)
	if ! fabric_net_setup >>"$OUT/net.log" 2>&1; then
		say "fabric: network setup failed: $(tail -n2 "$OUT/net.log")"
		result "FAIL fabric-$role: network setup failed"
		return
	fi
	if [[ $role != initiator ]]; then
		say "$role agent running"
		fabric_agent "$SHARE/out/DONE"
		return
	fi
	for r in $(fabric_target_roles); do
		if ! wait_for 300 fabric_agent_ready "$r"; then
			say "fabric: the $r guest's agent did not start"
			result "FAIL fabric: the $r guest's agent did not start within 300s"
			return
		fi
		say "$r guest ready: $(fabric_on "$r" -t 30 uname -r 2>&1)"
	done
	TEST_SUBDIR=fabric run_tests
}

main() {
	console ""
	if [[ $MODE == fabric ]]; then
		# shellcheck source=tools/testing/lib.sh
		. "$TESTDIR/lib.sh"
		# shellcheck source=tools/testing/lib-fabric.sh
		. "$TESTDIR/lib-fabric.sh"
		hostname "$(fabric_role)"
		[[ $(fabric_role) == initiator ]] || OUT=$SHARE/out/$(fabric_role)
		export IB_SRPT_OUT=$OUT
	fi
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
	[[ $MODE != run && $MODE != fabric ]] || check_boot_log
	case $MODE in
	run)
		run_tests
		;;
	fabric)
		fabric_start
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
