#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# First test of every debug-kernel run (GUEST_KIND=debug): the detectors
# are live in the running kernel, so that a wrong kernel can never pass
# silently (the runner fails every later test when this one fails).
#
# config      /proc/config.gz has KASAN (generic), PROVE_LOCKING, PROVE_RCU,
#             DEBUG_ATOMIC_SLEEP, DEBUG_KMEMLEAK, DEBUG_OBJECTS (work,
#             timers, rcu_head), DEBUG_LIST, DEBUG_SG, UBSAN (bounds, shift),
#             KFENCE, DETECT_HUNG_TASK, the soft- and hard-lockup detectors
#             and KUNIT=y
# kasan       the boot log says KASAN initialised
# lockdep     /proc/lockdep_stats says debug_locks: 1 (lockdep switches
#             itself off after its first report)
# kmemleak    /sys/kernel/debug/kmemleak takes "scan=off" (refused when
#             kmemleak is off): the automatic scans stop, debug-kmemleak.sh,
#             the last test, scans once the tests are done
# kfence      /sys/kernel/debug/kfence/stats says enabled: 1
# hung-task   hung_task_timeout_secs is non-zero
# paging      4-level paging (vm.sh boots it with no5lvl): with LA57 this
#             kernel's KASAN can report an interrupt at boot falsely, and
#             that report turns lockdep off

# The cases run in this shell, not through sub_case: a new bash process
# costs seconds in this kernel under emulation. Each is one check, or
# checks every step itself.

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../../lib.sh"

KMEMLEAK=/sys/kernel/debug/kmemleak

case_config() {
	local missing
	# One pass: process creation is slow in this kernel under emulation.
	missing=$(printf 'CONFIG_%s=y\n' KASAN KASAN_GENERIC PROVE_LOCKING PROVE_RCU \
		DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK DEBUG_OBJECTS DEBUG_OBJECTS_WORK \
		DEBUG_OBJECTS_TIMERS DEBUG_OBJECTS_RCU_HEAD DEBUG_LIST DEBUG_SG UBSAN \
		UBSAN_BOUNDS UBSAN_SHIFT KFENCE DETECT_HUNG_TASK SOFTLOCKUP_DETECTOR \
		HARDLOCKUP_DETECTOR KUNIT |
		grep -vxF -f <(zcat /proc/config.gz) || true)
	[[ -z $missing ]] || { echo "not in the running kernel: ${missing//$'\n'/ }" >&2; return 1; }
	log "kernel $(uname -r): all detectors configured"
}

case_kasan() {
	local log
	# Not dmesg | grep -q: grep's early exit would make dmesg die of
	# SIGPIPE, which pipefail turns into a failure (status 141).
	log=$(dmesg)
	grep -q 'KernelAddressSanitizer initialized' <<<"$log"
}

case_lockdep() {
	grep -Eq '^ *debug_locks: +1$' /proc/lockdep_stats ||
		{ grep debug_locks /proc/lockdep_stats >&2; return 1; }
}

# A scan of the whole memory takes about 20 s of both CPUs here, and the
# thread would run one every ten minutes during the tests.
case_kmemleak() {
	[[ -e $KMEMLEAK ]] || { echo "$KMEMLEAK missing" >&2; return 1; }
	echo scan=off >"$KMEMLEAK"
}

case_kfence() {
	grep -Eq '^enabled: 1$' /sys/kernel/debug/kfence/stats
}

case_hung_task() {
	(($(cat /proc/sys/kernel/hung_task_timeout_secs) > 0))
}

case_paging() {
	! grep -qw la57 /proc/cpuinfo
}

# check NAME FUNC: record FUNC's verdict for NAME.
check() {
	if "$2"; then
		sub_result PASS "$1"
	else
		sub_result FAIL "$1"
	fi
}

check config case_config
check kasan case_kasan
check lockdep case_lockdep
check kmemleak case_kmemleak
check kfence case_kfence
check hung-task case_hung_task
check paging case_paging
sub_exit
