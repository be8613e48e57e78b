#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests, one link: ib_srp in the initiator guest logs in over RDMA/CM
# through link 1 to ib_srpt's target port on the target guest's soft-RoCE
# device of that link (the target exports one RAM disk through both of its
# ports); 8 MiB of random data written with O_DIRECT read back identical;
# the target counts one channel; after the logout it has none left, and the
# initiator's SCSI host is gone.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

STATE=$(mktemp -d)

case_login() {
	local disk
	disk=$(fabric_login 1)
	echo "$disk" >"$STATE/disk"
	log "disk $disk: $(blockdev --getsize64 "$disk") bytes"
	[[ $(blockdev --getsize64 "$disk") == $((128 * 1048576)) ]]
	fabric_wait_target_channels 1 10
}

case_data() {
	dd_verify "$(cat "$STATE/disk")" 8
}

case_logout() {
	local disk host
	disk=$(cat "$STATE/disk")
	host=$(srp_host_of "$disk")
	srp_logout "$disk" 30
	[[ ! -e /sys/class/scsi_host/$host ]]
	fabric_wait_target_channels 0 30
}

fabric_on target -t 180 fabric_target_setup 128 >&2 || die "target setup failed"
fabric_rdma_setup || die "soft-RoCE setup failed"
sub_case login-link1 case_login || die "login failed"
sub_case data-link1 case_data || true
sub_case logout-no-channels case_logout || true
sub_exit
