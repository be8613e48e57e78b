#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity under the initiator's descriptor and channel modes. One
# iblock LUN (memory-backed null_blk); four phases, each with
# ib_srp loaded again with its module parameters, the TPG's use_srq set, a
# login and one fio job of mixed block sizes (512 B .. 1 MiB, random,
# O_DIRECT, queue depth 16, crc32c verify):
#
#   phase               ib_srp params      use_srq  login
#   sg1-ring-imm-ch1    (defaults: FR)     0        cmd_sg_entries=1 ch_count=1
#   sg255-srq-imm-ch4   never_register=1   1        cmd_sg_entries=255 ch_count=4
#   sg255-ring-noimm-ch4 never_register=1  0        cmd_sg_entries=255 ch_count=4
#                       use_imm_data=0
#   sg1-srq-noimm-ch1   use_imm_data=0     1        cmd_sg_entries=1 ch_count=1
#
# With memory registration (the default on rxe) every request of up to
# 1 MiB fits one MR, i.e. one direct descriptor, which is all that
# cmd_sg_entries=1 allows. never_register=1 makes ib_srp send one descriptor
# per scatterlist element, so with sg_tablesize=255 a 1 MiB request carries
# an indirect table of up to 255 descriptors inside the IU. Writes of up to
# 8 KiB go as immediate data when it is on.
#
# Checks per phase: the initiator's channel count; its "using immediate
# data" lines: present with immediate data on and a ring, absent with it
# off; with SRQ and immediate data on only for our module (the stock module
# turns immediate data off with SRQ; that check is a SKIP for it); with our
# module also the target's "login accepted" lines (one per channel, SRQ or
# ring, immediate data on or off).
#
# With SRPT=stock the SRQ phases are SKIPs: the 6.12 module hits a WARNING
# in srpt_cache_put() (it puts the NULL receive-buffer cache of an SRQ
# channel) when such a channel is released. SRPT_TEST_DP_STOCK_SRQ=1 runs
# them anyway.

set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tools/testing/lib-dp.sh
. "$(dirname "$0")/../lib-dp.sh"

need_cmd fio jq

# name | ib_srp module parameters | use_srq | login options | immediate data
PHASES=(
	"sg1-ring-imm-ch1||0|cmd_sg_entries=1 sg_tablesize=256 max_sect=2048 ch_count=1|1"
	"sg255-srq-imm-ch4|never_register=1|1|cmd_sg_entries=255 sg_tablesize=255 max_sect=2048 ch_count=4|1"
	"sg255-ring-noimm-ch4|never_register=1 use_imm_data=0|0|cmd_sg_entries=255 sg_tablesize=255 max_sect=2048 ch_count=4|0"
	"sg1-srq-noimm-ch1|use_imm_data=0|1|cmd_sg_entries=1 sg_tablesize=256 max_sect=2048 ch_count=1|0"
)
FIO_JOB=(--rw=randwrite --bssplit=512/15:4k/25:8k/25:64k/25:1m/10 --iodepth=16
	--direct=1 --size=6M)

ours=0
[[ $SRPT == stock ]] || ours=1	# srpt_load checks that it is

dp_target
t_all=$SECONDS
off=0
for p in "${PHASES[@]}"; do
	IFS='|' read -r name mod srq opts imm <<<"$p"
	t0=$SECONDS
	if ((srq && !ours)) && [[ -z ${SRPT_TEST_DP_STOCK_SRQ:-} ]]; then
		# 6.12's ib_srpt calls srpt_cache_put(NULL) when it releases an
		# SRQ channel: WARNING in srpt_cache_put, which fails the run.
		sub_result SKIP "$name" "stock ib_srpt WARNs in srpt_cache_put() releasing SRQ channels"
		continue
	fi
	read -r -a modv <<<"$mod"
	read -r -a optv <<<"$opts"
	if ! dp_srp_reload "${modv[@]}"; then
		sub_result FAIL "$name" "loading ib_srp $mod failed"
		continue
	fi
	if ! srpt_attrib "$SRPT_TPG" use_srq "$srq" ||
	   [[ $(srpt_attrib "$SRPT_TPG" use_srq) != "$srq" ]]; then
		sub_result FAIL "$name" "cannot set use_srq=$srq"
		continue
	fi
	kmsg_mark "$name"
	if ! dp_login "${optv[@]}"; then
		sub_result FAIL "$name" "login failed"
		continue
	fi
	want_ch=1
	[[ $opts == *ch_count=4* ]] && want_ch=4
	disk=${DP_DISKS[0]}
	kmsg=$(kmsg_since "$name")
	nimm=$(grep -c 'using immediate data' <<<"$kmsg" || true)
	nch=$(dp_host_attr ch_count)
	log "$name: $nch channel(s), $nimm with immediate data"

	# channels
	if [[ $nch == "$want_ch" ]]; then
		sub_result PASS "$name-channels" "$nch"
	else
		sub_result FAIL "$name-channels" "ch_count $nch, want $want_ch"
	fi

	# immediate data as the initiator sees it
	if ((imm == 0)); then
		if ((nimm == 0)); then
			sub_result PASS "$name-imm-data-off"
		else
			sub_result FAIL "$name-imm-data-off" "$nimm channel(s) use immediate data"
		fi
	elif ((srq == 1 && !ours)); then
		sub_result SKIP "$name-imm-data-on" \
			"stock ib_srpt offers no immediate data with SRQ ($nimm of $nch channels use it)"
	elif ((nimm == nch)); then
		sub_result PASS "$name-imm-data-on" "$nimm of $nch channels"
	else
		sub_result FAIL "$name-imm-data-on" "$nimm of $nch channels use immediate data"
	fi

	# the target's view (our module logs every accepted login)
	if ((ours)); then
		mode=ring
		((srq)) && mode=SRQ
		onoff=off
		((imm)) && onoff=on
		nacc=$(grep -c "login accepted, [0-9]* credits, $mode, immediate data $onoff" <<<"$kmsg" || true)
		if ((nacc == want_ch)); then
			sub_result PASS "$name-target-login" "$nacc x $mode, immediate data $onoff"
		else
			sub_result FAIL "$name-target-login" \
				"$nacc logins with '$mode, immediate data $onoff', want $want_ch: $(grep 'login accepted' <<<"$kmsg" | tr '\n' ' ')"
		fi
	fi

	# the data; each phase writes its own region
	sub_case "$name" dp_fio "$name" "$disk" "${FIO_JOB[@]}" "--offset=${off}m" || true
	off=$((off + 8))
	if kmsg_has "$name" 'Could not fit S/G list'; then
		sub_result FAIL "$name-sg-fit" "ib_srp could not fit a S/G list into SRP_CMD"
	fi
	srp_logout "$disk" || die "logout failed"
	log "$name: $((SECONDS - t0))s"
done
log "all phases: $((SECONDS - t_all))s"

dp_summary
sub_exit
