// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - RDMA/CM connections of srp-hostile: address/route resolution,
 * QP and buffer setup, SRP login as CM private data, receive/send handling.
 *
 * Everything is single-threaded: pump() polls the CM event channel and the
 * completion queues of all connections, and updates connection state.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "hostile.h"
#include "ibcm.h"

struct conn g_conns[MAXCONN];
struct rdma_event_channel *g_ec;
int g_verbose;
enum transport g_transport = TR_RDMACM;

#define WR_RECV 1ULL
#define WR_SEND 2ULL
#define WRID(kind, idx) (((uint64_t)(kind) << 32) | (uint32_t)(idx))

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void put_be16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
void put_be32(uint8_t *p, uint32_t v) { put_be16(p, v >> 16); put_be16(p + 2, v); }
void put_be64(uint8_t *p, uint64_t v) { put_be32(p, v >> 32); put_be32(p + 4, v); }
uint16_t get_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
uint32_t get_be32(const uint8_t *p) { return (uint32_t)get_be16(p) << 16 | get_be16(p + 2); }
uint64_t get_be64(const uint8_t *p) { return (uint64_t)get_be32(p) << 32 | get_be32(p + 4); }

void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!g_verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "  [%llu] ", (unsigned long long)(now_ms() % 1000000));
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static const struct { const char *name; uint32_t v; } rej_names[] = {
	{ "unable_establish", SRPW_REJ_UNABLE_ESTABLISH },
	{ "insufficient",     SRPW_REJ_INSUFFICIENT_RES },
	{ "iu_too_large",     SRPW_REJ_IU_TOO_LARGE },
	{ "unable_associate", SRPW_REJ_UNABLE_ASSOCIATE },
	{ "unsupported_fmt",  SRPW_REJ_UNSUPPORTED_FMT },
	{ "multi_unsupported", SRPW_REJ_MULTI_UNSUPPORTED },
	{ "channel_limit",    SRPW_REJ_CHANNEL_LIMIT },
};

const char *rej_name(uint32_t r)
{
	static char buf[32];
	size_t i;

	for (i = 0; i < sizeof(rej_names) / sizeof(rej_names[0]); i++)
		if (rej_names[i].v == r)
			return rej_names[i].name;
	snprintf(buf, sizeof(buf), "0x%08x", r);
	return buf;
}

int rej_parse(const char *s, uint32_t *r)
{
	size_t i;
	char *end;

	for (i = 0; i < sizeof(rej_names) / sizeof(rej_names[0]); i++)
		if (!strcmp(rej_names[i].name, s)) {
			*r = rej_names[i].v;
			return 0;
		}
	*r = strtoul(s, &end, 0);
	return (*end || end == s) ? -1 : 0;
}

void data_fill(uint8_t *p, size_t n, uint32_t seed, uint64_t lba)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t blk = lba + i / 512;
		uint32_t x = (uint32_t)(blk * 2654435761u) ^ (seed * 40503u) ^
			     (uint32_t)((i % 512) / 4 * 97);

		x ^= x >> 13;
		x *= 0x5bd1e995;
		x ^= x >> 15;
		p[i] = (uint8_t)(x >> ((i & 3) * 8));
	}
}

int cm_init(void)
{
	int fl;

	/* IB/CM needs no rdma_ucm (the initiator guest has none loaded) */
	if (g_transport == TR_IBCM)
		return ibcm_init();
	g_ec = rdma_create_event_channel();
	if (!g_ec) {
		perror("rdma_create_event_channel");
		return -1;
	}
	fl = fcntl(g_ec->fd, F_GETFL);
	fcntl(g_ec->fd, F_SETFL, fl | O_NONBLOCK);
	return 0;
}

void login_defaults(struct login_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->login.tag = 0x1234;
	o->login.buf_fmt = SRPW_BUF_DIRECT | SRPW_BUF_INDIRECT;
	o->login.flags = SRPW_MULTICHAN_SINGLE;
	o->login.opcode = SRPW_LOGIN_REQ;
	o->login.iu_len = 8260;
	/* IB/CM carries the 64-byte SRP_LOGIN_REQ, RDMA/CM its 56-byte form */
	o->pdlen = g_transport == TR_IBCM ? 64 : (int)sizeof(struct srpw_login_req_rdma);
	o->cm_tmo = 18;
	o->cm_retries = 5;
	o->rnr_retry = 7;
	o->retry = 7;
	o->resp_res = -1;
	o->init_depth = -1;
	o->nrecv = 256;
	o->rsz = 2048;
	o->nslot = 128;
	o->ssz = 16384;
	o->dsz = 1 << 20;
	o->repost = 1;
	o->auto_cred = 1;
	o->port = 5555;
}

struct conn *conn_alloc(void)
{
	int i;

	for (i = 0; i < MAXCONN; i++)
		if (g_conns[i].st == CS_FREE) {
			memset(&g_conns[i], 0, sizeof(g_conns[i]));
			g_conns[i].idx = i;
			g_conns[i].st = CS_RESOLVING;
			return &g_conns[i];
		}
	return NULL;
}

void (*g_ev_hook)(const struct conn *c, enum ev_type t, const uint8_t *data, int len);

/*
 * Number of the current pump() call. Events of different connections that
 * one call finds cannot be ordered (each connection has its own completion
 * queue); those of a later call arrived later.
 */
unsigned long g_pump_pass;

void ev_push(struct conn *c, enum ev_type t, const uint8_t *data, int len)
{
	struct ev *e = calloc(1, sizeof(*e)), **pp;

	if (!e)
		abort();
	if (g_ev_hook)
		g_ev_hook(c, t, data, len);
	e->type = t;
	e->pass = g_pump_pass;
	if (len > 0) {
		e->data = malloc(len);
		if (!e->data)
			abort();
		memcpy(e->data, data, len);
	}
	e->len = len;
	for (pp = &c->evq; *pp; pp = &(*pp)->next)
		;
	*pp = e;
}

void ev_free(struct ev *e)
{
	if (e) {
		free(e->data);
		free(e);
	}
}

struct ev *conn_take(struct conn *c, int (*match)(const struct ev *, void *), void *arg)
{
	struct ev **pp, *e;

	for (pp = &c->evq; *pp; pp = &(*pp)->next)
		if (match(*pp, arg)) {
			e = *pp;
			*pp = e->next;
			e->next = NULL;
			return e;
		}
	return NULL;
}

void tag_add(struct conn *c, uint64_t tag)
{
	if (c->notags < MAXTAGS)
		c->otags[c->notags++] = tag;
}

int tag_del(struct conn *c, uint64_t tag)
{
	int i;

	for (i = 0; i < c->notags; i++)
		if (c->otags[i] == tag) {
			c->otags[i] = c->otags[--c->notags];
			return 1;
		}
	return 0;
}

static void mark_dead(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mark_dead(struct conn *c, const char *fmt, ...)
{
	va_list ap;

	if (c->dead)
		return;
	c->dead = 1;
	va_start(ap, fmt);
	vsnprintf(c->deadwhy, sizeof(c->deadwhy), fmt, ap);
	va_end(ap);
	vlog("c%d: dead: %s", c->idx, c->deadwhy);
	ev_push(c, EV_DEAD, NULL, 0);
}

static int post_recv(struct conn *c, int i)
{
	int ret = srp_cm_post_recv(c->qp, WRID(WR_RECV, i), c->rbuf + (size_t)i * c->rsz,
				   c->rsz, c->rmr->lkey);

	if (!ret)
		c->posted_recvs++;
	return ret;
}

/* post a send without waiting; -1 when no slot is free */
static int send_nb(struct conn *c, const void *buf, int len)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	int slot, ret;

	if (!c->qp || c->nsfree == 0 || len > c->ssz || len < 0)
		return -1;
	slot = c->sfree[--c->nsfree];
	memcpy(c->sbuf + (size_t)slot * c->ssz, buf, len);
	memset(&sge, 0, sizeof(sge));
	sge.addr = (uintptr_t)(c->sbuf + (size_t)slot * c->ssz);
	sge.length = len;
	sge.lkey = c->smr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WRID(WR_SEND, slot);
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret) {
		c->sfree[c->nsfree++] = slot;
		errno = ret;
		return -2;
	}
	c->nsent++;
	return 0;
}

int conn_send(struct conn *c, const void *buf, int len, int tmo_ms, char *err, size_t errlen)
{
	uint64_t end = now_ms() + tmo_ms;
	int ret;

	if (len > c->ssz) {
		snprintf(err, errlen, "IU of %d bytes exceeds send slot size %d", len, c->ssz);
		return -1;
	}
	for (;;) {
		if (!c->qp || (c->st != CS_EST &&
				!(c->st == CS_RTU_WAIT && c->early_rts))) {
			snprintf(err, errlen, "c%d not connected", c->idx);
			return -1;
		}
		if (c->dead) {
			snprintf(err, errlen, "c%d dead: %s", c->idx, c->deadwhy);
			return -1;
		}
		ret = send_nb(c, buf, len);
		if (ret == 0)
			return 0;
		if (ret == -2) {
			snprintf(err, errlen, "ibv_post_send: %s", strerror(errno));
			return -1;
		}
		if (now_ms() >= end) {
			snprintf(err, errlen, "timeout: no send slot free after %d ms (target not accepting IUs)", tmo_ms);
			return -1;
		}
		pump(1);
	}
}

static void handle_iu(struct conn *c, const uint8_t *p, int len)
{
	uint8_t op = len > 0 ? p[0] : 0xff;

	if (len >= 16 && op == SRPW_RSP) {
		c->req_lim += (int32_t)get_be32(p + 4);
		tag_del(c, get_be64(p + 8));
		c->nrsp++;
		vlog("c%d: SRP_RSP tag=0x%llx status=0x%02x flags=0x%02x delta=%u", c->idx,
		     (unsigned long long)get_be64(p + 8), len >= 20 ? p[19] : 0,
		     len >= 19 ? p[18] : 0, get_be32(p + 4));
	} else if (len >= 16 && (op == SRPW_CRED_REQ || op == SRPW_AER_REQ)) {
		uint8_t r[16];

		c->req_lim += (int32_t)get_be32(p + 4);
		c->ncred++;
		vlog("c%d: %s delta=%u", c->idx, op == SRPW_CRED_REQ ? "SRP_CRED_REQ" : "SRP_AER_REQ",
		     get_be32(p + 4));
		if (c->auto_cred) {
			memset(r, 0, sizeof(r));
			r[0] = op == SRPW_CRED_REQ ? SRPW_CRED_RSP : SRPW_AER_RSP;
			memcpy(r + 8, p + 8, 8);
			if (send_nb(c, r, sizeof(r)))
				vlog("c%d: could not answer credit request", c->idx);
		}
	} else {
		c->nother++;
		vlog("c%d: IU opcode 0x%02x len %d", c->idx, op, len);
	}
	ev_push(c, EV_IU, p, len);
}

static void poll_conn(struct conn *c)
{
	struct ibv_wc wc[32];
	int n, i;

	while (c->cq && (n = ibv_poll_cq(c->cq, 32, wc)) > 0) {
		for (i = 0; i < n; i++) {
			uint64_t kind = wc[i].wr_id >> 32;
			int idx = (int)(wc[i].wr_id & 0xffffffff);

			if (kind == WR_SEND)
				c->sfree[c->nsfree++] = idx;
			else
				c->posted_recvs--;
			if (wc[i].status != IBV_WC_SUCCESS) {
				mark_dead(c, "%s completion error: %s (vendor 0x%x)",
					  kind == WR_SEND ? "send" : "recv",
					  ibv_wc_status_str(wc[i].status), wc[i].vendor_err);
				continue;
			}
			if (kind == WR_RECV) {
				handle_iu(c, c->rbuf + (size_t)idx * c->rsz, (int)wc[i].byte_len);
				if (c->repost && !c->dead && post_recv(c, idx))
					mark_dead(c, "re-posting a receive failed");
			}
		}
	}
}

/*
 * conn_take_answer - the SRP answer to a login in the private data PD (LEN
 * bytes) of the CM message that ended it: REP / ESTABLISHED (ESTABLISHED
 * set) with an SRP_LOGIN_RSP, or REJ with an SRP_LOGIN_REJ.
 */
void conn_take_answer(struct conn *c, int established, const uint8_t *pd, int len)
{
	struct rdma_cm_event e;
	struct srp_login_answer a;
	enum srp_login_kind kind;

	memset(&e, 0, sizeof(e));
	e.event = established ? RDMA_CM_EVENT_ESTABLISHED : RDMA_CM_EVENT_REJECTED;
	e.param.conn.private_data = pd;
	e.param.conn.private_data_len = pd ? len : 0;
	kind = srp_login_answer(&e, &a);

	if (kind == SRP_LOGIN_REJECTED) {
		c->have_rej_iu = 1;
		c->rej_reason = a.reason;
	} else if (kind == SRP_LOGIN_ACCEPTED) {
		c->have_lrsp = 1;
		c->lrsp_req_lim = a.req_lim;
		c->req_lim = c->lrsp_req_lim;
		c->max_it = a.max_it;
		c->max_ti = a.max_ti;
		c->lbuf_fmt = a.buf_fmt;
		c->lflags = a.flags;
	} else if (established) {
		snprintf(c->failwhy, sizeof(c->failwhy),
			 "%s without SRP_LOGIN_RSP (private data len %d, opcode 0x%02x)",
			 c->icm.on ? "REP" : "ESTABLISHED", len, len ? pd[0] : 0);
	}
}

/* the answer to the login: SRP_LOGIN_RSP (ESTABLISHED) or SRP_LOGIN_REJ */
static void take_login_answer(struct conn *c, const struct rdma_cm_event *e)
{
	const uint8_t *pd = e->param.conn.private_data;

	conn_take_answer(c, e->event == RDMA_CM_EVENT_ESTABLISHED, pd,
			 pd ? e->param.conn.private_data_len : 0);
}

static void qp_ready(struct conn *c);

static void handle_cm(struct rdma_cm_event *e)
{
	struct conn *c = e->id->context;

	if (!c)
		return;
	vlog("c%d: CM %s status %d", c->idx, rdma_event_str(e->event), e->status);
	switch (e->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(c->id, 2000)) {
			c->st = CS_FAIL;
			snprintf(c->failwhy, sizeof(c->failwhy), "rdma_resolve_route: %s", strerror(errno));
		}
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		c->st = CS_ROUTED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (c->st == CS_EST) {
			c->disc = 1;
			c->st = CS_DISC;
			ev_push(c, EV_DISC, NULL, 0);
		} else {
			c->st = CS_FAIL;
		}
		snprintf(c->failwhy, sizeof(c->failwhy), "%s (status %d)",
			 rdma_event_str(e->event), e->status);
		break;
	case RDMA_CM_EVENT_REJECTED:
		c->cm_rej++;
		c->st = CS_REJ;
		c->have_rej = 1;
		c->rej_status = e->status;
		take_login_answer(c, e);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->cm_est++;
		c->st = CS_EST;
		take_login_answer(c, e);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		/* the REP to a login whose QP is ours (rtu_delay): no RTU yet */
		if (c->st != CS_CONNECTING)
			break;
		c->st = CS_RTU_WAIT;
		c->rtu_at = now_ms() + c->rtu_delay;
		conn_take_answer(c, 1, e->param.conn.private_data,
				 e->param.conn.private_data ? e->param.conn.private_data_len : 0);
		if (c->early_rts)
			qp_ready(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		c->cm_disc++;
		c->disc = 1;
		if (c->st == CS_EST) {
			c->st = CS_DISC;
			ev_push(c, EV_DISC, NULL, 0);
		} else if (c->st == CS_RTU_WAIT) {
			c->st = CS_DISC;
		}
		break;
	default:
		break;
	}
}

/* qp_to: move C's own QP to STATE with the attributes RDMA/CM gives */
static int qp_to(struct conn *c, enum ibv_qp_state state)
{
	struct ibv_qp_attr a;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	if (rdma_init_qp_attr(c->id, &a, &mask))
		return errno ? errno : EINVAL;
	ret = ibv_modify_qp(c->qp, &a, mask);
	return ret;
}

/*
 * qp_moves - our QP to INIT again (the access flags the CM now knows: remote
 * write, and remote read when we grant responder resources, as librdmacm
 * does with its own QPs), RTR and RTS; *WHAT names the step that failed
 */
static int qp_moves(struct conn *c, const char **what)
{
	int ret;

	*what = "INIT";
	ret = qp_to(c, IBV_QPS_INIT);
	if (!ret) {
		*what = "RTR";
		ret = qp_to(c, IBV_QPS_RTR);
	}
	if (!ret) {
		*what = "RTS";
		ret = qp_to(c, IBV_QPS_RTS);
	}
	return ret;
}

/*
 * qp_ready - early_rts: our QP to RTS as soon as the REP is in, so that IUs
 * can be sent while the RTU is still held back (the target's channel is
 * then still connecting)
 */
/* rtu_fail - the QP moves or the RTU of an rtu_delay login failed */
static void rtu_fail(struct conn *c, const char *step, const char *what, int ret)
{
	c->st = CS_FAIL;
	snprintf(c->failwhy, sizeof(c->failwhy), "%s: %s: %s", step, what,
		 strerror(ret));
	vlog("c%d: %s", c->idx, c->failwhy);
}

static void qp_ready(struct conn *c)
{
	const char *what;
	int ret = qp_moves(c, &what);

	if (ret) {
		rtu_fail(c, "early RTS", what, ret);
		return;
	}
	vlog("c%d: QP ready at the REP, RTU in %d ms", c->idx, c->rtu_delay);
}

/*
 * send_rtu - the delayed end of an rtu_delay login: the QP moves (already
 * done at the REP with early_rts), then rdma_establish() sends the RTU; the
 * connection is up.
 */
static void send_rtu(struct conn *c)
{
	const char *what = "RTS";
	int ret = c->early_rts ? 0 : qp_moves(c, &what);

	if (!ret) {
		what = "rdma_establish";
		ret = rdma_establish(c->id) ? (errno ? errno : EINVAL) : 0;
	}
	if (ret) {
		rtu_fail(c, "delayed RTU", what, ret);
		return;
	}
	c->cm_est++;
	c->st = CS_EST;
	vlog("c%d: RTU sent (%d ms after the REP)", c->idx, c->rtu_delay);
}

void pump(int ms)
{
	struct pollfd pfd[17];
	struct rdma_cm_event *e;
	int i, n = 0;

	g_pump_pass++;
	for (i = 0; i < MAXCONN; i++)
		if (g_conns[i].st != CS_FREE)
			poll_conn(&g_conns[i]);
	if (g_ec)
		pfd[n++] = (struct pollfd){ .fd = g_ec->fd, .events = POLLIN };
	n += ibcm_pollfds(pfd + n, 16);
	if (ms > 0)
		poll(pfd, n, ms);
	while (g_ec && rdma_get_cm_event(g_ec, &e) == 0) {
		handle_cm(e);
		rdma_ack_cm_event(e);
	}
	ibcm_pump();
	for (i = 0; i < MAXCONN; i++) {
		if (g_conns[i].st == CS_RTU_WAIT && now_ms() >= g_conns[i].rtu_at)
			send_rtu(&g_conns[i]);
		if (g_conns[i].st != CS_FREE)
			poll_conn(&g_conns[i]);
	}
}

static void *xalign(size_t n)
{
	void *p = NULL;

	if (n == 0)
		n = 64;
	if (posix_memalign(&p, 4096, n))
		return NULL;
	memset(p, 0, n);
	return p;
}

/* conn_fail: the connection failed to start; ERR says why. Returns -1. */
static int conn_fail(struct conn *c, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int conn_fail(struct conn *c, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	c->st = CS_FAIL;
	return -1;
}

static void conn_set_sizes(struct conn *c, const struct login_opts *o)
{
	c->nrecv = o->nrecv;
	c->rsz = o->rsz;
	c->nslot = o->nslot < 1 ? 1 : o->nslot;
	c->ssz = o->ssz;
	c->dsz = o->dsz;
	c->repost = o->repost;
	c->auto_cred = o->auto_cred;
	c->imm_off = o->login.imm_off;
	c->next_tag = 0x1000ULL * (c->idx + 1);
	c->rtu_delay = o->rtu_delay;
	c->early_rts = o->early_rts;
}

/* create the CM ID and resolve the address and route (pump() moves on) */
static int conn_resolve(struct conn *c, const struct login_opts *o, char *err, size_t errlen)
{
	struct sockaddr_storage dst, src;
	uint64_t end;

	if (rdma_create_id(g_ec, &c->id, c, RDMA_PS_TCP))
		return conn_fail(c, err, errlen, "rdma_create_id: %s", strerror(errno));
	if (srp_cm_addr(o->dst, o->port, &dst))
		return conn_fail(c, err, errlen, "bad destination address '%s'", o->dst);
	if (o->src[0] && srp_cm_addr(o->src, 0, &src))
		return conn_fail(c, err, errlen, "bad source address '%s'", o->src);
	c->st = CS_RESOLVING;
	if (rdma_resolve_addr(c->id, o->src[0] ? (struct sockaddr *)&src : NULL,
			      (struct sockaddr *)&dst, 2000))
		return conn_fail(c, err, errlen, "rdma_resolve_addr: %s", strerror(errno));
	end = now_ms() + 6000;
	while (c->st == CS_RESOLVING && now_ms() < end)
		pump(1);
	if (c->st != CS_ROUTED)
		return conn_fail(c, err, errlen, "address/route resolution failed: %s",
				 c->failwhy[0] ? c->failwhy : "timeout");
	return 0;
}

/*
 * conn_new_rc_qp - PD, CQ and an RC QP of C on device CTX, sized for C's
 * receive ring and send slots, not attached to any CM ID. -1 with ERR set
 * when one of them cannot be made.
 */
int conn_new_rc_qp(struct conn *c, struct ibv_context *ctx, char *err, size_t errlen)
{
	struct ibv_qp_init_attr qa;

	c->pd = ibv_alloc_pd(ctx);
	c->cq = c->pd ? ibv_create_cq(ctx, c->nrecv + c->nslot + 16, NULL, NULL, 0) : NULL;
	if (!c->cq) {
		snprintf(err, errlen, "PD/CQ allocation failed: %s", strerror(errno));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.cap.max_send_wr = c->nslot + 4;
	qa.cap.max_recv_wr = (c->nrecv > 0 ? c->nrecv : 1) + 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	c->qp = ibv_create_qp(c->pd, &qa);
	if (!c->qp) {
		snprintf(err, errlen, "ibv_create_qp: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * conn_create_own_qp - for rtu_delay: PD, CQ and an RC QP of our own, not
 * attached to the CM ID (its number goes in the connect parameters), so
 * that the REP comes as CONNECT_RESPONSE and the RTU waits for
 * rdma_establish(). The QP is moved to INIT here for the receives.
 */
static int conn_create_own_qp(struct conn *c, char *err, size_t errlen)
{
	int ret;

	if (conn_new_rc_qp(c, c->id->verbs, err, errlen)) {
		c->st = CS_FAIL;
		return -1;
	}
	c->own_qp = 1;
	ret = qp_to(c, IBV_QPS_INIT);
	if (ret)
		return conn_fail(c, err, errlen, "own QP to INIT: %s", strerror(ret));
	return 0;
}

static int conn_create_qp(struct conn *c, char *err, size_t errlen)
{
	int rc;

	if (c->rtu_delay > 0)
		return conn_create_own_qp(c, err, errlen);
	rc = srp_cm_create_qp(c->id, c->nrecv + c->nslot + 16, c->nslot + 4,
				  (c->nrecv > 0 ? c->nrecv : 1) + 4, &c->pd, &c->cq);

	if (rc == SRP_CM_ERR_PD_CQ)
		return conn_fail(c, err, errlen, "PD/CQ allocation failed: %s", strerror(errno));
	if (rc)
		return conn_fail(c, err, errlen, "rdma_create_qp: %s", strerror(errno));
	c->qp = c->id->qp;
	return 0;
}

/* receive, send and data buffers, their MRs, and the posted receives */
int conn_setup_buffers(struct conn *c, char *err, size_t errlen)
{
	size_t rlen = (size_t)(c->nrecv > 0 ? c->nrecv : 1) * c->rsz;
	int i;

	c->rbuf = xalign(rlen);
	c->sbuf = xalign((size_t)c->nslot * c->ssz);
	c->dbuf = xalign(c->dsz);
	c->sfree = calloc(c->nslot, sizeof(int));
	if (!c->rbuf || !c->sbuf || !c->dbuf || !c->sfree)
		return conn_fail(c, err, errlen, "out of memory");
	for (i = 0; i < c->nslot; i++)
		c->sfree[c->nsfree++] = i;
	c->rmr = ibv_reg_mr(c->pd, c->rbuf, rlen, IBV_ACCESS_LOCAL_WRITE);
	c->smr = ibv_reg_mr(c->pd, c->sbuf, (size_t)c->nslot * c->ssz, 0);
	c->dmr = ibv_reg_mr(c->pd, c->dbuf, c->dsz, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!c->rmr || !c->smr || !c->dmr)
		return conn_fail(c, err, errlen, "ibv_reg_mr: %s", strerror(errno));
	for (i = 0; i < c->nrecv; i++)
		if (post_recv(c, i))
			return conn_fail(c, err, errlen, "ibv_post_recv failed");
	return 0;
}

/* the SRP login request as CM private data, with the case's byte pokes */
static void conn_login_pdata(struct conn *c, const struct login_opts *o)
{
	int i;

	memset(c->pdata, 0, sizeof(c->pdata));
	if (c->icm.on)
		srp_login_req_pack_ib(c->pdata, &o->login);
	else
		srp_login_req_pack((struct srpw_login_req_rdma *)c->pdata, &o->login);
	for (i = 0; i < o->npoke; i++)
		if (o->poke_off[i] >= 0 && o->poke_off[i] < (int)sizeof(c->pdata))
			c->pdata[o->poke_off[i]] = o->poke_val[i];
	c->pdlen = o->pdlen;
}

/* RDMA read depths: the case's, else what the device allows (at most 16) */
static void conn_set_param(struct conn *c, const struct login_opts *o)
{
	struct ibv_device_attr da;

	if (ibv_query_device(conn_verbs(c), &da))
		memset(&da, 0, sizeof(da));
	memset(&c->cp, 0, sizeof(c->cp));
	c->cp.private_data = c->pdlen > 0 ? c->pdata : NULL;
	c->cp.private_data_len = c->pdlen;
	c->cp.responder_resources = o->resp_res >= 0 ? o->resp_res :
				    (da.max_qp_rd_atom > 16 ? 16 : da.max_qp_rd_atom);
	c->cp.initiator_depth = o->init_depth >= 0 ? o->init_depth :
				(da.max_qp_init_rd_atom > 16 ? 16 : da.max_qp_init_rd_atom);
	c->cp.retry_count = o->retry;
	c->cp.rnr_retry_count = o->rnr_retry;
	if (c->own_qp)
		c->cp.qp_num = c->qp->qp_num;
}

/*
 * conn_start: resolve, set up the QP and buffers and send the login; the
 * answer comes through pump() (conn_wait_login()).
 */
int conn_start(struct conn *c, const struct login_opts *o, char *err, size_t errlen)
{
	conn_set_sizes(c, o);
	if (g_transport == TR_IBCM) {
		/* device, PD, CQ and a QP in INIT; REQ; the REP moves it on */
		if (ibcm_prepare(c, o, err, errlen)) {
			c->st = CS_FAIL;
			return -1;
		}
		if (conn_setup_buffers(c, err, errlen))
			return -1;
		conn_login_pdata(c, o);
		conn_set_param(c, o);
		c->st = CS_CONNECTING;
		if (ibcm_connect(c, o, err, errlen)) {
			c->st = CS_FAIL;
			return -1;
		}
		return 0;
	}
	if (conn_resolve(c, o, err, errlen) || conn_create_qp(c, err, errlen) ||
	    conn_setup_buffers(c, err, errlen))
		return -1;
	conn_login_pdata(c, o);
	conn_set_param(c, o);
	c->st = CS_CONNECTING;
	if (rdma_connect(c->id, &c->cp))
		return conn_fail(c, err, errlen, "rdma_connect: %s", strerror(errno));
	return 0;
}

/*
 * conn_fake: a connection that only pretends to be logged in (srp-hostile
 * -D): sizes and the immediate data offset of O, no device, no buffers (IUs
 * are built against a data buffer at address 0 with rkey 0), CREDITS
 * credits, max_it_iu_len MAX_IT. conn_destroy() frees it as any other.
 */
void conn_fake(struct conn *c, const struct login_opts *o, int credits, uint32_t max_it)
{
	conn_set_sizes(c, o);
	c->st = CS_EST;
	c->have_lrsp = 1;
	c->lrsp_req_lim = (uint32_t)credits;
	c->req_lim = credits;
	c->max_it = max_it;
	c->max_ti = max_it;
	c->lbuf_fmt = SRPW_BUF_DIRECT | SRPW_BUF_INDIRECT;
	c->cm_est = 1;
}

int conn_wait_login(struct conn *c, int tmo_ms)
{
	uint64_t end = now_ms() + tmo_ms;

	while (c->st == CS_CONNECTING && now_ms() < end)
		pump(1);
	if (c->st == CS_CONNECTING)
		snprintf(c->failwhy, sizeof(c->failwhy), "no login answer within %d ms", tmo_ms);
	return c->st;
}

/* conn_alive - established and not down (a held-back RTU: not yet) */
int conn_alive(const struct conn *c)
{
	return c->st == CS_EST && !c->dead && !c->disc;
}

/* conn_verbs - the device context of the connection's QP */
struct ibv_context *conn_verbs(const struct conn *c)
{
	return c->icm.on ? ibcm_verbs(c) : c->id->verbs;
}

void conn_disconnect(struct conn *c)
{
	if (c->icm.on) {
		ibcm_disconnect(c);
		return;
	}
	if (c->id && c->st == CS_EST && !c->disc)
		rdma_disconnect(c->id);
}

void conn_kill(struct conn *c)
{
	struct ibv_qp_attr a;

	if (c->qp) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_ERR;
		ibv_modify_qp(c->qp, &a, IBV_QP_STATE);
	}
	if (c->dmr) {
		ibv_dereg_mr(c->dmr);
		c->dmr = NULL;
	}
}

void conn_destroy(struct conn *c)
{
	struct ev *e;

	if (c->st == CS_FREE)
		return;
	if (c->icm.on)
		ibcm_destroy(c);        /* DREQ if connected, QP */
	if (c->id) {
		if (c->st == CS_EST && !c->disc)
			rdma_disconnect(c->id);
		if (c->qp && c->own_qp)
			ibv_destroy_qp(c->qp);
		else if (c->qp)
			rdma_destroy_qp(c->id);
	}
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	if (c->smr)
		ibv_dereg_mr(c->smr);
	if (c->dmr)
		ibv_dereg_mr(c->dmr);
	srp_cm_release(c->id, c->cq, c->pd);
	free(c->rbuf);
	free(c->sbuf);
	free(c->dbuf);
	free(c->sfree);
	while ((e = c->evq)) {
		c->evq = e->next;
		ev_free(e);
	}
	memset(c, 0, sizeof(*c));
	c->st = CS_FREE;
}

void conn_destroy_all(void)
{
	int i;

	for (i = 0; i < MAXCONN; i++)
		conn_destroy(&g_conns[i]);
}
