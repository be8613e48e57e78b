/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srp_wire.h - SRP information unit layouts as they appear on the wire.
 *
 * Written for srp-hostile from the T10 SRP (r16a) / SRP-2 field tables. All
 * multi-byte integer fields are big-endian on the wire; tags are opaque.
 */
#ifndef SRP_WIRE_H
#define SRP_WIRE_H

#include <stdint.h>

#define PACKED __attribute__((packed))

/* IU opcodes */
enum {
	SRPW_LOGIN_REQ = 0x00,
	SRPW_TSK_MGMT  = 0x01,
	SRPW_CMD       = 0x02,
	SRPW_I_LOGOUT  = 0x03,
	SRPW_LOGIN_RSP = 0xc0,
	SRPW_RSP       = 0xc1,
	SRPW_LOGIN_REJ = 0xc2,
	SRPW_T_LOGOUT  = 0x80,
	SRPW_CRED_REQ  = 0x81,
	SRPW_AER_REQ   = 0x82,
	SRPW_CRED_RSP  = 0x41,
	SRPW_AER_RSP   = 0x42,
};

/* login buffer formats (req_buf_fmt / buf_fmt bit mask) */
#define SRPW_BUF_DIRECT   0x0002
#define SRPW_BUF_INDIRECT 0x0004

/* descriptor format codes (nibbles of srp_cmd.buf_fmt) */
#define SRPW_DESC_NONE     0
#define SRPW_DESC_DIRECT   1
#define SRPW_DESC_INDIRECT 2
#define SRPW_DESC_IMM      3

/* login req_flags */
#define SRPW_MULTICHAN_SINGLE 0x00
#define SRPW_MULTICHAN_MULTI  0x01
#define SRPW_IMMED_REQUESTED  0x80

/* login rsp_flags */
#define SRPW_RSP_MULTICHAN_MASK       0x03
#define SRPW_RSP_MULTICHAN_NO_CHAN    0x00
#define SRPW_RSP_MULTICHAN_TERMINATED 0x01
#define SRPW_RSP_MULTICHAN_MAINTAINED 0x02
#define SRPW_RSP_IMMED_SUPP           0x80

/* SRP_LOGIN_REJ reasons */
#define SRPW_REJ_UNABLE_ESTABLISH   0x00010000
#define SRPW_REJ_INSUFFICIENT_RES   0x00010001
#define SRPW_REJ_IU_TOO_LARGE       0x00010002
#define SRPW_REJ_UNABLE_ASSOCIATE   0x00010003
#define SRPW_REJ_UNSUPPORTED_FMT    0x00010004
#define SRPW_REJ_MULTI_UNSUPPORTED  0x00010005
#define SRPW_REJ_CHANNEL_LIMIT      0x00010006

/* task management functions */
#define SRPW_TSK_ABORT_TASK     0x01
#define SRPW_TSK_ABORT_TASK_SET 0x02
#define SRPW_TSK_CLEAR_TASK_SET 0x04
#define SRPW_TSK_LUN_RESET      0x08
#define SRPW_TSK_CLEAR_ACA      0x40

/* SRP_RSP flags */
#define SRPW_RSP_RSPVALID 0x01
#define SRPW_RSP_SNSVALID 0x02
#define SRPW_RSP_DOOVER   0x04
#define SRPW_RSP_DOUNDER  0x08
#define SRPW_RSP_DIOVER   0x10
#define SRPW_RSP_DIUNDER  0x20
#define SRPW_RSP_RESID_MASK 0x3c

/* RDMA/CM login request (private data of the CM REQ), 56 bytes */
struct srpw_login_req_rdma {
	uint64_t tag;                 /*  0 */
	uint16_t req_buf_fmt;         /*  8 */
	uint8_t  req_flags;           /* 10 */
	uint8_t  opcode;              /* 11 */
	uint32_t req_it_iu_len;       /* 12 */
	uint8_t  initiator_port_id[16]; /* 16 */
	uint8_t  target_port_id[16];  /* 32 */
	uint16_t imm_data_offset;     /* 48 */
	uint8_t  reserved[6];         /* 50 */
} PACKED;

struct srpw_login_rsp {
	uint8_t  opcode;
	uint8_t  reserved1[3];
	uint32_t req_lim_delta;       /*  4 */
	uint64_t tag;                 /*  8 */
	uint32_t max_it_iu_len;       /* 16 */
	uint32_t max_ti_iu_len;       /* 20 */
	uint16_t buf_fmt;             /* 24 */
	uint8_t  rsp_flags;           /* 26 */
	uint8_t  reserved2[25];
} PACKED;

struct srpw_login_rej {
	uint8_t  opcode;
	uint8_t  reserved1[3];
	uint32_t reason;              /*  4 */
	uint64_t tag;                 /*  8 */
	uint8_t  reserved2[8];
	uint16_t buf_fmt;             /* 24 */
	uint8_t  reserved3[6];
} PACKED;

struct srpw_i_logout {
	uint8_t  opcode;
	uint8_t  reserved[7];
	uint64_t tag;
} PACKED;

struct srpw_t_logout {
	uint8_t  opcode;
	uint8_t  sol_not;
	uint8_t  reserved[2];
	uint32_t reason;
	uint64_t tag;
} PACKED;

struct srpw_tsk_mgmt {
	uint8_t  opcode;
	uint8_t  sol_not;
	uint8_t  reserved1[6];
	uint64_t tag;                 /*  8 */
	uint8_t  reserved2[4];
	uint8_t  lun[8];              /* 20 */
	uint8_t  reserved3[2];
	uint8_t  tsk_mgmt_func;       /* 30 */
	uint8_t  reserved4;
	uint64_t task_tag;            /* 32 */
	uint8_t  reserved5[8];
} PACKED;

struct srpw_direct_buf {
	uint64_t va;
	uint32_t key;
	uint32_t len;
} PACKED;

struct srpw_indirect_hdr {
	struct srpw_direct_buf table_desc;
	uint32_t len;                 /* total length of all descriptors' data */
	/* followed by struct srpw_direct_buf desc_list[] */
} PACKED;

struct srpw_cmd {
	uint8_t  opcode;
	uint8_t  sol_not;
	uint8_t  reserved1[3];
	uint8_t  buf_fmt;             /*  5: data-out << 4 | data-in */
	uint8_t  data_out_desc_cnt;   /*  6 */
	uint8_t  data_in_desc_cnt;    /*  7 */
	uint64_t tag;                 /*  8 */
	uint8_t  reserved2[4];
	uint8_t  lun[8];              /* 20 */
	uint8_t  reserved3;
	uint8_t  task_attr;           /* 29 */
	uint8_t  reserved4;
	uint8_t  add_cdb_len;         /* 31 */
	uint8_t  cdb[16];             /* 32 */
	/* 48: additional CDB, then data-out descriptor(s), then data-in */
} PACKED;

struct srpw_rsp {
	uint8_t  opcode;
	uint8_t  sol_not;
	uint8_t  reserved1[2];
	uint32_t req_lim_delta;       /*  4 */
	uint64_t tag;                 /*  8 */
	uint8_t  reserved2[2];
	uint8_t  flags;               /* 18 */
	uint8_t  status;              /* 19 */
	uint32_t data_out_res_cnt;    /* 20 */
	uint32_t data_in_res_cnt;     /* 24 */
	uint32_t sense_data_len;      /* 28 */
	uint32_t resp_data_len;       /* 32 */
	/* 36: response data, then sense data */
} PACKED;

struct srpw_cred_req {
	uint8_t  opcode;
	uint8_t  sol_not;
	uint8_t  reserved[2];
	uint32_t req_lim_delta;
	uint64_t tag;
} PACKED;

struct srpw_cred_rsp {
	uint8_t  opcode;
	uint8_t  reserved[7];
	uint64_t tag;
} PACKED;

struct srpw_aer_req {
	uint8_t  opcode;
	uint8_t  sol_not;
	uint8_t  reserved[2];
	uint32_t req_lim_delta;
	uint64_t tag;
	uint8_t  reserved2[4];
	uint8_t  lun[8];
	uint32_t sense_data_len;
	uint8_t  reserved3[4];
} PACKED;

struct srpw_aer_rsp {
	uint8_t  opcode;
	uint8_t  reserved[7];
	uint64_t tag;
} PACKED;

_Static_assert(sizeof(struct srpw_login_req_rdma) == 56, "login req");
_Static_assert(sizeof(struct srpw_login_rsp) == 52, "login rsp");
_Static_assert(sizeof(struct srpw_login_rej) == 32, "login rej");
_Static_assert(sizeof(struct srpw_i_logout) == 16, "i_logout");
_Static_assert(sizeof(struct srpw_t_logout) == 16, "t_logout");
_Static_assert(sizeof(struct srpw_tsk_mgmt) == 48, "tsk_mgmt");
_Static_assert(sizeof(struct srpw_direct_buf) == 16, "direct");
_Static_assert(sizeof(struct srpw_indirect_hdr) == 20, "indirect");
_Static_assert(sizeof(struct srpw_cmd) == 48, "cmd");
_Static_assert(sizeof(struct srpw_rsp) == 36, "rsp");
_Static_assert(sizeof(struct srpw_cred_req) == 16, "cred_req");
_Static_assert(sizeof(struct srpw_aer_req) == 36, "aer_req");

#endif
