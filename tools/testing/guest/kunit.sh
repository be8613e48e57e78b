#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of "KUNIT_KERNEL=debug tools/testing/kunit.sh": loads the
# ib_srpt.ko that vm.sh installed (built with the KUnit suites compiled in,
# which run while it loads), unloads it, and leaves the kernel messages of
# the run (KTAP) in $IB_SRPT_OUT/kunit.log and the whole kernel log in
# $IB_SRPT_OUT/kunit-dmesg.log for the host to parse.
# SRPT_TEST_KUNIT_FILTER (kunit.py's filter glob, set by kunit.sh) restricts
# the suites through kunit.filter_glob.

set -uo pipefail
OUT=${IB_SRPT_OUT:?}
FILTER=${SRPT_TEST_KUNIT_FILTER:-}
P=/sys/module/kunit/parameters

echo "ib_srpt-kunit: START" >/dev/kmsg
# Without a newline: a string parameter keeps it, and "ib_srpt*\n" matches
# no suite (the module then runs no test at all).
if [[ -n $FILTER ]]; then
	printf '%s' "$FILTER" >"$P/filter_glob" || { echo "cannot set kunit.filter_glob" >&2; exit 1; }
fi
[[ -d /sys/kernel/debug/kunit ]] || { echo "the kernel has no KUnit (debugfs kunit/ missing)" >&2; exit 1; }
t0=$SECONDS
rc=0
modprobe ib_srpt || rc=$?
echo "modprobe ib_srpt: status $rc after $((SECONDS - t0))s"
rmmod ib_srpt || rc=1
echo "ib_srpt-kunit: END" >/dev/kmsg
dmesg >"$OUT/kunit-dmesg.log"
sed -n '/ib_srpt-kunit: START$/,/ib_srpt-kunit: END$/p' "$OUT/kunit-dmesg.log" >"$OUT/kunit.log"
grep -c '^\[[ 0-9.]*\] *\(not \)\?ok ' "$OUT/kunit.log" || true
exit "$rc"
