#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz-dry-check.sh - the fuzz mode of srp-hostile without a target
# (srp-hostile -D): the same seed gives the same steps and IU bytes, another
# seed other ones, one batch replayed alone (-j) is the batch of the whole
# run, every generated step is one the case interpreter takes, and the IUs
# reach every IU type and the fields listed below. Run by the harness stage
# of make check (tools/testing/check.sh).
#
# Usage: tools/srp-hostile/fuzz-dry-check.sh [SRP-HOSTILE-BINARY]
#   FUZZ_DRY_IUS=N   IUs per run (default 20000)

set -euo pipefail

bin=${1:-$(dirname "$0")/srp-hostile}
ius=${FUZZ_DRY_IUS:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# run SEED OUT [ARGS...]: a dry run; OUT gets its output without the lines
# that carry times
run() {
	local seed=$1 out=$2
	shift 2
	"$bin" -z "$seed" -N "$ius" -D -m 8260 -g 0x0002c90300a1b2c3 "$@" >"$out.full"
	grep -v -e '^fuzz: steps_failed=' -e '^fuzz: seed=' "$out.full" >"$out"
}

run 0x1234 "$tmp/a"
run 0x1234 "$tmp/b"
run 0x1235 "$tmp/c"
if ! cmp -s "$tmp/a" "$tmp/b"; then
	bad "seed 0x1234 gave different IUs in two runs"
fi
if cmp -s "$tmp/a" "$tmp/c"; then
	bad "seeds 0x1234 and 0x1235 gave the same IUs"
fi
# Batch 7 alone is batch 7 of the whole run.
"$bin" -z 0x1234 -N 1 -j 7 -D -m 8260 -g 0x0002c90300a1b2c3 >"$tmp/j7.full"
sed -n '/^batch 7$/,/^fuzz: /p' "$tmp/j7.full" | sed '$d' >"$tmp/j7"
sed -n '/^batch 7$/,/^batch 8$/p' "$tmp/a" | sed '$d' >"$tmp/a7"
if [[ ! -s $tmp/a7 ]] || ! cmp -s "$tmp/j7" "$tmp/a7"; then
	bad "batch 7 replayed with -j 7 differs from batch 7 of the whole run"
fi

summary=$(grep '^fuzz: seed=' "$tmp/a.full")
echo "$summary"
n=$(sed -n 's/.* ius=\([0-9]*\) .*/\1/p' <<<"$summary")
((n >= ius)) || bad "only $n IUs generated, expected $ius"
steps=$(grep '^fuzz: steps_failed=' "$tmp/a.full")
[[ $steps == 'fuzz: steps_failed=0 '* ]] || bad "the interpreter refused generated steps: $steps"
if grep -m3 '^  step failed' "$tmp/a.full"; then
	bad "steps the interpreter refused (above)"
fi

# count NAME: the IUs of type or field NAME in the coverage tables
count() {
	awk -v n="$1" '$1 == "fuzz:" && $2 == n { print $3; exit }' "$tmp/a.full"
}
types=(cmd tsk raw cred_rsp aer_rsp login_iu i_logout cm_login)
fields=(
	cmd.'(valid)' cmd.cdb cmd.lba cmd.blocks cmd.xlen cmd.dir cmd.buf_fmt cmd.dout_cnt
	cmd.din_cnt cmd.va cmd.key cmd.dlen cmd.inlist cmd.cnt cmd.tbl_len cmd.tbl_va
	cmd.n cmd.imm_len cmd.imm_at cmd.add_cdb_len cmd.addcdb cmd.task_attr cmd.sol_not
	cmd.lun cmd.lun_raw cmd.len cmd.pad cmd.tag cmd.opcode cmd.poke cmd.flip
	cmd.credit_abuse
	tsk.'(valid)' tsk.func tsk.task_tag tsk.lun tsk.len tsk.opcode tsk.poke tsk.flip
	raw.opcode raw.len raw.fill raw.credit_abuse
	cred_rsp.tag aer_rsp.tag login_iu.len i_logout.'(valid)'
	cm_login.iu_len cm_login.buf_fmt cm_login.flags cm_login.opcode cm_login.imm_off
	cm_login.tgt_id cm_login.init_id cm_login.pdlen cm_login.pdata cm_login.rdma_depth
)
missing=()
for f in "${types[@]}" "${fields[@]}"; do
	c=$(count "$f")
	[[ -n $c && $c -gt 0 ]] || missing+=("$f")
done
((${#missing[@]} == 0)) || bad "not reached in $ius IUs: ${missing[*]}"
echo "fuzz dry run: ${#types[@]} IU types and ${#fields[@]} fields reached, deterministic per seed"
exit "$fail"
