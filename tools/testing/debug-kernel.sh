#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - the debug guest kernel: linux-source-6.12 (the guest's
# own version) with KASAN, lockdep, kmemleak, DEBUG_OBJECTS, UBSAN, KFENCE,
# fault injection and the lockup detectors, plus the drivers the guest tests
# use (soft-RoCE and soft-iWARP among them). Configuration: x86_64_defconfig +
# kvm_guest.config + tools/testing/debug/ib_srpt-debug.config.
#
# Usage: tools/testing/debug-kernel.sh build     build it once (cold about
#                                                18 min on 2 idle cores),
#                                                print its directory
#        tools/testing/debug-kernel.sh dir       print its directory; fails
#                                                when it is not built
#        tools/testing/debug-kernel.sh module DIR [KUNIT]
#                                                build ib_srpt.ko from the
#                                                repository against it in
#                                                DIR (KUNIT=1: with the
#                                                KUnit suite compiled in)
#
# The kernel lives in $IB_SRPT_CACHE/debug-<source version>-<hash of the
# configuration recipe>/: src/ a hard-link copy of the shared pristine
# linux-source-6.12 tree (prepare_source; never written), build/ the O=
# directory (kept: modules are built against it), vmlinuz, lib/modules/ and
# kernel.release, the layout vm.sh expects of a guest kernel (GUEST_KIND=debug).
# Another configuration gets another directory; older ones are removed.
#
# Environment: JOBS (make jobs, default nproc + 1), IB_SRPT_CACHE.

set -euo pipefail

# shellcheck source=tools/testing/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

FRAGMENT=$REPO/tools/testing/debug/ib_srpt-debug.config
# Changes to the steps below that change the kernel: bump this.
RECIPE="x86_64_defconfig kvm_guest.config ib_srpt-debug.config v1"
JOBS=${JOBS:-$(($(nproc) + 1))}

# debug_dir: the kernel's directory for the installed linux-source-6.12 and
# the current configuration fragment.
debug_dir() {
	local ver hash
	ver=$(deb_version linux-source-6.12) || die "linux-source-6.12 is not installed"
	hash=$( (echo "$RECIPE"; cat "$FRAGMENT") | sha256sum | cut -c1-12)
	echo "$CACHE/debug-$ver-$hash"
}

build_kernel() {
	local dir pristine stamp src obj rel t0=$SECONDS old
	dir=$(debug_dir)
	mkdir -p "$CACHE"
	exec 7>"$CACHE/.debug-kernel.lock"
	if ! flock -n 7; then
		log "another debug kernel build holds $CACHE/.debug-kernel.lock; waiting"
		flock 7
	fi
	if [[ -f $dir/.ready ]]; then
		echo "$dir"
		return
	fi
	exec 9>"$CACHE/.linux-source.lock"
	flock 9
	pristine=$(prepare_source)
	flock -u 9
	exec 9>&-
	stamp=$(cat "$pristine/.ib_srpt-ready")
	for old in "$CACHE"/debug-*; do
		[[ -d $old && $old != "$dir" ]] || continue
		log "removing the old debug kernel $old"
		rm -rf "$old"
	done
	src=$dir/src
	obj=$dir/build
	if [[ ! -f $src/.ib_srpt-debug || $(cat "$src/.ib_srpt-debug") != "$stamp" ]]; then
		log "creating $src (hard links to $pristine)"
		rm -rf "$dir"
		mkdir -p "$dir"
		cp -al "$pristine" "$src.tmp"
		mv "$src.tmp" "$src"
		echo "$stamp" >"$src/.ib_srpt-debug"
	fi
	mkdir -p "$obj"
	# Configured once; an interrupted build resumes where it stopped.
	if [[ $(cat "$obj/.ib_srpt-configured" 2>/dev/null) != "${dir##*-}" ]]; then
		log "configuring $obj"
		make -s -C "$src" O="$obj" x86_64_defconfig
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			"$src/kernel/configs/kvm_guest.config" "$FRAGMENT" >"$obj/merge_config.log"
		make -s -C "$src" O="$obj" olddefconfig
		check_config "$obj/.config" || return
		echo "${dir##*-}" >"$obj/.ib_srpt-configured"
	fi
	log "building the debug kernel in $obj with -j$JOBS (log $obj/build.log)"
	if ! make -C "$src" O="$obj" -j"$JOBS" bzImage modules >"$obj/build.log" 2>&1; then
		grep -E 'error|Error' "$obj/build.log" | head -n 30 >&2
		die "the debug kernel build failed; see $obj/build.log"
	fi
	rel=$(cat "$obj/include/config/kernel.release")
	rm -rf "${dir:?}/lib"
	make -s -C "$src" O="$obj" INSTALL_MOD_PATH="$dir" INSTALL_MOD_STRIP=1 \
		modules_install >>"$obj/build.log" 2>&1
	rm -f "$dir/lib/modules/$rel/build" "$dir/lib/modules/$rel/source"
	cp "$obj/arch/x86/boot/bzImage" "$dir/vmlinuz"
	echo "$rel" >"$dir/kernel.release"
	touch "$dir/.ready"
	log "debug kernel $rel built in $((SECONDS - t0))s (load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo "$dir"
}

# check_config CONFIG: the options the debug lane relies on survived
# olddefconfig (a dependency that is not met drops an option silently).
check_config() {
	local opt bad=0
	while read -r opt; do
		[[ $opt =~ ^CONFIG_[A-Z0-9_]+=[ym]$ ]] || continue
		grep -qx "$opt" "$1" && continue
		echo "debug kernel config: $opt requested, got: $(grep "^${opt%%=*}=" "$1" || echo 'not set')" >&2
		bad=1
	done <"$FRAGMENT"
	((bad == 0)) || { log "fix $FRAGMENT"; return 1; }
}

# build_module DIR [KUNIT]: ib_srpt.ko from the repository's sources, built
# against the debug kernel in DIR (a copy, so the repository's own
# ib_srpt.ko for Debian's kernel stays). With KUNIT=1 the KUnit suite is
# compiled in (CONFIG_INFINIBAND_SRPT_KUNIT_TEST, which the out-of-tree
# build cannot take from Kconfig): loading that module runs the suite.
build_module() {
	local out=$1 kunit=${2:-0} dir f
	dir=$(debug_dir)
	[[ -f $dir/.ready ]] || die "the debug kernel is not built (tools/testing/debug-kernel.sh build)"
	rm -rf "$out"
	mkdir -p "$out"
	for f in "$REPO"/Kbuild "$REPO"/ib_srpt.c "$REPO"/ib_srpt.h \
		"$REPO"/ib_srpt_trace.h "$REPO"/ib_srpt_test.c "$REPO"/*.inc; do
		[[ -f $f ]] && cp "$f" "$out/"
	done
	if [[ $kunit == 1 ]]; then
		echo 'ccflags-y += -DCONFIG_INFINIBAND_SRPT_KUNIT_TEST=1' >>"$out/Kbuild"
	fi
	# DWARF (the kernel has none): 64-fault-step maps the return
	# addresses of stack dumps to source lines with addr2line.
	echo 'ccflags-y += -g' >>"$out/Kbuild"
	make -C "$dir/build" M="$out" CONFIG_INFINIBAND_SRPT=m W=1 modules
	[[ -f $out/ib_srpt.ko ]] || die "$out/ib_srpt.ko not built"
}

case ${1:-} in
build) build_kernel ;;
dir)
	d=$(debug_dir)
	[[ -f $d/.ready ]] || die "the debug kernel is not built (tools/testing/debug-kernel.sh build)"
	echo "$d"
	;;
module) build_module "${2:?usage: debug-kernel.sh module DIR [KUNIT]}" "${3:-0}" ;;
*) sed -n '3,26p' "$0"; exit 2 ;;
esac
