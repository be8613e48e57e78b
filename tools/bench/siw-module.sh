#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# siw-module.sh - build soft-iWARP (siw.ko) for Debian's 6.12 kernel, which
# is configured without it (CONFIG_RDMA_SIW is not set), as an external
# module: the sources of drivers/infiniband/sw/siw of linux-source-6.12
# against the installed headers (KDIR). Prints the path of siw.ko.
#
# Usage: tools/bench/siw-module.sh        build once (cached), print the path
#        VM_EXTRA_MODULES=$(tools/bench/siw-module.sh) tools/testing/vm.sh ...
#
# The guest then loads it with "modprobe siw" (vm.sh installs it into
# updates/ and runs depmod, so ib_core, iw_cm's users and libcrc32c come
# first). The module is unsigned: Debian's kernel loads it and marks itself
# tainted (E), which matters for nothing here.
#
# Output: $IB_SRPT_CACHE/siw-<release>/siw.ko (rebuilt when the source
# package or the headers change). Environment: KDIR (see common.sh).

set -euo pipefail

# shellcheck source=tools/testing/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../testing/common.sh"

kdir=$(find_kdir) || die "no kernel headers found (install linux-headers-6.12-amd64)"
kver=$(kver_of "$kdir")
mkdir -p "$CACHE"
exec 9>"$CACHE/.linux-source.lock"
flock 9
src=$(prepare_source)
flock -u 9

out=$CACHE/siw-$kver
stamp="$(cat "$src/.ib_srpt-ready") $(deb_version "linux-headers-$kver")"
if [[ -f $out/siw.ko && -f $out/.stamp && $(cat "$out/.stamp") == "$stamp" ]]; then
	echo "$out/siw.ko"
	exit 0
fi

exec 8>"$CACHE/.siw-$kver.lock"
flock 8
log "building siw.ko for $kver in $out" >&2
rm -rf "$out"
mkdir -p "$out/build"
cp "$src"/drivers/infiniband/sw/siw/*.[ch] "$src/drivers/infiniband/sw/siw/Makefile" "$out/build/"
make -s -C "$kdir" M="$out/build" CONFIG_RDMA_SIW=m modules >&2 ||
	die "building siw.ko failed"
[[ $(modinfo -F vermagic "$out/build/siw.ko" | cut -d' ' -f1) == "$kver" ]] ||
	die "siw.ko was built for another kernel than $kver"
cp "$out/build/siw.ko" "$out/siw.ko"
echo "$stamp" >"$out/.stamp"
echo "$out/siw.ko"
