#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# targetcli: the unchanged Debian targetcli-fb drives
# ib_srpt: /srpt create ib.<32 hex of the port GID>, a block backstore as
# LUN, an ACL ib.<initiator port ID>, a TPG attribute (ours: two, the
# second comp_v_mask, a hex string naming only a completion vector the
# adapter does not use, as saved on a machine with more CPUs: it must be
# saved and restored all the same), saveconfig to a file, clearconfig,
# restoreconfig - all in one targetcli run (each start costs seconds under
# emulation); the restore writes back every attribute as it was saved.
# Then configfs must show the restored target (enabled by targetcli) and,
# with rdma_cm_port written through configfs (targetcli cannot set it), an
# ib_srp login works and data verifies.

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-cp.sh
. "$(dirname "$0")/../lib-cp.sh"

need_cmd targetcli
soft_rdma_setup
srpt_load srp_max_req_size=8260
brd_setup 16

gidhex=$(port_wwn "$RDMA_DEV" 1 gid)
gidhex=${gidhex#0x}
init=$(cp_init_id)
T=/srpt/ib.$gidhex
# srpt has one TPG per target: targetcli shows luns/ and acls/ right
# under the target; in configfs it is tpgt_1.
TPG=$SRPT_CFS/0x$gidhex/tpgt_1
ACL=$TPG/acls/0x$init
SAVE=$(test_out_dir)/targetcli-saved.json
EMPTY=$(test_out_dir)/targetcli-after-clear.json
OUT=$(test_out_dir)/targetcli.out
# comp_v_mask: only the first completion vector not in use (the last one
# that comp_v_mask can name if the adapter uses all 1024).
CVM=$(usable_vectors "$RDMA_DEV")
CVM=$(comp_mask_bit $((CVM < 1024 ? CVM : 1023)))

case_targetcli_session() {
	local rc=0
	local -a ours=()
	cp_is_stock || ours=("$T set attribute comp_v_mask=$CVM")
	targetcli_run \
		"/backstores/block create name=cp_ram dev=/dev/ram0" \
		"/srpt create ib.$gidhex" \
		"$T/luns create /backstores/block/cp_ram" \
		"$T/acls create ib.$init" \
		"$T set attribute srp_sq_size=2048" \
		"${ours[@]}" \
		"ls /srpt" \
		"saveconfig savefile=$SAVE" \
		"clearconfig confirm=True" \
		"saveconfig savefile=$EMPTY" \
		"restoreconfig savefile=$SAVE" \
		"ls /srpt" >"$OUT" 2>&1 || rc=$?
	cat "$OUT" >&2
	((rc == 0)) || { echo "targetcli exited with status $rc" >&2; return 1; }
	! grep -Ei 'error|not valid|could not|failed|no such|unknown' "$OUT" | grep -v 'preferences file' >&2 ||
		{ echo "targetcli reported errors" >&2; return 1; }
}

# check_files: one Python run (slow to start under emulation) checks both
# saved files; prints "saveconfig|clearconfig PASS|FAIL detail" lines.
check_files() {
	python3 - "$SAVE" "$EMPTY" "$gidhex" "$init" "$SRPT" "$CVM" <<'EOF' 2>&1
import json, sys

def saved(path, gid, init, srpt, cvm):
    cfg = json.load(open(path))
    t = [t for t in cfg["targets"] if t["fabric"] == "srpt"]
    assert len(t) == 1, f"srpt targets saved: {t}"
    t = t[0]
    assert t["wwn"] == "ib." + gid, t["wwn"]
    tpg = t["tpgs"][0]
    assert tpg["tag"] == 1 and tpg["enable"], tpg
    acls = [a["node_wwn"] for a in tpg["node_acls"]]
    assert acls == ["ib." + init], acls
    attrs = tpg["attributes"]
    for a in ("srp_max_rdma_size", "srp_max_rsp_size", "srp_sq_size", "use_srq"):
        assert a in attrs, f"{a} not saved: {attrs}"
    assert attrs["srp_sq_size"] == 2048, attrs
    if srpt != "stock":
        assert attrs.get("comp_v_mask") == cvm, attrs
    assert len(tpg["luns"]) == 1, tpg["luns"]
    return f"{t['wwn']} ACLs {acls} attributes {attrs}"

def cleared(path):
    cfg = json.load(open(path))
    assert not cfg.get("targets") and not cfg.get("storage_objects"), cfg
    return str(cfg)

for name, fn, path, args in (("saveconfig", saved, sys.argv[1], sys.argv[3:]),
                             ("clearconfig", cleared, sys.argv[2], [])):
    try:
        print(name, "PASS", fn(path, *args))
    except Exception as e:
        print(name, "FAIL", repr(e))
EOF
}

case_restored() {
	[[ -d $TPG ]] || { echo "$TPG missing" >&2; return 1; }
	[[ $(cat "$TPG/enable") == 1 ]] || { echo "TPG not enabled" >&2; return 1; }
	[[ -d $TPG/lun/lun_0 ]] || { echo "no LUN 0" >&2; return 1; }
	[[ -d $ACL/lun_0 ]] || { echo "$ACL has no mapped LUN 0" >&2; return 1; }
	[[ $(cat "$TPG/attrib/srp_sq_size") == 2048 ]] ||
		{ echo "srp_sq_size is $(cat "$TPG/attrib/srp_sq_size") after restoreconfig" >&2; return 1; }
	cp_is_stock || [[ $(cat "$TPG/attrib/comp_v_mask") == "$CVM" ]] ||
		{ echo "comp_v_mask is $(cat "$TPG/attrib/comp_v_mask") after restoreconfig" >&2; return 1; }
	log "restored: $(ls "$SRPT_CFS" | tr '\n' ' '); ACLs: $(ls "$TPG/acls" | tr '\n' ' ')"
}

case_login() {
	local disk
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
	disk=$(srp_login)
	dd_verify "$disk" 4
	srp_logout "$disk"
}

if sub_case targetcli-session case_targetcli_session; then
	files=$(check_files) || true
	for c in saveconfig clearconfig; do
		line=$(grep "^$c " <<<"$files") || line="$c FAIL no verdict: $files"
		read -r _ verdict detail <<<"$line"
		sub_result "$verdict" "$c" "$detail"
	done
	sub_case restoreconfig case_restored || true
	sub_case login-after-restore case_login || true
fi
sub_exit
