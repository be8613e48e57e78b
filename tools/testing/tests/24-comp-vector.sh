#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Completion vectors: attrib/comp_v_mask chooses the completion vectors of
# a port's new channels, and the ACL's info file shows each channel's
# ("Completion vector: N"). Runs on $SRPT_TEST_RDMA (soft-RoCE, or
# soft-iWARP with SRPT_TEST_RDMA=siw); both have one completion vector per
# possible CPU, so the guest's two vCPUs (VM_SMP=2, the default) give two.
# With fewer than two usable vectors the test is skipped (fails under CI).
#   default-mask     comp_v_mask is every vector, whatever their number
#                    ("0x" and 256 "f")
#   mask-0x1         a login with four channels: all on vector 0; 8 MiB
#                    written and read back equal
#   mask-last        the same with only the last usable vector allowed
#   default-spread   with the default mask, every channel is on a usable
#                    vector and the four are not all on one (the port's
#                    channels take the vectors in turn; how evenly is not
#                    asserted: a channel that failed between them would
#                    take a turn)
#   live-keep        two channels on vector 0 (mask 0x1) keep it when the
#                    mask becomes 0x2, I/O on them verifies; a channel
#                    that joins their nexus afterwards is on vector 1
#   none-in-use      a mask of only the first vector not in use (as saved
#                    on a machine with more CPUs) is taken, reads back and
#                    is logged; the four channels of a login then spread
#                    over the vectors in use
#   refused-keeps    refused writes (a mask of 0, junk, a bit from 1024
#                    up) leave the mask, and the next login's vectors, as
#                    they were
# Nothing depends on the number of vectors beyond needing two in use.
# Only ours: the stock ib_srpt has neither comp_v_mask nor the info line.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

if cp_is_stock; then
	skip "the stock ib_srpt has no comp_v_mask"
fi

# ch_vectors: print the completion vector of each channel in the ACL's info
# file, one per line; fails when a channel shows none.
ch_vectors() {
	local info cids vecs
	info=$(cat "$ACL/info")
	cids=$(grep -c '^CID: ' <<<"$info") || true
	vecs=$(sed -n 's/^   Completion vector: \([0-9][0-9]*\)$/\1/p' <<<"$info")
	if [[ $(grep -c . <<<"$vecs") != "$cids" ]]; then
		printf 'info: %s channels, but vectors:\n%s\ninfo:\n%s\n' "$cids" "$vecs" "$info" >&2
		return 1
	fi
	echo "$vecs"
}

# want_vectors WANT: the channels' vectors, sorted, are exactly WANT (a
# space-separated list).
want_vectors() {
	local got
	got=$(ch_vectors | sort -n | tr '\n' ' ') || return
	log "channel vectors: $got"
	[[ $got == "$1 " ]] || { echo "channel vectors: $got, expected $1" >&2; return 1; }
}

# set_mask MASK: write comp_v_mask; it must read back as MASK.
set_mask() {
	sysfs_write "$MASK" "$1"
	[[ $(cat "$MASK") == "$1" ]] || { echo "comp_v_mask reads $(cat "$MASK") after writing $1" >&2; return 1; }
}

# fresh: no initiator logged in, no channel left: a case that failed
# half-way does not fail the next one.
fresh() {
	srp_logout_all 30
	cp_wait_channels 0 20
}

# login_check MASK WANT: with comp_v_mask MASK, a login with four channels
# has the vectors WANT; 8 MiB verify; log out.
login_check() {
	local disk
	fresh
	set_mask "$1"
	disk=$(srp_login ch_count=4)
	cp_wait_channels 4 20
	want_vectors "$2"
	dd_verify "$disk" 8
	srp_logout "$disk"
	cp_wait_channels 0 20
}

case_default_mask() {
	[[ $(cat "$MASK"; echo x) == "$DEF"$'\nx' ]] ||
		{ echo "comp_v_mask shows $(od -c "$MASK" | head -n1), expected $DEF" >&2; return 1; }
}

# spread: the vectors of the four channels of a login are all usable and
# not all the same one.
spread() {
	local v
	local -A seen=()
	for v in $(ch_vectors); do
		((v < USABLE)) || { echo "a channel is on vector $v of $USABLE in use" >&2; return 1; }
		seen[$v]=1
	done
	log "channel vectors: ${!seen[*]}"
	((${#seen[@]} >= 2)) ||
		{ echo "four channels all on vector ${!seen[*]} of $USABLE" >&2; return 1; }
}

case_default_spread() {
	local disk
	fresh
	set_mask "$DEF"
	disk=$(srp_login ch_count=4)
	cp_wait_channels 4 20
	spread
	dd_verify "$disk" 8
	srp_logout "$disk"
	cp_wait_channels 0 20
}

case_live_keep() {
	local disk out pid
	fresh
	set_mask 0x1
	disk=$(srp_login ch_count=2)
	cp_wait_channels 2 20
	want_vectors "0 0"
	set_mask 0x2
	want_vectors "0 0"
	dd_verify "$disk" 8
	# A MULTI login of the same initiator port joins the nexus.
	out=$(test_out_dir)/srp-login.out
	cp_tool_login_bg "$out" -M -w 60
	pid=$CP_TOOL_PID
	if ! cp_wait_channels 3 20; then
		kill -TERM "$pid"
		wait "$pid" || true
		cat "$out" >&2
		return 1
	fi
	want_vectors "0 0 1" || { kill -TERM "$pid"; wait "$pid" || true; return 1; }
	dd_verify "$disk" 8
	kill -TERM "$pid"
	wait "$pid" || { echo "srp-login: $(cat "$out")" >&2; return 1; }
	srp_logout "$disk"
	cp_wait_channels 0 20
}

case_none_in_use() {
	local disk mark
	fresh
	mark=$(kmsg_mark)
	set_mask "$NONE"
	kmsg_has "$mark" "port [0-9]+: comp_v_mask allows none of the $USABLE completion vectors in use; new channels take all of them" ||
		{ echo "no kernel log line for comp_v_mask=$NONE" >&2; return 1; }
	# What it shows is taken back.
	set_mask "$(cat "$MASK")"
	disk=$(srp_login ch_count=4)
	cp_wait_channels 4 20
	spread
	dd_verify "$disk" 8
	srp_logout "$disk"
	cp_wait_channels 0 20
}

case_refused_keeps() {
	local err v
	set_mask "$LAST"
	for v in 0x0 0x1z "$(comp_mask_bit 1024)"; do
		if err=$( { echo "$v" >"$MASK"; } 2>&1); then
			echo "comp_v_mask=$v was taken" >&2
			return 1
		fi
		[[ $err == *"Invalid argument"* ]] || { echo "comp_v_mask=$v: $err" >&2; return 1; }
		[[ $(cat "$MASK") == "$LAST" ]] || { echo "comp_v_mask is $(cat "$MASK") after a refused write" >&2; return 1; }
	done
	login_check "$LAST" "$ALL_LAST"
}

soft_rdma_setup
srpt_load srp_max_req_size=8260
srpt_setup -b brd -s 16 -a "$IPV4"
cp_tool_init
ACL=$SRPT_TPG/acls/$IPV4
MASK=$SRPT_TPG/attrib/comp_v_mask
NVEC=$(comp_vectors "$RDMA_DEV")
USABLE=$(usable_vectors "$RDMA_DEV")
log "$RDMA_DEV: $NVEC completion vectors, $USABLE usable ($(getconf _NPROCESSORS_ONLN) CPUs online)"
((USABLE >= 2)) || skip_missing "$RDMA_DEV has $USABLE usable completion vector(s), 2 needed (VM_SMP=2)"
DEF=$(comp_mask_all)
# Only the last vector in use; only the first one not in use.
LAST=$(comp_mask_bit $((USABLE - 1)))
ALL_LAST=$(printf '%s ' $((USABLE - 1)){,,,})
ALL_LAST=${ALL_LAST% }
# Only the first vector not in use; none when all 1024 that comp_v_mask
# can name are.
NONE=
((USABLE < 1024)) && NONE=$(comp_mask_bit "$USABLE")

sub_case default-mask case_default_mask || true
sub_case mask-0x1 login_check 0x1 "0 0 0 0" || true
sub_case mask-last login_check "$LAST" "$ALL_LAST" || true
sub_case default-spread case_default_spread || true
sub_case live-keep case_live_keep || true
if [[ -n $NONE ]]; then
	sub_case none-in-use case_none_in_use || true
else
	sub_result SKIP none-in-use "all $USABLE vectors comp_v_mask can name are in use"
fi
sub_case refused-keeps case_refused_keeps || true
sub_exit
