#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-kernel-only
#
# The allocation-failure sweep: per scenario, the 1st, 2nd, 3rd ...
# allocation with an ib_srpt frame on its stack fails in turn, until a step
# injects nothing. After each step the answer must be a clean one (the case
# of srp-hostile allows exactly those: login accepted or rejected with
# INSUFFICIENT RESOURCES, command GOOD, TASK SET FULL, BUSY or CHECK
# CONDITION, a task management response, the channel closed; module load
# ENOMEM, success, or success without the adapter when its add failed:
# logged, its WWN refused; a failure inside LIO's target_register_template(),
# which returns 0 all the same in 6.12, is a NOTE), no new report in the kernel log (the stack dumps of
# the injected failures aside), and a health check (a fresh login with a
# WRITE/READ and data compare: srp-hostile's own, after the case, in the
# same process). Each injected failure's stack dump is mapped to an
# allocation site of tools/testing/alloc-sites.sh (the innermost ib_srpt.c
# line of its first ib_srpt frame, addr2line on the module's DWARF), and a
# NOTE says "sites failed X of Y" with the sites never failed
# (fault-step-sites.txt; every step in fault-steps.txt).
#
# How a step fails exactly the Nth allocation: failslab and fail_page_alloc
# fail, with probability 100 and times 1, the call at which their counter
# (advanced by every call that passes the stack filter while "interval" > 1;
# debugfs cannot read or reset it) is a multiple of "interval". The test
# knows the counter: it is 0 at boot (no other test sets interval > 1),
# equals the interval after a step that injected, and after a step that
# injected nothing it is moved to the interval by reading a configfs file
# whose read allocates (stack filter on configfs_read_iter()), one call at
# a time. With the counter at C, interval C + N fails the Nth call.
# Module load uses fail-nth instead (a syscall in the test's task).
#
# Only the scenario's own allocations count: kmemleak's and debugobjects'
# bookkeeping, allocated under the same stack, would take every other step;
# failslab's cache-filter limits it to caches marked failslab, which are
# all (the debug guest boots with slub_debug=A) but kmemleak_object,
# kmemleak_scan_area and debug_objects_cache. fail_page_alloc is stepped in
# the scenarios with data buffers (LIO's target_alloc_sgl() pages); a slab
# refill it fails is retried by slub at the smallest order, so with
# times=1 a slab allocation should not fail there (allocate_slab(), 6.12).
# tools/testing/fault-step-model.sh checks the stepping on the host.
#
# Within the loops (I/O context rings: hundreds of allocations at two
# sites) stepping every N would take too long under TCG: after 3 steps in
# a row failed sites already failed in this scenario the step doubles (up
# to SRPT_TEST_FAULT_STEP_STRIDE), and a step that finds a new site after
# a jump, or nothing, bisects back to where the loop ended.
#
# Scenarios (sub-cases, SRPT_TEST_FAULT_STEP_CASES selects):
#   load          modprobe ib_srpt with soft-RoCE present (module init and
#                 the device's add_one(): PD, MAD agents, CM listeners,
#                 SRQ off), fail-nth on do_init_module()
#   login-ring    RDMA/CM login, TEST UNIT READY, logout; per-channel rings
#   login-srq     the same with the device's shared receive queue
#   cmd-ring      after an uninjected login: WRITE/READ with direct,
#                 indirect and immediate data, READ compared
#   cmd-srq       the same in SRQ mode
#   tmf           ABORT TASK, LOGICAL UNIT RESET, ABORT TASK SET after a
#                 login
#   two-channels  a second channel of the same nexus, I/O, logout
#   port-disable  the TPG disabled with a channel logged in
#   unplug        rdma link delete with a channel logged in; the device
#                 comes back and ib_srpt re-attaches its target
#   dm-mad        device-management MADs (dm-query probe: ClassPortInfo)
# IB/CM logins are not swept: in one guest the kernel's ib_cm owns the CM
# class, and after the CM they take the RDMA/CM login's allocation sites.
#
# Environment:
#   SRPT_TEST_FAULT_STEP=quick|full  quick (make check's debug lane):
#                 login-ring and cmd-ring, failslab only, with
#                 stride up to 64 and 45 s per scenario; full (default,
#                 make check-debug): all, stride up to 64 (at 16 a
#                 ring scenario took 40 min), no time limit
#   SRPT_TEST_FAULT_STEP_SECS=S     a scenario's sweep stops (a NOTE says
#                 where, not a failure) after S seconds; 0: no limit
#   SRPT_TEST_FAULT_STEP_CASES=glob,glob  scenarios (default by mode)
#   SRPT_TEST_FAULT_STEP_STRIDE=N   the largest step within a loop
#   SRPT_TEST_FAULT_STEP_MAX=N      steps per scenario and attribute at
#                 most (default 400): more fails the scenario
#   SRPT_TEST_FAULT_STEP_SELFTEST=splat  a WARNING line in the kernel log
#                 after step 2 of each srp-hostile scenario: its sub-case
#                 must fail (and the runner's log check the test)

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fault.sh
. "$(dirname "$0")/../lib-fault.sh"

MODE=${SRPT_TEST_FAULT_STEP:-full}
case $MODE in
quick)
	FI_CASES=${SRPT_TEST_FAULT_STEP_CASES:-login-ring,cmd-ring}
	STRIDE_MAX=${SRPT_TEST_FAULT_STEP_STRIDE:-64}
	STEP_SECS=${SRPT_TEST_FAULT_STEP_SECS:-45}
	PAGE_STEPS=0
	;;
full)
	FI_CASES=${SRPT_TEST_FAULT_STEP_CASES:-*}
	STRIDE_MAX=${SRPT_TEST_FAULT_STEP_STRIDE:-64}
	STEP_SECS=${SRPT_TEST_FAULT_STEP_SECS:-0}
	PAGE_STEPS=1
	;;
*) die "SRPT_TEST_FAULT_STEP must be quick or full, not $MODE" ;;
esac
STEP_MAX=${SRPT_TEST_FAULT_STEP_MAX:-400}
SELFTEST=${SRPT_TEST_FAULT_STEP_SELFTEST:-}
[[ $STRIDE_MAX =~ ^[1-9][0-9]*$ && $STEP_MAX =~ ^[1-9][0-9]*$ && $STEP_SECS =~ ^[0-9]+$ ]] ||
	die "SRPT_TEST_FAULT_STEP_STRIDE, _MAX and _SECS must be numbers"
need_cmd addr2line objdump
SRPT_PARAMS=(srp_max_req_size=8260 srpt_srq_size=64)
SLAB=/sys/kernel/slab

fi_setup
trap 'fi_off; echo N >"$FS/cache-filter" 2>/dev/null || true; kill "$KMSG_PID" 2>/dev/null || true' EXIT
fi_init
STEPS=$OUTD/fault-steps.txt
SITES=$OUTD/fault-step-sites.txt
: >"$STEPS"
ALL_SITES=$OUTD/alloc-sites.txt
# ib_srpt.c: vm.sh puts it next to tools/.
"$(dirname "$0")/../alloc-sites.sh" >"$ALL_SITES" || die "alloc-sites.sh found no ib_srpt.c"

# failslab: only caches marked failslab fail; all are (slub_debug=A) but
# the detectors' own.
for c in kmemleak_object kmemleak_scan_area debug_objects_cache; do
	[[ -e $SLAB/$c/failslab ]] || continue
	sysfs_write "$SLAB/$c/failslab" 0 || die "cannot clear failslab of cache $c"
done
[[ $(<"$SLAB/kmalloc-64/failslab") == 1 ]] ||
	skip_missing "kmalloc-64 is not marked failslab: the debug guest boots with slub_debug=A (vm.sh)"
fi_write "$FS/cache-filter" Y

# The counters of failslab's and fail_page_alloc's "interval" (see the
# header): 0 at boot. In files: the sub-cases run in shells of their own.
count_get() {
	cat "$OUTD/count-$(basename "$1")" 2>/dev/null || echo 0
}

count_set() {
	echo "$2" >"$OUTD/count-$(basename "$1")"
}
read -r REJECT_START REJECT_END < <(func_range __kmem_cache_create_args) ||
	die "no __kmem_cache_create_args in /proc/kallsyms"

# Where the module's functions and lines are: the .ko with its DWARF.
KO=$(srpt_ko_path)

# ko_line_dwarf FUNC+OFF/LEN: "FUNCTION LINE" of the innermost ib_srpt.c
# frame at the call before that return address, or "FUNC ?" without DWARF.
ko_line_dwarf() {
	local fn=${1%%+*} off sec val
	off=${1#*+}
	off=${off%%/*}
	read -r val sec < <(objdump -t "$KO" | awk -v f="$fn" '$NF == f && $3 == "F" { print $1, $4; exit }
		$NF == f && $2 == "F" { print $1, $3; exit }') || true
	if [[ -z ${val:-} ]]; then
		echo "$fn ?"
		return
	fi
	addr2line -e "$KO" -j "$sec" -f -i "$(printf '0x%x' $((0x$val + off - 1)))" 2>/dev/null |
		awk -v f="$fn" 'NR % 2 == 1 { fn = $0; next }
			$0 ~ /ib_srpt\.c:[0-9]+/ { l = $0; sub(/.*ib_srpt\.c:/, "", l); sub(/[^0-9].*/, "", l)
				print fn, l; found = 1; exit }
			END { if (!found) print f, "?" }'
}

# ko_map_build: $KO_MAP gets "FUNC OFF FUNCTION LINE" (OFF decimal) for the
# return address of every call in the module, as ko_line_dwarf would
# answer for a frame FUNC+OFF ("?" for FUNCTION when no ib_srpt.c line).
# One objdump and one addr2line per section: under TCG on the debug
# kernel, the two per step took about 24 s of a 37-second step.
ko_map_build() {
	local calls=$OUTD/ko-calls.txt sec
	objdump -d --no-show-raw-insn "$KO" | awk '
		function hex(s,   i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		/^Disassembly of section / { sec = $4; sub(/:$/, "", sec); next }
		/^[0-9a-f]+ <.*>:$/ { fs = hex($1); fn = $2; gsub(/[<>:]/, "", fn); next }
		/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); a = hex(a)
			if (pend) { printf "%s %s %d %x\n", sec, fn, a - fs, a - 1; pend = 0 }
			ins = substr($0, index($0, "\t") + 1)
			if (ins ~ /^(cs |notrack |bnd )*call/) pend = 1 }' >"$calls"
	: >"$KO_MAP"
	for sec in $(awk '{ print $1 }' "$calls" | sort -u); do
		# shellcheck disable=SC2046 # one address per word
		addr2line -a -f -i -e "$KO" -j "$sec" $(awk -v s="$sec" '$1 == s { print "0x" $4 }' "$calls") 2>/dev/null |
			awk -v s="$sec" 'NR == FNR { if ($1 == s) key[++n] = $2 " " $3; next }
				function out() { if (i) print key[i], (res == "" ? "? ?" : res) }
				/^0x[0-9a-f]+$/ { out(); i++; res = ""; k = 0; next }
				{ k++; if (k % 2 == 1) { f = $0; next }
				  if (res == "" && $0 ~ /ib_srpt\.c:[0-9]+/) {
					l = $0; sub(/.*ib_srpt\.c:/, "", l); sub(/[^0-9].*/, "", l); res = f " " l } }
				END { out() }' "$calls" - >>"$KO_MAP"
	done
	# The same lines under each other name of a function (srpt_init_module
	# is init_module in the disassembly, and in a stack dump).
	objdump -t "$KO" | awk '/ F / { print $(NF - 2) ":" $1, $NF }' >"$calls"
	awk 'NR == FNR { grp[$2] = $1; names[$1] = names[$1] " " $2; next }
		{ n = split(names[grp[$1]], m, " ")
		  for (i = 1; i <= n; i++)
			if (m[i] != $1) print m[i], $2, $3, $4 }' "$calls" "$KO_MAP" >"$KO_MAP.alias"
	cat "$KO_MAP.alias" >>"$KO_MAP"
	rm -f "$KO_MAP.alias"
}

# ko_line FUNC+OFF/LEN: ko_line_dwarf's answer, from $KO_MAP (a frame
# that is not a call's return address asks ko_line_dwarf).
ko_line() {
	local fn=${1%%+*} off line
	off=${1#*+}
	off=$((${off%%/*}))
	line=$(awk -v f="$fn" -v o="$off" '$1 == f && $2 == o { print ($3 == "?" ? f : $3), $4; exit }' "$KO_MAP")
	if [[ -n $line ]]; then
		echo "$line"
	else
		ko_line_dwarf "$1"
	fi
}
KO_MAP=$OUTD/ko-lines.txt
ko_map_build
[[ -s $KO_MAP ]] || die "no call found in $KO (objdump, addr2line)"

# step_slice MARK: the kernel log after the line MARK.
step_slice() {
	sync_kmsg
	awk -v m="$1" 'found { print } index($0, m) { found = 1 }' "$KMSG"
}

# slice_site: the site of the first injected failure's dump on stdin:
# "FUNCTION LINE", "silent" (no dump: __GFP_NOWARN) or "?".
slice_site() {
	local frame
	frame=$(awk '/FAULT_INJECTION: forcing a failure/ { want = 1; n++; next }
		want && /\[ib_srpt\]/ && !/; *\? / { sub(/.*;/, ""); sub(/^ */, ""); sub(/ .*/, ""); print; exit }
		END { if (!n) print "silent" }')
	case $frame in
	silent) echo silent ;;
	"") echo "?" ;;
	*) ko_line "$frame" ;;
	esac
}

# slice_reports: reports in the log slice on stdin other than the dumps of
# injected failures and the allocation-failure warnings after them.
slice_reports() {
	awk '{ m = $0; sub(/^[^;]*;/, "", m) }
		m ~ /FAULT_INJECTION: forcing a failure|page allocation failure|vmalloc error/ { d = 1; next }
		d && m ~ /<\/TASK>/ { d = 0; next }
		d && m ~ /^( |Call Trace:|CPU: |Tainted: |Hardware name: |name |RIP: |RSP: |R[A-Z0-9]+: |Code: )/ { next }
		{ print m }' |
		grep -E 'WARNING:|BUG:|Oops|general protection fault|circular locking|inconsistent lock state|recursive locking|suspicious RCU usage|KASAN|UBSAN|blocked for more than|soft lockup|refcount_t:|list_(add|del) corruption|kmemleak:.*leak|Redzone overwritten|Poison overwritten|KFENCE:|ODEBUG' |
		head -n 3 || true
}

# The step's injection, armed and disarmed from the case (srp-hostile's
# "sh" and "finally" steps run these files): ARM sets the attribute,
# DISARM sets its probability 0 (its "times" tells whether the failure
# came) after the target has handled the case's disconnects.
ARM=$OUTD/fi-arm
DISARM=$OUTD/fi-disarm
export FI_ARM=$ARM FI_DISARM=$DISARM

# step_arm_file ATTR N: write ARM and DISARM so that ATTR fails its Nth
# matching call; prints the interval used.
step_arm_file() {
	local a=$1 n=$2 iv
	iv=$(($(count_get "$a") + n))
	{
		echo "echo 0 >$a/probability"
		echo "echo 0 >$a/times"
		echo "echo $iv >$a/interval"
		echo "echo 100 >$a/probability"
		echo "echo 1 >$a/times"
	} >"$ARM"
	printf 'sleep 0.3\necho 0 >%s/probability\n' "$a" >"$DISARM"
	chmod +x "$ARM" "$DISARM"
	echo "$iv"
}

# count_sync ATTR IV N: after step N that injected nothing, move ATTR's
# counter from where it is (IV - N or above, below IV) to IV: configfs
# reads that allocate, one call each, until the one at IV fails.
count_sync() {
	local a=$1 iv=$2 n=$3 k range
	# Interval 1 does not advance the counter.
	((iv > 1)) || { count_set "$a" 0; return 0; }
	count_set "$a" "$iv"
	range=$(func_range configfs_read_iter) || die "no configfs_read_iter in /proc/kallsyms"
	fi_write "$a/probability" 0
	fi_write "$a/times" 0
	fi_write "$a/verbose" 0
	fi_write "$a/require-start" "${range% *}"
	fi_write "$a/require-end" "${range#* }"
	fi_write "$a/reject-start" 0
	fi_write "$a/reject-end" 0
	fi_write "$a/interval" "$iv"
	fi_write "$a/probability" 100
	fi_write "$a/times" 1
	for ((k = 0; k <= n + 1; k++)); do
		cat "$SRPT_CFS/discovery_auth/logins" >/dev/null 2>&1 || true
		(($(<"$a/times") == 0)) && break  # andand: ok the loop's test
	done
	fi_write "$a/probability" 0
	fi_write "$a/verbose" 2
	(($(<"$a/times") == 0)) || die "$(basename "$a"): $k configfs reads made no call fail at interval $iv"
	fi_range "$TEXT_START" "$TEXT_END"
}

# attr_name ATTR: failslab or fail_page_alloc.
attr_name() {
	basename "$1"
}

# SITES_SEEN: sites failed in the current scenario and attribute.
declare -A SEEN=()

# run_case_step SCEN ATTR N CASEFILE CASE [HOSTILE-ARGS...]: step N of
# SCEN: srp-hostile runs CASE (which arms and disarms), with its health
# check. Sets STEP_SITE ("" when nothing was injected); fails on a wrong
# answer, an unhealthy target or a report in the kernel log.
run_case_step() {
	local scen=$1 a=$2 n=$3 cf=$4 c=$5 iv mark rc=0
	shift 5
	iv=$(step_arm_file "$a" "$n")
	mark="ib_srpt-fault-step $scen $(attr_name "$a") $n ${EPOCHREALTIME/./}"
	echo "$mark" >/dev/kmsg
	fi_range "$TEXT_START" "$TEXT_END"
	# 2: the case never armed (ARM sets 1, a failure makes it 0).
	fi_write "$a/times" 2
	"$build/srp-hostile" -d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$(srpt_guid)" \
		-i "0x$INIT_ID" -m "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" \
		-t 15000 "$@" "$cf" "$c" >"$OUTD/step.log" 2>&1 || rc=$?
	fi_write "$a/probability" 0
	if [[ $SELFTEST == splat ]] && ((n == 2)); then
		echo "WARNING: 64-fault-step self-test (SRPT_TEST_FAULT_STEP_SELFTEST=splat)" >/dev/kmsg
	fi
	step_done "$scen" "$a" "$n" "$iv" "$mark" "$rc"
}

# accept_cm_rej: the step failed a login's rdma_accept() (site in
# srpt_rdma_cm_accept()) and the login ended in a CM REJ of reason 28
# without an SRP_LOGIN_REJ: when rdma_accept() fails (no memory for the
# REP), the RDMA CM itself rejects the connection, consumer-defined and
# without private data (cma.c, rdma_accept(), 6.12): no SRP reason can
# follow. Every other answer of a login stays as the case says; the
# next step's login shows whether the target is still healthy.
accept_cm_rej() {
	[[ $STEP_SITE == "srpt_rdma_cm_accept "* ]] || return 1
	[[ $(grep -c '^FAIL' "$OUTD/step.log") == 1 ]] || return 1
	grep -q '^FAIL .*expected ok|rej:insufficient, got cmrej:28$' "$OUTD/step.log"
}

# accept_lost_dreq SCEN: in the unplug scenario the step failed the
# DREQ of the channel's close (site in srpt_close_ch(), whose
# srpt_disconnect_ch() tail-calls rdma_disconnect()) and the initiator saw
# no disconnect within the case's 15 s: when the DREQ cannot be allocated
# the CM puts the connection in timewait without sending one (cm.c,
# cm_send_dreq_locked(), 6.12); the target still moves its QP to the error
# state and releases the channel. In this one-guest test the initiator's
# QP is on the adapter being deleted, whose deletion waits for the
# initiator to exit: it cannot notice earlier. The device must still go
# and come back and a new login work (unplug_runner).
accept_lost_dreq() {
	[[ $1 == unplug ]] || return 1
	[[ $STEP_SITE == "srpt_close_ch "* || $STEP_SITE == "srpt_disconnect_ch "* ]] || return 1
	[[ $(grep -c '^FAIL' "$OUTD/step.log") == 1 ]] || return 1
	grep -q '^FAIL .*expected \[disconnect dead\], nothing within 15000 ms (timeout)$' "$OUTD/step.log"
}

# step_done SCEN ATTR N IV MARK RC: the step's verdict (see run_case_step).
step_done() {
	local scen=$1 a=$2 n=$3 iv=$4 mark=$5 rc=$6 slice bad
	STEP_SITE=
	if (($(<"$a/times") == 2)); then
		fi_write "$a/times" 0
		echo "step $n of $scen: the case ended before it armed the injection (step.log)" >&2
		cp "$OUTD/step.log" "$OUTD/failed-step-$scen-$n.log" 2>/dev/null || true
		return 1
	fi
	if (($(<"$a/times") == 0)); then
		count_set "$a" "$iv"
		((iv > 1)) || count_set "$a" 0
		slice=$(step_slice "$mark")
		STEP_SITE=$(slice_site <<<"$slice")
	else
		fi_write "$a/times" 0
		count_sync "$a" "$iv" "$n"
		slice=$(step_slice "$mark")
	fi
	bad=$(slice_reports <<<"$slice")
	echo "$scen $(attr_name "$a") $n ${STEP_SITE:-none} rc=$rc" >>"$STEPS"
	if ((rc != 0)) && [[ -z $bad ]] && accept_cm_rej; then
		log "step $n of $scen: $STEP_SITE failed; the RDMA CM rejected the login itself (REJ 28, no SRP reason)"
		rc=0
	fi
	if ((rc != 0)) && [[ -z $bad ]] && accept_lost_dreq "$scen"; then
		log "step $n of $scen: $STEP_SITE failed: no DREQ went out; the initiator learns from the device's removal"
		rc=0
	fi
	if ((rc != 0)) || [[ -n $bad ]]; then
		{
			echo "step $n of $scen ($(attr_name "$a")), failure at ${STEP_SITE:-none}: srp-hostile $rc"
			[[ -z $bad ]] || echo "kernel log: $bad"
			grep -E '^(FAIL|PASS)' "$OUTD/step.log" | head -n 3
		} >&2
		cp "$OUTD/step.log" "$OUTD/failed-step-$scen-$n.log" 2>/dev/null || true
		return 1
	fi
}

# sweep SCEN ATTR RUNNER...: step N = 1, 2, ... of the scenario (RUNNER N
# runs step N and sets STEP_SITE, "" when nothing was injected) until a
# step injects nothing. After 3 steps in a row at sites already failed the
# stride doubles (up to STRIDE_MAX); a jump that lands on a new site, or
# on nothing, is bisected: between the last step before it (LO) and it
# (HI), the middle step is tried until they meet, nothing or a site not
# failed before the jump moving HI, another site LO; then the steps go on
# one by one after HI.
sweep() {
	local scen=$1 a=$2 n=1 stride=1 run=0 lo=0 hi=0 steps=0 site new bstart=0 t0=$SECONDS end=""
	shift 2
	SEEN=()
	while :; do
		if ((STEP_SECS && SECONDS - t0 >= STEP_SECS)); then
			end=", stopped after ${STEP_SECS}s (SRPT_TEST_FAULT_STEP_SECS) at step $n"
			break
		fi
		if ((hi)); then
			if ((hi - lo <= 1)); then
				lo=$hi
				n=$((hi + 1))
				hi=0
			else
				n=$(((lo + hi) / 2))
			fi
		fi
		steps=$((steps + 1))
		((steps <= STEP_MAX)) || { echo "$scen: more than $STEP_MAX steps" >&2; return 1; }
		"$@" "$n" || return
		site=$STEP_SITE
		if [[ -n $site && -z ${SEEN[$site]:-} ]]; then
			SEEN[$site]=$steps
			echo "$site" >>"$SITES.raw"
			new=1
		else
			new=0
		fi
		if ((hi)); then
			# A site first failed since the jump, or nothing.
			if [[ -z $site ]] || ((SEEN[$site] >= bstart)); then
				hi=$n
			else
				lo=$n
			fi
			continue
		fi
		if [[ -z $site ]] || ((new)); then
			if ((stride > 1 && n - lo > 1)); then
				hi=$n
				bstart=$steps
				stride=1
				run=0
				continue
			fi
			[[ -n $site ]] || break
			run=0
			stride=1
		else
			run=$((run + 1))
			if ((run >= 3 && stride < STRIDE_MAX)); then
				stride=$((stride * 2))
				((stride <= STRIDE_MAX)) || stride=$STRIDE_MAX
			fi
		fi
		lo=$n
		n=$((n + stride))
	done
	echo "NOTE fault-step-$scen-$(attr_name "$a"): $steps steps in $((SECONDS - t0))s, ${#SEEN[@]} sites$end" >>"${SUBRESULTS:-/dev/null}"
	log "$scen ($(attr_name "$a")): $steps steps in $((SECONDS - t0))s$end, sites: ${!SEEN[*]}"
}

# The step cases: generated here, one per scenario; $FI_ARM arms where the
# scenario begins, $FI_DISARM when the case ends. $FS_RD: the RDMA READ
# depth the injected logins offer (see rd_depth).
CF=$OUTD/fault-step-cases.txt
cat >"$CF" <<'EOF'
define CMD_FAILED status=busy|0x28|check
define DOWN disconnect || dead
define LOGIN login $FS_RD want=ok|rej:insufficient tmo=60000 else=end

case fs-prefill
  login
  send cmd op=write10 lba=0 blocks=64 seed=7 tag=1
  expect rsp tag=1 status=good

case fs-health
  login
  io lba=100

case fs-login
  sh $FI_ARM
  finally $FI_DISARM
  $LOGIN
  send cmd op=tur tag=1
  expect rsp tag=1 status=good || rsp tag=1 $CMD_FAILED || $DOWN else=end
  send logout
  expect $DOWN ms=15000

case fs-cmd
  finally $FI_DISARM
  login imm
  sh $FI_ARM
  send cmd op=write10 lba=8 blocks=8 seed=7 tag=1
  expect rsp tag=1 status=good || rsp tag=1 $CMD_FAILED || $DOWN else=end
  send cmd op=read10 lba=0 blocks=16 tag=2
  expect rsp tag=2 status=good data=0:8192:7:0 || rsp tag=2 $CMD_FAILED || $DOWN else=end
  send cmd op=write10 lba=24 blocks=16 fmt=indirect n=4 seed=7 tag=3
  expect rsp tag=3 status=good || rsp tag=3 $CMD_FAILED || $DOWN else=end
  send cmd op=read10 lba=16 blocks=16 fmt=indirect n=4 tag=4
  expect rsp tag=4 status=good data=0:8192:7:16 || rsp tag=4 $CMD_FAILED || $DOWN else=end
  send cmd op=write10 lba=40 blocks=4 fmt=imm seed=7 tag=5
  expect rsp tag=5 status=good || rsp tag=5 $CMD_FAILED || $DOWN else=end

case fs-tmf
  finally $FI_DISARM
  login
  sh $FI_ARM
  send tsk func=abort task_tag=0x99 tag=1
  expect tmr tag=1 || $DOWN else=end
  send tsk func=lun_reset tag=2
  expect tmr tag=2 || $DOWN else=end
  send tsk func=abort_set tag=3
  expect tmr tag=3 || $DOWN else=end
  send cmd op=read10 lba=0 blocks=8 tag=4
  expect rsp tag=4 status=good data=0:4096:7:0 || rsp tag=4 $CMD_FAILED || $DOWN else=end

case fs-two-channels
  finally $FI_DISARM
  login
  sh $FI_ARM
  login multi $FS_RD want=ok|rej:insufficient tmo=60000 else=end
  send cmd op=read10 lba=48 blocks=8 tag=1
  expect rsp tag=1 status=good data=0:4096:7:48 || rsp tag=1 $CMD_FAILED || $DOWN else=end
  send logout
  expect $DOWN ms=15000

case fs-port-disable
  finally $FI_DISARM
  finally echo 1 >$FI_TPG/enable
  login
  sh $FI_ARM
  sh echo 0 >$FI_TPG/enable
  expect $DOWN ms=15000

case fs-unplug
  finally $FI_DISARM
  login
  sh $FI_ARM
  sh (sleep 0.2; rdma link delete $FI_DEV) >/dev/null 2>&1 &
  expect $DOWN ms=15000
EOF

# setup: ib_srpt loaded, the target of lib-fault.sh, LBAs 0-63 holding the
# pattern of seed 7 (the cases' reads compare against it).
# brd_unload: brd away, so that setup_target can load it again.
brd_unload() {
	[[ ! -d /sys/module/brd ]] || modprobe -r brd
}

setup() {
	# after a load sweep that failed half-way
	srpt_teardown_configfs || true
	core_teardown || true
	brd_unload || die "brd does not unload"
	srpt_unload || die "ib_srpt does not unload"
	srpt_load "${SRPT_PARAMS[@]}"
	setup_target
	fi_text_ranges
	export FI_TPG=$SRPT_TPG FI_DEV=$RDMA_DEV
	hostile_step fs-prefill || die "fs-prefill failed without injection (step.log)"
}

# hostile_step CASE [ARGS...]: CASE of the step cases without injection.
hostile_step() {
	local c=$1
	shift
	"$build/srp-hostile" -d "$IPV4" -s "$IPV4" -p "$SRP_LOGIN_PORT" -g "$(srpt_guid)" \
		-i "0x$INIT_ID" -t 15000 "$@" "$CF" "$c" >"$OUTD/step.log" 2>&1
}

# scenario SCEN CASE [ARGS...]: sweep CASE with failslab, and with
# fail_page_alloc too where the case moves data (full mode).
scenario() {
	local scen=$1 c=$2
	shift 2
	sweep "$scen" "$FS" scen_runner "$scen" "$FS" "$c" "$@" || return
	if ((PAGE_STEPS)) && [[ $c == fs-cmd ]]; then
		sweep "$scen" "$FP" scen_runner "$scen" "$FP" "$c" "$@" || return
	fi
}

# scen_runner SCEN ATTR CASE [ARGS...] N
scen_runner() {
	local scen=$1 a=$2 c=$3 n=${*: -1}
	run_case_step "$scen" "$a" "$n" "$CF" "$c" "${@:4:$#-4}"
}

# load_step N: modprobe with the Nth allocation under do_init_module()
# failed (fail-nth); the module must load, or fail with ENOMEM and be gone.
# A module that loaded must serve a login (health check).
load_step() {
	local n=$1 rc=0 err mark slice bad range
	STEP_SITE=
	[[ ! -d /sys/module/ib_srpt ]] || srpt_unload || { echo "load step $n: ib_srpt does not unload" >&2; return 1; }
	range=$(func_range do_init_module) || { echo "no do_init_module in /proc/kallsyms" >&2; return 1; }
	# shellcheck disable=SC2086 # START END
	fi_range $range
	mark="ib_srpt-fault-step load fail-nth $n ${EPOCHREALTIME/./}"
	echo "$mark" >/dev/kmsg
	fi_arm 0
	err=$(bash -c "echo $n >/proc/thread-self/fail-nth && exec modprobe ib_srpt ${SRPT_PARAMS[*]}" 2>&1) || rc=$?
	slice=$(step_slice "$mark")
	if (($(fi_used) > 0)); then
		STEP_SITE=$(slice_site <<<"$slice")
	fi
	bad=$(slice_reports <<<"$slice")
	echo "load fail-nth $n ${STEP_SITE:-none} rc=$rc" >>"$STEPS"
	[[ -z $bad ]] || { echo "load step $n: kernel log: $bad" >&2; return 1; }
	if ((rc != 0)); then
		[[ $err == *"$ENOMEM"* ]] || { echo "load step $n: modprobe: $err" >&2; return 1; }
		[[ ! -d /sys/module/ib_srpt ]] || { echo "load step $n: failed, but ib_srpt is loaded" >&2; return 1; }
		return 0
	fi
	if [[ -n $STEP_SITE ]]; then
		[[ -d $SRPT_CFS ]] || mkdir "$SRPT_CFS"
		if grep -q "ib_srpt: $RDMA_DEV: not added (" <<<"$slice"; then
			# The RDMA core loads the module without the adapter:
			# the log said so; its WWN must be refused.
			load_not_added "$n" || return 1
		elif [[ $(site_call "$STEP_SITE") == target_register_template ]]; then
			load_lio_half "$n"
		else
			setup_target
			hostile_step fs-health || { echo "load step $n: loaded, but the health check failed (step.log)" >&2; return 1; }
			srpt_teardown_configfs
			core_teardown
			brd_unload || { echo "load step $n: brd does not unload" >&2; return 1; }
		fi
	fi
	srpt_unload || { echo "load step $n: ib_srpt does not unload" >&2; return 1; }
}

# site_call SITE: the call that alloc-sites.sh lists at SITE ("FUNCTION
# LINE", the call's line or up to three lines after it).
site_call() {
	awk -v f="${1% *}" -v l="${1#* }" '$1 == f && $2 <= l + 0 && l - $2 <= 3 { c = $3 } END { print c }' "$ALL_SITES"
}

# load_lio_half N: load step N failed an allocation inside LIO's
# target_register_template(), which returned 0 all the same: in 6.12 it
# ignores what target_fabric_setup_cits() returns, so the fabric is
# registered with the configfs types after the failed one never set up
# (a LUN or ACL directory is then refused with EPERM). A defect of LIO
# that ib_srpt cannot see; a NOTE says so, and the module must unload.
load_lio_half() {
	log "load step $1: target_register_template() failed inside and returned 0 (LIO 6.12 ignores target_fabric_setup_cits()'s error): no health check"
	echo "NOTE fault-step-load: step $1: KNOWN LIO defect: target_register_template() returned 0 after its own allocation failed; fabric half set up" >>"${SUBRESULTS:-/dev/null}"
}

# load_not_added N: after load step N, which left the adapter out, its port
# WWN is refused in configfs with EINVAL.
load_not_added() {
	local wwn err
	wwn=$(port_wwn "$RDMA_DEV" 1 guid) || return
	if err=$(mkdir "$SRPT_CFS/$wwn" 2>&1); then
		rmdir "$SRPT_CFS/$wwn"
		echo "load step $1: $RDMA_DEV was not added, but its WWN $wwn was accepted" >&2
		return 1
	fi
	[[ $err == *"Invalid argument"* ]] || { echo "load step $1: mkdir $wwn: $err" >&2; return 1; }
	log "load step $1: $RDMA_DEV not added, logged; WWN $wwn refused (EINVAL)"
}

case_load() {
	# The modules ib_srpt needs are loaded first: their own init runs
	# under do_init_module() too.
	srpt_load "${SRPT_PARAMS[@]}"
	srpt_unload
	sweep load fail-nth load_step
}

# rd_depth ring|srq: the RDMA READ depth the scenario's injected logins
# offer ($FS_RD). In ring mode none: soft-RoCE allocates a new QP's RDMA
# READ responder resources when the QP moves to RTR, and when that
# allocation fails it leaves the QP's responder task stopped for good
# (rxe_qp_from_attr(), Debian 6.12.118), so the QP's receive queue is never
# flushed and the channel's release waits in ib_drain_rq() forever. With
# none offered the target answers no RDMA READ (an SRP initiator never
# reads from the target) and rxe allocates nothing there. The SRQ
# scenarios, whose channels have no receive queue to drain, offer 16 and
# fail that allocation too (as 63-fault-inject's login-qp-nomem does).
rd_depth() {
	if [[ $1 == ring ]]; then
		export FS_RD=init_depth=0
	else
		export FS_RD=init_depth=16
	fi
}

case_login_ring() {
	srpt_attrib "$SRPT_TPG" use_srq 0
	rd_depth ring
	scenario login-ring fs-login
}

case_login_srq() {
	srpt_attrib "$SRPT_TPG" use_srq 1
	rd_depth srq
	scenario login-srq fs-login -M srq
}

case_cmd_ring() {
	srpt_attrib "$SRPT_TPG" use_srq 0
	scenario cmd-ring fs-cmd
}

case_cmd_srq() {
	srpt_attrib "$SRPT_TPG" use_srq 1
	scenario cmd-srq fs-cmd -M srq
}

case_tmf() {
	srpt_attrib "$SRPT_TPG" use_srq 0
	scenario tmf fs-tmf
}

case_two_channels() {
	srpt_attrib "$SRPT_TPG" use_srq 0
	rd_depth ring
	scenario two-channels fs-two-channels
}

case_port_disable() {
	srpt_attrib "$SRPT_TPG" use_srq 0
	scenario port-disable fs-port-disable
}

# link_gone: $RDMA_DEV is no more.
link_gone() {
	! rdma link show "$RDMA_DEV" >/dev/null 2>&1
}

# unplug_runner N: the unplug case, then the device back. The case deletes
# the device in the background: the deletion waits until srp-hostile,
# which has the device open, has exited.
unplug_runner() {
	local rc=0
	run_case_step unplug "$FS" "$1" "$CF" fs-unplug -H || rc=$?
	wait_for 30 link_gone || { echo "unplug step $1: $RDMA_DEV was not deleted" >&2; return 1; }
	rdma link add "$RDMA_DEV" type "$SOFT_RDMA_TYPE" netdev "$NETDEV"
	wait_for 20 rdma_port_active "$RDMA_DEV" 1 || { echo "unplug step $1: the device did not come back" >&2; return 1; }
	wait_for 20 hostile_step fs-health || { echo "unplug step $1: no login after the device came back (step.log)" >&2; return 1; }
	return "$rc"
}

case_unplug() {
	srpt_attrib "$SRPT_TPG" use_srq 0
	sweep unplug "$FS" unplug_runner
}

# dm_runner N: a ClassPortInfo query with the Nth allocation failed; the
# MAD layer retries a query that got no answer, so it must succeed.
dm_runner() {
	local n=$1 iv mark rc=0
	iv=$(step_arm_file "$FS" "$n")
	mark="ib_srpt-fault-step dm-mad failslab $n ${EPOCHREALTIME/./}"
	echo "$mark" >/dev/kmsg
	fi_range "$TEXT_START" "$TEXT_END"
	sh "$ARM"
	"$DMQ" -d "$RDMA_DEV" -p "$RDMA_PORT" -g 0 -t 2000 -r 3 probe >"$OUTD/step.log" 2>&1 || rc=$?
	fi_write "$FS/probability" 0
	step_done dm-mad "$FS" "$n" "$iv" "$mark" "$rc"
}

case_dm_mad() {
	local src
	[[ -f /usr/include/infiniband/umad.h ]] || { missing_feature "libibumad-dev is not installed"; return; }
	modprobe ib_umad || { missing_feature "ib_umad cannot be loaded"; return; }
	src=$(cd "$(dirname "$0")/../../dm-query" && pwd)
	DMQ_DIR=$(mktemp -d)
	cp "$src/dm-query.c" "$src/Makefile" "$DMQ_DIR/"
	make -s -C "$DMQ_DIR" >&2 || { echo "building dm-query failed" >&2; return 1; }
	DMQ=$DMQ_DIR/dm-query
	"$DMQ" -d "$RDMA_DEV" -p "$RDMA_PORT" -g 0 -t 2000 -r 2 probe >/dev/null 2>&1 ||
		{ missing_feature "soft-RoCE delivers no GSI MAD to the local port (40-dm-mad)"; return; }
	sweep dm-mad "$FS" dm_runner
}

soft_rdma_setup
: >"$SITES.raw"
want_case load && { sub_case load case_load || true; }  # andand: ok want_case picks
setup
for c in login-ring login-srq cmd-ring cmd-srq tmf two-channels port-disable unplug dm-mad; do
	want_case "$c" || continue
	sub_case "$c" "case_${c//-/_}" || true
done
sub_case recovered case_recovered || true
fi_off

# Sites failed of those alloc-sites.sh lists: a failure's line is the
# call's, or one of the next three lines of a call written across lines.
sort -u "$SITES.raw" | grep -v '^silent$' >"$SITES.failed" || true
awk 'NR == FNR { fn[NR] = $1; ln[NR] = $2; call[NR] = $3; n = NR; next }
	{ best = 0
	  for (i = 1; i <= n; i++)
		if (fn[i] == $1 && ln[i] <= $2 + 0 && $2 - ln[i] <= 3 && (!best || ln[i] > ln[best]))
			best = i
	  if (best) hit[best] = 1; else extra[++m] = $1 ":" $2 }
	END { for (i = 1; i <= n; i++) print (hit[i] ? "failed" : "never"), fn[i], ln[i], call[i]
	      for (i = 1; i <= m; i++) print "unlisted", extra[i] }' "$ALL_SITES" "$SITES.failed" >"$SITES"
total=$(grep -c . "$ALL_SITES" || true)
hit=$(grep -c '^failed' "$SITES" || true)
log "sites failed $hit of $total ($SITES):"
cat "$SITES"
echo "NOTE fault-step: sites failed $hit of $total; never failed: $(awk '$1 == "never" { printf "%s%s:%s", s, $2, $3; s = " " }' "$SITES")" >>"${SUBRESULTS:-/dev/null}"
unlisted=$(grep -c '^unlisted' "$SITES" || true)
((unlisted == 0)) || echo "NOTE fault-step: $unlisted failed sites that alloc-sites.sh does not list: $(awk '$1 == "unlisted" { printf "%s%s", s, $2; s = " " }' "$SITES")" >>"${SUBRESULTS:-/dev/null}"
sub_exit
