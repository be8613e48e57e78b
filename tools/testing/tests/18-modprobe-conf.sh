#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The modprobe.d example. targetcli's saveconfig does
# not keep the RDMA/CM listener port, so Documentation/modprobe.d/ib_srpt.conf
# (which ib-srpt-dkms installs as /usr/share/doc/ib-srpt-dkms/examples/
# ib_srpt.conf) sets rdma_cm_port at every load of the module:
#
#   as-shipped   copied to /etc/modprobe.d unchanged (all commented out),
#                it changes nothing: no listener after modprobe ib_srpt
#   enabled      after the sed command the example itself gives, a plain
#                "modprobe ib_srpt" starts the listener on port 5555
#                (configfs and the module parameter show it) and an ib_srp
#                login through it works, with no configfs write of the port
#
# The package's copy is used when the package is installed on the host
# (the guest's root is the host's), else the repository's; check.sh's dkms
# stage checks that both are the same.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

CONF=/etc/modprobe.d/ib_srpt.conf
EXAMPLE=/usr/share/doc/ib-srpt-dkms/examples/ib_srpt.conf
# vm.sh copies the repository's example into the run directory (/ib_srpt).
[[ -f $EXAMPLE ]] || EXAMPLE=/ib_srpt/Documentation/modprobe.d/ib_srpt.conf
[[ -f $EXAMPLE ]] || die "no modprobe.d example in the package or the run directory"
[[ ! -e $CONF ]] || die "$CONF exists already"
# The guest's /etc is a tmpfs overlay; later tests must not see the file.
trap 'rm -f "$CONF"' EXIT
log "example: $EXAMPLE"

listener_port() {
	cat "$SRPT_CFS/discovery_auth/rdma_cm_port"
}

case_as_shipped() {
	local port
	cp "$EXAMPLE" "$CONF"
	srpt_load
	port=$(listener_port)
	[[ $port == 0 ]] || { echo "listener on $port with everything commented out" >&2; return 1; }
	srpt_unload
}

case_enabled() {
	local cmd disk
	# The example's own instruction, e.g. sed -i 's/^#options/options/' /etc/...
	cmd=$(sed -n 's/^#[[:space:]]*\(sed -i .*\/etc\/modprobe\.d\/ib_srpt\.conf\)$/\1/p' "$EXAMPLE")
	[[ -n $cmd ]] || { echo "$EXAMPLE has no sed command for $CONF" >&2; return 1; }
	cp "$EXAMPLE" "$CONF"
	log "running: $cmd"
	eval "$cmd"
	grep -q '^options ib_srpt rdma_cm_port=5555$' "$CONF" ||
		{ echo "$CONF after the sed command:" >&2; cat "$CONF" >&2; return 1; }
	srpt_load
	[[ $(listener_port) == 5555 ]] || { echo "configfs rdma_cm_port is $(listener_port)" >&2; return 1; }
	[[ $(cat /sys/module/ib_srpt/parameters/rdma_cm_port) == 5555 ]]
	srpt_setup -b brd -s 16 -a "$IPV4" -p 0
	disk=$(srp_login)
	dd_verify "$disk" 1
	srp_logout "$disk"
}

soft_rdma_setup
if sub_case as-shipped case_as_shipped; then
	rm -f "$CONF"
	sub_case enabled case_enabled || true
fi
sub_exit
