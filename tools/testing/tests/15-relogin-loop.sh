#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Logout and re-login loop: 20 ib_srp logins
# (two channels each, the ib_srp default on a 2-CPU guest), each with a
# 4 KiB read, and logouts. After every logout the target's and the
# initiator's channels must be gone within 10 s (no stuck channel); after
# rounds 11 and 20 the device's RDMA resources (PD, CQ, QP, CM ID, MR) must
# be what they were after round 1 (ib_srp and the CQ pool allocate some on
# first use). Leak check: slab objects of the kmalloc and ib_srpt
# caches (per-CPU slabs flushed first) after 2, 11 and 20 rounds; a cache
# that grows steadily in both halves leaks (see leaks()), and so does
# /proc/meminfo Slab growing by more than 1 MiB in both halves.
# kmemleak is used as well when the guest kernel has it.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

ROUNDS=${SRPT_TEST_RELOGIN_ROUNDS:-20}
OUT=$(test_out_dir)
KMEMLEAK=/sys/kernel/debug/kmemleak

# round I: log in with ib_srp (written directly to add_target: the lib's
# srp_login is general but slower), read 4 KiB from the disk, log out, and
# check that no channel is left on either side within 10 s.
round() {
	local n blk t0=$SECONDS
	echo "$LOGIN" >"$ADD_TARGET" || { dmesg | tail -n 5 >&2; return 1; }
	# ib_srp registers the SCSI host once all channels are connected. The
	# previous round's host is gone, so any host with a disk is the new one
	# (host numbers are reused).
	n=
	# shellcheck disable=SC2317
	_new_disk() {
		local h b
		for h in /sys/class/scsi_host/host*; do
			[[ -e $h ]] || continue
			for b in "$h"/device/target*/*/block/*; do
				[[ -e $b ]] && { n=${h##*host}; blk=/dev/${b##*/}; return 0; }
			done
		done
		return 1
	}
	wait_for 30 _new_disk || { echo "round $1: no disk after 30 s" >&2; return 1; }
	wait_for 10 test -b "$blk"
	dd if="$blk" of=/dev/null bs=4k count=1 iflag=direct status=none
	echo 1 >/sys/class/srp_remote_ports/port-"$n":1/delete
	wait_for 30 test ! -e "/sys/class/scsi_host/host$n" || { echo "round $1: host$n stays" >&2; return 1; }
	cp_wait_channels 0 10 || return 1
	cp_wait_channels 0 10 ib_srp || return 1
	log "round $1: host$n $blk, $((SECONDS - t0))s"
}

# check_res I: the device's RDMA resources are what they were after round 1.
check_res() {
	local res
	res=$(cp_res_summary)
	[[ $res == "$BASE_RES" ]] || { echo "after round $1: RDMA resources $res, after round 1: $BASE_RES" >&2; return 1; }
}

case_loop() {
	local i half=$(((ROUNDS + 2) / 2))
	for ((i = 1; i <= ROUNDS; i++)); do
		round "$i" || { echo "round $i failed" >&2; return 1; }
		case $i in
		1)
			BASE_RES=$(cp_res_summary)
			log "RDMA resources after round 1: $BASE_RES"
			;;
		# A pause first lets RCU-deferred frees of the last logout finish.
		2) sleep 2; cp_slab_sample >"$OUT/slab.a" ;;
		"$half") sleep 2; cp_slab_sample >"$OUT/slab.b"; check_res "$i" ;;
		"$ROUNDS") sleep 2; cp_slab_sample >"$OUT/slab.c"; check_res "$i" ;;
		esac
	done
}

# leaks A B C: print the caches that leak between the samples A, B and C
# (9 rounds apart): grown in both halves by at least the limit (2 objects
# per round for kmalloc caches - other guest activity moves them by dozens -,
# any growth for ib_srpt's own caches, 1 MiB for Slab), and by similar
# amounts (the smaller growth at least half the larger): a leak grows with
# every login, noise does not.
leaks() {
	awk -v per="$(((ROUNDS - 2) / 2))" '
		FILENAME == ARGV[1] { a[$1] = $2; next }
		FILENAME == ARGV[2] { b[$1] = $2; next }
		{
			d1 = b[$1] - a[$1]; d2 = $2 - b[$1]
			lim = 2 * per
			if ($1 ~ /^srpt/) lim = 1
			if ($1 == "Slab") lim = 1024
			lo = d1 < d2 ? d1 : d2; hi = d1 < d2 ? d2 : d1
			if (lo >= lim && 2 * lo >= hi)
				print $1, "+" d1, "+" d2
		}' "$@"
}

case_no_leak() {
	local per ab bc l
	[[ -f $OUT/slab.c ]] || { echo "the loop did not finish" >&2; return 1; }
	per=$(((ROUNDS - 2) / 2))
	ab=$(cp_slab_growth "$OUT/slab.a" "$OUT/slab.b")
	bc=$(cp_slab_growth "$OUT/slab.b" "$OUT/slab.c")
	log "slab growth rounds 2..$((2 + per)): $(tr '\n' ' ' <<<"$ab")"
	log "slab growth rounds $((2 + per))..$ROUNDS: $(tr '\n' ' ' <<<"$bc")"
	l=$(leaks "$OUT/slab.a" "$OUT/slab.b" "$OUT/slab.c")
	[[ -z $l ]] || { echo "growing in both halves: $(tr '\n' ' ' <<<"$l")" >&2; return 1; }
}

case_kmemleak() {
	# Debian's 6.12 kernel (the guest) is built without
	# CONFIG_DEBUG_KMEMLEAK: a skip there, also under CI (the slab check
	# above covers leaks); kernels with kmemleak run it.
	[[ -e $KMEMLEAK ]] || { log "the guest kernel has no kmemleak"; return 77; }
	echo scan >"$KMEMLEAK"
	sleep 1
	echo scan >"$KMEMLEAK"
	if grep -q 'unreferenced object' "$KMEMLEAK"; then
		cat "$KMEMLEAK" >"$OUT/kmemleak.txt"
		grep -c 'unreferenced object' "$KMEMLEAK" >&2
		if grep -Eq 'srpt|ib_srp|target_core|rdma|rxe' "$OUT/kmemleak.txt"; then
			echo "kmemleak reports leaks from the SRP / RDMA / target code" >&2
			return 1
		fi
	fi
}

soft_rdma_setup
srpt_load srp_max_req_size=8260
srpt_setup -b brd -s 16 -a "$IPV4"
if [[ -e $KMEMLEAK ]]; then
	echo clear >"$KMEMLEAK" || true
fi
srp_load
guid=$(srpt_guid)
guid=${guid#0x}
LOGIN="id_ext=$guid,ioc_guid=$guid,initiator_ext=$CP_INIT_EXT,dest=$IPV4:$SRP_LOGIN_PORT,src=$IPV4"
ADD_TARGET=/sys/class/infiniband_srp/srp-$RDMA_DEV-1/add_target
wait_for 10 test -e "$ADD_TARGET"
[[ -z $(srp_hosts) ]] || die "ib_srp hosts exist already: $(srp_hosts)"
log "login string: $LOGIN"

sub_case relogin-loop case_loop || true
sub_case no-slab-leak case_no_leak || true
sub_case kmemleak case_kmemleak || true
sub_exit
