// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - key=value argument handling, expression evaluation and the IU
 * templates of srp-hostile (SRP_CMD, SRP_TSK_MGMT, SRP_I_LOGOUT, raw bytes,
 * credit/AER responses, an in-band SRP_LOGIN_REQ).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"
#include "run.h"

/* ---- key=value lists ---- */

void kv_init(struct kvs *k, char **tok, int n)
{
	int i;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < n && k->n < MAXKV; i++) {
		char *eq = strchr(tok[i], '=');

		k->key[k->n] = tok[i];
		k->val[k->n] = eq ? eq + 1 : NULL;
		k->klen[k->n] = eq ? (int)(eq - tok[i]) : (int)strlen(tok[i]);
		k->n++;
	}
}

const char *kv_get(struct kvs *k, const char *key)
{
	int i, l = strlen(key);

	for (i = 0; i < k->n; i++)
		if (k->klen[i] == l && !strncmp(k->key[i], key, l)) {
			k->used[i] = 1;
			return k->val[i] ? k->val[i] : "";
		}
	return NULL;
}

int kv_has(struct kvs *k, const char *key)
{
	return kv_get(k, key) != NULL;
}

/* report keys nobody asked for (typos in the case table) */
int kv_unused(struct kvs *k, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (!k->used[i] && k->key[i][0] != '@') {
			snprintf(err, errlen, "unknown argument '%s'", k->key[i]);
			return -1;
		}
	return 0;
}

/* ---- expressions: sums/products of numbers and symbols ---- */

static int eval_atom(struct evalctx *x, const char **s, uint64_t *v)
{
	const char *p = *s;
	char sym[32];
	int n = 0;

	while (*p == ' ')
		p++;
	if (*p == '(') {
		p++;
		if (eval_sum(x, &p, v))
			return -1;
		if (*p != ')')
			return -1;
		*s = p + 1;
		return 0;
	}
	if (isdigit((unsigned char)*p)) {
		char *end;

		errno = 0;
		*v = strtoull(p, &end, 0);
		if (errno)
			return -1;
		if (*end == 'K' || *end == 'k') {
			*v <<= 10;
			end++;
		} else if (*end == 'M') {
			*v <<= 20;
			end++;
		}
		*s = end;
		return 0;
	}
	while ((isalnum((unsigned char)*p) || *p == '_') && n < 31)
		sym[n++] = *p++;
	sym[n] = 0;
	*s = p;
	if (!n)
		return -1;
	if (!strcmp(sym, "base"))
		*v = x->c && x->c->dbuf ? (uintptr_t)x->c->dbuf : 0;
	else if (!strcmp(sym, "rkey"))
		*v = x->c && x->c->dmr ? x->c->dmr->rkey : 0;
	else if (!strcmp(sym, "dsz"))
		*v = x->c ? x->c->dsz : 0;
	else if (!strcmp(sym, "immoff"))
		*v = x->c ? x->c->imm_off : 0;
	else if (!strcmp(sym, "max_it"))
		*v = x->c ? x->c->max_it : 0;
	else if (!strcmp(sym, "last"))
		*v = x->c ? x->c->last_tag : 0;
	else if (!strcmp(sym, "credits"))
		*v = x->c ? x->c->lrsp_req_lim : 0;
	else if (!strcmp(sym, "maxreq"))
		*v = g_cfg.max_req;
	else if (!strcmp(sym, "guid"))
		*v = g_cfg.guid;
	else if (!strcmp(sym, "xlen"))
		*v = x->xlen;
	else if (!strcmp(sym, "u32max"))
		*v = 0xffffffffULL;
	else if (!strcmp(sym, "u64max"))
		*v = ~0ULL;
	else
		return -1;
	return 0;
}

static int eval_prod(struct evalctx *x, const char **s, uint64_t *v)
{
	uint64_t r;

	if (eval_atom(x, s, v))
		return -1;
	while (**s == '*') {
		(*s)++;
		if (eval_atom(x, s, &r))
			return -1;
		*v *= r;
	}
	return 0;
}

int eval_sum(struct evalctx *x, const char **s, uint64_t *v)
{
	uint64_t r;
	char op;

	if (eval_prod(x, s, v))
		return -1;
	while (**s == '+' || **s == '-') {
		op = *(*s)++;
		if (eval_prod(x, s, &r))
			return -1;
		*v = op == '+' ? *v + r : *v - r;
	}
	return 0;
}

int eval(struct evalctx *x, const char *s, uint64_t *v)
{
	const char *p = s;

	if (!s || eval_sum(x, &p, v) || *p)
		return -1;
	return 0;
}

/* get a numeric argument; returns 1 if present, 0 if absent, -1 on error */
int kv_num(struct kvs *k, struct evalctx *x, const char *key, uint64_t *v, char *err, size_t errlen)
{
	const char *s = kv_get(k, key);

	if (!s)
		return 0;
	if (eval(x, s, v)) {
		snprintf(err, errlen, "bad value %s=%s", key, s);
		return -1;
	}
	return 1;
}

static int hexbytes(const char *s, uint8_t *out, int max)
{
	int n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (s[0] && s[1] && n < max) {
		char b[3] = { s[0], s[1], 0 };
		char *end;

		if (s[0] == ':' || s[0] == '-') {
			s++;
			continue;
		}
		out[n++] = (uint8_t)strtoul(b, &end, 16);
		if (*end)
			return -1;
		s += 2;
		if (*s == ':' || *s == '-')
			s++;
	}
	if (*s)
		return -1;
	return n;
}

int parse_hex(const char *s, uint8_t *out, int max)
{
	return hexbytes(s, out, max);
}

/* apply @OFF[:16|:32|:64]=VALUE overrides */
int apply_pokes(struct kvs *k, struct evalctx *x, uint8_t *buf, int *len, int max, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < k->n; i++) {
		char key[64];
		char *colon;
		uint64_t off, v;
		int width = 8;

		if (k->key[i][0] != '@')
			continue;
		k->used[i] = 1;
		snprintf(key, sizeof(key), "%.*s", k->klen[i] - 1, k->key[i] + 1);
		colon = strchr(key, ':');
		if (colon) {
			*colon = 0;
			width = atoi(colon + 1);
		}
		if (eval(x, key, &off) || !k->val[i] || eval(x, k->val[i], &v) ||
		    (width != 8 && width != 16 && width != 32 && width != 64) ||
		    off + width / 8 > (uint64_t)max) {
			snprintf(err, errlen, "bad override %s", k->key[i]);
			return -1;
		}
		switch (width) {
		case 8: buf[off] = (uint8_t)v; break;
		case 16: put_be16(buf + off, (uint16_t)v); break;
		case 32: put_be32(buf + off, (uint32_t)v); break;
		case 64: put_be64(buf + off, v); break;
		}
		if ((int)(off + width / 8) > *len)
			*len = (int)(off + width / 8);
	}
	return 0;
}

/* ---- IU templates ---- */

static void set_lun(uint8_t *p, uint64_t lun)
{
	memset(p, 0, 8);
	if (lun < 256) {
		p[1] = (uint8_t)lun;
	} else {
		p[0] = 0x40 | ((lun >> 8) & 0x3f);
		p[1] = (uint8_t)lun;
	}
}

static int fmt_code(const char *s)
{
	if (!strcmp(s, "none"))
		return SRPW_DESC_NONE;
	if (!strcmp(s, "direct"))
		return SRPW_DESC_DIRECT;
	if (!strcmp(s, "indirect"))
		return SRPW_DESC_INDIRECT;
	if (!strcmp(s, "imm"))
		return SRPW_DESC_IMM;
	return -1;
}

#define NUM(key, var) do {						\
		uint64_t _v;						\
		int _r = kv_num(k, &x, key, &_v, err, errlen);		\
		if (_r < 0)						\
			return -1;					\
		if (_r > 0)						\
			var = _v;					\
	} while (0)

static int put_desc_list(uint8_t *p, int n, uint64_t va, uint32_t key, uint64_t xlen,
			 int64_t dlen_all, int64_t dlen_last)
{
	int i;
	uint64_t each = n ? xlen / n : 0, used = 0;

	for (i = 0; i < n; i++) {
		uint64_t l = (i == n - 1) ? xlen - used : each;

		if (dlen_all >= 0)
			l = (uint64_t)dlen_all;
		if (i == n - 1 && dlen_last >= 0)
			l = (uint64_t)dlen_last;
		put_be64(p + i * 16, va + used);
		put_be32(p + i * 16 + 8, key);
		put_be32(p + i * 16 + 12, (uint32_t)l);
		used += (i == n - 1) ? 0 : each;
	}
	return n * 16;
}

/*
 * SRP_CMD. Layout: 48-byte header, additional CDB bytes, data-out
 * descriptor(s), data-in descriptor(s); immediate data at the login's
 * imm_data_offset.
 */
int build_cmd(struct conn *c, struct kvs *k, uint8_t *buf, int max, int *lenp,
	      uint64_t tag, uint32_t seed, char *err, size_t errlen)
{
	struct evalctx x = { .c = c };
	const char *op = kv_get(k, "op"), *s;
	uint64_t lba = 0, blocks = 1, xlen = 0, lun = 0, v;
	int dir = 0; /* bit0 out, bit1 in */
	int ofmt, ifmt, len, pos, i;
	uint8_t cdb[16] = { 0 };
	uint64_t addcdb = 0, n = 2, off = 0;
	uint64_t va, key, dlen;
	int64_t dlen_all = -1, dlen_last = -1;

	if (!op)
		op = "tur";
	NUM("lba", lba);
	NUM("blocks", blocks);
	if (!strcmp(op, "tur")) {
		dir = 0;
	} else if (!strcmp(op, "read10") || !strcmp(op, "write10")) {
		cdb[0] = op[0] == 'r' ? 0x28 : 0x2a;
		put_be32(cdb + 2, (uint32_t)lba);
		put_be16(cdb + 7, (uint16_t)blocks);
		xlen = blocks * 512;
		dir = op[0] == 'r' ? 2 : 1;
	} else if (!strcmp(op, "read16") || !strcmp(op, "write16")) {
		cdb[0] = op[0] == 'r' ? 0x88 : 0x8a;
		put_be64(cdb + 2, lba);
		put_be32(cdb + 10, (uint32_t)blocks);
		xlen = blocks * 512;
		dir = op[0] == 'r' ? 2 : 1;
	} else if (!strcmp(op, "inquiry")) {
		cdb[0] = 0x12;
		put_be16(cdb + 3, 36);
		xlen = 36;
		dir = 2;
	} else if (!strcmp(op, "raw")) {
		dir = 0;
	} else {
		snprintf(err, errlen, "unknown op '%s'", op);
		return -1;
	}
	if ((s = kv_get(k, "cdb"))) {
		memset(cdb, 0, sizeof(cdb));
		if (parse_hex(s, cdb, 16) < 0) {
			snprintf(err, errlen, "bad cdb=%s", s);
			return -1;
		}
	}
	NUM("xlen", xlen);
	x.xlen = xlen;
	if ((s = kv_get(k, "dir"))) {
		if (!strcmp(s, "none"))
			dir = 0;
		else if (!strcmp(s, "out"))
			dir = 1;
		else if (!strcmp(s, "in"))
			dir = 2;
		else if (!strcmp(s, "both"))
			dir = 3;
		else {
			snprintf(err, errlen, "bad dir=%s", s);
			return -1;
		}
	}
	ofmt = (dir & 1) ? SRPW_DESC_DIRECT : SRPW_DESC_NONE;
	ifmt = (dir & 2) ? SRPW_DESC_DIRECT : SRPW_DESC_NONE;
	if ((s = kv_get(k, "fmt"))) {
		int f = fmt_code(s);

		if (f < 0) {
			snprintf(err, errlen, "bad fmt=%s", s);
			return -1;
		}
		if (dir & 1)
			ofmt = f;
		if ((dir & 2) && f != SRPW_DESC_IMM)
			ifmt = f;
	}
	if (ofmt == SRPW_DESC_IMM && !c->imm_off && !kv_has(k, "imm_at")) {
		snprintf(err, errlen, "immediate data needs a login with imm_off or imm_at=");
		return -1;
	}

	memset(buf, 0, max);
	buf[0] = SRPW_CMD;
	put_be64(buf + 8, tag);
	memcpy(buf + 32, cdb, 16);
	NUM("addcdb", addcdb);
	if (48 + addcdb > (uint64_t)max) {
		snprintf(err, errlen, "addcdb too large");
		return -1;
	}
	buf[31] = (uint8_t)addcdb;
	for (i = 0; i < (int)addcdb; i++)
		buf[48 + i] = 0xa0 + i;
	pos = 48 + (int)addcdb;

	NUM("off", off);
	NUM("n", n);
	if ((s = kv_get(k, "desc_len"))) {
		if (eval(&x, s, &v)) {
			snprintf(err, errlen, "bad desc_len");
			return -1;
		}
		dlen_all = (int64_t)v;
	}
	if ((s = kv_get(k, "desc_last"))) {
		if (eval(&x, s, &v)) {
			snprintf(err, errlen, "bad desc_last");
			return -1;
		}
		dlen_last = (int64_t)v;
	}

	/* data buffer contents for writes */
	if ((dir & 1) && c->dbuf && off + xlen <= c->dsz)
		data_fill(c->dbuf + off, xlen, seed, lba);
	if ((dir & 2) && c->dbuf) {
		uint64_t ioff = off + ((dir & 1) ? xlen : 0), ifill = 0;

		/* ifill=BYTE: what the data-in buffer holds before the target writes */
		NUM("ifill", ifill);
		if (ioff + xlen <= c->dsz)
			memset(c->dbuf + ioff, (int)ifill, xlen);
	}

	for (i = 0; i < 2; i++) {
		int is_out = i == 0, f = is_out ? ofmt : ifmt;
		uint64_t doff = off + ((!is_out && (dir & 1)) ? xlen : 0);
		const char *pfx = is_out ? "o" : "i";
		char kname[32];

		if (!(dir & (is_out ? 1 : 2)))
			continue;
		va = (uintptr_t)c->dbuf + doff;
		key = c->dmr ? c->dmr->rkey : 0;
		dlen = xlen;
		/* per-direction overrides (ova=, iva=...) and common ones (va=, ...) */
		NUM("va", va);
		NUM("key", key);
		NUM("dlen", dlen);
		snprintf(kname, sizeof(kname), "%sva", pfx); NUM(kname, va);
		snprintf(kname, sizeof(kname), "%skey", pfx); NUM(kname, key);
		snprintf(kname, sizeof(kname), "%sdlen", pfx); NUM(kname, dlen);
		if (f == SRPW_DESC_DIRECT) {
			if (pos + 16 > max)
				goto toolong;
			put_be64(buf + pos, va);
			put_be32(buf + pos + 8, (uint32_t)key);
			put_be32(buf + pos + 12, (uint32_t)dlen);
			pos += 16;
		} else if (f == SRPW_DESC_INDIRECT) {
			uint64_t cnt = n, inlist = n, tlen = n * 16, tva = 0, tkey = 0, total;
			uint64_t sum = 0;
			int j;

			NUM("inlist", inlist);
			NUM("tbl_len", tlen);
			NUM("tbl_va", tva);
			NUM("tbl_key", tkey);
			NUM("cnt", cnt);
			for (j = 0; j < (int)n; j++) {
				uint64_t each = n ? dlen / n : 0;
				uint64_t l = j == (int)n - 1 ? dlen - each * (n - 1) : each;

				if (dlen_all >= 0)
					l = (uint64_t)dlen_all;
				if (j == (int)n - 1 && dlen_last >= 0)
					l = (uint64_t)dlen_last;
				sum += l;
			}
			total = sum;
			NUM("total", total);
			if (pos + 20 + (int)inlist * 16 > max)
				goto toolong;
			put_be64(buf + pos, tva);
			put_be32(buf + pos + 8, (uint32_t)tkey);
			put_be32(buf + pos + 12, (uint32_t)tlen);
			put_be32(buf + pos + 16, (uint32_t)total);
			pos += 20;
			if (inlist > n) {
				/* extra entries beyond n: copies of garbage-free zeros */
				put_desc_list(buf + pos, (int)n, va, (uint32_t)key, dlen, dlen_all, dlen_last);
				pos += (int)inlist * 16;
			} else {
				uint8_t tmp[255 * 16 * 2];

				if (n > 510) {
					snprintf(err, errlen, "n too large");
					return -1;
				}
				put_desc_list(tmp, (int)n, va, (uint32_t)key, dlen, dlen_all, dlen_last);
				memcpy(buf + pos, tmp, inlist * 16);
				pos += (int)inlist * 16;
			}
			if (is_out)
				buf[6] = (uint8_t)cnt;
			else
				buf[7] = (uint8_t)cnt;
		} else if (f == SRPW_DESC_IMM) {
			uint64_t ilen = dlen, at = c->imm_off;

			NUM("imm_len", ilen);
			NUM("imm_at", at);
			if (pos + 4 > max)
				goto toolong;
			put_be32(buf + pos, (uint32_t)ilen);
			pos += 4;
			if (at + xlen <= (uint64_t)max && at >= (uint64_t)pos) {
				data_fill(buf + at, xlen, seed, lba);
				pos = (int)(at + xlen);
			} else if (at + xlen <= (uint64_t)max) {
				pos = (int)(at + xlen) > pos ? (int)(at + xlen) : pos;
			}
		} else if (f == SRPW_DESC_NONE) {
			/* nothing */
		}
	}

	buf[5] = (uint8_t)(ofmt << 4 | ifmt);
	NUM("buf_fmt", buf[5]);
	NUM("dout_cnt", buf[6]);
	NUM("din_cnt", buf[7]);
	NUM("opcode", buf[0]);
	NUM("sol_not", buf[1]);
	NUM("add_cdb_len", buf[31]);
	NUM("task_attr", buf[29]);
	if (kv_num(k, &x, "lun", &lun, err, errlen) < 0)
		return -1;
	set_lun(buf + 20, lun);
	if ((s = kv_get(k, "lun_raw")) && parse_hex(s, buf + 20, 8) != 8) {
		snprintf(err, errlen, "bad lun_raw");
		return -1;
	}
	len = pos;
	v = 0;
	NUM("pad", v);
	len += (int)v;
	NUM("len", len);
	if (len > max || len < 0)
		goto toolong;
	if (apply_pokes(k, &x, buf, &len, max, err, errlen))
		return -1;
	*lenp = len;
	return 0;
toolong:
	snprintf(err, errlen, "IU larger than the %d-byte send slot", max);
	return -1;
}

static int tsk_func(const char *s, uint64_t *v)
{
	static const struct { const char *n; int v; } f[] = {
		{ "abort", SRPW_TSK_ABORT_TASK }, { "abort_set", SRPW_TSK_ABORT_TASK_SET },
		{ "clear_set", SRPW_TSK_CLEAR_TASK_SET }, { "lun_reset", SRPW_TSK_LUN_RESET },
		{ "clear_aca", SRPW_TSK_CLEAR_ACA },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(s, f[i].n)) {
			*v = f[i].v;
			return 0;
		}
	return -1;
}

int build_other(struct conn *c, const char *kind, struct kvs *k, uint8_t *buf, int max,
		int *lenp, uint64_t tag, char *err, size_t errlen)
{
	struct evalctx x = { .c = c };
	uint64_t v, lun = 0;
	const char *s;
	int len;

	memset(buf, 0, max);
	if (!strcmp(kind, "tsk")) {
		buf[0] = SRPW_TSK_MGMT;
		put_be64(buf + 8, tag);
		buf[30] = SRPW_TSK_ABORT_TASK;
		if ((s = kv_get(k, "func"))) {
			if (tsk_func(s, &v) && eval(&x, s, &v)) {
				snprintf(err, errlen, "bad func=%s", s);
				return -1;
			}
			buf[30] = (uint8_t)v;
		}
		if (kv_num(k, &x, "task_tag", &v, err, errlen) < 0)
			return -1;
		else if (kv_has(k, "task_tag"))
			put_be64(buf + 32, v);
		if (kv_num(k, &x, "lun", &lun, err, errlen) < 0)
			return -1;
		set_lun(buf + 20, lun);
		NUM("sol_not", buf[1]);
		len = 48;
	} else if (!strcmp(kind, "logout")) {
		buf[0] = SRPW_I_LOGOUT;
		put_be64(buf + 8, tag);
		len = 16;
	} else if (!strcmp(kind, "cred_rsp") || !strcmp(kind, "aer_rsp")) {
		buf[0] = kind[0] == 'c' ? SRPW_CRED_RSP : SRPW_AER_RSP;
		put_be64(buf + 8, tag);
		len = 16;
	} else if (!strcmp(kind, "login")) {
		/* an SRP_LOGIN_REQ IU (64 bytes, T10 layout) sent over the channel */
		buf[0] = SRPW_LOGIN_REQ;
		put_be64(buf + 8, tag);
		put_be32(buf + 16, 8260);
		put_be16(buf + 24, SRPW_BUF_DIRECT | SRPW_BUF_INDIRECT);
		memcpy(buf + 32, g_cfg.init_id, 16);
		memcpy(buf + 48, g_cfg.tgt_id, 16);
		len = 64;
	} else if (!strcmp(kind, "raw")) {
		int fill = 0;

		len = 16;
		if ((s = kv_get(k, "hex"))) {
			len = parse_hex(s, buf, max);
			if (len < 0) {
				snprintf(err, errlen, "bad hex=");
				return -1;
			}
		}
		NUM("fill", fill);
		if ((s = kv_get(k, "len"))) {
			uint64_t l;
			int i;

			if (eval(&x, s, &l) || l > (uint64_t)max) {
				snprintf(err, errlen, "bad len=%s", s);
				return -1;
			}
			for (i = len; i < (int)l; i++)
				buf[i] = (uint8_t)fill;
			len = (int)l;
		}
		if (kv_has(k, "tag") && len >= 16)
			put_be64(buf + 8, tag);
		NUM("opcode", buf[0]);
		if (apply_pokes(k, &x, buf, &len, max, err, errlen))
			return -1;
		*lenp = len;
		return 0;
	} else {
		snprintf(err, errlen, "unknown IU template '%s'", kind);
		return -1;
	}
	NUM("opcode", buf[0]);
	v = 0;
	NUM("pad", v);
	len += (int)v;
	NUM("len", len);
	if (len > max || len < 0) {
		snprintf(err, errlen, "bad length");
		return -1;
	}
	if (apply_pokes(k, &x, buf, &len, max, err, errlen))
		return -1;
	*lenp = len;
	return 0;
}
