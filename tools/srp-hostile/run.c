// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - the case-table interpreter and main() of srp-hostile.
 *
 * A case table is a text file; see cases.txt for the grammar. Each case is
 * a list of steps (login, send, expect, ...). After each case all of its
 * connections are torn down and a health check runs: a fresh login, then a
 * WRITE(10) + READ(10) with data compare. New kernel log lines that look
 * like a splat (WARNING/BUG/Oops/...) fail the case too.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "ibcm.h"
#include "run.h"

struct cfg g_cfg;

#define MAXLINES 64
#define MAXCASES 1024
#define MAXDEF 128
#define MAXTOK 64
#define IUMAX (1 << 16)
/* the credits of a connection that -D only pretends to log in */
#define DRY_CREDITS 128

struct kase {
	char name[96];
	char stock[16];         /* "", "bad", "crash" */
	char mode[8];           /* "": any receive mode, else ring or srq only */
	int nline;
	char *line[MAXLINES];
	int lineno[MAXLINES];
};

static struct kase cases[MAXCASES];
static int ncases;
static char *defname[MAXDEF], *defval[MAXDEF];
static int ndef;
static FILE *subres;
static int kmsg_fd = -1;

struct rt {
	struct kase *k;
	int idx;
	struct conn *cur;
	struct conn *conns[MAXCONN];
	int nconn;
	char *finally[8];
	int nfinally;
	unsigned long last_pass;        /* when the last expect step's event came */
	char err[1024];
	int skip;
	uint32_t seed;
	const char *rest;       /* the current step's text after its name */
	int sent;               /* IUs the last send step sent */
	int done;               /* a login with else=end failed: the case ends */
};

static void rt_fail(struct rt *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rt_fail(struct rt *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
}

/* ---- case file ---- */

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int load_cases(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	int ln = 0;
	struct kase *k = NULL;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *s, *hash;

		ln++;
		s = trim(buf);
		/* comments: '#' at line start or after whitespace */
		for (hash = s; (hash = strchr(hash, '#')); hash++)
			if (hash == s || isspace((unsigned char)hash[-1])) {
				*hash = 0;
				break;
			}
		s = trim(s);
		if (!*s)
			continue;
		if (!strncmp(s, "define ", 7)) {
			char *name = trim(s + 7), *val = name;

			while (*val && !isspace((unsigned char)*val))
				val++;
			if (*val)
				*val++ = 0;
			if (ndef >= MAXDEF) {
				fprintf(stderr, "%s:%d: too many defines\n", path, ln);
				return -1;
			}
			defname[ndef] = strdup(name);
			defval[ndef++] = strdup(trim(val));
			continue;
		}
		if (!strncmp(s, "case ", 5)) {
			char *tok, *save;

			if (ncases >= MAXCASES) {
				fprintf(stderr, "%s:%d: too many cases\n", path, ln);
				return -1;
			}
			k = &cases[ncases++];
			tok = strtok_r(s + 5, " \t", &save);
			snprintf(k->name, sizeof(k->name), "%s", tok ? tok : "?");
			while ((tok = strtok_r(NULL, " \t", &save))) {
				if (!strncmp(tok, "stock=", 6)) {
					snprintf(k->stock, sizeof(k->stock), "%s", tok + 6);
				} else if (!strcmp(tok, "mode=ring") || !strcmp(tok, "mode=srq")) {
					snprintf(k->mode, sizeof(k->mode), "%s", tok + 5);
				} else {
					fprintf(stderr, "%s:%d: unknown case attribute '%s'\n", path, ln, tok);
					return -1;
				}
			}
			continue;
		}
		if (!k) {
			fprintf(stderr, "%s:%d: step outside a case\n", path, ln);
			return -1;
		}
		if (!strncmp(s, "why ", 4) || !strcmp(s, "why"))
			continue;
		if (k->nline >= MAXLINES) {
			fprintf(stderr, "%s:%d: case too long\n", path, ln);
			return -1;
		}
		k->lineno[k->nline] = ln;
		k->line[k->nline++] = strdup(s);
	}
	fclose(f);
	return 0;
}

/* expand $NAME / ${NAME} from defines, then the environment */
static int expand(const char *in, char *out, size_t outlen, char *missing, size_t mlen, int depth)
{
	size_t o = 0;

	while (*in) {
		if (*in == '$' && (isalpha((unsigned char)in[1]) || in[1] == '_' || in[1] == '{')) {
			char name[64];
			int n = 0, brace = in[1] == '{', i;
			const char *val = NULL;
			char sub[4096];

			in += 1 + brace;
			while ((isalnum((unsigned char)*in) || *in == '_') && n < 63)
				name[n++] = *in++;
			name[n] = 0;
			if (brace && *in == '}')
				in++;
			for (i = ndef - 1; i >= 0; i--)
				if (!strcmp(defname[i], name)) {
					val = defval[i];
					break;
				}
			if (!val)
				val = getenv(name);
			if (!val || (!*val && i < 0)) {
				snprintf(missing, mlen, "%s", name);
				return -1;
			}
			if (depth < 8) {
				if (expand(val, sub, sizeof(sub), missing, mlen, depth + 1))
					return -1;
				val = sub;
			}
			if (o + strlen(val) >= outlen)
				return -1;
			strcpy(out + o, val);
			o += strlen(val);
			continue;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = *in++;
	}
	out[o] = 0;
	return 0;
}

static int tokenize(char *s, char **tok, int max)
{
	int n = 0;
	char *save, *t;

	for (t = strtok_r(s, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	return n;
}

/* ---- helpers ---- */

static int parse_id16(const char *s, uint8_t *out)
{
	const char *colon = strchr(s, ':');
	struct evalctx x = { 0 };

	if (!strcmp(s, "zero")) {
		memset(out, 0, 16);
		return 0;
	}
	if (colon && strlen(s) < 60 && !strchr(colon + 1, ':')) {
		char a[64];
		uint64_t hi, lo;

		snprintf(a, sizeof(a), "%.*s", (int)(colon - s), s);
		if (eval(&x, a, &hi) || eval(&x, colon + 1, &lo))
			return -1;
		put_be64(out, hi);
		put_be64(out + 8, lo);
		return 0;
	}
	memset(out, 0, 16);
	return parse_hex(s, out, 16) == 16 ? 0 : -1;
}

static const char *st_name(enum cstate s)
{
	switch (s) {
	case CS_FREE: return "free";
	case CS_RESOLVING: return "resolving";
	case CS_ROUTED: return "routed";
	case CS_CONNECTING: return "connecting";
	case CS_EST: return "established";
	case CS_REJ: return "rejected";
	case CS_FAIL: return "failed";
	case CS_DISC: return "disconnected";
	case CS_CLOSED: return "closed";
	case CS_RTU_WAIT: return "rtu-wait";
	}
	return "?";
}

/* describe how a login ended: "ok", "rej:REASON", "cmrej:N", "fail" */
static void login_outcome(struct conn *c, char *out, size_t len)
{
	if (c->st == CS_EST || c->st == CS_RTU_WAIT || ((c->st == CS_DISC) && c->have_lrsp))
		snprintf(out, len, c->have_lrsp ? "ok" : "ok-without-login-rsp");
	else if (c->st == CS_REJ && c->have_rej_iu)
		snprintf(out, len, "rej:%s", rej_name(c->rej_reason));
	else if (c->st == CS_REJ)
		snprintf(out, len, "cmrej:%d", c->rej_status);
	else
		snprintf(out, len, "fail(%s%s%s)", st_name(c->st), c->failwhy[0] ? ": " : "", c->failwhy);
}

static int want_match(const char *want, const char *got)
{
	char w[256], *save, *t;

	snprintf(w, sizeof(w), "%s", want);
	for (t = strtok_r(w, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
		if (!strcmp(t, "any") || !strcmp(t, got))
			return 1;
		if (!strcmp(t, "rej") && !strncmp(got, "rej:", 4))
			return 1;
		if (!strcmp(t, "cmrej") && !strncmp(got, "cmrej:", 6))
			return 1;
		if (!strcmp(t, "fail") && !strncmp(got, "fail", 4))
			return 1;
		if (!strcmp(t, "norsp") && (!strncmp(got, "fail", 4) || !strncmp(got, "cmrej:", 6)))
			return 1;
	}
	return 0;
}

static void rt_add(struct rt *r, struct conn *c)
{
	if (r->nconn < MAXCONN)
		r->conns[r->nconn++] = c;
	r->cur = c;
}

static struct conn *rt_conn(struct rt *r, const char *s)
{
	int i;

	if (!s || !*s || !strcmp(s, "cur"))
		return r->cur;
	if (!strcmp(s, "last"))
		return r->nconn ? r->conns[r->nconn - 1] : NULL;
	i = atoi(s);
	return i >= 0 && i < r->nconn ? r->conns[i] : NULL;
}

/* ---- I/O helper: well-formed WRITE(10)/READ(10) with compare ---- */

struct tagmatch { uint64_t tag; };

static int match_rsp_tag(const struct ev *e, void *arg)
{
	struct tagmatch *m = arg;

	return e->type == EV_IU && e->len >= 16 && e->data[0] == SRPW_RSP &&
	       get_be64(e->data + 8) == m->tag;
}

static void describe_ev(const struct ev *e, char *out, size_t len)
{
	if (e->type == EV_DISC) {
		snprintf(out, len, "disconnect");
	} else if (e->type == EV_DEAD) {
		snprintf(out, len, "QP error");
	} else if (e->len >= 36 && e->data[0] == SRPW_RSP) {
		const uint8_t *p = e->data;
		uint32_t slen = get_be32(p + 28), rlen = get_be32(p + 32);
		char sense[96] = "";

		if ((p[18] & SRPW_RSP_SNSVALID) && slen >= 14 && 36 + rlen + 14 <= (uint32_t)e->len) {
			const uint8_t *sn = p + 36 + rlen;

			snprintf(sense, sizeof(sense), " sense key=0x%x asc=0x%02x ascq=0x%02x",
				 sn[2] & 0xf, sn[12], sn[13]);
		}
		if ((p[18] & SRPW_RSP_RSPVALID) && rlen >= 4 && 36 + 4 <= e->len)
			snprintf(sense + strlen(sense), sizeof(sense) - strlen(sense),
				 " rspcode=%u", p[36 + 3]);
		snprintf(out, len, "SRP_RSP tag=0x%llx status=0x%02x flags=0x%02x dores=%u dires=%u delta=%u%s",
			 (unsigned long long)get_be64(p + 8), p[19], p[18], get_be32(p + 20),
			 get_be32(p + 24), get_be32(p + 4), sense);
	} else if (e->len >= 8 && e->data[0] == SRPW_T_LOGOUT) {
		snprintf(out, len, "SRP_T_LOGOUT reason=0x%x", get_be32(e->data + 4));
	} else {
		snprintf(out, len, "IU opcode=0x%02x len=%d", e->len ? e->data[0] : 0, e->len);
	}
}

static int wait_rsp(struct conn *c, uint64_t tag, int tmo, struct ev **out, char *err, size_t errlen)
{
	uint64_t end = now_ms() + tmo;
	struct tagmatch m = { tag };

	for (;;) {
		*out = conn_take(c, match_rsp_tag, &m);
		if (*out)
			return 0;
		if (!conn_alive(c)) {
			snprintf(err, errlen, "connection lost (%s%s)", c->disc ? "disconnected " : "",
				 c->dead ? c->deadwhy : "");
			return -1;
		}
		if (now_ms() >= end) {
			snprintf(err, errlen, "timeout: no SRP_RSP for tag 0x%llx within %d ms",
				 (unsigned long long)tag, tmo);
			return -1;
		}
		pump(1);
	}
}

/* one SCSI command with retries on UNIT ATTENTION; returns status or -1 */
static int scsi_cmd(struct conn *c, const char *op, uint64_t lun, uint64_t lba, uint64_t blocks,
		    uint64_t off, uint32_t seed, char *err, size_t errlen)
{
	char a1[32], a2[32], a3[32], a4[32], a5[48], a6[32];
	char *tok[7] = { a1, a2, a3, a4, a5, a6, NULL };
	struct kvs k;
	uint8_t buf[256];
	int len, try, st = -1;

	for (try = 0; try < 4; try++) {
		uint64_t tag = ++c->next_tag;
		struct ev *e;
		char d[256];

		snprintf(a1, sizeof(a1), "op=%s", op);
		snprintf(a2, sizeof(a2), "lba=%llu", (unsigned long long)lba);
		snprintf(a3, sizeof(a3), "blocks=%llu", (unsigned long long)blocks);
		snprintf(a4, sizeof(a4), "off=%llu", (unsigned long long)off);
		snprintf(a5, sizeof(a5), "fmt=direct");
		snprintf(a6, sizeof(a6), "lun=%llu", (unsigned long long)lun);
		kv_init(&k, tok, 6);
		if (build_cmd(c, &k, buf, sizeof(buf), &len, tag, seed, err, errlen))
			return -1;
		if (!strncmp(op, "read", 4))
			memset(c->dbuf + off, 0, blocks * 512);
		c->last_tag = tag;
		tag_add(c, tag);
		c->req_lim--;
		if (conn_send(c, buf, len, g_cfg.tmo, err, errlen))
			return -1;
		if (wait_rsp(c, tag, g_cfg.tmo, &e, err, errlen))
			return -1;
		st = e->len >= 20 ? e->data[19] : -1;
		describe_ev(e, d, sizeof(d));
		if (st == 2 && e->len >= 36 + 14 && (e->data[18] & SRPW_RSP_SNSVALID) &&
		    (e->data[36 + get_be32(e->data + 32) + 2] & 0xf) == 6) {
			vlog("unit attention, retrying: %s", d);
			ev_free(e);
			continue;
		}
		if (st == 8) { /* BUSY: retry after a moment */
			ev_free(e);
			pump(50);
			continue;
		}
		if (st != 0)
			snprintf(err, errlen, "%s failed: %s", op, d);
		ev_free(e);
		return st;
	}
	snprintf(err, errlen, "%s: still unit attention/busy after 4 tries", op);
	return st;
}

static int do_io(struct conn *c, uint64_t lun, uint64_t lba, uint64_t blocks, uint32_t seed,
		 char *err, size_t errlen)
{
	size_t n = blocks * 512;
	uint8_t *want;
	size_t i;

	if (!c || !conn_alive(c)) {
		snprintf(err, errlen, "io: no live connection");
		return -1;
	}
	if (2 * n > c->dsz) {
		snprintf(err, errlen, "io: data buffer too small");
		return -1;
	}
	if (scsi_cmd(c, "write10", lun, lba, blocks, 0, seed, err, errlen))
		return -1;
	if (scsi_cmd(c, "read10", lun, lba, blocks, n, seed, err, errlen))
		return -1;
	want = malloc(n);
	if (!want)
		abort();
	data_fill(want, n, seed, lba);
	for (i = 0; i < n; i++)
		if (c->dbuf[n + i] != want[i])
			break;
	free(want);
	if (i < n) {
		snprintf(err, errlen, "io: data mismatch at byte %zu of %zu (lba %llu)", i, n,
			 (unsigned long long)lba);
		return -1;
	}
	return 0;
}

/* ---- steps ---- */

/* run_login_opts: the defaults of this run's logins (target, port IDs) */
static void run_login_opts(struct login_opts *o)
{
	login_defaults(o);
	snprintf(o->dst, sizeof(o->dst), "%s", g_cfg.dst);
	snprintf(o->src, sizeof(o->src), "%s", g_cfg.src);
	o->port = g_cfg.port;
	o->service_id = g_cfg.guid;
	o->login.iu_len = g_cfg.max_req;
	memcpy(o->login.init_id, g_cfg.init_id, 16);
	memcpy(o->login.tgt_id, g_cfg.tgt_id, 16);
}

/* A login step: the options, how many logins, and the answer awaited. */
struct login_step {
	struct login_opts o;
	uint64_t count, tmo, id_step;
	const char *want;
	int nowait;
	int end_unless_ok;      /* else=end */
};

/* login_numbers: the numeric options of a login step, in table order */
static int login_numbers(struct rt *r, struct kvs *k, struct login_step *ls)
{
	struct login_opts *o = &ls->o;
	struct evalctx x = { 0 };
	uint64_t v;

#define LNUM(key, field) do {						\
		if (kv_num(k, &x, key, &v, r->err, sizeof(r->err)) < 0)	\
			return -1;					\
		if (kv_has(k, key))					\
			field = v;					\
	} while (0)
	LNUM("tag", o->login.tag);
	LNUM("buf_fmt", o->login.buf_fmt);
	LNUM("flags", o->login.flags);
	LNUM("opcode", o->login.opcode);
	LNUM("iu_len", o->login.iu_len);
	LNUM("imm_off", o->login.imm_off);
	LNUM("pdlen", o->pdlen);
	LNUM("rnr", o->rnr_retry);
	LNUM("retry", o->retry);
	LNUM("resp_res", o->resp_res);
	LNUM("init_depth", o->init_depth);
	LNUM("recv", o->nrecv);
	LNUM("rsz", o->rsz);
	LNUM("slots", o->nslot);
	LNUM("ssz", o->ssz);
	LNUM("data", o->dsz);
	LNUM("repost", o->repost);
	LNUM("autocred", o->auto_cred);
	LNUM("port", o->port);
	LNUM("cm_tmo", o->cm_tmo);
	LNUM("cm_retries", o->cm_retries);
	LNUM("sid", o->service_id);
	LNUM("rtu_delay", o->rtu_delay);
	if (kv_has(k, "early_rts"))
		o->early_rts = 1;
	LNUM("count", ls->count);
	LNUM("tmo", ls->tmo);
	LNUM("id_step", ls->id_step);
#undef LNUM
	return 0;
}

/* login_pokes: @OFF=BYTE overrides of the login's private data */
static int login_pokes(struct rt *r, struct kvs *k, struct login_opts *o)
{
	struct evalctx x = { 0 };
	uint64_t off, v;
	char key[32];
	int i;

	for (i = 0; i < k->n; i++) {
		if (k->key[i][0] != '@')
			continue;
		k->used[i] = 1;
		snprintf(key, sizeof(key), "%.*s", k->klen[i] - 1, k->key[i] + 1);
		if (o->npoke >= 16 || eval(&x, key, &off) || !k->val[i] || eval(&x, k->val[i], &v)) {
			rt_fail(r, "bad login override %s", k->key[i]);
			return -1;
		}
		o->poke_off[o->npoke] = (int)off;
		o->poke_val[o->npoke++] = (uint8_t)v;
	}
	return 0;
}

/* login_parse: a login step's arguments into LS */
static int login_parse(struct rt *r, char **tok, int n, struct login_step *ls)
{
	struct login_opts *o = &ls->o;
	struct kvs k;
	const char *s;

	run_login_opts(o);
	ls->count = 1;
	ls->id_step = 0;
	ls->tmo = g_cfg.tmo;
	kv_init(&k, tok, n);
	if (kv_has(&k, "multi"))
		o->login.flags |= SRPW_MULTICHAN_MULTI;
	if (kv_has(&k, "imm")) {
		o->login.flags |= SRPW_IMMED_REQUESTED;
		o->login.imm_off = 68;
	}
	if (login_numbers(r, &k, ls))
		return -1;
	if ((s = kv_get(&k, "init_id")) && parse_id16(s, o->login.init_id)) {
		rt_fail(r, "bad init_id=%s", s);
		return -1;
	}
	if ((s = kv_get(&k, "tgt_id")) && parse_id16(s, o->login.tgt_id)) {
		rt_fail(r, "bad tgt_id=%s", s);
		return -1;
	}
	if ((s = kv_get(&k, "src")))
		snprintf(o->src, sizeof(o->src), "%s", s);
	if ((s = kv_get(&k, "dst")))
		snprintf(o->dst, sizeof(o->dst), "%s", s);
	s = kv_get(&k, "want");
	ls->want = s ? s : "ok";
	ls->nowait = kv_has(&k, "nowait");
	s = kv_get(&k, "else");
	if (s && strcmp(s, "end")) {
		rt_fail(r, "bad else=%s (else=end only)", s);
		return -1;
	}
	ls->end_unless_ok = s != NULL;
	o->nortu = kv_has(&k, "nortu");
	if (login_pokes(r, &k, o))
		return -1;
	return kv_unused(&k, r->err, sizeof(r->err));
}

/*
 * login_one: start login I of LS and, unless nowait, check its answer.
 * With id_step=N, login I's initiator port ID has its initiator_ext (the
 * first 8 bytes) increased by I * N: each login is an I_T nexus of its own.
 */
static int login_one(struct rt *r, const struct login_step *ls, int i)
{
	struct conn *c = conn_alloc();
	struct login_opts o = ls->o;
	char err[512], got[256];

	if (!c) {
		rt_fail(r, "too many connections (at most %d)", MAXCONN);
		return -1;
	}
	rt_add(r, c);
	put_be64(o.login.init_id,
		 get_be64(o.login.init_id) + (uint64_t)i * ls->id_step);
	if (g_cfg.dry)
		conn_fake(c, &o, DRY_CREDITS, g_cfg.max_req);
	else if (conn_start(c, &o, err, sizeof(err)))
		snprintf(c->failwhy, sizeof(c->failwhy), "%.150s", err);
	if (ls->nowait)
		return 0;
	if (c->st == CS_CONNECTING)
		conn_wait_login(c, (int)ls->tmo);
	login_outcome(c, got, sizeof(got));
	vlog("c%d: login -> %s", c->idx, got);
	if (!want_match(ls->want, got)) {
		rt_fail(r, "login %d/%d: expected %s, got %s", i + 1, (int)ls->count, ls->want, got);
		return -1;
	}
	vlog("matched: login %s (want=%s)", got, ls->want);
	if (ls->end_unless_ok && strcmp(got, "ok")) {
		vlog("c%d: the case ends here (else=end)", c->idx);
		r->done = 1;
	}
	return 0;
}

static int step_login(struct rt *r, char **tok, int n)
{
	struct login_step ls;
	int i;

	if (login_parse(r, tok, n, &ls))
		return -1;
	for (i = 0; i < (int)ls.count && !r->done; i++)
		if (login_one(r, &ls, i))
			return -1;
	return 0;
}

static int step_settle(struct rt *r, char **tok, int n)
{
	uint64_t end = now_ms() + g_cfg.tmo, extra = 500;
	int i, busy;
	struct evalctx x = { 0 };

	if (n > 0 && eval(&x, tok[0], &extra)) {
		rt_fail(r, "bad settle time");
		return -1;
	}
	do {
		busy = 0;
		for (i = 0; i < r->nconn; i++)
			if (r->conns[i]->st == CS_CONNECTING || r->conns[i]->st == CS_RESOLVING)
				busy = 1;
		if (busy)
			pump(1);
	} while (busy && now_ms() < end);
	end = now_ms() + extra;
	while (now_ms() < end)
		pump(1);
	if (busy) {
		rt_fail(r, "logins still pending after %d ms", g_cfg.tmo);
		return -1;
	}
	return 0;
}

/* the case's channels that are up */
static int count_alive(struct rt *r)
{
	int alive = 0, i;

	for (i = 0; i < r->nconn; i++)
		if (conn_alive(r->conns[i]))
			alive++;
	return alive;
}

/* count logins by outcome / alive channels: "outcomes ok=N rej=N ..." */
static int step_alive(struct rt *r, char **tok, int n)
{
	struct kvs k;
	struct evalctx x = { 0 };
	uint64_t want = 0, min = 0, max = ~0ULL;
	int alive = 0, i;

	kv_init(&k, tok, n);
	if (kv_num(&k, &x, "n", &want, r->err, sizeof(r->err)) < 0 ||
	    kv_num(&k, &x, "min", &min, r->err, sizeof(r->err)) < 0 ||
	    kv_num(&k, &x, "max", &max, r->err, sizeof(r->err)) < 0)
		return -1;
	if (kv_has(&k, "n"))
		min = max = want;
	if (kv_unused(&k, r->err, sizeof(r->err)))
		return -1;
	alive = count_alive(r);
	if ((uint64_t)alive > max) {
		/*
		 * Channels the target is closing may not have gone down here
		 * yet (a slow kernel): wait up to the step timeout for them,
		 * then a little longer, so that a count still falling shows.
		 */
		uint64_t end = now_ms() + g_cfg.tmo;

		while ((uint64_t)alive > max && now_ms() < end) {
			pump(1);
			alive = count_alive(r);
		}
		end = now_ms() + 500;
		while (now_ms() < end)
			pump(1);
		alive = count_alive(r);
	}
	if (alive < (int)min || (uint64_t)alive > max) {
		char b[512] = "";

		for (i = 0; i < r->nconn && strlen(b) < 400; i++) {
			char o[128];

			login_outcome(r->conns[i], o, sizeof(o));
			snprintf(b + strlen(b), sizeof(b) - strlen(b), " c%d=%s%s", i, o,
				 conn_alive(r->conns[i]) ? "" : "/down");
		}
		rt_fail(r, "%d channel(s) alive, expected %llu..%llu;%s", alive,
			(unsigned long long)min, (unsigned long long)max, b);
		return -1;
	}
	return 0;
}

static int step_expect_login(struct rt *r, char **tok, int n)
{
	struct kvs k;
	struct evalctx x = { 0 };
	struct conn *c = r->cur;
	uint64_t v;
	const char *s;

	if (!c || !c->have_lrsp) {
		rt_fail(r, "expect login: no login response");
		return -1;
	}
	kv_init(&k, tok, n);
#define CHK(key, val, fmtname) do {					\
		int _r = kv_num(&k, &x, key, &v, r->err, sizeof(r->err));	\
		if (_r < 0)						\
			return -1;					\
		if (_r > 0 && (uint64_t)(val) != v) {			\
			rt_fail(r, "login rsp " fmtname "=%llu, expected %llu",	\
				(unsigned long long)(val), (unsigned long long)v); \
			return -1;					\
		}							\
	} while (0)
	CHK("max_it", c->max_it, "max_it_iu_len");
	CHK("max_ti", c->max_ti, "max_ti_iu_len");
	CHK("buf_fmt", c->lbuf_fmt, "buf_fmt");
	CHK("req_lim", c->lrsp_req_lim, "req_lim_delta");
	CHK("imm", !!(c->lflags & SRPW_RSP_IMMED_SUPP), "immediate-data-supported");
	if (kv_num(&k, &x, "req_lim_min", &v, r->err, sizeof(r->err)) > 0 && c->lrsp_req_lim < v) {
		rt_fail(r, "req_lim_delta %u < %llu", c->lrsp_req_lim, (unsigned long long)v);
		return -1;
	}
	if ((s = kv_get(&k, "mc"))) {
		int f = c->lflags & SRPW_RSP_MULTICHAN_MASK;
		const char *names[] = { "none", "terminated", "maintained", "reserved" };

		if (strcmp(names[f], s)) {
			rt_fail(r, "login rsp multichannel result %s, expected %s", names[f], s);
			return -1;
		}
	}
	return kv_unused(&k, r->err, sizeof(r->err));
}

/* dry_iu: an IU that -D does not send, as "  iu LEN HEX" */
static void dry_iu(const uint8_t *buf, int len)
{
	int i;

	printf("  iu %d ", len);
	for (i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("\n");
}

static int step_send(struct rt *r, char **tok, int n)
{
	static uint8_t buf[IUMAX];
	struct kvs k;
	struct evalctx x;
	struct conn *c;
	const char *kind = n > 0 ? tok[0] : "";
	uint64_t count = 1, tag = 0, tmo = g_cfg.tmo, seed = r->seed, v;
	int len, i, track, credit, mayfail, have_tag, nocredit;
	char err[512];

	kv_init(&k, tok + 1, n - 1);
	c = rt_conn(r, kv_get(&k, "conn"));
	if (!c) {
		rt_fail(r, "send: no such connection");
		return -1;
	}
	x.c = c;
	x.xlen = 0;
	if (kv_num(&k, &x, "count", &count, r->err, sizeof(r->err)) < 0 ||
	    kv_num(&k, &x, "tmo", &tmo, r->err, sizeof(r->err)) < 0 ||
	    kv_num(&k, &x, "seed", &seed, r->err, sizeof(r->err)) < 0)
		return -1;
	have_tag = kv_num(&k, &x, "tag", &tag, r->err, sizeof(r->err));
	if (have_tag < 0)
		return -1;
	mayfail = kv_has(&k, "mayfail");
	nocredit = kv_has(&k, "nocredit");
	track = !strcmp(kind, "cmd") || !strcmp(kind, "tsk");
	if (kv_has(&k, "notrack"))
		track = 0;
	/* credit: this IU uses one of our credits although it is no cmd/tsk */
	credit = kv_has(&k, "credit") || track;
	for (i = 0; i < (int)count; i++) {
		uint64_t t = have_tag ? tag + i : ++c->next_tag;
		int ret;

		if (!strcmp(kind, "cmd"))
			ret = build_cmd(c, &k, buf, c->ssz < IUMAX ? c->ssz : IUMAX, &len, t, (uint32_t)seed,
					r->err, sizeof(r->err));
		else
			ret = build_other(c, kind, &k, buf, c->ssz < IUMAX ? c->ssz : IUMAX, &len, t,
					  r->err, sizeof(r->err));
		if (ret)
			return -1;
		if (i == 0 && kv_unused(&k, r->err, sizeof(r->err)))
			return -1;
		if (nocredit && !g_cfg.dry) {
			uint64_t end = now_ms() + tmo;

			while (c->req_lim <= 0 && conn_alive(c) && now_ms() < end)
				pump(1);
			if (c->req_lim <= 0 && conn_alive(c)) {
				rt_fail(r, "send %s #%d: timeout: no credit returned within %llu ms (request limit %lld)",
					kind, i + 1, (unsigned long long)tmo, (long long)c->req_lim);
				return -1;
			}
		}
		c->last_tag = t;
		if (track)
			tag_add(c, t);
		if (credit)
			c->req_lim--;
		if (g_cfg.dry) {
			dry_iu(buf, len);
		} else if (conn_send(c, buf, len, (int)tmo, err, sizeof(err))) {
			if (mayfail) {
				vlog("send failed (allowed): %s", err);
				vlog("matched: send %s failed at #%d", kind, i + 1);
				return 0;
			}
			rt_fail(r, "send %s #%d: %s", kind, i + 1, err);
			return -1;
		}
		r->sent++;
	}
	if (mayfail)
		vlog("matched: send %s sent %d", kind, (int)count);
	(void)v;
	return 0;
}

/* ---- expectations ---- */

struct alt {
	char kind[16];
	struct kvs k;
	char *tok[MAXTOK];
	int ntok;
};

static int numlist_match(const char *list, uint64_t got, struct evalctx *x)
{
	char b[128], *save, *t;
	uint64_t v;

	snprintf(b, sizeof(b), "%s", list);
	for (t = strtok_r(b, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
		if (!strcmp(t, "good")) v = 0;
		else if (!strcmp(t, "check")) v = 2;
		else if (!strcmp(t, "busy")) v = 8;
		else if (!strcmp(t, "resconflict")) v = 0x18;
		else if (!strcmp(t, "tsf")) v = 0x28;
		else if (!strcmp(t, "aborted")) v = 0x40;
		else if (!strcmp(t, "illegal")) v = 5;
		else if (!strcmp(t, "any")) return 1;
		else if (eval(x, t, &v)) return 0;
		if (v == got)
			return 1;
	}
	return 0;
}

static int resid_code(const char *s, int *mask)
{
	char b[64], *save, *t;

	*mask = 0;
	snprintf(b, sizeof(b), "%s", s);
	for (t = strtok_r(b, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		if (!strcmp(t, "none")) ;
		else if (!strcmp(t, "diunder")) *mask |= SRPW_RSP_DIUNDER;
		else if (!strcmp(t, "diover")) *mask |= SRPW_RSP_DIOVER;
		else if (!strcmp(t, "dounder")) *mask |= SRPW_RSP_DOUNDER;
		else if (!strcmp(t, "doover")) *mask |= SRPW_RSP_DOOVER;
		else return -1;
	}
	return 0;
}

/*
 * tail=OFF:LEN:BYTE - the data-in buffer [OFF, OFF+LEN) was filled with BYTE
 * (send ... ifill=BYTE); the part the target did not transfer (the last
 * dires bytes) must still be BYTE or be zeros: no stale bytes.
 */
static int tail_clean(struct conn *c, const char *s, uint32_t dires, char *why, size_t wl)
{
	unsigned long off = 0, len = 0, fill = 0, i;

	if (sscanf(s, "%lu:%lu:%li", &off, &len, (long *)&fill) != 3 || off + len > c->dsz ||
	    dires > len) {
		snprintf(why, wl, "bad tail= spec or residual %u", dires);
		return 0;
	}
	for (i = off + len - dires; i < off + len; i++)
		if (c->dbuf[i] != (uint8_t)fill && c->dbuf[i]) {
			snprintf(why, wl, "byte %lu of the data-in buffer (after the %lu bytes transferred) is 0x%02x: stale data",
				 i - off, len - dires, c->dbuf[i]);
			return 0;
		}
	return 1;
}

static uint64_t mix64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

/*
 * nodata=SEED:LBA:BLOCKS - no 8 bytes anywhere in the connection's data
 * buffer equal 8 bytes of the pattern SEED:LBA (any 4-byte-aligned window,
 * found at any byte offset): another initiator's data never arrives here.
 */
static int no_foreign_data(struct conn *c, const char *s, char *why, size_t wl)
{
	unsigned long sd = 0, lba = 0, blocks = 0, n, i, nset, h;
	uint64_t *set, v;
	uint8_t *pat;
	int found = -1;

	if (sscanf(s, "%lu:%lu:%lu", &sd, &lba, &blocks) != 3 || !blocks || blocks > 65536) {
		snprintf(why, wl, "bad nodata= spec");
		return 0;
	}
	n = blocks * 512;
	for (nset = 1; nset < n / 2; nset <<= 1)
		;
	pat = malloc(n);
	set = calloc(nset, sizeof(*set));
	if (!pat || !set)
		abort();
	data_fill(pat, n, (uint32_t)sd, lba);
	for (i = 0; i + 8 <= n; i += 4) {
		memcpy(&v, pat + i, 8);
		if (!v || v == (v & 0xff) * 0x0101010101010101ull)
			continue;       /* a fill byte could match these */
		for (h = mix64(v) & (nset - 1); set[h] && set[h] != v; h = (h + 1) & (nset - 1))
			;
		set[h] = v;
	}
	for (i = 0; i + 8 <= c->dsz && found < 0; i++) {
		memcpy(&v, c->dbuf + i, 8);
		if (!v)
			continue;
		for (h = mix64(v) & (nset - 1); set[h]; h = (h + 1) & (nset - 1))
			if (set[h] == v) {
				found = (int)i;
				break;
			}
	}
	free(pat);
	free(set);
	if (found >= 0) {
		snprintf(why, wl, "the data buffer holds bytes of pattern %lu (LBA %lu) at offset %d: another initiator's data",
			 sd, lba, found);
		return 0;
	}
	return 1;
}

/* The fields of an SRP_RSP that alternatives check. */
struct rsp_info {
	const uint8_t *p;
	int sns;                /* sense data present */
	int key, asc, ascq;     /* -1 without sense data */
	int code;               /* response code, -1 without response data */
};

static void rsp_decode(const struct ev *e, struct rsp_info *ri)
{
	const uint8_t *p = e->data;
	uint32_t rlen = get_be32(p + 32), slen = get_be32(p + 28);

	ri->p = p;
	ri->key = ri->asc = ri->ascq = ri->code = -1;
	ri->sns = (p[18] & SRPW_RSP_SNSVALID) && slen >= 14 && 36 + rlen + 14 <= (uint32_t)e->len;
	if (ri->sns) {
		ri->key = p[36 + rlen + 2] & 0xf;
		ri->asc = p[36 + rlen + 12];
		ri->ascq = p[36 + rlen + 13];
	}
	if ((p[18] & SRPW_RSP_RSPVALID) && rlen >= 4 && e->len >= 40)
		ri->code = p[39];
}

/* rsp_status_match: status=, key=, asc=, ascq=, code= */
static int rsp_status_match(struct alt *a, const struct rsp_info *ri, struct evalctx *x,
			    char *why, size_t wl)
{
	const uint8_t *p = ri->p;
	const char *s;

	if ((s = kv_get(&a->k, "status")) && !numlist_match(s, p[19], x)) {
		snprintf(why, wl, "status 0x%02x, expected %s", p[19], s);
		return 0;
	}
	if ((s = kv_get(&a->k, "key")) && (!ri->sns || !numlist_match(s, ri->key, x))) {
		snprintf(why, wl, "sense key %d, expected %s", ri->key, s);
		return 0;
	}
	if ((s = kv_get(&a->k, "asc")) && (!ri->sns || !numlist_match(s, ri->asc, x))) {
		snprintf(why, wl, "asc 0x%02x, expected %s", ri->asc, s);
		return 0;
	}
	if ((s = kv_get(&a->k, "ascq")) && (!ri->sns || !numlist_match(s, ri->ascq, x))) {
		snprintf(why, wl, "ascq 0x%02x, expected %s", ri->ascq, s);
		return 0;
	}
	if ((s = kv_get(&a->k, "code")) && (ri->code < 0 || !numlist_match(s, ri->code, x))) {
		snprintf(why, wl, "response code %d, expected %s", ri->code, s);
		return 0;
	}
	return 1;
}

/* rsp_counts_match: resid=, dires=, dores=, delta=, sense=none */
static int rsp_counts_match(struct alt *a, const uint8_t *p, struct evalctx *x,
			    char *why, size_t wl)
{
	const char *s;
	int m;

	if ((s = kv_get(&a->k, "resid")) &&
	    (resid_code(s, &m) || (p[18] & SRPW_RSP_RESID_MASK) != m)) {
		snprintf(why, wl, "residual flags 0x%02x, expected %s", p[18] & SRPW_RSP_RESID_MASK, s);
		return 0;
	}
	if ((s = kv_get(&a->k, "dires")) && !numlist_match(s, get_be32(p + 24), x)) {
		snprintf(why, wl, "data-in residual %u, expected %s", get_be32(p + 24), s);
		return 0;
	}
	if ((s = kv_get(&a->k, "dores")) && !numlist_match(s, get_be32(p + 20), x)) {
		snprintf(why, wl, "data-out residual %u, expected %s", get_be32(p + 20), s);
		return 0;
	}
	if ((s = kv_get(&a->k, "delta")) && !numlist_match(s, get_be32(p + 4), x)) {
		snprintf(why, wl, "req_lim_delta %u, expected %s", get_be32(p + 4), s);
		return 0;
	}
	if ((s = kv_get(&a->k, "sense")) && !strcmp(s, "none") && (p[18] & SRPW_RSP_SNSVALID)) {
		snprintf(why, wl, "unexpected sense data");
		return 0;
	}
	return 1;
}

/* data_matches: data=OFF:LEN:SEED:LBA - the data buffer holds the pattern */
static int data_matches(struct conn *c, const char *s, char *why, size_t wl)
{
	uint64_t off = 0, dl = 0, sd = 0, lba = 0;
	uint8_t *want;
	int bad;

	if (sscanf(s, "%lu:%lu:%lu:%lu", &off, &dl, &sd, &lba) < 3 || off + dl > c->dsz) {
		snprintf(why, wl, "bad data= spec");
		return 0;
	}
	want = malloc(dl ? dl : 1);
	data_fill(want, dl, (uint32_t)sd, lba);
	bad = memcmp(want, c->dbuf + off, dl);
	free(want);
	if (bad) {
		snprintf(why, wl, "data read back differs from the pattern");
		return 0;
	}
	return 1;
}

/* zero_matches: zero=OFF:LEN - the target left these data-in bytes zero */
static int zero_matches(struct conn *c, const char *s, char *why, size_t wl)
{
	uint64_t off = 0, dl = 0, i;

	if (sscanf(s, "%lu:%lu", &off, &dl) != 2 || off + dl > c->dsz) {
		snprintf(why, wl, "bad zero= spec");
		return 0;
	}
	for (i = 0; i < dl; i++)
		if (c->dbuf[off + i])
			break;
	if (i < dl) {
		snprintf(why, wl, "data-in byte %lu is 0x%02x, expected 0 (stale data?)",
			 (unsigned long)(off + i), c->dbuf[off + i]);
		return 0;
	}
	return 1;
}

/* rsp_data_match: tail=, nodata=, data=, zero= on the current data buffer */
static int rsp_data_match(struct rt *r, struct alt *a, const uint8_t *p, char *why, size_t wl)
{
	struct conn *c = r->cur;
	const char *s;

	if (!c || !c->dbuf)
		return 1;
	if ((s = kv_get(&a->k, "tail")) &&
	    !tail_clean(c, s, (p[18] & SRPW_RSP_DIUNDER) ? get_be32(p + 24) : 0, why, wl))
		return 0;
	if ((s = kv_get(&a->k, "nodata")) && !no_foreign_data(c, s, why, wl))
		return 0;
	if ((s = kv_get(&a->k, "data")) && !data_matches(c, s, why, wl))
		return 0;
	if ((s = kv_get(&a->k, "zero")) && !zero_matches(c, s, why, wl))
		return 0;
	return 1;
}

/* does event e satisfy rsp/tmr alternative a? sets *why on mismatch */
static int rsp_match(struct rt *r, struct alt *a, const struct ev *e, uint64_t tag, char *why, size_t wl)
{
	struct evalctx x = { .c = r->cur };
	struct rsp_info ri;

	(void)tag;
	if (e->len < 36) {
		snprintf(why, wl, "SRP_RSP too short (%d bytes)", e->len);
		return 0;
	}
	rsp_decode(e, &ri);
	if (!strcmp(a->kind, "tmr") && ri.code < 0) {
		snprintf(why, wl, "no response data (RSPVALID) in task management response");
		return 0;
	}
	return rsp_status_match(a, &ri, &x, why, wl) && rsp_counts_match(a, ri.p, &x, why, wl) &&
	       rsp_data_match(r, a, ri.p, why, wl);
}

/* An expect step: its alternatives and what they wait for. */
struct expect {
	struct alt alts[8];
	int na;
	uint64_t ms, tag;
	const char *conn;       /* conn= */
	char expd[512];         /* the expectation as written, for messages */
	int has_none, has_tagged, has_cred, has_any_iu, has_tlo;
	int end_on_down;        /* else=end: a channel gone down ends the case */
};

/* expect_split: split at "||"; "ms=" and "conn=" apply to the whole step */
static int expect_split(struct rt *r, char **tok, int n, struct expect *ex, struct evalctx *x)
{
	int i;

	for (i = 0; i < n; i++) {
		struct alt *a = &ex->alts[ex->na];

		if (!strcmp(tok[i], "||")) {
			if (ex->na < 7)
				ex->na++;
			continue;
		}
		if (!strncmp(tok[i], "ms=", 3)) {
			if (eval(x, tok[i] + 3, &ex->ms)) {
				rt_fail(r, "bad ms=");
				return -1;
			}
			continue;
		}
		if (!strncmp(tok[i], "conn=", 5)) {
			ex->conn = tok[i] + 5;
			continue;
		}
		if (!strncmp(tok[i], "else=", 5)) {
			if (strcmp(tok[i] + 5, "end")) {
				rt_fail(r, "bad %s (else=end only)", tok[i]);
				return -1;
			}
			ex->end_on_down = 1;
			continue;
		}
		if (!a->kind[0] && a->ntok == 0 && !strchr(tok[i], '='))
			snprintf(a->kind, sizeof(a->kind), "%s", tok[i]);
		else if (a->ntok < MAXTOK)
			a->tok[a->ntok++] = tok[i];
		snprintf(ex->expd + strlen(ex->expd), sizeof(ex->expd) - strlen(ex->expd), "%s%s",
			 *ex->expd ? " " : "", tok[i]);
	}
	ex->na++;
	return 0;
}

/* expect_kinds: what the alternatives wait for; the tag= of rsp/tmr */
static int expect_kinds(struct rt *r, struct expect *ex, struct evalctx *x)
{
	int i;

	for (i = 0; i < ex->na; i++) {
		struct alt *a = &ex->alts[i];

		kv_init(&a->k, a->tok, a->ntok);
		if (!strcmp(a->kind, "none")) {
			ex->has_none = 1;
		} else if (!strcmp(a->kind, "rsp") || !strcmp(a->kind, "tmr")) {
			const char *t = kv_get(&a->k, "tag");

			if (t && eval(x, t, &ex->tag)) {
				rt_fail(r, "bad tag=%s", t);
				return -1;
			}
			ex->has_tagged = 1;
		} else if (!strcmp(a->kind, "cred_req")) {
			ex->has_cred = 1;
		} else if (!strcmp(a->kind, "iu")) {
			ex->has_any_iu = 1;
		} else if (!strcmp(a->kind, "t_logout")) {
			ex->has_tlo = 1;
		} else if (strcmp(a->kind, "disconnect") && strcmp(a->kind, "dead")) {
			rt_fail(r, "unknown expectation '%s'", a->kind);
			return -1;
		}
	}
	return 0;
}

/*
 * ev_relevant: whether event E decides the step: disconnects always; an
 * SRP_RSP when it carries the awaited tag (or, for "none", any); a
 * T_LOGOUT or other IU unless only a disconnect or a credit request is
 * awaited.
 */
static int ev_relevant(const struct expect *ex, const struct ev *e)
{
	if (e->type != EV_IU)
		return 1;
	if (e->len >= 1 && (e->data[0] == SRPW_CRED_REQ || e->data[0] == SRPW_AER_REQ))
		return ex->has_cred || ex->has_any_iu;
	if (e->len >= 16 && e->data[0] == SRPW_RSP)
		return ex->has_tagged ? get_be64(e->data + 8) == ex->tag :
					(ex->has_none || ex->has_any_iu);
	if (e->len >= 1 && e->data[0] == SRPW_T_LOGOUT)
		return ex->has_tlo || ex->has_none || ex->has_tagged || ex->has_any_iu;
	return ex->has_none || ex->has_tagged || ex->has_any_iu;
}

/* alt_matches: whether event E satisfies alternative A; WHY says why not */
static int alt_matches(struct rt *r, const struct expect *ex, struct alt *a,
		       const struct ev *e, struct evalctx *x, char *why, size_t wl)
{
	const char *s;
	int j;

	for (j = 0; j < a->k.n; j++)
		a->k.used[j] = 0;
	if (!strcmp(a->kind, "disconnect") || !strcmp(a->kind, "dead"))
		return e->type == EV_DISC || e->type == EV_DEAD;
	if (e->type != EV_IU)
		return 0;
	if (!strcmp(a->kind, "rsp") || !strcmp(a->kind, "tmr"))
		return e->len >= 16 && e->data[0] == SRPW_RSP &&
		       get_be64(e->data + 8) == ex->tag &&
		       rsp_match(r, a, e, ex->tag, why, wl);
	if (!strcmp(a->kind, "t_logout")) {
		s = kv_get(&a->k, "reason");
		return e->len >= 8 && e->data[0] == SRPW_T_LOGOUT &&
		       (!s || numlist_match(s, get_be32(e->data + 4), x));
	}
	if (!strcmp(a->kind, "cred_req"))
		return e->len >= 1 && e->data[0] == SRPW_CRED_REQ;
	if (!strcmp(a->kind, "iu")) {
		s = kv_get(&a->k, "opcode");
		return e->len >= 1 && (!s || numlist_match(s, e->data[0], x));
	}
	return 0;
}

/* ev_remove: take E off C's event queue and free it */
static void ev_remove(struct conn *c, struct ev *e)
{
	struct ev **pp;

	for (pp = &c->evq; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	ev_free(e);
}

/*
 * describe_match: what event E, which satisfied alternative A, really was,
 * in the words of the case table (for -v): "rsp status=check key=illegal
 * asc=0x24 ascq=0x00", "tmr code=5", "t_logout reason=0x1", "disconnect"
 */
static void describe_match(const struct expect *ex, const struct alt *a, const struct ev *e,
			   char *out, size_t len)
{
	size_t o;

	if (e->type == EV_DISC) {
		snprintf(out, len, "disconnect");
		return;
	}
	if (e->type == EV_DEAD) {
		snprintf(out, len, "dead");
		return;
	}
	if (e->len >= 36 && e->data[0] == SRPW_RSP &&
	    (!strcmp(a->kind, "rsp") || !strcmp(a->kind, "tmr"))) {
		struct rsp_info ri;

		rsp_decode(e, &ri);
		if (!strcmp(a->kind, "tmr")) {
			snprintf(out, len, "tmr tag=0x%llx code=%d", (unsigned long long)ex->tag, ri.code);
			return;
		}
		snprintf(out, len, "rsp tag=0x%llx status=%s", (unsigned long long)ex->tag,
			 ri.p[19] == 0 ? "good" : ri.p[19] == 2 ? "check" : ri.p[19] == 8 ? "busy" :
			 ri.p[19] == 0x28 ? "tsf" : ri.p[19] == 0x40 ? "aborted" : "other");
		o = strlen(out);
		if (ri.p[19] != 0 && ri.p[19] != 2 && ri.p[19] != 8 && ri.p[19] != 0x28 && ri.p[19] != 0x40)
			snprintf(out + o, len - o, "(0x%02x)", ri.p[19]);
		o = strlen(out);
		if (ri.sns)
			snprintf(out + o, len - o, " key=%s asc=0x%02x ascq=0x%02x",
				 ri.key == 5 ? "illegal" : "other", ri.asc, ri.ascq);
		o = strlen(out);
		if (ri.sns && ri.key != 5)
			snprintf(out + o, len - o, " (key 0x%x)", ri.key);
		o = strlen(out);
		snprintf(out + o, len - o, " flags=0x%02x dores=%u dires=%u delta=%u", ri.p[18],
			 get_be32(ri.p + 20), get_be32(ri.p + 24), get_be32(ri.p + 4));
		return;
	}
	if (e->len >= 8 && e->data[0] == SRPW_T_LOGOUT) {
		snprintf(out, len, "t_logout reason=0x%x", get_be32(e->data + 4));
		return;
	}
	if (e->len >= 1 && e->data[0] == SRPW_CRED_REQ) {
		snprintf(out, len, "cred_req");
		return;
	}
	snprintf(out, len, "iu opcode=0x%02x len=%d", e->len ? e->data[0] : 0, e->len);
}

/*
 * expect_event: 1 if event E satisfies an alternative, -1 if it fails the
 * step, 0 if it does not decide it
 */
static int expect_event(struct rt *r, struct expect *ex, struct conn *c,
			struct ev *e, struct evalctx *x)
{
	char why[256] = "", got[1024] = "";
	int i;

	if (!ev_relevant(ex, e))
		return 0;
	for (i = 0; i < ex->na; i++) {
		if (alt_matches(r, ex, &ex->alts[i], e, x, why, sizeof(why))) {
			if (g_verbose) {
				describe_match(ex, &ex->alts[i], e, got, sizeof(got));
				vlog("matched: %s", got);
			}
			if (ex->end_on_down && e->type != EV_IU) {
				vlog("the channel is down: the case ends here (else=end)");
				r->done = 1;
			}
			return 1;
		}
	}
	describe_ev(e, got, sizeof(got));
	if (why[0])
		snprintf(got + strlen(got), sizeof(got) - strlen(got), " (%s)", why);
	if (e->type == EV_DEAD)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), ": %s", c->deadwhy);
	rt_fail(r, "expected [%s], got %s", ex->expd, got);
	return -1;
}

static int step_expect(struct rt *r, char **tok, int n)
{
	struct expect ex;
	struct evalctx x = { .c = r->cur };
	struct ev *e, *next;
	struct conn *c;
	uint64_t end;
	int ret;

	memset(&ex, 0, sizeof(ex));
	if (expect_split(r, tok, n, &ex, &x))
		return -1;
	if (!strcmp(ex.alts[0].kind, "login"))
		return step_expect_login(r, ex.alts[0].tok, ex.alts[0].ntok);
	c = rt_conn(r, ex.conn);
	if (!c) {
		rt_fail(r, "expect: no connection");
		return -1;
	}
	x.c = c;
	r->cur = c;
	ex.tag = c->last_tag;
	if (expect_kinds(r, &ex, &x))
		return -1;
	if (!ex.ms)
		ex.ms = ex.has_none ? (uint64_t)g_cfg.none_ms : (uint64_t)g_cfg.tmo;
	end = now_ms() + ex.ms;
	do {
		pump(1);
		for (e = c->evq; e; e = next) {
			next = e->next;
			ret = expect_event(r, &ex, c, e, &x);
			if (ret > 0) {  /* a T_LOGOUT is normally followed by a disconnect: fine */
				r->last_pass = e->pass;
				ev_remove(c, e);
			}
			if (ret)
				return ret > 0 ? 0 : -1;
		}
	} while (now_ms() < end);
	if (ex.has_none) {
		vlog("matched: none");
		return 0;
	}
	rt_fail(r, "expected [%s], nothing within %llu ms (timeout)", ex.expd,
		(unsigned long long)ex.ms);
	return -1;
}

/* wait until all outstanding tags are answered or the channel is down */
static int step_drain(struct rt *r, char **tok, int n)
{
	struct kvs k;
	struct evalctx x = { .c = r->cur };
	uint64_t ms = 10000, v;
	const char *want, *st, *al, *before;
	struct conn *c = r->cur;
	unsigned long good = 0, other = 0, al_n = 0, al_seen = 0, heard = 0, late = 0;
	uint64_t late_tag = 0;
	int al_st = -1, i, has_quiet;
	uint64_t end, quiet = 0, last;
	uint8_t bad_st = 0;
	unsigned long st_n[256] = { 0 };
	char seen[512] = "";

	kv_init(&k, tok, n);
	has_quiet = kv_num(&k, &x, "quiet", &quiet, r->err, sizeof(r->err));
	if (kv_num(&k, &x, "ms", &ms, r->err, sizeof(r->err)) < 0 || has_quiet < 0)
		return -1;
	want = kv_get(&k, "want");
	st = kv_get(&k, "status");
	al = kv_get(&k, "atleast");
	before = kv_get(&k, "before");
	if (before && strcmp(before, "last")) {
		rt_fail(r, "bad before=%s (only before=last)", before);
		return -1;
	}
	if (al && sscanf(al, "%i:%lu", &al_st, &al_n) != 2) {
		rt_fail(r, "bad atleast=%s", al);
		return -1;
	}
	if (kv_unused(&k, r->err, sizeof(r->err)))
		return -1;
	if (!c)
		return 0;
	end = now_ms() + ms;
	last = now_ms();
	for (;;) {
		struct ev **pp = &c->evq;

		pump(1);
		while (*pp) {
			struct ev *e = *pp;

			if (e->type == EV_IU && e->len >= 20 && e->data[0] == SRPW_RSP) {
				if (e->data[19] == al_st)
					al_seen++;
				if (before && e->pass > r->last_pass && !late++)
					late_tag = get_be64(e->data + 8);
				st_n[e->data[19]]++;
				if (st && !numlist_match(st, e->data[19], &x)) {
					other++;
					bad_st = e->data[19];
				} else {
					good++;
				}
				*pp = e->next;
				ev_free(e);
				continue;
			}
			pp = &e->next;
		}
		if (c->notags == 0 || !conn_alive(c) || now_ms() >= end)
			break;
		/* quiet=MS: nothing has arrived for MS ms, the rest is dropped */
		if (c->nrsp + c->ncred + c->nother != heard) {
			heard = c->nrsp + c->ncred + c->nother;
			last = now_ms();
		} else if (has_quiet && now_ms() - last >= quiet) {
			break;
		}
	}
	vlog("drain: %lu matching, %lu other responses, %d unanswered, channel %s", good, other,
	     c->notags, conn_alive(c) ? "up" : "down");
	(void)v;
	if (other) {
		rt_fail(r, "drain: %lu responses with status 0x%02x, expected %s", other, bad_st, st);
		return -1;
	}
	if (late) {
		rt_fail(r, "drain: %lu response(s) arrived after the last expected event, the first with tag 0x%llx",
			late, (unsigned long long)late_tag);
		return -1;
	}
	if (al && al_seen < al_n) {
		rt_fail(r, "drain: %lu responses with status 0x%02x, expected at least %lu",
			al_seen, al_st, al_n);
		return -1;
	}
	if (want && !strcmp(want, "all") && c->notags) {
		rt_fail(r, "drain: %d command(s) unanswered after %llu ms, channel %s", c->notags,
			(unsigned long long)ms, conn_alive(c) ? "still up (target hangs)" : "down");
		return -1;
	}
	if (want && !strcmp(want, "all-or-down") && c->notags && conn_alive(c)) {
		rt_fail(r, "drain: %d command(s) unanswered after %llu ms and the channel is still up",
			c->notags, (unsigned long long)ms);
		return -1;
	}
	for (i = 0; i < 256; i++)
		if (st_n[i])
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s0x%02x:%lu",
				 seen[0] ? "," : "", i, st_n[i]);
	vlog("matched: drain status=%s unanswered=%d channel=%s", seen[0] ? seen : "none",
	     c->notags, conn_alive(c) ? "up" : "down");
	return 0;
}

static int run_sh(const char *cmd, char *err, size_t errlen)
{
	int ret = system(cmd);

	if (ret != 0) {
		snprintf(err, errlen, "command failed (%d): %.400s", ret, cmd);
		return -1;
	}
	return 0;
}

/* step_conn: the connection a use/close/kill/destroy/unreg step names */
static struct conn *step_conn(struct rt *r, char **tok, int n)
{
	return rt_conn(r, n > 0 ? tok[0] : NULL);
}

/* step_conn_of: step_conn(), or NULL and STEP's error when there is none */
static struct conn *step_conn_of(struct rt *r, char **tok, int n, const char *step)
{
	struct conn *c = step_conn(r, tok, n);

	if (!c)
		rt_fail(r, "%s: no such connection", step);
	return c;
}

static int step_use(struct rt *r, char **tok, int n)
{
	struct conn *c = step_conn_of(r, tok, n, "use");

	if (c)
		r->cur = c;
	return c ? 0 : -1;
}

/* credits want=EXPR [ms=N]: wait until our request limit equals EXPR */
static int step_credits(struct rt *r, char **tok, int n)
{
	struct kvs k;
	struct evalctx x = { .c = r->cur };
	uint64_t want = 0, ms = 3000, end;

	kv_init(&k, tok, n);
	if (!r->cur || kv_num(&k, &x, "want", &want, r->err, sizeof(r->err)) <= 0 ||
	    kv_num(&k, &x, "ms", &ms, r->err, sizeof(r->err)) < 0 ||
	    kv_unused(&k, r->err, sizeof(r->err))) {
		if (!r->err[0])
			rt_fail(r, "credits: want= missing or no connection");
		return -1;
	}
	end = now_ms() + ms;
	while (r->cur->req_lim != (int64_t)want && now_ms() < end)
		pump(1);
	if (r->cur->req_lim != (int64_t)want) {
		rt_fail(r, "request limit is %lld after %llu ms, expected %llu (credits %s)",
			(long long)r->cur->req_lim, (unsigned long long)ms, (unsigned long long)want,
			r->cur->req_lim < (int64_t)want ? "not returned" : "over-returned");
		return -1;
	}
	return 0;
}

/* unreg [N]: deregister the data buffer's MR */
static int step_unreg(struct rt *r, char **tok, int n)
{
	struct conn *c = step_conn(r, tok, n);

	if (c && c->dmr) {
		ibv_dereg_mr(c->dmr);
		c->dmr = NULL;
	}
	return 0;
}

static int step_close(struct rt *r, char **tok, int n)
{
	struct conn *c = step_conn_of(r, tok, n, "close");

	if (c)
		conn_disconnect(c);
	return c ? 0 : -1;
}

static int step_kill(struct rt *r, char **tok, int n)
{
	struct conn *c = step_conn_of(r, tok, n, "kill");

	if (c)
		conn_kill(c);
	return c ? 0 : -1;
}

/* destroy [N]: free the connection; the last remaining one becomes current */
static int step_destroy(struct rt *r, char **tok, int n)
{
	struct conn *c = step_conn_of(r, tok, n, "destroy");
	int i;

	if (!c)
		return -1;
	conn_destroy(c);
	for (i = 0; i < r->nconn; i++)
		if (r->conns[i] == c) {
			memmove(&r->conns[i], &r->conns[i + 1],
				(r->nconn - i - 1) * sizeof(r->conns[0]));
			r->nconn--;
			break;
		}
	if (r->cur == c)
		r->cur = r->nconn ? r->conns[r->nconn - 1] : NULL;
	return 0;
}

static int step_sleep(struct rt *r, char **tok, int n)
{
	uint64_t ms = 0, end;
	struct evalctx x = { 0 };

	if (n < 1 || eval(&x, tok[0], &ms)) {
		rt_fail(r, "bad sleep");
		return -1;
	}
	end = now_ms() + ms;
	while (now_ms() < end)
		pump(1);
	return 0;
}

static int step_io(struct rt *r, char **tok, int n)
{
	struct kvs k;
	struct evalctx x = { .c = r->cur };
	uint64_t lba = 4096 + (uint64_t)r->idx * 16, blocks = 8, seed = r->seed + 7, lun = 0;

	kv_init(&k, tok, n);
	if (kv_num(&k, &x, "lun", &lun, r->err, sizeof(r->err)) < 0 ||
	    kv_num(&k, &x, "lba", &lba, r->err, sizeof(r->err)) < 0 ||
	    kv_num(&k, &x, "blocks", &blocks, r->err, sizeof(r->err)) < 0 ||
	    kv_num(&k, &x, "seed", &seed, r->err, sizeof(r->err)) < 0)
		return -1;
	if (kv_has(&k, "conn"))
		r->cur = rt_conn(r, kv_get(&k, "conn"));
	if (kv_unused(&k, r->err, sizeof(r->err)))
		return -1;
	if (do_io(r->cur, lun, lba, blocks, (uint32_t)seed, r->err, sizeof(r->err)))
		return -1;
	return 0;
}

static int step_sh(struct rt *r, char **tok, int n)
{
	(void)tok;
	(void)n;
	return run_sh(r->rest, r->err, sizeof(r->err));
}

static int step_finally(struct rt *r, char **tok, int n)
{
	(void)tok;
	(void)n;
	if (r->nfinally < 8)
		r->finally[r->nfinally++] = strdup(r->rest);
	return 0;
}

/* requires VAR...: skip the case unless every VAR is set and not empty */
static int step_requires(struct rt *r, char **tok, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *v = getenv(tok[i]);

		if (!v || !*v) {
			snprintf(r->err, sizeof(r->err), "needs $%s", tok[i]);
			r->skip = 1;
			return -1;
		}
	}
	return 0;
}

/* the IB/CM counters of C against the wanted ones; 0 when all hold */
static int icm_check(struct rt *r, struct conn *c, struct kvs *k, char *why, size_t wl)
{
	static const char *const keys[] = { "reps_min", "rtus", "dreqs_min", "dreps_min", "rej" };
	uint64_t want[5];
	int has[5], got[5], i;
	struct evalctx x = { 0 };

	got[0] = c->icm.nrep;
	got[1] = c->icm.nrtu;
	got[2] = c->icm.ndreq_rcvd;
	got[3] = c->icm.ndrep_rcvd;
	got[4] = c->icm.rej_reason;
	why[0] = 0;
	for (i = 0; i < 5; i++) {
		has[i] = kv_num(k, &x, keys[i], &want[i], r->err, sizeof(r->err));
		if (has[i] < 0)
			return -2;
		if (!has[i])
			continue;
		if (i == 1 || i == 4 ? (uint64_t)got[i] != want[i] : (uint64_t)got[i] < want[i])
			snprintf(why + strlen(why), wl - strlen(why), " %s: %d, want %s%llu",
				 keys[i], got[i], i == 1 || i == 4 ? "" : "at least ",
				 (unsigned long long)want[i]);
	}
	return why[0] ? -1 : 0;
}

/*
 * count_step_conn: the connection (conn=N) of an icm (IBCM 1) or cm (IBCM
 * 0) step, which must use that CM, and the step's wait limit (ms=N,
 * default the step timeout) in *MS. NULL, the step failed, on error.
 */
static struct conn *count_step_conn(struct rt *r, struct kvs *k, int ibcm, uint64_t *ms)
{
	const char *step = ibcm ? "icm" : "cm";
	struct evalctx x = { 0 };
	struct conn *c;

	c = rt_conn(r, kv_get(k, "conn"));
	if (!c) {
		rt_fail(r, "%s: no such connection", step);
		return NULL;
	}
	if (!c->icm.on != !ibcm) {
		rt_fail(r, ibcm ? "icm: c%d is not an IB/CM connection (-T ibcm)" :
			"cm: c%d is an IB/CM connection (icm)", c->idx);
		return NULL;
	}
	*ms = g_cfg.tmo;
	if (kv_num(k, &x, "ms", ms, r->err, sizeof(r->err)) < 0)
		return NULL;
	return c;
}

/*
 * icm [conn=N] [reps_min=N] [rtus=N] [dreqs_min=N] [dreps_min=N] [rej=N]
 * [ms=N]: wait (up to ms, default the step timeout) until the connection's
 * IB/CM counters are as wanted: REPs received, RTUs sent, DREQs received,
 * DREPs received, the reason of the CM REJ received (0: none).
 */
static int step_icm(struct rt *r, char **tok, int n)
{
	struct kvs k;
	struct conn *c;
	uint64_t ms, end;
	char why[512];
	int ret;

	kv_init(&k, tok, n);
	c = count_step_conn(r, &k, 1, &ms);
	if (!c)
		return -1;
	end = now_ms() + ms;
	while ((ret = icm_check(r, c, &k, why, sizeof(why))) == -1 && now_ms() < end)
		pump(5);
	if (ret == -2)
		return -1;
	if (ret == 0 && kv_unused(&k, r->err, sizeof(r->err)))
		return -1;
	if (ret) {
		rt_fail(r, "icm c%d after %llu ms:%s", c->idx, (unsigned long long)ms, why);
		return -1;
	}
	return 0;
}

/* the RDMA/CM events of C against the wanted counts; 0 when all hold */
static int cm_check(struct rt *r, struct conn *c, struct kvs *k, char *why, size_t wl)
{
	static const char *const keys[] = { "est", "disc", "rej" };
	const int got[] = { c->cm_est, c->cm_disc, c->cm_rej };
	struct evalctx x = { 0 };
	uint64_t want;
	int i, has;

	why[0] = 0;
	for (i = 0; i < 3; i++) {
		has = kv_num(k, &x, keys[i], &want, r->err, sizeof(r->err));
		if (has < 0)
			return -2;
		if (has && (uint64_t)got[i] != want)
			snprintf(why + strlen(why), wl - strlen(why), " %s: %d, want %llu",
				 keys[i], got[i], (unsigned long long)want);
	}
	return why[0] ? -1 : 0;
}

/*
 * cm [conn=N] [est=N] [disc=N] [rej=N] [ms=N]: wait (up to ms, default the
 * step timeout) until the RDMA/CM connection has been established that
 * many times (ESTABLISHED, or the RTU of an rtu_delay login sent), received
 * that many DISCONNECTED (the target's DREQ) and REJECTED events. Fails at
 * once when the connection has ended (rejected, failed, disconnected) and
 * the counts differ.
 */
static int step_cm(struct rt *r, char **tok, int n)
{
	struct kvs k;
	struct conn *c;
	uint64_t ms, end;
	char why[512], got[256];
	int ret, ended;

	kv_init(&k, tok, n);
	c = count_step_conn(r, &k, 0, &ms);
	if (!c)
		return -1;
	end = now_ms() + ms;
	for (;;) {
		ended = c->st == CS_REJ || c->st == CS_FAIL || c->st == CS_DISC ||
			c->st == CS_CLOSED;
		ret = cm_check(r, c, &k, why, sizeof(why));
		if (ret != -1 || ended || now_ms() >= end)
			break;
		pump(5);
	}
	if (ret == -2)
		return -1;
	if (ret == 0)
		return kv_unused(&k, r->err, sizeof(r->err));
	login_outcome(c, got, sizeof(got));
	rt_fail(r, "cm c%d %s:%s (login %s, %s)", c->idx,
		ended ? "has ended" : "timed out", why, got, st_name(c->st));
	return -1;
}

static const struct {
	const char *name;
	int (*run)(struct rt *r, char **tok, int n);
} steps[] = {
	{ "login", step_login }, { "send", step_send }, { "expect", step_expect },
	{ "drain", step_drain }, { "settle", step_settle }, { "alive", step_alive },
	{ "use", step_use }, { "credits", step_credits }, { "unreg", step_unreg },
	{ "close", step_close }, { "kill", step_kill }, { "destroy", step_destroy },
	{ "sleep", step_sleep }, { "io", step_io }, { "sh", step_sh },
	{ "finally", step_finally }, { "requires", step_requires },
	{ "icm", step_icm }, { "cm", step_cm },
};

/* run_step: one line of a case: its step with the arguments */
static int run_step(struct rt *r, char *line)
{
	char *tok[MAXTOK], *rest;
	char copy[4096];
	size_t i;
	int n;

	snprintf(copy, sizeof(copy), "%s", line);
	n = tokenize(copy, tok, MAXTOK);
	if (!n)
		return 0;
	rest = line + (tok[0] - copy) + strlen(tok[0]);
	while (isspace((unsigned char)*rest))
		rest++;
	vlog("step: %s", line);
	r->rest = rest;
	r->sent = 0;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (!strcmp(tok[0], steps[i].name))
			return steps[i].run(r, tok + 1, n - 1);
	rt_fail(r, "unknown step '%s'", tok[0]);
	return -1;
}

/* ---- a case run step by step (fuzz.c) ---- */

/* rt_open: the context of a case numbered IDX whose steps come one by one */
struct rt *rt_open(int idx)
{
	struct rt *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->idx = idx;
	r->seed = 0x1000u + idx;
	return r;
}

/*
 * rt_step: run one step LINE (no macros) in R; 0 or -1 with ERR. *SENT
 * gets the IUs a send step sent (also when it failed).
 */
int rt_step(struct rt *r, const char *line, int *sent, char *err, size_t errlen)
{
	char copy[4096];
	int ret;

	snprintf(copy, sizeof(copy), "%s", line);
	r->err[0] = 0;
	r->sent = 0;
	ret = run_step(r, copy);
	*sent = r->sent;
	snprintf(err, errlen, "%s", ret ? r->err : "");
	return ret;
}

/* rt_alive: R's current channel is up */
int rt_alive(const struct rt *r)
{
	return r->cur && conn_alive(r->cur);
}

/* rt_outcome: how the login of R's current channel ended ("ok", "rej:REASON", ...) */
void rt_outcome(const struct rt *r, char *out, size_t len)
{
	if (r->cur)
		login_outcome(r->cur, out, len);
	else
		snprintf(out, len, "none");
}

/* rt_close: tear R's channels down as after a case, then free R */
void rt_close(struct rt *r)
{
	int i;

	for (i = 0; i < r->nconn; i++)
		conn_destroy(r->conns[i]);
	for (i = 0; i < r->nfinally; i++)
		free(r->finally[i]);
	free(r);
	if (!g_cfg.dry)
		pump(20);
}

/* ---- health check and kernel log ---- */

int health(int idx, char *err, size_t errlen)
{
	struct login_opts o;
	struct conn *c = conn_alloc();
	char got[256];
	int ret = -1;

	if (!c) {
		snprintf(err, errlen, "no connection slot");
		return -1;
	}
	run_login_opts(&o);
	o.nrecv = 32;
	o.nslot = 16;
	o.dsz = 64 << 10;
	if (conn_start(c, &o, err, errlen))
		goto out;
	conn_wait_login(c, g_cfg.tmo);
	login_outcome(c, got, sizeof(got));
	if (strcmp(got, "ok")) {
		snprintf(err, errlen, "health login: %s", got);
		goto out;
	}
	if (do_io(c, 0, 1024 + (uint64_t)(idx % 256) * 8, 8, 0x5eed0000u + idx, err, errlen))
		goto out;
	ret = 0;
out:
	conn_destroy(c);
	return ret;
}

static const char *const splat[] = {
	"WARNING:", "BUG:", "BUG ", "Oops", "general protection fault", "blocked for more than",
	"KASAN", "UBSAN", "list_add corruption", "list_del corruption", "refcount_t:",
	"kernel NULL pointer", "stack-protector", "soft lockup", "hard LOCKUP", "Call Trace",
	"circular locking", "possible recursive locking", "KFENCE:", "suspected memory leak",
};

void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/*
 * The stack dump of an injected allocation failure (fault injection), or
 * of the allocation-failure warning that may follow it (page allocation,
 * vmalloc, kmem_cache_create() "failed with error -N"), is no splat: up to
 * the dump's end, its "Call Trace" line and its frames (lines that start
 * with a space) do not count. Other lines in between (a WARNING from
 * another CPU) still do.
 */
static int kmsg_fault_dump(const char *msg, int *in_dump)
{
	if (strstr(msg, "FAULT_INJECTION: forcing a failure") ||
	    strstr(msg, "page allocation failure") || strstr(msg, "vmalloc error") ||
	    strstr(msg, "failed with error -")) {
		*in_dump = 1;
		return 1;
	}
	if (!*in_dump)
		return 0;
	if (strstr(msg, "</TASK>")) {
		*in_dump = 0;
		return 1;
	}
	return msg[0] == ' ' || !strncmp(msg, "Call Trace", 10);
}

int kmsg_check(char *err, size_t errlen)
{
	static int in_dump;
	char rec[8192];
	int found = 0, fault_dump;
	ssize_t n;

	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		char *msg;
		size_t i;

		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (strchr(msg, '\n'))
			*strchr(msg, '\n') = 0;
		if (g_verbose > 1)
			fprintf(stderr, "  kmsg: %s\n", msg);
		fault_dump = kmsg_fault_dump(msg, &in_dump);
		for (i = 0; i < sizeof(splat) / sizeof(splat[0]); i++)
			if (strstr(msg, splat[i]) && !found && !fault_dump) {
				snprintf(err, errlen, "kernel log: %.900s", msg);
				found = 1;
			}
	}
	return found ? -1 : 0;
}

/* ---- main loop ---- */

/*
 * A case runs when no "!GLOB" matches its name and, if there is any plain
 * GLOB, one of those does.
 */
static int selected(struct kase *k, int nsel, char **sel)
{
	int i, plain = 0, hit = 0;

	for (i = 0; i < nsel; i++) {
		if (sel[i][0] == '!') {
			if (!fnmatch(sel[i] + 1, k->name, 0))
				return 0;
			continue;
		}
		plain = 1;
		if (!fnmatch(sel[i], k->name, 0))
			hit = 1;
	}
	return !plain || hit;
}

static void report(const char *res, const char *name, const char *why, uint64_t ms)
{
	printf("%-6s %s (%llu ms)%s%s\n", res, name, (unsigned long long)ms, why && *why ? ": " : "",
	       why ? why : "");
	fflush(stdout);
	if (subres) {
		/* the harness knows PASS/FAIL/SKIP; a confirmed stock failure is a SKIP */
		fprintf(subres, "%s %s%s%.300s\n", strcmp(res, "KNOWN") ? res : "SKIP", name,
			why && *why ? ": " : "", why ? why : "");
		fflush(subres);
	}
}

static int run_case(struct kase *k, int idx, char *err, size_t errlen, int *skip)
{
	struct rt r;
	int i, ret = 0;

	memset(&r, 0, sizeof(r));
	r.k = k;
	r.idx = idx;
	r.seed = 0x1000u + idx;
	*skip = 0;
	for (i = 0; i < k->nline; i++) {
		char line[4096], missing[64];

		if (expand(k->line[i], line, sizeof(line), missing, sizeof(missing), 0)) {
			snprintf(err, errlen, "needs $%s (line %d)", missing, k->lineno[i]);
			*skip = 1;
			ret = -1;
			break;
		}
		if (run_step(&r, line)) {
			snprintf(err, errlen, "line %d: %.1000s", k->lineno[i], r.err);
			*skip = r.skip;
			ret = -1;
			break;
		}
		if (r.done)
			break;
	}
	for (i = 0; i < r.nconn; i++)
		conn_destroy(r.conns[i]);
	for (i = 0; i < r.nfinally; i++) {
		char e2[512], line[4096], missing[64];

		if (!expand(r.finally[i], line, sizeof(line), missing, sizeof(missing), 0) &&
		    run_sh(line, e2, sizeof(e2)) && !ret) {
			snprintf(err, errlen, "finally: %s", e2);
			ret = -1;
		}
		free(r.finally[i]);
	}
	/* let the target process the disconnects */
	pump(20);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
"usage: srp-hostile [options] CASEFILE [CASE-GLOB...] [!CASE-GLOB...]\n"
"       srp-hostile [options] -z SEED [-N COUNT] [-b BATCH] [-q MS] [-j FIRST] [-D] [-w FILE]\n"
"  (a case runs when it matches one CASE-GLOB, if any is given, and no !CASE-GLOB)\n"
"  -z SEED     fuzz: send COUNT mutated IUs generated from SEED, in batches of\n"
"              BATCH IUs, each followed by the health check (no CASEFILE)\n"
"  -N COUNT    IUs to send (default 20000)\n"
"  -b BATCH    IUs per batch (default 100)\n"
"  -q MS       a drain between groups of IUs ends after MS ms without a\n"
"              response (default 100)\n"
"  -j FIRST    start at batch FIRST (batches are generated independently)\n"
"  -D          dry run: print each batch's steps and IU bytes, send nothing\n"
"              (no target needed)\n"
"  -w FILE     append a failing batch to FILE as a case\n"
"  -d ADDR     target IP address (required); with -T ibcm its GID, or an IPv4\n"
"              address for its IPv4-mapped GID\n"
"  -p PORT     target RDMA/CM port (default 5555)\n"
"  -s ADDR     source IP address (-T ibcm: source GID or IPv4 address)\n"
"  -T KIND     transport: rdmacm (default) or ibcm (CM MADs through libibumad;\n"
"              the kernel's ib_cm must not be loaded on this host)\n"
"  -X          run the IB/CM message self-test and exit\n"
"  -g GUID     target service GUID (default: /sys/module/ib_srpt/parameters/srpt_service_guid)\n"
"  -i HEX32    initiator port ID (default 0x0000000000000001000000000000abcd)\n"
"  -m SIZE     target srp_max_req_size (default: from sysfs, else 8260)\n"
"  -t MS       per-step timeout (default 3000)\n"
"  -n MS       how long 'expect none' waits (default 400)\n"
"  -o FILE     append PASS/FAIL/SKIP lines per case to FILE\n"
"  -S          stock mode: skip cases marked stock=crash, report stock=bad failures as KNOWN\n"
"  -F          with -S, run stock=crash cases too\n"
"  -M MODE     the target's receive mode, ring (default) or srq: cases marked\n"
"              mode= for the other mode are left out\n"
"  -H          no health check after each case\n"
"  -k          keep going when the target stays unhealthy\n"
"  -l          list the cases and exit\n"
"  -v          verbose (twice: also print new kernel log lines)\n");
	exit(2);
}

static int read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Counts of the run's verdicts. */
struct tally {
	int npass, nfail, nskip, nknown;
	int unhealthy;          /* failed health checks in a row */
	char known[8192];       /* the stock-known-bad cases */
};

static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/* parse_args: options into g_cfg, *INITID, *LIST and *FO; exits on a bad one */
static int parse_args(int argc, char **argv, const char **initid, int *list,
		      struct fuzz_opts *fo, int *fuzz)
{
	int opt;

	fo->count = 20000;
	fo->batch = 100;
	fo->quiet = 100;
	fo->shrink = 1;

	g_cfg.port = 5555;
	g_cfg.tmo = 3000;
	g_cfg.none_ms = 400;
	g_cfg.health = 1;
	g_cfg.max_req = 0;
	snprintf(g_cfg.mode, sizeof(g_cfg.mode), "ring");
	while ((opt = getopt(argc, argv, "d:p:s:g:i:m:t:n:o:M:T:XSFHklvz:N:b:q:j:Dw:")) != -1) {
		switch (opt) {
		case 'z': fo->seed = strtoull(optarg, NULL, 0); *fuzz = 1; break;
		case 'N': fo->count = strtoull(optarg, NULL, 0); break;
		case 'b': fo->batch = atoi(optarg); break;
		case 'q': fo->quiet = atoi(optarg); break;
		case 'j': fo->first = strtoull(optarg, NULL, 0); break;
		case 'D': g_cfg.dry = 1; break;
		case 'w': fo->save = optarg; break;
		case 'T':
			if (!strcmp(optarg, "ibcm"))
				g_transport = TR_IBCM;
			else if (!strcmp(optarg, "rdmacm"))
				g_transport = TR_RDMACM;
			else
				usage();
			break;
		case 'X': exit(cm_selftest());
		case 'd': snprintf(g_cfg.dst, sizeof(g_cfg.dst), "%s", optarg); break;
		case 'p': g_cfg.port = atoi(optarg); break;
		case 's': snprintf(g_cfg.src, sizeof(g_cfg.src), "%s", optarg); break;
		case 'g': g_cfg.guid = strtoull(optarg, NULL, 16); break;
		case 'i': *initid = optarg; break;
		case 'm': g_cfg.max_req = strtoul(optarg, NULL, 0); break;
		case 't': g_cfg.tmo = atoi(optarg); break;
		case 'n': g_cfg.none_ms = atoi(optarg); break;
		case 'o':
			subres = fopen(optarg, "a");
			if (!subres) {
				perror(optarg);
				return -1;
			}
			break;
		case 'S': g_cfg.stock = 1; break;
		case 'F': g_cfg.force = 1; break;
		case 'M': snprintf(g_cfg.mode, sizeof(g_cfg.mode), "%s", optarg); break;
		case 'H': g_cfg.health = 0; break;
		case 'k': g_cfg.keep_going = 1; break;
		case 'l': *list = 1; break;
		case 'v': g_verbose++; break;
		default: usage();
		}
	}
	if ((!*fuzz && optind >= argc) || (*fuzz && optind < argc) ||
	    (strcmp(g_cfg.mode, "ring") && strcmp(g_cfg.mode, "srq")) || fo->batch < 1 ||
	    (g_cfg.dry && !*fuzz))
		usage();
	return 0;
}

static int list_cases(int nsel, char **sel)
{
	int i, n = 0;

	for (i = 0; i < ncases; i++) {
		if (!selected(&cases[i], nsel, sel))
			continue;
		printf("%s%s%s%s%s\n", cases[i].name, cases[i].stock[0] ? " stock=" : "",
		       cases[i].stock, cases[i].mode[0] ? " mode=" : "", cases[i].mode);
		n++;
	}
	printf("%d cases\n", n);
	return 0;
}

/*
 * target_params: GUID and srp_max_req_size (options, else the loaded
 * module's parameters), our port IDs, and $GUID/$MAXREQ for the cases.
 */
static int target_params(const char *initid)
{
	char buf[128];

	if (!g_cfg.guid && !read_sysfs("/sys/module/ib_srpt/parameters/srpt_service_guid", buf, sizeof(buf)))
		g_cfg.guid = strtoull(buf, NULL, 16);
	if (!g_cfg.max_req && !read_sysfs("/sys/module/ib_srpt/parameters/srp_max_req_size", buf, sizeof(buf)))
		g_cfg.max_req = strtoul(buf, NULL, 0);
	if (!g_cfg.max_req)
		g_cfg.max_req = 8260;
	if (parse_hex(initid, g_cfg.init_id, 16) != 16) {
		fprintf(stderr, "bad initiator port ID %s\n", initid);
		return -1;
	}
	put_be64(g_cfg.tgt_id, g_cfg.guid);
	put_be64(g_cfg.tgt_id + 8, g_cfg.guid);
	snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)g_cfg.guid);
	setenv("GUID", buf, 1);
	snprintf(buf, sizeof(buf), "%u", g_cfg.max_req);
	setenv("MAXREQ", buf, 1);
	return 0;
}

/*
 * case_left_out: whether case K does not run: not selected, for the other
 * receive mode, or (reported here) after the target stayed unhealthy or as
 * a stock=crash case in stock mode.
 */
static int case_left_out(struct kase *k, struct tally *t, int nsel, char **sel)
{
	if (!selected(k, nsel, sel))
		return 1;
	if (k->mode[0] && strcmp(k->mode, g_cfg.mode)) {
		vlog("%s: only for mode=%s", k->name, k->mode);
		return 1;
	}
	if (t->unhealthy >= 2 && !g_cfg.keep_going) {
		report("FAIL", k->name, "not run: the target stayed unhealthy", 0);
		t->nfail++;
		return 1;
	}
	if (g_cfg.stock && !strcmp(k->stock, "crash") && !g_cfg.force) {
		report("SKIP", k->name, "stock-known-bad: crashes or wedges the stock target", 0);
		t->nskip++;
		t->nknown++;
		append(t->known, sizeof(t->known), " %.95s(crash)", k->name);
		return 1;
	}
	return 0;
}

/* health_after: the health check after case IDX, once more after 2 s */
static void health_after(int idx, struct tally *t, char *herr, size_t len)
{
	char h2[1024];

	if (!health(idx, herr, len)) {
		t->unhealthy = 0;
		return;
	}
	pump(2000);
	if (health(idx, h2, sizeof(h2)))
		t->unhealthy++;
	else
		append(herr, len, " (recovered after 2 s)");
}

/* known_bad: the stock target is known to fail case K (stock mode) */
static int known_bad(const struct kase *k)
{
	return g_cfg.stock && !strcmp(k->stock, "bad");
}

/* report_failure: a failed case (ERR) as KNOWN in stock mode, else FAIL */
static void report_failure(struct kase *k, struct tally *t, const char *err, uint64_t ms)
{
	char w[1100];

	if (known_bad(k)) {
		snprintf(w, sizeof(w), "stock-known-bad: %s", err);
		report("KNOWN", k->name, w, ms);
		t->nknown++;
		append(t->known, sizeof(t->known), " %.95s", k->name);
	} else {
		report("FAIL", k->name, err, ms);
		t->nfail++;
	}
}

/* run_one: case IDX, the health check after it, new kernel log splats */
static void run_one(struct kase *k, int idx, struct tally *t)
{
	char err[1024] = "", herr[1024] = "", kerr[1024] = "";
	int ret, skip = 0;
	uint64_t t0 = now_ms();

	printf("...... %s\n", k->name);
	fflush(stdout);
	kmsg_check(kerr, sizeof(kerr)); /* drop older lines */
	kerr[0] = 0;
	ret = run_case(k, idx, err, sizeof(err), &skip);
	if (g_cfg.health && !skip)
		health_after(idx, t, herr, sizeof(herr));
	kmsg_check(kerr, sizeof(kerr));
	if (!ret && !herr[0] && kerr[0] == 0) {
		report("PASS", k->name, known_bad(k) ? "marked stock-known-bad but passed" : "",
		       now_ms() - t0);
		t->npass++;
		return;
	}
	if (skip) {
		report("SKIP", k->name, err, now_ms() - t0);
		t->nskip++;
		return;
	}
	if (herr[0])
		append(err, sizeof(err), "%starget unhealthy after case: %s", err[0] ? "; " : "", herr);
	if (kerr[0])
		append(err, sizeof(err), "%s%s", err[0] ? "; " : "", kerr);
	report_failure(k, t, err, now_ms() - t0);
}

static int summary(const struct tally *t, uint64_t t0)
{
	if (g_cfg.stock)
		printf("stock-known-bad (%d):%s\n", t->nknown, t->known);
	printf("srp-hostile: %d passed, %d failed, %d skipped, %d stock-known-bad, %llu s\n",
	       t->npass, t->nfail, t->nskip, t->nknown, (unsigned long long)(now_ms() - t0) / 1000);
	printf("%d passed, %d failed\n", t->npass, t->nfail);
	return t->nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *initid = "0x0000000000000001000000000000abcd";
	static struct tally t;
	struct fuzz_opts fo = { 0 };
	uint64_t t0 = now_ms();
	char err[1024];
	int list = 0, fuzz = 0, i;

	if (parse_args(argc, argv, &initid, &list, &fo, &fuzz))
		return 2;
	if (fuzz) {
		if (!g_cfg.dry && !g_cfg.dst[0])
			usage();
		if (target_params(initid) || (!g_cfg.dry && cm_init()))
			return 2;
		if (!g_cfg.dry)
			kmsg_open();
		return fuzz_main(&fo);
	}
	if (load_cases(argv[optind]))
		return 2;
	if (list)
		return list_cases(argc - optind - 1, argv + optind + 1);
	if (!g_cfg.dst[0])
		usage();
	if (target_params(initid) || cm_init())
		return 2;
	kmsg_open();
	printf("srp-hostile: target %s:%d guid 0x%016llx srp_max_req_size %u, %s mode, %d cases%s\n",
	       g_cfg.dst, g_cfg.port, (unsigned long long)g_cfg.guid, g_cfg.max_req, g_cfg.mode,
	       ncases, g_cfg.stock ? " (stock mode)" : "");
	fflush(stdout);
	if (g_cfg.health && health(0, err, sizeof(err))) {
		printf("FATAL: target not usable before the first case: %s\n", err);
		return 1;
	}
	for (i = 0; i < ncases; i++)
		if (!case_left_out(&cases[i], &t, argc - optind - 1, argv + optind + 1))
			run_one(&cases[i], i, &t);
	conn_destroy_all();
	return summary(&t, t0);
}
