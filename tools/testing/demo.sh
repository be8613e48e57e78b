#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - "make demo": build ib_srpt, boot the QEMU guest and show it
# serving a RAM-disk LUN over soft-RoCE to the stock ib_srp initiator in the
# same guest (guest/demo.sh does the work). SRPT=stock shows the kernel's
# own ib_srpt instead.

set -euo pipefail

# shellcheck source=tools/testing/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$REPO"
install_deps >&2
if [[ ${SRPT:-ours} != stock ]]; then
	log "building ib_srpt.ko"
	make -s modules
fi
exec tools/testing/vm.sh exec tools/testing/guest/demo.sh
