#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tpgt_N/login_info: the lines an initiator writes to ib_srp's add_target
# to log in to the TPG's target port. On soft-RoCE the port is no InfiniBand
# port, so there is no IB/CM line; there is one RDMA/CM line per global
# address of the port's network device (the dummy device's IPv4 and IPv6
# address; its IPv6 link-local address is left out).
#   exact          the file is exactly the two lines, IPv4 first, with the
#                  service GUID as id_ext and ioc_guid and the listener's
#                  port
#   read-only      writing the file fails
#   login-ipv4     the IPv4 line written unchanged to add_target logs in;
#                  16 MiB written with O_DIRECT read back equal
#   login-ipv6     the same with the IPv6 line
#   follows-port   with the listener moved to port 5556 the lines say
#                  5556; with the listener stopped the file is empty

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

# want_lines PORT: the login_info this test expects with the listener on
# PORT.
want_lines() {
	local g
	g=$(srpt_guid)
	g=${g#0x}
	printf 'id_ext=%s,ioc_guid=%s,dest=%s:%s\n' "$g" "$g" "$IPV4" "$1"
	printf 'id_ext=%s,ioc_guid=%s,dest=[%s]:%s\n' "$g" "$g" "$IPV6" "$1"
}

# check_info PORT: login_info is exactly want_lines PORT.
check_info() {
	local got want
	got=$(cat "$SRPT_TPG/login_info")
	want=$(want_lines "$1")
	if [[ $got != "$want" ]]; then
		printf 'login_info:\n%s\nwanted:\n%s\n' "$got" "$want" >&2
		return 1
	fi
}

# login_line N: log in with line N (1-based) of login_info, unchanged
# (srp_login's own keys dropped), write and compare 16 MiB, log out.
login_line() {
	local line disk
	line=$(sed -n "$1p" "$SRPT_TPG/login_info")
	[[ -n $line ]] || { echo "login_info has no line $1" >&2; return 1; }
	local -a kv
	IFS=, read -ra kv <<<"$line"
	disk=$(srp_login "${kv[@]}" initiator_ext= src=)
	dd_verify "$disk" 16
	srp_logout "$disk"
}

case_exact() {
	check_info "$SRP_LOGIN_PORT"
	# The device does have a link-local address, which must be left out.
	ip -6 addr show dev "$NETDEV" scope link | grep -q 'inet6 fe80:' ||
		{ echo "$NETDEV has no link-local address" >&2; return 1; }
}

case_read_only() {
	if (echo x >"$SRPT_TPG/login_info") 2>/dev/null; then
		echo "writing login_info succeeded" >&2
		return 1
	fi
}

case_login_ipv4() {
	login_line 1
}

case_login_ipv6() {
	login_line 2
}

case_follows_port() {
	srpt_set_rdma_cm_port 5556
	check_info 5556
	srpt_set_rdma_cm_port 0
	local got
	got=$(cat "$SRPT_TPG/login_info")
	[[ -z $got ]] || { printf 'listener stopped, login_info:\n%s\n' "$got" >&2; return 1; }
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
	check_info "$SRP_LOGIN_PORT"
}

soft_rdma_setup
srpt_load srp_max_req_size=8260
srpt_setup -b brd -s 64
# The link-local address appears once the dummy device is up.
wait_for 10 sh -c "ip -6 addr show dev $NETDEV scope link | grep -q fe80:" || true

sub_case exact case_exact || true
sub_case read-only case_read_only || true
sub_case login-ipv4 case_login_ipv4 || true
sub_case login-ipv6 case_login_ipv6 || true
sub_case follows-port case_follows_port || true
teardown_all || sub_result FAIL teardown
sub_exit
