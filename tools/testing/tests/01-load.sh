#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib_srpt loads with a soft-RoCE device present, registers its configfs
# fabric and unloads cleanly.

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

soft_rdma_setup
srpt_load
[[ -d $SRPT_CFS ]] || die "$SRPT_CFS does not exist"
log "configfs fabric: $(ls -A "$SRPT_CFS" | tr '\n' ' ')"
[[ -r $SRPT_CFS/version ]] && log "version: $(cat "$SRPT_CFS/version")"
log "service GUID: $(srpt_guid)"
srpt_unload || die "ib_srpt did not unload"
[[ ! -d /sys/module/ib_srpt ]] || die "ib_srpt still loaded"
[[ ! -d $SRPT_CFS ]] || die "$SRPT_CFS still exists after unloading"
