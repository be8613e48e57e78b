#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multichannel: an ib_srp login with ch_count=4 gives four
# live channels on one nexus (the initiator's ch_count and the target's
# connected RDMA/CM IDs); a further MULTI login of the same initiator port
# keeps them (MULTICHAN_MAINTAINED); a SINGLE login of the same initiator
# port terminates them (MULTICHAN_TERMINATED) and the old SCSI host loses
# its connection. ib_srp refuses a second login to a target it is logged in
# to, so the second login comes from srp-login (cp/srp-login.c).

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

STATE=$(mktemp -d)

case_ch4() {
	local disk host n
	disk=$(srp_login ch_count=4)
	host=$(srp_host_of "$disk")
	echo "$host" >"$STATE/host"
	n=$(cat "/sys/class/scsi_host/$host/ch_count")
	[[ $n == 4 ]] || { echo "$host: ch_count $n" >&2; return 1; }
	cp_wait_channels 4 10
	cp_wait_channels 4 10 ib_srp
	log "target channels: $(cp_channels), initiator channels: $(cp_channels ib_srp)"
	fio_verify "$disk" 1M --numjobs=4 --offset_increment=1M
}

case_multi() {
	local out host
	host=$(cat "$STATE/host")
	out=$(cp_tool_login -M -w 1) || { echo "MULTI login: $out" >&2; return 1; }
	log "MULTI login: $out"
	[[ $(cp_mc_result "$out") == maintained ]] || { echo "expected MULTICHAN_MAINTAINED" >&2; return 1; }
	cp_wait_channels 4 10
	[[ $(cp_channels ib_srp) == 4 ]] || { echo "ib_srp has $(cp_channels ib_srp) channels" >&2; return 1; }
	[[ $(cat "$(cp_rport_of "$host")/state") == running ]]
}

case_single() {
	local out host rport mark pid st
	host=$(cat "$STATE/host")
	rport=$(cp_rport_of "$host")
	# No reconnect by ib_srp: it would log in with SINGLE again.
	echo off >"$rport/reconnect_delay" 2>/dev/null ||
		log "cannot switch reconnect_delay off: $(cat "$rport/reconnect_delay")"
	mark=$(kmsg_mark)
	# srp-login keeps its channel until killed (at most 60 s).
	cp_tool_login_bg "$STATE/single.out" -w 60
	pid=$CP_TOOL_PID
	# The new channel stays, the four old ones go.
	cp_wait_channels 0 15 ib_srp || { kill "$pid"; return 1; }
	cp_wait_channels 1 10 || { kill "$pid"; return 1; }
	# shellcheck disable=SC2317
	_not_running() { [[ $(cat "$rport/state") != running ]]; }
	wait_for 10 _not_running || true
	st=$(cat "$rport/state")
	log "old host $host: rport state $st"
	kill -TERM "$pid"
	wait "$pid" || { echo "srp-login: $(cat "$STATE/single.out")" >&2; return 1; }
	out=$(cat "$STATE/single.out")
	log "SINGLE login: $out"
	[[ $(cp_mc_result "$out") == terminated ]] || { echo "expected MULTICHAN_TERMINATED" >&2; return 1; }
	kmsg_since "$mark" | grep -E "$host|ib_srpt" >&2 || true
	kmsg_since "$mark" | grep -Eq "$host: ib_srp: (received DREQ|DREQ received|connection closed)" ||
		[[ $st != running ]] || { echo "$host did not notice the disconnect" >&2; return 1; }
	srp_logout "$host" 30
	cp_wait_channels 0
}

soft_rdma_setup
srpt_load srp_max_req_size=8260
srpt_setup -b brd -s 16 -a "$IPV4"
cp_tool_init

if sub_case ch_count-4 case_ch4; then
	sub_case multi-maintains case_multi || true
	sub_case single-terminates case_single || true
fi
sub_exit
