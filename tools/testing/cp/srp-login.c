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
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

/* SRP wire formats (SRP-2 r16a and the RDMA/CM variant of the login). */
struct login_req_rdma {
	uint64_t tag;
	uint16_t req_buf_fmt;	/* big endian */
	uint8_t req_flags;
	uint8_t opcode;
	uint32_t req_it_iu_len;	/* big endian */
	uint8_t initiator_port_id[16];
	uint8_t target_port_id[16];
	uint16_t imm_data_offset;
	uint8_t reserved[6];
} __attribute__((packed));

struct login_rsp {
	uint8_t opcode;
	uint8_t reserved1[3];
	uint32_t req_lim_delta;
	uint64_t tag;
	uint32_t max_it_iu_len;
	uint32_t max_ti_iu_len;
	uint16_t buf_fmt;
	uint8_t rsp_flags;
	uint8_t reserved2[25];
} __attribute__((packed));

struct login_rej {
	uint8_t opcode;
	uint8_t reserved1[3];
	uint32_t reason;
	uint64_t tag;
	uint8_t reserved2[8];
	uint16_t buf_fmt;
	uint8_t reserved3[6];
} __attribute__((packed));

#define SRP_LOGIN_REQ 0x00
#define SRP_LOGIN_RSP 0xc0
#define SRP_LOGIN_REJ 0xc2
#define SRP_BUF_DIRECT 0x2
#define SRP_BUF_INDIRECT 0x4

static volatile sig_atomic_t stop;

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

static int get_addr(const char *host, int port, struct sockaddr_storage *ss)
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

int main(int argc, char **argv)
{
	const char *src = NULL, *dst = NULL, *guid_s = NULL, *init_s = NULL;
	int port = 5555, multi = 0, iu_len = 8260, hold = 0, opt, ret = 2;
	struct sockaddr_storage sa_src, sa_dst;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_qp_init_attr qpa = {};
	struct login_req_rdma req = {};
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	uint8_t guid[8];
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	static char rbuf[4][8192];
	int i;

	while ((opt = getopt(argc, argv, "s:d:p:g:i:Ml:w:")) != -1) {
		switch (opt) {
		case 's': src = optarg; break;
		case 'd': dst = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'g': guid_s = optarg; break;
		case 'i': init_s = optarg; break;
		case 'M': multi = 1; break;
		case 'l': iu_len = atoi(optarg); break;
		case 'w': hold = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!src || !dst || !guid_s || !init_s)
		goto usage;
	if (parse_hex(guid_s, guid, 8) ||
	    parse_hex(init_s, req.initiator_port_id, 16)) {
		printf("ERROR bad GUID or initiator port ID\n");
		return 2;
	}
	if (get_addr(src, 0, &sa_src) || get_addr(dst, port, &sa_dst)) {
		printf("ERROR bad address\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
		printf("ERROR rdma_create_id: %s\n", strerror(errno));
		return 2;
	}
	if (rdma_resolve_addr(id, (struct sockaddr *)&sa_src,
			      (struct sockaddr *)&sa_dst, 5000) ||
	    expect_event(ec, RDMA_CM_EVENT_ADDR_RESOLVED))
		goto out;
	if (rdma_resolve_route(id, 5000) ||
	    expect_event(ec, RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto out;

	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 16, NULL, NULL, 0) : NULL;
	mr = pd ? ibv_reg_mr(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!cq || !mr) {
		printf("ERROR PD/CQ/MR: %s\n", strerror(errno));
		goto out;
	}
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = 4;
	qpa.cap.max_recv_wr = 4;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &qpa)) {
		printf("ERROR rdma_create_qp: %s\n", strerror(errno));
		goto out;
	}
	for (i = 0; i < 4; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)rbuf[i], .length = sizeof(rbuf[i]),
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(id->qp, &wr, &bad)) {
			printf("ERROR ibv_post_recv\n");
			goto out;
		}
	}

	req.opcode = SRP_LOGIN_REQ;
	req.tag = 0x5250;
	req.req_it_iu_len = htobe32(iu_len);
	req.req_buf_fmt = htobe16(SRP_BUF_DIRECT | SRP_BUF_INDIRECT);
	req.req_flags = multi ? 1 : 0;
	memcpy(req.target_port_id, guid, 8);
	memcpy(req.target_port_id + 8, guid, 8);
	cp.private_data = &req;
	cp.private_data_len = sizeof(req);
	cp.responder_resources = 4;
	cp.initiator_depth = 4;
	cp.flow_control = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp)) {
		printf("ERROR rdma_connect: %s\n", strerror(errno));
		goto out;
	}
	ev = wait_event(ec, 20000);
	if (!ev) {
		printf("ERROR no answer to the login\n");
		goto out;
	}
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED &&
	    ev->param.conn.private_data_len >= sizeof(struct login_rsp) &&
	    ((const struct login_rsp *)ev->param.conn.private_data)->opcode == SRP_LOGIN_RSP) {
		const struct login_rsp *rsp = ev->param.conn.private_data;

		printf("LOGIN_RSP flags=0x%02x req_lim=%u max_it=%u max_ti=%u\n",
		       rsp->rsp_flags, be32toh(rsp->req_lim_delta),
		       be32toh(rsp->max_it_iu_len), be32toh(rsp->max_ti_iu_len));
		ret = 0;
	} else if (ev->event == RDMA_CM_EVENT_REJECTED &&
		   ev->param.conn.private_data_len >= 8 &&
		   ((const struct login_rej *)ev->param.conn.private_data)->opcode == SRP_LOGIN_REJ) {
		const struct login_rej *rej = ev->param.conn.private_data;

		printf("LOGIN_REJ reason=0x%08x\n", be32toh(rej->reason));
		ret = 1;
	} else if (ev->event == RDMA_CM_EVENT_REJECTED ||
		   ev->event == RDMA_CM_EVENT_UNREACHABLE ||
		   ev->event == RDMA_CM_EVENT_CONNECT_ERROR) {
		printf("CM_REJ status=%d event=%s\n", ev->status,
		       rdma_event_str(ev->event));
		ret = 1;
	} else {
		printf("ERROR %s (status %d)\n", rdma_event_str(ev->event),
		       ev->status);
	}
	rdma_ack_cm_event(ev);

	if (ret == 0 && hold > 0) {
		time_t end = time(NULL) + hold;
		struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };

		while (time(NULL) < end && !stop) {
			if (poll(&pfd, 1, 200) <= 0)
				continue;
			if (pfd.revents & POLLIN) {
				if (rdma_get_cm_event(ec, &ev))
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
	}
	if (ret == 0 || ret == 3) {
		rdma_disconnect(id);
		if (ret == 0) {
			ev = wait_event(ec, 3000);
			if (ev)
				rdma_ack_cm_event(ev);
		}
	}
out:
	if (id->qp)
		rdma_destroy_qp(id);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	return ret;
usage:
	fprintf(stderr, "usage: srp-login -s SRC -d DST [-p PORT] -g GUID -i INITID [-M] [-l IULEN] [-w SECONDS]\n");
	return 2;
}
