#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the ib_srpt KUnit suites (ib_srpt_test.c, included by ib_srpt.c) under
# User Mode Linux with kunit.py from linux-source-6.12: Debian's kernels have
# no KUnit. The driver is built into a UML kernel with KASAN and lockdep.
#
# Usage: tools/testing/kunit.sh [kunit.py filter glob, default ib_srpt*: every suite]
#
# Environment:
#   IB_SRPT_CACHE  cache directory (default /var/tmp/ib_srpt-cache). The
#                  shared linux-source-6.12 tree is extracted there once
#                  (under the lock $IB_SRPT_CACHE/.linux-source.lock); this
#                  script works in $IB_SRPT_CACHE/kunit: src/ is a hard-link
#                  copy of that tree with our driver in
#                  drivers/infiniband/ulp/srpt, build/ the UML build
#                  (cold about 16 minutes on 2 cores, then about 30 s).
#   JOBS           make jobs (default: number of CPUs)
#   KUNIT_TIMEOUT  seconds the UML kernel may run (default 600)
#   KUNIT_KERNEL   uml (default) or debug: run the suites in the debug guest
#                  kernel of tools/testing/debug-kernel.sh instead (KASAN,
#                  lockdep, kmemleak, ...; it must have been built, see
#                  there): ib_srpt.ko is built with the suites compiled in
#                  and loaded in a guest (vm.sh exec guest/kunit.sh), which
#                  saves the UML build; the results have the same names
#   SUBRESULTS     if set, one "PASS|FAIL|SKIP ib_srpt/<case>" line per test
#                  case is appended to this file
#
# Exit status: 0 if every case passed, 1 otherwise (also when the build
# fails, no case ran or the kernel log shows a KASAN or lockdep report).

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$HERE/common.sh"

FILTER=${1:-ib_srpt*}
JOBS=${JOBS:-$(nproc)}
KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-600}
KUNIT_KERNEL=${KUNIT_KERNEL:-uml}
KDIR_UML=$CACHE/kunit
SRC=$KDIR_UML/src
BUILD=$KDIR_UML/build
KUNITCONFIG=$HERE/kunit/ib_srpt.kunitconfig
SRPT_DIR=drivers/infiniband/ulp/srpt

# run_debug: the suites in the debug guest kernel (debug-kernel.sh): an
# ib_srpt.ko with the suites compiled in is loaded in a guest (they run
# while it loads); kunit.py parses the KTAP the guest saved. Sets rc,
# elapsed and log like the UML run.
run_debug() {
	local dir vm=$OUT/vm boot
	dir=$("$HERE/debug-kernel.sh" dir) || exit 1
	start=$SECONDS
	"$HERE/debug-kernel.sh" module "$OUT/ko" 1 >"$OUT/ko.log" 2>&1 ||
		{ tail -n 30 "$OUT/ko.log" >&2; die "building the KUnit ib_srpt.ko failed"; }
	for boot in 1 2; do
		rc=0
		rm -rf "$vm"
		GUEST_KIND=debug KO=$OUT/ko/ib_srpt.ko VM_RUN_DIR=$vm VM_TIMEOUT=$KUNIT_TIMEOUT \
			SRPT_TEST_KUNIT_FILTER=$FILTER "$HERE/vm.sh" exec "$HERE/guest/kunit.sh" \
			>"$OUT/vm.log" 2>&1 || rc=$?
		((boot == 1)) && boot_report "$vm/out/kunit-dmesg.log" || break
		log "the debug kernel reported while booting, before ib_srpt was loaded (lines above): booting it again once"
		mkdir -p "$KDIR_UML"
		cp "$vm/out/kunit-dmesg.log" "$KDIR_UML/kunit-dmesg-boot1.log" 2>/dev/null || true
	done
	elapsed=$((SECONDS - start))
	log=$vm/out/kunit-dmesg.log
	if [[ ! -s $vm/out/kunit.log ]]; then
		tail -n 40 "$OUT/vm.log" >&2
		rc=1
		return
	fi
	ktap_from_kmsg "$vm/out/kunit.log" >"$OUT/ktap"
	python3 "$dir/src/tools/testing/kunit/kunit.py" parse --json="$OUT/results.json" \
		"$OUT/ktap" >"$OUT/kunit.log" 2>&1 || rc=$?
	# kept for a look after the run
	mkdir -p "$KDIR_UML"
	cp "$vm/out/kunit.log" "$vm/out/kunit-dmesg.log" "$KDIR_UML/" 2>/dev/null || true
	log=$KDIR_UML/kunit-dmesg.log
}

# Kernel-log reports that fail the run even when every case passed.
REPORT_RE='BUG: KASAN|WARNING: (possible|inconsistent|suspicious)|BUG: (sleeping|spinlock|scheduling)|INFO: (possible|trying)|UBSAN:|kernel BUG at|general protection'

# boot_report LOG: true (and the report lines on stderr) when the guest
# kernel log LOG has a report before "ib_srpt-kunit: START", that is while
# the kernel booted, before ib_srpt.ko was loaded. Seen under TCG: KASAN
# in handle_edge_irq() from identify_cpu() at 6 s, a false report of
# 5-level paging that vm.sh's no5lvl now avoids. Such a boot is retried
# once; a report after START always fails.
boot_report() {
	[[ -f $1 ]] || return 1
	sed -n '/ib_srpt-kunit: START$/q; p' "$1" | grep -E "$REPORT_RE" >&2
}

# ktap_from_kmsg LOG: the KTAP of a module's KUnit run from its kernel log
# LOG (dmesg lines with time stamps), on stdout: only the KTAP lines,
# without time stamps. 6.12's KUnit prints the top-level header ("KTAP
# version 1", "1..N") for a module's suites too (kunit_exec_run_tests()); a
# second one would make kunit.py take the suites for one nested test and
# fail. Only a log without it gets one.
ktap_from_kmsg() {
	local body
	body=$(sed -E 's/^\[[ 0-9.]+\] //' "$1" |
		grep -E '^ *(KTAP version|# |1\.\.|ok |not ok )') || true
	if ! grep -q '^KTAP version' <<<"$body"; then
		echo "KTAP version 1"
		echo "1..$(grep -cE '^(not )?ok ' <<<"$body")"
	fi
	printf '%s\n' "$body"
}

# KUNIT_SH_LIB=1: define the functions only (harness-selftest.sh).
if [[ ${KUNIT_SH_LIB:-0} == 1 ]]; then
	return 0
fi

OUT=$(mktemp -d "${TMPDIR:-/tmp}/ib_srpt-kunit.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

if [[ $KUNIT_KERNEL == debug ]]; then
	run_debug
else
mkdir -p "$KDIR_UML"

# One run at a time per cache: the build directory is shared.
exec 8>"$KDIR_UML/.lock"
if ! flock -n 8; then
	log "another kunit.sh run holds $KDIR_UML/.lock; waiting"
	flock 8
fi

# The shared, pristine source tree (extracted once, under a lock that the
# other users of prepare_source take too).
exec 9>"$CACHE/.linux-source.lock"
flock 9
PRISTINE=$(prepare_source)
flock -u 9

# Our own copy: kunit.py builds with O=, which needs a clean source tree,
# and the driver directory must hold our files, not the in-tree x86 build's.
# Hard links make the copy cheap; files we change are replaced, never
# written in place.
stamp=$(cat "$PRISTINE/.ib_srpt-ready")
if [[ ! -f $SRC/.ib_srpt-kunit || $(cat "$SRC/.ib_srpt-kunit") != "$stamp" ]]; then
	log "creating the UML source tree $SRC"
	rm -rf "$SRC" "$SRC.tmp" "$BUILD"
	cp -al "$PRISTINE" "$SRC.tmp"
	if [[ -e $SRC.tmp/.config || -d $SRC.tmp/include/config ]]; then
		log "the shared tree has build output; cleaning the copy"
		make -s -C "$SRC.tmp" mrproper
	fi
	mv "$SRC.tmp" "$SRC"
	echo "$stamp" > "$SRC/.ib_srpt-kunit"
fi

# install_file SRC DST: replace DST with a copy of SRC if they differ (a
# fresh inode, so the hard-linked original is never touched; an unchanged
# file keeps its time stamp, so nothing is rebuilt needlessly).
install_file() {
	if ! cmp -s "$1" "$2"; then
		rm -f "$2"
		cp "$1" "$2"
	fi
}

# install_text DST: like install_file with the text on stdin.
install_text() {
	local tmp
	tmp=$(mktemp)
	cat > "$tmp"
	install_file "$tmp" "$1"
	rm -f "$tmp"
}

SRPT_FILES="ib_srpt.c ib_srpt.h ib_srpt_trace.h ib_srpt_test.c"
for f in $SRPT_FILES; do
	[[ -f $REPO/$f ]] || die "$REPO/$f missing"
done
grep -q 'ib_srpt_test\.c' "$REPO/ib_srpt.c" ||
	die "ib_srpt.c does not include ib_srpt_test.c"

# The stock driver's files go; only ours remain.
for f in "$SRC/$SRPT_DIR"/*; do
	case ${f##*/} in
	ib_srpt.c | ib_srpt.h | ib_srpt_trace.h | ib_srpt_test.c | Kconfig | Makefile) ;;
	*.inc) [[ -f $REPO/${f##*/} ]] || rm -f "$f" ;;
	*) rm -f "$f" ;;
	esac
done
for f in $SRPT_FILES; do
	install_file "$REPO/$f" "$SRC/$SRPT_DIR/$f"
done
# Fragments ib_srpt.c may include while it is being assembled.
for f in "$REPO"/*.inc; do
	[[ -f $f ]] && install_file "$f" "$SRC/$SRPT_DIR/${f##*/}"
done

if [[ -f $REPO/Kconfig ]] && grep -q 'INFINIBAND_SRPT_KUNIT_TEST' "$REPO/Kconfig"; then
	install_file "$REPO/Kconfig" "$SRC/$SRPT_DIR/Kconfig"
else
	log "no KUnit option in $REPO/Kconfig; using a built-in copy"
	install_text "$SRC/$SRPT_DIR/Kconfig" <<'EOF'
# SPDX-License-Identifier: GPL-2.0-only
config INFINIBAND_SRPT
	tristate "InfiniBand SCSI RDMA Protocol target support"
	depends on INFINIBAND && INFINIBAND_ADDR_TRANS && TARGET_CORE

config INFINIBAND_SRPT_KUNIT_TEST
	bool "KUnit tests for ib_srpt" if !KUNIT_ALL_TESTS
	depends on INFINIBAND_SRPT && KUNIT=y
	default KUNIT_ALL_TESTS
EOF
fi

if [[ -f $REPO/Kbuild ]] && grep -q 'CONFIG_INFINIBAND_SRPT' "$REPO/Kbuild"; then
	install_file "$REPO/Kbuild" "$SRC/$SRPT_DIR/Makefile"
else
	install_text "$SRC/$SRPT_DIR/Makefile" <<'EOF'
# SPDX-License-Identifier: GPL-2.0-only
obj-$(CONFIG_INFINIBAND_SRPT) += ib_srpt.o
EOF
fi

[[ -f $BUILD/.config ]] || log "cold UML build into $BUILD (about 16 minutes on 2 cores)"
start=$SECONDS
rc=0
(
	cd "$SRC"
	python3 tools/testing/kunit/kunit.py run \
		--build_dir="$BUILD" --kunitconfig="$KUNITCONFIG" \
		--jobs="$JOBS" --timeout="$KUNIT_TIMEOUT" \
		--json="$OUT/results.json" "$FILTER"
) > "$OUT/kunit.log" 2>&1 || rc=$?
elapsed=$((SECONDS - start))
log=$BUILD/test.log
fi

# kunit.py's own summary lines (and, on a build failure, the errors).
grep -E '^\[..:..:..\] (\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete|Elapsed|ERROR|.*error:|# )' \
	"$OUT/kunit.log" | grep -v '\[PASSED\]' || true
if [[ $rc -ne 0 ]]; then
	grep -E 'error:|Error [0-9]|ERROR' "$OUT/kunit.log" | head -40 >&2 || true
fi

# Report every case; exit status 1 unless all passed.
status=0
python3 - "$OUT/results.json" "${SUBRESULTS:-}" "$rc" <<'EOF' || status=$?
import json
import sys

path, subresults, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = []


def walk(group, prefix):
    for case in group.get('test_cases', []):
        cases.append((prefix + case['name'], case['status']))
    for sub in group.get('sub_groups', []):
        walk(sub, sub['name'] + '/')


try:
    with open(path) as f:
        walk(json.load(f), '')
except (OSError, ValueError) as e:
    print(f'kunit: no results ({e})', file=sys.stderr)

counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
lines = []
for name, status in cases:
    verdict = {'PASS': 'PASS', 'SKIP': 'SKIP'}.get(status, 'FAIL')
    counts[verdict] += 1
    note = f': {status}' if verdict == 'FAIL' and status != 'FAIL' else ''
    lines.append(f'{verdict} {name}{note}')
for line in lines:
    if not line.startswith('PASS'):
        print(line)
if subresults:
    with open(subresults, 'a') as f:
        f.write(''.join(line + '\n' for line in lines))
print(f'kunit: {counts["PASS"]} passed, {counts["FAIL"]} failed, '
      f'{counts["SKIP"]} skipped')
sys.exit(0 if cases and counts['FAIL'] == 0 and rc == 0 else 1)
EOF

# Reports that do not fail a KUnit case by themselves.
if [[ -f $log ]] && grep -nE "$REPORT_RE" "$log" >&2; then
	log "kernel log of the KUnit run has reports (above; full log $log)"
	[[ -n ${SUBRESULTS:-} ]] && echo "FAIL ib_srpt/kernel-log-clean" >> "$SUBRESULTS"
	status=1
fi
if [[ $rc -ne 0 ]]; then
	log "kunit.py failed (exit $rc); its log:"
	tail -n 60 "$OUT/kunit.log" >&2
	status=1
fi
log "KUnit run took ${elapsed}s (kernel log: $log)"
exit $status
