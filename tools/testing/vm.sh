#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh - boot Debian's 6.12 kernel in QEMU (TCG) and run ib_srpt tests in it.
#
# Usage: tools/testing/vm.sh [run [TEST...]]   run guest tests (default: all)
#        tools/testing/vm.sh prepare           fetch/build the guest kernel
#                                              and initramfs into the cache
#        tools/testing/vm.sh exec SCRIPT       run one script (a path inside
#                                              the repository's tools/) with
#                                              its output on the terminal
#        tools/testing/vm.sh shell             interactive guest shell
#                                              (Ctrl-A x quits QEMU)
#        tools/testing/vm.sh fabric [TEST...]  two guests, "target" and
#                                              "initiator", joined by two
#                                              virtual Ethernet links with
#                                              soft-RoCE on each; runs
#                                              tools/testing/fabric/*.sh
#                                              (see lib-fabric.sh); with
#                                              FABRIC_NODES=3 three guests,
#                                              "initiator", "nodeA" and
#                                              "nodeB" (the HA pair)
#
# The guest's root file system is the host's / (read-only 9p + tmpfs overlay),
# so every host tool is available in it. The run directory (shared read-write
# on /ib_srpt) holds a copy of tools/, the module under test and out/ with
# the results; it is kept under $IB_SRPT_RESULTS.
#
# Environment:
#   GUEST_KIND=debian|debug  boot Debian's kernel (default) or the debug
#                     kernel of tools/testing/debug-kernel.sh (KASAN, lockdep,
#                     kmemleak, ...; it must have been built). The debug
#                     guest has no stock ib_srpt; without KO, ib_srpt.ko is
#                     built against it in the run directory. The guest runs
#                     tests/debug/debug-detectors.sh first (a kernel without
#                     the detectors fails every test) and
#                     tests/debug/debug-kmemleak.sh last.
#   SRPT=ours|stock   test our ib_srpt.ko (default) or the guest kernel's own
#   KO=PATH           module to test (default: ib_srpt.ko in the repository)
#   TESTS="01-load 02*"  tests to run (names or globs; also positional args)
#   TESTS_EXCLUDE="11-configfs ..."  names of tests to leave out of TESTS
#   VM_EXTRA_MODULES="X.ko ..."  more modules for the guest's updates/ (for
#                     instance siw.ko built for Debian's kernel, which
#                     lacks soft-iWARP)
#   TEST_TIMEOUT=600  per-test limit in seconds (vm.sh fabric: 1200; its
#                     failover tests take up to 10 minutes on a loaded host;
#                     2400 with FABRIC_NODES=3, whose 10-ha-drbd boots
#                     its nodes again)
#   VM_TIMEOUT=2400   limit for the whole guest run in seconds (3600 for
#                     vm.sh fabric with FABRIC_NODES=3)
#   VM_MEM=4G VM_SMP=2  guest size
#   FABRIC_MEM=1536M FABRIC_SMP=1  size of each guest of "vm.sh fabric"
#                     (FABRIC_MEM defaults to 1G with FABRIC_NODES=3)
#   FABRIC_NODES=2|3  "vm.sh fabric": two guests (default) or three: the
#                     initiator and the HA pair nodeA and nodeB, links
#                     initiator-nodeA (1), initiator-nodeB (2) and
#                     nodeA-nodeB (3). Default 3 when a test named on the
#                     command line has the header line "# fabric-nodes 3";
#                     each test runs only in the topology it is written for
#   VM_QEMU_EXTRA="OPT..."  more QEMU options, split on blanks (tools/bench
#                     uses "-icount shift=5,sleep=off,align=off")
#   FABRIC_QEMU_EXTRA_<ROLE>="OPT..."  "vm.sh fabric": more QEMU options
#                     for the guest of ROLE only (target, initiator, nodeA,
#                     nodeB), split on blanks; a node that boots again
#                     (fabric_boot) keeps them (ceph-gateway-run.sh: a
#                     tap NIC on the Ceph bridge for nodeA and nodeB)
#   CEPH_DIR=DIR      "vm.sh fabric": the directory of a running
#                     ceph-cluster.sh cluster; the host agent then also
#                     serves the ceph_* requests (fabric_host_agent)
#   VM_DEBUG_ARGS="..."  memory-debugging kernel parameters of every boot
#                     (default "slub_debug=FZPU kfence.sample_interval=1": a
#                     use-after-free or overrun is reported, and the guest
#                     dmesg scan fails the test; "" switches them off; the
#                     debug kernel's default: KFENCE every 10 ms and lockup
#                     and stall limits for a slow emulated KASAN kernel)
#   VM_QEMU=PATH      the QEMU binary (default qemu-system-x86_64)
#   SRPT_TEST_*=...   passed into the guest's environment (see the tests;
#                     SRPT_TEST_RDMA=rxe|siw picks the soft RDMA driver)
#   VERBOSE=1         show the whole guest console, not only progress lines
#   VM_RUN_DIR=DIR    use DIR as the run directory (default: a new one)
#   CI=true           passed into the guest: a test or sub-case that would skip
#                     for a missing tool or kernel feature fails instead
#
# A guest that dies before its test runner starts (no out/STARTED) is booted
# once more; results.txt then has a "NOTE vm: ..." line saying why.
#
# Exit status: 0 when every test passed or was skipped.

set -euo pipefail

# shellcheck source=tools/testing/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SRPT=${SRPT:-ours}
TEST_TIMEOUT=${TEST_TIMEOUT:-}
# (its default depends on the mode: main)
VM_TIMEOUT=${VM_TIMEOUT:-}
VM_MEM=${VM_MEM:-4G}
VM_SMP=${VM_SMP:-2}
INITRAMFS_MODULES="netfs 9pnet 9pnet_virtio 9p overlay"

GUEST_KIND=${GUEST_KIND:-debian}
if [[ ${VM_SH_LIB:-0} == 1 ]]; then
	: # functions only (harness-selftest.sh)
else
	case $GUEST_KIND in
	debian)
		KVER=$(guest_kver)
		GUEST=$CACHE/guest-$KVER
		;;
	debug)
		GUEST=$("$REPO/tools/testing/debug-kernel.sh" dir) || exit 1
		KVER=$(cat "$GUEST/kernel.release")
		[[ $SRPT != stock ]] || die "the debug kernel has no stock ib_srpt (SRPT=stock)"
		;;
	*) die "GUEST_KIND=$GUEST_KIND: debian or debug" ;;
	esac
fi

# prepare_kernel: download Debian's linux-image package for $KVER, unpack it
# into $GUEST, decompress its modules and run depmod. Done once.
prepare_kernel() {
	local ver tmp deb moddir pkg
	[[ -f $GUEST/.ready ]] && return 0
	[[ $GUEST_KIND == debian ]] || die "$GUEST is not ready"
	ver=$(deb_version "linux-headers-$KVER") ||
		die "linux-headers-$KVER is not installed"
	log "preparing guest kernel $KVER ($ver) in $GUEST (once)"
	tmp=$GUEST.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for pkg in "linux-image-$KVER" "linux-image-$KVER-unsigned"; do
		apt_download "$pkg=$ver" "$tmp/deb" && break
	done
	deb=$(find "$tmp/deb" -name 'linux-image-*.deb' | head -n1)
	[[ -n $deb ]] || die "could not download linux-image-$KVER=$ver"
	dpkg-deb -x "$deb" "$tmp/root"
	rm -rf "$tmp/deb"
	moddir=$tmp/root/lib/modules/$KVER
	[[ -d $moddir ]] || moddir=$tmp/root/usr/lib/modules/$KVER
	[[ -d $moddir ]] || die "no modules in $deb"
	mkdir -p "$tmp/lib/modules"
	mv "$moddir" "$tmp/lib/modules/$KVER"
	mv "$tmp/root/boot/vmlinuz-$KVER" "$tmp/vmlinuz"
	rm -rf "$tmp/root"
	log "decompressing modules"
	find "$tmp/lib/modules" -name '*.ko.xz' -print0 | xargs -0 -r -n 64 -P "$(nproc)" xz -d
	depmod -b "$tmp" "$KVER"
	rm -rf "$GUEST"
	mv "$tmp" "$GUEST"
	touch "$GUEST/.ready"
}

# prepare_initramfs: busybox-static + the 9p/overlay modules + guest/init.
prepare_initramfs() {
	local stage sum m f
	sum=$( (cat "$REPO/tools/testing/guest/init" "$0"; echo "$INITRAMFS_MODULES"; \
		sha256sum /bin/busybox) | sha256sum | cut -c1-16)
	if [[ -f $GUEST/initramfs-$sum.cpio.gz ]]; then
		touch "$GUEST/initramfs-$sum.cpio.gz"
		echo "$GUEST/initramfs-$sum.cpio.gz"
		return
	fi
	file -L /bin/busybox | grep -q 'statically linked' ||
		die "/bin/busybox is not static (apt-get install busybox-static)"
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,mods,proc,sys,dev,newroot}
	cp /bin/busybox "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	for m in $INITRAMFS_MODULES; do
		f=$(find "$GUEST/lib/modules/$KVER" -name "$m.ko" | head -n1)
		[[ -n $f ]] || die "module $m.ko not found for $KVER"
		cp "$f" "$stage/mods/"
	done
	cp "$REPO/tools/testing/guest/init" "$stage/init"
	chmod 755 "$stage/init"
	# Other checkouts may be booting their own initramfs right now: only
	# those unused for a day go.
	find "$GUEST" -maxdepth 1 -name 'initramfs-*.cpio.gz' -mtime +1 -delete
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$GUEST/initramfs-$sum.cpio.gz"
	rm -rf "$stage"
	echo "$GUEST/initramfs-$sum.cpio.gz"
}

# module_tree: the guest's /lib/modules for this run, in
# $RUN_DIR/modules/lib/modules: the cached module tree (through symlinks,
# which resolve in the guest as its root is the host's /), with SRPT=ours
# our module as updates/ib_srpt.ko, and depmod's index files. depmod runs
# here because it takes minutes in the guest.
module_tree() {
	local base=$RUN_DIR/modules d=$RUN_DIR/modules/lib/modules/$KVER f
	rm -rf "$base"
	mkdir -p "$d"
	for f in kernel modules.order modules.builtin modules.builtin.modinfo; do
		ln -s "$GUEST/lib/modules/$KVER/$f" "$d/$f"
	done
	if [[ $SRPT != stock ]]; then
		mkdir -p "$d/updates"
		cp "$RUN_DIR/ib_srpt.ko" "$d/updates/ib_srpt.ko"
	fi
	for f in ${VM_EXTRA_MODULES:-}; do
		mkdir -p "$d/updates"
		cp "$f" "$d/updates/"
	done
	depmod -b "$base" "$KVER"
	if [[ $SRPT != stock ]] && ! grep -q '^updates/ib_srpt.ko:' "$d/modules.dep"; then
		die "depmod did not pick up updates/ib_srpt.ko"
	fi
}

prepare() {
	local t0=$SECONDS
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock-guest"
	flock 9
	prepare_kernel
	INITRD=$(prepare_initramfs)
	flock -u 9
	log "guest kernel ready ($((SECONDS - t0))s)"
}

# Summarise out/results.txt; mark tests the guest never reported as failed.
summarise() {
	local out=$1 pass fail skip t
	if [[ ! -f $out/DONE ]]; then
		# Tests that never reported count as failed.
		local unreported=""
		if [[ -f $out/planned.txt ]]; then
			while read -r t; do
				grep -Eq "^(PASS|FAIL|SKIP) $t(:|\$)" "$out/results.txt" 2>/dev/null ||
					unreported+="FAIL $t: did not finish (guest crash or VM_TIMEOUT)"$'\n'
			done <"$out/planned.txt"
		fi
		printf '%s' "$unreported" >>"$out/results.txt"
		echo "FAIL vm: the guest did not finish (crash or timeout); see $RUN_DIR/console.log" \
			>>"$out/results.txt"
	fi
	pass=$(grep -c '^PASS' "$out/results.txt" || true)
	fail=$(grep -c '^FAIL' "$out/results.txt" || true)
	skip=$(grep -c '^SKIP' "$out/results.txt" || true)
	grep '^NOTE' "$out/results.txt" >&2 || true
	if ((fail)); then
		log "failures:"
		grep '^FAIL' "$out/results.txt" >&2
		log "logs: $out/ (console: $RUN_DIR/console.log, guest dmesg: $out/dmesg.log)"
	fi
	log "guest tests: $pass passed, $fail failed, $skip skipped (results in $RUN_DIR)"
	((fail == 0))
}

# boot_once MODE: one boot of "${qemu[@]}" with the console in
# $RUN_DIR/console.log; returns QEMU's status (124: VM_TIMEOUT).
boot_once() {
	local mode=$1 t0=$SECONDS rc
	log "booting guest ($mode, SRPT=$SRPT, ${KVER:-?}), run directory $RUN_DIR"
	set +e
	if [[ $mode == exec || ${VERBOSE:-0} == 1 ]]; then
		timeout -k 10 "$VM_TIMEOUT" "${qemu[@]}" </dev/null 2>&1 |
			tee "$RUN_DIR/console.log" | tr -d '\r'
	else
		timeout -k 10 "$VM_TIMEOUT" "${qemu[@]}" </dev/null 2>&1 |
			tee "$RUN_DIR/console.log" | tr -d '\r' | sed -un 's/^@@ /  /p'
	fi
	rc=${PIPESTATUS[0]}
	set -e
	log "guest finished after $((SECONDS - t0))s (qemu status $rc)"
	((rc == 124)) && log "the guest run hit VM_TIMEOUT=${VM_TIMEOUT}s"
	return "$rc"
}

# boot_guest MODE: boot; when the guest died before its test runner started
# (no out/STARTED: Debian's kernel under TCG very rarely oopses in early
# boot), keep that console as console-boot1.log, say so in out/results.txt
# as a NOTE line and boot once more. A guest that dies after the runner
# started is never booted again: that stays a failure.
boot_guest() {
	local mode=$1 rc=0
	boot_once "$mode" || rc=$?
	[[ $mode == shell || -f $RUN_DIR/out/STARTED ]] && return "$rc"
	mv "$RUN_DIR/console.log" "$RUN_DIR/console-boot1.log"
	log "the guest died before its test runner started (qemu status $rc;" \
		"console: $RUN_DIR/console-boot1.log): booting once more"
	echo "NOTE vm: boot 1 died before the test runner started" \
		"(qemu status $rc, console-boot1.log: $(boot_death "$RUN_DIR/console-boot1.log")); booted again" \
		>"$RUN_DIR/boot-retry.txt"
	rc=0
	boot_once "$mode" || rc=$?
	mkdir -p "$RUN_DIR/out"
	cat "$RUN_DIR/boot-retry.txt" >>"$RUN_DIR/out/results.txt"
	return "$rc"
}

# boot_death CONSOLE: the first line of CONSOLE that tells why the guest
# died, or "no reason printed".
boot_death() {
	local line
	line=$(tr -d '\r' <"$1" | grep -Em1 'Oops|BUG|panic|Kernel panic|initramfs:|invalid opcode' || true)
	echo "${line:-no reason printed}" | cut -c1-160
}

# test_env_exports: "export NAME=VALUE" lines for the guest's env file, one
# per SRPT_TEST_* variable, each value quoted (%q): a value with blanks, "|"
# or ";" arrives whole and runs nothing.
test_env_exports() {
	local v
	for v in $(compgen -e | grep -E '^SRPT_TEST_[A-Z0-9_]*$' || true); do
		printf 'export %s=%q\n' "$v" "${!v}"
	done
}

# build_guest_tools: build the guest's C tools (srp-hostile, srp-login) in
# the run's copy of tools/ here, where the compiler runs natively: the guest's
# userspace is this machine's. The tests use them when their sources match;
# if a build fails here, the guest builds the tool itself.
build_guest_tools() {
	make -s -C "$RUN_DIR/tools/srp-hostile" clean all >"$RUN_DIR/tools-build.log" 2>&1 ||
		log "building srp-hostile on the host failed (see $RUN_DIR/tools-build.log)"
	# shellcheck disable=SC2016 # expanded by the inner bash
	CP_BIN=$RUN_DIR/tools/testing/cp/bin bash -c '. "$1" && cp_tool' _ \
		"$RUN_DIR/tools/testing/lib-cp.sh" >>"$RUN_DIR/tools-build.log" 2>&1 ||
		log "building srp-login on the host failed (see $RUN_DIR/tools-build.log)"
}

main() {
	local mode=${1:-run} script="" append ko
	[[ $# -gt 0 ]] && shift
	case $mode in
	prepare) prepare; exit 0 ;;
	run|fabric) [[ $# -gt 0 ]] && TESTS="$*" ;;
	exec) script=${1:?usage: vm.sh exec SCRIPT} ;;
	shell) ;;
	-h|--help|help) sed -n '3,/^# Exit status/p' "$0"; exit 0 ;;
	*) die "unknown command $mode (run, prepare, exec, shell, fabric)" ;;
	esac
	if [[ $mode == fabric ]]; then
		FABRIC_NODES=${FABRIC_NODES:-$(fabric_nodes_of_tests)}
		[[ $FABRIC_NODES == [23] ]] || die "FABRIC_NODES=$FABRIC_NODES: 2 or 3"
		[[ -z ${CEPH_DIR:-} || -f $CEPH_DIR/ceph.conf ]] ||
			die "CEPH_DIR=$CEPH_DIR holds no ceph.conf (ceph-cluster.sh start it first)"
		if ((FABRIC_NODES == 3)); then
			VM_MEM=${FABRIC_MEM:-1G}
		else
			VM_MEM=${FABRIC_MEM:-1536M}
		fi
		VM_SMP=${FABRIC_SMP:-1}
		if ((FABRIC_NODES == 3)); then
			TEST_TIMEOUT=${TEST_TIMEOUT:-2400}
			VM_TIMEOUT=${VM_TIMEOUT:-3600}
		fi
		TEST_TIMEOUT=${TEST_TIMEOUT:-1200}
	fi
	TEST_TIMEOUT=${TEST_TIMEOUT:-600}
	VM_TIMEOUT=${VM_TIMEOUT:-2400}

	prepare
	RUN_DIR=${VM_RUN_DIR:-$RESULTS_BASE/$(date +%Y%m%d-%H%M%S)-$mode-$SRPT-$$}
	mkdir -p "$RUN_DIR/out"
	RUN_DIR=$(cd "$RUN_DIR" && pwd)
	rm -rf "$RUN_DIR/tools" "$RUN_DIR/Documentation" "$RUN_DIR/ib_srpt.ko" "$RUN_DIR/modules" "$RUN_DIR/out"/*
	cp -r "$REPO/tools" "$RUN_DIR/tools"
	# The driver's source: tools/testing/alloc-sites.sh reads it there
	# (64-fault-step).
	cp "$REPO/ib_srpt.c" "$RUN_DIR/ib_srpt.c"
	# The guest sees the run directory, never the host's checkout (whose
	# path, under /tmp say, may not exist in the guest).
	mkdir -p "$RUN_DIR/Documentation"
	cp -r "$REPO/Documentation/modprobe.d" "$RUN_DIR/Documentation/"
	build_guest_tools
	if [[ $SRPT != stock && $GUEST_KIND == debug && -z ${KO:-} ]]; then
		log "building ib_srpt.ko against the debug kernel"
		"$REPO/tools/testing/debug-kernel.sh" module "$RUN_DIR/ko-build" >"$RUN_DIR/ko-build.log" 2>&1 ||
			{ tail -n 20 "$RUN_DIR/ko-build.log" >&2; die "building ib_srpt.ko for $KVER failed"; }
		KO=$RUN_DIR/ko-build/ib_srpt.ko
	fi
	if [[ $SRPT != stock ]]; then
		ko=${KO:-$REPO/ib_srpt.ko}
		[[ -f $ko ]] || die "$ko not built (run make, or use SRPT=stock)"
		[[ $(modinfo -F vermagic "$ko") == "$KVER "* ]] ||
			die "$ko is built for $(modinfo -F vermagic "$ko" | cut -d' ' -f1), not $KVER"
		cp "$ko" "$RUN_DIR/ib_srpt.ko"
	fi
	module_tree
	if [[ $mode == exec ]]; then
		script=$(realpath -m --relative-to="$REPO" "$script")
		[[ $script == tools/* && -f $RUN_DIR/$script ]] ||
			die "exec: $script is not a file under tools/"
	fi
	{
		printf 'MODE=%q\nSRPT=%q\nTESTS=%q\nTESTS_EXCLUDE=%q\nTEST_TIMEOUT=%q\nSCRIPT=%q\n' \
			"$mode" "$SRPT" "${TESTS:-*}" "${TESTS_EXCLUDE:-}" "$TEST_TIMEOUT" "$script"
		printf 'BOOT_TRACE=%q\nGUEST_KIND=%q\n' "${BOOT_TRACE:-0}" "$GUEST_KIND"
		test_env_exports
		[[ $mode != fabric ]] || printf 'export FABRIC_NODES=%q\n' "$FABRIC_NODES"
		# CI=true: the tests fail instead of skipping for a missing tool
		[[ -z ${CI:-} ]] || printf 'export CI=%q\n' "$CI"
	} >"$RUN_DIR/env"

	append="console=ttyS0,115200 panic=-1 log_buf_len=16M loglevel=4 mitigations=off"
	# no_timer_check: on a loaded host, TCG can be too slow for the IO-APIC
	# timer check ("IO-APIC + timer doesn't work!" panic at 0.016 s).
	append+=" nokaslr no_timer_check 8250.nr_uarts=1 ibsrpt_moddir=/ib_srpt/modules/lib/modules"
	if [[ $GUEST_KIND == debug ]]; then
		# KASAN watches every access already; the lockup and stall
		# detectors get the longest limits (TCG under load is slow).
		append+=" ${VM_DEBUG_ARGS-kfence.sample_interval=10 watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300}"
		# no5lvl: QEMU's "max" CPU has LA57. While identify_cpu() has
		# cleared the boot CPU's feature bits, KASAN takes the 5-level
		# direct map for wild addresses: an interrupt that comes in then
		# gets a false report, which turns lockdep off for the whole run.
		append+=" no5lvl"
		# slub_debug=A: every cache may fail allocations when failslab's
		# cache-filter is on (64-fault-step takes kmemleak's and
		# debugobjects' own caches out); with it off nothing changes.
		append+=" slub_debug=A"
	else
		append+=" ${VM_DEBUG_ARGS-slub_debug=FZPU kfence.sample_interval=1 init_on_alloc=0}"
	fi
	# shellcheck disable=SC2054 # commas belong to QEMU's option syntax
	qemu=("${VM_QEMU:-qemu-system-x86_64}" -machine q35,accel=tcg -cpu max -smp "$VM_SMP"
		-m "$VM_MEM" -nographic -no-reboot -nic none
		-kernel "$GUEST/vmlinuz" -initrd "$INITRD" -append "$append"
		-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$RUN_DIR,mount_tag=share,security_model=none,multidevs=remap")
	local -a qemu_extra=()
	read -r -a qemu_extra <<<"${VM_QEMU_EXTRA:-}"
	qemu+=("${qemu_extra[@]}")

	if [[ $mode == fabric ]]; then
		if ((FABRIC_NODES == 3)); then
			boot_fabric3 "$append" || true
		else
			boot_fabric "$append" || true
		fi
		summarise "$RUN_DIR/out"
		return
	fi
	if [[ $mode == shell ]]; then
		log "booting guest ($mode, SRPT=$SRPT, ${KVER:-?}), run directory $RUN_DIR"
		"${qemu[@]}"
		exit 0
	fi
	boot_guest "$mode" || true
	if [[ $mode == exec ]]; then
		[[ -f $RUN_DIR/out/DONE ]] || die "guest did not finish; see $RUN_DIR/console.log"
		exit "$(cat "$RUN_DIR/out/exec.status" 2>/dev/null || echo 1)"
	fi
	summarise "$RUN_DIR/out"
}

# fabric_nodes_of_tests: print 3 when a test named in TESTS (a name, not a
# glob) under tools/testing/fabric/ has the header line "# fabric-nodes 3",
# else 2.
fabric_nodes_of_tests() {
	local t f
	local -a names
	IFS=', ' read -r -a names <<<"${TESTS:-}"
	for t in "${names[@]}"; do
		f=$REPO/tools/testing/fabric/${t%.sh}.sh
		if [[ -f $f ]] && head -n 5 "$f" | grep -qx '# fabric-nodes 3'; then
			echo 3
			return
		fi
	done
	echo 2
}

# free_ports N [udp]: print N TCP (or UDP) ports on 127.0.0.1 that
# nothing has bound.
free_ports() {
	python3 -c '
import socket, sys
kind = socket.SOCK_DGRAM if sys.argv[2:] == ["udp"] else socket.SOCK_STREAM
socks = [socket.socket(socket.AF_INET, kind) for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()' "$@"
}

# listening PORT: true if a socket listens on 127.0.0.1:PORT.
listening() {
	[[ -n $(ss -Hltn "sport = :$1" 2>/dev/null) ]]
}

# qmp_set_link SOCKET NETDEV on|off: QEMU's set_link through the QMP
# socket SOCKET of a running guest: the NIC on NETDEV loses or regains its
# carrier (frames in both directions are dropped while it is off).
qmp_set_link() {
	qmp_run "$1" set_link "$2" "$3"
}

# qmp_quit SOCKET: QEMU's quit through the QMP socket SOCKET: the guest
# stops at once, as a machine whose power is cut (no shutdown, its disks'
# caches and its network connections simply end).
qmp_quit() {
	qmp_run "$1" quit
}

# qmp_run SOCKET set_link NETDEV on|off | SOCKET quit: one QMP command.
qmp_run() {
	python3 - "$@" <<'PY'
import json, socket, sys
path, what = sys.argv[1:3]
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(path)
f = s.makefile("rw")
json.loads(f.readline())  # the greeting
if what == "quit":
    cmds = [{"execute": "qmp_capabilities"}, {"execute": "quit"}]
else:
    name, state = sys.argv[3:5]
    cmds = [{"execute": "qmp_capabilities"},
            {"execute": "set_link", "arguments": {"name": name, "up": state == "on"}}]
for cmd in cmds:
    f.write(json.dumps(cmd) + "\n")
    f.flush()
    while True:  # skip asynchronous events
        line = f.readline()
        if not line and cmd["execute"] == "quit":
            m = {"return": {}}  # the guest is gone
            break
        m = json.loads(line)
        if "return" in m or "error" in m:
            break
    if "error" in m:
        sys.exit("QMP %s: %s" % (cmd["execute"], m["error"].get("desc")))
if what == "quit":
    print("guest of %s: quit" % path)
else:
    print("target guest: %s carrier %s" % (name, state))
PY
}

# fabric_host_agent QMP SPOOL STOP [ROLE=QMP... boot=DIR ceph=DIR]: serve the
# guests' requests to the host ("fabric_on host ..." in lib-fabric.sh, files
# in SPOOL) until STOP exists. Two guests (no ROLE=QMP): the host serves one
# request only, "fabric_carrier LINK on|off" with LINK 1 or 2: the target
# guest's NIC on LINK loses or regains its carrier (QEMU's set_link
# through the target's QMP socket QMP): a cable pulled at the target, its
# addresses and routes stay. Three guests (FABRIC_NODES=3: the QMP sockets
# of nodeA and nodeB given as nodeA=PATH nodeB=PATH, QMP unused):
# "fabric_carrier LINK on|off" with LINK 1 (nodeA's end), 2 (nodeB's) or 3
# (nodeA's end of the link between the nodes), and "fabric_kill nodeA|nodeB":
# that guest's QEMU quits (power cut; qmp_quit) and SPOOL/../ROLE/DEAD tells
# fabric_on that no agent will answer there any more. With boot=DIR (the
# run directory, where boot_fabric3 left each node's command line) also
# "fabric_boot nodeA|nodeB": a node killed before boots again
# (fabric_node_again). With ceph=DIR (CEPH_DIR, the gateway tests) also
# the requests of ceph_request on the cluster in DIR. Anything else is
# refused (status 2). One request at a time: a long one (ceph_wait_clean,
# at most CEPH_AGENT_WAIT_MAX s) holds back every other until it ends.
fabric_host_agent() {
	local qmp=$1 dir=$2 stop=$3 req id rc kv sock boot=
	local ceph=''
	local -a w
	local -A node=()
	shift 3
	for kv in "$@"; do
		if [[ $kv == boot=* ]]; then
			boot=${kv#boot=}
		elif [[ $kv == ceph=* ]]; then
			ceph=${kv#ceph=}
		else
			node[${kv%%=*}]=${kv#*=}
		fi
	done
	mkdir -p "$dir"
	: >"$dir/READY"
	while [[ ! -e $stop ]]; do
		for req in "$dir"/*.req; do
			[[ -e $req ]] || continue
			id=${req%.req}
			mv "$req" "$id.run" || continue
			w=()
			read -r -a w <"$id.run" || true
			rc=0 sock=
			if ((${#node[@]} == 0)) && [[ ${#w[@]} == 3 && ${w[0]} == fabric_carrier &&
				${w[1]} =~ ^[12]$ && ${w[2]} =~ ^(on|off)$ ]]; then
				sock=$qmp
			elif ((${#node[@]})) && [[ ${#w[@]} == 3 && ${w[0]} == fabric_carrier &&
				${w[1]} =~ ^[123]$ && ${w[2]} =~ ^(on|off)$ ]]; then
				sock=${node[nodeA]}
				[[ ${w[1]} != 2 ]] || sock=${node[nodeB]}
			fi
			if [[ -n $sock ]]; then
				log "host: ${w[*]}"
				qmp_set_link "$sock" "link${w[1]}" "${w[2]}" >"$id.out" 2>&1 || rc=$?
			elif ((${#node[@]})) && [[ ${#w[@]} == 2 && ${w[0]} == fabric_kill &&
				${w[1]} =~ ^node[AB]$ ]]; then
				log "host: ${w[*]}"
				qmp_quit "${node[${w[1]}]}" >"$id.out" 2>&1 || rc=$?
				if ((rc == 0)); then
					mkdir -p "$dir/../${w[1]}"
					: >"$dir/../${w[1]}/DEAD"
				fi
			elif ((${#node[@]})) && [[ -n $boot && ${#w[@]} == 2 && ${w[0]} == fabric_boot &&
				${w[1]} =~ ^node[AB]$ ]]; then
				log "host: ${w[*]}"
				fabric_node_again "${w[1]}" "$boot" "$dir/.." >"$id.out" 2>&1 || rc=$?
			elif [[ -n $ceph && ${w[0]:-} == ceph_* ]]; then
				log "host: ${w[*]}"
				ceph_request "$ceph" "${w[@]}" >"$id.out" 2>&1 || rc=$?
			else
				echo "host: not a request the host serves: ${w[*]}" >"$id.out"
				rc=2
			fi
			echo "$rc" >"$id.rc.tmp"
			mv "$id.rc.tmp" "$id.rc"
		done
		sleep 0.2
	done
}

# CEPH_AGENT_WAIT_MAX: the longest ceph_wait_clean the host agent serves
# (seconds; it serves nothing else meanwhile).
CEPH_AGENT_WAIT_MAX=${CEPH_AGENT_WAIT_MAX:-300}

# ceph_request DIR REQUEST...: a gateway test's request on the Ceph cluster
# of tools/testing/ceph-cluster.sh in DIR, each checked word by word:
# "ceph_kill_osd ID" (SIGKILL to osd.ID, ID one digit), "ceph_start_osd ID"
# (start it again), "ceph_wait_clean SECONDS" (until HEALTH_OK with every PG
# active+clean, 1 to CEPH_AGENT_WAIT_MAX s) and "ceph_image_sha256" (print
# the SHA-256 of the whole image CEPH_IMAGE, default img0, as "rbd export"
# reads it with client.admin in the cluster's namespace). Anything else:
# status 2.
ceph_request() {
	local d=$1 cc=$REPO/tools/testing/ceph-cluster.sh
	shift
	if [[ $# == 2 && $1 == ceph_kill_osd && $2 =~ ^[0-9]$ ]]; then
		"$cc" kill-osd "$d" "$2"
	elif [[ $# == 2 && $1 == ceph_start_osd && $2 =~ ^[0-9]$ ]]; then
		"$cc" start-osd "$d" "$2"
	elif [[ $# == 2 && $1 == ceph_wait_clean && $2 =~ ^[1-9][0-9]{0,2}$ ]] &&
		(($2 <= CEPH_AGENT_WAIT_MAX)); then
		"$cc" wait-clean "$d" "$2"
	elif [[ $# == 1 && $1 == ceph_image_sha256 ]]; then
		ceph_image_sha256 "$d"
	else
		echo "host: not a Ceph request the host serves: $*"
		return 2
	fi
}

# ceph_image_sha256 DIR: print the SHA-256 (64 hex digits) of the image
# CEPH_IMAGE (default img0) of the cluster in DIR, read with "rbd export".
ceph_image_sha256() {
	local -
	set -o pipefail
	"$REPO/tools/testing/ceph-cluster.sh" exec "$1" rbd export --no-progress \
		"rbd/${CEPH_IMAGE:-img0}" - | sha256sum | cut -c1-64
}

# fabric_qemu_extra ROLE: print the options of FABRIC_QEMU_EXTRA_ROLE, one
# a line (split on blanks, as VM_QEMU_EXTRA); nothing when it is unset.
fabric_qemu_extra() {
	local v=FABRIC_QEMU_EXTRA_$1
	local -a a=()
	read -r -a a <<<"${!v:-}"
	if ((${#a[@]})); then
		printf '%s\n' "${a[@]}"
	fi
}

# fabric_node_boot ROLE DIR: start the QEMU of ROLE (nodeA or nodeB of the
# three-guest fabric) in the background with the command line in
# DIR/qemu-ROLE.args (NUL-separated; boot_fabric3 wrote it), limited to
# VM_TIMEOUT s; its pid goes to DIR/qemu-ROLE.pid, its console to
# DIR/console-ROLE.log, from the second boot on to
# DIR/console-ROLE.bootN.log. The runner of a node that boots again writes
# its out/ROLE/dmesg.log and results.txt anew: those of the boot before
# are kept as dmesg.bootN.log and results.bootN.txt (N that boot's
# number). Fails when QEMU has quit 2 s later (a port taken, say).
fabric_node_boot() {
	local role=$1 dir=$2 n=1 console f pid
	local -a args=()
	[[ -f $dir/qemu-$role.args ]] || { echo "no command line for $role in $dir" >&2; return 1; }
	mapfile -d '' -t args <"$dir/qemu-$role.args"
	((${#args[@]})) || { echo "empty command line for $role" >&2; return 1; }
	if [[ -f $dir/qemu-$role.boots ]]; then
		n=$(($(cat "$dir/qemu-$role.boots") + 1))
	fi
	console=$dir/console-$role.log
	if ((n > 1)); then
		console=$dir/console-$role.boot$n.log
		for f in dmesg.log results.txt; do
			if [[ -f $dir/out/$role/$f ]]; then
				mv "$dir/out/$role/$f" "$dir/out/$role/${f%.*}.boot$((n - 1)).${f##*.}"
			fi
		done
	fi
	echo "$n" >"$dir/qemu-$role.boots"
	timeout -k 10 "$VM_TIMEOUT" "${args[@]}" </dev/null >"$console" 2>&1 &
	pid=$!
	echo "$pid" >"$dir/qemu-$role.pid"
	sleep 2
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "$role's QEMU quit at once: $(tail -n 3 "$console")" >&2
		return 1
	fi
	echo "$role: boot $n (pid $pid), console ${console##*/}"
}

# fabric_node_again ROLE DIR SPOOL: "fabric_boot ROLE" of the host agent:
# ROLE, killed before (SPOOL/ROLE/DEAD), boots again (fabric_node_boot
# ROLE DIR) once its old QEMU is gone; its agent's READY and any request
# left unserved in SPOOL/ROLE go first, the DEAD mark once QEMU runs. A
# node that was not killed is not booted (status 1).
fabric_node_again() {
	local role=$1 dir=$2 spool=$3 pid i
	if [[ ! -e $spool/$role/DEAD ]]; then
		echo "$role was not killed: not booted again" >&2
		return 1
	fi
	pid=$(cat "$dir/qemu-$role.pid" 2>/dev/null) || pid=
	if [[ -n $pid ]]; then
		for ((i = 0; i < 150; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "$role's old QEMU (pid $pid) still runs" >&2
			return 1
		fi
	fi
	rm -f "$spool/$role/READY" "$spool/$role"/*.req
	fabric_node_boot "$role" "$dir" || return
	rm -f "$spool/$role/DEAD"
}

# boot_fabric APPEND: "vm.sh fabric": boot the target guest in the
# background (console in console-target.log), its QEMU listening on two
# free local ports, one socket netdev per link; then the initiator guest,
# which connects to them and runs the tests (console.log). QEMU's socket
# netdev needs no privileges: each link is a TCP connection carrying the
# Ethernet frames. The guests' MAC addresses are fixed (lib-fabric.sh
# derives the addresses from them). When the initiator is done the target
# gets 60 s to power off. No second boot on an early death (the NOTE of
# boot_guest): the results say "did not finish". The target's QEMU has a
# QMP socket; fabric_host_agent serves the tests' carrier requests with it.
boot_fabric() {
	local append=$1 ports tpid hpid qmp l rc=0 i
	local -a base=("${qemu[@]}") tq iq port extra
	read -r -a port <<<"$(free_ports 2)"
	((${#port[@]} == 2)) || die "no free TCP ports for the links"
	tq=("${base[@]}") iq=("${base[@]}")
	for i in "${!base[@]}"; do
		if [[ ${base[i]} == "$append" ]]; then
			tq[i]="$append ibsrpt_role=target"
			iq[i]="$append ibsrpt_role=initiator"
		fi
	done
	for l in 1 2; do
		tq+=(-netdev "socket,id=link$l,listen=127.0.0.1:${port[l - 1]}"
			-device "virtio-net-pci,netdev=link$l,mac=52:54:00:52:0$l:01")
		iq+=(-netdev "socket,id=link$l,connect=127.0.0.1:${port[l - 1]}"
			-device "virtio-net-pci,netdev=link$l,mac=52:54:00:52:0$l:02")
	done
	# a short path: a unix socket's path has at most 107 bytes
	qmp=$(mktemp -u /tmp/ib_srpt-qmp.XXXXXX)
	tq+=(-qmp "unix:$qmp,server=on,wait=off")
	mapfile -t extra < <(fabric_qemu_extra target)
	tq+=("${extra[@]}")
	mapfile -t extra < <(fabric_qemu_extra initiator)
	iq+=("${extra[@]}")
	ports="${port[*]}"
	log "booting the target guest (SRPT=$SRPT, ${KVER:-?}, ${VM_SMP} vCPU, $VM_MEM; links on ports $ports), run directory $RUN_DIR"
	timeout -k 10 "$VM_TIMEOUT" "${tq[@]}" </dev/null >"$RUN_DIR/console-target.log" 2>&1 &
	tpid=$!
	for ((i = 0; i < 300; i++)); do
		listening "${port[0]}" && listening "${port[1]}" && break
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.1
	done
	if ! listening "${port[0]}" || ! listening "${port[1]}"; then
		kill "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null || true
		tail -n 5 "$RUN_DIR/console-target.log" >&2
		die "the target guest's QEMU does not listen on $ports"
	fi
	rm -f "$RUN_DIR/out/.host-agent-stop"
	fabric_host_agent "$qmp" "$RUN_DIR/out/spool/host" "$RUN_DIR/out/.host-agent-stop" \
		${CEPH_DIR:+"ceph=$CEPH_DIR"} &
	hpid=$!
	qemu=("${iq[@]}")
	boot_once "fabric, initiator" || rc=$?
	: >"$RUN_DIR/out/.host-agent-stop"
	wait "$hpid" 2>/dev/null || true
	for ((i = 0; i < 600; i++)); do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$tpid" 2>/dev/null; then
		log "the target guest did not power off: stopping it"
		kill "$tpid" 2>/dev/null
	fi
	wait "$tpid" 2>/dev/null || true
	rm -f "$qmp"
	mkdir -p "$RUN_DIR/out/target"
	[[ -f $RUN_DIR/out/target/STARTED ]] ||
		echo "FAIL vm: the target guest's runner did not start; see $RUN_DIR/console-target.log" \
			>>"$RUN_DIR/out/results.txt"
	{ grep -h '^FAIL' "$RUN_DIR/out/target/results.txt" 2>/dev/null || true; } |
		sed 's/^FAIL /FAIL target: /' >>"$RUN_DIR/out/results.txt"
	return "$rc"
}

# boot_fabric3 APPEND: "vm.sh fabric" with FABRIC_NODES=3: the initiator
# (console.log), which runs the tests, and the HA pair's guests nodeA and
# nodeB (consoles in console-nodeA.log, console-nodeB.log) in the
# background. Links 1 (initiator-nodeA) and 2 (initiator-nodeB) are QEMU
# socket netdevs over TCP on free local ports: the initiator listens, the
# nodes connect, so they boot once the initiator's QEMU listens. QEMU's
# listening end takes a new connection after its peer went away (its
# accept is armed again at the end of a connection, net/socket.c), a
# connecting end never connects again: only the initiator, which is never
# killed, listens. Link 3 (nodeA-nodeB) is connectionless, UDP between two
# local ports (udp=PEER,localaddr=OWN), so either node can be killed and
# boot again. MAC addresses as lib-fabric.sh's fabric_mac. Each node has a
# disk, a sparse file of 80 MiB in the run directory (disk-ROLE.img,
# virtio, /dev/vda in the guest: DRBD's lower disk, which keeps its data
# when the node's power is cut; removed at the end) and a QMP socket, with
# which fabric_host_agent serves carrier and kill requests; it also boots
# a killed node again (fabric_boot) with the command line kept in
# qemu-ROLE.args (fabric_node_boot), which holds the role's
# FABRIC_QEMU_EXTRA_<ROLE> options too. When the initiator is done the nodes
# get 60 s to power off; a node killed by fabric_kill is gone already. A
# node whose runner did not start, and the FAIL lines of the nodes' own
# results, are added to the results.
boot_fabric3() {
	local append=$1 rc=0 i r hpid spid pid
	local -a base=("${qemu[@]}") tcp udp q_initiator=() q_nodeA=() q_nodeB=() extra
	local -A qmp=()
	read -r -a tcp <<<"$(free_ports 2)"
	read -r -a udp <<<"$(free_ports 2 udp)"
	((${#tcp[@]} == 2 && ${#udp[@]} == 2)) || die "no free local ports for the links"
	for r in initiator nodeA nodeB; do
		local -n qa=q_$r
		for i in "${!base[@]}"; do
			if [[ ${base[i]} == "$append" ]]; then
				qa+=("$append ibsrpt_role=$r")
			else
				qa+=("${base[i]}")
			fi
		done
		if [[ $r != initiator ]]; then
			# a short path: a unix socket's path has at most 107 bytes
			qmp[$r]=$(mktemp -u /tmp/ib_srpt-qmp.XXXXXX)
			qa+=(-qmp "unix:${qmp[$r]},server=on,wait=off")
			rm -f "$RUN_DIR/disk-$r.img" "$RUN_DIR/qemu-$r.pid" "$RUN_DIR/qemu-$r.boots"
			truncate -s 80M "$RUN_DIR/disk-$r.img"
			qa+=(-drive "file=$RUN_DIR/disk-$r.img,if=virtio,format=raw,cache=unsafe")
		fi
		# the role's own options, which a node's later boots keep
		# (its command line in qemu-ROLE.args)
		mapfile -t extra < <(fabric_qemu_extra "$r")
		qa+=("${extra[@]}")
		unset -n qa
	done
	q_initiator+=(-netdev "socket,id=link1,listen=127.0.0.1:${tcp[0]}"
		-device "virtio-net-pci,netdev=link1,mac=52:54:00:52:01:02"
		-netdev "socket,id=link2,listen=127.0.0.1:${tcp[1]}"
		-device "virtio-net-pci,netdev=link2,mac=52:54:00:52:02:02")
	q_nodeA+=(-netdev "socket,id=link1,connect=127.0.0.1:${tcp[0]}"
		-device "virtio-net-pci,netdev=link1,mac=52:54:00:52:01:01"
		-netdev "socket,id=link3,udp=127.0.0.1:${udp[1]},localaddr=127.0.0.1:${udp[0]}"
		-device "virtio-net-pci,netdev=link3,mac=52:54:00:52:03:01")
	q_nodeB+=(-netdev "socket,id=link2,connect=127.0.0.1:${tcp[1]}"
		-device "virtio-net-pci,netdev=link2,mac=52:54:00:52:02:01"
		-netdev "socket,id=link3,udp=127.0.0.1:${udp[0]},localaddr=127.0.0.1:${udp[1]}"
		-device "virtio-net-pci,netdev=link3,mac=52:54:00:52:03:02")
	printf '%s\0' "${q_nodeA[@]}" >"$RUN_DIR/qemu-nodeA.args"
	printf '%s\0' "${q_nodeB[@]}" >"$RUN_DIR/qemu-nodeB.args"
	log "booting the initiator, then nodeA and nodeB (SRPT=$SRPT, ${KVER:-?}, ${VM_SMP} vCPU, $VM_MEM each; links 1, 2 on TCP ports ${tcp[*]}, link 3 on UDP ports ${udp[*]}), run directory $RUN_DIR"
	# the nodes, once the initiator's QEMU listens on links 1 and 2
	(
		for ((i = 0; i < 300; i++)); do
			all_listening "${tcp[@]}" && break
			sleep 0.1
		done
		if ! all_listening "${tcp[@]}"; then
			echo "the initiator's QEMU does not listen on ${tcp[*]}: the nodes are not booted"
			exit 1
		fi
		for r in nodeA nodeB; do
			fabric_node_boot "$r" "$RUN_DIR" || echo "$r did not boot"
		done
	) >"$RUN_DIR/nodes-boot.log" 2>&1 &
	spid=$!
	rm -f "$RUN_DIR/out/.host-agent-stop"
	fabric_host_agent "" "$RUN_DIR/out/spool/host" "$RUN_DIR/out/.host-agent-stop" \
		nodeA="${qmp[nodeA]}" nodeB="${qmp[nodeB]}" boot="$RUN_DIR" ${CEPH_DIR:+"ceph=$CEPH_DIR"} &
	hpid=$!
	qemu=("${q_initiator[@]}")
	boot_once "fabric, initiator" || rc=$?
	wait "$spid" 2>/dev/null || true
	: >"$RUN_DIR/out/.host-agent-stop"
	wait "$hpid" 2>/dev/null || true
	if grep -q . "$RUN_DIR/nodes-boot.log" 2>/dev/null; then
		log "nodes' boots: $(tr '\n' ';' <"$RUN_DIR/nodes-boot.log")"
	fi
	for r in nodeA nodeB; do
		# the QEMU of the node's last boot (fabric_node_boot)
		pid=$(cat "$RUN_DIR/qemu-$r.pid" 2>/dev/null) || pid=
		for ((i = 0; i < 600; i++)); do
			if [[ -z $pid ]] || ! kill -0 "$pid" 2>/dev/null; then
				break
			fi
			sleep 0.1
		done
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			log "the $r guest did not power off: stopping it"
			kill "$pid" 2>/dev/null || true
			sleep 1
		fi
		rm -f "${qmp[$r]}" "$RUN_DIR/disk-$r.img"
		mkdir -p "$RUN_DIR/out/$r"
		[[ -f $RUN_DIR/out/$r/STARTED ]] ||
			echo "FAIL vm: the $r guest's runner did not start; see $RUN_DIR/console-$r.log" \
				>>"$RUN_DIR/out/results.txt"
		# (results.bootN.txt: a boot before, see fabric_node_boot)
		{ grep -h '^FAIL' "$RUN_DIR/out/$r"/results*.txt 2>/dev/null || true; } |
			sed "s/^FAIL /FAIL $r: /" >>"$RUN_DIR/out/results.txt"
	done
	return "$rc"
}

# all_listening PORT...: true if a socket listens on each 127.0.0.1:PORT.
all_listening() {
	local p
	for p in "$@"; do
		listening "$p" || return 1
	done
}

# VM_SH_LIB=1: define the functions only (harness-selftest.sh uses them).
[[ ${VM_SH_LIB:-0} == 1 ]] && return 0
main "$@"; exit
