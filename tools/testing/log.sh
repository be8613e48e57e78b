# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# log.sh - the one logging vocabulary of the harness. common.sh (the host
# scripts: vm.sh, check.sh, kunit.sh, ...) and lib.sh (the guest tests)
# source it; do not run it.
#
#   log MSG...   progress and diagnostics on stderr, as
#                "[HH:MM:SS    Ns] MSG" (wall clock, then seconds since the
#                script started)
#   die MSG...   log "FAIL: MSG" and exit 1
#
# lib.sh adds skip (end a test with exit 77). Verdicts ("PASS|FAIL|SKIP
# name" lines, which check.sh and vm.sh count) are never written by these:
# see sub_result in lib.sh and guest/run.sh.

# log MSG...: print MSG on stderr with the time.
log() {
	printf '[%(%T)T %4ss] %s\n' -1 "$SECONDS" "$*" >&2
}

# die MSG...: fail with MSG (exit 1).
die() {
	log "FAIL: $*"
	exit 1
}
