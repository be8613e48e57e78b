#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# T10 protection information between LIO and the medium. SRP carries no PI,
# so the initiator sees a disk without protection, and LIO inserts PI on
# every write (TARGET_PROT_DOUT_INSERT) and checks and strips it on every
# read (TARGET_PROT_DIN_STRIP). With a fileio backstore LIO keeps the PI in
# <backing file>.protection, 8 bytes per 512-byte block: guard tag
# (CRC-T10DIF of the block), application tag, reference tag (the LBA for
# type 1). One fileio LUN per PI type LIO emulates: LUN 0 type 1, LUN 1
# type 3.
#   type2-refused   pi_prot_type=2 fails with ENOSYS ("DIF TYPE2
#                   protection currently not supported"), the type stays 0
#   format-t1/-t3   pi_prot_type=T then pi_prot_format=1 before the LUN is
#                   exported: the type reads back, verification is on, the
#                   .protection file has one 8-byte tuple per block, all
#                   0xff (application tag 0xffff: not checked until written)
#   no-pi-on-wire   the initiator's disks report no protection: PROTECT=0
#                   in INQUIRY, prot_en=0 in READ CAPACITY(16)
#   rw-t1/-t3       16 MiB of random data written with O_DIRECT reads back
#                   equal
#   write-pi-t1/-t3 one block written at LBA 40000 is accepted, and its tuple
#                   in the .protection file changes from 0xff to guard =
#                   CRC-T10DIF of the data, application tag 0 and, for type
#                   1, reference tag 40000
#   corrupt-t1/-t3  one data block (LBA 100) overwritten in the backing
#                   file behind LIO's back: READ(10) of it through sg_raw
#                   ends in CHECK CONDITION, fixed sense, ABORTED COMMAND,
#                   ASC/ASCQ 0x10/0x01 LOGICAL BLOCK GUARD CHECK FAILED with
#                   the LBA in the INFORMATION field, no data; ib_srpt sent
#                   that as an SRP_RSP with LIO's 96-byte sense buffer and
#                   no data
#                   (errors +1, read_bytes +0 in the ACL's statistics); a
#                   dd O_DIRECT read of it fails with EILSEQ and sd logs the
#                   sense; the blocks beside it read back as written

# shellcheck disable=SC2317 # the case functions run through sub_case
set -euo pipefail
# shellcheck source=tools/testing/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd sg_raw sg_inq sg_readcap python3

STATE=$(mktemp -d)
TRACING=/sys/kernel/tracing
SIZE_MIB=64
# The LBAs the cases use (512-byte blocks): LBA_BAD inside dd_verify's
# 16 MiB, LBA_WRITE behind it (never written before write-pi).
LBA_BAD=100
LBA_WRITE=40000

# file_of T: the backing file of the LUN with PI type T.
file_of() {
	case $1 in
	1) echo /tmp/srpt_file0.img ;;
	3) echo /tmp/srpt_file1.img ;;
	esac
}

# so_of T: the configfs directory of the backstore with PI type T.
so_of() {
	case $1 in
	1) echo "$CFS/core/fileio_0/srpt_file0" ;;
	3) echo "$CFS/core/fileio_0/srpt_file1" ;;
	esac
}

# disk_of T: the initiator's disk of the LUN with PI type T.
disk_of() {
	case $1 in
	1) sed -n 1p "$STATE/disks" ;;
	3) sed -n 2p "$STATE/disks" ;;
	esac
}

# hex_at FILE OFFSET LEN: LEN bytes of FILE at OFFSET in hex, no spaces.
hex_at() {
	od -An -tx1 -v -j "$2" -N "$3" "$1" | tr -d ' \n'
}

# crc_t10dif FILE OFFSET: the CRC-T10DIF (polynomial 0x8bb7, no reflection,
# initial value 0) of the 512 bytes at OFFSET of FILE, 4 hex digits.
crc_t10dif() {
	python3 - "$1" "$2" <<'EOF'
import sys
with open(sys.argv[1], 'rb') as f:
    f.seek(int(sys.argv[2]))
    data = f.read(512)
crc = 0
for b in data:
    crc ^= b << 8
    for _ in range(8):
        crc = ((crc << 1) ^ 0x8bb7) if crc & 0x8000 else crc << 1
        crc &= 0xffff
print('%04x' % crc)
EOF
}

# stat_sum FIELD: FIELD summed over the channels of the IPv4 ACL's
# statistics file.
stat_sum() {
	awk -v f="$1" '$1 == "session" {
		for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1)
	} END { print s + 0 }' "$SRPT_TPG/acls/$IPV4/statistics"
}

# read10 LBA: the CDB of a READ(10) of one block at LBA, as sg_raw wants it.
read10() {
	printf '28 00 %02x %02x %02x %02x 00 00 01 00' \
		$(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255))
}

case_type2_refused() {
	local so err
	so=$(backstore_fileio srpt_file2 /tmp/srpt_file2.img 1)
	if err=$( { echo 2 >"$so/attrib/pi_prot_type"; } 2>&1); then
		echo "pi_prot_type=2 was accepted" >&2
		return 1
	fi
	log "pi_prot_type=2: ${err##*: }"
	[[ ${err##*: } == "Function not implemented" ]]
	[[ $(cat "$so/attrib/pi_prot_type") == 0 ]]
	kmsg_has pi 'DIF TYPE2 protection currently not supported'
	[[ ! -e /tmp/srpt_file2.img.protection ]]
}

# case_format T: give the backstore of type T its PI and check it.
case_format() {
	local t=$1 so f blocks n
	so=$(so_of "$t") f=$(file_of "$t")
	sysfs_write "$so/attrib/pi_prot_type" "$t"
	sysfs_write "$so/attrib/pi_prot_format" 1
	grep -H . "$so"/attrib/{pi_prot_type,pi_prot_verify,hw_pi_prot_type,block_size} >&2
	[[ $(cat "$so/attrib/pi_prot_type") == "$t" ]]
	[[ $(cat "$so/attrib/pi_prot_verify") == 1 ]]
	[[ $(cat "$so/attrib/hw_pi_prot_type") == 0 ]]
	[[ $(cat "$so/attrib/block_size") == 512 ]]
	blocks=$((SIZE_MIB * 2048))
	ls -l "$f.protection" >&2
	[[ $(stat -c %s "$f.protection") == $((blocks * 8)) ]]
	n=$(tr -d '\377' <"$f.protection" | wc -c)
	((n == 0)) || { echo "$n bytes of $f.protection are not 0xff" >&2; return 1; }
}

case_no_pi_on_wire() {
	local t d out
	for t in 1 3; do
		d=$(disk_of "$t")
		out=$(sg_inq "$d")
		grep -E 'Protect=' <<<"$out" >&2
		grep -q ' Protect=0 ' <<<"$out"
		out=$(sg_readcap -l "$d")
		log "$d: $(grep -i 'prot' <<<"$out" | tr -s ' \n' ' ')"
		grep -q 'prot_en=0, p_type=0' <<<"$out"
	done
}

# case_rw T: dd_verify on the disk of type T.
case_rw() {
	dd_verify "$(disk_of "$1")" 16
}

# case_write_pi T: one block written at LBA_WRITE gets its PI.
case_write_pi() {
	local t=$1 d f tuple crc want
	d=$(disk_of "$t") f=$(file_of "$t")
	head -c 512 /dev/urandom >"$STATE/block"
	tuple=$(hex_at "$f.protection" $((LBA_WRITE * 8)) 8)
	log "tuple of LBA $LBA_WRITE before: $tuple"
	[[ $tuple == ffffffffffffffff ]]
	dd if="$STATE/block" of="$d" bs=512 seek="$LBA_WRITE" oflag=direct conv=fsync status=none
	cmp "$STATE/block" <(dd if="$f" bs=512 skip="$LBA_WRITE" count=1 status=none)
	tuple=$(hex_at "$f.protection" $((LBA_WRITE * 8)) 8)
	crc=$(crc_t10dif "$STATE/block" 0)
	if [[ $t == 1 ]]; then
		want=${crc}0000$(printf %08x "$LBA_WRITE")
	else
		# Type 3: LIO leaves the reference tag as it was in its buffer.
		want=${crc}0000
		tuple=${tuple:0:8}
	fi
	log "tuple of LBA $LBA_WRITE after: $tuple, CRC-T10DIF of the data $crc, wanted $want"
	[[ $tuple == "$want" ]]
}

# case_corrupt T: a block changed behind LIO's back does not reach the
# initiator.
case_corrupt() {
	local t=$1 d f host out rc=0 e0 r0 e1 r1 mark sense info lba
	d=$(disk_of "$t") f=$(file_of "$t")
	# What dd_verify left there, and its PI; then the bytes on the medium
	# change: 512 bytes of 0xa5, the PI stays.
	dd if="$d" of="$STATE/good" bs=512 skip=$((LBA_BAD - 1)) count=3 iflag=direct status=none
	head -c 512 /dev/zero | tr '\0' '\245' >"$STATE/bad"
	dd if="$STATE/bad" of="$f" bs=512 seek="$LBA_BAD" count=1 conv=notrunc,fsync status=none
	cmp "$STATE/bad" <(dd if="$f" bs=512 skip="$LBA_BAD" count=1 status=none)

	e0=$(stat_sum errors) r0=$(stat_sum read_bytes)
	: >"$TRACING/trace"
	rm -f "$STATE/out"
	# shellcheck disable=SC2046 # the CDB bytes are separate arguments
	out=$(sg_raw -vv -r 512 -o "$STATE/out" "$d" $(read10 "$LBA_BAD") 2>&1) || rc=$?
	printf '%s\n' "$out" >&2
	log "sg_raw READ(10) of LBA $LBA_BAD: status $rc"
	e1=$(stat_sum errors) r1=$(stat_sum read_bytes)
	log "errors $e0 -> $e1, read_bytes $r0 -> $r1"
	grep -E ' srpt_rsp: ' "$TRACING/trace" >&2 || true

	# sg3_utils' exit status 40: SG_LIB_CAT_PROTECTION, the ABORTED
	# COMMAND of a protection error.
	((rc == 40))
	grep -q 'SCSI Status: Check Condition' <<<"$out"
	grep -q 'Error 40 occurred, no data received' <<<"$out"
	grep -q 'Aborted command, protection error' <<<"$out"
	grep -q 'Fixed format, current; Sense key: Aborted Command' <<<"$out"
	grep -q 'Additional sense: Logical block guard check failed' <<<"$out"
	# The raw sense: valid bit and fixed format (0xf0), key 0x0b,
	# INFORMATION = the LBA, ASC 0x10, ASCQ 0x01.
	sense=$(sed -n '/Raw sense data/,/^$/p' <<<"$out" |
		grep -E '^ +([0-9a-f]{2} +)*[0-9a-f]{2} *$' | tr -d ' \n')
	log "raw sense: $sense"
	info=$(printf %08x "$LBA_BAD")
	[[ $sense == "f0000b${info}0a00000000100100000000" ]]
	# No data: none in the output file, none counted as sent.
	if [[ -s $STATE/out ]] && cmp -s <(head -c "$(stat -c %s "$STATE/out")" "$STATE/bad") "$STATE/out"; then
		echo "the corrupted bytes reached the initiator" >&2
		return 1
	fi
	[[ ! -s $STATE/out ]] || { echo "sg_raw got $(stat -c %s "$STATE/out") bytes" >&2; return 1; }
	((e1 - e0 == 1))
	((r1 - r0 == 0))
	local n
	n=$(grep -cE ' srpt_rsp: .* status 0x02 resid 0 sense 96$' "$TRACING/trace") || true
	((n == 1)) || { echo "$n SRP_RSPs with CHECK CONDITION and 96 bytes of sense" >&2; return 1; }

	# A read through the block layer: EILSEQ (BLK_STS_PROTECTION), no
	# retry, and sd logs the sense.
	mark=$(kmsg_mark)
	host=$(srp_host_of "$d")
	rc=0
	out=$(dd if="$d" of="$STATE/out" bs=512 skip="$LBA_BAD" count=1 iflag=direct status=none 2>&1) || rc=$?
	log "dd O_DIRECT read of LBA $LBA_BAD: status $rc: $out"
	((rc != 0))
	grep -q 'Invalid or incomplete multibyte or wide character' <<<"$out"
	if [[ -s $STATE/out ]] && cmp -s "$STATE/bad" "$STATE/out"; then
		echo "dd read the corrupted bytes" >&2
		return 1
	fi
	kmsg_since "$mark" | grep -E "${d#/dev/}" >&2 || true
	kmsg_has "$mark" "\[${d#/dev/}\] tag#[0-9]+ Sense Key : Aborted Command \[current\]"
	kmsg_has "$mark" "\[${d#/dev/}\] tag#[0-9]+ Add. Sense: Logical block guard check failed"
	kmsg_has "$mark" "protection error, dev ${d#/dev/}, sector $LBA_BAD "
	kmsg_has "$mark" "DIFv1 checksum failed on sector $LBA_BAD guard tag"
	log "SCSI host $host"

	# The blocks beside it are unharmed.
	for lba in $((LBA_BAD - 1)) $((LBA_BAD + 1)); do
		cmp <(dd if="$d" bs=512 skip="$lba" count=1 iflag=direct status=none) \
			<(dd if="$STATE/good" bs=512 skip=$((lba - LBA_BAD + 1)) count=1 status=none)
	done
}

soft_rdma_setup
srpt_load srp_max_req_size=8260
kmsg_mark pi
# PI is set up on a configured backstore before it is exported.
backstore_fileio srpt_file0 "$(file_of 1)" "$SIZE_MIB" >/dev/null
backstore_fileio srpt_file1 "$(file_of 3)" "$SIZE_MIB" >/dev/null
sub_case type2-refused case_type2_refused || true
sub_case format-t1 case_format 1 || true
sub_case format-t3 case_format 3 || true

wwn=$(port_wwn "$RDMA_DEV" 1)
SRPT_TPG=$(srpt_add_target "$wwn")
srpt_add_lun "$SRPT_TPG" "$(so_of 1)" 0 >/dev/null
srpt_add_lun "$SRPT_TPG" "$(so_of 3)" 1 >/dev/null
srpt_add_acl "$SRPT_TPG" "$IPV4" >/dev/null
srpt_enable "$SRPT_TPG"
srpt_set_rdma_cm_port "$SRP_LOGIN_PORT"
[[ -d $TRACING/events/ib_srpt ]] || die "no tracepoints in $TRACING/events/ib_srpt"
echo 0 >"$TRACING/options/record-cmd"
echo 1 >"$TRACING/events/ib_srpt/srpt_rsp/enable"
srp_login -n 2 >"$STATE/disks"
log "disks: $(tr '\n' ' ' <"$STATE/disks")"

sub_case no-pi-on-wire case_no_pi_on_wire || true
for t in 1 3; do
	sub_case "rw-t$t" case_rw "$t" || true
	sub_case "write-pi-t$t" case_write_pi "$t" || true
	sub_case "corrupt-t$t" case_corrupt "$t" || true
done
echo 0 >"$TRACING/events/ib_srpt/srpt_rsp/enable"
srp_logout "$(disk_of 1)"
teardown_all || sub_result FAIL teardown
rm -f /tmp/srpt_file[0-2].img /tmp/srpt_file[0-2].img.protection
sub_exit
