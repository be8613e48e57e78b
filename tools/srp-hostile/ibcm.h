/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibcm.h - an IB/CM transport for srp-hostile: communication management
 * MADs (InfiniBand Architecture Specification vol. 1, chapter 12) sent and
 * received through libibumad, and the helpers that connect a libibverbs RC
 * QP by hand with them. Written for srp-hostile from the spec's message
 * tables (12.6.5 REQ, 12.6.7 REJ, 12.6.8 REP, 12.6.9 RTU, 12.6.10 DREQ,
 * 12.6.11 DREP).
 *
 * Offsets below count from the start of the 256-byte MAD; the CM message
 * fields start after the 24-byte common MAD header (spec byte 0 = MAD byte
 * 24). Bit positions count from the most significant bit of a byte, as the
 * spec's "byte[bit]" notation does.
 */
#ifndef IBCM_H
#define IBCM_H

#include <stdint.h>

#include "srp_cm.h"

#define CM_MAD_SIZE        256
#define CM_MAD_HDR         24
#define CM_MGMT_CLASS      0x07
#define CM_CLASS_VERSION   2
#define CM_METHOD_SEND     0x03
#define CM_QKEY            0x80010000u
#define CM_GSI_QPN         1

/* attribute IDs */
enum {
	CM_ATTR_REQ  = 0x0010,
	CM_ATTR_MRA  = 0x0011,
	CM_ATTR_REJ  = 0x0012,
	CM_ATTR_REP  = 0x0013,
	CM_ATTR_RTU  = 0x0014,
	CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016,
};

/* private data sizes */
#define CM_REQ_PDATA  92
#define CM_REJ_PDATA  148
#define CM_REP_PDATA  196
#define CM_RTU_PDATA  224
#define CM_DREQ_PDATA 220
#define CM_DREP_PDATA 224
#define CM_REJ_ARI    72

/* byte offsets in the MAD (message offset + 24) */
#define CM_OFF(x) (CM_MAD_HDR + (x))
#define CM_REQ_OFF_PDATA  CM_OFF(140)
#define CM_REJ_OFF_ARI    CM_OFF(12)
#define CM_REJ_OFF_PDATA  CM_OFF(84)
#define CM_REP_OFF_PDATA  CM_OFF(36)

/* REJ reason codes used here (table 112) */
#define CM_REJ_TIMEOUT          1
#define CM_REJ_INVALID_SID      8
#define CM_REJ_STALE_CONN       10
#define CM_REJ_CONSUMER_DEFINED 28

/* the fields of a REQ, host byte order; GIDs in network order */
struct cm_req_fields {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;             /* 24 bits */
	uint8_t  resp_res;
	uint8_t  init_depth;
	uint8_t  remote_cm_tmo;         /* 5 bits */
	uint8_t  transport;             /* 2 bits: 0 = RC */
	uint8_t  flow_control;          /* 1 bit */
	uint32_t starting_psn;          /* 24 bits */
	uint8_t  local_cm_tmo;          /* 5 bits */
	uint8_t  retry;                 /* 3 bits */
	uint16_t pkey;
	uint8_t  mtu;                   /* 4 bits, enum ibv_mtu */
	uint8_t  rnr_retry;             /* 3 bits */
	uint8_t  max_cm_retries;        /* 4 bits */
	uint8_t  srq;                   /* 1 bit */
	uint16_t local_lid, remote_lid;
	uint8_t  local_gid[16], remote_gid[16];
	uint32_t flow_label;            /* 20 bits */
	uint8_t  rate;                  /* 6 bits */
	uint8_t  tclass;
	uint8_t  hop_limit;
	uint8_t  sl;                    /* 4 bits */
	uint8_t  subnet_local;          /* 1 bit */
	uint8_t  ack_timeout;           /* 5 bits */
	const uint8_t *pdata;
	int pdlen;                      /* at most CM_REQ_PDATA */
};

/* the fields of a REP */
struct cm_rep_fields {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;
	uint32_t starting_psn;
	uint8_t  resp_res, init_depth;
	uint8_t  ack_delay;
	uint8_t  failover;
	uint8_t  flow_control;
	uint8_t  rnr_retry;
	uint8_t  srq;
	uint64_t ca_guid;
	const uint8_t *pdata;           /* CM_REP_PDATA bytes in the MAD */
};

/* the fields of a REJ */
struct cm_rej_fields {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t  msg_rejected;          /* 0 REQ, 1 REP, 2 other */
	uint8_t  ari_len;
	uint16_t reason;
	const uint8_t *ari;             /* CM_REJ_ARI bytes */
	const uint8_t *pdata;           /* CM_REJ_PDATA bytes */
};

void cm_set_bits(uint8_t *p, int bit, int width, uint32_t v);
uint32_t cm_get_bits(const uint8_t *p, int bit, int width);
void cm_mad_hdr(uint8_t *mad, uint16_t attr, uint64_t tid);
uint16_t cm_mad_attr(const uint8_t *mad);
void cm_comm_ids(const uint8_t *mad, uint32_t *local, uint32_t *remote);
int  cm_req_build(uint8_t *mad, uint64_t tid, const struct cm_req_fields *f);
void cm_rep_parse(const uint8_t *mad, struct cm_rep_fields *f);
void cm_rej_parse(const uint8_t *mad, struct cm_rej_fields *f);
void cm_rej_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote,
		  uint8_t msg_rejected, uint16_t reason);
void cm_rtu_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote);
void cm_dreq_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote,
		   uint32_t remote_qpn);
void cm_drep_build(uint8_t *mad, uint64_t tid, uint32_t local, uint32_t remote);
const char *cm_attr_name(uint16_t attr);
const char *cm_rej_reason_name(uint16_t reason);
void srp_login_req_pack_ib(uint8_t *out, const struct srp_login_fields *f);
int  cm_selftest(void);

#endif
