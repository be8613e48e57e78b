#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown with a logged-in initiator (issue 3, test 6, second part):
# removing the configfs target and "rmmod ib_srpt" while ib_srp is logged in
# finish within 10 s (the steps that wait for the driver, enable=0 and
# rmmod; the whole sequence within 30 s, as the shell's own work is slow
# under a loaded emulator) and the initiator sees the disconnect; "rdma link del"
# of the device while logged in (hot-unplug) closes the channels and frees
# the device (the RDMA resources and the initiator's SCSI host go away);
# after "rdma link add" a login works again. Ours re-attaches the existing
# configfs WWN to the returning port by itself; with the stock module the
# stale WWN is removed and made again first.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

STATE=$(mktemp -d)

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
	cp_dmesg_since "$2" | grep -Eq "$1: ib_srp: (received DREQ|DREQ received|connection closed)" && return 0
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
	mark=$(cp_dmesg_mark)
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
	cp_dmesg_since "$mark" | grep -E "$host|ib_srpt" >&2 || true
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
	mark=$(cp_dmesg_mark)
	t0=$SECONDS
	rdma link del "$RDMA_DEV"
	log "rdma link del $RDMA_DEV: $((SECONDS - t0))s"
	wait_for 10 test ! -e "/sys/class/infiniband/$RDMA_DEV" || { echo "$RDMA_DEV still exists" >&2; return 1; }
	wait_for 20 test ! -e "/sys/class/scsi_host/$host" || { echo "$host still exists" >&2; return 1; }
	left=$(cp_cm_ids | grep -F 'comm [ib_srpt]' | grep -v ' state LISTEN ' || true)
	[[ -z $left ]] || { echo "ib_srpt CM IDs left: $left" >&2; return 1; }
	cp_dmesg_since "$mark" | grep -E 'ib_srpt|ib_srp|rxe' >&2 || true
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

soft_rdma_setup
srpt_load srp_max_req_size=8260
SO=$(backstore_brd cp_ram 16)
mk_target

sub_case rmmod-logged-in case_rmmod || true
if sub_case hot-unplug case_unplug; then
	if cp_is_stock; then
		sub_result SKIP wwn-reattach "stock ib_srpt: not expected to re-attach a WWN to a returning port"
		sub_case replug-login case_replug_reattach || true
	else
		sub_case replug-login-wwn-reattached case_replug_reattach || true
	fi
fi
sub_exit
