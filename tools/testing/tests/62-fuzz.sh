#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wire fuzzing: srp-hostile -z (tools/srp-hostile/fuzz.c) sends logins and
# IUs mutated from a seed (field edge values, bit flips, lengths, descriptor
# tables, task management, credit abuse, CM private data) in batches, each
# followed by the tool's health check: a fresh login, a WRITE/READ with data
# compare and no splat in the kernel log. It runs first with per-channel
# receive rings, then with the TPG's shared receive queue (use_srq=1, 256
# entries, as in 61-hostile-srq): one sub-result per mode, which passes
# when srp-hostile says reports=0 and sent at least the IUs asked for. A
# NOTE line per mode gives the seed, the IUs sent and IUs per second. A
# failure prints the seed, the batch and its steps as a case for cases.txt
# (also kept as fuzz-MODE-case.txt in the test's output directory).
#
# make check's guest stage runs it with 2,000 IUs per mode and the seed
# below (0x62: the same IUs every run, so a failure reproduces); its debug
# lane runs 2,000 IUs in ring mode; make check-debug 1,000,000 in all
# (check.sh's debug-fuzz stage). Longer runs and other seeds:
#   SRPT_TEST_FUZZ_IUS=100000 SRPT_TEST_FUZZ_SEED=7 tools/testing/vm.sh run 62-fuzz
#
# Environment (vm.sh passes SRPT_TEST_* into the guest):
#   SRPT_TEST_FUZZ=0              skip the test
#   SRPT_TEST_FUZZ_IUS=N          IUs per receive mode (default 5000)
#   SRPT_TEST_FUZZ_SEED=S         seed of the ring run; the SRQ run uses
#                                 S+1 (default 0x62; "clock": the time,
#                                 logged)
#   SRPT_TEST_FUZZ_BATCH=N        IUs per batch (default 400)
#   SRPT_TEST_FUZZ_QUIET=MS       a drain ends after MS ms without a
#                                 response (srp-hostile -q; default 20:
#                                 twice the IUs per second of -q 100)
#   SRPT_TEST_FUZZ_MODES=ring,srq the receive modes to run, in order
#   SRPT_TEST_FUZZ_ARGS=-v,...    more srp-hostile options, comma separated

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ ${SRPT_TEST_FUZZ:-1} != 0 ]] || skip "SRPT_TEST_FUZZ=0"
need_cmd gcc make
IUS=${SRPT_TEST_FUZZ_IUS:-5000}
SEED=${SRPT_TEST_FUZZ_SEED:-0x62}
[[ $SEED == clock ]] && SEED=$(date +%s)
BATCH=${SRPT_TEST_FUZZ_BATCH:-400}
QUIET=${SRPT_TEST_FUZZ_QUIET:-20}
IFS=, read -r -a MODES <<<"${SRPT_TEST_FUZZ_MODES:-ring,srq}"
IFS=, read -r -a EXTRA <<<"${SRPT_TEST_FUZZ_ARGS:-}"
INIT_ID=0000000000000001000000000000abcd
[[ $IUS =~ ^[0-9]+$ && $BATCH =~ ^[0-9]+$ && $QUIET =~ ^[0-9]+$ && $SEED =~ ^(0x)?[0-9a-fA-F]+$ ]] ||
	die "SRPT_TEST_FUZZ_IUS, _BATCH, _QUIET and _SEED must be numbers"

build=$(mktemp -d /tmp/srp-hostile.XXXXXX)
hostile_build "$build"
outdir=$(test_out_dir)

soft_rdma_setup
# 256 shared receives for the SRQ run, as in 61-hostile-srq; the ring run
# does not use them.
srpt_load srp_max_req_size=8260 srpt_srq_size=256
# LUN 0: a 64 MiB RAM disk (the generator's LBA edges assume 131072
# blocks). ACLs: our IPv4 address and our initiator port ID; a mutated
# initiator port ID logs in through the address ACL as a nexus of its own.
srpt_setup -b brd -s 64 -a "$IPV4" -a "0x$INIT_ID"
guid=$(srpt_guid)
log "target port $SRPT_WWN, service GUID $guid, seed $SEED, $IUS IUs per mode"

# fuzz_mode MODE SEED: the fuzz run in receive mode MODE
fuzz_mode() {
	local mode=$1 seed=$2 use_srq=0 rc=0 sum ius logins n_want n_other want other
	[[ $mode == srq ]] && use_srq=1
	srpt_attrib "$SRPT_TPG" use_srq "$use_srq"
	[[ $(srpt_attrib "$SRPT_TPG" use_srq) == "$use_srq" ]] || die "use_srq does not read back $use_srq"
	kmsg_mark "fuzz-$mode"
	"$build/srp-hostile" -d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$guid" -i "0x$INIT_ID" \
		-m "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" -M "$mode" \
		-z "$seed" -N "$IUS" -b "$BATCH" -q "$QUIET" -w "$outdir/fuzz-$mode-case.txt" "${EXTRA[@]}" \
		>"$outdir/fuzz-$mode.log" 2>&1 || rc=$?
	cat "$outdir/fuzz-$mode.log"
	sum=$(grep '^fuzz: seed=' "$outdir/fuzz-$mode.log" | tail -n 1 || true)
	[[ -n $sum ]] || die "srp-hostile printed no summary (status $rc)"
	echo "NOTE fuzz-$mode: ${sum#fuzz: }" >>"${SUBRESULTS:-/dev/null}"
	((rc == 0)) || die "srp-hostile -z $seed: status $rc (the failing batch is above)"
	[[ $sum == *' reports=0'* ]] || die "reports in $sum"
	ius=$(sed -n 's/.* ius=\([0-9]*\) .*/\1/p' <<<"$sum")
	((ius >= IUS)) || die "only $ius of $IUS IUs sent"
	# The logins were in the intended receive mode (the "login accepted"
	# lines are rate-limited: compare, do not count exactly).
	want=ring other=SRQ
	[[ $mode == srq ]] && want=SRQ other=ring
	logins=$(kmsg_since "fuzz-$mode" | grep 'login accepted' || true)
	n_want=$(grep -c ", $want, " <<<"$logins" || true)
	n_other=$(grep -c ", $other, " <<<"$logins" || true)
	log "logins: $n_want with $want, $n_other with $other"
	((n_want > n_other)) || die "logins in the wrong receive mode"
}

i=0
for mode in "${MODES[@]}"; do
	[[ $mode == ring || $mode == srq ]] || die "SRPT_TEST_FUZZ_MODES: $mode is not ring or srq"
	sub_case "fuzz-$mode" fuzz_mode "$mode" $((SEED + i)) || true
	i=$((i + 1))
done
srpt_attrib "$SRPT_TPG" use_srq 0
rm -rf "$build"
sub_exit
