# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib-fabric.sh - helpers for the two-guest tests (tools/testing/fabric/*.sh,
# "vm.sh fabric"). Source it after lib.sh.
#
# The topology: two guests, "target" and "initiator" (the role is
# ibsrpt_role= on the kernel command line), joined by two virtual Ethernet
# links (QEMU socket netdevs). Link L (1 or 2) has fixed addresses:
#
#	target     MAC 52:54:00:52:0L:01  10.212.L.1/24  soft-RoCE rxe<L-1>
#	initiator  MAC 52:54:00:52:0L:02  10.212.L.2/24  soft-RoCE rxe<L-1>
#
# With FABRIC_NODES=3 (vm.sh exports it into the guests; "# fabric-nodes 3"
# in a test's header) there are three guests: "initiator" and the HA pair
# "nodeA" and "nodeB", and three links:
#
#	link 1  nodeA      52:54:00:52:01:01  10.212.1.1  initiator .01:02 .1.2
#	link 2  nodeB      52:54:00:52:02:01  10.212.2.1  initiator .02:02 .2.2
#	link 3  nodeA      52:54:00:52:03:01  10.212.3.1  nodeB     .03:02 .3.2
#
# Links 1 and 2 carry soft-RoCE (each node's target port, the initiator's
# two paths), link 3 plain IP (DRBD replication, the cluster). The
# requests below go to nodeA and nodeB as to the target; "fabric_on host
# fabric_kill nodeA" (fabric_kill) cuts a node's power, "fabric_on host
# fabric_boot nodeA" (fabric_boot) boots a node so killed again.
#
# The tests run in the initiator guest; the target guest runs an agent
# (fabric_agent) that executes commands sent with fabric_on over the shared
# run directory (9p, no caching, so both guests see each other's files at
# once): a request is a script file, its answer the output and the status.
# Requests run in parallel (a test can keep a fault going in the target
# with "fabric_on target ... &" while it checks I/O here). The host side of
# vm.sh serves one request too, "fabric_on host fabric_carrier LINK on|off"
# (see fabric_carrier).

# shellcheck disable=SC2034 # globals for the tests that source this file
FABRIC_SHARE=${FABRIC_SHARE:-/ib_srpt}
FABRIC_SPOOL=${FABRIC_SPOOL:-$FABRIC_SHARE/out/spool}
FABRIC_NODES=${FABRIC_NODES:-2}

# fabric_role: print this guest's role (target, initiator or none).
fabric_role() {
	local arg
	for arg in $(</proc/cmdline); do
		[[ $arg == ibsrpt_role=* ]] && { echo "${arg#ibsrpt_role=}"; return; }
	done
	echo none
}

# fabric_links ROLE: print the links of ROLE's guest (blank-separated).
fabric_links() {
	case $1 in
	nodeA) echo "1 3" ;;
	nodeB) echo "2 3" ;;
	*) echo "1 2" ;;
	esac
}

# fabric_rdma_links ROLE: print the links with soft-RoCE in ROLE's guest
# (a node of the HA pair has none on link 3).
fabric_rdma_links() {
	case $1 in
	nodeA) echo 1 ;;
	nodeB) echo 2 ;;
	*) echo "1 2" ;;
	esac
}

# fabric_target_roles: print the roles of the guests the initiator's tests
# send requests to: "target", or with FABRIC_NODES=3 "nodeA nodeB".
fabric_target_roles() {
	if [[ $FABRIC_NODES == 3 ]]; then
		echo "nodeA nodeB"
	else
		echo target
	fi
}

# fabric_end LINK ROLE: print ROLE's end of LINK: 2 for the initiator and
# for nodeB on link 3, else 1.
fabric_end() {
	if [[ $2 == initiator || ($2 == nodeB && $1 == 3) ]]; then
		echo 2
	else
		echo 1
	fi
}

# fabric_mac LINK ROLE: print the MAC address of ROLE's NIC on LINK.
fabric_mac() {
	echo "52:54:00:52:0$1:0$(fabric_end "$1" "$2")"
}

# fabric_ip LINK ROLE: print the IPv4 address of ROLE on LINK.
fabric_ip() {
	echo "10.212.$1.$(fabric_end "$1" "$2")"
}

# shellcheck disable=SC2207 # numbers
FABRIC_LINKS=($(fabric_links "$(fabric_role)"))

# fabric_nic LINK: print the name of this guest's network device on LINK
# (found by its MAC address).
fabric_nic() {
	local mac d
	mac=$(fabric_mac "$1" "$(fabric_role)")
	for d in /sys/class/net/*; do
		[[ $(cat "$d/address" 2>/dev/null) == "$mac" ]] && { basename "$d"; return 0; }
	done
	echo "fabric_nic: no network device with MAC $mac" >&2
	return 1
}

# fabric_rdma LINK: print the soft-RoCE device of LINK (rxe0 or rxe1).
fabric_rdma() {
	echo "rxe$(($1 - 1))"
}

# fabric_net_setup: give both NICs their addresses and bring them up (the
# runner does it once per boot).
fabric_net_setup() {
	local l nic role
	role=$(fabric_role)
	# no udev loads the driver
	modprobe virtio_net || return
	for l in "${FABRIC_LINKS[@]}"; do
		wait_for 20 fabric_nic "$l" >/dev/null 2>&1 || true
		nic=$(fabric_nic "$l") || return
		ip addr add "$(fabric_ip "$l" "$role")/24" dev "$nic" || return
		ip link set "$nic" up || return
	done
}

# fabric_rdma_setup: a soft-RoCE device on each NIC, ports active; recorded
# for teardown_all (soft_rdma_teardown deletes them).
fabric_rdma_setup() {
	local l nic dev
	modprobe rdma_rxe || return
	modprobe rdma_ucm 2>/dev/null || true
	for l in $(fabric_rdma_links "$(fabric_role)"); do
		nic=$(fabric_nic "$l") || return
		dev=$(fabric_rdma "$l")
		rdma link add "$dev" type rxe netdev "$nic" || return
		echo "rdma $dev" >>"$LIB_STATE/created"
		wait_for 20 rdma_port_active "$dev" 1 ||
			{ echo "$dev port 1 did not become active" >&2; return 1; }
	done
}

# fabric_links_restore: every link up, without netem (after a test that
# took one down); in the initiator guest also the target's carrier on every
# link (fabric_carrier).
fabric_links_restore() {
	local l nic
	for l in "${FABRIC_LINKS[@]}"; do
		if [[ $(fabric_role) == initiator ]]; then
			fabric_carrier "$l" on >/dev/null 2>&1 || true
		fi
		nic=$(fabric_nic "$l") || continue
		tc qdisc del dev "$nic" root 2>/dev/null || true
		ip link set "$nic" up
	done
	return 0
}

# fabric_link LINK up|down: set this guest's NIC on LINK up or down.
fabric_link() {
	local nic
	nic=$(fabric_nic "$1") || return
	ip link set "$nic" "$2"
}

# fabric_carrier LINK on|off: the target guest's NIC on LINK loses or
# regains its carrier, as when its cable is pulled at the target and put
# back: QEMU's set_link on the target's netdev, run by the host side of
# vm.sh (fabric_host_agent). Frames on LINK are dropped both ways while the
# carrier is off; the target guest sees the carrier go (soft-RoCE's port
# goes down, IB_EVENT_PORT_ERR), its addresses, routes and GIDs stay; the
# initiator's NIC keeps its carrier. Unlike "ip link set down", which
# flushes neighbours and the prefix route and removes the RoCE GIDs, so
# that connecting again can fail for a while after "up". Either guest.
fabric_carrier() {
	fabric_on host -t 60 fabric_carrier "$1" "$2"
}

#
# Requests between the guests
#

# fabric_on ROLE [-t SECONDS] CMD [ARG...]: run CMD with its arguments in
# the guest ROLE (lib.sh and lib-fabric.sh sourced, errexit off), print its
# output and return its status; 124 when no answer came within SECONDS
# (default 120), 125 at once when the guest was killed (fabric_kill).
fabric_on() {
	local role=$1 limit=120 id dir req
	shift
	if [[ $1 == -t ]]; then
		limit=$2
		shift 2
	fi
	dir=$FABRIC_SPOOL/$role
	mkdir -p "$dir"
	if [[ -e $dir/DEAD ]]; then
		echo "fabric_on $role: that guest was killed" >&2
		return 125
	fi
	id=$(date +%s%N)-$$-$RANDOM
	req=$dir/$id
	printf '%q ' "$@" >"$req.tmp"
	echo >>"$req.tmp"
	mv "$req.tmp" "$req.req"
	wait_for "$limit" _fabric_answered "$req" "$dir" ||
		{ echo "fabric_on $role: no answer to '$*' within ${limit}s" >&2; return 124; }
	if [[ ! -e $req.rc ]]; then
		echo "fabric_on $role: killed before it answered '$*'" >&2
		return 125
	fi
	cat "$req.out"
	return "$(cat "$req.rc")"
}

# _fabric_answered REQ DIR: the request REQ has its answer, or the guest
# whose spool is DIR was killed.
_fabric_answered() {
	[[ -e $1.rc || -e $2/DEAD ]]
}

# fabric_kill ROLE: cut the power of ROLE's guest (nodeA or nodeB, three
# guests only): the host makes its QEMU quit (vm.sh fabric_host_agent) and
# marks it dead, so that fabric_on fails at once for it from then on.
fabric_kill() {
	fabric_on host -t 60 fabric_kill "$1"
}

# fabric_boot ROLE: boot ROLE's guest again after fabric_kill (three guests
# only): the host starts its QEMU with the same command line (vm.sh
# fabric_node_again) and removes the DEAD mark; its agent answers once
# fabric_agent_ready ROLE (the runner sets up its network first, as after
# the first boot; what the test set up there is gone, except what is on
# its disk).
fabric_boot() {
	fabric_on host -t 120 fabric_boot "$1"
}

# fabric_dead ROLE: true if ROLE's guest was killed.
fabric_dead() {
	[[ -e $FABRIC_SPOOL/$1/DEAD ]]
}

# fabric_agent_ready ROLE: true once ROLE's agent runs.
fabric_agent_ready() {
	test -e "$FABRIC_SPOOL/$1/READY"
}

# fabric_agent STOPFILE: serve the requests for this guest's role until
# STOPFILE exists. The caller has sourced lib.sh and this file. Each request
# runs in the background, in a subshell of the agent with errexit, nounset
# and pipefail off (a new bash that sources both files again takes about a
# second longer per request in a 1-vCPU guest); an exit in the request
# ends only its own subshell.
fabric_agent() {
	local stop=$1 dir req id
	dir=$FABRIC_SPOOL/$(fabric_role)
	mkdir -p "$dir"
	: >"$dir/READY"
	while [[ ! -e $stop ]]; do
		for req in "$dir"/*.req; do
			[[ -e $req ]] || continue
			id=${req%.req}
			mv "$req" "$id.run" || continue
			(
				set +euo pipefail
				# shellcheck disable=SC1090 # a request
				(. "$id.run") >"$id.out" 2>&1
				echo $? >"$id.rc.tmp"
				mv "$id.rc.tmp" "$id.rc"
			) </dev/null >/dev/null 2>&1 &
		done
		sleep 0.2
	done
}

#
# Target side
#

FABRIC_SO=$CFS/core/iblock_0/fabric_ram0

# fabric_target_setup [SIZE_MIB]: one brd backstore (default 128 MiB)
# exported as LUN 0 by two target ports, one per soft-RoCE device (GUID-form
# names), each with an ACL for the initiator's address on that link; both
# TPGs enabled; RDMA/CM listener on $SRP_LOGIN_PORT.
fabric_target_setup() {
	local size=${1:-128} l tpg
	srpt_load srp_max_req_size=8260 || return
	fabric_rdma_setup || return
	brd_setup "$size" 1 || return
	backstore_iblock fabric_ram0 /dev/ram0 >/dev/null || return
	# As targetcli does: without a unit serial LIO reports no VPD pages
	# (spc_emulate_evpd_00), so the disks would have no WWID (page 0x83).
	sysfs_write "$FABRIC_SO/wwn/vpd_unit_serial" 3f1c2b7a-5d4e-4a60-9b18-fab000000001 || return
	for l in "${FABRIC_LINKS[@]}"; do
		tpg=$(srpt_add_target "$(port_wwn "$(fabric_rdma "$l")" 1 guid)") || return
		srpt_add_lun "$tpg" "$FABRIC_SO" >/dev/null || return
		srpt_add_acl "$tpg" "$(fabric_ip "$l" initiator)" >/dev/null || return
		# The stock module names an RDMA/CM initiator by the address of
		# the target's own end of the connection (the source address
		# of its cm_id, srpt_rdma_cm_req_recv): "Rejected login for
		# initiator 10.212.1.1". In one guest both ends have it.
		if [[ $SRPT == stock ]]; then
			srpt_add_acl "$tpg" "$(fabric_ip "$l" target)" >/dev/null || return
		fi
		srpt_enable "$tpg" || return
	done
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
}

# fabric_tpg LINK: print the configfs TPG of the target port on LINK.
fabric_tpg() {
	local wwn
	wwn=$(port_wwn "$(fabric_rdma "$1")" 1 guid) || return
	echo "$SRPT_CFS/$wwn/$wwn"
}

# fabric_target_channels: print the number of connected RDMA/CM IDs of
# ib_srpt (one per live SRP channel).
fabric_target_channels() {
	local n
	n=$(rdma res show cm_id 2>/dev/null | grep -F 'comm [ib_srpt]' | grep -c ' state CONNECT ') || true
	echo "${n:-0}"
}

# fabric_target_sessions: print the ACL sessions LIO reports (one line per
# TPG: "<tpg> <initiator names>").
fabric_target_sessions() {
	local t
	for t in "$SRPT_CFS"/*/*/; do
		[[ -f $t/enable ]] || continue
		echo "$(basename "${t%/}") $(cat "$t/acls"/*/info 2>/dev/null | tr '\n' ' ')"
	done
}

# fabric_mark WORD NAME: write "ib_srpt-test: WORD NAME" into the kernel log.
fabric_mark() {
	echo "ib_srpt-test: $1 $2" >/dev/kmsg
}

# fabric_dmesg_since NAME: print the kernel log since the START mark of
# NAME; all of it when there is no such mark (a node that booted again
# while NAME ran, fabric_boot).
fabric_dmesg_since() {
	local log
	log=$(dmesg)
	if grep -q "ib_srpt-test: START $1\$" <<<"$log"; then
		sed -n "/ib_srpt-test: START $1\$/,\$p" <<<"$log"
	else
		echo "$log"
	fi
}

# fabric_teardown_multipath: stop multipathd and remove the multipath
# devices.
fabric_teardown_multipath() {
	local rc=0 pid
	pid=$(pidof multipathd) || true
	if [[ -n $pid ]]; then
		multipathd shutdown >/dev/null 2>&1 || kill "$pid"
		wait_for 15 test ! -e "/proc/$pid" ||
			{ echo "multipathd does not stop" >&2; rc=1; }
	fi
	if [[ -n $(fabric_mpath_name) ]]; then
		multipath -F >/dev/null || rc=1
		[[ -z $(fabric_mpath_name) ]] ||
			{ echo "multipath device $(fabric_mpath_name) still there" >&2; rc=1; }
	fi
	return "$rc"
}

# fabric_mpath_logout: the last step of a multipath test: multipath down,
# every ib_srp login ended, and no channel left in the target.
fabric_mpath_logout() {
	fabric_teardown_multipath
	srp_logout_all 60
	fabric_wait_target_channels 0 30
}

# fabric_teardown: undo a test in this guest: multipath devices and
# multipathd, then teardown_all, then links up without netem. Fails like
# teardown_all.
fabric_teardown() {
	local rc=0
	fabric_teardown_multipath || rc=1
	teardown_all || rc=1
	fabric_links_restore
	return "$rc"
}

#
# Initiator side
#

# fabric_srp_load: load ib_srp with short transport-layer timeouts, so that
# a path that fails is failed over quickly and then retried: I/O on a lost
# connection fails after fast_io_fail_tmo s (default 2) so dm-multipath
# can send it down the other path, the connection is tried again every
# reconnect_delay s (default 4), and the SCSI host is removed only after
# dev_loss_tmo s (default 600): a path comes back as the same disk.
# SRPT_TEST_FABRIC_FAST_IO_FAIL, SRPT_TEST_FABRIC_RECONNECT_DELAY and
# SRPT_TEST_FABRIC_DEV_LOSS change them.
# The reconnect delay must be longer than fast_io_fail_tmo: a reconnect
# attempt holds the rport's mutex (scsi_transport_srp srp_reconnect_rport)
# until ib_srp's connect ends, and over RDMA/CM to a target that does not
# answer that is the CM's REQ timeout (15 retries, about 75 s here, then
# -EHOSTUNREACH); the fast_io_fail work (rport_fast_io_fail_timedout) waits
# for the same mutex, so with reconnect_delay=1 the I/O stalled that long,
# no path failed and the hung-task detector reported the waiting kworker.
fabric_srp_load() {
	srp_load reconnect_delay="${SRPT_TEST_FABRIC_RECONNECT_DELAY:-4}" \
		fast_io_fail_tmo="${SRPT_TEST_FABRIC_FAST_IO_FAIL:-2}" \
		dev_loss_tmo="${SRPT_TEST_FABRIC_DEV_LOSS:-600}"
}

# fabric_link_role LINK: print the role of the guest at the far end of
# LINK from the initiator: target, or with three guests nodeA (link 1) or
# nodeB (link 2).
fabric_link_role() {
	if [[ $FABRIC_NODES == 3 && $1 == 1 ]]; then
		echo nodeA
	elif [[ $FABRIC_NODES == 3 ]]; then
		echo nodeB
	else
		echo target
	fi
}

# fabric_login LINK [KEY=VALUE...]: log in with ib_srp over RDMA/CM through
# LINK to the target's port on LINK; print the disk. The target's service
# GUID is asked for once per test (kept in its output directory).
fabric_login() {
	local l=$1 guid cache role
	shift
	fabric_srp_load || return
	role=$(fabric_link_role "$l")
	cache=$(test_out_dir)/$role-guid
	if ! guid=$(cat "$cache" 2>/dev/null) || [[ -z $guid ]]; then
		guid=$(fabric_on "$role" srpt_guid) || return
		echo "$guid" >"$cache"
	fi
	guid=${guid#0x}
	srp_login -d "$(fabric_rdma "$l")" id_ext="$guid" ioc_guid="$guid" \
		dest="$(fabric_ip "$l" target):$SRP_LOGIN_PORT" src="$(fabric_ip "$l" initiator)" "$@"
}

# The guest runs no udev: device-mapper creates its own device nodes.
export DM_DISABLE_UDEV=1

# fabric_udev_db DISK: what udev would record for a SCSI disk, so that
# multipath (which skips devices udev has not initialised) sees it: the
# device is initialised and has ID_SERIAL, the WWID scsi_id reads from VPD
# page 0x83, and ID_WWN (without it or a SCSI_IDENT_* property, multipath's
# built-in blacklist exception rejects the disk: "udev property missing").
fabric_udev_db() {
	local dev=${1#/dev/} mm serial
	mm=$(cat "/sys/class/block/$dev/dev") || return
	if ! serial=$(/lib/udev/scsi_id -g -u -d "/dev/$dev" 2>&1); then
		# Only when LIO reports no VPD pages (a backstore without
		# a unit serial, see fabric_target_setup). Both paths are
		# the same LUN (this topology has only one): a fixed WWID.
		log "scsi_id $dev failed ($serial); sg_inq -p 0x83: $(sg_inq -p 0x83 "/dev/$dev" 2>&1 | head -n 4 | tr '\n' ' ')"
		echo "NOTE $dev: no WWID from VPD page 0x83 (scsi_id failed), fixed WWID used" >>"${SUBRESULTS:-/dev/null}"
		serial=36001405fab00000000000000000000001
	fi
	mkdir -p /run/udev/data
	printf 'I:1\nE:ID_SERIAL=%s\nE:ID_WWN=0x%s\nE:ID_BUS=scsi\nE:DEVTYPE=disk\n' "$serial" "${serial:1:16}" >"/run/udev/data/b$mm"
	log "$dev: WWID $serial"
}

# fabric_multipath_conf: write /etc/multipath.conf (the guest's /etc is a
# tmpfs overlay): paths checked every second (at most every 2 s), I/O
# queued for 60 checks when no path is left instead of failing at once,
# only SCSI disks. LIO's disks as multipath-tools' built-in table has them
# (the admin guide's "Multipath" section): ALUA (the scsi_dh_alua handler,
# priorities from REPORT TARGET PORT GROUPS), paths grouped by priority;
# LIO puts both target ports into its default target port group
# (active/optimized), so both paths are in one group. The WWIDs come from
# the udev records of fabric_udev_db (scsi_id on VPD page 0x83).
fabric_multipath_conf() {
	mkdir -p /etc/multipath
	cat >/etc/multipath.conf <<'CONF'
defaults {
	user_friendly_names no
	find_multipaths off
	polling_interval 1
	max_polling_interval 2
	no_path_retry 60
}
blacklist {
	devnode "^(ram|nullb|loop|zram|sr|vd|dm-)[0-9]*"
}
devices {
	device {
		vendor "LIO-ORG"
		product ".*"
		path_grouping_policy group_by_prio
		hardware_handler "1 alua"
		prio alua
		failback immediate
		no_path_retry 60
	}
}
CONF
	# multipathd prefers the sysfs prioritizer (the kernel's ALUA state)
	# when it finds one; the HA tests ask the target (alua: REPORT
	# TARGET PORT GROUPS), see 10-ha-drbd.
	if [[ ${FABRIC_MPATH_DETECT_PRIO:-yes} == no ]]; then
		sed -i 's/^\t\tprio alua$/\t\tprio alua\n\t\tdetect_prio no/' /etc/multipath.conf
	fi
}

# fabric_multipath_start NPATHS [CMD...]: record the ib_srp disks as udev
# would, create the multipath device (multipath), start multipathd (log in
# $(test_out_dir)/multipathd.log) and wait until the device has NPATHS
# active paths (or, with CMD, until CMD succeeds); print its device node.
fabric_multipath_start() {
	local want=$1 log d
	local -a ready=(fabric_mpath_has "$want")
	(($# > 1)) && ready=("${@:2}")
	need_cmd multipathd multipath
	fabric_multipath_conf
	modprobe dm_multipath || return
	modprobe scsi_dh_alua 2>/dev/null || true
	for d in $(srp_disks); do
		fabric_udev_db "$d" || return
	done
	log=$(test_out_dir)/multipathd.log
	d=$(srp_disks | head -n 1)
	# diagnostics: what multipath needs from the disks
	{
		echo "== sg_turs / sg_inq / sg_vpd $d"
		sg_turs -v "$d"; echo "status $?"
		sg_inq "$d" | head -n 5; echo "status $?"
		sg_vpd -p 0 -v "$d"; echo "status $?"
		echo "== multipath -v4"
		multipath -v4; echo "status $?"
	} >"$(test_out_dir)/multipath-v4.log" 2>&1
	if [[ -z $(fabric_mpath_name) ]]; then
		# SG_IO fails in the guest (see fabric_udev_db): multipath's
		# checks that need it are switched off
		sed -i 's/^defaults {/defaults {\n\tpath_checker directio\n\tdetect_checker no\n\tdetect_prio no/' /etc/multipath.conf
		{ echo "== multipath -v4, directio"; cat /etc/multipath.conf; multipath -v4; echo "status $?"; } \
			>>"$(test_out_dir)/multipath-v4.log" 2>&1
	fi
	multipath -v2 >>"$log" 2>&1 || true
	setsid multipathd -d -s >>"$log" 2>&1 </dev/null &
	wait_for 60 "${ready[@]}" || {
		echo "no multipath device with $want paths as wanted (${ready[*]}):" >&2
		multipath -ll >&2 || true
		multipathd show paths >&2 || true
		tail -n 20 "$log" >&2
		multipath -v3 2>&1 | tail -n 40 >&2
		return 1
	}
	echo "/dev/mapper/$(fabric_mpath_name)"
}

# fabric_mpath_name: print the name of the (only) multipath device.
fabric_mpath_name() {
	dmsetup ls --target multipath 2>/dev/null | awk '$1 != "No" { print $1; exit }'
}

# fabric_mpath_active: print the number of paths that are active in the
# kernel's multipath table and that multipathd's checker finds ready (asks
# multipathd, which is much cheaper than multipath -ll).
fabric_mpath_active() {
	local n
	n=$(multipathd show paths format '%t %T' 2>/dev/null | grep -Ec '^active +ready') || true
	echo "${n:-0}"
}

# fabric_mpath_ll_active: the same as multipath -ll shows it.
fabric_mpath_ll_active() {
	local n
	n=$(multipath -ll 2>/dev/null | grep -c 'active ready running') || true
	echo "${n:-0}"
}

# fabric_mpath_has N: true if a multipath device exists with N active paths.
fabric_mpath_has() {
	[[ -n $(fabric_mpath_name) && $(fabric_mpath_active) == "$1" ]]
}

# fabric_fio_verify DEV SECONDS JSON [FIO_ARG...]: random 4 KiB writes on the
# first 64 MiB of DEV for SECONDS, each block read back and checked
# (crc32c) after every 64 writes, any mismatch or I/O error fatal; fio's
# JSON report goes to JSON. Returns fio's status.
fabric_fio_verify() {
	local dev=$1 secs=$2 json=$3
	shift 3
	fio --name=fabric --filename="$dev" --size=64M --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
		--verify_backlog=64 --verify_fatal=1 --do_verify=1 --time_based \
		--runtime="$secs" --output-format=json --output="$json" "$@"
}

# fabric_fio_summary JSON: print "error=E written=MiB verified=MiB
# stall_ms=S" from fio's JSON report, S the longest completion latency of
# any write or read (the I/O stall an application saw). What fio wrote
# into the file before the report (its line "fio: terminating on signal
# 2" after a SIGINT) is skipped.
fabric_fio_summary() {
	sed -n '/^{/,$p' "$1" | jq -r '.jobs[0] | "error=\(.error) written=\(.write.io_bytes / 1048576 | floor)MiB verified=\(.read.io_bytes / 1048576 | floor)MiB stall_ms=\([.write.clat_ns.max, .read.clat_ns.max] | max / 1000000 | floor)"'
}

# fabric_target_teardown: fabric_teardown in the target guest (in a node
# of the HA pair Pacemaker and corosync stopped first, if they run:
# fabric_ha_cluster_stop); fails also when ib_srpt is still loaded
# afterwards.
fabric_target_teardown() {
	local rc=0
	if pidof pacemakerd corosync >/dev/null; then
		fabric_ha_cluster_stop || rc=1
	fi
	fabric_teardown || rc=1
	if [[ -d /sys/module/ib_srpt ]]; then
		echo "ib_srpt still loaded after teardown" >&2
		rc=1
	fi
	return "$rc"
}

# fabric_port_enable LINK 0|1: disable or enable the target port on LINK
# (its TPG's enable attribute). Target side.
fabric_port_enable() {
	srpt_enable "$(fabric_tpg "$1")" "$2"
}

# fabric_wait_target_channels N [SECONDS]: wait until the target has N
# connected channels (default limit 30 s). Initiator side.
fabric_wait_target_channels() {
	local want=$1 limit=${2:-30} n
	# shellcheck disable=SC2317 # called through wait_for
	_fabric_ch_is() { n=$(fabric_on target -t 30 fabric_target_channels) && [[ $n == "$want" ]]; }
	wait_for "$limit" _fabric_ch_is ||
		{ echo "target: ${n:-?} connected channel(s), expected $want" >&2; return 1; }
}

# fabric_kernel_times NAME: from this guest's kernel log, print
# "kfail_s=F kback_s=B": F the seconds from the mark "FAULT NAME down" to
# the first "Failing path" of dm-multipath after it, B from "FAULT NAME up"
# to the first "Reinstating path" after that ("-" when there is none).
# The marks are written before the fault's commands are sent, so both
# include the time their request took to act.
fabric_kernel_times() {
	dmesg | awk -v down="ib_srpt-test: FAULT $1 down" -v up="ib_srpt-test: FAULT $1 up" '
		function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
		index($0, down) { td = ts($0); tf = ""; next }
		index($0, up) { tu = ts($0); tb = ""; next }
		/device-mapper: multipath: .*Failing path/ && td != "" && tf == "" && tu == "" { tf = ts($0) }
		/device-mapper: multipath: .*Reinstating path/ && tu != "" && tb == "" { tb = ts($0) }
		END {
			f = (tf == "") ? "-" : sprintf("%.1f", tf - td)
			b = (tb == "") ? "-" : sprintf("%.1f", tb - tu)
			printf "kfail_s=%s kback_s=%s\n", f, b
		}'
}

# fabric_fault [-f] NAME MPDEV DOWN-CMD... -- UP-CMD...: one fault under
# I/O: fio with verification on the multipath device MPDEV for
# $SRPT_TEST_FABRIC_FIO_SECS s (default 45); after 5 s DOWN-CMD runs (here;
# "fabric_on target CMD" or fabric_carrier to act elsewhere); with -f a
# path must fail (one active path left, within 60 s);
# $SRPT_TEST_FABRIC_DOWN_SECS s (default 8) later UP-CMD runs;
# then both paths must be active again (multipathd's view, then multipath
# -ll) within 90 s, fio must end without an I/O or verify error and the
# target must have two channels. Logs fio's summary (stall_ms: its longest
# completion latency, the stall a failover caused), the seconds until the
# path failed and until it was active again after UP-CMD (multipathd's
# view, polled; and from the kernel log, see fabric_kernel_times), and appends them
# to $(test_out_dir)/stalls.txt and as a NOTE line to $SUBRESULTS (the
# results show it). Initiator side, in a sub_case.
fabric_fault() {
	local need_fail=0 name mp pid t0 t_fail=- t_back rc=0 sum outd ktimes
	local secs=${SRPT_TEST_FABRIC_FIO_SECS:-45} down_secs=${SRPT_TEST_FABRIC_DOWN_SECS:-8}
	local -a down=() up=()
	[[ $1 == -f ]] && { need_fail=1; shift; }
	name=$1 mp=$2
	shift 2
	while [[ $1 != -- ]]; do down+=("$1"); shift; done
	shift
	up=("$@")
	outd=$(test_out_dir)
	fabric_fio_verify "$mp" "$secs" "$outd/fio-$name.json" >"$outd/fio-$name.err" 2>&1 &
	pid=$!
	sleep 5
	kill -0 "$pid" || { echo "$name: fio ended early: $(tail -n 5 "$outd/fio-$name.err")" >&2; return 1; }
	t0=$SECONDS
	log "$name: ${down[*]}"
	fabric_mark FAULT "$name down"
	"${down[@]}" >&2 || rc=1
	if ((need_fail)); then
		if wait_for 60 fabric_mpath_has 1; then
			t_fail=$((SECONDS - t0))
			log "$name: path failed after ${t_fail}s"
		else
			echo "$name: no path failed (active paths: $(fabric_mpath_active))" >&2
			rc=1
		fi
	fi
	sleep "$down_secs"
	log "$name: ${up[*]}"
	fabric_mark FAULT "$name up"
	"${up[@]}" >&2 || rc=1
	t0=$SECONDS
	wait_for 90 fabric_mpath_has 2 ||
		{ echo "$name: not reinstated (active paths: $(fabric_mpath_active))" >&2; rc=1; }
	t_back=$((SECONDS - t0))
	multipath -ll >&2 || true
	[[ $(fabric_mpath_ll_active) == 2 ]] ||
		{ echo "$name: multipath -ll does not show two active paths" >&2; rc=1; }
	wait "$pid" || { echo "$name: fio failed: $(tail -n 5 "$outd/fio-$name.err")" >&2; rc=1; }
	sum=$(fabric_fio_summary "$outd/fio-$name.json") || { echo "$name: no fio report" >&2; return 1; }
	ktimes=$(fabric_kernel_times "$name")
	log "$name: $sum; path failed after ${t_fail}s, active again ${t_back}s after the repair; kernel: $ktimes"
	echo "$name $sum fail_s=$t_fail back_s=$t_back $ktimes" >>"$outd/stalls.txt"
	echo "NOTE $name: $sum fail_s=$t_fail back_s=$t_back $ktimes" >>"${SUBRESULTS:-/dev/null}"
	[[ $sum == error=0\ * ]] || { echo "$name: fio reported an error" >&2; rc=1; }
	fabric_wait_target_channels 2 30 || rc=1
	return "$rc"
}

# fabric_mpath_two_paths STATEFILE: ib_srp logs in through both links;
# multipathd builds one device from exactly these two disks, both paths
# active in one ALUA path group; the target has two channels; 5 s of fio with verification on the
# device pass. The device node goes into STATEFILE. Initiator side, in a
# sub_case.
fabric_mpath_two_paths() {
	local d1 d2 mp
	d1=$(fabric_login 1)
	d2=$(fabric_login 2)
	log "paths: $d1 (link 1) $d2 (link 2)"
	mp=$(fabric_multipath_start 2)
	echo "$mp" >"$1"
	multipath -ll >&2
	[[ $(fabric_mpath_ll_active) == 2 ]]
	# one device with exactly these two paths
	[[ $(dmsetup ls --target multipath | grep -vc 'No devices') == 1 ]]
	multipath -ll | grep -q " ${d1#/dev/} "
	multipath -ll | grep -q " ${d2#/dev/} "
	# ALUA: the handler attached, both paths active/optimized (priority
	# 50) in one path group
	multipath -ll | grep -q "hwhandler='1 alua'"
	[[ $(multipath -ll | grep -c -- "-+- policy=.* prio=50 status=") == 1 ]]
	fabric_wait_target_channels 2 10
	fabric_fio_verify "$mp" 5 "$(test_out_dir)/fio-setup.json"
	log "fio before the faults: $(fabric_fio_summary "$(test_out_dir)/fio-setup.json")"
}

# fabric_fault_case NAME STATEFILE DOWN-CMD... -- UP-CMD...: the sub-case
# NAME, fabric_fault -f on the multipath device named in STATEFILE (see
# fabric_mpath_two_paths); nothing runs or is reported when
# SRPT_TEST_FABRIC_FAULTS (names, comma-separated) leaves NAME out.
fabric_fault_case() {
	local name=$1 mp
	if [[ -n ${SRPT_TEST_FABRIC_FAULTS:-} &&
		,$SRPT_TEST_FABRIC_FAULTS, != *",$name,"* ]]; then
		return 0
	fi
	mp=$(cat "$2") || return
	sub_case "$name" fabric_fault -f "$name" "$mp" "${@:3}"
}

# fabric_netem LINK on|off: impair this guest's NIC on LINK with netem
# (delay 5 ms with 2 ms jitter, 1 % loss, 25 % reordering, 1 % duplicates)
# or remove the impairment.
fabric_netem() {
	local nic
	nic=$(fabric_nic "$1") || return
	if [[ $2 == on ]]; then
		modprobe sch_netem 2>/dev/null || true
		tc qdisc add dev "$nic" root netem delay 5ms 2ms loss 1% reorder 25% 50% duplicate 1%
	else
		tc qdisc del dev "$nic" root
	fi
}

# fabric_rdma_del LINK / fabric_rdma_add LINK: remove the soft-RoCE device
# of LINK, or create it again (port active).
fabric_rdma_del() {
	rdma link del "$(fabric_rdma "$1")"
}

fabric_rdma_add() {
	local dev
	dev=$(fabric_rdma "$1")
	rdma link add "$dev" type rxe netdev "$(fabric_nic "$1")" || return
	wait_for 20 rdma_port_active "$dev" 1
}

#
# The HA pair (three guests): DRBD between nodeA and nodeB over link 3,
# each node's target port exporting the DRBD device through the resource
# agent tools/ha/SRPTarget as the same LU (one unit serial), ALUA groups 1
# (nodeA) and 2 (nodeB)
#

HA_DRBD_RES=r0
HA_DRBD_DEV=/dev/drbd0
# each node's lower disk: vm.sh's disk-<node>.img (boot_fabric3), which
# keeps its data over a power cut
HA_DRBD_DISK=/dev/vda
HA_DRBD_PORT=7789
HA_SERIAL=ha-drbd-5e1a1-0001
HA_RA=/usr/lib/ocf/resource.d/ib_srpt/SRPTarget

# ha_drbdadm ARG...: drbdadm (the test's resource is in $DRBD_TEST_CONF,
# which /etc/drbd.conf includes); drbd-utils' drbdadm runs its 8.4 variant
# for the kernel's DRBD 8.4.
ha_drbdadm() {
	drbdadm "$@"
}

# fabric_ha_drbd_conf: write $DRBD_TEST_CONF, resource r0 on each node's
# virtio disk $HA_DRBD_DISK (internal metadata), replicated over link 3,
# protocol C (a write completes when
# both disks have it), both nodes Primary at once (allow-two-primaries: the
# unpromoted target's backstore needs an open device, and DRBD 8.4 lets
# only a Primary open it), automatic recovery after a split brain only where
# one side wrote nothing (after-sb-0pri discard-zero-changes,
# after-sb-1pri discard-secondary, after-sb-2pri disconnect), online
# verify with crc32c (verify-alg; "drbdadm verify", fabric_ha_drbd_verify).
# Fencing: a Primary that loses its peer freezes its I/O and calls the
# fence-peer handler (fencing resource-and-stonith), tools/testing/
# ha-fence-peer.sh, which cuts the peer's power through the host (STONITH
# by the hypervisor) before the I/O goes on: without it, in one run under
# load (DRBD's default ping timeout of 0.5 s ran out), both Primaries went
# on alone and nodeA completed writes that nodeB never got, read back as
# zeros after nodeA's power cut. The ping timeout is 5 s here (TCG guests
# on a loaded host). SRPT_TEST_HA_RESYNC_RATE (default 100M) is the fixed
# resync rate.
fabric_ha_drbd_conf() {
	mkdir -p "${DRBD_TEST_CONF%/*}" || return
	cat >"$DRBD_TEST_CONF" <<CONF
resource $HA_DRBD_RES {
	net {
		protocol C;
		allow-two-primaries yes;
		after-sb-0pri discard-zero-changes;
		after-sb-1pri discard-secondary;
		after-sb-2pri disconnect;
		ping-timeout 50;
		verify-alg crc32c;
	}
	disk {
		fencing resource-and-stonith;
		c-plan-ahead 0;
		resync-rate ${SRPT_TEST_HA_RESYNC_RATE:-100M};
	}
	handlers {
		fence-peer "/bin/bash $FABRIC_SHARE/tools/testing/ha-fence-peer.sh";
	}
	on nodeA {
		device $HA_DRBD_DEV;
		disk $HA_DRBD_DISK;
		address $(fabric_ip 3 nodeA):$HA_DRBD_PORT;
		meta-disk internal;
	}
	on nodeB {
		device $HA_DRBD_DEV;
		disk $HA_DRBD_DISK;
		address $(fabric_ip 3 nodeB):$HA_DRBD_PORT;
		meta-disk internal;
	}
}
CONF
}

# fabric_ha_node_setup [new|return]: on a node of the pair: ib_srpt
# loaded, soft-RoCE on its initiator link, the RDMA/CM listener, the
# lower disk $HA_DRBD_DISK (virtio_blk), with "new" (the default) DRBD's
# metadata created on it, with "return" (the node booted again after a
# power cut) the metadata from before kept; then the resource up
# (Secondary, connecting to the peer; after a return DRBD resyncs what
# the bitmaps say changed), the resource agent installed where the
# ib-srpt-ha package puts it. The node's boot as in production, where
# Pacemaker's ocf:linbit:drbd brings the resource up on its own.
fabric_ha_node_setup() {
	local how=${1:-new}
	[[ $how == new || $how == return ]] || { echo "fabric_ha_node_setup: new or return, not $how" >&2; return 2; }
	srpt_load srp_max_req_size=8260 || return
	fabric_rdma_setup || return
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT" || return
	modprobe virtio_blk || return
	wait_for 20 test -b "$HA_DRBD_DISK" || { echo "no $HA_DRBD_DISK" >&2; return 1; }
	modprobe drbd || return
	# drbdmeta's lock files (/var/lock is /run/lock, a fresh tmpfs here)
	mkdir -p /run/lock /var/lib/drbd || return
	fabric_ha_drbd_conf || return
	if [[ $how == new ]]; then
		ha_drbdadm create-md "$HA_DRBD_RES" </dev/null || return
	fi
	ha_drbdadm up "$HA_DRBD_RES" || return
	mkdir -p "${HA_RA%/*}" || return
	install -m 755 "$FABRIC_SHARE/tools/ha/SRPTarget" "$HA_RA"
}

# fabric_ha_drbd_state: print DRBD's "cs:... ro:... ds:..." of r0
# (/proc/drbd: connection state, roles and disk states, this node first).
fabric_ha_drbd_state() {
	awk '$1 == "0:" { print $2, $3, $4 }' /proc/drbd
}

# fabric_ha_drbd_is PATTERN: true if fabric_ha_drbd_state matches the
# extended regular expression PATTERN.
fabric_ha_drbd_is() {
	[[ $(fabric_ha_drbd_state) =~ $1 ]]
}

# fabric_ha_drbd_oos: print DRBD's out-of-sync count of r0 in KiB (the
# "oos:" of /proc/drbd: what the bitmap has marked, for instance the
# blocks an online verify found different).
fabric_ha_drbd_oos() {
	awk '$1 == "0:" { r = 1; next } r && /oos:/ { sub(/.*oos:/, ""); print $1 + 0; exit }' /proc/drbd
}

# fabric_ha_drbd_verify [SECONDS]: DRBD's online verify of r0 from this
# node (VerifyS; both nodes connected, verify-alg crc32c): every block's
# checksum compared with the peer's; wait until it ended (the kernel log's
# "Online verify done", connection state Connected again; default limit
# 600 s); print what the kernel log said about it ("Online verify found N
# 4k block out of sync!" when it found some) and the seconds it took.
fabric_ha_drbd_verify() {
	local limit=${1:-600} n0 t0=$SECONDS
	n0=$(dmesg | grep -c 'Online verify done')
	ha_drbdadm verify "$HA_DRBD_RES" || return
	if ! wait_for "$limit" _fabric_ha_verify_done "$n0"; then
		echo "online verify did not end within ${limit}s: $(fabric_ha_drbd_state)" >&2
		return 1
	fi
	echo "$(dmesg | grep -E 'Online verify (done|found)' | tail -n 2 | sed 's/^\[[^]]*\] //' | tr '\n' ';') after $((SECONDS - t0))s"
}

# _fabric_ha_verify_done N: true once the kernel log has more than N
# "Online verify done" lines and r0 is Connected again.
_fabric_ha_verify_done() {
	(($(dmesg | grep -c 'Online verify done') > $1)) && fabric_ha_drbd_is '^cs:Connected '
}

# fabric_ha_data_sum: print the MD5 sum of the data area of the lower disk
# (the first /sys/block/drbd0/size sectors of $HA_DRBD_DISK, read with
# O_DIRECT; DRBD's internal metadata behind it differs between the
# nodes). Only meaningful while nothing writes to the device.
fabric_ha_data_sum() {
	local sectors
	sectors=$(cat /sys/block/drbd0/size) || return
	((sectors > 0)) || { echo "drbd0 has no size" >&2; return 1; }
	local -
	set -o pipefail
	dd if="$HA_DRBD_DISK" bs=1M iflag=direct,count_bytes count=$((sectors * 512)) status=none |
		md5sum | cut -d' ' -f1
}

# fabric_ha_resync_info: from this node's kernel log, print "resync_kb=K
# drbd_resync_s=S sb=N": K the KiB of the last resync DRBD began ("will
# sync K KB"), S its duration as DRBD reported it at its end ("Resync done
# (total S sec"), N the number of "Split-Brain detected" lines; "-" for
# what the log lacks.
fabric_ha_resync_info() {
	dmesg | awk '
		/Began resync as/ && match($0, /will sync [0-9]+ KB/) { kb = substr($0, RSTART + 10, RLENGTH - 13) }
		/Resync done \(total [0-9]+ sec/ && match($0, /total [0-9]+ sec/) { s = substr($0, RSTART + 6, RLENGTH - 10) }
		/Split-Brain detected/ { sb++ }
		END { printf "resync_kb=%s drbd_resync_s=%s sb=%d\n", (kb == "") ? "-" : kb, (s == "") ? "-" : s, sb }'
}

# fabric_ha_drbd_wait SECONDS PATTERN: wait until fabric_ha_drbd_is
# PATTERN; print the state and the seconds waited; fails after SECONDS.
fabric_ha_drbd_wait() {
	local t0=$SECONDS
	if ! wait_for "$1" fabric_ha_drbd_is "$2"; then
		echo "DRBD: $(fabric_ha_drbd_state), not /$2/ within ${1}s" >&2
		return 1
	fi
	echo "$(fabric_ha_drbd_state) after $((SECONDS - t0))s"
}

# fabric_ha_ra ACTION: run the resource agent with the pair's parameters
# (this node's port on its initiator link, LUN 0 on $HA_DRBD_DEV, the
# initiator's address on that link as ACL, with SRPT=stock also this
# node's, groups nodeA=1 nodeB=2), as Pacemaker would on this node; print
# its output, return its status.
fabric_ha_ra() {
	local role l acl_stock=
	role=$(fabric_role)
	l=$(fabric_rdma_links "$role")
	# the stock module's name for an RDMA/CM initiator (see
	# fabric_target_setup)
	[[ $SRPT != stock ]] || acl_stock=$(fabric_ip "$l" "$role")
	env OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=ha_lu0 \
		OCF_RESKEY_port="$(port_wwn "$(fabric_rdma "$l")" 1)" OCF_RESKEY_lun=0 \
		OCF_RESKEY_path="$HA_DRBD_DEV" OCF_RESKEY_dev_name=ha_lu0 \
		OCF_RESKEY_vpd_unit_serial="$HA_SERIAL" \
		OCF_RESKEY_allowed_initiators="$(fabric_ip "$l" initiator)${acl_stock:+ $acl_stock}" \
		OCF_RESKEY_tg_pt_gp=ha_gp OCF_RESKEY_node_ids="nodeA=1 nodeB=2" \
		OCF_RESKEY_CRM_meta_on_node="$role" "$HA_RA" "$1" 2>&1
}

# fabric_ha_secondary_refuses: on a node whose DRBD is Secondary: a
# read-only open of the DRBD device fails with EMEDIUMTYPE ("Wrong medium
# type"), and the resource agent's start fails (LIO's iblock cannot open
# the device to enable the backstore), its stop then leaves nothing behind.
fabric_ha_secondary_refuses() {
	local out rc=0
	fabric_ha_drbd_is ' ro:Secondary/' || { echo "not Secondary: $(fabric_ha_drbd_state)" >&2; return 1; }
	if out=$(dd if="$HA_DRBD_DEV" of=/dev/null bs=4k count=1 iflag=direct 2>&1); then
		echo "a read-only open of the Secondary's $HA_DRBD_DEV worked" >&2
		return 1
	fi
	echo "read-only open: $out"
	[[ $out == *"Wrong medium type"* ]] || { echo "not EMEDIUMTYPE" >&2; return 1; }
	out=$(fabric_ha_ra start) || rc=$?
	echo "SRPTarget start on the Secondary: status $rc: $out"
	((rc == 1)) || { echo "start: status $rc, want 1" >&2; return 1; }
	out=$(fabric_ha_ra stop) || { echo "stop failed: $out" >&2; return 1; }
	[[ ! -e $CFS/core/iblock_0/ha_lu0 ]] || { echo "the backstore is left" >&2; return 1; }
}

# fabric_ha_rtpg DISK: print "group state pref" for each target port group
# in DISK's REPORT TARGET PORT GROUPS (decimal group ID, access state 0
# active/optimized, 1 active/non-optimized, 2 standby, ...; PREF bit); a
# unit attention (ALUA state changed) is retried twice at most.
fabric_ha_rtpg() {
	local out i
	for i in 1 2 3; do
		out=$(sg_rtpg -d "$1" 2>&1) && break
		[[ $out == *"nit attention"* ]] || { echo "sg_rtpg $1: $out" >&2; return 1; }
	done
	local line id pref
	while read -r line; do
		if [[ $line =~ target\ port\ group\ id\ :\ (0x[0-9a-fA-F]+)\ *,\ *Pref=([01]) ]]; then
			id=${BASH_REMATCH[1]} pref=${BASH_REMATCH[2]}
		elif [[ $line =~ asymmetric\ access\ state\ :\ (0x[0-9a-fA-F]+) ]]; then
			echo "$((id)) $((BASH_REMATCH[1])) $pref"
		fi
	done <<<"$out"
}

# fabric_ha_paths: print multipathd's view of the paths, one "DEV DMSTATE
# CHECKER PRIO" line each (for instance "sdb active ready 50").
fabric_ha_paths() {
	multipathd show paths format '%d %t %T %p' 2>/dev/null | awk 'NR > 1 { print $1, $2, $3, $4 }'
}

# fabric_ha_path_is DEV DMSTATE CHECKER [PRIO]: true if multipathd shows
# the path DEV so.
fabric_ha_path_is() {
	fabric_ha_paths | grep -qx "$1 $2 $3 ${4:-[0-9]*}"
}

#
# The HA pair's cluster: corosync and Pacemaker in nodeA and nodeB, over
# link 3 only. Configuration, logs and state live in the guest's writable
# overlay (/etc, /var, /run are tmpfs there); the logs are copied to
# $FABRIC_SHARE/out/<node>/ when the cluster stops.
#

HA_CLUSTER_LOGDIR=/var/log/ib_srpt-ha
HA_DRBD_CLONE=ha_drbd-clone
HA_LU_CLONE=ha_lu0-clone
# Pacemaker's daemons (pacemakerd starts the others)
HA_PCMK_DAEMONS="pacemakerd pacemaker-controld pacemaker-schedulerd pacemaker-attrd
	pacemaker-execd pacemaker-fenced pacemaker-based"

# fabric_ha_corosync_conf KEYFILE: /etc/corosync/corosync.conf and the
# shared authkey KEYFILE (made once per run, corosync-keygen) as
# /etc/corosync/authkey: the knet transport over link 3 only (one link,
# nodeA 10.212.3.1, nodeB 10.212.3.2, encrypted and authenticated with the
# key), votequorum with two_node (the survivor of a two-node cluster keeps
# quorum; both must have been up once: wait_for_all, which two_node
# implies), the token timeout $SRPT_TEST_HA_TOKEN ms (default 3000: a node
# that stops answering is declared lost after the token timeout plus the
# consensus timeout, 1.2 times the token, about 6.6 s). The log goes to
# $HA_CLUSTER_LOGDIR/corosync.log (tmpfs, not the 9p share: corosync writes
# it from the thread that passes the token).
fabric_ha_corosync_conf() {
	mkdir -p /etc/corosync /var/lib/corosync "$HA_CLUSTER_LOGDIR" || return
	install -m 400 "$1" /etc/corosync/authkey || return
	cat >/etc/corosync/corosync.conf <<CONF
totem {
	version: 2
	cluster_name: ib_srpt_ha
	transport: knet
	crypto_cipher: aes256
	crypto_hash: sha256
	token: ${SRPT_TEST_HA_TOKEN:-3000}
}
nodelist {
	node {
		name: nodeA
		nodeid: 1
		ring0_addr: $(fabric_ip 3 nodeA)
	}
	node {
		name: nodeB
		nodeid: 2
		ring0_addr: $(fabric_ip 3 nodeB)
	}
}
quorum {
	provider: corosync_votequorum
	two_node: 1
}
logging {
	to_logfile: yes
	logfile: $HA_CLUSTER_LOGDIR/corosync.log
	to_syslog: no
	to_stderr: no
	timestamp: on
}
CONF
}

# fabric_ha_cluster_start KEYFILE: on a node of the pair: corosync
# (fabric_ha_corosync_conf) and, once it answers, pacemakerd with an empty
# CIB (Pacemaker's log in $HA_CLUSTER_LOGDIR/pacemaker.log, no syslog).
# Both run detached from the request, until fabric_ha_cluster_stop.
fabric_ha_cluster_start() {
	fabric_ha_corosync_conf "$1" || return
	# no CIB from an earlier start (the host's directory is empty)
	rm -f /var/lib/pacemaker/cib/* /var/lib/pacemaker/pengine/* || return
	install -d -o hacluster -g haclient -m 750 /run/crm || return
	# the daemons that run as hacluster append to it
	install -o hacluster -g haclient -m 660 /dev/null "$HA_CLUSTER_LOGDIR/pacemaker.log" || return
	setsid corosync -f </dev/null >>"$HA_CLUSTER_LOGDIR/corosync.out" 2>&1 &
	wait_for 60 _fabric_ha_corosync_up ||
		{ echo "corosync does not answer: $(tail -n 5 "$HA_CLUSTER_LOGDIR/corosync.log")" >&2; return 1; }
	PCMK_logfile=$HA_CLUSTER_LOGDIR/pacemaker.log PCMK_logfacility=none \
		setsid pacemakerd </dev/null >>"$HA_CLUSTER_LOGDIR/pacemakerd.out" 2>&1 &
	wait_for 60 pidof pacemaker-controld >/dev/null ||
		{ echo "Pacemaker did not start: $(tail -n 5 "$HA_CLUSTER_LOGDIR/pacemakerd.out")" >&2; return 1; }
}

# _fabric_ha_corosync_up: true once corosync answers here.
_fabric_ha_corosync_up() {
	corosync-cfgtool -s >/dev/null 2>&1
}

# fabric_ha_cluster_online: true once Pacemaker here sees both nodes online
# and a DC elected.
fabric_ha_cluster_online() {
	local x
	x=$(crm_mon -1 --output-as=xml 2>/dev/null) || return
	[[ $x == *'<current_dc present="true"'* ]] || return
	[[ $(grep -c '<node name="node[AB]" .* online="true"' <<<"$x") == 2 ]]
}

# fabric_ha_cluster_wait_online SECONDS: wait until fabric_ha_cluster_online.
fabric_ha_cluster_wait_online() {
	wait_for "$1" fabric_ha_cluster_online ||
		{ echo "the cluster is not up within ${1}s:" >&2; crm_mon -1 >&2; return 1; }
}

# fabric_ha_lu_params: the SRPTarget resource's parameters in the cluster,
# "name=value" a line: every RDMA port of the node (its GUID-form target
# port, the one fabric_ha_ra names), LUN 0 on the DRBD device, the unit
# serial both nodes share, ALUA groups nodeA=1 nodeB=2, and the initiator's
# addresses on both links as ACLs (a node gets logins on its own link only;
# with SRPT=stock also the nodes' own addresses, see fabric_target_setup).
fabric_ha_lu_params() {
	local acls
	acls="$(fabric_ip 1 initiator) $(fabric_ip 2 initiator)"
	[[ $SRPT != stock ]] || acls+=" $(fabric_ip 1 nodeA) $(fabric_ip 2 nodeB)"
	printf '%s\n' port=all lun=0 "path=$HA_DRBD_DEV" dev_name=ha_lu0 \
		"vpd_unit_serial=$HA_SERIAL" "allowed_initiators=$acls" tg_pt_gp=ha_gp \
		"node_ids=nodeA=1 nodeB=2"
}

# fabric_ha_cib_resources: print the CIB's <resources>: the promotable
# clone $HA_DRBD_CLONE of ocf:linbit:drbd (resource r0, both instances
# promoted: promoted-max 2, DRBD dual-primary; notify, which the agent
# needs) and the promotable clone $HA_LU_CLONE of ocf:ib_srpt:SRPTarget
# (one instance promoted, ALUA Active/Optimized; the other Standby), both
# interleaved (an instance depends on the other clone's instance on its own
# node only). Every operation has its timeout: Pacemaker's default is 20 s
# (not the agent's meta-data), and in a run the agent's start in a TCG
# guest took longer (then Pacemaker banned the node).
fabric_ha_cib_resources() {
	local kv
	cat <<XML
<resources>
  <clone id="$HA_DRBD_CLONE">
    <meta_attributes id="$HA_DRBD_CLONE-meta">
      <nvpair id="$HA_DRBD_CLONE-promotable" name="promotable" value="true"/>
      <nvpair id="$HA_DRBD_CLONE-promoted-max" name="promoted-max" value="2"/>
      <nvpair id="$HA_DRBD_CLONE-promoted-node-max" name="promoted-node-max" value="1"/>
      <nvpair id="$HA_DRBD_CLONE-clone-max" name="clone-max" value="2"/>
      <nvpair id="$HA_DRBD_CLONE-notify" name="notify" value="true"/>
      <nvpair id="$HA_DRBD_CLONE-interleave" name="interleave" value="true"/>
    </meta_attributes>
    <primitive id="ha_drbd" class="ocf" provider="linbit" type="drbd">
      <instance_attributes id="ha_drbd-params">
        <nvpair id="ha_drbd-drbd_resource" name="drbd_resource" value="$HA_DRBD_RES"/>
      </instance_attributes>
      <operations>
        <op id="ha_drbd-start" name="start" interval="0s" timeout="240s"/>
        <op id="ha_drbd-stop" name="stop" interval="0s" timeout="100s"/>
        <op id="ha_drbd-promote" name="promote" interval="0s" timeout="90s"/>
        <op id="ha_drbd-demote" name="demote" interval="0s" timeout="90s"/>
        <op id="ha_drbd-notify" name="notify" interval="0s" timeout="90s"/>
        <op id="ha_drbd-monitor-promoted" name="monitor" interval="15s" timeout="60s" role="Promoted"/>
        <op id="ha_drbd-monitor-unpromoted" name="monitor" interval="16s" timeout="60s" role="Unpromoted"/>
      </operations>
    </primitive>
  </clone>
  <clone id="$HA_LU_CLONE">
    <meta_attributes id="$HA_LU_CLONE-meta">
      <nvpair id="$HA_LU_CLONE-promotable" name="promotable" value="true"/>
      <nvpair id="$HA_LU_CLONE-promoted-max" name="promoted-max" value="1"/>
      <nvpair id="$HA_LU_CLONE-promoted-node-max" name="promoted-node-max" value="1"/>
      <nvpair id="$HA_LU_CLONE-clone-max" name="clone-max" value="2"/>
      <nvpair id="$HA_LU_CLONE-interleave" name="interleave" value="true"/>
    </meta_attributes>
    <primitive id="ha_lu0" class="ocf" provider="ib_srpt" type="SRPTarget">
      <instance_attributes id="ha_lu0-params">
XML
	while read -r kv; do
		echo "        <nvpair id=\"ha_lu0-${kv%%=*}\" name=\"${kv%%=*}\" value=\"${kv#*=}\"/>"
	done < <(fabric_ha_lu_params)
	cat <<XML
      </instance_attributes>
      <operations>
        <op id="ha_lu0-start" name="start" interval="0s" timeout="120s"/>
        <op id="ha_lu0-stop" name="stop" interval="0s" timeout="120s"/>
        <op id="ha_lu0-promote" name="promote" interval="0s" timeout="60s"/>
        <op id="ha_lu0-demote" name="demote" interval="0s" timeout="60s"/>
        <op id="ha_lu0-monitor-promoted" name="monitor" interval="10s" timeout="60s" role="Promoted"/>
        <op id="ha_lu0-monitor-unpromoted" name="monitor" interval="11s" timeout="60s" role="Unpromoted"/>
      </operations>
    </primitive>
  </clone>
</resources>
XML
}

# fabric_ha_cib_constraints: print the CIB's <constraints>: every SRPTarget
# instance only where DRBD is Primary (a Secondary's device cannot be
# opened) and started after DRBD's promotion there; the promoted SRPTarget
# instance preferably on nodeA (score 100), else on nodeB (50; an instance
# without a promotion score is never promoted: the agent sets none).
fabric_ha_cib_constraints() {
	cat <<XML
<constraints>
  <rsc_colocation id="ha_lu0-with-drbd-promoted" score="INFINITY" rsc="$HA_LU_CLONE" with-rsc="$HA_DRBD_CLONE" with-rsc-role="Promoted"/>
  <rsc_order id="ha_drbd-promote-then-ha_lu0" kind="Mandatory" first="$HA_DRBD_CLONE" first-action="promote" then="$HA_LU_CLONE" then-action="start"/>
  <rsc_location id="ha_lu0-promoted-nodeA" rsc="$HA_LU_CLONE" role="Promoted" node="nodeA" score="100"/>
  <rsc_location id="ha_lu0-promoted-nodeB" rsc="$HA_LU_CLONE" role="Promoted" node="nodeB" score="50"/>
</constraints>
XML
}

# fabric_ha_cib_load: configure the running cluster (on one node): STONITH
# off (the test's DRBD fence-peer handler cuts a peer's power instead; see
# the admin guide for production), no-quorum-policy stop (with two_node the
# survivor keeps quorum, so it never applies to a node loss), then the
# resources and constraints above.
fabric_ha_cib_load() {
	local d
	d=$(mktemp -d) || return
	fabric_ha_cib_resources >"$d/resources.xml" || return
	fabric_ha_cib_constraints >"$d/constraints.xml" || return
	crm_attribute -t crm_config -n stonith-enabled -v false || return
	crm_attribute -t crm_config -n no-quorum-policy -v stop || return
	cibadmin --replace --scope resources --xml-file "$d/resources.xml" || return
	cibadmin --replace --scope constraints --xml-file "$d/constraints.xml" || return
	rm -rf "$d"
}

# fabric_ha_crm_roles CLONE: print the role of CLONE's instance on each node
# as Pacemaker's status shows it, "nodeA=ROLE nodeB=ROLE" (Promoted,
# Unpromoted, Started; "-" for none, as on a node that is gone).
fabric_ha_crm_roles() {
	local x n r out=()
	x=$(crm_mon -1 --output-as=xml 2>/dev/null) || return
	for n in nodeA nodeB; do
		r=$(xmllint --xpath "string(//clone[@id='$1']/resource[node/@name='$n']/@role)" - <<<"$x" 2>/dev/null)
		out+=("$n=${r:--}")
	done
	echo "${out[*]}"
}

# fabric_ha_cluster_stop [SECONDS]: stop Pacemaker (it stops its resources
# here first: SRPTarget, DRBD) and corosync on this node; after SECONDS
# (default 120) kill what is left. The logs go to $FABRIC_SHARE/out/<node>/.
# Nothing to do when neither runs. Fails when something had to be killed.
fabric_ha_cluster_stop() {
	local limit=${1:-120} rc=0 pid d
	if pid=$(pidof pacemakerd); then
		kill -TERM "$pid"
		if ! wait_for "$limit" test ! -e "/proc/$pid"; then
			echo "pacemakerd did not stop within ${limit}s: killed" >&2
			rc=1
		fi
	fi
	for d in $HA_PCMK_DAEMONS; do
		pid=$(pidof "$d") || continue
		echo "$d still runs: killed" >&2
		kill -KILL $pid
		rc=1
	done
	if pid=$(pidof corosync); then
		kill -TERM "$pid"
		wait_for 30 test ! -e "/proc/$pid" ||
			{ echo "corosync did not stop: killed" >&2; kill -KILL "$pid"; rc=1; }
	fi
	if [[ -d $HA_CLUSTER_LOGDIR ]]; then
		d=$FABRIC_SHARE/out/$(fabric_role)
		{ mkdir -p "$d" && cp -r "$HA_CLUSTER_LOGDIR/." "$d/"; } || rc=1
	fi
	return "$rc"
}

# fabric_ha_dc: print the name of the cluster's DC (Pacemaker's designated
# controller, whose scheduler decides), "-" for none.
fabric_ha_dc() {
	local dc
	dc=$(crm_mon -1 --output-as=xml 2>/dev/null | xmllint --xpath 'string(//current_dc/@name)' - 2>/dev/null)
	echo "${dc:--}"
}

#
# Ceph RBD gateways (three guests, tools/testing/ceph-gateway-run.sh):
# nodeA and nodeB each map the same RBD image of the cluster of
# ceph-cluster.sh with the kernel's rbd driver and export it through
# ib_srpt as one LU (one unit serial): ALUA group 1 on nodeA
# (Active/Optimized, PREF), group 2 on nodeB (Active/Non-optimized). Each
# gateway reaches the cluster through a NIC of its own on the cluster's
# bridge (the runner's tap device, FABRIC_QEMU_EXTRA_<node> in vm.sh):
#
#	nodeA  MAC 52:54:00:52:0a:11  $CEPH_GW_NET.11/24
#	nodeB  MAC 52:54:00:52:0a:12  $CEPH_GW_NET.12/24
#
# The runner passes the cluster's subnet, a client configuration with the
# monitor's address and the key of client.srpt (copied into the run
# directory) and the image as SRPT_TEST_CEPH_*.
#

CEPH_GW_NET=${SRPT_TEST_CEPH_NET:-10.212.10}
CEPH_GW_CONF=${SRPT_TEST_CEPH_CONF:-$FABRIC_SHARE/ceph/ceph.conf}
CEPH_GW_IMAGE=${SRPT_TEST_CEPH_IMAGE:-rbd/img0}
CEPH_GW_SERIAL=ceph-gw-3c1b0a25-0001
CEPH_GW_SO=$CFS/core/iblock_0/ceph_lu0
CEPH_GW_GP=ceph_gw_gp

# fabric_ceph_gw_group ROLE: print ROLE's ALUA target port group ID (nodeA
# 1, nodeB 2).
fabric_ceph_gw_group() {
	case $1 in
	nodeA) echo 1 ;;
	nodeB) echo 2 ;;
	*) echo "fabric_ceph_gw_group: $1 is no gateway" >&2; return 1 ;;
	esac
}

# fabric_ceph_gw_mac ROLE / fabric_ceph_gw_ip ROLE: the MAC and IPv4
# address of ROLE's NIC on the cluster's bridge.
fabric_ceph_gw_mac() {
	echo "52:54:00:52:0a:1$(fabric_ceph_gw_group "$1")"
}

fabric_ceph_gw_ip() {
	echo "$CEPH_GW_NET.1$(fabric_ceph_gw_group "$1")"
}

# fabric_nic_of_mac MAC: print the network device with MAC address MAC.
fabric_nic_of_mac() {
	local d
	for d in /sys/class/net/*; do
		[[ $(cat "$d/address" 2>/dev/null) == "$1" ]] && { basename "$d"; return 0; }
	done
	return 1
}

# fabric_ceph_mon_up: true once the monitor ($CEPH_GW_NET.1, msgr1 port
# 6789) accepts a TCP connection.
fabric_ceph_mon_up() {
	timeout 3 bash -c ': <"/dev/tcp/$1/6789"' _ "$CEPH_GW_NET.1" 2>/dev/null
}

# fabric_ceph_gw_net: this gateway's NIC on the cluster's bridge up with
# its address; wait until the monitor answers (60 s).
fabric_ceph_gw_net() {
	local role mac nic
	role=$(fabric_role)
	mac=$(fabric_ceph_gw_mac "$role") || return
	if ! wait_for 20 fabric_nic_of_mac "$mac" >/dev/null; then
		echo "no NIC with MAC $mac (the runner's tap, FABRIC_QEMU_EXTRA_$role)" >&2
		return 1
	fi
	nic=$(fabric_nic_of_mac "$mac") || return
	ip addr add "$(fabric_ceph_gw_ip "$role")/24" dev "$nic" || return
	ip link set "$nic" up || return
	wait_for 60 fabric_ceph_mon_up ||
		{ echo "the monitor at $CEPH_GW_NET.1:6789 does not answer" >&2; return 1; }
}

# fabric_ceph_rbd ARG...: the rbd CLI as client.srpt with the runner's
# configuration.
fabric_ceph_rbd() {
	rbd -c "$CEPH_GW_CONF" --id srpt "$@"
}

# fabric_ceph_gw_map: map $CEPH_GW_IMAGE with the kernel's rbd driver and
# print its device (/dev/rbd0). No udev runs in the guests: "-o noudev"
# makes rbd wait for the device in sysfs instead of for udev's event, and
# devtmpfs makes the node.
fabric_ceph_gw_map() {
	local dev
	[[ -r $CEPH_GW_CONF ]] ||
		{ echo "no $CEPH_GW_CONF: run the test with tools/testing/ceph-gateway-run.sh" >&2; return 1; }
	modprobe rbd || return
	# the rbd CLI's admin socket and log directories (tmpfs here)
	mkdir -p /run/ceph /var/log/ceph || return
	dev=$(fabric_ceph_rbd device map -o noudev "$CEPH_GW_IMAGE") || return
	wait_for 10 test -b "$dev" || { echo "no block device $dev" >&2; return 1; }
	echo "$dev"
}

# fabric_ceph_gw_dev: print the device of the mapped image (the first rbd
# device; one mapping per gateway).
fabric_ceph_gw_dev() {
	local d
	for d in /sys/bus/rbd/devices/*; do
		[[ -e $d/name ]] || continue
		echo "/dev/rbd${d##*/}"
		return 0
	done
	echo "no rbd device mapped" >&2
	return 1
}

# fabric_ceph_gw_export DEV: export DEV through ib_srpt as the gateways'
# LU: ib_srpt loaded, soft-RoCE on this node's initiator link, the RDMA/CM
# listener; an iblock backstore with the gateways' unit serial (set before
# the LU is exported: LIO refuses a new one afterwards) and without write
# cache emulation (what the initiator sees follows rbd, which announces no
# volatile write cache); this node's ALUA group (implicit ALUA; nodeA's
# Active/Optimized with PREF, nodeB's Active/Non-optimized with
# nonop_delay_msecs 0: LIO would hold every command on a non-optimized
# path 100 ms, core_alua_check_nonop_delay in __target_submit); a target
# port whose TPG has relative port ID 256 x group + 1, LUN 0 in the
# group, the initiator's address on the link as ACL, the TPG enabled.
fabric_ceph_gw_export() {
	local dev=$1 role gid l so gp tpg lun state=0 pref=1
	role=$(fabric_role)
	gid=$(fabric_ceph_gw_group "$role") || return
	if ((gid == 2)); then
		state=1 pref=0
	fi
	l=$(fabric_rdma_links "$role")
	srpt_load srp_max_req_size=8260 || return
	fabric_rdma_setup || return
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT" || return
	so=$(backstore_iblock "${CEPH_GW_SO##*/}" "$dev") || return
	sysfs_write "$so/wwn/vpd_unit_serial" "$CEPH_GW_SERIAL" || return
	sysfs_write "$so/attrib/emulate_write_cache" 0 || return
	gp=$so/alua/$CEPH_GW_GP
	mkdir "$gp" || return
	sysfs_write "$gp/tg_pt_gp_id" "$gid" || return
	sysfs_write "$gp/alua_access_type" 1 || return
	sysfs_write "$gp/nonop_delay_msecs" 0 || return
	sysfs_write "$gp/preferred" "$pref" || return
	sysfs_write "$gp/alua_access_state" "$state" || return
	tpg=$(srpt_add_target "$(port_wwn "$(fabric_rdma "$l")" 1 guid)") || return
	sysfs_write "$tpg/rtpi" $((256 * gid + 1)) || return
	lun=$(srpt_add_lun "$tpg" "$so" 0) || return
	sysfs_write "$lun/alua_tg_pt_gp" "$CEPH_GW_GP" || return
	srpt_add_acl "$tpg" "$(fabric_ip "$l" initiator)" >/dev/null || return
	# the stock module's name for an RDMA/CM initiator (see
	# fabric_target_setup)
	if [[ $SRPT == stock ]]; then
		srpt_add_acl "$tpg" "$(fabric_ip "$l" "$role")" >/dev/null || return
	fi
	srpt_enable "$tpg"
}

# fabric_ceph_gw_setup: on a gateway (after each boot): its NIC on the
# cluster's bridge, the image mapped, the LU exported
# (fabric_ceph_gw_export); prints the seconds the mapping took.
fabric_ceph_gw_setup() {
	local dev t0
	fabric_ceph_gw_net || return
	t0=$SECONDS
	dev=$(fabric_ceph_gw_map) || return
	echo "mapped $CEPH_GW_IMAGE as $dev in $((SECONDS - t0))s"
	fabric_ceph_gw_export "$dev"
}

# fabric_ceph_gw_info: print this gateway's LU as "IMAGE SIZE group=G
# state=S pref=P nonop_delay=D serial=SERIAL": the image its rbd device
# maps (pool/name) and its size in bytes, the ALUA group's ID, state,
# PREF bit and non-optimized delay, and the backstore's unit serial.
fabric_ceph_gw_info() {
	local dev n gp serial
	dev=$(fabric_ceph_gw_dev) || return
	n=/sys/bus/rbd/devices/${dev#/dev/rbd}
	gp=$CEPH_GW_SO/alua/$CEPH_GW_GP
	[[ -d $gp ]] || { echo "no ALUA group $gp" >&2; return 1; }
	serial=$(sed -n 's/^T10 VPD Unit Serial Number: //p' "$CEPH_GW_SO/wwn/vpd_unit_serial")
	echo "$(<"$n/pool")/$(<"$n/name") $(<"$n/size") group=$(<"$gp/tg_pt_gp_id")" \
		"state=$(<"$gp/alua_access_state") pref=$(<"$gp/preferred")" \
		"nonop_delay=$(<"$gp/nonop_delay_msecs") serial=$serial"
}

# fabric_ceph_gw_sum: print the SHA-256 of the whole mapped image as this
# gateway reads it (O_DIRECT).
fabric_ceph_gw_sum() {
	local dev
	dev=$(fabric_ceph_gw_dev) || return
	local -
	set -o pipefail
	dd if="$dev" bs=1M iflag=direct status=none | sha256sum | cut -c1-64
}

# fabric_ceph_gw_rbd_errors: print the kernel log's lines of rbd requests
# that failed ("rbd: rbd0: ... result -N"); nothing when there are none.
fabric_ceph_gw_rbd_errors() {
	dmesg | grep -E 'rbd: rbd[0-9]+: .*result -[0-9]+' || true
}

# fabric_ceph_gw_unmap: every rbd device unmapped, rbd and libceph
# unloaded; fails when one is left.
fabric_ceph_gw_unmap() {
	local d rc=0
	for d in /sys/bus/rbd/devices/*; do
		[[ -e $d/name ]] || continue
		fabric_ceph_rbd device unmap -o noudev "/dev/rbd${d##*/}" || rc=1
	done
	if [[ -d /sys/module/rbd ]]; then
		modprobe -r rbd || rc=1
	fi
	if [[ -d /sys/module/libceph ]]; then
		modprobe -r libceph || rc=1
	fi
	[[ ! -d /sys/module/rbd && ! -d /sys/module/libceph ]] ||
		{ echo "rbd or libceph still loaded" >&2; rc=1; }
	return "$rc"
}

# fabric_ceph_gw_teardown: the gateway undone: the LU and ib_srpt
# (fabric_target_teardown), then the image unmapped and its modules
# unloaded (fabric_ceph_gw_unmap). Nothing to do on a gateway with
# nothing set up.
fabric_ceph_gw_teardown() {
	local rc=0
	fabric_target_teardown || rc=1
	fabric_ceph_gw_unmap || rc=1
	return "$rc"
}
