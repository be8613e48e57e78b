// SPDX-License-Identifier: GPL-2.0
/*
 * ibcm_conn.c - srp-hostile's IB/CM transport (-T ibcm): the login goes to
 * the target's IB/CM listener as a REQ whose service ID is the target's
 * service GUID and whose private data is the SRP_LOGIN_REQ; the CM MADs go
 * through libibumad (this process registers for the CM class, so the
 * kernel's ib_cm must not be loaded on this host), and the RC QP is ours,
 * moved INIT -> RTR -> RTS by hand from the REP.
 *
 * On RoCE the CM MADs carry a GRH: QP1, Q_Key 0x80010000, P_Key index 0,
 * GID index of our source GID. Addresses are GIDs; an IPv4 address stands
 * for its IPv4-mapped GID (::ffff:a.b.c.d), as RoCE v2 writes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <endian.h>
#include <infiniband/umad.h>

#include "hostile.h"
#include "ibcm.h"

#define ICM_MAXDEV 8
#define ICM_PORT 1

/* an RDMA device and, once used, its umad port with our CM agent */
struct icm_dev {
	char name[IBV_SYSFS_NAME_MAX];
	struct ibv_context *ctx;
	uint64_t node_guid;
	int gid_tbl_len;
	enum ibv_mtu mtu;
	int fd;                 /* umad port, -1 until opened */
	int agent;
};

static struct icm_dev devs[ICM_MAXDEV];
static int ndevs;
static uint32_t next_comm_id;
static uint64_t next_tid;

/* ibcm_init - open every RDMA device (the umad ports are opened on use) */
int ibcm_init(void)
{
	struct ibv_device **list;
	struct timespec ts;
	int i, n;

	if (umad_init() < 0) {
		fprintf(stderr, "umad_init failed: is ib_umad loaded?\n");
		return -1;
	}
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		fprintf(stderr, "no RDMA device\n");
		return -1;
	}
	for (i = 0; i < n && ndevs < ICM_MAXDEV; i++) {
		struct icm_dev *d = &devs[ndevs];
		struct ibv_port_attr pa;

		d->ctx = ibv_open_device(list[i]);
		if (!d->ctx)
			continue;
		if (ibv_query_port(d->ctx, ICM_PORT, &pa)) {
			ibv_close_device(d->ctx);
			continue;
		}
		snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(list[i]));
		d->node_guid = be64toh(ibv_get_device_guid(list[i]));
		d->gid_tbl_len = pa.gid_tbl_len;
		d->mtu = pa.active_mtu;
		d->fd = -1;
		d->agent = -1;
		ndevs++;
	}
	ibv_free_device_list(list);
	/* comm IDs and PSNs differ from run to run: the target keeps old ones in TimeWait */
	clock_gettime(CLOCK_REALTIME, &ts);
	srandom((unsigned int)(ts.tv_nsec ^ ts.tv_sec ^ getpid()));
	next_comm_id = (uint32_t)random() | 1;
	next_tid = (uint64_t)random() << 16;
	return ndevs ? 0 : -1;
}

/* ibcm_addr_gid - ADDR (IPv6, or IPv4 for its mapped form) as a GID */
int ibcm_addr_gid(const char *addr, uint8_t gid[16])
{
	struct in_addr a4;

	if (inet_pton(AF_INET6, addr, gid) == 1)
		return 0;
	if (inet_pton(AF_INET, addr, &a4) != 1)
		return -1;
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, &a4, 4);
	return 0;
}

static void gid_str(const uint8_t *gid, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, buf, len))
		snprintf(buf, len, "?");
}

/*
 * find_sgid - the device and GID index of our source GID SGID; with no
 * SGID (all zero) the first IPv4-mapped GID of the first device.
 */
static int find_sgid(uint8_t sgid[16], int *dev, int *idx)
{
	static const uint8_t zero[16], v4pfx[12] = { [10] = 0xff, [11] = 0xff };
	int want_any = !memcmp(sgid, zero, 16);
	int d, i;

	for (d = 0; d < ndevs; d++)
		for (i = 0; i < devs[d].gid_tbl_len; i++) {
			union ibv_gid g;

			if (ibv_query_gid(devs[d].ctx, ICM_PORT, i, &g))
				continue;
			if (want_any ? !memcmp(g.raw, v4pfx, 12) : !memcmp(g.raw, sgid, 16)) {
				memcpy(sgid, g.raw, 16);
				*dev = d;
				*idx = i;
				return 0;
			}
		}
	return -1;
}

/* open_umad - the umad port of device D with our agent for the CM class */
static int open_umad(struct icm_dev *d, char *err, size_t errlen)
{
	long mask[16 / sizeof(long)] = { 0 };

	if (d->fd >= 0)
		return 0;
	d->fd = umad_open_port(d->name, ICM_PORT);
	if (d->fd < 0) {
		snprintf(err, errlen, "umad_open_port(%s, %d): %s (is ib_umad loaded?)",
			 d->name, ICM_PORT, strerror(-d->fd));
		d->fd = -1;
		return -1;
	}
	mask[0] = 1L << CM_METHOD_SEND;
	d->agent = umad_register(d->fd, CM_MGMT_CLASS, CM_CLASS_VERSION, 0, mask);
	if (d->agent < 0) {
		snprintf(err, errlen,
			 "umad_register for the CM class on %s failed: the kernel's ib_cm owns it (unload ib_cm and everything that uses it)",
			 d->name);
		umad_close_port(d->fd);
		d->fd = -1;
		return -1;
	}
	vlog("ibcm: %s port %d: CM agent %d", d->name, ICM_PORT, d->agent);
	return 0;
}

/* send_mad - one CM MAD to the GSI QP of DGID, with a GRH */
static int send_mad(struct icm_dev *d, int sgid_idx, const uint8_t *dgid, const uint8_t *mad)
{
	uint8_t buf[sizeof(struct ib_user_mad) + CM_MAD_SIZE] __attribute__((aligned(8)));
	ib_mad_addr_t grh;
	char g[64];

	memset(buf, 0, sizeof(buf));
	memcpy(umad_get_mad(buf), mad, CM_MAD_SIZE);
	umad_set_addr(buf, 0, CM_GSI_QPN, 0, CM_QKEY);
	memset(&grh, 0, sizeof(grh));
	memcpy(grh.gid, dgid, 16);
	grh.hop_limit = 64;
	umad_set_grh(buf, &grh);
	/* umad_set_grh() leaves the source GID index alone */
	umad_get_mad_addr(buf)->gid_index = sgid_idx;
	umad_set_pkey(buf, 0);
	gid_str(dgid, g, sizeof(g));
	vlog("ibcm: send %s to %s", cm_attr_name(cm_mad_attr(mad)), g);
	if (umad_send(d->fd, d->agent, buf, CM_MAD_SIZE, 0, 0) < 0) {
		vlog("ibcm: umad_send: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int conn_send_mad(struct conn *c, const uint8_t *mad)
{
	return send_mad(&devs[c->icm.dev], c->icm.sgid_idx, c->icm.dgid, mad);
}

struct ibv_context *ibcm_verbs(const struct conn *c)
{
	return devs[c->icm.dev].ctx;
}

/*
 * ibcm_prepare - GIDs, device, PD, CQ and an RC QP in INIT for connection
 * C; the caller sets up the buffers and then calls ibcm_connect().
 */
int ibcm_prepare(struct conn *c, const struct login_opts *o, char *err, size_t errlen)
{
	struct icm *m = &c->icm;
	struct icm_dev *d;
	struct ibv_qp_attr a;

	memset(m, 0, sizeof(*m));
	m->on = 1;
	if (!o->dst[0] || ibcm_addr_gid(o->dst, m->dgid)) {
		snprintf(err, errlen, "bad destination GID or address '%s'", o->dst);
		return -1;
	}
	if (o->src[0] && ibcm_addr_gid(o->src, m->sgid)) {
		snprintf(err, errlen, "bad source GID or address '%s'", o->src);
		return -1;
	}
	if (find_sgid(m->sgid, &m->dev, &m->sgid_idx)) {
		snprintf(err, errlen, "no RDMA device has the source GID %s on port %d",
			 o->src[0] ? o->src : "(any IPv4-mapped)", ICM_PORT);
		return -1;
	}
	d = &devs[m->dev];
	if (open_umad(d, err, errlen))
		return -1;
	if (conn_new_rc_qp(c, d->ctx, err, errlen))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = ICM_PORT;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS)) {
		snprintf(err, errlen, "QP to INIT: %s", strerror(errno));
		return -1;
	}
	m->nortu = o->nortu;
	m->rtu_delay = o->rtu_delay;
	m->rtu_at = 0;
	return 0;
}

/* arm - (re)send the MAD of M now and time its answer */
static void arm(struct conn *c)
{
	struct icm *m = &c->icm;

	m->tries++;
	m->next_ms = now_ms() + m->tmo_ms;
	if (conn_send_mad(c, m->mad))
		vlog("c%d: sending %s failed", c->idx, cm_attr_name(cm_mad_attr(m->mad)));
}

/* ibcm_connect - send the REQ with the SRP login request of C */
int ibcm_connect(struct conn *c, const struct login_opts *o, char *err, size_t errlen)
{
	struct icm *m = &c->icm;
	struct icm_dev *d = &devs[m->dev];
	struct cm_req_fields f;
	char g[64];

	memset(&f, 0, sizeof(f));
	m->lcid = next_comm_id++;
	m->psn = (uint32_t)random() & 0xffffff;
	m->tid = next_tid++;
	f.local_comm_id = m->lcid;
	f.service_id = o->service_id;
	f.local_ca_guid = d->node_guid;
	f.local_qpn = c->qp->qp_num;
	f.resp_res = c->cp.responder_resources;
	f.init_depth = c->cp.initiator_depth;
	f.remote_cm_tmo = o->cm_tmo;
	f.transport = 0;                /* RC */
	f.flow_control = 1;
	f.starting_psn = m->psn;
	f.local_cm_tmo = o->cm_tmo;
	f.retry = o->retry;
	f.pkey = 0xffff;
	f.mtu = d->mtu;
	f.rnr_retry = o->rnr_retry;
	f.max_cm_retries = o->cm_retries;
	/*
	 * RoCE has no LIDs: the kernel's ib_cm takes the path from the GRH
	 * of the MAD and the GIDs; for a routed path it writes the
	 * permissive LID, as here.
	 */
	f.local_lid = 0xffff;
	f.remote_lid = 0xffff;
	memcpy(f.local_gid, m->sgid, 16);
	memcpy(f.remote_gid, m->dgid, 16);
	f.hop_limit = 64;
	f.ack_timeout = 18;
	f.pdata = c->pdata;
	f.pdlen = c->pdlen;
	if (cm_req_build(m->mad, m->tid, &f)) {
		snprintf(err, errlen, "%d bytes of private data do not fit a REQ (at most %d)",
			 c->pdlen, CM_REQ_PDATA);
		return -1;
	}
	/* as the target answers: 4.096 us * 2^cm_tmo, and a REP may take longer to come */
	m->tmo_ms = 2 * (1 << (o->cm_tmo > 8 ? o->cm_tmo - 8 : 0)) + 500;
	m->max_tries = o->cm_retries + 1;
	m->tries = 0;
	m->st = ICM_REQ_SENT;
	gid_str(m->sgid, g, sizeof(g));
	vlog("c%d: REQ comm ID 0x%08x QPN 0x%06x from %s (%s GID %d) to service 0x%016llx",
	     c->idx, m->lcid, c->qp->qp_num, g, d->name, m->sgid_idx,
	     (unsigned long long)f.service_id);
	arm(c);
	return 0;
}

/* qp_connect - our QP to RTR and RTS for the target's REP R */
static int qp_connect(struct conn *c, const struct cm_rep_fields *r, char *why, size_t wl)
{
	struct icm *m = &c->icm;
	struct icm_dev *d = &devs[m->dev];
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = d->mtu;
	a.dest_qp_num = r->local_qpn;
	/*
	 * Each side's starting PSN is the one it receives with: the target
	 * sends from our REQ's, we send from its REP's (as the kernel's CM
	 * sets up both of its ends).
	 */
	a.rq_psn = m->psn;
	/* the target's RDMA READs from our buffers: what our REQ offered */
	a.max_dest_rd_atomic = c->cp.responder_resources;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, m->dgid, 16);
	a.ah_attr.grh.sgid_index = m->sgid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.dlid = 0;
	a.ah_attr.port_num = ICM_PORT;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER)) {
		snprintf(why, wl, "QP to RTR: %s", strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 18;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = r->starting_psn;
	a.max_rd_atomic = r->resp_res < c->cp.initiator_depth ? r->resp_res :
			  c->cp.initiator_depth;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		snprintf(why, wl, "QP to RTS: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void send_rtu(struct conn *c)
{
	uint8_t mad[CM_MAD_SIZE];

	cm_rtu_build(mad, c->icm.tid, c->icm.lcid, c->icm.rcid);
	if (!conn_send_mad(c, mad))
		c->icm.nrtu++;
}

/* the connection is gone: as RDMA/CM's DISCONNECTED event */
static void went_down(struct conn *c)
{
	c->disc = 1;
	c->icm.st = ICM_DONE;
	if (c->st == CS_EST) {
		c->st = CS_DISC;
		ev_push(c, EV_DISC, NULL, 0);
	}
}

static void on_rep(struct conn *c, const uint8_t *mad)
{
	struct icm *m = &c->icm;
	struct cm_rep_fields r;
	uint8_t rej[CM_MAD_SIZE];
	char why[160];

	cm_rep_parse(mad, &r);
	m->nrep++;
	if (m->st != ICM_REQ_SENT) {
		/* a repeated REP: our RTU was lost, or we never sent one */
		vlog("c%d: REP again (%d)%s", c->idx, m->nrep, m->nortu ? ", no RTU (nortu)" : "");
		if (m->st == ICM_EST && !m->nortu && !m->rtu_at)
			send_rtu(c);
		return;
	}
	m->rcid = r.local_comm_id;
	m->rqpn = r.local_qpn;
	m->rep_resp_res = r.resp_res;
	m->rep_init_depth = r.init_depth;
	vlog("c%d: REP comm ID 0x%08x QPN 0x%06x PSN 0x%06x resp_res %u init_depth %u",
	     c->idx, r.local_comm_id, r.local_qpn, r.starting_psn, r.resp_res, r.init_depth);
	if (qp_connect(c, &r, why, sizeof(why))) {
		cm_rej_build(rej, m->tid, m->lcid, m->rcid, 1, 6 /* unsupported request */);
		conn_send_mad(c, rej);
		m->st = ICM_DONE;
		c->st = CS_FAIL;
		snprintf(c->failwhy, sizeof(c->failwhy), "%s", why);
		return;
	}
	m->st = ICM_EST;
	if (!m->nortu && m->rtu_delay > 0)
		m->rtu_at = now_ms() + m->rtu_delay;
	else if (!m->nortu)
		send_rtu(c);
	c->st = CS_EST;
	conn_take_answer(c, 1, r.pdata, CM_REP_PDATA);
}

static void on_rej(struct conn *c, const uint8_t *mad)
{
	struct icm *m = &c->icm;
	struct cm_rej_fields r;

	cm_rej_parse(mad, &r);
	vlog("c%d: REJ of %s, reason %u (%s), private data opcode 0x%02x", c->idx,
	     r.msg_rejected == 0 ? "REQ" : r.msg_rejected == 1 ? "REP" : "other",
	     r.reason, cm_rej_reason_name(r.reason), r.pdata[0]);
	m->rej_reason = r.reason;
	if (m->st == ICM_REQ_SENT) {
		m->st = ICM_DONE;
		c->st = CS_REJ;
		c->have_rej = 1;
		c->rej_status = r.reason;
		conn_take_answer(c, 0, r.pdata, CM_REJ_PDATA);
		return;
	}
	/* a REJ after the REP (our RTU never came): the connection is gone */
	went_down(c);
}

static void on_dreq(struct conn *c)
{
	struct icm *m = &c->icm;
	uint8_t rep[CM_MAD_SIZE];

	m->ndreq_rcvd++;
	/* a DREP for every DREQ, repeated ones too (their DREP was lost) */
	cm_drep_build(rep, m->tid, m->lcid, m->rcid);
	conn_send_mad(c, rep);
	if (m->st == ICM_EST || m->st == ICM_DREQ_SENT)
		went_down(c);
}

static void on_mad(struct icm_dev *d, const uint8_t *mad, const ib_mad_addr_t *from)
{
	uint16_t attr = cm_mad_attr(mad);
	uint32_t local, remote;
	struct conn *c = NULL;
	char g[64];
	int i;

	if (mad[1] != CM_MGMT_CLASS)
		return;
	cm_comm_ids(mad, &local, &remote);
	for (i = 0; i < MAXCONN; i++)
		if (g_conns[i].st != CS_FREE && g_conns[i].icm.on &&
		    g_conns[i].icm.lcid == remote && g_conns[i].icm.st != ICM_IDLE) {
			c = &g_conns[i];
			break;
		}
	gid_str(from->gid, g, sizeof(g));
	vlog("ibcm: %s: %s from %s, comm IDs 0x%08x -> 0x%08x%s", d->name, cm_attr_name(attr),
	     g, local, remote, c ? "" : " (no connection)");
	if (!c) {
		/* a DREQ for a connection we forgot: answer it so the target can move on */
		if (attr == CM_ATTR_DREQ) {
			uint8_t rep[CM_MAD_SIZE];

			cm_drep_build(rep, 0, remote, local);
			send_mad(d, from->gid_index, from->gid, rep);
		}
		return;
	}
	switch (attr) {
	case CM_ATTR_REP:
		on_rep(c, mad);
		break;
	case CM_ATTR_REJ:
		on_rej(c, mad);
		break;
	case CM_ATTR_MRA:
		/* the target needs more time: wait another round */
		if (c->icm.st == ICM_REQ_SENT)
			c->icm.next_ms = now_ms() + 4 * c->icm.tmo_ms;
		break;
	case CM_ATTR_DREQ:
		on_dreq(c);
		break;
	case CM_ATTR_DREP:
		c->icm.ndrep_rcvd++;
		if (c->icm.st == ICM_DREQ_SENT)
			went_down(c);
		break;
	default:
		break;
	}
}

/* timeouts: resend a REQ or DREQ, or give up */
static void timers(void)
{
	uint64_t now = now_ms();
	int i;

	for (i = 0; i < MAXCONN; i++) {
		struct conn *c = &g_conns[i];
		struct icm *m = &c->icm;

		/* rtu_delay: the RTU held back since the REP, unless it ended */
		if (c->st != CS_FREE && m->on && m->rtu_at && now >= m->rtu_at) {
			m->rtu_at = 0;
			if (m->st == ICM_EST) {
				vlog("c%d: RTU sent (%d ms after the REP)", c->idx, m->rtu_delay);
				send_rtu(c);
			}
		}
		if (c->st == CS_FREE || !m->on ||
		    (m->st != ICM_REQ_SENT && m->st != ICM_DREQ_SENT) || now < m->next_ms)
			continue;
		if (m->tries < m->max_tries) {
			vlog("c%d: no answer to %s, sending it again", c->idx,
			     cm_attr_name(cm_mad_attr(m->mad)));
			arm(c);
			continue;
		}
		if (m->st == ICM_REQ_SENT) {
			uint8_t rej[CM_MAD_SIZE];

			cm_rej_build(rej, m->tid, m->lcid, 0, 0, CM_REJ_TIMEOUT);
			conn_send_mad(c, rej);
			m->st = ICM_DONE;
			c->st = CS_FAIL;
			snprintf(c->failwhy, sizeof(c->failwhy), "no REP or REJ after %d REQs",
				 m->tries);
		} else {
			/* no DREP: the connection is down all the same */
			went_down(c);
		}
	}
}

int ibcm_pollfds(struct pollfd *pfd, int max)
{
	int i, n = 0;

	for (i = 0; i < ndevs && n < max; i++)
		if (devs[i].fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = devs[i].fd, .events = POLLIN };
	return n;
}

/* ibcm_pump - take the CM MADs that arrived, then the timers */
void ibcm_pump(void)
{
	uint8_t buf[sizeof(struct ib_user_mad) + CM_MAD_SIZE] __attribute__((aligned(8)));
	int i;

	for (i = 0; i < ndevs; i++) {
		struct icm_dev *d = &devs[i];

		while (d->fd >= 0) {
			int len = CM_MAD_SIZE;

			if (umad_recv(d->fd, buf, &len, 0) < 0)
				break;
			if (umad_status(buf) || len < CM_MAD_HDR + 8)
				continue;       /* a send that timed out: none are timed */
			if (len < CM_MAD_SIZE)
				memset((uint8_t *)umad_get_mad(buf) + len, 0, CM_MAD_SIZE - len);
			on_mad(d, umad_get_mad(buf), umad_get_mad_addr(buf));
		}
	}
	timers();
}

/*
 * ibcm_disconnect - DREQ: our QP to the error state (as librdmacm's
 * rdma_disconnect() does) and the DREQ, resent until a DREP or DREQ comes.
 */
void ibcm_disconnect(struct conn *c)
{
	struct icm *m = &c->icm;
	struct ibv_qp_attr a;

	if (m->st != ICM_EST || c->disc)
		return;
	if (c->qp) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_ERR;
		ibv_modify_qp(c->qp, &a, IBV_QP_STATE);
	}
	m->tid = next_tid++;
	cm_dreq_build(m->mad, m->tid, m->lcid, m->rcid, m->rqpn);
	m->tries = 0;
	m->max_tries = 4;
	m->tmo_ms = 1000;
	m->st = ICM_DREQ_SENT;
	arm(c);
}

/*
 * ibcm_destroy - the QP, after a DREQ when still connected; its DREP is
 * awaited for a moment, so that the target's channel goes at once.
 */
void ibcm_destroy(struct conn *c)
{
	uint64_t end = now_ms() + 300;

	ibcm_disconnect(c);
	while (c->icm.st == ICM_DREQ_SENT && now_ms() < end)
		pump(1);
	if (c->qp) {
		ibv_destroy_qp(c->qp);
		c->qp = NULL;
	}
}
