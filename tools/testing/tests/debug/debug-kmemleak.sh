#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Last test of every debug-kernel run (GUEST_KIND=debug): kmemleak once
# the tests are done. The tests before it logged in and out, reset,
# aborted and unloaded ib_srpt many times; debug-detectors.sh stopped the
# automatic scans. This test only scans, twice: a run of its own login
# and I/O cost more than a minute in this kernel and added no path the
# tests had not taken. ib_srpt is unloaded by now, so its frames show as
# unnamed module addresses (matched below, kept in kmemleak.txt).
#
# lockdep-live   lockdep did not switch itself off during the run (it does
#                after its first report, and later tests would then pass
#                unchecked)
# no-leak        no unreferenced object whose allocation backtrace runs
#                through ib_srpt, LIO (target_core_*), the RDMA core
#                (ib_core, ib_cm, iw_cm, rdma_cm, ib_uverbs, ib_umad), the
#                soft RDMA drivers (rdma_rxe, siw), ib_srp, or an unloaded
#                module (an address kmemleak cannot name: ib_srpt, ib_srp,
#                brd, null_blk and dm-delay are unloaded between tests).
#                Every suspect is listed in the log, the report is kept as
#                kmemleak.txt.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../../lib.sh"

KMEMLEAK=/sys/kernel/debug/kmemleak
# Frames of the code this project answers for, and unnamed module addresses.
OURS='ib_srpt|srpt_|target_core|transport_|core_tmr|core_alua|core_dev|se_sess|ib_core|ib_cm|iw_cm|rdma_cm|cma_|ib_uverbs|ib_umad|rdma_rw|ib_mad|ib_cq|rxe_|siw_|srp_|\] 0xffffffff'

case_lockdep_live() {
	grep -Eq '^ *debug_locks: +1$' /proc/lockdep_stats ||
		{ echo "lockdep switched itself off: $(grep debug_locks /proc/lockdep_stats)" >&2; return 1; }
}

case_no_leak() {
	local out n ours
	out=$(test_out_dir)
	[[ -e $KMEMLEAK ]] || { echo "$KMEMLEAK missing" >&2; return 1; }
	# Objects must be unreferenced in two scans, some seconds apart.
	echo scan >"$KMEMLEAK"
	sleep 6
	echo scan >"$KMEMLEAK"
	cat "$KMEMLEAK" >"$out/kmemleak.txt"
	n=$(grep -c '^unreferenced object' "$out/kmemleak.txt" || true)
	# One record per suspect, its lines joined.
	ours=$(awk '/^unreferenced object/ { if (r != "") print r; r = $0; next }
		{ r = r " | " $0 } END { if (r != "") print r }' "$out/kmemleak.txt" |
		grep -E "$OURS" || true)
	log "kmemleak: $n suspect(s) in all, $(grep -c . <<<"$ours" || true) from SRP, LIO, RDMA or an unloaded module"
	cat "$out/kmemleak.txt" >&2
	[[ -z $ours ]]
}

sub_case lockdep-live case_lockdep_live || true
sub_case no-leak case_no_leak || true
sub_exit
