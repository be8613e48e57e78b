#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Port events on soft-RoCE with ib_srp logged in over RDMA/CM (admin guide,
# "Port events: link down and GID changes"). The target has a GID-form WWN
# (as targetcli makes it) with the TPG and an empty GUID-form WWN of the
# same port; ib_srp runs with reconnect_delay=2 fast_io_fail_tmo=60 and
# logs in with ch_count=1, so that the cases see one channel per login
# whatever the number of vCPUs (ib_srp opens one channel per CPU).
#   ll-address      an IPv6 link-local address added to and removed from
#                   the network device: new GID entries (GID change
#                   events), GID 0 unchanged: no "GID changed" line, the
#                   port's block in discovery_auth/logins unchanged, the
#                   session unchanged, 4 MiB read back equal
#   mac-change      a new MAC address: GID 0 changes; exactly one "GID
#                   changed from <old> to <new>" line; logins shows the
#                   port under the new GID with both WWNs marked "named
#                   after an earlier GID"; 8 MiB read back equal through
#                   the old WWN's TPG; the session either survived or its
#                   channel was closed and released and ib_srp's new one
#                   is live; info and statistics agree (one live channel);
#                   login_info unchanged
#   mkdir-new-name  mkdir of the port's new name in either form fails with
#                   EINVAL and the log names the existing WWN
#   new-login       a second login works and carries the new interface ID
#                   in its initiator port ID; 4 MiB read back equal
#   remake-wwn      logout, the target removed and made again: its WWN has
#                   the new name, is not marked, a login works
#   link-down-idle  ip link set down/up with no I/O: rdma link says DOWN,
#                   then ACTIVE; GID 0 and the names unchanged; the idle
#                   channel survives (same session); 4 MiB read back equal
#   link-down-io    ip link set down, a write issued, up again: the write
#                   completes and reads back equal; the old channel was
#                   closed and released, one live channel is left; a new
#                   login works
#   readd-old-name  the MAC address changed back and the device deleted and
#                   added again (rdma link): the WWN whose name is no
#                   longer the port's stays detached (ENODEV, no "attached
#                   again" line); mkdir of the port's current name works

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

[[ $SRPT == ours ]] || skip "GID change handling and its log lines are this module's"
[[ $SOFT_RDMA_TYPE == rxe ]] || skip "the GID of a port follows the MAC address on soft-RoCE only"

STATE=$(mktemp -d)
NEW_MAC=02:52:50:00:aa:bb
# GID index 0 that NEW_MAC gives (fe80::/64 with the MAC's EUI-64). While
# the RDMA core re-adds a changed netdev's GIDs, index 0 reads all zero for
# a moment: the case waits for this value, not for any other.
NEW_GID=0xfe80000000000000005250fffe00aabb

# gid0: GID index 0 of the port in GID form (0x + 32 hex digits).
gid0() {
	port_wwn "$RDMA_DEV" "$RDMA_PORT" gid
}

# port_block: the port's block of discovery_auth/logins.
port_block() {
	awk -v h="$RDMA_DEV port $RDMA_PORT (" '
		index($0, h) == 1 { on = 1; print; next }
		on && /^\t/ { print; next }
		{ on = 0 }' "$SRPT_CFS/discovery_auth/logins"
}

# want_block GID WWN-LINE...: the first lines of port_block must be the
# header with GID and exactly these WWN lines.
want_block() {
	local gid=$1 got want
	shift
	want=$(printf '%s\n' "$RDMA_DEV port $RDMA_PORT ($gid):" "$@")
	got=$(port_block | head -n $(($# + 1)))
	if [[ $got != "$want" ]] || port_block | sed 1d | sed -n "$(($# + 1)),\$p" | grep -q WWN; then
		printf 'logins block:\n%s\nwanted first:\n%s\n' "$(port_block)" "$want" >&2
		return 1
	fi
}

# acl_info: the info file of the IPv4 ACL of the TPG in $STATE/tpg.
acl_info() {
	cat "$(cat "$STATE/tpg")/acls/$IPV4/info"
}

# acl_stats: the statistics file of the IPv4 ACL.
acl_stats() {
	cat "$(cat "$STATE/tpg")/acls/$IPV4/statistics"
}

# channel_id: "session S cid C" of the only channel of the IPv4 ACL.
channel_id() {
	local ids
	ids=$(acl_stats | sed -n 's/^\(session [0-9]* cid [0-9]*\) .*/\1/p')
	[[ $ids =~ ^session\ [0-9]+\ cid\ [0-9]+$ ]] ||
		{ printf 'not one channel:\n%s\n' "$(acl_stats)" >&2; return 1; }
	echo "$ids"
}

# one_live_channel: the IPv4 ACL has one session with one live channel, and
# its statistics have the one line of that channel.
one_live_channel() {
	local info sid cid
	info=$(acl_info)
	grep -qx 'Channels: 1, 1 live' <<<"$info" ||
		{ printf 'info:\n%s\n' "$info" >&2; return 1; }
	sid=$(sed -n 's/^LIO Session ID: \([0-9]*\) .*/\1/p' <<<"$info")
	cid=$(sed -n 's/^CID: \([0-9]*\) .*/\1/p' <<<"$info")
	[[ $(channel_id) == "session $sid cid $cid" ]] ||
		{ printf 'info:\n%s\nstatistics:\n%s\n' "$info" "$(acl_stats)" >&2; return 1; }
}

# gid_lines MARK: the "GID changed" lines of the kernel log since MARK.
gid_lines() {
	kmsg_since "$1" | grep -F "ib_srpt: $RDMA_DEV port $RDMA_PORT: GID changed" || true
}

# released_cleanly MARK: the kernel log since MARK has as many "channel
# released" lines as "closing channel" lines for $IPV4, at least one.
released_cleanly() {
	local log closing released
	log=$(kmsg_since "$1")
	closing=$(grep -c "ib_srpt: $IPV4: closing channel" <<<"$log") || true
	released=$(grep -c "ib_srpt: $IPV4: channel released" <<<"$log") || true
	((closing >= 1 && released == closing))
}

# readd_ipv6: put back the IPv6 address that "ip link set down" removed.
readd_ipv6() {
	ip -6 addr show dev "$NETDEV" | grep -q "inet6 $IPV6/" ||
		ip -6 addr add "$IPV6/64" dev "$NETDEV" nodad
}

# link_state STATE: rdma link shows the port in STATE.
link_state() {
	rdma link show "$RDMA_DEV/$RDMA_PORT" | grep -q " state $1 "
}

case_ll_address() {
	local before ch
	before=$(port_block)
	ch=$(channel_id)
	kmsg_mark ll
	ip -6 addr add fe80::5250:1/64 dev "$NETDEV" nodad
	wait_for 10 grep -qx 'fe80:0000:0000:0000:0000:0000:5250:0001' \
		/sys/class/infiniband/"$RDMA_DEV"/ports/"$RDMA_PORT"/gids/*
	ip -6 addr del fe80::5250:1/64 dev "$NETDEV"
	sleep 2
	[[ $(gid0) == "$(cat "$STATE/gid_old")" ]]
	[[ -z $(gid_lines ll) ]]
	[[ $(port_block) == "$before" ]]
	dd_verify "$(cat "$STATE/disk")" 4
	[[ $(channel_id) == "$ch" ]]
	one_live_channel
}

case_mac_change() {
	local old new ch lines
	old=$(cat "$STATE/gid_old")
	ch=$(channel_id)
	kmsg_mark mac
	ip link set "$NETDEV" address "$NEW_MAC"
	_gid_moved() { [[ $(gid0) == "$NEW_GID" ]]; }
	wait_for 10 _gid_moved || { echo "GID 0 is $(gid0), not $NEW_GID" >&2; return 1; }
	new=$NEW_GID
	echo "$new" >"$STATE/gid_new"
	log "GID 0: $old -> $new"
	_logged() { [[ -n $(gid_lines mac) ]]; }
	wait_for 10 _logged || { echo "no \"GID changed\" line in the kernel log" >&2; return 1; }
	sleep 2
	lines=$(gid_lines mac)
	log "kernel: $lines"
	[[ $(wc -l <<<"$lines") == 1 ]] || { echo "more than one \"GID changed\" line" >&2; return 1; }
	[[ $lines == *"ib_srpt: $RDMA_DEV port $RDMA_PORT: GID changed from $old to $new; its WWNs keep their names" ]] ||
		{ echo "the line does not name $old and $new" >&2; return 1; }
	want_block "$new" "	WWN $(cat "$STATE/guid_wwn") (named after an earlier GID)" \
		"	WWN $(cat "$STATE/gid_wwn") (named after an earlier GID)"
	# The channel's GID entry may have moved: then ib_srp's next send
	# fails and it logs in again (reconnect_delay).
	dd_verify "$(cat "$STATE/disk")" 8
	if [[ $(channel_id) == "$ch" ]]; then
		log "the channel survived the MAC change ($ch)"
	else
		log "the channel ended ($ch -> $(channel_id))"
		wait_for 15 released_cleanly mac
	fi
	one_live_channel
	[[ $(cat "$(cat "$STATE/tpg")/login_info") == "$(cat "$STATE/login_info")" ]]
}

case_mkdir_new_name() {
	local new guid
	new=$(cat "$STATE/gid_new")
	guid=$(port_wwn "$RDMA_DEV" "$RDMA_PORT" guid)
	kmsg_mark mkdir
	cp_mkdir_refused WWN "$SRPT_CFS/$new"
	cp_mkdir_refused WWN "$SRPT_CFS/$guid"
	kmsg_has mkdir "ib_srpt: \"$new\": $RDMA_DEV port $RDMA_PORT already has the WWN $(cat "$STATE/gid_wwn")\$" ||
		{ printf 'no log line for %s:\n%s\n' "$new" "$(kmsg_since mkdir)" >&2; return 1; }
	kmsg_has mkdir "ib_srpt: \"$guid\": $RDMA_DEV port $RDMA_PORT already has the WWN $(cat "$STATE/guid_wwn")\$" ||
		{ printf 'no log line for %s:\n%s\n' "$guid" "$(kmsg_since mkdir)" >&2; return 1; }
}

case_new_login() {
	local disk ifid
	ifid=$(cat "$STATE/gid_new")
	ifid=${ifid:18:16}
	disk=$(srp_login ch_count=1 initiator_ext=5250000000000002)
	dd_verify "$disk" 4
	acl_info | grep -qx "InitiatorAlias: 0x5250000000000002$ifid"
	srp_logout "$disk"
}

case_remake_wwn() {
	local new disk
	new=$(cat "$STATE/gid_new")
	srp_logout_all
	srpt_teardown_configfs
	core_teardown
	rmmod brd
	srpt_setup -b brd -s 64 -w gid
	[[ $SRPT_WWN == "$new" ]]
	echo "$SRPT_TPG" >"$STATE/tpg"
	want_block "$new" "	WWN $new"
	disk=$(srp_login ch_count=1)
	echo "$disk" >"$STATE/disk"
	dd_verify "$disk" 4
	one_live_channel
}

case_link_down_idle() {
	local ch gid
	ch=$(channel_id)
	gid=$(gid0)
	kmsg_mark down
	ip link set "$NETDEV" down
	wait_for 10 link_state DOWN
	sleep 3
	ip link set "$NETDEV" up
	wait_for 10 link_state ACTIVE
	readd_ipv6
	[[ $(gid0) == "$gid" ]]
	[[ -z $(gid_lines down) ]]
	want_block "$gid" "	WWN $gid"
	dd_verify "$(cat "$STATE/disk")" 4
	[[ $(channel_id) == "$ch" ]]
	one_live_channel
}

case_link_down_io() {
	local disk ch src dst pid rc=0 new rport
	disk=$(cat "$STATE/disk")
	rport=$(cp_rport_of "$(srp_host_of "$disk")")
	ch=$(channel_id)
	src=$(mktemp) dst=$(mktemp)
	head -c 4194304 /dev/urandom >"$src"
	# No reconnect attempt while the port is down: with soft-RoCE, after
	# attempts that failed for want of a route, the first one after "up"
	# once waited for ever for its connection (ib_srp's rport mutex held,
	# hung-task reports). The initiator's business, not the target's.
	echo off >"$rport/reconnect_delay"
	kmsg_mark downio
	ip link set "$NETDEV" down
	wait_for 10 link_state DOWN
	dd if="$src" of="$disk" bs=1M oflag=direct conv=fsync status=none &
	pid=$!
	# The write fails the initiator's queue pair at once (no route).
	_blocked() { [[ $(cat "$rport/state") == blocked ]]; }
	wait_for 20 _blocked
	ip link set "$NETDEV" up
	wait_for 10 link_state ACTIVE
	readd_ipv6
	echo 2 >"$rport/reconnect_delay"
	wait_bounded 120 "$pid" || rc=$?
	((rc == 0)) || { echo "the write during the outage failed ($rc)" >&2; return 1; }
	dd if="$disk" of="$dst" bs=1M count=4 iflag=direct status=none
	cmp "$src" "$dst"
	rm -f "$src" "$dst"
	# The write failed the initiator's queue pair (no route while down):
	# ib_srp logged in again, the target closed and released the old
	# channel.
	wait_for 15 released_cleanly downio
	[[ $(channel_id) != "$ch" ]]
	one_live_channel
	new=$(srp_login ch_count=1 initiator_ext=5250000000000003)
	dd_verify "$new" 4
	srp_logout "$new"
}

case_readd_old_name() {
	local old gid
	old=$(cat "$STATE/gid_new")
	srp_logout_all
	ip link set "$NETDEV" address "$(cat "$STATE/mac_old")"
	_gid_back() { [[ $(gid0) == "$(cat "$STATE/gid_old")" ]]; }
	wait_for 10 _gid_back
	kmsg_mark readd
	rdma link del "$RDMA_DEV"
	rdma link add "$RDMA_DEV" type rxe netdev "$NETDEV"
	wait_for 20 rdma_port_active "$RDMA_DEV" "$RDMA_PORT"
	gid=$(gid0)
	[[ $gid == "$(cat "$STATE/gid_old")" ]]
	cp_write_err "$(cat "$STATE/tpg")/attrib/srp_sq_size" 4096
	[[ $CP_ERR == "No such device" ]]
	if kmsg_has readd "WWN $old attached again"; then
		echo "WWN $old was attached to the port of GID $gid" >&2
		return 1
	fi
	if port_block | grep -q WWN; then
		printf 'a WWN serves the new device:\n%s\n' "$(port_block)" >&2
		return 1
	fi
	mkdir "$SRPT_CFS/$gid"
	want_block "$gid" "	WWN $gid"
	rmdir "$SRPT_CFS/$gid"
}

soft_rdma_setup
ip link show "$NETDEV" | awk '/link\/ether/ { print $2 }' >"$STATE/mac_old"
wait_for 10 sh -c "ip -6 addr show dev $NETDEV scope link | grep -q fe80:" || true
srpt_load srp_max_req_size=8260
srp_load reconnect_delay=2 fast_io_fail_tmo=60 dev_loss_tmo=600
srpt_setup -b brd -s 64 -w gid
gid0 >"$STATE/gid_old"
echo "$SRPT_WWN" >"$STATE/gid_wwn"
echo "$SRPT_TPG" >"$STATE/tpg"
port_wwn "$RDMA_DEV" "$RDMA_PORT" guid >"$STATE/guid_wwn"
mkdir "$SRPT_CFS/$(cat "$STATE/guid_wwn")"
cat "$SRPT_TPG/login_info" >"$STATE/login_info"
[[ -s $STATE/login_info ]] || die "no login_info"
want_block "$(cat "$STATE/gid_old")" "	WWN $(cat "$STATE/guid_wwn")" "	WWN $SRPT_WWN" ||
	die "the port's block in discovery_auth/logins"
srp_login ch_count=1 >"$STATE/disk"
dd_verify "$(cat "$STATE/disk")" 4

sub_case ll-address case_ll_address || true
sub_case mac-change case_mac_change || true
sub_case mkdir-new-name case_mkdir_new_name || true
sub_case new-login case_new_login || true
sub_case remake-wwn case_remake_wwn || true
sub_case link-down-idle case_link_down_idle || true
sub_case link-down-io case_link_down_io || true
sub_case readd-old-name case_readd_old_name || true
teardown_all || sub_result FAIL teardown
sub_exit
