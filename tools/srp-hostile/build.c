// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - key=value argument handling, expression evaluation and the IU
 * templates of srp-hostile (SRP_CMD, SRP_TSK_MGMT, SRP_I_LOGOUT, raw bytes,
 * credit/AER responses, an in-band SRP_LOGIN_REQ).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
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

static int eval_symbol(struct evalctx *x, const char *sym, uint64_t *v);

/* eval_number: a number with an optional K or M suffix */
static int eval_number(const char **s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*s, &end, 0);
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

/* eval_atom: a number, a symbol or a parenthesized sum */
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
		*s = p;
		return eval_number(s, v);
	}
	while ((isalnum((unsigned char)*p) || *p == '_') && n < 31)
		sym[n++] = *p++;
	sym[n] = 0;
	*s = p;
	if (!n)
		return -1;
	return eval_symbol(x, sym, v);
}

/* eval_symbol: the value of a symbol of the current connection or run */
static int eval_symbol(struct evalctx *x, const char *sym, uint64_t *v)
{
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

/* poke_get: the WIDTH-bit big-endian value at P */
static uint64_t poke_get(const uint8_t *p, int width)
{
	switch (width) {
	case 16: return get_be16(p);
	case 32: return get_be32(p);
	case 64: return get_be64(p);
	}
	return p[0];
}

/* apply @OFF[:16|:32|:64]=VALUE overrides; VALUE ^MASK flips MASK's bits */
int apply_pokes(struct kvs *k, struct evalctx *x, uint8_t *buf, int *len, int max, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < k->n; i++) {
		char key[64];
		char *colon;
		const char *val;
		uint64_t off, v;
		int width = 8, flip;

		if (k->key[i][0] != '@')
			continue;
		k->used[i] = 1;
		snprintf(key, sizeof(key), "%.*s", k->klen[i] - 1, k->key[i] + 1);
		colon = strchr(key, ':');
		if (colon) {
			*colon = 0;
			width = atoi(colon + 1);
		}
		val = k->val[i];
		flip = val && val[0] == '^';
		if (eval(x, key, &off) || !val || eval(x, val + flip, &v) ||
		    (width != 8 && width != 16 && width != 32 && width != 64) ||
		    off + width / 8 > (uint64_t)max) {
			snprintf(err, errlen, "bad override %s", k->key[i]);
			return -1;
		}
		if (flip)
			v ^= poke_get(buf + off, width);
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

/* One IU being built by build_cmd() or build_other() and their helpers. */
struct iu_build {
	struct conn *c;
	struct kvs *k;
	struct evalctx x;
	uint8_t *buf;
	int max;
	int pos;                /* end of what is built so far */
	uint32_t seed;
	uint64_t lba, blocks, xlen, off, n;
	int dir;                /* bit0 out, bit1 in */
	int ofmt, ifmt;
	int64_t dlen_all, dlen_last;
	uint8_t cdb[16];
	char *err;
	size_t errlen;
};

static int iu_fail(struct iu_build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int iu_fail(struct iu_build *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int iu_too_long(struct iu_build *b)
{
	return iu_fail(b, "IU larger than the %d-byte send slot", b->max);
}

/* cmd_num: KEY's value in *V if the case gives it; -1 for a bad value */
static int iu_num(struct iu_build *b, const char *key, uint64_t *v)
{
	return kv_num(b->k, &b->x, key, v, b->err, b->errlen) < 0 ? -1 : 0;
}

/* cmd_byte: iu_num() for a one-byte header field */
static int iu_byte(struct iu_build *b, const char *key, uint8_t *p)
{
	uint64_t v = *p;

	if (iu_num(b, key, &v))
		return -1;
	*p = (uint8_t)v;
	return 0;
}

/* iu_length: LEN plus pad=, or len= instead, in *OUT */
static int iu_length(struct iu_build *b, int len, int *out)
{
	uint64_t pad = 0, v;

	if (iu_num(b, "pad", &pad))
		return -1;
	v = (uint64_t)(len + (int)pad);
	if (iu_num(b, "len", &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* iu_done: apply the @OFF pokes, then the IU's length in *LENP */
static int iu_done(struct iu_build *b, int len, int *lenp)
{
	if (apply_pokes(b->k, &b->x, b->buf, &len, b->max, b->err, b->errlen))
		return -1;
	*lenp = len;
	return 0;
}

/* cmd_op: CDB, transfer length and direction of op= (default tur) */
static int cmd_op(struct iu_build *b)
{
	const char *op = kv_get(b->k, "op");
	int rd;

	if (!op)
		op = "tur";
	if (iu_num(b, "lba", &b->lba) || iu_num(b, "blocks", &b->blocks))
		return -1;
	rd = op[0] == 'r';
	if (!strcmp(op, "tur") || !strcmp(op, "raw"))
		return 0;
	if (!strcmp(op, "read10") || !strcmp(op, "write10")) {
		b->cdb[0] = rd ? 0x28 : 0x2a;
		put_be32(b->cdb + 2, (uint32_t)b->lba);
		put_be16(b->cdb + 7, (uint16_t)b->blocks);
	} else if (!strcmp(op, "read16") || !strcmp(op, "write16")) {
		b->cdb[0] = rd ? 0x88 : 0x8a;
		put_be64(b->cdb + 2, b->lba);
		put_be32(b->cdb + 10, (uint32_t)b->blocks);
	} else if (!strcmp(op, "inquiry")) {
		b->cdb[0] = 0x12;
		put_be16(b->cdb + 3, 36);
		b->xlen = 36;
		b->dir = 2;
		return 0;
	} else {
		return iu_fail(b, "unknown op '%s'", op);
	}
	b->xlen = b->blocks * 512;
	b->dir = rd ? 2 : 1;
	return 0;
}

/* cmd_shape: cdb=, xlen= and dir= over what op= set */
static int cmd_shape(struct iu_build *b)
{
	static const char *const dirs[] = { "none", "out", "in", "both" };
	const char *s;
	int i;

	if ((s = kv_get(b->k, "cdb"))) {
		memset(b->cdb, 0, sizeof(b->cdb));
		if (parse_hex(s, b->cdb, 16) < 0)
			return iu_fail(b, "bad cdb=%s", s);
	}
	if (iu_num(b, "xlen", &b->xlen))
		return -1;
	b->x.xlen = b->xlen;
	s = kv_get(b->k, "dir");
	if (!s)
		return 0;
	for (i = 0; i < 4; i++)
		if (!strcmp(s, dirs[i])) {
			b->dir = i;
			return 0;
		}
	return iu_fail(b, "bad dir=%s", s);
}

/* cmd_formats: descriptor format per direction (direct, or fmt=) */
static int cmd_formats(struct iu_build *b)
{
	const char *s = kv_get(b->k, "fmt");

	b->ofmt = (b->dir & 1) ? SRPW_DESC_DIRECT : SRPW_DESC_NONE;
	b->ifmt = (b->dir & 2) ? SRPW_DESC_DIRECT : SRPW_DESC_NONE;
	if (s) {
		int f = fmt_code(s);

		if (f < 0)
			return iu_fail(b, "bad fmt=%s", s);
		if (b->dir & 1)
			b->ofmt = f;
		if ((b->dir & 2) && f != SRPW_DESC_IMM)
			b->ifmt = f;
	}
	if (b->ofmt == SRPW_DESC_IMM && !b->c->imm_off && !kv_has(b->k, "imm_at"))
		return iu_fail(b, "immediate data needs a login with imm_off or imm_at=");
	return 0;
}

/* cmd_header: opcode, tag, CDB and addcdb= extra CDB bytes */
static int cmd_header(struct iu_build *b, uint64_t tag)
{
	uint64_t addcdb = 0;
	int i;

	memset(b->buf, 0, b->max);
	b->buf[0] = SRPW_CMD;
	put_be64(b->buf + 8, tag);
	memcpy(b->buf + 32, b->cdb, 16);
	if (iu_num(b, "addcdb", &addcdb))
		return -1;
	if (48 + addcdb > (uint64_t)b->max)
		return iu_fail(b, "addcdb too large");
	b->buf[31] = (uint8_t)addcdb;
	for (i = 0; i < (int)addcdb; i++)
		b->buf[48 + i] = 0xa0 + i;
	b->pos = 48 + (int)addcdb;
	return 0;
}

/* desc_len_opt: a descriptor length override KEY in *LEN (-1: none) */
static int desc_len_opt(struct iu_build *b, const char *key, int64_t *len)
{
	const char *s = kv_get(b->k, key);
	uint64_t v;

	*len = -1;
	if (!s)
		return 0;
	if (eval(&b->x, s, &v))
		return iu_fail(b, "bad %s", key);
	*len = (int64_t)v;
	return 0;
}

/* cmd_desc_opts: off=, n= and the desc_len=/desc_last= length overrides */
static int cmd_desc_opts(struct iu_build *b)
{
	b->n = 2;
	if (iu_num(b, "off", &b->off) || iu_num(b, "n", &b->n))
		return -1;
	if (desc_len_opt(b, "desc_len", &b->dlen_all) ||
	    desc_len_opt(b, "desc_last", &b->dlen_last))
		return -1;
	return 0;
}

/* cmd_dout: dout=HEX: the data-out buffer holds these bytes, then zeros */
static int cmd_dout(struct iu_build *b)
{
	struct conn *c = b->c;
	const char *s = kv_get(b->k, "dout");

	if (!s)
		return 0;
	if (!(b->dir & 1) || !c->dbuf || b->off + b->xlen > c->dsz)
		return iu_fail(b, "dout= needs dir=out and xlen= within the data buffer");
	memset(c->dbuf + b->off, 0, b->xlen);
	if (hexbytes(s, c->dbuf + b->off, (int)b->xlen) < 0)
		return iu_fail(b, "bad dout=%s (hex bytes, at most xlen)", s);
	return 0;
}

/* cmd_fill_data: the data-out pattern (or dout=), ifill= in the data-in buffer */
static int cmd_fill_data(struct iu_build *b)
{
	struct conn *c = b->c;
	uint64_t ioff, ifill = 0;

	if ((b->dir & 1) && c->dbuf && b->off + b->xlen <= c->dsz)
		data_fill(c->dbuf + b->off, b->xlen, b->seed, b->lba);
	if (cmd_dout(b))
		return -1;
	if (!(b->dir & 2) || !c->dbuf)
		return 0;
	ioff = b->off + ((b->dir & 1) ? b->xlen : 0);
	if (iu_num(b, "ifill", &ifill))
		return -1;
	if (ioff + b->xlen <= c->dsz)
		memset(c->dbuf + ioff, (int)ifill, b->xlen);
	return 0;
}

/* desc_total: the sum of the lengths of N descriptors that split DLEN */
static uint64_t desc_total(uint64_t n, uint64_t dlen, int64_t dlen_all, int64_t dlen_last)
{
	uint64_t sum = 0;
	int j;

	for (j = 0; j < (int)n; j++) {
		uint64_t each = n ? dlen / n : 0;
		uint64_t l = j == (int)n - 1 ? dlen - each * (n - 1) : each;

		if (dlen_all >= 0)
			l = (uint64_t)dlen_all;
		if (j == (int)n - 1 && dlen_last >= 0)
			l = (uint64_t)dlen_last;
		sum += l;
	}
	return sum;
}

/* One direction's data buffer: address, key, length. */
struct cmd_buf {
	int is_out;
	uint64_t va, key, dlen;
};

static int cmd_put_direct(struct iu_build *b, const struct cmd_buf *d)
{
	if (b->pos + 16 > b->max)
		return iu_too_long(b);
	put_be64(b->buf + b->pos, d->va);
	put_be32(b->buf + b->pos + 8, (uint32_t)d->key);
	put_be32(b->buf + b->pos + 12, (uint32_t)d->dlen);
	b->pos += 16;
	return 0;
}

/*
 * cmd_put_indirect: table descriptor and inlist= of the n descriptors
 * in the IU (tbl_len, tbl_va, tbl_key, cnt, total override the header).
 */
static int cmd_put_indirect(struct iu_build *b, const struct cmd_buf *d)
{
	uint64_t n = b->n, cnt = n, inlist = n, tlen = n * 16, tva = 0, tkey = 0, total;
	uint8_t *p = b->buf + b->pos;

	if (iu_num(b, "inlist", &inlist) || iu_num(b, "tbl_len", &tlen) ||
	    iu_num(b, "tbl_va", &tva) || iu_num(b, "tbl_key", &tkey) ||
	    iu_num(b, "cnt", &cnt))
		return -1;
	total = desc_total(n, d->dlen, b->dlen_all, b->dlen_last);
	if (iu_num(b, "total", &total))
		return -1;
	if (b->pos + 20 + (int)inlist * 16 > b->max)
		return iu_too_long(b);
	put_be64(p, tva);
	put_be32(p + 8, (uint32_t)tkey);
	put_be32(p + 12, (uint32_t)tlen);
	put_be32(p + 16, (uint32_t)total);
	if (inlist > n) {
		/* entries beyond n stay zero */
		put_desc_list(p + 20, (int)n, d->va, (uint32_t)d->key, d->dlen, b->dlen_all,
			      b->dlen_last);
	} else {
		uint8_t tmp[255 * 16 * 2];

		if (n > 510)
			return iu_fail(b, "n too large");
		put_desc_list(tmp, (int)n, d->va, (uint32_t)d->key, d->dlen, b->dlen_all,
			      b->dlen_last);
		memcpy(p + 20, tmp, inlist * 16);
	}
	b->pos += 20 + (int)inlist * 16;
	b->buf[d->is_out ? 6 : 7] = (uint8_t)cnt;
	return 0;
}

/* cmd_put_imm: the immediate data descriptor, the data at imm_at= */
static int cmd_put_imm(struct iu_build *b, const struct cmd_buf *d)
{
	uint64_t ilen = d->dlen, at = b->c->imm_off, end;

	if (iu_num(b, "imm_len", &ilen) || iu_num(b, "imm_at", &at))
		return -1;
	if (b->pos + 4 > b->max)
		return iu_too_long(b);
	put_be32(b->buf + b->pos, (uint32_t)ilen);
	b->pos += 4;
	end = at + b->xlen;
	if (end > (uint64_t)b->max)
		return 0;
	if (at >= (uint64_t)b->pos) {
		data_fill(b->buf + at, b->xlen, b->seed, b->lba);
		b->pos = (int)end;
	} else if ((int)end > b->pos) {
		b->pos = (int)end;
	}
	return 0;
}

/* cmd_buf_of: a direction's buffer: its part of dbuf, or va=/key=/dlen= */
static int cmd_buf_of(struct iu_build *b, struct cmd_buf *d)
{
	static const char *const keys[] = { "va", "key", "dlen" };
	uint64_t *vals[] = { &d->va, &d->key, &d->dlen };
	uint64_t doff = b->off + ((!d->is_out && (b->dir & 1)) ? b->xlen : 0);
	char kname[32];
	int i;

	d->va = (uintptr_t)b->c->dbuf + doff;
	d->key = b->c->dmr ? b->c->dmr->rkey : 0;
	d->dlen = b->xlen;
	/* common overrides (va=, ...), then per direction ones (ova=, iva=, ...) */
	for (i = 0; i < 3; i++)
		if (iu_num(b, keys[i], vals[i]))
			return -1;
	for (i = 0; i < 3; i++) {
		snprintf(kname, sizeof(kname), "%s%s", d->is_out ? "o" : "i", keys[i]);
		if (iu_num(b, kname, vals[i]))
			return -1;
	}
	return 0;
}

/* cmd_descs: the data-out, then the data-in descriptor(s) */
static int cmd_descs(struct iu_build *b)
{
	struct cmd_buf d;
	int i, f, ret = 0;

	for (i = 0; i < 2 && !ret; i++) {
		d.is_out = i == 0;
		f = d.is_out ? b->ofmt : b->ifmt;
		if (!(b->dir & (d.is_out ? 1 : 2)))
			continue;
		if (cmd_buf_of(b, &d))
			return -1;
		if (f == SRPW_DESC_DIRECT)
			ret = cmd_put_direct(b, &d);
		else if (f == SRPW_DESC_INDIRECT)
			ret = cmd_put_indirect(b, &d);
		else if (f == SRPW_DESC_IMM)
			ret = cmd_put_imm(b, &d);
	}
	return ret;
}

/* cmd_fields: buf_fmt and the other header fields the case overrides, LUN */
static int cmd_fields(struct iu_build *b)
{
	static const struct { const char *key; int off; } fields[] = {
		{ "buf_fmt", 5 }, { "dout_cnt", 6 }, { "din_cnt", 7 }, { "opcode", 0 },
		{ "sol_not", 1 }, { "add_cdb_len", 31 }, { "task_attr", 29 },
	};
	uint64_t lun = 0;
	const char *s;
	size_t i;

	b->buf[5] = (uint8_t)(b->ofmt << 4 | b->ifmt);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (iu_byte(b, fields[i].key, b->buf + fields[i].off))
			return -1;
	if (iu_num(b, "lun", &lun))
		return -1;
	set_lun(b->buf + 20, lun);
	if ((s = kv_get(b->k, "lun_raw")) && parse_hex(s, b->buf + 20, 8) != 8)
		return iu_fail(b, "bad lun_raw");
	return 0;
}

/* cmd_length: pad= and len= on the built length, then the @OFF pokes */
static int cmd_length(struct iu_build *b, int *lenp)
{
	int len;

	if (iu_length(b, b->pos, &len))
		return -1;
	if (len > b->max || len < 0)
		return iu_too_long(b);
	return iu_done(b, len, lenp);
}

/*
 * SRP_CMD. Layout: 48-byte header, additional CDB bytes, data-out
 * descriptor(s), data-in descriptor(s); immediate data at the login's
 * imm_data_offset.
 */
int build_cmd(struct conn *c, struct kvs *k, uint8_t *buf, int max, int *lenp,
	      uint64_t tag, uint32_t seed, char *err, size_t errlen)
{
	struct iu_build b = {
		.c = c, .k = k, .x = { .c = c }, .buf = buf, .max = max, .seed = seed,
		.blocks = 1, .err = err, .errlen = errlen,
	};

	if (cmd_op(&b) || cmd_shape(&b) || cmd_formats(&b) || cmd_header(&b, tag) ||
	    cmd_desc_opts(&b) || cmd_fill_data(&b) || cmd_descs(&b) || cmd_fields(&b))
		return -1;
	return cmd_length(&b, lenp);
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

/* other_tsk: SRP_TSK_MGMT with func=, task_tag=, lun=, sol_not= */
static int other_tsk(struct iu_build *b, uint64_t tag)
{
	uint8_t *buf = b->buf;
	uint64_t v, lun = 0;
	const char *s;
	int r;

	buf[0] = SRPW_TSK_MGMT;
	put_be64(buf + 8, tag);
	buf[30] = SRPW_TSK_ABORT_TASK;
	if ((s = kv_get(b->k, "func"))) {
		if (tsk_func(s, &v) && eval(&b->x, s, &v))
			return iu_fail(b, "bad func=%s", s);
		buf[30] = (uint8_t)v;
	}
	r = kv_num(b->k, &b->x, "task_tag", &v, b->err, b->errlen);
	if (r < 0)
		return -1;
	if (r > 0)
		put_be64(buf + 32, v);
	if (iu_num(b, "lun", &lun))
		return -1;
	set_lun(buf + 20, lun);
	if (iu_byte(b, "sol_not", buf + 1))
		return -1;
	return 48;
}

/* other_login: an SRP_LOGIN_REQ IU (64 bytes, T10 layout) sent in-band */
static int other_login(struct iu_build *b, uint64_t tag)
{
	b->buf[0] = SRPW_LOGIN_REQ;
	put_be64(b->buf + 8, tag);
	put_be32(b->buf + 16, 8260);
	put_be16(b->buf + 24, SRPW_BUF_DIRECT | SRPW_BUF_INDIRECT);
	memcpy(b->buf + 32, g_cfg.init_id, 16);
	memcpy(b->buf + 48, g_cfg.tgt_id, 16);
	return 64;
}

/* other_template: the IU of KIND in b->buf; its length, or -1 */
static int other_template(struct iu_build *b, const char *kind, uint64_t tag)
{
	if (!strcmp(kind, "tsk"))
		return other_tsk(b, tag);
	if (!strcmp(kind, "login"))
		return other_login(b, tag);
	if (!strcmp(kind, "logout"))
		b->buf[0] = SRPW_I_LOGOUT;
	else if (!strcmp(kind, "cred_rsp"))
		b->buf[0] = SRPW_CRED_RSP;
	else if (!strcmp(kind, "aer_rsp"))
		b->buf[0] = SRPW_AER_RSP;
	else
		return iu_fail(b, "unknown IU template '%s'", kind);
	put_be64(b->buf + 8, tag);
	return 16;
}

/* other_finish: opcode=, pad=, len= and the @OFF pokes on a template */
static int other_finish(struct iu_build *b, int len, int *lenp)
{
	if (iu_byte(b, "opcode", b->buf) || iu_length(b, len, &len))
		return -1;
	if (len > b->max || len < 0)
		return iu_fail(b, "bad length");
	return iu_done(b, len, lenp);
}

/* other_raw: hex= bytes, zero- or fill=-extended to len=; tag=, opcode= */
static int other_raw(struct iu_build *b, uint64_t tag, int *lenp)
{
	uint64_t fill = 0, l;
	const char *s;
	int len = 16, i;

	if ((s = kv_get(b->k, "hex"))) {
		len = parse_hex(s, b->buf, b->max);
		if (len < 0)
			return iu_fail(b, "bad hex=");
	}
	if (iu_num(b, "fill", &fill))
		return -1;
	if ((s = kv_get(b->k, "len"))) {
		if (eval(&b->x, s, &l) || l > (uint64_t)b->max)
			return iu_fail(b, "bad len=%s", s);
		for (i = len; i < (int)l; i++)
			b->buf[i] = (uint8_t)fill;
		len = (int)l;
	}
	if (kv_has(b->k, "tag") && len >= 16)
		put_be64(b->buf + 8, tag);
	if (iu_byte(b, "opcode", b->buf))
		return -1;
	return iu_done(b, len, lenp);
}

/* build_other: the IUs other than SRP_CMD (templates tsk, logout, ..., raw) */
int build_other(struct conn *c, const char *kind, struct kvs *k, uint8_t *buf, int max,
		int *lenp, uint64_t tag, char *err, size_t errlen)
{
	struct iu_build b = {
		.c = c, .k = k, .x = { .c = c }, .buf = buf, .max = max,
		.err = err, .errlen = errlen,
	};
	int len;

	memset(buf, 0, max);
	if (!strcmp(kind, "raw"))
		return other_raw(&b, tag, lenp);
	len = other_template(&b, kind, tag);
	if (len < 0)
		return -1;
	return other_finish(&b, len, lenp);
}
