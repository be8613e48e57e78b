#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh - the guest half of tools/bench/run.sh (run it through run.sh:
# "vm.sh exec tools/bench/guest.sh" with the SRPT_TEST_BENCH_* settings).
#
# One boot, one soft-RoCE device (rxe0), two backstores shared by every
# target: /dev/nullb0 (null_blk, memory_backed=0) and /dev/ram0 (brd). The
# LIO iblock backstores and the nvmet subsystem are set up once; between
# slots only ib_srpt is swapped:
#   A  our ib_srpt.ko (the run directory's copy, insmod)
#   B  the guest kernel's own ib_srpt.ko (insmod of its kernel/ path)
#   C  nvmet-rdma (nvme connect -t rdma, nr_io_queues = SRP's ch_count)
# Each slot runs every workload with fio for ch_count 1 and 2; A and B slots
# also measure memory per channel and the login/logout rate. Slots follow
# BENCH_ORDER (rounds separated by "."), e.g. ABC.BAC.ABC.
#
# Raw results go to /ib_srpt/out/bench/ (the host parses them with
# tools/bench/report.py): fio JSON plus /proc/stat and block-device stat
# snapshots taken by fio right before and after each job, meminfo/slabinfo
# snapshots, login timings, perf profiles. Everything is first written to
# /tmp: writing to the 9p share while measuring would stall the guest on
# host I/O (under icount that shows up as idle virtual time).
#
# Settings (environment, as SRPT_TEST_BENCH_<NAME> from run.sh):
#   ORDER=ABC.BAC.ABC  slots       WORKLOADS=lat4k,rr4k,rw4k,sr1m,sw1m
#   BACKSTORES=null,brd            CHANNELS=1,2
#   RUNTIME=10 RAMP=1  fio seconds JOBS=2  fio jobs for QD > 1 workloads
#   LOGINS=50          login/logout cycles per A/B slot (0: skip)
#   MEMCH=16           channels for the memory measurement (0: skip)
#   PROFILE=0          1: perf profile of B and A after the slots
#   PROFILE_SECS=10    seconds of perf record
#   BRD_MIB=256        brd size   NULL_GB=16  null_blk size
#   B=stock            what B is: stock, or ours (our module in both A and
#                      B slots, told apart by ARGS_A and ARGS_B)
#   ARGS_A= ARGS_B=    more insmod parameters of ib_srpt in A and B slots,
#                      comma-separated (srpt_srq_per_vector=1,srpt_srq_size=512)
#   USE_SRQ=0          1: the TPG's use_srq (shared receive queue) in A/B slots
# The soft RDMA driver is $SRPT_TEST_RDMA (rxe, or siw: run.sh BENCH_RDMA).

set -uo pipefail

# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../testing/lib.sh"

cfg() {
	local v="SRPT_TEST_BENCH_$1"
	echo "${!v:-$2}"
}

ORDER=$(cfg ORDER ABC.BAC.ABC)
[[ $ORDER == none ]] && ORDER=
IFS=, read -r -a WORKLOADS <<<"$(cfg WORKLOADS lat4k,rr4k,rw4k,sr1m,sw1m)"
IFS=, read -r -a BACKSTORES <<<"$(cfg BACKSTORES null,brd)"
IFS=, read -r -a CHANNELS <<<"$(cfg CHANNELS 1,2)"
RUNTIME=$(cfg RUNTIME 10)
RAMP=$(cfg RAMP 1)
JOBS=$(cfg JOBS 2)
LOGINS=$(cfg LOGINS 50)
MEMCH=$(cfg MEMCH 16)
PROFILE=$(cfg PROFILE 0)
PROFILE_SECS=$(cfg PROFILE_SECS 10)
BRD_MIB=$(cfg BRD_MIB 256)
NULL_GB=$(cfg NULL_GB 16)
B_IS=$(cfg B stock)
ARGS_A=$(cfg ARGS_A "")
ARGS_B=$(cfg ARGS_B "")
USE_SRQ=$(cfg USE_SRQ 0)

SHARE_OUT=/ib_srpt/out/bench
W=/tmp/bench
NQN=nqn.2024-01.org.ib-srpt:bench
NVMET=/sys/kernel/config/nvmet
STOCK_KO=/lib/modules/$(uname -r)/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko
# packet counters of the soft RDMA device (rxe has them, siw none); set
# once the device exists
RXE_CNT=/sys/class/infiniband/rxe0/ports/1/hw_counters
mkdir -p "$W" "$SHARE_OUT"

# say MSG: progress line with the guest's (virtual) uptime.
say() {
	printf '@@ bench [%6.0fs] %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$*"
}

warn() {
	say "WARNING: $*"
	echo "$*" >>"$W/warnings.txt"
}

# sync_out: copy the work directory to the share (between measurements).
sync_out() {
	cp -ru "$W"/. "$SHARE_OUT"/ 2>/dev/null || true
}
trap sync_out EXIT

# nap SECONDS: sleep without forking (a fork/exec of sleep costs ~50 ms of
# virtual time under icount).
mkfifo "$W/.nap"
exec 7<>"$W/.nap"
rm -f "$W/.nap"
nap() {
	read -r -t "$1" -u 7 _ || true
}

#
# One-time setup
#

nvmet_setup() {
	local s=$NVMET/subsystems/$NQN p=$NVMET/ports/1
	modprobe -a nvmet nvmet-rdma nvme-rdma || return
	mkdir "$s" || return
	echo 1 >"$s/attr_allow_any_host" || return
	mkdir "$s/namespaces/1" "$s/namespaces/2" || return
	echo /dev/nullb0 >"$s/namespaces/1/device_path" || return
	echo 1 >"$s/namespaces/1/enable" || return
	echo /dev/ram0 >"$s/namespaces/2/device_path" || return
	echo 1 >"$s/namespaces/2/enable" || return
	mkdir "$p" || return
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$IPV4" >"$p/addr_traddr"
	echo 4420 >"$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$NQN"
}

bench_setup() {
	soft_rdma_setup || return
	RXE_CNT=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
	modprobe null_blk nr_devices=1 gb="$NULL_GB" memory_backed=0 queue_mode=2 || return
	modprobe brd rd_nr=1 rd_size=$((BRD_MIB * 1024)) max_part=0 || return
	wait_for 10 test -b /dev/nullb0 || return
	wait_for 10 test -b /dev/ram0 || return
	# every brd page allocated, so reads copy data instead of zero-filling
	dd if=/dev/zero of=/dev/ram0 bs=1M count="$BRD_MIB" oflag=direct status=none || return
	target_prepare || return
	SO_NULL=$(backstore_iblock bench_null /dev/nullb0) || return
	SO_BRD=$(backstore_iblock bench_brd /dev/ram0) || return
	modprobe -a ib_cm rdma_cm || return
	srp_load || return
	if [[ $ORDER == *C* ]]; then
		nvmet_setup || return
	fi
	{
		echo "kernel $(uname -r)"
		echo "cpus $(nproc)"
		echo "cmdline $(cat /proc/cmdline)"
		echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
		echo "fio $(fio --version)"
		echo "config ORDER=$ORDER WORKLOADS=${WORKLOADS[*]} BACKSTORES=${BACKSTORES[*]}" \
			"CHANNELS=${CHANNELS[*]} RUNTIME=$RUNTIME RAMP=$RAMP JOBS=$JOBS LOGINS=$LOGINS" \
			"MEMCH=$MEMCH PROFILE=$PROFILE BRD_MIB=$BRD_MIB NULL_GB=$NULL_GB" \
			"B=$B_IS ARGS_A=$ARGS_A ARGS_B=$ARGS_B USE_SRQ=$USE_SRQ"
		echo "rdma $RDMA_DEV $(comp_vectors "$RDMA_DEV") completion vectors"
		echo "labels A=ours${ARGS_A:+($ARGS_A)} B=$B_IS${ARGS_B:+($ARGS_B)}"
		echo "ours $(modinfo -F srcversion "$SRPT_KO") $(build_id_of_ko "$SRPT_KO")"
		echo "stock $(modinfo -F srcversion "$STOCK_KO") $(build_id_of_ko "$STOCK_KO")"
	} >"$W/setup.txt"
}

#
# ib_srpt (A = ours, B = stock)
#

# srpt_start A|B: load that ib_srpt (with ARGS_A or ARGS_B), check which
# one is loaded (GNU build ID, as lib.sh does) and configure the target:
# LUN 0 null_blk, LUN 1 brd. Sets ACL.
srpt_start() {
	local which=$1 ko tpg args
	local -a extra=()
	if [[ $which == A ]]; then
		SRPT=ours args=$ARGS_A
	else
		SRPT=$B_IS args=$ARGS_B
	fi
	[[ -n $args ]] && IFS=, read -r -a extra <<<"$args"
	ko=$(srpt_ko_path)
	target_prepare || return
	insmod "$ko" srp_max_req_size=8260 "${extra[@]}" || return
	srpt_assert_module || return
	echo "$which $SRPT $(cat /sys/module/ib_srpt/srcversion 2>/dev/null || echo -) $(build_id_loaded ib_srpt)" \
		>>"$W/modules.txt"
	[[ -d $SRPT_CFS ]] || mkdir "$SRPT_CFS" || return
	tpg=$(srpt_add_target "$(port_wwn "$RDMA_DEV" 1)") || return
	srpt_add_lun "$tpg" "$SO_NULL" >/dev/null || return
	srpt_add_lun "$tpg" "$SO_BRD" >/dev/null || return
	ACL=$(srpt_add_acl "$tpg" "$IPV4") || return
	if ((USE_SRQ)); then
		srpt_attrib "$tpg" use_srq 1 || return
	fi
	srpt_enable "$tpg" || return
	srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
}

srpt_stop() {
	local rc=0
	srp_logout_all 60 || rc=1
	srpt_teardown_configfs || rc=1
	srpt_unload 60 || rc=1
	return "$rc"
}

# ch_vectors: print the completion vectors of the channels in the ACL's
# info file (ours only; "-" when it shows none), comma-separated.
ch_vectors() {
	local v
	v=$(sed -n 's/^   Completion vector: \([0-9][0-9]*\)$/\1/p' "$ACL/info" 2>/dev/null |
		paste -sd,)
	echo "${v:--}"
}

# srp_channels DISK: print the channel count of the disk's SRP host.
srp_channels() {
	cat "/sys/class/scsi_host/$(srp_host_of "$1")/ch_count" 2>/dev/null || echo "?"
}

#
# nvmet-rdma (C)
#

# nvme_connect QUEUES: connect and set DISKS to the null and brd namespaces.
nvme_connect() {
	local q=$1 b n i
	nvme connect -t rdma -a "$IPV4" -s 4420 -n "$NQN" -i "$q" >/dev/null || return
	DISKS=()
	for ((i = 0; i < 100; i++)); do
		for b in /sys/block/nvme*n*; do
			[[ -e $b/nsid && ! $b =~ c[0-9]+n ]] || continue
			read -r n <"$b/nsid"
			DISKS[n - 1]=/dev/${b##*/}
		done
		[[ -n ${DISKS[0]:-} && -n ${DISKS[1]:-} && -b ${DISKS[0]} && -b ${DISKS[1]} ]] && return 0
		nap 0.1
	done
	echo "nvme namespaces did not appear" >&2
	return 1
}

nvme_disconnect() {
	nvme disconnect -n "$NQN" >/dev/null
}

#
# fio
#

# run_fio TAG DEV WORKLOAD BACKSTORE: one fio job; results in $W/fio/TAG.*
# Every fio job process snapshots /proc/stat, the disk's stat and the rxe
# packet counters right before its I/O starts and after it ends (each into
# its own file, renamed into place, so that the jobs do not mix their
# snapshots); the last one wins.
run_fio() {
	local tag=$1 dev=$2 wl=$3 bs=$4 rw bsz qd jobs size f b rt rc=0
	case $wl in
	lat4k) rw=randread bsz=4k qd=1 ;;
	rr4k) rw=randread bsz=4k qd=32 ;;
	rw4k) rw=randwrite bsz=4k qd=32 ;;
	sr1m) rw=read bsz=1M qd=8 ;;
	sw1m) rw=write bsz=1M qd=8 ;;
	*) warn "unknown workload $wl"; return 1 ;;
	esac
	jobs=1
	((qd > 1)) && jobs=$JOBS
	# 1 MiB I/Os are ~100x slower: run longer to count enough of them
	rt=$RUNTIME
	[[ $bsz == 1M ]] && rt=$((RUNTIME * 2))
	[[ $bs == brd ]] && size=${BRD_MIB}M || size=4G
	b=${dev#/dev/}
	mkdir -p "$W/fio"
	cd "$W/fio" || return	# fio writes <job>.prerun.txt here
	f=$W/fio/$tag
	fio --name="$wl" --filename="$dev" --rw="$rw" --bs="$bsz" \
		--iodepth=$((qd / jobs)) --numjobs="$jobs" --group_reporting \
		--ioengine=libaio --direct=1 --time_based --runtime="$rt" \
		--ramp_time="$RAMP" --size="$size" --percentile_list=50:99 \
		--exec_prerun="sh -c '{ cat /proc/stat /sys/block/$b/stat; grep -sH . $RXE_CNT/*; true; } >$f.pre.\$\$ && mv $f.pre.\$\$ $f.pre'" \
		--exec_postrun="sh -c '{ cat /proc/stat /sys/block/$b/stat; grep -sH . $RXE_CNT/*; true; } >$f.post.\$\$ && mv $f.post.\$\$ $f.post'" \
		--output-format=json --output="$f.json" >/dev/null 2>"$f.err" || rc=$?
	rm -f "$wl".prerun.txt "$wl".postrun.txt
	if ((rc)); then
		warn "fio $tag failed: $(tail -n2 "$f.err")"
		return 1
	fi
	say "  $tag: $(summ_fio "$f.json" "$wl")"
}

# summ_fio JSON WORKLOAD: one-line summary for the console.
summ_fio() {
	python3 - "$1" "$2" <<'EOF' 2>/dev/null || echo "?"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
d = j["write"] if sys.argv[2] in ("rw4k", "sw1m") else j["read"]
p = d["clat_ns"].get("percentile", {})
print("%.0f IOPS %.1f MB/s p50 %.0f us p99 %.0f us" % (
    d["iops"], d["bw_bytes"] / 1e6, p.get("50.000000", 0) / 1e3, p.get("99.000000", 0) / 1e3))
EOF
}

# run_workloads SLOT CH: every workload on every backstore of $DISKS.
run_workloads() {
	local slot=$1 ch=$2 bs wl dev i=0
	for bs in null brd; do
		dev=${DISKS[i]}
		i=$((i + 1))
		[[ " ${BACKSTORES[*]} " == *" $bs "* ]] || continue
		for wl in "${WORKLOADS[@]}"; do
			run_fio "$slot-ch$ch-$bs-$wl" "$dev" "$wl" "$bs"
		done
	done
}

#
# Memory per channel and login rate (A and B)
#

# mem_snap FILE: /proc/meminfo and /proc/slabinfo after dropping caches.
mem_snap() {
	sync
	nap 2
	echo 3 >/proc/sys/vm/drop_caches
	nap 1
	{
		cat /proc/meminfo
		echo "--- slabinfo"
		cat /proc/slabinfo
		echo "--- vmallocinfo"
		cat /proc/vmallocinfo
	} >"$1"
}

# measure_memory SLOT: kernel memory with 1 and with MEMCH channels logged
# in; per channel = the difference / (MEMCH - 1), which leaves out the SCSI
# host and disks. A first login of MEMCH channels, not measured, lets shared
# pools (ib_core's CQ pool of the device) grow, so that the first target
# measured does not pay for them.
measure_memory() {
	local slot=$1 d n
	local -a disks
	mkdir -p "$W/mem"
	mapfile -t disks < <(srp_login -n 2 ch_count="$MEMCH" 2>>"$W/login.err")
	((${#disks[@]} < 2)) || srp_logout "${disks[0]}" || return
	mem_snap "$W/mem/$slot-0.txt"
	for n in 1 "$MEMCH"; do
		mapfile -t disks < <(srp_login -n 2 ch_count="$n" 2>>"$W/login.err")
		if ((${#disks[@]} < 2)); then
			warn "$slot: login with ch_count=$n failed"
			return 1
		fi
		d=$(srp_channels "${disks[0]}")
		[[ $d == "$n" ]] || warn "$slot: asked for $n channels, got $d"
		echo "channels $d" >"$W/mem/$slot-$n.ch"
		mem_snap "$W/mem/$slot-$n.txt"
		srp_logout "${disks[0]}" || return
	done
	say "  memory: $(python3 /ib_srpt/tools/bench/report.py --mem "$W/mem" "$slot" 2>/dev/null)"
}

# srp_host_count: set NHOSTS to the number of ib_srp SCSI hosts (builtins
# only, no subshell).
srp_host_count() {
	local h p
	NHOSTS=0
	for h in /sys/class/scsi_host/host*; do
		p=
		[[ -e $h ]] && read -r p 2>/dev/null <"$h/proc_name"
		[[ $p == ib_srp ]] && NHOSTS=$((NHOSTS + 1))
	done
	return 0
}

# login_rate SLOT N: N times log in (ch_count=1) until the disks of both
# LUNs are usable, and out until the SCSI host is gone; the virtual times of
# each cycle go to $W/login/SLOT.txt ("start disks-ready gone retries").
# A login right after a logout may find ib_srp still tearing the old target
# down ("Already connected"): it is retried, and that wait counts as part of
# the cycle. Only shell builtins inside the loop.
login_rate() {
	local slot=$1 n=$2 guid s add i t0 t1 t2 p k tries fd b h host
	local -a blocks
	guid=$(srpt_guid)
	guid=${guid#0x}
	s="id_ext=$guid,ioc_guid=$guid,initiator_ext=5250000000000001,dest=$IPV4:$SRP_LOGIN_PORT,src=$IPV4,ch_count=1"
	add=/sys/class/infiniband_srp/srp-$RDMA_DEV-1/add_target
	mkdir -p "$W/login"
	: >"$W/login/$slot.txt"
	for ((i = 0; i < n; i++)); do
		t0=$EPOCHREALTIME
		for ((tries = 0; ; tries++)); do
			echo "$s" >"$add" 2>/dev/null && break
			if ((tries >= 3000)); then
				warn "$slot: login $i failed"
				return 1
			fi
			nap 0.01
		done
		# the new SCSI host is the highest-numbered one
		host=-1
		for h in /sys/class/scsi_host/host*; do
			h=${h##*/host}
			[[ $h =~ ^[0-9]+$ ]] && ((h > host)) && host=$h
		done
		for ((k = 0; k < 6000; k++)); do
			blocks=(/sys/class/scsi_host/host"$host"/device/target*/*:*:*:*/block/*)
			[[ ${#blocks[@]} -ge 2 && -e ${blocks[1]} ]] && break
			nap 0.01
		done
		# opening a disk waits until its partition scan is over
		for b in "${blocks[@]}"; do
			exec {fd}<"/dev/${b##*/}" && exec {fd}<&-  # andand: ok a disk that does not open is not waited for
		done 2>/dev/null
		t1=$EPOCHREALTIME
		for p in /sys/class/srp_remote_ports/port-*; do
			[[ -e $p/delete ]] && echo 1 >"$p/delete"
		done
		for ((k = 0; k < 6000; k++)); do
			srp_host_count
			((NHOSTS == 0)) && break
			nap 0.01
		done
		t2=$EPOCHREALTIME
		echo "$t0 $t1 $t2 $tries" >>"$W/login/$slot.txt"
	done
	say "  login/logout: $n cycles in $(awk 'NR==1{a=$1} END{printf "%.1f", $3-a}' "$W/login/$slot.txt") s"
}

#
# Slots
#

run_slot() {
	local slot=$1 which=$2 ch ok=1
	local -A names=([A]="A, our ib_srpt${ARGS_A:+ $ARGS_A}" [B]="B, $B_IS ib_srpt${ARGS_B:+ $ARGS_B}"
		[C]="C, nvmet-rdma")
	say "slot $slot (${names[$which]})"
	case $which in
	A|B)
		if ! srpt_start "$which"; then
			warn "$slot: loading/configuring ib_srpt failed"
			srpt_stop
			return 1
		fi
		for ch in "${CHANNELS[@]}"; do
			mapfile -t DISKS < <(srp_login -n 2 ch_count="$ch" 2>>"$W/login.err")
			if ((${#DISKS[@]} < 2)); then
				warn "$slot: SRP login with ch_count=$ch failed"
				ok=0
				break
			fi
			echo "$slot ch$ch $(srp_channels "${DISKS[0]}") $(cat "/sys/block/${DISKS[0]#/dev/}/queue/max_sectors_kb")" \
				"vectors $(ch_vectors)" >>"$W/channels.txt"
			run_workloads "$slot" "$ch"
			sync_out
			srp_logout "${DISKS[0]}" || { ok=0; break; }
		done
		if ((ok)) && ((MEMCH > 0)); then
			measure_memory "$slot" || ok=0
		fi
		if ((ok)) && ((LOGINS > 0)); then
			login_rate "$slot" "$LOGINS" || ok=0
		fi
		srpt_stop || warn "$slot: teardown of ib_srpt failed"
		;;
	C)
		for ch in "${CHANNELS[@]}"; do
			if ! nvme_connect "$ch"; then
				warn "$slot: nvme connect -i $ch failed"
				nvme_disconnect
				ok=0
				break
			fi
			echo "$slot ch$ch $(($(cat /sys/class/nvme/nvme*/queue_count 2>/dev/null | head -n1) - 1)) $(cat "/sys/block/${DISKS[0]#/dev/}/queue/max_sectors_kb")" \
				>>"$W/channels.txt"
			run_workloads "$slot" "$ch"
			nvme_disconnect
		done
		;;
	esac
	sync_out
	((ok))
}

#
# Profile: perf record during 4 KiB random reads (QD32, 2 channels, null_blk)
#

# profile_one A|B: perf record -a while fio runs 4 KiB random reads (QD32,
# 2 channels, null_blk). perf takes many (virtual) minutes to start under
# emulation, so fio runs "forever" and the I/Os of the sampled window are
# counted by the command perf runs.
profile_one() {
	local which=$1 fpid f
	f=$W/perf/$which
	mkdir -p "$W/perf"
	srpt_start "$which" || { warn "profile $which: ib_srpt setup failed"; srpt_stop; return 1; }
	mapfile -t DISKS < <(srp_login -n 2 ch_count=2 2>>"$W/login.err")
	if ((${#DISKS[@]} < 2)); then
		warn "profile $which: login failed"
		srpt_stop
		return 1
	fi
	fio --name=prof --filename="${DISKS[0]}" --rw=randread --bs=4k --iodepth=$((32 / JOBS)) \
		--numjobs="$JOBS" --ioengine=libaio --direct=1 --time_based --runtime=1000000 \
		--size=4G --output=/dev/null >/dev/null 2>&1 &
	fpid=$!
	# shellcheck disable=SC2016 # expanded by the inner bash
	PROF_DEV=${DISKS[0]#/dev/} PROF_SECS=$PROFILE_SECS PROF_OUT=$f.meta \
		perf record -a -B -F 1000 -e cpu-clock -o "$f.data" -- bash -c '
		exec 7<> <(:)
		read -r -a s </sys/block/$PROF_DEV/stat
		until read -r -a t </sys/block/$PROF_DEV/stat; ((t[0] > s[0] + 100)); do
			read -r -t 0.2 -u 7 _
		done
		t0=$EPOCHREALTIME
		read -r -t "$PROF_SECS" -u 7 _
		read -r -a u </sys/block/$PROF_DEV/stat
		t1=$EPOCHREALTIME
		echo "ios $((u[0] - t[0])) secs $(awk "BEGIN{print $t1 - $t0}") hz 1000" >"$PROF_OUT"
	' >/dev/null 2>"$f.err"
	kill -INT "$fpid" 2>/dev/null
	wait "$fpid"
	# symbols are resolved on the host (perf report is slow here)
	cat /proc/kallsyms >"$f.kallsyms"
	say "  profile $which: $(cat "$f.meta" 2>/dev/null)"
	srpt_stop || warn "profile $which: teardown failed"
	sync_out
}

main() {
	local r grp slot which i
	local -a groups
	say "setup"
	# keep kernel messages off the emulated serial console (they stay in
	# dmesg): LIO's per-login MODE SENSE warnings would be timed otherwise
	echo 1 >/proc/sys/kernel/printk
	if ! bench_setup; then
		warn "setup failed"
		sync_out
		exit 1
	fi
	say "setup done: $RDMA_DEV $IPV4, null_blk ${NULL_GB}G, brd ${BRD_MIB}M; order $ORDER"
	r=0
	IFS=. read -r -a groups <<<"$ORDER"
	for grp in "${groups[@]}"; do
		r=$((r + 1))
		for ((i = 0; i < ${#grp}; i++)); do
			which=${grp:i:1}
			slot=r$r-$which
			# a second slot of the same target in one round (quick mode)
			if [[ -e $W/slots.txt ]] && grep -q "^$slot " "$W/slots.txt"; then
				slot=$slot$i
			fi
			echo "$slot $which $r" >>"$W/slots.txt"
			run_slot "$slot" "$which" || warn "slot $slot incomplete"
		done
	done
	if ((PROFILE)); then
		for which in B A; do
			profile_one "$which"
		done
	fi
	dmesg >"$W/dmesg.txt"
	grep -Ec 'WARNING:|BUG:|Oops|hung task|blocked for more' "$W/dmesg.txt" >"$W/dmesg-warnings.txt"
	say "done"
	sync_out
}

main "$@"
