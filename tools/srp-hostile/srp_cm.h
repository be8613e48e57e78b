/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srp_cm.h - the steps of an SRP login over RDMA/CM that srp-hostile and
 * tools/testing/cp/srp-login share: address parsing, PD/CQ/QP setup and
 * release, receive posting, packing the login request and reading the
 * answer.
 *
 * Each tool drives the CM events itself (srp-hostile from one event loop
 * for many connections, srp-login one event at a time).
 */
#ifndef SRP_CM_H
#define SRP_CM_H

#include <stdint.h>
#include <sys/socket.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "srp_wire.h"

/* The fields of an SRP_LOGIN_REQ in host byte order. */
struct srp_login_fields {
	uint64_t tag;
	uint16_t buf_fmt;
	uint8_t  flags;
	uint8_t  opcode;
	uint32_t iu_len;
	uint8_t  init_id[16];
	uint8_t  tgt_id[16];
	uint16_t imm_off;
	uint8_t  reserved[6];
};

/* What the target answered to a login (srp_login_answer()). */
enum srp_login_kind {
	SRP_LOGIN_NONE,		/* no SRP_LOGIN_RSP or SRP_LOGIN_REJ */
	SRP_LOGIN_ACCEPTED,	/* ESTABLISHED with an SRP_LOGIN_RSP */
	SRP_LOGIN_REJECTED,	/* REJECTED with an SRP_LOGIN_REJ */
};

/* The SRP_LOGIN_RSP or SRP_LOGIN_REJ fields in host byte order. */
struct srp_login_answer {
	uint32_t req_lim;
	uint32_t max_it;
	uint32_t max_ti;
	uint16_t buf_fmt;
	uint8_t  flags;
	uint32_t reason;	/* SRP_LOGIN_REJ only */
};

/* srp_cm_create_qp() results */
#define SRP_CM_ERR_PD_CQ (-1)	/* PD or CQ allocation failed */
#define SRP_CM_ERR_QP    (-2)	/* rdma_create_qp() failed */

int srp_cm_addr(const char *host, int port, struct sockaddr_storage *ss);
int srp_cm_create_qp(struct rdma_cm_id *id, int cqe, int send_wr, int recv_wr,
		     struct ibv_pd **pd, struct ibv_cq **cq);
void srp_cm_release(struct rdma_cm_id *id, struct ibv_cq *cq, struct ibv_pd *pd);
int srp_cm_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *buf, uint32_t len,
		     uint32_t lkey);
void srp_login_req_pack(struct srpw_login_req_rdma *req,
			const struct srp_login_fields *f);
enum srp_login_kind srp_login_answer(const struct rdma_cm_event *e,
				     struct srp_login_answer *a);

#endif
