#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# named-only
# fabric-nodes 3
#
# The HA pair (three guests, FABRIC_NODES=3; lib-fabric.sh): nodeA and
# nodeB mirror a disk each with DRBD 8.4 over link 3 (protocol C, both
# Primary; the disk is vm.sh's 80 MiB virtio disk of the node, a sparse
# file in the run directory, so it keeps its data and DRBD's metadata over
# a power cut and a node that comes back resyncs only what DRBD's bitmaps
# name) and form a two-node corosync + Pacemaker cluster over link 3
# (two_node quorum, token 3000 ms, STONITH off: DRBD's fence-peer handler
# cuts a lost peer's power through the host instead). Pacemaker runs DRBD
# (ocf:linbit:drbd, promoted on both) and the resource agent
# tools/ha/SRPTarget (ocf:ib_srpt:SRPTarget): both nodes export the DRBD
# device as one LU (same unit serial), nodeA's instance promoted (ALUA
# group 1 Active/Optimized), nodeB's not (group 2 Standby). The initiator
# logs in to both over links 1 and 2; dm-multipath joins the two paths.
# Then the promoted instance is moved to nodeB and back under fio, and
# nodeA's power is cut under fio: Pacemaker promotes nodeB, nothing in the
# test does. nodeA boots again (vm.sh's fabric_boot), resyncs, rejoins and
# takes the promoted role back; link 3 is cut under fio, nodeA's DRBD
# fence-peer handler has nodeB's power cut, and nodeB comes back the same
# way. Both nodes end with the same data (DRBD's online verify, the lower
# disks' checksums).
#
#   drbd-connected      both nodes' resources connect over link 3
#   secondary-refuses   on a Secondary (nodeB, before any promotion): a
#                       read-only open of /dev/drbd0 fails with
#                       EMEDIUMTYPE, the agent's start fails (LIO cannot
#                       open the device), its stop leaves nothing
#   initial-sync        nodeA made Primary (--force): the full resync to
#                       nodeB ends with UpToDate/UpToDate (time and rate in
#                       a NOTE line)
#   cluster             nodeA Secondary again; corosync and Pacemaker
#                       started on both nodes (a new authkey for each run,
#                       out/10-ha-drbd.d/authkey), both online with a DC;
#                       the CIB loaded (lib-fabric.sh fabric_ha_cib_load):
#                       crm_mon shows DRBD promoted on both nodes, the
#                       agent promoted on nodeA and unpromoted on nodeB.
#                       A NOTE line has the seconds until both nodes were
#                       online (up_s) and until the resources were
#                       (res_s), and each guest's used/available memory
#                       in MiB (free -m) with all of it running
#   dual-primary        Primary/Primary on both (Pacemaker promoted DRBD)
#   agents              the agent's monitor on each node: 8 on nodeA, 0 on
#                       nodeB, as crm_mon on nodeB shows them
#   mpath-alua          one multipath device, two path groups: nodeA's path
#                       active ready (ALUA priority 50), nodeB's ghost
#                       (standby, priority 1); REPORT TARGET PORT GROUPS
#                       through nodeA's path "1 0 1" (group 1 A/O, PREF),
#                       through nodeB's "2 2 0" (group 2 Standby); 5 s of
#                       fio with verification pass
#   switchover          fio with verification for SRPT_TEST_HA_SWITCH_SECS
#                       s (default 40); after 5 s "crm_resource --move
#                       --promoted --node nodeB": crm_mon shows the agent
#                       promoted on nodeB only, nodeB's path active ready
#                       50 and nodeA's ghost, RTPG through nodeB's path
#                       "2 0 1", fio without I/O or verify error
#   switchback          the same with "crm_resource --clear --promoted":
#                       back to nodeA (location preference), the paths as
#                       after mpath-alua. Both with a NOTE line: fio's
#                       stall, the seconds from the command to crm_mon's
#                       new roles (promoted_s) and to the paths' (io_s).
#                       SRPT_TEST_HA_SWITCHOVER=0 leaves both out
#   kill-nodeA          fio with crc32c verification on the multipath
#                       device; after 10 s nodeA's QEMU quits (power cut);
#                       corosync on nodeB declares nodeA lost after the
#                       token and consensus timeouts (about 6.6 s) and
#                       Pacemaker promotes the agent on nodeB (crm_mon on
#                       nodeB polled); then: fio ends with no I/O error and
#                       no verify error, the agent's monitor on nodeB 8,
#                       nodeB's path active ready with priority 50,
#                       nodeA's failed, RTPG through nodeB's path "2 0 1",
#                       crm_mon on nodeB shows both clones promoted on
#                       nodeB and nothing on nodeA, nodeB's DRBD Primary,
#                       UpToDate, peer unknown or outdated (the fence-peer
#                       handler tools/testing/ha-fence-peer.sh found nodeA
#                       dead), and DRBD was connected right before the
#                       power cut. A NOTE line has fio's stall (longest
#                       completion latency), the seconds from the power
#                       cut to crm_mon showing nodeB promoted
#                       (promoted_s), to nodeB's path active and ready in
#                       multipathd (b_io_s), and in the kernel log to
#                       dm-multipath failing nodeA's path (kfail_s) and to
#                       nodeB's disk seeing its new ALUA state
#                       (kb_state_s); and which node was the DC (dc=)
#   nodeA-return        fio with verification on the multipath device
#                       while nodeA boots again (fabric_boot, 5 s in):
#                       once its agent answers, the node set up as after
#                       a reboot with its disk as the power cut left it
#                       (no new metadata: DRBD up, SyncTarget from nodeB),
#                       DRBD Connected Secondary/Primary UpToDate/UpToDate
#                       on it, then corosync and Pacemaker started there;
#                       nodeA online in its own crm_mon, crm_mon on nodeB
#                       shows the agent promoted on nodeA and unpromoted
#                       on nodeB: nodeA takes the promoted role back (the
#                       location preference, nodeA 100 against nodeB 50,
#                       moves it as soon as nodeA's instance runs;
#                       resource stickiness does not hold a clone's
#                       promoted role in Pacemaker 2.1), nodeA's path
#                       reinstated in multipathd, active ready 50, nodeB's
#                       a ghost (1); fio 10 s more, then ended (SIGINT)
#                       without I/O or verify error; crm_mon on both nodes
#                       with DRBD promoted on both and the agent as at the
#                       start, DRBD Connected Primary/Primary UpToDate on
#                       both, RTPG through the paths "1 0 1" and "2 2 0";
#                       both copies equal: DRBD's online verify
#                       (verify-alg crc32c) started on nodeA ends with no
#                       block found out of sync, "oos:" 0 on both nodes,
#                       the same MD5 sum of both lower disks' data area.
#                       A NOTE line has fio's summary (stall_ms), the
#                       seconds from the boot request to nodeA's agent
#                       answering (boot_s), to the resync's end
#                       (resync_s), to both nodes online in nodeA's
#                       crm_mon (online_s), to the roles (roles_s) and
#                       paths (io_s) as at the start; the resync as
#                       nodeA's kernel log has it (resync_kb,
#                       drbd_resync_s; sb: split brains detected), the
#                       initiator kernel's reinstatement of nodeA's path
#                       (kback_s) and nodeA's port Active/Optimized
#                       there (kao_s), the
#                       verify (verify_s, oos, sums) and both nodes'
#                       used/available memory
#   link-cut            fio with verification; after 10 s link 3 loses its
#                       carrier at nodeA's end (fabric_carrier 3 off: DRBD
#                       and corosync both cut). Each DRBD Primary loses
#                       its peer, freezes its I/O and calls the fence-peer
#                       handler: nodeA's (Active/Optimized) has nodeB's
#                       power cut at once, nodeB's waits 15 s first and
#                       dies with nodeB. Asserted: nodeB fenced (dead)
#                       within 120 s of the cut, nodeA not, nodeA's
#                       handler log says it killed nodeB; nodeA's DRBD
#                       Primary, UpToDate, peer
#                       Outdated (I/O resumed); 10 s later the carrier
#                       back (nodeB stays dead); crm_mon on nodeA shows
#                       both clones promoted on nodeA and nothing on
#                       nodeB; nodeA's path active ready 50, RTPG "1 0 1";
#                       fio (ended 5 s later) without I/O or verify
#                       error. A NOTE line has fio's summary (the stall:
#                       DRBD's freeze until the handler returned), which
#                       node was fenced, the seconds from the cut to
#                       nodeB's death (fenced_s), to nodeA's DRBD
#                       showing the peer Outdated (resumed_s) and to the
#                       initiator seeing nodeB's port Active/Optimized
#                       (b_kao_s: Pacemaker on nodeB promotes its
#                       instance when it is not fenced first; "-" for
#                       never), and the state of nodeB's path
#   nodeB-return        as nodeA-return, for nodeB: it boots again,
#                       resyncs as SyncTarget from nodeA, rejoins as the
#                       unpromoted node (nodeA keeps the promoted role),
#                       its path comes back as a ghost; the same
#                       assertions, the same NOTE line
#   logout              multipathd stopped, both logins ended (one toward
#                       a dead node, when a node did not come back: with
#                       the hung-task limit at 120 s, see case_logout), no
#                       channel left on a node that runs
#   cluster-stop        Pacemaker and corosync stopped on nodeB, then on
#                       nodeA (each that runs), which stops the agent (its
#                       LU gone) and DRBD (down) first; the seconds in a
#                       NOTE line
#
# SRPT_TEST_HA_FIO_SECS (default 60) is the length of the fio run of
# kill-nodeA, SRPT_TEST_HA_FIO_MAX (default 1500) the limit of those that
# the test ends itself (the returns, the cut), SRPT_TEST_HA_TOKEN (default
# 3000) corosync's token timeout in ms; ib_srp keeps a lost path's disk
# for SRPT_TEST_FABRIC_DEV_LOSS s (here default 1800).
# SRPT_TEST_HA_LOGIN (default "tl_retry_count=6") holds ib_srp's extra
# login options for both paths. ib_srp asks for 7 transport retries by
# default; the InfiniBand specification counts 7 as seven retries (only
# the RNR retry count gives 7 the meaning "forever"), but soft-RoCE
# (rxe_comp.c) never decrements a retry count of 7 and so retransmits to a
# dead node forever: the initiator then sees no transport error and the
# path fails only through SCSI timeouts and error handling. 6 makes rxe
# give up as an HCA does. The cluster's
# daemons are stopped on exit (also after a failure; the nodes' teardown
# stops them too), their logs copied to out/<node>/ (corosync.log,
# pacemaker.log; of a node's last boot). The runner tears down each node
# that runs at the end (ib_srpt must unload there) and judges its kernel
# log (all of it after a return); a node's kernel log up to a power cut is
# out/<node>/dmesg.bootN.log (dmesg.log if it never came back), its
# console console-<node>.bootN.log from the second boot on. Pacemaker
# missing skips the test, and fails it under CI=true.
# "named-only": run it with "vm.sh fabric 10-ha-drbd" or make check-ha.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

need_cmd multipathd multipath fio jq sg_rtpg corosync corosync-keygen corosync-cfgtool pacemakerd \
	cibadmin crm_mon crm_resource crm_attribute xmllint
[[ $FABRIC_NODES == 3 ]] || die "this test needs the three-guest fabric (FABRIC_NODES=3)"
STATE=$(mktemp -d)
OUTD=$(test_out_dir)
# ib_srp keeps a lost path's SCSI disk this long (lib-fabric.sh
# fabric_srp_load): a node's return (nodeA-return, nodeB-return) comes
# several minutes after its power cut, and its path must come back as the
# same disk of the multipath device
export SRPT_TEST_FABRIC_DEV_LOSS=${SRPT_TEST_FABRIC_DEV_LOSS:-1800}
# ib_srp's login options for both paths (see the header)
SRPT_TEST_HA_LOGIN=${SRPT_TEST_HA_LOGIN-tl_retry_count=6}

# on ROLE CMD...: fabric_on ROLE with a limit of 300 s, its output logged.
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

case_connected() {
	on nodeA fabric_ha_drbd_wait 120 '^cs:Connected ro:Secondary/Secondary ds:Inconsistent/Inconsistent'
	on nodeB fabric_ha_drbd_wait 30 '^cs:Connected ro:Secondary/Secondary'
}

case_secondary_refuses() {
	on nodeB fabric_ha_secondary_refuses
}

case_initial_sync() {
	local t0=$SECONDS out secs mib
	on nodeA ha_drbdadm primary --force "$HA_DRBD_RES"
	out=$(on nodeA fabric_ha_drbd_wait 600 '^cs:Connected ro:Primary/Secondary ds:UpToDate/UpToDate')
	secs=$((SECONDS - t0))
	mib=$(on nodeA cat /sys/block/drbd0/size)
	mib=$((mib / 2048))
	log "initial sync of $mib MiB: $out"
	echo "NOTE initial-sync: $mib MiB in ${secs}s ($((mib / (secs ? secs : 1))) MiB/s) over link 3" >>"$SUBRESULTS"
}

# crm_roles_are ROLE CLONE WANT: Pacemaker's status on ROLE shows CLONE's
# instances as WANT ("nodeA=Promoted nodeB=Unpromoted", fabric_ha_crm_roles).
crm_roles_are() {
	[[ $(fabric_on "$1" -t 60 fabric_ha_crm_roles "$2") == "$3" ]]
}

# wait_roles SECONDS ROLE CLONE WANT: wait until crm_roles_are ROLE CLONE WANT.
wait_roles() {
	wait_for "$1" crm_roles_are "$2" "$3" "$4" && return 0
	echo "$3 on $2's crm_mon: $(fabric_on "$2" -t 60 fabric_ha_crm_roles "$3"), want $4 within ${1}s" >&2
	fabric_on "$2" -t 60 crm_mon -1 -r >&2
	return 1
}

# mem_used ROLE: print ROLE's used and available memory in MiB ("U/A").
mem_used() {
	fabric_on "$1" -t 30 free -m | awk '$1 == "Mem:" { print $3 "/" $7 }'
}

# The cluster: DRBD handed over to Pacemaker Secondary on both nodes,
# corosync and Pacemaker started on both, the CIB loaded on nodeA; then
# Pacemaker promotes DRBD on both nodes and starts the agent on both,
# promoted on nodeA. A NOTE line has the seconds until both nodes were
# online with a DC (up_s), until the resources were as wanted (res_s), and
# each node's used/available memory in MiB with everything running.
case_cluster() {
	local t0=$SECONDS t_up t_res pa pb rc=0
	on nodeA ha_drbdadm secondary "$HA_DRBD_RES"
	on nodeA fabric_ha_drbd_wait 30 '^cs:Connected ro:Secondary/Secondary ds:UpToDate/UpToDate' >&2
	rm -f "$OUTD/authkey"
	corosync-keygen -k "$OUTD/authkey" >&2
	on nodeA fabric_ha_cluster_start "$OUTD/authkey" >&2 &
	pa=$!
	on nodeB fabric_ha_cluster_start "$OUTD/authkey" >&2 &
	pb=$!
	wait "$pa" || rc=1
	wait "$pb" || rc=1
	((rc == 0)) || return 1
	on nodeA fabric_ha_cluster_wait_online 240 >&2
	t_up=$((SECONDS - t0))
	log "both nodes online after ${t_up}s, DC $(on nodeA fabric_ha_dc)"
	on nodeA fabric_ha_cib_load >&2
	wait_roles 300 nodeA "$HA_DRBD_CLONE" "nodeA=Promoted nodeB=Promoted"
	wait_roles 300 nodeA "$HA_LU_CLONE" "nodeA=Promoted nodeB=Unpromoted"
	t_res=$((SECONDS - t0))
	on nodeB fabric_ha_crm_roles "$HA_LU_CLONE" >&2
	log "resources as wanted after ${t_res}s"
	echo "NOTE cluster: up_s=$t_up res_s=$t_res mem_MiB_used/avail nodeA=$(mem_used nodeA) nodeB=$(mem_used nodeB) initiator=$(free -m | awk '$1 == "Mem:" { print $3 "/" $7 }')" >>"$SUBRESULTS"
}

# DRBD Primary on both nodes: Pacemaker promoted it (promoted-max 2).
case_dual_primary() {
	on nodeB fabric_ha_drbd_wait 30 '^cs:Connected ro:Primary/Primary ds:UpToDate/UpToDate'
	on nodeA fabric_ha_drbd_wait 30 '^cs:Connected ro:Primary/Primary ds:UpToDate/UpToDate'
}

# ra ROLE ACTION WANT: the agent's ACTION on ROLE must return WANT.
ra() {
	local rc=0 out
	out=$(fabric_on "$1" -t 120 fabric_ha_ra "$2") || rc=$?
	((rc == $3)) || { echo "SRPTarget $2 on $1: status $rc, want $3: $out" >&2; return 1; }
	log "SRPTarget $2 on $1: $rc"
}

# The agent as Pacemaker started it: its monitor on each node (run here
# with the node's parameters) agrees with crm_mon on both nodes.
case_agents() {
	ra nodeA monitor 8
	ra nodeB monitor 0
	expect "crm_mon on nodeB" "$(on nodeB fabric_ha_crm_roles "$HA_LU_CLONE")" "nodeA=Promoted nodeB=Unpromoted"
}

# mpath_alua_ready: nodeA's path active and ready, nodeB's a ghost.
mpath_alua_ready() {
	fabric_ha_path_is "$(cat "$STATE/dA")" active ready 50 &&
		fabric_ha_path_is "$(cat "$STATE/dB")" active ghost 1
}

case_mpath_alua() {
	local dA dB mp
	# The ALUA device handler attaches when the disks are scanned (udev
	# loads it on an initiator; here, no udev): the disks' access_state
	# in sysfs, multipathd's priorities, follow the ALUA states from then on.
	modprobe scsi_dh_alua
	# shellcheck disable=SC2086 # options, split on blanks
	dA=$(fabric_login 1 $SRPT_TEST_HA_LOGIN)
	# shellcheck disable=SC2086
	dB=$(fabric_login 2 $SRPT_TEST_HA_LOGIN)
	echo "${dA#/dev/}" >"$STATE/dA"
	echo "${dB#/dev/}" >"$STATE/dB"
	log "paths: $dA (nodeA, link 1) $dB (nodeB, link 2)"
	log "ib_srp tl_retry_count: $(cat /sys/class/scsi_host/host*/tl_retry_count 2>/dev/null | tr '\n' ' ')"
	expect "RTPG through nodeA's path" "$(fabric_ha_rtpg "$dA")" "1 0 1"
	expect "RTPG through nodeB's path" "$(fabric_ha_rtpg "$dB")" "2 2 0"
	log "sysfs access_state: sda $(cat /sys/block/"${dA#/dev/}"/device/access_state 2>&1)," \
		"sdb $(cat /sys/block/"${dB#/dev/}"/device/access_state 2>&1)"
	# In a run the kernel's ALUA handler left nodeB's disk at
	# active/optimized in sysfs (no RTPG state line for it in the kernel
	# log), so multipathd's sysfs prioritizer gave both paths 50, one
	# path group: the paths' priorities come from RTPG here.
	mp=$(FABRIC_MPATH_DETECT_PRIO=no fabric_multipath_start 2 mpath_alua_ready)
	echo "$mp" >"$STATE/mp"
	multipath -ll >&2
	fabric_ha_paths >&2
	[[ $(dmsetup ls --target multipath | grep -vc 'No devices') == 1 ]]
	multipath -ll | grep -q "hwhandler='1 alua'"
	[[ $(multipath -ll | grep -c -- "-+- policy=") == 2 ]]
	fabric_fio_verify "$mp" 5 "$OUTD/fio-setup.json"
	log "fio before the fault: $(fabric_fio_summary "$OUTD/fio-setup.json")"
}

# b_takes_io: nodeB's path active, ready and Active/Optimized (priority 50).
b_takes_io() {
	fabric_ha_path_is "$(cat "$STATE/dB")" active ready 50
}

# a_failed: nodeA's path failed in multipathd's view.
a_failed() {
	! fabric_ha_path_is "$(cat "$STATE/dA")" active '[a-z]*'
}

# kill_times DISK: from this guest's kernel log, print "kfail_s=F
# kb_state_s=B": F the seconds from the mark "FAULT kill-nodeA down" (just
# before the power cut was requested) to dm-multipath's first "Failing
# path" after it, B to the first "Asymmetric access state changed" of
# nodeB's disk DISK after it (the initiator saw nodeB's new ALUA state);
# "-" when there is none.
kill_times() {
	local sd
	sd=$(readlink -f "/sys/block/$1/device")
	sd=${sd##*/}
	dmesg | awk -v mark="ib_srpt-test: FAULT kill-nodeA down" -v sd="sd $sd: " '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
		index($0, mark) { t0 = ts($0); tf = ""; tb = ""; next }
		t0 == "" { next }
		/device-mapper: multipath: .*Failing path/ && tf == "" { tf = ts($0) }
		index($0, sd "Asymmetric access state changed") && tb == "" { tb = ts($0) }
		END {
			printf "kfail_s=%s kb_state_s=%s\n", (tf == "") ? "-" : sprintf("%.1f", tf - t0),
				(tb == "") ? "-" : sprintf("%.1f", tb - t0)
		}'
}

# path_times MARK DISK: from this guest's kernel log, print "back_s=R
# ao_s=A": R the seconds from the first line "ib_srpt-test: FAULT MARK" to
# dm-multipath's first "Reinstating path" of DISK (a path's disk, sda say)
# after it, A to the first ALUA state "A" (Active/Optimized) the kernel
# reported for DISK after it; "-" for none.
path_times() {
	local sd mm
	sd=$(readlink -f "/sys/block/$2/device") || sd=
	mm=$(cat "/sys/block/$2/dev") || mm=
	dmesg | path_times_of "$1" "${sd##*/}" "$mm"
}

# path_times_of MARK SCSI_ADDR MAJ:MIN: path_times on the kernel log on
# stdin, for the disk with that SCSI address (0:0:0:0) and device number.
path_times_of() {
	awk -v mark="ib_srpt-test: FAULT $1" -v ao="sd $2: alua: port group " \
		-v back="device-mapper: multipath: .*Reinstating path $3[.]" '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
		index($0, mark) && t0 == "" { t0 = ts($0); next }
		t0 == "" { next }
		$0 ~ back && tr == "" { tr = ts($0) }
		index($0, ao) && / state A / && ta == "" { ta = ts($0) }
		END {
			printf "back_s=%s ao_s=%s\n", (tr == "") ? "-" : sprintf("%.1f", tr - t0),
				(ta == "") ? "-" : sprintf("%.1f", ta - t0)
		}'
}

# b_io_a_ghost: nodeB's path active, ready and Active/Optimized (priority
# 50), nodeA's a ghost (Standby, priority 1).
b_io_a_ghost() {
	fabric_ha_path_is "$(cat "$STATE/dB")" active ready 50 &&
		fabric_ha_path_is "$(cat "$STATE/dA")" active ghost 1
}

# planned NAME ROLES OK DISK RTPG CMD...: a planned switch-over under
# fio with verification on the multipath device ($SRPT_TEST_HA_SWITCH_SECS
# s, default 40): after 5 s CMD (crm_resource) runs on nodeA; Pacemaker's
# status must show the agent's clone as ROLES and multipathd's paths OK
# (a function) within 120 s each, fio end with no I/O or verify error, and
# REPORT TARGET PORT GROUPS through the disk named in $STATE/DISK print
# RTPG. A NOTE line has fio's summary (its stall) and the seconds from CMD
# to ROLES (promoted_s) and to OK (io_s).
planned() {
	local name=$1 roles=$2 ok=$3 disk=$4 rtpg=$5 mp pid t0 t_prom=- t_io=- sum rc=0
	local secs=${SRPT_TEST_HA_SWITCH_SECS:-40}
	shift 5
	mp=$(cat "$STATE/mp")
	fabric_fio_verify "$mp" "$secs" "$OUTD/fio-$name.json" >"$OUTD/fio-$name.err" 2>&1 &
	pid=$!
	sleep 5
	kill -0 "$pid" || { echo "fio ended early: $(tail -n 5 "$OUTD/fio-$name.err")" >&2; return 1; }
	fabric_mark FAULT "$name down"
	t0=$SECONDS
	on nodeA "$@" >&2 || rc=1
	if wait_roles 120 nodeA "$HA_LU_CLONE" "$roles"; then
		t_prom=$((SECONDS - t0))
	else
		rc=1
	fi
	if wait_for 120 "$ok"; then
		t_io=$((SECONDS - t0))
	else
		echo "paths not $ok: $(fabric_ha_paths | tr '\n' ';')" >&2
		rc=1
	fi
	wait "$pid" || { echo "fio failed: $(tail -n 5 "$OUTD/fio-$name.err")" >&2; rc=1; }
	sum=$(fabric_fio_summary "$OUTD/fio-$name.json") || { echo "no fio report" >&2; return 1; }
	multipath -ll >&2 || true
	log "$name: $sum; roles ${t_prom}s, paths ${t_io}s after '$*'"
	echo "NOTE $name: $sum promoted_s=$t_prom io_s=$t_io" >>"$SUBRESULTS"
	[[ $sum == error=0\ * ]] || { echo "fio reported an error" >&2; rc=1; }
	expect "RTPG through $disk" "$(fabric_ha_rtpg "/dev/$(cat "$STATE/$disk")")" "$rtpg" || rc=1
	return "$rc"
}

# Pacemaker moves the promoted instance to nodeB (a location constraint
# of score INFINITY for the Promoted role, cli-prefer-*): nodeA's demoted
# first, then nodeB's promoted.
case_switchover() {
	planned switchover "nodeA=Unpromoted nodeB=Promoted" b_io_a_ghost dB "2 0 1" \
		crm_resource --move -r "$HA_LU_CLONE" --promoted --node nodeB
}

# That constraint removed: the location preference (nodeA 100, nodeB 50)
# takes the promoted instance back to nodeA.
case_switchback() {
	planned switchback "nodeA=Promoted nodeB=Unpromoted" mpath_alua_ready dA "1 0 1" \
		crm_resource --clear -r "$HA_LU_CLONE" --promoted
}

# b_promoted: Pacemaker's status on nodeB shows the agent promoted there.
b_promoted() {
	[[ $(fabric_on nodeB -t 30 fabric_ha_crm_roles "$HA_LU_CLONE") == *" nodeB=Promoted" ]]
}

case_kill_nodeA() {
	local mp pid t0 ktimes t_io=- t_prom=- sum dc rc=0 secs=${SRPT_TEST_HA_FIO_SECS:-60}
	mp=$(cat "$STATE/mp")
	dc=$(on nodeB fabric_ha_dc)
	fabric_fio_verify "$mp" "$secs" "$OUTD/fio-kill.json" >"$OUTD/fio-kill.err" 2>&1 &
	pid=$!
	sleep 10
	kill -0 "$pid" || { echo "fio ended early: $(tail -n 5 "$OUTD/fio-kill.err")" >&2; return 1; }
	# the replication has run without a break so far
	on nodeB fabric_ha_drbd_wait 1 '^cs:Connected ro:Primary/Primary ds:UpToDate/UpToDate' >&2 ||
		{ wait "$pid"; echo "DRBD was not connected before the power cut" >&2; return 1; }
	fabric_mark FAULT "kill-nodeA down"
	t0=$SECONDS
	fabric_kill nodeA >&2
	log "nodeA killed (DC was $dc); waiting for Pacemaker to promote nodeB"
	# corosync on nodeB declares nodeA lost (token and consensus
	# timeouts), Pacemaker (STONITH off: a lost node counts as down)
	# promotes the agent's clone on nodeB, the only node left
	if wait_for 120 b_promoted; then
		t_prom=$((SECONDS - t0))
		log "Pacemaker promoted nodeB ${t_prom}s after the power cut"
	else
		echo "Pacemaker did not promote nodeB within 120s:" >&2
		on nodeB crm_mon -1 -r >&2
		rc=1
	fi
	fabric_mark FAULT "kill-nodeA up"
	ra nodeB monitor 8 || rc=1
	if wait_for 120 b_takes_io; then
		t_io=$((SECONDS - t0))
	else
		echo "nodeB's path does not take I/O: $(fabric_ha_paths | tr '\n' ';')" >&2
		rc=1
	fi
	wait_for 60 a_failed || true
	wait "$pid" || { echo "fio failed: $(tail -n 5 "$OUTD/fio-kill.err")" >&2; rc=1; }
	sum=$(fabric_fio_summary "$OUTD/fio-kill.json") || { echo "no fio report" >&2; return 1; }
	ktimes=$(kill_times "$(cat "$STATE/dB")")
	multipath -ll >&2 || true
	fabric_ha_paths >&2
	log "kill-nodeA: $sum; Pacemaker promoted nodeB ${t_prom}s and its path was active/ready ${t_io}s after the power cut; kernel: $ktimes"
	echo "NOTE kill-nodeA: $sum promoted_s=$t_prom b_io_s=$t_io $ktimes dc=$dc" >>"$SUBRESULTS"
	[[ $sum == error=0\ * ]] || { echo "fio reported an error" >&2; rc=1; }
	a_failed || { echo "nodeA's path is not failed: $(fabric_ha_paths | tr '\n' ';')" >&2; rc=1; }
	expect "RTPG through nodeB's path" "$(fabric_ha_rtpg "/dev/$(cat "$STATE/dB")")" "2 0 1" || rc=1
	expect "crm_mon on nodeB, SRPTarget" "$(on nodeB fabric_ha_crm_roles "$HA_LU_CLONE")" "nodeA=- nodeB=Promoted" || rc=1
	expect "crm_mon on nodeB, DRBD" "$(on nodeB fabric_ha_crm_roles "$HA_DRBD_CLONE")" "nodeA=- nodeB=Promoted" || rc=1
	# (Outdated: the fence-peer handler saw nodeA dead, STONITH done)
	on nodeB fabric_ha_drbd_wait 10 '^cs:WFConnection ro:Primary/Unknown ds:UpToDate/(DUnknown|Outdated)' >&2 || rc=1
	log "nodeB's fence-peer handler: $(tr '\n' ';' <"$FABRIC_SHARE/out/nodeB/fence-peer.log" 2>/dev/null)"
	return "$rc"
}

# Both logins ended (multipathd stopped first), no channel left on the
# nodes that run. A logout of a path toward a dead node (a node that did
# not come back) waits for ib_srp's reconnect attempt in progress (it
# holds the rport's mutex, srp_stop_rport_timers waits for it), and a
# connect to a dead node ends only with the CM's REQ timeout, about 75 s
# (-113): in one run the hung-task detector (30 s in the guests) reported
# the srp_remove_work kworker. The initiator's, not the target's: the
# logout raises the limit to 120 s and logs how long it took.
case_logout() {
	local t0=$SECONDS old r
	fabric_teardown_multipath
	old=$(cat /proc/sys/kernel/hung_task_timeout_secs)
	echo 120 >/proc/sys/kernel/hung_task_timeout_secs
	srp_logout_all 120 || { echo "$old" >/proc/sys/kernel/hung_task_timeout_secs; return 1; }
	echo "$old" >/proc/sys/kernel/hung_task_timeout_secs
	log "both logouts took $((SECONDS - t0))s"
	for r in nodeA nodeB; do
		fabric_dead "$r" || fabric_wait_target_channels_on "$r" 0 30
	done
}

# Pacemaker and corosync stopped on nodeB, then on nodeA (on a node that
# runs): Pacemaker stops the agent (its LU gone from configfs) and DRBD
# (demoted, down) first, within 330 s (with both nodes up the DC runs
# DRBD's notifications on both: in a run nodeB's stop took about 150 s,
# the limit then, 46 s when it was alone); nodeB, Secondary when it leaves, marks its own
# disk Outdated, so nodeA's DRBD calls no fence-peer handler. The seconds
# each took in a NOTE line.
case_cluster_stop() {
	local t0 r note=
	for r in nodeB nodeA; do
		! fabric_dead "$r" || continue
		t0=$SECONDS
		fabric_on "$r" -t 400 fabric_ha_cluster_stop 330 >&2
		log "cluster stopped on $r in $((SECONDS - t0))s"
		note+=" $r in $((SECONDS - t0))s"
		on "$r" test ! -e "$CFS/core/iblock_0/ha_lu0"
		on "$r" fabric_ha_drbd_wait 1 '^(cs:Unconfigured.*)?$' >&2
	done
	echo "NOTE cluster-stop:${note:- no node}" >>"$SUBRESULTS"
}

# stop_clusters: on exit, also after a failure: fabric_ha_cluster_stop on
# every node that was not killed (nothing when it stopped already).
stop_clusters() {
	local r
	for r in nodeA nodeB; do
		fabric_dead "$r" || fabric_on "$r" -t 200 fabric_ha_cluster_stop 150 >&2 || true
	done
}

# channels_are ROLE N: ROLE's target has N connected channels.
channels_are() {
	[[ $(fabric_on "$1" -t 30 fabric_target_channels) == "$2" ]]
}

# fabric_wait_target_channels_on ROLE N SECONDS: wait until ROLE's target
# has N connected channels.
fabric_wait_target_channels_on() {
	wait_for "$3" channels_are "$1" "$2" ||
		{ echo "$1: $(fabric_on "$1" -t 30 fabric_target_channels) channel(s), want $2" >&2; return 1; }
}

# fio_start NAME: fabric_fio_verify on the multipath device in the
# background for at most $SRPT_TEST_HA_FIO_MAX s (default 1500), its
# report in $OUTD/fio-NAME.json; its job in FIO_PID. fio_stop ends it.
fio_start() {
	fabric_fio_verify "$(cat "$STATE/mp")" "${SRPT_TEST_HA_FIO_MAX:-1500}" "$OUTD/fio-$1.json" \
		>"$OUTD/fio-$1.err" 2>&1 &
	FIO_PID=$!
}

# fio_running NAME: true while the fio of fio_start NAME runs.
fio_running() {
	kill -0 "$FIO_PID" 2>/dev/null && return 0
	echo "fio $1 ended early: $(tail -n 5 "$OUTD/fio-$1.err")" >&2
	return 1
}

# fio_stop NAME: end the fio of fio_start NAME (SIGINT: fio completes its
# I/O in flight and writes its report, status 128) and write its summary
# (fabric_fio_summary) to $STATE/fio-NAME.sum; fails when fio failed
# otherwise (a verify error ends it with status 1) or reported an error.
# Not in a subshell: fio is a job of this shell.
fio_stop() {
	local f rc=0 sum
	f=$(pgrep -P "$FIO_PID" -x fio) || f=
	[[ -z $f ]] || kill -INT "$f" 2>/dev/null || true
	wait "$FIO_PID" || rc=$?
	sum=$(fabric_fio_summary "$OUTD/fio-$1.json") || sum=
	echo "${sum:-error=no-report}" >"$STATE/fio-$1.sum"
	if ((rc != 0 && rc != 128)); then
		echo "fio $1 failed (status $rc): $(tail -n 5 "$OUTD/fio-$1.err")" >&2
		return 1
	fi
	[[ $sum == error=0\ * ]] || { echo "fio $1 reported an error: ${sum:-no report}" >&2; return 1; }
}

# data_sum ROLE FILE: fabric_ha_data_sum on ROLE into FILE.
data_sum() {
	fabric_on "$1" -t 300 fabric_ha_data_sum >"$2"
}

# copies_equal: both nodes hold the same data: DRBD's online verify (from
# nodeA) ends, both nodes' out-of-sync count is 0 afterwards, and the data
# areas of both lower disks have the same MD5 sum (read on both at once).
# Prints "verify_s=S oos=A/B sums=equal|differ"; fails unless all agree.
copies_equal() {
	local t0=$SECONDS out oa ob pa pb rc=0 sums=differ
	out=$(on nodeA fabric_ha_drbd_verify 280) || { echo "online verify failed" >&2; return 1; }
	log "online verify on nodeA: $out"
	[[ $out != *"Online verify found"* ]] || rc=1
	oa=$(on nodeA fabric_ha_drbd_oos) || rc=1
	ob=$(on nodeB fabric_ha_drbd_oos) || rc=1
	[[ $oa == 0 && $ob == 0 ]] || rc=1
	data_sum nodeA "$STATE/sum-nodeA" &
	pa=$!
	data_sum nodeB "$STATE/sum-nodeB" &
	pb=$!
	wait "$pa" || rc=1
	wait "$pb" || rc=1
	if [[ -s $STATE/sum-nodeA && $(cat "$STATE/sum-nodeA") == "$(cat "$STATE/sum-nodeB")" ]]; then
		sums=equal
	else
		rc=1
	fi
	log "lower disks' data: nodeA $(cat "$STATE/sum-nodeA") nodeB $(cat "$STATE/sum-nodeB")"
	echo "verify_s=$((SECONDS - t0)) oos=${oa:-?}/${ob:-?} sums=$sums"
	((rc == 0)) || echo "the copies differ: out-of-sync nodeA ${oa:-?} nodeB ${ob:-?} KiB, sums $sums" >&2
	return "$rc"
}

# both_as_at_start: nodeA's path active, nodeB's a ghost, crm_mon on both
# nodes with DRBD promoted on both and the agent promoted on nodeA only,
# DRBD connected, Primary and UpToDate on both; RTPG through each path.
both_as_at_start() {
	local rc=0 r
	for r in nodeA nodeB; do
		expect "crm_mon on $r, SRPTarget" "$(on "$r" fabric_ha_crm_roles "$HA_LU_CLONE")" \
			"nodeA=Promoted nodeB=Unpromoted" || rc=1
		expect "crm_mon on $r, DRBD" "$(on "$r" fabric_ha_crm_roles "$HA_DRBD_CLONE")" \
			"nodeA=Promoted nodeB=Promoted" || rc=1
		on "$r" fabric_ha_drbd_wait 30 '^cs:Connected ro:Primary/Primary ds:UpToDate/UpToDate' >&2 || rc=1
	done
	mpath_alua_ready || { echo "paths: $(fabric_ha_paths | tr '\n' ';')" >&2; rc=1; }
	expect "RTPG through nodeA's path" "$(fabric_ha_rtpg "/dev/$(cat "$STATE/dA")")" "1 0 1" || rc=1
	expect "RTPG through nodeB's path" "$(fabric_ha_rtpg "/dev/$(cat "$STATE/dB")")" "2 2 0" || rc=1
	return "$rc"
}

# online_on ROLE: fabric_ha_cluster_online on ROLE.
online_on() {
	fabric_on "$1" -t 60 fabric_ha_cluster_online
}

# The node ROLE, killed before (kill-nodeA, link-cut), comes back under
# fio with verification on the multipath device: after 5 s the host boots
# it again (fabric_boot); once its agent answers, the node is set up as
# after a reboot (fabric_ha_node_setup return: ib_srpt, soft-RoCE, its
# lower disk with DRBD's metadata from before the power cut, DRBD up,
# which connects and resyncs from the peer as SyncTarget, the bitmaps
# saying what; Secondary until Pacemaker runs); after the resync corosync
# and Pacemaker start there with the cluster's key, the node joins, and
# Pacemaker promotes DRBD there and starts the agent's instance; the
# initiator's ib_srp reconnects its path to the node (reconnect_delay)
# and multipathd reinstates it. The wanted end is the state of the start:
# the agent promoted on nodeA (for nodeA's return that takes a failback,
# the location preference nodeA 100 against nodeB 50 moving the promoted
# instance back), nodeA's path active ready (50), nodeB's a ghost (1).
# Then 10 s more of fio, which must end without I/O or verify error;
# both_as_at_start; copies_equal. A NOTE line has fio's summary and the
# seconds from the boot request to: the node's agent answering (boot_s),
# DRBD UpToDate/UpToDate on it (resync_s), both nodes online in its
# Pacemaker (online_s), the agent's roles as wanted (roles_s), the paths
# as wanted (io_s); the resync as the node's kernel log has it
# (fabric_ha_resync_info: its KiB, its seconds, split brains seen), the
# kernel's first "Reinstating path" of the node's path after the boot
# request (kback_s) and its first report of the node's port group as
# Active/Optimized (kao_s, "-" for none: nodeB stays Standby),
# copies_equal's result, and both nodes' used/available memory in MiB.
case_node_return() {
	local role=$1 peer=nodeA t0 t_boot=- t_sync=- t_online=- t_roles=- t_io=- sum rc=0 sync=- eq=- kt
	[[ $role != nodeA ]] || peer=nodeB
	fabric_dead "$role" || { echo "$role was not killed: nothing to come back" >&2; return 1; }
	! fabric_dead "$peer" || { echo "$peer is dead too" >&2; return 1; }
	fio_start "$role-return"
	sleep 5
	fio_running "$role-return" || return 1
	fabric_mark FAULT "$role-return up"
	t0=$SECONDS
	if ! fabric_boot "$role" >&2; then
		fio_stop "$role-return" || true
		return 1
	fi
	if ! wait_for 300 fabric_agent_ready "$role"; then
		echo "$role's agent does not answer within 300s of its boot" >&2
		fio_stop "$role-return" || true
		return 1
	fi
	t_boot=$((SECONDS - t0))
	log "$role booted again, its agent answers after ${t_boot}s"
	if ! on "$role" fabric_ha_node_setup return >"$OUTD/setup-$role-return.log" 2>&1; then
		echo "$role's setup failed: $(tail -n 3 "$OUTD/setup-$role-return.log")" >&2
		fio_stop "$role-return" || true
		return 1
	fi
	if on "$role" fabric_ha_drbd_wait 280 '^cs:Connected ro:Secondary/Primary ds:UpToDate/UpToDate' >&2; then
		t_sync=$((SECONDS - t0))
	else
		rc=1
	fi
	sync=$(on "$role" fabric_ha_resync_info) || sync=-
	log "$role's DRBD resynced ${t_sync}s after the boot request: $sync"
	on "$role" fabric_ha_cluster_start "$OUTD/authkey" >&2 || rc=1
	if wait_for 300 online_on "$role"; then
		t_online=$((SECONDS - t0))
	else
		echo "$role did not join the cluster within 300s" >&2
		rc=1
	fi
	if wait_roles 400 "$peer" "$HA_LU_CLONE" "nodeA=Promoted nodeB=Unpromoted"; then
		t_roles=$((SECONDS - t0))
	else
		rc=1
	fi
	if wait_for 300 mpath_alua_ready; then
		t_io=$((SECONDS - t0))
	else
		echo "paths not back as at the start: $(fabric_ha_paths | tr '\n' ';')" >&2
		rc=1
	fi
	sleep 10
	fio_stop "$role-return" || rc=1
	sum=$(cat "$STATE/fio-$role-return.sum")
	# the kernel's view of the node's path: reinstated, Active/Optimized
	kt=$(path_times "$role-return up" "$(cat "$STATE/d${role#node}")") || kt="back_s=? ao_s=?"
	kt="kback_s=${kt#back_s=}"
	kt=${kt/ ao_s=/ kao_s=}
	multipath -ll >&2 || true
	log "$role-return: $sum; agent ${t_boot}s, resync ${t_sync}s, online ${t_online}s, roles ${t_roles}s, paths ${t_io}s after the boot request; $sync; kernel: $kt"
	both_as_at_start || rc=1
	eq=$(copies_equal) || rc=1
	echo "NOTE $role-return: $sum boot_s=$t_boot resync_s=$t_sync online_s=$t_online roles_s=$t_roles io_s=$t_io $sync $kt $eq mem_MiB_used/avail nodeA=$(mem_used nodeA) nodeB=$(mem_used nodeB)" >>"$SUBRESULTS"
	return "$rc"
}

# nodeB_fenced: nodeB's power was cut (fabric_kill by nodeA's fence-peer
# handler).
nodeB_fenced() {
	fabric_dead nodeB
}

# The replication link cut under fio with verification on the multipath
# device (nodeA promoted, both nodes connected): after 10 s link 3 loses
# its carrier at nodeA's end (fabric_carrier 3 off: DRBD and corosync both
# cut off). Each DRBD Primary loses its peer, freezes its I/O and calls
# the fence-peer handler (tools/testing/ha-fence-peer.sh): nodeA's, whose
# ALUA group is Active/Optimized, has the host cut nodeB's power at once;
# nodeB's waits 15 s first and dies with nodeB. nodeA's DRBD marks the
# peer Outdated and lets the I/O go on; its Pacemaker sees nodeB gone and
# keeps the agent promoted. 10 s after the I/O resumed the carrier comes
# back (fabric_carrier 3 on), nodeB stays dead (nodeB-return boots it).
# Asserted: nodeB was fenced within 120 s and nodeA not; nodeA's handler
# log says it killed nodeB; nodeA's DRBD Primary, UpToDate, the peer
# Outdated, waiting for a connection; crm_mon on nodeA shows both clones
# promoted on nodeA and nothing on nodeB; nodeA's path active ready (50),
# RTPG through it "1 0 1"; fio without I/O or verify error. A NOTE line
# has fio's summary (its stall: DRBD's freeze while the connection loss
# was noticed and the handler ran), the seconds from the cut to nodeB's
# death (fenced_s) and to nodeA's DRBD showing the peer Outdated
# (resumed_s), to the initiator's kernel seeing nodeB's port group
# Active/Optimized (b_kao_s, "-" for never: Pacemaker on nodeB, which
# lost nodeA as well, promotes its instance unless nodeB is fenced
# first), and what became of nodeB's path.
case_link_cut() {
	local t0 t_fenced=- t_res=- sum rc=0 hlog fenced r n0 bao hfile=$FABRIC_SHARE/out/nodeA/fence-peer.log
	! fabric_dead nodeA || { echo "nodeA is dead" >&2; return 1; }
	! fabric_dead nodeB || { echo "nodeB is dead" >&2; return 1; }
	on nodeB fabric_ha_drbd_wait 1 '^cs:Connected ro:Primary/Primary ds:UpToDate/UpToDate' >&2 || return 1
	mpath_alua_ready || { echo "nodeA is not the node with I/O: $(fabric_ha_paths | tr '\n' ';')" >&2; return 1; }
	# nodeA's fence-peer handler log from here on
	n0=$(wc -l <"$hfile" 2>/dev/null) || n0=0
	fio_start link-cut
	sleep 10
	fio_running link-cut || return 1
	fabric_mark FAULT "link-cut down"
	t0=$SECONDS
	fabric_carrier 3 off >&2 || rc=1
	if wait_for 120 nodeB_fenced; then
		t_fenced=$((SECONDS - t0))
		log "nodeB's power cut ${t_fenced}s after the link's"
	else
		echo "nodeB was not fenced within 120s of the cut" >&2
		rc=1
	fi
	if on nodeA fabric_ha_drbd_wait 120 '^cs:[A-Za-z]+ ro:Primary/Unknown ds:UpToDate/Outdated' >&2; then
		t_res=$((SECONDS - t0))
	else
		rc=1
	fi
	sleep 10
	fabric_mark FAULT "link-cut up"
	fabric_carrier 3 on >&2 || rc=1
	wait_roles 60 nodeA "$HA_LU_CLONE" "nodeA=Promoted nodeB=-" || rc=1
	sleep 5
	fio_stop link-cut || rc=1
	sum=$(cat "$STATE/fio-link-cut.sum")
	multipath -ll >&2 || true
	fabric_ha_paths >&2
	hlog=$(tail -n +$((n0 + 1)) "$hfile" 2>/dev/null | tr '\n' ';') || hlog=
	log "link-cut: $sum; nodeB fenced ${t_fenced}s, nodeA's I/O resumed ${t_res}s after the cut; nodeA's fence-peer handler: $hlog"
	log "nodeB's fence-peer handler: $(tr '\n' ';' <"$FABRIC_SHARE/out/nodeB/fence-peer.log" 2>/dev/null)"
	# nodeB's port reported Active/Optimized after the cut: Pacemaker on
	# nodeB, which lost nodeA too, promoted its instance before it was
	# fenced ("-": it did not)
	bao=$(path_times "link-cut down" "$(cat "$STATE/dB")") || bao="ao_s=?"
	bao=${bao#*ao_s=}
	fenced=
	for r in nodeA nodeB; do
		! fabric_dead "$r" || fenced+=${fenced:+,}$r
	done
	echo "NOTE link-cut: $sum fenced=${fenced:--} fenced_s=$t_fenced resumed_s=$t_res b_kao_s=$bao b_path=\"$(fabric_ha_paths | awk -v d="$(cat "$STATE/dB")" '$1 == d { print $2, $3 }')\"" >>"$SUBRESULTS"
	! fabric_dead nodeA || { echo "nodeA was fenced" >&2; rc=1; }
	[[ $hlog == *"nodeB killed"* ]] || { echo "nodeA's fence-peer handler did not kill nodeB" >&2; rc=1; }
	on nodeA fabric_ha_drbd_wait 10 '^cs:WFConnection ro:Primary/Unknown ds:UpToDate/Outdated' >&2 || rc=1
	expect "crm_mon on nodeA, DRBD" "$(on nodeA fabric_ha_crm_roles "$HA_DRBD_CLONE")" "nodeA=Promoted nodeB=-" || rc=1
	expect "crm_mon on nodeA, SRPTarget" "$(on nodeA fabric_ha_crm_roles "$HA_LU_CLONE")" "nodeA=Promoted nodeB=-" || rc=1
	fabric_ha_path_is "$(cat "$STATE/dA")" active ready 50 ||
		{ echo "nodeA's path: $(fabric_ha_paths | tr '\n' ';')" >&2; rc=1; }
	expect "RTPG through nodeA's path" "$(fabric_ha_rtpg "/dev/$(cat "$STATE/dA")")" "1 0 1" || rc=1
	return "$rc"
}

# both nodes at once: soft-RoCE, ib_srpt, DRBD's metadata on the node's
# disk, DRBD up
on nodeA fabric_ha_node_setup new >"$OUTD/setup-nodeA.log" 2>&1 &
pa=$!
on nodeB fabric_ha_node_setup new >"$OUTD/setup-nodeB.log" 2>&1 &
pb=$!
rc=0
wait "$pa" || rc=1
wait "$pb" || rc=1
((rc == 0)) || die "node setup failed: $(tail -n 3 "$OUTD"/setup-node*.log)"
fabric_rdma_setup || die "soft-RoCE setup failed"

trap stop_clusters EXIT
sub_case drbd-connected case_connected || die "DRBD does not connect"
sub_case secondary-refuses case_secondary_refuses || true
sub_case initial-sync case_initial_sync || die "no initial sync"
sub_case cluster case_cluster || die "the cluster did not come up"
sub_case dual-primary case_dual_primary || die "not dual-primary"
sub_case agents case_agents || die "the agents did not start"
sub_case mpath-alua case_mpath_alua || die "no multipath device"
if [[ ${SRPT_TEST_HA_SWITCHOVER:-1} == 1 ]]; then
	sub_case switchover case_switchover || true
	sub_case switchback case_switchback || true
	crm_roles_are nodeA "$HA_LU_CLONE" "nodeA=Promoted nodeB=Unpromoted" && mpath_alua_ready ||
		die "not back on nodeA after the switch-overs"
fi
sub_case kill-nodeA case_kill_nodeA || true
sub_case nodeA-return case_node_return nodeA || true
sub_case link-cut case_link_cut || true
sub_case nodeB-return case_node_return nodeB || true
sub_case logout case_logout || true
sub_case cluster-stop case_cluster_stop || true
sub_exit
