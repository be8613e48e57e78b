#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module parameters: ib_srpt loads and unloads with each
# parameter at its default, at valid non-default values (read back from
# /sys/module/ib_srpt/parameters) and refuses to load with invalid ones,
# saying why in the kernel log. rdma_cm_port is tested only when modinfo
# lists it. Every parameter has a modinfo description.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

P=/sys/module/ib_srpt/parameters
HAVE_PORT=0
if srpt_has_param rdma_cm_port; then
	HAVE_PORT=1
fi

# load_read "PARAM=VALUE..." CASE:PARAM:EXPECTED...: load ib_srpt once with
# the given parameters (a space-separated list, may be empty), record PASS
# for each CASE whose PARAM reads back as EXPECTED (FAIL otherwise), run the
# sub-case in $CHECK_LOADED ("NAME FUNCTION") if set, unload.
load_read() {
	local s c name want got
	local -a params
	read -r -a params <<<"$1"
	shift
	if ! srpt_load "${params[@]}"; then
		for s in "$@"; do sub_result FAIL "${s%%:*}" "the load failed"; done
		return
	fi
	for s in "$@"; do
		IFS=: read -r c name want <<<"$s"
		got=$(cat "$P/$name" 2>/dev/null) || got="(missing)"
		if [[ $got == "$want" ]]; then
			sub_result PASS "$c" "$name reads $got"
		else
			sub_result FAIL "$c" "$name reads '$got', expected '$want'"
		fi
	done
	if [[ -n ${CHECK_LOADED:-} ]]; then
		sub_case "${CHECK_LOADED%% *}" "${CHECK_LOADED#* }" || true
	fi
	srpt_unload || sub_result FAIL "unload" "rmmod failed after loading with '${params[*]}'"
}

# load_refused PARAM=VALUE: the load must fail, leave no ib_srpt behind and
# log a message naming the parameter.
load_refused() {
	local mark name=${1%%=*}
	mark=$(kmsg_mark)
	if modprobe ib_srpt "$1" 2>/dev/null; then
		echo "modprobe ib_srpt $1 succeeded" >&2
		srpt_unload
		return 1
	fi
	[[ ! -d /sys/module/ib_srpt ]] || { echo "ib_srpt is loaded after a refused load" >&2; return 1; }
	kmsg_since "$mark" | grep -F "$name" >&2 ||
		{ echo "no kernel message names $name" >&2; return 1; }
}

# While loaded with the defaults: modinfo describes every parameter, and
# there is no RDMA/CM listener unless asked for.
check_defaults() {
	local out p missing=0
	out=$(modinfo -F parm ib_srpt)
	printf '%s\n' "$out" >&2
	for p in srp_max_req_size srpt_srq_size srpt_service_guid "$P"/*; do
		p=$(basename "$p")
		grep -Eq "^$p:.*[[:alnum:]]" <<<"$out" || { echo "no description for $p" >&2; missing=1; }
	done
	[[ -z $(cp_listen_ports) ]] || { echo "listening on $(cp_listen_ports) by default" >&2; missing=1; }
	((missing == 0))
}

# rdma_cm_port=5556 at load time starts a listener on that port.
check_port() {
	cp_wait_listen 5556
	log "listening on $(cp_listen_ports | tr '\n' ' '); configfs rdma_cm_port: $(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")"
}

soft_rdma_setup
target_prepare
srpt_unload >/dev/null 2>&1 || true

# Defaults; the default service GUID (0) means the node GUID of the first
# HCA and reads back as that.
ng=$(cat "/sys/class/infiniband/$RDMA_DEV/node_guid")
cases=(srp_max_req_size-default:srp_max_req_size:8276 srpt_srq_size-default:srpt_srq_size:4095
	"srpt_service_guid-default:srpt_service_guid:0x${ng//:/}")
((HAVE_PORT)) && cases+=(rdma_cm_port-default:rdma_cm_port:0)
CHECK_LOADED="descriptions check_defaults" load_read "" "${cases[@]}"

# Valid non-default values, all in one load.
vparams="srp_max_req_size=8260 srpt_srq_size=1024 srpt_service_guid=0x0002c90300a0b0c1"
cases=(srp_max_req_size-valid:srp_max_req_size:8260 srpt_srq_size-valid:srpt_srq_size:1024
	srpt_service_guid-valid:srpt_service_guid:0x0002c90300a0b0c1)
check=
if ((HAVE_PORT)); then
	vparams+=" rdma_cm_port=5556"
	cases+=(rdma_cm_port-valid:rdma_cm_port:5556)
	check="rdma_cm_port-listens check_port"
fi
CHECK_LOADED=$check load_read "$vparams" "${cases[@]}"

# Limits: the smallest request size, the SRQ size limits (65535 is above
# rxe's max_srq_wr: clamped, not refused), a GUID without 0x.
load_read "srp_max_req_size=996 srpt_srq_size=4 srpt_service_guid=2c90300a0b0c2" \
	srp_max_req_size-min:srp_max_req_size:996 srpt_srq_size-min:srpt_srq_size:4 \
	srpt_service_guid-no-0x:srpt_service_guid:0x0002c90300a0b0c2
load_read "srpt_srq_size=65535" srpt_srq_size-max:srpt_srq_size:65535

# Invalid values: the load is refused.
sub_case srp_max_req_size-invalid load_refused srp_max_req_size=995 || true
sub_case srpt_srq_size-too-small load_refused srpt_srq_size=3 || true
sub_case srpt_srq_size-too-large load_refused srpt_srq_size=65536 || true
sub_case srpt_service_guid-invalid load_refused srpt_service_guid=xyz || true
sub_case srpt_service_guid-overflow load_refused srpt_service_guid=0x10000000000000000 || true
if ((HAVE_PORT)); then
	sub_case rdma_cm_port-too-large load_refused rdma_cm_port=65536 || true
	sub_case rdma_cm_port-invalid load_refused rdma_cm_port=abc || true
else
	sub_result SKIP rdma_cm_port "modinfo lists no rdma_cm_port parameter"
fi
sub_exit
