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
# kmemleak    /sys/kernel/debug/kmemleak takes a scan; the suspects found
#             at boot are then cleared (debug-kmemleak.sh, the last test,
#             reports what the tests leaked)
# kfence      /sys/kernel/debug/kfence/stats says enabled: 1
# hung-task   hung_task_timeout_secs is non-zero

# shellcheck disable=SC2317 # the case functions run through sub_case
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

case_kmemleak() {
	[[ -e $KMEMLEAK ]] || { echo "$KMEMLEAK missing" >&2; return 1; }
	echo scan >"$KMEMLEAK"
	log "kmemleak: $(grep -c '^unreferenced object' "$KMEMLEAK" || true) suspects at boot, cleared"
	echo clear >"$KMEMLEAK"
}

case_kfence() {
	grep -Eq '^enabled: 1$' /sys/kernel/debug/kfence/stats
}

case_hung_task() {
	(($(cat /proc/sys/kernel/hung_task_timeout_secs) > 0))
}

sub_case config case_config || true
sub_case kasan case_kasan || true
sub_case lockdep case_lockdep || true
sub_case kmemleak case_kmemleak || true
sub_case kfence case_kfence || true
sub_case hung-task case_hung_task || true
sub_exit
