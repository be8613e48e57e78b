#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ceph-gateway-run.sh - run the Ceph RBD gateway test (issue 25,
# tools/testing/fabric/11-ceph-gateway.sh): a Ceph cluster on this host
# (ceph-cluster.sh), a tap device per gateway on the cluster's bridge, and
# the three guests of "FABRIC_NODES=3 vm.sh fabric" started inside the
# cluster's network namespace, so that the gateways' QEMUs open the taps
# there.
#
# Usage: tools/testing/ceph-gateway-run.sh [RUN_DIR]
#
# RUN_DIR is vm.sh's run directory (default: VM_RUN_DIR, else a new one
# under IB_SRPT_RESULTS); out/results.txt there has the verdicts. Run it
# as root, with the packages of ceph-cluster.sh (ceph-mon, ceph-mgr,
# ceph-osd, ceph-common) and those of vm.sh installed.
#
# What it does:
#   1. ceph-cluster.sh start CLUSTER: a new cluster in CLUSTER (default
#      $IB_SRPT_RESULTS/ceph-gw-cluster-PID), HEALTH_OK, namespace
#      srpt-ceph-PID with the bridge cephbr0 (CEPH_NET.1, 10.212.10.1)
#   2. tapgw1 and tapgw2: persistent tap devices in that namespace, ports
#      of cephbr0, for nodeA (gateway 1, MAC 52:54:00:52:0a:11, in the
#      guest CEPH_NET.11) and nodeB (gateway 2, ...:12, CEPH_NET.12); the
#      MAC addresses are those lib-fabric.sh looks for
#   3. RUN_DIR/ceph/: ceph.conf for the gateways (the cluster's monitor
#      addresses, the key's path in the guests) and client.srpt's keyring,
#      which the guests read at /ib_srpt/ceph/ over 9p
#   4. "ip netns exec NS vm.sh fabric 11-ceph-gateway" with FABRIC_NODES=3,
#      FABRIC_QEMU_EXTRA_nodeA/nodeB (the tap NICs; kept when a node boots
#      again), CEPH_DIR=CLUSTER (the host agent's ceph_* requests) and
#      SRPT_TEST_CEPH_* for the test. The guests' socket links use
#      127.0.0.1: the namespace's own loopback, which ceph-cluster.sh
#      brings up; all three QEMUs run in the namespace
#   5. on any exit (a failure, Ctrl-C): vm.sh and its process group
#      stopped, QEMUs left in the namespace stopped (by PID), the taps
#      removed, the cluster's logs copied to RUN_DIR/ceph-log/, the
#      cluster stopped (namespace gone) and destroyed (CEPH_GW_KEEP=1
#      keeps its files)
#
# Environment: CEPH_GW_CLUSTER=DIR (the cluster's directory; a new one
# unless it holds a cluster already), CEPH_GW_KEEP=1, CEPH_NET and the
# other settings of ceph-cluster.sh, and vm.sh's (KO, SRPT, TEST_TIMEOUT,
# VM_TIMEOUT, ...).
#
# Exit status: vm.sh's (0 when every result passed), 1 when the setup
# failed.

set -euo pipefail

# shellcheck source=tools/testing/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CC=$REPO/tools/testing/ceph-cluster.sh
# (ceph-cluster.sh's settings, and the host agent's image)
export CEPH_NET=${CEPH_NET:-10.212.10}
export CEPH_IMAGE=${CEPH_IMAGE:-img0}
CLUSTER=${CEPH_GW_CLUSTER:-$RESULTS_BASE/ceph-gw-cluster-$$}
RUN=${1:-${VM_RUN_DIR:-$RESULTS_BASE/$(date +%Y%m%d-%H%M%S)-ceph-gw-$$}}
NS=
VM_PID=
TAPS=(tapgw1 tapgw2)

# tap_args N: the QEMU options of gateway N's NIC on tap tapgwN.
tap_args() {
	echo "-netdev tap,id=ceph,ifname=tapgw$1,script=no,downscript=no" \
		"-device virtio-net-pci,netdev=ceph,mac=52:54:00:52:0a:1$1"
}

# taps_up: the gateways' taps in the namespace, ports of cephbr0.
taps_up() {
	local t
	for t in "${TAPS[@]}"; do
		ip -n "$NS" tuntap add dev "$t" mode tap
		ip -n "$NS" link set "$t" master cephbr0 up
	done
}

# client_files: RUN/ceph/ceph.conf and client.srpt's keyring for the
# gateways (paths as the guests see the run directory, /ib_srpt).
client_files() {
	local mon
	mon=$(sed -n 's/^mon host = //p' "$CLUSTER/ceph.conf")
	[[ -n $mon ]] || die "no monitor address in $CLUSTER/ceph.conf"
	mkdir -p "$RUN/ceph"
	install -m 600 "$CLUSTER/ceph.client.srpt.keyring" "$RUN/ceph/ceph.client.srpt.keyring"
	cat >"$RUN/ceph/ceph.conf" <<EOF
# written by tools/testing/ceph-gateway-run.sh for the gateway guests
[global]
mon host = $mon
[client]
keyring = /ib_srpt/ceph/ceph.client.srpt.keyring
log file = /var/log/ceph/\$name.\$pid.log
admin socket = /run/ceph/\$name.\$pid.asok
EOF
}

# ns_qemus: print the PIDs of the QEMUs running in the namespace.
ns_qemus() {
	local p
	[[ -n $NS ]] || return 0
	for p in $(ip netns pids "$NS" 2>/dev/null || true); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == qemu-system-* ]] && echo "$p"
	done
	return 0
}

# stop_pids SECONDS PID...: SIGTERM to each PID, SIGKILL to what still
# runs SECONDS later.
stop_pids() {
	local limit=$1 i
	shift
	(($#)) || return 0
	kill -TERM "$@" 2>/dev/null || true
	for ((i = 0; i < limit * 5; i++)); do
		kill -0 "$@" 2>/dev/null || return 0
		sleep 0.2
	done
	log "still running after ${limit}s, SIGKILL: $*"
	kill -KILL "$@" 2>/dev/null || true
}

# cleanup: on exit: vm.sh (its process group) and any QEMU of this run
# still in the namespace, the taps, the cluster (its logs kept in the run
# directory).
cleanup() {
	local rc=$? t
	trap - EXIT INT TERM
	if [[ -n $VM_PID ]] && kill -0 "$VM_PID" 2>/dev/null; then
		log "stopping vm.sh (process group $VM_PID)"
		kill -TERM -- "-$VM_PID" 2>/dev/null || true
		stop_pids 60 "$VM_PID"
	fi
	# shellcheck disable=SC2046 # PIDs
	stop_pids 20 $(ns_qemus)
	if [[ -n $NS ]]; then
		for t in "${TAPS[@]}"; do
			ip -n "$NS" link del "$t" 2>/dev/null || true
		done
	fi
	if [[ -d $CLUSTER/log ]]; then
		mkdir -p "$RUN/ceph-log"
		cp -r "$CLUSTER/log/." "$RUN/ceph-log/" || true
	fi
	"$CC" stop "$CLUSTER" || rc=1
	if [[ ${CEPH_GW_KEEP:-0} != 1 ]]; then
		"$CC" destroy "$CLUSTER" || rc=1
	fi
	log "cluster stopped$([[ ${CEPH_GW_KEEP:-0} == 1 ]] && echo ", its files kept in $CLUSTER" || echo " and removed"); results in $RUN"
	exit "$rc"
}

main() {
	local rc=0
	((EUID == 0)) || die "run it as root (network namespace, taps, Ceph's daemons)"
	local c
	for c in ceph-mon ceph-mgr ceph-osd ceph rbd; do
		command -v "$c" >/dev/null ||
			die "$c missing (apt-get install --no-install-recommends ceph-mon ceph-mgr ceph-osd ceph-common)"
	done
	mkdir -p "$RUN"
	RUN=$(cd "$RUN" && pwd)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	"$CC" start "$CLUSTER"
	CLUSTER=$(cd "$CLUSTER" && pwd)
	NS=$(cat "$CLUSTER/run/netns")
	taps_up
	client_files
	log "cluster in $CLUSTER (namespace $NS), taps ${TAPS[*]}; guests in $RUN"
	FABRIC_NODES=3 CEPH_DIR=$CLUSTER VM_RUN_DIR=$RUN \
		FABRIC_QEMU_EXTRA_nodeA="$(tap_args 1)" FABRIC_QEMU_EXTRA_nodeB="$(tap_args 2)" \
		SRPT_TEST_CEPH_NET=$CEPH_NET SRPT_TEST_CEPH_CONF=/ib_srpt/ceph/ceph.conf \
		SRPT_TEST_CEPH_IMAGE=rbd/$CEPH_IMAGE \
		ip netns exec "$NS" setsid "$REPO/tools/testing/vm.sh" fabric 11-ceph-gateway &
	VM_PID=$!
	wait "$VM_PID" || rc=$?
	VM_PID=
	return "$rc"
}

main "$@"
