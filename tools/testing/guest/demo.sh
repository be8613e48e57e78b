#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of "make demo": soft-RoCE, ib_srpt serving a brd LUN,
# login with ib_srp, the disk, some I/O, logout. Narrates each step.

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

step() {
	printf '\n\033[1m==> %s\033[0m\n' "$*"
}

show() {
	printf '$ %s\n' "$*"
	"$@"
}

failed() {
	printf '\n\033[1;31mdemo stopped: "%s" failed (status %s).\033[0m\n' "$BASH_COMMAND" "$1"
	echo "Kernel messages:"
	dmesg | grep -v 'speed is unknown' | tail -n 15
	teardown_all >/dev/null 2>&1 || true
}
trap 'failed $?' ERR

step "A soft-RoCE RDMA device on a dummy network interface"
soft_rdma_setup
show rdma link show

step "Load ib_srpt (SRPT=$SRPT) and the LIO target core"
srpt_load srp_max_req_size=8260
show modinfo -F description ib_srpt
echo "service GUID: $(srpt_guid)"
srpt_is_ours && echo "loaded module: ours ($SRPT_KO)" || echo "loaded module: the kernel's own ib_srpt"

step "Configure a target: a 256 MiB RAM disk as LUN 0, an ACL for $IPV4, RDMA/CM on port 5555"
srpt_setup -b brd -s 256 -a "$IPV4"
echo "target port (WWN): $SRPT_WWN"
show ls "$SRPT_TPG/lun" "$SRPT_TPG/acls"
echo "enable: $(cat "$SRPT_TPG/enable"), rdma_cm_port: $(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")"

step "Log in with the stock ib_srp initiator over RDMA/CM"
disk=$(srp_login)
show lsblk -o NAME,SIZE,VENDOR,MODEL,TRAN "$disk"
show sg_inq "$disk"
for p in /sys/class/srp_remote_ports/*; do
	echo "$(basename "$p"): port_id $(cat "$p/port_id"), state $(cat "$p/state")"
done

step "Write 32 MiB of random data with O_DIRECT, read it back, compare"
dd_verify "$disk" 32

step "10 seconds of 4 KiB random reads and writes with fio"
echo "$ fio --name=demo --filename=$disk --rw=randrw --bs=4k --iodepth=16 --ioengine=libaio --direct=1 --runtime=10 --time_based --size=64M"
fio --name=demo --filename="$disk" --rw=randrw --bs=4k --iodepth=16 \
	--ioengine=libaio --direct=1 --runtime=10 --time_based --size=64M \
	--group_reporting | grep -E '^ *(read|write):|err=|(READ|WRITE):'

step "Log out and clean up"
srp_logout "$disk"
teardown_all
echo "done."
