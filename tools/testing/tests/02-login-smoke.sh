#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stock-compatible flow end to end: a brd LUN with an ACL for the
# initiator's IPv4 address, RDMA/CM login over IPv4 on port 5555 with the
# stock ib_srp, 16 MiB of random data written with O_DIRECT, read back and
# compared, logout and teardown.

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

soft_rdma_setup
srpt_load srp_max_req_size=8260
srpt_setup -b brd -s 64 -a "$IPV4"
disk=$(srp_login)
log "disk: $disk ($(blockdev --getsize64 "$disk") bytes)"
dd_verify "$disk" 16
srp_logout "$disk"
teardown_all || die "teardown failed"
