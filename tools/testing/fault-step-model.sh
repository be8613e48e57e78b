#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fault-step-model.sh - check 64-fault-step's stepping on the host, without
# a guest: its functions (taken from the test) drive a model of the
# kernel's should_fail_ex() (probability, times, interval and its hidden
# counter, the stack filter as "which require-start is set") instead of
# debugfs, and a stand-in for srp-hostile that arms the step, makes a
# scenario's allocations (a sequence of sites) and disarms it. Checks:
# every step that injected failed exactly its Nth allocation; the counter
# the test keeps equals the model's after steps that injected and steps
# that did not (configfs reads move it); the sweep finds every site of a
# sequence with loops of one, two and three sites and single sites between
# them; and a report in the kernel log after a step fails the sweep.
#
# Usage: tools/testing/fault-step-model.sh   (exit status 0: all passed;
# about a minute)

# The test's functions and check's eval read what seems unused here.
# shellcheck disable=SC2034
set -euo pipefail

TEST=$(dirname "$0")/tests/64-fault-step.sh
T=$(mktemp -d /tmp/fault-step-model.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0

# The test's functions, with srp-hostile and /dev/kmsg replaced.
funcs=$(sed -n '/^count_get() {/,/^}/p;/^count_set() {/,/^}/p;/^step_arm_file() {/,/^}/p
	/^count_sync() {/,/^}/p;/^attr_name() {/,/^}/p;/^run_case_step() {/,/^}/p
	/^step_done() {/,/^}/p;/^sweep() {/,/^}/p;/^step_slice() {/,/^}/p
	/^slice_site() {/,/^}/p;/^slice_reports() {/,/^}/p;/^scen_runner() {/,/^}/p' "$TEST")
funcs=${funcs//\"\$build\/srp-hostile\"/model_hostile}
funcs=${funcs//>\/dev\/kmsg/>>\"\$KMSG\"}
eval "$funcs"

mkdir -p "$T/failslab"
for f in probability times interval require-start require-end reject-start reject-end verbose .count; do
	echo 0 >"$T/failslab/$f"
done
FS=$T/failslab OUTD=$T KMSG=$T/kmsg SITES=$T/sites STEPS=$T/steps SUBRESULTS=/dev/null
ARM=$T/fi-arm DISARM=$T/fi-disarm CF=$T/cases
STEP_MAX=400 STEP_SECS=0 STRIDE_MAX=64 SELFTEST=
TEXT_START=0xa00 TEXT_END=0xb00 SRPT_CFS=/model-cfs
IPV4=10.0.0.1 SRP_LOGIN_PORT=5555 INIT_ID=1
: >"$KMSG"
: >"$SITES.raw"
declare -A SEEN=()

log() { :; }
fi_write() { echo "$2" >"$1"; }
func_range() { echo "0x100 0x200"; }
fi_range() { echo "$1" >"$FS/require-start"; }
sync_kmsg() { :; }
ko_line() { echo "${1%%+*} 1"; }
srpt_guid() { echo 0; }

# model_alloc CTX SITE IDX: should_fail_ex() for one call with a frame in
# CTX (srpt: ib_srpt's text; configfs: configfs_read_iter()).
model_alloc() {
	local p t iv c rs
	p=$(<"$FS/probability") t=$(<"$FS/times") iv=$(<"$FS/interval") rs=$(<"$FS/require-start")
	((p != 0 && t != 0)) || return 0
	if [[ $1 == configfs ]]; then
		[[ $rs == 0x100 ]] || return 0
	else
		[[ $rs == "$TEXT_START" ]] || return 0
	fi
	if ((iv > 1)); then
		c=$(($(<"$FS/.count") + 1))
		echo "$c" >"$FS/.count"
		((c % iv == 0)) || return 0
	fi
	echo $((t - 1)) >"$FS/times"
	if [[ $1 == srpt ]]; then
		printf '5,1,1,-;FAULT_INJECTION: forcing a failure.\n4,2,2,-; %s+0x1/0x10 [ib_srpt]\n' "$2" >>"$KMSG"
		echo "$3" >"$T/failed-at"
	fi
	return 1
}

# The configfs read of count_sync.
cat() {
	if [[ ${1:-} == "$SRPT_CFS/discovery_auth/logins" ]]; then
		model_alloc configfs - 0 || return 1
		return 0
	fi
	[[ ${1:-} != */srp_max_req_size ]] || { echo 8260; return 0; }
	command cat "$@"
}

# model_hostile ...: arm, the allocations of SEQ, an optional report, disarm.
model_hostile() {
	local i
	sh "$ARM"
	rm -f "$T/failed-at"
	for ((i = 1; i <= ${#SEQ[@]}; i++)); do
		model_alloc srpt "${SEQ[i - 1]}" "$i" || true
	done
	[[ -z $SPLAT_AT || $(<"$FS/times") != 0 || ! -f $T/failed-at || $(<"$T/failed-at") != "$SPLAT_AT" ]] ||
		echo "4,3,3,-;WARNING: CPU: 0 PID: 1 at model" >>"$KMSG"
	echo 0 >"$FS/probability"
}

# runner N: step N, checked against the model.
runner() {
	scen_runner model "$FS" fs-model "$1" || return
	if [[ -n $STEP_SITE ]] && [[ $(<"$T/failed-at") != "$1" ]]; then
		echo "FAIL: step $1 failed allocation $(<"$T/failed-at")" >&2
		FAILED=$((FAILED + 1))
	fi
	return 0
}

check() {
	if eval "$2"; then
		echo "ok: $1"
	else
		echo "FAIL: $1" >&2
		FAILED=$((FAILED + 1))
	fi
}

SPLAT_AT=
SEQ=(X Y)
for ((i = 0; i < 30; i++)); do SEQ+=(A B); done
SEQ+=(Z)
for ((i = 0; i < 20; i++)); do SEQ+=(C); done
SEQ+=(W Q)
for ((i = 0; i < 10; i++)); do SEQ+=(D E F); done
SEQ+=(V)
sweep loops "$FS" runner >/dev/null 2>&1 || check "the sweep of loops passes" false
check "all 12 sites of the loops found (${#SEEN[@]})" '((${#SEEN[@]} == 12))'
check "counter kept $(count_get "$FS"), model's $(<"$FS/.count")" '[[ $(count_get "$FS") == $(<"$FS/.count") ]]'

SEQ=(P Q R)
sweep short "$FS" runner >/dev/null 2>&1 || check "the second sweep passes" false
check "the second sweep: 3 sites" '((${#SEEN[@]} == 3))'
check "counter still kept $(count_get "$FS"), model's $(<"$FS/.count")" '[[ $(count_get "$FS") == $(<"$FS/.count") ]]'

SEQ=(P Q R)
SPLAT_AT=2
rc=0
sweep splat "$FS" runner >/dev/null 2>&1 || rc=$?
check "a report after step 2 fails the sweep" '((rc != 0))'

if ((FAILED)); then
	echo "$FAILED check(s) failed"
	exit 1
fi
echo "all fault-step model checks passed"
