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
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "srp_cm.h"

/* 256 channels from one address (login-peer-channel-limit) and a few more */
#define MAXCONN   300
#define MAXTAGS   8192

enum ev_type { EV_IU, EV_DISC, EV_DEAD };

/* how logins reach the target (-T) */
enum transport { TR_RDMACM, TR_IBCM };

/* IB/CM state of a connection (ibcm_conn.c) */
enum icm_state {
	ICM_IDLE,               /* not sent yet */
	ICM_REQ_SENT,           /* waiting for REP or REJ */
	ICM_EST,                /* REP taken (RTU sent unless nortu) */
	ICM_DREQ_SENT,          /* waiting for DREP */
	ICM_DONE,               /* rejected, disconnected or given up */
};

struct icm {
	int on;                 /* this connection uses IB/CM */
	int dev;                /* index in the device table of ibcm_conn.c */
	int sgid_idx;
	uint8_t sgid[16], dgid[16];
	enum icm_state st;
	uint32_t lcid, rcid;    /* communication IDs: ours, the target's */
	uint32_t rqpn;          /* the target's QP number */
	uint32_t psn;           /* our REQ's starting PSN: we receive from it */
	uint64_t tid;
	uint8_t mad[256];       /* the REQ or DREQ awaiting its answer */
	int tries, max_tries, tmo_ms;
	uint64_t next_ms;
	int nortu;              /* never send the RTU */
	int rtu_delay;          /* ms between the REP and our RTU (0: at once) */
	uint64_t rtu_at;        /* when the held-back RTU goes out (0: none) */
	int nrtu, nrep;         /* RTUs sent, REPs received */
	uint8_t rep_resp_res, rep_init_depth;
	uint16_t rej_reason;    /* CM REJ reason code */
	int ndreq_rcvd;         /* DREQs the target sent */
	int ndrep_rcvd;
};

struct ev {
	enum ev_type type;
	unsigned long pass;     /* g_pump_pass when it arrived */
	int len;
	uint8_t *data;
	struct ev *next;
};

enum cstate {
	CS_FREE, CS_RESOLVING, CS_ROUTED, CS_CONNECTING, CS_EST, CS_REJ,
	CS_FAIL, CS_DISC, CS_CLOSED,
	CS_RTU_WAIT,            /* RDMA/CM rtu_delay: REP taken, RTU held back */
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
	/* IB/CM only */
	int nortu;              /* never send the RTU */
	int cm_tmo;             /* local and remote CM response timeout (4.096 us * 2^N) */
	int cm_retries;         /* max CM retries */
	uint64_t service_id;    /* the REQ's service ID: the target's service GUID */
	/* RDMA/CM only */
	int rtu_delay;          /* ms between the REP and our RTU (0: at once) */
	int early_rts;          /* rtu_delay: our QP ready at the REP, IUs may go */
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
	uint8_t pdata[96];
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

	/* RDMA/CM: what the CM reported (the cm step) */
	int own_qp;             /* rtu_delay: the QP is ours, not the ID's */
	int rtu_delay;
	int early_rts;          /* our QP moved to RTS at the REP (CS_RTU_WAIT sends) */
	uint64_t rtu_at;        /* CS_RTU_WAIT: when to send the RTU */
	int cm_est;             /* ESTABLISHED seen, or our RTU sent */
	int cm_disc;            /* DISCONNECTED events */
	int cm_rej;             /* REJECTED events */

	struct icm icm;
};

extern struct conn g_conns[MAXCONN];
extern int g_verbose;
extern unsigned long g_pump_pass;
extern enum transport g_transport;
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
void ev_push(struct conn *c, enum ev_type t, const uint8_t *data, int len);
/* called for every event before it is queued (fuzz.c counts them) */
extern void (*g_ev_hook)(const struct conn *c, enum ev_type t, const uint8_t *data, int len);
void conn_fake(struct conn *c, const struct login_opts *o, int credits, uint32_t max_it);
void conn_take_answer(struct conn *c, int established, const uint8_t *pd, int len);
int  conn_setup_buffers(struct conn *c, char *err, size_t errlen);
struct ibv_context *conn_verbs(const struct conn *c);
void login_defaults(struct login_opts *o);
struct conn *conn_alloc(void);
int  conn_start(struct conn *c, const struct login_opts *o, char *err, size_t errlen);
int  conn_wait_login(struct conn *c, int tmo_ms);
void pump(int ms);
int  conn_send(struct conn *c, const void *buf, int len, int tmo_ms, char *err, size_t errlen);
int  conn_new_rc_qp(struct conn *c, struct ibv_context *ctx, char *err, size_t errlen);
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

/* ibcm_conn.c */
int  ibcm_init(void);
int  ibcm_addr_gid(const char *addr, uint8_t gid[16]);
int  ibcm_prepare(struct conn *c, const struct login_opts *o, char *err, size_t errlen);
int  ibcm_connect(struct conn *c, const struct login_opts *o, char *err, size_t errlen);
void ibcm_disconnect(struct conn *c);
void ibcm_destroy(struct conn *c);
struct ibv_context *ibcm_verbs(const struct conn *c);
int  ibcm_pollfds(struct pollfd *pfd, int max);
void ibcm_pump(void);

#endif
