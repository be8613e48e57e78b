#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - "make bench": our ib_srpt (A) against the guest kernel's stock
# ib_srpt (B) and nvmet-rdma (C) in one QEMU guest, on the same soft-RoCE
# device and backstores (null_blk memory_backed=0, brd), slots in
# alternating order, then a table of medians (min-max), the ratios A/B and
# A/C and the noise floor (A against A, B against B), and plots of the
# figures (plot.py: plot-*.png next to table.txt).
#
# Usage: tools/bench/run.sh          full run (3 rounds, ~30-40 min)
#        BENCH_QUICK=1 tools/bench/run.sh   smoke run (~7 min)
#        tools/bench/run.sh --report DIR    print the table of an earlier run
#        tools/bench/run.sh --plot DIR      (re)write the plots of a run
#
# First it installs the missing packages of tools/testing/common.sh as
# make check does (NO_DEPS=1: not); without matplotlib the plots are
# skipped with a line saying so, and under CI=true that fails the run.
#
# The guest runs under QEMU's instruction-counting mode (-icount), which ties
# guest time to instructions executed: figures are virtual time, stable
# across host load, and say how much work each target does per I/O. Absolute
# figures mean nothing for real hardware; the ratios are the result.
#
# Environment:
#   BENCH_QUICK=1        1 round (A B C B), fewer workloads, null_blk only
#   BENCH_ICOUNT=OPTS    -icount options (default shift=5,sleep=off,align=off;
#                        empty: plain TCG, wall-clock time, ~25 % noise)
#   BENCH_KO=PATH        our module (default: ib_srpt.ko, rebuilt if stale)
#   BENCH_OUT=DIR        results base (default /var/tmp/ib_srpt-bench); each
#                        run goes to DIR/<timestamp>/ (raw/, table.txt,
#                        console.log), DIR/latest points to the newest
#   BENCH_ORDER=ABC.BAC.ABC   slots per round, rounds separated by "."
#                        (quick: ABCB - the second B gives the noise floor)
#   BENCH_WORKLOADS=lat4k,rr4k,rw4k,sr1m,sw1m   BENCH_BACKSTORES=null,brd
#   BENCH_CHANNELS=1,2   BENCH_RUNTIME=10 (s per fio job)  BENCH_RAMP=1
#   BENCH_JOBS=2         fio jobs for the QD32/QD8 workloads (QD split)
#   BENCH_LOGINS=50      login/logout cycles per A/B slot
#   BENCH_MEMCH=16       channels for the memory-per-channel figure
#   BENCH_PROFILE=1      also a perf profile of B and A at the end (adds
#                        ~15 min; BENCH_ORDER=none BENCH_PROFILE=1: only it)
#   BENCH_TIMEOUT=5400   wall-clock limit for the guest (s)
#   BENCH_RDMA=rxe       soft RDMA driver: rxe (soft-RoCE), or siw
#                        (soft-iWARP on lo; Debian's kernel lacks it, so
#                        tools/bench/siw-module.sh builds siw.ko for it)
#   BENCH_B=stock        what B is: stock, or ours (A against A: two settings
#                        of our module, BENCH_ARGS_A and BENCH_ARGS_B)
#   BENCH_ARGS_A= BENCH_ARGS_B=   more insmod parameters of ib_srpt in A
#                        and B slots, comma-separated (srpt_srq_per_vector=1,
#                        a parameter only of the prototype in commit 407680d)
#   BENCH_USE_SRQ=0      1: the TPG's use_srq in A and B slots
#
# Example: one SRQ per completion vector (A) against one per HCA (B) on
# soft-iWARP, wall-clock (see tools/bench/README.md):
#   BENCH_ICOUNT= BENCH_RDMA=siw BENCH_B=ours BENCH_USE_SRQ=1 \
#   BENCH_ARGS_A=srpt_srq_per_vector=1 BENCH_ORDER=AB.BA.AB.BA \
#   BENCH_WORKLOADS=lat4k,rr4k,rw4k BENCH_BACKSTORES=null BENCH_CHANNELS=2 \
#   BENCH_LOGINS=0 BENCH_MEMCH=0 tools/bench/run.sh

set -euo pipefail

# shellcheck source=tools/testing/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../testing/common.sh"

BENCH_DIR=$REPO/tools/bench
OUT_BASE=${BENCH_OUT:-/var/tmp/ib_srpt-bench}

if [[ ${1:-} == --report ]]; then
	python3 "$BENCH_DIR/report.py" "${2:?usage: run.sh --report DIR}/raw"
	exit
fi
if [[ ${1:-} == --plot ]]; then
	python3 "$BENCH_DIR/plot.py" "${2:?usage: run.sh --plot DIR}"
	exit
fi

[[ ${NO_DEPS:-0} == 1 ]] || install_deps >&2 || die "installing the missing packages failed"

QUICK=${BENCH_QUICK:-0}
ICOUNT=${BENCH_ICOUNT-shift=5,sleep=off,align=off}
if [[ $QUICK == 1 ]]; then
	d_order=ABCB d_wl=lat4k,rr4k,sr1m d_bs=null d_rt=5 d_logins=10 d_psecs=5
else
	d_order=ABC.BAC.ABC d_wl=lat4k,rr4k,rw4k,sr1m,sw1m d_bs=null,brd d_rt=10
	d_logins=50 d_psecs=10
fi
export SRPT_TEST_BENCH_ORDER=${BENCH_ORDER:-$d_order}
export SRPT_TEST_BENCH_WORKLOADS=${BENCH_WORKLOADS:-$d_wl}
export SRPT_TEST_BENCH_BACKSTORES=${BENCH_BACKSTORES:-$d_bs}
export SRPT_TEST_BENCH_CHANNELS=${BENCH_CHANNELS:-1,2}
export SRPT_TEST_BENCH_RUNTIME=${BENCH_RUNTIME:-$d_rt}
export SRPT_TEST_BENCH_RAMP=${BENCH_RAMP:-1}
export SRPT_TEST_BENCH_JOBS=${BENCH_JOBS:-2}
export SRPT_TEST_BENCH_LOGINS=${BENCH_LOGINS:-$d_logins}
export SRPT_TEST_BENCH_MEMCH=${BENCH_MEMCH:-16}
export SRPT_TEST_BENCH_PROFILE=${BENCH_PROFILE:-0}
export SRPT_TEST_BENCH_PROFILE_SECS=${BENCH_PROFILE_SECS:-$d_psecs}
export SRPT_TEST_BENCH_B=${BENCH_B:-stock}
export SRPT_TEST_BENCH_ARGS_A=${BENCH_ARGS_A:-}
export SRPT_TEST_BENCH_ARGS_B=${BENCH_ARGS_B:-}
export SRPT_TEST_BENCH_USE_SRQ=${BENCH_USE_SRQ:-0}
[[ $SRPT_TEST_BENCH_B == @(stock|ours) ]] || die "BENCH_B=$SRPT_TEST_BENCH_B: stock or ours"
for v in ${!SRPT_TEST_BENCH_*}; do
	[[ ${!v} != *[[:space:]]* ]] || die "$v must not contain blanks"
done

# Our module: rebuild the default one when a source is newer.
ko=${BENCH_KO:-$REPO/ib_srpt.ko}
if [[ -z ${BENCH_KO:-} ]] &&
   { [[ ! -f $ko ]] || [[ $REPO/ib_srpt.c -nt $ko ]] || [[ $REPO/ib_srpt.h -nt $ko ]]; }; then
	log "building ib_srpt.ko"
	make -C "$REPO" modules >/dev/null
fi
[[ -f $ko ]] || die "$ko does not exist"

export SRPT_TEST_RDMA=${BENCH_RDMA:-rxe}
extra_mods=${VM_EXTRA_MODULES:-}
case $SRPT_TEST_RDMA in
rxe) ;;
siw) extra_mods+=" $("$BENCH_DIR/siw-module.sh")" ;;
*) die "BENCH_RDMA=$SRPT_TEST_RDMA: rxe or siw" ;;
esac

OUT=$OUT_BASE/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT/raw"
cp "$ko" "$OUT/ib_srpt.ko"
{
	echo "date $(date -Is)"
	echo "git $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo '?')"
	echo "module $ko $(modinfo -F srcversion "$ko" 2>/dev/null)"
	echo "icount ${ICOUNT:-off}"
	echo "rdma $SRPT_TEST_RDMA${extra_mods:+ (extra modules:$extra_mods)}"
	echo "host $(uname -r) $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
	env | grep '^SRPT_TEST_BENCH_' | sort
} >"$OUT/raw/qemu.txt"
[[ -n $ICOUNT ]] || sed -i 's/^icount .*/icount-mode off/' "$OUT/raw/qemu.txt"
ln -sfn "$OUT" "$OUT_BASE/latest"

extra=${VM_QEMU_EXTRA:-}
[[ -n $ICOUNT ]] && extra+=" -icount $ICOUNT"
log "bench: results in $OUT (order $SRPT_TEST_BENCH_ORDER, icount ${ICOUNT:-off})"
t0=$SECONDS
rc=0
# Progress: follow the console log vm.sh writes (its terminal output is
# block-buffered), showing the guest's "@@ bench" lines with the host time.
mkdir -p "$OUT/vm"
: >"$OUT/vm/console.log"
# VM_DEBUG_ARGS="": the kernel as Debian boots it; the tests' slub_debug
# and KFENCE sampling would slow every allocation of both targets.
SRPT=ours KO=$OUT/ib_srpt.ko VM_RUN_DIR=$OUT/vm VM_QEMU_EXTRA=$extra \
	VM_EXTRA_MODULES=$extra_mods \
	VM_TIMEOUT=${BENCH_TIMEOUT:-5400} VM_DEBUG_ARGS="" \
	"$REPO/tools/testing/vm.sh" exec "$BENCH_DIR/guest.sh" >"$OUT/vm.log" 2>&1 &
vm=$!
tail -n +1 -F --pid="$vm" "$OUT/vm/console.log" 2>/dev/null | while IFS= read -r line; do
	line=${line%$'\r'}
	if [[ $line == "@@ bench "* ]]; then
		printf '  %(%T)T %s\n' -1 "${line#@@ bench }"
	fi
done
wait "$vm" || rc=$?
cp "$OUT/vm/console.log" "$OUT/console.log" 2>/dev/null || true
log "bench: guest finished after $((SECONDS - t0))s"
((rc == 0)) || { tail -n 15 "$OUT/vm.log" >&2; log "bench: vm.sh failed (status $rc)"; }
if [[ -d $OUT/vm/out/bench ]]; then
	cp -r "$OUT/vm/out/bench"/. "$OUT/raw"/
	cp "$OUT/vm/out/dmesg.log" "$OUT/raw/" 2>/dev/null || true
fi
[[ -f $OUT/raw/slots.txt || -f $OUT/raw/perf/A.data ]] ||
	die "no results (see $OUT/console.log)"
python3 "$BENCH_DIR/report.py" "$OUT/raw" >"$OUT/table.txt" ||
	die "report.py failed on $OUT/raw"
echo
cat "$OUT/table.txt"
echo
python3 "$BENCH_DIR/plot.py" "$OUT" || { log "bench: plot.py failed"; rc=1; }
log "bench: table in $OUT/table.txt, plots in $OUT/plot-*.png, raw results in $OUT/raw"
exit "$rc"
