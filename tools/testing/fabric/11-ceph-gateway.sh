#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# named-only
# fabric-nodes 3
#
# Two SRP gateways for one Ceph RBD image (issue 25; three guests,
# FABRIC_NODES=3, started by tools/testing/ceph-gateway-run.sh, which runs
# the cluster of ceph-cluster.sh on the host and gives nodeA and nodeB a
# NIC on its bridge; lib-fabric.sh, "Ceph RBD gateways"): nodeA is
# gateway 1, nodeB gateway 2. Each maps the image with the kernel's rbd
# driver and exports it through ib_srpt as the same LU (one unit serial,
# iblock, no write cache): ALUA group 1 on nodeA Active/Optimized (PREF),
# group 2 on nodeB Active/Non-optimized without LIO's non-optimized delay.
# Both may write: the image has no exclusive-lock, nothing caches, krbd's
# writes complete when the OSDs have them; and dm-multipath on the
# initiator (group_by_prio, ALUA priorities 50 and 10) sends I/O through
# gateway 1 alone while its path works. No cluster manager: a gateway that
# dies just loses its path.
#
#   setup        both gateways: NIC on the cluster's bridge, the image
#                mapped ("rbd device map -o noudev": no udev in the
#                guests), the LU exported; each reports the image
#                (rbd/img0, 268435456 bytes), its ALUA group, state, PREF
#                bit, non-optimized delay 0 and the unit serial. A NOTE
#                line has the seconds and each guest's memory
#   mpath-alua   the initiator logs in to both; both disks have the same
#                WWID; REPORT TARGET PORT GROUPS through gateway 1's path
#                "1 0 1" (group 1 A/O, PREF), through gateway 2's "2 1 0"
#                (group 2 A/NO); both disks write-through (cache_type);
#                one multipath device, ALUA handler, two path groups,
#                gateway 1's path active ready 50, gateway 2's active ready
#                10; then the first 64 MiB written once in full with fio
#                verification (every 4 KiB block then holds a fio header
#                for readback)
#   kill-gw1     fio with crc32c verification on the multipath device
#                ($SRPT_TEST_CEPH_FIO_SECS s, default 60); after 10 s
#                gateway 1's QEMU quits (power cut, fabric_kill); then
#                gateway 2's path must be active ready (10) and gateway
#                1's failed, fio end with no I/O and no verify error, RTPG
#                through gateway 2's path still "2 1 0". NOTE: fio's stall
#                (its longest completion latency, stall_ms), the seconds to
#                gateway 1's path failed (fail_s, multipathd's view; kfail_s
#                in the kernel log)
#   osd-kill     fio with verification through gateway 2; after 10 s the
#                host kills osd.$SRPT_TEST_CEPH_OSD (default 1) with
#                SIGKILL, starts it again $SRPT_TEST_CEPH_OSD_DOWN_SECS s
#                (default 20) later and waits for HEALTH_OK with every PG
#                active+clean (at most 300 s; the host agent serves nothing
#                else meanwhile); fio ended 5 s later with no error.
#                NOTE: the stall, the seconds from the restart to clean
#                (clean_s)
#   gw1-return   fio with verification while gateway 1 boots again
#                (fabric_boot, 5 s in) and is set up as after a reboot
#                (map, export); its path reinstated active ready 50,
#                gateway 2's active ready 10 again, fio 10 s more without
#                error, RTPG through both paths as in mpath-alua. NOTE:
#                the stall, the seconds from the boot request to gateway
#                1's agent (boot_s), its LU (export_s), its path active
#                (io_s; kback_s in the kernel log)
#   readback     nothing writes: a sequential fio read with verification
#                checks the header (offset) and crc32c of every 4 KiB
#                block of the first 64 MiB through the multipath device;
#                the SHA-256 of the whole image read through the multipath
#                device, read by gateway 2 from its /dev/rbd0, and by "rbd
#                export" on the host (the host request ceph_image_sha256)
#                are equal
#   logout       multipathd stopped, both logins ended, no channel left
#   teardown     on each gateway: no failed rbd request in its kernel log,
#                the LU and ib_srpt gone, the image unmapped, rbd and
#                libceph unloaded (the runner then judges every guest's
#                kernel log)
#
# A failure stops nothing but its own case; on exit (also after a
# failure) the initiator's multipath and logins and each live gateway's LU,
# ib_srpt and rbd mapping are undone (ceph_cleanup). ib_srp keeps a lost
# path's disk for SRPT_TEST_FABRIC_DEV_LOSS s (here default 1800): gateway
# 1's path must come back as the same disk. SRPT_TEST_CEPH_LOGIN (default
# "tl_retry_count=6") holds ib_srp's extra login options for both paths:
# soft-RoCE never counts down a transport retry count of 7, ib_srp's
# default, and would retransmit to the dead gateway for ever, so that its
# path failed only through SCSI timeouts (as 10-ha-drbd found). A tool
# missing skips the test,
# and fails it under CI=true.
# "named-only": run it with tools/testing/ceph-gateway-run.sh (make
# check-ha's ceph-gw stage).

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

need_cmd multipathd multipath fio jq sg_rtpg rbd sha256sum
[[ $FABRIC_NODES == 3 ]] || die "this test needs the three-guest fabric (FABRIC_NODES=3)"
[[ -r $CEPH_GW_CONF ]] || die "no $CEPH_GW_CONF: run this test with tools/testing/ceph-gateway-run.sh"
STATE=$(mktemp -d)
OUTD=$(test_out_dir)
export SRPT_TEST_FABRIC_DEV_LOSS=${SRPT_TEST_FABRIC_DEV_LOSS:-1800}
# ib_srp's login options for both paths (see the header)
SRPT_TEST_CEPH_LOGIN=${SRPT_TEST_CEPH_LOGIN-tl_retry_count=6}
# the fio runs: the first 64 MiB (fabric_fio_verify's range)
RANGE=64M

# on ROLE CMD...: fabric_on ROLE with a limit of 300 s.
on() {
	local role=$1
	shift
	fabric_on "$role" -t 300 "$@"
}

# expect WHAT GOT WANT: fail unless GOT equals WANT.
expect() {
	[[ $2 == "$3" ]] || { echo "$1: got '$2', want '$3'" >&2; return 1; }
	log "$1: $2"
}

# mem_used ROLE: print ROLE's used and available memory in MiB ("U/A").
mem_used() {
	fabric_on "$1" -t 30 free -m | awk '$1 == "Mem:" { print $3 "/" $7 }'
}

# disk NAME: the initiator's disk of gateway NAME (dA: gateway 1, dB:
# gateway 2) as mpath-alua found it (sdb, say).
disk() {
	cat "$STATE/$1"
}

# Both gateways set up at once; each reports its LU.
case_setup() {
	local t0=$SECONDS pa pb rc=0
	fabric_rdma_setup
	on nodeA fabric_ceph_gw_setup >"$OUTD/setup-nodeA.log" 2>&1 &
	pa=$!
	on nodeB fabric_ceph_gw_setup >"$OUTD/setup-nodeB.log" 2>&1 &
	pb=$!
	wait "$pa" || rc=1
	wait "$pb" || rc=1
	cat "$OUTD"/setup-node*.log >&2
	((rc == 0)) || return 1
	expect "gateway 1's LU" "$(on nodeA fabric_ceph_gw_info)" \
		"$CEPH_GW_IMAGE 268435456 group=1 state=0 pref=1 nonop_delay=0 serial=$CEPH_GW_SERIAL"
	expect "gateway 2's LU" "$(on nodeB fabric_ceph_gw_info)" \
		"$CEPH_GW_IMAGE 268435456 group=2 state=1 pref=0 nonop_delay=0 serial=$CEPH_GW_SERIAL"
	echo "NOTE setup: both gateways mapped and exported in $((SECONDS - t0))s; mem_MiB_used/avail nodeA=$(mem_used nodeA) nodeB=$(mem_used nodeB)" >>"$SUBRESULTS"
}

# gws_ready: gateway 1's path active ready 50, gateway 2's active ready 10.
gws_ready() {
	fabric_ha_path_is "$(disk dA)" active ready 50 &&
		fabric_ha_path_is "$(disk dB)" active ready 10
}

# wwid DISK: print the WWID scsi_id reads from DISK's VPD page 83h.
wwid() {
	/lib/udev/scsi_id -g -u -d "/dev/$1"
}

# cache_type DISK: print the SCSI disk's cache type ("write through").
cache_type() {
	cat "/sys/block/$1/device/scsi_disk/"*/cache_type
}

# prefill MP: write the first $RANGE of MP once, sequentially, with fio's
# crc32c header in every 4 KiB (64 KiB writes, verify_interval 4 KiB),
# and read it back verified.
prefill() {
	fio --name=prefill --filename="$1" --size="$RANGE" --rw=write --bs=64k \
		--ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c --verify_interval=4096 \
		--verify_fatal=1 --do_verify=1 --output-format=json --output="$OUTD/fio-prefill.json"
}

case_mpath_alua() {
	local dA dB mp wa wb
	modprobe scsi_dh_alua
	# shellcheck disable=SC2086 # options, split on blanks
	dA=$(fabric_login 1 $SRPT_TEST_CEPH_LOGIN)
	# shellcheck disable=SC2086
	dB=$(fabric_login 2 $SRPT_TEST_CEPH_LOGIN)
	echo "${dA#/dev/}" >"$STATE/dA"
	echo "${dB#/dev/}" >"$STATE/dB"
	log "paths: $dA (gateway 1, link 1) $dB (gateway 2, link 2)"
	log "ib_srp tl_retry_count: $(cat /sys/class/scsi_host/host*/tl_retry_count 2>/dev/null | tr '\n' ' ')"
	wa=$(wwid "${dA#/dev/}")
	wb=$(wwid "${dB#/dev/}")
	[[ -n $wa ]]
	expect "gateway 2's disk's WWID, as gateway 1's" "$wb" "$wa"
	expect "RTPG through gateway 1's path" "$(fabric_ha_rtpg "$dA")" "1 0 1"
	expect "RTPG through gateway 2's path" "$(fabric_ha_rtpg "$dB")" "2 1 0"
	expect "gateway 1's disk" "$(cache_type "${dA#/dev/}")" "write through"
	expect "gateway 2's disk" "$(cache_type "${dB#/dev/}")" "write through"
	# priorities from RTPG, not the kernel's access_state (10-ha-drbd)
	mp=$(FABRIC_MPATH_DETECT_PRIO=no fabric_multipath_start 2 gws_ready)
	echo "$mp" >"$STATE/mp"
	multipath -ll >&2
	fabric_ha_paths >&2
	[[ $(dmsetup ls --target multipath | grep -vc 'No devices') == 1 ]]
	multipath -ll | grep -q "hwhandler='1 alua'"
	[[ $(multipath -ll | grep -c -- "-+- policy=") == 2 ]]
	prefill "$mp"
	log "prefill: $(fabric_fio_summary "$OUTD/fio-prefill.json")"
	[[ $(fabric_fio_summary "$OUTD/fio-prefill.json") == error=0\ * ]]
}

# fio_start NAME [SECONDS]: fabric_fio_verify on the multipath device in
# the background for SECONDS (default $SRPT_TEST_CEPH_FIO_MAX, 1500; the
# cases that end it themselves use fio_stop), its report in
# $OUTD/fio-NAME.json; its job in FIO_PID.
fio_start() {
	fabric_fio_verify "$(cat "$STATE/mp")" "${2:-${SRPT_TEST_CEPH_FIO_MAX:-1500}}" \
		"$OUTD/fio-$1.json" >"$OUTD/fio-$1.err" 2>&1 &
	FIO_PID=$!
}

# fio_running NAME: true while the fio of fio_start NAME runs.
fio_running() {
	kill -0 "$FIO_PID" 2>/dev/null && return 0
	echo "fio $1 ended early: $(tail -n 5 "$OUTD/fio-$1.err")" >&2
	return 1
}

# fio_stop NAME [wait]: end the fio of fio_start NAME (SIGINT: fio
# completes its I/O in flight and writes its report; with "wait" let it
# run out instead) and write its summary (fabric_fio_summary) to
# $STATE/fio-NAME.sum; fails when fio failed or reported an error.
fio_stop() {
	local f rc=0 sum
	if [[ ${2:-} != wait ]]; then
		f=$(pgrep -P "$FIO_PID" -x fio) || f=
		[[ -z $f ]] || kill -INT "$f" 2>/dev/null || true
	fi
	wait "$FIO_PID" || rc=$?
	sum=$(fabric_fio_summary "$OUTD/fio-$1.json") || sum=
	echo "${sum:-error=no-report}" >"$STATE/fio-$1.sum"
	if ((rc != 0 && rc != 128)); then
		echo "fio $1 failed (status $rc): $(tail -n 5 "$OUTD/fio-$1.err")" >&2
		return 1
	fi
	[[ $sum == error=0\ * ]] || { echo "fio $1 reported an error: ${sum:-no report}" >&2; return 1; }
}

# fio_sum NAME: the summary fio_stop NAME wrote.
fio_sum() {
	cat "$STATE/fio-$1.sum" 2>/dev/null || echo error=no-report
}

# gw2_takes_io: gateway 2's path active ready (10), gateway 1's failed.
gw2_takes_io() {
	fabric_ha_path_is "$(disk dB)" active ready 10 &&
		! fabric_ha_path_is "$(disk dA)" active '[a-z]*'
}

# Gateway 1's power cut under fio: dm-multipath fails its path and sends
# the I/O to gateway 2's group, which takes it as it is (Active/Non-
# optimized); nothing changes on gateway 2.
case_kill_gw1() {
	local t0 t_io=- rc=0 sum kt
	fio_start kill-gw1 "${SRPT_TEST_CEPH_FIO_SECS:-60}"
	sleep 10
	fio_running kill-gw1 || return 1
	fabric_mark FAULT "kill-gw1 down"
	t0=$SECONDS
	fabric_kill nodeA >&2 || rc=1
	if wait_for 120 gw2_takes_io; then
		t_io=$((SECONDS - t0))
		log "gateway 1's path failed, gateway 2's takes the I/O ${t_io}s after the power cut"
	else
		echo "not failed over within 120s: $(fabric_ha_paths | tr '\n' ';')" >&2
		rc=1
	fi
	fio_stop kill-gw1 wait || rc=1
	sum=$(fio_sum kill-gw1)
	kt=$(fabric_kernel_times kill-gw1)
	multipath -ll >&2 || true
	log "kill-gw1: $sum; failed over after ${t_io}s; kernel: $kt"
	echo "NOTE kill-gw1: $sum fail_s=$t_io ${kt% kback_s=*}" >>"$SUBRESULTS"
	gw2_takes_io || { echo "paths: $(fabric_ha_paths | tr '\n' ';')" >&2; rc=1; }
	expect "RTPG through gateway 2's path" "$(fabric_ha_rtpg "/dev/$(disk dB)")" "2 1 0" || rc=1
	return "$rc"
}

# on_host CMD...: a request to the host agent (vm.sh's ceph_request),
# limit 360 s.
on_host() {
	fabric_on host -t 360 "$@"
}

# One OSD killed under fio through gateway 2, started again after
# $SRPT_TEST_CEPH_OSD_DOWN_SECS s, the cluster clean again: krbd resends
# to the new primary OSDs (pool size 2, min_size 1: writes go on
# degraded), the recovery copies what the OSD missed.
case_osd_kill() {
	local id=${SRPT_TEST_CEPH_OSD:-1} down_s=${SRPT_TEST_CEPH_OSD_DOWN_SECS:-20} t0 t_clean=- rc=0 sum
	fio_start osd-kill
	sleep 10
	fio_running osd-kill || return 1
	fabric_mark FAULT "osd-kill down"
	on_host ceph_kill_osd "$id" >&2 || { fio_stop osd-kill || true; return 1; }
	sleep "$down_s"
	fabric_mark FAULT "osd-kill up"
	on_host ceph_start_osd "$id" >&2 || rc=1
	t0=$SECONDS
	if on_host ceph_wait_clean 300 >&2; then
		t_clean=$((SECONDS - t0))
		log "HEALTH_OK, all PGs active+clean ${t_clean}s after osd.$id started again"
	else
		echo "the cluster is not clean 300s after osd.$id started again" >&2
		rc=1
	fi
	sleep 5
	fio_stop osd-kill || rc=1
	sum=$(fio_sum osd-kill)
	log "osd-kill: $sum; osd.$id down ${down_s}s, clean ${t_clean}s after its restart"
	echo "NOTE osd-kill: $sum osd=$id down_s=$down_s clean_s=$t_clean" >>"$SUBRESULTS"
	fabric_ha_path_is "$(disk dB)" active ready 10 ||
		{ echo "gateway 2's path: $(fabric_ha_paths | tr '\n' ';')" >&2; rc=1; }
	return "$rc"
}

# path_back_s MARK DISK: the seconds from the kernel log's "ib_srpt-test:
# FAULT MARK" to dm-multipath's first "Reinstating path" of DISK after it
# ("-" for none).
path_back_s() {
	local mm
	mm=$(cat "/sys/block/$2/dev") || mm=
	dmesg | awk -v mark="ib_srpt-test: FAULT $1" -v back="device-mapper: multipath: .*Reinstating path ${mm}[.]" '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
		index($0, mark) && t0 == "" { t0 = ts($0); next }
		t0 != "" && $0 ~ back && tb == "" { tb = ts($0) }
		END { print (tb == "") ? "-" : sprintf("%.1f", tb - t0) }'
}

# Gateway 1 boots again under fio, maps the image, exports the LU; ib_srp
# reconnects its path, multipathd reinstates it and fails back (failback
# immediate) to its group.
case_gw1_return() {
	local t0 t_boot=- t_exp=- t_io=- rc=0 sum
	fabric_dead nodeA || { echo "gateway 1 was not killed" >&2; return 1; }
	fio_start gw1-return
	sleep 5
	fio_running gw1-return || return 1
	fabric_mark FAULT "gw1-return up"
	t0=$SECONDS
	if ! fabric_boot nodeA >&2 || ! wait_for 300 fabric_agent_ready nodeA; then
		echo "gateway 1 did not come back within 300s" >&2
		fio_stop gw1-return || true
		return 1
	fi
	t_boot=$((SECONDS - t0))
	if on nodeA fabric_ceph_gw_setup >"$OUTD/setup-nodeA-return.log" 2>&1; then
		t_exp=$((SECONDS - t0))
	else
		echo "gateway 1's setup failed: $(tail -n 3 "$OUTD/setup-nodeA-return.log")" >&2
		rc=1
	fi
	if ((rc == 0)) && wait_for 420 gws_ready; then
		t_io=$((SECONDS - t0))
	else
		echo "paths not back: $(fabric_ha_paths | tr '\n' ';')" >&2
		rc=1
	fi
	sleep 10
	fio_stop gw1-return || rc=1
	sum=$(fio_sum gw1-return)
	multipath -ll >&2 || true
	log "gw1-return: $sum; agent ${t_boot}s, LU ${t_exp}s, path ${t_io}s after the boot request"
	echo "NOTE gw1-return: $sum boot_s=$t_boot export_s=$t_exp io_s=$t_io kback_s=$(path_back_s "gw1-return up" "$(disk dA)") mem_MiB_used/avail nodeA=$(mem_used nodeA)" >>"$SUBRESULTS"
	((rc == 0)) || return 1
	expect "gateway 1's LU" "$(on nodeA fabric_ceph_gw_info)" \
		"$CEPH_GW_IMAGE 268435456 group=1 state=0 pref=1 nonop_delay=0 serial=$CEPH_GW_SERIAL" || rc=1
	expect "RTPG through gateway 1's path" "$(fabric_ha_rtpg "/dev/$(disk dA)")" "1 0 1" || rc=1
	expect "RTPG through gateway 2's path" "$(fabric_ha_rtpg "/dev/$(disk dB)")" "2 1 0" || rc=1
	return "$rc"
}

# readback_fio MP: read the first $RANGE of MP once, sequentially, 4 KiB
# at a time, and check fio's header in every block (its offset, the
# crc32c of its data; for a read job fio takes the seed from the header,
# so blocks written by any earlier run pass). Not fio's --verify_only
# replay of the write job: fio 3.33 with --verify_backlog then verifies
# nothing (a block overwritten with random data passed).
readback_fio() {
	fio --name=readback --filename="$1" --size="$RANGE" --rw=read --bs=4k \
		--ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
		--verify_fatal=1 --output-format=json --output="$OUTD/fio-readback.json"
}

# mp_sum: print the SHA-256 of the whole multipath device (O_DIRECT).
mp_sum() {
	local -
	set -o pipefail
	dd if="$(cat "$STATE/mp")" bs=1M iflag=direct status=none | sha256sum | cut -c1-64
}

# Nothing writes any more: every block fio wrote reads back verified, and
# the image reads the same through the initiator's multipath device, on
# gateway 2 and with "rbd export" on the host.
case_readback() {
	local t0=$SECONDS mp s_mp s_gw2 s_host vmib
	mp=$(cat "$STATE/mp")
	readback_fio "$mp"
	vmib=$(sed -n '/^{/,$p' "$OUTD/fio-readback.json" | jq -r '.jobs[0] | "error=\(.error) verified=\(.read.io_bytes / 1048576 | floor)MiB"')
	log "readback: $vmib"
	[[ $vmib == "error=0 verified=64MiB" ]] || { echo "readback: $vmib, want 64 MiB verified" >&2; return 1; }
	s_mp=$(mp_sum)
	s_gw2=$(on nodeB fabric_ceph_gw_sum)
	# (the request's answer has its stderr too: the line of the sum)
	s_host=$(on_host ceph_image_sha256 | grep -Ex '[0-9a-f]{64}' || true)
	log "SHA-256: multipath $s_mp, gateway 2 $s_gw2, rbd export $s_host"
	[[ $s_mp =~ ^[0-9a-f]{64}$ ]]
	expect "the image through gateway 2" "$s_gw2" "$s_mp"
	expect "the image as rbd export reads it" "$s_host" "$s_mp"
	echo "NOTE readback: $vmib sha256=equal secs=$((SECONDS - t0))" >>"$SUBRESULTS"
}

# Both logins ended (multipathd stopped first), no channel left on either
# gateway. A logout of a path toward a dead gateway (one that did not come
# back) waits for ib_srp's reconnect attempt (10-ha-drbd's case_logout):
# the hung-task limit is 120 s meanwhile.
case_logout() {
	local old r
	fabric_teardown_multipath
	old=$(cat /proc/sys/kernel/hung_task_timeout_secs)
	echo 120 >/proc/sys/kernel/hung_task_timeout_secs
	srp_logout_all 120 || { echo "$old" >/proc/sys/kernel/hung_task_timeout_secs; return 1; }
	echo "$old" >/proc/sys/kernel/hung_task_timeout_secs
	for r in nodeA nodeB; do
		fabric_dead "$r" && continue
		wait_for 30 channels_none "$r" ||
			{ echo "$r: $(fabric_on "$r" -t 30 fabric_target_channels) channel(s) left" >&2; return 1; }
	done
}

# channels_none ROLE: ROLE's target has no connected channel.
channels_none() {
	[[ $(fabric_on "$1" -t 30 fabric_target_channels) == 0 ]]
}

# Each gateway that runs: no rbd request failed, then its LU, ib_srpt, the
# mapping and rbd's modules gone.
case_teardown() {
	local r errs rc=0
	for r in nodeA nodeB; do
		if fabric_dead "$r"; then
			echo "$r is dead: nothing to tear down" >&2
			rc=1
			continue
		fi
		errs=$(on "$r" fabric_ceph_gw_rbd_errors) || rc=1
		[[ -z $errs ]] || { echo "$r: failed rbd requests: $errs" >&2; rc=1; }
		on "$r" fabric_ceph_gw_teardown >&2 || rc=1
	done
	return "$rc"
}

# ceph_cleanup: on exit, also after a failure: the initiator's multipath
# and logins, then on each gateway that runs the LU, ib_srpt and the rbd
# mapping (nothing left to do after the teardown case).
ceph_cleanup() {
	local r
	fabric_teardown_multipath >&2 || true
	srp_logout_all 120 >&2 || true
	for r in nodeA nodeB; do
		fabric_dead "$r" || fabric_on "$r" -t 200 fabric_ceph_gw_teardown >&2 || true
	done
}

trap ceph_cleanup EXIT
sub_case setup case_setup || die "the gateways are not set up"
sub_case mpath-alua case_mpath_alua || die "no multipath device over both gateways"
sub_case kill-gw1 case_kill_gw1 || true
sub_case osd-kill case_osd_kill || true
sub_case gw1-return case_gw1_return || true
sub_case readback case_readback || true
sub_case logout case_logout || true
sub_case teardown case_teardown || true
sub_exit
