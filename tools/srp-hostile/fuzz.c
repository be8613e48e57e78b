// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.c - the fuzz mode of srp-hostile (-z SEED).
 *
 * Each batch is a case written by a pseudo-random generator: a login
 * (sometimes first a mutated one), then groups of send steps, each group
 * followed by a bounded drain. The steps are lines of the case language,
 * run by run.c's interpreter, and build.c builds their IUs, so a batch that
 * breaks the target prints as a case that can go into cases.txt as it is.
 * After every batch its channels are torn down and the health check of the
 * case runner follows (fresh login, WRITE/READ compare, no splat in the
 * kernel log).
 *
 * The generator of batch B depends on SEED and B only, so -j B repeats one
 * batch, and -D prints the steps and the bytes of every IU without a target.
 */
#include <stdarg.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "run.h"

/* ---- pseudo-random numbers ---- */

/* The state of a 64-bit generator: a Weyl sequence run through a mixer. */
struct rng {
	uint64_t s;
};

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 31)) * 0x7fb5d329728ea185ull;
	z = (z ^ (z >> 27)) * 0x81dadef4bc2dd44dull;
	return z ^ (z >> 33);
}

static uint64_t rnd(struct rng *g)
{
	g->s += 0x9e3779b97f4a7c15ull;
	return mix(g->s);
}

/* below: a number in [0, N) (N > 0) */
static uint64_t below(struct rng *g, uint64_t n)
{
	return rnd(g) % n;
}

/* chance: true PCT times in 100 */
static int chance(struct rng *g, int pct)
{
	return (int)below(g, 100) < pct;
}

#define PICK(g, arr) ((arr)[below((g), sizeof(arr) / sizeof((arr)[0]))])

/* ---- a batch: its steps and what each one mutates ---- */

#define MAXFIELDS 8
#define MAXARGS 40
#define LINELEN 1024
#define MAXSTEPS 2048

/*
 * One generated step: its name and key=value arguments (a key set twice
 * keeps the last value: the interpreter takes no repeated keys), the IU
 * or login type it sends (NULL: none) and the fields it mutates.
 */
struct gstep {
	char name[16];
	int nargs;
	char key[MAXARGS][16];
	char val[MAXARGS][80];  /* "" for a key without a value */
	const char *type;
	const char *field[MAXFIELDS];
	int nfield;
};

struct batch {
	struct rng g;
	int imm;                /* the valid login asks for immediate data */
	int nstep;
	struct gstep step[MAXSTEPS];
};

static struct gstep *st_new(struct batch *b, const char *name, const char *type)
{
	struct gstep *s = &b->step[b->nstep++];

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->type = type;
	return s;
}

static void st_vset(struct gstep *s, const char *key, const char *fmt, va_list ap)
{
	int i;

	for (i = 0; i < s->nargs; i++)
		if (!strcmp(s->key[i], key))
			break;
	if (i == s->nargs) {
		if (s->nargs == MAXARGS)
			return;
		s->nargs++;
		snprintf(s->key[i], sizeof(s->key[i]), "%s", key);
	}
	s->val[i][0] = 0;
	if (fmt)
		vsnprintf(s->val[i], sizeof(s->val[i]), fmt, ap);
}

/* st_set: argument KEY=VALUE (FMT NULL: KEY alone) */
static void st_set(struct gstep *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void st_set(struct gstep *s, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st_vset(s, key, fmt, ap);
	va_end(ap);
}

/* st_mut: st_set() of a mutated field, counted under FIELD */
static void st_mut(struct gstep *s, const char *field, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void st_mut(struct gstep *s, const char *field, const char *key, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < s->nfield; i++)
		if (!strcmp(s->field[i], field))
			break;
	if (i == s->nfield && s->nfield < MAXFIELDS)
		s->field[s->nfield++] = field;
	if (!key)
		return;
	va_start(ap, fmt);
	st_vset(s, key, fmt, ap);
	va_end(ap);
}

/* st_get: the value of argument KEY, NULL if there is none */
static const char *st_get(const struct gstep *s, const char *key)
{
	int i;

	for (i = 0; i < s->nargs; i++)
		if (!strcmp(s->key[i], key))
			return s->val[i];
	return NULL;
}

static int st_has(const struct gstep *s, const char *key)
{
	return st_get(s, key) != NULL;
}

/*
 * st_untracked: an SRP_CMD or SRP_TSK_MGMT that the target drops, as far
 * as the generator can tell: its opcode or tag changed, or cut shorter than
 * MINLEN (the tag for a command, the whole IU for task management). Sent
 * with notrack and credit, so that the drain does not wait for its answer
 * while the request limit still counts it.
 */
static void st_untracked(struct gstep *s, int minlen)
{
	const char *len = st_get(s, "len");
	int i, drop = st_has(s, "opcode");

	if (len && len[0] >= '0' && len[0] <= '9' && atoi(len) < minlen)
		drop = 1;
	for (i = 0; i < s->nargs; i++) {
		int off = s->key[i][0] == '@' ? atoi(s->key[i] + 1) : -1;

		if (off == 0 || (off >= 8 && off < 16))
			drop = 1;
	}
	if (drop) {
		st_set(s, "notrack", NULL);
		st_set(s, "credit", NULL);
	}
}

/* st_text: the step as a line of the case language */
static void st_text(const struct gstep *s, char *out, size_t len)
{
	size_t n;
	int i;

	snprintf(out, len, "%s", s->name);
	for (i = 0; i < s->nargs; i++) {
		n = strlen(out);
		snprintf(out + n, len - n, " %s%s%s", s->key[i], s->val[i][0] ? "=" : "", s->val[i]);
	}
}

static void hex_bytes(struct rng *g, char *out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", (unsigned)(rnd(g) & 0xff));
}

/* ---- values ---- */

/* byte values at and around the edges, or any byte */
static unsigned byte_val(struct rng *g)
{
	static const unsigned edge[] = { 0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff };

	return chance(g, 50) ? PICK(g, edge) : (unsigned)(rnd(g) & 0xff);
}

/* a 32-bit length at the edges or next to NEAR, as an expression */
static const char *len32(struct rng *g, char *buf, size_t len, uint64_t near)
{
	static const char *const edge[] = {
		"0", "1", "511", "512", "4095", "4096", "65536", "1M", "0x7fffffff",
		"0x80000000", "u32max", "u32max-511",
	};

	switch (below(g, 3)) {
	case 0:
		return PICK(g, edge);
	case 1:
		snprintf(buf, len, "%llu", (unsigned long long)(near + 1));
		return buf;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)(near ? near - 1 : 0));
		return buf;
	}
}

/*
 * SCSI operation codes a mutated CDB may carry: reads, writes, queries and
 * codes no device implements. Left out are the ones that change what the
 * health check sees (reservations, MODE SELECT, FORMAT UNIT, START STOP,
 * WRITE BUFFER, the ALUA and other MAINTENANCE OUT actions, SANITIZE,
 * EXTENDED COPY): those test LIO's core, not the SRP target.
 */
static const uint8_t cdb_ops[] = {
	0x00, 0x03, 0x08, 0x0a, 0x12, 0x1a, 0x25, 0x28, 0x2a, 0x2f, 0x35, 0x41,
	0x42, 0x4d, 0x5a, 0x5e, 0x7f, 0x88, 0x89, 0x8a, 0x8f, 0x91, 0x93, 0x9e,
	0xa0, 0xa3, 0xa8, 0xaa, 0x02, 0x06, 0x20, 0x60, 0xc0, 0xd5, 0xff,
};

/* LBAs at the end of the 64 MiB RAM disk and of the address spaces */
static const char *const lba_edge[] = {
	"131071", "131072", "131064", "0xffffffff", "0x100000000", "u64max", "u64max-7",
};

/* IU lengths: cut inside the header or a descriptor */
static const char *const iu_len_edge[] = {
	"0", "1", "4", "7", "8", "15", "16", "17", "20", "28", "31", "32", "35", "36",
	"47", "48", "49", "52", "63", "64", "67", "68", "80", "84",
};

/* longer than the target takes (maxreq+N: the target's receive fails) */
static const char *const iu_len_long[] = { "1024", "maxreq", "max_it", "maxreq+1", "maxreq+64" };

static const char *const dirs[] = { "none", "out", "in", "both" };

/* ---- SRP_CMD ---- */

/* The shape of the command being generated. */
struct cmd_gen {
	const char *op;
	int rw;                 /* a READ or WRITE with lba= */
	int dir;                /* bit 0 data-out, bit 1 data-in */
	int fmt;                /* SRPW_DESC_* of both directions */
	uint64_t xlen;
};

/* cmd_base: operation, LBA, length and descriptor format of a command */
static void cmd_base(struct batch *b, struct gstep *s, struct cmd_gen *c)
{
	static const char *const ops[] = {
		"tur", "read10", "write10", "read16", "write16", "inquiry", "raw",
		"read10", "write10",
	};
	struct rng *g = &b->g;
	uint64_t blocks = 1 + below(g, 16);
	char cdb[33];

	c->op = PICK(g, ops);
	st_set(s, "op", "%s", c->op);
	if (!strcmp(c->op, "tur")) {
		c->dir = 0;
	} else if (!strcmp(c->op, "inquiry")) {
		c->dir = 2;
		c->xlen = 36;
	} else if (!strcmp(c->op, "raw")) {
		snprintf(cdb, 3, "%02x", cdb_ops[below(g, sizeof(cdb_ops))]);
		hex_bytes(g, cdb + 2, 15);
		c->dir = (int)below(g, 4);
		c->xlen = c->dir ? 512 * (1 + below(g, 8)) : 0;
		st_mut(s, "cdb", "cdb", "%s", cdb);
		st_set(s, "dir", "%s", dirs[c->dir]);
		st_set(s, "xlen", "%llu", (unsigned long long)c->xlen);
	} else {
		c->rw = 1;
		c->dir = c->op[0] == 'r' ? 2 : 1;
		c->xlen = blocks * 512;
		st_set(s, "lba", "%llu", (unsigned long long)below(g, 131072 - 16));
		st_set(s, "blocks", "%llu", (unsigned long long)blocks);
	}
	switch (below(g, 20)) {
	case 0:
		c->fmt = SRPW_DESC_NONE;
		break;
	case 1: case 2: case 3: case 4: case 5: case 6: case 7:
		c->fmt = SRPW_DESC_INDIRECT;
		st_set(s, "n", "%d", 1 + (int)below(g, 4));
		break;
	case 8: case 9: case 10:
		c->fmt = (c->dir & 1) ? SRPW_DESC_IMM : SRPW_DESC_DIRECT;
		break;
	default:
		c->fmt = SRPW_DESC_DIRECT;
	}
	st_set(s, "fmt", "%s", (const char *[]){ "none", "direct", "indirect", "imm" }[c->fmt]);
}

/* cmd_mut_desc: mutate descriptor field W; 0 if it does not apply */
static int cmd_mut_desc(struct batch *b, struct gstep *s, struct cmd_gen *c, int w)
{
	struct rng *g = &b->g;
	char v[32];
	int ind = c->dir && c->fmt == SRPW_DESC_INDIRECT;
	int imm = (c->dir & 1) && c->fmt == SRPW_DESC_IMM;

	if (w <= 2 && !c->dir)
		return 0;
	if (w >= 3 && w <= 7 && !ind)
		return 0;
	if (w >= 8 && !imm)
		return 0;
	switch (w) {
	case 0:
		st_mut(s, "va", "va", "%s", PICK(g, ((const char *[]){
			"base+dsz-256", "0", "u64max", "base-4096", "base+dsz", "u64max-255",
			"base+1" })));
		break;
	case 1:
		st_mut(s, "key", "key", "%s", PICK(g, ((const char *[]){
			"rkey+1", "0", "u32max", "rkey-1" })));
		break;
	case 2:
		st_mut(s, "dlen", "dlen", "%s", len32(g, v, sizeof(v), c->xlen));
		break;
	case 3:
		st_mut(s, "inlist", "inlist", "%d", (int)below(g, 8));
		break;
	case 4:
		st_mut(s, "cnt", "cnt", "%u", byte_val(g));
		break;
	case 5:
		st_mut(s, "tbl_len", "tbl_len", "%s", PICK(g, ((const char *[]){
			"0", "15", "17", "16", "4080", "4096", "u32max", "0x80000000" })));
		break;
	case 6:
		st_mut(s, "tbl_va", "tbl_va", "%s", chance(g, 50) ? "base" : "0");
		st_set(s, "tbl_key", "%s", chance(g, 50) ? "rkey" : "0");
		break;
	case 7:
		st_mut(s, "n", "n", "%d", PICK(g, ((const int[]){ 0, 5, 8, 16, 64, 255 })));
		break;
	case 8:
		st_mut(s, "imm_len", "imm_len", "%s", len32(g, v, sizeof(v), c->xlen));
		break;
	default:
		st_mut(s, "imm_at", "imm_at", "%s", PICK(g, ((const char *[]){
			"0", "36", "47", "48", "52", "64", "67", "69", "72", "maxreq-512",
			"maxreq-1", "maxreq", "4096" })));
	}
	return 1;
}

/* cmd_mut_any: mutate descriptor-independent field W; 0 if it does not apply */
static int cmd_mut_any(struct batch *b, struct gstep *s, struct cmd_gen *c, int w)
{
	struct rng *g = &b->g;
	char v[32], raw[17];

	switch (w) {
	case 0:
		if (!c->rw)
			return 0;
		st_mut(s, "lba", "lba", "%s", PICK(g, lba_edge));
		break;
	case 1:
		if (!c->rw)
			return 0;
		st_mut(s, "blocks", "blocks", "%s", PICK(g, ((const char *[]){
			"0", "255", "256", "0xffff", "0x10000", "u32max" })));
		break;
	case 2:
		st_mut(s, "xlen", "xlen", "%s", len32(g, v, sizeof(v), c->xlen));
		break;
	case 3:
		st_mut(s, "buf_fmt", "buf_fmt", "%u", byte_val(g));
		break;
	case 4:
		st_mut(s, "dout_cnt", "dout_cnt", "%u", byte_val(g));
		break;
	case 5:
		st_mut(s, "din_cnt", "din_cnt", "%u", byte_val(g));
		break;
	case 6:
		st_mut(s, "add_cdb_len", "add_cdb_len", "%u", byte_val(g));
		break;
	case 7:
		st_mut(s, "addcdb", "addcdb", "%d", PICK(g, ((const int[]){ 1, 3, 4, 8, 16, 60, 100 })));
		break;
	case 8:
		st_mut(s, "task_attr", "task_attr", "%u",
		       chance(g, 50) ? (unsigned)below(g, 8) : byte_val(g));
		break;
	case 9:
		st_mut(s, "sol_not", "sol_not", "%u", byte_val(g));
		break;
	case 10:
		st_mut(s, "lun", "lun", "%d", PICK(g, ((const int[]){ 1, 2, 255, 256, 0x3fff })));
		break;
	case 11:
		hex_bytes(g, raw, 8);
		st_mut(s, "lun_raw", "lun_raw", "%s", raw);
		break;
	case 12:
		st_mut(s, "len", "len", "%s", chance(g, 90) ? PICK(g, iu_len_edge) : PICK(g, iu_len_long));
		break;
	case 13:
		st_mut(s, "pad", "pad", "%d", PICK(g, ((const int[]){ 1, 3, 4, 16, 100, 1000 })));
		break;
	case 14:
		st_mut(s, "tag", "tag", "%s", PICK(g, ((const char *[]){ "0", "u64max", "last" })));
		break;
	default:
		st_mut(s, "opcode", "opcode", "%u", byte_val(g));
	}
	return 1;
}

/* mut_poke: a byte in the first SPAN set to an edge value, or a bit flipped */
static void mut_poke(struct rng *g, struct gstep *s, int span)
{
	char key[16];
	int off = (int)below(g, span);

	snprintf(key, sizeof(key), "@%d", off);
	if (chance(g, 50))
		st_mut(s, "poke", key, "%u", byte_val(g));
	else
		st_mut(s, "flip", key, "^%u", 1u << below(g, 8));
}

static void gen_cmd(struct batch *b)
{
	struct gstep *s = st_new(b, "send", "cmd");
	struct rng *g = &b->g;
	struct cmd_gen c = { 0 };
	int k, tries, done = 0;

	st_set(s, "cmd", NULL);
	cmd_base(b, s, &c);
	k = chance(g, 25) ? 0 : 1 + (int)below(g, 3);
	/* the direction first: which descriptor fields apply depends on it */
	if (k && chance(g, 10)) {
		c.dir = (int)below(g, 4);
		st_mut(s, "dir", "dir", "%s", dirs[c.dir]);
		done++;
	}
	for (tries = 0; done < k && tries < 30; tries++) {
		int w = (int)below(g, 30);

		if (w < 10)
			done += cmd_mut_desc(b, s, &c, w);
		else if (w < 26)
			done += cmd_mut_any(b, s, &c, w - 10);
		else {
			mut_poke(g, s, 84);
			done++;
		}
	}
	/* immediate data without a login that asked for it: say where it is */
	if ((c.dir & 1) && c.fmt == SRPW_DESC_IMM && !b->imm && !st_has(s, "imm_at"))
		st_set(s, "imm_at", "68");
	st_untracked(s, 16);
	st_set(s, "nocredit", NULL);
	st_set(s, "mayfail", NULL);
}

/* ---- the other IU types ---- */

static void gen_tsk(struct batch *b)
{
	static const char *const funcs[] = {
		"abort", "abort", "abort_set", "clear_set", "lun_reset", "clear_aca",
	};
	struct gstep *s = st_new(b, "send", "tsk");
	struct rng *g = &b->g;
	int k = chance(g, 30) ? 0 : 1 + (int)below(g, 2), i;

	st_set(s, "tsk", NULL);
	st_set(s, "func", "%s", PICK(g, funcs));
	st_set(s, "task_tag", "last");
	for (i = 0; i < k; i++) {
		switch (below(g, 8)) {
		case 0:
			st_mut(s, "func", "func", "%u", byte_val(g));
			break;
		case 1:
			st_mut(s, "task_tag", "task_tag", "%s", PICK(g, ((const char *[]){
				"0", "u64max", "last+1", "last-1", "0x1000" })));
			break;
		case 2:
			st_mut(s, "lun", "lun", "%d", PICK(g, ((const int[]){ 1, 2, 255, 256, 0x3fff })));
			break;
		case 3:
			st_mut(s, "sol_not", "sol_not", "%u", byte_val(g));
			break;
		case 4:
			st_mut(s, "len", "len", "%s", PICK(g, iu_len_edge));
			break;
		case 5:
			st_mut(s, "pad", "pad", "%d", PICK(g, ((const int[]){ 1, 16, 100 })));
			break;
		case 6:
			st_mut(s, "opcode", "opcode", "%u", byte_val(g));
			break;
		default:
			mut_poke(g, s, 48);
		}
	}
	st_untracked(s, 48);
	st_set(s, "nocredit", NULL);
	st_set(s, "mayfail", NULL);
}

/* raw: an IU of a type the target does not take, or a garbage one */
static void gen_raw(struct batch *b)
{
	static const uint8_t ops[] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x10, 0x3f, 0x40, 0x43, 0x7f, 0x80, 0x81,
		0x82, 0x83, 0xc0, 0xc1, 0xc2, 0xc3, 0xff,
	};
	struct gstep *s = st_new(b, "send", "raw");
	struct rng *g = &b->g;

	unsigned op = chance(g, 70) ? PICK(g, ops) : (unsigned)(rnd(g) & 0xff);

	st_set(s, "raw", NULL);
	st_mut(s, "opcode", "opcode", "0x%02x", op);
	st_mut(s, "len", "len", "%s", chance(g, 95) ? PICK(g, iu_len_edge) : PICK(g, iu_len_long));
	if (chance(g, 50))
		st_mut(s, "fill", "fill", "%u", byte_val(g));
	if (chance(g, 80))
		st_set(s, "tag", "%u", (unsigned)below(g, 0x10000));
	/* every IU uses a credit but SRP_I_LOGOUT, SRP_CRED_RSP, SRP_AER_RSP */
	if (op != SRPW_I_LOGOUT && op != SRPW_CRED_RSP && op != SRPW_AER_RSP) {
		st_set(s, "credit", NULL);
		st_set(s, "nocredit", NULL);
	}
	st_set(s, "mayfail", NULL);
}

/* SRP_CRED_RSP or SRP_AER_RSP nobody asked for, SRP_LOGIN_REQ in-band, SRP_I_LOGOUT */
static void gen_tmpl(struct batch *b, const char *kind, const char *type)
{
	struct gstep *s = st_new(b, "send", type);
	struct rng *g = &b->g;

	st_set(s, kind, NULL);
	if (chance(g, 50))
		st_mut(s, "tag", "tag", "%s", PICK(g, ((const char *[]){ "0", "last", "u64max", "1" })));
	if (chance(g, 30))
		st_mut(s, "len", "len", "%s", PICK(g, iu_len_edge));
	if (chance(g, 30))
		mut_poke(g, s, 64);
	/* SRP_I_LOGOUT and the responses use no credit, an in-band login does */
	if (!strcmp(kind, "login")) {
		st_set(s, "credit", NULL);
		st_set(s, "nocredit", NULL);
	}
	st_set(s, "mayfail", NULL);
}

/* credits abused: more IUs than the request limit allows, without waiting */
static void gen_abuse(struct batch *b)
{
	struct rng *g = &b->g;
	int cmd = chance(g, 50);
	struct gstep *s = st_new(b, "send", cmd ? "cmd" : "raw");

	if (cmd) {
		st_set(s, "cmd", NULL);
		st_set(s, "op", "%s", chance(g, 50) ? "tur" : "read10");
	} else {
		st_set(s, "raw", NULL);
		st_set(s, "opcode", "0x04");
		st_set(s, "len", "64");
		st_set(s, "credit", NULL);
	}
	st_mut(s, "credit_abuse", "count", "credits+%d", PICK(g, ((const int[]){ 1, 8, 32 })));
	st_set(s, "mayfail", NULL);
}

static void gen_iu(struct batch *b)
{
	int w = (int)below(&b->g, 100);

	if (w < 58)
		gen_cmd(b);
	else if (w < 74)
		gen_tsk(b);
	else if (w < 86)
		gen_raw(b);
	else if (w < 91)
		gen_tmpl(b, "cred_rsp", "cred_rsp");
	else if (w < 95)
		gen_tmpl(b, "aer_rsp", "aer_rsp");
	else if (w < 97)
		gen_tmpl(b, "login", "login_iu");
	else if (w < 98)
		gen_tmpl(b, "logout", "i_logout");
	else if (chance(&b->g, 5))
		gen_abuse(b);
	else
		gen_cmd(b);
}

/* ---- logins ---- */

/* a login with fields of the SRP_LOGIN_REQ (CM private data) or of the CM mutated */
static void gen_bad_login(struct batch *b)
{
	struct gstep *s = st_new(b, "login", "cm_login");
	struct rng *g = &b->g;
	int k = 1 + (int)below(g, 3), i;
	char id[33], key[16];

	st_set(s, "want", "any");
	for (i = 0; i < k; i++) {
		switch (below(g, 14)) {
		case 0:
			st_mut(s, "iu_len", "iu_len", "%s", PICK(g, ((const char *[]){
				"0", "63", "64", "65", "maxreq-1", "maxreq+1", "u32max", "0x10000",
				"0x80000000" })));
			break;
		case 1:
			st_mut(s, "buf_fmt", "buf_fmt", "%u", chance(g, 50) ? (unsigned)below(g, 16) :
			       (unsigned)(rnd(g) & 0xffff));
			break;
		case 2:
			st_mut(s, "flags", "flags", "%u", byte_val(g));
			break;
		case 3:
			st_mut(s, "opcode", "opcode", "%u", byte_val(g));
			break;
		case 4:
			st_mut(s, "tag", "tag", "%llu", (unsigned long long)rnd(g));
			break;
		case 5:
			st_set(s, "imm", NULL);
			st_mut(s, "imm_off", "imm_off", "%s", PICK(g, ((const char *[]){
				"0", "1", "47", "48", "63", "64", "67", "69", "72", "maxreq-1",
				"maxreq", "0xffff" })));
			break;
		case 6:
			hex_bytes(g, id, 16);
			st_mut(s, "tgt_id", "tgt_id", "%s", chance(g, 30) ? "zero" : id);
			break;
		case 7:
			hex_bytes(g, id, 16);
			st_mut(s, "init_id", "init_id", "%s", id);
			break;
		case 8:
			st_mut(s, "pdlen", "pdlen", "%d", PICK(g, ((const int[]){
				0, 1, 8, 11, 12, 16, 32, 47, 48, 50, 55 })));
			break;
		case 9:
		case 10:
			snprintf(key, sizeof(key), "@%d", (int)below(g, 56));
			st_mut(s, "pdata", key, "%u", byte_val(g));
			break;
		case 11:
			st_mut(s, "rdma_depth", "resp_res", "%d", (int)below(g, 3));
			st_set(s, "init_depth", "%d", (int)below(g, 3));
			break;
		case 12:
			st_mut(s, "recv", "recv", "%d", 1 + (int)below(g, 4));
			break;
		default:
			st_mut(s, "multi", "multi", NULL);
		}
	}
}

/* the login of a batch, and again when its channel has gone */
static void login_line(int imm, char *out, size_t len)
{
	snprintf(out, len, "login want=any%s", imm ? " imm" : "");
}

/*
 * gen_batch: the steps of batch BNO of SEED with IUS IU-sending steps:
 * perhaps a mutated login, the login, then groups of 1 to 16 sends, each
 * followed by a drain that waits until every command is answered, nothing
 * has come for QUIET ms, or 2 s have passed.
 */
static void gen_batch(struct batch *b, uint64_t seed, uint64_t bno, int ius, int quiet)
{
	struct rng *g = &b->g;
	struct gstep *s;
	int n = 0, grp;

	b->nstep = 0;
	g->s = mix(seed ^ 0x5eed5eed5eedull) + mix(bno + 1);
	b->imm = chance(g, 50);
	if (chance(g, 30))
		gen_bad_login(b);
	s = st_new(b, "login", NULL);
	st_set(s, "want", "any");
	if (b->imm)
		st_set(s, "imm", NULL);
	while (n < ius && b->nstep < MAXSTEPS - 20) {
		grp = 1 + (int)below(g, 16);
		while (grp-- > 0 && n < ius) {
			gen_iu(b);
			n++;
		}
		s = st_new(b, "drain", NULL);
		st_set(s, "ms", "2000");
		st_set(s, "quiet", "%d", quiet);
	}
}

/* ---- counters ---- */

struct counter {
	char name[64];
	uint64_t n;
};

#define MAXCOUNT 256

/* Counts of the run: IUs per type and per mutated field, events by kind. */
struct tallies {
	struct counter type[MAXCOUNT], field[MAXCOUNT], resp[MAXCOUNT];
	int ntype, nfield, nresp;
};

static struct tallies T;

static void bump(struct counter *t, int *n, const char *name, uint64_t by)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(t[i].name, name)) {
			t[i].n += by;
			return;
		}
	if (*n == MAXCOUNT)
		return;
	snprintf(t[*n].name, sizeof(t[*n].name), "%s", name);
	t[(*n)++].n = by;
}

/* ev_count: what the target sent or did, by kind (g_ev_hook) */
static void ev_count(const struct conn *c, enum ev_type t, const uint8_t *p, int len)
{
	char k[48];

	(void)c;
	if (t == EV_DISC)
		snprintf(k, sizeof(k), "disconnect");
	else if (t == EV_DEAD)
		snprintf(k, sizeof(k), "qp-error (our QP)");
	else if (len >= 40 && p[0] == SRPW_RSP && (p[18] & SRPW_RSP_RSPVALID))
		snprintf(k, sizeof(k), "SRP_RSP task management code=%u", p[39]);
	else if (len >= 36 && p[0] == SRPW_RSP && p[19] == 2 && (p[18] & SRPW_RSP_SNSVALID) &&
		 36 + get_be32(p + 32) + 14 <= (uint32_t)len)
		snprintf(k, sizeof(k), "SRP_RSP check key=0x%x asc=0x%02x/0x%02x",
			 p[36 + get_be32(p + 32) + 2] & 0xf, p[36 + get_be32(p + 32) + 12],
			 p[36 + get_be32(p + 32) + 13]);
	else if (len >= 20 && p[0] == SRPW_RSP)
		snprintf(k, sizeof(k), "SRP_RSP status=0x%02x", p[19]);
	else if (len >= 1 && p[0] == SRPW_T_LOGOUT)
		snprintf(k, sizeof(k), "SRP_T_LOGOUT");
	else if (len >= 1 && p[0] == SRPW_CRED_REQ)
		snprintf(k, sizeof(k), "SRP_CRED_REQ");
	else if (len >= 1 && p[0] == SRPW_AER_REQ)
		snprintf(k, sizeof(k), "SRP_AER_REQ");
	else
		snprintf(k, sizeof(k), "other IU opcode=0x%02x len=%d", len ? p[0] : 0, len);
	bump(T.resp, &T.nresp, k, 1);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct counter *)a)->name, ((const struct counter *)b)->name);
}

static void print_table(const char *title, struct counter *t, int n)
{
	int i;

	qsort(t, n, sizeof(*t), by_name);
	printf("fuzz: %s (%d)\n", title, n);
	for (i = 0; i < n; i++)
		printf("fuzz:   %-44s %10llu\n", t[i].name, (unsigned long long)t[i].n);
}

/* ---- running a batch ---- */

/* The steps a batch really ran (with the logins added when its channel went). */
struct record {
	int n;
	char line[MAXSTEPS + 64][LINELEN];
};

/* Totals of the run. */
struct run_totals {
	uint64_t ius, steps_failed, relogins, batches, health;
};

static struct run_totals R;

/* Where the time of the run went, in microseconds. */
struct phase_times {
	uint64_t login, send, drain, other, health, teardown;
};

static struct phase_times P;

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* phase_add: the time since T0 (now_us()) to the counter of step NAME */
static void phase_add(const char *name, uint64_t t0)
{
	uint64_t d = now_us() - t0;

	if (!strcmp(name, "login"))
		P.login += d;
	else if (!strcmp(name, "send"))
		P.send += d;
	else if (!strcmp(name, "drain"))
		P.drain += d;
	else
		P.other += d;
}

/* at most this many logins are added to a batch whose channel goes down */
#define MAX_RELOGIN 16

static void record_add(struct record *rec, const char *line)
{
	if (rec->n < (int)(sizeof(rec->line) / sizeof(rec->line[0])))
		snprintf(rec->line[rec->n++], LINELEN, "%s", line);
}

/* exec_line: run step TEXT of batch BNO in R, count what it sent */
static void exec_line(struct rt *r, const struct gstep *s, const char *text, uint64_t bno,
		      struct record *rec, uint64_t *sent)
{
	char err[1024], name[64];
	uint64_t t0 = now_us();
	int n = 0, i, ret;

	if (g_cfg.dry)
		printf("%s\n", text);
	record_add(rec, text);
	if (g_cfg.dry && strcmp(s->name, "login") && strcmp(s->name, "send"))
		return;
	ret = rt_step(r, text, &n, err, sizeof(err));
	phase_add(s->name, t0);
	if (ret) {
		R.steps_failed++;
		vlog("batch %llu: step failed: %s: %s", (unsigned long long)bno, text, err);
		if (g_cfg.dry)
			printf("  step failed: %s\n", err);
	}
	if (!g_cfg.dry && !strcmp(s->name, "login")) {
		char got[256];

		rt_outcome(r, got, sizeof(got));
		got[strcspn(got, "(")] = 0;     /* fail(why): the why varies */
		snprintf(name, sizeof(name), "login %s%.40s", s->type ? "(mutated) " : "", got);
		bump(T.resp, &T.nresp, name, 1);
	}
	if (!s->type)
		return;
	/* a login counts once, an IU step by the IUs it sent */
	if (!strcmp(s->name, "login"))
		n = 1;
	else
		*sent += (uint64_t)n;
	bump(T.type, &T.ntype, s->type, (uint64_t)n);
	for (i = 0; i < s->nfield; i++) {
		snprintf(name, sizeof(name), "%s.%s", s->type, s->field[i]);
		bump(T.field, &T.nfield, name, (uint64_t)n);
	}
	if (!s->nfield && strcmp(s->name, "login")) {
		snprintf(name, sizeof(name), "%s.(valid)", s->type);
		bump(T.field, &T.nfield, name, (uint64_t)n);
	}
}

/* run_batch: the steps of B (batch BNO); the IUs sent */
static uint64_t run_batch(struct batch *b, uint64_t bno, struct record *rec)
{
	struct rt *r = rt_open((int)(bno & 0xffff));
	struct gstep relogin = { .name = "login" };
	char text[LINELEN];
	uint64_t sent = 0, t0;
	int i, relogins = 0;

	rec->n = 0;
	if (g_cfg.dry)
		printf("batch %llu\n", (unsigned long long)bno);
	for (i = 0; i < b->nstep; i++) {
		const struct gstep *s = &b->step[i];

		if (!g_cfg.dry && !strcmp(s->name, "send") && !rt_alive(r) &&
		    relogins < MAX_RELOGIN) {
			login_line(b->imm, text, sizeof(text));
			exec_line(r, &relogin, text, bno, rec, &sent);
			relogins++;
			R.relogins++;
		}
		st_text(s, text, sizeof(text));
		exec_line(r, s, text, bno, rec, &sent);
	}
	t0 = now_us();
	rt_close(r);
	P.teardown += now_us() - t0;
	return sent;
}

/* run_lines: run recorded steps again (shrinking); 0 if the target stayed healthy */
static int run_lines(struct record *rec, const char *skip, uint64_t bno, char *why, size_t wl)
{
	struct rt *r = rt_open((int)(bno & 0xffff));
	char err[1024];
	int i, n;

	kmsg_check(err, sizeof(err));
	for (i = 0; i < rec->n; i++)
		if (!skip[i])
			rt_step(r, rec->line[i], &n, err, sizeof(err));
	rt_close(r);
	if (health((int)(bno & 0xffff), why, wl))
		return -1;
	return kmsg_check(why, wl);
}

/* check_target: the health check after batch BNO; 0, or -1 and WHY */
static int check_target(uint64_t bno, char *why, size_t wl)
{
	void (*hook)(const struct conn *, enum ev_type, const uint8_t *, int) = g_ev_hook;
	char kerr[1024] = "";
	uint64_t t0 = now_us();
	int ret;

	/* the health check's own responses are not counted */
	g_ev_hook = NULL;
	R.health++;
	ret = health((int)(bno & 0xffff), why, wl);
	g_ev_hook = hook;
	P.health += now_us() - t0;
	if (kmsg_check(kerr, sizeof(kerr))) {
		if (ret)
			snprintf(why + strlen(why), wl - strlen(why), "; %.900s", kerr);
		else
			snprintf(why, wl, "%.900s", kerr);
		ret = -1;
	}
	return ret;
}

/*
 * shrink: drop steps of the failing batch (never a login) while it still
 * fails, halves first, then smaller pieces down to single steps; stops
 * when the target no longer recovers between tries. KEEP[i] is 0 for the
 * steps dropped.
 */
static void shrink(struct record *rec, uint64_t bno, char *keep)
{
	char why[1024], skip[sizeof(rec->line) / sizeof(rec->line[0])];
	int chunk, i, j, tries = 0;

	memset(keep, 1, rec->n);
	for (chunk = rec->n / 2; chunk >= 1 && tries < 200; chunk /= 2) {
		for (i = 0; i < rec->n && tries < 200; i += chunk) {
			int any = 0;

			for (j = 0; j < rec->n; j++)
				skip[j] = !keep[j];
			for (j = i; j < i + chunk && j < rec->n; j++)
				if (keep[j] && strncmp(rec->line[j], "login", 5)) {
					skip[j] = 1;
					any = 1;
				}
			if (!any)
				continue;
			tries++;
			if (run_lines(rec, skip, bno, why, sizeof(why))) {
				for (j = 0; j < rec->n; j++)
					keep[j] = !skip[j];
				for (j = 0, any = 0; j < rec->n; j++)
					any += keep[j];
				printf("fuzz: shrink: %d steps still fail (%.200s)\n", any, why);
				pump(2000);
				if (health(0, why, sizeof(why))) {
					printf("fuzz: shrink: the target does not recover, stopping\n");
					return;
				}
			}
		}
	}
}

/* print_case: the batch as a case of the table, to F */
static void print_case(FILE *f, const struct fuzz_opts *fo, uint64_t bno, const struct record *rec,
		       const char *keep, const char *why)
{
	int i;

	fprintf(f, "case fuzz-%llx-%llu\n", (unsigned long long)fo->seed, (unsigned long long)bno);
	fprintf(f, "  why found by srp-hostile -z 0x%llx -j %llu -b %d -q %d -N 1: %s\n",
		(unsigned long long)fo->seed, (unsigned long long)bno, fo->batch, fo->quiet, why);
	for (i = 0; i < rec->n; i++)
		if (!keep || keep[i])
			fprintf(f, "  %s\n", rec->line[i]);
}

/* failed: batch BNO left the target unhealthy: the case, shrunk if it can be */
static void failed(const struct fuzz_opts *fo, uint64_t bno, struct record *rec, const char *why)
{
	static char keep[MAXSTEPS + 64];
	char h[1024];
	FILE *f;

	printf("fuzz: FAIL seed=0x%llx batch=%llu: %s\n", (unsigned long long)fo->seed,
	       (unsigned long long)bno, why);
	print_case(stdout, fo, bno, rec, NULL, why);
	memset(keep, 1, sizeof(keep));
	if (fo->shrink) {
		pump(2000);
		if (health(0, h, sizeof(h))) {
			printf("fuzz: the target did not recover (%s): not shrinking\n", h);
		} else {
			shrink(rec, bno, keep);
			printf("fuzz: shrunk:\n");
			print_case(stdout, fo, bno, rec, keep, why);
		}
	}
	if (fo->save) {
		f = fopen(fo->save, "a");
		if (!f) {
			perror(fo->save);
			return;
		}
		fprintf(f, "\n");
		print_case(f, fo, bno, rec, keep, why);
		fclose(f);
		printf("fuzz: case appended to %s\n", fo->save);
	}
}

static void summary(const struct fuzz_opts *fo, uint64_t t0, int reports)
{
	double secs = (double)(now_ms() - t0) / 1000.0;

	print_table("IUs sent by type (cm_login: logins with mutated fields, not IUs)", T.type, T.ntype);
	print_table("IUs sent by mutated field", T.field, T.nfield);
	if (!g_cfg.dry)
		print_table("what came back (and how logins ended)", T.resp, T.nresp);
	printf("fuzz: steps_failed=%llu relogins=%llu health_checks=%llu seconds=%.1f\n",
	       (unsigned long long)R.steps_failed, (unsigned long long)R.relogins,
	       (unsigned long long)R.health, secs);
	if (!g_cfg.dry)
		printf("fuzz: seconds in logins=%.1f sends=%.1f drains=%.1f other-steps=%.1f teardown=%.1f health-checks=%.1f\n",
		       P.login / 1e6, P.send / 1e6, P.drain / 1e6, P.other / 1e6, P.teardown / 1e6,
		       P.health / 1e6);
	printf("fuzz: seed=0x%llx ius=%llu batches=%llu ius_per_s=%.0f reports=%d%s\n",
	       (unsigned long long)fo->seed, (unsigned long long)R.ius,
	       (unsigned long long)R.batches, secs > 0 ? (double)R.ius / secs : 0.0, reports,
	       g_cfg.dry ? " (dry run)" : "");
}

int fuzz_main(const struct fuzz_opts *fo)
{
	static struct batch b;
	static struct record rec;
	uint64_t t0 = now_ms(), bno, last_note = t0, sent;
	char why[1024];
	int idle = 0;

	printf("fuzz: start seed=0x%llx ius=%llu batch=%d first=%llu mode=%s%s\n",
	       (unsigned long long)fo->seed, (unsigned long long)fo->count, fo->batch,
	       (unsigned long long)fo->first, g_cfg.mode, g_cfg.dry ? " (dry run)" : "");
	fflush(stdout);
	if (!g_cfg.dry) {
		kmsg_check(why, sizeof(why));   /* older lines are not ours */
		if (health(0, why, sizeof(why))) {
			printf("FATAL: target not usable before the first batch: %s\n", why);
			return 1;
		}
		g_ev_hook = ev_count;
	}
	for (bno = fo->first; R.ius < fo->count; bno++) {
		gen_batch(&b, fo->seed, bno, fo->batch, fo->quiet);
		sent = run_batch(&b, bno, &rec);
		R.ius += sent;
		R.batches++;
		idle = sent ? 0 : idle + 1;
		if (g_cfg.dry)
			continue;
		if (check_target(bno, why, sizeof(why))) {
			g_ev_hook = NULL;
			failed(fo, bno, &rec, why);
			summary(fo, t0, 1);
			return 1;
		}
		if (idle >= 10) {
			printf("fuzz: FAIL: no IU could be sent in 10 batches in a row\n");
			summary(fo, t0, 0);
			return 1;
		}
		if (now_ms() - last_note >= 30000) {
			last_note = now_ms();
			printf("fuzz: batch %llu ius=%llu ius_per_s=%.0f\n", (unsigned long long)bno,
			       (unsigned long long)R.ius,
			       (double)R.ius * 1000.0 / (double)(now_ms() - t0 + 1));
			fflush(stdout);
		}
	}
	g_ev_hook = NULL;
	summary(fo, t0, 0);
	return 0;
}
