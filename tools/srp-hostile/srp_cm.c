// SPDX-License-Identifier: GPL-2.0
/*
 * srp_cm.c - SRP login steps over RDMA/CM shared by srp-hostile and
 * srp-login (see srp_cm.h).
 */
#include <endian.h>
#include <netdb.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "srp_cm.h"

/* Smallest private data that holds the SRP_LOGIN_RSP fields read here. */
#define LOGIN_RSP_MIN (offsetof(struct srpw_login_rsp, rsp_flags) + 1)
/* Smallest private data that holds the SRP_LOGIN_REJ reason. */
#define LOGIN_REJ_MIN (offsetof(struct srpw_login_rej, tag))

/*
 * srp_cm_addr - the numeric IPv4 or IPv6 address HOST with PORT in SS.
 * Returns 0, or -1 when HOST is not a numeric address.
 */
int srp_cm_addr(const char *host, int port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;
	char p[16];

	snprintf(p, sizeof(p), "%d", port);
	if (getaddrinfo(host, p, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

/*
 * srp_cm_create_qp - a PD, one CQ of CQE entries for both directions and an
 * RC QP (one SGE per work request) on the resolved ID. *PD and *CQ are set
 * as they are created, so the caller frees them also after a failure.
 * Returns 0, SRP_CM_ERR_PD_CQ or SRP_CM_ERR_QP, with errno set.
 */
int srp_cm_create_qp(struct rdma_cm_id *id, int cqe, int send_wr, int recv_wr,
		     struct ibv_pd **pd, struct ibv_cq **cq)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	*pd = ibv_alloc_pd(id->verbs);
	*cq = *pd ? ibv_create_cq(id->verbs, cqe, NULL, NULL, 0) : NULL;
	if (!*cq)
		return SRP_CM_ERR_PD_CQ;
	qa.send_cq = *cq;
	qa.recv_cq = *cq;
	if (rdma_create_qp(id, *pd, &qa))
		return SRP_CM_ERR_QP;
	return 0;
}

/*
 * srp_cm_release - free what srp_cm_create_qp() allocated and the ID, after
 * the caller destroyed the QP and deregistered its MRs. Any may be NULL.
 */
void srp_cm_release(struct rdma_cm_id *id, struct ibv_cq *cq, struct ibv_pd *pd)
{
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (id)
		rdma_destroy_id(id);
}

/* srp_cm_post_recv - post one receive of LEN bytes at BUF. */
int srp_cm_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *buf, uint32_t len,
		     uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* srp_login_req_pack - the RDMA/CM login request (CM REQ private data). */
void srp_login_req_pack(struct srpw_login_req_rdma *req,
			const struct srp_login_fields *f)
{
	memset(req, 0, sizeof(*req));
	req->tag = htobe64(f->tag);
	req->req_buf_fmt = htobe16(f->buf_fmt);
	req->req_flags = f->flags;
	req->opcode = f->opcode;
	req->req_it_iu_len = htobe32(f->iu_len);
	memcpy(req->initiator_port_id, f->init_id, 16);
	memcpy(req->target_port_id, f->tgt_id, 16);
	req->imm_data_offset = htobe16(f->imm_off);
	memcpy(req->reserved, f->reserved, 6);
}

/*
 * srp_login_answer - the SRP answer in the private data of the CM event E
 * that ends a login: ESTABLISHED with an SRP_LOGIN_RSP, REJECTED with an
 * SRP_LOGIN_REJ (then A->reason), or neither.
 */
enum srp_login_kind srp_login_answer(const struct rdma_cm_event *e,
				     struct srp_login_answer *a)
{
	const uint8_t *pd = e->param.conn.private_data;
	size_t len = pd ? e->param.conn.private_data_len : 0;

	memset(a, 0, sizeof(*a));
	if (e->event == RDMA_CM_EVENT_ESTABLISHED && len >= LOGIN_RSP_MIN &&
	    pd[0] == SRPW_LOGIN_RSP) {
		const struct srpw_login_rsp *rsp = (const void *)pd;

		a->req_lim = be32toh(rsp->req_lim_delta);
		a->max_it = be32toh(rsp->max_it_iu_len);
		a->max_ti = be32toh(rsp->max_ti_iu_len);
		a->buf_fmt = be16toh(rsp->buf_fmt);
		a->flags = rsp->rsp_flags;
		return SRP_LOGIN_ACCEPTED;
	}
	if (e->event == RDMA_CM_EVENT_REJECTED && len >= LOGIN_REJ_MIN &&
	    pd[0] == SRPW_LOGIN_REJ) {
		a->reason = be32toh(((const struct srpw_login_rej *)pd)->reason);
		return SRP_LOGIN_REJECTED;
	}
	return SRP_LOGIN_NONE;
}
