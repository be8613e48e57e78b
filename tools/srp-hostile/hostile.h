/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostile.h - shared declarations of srp-hostile, a userspace SRP initiator
 * that sends well-formed and malformed SRP traffic over RDMA/CM.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "srp_cm.h"

/* 256 channels from one address (login-peer-channel-limit) and a few more */
#define MAXCONN   300
#define MAXTAGS   8192

enum ev_type { EV_IU, EV_DISC, EV_DEAD };

struct ev {
	enum ev_type type;
	int len;
	uint8_t *data;
	struct ev *next;
};

enum cstate {
	CS_FREE, CS_RESOLVING, CS_ROUTED, CS_CONNECTING, CS_EST, CS_REJ,
	CS_FAIL, CS_DISC, CS_CLOSED,
};

struct login_opts {
	struct srp_login_fields login;  /* private data fields */
	int      pdlen;         /* private data length actually sent */
	int      npoke;         /* byte overrides of the private data */
	int      poke_off[16];
	uint8_t  poke_val[16];         /* private data length actually sent */
	/* connection parameters */
	int rnr_retry, retry, resp_res, init_depth;
	/* resources */
	int nrecv, rsz, nslot, ssz;
	size_t dsz;
	int repost;
	int auto_cred;
	char src[64], dst[64];
	int port;
};

struct conn {
	int idx;
	enum cstate st;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *rmr, *smr, *dmr;
	uint8_t *rbuf, *sbuf, *dbuf;
	int nrecv, rsz, nslot, ssz;
	size_t dsz;
	int *sfree, nsfree;
	int repost, auto_cred;
	int posted_recvs;
	struct rdma_conn_param cp;
	uint8_t pdata[64];
	int pdlen;

	/* failures */
	int dead;               /* QP error seen */
	char deadwhy[160];
	int disc;               /* CM DISCONNECTED seen */
	char failwhy[160];      /* address/route/connect failure */

	/* login result */
	int have_rej, rej_status, have_rej_iu;
	uint32_t rej_reason;
	int have_lrsp;
	uint32_t max_it, max_ti, lrsp_req_lim;
	uint16_t lbuf_fmt;
	uint8_t lflags;
	uint16_t imm_off;

	int64_t req_lim;
	uint64_t next_tag, last_tag;
	uint64_t otags[MAXTAGS];
	int notags;
	unsigned long nrsp, ncred, nother, nsent;

	struct ev *evq;
};

extern struct conn g_conns[MAXCONN];
extern int g_verbose;
extern struct rdma_event_channel *g_ec;

/* util */
uint64_t now_ms(void);
void put_be16(uint8_t *p, uint16_t v);
void put_be32(uint8_t *p, uint32_t v);
void put_be64(uint8_t *p, uint64_t v);
uint16_t get_be16(const uint8_t *p);
uint32_t get_be32(const uint8_t *p);
uint64_t get_be64(const uint8_t *p);
const char *rej_name(uint32_t r);
int rej_parse(const char *s, uint32_t *r);
void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* conn.c */
int  cm_init(void);
void login_defaults(struct login_opts *o);
struct conn *conn_alloc(void);
int  conn_start(struct conn *c, const struct login_opts *o, char *err, size_t errlen);
int  conn_wait_login(struct conn *c, int tmo_ms);
void pump(int ms);
int  conn_send(struct conn *c, const void *buf, int len, int tmo_ms, char *err, size_t errlen);
void conn_disconnect(struct conn *c);
void conn_kill(struct conn *c);
void conn_destroy(struct conn *c);
void conn_destroy_all(void);
int  conn_alive(const struct conn *c);
struct ev *conn_take(struct conn *c, int (*match)(const struct ev *, void *), void *arg);
void ev_free(struct ev *e);
void tag_add(struct conn *c, uint64_t tag);
int  tag_del(struct conn *c, uint64_t tag);
void data_fill(uint8_t *p, size_t n, uint32_t seed, uint64_t lba);

#endif
