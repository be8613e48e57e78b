# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib-ibcm.sh - target-side helpers of the IB/CM fabric test
# (tools/testing/fabric/04-ibcm.sh). The test runs them in the target guest:
#
#	fabric_on target eval ". $TESTING/lib-ibcm.sh; FUNCTION ARG..."
#
# (lib.sh and lib-fabric.sh are sourced there already).

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
