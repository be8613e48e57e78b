#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ha-fence-peer.sh - DRBD's fence-peer handler in the HA pair's guests
# (lib-fabric.sh fabric_ha_drbd_conf; DRBD runs it through drbdadm when a
# Primary lost its peer, its I/O frozen meanwhile). STONITH by the
# hypervisor: the host cuts the peer's power (fabric_kill), then the
# handler exits 7 ("peer was stonithed"), after which DRBD lets the I/O go
# on with the peer's disk outdated. A peer that is dead already (killed by
# the test) counts as stonithed. When both nodes fence each other, the
# node whose ALUA group is not Active/Optimized waits 15 s first, so that
# the node serving the initiator survives. Anything else exits 1: DRBD
# keeps the I/O frozen. Its output goes to /ib_srpt/out/<node>/fence-peer.log.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
. /ib_srpt/tools/testing/lib.sh
. /ib_srpt/tools/testing/lib-fabric.sh

me=$(fabric_role)
peer=nodeA
[[ $me != nodeA ]] || peer=nodeB
exec >>"$FABRIC_SHARE/out/$me/fence-peer.log" 2>&1
echo "$(date +%T) $me: fence-peer for ${DRBD_RESOURCE:-?} (peer $peer)"
gp=$CFS/core/iblock_0/ha_lu0/alua/ha_gp
if [[ $(cat "$gp/alua_access_state" 2>/dev/null) != 0 ]]; then
	echo "$(date +%T) not Active/Optimized: waiting 15 s"
	sleep 15
fi
if fabric_dead "$peer"; then
	echo "$(date +%T) $peer is dead already"
	exit 7
fi
if fabric_kill "$peer"; then
	echo "$(date +%T) $peer killed"
	exit 7
fi
echo "$(date +%T) could not kill $peer"
exit 1
