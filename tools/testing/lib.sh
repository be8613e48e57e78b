# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh - helpers for ib_srpt guest tests.
#
# Source it from a test in tools/testing/tests/:
#
#	#!/bin/bash
#	set -euo pipefail
#	. "$(dirname "$0")/../lib.sh"
#	soft_rdma_setup
#	srpt_load srp_max_req_size=8260
#	srpt_setup -b brd -s 64
#	disk=$(srp_login)
#	dd_verify "$disk" 16
#	srp_logout "$disk"
#
# Test protocol (see guest/run.sh): exit 0 = pass, 77 = skip (use skip),
# anything else = fail (use die). Sub-cases go to $SUBRESULTS as
# "PASS|FAIL|SKIP <name>" lines (use sub_result or sub_case). After each test
# the runner calls teardown_all, so a test need not clean up after a failure,
# and checks dmesg for warnings.
#
# Every function returns non-zero on failure and prints its diagnostics on
# stderr, so they work under "set -e". Functions that "print" something write
# it to stdout, one item per line, for use in $(...). Functions that set
# globals (soft_rdma_setup, srpt_setup) must not be called in $(...).
#
# Environment:
#   SRPT=ours|stock   which ib_srpt "modprobe ib_srpt" must load (set by the
#                     runner; ours is installed into updates/)
#   SRPT_KO           our module file (set by the runner)
#   SUBRESULTS        file for sub-case verdicts (set by the runner)
#   TEST_OUT          directory for extra artifacts of this test (created
#                     on demand by test_out_dir)
#   SOFT_RDMA_TYPE    soft RDMA driver for soft_rdma_setup (default
#                     $SRPT_TEST_RDMA, which vm.sh passes into the guest,
#                     else rxe; siw is soft-iWARP)
#   CI                "true": a missing tool or kernel feature fails the test
#                     instead of skipping it (see missing_feature)
#   LIB_STATE         state directory (default /run/ib_srpt-lib)
#   LIB_KMSG          where kmsg_mark writes (default /dev/kmsg; the
#                     harness self-test fakes the kernel log)

# shellcheck disable=SC2034 # globals for the tests that source this file
SRPT=${SRPT:-ours}
CFS=/sys/kernel/config/target
SRPT_CFS=$CFS/srpt
LIB_STATE=${LIB_STATE:-/run/ib_srpt-lib}
LIB_KMSG=${LIB_KMSG:-/dev/kmsg}
SOFT_RDMA_TYPE=${SOFT_RDMA_TYPE:-${SRPT_TEST_RDMA:-rxe}}
SRP_LOGIN_PORT=${SRP_LOGIN_PORT:-5555}
# The DRBD resource file of the HA pair's fabric tests (lib-fabric.sh):
# where /etc/drbd.conf includes it, so that the handlers the kernel runs
# through drbdadm (fence-peer) find it.
DRBD_TEST_CONF=${DRBD_TEST_CONF:-/etc/drbd.d/ib_srpt-test.res}
# initiator_ext of srp_login's logins (16 hex digits)
SRP_INITIATOR_EXT=${SRP_INITIATOR_EXT:-5250000000000001}
EXIT_SKIP=77

# Defaults filled in by soft_rdma_setup.
NETDEV=${NETDEV:-}
RDMA_DEV=${RDMA_DEV:-}
RDMA_PORT=${RDMA_PORT:-1}
IPV4=${IPV4:-}
IPV6=${IPV6:-}

mkdir -p "$LIB_STATE"

#
# Logging and verdicts
#

# log MSG... and die MSG... (fail the test): log.sh's, as on the host.
# shellcheck source=tools/testing/log.sh
. "$(dirname "${BASH_SOURCE[0]}")/log.sh"

# skip MSG...: skip the test (exit 77) with MSG as the reason.
skip() {
	log "SKIP: $*"
	exit "$EXIT_SKIP"
}

# sub_result PASS|FAIL|SKIP NAME [REASON]: record a sub-case verdict.
SUB_FAILED=0
sub_result() {
	local verdict=$1 name=$2
	shift 2
	case $verdict in
	PASS|SKIP) ;;
	FAIL) SUB_FAILED=$((SUB_FAILED + 1)) ;;
	*) die "sub_result: bad verdict $verdict" ;;
	esac
	log "$verdict $name${1:+: $*}"
	echo "$verdict $name" >>"${SUBRESULTS:-/dev/null}"
}

# sub_case NAME CMD [ARG...]: run CMD with "set -e" in force (see
# sub_case_run) and record PASS (status 0), SKIP (status 77) or FAIL
# (anything else) for NAME. Every failing step of CMD fails the case, not
# only the last one. Returns CMD's status, so "sub_case x cmd || true"
# continues after failure.
sub_case() {
	local name=$1 rc=0
	shift
	log "--- $name"
	sub_case_run "$@" || rc=$?
	case $rc in
	0) sub_result PASS "$name" ;;
	"$EXIT_SKIP") sub_result SKIP "$name" ;;
	*) sub_result FAIL "$name" "status $rc" ;;
	esac
	return "$rc"
}

# Variables of bash itself that a new shell must not be given.
SUB_CASE_SKIP_VARS=" BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0
 BASH_CMDS BASH_COMMAND BASH_EXECUTION_STRING BASH_LINENO BASH_LOADABLES_PATH
 BASH_REMATCH BASH_SOURCE BASH_SUBSHELL BASH_VERSINFO BASH_VERSION COLUMNS
 COMP_WORDBREAKS DIRSTACK EPOCHREALTIME EPOCHSECONDS EUID FUNCNAME GROUPS
 HISTCMD LINENO LINES PIPESTATUS PPID RANDOM SHELLOPTS SHLVL SRANDOM UID _ "

# sub_case_state: print bash code that recreates this shell's variables
# (locals of the callers included), functions and shell options.
sub_case_state() {
	local v
	for v in $(compgen -v); do
		[[ $SUB_CASE_SKIP_VARS == *" $v "* ]] && continue
		declare -p "$v" 2>/dev/null
	done
	declare -f
	shopt -p
	shopt -po
}

# sub_case_run CMD [ARG...]: run CMD in a new bash process that has this
# shell's variables, functions and options, with errexit on. A subshell
# would not do: bash ignores "set -e" in every command run on the left of
# || or && or in an if condition, subshells and functions included, so only
# the last step of a case would decide its verdict. The case's own
# variable changes are lost, as they were in a subshell.
sub_case_run() {
	# shellcheck disable=SC2016 # expanded by the new shell
	bash -c "$(sub_case_state)"$'\nset -e\n"$@"' "$0" "$@"
}

# sub_exit: exit the test: 1 if any sub_result/sub_case failed, else 0.
sub_exit() {
	((SUB_FAILED == 0)) || die "$SUB_FAILED sub-case(s) failed"
	exit 0
}

# test_out_dir: create and print a directory for this test's artifacts (kept
# in the host's results directory).
test_out_dir() {
	local d=${TEST_OUT:-/tmp/test-out}
	mkdir -p "$d"
	echo "$d"
}

# wait_for SECONDS CMD [ARG...]: poll CMD every 0.2 s until it succeeds;
# return 1 after SECONDS.
wait_for() {
	local limit=$1 end
	shift
	end=$((SECONDS + limit))
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}

# wait_bounded SECONDS PID: wait at most SECONDS for background job PID of
# this shell and return its status; after SECONDS send it SIGKILL and return
# 124 at once. Unlike wait or timeout(1) it does not hang on a process stuck
# in the kernel: such a process is left behind. The one bounded wait of the
# harness (run_timeout is built on it).
wait_bounded() {
	local limit=$1 pid=$2 i
	for ((i = 0; i < limit * 5; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			return
		fi
		sleep 0.2
	done
	kill -KILL "$pid" 2>/dev/null
	return 124
}

# run_timeout SECONDS CMD [ARG...]: run CMD in the background and
# wait_bounded for it.
run_timeout() {
	local limit=$1
	shift
	"$@" &
	wait_bounded "$limit" $!
}

#
# Kernel log since a mark
#

# kmsg_mark [NAME]: mark the kernel log for kmsg_since NAME: write the line
# "ib_srpt-test: mark NAME ID" (ID unique to this call) to /dev/kmsg and
# keep ID in $LIB_STATE, so that the mark also holds in sub-cases and for
# later marks of the same NAME. Without NAME make up a unique one and print
# it: mark=$(kmsg_mark); ...; kmsg_since "$mark".
kmsg_mark() {
	local name=${1:-} id=$BASHPID.${EPOCHREALTIME/./}
	if [[ -z $name ]]; then
		name=m$id
		echo "$name"
	fi
	echo "ib_srpt-test: mark $name $id" >>"$LIB_KMSG" || return
	echo "$id" >"$LIB_STATE/kmsg-mark.$name"
}

# kmsg_since NAME: print the kernel log (dmesg) after mark NAME. When the
# ring buffer has wrapped past the mark (or the log was cleared), every line
# left is newer than the mark: print all of them and say so on stderr. A
# count of lines, by contrast, would then skip new lines.
kmsg_since() {
	local id
	read -r id 2>/dev/null <"$LIB_STATE/kmsg-mark.$1" ||
		{ echo "kmsg_since: no mark $1 (kmsg_mark first)" >&2; return 1; }
	dmesg | awk -v m="ib_srpt-test: mark $1 $id" '
		{ line[NR] = $0 }
		length($0) >= length(m) && substr($0, length($0) - length(m) + 1) == m { at = NR }
		END { for (i = at + 1; i <= NR; i++) print line[i]; exit !at }' && return 0
	echo "kmsg_since: mark $1 is no longer in the kernel log (it wrapped); printed all of it" >&2
}

# kmsg_has NAME REGEX: true if the kernel log after mark NAME matches REGEX
# (grep -E).
kmsg_has() {
	grep -qE "$2" <<<"$(kmsg_since "$1")"
}

# in_ci: true when running under CI (CI=true in the environment, as GitHub
# Actions, GitLab CI and others set it; vm.sh passes it into the guest).
in_ci() {
	[[ ${CI:-} == true ]]
}

# missing_feature MSG...: for a test or sub-case that cannot run because a
# tool or kernel feature is missing: log MSG and return 77 (skip), but under
# CI return 1 (fail): a CI machine must have everything the tests need.
# In a case function: "cond || { missing_feature why; return; }".
missing_feature() {
	if in_ci; then
		log "FAIL (CI=true, a skip would hide this): $*"
		return 1
	fi
	log "SKIP: $*"
	return "$EXIT_SKIP"
}

# skip_missing MSG...: end the test with missing_feature's verdict.
skip_missing() {
	local rc=0
	missing_feature "$@" || rc=$?
	exit "$rc"
}

# need_cmd CMD...: skip the test (fail it under CI) unless every CMD is
# installed.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip_missing "$c is not installed"
	done
}

# sysfs_write FILE VALUE: write VALUE to FILE; on failure print the error
# with FILE's name and return 1.
sysfs_write() {
	local err
	if ! err=$( { echo "$2" >"$1"; } 2>&1); then
		echo "writing '$2' to $1 failed: ${err##*: }" >&2
		return 1
	fi
}

#
# ib_srpt module
#

# srpt_ko_path: print the file "modprobe ib_srpt" must load: our module when
# SRPT=ours, the guest kernel's own one when SRPT=stock.
srpt_ko_path() {
	if [[ $SRPT == stock ]]; then
		echo "/lib/modules/$(uname -r)/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko"
	else
		echo "${SRPT_KO:-/lib/modules/$(uname -r)/updates/ib_srpt.ko}"
	fi
}

# build_id_of_ko FILE: print the GNU build ID note of a module file in hex.
build_id_of_ko() {
	local tmp
	tmp=$(mktemp)
	objcopy -O binary --only-section=.note.gnu.build-id "$1" "$tmp" 2>/dev/null
	od -An -tx1 -v "$tmp" | tr -d ' \n'
	rm -f "$tmp"
}

# build_id_loaded MODULE: print the build ID note of a loaded module in hex.
build_id_loaded() {
	od -An -tx1 -v "/sys/module/$1/notes/.note.gnu.build-id" 2>/dev/null | tr -d ' \n'
}

# srpt_is_ours: true if the loaded ib_srpt is the file srpt_ko_path names
# with SRPT=ours.
srpt_is_ours() {
	local want
	[[ -d /sys/module/ib_srpt ]] || return 1
	want=$(SRPT=ours srpt_ko_path)
	[[ -f $want ]] || return 1
	[[ $(build_id_loaded ib_srpt) == "$(build_id_of_ko "$want")" ]]
}

# srpt_assert_module: fail unless the loaded ib_srpt is the one SRPT asks for
# (compares the module's GNU build ID with the .ko file's; falls back to
# srcversion).
srpt_assert_module() {
	local ko loaded want
	[[ -d /sys/module/ib_srpt ]] || { echo "ib_srpt is not loaded" >&2; return 1; }
	ko=$(srpt_ko_path)
	[[ -f $ko ]] || { echo "$ko does not exist" >&2; return 1; }
	loaded=$(build_id_loaded ib_srpt)
	want=$(build_id_of_ko "$ko")
	if [[ -z $loaded || -z $want ]]; then
		loaded=$(cat /sys/module/ib_srpt/srcversion 2>/dev/null || true)
		want=$(modinfo -F srcversion "$ko" 2>/dev/null || true)
	fi
	if [[ -z $want || $loaded != "$want" ]]; then
		echo "loaded ib_srpt ($loaded) is not $ko ($want) - SRPT=$SRPT" >&2
		return 1
	fi
}

# srpt_has_param NAME: true if ib_srpt (the one modprobe finds) has module
# parameter NAME.
srpt_has_param() {
	modinfo -F parm ib_srpt 2>/dev/null | grep -q "^$1:"
}

# target_prepare: load target_core_mod and mount configfs.
target_prepare() {
	modprobe configfs 2>/dev/null || true
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config
	modprobe target_core_mod
	[[ -d $CFS ]] || { echo "$CFS missing after loading target_core_mod" >&2; return 1; }
}

# srpt_load [PARAM=VALUE...]: load target_core_mod and ib_srpt with the given
# module parameters, check that the right module (ours or stock, see SRPT)
# was loaded and that $SRPT_CFS exists.
srpt_load() {
	target_prepare || return
	if [[ -d /sys/module/ib_srpt ]]; then
		echo "ib_srpt is already loaded" >&2
		return 1
	fi
	log "modprobe ib_srpt $* (SRPT=$SRPT)"
	modprobe ib_srpt "$@" || return
	srpt_assert_module || return
	# LIO creates a fabric's configfs group on mkdir (as rtslib does).
	[[ -d $SRPT_CFS ]] || mkdir "$SRPT_CFS" ||
		{ echo "cannot create $SRPT_CFS" >&2; return 1; }
}

# srpt_unload [SECONDS]: remove the (empty) $SRPT_CFS group and rmmod
# ib_srpt; fail if that fails or takes longer than SECONDS (default
# $UNLOAD_TIMEOUT or 30). Use srpt_teardown_configfs first if targets exist.
srpt_unload() {
	local limit=${1:-${UNLOAD_TIMEOUT:-30}} rc=0
	[[ -d /sys/module/ib_srpt ]] || return 0
	if [[ -d $SRPT_CFS ]] && ! rmdir "$SRPT_CFS"; then
		echo "cannot remove $SRPT_CFS: $(ls -A "$SRPT_CFS" | tr '\n' ' ')" >&2
		return 1
	fi
	run_timeout "$limit" rmmod ib_srpt || rc=$?
	if ((rc == 124)); then
		echo "rmmod ib_srpt did not finish within ${limit}s" >&2
	elif ((rc)); then
		echo "rmmod ib_srpt failed (status $rc, refcnt $(cat /sys/module/ib_srpt/refcnt 2>/dev/null))" >&2
	fi
	return "$rc"
}

# srpt_guid: print ib_srpt's service GUID as the module reports it (0x + 16
# hex digits).
srpt_guid() {
	cat /sys/module/ib_srpt/parameters/srpt_service_guid
}

# hostile_build DIR: put an srp-hostile binary for tools/srp-hostile into
# DIR (a new scratch directory): the one built on the host ("make -C
# tools/srp-hostile") when it was built from these sources, else one built
# here (slow under emulation). Sets HOSTILE_DIR to tools/srp-hostile.
hostile_build() {
	local dir=$1 sum
	HOSTILE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../srp-hostile" && pwd)
	sum=$(cd "$HOSTILE_DIR" && cat conn.c build.c run.c fuzz.c hostile.h run.h srp_wire.h srp_cm.c srp_cm.h ibcm.c ibcm.h ibcm_conn.c | sha256sum | cut -d' ' -f1)
	if [[ -x $HOSTILE_DIR/srp-hostile && $(cat "$HOSTILE_DIR/srp-hostile.srcsum" 2>/dev/null) == "$sum" ]]; then
		cp "$HOSTILE_DIR/srp-hostile" "$dir/"
		log "using the host-built srp-hostile"
	else
		need_cmd gcc make
		cp "$HOSTILE_DIR"/*.c "$HOSTILE_DIR"/*.h "$HOSTILE_DIR"/Makefile "$dir"/
		make -s -C "$dir" CFLAGS="-O1 -g" >&2 || die "building srp-hostile failed"
		log "built srp-hostile in the guest"
	fi
}

#
# Soft RDMA devices and port names
#

# soft_rdma_setup [-t TYPE] [-n NETDEV] [-d RDMADEV] [-4 ADDR/LEN] [-6 ADDR/LEN]
# Create a dummy network device with an IPv4 and an IPv6 address and a soft
# RDMA device on top of it (TYPE rxe by default, $SOFT_RDMA_TYPE), wait for
# its port to become active and set the globals NETDEV, RDMA_DEV, RDMA_PORT,
# IPV4 and IPV6 (addresses without prefix length). Defaults: srpt0, rxe0,
# 10.211.0.1/24, fd00:5250::1/64. Call it once per device (not in $(...)).
soft_rdma_setup() {
	local type=$SOFT_RDMA_TYPE netdev=srpt0 dev="" v4=10.211.0.1/24 v6=fd00:5250::1/64 opt
	local OPTIND=1
	while getopts t:n:d:4:6: opt; do
		case $opt in
		t) type=$OPTARG ;;
		n) netdev=$OPTARG ;;
		d) dev=$OPTARG ;;
		4) v4=$OPTARG ;;
		6) v6=$OPTARG ;;
		*) echo "soft_rdma_setup: bad option" >&2; return 1 ;;
		esac
	done
	[[ -n $dev ]] || dev=${type}0
	case $type in
	rxe) modprobe rdma_rxe ;;
	siw) modprobe siw ;;
	*) echo "soft_rdma_setup: unknown soft RDMA type $type" >&2; return 1 ;;
	esac || { echo "cannot load the $type driver" >&2; return 1; }
	modprobe dummy numdummies=0 2>/dev/null || true
	modprobe rdma_ucm 2>/dev/null || true
	if [[ $type == siw ]]; then
		# siw binds a wildcard listener to its network device, and
		# initiator and target share this kernel: the connection comes
		# in on lo. So siw sits on lo, with the addresses (one device).
		[[ $netdev == srpt0 ]] ||
			{ echo "soft_rdma_setup: siw runs on lo, one device only" >&2; return 1; }
		netdev=lo
		v4=${v4%/*}/32 v6=${v6%/*}/128
		# siw's GID is the MAC address, and ib_srpt cannot name a port
		# whose GID is zero (lo's MAC address).
		ip link set lo address 02:52:50:00:00:01 || return
		echo "lomac" >>"$LIB_STATE/created"
		ip addr add "$v4" dev lo || return
		echo "addr $v4" >>"$LIB_STATE/created"
		ip -6 addr add "$v6" dev lo nodad || return
		echo "addr $v6" >>"$LIB_STATE/created"
	else
		ip link add "$netdev" type dummy || return
		echo "netdev $netdev" >>"$LIB_STATE/created"
		ip addr add "$v4" dev "$netdev" || return
		ip -6 addr add "$v6" dev "$netdev" nodad || return
		ip link set "$netdev" up || return
	fi
	rdma link add "$dev" type "$type" netdev "$netdev" || return
	echo "rdma $dev" >>"$LIB_STATE/created"
	wait_for 20 rdma_port_active "$dev" 1 ||
		{ echo "$dev port 1 did not become active" >&2; return 1; }
	NETDEV=$netdev RDMA_DEV=$dev RDMA_PORT=1 IPV4=${v4%/*} IPV6=${v6%/*}
	log "soft RDMA: $dev ($type) on $netdev, $IPV4, $IPV6, GID $(rdma_port_gid "$dev" 1)"
}

# soft_rdma_teardown: delete the soft RDMA devices and network devices that
# soft_rdma_setup created (in this boot).
soft_rdma_teardown() {
	local what name
	[[ -f $LIB_STATE/created ]] || return 0
	while read -r what name; do
		[[ $what == rdma ]] && rdma link del "$name" 2>/dev/null
	done <"$LIB_STATE/created"
	while read -r what name; do
		[[ $what == netdev ]] && ip link del "$name" 2>/dev/null
	done <"$LIB_STATE/created"
	# siw on lo: every address but lo's own goes (tests add more).
	if grep -q '^addr ' "$LIB_STATE/created"; then
		ip -o addr show dev lo | awk '{ print $4 }' |
			grep -vx -e 127.0.0.1/8 -e ::1/128 |
			while read -r name; do ip addr del "$name" dev lo; done
	fi
	if grep -qx lomac "$LIB_STATE/created"; then
		ip link set lo address 00:00:00:00:00:00
	fi
	rm -f "$LIB_STATE/created"
	return 0
}

# rdma_devices: print the names of all RDMA devices.
rdma_devices() {
	local d
	for d in /sys/class/infiniband/*; do
		[[ -e $d ]] && basename "$d"
	done
	return 0
}

# rdma_port_active DEV PORT: true if the port's state is ACTIVE.
rdma_port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/$2/state" 2>/dev/null
}

# comp_vectors DEV: print the number of completion vectors of RDMA device
# DEV (num_comp_vectors of ibv_devinfo -v; soft-RoCE and soft-iWARP have
# one per possible CPU).
comp_vectors() {
	local n
	n=$(ibv_devinfo -d "$1" -v | sed -n 's/^[[:space:]]*num_comp_vectors:[[:space:]]*\([0-9]*\)$/\1/p')
	[[ -n $n ]] || { echo "ibv_devinfo shows no num_comp_vectors for $1" >&2; return 1; }
	echo "$n"
}

# usable_vectors DEV: print how many completion vectors of DEV a CQ from the
# RDMA core's pool can be on: comp_vectors DEV, but no more than the CPUs
# online.
usable_vectors() {
	local n c
	n=$(comp_vectors "$1") || return
	c=$(getconf _NPROCESSORS_ONLN) || return
	echo $((n < c ? n : c))
}

# comp_mask_bit N: print the comp_v_mask value (ib_srpt) that allows only
# completion vector N: "0x", the digit of bit N and N/4 zeros; for any N, the
# shell's 64-bit arithmetic is not used.
comp_mask_bit() {
	local zeros="" i
	for ((i = 0; i < $1 / 4; i++)); do
		zeros+=0
	done
	printf '0x%x%s\n' $((1 << ($1 % 4))) "$zeros"
}

# comp_mask_all: print comp_v_mask's default, every vector of 0 to 1023:
# "0x" and 256 "f".
comp_mask_all() {
	local f="" i
	for ((i = 0; i < 256; i++)); do
		f+=f
	done
	echo "0x$f"
}

# rdma_port_gid DEV PORT [INDEX]: print GID INDEX (default 0) of a port as
# in sysfs (fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx).
rdma_port_gid() {
	cat "/sys/class/infiniband/$1/ports/$2/gids/${3:-0}"
}

# gid_to_guid_name GID: print the GUID form of a GID, i.e. its interface ID
# as xxxx:xxxx:xxxx:xxxx (a target port or ACL name).
gid_to_guid_name() {
	local g=${1,,}
	g=${g//:/}
	[[ $g =~ ^[0-9a-f]{32}$ ]] || { echo "bad GID $1" >&2; return 1; }
	echo "${g:16:4}:${g:20:4}:${g:24:4}:${g:28:4}"
}

# gid_to_gid_name GID: print the GID form of a GID: 0x + 32 lowercase hex
# digits (a target port or ACL name; targetcli's ib.<32 hex>).
gid_to_gid_name() {
	local g=${1,,}
	g=${g//:/}
	[[ $g =~ ^[0-9a-f]{32}$ ]] || { echo "bad GID $1" >&2; return 1; }
	echo "0x$g"
}

# port_wwn DEV PORT [guid|gid]: print the ib_srpt target port (WWN) name of
# an RDMA port in GUID form (default) or GID form, built from GID index 0.
port_wwn() {
	local gid
	gid=$(rdma_port_gid "$1" "$2") || return
	case ${3:-guid} in
	guid) gid_to_guid_name "$gid" ;;
	gid) gid_to_gid_name "$gid" ;;
	*) echo "port_wwn: form must be guid or gid" >&2; return 1 ;;
	esac
}

# srp_initiator_port_id [DEV] [PORT] [EXT]: print the 128-bit SRP initiator
# port ID of logins from DEV/PORT (default $RDMA_DEV port 1) with
# initiator_ext EXT (default $SRP_INITIATOR_EXT) as an ACL name: 0x + EXT +
# the port's interface ID. ib_srpt matches it for GID-named target ports.
srp_initiator_port_id() {
	local gid ext=${3:-$SRP_INITIATOR_EXT}
	gid=$(rdma_port_gid "${1:-$RDMA_DEV}" "${2:-1}") || return
	gid=${gid//:/}
	echo "0x${ext,,}${gid:16:16}"
}

# ipv6_full ADDR: print an IPv6 address written out in full
# (fd00:5250:0000:...:0001), the form ib_srpt uses as RDMA/CM session name.
ipv6_full() {
	python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$1"
}

#
# Backstores (LIO core)
#

# brd_setup SIZE_MIB [COUNT]: load brd with COUNT (default 1) RAM disks
# /dev/ram0.. of SIZE_MIB each. Fails if brd is already loaded.
brd_setup() {
	local size=$1 count=${2:-1}
	[[ -d /sys/module/brd ]] && { echo "brd is already loaded" >&2; return 1; }
	modprobe brd rd_nr="$count" rd_size=$((size * 1024)) max_part=0 || return
	wait_for 10 test -b /dev/ram$((count - 1))
}

# nullblk_setup SIZE_GIB [COUNT]: load null_blk with COUNT (default 1)
# devices /dev/nullb0.. of SIZE_GIB each (data is not stored).
nullblk_setup() {
	local gb=$1 count=${2:-1}
	[[ -d /sys/module/null_blk ]] && { echo "null_blk is already loaded" >&2; return 1; }
	modprobe null_blk nr_devices="$count" gb="$gb" || return
	wait_for 10 test -b /dev/nullb$((count - 1))
}

# nullb_slow_setup NAME MIB NSEC: make a null_blk device /dev/NAME of MIB
# MiB through null_blk's configfs (null_blk must be loaded), with memory
# behind it. Each request completes NSEC ns after it was submitted (timer
# completion). teardown_all removes it.
nullb_slow_setup() {
	local d=/sys/kernel/config/nullb/$1
	mkdir "$d" || return
	sysfs_write "$d/size" "$2" || return
	sysfs_write "$d/memory_backed" 1 || return
	sysfs_write "$d/irqmode" 2 || return
	sysfs_write "$d/completion_nsec" "$3" || return
	sysfs_write "$d/power" 1 || return
	wait_for 10 test -b "/dev/$1"
}

# backstore_iblock NAME DEV: create an iblock backstore NAME on block device
# DEV and print its configfs path.
backstore_iblock() {
	local so=$CFS/core/iblock_0/$1
	mkdir -p "$so" || return
	sysfs_write "$so/control" "udev_path=$2" || return
	sysfs_write "$so/udev_path" "$2" || return
	sysfs_write "$so/enable" 1 || return
	echo "$so"
}

# backstore_naa SO: the NAA designator (32 hex digits) LIO makes for
# backstore SO, as in VPD page 83h and EXTENDED COPY's CSCD descriptors:
# NAA 6, the 24-bit company ID, then the first 25 hex digits of the unit
# serial number (zero-filled).
backstore_naa() {
	local serial cid naa
	serial=$(sed -n 's/^T10 VPD Unit Serial Number: //p' "$1/wwn/vpd_unit_serial") || return
	cid=$(<"$1/wwn/company_id") || return
	printf -v naa '6%06x%s' "$((cid))" "${serial//[^0-9a-fA-F]/}"
	naa=${naa,,}0000000000000000000000000
	echo "${naa:0:32}"
}

# backstore_fileio NAME FILE SIZE_MIB: create a fileio backstore NAME on FILE
# (created if needed, SIZE_MIB large) and print its configfs path.
backstore_fileio() {
	local so=$CFS/core/fileio_0/$1
	mkdir -p "$so" || return
	sysfs_write "$so/control" "fd_dev_name=$2,fd_dev_size=$(($3 * 1048576))" || return
	sysfs_write "$so/enable" 1 || return
	echo "$so"
}

# backstore_brd NAME SIZE_MIB [INDEX]: iblock backstore NAME on /dev/ramINDEX
# (default 0); loads brd with one RAM disk of SIZE_MIB if it is not loaded.
# Prints the configfs path.
backstore_brd() {
	local idx=${3:-0}
	[[ -d /sys/module/brd ]] || brd_setup "$2" || return
	[[ -b /dev/ram$idx ]] || { echo "/dev/ram$idx does not exist" >&2; return 1; }
	backstore_iblock "$1" "/dev/ram$idx"
}

# backstore_nullblk NAME SIZE_GIB [INDEX]: iblock backstore NAME on
# /dev/nullbINDEX; loads null_blk if needed. Prints the configfs path.
backstore_nullblk() {
	local idx=${3:-0}
	[[ -d /sys/module/null_blk ]] || nullblk_setup "$2" || return
	[[ -b /dev/nullb$idx ]] || { echo "/dev/nullb$idx does not exist" >&2; return 1; }
	backstore_iblock "$1" "/dev/nullb$idx"
}

#
# ib_srpt configfs
#

# srpt_add_target WWN [TPG]: create target port WWN and TPG (default: the WWN
# name again, as blktests does; targetcli uses tpgt_1). Prints the TPG path.
srpt_add_target() {
	local wwn=$1 tpg=${2:-$1}
	if [[ ! -d $SRPT_CFS/$wwn ]]; then
		mkdir "$SRPT_CFS/$wwn" || return
	fi
	mkdir "$SRPT_CFS/$wwn/$tpg" || return
	echo "$SRPT_CFS/$wwn/$tpg"
}

# srpt_add_lun TPG BACKSTORE [LUN]: export BACKSTORE (configfs path) as LUN
# (default: the next free number) of TPG. Prints the LUN path.
srpt_add_lun() {
	local tpg=$1 so=$2 lun=${3:-}
	if [[ -z $lun ]]; then
		lun=0
		while [[ -e $tpg/lun/lun_$lun ]]; do lun=$((lun + 1)); done
	fi
	mkdir "$tpg/lun/lun_$lun" || return
	ln -s "$so" "$tpg/lun/lun_$lun/$(basename "$so")" || return
	echo "$tpg/lun/lun_$lun"
}

# srpt_add_acl TPG NAME: create an ACL for initiator NAME (any accepted form:
# GUID form, 0x+hex, hex, IPv4, full IPv6) and map every LUN of TPG to it
# with the same LUN number. Prints the ACL path.
srpt_add_acl() {
	local tpg=$1 acl=$1/acls/$2 l n
	mkdir "$acl" || return
	for l in "$tpg"/lun/lun_*; do
		[[ -d $l ]] || continue
		n=$(basename "$l")
		mkdir "$acl/$n" || return
		ln -s "$l" "$acl/$n/$n" || return
	done
	echo "$acl"
}

# srpt_enable TPG [0|1]: enable (default) or disable a TPG.
srpt_enable() {
	sysfs_write "$1/enable" "${2:-1}"
}

# srpt_attrib TPG NAME [VALUE]: set TPG attribute NAME (srp_max_rdma_size,
# srp_max_rsp_size, srp_sq_size, use_srq) to VALUE, or print it.
srpt_attrib() {
	if [[ $# -ge 3 ]]; then
		sysfs_write "$1/attrib/$2" "$3"
	else
		cat "$1/attrib/$2"
	fi
}

# srpt_set_rdma_cm_port PORT: start ib_srpt's RDMA/CM listener on PORT
# (0 stops it).
srpt_set_rdma_cm_port() {
	sysfs_write "$SRPT_CFS/discovery_auth/rdma_cm_port" "$1"
}

# srpt_setup [-b brd|nullblk|fileio] [-s SIZE] [-l NLUNS] [-w guid|gid]
#            [-t TPGNAME] [-a ACL]... [-p PORT] [-D]
# One call for the usual target: for every port of $RDMA_DEV a WWN (GUID
# form by default) and TPG, NLUNS (default 1) LUNs on the chosen backstore
# (SIZE in MiB for brd/fileio, default 64; GiB for nullblk, default 1), ACLs
# (default: $IPV4, the full form of $IPV6 and srp_initiator_port_id, i.e.
# srp_login's logins from this host, which GID-named target ports match by
# port ID; -a replaces them and may be repeated), the TPG enabled and the
# RDMA/CM listener on PORT (default 5555). -D leaves the TPG disabled.
# Sets SRPT_WWN and SRPT_TPG (of port 1) and SRPT_TPGS (all). Needs
# soft_rdma_setup and srpt_load first; not for $(...).
srpt_setup() {
	local bs=brd size="" nluns=1 form=guid tpgname="" port=$SRP_LOGIN_PORT enable=1 opt
	local -a acls=()
	local OPTIND=1 p wwn tpg so i a
	while getopts b:s:l:w:t:a:p:D opt; do
		case $opt in
		b) bs=$OPTARG ;;
		s) size=$OPTARG ;;
		l) nluns=$OPTARG ;;
		w) form=$OPTARG ;;
		t) tpgname=$OPTARG ;;
		a) acls+=("$OPTARG") ;;
		p) port=$OPTARG ;;
		D) enable=0 ;;
		*) echo "srpt_setup: bad option" >&2; return 1 ;;
		esac
	done
	[[ -n $RDMA_DEV ]] || { echo "srpt_setup: no RDMA_DEV (call soft_rdma_setup)" >&2; return 1; }
	if ((${#acls[@]} == 0)); then
		acls=("$IPV4")
		[[ -n $IPV6 ]] && acls+=("$(ipv6_full "$IPV6")")
		acls+=("$(srp_initiator_port_id)")
	fi
	local -a sos=()
	case $bs in
	brd)
		brd_setup "${size:-64}" "$nluns" || return
		for ((i = 0; i < nluns; i++)); do
			so=$(backstore_iblock "srpt_ram$i" "/dev/ram$i") || return
			sos+=("$so")
		done
		;;
	nullblk)
		nullblk_setup "${size:-1}" "$nluns" || return
		for ((i = 0; i < nluns; i++)); do
			so=$(backstore_iblock "srpt_null$i" "/dev/nullb$i") || return
			sos+=("$so")
		done
		;;
	fileio)
		for ((i = 0; i < nluns; i++)); do
			so=$(backstore_fileio "srpt_file$i" "/tmp/srpt_file$i.img" "${size:-64}") || return
			sos+=("$so")
		done
		;;
	*) echo "srpt_setup: unknown backstore $bs" >&2; return 1 ;;
	esac
	# shellcheck disable=SC2034 # results for the caller
	SRPT_TPGS=()
	SRPT_WWN="" SRPT_TPG=""
	for p in /sys/class/infiniband/"$RDMA_DEV"/ports/*; do
		p=$(basename "$p")
		wwn=$(port_wwn "$RDMA_DEV" "$p" "$form") || return
		tpg=$(srpt_add_target "$wwn" "${tpgname:-$wwn}") || return
		for so in "${sos[@]}"; do
			srpt_add_lun "$tpg" "$so" >/dev/null || return
		done
		for a in "${acls[@]}"; do
			srpt_add_acl "$tpg" "$a" >/dev/null || return
		done
		((enable)) && { srpt_enable "$tpg" 1 || return; }
		SRPT_TPGS+=("$tpg")
		if [[ -z $SRPT_TPG ]]; then
			# shellcheck disable=SC2034
			SRPT_WWN=$wwn SRPT_TPG=$tpg
		fi
	done
	[[ -n $SRPT_TPG ]] || { echo "srpt_setup: $RDMA_DEV has no ports" >&2; return 1; }
	if [[ $port != 0 ]]; then
		srpt_set_rdma_cm_port "$port" || return
	fi
	log "target: $SRPT_TPG, ${#sos[@]} $bs LUN(s), ACLs ${acls[*]}, RDMA/CM port $port"
}

# srpt_teardown_configfs: remove every ib_srpt target port, TPG, LUN and ACL
# (disabling TPGs first) and stop the RDMA/CM listener.
srpt_teardown_configfs() {
	local wwn tpg d l rc=0
	[[ -d $SRPT_CFS ]] || return 0
	for wwn in "$SRPT_CFS"/*/; do
		wwn=${wwn%/}
		[[ $(basename "$wwn") == discovery_auth ]] && continue
		for tpg in "$wwn"/*/; do
			tpg=${tpg%/}
			case $(basename "$tpg") in fabric_statistics|param) continue ;; esac
			[[ -f $tpg/enable ]] && echo 0 >"$tpg/enable" 2>/dev/null
			for d in "$tpg"/acls/*/; do
				d=${d%/}
				[[ -d $d ]] || continue
				for l in "$d"/lun_*; do
					[[ -d $l ]] || continue
					find "$l" -maxdepth 1 -type l -delete
					rmdir "$l" || rc=1
				done
				rmdir "$d" || rc=1
			done
			for l in "$tpg"/lun/lun_*; do
				[[ -d $l ]] || continue
				find "$l" -maxdepth 1 -type l -delete
				rmdir "$l" || rc=1
			done
			for d in "$tpg"/np/*/; do
				[[ -d $d ]] && { rmdir "${d%/}" || rc=1; }
			done
			rmdir "$tpg" || rc=1
		done
		rmdir "$wwn" || rc=1
	done
	[[ -f $SRPT_CFS/discovery_auth/rdma_cm_port ]] &&
		echo 0 >"$SRPT_CFS/discovery_auth/rdma_cm_port" 2>/dev/null
	return "$rc"
}

# core_teardown: remove every LIO backstore (with its own ALUA target port
# groups) and HBA that is not in use.
core_teardown() {
	local hba so gp rc=0
	[[ -d $CFS/core ]] || return 0
	for hba in "$CFS"/core/*_[0-9]*/; do
		hba=${hba%/}
		[[ -d $hba ]] || continue
		for so in "$hba"/*/; do
			so=${so%/}
			[[ -d $so ]] || continue
			# ALUA target port groups of its own (the HA tests'
			# resource agent makes one)
			for gp in "$so"/alua/*/; do
				gp=${gp%/}
				[[ -d $gp && ${gp##*/} != default_tg_pt_gp ]] || continue
				rmdir "$gp" || rc=1
			done
			rmdir "$so" || rc=1
		done
		rmdir "$hba" || rc=1
	done
	return "$rc"
}

#
# Initiator: the stock ib_srp
#

# srp_hosts: print the SCSI hosts (hostN) of ib_srp.
srp_hosts() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[[ -e $h ]] || continue
		[[ $(cat "$h/proc_name" 2>/dev/null) == ib_srp ]] && basename "$h"
	done
	return 0
}

# srp_disks [HOST...]: print the disks (/dev/sdX) of the given ib_srp SCSI
# hosts (default: all), ordered by host and LUN.
srp_disks() {
	local h d b
	local -a hosts=("$@")
	((${#hosts[@]})) || mapfile -t hosts < <(srp_hosts)
	for h in "${hosts[@]}"; do
		for d in /sys/class/scsi_host/"$h"/device/target*/[0-9]*:*; do
			[[ -d $d/block ]] || continue
			for b in "$d"/block/*; do
				echo "$(basename "$d") /dev/$(basename "$b")"
			done
		done
	done | sort -t: -k1,1n -k4,4n | cut -d' ' -f2
}

# srp_host_of DISK: print the SCSI host (hostN) of a disk.
srp_host_of() {
	local dev=${1#/dev/} p
	p=$(readlink -f "/sys/class/block/$dev/device") || return
	[[ $p =~ /(host[0-9]+)/ ]] || { echo "no SCSI host for $1" >&2; return 1; }
	echo "${BASH_REMATCH[1]}"
}

# srp_load [PARAM=VALUE...]: load ib_srp (no-op if loaded) and sd_mod (the
# guest runs no udev to load it on demand).
srp_load() {
	modprobe sd_mod || return
	[[ -d /sys/module/ib_srp ]] && return 0
	modprobe ib_srp "$@"
}

# srp_login [-6] [-d DEV] [-P HCAPORT] [-n NLUNS] [-T SECONDS] [KEY=VALUE...]
# Log in with ib_srp over RDMA/CM and print the new disks (/dev/sdX, one per
# LUN, LUN order) once NLUNS (default 1) of them exist.
# The login string defaults to
#   id_ext=G,ioc_guid=G,initiator_ext=$SRP_INITIATOR_EXT,dest=$IPV4:5555,src=$IPV4
# with G = srpt_guid (-6: dest=[$IPV6]:5555,src=[$IPV6]; the target then sees
# the full IPv6 address as initiator name); KEY=VALUE arguments replace
# these or are appended
# (ch_count=, cmd_sg_entries=, queue_size=, max_it_iu_size=, dest=[ipv6]:port,
# ...); KEY= alone drops a default. DEV/HCAPORT select the initiator's RDMA
# port (default $RDMA_DEV port 1). Fails when the login is rejected or the
# disks do not appear within SECONDS (default 60).
srp_login() {
	local dev=$RDMA_DEV hport=1 nluns=1 limit=60 opt kv k guid out host
	local dest=$IPV4:$SRP_LOGIN_PORT src=$IPV4
	local OPTIND=1
	while getopts 6d:P:n:T: opt; do
		case $opt in
		6) dest="[$IPV6]:$SRP_LOGIN_PORT" src="[$IPV6]" ;;
		d) dev=$OPTARG ;;
		P) hport=$OPTARG ;;
		n) nluns=$OPTARG ;;
		T) limit=$OPTARG ;;
		*) echo "srp_login: bad option" >&2; return 1 ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ -n $dev ]] || { echo "srp_login: no RDMA device" >&2; return 1; }
	srp_load || return
	# (the target's service GUID; in another guest the caller passes
	# id_ext= and ioc_guid=)
	if [[ -d /sys/module/ib_srpt ]]; then
		guid=$(srpt_guid) || return
	else
		guid=0x0
	fi
	guid=${guid#0x}
	local -a keys=(id_ext ioc_guid initiator_ext dest src)
	local -A val=([id_ext]=$guid [ioc_guid]=$guid
		[initiator_ext]=$SRP_INITIATOR_EXT
		[dest]=$dest [src]=$src)
	for kv in "$@"; do
		k=${kv%%=*}
		[[ -v val[$k] ]] || keys+=("$k")
		val[$k]=${kv#*=}
	done
	local s=
	for k in "${keys[@]}"; do
		[[ -n ${val[$k]} ]] && s+="${s:+,}$k=${val[$k]}"
	done
	local add=/sys/class/infiniband_srp/srp-$dev-$hport/add_target
	wait_for 10 test -e "$add" || { echo "$add missing" >&2; return 1; }
	local -a before after
	mapfile -t before < <(srp_hosts)
	log "srp login: $s"
	if ! sysfs_write "$add" "$s"; then
		dmesg | tail -n 5 >&2
		return 1
	fi
	local end=$((SECONDS + limit))
	while :; do
		mapfile -t after < <(srp_hosts)
		host=
		for k in "${after[@]}"; do
			[[ " ${before[*]} " == *" $k "* ]] || { host=$k; break; }
		done
		if [[ -n $host ]]; then
			mapfile -t out < <(srp_disks "$host")
			if ((${#out[@]} >= nluns)); then
				local d ok=1
				for d in "${out[@]}"; do [[ -b $d ]] || ok=0; done
				((ok)) && break
			fi
		fi
		if ((SECONDS >= end)); then
			echo "srp_login: ${host:-no new SCSI host}: ${#out[@]} of $nluns disk(s) after ${limit}s" >&2
			return 1
		fi
		sleep 0.2
	done
	log "logged in: $host ${out[*]}"
	printf '%s\n' "${out[@]}"
}

# srp_logout DISK|HOST [SECONDS]: log out the ib_srp session that owns DISK
# (/dev/sdX) or SCSI host HOST (hostN) and wait until the host is gone
# (default 60 s).
srp_logout() {
	local host=$1 limit=${2:-60} p
	[[ $host == host* ]] || host=$(srp_host_of "$1") || return
	local n=${host#host}
	for p in /sys/class/srp_remote_ports/port-"$n":*; do
		[[ -e $p/delete ]] && sysfs_write "$p/delete" 1
	done
	wait_for "$limit" test ! -e "/sys/class/scsi_host/$host" ||
		{ echo "srp_logout: $host still exists after ${limit}s" >&2; return 1; }
}

# srp_logout_all [SECONDS]: log out every ib_srp session and wait until all
# ib_srp SCSI hosts are gone (default 60 s).
srp_logout_all() {
	local limit=${1:-60} p
	for p in /sys/class/srp_remote_ports/*; do
		[[ -e $p/delete ]] && echo 1 >"$p/delete" 2>/dev/null
	done
	# The condition must be evaluated at every poll, not once here.
	# shellcheck disable=SC2317
	_srp_no_hosts() { [[ -z $(srp_hosts) ]]; }
	wait_for "$limit" _srp_no_hosts ||
		{ echo "srp_logout_all: still there: $(srp_hosts)" >&2; return 1; }
}

#
# I/O
#

# dd_verify DEV SIZE_MIB [BS]: write SIZE_MIB of random data to DEV with
# O_DIRECT (block size BS, default 1M), read it back with O_DIRECT and
# compare.
dd_verify() {
	local dev=$1 mib=$2 bs=${3:-1M} src dst count
	src=$(mktemp /tmp/dd_verify.XXXXXX)
	dst=$(mktemp /tmp/dd_verify.XXXXXX)
	count=$((mib * 1048576))
	head -c "$count" /dev/urandom >"$src"
	if ! dd if="$src" of="$dev" bs="$bs" oflag=direct conv=fsync status=none ||
	   ! dd if="$dev" of="$dst" bs="$bs" count="$count" \
		iflag=direct,count_bytes status=none ||
	   ! cmp "$src" "$dst"; then
		echo "dd_verify: $mib MiB on $dev did not read back the same" >&2
		rm -f "$src" "$dst"
		return 1
	fi
	rm -f "$src" "$dst"
	log "dd_verify: $mib MiB on $dev OK"
}

# fio_verify DEV [SIZE] [FIO_ARG...]: random writes with crc32c verification
# on DEV (default size 16M, 4 jobs, queue depth 16, libaio, direct).
fio_verify() {
	local dev=$1 size=${2:-16M}
	shift $(($# >= 2 ? 2 : 1))
	fio --name=verify --filename="$dev" --size="$size" --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=16 --numjobs=1 --direct=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --output-format=terse \
		--minimal "$@" >/dev/null
}

#
# targetcli
#

# dbus_start: start a D-Bus system bus (targetcli needs one) unless running.
dbus_start() {
	[[ -S /run/dbus/system_bus_socket ]] && return 0
	mkdir -p /run/dbus
	dbus-daemon --system --fork
	wait_for 10 test -S /run/dbus/system_bus_socket
}

# targetcli_run CMD...: run targetcli commands in one targetcli process
# (each start costs seconds under emulation), without saving the
# configuration. Example: targetcli_run "/srpt create ib.$hex" "ls /srpt"
targetcli_run() {
	need_cmd targetcli
	dbus_start || return
	printf '%s\n' "set global auto_save_on_exit=false" "$@" "exit" | targetcli
}

#
# Teardown
#

# teardown_all: undo everything these helpers may have set up: log out all
# ib_srp sessions, unload ib_srp, remove the ib_srpt configfs tree and the
# LIO backstores, unload ib_srpt (within $UNLOAD_TIMEOUT s), remove
# device-mapper devices named srpt_*, remove null_blk's configfs devices,
# take the DRBD resources of $DRBD_TEST_CONF down and unload drbd, unload
# brd and null_blk, and delete the soft RDMA devices. The runner calls it after every test.
# Returns non-zero if something could not be undone.
teardown_all() {
	local rc=0 f
	# a test that stopped with fault injection armed (63-fault-inject)
	for f in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
		[[ -f $f/probability ]] || continue
		echo 0 >"$f/probability" || rc=1
		echo 0 >"$f/times" || rc=1
	done
	# and with failslab's cache filter on (64-fault-step)
	if [[ -f /sys/kernel/debug/failslab/cache-filter ]]; then
		echo N >/sys/kernel/debug/failslab/cache-filter || rc=1
	fi
	srp_logout_all 60 || rc=1
	[[ -d /sys/module/ib_srp ]] && { run_timeout 30 rmmod ib_srp || rc=1; }
	srpt_teardown_configfs || rc=1
	core_teardown || rc=1
	srpt_unload || rc=1
	local m
	# device-mapper devices named srpt_* (tests stack them on brd)
	for m in /sys/block/dm-*/dm/name; do
		[[ -f $m && $(<"$m") == srpt_* ]] || continue
		dmsetup remove --noudevsync "$(<"$m")" || rc=1
	done
	# null_blk devices made through its configfs (nullb_slow_setup)
	for m in /sys/kernel/config/nullb/*/; do
		[[ -d $m ]] || continue
		rmdir "$m" || rc=1
	done
	# DRBD (the HA pair's tests) holds its lower RAM disk
	if [[ -d /sys/module/drbd ]]; then
		# (unless Pacemaker's DRBD agent took it down already)
		if [[ -f $DRBD_TEST_CONF ]] && grep -q '^ *[0-9]*: cs:[^U]' /proc/drbd; then
			drbdadm down all || rc=1
		fi
		rmmod drbd || rc=1
	fi
	for m in brd null_blk; do
		[[ -d /sys/module/$m ]] && { rmmod "$m" || rc=1; }
	done
	soft_rdma_teardown || rc=1
	return "$rc"
}
