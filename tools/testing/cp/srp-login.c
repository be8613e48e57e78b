// SPDX-License-Identifier: GPL-2.0
/*
 * srp-login.c - one SRP login over RDMA/CM from user space, for the ib_srpt
 * control-plane tests.
 *
 * ib_srp refuses a second login to a target it is already logged in to (same
 * id_ext, ioc_guid and initiator_ext), so it cannot show what the target does
 * with a second SINGLE login of the same initiator port. This tool sends one
 * SRP_LOGIN_REQ with any initiator port ID and MULTI-CHANNEL ACTION, prints
 * the answer on stdout and optionally keeps the channel for a while:
 *
 *   LOGIN_RSP flags=0xNN req_lim=N max_it=N max_ti=N
 *   LOGIN_REJ reason=0xNNNNNNNN        SRP_LOGIN_REJ from the target
 *   CM_REJ status=N                    rejected without an SRP_LOGIN_REJ
 *   ERROR text                         anything else
 *   DISCONNECTED                       the target closed the channel while
 *                                      we held it
 *
 * Usage: srp-login -s SRC -d DST [-p PORT] -g GUID -i INITID [-M] [-l IULEN]
 *                  [-w SECONDS]
 *   SRC, DST  IPv4 or IPv6 addresses; PORT defaults to 5555
 *   GUID      target service GUID (16 hex digits, 0x optional): the target
 *             port ID is GUID twice
 *   INITID    initiator port ID, 32 hex digits (0x optional)
 *   -M        MULTI-CHANNEL ACTION = MULTI (default SINGLE)
 *   IULEN     requested max initiator-to-target IU length (default 8260)
 *   SECONDS   after a successful login keep the channel that long (default
 *             0), then disconnect; SIGTERM or SIGINT ends the wait early
 *
 * Exit status: 0 login accepted (and, with -w, not disconnected by the
 * target), 1 rejected, 2 error, 3 accepted but disconnected by the target
 * during the wait.
 *
 * The wire layouts and the login steps come from srp-hostile
 * (tools/srp-hostile/srp_cm.[ch], srp_wire.h); cp_tool in lib-cp.sh builds
 * this file with them.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srp_cm.h"

#define NRECV 4

struct args {
	const char *src, *dst, *guid, *init_id;
	int port, multi, iu_len, hold;
};

/* The connection and what it owns; freed by session_close(). */
struct session {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
};

static volatile sig_atomic_t stop;
static char rbuf[NRECV][8192];

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_hex(const char *s, uint8_t *out, int n)
{
	int i;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	if ((int)strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = b;
	}
	return 0;
}

/* parse_args: the command line into A; -1 when it is not a valid one */
static int parse_args(int argc, char **argv, struct args *a)
{
	int opt;

	*a = (struct args){ .port = 5555, .iu_len = 8260 };
	while ((opt = getopt(argc, argv, "s:d:p:g:i:Ml:w:")) != -1) {
		switch (opt) {
		case 's': a->src = optarg; break;
		case 'd': a->dst = optarg; break;
		case 'p': a->port = atoi(optarg); break;
		case 'g': a->guid = optarg; break;
		case 'i': a->init_id = optarg; break;
		case 'M': a->multi = 1; break;
		case 'l': a->iu_len = atoi(optarg); break;
		case 'w': a->hold = atoi(optarg); break;
		default: return -1;
		}
	}
	return a->src && a->dst && a->guid && a->init_id ? 0 : -1;
}

/* login_fields: the SRP_LOGIN_REQ of A; -1 for a bad GUID or port ID */
static int login_fields(const struct args *a, struct srp_login_fields *f)
{
	uint8_t guid[8];

	*f = (struct srp_login_fields){
		.tag = 0x5250,
		.buf_fmt = SRPW_BUF_DIRECT | SRPW_BUF_INDIRECT,
		.flags = a->multi ? SRPW_MULTICHAN_MULTI : SRPW_MULTICHAN_SINGLE,
		.opcode = SRPW_LOGIN_REQ,
		.iu_len = a->iu_len,
	};
	if (parse_hex(a->guid, guid, 8) || parse_hex(a->init_id, f->init_id, 16))
		return -1;
	memcpy(f->tgt_id, guid, 8);
	memcpy(f->tgt_id + 8, guid, 8);
	return 0;
}

/* wait_event: next CM event within ms milliseconds; NULL on timeout/error. */
static struct rdma_cm_event *wait_event(struct rdma_event_channel *ec, int ms)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ec, &ev))
		return NULL;
	return ev;
}

static int expect_event(struct rdma_event_channel *ec, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = wait_event(ec, 10000);
	int ok;

	if (!ev) {
		printf("ERROR no %s event\n", rdma_event_str(want));
		return -1;
	}
	ok = ev->event == want;
	if (!ok)
		printf("ERROR got %s (status %d) instead of %s\n",
		       rdma_event_str(ev->event), ev->status, rdma_event_str(want));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static int session_open(struct session *s)
{
	s->ec = rdma_create_event_channel();
	if (!s->ec || rdma_create_id(s->ec, &s->id, NULL, RDMA_PS_TCP)) {
		printf("ERROR rdma_create_id: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int resolve(struct session *s, struct sockaddr_storage *src,
		   struct sockaddr_storage *dst)
{
	if (rdma_resolve_addr(s->id, (struct sockaddr *)src,
			      (struct sockaddr *)dst, 5000) ||
	    expect_event(s->ec, RDMA_CM_EVENT_ADDR_RESOLVED))
		return -1;
	if (rdma_resolve_route(s->id, 5000) ||
	    expect_event(s->ec, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return -1;
	return 0;
}

/* setup_qp: PD, CQ, QP and NRECV posted receives of rbuf */
static int setup_qp(struct session *s)
{
	int i, rc = srp_cm_create_qp(s->id, 16, NRECV, NRECV, &s->pd, &s->cq);

	if (rc == SRP_CM_ERR_QP) {
		printf("ERROR rdma_create_qp: %s\n", strerror(errno));
		return -1;
	}
	s->mr = rc ? NULL : ibv_reg_mr(s->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr) {
		printf("ERROR PD/CQ/MR: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < NRECV; i++) {
		if (srp_cm_post_recv(s->id->qp, i, rbuf[i], sizeof(rbuf[i]), s->mr->lkey)) {
			printf("ERROR ibv_post_recv\n");
			return -1;
		}
	}
	return 0;
}

static int send_login(struct session *s, const struct srp_login_fields *f)
{
	struct srpw_login_req_rdma req;
	struct rdma_conn_param cp = {
		.private_data = &req,
		.private_data_len = sizeof(req),
		.responder_resources = 4,
		.initiator_depth = 4,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	srp_login_req_pack(&req, f);
	if (rdma_connect(s->id, &cp)) {
		printf("ERROR rdma_connect: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* print_answer: print the target's answer to the login; the exit status */
static int print_answer(const struct rdma_cm_event *ev)
{
	struct srp_login_answer a;

	switch (srp_login_answer(ev, &a)) {
	case SRP_LOGIN_ACCEPTED:
		printf("LOGIN_RSP flags=0x%02x req_lim=%u max_it=%u max_ti=%u\n",
		       a.flags, a.req_lim, a.max_it, a.max_ti);
		return 0;
	case SRP_LOGIN_REJECTED:
		printf("LOGIN_REJ reason=0x%08x\n", a.reason);
		return 1;
	case SRP_LOGIN_NONE:
		break;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED ||
	    ev->event == RDMA_CM_EVENT_UNREACHABLE ||
	    ev->event == RDMA_CM_EVENT_CONNECT_ERROR) {
		printf("CM_REJ status=%d event=%s\n", ev->status,
		       rdma_event_str(ev->event));
		return 1;
	}
	printf("ERROR %s (status %d)\n", rdma_event_str(ev->event), ev->status);
	return 2;
}

static int wait_answer(struct session *s)
{
	struct rdma_cm_event *ev = wait_event(s->ec, 20000);
	int ret;

	if (!ev) {
		printf("ERROR no answer to the login\n");
		return 2;
	}
	ret = print_answer(ev);
	rdma_ack_cm_event(ev);
	return ret;
}

/* hold: keep the channel SECONDS (or until a signal); 3 if the target ends it */
static int hold(struct session *s, int seconds)
{
	time_t end = time(NULL) + seconds;
	struct pollfd pfd = { .fd = s->ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret = 0;

	while (time(NULL) < end && !stop) {
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if (pfd.revents & POLLIN) {
			if (rdma_get_cm_event(s->ec, &ev))
				break;
			if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
				printf("DISCONNECTED\n");
				ret = 3;
			}
			rdma_ack_cm_event(ev);
			if (ret)
				break;
		}
	}
	return ret;
}

/* logout: disconnect; after our own disconnect wait for the target's answer */
static void logout(struct session *s, int ret)
{
	struct rdma_cm_event *ev;

	rdma_disconnect(s->id);
	if (ret == 0) {
		ev = wait_event(s->ec, 3000);
		if (ev)
			rdma_ack_cm_event(ev);
	}
}

static void session_close(struct session *s)
{
	if (s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	srp_cm_release(s->id, s->cq, s->pd);
	rdma_destroy_event_channel(s->ec);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage src, dst;
	struct srp_login_fields f;
	struct session s = {};
	struct args a;
	int ret = 2;

	if (parse_args(argc, argv, &a)) {
		fprintf(stderr, "usage: srp-login -s SRC -d DST [-p PORT] -g GUID -i INITID [-M] [-l IULEN] [-w SECONDS]\n");
		return 2;
	}
	if (login_fields(&a, &f)) {
		printf("ERROR bad GUID or initiator port ID\n");
		return 2;
	}
	if (srp_cm_addr(a.src, 0, &src) || srp_cm_addr(a.dst, a.port, &dst)) {
		printf("ERROR bad address\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (session_open(&s))
		return 2;
	if (!resolve(&s, &src, &dst) && !setup_qp(&s) && !send_login(&s, &f))
		ret = wait_answer(&s);
	if (ret == 0 && a.hold > 0)
		ret = hold(&s, a.hold);
	if (ret == 0 || ret == 3)
		logout(&s, ret);
	session_close(&s);
	return ret;
}
