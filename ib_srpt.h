/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt - SCSI RDMA Protocol (SRP) target driver for the LIO target core.
 *
 * Data structures shared by the driver and its KUnit tests. The wire
 * formats of the InfiniBand device-management class are defined here too,
 * each checked against the specification's sizes at build time.
 */
#ifndef IB_SRPT_H
#define IB_SRPT_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <scsi/srp.h>
#include <target/target_core_base.h>

#define DRV_NAME		"ib_srpt"
#define SRPT_VERSION		"1.0"

/* Device-management class (InfiniBand Architecture, chapter 16.3). */
enum {
	DM_MAD_STATUS_UNSUP_METHOD	= 0x0008,
	DM_MAD_STATUS_UNSUP_METHOD_ATTR	= 0x000c,
	DM_MAD_STATUS_INVALID_FIELD	= 0x001c,
	DM_MAD_STATUS_NO_IOC		= 0x0100,

	DM_ATTR_CLASS_PORT_INFO		= 0x01,
	DM_ATTR_IOU_INFO		= 0x10,
	DM_ATTR_IOC_PROFILE		= 0x11,
	DM_ATTR_SVC_ENTRIES		= 0x12,
};

/* SRP identification in an I/O controller profile (SRP-2 annex). */
enum {
	SRP_IO_SUBCLASS			= 0x609e,
	SRP_PROTOCOL			= 0x0108,
	SRP_PROTOCOL_VERSION		= 0x0001,
	SRPT_IOC_SLOTS			= 16,
	SRPT_IOC_SLOT			= 1,
	SRPT_SVC_ENTRIES_PER_MAD	= 4,
	/* Controller operations capability mask bits. */
	SRPT_OPCAP_ST			= 1 << 0,
	SRPT_OPCAP_SF			= 1 << 1,
	SRPT_OPCAP_RT			= 1 << 2,
	SRPT_OPCAP_RF			= 1 << 3,
	SRPT_OPCAP_WT			= 1 << 4,
	SRPT_OPCAP_WF			= 1 << 5,
	/* Controller list nibble values of IOUnitInfo. */
	SRPT_IOC_NOT_INSTALLED		= 0x0,
	SRPT_IOC_PRESENT		= 0x1,
};

/**
 * struct ib_dm_mad - a device-management MAD
 * @mad_hdr: common MAD header
 * @reserved: the RMPP header and reserved bytes of the DM class
 * @data: attribute payload
 */
struct ib_dm_mad {
	struct ib_mad_hdr mad_hdr;
	u8 reserved[40];
	u8 data[IB_MGMT_DEVICE_DATA];
};

static_assert(sizeof(struct ib_dm_mad) == sizeof(struct ib_mad));
static_assert(offsetof(struct ib_dm_mad, data) == IB_MGMT_DEVICE_HDR);
static_assert(sizeof_field(struct ib_dm_mad, data) == IB_MGMT_DEVICE_DATA);
static_assert(sizeof(struct ib_class_port_info) == 72);

/**
 * struct ib_dm_iou_info - IOUnitInfo attribute
 * @change_id: incremented when the controller list changes
 * @max_controllers: number of controller slots
 * @op_rom: option ROM and diagnostic flags
 * @controller_list: one nibble per slot, slot 1 in the high nibble of byte 0
 */
struct ib_dm_iou_info {
	__be16 change_id;
	u8 max_controllers;
	u8 op_rom;
	u8 controller_list[128];
};

static_assert(sizeof(struct ib_dm_iou_info) == 132);
static_assert(offsetof(struct ib_dm_iou_info, controller_list) == 4);

/**
 * struct ib_dm_ioc_profile - IOControllerProfile attribute
 * @guid: I/O controller GUID
 * @vendor_id: vendor ID in the upper 24 bits
 * @device_id: device ID
 * @device_version: device version
 * @reserved1: reserved
 * @subsys_vendor_id: subsystem vendor ID in the upper 24 bits
 * @subsys_device_id: subsystem device ID
 * @io_class: I/O class
 * @io_subclass: I/O subclass
 * @protocol: protocol
 * @protocol_version: protocol version
 * @reserved2: reserved
 * @send_queue_depth: send message queue depth
 * @reserved3: reserved
 * @rdma_read_depth: RDMA read queue depth
 * @send_size: largest send message size
 * @rdma_size: largest RDMA transfer size
 * @op_cap_mask: controller operations capability mask
 * @reserved4: reserved
 * @num_svc_entries: number of service entries
 * @reserved5: reserved
 * @id_string: controller identification string
 */
struct ib_dm_ioc_profile {
	__be64 guid;
	__be32 vendor_id;
	__be32 device_id;
	__be16 device_version;
	__be16 reserved1;
	__be32 subsys_vendor_id;
	__be32 subsys_device_id;
	__be16 io_class;
	__be16 io_subclass;
	__be16 protocol;
	__be16 protocol_version;
	__be32 reserved2;
	__be16 send_queue_depth;
	u8 reserved3;
	u8 rdma_read_depth;
	__be32 send_size;
	__be32 rdma_size;
	u8 op_cap_mask;
	u8 reserved4;
	u8 num_svc_entries;
	u8 reserved5[9];
	u8 id_string[64];
};

static_assert(sizeof(struct ib_dm_ioc_profile) == 128);
static_assert(offsetof(struct ib_dm_ioc_profile, vendor_id) == 8);
static_assert(offsetof(struct ib_dm_ioc_profile, device_version) == 16);
static_assert(offsetof(struct ib_dm_ioc_profile, subsys_vendor_id) == 20);
static_assert(offsetof(struct ib_dm_ioc_profile, io_class) == 28);
static_assert(offsetof(struct ib_dm_ioc_profile, protocol_version) == 34);
static_assert(offsetof(struct ib_dm_ioc_profile, send_queue_depth) == 40);
static_assert(offsetof(struct ib_dm_ioc_profile, rdma_read_depth) == 43);
static_assert(offsetof(struct ib_dm_ioc_profile, send_size) == 44);
static_assert(offsetof(struct ib_dm_ioc_profile, rdma_size) == 48);
static_assert(offsetof(struct ib_dm_ioc_profile, op_cap_mask) == 52);
static_assert(offsetof(struct ib_dm_ioc_profile, num_svc_entries) == 54);
static_assert(offsetof(struct ib_dm_ioc_profile, id_string) == 64);

/**
 * struct ib_dm_svc_entry - one service entry
 * @name: service name, NUL padded
 * @id: service ID
 */
struct ib_dm_svc_entry {
	u8 name[40];
	__be64 id;
};

static_assert(sizeof(struct ib_dm_svc_entry) == 48);
static_assert(offsetof(struct ib_dm_svc_entry, id) == 40);

/**
 * struct ib_dm_svc_entries - ServiceEntries attribute
 * @service_entries: up to four entries
 */
struct ib_dm_svc_entries {
	struct ib_dm_svc_entry service_entries[SRPT_SVC_ENTRIES_PER_MAD];
};

static_assert(sizeof(struct ib_dm_svc_entries) == 192);
static_assert(sizeof(struct ib_dm_svc_entries) <= IB_MGMT_DEVICE_DATA);

/* Limits. */
enum {
	SRPT_MIN_IU_LEN			= 64,	/* SRP: smallest IU an initiator may offer */
	SRPT_MIN_MAX_REQ_SIZE		= 996,
	SRPT_DEF_MAX_REQ_SIZE		= 8276,
	SRPT_MAX_MAX_REQ_SIZE		= 256 * 1024,
	SRPT_DEF_SRQ_SIZE		= 4095,
	SRPT_MIN_SRQ_SIZE		= 4,
	SRPT_MAX_SRQ_SIZE		= 65535,
	SRPT_MAX_RQ_SIZE		= 128,	/* credits per channel */
	SRPT_MAX_CH_PER_NEXUS		= 64,	/* channels per I_T nexus */
	/*
	 * Channels per source address (IP address or GUID form) and HCA
	 * port, whatever initiator port IDs they log in with: the initiator
	 * picks its port ID freely, so under an ACL named by address (IP or
	 * GUID form) the nexus limit alone does not bound one host. ib_srp
	 * opens one channel per CPU at most (ch_count), which the nexus
	 * limit clips at 64, and one nexus per initiator_ext and target
	 * port; four full nexuses per address leave room for several
	 * initiator_ext values of a host with 64 or more CPUs.
	 */
	SRPT_MAX_CH_PER_PEER		= 4 * SRPT_MAX_CH_PER_NEXUS,
	/*
	 * All channels of a source address on a port, closing ones included:
	 * a closing channel keeps its rings (about 1 MiB), QP and CQ until
	 * its last command has finished, and an initiator that closes its
	 * channels and logs in again faster than they are released would
	 * otherwise pile them up. Twice the open limit: one whole reconnect
	 * of an address still fits.
	 */
	SRPT_MAX_CH_PER_PEER_ALL	= 2 * SRPT_MAX_CH_PER_PEER,
	SRPT_MIN_RSP_SIZE		= 40,
	SRPT_DEF_RSP_SIZE		= 256,
	SRPT_MAX_RSP_SIZE		= 1024,
	SRPT_MIN_RDMA_SIZE		= 65536,
	SRPT_DEF_RDMA_SIZE		= 65536,
	SRPT_MAX_RDMA_SIZE		= 16 * 1024 * 1024,
	SRPT_MIN_SQ_SIZE		= 4,
	SRPT_DEF_SQ_SIZE		= 4096,
	SRPT_MAX_SQ_SIZE		= 65535,
	SRPT_RDMA_READ_DEPTH		= 16,	/* responder resources offered */
	/* ACL names: "0x" + 32 hex digits, an IPv6 address, a GUID form. */
	SRPT_ACL_NAME_LEN		= 48,
	/*
	 * Send retries of a channel's QP, whatever the initiator asked for:
	 * 7 RNR retries means for ever, and soft-RoCE also retries for ever
	 * on a transport retry count of 7; ACK timeout 4.096 us * 2^20,
	 * about 4.3 s per try (0 means for ever).
	 */
	SRPT_MAX_RNR_RETRY		= 6,
	SRPT_MAX_RETRY_CNT		= 6,
	SRPT_MAX_ACK_TIMEOUT		= 20,
	SRPT_MAX_SEND_SGE		= 16,
	SRPT_SQ_WR_PER_CREDIT		= 4,	/* send-queue slots per credit */
	SRPT_KEEP_PAGES			= 2,	/* data buffer kept per context */
	SRPT_MAX_DATA_LEN		= 64 * 1024 * 1024,	/* per SRP_CMD */
	SRPT_MAX_DESCS			= U8_MAX,	/* descriptors per SRP_CMD */
	SRPT_MAX_CDB_LEN		= 16 + 252,	/* CDB + additional CDB */
	SRPT_BUF_BUDGET_SHIFT		= 4,	/* 1/16 of RAM per device */
	/* Its first-come half holds two of the largest commands. */
	SRPT_MIN_BUF_BUDGET		= 4 * SRPT_MAX_DATA_LEN,
	/*
	 * The rings of all channels may take a quarter of RAM, and never
	 * less than two channels of the largest kind (srpt_ring_budget()):
	 * a receive buffer of the largest size plus its alignment is
	 * charged as twice the size, and 16 KiB leave room for the rest.
	 */
	SRPT_RING_BUDGET_SHIFT		= 2,
	SRPT_MIN_RING_BUDGET		= 2 * SRPT_MAX_RQ_SIZE *
					  (2 * SRPT_MAX_MAX_REQ_SIZE + 16384),
	SRPT_MIN_IMM_DATA_OFFSET	= sizeof(struct srp_cmd),
	SRPT_IMM_ALIGN			= 512,
	SRPT_CRED_REQ_THRESHOLD		= 16,	/* unreported credits that trigger SRP_CRED_REQ */
	SRPT_PORT_NAME_LEN		= 64,
	SRPT_NR_REJ_REASONS		= 7,	/* SRP_LOGIN_REJ_* low bytes 0..6 */
	/*
	 * How long the release of a channel closed before its RTU keeps the
	 * connection for that RTU (srpt_wait_rtu()): the RTU follows the
	 * login response by one round trip, but an initiator must not hold
	 * up the release of a port for longer.
	 */
	SRPT_RTU_WAIT_MS		= 5000,
	/*
	 * A channel whose login was answered and that is not live after this
	 * long is closed (srpt_connect_timeout()): with IB/CM the initiator's
	 * request sets how long the REP is resent, up to hours.
	 */
	SRPT_CONNECT_TIMEOUT_MS		= 10000,
	/*
	 * max_hw_pending_time: a live channel whose send queue has work
	 * outstanding and no completion (the ones in the middle of a long
	 * transfer included) for this many seconds is closed
	 * (srpt_hw_pending_work(), which looks about once a second).
	 */
	SRPT_DEF_HW_PENDING_TIME	= 60,
	/*
	 * A command has one signaled work request at the end of all its
	 * RDMA transfers; on a slow link (soft RDMA under KASAN moves about
	 * 1 MiB/s) 64 MiB of them, in one descriptor or many, would complete
	 * nothing for a minute and look stuck to max_hw_pending_time. So the
	 * work request in the middle whose end reaches or crosses a multiple
	 * of this many bytes of the command's data is signaled too
	 * (srpt_signal_progress()); rdma_rw splits a transfer into work
	 * requests of at most max_sge DMA segments or one memory
	 * registration (256 pages) each, so this is about one completion
	 * more per MiB, which costs nothing next to the data, and even that
	 * slow link then completes something about once a second. A segment
	 * is a page unless an IOMMU merged pages into a longer one; then one
	 * work request, and the gap between two completions, can be longer.
	 */
	SRPT_PROGRESS_BYTES		= 1024 * 1024,
	SRPT_MAX_HW_PENDING_TIME	= 3600,
	/*
	 * comp_v_mask: completion vectors a port's mask can name (bits 0 to
	 * 1023, 256 hex digits); a device's vectors from 1024 up are not
	 * used. Real adapters have about one vector per CPU.
	 */
	SRPT_COMP_V_BITS		= 1024,
	/* "0x", the hex digits, a newline and the terminating NUL */
	SRPT_COMP_V_TEXT_LEN		= 2 + SRPT_COMP_V_BITS / 4 + 2,
};

/**
 * enum srpt_command_state - where a SCSI command or TMF stands
 * @SRPT_STATE_NEW: received, not yet submitted to LIO
 * @SRPT_STATE_NEED_DATA: waiting for the RDMA READ of the data-out buffer
 * @SRPT_STATE_DATA_IN: data-out buffer transferred, command executing
 * @SRPT_STATE_CMD_RSP_SENT: SRP_RSP (and any RDMA WRITEs) posted
 * @SRPT_STATE_MGMT: task management function submitted to LIO
 * @SRPT_STATE_MGMT_RSP_SENT: task management response posted
 * @SRPT_STATE_DONE: response completed or command aborted
 */
enum srpt_command_state {
	SRPT_STATE_NEW,
	SRPT_STATE_NEED_DATA,
	SRPT_STATE_DATA_IN,
	SRPT_STATE_CMD_RSP_SENT,
	SRPT_STATE_MGMT,
	SRPT_STATE_MGMT_RSP_SENT,
	SRPT_STATE_DONE,
};

/**
 * struct srpt_ioctx - an IU buffer and its DMA mapping
 * @cqe: completion queue entry of the work request that uses this buffer
 * @buf: the buffer
 * @dma: DMA address of @buf
 * @offset: offset of the IU inside @buf (receive buffers only)
 * @index: position of this context in its ring
 */
struct srpt_ioctx {
	struct ib_cqe cqe;
	void *buf;
	dma_addr_t dma;
	u32 offset;
	u32 index;
};

/**
 * struct srpt_recv_ioctx - receive context
 * @ioctx: the buffer
 * @wait_list: entry in the channel's list of IUs that arrived before RTU
 * @byte_len: number of bytes received in this buffer
 * @ch: channel the IU arrived on (set at receive time, needed with SRQ)
 */
struct srpt_recv_ioctx {
	struct srpt_ioctx ioctx;
	struct list_head wait_list;
	u32 byte_len;
	struct srpt_rdma_ch *ch;
};

/**
 * struct srpt_rw_ctx - one remote buffer of a command
 * @rw: rdma_rw context
 * @sg: the part of the local buffer that maps to the remote buffer
 * @nents: entries in @sg
 */
struct srpt_rw_ctx {
	struct rdma_rw_ctx rw;
	struct scatterlist *sg;
	unsigned int nents;
};

/**
 * struct srpt_tsk_wait - an ABORT TASK SET or CLEAR TASK SET that waits
 * @entry: entry in srpt_port.tsk_waits, in arrival order
 * @work: hands the function to LIO (srpt_tsk_wait_work())
 * @sport: port whose srpt_port.tsk_waits holds @entry
 * @ch: channel the function arrived on; counted in srpt_rdma_ch.tsk_held
 * @tmf: send context of the function, not yet known to LIO
 * @lun: LUN of the function
 * @se_lun: LIO's LUN behind @lun for the channel's ACL; the wait holds a
 *	reference to its lun_ref, which keeps @lu
 * @lu: the logical unit (LIO's device), only compared
 * @func: the SRP task management function
 * @pending: commands marked by the function that are not yet released,
 *	plus one while the marking goes on
 * @ordered: the function found commands another one had marked first: it
 *	goes to LIO after every function of the same logical unit that
 *	arrived before it
 * @ready: @pending reached zero; protected by srpt_port.tsk_lock
 */
struct srpt_tsk_wait {
	struct list_head entry;
	struct work_struct work;
	struct srpt_port *sport;
	struct srpt_rdma_ch *ch;
	struct srpt_send_ioctx *tmf;
	u64 lun;
	struct se_lun *se_lun;
	const struct se_device *lu;
	u8 func;
	atomic_t pending;
	bool ordered;
	bool ready;
};

/**
 * struct srpt_send_ioctx - send context: one SCSI command or TMF
 * @ioctx: response buffer
 * @ch: owning channel
 * @free_list: entry in the channel's free list
 * @wait_list: entry in the channel's list of commands waiting for send-queue
 *	slots
 * @s_rw_ctx: the one remote-buffer context used for direct descriptors
 * @s_desc: storage for @descs when there is one descriptor
 * @rdma_cqe: completion entry of the last RDMA READ
 * @imm_sg: scatterlist for immediate data
 * @state: see enum srpt_command_state
 * @tag: initiator's tag
 * @keep_sg: data buffer of an earlier command kept for the next one (may be
 *	@data_sg right now), or NULL
 * @keep_nents: pages in @keep_sg
 * @rsp_len: length of the response IU in the buffer
 * @abortable: a SCSI command that ABORT TASK SET and CLEAR TASK SET may
 *	abort: set (release) once LIO has looked up its logical unit, cleared
 *	under srpt_rdma_ch.lock when the context goes back to the free list
 * @abort_tas: the task-set function came from another I_T nexus and the
 *	logical unit has TAS set: answer TASK ABORTED instead of nothing
 * @lu: the logical unit of the command (LIO's device), only compared
 * @abort_by: the ABORT TASK SET or CLEAR TASK SET that aborts the command,
 *	or NULL; written under srpt_rdma_ch.lock, set with a release after
 *	@abort_tas
 * @recv_ioctx: receive buffer kept until the command completes (immediate
 *	data is used in place)
 * @rw_ctxs: remote-buffer contexts, @s_rw_ctx or an allocated array
 * @n_rw_ctx: number of entries in @rw_ctxs
 * @data_sg: the local data buffer, whole pages, handed to LIO
 * @data_nents: entries in @data_sg
 * @slices: per-descriptor views into @data_sg, or NULL
 * @descs: copy of the remote buffer descriptors
 * @n_descs: entries in @descs
 * @n_rdma: send-queue slots held for RDMA work requests
 * @dir: data direction
 * @data_len: data length the descriptors describe
 * @bounce_sg: copy of unaligned immediate data, or NULL
 * @bounce_nents: entries in @bounce_sg
 * @buf_charge: bytes of the device's data-buffer budget this command holds
 * @sq_wr_needed: send-queue slots the posting that waits needs
 * @sq_wr_held: send-queue slots held by the posted response
 * @waiting_rsp: the waiting posting is the response (else RDMA READs)
 * @status_only: send status without the data-in transfer
 * @own_rsp: this context carries an IU of the driver's own, not a LIO
 *	command's response: an SRP_CRED_REQ, or the answer to a task
 *	management function that LIO did not take
 * @task_set: an ABORT TASK SET or CLEAR TASK SET the driver carried out
 * @cmd: the LIO command
 * @sense_data: sense buffer
 *
 * srpt_get_send_ioctx() clears everything from @recv_ioctx to the end for
 * each command. The fields before it outlive a command: the ring buffer,
 * list entries that may be linked, storage and callbacks set up once, the
 * kept data buffer, and what every command sets before use.
 */
struct srpt_send_ioctx {
	struct srpt_ioctx ioctx;
	struct srpt_rdma_ch *ch;
	struct list_head free_list;
	struct list_head wait_list;
	struct srpt_rw_ctx s_rw_ctx;
	struct srp_direct_buf s_desc;
	struct ib_cqe rdma_cqe;
	struct scatterlist imm_sg;
	enum srpt_command_state state;
	u64 tag;
	struct scatterlist *keep_sg;
	unsigned int keep_nents;
	u32 rsp_len;
	bool abortable;
	bool abort_tas;
	const struct se_device *lu;
	struct srpt_tsk_wait *abort_by;
	/* Per command from here on: cleared by memset_startat(). */
	struct srpt_recv_ioctx *recv_ioctx;
	struct srpt_rw_ctx *rw_ctxs;
	unsigned int n_rw_ctx;
	struct scatterlist *data_sg;
	unsigned int data_nents;
	struct scatterlist *slices;
	struct srp_direct_buf *descs;
	u32 n_descs;
	unsigned int n_rdma;
	enum dma_data_direction dir;
	u64 data_len;
	struct scatterlist *bounce_sg;
	unsigned int bounce_nents;
	u32 buf_charge;
	u32 sq_wr_needed;
	u32 sq_wr_held;
	bool waiting_rsp;
	bool status_only;
	bool own_rsp;
	bool task_set;
	struct se_cmd cmd;
	u8 sense_data[TRANSPORT_SENSE_BUFFER];
};

/**
 * enum srpt_ch_state - channel life cycle; a channel only moves forward
 * @CH_CONNECTING: login accepted, waiting for RTU / ESTABLISHED
 * @CH_LIVE: IUs are processed
 * @CH_DISCONNECTING: DREQ sent or received, QP moved to error
 * @CH_DRAINING: waiting for the zero-length write to flush
 * @CH_DISCONNECTED: all work requests completed, release queued
 */
enum srpt_ch_state {
	CH_CONNECTING,
	CH_LIVE,
	CH_DISCONNECTING,
	CH_DRAINING,
	CH_DISCONNECTED,
};

struct srpt_port;
struct srpt_nexus;

/**
 * struct srpt_ch_stats - what one channel did, for the ACL's info attribute
 * @cmds: SRP_CMD IUs accepted
 * @read_bytes: data-in bytes of the commands answered
 * @write_bytes: data-out bytes of the commands answered
 * @errors: commands answered with a status other than GOOD
 * @aborts: commands LIO aborted
 * @tmfs: SRP_TSK_MGMT IUs accepted
 */
struct srpt_ch_stats {
	atomic64_t cmds;
	atomic64_t read_bytes;
	atomic64_t write_bytes;
	atomic64_t errors;
	atomic64_t aborts;
	atomic64_t tmfs;
};

/**
 * struct srpt_rdma_ch - one SRP channel (RDMA connection + LIO session)
 * @nexus: I_T nexus this channel belongs to
 * @sport: HCA port the login arrived on
 * @stpg: TPG of the channel's session, set when it joins its nexus
 * @ib_cm_id: IB/CM connection, or NULL
 * @rdma_cm_id: RDMA/CM connection, or NULL
 * @using_rdma_cm: true for RDMA/CM logins
 * @qp: queue pair
 * @cq: completion queue (from the device's CQ pool)
 * @cq_size: entries reserved in @cq
 * @comp_vector: completion vector of @cq, for the ACL's info attribute
 * @zw_cqe: completion entry of the zero-length write
 * @progress_cqe: completion entry of the signaled work requests in the
 *	middle of a command's RDMA transfers (srpt_signal_progress()); the
 *	channel's, not the command's: such a work request may complete after
 *	its command failed and its send context was reused
 * @kref: references; the last one frees the channel
 * @rq_size: receive ring size == credits granted at login
 * @sq_size: send queue size
 * @sq_wr_avail: free send-queue slots, protected by @lock
 * @sq_progress: jiffies of the last send-queue completion (those in the
 *	middle of a long transfer included), or of the reservation that
 *	found the send queue empty, whichever came last;
 *	protected by @lock (see srpt_ch_sq_stuck())
 * @max_ti_iu_len: largest IU the initiator accepts
 * @max_it_iu_len: largest IU the initiator sends (negotiated)
 * @max_rsp_size: size of the response buffers
 * @req_lim_delta: credits to return with the next response
 * @cred_sent: credits returned since the login (REQUEST LIMIT DELTA of
 *	every SRP_RSP and SRP_CRED_REQ), counted before the IU is posted
 * @req_ius: IUs received that use a credit of the initiator
 * @imm_data_offset: offset of immediate data in SRP_CMD, 0 when off
 * @use_srq: receives come from the device SRQ
 * @ring_posted: receives of the ring have been posted to the QP, which
 *	has left the RESET state: its destruction drains them first
 * @recv_lock: protects @cmd_wait_list and the state checks of the
 *	receive path
 * @lock: protects @free_list, @n_free, @sq_wr_avail, @sq_progress,
 *	@rw_wait_list and @sq_releasing
 * @free_list: unused send contexts
 * @n_free: number of entries in @free_list
 * @rw_wait_list: commands waiting for send-queue slots
 * @sq_releasing: srpt_sq_release() is posting waiting commands; nested
 *	calls only give back their slots
 * @cmd_wait_list: IUs received before the channel went live
 * @ioctx_ring: send contexts
 * @ioctx_recv_ring: receive contexts (without SRQ)
 * @state: see enum srpt_ch_state
 * @processing_wait_list: true while @cmd_wait_list is being processed (or
 *	an IU is, see srpt_process_ius())
 * @rtu_busy: true while srpt_cm_rtu_recv() makes the channel live
 * @rtu_pending: the login response is out and the connection manager has
 *	reported neither the RTU nor the end of the connection; protected
 *	by @recv_lock (see srpt_wait_rtu())
 * @close_logged: srpt_close_ch() logged the close (within the rate limit
 *	srpt_ch_log_rs), so the release is logged too
 * @login_busy: true while srpt_cm_req_recv() answers the channel's login,
 *	protected by @recv_lock; srpt_close_ch() then only records
 *	@close_why
 * @close_why: a close asked for during the login, run by
 *	srpt_login_end(); protected by @recv_lock
 * @wait_list_kick: set when @cmd_wait_list should be looked at again
 *	because a send context was freed while it was being processed
 * @rsp_buf_cache: slab of response buffers
 * @req_buf_cache: slab of receive buffers
 * @list: entry in the nexus channel list
 * @sess: LIO session
 * @sess_name: name the ACL was found under
 * @release_work: frees the channel once drained
 * @ring_charge: bytes charged for @ioctx_ring and @ioctx_recv_ring
 *	(srpt_ring_charge()) until the rings are freed
 * @connect_work: closes the channel if it is not live
 *	%SRPT_CONNECT_TIMEOUT_MS after its login was answered; holds a
 *	reference while queued
 * @nacl: ACL of @sess, only compared, never dereferenced; set with @stpg
 * @cid: number of the channel in its nexus, for the ACL's info attribute
 * @login_time: wall-clock seconds of the login
 * @peer: initiator address: IP address (RDMA/CM) or GUID form (IB/CM)
 * @holder: what the channels from @peer hold of the device's data-buffer
 *	budget; set while the channel has its rings (srpt_get_holder())
 * @stats: counters shown in the ACL's info attribute
 * @tsk_held: ABORT TASK SET and CLEAR TASK SET functions of the channel
 *	that wait for the commands they abort and are not yet handed to LIO
 *	(srpt_tsk_wait); the release waits for them
 * @rings_gone: the release frees the rings now: task-set functions no
 *	longer look at them; set under srpt_port.mutex
 */
struct srpt_rdma_ch {
	struct srpt_nexus *nexus;
	struct srpt_port *sport;
	struct srpt_tpg *stpg;
	struct ib_cm_id *ib_cm_id;
	struct rdma_cm_id *rdma_cm_id;
	bool using_rdma_cm;
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 cq_size;
	int comp_vector;
	struct ib_cqe zw_cqe;
	struct ib_cqe progress_cqe;
	struct kref kref;
	int rq_size;
	u32 sq_size;
	int sq_wr_avail;
	unsigned long sq_progress;
	u32 max_ti_iu_len;
	u32 max_it_iu_len;
	u32 max_rsp_size;
	atomic_t req_lim_delta;
	atomic_t cred_sent;
	atomic_t req_ius;
	u16 imm_data_offset;
	bool use_srq;
	bool ring_posted;
	spinlock_t recv_lock;	/* see above */
	spinlock_t lock;	/* see above */
	struct list_head free_list;
	int n_free;
	struct list_head rw_wait_list;
	bool sq_releasing;
	struct list_head cmd_wait_list;
	struct srpt_send_ioctx **ioctx_ring;
	struct srpt_recv_ioctx **ioctx_recv_ring;
	enum srpt_ch_state state;
	bool processing_wait_list;
	bool rtu_busy;
	bool rtu_pending;
	bool close_logged;
	bool login_busy;
	const char *close_why;
	bool wait_list_kick;
	struct kmem_cache *rsp_buf_cache;
	struct kmem_cache *req_buf_cache;
	struct list_head list;
	struct se_session *sess;
	char sess_name[40];
	struct work_struct release_work;
	struct delayed_work connect_work;
	u64 ring_charge;
	const struct se_node_acl *nacl;
	u32 cid;
	time64_t login_time;
	char peer[40];
	struct srpt_holder *holder;
	struct srpt_ch_stats stats;
	atomic_t tsk_held;
	bool rings_gone;
};

/**
 * struct srpt_holder - the data buffers of one initiator address on a device
 * @entry: entry in srpt_device.holder_list
 * @refs: channels of the device from @name that have their rings;
 *	protected by srpt_device.holder_lock
 * @held: bytes of the data buffers those channels' commands use and of
 *	the buffers their send contexts keep
 * @name: the address, srpt_rdma_ch.peer of the channels, compared exactly
 */
struct srpt_holder {
	struct list_head entry;
	unsigned int refs;
	atomic64_t held;
	char name[40];
};

/**
 * struct srpt_login_chs - the channels a login's limits look at
 * @nexus: channels of the login's I_T nexus that are not closing
 * @nexus_peer: those of them from the login's source address
 * @peer: channels of the HCA port from the login's source address that
 *	are not closing, in any nexus
 * @peer_all: all channels of the HCA port from the login's source address,
 *	closing ones included
 */
struct srpt_login_chs {
	unsigned int nexus;
	unsigned int nexus_peer;
	unsigned int peer;
	unsigned int peer_all;
};

/**
 * enum srpt_ch_limit - the channel limit a login would exceed
 * @SRPT_CH_LIMIT_OK: none; the login may go on
 * @SRPT_CH_LIMIT_NEXUS: the I_T nexus has SRPT_MAX_CH_PER_NEXUS channels
 * @SRPT_CH_LIMIT_PEER: the source address has SRPT_MAX_CH_PER_PEER
 *	channels on the HCA port
 * @SRPT_CH_LIMIT_PEER_ALL: the source address has SRPT_MAX_CH_PER_PEER_ALL
 *	channels on the HCA port, closing ones included
 */
enum srpt_ch_limit {
	SRPT_CH_LIMIT_OK,
	SRPT_CH_LIMIT_NEXUS,
	SRPT_CH_LIMIT_PEER,
	SRPT_CH_LIMIT_PEER_ALL,
};

/**
 * struct srpt_acl_key - the TPG and ACL a login is admitted under
 * @stpg: the TPG, only compared, never dereferenced
 * @name: the name of the ACL that matched
 *
 * The initiator port ID of a login is whatever the initiator sends, so an
 * I_T nexus is also told apart by the ACL that admitted it: a login cannot
 * close, or count against, the channels another ACL admitted.
 */
struct srpt_acl_key {
	const struct srpt_tpg *stpg;
	char name[SRPT_ACL_NAME_LEN];
};

/**
 * struct srpt_nexus - I_T nexus: the channels of one initiator/target pair
 *	under one ACL
 * @entry: entry in the port's nexus list
 * @ch_list: channels
 * @i_port_id: initiator port ID
 * @t_port_id: target port ID
 * @acl: the TPG and ACL of its channels
 * @id: session number shown in the ACL's info attribute
 * @next_cid: number of the next channel that joins
 */
struct srpt_nexus {
	struct list_head entry;
	struct list_head ch_list;
	u8 i_port_id[16];
	u8 t_port_id[16];
	struct srpt_acl_key acl;
	u32 id;
	u32 next_cid;
};

/**
 * struct srpt_port_attrib - TPG attributes (configfs attrib/)
 * @srp_max_rdma_size: largest RDMA transfer advertised
 * @srp_max_rsp_size: size of the response buffers
 * @srp_sq_size: send queue size of new channels
 * @use_srq: receive through the device SRQ
 * @max_hw_pending_time: seconds a live channel's send queue may hold work
 *	without a completion before the channel is closed; 0: no limit
 * @comp_v_mask: completion vectors the CQs of new channels may use (bit i:
 *	vector i); protected by srpt_port.comp_v_lock
 */
struct srpt_port_attrib {
	u32 srp_max_rdma_size;
	u32 srp_max_rsp_size;
	u32 srp_sq_size;
	bool use_srq;
	u32 max_hw_pending_time;
	DECLARE_BITMAP(comp_v_mask, SRPT_COMP_V_BITS);
};

/**
 * struct srpt_tpg - a target portal group
 * @entry: entry in the port ID's TPG list
 * @port_id: owning port ID
 * @enabled: logins may join this TPG; the driver's own flag, because LIO
 *	sets tpg.enabled only after the enable callback has returned and clears
 *	it only after the disable callback has returned
 * @nr_ch: channels with a session in this TPG that are not fully released
 * @tpg: LIO portal group
 */
struct srpt_tpg {
	struct list_head entry;
	struct srpt_port_id *port_id;
	bool enabled;
	atomic_t nr_ch;
	struct se_portal_group tpg;
};

/**
 * struct srpt_port_id - one name of an HCA port; a WWN in configfs
 * @mutex: protects @tpg_list and @sport
 * @tpg_list: TPGs under this WWN
 * @entry: entry in the global list of port IDs
 * @sport: the port, or NULL while the HCA is gone
 * @wwn: LIO WWN
 * @name: the name the WWN was created with
 * @gid_form: true when @name is the GID form (0x + 32 hex digits)
 */
struct srpt_port_id {
	struct mutex mutex;	/* see above */
	struct list_head tpg_list;
	struct list_head entry;
	struct srpt_port *sport;
	struct se_wwn wwn;
	char name[SRPT_PORT_NAME_LEN];
	bool gid_form;
};

/**
 * struct port_and_port_id - result of looking up a WWN name
 * @sport: the HCA port, or NULL
 * @port_id: where the port keeps the WWN of that name form
 */
struct port_and_port_id {
	struct srpt_port *sport;
	struct srpt_port_id **port_id;
};

/**
 * struct srpt_port - one HCA port
 * @sdev: owning device
 * @mad_agent: device-management MAD agent, or NULL
 * @enabled: at least one TPG of the port is enabled
 * @port: port number
 * @work: port refresh after an event
 * @gid: GID index 0 as last read, which @guid_name and @gid_name are built
 *	from (srpt_port_set_gid()); all zero until it was first read
 * @guid_name: GUID form of the port name; empty until @gid was first read
 * @gid_name: GID form of the port name; empty until @gid was first read
 * @guid_id: WWN in GUID form, or NULL; made with @guid_name, which may
 *	have changed since (srpt_wwn_name_current())
 * @gid_id: WWN in GID form, or NULL; made with @gid_name, which may have
 *	changed since
 * @port_attrib: TPG attributes
 * @comp_v_lock: protects @port_attrib.comp_v_mask, which is too long to
 *	be read or written at once, and @comp_v_seq
 * @comp_v_seq: turn of the port's next channel in taking the vectors that
 *	@port_attrib.comp_v_mask allows (srpt_next_comp_vector())
 * @refcount: channels on this port that are not fully released; the port
 *	and its device are not freed before it is 0
 * @mode_chs: the part of @refcount using a receive ring [0] or the SRQ [1]
 * @mutex: protects @nexus_list and channel lists
 * @nexus_list: I_T nexuses
 * @logins_accepted: logins accepted on this port
 * @logins_rejected: logins rejected on this port, indexed by the low byte
 *	of the SRP_LOGIN_REJ reason (SRP_LOGIN_REJ_NO_REASON .. _CHANNEL_LIMIT)
 * @hw_pending_work: closes the live channels whose send queue is stuck
 *	(srpt_hw_pending_work()); queued while the port has live channels
 * @stuck_closed: channels @hw_pending_work closed
 * @tsk_lock: protects @tsk_waits and srpt_tsk_wait.ready
 * @tsk_waits: ABORT TASK SET and CLEAR TASK SET functions of the port's
 *	channels that wait for the commands they abort, in arrival order
 */
struct srpt_port {
	struct srpt_device *sdev;
	struct ib_mad_agent *mad_agent;
	bool enabled;
	u32 port;
	struct work_struct work;
	union ib_gid gid;
	char guid_name[SRPT_PORT_NAME_LEN];
	char gid_name[SRPT_PORT_NAME_LEN];
	struct srpt_port_id *guid_id;
	struct srpt_port_id *gid_id;
	struct srpt_port_attrib port_attrib;
	spinlock_t comp_v_lock;	/* see above */
	u32 comp_v_seq;
	atomic_t refcount;
	atomic_t mode_chs[2];
	struct mutex mutex;	/* see above */
	struct list_head nexus_list;
	atomic64_t logins_accepted;
	atomic64_t logins_rejected[SRPT_NR_REJ_REASONS];
	struct delayed_work hw_pending_work;
	atomic64_t stuck_closed;
	spinlock_t tsk_lock;	/* see above */
	struct list_head tsk_waits;
};

/**
 * struct srpt_device - per-HCA state
 * @list: entry in the global device list
 * @device: the HCA
 * @pd: protection domain
 * @lkey: local DMA key
 * @srq: shared receive queue, or NULL
 * @cm_id: IB/CM listener, or NULL
 * @srq_size: SRQ size
 * @sdev_mutex: serialises SRQ enable/disable
 * @req_buf_cache: slab of SRQ receive buffers
 * @ioctx_ring: SRQ receive contexts
 * @buf_bytes: bytes of data buffers the device's commands hold
 * @buf_budget: limit of @buf_bytes, see srpt_buf_budget()
 * @holder_lock: protects @holder_list and the writes of @holders
 * @holder_list: one struct srpt_holder per initiator address with a
 *	channel on the device
 * @holders: entries in @holder_list
 * @holders_mark: in its low 32 bits the most @holders since the device
 *	last used at most half its budget (srpt_buf_share()), in its high 32
 *	bits a count of holder registrations (srpt_reset_holders_hwm())
 * @refused_share: fresh data buffers refused because their initiator
 *	address held its share
 * @refused_budget: fresh data buffers refused because the budget was
 *	used up
 * @event_handler: asynchronous event handler
 * @refs: references to the memory of this structure: one of the IB client
 *	plus one per configfs writer waiting for channels of a port
 * @going_away: the HCA is being removed: releases wait for no RTU
 *	(srpt_wait_rtu())
 * @port_cnt: number of ports
 * @port: per-port state
 */
struct srpt_device {
	struct list_head list;
	struct ib_device *device;
	struct ib_pd *pd;
	u32 lkey;
	struct ib_srq *srq;
	struct ib_cm_id *cm_id;
	int srq_size;
	struct mutex sdev_mutex;	/* see above */
	struct kmem_cache *req_buf_cache;
	struct srpt_recv_ioctx **ioctx_ring;
	atomic64_t buf_bytes;
	u64 buf_budget;
	spinlock_t holder_lock;	/* see above */
	struct list_head holder_list;
	unsigned int holders;
	atomic64_t holders_mark;
	atomic64_t refused_share;
	atomic64_t refused_budget;
	struct ib_event_handler event_handler;
	struct kref refs;
	bool going_away;
	u32 port_cnt;
	struct srpt_port port[] __counted_by(port_cnt);
};

#endif /* IB_SRPT_H */
