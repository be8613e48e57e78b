// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt - SCSI RDMA Protocol (SRP) target driver for the LIO target core.
 *
 * The driver registers an InfiniBand client. For every RDMA device it
 * answers device-management MADs (so that srp_daemon finds the target),
 * accepts SRP logins over IB/CM and RDMA/CM, receives SRP information units
 * into per-channel receive rings or a per-device shared receive queue, moves
 * data with the rdma_rw API and hands SCSI commands to LIO. Its configfs
 * fabric is called "srpt".
 *
 * The file reads top to bottom: parameters, global state, forward
 * declarations, names and parsers, command state and credits, I/O contexts,
 * device-management MADs, channels (queue pairs, allocation, life cycle),
 * connection management (logins, IB/CM and RDMA/CM events, listeners), the
 * data path, LIO fabric operations, configfs, devices and ports, and module
 * init.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/kstrtox.h>
#include <linux/ratelimit.h>
#include <linux/inet.h>
#include <linux/in6.h>
#include <linux/scatterlist.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/unaligned.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_common.h>
#include <target/target_core_backend.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include "ib_srpt.h"
#define CREATE_TRACE_POINTS
#include "ib_srpt_trace.h"

MODULE_AUTHOR("The ib_srpt developers");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver for the LIO target core");
MODULE_VERSION(SRPT_VERSION);
MODULE_LICENSE("GPL");

/*
 * Command states. Every SRP_CMD and SRP_TSK_MGMT owns one send context whose
 * state only moves forward:
 *
 *   SRP_CMD, data-out --> NEW --> NEED_DATA --> DATA_IN --> CMD_RSP_SENT --.
 *   SRP_CMD, otherwise -> NEW ---------------------------> CMD_RSP_SENT --+-> DONE
 *   SRP_TSK_MGMT ------> MGMT ---------------------------> MGMT_RSP_SENT -'
 *
 * NEED_DATA: RDMA READs of the data-out buffer are posted (or waiting for
 * send-queue slots). DATA_IN: the data is here and LIO executes the command.
 * CMD_RSP_SENT: the RDMA WRITEs of the data-in buffer and the SRP_RSP are
 * posted. DONE: the response completed, or LIO aborted the command. An
 * immediate-data write skips NEED_DATA. Any state can be cut short to DONE
 * by an abort; nothing leaves DONE.
 */

/*
 * Channel states. A channel also only moves forward:
 *
 *   CONNECTING --RTU/ESTABLISHED--> LIVE
 *       |                            |
 *       '---------- close -----------+--> DISCONNECTING --> DRAINING
 *                                                              |
 *             zero-length write flushed, release work queued <-'
 *                                 |
 *                                 v
 *                          DISCONNECTED (LIO session stopped, commands
 *                          drained, QP/CQ/rings freed, channel freed)
 *
 * CONNECTING: the login was answered; IUs that arrive now wait on
 * cmd_wait_list. LIVE: IUs are processed. DISCONNECTING: a DREQ or RDMA/CM
 * disconnect was sent or received and the QP moved to the error state.
 * DRAINING: a zero-length RDMA WRITE was posted; its flush completion proves
 * that every earlier send-queue work request has completed.
 */

/* Parameters ------------------------------------------------------------ */

static u64 srpt_service_guid;
static int srp_max_req_size = SRPT_DEF_MAX_REQ_SIZE;
static int srpt_srq_size = SRPT_DEF_SRQ_SIZE;
static u16 rdma_cm_port;

/**
 * srpt_param_set_guid() - parse the srpt_service_guid module parameter
 * @val: hexadecimal string, with or without a 0x prefix
 * @kp: the parameter
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_param_set_guid(const char *val, const struct kernel_param *kp)
{
	return kstrtou64(val, 16, kp->arg) ? -EINVAL : 0;
}

/**
 * srpt_param_get_guid() - format the srpt_service_guid module parameter
 * @buffer: output buffer of PAGE_SIZE bytes
 * @kp: the parameter
 *
 * Return: number of bytes written.
 */
static int srpt_param_get_guid(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "0x%016llx\n", *(u64 *)kp->arg);
}

static const struct kernel_param_ops srpt_guid_ops = {
	.set = srpt_param_set_guid,
	.get = srpt_param_get_guid,
};
module_param_cb(srpt_service_guid, &srpt_guid_ops, &srpt_service_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "IOC GUID, id_ext and IB/CM service ID (hex); 0 = node GUID of the first HCA");

/**
 * srpt_param_set_int_range() - parse an int parameter and check its range
 * @val: decimal string
 * @kp: the parameter
 * @min: smallest accepted value
 * @max: largest accepted value
 *
 * Return: 0 or -EINVAL; a rejected value fails the module load.
 */
static int srpt_param_set_int_range(const char *val,
				    const struct kernel_param *kp,
				    int min, int max)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret || n < min || n > max) {
		pr_err("%s=%s is invalid: the range is %d..%d\n",
		       kp->name, val, min, max);
		return -EINVAL;
	}
	*(int *)kp->arg = n;
	return 0;
}

/**
 * srpt_param_set_req_size() - parse the srp_max_req_size module parameter
 * @val: decimal string
 * @kp: the parameter
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_param_set_req_size(const char *val,
				   const struct kernel_param *kp)
{
	return srpt_param_set_int_range(val, kp, SRPT_MIN_MAX_REQ_SIZE,
					SRPT_MAX_MAX_REQ_SIZE);
}

static const struct kernel_param_ops srpt_req_size_ops = {
	.set = srpt_param_set_req_size,
	.get = param_get_int,
};
module_param_cb(srp_max_req_size, &srpt_req_size_ops, &srp_max_req_size, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Largest SRP request IU accepted, in bytes (996..262144, default 8276)");

/**
 * srpt_param_set_srq_size() - parse the srpt_srq_size module parameter
 * @val: decimal string
 * @kp: the parameter
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_param_set_srq_size(const char *val,
				   const struct kernel_param *kp)
{
	return srpt_param_set_int_range(val, kp, SRPT_MIN_SRQ_SIZE,
					SRPT_MAX_SRQ_SIZE);
}

static const struct kernel_param_ops srpt_srq_size_ops = {
	.set = srpt_param_set_srq_size,
	.get = param_get_int,
};
module_param_cb(srpt_srq_size, &srpt_srq_size_ops, &srpt_srq_size, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Shared receive queue size (4..65535, default 4095, clamped to the HCA limit)");

module_param(rdma_cm_port, ushort, 0444);
MODULE_PARM_DESC(rdma_cm_port,
		 "Port on which to listen for RDMA/CM logins at load time (0 = none; see also configfs discovery_auth/rdma_cm_port)");

/* Global state ---------------------------------------------------------- */

/*
 * Protects srpt_dev_list, srpt_port_ids, the port <-> WWN links and the
 * ports' GIDs and names.
 */
static DEFINE_MUTEX(srpt_dev_mutex);
static LIST_HEAD(srpt_dev_list);
static LIST_HEAD(srpt_port_ids);
/* Protects the RDMA/CM listeners. */
static DEFINE_MUTEX(rdma_cm_mutex);
/* The RDMA/CM listeners: IPv6 (v6 only) and IPv4; either may be NULL. */
static struct rdma_cm_id *rdma_cm_ids[2];
static u16 rdma_cm_listen_port;
static struct workqueue_struct *srpt_wq;
/* Sends the responses of task-set functions, in the order they are queued. */
static struct workqueue_struct *srpt_tsk_wq;

/* Ring buffers of all channels, and their limit (srpt_ring_charge()). */
static atomic64_t srpt_ring_bytes = ATOMIC64_INIT(0);
static u64 srpt_ring_limit;
/* Session numbers of the ACL info attribute. */
static atomic_t srpt_nexus_ids = ATOMIC_INIT(0);
/*
 * How many channel closes are logged: an initiator decides how often its
 * channels come and go. A channel whose close was logged also logs its
 * release, so that the two lines still pair up.
 */
static DEFINE_RATELIMIT_STATE(srpt_ch_log_rs, 5 * HZ, 16);

/* Forward declarations -------------------------------------------------- */

static struct ib_client srpt_client;
static const struct target_core_fabric_ops srpt_template;
static void srpt_zerolength_write_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_release_channel_work(struct work_struct *w);
static void srpt_connect_timeout(struct work_struct *w);
static void srpt_fail_rw_waiters(struct srpt_rdma_ch *ch);
static void srpt_free_kept_buf(struct srpt_send_ioctx *ioctx);
static void srpt_process_wait_list(struct srpt_rdma_ch *ch);
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static int srpt_post_rdma_read(struct srpt_send_ioctx *ioctx);
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_progress_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_send_finished(struct srpt_send_ioctx *ioctx);
static int srpt_post_live(struct srpt_rdma_ch *ch,
			  const struct ib_send_wr *first);
static void srpt_post_response(struct srpt_send_ioctx *ioctx);
static void srpt_send_cred_req(struct srpt_rdma_ch *ch);
static int srpt_build_tskmgmt_rsp(struct srpt_rdma_ch *ch,
				  struct srpt_send_ioctx *ioctx, u8 rsp_code,
				  u64 tag);
static void srpt_tmf_not_submitted(struct srpt_rdma_ch *ch,
				   struct srpt_send_ioctx *ioctx, u8 rsp_code);
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
static int srpt_enable_srq(struct srpt_device *sdev);
static void srpt_tsk_wait_put(struct srpt_tsk_wait *w);

/* Names ----------------------------------------------------------------- */

/**
 * srpt_format_guid_name() - GUID form of a port name
 * @buf: output buffer
 * @len: size of @buf
 * @gid: port GID; its interface ID is used
 */
static void srpt_format_guid_name(char *buf, size_t len,
				  const union ib_gid *gid)
{
	const u8 *b = gid->raw + 8;

	snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
}

/**
 * srpt_format_gid_name() - GID form of a port name
 * @buf: output buffer
 * @len: size of @buf
 * @gid: port GID
 */
static void srpt_format_gid_name(char *buf, size_t len,
				 const union ib_gid *gid)
{
	snprintf(buf, len, "0x%16phN", gid->raw);
}

/**
 * srpt_parse_guid() - parse the GUID form "xxxx:xxxx:xxxx:xxxx"
 * @guid: result in host byte order
 * @name: input; exactly four groups of exactly four hex digits
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_parse_guid(u64 *guid, const char *name)
{
	u64 v = 0;
	int i, j;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++) {
			int d = hex_to_bin(*name++);

			if (d < 0)
				return -EINVAL;
			v = v << 4 | d;
		}
		if (*name != (i < 3 ? ':' : '\0'))
			return -EINVAL;
		name++;
	}
	*guid = v;
	return 0;
}

/**
 * srpt_parse_i_port_id() - parse an initiator port ID written in hex
 * @i_port_id: result, 16 bytes, right-aligned
 * @name: "0x" followed by 2..32 hex digits, or the same without "0x"; the
 *	number of digits must be even
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_parse_i_port_id(u8 i_port_id[16], const char *name)
{
	const char *p = name;
	size_t count;
	int lead;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	count = strlen(p);
	if (count == 0 || count > 32 || count % 2)
		return -EINVAL;
	lead = 16 - count / 2;
	memset(i_port_id, 0, lead);
	return hex2bin(i_port_id + lead, p, count / 2) ? -EINVAL : 0;
}

/**
 * srpt_acl_canonical() - the spelling of an initiator name that logins use
 * @name: GUID form, hex initiator port ID, IPv4 or IPv6 address
 * @buf: output buffer
 * @len: size of @buf; 40 bytes hold every form
 *
 * LIO compares ACL names with the session names of logins byte for byte.
 * The driver writes those names in one way only: GUID form and hex port
 * IDs in lowercase with all 32 digits (keeping or leaving out the "0x"
 * of @name), IPv4 addresses in dotted decimal without leading zeros, IPv6
 * addresses with all eight groups of four digits, and IPv4-mapped IPv6
 * addresses as IPv4 addresses.
 *
 * Return: 0 with the canonical spelling of @name in @buf, or -EINVAL when
 * @name is none of the accepted forms.
 */
static int srpt_acl_canonical(const char *name, char *buf, size_t len)
{
	union ib_gid gid = {};
	u8 addr[16];
	u64 guid;

	if (!srpt_parse_guid(&guid, name)) {
		gid.global.interface_id = cpu_to_be64(guid);
		srpt_format_guid_name(buf, len, &gid);
	} else if (!srpt_parse_i_port_id(addr, name)) {
		snprintf(buf, len, "%s%16phN",
			 name[0] == '0' && tolower(name[1]) == 'x' ? "0x" : "",
			 addr);
	} else if (in4_pton(name, -1, addr, '\0', NULL)) {
		snprintf(buf, len, "%pI4", addr);
	} else if (in6_pton(name, -1, addr, '\0', NULL)) {
		if (ipv6_addr_v4mapped((struct in6_addr *)addr))
			snprintf(buf, len, "%pI4", addr + 12);
		else
			snprintf(buf, len, "%pI6", addr);
	} else {
		return -EINVAL;
	}
	return 0;
}

/**
 * srpt_check_acl_name() - check a configfs ACL name and normalise it
 * @name: GUID form, hex initiator port ID, IPv4 or IPv6 address
 * @canon: output buffer for the canonical spelling of @name
 * @len: size of @canon
 *
 * Return: 0 with the spelling of @name that logins use in @canon (see
 * srpt_acl_canonical()), or -EINVAL with @canon empty when @name is no
 * initiator name.
 */
static int srpt_check_acl_name(const char *name, char *canon, size_t len)
{
	if (srpt_acl_canonical(name, canon, len)) {
		canon[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

/* SRP_CMD data descriptors ---------------------------------------------- */

/**
 * struct srpt_desc_info - the data descriptors of one SRP_CMD
 * @dir: DMA_TO_DEVICE (data-out), DMA_FROM_DEVICE (data-in) or DMA_NONE
 * @fmt: SRP_NO_DATA_DESC, SRP_DATA_DESC_DIRECT, _INDIRECT or _IMM
 * @bufs: first remote buffer descriptor (direct and indirect)
 * @nbufs: number of remote buffer descriptors
 * @data_len: total data length
 * @imm_off: offset of immediate data in the IU
 * @imm_len: length of immediate data
 */
struct srpt_desc_info {
	enum dma_data_direction dir;
	u8 fmt;
	const struct srp_direct_buf *bufs;
	u32 nbufs;
	u64 data_len;
	u32 imm_off;
	u32 imm_len;
};

/**
 * srpt_parse_indirect() - check an indirect descriptor table inside the IU
 * @cmd: the SRP_CMD
 * @byte_len: bytes received
 * @off: offset of the indirect header in the IU
 * @desc_cnt: descriptors the command says are in the IU
 * @info: result
 *
 * Only tables that lie wholly inside the IU are supported; a table that
 * would have to be fetched from the initiator, even in part, is rejected.
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_parse_indirect(const struct srp_cmd *cmd, u32 byte_len,
			       u32 off, u8 desc_cnt,
			       struct srpt_desc_info *info)
{
	const struct srp_indirect_buf *ib = (const void *)cmd + off;
	u32 tbl_len, count, i;
	u64 total = 0;

	if ((u64)off + sizeof(*ib) > byte_len)
		return -EINVAL;
	tbl_len = be32_to_cpu(ib->table_desc.len);
	if (tbl_len == 0 || tbl_len % sizeof(struct srp_direct_buf))
		return -EINVAL;
	count = tbl_len / sizeof(struct srp_direct_buf);
	/* Fewer descriptors in the IU than in the table: external table. */
	if (desc_cnt == 0 || desc_cnt != count)
		return -EINVAL;
	if ((u64)off + sizeof(*ib) + (u64)desc_cnt * sizeof(ib->desc_list[0]) >
	    byte_len)
		return -EINVAL;
	for (i = 0; i < desc_cnt; i++)
		total += be32_to_cpu(ib->desc_list[i].len);
	if (total != be32_to_cpu(ib->len))
		return -EINVAL;
	info->bufs = ib->desc_list;
	info->nbufs = desc_cnt;
	info->data_len = total;
	return 0;
}

/**
 * srpt_parse_cmd_bufs() - parse and check the data descriptors of an SRP_CMD
 * @cmd: the SRP_CMD
 * @byte_len: number of bytes actually received
 * @imm_data_offset: negotiated immediate-data offset, 0 when not negotiated
 * @info: result
 *
 * Every offset and length taken from the IU is checked against @byte_len,
 * in 64-bit arithmetic so that nothing wraps around.
 *
 * Return: 0 or -EINVAL for a malformed or unsupported command.
 */
static int srpt_parse_cmd_bufs(const struct srp_cmd *cmd, u32 byte_len,
			       u16 imm_data_offset, struct srpt_desc_info *info)
{
	u8 out_fmt, in_fmt, fmt, desc_cnt;
	u32 off;

	memset(info, 0, sizeof(*info));
	info->dir = DMA_NONE;
	if (byte_len < sizeof(*cmd))
		return -EINVAL;
	off = sizeof(*cmd) + (cmd->add_cdb_len & ~3);
	if (off > byte_len)
		return -EINVAL;
	out_fmt = cmd->buf_fmt >> 4;
	in_fmt = cmd->buf_fmt & 0xf;
	if (out_fmt && in_fmt)
		return -EINVAL;
	if (out_fmt) {
		fmt = out_fmt;
		desc_cnt = cmd->data_out_desc_cnt;
		info->dir = DMA_TO_DEVICE;
	} else if (in_fmt) {
		fmt = in_fmt;
		desc_cnt = cmd->data_in_desc_cnt;
		info->dir = DMA_FROM_DEVICE;
	} else {
		return 0;
	}
	info->fmt = fmt;

	switch (fmt) {
	case SRP_DATA_DESC_DIRECT:
		if ((u64)off + sizeof(struct srp_direct_buf) > byte_len)
			return -EINVAL;
		info->bufs = (const void *)cmd + off;
		info->nbufs = 1;
		info->data_len = be32_to_cpu(info->bufs->len);
		return 0;
	case SRP_DATA_DESC_INDIRECT:
		return srpt_parse_indirect(cmd, byte_len, off, desc_cnt, info);
	case SRP_DATA_DESC_IMM: {
		const struct srp_imm_buf *imm = (const void *)cmd + off;
		u32 len;

		if (info->dir != DMA_TO_DEVICE || !imm_data_offset)
			return -EINVAL;
		if ((u64)off + sizeof(*imm) > imm_data_offset ||
		    (u64)off + sizeof(*imm) > byte_len)
			return -EINVAL;
		len = be32_to_cpu(imm->len);
		if ((u64)imm_data_offset + len > byte_len)
			return -EINVAL;
		info->imm_off = imm_data_offset;
		info->imm_len = len;
		info->data_len = len;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/**
 * srpt_cdb_len_ok() - check that the whole CDB of an SRP_CMD arrived
 * @cmd: the SRP_CMD, at least sizeof(*cmd) bytes of which were received
 * @byte_len: number of bytes received
 *
 * LIO copies scsi_command_size() bytes of the CDB: up to 263 for a
 * variable-length CDB (7Fh). They must lie in the CDB field and the
 * additional CDB bytes the command declares, and those must have arrived;
 * otherwise LIO would read past the IU into stale bytes or beyond the
 * receive buffer.
 *
 * Return: true when the CDB is complete.
 */
static bool srpt_cdb_len_ok(const struct srp_cmd *cmd, u32 byte_len)
{
	u32 add = cmd->add_cdb_len & ~3;

	return sizeof(cmd->cdb) + add >= scsi_command_size(cmd->cdb) &&
		sizeof(*cmd) + add <= byte_len;
}

/* Command state and credits --------------------------------------------- */

static const char *const srpt_cmd_state_names[] = {
	[SRPT_STATE_NEW]		= "NEW",
	[SRPT_STATE_NEED_DATA]		= "NEED_DATA",
	[SRPT_STATE_DATA_IN]		= "DATA_IN",
	[SRPT_STATE_CMD_RSP_SENT]	= "CMD_RSP_SENT",
	[SRPT_STATE_MGMT]		= "MGMT",
	[SRPT_STATE_MGMT_RSP_SENT]	= "MGMT_RSP_SENT",
	[SRPT_STATE_DONE]		= "DONE",
};

/*
 * The states each command state may move to: the diagram at the top of
 * this file. A write whose data-out transfer fails is answered from
 * NEED_DATA. Nothing leaves DONE; a context taken off the free list starts
 * again at NEW through srpt_cmd_state_reuse() only.
 */
static const u8 srpt_cmd_state_next[] = {
	[SRPT_STATE_NEW]		= BIT(SRPT_STATE_NEED_DATA) |
					  BIT(SRPT_STATE_DATA_IN) |
					  BIT(SRPT_STATE_CMD_RSP_SENT) |
					  BIT(SRPT_STATE_MGMT) |
					  BIT(SRPT_STATE_DONE),
	[SRPT_STATE_NEED_DATA]		= BIT(SRPT_STATE_DATA_IN) |
					  BIT(SRPT_STATE_CMD_RSP_SENT) |
					  BIT(SRPT_STATE_DONE),
	[SRPT_STATE_DATA_IN]		= BIT(SRPT_STATE_CMD_RSP_SENT) |
					  BIT(SRPT_STATE_DONE),
	[SRPT_STATE_CMD_RSP_SENT]	= BIT(SRPT_STATE_DONE),
	[SRPT_STATE_MGMT]		= BIT(SRPT_STATE_MGMT_RSP_SENT) |
					  BIT(SRPT_STATE_DONE),
	[SRPT_STATE_MGMT_RSP_SENT]	= BIT(SRPT_STATE_DONE),
	[SRPT_STATE_DONE]		= 0,
};

/* Masks of states for srpt_cmd_state_change(). */
#define SRPT_STATES_ANY		(BIT(SRPT_STATE_DONE + 1) - 1)
#define SRPT_STATES_NOT_DONE	(SRPT_STATES_ANY & ~BIT(SRPT_STATE_DONE))

/**
 * srpt_cmd_state_name() - name of a command state, for the log
 * @state: the state
 *
 * Return: the name, or "?" for a value outside the enum.
 */
static const char *srpt_cmd_state_name(enum srpt_command_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(srpt_cmd_state_names))
		return "?";
	return srpt_cmd_state_names[state];
}

/**
 * srpt_cmd_state_change() - the one place a command state changes
 * @ioctx: send I/O context
 * @from: mask of the states the caller expects to move from
 * @new: new state
 * @reuse: the context was just taken off the free list (DONE to NEW)
 * @prev: result: the state before the call
 *
 * Atomic with respect to every other caller. A state outside @from is the
 * caller's expected race (an abort got there first) and leaves the state
 * alone silently. A move that srpt_cmd_state_next[] does not allow, such as
 * anything out of DONE, is refused and logged (rate-limited): it is a bug,
 * but one that must not send a response twice or revive an aborted command.
 *
 * Return: true if the state is now @new and was not before.
 */
static bool srpt_cmd_state_change(struct srpt_send_ioctx *ioctx, u32 from,
				  enum srpt_command_state new, bool reuse,
				  enum srpt_command_state *prev)
{
	enum srpt_command_state old = READ_ONCE(ioctx->state);

	do {
		*prev = old;
		if (!(from & BIT(old)))
			return false;
		if (!reuse && !(srpt_cmd_state_next[old] & BIT(new))) {
			pr_err_ratelimited("%s: tag %#llx: command state %s -> %s refused\n",
					   ioctx->ch->sess_name, ioctx->tag,
					   srpt_cmd_state_name(old),
					   srpt_cmd_state_name(new));
			return false;
		}
	} while (!try_cmpxchg(&ioctx->state, &old, new));
	return true;
}

/**
 * srpt_set_cmd_state() - move a command to a new state
 * @ioctx: send I/O context
 * @new: new I/O context state
 *
 * Return: the previous command state.
 */
static enum srpt_command_state
srpt_set_cmd_state(struct srpt_send_ioctx *ioctx, enum srpt_command_state new)
{
	enum srpt_command_state prev;

	srpt_cmd_state_change(ioctx, SRPT_STATES_ANY, new, false, &prev);
	return prev;
}

/**
 * srpt_test_and_set_cmd_state() - test and set the state of a command
 * @ioctx: send I/O context
 * @old: current I/O context state
 * @new: new I/O context state
 *
 * Return: true if and only if the previous command state was @old and the
 * state is now @new.
 */
static bool srpt_test_and_set_cmd_state(struct srpt_send_ioctx *ioctx,
					enum srpt_command_state old,
					enum srpt_command_state new)
{
	enum srpt_command_state prev;

	return srpt_cmd_state_change(ioctx, BIT(old), new, false, &prev);
}

/**
 * srpt_cmd_state_done() - end a command, whatever state it is in
 * @ioctx: send I/O context
 *
 * A command that already is DONE stays so without a message.
 *
 * Return: the previous command state.
 */
static enum srpt_command_state srpt_cmd_state_done(struct srpt_send_ioctx *ioctx)
{
	enum srpt_command_state prev;

	srpt_cmd_state_change(ioctx, SRPT_STATES_NOT_DONE, SRPT_STATE_DONE,
			      false, &prev);
	return prev;
}

/**
 * srpt_cmd_state_reuse() - start a new command in a free send context
 * @ioctx: send I/O context just taken off its channel's free list, so DONE
 *
 * The only move out of DONE: the context's earlier command is over. Every
 * context on a free list is DONE (srpt_alloc_ch_rings(),
 * srpt_put_send_ioctx()).
 */
static void srpt_cmd_state_reuse(struct srpt_send_ioctx *ioctx)
{
	enum srpt_command_state prev;

	if (!srpt_cmd_state_change(ioctx, BIT(SRPT_STATE_DONE), SRPT_STATE_NEW,
				   true, &prev))
		pr_err_ratelimited("%s: free send context %u in state %s\n",
				   ioctx->ch->sess_name, ioctx->ioctx.index,
				   srpt_cmd_state_name(prev));
}

/**
 * srpt_credit_return() - note one credit to give back to the initiator
 * @ch: RDMA channel
 *
 * Called once for every request IU whose receive buffer is reposted.
 */
static void srpt_credit_return(struct srpt_rdma_ch *ch)
{
	atomic_inc(&ch->req_lim_delta);
}

/**
 * srpt_credit_take() - take all credits not yet reported
 * @ch: RDMA channel
 *
 * The credits count as granted from now on, before the IU that carries them
 * is posted: the initiator cannot use a credit before it received that IU,
 * so srpt_credit_use() never sees an IU for a credit it has not counted.
 *
 * Return: the value for the REQUEST LIMIT DELTA field of the next response.
 */
static int srpt_credit_take(struct srpt_rdma_ch *ch)
{
	int delta = atomic_xchg(&ch->req_lim_delta, 0);

	if (delta)
		atomic_add_return(delta, &ch->cred_sent);
	return delta;
}

/**
 * srpt_iu_uses_credit() - whether an IU uses a credit of the initiator
 * @iu: the IU
 * @len: its length in bytes
 *
 * Every IU from the initiator uses a credit except SRP_I_LOGOUT and the
 * answers to target requests, SRP_CRED_RSP and SRP_AER_RSP (the SRP
 * standard). Empty and undefined IUs use one, and the target gives it back.
 *
 * Return: true if the IU uses a credit.
 */
static bool srpt_iu_uses_credit(const u8 *iu, u32 len)
{
	if (len < 1)
		return true;
	switch (iu[0]) {
	case SRP_I_LOGOUT:
	case SRP_CRED_RSP:
	case SRP_AER_RSP:
		return false;
	default:
		return true;
	}
}

/**
 * srpt_credit_use() - account for a received IU that uses a credit
 * @ch: RDMA channel
 *
 * The initiator got rq_size credits with the login response and every
 * credit counted by srpt_credit_take() since, so it cannot have sent more
 * IUs that use a credit than that.
 *
 * Return: false if the initiator had no credit left for this IU.
 */
static bool srpt_credit_use(struct srpt_rdma_ch *ch)
{
	u32 used = atomic_inc_return(&ch->req_ius);
	u32 sent = atomic_read(&ch->cred_sent);

	return (s32)(used - sent) <= ch->rq_size;
}

/* I/O contexts and rings ------------------------------------------------ */

/**
 * struct srpt_buf_cache - a slab cache of IU buffers of one size
 * @entry: entry in srpt_buf_caches
 * @size: object size
 * @refs: users
 * @cache: the slab cache
 */
struct srpt_buf_cache {
	struct list_head entry;
	u32 size;
	int refs;
	struct kmem_cache *cache;
};

static DEFINE_MUTEX(srpt_buf_cache_mutex);
static LIST_HEAD(srpt_buf_caches);

/**
 * srpt_cache_get() - get a slab cache for IU buffers of a given size
 * @size: buffer size in bytes
 *
 * Buffers of the same size share one cache, so that a channel's receive
 * ring costs what its negotiated IU size needs and no power-of-two rounding.
 *
 * Return: the cache or NULL.
 */
static struct kmem_cache *srpt_cache_get(u32 size)
{
	struct srpt_buf_cache *c;
	struct kmem_cache *cache = NULL;
	char name[32];

	mutex_lock(&srpt_buf_cache_mutex);
	list_for_each_entry(c, &srpt_buf_caches, entry) {
		if (c->size == size) {
			c->refs++;
			cache = c->cache;
			goto out;
		}
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		goto out;
	snprintf(name, sizeof(name), "srpt-iu-%u", size);
	c->cache = kmem_cache_create(name, size, 512, 0, NULL);
	if (!c->cache) {
		kfree(c);
		goto out;
	}
	c->size = size;
	c->refs = 1;
	list_add(&c->entry, &srpt_buf_caches);
	cache = c->cache;
out:
	mutex_unlock(&srpt_buf_cache_mutex);
	return cache;
}

/**
 * srpt_cache_put() - drop a reference obtained by srpt_cache_get()
 * @cache: the cache, may be NULL
 */
static void srpt_cache_put(struct kmem_cache *cache)
{
	struct srpt_buf_cache *c;

	if (!cache)
		return;
	mutex_lock(&srpt_buf_cache_mutex);
	list_for_each_entry(c, &srpt_buf_caches, entry) {
		if (c->cache != cache)
			continue;
		if (--c->refs == 0) {
			list_del(&c->entry);
			kmem_cache_destroy(c->cache);
			kfree(c);
		}
		break;
	}
	mutex_unlock(&srpt_buf_cache_mutex);
}

/**
 * srpt_alloc_ioctx() - allocate an I/O context and map its buffer
 * @sdev: SRPT HCA pointer
 * @ioctx_size: size of the I/O context structure to allocate
 * @buf_cache: slab cache of the buffer
 * @dir: DMA direction of the buffer
 *
 * Return: the context with @buf and @dma set, or NULL.
 */
static struct srpt_ioctx *srpt_alloc_ioctx(struct srpt_device *sdev,
					   int ioctx_size,
					   struct kmem_cache *buf_cache,
					   enum dma_data_direction dir)
{
	struct srpt_ioctx *ioctx;

	ioctx = kzalloc(ioctx_size, GFP_KERNEL);
	if (!ioctx)
		return NULL;
	ioctx->buf = kmem_cache_alloc(buf_cache, GFP_KERNEL);
	if (!ioctx->buf)
		goto free_ioctx;
	ioctx->dma = ib_dma_map_single(sdev->device, ioctx->buf,
				       kmem_cache_size(buf_cache), dir);
	if (ib_dma_mapping_error(sdev->device, ioctx->dma))
		goto free_buf;
	return ioctx;

free_buf:
	kmem_cache_free(buf_cache, ioctx->buf);
free_ioctx:
	kfree(ioctx);
	return NULL;
}

/**
 * srpt_free_ioctx() - unmap and free an I/O context
 * @sdev: SRPT HCA pointer
 * @ioctx: I/O context, may be NULL
 * @buf_cache: slab cache of the buffer
 * @dir: DMA direction the buffer was mapped with
 */
static void srpt_free_ioctx(struct srpt_device *sdev, struct srpt_ioctx *ioctx,
			    struct kmem_cache *buf_cache,
			    enum dma_data_direction dir)
{
	if (!ioctx)
		return;
	ib_dma_unmap_single(sdev->device, ioctx->dma,
			    kmem_cache_size(buf_cache), dir);
	kmem_cache_free(buf_cache, ioctx->buf);
	kfree(ioctx);
}

/**
 * srpt_alloc_ioctx_ring() - allocate a ring of I/O contexts
 * @sdev: SRPT HCA pointer
 * @ring_size: number of elements
 * @ioctx_size: size of one I/O context structure
 * @buf_cache: slab cache of the buffers
 * @alignment_offset: offset of the IU in each buffer, chosen so that
 *	immediate data lands on an aligned address
 * @dir: DMA direction
 *
 * Return: the ring or NULL.
 */
static struct srpt_ioctx **srpt_alloc_ioctx_ring(struct srpt_device *sdev,
						 int ring_size, int ioctx_size,
						 struct kmem_cache *buf_cache,
						 int alignment_offset,
						 enum dma_data_direction dir)
{
	struct srpt_ioctx **ring;
	int i;

	ring = kvcalloc(ring_size, sizeof(ring[0]), GFP_KERNEL);
	if (!ring)
		return NULL;
	for (i = 0; i < ring_size; i++) {
		ring[i] = srpt_alloc_ioctx(sdev, ioctx_size, buf_cache, dir);
		if (!ring[i])
			goto err;
		ring[i]->index = i;
		ring[i]->offset = alignment_offset;
	}
	return ring;

err:
	while (--i >= 0)
		srpt_free_ioctx(sdev, ring[i], buf_cache, dir);
	kvfree(ring);
	return NULL;
}

/**
 * srpt_free_ioctx_ring() - free a ring of I/O contexts
 * @ioctx_ring: the ring, may be NULL
 * @sdev: SRPT HCA pointer
 * @ring_size: number of elements
 * @buf_cache: slab cache of the buffers
 * @dir: DMA direction
 */
static void srpt_free_ioctx_ring(struct srpt_ioctx **ioctx_ring,
				 struct srpt_device *sdev, int ring_size,
				 struct kmem_cache *buf_cache,
				 enum dma_data_direction dir)
{
	int i;

	if (!ioctx_ring)
		return;
	for (i = 0; i < ring_size; i++)
		srpt_free_ioctx(sdev, ioctx_ring[i], buf_cache, dir);
	kvfree(ioctx_ring);
}

/**
 * srpt_post_recv() - post an IB receive request
 * @sdev: SRPT HCA pointer
 * @ch: SRPT RDMA channel
 * @ioctx: receive I/O context pointer
 *
 * A NULL @ch stands for the device SRQ.
 *
 * Return: 0 or a negative error code from the verbs layer.
 */
static int srpt_post_recv(struct srpt_device *sdev, struct srpt_rdma_ch *ch,
			  struct srpt_recv_ioctx *ioctx)
{
	struct ib_recv_wr wr = {};
	struct ib_sge list;

	list.addr = ioctx->ioctx.dma + ioctx->ioctx.offset;
	list.length = (ch && !ch->use_srq) ? ch->max_it_iu_len :
		srp_max_req_size;
	list.lkey = sdev->lkey;

	ioctx->ioctx.cqe.done = srpt_recv_done;
	wr.wr_cqe = &ioctx->ioctx.cqe;
	wr.sg_list = &list;
	wr.num_sge = 1;

	if (!ch || ch->use_srq)
		return ib_post_srq_recv(sdev->srq, &wr, NULL);
	return ib_post_recv(ch->qp, &wr, NULL);
}

/**
 * srpt_credit_flush() - send owed credits if nothing else will carry them
 * @ch: RDMA channel
 *
 * Credits normally go back with the next response. While no send context is
 * in use no response is coming, so an SRP_CRED_REQ carries them. Both
 * callers change one of the two conditions first (credits owed, contexts in
 * use); reading the context count under @ch->lock makes sure that of two
 * concurrent callers at least one sees both changes.
 */
static void srpt_credit_flush(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&ch->lock, flags);
	idle = ch->n_free == ch->rq_size;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (idle && atomic_read(&ch->req_lim_delta) > 0)
		srpt_send_cred_req(ch);
}

/**
 * srpt_recycle_recv() - give a receive buffer back and count its credit
 * @ch: channel the IU arrived on
 * @recv_ioctx: the receive context
 * @credit: whether the IU consumed a credit of the initiator
 *
 * On a channel that is going away, ring buffers are not reposted (the ring
 * is freed with the channel); SRQ buffers always go back to the SRQ. The
 * credit of an IU that gets no response goes out via srpt_credit_flush().
 */
static void srpt_recycle_recv(struct srpt_rdma_ch *ch,
			      struct srpt_recv_ioctx *recv_ioctx, bool credit)
{
	struct srpt_device *sdev = ch->sport->sdev;
	int ret;

	if (!ch->use_srq && READ_ONCE(ch->state) >= CH_DISCONNECTING)
		return;
	ret = srpt_post_recv(sdev, ch, recv_ioctx);
	if (ret) {
		pr_err_ratelimited("%s: reposting a receive buffer failed (%d)\n",
				   ch->sess_name, ret);
		return;
	}
	if (credit) {
		srpt_credit_return(ch);
		srpt_credit_flush(ch);
	}
}

/**
 * srpt_get_send_ioctx() - obtain an I/O context for sending to the initiator
 * @ch: SRPT RDMA channel
 *
 * Return: a reset send context, or NULL when all are in use.
 */
static struct srpt_send_ioctx *srpt_get_send_ioctx(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ioctx = list_first_entry_or_null(&ch->free_list,
					 struct srpt_send_ioctx, free_list);
	if (ioctx) {
		list_del_init(&ioctx->free_list);
		ch->n_free--;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!ioctx)
		return NULL;

	srpt_cmd_state_reuse(ioctx);
	/* The sense buffer included: up to all of it is sent. */
	memset_startat(ioctx, 0, recv_ioctx);
	ioctx->dir = DMA_NONE;
	return ioctx;
}

/**
 * srpt_put_send_ioctx() - return a send context to its channel
 * @ioctx: the context
 *
 * A command an ABORT TASK SET or CLEAR TASK SET aborted counts as done for
 * it now (srpt_tsk_wait_put()). IUs that waited for a free send context go
 * ahead; credits still owed when the channel falls idle go out via
 * srpt_credit_flush().
 */
static void srpt_put_send_ioctx(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct srpt_tsk_wait *abort_by;
	unsigned long flags;

	srpt_cmd_state_done(ioctx);
	spin_lock_irqsave(&ch->lock, flags);
	/* No task-set function can mark the context from here on. */
	abort_by = ioctx->abort_by;
	ioctx->abort_by = NULL;
	ioctx->abort_tas = false;
	ioctx->abortable = false;
	list_add(&ioctx->free_list, &ch->free_list);
	ch->n_free++;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (abort_by)
		srpt_tsk_wait_put(abort_by);
	srpt_process_wait_list(ch);
	srpt_credit_flush(ch);
}

/* Device management MADs ------------------------------------------------ */

/*
 * Device-management MADs. srp_daemon and other InfiniBand discovery tools
 * query the device-management class (IBA chapter 16.3) of every port: first
 * IOUnitInfo for the controller list, then the IOControllerProfile of each
 * present controller and finally its ServiceEntries, whose name and ID give
 * the id_ext and ioc_guid of the login string. This driver exposes exactly
 * one I/O controller, in slot SRPT_IOC_SLOT, with one service entry.
 */

/**
 * srpt_set_ioc() - store the state of one I/O controller slot
 * @c_list: controller list of an IOUnitInfo attribute
 * @slot: slot number, 1..SRPT_IOC_SLOTS
 * @value: four-bit slot state, e.g. %SRPT_IOC_PRESENT
 *
 * Every byte of the controller list holds two slots: the odd-numbered slot
 * in the high nibble and the following even-numbered slot in the low
 * nibble. Slot numbers outside 1..SRPT_IOC_SLOTS are ignored so that a bad
 * caller cannot write past the slots that IOUnitInfo announces.
 */
static void srpt_set_ioc(u8 *c_list, u32 slot, u8 value)
{
	u8 *byte;

	if (slot < 1 || slot > SRPT_IOC_SLOTS)
		return;

	byte = &c_list[(slot - 1) / 2];
	value &= 0xf;
	if (slot % 2)
		*byte = (*byte & 0x0f) | (value << 4);
	else
		*byte = (*byte & 0xf0) | value;
}

/**
 * srpt_get_class_port_info() - answer a ClassPortInfo query
 * @mad: response MAD; its data area is overwritten
 *
 * Response time value 20: 4.096 us * 2^20, about four seconds.
 * Redirection and traps are not supported.
 */
static void srpt_get_class_port_info(struct ib_dm_mad *mad)
{
	struct ib_class_port_info *cpi = (struct ib_class_port_info *)mad->data;

	memset(mad->data, 0, sizeof(mad->data));
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = IB_MGMT_BASE_VERSION;
	ib_set_cpi_resp_time(cpi, 20);
	mad->mad_hdr.status = 0;
}

/**
 * srpt_get_iou() - answer an IOUnitInfo query
 * @mad: response MAD; its data area is overwritten
 */
static void srpt_get_iou(struct ib_dm_mad *mad)
{
	struct ib_dm_iou_info *iou = (struct ib_dm_iou_info *)mad->data;

	memset(mad->data, 0, sizeof(mad->data));
	iou->change_id = cpu_to_be16(1);
	iou->max_controllers = SRPT_IOC_SLOTS;
	iou->op_rom = 0;
	srpt_set_ioc(iou->controller_list, SRPT_IOC_SLOT, SRPT_IOC_PRESENT);
	mad->mad_hdr.status = 0;
}

/**
 * srpt_get_ioc() - answer an IOControllerProfile query
 * @sport: HCA port the query arrived on
 * @slot: controller slot from the attribute modifier
 * @mad: response MAD; its data area is overwritten
 *
 * A slot outside 1..SRPT_IOC_SLOTS is an invalid attribute modifier; a
 * valid but empty slot has no I/O controller. The vendor ID fields are
 * 24-bit values in the upper three bytes of their 32-bit words.
 */
static void srpt_get_ioc(struct srpt_port *sport, u32 slot,
			 struct ib_dm_mad *mad)
{
	const struct ib_device_attr *attrs = &sport->sdev->device->attrs;
	struct ib_dm_ioc_profile *iocp = (struct ib_dm_ioc_profile *)mad->data;
	u32 sq_depth;

	memset(mad->data, 0, sizeof(mad->data));

	if (slot < 1 || slot > SRPT_IOC_SLOTS) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_INVALID_FIELD);
		return;
	}
	if (slot != SRPT_IOC_SLOT) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_NO_IOC);
		return;
	}

	sq_depth = min_t(u32, sport->port_attrib.srp_sq_size, attrs->max_qp_wr);

	iocp->guid = cpu_to_be64(srpt_service_guid);
	iocp->vendor_id = cpu_to_be32((attrs->vendor_id & 0xffffff) << 8);
	iocp->device_id = cpu_to_be32(attrs->vendor_part_id);
	iocp->device_version = cpu_to_be16(attrs->hw_ver);
	iocp->subsys_vendor_id = iocp->vendor_id;
	iocp->subsys_device_id = iocp->device_id;
	iocp->io_class = cpu_to_be16(SRP_REV16A_IB_IO_CLASS);
	iocp->io_subclass = cpu_to_be16(SRP_IO_SUBCLASS);
	iocp->protocol = cpu_to_be16(SRP_PROTOCOL);
	iocp->protocol_version = cpu_to_be16(SRP_PROTOCOL_VERSION);
	iocp->send_queue_depth = cpu_to_be16(min_t(u32, sq_depth, U16_MAX));
	iocp->rdma_read_depth = SRPT_RDMA_READ_DEPTH;
	iocp->send_size = cpu_to_be32(srp_max_req_size);
	iocp->rdma_size = cpu_to_be32(sport->port_attrib.srp_max_rdma_size);
	iocp->op_cap_mask = SRPT_OPCAP_ST | SRPT_OPCAP_SF | SRPT_OPCAP_RT |
			    SRPT_OPCAP_RF | SRPT_OPCAP_WT | SRPT_OPCAP_WF;
	iocp->num_svc_entries = 1;
	strscpy(iocp->id_string, "SCSI RDMA Protocol target",
		sizeof(iocp->id_string));
	mad->mad_hdr.status = 0;
}

/**
 * srpt_get_svc_entries() - answer a ServiceEntries query
 * @ioc_guid: I/O controller GUID, host byte order
 * @slot: controller slot (attribute modifier bits 31..16)
 * @hi: index of the last entry requested (bits 15..8)
 * @lo: index of the first entry requested (bits 7..0)
 * @mad: response MAD; its data area is overwritten
 *
 * A slot outside 1..SRPT_IOC_SLOTS is an invalid attribute modifier, as for
 * IOControllerProfile. An empty slot and a bad entry range get
 * %DM_MAD_STATUS_NO_IOC: the status existing initiators expect for a bad
 * range.
 */
static void srpt_get_svc_entries(u64 ioc_guid, u16 slot, u8 hi, u8 lo,
				 struct ib_dm_mad *mad)
{
	struct ib_dm_svc_entries *svc = (struct ib_dm_svc_entries *)mad->data;
	const unsigned int num_entries = 1;
	unsigned int i;

	memset(mad->data, 0, sizeof(mad->data));

	if (slot < 1 || slot > SRPT_IOC_SLOTS) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_INVALID_FIELD);
		return;
	}
	if (slot != SRPT_IOC_SLOT || hi < lo || hi >= num_entries ||
	    hi - lo >= SRPT_SVC_ENTRIES_PER_MAD) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_NO_IOC);
		return;
	}

	for (i = lo; i <= hi; i++) {
		struct ib_dm_svc_entry *e = &svc->service_entries[i - lo];

		snprintf(e->name, sizeof(e->name), "SRP.T10:%016llx",
			 ioc_guid);
		e->id = cpu_to_be64(ioc_guid);
	}
	mad->mad_hdr.status = 0;
}

/**
 * srpt_mgmt_method_get() - answer a device-management GET
 * @sp: HCA port the query arrived on
 * @rq_mad: the request
 * @rsp_mad: response MAD whose header was copied from @rq_mad; the data
 *	area and the status are filled in here
 */
static void srpt_mgmt_method_get(struct srpt_port *sp, struct ib_mad *rq_mad,
				 struct ib_dm_mad *rsp_mad)
{
	u32 attr_mod = be32_to_cpu(rq_mad->mad_hdr.attr_mod);

	switch (be16_to_cpu(rq_mad->mad_hdr.attr_id)) {
	case DM_ATTR_CLASS_PORT_INFO:
		srpt_get_class_port_info(rsp_mad);
		break;
	case DM_ATTR_IOU_INFO:
		srpt_get_iou(rsp_mad);
		break;
	case DM_ATTR_IOC_PROFILE:
		srpt_get_ioc(sp, attr_mod, rsp_mad);
		break;
	case DM_ATTR_SVC_ENTRIES:
		srpt_get_svc_entries(srpt_service_guid, attr_mod >> 16,
				     (attr_mod >> 8) & 0xff, attr_mod & 0xff,
				     rsp_mad);
		break;
	default:
		memset(rsp_mad->data, 0, sizeof(rsp_mad->data));
		rsp_mad->mad_hdr.status =
			cpu_to_be16(DM_MAD_STATUS_UNSUP_METHOD_ATTR);
		break;
	}
}

/**
 * srpt_mad_build_reply() - fill in the reply to a device-management MAD
 * @sport: HCA port the request arrived on
 * @rq_mad: the request
 * @rsp_mad: zeroed buffer for the reply
 *
 * SET of any attribute is refused because nothing here is settable.
 * Responses are never answered.
 *
 * Return: true if @rsp_mad holds a reply that should be sent.
 */
static bool srpt_mad_build_reply(struct srpt_port *sport,
				 struct ib_mad *rq_mad,
				 struct ib_dm_mad *rsp_mad)
{
	const struct ib_mad_hdr *hdr = &rq_mad->mad_hdr;

	if (hdr->base_version != IB_MGMT_BASE_VERSION ||
	    hdr->mgmt_class != IB_MGMT_CLASS_DEVICE_MGMT ||
	    (hdr->method & IB_MGMT_METHOD_RESP))
		return false;

	memcpy(&rsp_mad->mad_hdr, hdr, sizeof(rsp_mad->mad_hdr));
	rsp_mad->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	rsp_mad->mad_hdr.status = 0;

	switch (hdr->method) {
	case IB_MGMT_METHOD_GET:
		srpt_mgmt_method_get(sport, rq_mad, rsp_mad);
		break;
	case IB_MGMT_METHOD_SET:
		rsp_mad->mad_hdr.status =
			cpu_to_be16(DM_MAD_STATUS_UNSUP_METHOD_ATTR);
		break;
	default:
		rsp_mad->mad_hdr.status =
			cpu_to_be16(DM_MAD_STATUS_UNSUP_METHOD);
		break;
	}
	return true;
}

/**
 * srpt_mad_send_handler() - release a device-management reply once sent
 * @mad_agent: MAD agent that sent the reply
 * @mad_wc: send completion; its send buffer and address handle were
 *	allocated by srpt_mad_recv_handler()
 *
 * Called by the MAD layer from process context for successful, failed and
 * cancelled sends alike.
 */
static void srpt_mad_send_handler(struct ib_mad_agent *mad_agent,
				  struct ib_mad_send_wc *mad_wc)
{
	struct ib_mad_send_buf *send_buf = mad_wc->send_buf;

	if (send_buf->ah)
		rdma_destroy_ah(send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(send_buf);
}

/**
 * srpt_mad_recv_handler() - answer a received device-management MAD
 * @mad_agent: the agent srpt_register_mad_agent() registered; its context
 *	is the HCA port
 * @send_buf: unused; this agent never sends requests of its own
 * @mad_wc: the received MAD and its work completion
 *
 * The address handle back to the sender uses the received GRH, as RoCE
 * requires; srpt_mad_send_handler() frees it with the reply. Allocation or
 * post failures drop the reply: the requester retries.
 */
static void srpt_mad_recv_handler(struct ib_mad_agent *mad_agent,
				  struct ib_mad_send_buf *send_buf,
				  struct ib_mad_recv_wc *mad_wc)
{
	struct srpt_port *sport = mad_agent->context;
	struct ib_mad_send_buf *rsp;
	struct ib_ah *ah;
	int ret;

	if (mad_wc->mad_len < (int)sizeof(struct ib_mad))
		goto out;

	ah = ib_create_ah_from_wc(mad_agent->qp->pd, mad_wc->wc,
				  mad_wc->recv_buf.grh, mad_agent->port_num);
	if (IS_ERR(ah)) {
		pr_warn_ratelimited("%s-%u: no address handle for a DM reply (%ld)\n",
				    dev_name(&mad_agent->device->dev),
				    mad_agent->port_num, PTR_ERR(ah));
		goto out;
	}

	rsp = ib_create_send_mad(mad_agent, mad_wc->wc->src_qp,
				 mad_wc->wc->pkey_index, 0, IB_MGMT_DEVICE_HDR,
				 IB_MGMT_DEVICE_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp)) {
		pr_warn_ratelimited("%s-%u: no buffer for a DM reply (%ld)\n",
				    dev_name(&mad_agent->device->dev),
				    mad_agent->port_num, PTR_ERR(rsp));
		goto destroy_ah;
	}
	rsp->ah = ah;

	if (!srpt_mad_build_reply(sport, mad_wc->recv_buf.mad, rsp->mad))
		goto free_rsp;

	ret = ib_post_send_mad(rsp, NULL);
	if (ret) {
		pr_warn_ratelimited("%s-%u: posting a DM reply failed (%d)\n",
				    dev_name(&mad_agent->device->dev),
				    mad_agent->port_num, ret);
		goto free_rsp;
	}
	goto out;

free_rsp:
	ib_free_send_mad(rsp);
destroy_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out:
	ib_free_recv_mad(mad_wc);
}

/**
 * srpt_register_mad_agent() - start answering device-management MADs
 * @sport: HCA port
 *
 * On InfiniBand-link-layer ports the port advertises "device management
 * supported" (IB_PORT_DEVICE_MGMT_SUP) so that discovery tools query it.
 * Does nothing if the agent exists already, so that port refreshes can
 * call it again.
 *
 * Return: 0 on success or when there is nothing to do, else a negative
 * errno (logged; e.g. virtual functions cannot register). The caller may
 * carry on without the agent.
 */
static int srpt_register_mad_agent(struct srpt_port *sport)
{
	struct ib_device *device = sport->sdev->device;
	struct ib_port_modify port_modify = {
		.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};
	struct ib_mad_reg_req reg_req = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = IB_MGMT_BASE_VERSION,
	};
	struct ib_mad_agent *agent;
	int ret;

	if (sport->mad_agent || !rdma_cap_ib_mad(device, sport->port))
		return 0;

	set_bit(IB_MGMT_METHOD_GET, reg_req.method_mask);
	set_bit(IB_MGMT_METHOD_SET, reg_req.method_mask);

	agent = ib_register_mad_agent(device, sport->port, IB_QPT_GSI,
				      &reg_req, 0, srpt_mad_send_handler,
				      srpt_mad_recv_handler, sport, 0);
	if (IS_ERR(agent)) {
		ret = PTR_ERR(agent);
		pr_err("%s-%u: registering the device-management MAD agent failed (%d)\n",
		       dev_name(&device->dev), sport->port, ret);
		return ret;
	}

	if (rdma_protocol_ib(device, sport->port)) {
		ret = ib_modify_port(device, sport->port, 0, &port_modify);
		if (ret) {
			pr_err("%s-%u: enabling device management support failed (%d)\n",
			       dev_name(&device->dev), sport->port, ret);
			ib_unregister_mad_agent(agent);
			return ret;
		}
	}

	sport->mad_agent = agent;
	return 0;
}

/**
 * srpt_unregister_mad_agent() - stop answering device-management MADs
 * @sdev: SRPT HCA
 * @port_cnt: number of ports of @sdev whose agents to remove (1..port_cnt)
 *
 * ib_unregister_mad_agent() waits for running handlers and cancels unsent
 * replies.
 */
static void srpt_unregister_mad_agent(struct srpt_device *sdev, int port_cnt)
{
	struct ib_port_modify port_modify = {
		.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};
	struct srpt_port *sport;
	int i;

	for (i = 0; i < port_cnt && i < sdev->port_cnt; i++) {
		sport = &sdev->port[i];
		if (!sport->mad_agent)
			continue;
		if (rdma_protocol_ib(sdev->device, sport->port) &&
		    ib_modify_port(sdev->device, sport->port, 0, &port_modify))
			pr_warn("%s-%u: disabling device management support failed\n",
				dev_name(&sdev->device->dev), sport->port);
		ib_unregister_mad_agent(sport->mad_agent);
		sport->mad_agent = NULL;
	}
}

/* Channels: queue pair setup and teardown ------------------------------- */

/**
 * srpt_qp_event() - QP event callback function
 * @event: description of the event that occurred
 * @ptr: the channel, as passed at QP creation time
 */
static void srpt_qp_event(struct ib_event *event, void *ptr)
{
	struct srpt_rdma_ch *ch = ptr;

	pr_debug("%s: QP event %s (%d)\n", ch->sess_name,
		 ib_event_msg(event->event), event->event);
	switch (event->event) {
	case IB_EVENT_COMM_EST:
		if (ch->using_rdma_cm)
			rdma_notify(ch->rdma_cm_id, event->event);
		else
			ib_cm_notify(ch->ib_cm_id, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		break;
	default:
		break;
	}
}

/**
 * srpt_srq_event() - SRQ event callback function
 * @event: description of the event that occurred
 * @ctx: context pointer specified at SRQ creation time
 */
static void srpt_srq_event(struct ib_event *event, void *ctx)
{
	pr_debug("SRQ event %s (%d)\n", ib_event_msg(event->event),
		 event->event);
}

/**
 * srpt_ch_moves_qp() - whether the driver moves the channel's QP itself
 * @ch: SRPT RDMA channel
 *
 * Always for IB/CM. For RDMA/CM on InfiniBand and RoCE too, so that the
 * retry limits the initiator asked for are clamped (srpt_clamp_qp_attr());
 * on iWARP RDMA/CM moves the QP, and TCP does the retrying.
 *
 * Return: true when srpt_ch_qp_move() moves the QP to RTR and RTS.
 */
static bool srpt_ch_moves_qp(const struct srpt_rdma_ch *ch)
{
	return !ch->using_rdma_cm ||
		rdma_cap_ib_cm(ch->sport->sdev->device, ch->sport->port);
}

/**
 * srpt_clamp_qp_attr() - bound the send retries the initiator asked for
 * @attr: RTR or RTS attributes from the connection manager
 * @mask: their mask, updated
 *
 * The RNR retry count, retry count and local ACK timeout of the target's
 * QP come from the initiator's connection request (IBA 12.7.32 to 12.7.38).
 * An RNR retry count of 7 retries for ever and a timeout of 0 waits for
 * ever: a peer that asks for that and then posts no receives would keep
 * every command whose response cannot be sent, its data buffer and its
 * send-queue slots. The RNR retry count is limited to
 * %SRPT_MAX_RNR_RETRY and the timeout to %SRPT_MAX_ACK_TIMEOUT, so that
 * such a send fails and the channel closes. The transport retry count is
 * finite by IBA, but soft-RoCE never counts down a count of 7, so it is
 * limited to %SRPT_MAX_RETRY_CNT as well: one try less costs nothing on
 * other adapters. The connection manager would also load an alternate
 * path from the request, with a timeout of its own, and arm migration to
 * it; the login response accepts no failover, so neither is set.
 */
static void srpt_clamp_qp_attr(struct ib_qp_attr *attr, int *mask)
{
	*mask &= ~(IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE);
	if ((*mask & IB_QP_RNR_RETRY) && attr->rnr_retry > SRPT_MAX_RNR_RETRY)
		attr->rnr_retry = SRPT_MAX_RNR_RETRY;
	if ((*mask & IB_QP_RETRY_CNT) && attr->retry_cnt > SRPT_MAX_RETRY_CNT)
		attr->retry_cnt = SRPT_MAX_RETRY_CNT;
	if ((*mask & IB_QP_TIMEOUT) &&
	    (attr->timeout == 0 || attr->timeout > SRPT_MAX_ACK_TIMEOUT))
		attr->timeout = SRPT_MAX_ACK_TIMEOUT;
}

/**
 * srpt_ch_qp_move() - move a channel's queue pair to a new state
 * @ch: SRPT RDMA channel for which srpt_ch_moves_qp() holds
 * @qp: its queue pair
 * @state: IB_QPS_INIT, IB_QPS_RTR or IB_QPS_RTS
 *
 * The connection manager chooses the attributes for @state from the
 * connection; the RDMA READ depths it negotiated are limited to what this
 * device supports, and the retry limits by srpt_clamp_qp_attr().
 *
 * Return: 0 or a negative error code.
 */
static int srpt_ch_qp_move(struct srpt_rdma_ch *ch, struct ib_qp *qp,
			   enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	const struct ib_device_attr *dev;
	int mask, ret;

	if (ch->using_rdma_cm)
		ret = rdma_init_qp_attr(ch->rdma_cm_id, &attr, &mask);
	else
		ret = ib_cm_init_qp_attr(ch->ib_cm_id, &attr, &mask);
	if (ret)
		return ret;
	srpt_clamp_qp_attr(&attr, &mask);
	switch (state) {
	case IB_QPS_INIT:
		attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
		break;
	case IB_QPS_RTR:
		dev = &ch->sport->sdev->device->attrs;
		attr.max_dest_rd_atomic = min_t(int, attr.max_dest_rd_atomic,
						dev->max_qp_rd_atom);
		break;
	case IB_QPS_RTS:
		dev = &ch->sport->sdev->device->attrs;
		attr.max_rd_atomic = min_t(int, attr.max_rd_atomic,
					   dev->max_qp_init_rd_atom);
		break;
	default:
		break;
	}
	return ib_modify_qp(qp, &attr, mask);
}

/**
 * srpt_init_ch_qp() - move a new channel's queue pair to INIT
 * @ch: SRPT RDMA channel
 * @qp: its queue pair
 *
 * Return: 0 or a negative error code.
 */
static int srpt_init_ch_qp(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	return srpt_ch_qp_move(ch, qp, IB_QPS_INIT);
}

/**
 * srpt_ch_qp_rtr() - move a channel's queue pair to RTR
 *	(srpt_ch_moves_qp())
 * @ch: SRPT RDMA channel
 * @qp: its queue pair
 *
 * Done before the login response is sent, so that IUs the initiator sends
 * as soon as it has the response can be received.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_ch_qp_rtr(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	return srpt_ch_qp_move(ch, qp, IB_QPS_RTR);
}

/**
 * srpt_ch_qp_rts() - move a channel's queue pair to RTS
 *	(srpt_ch_moves_qp())
 * @ch: SRPT RDMA channel
 * @qp: its queue pair
 *
 * Return: 0 or a negative error code.
 */
static int srpt_ch_qp_rts(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	return srpt_ch_qp_move(ch, qp, IB_QPS_RTS);
}

/**
 * srpt_ch_qp_err() - move a channel's queue pair to the error state
 * @ch: SRPT RDMA channel
 *
 * Every outstanding work request then completes with a flush error.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_ch_qp_err(struct srpt_rdma_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
}

/**
 * srpt_comp_vectors() - completion vectors a channel's CQ can be on
 * @dev: the HCA
 *
 * The RDMA core's CQ pool uses vector @vec % min(num_comp_vectors, online
 * CPUs) for the vector @vec asked for (ib_cq_pool_get()), so only vectors
 * below that count are what was asked for; comp_v_mask names no vector
 * from %SRPT_COMP_V_BITS up.
 *
 * Return: the number of vectors, at least 1.
 */
static u32 srpt_comp_vectors(const struct ib_device *dev)
{
	u32 n = min_t(u32, max(dev->num_comp_vectors, 1), num_online_cpus());

	return clamp_t(u32, n, 1, SRPT_COMP_V_BITS);
}

/**
 * srpt_pick_comp_vector() - the completion vector of a new channel
 * @mask: comp_v_mask of the channel's port
 * @nvec: completion vectors of the device, 1 to %SRPT_COMP_V_BITS
 * @seq: turn of the channel among its port's channels
 *
 * The vectors of the device that @mask allows take turns, in the order of
 * their numbers. When @mask allows none of them (a mask saved on a machine
 * with more vectors, or CPUs gone offline), every vector of the device
 * takes its turn.
 *
 * Return: a vector below @nvec.
 */
static u32 srpt_pick_comp_vector(const unsigned long *mask, u32 nvec,
				 u32 seq)
{
	u32 allowed = bitmap_weight(mask, nvec);

	if (!allowed)
		return seq % nvec;
	return find_nth_bit(mask, nvec, seq % allowed);
}

/**
 * srpt_next_comp_vector() - the completion vector of a port's new channel
 * @sport: the port
 * @nvec: completion vectors of the device, srpt_comp_vectors()
 *
 * Each call is the next turn of the port's channels: they take the vectors
 * that the port's comp_v_mask allows in turn, whatever the channels of the
 * device's other port do (with one count for the device, channels logging
 * in to both ports alternately would leave each port every other vector).
 * A channel calls this once, so a retry of its queues does not skip a turn.
 *
 * Return: a vector below @nvec.
 */
static u32 srpt_next_comp_vector(struct srpt_port *sport, u32 nvec)
{
	u32 vec;

	spin_lock(&sport->comp_v_lock);
	vec = srpt_pick_comp_vector(sport->port_attrib.comp_v_mask, nvec,
				    sport->comp_v_seq++);
	spin_unlock(&sport->comp_v_lock);
	return vec;
}

/**
 * srpt_alloc_cq() - get a completion queue for a channel
 * @ch: SRPT RDMA channel with sq_size and rq_size set
 * @vec: the completion vector, from srpt_next_comp_vector()
 *
 * Return: 0 or -ENOMEM.
 */
static int srpt_alloc_cq(struct srpt_rdma_ch *ch, u32 vec)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 recv = ch->use_srq ? sdev->srq_size : ch->rq_size;

	/* + the zero-length write and ib_drain_rq()'s receive */
	ch->cq_size = ch->sq_size + recv + 2;
	ch->cq = ib_cq_pool_get(sdev->device, ch->cq_size, vec,
				IB_POLL_WORKQUEUE);
	if (IS_ERR(ch->cq)) {
		int ret = PTR_ERR(ch->cq);

		ch->cq = NULL;
		return ret;
	}
	ch->comp_vector = ch->cq->comp_vector;
	return 0;
}

/**
 * srpt_ch_rdma_ctxs() - RDMA contexts, and so memory regions, of a channel
 * @ch: SRPT RDMA channel with rq_size set
 *
 * On iWARP every RDMA READ, so every write command, registers its buffer:
 * rdma_rw takes one memory region per page list (at most 256 pages, its own
 * limit) of each descriptor's slice from the QP's pool, whose size is
 * max_rdma_ctxs. Besides one per credit the pool holds what the largest
 * command that the send queue admits (SRPT_MAX_DESCS descriptors,
 * SRPT_MAX_DATA_LEN bytes; see srpt_ch_sq_size()) needs: with fewer, such a
 * command could never get its regions and would get TASK SET FULL on
 * every retry. Elsewhere rdma_rw registers memory only for some adapters'
 * long RDMA READ lists (max_sgl_rd) or when forced for debugging; those
 * keep one context per credit.
 *
 * Return: the value for ib_qp_init_attr.cap.max_rdma_ctxs.
 */
static u32 srpt_ch_rdma_ctxs(const struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = ch->sport->sdev->device;
	u32 pages = min(dev->attrs.max_fast_reg_page_list_len, 256U);

	if (!rdma_protocol_iwarp(dev, ch->sport->port) || !pages)
		return ch->rq_size;
	return ch->rq_size + SRPT_MAX_DESCS +
		DIV_ROUND_UP(SRPT_MAX_DATA_LEN / PAGE_SIZE + 2 * SRPT_MAX_DESCS,
			     pages);
}

/**
 * srpt_sq_slots() - send-queue slots the commands of a channel may take
 * @sq_size: the send queue size that the channel's CQ was sized for
 * @max_send_wr: what the new QP holds: rdma_rw adds room for its memory
 *	registrations and a device may round up or, at its limit, down
 *
 * Any slot may carry a signaled work request, and so a completion, and the
 * CQ has room for @sq_size of those: a QP that holds more must not be
 * filled beyond @sq_size. One work request more than the slots must always
 * fit for the zero-length write of srpt_close_ch().
 *
 * Return: the smaller of @sq_size and @max_send_wr - 1; 0 when the QP
 * holds nothing.
 */
static u32 srpt_sq_slots(u32 sq_size, u32 max_send_wr)
{
	return max_send_wr ? min(sq_size, max_send_wr - 1) : 0;
}

/**
 * srpt_destroy_qp() - destroy the queue pair of a channel
 * @ch: SRPT RDMA channel
 *
 * A ring-mode QP is drained first: destroying a QP with receives posted
 * makes some providers (soft-iWARP) complete them with flush errors in the
 * channel's CQ, a pool CQ that outlives the channel, so srpt_recv_done()
 * would meet a freed QP and ring. ib_drain_rq() has those completions
 * handled while both exist; a channel that is still logging in only
 * records the close that srpt_wc_error() asks for. A QP without posted
 * receives may still be in RESET, which cannot move to the error state.
 */
static void srpt_destroy_qp(struct srpt_rdma_ch *ch)
{
	if (!ch->qp)
		return;
	if (ch->ring_posted)
		ib_drain_rq(ch->qp);
	ch->ring_posted = false;
	if (ch->using_rdma_cm && ch->rdma_cm_id->qp == ch->qp)
		rdma_destroy_qp(ch->rdma_cm_id);
	else
		ib_destroy_qp(ch->qp);
	ch->qp = NULL;
}

/**
 * srpt_create_qp() - create the queue pair of a channel
 * @ch: SRPT RDMA channel with its CQ
 *
 * Return: 0, -ERANGE when the QP holds fewer send work requests than a
 * channel needs at least (it is destroyed again), or another negative
 * error code.
 */
static int srpt_create_qp(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct ib_qp_init_attr init = {};
	u32 slots;
	int ret;

	init.event_handler = srpt_qp_event;
	init.qp_context = ch;
	init.send_cq = ch->cq;
	init.recv_cq = ch->cq;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	init.port_num = ch->sport->port;
	init.cap.max_send_wr = ch->sq_size;
	init.cap.max_rdma_ctxs = srpt_ch_rdma_ctxs(ch);
	init.cap.max_send_sge = min_t(u32, sdev->device->attrs.max_send_sge,
				      SRPT_MAX_SEND_SGE);
	init.cap.max_recv_sge = 1;
	if (ch->use_srq)
		init.srq = sdev->srq;
	else
		init.cap.max_recv_wr = ch->rq_size + 1;	/* ib_drain_rq() */

	if (!srpt_ch_moves_qp(ch)) {
		ret = rdma_create_qp(ch->rdma_cm_id, sdev->pd, &init);
		ch->qp = ret ? NULL : ch->rdma_cm_id->qp;
	} else {
		ch->qp = ib_create_qp(sdev->pd, &init);
		ret = PTR_ERR_OR_ZERO(ch->qp);
		if (ret)
			ch->qp = NULL;
	}
	if (ret)
		return ret;
	slots = srpt_sq_slots(ch->sq_size, init.cap.max_send_wr);
	if (slots < SRPT_MIN_SQ_SIZE) {
		/* A smaller request cannot get more; see srpt_create_ch_ib(). */
		srpt_destroy_qp(ch);
		return -ERANGE;
	}
	ch->sq_size = slots;
	ch->sq_wr_avail = slots;
	return 0;
}

/**
 * srpt_create_ch_ib() - create the queues of a channel
 * @ch: SRPT RDMA channel
 *
 * The CQ is on a completion vector that the port's comp_v_mask allows,
 * the same for every try. On failure ch->qp and ch->cq are NULL, so
 * srpt_destroy_ch_ib() is a no-op.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_create_ch_ib(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 vec = srpt_next_comp_vector(ch->sport,
					srpt_comp_vectors(sdev->device));
	int i, ret;

	for (;;) {
		ret = srpt_alloc_cq(ch, vec);
		if (ret)
			return ret;
		ret = srpt_create_qp(ch);
		if (!ret)
			break;
		ib_cq_pool_put(ch->cq, ch->cq_size);
		ch->cq = NULL;
		pr_info_ratelimited("%s: creating a QP with %u send WRs failed (%d)\n",
				    ch->sess_name, ch->sq_size, ret);
		if (ret == -ERANGE || ch->sq_size <= 2 * SRPT_MIN_SQ_SIZE)
			return ret;
		ch->sq_size /= 2;
	}
	if (srpt_ch_moves_qp(ch)) {
		ret = srpt_init_ch_qp(ch, ch->qp);
		if (ret)
			goto err;
	}
	if (!ch->use_srq) {
		ch->ring_posted = true;
		for (i = 0; i < ch->rq_size; i++) {
			ret = srpt_post_recv(sdev, ch, ch->ioctx_recv_ring[i]);
			if (ret)
				goto err;
		}
	}
	return 0;

err:
	srpt_destroy_qp(ch);
	ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->cq = NULL;
	return ret;
}

/**
 * srpt_destroy_ch_ib() - release the queues of a channel
 * @ch: SRPT RDMA channel whose work requests have all completed
 */
static void srpt_destroy_ch_ib(struct srpt_rdma_ch *ch)
{
	srpt_destroy_qp(ch);
	if (ch->cq) {
		ib_cq_pool_put(ch->cq, ch->cq_size);
		ch->cq = NULL;
	}
}

/**
 * srpt_zerolength_write() - post a zero-length RDMA WRITE on a channel
 * @ch: SRPT RDMA channel whose QP is in the error state
 *
 * Its flush completion arrives after those of every send-queue work request
 * posted before it, so it marks the point where the send queue is drained.
 *
 * Return: 0 or a negative error code from ib_post_send().
 */
static int srpt_zerolength_write(struct srpt_rdma_ch *ch)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.next = NULL,
			.wr_cqe = &ch->zw_cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};

	ch->zw_cqe.done = srpt_zerolength_write_done;
	return ib_post_send(ch->qp, &wr.wr, NULL);
}

/* Channels: allocation and freeing -------------------------------------- */

/**
 * srpt_ch_sq_size() - send queue size of a new channel
 * @attr_sq: the srp_sq_size attribute of the port
 * @attrs: device attributes
 * @credits: credits the channel grants
 *
 * A channel never has more than @credits commands in flight, so it needs
 * SRPT_SQ_WR_PER_CREDIT slots per credit (the response and a few RDMA
 * work requests each), and enough for the largest transfer one command may
 * describe, in as many descriptors as it may have. A send queue beyond that
 * only costs memory: with the default attribute of 4096 it would be about
 * three times the size. Only a queue made smaller than this (by the
 * attribute or the device) refuses a command that needs more work requests
 * than it holds.
 *
 * Return: the smaller of @attr_sq, the device limit and what the channel
 * can use.
 */
static u32 srpt_ch_sq_size(u32 attr_sq, const struct ib_device_attr *attrs,
			   u32 credits)
{
	u32 sge = min_t(u32, SRPT_MAX_SEND_SGE,
			min(attrs->max_send_sge, attrs->max_sge_rd));
	u32 need;

	/*
	 * Each of up to SRPT_MAX_DESCS descriptors maps its own slice of the
	 * buffer: it touches up to two pages more than its length fills and
	 * rounds its work requests up on its own.
	 */
	sge = max(sge, 1U);
	need = DIV_ROUND_UP(SRPT_MAX_DATA_LEN / PAGE_SIZE + 2 * SRPT_MAX_DESCS,
			    sge) + SRPT_MAX_DESCS + 1;
	need = max(need, credits * SRPT_SQ_WR_PER_CREDIT);
	return min_t(u32, min_t(u32, attr_sq, attrs->max_qp_wr), need);
}

/**
 * srpt_ch_set_iu_lens() - IU lengths of a new channel
 * @ch: the new channel
 * @req: the login request, already validated
 *
 * Every receive buffer, ring or SRQ, holds srp_max_req_size bytes, and the
 * login response promises exactly that as the maximum initiator-to-target
 * IU length: an initiator may send any IU up to it, even when it asked for
 * less (SRP-2: the response field is the largest IU the target accepts on
 * the channel). Target-to-initiator IUs are limited by what the initiator
 * asked for.
 */
static void srpt_ch_set_iu_lens(struct srpt_rdma_ch *ch,
				const struct srp_login_req *req)
{
	ch->max_it_iu_len = srp_max_req_size;
	ch->max_ti_iu_len = be32_to_cpu(req->req_it_iu_len);
}

/**
 * srpt_ch_recv_align() - where immediate data starts in a receive buffer
 * @ch: SRPT RDMA channel with its sizes set
 *
 * Return: the offset of each receive buffer in its allocation, so that
 * immediate data starts on a %SRPT_IMM_ALIGN boundary.
 */
static u32 srpt_ch_recv_align(const struct srpt_rdma_ch *ch)
{
	if (!ch->imm_data_offset)
		return 0;
	return (SRPT_IMM_ALIGN - ch->imm_data_offset % SRPT_IMM_ALIGN) %
		SRPT_IMM_ALIGN;
}

/**
 * srpt_buf_footprint() - memory a ring buffer takes
 * @size: bytes of the buffer
 *
 * srpt_cache_get() aligns objects to 512 bytes; an object larger than a
 * page takes, at worst, a block of pages of its own (the next power of
 * two).
 *
 * Return: the bytes charged for one buffer of @size bytes.
 */
static u64 srpt_buf_footprint(u32 size)
{
	if (size <= PAGE_SIZE)
		return ALIGN(size, SRPT_IMM_ALIGN);
	return PAGE_SIZE << get_order(size);
}

/**
 * srpt_ch_ring_bytes() - memory of a channel's rings
 * @ch: SRPT RDMA channel with its sizes set
 *
 * A send context with its response buffer per credit and, without an
 * SRQ, a receive context with its receive buffer per credit. The size of
 * a receive buffer is set by srp_max_req_size (and the immediate data
 * alignment), not by the initiator.
 *
 * Return: the bytes charged for the rings srpt_alloc_ch_rings() allocates.
 */
static u64 srpt_ch_ring_bytes(const struct srpt_rdma_ch *ch)
{
	u64 per_ctx = sizeof(struct srpt_send_ioctx) +
		srpt_buf_footprint(ch->max_rsp_size);

	if (!ch->use_srq)
		per_ctx += sizeof(struct srpt_recv_ioctx) +
			srpt_buf_footprint(srpt_ch_recv_align(ch) +
					   ch->max_it_iu_len);
	return per_ctx * ch->rq_size;
}

/**
 * srpt_ring_budget() - ring-buffer budget of the module
 * @ram: bytes of RAM of the machine
 *
 * The channel limits count channels; this bounds their memory. The rings
 * of all channels of all HCAs, closing ones included, may take a quarter
 * of RAM, at least %SRPT_MIN_RING_BUDGET (two channels of the largest
 * kind). A login beyond it is refused with INSUFFICIENT RESOURCES.
 *
 * Return: the budget in bytes.
 */
static u64 srpt_ring_budget(u64 ram)
{
	return max_t(u64, ram >> SRPT_RING_BUDGET_SHIFT, SRPT_MIN_RING_BUDGET);
}

/**
 * srpt_charge_upto() - add bytes to a counter while it stays within a limit
 * @counter: bytes in use
 * @bytes: bytes to add
 * @limit: the most @counter may then hold
 *
 * Return: true when they fit and were added.
 */
static bool srpt_charge_upto(atomic64_t *counter, u64 bytes, u64 limit)
{
	s64 old = atomic64_read(counter);

	do {
		if (old + bytes > limit)
			return false;
	} while (!atomic64_try_cmpxchg(counter, &old, old + bytes));
	return true;
}

/**
 * srpt_ring_charge() - take a channel's ring bytes from the budget
 * @ch: SRPT RDMA channel with its sizes set, no rings yet
 * @credit: bytes of the channels that @ch's SINGLE login replaces, which
 *	are still charged until their release; 0 for a MULTI login
 *
 * A SINGLE login may go beyond the budget by what it replaces: an
 * initiator that reconnects after a crash must get its channels back even
 * while the target still holds the old ones.
 *
 * Return: true when they fit and were taken (@ch->ring_charge set).
 */
static bool srpt_ring_charge(struct srpt_rdma_ch *ch, u64 credit)
{
	u64 bytes = srpt_ch_ring_bytes(ch);

	if (!srpt_charge_upto(&srpt_ring_bytes, bytes, srpt_ring_limit + credit))
		return false;
	ch->ring_charge = bytes;
	return true;
}

/**
 * srpt_alloc_ch_rings() - allocate the send and receive rings of a channel
 * @ch: SRPT RDMA channel with its sizes set
 * @credit: see srpt_ring_charge()
 *
 * Receive buffers are placed so that immediate data starts on a 512-byte
 * boundary. The rings count against the ring budget.
 *
 * Return: 0, -ENOSPC when the budget has no room for them, or -ENOMEM.
 */
static int srpt_alloc_ch_rings(struct srpt_rdma_ch *ch, u64 credit)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 align = srpt_ch_recv_align(ch);
	int i;

	if (!srpt_ring_charge(ch, credit))
		return -ENOSPC;
	ch->rsp_buf_cache = srpt_cache_get(ch->max_rsp_size);
	if (!ch->rsp_buf_cache)
		return -ENOMEM;
	ch->ioctx_ring = (struct srpt_send_ioctx **)
		srpt_alloc_ioctx_ring(sdev, ch->rq_size,
				      sizeof(*ch->ioctx_ring[0]),
				      ch->rsp_buf_cache, 0, DMA_TO_DEVICE);
	if (!ch->ioctx_ring)
		return -ENOMEM;
	for (i = 0; i < ch->rq_size; i++) {
		ch->ioctx_ring[i]->ch = ch;
		srpt_cmd_state_done(ch->ioctx_ring[i]);
		list_add_tail(&ch->ioctx_ring[i]->free_list, &ch->free_list);
	}
	ch->n_free = ch->rq_size;
	if (ch->use_srq)
		return 0;

	ch->req_buf_cache = srpt_cache_get(align + ch->max_it_iu_len);
	if (!ch->req_buf_cache)
		return -ENOMEM;
	ch->ioctx_recv_ring = (struct srpt_recv_ioctx **)
		srpt_alloc_ioctx_ring(sdev, ch->rq_size,
				      sizeof(*ch->ioctx_recv_ring[0]),
				      ch->req_buf_cache, align,
				      DMA_FROM_DEVICE);
	if (!ch->ioctx_recv_ring)
		return -ENOMEM;
	for (i = 0; i < ch->rq_size; i++)
		INIT_LIST_HEAD(&ch->ioctx_recv_ring[i]->wait_list);
	return 0;
}

/**
 * srpt_init_holders() - set up the empty holder registry of a device
 * @sdev: the device
 */
static void srpt_init_holders(struct srpt_device *sdev)
{
	spin_lock_init(&sdev->holder_lock);
	INIT_LIST_HEAD(&sdev->holder_list);
	sdev->holders = 0;
	atomic64_set(&sdev->holders_mark, 0);
}

/**
 * srpt_holders_hwm() - a device's high-water mark of holders
 * @sdev: the device
 *
 * Return: the low half of srpt_device.holders_mark.
 */
static unsigned int srpt_holders_hwm(struct srpt_device *sdev)
{
	return lower_32_bits(atomic64_read(&sdev->holders_mark));
}

/**
 * srpt_raise_holders_hwm() - count a holder registration and raise the
 *	device's high-water mark of holders
 * @sdev: the device, its holder_lock held
 * @n: the holders it has now
 *
 * Every registration changes srpt_device.holders_mark, also when the mark
 * stays, so that a lowering decided before it cannot be stored after it
 * (srpt_lower_holders_hwm()).
 */
static void srpt_raise_holders_hwm(struct srpt_device *sdev, unsigned int n)
{
	s64 old = atomic64_read(&sdev->holders_mark), new;

	lockdep_assert_held(&sdev->holder_lock);
	do {
		new = (s64)((upper_32_bits(old) + 1ULL) << 32 |
			    max(lower_32_bits(old), n));
	} while (!atomic64_try_cmpxchg(&sdev->holders_mark, &old, new));
}

/**
 * srpt_find_holder() - look up the holder of an initiator address
 * @sdev: the device, its holder_lock held
 * @name: the address, as in srpt_rdma_ch.peer
 *
 * Return: the holder, or NULL.
 */
static struct srpt_holder *srpt_find_holder(struct srpt_device *sdev,
					    const char *name)
{
	struct srpt_holder *h;

	lockdep_assert_held(&sdev->holder_lock);
	list_for_each_entry(h, &sdev->holder_list, entry) {
		if (!strcmp(h->name, name))
			return h;
	}
	return NULL;
}

/**
 * srpt_get_holder() - take a reference to the holder of an address
 * @sdev: the device
 * @name: the address of a new channel (srpt_rdma_ch.peer)
 *
 * The first channel from an address registers a holder for it and raises
 * the device's high-water mark of holders; its last channel removes it
 * (srpt_put_holder()). Holders are therefore bounded by channels, which
 * the ring budget bounds (the channel limits are per address, and an
 * initiator may claim many addresses). The addresses are compared whole,
 * in a list: logins are rare and serialised.
 *
 * Return: the holder, or NULL when out of memory.
 */
static struct srpt_holder *srpt_get_holder(struct srpt_device *sdev,
					   const char *name)
{
	struct srpt_holder *fresh, *h;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	spin_lock(&sdev->holder_lock);
	h = srpt_find_holder(sdev, name);
	if (!h && fresh) {
		h = fresh;
		fresh = NULL;
		strscpy(h->name, name, sizeof(h->name));
		list_add_tail(&h->entry, &sdev->holder_list);
		WRITE_ONCE(sdev->holders, sdev->holders + 1);
		srpt_raise_holders_hwm(sdev, sdev->holders);
	}
	if (h)
		h->refs++;
	spin_unlock(&sdev->holder_lock);
	kfree(fresh);
	return h;
}

/**
 * srpt_put_holder() - drop a channel's reference to its holder
 * @sdev: the device
 * @h: the holder, or NULL
 *
 * Called once the channel can charge nothing more and its kept buffers
 * are freed (srpt_free_ch_rings()), so the last reference finds the
 * holder empty.
 */
static void srpt_put_holder(struct srpt_device *sdev, struct srpt_holder *h)
{
	if (!h)
		return;
	spin_lock(&sdev->holder_lock);
	if (--h->refs) {
		spin_unlock(&sdev->holder_lock);
		return;
	}
	list_del(&h->entry);
	WRITE_ONCE(sdev->holders, sdev->holders - 1);
	spin_unlock(&sdev->holder_lock);
	WARN_ON_ONCE(atomic64_read(&h->held));
	kfree(h);
}

/**
 * srpt_free_ch_rings() - free the send and receive rings of a channel
 * @ch: SRPT RDMA channel
 *
 * Its commands are gone, so once the kept buffers are freed the channel
 * holds nothing of the data-buffer budget and drops its holder. That is
 * done here rather than with the channel's memory: the release still
 * counts in its port (srpt_put_port_ch()), so the device and its holder
 * registry are still there, which a late reference to the channel
 * cannot promise.
 */
static void srpt_free_ch_rings(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	int i;

	for (i = 0; ch->ioctx_ring && i < ch->rq_size; i++)
		srpt_free_kept_buf(ch->ioctx_ring[i]);
	srpt_put_holder(sdev, ch->holder);
	ch->holder = NULL;
	srpt_free_ioctx_ring((struct srpt_ioctx **)ch->ioctx_ring, sdev,
			     ch->rq_size, ch->rsp_buf_cache, DMA_TO_DEVICE);
	ch->ioctx_ring = NULL;
	srpt_free_ioctx_ring((struct srpt_ioctx **)ch->ioctx_recv_ring, sdev,
			     ch->rq_size, ch->req_buf_cache, DMA_FROM_DEVICE);
	ch->ioctx_recv_ring = NULL;
	srpt_cache_put(ch->rsp_buf_cache);
	ch->rsp_buf_cache = NULL;
	srpt_cache_put(ch->req_buf_cache);
	ch->req_buf_cache = NULL;
	atomic64_sub(ch->ring_charge, &srpt_ring_bytes);
	ch->ring_charge = 0;
}

/**
 * srpt_alloc_ch() - allocate a channel for a login request
 * @sport: port the login arrived on
 * @req: the login request, already validated
 * @ib_cm_id: IB/CM connection, or NULL
 * @rdma_cm_id: RDMA/CM connection, or NULL
 * @src_addr: initiator name used for the ACL lookup
 * @credit: see srpt_ring_charge()
 *
 * Return: the channel with its rings, or an ERR_PTR().
 */
static struct srpt_rdma_ch *srpt_alloc_ch(struct srpt_port *sport,
					  const struct srp_login_req *req,
					  struct ib_cm_id *ib_cm_id,
					  struct rdma_cm_id *rdma_cm_id,
					  const char *src_addr, u64 credit)
{
	struct srpt_device *sdev = sport->sdev;
	const struct ib_device_attr *attrs = &sdev->device->attrs;
	struct srpt_rdma_ch *ch;
	u16 imm_off;
	int ret;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return ERR_PTR(-ENOMEM);
	ch->sport = sport;
	ch->ib_cm_id = ib_cm_id;
	ch->rdma_cm_id = rdma_cm_id;
	ch->using_rdma_cm = rdma_cm_id;
	kref_init(&ch->kref);
	spin_lock_init(&ch->recv_lock);
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->free_list);
	INIT_LIST_HEAD(&ch->rw_wait_list);
	INIT_LIST_HEAD(&ch->cmd_wait_list);
	INIT_LIST_HEAD(&ch->list);
	INIT_WORK(&ch->release_work, srpt_release_channel_work);
	INIT_DELAYED_WORK(&ch->connect_work, srpt_connect_timeout);
	ch->progress_cqe.done = srpt_progress_done;
	ch->state = CH_CONNECTING;
	ch->login_busy = true;
	strscpy(ch->sess_name, src_addr, sizeof(ch->sess_name));
	strscpy(ch->peer, src_addr, sizeof(ch->peer));

	srpt_ch_set_iu_lens(ch, req);
	ch->max_rsp_size = sport->port_attrib.srp_max_rsp_size;
	ch->use_srq = sport->port_attrib.use_srq && sdev->srq;
	/* A ring needs one receive more for ib_drain_rq(); srpt_create_qp(). */
	ch->rq_size = clamp_t(int, attrs->max_qp_wr - !ch->use_srq, 1,
			      SRPT_MAX_RQ_SIZE);
	ch->sq_size = srpt_ch_sq_size(sport->port_attrib.srp_sq_size, attrs,
				      ch->rq_size);
	imm_off = be16_to_cpu(req->imm_data_offset);
	if ((req->req_flags & SRP_IMMED_REQUESTED) &&
	    imm_off >= SRPT_MIN_IMM_DATA_OFFSET && imm_off < ch->max_it_iu_len)
		ch->imm_data_offset = imm_off;

	ret = srpt_alloc_ch_rings(ch, credit);
	if (!ret) {
		ch->holder = srpt_get_holder(sdev, ch->peer);
		if (!ch->holder)
			ret = -ENOMEM;
	}
	if (ret) {
		srpt_free_ch_rings(ch);
		kfree(ch);
		return ERR_PTR(ret);
	}
	return ch;
}

/**
 * srpt_free_ch() - free a channel's memory once the last reference is gone
 * @kref: the channel's reference count
 */
static void srpt_free_ch(struct kref *kref)
{
	kfree(container_of(kref, struct srpt_rdma_ch, kref));
}

/* Channels: life cycle -------------------------------------------------- */

static DECLARE_WAIT_QUEUE_HEAD(srpt_ch_released_wq);

/**
 * srpt_ch_advance() - move a channel forward to a new state
 * @ch: SRPT RDMA channel
 * @new: the new state
 *
 * Return: true if the channel was in an earlier state and now is in @new.
 */
static bool srpt_ch_advance(struct srpt_rdma_ch *ch, enum srpt_ch_state new)
{
	enum srpt_ch_state old;
	unsigned long flags;
	bool moved = false;

	spin_lock_irqsave(&ch->recv_lock, flags);
	old = ch->state;
	if (old < new) {
		ch->state = new;
		moved = true;
		trace_srpt_ch_state(ch->peer, ch->cid, old, new);
	}
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	return moved;
}

/**
 * srpt_set_rtu_pending() - record whether a channel's RTU is still to come
 * @ch: SRPT RDMA channel
 * @pending: true once the login response is out, false when the connection
 *	manager reports the RTU or the end of the connection
 *
 * Clearing it wakes a release waiting in srpt_wait_rtu().
 */
static void srpt_set_rtu_pending(struct srpt_rdma_ch *ch, bool pending)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&ch->recv_lock, flags);
	was = ch->rtu_pending;
	ch->rtu_pending = pending;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	if (was && !pending)
		wake_up_all(&srpt_ch_released_wq);
}

/**
 * srpt_rtu_pending() - whether a channel's RTU is still to come
 * @ch: SRPT RDMA channel
 *
 * Side-effect free, for a wait_event() condition.
 *
 * Return: @ch->rtu_pending.
 */
static bool srpt_rtu_pending(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool pending;

	spin_lock_irqsave(&ch->recv_lock, flags);
	pending = ch->rtu_pending;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	return pending;
}

/**
 * srpt_iwarp_ch() - whether a channel's disconnect waits for its release
 * @ch: SRPT RDMA channel
 *
 * srpt_close_ch() runs in RDMA/CM callbacks (a SINGLE login closes the
 * other channels of its nexus). On iWARP, rdma_disconnect() of a channel
 * whose accept is still in progress waits for an event that RDMA/CM
 * delivers from the same ordered work queue as the callback, which would
 * never come: such a channel is disconnected by srpt_rdma_cm_disconnect()
 * from its release work instead. On InfiniBand and RoCE the DREQ goes out
 * at once, as the initiator expects.
 *
 * Return: true for an RDMA/CM channel on an iWARP port.
 */
static bool srpt_iwarp_ch(const struct srpt_rdma_ch *ch)
{
	return ch->using_rdma_cm &&
		rdma_protocol_iwarp(ch->sport->sdev->device, ch->sport->port);
}

/**
 * srpt_disconnect_ch() - tell the initiator that the channel is going away
 * @ch: SRPT RDMA channel
 *
 * An iWARP channel is told later, from its release work (srpt_iwarp_ch()),
 * an IB/CM channel whose RTU is still to come once the RTU is there.
 */
static void srpt_disconnect_ch(struct srpt_rdma_ch *ch)
{
	/* A channel without a connection: the KUnit tests' fake channels. */
	if (!ch->rdma_cm_id && !ch->ib_cm_id)
		return;
	if (ch->using_rdma_cm) {
		if (!srpt_iwarp_ch(ch))
			rdma_disconnect(ch->rdma_cm_id);
		return;
	}
	if (!ib_send_cm_dreq(ch->ib_cm_id, NULL, 0)) {
		srpt_set_rtu_pending(ch, false);
		return;
	}
	/*
	 * No DREQ before the RTU. A REJ now would be lost on an initiator
	 * that has sent its RTU: the connection stays until the RTU, which
	 * disconnects again (srpt_wait_rtu()).
	 */
	if (!srpt_rtu_pending(ch))
		ib_send_cm_rej(ch->ib_cm_id, IB_CM_REJ_CONSUMER_DEFINED,
			       NULL, 0, NULL, 0);
}

/**
 * srpt_rdma_cm_disconnect() - tell an iWARP initiator that the channel is
 *	going away
 * @ch: SRPT RDMA channel, closed, not yet released
 *
 * Called from the channel's release work, outside every RDMA/CM callback
 * and without locks (see srpt_iwarp_ch()). For a connection that the
 * initiator or the connection manager already ended it changes nothing.
 */
static void srpt_rdma_cm_disconnect(struct srpt_rdma_ch *ch)
{
	if (ch->rdma_cm_id && srpt_iwarp_ch(ch))
		rdma_disconnect(ch->rdma_cm_id);
}

/**
 * srpt_queue_release() - mark a channel disconnected and queue its release
 * @ch: SRPT RDMA channel
 */
static void srpt_queue_release(struct srpt_rdma_ch *ch)
{
	if (srpt_ch_advance(ch, CH_DISCONNECTED))
		queue_work(srpt_wq, &ch->release_work);
}

/**
 * srpt_close_deferred() - hold back the close of a channel whose login is
 *	being answered
 * @ch: SRPT RDMA channel
 * @why: the reason, a string constant
 *
 * LIO may close a session as soon as srpt_setup_session() created it (its
 * ACL removed: srpt has no queue-depth attribute), while srpt_cm_req_recv()
 * still joins the channel to its nexus and sends the login response on
 * the channel's QP and connection. Closing the channel then would let its
 * release run under the login. LIO asks only once, so the first reason is
 * kept and srpt_login_end() closes the channel.
 *
 * Return: true when the close was recorded for srpt_login_end().
 */
static bool srpt_close_deferred(struct srpt_rdma_ch *ch, const char *why)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&ch->recv_lock, flags);
	busy = ch->login_busy;
	if (busy && !ch->close_why)
		ch->close_why = why;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	return busy;
}

/**
 * srpt_close_ch() - close an RDMA channel
 * @ch: SRPT RDMA channel
 * @why: the reason, for the kernel log
 *
 * The completion of the zero-length write queues the release of the
 * channel. Safe to call from any context that may sleep, RDMA/CM and IB/CM
 * callbacks included, more than once. During the channel's login the close
 * waits for the login's end (srpt_close_deferred()).
 *
 * Return: true if this call started closing the channel or recorded the
 * close for the end of its login, false if it was already being closed.
 */
static bool srpt_close_ch(struct srpt_rdma_ch *ch, const char *why)
{
	int ret;

	if (srpt_close_deferred(ch, why))
		return true;
	if (!srpt_ch_advance(ch, CH_DISCONNECTING))
		return false;
	kref_get(&ch->kref);
	ch->close_logged = __ratelimit(&srpt_ch_log_rs);
	if (ch->close_logged)
		pr_info("%s: closing channel: %s\n", ch->sess_name, why);
	srpt_disconnect_ch(ch);
	ret = srpt_ch_qp_err(ch);
	if (ret)
		pr_err("%s: moving the QP to the error state failed (%d)\n",
		       ch->sess_name, ret);
	srpt_ch_advance(ch, CH_DRAINING);
	ret = srpt_zerolength_write(ch);
	if (ret) {
		pr_err("%s: posting the zero-length write failed (%d)\n",
		       ch->sess_name, ret);
		srpt_queue_release(ch);
	}
	kref_put(&ch->kref, srpt_free_ch);
	return true;
}

/**
 * srpt_login_end() - the login of a channel has been answered
 * @ch: SRPT RDMA channel, in its nexus
 *
 * From here on srpt_close_ch() closes the channel at once; a close asked
 * for during the login (srpt_close_deferred()) happens now.
 */
static void srpt_login_end(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	const char *why;

	spin_lock_irqsave(&ch->recv_lock, flags);
	ch->login_busy = false;
	why = ch->close_why;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	if (why)
		srpt_close_ch(ch, why);
}

/**
 * srpt_zerolength_write_done() - the send queue of a closing channel is empty
 * @cq: completion queue
 * @wc: work completion of the zero-length write
 */
static void srpt_zerolength_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_debug("%s: zero-length write: %s\n", ch->sess_name,
			 ib_wc_status_msg(wc->status));
	srpt_queue_release(ch);
}

/**
 * srpt_ch_quiet() - whether nobody processes IUs or the RTU of a channel
 * @ch: SRPT RDMA channel, DISCONNECTED
 *
 * Once the channel is DISCONNECTED, srpt_process_ius() and
 * srpt_cm_rtu_recv() start nothing new, and the last of them to finish
 * wakes srpt_ch_released_wq. Side-effect free, for a wait_event()
 * condition.
 *
 * Return: true when neither is running.
 */
static bool srpt_ch_quiet(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool quiet;

	spin_lock_irqsave(&ch->recv_lock, flags);
	quiet = !ch->processing_wait_list && !ch->rtu_busy;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	return quiet;
}

/**
 * srpt_wait_rtu() - keep the connection of a channel closed before its RTU
 * @ch: SRPT RDMA channel being released, its QP and rings already freed
 *
 * A channel closed between its login response and the initiator's RTU (a
 * SINGLE login replaced it) could not send a DREQ: the connection manager
 * allows none before the RTU. Destroying the connection now would send a
 * REJ instead, which an initiator that has already sent its RTU may not
 * act on (ib_srp ignores it once connected): it would count the channel as
 * up until its next I/O failed. So the connection stays until the RTU
 * arrives, and srpt_cm_rtu_recv() sends the DREQ, or until the connection
 * manager ends it; but no longer than SRPT_RTU_WAIT_MS, after which the
 * REJ is all the initiator gets, and not while the HCA is being removed.
 */
static void srpt_wait_rtu(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;

	if (!wait_event_timeout(srpt_ch_released_wq,
				!srpt_rtu_pending(ch) ||
				READ_ONCE(sdev->going_away),
				msecs_to_jiffies(SRPT_RTU_WAIT_MS)))
		pr_info_ratelimited("%s: no RTU after %u ms, the connection is rejected\n",
				    ch->sess_name, SRPT_RTU_WAIT_MS);
}

/**
 * srpt_drop_waiting_ius() - give back IUs that were never processed
 * @ch: SRPT RDMA channel being released
 */
static void srpt_drop_waiting_ius(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *recv, *next;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&ch->recv_lock, flags);
	list_splice_init(&ch->cmd_wait_list, &list);
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	list_for_each_entry_safe(recv, next, &list, wait_list) {
		list_del_init(&recv->wait_list);
		if (ch->use_srq)
			srpt_post_recv(ch->sport->sdev, ch, recv);
	}
}

/**
 * srpt_nexus_del_ch() - remove a channel from its I_T nexus
 * @ch: SRPT RDMA channel
 *
 * Frees the nexus when its last channel leaves.
 */
static void srpt_nexus_del_ch(struct srpt_rdma_ch *ch)
{
	struct srpt_port *sport = ch->sport;
	struct srpt_nexus *nexus = ch->nexus;

	if (!nexus)
		return;
	mutex_lock(&sport->mutex);
	list_del(&ch->list);
	if (list_empty(&nexus->ch_list)) {
		list_del(&nexus->entry);
		kfree(nexus);
	}
	mutex_unlock(&sport->mutex);
	ch->nexus = NULL;
}

/**
 * srpt_destroy_cm_id() - destroy the connection of a channel
 * @ch: SRPT RDMA channel
 */
static void srpt_destroy_cm_id(struct srpt_rdma_ch *ch)
{
	if (ch->using_rdma_cm) {
		if (ch->rdma_cm_id)
			rdma_destroy_id(ch->rdma_cm_id);
		ch->rdma_cm_id = NULL;
	} else {
		if (ch->ib_cm_id)
			ib_destroy_cm_id(ch->ib_cm_id);
		ch->ib_cm_id = NULL;
	}
}

/**
 * srpt_put_port_ch() - account for a channel that is fully released
 * @sport: the channel's port
 * @stpg: the TPG of the channel's session
 * @use_srq: whether the channel received through the SRQ
 *
 * Drops the counts that srpt_join_nexus() took. Once @sport->refcount is 0
 * the port and its device may be freed, so nothing here touches them after
 * that decrement; the wait queue is static.
 */
static void srpt_put_port_ch(struct srpt_port *sport, struct srpt_tpg *stpg,
			     bool use_srq)
{
	atomic_dec(&stpg->nr_ch);
	atomic_dec(&sport->mode_chs[use_srq]);
	atomic_dec(&sport->refcount);
	wake_up_all(&srpt_ch_released_wq);
}

/**
 * srpt_ch_forget_acl() - stop showing a channel in its ACL's info file
 * @ch: channel being released
 *
 * Done before the session goes: once it is gone, the ACL may be freed and
 * its memory reused for another ACL, which must not show this channel.
 */
static void srpt_ch_forget_acl(struct srpt_rdma_ch *ch)
{
	if (!ch->nexus)
		return;
	mutex_lock(&ch->sport->mutex);
	ch->nacl = NULL;
	mutex_unlock(&ch->sport->mutex);
}

/**
 * srpt_wait_task_sets() - wait until a channel's task-set functions are
 *	handed to LIO
 * @ch: channel being released
 *
 * An ABORT TASK SET or CLEAR TASK SET that waits for the commands it
 * marked uses the channel's session and a send context of its ring, and
 * LIO does not know of it yet, so srpt_end_session() would not wait for
 * it. Its commands end as the backstore finishes them, or as their
 * channels close. Waits in 10-second periods, as srpt_end_session().
 */
static void srpt_wait_task_sets(struct srpt_rdma_ch *ch)
{
	while (!wait_event_timeout(srpt_ch_released_wq,
				   !atomic_read(&ch->tsk_held), 10 * HZ))
		pr_info_ratelimited("%s: release waits for the backstore\n",
				    ch->sess_name);
}

/**
 * srpt_ch_rings_gone() - task-set functions leave a channel's rings alone
 * @ch: channel being released, whose commands have all been released
 *
 * Until now ABORT TASK SET and CLEAR TASK SET marked the channel's
 * commands, closing or not (srpt_tsk_mark()), so that they waited for
 * them.
 */
static void srpt_ch_rings_gone(struct srpt_rdma_ch *ch)
{
	if (!ch->nexus)
		return;
	mutex_lock(&ch->sport->mutex);
	ch->rings_gone = true;
	mutex_unlock(&ch->sport->mutex);
}

/**
 * srpt_end_session() - stop a channel's LIO session and wait for its commands
 * @ch: channel being released, with a session
 *
 * LIO's target_wait_for_sess_cmds() sleeps uninterruptibly for as long as
 * the backstore takes, in periods of 180 s: longer than the hung-task
 * timeout (120 s by default), so a stalled backstore would be reported as
 * a hung release work, or panic a machine with hung_task_panic set. The
 * release work therefore first waits in 10-second periods for the
 * session's command count to drop to zero, saying so in the log, and only
 * then lets LIO confirm it.
 */
static void srpt_end_session(struct srpt_rdma_ch *ch)
{
	struct target_cmd_counter *cnt = ch->sess->cmd_cnt;

	target_stop_session(ch->sess);
	while (!wait_event_timeout(cnt->refcnt_wq,
				   percpu_ref_is_zero(&cnt->refcnt), 10 * HZ))
		pr_info_ratelimited("%s: release waits for the backstore\n",
				    ch->sess_name);
	target_wait_for_sess_cmds(ch->sess);
	target_remove_session(ch->sess);
	ch->sess = NULL;
}

/**
 * srpt_release_channel_work() - free a disconnected channel
 * @w: the channel's release work
 *
 * Disconnects an iWARP channel (srpt_rdma_cm_disconnect()), waits until
 * no IU and no RTU is being processed (they use the session and the QP),
 * stops the LIO session and waits until every command of the
 * channel has finished, then frees the queues and the rings, and the
 * connection once its RTU is no longer awaited (srpt_wait_rtu()). The
 * channel leaves its nexus and drops its port counts only at the very end:
 * a port (and its device, SRQ and PD) stays until every channel that uses
 * it is gone, and a TPG until every channel with a session in it is gone.
 */
static void srpt_release_channel_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(w, struct srpt_rdma_ch,
					       release_work);
	struct srpt_port *sport = ch->sport;
	struct srpt_tpg *stpg = ch->stpg;
	bool use_srq = ch->use_srq;

	if (cancel_delayed_work_sync(&ch->connect_work))
		kref_put(&ch->kref, srpt_free_ch);
	/* First, so that the initiator does not wait for the backstore. */
	srpt_rdma_cm_disconnect(ch);
	/* A slow backstore may hold a direct submission for long. */
	while (!wait_event_timeout(srpt_ch_released_wq, srpt_ch_quiet(ch),
				   10 * HZ))
		pr_info_ratelimited("%s: release waits for the receive path\n",
				    ch->sess_name);
	srpt_drop_waiting_ius(ch);
	srpt_fail_rw_waiters(ch);
	srpt_ch_forget_acl(ch);
	srpt_wait_task_sets(ch);
	if (ch->sess)
		srpt_end_session(ch);
	srpt_destroy_ch_ib(ch);
	srpt_ch_rings_gone(ch);
	srpt_free_ch_rings(ch);
	srpt_wait_rtu(ch);
	srpt_destroy_cm_id(ch);
	if (ch->close_logged)
		pr_info("%s: channel released\n", ch->sess_name);
	srpt_nexus_del_ch(ch);
	kref_put(&ch->kref, srpt_free_ch);
	if (stpg)
		srpt_put_port_ch(sport, stpg, use_srq);
}

/**
 * srpt_close_port_chs() - start closing the channels of a port
 * @sport: the port
 * @stpg: close only the channels whose session is in this TPG; NULL: all
 * @why: the reason, for the kernel log
 *
 * Only starts the close; the channels are released later by srpt_wq.
 */
static void srpt_close_port_chs(struct srpt_port *sport, struct srpt_tpg *stpg,
				const char *why)
{
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;

	mutex_lock(&sport->mutex);
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		list_for_each_entry(ch, &nexus->ch_list, list) {
			if (!stpg || ch->stpg == stpg)
				srpt_close_ch(ch, why);
		}
	}
	mutex_unlock(&sport->mutex);
}

/**
 * srpt_wait_chs_released() - wait until a count of channels drops to zero
 * @count: srpt_tpg.nr_ch, srpt_port.refcount or srpt_port.mode_chs[]
 * @name: WWN or port name for the progress message
 *
 * The caller has started closing the channels and holds no lock that their
 * release needs (srpt_dev_mutex included). The condition only reads
 * @count, so the wait does not block in its condition. Waits without a time
 * limit (a slow backstore can take long to finish the commands of a
 * session) but reports every 10 seconds what it waits for.
 */
static void srpt_wait_chs_released(atomic_t *count, const char *name)
{
	while (!wait_event_timeout(srpt_ch_released_wq, !atomic_read(count),
				   10 * HZ))
		pr_info("%s: waiting for %d channel(s) to close\n", name,
			atomic_read(count));
}

/* Connection management: login requests --------------------------------- */

/**
 * srpt_check_login() - choose the answer to a login request
 * @req: the login request
 * @port_enabled: whether a TPG of the receiving port is enabled
 *
 * An information unit that is no SRP_LOGIN_REQ cannot establish a channel
 * (SRP-2 has no more specific reason for it).
 *
 * Return: 0 to accept, else the SRP_LOGIN_REJ reason to send.
 */
static u32 srpt_check_login(const struct srp_login_req *req, bool port_enabled)
{
	const u16 formats = SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT;
	u32 it_iu_len = be32_to_cpu(req->req_it_iu_len);
	u16 buf_fmt = be16_to_cpu(req->req_buf_fmt);
	__be64 guid = cpu_to_be64(srpt_service_guid);

	if (req->opcode != SRP_LOGIN_REQ)
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (it_iu_len < SRPT_MIN_IU_LEN || it_iu_len > srp_max_req_size)
		return SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
	if (!port_enabled)
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	if (memcmp(req->target_port_id, &guid, 8) ||
	    memcmp(req->target_port_id + 8, &guid, 8))
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	if (!(buf_fmt & formats) || (buf_fmt & ~formats))
		return SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT;
	return 0;
}

/**
 * srpt_login_rej_text() - a reason of srpt_check_login() in words
 * @buf: output buffer
 * @len: size of @buf
 * @req: the rejected login request
 * @reason: what srpt_check_login() returned for @req
 */
static void srpt_login_rej_text(char *buf, size_t len,
				const struct srp_login_req *req, u32 reason)
{
	u32 it_iu_len = be32_to_cpu(req->req_it_iu_len);

	switch (reason) {
	case SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL:
		snprintf(buf, len, "opcode %#x is not a login request",
			 req->opcode);
		break;
	case SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE:
		if (it_iu_len < SRPT_MIN_IU_LEN)
			snprintf(buf, len, "IU length %u below %u", it_iu_len,
				 SRPT_MIN_IU_LEN);
		else
			snprintf(buf, len, "IU length %u above %d", it_iu_len,
				 srp_max_req_size);
		break;
	case SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES:
		snprintf(buf, len, "port disabled");
		break;
	case SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL:
		snprintf(buf, len, "target port ID mismatch (0x%16phN)",
			 req->target_port_id);
		break;
	case SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT:
		snprintf(buf, len, "unsupported buffer formats %#x",
			 be16_to_cpu(req->req_buf_fmt));
		break;
	default:
		snprintf(buf, len, "reason %#x", reason);
		break;
	}
}

/**
 * srpt_login_port() - the port a login request arrived on
 * @sdev: HCA the request arrived on
 * @port_num: port number from the connection manager event (1-based)
 *
 * Return: the port, or NULL when @sdev has no port @port_num.
 */
static struct srpt_port *srpt_login_port(struct srpt_device *sdev,
					 u32 port_num)
{
	if (port_num < 1 || port_num > sdev->port_cnt)
		return NULL;
	return &sdev->port[port_num - 1];
}

/**
 * srpt_log_rej() - log why a login request is rejected
 * @sdev: HCA the request arrived on
 * @port_num: HCA port number
 * @req: the login request
 * @src_addr: initiator name: GUID form (IB/CM) or IP address (RDMA/CM)
 * @why: the reason in words
 *
 * Anybody who can reach the port can send login requests, so the message
 * is rate-limited.
 */
static void srpt_log_rej(const struct srpt_device *sdev, u32 port_num,
			 const struct srp_login_req *req, const char *src_addr,
			 const char *why)
{
	pr_info_ratelimited("login from %s (initiator port ID 0x%16phN) to %s port %u refused: %s\n",
			    src_addr, req->initiator_port_id,
			    dev_name(&sdev->device->dev), port_num, why);
}

/**
 * srpt_count_rej() - count a rejected login in its port's statistics
 * @sport: the port the login arrived on, or NULL when there is no such port
 * @reason: SRP_LOGIN_REJ reason
 */
static void srpt_count_rej(struct srpt_port *sport, u32 reason)
{
	u32 i = reason & 0xff;

	if (sport && i < SRPT_NR_REJ_REASONS)
		atomic64_inc(&sport->logins_rejected[i]);
}

/**
 * srpt_cm_req_check() - validate a login request before any allocation
 * @sdev: HCA the request arrived on
 * @port_num: HCA port number
 * @req: the login request
 * @src_addr: initiator name, for the log
 *
 * Return: 0 to go on, else the SRP_LOGIN_REJ reason to send (logged).
 */
static u32 srpt_cm_req_check(struct srpt_device *sdev, u32 port_num,
			     const struct srp_login_req *req,
			     const char *src_addr)
{
	struct srpt_port *sport = srpt_login_port(sdev, port_num);
	char why[96];
	u32 reason;

	if (!sport) {
		srpt_log_rej(sdev, port_num, req, src_addr,
			     "no such port");
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	}
	reason = srpt_check_login(req, sport->enabled);
	if (reason) {
		srpt_login_rej_text(why, sizeof(why), req, reason);
		srpt_log_rej(sdev, port_num, req, src_addr, why);
	}
	return reason;
}

/* Connection management: nexus, session and limits ---------------------- */

/**
 * srpt_nexus_is() - whether a nexus has these port IDs and this ACL
 * @nexus: the nexus
 * @i_port_id: initiator port ID
 * @t_port_id: target port ID
 * @acl: TPG and ACL
 *
 * Return: true when @nexus is the I_T nexus of logins with these port IDs
 * admitted by @acl.
 */
static bool srpt_nexus_is(const struct srpt_nexus *nexus,
			  const u8 i_port_id[16], const u8 t_port_id[16],
			  const struct srpt_acl_key *acl)
{
	return !memcmp(nexus->i_port_id, i_port_id, 16) &&
		!memcmp(nexus->t_port_id, t_port_id, 16) &&
		nexus->acl.stpg == acl->stpg &&
		!strcmp(nexus->acl.name, acl->name);
}

/**
 * srpt_get_nexus() - find or add the I_T nexus of a login
 * @sport: port the login arrived on
 * @spare: a new, empty nexus with the login's port IDs and ACL; added to
 *	the port when the port has no such nexus yet, else freed
 *
 * Must be called with sport->mutex held.
 *
 * Return: the nexus.
 */
static struct srpt_nexus *srpt_get_nexus(struct srpt_port *sport,
					 struct srpt_nexus *spare)
{
	struct srpt_nexus *nexus;

	lockdep_assert_held(&sport->mutex);
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		if (srpt_nexus_is(nexus, spare->i_port_id, spare->t_port_id,
				  &spare->acl)) {
			kfree(spare);
			return nexus;
		}
	}
	spare->id = atomic_inc_return(&srpt_nexus_ids);
	list_add_tail(&spare->entry, &sport->nexus_list);
	return spare;
}

/**
 * srpt_new_nexus() - allocate the nexus a login may need
 * @req: the login request
 *
 * Allocated before the login's LIO session exists, so that joining the
 * nexus cannot fail once LIO may close that session (srpt_close_deferred()).
 *
 * Return: an empty nexus, not on any list, or NULL.
 */
static struct srpt_nexus *srpt_new_nexus(const struct srp_login_req *req)
{
	struct srpt_nexus *nexus = kzalloc(sizeof(*nexus), GFP_KERNEL);

	if (!nexus)
		return NULL;
	INIT_LIST_HEAD(&nexus->ch_list);
	memcpy(nexus->i_port_id, req->initiator_port_id, 16);
	memcpy(nexus->t_port_id, req->target_port_id, 16);
	return nexus;
}

/**
 * struct srpt_session_search - srpt_setup_session()'s search for an ACL
 * @ch: the channel the session is for
 * @err: 0, or the error other than a missing ACL that ended the search
 */
struct srpt_session_search {
	struct srpt_rdma_ch *ch;
	int err;
};

/**
 * srpt_try_session() - set up a LIO session under one initiator name
 * @search: the channel, and where an error that ends the search goes
 * @tpg: portal group
 * @name: initiator name to look up among the TPG's ACLs
 *
 * LIO answers -EACCES when the TPG has no ACL of that name; the search
 * then goes on. Any other error (memory) ends it: the next names could
 * find an ACL of lower precedence, another host's port-ID ACL among them.
 *
 * Return: true when the session is set up or the search must stop.
 */
static bool srpt_try_session(struct srpt_session_search *search,
			     struct se_portal_group *tpg, const char *name)
{
	struct srpt_rdma_ch *ch = search->ch;
	struct se_session *sess;

	sess = target_setup_session(tpg, 0, 0, TARGET_PROT_NORMAL, name, ch,
				    NULL);
	if (IS_ERR(sess)) {
		if (PTR_ERR(sess) == -EACCES)
			return false;
		search->err = PTR_ERR(sess);
		return true;
	}
	ch->sess = sess;
	strscpy(ch->sess_name, name, sizeof(ch->sess_name));
	return true;
}

/**
 * srpt_find_acl() - search the ACLs of a port for a login
 * @sport: port the login arrived on
 * @src_addr: the connection's initiator name (GUID form or IP address)
 * @i_port_id: initiator port ID from the login request
 * @try: called for a TPG and a name until it returns true
 * @arg: passed to @try
 *
 * The enabled TPGs of both WWNs of the port are searched, first for an ACL
 * named by @src_addr, then, under WWNs in GID form, for one named by the
 * initiator port ID as "0x" + 32 hex digits or as 32 hex digits. The port
 * ID is whatever the initiator sends, so an ACL of the connection's own
 * name wins: a host with an ACL of its own cannot get another host's
 * port-ID ACL, and its nexus, by sending that host's port ID.
 *
 * Return: true when @try returned true.
 */
static bool srpt_find_acl(struct srpt_port *sport, const char *src_addr,
			  const u8 i_port_id[16],
			  bool (*try)(struct srpt_tpg *stpg, const char *name,
				      void *arg),
			  void *arg)
{
	struct srpt_port_id *ids[] = { sport->guid_id, sport->gid_id };
	char hex[2 + 32 + 1];
	struct srpt_tpg *stpg;
	bool found = false;
	int pass, i;

	snprintf(hex, sizeof(hex), "0x%16phN", i_port_id);
	for (pass = 0; pass < 2 && !found; pass++) {
		for (i = 0; i < ARRAY_SIZE(ids) && !found; i++) {
			if (!ids[i] || (pass == 1 && !ids[i]->gid_form))
				continue;
			mutex_lock(&ids[i]->mutex);
			list_for_each_entry(stpg, &ids[i]->tpg_list, entry) {
				if (!stpg->enabled)
					continue;
				found = pass == 0 ? try(stpg, src_addr, arg) :
					try(stpg, hex, arg) ||
					try(stpg, hex + 2, arg);
				if (found)
					break;
			}
			mutex_unlock(&ids[i]->mutex);
		}
	}
	return found;
}

/**
 * srpt_try_session_cb() - srpt_find_acl() callback of srpt_setup_session()
 * @stpg: TPG
 * @name: initiator name
 * @arg: the struct srpt_session_search
 *
 * Return: true when the session is set up.
 */
static bool srpt_try_session_cb(struct srpt_tpg *stpg, const char *name,
				void *arg)
{
	return srpt_try_session(arg, &stpg->tpg, name);
}

/**
 * srpt_setup_session() - find the ACL of a login and create the LIO session
 * @ch: SRPT RDMA channel
 * @i_port_id: initiator port ID from the login request
 *
 * The first ACL that srpt_find_acl() finds wins.
 *
 * Return: 0, -EACCES when no ACL matches, or LIO's error (-ENOMEM).
 */
static int srpt_setup_session(struct srpt_rdma_ch *ch, const u8 i_port_id[16])
{
	struct srpt_session_search search = { .ch = ch };
	char name[40];

	strscpy(name, ch->sess_name, sizeof(name));
	srpt_find_acl(ch->sport, name, i_port_id, srpt_try_session_cb,
		      &search);
	if (search.err)
		return search.err;
	return ch->sess ? 0 : -EACCES;
}

/**
 * srpt_tpg_acl_named() - whether a TPG has an ACL of a name, and note it
 * @stpg: the TPG
 * @name: the initiator name
 * @arg: the struct srpt_acl_key to set to @stpg and @name when the ACL
 *	exists
 *
 * Return: true when @stpg has an ACL named @name.
 */
static bool srpt_tpg_acl_named(struct srpt_tpg *stpg, const char *name,
			       void *arg)
{
	struct srpt_acl_key *acl = arg;

	if (!target_tpg_has_node_acl(&stpg->tpg, name))
		return false;
	acl->stpg = stpg;
	strscpy(acl->name, name, sizeof(acl->name));
	return true;
}

/**
 * srpt_login_has_acl() - whether a login would find an ACL, and which
 * @sport: port the login arrived on
 * @src_addr: the connection's initiator name (GUID form or IP address)
 * @i_port_id: initiator port ID from the login request
 * @acl: set to the TPG and ACL that would admit the login
 *
 * The same search as srpt_setup_session(), without creating a session, so
 * that a login nobody allowed is refused before its channel's rings (about
 * 1 MiB) are allocated. An ACL removed in between makes
 * srpt_setup_session() fail later, which is handled there.
 *
 * Return: true when some enabled TPG of the port has an ACL for it.
 */
static bool srpt_login_has_acl(struct srpt_port *sport, const char *src_addr,
			       const u8 i_port_id[16],
			       struct srpt_acl_key *acl)
{
	return srpt_find_acl(sport, src_addr, i_port_id, srpt_tpg_acl_named,
			     acl);
}

/**
 * srpt_count_login_chs() - count the channels that a login's limits look at
 * @sport: port the login arrived on
 * @req: the login request
 * @acl: the TPG and ACL that admit the login
 * @src_addr: the connection's name: IP address (RDMA/CM) or GUID form
 *	(IB/CM), as stored in srpt_rdma_ch.peer
 * @n: the counts
 *
 * Channels that are closing count only in @n->peer_all: the initiator
 * cannot use them any more, but they hold their resources until their
 * release, which a slow backstore can delay for long.
 *
 * Context: takes sport->mutex; the caller holds srpt_dev_mutex.
 */
static void srpt_count_login_chs(struct srpt_port *sport,
				 const struct srp_login_req *req,
				 const struct srpt_acl_key *acl,
				 const char *src_addr, struct srpt_login_chs *n)
{
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;
	bool mine, peer;

	memset(n, 0, sizeof(*n));
	mutex_lock(&sport->mutex);
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		mine = srpt_nexus_is(nexus, req->initiator_port_id,
				     req->target_port_id, acl);
		list_for_each_entry(ch, &nexus->ch_list, list) {
			peer = !strcmp(ch->peer, src_addr);
			n->peer_all += peer;
			if (READ_ONCE(ch->state) >= CH_DISCONNECTING)
				continue;
			n->nexus += mine;
			n->nexus_peer += mine && peer;
			n->peer += peer;
		}
	}
	mutex_unlock(&sport->mutex);
}

/**
 * srpt_login_ch_limit() - the channel limit that a login would exceed
 * @single: a SINGLE login, which closes the other channels of its nexus
 * @n: the channels counted for the login by srpt_count_login_chs()
 *
 * A MULTI login adds a channel to its I_T nexus (at most
 * SRPT_MAX_CH_PER_NEXUS) and to its source address (at most
 * SRPT_MAX_CH_PER_PEER on the port). A SINGLE login replaces the channels
 * of its nexus, so it only needs room among the address's channels in
 * other nexuses: a SINGLE login that replaces channels which are still
 * open always fits, but one with a new port ID is no way around the
 * address's limit. Either kind is refused while the address has
 * SRPT_MAX_CH_PER_PEER_ALL channels on the port, closing ones included.
 *
 * Return: SRPT_CH_LIMIT_OK, or the limit that refuses the login.
 */
static enum srpt_ch_limit srpt_login_ch_limit(bool single,
					      const struct srpt_login_chs *n)
{
	if (n->peer_all >= SRPT_MAX_CH_PER_PEER_ALL)
		return SRPT_CH_LIMIT_PEER_ALL;
	if (single)
		return n->peer - n->nexus_peer >= SRPT_MAX_CH_PER_PEER ?
			SRPT_CH_LIMIT_PEER : SRPT_CH_LIMIT_OK;
	if (n->nexus >= SRPT_MAX_CH_PER_NEXUS)
		return SRPT_CH_LIMIT_NEXUS;
	if (n->peer >= SRPT_MAX_CH_PER_PEER)
		return SRPT_CH_LIMIT_PEER;
	return SRPT_CH_LIMIT_OK;
}

/**
 * srpt_login_over_limit() - whether a login would exceed a channel limit
 * @sport: port the login arrived on
 * @req: the login request
 * @acl: the TPG and ACL that admit the login
 * @src_addr: the connection's name: IP address (RDMA/CM) or GUID form (IB/CM)
 * @why: buffer for the reason in words, for the kernel log
 * @len: size of @why
 *
 * Logins are serialised by srpt_dev_mutex and channels only leave the
 * counts meanwhile, so the counts cannot grow between this check and
 * srpt_join_nexus().
 *
 * Context: srpt_dev_mutex held.
 *
 * Return: true when the login must be refused (@why is then set).
 */
static bool srpt_login_over_limit(struct srpt_port *sport,
				  const struct srp_login_req *req,
				  const struct srpt_acl_key *acl,
				  const char *src_addr, char *why, size_t len)
{
	bool single = (req->req_flags & 3) == SRP_MULTICHAN_SINGLE;
	struct srpt_login_chs n;

	lockdep_assert_held(&srpt_dev_mutex);
	srpt_count_login_chs(sport, req, acl, src_addr, &n);
	switch (srpt_login_ch_limit(single, &n)) {
	case SRPT_CH_LIMIT_NEXUS:
		snprintf(why, len, "the I_T nexus has %d channels already",
			 SRPT_MAX_CH_PER_NEXUS);
		return true;
	case SRPT_CH_LIMIT_PEER:
		snprintf(why, len,
			 "its source address has %d channels on the port already",
			 SRPT_MAX_CH_PER_PEER);
		return true;
	case SRPT_CH_LIMIT_PEER_ALL:
		snprintf(why, len,
			 "its source address has %d channels on the port, closing ones included",
			 SRPT_MAX_CH_PER_PEER_ALL);
		return true;
	default:
		return false;
	}
}

/**
 * srpt_join_nexus() - add a new channel to its nexus, apply the multichannel
 *	action of the login
 * @ch: the new channel
 * @req: the login request
 * @spare: from srpt_new_nexus(); used or freed
 *
 * Return: the MULTI-CHANNEL RESULT flags of the login response.
 */
static int srpt_join_nexus(struct srpt_rdma_ch *ch,
			   const struct srp_login_req *req,
			   struct srpt_nexus *spare)
{
	struct srpt_port *sport = ch->sport;
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *other;
	int flags = SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;

	spare->acl.stpg = container_of(ch->sess->se_tpg, struct srpt_tpg, tpg);
	strscpy(spare->acl.name, ch->sess->se_node_acl->initiatorname,
		sizeof(spare->acl.name));
	mutex_lock(&sport->mutex);
	nexus = srpt_get_nexus(sport, spare);
	if ((req->req_flags & 3) == SRP_MULTICHAN_SINGLE) {
		flags = SRP_LOGIN_RSP_MULTICHAN_NO_CHAN;
		list_for_each_entry(other, &nexus->ch_list, list) {
			if (srpt_close_ch(other, "a single-channel login replaces it"))
				flags = SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
		}
	}
	ch->nexus = nexus;
	ch->cid = nexus->next_cid++;
	ch->nacl = ch->sess->se_node_acl;
	ch->login_time = ktime_get_real_seconds();
	list_add_tail(&ch->list, &nexus->ch_list);
	/*
	 * Counted from here until srpt_release_channel_work() is completely
	 * done; see srpt_put_port_ch().
	 */
	ch->stpg = container_of(ch->sess->se_tpg, struct srpt_tpg, tpg);
	atomic_inc(&sport->refcount);
	atomic_inc(&sport->mode_chs[ch->use_srq]);
	atomic_inc(&ch->stpg->nr_ch);
	mutex_unlock(&sport->mutex);
	return flags;
}

/* Connection management: answering a login ------------------------------ */

/**
 * srpt_build_login_rsp() - fill in a login response
 * @ch: the new channel
 * @req: the login request
 * @rsp: the response
 * @flags: MULTI-CHANNEL RESULT flags
 */
static void srpt_build_login_rsp(struct srpt_rdma_ch *ch,
				 const struct srp_login_req *req,
				 struct srp_login_rsp *rsp, int flags)
{
	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRP_LOGIN_RSP;
	rsp->tag = req->tag;
	rsp->req_lim_delta = cpu_to_be32(ch->rq_size);
	rsp->max_it_iu_len = cpu_to_be32(ch->max_it_iu_len);
	rsp->max_ti_iu_len = cpu_to_be32(ch->max_ti_iu_len);
	rsp->buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				   SRP_BUF_FORMAT_INDIRECT);
	rsp->rsp_flags = flags;
	if (ch->imm_data_offset)
		rsp->rsp_flags |= SRP_LOGIN_RSP_IMMED_SUPP;
}

/**
 * srpt_send_rej() - reject a login
 * @ib_cm_id: IB/CM connection, or NULL
 * @rdma_cm_id: RDMA/CM connection, or NULL
 * @tag: the login request's tag
 * @reason: SRP_LOGIN_REJ reason
 *
 * The connection manager allocates the REJ: under memory pressure that
 * can fail, and then nothing goes out. The initiator's connection manager
 * sends its request again after its response timeout, and that one gets
 * an answer.
 *
 * Return: 0 or the connection manager's negative error code.
 */
static int srpt_send_rej(struct ib_cm_id *ib_cm_id,
			 struct rdma_cm_id *rdma_cm_id, u64 tag, u32 reason)
{
	struct srp_login_rej rej = {
		.opcode = SRP_LOGIN_REJ,
		.reason = cpu_to_be32(reason),
		.tag = tag,
		.buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				       SRP_BUF_FORMAT_INDIRECT),
	};

	if (rdma_cm_id)
		return rdma_reject(rdma_cm_id, &rej, sizeof(rej),
				   IB_CM_REJ_CONSUMER_DEFINED);
	return ib_send_cm_rej(ib_cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			      &rej, sizeof(rej));
}

/**
 * srpt_login_qp_connect() - move a new channel's QP as far as its login
 *	response needs
 * @ch: the new channel
 *
 * Where the driver moves the QP (srpt_ch_moves_qp()): an IB/CM channel's
 * to RTR (RTS follows the RTU), an RDMA/CM channel's to RTR and RTS, as
 * RDMA/CM would before sending the REP. On iWARP rdma_accept() moves it.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_login_qp_connect(struct srpt_rdma_ch *ch)
{
	int ret;

	if (!srpt_ch_moves_qp(ch))
		return 0;
	ret = srpt_ch_qp_rtr(ch, ch->qp);
	if (ret || !ch->using_rdma_cm)
		return ret;
	return srpt_ch_qp_rts(ch, ch->qp);
}

/**
 * srpt_cm_retries() - whether the initiator sends an unanswered login again
 * @rdma_cm_id: RDMA/CM connection, or NULL for IB/CM
 *
 * The InfiniBand CM (IB/CM, and RDMA/CM on InfiniBand and RoCE) resends a
 * connection request that got no answer within its response timeout. On
 * iWARP the MPA request goes out once over TCP.
 *
 * Return: true when an unanswered request is sent again.
 */
static bool srpt_cm_retries(const struct rdma_cm_id *rdma_cm_id)
{
	return !rdma_cm_id ||
		rdma_node_get_transport(rdma_cm_id->device->node_type) !=
		RDMA_TRANSPORT_IWARP;
}

/**
 * srpt_log_rej_lost() - log an SRP_LOGIN_REJ that could not be sent
 * @sdev: HCA the request arrived on
 * @rdma_cm_id: RDMA/CM connection, or NULL for IB/CM
 * @port_num: HCA port number
 * @req: the login request
 * @src_addr: initiator name: GUID form (IB/CM) or IP address (RDMA/CM)
 * @err: what srpt_send_rej() returned
 *
 * For want of memory on InfiniBand and RoCE the initiator hears nothing
 * until it sends its request again (srpt_send_rej()); on iWARP it does not
 * send it again, and other errors mean that the connection manager would
 * not send the reject (say, the initiator's own REJ came first).
 */
static void srpt_log_rej_lost(const struct srpt_device *sdev,
			      const struct rdma_cm_id *rdma_cm_id, u32 port_num,
			      const struct srp_login_req *req,
			      const char *src_addr, int err)
{
	char why[96];

	if (err == -ENOMEM && srpt_cm_retries(rdma_cm_id))
		snprintf(why, sizeof(why),
			 "the SRP_LOGIN_REJ could not be sent (%d); the initiator will ask again",
			 err);
	else
		snprintf(why, sizeof(why),
			 "the SRP_LOGIN_REJ could not be sent (%d)", err);
	srpt_log_rej(sdev, port_num, req, src_addr, why);
}

/**
 * srpt_rej_answer() - count, trace and send an SRP_LOGIN_REJ
 * @sdev: HCA the request arrived on
 * @ib_cm_id: IB/CM connection, or NULL
 * @rdma_cm_id: RDMA/CM connection, or NULL
 * @port_num: HCA port number
 * @req: the login request
 * @src_addr: initiator name, for the trace and the log
 * @reason: SRP_LOGIN_REJ reason
 *
 * Every login refused with an SRP_LOGIN_REJ passes here: @port_num's
 * counter for @reason moves (none when the device has no such port), the
 * srpt_login tracepoint fires, and a reject that could not be sent is
 * logged (srpt_log_rej_lost()). The caller logs why it refused.
 */
static void srpt_rej_answer(struct srpt_device *sdev,
			    struct ib_cm_id *ib_cm_id,
			    struct rdma_cm_id *rdma_cm_id, u32 port_num,
			    const struct srp_login_req *req,
			    const char *src_addr, u32 reason)
{
	int ret;

	srpt_count_rej(srpt_login_port(sdev, port_num), reason);
	trace_srpt_login(dev_name(&sdev->device->dev), port_num, src_addr,
			 req->initiator_port_id, reason);
	ret = srpt_send_rej(ib_cm_id, rdma_cm_id, req->tag, reason);
	if (ret)
		srpt_log_rej_lost(sdev, rdma_cm_id, port_num, req, src_addr, ret);
}

/**
 * srpt_login_qp_rej() - refuse a login whose QP could not be connected
 * @ch: the new channel, in its nexus
 * @req: the login request
 * @port_num: HCA port number, for the counter, the trace and the log
 * @src_addr: initiator name, for the trace and the log
 * @err: what srpt_login_qp_connect() returned
 *
 * The QP refused RTR or RTS before the login response went out. The
 * initiator gets SRP_LOGIN_REJ (SRP-2 6.4): INSUFFICIENT RESOURCES when the
 * device lacked memory or room, else UNABLE TO ESTABLISH CHANNEL (the
 * device refused the connection's parameters), rather than a connection
 * manager's REJ without a reason. Logged here, then counted, traced and
 * sent like every other reject (srpt_rej_answer()); srpt_cm_req_accept()
 * then closes the channel, whose own REJ or DREQ finds the connection
 * ended.
 */
static void srpt_login_qp_rej(struct srpt_rdma_ch *ch,
			      const struct srp_login_req *req, u32 port_num,
			      const char *src_addr, int err)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 reason = SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	char why[64];

	if (err == -ENOMEM || err == -ENOSPC || err == -ENOBUFS ||
	    err == -EAGAIN)
		reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	snprintf(why, sizeof(why), "its queue pair could not be connected (%d)",
		 err);
	srpt_log_rej(sdev, port_num, req, src_addr, why);
	srpt_rej_answer(sdev, ch->using_rdma_cm ? NULL : ch->ib_cm_id,
			ch->using_rdma_cm ? ch->rdma_cm_id : NULL, port_num,
			req, src_addr, reason);
}

/**
 * srpt_rdma_cm_accept() - accept an RDMA/CM connection with the login response
 * @ch: SRPT RDMA channel (srpt_login_qp_connect() done)
 * @rsp: the login response
 * @res: RDMA READs we answer at once, limited by the device
 * @depth: RDMA READs we issue at once, limited by the device
 *
 * Where the driver moves the QP itself it hands RDMA/CM the QP number only.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_rdma_cm_accept(struct srpt_rdma_ch *ch,
			       struct srp_login_rsp *rsp, u8 res, u8 depth)
{
	struct rdma_conn_param param = {
		.private_data = rsp,
		.private_data_len = sizeof(*rsp),
		.responder_resources = res,
		.initiator_depth = depth,
		.flow_control = 1,
		.rnr_retry_count = 7,
	};

	if (srpt_ch_moves_qp(ch)) {
		param.qp_num = ch->qp->qp_num;
		param.srq = ch->use_srq;
	}
	return rdma_accept(ch->rdma_cm_id, &param);
}

/**
 * srpt_send_login_rsp() - accept the connection with the login response
 * @ch: the new channel
 * @rsp: the login response
 * @resp_res: RDMA READs we may have to answer (the initiator's depth)
 * @init_depth: RDMA READs we may have outstanding (the initiator's
 *	responder resources)
 *
 * Both values come from the connection request as seen from our side.
 * Where the driver moves the channel's QP (srpt_ch_moves_qp()),
 * srpt_login_qp_connect() has connected it.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_send_login_rsp(struct srpt_rdma_ch *ch,
			       struct srp_login_rsp *rsp, u8 resp_res,
			       u8 init_depth)
{
	const struct ib_device_attr *attrs = &ch->sport->sdev->device->attrs;
	u8 depth = min_t(int, init_depth, attrs->max_qp_init_rd_atom);
	u8 res = min_t(int, resp_res, attrs->max_qp_rd_atom);

	if (ch->using_rdma_cm)
		return srpt_rdma_cm_accept(ch, rsp, res, depth);
	{
		struct ib_cm_rep_param param = {
			.qp_num = ch->qp->qp_num,
			.private_data = rsp,
			.private_data_len = sizeof(*rsp),
			.rnr_retry_count = 7,
			.flow_control = 1,
			.failover_accepted = 0,
			.srq = ch->use_srq,
			.responder_resources = res,
			.initiator_depth = depth,
		};

		return ib_send_cm_rep(ch->ib_cm_id, &param);
	}
}

/**
 * srpt_single_credit() - ring bytes of the channels a SINGLE login replaces
 * @sport: port the login arrived on
 * @req: the login request
 * @acl: the TPG and ACL that admit the login
 *
 * The channels of the login's nexus that are not closing yet; a channel
 * that is closing may already have given its bytes back.
 *
 * Context: srpt_dev_mutex held, so that no channel joins the nexus.
 *
 * Return: the bytes, 0 for a MULTI login.
 */
static u64 srpt_single_credit(struct srpt_port *sport,
			      const struct srp_login_req *req,
			      const struct srpt_acl_key *acl)
{
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;
	u64 credit = 0;

	lockdep_assert_held(&srpt_dev_mutex);
	if ((req->req_flags & 3) != SRP_MULTICHAN_SINGLE)
		return 0;
	mutex_lock(&sport->mutex);
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		if (!srpt_nexus_is(nexus, req->initiator_port_id,
				   req->target_port_id, acl))
			continue;
		list_for_each_entry(ch, &nexus->ch_list, list) {
			if (READ_ONCE(ch->state) < CH_DISCONNECTING)
				credit += READ_ONCE(ch->ring_charge);
		}
	}
	mutex_unlock(&sport->mutex);
	return credit;
}

/**
 * srpt_cm_req_validate() - decide whether a login request may get a channel
 * @sdev: HCA the request arrived on
 * @port_num: HCA port number
 * @req: the login request
 * @src_addr: initiator name: GUID form (IB/CM) or IP address (RDMA/CM)
 * @credit: set to srpt_single_credit() of the login
 *
 * Refused logins cost no allocation.
 *
 * Return: 0 to go on, else the SRP_LOGIN_REJ reason to send (logged).
 */
static u32 srpt_cm_req_validate(struct srpt_device *sdev, u32 port_num,
				const struct srp_login_req *req,
				const char *src_addr, u64 *credit)
{
	struct srpt_acl_key acl;
	struct srpt_port *sport;
	char why[96];
	u32 reason;

	reason = srpt_cm_req_check(sdev, port_num, req, src_addr);
	if (reason)
		return reason;
	sport = srpt_login_port(sdev, port_num);
	if (!srpt_login_has_acl(sport, src_addr, req->initiator_port_id,
				&acl)) {
		snprintf(why, sizeof(why), "no ACL for it on port %s",
			 sport->guid_name);
		srpt_log_rej(sdev, port_num, req, src_addr, why);
		return SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
	}
	if (srpt_login_over_limit(sport, req, &acl, src_addr, why,
				  sizeof(why))) {
		srpt_log_rej(sdev, port_num, req, src_addr, why);
		return SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
	}
	*credit = srpt_single_credit(sport, req, &acl);
	return 0;
}

/**
 * srpt_cm_req_free_ch() - free the channel of a login that is refused
 * @ch: channel from srpt_alloc_ch(), without a session, not in a nexus
 *
 * The connection is left alone: it belongs to the connection manager,
 * which destroys it after the reject.
 */
static void srpt_cm_req_free_ch(struct srpt_rdma_ch *ch)
{
	srpt_destroy_ch_ib(ch);
	ch->ib_cm_id = NULL;
	ch->rdma_cm_id = NULL;
	srpt_free_ch_rings(ch);
	kfree(ch);
}

/**
 * srpt_cm_req_alloc_ch() - allocate the channel of a login and its queues
 * @sdev: HCA the request arrived on
 * @port_num: HCA port number, a valid one
 * @req: the login request, validated
 * @ib_cm_id: IB/CM connection, or NULL
 * @rdma_cm_id: RDMA/CM connection, or NULL
 * @src_addr: initiator name
 * @credit: see srpt_ring_charge()
 *
 * Return: the channel with its rings, CQ and QP, or an ERR_PTR() (logged).
 */
static struct srpt_rdma_ch *srpt_cm_req_alloc_ch(struct srpt_device *sdev,
						 u32 port_num,
						 const struct srp_login_req *req,
						 struct ib_cm_id *ib_cm_id,
						 struct rdma_cm_id *rdma_cm_id,
						 const char *src_addr,
						 u64 credit)
{
	struct srpt_rdma_ch *ch;
	char why[96];
	int ret;

	ch = srpt_alloc_ch(srpt_login_port(sdev, port_num), req, ib_cm_id,
			   rdma_cm_id, src_addr, credit);
	if (PTR_ERR_OR_ZERO(ch) == -ENOSPC) {
		snprintf(why, sizeof(why),
			 "the channels' ring buffers would exceed %llu bytes",
			 srpt_ring_limit);
		srpt_log_rej(sdev, port_num, req, src_addr, why);
		return ch;
	}
	if (IS_ERR(ch)) {
		snprintf(why, sizeof(why), "allocating the channel failed (%ld)",
			 PTR_ERR(ch));
		srpt_log_rej(sdev, port_num, req, src_addr, why);
		return ch;
	}
	ret = srpt_create_ch_ib(ch);
	if (ret) {
		snprintf(why, sizeof(why), "creating the queues failed (%d)",
			 ret);
		srpt_log_rej(sdev, port_num, req, src_addr, why);
		srpt_cm_req_free_ch(ch);
		return ERR_PTR(ret);
	}
	return ch;
}

/**
 * srpt_cm_req_session() - create the LIO session of a new channel
 * @ch: the new channel
 * @port_num: HCA port number, for the log
 * @req: the login request
 * @src_addr: initiator name, for the log
 * @spare: set to the nexus for srpt_join_nexus(); allocated before the
 *	session (srpt_new_nexus())
 *
 * Return: 0, else the SRP_LOGIN_REJ reason to send (logged).
 */
static u32 srpt_cm_req_session(struct srpt_rdma_ch *ch, u32 port_num,
			       const struct srp_login_req *req,
			       const char *src_addr, struct srpt_nexus **spare)
{
	struct srpt_port *sport = ch->sport;
	char why[96];
	int err;

	*spare = srpt_new_nexus(req);
	if (!*spare) {
		srpt_log_rej(sport->sdev, port_num, req, src_addr,
			     "out of memory");
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	}
	err = srpt_setup_session(ch, req->initiator_port_id);
	if (!err)
		return 0;
	kfree(*spare);
	*spare = NULL;
	if (err != -EACCES) {
		snprintf(why, sizeof(why), "no LIO session (error %d)", err);
		srpt_log_rej(sport->sdev, port_num, req, src_addr, why);
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	}
	snprintf(why, sizeof(why), "no ACL for it on port %s",
		 sport->guid_name);
	srpt_log_rej(sport->sdev, port_num, req, src_addr, why);
	return SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
}

/**
 * srpt_connect_timeout() - close a channel that did not become live in time
 * @w: the channel's connect_work
 *
 * An initiator that withholds its RTU (and sends no IU that would raise
 * COMM_EST) keeps a channel connecting for as long as its connection
 * request asked the REP to be resent; meanwhile the channel holds its
 * rings and, in SRQ mode, the shared buffers of the IUs it queued.
 */
static void srpt_connect_timeout(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(to_delayed_work(w),
					       struct srpt_rdma_ch,
					       connect_work);

	if (READ_ONCE(ch->state) == CH_CONNECTING)
		srpt_close_ch(ch, "not live 10 s after the login response");
	kref_put(&ch->kref, srpt_free_ch);
}

/**
 * srpt_arm_connect_timeout() - start the connect timeout of a channel
 * @ch: a channel whose login response has been sent
 */
static void srpt_arm_connect_timeout(struct srpt_rdma_ch *ch)
{
	kref_get(&ch->kref);
	if (!queue_delayed_work(srpt_wq, &ch->connect_work,
				msecs_to_jiffies(SRPT_CONNECT_TIMEOUT_MS)))
		kref_put(&ch->kref, srpt_free_ch);
}

/* Channels whose send queue is stuck ------------------------------------ */

/**
 * srpt_ch_watched() - whether max_hw_pending_time applies to a channel
 * @ch: SRPT RDMA channel
 * @live: set to whether @ch is live
 *
 * Only live channels are watched, and only once their login has been
 * answered: srpt_close_ch() then closes at once and does not keep its
 * reason for later (srpt_close_deferred()), so the caller may hand it a
 * reason on its stack. A channel whose login has ended never goes back.
 * The RTU may make a channel live just before its login ends; it is
 * watched from the next look on.
 *
 * Return: true when @ch is live and its login has been answered.
 */
static bool srpt_ch_watched(struct srpt_rdma_ch *ch, bool *live)
{
	unsigned long flags;
	bool watched;

	spin_lock_irqsave(&ch->recv_lock, flags);
	*live = ch->state == CH_LIVE;
	watched = *live && !ch->login_busy;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	return watched;
}

/**
 * srpt_ch_sq_stuck() - whether a channel's send queue has stopped moving
 * @ch: SRPT RDMA channel
 * @limit: how long the queue may hold work without a completion, in
 *	jiffies
 *
 * The send queue of an RC queue pair completes its work requests in the
 * order they were posted, so it has made no progress for @limit when it
 * has held work for @limit and nothing completed meanwhile:
 * ch->sq_progress is the later of the last completion and the moment the
 * queue stopped being empty (srpt_sq_take()). The completions in the
 * middle of a long transfer count (srpt_progress_done()), so a command
 * whose data takes longer than @limit but keeps moving is not stuck.
 * Reads both under ch->lock, where they change together with
 * ch->sq_wr_avail.
 *
 * Return: true when work requests are outstanding and none completed for
 * @limit.
 */
static bool srpt_ch_sq_stuck(struct srpt_rdma_ch *ch, unsigned long limit)
{
	unsigned long flags;
	bool stuck;

	spin_lock_irqsave(&ch->lock, flags);
	stuck = (u32)ch->sq_wr_avail < ch->sq_size &&
		time_after_eq(jiffies, ch->sq_progress + limit);
	spin_unlock_irqrestore(&ch->lock, flags);
	return stuck;
}

/**
 * srpt_arm_hw_pending() - make sure the stuck-channel check of a port runs
 * @sport: HCA port that has a live channel, or whose max_hw_pending_time
 *	was just set
 *
 * Does nothing while max_hw_pending_time is 0 and when the check is queued
 * already.
 */
static void srpt_arm_hw_pending(struct srpt_port *sport)
{
	if (READ_ONCE(sport->port_attrib.max_hw_pending_time))
		queue_delayed_work(srpt_wq, &sport->hw_pending_work,
				   round_jiffies_relative(HZ));
}

/**
 * srpt_hw_pending_work() - close the live channels whose send queue is stuck
 * @w: the port's hw_pending_work
 *
 * A channel whose RDMA transfer or response never completes keeps its
 * command, data buffer, send-queue slots and LIO session. The queue pair's
 * RNR retries and ACK timeout are bounded (srpt_clamp_qp_attr()), but the
 * transport retry count is the initiator's (7 is for ever on soft-RoCE) and
 * iWARP waits for TCP. About once a second this closes, with
 * srpt_close_ch(), every live channel of the port that has had work in its
 * send queue and no send completion for max_hw_pending_time seconds
 * (srpt_ch_sq_stuck()): no progress, not a command older than that, as a
 * transfer longer than a MiB completes a work request about every MiB of
 * its data (srpt_signal_progress()); the usual drain and release then
 * free it. Each close is counted in srpt_port.stuck_closed and logged as
 * every close is.
 *
 * One delayed work per port instead of one per channel: it holds no
 * channel reference. It looks at the channels under sport->mutex, and a
 * channel leaves its nexus under that mutex only at the end of its release
 * (srpt_nexus_del_ch()), so each channel it finds is valid. It runs only
 * while the port has live channels: a channel queues it when it goes live
 * (srpt_cm_rtu_recv()), a write of the attribute queues it, and it queues
 * itself again only if it found a live channel. srpt_remove_one() cancels
 * it after every channel of the port is released and the port's WWNs are
 * detached, so nothing queues it again, and before the port's memory can
 * go; module unload removes every device that way before srpt_wq goes.
 */
static void srpt_hw_pending_work(struct work_struct *w)
{
	struct srpt_port *sport = container_of(to_delayed_work(w),
					       struct srpt_port,
					       hw_pending_work);
	u32 secs = READ_ONCE(sport->port_attrib.max_hw_pending_time);
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;
	bool live = false, ch_live;
	char why[64];

	if (!secs)
		return;
	snprintf(why, sizeof(why),
		 "no send completion for %u s (max_hw_pending_time)", secs);
	mutex_lock(&sport->mutex);
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		list_for_each_entry(ch, &nexus->ch_list, list) {
			if (srpt_ch_watched(ch, &ch_live) &&
			    srpt_ch_sq_stuck(ch, secs * HZ) &&
			    srpt_close_ch(ch, why))
				atomic64_inc(&sport->stuck_closed);
			else if (ch_live)
				live = true;
		}
	}
	mutex_unlock(&sport->mutex);
	if (live)
		srpt_arm_hw_pending(sport);
}

/**
 * srpt_cm_req_accept() - connect the QP of a new channel and answer the login
 * @ch: the new channel, with its session
 * @req: the login request
 * @spare: from srpt_cm_req_session(); used or freed
 * @port_num: HCA port number, for the trace and the log
 * @src_addr: initiator name, for the trace and the log
 * @resp_res: RDMA READs we may have to answer
 * @init_depth: RDMA READs we may have outstanding
 *
 * The channel joins its nexus first, so a QP that cannot be connected
 * (the login is then rejected: srpt_login_qp_rej()) or a login response
 * that cannot be sent closes it like any other channel.
 */
static void srpt_cm_req_accept(struct srpt_rdma_ch *ch,
			       const struct srp_login_req *req,
			       struct srpt_nexus *spare, u32 port_num,
			       const char *src_addr, u8 resp_res,
			       u8 init_depth)
{
	struct srpt_port *sport = ch->sport;
	struct srp_login_rsp rsp;
	int ret, flags;

	if (ch->rdma_cm_id)
		ch->rdma_cm_id->context = ch;
	else
		ch->ib_cm_id->context = ch;
	flags = srpt_join_nexus(ch, req, spare);
	srpt_build_login_rsp(ch, req, &rsp, flags);
	ret = srpt_login_qp_connect(ch);
	if (ret) {
		srpt_login_qp_rej(ch, req, port_num, src_addr, ret);
		srpt_login_end(ch);
		srpt_close_ch(ch, "its queue pair could not be connected");
		return;
	}
	/*
	 * Set before the response goes out: IB/CM reports a failed send of
	 * it at once, from the send completion. On iWARP a disconnect needs
	 * no RTU (srpt_iwarp_ch()).
	 */
	if (!srpt_iwarp_ch(ch))
		srpt_set_rtu_pending(ch, true);
	ret = srpt_send_login_rsp(ch, &rsp, resp_res, init_depth);
	if (ret)
		srpt_set_rtu_pending(ch, false);
	else
		/* Before the login ends: no close can be released meanwhile. */
		srpt_arm_connect_timeout(ch);
	srpt_login_end(ch);
	if (ret) {
		pr_err_ratelimited("%s: sending the login response failed (%d)\n",
				   ch->sess_name, ret);
		srpt_close_ch(ch, "the login response could not be sent");
		return;
	}
	atomic64_inc(&sport->logins_accepted);
	trace_srpt_login(dev_name(&sport->sdev->device->dev), port_num,
			 src_addr, req->initiator_port_id, 0);
	pr_info_ratelimited("%s: login accepted, %d credits, %s, immediate data %s\n",
			    ch->sess_name, ch->rq_size,
			    ch->use_srq ? "SRQ" : "ring",
			    ch->imm_data_offset ? "on" : "off");
}

/**
 * srpt_cm_req_reject() - answer a login with SRP_LOGIN_REJ
 * @sdev: HCA the request arrived on
 * @ib_cm_id: IB/CM connection, or NULL
 * @rdma_cm_id: RDMA/CM connection, or NULL
 * @port_num: HCA port number
 * @req: the login request
 * @src_addr: initiator name, for the trace and the log
 * @reason: SRP_LOGIN_REJ reason
 *
 * The connection forgets its context first: no channel belongs to it.
 * Counted, traced and sent by srpt_rej_answer().
 *
 * Return: -ECONNREFUSED, for the connection manager to destroy the
 * connection.
 */
static int srpt_cm_req_reject(struct srpt_device *sdev,
			      struct ib_cm_id *ib_cm_id,
			      struct rdma_cm_id *rdma_cm_id, u32 port_num,
			      const struct srp_login_req *req,
			      const char *src_addr, u32 reason)
{
	if (rdma_cm_id)
		rdma_cm_id->context = NULL;
	else
		ib_cm_id->context = NULL;
	srpt_rej_answer(sdev, ib_cm_id, rdma_cm_id, port_num, req, src_addr,
			reason);
	return -ECONNREFUSED;
}

/**
 * srpt_cm_req_recv() - process a login request
 * @sdev: HCA the request arrived on
 * @ib_cm_id: IB/CM connection, or NULL for RDMA/CM
 * @rdma_cm_id: RDMA/CM connection, or NULL for IB/CM
 * @port_num: HCA port number, as the connection manager reports it
 * @pkey: P_Key of the connection (informational)
 * @req: the login request in SRP layout
 * @src_addr: initiator name: GUID form (IB/CM) or IP address (RDMA/CM)
 * @resp_res: RDMA READs we may have to answer
 * @init_depth: RDMA READs we may have outstanding
 *
 * Validate, allocate the channel, create its session, connect the QP and
 * answer. Runs with srpt_dev_mutex held so that the device cannot go away
 * meanwhile.
 *
 * Return: 0 when the login was accepted; a negative error code when it was
 * rejected (the caller's connection is then destroyed).
 */
static int srpt_cm_req_recv(struct srpt_device *const sdev,
			    struct ib_cm_id *ib_cm_id,
			    struct rdma_cm_id *rdma_cm_id,
			    u32 port_num, __be16 pkey,
			    const struct srp_login_req *req,
			    const char *src_addr, u8 resp_res, u8 init_depth)
{
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;
	u64 credit;
	u32 reason;

	lockdep_assert_held(&srpt_dev_mutex);
	pr_debug("login from %s (pkey %#06x) on %s port %u: it_iu_len %u, flags %#x\n",
		 src_addr, be16_to_cpu(pkey), dev_name(&sdev->device->dev),
		 port_num, be32_to_cpu(req->req_it_iu_len), req->req_flags);

	reason = srpt_cm_req_validate(sdev, port_num, req, src_addr, &credit);
	if (reason)
		goto reject;
	ch = srpt_cm_req_alloc_ch(sdev, port_num, req, ib_cm_id, rdma_cm_id,
				  src_addr, credit);
	if (IS_ERR(ch)) {
		reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		goto reject;
	}
	reason = srpt_cm_req_session(ch, port_num, req, src_addr, &nexus);
	if (reason) {
		srpt_cm_req_free_ch(ch);
		goto reject;
	}
	srpt_cm_req_accept(ch, req, nexus, port_num, src_addr, resp_res,
			   init_depth);
	return 0;

reject:
	return srpt_cm_req_reject(sdev, ib_cm_id, rdma_cm_id, port_num, req,
				  src_addr, reason);
}

/* Connection management: CM events and listeners ------------------------ */

/**
 * srpt_cm_rtu_recv() - the initiator confirmed the connection
 * @ch: SRPT RDMA channel
 *
 * Moves an IB/CM queue pair to RTS, makes the channel live and processes
 * the IUs that arrived in the meantime. Only a channel that is still
 * connecting is touched; @ch->rtu_busy keeps srpt_release_channel_work()
 * from destroying the QP or the session under this function (the release
 * of a channel closed meanwhile waits for srpt_ch_quiet()).
 *
 * A channel closed before its connection was established (a SINGLE login
 * replaced it right after its login response) could not send a DREQ then:
 * the connection manager allows none before the RTU. It is disconnected
 * again here; its release keeps the connection until then
 * (srpt_wait_rtu()), and destroying the connection waits for this
 * callback.
 */
static void srpt_cm_rtu_recv(struct srpt_rdma_ch *ch)
{
	enum srpt_ch_state state;
	unsigned long flags;
	bool connecting;
	int ret;

	spin_lock_irqsave(&ch->recv_lock, flags);
	state = ch->state;
	connecting = state == CH_CONNECTING && !ch->rtu_busy;
	if (connecting)
		ch->rtu_busy = true;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	if (!connecting) {
		/* Closed before this: now the DREQ can go out. */
		if (state >= CH_DISCONNECTING)
			srpt_disconnect_ch(ch);
		srpt_set_rtu_pending(ch, false);
		return;
	}

	if (!ch->using_rdma_cm) {
		ret = srpt_ch_qp_rts(ch, ch->qp);
		if (ret) {
			pr_err_ratelimited("%s: moving the QP to RTS failed (%d)\n",
					   ch->sess_name, ret);
			srpt_close_ch(ch, "the QP could not be made ready");
			goto out;
		}
	}
	if (srpt_ch_advance(ch, CH_LIVE)) {
		pr_debug("%s: channel live\n", ch->sess_name);
		srpt_arm_hw_pending(ch->sport);
		srpt_process_wait_list(ch);
	}
out:
	spin_lock_irqsave(&ch->recv_lock, flags);
	ch->rtu_busy = false;
	ch->rtu_pending = false;
	state = ch->state;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	if (state == CH_DISCONNECTED)
		wake_up_all(&srpt_ch_released_wq);
}

/**
 * srpt_ib_cm_req_recv() - process an IB/CM connection request
 * @sdev: HCA that received the request
 * @cm_id: the new connection
 * @param: request parameters
 * @private_data: the SRP login request
 *
 * Return: 0 when accepted; non-zero makes IB/CM destroy @cm_id.
 */
static int srpt_ib_cm_req_recv(struct srpt_device *sdev,
			       struct ib_cm_id *cm_id,
			       const struct ib_cm_req_event_param *param,
			       void *private_data)
{
	char src[40];
	int ret;

	srpt_format_guid_name(src, sizeof(src), &param->primary_path->dgid);
	mutex_lock(&srpt_dev_mutex);
	ret = srpt_cm_req_recv(sdev, cm_id, NULL, param->port,
			       param->primary_path->pkey, private_data, src,
			       param->responder_resources,
			       param->initiator_depth);
	mutex_unlock(&srpt_dev_mutex);
	return ret;
}

/**
 * srpt_cm_ended() - the connection manager ended a channel's connection
 * @ch: SRPT RDMA channel
 * @why: the reason, for the kernel log
 *
 * No RTU will come after this (srpt_wait_rtu()).
 */
static void srpt_cm_ended(struct srpt_rdma_ch *ch, const char *why)
{
	srpt_close_ch(ch, why);
	srpt_set_rtu_pending(ch, false);
}

/**
 * srpt_cm_handler() - IB connection manager callback function
 * @cm_id: IB/CM connection identifier
 * @event: IB/CM event
 *
 * Return: 0, or non-zero for a rejected connection request, which makes
 * IB/CM destroy @cm_id.
 */
static int srpt_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *event)
{
	struct srpt_rdma_ch *ch = cm_id->context;

	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		return srpt_ib_cm_req_recv(cm_id->context, cm_id,
					   &event->param.req_rcvd,
					   event->private_data);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		srpt_cm_rtu_recv(ch);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		srpt_cm_ended(ch, "the initiator disconnected (DREQ)");
		break;
	case IB_CM_DREQ_ERROR:
	case IB_CM_TIMEWAIT_EXIT:
	case IB_CM_REP_ERROR:
	case IB_CM_REJ_RECEIVED:
		srpt_cm_ended(ch, "IB/CM ended the connection");
		break;
	case IB_CM_DREP_RECEIVED:
	case IB_CM_MRA_RECEIVED:
	case IB_CM_LAP_RECEIVED:
	case IB_CM_APR_RECEIVED:
	default:
		break;
	}
	return 0;
}

/**
 * srpt_rdma_cm_src_name() - the initiator name of an RDMA/CM login
 * @buf: output buffer; 40 bytes hold every name
 * @len: size of @buf
 * @sa: the initiator's address, AF_INET or AF_INET6
 *
 * An IPv6 address is written in full (eight groups of four hex digits),
 * without its scope ID; an IPv4-mapped IPv6 address and an IPv4 address
 * are written in dotted-quad form, so that an initiator has the same name
 * on an IPv4 and on a dual-stack listener. Any other family is read as
 * AF_INET.
 */
static void srpt_rdma_cm_src_name(char *buf, size_t len,
				  const struct sockaddr *sa)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

	if (sa->sa_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sin6->sin6_addr))
		snprintf(buf, len, "%pI6", &sin6->sin6_addr);
	else if (sa->sa_family == AF_INET6)
		snprintf(buf, len, "%pI4", &sin6->sin6_addr.s6_addr32[3]);
	else
		snprintf(buf, len, "%pI4", &sin->sin_addr);
}

/**
 * srpt_rdma_cm_login_req() - the SRP login request of an RDMA/CM
 *	connection request
 * @req: the login request in SRP layout; every byte is written
 * @data: the private data of the request (struct srp_login_req_rdma), or
 *	NULL
 * @data_len: its length in bytes
 *
 * InfiniBand's CM zero-fills the private data to its full size, iWARP's
 * MPA delivers only the bytes the initiator sent: a short login request is
 * read as zero-filled on every transport, so that it gets the same answer
 * (an SRP_LOGIN_REJ with a reason) on all. Bytes beyond struct
 * srp_login_req_rdma are ignored.
 */
static void srpt_rdma_cm_login_req(struct srp_login_req *req,
				   const void *data, u8 data_len)
{
	struct srp_login_req_rdma rdma = {};

	if (data)
		memcpy(&rdma, data, min_t(size_t, data_len, sizeof(rdma)));
	memset(req, 0, sizeof(*req));
	req->opcode = rdma.opcode;
	req->tag = rdma.tag;
	req->req_it_iu_len = rdma.req_it_iu_len;
	req->req_buf_fmt = rdma.req_buf_fmt;
	req->req_flags = rdma.req_flags;
	req->imm_data_offset = rdma.imm_data_offset;
	memcpy(req->initiator_port_id, rdma.initiator_port_id, 16);
	memcpy(req->target_port_id, rdma.target_port_id, 16);
}

/**
 * srpt_rdma_cm_req_recv() - process an RDMA/CM connection request
 * @cm_id: the new connection
 * @event: the CONNECT_REQUEST event
 *
 * Return: 0 when accepted; non-zero makes RDMA/CM destroy @cm_id.
 */
static int srpt_rdma_cm_req_recv(struct rdma_cm_id *cm_id,
				 struct rdma_cm_event *event)
{
	struct srpt_device *sdev;
	struct srp_login_req req;
	char src[40];
	int ret = -ECONNREFUSED;

	srpt_rdma_cm_src_name(src, sizeof(src),
			      (struct sockaddr *)&cm_id->route.addr.dst_addr);
	srpt_rdma_cm_login_req(&req, event->param.conn.private_data,
			       event->param.conn.private_data_len);

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (sdev->device != cm_id->device)
			continue;
		ret = srpt_cm_req_recv(sdev, NULL, cm_id, cm_id->port_num,
				       cpu_to_be16(0xffff), &req, src,
				       event->param.conn.responder_resources,
				       event->param.conn.initiator_depth);
		break;
	}
	mutex_unlock(&srpt_dev_mutex);
	return ret;
}

/**
 * srpt_rdma_cm_handler() - RDMA connection manager callback function
 * @cm_id: RDMA/CM connection identifier
 * @event: RDMA/CM event
 *
 * Return: 0, or non-zero for a rejected connection request, which makes
 * RDMA/CM destroy @cm_id.
 */
static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct srpt_rdma_ch *ch = cm_id->context;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return srpt_rdma_cm_req_recv(cm_id, event);
	case RDMA_CM_EVENT_ESTABLISHED:
		srpt_cm_rtu_recv(ch);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (ch)
			srpt_cm_ended(ch, rdma_event_msg(event->event));
		break;
	default:
		break;
	}
	return 0;
}

/**
 * srpt_listen_ib_cm() - listen for IB/CM logins on a device
 * @sdev: SRPT HCA
 *
 * Only devices with a port that speaks IB/CM get a listener; failure is
 * logged and RDMA/CM logins keep working.
 */
static void srpt_listen_ib_cm(struct srpt_device *sdev)
{
	struct ib_cm_id *cm_id;
	u32 p;
	int ret;

	rdma_for_each_port(sdev->device, p)
		if (rdma_cap_ib_cm(sdev->device, p))
			break;
	if (p > rdma_end_port(sdev->device))
		return;
	cm_id = ib_create_cm_id(sdev->device, srpt_cm_handler, sdev);
	if (IS_ERR(cm_id)) {
		pr_info("%s: no IB/CM listener (%ld)\n",
			dev_name(&sdev->device->dev), PTR_ERR(cm_id));
		return;
	}
	ret = ib_cm_listen(cm_id, cpu_to_be64(srpt_service_guid));
	if (ret) {
		pr_info("%s: IB/CM listen failed (%d)\n",
			dev_name(&sdev->device->dev), ret);
		ib_destroy_cm_id(cm_id);
		return;
	}
	sdev->cm_id = cm_id;
}

/**
 * srpt_create_rdma_listener() - listen for RDMA/CM logins on a port
 * @port: TCP-style port number
 * @ipv6: listen on the IPv6 wildcard address instead of the IPv4 one
 *
 * The listener takes its own address family only (afonly): on iWARP a
 * dual-stack IPv6 listener would see IPv4 connections with IPv4-mapped
 * IPv6 addresses, which RDMA/CM cannot map to a network device, so such
 * connections would be reset before any login request arrives. Both
 * listeners are afonly, so they can share the port.
 *
 * Return: the listening identifier or an ERR_PTR().
 */
static struct rdma_cm_id *srpt_create_rdma_listener(u16 port, bool ipv6)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = IN6ADDR_ANY_INIT,
		.sin6_port = htons(port),
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
		.sin_port = htons(port),
	};
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	ret = rdma_set_afonly(id, 1);
	if (!ret)
		ret = rdma_bind_addr(id, ipv6 ? (struct sockaddr *)&sin6 :
				     (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/**
 * srpt_set_rdma_cm_port() - move the RDMA/CM listeners to another port
 * @port: new port; 0 stops listening
 *
 * Listens on the IPv6 and on the IPv4 wildcard address; one of them is
 * enough (a host without IPv6). The new listeners are started before the
 * old ones stop, so a failure leaves the old ones in place.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_set_rdma_cm_port(u16 port)
{
	struct rdma_cm_id *new_ids[2] = {}, *old_ids[2];
	int i, ret = 0;

	mutex_lock(&rdma_cm_mutex);
	if (port == rdma_cm_listen_port) {
		mutex_unlock(&rdma_cm_mutex);
		return 0;
	}
	for (i = 0; port && i < ARRAY_SIZE(new_ids); i++) {
		new_ids[i] = srpt_create_rdma_listener(port, i == 0);
		if (IS_ERR(new_ids[i])) {
			ret = PTR_ERR(new_ids[i]);
			pr_info("binding RDMA/CM to %s:%u failed (%d)\n",
				i == 0 ? "[::]" : "0.0.0.0", port, ret);
			new_ids[i] = NULL;
		}
	}
	if (port && !new_ids[0] && !new_ids[1]) {
		mutex_unlock(&rdma_cm_mutex);
		pr_err("listening for RDMA/CM logins on port %u failed (%d)\n",
		       port, ret);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(new_ids); i++) {
		old_ids[i] = rdma_cm_ids[i];
		rdma_cm_ids[i] = new_ids[i];
	}
	rdma_cm_listen_port = port;
	mutex_unlock(&rdma_cm_mutex);
	for (i = 0; i < ARRAY_SIZE(old_ids); i++)
		if (old_ids[i])
			rdma_destroy_id(old_ids[i]);
	if (port)
		pr_info("listening for RDMA/CM logins on port %u\n", port);
	return 0;
}

/* Data path: send-queue accounting -------------------------------------- */

/* SRP task management response codes (SRP-2, table "RESPONSE CODE"). */
enum {
	SRPT_TSK_MGMT_COMPLETE		= 0x00,
	SRPT_TSK_MGMT_FUNC_NOT_SUPP	= 0x04,
	SRPT_TSK_MGMT_FAILED		= 0x05,
};

/**
 * srpt_fail_cmd() - fail a command LIO has parsed but not executed
 * @ioctx: send context
 * @reason: sense to report; TCM_CHECK_CONDITION_ABORT_CMD for a write
 *	whose data-out transfer did not happen
 *
 * LIO answers the command with CHECK CONDITION through queue_status.
 */
static void srpt_fail_cmd(struct srpt_send_ioctx *ioctx, sense_reason_t reason)
{
	transport_generic_request_failure(&ioctx->cmd, reason);
}

/**
 * srpt_abort_cmd() - finish a command whose transfer will not happen
 * @ioctx: I/O context associated with the SCSI command
 *
 * Used when a work request of the command failed or its channel is going
 * away. In the states not handled here LIO owns the command.
 *
 * Return: the command state before the call.
 */
static int srpt_abort_cmd(struct srpt_send_ioctx *ioctx)
{
	enum srpt_command_state state = READ_ONCE(ioctx->state);

	if (ioctx->own_rsp) {
		srpt_send_finished(ioctx);
		return state;
	}
	switch (state) {
	case SRPT_STATE_NEED_DATA:
		if (srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEED_DATA,
						SRPT_STATE_DATA_IN))
			srpt_fail_cmd(ioctx, TCM_CHECK_CONDITION_ABORT_CMD);
		break;
	case SRPT_STATE_CMD_RSP_SENT:
	case SRPT_STATE_MGMT_RSP_SENT:
		srpt_send_finished(ioctx);
		break;
	default:
		break;
	}
	return state;
}

/**
 * srpt_sq_take() - take send-queue slots that are free
 * @ch: RDMA channel, with ch->lock held
 * @n: number of slots, at most ch->sq_wr_avail
 *
 * Taking slots from an empty send queue starts the clock of
 * srpt_ch_sq_stuck(): before it, the queue had nothing that could be
 * stuck, however long ago its last completion was.
 */
static void srpt_sq_take(struct srpt_rdma_ch *ch, u32 n)
{
	lockdep_assert_held(&ch->lock);
	if ((u32)ch->sq_wr_avail == ch->sq_size)
		ch->sq_progress = jiffies;
	ch->sq_wr_avail -= n;
}

/**
 * srpt_sq_reserve() - reserve send-queue slots or queue the command
 * @ch: RDMA channel
 * @ioctx: command that wants to post
 * @n: work requests it will post
 * @rsp: true for a response, false for the RDMA READs of a write
 *
 * Commands that find too few slots wait in FIFO order on rw_wait_list and
 * are posted by srpt_sq_release() when earlier work requests complete, so
 * the send queue never overflows and no command is dropped.
 *
 * Return: true when the slots are reserved and the caller may post now.
 */
static bool srpt_sq_reserve(struct srpt_rdma_ch *ch,
			    struct srpt_send_ioctx *ioctx, u32 n, bool rsp)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&ch->lock, flags);
	ok = list_empty(&ch->rw_wait_list) && ch->sq_wr_avail >= n;
	if (ok) {
		srpt_sq_take(ch, n);
	} else {
		ioctx->sq_wr_needed = n;
		ioctx->waiting_rsp = rsp;
		list_add_tail(&ioctx->wait_list, &ch->rw_wait_list);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	return ok;
}

/**
 * srpt_sq_post_waiter() - post a command that waited for send-queue slots
 * @ioctx: the command; its slots are reserved
 */
static void srpt_sq_post_waiter(struct srpt_send_ioctx *ioctx)
{
	if (ioctx->waiting_rsp)
		srpt_post_response(ioctx);
	else if (srpt_post_rdma_read(ioctx))
		srpt_fail_cmd(ioctx, TCM_CHECK_CONDITION_ABORT_CMD);
}

/**
 * srpt_sq_release() - give back send-queue slots and post waiting commands
 * @ch: RDMA channel
 * @n: number of slots given back
 * @completed: true when the slots' work requests completed, false when
 *	their post failed; a completion is progress for srpt_ch_sq_stuck(),
 *	a failed post is not (the work requests before it are still out)
 *
 * A post that fails gives its slots back through this function again. Only
 * the outermost call posts waiting commands, in a loop, and a nested call
 * just adds its slots, so a device that fails every post costs no stack
 * depth per waiting command.
 */
static void srpt_sq_release(struct srpt_rdma_ch *ch, u32 n, bool completed)
{
	struct srpt_send_ioctx *ioctx, *next;
	unsigned long flags;
	LIST_HEAD(ready);

	spin_lock_irqsave(&ch->lock, flags);
	if (completed)
		ch->sq_progress = jiffies;
	ch->sq_wr_avail += n;
	if (ch->sq_releasing) {
		spin_unlock_irqrestore(&ch->lock, flags);
		return;
	}
	ch->sq_releasing = true;
	for (;;) {
		list_for_each_entry_safe(ioctx, next, &ch->rw_wait_list,
					 wait_list) {
			if (ch->sq_wr_avail < ioctx->sq_wr_needed)
				break;
			srpt_sq_take(ch, ioctx->sq_wr_needed);
			list_move_tail(&ioctx->wait_list, &ready);
		}
		if (list_empty(&ready))
			break;
		spin_unlock_irqrestore(&ch->lock, flags);
		list_for_each_entry_safe(ioctx, next, &ready, wait_list) {
			list_del_init(&ioctx->wait_list);
			srpt_sq_post_waiter(ioctx);
		}
		spin_lock_irqsave(&ch->lock, flags);
	}
	ch->sq_releasing = false;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_fail_rw_waiters() - finish the commands waiting for send-queue slots
 * @ch: RDMA channel that is being released
 */
static void srpt_fail_rw_waiters(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ioctx, *next;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&ch->lock, flags);
	list_splice_init(&ch->rw_wait_list, &list);
	spin_unlock_irqrestore(&ch->lock, flags);

	list_for_each_entry_safe(ioctx, next, &list, wait_list) {
		list_del_init(&ioctx->wait_list);
		srpt_abort_cmd(ioctx);
	}
}

/* Data path: buffers of a command --------------------------------------- */

/**
 * srpt_rdma_dir() - DMA direction of the RDMA transfer of a command
 * @ioctx: send context
 *
 * Return: DMA_FROM_DEVICE for a write (RDMA READ into local pages),
 * DMA_TO_DEVICE for a read.
 */
static enum dma_data_direction srpt_rdma_dir(struct srpt_send_ioctx *ioctx)
{
	return ioctx->dir == DMA_TO_DEVICE ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/**
 * srpt_free_rw_ctxs() - release the remote-buffer contexts of a command
 * @ch: RDMA channel
 * @ioctx: send context
 *
 * The local data buffer stays; see srpt_free_cmd_bufs().
 */
static void srpt_free_rw_ctxs(struct srpt_rdma_ch *ch,
			      struct srpt_send_ioctx *ioctx)
{
	unsigned int i;

	for (i = 0; i < ioctx->n_rw_ctx; i++) {
		struct srpt_rw_ctx *ctx = &ioctx->rw_ctxs[i];

		rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->sport->port, ctx->sg,
				    ctx->nents, srpt_rdma_dir(ioctx));
	}
	if (ioctx->rw_ctxs != &ioctx->s_rw_ctx)
		kfree(ioctx->rw_ctxs);
	kfree(ioctx->slices);
	ioctx->slices = NULL;
	ioctx->rw_ctxs = NULL;
	ioctx->n_rw_ctx = 0;
	ioctx->n_rdma = 0;
}

/**
 * srpt_slice_sg() - describe a byte range of the data buffer
 * @data_sg: the data buffer, one full page per entry but the last
 * @off: start of the range
 * @len: length of the range, > 0
 * @out: scatterlist to fill; it needs room for the pages the range touches
 *
 * Lets each remote descriptor map exactly its part of one contiguous local
 * buffer, so that LIO and the backstore see whole pages whatever lengths
 * the initiator's descriptors have.
 *
 * Return: number of entries written to @out.
 */
static unsigned int srpt_slice_sg(struct scatterlist *data_sg, u64 off,
				  u32 len, struct scatterlist *out)
{
	unsigned int n = DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE);
	struct scatterlist *sg = &data_sg[off >> PAGE_SHIFT];
	u32 poff = offset_in_page(off);
	unsigned int j;

	sg_init_table(out, n);
	for (j = 0; j < n; j++, sg++) {
		u32 take = min_t(u32, PAGE_SIZE - poff, len);

		sg_set_page(&out[j], sg_page(sg), take, poff);
		len -= take;
		poff = 0;
	}
	return n;
}

/**
 * srpt_init_rw_ctxs() - prepare the RDMA transfers of a command
 * @ch: RDMA channel
 * @ioctx: send context with its data buffer and descriptors
 * @limit: bytes to transfer; for data-in, what LIO produced
 *
 * Return: 0, -E2BIG when the transfer needs more work requests than the
 * channel's send queue holds (it could never be posted), or another
 * negative error code when memory or RDMA resources ran out.
 */
static int srpt_init_rw_ctxs(struct srpt_rdma_ch *ch,
			     struct srpt_send_ioctx *ioctx, u64 limit)
{
	const struct srp_direct_buf *db = ioctx->descs;
	bool whole = ioctx->n_descs == 1 && limit >= ioctx->data_len;
	struct scatterlist *slice;
	u64 off = 0;
	u32 i;
	int ret;

	if (ioctx->n_descs == 1)
		ioctx->rw_ctxs = &ioctx->s_rw_ctx;
	else
		ioctx->rw_ctxs = kmalloc_array(ioctx->n_descs,
					       sizeof(*ioctx->rw_ctxs),
					       GFP_KERNEL);
	if (!whole)
		ioctx->slices = kmalloc_array(ioctx->data_nents +
					      ioctx->n_descs,
					      sizeof(*ioctx->slices),
					      GFP_KERNEL);
	if (!ioctx->rw_ctxs || (!whole && !ioctx->slices)) {
		ret = -ENOMEM;
		goto unwind;
	}
	slice = ioctx->slices;
	for (i = 0; i < ioctx->n_descs && off < limit; i++) {
		struct srpt_rw_ctx *ctx = &ioctx->rw_ctxs[ioctx->n_rw_ctx];
		u32 len = min_t(u64, be32_to_cpu(db[i].len), limit - off);

		if (!len)
			continue;
		if (whole) {
			ctx->sg = ioctx->data_sg;
			ctx->nents = ioctx->data_nents;
		} else {
			ctx->sg = slice;
			ctx->nents = srpt_slice_sg(ioctx->data_sg, off, len,
						   slice);
			slice += ctx->nents;
		}
		ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->sport->port,
				       ctx->sg, ctx->nents, 0,
				       be64_to_cpu(db[i].va),
				       be32_to_cpu(db[i].key),
				       srpt_rdma_dir(ioctx));
		if (ret < 0)
			goto unwind;
		ioctx->n_rdma += ret;
		ioctx->n_rw_ctx++;
		off += len;
	}
	/* The response needs one more slot; more than the queue holds never fits. */
	if (ioctx->n_rdma + 1 > ch->sq_size) {
		ret = -E2BIG;
		goto unwind;
	}
	return 0;

unwind:
	srpt_free_rw_ctxs(ch, ioctx);
	return ret;
}

/**
 * srpt_buf_budget() - data-buffer budget of a device
 * @ram: bytes of RAM of the machine
 *
 * The data buffers of the commands in flight on one HCA, and the ones
 * kept for the next command (srpt_keep_data_buf()), may take 1/16 of
 * RAM, at least SRPT_MIN_BUF_BUDGET (four of the largest commands, so
 * that the first-come half of srpt_buf_try_charge() holds two of them),
 * so that initiators, whatever their number of channels and credits,
 * cannot pin more. Commands beyond it get TASK SET FULL and are retried.
 *
 * Return: the budget in bytes.
 */
static u64 srpt_buf_budget(u64 ram)
{
	return max_t(u64, ram >> SRPT_BUF_BUDGET_SHIFT, SRPT_MIN_BUF_BUDGET);
}

/**
 * srpt_buf_share() - what one initiator address may hold of a device's
 *	data-buffer budget while the device uses more than half of it
 * @sdev: the device
 *
 * Half the budget divided by the number of holders, counted as their
 * high-water mark since the device was last seen using at most half its
 * budget: when holders leave while the device is over half, the share of
 * those that remain does not grow into the room that was left for the
 * others. What the address holds counts in full, first-come bytes
 * included. The mark is read together with the current count, so a reset
 * racing a registration can only make the share smaller. With many
 * holders the share can be smaller than the largest command, which then
 * runs only within the first-come half.
 *
 * Return: the share in bytes.
 */
static u64 srpt_buf_share(struct srpt_device *sdev)
{
	u32 n = max3(srpt_holders_hwm(sdev), READ_ONCE(sdev->holders), 1U);

	return sdev->buf_budget / 2 / n;
}

/**
 * srpt_look_holders_hwm() - decide whether the high-water mark of holders
 *	comes down
 * @sdev: the device
 * @seen: where to store the srpt_device.holders_mark the decision is
 *	based on
 *
 * The mark, then the holders, then the device's use are read, in that
 * order (both loads before the last are acquires): the holders seen are at
 * least those registered by the mark seen, and a device seen at most half
 * used was so once the holders had been read.
 *
 * Return: the holders to lower the mark to, or -1 when it stays (the
 * device uses more than half its budget, or the mark is the holders).
 */
static long srpt_look_holders_hwm(struct srpt_device *sdev, s64 *seen)
{
	unsigned int n;

	*seen = atomic64_read_acquire(&sdev->holders_mark);
	/* Acquire: buf_bytes is read after holders, on every architecture. */
	n = smp_load_acquire(&sdev->holders);
	if (lower_32_bits(*seen) == n ||
	    atomic64_read(&sdev->buf_bytes) > sdev->buf_budget / 2)
		return -1;
	return n;
}

/**
 * srpt_lower_holders_hwm() - store what srpt_look_holders_hwm() decided
 * @sdev: the device
 * @seen: the srpt_device.holders_mark the decision was based on
 * @n: the holders to lower the mark to, or -1
 *
 * Stores only if no holder registered since @seen was read: a decision
 * taken before a registration (and maybe the registered holder's logout)
 * would otherwise lower the mark while the device is over half. The
 * stored value may be above the mark when a registration has counted its
 * holder but not yet raised the mark; that raise then keeps it.
 */
static void srpt_lower_holders_hwm(struct srpt_device *sdev, s64 seen,
				   long n)
{
	if (n < 0)
		return;
	atomic64_try_cmpxchg(&sdev->holders_mark, &seen,
			     (s64)((u64)upper_32_bits(seen) << 32 | n));
}

/**
 * srpt_reset_holders_hwm() - lower the high-water mark to the holders now
 *	if the device uses at most half its budget
 * @sdev: the device
 *
 * Called on every charge and give-back, so that the mark comes down as
 * soon as the device is seen at most half used, also when kept buffers
 * or a command too large for the first-come room keep first-come charges
 * from succeeding. A device that went over half after the use was read
 * keeps the mark the holders had then; one that registered a holder
 * meanwhile keeps its mark.
 */
static void srpt_reset_holders_hwm(struct srpt_device *sdev)
{
	s64 seen;
	long n = srpt_look_holders_hwm(sdev, &seen);

	srpt_lower_holders_hwm(sdev, seen, n);
}

/**
 * srpt_buf_try_charge() - take the bytes of a fresh data buffer
 * @ch: channel of the command
 * @bytes: bytes to take
 *
 * First come, first served up to half the device's budget (and while the
 * device is at most half used the high-water mark of holders starts again
 * from the holders now, see srpt_reset_holders_hwm()).
 * Beyond half, the channels of one initiator address together may hold
 * their share (srpt_buf_share()), within the whole budget: an address
 * that opens many channels, or whose commands stall, cannot take what the
 * other addresses need. The holder is charged first and given back when
 * the budget has no room, so no failure leaves anything taken.
 *
 * Return: 0, -EDQUOT when the address holds its share, or -ENOBUFS when
 * the budget has no room.
 */
static int srpt_buf_try_charge(struct srpt_rdma_ch *ch, u64 bytes)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct srpt_holder *h = ch->holder;

	if (srpt_charge_upto(&sdev->buf_bytes, bytes, sdev->buf_budget / 2)) {
		atomic64_add(bytes, &h->held);
		srpt_reset_holders_hwm(sdev);
		return 0;
	}
	srpt_reset_holders_hwm(sdev);
	if (!srpt_charge_upto(&h->held, bytes, srpt_buf_share(sdev)))
		return -EDQUOT;
	if (!srpt_charge_upto(&sdev->buf_bytes, bytes, sdev->buf_budget)) {
		atomic64_sub(bytes, &h->held);
		return -ENOBUFS;
	}
	return 0;
}

/**
 * srpt_buf_give_back() - give bytes back to the device and the holder
 * @ch: the channel that took them
 * @bytes: bytes to give back
 */
static void srpt_buf_give_back(struct srpt_rdma_ch *ch, u64 bytes)
{
	atomic64_sub(bytes, &ch->holder->held);
	atomic64_sub(bytes, &ch->sport->sdev->buf_bytes);
	srpt_reset_holders_hwm(ch->sport->sdev);
}

/**
 * srpt_buf_charge() - take the bytes of a command's fresh data buffer
 * @ioctx: send context of the command; its kept buffer is not in use
 * @bytes: bytes to take
 *
 * When they do not fit, the context's own kept buffer (too small for the
 * command, or it would have been reused) is freed and the charge tried
 * once more. A refusal is counted by its reason.
 *
 * Return: true when they were taken (@ioctx->buf_charge is @bytes).
 */
static bool srpt_buf_charge(struct srpt_send_ioctx *ioctx, u32 bytes)
{
	struct srpt_device *sdev = ioctx->ch->sport->sdev;
	int ret;

	ret = srpt_buf_try_charge(ioctx->ch, bytes);
	if (ret && ioctx->keep_sg) {
		srpt_free_kept_buf(ioctx);
		ret = srpt_buf_try_charge(ioctx->ch, bytes);
	}
	if (ret) {
		atomic64_inc(ret == -EDQUOT ? &sdev->refused_share :
			     &sdev->refused_budget);
		return false;
	}
	ioctx->buf_charge = bytes;
	return true;
}

/**
 * srpt_buf_keep_charge() - take the bytes of a buffer a context keeps
 * @ch: channel of the send context
 * @bytes: bytes of the buffer
 *
 * A buffer is kept only while the device uses at most a quarter of its
 * budget and the address at most its share (srpt_buf_share()): kept pages
 * never take more than a quarter, so at least a quarter stays for
 * first-come commands (idle channels cannot starve the commands of
 * others, nor keep the high-water mark of holders up), and one address's
 * kept pages count as what it holds.
 *
 * Return: true when they were taken.
 */
static bool srpt_buf_keep_charge(struct srpt_rdma_ch *ch, u64 bytes)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct srpt_holder *h = ch->holder;

	if (!srpt_charge_upto(&h->held, bytes, srpt_buf_share(sdev)))
		return false;
	if (!srpt_charge_upto(&sdev->buf_bytes, bytes, sdev->buf_budget / 4)) {
		atomic64_sub(bytes, &h->held);
		return false;
	}
	return true;
}

/**
 * srpt_buf_uncharge() - give back what a command took from the budget
 * @ioctx: send context
 */
static void srpt_buf_uncharge(struct srpt_send_ioctx *ioctx)
{
	if (!ioctx->buf_charge)
		return;
	srpt_buf_give_back(ioctx->ch, ioctx->buf_charge);
	ioctx->buf_charge = 0;
}

/**
 * srpt_reuse_data_buf() - give a command the buffer its context kept
 * @ioctx: send context
 * @len: bytes the command transfers, not zero
 *
 * Allocating (and, with init_on_alloc, clearing) fresh pages for every
 * small command is a measurable part of the work per I/O, so each send
 * context keeps the buffer of its last small command (see
 * srpt_keep_data_buf()). It only ever holds data of the channel it belongs
 * to.
 *
 * Return: true when @ioctx->data_sg now is the kept buffer.
 */
static bool srpt_reuse_data_buf(struct srpt_send_ioctx *ioctx, u64 len)
{
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct scatterlist *sg = ioctx->keep_sg;

	if (!sg || n > ioctx->keep_nents)
		return false;
	for (i = 0; i < ioctx->keep_nents; i++) {
		sg_unmark_end(&sg[i]);
		sg[i].offset = 0;
		sg[i].length = i < n ? min_t(u64, len, PAGE_SIZE) : PAGE_SIZE;
		if (i < n)
			len -= sg[i].length;
	}
	sg_mark_end(&sg[n - 1]);
	ioctx->data_sg = sg;
	ioctx->data_nents = n;
	return true;
}

/**
 * srpt_free_kept_buf() - free the buffer a send context kept
 * @ioctx: send context, not in use
 *
 * The kept buffer may carry an end mark before its last page, so it is
 * walked by index rather than with target_free_sgl().
 */
static void srpt_free_kept_buf(struct srpt_send_ioctx *ioctx)
{
	unsigned int i;

	if (!ioctx->keep_sg)
		return;
	srpt_buf_give_back(ioctx->ch, (u64)ioctx->keep_nents * PAGE_SIZE);
	for (i = 0; i < ioctx->keep_nents; i++)
		__free_page(sg_page(&ioctx->keep_sg[i]));
	kfree(ioctx->keep_sg);
	ioctx->keep_sg = NULL;
	ioctx->keep_nents = 0;
}

/**
 * srpt_keep_data_buf() - keep or free the data buffer of a finished command
 * @ioctx: send context
 *
 * Since free contexts are reused most-recently-first, the buffers kept
 * match the channel's recent queue depth, not its credits. Kept pages count
 * against the device's data-buffer budget and the holder of the channel's
 * address for as long as they are kept (srpt_buf_keep_charge()).
 */
static void srpt_keep_data_buf(struct srpt_send_ioctx *ioctx)
{
	if (ioctx->data_sg == ioctx->keep_sg)
		goto out;
	if (ioctx->data_nents <= SRPT_KEEP_PAGES &&
	    ioctx->data_nents > ioctx->keep_nents &&
	    srpt_buf_keep_charge(ioctx->ch,
				 (u64)ioctx->data_nents * PAGE_SIZE)) {
		srpt_free_kept_buf(ioctx);
		ioctx->keep_sg = ioctx->data_sg;
		ioctx->keep_nents = ioctx->data_nents;
	} else {
		target_free_sgl(ioctx->data_sg, ioctx->data_nents);
	}
out:
	ioctx->data_sg = NULL;
	ioctx->data_nents = 0;
}

/**
 * srpt_get_data_pages() - get the pages of a command's data buffer
 * @ioctx: send context
 * @len: bytes LIO transfers, not zero
 *
 * A data-out buffer is wholly written by the RDMA READs before LIO looks
 * at it, so its old contents never matter. A data-in buffer is zeroed,
 * kept or fresh: LIO's emulated commands write only some of the bytes
 * they return (and a backstore like null_blk none), and what they skip
 * must not be an earlier command's data or uninitialised memory. Zeroing
 * one or two kept pages costs less than allocating fresh ones, so every
 * command of up to SRPT_KEEP_PAGES pages uses the kept buffer.
 *
 * Return: 0, -ENOBUFS when the budget or the share of the channel's
 * address has no room (srpt_buf_charge()), or -ENOMEM.
 */
static int srpt_get_data_pages(struct srpt_send_ioctx *ioctx, u32 len)
{
	bool zero = ioctx->dir == DMA_FROM_DEVICE;
	u32 charge = PAGE_ALIGN(len);

	if (srpt_reuse_data_buf(ioctx, len)) {
		if (zero)
			sg_zero_buffer(ioctx->data_sg, ioctx->data_nents, len, 0);
		return 0;
	}
	if (!srpt_buf_charge(ioctx, charge))
		return -ENOBUFS;
	return target_alloc_sgl(&ioctx->data_sg, &ioctx->data_nents, len,
				zero, false);
}

/**
 * srpt_rw_err_reason() - sense of a command whose RDMA cannot be prepared
 * @err: error of srpt_init_rw_ctxs()
 *
 * Return: TCM_INVALID_FIELD_IN_COMMAND_IU when the descriptors need more
 * work requests than the send queue holds (retrying cannot help), else
 * TCM_OUT_OF_RESOURCES (TASK SET FULL: the initiator retries).
 */
static sense_reason_t srpt_rw_err_reason(int err)
{
	return err == -E2BIG ? TCM_INVALID_FIELD_IN_COMMAND_IU :
		TCM_OUT_OF_RESOURCES;
}

/**
 * srpt_data_in_fits() - check that the RDMA WRITEs of a read fit the queue
 * @ioctx: send context with its descriptors
 * @len: bytes the read returns at most
 *
 * The RDMA WRITEs are prepared only when LIO has the data; a read whose
 * descriptors need more work requests than the send queue holds is
 * refused here instead, before it runs. The count is what rdma_rw needs
 * without memory registration: for each descriptor, the pages of its
 * slice of the buffer divided by the SGEs of one RDMA WRITE (DMA mapping
 * can only merge pages). Adapters that register memory for RDMA (iWARP)
 * are checked again by srpt_init_rw_ctxs().
 *
 * Return: true when the response and the RDMA WRITEs fit.
 */
static bool srpt_data_in_fits(struct srpt_send_ioctx *ioctx, u32 len)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	u32 sge = max(ch->qp->max_write_sge, 1U), wrs = 1, i;
	u64 off = 0;

	for (i = 0; i < ioctx->n_descs && off < len; i++) {
		u32 l = min_t(u64, be32_to_cpu(ioctx->descs[i].len), len - off);

		if (!l)
			continue;
		wrs += DIV_ROUND_UP(DIV_ROUND_UP(offset_in_page(off) + l,
						 PAGE_SIZE), sge);
		off += l;
	}
	return wrs <= ch->sq_size;
}

/**
 * srpt_alloc_data_buf() - give a parsed command its local data buffer
 * @ioctx: send context; LIO has parsed the CDB (target_submit_prep())
 *
 * The buffer is sized by what the CDB transfers, LIO's data_length, not by
 * the descriptors: a READ of 8 blocks with a 64 MiB descriptor gets 4 KiB.
 * LIO shrinks data_length to the CDB's length for a read that asks for
 * less than the descriptors offer; for a write of a control CDB it keeps
 * the descriptors' length to drain unsolicited data, which RDMA does not
 * need, so it is cut to the CDB's length here too (the residual stays).
 * An overflow is refused as LIO refuses it for fabric buffers: a buffer of
 * the initiator's smaller size cannot serve it.
 *
 * Return: TCM_NO_SENSE, or the sense to fail the command with.
 */
static sense_reason_t srpt_alloc_data_buf(struct srpt_send_ioctx *ioctx)
{
	struct se_cmd *cmd = &ioctx->cmd;
	u32 len, alloc;
	int ret;

	if (!ioctx->n_descs)
		return TCM_NO_SENSE;
	if (cmd->se_cmd_flags & SCF_OVERFLOW_BIT)
		return TCM_INVALID_CDB_FIELD;
	if (ioctx->dir == DMA_TO_DEVICE &&
	    (cmd->se_cmd_flags & SCF_UNDERFLOW_BIT))
		cmd->data_length -= min(cmd->residual_count, cmd->data_length);
	len = cmd->data_length;
	/*
	 * An emulated command with nothing to return (REQUEST SENSE with
	 * allocation length 0) still maps a buffer; a READ of no blocks must
	 * get none, or the backstore would be asked for a partial block.
	 */
	alloc = ioctx->dir == DMA_FROM_DEVICE &&
		!(cmd->se_cmd_flags & SCF_SCSI_DATA_CDB) ? max(len, 1U) : len;
	if (!alloc)
		return TCM_NO_SENSE;
	if (len > ioctx->data_len ||
	    (ioctx->dir == DMA_FROM_DEVICE && !srpt_data_in_fits(ioctx, len)))
		return TCM_INVALID_FIELD_IN_COMMAND_IU;
	if (srpt_get_data_pages(ioctx, alloc))
		return TCM_OUT_OF_RESOURCES;
	/* Data-in transfers are prepared when LIO has the data. */
	if (ioctx->dir == DMA_TO_DEVICE) {
		ret = srpt_init_rw_ctxs(ioctx->ch, ioctx, len);
		if (ret)
			return srpt_rw_err_reason(ret);
	}
	cmd->t_data_sg = ioctx->data_sg;
	cmd->t_data_nents = ioctx->data_nents;
	cmd->se_cmd_flags |= SCF_PASSTHROUGH_SG_TO_MEM_NOALLOC;
	return TCM_NO_SENSE;
}

/**
 * srpt_setup_imm() - point a command at its immediate data
 * @recv_ioctx: receive context holding the IU
 * @ioctx: send context
 * @info: parsed descriptors
 * @sg: result: scatterlist of the data
 * @sg_cnt: result: number of entries in @sg
 *
 * Data on a 512-byte boundary is used in place and the receive buffer is
 * kept until the response is sent; other data is copied so that no backend
 * ever sees a misaligned buffer.
 *
 * Return: 0 or -ENOMEM.
 */
static int srpt_setup_imm(struct srpt_recv_ioctx *recv_ioctx,
			  struct srpt_send_ioctx *ioctx,
			  const struct srpt_desc_info *info,
			  struct scatterlist **sg, unsigned int *sg_cnt)
{
	void *data = recv_ioctx->ioctx.buf + recv_ioctx->ioctx.offset +
		info->imm_off;

	if (!info->imm_len)
		return 0;
	if (IS_ALIGNED((unsigned long)data, SRPT_IMM_ALIGN)) {
		sg_init_one(&ioctx->imm_sg, data, info->imm_len);
		ioctx->recv_ioctx = recv_ioctx;
		*sg = &ioctx->imm_sg;
		*sg_cnt = 1;
		return 0;
	}
	if (target_alloc_sgl(&ioctx->bounce_sg, &ioctx->bounce_nents,
			     info->imm_len, false, false))
		return -ENOMEM;
	sg_copy_from_buffer(ioctx->bounce_sg, ioctx->bounce_nents, data,
			    info->imm_len);
	*sg = ioctx->bounce_sg;
	*sg_cnt = ioctx->bounce_nents;
	return 0;
}

/**
 * srpt_copy_descs() - copy the remote buffer descriptors of a command
 * @ioctx: send context
 * @info: parsed direct or indirect descriptors
 *
 * The receive buffer they came in goes back to the initiator before the
 * transfer happens.
 *
 * Return: 0 or -ENOMEM.
 */
static int srpt_copy_descs(struct srpt_send_ioctx *ioctx,
			   const struct srpt_desc_info *info)
{
	if (info->nbufs == 1) {
		ioctx->s_desc = info->bufs[0];
		ioctx->descs = &ioctx->s_desc;
	} else {
		ioctx->descs = kmemdup(info->bufs,
				       info->nbufs * sizeof(info->bufs[0]),
				       GFP_KERNEL);
		if (!ioctx->descs)
			return -ENOMEM;
	}
	ioctx->n_descs = info->nbufs;
	return 0;
}

/**
 * srpt_get_desc_tbl() - take the data descriptors of an SRP_CMD request
 * @recv_ioctx: I/O context associated with the received command @srp_cmd
 * @ioctx: I/O context that will be used for responding to the initiator
 * @srp_cmd: pointer to the SRP_CMD request data
 * @sg: result: scatterlist of immediate data, or NULL
 * @sg_cnt: result: number of entries in @sg
 * @imm_data_offset: offset of immediate data negotiated at login, or 0
 *
 * Return: 0, -EINVAL for a malformed or unsupported command, -ENOMEM.
 */
static int srpt_get_desc_tbl(struct srpt_recv_ioctx *recv_ioctx,
			     struct srpt_send_ioctx *ioctx,
			     const struct srp_cmd *srp_cmd,
			     struct scatterlist **sg, unsigned int *sg_cnt,
			     u16 imm_data_offset)
{
	struct srpt_desc_info info;
	int ret;

	ret = srpt_parse_cmd_bufs(srp_cmd, recv_ioctx->byte_len,
				  imm_data_offset, &info);
	if (ret)
		return ret;
	if (info.data_len > SRPT_MAX_DATA_LEN ||
	    !srpt_cdb_len_ok(srp_cmd, recv_ioctx->byte_len))
		return -EINVAL;
	switch (info.fmt) {
	case SRP_DATA_DESC_IMM:
		ret = srpt_setup_imm(recv_ioctx, ioctx, &info, sg, sg_cnt);
		break;
	case SRP_DATA_DESC_DIRECT:
	case SRP_DATA_DESC_INDIRECT:
		ret = srpt_copy_descs(ioctx, &info);
		break;
	default:
		ret = 0;
		break;
	}
	if (ret)
		return ret;
	ioctx->dir = info.dir;
	ioctx->data_len = info.data_len;
	return 0;
}

/**
 * srpt_release_recv_held() - give back a receive buffer used in place
 * @ioctx: send context
 */
static void srpt_release_recv_held(struct srpt_send_ioctx *ioctx)
{
	struct srpt_recv_ioctx *recv_ioctx = ioctx->recv_ioctx;

	if (!recv_ioctx)
		return;
	ioctx->recv_ioctx = NULL;
	srpt_recycle_recv(ioctx->ch, recv_ioctx, true);
}

/**
 * srpt_free_cmd_bufs() - release everything a command holds but its context
 * @ioctx: send context
 */
static void srpt_free_cmd_bufs(struct srpt_send_ioctx *ioctx)
{
	srpt_free_rw_ctxs(ioctx->ch, ioctx);
	srpt_buf_uncharge(ioctx);
	if (ioctx->data_sg)
		srpt_keep_data_buf(ioctx);
	if (ioctx->descs != &ioctx->s_desc)
		kfree(ioctx->descs);
	ioctx->descs = NULL;
	ioctx->n_descs = 0;
	if (ioctx->bounce_sg) {
		target_free_sgl(ioctx->bounce_sg, ioctx->bounce_nents);
		ioctx->bounce_sg = NULL;
	}
	srpt_release_recv_held(ioctx);
}

/* Data path: receiving IUs ---------------------------------------------- */

/**
 * srpt_wc_error() - react to a failed work completion
 * @ch: RDMA channel
 * @wc: the completion
 * @what: what failed, for the log
 *
 * A flush on a channel that is not closing means an earlier work request
 * failed and took the QP to the error state: an unsignaled RDMA READ or
 * WRITE, whose error has no completion, or one signaled for progress,
 * whose error srpt_progress_done() logged. The channel is closed either
 * way.
 */
static void srpt_wc_error(struct srpt_rdma_ch *ch, struct ib_wc *wc,
			  const char *what)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info_ratelimited("%s: %s failed: %s\n", ch->sess_name,
				    what, ib_wc_status_msg(wc->status));
	srpt_close_ch(ch, "a work request failed");
}

/**
 * srpt_task_attr() - LIO task attribute of an SRP task attribute
 * @attr: TASK ATTRIBUTE field of SRP_CMD
 *
 * Return: TCM_SIMPLE_TAG, TCM_HEAD_TAG, TCM_ACA_TAG or, for ORDERED and
 * anything unknown, TCM_ORDERED_TAG.
 */
static int srpt_task_attr(u8 attr)
{
	switch (attr & 7) {
	case 0:
		return TCM_SIMPLE_TAG;
	case 1:
		return TCM_HEAD_TAG;
	case 4:
		return TCM_ACA_TAG;
	default:
		return TCM_ORDERED_TAG;
	}
}

/**
 * srpt_cmd_fail_early() - answer an SRP_CMD that cannot be executed
 * @ioctx: send context whose LIO command was initialised
 * @reason: sense to report
 *
 * The command gets CHECK CONDITION with sense data and never reaches a
 * backstore; when memory ran out it gets TASK SET FULL instead, as LIO
 * answers TCM_OUT_OF_RESOURCES, so that the initiator retries it.
 */
static void srpt_cmd_fail_early(struct srpt_send_ioctx *ioctx,
				sense_reason_t reason)
{
	struct se_cmd *cmd = &ioctx->cmd;

	cmd->t_task_cdb = cmd->__t_task_cdb;
	if (reason == TCM_OUT_OF_RESOURCES) {
		cmd->scsi_status = SAM_STAT_TASK_SET_FULL;
		cmd->se_tfo->queue_status(cmd);
	} else {
		transport_send_check_condition_and_sense(cmd, reason, 0);
	}
	target_put_sess_cmd(cmd);
}

/**
 * srpt_varlen_data_dir() - data direction of a variable-length CDB
 * @cdb: a CDB with opcode 7Fh; its first 16 bytes are readable
 *
 * Return: the direction its service action implies, or DMA_NONE.
 */
static enum dma_data_direction srpt_varlen_data_dir(const u8 *cdb)
{
	switch (get_unaligned_be16(&cdb[8])) {
	case WRITE_32:
	case WRITE_VERIFY_32:
	case WRITE_SAME_32:
		return DMA_TO_DEVICE;
	case READ_32:
		return DMA_FROM_DEVICE;
	default:
		return DMA_NONE;
	}
}

/**
 * srpt_cdb_data_dir() - data direction a CDB implies
 * @cdb: the CDB; at least 16 bytes are readable
 *
 * Lists every data-out and data-in command LIO's SBC and SPC emulation
 * accepts in 6.12 (sbc_parse_cdb(), spc_parse_cdb()) plus common ones that
 * only pass-through backstores execute.
 *
 * Return: DMA_TO_DEVICE for commands that carry data to the target,
 * DMA_FROM_DEVICE for commands that return data, DMA_NONE for commands
 * without data or not listed here (LIO judges those).
 */
static enum dma_data_direction srpt_cdb_data_dir(const u8 *cdb)
{
	switch (cdb[0]) {
	case WRITE_6:
	case WRITE_10:
	case WRITE_12:
	case WRITE_16:
	case WRITE_VERIFY:
	case WRITE_VERIFY_12:
	case WRITE_VERIFY_16:
	case WRITE_SAME:
	case WRITE_SAME_16:
	case WRITE_LONG:
	case WRITE_LONG_2:
	case COMPARE_AND_WRITE:
	case UNMAP:
	case FORMAT_UNIT:
	case REASSIGN_BLOCKS:
	case MODE_SELECT:
	case MODE_SELECT_10:
	case LOG_SELECT:
	case SEND_DIAGNOSTIC:
	case WRITE_BUFFER:
	case PERSISTENT_RESERVE_OUT:
	case RESERVE_10:
	case RELEASE_10:
	case EXTENDED_COPY:
	case MAINTENANCE_OUT:
	case SECURITY_PROTOCOL_OUT:
	case WRITE_ATTRIBUTE:
	case ACCESS_CONTROL_OUT:
	case SERVICE_ACTION_OUT_16:
	case SEND_VOLUME_TAG:
		return DMA_TO_DEVICE;
	case READ_6:
	case READ_10:
	case READ_12:
	case READ_16:
	case INQUIRY:
	case MODE_SENSE:
	case MODE_SENSE_10:
	case READ_CAPACITY:
	case SERVICE_ACTION_IN_16:
	case REPORT_LUNS:
	case REQUEST_SENSE:
	case LOG_SENSE:
	case RECEIVE_DIAGNOSTIC:
	case READ_BUFFER:
	case READ_DEFECT_DATA:
	case PERSISTENT_RESERVE_IN:
	case MAINTENANCE_IN:
	case RECEIVE_COPY_RESULTS:
	case SECURITY_PROTOCOL_IN:
	case READ_ATTRIBUTE:
	case ACCESS_CONTROL_IN:
		return DMA_FROM_DEVICE;
	case VARIABLE_LENGTH_CMD:
		return srpt_varlen_data_dir(cdb);
	default:
		return DMA_NONE;
	}
}

/**
 * srpt_cdb_dir_conflict() - check a CDB against the data direction
 * @cdb: the CDB
 * @dir: direction of the data descriptors
 *
 * A command that moves data to the medium must come with a data-out buffer
 * and one that returns data with a data-in buffer; otherwise a WRITE could
 * store uninitialised pages, or a READ overwrite the initiator's buffer.
 *
 * Return: true when the descriptors point the other way than the CDB.
 */
static bool srpt_cdb_dir_conflict(const u8 *cdb, enum dma_data_direction dir)
{
	enum dma_data_direction want = srpt_cdb_data_dir(cdb);

	return want != DMA_NONE && dir != DMA_NONE && dir != want;
}

/**
 * srpt_pr_refused() - whether a persistent reservation comes from a nexus
 *	without a TransportID
 * @ch: SRPT RDMA channel
 * @cmd: the command, parsed by LIO (target_submit_prep())
 *
 * LIO names every registrant of a persistent reservation with an SRP
 * TransportID that it decodes from the hex digits of the nexus's ACL name
 * (srp_get_pr_transport_id()). A nexus whose ACL is named by an IP address
 * or a GUID has none: READ FULL STATUS would
 * end its list at that registrant, hiding it and all registrants after it,
 * and all initiator ports that log in from that address would share one
 * registration, so a reservation would not fence them from each other.
 * PERSISTENT RESERVE IN and OUT from such a nexus are therefore answered as
 * an unsupported command, so that cluster software stops at once with a
 * clear error rather than fencing the wrong ports. A backstore that handles
 * persistent reservations itself (pass-through) needs no TransportID from
 * LIO and is left alone.
 *
 * Return: true when @cmd must be answered with INVALID COMMAND OPERATION
 * CODE.
 */
static bool srpt_pr_refused(struct srpt_rdma_ch *ch, struct se_cmd *cmd)
{
	u8 op = cmd->t_task_cdb[0];
	const char *name;
	u8 id[16];

	if (op != PERSISTENT_RESERVE_IN && op != PERSISTENT_RESERVE_OUT)
		return false;
	if (cmd->se_dev->transport_flags & TRANSPORT_FLAG_PASSTHROUGH_PGR)
		return false;
	name = ch->sess->se_node_acl->initiatorname;
	if (!srpt_parse_i_port_id(id, name))
		return false;
	pr_warn_ratelimited("%s: PERSISTENT RESERVE %s refused: an ACL not named by an initiator port ID has no SRP TransportID; clusters need ACLs named 0x<32 hex digits> (targetcli: ib.<32 hex digits>)\n",
			    name, op == PERSISTENT_RESERVE_IN ? "IN" : "OUT");
	return true;
}

/**
 * srpt_xcopy_refused() - whether an EXTENDED COPY must not reach LIO
 * @cmd: the command, parsed by LIO (target_submit_prep())
 *
 * LIO 6.12 carries out EXTENDED COPY with READ and WRITE commands of its
 * own whose task attribute is 0, neither SIMPLE nor HEAD OF QUEUE: each is
 * counted as running on its device (dev->non_ordered) and never taken out
 * of the count. After one copy every ORDERED command to the source or the
 * destination device waits for ever, so do the commands behind it and any
 * LOGICAL UNIT RESET, for all initiators. Its parser also logs every
 * malformed parameter list without a rate limit. EXTENDED COPY is therefore
 * answered as LIO answers it when emulate_3pc is 0, as an unsupported
 * command, so that initiators fall back to READ and WRITE. A pass-through
 * backstore executes the command itself and is left alone.
 *
 * Return: true when @cmd must be answered with INVALID COMMAND OPERATION
 * CODE.
 */
static bool srpt_xcopy_refused(struct se_cmd *cmd)
{
	if (cmd->t_task_cdb[0] != EXTENDED_COPY)
		return false;
	if (cmd->se_dev->transport_flags & TRANSPORT_FLAG_PASSTHROUGH)
		return false;
	pr_info_ratelimited("EXTENDED COPY refused: LIO would never finish ORDERED commands after it (set emulate_3pc to 0 on the backstore to stop advertising it)\n");
	return true;
}

/**
 * srpt_take_cmd() - take everything a command needs out of its SRP_CMD
 * @ch: SRPT RDMA channel
 * @recv_ioctx: receive I/O context holding the IU
 * @ioctx: send I/O context for the command
 * @cdb: result: copy of the CDB and the additional CDB bytes
 * @sg: result: scatterlist of immediate data, or NULL
 * @sg_cnt: result: number of entries in @sg
 *
 * Afterwards the IU is not read again, so its receive buffer may go back
 * to the initiator (unless @ioctx holds it for immediate data used in
 * place).
 *
 * Return: TCM_NO_SENSE, or the sense to answer the command with.
 */
static sense_reason_t srpt_take_cmd(struct srpt_rdma_ch *ch,
				    struct srpt_recv_ioctx *recv_ioctx,
				    struct srpt_send_ioctx *ioctx, u8 *cdb,
				    struct scatterlist **sg,
				    unsigned int *sg_cnt)
{
	const struct srp_cmd *srp_cmd = recv_ioctx->ioctx.buf +
		recv_ioctx->ioctx.offset;
	int ret;

	ret = srpt_get_desc_tbl(recv_ioctx, ioctx, srp_cmd, sg, sg_cnt,
				ch->imm_data_offset);
	if (ret) {
		pr_debug("%s: tag %#llx: bad data descriptors or CDB length (%d)\n",
			 ch->sess_name, ioctx->tag, ret);
		return ret == -ENOMEM ? TCM_OUT_OF_RESOURCES :
			TCM_INVALID_FIELD_IN_COMMAND_IU;
	}
	memcpy(cdb, srp_cmd->cdb,
	       sizeof(srp_cmd->cdb) + (srp_cmd->add_cdb_len & ~3));
	if (srpt_cdb_dir_conflict(cdb, ioctx->dir)) {
		pr_debug("%s: tag %#llx: opcode %#x with the wrong direction\n",
			 ch->sess_name, ioctx->tag, cdb[0]);
		return TCM_INVALID_FIELD_IN_COMMAND_IU;
	}
	return TCM_NO_SENSE;
}

/**
 * srpt_handle_cmd() - process an SRP_CMD information unit
 * @ch: SRPT RDMA channel
 * @recv_ioctx: receive I/O context holding the IU
 * @send_ioctx: send I/O context for the command
 *
 * The receive buffer is given back exactly once: right after the IU was
 * copied, or, with immediate data used in place, by whoever releases the
 * command.
 *
 * LIO parses the CDB first (target_submit_prep() without a buffer); the
 * data buffer is allocated afterwards for the length the CDB transfers
 * (srpt_alloc_data_buf()) and the command submitted then.
 */
static void srpt_handle_cmd(struct srpt_rdma_ch *ch,
			    struct srpt_recv_ioctx *recv_ioctx,
			    struct srpt_send_ioctx *send_ioctx)
{
	struct srp_cmd *srp_cmd = recv_ioctx->ioctx.buf +
		recv_ioctx->ioctx.offset;
	struct se_cmd *cmd = &send_ioctx->cmd;
	u32 len = recv_ioctx->byte_len;
	u8 cdb[SRPT_MAX_CDB_LEN];
	struct scatterlist *sg = NULL;
	unsigned int sg_cnt = 0;
	sense_reason_t reason;
	u64 lun = 0;
	int attr;

	if (len < offsetof(struct srp_cmd, tag) + sizeof(srp_cmd->tag)) {
		pr_warn_ratelimited("%s: SRP_CMD of %u bytes dropped\n",
				    ch->sess_name, len);
		srpt_put_send_ioctx(send_ioctx);
		srpt_recycle_recv(ch, recv_ioctx, true);
		return;
	}
	send_ioctx->tag = srp_cmd->tag;
	if (len >= offsetof(struct srp_cmd, lun) + sizeof(srp_cmd->lun))
		lun = scsilun_to_int(&srp_cmd->lun);
	attr = srpt_task_attr(srp_cmd->task_attr);
	reason = srpt_take_cmd(ch, recv_ioctx, send_ioctx, cdb, &sg, &sg_cnt);
	trace_srpt_cmd(ch->peer, ch->cid, send_ioctx->tag, lun,
		       reason ? 0 : cdb[0], send_ioctx->data_len,
		       send_ioctx->dir);
	if (!send_ioctx->recv_ioctx)
		srpt_recycle_recv(ch, recv_ioctx, true);
	/* From here on the IU may be another one: only the copies are used. */

	cmd->tag = send_ioctx->tag;
	if (target_init_cmd(cmd, ch->sess, send_ioctx->sense_data, lun,
			    send_ioctx->data_len, reason ? TCM_SIMPLE_TAG : attr,
			    send_ioctx->dir, TARGET_SCF_ACK_KREF)) {
		/* The session is being stopped. */
		srpt_free_cmd_bufs(send_ioctx);
		srpt_put_send_ioctx(send_ioctx);
		return;
	}
	atomic64_inc(&ch->stats.cmds);
	if (reason) {
		srpt_cmd_fail_early(send_ioctx, reason);
		return;
	}
	/* On failure LIO answers the command (and may already release it). */
	if (target_submit_prep(cmd, cdb, sg, sg_cnt, NULL, 0, NULL, 0,
			       GFP_KERNEL))
		return;
	/* LIO has found the logical unit: a task-set function may abort it. */
	send_ioctx->lu = cmd->se_dev;
	/* Pairs with srpt_tsk_mark_ch(), which reads lu once it sees this. */
	smp_store_release(&send_ioctx->abortable, true);
	if (srpt_pr_refused(ch, cmd) || srpt_xcopy_refused(cmd))
		reason = TCM_UNSUPPORTED_SCSI_OPCODE;
	/* The CDB asks for data but no buffer came with it. */
	else if (send_ioctx->dir == DMA_NONE &&
		 (cmd->se_cmd_flags & SCF_OVERFLOW_BIT) &&
		 srpt_cdb_data_dir(cmd->t_task_cdb) != DMA_NONE)
		reason = TCM_INVALID_FIELD_IN_COMMAND_IU;
	else
		reason = srpt_alloc_data_buf(send_ioctx);
	if (reason) {
		srpt_fail_cmd(send_ioctx, reason);
		return;
	}
	target_submit(cmd);
}

/**
 * srpt_tmr_func() - LIO task management function of an SRP one
 * @func: TASK MANAGEMENT FLAGS field of SRP_TSK_MGMT
 *
 * Return: the TMR_* value; TMR_UNKNOWN makes LIO answer "not supported".
 */
static u8 srpt_tmr_func(u8 func)
{
	switch (func) {
	case SRP_TSK_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRP_TSK_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRP_TSK_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRP_TSK_LUN_RESET:
		return TMR_LUN_RESET;
	case SRP_TSK_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return TMR_UNKNOWN;
	}
}

/* Task management: ABORT TASK SET and CLEAR TASK SET -------------------- */

/*
 * LIO 6.12 answers ABORT TASK SET and CLEAR TASK SET "not supported", so
 * the driver does the work itself. When the function arrives, every SCSI
 * command it concerns is marked (srpt_send_ioctx.abort_by). A marked
 * command gets no response (or TASK ABORTED, see srpt_tsk_withhold()) and
 * no data-in transfer. The function goes to LIO only once every marked
 * command has been released, for the session's command count and LIO's
 * answer, which becomes the response: until then LIO knows nothing of it,
 * so nothing in LIO (a LOGICAL UNIT RESET, or a PERSISTENT RESERVE OUT
 * PREEMPT AND ABORT, which waits for every task management function of
 * the device) can wait for a function that waits for commands. The
 * backstore still executes a marked command that it already has: LIO
 * exports no way for a fabric to take a command back from it, so the
 * function waits for it instead.
 */

/* Send contexts looked at under one hold of a channel's lock. */
#define SRPT_TSK_MARK_BATCH	64

/*
 * Task-set functions of one channel that may wait at the same time. Each
 * one walks the rings of the channels in its scope under the port's
 * mutex; more are handed to LIO unmarked, which answers them "not
 * supported", in SRP-2 the same code as FUNCTION REJECTED (04h).
 */
#define SRPT_TSK_MAX_HELD	4

#if IS_ENABLED(CONFIG_INFINIBAND_SRPT_KUNIT_TEST)
/* KUnit's stand-in for LIO in srpt_tsk_submit(), or NULL. */
static int (*srpt_tsk_submit_hook)(struct srpt_tsk_wait *w);
#endif

/**
 * srpt_tsk_submit() - hand a task-set function to LIO
 * @w: the function's wait, with nothing left to wait for
 *
 * Return: 0 or the error of target_submit_tmr().
 */
static int srpt_tsk_submit(struct srpt_tsk_wait *w)
{
#if IS_ENABLED(CONFIG_INFINIBAND_SRPT_KUNIT_TEST)
	if (srpt_tsk_submit_hook)
		return srpt_tsk_submit_hook(w);
#endif
	return target_submit_tmr(&w->tmf->cmd, w->ch->sess, NULL, w->lun, NULL,
				 srpt_tmr_func(w->func), GFP_KERNEL, 0,
				 TARGET_SCF_ACK_KREF);
}

/**
 * srpt_tsk_wait_work() - hand a task-set function to LIO once it is done
 * @work: srpt_tsk_wait.work
 *
 * Runs once no command the function marked is left; LIO's answer then
 * comes back through srpt_queue_tm_rsp() as for any function. When LIO
 * refuses it (no memory) the function has nonetheless taken effect: every
 * command it marked has ended without a response or with TASK ABORTED.
 * It is answered FUNCTION COMPLETE, as srpt_tmr_rsp_code() answers LIO's
 * "not supported" for it, so that the initiator does not retry or escalate
 * for commands that are gone (srpt_tmf_not_submitted(); no answer when the
 * channel is closing). Frees the wait; the channel's release may go on
 * once srpt_rdma_ch.tsk_held is zero.
 */
static void srpt_tsk_wait_work(struct work_struct *work)
{
	struct srpt_tsk_wait *w = container_of(work, struct srpt_tsk_wait,
					       work);
	struct srpt_rdma_ch *ch = w->ch;
	int ret;

	ret = srpt_tsk_submit(w);
	if (ret) {
		pr_debug("%s: TMF not submitted (%d)\n", ch->sess_name, ret);
		srpt_tmf_not_submitted(ch, w->tmf, SRPT_TSK_MGMT_COMPLETE);
	}
	if (w->se_lun)
		percpu_ref_put(&w->se_lun->lun_ref);
	kfree(w);
	/* The last access to the channel: its release waits for this. */
	if (atomic_dec_and_test(&ch->tsk_held))
		wake_up_all(&srpt_ch_released_wq);
}

/**
 * srpt_tsk_behind() - whether a task-set function waits for an earlier one
 * @sport: port whose srpt_port.tsk_waits holds @w
 * @w: an ordered wait
 *
 * Caller holds @sport->tsk_lock.
 *
 * Return: true if a wait before @w in @sport->tsk_waits has the same
 * logical unit.
 */
static bool srpt_tsk_behind(struct srpt_port *sport, struct srpt_tsk_wait *w)
{
	struct srpt_tsk_wait *e;

	list_for_each_entry(e, &sport->tsk_waits, entry) {
		if (e == w)
			return false;
		if (e->lu == w->lu)
			return true;
	}
	return false;
}

/**
 * srpt_tsk_wait_put() - one thing a task-set function waited for is done
 * @w: the function's wait
 *
 * When the last one is done, the function goes to LIO (from srpt_tsk_wq,
 * an ordered queue: this may run in a completion handler or in LIO's
 * release of a command), unless the function found commands an earlier
 * one had marked (@w->ordered): then it goes after every earlier function
 * of its logical unit, but passes those of other logical units.
 */
static void srpt_tsk_wait_put(struct srpt_tsk_wait *w)
{
	struct srpt_port *sport = w->sport;
	struct srpt_tsk_wait *e, *next;
	unsigned long flags;

	if (!atomic_dec_and_test(&w->pending))
		return;
	spin_lock_irqsave(&sport->tsk_lock, flags);
	w->ready = true;
	/* Queued under the lock, so in the order they became ready. */
	list_for_each_entry_safe(e, next, &sport->tsk_waits, entry) {
		if (!e->ready || (e->ordered && srpt_tsk_behind(sport, e)))
			continue;
		list_del_init(&e->entry);
		queue_work(srpt_tsk_wq, &e->work);
	}
	spin_unlock_irqrestore(&sport->tsk_lock, flags);
}

/**
 * srpt_tsk_wait_alloc() - start the wait of a task-set function
 * @ch: channel the function arrived on
 * @tmf: its send context
 * @func: the SRP function
 * @lun: its LUN
 *
 * The wait holds one count for the marking, and counts in the channel's
 * srpt_rdma_ch.tsk_held until it has been handed to LIO.
 *
 * Return: the wait; NULL without memory.
 */
static struct srpt_tsk_wait *srpt_tsk_wait_alloc(struct srpt_rdma_ch *ch,
						 struct srpt_send_ioctx *tmf,
						 u8 func, u64 lun)
{
	struct srpt_tsk_wait *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	INIT_LIST_HEAD(&w->entry);
	INIT_WORK(&w->work, srpt_tsk_wait_work);
	w->sport = ch->sport;
	w->ch = ch;
	w->tmf = tmf;
	w->func = func;
	w->lun = lun;
	atomic_set(&w->pending, 1);
	atomic_inc(&ch->tsk_held);
	tmf->task_set = true;
	return w;
}

/**
 * srpt_tsk_lu() - the logical unit a task management function names
 * @ch: channel the function arrived on
 * @lun: its LUN
 * @tas: result: the TAS bit of the logical unit's Control mode page
 * @se_lun: result: LIO's LUN, with a reference to its lun_ref that keeps
 *	the device; the caller drops it
 *
 * The same look-up as LIO's for the function (the ACL's mapped LUNs, a LUN
 * that is being removed counts as missing).
 *
 * Return: LIO's device behind @lun for the channel's ACL, only to be
 * compared; NULL if there is none (LIO then answers the function itself).
 */
static const struct se_device *srpt_tsk_lu(struct srpt_rdma_ch *ch, u64 lun,
					   bool *tas, struct se_lun **se_lun)
{
	const struct se_device *dev = NULL;
	struct se_dev_entry *deve;
	struct se_device *d;
	struct se_lun *l;

	*tas = false;
	*se_lun = NULL;
	if (!ch->sess || !ch->sess->se_node_acl)
		return NULL;
	rcu_read_lock();
	hlist_for_each_entry_rcu(deve, &ch->sess->se_node_acl->lun_entry_hlist,
				 link) {
		if (deve->mapped_lun != lun)
			continue;
		l = deve->se_lun;
		if (!l || !percpu_ref_tryget_live(&l->lun_ref))
			break;
		d = rcu_dereference(l->lun_se_dev);
		if (!d) {
			percpu_ref_put(&l->lun_ref);
			break;
		}
		*tas = d->dev_attrib.emulate_tas;
		*se_lun = l;
		dev = d;
		break;
	}
	rcu_read_unlock();
	return dev;
}

/**
 * srpt_tsk_mark_ch() - mark the commands of one channel for a task-set
 *	function
 * @ch: a channel whose rings exist while the caller holds its port's mutex
 * @w: the function's wait
 * @lu: the logical unit
 * @tas: answer the marked commands TASK ABORTED
 *
 * Every SCSI command of @lu that has not been released is marked, whether
 * its response is still to come or already on its way: the function is
 * answered only after each of them is released, so after any response of
 * theirs. A command another function marked first stays with it, and @w is
 * answered after that one. The ring is walked in pieces, each under the
 * channel's lock, with a chance to reschedule in between; an idle channel
 * costs one look at its free count.
 */
static void srpt_tsk_mark_ch(struct srpt_rdma_ch *ch, struct srpt_tsk_wait *w,
			     const struct se_device *lu, bool tas)
{
	struct srpt_send_ioctx *io;
	unsigned long flags;
	int i, end;

	for (i = 0; i < ch->rq_size; i = end) {
		end = min(i + SRPT_TSK_MARK_BATCH, ch->rq_size);
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->n_free >= ch->rq_size) {
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		for (; i < end; i++) {
			io = ch->ioctx_ring[i];
			/* Pairs with srpt_handle_cmd(): @lu is set before. */
			if (!smp_load_acquire(&io->abortable) || io->lu != lu)
				continue;
			if (io->abort_by) {
				w->ordered = true;
				continue;
			}
			io->abort_tas = tas;
			atomic_inc(&w->pending);
			/* Pairs with srpt_tsk_withhold(): @abort_tas first. */
			smp_store_release(&io->abort_by, w);
		}
		spin_unlock_irqrestore(&ch->lock, flags);
		cond_resched();
	}
}

/**
 * srpt_tsk_mark() - mark the commands a task-set function aborts
 * @ch: channel the function arrived on
 * @w: the function's wait
 * @lu: its logical unit
 * @clear: CLEAR TASK SET (the task set of every I_T nexus) rather than
 *	ABORT TASK SET (that of the function's own I_T nexus)
 * @tas: the logical unit's TAS bit
 *
 * ABORT TASK SET covers the commands of every channel of the function's
 * I_T nexus; CLEAR TASK SET those of every I_T nexus of the HCA port,
 * whatever target port (WWN, TPG) and LUN number they reach the logical
 * unit through. A channel that is being released counts until its rings
 * are freed (srpt_rdma_ch.rings_gone), which is after its last command
 * has been released. With @tas, the commands of other I_T nexuses get
 * TASK ABORTED (SAM-5, the Control mode page's TAS bit). The port's mutex
 * keeps the channels and their rings, and makes the markings of two
 * functions one after the other.
 */
static void srpt_tsk_mark(struct srpt_rdma_ch *ch, struct srpt_tsk_wait *w,
			  const struct se_device *lu, bool clear, bool tas)
{
	struct srpt_port *sport = ch->sport;
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *other;

	w->lu = lu;
	mutex_lock(&sport->mutex);
	spin_lock_irq(&sport->tsk_lock);
	list_add_tail(&w->entry, &sport->tsk_waits);
	spin_unlock_irq(&sport->tsk_lock);
	if (!ch->nexus) {
		srpt_tsk_mark_ch(ch, w, lu, false);
		mutex_unlock(&sport->mutex);
		return;
	}
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		if (nexus != ch->nexus && !clear)
			continue;
		list_for_each_entry(other, &nexus->ch_list, list) {
			if (other->rings_gone || !other->ioctx_ring)
				continue;
			srpt_tsk_mark_ch(other, w, lu,
					 tas && nexus != ch->nexus);
		}
	}
	mutex_unlock(&sport->mutex);
}

/**
 * srpt_tsk_withhold() - how a command marked by a task-set function ends
 * @ioctx: send context of a SCSI command whose response is due
 *
 * A response that reports state LIO has already cleared goes out: a CHECK
 * CONDITION with UNIT ATTENTION (LIO clears the unit attention condition
 * when it reports it, at execution) and the data of REQUEST SENSE. Such a
 * command is taken as completed before the function; the function's
 * response follows it. A command of another I_T nexus gets TASK ABORTED
 * without data when its logical unit has TAS set.
 *
 * Return: true if the response must not be sent.
 */
static bool srpt_tsk_withhold(struct srpt_send_ioctx *ioctx)
{
	struct se_cmd *cmd = &ioctx->cmd;
	struct scsi_sense_hdr sshdr;

	/* Pairs with srpt_tsk_mark_ch(): @abort_tas is read after. */
	if (!smp_load_acquire(&ioctx->abort_by))
		return false;
	if (cmd->t_task_cdb && cmd->t_task_cdb[0] == REQUEST_SENSE)
		return false;
	if (cmd->scsi_status == SAM_STAT_CHECK_CONDITION &&
	    scsi_normalize_sense(ioctx->sense_data, cmd->scsi_sense_length,
				 &sshdr) &&
	    sshdr.sense_key == UNIT_ATTENTION)
		return false;
	if (!ioctx->abort_tas)
		return true;
	cmd->scsi_status = SAM_STAT_TASK_ABORTED;
	cmd->scsi_sense_length = 0;
	cmd->se_cmd_flags &= ~(SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT);
	cmd->residual_count = 0;
	ioctx->status_only = true;
	return false;
}

/**
 * srpt_tsk_may_hold() - whether a channel may start one more task-set wait
 * @ch: channel a task-set function arrived on
 *
 * Return: true below %SRPT_TSK_MAX_HELD waiting functions.
 */
static bool srpt_tsk_may_hold(struct srpt_rdma_ch *ch)
{
	return atomic_read(&ch->tsk_held) < SRPT_TSK_MAX_HELD;
}

/**
 * srpt_handle_task_set() - ABORT TASK SET or CLEAR TASK SET
 * @ch: channel the function arrived on
 * @send_ioctx: its send context, in state MGMT
 * @func: SRP_TSK_ABORT_TASK_SET or SRP_TSK_CLEAR_TASK_SET
 * @lun: its LUN
 *
 * The commands are marked before any later IU of the channel is processed;
 * the function goes to LIO once they are released (srpt_tsk_wait_work()).
 * LIO gets it at once, unmarked, and answers it alone ("not supported",
 * 04h) when the channel has %SRPT_TSK_MAX_HELD functions waiting already
 * or there is no memory for the wait; and when the LUN is not mapped
 * (FAILED).
 *
 * Return: 0 or the error of target_submit_tmr().
 */
static int srpt_handle_task_set(struct srpt_rdma_ch *ch,
				struct srpt_send_ioctx *send_ioctx, u8 func,
				u64 lun)
{
	struct srpt_tsk_wait *w = NULL;
	const struct se_device *lu;
	struct se_lun *se_lun;
	bool tas;

	if (!srpt_tsk_may_hold(ch)) {
		pr_debug("%s: task management function %#x not carried out: %d waiting\n",
			 ch->sess_name, func, SRPT_TSK_MAX_HELD);
		goto lio;
	}
	lu = srpt_tsk_lu(ch, lun, &tas, &se_lun);
	if (!lu)
		goto lio;
	w = srpt_tsk_wait_alloc(ch, send_ioctx, func, lun);
	if (!w) {
		percpu_ref_put(&se_lun->lun_ref);
		pr_warn_ratelimited("%s: no memory for task management function %#x\n",
				    ch->sess_name, func);
		goto lio;
	}
	w->se_lun = se_lun;
	srpt_tsk_mark(ch, w, lu, func == SRP_TSK_CLEAR_TASK_SET, tas);
	srpt_tsk_wait_put(w);
	return 0;

lio:
	return target_submit_tmr(&send_ioctx->cmd, ch->sess, NULL, lun, NULL,
				 srpt_tmr_func(func), GFP_KERNEL, 0,
				 TARGET_SCF_ACK_KREF);
}

/**
 * srpt_tmf_not_submitted() - answer a task management function LIO refused
 * @ch: SRPT RDMA channel
 * @ioctx: the function's send context; LIO holds no reference to it
 * @rsp_code: SRPT_TSK_MGMT_FAILED, or SRPT_TSK_MGMT_COMPLETE for a
 *	task-set function this driver has already carried out
 *
 * target_submit_tmr() fails when LIO cannot allocate the request or the
 * session is being stopped. The initiator still gets an answer on the
 * function's tag, with the credits owed, instead of waiting for its
 * timeout; the context is released when that response was sent
 * (srpt_send_finished()), as for an SRP_CRED_REQ.
 */
static void srpt_tmf_not_submitted(struct srpt_rdma_ch *ch,
				   struct srpt_send_ioctx *ioctx, u8 rsp_code)
{
	/* When LIO refused the function it freed its request again. */
	ioctx->cmd.se_tmr_req = NULL;
	ioctx->cmd.se_cmd_flags &= ~SCF_SCSI_TMR_CDB;
	if (READ_ONCE(ch->state) != CH_LIVE) {
		srpt_put_send_ioctx(ioctx);
		return;
	}
	ioctx->own_rsp = true;
	srpt_set_cmd_state(ioctx, SRPT_STATE_MGMT_RSP_SENT);
	ioctx->rsp_len = srpt_build_tskmgmt_rsp(ch, ioctx, rsp_code,
						ioctx->tag);
	ioctx->sq_wr_held = 1;
	if (srpt_sq_reserve(ch, ioctx, 1, true))
		srpt_post_response(ioctx);
}

/**
 * srpt_handle_tsk_mgmt() - process an SRP_TSK_MGMT information unit
 * @ch: SRPT RDMA channel
 * @recv_ioctx: receive I/O context holding the IU
 * @send_ioctx: send I/O context for the response
 *
 * The function is handed to LIO; its answer comes back through
 * srpt_queue_tm_rsp(). ABORT TASK SET and CLEAR TASK SET are carried out
 * here (srpt_handle_task_set()).
 */
static void srpt_handle_tsk_mgmt(struct srpt_rdma_ch *ch,
				 struct srpt_recv_ioctx *recv_ioctx,
				 struct srpt_send_ioctx *send_ioctx)
{
	struct srp_tsk_mgmt *tsk = recv_ioctx->ioctx.buf +
		recv_ioctx->ioctx.offset;
	u64 lun, task_tag;
	u8 func;
	int ret;

	if (recv_ioctx->byte_len < sizeof(*tsk)) {
		pr_warn_ratelimited("%s: SRP_TSK_MGMT of %u bytes dropped\n",
				    ch->sess_name, recv_ioctx->byte_len);
		srpt_put_send_ioctx(send_ioctx);
		srpt_recycle_recv(ch, recv_ioctx, true);
		return;
	}
	atomic64_inc(&ch->stats.tmfs);
	send_ioctx->tag = tsk->tag;
	send_ioctx->cmd.tag = tsk->tag;
	lun = scsilun_to_int(&tsk->lun);
	task_tag = tsk->task_tag;
	func = tsk->tsk_mgmt_func;
	trace_srpt_tmf(ch->peer, ch->cid, tsk->tag, lun, func, task_tag);
	srpt_set_cmd_state(send_ioctx, SRPT_STATE_MGMT);
	srpt_recycle_recv(ch, recv_ioctx, true);

	pr_debug("%s: TMF %#x lun %llu task %#llx\n", ch->sess_name, func,
		 lun, task_tag);
	if (func == SRP_TSK_ABORT_TASK_SET || func == SRP_TSK_CLEAR_TASK_SET)
		ret = srpt_handle_task_set(ch, send_ioctx, func, lun);
	else
		ret = target_submit_tmr(&send_ioctx->cmd, ch->sess, NULL, lun,
					NULL, srpt_tmr_func(func), GFP_KERNEL,
					task_tag, TARGET_SCF_ACK_KREF);
	if (ret) {
		pr_debug("%s: TMF not submitted (%d)\n", ch->sess_name, ret);
		srpt_tmf_not_submitted(ch, send_ioctx, SRPT_TSK_MGMT_FAILED);
	}
}

/**
 * srpt_handle_credit_free_iu() - handle an IU that uses no credit, at once
 * @ch: RDMA channel, in any state
 * @recv_ioctx: an SRP_I_LOGOUT, SRP_CRED_RSP or SRP_AER_RSP
 *
 * Credits bound the IUs an initiator may have waiting; these three are
 * outside that bound, so they never wait: a connecting channel (whose
 * RTU an initiator can withhold) would otherwise keep each one's receive
 * buffer, in SRQ mode one every channel of the device needs.
 */
static void srpt_handle_credit_free_iu(struct srpt_rdma_ch *ch,
				       struct srpt_recv_ioctx *recv_ioctx)
{
	const u8 *iu = recv_ioctx->ioctx.buf + recv_ioctx->ioctx.offset;

	if (iu[0] == SRP_I_LOGOUT)
		srpt_close_ch(ch, "the initiator logged out");
	srpt_recycle_recv(ch, recv_ioctx, false);
}

/**
 * srpt_handle_new_iu() - process a newly received information unit
 * @ch: RDMA channel through which the information unit has been received
 * @recv_ioctx: receive I/O context associated with the information unit
 *
 * Return: true when the IU was consumed; false when it has to wait for a
 * free send context (the caller queues it).
 */
static bool srpt_handle_new_iu(struct srpt_rdma_ch *ch,
			       struct srpt_recv_ioctx *recv_ioctx)
{
	const u8 *iu = recv_ioctx->ioctx.buf + recv_ioctx->ioctx.offset;
	struct srpt_send_ioctx *send_ioctx;
	u8 opcode;

	if (recv_ioctx->byte_len < 1) {
		srpt_recycle_recv(ch, recv_ioctx, true);
		return true;
	}
	opcode = iu[0];
	switch (opcode) {
	case SRP_CMD:
	case SRP_TSK_MGMT:
		send_ioctx = srpt_get_send_ioctx(ch);
		if (!send_ioctx)
			return false;
		if (opcode == SRP_CMD)
			srpt_handle_cmd(ch, recv_ioctx, send_ioctx);
		else
			srpt_handle_tsk_mgmt(ch, recv_ioctx, send_ioctx);
		return true;
	case SRP_I_LOGOUT:
	case SRP_CRED_RSP:
	case SRP_AER_RSP:
		srpt_handle_credit_free_iu(ch, recv_ioctx);
		return true;
	default:
		pr_warn_ratelimited("%s: IU with unknown opcode %#x ignored\n",
				    ch->sess_name, opcode);
		srpt_recycle_recv(ch, recv_ioctx, true);
		return true;
	}
}

/**
 * srpt_take_waiting_iu() - take the first IU off the wait list
 * @ch: RDMA channel, with @ch->recv_lock held
 *
 * Return: the IU or NULL.
 */
static struct srpt_recv_ioctx *srpt_take_waiting_iu(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *recv_ioctx;

	lockdep_assert_held(&ch->recv_lock);
	recv_ioctx = list_first_entry_or_null(&ch->cmd_wait_list,
					      struct srpt_recv_ioctx,
					      wait_list);
	if (recv_ioctx)
		list_del_init(&recv_ioctx->wait_list);
	return recv_ioctx;
}

/**
 * srpt_process_ius() - process a new IU and the IUs that had to wait
 * @ch: RDMA channel
 * @recv_ioctx: a newly received IU, or NULL
 *
 * IUs wait when they arrive before the channel is live, or when no send
 * context was free. They are processed in arrival order by one caller at a
 * time, which holds @ch->processing_wait_list meanwhile; a new IU that finds
 * nothing waiting is processed at once, by the same rule. A caller that
 * finds the list busy asks the running one to look again, so that a send
 * context freed meanwhile is not missed.
 *
 * An IU goes back on the wait list only while the channel is live: once
 * it is closing, srpt_release_channel_work() empties the list for the last
 * time (after waiting for srpt_ch_quiet()), and an IU added later would
 * never be given back, losing an SRQ buffer for good. Such an IU is given
 * back here instead.
 */
static void srpt_process_ius(struct srpt_rdma_ch *ch,
			     struct srpt_recv_ioctx *recv_ioctx)
{
	enum srpt_ch_state state;
	unsigned long flags;
	bool handled;

	spin_lock_irqsave(&ch->recv_lock, flags);
	if (recv_ioctx && ch->state > CH_LIVE) {
		spin_unlock_irqrestore(&ch->recv_lock, flags);
		srpt_recycle_recv(ch, recv_ioctx, false);
		return;
	}
	if (recv_ioctx && (ch->state == CH_CONNECTING ||
			   ch->processing_wait_list ||
			   !list_empty(&ch->cmd_wait_list))) {
		list_add_tail(&recv_ioctx->wait_list, &ch->cmd_wait_list);
		recv_ioctx = NULL;
	}
	if (ch->processing_wait_list) {
		ch->wait_list_kick = true;
		spin_unlock_irqrestore(&ch->recv_lock, flags);
		return;
	}
	ch->processing_wait_list = true;
	do {
		ch->wait_list_kick = false;
		while (ch->state == CH_LIVE) {
			if (!recv_ioctx)
				recv_ioctx = srpt_take_waiting_iu(ch);
			if (!recv_ioctx)
				break;
			spin_unlock_irqrestore(&ch->recv_lock, flags);
			handled = srpt_handle_new_iu(ch, recv_ioctx);
			spin_lock_irqsave(&ch->recv_lock, flags);
			if (handled) {
				recv_ioctx = NULL;
				continue;
			}
			if (ch->state == CH_LIVE) {
				list_add(&recv_ioctx->wait_list,
					 &ch->cmd_wait_list);
				recv_ioctx = NULL;
				break;
			}
			spin_unlock_irqrestore(&ch->recv_lock, flags);
			srpt_recycle_recv(ch, recv_ioctx, false);
			spin_lock_irqsave(&ch->recv_lock, flags);
			recv_ioctx = NULL;
		}
	} while (ch->wait_list_kick);
	ch->processing_wait_list = false;
	state = ch->state;
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	/* Only a first IU can be left: the channel went away under it. */
	if (recv_ioctx)
		srpt_recycle_recv(ch, recv_ioctx, false);
	if (state == CH_DISCONNECTED)
		wake_up_all(&srpt_ch_released_wq);
}

/**
 * srpt_process_wait_list() - process the IUs that had to wait
 * @ch: RDMA channel
 */
static void srpt_process_wait_list(struct srpt_rdma_ch *ch)
{
	srpt_process_ius(ch, NULL);
}

/**
 * srpt_credit_violation() - close a channel whose initiator ignores credits
 * @ch: RDMA channel
 * @recv_ioctx: the IU it had no credit for
 *
 * Such IUs would pile up on the wait list and, with an SRQ, take receive
 * buffers from every other channel of the device.
 */
static void srpt_credit_violation(struct srpt_rdma_ch *ch,
				  struct srpt_recv_ioctx *recv_ioctx)
{
	pr_warn_ratelimited("%s: the initiator sent more IUs than its %d credits; closing the channel\n",
			    ch->sess_name, ch->rq_size);
	srpt_close_ch(ch, "credit violation");
	srpt_recycle_recv(ch, recv_ioctx, false);
}

/**
 * srpt_recv_done() - receive completion handler
 * @cq: completion queue
 * @wc: work completion
 */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_recv_ioctx *recv_ioctx =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, ioctx.cqe);
	const u8 *iu;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_error(ch, wc, "receive");
		if (ch->use_srq)
			srpt_post_recv(ch->sport->sdev, ch, recv_ioctx);
		return;
	}
	recv_ioctx->byte_len = wc->byte_len;
	recv_ioctx->ch = ch;
	ib_dma_sync_single_for_cpu(ch->sport->sdev->device,
				   recv_ioctx->ioctx.dma +
				   recv_ioctx->ioctx.offset,
				   wc->byte_len, DMA_FROM_DEVICE);
	iu = recv_ioctx->ioctx.buf + recv_ioctx->ioctx.offset;
	if (!srpt_iu_uses_credit(iu, wc->byte_len)) {
		srpt_handle_credit_free_iu(ch, recv_ioctx);
		return;
	}
	if (READ_ONCE(ch->state) <= CH_LIVE && !srpt_credit_use(ch)) {
		srpt_credit_violation(ch, recv_ioctx);
		return;
	}
	srpt_process_ius(ch, recv_ioctx);
}

/* Data path: transfers and responses ------------------------------------ */

/**
 * srpt_wr_progress() - whether a work request in the middle is signaled
 * @start: bytes of the command's data that the work requests before it
 *	move
 * @end: @start plus the bytes it moves
 *
 * A work request is signaled when the data before its end reaches or
 * crosses a multiple of %SRPT_PROGRESS_BYTES: about one completion per
 * that many bytes whatever the descriptors and work requests, and none for
 * commands shorter than that.
 *
 * Return: true when the work request should be signaled.
 */
static bool srpt_wr_progress(u64 start, u64 end)
{
	return start / SRPT_PROGRESS_BYTES != end / SRPT_PROGRESS_BYTES;
}

/**
 * srpt_progress_done() - a work request in the middle of a command completed
 * @cq: completion queue
 * @wc: work completion; wr_cqe is the channel's progress_cqe
 *
 * Progress for srpt_ch_sq_stuck(). The command's send-queue slots are
 * given back and its failure handled by its own last completion, which
 * follows, flushed if this one failed; so an error other than a flush is
 * logged here, with srpt_wc_error(), which also closes the channel.
 */
static void srpt_progress_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = container_of(wc->wr_cqe, struct srpt_rdma_ch,
					       progress_cqe);
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			srpt_wc_error(ch, wc, "an RDMA transfer");
		return;
	}
	spin_lock_irqsave(&ch->lock, flags);
	ch->sq_progress = jiffies;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/**
 * srpt_wr_bytes() - bytes a work request moves
 * @wr: RDMA READ or WRITE, or a memory registration or invalidation (none)
 *
 * Return: the sum of its scatter/gather entries' lengths.
 */
static u64 srpt_wr_bytes(const struct ib_send_wr *wr)
{
	u64 bytes = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		bytes += wr->sg_list[i].length;
	return bytes;
}

/**
 * srpt_signal_progress() - signal a command's work requests about every MiB
 * @ch: RDMA channel
 * @first: first work request of the command's RDMA transfers
 * @end: what follows the last of them: NULL or the response
 *
 * rdma_rw splits each descriptor's transfer into work requests of at most
 * max_sge entries or one memory registration each, and only the last work
 * request of the command completes for the command. Signals for the
 * channel's progress_cqe each work request before that last one whose end
 * reaches or crosses a multiple of %SRPT_PROGRESS_BYTES of the command's
 * data (srpt_wr_progress()), so that a long transfer, one descriptor or
 * many, shows progress to max_hw_pending_time. Each is one of the slots
 * the command reserved already; memory registrations and invalidations
 * move no data and are never signaled.
 */
static void srpt_signal_progress(struct srpt_rdma_ch *ch,
				 struct ib_send_wr *first,
				 const struct ib_send_wr *end)
{
	struct ib_send_wr *wr;
	u64 done = 0, prev;

	for (wr = first; wr != end && wr->next != end; wr = wr->next) {
		prev = done;
		done += srpt_wr_bytes(wr);
		if (!srpt_wr_progress(prev, done))
			continue;
		wr->wr_cqe = &ch->progress_cqe;
		wr->send_flags |= IB_SEND_SIGNALED;
	}
}

/**
 * srpt_chain_rw_ctxs() - chain the RDMA transfers of a command
 * @ch: RDMA channel
 * @ioctx: command with @ioctx->n_rw_ctx transfers
 * @cqe: completion entry of the last transfer when @next is NULL
 * @next: work request to chain behind the last transfer, or NULL
 *
 * Only the last work request of the command is signaled for the command;
 * srpt_signal_progress() signals about one per MiB before it.
 *
 * Return: the first work request of the chain (@next when there is no
 * transfer).
 */
static struct ib_send_wr *srpt_chain_rw_ctxs(struct srpt_rdma_ch *ch,
					     struct srpt_send_ioctx *ioctx,
					     struct ib_cqe *cqe,
					     struct ib_send_wr *next)
{
	u32 port = ch->sport->port;
	struct ib_send_wr *first = next;
	int i;

	for (i = ioctx->n_rw_ctx - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&ioctx->rw_ctxs[i].rw, ch->qp, port,
					first ? NULL : cqe, first);
	srpt_signal_progress(ch, first, next);
	return first;
}

/**
 * srpt_post_rdma_read() - post the RDMA READs of a write command
 * @ioctx: send context whose send-queue slots are reserved
 *
 * Posted only while the channel is live (srpt_post_live()): a work request
 * posted after the zero-length write of a closing channel could complete
 * after the channel was released.
 *
 * Return: 0, -ENOTCONN or the error of ib_post_send(); on error the slots
 * are given back.
 */
static int srpt_post_rdma_read(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct ib_send_wr *first;
	int ret;

	ioctx->rdma_cqe.done = srpt_rdma_read_done;
	first = srpt_chain_rw_ctxs(ch, ioctx, &ioctx->rdma_cqe, NULL);
	ret = srpt_post_live(ch, first);
	if (ret) {
		if (ret != -ENOTCONN)
			pr_err_ratelimited("%s: posting RDMA READs failed (%d)\n",
					   ch->sess_name, ret);
		srpt_sq_release(ch, ioctx->n_rdma, false);
	}
	return ret;
}

/**
 * srpt_rdma_read_done() - the data-out buffer of a write has arrived
 * @cq: completion queue
 * @wc: work completion of the last RDMA READ
 *
 * Hands the command to LIO for execution; LIO itself notices when the
 * command was aborted meanwhile.
 */
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, rdma_cqe);

	srpt_sq_release(ch, ioctx->n_rdma, true);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_error(ch, wc, "RDMA READ");
		srpt_abort_cmd(ioctx);
		return;
	}
	if (!srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEED_DATA,
					 SRPT_STATE_DATA_IN)) {
		pr_err_ratelimited("%s: tag %#llx: RDMA READ done in state %s\n",
				   ch->sess_name, ioctx->tag,
				   srpt_cmd_state_name(READ_ONCE(ioctx->state)));
		return;
	}
	atomic64_add(ioctx->cmd.data_length, &ch->stats.write_bytes);
	target_execute_cmd(&ioctx->cmd);
}

/**
 * srpt_count_sent() - count a command whose response was sent
 * @ch: RDMA channel
 * @ioctx: send context of the response
 *
 * Data-in bytes count only when the RDMA WRITEs went out with the
 * response; LIO has trimmed data_length to what it produced.
 */
static void srpt_count_sent(struct srpt_rdma_ch *ch,
			    const struct srpt_send_ioctx *ioctx)
{
	const struct se_cmd *cmd = &ioctx->cmd;

	if (ioctx->own_rsp || (cmd->se_cmd_flags & SCF_SCSI_TMR_CDB))
		return;
	if (cmd->scsi_status != SAM_STAT_GOOD)
		atomic64_inc(&ch->stats.errors);
	if (cmd->data_direction == DMA_FROM_DEVICE && !ioctx->status_only &&
	    ioctx->n_rdma)
		atomic64_add(cmd->data_length, &ch->stats.read_bytes);
}

/**
 * srpt_build_cmd_rsp() - build an SRP_RSP for a SCSI command
 * @ch: RDMA channel through which the request has been received
 * @ioctx: I/O context of the command; the response goes into its buffer
 * @tag: tag of the request
 * @status: SCSI status byte
 *
 * Sense data is cut to what fits into both the initiator's and our IU size.
 *
 * Return: length of the response in bytes.
 */
static int srpt_build_cmd_rsp(struct srpt_rdma_ch *ch,
			      struct srpt_send_ioctx *ioctx, u64 tag,
			      int status)
{
	struct se_cmd *cmd = &ioctx->cmd;
	struct srp_rsp *rsp = ioctx->ioctx.buf;
	u32 room = min(ch->max_ti_iu_len, ch->max_rsp_size) - sizeof(*rsp);
	u32 sense_len = 0;

	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRP_RSP;
	rsp->req_lim_delta = cpu_to_be32(srpt_credit_take(ch));
	rsp->tag = tag;
	rsp->status = status;

	if (cmd->se_cmd_flags & (SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT)) {
		bool under = cmd->se_cmd_flags & SCF_UNDERFLOW_BIT;
		__be32 resid = cpu_to_be32(cmd->residual_count);

		if (cmd->data_direction == DMA_TO_DEVICE) {
			rsp->flags |= under ? SRP_RSP_FLAG_DOUNDER :
				SRP_RSP_FLAG_DOOVER;
			rsp->data_out_res_cnt = resid;
		} else if (cmd->data_direction == DMA_FROM_DEVICE) {
			rsp->flags |= under ? SRP_RSP_FLAG_DIUNDER :
				SRP_RSP_FLAG_DIOVER;
			rsp->data_in_res_cnt = resid;
		}
	}
	if (status == SAM_STAT_CHECK_CONDITION && cmd->scsi_sense_length) {
		sense_len = min_t(u32, cmd->scsi_sense_length, room);
		sense_len = min_t(u32, sense_len, TRANSPORT_SENSE_BUFFER);
		rsp->flags |= SRP_RSP_FLAG_SNSVALID;
		rsp->sense_data_len = cpu_to_be32(sense_len);
		memcpy(rsp->data, cmd->sense_buffer, sense_len);
	}
	trace_srpt_rsp(ch->peer, ch->cid, tag, status,
		       rsp->flags & (SRP_RSP_FLAG_DIUNDER | SRP_RSP_FLAG_DIOVER |
				     SRP_RSP_FLAG_DOUNDER | SRP_RSP_FLAG_DOOVER) ?
		       cmd->residual_count : 0, sense_len);
	return sizeof(*rsp) + sense_len;
}

/**
 * srpt_build_tskmgmt_rsp() - build a task management response
 * @ch: RDMA channel through which the request has been received
 * @ioctx: I/O context in which the response is built
 * @rsp_code: SRP task management response code
 * @tag: tag of the request
 *
 * Return: length of the response in bytes.
 */
static int srpt_build_tskmgmt_rsp(struct srpt_rdma_ch *ch,
				  struct srpt_send_ioctx *ioctx, u8 rsp_code,
				  u64 tag)
{
	struct srp_rsp *rsp = ioctx->ioctx.buf;

	memset(rsp, 0, sizeof(*rsp) + 4);
	rsp->opcode = SRP_RSP;
	rsp->req_lim_delta = cpu_to_be32(srpt_credit_take(ch));
	rsp->tag = tag;
	rsp->flags = SRP_RSP_FLAG_RSPVALID;
	rsp->resp_data_len = cpu_to_be32(4);
	rsp->data[3] = rsp_code;
	trace_srpt_tmf_rsp(ch->peer, ch->cid, tag, rsp_code);
	return sizeof(*rsp) + 4;
}

/**
 * srpt_send_finished() - a response was sent or will never be sent
 * @ioctx: send context
 */
static void srpt_send_finished(struct srpt_send_ioctx *ioctx)
{
	if (ioctx->own_rsp) {
		srpt_put_send_ioctx(ioctx);
		return;
	}
	srpt_cmd_state_done(ioctx);
	transport_generic_free_cmd(&ioctx->cmd, 0);
}

/**
 * srpt_post_live() - post send work requests unless the channel is closing
 * @ch: RDMA channel
 * @first: the work requests
 *
 * The state check and the post are atomic with respect to srpt_close_ch():
 * once it has moved the channel on (and then posted the zero-length write
 * whose completion frees the channel), nothing is posted any more.
 *
 * Return: 0, -ENOTCONN or the error of ib_post_send().
 */
static int srpt_post_live(struct srpt_rdma_ch *ch,
			  const struct ib_send_wr *first)
{
	unsigned long flags;
	int ret = -ENOTCONN;

	spin_lock_irqsave(&ch->recv_lock, flags);
	if (ch->state == CH_LIVE)
		ret = ib_post_send(ch->qp, first, NULL);
	spin_unlock_irqrestore(&ch->recv_lock, flags);
	return ret;
}

/**
 * srpt_post_response() - post a response, behind the data-in transfer
 * @ioctx: send context whose send-queue slots are reserved
 *
 * The RDMA WRITEs of the data-in buffer (when sq_wr_held > 1) are chained
 * in front of the SEND of the response, so one post carries them all and
 * one completion retires them. Unless the channel is closing anyway
 * (-ENOTCONN), a failed post closes it: the credits the response carried
 * never reach the initiator, and a queue pair that refuses posts cannot
 * serve the channel any more.
 */
static void srpt_post_response(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct srpt_device *sdev = ch->sport->sdev;
	struct ib_sge sge = {
		.addr = ioctx->ioctx.dma,
		.length = ioctx->rsp_len,
		.lkey = sdev->lkey,
	};
	struct ib_send_wr send_wr = {
		.wr_cqe = &ioctx->ioctx.cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_send_wr *first = &send_wr;
	int ret;

	ioctx->ioctx.cqe.done = srpt_send_done;
	ib_dma_sync_single_for_device(sdev->device, ioctx->ioctx.dma,
				      ioctx->rsp_len, DMA_TO_DEVICE);
	if (ioctx->sq_wr_held > 1)
		first = srpt_chain_rw_ctxs(ch, ioctx, NULL, &send_wr);
	ret = srpt_post_live(ch, first);
	if (ret) {
		if (ret != -ENOTCONN) {
			pr_err_ratelimited("%s: posting the response failed (%d); closing the channel\n",
					   ch->sess_name, ret);
			srpt_close_ch(ch, "a response could not be posted");
		}
		srpt_sq_release(ch, ioctx->sq_wr_held, false);
		srpt_abort_cmd(ioctx);
	}
}

/**
 * srpt_send_cred_req() - return owed credits with an SRP_CRED_REQ
 * @ch: RDMA channel
 *
 * Does nothing when no send context is free: the command that holds it
 * carries the credits, or frees the context and calls this again.
 */
static void srpt_send_cred_req(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ioctx;
	struct srp_cred_req *req;
	int delta;

	if (READ_ONCE(ch->state) != CH_LIVE)
		return;
	ioctx = srpt_get_send_ioctx(ch);
	if (!ioctx)
		return;
	ioctx->own_rsp = true;
	delta = srpt_credit_take(ch);
	if (!delta) {
		srpt_put_send_ioctx(ioctx);
		return;
	}
	req = ioctx->ioctx.buf;
	memset(req, 0, sizeof(*req));
	req->opcode = SRP_CRED_REQ;
	req->req_lim_delta = cpu_to_be32(delta);
	req->tag = BIT_ULL(63) | ioctx->ioctx.index;
	ioctx->rsp_len = sizeof(*req);
	ioctx->sq_wr_held = 1;
	pr_debug("%s: returning %d credits\n", ch->sess_name, delta);
	if (srpt_sq_reserve(ch, ioctx, 1, true))
		srpt_post_response(ioctx);
}

/**
 * srpt_tmr_rsp_code() - SRP response code of a LIO TMR response
 * @response: TMR_* response
 * @task_set: the driver carried out the function (srpt_handle_task_set()),
 *	which LIO answers "not supported", or "no such LUN" if the LUN was
 *	removed while the function waited for its commands
 *
 * SRP-2 has one code for SAM-5's FUNCTION REJECTED and for a function
 * that is not supported: 04h. That is the answer to CLEAR ACA, which
 * SAM-5 rejects when the logical unit does not support ACA (LIO's
 * standard INQUIRY data has NormACA zero).
 *
 * Return: SRP task management response code.
 */
static u8 srpt_tmr_rsp_code(u8 response, bool task_set)
{
	/* LIO found the LUN gone only after the driver did the work. */
	if (task_set && (response == TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED ||
			 response == TMR_LUN_DOES_NOT_EXIST))
		return SRPT_TSK_MGMT_COMPLETE;
	switch (response) {
	case TMR_FUNCTION_COMPLETE:
		return SRPT_TSK_MGMT_COMPLETE;
	case TMR_FUNCTION_REJECTED:
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		return SRPT_TSK_MGMT_FUNC_NOT_SUPP;
	default:
		return SRPT_TSK_MGMT_FAILED;
	}
}

/**
 * srpt_prepare_data_in() - prepare the RDMA WRITEs of read data
 * @ch: RDMA channel
 * @ioctx: send context of a read
 *
 * Only the bytes LIO produced are sent: never page contents past them. If
 * the transfer cannot be prepared, the data cannot reach the initiator and
 * the command must not end GOOD: it gets TASK SET FULL (the initiator
 * retries) when resources ran out, or CHECK CONDITION, ILLEGAL REQUEST,
 * INVALID FIELD IN COMMAND INFORMATION UNIT when the descriptors need more
 * work requests than the send queue holds.
 */
static void srpt_prepare_data_in(struct srpt_rdma_ch *ch,
				 struct srpt_send_ioctx *ioctx)
{
	struct se_cmd *cmd = &ioctx->cmd;
	int ret;

	ret = srpt_init_rw_ctxs(ch, ioctx, cmd->data_length);
	if (!ret)
		return;
	pr_warn_ratelimited("%s: tag %#llx: no RDMA transfer for %u bytes (%d)\n",
			    ch->sess_name, ioctx->tag, cmd->data_length, ret);
	ioctx->status_only = true;
	cmd->se_cmd_flags &= ~(SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT);
	cmd->residual_count = 0;
	if (ret == -E2BIG) {
		cmd->scsi_status = SAM_STAT_CHECK_CONDITION;
		memset(ioctx->sense_data, 0, sizeof(ioctx->sense_data));
		scsi_build_sense_buffer(0, ioctx->sense_data, ILLEGAL_REQUEST,
					0x0e, 0x03);
		cmd->scsi_sense_length = 18;
	} else {
		cmd->scsi_status = SAM_STAT_TASK_SET_FULL;
		cmd->scsi_sense_length = 0;
	}
}

/**
 * srpt_queue_response() - transmit the response to a SCSI command or TMF
 * @cmd: SCSI target command
 *
 * A receive buffer held for immediate data is given back before the
 * response leaves, so the credit the response returns is backed by a posted
 * buffer.
 */
static void srpt_queue_response(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);
	struct srpt_rdma_ch *ch = ioctx->ch;
	bool tmr = cmd->se_cmd_flags & SCF_SCSI_TMR_CDB;
	enum srpt_command_state prev;
	u32 n = 1;

	/* A second response, or one for an aborted command, is refused. */
	if (!srpt_cmd_state_change(ioctx, SRPT_STATES_ANY,
				   tmr ? SRPT_STATE_MGMT_RSP_SENT :
				   SRPT_STATE_CMD_RSP_SENT, false, &prev))
		return;
	srpt_release_recv_held(ioctx);
	if (!tmr && srpt_tsk_withhold(ioctx)) {
		/* Aborted by ABORT TASK SET or CLEAR TASK SET. */
		atomic64_inc(&ch->stats.aborts);
		trace_srpt_aborted(ch->peer, ch->cid, ioctx->tag);
		srpt_cmd_state_done(ioctx);
		transport_generic_free_cmd(cmd, 0);
		return;
	}

	if (tmr) {
		u8 code = srpt_tmr_rsp_code(cmd->se_tmr_req->response,
					    ioctx->task_set);

		ioctx->rsp_len = srpt_build_tskmgmt_rsp(ch, ioctx, code,
							ioctx->tag);
	} else {
		if (!ioctx->status_only && cmd->data_direction ==
		    DMA_FROM_DEVICE && ioctx->n_descs && cmd->data_length) {
			srpt_prepare_data_in(ch, ioctx);
			n += ioctx->n_rdma;
		}
		ioctx->rsp_len = srpt_build_cmd_rsp(ch, ioctx, ioctx->tag,
						    cmd->scsi_status);
	}
	ioctx->sq_wr_held = n;

	if (READ_ONCE(ch->state) > CH_LIVE) {
		srpt_cmd_state_done(ioctx);
		transport_generic_free_cmd(cmd, 0);
		return;
	}
	if (srpt_sq_reserve(ch, ioctx, n, true))
		srpt_post_response(ioctx);
}

/**
 * srpt_send_done() - a response was sent (or flushed)
 * @cq: completion queue
 * @wc: work completion of the SEND
 */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, ioctx.cqe);
	struct srpt_rdma_ch *ch = ioctx->ch;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_error(ch, wc, "sending a response");
	else
		srpt_count_sent(ch, ioctx);
	srpt_sq_release(ch, ioctx->sq_wr_held, true);
	srpt_send_finished(ioctx);
	srpt_process_wait_list(ch);
}

/* LIO fabric operations ------------------------------------------------- */

/**
 * srpt_check_stop_free() - drop LIO's reference to a completed command
 * @cmd: SCSI target command
 *
 * Return: the result of target_put_sess_cmd().
 */
static int srpt_check_stop_free(struct se_cmd *cmd)
{
	return target_put_sess_cmd(cmd);
}

/**
 * srpt_release_cmd() - free a command's resources and its send context
 * @cmd: SCSI target command
 */
static void srpt_release_cmd(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	srpt_free_cmd_bufs(ioctx);
	srpt_put_send_ioctx(ioctx);
}

/**
 * srpt_close_session() - LIO asks to end a session
 * @se_sess: the session
 */
static void srpt_close_session(struct se_session *se_sess)
{
	srpt_close_ch(se_sess->fabric_sess_ptr, "LIO closed the session");
}

/**
 * srpt_write_pending() - fetch the data-out buffer of a write
 * @cmd: SCSI target command
 *
 * Return: 0 or a negative error code, which makes LIO fail the command.
 */
static int srpt_write_pending(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);
	struct srpt_rdma_ch *ch = ioctx->ch;

	if (!ioctx->n_rw_ctx) {
		/* Immediate data, or nothing to transfer. */
		atomic64_add(cmd->data_length, &ch->stats.write_bytes);
		srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEW,
					    SRPT_STATE_DATA_IN);
		target_execute_cmd(cmd);
		return 0;
	}
	if (!srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEW,
					 SRPT_STATE_NEED_DATA))
		return -EIO;
	if (READ_ONCE(ch->state) > CH_LIVE)
		return -ENOTCONN;
	if (!srpt_sq_reserve(ch, ioctx, ioctx->n_rdma, false))
		return 0;
	return srpt_post_rdma_read(ioctx);
}

/**
 * srpt_get_tcm_cmd_state() - command state for LIO's diagnostics
 * @cmd: SCSI target command
 *
 * Return: the srpt_command_state of the command.
 */
static int srpt_get_tcm_cmd_state(struct se_cmd *cmd)
{
	return container_of(cmd, struct srpt_send_ioctx, cmd)->state;
}

/**
 * srpt_end_task_attr() - end the task attribute of a command LIO aborted
 * @cmd: SCSI target command, handed back by LIO's abort path
 *
 * LIO counts the SIMPLE and HEAD OF QUEUE commands that run on a device
 * and marks the ORDERED one that runs alone, and holds an ORDERED command
 * (and every command after it) back until the count is zero and no other
 * ORDERED command runs. It takes a command off that accounting when the
 * command completes normally or fails, but in 6.12 not when a task
 * management function aborted it after it had started to run: the count
 * then never returns to zero, or the mark stays, and the next ORDERED
 * command - with every command received after it and every LOGICAL UNIT
 * RESET that would abort them - waits for ever. An initiator could so hang
 * a logical unit for every initiator with one ORDERED command.
 *
 * LIO hands such a command to this driver exactly once, through
 * aborted_task or (TAS) queue_status, with SCF_TASK_ATTR_SET still set;
 * a completed or failed command has had the flag cleared by LIO already.
 * This function does what LIO leaves out and clears the flag, so the
 * command is taken off at most once.
 */
static void srpt_end_task_attr(struct se_cmd *cmd)
{
	struct se_device *dev = cmd->se_dev;

	if (!dev || !(cmd->se_cmd_flags & SCF_TASK_ATTR_SET))
		return;
	cmd->se_cmd_flags &= ~SCF_TASK_ATTR_SET;
	switch (cmd->sam_task_attr) {
	case TCM_SIMPLE_TAG:
	case TCM_HEAD_TAG:
		atomic_dec_mb(&dev->non_ordered);
		break;
	case TCM_ORDERED_TAG:
		spin_lock(&dev->delayed_cmd_lock);
		dev->ordered_sync_in_progress = false;
		spin_unlock(&dev->delayed_cmd_lock);
		break;
	default:
		break;
	}
	if (atomic_read(&dev->delayed_cmd_count) > 0)
		schedule_work(&dev->delayed_cmd_work);
}

/**
 * srpt_queue_data_in() - send read data and status
 * @cmd: SCSI target command
 *
 * Return: 0.
 */
static int srpt_queue_data_in(struct se_cmd *cmd)
{
	srpt_queue_response(cmd);
	return 0;
}

/**
 * srpt_queue_status() - send status only
 * @cmd: SCSI target command
 *
 * Also the TASK ABORTED status of a command that another I_T nexus
 * aborted (TAS), which srpt_end_task_attr() takes off LIO's accounting.
 *
 * Return: 0.
 */
static int srpt_queue_status(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	srpt_end_task_attr(cmd);
	ioctx->status_only = true;
	srpt_queue_response(cmd);
	return 0;
}

/**
 * srpt_queue_tm_rsp() - send a task management response
 * @cmd: the TMR command
 */
static void srpt_queue_tm_rsp(struct se_cmd *cmd)
{
	srpt_queue_response(cmd);
}

/**
 * srpt_aborted_task() - LIO aborted a command that gets no response
 * @cmd: SCSI target command
 *
 * The buffers are released with the command in srpt_release_cmd().
 */
static void srpt_aborted_task(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	srpt_end_task_attr(cmd);
	atomic64_inc(&ioctx->ch->stats.aborts);
	trace_srpt_aborted(ioctx->ch->peer, ioctx->ch->cid, ioctx->tag);
	srpt_cmd_state_done(ioctx);
	srpt_release_recv_held(ioctx);
}

/**
 * srpt_get_fabric_wwn() - name of the WWN a TPG belongs to
 * @tpg: portal group
 *
 * Return: the name the WWN was created with.
 */
static char *srpt_get_fabric_wwn(struct se_portal_group *tpg)
{
	return container_of(tpg, struct srpt_tpg, tpg)->port_id->name;
}

/**
 * srpt_get_tag() - portal group tag
 * @tpg: portal group
 *
 * Return: 1; SRP has one portal group per target port.
 */
static u16 srpt_get_tag(struct se_portal_group *tpg)
{
	return 1;
}

/**
 * srpt_check_false() - a TPG property that is always off
 * @tpg: portal group
 *
 * Return: 0.
 */
static int srpt_check_false(struct se_portal_group *tpg)
{
	return 0;
}

/**
 * srpt_check_true() - a TPG property that is always on
 * @tpg: portal group
 *
 * Return: 1.
 */
static int srpt_check_true(struct se_portal_group *tpg)
{
	return 1;
}

/**
 * srpt_rename_nodeacl() - give a new ACL the name that logins use
 * @se_nacl: the ACL, on the TPG's list under the name it was made with
 * @canon: the canonical spelling of that name
 *
 * LIO finds the ACL of a login by comparing names byte for byte, under the
 * TPG's acl_node_mutex, which also guards initiatorname[]. The configfs
 * directory keeps the name the administrator wrote.
 *
 * Return: 0, or -EEXIST when another ACL of the TPG already has @canon.
 */
static int srpt_rename_nodeacl(struct se_node_acl *se_nacl, const char *canon)
{
	struct se_portal_group *tpg = se_nacl->se_tpg;
	struct se_node_acl *acl;
	int ret = 0;

	mutex_lock(&tpg->acl_node_mutex);
	list_for_each_entry(acl, &tpg->acl_node_list, acl_list) {
		if (acl != se_nacl && !strcmp(acl->initiatorname, canon)) {
			ret = -EEXIST;
			break;
		}
	}
	if (!ret)
		strscpy(se_nacl->initiatorname, canon,
			sizeof(se_nacl->initiatorname));
	mutex_unlock(&tpg->acl_node_mutex);
	return ret;
}

/**
 * srpt_init_nodeacl() - check the name of a new ACL, normalise it
 * @se_nacl: the ACL
 * @name: GUID form, hex initiator port ID, IPv4 or IPv6 address
 *
 * An initiator name spelled otherwise than the driver names logins (upper
 * case, fewer hex digits, compressed IPv6, ...) would never match a login;
 * the ACL gets the canonical spelling instead, so that it does.
 *
 * Return: 0, -EINVAL for a name that is no initiator name, or -EEXIST when
 * the TPG already has an ACL for that initiator under another spelling.
 */
static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	char canon[40];
	int ret;

	if (srpt_check_acl_name(name, canon, sizeof(canon))) {
		pr_info("ACL name \"%s\" is not an initiator name\n", name);
		return -EINVAL;
	}
	if (!strcmp(name, canon))
		return 0;
	ret = srpt_rename_nodeacl(se_nacl, canon);
	if (ret)
		pr_info("ACL \"%s\" refused: the TPG has an ACL for \"%s\"\n",
			name, canon);
	else
		pr_info("ACL \"%s\" matches logins named \"%s\"\n", name,
			canon);
	return ret;
}

/* configfs: target ports (WWNs) and portal groups ----------------------- */

/**
 * srpt_wwn_name_current() - whether a WWN still has its port's name
 * @port_id: the WWN
 * @sport: the port it serves
 *
 * The caller holds srpt_dev_mutex.
 *
 * Return: false when the WWN was created under an earlier GID of @sport.
 */
static bool srpt_wwn_name_current(const struct srpt_port_id *port_id,
				  const struct srpt_port *sport)
{
	return !strcasecmp(port_id->name, port_id->gid_form ?
			   sport->gid_name : sport->guid_name);
}

/**
 * srpt_lookup_port() - find the HCA port a WWN name stands for
 * @name: GUID form or GID form of a port name (case does not matter)
 *
 * Must be called with srpt_dev_mutex held.
 *
 * Return: the port and the slot for that name form; both NULL when no port
 * has that name.
 */
static struct port_and_port_id srpt_lookup_port(const char *name)
{
	struct port_and_port_id papi = {};
	struct srpt_device *sdev;
	u32 i;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		for (i = 0; i < sdev->port_cnt; i++) {
			struct srpt_port *sport = &sdev->port[i];

			if (!strcasecmp(sport->guid_name, name)) {
				papi.sport = sport;
				papi.port_id = &sport->guid_id;
				return papi;
			}
			if (!strcasecmp(sport->gid_name, name)) {
				papi.sport = sport;
				papi.port_id = &sport->gid_id;
				return papi;
			}
		}
	}
	return papi;
}

/**
 * srpt_make_tport() - configfs callback invoked for mkdir of a WWN
 * @tf: fabric
 * @group: configfs group
 * @name: GUID form or GID form of an HCA port name
 *
 * Return: the new WWN, or ERR_PTR(-EINVAL) for a name that is no port's,
 * ERR_PTR(-EEXIST) when that name form of the port already has a WWN, also
 * one created under an earlier GID of the port.
 */
static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_port_id *port_id;
	struct port_and_port_id papi;

	mutex_lock(&srpt_dev_mutex);
	papi = srpt_lookup_port(name);
	if (!papi.sport) {
		mutex_unlock(&srpt_dev_mutex);
		pr_info("\"%s\" is not the name of an RDMA port\n", name);
		return ERR_PTR(-EINVAL);
	}
	if (*papi.port_id) {
		pr_info("\"%s\": %s port %u already has the WWN %s\n", name,
			dev_name(&papi.sport->sdev->device->dev),
			papi.sport->port, (*papi.port_id)->name);
		mutex_unlock(&srpt_dev_mutex);
		return ERR_PTR(-EEXIST);
	}
	port_id = kzalloc(sizeof(*port_id), GFP_KERNEL);
	if (!port_id) {
		mutex_unlock(&srpt_dev_mutex);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&port_id->mutex);
	INIT_LIST_HEAD(&port_id->tpg_list);
	strscpy(port_id->name, name, sizeof(port_id->name));
	port_id->gid_form = papi.port_id == &papi.sport->gid_id;
	port_id->sport = papi.sport;
	*papi.port_id = port_id;
	list_add_tail(&port_id->entry, &srpt_port_ids);
	mutex_unlock(&srpt_dev_mutex);
	return &port_id->wwn;
}

/**
 * srpt_drop_tport() - configfs callback invoked for rmdir of a WWN
 * @wwn: the WWN
 */
static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_port_id *port_id =
		container_of(wwn, struct srpt_port_id, wwn);
	struct srpt_port *sport;

	mutex_lock(&srpt_dev_mutex);
	sport = port_id->sport;
	if (sport) {
		if (sport->guid_id == port_id)
			sport->guid_id = NULL;
		if (sport->gid_id == port_id)
			sport->gid_id = NULL;
	}
	list_del(&port_id->entry);
	mutex_unlock(&srpt_dev_mutex);
	kfree(port_id);
}

/**
 * srpt_update_port_enabled() - recompute whether a port accepts logins
 * @sport: the port
 *
 * Must be called with srpt_dev_mutex held.
 */
static void srpt_update_port_enabled(struct srpt_port *sport)
{
	struct srpt_port_id *ids[] = { sport->guid_id, sport->gid_id };
	struct srpt_tpg *stpg;
	bool enabled = false;
	int i;

	lockdep_assert_held(&srpt_dev_mutex);
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		if (!ids[i])
			continue;
		mutex_lock(&ids[i]->mutex);
		list_for_each_entry(stpg, &ids[i]->tpg_list, entry)
			enabled |= stpg->enabled;
		mutex_unlock(&ids[i]->mutex);
	}
	sport->enabled = enabled;
}

/**
 * srpt_make_tpg() - configfs callback invoked for mkdir of a TPG
 * @wwn: the WWN
 * @name: any name
 *
 * Return: the new portal group or an ERR_PTR().
 */
static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_port_id *port_id =
		container_of(wwn, struct srpt_port_id, wwn);
	struct srpt_tpg *stpg;
	int ret;

	stpg = kzalloc(sizeof(*stpg), GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->port_id = port_id;
	ret = core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}
	mutex_lock(&port_id->mutex);
	list_add_tail(&stpg->entry, &port_id->tpg_list);
	mutex_unlock(&port_id->mutex);
	return &stpg->tpg;
}

/**
 * srpt_disable_tpg() - refuse logins to a TPG and wait until its channels
 *	are gone
 * @stpg: the TPG
 *
 * The flag is cleared and the channels are closed under srpt_dev_mutex,
 * which every login holds from its checks until its channel is in a nexus:
 * a login either joined before (and is closed here) or sees the TPG
 * disabled. The wait is done without srpt_dev_mutex, so that logins to
 * other TPGs, ports and devices and device removal go on meanwhile. It
 * reads only @stpg, which cannot go away under us: the callers are the
 * TPG's enable attribute (configfs does not drop a TPG while one of its
 * attributes is being written, and a WWN cannot go while it has a TPG) and
 * the TPG's own drop callback. When the HCA is removed during the wait,
 * srpt_remove_one() closes the same channels and waits for them itself; the
 * count still drops to 0. With the HCA already gone (detached WWN) there
 * is nothing to close, but channels that the removal is still releasing
 * are waited for all the same.
 */
static void srpt_disable_tpg(struct srpt_tpg *stpg)
{
	struct srpt_port *sport;

	mutex_lock(&srpt_dev_mutex);
	stpg->enabled = false;
	sport = stpg->port_id->sport;
	if (sport) {
		srpt_update_port_enabled(sport);
		srpt_close_port_chs(sport, stpg, "its TPG is disabled");
	}
	mutex_unlock(&srpt_dev_mutex);
	srpt_wait_chs_released(&stpg->nr_ch, stpg->port_id->name);
}

/**
 * srpt_enable_tpg() - configfs callback for writing the TPG's enable file
 * @se_tpg: portal group
 * @enable: whether logins may come in
 *
 * LIO itself sets se_tpg->enabled after this returns (and registers or
 * erases the TPG's relative port ID with it); the driver keeps its own
 * flag. Disabling returns only once the TPG's channels are gone.
 *
 * Return: 0, or -ENODEV when the port's HCA is gone and @enable is set.
 */
static int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	struct srpt_tpg *stpg = container_of(se_tpg, struct srpt_tpg, tpg);
	struct srpt_port *sport;

	if (!enable) {
		srpt_disable_tpg(stpg);
		return 0;
	}
	mutex_lock(&srpt_dev_mutex);
	sport = stpg->port_id->sport;
	if (sport) {
		stpg->enabled = true;
		srpt_update_port_enabled(sport);
	}
	mutex_unlock(&srpt_dev_mutex);
	return sport ? 0 : -ENODEV;
}

/**
 * srpt_drop_tpg() - configfs callback invoked for rmdir of a TPG
 * @tpg: portal group
 *
 * LIO does not disable a TPG that is removed while enabled: that is done
 * here, without touching tpg->enabled, so that core_tpg_deregister() still
 * sees the TPG enabled and frees its relative port ID.
 */
static void srpt_drop_tpg(struct se_portal_group *tpg)
{
	struct srpt_tpg *stpg = container_of(tpg, struct srpt_tpg, tpg);
	struct srpt_port_id *port_id = stpg->port_id;

	srpt_disable_tpg(stpg);
	mutex_lock(&port_id->mutex);
	list_del(&stpg->entry);
	mutex_unlock(&port_id->mutex);
	core_tpg_deregister(tpg);
	kfree(stpg);
}

/* configfs: attributes -------------------------------------------------- */

/**
 * srpt_tpg_sport() - the port behind a TPG attribute
 * @item: configfs item of the attribute group
 *
 * Return: the port, or NULL when its HCA is gone.
 */
static struct srpt_port *srpt_tpg_sport(struct config_item *item)
{
	struct se_portal_group *se_tpg = attrib_to_tpg(item);

	return container_of(se_tpg, struct srpt_tpg, tpg)->port_id->sport;
}

/**
 * srpt_attr_store_u32() - parse and store a range-checked TPG attribute
 * @item: configfs item
 * @page: written text
 * @count: its length
 * @min: smallest value
 * @max: largest value
 * @off: offset of the u32 inside struct srpt_port_attrib
 *
 * Return: @count or -EINVAL / -ENODEV.
 */
static ssize_t srpt_attr_store_u32(struct config_item *item, const char *page,
				   size_t count, u32 min, u32 max, size_t off)
{
	struct srpt_port *sport;
	u32 val;

	/* Too large for 32 bits is out of range too: -EINVAL, not -ERANGE. */
	if (kstrtou32(page, 0, &val) || val < min || val > max)
		return -EINVAL;
	mutex_lock(&srpt_dev_mutex);
	sport = srpt_tpg_sport(item);
	if (sport)
		*(u32 *)((u8 *)&sport->port_attrib + off) = val;
	mutex_unlock(&srpt_dev_mutex);
	return sport ? count : -ENODEV;
}

/**
 * srpt_attr_show_u32() - show a TPG attribute
 * @item: configfs item
 * @page: output
 * @off: offset of the u32 inside struct srpt_port_attrib
 *
 * Return: bytes written or -ENODEV.
 */
static ssize_t srpt_attr_show_u32(struct config_item *item, char *page,
				  size_t off)
{
	struct srpt_port *sport;
	ssize_t ret = -ENODEV;

	mutex_lock(&srpt_dev_mutex);
	sport = srpt_tpg_sport(item);
	if (sport)
		ret = sysfs_emit(page, "%u\n",
				 *(u32 *)((u8 *)&sport->port_attrib + off));
	mutex_unlock(&srpt_dev_mutex);
	return ret;
}

/**
 * srpt_tpg_attrib_srp_max_rdma_size_show() - show the largest RDMA transfer advertised
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written or -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_srp_max_rdma_size_show(struct config_item *item,
				       char *page)
{
	return srpt_attr_show_u32(item, page,
				  offsetof(struct srpt_port_attrib, srp_max_rdma_size));
}

/**
 * srpt_tpg_attrib_srp_max_rdma_size_store() - set the largest RDMA transfer advertised
 * @item: configfs item
 * @page: decimal or hex number in range
 * @count: length of @page
 *
 * Return: @count, -EINVAL for a value out of range, -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_srp_max_rdma_size_store(struct config_item *item,
					const char *page, size_t count)
{
	return srpt_attr_store_u32(item, page, count, SRPT_MIN_RDMA_SIZE,
				   SRPT_MAX_RDMA_SIZE,
				   offsetof(struct srpt_port_attrib, srp_max_rdma_size));
}
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rdma_size);

/**
 * srpt_tpg_attrib_srp_max_rsp_size_show() - show the response buffer size
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written or -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_srp_max_rsp_size_show(struct config_item *item,
				      char *page)
{
	return srpt_attr_show_u32(item, page,
				  offsetof(struct srpt_port_attrib, srp_max_rsp_size));
}

/**
 * srpt_tpg_attrib_srp_max_rsp_size_store() - set the response buffer size
 * @item: configfs item
 * @page: decimal or hex number in range
 * @count: length of @page
 *
 * Return: @count, -EINVAL for a value out of range, -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_srp_max_rsp_size_store(struct config_item *item,
				       const char *page, size_t count)
{
	return srpt_attr_store_u32(item, page, count, SRPT_MIN_RSP_SIZE,
				   SRPT_MAX_RSP_SIZE,
				   offsetof(struct srpt_port_attrib, srp_max_rsp_size));
}
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rsp_size);

/**
 * srpt_tpg_attrib_srp_sq_size_show() - show the send queue size
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written or -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_srp_sq_size_show(struct config_item *item,
				 char *page)
{
	return srpt_attr_show_u32(item, page,
				  offsetof(struct srpt_port_attrib, srp_sq_size));
}

/**
 * srpt_tpg_attrib_srp_sq_size_store() - set the send queue size
 * @item: configfs item
 * @page: decimal or hex number in range
 * @count: length of @page
 *
 * Return: @count, -EINVAL for a value out of range, -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_srp_sq_size_store(struct config_item *item,
				  const char *page, size_t count)
{
	return srpt_attr_store_u32(item, page, count, SRPT_MIN_SQ_SIZE,
				   SRPT_MAX_SQ_SIZE,
				   offsetof(struct srpt_port_attrib, srp_sq_size));
}
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_sq_size);

/**
 * srpt_parse_hw_pending_time() - parse a write of max_hw_pending_time
 * @page: the written text: a decimal number of seconds, optionally
 *	followed by a newline
 * @secs: set to the number on success
 *
 * Return: 0, or -EINVAL for anything but a number from 0 to
 * %SRPT_MAX_HW_PENDING_TIME (a number too large for a u32 included).
 */
static int srpt_parse_hw_pending_time(const char *page, u32 *secs)
{
	u32 val;

	if (kstrtou32(page, 10, &val) || val > SRPT_MAX_HW_PENDING_TIME)
		return -EINVAL;
	*secs = val;
	return 0;
}

/**
 * srpt_tpg_attrib_max_hw_pending_time_show() - show max_hw_pending_time
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written or -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_max_hw_pending_time_show(struct config_item *item,
					 char *page)
{
	return srpt_attr_show_u32(item, page,
				  offsetof(struct srpt_port_attrib,
					   max_hw_pending_time));
}

/**
 * srpt_tpg_attrib_max_hw_pending_time_store() - set how long a live
 *	channel's send queue may go without a completion
 * @item: configfs item
 * @page: seconds, 0 to %SRPT_MAX_HW_PENDING_TIME; 0: no limit
 * @count: length of @page
 *
 * Applies to the channels of the port that are live already, too: the
 * port's check (srpt_hw_pending_work()) reads the value each time it runs,
 * and is queued here in case it had stopped.
 *
 * Return: @count, -EINVAL for anything but a number in range, -ENODEV.
 */
static ssize_t
srpt_tpg_attrib_max_hw_pending_time_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct srpt_port *sport;
	u32 secs;

	if (srpt_parse_hw_pending_time(page, &secs))
		return -EINVAL;
	mutex_lock(&srpt_dev_mutex);
	sport = srpt_tpg_sport(item);
	if (sport) {
		WRITE_ONCE(sport->port_attrib.max_hw_pending_time, secs);
		srpt_arm_hw_pending(sport);
	}
	mutex_unlock(&srpt_dev_mutex);
	return sport ? count : -ENODEV;
}
CONFIGFS_ATTR(srpt_tpg_attrib_, max_hw_pending_time);

/**
 * srpt_parse_comp_v_mask() - parse a write of comp_v_mask
 * @page: the written text: "0x" and hex digits, the last one for vectors 0
 *	to 3, optionally followed by a newline
 * @mask: %SRPT_COMP_V_BITS bits, set to the mask on success
 *
 * Leading zeros may make the number as long as the page; set bits from
 * %SRPT_COMP_V_BITS up may not.
 *
 * Return: 0, or -EINVAL for anything else, a mask of 0 included.
 */
static int srpt_parse_comp_v_mask(const char *page, unsigned long *mask)
{
	size_t len = strlen(page);
	u32 bit = 0;

	if (len && page[len - 1] == '\n')
		len--;
	if (len < 3 || page[0] != '0' || tolower(page[1]) != 'x')
		return -EINVAL;
	bitmap_zero(mask, SRPT_COMP_V_BITS);
	for (; len > 2; len--, bit += 4) {
		int digit = hex_to_bin(page[len - 1]);

		if (digit < 0 || (digit && bit >= SRPT_COMP_V_BITS))
			return -EINVAL;
		if (digit)
			bitmap_write(mask, digit, bit, 4);
	}
	return bitmap_empty(mask, SRPT_COMP_V_BITS) ? -EINVAL : 0;
}

/**
 * srpt_format_comp_v_mask() - comp_v_mask as it is shown
 * @mask: %SRPT_COMP_V_BITS bits
 * @buf: output, %SRPT_COMP_V_TEXT_LEN bytes
 *
 * "0x", lowercase hex digits without leading zeros and a newline: what
 * srpt_parse_comp_v_mask() takes back as the same mask.
 *
 * Return: the length of the text.
 */
static int srpt_format_comp_v_mask(const unsigned long *mask, char *buf)
{
	unsigned long last = find_last_bit(mask, SRPT_COMP_V_BITS);
	int len = 0, nibble;

	if (last >= SRPT_COMP_V_BITS)
		last = 0;
	buf[len++] = '0';
	buf[len++] = 'x';
	for (nibble = last / 4; nibble >= 0; nibble--)
		buf[len++] = hex_asc[bitmap_read(mask, nibble * 4, 4)];
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

/**
 * srpt_tpg_attrib_comp_v_mask_show() - show comp_v_mask
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written or -ENODEV.
 */
static ssize_t srpt_tpg_attrib_comp_v_mask_show(struct config_item *item,
						char *page)
{
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	struct srpt_port *sport;

	mutex_lock(&srpt_dev_mutex);
	sport = srpt_tpg_sport(item);
	if (sport) {
		spin_lock(&sport->comp_v_lock);
		bitmap_copy(mask, sport->port_attrib.comp_v_mask,
			    SRPT_COMP_V_BITS);
		spin_unlock(&sport->comp_v_lock);
	}
	mutex_unlock(&srpt_dev_mutex);
	return sport ? srpt_format_comp_v_mask(mask, page) : -ENODEV;
}

/**
 * srpt_set_comp_v_mask() - set the comp_v_mask of a port
 * @sport: the port
 * @mask: the new mask, %SRPT_COMP_V_BITS bits, not empty
 *
 * Every mask is taken, also one that allows none of the vectors in use
 * (srpt_comp_vectors()): what the attribute shows must always be taken
 * back, and a value saved on a machine with more CPUs or vectors is
 * restored on one with fewer. Bits of vectors not in use are kept and play
 * no part; a mask with none in use gives new channels every vector (see
 * srpt_pick_comp_vector()). Live channels keep their vector.
 *
 * Return: true when @mask allows a vector in use.
 */
static bool srpt_set_comp_v_mask(struct srpt_port *sport,
				 const unsigned long *mask)
{
	u32 nvec = srpt_comp_vectors(sport->sdev->device);

	spin_lock(&sport->comp_v_lock);
	bitmap_copy(sport->port_attrib.comp_v_mask, mask, SRPT_COMP_V_BITS);
	spin_unlock(&sport->comp_v_lock);
	return find_first_bit(mask, nvec) < nvec;
}

/**
 * srpt_tpg_attrib_comp_v_mask_store() - choose the completion vectors of
 *	a port's new channels
 * @item: configfs item
 * @page: see srpt_parse_comp_v_mask()
 * @count: length of @page
 *
 * See srpt_set_comp_v_mask(). A mask that allows none of the vectors in
 * use is logged: it usually comes from a saved configuration of another
 * machine.
 *
 * Return: @count, -EINVAL for text that is no mask (a NUL byte in the
 * text included), -ENODEV.
 */
static ssize_t srpt_tpg_attrib_comp_v_mask_store(struct config_item *item,
						 const char *page,
						 size_t count)
{
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	struct srpt_port *sport;

	/* configfs ends @page with a NUL: one before is text ignored. */
	if (strnlen(page, count) != count ||
	    srpt_parse_comp_v_mask(page, mask))
		return -EINVAL;
	mutex_lock(&srpt_dev_mutex);
	sport = srpt_tpg_sport(item);
	if (sport && !srpt_set_comp_v_mask(sport, mask))
		pr_info_ratelimited("%s port %u: comp_v_mask allows none of the %u completion vectors in use; new channels take all of them\n",
				    dev_name(&sport->sdev->device->dev),
				    sport->port,
				    srpt_comp_vectors(sport->sdev->device));
	mutex_unlock(&srpt_dev_mutex);
	return sport ? count : -ENODEV;
}
CONFIGFS_ATTR(srpt_tpg_attrib_, comp_v_mask);

/**
 * srpt_free_sdev() - free the memory of a device once nobody looks at it
 * @kref: srpt_device.refs
 *
 * srpt_remove_one() has released every resource by then; only the memory
 * is left, which a configfs writer may still have been reading.
 */
static void srpt_free_sdev(struct kref *kref)
{
	kfree(container_of(kref, struct srpt_device, refs));
}

/**
 * srpt_tpg_attrib_use_srq_show() - show use_srq
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written or -ENODEV.
 */
static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	struct srpt_port *sport;
	ssize_t ret = -ENODEV;

	mutex_lock(&srpt_dev_mutex);
	sport = srpt_tpg_sport(item);
	if (sport)
		ret = sysfs_emit(page, "%d\n", sport->port_attrib.use_srq);
	mutex_unlock(&srpt_dev_mutex);
	return ret;
}

/**
 * srpt_tpg_attrib_use_srq_store() - switch the receive mode of a port
 * @item: configfs item
 * @page: "0" or "1"
 * @count: length of @page
 *
 * A change closes every channel of the port; new logins use the new mode.
 *
 * Return: @count, -EINVAL for anything but 0 or 1, -ENODEV, or the error
 * of creating the SRQ.
 */
static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	char name[SRPT_PORT_NAME_LEN];
	struct srpt_device *sdev = NULL;
	struct srpt_port *sport;
	ssize_t ret = count;
	u32 val;

	if (kstrtou32(page, 0, &val) || val > 1)
		return -EINVAL;
	mutex_lock(&srpt_dev_mutex);
	sport = srpt_tpg_sport(item);
	if (!sport) {
		ret = -ENODEV;
	} else if (sport->port_attrib.use_srq != val) {
		int err = val ? srpt_enable_srq(sport->sdev) : 0;

		if (err) {
			ret = err;
		} else {
			sport->port_attrib.use_srq = val;
			srpt_close_port_chs(sport, NULL, "use_srq changed");
			/* A port event may change the name meanwhile. */
			strscpy(name, sport->guid_name, sizeof(name));
			sdev = sport->sdev;
			kref_get(&sdev->refs);
		}
	}
	mutex_unlock(&srpt_dev_mutex);
	if (!sdev)
		return ret;
	/*
	 * Wait, without srpt_dev_mutex, for the channels of the old mode only:
	 * new logins (in the new mode) may come in meanwhile. The reference
	 * keeps sport's memory while the HCA is removed under us; the removal
	 * closes and waits for the same channels, so the count reaches 0.
	 */
	srpt_wait_chs_released(&sport->mode_chs[!val], name);
	kref_put(&sdev->refs, srpt_free_sdev);
	return ret;
}
CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	&srpt_tpg_attrib_attr_max_hw_pending_time,
	&srpt_tpg_attrib_attr_comp_v_mask,
	NULL,
};

/**
 * srpt_rdma_cm_port_show() - show discovery_auth/rdma_cm_port
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written.
 */
static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(rdma_cm_listen_port));
}

/**
 * srpt_rdma_cm_port_store() - start, move or stop the RDMA/CM listener
 * @item: configfs item
 * @page: port number 0..65535
 * @count: length of @page
 *
 * Return: @count, -EINVAL for a bad number, or the listener's error.
 */
static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	u16 port;
	int ret;

	if (kstrtou16(page, 0, &port))
		return -EINVAL;
	ret = srpt_set_rdma_cm_port(port);
	return ret ? ret : count;
}
CONFIGFS_ATTR(srpt_, rdma_cm_port);

/* configfs: sessions and statistics ------------------------------------- */

/*
 * The info, statistics and logins files are made of blocks (a channel, a
 * session header, a port) that are appended whole or not at all, so that
 * a reader such as rtslib never sees a cut line; when the page is full,
 * a last line says what was left out.
 */
#define SRPT_SHOW_BLOCK		512
#define SRPT_SHOW_RESERVE	64

/**
 * struct srpt_show - a configfs page being filled block by block
 * @page: the page
 * @len: bytes in @page
 * @left_out: blocks that did not fit
 * @block: the block being formatted
 * @blen: bytes in @block
 */
struct srpt_show {
	char *page;
	int len;
	int left_out;
	char block[SRPT_SHOW_BLOCK];
	int blen;
};

/**
 * srpt_show_add() - format text into the current block
 * @s: page being filled
 * @fmt: printf format
 *
 * Text that does not fit into the block is cut; blocks are sized so that
 * this does not happen.
 */
static __printf(2, 3) void srpt_show_add(struct srpt_show *s,
					 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	s->blen += vscnprintf(s->block + s->blen, sizeof(s->block) - s->blen,
			      fmt, ap);
	va_end(ap);
}

/**
 * srpt_show_commit() - append the current block to the page if it fits
 * @s: page being filled
 *
 * Return: true when the block was appended.
 */
static bool srpt_show_commit(struct srpt_show *s)
{
	bool fits = !s->left_out &&
		s->len + s->blen <= PAGE_SIZE - SRPT_SHOW_RESERVE;

	if (fits) {
		memcpy(s->page + s->len, s->block, s->blen);
		s->len += s->blen;
	} else {
		s->left_out++;
	}
	s->blen = 0;
	return fits;
}

/**
 * srpt_show_new() - start filling a configfs page block by block
 * @page: the page
 *
 * Return: the page being filled (free it with srpt_show_end()) or NULL.
 */
static struct srpt_show *srpt_show_new(char *page)
{
	struct srpt_show *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (s)
		s->page = page;
	return s;
}

/**
 * srpt_show_end() - finish the page and free @s
 * @s: page being filled
 *
 * Return: the length of the page.
 */
static int srpt_show_end(struct srpt_show *s)
{
	int len = s->len;

	if (s->left_out)
		len += scnprintf(s->page + len, PAGE_SIZE - len,
				 "(%d more not shown)\n", s->left_out);
	kfree(s);
	return len;
}

/**
 * srpt_ch_conn_state() - a channel state in the words of the ACL info file
 * @state: channel state
 *
 * targetcli's "sessions" command (rtslib) parses the session and connection
 * states of the ACL info file in the form the iSCSI target uses; the SRP
 * channel states map onto them.
 *
 * Return: the name of the matching connection state.
 */
static const char *srpt_ch_conn_state(enum srpt_ch_state state)
{
	switch (state) {
	case CH_CONNECTING:
		return "TARG_CONN_STATE_IN_LOGIN";
	case CH_LIVE:
		return "TARG_CONN_STATE_LOGGED_IN";
	case CH_DISCONNECTING:
	case CH_DRAINING:
		return "TARG_CONN_STATE_IN_LOGOUT";
	default:
		return "TARG_CONN_STATE_CLEANUP_WAIT";
	}
}

/**
 * srpt_nexus_info() - the session block of one nexus in an ACL's info file
 * @s: page being filled
 * @nexus: I_T nexus; the caller holds its port's mutex
 * @nacl: the ACL; only channels whose session was made with it count
 *
 * The header goes in one block with the first channel, each further
 * channel in a block of its own.
 */
static void srpt_nexus_info(struct srpt_show *s, struct srpt_nexus *nexus,
			    const struct se_node_acl *nacl)
{
	struct srpt_rdma_ch *ch;
	int live = 0, connecting = 0, n = 0;

	list_for_each_entry(ch, &nexus->ch_list, list) {
		if (ch->nacl != nacl)
			continue;
		n++;
		live += READ_ONCE(ch->state) == CH_LIVE;
		connecting += READ_ONCE(ch->state) == CH_CONNECTING;
	}
	if (!n)
		return;
	srpt_show_add(s, "InitiatorName: %s\n"
		      "InitiatorAlias: 0x%16phN\n"
		      "LIO Session ID: %u   SessionType: Normal\n"
		      "Session State: TARG_SESS_STATE_%s\n"
		      "Target port ID: 0x%16phN\n"
		      "Channels: %d, %d live\n",
		      nacl->initiatorname, nexus->i_port_id, nexus->id,
		      live ? "LOGGED_IN" : connecting ? "ACTIVE" : "FAILED",
		      nexus->t_port_id, n, live);
	list_for_each_entry(ch, &nexus->ch_list, list) {
		if (ch->nacl != nacl)
			continue;
		srpt_show_add(s, "CID: %u   Connection State: %s\n"
			      "   Address %s %s\n"
			      "   Completion vector: %d\n",
			      ch->cid, srpt_ch_conn_state(READ_ONCE(ch->state)),
			      ch->peer, ch->using_rdma_cm ? "rdma_cm" : "ib_cm",
			      ch->comp_vector);
		if (!srpt_show_commit(s))
			return;
	}
}

/**
 * srpt_ch_stats() - one channel's line in an ACL's statistics file
 * @s: page being filled
 * @ch: channel, in its nexus; the caller holds its port's mutex
 */
static void srpt_ch_stats(struct srpt_show *s, struct srpt_rdma_ch *ch)
{
	int held = READ_ONCE(ch->rq_size) + atomic_read(&ch->cred_sent) -
		atomic_read(&ch->req_ius);

	srpt_show_add(s, "session %u cid %u login %ptTs receive %s credits %d/%d ",
		      ch->nexus->id, ch->cid, &ch->login_time,
		      ch->use_srq ? "srq" : "ring",
		      clamp(held, 0, ch->rq_size), ch->rq_size);
	srpt_show_add(s, "commands %llu read_bytes %llu write_bytes %llu ",
		      (u64)atomic64_read(&ch->stats.cmds),
		      (u64)atomic64_read(&ch->stats.read_bytes),
		      (u64)atomic64_read(&ch->stats.write_bytes));
	srpt_show_add(s, "errors %llu aborts %llu tmfs %llu\n",
		      (u64)atomic64_read(&ch->stats.errors),
		      (u64)atomic64_read(&ch->stats.aborts),
		      (u64)atomic64_read(&ch->stats.tmfs));
	srpt_show_commit(s);
}

/**
 * srpt_nacl_show() - fill an ACL's info or statistics file
 * @item: the ACL's configfs item
 * @page: output
 * @stats: the statistics file, else the info file
 *
 * Walks the nexuses of the ACL's port under srpt_dev_mutex (which keeps the
 * port) and the port's mutex (which keeps its nexuses and channels).
 *
 * Return: bytes written.
 */
static ssize_t srpt_nacl_show(struct config_item *item, char *page,
			      bool stats)
{
	struct se_node_acl *nacl = acl_to_nacl(item);
	struct srpt_tpg *stpg = container_of(nacl->se_tpg, struct srpt_tpg,
					     tpg);
	struct srpt_show *s;
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;
	struct srpt_port *sport;

	s = srpt_show_new(page);
	if (!s)
		return -ENOMEM;
	mutex_lock(&srpt_dev_mutex);
	sport = stpg->port_id->sport;
	if (sport) {
		mutex_lock(&sport->mutex);
		list_for_each_entry(nexus, &sport->nexus_list, entry) {
			if (s->left_out)
				break;
			if (!stats) {
				srpt_nexus_info(s, nexus, nacl);
				continue;
			}
			list_for_each_entry(ch, &nexus->ch_list, list) {
				if (ch->nacl == nacl)
					srpt_ch_stats(s, ch);
			}
		}
		mutex_unlock(&sport->mutex);
	}
	mutex_unlock(&srpt_dev_mutex);
	if (!s->len && !s->left_out && !stats)
		s->len = sysfs_emit(page, "No active SRP session for %s\n",
				    nacl->initiatorname);
	return srpt_show_end(s);
}

/**
 * srpt_nacl_info_show() - configfs: acls/<name>/info, the logged-in
 *	sessions of an ACL
 * @item: the ACL's configfs item
 * @page: output
 *
 * Return: bytes written.
 */
static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	return srpt_nacl_show(item, page, false);
}
CONFIGFS_ATTR_RO(srpt_nacl_, info);

/**
 * srpt_nacl_statistics_show() - configfs: acls/<name>/statistics, one line
 *	of counters per logged-in channel of an ACL
 * @item: the ACL's configfs item
 * @page: output
 *
 * Return: bytes written.
 */
static ssize_t srpt_nacl_statistics_show(struct config_item *item, char *page)
{
	return srpt_nacl_show(item, page, true);
}
CONFIGFS_ATTR_RO(srpt_nacl_, statistics);

static struct configfs_attribute *srpt_nacl_base_attrs[] = {
	&srpt_nacl_attr_info,
	&srpt_nacl_attr_statistics,
	NULL,
};

/**
 * srpt_nacl_auth_authenticate_target_show() - configfs:
 *	acls/<name>/auth/authenticate_target, always 0
 * @item: the ACL's auth item
 * @page: output
 *
 * SRP logins carry no authentication; targetcli reads this file for
 * "sessions detail".
 *
 * Return: bytes written.
 */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "0\n");
}
CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

static struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

/* The SRP_LOGIN_REJ reasons, by their low byte, for the login counters. */
static const char *const srpt_rej_names[SRPT_NR_REJ_REASONS] = {
	"unable to establish channel",
	"insufficient resources",
	"IU length too large",
	"unable to associate channel",
	"unsupported descriptor format",
	"multichannel unsupported",
	"channel limit reached or no ACL",
};

/**
 * srpt_port_logins() - the current GID of one port, its WWNs, its login
 *	counters and its count of channels closed as stuck
 *	(srpt_hw_pending_work()), as one block
 * @s: page being filled
 * @sport: HCA port
 *
 * The caller holds srpt_dev_mutex. A WWN created under an earlier GID of
 * the port is marked as such.
 */
static void srpt_port_logins(struct srpt_show *s, struct srpt_port *sport)
{
	struct srpt_port_id *ids[] = { sport->guid_id, sport->gid_id };
	int i;

	srpt_show_add(s, "%s port %u (%s):\n",
		      dev_name(&sport->sdev->device->dev), sport->port,
		      sport->gid_name);
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		if (ids[i])
			srpt_show_add(s, "\tWWN %s%s\n", ids[i]->name,
				      srpt_wwn_name_current(ids[i], sport) ?
				      "" : " (named after an earlier GID)");
	}
	srpt_show_add(s, "\taccepted %llu\n",
		      (u64)atomic64_read(&sport->logins_accepted));
	for (i = 0; i < SRPT_NR_REJ_REASONS; i++)
		srpt_show_add(s, "\trejected, %s: %llu\n", srpt_rej_names[i],
			      (u64)atomic64_read(&sport->logins_rejected[i]));
	srpt_show_add(s, "\tstuck channels closed %llu\n",
		      (u64)atomic64_read(&sport->stuck_closed));
	srpt_show_commit(s);
}

/**
 * srpt_dev_bufs() - the data-buffer budget of one device, as one block
 * @s: page being filled
 * @sdev: the device
 *
 * What the commands and kept buffers of all its channels use, the holders
 * (initiator addresses) and their share (srpt_buf_share()), and the fresh
 * buffers refused, by the address's share or by the whole budget.
 */
static void srpt_dev_bufs(struct srpt_show *s, struct srpt_device *sdev)
{
	srpt_show_add(s, "%s data buffers:\n\tbudget %llu\n\tin use %llu\n",
		      dev_name(&sdev->device->dev), sdev->buf_budget,
		      (u64)atomic64_read(&sdev->buf_bytes));
	srpt_show_add(s, "\tholders %u\n\thigh-water mark %u\n\tshare %llu\n",
		      READ_ONCE(sdev->holders), srpt_holders_hwm(sdev),
		      srpt_buf_share(sdev));
	srpt_show_add(s, "\trefused by share %llu\n\trefused by budget %llu\n",
		      (u64)atomic64_read(&sdev->refused_share),
		      (u64)atomic64_read(&sdev->refused_budget));
	srpt_show_commit(s);
}

/**
 * srpt_da_logins_show() - configfs: srpt/discovery_auth/logins, the ring
 *	buffers of all channels, per HCA the data-buffer budget and, per
 *	HCA port since the port appeared, the logins accepted and rejected
 *	and the stuck channels closed
 * @item: the fabric's discovery_auth item
 * @page: output
 *
 * Not at the fabric root: rtslib takes everything there but a few known
 * names for a target port directory.
 *
 * Return: bytes written.
 */
static ssize_t srpt_da_logins_show(struct config_item *item, char *page)
{
	struct srpt_device *sdev;
	struct srpt_show *s;
	u32 i;

	s = srpt_show_new(page);
	if (!s)
		return -ENOMEM;
	mutex_lock(&srpt_dev_mutex);
	srpt_show_add(s, "ring buffers:\n\tbytes %llu\n\tlimit %llu\n",
		      (u64)atomic64_read(&srpt_ring_bytes), srpt_ring_limit);
	srpt_show_commit(s);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (!s->left_out)
			srpt_dev_bufs(s, sdev);
		for (i = 0; i < sdev->port_cnt && !s->left_out; i++)
			srpt_port_logins(s, &sdev->port[i]);
	}
	mutex_unlock(&srpt_dev_mutex);
	return srpt_show_end(s);
}
CONFIGFS_ATTR_RO(srpt_da_, logins);

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_attr_rdma_cm_port,
	&srpt_da_attr_logins,
	NULL,
};

/* configfs: login_info -------------------------------------------------- */

/*
 * tpgt_N/login_info lists, one per line, what an initiator writes to
 * ib_srp's add_target to log in to the TPG's port: the IB/CM line on an
 * InfiniBand port, then one RDMA/CM line per address of the port's network
 * device while the RDMA/CM listener runs. Loopback and link-local addresses
 * are left out: another host cannot reach the first, and the second needs
 * the initiator's own scope ID; so are IPv6 addresses that are not usable
 * yet (tentative) or at all (duplicate).
 */

/**
 * srpt_login_info_ib() - the IB/CM login line of a port
 * @s: page being filled
 * @sport: HCA port
 * @guid: the target's service GUID (id_ext, ioc_guid and service ID)
 */
static void srpt_login_info_ib(struct srpt_show *s, struct srpt_port *sport,
			       u64 guid)
{
	struct ib_device *device = sport->sdev->device;
	union ib_gid gid;
	u16 pkey;

	if (!rdma_protocol_ib(device, sport->port) ||
	    !READ_ONCE(sport->sdev->cm_id))
		return;
	if (rdma_query_gid(device, sport->port, 0, &gid) ||
	    ib_get_cached_pkey(device, sport->port, 0, &pkey))
		return;
	srpt_show_add(s, "id_ext=%016llx,ioc_guid=%016llx,", guid, guid);
	srpt_show_add(s, "dgid=%16phN,pkey=%04x,service_id=%016llx\n",
		      gid.raw, pkey, guid);
	srpt_show_commit(s);
}

/**
 * srpt_login_info_addr() - the RDMA/CM login line for one address
 * @s: page being filled
 * @addr: the target's address and listening port
 * @guid: the target's service GUID
 */
static void srpt_login_info_addr(struct srpt_show *s, struct sockaddr *addr,
				 u64 guid)
{
	srpt_show_add(s, "id_ext=%016llx,ioc_guid=%016llx,dest=%pISpc\n",
		      guid, guid, addr);
	srpt_show_commit(s);
}

/**
 * srpt_login_info_ipv4() - the RDMA/CM login lines of a device's IPv4 addresses
 * @s: page being filled
 * @ndev: the port's network device
 * @port: RDMA/CM listening port
 * @guid: the target's service GUID
 */
static void srpt_login_info_ipv4(struct srpt_show *s, struct net_device *ndev,
				 u16 port, u64 guid)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (ipv4_is_loopback(ifa->ifa_local) ||
			    ipv4_is_linklocal_169(ifa->ifa_local))
				continue;
			sin.sin_addr.s_addr = ifa->ifa_local;
			srpt_login_info_addr(s, (struct sockaddr *)&sin, guid);
		}
	}
	rcu_read_unlock();
}

/**
 * srpt_login_info_ipv6() - the RDMA/CM login lines of a device's IPv6 addresses
 * @s: page being filled
 * @ndev: the port's network device
 * @port: RDMA/CM listening port
 * @guid: the target's service GUID
 */
static void srpt_login_info_ipv6(struct srpt_show *s, struct net_device *ndev,
				 u16 port, u64 guid)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	const struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;

	idev = in6_dev_get(ndev);
	if (!idev)
		return;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		if ((ipv6_addr_type(&ifp->addr) &
		     (IPV6_ADDR_LOOPBACK | IPV6_ADDR_LINKLOCAL)) ||
		    (ifp->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)))
			continue;
		sin6.sin6_addr = ifp->addr;
		srpt_login_info_addr(s, (struct sockaddr *)&sin6, guid);
	}
	read_unlock_bh(&idev->lock);
	in6_dev_put(idev);
#endif
}

/**
 * srpt_tpg_login_info_show() - configfs: tpgt_N/login_info, the add_target
 *	lines that log in to the TPG's port
 * @item: the TPG's item
 * @page: output
 *
 * The RDMA/CM listener's state is read first and on its own: the listener
 * mutex is never held together with srpt_dev_mutex.
 *
 * Return: bytes written, -ENOMEM or -ENODEV when the port's HCA is gone.
 */
static ssize_t srpt_tpg_login_info_show(struct config_item *item, char *page)
{
	struct se_portal_group *se_tpg = to_tpg(item);
	u64 guid = READ_ONCE(srpt_service_guid);
	struct net_device *ndev = NULL;
	struct srpt_port *sport;
	bool v4, v6;
	struct srpt_show *s;
	u16 port;
	int ret = -ENODEV;

	mutex_lock(&rdma_cm_mutex);
	port = rdma_cm_listen_port;
	v6 = rdma_cm_ids[0];
	v4 = rdma_cm_ids[1];
	mutex_unlock(&rdma_cm_mutex);

	s = srpt_show_new(page);
	if (!s)
		return -ENOMEM;
	mutex_lock(&srpt_dev_mutex);
	sport = container_of(se_tpg, struct srpt_tpg, tpg)->port_id->sport;
	if (sport) {
		srpt_login_info_ib(s, sport, guid);
		if (port)
			ndev = ib_device_get_netdev(sport->sdev->device,
						    sport->port);
	}
	if (ndev) {
		if (v4)
			srpt_login_info_ipv4(s, ndev, port, guid);
		if (v6)
			srpt_login_info_ipv6(s, ndev, port, guid);
		dev_put(ndev);
	}
	mutex_unlock(&srpt_dev_mutex);
	if (sport)
		ret = srpt_show_end(s);
	else
		kfree(s);
	return ret;
}
CONFIGFS_ATTR_RO(srpt_tpg_, login_info);

static struct configfs_attribute *srpt_tpg_base_attrs[] = {
	&srpt_tpg_attr_login_info,
	NULL,
};

/**
 * srpt_wwn_version_show() - show the fabric's version file
 * @item: configfs item
 * @page: output
 *
 * Return: bytes written.
 */
static ssize_t srpt_wwn_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", SRPT_VERSION);
}
CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

static const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.check_stop_free		= srpt_check_stop_free,
	.release_cmd			= srpt_release_cmd,
	.close_session			= srpt_close_session,
	.write_pending			= srpt_write_pending,
	.get_cmd_state			= srpt_get_tcm_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.fabric_make_tpg		= srpt_make_tpg,
	.fabric_enable_tpg		= srpt_enable_tpg,
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_da_attrs,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
	.tfc_tpg_base_attrs		= srpt_tpg_base_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_nacl_base_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_nacl_auth_attrs,
	.default_submit_type		= TARGET_DIRECT_SUBMIT,
	.direct_submit_supp		= 1,
};

/* Devices and ports ----------------------------------------------------- */

/**
 * srpt_port_set_gid() - take a port's GID index 0 and the names built from it
 * @sport: HCA port
 * @gid: its GID index 0 as just read
 *
 * The caller holds srpt_dev_mutex. The WWNs of the port keep the names they
 * were created with, and keep serving the port, when the GID changes: a
 * configfs directory cannot be renamed.
 *
 * Return: true when the port had another GID before, so that its names
 * changed; false when @gid is the first one read or the one already known.
 */
static bool srpt_port_set_gid(struct srpt_port *sport, const union ib_gid *gid)
{
	bool known = sport->gid_name[0];

	if (known && !memcmp(&sport->gid, gid, sizeof(*gid)))
		return false;
	sport->gid = *gid;
	srpt_format_guid_name(sport->guid_name, sizeof(sport->guid_name), gid);
	srpt_format_gid_name(sport->gid_name, sizeof(sport->gid_name), gid);
	return known;
}

/**
 * srpt_refresh_port() - configure a HCA port
 * @sport: SRPT HCA port
 *
 * Both port names are formed from the GID at index 0. A changed GID (a RoCE
 * port's MAC address, an InfiniBand subnet prefix) is logged once, with the
 * old and the new GID form.
 *
 * Return: 0 or a negative error code from the port query.
 */
static int srpt_refresh_port(struct srpt_port *sport)
{
	struct ib_device *device = sport->sdev->device;
	char old[SRPT_PORT_NAME_LEN], new[SRPT_PORT_NAME_LEN];
	struct ib_port_attr attr;
	union ib_gid gid;
	bool changed;
	int ret;

	ret = ib_query_port(device, sport->port, &attr);
	if (ret)
		return ret;
	ret = rdma_query_gid(device, sport->port, 0, &gid);
	if (ret)
		return ret;

	mutex_lock(&srpt_dev_mutex);
	strscpy(old, sport->gid_name, sizeof(old));
	changed = srpt_port_set_gid(sport, &gid);
	mutex_unlock(&srpt_dev_mutex);
	if (changed) {
		srpt_format_gid_name(new, sizeof(new), &gid);
		pr_notice_ratelimited("%s port %u: GID changed from %s to %s; its WWNs keep their names\n",
				      dev_name(&device->dev), sport->port, old,
				      new);
	}

	mutex_lock(&sport->sdev->sdev_mutex);
	ret = srpt_register_mad_agent(sport);
	mutex_unlock(&sport->sdev->sdev_mutex);
	if (ret)
		pr_info("%s port %u: no device-management agent (%d)\n",
			dev_name(&device->dev), sport->port, ret);
	return 0;
}

/**
 * srpt_port_work() - refresh a port after an event
 * @work: the port's work item
 */
static void srpt_port_work(struct work_struct *work)
{
	struct srpt_port *sport = container_of(work, struct srpt_port, work);
	int ret;

	ret = srpt_refresh_port(sport);
	if (ret)
		pr_info("%s port %u: refresh failed (%d)\n",
			dev_name(&sport->sdev->device->dev), sport->port, ret);
}

/**
 * srpt_event_handler() - asynchronous IB event callback function
 * @handler: IB event handler registered by ib_register_event_handler()
 * @event: description of the event that occurred
 */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_device *sdev =
		container_of(handler, struct srpt_device, event_handler);
	u32 port = event->element.port_num;

	pr_debug("%s: event %s (%d) on port %u\n", dev_name(&sdev->device->dev),
		 ib_event_msg(event->event), event->event, port);
	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		if (port >= 1 && port <= sdev->port_cnt)
			schedule_work(&sdev->port[port - 1].work);
		break;
	default:
		break;
	}
}

/**
 * srpt_enable_srq() - create the shared receive queue of a device
 * @sdev: SRPT HCA
 *
 * The SRQ is made when a port first switches to use_srq and lives until
 * the device goes away. Its buffers are placed so that immediate data at
 * the initiator's usual offset lands on a 512-byte boundary.
 *
 * Return: 0 or a negative error code.
 */
static int srpt_enable_srq(struct srpt_device *sdev)
{
	const u32 usual_imm = sizeof(struct srp_cmd) + 16 +
		sizeof(struct srp_imm_buf);
	u32 align = (SRPT_IMM_ALIGN - usual_imm % SRPT_IMM_ALIGN) %
		SRPT_IMM_ALIGN;
	struct ib_srq_init_attr init = {
		.event_handler = srpt_srq_event,
		.srq_context = sdev,
		.attr.max_wr = sdev->srq_size,
		.attr.max_sge = 1,
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq;
	int i, ret = 0;

	mutex_lock(&sdev->sdev_mutex);
	if (sdev->srq)
		goto unlock;
	if (!sdev->device->attrs.max_srq) {
		ret = -EOPNOTSUPP;
		goto unlock;
	}
	srq = ib_create_srq(sdev->pd, &init);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto unlock;
	}
	ret = -ENOMEM;
	sdev->req_buf_cache = srpt_cache_get(align + srp_max_req_size);
	if (!sdev->req_buf_cache)
		goto destroy_srq;
	sdev->ioctx_ring = (struct srpt_recv_ioctx **)
		srpt_alloc_ioctx_ring(sdev, sdev->srq_size,
				      sizeof(*sdev->ioctx_ring[0]),
				      sdev->req_buf_cache, align,
				      DMA_FROM_DEVICE);
	if (!sdev->ioctx_ring)
		goto destroy_srq;
	sdev->srq = srq;
	for (i = 0; i < sdev->srq_size; i++) {
		INIT_LIST_HEAD(&sdev->ioctx_ring[i]->wait_list);
		ret = srpt_post_recv(sdev, NULL, sdev->ioctx_ring[i]);
		if (ret)
			goto destroy_srq;
	}
	pr_info("%s: SRQ of %d entries\n", dev_name(&sdev->device->dev),
		sdev->srq_size);
	goto unlock;

destroy_srq:
	/* First the SRQ: it may still own (and write to) posted buffers. */
	ib_destroy_srq(srq);
	sdev->srq = NULL;
	srpt_free_ioctx_ring((struct srpt_ioctx **)sdev->ioctx_ring, sdev,
			     sdev->srq_size, sdev->req_buf_cache,
			     DMA_FROM_DEVICE);
	sdev->ioctx_ring = NULL;
	srpt_cache_put(sdev->req_buf_cache);
	sdev->req_buf_cache = NULL;
unlock:
	mutex_unlock(&sdev->sdev_mutex);
	return ret;
}

/**
 * srpt_free_srq() - destroy the shared receive queue of a device
 * @sdev: SRPT HCA whose channels are all gone
 */
static void srpt_free_srq(struct srpt_device *sdev)
{
	if (!sdev->srq)
		return;
	ib_destroy_srq(sdev->srq);
	srpt_free_ioctx_ring((struct srpt_ioctx **)sdev->ioctx_ring, sdev,
			     sdev->srq_size, sdev->req_buf_cache,
			     DMA_FROM_DEVICE);
	srpt_cache_put(sdev->req_buf_cache);
	sdev->srq = NULL;
	sdev->ioctx_ring = NULL;
	sdev->req_buf_cache = NULL;
}

/**
 * srpt_attach_port_ids() - give WWNs left from a removed HCA to a new one
 * @sdev: the new HCA, already on srpt_dev_list
 *
 * A WWN stays in configfs when its HCA is unplugged; when an HCA with a
 * port of the same name comes back, the WWN and its TPGs serve it again.
 */
static void srpt_attach_port_ids(struct srpt_device *sdev)
{
	struct srpt_port_id *port_id;
	u32 i;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(port_id, &srpt_port_ids, entry) {
		if (port_id->sport)
			continue;
		for (i = 0; i < sdev->port_cnt; i++) {
			struct srpt_port *sport = &sdev->port[i];
			struct srpt_port_id **slot = port_id->gid_form ?
				&sport->gid_id : &sport->guid_id;
			const char *name = port_id->gid_form ?
				sport->gid_name : sport->guid_name;

			if (*slot || strcasecmp(name, port_id->name))
				continue;
			*slot = port_id;
			port_id->sport = sport;
			srpt_update_port_enabled(sport);
			pr_info("%s: WWN %s attached again\n",
				dev_name(&sdev->device->dev), port_id->name);
			break;
		}
	}
}

/**
 * srpt_detach_port_ids() - unlink the WWNs of a device that goes away
 * @sdev: SRPT HCA
 */
static void srpt_detach_port_ids(struct srpt_device *sdev)
{
	u32 i;

	lockdep_assert_held(&srpt_dev_mutex);
	for (i = 0; i < sdev->port_cnt; i++) {
		struct srpt_port *sport = &sdev->port[i];

		if (sport->guid_id)
			sport->guid_id->sport = NULL;
		if (sport->gid_id)
			sport->gid_id->sport = NULL;
		sport->guid_id = NULL;
		sport->gid_id = NULL;
		sport->enabled = false;
	}
}

/**
 * srpt_init_port() - initialise the state of one HCA port
 * @sdev: SRPT HCA
 * @i: port index, 0-based
 */
static void srpt_init_port(struct srpt_device *sdev, u32 i)
{
	struct srpt_port *sport = &sdev->port[i];
	int ret;

	sport->sdev = sdev;
	sport->port = i + 1;
	sport->port_attrib.srp_max_rdma_size = SRPT_DEF_RDMA_SIZE;
	sport->port_attrib.srp_max_rsp_size = SRPT_DEF_RSP_SIZE;
	sport->port_attrib.srp_sq_size = SRPT_DEF_SQ_SIZE;
	sport->port_attrib.use_srq = false;
	sport->port_attrib.max_hw_pending_time = SRPT_DEF_HW_PENDING_TIME;
	bitmap_fill(sport->port_attrib.comp_v_mask, SRPT_COMP_V_BITS);
	spin_lock_init(&sport->comp_v_lock);
	mutex_init(&sport->mutex);
	INIT_LIST_HEAD(&sport->nexus_list);
	spin_lock_init(&sport->tsk_lock);
	INIT_LIST_HEAD(&sport->tsk_waits);
	INIT_WORK(&sport->work, srpt_port_work);
	INIT_DELAYED_WORK(&sport->hw_pending_work, srpt_hw_pending_work);
	atomic_set(&sport->refcount, 0);
	atomic_set(&sport->mode_chs[0], 0);
	atomic_set(&sport->mode_chs[1], 0);
	ret = srpt_refresh_port(sport);
	if (ret)
		pr_info("%s port %u: not ready yet (%d)\n",
			dev_name(&sdev->device->dev), sport->port, ret);
}

/**
 * srpt_add_failed() - say that an adapter could not be added
 * @device: the adapter
 * @ret: why (a negative error code)
 *
 * The RDMA core ignores what an IB client's add callback returns: without
 * this line an admin would see new WWNs of the adapter refused in configfs
 * and nothing saying why.
 *
 * Return: @ret.
 */
static int srpt_add_failed(struct ib_device *device, int ret)
{
	pr_err("%s: not added (%d); ib_srpt serves it when the adapter is added again or ib_srpt is reloaded\n",
	       dev_name(&device->dev), ret);
	return ret;
}

/**
 * srpt_add_one() - InfiniBand device addition callback function
 * @device: describes a HCA
 *
 * Return: 0 or a negative error code.
 */
static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device *sdev;
	u32 i, nports = rdma_end_port(device);

	sdev = kzalloc(struct_size(sdev, port, nports), GFP_KERNEL);
	if (!sdev)
		return srpt_add_failed(device, -ENOMEM);
	sdev->port_cnt = nports;
	sdev->device = device;
	kref_init(&sdev->refs);
	mutex_init(&sdev->sdev_mutex);
	sdev->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(sdev->pd)) {
		int ret = PTR_ERR(sdev->pd);

		kfree(sdev);
		return srpt_add_failed(device, ret);
	}
	sdev->lkey = sdev->pd->local_dma_lkey;
	sdev->srq_size = min(srpt_srq_size, device->attrs.max_srq_wr);
	sdev->buf_budget = srpt_buf_budget((u64)totalram_pages() << PAGE_SHIFT);
	srpt_init_holders(sdev);
	if (!srpt_service_guid)
		srpt_service_guid = be64_to_cpu(device->node_guid);

	for (i = 0; i < nports; i++)
		srpt_init_port(sdev, i);
	INIT_IB_EVENT_HANDLER(&sdev->event_handler, device, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);

	mutex_lock(&srpt_dev_mutex);
	list_add_tail(&sdev->list, &srpt_dev_list);
	srpt_attach_port_ids(sdev);
	mutex_unlock(&srpt_dev_mutex);
	ib_set_client_data(device, &srpt_client, sdev);
	/* Last: an IB/CM login may come in as soon as this listens. */
	srpt_listen_ib_cm(sdev);
	pr_info("added %s: %u port(s), GUID %016llx\n", dev_name(&device->dev),
		nports, srpt_service_guid);
	return 0;
}

/**
 * srpt_release_sport() - wait until every channel of a port is released
 * @sport: SRPT HCA port whose channels were closed
 *
 * Waits for srpt_port.refcount, which a channel drops as the very last step
 * of its release, not for the nexus lists: a channel that has left them may
 * still be using the device's PD, SRQ and CQs.
 */
static void srpt_release_sport(struct srpt_port *sport)
{
	srpt_wait_chs_released(&sport->refcount, sport->guid_name);
}

/**
 * srpt_remove_one() - InfiniBand device removal callback function
 * @device: describes a HCA
 * @client_data: the value passed to ib_set_client_data()
 *
 * Called on rmmod and on hot-unplug (rdma link del). The waiting is done
 * without srpt_dev_mutex: the device is off srpt_dev_list and its WWNs are
 * detached by then, so no login (RDMA/CM looks the device up in that list,
 * IB/CM came through the listener) and no configfs write reaches it any
 * more; a configfs writer already waiting holds a reference on the memory.
 * WWNs of the device stay in configfs, detached.
 */
static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_device *sdev = client_data;
	u32 i;

	if (sdev->cm_id)
		ib_destroy_cm_id(sdev->cm_id);
	ib_unregister_event_handler(&sdev->event_handler);
	for (i = 0; i < sdev->port_cnt; i++)
		cancel_work_sync(&sdev->port[i].work);
	srpt_unregister_mad_agent(sdev, sdev->port_cnt);

	WRITE_ONCE(sdev->going_away, true);
	wake_up_all(&srpt_ch_released_wq);
	mutex_lock(&srpt_dev_mutex);
	list_del(&sdev->list);
	srpt_detach_port_ids(sdev);
	for (i = 0; i < sdev->port_cnt; i++)
		srpt_close_port_chs(&sdev->port[i], NULL,
				    "the adapter is going away");
	mutex_unlock(&srpt_dev_mutex);
	for (i = 0; i < sdev->port_cnt; i++) {
		srpt_release_sport(&sdev->port[i]);
		/* No live channel and no WWN is left to queue it again. */
		cancel_delayed_work_sync(&sdev->port[i].hw_pending_work);
	}

	/* Every channel dropped its holder when its rings were freed. */
	WARN_ON_ONCE(!list_empty(&sdev->holder_list));
	srpt_free_srq(sdev);
	ib_dealloc_pd(sdev->pd);
	pr_info("removed %s\n", dev_name(&device->dev));
	kref_put(&sdev->refs, srpt_free_sdev);
}

static struct ib_client srpt_client = {
	.name = DRV_NAME,
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

/* Module ---------------------------------------------------------------- */

/**
 * srpt_init_module() - kernel module initialization
 *
 * Return: 0 or a negative error code.
 */
static int __init srpt_init_module(void)
{
	int ret;

	srpt_ring_limit = srpt_ring_budget((u64)totalram_pages() << PAGE_SHIFT);
	srpt_wq = alloc_workqueue("ib_srpt", WQ_MEM_RECLAIM, 0);
	if (!srpt_wq)
		return -ENOMEM;
	srpt_tsk_wq = alloc_ordered_workqueue("ib_srpt_tsk", WQ_MEM_RECLAIM);
	if (!srpt_tsk_wq) {
		ret = -ENOMEM;
		goto destroy_wq;
	}
	ret = target_register_template(&srpt_template);
	if (ret)
		goto destroy_tsk_wq;
	ret = ib_register_client(&srpt_client);
	if (ret) {
		pr_err("registering the IB client failed (%d)\n", ret);
		goto unregister_template;
	}
	if (rdma_cm_port && srpt_set_rdma_cm_port(rdma_cm_port))
		pr_warn("rdma_cm_port=%u: not listening\n", rdma_cm_port);
	return 0;

unregister_template:
	target_unregister_template(&srpt_template);
destroy_tsk_wq:
	destroy_workqueue(srpt_tsk_wq);
destroy_wq:
	destroy_workqueue(srpt_wq);
	return ret;
}

/**
 * srpt_cleanup_module() - kernel module cleanup
 */
static void __exit srpt_cleanup_module(void)
{
	srpt_set_rdma_cm_port(0);
	ib_unregister_client(&srpt_client);
	/*
	 * Every channel was released by srpt_remove_one(); a release work may
	 * still be returning from srpt_put_port_ch(). Wait for it before the
	 * fabric, and then the module text, go away.
	 */
	flush_workqueue(srpt_wq);
	WARN_ON_ONCE(atomic64_read(&srpt_ring_bytes));
	target_unregister_template(&srpt_template);
	destroy_workqueue(srpt_tsk_wq);
	destroy_workqueue(srpt_wq);
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);

#if IS_ENABLED(CONFIG_INFINIBAND_SRPT_KUNIT_TEST)
#include "ib_srpt_test.c"
#endif
