// SPDX-License-Identifier: GPL-2.0
/*
 * ibcm.c - IB/CM message encoding and decoding for srp-hostile's IB/CM
 * transport (see ibcm.h), the SRP login request in its IB/CM layout, and a
 * self-test that checks the encoding against the spec's byte tables.
 */
#include <stdio.h>
#include <string.h>

#include "ibcm.h"

static void be16_put(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static void be32_put(uint8_t *p, uint32_t v) { be16_put(p, v >> 16); be16_put(p + 2, v); }
static void be64_put(uint8_t *p, uint64_t v) { be32_put(p, v >> 32); be32_put(p + 4, v); }
static uint16_t be16_get(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32_get(const uint8_t *p) { return (uint32_t)be16_get(p) << 16 | be16_get(p + 2); }
static uint64_t be64_get(const uint8_t *p) { return (uint64_t)be32_get(p) << 32 | be32_get(p + 4); }

/*
 * cm_set_bits - store V in WIDTH bits of the big-endian bit string at P,
 * starting BIT bits after the most significant bit of P[0] (the spec's
 * byte[bit] notation: bit 0 is the most significant).
 */
void cm_set_bits(uint8_t *p, int bit, int width, uint32_t v)
{
	int i;

	for (i = 0; i < width; i++) {
		int b = bit + i;
		uint8_t m = 0x80 >> (b % 8);

		if (v >> (width - 1 - i) & 1)
			p[b / 8] |= m;
		else
			p[b / 8] &= ~m;
	}
}

/* cm_get_bits - the WIDTH-bit field at BIT of P (see cm_set_bits()) */
uint32_t cm_get_bits(const uint8_t *p, int bit, int width)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < width; i++) {
		int b = bit + i;

		v = v << 1 | ((p[b / 8] >> (7 - b % 8)) & 1);
	}
	return v;
}

/* cm_mad_hdr - zero the MAD and write a CM Send header for ATTR */
void cm_mad_hdr(uint8_t *mad, uint16_t attr, uint64_t tid)
{
	memset(mad, 0, CM_MAD_SIZE);
	mad[0] = 1;                     /* base version */
	mad[1] = CM_MGMT_CLASS;
	mad[2] = CM_CLASS_VERSION;
	mad[3] = CM_METHOD_SEND;
	/* 4..5 status, 6..7 class specific: 0 */
	be64_put(mad + 8, tid);
	be16_put(mad + 16, attr);
	/* 18..19 reserved, 20..23 attribute modifier: 0 */
}

uint16_t cm_mad_attr(const uint8_t *mad)
{
	return be16_get(mad + 16);
}

/* cm_comm_ids - the local and remote communication IDs of a CM message */
void cm_comm_ids(const uint8_t *mad, uint32_t *local, uint32_t *remote)
{
	*local = be32_get(mad + CM_OFF(0));
	*remote = cm_mad_attr(mad) == CM_ATTR_REQ ? 0 : be32_get(mad + CM_OFF(4));
}

/*
 * cm_req_build - a REQ (table 106 "REQ message contents"). No alternate
 * path and no EE context. Returns -1 when the private data is too long.
 */
int cm_req_build(uint8_t *mad, uint64_t tid, const struct cm_req_fields *f)
{
	uint8_t *m = mad + CM_MAD_HDR;

	if (f->pdlen < 0 || f->pdlen > CM_REQ_PDATA)
		return -1;
	cm_mad_hdr(mad, CM_ATTR_REQ, tid);
	be32_put(m + 0, f->local_comm_id);
	/* 4..7: VendorID (bytes 5..7), zero */
	be64_put(m + 8, f->service_id);
	be64_put(m + 16, f->local_ca_guid);
	/* 24..27 reserved */
	be32_put(m + 28, f->local_qkey);
	cm_set_bits(m + 32, 0, 24, f->local_qpn);
	m[35] = f->resp_res;
	/* 36..38 local EECN: 0 */
	m[39] = f->init_depth;
	/* 40..42 remote EECN: 0 */
	cm_set_bits(m + 43, 0, 5, f->remote_cm_tmo);
	cm_set_bits(m + 43, 5, 2, f->transport);
	cm_set_bits(m + 43, 7, 1, f->flow_control);
	cm_set_bits(m + 44, 0, 24, f->starting_psn);
	cm_set_bits(m + 47, 0, 5, f->local_cm_tmo);
	cm_set_bits(m + 47, 5, 3, f->retry);
	be16_put(m + 48, f->pkey);
	cm_set_bits(m + 50, 0, 4, f->mtu);
	cm_set_bits(m + 50, 4, 1, 0);   /* RDC exists */
	cm_set_bits(m + 50, 5, 3, f->rnr_retry);
	cm_set_bits(m + 51, 0, 4, f->max_cm_retries);
	cm_set_bits(m + 51, 4, 1, f->srq);
	cm_set_bits(m + 51, 5, 3, 0);   /* extended transport type */
	be16_put(m + 52, f->local_lid);
	be16_put(m + 54, f->remote_lid);
	memcpy(m + 56, f->local_gid, 16);
	memcpy(m + 72, f->remote_gid, 16);
	cm_set_bits(m + 88, 0, 20, f->flow_label);
	/* 90[4..5] reserved */
	cm_set_bits(m + 91, 2, 6, f->rate);
	m[92] = f->tclass;
	m[93] = f->hop_limit;
	cm_set_bits(m + 94, 0, 4, f->sl);
	cm_set_bits(m + 94, 4, 1, f->subnet_local);
	cm_set_bits(m + 95, 0, 5, f->ack_timeout);
	/* 96..139: alternate path, all zero (none) */
	if (f->pdlen)
		memcpy(m + 140, f->pdata, f->pdlen);
	return 0;
}

/* cm_rep_parse - the fields of a REP (table 110) */
void cm_rep_parse(const uint8_t *mad, struct cm_rep_fields *f)
{
	const uint8_t *m = mad + CM_MAD_HDR;

	memset(f, 0, sizeof(*f));
	f->local_comm_id = be32_get(m + 0);
	f->remote_comm_id = be32_get(m + 4);
	f->local_qkey = be32_get(m + 8);
	f->local_qpn = cm_get_bits(m + 12, 0, 24);
	f->starting_psn = cm_get_bits(m + 20, 0, 24);
	f->resp_res = m[24];
	f->init_depth = m[25];
	f->ack_delay = cm_get_bits(m + 26, 0, 5);
	f->failover = cm_get_bits(m + 26, 5, 2);
	f->flow_control = cm_get_bits(m + 26, 7, 1);
	f->rnr_retry = cm_get_bits(m + 27, 0, 3);
	f->srq = cm_get_bits(m + 27, 3, 1);
	f->ca_guid = be64_get(m + 28);
	f->pdata = m + 36;
}

/* cm_rej_parse - the fields of a REJ (table 108) */
void cm_rej_parse(const uint8_t *mad, struct cm_rej_fields *f)
{
	const uint8_t *m = mad + CM_MAD_HDR;

	memset(f, 0, sizeof(*f));
	f->local_comm_id = be32_get(m + 0);
	f->remote_comm_id = be32_get(m + 4);
	f->msg_rejected = cm_get_bits(m + 8, 0, 2);
	f->ari_len = cm_get_bits(m + 9, 0, 7);
	f->reason = be16_get(m + 10);
	f->ari = m + 12;
	f->pdata = m + 84;
}

/* cm_rej_build - a REJ without ARI and private data */
void cm_rej_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote,
		  uint8_t msg_rejected, uint16_t reason)
{
	uint8_t *m = mad + CM_MAD_HDR;

	cm_mad_hdr(mad, CM_ATTR_REJ, tid);
	be32_put(m + 0, local);
	be32_put(m + 4, remote);
	cm_set_bits(m + 8, 0, 2, msg_rejected);
	be16_put(m + 10, reason);
}

/* cm_rtu_build - an RTU (table 111) without private data */
void cm_rtu_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote)
{
	cm_mad_hdr(mad, CM_ATTR_RTU, tid);
	be32_put(mad + CM_OFF(0), local);
	be32_put(mad + CM_OFF(4), remote);
}

/* cm_dreq_build - a DREQ (table 113) naming the peer's QP */
void cm_dreq_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote,
		   uint32_t remote_qpn)
{
	cm_mad_hdr(mad, CM_ATTR_DREQ, tid);
	be32_put(mad + CM_OFF(0), local);
	be32_put(mad + CM_OFF(4), remote);
	cm_set_bits(mad + CM_OFF(8), 0, 24, remote_qpn);
}

/* cm_drep_build - a DREP (table 114) */
void cm_drep_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote)
{
	cm_mad_hdr(mad, CM_ATTR_DREP, tid);
	be32_put(mad + CM_OFF(0), local);
	be32_put(mad + CM_OFF(4), remote);
}

const char *cm_attr_name(uint16_t attr)
{
	static const char *const n[] = {
		"REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP", "SIDR_REQ",
		"SIDR_REP", "LAP", "APR",
	};

	if (attr >= CM_ATTR_REQ && attr < CM_ATTR_REQ + sizeof(n) / sizeof(n[0]))
		return n[attr - CM_ATTR_REQ];
	return "?";
}

/* names of the REJ reasons of table 112 */
const char *cm_rej_reason_name(uint16_t reason)
{
	static const char *const n[] = {
		[1] = "timeout", [2] = "no_qp", [3] = "no_eec", [4] = "no_resources",
		[5] = "timeout_wait", [6] = "unsupported_req", [7] = "invalid_comm_id",
		[8] = "invalid_service_id", [9] = "invalid_transport", [10] = "stale_conn",
		[11] = "rdc_not_exist", [12] = "invalid_gid", [13] = "invalid_lid",
		[14] = "invalid_sl", [15] = "invalid_traffic_class",
		[16] = "invalid_hop_limit", [17] = "invalid_packet_rate",
		[18] = "invalid_alt_gid", [19] = "invalid_alt_lid",
		[20] = "invalid_alt_sl", [21] = "invalid_alt_traffic_class",
		[22] = "invalid_alt_hop_limit", [23] = "invalid_alt_packet_rate",
		[24] = "port_cm_redirect", [25] = "port_redirect",
		[26] = "invalid_mtu", [27] = "insufficient_resp_resources",
		[28] = "consumer_defined", [29] = "invalid_rnr_retry",
		[30] = "duplicate_local_comm_id", [31] = "invalid_class_version",
		[32] = "invalid_flow_label", [33] = "invalid_alt_flow_label",
	};

	if (reason < sizeof(n) / sizeof(n[0]) && n[reason])
		return n[reason];
	return "?";
}

/*
 * srp_login_req_pack_ib - the SRP_LOGIN_REQ IU as IB/CM REQ private data
 * (SRP r16a, table "SRP_LOGIN_REQ"): 64 bytes at OUT.
 */
void srp_login_req_pack_ib(uint8_t *out, const struct srp_login_fields *f)
{
	memset(out, 0, 64);
	out[0] = f->opcode;
	be64_put(out + 8, f->tag);  /* big-endian, as srp_login_req_pack() */
	be32_put(out + 16, f->iu_len);
	be16_put(out + 24, f->buf_fmt);
	out[26] = f->flags;
	be16_put(out + 28, f->imm_off);
	memcpy(out + 32, f->init_id, 16);
	memcpy(out + 48, f->tgt_id, 16);
}

/* ---- self-test ---- */

static int st_fail;

static void st_bytes(const char *what, const uint8_t *got, const uint8_t *want, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (got[i] != want[i]) {
			printf("FAIL %s: byte %d is 0x%02x, expected 0x%02x\n", what, i, got[i], want[i]);
			st_fail++;
			return;
		}
}

/* ST(what, MAD offset, expected bytes...) */
#define ST(what, mad, off, ...) do {					\
		static const uint8_t w_[] = { __VA_ARGS__ };		\
		st_bytes(what, (mad) + (off), w_, sizeof(w_));		\
	} while (0)

static void st_num(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		printf("FAIL %s: 0x%llx, expected 0x%llx\n", what,
		       (unsigned long long)got, (unsigned long long)want);
		st_fail++;
	}
}

static void st_zero(const char *what, const uint8_t *p, int n)
{
	static const uint8_t z[CM_MAD_SIZE];

	st_bytes(what, p, z, n);
}

/* a REQ from known values against table 106, offsets in the MAD */
static void st_req(void)
{
	uint8_t mad[CM_MAD_SIZE], pd[CM_REQ_PDATA];
	struct cm_req_fields f = {
		.local_comm_id = 0x11223344, .service_id = 0x0002c903000a0b0cULL,
		.local_ca_guid = 0x5254001122334455ULL, .local_qkey = 0,
		.local_qpn = 0xabcdef, .resp_res = 16, .init_depth = 63,
		.remote_cm_tmo = 20, .transport = 0, .flow_control = 1,
		.starting_psn = 0x123456, .local_cm_tmo = 18, .retry = 7,
		.pkey = 0xffff, .mtu = 3, .rnr_retry = 6, .max_cm_retries = 15,
		.srq = 1, .local_lid = 0xffff, .remote_lid = 0x0001,
		.flow_label = 0x12345, .rate = 3, .tclass = 0x20, .hop_limit = 64,
		.sl = 5, .subnet_local = 1, .ack_timeout = 19,
		.pdata = pd, .pdlen = sizeof(pd),
	};
	int i;

	for (i = 0; i < 16; i++) {
		f.local_gid[i] = 0xa0 + i;
		f.remote_gid[i] = 0xb0 + i;
	}
	for (i = 0; i < (int)sizeof(pd); i++)
		pd[i] = i + 1;
	memset(mad, 0x5a, sizeof(mad));
	if (cm_req_build(mad, 0x0102030405060708ULL, &f)) {
		printf("FAIL REQ: cm_req_build refused\n");
		st_fail++;
		return;
	}
	/* common MAD header (13.4.2) */
	ST("MAD base version, class, class version, method", mad, 0, 1, 0x07, 2, 0x03);
	ST("MAD status, class specific", mad, 4, 0, 0, 0, 0);
	ST("MAD TID", mad, 8, 1, 2, 3, 4, 5, 6, 7, 8);
	ST("MAD attribute ID REQ", mad, 16, 0x00, 0x10, 0, 0);
	ST("MAD attribute modifier", mad, 20, 0, 0, 0, 0);
	/* REQ, message byte N is MAD byte 24 + N */
	ST("REQ local comm ID (0)", mad, 24, 0x11, 0x22, 0x33, 0x44);
	ST("REQ vendor ID (4)", mad, 28, 0, 0, 0, 0);
	ST("REQ service ID (8)", mad, 32, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0x0b, 0x0c);
	ST("REQ local CA GUID (16)", mad, 40, 0x52, 0x54, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
	ST("REQ reserved (24)", mad, 48, 0, 0, 0, 0);
	ST("REQ local Q_Key (28)", mad, 52, 0, 0, 0, 0);
	ST("REQ local QPN (32), responder resources (35)", mad, 56, 0xab, 0xcd, 0xef, 16);
	ST("REQ local EECN (36), initiator depth (39)", mad, 60, 0, 0, 0, 63);
	/* 43: remote CM response timeout 20 = 10100b, RC 00b, flow control 1 */
	ST("REQ remote EECN (40), timeout/transport/e2e (43)", mad, 64, 0, 0, 0, 0xa1);
	/* 47: local CM response timeout 18 = 10010b, retry count 7 = 111b */
	ST("REQ starting PSN (44), local timeout/retry (47)", mad, 68, 0x12, 0x34, 0x56, 0x97);
	/* 50: MTU 3 = 0011b, RDC 0, RNR retry 6 = 110b; 51: 15 retries, SRQ 1 */
	ST("REQ P_Key (48), MTU/RDC/RNR (50), retries/SRQ/ext (51)", mad, 72,
	   0xff, 0xff, 0x36, 0xf8);
	ST("REQ primary local LID (52), remote LID (54)", mad, 76, 0xff, 0xff, 0x00, 0x01);
	ST("REQ primary local GID (56)", mad, 80, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5,
	   0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf);
	ST("REQ primary remote GID (72)", mad, 96, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5,
	   0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf);
	/* 88: flow label 0x12345 in 20 bits, 6 reserved bits, rate 3 in 6 */
	ST("REQ flow label (88), packet rate (91)", mad, 112, 0x12, 0x34, 0x50, 0x03);
	/* 94: SL 5 = 0101b, subnet local 1; 95: ack timeout 19 = 10011b */
	ST("REQ traffic class (92), hop limit (93), SL/local (94), ack tmo (95)", mad, 116,
	   0x20, 64, 0x58, 0x98);
	st_zero("REQ alternate path (96..139)", mad + 24 + 96, 44);
	st_bytes("REQ private data (140)", mad + 24 + 140, pd, sizeof(pd));
	st_num("REQ private data offset", CM_REQ_OFF_PDATA, 164);
	st_num("REQ ends at the end of the MAD", CM_REQ_OFF_PDATA + CM_REQ_PDATA, CM_MAD_SIZE);
	f.pdlen = CM_REQ_PDATA + 1;
	st_num("REQ with 93 bytes of private data refused", cm_req_build(mad, 1, &f), (uint64_t)-1);
}

/* a REP as the target sends it (table 110), decoded */
static void st_rep(void)
{
	uint8_t mad[CM_MAD_SIZE];
	struct cm_rep_fields f;
	static const uint8_t rep[] = {
		0xde, 0xad, 0xbe, 0xef,         /*  0 local comm ID */
		0x11, 0x22, 0x33, 0x44,         /*  4 remote comm ID */
		0x00, 0x00, 0x00, 0x00,         /*  8 local Q_Key */
		0x00, 0x00, 0x42, 0x00,         /* 12 local QPN 0x42, reserved */
		0x00, 0x00, 0x00, 0x00,         /* 16 local EEC */
		0x65, 0x43, 0x21, 0x00,         /* 20 starting PSN */
		0x08, 0x04,                     /* 24 resp res, 25 init depth */
		0xa1,                           /* 26 ack delay 20, failover 0, e2e 1 */
		0xf0,                           /* 27 RNR retry 7, SRQ 1 */
		1, 2, 3, 4, 5, 6, 7, 8,         /* 28 local CA GUID */
		0xc0,                           /* 36 private data */
	};

	cm_mad_hdr(mad, CM_ATTR_REP, 7);
	memcpy(mad + 24, rep, sizeof(rep));
	cm_rep_parse(mad, &f);
	st_num("REP local comm ID", f.local_comm_id, 0xdeadbeef);
	st_num("REP remote comm ID", f.remote_comm_id, 0x11223344);
	st_num("REP local QPN", f.local_qpn, 0x42);
	st_num("REP starting PSN", f.starting_psn, 0x654321);
	st_num("REP responder resources", f.resp_res, 8);
	st_num("REP initiator depth", f.init_depth, 4);
	st_num("REP target ACK delay", f.ack_delay, 20);
	st_num("REP end-to-end flow control", f.flow_control, 1);
	st_num("REP RNR retry count", f.rnr_retry, 7);
	st_num("REP SRQ", f.srq, 1);
	st_num("REP local CA GUID", f.ca_guid, 0x0102030405060708ULL);
	st_num("REP private data offset", f.pdata - mad, 60);
	st_num("REP private data", f.pdata[0], 0xc0);
}

/* REJ (table 108) and the small messages */
static void st_small(void)
{
	uint8_t mad[CM_MAD_SIZE];
	struct cm_rej_fields r;
	uint32_t l, rm;

	cm_rej_build(mad, 9, 0x01020304, 0x05060708, 0, CM_REJ_CONSUMER_DEFINED);
	ST("REJ attribute ID", mad, 16, 0x00, 0x12);
	ST("REJ comm IDs (0, 4), msg rejected REQ (8), ARI len (9), reason 28 (10)", mad, 24,
	   1, 2, 3, 4, 5, 6, 7, 8, 0x00, 0x00, 0x00, 28);
	mad[24 + 8] = 0x40;             /* message REJected: REP */
	mad[24 + 9] = 0x20;             /* ARI length 16 */
	mad[24 + 84] = 0xc2;
	cm_rej_parse(mad, &r);
	st_num("REJ local comm ID", r.local_comm_id, 0x01020304);
	st_num("REJ remote comm ID", r.remote_comm_id, 0x05060708);
	st_num("REJ message rejected", r.msg_rejected, 1);
	st_num("REJ ARI length", r.ari_len, 16);
	st_num("REJ reason", r.reason, 28);
	st_num("REJ ARI offset", r.ari - mad, 36);
	st_num("REJ private data offset", r.pdata - mad, 108);
	st_num("REJ private data", r.pdata[0], 0xc2);
	st_num("REJ private data ends at the end of the MAD", 108 + CM_REJ_PDATA, CM_MAD_SIZE);

	cm_rtu_build(mad, 3, 0xa1a2a3a4, 0xb1b2b3b4);
	ST("RTU attribute ID, comm IDs", mad, 16, 0x00, 0x14);
	ST("RTU comm IDs (0, 4)", mad, 24, 0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xb3, 0xb4);
	st_zero("RTU private data", mad + 32, CM_RTU_PDATA);

	cm_dreq_build(mad, 3, 0xa1a2a3a4, 0xb1b2b3b4, 0x123456);
	ST("DREQ attribute ID", mad, 16, 0x00, 0x15);
	ST("DREQ comm IDs (0, 4), remote QPN (8)", mad, 24, 0xa1, 0xa2, 0xa3, 0xa4,
	   0xb1, 0xb2, 0xb3, 0xb4, 0x12, 0x34, 0x56, 0x00);
	cm_comm_ids(mad, &l, &rm);
	st_num("DREQ comm IDs read back", (uint64_t)l << 32 | rm, 0xa1a2a3a4b1b2b3b4ULL);

	cm_drep_build(mad, 3, 0xa1a2a3a4, 0xb1b2b3b4);
	ST("DREP attribute ID", mad, 16, 0x00, 0x16);
	ST("DREP comm IDs (0, 4)", mad, 24, 0xa1, 0xa2, 0xa3, 0xa4, 0xb1, 0xb2, 0xb3, 0xb4);

	st_num("bits: get what was set", (cm_set_bits(mad, 3, 11, 0x5a5), cm_get_bits(mad, 3, 11)),
	       0x5a5);
}

/* the SRP_LOGIN_REQ in its IB/CM layout (SRP r16a) */
static void st_login(void)
{
	struct srp_login_fields f = {
		.tag = 0x0102030405060708ULL, .buf_fmt = 0x0006, .flags = 0x81, .opcode = 0,
		.iu_len = 8260, .imm_off = 68,
	};
	uint8_t b[64];
	int i;

	for (i = 0; i < 16; i++) {
		f.init_id[i] = 0x10 + i;
		f.tgt_id[i] = 0x30 + i;
	}
	srp_login_req_pack_ib(b, &f);
	ST("LOGIN_REQ opcode (0), reserved, tag (8)", b, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	   1, 2, 3, 4, 5, 6, 7, 8);
	ST("LOGIN_REQ IU length (16), reserved (20)", b, 16, 0x00, 0x00, 0x20, 0x44, 0, 0, 0, 0);
	ST("LOGIN_REQ buffer formats (24), flags (26), reserved, imm offset (28)", b, 24,
	   0x00, 0x06, 0x81, 0x00, 0x00, 68, 0, 0);
	ST("LOGIN_REQ initiator port ID (32)", b, 32, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
	   0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f);
	ST("LOGIN_REQ target port ID (48)", b, 48, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35,
	   0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f);
}

/* cm_selftest - check the encoders and decoders; 0 when all passed */
int cm_selftest(void)
{
	st_fail = 0;
	st_req();
	st_rep();
	st_small();
	st_login();
	printf("IB/CM MAD self-test: %s\n", st_fail ? "FAILED" : "passed");
	return st_fail ? 1 : 0;
}
