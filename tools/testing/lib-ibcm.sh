# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib-ibcm.sh - helpers of the IB/CM fabric tests
# (tools/testing/fabric/04-ibcm.sh, 05-ibcm-logins.sh): the setup in the
# initiator guest (ibcm_setup), and functions that run in the target guest
# through ibcm_target FUNCTION ARG... Source it after lib.sh and
# lib-fabric.sh.

# ibcm_gid_guid_name IPV4: the GUID form of the IPv4-mapped GID of IPV4
# (::ffff:a.b.c.d), i.e. the name ib_srpt gives an IB/CM login from it.
ibcm_gid_guid_name() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

# ibcm_target_prepare INITIATOR_IPV4 PORT_ID: on the target port of link 1
# (GUID form, set up by fabric_target_setup) an ACL for the IB/CM name of
# INITIATOR_IPV4's GID; a second target port on the same RDMA port in GID
# form, with the fabric's LUN and an ACL for the initiator port ID PORT_ID
# (32 hex digits), enabled. Prints "TPG ACL GID-ACL", the configfs
# directories of the GUID-form TPG, its new ACL and the GID-form ACL.
ibcm_target_prepare() {
	local tpg acl gwwn gtpg gacl dev
	dev=$(fabric_rdma 1)
	tpg=$(fabric_tpg 1) || return
	[[ -d $tpg ]] || { echo "no target port on link 1 ($tpg)" >&2; return 1; }
	acl=$tpg/acls/$(ibcm_gid_guid_name "$1")
	[[ -d $acl ]] || srpt_add_acl "$tpg" "$(basename "$acl")" >/dev/null || return
	gwwn=$(port_wwn "$dev" 1 gid) || return
	gtpg=$SRPT_CFS/$gwwn/$gwwn
	if [[ ! -d $gtpg ]]; then
		gtpg=$(srpt_add_target "$gwwn") || return
		srpt_add_lun "$gtpg" "$FABRIC_SO" >/dev/null || return
	fi
	gacl=$gtpg/acls/0x$2
	[[ -d $gacl ]] || srpt_add_acl "$gtpg" "0x$2" >/dev/null || return
	srpt_enable "$gtpg" || return
	echo "$tpg $acl $gacl"
}

# ibcm_channel_count ACL: print the number of SRP channels that ACL (its
# configfs directory) has, live or not, from its info file.
ibcm_channel_count() {
	awk '/^Channels: / { n += $2 } END { print n + 0 }' "$1/info"
}

# ibcm_channels ACL N [SECONDS]: wait (default 15 s) until ACL has N
# channels; on failure print its info file.
ibcm_channels() {
	local acl=$1 want=$2 limit=${3:-15}
	# shellcheck disable=SC2317 # called through wait_for
	_ibcm_has() { [[ $(ibcm_channel_count "$acl") == "$want" ]]; }
	if wait_for "$limit" _ibcm_has; then
		return 0
	fi
	echo "$acl: $(ibcm_channel_count "$acl") channel(s), expected $want after ${limit}s:" >&2
	cat "$acl/info" >&2
	return 1
}

# ibcm_enable TPG 0|1: disable or enable a TPG (a disable waits until its
# channels are gone).
ibcm_enable() {
	echo "$2" >"$1/enable"
}

# IBCM_STOCK_NO_LISTENER: why the IB/CM tests do not run against the stock
# module here. It creates its IB/CM listener only when port 1 of the device
# has the InfiniBand link layer (srpt_add_one), so on soft-RoCE it answers
# every CM REQ with REJ "invalid service ID" (reason 8); ib_srpt listens on
# every port that can do IB/CM, RoCE ports included (the admin guide's
# table of the two connection managers).
# shellcheck disable=SC2034 # used by the tests that source this file
IBCM_STOCK_NO_LISTENER="stock ib_srpt listens for IB/CM on InfiniBand ports only (REJ invalid service ID on RoCE)"

#
# Initiator side
#

# ibcm_setup: everything an IB/CM fabric test needs, in the initiator
# guest: srp-hostile (the host-built one when it matches the sources) in
# $IBCM_BUILD, after its message self-test; soft-RoCE with ib_umad and
# without ib_cm (which would own the CM class); a second address $NOACL_IP
# whose GID has no ACL; the target (fabric_target_setup, meanwhile, then
# ibcm_target_prepare); $IBCM_BUILD/tsh, a command that runs its arguments
# in the target guest with this file's functions; the environment of the
# case tables exported; IBCM_ARGS, srp-hostile's options for link 1
# (SRPT_TEST_IBCM_ARGS adds some, comma separated). Dies on failure; not
# for $(...).
ibcm_setup() {
	local m nic guid maxreq tlog tpid
	local -a extra
	# The target sets up meanwhile (about half a minute); a die before it
	# is done waits for it, so the runner's teardown comes after it.
	tlog=$(mktemp)
	fabric_on target -t 180 fabric_target_setup 128 >"$tlog" 2>&1 &
	tpid=$!
	# shellcheck disable=SC2064 # this job's PID, now
	trap "wait $tpid" EXIT
	TESTING=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	INIT_ID=0000000000000001000000000000abcd
	GIDACL_ID=0000000000000002000000000000abcd
	TIP=$(fabric_ip 1 target)
	IIP=$(fabric_ip 1 initiator)
	NOACL_IP=10.212.1.99
	IBCM_BUILD=$(mktemp -d /tmp/srp-hostile.XXXXXX)
	hostile_build "$IBCM_BUILD"
	"$IBCM_BUILD/srp-hostile" -X >&2 || die "srp-hostile's IB/CM message self-test failed"

	fabric_rdma_setup || die "soft-RoCE setup failed"
	for m in ib_srp ib_iser rpcrdma rdma_ucm rdma_cm iw_cm ib_cm; do
		[[ -d /sys/module/$m ]] || continue
		modprobe -r "$m" || die "cannot unload $m (the CM class must be free)"
	done
	[[ ! -d /sys/module/ib_cm ]] || die "ib_cm is still loaded"
	modprobe ib_umad || die "cannot load ib_umad"
	nic=$(fabric_nic 1)
	ip addr add "$NOACL_IP/24" dev "$nic" || die "cannot add $NOACL_IP"
	# rxe adds the GID of a new address by itself
	wait_for 10 ibcm_has_gid "$NOACL_IP" || die "no GID for $NOACL_IP on $(fabric_rdma 1)"
	trap - EXIT
	wait "$tpid" || { cat "$tlog" >&2; die "target setup failed"; }
	cat "$tlog" >&2
	rm -f "$tlog"

	read -r TTPG TACL GIDACL < <(ibcm_target ibcm_target_prepare "$IIP" "$GIDACL_ID") ||
		die "target preparation failed"
	[[ -n ${GIDACL:-} ]] || die "target preparation printed nothing"
	guid=$(fabric_on target srpt_guid)
	maxreq=$(fabric_on target cat /sys/module/ib_srpt/parameters/srp_max_req_size)
	log "target $TIP, service GUID $guid, TPG $TTPG, ACL $TACL, GID-form ACL $GIDACL"

	cat >"$IBCM_BUILD/tsh" <<EOF
#!/bin/bash
. "$TESTING/lib.sh"
. "$TESTING/lib-fabric.sh"
. "$TESTING/lib-ibcm.sh"
TESTING="$TESTING"
ibcm_target "\$@"
EOF
	chmod +x "$IBCM_BUILD/tsh"
	export TSH=$IBCM_BUILD/tsh TTPG TACL GIDACL GIDACL_ID NOACL_SRC=$NOACL_IP
	# as 60-hostile.sh on soft-RoCE
	export NO_RECV_OUTCOME=none MANY_CONNS=1
	[[ $(uname -r) == *-ibsrpt-debug ]] || export NOT_DEBUG_KERNEL=1
	IBCM_ARGS=(-T ibcm -d "$TIP" -s "$IIP" -g "$guid" -i "0x$INIT_ID" -m "$maxreq"
		-t 5000 -o "${SUBRESULTS:-/dev/null}")
	IFS=, read -r -a extra <<<"${SRPT_TEST_IBCM_ARGS:-}"
	IBCM_ARGS+=("${extra[@]}")
}

# ibcm_target FUNCTION [ARG...]: run FUNCTION (of lib.sh, lib-fabric.sh or
# this file) in the target guest; print its output, return its status.
ibcm_target() {
	fabric_on target -t 90 eval ". $TESTING/lib-ibcm.sh; $(printf '%q ' "$@")"
}

# ibcm_has_gid IPV4: true when link 1's RDMA device has the IPv4-mapped GID
# of IPV4.
ibcm_has_gid() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	grep -qx "$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")" \
		/sys/class/infiniband/"$(fabric_rdma 1)"/ports/1/gids/* 2>/dev/null
}

# ibcm_cleanup: remove what ibcm_setup left in this guest that the runner's
# teardown does not.
ibcm_cleanup() {
	ip addr del "$NOACL_IP/24" dev "$(fabric_nic 1)" 2>/dev/null || true
	rm -rf "$IBCM_BUILD"
}
