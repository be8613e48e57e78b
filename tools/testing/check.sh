#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - "make check": every check of ib_srpt in one run.
#
#   deps       install missing Debian packages (apt-get update first)
#   fresh      with the kernel trees hidden (as on a fresh machine), make
#              reads the Makefile for check/demo/bench without stopping and
#              only the compiling targets ask for linux-headers
#   build      make W=1 KCFLAGS=-Werror (zero warnings, kernel-doc included)
#   sparse     make C=2 CF=-Wsparse-error (every file, also when up to date)
#   checkpatch checkpatch.pl --strict --no-tree -f on the driver sources
#   kernel-doc kernel-doc -none -Wall ib_srpt.c ib_srpt.h prints nothing
#   man        make man gives exactly the pages of documented-functions.txt
#   scripts    check-andand.sh (no && list that set -e cannot see), then
#              the harness scripts pass shellcheck (if installed; under
#              CI=true a missing shellcheck fails)
#   harness    tools/testing/harness-selftest.sh: lib.sh's sub_case verdicts
#              and the CI=true rule, on the host; srp-hostile -X, the
#              IB/CM message self-test; tools/srp-hostile/fuzz-dry-check.sh,
#              the fuzz mode's generator without a target (same seed, same
#              IUs; every IU type and field reached); make bench's plot.py
#              and report.py on synthetic results (bench_smoke)
#   in-tree    the sources dropped into drivers/infiniband/ulp/srpt of
#              linux-source-6.12 with Debian's config, make M=... modules;
#              then CONFIG_INFINIBAND_SRPT=y: Kconfig must not allow the
#              KUnit tests with a modular KUnit, and ib_srpt.o must compile
#              as built-in code
#   debug-kernel  tools/testing/debug-kernel.sh build: the debug guest kernel
#              (KASAN, lockdep, kmemleak, DEBUG_OBJECTS, UBSAN, KFENCE,
#              lockup detectors; soft-RoCE and soft-iWARP), cached
#   kunit      tools/testing/kunit.sh: under UML (KUNIT_KERNEL=uml); with
#              the debug stages, in the debug kernel when it is built
#              (KUNIT_KERNEL=debug: the suites compiled into ib_srpt.ko,
#              loaded in a guest)
#   dkms       make deb; the package installed on this machine with apt
#              (root): DKMS must build ib_srpt into updates/dkms of every
#              installed 6.12 kernel with headers and install it again
#              from the kernel-update hook; that module is kept for the
#              guest stage; the package is purged and the module must be
#              gone. make install/uninstall into a staging root. A
#              package left by an interrupted run is purged first. In a
#              whole make check it runs beside the kunit stage at nice 19
#              (CHECK_SERIAL=1: after it)
#   guest      tools/testing/vm.sh: all guest tests, in two guests of one
#              vCPU side by side and one of two (see GUEST_LANE1), with the
#              dkms stage's module (else the build stage's); checkpatch,
#              kernel-doc, man, doc, scripts and in-tree run beside it
#              (CHECK_SERIAL=1: before kunit)
#   debug      GUEST_KIND=debug vm.sh on soft-RoCE: the detectors are live,
#              then the lane's tests, then kmemleak after all logouts
#              (sub-results debug/...): in make check $DEBUG_CHECK_TESTS
#              with the teardown and hostile cases of $DEBUG_CHECK_TEARDOWN
#              and $DEBUG_CHECK_HOSTILE; in make check-debug $DEBUG_TESTS
#   debug-siw  only in make check-debug: the same on soft-iWARP
#              (SRPT_TEST_RDMA=siw) with $DEBUG_SIW_TESTS (sub-results
#              debug-siw/...)
#   debug-fault only in make check-debug: 64-fault-step's full sweep,
#              its scenarios in two guests of one vCPU side by side
#              (sub-results debug-fault/laneN/... and debug-fault/sites
#              with the sites failed in either lane)
#   debug-fuzz only in make check-debug: the wire fuzzer (62-fuzz) for
#              $FUZZ_TOTAL IUs (1,000,000) across ring and SRQ mode,
#              $FUZZ_KASAN_IUS per mode on the debug kernel and the rest
#              on Debian's kernel with slub_debug=FZPU and KFENCE, per
#              kernel ring and SRQ mode side by side in two guests of one
#              vCPU (FUZZ_LANES=2; 1: one after the other in one guest)
#              (sub-results debug-fuzz/kasan/..., debug-fuzz/debian/...
#              and debug-fuzz/total with the counts)
#   fabric     vm.sh fabric: two guests joined by two soft-RoCE links
#              (sub-results fabric/...). make check runs 00-smoke (an
#              IB/CM login with data compare and DREQ; dm-multipath over
#              both target ports, a target port disabled and enabled
#              under fio verify; about 4 minutes; CHECK_FABRIC=0 leaves it
#              out); when STAGES
#              names it ("make check-fabric") every test of
#              tools/testing/fabric/ ($FABRIC_TESTS selects)
#   ceph-gw    only when STAGES names it (make check-ha):
#              tools/testing/ceph-gateway-run.sh: a Ceph cluster on this
#              host and the three-guest gateway test 11-ceph-gateway, with
#              the fabric stage's module (sub-results ceph-gw/...)
#
# Each stage counts as one pass/fail/skip; for the kunit and guest stages
# each sub-result (guest test, sub-case, KUnit result) counts instead. A failing stage does not stop the
# others; stages that need the module are counted as failed when the build
# fails. The last line is "N passed, N failed[, N skipped]"; the exit status
# is 1 if anything failed.
#
# The debug lanes run a subset chosen by value (see DEBUG_TESTS below and
# README): a KASAN + lockdep kernel under TCG runs the data path about ten
# times slower than Debian's kernel. make check runs the short lane
# (CHECK_DEBUG=quick, the default; CHECK_DEBUG=0 leaves the debug stages out
# and runs KUnit under UML), "make check-debug" (CHECK_DEBUG=full) the full
# lanes. They share what is left of an 80-minute budget (CHECK_BUDGET,
# minutes; CI allows 90; make check-debug sets 180): tests a lane does not
# reach in its share fail as "did not finish".
#
# Environment: STAGES="build sparse ..." runs only those stages (deps always
# runs unless NO_DEPS=1); CHECK_STOCK=1 also runs the guest tests against the
# stock ib_srpt; TESTS selects guest tests (see vm.sh); DEBUG_TESTS and
# DEBUG_SIW_TESTS the debug lanes' tests, CHECK_BUDGET their time budget,
# KUNIT_KERNEL=uml|debug where KUnit runs; IB_SRPT_CACHE and IB_SRPT_RESULTS
# as in common.sh.

set -uo pipefail

# shellcheck source=tools/testing/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$REPO" || exit 1

CHECK_DIR=$RESULTS_BASE/check-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$CHECK_DIR"
SUMMARY=$CHECK_DIR/summary.txt
: >"$SUMMARY"
T_START=$SECONDS
BUILD_OK=0


record() {
	echo "$*" >>"$SUMMARY"
}

# stage [-s SUBFILE] NAME CMD...: run a stage with its output in
# $CHECK_DIR/NAME.log, print its verdict and time. CMD's status: 0 pass,
# 77 skip, else fail. With -s, the stage's sub-results (PASS|FAIL|SKIP name
# lines in SUBFILE) are counted instead of the stage itself, plus a FAIL for
# the stage when it failed without a failing sub-result.
stage() {
	local sub=
	if [[ $1 == -s ]]; then
		sub=$2
		shift 2
	fi
	local name=$1 t0=$SECONDS rc=0 log=$CHECK_DIR/$1.log verdict
	shift
	printf '==> %s\n' "$name"
	"$@" >"$log" 2>&1 || rc=$?
	case $rc in
	0) verdict=PASS ;;
	77) verdict=SKIP ;;
	*) verdict=FAIL ;;
	esac
	if [[ -n $sub && -s $sub ]]; then
		add_subresults "$sub" "$name/"
		if [[ $verdict == FAIL ]] && ! grep -q '^FAIL' "$sub"; then
			record "FAIL $name"
		fi
	else
		record "$verdict $name"
	fi
	printf '%s %s (%ds)\n' "$verdict" "$name" $((SECONDS - t0))
	[[ -n $sub && -s $sub ]] && grep '^NOTE' "$sub" | sed 's/^/    /'
	if [[ $verdict == FAIL ]]; then
		tail -n 25 "$log" | sed 's/^/    | /'
		echo "    full log: $log"
	elif [[ $verdict == SKIP ]]; then
		tail -n 1 "$log" | sed 's/^/    /'
	fi
	return "$rc"
}

want_stage() {
	[[ -z ${STAGES:-} || " $STAGES " == *" $1 "* ]]
}

# CHECK_DEBUG: quick (the default), full or 0; see the header.
CHECK_DEBUG=${CHECK_DEBUG:-quick}
[[ $CHECK_DEBUG == 1 ]] && CHECK_DEBUG=full

# want_debug_stage NAME: in a whole make check the debug kernel, its KUnit
# and the quick soft-RoCE lane run unless CHECK_DEBUG=0, the soft-iWARP lane
# only with CHECK_DEBUG=full; with STAGES, the stages it names run.
want_debug_stage() {
	if [[ -n ${STAGES:-} ]]; then
		want_stage "$1"
	elif [[ $1 == debug-siw || $1 == debug-fault || $1 == debug-fuzz ]]; then
		[[ $CHECK_DEBUG == full ]]
	else
		[[ $CHECK_DEBUG != 0 ]]
	fi
}

# Stages --------------------------------------------------------------------


# fresh_machine: run make's plan for the commands README promises on a new
# machine while /usr/src and /lib/modules are empty (a private mount
# namespace): make must not stop before check/demo/bench can install the
# headers, and "make modules" must say how to get them.
fresh_machine() {
	unshare -m bash -euc '
		for d in /usr/src /lib/modules; do
			[[ ! -d $d ]] || mount -t tmpfs none "$d"
		done
		for t in check demo bench; do
			echo "make -n $t"
			make -n "$t"
		done
		echo "make modules (must fail and name linux-headers)"
		if out=$(make modules 2>&1); then
			echo "make modules succeeded without a kernel tree"
			exit 1
		fi
		echo "$out"
		grep -q "install linux-headers-6.12-amd64" <<<"$out"
	'
}

# Fails on a non-zero status and on any warning in the output.
make_clean_output() {
	local out rc=0
	out=$(make "$@" 2>&1) || rc=$?
	echo "$out"
	((rc == 0)) || return "$rc"
	if grep -Ei 'warning|error:' <<<"$out"; then
		echo "--- the lines above are warnings"
		return 1
	fi
}

build() {
	make clean >/dev/null 2>&1
	make_clean_output W=1 KCFLAGS=-Werror modules || return
	[[ -f ib_srpt.ko ]] || { echo "ib_srpt.ko not built"; return 1; }
	modinfo ib_srpt.ko
}

sparse_check() {
	command -v sparse >/dev/null || { echo "sparse is not installed"; return 1; }
	make_clean_output W=1 KCFLAGS=-Werror C=2 CF=-Wsparse-error modules
}

driver_sources() {
	local f
	for f in ib_srpt.c ib_srpt.h ib_srpt_trace.h ib_srpt_test.c ./*.inc; do
		[[ -f $f ]] && echo "${f#./}"
	done
}

checkpatch() {
	local src files
	src=$(prepare_source) || return
	mapfile -t files < <(driver_sources)
	((${#files[@]})) || { echo "no driver sources"; return 1; }
	echo "checkpatch.pl --strict --no-tree -f ${files[*]}"
	"$src/scripts/checkpatch.pl" --strict --no-tree --color=never --show-types -f "${files[@]}"
}

kerneldoc() {
	local kdir out f
	local -a files=()
	kdir=$(find_kdir) || return
	for f in ib_srpt.c ib_srpt.h; do
		[[ -f $f ]] && files+=("$f")
	done
	((${#files[@]})) || { echo "no driver sources"; return 1; }
	out=$("$kdir/scripts/kernel-doc" -none -Wall "${files[@]}" 2>&1)
	echo "kernel-doc -none -Wall ${files[*]}"
	[[ -z $out ]] && return 0
	echo "$out"
	return 1
}

man_pages() {
	make man || return
	tools/testing/check-man.sh build/man tools/testing/documented-functions.txt
}

# The admin guide builds as reStructuredText without warnings and lists
# every kernel message of the driver.
doc_check() {
	tools/testing/check-doc.sh Documentation/ib_srpt.rst
}

shellcheck_scripts() {
	local -a files
	# Files under version control (a CI clone has no others).
	if git rev-parse --git-dir >/dev/null 2>&1; then
		mapfile -t files < <(git ls-files -- 'tools/*.sh' 'tools/**/*.sh' .ci/run | sort -u)
	else
		mapfile -t files < <(find tools .ci -type f \( -name '*.sh' -o -path .ci/run \) | sort)
	fi
	# An && list in the middle of a function, whose failing first command
	# set -e cannot see (shellcheck has no such rule), fails the stage.
	tools/testing/check-andand.sh "${files[@]}" tools/testing/guest/init tools/ha/SRPTarget || return 1
	if ! command -v shellcheck >/dev/null; then
		echo "shellcheck is not installed"
		[[ ${CI:-} == true ]] && return 1
		return 77
	fi
	echo "shellcheck -S warning ${files[*]}"
	if [[ ${HOST_CHECKS_BESIDE:-0} == 1 ]]; then
		# Beside the guest stage: one CPU is all there is to spare.
		shellcheck -x -S warning "${files[@]}" || return
		shellcheck -s sh -S warning tools/testing/guest/init tools/ha/SRPTarget
		return
	fi
	# Two halves side by side: shellcheck uses one CPU.
	local -a half0 half1
	local i rc=0 out0 out1
	for ((i = 0; i < ${#files[@]}; i++)); do
		if ((i % 2)); then half1+=("${files[i]}"); else half0+=("${files[i]}"); fi
	done
	out0=$(mktemp) out1=$(mktemp)
	shellcheck -x -S warning "${half0[@]}" >"$out0" 2>&1 &
	i=$!
	shellcheck -x -S warning "${half1[@]}" >"$out1" 2>&1 || rc=1
	wait "$i" || rc=1
	cat "$out0" "$out1"
	rm -f "$out0" "$out1"
	((rc == 0)) && shellcheck -s sh -S warning tools/testing/guest/init tools/ha/SRPTarget
}

# The guest-test helpers give the right verdicts (no guest needed),
# srp-hostile's IB/CM messages have the spec's layout (its self-test), and
# its fuzz mode generates the same IUs from the same seed and reaches every
# IU type and field (a dry run).
harness_selftest() {
	tools/testing/harness-selftest.sh || return
	make -s -C tools/srp-hostile || return
	tools/srp-hostile/srp-hostile -X || return
	tools/srp-hostile/fuzz-dry-check.sh || return
	bench_smoke
}

# bench_smoke: make bench's host tools on synthetic results (a few
# seconds): plot.py's self-test draws every plot, report.py prints the
# table of the self-test's raw results.
bench_smoke() {
	local dir
	dir=$(mktemp -d /tmp/ib_srpt-bench-smoke.XXXXXX) || return
	python3 tools/bench/plot.py --selftest "$dir" &&
		python3 tools/bench/report.py "$dir/result/raw" >"$dir/table.txt" &&
		grep 'randwrite QD32 IOPS' "$dir/table.txt" || { rm -rf "$dir"; return 1; }
	rm -rf "$dir"
}

# The in-tree build works in $CACHE/intree-<release>: src/ is a hard-link
# copy of the shared, pristine linux-source-6.12 tree (which kunit.sh uses
# too and which must stay free of build output), build/ the O= directory.
# Our files replace src/drivers/infiniband/ulp/srpt (fresh inodes, so the
# pristine tree is never written through the links).
in_tree_build() {
	local kdir kver pristine base src obj dst f stamp
	kdir=$(find_kdir) || return
	kver=$(kver_of "$kdir")
	exec 9>"$CACHE/.linux-source.lock"
	flock 9
	pristine=$(prepare_source) || return
	flock -u 9
	stamp=$(cat "$pristine/.ib_srpt-ready")
	base=$CACHE/intree-$kver
	src=$base/src
	obj=$base/build
	exec 8>"$CACHE/.intree-$kver.lock"
	flock 8
	if [[ ! -f $src/.ib_srpt-intree || $(cat "$src/.ib_srpt-intree") != "$stamp" ]]; then
		echo "creating $src (once)"
		rm -rf "$base"
		mkdir -p "$base"
		cp -al "$pristine" "$src.tmp"
		mv "$src.tmp" "$src"
		echo "$stamp" >"$src/.ib_srpt-intree"
	fi
	dst=$src/drivers/infiniband/ulp/srpt
	rm -rf "$dst"
	mkdir -p "$dst"
	for f in Kbuild Kconfig Makefile $(driver_sources); do
		cp "$f" "$dst/"
	done
	if [[ ! -f $obj/.ib_srpt-prepared ]]; then
		echo "preparing $obj with Debian's config (once)"
		rm -rf "$obj"
		mkdir -p "$obj"
		cp "$kdir/.config" "$kdir/Module.symvers" "$obj/"
		make -C "$src" O="$obj" olddefconfig || return
		make -C "$src" O="$obj" -j"$(nproc)" modules_prepare || return
		touch "$obj/.ib_srpt-prepared"
	else
		# Parses our Kconfig again.
		make -C "$src" O="$obj" olddefconfig || return
	fi
	if ! grep -q 'CONFIG_INFINIBAND_SRPT=m' "$obj/.config"; then
		echo "CONFIG_INFINIBAND_SRPT=m missing from the in-tree .config"
		return 1
	fi
	make_clean_output -C "$src" O="$obj" M="$dst" W=1 KCFLAGS=-Werror modules || return
	[[ -f $dst/ib_srpt.ko ]] || { echo "in-tree ib_srpt.ko not built"; return 1; }
	in_tree_builtin "$src" "$obj" "$dst"
}

# in_tree_builtin SRC OBJ DST: CONFIG_INFINIBAND_SRPT=y, which a vmlinux-less
# "make M=" cannot link. The KUnit tests are compiled into ib_srpt.o, so a
# built-in ib_srpt with a modular KUnit would not link: Kconfig must rule that
# out and still allow the tests with a built-in KUnit (olddefconfig on a copy
# of the config, seconds). Then ib_srpt.o is compiled as built-in code (no
# -DMODULE) without warnings.
in_tree_builtin() {
	local src=$1 obj=$2 dst=$3 cfg=$2/.config-srpt-y kunit want got
	for kunit in m y; do
		cp "$obj/.config" "$cfg"
		"$src/scripts/config" --file "$cfg" --enable SCSI \
			--enable TARGET_CORE --enable INFINIBAND \
			--enable INFINIBAND_SRPT --set-val KUNIT "$kunit" \
			--enable INFINIBAND_SRPT_KUNIT_TEST
		make -s -C "$src" O="$obj" KCONFIG_CONFIG="$cfg" olddefconfig || return
		if ! grep -qx 'CONFIG_INFINIBAND_SRPT=y' "$cfg" ||
			! grep -qx "CONFIG_KUNIT=$kunit" "$cfg"; then
			echo "Kconfig: could not make CONFIG_INFINIBAND_SRPT=y with CONFIG_KUNIT=$kunit"
			return 1
		fi
		got=$(sed -n 's/^CONFIG_INFINIBAND_SRPT_KUNIT_TEST=//p' "$cfg")
		want=${kunit/m/}
		echo "Kconfig: INFINIBAND_SRPT=y KUNIT=$kunit -> INFINIBAND_SRPT_KUNIT_TEST=${got:-n}"
		if [[ $got != "$want" ]]; then
			echo "Kconfig: expected INFINIBAND_SRPT_KUNIT_TEST=${want:-n}" \
				"(a built-in ib_srpt cannot link against a modular KUnit)"
			return 1
		fi
	done
	rm -f "$cfg" "$cfg.old"
	make_clean_output -C "$src" O="$obj" M="$dst" CONFIG_INFINIBAND_SRPT=y \
		W=1 KCFLAGS=-Werror ib_srpt.o || return
	if grep -q -- '-DMODULE' "$dst/.ib_srpt.o.cmd"; then
		echo "ib_srpt.o was compiled as module code, not as built-in code"
		return 1
	fi
}

# in_tree: in_tree_build, then release the in-tree lock (the check may run
# for an hour more; other worktrees' in-tree stages wait for the lock).
in_tree() {
	local rc=0
	in_tree_build || rc=$?
	exec 8>&-
	return "$rc"
}

# kunit.sh reports sub-results as "PASS|FAIL|SKIP name" lines, appended to
# the file $SUBRESULTS or printed on stdout.
KUNIT_SUB=$CHECK_DIR/kunit.sub
kunit() {
	local rc=0
	[[ -x tools/testing/kunit.sh ]] || { echo "tools/testing/kunit.sh does not exist yet"; return 77; }
	: >"$KUNIT_SUB"
	# In the debug kernel when it is wanted (no UML build), else in UML.
	# Under CI=true a debug kernel that is wanted but missing, or that
	# gives no result, fails the stage: a UML run in its place would pass
	# without the debug kernel's detectors.
	local kernel=uml
	if [[ -z ${KUNIT_KERNEL:-} ]] && want_debug_stage debug-kernel; then
		if tools/testing/debug-kernel.sh dir >/dev/null 2>&1; then
			kernel=debug
		elif [[ ${CI:-} == true ]]; then
			echo "FAIL (CI=true): the debug kernel is not built (see the debug-kernel stage); no KUnit run under UML in its place"
			return 1
		else
			echo "the debug kernel is not built (see the debug-kernel stage): KUnit runs under UML instead (CI=true fails here)"
		fi
	fi
	echo "KUnit in the ${KUNIT_KERNEL:-$kernel} kernel"
	KUNIT_KERNEL=${KUNIT_KERNEL:-$kernel} SUBRESULTS=$KUNIT_SUB tools/testing/kunit.sh |
		tee "$CHECK_DIR/kunit.out" || rc=$?
	# No result at all from the debug kernel (a guest or build problem,
	# not a failing case): outside CI, UML still gives the suites a run.
	if [[ -z ${KUNIT_KERNEL:-} && $kernel == debug && ! -s $KUNIT_SUB ]]; then
		if [[ ${CI:-} == true ]]; then
			echo "FAIL (CI=true): no KUnit results from the debug kernel; no KUnit run under UML in its place"
			return 1
		fi
		echo "no KUnit results from the debug kernel; running KUnit under UML instead (CI=true fails here)"
		rc=0
		KUNIT_KERNEL=uml SUBRESULTS=$KUNIT_SUB tools/testing/kunit.sh |
			tee -a "$CHECK_DIR/kunit.out" || rc=$?
	fi
	[[ -s $KUNIT_SUB ]] || grep -E '^(PASS|FAIL|SKIP) ' "$CHECK_DIR/kunit.out" >"$KUNIT_SUB"
	return "$rc"
}

# dkms stage ----------------------------------------------------------------

DKMS_PKG=ib-srpt-dkms
DKMS_MOD=ib-srpt
# Written before the stage installs the package, removed once it is purged:
# an installed package without it belongs to the machine's admin.
DKMS_MARK=$CACHE/.dkms-stage-installed

# dkms_pkg_present: true if dpkg knows the package in any state but
# "not installed" (installed, half-configured, config files left...).
dkms_pkg_present() {
	local st
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$DKMS_PKG" 2>/dev/null) || return 1
	[[ -n $st && $st != un* ]]
}

# dkms_cleanup: purge the package and anything DKMS still holds of it.
dkms_cleanup() {
	local rc=0 v
	if dkms_pkg_present; then
		echo "purging $DKMS_PKG"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
			-o DPkg::Lock::Timeout=600 "$DKMS_PKG" ||
			dpkg --purge --force-remove-reinstreq "$DKMS_PKG" || rc=1
	fi
	for v in /var/lib/dkms/"$DKMS_MOD"/*/; do
		[[ -d $v && ! -L ${v%/} ]] || continue
		v=$(basename "$v")
		echo "removing $DKMS_MOD/$v from the DKMS tree"
		dkms remove -m "$DKMS_MOD" -v "$v" --all || rc=1
	done
	((rc)) || rm -f "$DKMS_MARK"
	return "$rc"
}

# dkms_kernels: the installed 6.12 kernel releases with headers.
dkms_kernels() {
	local d
	for d in /lib/modules/6.12.*; do
		[[ -e $d/build/include ]] && basename "$d"
	done
	return 0
}

# dkms_module_of KVER: the module file DKMS installed for KVER.
dkms_module_of() {
	local f
	for f in /lib/modules/"$1"/updates/dkms/ib_srpt.ko{,.xz,.zst,.gz}; do
		[[ -f $f ]] && { echo "$f"; return 0; }
	done
	return 1
}

# build_id FILE: the GNU build ID of a module file in hex.
build_id() {
	readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: *//p'
}

# dkms_check_installed KVER VERSION: DKMS's module for KVER is installed,
# is the one modprobe finds, and has VERSION.
dkms_check_installed() {
	local k=$1 want=$2 f got
	f=$(dkms_module_of "$k") || { echo "$k: no ib_srpt.ko in updates/dkms"; return 1; }
	got=$(modinfo -k "$k" -n ib_srpt)
	[[ $got == "$f" ]] || { echo "$k: modprobe would load $got, not $f"; return 1; }
	got=$(modinfo -F version "$f")
	[[ $got == "$want" ]] || { echo "$k: $f has version $got, not $want"; return 1; }
	dkms status -m "$DKMS_MOD" -v "$want" -k "$k" | grep ': installed' >/dev/null ||
		{ echo "$k: dkms status: $(dkms status -m "$DKMS_MOD" -k "$k")"; return 1; }
	echo "$k: $f, version $got"
}

dkms_stage_run() {
	local ver hver cver deb k ko first tmp rel
	local -a kernels
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
	hver=$(sed -n 's/^#define SRPT_VERSION[[:space:]]*"\(.*\)"/\1/p' ib_srpt.h)
	cver=$(dpkg-parsechangelog -SVersion)
	echo "versions: dkms.conf $ver, ib_srpt.h $hver, debian/changelog $cver"
	[[ -n $ver && $ver == "$hver" && ${cver%-*} == "$ver" ]] ||
		{ echo "the three versions differ"; return 1; }
	mapfile -t kernels < <(dkms_kernels)
	((${#kernels[@]})) || { echo "no 6.12 kernel with headers in /lib/modules"; return 1; }
	echo "6.12 kernels with headers: ${kernels[*]}"

	echo "== make deb (${SECONDS}s)"
	make deb || return
	deb=build/deb/${DKMS_PKG}_${ver}_all.deb
	[[ -f $deb ]] || { echo "$deb not built"; return 1; }
	# (grep without -q reads to the end: no SIGPIPE for dpkg-deb)
	dpkg-deb -c "$deb" | grep "usr/share/doc/$DKMS_PKG/examples/ib_srpt.conf" ||
		{ echo "$deb lacks the modprobe.d example"; return 1; }
	# The resource agent's package: the agent, executable, where Pacemaker
	# looks for ocf:ib_srpt:SRPTarget.
	dpkg-deb -c "build/deb/ib-srpt-ha_${ver}_all.deb" |
		grep -E '^-rwxr-xr-x .* \./usr/lib/ocf/resource\.d/ib_srpt/SRPTarget$' ||
		{ echo "ib-srpt-ha_${ver}_all.deb lacks the resource agent"; return 1; }

	echo "== apt-get install ./$deb (${SECONDS}s)"
	touch "$DKMS_MARK"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "./$deb" || return
	for k in "${kernels[@]}"; do
		dkms_check_installed "$k" "$ver" || return
	done
	# 18-modprobe-conf (guest stage) tests the repository's copy.
	cmp "/usr/share/doc/$DKMS_PKG/examples/ib_srpt.conf" Documentation/modprobe.d/ib_srpt.conf ||
		return

	# What a kernel update does: the new headers package runs the
	# header_postinst.d hooks with its release; DKMS's hook installs every
	# AUTOINSTALL module for it.
	first=${kernels[0]}
	echo "== kernel update hook for $first (${SECONDS}s)"
	dkms uninstall -m "$DKMS_MOD" -v "$ver" -k "$first" || return
	if ko=$(dkms_module_of "$first"); then
		echo "$ko still there after dkms uninstall"
		return 1
	fi
	run-parts --report --exit-on-error --arg="$first" /etc/kernel/header_postinst.d || return
	dkms_check_installed "$first" "$ver" || return

	echo "== DKMS's module for $first, for the guest stage (${SECONDS}s)"
	rel=$(kver_of "$(find_kdir)")
	if [[ $rel != "$first" ]]; then
		# The guest boots the release of find_kdir.
		dkms_check_installed "$rel" "$ver" || return
		first=$rel
	fi
	ko=$(dkms_module_of "$first")
	tmp=$CHECK_DIR/dkms-ib_srpt.ko
	case $ko in
	*.xz) xz -dc "$ko" >"$tmp" ;;
	*.zst) zstd -dcq "$ko" >"$tmp" ;;
	*.gz) gzip -dc "$ko" >"$tmp" ;;
	*) cp "$ko" "$tmp" ;;
	esac
	echo "$ko: $(modinfo -F signer "$tmp"), build ID $(build_id "$tmp"), copied to $tmp"
	[[ $(modinfo -F vermagic "$tmp") == "$rel "* ]] ||
		{ echo "$tmp is built for $(modinfo -F vermagic "$tmp")"; rm -f "$tmp"; return 1; }

	echo "== apt-get purge $DKMS_PKG (${SECONDS}s)"
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
		-o DPkg::Lock::Timeout=600 "$DKMS_PKG" || return
	for k in "${kernels[@]}"; do
		if ko=$(dkms_module_of "$k"); then
			echo "$ko is still there after the purge"
			return 1
		fi
		echo "$k: modprobe ib_srpt now loads $(modinfo -k "$k" -n ib_srpt 2>&1)"
	done
	[[ ! -e /usr/src/$DKMS_MOD-$ver ]] || { echo "/usr/src/$DKMS_MOD-$ver is still there"; return 1; }
	[[ ! -e /var/lib/dkms/$DKMS_MOD ]] || { echo "/var/lib/dkms/$DKMS_MOD is still there"; return 1; }
	rm -f "$DKMS_MARK"

	echo "== make install / make uninstall into a staging root (${SECONDS}s)"
	tmp=$(mktemp -d)
	# -o modules: install the module the build stage made as it is.
	make -o modules install INSTALL_MOD_PATH="$tmp" >/dev/null || { rm -rf "$tmp"; return 1; }
	ls "$tmp"/lib/modules/*/updates/ib_srpt.ko* || { rm -rf "$tmp"; return 1; }
	make uninstall INSTALL_MOD_PATH="$tmp" || { rm -rf "$tmp"; return 1; }
	if ls "$tmp"/lib/modules/*/updates/ib_srpt.ko* 2>/dev/null; then
		echo "make uninstall left the module"
		rm -rf "$tmp"
		return 1
	fi
	rm -rf "$tmp"
}

# dkms_stage: dkms_stage_run between two cleanups, under a lock (the
# package is machine-wide), as root.
dkms_stage() {
	local rc=0 c
	if ((EUID != 0)); then
		echo "the dkms stage installs a package: run it as root"
		[[ ${CI:-} == true ]] && return 1
		return 77
	fi
	for c in dkms dpkg-buildpackage dh_dkms; do
		command -v "$c" >/dev/null || { echo "$c is not installed (dkms, debhelper, dh-dkms)"; return 1; }
	done
	mkdir -p "$CACHE"
	exec 7>"$CACHE/.dkms-stage.lock"
	flock 7
	if { dkms_pkg_present || [[ -e /var/lib/dkms/$DKMS_MOD ]]; } && [[ ! -f $DKMS_MARK ]]; then
		echo "$DKMS_PKG or DKMS module $DKMS_MOD is installed on this machine, not by make check: remove it first"
		exec 7>&-
		return 1
	fi
	dkms_cleanup || rc=1
	((rc)) || dkms_stage_run || rc=$?
	dkms_cleanup || rc=1
	exec 7>&-
	return "$rc"
}

GUEST_DIR=$CHECK_DIR/guest
# The guest stage's lanes (CHECK_GUEST_LANES=2, the default): a guest of
# two vCPUs leaves about a third of two CPUs idle (123-158 % measured), so
# the tests run in two guests of one vCPU each side by side: lane 1 runs
# GUEST_LANE1, lane 2 every other test (a new test lands there), except
# GUEST_SMP2_TESTS, which need two CPUs (24-comp-vector: two completion
# vectors in use) and run afterwards in a guest of two vCPUs. Each lane's
# run directory is $GUEST_DIR/laneN; their results are joined in
# $GUEST_DIR/out/results.txt. CHECK_GUEST_LANES=1: one guest of VM_SMP
# vCPUs (default 2) runs everything. TESTS set (make check-ha): one guest
# runs those tests, no lanes.
GUEST_LANE1=${GUEST_LANE1:-60-hostile 16-teardown-unplug 23-port-events 11-configfs 13-login-acl 21-t10-pi 30-dp-integrity 01-load 10-params 18-modprobe-conf}
GUEST_SMP2_TESTS=${GUEST_SMP2_TESTS:-24-comp-vector}

# guest: the guest tests, with the module DKMS built in the dkms stage
# when there is one (the one an admin installs), else the build stage's.
guest() {
	local ko=$CHECK_DIR/dkms-ib_srpt.ko
	if [[ -f $ko ]]; then
		echo "module: DKMS's, $ko (build ID $(build_id "$ko"))"
	else
		ko=$PWD/ib_srpt.ko
		echo "module: the build stage's, $ko (no module from the dkms stage)"
	fi
	if [[ -n ${TESTS:-} && $TESTS != "*" ]]; then
		# a chosen set (make check-ha's TESTS): one guest
		guest_run "$ko" "$GUEST_DIR" "${VM_SMP:-2}" "$TESTS" ""
	elif [[ ${CHECK_GUEST_LANES:-2} == 1 ]]; then
		guest_run "$ko" "$GUEST_DIR" "${VM_SMP:-2}" "*" ""
	else
		guest_lanes "$ko"
	fi
}

# guest_run KO DIR SMP TESTS EXCLUDE: vm.sh run of TESTS but EXCLUDE with
# module KO in run directory DIR, SMP vCPUs.
guest_run() {
	KO=$1 VM_RUN_DIR=$2 VM_SMP=$3 TESTS=$4 TESTS_EXCLUDE=$5 VM_TIMEOUT=${VM_TIMEOUT:-3600} \
		SRPT_TEST_FUZZ_IUS=${SRPT_TEST_FUZZ_IUS:-2000} tools/testing/vm.sh run
}

# guest_lanes KO: the lanes (see GUEST_LANE1); each lane's output in
# $GUEST_DIR/laneN.log, printed when all are done.
guest_lanes() {
	local ko=$1 rc=0 p1 p2 n
	rm -rf "$GUEST_DIR"
	mkdir -p "$GUEST_DIR/out"
	echo "lane 1 (1 vCPU): $GUEST_LANE1"
	echo "lane 2 (1 vCPU): every other test but $GUEST_SMP2_TESTS"
	guest_run "$ko" "$GUEST_DIR/lane1" 1 "$GUEST_LANE1" "" >"$GUEST_DIR/lane1.log" 2>&1 &
	p1=$!
	guest_run "$ko" "$GUEST_DIR/lane2" 1 "*" "$GUEST_LANE1 $GUEST_SMP2_TESTS" \
		>"$GUEST_DIR/lane2.log" 2>&1 &
	p2=$!
	wait "$p1" || rc=1
	wait "$p2" || rc=1
	echo "lane 3 (2 vCPUs): $GUEST_SMP2_TESTS"
	guest_run "$ko" "$GUEST_DIR/lane3" 2 "$GUEST_SMP2_TESTS" "" >"$GUEST_DIR/lane3.log" 2>&1 || rc=1
	for n in 1 2 3; do
		echo "--- lane $n"
		cat "$GUEST_DIR/lane$n.log"
		cat "$GUEST_DIR/lane$n/out/results.txt" >>"$GUEST_DIR/out/results.txt" 2>/dev/null ||
			{ echo "FAIL vm: lane $n left no results" >>"$GUEST_DIR/out/results.txt"; rc=1; }
	done
	return "$rc"
}

GUEST_STOCK_DIR=$CHECK_DIR/guest-stock
guest_stock() {
	SRPT=stock VM_RUN_DIR=$GUEST_STOCK_DIR tools/testing/vm.sh run
}

# The debug lanes: what a KASAN/lockdep kernel adds most to the guest stage
# (races and lifetimes: teardown, relogin, resets, aborts, hostile
# initiators), with the data path shortened.
# 64-fault-step's full sweep has a stage of its own (debug-fault).
DEBUG_TESTS=${DEBUG_TESTS:-16-teardown-unplug 15-relogin-loop 32-dp-stress 30-dp-integrity 60-hostile 61-hostile-srq 63-fault-inject}
# On soft-iWARP: what iWARP does differently (RDMA READs through memory
# registration, MPA connection setup, no RNR retry): the data path with
# large and many-descriptor commands and the hostile initiator. Both
# adapt to siw where the transport decides the outcome (30-dp-integrity:
# sg_tablesize=256; 60-hostile: flow-no-receives, no 64-connection cases).
# 24-comp-vector: Debian's kernel has no siw, so soft-iWARP's completion
# vectors (one per CPU) are tested here only (368 s measured).
DEBUG_SIW_TESTS=${DEBUG_SIW_TESTS:-02-login-smoke 24-comp-vector 30-dp-integrity 60-hostile 63-fault-inject}
# The quick lane of make check, about 10 minutes (603 s measured with
# login-acl-delete-storm, which takes 40-57 s of it and now runs only in
# make check-debug): the review's lifetime defects (device removal with an
# initiator logged in, a port disabled under two channels) and the hostile
# cases that open, replace and tear down channels while LIO and the
# initiator act, reuse data buffers and abort commands in flight, under
# KASAN, lockdep, kmemleak and the object debugging; and 2,000 IUs of the
# wire fuzzer (62-fuzz, ring mode); and from 63-fault-inject the targeted
# failures (make check-debug: all of it, with the configfs sweep, 113 s of
# the quick lane when it ran there, and five rounds of the random phase
# per receive mode); and the allocation-failure sweep of 64-fault-step in
# its quick form (RDMA/CM login and commands; make check-debug: every
# scenario, module load, task management and fail_page_alloc too).
DEBUG_CHECK_TESTS=${DEBUG_CHECK_TESTS:-16-teardown-unplug 60-hostile 62-fuzz 63-fault-inject 64-fault-step}
DEBUG_CHECK_TEARDOWN=${DEBUG_CHECK_TEARDOWN:-hot-unplug,two-ch-disable-unplug}
DEBUG_CHECK_HOSTILE=${DEBUG_CHECK_HOSTILE:-login-single-race,login-single-storm,login-single-before-rtu,login-abandoned-*,cmdbuf-stale-receive-copy-results-8k,cmdbuf-stale-read-after-read,cmdbuf-stale-request-sense,tsk-abort-inflight-*,tsk-abort-write-waiting-rdma-read,tsk-abort-storm,tsk-*-running*,xch-write-read-interleaved,xch-srq-overcommit}
DEBUG_DIR=$CHECK_DIR/debug
DEBUG_SIW_DIR=$CHECK_DIR/debug-siw
FABRIC_DIR=$CHECK_DIR/fabric

# want_fabric_stage: a whole make check runs the fabric's smoke test
# unless CHECK_FABRIC=0; with STAGES, the stage runs when it is named.
want_fabric_stage() {
	if [[ -n ${STAGES:-} ]]; then
		want_stage fabric
	else
		[[ ${CHECK_FABRIC:-1} != 0 ]]
	fi
}

# The two-guest tests (vm.sh fabric): 00-smoke in a whole make check,
# else $FABRIC_TESTS (default: all), with the guest stage's module.
fabric_stage() {
	local tests=${FABRIC_TESTS:-} limit=3600 ko=$CHECK_DIR/dkms-ib_srpt.ko
	if [[ -z $tests && -z ${STAGES:-} ]]; then
		tests=00-smoke
		limit=900
	fi
	[[ -f $ko ]] || ko=$PWD/ib_srpt.ko
	echo "module: $ko; tests: ${tests:-all}"
	# shellcheck disable=SC2086 # the tests are a list
	KO=$ko VM_TIMEOUT=${VM_TIMEOUT:-$limit} VM_RUN_DIR=$FABRIC_DIR tools/testing/vm.sh fabric $tests
}

CEPH_GW_DIR=$CHECK_DIR/ceph-gw

# The Ceph RBD gateway test (ceph-gateway-run.sh), with the guest stage's
# module; only when STAGES names ceph-gw.
ceph_gw_stage() {
	local ko=$CHECK_DIR/dkms-ib_srpt.ko
	[[ -f $ko ]] || ko=$PWD/ib_srpt.ko
	echo "module: $ko"
	KO=$ko tools/testing/ceph-gateway-run.sh "$CEPH_GW_DIR"
}

debug_kernel() {
	tools/testing/debug-kernel.sh build
}

# budget_left SHARE: seconds of the CHECK_BUDGET (minutes, default 80)
# still left, less two minutes for the summary, times SHARE percent; at
# least 300.
budget_left() {
	local left=$(((${CHECK_BUDGET:-80} * 60 - (SECONDS - T_START) - 120) * $1 / 100))
	((left > 300)) || left=300
	echo "$left"
}

# debug_lane DIR RDMA TESTS SHARE: the tests on the debug kernel over soft
# RDMA driver RDMA, with the long data-path cases cut down. The guest gets
# SHARE percent of what is left of the time budget (in make check at most
# DEBUG_VM_TIMEOUT): on a slow machine the tests it did not reach fail as
# "did not finish" instead of CI running out of time.
debug_lane() {
	local limit cap=${DEBUG_VM_TIMEOUT:-3600}
	# make check-debug: the share alone limits a lane (its soft-RoCE lane
	# needs more than an hour on a 2-core machine).
	if [[ $CHECK_DEBUG == full ]]; then
		cap=${DEBUG_VM_TIMEOUT:-$((${CHECK_BUDGET:-80} * 60))}
	fi
	limit=${DEBUG_LANE_LIMIT:-$(budget_left "$4")}
	((limit < cap)) || limit=$cap
	echo "guest time limit ${limit}s"
	GUEST_KIND=debug VM_RUN_DIR=$1 SRPT_TEST_RDMA=$2 \
		SRPT_TEST_RELOGIN_ROUNDS=${SRPT_TEST_RELOGIN_ROUNDS:-8} \
		SRPT_TEST_TEARDOWN_ROUNDS=${SRPT_TEST_TEARDOWN_ROUNDS:-1} \
		SRPT_TEST_DP_CREDITS_SECS=${SRPT_TEST_DP_CREDITS_SECS:-10} \
		SRPT_TEST_DP_RESET_SECS=${SRPT_TEST_DP_RESET_SECS:-5} \
		SRPT_TEST_SLOW_WRITE_MS=${SRPT_TEST_SLOW_WRITE_MS:-60000} \
		SRPT_TEST_HOSTILE_ARGS=${SRPT_TEST_HOSTILE_ARGS:--t,15000} \
		TEST_TIMEOUT=${DEBUG_TEST_TIMEOUT:-1200} VM_TIMEOUT=$limit \
		tools/testing/vm.sh run $3
}

debug_rxe() {
	if [[ $CHECK_DEBUG == full ]]; then
		SRPT_TEST_FAULT_ROUNDS=${SRPT_TEST_FAULT_ROUNDS:-5} \
			debug_lane "$DEBUG_DIR" rxe "$DEBUG_TESTS" 65
	else
		SRPT_TEST_TEARDOWN_CASES=$DEBUG_CHECK_TEARDOWN \
			SRPT_TEST_HOSTILE_CASES=$DEBUG_CHECK_HOSTILE \
			SRPT_TEST_FUZZ_IUS=${SRPT_TEST_FUZZ_IUS:-2000} \
			SRPT_TEST_FUZZ_MODES=${SRPT_TEST_FUZZ_MODES:-ring} \
			SRPT_TEST_FAULT_ROUNDS=${SRPT_TEST_FAULT_ROUNDS:-1} \
			SRPT_TEST_FAULT_CASES=${SRPT_TEST_FAULT_CASES:-*-nomem} \
			SRPT_TEST_FAULT_STEP=${SRPT_TEST_FAULT_STEP:-quick} \
			debug_lane "$DEBUG_DIR" rxe "$DEBUG_CHECK_TESTS" 100
	fi
}

# 63-fault-inject on siw: its targeted failures, among them a login refused
# after its queues exist (siw flushes the receives of a destroyed QP into
# the CQ); login-rej-lost expects IB's CM retry, which iWARP lacks.
debug_siw() {
	SRPT_TEST_FAULT_CASES=${SRPT_TEST_FAULT_CASES:-*-nomem} \
		debug_lane "$DEBUG_SIW_DIR" siw "$DEBUG_SIW_TESTS" 100
}

# The allocation-failure sweep of make check-debug: 64-fault-step's full
# form (every scenario, failslab and fail_page_alloc, no time limit per
# scenario; each guest FAULT_LIMIT seconds at most, 9000), its
# scenarios split over two guests of one vCPU side by side, FAULT_LANE1 in
# one and FAULT_LANE2 in the other. load alone takes about as long as five
# other scenarios (40 steps of a module load, 55 minutes beside the other
# lane, 2026-12-07), so its lane has three more and the other six. Each lane's sub-results are prefixed
# laneN/; a site counts as failed when either lane failed it, and the
# stage's NOTE "sites failed X of Y" joins both (sub-result "sites": it
# fails when a lane left no site list).
DEBUG_FAULT_DIR=$CHECK_DIR/debug-fault
FAULT_LANE1=${FAULT_LANE1:-load,login-ring,tmf,port-disable}
FAULT_LANE2=${FAULT_LANE2:-login-srq,cmd-ring,cmd-srq,two-channels,unplug,dm-mad}

# fault_lane N CASES: lane N sweeps the scenarios CASES; its results in
# $DEBUG_FAULT_DIR/laneN.txt.
fault_lane() {
	local dir=$DEBUG_FAULT_DIR/lane$1 rc=0 limit=${FAULT_LIMIT:-9000}
	echo "lane $1 (1 vCPU): $2"
	VM_SMP=1 SRPT_TEST_FAULT_STEP=full SRPT_TEST_FAULT_STEP_CASES=$2 \
		DEBUG_TEST_TIMEOUT=$limit DEBUG_VM_TIMEOUT=$limit DEBUG_LANE_LIMIT=$limit \
		debug_lane "$dir" rxe 64-fault-step 100 || rc=$?
	if [[ -f $dir/out/results.txt ]]; then
		sed -E "s#^(PASS|FAIL|SKIP) #\1 lane$1/#; s#^NOTE #NOTE lane$1/#" \
			"$dir/out/results.txt" >"$dir.txt"
	else
		echo "FAIL lane$1/64-fault-step: the guest left no results" >"$dir.txt"
	fi
	return "$rc"
}

# fault_sites LIST...: the site lists of the lanes (fault-step-sites.txt:
# "failed|never FUNCTION LINE CALL", "unlisted FUNCTION:LINE") joined: a
# NOTE with the sites failed in either lane, and the verdict "sites".
fault_sites() {
	local f
	for f; do
		[[ -s $f ]] || { echo "FAIL sites ($f missing)"; return 1; }
	done
	awk '$1 == "unlisted" { extra[$2] = 1; next }
		{ k = $2 " " $3; if (!(k in st)) { order[++n] = k; st[k] = "never" }
		  if ($1 == "failed") st[k] = "failed" }
		END { for (i = 1; i <= n; i++) { t++; if (st[order[i]] == "failed") h++
			else { split(order[i], a, " "); nv = nv s a[1] ":" a[2]; s = " " } }
		      for (e in extra) { un = un u e; u = " " }
		      printf "NOTE sites failed %d of %d (both lanes); never failed: %s\n", h, t, nv
		      if (un != "") printf "NOTE failed sites that alloc-sites.sh does not list: %s\n", un
		      print "PASS sites" }' "$@"
}

debug_fault() {
	local rc=0 pid
	mkdir -p "$DEBUG_FAULT_DIR/out"
	fault_lane 1 "$FAULT_LANE1" >"$DEBUG_FAULT_DIR/lane1.log" 2>&1 &
	pid=$!
	fault_lane 2 "$FAULT_LANE2" >"$DEBUG_FAULT_DIR/lane2.log" 2>&1 || rc=1
	wait "$pid" || rc=1
	cat "$DEBUG_FAULT_DIR/lane1.log" "$DEBUG_FAULT_DIR/lane2.log"
	cat "$DEBUG_FAULT_DIR/lane1.txt" "$DEBUG_FAULT_DIR/lane2.txt" >"$DEBUG_FAULT_DIR/out/results.txt"
	fault_sites "$DEBUG_FAULT_DIR"/lane[12]/out/64-fault-step.d/fault-step-sites.txt \
		>>"$DEBUG_FAULT_DIR/out/results.txt" || rc=1
	return "$rc"
}

# The fuzz lane of make check-debug: FUZZ_TOTAL IUs of srp-hostile's fuzz
# mode, half in ring mode and half with the shared receive queue. The debug
# kernel sends FUZZ_KASAN_IUS per mode (KASAN, lockdep and kmemleak make
# it about five times slower: 24 IUs per second against 121-141 on
# Debian's kernel, 2026-12-07); Debian's kernel, which the guests boot with
# slub_debug=FZPU (red zones, poisoning, free checks) and KFENCE guarding
# every allocation it samples (kfence.sample_interval=1), sends the rest.
# Both use seeds of their own (not make check's 0x62), in batches of
# FUZZ_BATCH IUs (400) with a health check after each, and drains that end
# after 20 ms without a response (62-fuzz's defaults, as in make check). Measured on Debian's
# kernel, ring mode, 3,000 IUs (2026-12-07): 105 IUs per second with
# batches of 100 and -q 100 (logins 12.8 s of 29.1, drains 10.6), 171
# with -q 20, 203 with -q 20 and batches of 400 (logins 8.8 s of 15.1:
# 83 channels closed by the target after bad IUs, each logged in again).
# Side by side in two 1-vCPU guests (FUZZ_LANES=2, 2026-12-07, 1,001,014
# IUs in 2,434 s): 23-26 IUs per second on the debug kernel, 322 (ring)
# and 357 (SRQ) on Debian's.
DEBUG_FUZZ_DIR=$CHECK_DIR/debug-fuzz
FUZZ_TOTAL=${FUZZ_TOTAL:-1000000}
FUZZ_KASAN_IUS=${FUZZ_KASAN_IUS:-10000}

# fuzz_run KIND MODES IUS SEED RATE SMP: 62-fuzz on KIND (debug or
# debian) in the receive MODES (ring, srq or ring,srq) with IUS IUs per
# mode, in a guest of SMP vCPUs; its sub-results prefixed KIND/ in
# $DEBUG_FUZZ_DIR/KIND-MODES.txt. The guest gets the time of its modes at
# RATE IUs per second (half the rate measured) and 15 minutes more, not a
# share of CHECK_BUDGET: the lane is long by design, and a run slower than
# that fails as unfinished.
fuzz_run() {
	local kind=$1 modes=$2 dir=$DEBUG_FUZZ_DIR/$1-${2/,/-} limit n rc=0
	n=$(($(tr -cd , <<<"$modes" | wc -c) + 1))
	limit=$((n * $3 / $5 + 900))
	echo "$kind $modes: $3 IUs per mode, seed $4, $6 vCPU, guest time limit ${limit}s"
	GUEST_KIND=$kind VM_RUN_DIR=$dir VM_SMP=$6 SRPT_TEST_FUZZ_IUS=$3 SRPT_TEST_FUZZ_SEED=$4 \
		SRPT_TEST_FUZZ_BATCH=${FUZZ_BATCH:-400} SRPT_TEST_FUZZ_MODES=$modes \
		SRPT_TEST_FUZZ_ARGS=${FUZZ_ARGS:-} TEST_TIMEOUT=$limit VM_TIMEOUT=$limit \
		tools/testing/vm.sh run 62-fuzz || rc=$?
	[[ $kind == debug ]] && kind=kasan
	if [[ -f $dir/out/results.txt ]]; then
		sed -E "s#^(PASS|FAIL|SKIP) #\1 $kind/#; s#^NOTE #NOTE $kind #" \
			"$dir/out/results.txt" >"$dir.txt"
	else
		echo "FAIL $kind/62-fuzz: the $modes guest left no results" >"$dir.txt"
	fi
	return "$rc"
}

# fuzz_kind KIND IUS SEED RATE: both receive modes on KIND, with
# FUZZ_LANES=2 (the default) side by side in two guests of one vCPU (ring
# from SEED, SRQ from SEED + 1, as 62-fuzz numbers them), with
# FUZZ_LANES=1 one after the other in one guest of two vCPUs.
fuzz_kind() {
	local rc=0 pid
	if [[ ${FUZZ_LANES:-2} == 1 ]]; then
		fuzz_run "$1" ring,srq "$2" "$3" "$4" 2 || rc=1
		cat "$DEBUG_FUZZ_DIR/$1-ring-srq.txt" >>"$DEBUG_FUZZ_DIR/out/results.txt"
		return "$rc"
	fi
	fuzz_run "$1" ring "$2" "$3" "$4" 1 >"$DEBUG_FUZZ_DIR/$1-ring.log" 2>&1 &
	pid=$!
	fuzz_run "$1" srq "$2" $(($3 + 1)) "$4" 1 >"$DEBUG_FUZZ_DIR/$1-srq.log" 2>&1 || rc=1
	wait "$pid" || rc=1
	cat "$DEBUG_FUZZ_DIR/$1-ring.log" "$DEBUG_FUZZ_DIR/$1-srq.log"
	cat "$DEBUG_FUZZ_DIR/$1-ring.txt" "$DEBUG_FUZZ_DIR/$1-srq.txt" \
		>>"$DEBUG_FUZZ_DIR/out/results.txt"
	return "$rc"
}

# fuzz_total RESULTS: the IUs and reports of the lane's NOTE lines; a
# PASS or FAIL "total" line with them
fuzz_total() {
	local line kind ius reports sum=0 bad=0 by='' re
	# "NOTE KIND 62-fuzz/fuzz-MODE: seed=S ius=N ... reports=R"
	re='^NOTE ([a-z]+) [0-9a-z-]+/fuzz-[a-z]+: .* ius=([0-9]+) .*reports=([0-9]+)'
	while read -r line; do
		[[ $line =~ $re ]] || continue
		kind=${BASH_REMATCH[1]} ius=${BASH_REMATCH[2]} reports=${BASH_REMATCH[3]}
		sum=$((sum + ius))
		bad=$((bad + reports))
		by+=" $kind:$ius"
	done <"$1"
	echo "NOTE total: $sum IUs sent (${by# }), $bad reports" >>"$1"
	if ((sum >= FUZZ_TOTAL && bad == 0)) && ! grep -q '^FAIL' "$1"; then
		echo "PASS total" >>"$1"
	else
		echo "FAIL total" >>"$1"
		return 1
	fi
}

debug_fuzz() {
	local rest rc=0
	rest=$(((FUZZ_TOTAL - 2 * FUZZ_KASAN_IUS + 1) / 2))
	((rest > 0)) || rest=0
	mkdir -p "$DEBUG_FUZZ_DIR/out"
	: >"$DEBUG_FUZZ_DIR/out/results.txt"
	fuzz_kind debug "$FUZZ_KASAN_IUS" 0x1000 12 || rc=1
	if ((rest)); then
		fuzz_kind debian "$rest" 0x2000 100 || rc=1
	fi
	fuzz_total "$DEBUG_FUZZ_DIR/out/results.txt" || rc=1
	return "$rc"
}

# add_subresults FILE PREFIX: count the PASS/FAIL/SKIP lines of FILE.
add_subresults() {
	local line
	[[ -f $1 ]] || return 0
	while read -r line; do
		[[ $line =~ ^(PASS|FAIL|SKIP)[[:space:]]+([^[:space:]].*)$ ]] || continue
		record "${BASH_REMATCH[1]} $2${BASH_REMATCH[2]}"
	done <"$1"
}

# host_checks: the stages that need neither a guest nor root. They use
# one CPU each at most, and the guest stage's QEMU leaves about a third of
# two CPUs idle (133 % measured), so a whole make check runs them beside
# it at nice 19 (CHECK_SERIAL=1: before it, in the order of the header).
# At nice 0 they made the guest's first tests 66 s slower.
host_checks() {
	want_stage checkpatch && stage checkpatch checkpatch  # andand: ok stage records its own verdict
	want_stage kernel-doc && stage kernel-doc kerneldoc  # andand: ok stage records its own verdict
	want_stage man && stage man man_pages  # andand: ok stage records its own verdict
	want_stage doc && stage doc doc_check  # andand: ok stage records its own verdict
	want_stage scripts && stage scripts shellcheck_scripts  # andand: ok stage records its own verdict
	want_stage in-tree && stage in-tree in_tree  # andand: ok stage records its own verdict
	return 0
}

# Run -----------------------------------------------------------------------

# Everything runs from main, so that bash has read the whole script before
# it starts: editing the file during a run cannot derail it.
main() {
	echo "ib_srpt make check: logs in $CHECK_DIR"
	want_stage fresh && stage fresh fresh_machine  # andand: ok stage records its own verdict
	[[ ${NO_DEPS:-0} == 1 ]] || stage deps install_deps
	if want_stage build; then
		stage build build && BUILD_OK=1  # andand: ok the build verdict is recorded, BUILD_OK keeps it
	elif [[ -f ib_srpt.ko ]]; then
		BUILD_OK=1
	fi
	want_stage sparse && stage sparse sparse_check  # andand: ok stage records its own verdict
	want_stage harness && stage harness harness_selftest  # andand: ok stage records its own verdict
	local beside=0 host_pid=
	if want_stage guest && ((BUILD_OK)) && [[ ${CHECK_SERIAL:-0} != 1 ]]; then
		beside=1
	else
		host_checks
	fi
	local debug_ok=0
	if want_debug_stage debug-kernel || want_debug_stage debug ||
		want_debug_stage debug-siw || want_debug_stage debug-fault ||
		want_debug_stage debug-fuzz; then
		stage debug-kernel debug_kernel && debug_ok=1  # andand: ok the verdict is recorded, debug_ok keeps it
	fi
	local dkms_pid=
	if want_stage dkms && ((BUILD_OK)) && want_stage kunit && ((beside)); then
		# KUnit's guest runs its cases one at a time: one CPU is idle.
		echo "(dkms runs beside the kunit stage)"
		(
			renice -n 19 -p "$BASHPID" >/dev/null
			stage dkms dkms_stage
		) >"$CHECK_DIR/dkms-beside.out" 2>&1 &
		dkms_pid=$!
	fi
	want_stage kunit && stage -s "$KUNIT_SUB" kunit kunit  # andand: ok stage records its own verdict
	if [[ -n $dkms_pid ]]; then
		wait "$dkms_pid" || true
		cat "$CHECK_DIR/dkms-beside.out"
	elif want_stage dkms; then
		if ((BUILD_OK)); then
			stage dkms dkms_stage
		else
			record "FAIL dkms"
			echo "FAIL dkms (not run: the build failed)"
		fi
	fi
	if want_stage guest; then
		if ((BUILD_OK)); then
			if ((beside)); then
				echo "(checkpatch, kernel-doc, man, doc, scripts and in-tree run beside the guest stage)"
				(
					# Only what QEMU leaves idle.
					renice -n 19 -p "$BASHPID" >/dev/null
					HOST_CHECKS_BESIDE=1 host_checks
				) >"$CHECK_DIR/host-checks.out" 2>&1 &
				host_pid=$!
			fi
			stage -s "$GUEST_DIR/out/results.txt" guest guest
			if [[ -n $host_pid ]]; then
				wait "$host_pid" || true
				cat "$CHECK_DIR/host-checks.out"
			fi
		else
			record "FAIL guest"
			echo "FAIL guest (not run: the build failed)"
		fi
	fi
	if want_fabric_stage; then
		if ((BUILD_OK)) || [[ ${SRPT:-ours} == stock ]]; then
			stage -s "$FABRIC_DIR/out/results.txt" fabric fabric_stage
		else
			record "FAIL fabric"
			echo "FAIL fabric (not run: the build failed)"
		fi
	fi
	if [[ -n ${STAGES:-} ]] && want_stage ceph-gw; then
		if ((BUILD_OK)) || [[ ${SRPT:-ours} == stock ]]; then
			stage -s "$CEPH_GW_DIR/out/results.txt" ceph-gw ceph_gw_stage
		else
			record "FAIL ceph-gw"
			echo "FAIL ceph-gw (not run: the build failed)"
		fi
	fi
	for lane in debug:debug_rxe:$DEBUG_DIR debug-siw:debug_siw:$DEBUG_SIW_DIR \
		debug-fault:debug_fault:$DEBUG_FAULT_DIR debug-fuzz:debug_fuzz:$DEBUG_FUZZ_DIR; do
		IFS=: read -r name fn dir <<<"$lane"
		want_debug_stage "$name" || continue
		if ((debug_ok)); then
			stage -s "$dir/out/results.txt" "$name" "$fn"
		else
			record "FAIL $name"
			echo "FAIL $name (not run: no debug kernel)"
		fi
	done
	if [[ ${CHECK_STOCK:-0} == 1 ]]; then
		stage -s "$GUEST_STOCK_DIR/out/results.txt" guest-stock guest_stock
	fi

	pass=$(grep -c '^PASS' "$SUMMARY")
	fail=$(grep -c '^FAIL' "$SUMMARY")
	skip=$(grep -c '^SKIP' "$SUMMARY")
	echo
	if ((fail)); then
		echo "failed:"
		grep '^FAIL' "$SUMMARY" | sed 's/^FAIL /  /'
	fi
	echo "total time $((SECONDS - T_START))s; logs in $CHECK_DIR"
	if ((skip)); then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	((fail == 0))
}

# CHECK_SH_LIB=1: define the functions only (harness-selftest.sh).
if [[ ${CHECK_SH_LIB:-0} == 1 ]]; then
	return 0
fi
main "$@"; exit
