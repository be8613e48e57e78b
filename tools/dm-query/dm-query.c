// SPDX-License-Identifier: GPL-2.0
/*
 * dm-query - talk to the device-management agent of a local RDMA port.
 *
 * Sends InfiniBand device-management MADs (class 0x06, IBA 16.3) through
 * libibumad to the GSI QP of a port of this host - with a GRH, which RoCE
 * requires - and prints or checks the replies byte by byte. It is what
 * srp_daemon does on a fabric, without the subnet administrator that soft
 * RDMA devices lack.
 *
 *   dm-query [options] probe
 *	ClassPortInfo GET. Exit 0: a device-management agent answered;
 *	3: the MAD layer itself answered "unsupported method/attribute" (no
 *	agent registered for the class); 2: no reply at all.
 *   dm-query [options] get|set ATTR [MOD]
 *   dm-query [options] method METHOD ATTR [MOD]
 *	Send one MAD and print the reply's status and a hex dump.
 *   dm-query [options] check
 *	Run the whole srp_daemon conversation plus malformed requests and
 *	compare every reply with what ib_srpt must send; one "PASS name" or
 *	"FAIL name: ..." line per query. Exit 0 if all passed.
 *
 * Options:
 *   -d DEV   RDMA device (default: the first one)
 *   -p PORT  port number (default 1)
 *   -g IDX   source GID index; the GID at that index is also the
 *            destination (default 0)
 *   -t MS    reply timeout per try in milliseconds (default 1000)
 *   -r N     retries (default 2)
 *   -G GUID  expected IOC GUID (ib_srpt's srpt_service_guid; required
 *            for check)
 *   -s N     expected send size (srp_max_req_size, default 8276)
 *   -R N     expected RDMA size (srp_max_rdma_size, default 65536)
 *   -q N     expected srp_sq_size (default 4096)
 *   -S       the agent is the stock ib_srpt: where it is known to answer
 *            differently (IOC profile layout and values, empty slot 2, the
 *            entry range), report SKIP instead of FAIL, and check the IOC
 *            profile fields that discovery relies on separately
 *   -v       also dump every reply of check
 *   -h, --help
 *            what it does, all options and the exit codes (on stdout)
 *
 * It only ever addresses the local port (its own LID and GID): it checks a
 * target's agent from the target itself and does not discover remote
 * targets.
 */

#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_types.h>
#include <infiniband/verbs.h>

#define MAD_SIZE		256
#define DM_HDR			64	/* common header + DM class header */
#define DM_CLASS		0x06
#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define METHOD_GET_RESP		0x81

#define ATTR_CLASS_PORT_INFO	0x0001
#define ATTR_IOU_INFO		0x0010
#define ATTR_IOC_PROFILE	0x0011
#define ATTR_SVC_ENTRIES	0x0012

#define ST_UNSUP_METHOD_ATTR	0x000c
#define ST_INVALID_FIELD	0x001c
#define ST_NO_IOC		0x0100

#define EXIT_USAGE		1
#define EXIT_NO_REPLY		2
#define EXIT_NO_AGENT		3

struct options {
	const char *dev;
	int port;
	int gid_index;
	int timeout_ms;
	int retries;
	bool verbose;
	bool stock;
	bool have_guid;
	uint64_t guid;
	uint32_t send_size;
	uint32_t rdma_size;
	uint32_t sq_size;
};

struct port {
	int portid;
	int agent;
	bool grh;
	uint16_t lid;
	uint8_t gid[16];
	struct ibv_device_attr attr;
};

static struct options opt = {
	.port = 1,
	.timeout_ms = 1000,
	.retries = 2,
	.send_size = 8276,
	.rdma_size = 65536,
	.sq_size = 4096,
};

static void put_be16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint16_t get_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static void hexdump(FILE *f, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		fprintf(f, "%s%02x%s", i % 16 ? "" : "  ",
			p[i], i % 16 == 15 || i == len - 1 ? "\n" : " ");
}

/* Fills in the HCA attributes and the GID; opens and registers the port. */
static int port_open(struct port *port)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	umad_port_t uport;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list || !n) {
		fprintf(stderr, "dm-query: no RDMA devices\n");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (opt.dev && strcmp(ibv_get_device_name(list[i]), opt.dev))
			continue;
		opt.dev = strdup(ibv_get_device_name(list[i]));
		ctx = ibv_open_device(list[i]);
		break;
	}
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "dm-query: cannot open device %s\n",
			opt.dev ? opt.dev : "(none)");
		return -1;
	}
	if (ibv_query_device(ctx, &port->attr) ||
	    ibv_query_port(ctx, opt.port, &pattr) ||
	    ibv_query_gid(ctx, opt.port, opt.gid_index, &gid)) {
		fprintf(stderr, "dm-query: cannot query %s port %d GID %d\n",
			opt.dev, opt.port, opt.gid_index);
		ibv_close_device(ctx);
		return -1;
	}
	ibv_close_device(ctx);
	memcpy(port->gid, gid.raw, sizeof(port->gid));
	port->grh = pattr.link_layer != IBV_LINK_LAYER_INFINIBAND;

	if (umad_init() < 0 || umad_get_port(opt.dev, opt.port, &uport) < 0) {
		fprintf(stderr, "dm-query: no umad port for %s/%d (ib_umad loaded?)\n",
			opt.dev, opt.port);
		return -1;
	}
	port->lid = uport.base_lid;
	umad_release_port(&uport);

	port->portid = umad_open_port(opt.dev, opt.port);
	if (port->portid < 0) {
		fprintf(stderr, "dm-query: umad_open_port(%s, %d) failed: %s\n",
			opt.dev, opt.port, strerror(-port->portid));
		return -1;
	}
	/* No methods: this agent only receives replies to its requests. */
	port->agent = umad_register(port->portid, DM_CLASS, 1, 0, NULL);
	if (port->agent < 0) {
		fprintf(stderr, "dm-query: umad_register failed: %s\n",
			strerror(-port->agent));
		return -1;
	}
	return 0;
}

/*
 * Sends one device-management MAD and waits for the reply. Returns 0 and
 * the reply in @reply, or -1 if nothing came back.
 */
static int dm_xfer(struct port *port, uint8_t method, uint16_t attr_id,
		   uint32_t attr_mod, uint8_t reply[MAD_SIZE])
{
	static uint32_t tid = 0x5e000000;
	size_t usize = umad_size() + MAD_SIZE;
	void *umad = calloc(1, usize);
	ib_mad_addr_t *addr;
	uint8_t *mad;
	int len, ret;

	if (!umad)
		return -1;
	mad = umad_get_mad(umad);
	mad[0] = 1;			/* base version */
	mad[1] = DM_CLASS;
	mad[2] = 1;			/* class version */
	mad[3] = method;
	put_be64(mad + 8, ++tid);	/* the kernel sets the upper half */
	put_be16(mad + 16, attr_id);
	put_be32(mad + 20, attr_mod);

	umad_set_addr(umad, port->lid, 1, 0, UMAD_QKEY);
	umad_set_pkey(umad, 0);
	if (port->grh) {
		addr = umad_get_mad_addr(umad);
		addr->grh_present = 1;
		addr->gid_index = opt.gid_index;
		addr->hop_limit = 64;
		addr->traffic_class = 0;
		addr->flow_label = 0;
		memcpy(addr->gid, port->gid, sizeof(port->gid));
	}

	ret = umad_send(port->portid, port->agent, umad, MAD_SIZE,
			opt.timeout_ms, opt.retries);
	if (ret < 0) {
		fprintf(stderr, "dm-query: umad_send failed: %s\n",
			strerror(-ret));
		free(umad);
		return -1;
	}
	for (;;) {
		len = MAD_SIZE;
		ret = umad_recv(port->portid, umad, &len,
				opt.timeout_ms * (opt.retries + 1) + 1000);
		if (ret < 0) {
			fprintf(stderr, "dm-query: umad_recv failed: %s\n",
				strerror(-ret));
			break;
		}
		if (umad_status(umad)) {
			fprintf(stderr, "dm-query: no reply (status %d: %s)\n",
				umad_status(umad), strerror(umad_status(umad)));
			ret = -1;
			break;
		}
		mad = umad_get_mad(umad);
		if (get_be32(mad + 12) != tid)	/* a stale reply */
			continue;
		memcpy(reply, mad, MAD_SIZE);
		ret = 0;
		break;
	}
	free(umad);
	return ret < 0 ? -1 : 0;
}

static int failures;

/* Flags of a query. */
enum {
	STOCK_DIFFERS = 1 << 0,	/* the stock ib_srpt answers differently */
};

/*
 * Compares a reply with the expected header fields and data; @want_data
 * holds the whole 192-byte data area. With @mask, only the data bytes whose
 * mask byte is non-zero are compared (the header always is).
 */
static void check_reply(const char *name, const uint8_t *reply, bool ok,
			uint16_t attr_id, uint32_t attr_mod, uint16_t status,
			const uint8_t want_data[MAD_SIZE - DM_HDR],
			const uint8_t *mask, unsigned int flags)
{
	uint8_t want[MAD_SIZE];
	int i;

	if (!ok) {
		printf("FAIL %s: no reply\n", name);
		failures++;
		return;
	}
	memset(want, 0, sizeof(want));
	want[0] = 1;
	want[1] = DM_CLASS;
	want[2] = 1;
	want[3] = METHOD_GET_RESP;
	put_be16(want + 4, status);
	memcpy(want + 8, reply + 8, 4);	/* the kernel's half of the TID */
	memcpy(want + 12, reply + 12, 4);	/* checked by dm_xfer() */
	put_be16(want + 16, attr_id);
	put_be32(want + 20, attr_mod);
	memcpy(want + DM_HDR, want_data, MAD_SIZE - DM_HDR);

	for (i = 0; i < MAD_SIZE; i++)
		if (reply[i] != want[i] &&
		    (!mask || i < DM_HDR || mask[i - DM_HDR]))
			break;
	if (i == MAD_SIZE) {
		printf("PASS %s\n", name);
		if (opt.verbose)
			hexdump(stdout, reply, MAD_SIZE);
		return;
	}
	if (opt.stock && (flags & STOCK_DIFFERS)) {
		printf("SKIP %s: the stock ib_srpt differs: byte %d is 0x%02x, not 0x%02x (status 0x%04x)\n",
		       name, i, reply[i], want[i], get_be16(reply + 4));
		if (opt.verbose)
			hexdump(stdout, reply, MAD_SIZE);
		return;
	}
	printf("FAIL %s: byte %d is 0x%02x, expected 0x%02x (status 0x%04x)\n",
	       name, i, reply[i], want[i], get_be16(reply + 4));
	printf("  got:\n");
	hexdump(stdout, reply, MAD_SIZE);
	printf("  expected:\n");
	hexdump(stdout, want, MAD_SIZE);
	failures++;
}

static void query_masked(struct port *port, const char *name,
			 uint8_t method, uint16_t attr_id, uint32_t attr_mod,
			 uint16_t status,
			 const uint8_t want_data[MAD_SIZE - DM_HDR],
			 const uint8_t *mask, unsigned int flags)
{
	uint8_t reply[MAD_SIZE];
	bool ok = !dm_xfer(port, method, attr_id, attr_mod, reply);

	check_reply(name, reply, ok, attr_id, attr_mod, status, want_data,
		    mask, flags);
}

static void query(struct port *port, const char *name, uint8_t method,
		  uint16_t attr_id, uint32_t attr_mod, uint16_t status,
		  const uint8_t want_data[MAD_SIZE - DM_HDR],
		  unsigned int flags)
{
	query_masked(port, name, method, attr_id, attr_mod, status, want_data,
		     NULL, flags);
}

static int cmd_check(struct port *port)
{
	uint8_t d[MAD_SIZE - DM_HDR], mask[MAD_SIZE - DM_HDR];
	const uint8_t zero[MAD_SIZE - DM_HDR] = { 0 };
	const char *id = "SCSI RDMA Protocol target";
	uint32_t sq = opt.sq_size;

	if (!opt.have_guid) {
		fprintf(stderr, "dm-query: check needs -G GUID\n");
		return 1;
	}

	memset(d, 0, sizeof(d));
	d[0] = 1;			/* base version */
	d[1] = 1;			/* class version */
	put_be32(d + 4, 20);		/* response time value */
	query(port, "class-port-info", METHOD_GET, ATTR_CLASS_PORT_INFO, 0, 0,
	      d, 0);

	memset(d, 0, sizeof(d));
	put_be16(d, 1);			/* change ID */
	d[2] = 16;			/* max controllers */
	d[4] = 0x10;			/* slot 1 present */
	query(port, "iou-info", METHOD_GET, ATTR_IOU_INFO, 0, 0, d, 0);

	if (port->attr.max_qp_wr >= 0 && sq > (uint32_t)port->attr.max_qp_wr)
		sq = port->attr.max_qp_wr;
	if (sq > 0xffff)
		sq = 0xffff;
	memset(d, 0, sizeof(d));
	put_be64(d, opt.guid);
	put_be32(d + 8, (port->attr.vendor_id & 0xffffff) << 8);
	put_be32(d + 12, port->attr.vendor_part_id);
	put_be16(d + 16, port->attr.hw_ver);
	put_be32(d + 20, (port->attr.vendor_id & 0xffffff) << 8);
	put_be32(d + 24, port->attr.vendor_part_id);
	put_be16(d + 28, 0x0100);	/* I/O class: SRP rev. 16a */
	put_be16(d + 30, 0x609e);	/* I/O subclass */
	put_be16(d + 32, 0x0108);	/* protocol */
	put_be16(d + 34, 1);		/* protocol version */
	put_be16(d + 40, sq);
	d[43] = 16;			/* RDMA read depth */
	put_be32(d + 44, opt.send_size);
	put_be32(d + 48, opt.rdma_size);
	d[52] = 0x3f;			/* ST SF RT RF WT WF */
	d[54] = 1;			/* service entries */
	memcpy(d + 64, id, strlen(id));
	query(port, "ioc-profile-slot-1", METHOD_GET, ATTR_IOC_PROFILE, 1, 0,
	      d, STOCK_DIFFERS);
	if (opt.stock) {
		/* What discovery and login strings rely on. */
		memset(mask, 0, sizeof(mask));
		memset(mask, 1, 8);		/* GUID */
		memset(mask + 12, 1, 6);	/* device ID and version */
		memset(mask + 28, 1, 8);	/* class .. protocol version */
		memset(mask + 44, 1, 8);	/* send and RDMA size */
		mask[54] = 1;			/* service entries */
		query_masked(port, "ioc-profile-slot-1-discovery-fields",
			     METHOD_GET, ATTR_IOC_PROFILE, 1, 0, d, mask, 0);
	}

	query(port, "ioc-profile-slot-0", METHOD_GET, ATTR_IOC_PROFILE, 0,
	      ST_INVALID_FIELD, zero, 0);
	query(port, "ioc-profile-slot-17", METHOD_GET, ATTR_IOC_PROFILE, 17,
	      ST_INVALID_FIELD, zero, 0);
	query(port, "ioc-profile-slot-2", METHOD_GET, ATTR_IOC_PROFILE, 2,
	      ST_NO_IOC, zero, STOCK_DIFFERS);

	memset(d, 0, sizeof(d));
	snprintf((char *)d, 41, "SRP.T10:%016" PRIx64, opt.guid);
	put_be64(d + 40, opt.guid);
	query(port, "service-entries", METHOD_GET, ATTR_SVC_ENTRIES,
	      1 << 16, 0, d, 0);
	query(port, "service-entries-bad-range", METHOD_GET, ATTR_SVC_ENTRIES,
	      1 << 16 | 1 << 8, ST_NO_IOC, zero, STOCK_DIFFERS);
	query(port, "service-entries-hi-below-lo", METHOD_GET,
	      ATTR_SVC_ENTRIES, 1 << 16 | 0 << 8 | 1, ST_NO_IOC, zero, 0);
	query(port, "service-entries-slot-2", METHOD_GET, ATTR_SVC_ENTRIES,
	      2 << 16, ST_NO_IOC, zero, STOCK_DIFFERS);

	query(port, "set-iou-info", METHOD_SET, ATTR_IOU_INFO, 0,
	      ST_UNSUP_METHOD_ATTR, zero, 0);
	query(port, "set-ioc-profile", METHOD_SET, ATTR_IOC_PROFILE, 1,
	      ST_UNSUP_METHOD_ATTR, zero, 0);
	query(port, "get-unknown-attribute", METHOD_GET, 0x0013, 0,
	      ST_UNSUP_METHOD_ATTR, zero, 0);

	printf("dm-query: %d failure(s)\n", failures);
	return failures ? 1 : 0;
}

static int cmd_one(struct port *port, uint8_t method, uint16_t attr_id,
		   uint32_t attr_mod)
{
	uint8_t reply[MAD_SIZE];

	if (dm_xfer(port, method, attr_id, attr_mod, reply))
		return EXIT_NO_REPLY;
	printf("method 0x%02x status 0x%04x attribute 0x%04x modifier 0x%08x\n",
	       reply[3], get_be16(reply + 4), get_be16(reply + 16),
	       get_be32(reply + 20));
	hexdump(stdout, reply, MAD_SIZE);
	return 0;
}

static int cmd_probe(struct port *port)
{
	uint8_t reply[MAD_SIZE];
	uint16_t status;

	if (dm_xfer(port, METHOD_GET, ATTR_CLASS_PORT_INFO, 0, reply)) {
		printf("no reply to a device-management GET\n");
		return EXIT_NO_REPLY;
	}
	status = get_be16(reply + 4);
	printf("ClassPortInfo reply: method 0x%02x status 0x%04x\n", reply[3],
	       status);
	if (status == ST_UNSUP_METHOD_ATTR) {
		printf("no device-management agent: the MAD layer answered\n");
		return EXIT_NO_AGENT;
	}
	return status ? 1 : 0;
}

static unsigned long long number(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "dm-query: bad number '%s'\n", s);
		exit(EXIT_USAGE);
	}
	return v;
}

static const char usage_text[] =
	"usage: dm-query [-d dev] [-p port] [-g gid_index] [-t ms] [-r retries]\n"
	"                [-G guid] [-s send_size] [-R rdma_size] [-q sq_size] [-S] [-v]\n"
	"                probe | check | get ATTR [MOD] | set ATTR [MOD] |\n"
	"                method METHOD ATTR [MOD]\n"
	"       dm-query -h | --help\n";

static const char help_text[] =
	"\n"
	"Sends InfiniBand device-management MADs (class 0x06) through ib_umad to\n"
	"the GSI QP of a port of THIS host - with a GRH on RoCE ports -\n"
	"and prints or checks the replies. It asks the same questions srp_daemon\n"
	"asks a target during discovery (ClassPortInfo, IOUnitInfo,\n"
	"IOControllerProfile, ServiceEntries), but only of the local port: the\n"
	"destination is the port's own LID and the GID at the source GID index.\n"
	"It cannot query another host and is no substitute for srp_daemon on a\n"
	"fabric. Run on the target, it shows whether a device-management agent\n"
	"(ib_srpt's) answers on a port and what it tells srp_daemon, also on\n"
	"RoCE, where srp_daemon cannot work (no subnet administrator).\n"
	"\n"
	"Subcommands:\n"
	"  probe                  GET ClassPortInfo and say who answered.\n"
	"  get ATTR [MOD]         GET attribute ATTR with attribute modifier MOD\n"
	"                         (default 0); print the reply's method, status,\n"
	"                         attribute, modifier and a hex dump of all 256\n"
	"                         bytes. ATTR: 0x01 ClassPortInfo, 0x10\n"
	"                         IOUnitInfo, 0x11 IOControllerProfile (MOD =\n"
	"                         slot; ib_srpt has slot 1), 0x12 ServiceEntries\n"
	"                         (MOD = slot << 16 | last << 8 | first).\n"
	"  set ATTR [MOD]         the same with the SET method.\n"
	"  method METHOD ATTR [MOD]\n"
	"                         the same with any method 0x00..0x7f.\n"
	"  check                  ib_srpt's test suite's conformance check: send\n"
	"                         srp_daemon's queries and malformed ones and\n"
	"                         compare every reply byte with what ib_srpt must\n"
	"                         send for a port with the expected values below;\n"
	"                         one PASS, FAIL or SKIP line per query, then\n"
	"                         \"dm-query: N failure(s)\". Needs -G.\n"
	"Numbers may be given in decimal, 0x hex or 0 octal.\n"
	"\n"
	"Options:\n"
	"  -d DEV     RDMA device (default: the first one)\n"
	"  -p PORT    port number (default 1)\n"
	"  -g IDX     source GID index; the GID at that index is also the\n"
	"             destination (default 0)\n"
	"  -t MS      reply timeout per try in milliseconds (default 1000)\n"
	"  -r N       retries (default 2)\n"
	"  -G GUID    check: the expected IOC GUID (ib_srpt's srpt_service_guid)\n"
	"  -s N       check: the expected send size (srp_max_req_size, default 8276)\n"
	"  -R N       check: the expected RDMA size (srp_max_rdma_size, default 65536)\n"
	"  -q N       check: the expected srp_sq_size (default 4096)\n"
	"  -S         check: the agent is the kernel's stock ib_srpt; report SKIP\n"
	"             where it is known to answer differently\n"
	"  -v         check: also dump every reply\n"
	"  -h, --help this text\n"
	"\n"
	"Exit status:\n"
	"  0  probe: a device-management agent answered with status 0;\n"
	"     get, set, method: a reply came (whatever its status);\n"
	"     check: every query passed or was skipped; -h: help printed\n"
	"  1  a usage error or bad number; the device, port or GID could not be\n"
	"     opened or queried; no umad port; probe: the agent answered with\n"
	"     another non-zero status; check: a query failed or got no reply,\n"
	"     or no -G\n"
	"  2  probe, get, set, method: no reply\n"
	"  3  probe: only the MAD layer answered (status 0x000c): no agent is\n"
	"     registered for device management on the port\n"
	"\n"
	"Needs the ib_umad kernel module (modprobe ib_umad) and read-write access\n"
	"to the port's /dev/infiniband/umadN, which only root has by default.\n";

static void __attribute__((noreturn)) usage(void)
{
	fputs(usage_text, stderr);
	exit(EXIT_USAGE);
}

static void __attribute__((noreturn)) help(void)
{
	fputs(usage_text, stdout);
	fputs(help_text, stdout);
	exit(fflush(stdout) ? EXIT_USAGE : 0);
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum { CMD_PROBE, CMD_CHECK, CMD_ONE } cmd;
	struct port port = { 0 };
	uint16_t attr_id = 0;
	uint8_t method = 0;
	uint32_t mod = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:p:g:t:r:G:s:R:q:Svh", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			opt.dev = optarg;
			break;
		case 'p':
			opt.port = number(optarg, 255);
			break;
		case 'g':
			opt.gid_index = number(optarg, 65535);
			break;
		case 't':
			opt.timeout_ms = number(optarg, 600000);
			break;
		case 'r':
			opt.retries = number(optarg, 100);
			break;
		case 'G':
			opt.guid = number(optarg, UINT64_MAX);
			opt.have_guid = true;
			break;
		case 's':
			opt.send_size = number(optarg, UINT32_MAX);
			break;
		case 'R':
			opt.rdma_size = number(optarg, UINT32_MAX);
			break;
		case 'q':
			opt.sq_size = number(optarg, UINT32_MAX);
			break;
		case 'S':
			opt.stock = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			help();
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();

	/* The command line in full before the port is opened. */
	if (!strcmp(argv[0], "probe") && argc == 1) {
		cmd = CMD_PROBE;
	} else if (!strcmp(argv[0], "check") && argc == 1) {
		cmd = CMD_CHECK;
	} else if ((!strcmp(argv[0], "get") || !strcmp(argv[0], "set")) &&
		   (argc == 2 || argc == 3)) {
		cmd = CMD_ONE;
		method = argv[0][0] == 'g' ? METHOD_GET : METHOD_SET;
		attr_id = number(argv[1], 0xffff);
		if (argc == 3)
			mod = number(argv[2], UINT32_MAX);
	} else if (!strcmp(argv[0], "method") && (argc == 3 || argc == 4)) {
		cmd = CMD_ONE;
		method = number(argv[1], 0x7f);
		attr_id = number(argv[2], 0xffff);
		if (argc == 4)
			mod = number(argv[3], UINT32_MAX);
	} else {
		usage();
	}

	if (port_open(&port))
		return 1;

	switch (cmd) {
	case CMD_PROBE:
		ret = cmd_probe(&port);
		break;
	case CMD_CHECK:
		ret = cmd_check(&port);
		break;
	default:
		ret = cmd_one(&port, method, attr_id, mod);
		break;
	}

	umad_unregister(port.portid, port.agent);
	umad_close_port(port.portid);
	umad_done();
	return ret;
}
