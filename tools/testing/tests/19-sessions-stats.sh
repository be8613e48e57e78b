#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who is logged in, and what they do: every ACL has an "info" file that
# lists its logged-in SRP sessions (one per I_T nexus, with the channels as
# connections, in the form targetcli's "sessions" command reads) and a
# "statistics" file with a line of counters per channel; srpt/discovery_auth/logins counts
# logins per HCA port, accepted and rejected by reason.
#   no-session      info says "No active SRP session", targetcli lists none
#   info-channels   an ib_srp login with ch_count=2: one session block, two
#                   live channels with the initiator's address, two lines
#                   of statistics
#   targetcli       "sessions" and "sessions detail" show that session, its
#                   two connections and the mapped LUN
#   stats-io        1 MiB written and 2 MiB read with O_DIRECT move the byte
#                   counters by exactly that (only transferred bytes
#                   count), the command counter by at least the number of
#                   commands
#   stats-errors    a CDB LIO refuses counts as an error, a LUN reset as a
#                   task management function
#   login-counters  two accepted logins for the two channels; a login with
#                   a too small IU length counts once under its reason
#   tracepoints     events/ib_srpt: the accepted and the rejected login,
#                   connecting -> live of both channels, a WRITE(10) and a
#                   READ(10) with their lengths and directions and a GOOD
#                   response with the same tag, the LUN RESET and its
#                   response
#   after-logout    info says "No active SRP session" again, both channels
#                   went live -> disconnecting in the trace, and the log
#                   says why each was closed

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

STATE=$(mktemp -d)

# acls_with_session: the directory of every ACL whose info file has a
# session block.
acls_with_session() {
	local a
	for a in "$SRPT_TPG"/acls/*; do
		if grep -q '^InitiatorName:' "$a/info"; then
			echo "$a"
		fi
	done
	return 0
}

# stat_sum FIELD: the sum of FIELD (commands|read_bytes|write_bytes|errors|
# aborts|tmfs) over the channels in the statistics file of the session's ACL.
stat_sum() {
	awk -v f="$1" '$1 == "session" {
		for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1)
	} END { print s + 0 }' "$(cat "$STATE/acl")/statistics"
}

# logins_count WHAT: the counter "accepted" or "rejected, REASON" of the
# first port of $RDMA_DEV in srpt/discovery_auth/logins.
logins_count() {
	awk -v dev="$RDMA_DEV" -v what="$1" '
		$1 == dev && $2 == "port" { inport = ($3 == "1") ; next }
		inport {
			line = $0; sub(/^\t/, "", line)
			n = split(line, p, " "); v = p[n]
			sub(/ [0-9]+$/, "", line); sub(/:$/, "", line)
			if (line == what) print v
		}' "$SRPT_CFS/discovery_auth/logins"
}

case_no_session() {
	local a out
	for a in "$SRPT_TPG"/acls/*; do
		out=$(cat "$a/info")
		log "$(basename "$a"): $out"
		[[ $out == "No active SRP session for "* ]]
	done
	out=$(targetcli_run "sessions")
	log "targetcli sessions: $out"
	grep -q '(no open sessions)' <<<"$out"
}

case_info_channels() {
	local disk acls n
	logins_count accepted >"$STATE/accepted0"
	disk=$(srp_login ch_count=2)
	echo "$disk" >"$STATE/disk"
	cp_wait_channels 2 10
	mapfile -t acls < <(acls_with_session)
	log "ACLs with a session: ${acls[*]}"
	((${#acls[@]} == 1))
	echo "${acls[0]}" >"$STATE/acl"
	cat "${acls[0]}/info" >&2
	grep -qx "InitiatorName: $(basename "${acls[0]}")" "${acls[0]}/info"
	grep -qx 'Session State: TARG_SESS_STATE_LOGGED_IN' "${acls[0]}/info"
	grep -qx 'Channels: 2, 2 live' "${acls[0]}/info"
	n=$(grep -c '^CID: [0-9]*   Connection State: TARG_CONN_STATE_LOGGED_IN$' "${acls[0]}/info")
	((n == 2))
	n=$(grep -cx "   Address $IPV4 rdma_cm" "${acls[0]}/info")
	((n == 2))
	cat "${acls[0]}/statistics" >&2
	n=$(grep -cE '^session [0-9]+ cid [01] login [0-9-]+ [0-9:]+ receive ring credits [0-9]+/128 commands [0-9]+ read_bytes [0-9]+ write_bytes [0-9]+ errors [0-9]+ aborts [0-9]+ tmfs [0-9]+$' "${acls[0]}/statistics")
	((n == 2))
}

case_targetcli() {
	local out sid acl
	out=$(targetcli_run "sessions")
	log "targetcli sessions: $out"
	sid=$(sed -n 's/^LIO Session ID: \([0-9]*\) .*/\1/p' "$(cat "$STATE/acl")/info")
	grep -Eq "sid: $sid type: Normal session-state: LOGGED_IN" <<<"$out"
	out=$(targetcli_run "sessions detail")
	log "targetcli sessions detail: $out"
	[[ $(grep -c "address: $IPV4 (rdma_cm)  cid: [0-9]* connection-state: LOGGED_IN" <<<"$out") == 2 ]]
	grep -q "mapped-lun: 0 backstore: block/srpt_ram0 mode: rw" <<<"$out"
	acl=$(basename "$(cat "$STATE/acl")")
	grep -q "name: ib.${acl#0x} (NOT AUTHENTICATED)" <<<"$out"
}

case_stats_io() {
	local disk c0 w0 r0 c1 w1 r1
	disk=$(cat "$STATE/disk")
	c0=$(stat_sum commands) w0=$(stat_sum write_bytes) r0=$(stat_sum read_bytes)
	dd if=/dev/urandom of="$STATE/data" bs=1M count=1 status=none
	dd if="$STATE/data" of="$disk" bs=64k oflag=direct status=none
	dd if="$disk" of=/dev/null bs=64k count=32 iflag=direct status=none
	c1=$(stat_sum commands) w1=$(stat_sum write_bytes) r1=$(stat_sum read_bytes)
	log "commands $c0 -> $c1, written $w0 -> $w1, read $r0 -> $r1"
	((w1 - w0 == 1048576))
	((r1 - r0 == 2097152))
	((c1 - c0 >= 16 + 32))
}

case_stats_errors() {
	local disk e0 e1 t0 t1
	need_cmd sg_raw sg_reset
	disk=$(cat "$STATE/disk")
	e0=$(stat_sum errors) t0=$(stat_sum tmfs)
	# Opcode 0xe7 is vendor-specific: LIO answers INVALID COMMAND OPERATION CODE.
	sg_raw -n "$disk" e7 00 00 00 00 00 >&2 || true
	sg_reset -d "$disk" >&2
	e1=$(stat_sum errors) t1=$(stat_sum tmfs)
	log "errors $e0 -> $e1, task management $t0 -> $t1"
	((e1 - e0 >= 1))
	((t1 - t0 == 1))
}

case_login_counters() {
	local a0 a1 r0 r1 out
	a0=$(cat "$STATE/accepted0") a1=$(logins_count accepted)
	log "accepted $a0 -> $a1"
	((a1 - a0 == 2))
	r0=$(logins_count "rejected, IU length too large")
	if out=$(cp_tool_login -l 32); then
		echo "login with IU length 32 accepted: $out" >&2
		return 1
	fi
	log "srp-login -l 32: $out"
	r1=$(logins_count "rejected, IU length too large")
	log "rejected (IU length too large) $r0 -> $r1"
	((r1 - r0 == 1))
}

TRACING=/sys/kernel/tracing

# trace_has COUNT REGEX: the trace has at least COUNT lines matching REGEX.
trace_has() {
	local n
	n=$(grep -cE "$2" "$TRACING/trace") || true
	log "trace: $n x $2"
	((n >= $1)) || { echo "expected at least $1" >&2; return 1; }
}

# trace_len_sum OPCODE DIR: the total length of the srpt_cmd events of
# OPCODE and DIR in the trace.
trace_len_sum() {
	awk -v op="$1" -v dir="$2" '$5 == "srpt_cmd:" {
		for (i = 6; i < NF; i++) if ($i == "opcode" && $(i + 1) == op && $NF == dir) s += $(i + 3)
	} END { print s + 0 }' "$TRACING/trace" | tee /dev/stderr
}

case_tracepoints() {
	local tag
	grep -E ' srpt_' "$TRACING/trace" | head -n 40 >&2 || true
	trace_has 2 " srpt_login: $RDMA_DEV port 1 from $IPV4 initiator 0x[0-9a-f]{32} accepted reason=0"
	trace_has 1 " srpt_login: $RDMA_DEV port 1 from $IPV4 initiator 0x[0-9a-f]{32} rejected reason=0x10002"
	trace_has 2 " srpt_ch_state: $IPV4 cid [01] connecting -> live"
	cp "$TRACING/trace" "$(test_out_dir)/trace.txt"
	# Only stats-io wrote: its 1 MiB, in WRITE(10)s; it read 2 MiB more.
	[[ $(trace_len_sum 0x2a data-out) == 1048576 ]]
	(($(trace_len_sum 0x28 data-in) >= 2097152))
	tag=$(grep -m1 -oE 'srpt_cmd: .* tag 0x[0-9a-f]+ lun 0 opcode 0x2a' "$TRACING/trace" |
		sed 's/.* tag \(0x[0-9a-f]*\) .*/\1/')
	trace_has 1 " srpt_rsp: $IPV4 cid [01] tag $tag status 0x00 resid 0 sense 0"
	trace_has 1 " srpt_rsp: $IPV4 cid [01] tag 0x[0-9a-f]+ status 0x02 resid 0 sense [1-9]"
	trace_has 1 " srpt_tmf: $IPV4 cid [01] tag 0x[0-9a-f]+ lun 0 function 0x08 task 0x[0-9a-f]+"
	trace_has 1 " srpt_tmf_rsp: $IPV4 cid [01] tag 0x[0-9a-f]+ response 0x00"
}

case_after_logout() {
	local mark n
	mark=$(kmsg_mark)
	srp_logout "$(cat "$STATE/disk")" 30
	cp_wait_channels 0
	# Every close says why: ib_srp disconnects both channels.
	kmsg_since "$mark" | grep 'closing channel' >&2 || true
	n=$(kmsg_since "$mark" | grep -cE "ib_srpt: .*: closing channel: (disconnected|the initiator logged out)$") || true
	((n == 2))
	[[ $(cat "$(cat "$STATE/acl")/info") == "No active SRP session for "* ]]
	trace_has 2 " srpt_ch_state: $IPV4 cid [01] live -> disconnecting"
}

soft_rdma_setup
srpt_load srp_max_req_size=8260
# As targetcli makes it (rtslib only understands this layout): a WWN in
# GID form, TPG tpgt_1, an ACL named by the initiator port ID.
srpt_setup -b brd -s 16 -w gid -t tpgt_1 -a "$(srp_initiator_port_id)"
cp_tool_init
cat "$SRPT_CFS/discovery_auth/logins" >&2
# The driver's tracepoints, from the first login on.
[[ -d $TRACING/events/ib_srpt ]] || die "no tracepoints in $TRACING/events/ib_srpt"
# Without task names: recording them hooks the scheduler's wakeup and
# switch tracepoints, which patches the scheduler's code while both vCPUs
# run it. Once that crashed the guest under TCG ("Oops: int3" in
# ttwu_do_activate(), whose sched_wakeup jump was being patched: an int3
# still seen after the patching had ended). The checks read only the events.
echo 0 >"$TRACING/options/record-cmd"
echo 1 >"$TRACING/events/ib_srpt/enable"
: >"$TRACING/trace"

sub_case no-session case_no_session || true
if sub_case info-channels case_info_channels; then
	sub_case targetcli case_targetcli || true
	sub_case stats-io case_stats_io || true
	sub_case stats-errors case_stats_errors || true
	sub_case login-counters case_login_counters || true
	sub_case tracepoints case_tracepoints || true
	sub_case after-logout case_after_logout || true
fi
sub_exit
