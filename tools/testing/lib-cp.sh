# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib-cp.sh - helpers for the ib_srpt control-plane guest tests (10-29).
#
# Source it after lib.sh:
#
#	. "$(dirname "$0")/../lib.sh"
#	. "$(dirname "$0")/../lib-cp.sh"
#
# Conventions are lib.sh's: functions return non-zero on failure with the
# reason on stderr; "print" means stdout, one item per line.

CP_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/cp
# Where srp-login is built in the guest; vm.sh builds it on the host into
# $CP_SRC/bin first (cp_tool uses that one when it is up to date).
CP_BIN=${CP_BIN:-/tmp/cp-bin}
# The initiator_ext srp_login uses unless told otherwise.
CP_INIT_EXT=${SRP_INITIATOR_EXT:-5250000000000001}

# SRP_LOGIN_REJ reasons (SRP-2 table 12).
# shellcheck disable=SC2034 # for the tests
CP_REJ_INSUFFICIENT=0x00010001 CP_REJ_CHANNEL_LIMIT=0x00010006

# cp_is_stock: true when the stock ib_srpt is under test.
cp_is_stock() {
	[[ $SRPT == stock ]]
}

# cp_better NAME WHAT: for a sub-case that tests one of our documented
# "better" behaviours: with SRPT=stock record SKIP for NAME (WHAT says
# which behaviour) and return 0, else return 1. Use as
#	cp_better name "what" || sub_case name fn
cp_better() {
	cp_is_stock || return 1
	sub_result SKIP "$1" "stock ib_srpt: not expected to $2"
	return 0
}

# cp_ifid [DEV] [PORT]: print the interface ID of GID index 0 of an RDMA
# port (default $RDMA_DEV port 1) as 16 lowercase hex digits.
cp_ifid() {
	local g
	g=$(rdma_port_gid "${1:-$RDMA_DEV}" "${2:-1}") || return
	g=${g//:/}
	echo "${g:16:16}"
}

# cp_init_id [EXT]: print the 128-bit initiator port ID ib_srp sends over
# RDMA/CM from $RDMA_DEV port 1: initiator_ext (default $CP_INIT_EXT) and
# the interface ID of GID 0, 32 hex digits without 0x.
cp_init_id() {
	local ext=${1:-$CP_INIT_EXT} ifid
	ifid=$(cp_ifid) || return
	printf '%016x%s\n' "$((16#$ext))" "$ifid"
}

# cp_ipv6_full ADDR: like lib.sh's ipv6_full (the address written out in
# full, the form of an RDMA/CM session name), without starting Python.
cp_ipv6_full() {
	local a=${1,,} head tail i n out=""
	local -a h=() t=() all=()
	if [[ $a == *::* ]]; then
		head=${a%%::*} tail=${a#*::}
	else
		head=$a tail=""
	fi
	[[ -n $head ]] && IFS=: read -r -a h <<<"$head"
	[[ -n $tail ]] && IFS=: read -r -a t <<<"$tail"
	n=$((8 - ${#h[@]} - ${#t[@]}))
	all=("${h[@]}")
	for ((i = 0; i < n; i++)); do all+=(0); done
	all+=("${t[@]}")
	((${#all[@]} == 8)) || { echo "bad IPv6 address $1" >&2; return 1; }
	for i in "${all[@]}"; do printf -v i '%04x:' "$((16#$i))"; out+=$i; done
	echo "${out%:}"
}

# cp_cm_ids: print the RDMA/CM IDs of the whole system (rdma res show
# cm_id), one per line.
cp_cm_ids() {
	rdma res show cm_id 2>/dev/null
}

# cp_channels [ib_srpt|ib_srp]: print the number of connected RDMA/CM IDs
# of the target (default) or of the initiator. Each live SRP channel over
# RDMA/CM has one on either side.
cp_channels() {
	local who=${1:-ib_srpt} n
	n=$(cp_cm_ids | grep -F "comm [$who]" | grep -c ' state CONNECT ') || true
	echo "${n:-0}"
}

# cp_wait_channels N [SECONDS] [WHO]: wait until cp_channels WHO is N
# (default limit 15 s).
cp_wait_channels() {
	local want=$1 limit=${2:-15} who=${3:-ib_srpt}
	# shellcheck disable=SC2317
	_cp_ch_is() { [[ $(cp_channels "$who") == "$want" ]]; }
	wait_for "$limit" _cp_ch_is ||
		{ echo "$who: $(cp_channels "$who") connected channel(s), expected $want" >&2; return 1; }
}

# cp_listen_ports: print the ports ib_srpt's RDMA/CM listeners are bound to.
cp_listen_ports() {
	cp_cm_ids | grep -F 'comm [ib_srpt]' | grep ' state LISTEN ' |
		sed -n 's/.* src-addr \([^ ]*\).*/\1/p' | sed 's/.*://' | sort -un
}

# cp_wait_listen PORT [SECONDS]: wait until ib_srpt listens on PORT (0: on
# no port at all).
cp_wait_listen() {
	local port=$1 limit=${2:-5}
	# shellcheck disable=SC2317
	_cp_listens() {
		if [[ $port == 0 ]]; then
			[[ -z $(cp_listen_ports) ]]
		else
			cp_listen_ports | grep -qx "$port"
		fi
	}
	wait_for "$limit" _cp_listens ||
		{ echo "ib_srpt listens on '$(cp_listen_ports | tr '\n' ' ')', expected $port" >&2; return 1; }
}

# cp_res_summary [DEV]: print the RDMA resource counts of a device (pd, cq,
# qp, cm_id, mr) as "pd N cq N qp N cm_id N mr N".
cp_res_summary() {
	rdma res show 2>/dev/null | grep -F " ${1:-$RDMA_DEV}: " |
		grep -o -E '(pd|cq|qp|cm_id|mr) [0-9]+' | tr '\n' ' ' | sed 's/ $//'
}

# cp_released_before_removed MARK DEV [N]: wait (10 s) until the kernel log
# since MARK (kmsg_mark) has ib_srpt's "removed DEV" line and as many "channel released"
# lines as "closing channel" lines (at least N, default 1); then check that
# every "channel released" line comes before "removed DEV" (a device must
# not be freed while a channel that uses it is still being released) and
# that the log has no kernel warning, BUG or memory-debugging report.
cp_released_before_removed() {
	local mark=$1 dev=$2 want=${3:-1} klog rm_at late bad
	# shellcheck disable=SC2317
	_cp_settled() {
		klog=$(kmsg_since "$mark")
		local closing released
		closing=$(grep -c 'ib_srpt: .*: closing channel: ' <<<"$klog") || true
		released=$(grep -c 'ib_srpt: .*: channel released$' <<<"$klog") || true
		grep -q "ib_srpt: removed $dev\$" <<<"$klog" &&
			((released >= closing && released >= want))
	}
	if ! wait_for 10 _cp_settled; then
		echo "no \"removed $dev\" or fewer than $want channel(s) released since the mark:" >&2
		grep -E 'ib_srpt' <<<"$klog" >&2
		return 1
	fi
	rm_at=$(grep -n "ib_srpt: removed $dev\$" <<<"$klog" | head -n 1 | cut -d: -f1)
	late=$(tail -n +"$rm_at" <<<"$klog" | grep 'ib_srpt: .*: channel released$' || true)
	bad=$(grep -E 'WARNING:|BUG[: ]|KFENCE:|Redzone overwritten|Poison overwritten|general protection|Oops' <<<"$klog" || true)
	if [[ -n $late || -n $bad ]]; then
		echo "released after \"removed $dev\": ${late:-none}; splat: ${bad:-none}" >&2
		grep -E 'ib_srpt|WARNING|BUG' <<<"$klog" >&2
		return 1
	fi
}

CP_ERRF=$(mktemp /tmp/cp-err.XXXXXX)

# cp_mkdir_err DIR: try mkdir DIR; set CP_ERR to "ok" or the error text
# (e.g. "Invalid argument"). No subshell: forks are slow under emulation.
cp_mkdir_err() {
	if mkdir "$1" 2>"$CP_ERRF"; then
		CP_ERR=ok
	else
		read -r CP_ERR <"$CP_ERRF" || true
		CP_ERR=${CP_ERR##*: }
	fi
}

# cp_mkdir_refused WHAT DIR: mkdir DIR must fail with EINVAL (WHAT names it
# in the log); a directory that was made anyway is removed. Returns 1 if
# mkdir did not fail that way.
cp_mkdir_refused() {
	local rc=0
	cp_mkdir_err "$2"
	if [[ $CP_ERR == "Invalid argument" ]]; then
		log "$1 ${2##*/} refused: $CP_ERR"
	else
		echo "$1 ${2##*/}: $CP_ERR (expected Invalid argument)" >&2
		rc=1
	fi
	[[ -d $2 ]] && rmdir "$2"
	return "$rc"
}

# cp_write_err FILE VALUE: write VALUE to FILE; set CP_ERR to "ok" or the
# error text.
cp_write_err() {
	if { echo "$2" >"$1"; } 2>"$CP_ERRF"; then
		CP_ERR=ok
	else
		read -r CP_ERR <"$CP_ERRF" || true
		CP_ERR=${CP_ERR##*: }
	fi
}

# cp_read FILE: set CP_VAL to the first line of FILE (no fork).
# shellcheck disable=SC2034 # CP_VAL is for the caller
cp_read() {
	CP_VAL=
	read -r CP_VAL <"$1" || true
}

# cp_tool: build (once per boot) and print the path of srp-login, a
# user-space RDMA/CM SRP login (see cp/srp-login.c). Call cp_tool_init once
# in the test's main shell to skip the checksum on every later login.
cp_tool() {
	local bin=$CP_BIN/srp-login sum lib=$CP_SRC/../../srp-hostile
	[[ -n ${CP_TOOL:-} ]] && { echo "$CP_TOOL"; return 0; }
	sum=$(cat "$CP_SRC/srp-login.c" "$lib"/srp_cm.[ch] "$lib/srp_wire.h" | sha256sum | cut -c1-16)
	if [[ -x $CP_SRC/bin/srp-login && $(cat "$CP_SRC/bin/srp-login.sum" 2>/dev/null) == "$sum" ]]; then
		echo "$CP_SRC/bin/srp-login"
		return 0
	fi
	if [[ ! -x $bin || $(cat "$bin.sum" 2>/dev/null) != "$sum" ]]; then
		mkdir -p "$CP_BIN"
		gcc -O1 -Wall -Wextra -Werror -I"$lib" -o "$bin" "$CP_SRC/srp-login.c" "$lib/srp_cm.c" -lrdmacm -libverbs >&2 ||
			{ echo "building srp-login failed" >&2; return 1; }
		echo "$sum" >"$bin.sum"
	fi
	echo "$bin"
}

# cp_tool_init: build srp-login if needed and remember its path (CP_TOOL).
cp_tool_init() {
	CP_TOOL=$(cp_tool)
}

# cp_tool_login [-i INITID] [-s SRC] [-d DST] [-p PORT] [OPTION...]: run
# srp-login against this host's target (defaults: $IPV4 both ways, port
# $SRP_LOGIN_PORT, initiator port ID cp_init_id, the module's service GUID)
# and print its output. Returns its exit status (0 accepted, 1 rejected).
cp_tool_login() {
	local out rc=0
	out=$(mktemp)
	cp_tool_login_bg "$out" "$@" || { rm -f "$out"; return 2; }
	wait "$CP_TOOL_PID" || rc=$?
	cat "$out"
	rm -f "$out"
	return "$rc"
}

# cp_tool_login_bg FILE [cp_tool_login ARG...]: start srp-login in the
# background with its output in FILE; sets CP_TOOL_PID (the tool's own PID,
# so that "kill -TERM $CP_TOOL_PID" ends a -w wait with a clean logout).
cp_tool_login_bg() {
	local file=$1 tool init src=$IPV4 dst=$IPV4 port=$SRP_LOGIN_PORT
	local -a rest=()
	shift
	tool=$(cp_tool) || return 2
	init=$(cp_init_id) || return 2
	while (($#)); do
		case $1 in
		-i) init=$2; shift 2 ;;
		-s) src=$2; shift 2 ;;
		-d) dst=$2; shift 2 ;;
		-p) port=$2; shift 2 ;;
		*) rest+=("$1"); shift ;;
		esac
	done
	"$tool" -s "$src" -d "$dst" -p "$port" -g "$(srpt_guid)" -i "$init" "${rest[@]}" \
		</dev/null >"$file" 2>&1 &
	CP_TOOL_PID=$!
}

# cp_mc_result SRP_LOGIN_OUTPUT: print the MULTI-CHANNEL RESULT of a
# srp-login "LOGIN_RSP flags=..." line: none, terminated or maintained.
cp_mc_result() {
	local f
	[[ $1 =~ flags=0x([0-9a-f]+) ]] || { echo "not a login response: $1" >&2; return 1; }
	f=$((16#${BASH_REMATCH[1]} & 3))
	case $f in
	0) echo none ;;
	1) echo terminated ;;
	2) echo maintained ;;
	*) echo "bad($f)" ;;
	esac
}

# cp_expect_rej REASON [cp_tool_login ARG...]: log in with srp-login and
# fail unless the target answers with SRP_LOGIN_REJ REASON.
cp_expect_rej() {
	local want=$1 out
	shift
	out=$(cp_tool_login "$@") || true
	log "srp-login: $out"
	[[ $out == "LOGIN_REJ reason=$want" ]] ||
		{ echo "expected LOGIN_REJ reason=$want, got: $out" >&2; return 1; }
}

# cp_login_refused [srp_login ARG...]: an ib_srp login that must fail:
# fails if it succeeds, if an ib_srp SCSI host or disk shows up, or if a
# target channel stays connected.
cp_login_refused() {
	local -a before
	mapfile -t before < <(srp_disks)
	if srp_login -T 20 "$@" >/dev/null 2>&1; then
		echo "the login was accepted" >&2
		return 1
	fi
	[[ -z $(srp_hosts) ]] || { echo "ib_srp SCSI host(s) $(srp_hosts) exist" >&2; return 1; }
	[[ $(srp_disks | wc -l) == "${#before[@]}" ]] || { echo "new disks: $(srp_disks)" >&2; return 1; }
	cp_wait_channels 0 5
}

# cp_rport_of HOST: print the srp_remote_ports directory of an ib_srp SCSI
# host (hostN).
cp_rport_of() {
	local p
	for p in /sys/class/srp_remote_ports/port-"${1#host}":*; do
		[[ -d $p ]] && { echo "$p"; return 0; }
	done
	echo "no SRP remote port for $1" >&2
	return 1
}

# cp_slab_sample: print "NAME ACTIVE_OBJECTS" for the kmalloc and ib_srpt
# slab caches and "Slab KB" from /proc/meminfo, after flushing the per-CPU
# slabs of those caches so that the counts are exact.
cp_slab_sample() {
	local c
	for c in /sys/kernel/slab/kmalloc-* /sys/kernel/slab/srpt*; do
		[[ -w $c/shrink ]] && echo 1 >"$c/shrink" 2>/dev/null
	done
	awk 'NR > 2 && ($1 ~ /^kmalloc-/ || $1 ~ /^srpt/) { print $1, $2 }' /proc/slabinfo
	awk '$1 == "Slab:" { print "Slab", $2 }' /proc/meminfo
}

# cp_slab_growth A B [MIN]: print the caches whose count grew by at least
# MIN (default 1) from sample file A to sample file B, as "NAME +DELTA".
cp_slab_growth() {
	awk -v min="${3:-1}" 'NR == FNR { a[$1] = $2; next }
		{ d = $2 - a[$1]; if (d >= min) print $1, "+" d }' "$1" "$2"
}
