#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IB/CM logins end to end (two guests): srp-hostile -T ibcm in the
# initiator guest sends the SRP login as a CM REQ through libibumad (the
# kernel's ib_cm is unloaded here, so this process owns the CM class; the
# target's ib_srpt listens with the kernel's ib_cm), builds its own RC QP
# from the REP, and runs tools/srp-hostile/cases-ibcm.txt over link 1:
#
#   ibcm-login-io              REQ/REP/RTU, then WRITE+READ with data compare
#                              (512 B, 32 KiB, 1 MiB), one ib_cm channel on
#                              the target
#   ibcm-dreq-from-initiator   our DREQ gets a DREP, the target frees the channel
#   ibcm-dreq-from-target      enable=0 on the target: its DREQ reaches us
#   ibcm-single-replaces       a second SINGLE login: the first channel gets a
#                              DREQ, one channel left
#   ibcm-single-after-crash    an initiator gone silent is replaced
#   ibcm-multi-maintained      two MULTI channels
#   ibcm-no-rtu                no RTU: the REP is resent, then the target
#                              frees the channel
#   ibcm-no-rtu-iu-held        the same with an IU sent before the RTU
#   ibcm-acl-none              a GID without ACL: REJ (consumer defined) with
#                              SRP_LOGIN_REJ "channel limit reached"
#   ibcm-acl-port-id[-other]   the GID-form port's port-ID ACL, matched and not
#   ibcm-bad-service-id        REJ "invalid service ID" from the target's CM
#
# then the login-* cases of the hostile suite (cases.txt) over IB/CM
# (SRPT_TEST_IBCM_LOGIN_CASES, default login-*; those that need the target's
# configfs locally skip themselves), and records whether srp_daemon can
# discover the target here.
#
# Environment: SRPT_TEST_IBCM_CASES=glob,glob   only these cases of cases-ibcm.txt
#              SRPT_TEST_IBCM_ARGS=-v,...        more srp-hostile options

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-fabric.sh
. "$(dirname "$0")/../lib-fabric.sh"

[[ $(fabric_role) == initiator ]] || skip "runs in the initiator guest of the fabric"
TESTING=$(cd "$(dirname "$0")/.." && pwd)
HOSTILE_DIR=$(cd "$TESTING/../srp-hostile" && pwd)
INIT_ID=0000000000000001000000000000abcd
GIDACL_ID=0000000000000002000000000000abcd
TIP=$(fabric_ip 1 target)
IIP=$(fabric_ip 1 initiator)
NOACL_IP=10.212.1.99

# The host-built srp-hostile when it matches these sources (vm.sh builds
# it), else a build here.
build=$(mktemp -d /tmp/srp-hostile.XXXXXX)
sum=$(cd "$HOSTILE_DIR" && cat conn.c build.c run.c hostile.h run.h srp_wire.h srp_cm.c srp_cm.h ibcm.c ibcm.h ibcm_conn.c | sha256sum | cut -d' ' -f1)
if [[ -x $HOSTILE_DIR/srp-hostile && $(cat "$HOSTILE_DIR/srp-hostile.srcsum" 2>/dev/null) == "$sum" ]]; then
	cp "$HOSTILE_DIR/srp-hostile" "$build/"
else
	need_cmd gcc make
	cp "$HOSTILE_DIR"/*.c "$HOSTILE_DIR"/*.h "$HOSTILE_DIR"/Makefile "$build"/
	make -s -C "$build" CFLAGS="-O1 -g" >&2 || die "building srp-hostile failed"
fi
"$build/srp-hostile" -X >&2 || die "srp-hostile's IB/CM message self-test failed"

fabric_on target -t 180 fabric_target_setup 128 >&2 || die "target setup failed"
# This guest: soft-RoCE, ib_umad, and no ib_cm (it would own the CM class).
fabric_rdma_setup || die "soft-RoCE setup failed"
for m in ib_srp ib_iser rpcrdma rdma_ucm rdma_cm iw_cm ib_cm; do
	[[ -d /sys/module/$m ]] || continue
	modprobe -r "$m" || die "cannot unload $m (the CM class must be free)"
done
[[ ! -d /sys/module/ib_cm ]] || die "ib_cm is still loaded"
modprobe ib_umad || die "cannot load ib_umad"
nic=$(fabric_nic 1)
ip addr add "$NOACL_IP/24" dev "$nic"
# rxe adds the GID of a new address by itself
gid_of_ip() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	grep -qx "$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")" \
		/sys/class/infiniband/"$(fabric_rdma 1)"/ports/1/gids/* 2>/dev/null
}
wait_for 10 gid_of_ip "$NOACL_IP" || die "no GID for $NOACL_IP on $(fabric_rdma 1)"

# The target: the fabric's ports, plus what the cases need.
tside() {
	fabric_on target eval ". $TESTING/lib-ibcm.sh; $(printf '%q ' "$@")"
}
read -r TTPG TACL GIDACL < <(tside ibcm_target_prepare "$IIP" "$GIDACL_ID") ||
	die "target preparation failed"
[[ -n $GIDACL ]] || die "target preparation printed nothing"
guid=$(fabric_on target srpt_guid)
maxreq=$(fabric_on target cat /sys/module/ib_srpt/parameters/srp_max_req_size)
log "target $TIP, service GUID $guid, TPG $TTPG, ACL $TACL, GID-form ACL $GIDACL"

# TSH: a command for srp-hostile's "sh" steps that runs in the target guest
cat >"$build/tsh" <<EOF
#!/bin/bash
. "$TESTING/lib.sh"
. "$TESTING/lib-fabric.sh"
fabric_on target -t 90 eval ". $TESTING/lib-ibcm.sh; \$(printf '%q ' "\$@")"
EOF
chmod +x "$build/tsh"
export TSH=$build/tsh TTPG TACL GIDACL GIDACL_ID NOACL_SRC=$NOACL_IP
# as 60-hostile.sh on soft-RoCE
export NO_RECV_OUTCOME=none MANY_CONNS=1
[[ $(uname -r) == *-ibsrpt-debug ]] || export NOT_DEBUG_KERNEL=1

args=(-T ibcm -d "$TIP" -s "$IIP" -g "$guid" -i "0x$INIT_ID" -m "$maxreq"
	-t 5000 -o "${SUBRESULTS:-/dev/null}")
IFS=, read -r -a extra <<<"${SRPT_TEST_IBCM_ARGS:-}"
args+=("${extra[@]}")
IFS=, read -r -a sel <<<"${SRPT_TEST_IBCM_CASES:-}"
rc=0
"$build/srp-hostile" "${args[@]}" "$HOSTILE_DIR/cases-ibcm.txt" "${sel[@]}" || rc=$?

# The hostile suite's login cases over IB/CM. Left out: those written for
# the RDMA/CM layout of the login request (login-pdata-*: private data cut
# short, which IB/CM pads to 92 bytes; login-reserved-set: bytes 50-55,
# here inside the target port ID), login-rej-log-ratelimited (it counts
# lines of the target's kernel log in this guest's), and those that change
# the target's configfs from this guest (login-port-disabled*: $TPG,
# login-acl-delete-storm and login-peer-channel-limit: an address with an
# ACL of its own, $CAP_SRC), which would only skip; ibcm-dreq-from-target
# and the ACL cases of cases-ibcm.txt cover that ground over IB/CM.
if [[ -n ${SRPT_TEST_IBCM_LOGIN_CASES:-} ]]; then
	IFS=, read -r -a lsel <<<"$SRPT_TEST_IBCM_LOGIN_CASES"
else
	mapfile -t lsel < <("$build/srp-hostile" -l "$HOSTILE_DIR/cases.txt" |
		awk '$1 ~ /^login-/ { print $1 }' |
		grep -vx -e 'login-pdata-.*' -e login-reserved-set -e login-rej-log-ratelimited \
			-e 'login-port-disabled.*' -e login-acl-delete-storm -e login-peer-channel-limit)
fi
"$build/srp-hostile" "${args[@]}" "$HOSTILE_DIR/cases.txt" "${lsel[@]}" || rc=$?

# srp_daemon: it asks the subnet administrator for the ports that support
# device management, then sends DM MADs to their LIDs. RoCE has neither an
# SA nor LIDs (the port's SM LID and LID are 0) and srp_daemon addresses its
# MADs without a GRH, so it cannot find the target here; the output is kept
# as evidence. tools/dm-query (40-dm-mad) stands in for it.
if command -v srp_daemon >/dev/null; then
	sd_out=$(run_timeout 20 srp_daemon -o -v -c -i "$(fabric_rdma 1)" -p 1 2>&1) || true
	log "srp_daemon -o -c on $(fabric_rdma 1), the end of its output: $(grep -v '^ *[A-Z].*:' <<<"$sd_out" | tail -n 12 | tr -s '\n\t ' ' ')"
	log "port: $(ibv_devinfo -d "$(fabric_rdma 1)" 2>/dev/null | grep -E 'sm_lid|port_lid|link_layer' | tr -s ' \t\n' ' ')"
fi

ip addr del "$NOACL_IP/24" dev "$nic" || true
rm -rf "$build"
exit "$rc"
