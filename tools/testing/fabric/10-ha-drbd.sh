#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# named-only
# fabric-nodes 3
#
# The HA pair (three guests, FABRIC_NODES=3; lib-fabric.sh): nodeA and
# nodeB mirror a RAM disk each with DRBD 8.4 over link 3 (protocol C, both
# Primary), both export the DRBD device through the resource agent
# tools/ha/SRPTarget as one LU (same unit serial), nodeA promoted (ALUA
# group 1 Active/Optimized), nodeB not (group 2 Standby). The initiator logs
# in to both over links 1 and 2; dm-multipath joins the two paths. Then
# nodeA's power is cut under fio and nodeB is promoted.
#
#   drbd-connected      both nodes' resources connect over link 3
#   secondary-refuses   on a Secondary (nodeB, before any promotion): a
#                       read-only open of /dev/drbd0 fails with
#                       EMEDIUMTYPE, the agent's start fails (LIO cannot
#                       open the device), its stop leaves nothing
#   initial-sync        nodeA made Primary (--force): the full resync to
#                       nodeB ends with UpToDate/UpToDate (time and rate in
#                       a NOTE line)
#   dual-primary        nodeB Primary too: Primary/Primary on both
#   agents              the agent started on both nodes, promoted on nodeA:
#                       monitor 8 on nodeA, 0 on nodeB
#   mpath-alua          one multipath device, two path groups: nodeA's path
#                       active ready (ALUA priority 50), nodeB's ghost
#                       (standby, priority 1); REPORT TARGET PORT GROUPS
#                       through nodeA's path "1 0 1" (group 1 A/O, PREF),
#                       through nodeB's "2 2 0" (group 2 Standby); 5 s of
#                       fio with verification pass
#   kill-nodeA          fio with crc32c verification on the multipath
#                       device; after 10 s nodeA's QEMU quits (power cut);
#                       SRPT_TEST_HA_PROMOTE_DELAY s later (default 5: what
#                       corosync's token and consensus timeouts take) the
#                       test promotes the agent on nodeB, as Pacemaker
#                       would (no Pacemaker runs here); then: fio ends with
#                       no I/O error and no verify error, nodeB's path is
#                       active ready with priority 50, nodeA's failed,
#                       RTPG through nodeB's path "2 0 1", nodeB's DRBD
#                       Primary, UpToDate, peer unknown or outdated (the
#                       fence-peer handler tools/testing/ha-fence-peer.sh
#                       found nodeA dead), and DRBD was connected right
#                       before the power cut. A NOTE line has
#                       fio's stall (longest completion latency) and the
#                       seconds from the power cut to nodeB's promotion
#                       (promoted_s), to its path active and ready in
#                       multipathd (b_io_s), and in the kernel log to
#                       dm-multipath failing nodeA's path (kfail_s) and
#                       to nodeB's disk seeing its new ALUA state
#                       (kb_state_s)
#   logout              multipathd stopped, both logins ended (nodeA's
#                       toward a dead node: with the hung-task limit at
#                       120 s, see case_logout), nodeB has no channel left
#
# SRPT_TEST_HA_FIO_SECS (default 60) is the length of the fio run of
# kill-nodeA. The test kills nodeA: the runner tears down only nodeB
# (where ib_srpt must unload); nodeA's kernel log is out/nodeA/dmesg.log.
# "named-only": run it with "vm.sh fabric 10-ha-drbd" or make check-ha.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

need_cmd multipathd multipath fio jq sg_rtpg
[[ $FABRIC_NODES == 3 ]] || die "this test needs the three-guest fabric (FABRIC_NODES=3)"
STATE=$(mktemp -d)
OUTD=$(test_out_dir)

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

case_dual_primary() {
	on nodeB ha_drbdadm primary "$HA_DRBD_RES"
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

case_agents() {
	ra nodeA start 0
	ra nodeB start 0
	ra nodeA promote 0
	ra nodeA monitor 8
	ra nodeB monitor 0
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
	dA=$(fabric_login 1)
	dB=$(fabric_login 2)
	echo "${dA#/dev/}" >"$STATE/dA"
	echo "${dB#/dev/}" >"$STATE/dB"
	log "paths: $dA (nodeA, link 1) $dB (nodeB, link 2)"
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

case_kill_nodeA() {
	local mp pid t0 ktimes t_io=- t_prom=- sum rc=0 secs=${SRPT_TEST_HA_FIO_SECS:-60}
	local delay=${SRPT_TEST_HA_PROMOTE_DELAY:-5}
	mp=$(cat "$STATE/mp")
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
	log "nodeA killed"
	# What Pacemaker would do (none runs in this test): corosync sees
	# nodeA gone after its token and consensus timeouts, and Pacemaker
	# promotes the agent's clone on nodeB, the only node left.
	sleep "$delay"
	log "promoting nodeB (the test, in Pacemaker's place)"
	fabric_mark FAULT "kill-nodeA up"
	ra nodeB promote 0 || rc=1
	t_prom=$((SECONDS - t0))
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
	log "kill-nodeA: $sum; nodeB promoted ${t_prom}s and its path active/ready ${t_io}s after the power cut; kernel: $ktimes"
	echo "NOTE kill-nodeA: $sum promoted_s=$t_prom b_io_s=$t_io $ktimes" >>"$SUBRESULTS"
	[[ $sum == error=0\ * ]] || { echo "fio reported an error" >&2; rc=1; }
	a_failed || { echo "nodeA's path is not failed: $(fabric_ha_paths | tr '\n' ';')" >&2; rc=1; }
	expect "RTPG through nodeB's path" "$(fabric_ha_rtpg "/dev/$(cat "$STATE/dB")")" "2 0 1" || rc=1
	# (Outdated: the fence-peer handler saw nodeA dead, STONITH done)
	on nodeB fabric_ha_drbd_wait 10 '^cs:WFConnection ro:Primary/Unknown ds:UpToDate/(DUnknown|Outdated)' >&2 || rc=1
	log "nodeB's fence-peer handler: $(tr '\n' ';' <"$FABRIC_SHARE/out/nodeB/fence-peer.log" 2>/dev/null)"
	return "$rc"
}

# The logout of nodeA's path waits for ib_srp's reconnect attempt in
# progress (it holds the rport's mutex, srp_stop_rport_timers waits for
# it), and a connect to a dead node ends only with the CM's REQ timeout,
# about 75 s (-113): in one run the hung-task detector (30 s in the
# guests) reported the srp_remove_work kworker. The initiator's, not the
# target's: the logout raises the limit to 120 s and logs how long it took.
case_logout() {
	local t0=$SECONDS old
	fabric_teardown_multipath
	old=$(cat /proc/sys/kernel/hung_task_timeout_secs)
	echo 120 >/proc/sys/kernel/hung_task_timeout_secs
	srp_logout_all 120 || { echo "$old" >/proc/sys/kernel/hung_task_timeout_secs; return 1; }
	echo "$old" >/proc/sys/kernel/hung_task_timeout_secs
	log "both logouts took $((SECONDS - t0))s"
	fabric_wait_target_channels_on nodeB 0 30
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

# both nodes at once: soft-RoCE, ib_srpt, RAM disk, DRBD up
on nodeA fabric_ha_node_setup >"$OUTD/setup-nodeA.log" 2>&1 &
pa=$!
on nodeB fabric_ha_node_setup >"$OUTD/setup-nodeB.log" 2>&1 &
pb=$!
rc=0
wait "$pa" || rc=1
wait "$pb" || rc=1
((rc == 0)) || die "node setup failed: $(tail -n 3 "$OUTD"/setup-node*.log)"
fabric_rdma_setup || die "soft-RoCE setup failed"

sub_case drbd-connected case_connected || die "DRBD does not connect"
sub_case secondary-refuses case_secondary_refuses || true
sub_case initial-sync case_initial_sync || die "no initial sync"
sub_case dual-primary case_dual_primary || die "not dual-primary"
sub_case agents case_agents || die "the agents did not start"
sub_case mpath-alua case_mpath_alua || die "no multipath device"
sub_case kill-nodeA case_kill_nodeA || true
sub_case logout case_logout || true
sub_exit
