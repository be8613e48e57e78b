#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ceph-cluster.sh - a small real Ceph cluster (Debian 12's Ceph 16.2) for the
# SRP gateway tests (issue 25), run natively on this host inside a network
# namespace of its own.
#
# Usage: tools/testing/ceph-cluster.sh start DIR     create (or restart) the
#                                                    cluster, return at
#                                                    HEALTH_OK, PGs active+clean
#        tools/testing/ceph-cluster.sh stop DIR      stop every daemon, remove
#                                                    the namespace and DIR/run
#        tools/testing/ceph-cluster.sh destroy DIR   stop, then remove all the
#                                                    cluster's files under DIR
#        tools/testing/ceph-cluster.sh status DIR    "ceph -s" (exit 1: down)
#        tools/testing/ceph-cluster.sh exec DIR CMD...  run CMD in the
#                                                    namespace, CEPH_CONF set
#        tools/testing/ceph-cluster.sh kill-osd DIR ID   SIGKILL osd.ID
#        tools/testing/ceph-cluster.sh start-osd DIR ID  start osd.ID again
#        tools/testing/ceph-cluster.sh wait-clean DIR [SECONDS]
#                                                    wait for HEALTH_OK and
#                                                    every PG active+clean
#        tools/testing/ceph-cluster.sh pids DIR      the daemons' PIDs, one
#                                                    "NAME PID" a line
#
# Run it as root. It needs ceph-mon, ceph-mgr, ceph-osd and ceph-common
# (apt-get install --no-install-recommends; Debian's policy-rc.d or the
# absence of systemd keeps apt from starting the packaged daemons, which
# this script does not use).
#
# The network: a namespace "srpt-ceph-PID" (its name is kept in
# DIR/run/netns) with a bridge cephbr0 holding 10.212.10.1/24
# (CEPH_NET=10.212.10), a subnet of the harness's 10.212.x.0/24 range that
# lib-fabric.sh (links 1-3) and tests/16-teardown-unplug.sh (10.212.0.0/24)
# do not use. The namespace has no route anywhere else: the daemons cannot
# reach any other address. Every daemon (mon.a, mgr.x, osd.0-2) listens on
# 10.212.10.1; the monitor on v2:3300 and v1:6789.
#
# The files, all under DIR (nothing in /etc/ceph, /var/lib/ceph or
# /var/log/ceph): ceph.conf, the keyrings (ceph.client.admin.keyring and
# ceph.client.srpt.keyring, a client limited to "profile rbd" on the pool
# rbd, for the gateways), data/<daemon>/ (mon store, mgr keyring, each
# OSD's BlueStore on a sparse file data/osd.N/block of CEPH_OSD_SIZE),
# log/ and run/ (pid files, admin sockets, the namespace's name). "stop"
# removes run/; data and logs stay, and "start" on a DIR that holds a
# cluster starts its daemons again in a new namespace (same address);
# "destroy" removes everything it created.
#
# The cluster: one monitor, one manager, three OSDs on BlueStore; CRUSH
# places replicas on different OSDs (osd_crush_chooseleaf_type 0: all OSDs
# are on one host) and the monitor takes two OSDs' reports as enough to mark
# one down (mon_osd_reporter_subtree_level osd). Pool "rbd": replicated,
# size 2, min_size 1, 32 PGs, no autoscaler; "rbd pool init"; image
# CEPH_IMAGE (default img0, CEPH_IMAGE_SIZE 256M) with the features
# CEPH_IMAGE_FEATURES (default "layering": exclusive-lock, object-map and
# fast-diff left out, so that two gateways can map it at once without a
# lock owner; krbd of 6.12 supports all of them). cephx on; insecure
# global_id reclaim off (clients must reclaim securely, as Ceph 16.2 and
# Linux since 5.12 do; not yet tried with krbd); the monitor's
# free-space warning at 10% instead of 30% (mon_data_avail_warn: the
# monitor shares the host's file system). "start" waits for HEALTH_OK, no
# warnings expected.
#
# Memory (a 2-core, 24 GiB host shared with QEMU guests): BlueStore's cache
# fixed at 64 MiB (bluestore_cache_autotune off), RocksDB memtables of 16 MiB
# (two of them, WAL at most 64 MiB), two op shards of one thread per OSD;
# osd_memory_target 896 MiB, the lowest Ceph 16.2 accepts (a lower value in
# ceph.conf is ignored and the default 4 GiB stays; on the command line it
# is refused), which matters little with the cache not autotuned; the
# monitor's memory target 512 MiB, its RocksDB cache 64 MiB. Measured
# figures are in tools/testing/README.md, "Ceph cluster for the gateway
# tests".
#
# A QEMU guest (a gateway) reaches the cluster through a tap device in the
# namespace, made a port of cephbr0, with QEMU itself started in the
# namespace so that it opens the tap there:
#
#	ns=$(cat DIR/run/netns)
#	ip -n "$ns" tuntap add dev tapgw1 mode tap
#	ip -n "$ns" link set tapgw1 master cephbr0 up
#	ip netns exec "$ns" qemu-system-x86_64 ... \
#		-netdev tap,id=ceph,ifname=tapgw1,script=no,downscript=no \
#		-device virtio-net-pci,netdev=ceph,mac=52:54:00:52:0a:11
#
# (the guest then takes 10.212.10.11/24 and so on). QEMU's socket netdevs
# that lib-fabric.sh uses between guests still work from inside the
# namespace (they are Unix or loopback sockets there; the namespace has its
# own loopback, so a QEMU started outside it cannot join a guest started in
# it through a TCP/UDP socket netdev on 127.0.0.1: start every guest of
# such a test in the namespace, or use Unix socket netdevs). In the guest,
# krbd needs: the modules rbd and libceph (and libcrc32c) of Debian's
# 6.12.118 kernel, all three in /lib/modules/6.12.118+deb12-amd64/kernel
# (CONFIG_BLK_DEV_RBD=m, CONFIG_CEPH_LIB=m), which the guest sees over 9p;
# "rbd map" from ceph-common (also from the host's /), the monitor's
# address and a key:
#
#	rbd map rbd/img0 --id srpt --keyring DIR/ceph.client.srpt.keyring \
#		-m 10.212.10.1:6789 -o noshare   # or --conf DIR/ceph.conf
#
# (DIR visible in the guest, e.g. under the 9p share; msgr1 by default,
# -o ms_mode=crc or secure for msgr2 on port 3300). "rbd map" only needs
# the monitor; the kernel then talks to the OSDs at 10.212.10.1 directly.
#
# Environment:
#   CEPH_NET=10.212.10       the /24 of the namespace (mon at .1)
#   CEPH_OSD_SIZE=4G         sparse size of each OSD's block file
#   CEPH_IMAGE=img0 CEPH_IMAGE_SIZE=256M CEPH_IMAGE_FEATURES=layering
#   CEPH_START_TIMEOUT=600   seconds "start" waits for HEALTH_OK
#   CEPH_STOP_TIMEOUT=20     seconds "stop" waits after SIGTERM before SIGKILL
#
# Exit status: 0 on success; "start" that fails stops whatever it started
# and removes the namespace before it exits non-zero.

set -euo pipefail

CEPH_NET=${CEPH_NET:-10.212.10}
CEPH_OSD_SIZE=${CEPH_OSD_SIZE:-4G}
CEPH_IMAGE=${CEPH_IMAGE:-img0}
CEPH_IMAGE_SIZE=${CEPH_IMAGE_SIZE:-256M}
CEPH_IMAGE_FEATURES=${CEPH_IMAGE_FEATURES:-layering}
CEPH_START_TIMEOUT=${CEPH_START_TIMEOUT:-600}
CEPH_STOP_TIMEOUT=${CEPH_STOP_TIMEOUT:-20}
NOSDS=3
MON_IP=$CEPH_NET.1
BRIDGE=cephbr0

log() {
	printf 'ceph-cluster: %s\n' "$*" >&2
}

die() {
	log "$*"
	exit 1
}

usage() {
	sed -n '/^# Usage:/,/^#   *"NAME PID"/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# set_dir DIR: the globals for the cluster in DIR (an absolute path without
# blanks: it goes into ceph.conf).
set_dir() {
	[[ -n $1 ]] || usage
	if [[ $cmd == start ]]; then
		mkdir -p "$1"
	elif [[ ! -d $1 ]]; then
		die "no such directory: $1"
	fi
	D=$(cd "$1" && pwd)
	[[ $D != *[[:space:]]* ]] || die "DIR must not contain blanks: $D"
	CONF=$D/ceph.conf
	RUN=$D/run
	export CEPH_CONF=$CONF
}

# ns_name: print the namespace of the running cluster (empty if none).
ns_name() {
	cat "$RUN/netns" 2>/dev/null || true
}

# in_ns CMD...: run CMD in the cluster's namespace.
in_ns() {
	local ns
	ns=$(ns_name)
	[[ -n $ns ]] || die "no namespace: is the cluster in $D running?"
	ip netns exec "$ns" "$@"
}

# ceph_cmd ARGS...: the ceph CLI as client.admin, in the namespace.
ceph_cmd() {
	in_ns ceph --connect-timeout 20 "$@"
}

write_conf() {
	local fsid=$1
	cat >"$CONF" <<EOF
# written by tools/testing/ceph-cluster.sh; see its header
[global]
fsid = $fsid
mon host = [v2:$MON_IP:3300,v1:$MON_IP:6789]
public network = $CEPH_NET.0/24
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
run dir = $D/run
pid file = $D/run/\$name.pid
log file = $D/log/\$name.log
crash dir = $D/crash
mon cluster log file = default=$D/log/\$channel.log
mon data avail warn = 10
osd pool default size = 2
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon osd reporter subtree level = osd
mon allow pool delete = true
mgr initial modules = iostat

[mon]
mon data = $D/data/\$name
keyring = $D/data/\$name/keyring
admin socket = $D/run/\$name.asok
mon memory target = 536870912
rocksdb cache size = 67108864

[mgr]
mgr data = $D/data/\$name
keyring = $D/data/\$name/keyring
admin socket = $D/run/\$name.asok

[osd]
osd data = $D/data/\$name
keyring = $D/data/\$name/keyring
admin socket = $D/run/\$name.asok
osd objectstore = bluestore
bluestore block create = true
bluestore block size = $(numfmt --from=iec "$CEPH_OSD_SIZE")
osd memory target = 939524096
bluestore cache autotune = false
bluestore cache size = 67108864
bluestore rocksdb options = compression=kNoCompression,max_write_buffer_number=2,min_write_buffer_number_to_merge=1,recycle_log_file_num=2,write_buffer_size=16777216,writable_file_max_buffer_size=0,compaction_readahead_size=2097152,max_background_compactions=1,max_total_wal_size=67108864
osd op num shards = 2
osd op num threads per shard = 1

[client]
keyring = $D/ceph.client.admin.keyring
log file = $D/log/client.log
EOF
}

# net_up: the namespace, its loopback and the bridge with the monitor's
# address.
net_up() {
	local ns=srpt-ceph-$$
	mkdir -p "$RUN"
	ip netns add "$ns"
	echo "$ns" >"$RUN/netns"
	ip -n "$ns" link set lo up
	ip -n "$ns" link add "$BRIDGE" type bridge
	ip -n "$ns" addr add "$MON_IP/24" dev "$BRIDGE"
	ip -n "$ns" link set "$BRIDGE" up
}

# daemon_pid NAME: print the PID of daemon NAME (mon.a, osd.0, ...) if it
# runs.
daemon_pid() {
	local pid
	pid=$(cat "$RUN/$1.pid" 2>/dev/null) || return 1
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1 # andand: ok the || handles it
	echo "$pid"
}

# launch NAME CMD...: start daemon NAME (it forks; its pid file appears
# when it runs) in the namespace; its stdout and stderr go to log/NAME.out.
launch() {
	local name=$1 i
	shift
	rm -f "$RUN/$name.pid"
	in_ns "$@" >>"$D/log/$name.out" 2>&1 </dev/null
	for ((i = 0; i < 300; i++)); do
		daemon_pid "$name" >/dev/null && return 0
		sleep 0.1
	done
	die "$name did not start; see $D/log/$name.log and $name.out"
}

# wait_mon: until the monitor answers.
wait_mon() {
	local i
	for ((i = 0; i < 60; i++)); do
		ceph_cmd mon stat >/dev/null 2>&1 && return 0
		sleep 1
	done
	die "mon.a does not answer; see $D/log/mon.a.log"
}

start_mon() {
	launch mon.a ceph-mon -c "$CONF" -i a
	wait_mon
}

start_mgr() {
	launch mgr.x ceph-mgr -c "$CONF" -i x
}

start_osd() {
	launch "osd.$1" ceph-osd -c "$CONF" -i "$1"
}

# bootstrap: keys, the monitor's store, the manager's key, three OSDs,
# the pool and the image (a new cluster; the daemons run afterwards).
bootstrap() {
	local fsid key uuid id n
	fsid=$(uuidgen)
	mkdir -p "$D/data/mon.a" "$D/data/mgr.x" "$D/log" "$D/crash"
	write_conf "$fsid"
	ceph-authtool "$D/mon.keyring" --create-keyring --gen-key -n mon. \
		--cap mon 'allow *' >/dev/null
	ceph-authtool "$D/ceph.client.admin.keyring" --create-keyring \
		--gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
		--cap mgr 'allow *' --cap mds 'allow *' >/dev/null
	ceph-authtool "$D/mon.keyring" \
		--import-keyring "$D/ceph.client.admin.keyring" >/dev/null
	monmaptool --create --fsid "$fsid" \
		--addv a "[v2:$MON_IP:3300,v1:$MON_IP:6789]" "$D/monmap" >/dev/null
	in_ns ceph-mon -c "$CONF" --mkfs -i a --monmap "$D/monmap" \
		--keyring "$D/mon.keyring" >>"$D/log/mon.a.out" 2>&1
	rm -f "$D/monmap" "$D/mon.keyring"
	start_mon
	ceph_cmd auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' \
		mds 'allow *' -o "$D/data/mgr.x/keyring"
	start_mgr
	for ((n = 0; n < NOSDS; n++)); do
		uuid=$(uuidgen)
		key=$(ceph-authtool --gen-print-key)
		id=$(printf '{"cephx_secret": "%s"}\n' "$key" |
			ceph_cmd osd new "$uuid" -i -)
		[[ $id == "$n" ]] || die "osd new gave id '$id', expected $n"
		mkdir -p "$D/data/osd.$id"
		ceph-authtool "$D/data/osd.$id/keyring" --create-keyring \
			--name "osd.$id" --add-key "$key" >/dev/null
		in_ns ceph-osd -c "$CONF" -i "$id" --mkfs --osd-uuid "$uuid" \
			>>"$D/log/osd.$id.out" 2>&1
		start_osd "$id"
	done
	ceph_cmd osd pool create rbd 32 32 replicated >/dev/null
	ceph_cmd osd pool set rbd size 2 >/dev/null
	ceph_cmd osd pool set rbd min_size 1 >/dev/null
	in_ns rbd pool init rbd
	in_ns rbd create "rbd/$CEPH_IMAGE" --size "$CEPH_IMAGE_SIZE" \
		--image-feature "$CEPH_IMAGE_FEATURES"
	ceph_cmd auth get-or-create client.srpt mon 'profile rbd' \
		osd 'profile rbd pool=rbd' mgr 'profile rbd pool=rbd' \
		-o "$D/ceph.client.srpt.keyring"
	touch "$D/.bootstrapped"
}

# health_ok: true when the cluster is HEALTH_OK and every PG active+clean.
health_ok() {
	local out
	out=$(ceph_cmd status -f json 2>/dev/null) || return 1
	python3 -c '
import json, sys
s = json.load(sys.stdin)
pg = s["pgmap"]
clean = sum(x["count"] for x in pg.get("pgs_by_state", [])
	    if x["state_name"] == "active+clean")
sys.exit(0 if s["health"]["status"] == "HEALTH_OK" and pg["num_pgs"] > 0
	 and clean == pg["num_pgs"] else 1)' <<<"$out"
}

wait_clean() {
	local limit=$1 t0=$SECONDS
	while ! health_ok; do
		((SECONDS - t0 < limit)) || {
			ceph_cmd health detail >&2 || true
			return 1
		}
		sleep 2
	done
}

do_start() {
	local t0=$SECONDS n
	[[ -z $(ns_name) ]] || die "$D: a cluster runs (namespace $(ns_name)); stop it first"
	trap 'rc=$?; if ((rc)); then log "start failed, stopping"; do_stop; fi' EXIT
	net_up
	if [[ -e $D/.bootstrapped ]]; then
		start_mon
		start_mgr
		for ((n = 0; n < NOSDS; n++)); do
			start_osd "$n"
		done
	else
		[[ ! -e $CONF ]] || die "$D has a ceph.conf but no finished cluster: destroy it first"
		bootstrap
	fi
	wait_clean "$CEPH_START_TIMEOUT" || die "no HEALTH_OK with all PGs active+clean after ${CEPH_START_TIMEOUT}s"
	trap - EXIT
	log "HEALTH_OK after $((SECONDS - t0)) s; namespace $(ns_name), mon $MON_IP, conf $CONF"
}

# stop_pids PID...: SIGTERM to each PID (whose description is in the
# associative array "name" of the caller), SIGKILL to those that still run
# CEPH_STOP_TIMEOUT seconds later; wait until they are gone.
stop_pids() {
	local p i
	kill -TERM "$@" 2>/dev/null || return 0
	for ((i = 0; i < CEPH_STOP_TIMEOUT * 10; i++)); do
		kill -0 "$@" 2>/dev/null || return 0
		sleep 0.1
	done
	for p in "$@"; do
		if kill -0 "$p" 2>/dev/null; then
			log "${name[$p]} still runs ${CEPH_STOP_TIMEOUT}s after SIGTERM: SIGKILL"
			kill -KILL "$p" 2>/dev/null || true
		fi
	done
	for ((i = 0; i < 100; i++)); do
		kill -0 "$@" 2>/dev/null || return 0
		sleep 0.1
	done
}

# do_stop: stop_pids for the OSDs first (an OSD that goes down tells the
# monitor, and waits 5 s for it when the monitor is gone already), then for
# every other process in the namespace (the other daemons and any client a
# test left there) and the daemons of the pid files; then the namespace and
# run/ go.
do_stop() {
	local ns f p osds=() rest=()
	local -A name=()
	ns=$(ns_name)
	if [[ -n $ns ]]; then
		for p in $(ip netns pids "$ns" 2>/dev/null || true); do
			name[$p]="pid $p ($(cat "/proc/$p/comm" 2>/dev/null || echo ?))"
		done
	fi
	for f in "$RUN"/*.pid; do
		[[ -e $f ]] || continue
		p=$(cat "$f" 2>/dev/null) || continue
		[[ -n $p ]] || continue
		name[$p]="$(basename "$f" .pid) (pid $p)"
	done
	for p in "${!name[@]}"; do
		if [[ ${name[$p]} == osd.* ]]; then
			osds+=("$p")
		else
			rest+=("$p")
		fi
	done
	if ((${#osds[@]})); then
		stop_pids "${osds[@]}"
	fi
	if ((${#rest[@]})); then
		stop_pids "${rest[@]}"
	fi
	if [[ -n $ns ]]; then
		ip netns del "$ns" 2>/dev/null || true
	fi
	rm -rf "$RUN"
}

do_destroy() {
	local n
	do_stop
	for ((n = 0; n < NOSDS; n++)); do
		rm -rf "$D/data/osd.$n"
	done
	rm -rf "$D/data" "$D/log" "$D/crash" "$D/ceph.conf" "$D/.bootstrapped" \
		"$D/ceph.client.admin.keyring" "$D/ceph.client.srpt.keyring" \
		"$D/monmap" "$D/mon.keyring"
	rmdir "$D" 2>/dev/null || true
}

do_pids() {
	local f name
	for f in "$RUN"/*.pid; do
		[[ -e $f ]] || continue
		name=$(basename "$f" .pid)
		echo "$name $(daemon_pid "$name" || echo -)"
	done
}

cmd=${1:-}
(($# >= 2)) || usage
set_dir "$2"
shift 2
case $cmd in
start) do_start ;;
stop) do_stop ;;
destroy) do_destroy ;;
status)
	[[ -n $(ns_name) ]] || { echo "not running"; exit 1; }
	ceph_cmd -s
	;;
exec)
	(($#)) || usage
	in_ns "$@"
	;;
kill-osd)
	(($# == 1)) || usage
	kill -KILL "$(daemon_pid "osd.$1")"
	;;
start-osd)
	(($# == 1)) || usage
	start_osd "$1"
	;;
wait-clean) wait_clean "${1:-$CEPH_START_TIMEOUT}" ;;
pids) do_pids ;;
*) usage ;;
esac
