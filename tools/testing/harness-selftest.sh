#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# harness-selftest.sh - check the guest-test harness (lib.sh) on the host,
# without a guest: sub_case verdicts (a failing middle step, a failing last
# step, a failure inside a nested function, a passing case, skips, die) and
# the CI rule (CI=true turns a skip for a missing tool into a failure), the
# guest env file's quoting of SRPT_TEST_* values, and
# vm.sh's boot retry with a fake QEMU: a guest that dies before its test
# runner starts is booted once more, one that dies later is not;
# kunit.sh's conversion of a module's KUnit kernel log into KTAP; the
# two-guest launch of "vm.sh fabric" with a fake QEMU; the host agent's
# requests (carrier, kill, and a killed node's boot with a fake QEMU); lib.sh's
# kernel-log marks (also when the ring buffer wrapped past one) and bounded
# waits; and check.sh's kunit stage under the CI rule (no UML run in place
# of a lost debug-kernel one).
# check.sh runs it as the "harness" stage.
#
# Usage: tools/testing/harness-selftest.sh [LIB]
#   LIB: the lib.sh to check (default: the one next to this script)
# Exit status 0 when every check passed.

set -uo pipefail

LIB=$(realpath "${1:-$(dirname "$0")/lib.sh}")
TMP=$(mktemp -d /tmp/harness-selftest.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILED=0

# A guest test as tests/*.sh write them: set -euo pipefail, lib.sh, cases.
cat >"$TMP/cases.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
. "$SELFTEST_LIB"
GLOBAL_ARR=(a "b c")
declare -A GLOBAL_MAP=([k]=v)
mid_fail() { true; false; echo "REACHED: step after a failing step" >&2; true; }
last_fail() { true; false; }
inner() { false; echo "REACHED: inner step after a failing step" >&2; }
nested_fail() { inner; true; }
cmd_subst_fail() { local x; x=$(false); echo "REACHED: after a failing \$(...)" >&2; }
pipe_fail() { false | true; echo "REACHED: after a failing pipeline" >&2; }
pass_case() { true; [[ ${GLOBAL_ARR[1]} == "b c" && ${GLOBAL_MAP[k]} == v ]]; }
conditions_ok() { if false; then :; fi; false || true; ! false; false && true; true; }
skip_case() { true; return 77; }
skip_fn() { skip "not here"; }
die_fn() { die "boom"; }
args_case() { [[ $# == 2 && $1 == "a b" && $2 == c ]]; }
locals_seen() { [[ $LOC == 7 && $0 == */cases.sh ]]; }
with_local() { local LOC=7; sub_case caller-local locals_seen || true; }
missing_tool() { need_cmd srpt-selftest-no-such-command; }

sub_case mid mid_fail || true
sub_case last last_fail || true
sub_case nested nested_fail || true
sub_case cmd-subst cmd_subst_fail || true
sub_case pipefail pipe_fail || true
sub_case pass pass_case || true
sub_case conditions conditions_ok || true
sub_case skip skip_case || true
sub_case skip-fn skip_fn || true
sub_case die die_fn || true
sub_case args args_case "a b" c || true
with_local
if sub_case in-if mid_fail; then
	echo "REACHED: if branch of a failed case" >&2
fi
sub_case missing missing_tool || true
sub_exit
EOF

# lib.sh's kernel-log marks on a fake kernel log ($FAKE_KLOG, which dmesg
# prints and kmsg_mark appends to): lines after a mark, a mark in a
# sub-case read outside it, the latest of two marks of one name, and a ring
# buffer that wrapped past the mark (everything left is newer: printed,
# with a note). Then wait_bounded and run_timeout: a job's status, and 124
# for one that outlives its limit.
cat >"$TMP/kmsg.sh" <<'EOF2'
#!/bin/bash
set -euo pipefail
. "$SELFTEST_LIB"
dmesg() { cat "$LIB_KMSG"; }
klog() { printf '[ %s] %s\n' "$SECONDS" "$*" >>"$LIB_KMSG"; }
for i in 1 2 3; do klog "old $i"; done
kmsg_mark a
klog "after a 1"
m=$(kmsg_mark)
klog "after a 2 ib_srpt: x"
echo "a: $(kmsg_since a | grep -c '^\[.*after')"
echo "m: $(kmsg_since "$m" | grep -c 'after a 2')"
echo "m-has: $(kmsg_has "$m" 'ib_srpt: x' && echo yes)"
echo "m-not: $(kmsg_has "$m" 'after a 1' || echo no)"
sub_case_mark() { kmsg_mark sub; klog "in sub"; }
sub_case mark-in-sub sub_case_mark >/dev/null 2>&1
echo "sub: $(kmsg_since sub)"
kmsg_mark a
klog "after a again"
echo "a-latest: $(kmsg_since a | tr '\n' ' ')"
# the ring buffer drops its oldest lines, the marks of a and sub included
tail -n 2 "$LIB_KMSG" >"$LIB_KMSG.new" && mv "$LIB_KMSG.new" "$LIB_KMSG"
klog "newest"
echo "wrapped: $(kmsg_since sub 2>"$TMP_DIR/note" | wc -l) $(grep -c wrapped "$TMP_DIR/note")"
echo "no-mark: $(kmsg_since nosuch 2>/dev/null || echo failed)"
(exit 3) & pid=$!
rc=0; wait_bounded 5 "$pid" || rc=$?
echo "wait-status: $rc"
sleep 30 & pid=$!
rc=0; wait_bounded 1 "$pid" || rc=$?
# SIGKILL and bash's reaping of the child take a moment on a loaded machine
for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
echo "wait-limit: $rc $(kill -0 "$pid" 2>/dev/null && echo alive || echo killed)"
rc=0; run_timeout 5 false || rc=$?
echo "run-status: $rc"
rc=0; run_timeout 1 sleep 30 || rc=$?
echo "run-limit: $rc"
EOF2

# run_kmsg: kmsg.sh's lines are as expected.
run_kmsg() {
	local out=$TMP/kmsg.out
	mkdir -p "$TMP/kmsg"
	env SELFTEST_LIB="$LIB" LIB_STATE="$TMP/kmsg" LIB_KMSG="$TMP/kmsg/log" \
		TMP_DIR="$TMP/kmsg" bash "$TMP/kmsg.sh" >"$out" 2>&1
	check "kmsg_since: lines after a mark" 2 "$(sed -n 's/^a: //p' "$out")"
	check "kmsg_since: a mark made in \$(...)" 1 "$(sed -n 's/^m: //p' "$out")"
	check "kmsg_has: a match after the mark" yes "$(sed -n 's/^m-has: //p' "$out")"
	check "kmsg_has: nothing from before the mark" no "$(sed -n 's/^m-not: //p' "$out")"
	check "kmsg_since: a mark made in a sub-case" "[ 0] in sub" \
		"$(sed -n 's/^sub: //p' "$out" | sed 's/\[ [0-9]*\]/[ 0]/')"
	check "kmsg_since: the latest mark of a name" "after a again " \
		"$(sed -n 's/^a-latest: //p' "$out" | sed 's/\[ [0-9]*\] //g')"
	check "kmsg_since: the log wrapped past the mark (lines, note)" "3 1" \
		"$(sed -n 's/^wrapped: //p' "$out")"
	check "kmsg_since: no such mark" failed "$(sed -n 's/^no-mark: //p' "$out")"
	check "wait_bounded: the job's status" 3 "$(sed -n 's/^wait-status: //p' "$out")"
	check "wait_bounded: a job over the limit" "124 killed" \
		"$(sed -n 's/^wait-limit: //p' "$out")"
	check "run_timeout: the command's status" 1 "$(sed -n 's/^run-status: //p' "$out")"
	check "run_timeout: a command over the limit" 124 "$(sed -n 's/^run-limit: //p' "$out")"
	((FAILED)) && sed 's/^/    | /' "$out"
	return 0
}

# A test that needs a tool that is not installed.
cat >"$TMP/needs.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
. "$SELFTEST_LIB"
need_cmd srpt-selftest-no-such-command
exit 0
EOF

check() {
	local what=$1 want=$2 got=$3
	if [[ $got == "$want" ]]; then
		echo "ok   $what: $got"
	else
		echo "FAIL $what: got '$got', want '$want'"
		FAILED=$((FAILED + 1))
	fi
}

# run_cases CI: run cases.sh; check its verdicts and exit status.
run_cases() {
	local ci=$1 sub=$TMP/sub-$1 log=$TMP/log-$1 rc=0 name want got
	: >"$sub"
	env CI="$ci" SELFTEST_LIB="$LIB" SUBRESULTS="$sub" LIB_STATE="$TMP/state" \
		bash "$TMP/cases.sh" >"$log" 2>&1 || rc=$?
	local -A exp=([mid]=FAIL [last]=FAIL [nested]=FAIL [cmd-subst]=FAIL
		[pipefail]=FAIL [pass]=PASS [conditions]=PASS [skip]=SKIP
		[skip-fn]=SKIP [die]=FAIL [args]=PASS [caller-local]=PASS
		[in-if]=FAIL [missing]=SKIP)
	[[ $ci == true ]] && exp[missing]=FAIL
	for name in mid last nested cmd-subst pipefail pass conditions skip skip-fn \
		die args caller-local in-if missing; do
		want=${exp[$name]}
		got=$(awk -v n="$name" '$2 == n { print $1 }' "$sub" | tr '\n' ' ')
		check "CI=$ci sub_case $name" "$want" "${got% }"
	done
	check "CI=$ci test exit status (sub-cases failed)" 1 "$rc"
	got=$(grep -c REACHED "$log")
	check "CI=$ci steps run after a failing step" 0 "$got"
	((FAILED)) && sed 's/^/    | /' "$log"
	return 0
}

# run_needs CI WANT: a test whose need_cmd fails exits WANT.
run_needs() {
	local rc=0
	env CI="$1" SELFTEST_LIB="$LIB" LIB_STATE="$TMP/state" \
		bash "$TMP/needs.sh" >"$TMP/needs.log" 2>&1 || rc=$?
	check "CI=$1 need_cmd of a missing tool: test exit status" "$2" "$rc"
}

# A fake QEMU for vm.sh's boot_guest: it finds the run directory in the
# -virtfs option of the "share" tag and plays the guest of the scenario in
# $FAKE_PLAN, one word per boot: "early" dies before the runner starts,
# "late" dies after it started, "ok" runs one passing test.
cat >"$TMP/fake-qemu" <<'EOF'
#!/bin/bash
dir=
for a in "$@"; do
	[[ $a =~ path=([^,]*),mount_tag=share ]] && dir=${BASH_REMATCH[1]}
done
n=$(($(cat "$dir/boots" 2>/dev/null || echo 0) + 1))
echo "$n" >"$dir/boots"
read -r -a plan <<<"$FAKE_PLAN"
case ${plan[n - 1]} in
early) echo "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ;;
late) : >"$dir/out/STARTED"; : >"$dir/out/results.txt" ;;
ok) : >"$dir/out/STARTED"; echo "PASS fake" >"$dir/out/results.txt"
	echo finished >"$dir/out/DONE" ;;
esac
EOF
chmod +x "$TMP/fake-qemu"

# run_boot PLAN BOOTS STATUS NOTES: vm.sh's boot_guest and summarise against
# the fake QEMU must boot BOOTS times, end with STATUS and write NOTES
# "boot 1 died" lines.
run_boot() {
	local plan=$1 dir=$TMP/boot-${1// /-} rc=0
	mkdir -p "$dir/out"
	env FAKE_PLAN="$plan" VM_SH_LIB=1 VM="$(dirname "$LIB")/vm.sh" RUN_DIR="$dir" \
		QEMU="$TMP/fake-qemu" bash -c '
		. "$VM"
		SRPT=ours VM_TIMEOUT=60
		qemu=("$QEMU" -virtfs "local,path=$RUN_DIR,mount_tag=share,security_model=none")
		boot_guest run || true
		summarise "$RUN_DIR/out"' >"$dir.log" 2>&1 || rc=$?
	check "vm.sh boots for \"$plan\"" "$2" "$(cat "$dir/boots" 2>/dev/null)"
	check "vm.sh status for \"$plan\"" "$3" "$rc"
	check "vm.sh NOTE lines for \"$plan\"" "$4" \
		"$(grep -c '^NOTE vm: boot 1 died' "$dir/out/results.txt")"
}

# A fake QEMU for vm.sh's boot_fabric: the target (ibsrpt_role=target)
# listens on the ports of its socket netdevs until the initiator wrote
# out/DONE; the initiator records its netdev options and runs one passing
# test.
cat >"$TMP/fake-qemu-fabric" <<'EOF2'
#!/bin/bash
dir= role= ports=()
for a in "$@"; do
	[[ $a =~ path=([^,]*),mount_tag=share ]] && dir=${BASH_REMATCH[1]}
	[[ $a =~ ibsrpt_role=([a-z]+) ]] && role=${BASH_REMATCH[1]}
	[[ $a =~ listen=127.0.0.1:([0-9]+) ]] && ports+=("${BASH_REMATCH[1]}")
done
if [[ $role == target ]]; then
	mkdir -p "$dir/out/target"
	: >"$dir/out/target/STARTED"
	printf '%s\n' "$@" | grep -E '^(socket|virtio-net)' >"$dir/target-args"
	exec python3 -c '
import os, socket, sys, time
ss = []
for p in sys.argv[2:]:
    s = socket.socket()
    s.bind(("127.0.0.1", int(p)))
    s.listen(1)
    ss.append(s)
while not os.path.exists(sys.argv[1] + "/out/DONE"):
    time.sleep(0.1)' "$dir" "${ports[@]}"
fi
printf '%s\n' "$@" | grep -E '^(socket|virtio-net)' >"$dir/initiator-args"
: >"$dir/out/STARTED"
echo "PASS fake" >"$dir/out/results.txt"
echo finished >"$dir/out/DONE"
EOF2
chmod +x "$TMP/fake-qemu-fabric"

# run_fabric: vm.sh's boot_fabric boots the target with two listening
# socket netdevs (fixed MAC addresses) and the initiator connected to the
# same ports, and the run passes.
run_fabric() {
	local dir=$TMP/fabric rc=0 p1 p2
	mkdir -p "$dir/out"
	env VM_SH_LIB=1 VM="$(dirname "$LIB")/vm.sh" RUN_DIR="$dir" \
		QEMU="$TMP/fake-qemu-fabric" bash -c '
		. "$VM"
		SRPT=ours VM_TIMEOUT=60 VM_SMP=1 VM_MEM=1G
		append="console=ttyS0"
		qemu=("$QEMU" -append "$append" -virtfs "local,path=$RUN_DIR,mount_tag=share,security_model=none")
		boot_fabric "$append"
		summarise "$RUN_DIR/out"' >"$dir.log" 2>&1 || rc=$?
	check "vm.sh fabric: status" 0 "$rc"
	p1=$(sed -n 's/^socket,id=link1,listen=127.0.0.1:\([0-9]*\)$/\1/p' "$dir/target-args" 2>/dev/null)
	p2=$(sed -n 's/^socket,id=link2,listen=127.0.0.1:\([0-9]*\)$/\1/p' "$dir/target-args" 2>/dev/null)
	check "vm.sh fabric: two different link ports" 1 "$([[ -n $p1 && -n $p2 && $p1 != "$p2" ]] && echo 1)"
	check "vm.sh fabric: the initiator connects to them" \
		"socket,id=link1,connect=127.0.0.1:$p1 socket,id=link2,connect=127.0.0.1:$p2" \
		"$(grep '^socket' "$dir/initiator-args" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	check "vm.sh fabric: MAC addresses" \
		"52:54:00:52:01:01 52:54:00:52:02:01 52:54:00:52:01:02 52:54:00:52:02:02" \
		"$(cat "$dir/target-args" "$dir/initiator-args" 2>/dev/null | sed -n 's/.*mac=//p' | tr '\n' ' ' | sed 's/ $//')"
}

# run_host_agent: vm.sh's fabric_host_agent answers a guest's request
# through the spool as lib-fabric.sh's fabric_on expects (.out, .rc) and
# refuses anything but "fabric_carrier 1|2 on|off".
run_host_agent() {
	local dir=$TMP/host-agent got="" req
	mkdir -p "$dir"
	env VM_SH_LIB=1 VM="$(dirname "$LIB")/vm.sh" bash -c '
		. "$VM"
		fabric_host_agent "$1/no-such-qmp.sock" "$1/spool" "$1/stop"' _ "$dir" >"$dir.log" 2>&1 &
	for req in "rm -rf /tmp/x" "fabric_carrier 3 off" "fabric_carrier 1 sideways" \
		"fabric_carrier 1 off extra" "fabric_carrier 1 off"; do
		mkdir -p "$dir/spool"
		echo "$req " >"$dir/spool/r.tmp"
		mv "$dir/spool/r.tmp" "$dir/spool/r.req"
		for _ in $(seq 100); do [[ -e $dir/spool/r.rc ]] && break; sleep 0.1; done
		got+="$(cat "$dir/spool/r.rc" 2>/dev/null || echo none) "
		rm -f "$dir/spool/r".*
	done
	: >"$dir/stop"
	wait
	# the last one is served, and fails: no QEMU listens on the socket
	check "vm.sh fabric_host_agent: refused, refused, refused, refused, served" \
		"2 2 2 2 1" "${got% }"
}

# run_host_agent3: with the nodes' QMP sockets given (FABRIC_NODES=3) the
# host agent serves "fabric_carrier 1|2|3 on|off" and "fabric_kill
# nodeA|nodeB" and refuses the rest; a kill that did not reach QEMU marks
# no node dead.
# agent_req DIR REQ: hand REQ to the host agent spooling in DIR/spool/host;
# print the status it answered ("none" after 10 s).
agent_req() {
	mkdir -p "$1/spool/host"
	echo "$2 " >"$1/spool/host/r.tmp"
	mv "$1/spool/host/r.tmp" "$1/spool/host/r.req"
	for _ in $(seq 100); do [[ -e $1/spool/host/r.rc ]] && break; sleep 0.1; done
	cat "$1/spool/host/r.rc" 2>/dev/null || echo none
	rm -f "$1/spool/host/r".*
}

run_host_agent3() {
	local dir=$TMP/host-agent3 got="" req
	mkdir -p "$dir"
	env VM_SH_LIB=1 VM="$(dirname "$LIB")/vm.sh" bash -c '
		. "$VM"
		fabric_host_agent "" "$1/spool/host" "$1/stop" nodeA="$1/a.sock" nodeB="$1/b.sock"' \
		_ "$dir" >"$dir.log" 2>&1 &
	for req in "fabric_carrier 4 off" "fabric_kill nodeC" "fabric_kill" "fabric_carrier 3 off" \
		"fabric_kill nodeB"; do
		got+="$(agent_req "$dir" "$req") "
	done
	: >"$dir/stop"
	wait
	# the last two are served, and fail: no QEMU listens on the sockets
	check "vm.sh fabric_host_agent, three guests: refused x3, served x2" \
		"2 2 2 1 1" "${got% }"
	check "vm.sh fabric_host_agent, three guests: a failed kill marks no node dead" \
		0 "$(find "$dir/spool" -name DEAD | wc -l)"
}

# run_host_agent_boot: the three-guest host agent with boot=DIR serves
# "fabric_boot nodeA|nodeB" for a node marked DEAD only: it starts the
# node's QEMU (here a fake that records its arguments) with the command
# line in DIR/qemu-ROLE.args, its console in console-ROLE.bootN.log, keeps
# the kernel log of the boot before, and removes the node's DEAD, READY
# and unserved requests.
run_host_agent_boot() {
	local dir=$TMP/host-agent-boot got="" req
	mkdir -p "$dir/spool/host" "$dir/spool/nodeA" "$dir/out/nodeA"
	cat >"$dir/fake-qemu" <<'EOF2'
#!/bin/bash
printf '%s|' "$@" >"${0%/*}/booted-args"
while [[ ! -e ${0%/*}/stop ]]; do sleep 0.1; done
EOF2
	chmod +x "$dir/fake-qemu"
	printf '%s\0' "$dir/fake-qemu" -m 1G "append role=nodeA" >"$dir/qemu-nodeA.args"
	echo 1 >"$dir/qemu-nodeA.boots"
	echo "boot 1" >"$dir/out/nodeA/dmesg.log"
	env VM_SH_LIB=1 VM="$(dirname "$LIB")/vm.sh" bash -c '
		. "$VM"
		VM_TIMEOUT=60
		fabric_host_agent "" "$1/spool/host" "$1/stop" nodeA="$1/a.sock" nodeB="$1/b.sock" \
			boot="$1"' _ "$dir" >"$dir.log" 2>&1 &
	for req in "fabric_boot nodeC" "fabric_boot nodeA" "mark-dead" "fabric_boot nodeA"; do
		if [[ $req == mark-dead ]]; then
			: >"$dir/spool/nodeA/DEAD"
			: >"$dir/spool/nodeA/READY"
			: >"$dir/spool/nodeA/left.req"
			continue
		fi
		got+="$(agent_req "$dir" "$req") "
	done
	: >"$dir/stop"
	wait
	check "vm.sh fabric_boot: refused, not dead, booted" "2 1 0" "${got% }"
	check "vm.sh fabric_boot: the node's command line" "-m|1G|append role=nodeA|" \
		"$(cat "$dir/booted-args" 2>/dev/null)"
	check "vm.sh fabric_boot: DEAD, READY and the request left gone" "0" \
		"$(find "$dir/spool/nodeA" -name DEAD -o -name READY -o -name '*.req' | wc -l)"
	check "vm.sh fabric_boot: boot 2's console, boot 1's kernel log kept" "2 yes boot 1" \
		"$(cat "$dir/qemu-nodeA.boots") $([[ -e $dir/console-nodeA.boot2.log ]] && echo yes) $(cat "$dir/out/nodeA/dmesg.boot1.log" 2>/dev/null)"
}

# run_host_agent_ceph: with ceph=DIR the host agent serves the gateway
# tests' Ceph requests, each word checked (an OSD ID of one digit, a wait
# of 1 to 300 s, no argument to ceph_image_sha256), and refuses them
# without it. DIR here holds no cluster: a request served fails in
# ceph-cluster.sh (status 1; wait-clean after its 1 s), one refused
# answers 2.
run_host_agent_ceph() {
	local dir=$TMP/host-agent-ceph got="" req
	mkdir -p "$dir/cluster"
	env VM_SH_LIB=1 VM="$(dirname "$LIB")/vm.sh" bash -c '
		. "$VM"
		fabric_host_agent "" "$1/spool/host" "$1/stop" nodeA="$1/a.sock" nodeB="$1/b.sock" \
			ceph="$1/cluster"' _ "$dir" >"$dir.log" 2>&1 &
	for req in "ceph_kill_osd 12" "ceph_kill_osd x" "ceph_kill_osd" "ceph_start_osd -1" \
		"ceph_wait_clean 0" "ceph_wait_clean 301" "ceph_wait_clean 9999" \
		"ceph_image_sha256 img1" "ceph_destroy" "ceph_kill_osd 1" "ceph_wait_clean 1"; do
		got+="$(agent_req "$dir" "$req") "
	done
	: >"$dir/stop"
	wait
	check "vm.sh fabric_host_agent, ceph=DIR: refused x9, served x2" \
		"2 2 2 2 2 2 2 2 2 1 1" "${got% }"
	got=""
	env VM_SH_LIB=1 VM="$(dirname "$LIB")/vm.sh" bash -c '
		. "$VM"
		fabric_host_agent "" "$1/spool/host" "$1/stop2" nodeA="$1/a.sock" nodeB="$1/b.sock"' \
		_ "$dir" >>"$dir.log" 2>&1 &
	got=$(agent_req "$dir" "ceph_kill_osd 1")
	: >"$dir/stop2"
	wait
	check "vm.sh fabric_host_agent without ceph=DIR: ceph_kill_osd refused" 2 "$got"
}

# run_guest_agent: lib-fabric.sh's fabric_agent serves fabric_on requests
# in subshells of its own shell, with errexit off: their output and status
# come back, lib.sh's functions are there, an exit or die ends only the
# request, and the agent keeps serving.
run_guest_agent() {
	local dir=$TMP/guest-agent got="" rc out
	mkdir -p "$dir"
	# shellcheck disable=SC2016 # expanded by the inner bash
	env FABRIC_SPOOL="$dir/spool" LIB_STATE="$dir/state" bash -c '
		set -uo pipefail
		. "$1/lib.sh"
		. "$1/lib-fabric.sh"
		fabric_agent "$2/stop"' _ "$(dirname "$LIB")" "$dir" >"$dir.log" 2>&1 &
	for req in "echo hi" "false; echo on" "exit 3" "die gone >/dev/null 2>&1" "type -t srpt_add_lun" \
		"echo still"; do
		rc=0
		out=$(env FABRIC_SPOOL="$dir/spool" LIB_STATE="$dir/state" bash -c '
			. "$1/lib.sh"; . "$1/lib-fabric.sh"
			fabric_on none -t 20 eval "$2"' _ "$(dirname "$LIB")" "$req" 2>/dev/null) || rc=$?
		got+="$rc:${out//$'\n'/ } "
	done
	: >"$dir/stop"
	wait
	check "lib-fabric.sh fabric_agent: outputs and statuses" \
		"0:hi 0:on 3: 1: 0:function 0:still" "${got% }"
}

# The kernel log of a module's KUnit run as 6.12 prints it (the module's
# suites come with their own top-level KTAP header), between the markers
# of guest/kunit.sh.
cat >"$TMP/kunit-kmsg.log" <<'EOF'
[   50.000000] ib_srpt-kunit: START
[   51.000000] KTAP version 1
[   51.000001] 1..2
[   51.000002]     KTAP version 1
[   51.000003]     # Subtest: ib_srpt
[   51.000004]     # module: ib_srpt
[   51.000005]     1..2
[   51.100000]     ok 1 srpt_a
[   51.150000] ib_srpt: 10.0.0.1: channel released
[   51.200000]     not ok 2 srpt_b
[   51.200001] # ib_srpt: pass:1 fail:1 skip:0 total:2
[   51.200003] not ok 1 ib_srpt
[   51.300000]     KTAP version 1
[   51.300001]     # Subtest: ib_srpt_credit
[   51.300002]     1..1
[   51.300003]     ok 1 credit_x
[   51.300004] ok 2 ib_srpt_credit
[   52.000000] ib_srpt-kunit: END
EOF

# ktap K LOG: ktap_from_kmsg of kunit.sh K on LOG.
ktap() {
	KUNIT_SH_LIB=1 K="$1" bash -c '. "$K"; ktap_from_kmsg "$1"' _ "$2"
}

# run_ktap: kunit.sh's ktap_from_kmsg (KUNIT_KERNEL=debug) gives KTAP with
# one top-level header and plan, with and without the module's own header.
run_ktap() {
	local k out=$TMP/kunit.ktap
	k="$(dirname "$LIB")/kunit.sh"
	ktap "$k" "$TMP/kunit-kmsg.log" >"$out" 2>&1
	check "kunit.sh: top-level KTAP headers" 1 "$(grep -c '^KTAP version' "$out")"
	check "kunit.sh: top-level plan" "1..2" "$(grep -m1 '^1\.\.' "$out")"
	check "kunit.sh: case lines" 5 "$(grep -cE '^ *(not )?ok ' "$out")"
	check "kunit.sh: kernel messages left out" 0 "$(grep -c 'channel released' "$out")"
	grep -Ev '^\[[ 0-9.]+\] (KTAP version 1|1\.\.2)$' "$TMP/kunit-kmsg.log" \
		>"$TMP/kunit-kmsg-nohdr.log"
	ktap "$k" "$TMP/kunit-kmsg-nohdr.log" >"$out" 2>&1
	check "kunit.sh: header added when missing" "KTAP version 1 1..2" \
		"$(head -n 2 "$out" | tr '\n' ' ' | sed 's/ $//')"
}

# run_boot_report: kunit.sh's boot_report tells a report while the debug
# kernel booted (retried once) from one during the module's run (a failure).
run_boot_report() {
	local k log=$TMP/boot-report.log got
	k="$(dirname "$LIB")/kunit.sh"
	{
		echo "[    7.000633] BUG: KASAN: wild-memory-access in do_raw_spin_lock+0x11d/0x270"
		cat "$TMP/kunit-kmsg.log"
	} >"$log"
	got=$(KUNIT_SH_LIB=1 K="$k" bash -c '. "$K"; boot_report "$1" 2>/dev/null && echo boot || echo run' _ "$log")
	check "kunit.sh: report before START is a boot report" boot "$got"
	{
		cat "$TMP/kunit-kmsg.log"
		echo "[   53.000000] BUG: KASAN: slab-use-after-free in srpt_x+0x1/0x2"
	} >"$log"
	got=$(KUNIT_SH_LIB=1 K="$k" bash -c '. "$K"; boot_report "$1" 2>/dev/null && echo boot || echo run' _ "$log")
	check "kunit.sh: report after START is not" run "$got"
}

# run_kunit_stage CI DEBUG WANT: check.sh's kunit stage in a whole make
# check, with a fake kunit.sh whose debug-kernel run gives no result (a
# lost guest) and whose UML run passes, and a fake debug-kernel.sh: DEBUG
# "built" or "missing". The stage must exit WANT: under CI=true a lost or
# missing debug kernel run fails, outside CI UML stands in.
run_kunit_stage() {
	local ci=$1 debug=$2 want=$3 dir=$TMP/kunit-stage-$1-$2 rc=0
	mkdir -p "$dir/tree/tools/testing" "$dir/results"
	cat >"$dir/tree/tools/testing/kunit.sh" <<'EOF'
#!/bin/bash
[[ $KUNIT_KERNEL == debug ]] && exit 1
echo "PASS ib_srpt/fake" >>"$SUBRESULTS"
EOF
	if [[ $debug == built ]]; then
		printf '#!/bin/bash\necho /fake\n' >"$dir/tree/tools/testing/debug-kernel.sh"
	else
		printf '#!/bin/bash\nexit 1\n' >"$dir/tree/tools/testing/debug-kernel.sh"
	fi
	chmod +x "$dir/tree/tools/testing/"*.sh
	env -u KUNIT_KERNEL -u STAGES CI="$ci" CHECK_DEBUG=quick CHECK_SH_LIB=1 \
		IB_SRPT_RESULTS="$dir/results" CHECK="$(dirname "$LIB")/check.sh" TREE="$dir/tree" \
		bash -c '. "$CHECK"; cd "$TREE" && kunit' >"$dir/log" 2>&1 || rc=$?
	check "CI=$ci kunit stage, debug kernel $debug and its run lost: exit status" "$want" "$rc"
	((rc == want)) || sed 's/^/    | /' "$dir/log"
}

# run_fuzz_total: check.sh's fuzz_total adds the IUs of the fuzz lane's
# NOTE lines (both kernels, both modes) and passes only at FUZZ_TOTAL IUs
# with no report and no failing sub-result.
run_fuzz_total() {
	local dir=$TMP/fuzz-total name body want rc got
	mkdir -p "$dir/results"
	while IFS='|' read -r name want body; do
		printf '%b' "$body" >"$dir/r"
		rc=0
		env -u STAGES CI= CHECK_DEBUG=full CHECK_SH_LIB=1 FUZZ_TOTAL=1000 \
			IB_SRPT_RESULTS="$dir/results" CHECK="$(dirname "$LIB")/check.sh" \
			bash -c '. "$CHECK"; fuzz_total "$0"' "$dir/r" >/dev/null 2>&1 || rc=$?
		got="$rc $(grep -E '^(NOTE total|PASS total|FAIL total)' "$dir/r" | tr '\n' ';')"
		check "fuzz_total: $name" "$want" "$got"
	done <<'EOF2'
enough|0 NOTE total: 1000 IUs sent (kasan:200 kasan:200 debian:300 debian:300), 0 reports;PASS total;|PASS kasan/62-fuzz/fuzz-ring\nNOTE kasan 62-fuzz/fuzz-ring: seed=0x1000 ius=200 batches=2 ius_per_s=24 reports=0\nNOTE kasan 62-fuzz/fuzz-srq: seed=0x1001 ius=200 batches=2 ius_per_s=24 reports=0\nNOTE debian 62-fuzz/fuzz-ring: seed=0x2000 ius=300 batches=3 ius_per_s=130 reports=0\nNOTE debian 62-fuzz/fuzz-srq: seed=0x2001 ius=300 batches=3 ius_per_s=130 reports=0\n
short|1 NOTE total: 999 IUs sent (debian:999), 0 reports;FAIL total;|NOTE debian 62-fuzz/fuzz-ring: seed=0x2000 ius=999 batches=3 ius_per_s=130 reports=0\n
report|1 NOTE total: 1000 IUs sent (debian:1000), 1 reports;FAIL total;|NOTE debian 62-fuzz/fuzz-ring: seed=0x2000 ius=1000 batches=3 ius_per_s=130 reports=1\n
failed-sub|1 NOTE total: 1000 IUs sent (debian:1000), 0 reports;FAIL total;|FAIL debian/62-fuzz/fuzz-srq\nNOTE debian 62-fuzz/fuzz-ring: seed=0x2000 ius=1000 batches=3 ius_per_s=130 reports=0\n
EOF2
}

# run_fault_sites: check.sh's fault_sites joins the site lists of
# make check-debug's two fault-step lanes: a site failed in either lane
# counts once, an unlisted site is named, a missing list fails.
run_fault_sites() {
	local dir=$TMP/fault-sites got
	mkdir -p "$dir/results"
	printf 'failed f 10 kzalloc\nnever f 20 kzalloc\nnever g 5 kvcalloc\n' >"$dir/a"
	printf 'never f 10 kzalloc\nfailed f 20 kzalloc\nnever g 5 kvcalloc\nunlisted h:7\n' >"$dir/b"
	got=$(env -u STAGES CI= CHECK_SH_LIB=1 IB_SRPT_RESULTS="$dir/results" \
		CHECK="$(dirname "$LIB")/check.sh" \
		bash -c '. "$CHECK"; fault_sites "$0" "$1"; echo "rc=$?"; fault_sites "$0" "$2"; echo "rc=$?"' \
		"$dir/a" "$dir/b" "$dir/none" 2>&1 | tr '\n' ';')
	check "fault_sites: two lanes joined, a missing list" \
		"NOTE sites failed 2 of 3 (both lanes); never failed: g:5;NOTE failed sites that alloc-sites.sh does not list: h:7;PASS sites;rc=0;FAIL sites ($dir/none missing);rc=1;" \
		"$got"
}

# run_guest_tests: check.sh's guest stage with TESTS set (make check-ha)
# runs those tests in one guest, not the lanes of the whole suite.
run_guest_tests() {
	local dir=$TMP/guest-tests got
	mkdir -p "$dir/results"
	got=$(env -u STAGES -u VM_SMP -u CHECK_GUEST_LANES CI= CHECK_SH_LIB=1 TESTS=25-ocf-agent \
		IB_SRPT_RESULTS="$dir/results" CHECK="$(dirname "$LIB")/check.sh" \
		bash -c '. "$CHECK"
			guest_run() { echo "guest_run $3 $4|$5"; }
			guest_lanes() { echo lanes; }
			guest' 2>&1 | grep -E '^(guest_run|lanes)' | tr '\n' ';')
	check "guest stage with TESTS=25-ocf-agent: one guest runs it" "guest_run 2 25-ocf-agent|;" "$got"
}

# run_known_reports: known-reports.sh drops DRBD 8.4's report of sleeping
# under rcu_read_lock (as 10-ha-drbd's link-cut printed it) and names it,
# and keeps the same report when ib_srpt is in it, and any other report.
run_known_reports() {
	local dir=$TMP/known-reports kr got
	kr="$(dirname "$LIB")/known-reports.sh"
	mkdir -p "$dir"
	cat >"$dir/drbd" <<'EOF2'
nodeA: [  220.684729] drbd r0/0 drbd0: new current UUID 793166633B7BF451
nodeA: [  220.684861] ------------[ cut here ]------------
nodeA: [  220.684874] Voluntary context switch within RCU read-side critical section!
nodeA: [  220.685098] WARNING: CPU: 0 PID: 319 at kernel/rcu/tree_plugin.h:331 rcu_note_context_switch+0x4a0/0x5f0
nodeA: [  220.686946]  <TASK>
nodeA: [  220.687004]  __schedule+0xc7/0xbf0
nodeA: [  220.687422]  drbd_md_write+0x177/0x2a0 [drbd]
nodeA: [  220.687554]  drbd_uuid_new_current+0xc4/0x130 [drbd]
nodeA: [  220.687672]  w_after_conn_state_ch+0x201/0x280 [drbd]
nodeA: [  220.688023]  </TASK>
nodeA: [  220.688059] ---[ end trace 0000000000000000 ]---
nodeA: [  220.695648] drbd r0: susp( 1 -> 0 )
EOF2
	got=$("$kr" <"$dir/drbd" 2>"$dir/known" | grep -c 'WARNING\|cut here\|end trace')
	check "known-reports: DRBD 8.4's RCU report dropped" "0" "$got"
	check "known-reports: DRBD 8.4's RCU report named" \
		"KNOWN drbd84-uuid-rcu: nodeA: [  220.685098] WARNING: CPU: 0 PID: 319 at kernel/rcu/tree_plugin.h:331 rcu_note_context_switch+0x4a0/0x5f0" \
		"$(cat "$dir/known")"
	check "known-reports: the lines around it kept" "2" "$("$kr" <"$dir/drbd" 2>/dev/null | grep -c 'drbd r0')"
	sed 's/__schedule+0xc7\/0xbf0/srpt_queue_status+0x10\/0x90 [ib_srpt]/' "$dir/drbd" >"$dir/srpt"
	got=$("$kr" <"$dir/srpt" 2>"$dir/known" | grep -c 'WARNING')
	check "known-reports: the same report with ib_srpt in it kept" "1 0" "$got $(wc -l <"$dir/known")"
	sed 's/Voluntary context switch/Some other report/' "$dir/drbd" >"$dir/other"
	got=$("$kr" <"$dir/other" 2>"$dir/known" | grep -c 'WARNING')
	check "known-reports: another report in DRBD kept" "1 0" "$got $(wc -l <"$dir/known")"
}

# run_test_env: vm.sh's guest env file carries SRPT_TEST_* values whole,
# blanks, "|" and ";" included, and running it runs none of them.
run_test_env() {
	local dir=$TMP/test-env got
	mkdir -p "$dir"
	env SRPT_TEST_SELFTEST_V="a  b|c;touch $dir/ran" VM_SH_LIB=1 \
		VM="$(dirname "$LIB")/vm.sh" bash -c '. "$VM"; test_env_exports' >"$dir/env" 2>&1
	got=$(env -i bash -c ". \"$dir/env\"; printf %s \"\$SRPT_TEST_SELFTEST_V\"" 2>&1)
	check "vm.sh env file: SRPT_TEST_* value" "a  b|c;touch $dir/ran" "$got"
	check "vm.sh env file: the value ran nothing" "absent" \
		"$([[ -e $dir/ran ]] && echo present || echo absent)"
}

echo "checking $LIB"
run_test_env
run_guest_tests
run_known_reports
run_fuzz_total
run_fault_sites
run_kmsg
run_ktap
run_boot_report
run_boot "early ok" 2 0 1
run_boot "early early" 2 1 1
run_boot "late ok" 1 1 0
run_boot "ok" 1 0 0
run_fabric
run_host_agent
run_host_agent3
run_host_agent_boot
run_host_agent_ceph
run_guest_agent

run_cases false
run_cases true
run_needs false 77
run_needs true 1
run_kunit_stage false built 0
run_kunit_stage true built 1
run_kunit_stage false missing 0
run_kunit_stage true missing 1
if ((FAILED)); then
	echo "$FAILED check(s) failed"
	exit 1
fi
echo "all harness checks passed"
