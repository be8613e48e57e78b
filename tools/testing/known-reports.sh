#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# known-reports.sh - drop the kernel-log reports of known bugs in other
# kernel code, each matched by its whole shape, before the guest runner
# judges a test's kernel log (guest/run.sh). Every dropped report is
# named on standard error, one "KNOWN ID: FIRST-LINE" line each; the
# runner turns those into NOTE results, so that a known report is seen,
# not hidden.
#
# Usage: known-reports.sh <LOG >FILTERED 2>KNOWN
#
# A report is what the kernel prints between "------------[ cut here
# ]------------" and "---[ end trace"; lines may carry a prefix (the
# fabric runner's "nodeA: "). Reports are dropped only when all of their
# patterns match and no line names ib_srpt (a frame "srpt_" or the
# module "[ib_srpt]"): a report that ib_srpt is part of is never dropped.
#
# The known reports:
#   drbd84-uuid-rcu  DRBD 8.4 (drivers/block/drbd/drbd_state.c in Linux
#                    6.12): w_after_conn_state_ch() calls
#                    drbd_uuid_new_current(), which writes DRBD's metadata
#                    and sleeps, inside rcu_read_lock() after a successful
#                    fence-peer handler ("Voluntary context switch within
#                    RCU read-side critical section!"). Seen in 10-ha-drbd's
#                    link-cut, where the handler fences the peer.

awk '
function known(   id) {
	if (blk ~ /srpt_|\[ib_srpt\]/)
		return ""
	if (blk ~ /Voluntary context switch within RCU read-side critical section!/ &&
	    blk ~ /w_after_conn_state_ch\+/ && blk ~ /drbd_uuid_new_current\+/)
		return "drbd84-uuid-rcu"
	return ""
}
function flush(   id) {
	id = known()
	if (id != "")
		printf "KNOWN %s: %s\n", id, first > "/dev/stderr"
	else
		printf "%s", blk
	blk = ""; first = ""; inblk = 0
}
/-+\[ cut here \]-+/ {
	if (inblk)
		flush()
	inblk = 1; blk = $0 "\n"; first = ""
	next
}
inblk {
	blk = blk $0 "\n"
	if (first == "" && $0 ~ /WARNING:|BUG:/)
		first = $0
	if ($0 ~ /---\[ end trace/)
		flush()
	next
}
{ print }
END {
	if (inblk)
		printf "%s", blk
}'
