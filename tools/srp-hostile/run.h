/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RUN_H
#define RUN_H

#include "hostile.h"

#define MAXKV 48

struct kvs {
	int n;
	char *key[MAXKV];
	char *val[MAXKV];
	int klen[MAXKV];
	int used[MAXKV];
};

struct evalctx {
	struct conn *c;
	uint64_t xlen;
};

struct cfg {
	char dst[64], src[64];
	int port;
	uint8_t init_id[16], tgt_id[16];
	uint64_t guid;
	uint32_t max_req;
	int stock;
	int tmo;
	int none_ms;
	int health;
	int keep_going;
	int force;
	char mode[8];           /* receive mode of the target: ring or srq */
	int dry;                /* -D: build and print IUs, send nothing */
};

extern struct cfg g_cfg;

void kv_init(struct kvs *k, char **tok, int n);
const char *kv_get(struct kvs *k, const char *key);
int kv_has(struct kvs *k, const char *key);
int kv_unused(struct kvs *k, char *err, size_t errlen);
int kv_num(struct kvs *k, struct evalctx *x, const char *key, uint64_t *v, char *err, size_t errlen);
int eval(struct evalctx *x, const char *s, uint64_t *v);
int eval_sum(struct evalctx *x, const char **s, uint64_t *v);
int parse_hex(const char *s, uint8_t *out, int max);
int apply_pokes(struct kvs *k, struct evalctx *x, uint8_t *buf, int *len, int max, char *err, size_t errlen);
int build_cmd(struct conn *c, struct kvs *k, uint8_t *buf, int max, int *lenp,
	      uint64_t tag, uint32_t seed, char *err, size_t errlen);
int build_other(struct conn *c, const char *kind, struct kvs *k, uint8_t *buf, int max,
		int *lenp, uint64_t tag, char *err, size_t errlen);

/* run.c: a case run step by step, the health check, the kernel log */
struct rt;
struct rt *rt_open(int idx);
int rt_step(struct rt *r, const char *line, int *sent, char *err, size_t errlen);
int rt_alive(const struct rt *r);
void rt_outcome(const struct rt *r, char *out, size_t len);
void rt_close(struct rt *r);
int health(int idx, char *err, size_t errlen);
void kmsg_open(void);
int kmsg_check(char *err, size_t errlen);

/* fuzz.c */
struct fuzz_opts {
	uint64_t seed;
	uint64_t count;         /* IUs to send */
	int batch;              /* IUs per batch */
	int quiet;              /* a drain ends after this many ms without a response */
	uint64_t first;         /* the first batch */
	int shrink;             /* drop IUs of a failing batch while it fails */
	const char *save;       /* append the failing batch as a case to this file */
};
int fuzz_main(const struct fuzz_opts *fo);

#endif
