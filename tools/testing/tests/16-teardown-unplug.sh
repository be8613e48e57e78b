#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown with a logged-in initiator:
# removing the configfs target and "rmmod ib_srpt" while ib_srp is logged in
# finish within 10 s (the steps that wait for the driver, enable=0 and
# rmmod; the whole sequence within 30 s, as the shell's own work is slow
# under a loaded emulator) and the initiator sees the disconnect; "rdma link del"
# of the device while logged in (hot-unplug) closes the channels and frees
# the device (the RDMA resources and the initiator's SCSI host go away);
# after "rdma link add" a login works again. Ours re-attaches the existing
# configfs WWN to the returning port by itself; with the stock module the
# stale WWN is removed and made again first.
#
# Release before removal, and waits without the global mutex: with eight channels logged in (ib_srp with
# ch_count=2 and six srp-login MULTI logins of the same initiator), two
# rounds each of
# "enable=0 && rdma link del" and "logout && configfs teardown && rmmod" in
# one command each: the device is freed ("removed") only after every channel
# of it logged "channel released", without a warning, and a new login works
# afterwards. With a second soft-RoCE device, enable=0 of a TPG whose
# initiator has a write stuck in a slow (dm-delay) backstore does not hold
# up a login to the other device: that login completes while enable=0 still
# waits. SRPT_TEST_SLOW_WRITE_MS (default 20000) is how long the stuck write
# takes; the debug lanes give it longer, as a login there takes longer.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"
# shellcheck source=tools/testing/lib-dp.sh
. "$(dirname "$0")/../lib-dp.sh"

STATE=$(mktemp -d)
DM=srpt_td_delay
# rounds of the many-channel teardown cases; srp-login channels besides ib_srp's two
ROUNDS=${SRPT_TEST_TEARDOWN_ROUNDS:-2}
TOOL_CHS=6
DM_SECTORS=0
DEV0='' IP0='' TPG0='' TPG1=''

# mk_target: GUID-form WWN, TPG, LUN 0 on $SO, ACL $IPV4, enabled, RDMA/CM
# port 5555. Sets TPG.
mk_target() {
	TPG=$(srpt_add_target "$(port_wwn "$RDMA_DEV" 1 guid)")
	srpt_add_lun "$TPG" "$SO" >/dev/null
	srpt_add_acl "$TPG" "$IPV4" >/dev/null
	srpt_enable "$TPG"
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
}

# saw_disconnect HOST MARK: true if HOST's rport is no longer running or
# the kernel log since MARK has ib_srp's disconnect message for HOST.
saw_disconnect() {
	local rport
	kmsg_since "$2" | grep -Eq "$1: ib_srp: (received DREQ|DREQ received|connection closed)" && return 0
	rport=$(cp_rport_of "$1" 2>/dev/null) || return 0
	[[ $(cat "$rport/state" 2>/dev/null) != running ]]
}

# usecs_since T: microseconds since $EPOCHREALTIME value T.
usecs_since() {
	local now=${EPOCHREALTIME/./} then=${1/./}
	echo $((now - then))
}

case_rmmod() {
	local disk host mark t0 t_en t_rm total rc=0
	disk=$(srp_login)
	host=$(srp_host_of "$disk")
	echo off >"$(cp_rport_of "$host")/reconnect_delay" 2>/dev/null || true
	mark=$(kmsg_mark)
	t0=$EPOCHREALTIME
	# What mk_target made, removed in reverse (disabling the TPG closes the
	# channels and waits for them), then the fabric and the module. The
	# two steps that wait for the driver are timed on their own too: under
	# a loaded emulator the shell's own forks add seconds.
	t_en=$EPOCHREALTIME
	echo 0 >"$TPG/enable"
	t_en=$(usecs_since "$t_en")
	rm "$TPG/acls/$IPV4/lun_0/lun_0"
	rmdir "$TPG/acls/$IPV4/lun_0" "$TPG/acls/$IPV4"
	rm "$TPG/lun/lun_0/$(basename "$SO")"
	rmdir "$TPG/lun/lun_0" "$TPG" "$(dirname "$TPG")"
	echo 0 >"$SRPT_CFS/discovery_auth/rdma_cm_port"
	rmdir "$SRPT_CFS"
	t_rm=$EPOCHREALTIME
	run_timeout 10 rmmod ib_srpt || { echo "rmmod ib_srpt failed or took over 10 s" >&2; rc=1; }
	t_rm=$(usecs_since "$t_rm")
	total=$(usecs_since "$t0")
	log "with $host logged in: enable=0 $((t_en / 1000)) ms, rmmod $((t_rm / 1000)) ms, whole teardown $((total / 1000)) ms"
	wait_for 10 saw_disconnect "$host" "$mark" || { echo "$host did not see the disconnect" >&2; rc=1; }
	kmsg_since "$mark" | grep -E "$host|ib_srpt" >&2 || true
	srp_logout "$host" 30 || rc=1
	((t_en + t_rm <= 10000000)) || { echo "enable=0 and rmmod took $(((t_en + t_rm) / 1000)) ms" >&2; rc=1; }
	# Lenient bound for the whole sequence including the shell's work.
	((total <= 30000000)) || { echo "the teardown took $((total / 1000)) ms" >&2; rc=1; }
	return "$rc"
}

case_unplug() {
	local disk host mark t0 left
	srp_logout_all
	if [[ -d /sys/module/ib_srpt ]]; then
		srpt_teardown_configfs
	else
		srpt_load srp_max_req_size=8260
	fi
	mk_target
	disk=$(srp_login)
	host=$(srp_host_of "$disk")
	mark=$(kmsg_mark)
	t0=$SECONDS
	rdma link del "$RDMA_DEV"
	log "rdma link del $RDMA_DEV: $((SECONDS - t0))s"
	wait_for 10 test ! -e "/sys/class/infiniband/$RDMA_DEV" || { echo "$RDMA_DEV still exists" >&2; return 1; }
	cp_released_before_removed "$mark" "$RDMA_DEV" 1 || return 1
	wait_for 20 test ! -e "/sys/class/scsi_host/$host" || { echo "$host still exists" >&2; return 1; }
	left=$(cp_cm_ids | grep -F 'comm [ib_srpt]' | grep -v ' state LISTEN ' || true)
	[[ -z $left ]] || { echo "ib_srpt CM IDs left: $left" >&2; return 1; }
	kmsg_since "$mark" | grep -E 'ib_srpt|ib_srp|rxe' >&2 || true
	[[ -d $SRPT_CFS/$(basename "$(dirname "$TPG")") ]] || { echo "the WWN directory went away" >&2; return 1; }
	echo "$TPG" >"$STATE/tpg"
}

case_replug_reattach() {
	local disk
	rdma link add "$RDMA_DEV" type "$SOFT_RDMA_TYPE" netdev "$NETDEV"
	wait_for 20 rdma_port_active "$RDMA_DEV" 1
	echo replugged >"$STATE/replugged"
	if cp_is_stock; then
		log "stock ib_srpt: removing and re-creating the configfs target"
		srpt_teardown_configfs
		mk_target
	fi
	disk=$(srp_login)
	dd_verify "$disk" 1
	srp_logout "$disk"
}

# fresh_target: no initiator logged in, $RDMA_DEV present, ib_srpt loaded
# with just mk_target's configuration. Sets TPG. (The case functions run
# with "set -e" disabled by sub_case's "||": every step checks its status.)
fresh_target() {
	srp_logout_all || return
	if [[ ! -e /sys/class/infiniband/$RDMA_DEV ]]; then
		rdma link add "$RDMA_DEV" type "$SOFT_RDMA_TYPE" netdev "$NETDEV" || return
		wait_for 20 rdma_port_active "$RDMA_DEV" 1 || return
	fi
	if [[ -d /sys/module/ib_srpt ]]; then
		srpt_teardown_configfs || return
	else
		srpt_load srp_max_req_size=8260 || return
	fi
	mk_target
}

# login_many: log in ib_srp with two channels (no reconnecting) and
# TOOL_CHS more channels of the same initiator with srp-login (MULTI, held),
# so that many channels are released at once; print ib_srp's SCSI host.
login_many() {
	local disk host i
	disk=$(srp_login ch_count=2) || return
	host=$(srp_host_of "$disk") || return
	echo off >"$(cp_rport_of "$host")/reconnect_delay" 2>/dev/null || true
	for ((i = 0; i < TOOL_CHS; i++)); do
		cp_tool_login_bg /dev/null -M -w 300 || return
	done
	cp_wait_channels $((2 + TOOL_CHS)) 30 >&2 || return
	echo "$host"
}

# login_works: a new login and I/O work.
login_works() {
	local disk
	disk=$(srp_login) || return
	dd_verify "$disk" 1 || return
	srp_logout "$disk"
}

# host_gone HOST: wait until ib_srp's SCSI host HOST went away.
host_gone() {
	wait_for 20 test ! -e "/sys/class/scsi_host/$1" ||
		{ echo "$1 still exists" >&2; return 1; }
}

case_two_ch_disable_unplug() {
	local host mark round
	for ((round = 1; round <= ROUNDS; round++)); do
		log "round $round"
		fresh_target || return
		host=$(login_many) || return
		mark=$(kmsg_mark)
		echo 0 >"$TPG/enable" && rdma link del "$RDMA_DEV" || return
		cp_released_before_removed "$mark" "$RDMA_DEV" $((2 + TOOL_CHS)) || return
		host_gone "$host" || return
	done
	rdma link add "$RDMA_DEV" type "$SOFT_RDMA_TYPE" netdev "$NETDEV" || return
	wait_for 20 rdma_port_active "$RDMA_DEV" 1 || return
	if cp_is_stock; then
		srpt_teardown_configfs || return
		mk_target || return
	else
		echo 1 >"$TPG/enable" || return
	fi
	login_works
}

case_two_ch_logout_rmmod() {
	local host rport mark round
	for ((round = 1; round <= ROUNDS; round++)); do
		log "round $round"
		fresh_target || return
		host=$(login_many) || return
		rport=$(cp_rport_of "$host") || return
		mark=$(kmsg_mark)
		echo 1 >"$rport/delete" && srpt_teardown_configfs &&
			rmdir "$SRPT_CFS" && rmmod ib_srpt || return
		cp_released_before_removed "$mark" "$RDMA_DEV" $((2 + TOOL_CHS)) || return
		host_gone "$host" || return
	done
	srpt_load srp_max_req_size=8260 || return
	mk_target || return
	login_works
}

# set_delay MS: dm-delay $DM delays reads and writes by MS.
set_delay() {
	dmsetup suspend --noudevsync "$DM" &&
		dmsetup load "$DM" --table "0 $DM_SECTORS delay /dev/nullb0 0 $1" &&
		dmsetup resume --noudevsync "$DM"
}

# slow_other_dev_setup: TPG0 on $RDMA_DEV with a dm-delay LUN (delay 0 for
# now), a second soft RDMA device (RDMA_DEV, IPV4... then name it) with
# TPG1 exporting $SO. Sets DEV0, IP0, TPG0, TPG1, DM_SECTORS.
slow_other_dev_setup() {
	local slow
	DEV0=$RDMA_DEV IP0=$IPV4
	fresh_target || return
	srpt_teardown_configfs || return
	[[ -d /sys/module/null_blk ]] || nullblk_setup 1 || return
	DM_SECTORS=$(blockdev --getsz /dev/nullb0) || return
	dmsetup create --noudevsync "$DM" --table "0 $DM_SECTORS delay /dev/nullb0 0 0" || return
	slow=$(backstore_iblock td_slow "$(dp_dm_dev "$DM")") || return
	TPG0=$(srpt_add_target "$(port_wwn "$DEV0" 1 guid)") || return
	srpt_add_lun "$TPG0" "$slow" >/dev/null || return
	srpt_add_acl "$TPG0" "$IP0" >/dev/null || return
	srpt_enable "$TPG0" || return
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT" || return
	soft_rdma_setup -n srpt1 -d "${SOFT_RDMA_TYPE}1" -4 10.212.0.1/24 -6 fd00:5251::1/64 || return
	TPG1=$(srpt_add_target "$(port_wwn "$RDMA_DEV" 1 guid)") || return
	srpt_add_lun "$TPG1" "$SO" >/dev/null || return
	srpt_add_acl "$TPG1" "$IPV4" >/dev/null || return
	srpt_enable "$TPG1"
}

case_disable_slow_other_dev() {
	local disk host pid_en pid_io t0 t_login
	modprobe dm_delay 2>/dev/null || { missing_feature "dm-delay is not available"; return; }
	command -v dmsetup >/dev/null || { missing_feature "dmsetup is not installed"; return; }
	slow_other_dev_setup || return
	disk=$(srp_login -d "$DEV0" dest="$IP0:$SRP_LOGIN_PORT" src="$IP0") || return
	host=$(srp_host_of "$disk") || return
	echo off >"$(cp_rport_of "$host")/reconnect_delay" 2>/dev/null || true
	# The stuck write must not time out in the SCSI layer (30 s) and be
	# aborted: that is another test.
	echo 300 >"/sys/block/${disk#/dev/}/device/timeout" || return
	set_delay "${SRPT_TEST_SLOW_WRITE_MS:-20000}" || return
	dd if=/dev/zero of="$disk" bs=4k count=1 oflag=direct 2>/dev/null &
	pid_io=$!
	sleep 2
	t0=$SECONDS
	echo 0 >"$TPG0/enable" &
	pid_en=$!
	sleep 1
	kill -0 "$pid_en" 2>/dev/null || { echo "enable=0 did not wait for the slow write" >&2; return 1; }
	disk=$(srp_login -T 40) || return
	t_login=$((SECONDS - t0))
	if ! kill -0 "$pid_en" 2>/dev/null; then
		echo "the login to $RDMA_DEV finished only after enable=0 of $DEV0 returned (${t_login}s)" >&2
		return 1
	fi
	log "login to $RDMA_DEV done after ${t_login}s while enable=0 of $DEV0 still waits"
	dd_verify "$disk" 1 || return
	srp_logout "$disk" || return
	wait "$pid_en" || { echo "enable=0 failed" >&2; return 1; }
	log "enable=0 of $DEV0 returned after $((SECONDS - t0))s"
	wait "$pid_io" || true
	set_delay 0 || return
	srp_logout "$host" 30 || true
	srpt_teardown_configfs || return
	rmdir "$CFS/core/iblock_0/td_slow" || return
	dmsetup remove --noudevsync "$DM"
}

# td_case NAME CMD...: sub_case NAME CMD..., unless SRPT_TEST_TEARDOWN_CASES
# (names, comma-separated; the debug lane of make check picks a few) leaves
# NAME out: then nothing runs or is reported. replug-login needs hot-unplug.
td_case() {
	if [[ -n ${SRPT_TEST_TEARDOWN_CASES:-} &&
		,$SRPT_TEST_TEARDOWN_CASES, != *",$1,"* ]]; then
		return 0
	fi
	sub_case "$@"
}

soft_rdma_setup
cp_tool_init
srpt_load srp_max_req_size=8260
SO=$(backstore_brd cp_ram 16)
mk_target

td_case rmmod-logged-in case_rmmod || true
if td_case hot-unplug case_unplug; then
	if cp_is_stock; then
		sub_result SKIP wwn-reattach "stock ib_srpt: not expected to re-attach a WWN to a returning port"
		td_case replug-login case_replug_reattach || true
	else
		td_case replug-login-wwn-reattached case_replug_reattach || true
	fi
fi
td_case two-ch-disable-unplug case_two_ch_disable_unplug || true
td_case two-ch-logout-rmmod case_two_ch_logout_rmmod || true
td_case disable-slow-other-device-login case_disable_slow_other_dev || true
sub_exit
