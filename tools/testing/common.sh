# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host-side helpers shared by vm.sh, check.sh, kunit.sh, debug-kernel.sh,
# demo.sh and tools/bench/run.sh, with log.sh's log and die. Source it; do
# not run it.
#
# Environment:
#   IB_SRPT_CACHE  cache for the guest kernel, the initramfs and the extracted
#                  linux-source tree (default /var/tmp/ib_srpt-cache). Never
#                  inside the repository.
#   IB_SRPT_RESULTS  where guest runs keep their logs
#                  (default /var/tmp/ib_srpt-results).
#   KDIR           kernel build tree (default: see find_kdir).

# shellcheck disable=SC2034 # used by the scripts that source this file
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${IB_SRPT_CACHE:-/var/tmp/ib_srpt-cache}
# shellcheck disable=SC2034
RESULTS_BASE=${IB_SRPT_RESULTS:-/var/tmp/ib_srpt-results}

# log and die
# shellcheck source=tools/testing/log.sh
. "$REPO/tools/testing/log.sh"

# find_kdir: print the kernel build directory to build against: $KDIR if set,
# else /lib/modules/$(uname -r)/build, else the newest installed
# /usr/src/linux-headers-6.12*-amd64.
find_kdir() {
	local d
	if [[ -n ${KDIR:-} ]]; then
		echo "$KDIR"
		return
	fi
	d=/lib/modules/$(uname -r)/build
	if [[ -d $d ]]; then
		echo "$d"
		return
	fi
	d=$(find /usr/src -maxdepth 1 -name 'linux-headers-6.12*-amd64' | sort -V | tail -n1)
	[[ -n $d ]] || return 1
	echo "$d"
}

# kver_of KDIR: kernel release of a build tree.
kver_of() {
	cat "$1/include/config/kernel.release"
}

# The guest kernel: Debian's 6.12 image matching the installed headers.
guest_kver() {
	local k
	k=$(find_kdir) || die "no kernel headers found (install linux-headers-6.12-amd64)"
	kver_of "$k"
}

# deb_version PKG: version of an installed package.
deb_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null
}

# apt_download PKG=VER DIR: fetch a .deb without installing it (with an
# apt-get update and a second try when the package lists are stale).
apt_download() {
	local spec=$1 dir=$2
	mkdir -p "$dir"
	chmod 777 "$dir"	# apt drops privileges to _apt for downloads
	(cd "$dir" && apt-get download -q "$spec") >&2 && return
	apt-get update -q >&2 || return
	(cd "$dir" && apt-get download -q "$spec") >&2
}

# prepare_source: extract linux-source-6.12 into $CACHE/linux-source-6.12 once
# (checkpatch.pl, kernel-doc, the in-tree build and KUnit use it). Prints the
# path.
prepare_source() {
	local tarball=/usr/src/linux-source-6.12.tar.xz
	local dst=$CACHE/linux-source-6.12 ver
	ver=$(deb_version linux-source-6.12)
	[[ -f $tarball ]] || die "$tarball missing (apt-get install linux-source-6.12)"
	if [[ ! -f $dst/.ib_srpt-ready || $(cat "$dst/.ib_srpt-ready") != "$ver" ]]; then
		log "extracting $tarball into $CACHE (once)"
		rm -rf "$dst" "$dst.tmp"
		mkdir -p "$dst.tmp"
		tar -xf "$tarball" -C "$dst.tmp"
		mv "$dst.tmp/linux-source-6.12" "$dst"
		rmdir "$dst.tmp"
		echo "$ver" > "$dst/.ib_srpt-ready"
	fi
	echo "$dst"
}

# Debian packages the build, the checks, the guest, the demo and the bench
# (python3-matplotlib for its plots) need.
PACKAGES=(build-essential make gcc bc bison flex libelf-dev libssl-dev dwarves
	kmod cpio xz-utils file python3 perl
	linux-headers-6.12-amd64 linux-source-6.12
	qemu-system-x86 busybox-static sparse shellcheck
	iproute2 rdma-core ibverbs-utils srptools sg3-utils fio nvme-cli
	targetcli-fb dbus libibverbs-dev librdmacm-dev libibumad-dev
	python3-docutils python3-matplotlib dmsetup jq multipath-tools
	dkms debhelper dh-dkms)
# More for one target only (make check-ha: resource-agents libxml2-utils
# drbd-utils pacemaker pacemaker-cli-utils corosync; ceph-mon ceph-mgr
# ceph-osd ceph-common for ceph-cluster.sh, which starts its own daemons;
# Debian's units are per-instance templates, and installing them through
# this list (78 packages, 36 s, 2026-12-07) started no daemon).
read -r -a _extra_packages <<<"${EXTRA_PACKAGES:-}"
PACKAGES+=("${_extra_packages[@]}")

# Packages whose daemons must not run on this host: the HA tests run
# corosync and Pacemaker in the guests only (which see the host's /), and
# Debian starts and enables both on installation, corosync with a one-node
# example configuration.
HOST_NO_DAEMONS=(corosync pacemaker)

# install_deps: install the missing PACKAGES (apt-get update first; nothing
# when all are installed). When that installs one of HOST_NO_DAEMONS, a
# policy-rc.d (unless there is one) keeps its service from starting, and
# host_daemons_off disables it.
install_deps() {
	local -a missing=() quiet=()
	local p sudo='' rc=0 policy=/usr/sbin/policy-rc.d made=0
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	if ((${#missing[@]} == 0)); then
		echo "all ${#PACKAGES[@]} packages installed"
		return 0
	fi
	echo "installing: ${missing[*]}"
	((EUID == 0)) || sudo=sudo
	for p in "${missing[@]}"; do
		[[ " ${HOST_NO_DAEMONS[*]} " != *" $p "* ]] || quiet+=("$p")
	done
	if ((${#quiet[@]})) && [[ ! -e $policy ]]; then
		printf '#!/bin/sh\n# ib_srpt install_deps: no cluster daemons here\ncase $1 in %s) exit 101 ;; esac\nexit 0\n' \
			"$(IFS='|'; echo "${quiet[*]}")" | $sudo tee "$policy" >/dev/null || return
		$sudo chmod 755 "$policy" || return
		made=1
	fi
	$sudo apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
			--no-install-recommends "${missing[@]}" || rc=$?
	((made == 0)) || $sudo rm -f "$policy" || rc=1
	((${#quiet[@]} == 0)) || host_daemons_off "${quiet[@]}" || rc=1
	return "$rc"
}

# host_daemons_off SERVICE...: the services just installed neither run nor
# start at boot: disabled and stopped under systemd; without it, a daemon
# that runs anyway (corosync, pacemakerd) is stopped.
host_daemons_off() {
	local sudo='' s pid
	((EUID == 0)) || sudo=sudo
	if [[ -d /run/systemd/system ]]; then
		$sudo systemctl disable --now "$@" || return
	fi
	for s in "$@"; do
		[[ $s != pacemaker ]] || s=pacemakerd
		pid=$(pidof "$s") || continue
		echo "stopping $s ($pid), started by its installation"
		# shellcheck disable=SC2086 # one or more PIDs
		$sudo kill $pid || return
	done
}
