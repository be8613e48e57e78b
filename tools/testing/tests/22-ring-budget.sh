#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rings of all channels are bounded in bytes, not only in channels.
# ib_srpt is loaded with srp_max_req_size=262144, so that each channel's
# rings take about 32 MiB and a few dozen channels fill the budget.
#   limit-quarter-of-ram        the "ring buffers" block of
#                               discovery_auth/logins says limit = a
#                               quarter of MemTotal, bytes = 0
#   ring-budget-one-channel     (srp-hostile) one channel is charged RB_CH
#                               bytes and gives them back
#   one-channel-bytes           RB_CH is 128 receive buffers of 256 KiB and
#                               128 response buffers of 512 bytes (256,
#                               aligned) plus their contexts, at most 8 KiB
#                               each
#   ring-budget-login-refused   (srp-hostile) RB_FIT channels fit, the next
#                               login gets SRP_LOGIN_REJ INSUFFICIENT
#                               RESOURCES and the counter moves; after a
#                               close a login fits
#   ring-budget-single-replaces (srp-hostile) with the budget full a SINGLE
#                               login that replaces a channel is accepted
#   no-leak                     after the cases the bytes are 0 again, and
#                               the kernel log names the refused logins

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ $SRPT == ours ]] || skip "the ring budget and its block in discovery_auth/logins are this module's"
REQ_SIZE=262144

build=$(mktemp -d /tmp/srp-hostile.XXXXXX)
hostile_build "$build"
soft_rdma_setup
srpt_load srp_max_req_size=$REQ_SIZE
srpt_setup -b brd -s 64 -a "$IPV4"

# rb WHAT: "bytes" or "limit" of the "ring buffers" block, or "rejected",
# port 1 of $RDMA_DEV's "rejected, insufficient resources" count.
rb=$build/rb
cat >"$rb" <<EOS
#!/bin/sh
f=$SRPT_CFS/discovery_auth/logins
case \$1 in
bytes|limit)
	awk -v w="\$1" '\$0 == "ring buffers:" { d = 1; next }
		/^[^\t]/ { d = 0 } d && \$1 == w { print \$2 }' "\$f" ;;
rejected)
	awk -v dev="$RDMA_DEV" '\$1 == dev && \$2 == "port" { p = (\$3 == "1"); next }
		/^[^\t]/ { p = 0 } p && /^\trejected, insufficient resources: / { print \$NF }' "\$f" ;;
esac
EOS
chmod +x "$rb"
export RB=$rb RB_TMP=$build

case_limit() {
	local ram limit bytes
	ram=$(($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) * 1024))
	limit=$("$rb" limit)
	bytes=$("$rb" bytes)
	log "MemTotal $ram bytes; ring buffer limit $limit, bytes $bytes"
	[[ $limit == $((ram / 4)) ]] || { echo "limit $limit, want $((ram / 4))" >&2; return 1; }
	[[ $bytes == 0 ]] || { echo "bytes $bytes, want 0" >&2; return 1; }
}
sub_case limit-quarter-of-ram case_limit || true

args=(-d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$(srpt_guid)"
	-i 0x0000000000000001000000000000abcd -m "$REQ_SIZE" -o "${SUBRESULTS:-/dev/null}")
cases=$HOSTILE_DIR/cases-ring-budget.txt
kmsg_mark ring
rc=0
"$build/srp-hostile" "${args[@]}" "$cases" ring-budget-one-channel || rc=$?

case_ch_bytes() {
	local ch lo hi
	ch=$(cat "$RB_TMP/ch")
	lo=$((128 * (REQ_SIZE + 512)))
	hi=$((lo + 128 * 8192))
	log "one channel: $ch bytes (buffers $lo)"
	((ch >= lo && ch <= hi)) || { echo "one channel $ch bytes, want $lo to $hi" >&2; return 1; }
}
sub_case one-channel-bytes case_ch_bytes || true

limit=$("$rb" limit)
[[ $limit =~ ^[0-9]+$ ]] || die "no ring buffer limit in discovery_auth/logins"
RB_CH=$(cat "$RB_TMP/ch")
[[ $RB_CH =~ ^[1-9][0-9]*$ ]] || die "no bytes of one channel"
export RB_CH RB_FIT=$((limit / RB_CH))
log "each channel $RB_CH bytes: $RB_FIT fit into $limit"
# Each filling login is a nexus of its own, but all come from one address.
((RB_FIT >= 2 && RB_FIT < 250)) || die "this guest's RAM lets $RB_FIT channels fit: the test needs 2 to 249"
"$build/srp-hostile" "${args[@]}" "$cases" 'ring-budget-[ls]*' || rc=$?
((rc == 0)) || sub_result FAIL srp-hostile "status $rc"

rb_zero() {
	[[ $("$rb" bytes) == 0 ]]
}

case_no_leak() {
	local bytes
	wait_for 15 rb_zero || true
	bytes=$("$rb" bytes)
	[[ $bytes == 0 ]] || { echo "ring buffer bytes $bytes after the cases" >&2; return 1; }
	kmsg_has ring "refused: the channels' ring buffers would exceed $limit bytes" ||
		{ echo "no log line for the refused logins" >&2; return 1; }
}
sub_case no-leak case_no_leak || true
rm -rf "$build"
sub_exit
