// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of ib_srpt. This file is included at the end of ib_srpt.c
 * (CONFIG_INFINIBAND_SRPT_KUNIT_TEST) so that it can call the driver's
 * static functions. It covers the device-management MAD replies byte by
 * byte, the WWN and ACL name parsers and formatters, login-request
 * validation, the ACL search of a login, joining a nexus and the login
 * response, the SRP_CMD data-descriptor parser, the SRP_RSP of a command,
 * command-state transitions, credit accounting, the TPG attributes
 * max_hw_pending_time and comp_v_mask (with the completion vector of a
 * new channel) and the IB/CM and RDMA/CM event handlers. Table-shaped
 * cases are KUNIT_ARRAY_PARAM cases: one row per input, named in the
 * report. No RDMA device is needed: the MAD handlers only read the
 * ib_device attributes and the port attributes, which the tests fake, and
 * the CM handlers get idle connection IDs.
 */

#include <kunit/test.h>
#include <linux/inet.h>

#define SRPT_TEST_GUID		0x0002c90300a1b2c3ULL
#define SRPT_TEST_REQ_SIZE	8260
#define SRPT_TEST_VENDOR	0x0002c9
#define SRPT_TEST_PART		4119		/* 0x1017 */
#define SRPT_TEST_HW_VER	0x00a0
#define SRPT_TEST_MAX_QP_WR	16384
#define SRPT_TEST_SQ_SIZE	4096
#define SRPT_TEST_RDMA_SIZE	65536
#define SRPT_TEST_TID		0x1122334455667788ULL

/* The ServiceEntries attribute modifier: slot, last and first entry. */
#define SVC_MOD(slot, hi, lo)	(((u32)(slot) << 16) | ((hi) << 8) | (lo))

/**
 * struct srpt_test_ctx - per-test state
 * @ibdev: fake HCA; only its attributes are read
 * @sdev: fake SRPT device with one port
 * @sport: port 1 of @sdev
 * @saved_guid: srpt_service_guid before the test
 * @saved_req_size: srp_max_req_size before the test
 */
struct srpt_test_ctx {
	struct ib_device *ibdev;
	struct srpt_device *sdev;
	struct srpt_port *sport;
	u64 saved_guid;
	int saved_req_size;
};

static int srpt_test_init(struct kunit *test)
{
	struct srpt_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->ibdev = kunit_kzalloc(test, sizeof(*ctx->ibdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->ibdev);
	ctx->sdev = kunit_kzalloc(test, struct_size(ctx->sdev, port, 1),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->sdev);

	ctx->ibdev->attrs.vendor_id = SRPT_TEST_VENDOR;
	ctx->ibdev->attrs.vendor_part_id = SRPT_TEST_PART;
	ctx->ibdev->attrs.hw_ver = SRPT_TEST_HW_VER;
	ctx->ibdev->attrs.max_qp_wr = SRPT_TEST_MAX_QP_WR;

	ctx->sdev->device = ctx->ibdev;
	ctx->sdev->port_cnt = 1;
	ctx->sport = &ctx->sdev->port[0];
	ctx->sport->sdev = ctx->sdev;
	ctx->sport->port = 1;
	ctx->sport->port_attrib.srp_sq_size = SRPT_TEST_SQ_SIZE;
	ctx->sport->port_attrib.srp_max_rdma_size = SRPT_TEST_RDMA_SIZE;
	ctx->sport->port_attrib.srp_max_rsp_size = SRPT_DEF_RSP_SIZE;
	ctx->sdev->buf_budget = SRPT_MIN_BUF_BUDGET;
	srpt_init_holders(ctx->sdev);

	ctx->saved_guid = srpt_service_guid;
	ctx->saved_req_size = srp_max_req_size;
	srpt_service_guid = SRPT_TEST_GUID;
	srp_max_req_size = SRPT_TEST_REQ_SIZE;

	test->priv = ctx;
	return 0;
}

static void srpt_test_exit(struct kunit *test)
{
	struct srpt_test_ctx *ctx = test->priv;

	srpt_service_guid = ctx->saved_guid;
	srp_max_req_size = ctx->saved_req_size;
}

static struct srpt_port *test_sport(struct kunit *test)
{
	return ((struct srpt_test_ctx *)test->priv)->sport;
}

/* A response buffer full of garbage, to prove every byte gets written. */
static struct ib_dm_mad *dirty_mad(struct kunit *test)
{
	struct ib_dm_mad *mad = kunit_kmalloc(test, sizeof(*mad), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mad);
	memset(mad, 0xa5, sizeof(*mad));
	return mad;
}

static u16 mad_status(const struct ib_dm_mad *mad)
{
	return be16_to_cpu(mad->mad_hdr.status);
}

/* A device-management request as an initiator would send it. */
static struct ib_mad *dm_request(struct kunit *test, u8 method, u16 attr_id,
				 u32 attr_mod)
{
	struct ib_mad *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	rq->mad_hdr.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT;
	rq->mad_hdr.class_version = 1;
	rq->mad_hdr.method = method;
	rq->mad_hdr.tid = cpu_to_be64(SRPT_TEST_TID);
	rq->mad_hdr.attr_id = cpu_to_be16(attr_id);
	rq->mad_hdr.attr_mod = cpu_to_be32(attr_mod);
	return rq;
}

/* The 24-byte common MAD header of the reply to dm_request(). */
static void expect_reply_hdr(struct kunit *test, const struct ib_dm_mad *rsp,
			     u16 status, u16 attr_id, u32 attr_mod)
{
	const u8 hdr[24] = {
		0x01, 0x06, 0x01, 0x81,
		status >> 8, status & 0xff, 0x00, 0x00,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		attr_id >> 8, attr_id & 0xff, 0x00, 0x00,
		attr_mod >> 24, (attr_mod >> 16) & 0xff,
		(attr_mod >> 8) & 0xff, attr_mod & 0xff,
	};

	KUNIT_EXPECT_MEMEQ(test, &rsp->mad_hdr, hdr, sizeof(hdr));
}

static void expect_zero(struct kunit *test, const void *p, size_t len)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, len, "non-zero byte 0x%02x at %zu",
			    i < len ? b[i] : 0, i);
}

/* Runs a request through srpt_mad_build_reply() into a zeroed reply. */
static struct ib_dm_mad *dm_reply(struct kunit *test, u8 method, u16 attr_id,
				  u32 attr_mod)
{
	struct ib_mad *rq = dm_request(test, method, attr_id, attr_mod);
	struct ib_dm_mad *rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rsp);
	KUNIT_ASSERT_TRUE(test, srpt_mad_build_reply(test_sport(test), rq,
						     rsp));
	/* The DM class header (RMPP header and reserved bytes) stays zero. */
	expect_zero(test, rsp->reserved, sizeof(rsp->reserved));
	return rsp;
}

static const u8 expected_class_port_info[72] = {
	0x01, 0x01, 0x00, 0x00,	/* base/class version, capability mask */
	0x00, 0x00, 0x00, 0x14,	/* capability mask 2, response time 20 */
};

static const u8 expected_iou_info[132] = {
	0x00, 0x01,		/* change ID */
	0x10,			/* max controllers */
	0x00,			/* option ROM */
	0x10,			/* slot 1 present, slot 2 empty */
};

static const u8 expected_ioc_profile[128] = {
	/* GUID */
	0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3,
	/* vendor ID (upper 24 bits), device ID */
	0x00, 0x02, 0xc9, 0x00, 0x00, 0x00, 0x10, 0x17,
	/* device version, reserved, subsystem vendor ID */
	0x00, 0xa0, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x00,
	/* subsystem ID, I/O class, I/O subclass */
	0x00, 0x00, 0x10, 0x17, 0x01, 0x00, 0x60, 0x9e,
	/* protocol, protocol version, reserved */
	0x01, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	/* send queue depth, reserved, RDMA read depth, send size */
	0x10, 0x00, 0x00, 0x10, 0x00, 0x00, 0x20, 0x44,
	/* RDMA size, capabilities, reserved, service entries, reserved */
	0x00, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* ID string */
	'S', 'C', 'S', 'I', ' ', 'R', 'D', 'M', 'A', ' ',
	'P', 'r', 'o', 't', 'o', 'c', 'o', 'l', ' ',
	't', 'a', 'r', 'g', 'e', 't',
};

static const u8 expected_svc_entry[48] = {
	'S', 'R', 'P', '.', 'T', '1', '0', ':',
	'0', '0', '0', '2', 'c', '9', '0', '3',
	'0', '0', 'a', '1', 'b', '2', 'c', '3',
	[40] = 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3,
};

/* ---- ClassPortInfo ---- */

static void srpt_test_class_port_info(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_class_port_info(mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), 0);
	KUNIT_EXPECT_MEMEQ(test, mad->data, expected_class_port_info,
			   sizeof(expected_class_port_info));
	expect_zero(test, mad->data + 72, sizeof(mad->data) - 72);
}

static void srpt_test_class_port_info_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_CLASS_PORT_INFO, 0);

	expect_reply_hdr(test, rsp, 0, DM_ATTR_CLASS_PORT_INFO, 0);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_class_port_info,
			   sizeof(expected_class_port_info));
	expect_zero(test, rsp->data + 72, sizeof(rsp->data) - 72);
}

static void srpt_test_class_port_info_resp_time(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);
	struct ib_class_port_info *cpi = (void *)mad->data;

	srpt_get_class_port_info(mad);
	KUNIT_EXPECT_EQ(test, ib_get_cpi_resp_time(cpi), 20);
	KUNIT_EXPECT_EQ(test, ib_get_cpi_capmask2(cpi), 0);
	KUNIT_EXPECT_EQ(test, cpi->base_version, 1);
	KUNIT_EXPECT_EQ(test, cpi->class_version, 1);
}

/* ---- IOUnitInfo and the controller list ---- */

static void srpt_test_iou_info(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_iou(mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), 0);
	KUNIT_EXPECT_MEMEQ(test, mad->data, expected_iou_info,
			   sizeof(expected_iou_info));
	expect_zero(test, mad->data + 132, sizeof(mad->data) - 132);
}

static void srpt_test_iou_info_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_IOU_INFO, 0);

	expect_reply_hdr(test, rsp, 0, DM_ATTR_IOU_INFO, 0);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_iou_info,
			   sizeof(expected_iou_info));
	expect_zero(test, rsp->data + 132, sizeof(rsp->data) - 132);
}

static void srpt_test_iou_info_attr_mod_ignored(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_IOU_INFO, 0xffffffff);

	expect_reply_hdr(test, rsp, 0, DM_ATTR_IOU_INFO, 0xffffffff);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_iou_info,
			   sizeof(expected_iou_info));
}

static void srpt_test_set_ioc_odd_slot(struct kunit *test)
{
	u8 list[128] = { [0] = 0x0a };

	srpt_set_ioc(list, 1, SRPT_IOC_PRESENT);
	KUNIT_EXPECT_EQ(test, list[0], 0x1a);
	expect_zero(test, list + 1, sizeof(list) - 1);
}

static void srpt_test_set_ioc_even_slot(struct kunit *test)
{
	u8 list[128] = { [0] = 0xb0 };

	srpt_set_ioc(list, 2, SRPT_IOC_PRESENT);
	KUNIT_EXPECT_EQ(test, list[0], 0xb1);
	expect_zero(test, list + 1, sizeof(list) - 1);
}

static void srpt_test_set_ioc_last_slots(struct kunit *test)
{
	u8 list[128] = {};

	srpt_set_ioc(list, 15, 0x2);
	srpt_set_ioc(list, 16, 0x3);
	KUNIT_EXPECT_EQ(test, list[7], 0x23);
	expect_zero(test, list, 7);
	expect_zero(test, list + 8, sizeof(list) - 8);
}

static void srpt_test_set_ioc_clear(struct kunit *test)
{
	u8 list[128];

	memset(list, 0xff, sizeof(list));
	srpt_set_ioc(list, 1, SRPT_IOC_NOT_INSTALLED);
	srpt_set_ioc(list, 4, SRPT_IOC_NOT_INSTALLED);
	KUNIT_EXPECT_EQ(test, list[0], 0x0f);
	KUNIT_EXPECT_EQ(test, list[1], 0xf0);
	KUNIT_EXPECT_EQ(test, list[2], 0xff);
}

static void srpt_test_set_ioc_bad_slot(struct kunit *test)
{
	u8 list[128] = {};

	srpt_set_ioc(list, 0, SRPT_IOC_PRESENT);
	srpt_set_ioc(list, SRPT_IOC_SLOTS + 1, SRPT_IOC_PRESENT);
	srpt_set_ioc(list, 256, SRPT_IOC_PRESENT);
	srpt_set_ioc(list, U32_MAX, SRPT_IOC_PRESENT);
	expect_zero(test, list, sizeof(list));
}

static void srpt_test_set_ioc_value_masked(struct kunit *test)
{
	u8 list[128] = {};

	srpt_set_ioc(list, 2, 0xf1);
	KUNIT_EXPECT_EQ(test, list[0], 0x01);
	srpt_set_ioc(list, 1, 0x2f);
	KUNIT_EXPECT_EQ(test, list[0], 0xf1);
}

/* ---- IOControllerProfile ---- */

static void srpt_test_ioc_profile(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_ioc(test_sport(test), 1, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), 0);
	KUNIT_EXPECT_MEMEQ(test, mad->data, expected_ioc_profile,
			   sizeof(expected_ioc_profile));
	expect_zero(test, mad->data + 128, sizeof(mad->data) - 128);
}

static void srpt_test_ioc_profile_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_IOC_PROFILE, 1);

	expect_reply_hdr(test, rsp, 0, DM_ATTR_IOC_PROFILE, 1);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_ioc_profile,
			   sizeof(expected_ioc_profile));
	expect_zero(test, rsp->data + 128, sizeof(rsp->data) - 128);
}

static void srpt_test_ioc_profile_fields(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);
	struct ib_dm_ioc_profile *p = (void *)mad->data;

	srpt_get_ioc(test_sport(test), 1, mad);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->guid), SRPT_TEST_GUID);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->vendor_id) >> 8,
			SRPT_TEST_VENDOR);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->device_id), SRPT_TEST_PART);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->io_class),
			SRP_REV16A_IB_IO_CLASS);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->io_subclass), 0x609e);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->protocol), 0x0108);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->protocol_version), 1);
	KUNIT_EXPECT_EQ(test, p->rdma_read_depth, SRPT_RDMA_READ_DEPTH);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->send_size), SRPT_TEST_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->rdma_size), SRPT_TEST_RDMA_SIZE);
	KUNIT_EXPECT_EQ(test, p->num_svc_entries, 1);
	KUNIT_EXPECT_STREQ(test, (char *)p->id_string,
			   "SCSI RDMA Protocol target");
}

static void srpt_test_ioc_profile_sq_depth_hca_limit(struct kunit *test)
{
	struct srpt_port *sport = test_sport(test);
	struct ib_dm_mad *mad = dirty_mad(test);
	struct ib_dm_ioc_profile *p = (void *)mad->data;

	sport->port_attrib.srp_sq_size = 65535;
	sport->sdev->device->attrs.max_qp_wr = 1000;
	srpt_get_ioc(sport, 1, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->send_queue_depth), 1000);
}

static void srpt_test_ioc_profile_sq_depth_attr(struct kunit *test)
{
	struct srpt_port *sport = test_sport(test);
	struct ib_dm_mad *mad = dirty_mad(test);
	struct ib_dm_ioc_profile *p = (void *)mad->data;

	sport->port_attrib.srp_sq_size = 65535;
	sport->sdev->device->attrs.max_qp_wr = 1 << 20;
	srpt_get_ioc(sport, 1, mad);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->send_queue_depth), 65535);
}

static void srpt_test_ioc_profile_follows_settings(struct kunit *test)
{
	struct srpt_port *sport = test_sport(test);
	struct ib_dm_mad *mad = dirty_mad(test);
	struct ib_dm_ioc_profile *p = (void *)mad->data;

	srpt_service_guid = 0xfedcba9876543210ULL;
	srp_max_req_size = SRPT_MIN_MAX_REQ_SIZE;
	sport->port_attrib.srp_max_rdma_size = SRPT_MAX_RDMA_SIZE;
	sport->sdev->device->attrs.vendor_id = 0x123456;
	sport->sdev->device->attrs.hw_ver = 0xbeef;
	srpt_get_ioc(sport, 1, mad);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->guid), 0xfedcba9876543210ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->send_size),
			SRPT_MIN_MAX_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->rdma_size), SRPT_MAX_RDMA_SIZE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->vendor_id), 0x12345600);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->device_version), 0xbeef);
}

static void srpt_test_ioc_slot0(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_ioc(test_sport(test), 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_INVALID_FIELD);
	expect_zero(test, mad->data, sizeof(mad->data));
}

static void srpt_test_ioc_slot17(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_ioc(test_sport(test), 17, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_INVALID_FIELD);
	expect_zero(test, mad->data, sizeof(mad->data));
}

static void srpt_test_ioc_slot_huge(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_ioc(test_sport(test), U32_MAX, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_INVALID_FIELD);
	srpt_get_ioc(test_sport(test), 0x10001, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_INVALID_FIELD);
}

static void srpt_test_ioc_empty_slots(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);
	u32 slot;

	for (slot = 2; slot <= SRPT_IOC_SLOTS; slot++) {
		memset(mad, 0x5a, sizeof(*mad));
		srpt_get_ioc(test_sport(test), slot, mad);
		KUNIT_EXPECT_EQ_MSG(test, mad_status(mad),
				    DM_MAD_STATUS_NO_IOC, "slot %u", slot);
		expect_zero(test, mad->data, sizeof(mad->data));
	}
}

static void srpt_test_ioc_slot0_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_IOC_PROFILE, 0);

	expect_reply_hdr(test, rsp, 0x001c, DM_ATTR_IOC_PROFILE, 0);
	expect_zero(test, rsp->data, sizeof(rsp->data));
}

static void srpt_test_ioc_slot17_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_IOC_PROFILE, 17);

	expect_reply_hdr(test, rsp, 0x001c, DM_ATTR_IOC_PROFILE, 17);
	expect_zero(test, rsp->data, sizeof(rsp->data));
}

static void srpt_test_ioc_slot2_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_IOC_PROFILE, 2);

	expect_reply_hdr(test, rsp, 0x0100, DM_ATTR_IOC_PROFILE, 2);
	expect_zero(test, rsp->data, sizeof(rsp->data));
}

static void srpt_test_ioc_slot16_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_IOC_PROFILE, 16);

	expect_reply_hdr(test, rsp, 0x0100, DM_ATTR_IOC_PROFILE, 16);
}

/* ---- ServiceEntries ---- */

static void srpt_test_svc_entries(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_svc_entries(SRPT_TEST_GUID, 1, 0, 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), 0);
	KUNIT_EXPECT_MEMEQ(test, mad->data, expected_svc_entry,
			   sizeof(expected_svc_entry));
	expect_zero(test, mad->data + 48, sizeof(mad->data) - 48);
}

static void srpt_test_svc_entries_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_SVC_ENTRIES,
					 SVC_MOD(1, 0, 0));

	expect_reply_hdr(test, rsp, 0, DM_ATTR_SVC_ENTRIES, 0x00010000);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_svc_entry,
			   sizeof(expected_svc_entry));
	expect_zero(test, rsp->data + 48, sizeof(rsp->data) - 48);
}

static void srpt_test_svc_entries_name_and_id(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);
	struct ib_dm_svc_entries *s = (void *)mad->data;

	srpt_get_svc_entries(0xfedcba9876543210ULL, 1, 0, 0, mad);
	KUNIT_EXPECT_STREQ(test, (char *)s->service_entries[0].name,
			   "SRP.T10:fedcba9876543210");
	KUNIT_EXPECT_EQ(test, be64_to_cpu(s->service_entries[0].id),
			0xfedcba9876543210ULL);
	expect_zero(test, s->service_entries[0].name + 24, 16);
}

static void srpt_test_svc_entries_uses_service_guid(struct kunit *test)
{
	struct ib_dm_mad *rsp;
	struct ib_dm_svc_entries *s;

	srpt_service_guid = 0x0123456789abcdefULL;
	rsp = dm_reply(test, IB_MGMT_METHOD_GET, DM_ATTR_SVC_ENTRIES,
		       SVC_MOD(1, 0, 0));
	s = (void *)rsp->data;
	KUNIT_EXPECT_EQ(test, mad_status(rsp), 0);
	KUNIT_EXPECT_STREQ(test, (char *)s->service_entries[0].name,
			   "SRP.T10:0123456789abcdef");
	KUNIT_EXPECT_EQ(test, be64_to_cpu(s->service_entries[0].id),
			0x0123456789abcdefULL);
}

static void srpt_test_svc_entries_hi_lt_lo(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_svc_entries(SRPT_TEST_GUID, 1, 0, 1, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_NO_IOC);
	expect_zero(test, mad->data, sizeof(mad->data));
}

static void srpt_test_svc_entries_hi_too_big(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_svc_entries(SRPT_TEST_GUID, 1, 1, 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_NO_IOC);
	expect_zero(test, mad->data, sizeof(mad->data));
	srpt_get_svc_entries(SRPT_TEST_GUID, 1, 3, 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_NO_IOC);
	srpt_get_svc_entries(SRPT_TEST_GUID, 1, 255, 255, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_NO_IOC);
}

static void srpt_test_svc_entries_range_too_long(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_svc_entries(SRPT_TEST_GUID, 1, 255, 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_NO_IOC);
	expect_zero(test, mad->data, sizeof(mad->data));
}

static void srpt_test_svc_entries_slot0(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_svc_entries(SRPT_TEST_GUID, 0, 0, 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_INVALID_FIELD);
	expect_zero(test, mad->data, sizeof(mad->data));
}

static void srpt_test_svc_entries_slot17(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);

	srpt_get_svc_entries(SRPT_TEST_GUID, 17, 0, 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_INVALID_FIELD);
	srpt_get_svc_entries(SRPT_TEST_GUID, U16_MAX, 0, 0, mad);
	KUNIT_EXPECT_EQ(test, mad_status(mad), DM_MAD_STATUS_INVALID_FIELD);
}

static void srpt_test_svc_entries_empty_slot(struct kunit *test)
{
	struct ib_dm_mad *mad = dirty_mad(test);
	u16 slot;

	for (slot = 2; slot <= SRPT_IOC_SLOTS; slot++) {
		srpt_get_svc_entries(SRPT_TEST_GUID, slot, 0, 0, mad);
		KUNIT_EXPECT_EQ_MSG(test, mad_status(mad),
				    DM_MAD_STATUS_NO_IOC, "slot %u", slot);
		expect_zero(test, mad->data, sizeof(mad->data));
	}
}

static void srpt_test_svc_entries_bad_range_reply(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET,
					 DM_ATTR_SVC_ENTRIES,
					 SVC_MOD(1, 1, 0));

	expect_reply_hdr(test, rsp, 0x0100, DM_ATTR_SVC_ENTRIES, 0x00010100);
	expect_zero(test, rsp->data, sizeof(rsp->data));
}

static void srpt_test_svc_entries_modifier_decoding(struct kunit *test)
{
	struct ib_dm_mad *rsp;

	/* slot 1 in bits 31..16, hi in 15..8, lo in 7..0 */
	rsp = dm_reply(test, IB_MGMT_METHOD_GET, DM_ATTR_SVC_ENTRIES,
		       SVC_MOD(1, 0, 1));
	KUNIT_EXPECT_EQ(test, mad_status(rsp), DM_MAD_STATUS_NO_IOC);
	rsp = dm_reply(test, IB_MGMT_METHOD_GET, DM_ATTR_SVC_ENTRIES,
		       SVC_MOD(0, 0, 0));
	KUNIT_EXPECT_EQ(test, mad_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
	rsp = dm_reply(test, IB_MGMT_METHOD_GET, DM_ATTR_SVC_ENTRIES,
		       SVC_MOD(2, 0, 0));
	KUNIT_EXPECT_EQ(test, mad_status(rsp), DM_MAD_STATUS_NO_IOC);
	rsp = dm_reply(test, IB_MGMT_METHOD_GET, DM_ATTR_SVC_ENTRIES,
		       SVC_MOD(0x101, 0, 0));
	KUNIT_EXPECT_EQ(test, mad_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
	/* A bare "1" is slot 0, entries 0..1. */
	rsp = dm_reply(test, IB_MGMT_METHOD_GET, DM_ATTR_SVC_ENTRIES, 1);
	KUNIT_EXPECT_EQ(test, mad_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
}

/* ---- methods and unknown attributes ---- */

static const u16 unknown_attrs[] = {
	0x0000, 0x0002, 0x000f, 0x0013, 0x0014, 0x0020, 0x0100, 0x1001,
	0xff00, 0xffff,
};

static void mad_attr_desc(const u16 *attr, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "attr %#06x", *attr);
}

static void mad_method_desc(const u8 *method, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "method %#04x", *method);
}

KUNIT_ARRAY_PARAM(unknown_attr, unknown_attrs, mad_attr_desc);

static void srpt_test_get_unknown_attr(struct kunit *test)
{
	u16 attr = *(const u16 *)test->param_value;
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_GET, attr, 7);

	expect_reply_hdr(test, rsp, 0x000c, attr, 7);
	expect_zero(test, rsp->data, sizeof(rsp->data));
}

static void srpt_test_method_get_unknown_attr(struct kunit *test)
{
	struct ib_mad *rq = dm_request(test, IB_MGMT_METHOD_GET, 0x0013, 0);
	struct ib_dm_mad *rsp = dirty_mad(test);

	rsp->mad_hdr.status = 0;
	srpt_mgmt_method_get(test_sport(test), rq, rsp);
	KUNIT_EXPECT_EQ(test, mad_status(rsp), DM_MAD_STATUS_UNSUP_METHOD_ATTR);
}

static void srpt_test_method_get_dispatch(struct kunit *test)
{
	struct ib_mad *rq;
	struct ib_dm_mad *rsp = dirty_mad(test);

	rq = dm_request(test, IB_MGMT_METHOD_GET, DM_ATTR_IOC_PROFILE, 1);
	srpt_mgmt_method_get(test_sport(test), rq, rsp);
	KUNIT_EXPECT_EQ(test, mad_status(rsp), 0);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_ioc_profile,
			   sizeof(expected_ioc_profile));

	rq = dm_request(test, IB_MGMT_METHOD_GET, DM_ATTR_SVC_ENTRIES,
			SVC_MOD(1, 0, 0));
	srpt_mgmt_method_get(test_sport(test), rq, rsp);
	KUNIT_EXPECT_EQ(test, mad_status(rsp), 0);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_svc_entry,
			   sizeof(expected_svc_entry));

	rq = dm_request(test, IB_MGMT_METHOD_GET, DM_ATTR_IOU_INFO, 0);
	srpt_mgmt_method_get(test_sport(test), rq, rsp);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_iou_info,
			   sizeof(expected_iou_info));

	rq = dm_request(test, IB_MGMT_METHOD_GET, DM_ATTR_CLASS_PORT_INFO, 0);
	srpt_mgmt_method_get(test_sport(test), rq, rsp);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_class_port_info,
			   sizeof(expected_class_port_info));
}

static const u16 set_attrs[] = {
	DM_ATTR_CLASS_PORT_INFO, DM_ATTR_IOU_INFO, DM_ATTR_IOC_PROFILE,
	DM_ATTR_SVC_ENTRIES, 0x0013, 0xffff,
};

KUNIT_ARRAY_PARAM(set_attr, set_attrs, mad_attr_desc);

static void srpt_test_set_refused(struct kunit *test)
{
	u16 attr = *(const u16 *)test->param_value;
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_SET, attr, 1);

	expect_reply_hdr(test, rsp, 0x000c, attr, 1);
	expect_zero(test, rsp->data, sizeof(rsp->data));
}

static void srpt_test_set_ioc_profile_refused(struct kunit *test)
{
	struct ib_dm_mad *rsp = dm_reply(test, IB_MGMT_METHOD_SET,
					 DM_ATTR_IOC_PROFILE, 1);

	KUNIT_EXPECT_EQ(test, mad_status(rsp), DM_MAD_STATUS_UNSUP_METHOD_ATTR);
	KUNIT_EXPECT_EQ(test, rsp->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
}

static const u8 other_methods[] = {
	0x00, IB_MGMT_METHOD_SEND, 0x04, IB_MGMT_METHOD_TRAP,
	IB_MGMT_METHOD_REPORT, IB_MGMT_METHOD_TRAP_REPRESS, 0x12,
	0x13, 0x14, 0x15, 0x7f,
};

KUNIT_ARRAY_PARAM(other_method, other_methods, mad_method_desc);

static void srpt_test_other_methods(struct kunit *test)
{
	u8 method = *(const u8 *)test->param_value;
	struct ib_dm_mad *rsp = dm_reply(test, method, DM_ATTR_IOU_INFO, 0);

	expect_reply_hdr(test, rsp, 0x0008, DM_ATTR_IOU_INFO, 0);
	expect_zero(test, rsp->data, sizeof(rsp->data));
}

static const u8 response_methods[] = {
	IB_MGMT_METHOD_GET_RESP, IB_MGMT_METHOD_REPORT_RESP, 0x80, 0x82, 0xff,
};

KUNIT_ARRAY_PARAM(response_method, response_methods, mad_method_desc);

static void srpt_test_responses_ignored(struct kunit *test)
{
	u8 method = *(const u8 *)test->param_value;
	struct ib_dm_mad *rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	struct ib_mad *rq = dm_request(test, method, DM_ATTR_IOU_INFO, 0);

	KUNIT_ASSERT_NOT_NULL(test, rsp);
	KUNIT_EXPECT_FALSE(test, srpt_mad_build_reply(test_sport(test), rq,
						      rsp));
}

static void srpt_test_foreign_mads_ignored(struct kunit *test)
{
	struct ib_dm_mad *rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	struct ib_mad *rq;

	KUNIT_ASSERT_NOT_NULL(test, rsp);
	rq = dm_request(test, IB_MGMT_METHOD_GET, DM_ATTR_IOU_INFO, 0);
	rq->mad_hdr.base_version = 0x80;	/* OPA */
	KUNIT_EXPECT_FALSE(test, srpt_mad_build_reply(test_sport(test), rq,
						      rsp));
	rq = dm_request(test, IB_MGMT_METHOD_GET, DM_ATTR_IOU_INFO, 0);
	rq->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
	KUNIT_EXPECT_FALSE(test, srpt_mad_build_reply(test_sport(test), rq,
						      rsp));
}

static void srpt_test_reply_keeps_request_fields(struct kunit *test)
{
	struct ib_mad *rq = dm_request(test, IB_MGMT_METHOD_GET,
				       DM_ATTR_IOU_INFO, 0);
	struct ib_dm_mad *rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rsp);
	rq->mad_hdr.tid = cpu_to_be64(0xdeadbeefcafef00dULL);
	rq->mad_hdr.status = cpu_to_be16(0x1234);	/* must not leak */
	memset(rq->data, 0x77, sizeof(rq->data));	/* must not leak */
	KUNIT_ASSERT_TRUE(test, srpt_mad_build_reply(test_sport(test), rq,
						     rsp));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(rsp->mad_hdr.tid),
			0xdeadbeefcafef00dULL);
	KUNIT_EXPECT_EQ(test, rsp->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, mad_status(rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp->mad_hdr.mgmt_class,
			IB_MGMT_CLASS_DEVICE_MGMT);
	KUNIT_EXPECT_EQ(test, rsp->mad_hdr.class_version, 1);
	expect_zero(test, rsp->reserved, sizeof(rsp->reserved));
	KUNIT_EXPECT_MEMEQ(test, rsp->data, expected_iou_info,
			   sizeof(expected_iou_info));
	expect_zero(test, rsp->data + 132, sizeof(rsp->data) - 132);
}

static void srpt_test_register_idempotent(struct kunit *test)
{
	struct srpt_port *sport = test_sport(test);
	struct ib_mad_agent *fake = (struct ib_mad_agent *)0x1000;

	/* With an agent in place nothing, not even the device, is touched. */
	sport->mad_agent = fake;
	KUNIT_EXPECT_EQ(test, srpt_register_mad_agent(sport), 0);
	KUNIT_EXPECT_PTR_EQ(test, sport->mad_agent, fake);
	sport->mad_agent = NULL;
}

/* ---- initiator port IDs: srpt_parse_i_port_id() ---- */

/**
 * struct port_id_case - one srpt_parse_i_port_id() input
 * @label: row name in the test report
 * @name: the input
 * @ret: the expected return value
 * @id: the expected port ID (when @ret is 0)
 */
struct port_id_case {
	const char *label;
	const char *name;
	int ret;
	u8 id[16];
};

#define PORT_ID_FULL { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, \
		       0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff }

static const struct port_id_case port_id_cases[] = {
	{ "full-0x", "0x00112233445566778899aabbccddeeff", 0, PORT_ID_FULL },
	{ "full-bare", "00112233445566778899aabbccddeeff", 0, PORT_ID_FULL },
	{ "uppercase", "0x00112233445566778899AABBCCDDEEFF", 0, PORT_ID_FULL },
	{ "short-0x", "0x1234", 0, { [14] = 0x12, [15] = 0x34 } },
	{ "short-bare", "1234", 0, { [14] = 0x12, [15] = 0x34 } },
	{ "two-digits", "0xab", 0, { [15] = 0xab } },
	{ "two-zeros", "00", 0, {} },
	{ "gid", "0xfe800000000000000002c90300a1b2c3", 0,
	  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	    0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3 } },
	{ "empty", "", -EINVAL },
	{ "empty-0x", "0x", -EINVAL },
	{ "odd-3", "0x123", -EINVAL },
	{ "odd-1", "1", -EINVAL },
	{ "odd-31", "0x00112233445566778899aabbccddeef", -EINVAL },
	{ "too-long-0x", "0x00112233445566778899aabbccddeeff00", -EINVAL },
	{ "too-long-bare", "00112233445566778899aabbccddeeff0011", -EINVAL },
	{ "not-hex-g", "0x12g4", -EINVAL },
	{ "not-hex-xyz", "xyz0", -EINVAL },
	{ "not-hex-sign", "0x-1234", -EINVAL },
	{ "not-hex-colons", "fe80:0000:0000:0000", -EINVAL },
	{ "trailing-junk", "0x123456:x", -EINVAL },
	{ "trailing-space", "0x1234 ", -EINVAL },
	{ "trailing-newline", "0x1234\n", -EINVAL },
	{ "leading-space", " 0x1234", -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(port_id, port_id_cases, label);

static void srpt_test_port_id(struct kunit *test)
{
	const struct port_id_case *c = test->param_value;
	u8 id[16];

	memset(id, 0xee, sizeof(id));
	if (c->ret) {
		KUNIT_EXPECT_EQ_MSG(test, srpt_parse_i_port_id(id, c->name),
				    c->ret, "\"%s\"", c->name);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, srpt_parse_i_port_id(id, c->name), 0, "%s",
			    c->name);
	KUNIT_EXPECT_MEMEQ(test, id, c->id, 16);
}

/* ---- GUID names: srpt_parse_guid() ---- */

/**
 * struct guid_case - one srpt_parse_guid() input
 * @label: row name in the test report
 * @name: the input
 * @ret: the expected return value
 * @guid: the expected GUID (when @ret is 0)
 */
struct guid_case {
	const char *label;
	const char *name;
	int ret;
	u64 guid;
};

static const struct guid_case guid_cases[] = {
	{ "valid", "0002:c903:00a1:b2c3", 0, 0x0002c90300a1b2c3ULL },
	{ "all-ones", "ffff:ffff:ffff:ffff", 0, U64_MAX },
	{ "all-zeros", "0000:0000:0000:0000", 0, 0 },
	{ "uppercase", "0002:C903:00A1:B2C3", 0, 0x0002c90300a1b2c3ULL },
	{ "three-groups", "0002:c903:00a1", -EINVAL },
	{ "five-groups", "0002:c903:00a1:b2c3:0000", -EINVAL },
	{ "no-colons", "0002c90300a1b2c3", -EINVAL },
	{ "first-group-3", "002:c903:00a1:b2c3", -EINVAL },
	{ "last-group-3", "0002:c903:00a1:b2c", -EINVAL },
	{ "first-group-5", "00002:c903:00a1:b2c3", -EINVAL },
	{ "last-group-5", "0002:c903:00a1:b2c34", -EINVAL },
	{ "short-groups", "2:c903:a1:b2c3", -EINVAL },
	{ "empty", "", -EINVAL },
	{ "trailing-colon", "0002:c903:00a1:b2c3:", -EINVAL },
	{ "leading-colon", ":0002:c903:00a1:b2c3", -EINVAL },
	{ "trailing-space", "0002:c903:00a1:b2c3 ", -EINVAL },
	{ "trailing-newline", "0002:c903:00a1:b2c3\n", -EINVAL },
	{ "not-hex", "0002:g903:00a1:b2c3", -EINVAL },
	{ "double-colon", "0002::c903:00a1:b2c3", -EINVAL },
	{ "0x-prefix", "0x0002:c903:00a1:b2c3", -EINVAL },
	{ "dashes", "0002-c903-00a1-b2c3", -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(guid, guid_cases, label);

static void srpt_test_guid(struct kunit *test)
{
	const struct guid_case *c = test->param_value;
	u64 guid = 0;

	if (c->ret) {
		KUNIT_EXPECT_EQ_MSG(test, srpt_parse_guid(&guid, c->name),
				    c->ret, "\"%s\"", c->name);
		return;
	}
	KUNIT_ASSERT_EQ(test, srpt_parse_guid(&guid, c->name), 0);
	KUNIT_EXPECT_EQ(test, guid, c->guid);
}

/* ---- module parameter srpt_service_guid ---- */

static void srpt_test_param_guid(struct kunit *test)
{
	u64 guid = 0x55;
	const struct kernel_param kp = { .name = "srpt_service_guid",
					 .arg = &guid };

	KUNIT_EXPECT_EQ(test, srpt_param_set_guid("0x0002c90300a1b2c3", &kp),
			0);
	KUNIT_EXPECT_EQ(test, guid, 0x0002c90300a1b2c3ULL);
	KUNIT_EXPECT_EQ(test, srpt_param_set_guid("ffffffffffffffff", &kp), 0);
	KUNIT_EXPECT_EQ(test, guid, U64_MAX);
	/* Bad input, also a number of 65 bits, is -EINVAL; the value stays. */
	KUNIT_EXPECT_EQ(test, srpt_param_set_guid("10000000000000000", &kp),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_param_set_guid("xyz", &kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_param_set_guid("", &kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, guid, U64_MAX);
}

/* ---- ACL names: srpt_check_acl_name() ---- */

/**
 * struct acl_case - one srpt_check_acl_name() input
 * @label: row name in the test report
 * @name: the ACL name
 * @ret: the expected return value
 * @canon: when set, the one spelling logins of @name are given; it must be
 *	accepted and be its own canonical spelling
 */
struct acl_case {
	const char *label;
	const char *name;
	int ret;
	const char *canon;
};

/*
 * Logins are named in one spelling only (lowercase, all 32 hex digits, IPv6
 * written out); LIO compares names byte for byte, so every other spelling
 * of an initiator name is normalised to that one.
 */
static const struct acl_case acl_cases[] = {
	{ "guid", "0002:c903:00a1:b2c3", 0, "0002:c903:00a1:b2c3" },
	{ "port-id-0x", "0x00112233445566778899aabbccddeeff", 0 },
	{ "port-id-bare", "00112233445566778899aabbccddeeff", 0 },
	{ "port-id-short", "0x1234", 0 },
	{ "ipv4", "192.168.122.76", 0 },
	{ "ipv4-10", "10.0.0.1", 0 },
	{ "ipv6-link-local", "fe80::1", 0 },
	{ "ipv6-loopback", "::1", 0 },
	{ "ipv6-full", "fe80:0000:0000:0000:5054:00ff:fe12:3456", 0 },
	{ "ipv6-doc", "2001:db8::a:b", 0 },
	{ "canon-guid-upper", "0002:C903:00A1:B2C3", 0, "0002:c903:00a1:b2c3" },
	{ "canon-short-0x", "0x1234", 0, "0x00000000000000000000000000001234" },
	{ "canon-short-bare", "1234", 0, "00000000000000000000000000001234" },
	{ "canon-guid-0x", "0x0002c90300a1b2c3", 0,
	  "0x00000000000000000002c90300a1b2c3" },
	{ "canon-port-id-upper", "0x00112233445566778899AABBCCDDEEFF", 0,
	  "0x00112233445566778899aabbccddeeff" },
	{ "canon-port-id-0X", "0X00112233445566778899aabbccddeeff", 0,
	  "0x00112233445566778899aabbccddeeff" },
	{ "canon-ipv6-link-local", "fe80::1", 0,
	  "fe80:0000:0000:0000:0000:0000:0000:0001" },
	{ "canon-ipv6-loopback", "::1", 0,
	  "0000:0000:0000:0000:0000:0000:0000:0001" },
	{ "canon-ipv6-doc", "2001:db8::a:b", 0,
	  "2001:0db8:0000:0000:0000:0000:000a:000b" },
	{ "canon-ipv6-upper", "FE80:0000:0000:0000:5054:00FF:FE12:3456", 0,
	  "fe80:0000:0000:0000:5054:00ff:fe12:3456" },
	{ "canon-ipv4-mapped", "::ffff:10.0.0.1", 0, "10.0.0.1" },
	{ "canon-ipv4-zeros", "010.000.000.001", 0, "10.0.0.1" },
	{ "canon-ipv4", "192.168.122.76", 0, "192.168.122.76" },
	{ "canon-port-id-0x", "0x00112233445566778899aabbccddeeff", 0,
	  "0x00112233445566778899aabbccddeeff" },
	{ "canon-port-id-bare", "00112233445566778899aabbccddeeff", 0,
	  "00112233445566778899aabbccddeeff" },
	{ "empty", "", -EINVAL },
	{ "iqn", "iqn.2003-01.org.linux-iscsi:x", -EINVAL },
	{ "word", "initiator", -EINVAL },
	{ "port-id-odd", "0x123", -EINVAL },
	{ "ipv4-three", "192.168.1", -EINVAL },
	{ "ipv4-256", "192.168.1.256", -EINVAL },
	{ "ipv6-triple-colon", "fe80:::1", -EINVAL },
	{ "guid-short-group", "0002:c903:00a1:b2c", -EINVAL },
	{ "port-id-too-long", "0x00112233445566778899aabbccddeeff00", -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(acl, acl_cases, label);

static void srpt_test_acl_name(struct kunit *test)
{
	const struct acl_case *c = test->param_value;
	char buf[40];

	KUNIT_EXPECT_EQ_MSG(test, srpt_check_acl_name(c->name, buf,
						      sizeof(buf)),
			    c->ret, "\"%s\"", c->name);
	if (!c->canon)
		return;
	KUNIT_EXPECT_STREQ_MSG(test, buf, c->canon, "\"%s\"", c->name);
	KUNIT_EXPECT_EQ_MSG(test, srpt_check_acl_name(c->canon, buf,
						      sizeof(buf)),
			    0, "\"%s\"", c->canon);
	KUNIT_EXPECT_STREQ(test, buf, c->canon);
}

/* A TPG with ACLs, as LIO has it when it calls srpt_init_nodeacl(). */
static struct se_portal_group *acl_tpg(struct kunit *test)
{
	struct se_portal_group *tpg = kunit_kzalloc(test, sizeof(*tpg),
						    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tpg);
	mutex_init(&tpg->acl_node_mutex);
	INIT_LIST_HEAD(&tpg->acl_node_list);
	return tpg;
}

static struct se_node_acl *add_acl(struct kunit *test,
				   struct se_portal_group *tpg,
				   const char *name)
{
	struct se_node_acl *acl = kunit_kzalloc(test, sizeof(*acl),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, acl);
	acl->se_tpg = tpg;
	strscpy(acl->initiatorname, name, sizeof(acl->initiatorname));
	list_add_tail(&acl->acl_list, &tpg->acl_node_list);
	return acl;
}

/*
 * The name LIO matches logins against is the one the driver gives them:
 * srpt_init_nodeacl() of @label's @name returns @ret and, when that is 0,
 * leaves @canon as the ACL's name. Reuses struct acl_case.
 */
static const struct acl_case acl_init_cases[] = {
	{ "ipv6", "fe80::1", 0, "fe80:0000:0000:0000:0000:0000:0000:0001" },
	{ "port-id", "0X0002C90300A1B2C3", 0,
	  "0x00000000000000000002c90300a1b2c3" },
	{ "guid", "0002:C903:00A1:B2C3", 0, "0002:c903:00a1:b2c3" },
	{ "ipv4", "10.0.0.1", 0, "10.0.0.1" },
	{ "invalid", "not-an-initiator", -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(acl_init, acl_init_cases, label);

static void srpt_test_acl_init_normalises(struct kunit *test)
{
	const struct acl_case *c = test->param_value;
	struct se_node_acl *acl = add_acl(test, acl_tpg(test), c->name);

	KUNIT_EXPECT_EQ(test, srpt_init_nodeacl(acl, c->name), c->ret);
	if (c->canon)
		KUNIT_EXPECT_STREQ(test, acl->initiatorname, c->canon);
}

/* Two spellings of one initiator would be two ACLs with the same name. */
static void srpt_test_acl_init_duplicate(struct kunit *test)
{
	struct se_portal_group *tpg = acl_tpg(test);
	struct se_node_acl *acl;

	add_acl(test, tpg, "fe80:0000:0000:0000:0000:0000:0000:0001");
	acl = add_acl(test, tpg, "FE80::1");
	KUNIT_EXPECT_EQ(test, srpt_init_nodeacl(acl, "FE80::1"), -EEXIST);
	KUNIT_EXPECT_STREQ(test, acl->initiatorname, "FE80::1");
}

/* ---- persistent reservations by ACL name: srpt_pr_refused() ---- */

/*
 * Whether a command with opcode @op from a nexus of ACL @name to a device
 * with @flags (its transport_flags) is refused.
 */
static bool refused(struct kunit *test, const char *name, u8 op, u8 flags)
{
	struct se_node_acl *acl = kunit_kzalloc(test, sizeof(*acl),
						GFP_KERNEL);
	struct se_session *sess = kunit_kzalloc(test, sizeof(*sess),
						GFP_KERNEL);
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	struct se_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct se_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, acl);
	KUNIT_ASSERT_NOT_NULL(test, sess);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	strscpy(acl->initiatorname, name, sizeof(acl->initiatorname));
	sess->se_node_acl = acl;
	ch->sess = sess;
	dev->transport_flags = flags;
	cmd->se_dev = dev;
	cmd->t_task_cdb = cmd->__t_task_cdb;
	cmd->t_task_cdb[0] = op;
	return srpt_pr_refused(ch, cmd);
}

/* Whether PR IN and PR OUT from ACL @name are refused (both the same). */
static bool pr_in_out_refused(struct kunit *test, const char *name)
{
	bool out = refused(test, name, PERSISTENT_RESERVE_OUT, 0);

	KUNIT_EXPECT_EQ_MSG(test, refused(test, name, PERSISTENT_RESERVE_IN, 0),
			    out, "%s", name);
	return out;
}

/**
 * struct pr_acl_case - whether persistent reservations from an ACL name
 *	are refused
 * @name: the ACL name
 * @refused: PR IN and PR OUT are refused
 */
struct pr_acl_case {
	const char *name;
	bool refused;
};

/*
 * LIO makes a TransportID of a port-ID name, with or without "0x". Address
 * and GUID names have no TransportID, nor have names LIO cannot decode (odd
 * length, more than 32 digits, no digits): PR IN and OUT are refused.
 */
static const struct pr_acl_case pr_acl_cases[] = {
	{ "0x00112233445566778899aabbccddeeff", false },
	{ "00112233445566778899aabbccddeeff", false },
	{ "0X00112233445566778899AABBCCDDEEFF", false },
	{ "0x0002c90300a1b2c3", false },
	{ "192.168.122.76", true },
	{ "fe80:0000:0000:0000:5054:00ff:fe12:3456", true },
	{ "0002:c903:00a1:b2c3", true },
	{ "0x123", true },
	{ "0x00112233445566778899aabbccddeeff00", true },
	{ "0x", true },
};

KUNIT_ARRAY_PARAM_DESC(pr_acl, pr_acl_cases, name);

static void srpt_test_pr_acl(struct kunit *test)
{
	const struct pr_acl_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, pr_in_out_refused(test, c->name), c->refused,
			    "%s", c->name);
}

/**
 * struct opcode_case - a SCSI or SRP opcode with its name
 * @name: the opcode's name in the test report
 * @op: the opcode
 */
struct opcode_case {
	const char *name;
	u8 op;
};

#define OPCODE(op)	{ #op, op }

/* Only persistent reservations are refused, whatever the ACL's name. */
static const struct opcode_case pr_other_cases[] = {
	OPCODE(READ_10), OPCODE(WRITE_10), OPCODE(INQUIRY), OPCODE(RESERVE),
	OPCODE(RELEASE), OPCODE(REPORT_LUNS),
};

KUNIT_ARRAY_PARAM_DESC(pr_other, pr_other_cases, name);

static void srpt_test_pr_other_commands(struct kunit *test)
{
	const struct opcode_case *c = test->param_value;

	KUNIT_EXPECT_FALSE(test, refused(test, "192.168.122.76", c->op, 0));
}

/* A pass-through backstore answers PR itself: nothing is refused. */
static void srpt_test_pr_passthrough(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, refused(test, "192.168.122.76",
					 PERSISTENT_RESERVE_OUT,
					 TRANSPORT_FLAG_PASSTHROUGH_PGR));
	KUNIT_EXPECT_FALSE(test, refused(test, "192.168.122.76",
					 PERSISTENT_RESERVE_IN,
					 TRANSPORT_FLAG_PASSTHROUGH_PGR));
}

/* ---- EXTENDED COPY: srpt_xcopy_refused() ---- */

/* Whether a command with opcode @op to a device with @flags is refused. */
static bool xcopy_refused(struct kunit *test, u8 op, u8 flags)
{
	struct se_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct se_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	dev->transport_flags = flags;
	cmd->se_dev = dev;
	cmd->t_task_cdb = cmd->__t_task_cdb;
	cmd->t_task_cdb[0] = op;
	return srpt_xcopy_refused(cmd);
}

/*
 * EXTENDED COPY is refused unless the backstore passes commands through;
 * RECEIVE COPY RESULTS and the commands a copy would have used are not.
 */
static void srpt_test_xcopy_refused(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, xcopy_refused(test, EXTENDED_COPY, 0));
	KUNIT_EXPECT_TRUE(test, xcopy_refused(test, EXTENDED_COPY,
					      TRANSPORT_FLAG_PASSTHROUGH_PGR));
	KUNIT_EXPECT_FALSE(test, xcopy_refused(test, EXTENDED_COPY,
					       TRANSPORT_FLAG_PASSTHROUGH));
	KUNIT_EXPECT_FALSE(test, xcopy_refused(test, RECEIVE_COPY_RESULTS, 0));
	KUNIT_EXPECT_FALSE(test, xcopy_refused(test, READ_16, 0));
	KUNIT_EXPECT_FALSE(test, xcopy_refused(test, WRITE_16, 0));
}

/* ---- WWN names: srpt_format_guid_name() / srpt_format_gid_name() ---- */

static const union ib_gid test_gid = {
	.raw = {
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x50, 0x54, 0x00, 0xff, 0xfe, 0xab, 0xcd, 0xef,
	},
};

static void srpt_test_format_guid_name(struct kunit *test)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	srpt_format_guid_name(buf, sizeof(buf), &test_gid);
	KUNIT_EXPECT_STREQ(test, buf, "5054:00ff:feab:cdef");
}

static void srpt_test_format_gid_name(struct kunit *test)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	srpt_format_gid_name(buf, sizeof(buf), &test_gid);
	KUNIT_EXPECT_STREQ(test, buf, "0xfe80000000000000505400fffeabcdef");
}

static void srpt_test_format_names_exact_size(struct kunit *test)
{
	char guid[20], gid[35];

	srpt_format_guid_name(guid, sizeof(guid), &test_gid);
	KUNIT_EXPECT_STREQ(test, guid, "5054:00ff:feab:cdef");
	srpt_format_gid_name(gid, sizeof(gid), &test_gid);
	KUNIT_EXPECT_STREQ(test, gid, "0xfe80000000000000505400fffeabcdef");
}

static void srpt_test_format_names_round_trip(struct kunit *test)
{
	char buf[64], canon[40];
	u8 id[16];
	u64 guid;

	srpt_format_guid_name(buf, sizeof(buf), &test_gid);
	KUNIT_ASSERT_EQ(test, srpt_parse_guid(&guid, buf), 0);
	KUNIT_EXPECT_EQ(test, guid,
			be64_to_cpu(test_gid.global.interface_id));
	KUNIT_EXPECT_EQ(test, srpt_check_acl_name(buf, canon, sizeof(canon)),
			0);

	srpt_format_gid_name(buf, sizeof(buf), &test_gid);
	KUNIT_ASSERT_EQ(test, srpt_parse_i_port_id(id, buf), 0);
	KUNIT_EXPECT_MEMEQ(test, id, test_gid.raw, 16);
	KUNIT_EXPECT_EQ(test, srpt_check_acl_name(buf, canon, sizeof(canon)),
			0);
	KUNIT_EXPECT_EQ(test, srpt_check_acl_name(buf + 2, canon,
						  sizeof(canon)), 0);
}

/* ---- GID changes: srpt_port_set_gid() / srpt_wwn_name_current() ---- */

/* test_gid after a MAC change: another interface ID. */
static const union ib_gid test_gid_new_mac = {
	.raw = {
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x52, 0x50, 0xff, 0xfe, 0x00, 0xaa, 0xbb,
	},
};

/* test_gid after an InfiniBand subnet prefix change: same interface ID. */
static const union ib_gid test_gid_new_prefix = {
	.raw = {
		0xfe, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x50, 0x54, 0x00, 0xff, 0xfe, 0xab, 0xcd, 0xef,
	},
};

static void srpt_test_port_set_gid_first(struct kunit *test)
{
	struct srpt_port *sport = kunit_kzalloc(test, sizeof(*sport),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sport);
	/* The first GID read is no change, not even an all-zero one. */
	KUNIT_EXPECT_FALSE(test, srpt_port_set_gid(sport, &test_gid));
	KUNIT_EXPECT_STREQ(test, sport->guid_name, "5054:00ff:feab:cdef");
	KUNIT_EXPECT_STREQ(test, sport->gid_name,
			   "0xfe80000000000000505400fffeabcdef");
	KUNIT_EXPECT_MEMEQ(test, &sport->gid, &test_gid, sizeof(test_gid));
	KUNIT_EXPECT_FALSE(test, srpt_port_set_gid(sport, &test_gid));
	KUNIT_EXPECT_STREQ(test, sport->gid_name,
			   "0xfe80000000000000505400fffeabcdef");
}

static void srpt_test_port_set_gid_zero_first(struct kunit *test)
{
	static const union ib_gid zero;
	struct srpt_port *sport = kunit_kzalloc(test, sizeof(*sport),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sport);
	KUNIT_EXPECT_FALSE(test, srpt_port_set_gid(sport, &zero));
	KUNIT_EXPECT_STREQ(test, sport->guid_name, "0000:0000:0000:0000");
	/* From a known all-zero GID to another one is a change. */
	KUNIT_EXPECT_TRUE(test, srpt_port_set_gid(sport, &test_gid));
	KUNIT_EXPECT_STREQ(test, sport->guid_name, "5054:00ff:feab:cdef");
}

static void srpt_test_port_set_gid_changed(struct kunit *test)
{
	struct srpt_port *sport = kunit_kzalloc(test, sizeof(*sport),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sport);
	srpt_port_set_gid(sport, &test_gid);
	KUNIT_EXPECT_TRUE(test, srpt_port_set_gid(sport, &test_gid_new_mac));
	KUNIT_EXPECT_STREQ(test, sport->guid_name, "0052:50ff:fe00:aabb");
	KUNIT_EXPECT_STREQ(test, sport->gid_name,
			   "0xfe80000000000000005250fffe00aabb");
	KUNIT_EXPECT_MEMEQ(test, &sport->gid, &test_gid_new_mac,
			   sizeof(test_gid_new_mac));
	/* And back: a change again. */
	KUNIT_EXPECT_TRUE(test, srpt_port_set_gid(sport, &test_gid));
	KUNIT_EXPECT_STREQ(test, sport->gid_name,
			   "0xfe80000000000000505400fffeabcdef");
}

static void srpt_test_wwn_name_current_mac(struct kunit *test)
{
	struct srpt_port *sport = kunit_kzalloc(test, sizeof(*sport),
						GFP_KERNEL);
	struct srpt_port_id guid_id = { .gid_form = false };
	struct srpt_port_id gid_id = { .gid_form = true };

	KUNIT_ASSERT_NOT_NULL(test, sport);
	srpt_port_set_gid(sport, &test_gid);
	strscpy(guid_id.name, "5054:00FF:FEAB:CDEF", sizeof(guid_id.name));
	strscpy(gid_id.name, sport->gid_name, sizeof(gid_id.name));
	KUNIT_EXPECT_TRUE(test, srpt_wwn_name_current(&guid_id, sport));
	KUNIT_EXPECT_TRUE(test, srpt_wwn_name_current(&gid_id, sport));
	/* A RoCE MAC change: both forms are stale. */
	srpt_port_set_gid(sport, &test_gid_new_mac);
	KUNIT_EXPECT_FALSE(test, srpt_wwn_name_current(&guid_id, sport));
	KUNIT_EXPECT_FALSE(test, srpt_wwn_name_current(&gid_id, sport));
	/* The MAC address back: both are current again. */
	srpt_port_set_gid(sport, &test_gid);
	KUNIT_EXPECT_TRUE(test, srpt_wwn_name_current(&guid_id, sport));
	KUNIT_EXPECT_TRUE(test, srpt_wwn_name_current(&gid_id, sport));
}

static void srpt_test_wwn_name_current_prefix(struct kunit *test)
{
	struct srpt_port *sport = kunit_kzalloc(test, sizeof(*sport),
						GFP_KERNEL);
	struct srpt_port_id guid_id = { .gid_form = false };
	struct srpt_port_id gid_id = { .gid_form = true };

	KUNIT_ASSERT_NOT_NULL(test, sport);
	srpt_port_set_gid(sport, &test_gid);
	strscpy(guid_id.name, sport->guid_name, sizeof(guid_id.name));
	strscpy(gid_id.name, sport->gid_name, sizeof(gid_id.name));
	/* A new subnet prefix: only the GID form is stale. */
	KUNIT_EXPECT_TRUE(test, srpt_port_set_gid(sport,
						  &test_gid_new_prefix));
	KUNIT_EXPECT_TRUE(test, srpt_wwn_name_current(&guid_id, sport));
	KUNIT_EXPECT_FALSE(test, srpt_wwn_name_current(&gid_id, sport));
	KUNIT_EXPECT_STREQ(test, sport->gid_name,
			   "0xfec0000000000001505400fffeabcdef");
}

/* ---- login requests: srpt_check_login() ---- */

static struct srp_login_req *good_login(struct kunit *test)
{
	struct srp_login_req *req = kunit_kzalloc(test, sizeof(*req),
						  GFP_KERNEL);
	__be64 guid = cpu_to_be64(SRPT_TEST_GUID);

	KUNIT_ASSERT_NOT_NULL(test, req);
	req->opcode = SRP_LOGIN_REQ;
	req->req_it_iu_len = cpu_to_be32(SRPT_TEST_REQ_SIZE);
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				       SRP_BUF_FORMAT_INDIRECT);
	req->initiator_port_id[15] = 0x01;
	memcpy(req->target_port_id, &guid, 8);
	memcpy(req->target_port_id + 8, &guid, 8);
	return req;
}

static void srpt_test_login_accept(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srpt_check_login(good_login(test), true), 0);
}

static void srpt_test_login_iu_len_bounds(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->req_it_iu_len = cpu_to_be32(SRPT_MIN_IU_LEN);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true), 0);
	req->req_it_iu_len = cpu_to_be32(SRPT_TEST_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true), 0);
}

static void srpt_test_login_iu_too_small(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->req_it_iu_len = cpu_to_be32(SRPT_MIN_IU_LEN - 1);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req->req_it_iu_len = 0;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

static void srpt_test_login_iu_too_large(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->req_it_iu_len = cpu_to_be32(SRPT_TEST_REQ_SIZE + 1);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req->req_it_iu_len = cpu_to_be32(U32_MAX);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

static void srpt_test_login_iu_follows_param(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	srp_max_req_size = 16384;
	req->req_it_iu_len = cpu_to_be32(16384);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true), 0);
	srp_max_req_size = 16383;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

static void srpt_test_login_port_disabled(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srpt_check_login(good_login(test), false),
			SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
}

static void srpt_test_login_wrong_target(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->target_port_id[15] ^= 1;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	req = good_login(test);
	req->target_port_id[0] ^= 0x80;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	req = good_login(test);
	memset(req->target_port_id, 0, 16);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
}

static void srpt_test_login_target_follows_guid(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	srpt_service_guid = SRPT_TEST_GUID + 1;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
}

static void srpt_test_login_buf_fmt_single(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true), 0);
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_INDIRECT);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true), 0);
}

static void srpt_test_login_buf_fmt_none(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->req_buf_fmt = 0;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

static const u16 unknown_buf_fmts[] = {
	0x0001, 0x0003, 0x0008, 0x000e, 0x8006, 0xffff,
};

static void login_buf_fmt_desc(const u16 *fmt, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "req_buf_fmt %#06x", *fmt);
}

KUNIT_ARRAY_PARAM(login_buf_fmt, unknown_buf_fmts, login_buf_fmt_desc);

static void srpt_test_login_buf_fmt_unknown(struct kunit *test)
{
	u16 fmt = *(const u16 *)test->param_value;
	struct srp_login_req *req = good_login(test);

	req->req_buf_fmt = cpu_to_be16(fmt);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

static void srpt_test_login_reason_order(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->req_buf_fmt = 0;
	memset(req->target_port_id, 0, 16);
	req->req_it_iu_len = cpu_to_be32(8);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, false),
			SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req->req_it_iu_len = cpu_to_be32(256);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, false),
			SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	req = good_login(test);
	req->req_buf_fmt = 0;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

static const struct opcode_case login_bad_opcodes[] = {
	OPCODE(SRP_LOGIN_RSP), OPCODE(SRP_CMD), OPCODE(SRP_TSK_MGMT),
	OPCODE(SRP_I_LOGOUT), OPCODE(SRP_LOGIN_REJ), { "0xff", 0xff },
};

KUNIT_ARRAY_PARAM_DESC(login_opcode, login_bad_opcodes, name);

static void srpt_test_login_opcode(struct kunit *test)
{
	const struct opcode_case *c = test->param_value;
	struct srp_login_req *req = good_login(test);

	req->opcode = c->op;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, true),
			SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	/* Checked first: the rest of a non-login IU means nothing. */
	req->req_it_iu_len = 0;
	KUNIT_EXPECT_EQ(test, srpt_check_login(req, false),
			SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
}

static void expect_rej_text(struct kunit *test, struct srp_login_req *req,
			    bool enabled, const char *text)
{
	char buf[64];

	srpt_login_rej_text(buf, sizeof(buf), req,
			    srpt_check_login(req, enabled));
	KUNIT_EXPECT_STREQ(test, buf, text);
}

static void srpt_test_login_rej_text(struct kunit *test)
{
	struct srp_login_req *req = good_login(test);

	req->req_it_iu_len = cpu_to_be32(70000);
	expect_rej_text(test, req, true, "IU length 70000 above 8260");
	req->req_it_iu_len = cpu_to_be32(8);
	expect_rej_text(test, req, true, "IU length 8 below 64");
	expect_rej_text(test, good_login(test), false, "port disabled");
	req = good_login(test);
	memset(req->target_port_id, 0x11, 16);
	expect_rej_text(test, req, true,
			"target port ID mismatch (0x11111111111111111111111111111111)");
	req = good_login(test);
	req->req_buf_fmt = cpu_to_be16(0x8006);
	expect_rej_text(test, req, true, "unsupported buffer formats 0x8006");
	req = good_login(test);
	req->opcode = SRP_CMD;
	expect_rej_text(test, req, true, "opcode 0x2 is not a login request");
}

/* The port number comes from the CM event: only 1..port_cnt are ports. */
static void srpt_test_login_port_num(struct kunit *test)
{
	struct srpt_device *sdev = test_sport(test)->sdev;
	struct srp_login_req *req = good_login(test);

	KUNIT_EXPECT_PTR_EQ(test, srpt_login_port(sdev, 1), &sdev->port[0]);
	KUNIT_EXPECT_NULL(test, srpt_login_port(sdev, 0));
	KUNIT_EXPECT_NULL(test, srpt_login_port(sdev, 2));
	KUNIT_EXPECT_NULL(test, srpt_login_port(sdev, 256));
	KUNIT_EXPECT_NULL(test, srpt_login_port(sdev, U32_MAX));

	test_sport(test)->enabled = true;
	KUNIT_EXPECT_EQ(test, srpt_cm_req_check(sdev, 1, req, "test"), 0);
	KUNIT_EXPECT_EQ(test, srpt_cm_req_check(sdev, 0, req, "test"),
			SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	KUNIT_EXPECT_EQ(test, srpt_cm_req_check(sdev, 2, req, "test"),
			SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
}

/*
 * The login response may allow no IU that the receive buffers cannot hold:
 * ch->max_it_iu_len is the size of every ring buffer (srpt_alloc_ch_rings()
 * and srpt_post_recv()). A small requested IU length limits only the IUs
 * the target sends.
 */
static const u32 login_it_lens[] = {
	SRPT_MIN_IU_LEN, 148, SRPT_TEST_REQ_SIZE,
};

static void login_it_len_desc(const u32 *len, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "req_it_iu_len %u", *len);
}

KUNIT_ARRAY_PARAM(login_it_len, login_it_lens, login_it_len_desc);

static void srpt_test_login_rsp_iu_lens(struct kunit *test)
{
	u32 it_len = *(const u32 *)test->param_value;
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	struct srp_login_req *req = good_login(test);
	struct srp_login_rsp rsp;

	KUNIT_ASSERT_NOT_NULL(test, ch);
	ch->rq_size = SRPT_MAX_RQ_SIZE;
	req->req_it_iu_len = cpu_to_be32(it_len);
	srpt_ch_set_iu_lens(ch, req);
	srpt_build_login_rsp(ch, req, &rsp, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp.max_it_iu_len), ch->max_it_iu_len);
	KUNIT_EXPECT_EQ(test, ch->max_it_iu_len, SRPT_TEST_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp.max_ti_iu_len), it_len);
	KUNIT_EXPECT_EQ(test, ch->max_ti_iu_len, it_len);
}

/*
 * The whole login response, byte for byte: the credits, the IU lengths,
 * the tag of the request, both buffer formats and the MULTI-CHANNEL RESULT;
 * IMMEDIATE DATA SUPPORTED only when the channel takes immediate data.
 * Every other byte is zero.
 */
static void srpt_test_build_login_rsp(struct kunit *test)
{
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	struct srp_login_req *req = good_login(test);
	struct srp_login_rsp rsp;
	u8 want[52] = {
		SRP_LOGIN_RSP, 0, 0, 0,
		0x00, 0x00, 0x00, 0x64,		/* REQUEST LIMIT DELTA 100 */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* tag */
		0x00, 0x00, 0x20, 0x44,		/* MAX_IT_IU_LEN 8260 */
		0x00, 0x00, 0x01, 0x00,		/* MAX_TI_IU_LEN 256 */
		0x00, 0x06,			/* direct and indirect */
		SRP_LOGIN_RSP_MULTICHAN_MAINTAINED,
	};

	KUNIT_ASSERT_NOT_NULL(test, ch);
	KUNIT_ASSERT_EQ(test, sizeof(rsp), sizeof(want));
	memcpy(&req->tag, &want[8], 8);
	ch->rq_size = 100;
	ch->max_it_iu_len = 8260;
	ch->max_ti_iu_len = 256;
	memset(&rsp, 0xa5, sizeof(rsp));
	srpt_build_login_rsp(ch, req, &rsp, SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	KUNIT_EXPECT_MEMEQ(test, &rsp, want, sizeof(want));

	ch->imm_data_offset = 80;
	want[26] = SRP_LOGIN_RSP_IMMED_SUPP | SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
	memset(&rsp, 0xa5, sizeof(rsp));
	srpt_build_login_rsp(ch, req, &rsp, SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	KUNIT_EXPECT_MEMEQ(test, &rsp, want, sizeof(want));
}

/* ---- SRP_CMD data descriptors: srpt_parse_cmd_bufs() ---- */

#define CMD_HDR		((u32)sizeof(struct srp_cmd))	/* 48 */
#define IND_HDR		((u32)sizeof(struct srp_indirect_buf))	/* 20 */
#define DESC		((u32)sizeof(struct srp_direct_buf))	/* 16 */

/**
 * struct cmd_image - an SRP_CMD IU under construction
 * @buf: room for the largest IU the tests build
 */
struct cmd_image {
	u8 buf[9000];
};

static struct cmd_image *cmd_image(struct kunit *test, u8 buf_fmt,
				   u8 out_cnt, u8 in_cnt, u8 add_cdb_len)
{
	struct cmd_image *img = kunit_kzalloc(test, sizeof(*img), GFP_KERNEL);
	struct srp_cmd *cmd = (void *)img->buf;

	KUNIT_ASSERT_NOT_NULL(test, img);
	cmd->opcode = SRP_CMD;
	cmd->buf_fmt = buf_fmt;
	cmd->data_out_desc_cnt = out_cnt;
	cmd->data_in_desc_cnt = in_cnt;
	cmd->tag = 0x42;
	cmd->add_cdb_len = add_cdb_len;
	cmd->cdb[0] = 0x2a;
	return img;
}

static void put_desc(struct cmd_image *img, u32 off, u64 va, u32 key, u32 len)
{
	struct srp_direct_buf d = {
		.va = cpu_to_be64(va),
		.key = cpu_to_be32(key),
		.len = cpu_to_be32(len),
	};

	memcpy(img->buf + off, &d, sizeof(d));
}

/* An indirect header at @off: table descriptor of @table_len, @total. */
static void put_ind_hdr(struct cmd_image *img, u32 off, u32 table_len,
			u32 total)
{
	__be32 t = cpu_to_be32(total);

	put_desc(img, off, 0x1000, 0x77, table_len);
	memcpy(img->buf + off + DESC, &t, sizeof(t));
}

/*
 * Parses the first @byte_len bytes of @img from a buffer of exactly that
 * size, so that KASAN reports any read beyond the received bytes.
 */
static int parse(struct kunit *test, const struct cmd_image *img,
		 u32 byte_len, u16 imm_off, struct srpt_desc_info *info,
		 const u8 **iu)
{
	u8 *copy = kunit_kmalloc(test, max_t(u32, byte_len, 1), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	memcpy(copy, img->buf, byte_len);
	memset(info, 0xcc, sizeof(*info));
	if (iu)
		*iu = copy;
	return srpt_parse_cmd_bufs((struct srp_cmd *)copy, byte_len, imm_off,
				   info);
}

/* The SRP sizes the images above are built with. */
static_assert(CMD_HDR == 48 && offsetof(struct srp_cmd, add_data) == 48);
static_assert(IND_HDR == 20 &&
	      offsetof(struct srp_indirect_buf, desc_list) == 20);
static_assert(DESC == 16 && sizeof(struct srp_imm_buf) == 4);

static void srpt_test_cmd_no_data(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x00, 0, 0, 0);
	struct srpt_desc_info info;

	KUNIT_ASSERT_EQ(test, parse(test, img, CMD_HDR, 0, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.dir, DMA_NONE);
	KUNIT_EXPECT_EQ(test, info.data_len, 0);
}

static void srpt_test_cmd_header_truncated(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x00, 0, 0, 0);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR - 1, 0, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, 1, 0, &info, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, 0, 0, &info, NULL), -EINVAL);
}

static void srpt_test_cmd_direct_out(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x10, 1, 0, 0);
	struct srpt_desc_info info;
	const u8 *iu;

	put_desc(img, CMD_HDR, 0x123456789000ULL, 0xabcd, 4096);
	KUNIT_ASSERT_EQ(test, parse(test, img, CMD_HDR + DESC, 0, &info, &iu),
			0);
	KUNIT_EXPECT_EQ(test, info.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, info.fmt, SRP_DATA_DESC_DIRECT);
	KUNIT_EXPECT_EQ(test, info.nbufs, 1);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)info.bufs, iu + CMD_HDR);
	KUNIT_EXPECT_EQ(test, info.data_len, 4096);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(info.bufs[0].va), 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(info.bufs[0].key), 0xabcd);
}

static void srpt_test_cmd_direct_in(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x01, 0, 1, 0);
	struct srpt_desc_info info;

	put_desc(img, CMD_HDR, 0x2000, 0x1, 512);
	KUNIT_ASSERT_EQ(test, parse(test, img, 256, 0, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.dir, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, info.fmt, SRP_DATA_DESC_DIRECT);
	KUNIT_EXPECT_EQ(test, info.nbufs, 1);
	KUNIT_EXPECT_EQ(test, info.data_len, 512);
}

static void srpt_test_cmd_direct_max_len(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x01, 0, 1, 0);
	struct srpt_desc_info info;

	put_desc(img, CMD_HDR, 0x2000, 0x1, U32_MAX);
	KUNIT_ASSERT_EQ(test, parse(test, img, CMD_HDR + DESC, 0, &info, NULL),
			0);
	KUNIT_EXPECT_EQ(test, info.data_len, (u64)U32_MAX);
}

static void srpt_test_cmd_direct_truncated(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x10, 1, 0, 0);
	struct srpt_desc_info info;

	put_desc(img, CMD_HDR, 0x2000, 0x1, 512);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + DESC - 1, 0, &info,
				    NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR, 0, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_add_cdb(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x01, 0, 1, 16);
	struct srpt_desc_info info;
	const u8 *iu;

	put_desc(img, CMD_HDR + 16, 0x3000, 0x2, 8192);
	KUNIT_ASSERT_EQ(test, parse(test, img, CMD_HDR + 16 + DESC, 0, &info,
				    &iu), 0);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)info.bufs, iu + CMD_HDR + 16);
	KUNIT_EXPECT_EQ(test, info.data_len, 8192);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + 16 + DESC - 1, 0,
				    &info, NULL), -EINVAL);
}

static void srpt_test_cmd_add_cdb_reserved_bits(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x01, 0, 1, 16 | 3);
	struct srpt_desc_info info;
	const u8 *iu;

	put_desc(img, CMD_HDR + 16, 0x3000, 0x2, 1024);
	KUNIT_ASSERT_EQ(test, parse(test, img, CMD_HDR + 16 + DESC, 0, &info,
				    &iu), 0);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)info.bufs, iu + CMD_HDR + 16);
	KUNIT_EXPECT_EQ(test, info.data_len, 1024);
}

static void srpt_test_cmd_add_cdb_too_long(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x00, 0, 0, 252);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + 100, 0, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + 251, 0, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + 252, 0, &info, NULL),
			0);
}

static void cmd_buf_fmt_desc(const u8 *fmt, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "buf_fmt %#04x", *fmt);
}

static const u8 bidi_buf_fmts[] = { 0x11, 0x12, 0x21, 0x22, 0x31, 0x32 };

KUNIT_ARRAY_PARAM(bidi_buf_fmt, bidi_buf_fmts, cmd_buf_fmt_desc);

static void srpt_test_cmd_bidirectional(struct kunit *test)
{
	u8 fmt = *(const u8 *)test->param_value;
	struct cmd_image *img = cmd_image(test, fmt, 1, 1, 0);
	struct srpt_desc_info info;

	put_desc(img, CMD_HDR, 0x2000, 0x1, 512);
	put_desc(img, CMD_HDR + DESC, 0x4000, 0x1, 512);
	KUNIT_EXPECT_EQ(test, parse(test, img, 512, 64, &info, NULL), -EINVAL);
}

static const u8 unknown_buf_fmts_cmd[] = { 0x40, 0x04, 0xf0, 0x0f, 0x50 };

KUNIT_ARRAY_PARAM(unknown_cmd_buf_fmt, unknown_buf_fmts_cmd,
		  cmd_buf_fmt_desc);

static void srpt_test_cmd_unknown_format(struct kunit *test)
{
	u8 fmt = *(const u8 *)test->param_value;
	struct cmd_image *img = cmd_image(test, fmt, 1, 1, 0);
	struct srpt_desc_info info;

	put_desc(img, CMD_HDR, 0x2000, 0x1, 512);
	KUNIT_EXPECT_EQ(test, parse(test, img, 512, 64, &info, NULL), -EINVAL);
}

/* An indirect IU with @n descriptors of @len bytes each. */
static struct cmd_image *indirect_cmd(struct kunit *test, bool out, u32 n,
				      u32 len)
{
	struct cmd_image *img = cmd_image(test, out ? 0x20 : 0x02,
					  out ? n : 0, out ? 0 : n, 0);
	u32 i;

	put_ind_hdr(img, CMD_HDR, n * DESC, n * len);
	for (i = 0; i < n; i++)
		put_desc(img, CMD_HDR + IND_HDR + i * DESC, 0x10000 * (i + 1),
			 0x100 + i, len);
	return img;
}

static void srpt_test_cmd_indirect_out(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, true, 2, 4096);
	u32 len = CMD_HDR + IND_HDR + 2 * DESC;
	struct srpt_desc_info info;
	const u8 *iu;

	KUNIT_ASSERT_EQ(test, parse(test, img, len, 0, &info, &iu), 0);
	KUNIT_EXPECT_EQ(test, info.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, info.fmt, SRP_DATA_DESC_INDIRECT);
	KUNIT_EXPECT_EQ(test, info.nbufs, 2);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)info.bufs,
			    iu + CMD_HDR + IND_HDR);
	KUNIT_EXPECT_EQ(test, info.data_len, 8192);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(info.bufs[1].key), 0x101);
}

static void srpt_test_cmd_indirect_in(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, false, 3, 512);
	u32 len = CMD_HDR + IND_HDR + 3 * DESC;
	struct srpt_desc_info info;

	KUNIT_ASSERT_EQ(test, parse(test, img, len, 0, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.dir, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, info.fmt, SRP_DATA_DESC_INDIRECT);
	KUNIT_EXPECT_EQ(test, info.nbufs, 3);
	KUNIT_EXPECT_EQ(test, info.data_len, 1536);
}

static void srpt_test_cmd_indirect_one(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, false, 1, 65536);
	struct srpt_desc_info info;

	KUNIT_ASSERT_EQ(test, parse(test, img, CMD_HDR + IND_HDR + DESC, 0,
				    &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.nbufs, 1);
	KUNIT_EXPECT_EQ(test, info.data_len, 65536);
}

static void srpt_test_cmd_indirect_255(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, false, 255, 4096);
	u32 len = CMD_HDR + IND_HDR + 255 * DESC;
	struct srpt_desc_info info;

	KUNIT_ASSERT_EQ(test, parse(test, img, len, 0, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.nbufs, 255);
	KUNIT_EXPECT_EQ(test, info.data_len, 255 * 4096);
	KUNIT_EXPECT_EQ(test, parse(test, img, len - 1, 0, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_indirect_truncated_list(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, true, 2, 4096);
	u32 len = CMD_HDR + IND_HDR + 2 * DESC;
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, len - 1, 0, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, len - DESC, 0, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_indirect_truncated_hdr(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, true, 1, 4096);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR - 1, 0, &info,
				    NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR, 0, &info,
				    NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + DESC, 0, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_indirect_external_table(struct kunit *test)
{
	/* A table of 255 descriptors of which the IU carries only two. */
	struct cmd_image *img = indirect_cmd(test, true, 2, 4096);
	struct srpt_desc_info info;
	struct srp_cmd *cmd = (void *)img->buf;

	put_ind_hdr(img, CMD_HDR, 255 * DESC, 255 * 4096);
	cmd->data_out_desc_cnt = 255;
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR + 2 * DESC, 0,
				    &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_zero_table(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, true, 1, 4096);
	struct srpt_desc_info info;

	put_ind_hdr(img, CMD_HDR, 0, 4096);
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR + DESC, 0,
				    &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_table_not_multiple(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, true, 2, 4096);
	struct srpt_desc_info info;
	u32 len = CMD_HDR + IND_HDR + 2 * DESC;

	put_ind_hdr(img, CMD_HDR, 2 * DESC - 1, 8192);
	KUNIT_EXPECT_EQ(test, parse(test, img, len, 0, &info, NULL), -EINVAL);
	put_ind_hdr(img, CMD_HDR, 2 * DESC + 8, 8192);
	KUNIT_EXPECT_EQ(test, parse(test, img, len, 0, &info, NULL), -EINVAL);
	put_ind_hdr(img, CMD_HDR, 4, 8192);
	KUNIT_EXPECT_EQ(test, parse(test, img, len, 0, &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_zero_count(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, true, 2, 4096);
	struct srp_cmd *cmd = (void *)img->buf;
	struct srpt_desc_info info;

	cmd->data_out_desc_cnt = 0;
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR + 2 * DESC, 0,
				    &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_count_exceeds_table(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, false, 2, 4096);
	struct srp_cmd *cmd = (void *)img->buf;
	struct srpt_desc_info info;

	/* The list holds three descriptors but the table says two. */
	put_desc(img, CMD_HDR + IND_HDR + 2 * DESC, 0x30000, 0x102, 4096);
	cmd->data_in_desc_cnt = 3;
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR + 3 * DESC, 0,
				    &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_count_below_table(struct kunit *test)
{
	/*
	 * Table of three, two of them in the IU: the third would have to be
	 * fetched from the initiator (a partly external table), which is not
	 * supported.
	 */
	struct cmd_image *img = indirect_cmd(test, false, 3, 4096);
	struct srp_cmd *cmd = (void *)img->buf;
	struct srpt_desc_info info;

	put_ind_hdr(img, CMD_HDR, 3 * DESC, 2 * 4096);
	cmd->data_in_desc_cnt = 2;
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR + 2 * DESC, 0,
				    &info, NULL), -EINVAL);
}

static void srpt_test_cdb_dir_conflict(struct kunit *test)
{
	u8 cdb[16] = { WRITE_10 };

	/* A WRITE with a data-in buffer would store uninitialised pages. */
	KUNIT_EXPECT_TRUE(test, srpt_cdb_dir_conflict(cdb, DMA_FROM_DEVICE));
	KUNIT_EXPECT_FALSE(test, srpt_cdb_dir_conflict(cdb, DMA_TO_DEVICE));
	KUNIT_EXPECT_FALSE(test, srpt_cdb_dir_conflict(cdb, DMA_NONE));
	cdb[0] = READ_16;
	KUNIT_EXPECT_TRUE(test, srpt_cdb_dir_conflict(cdb, DMA_TO_DEVICE));
	KUNIT_EXPECT_FALSE(test, srpt_cdb_dir_conflict(cdb, DMA_FROM_DEVICE));
	cdb[0] = TEST_UNIT_READY;
	KUNIT_EXPECT_FALSE(test, srpt_cdb_dir_conflict(cdb, DMA_TO_DEVICE));
	KUNIT_EXPECT_FALSE(test, srpt_cdb_dir_conflict(cdb, DMA_FROM_DEVICE));
}

static void srpt_test_slice_sg(struct kunit *test)
{
	struct scatterlist *data, out[3];
	unsigned int nents, n;

	KUNIT_ASSERT_EQ(test, target_alloc_sgl(&data, &nents, 3 * PAGE_SIZE,
					       false, false), 0);
	/* An odd range inside one page. */
	n = srpt_slice_sg(data, 17, 330, out);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_PTR_EQ(test, sg_page(&out[0]), sg_page(&data[0]));
	KUNIT_EXPECT_EQ(test, out[0].offset, 17);
	KUNIT_EXPECT_EQ(test, out[0].length, 330);
	KUNIT_EXPECT_TRUE(test, sg_is_last(&out[0]));
	/* A range across a page boundary. */
	n = srpt_slice_sg(data, PAGE_SIZE - 10, 20, out);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, out[0].offset, PAGE_SIZE - 10);
	KUNIT_EXPECT_EQ(test, out[0].length, 10);
	KUNIT_EXPECT_PTR_EQ(test, sg_page(&out[1]), sg_page(&data[1]));
	KUNIT_EXPECT_EQ(test, out[1].offset, 0);
	KUNIT_EXPECT_EQ(test, out[1].length, 10);
	/* The last whole page. */
	n = srpt_slice_sg(data, 2 * PAGE_SIZE, PAGE_SIZE, out);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_PTR_EQ(test, sg_page(&out[0]), sg_page(&data[2]));
	KUNIT_EXPECT_EQ(test, out[0].length, PAGE_SIZE);
	target_free_sgl(data, nents);
}

/*
 * The send queue a channel fills is what its CQ was sized for, never what
 * the QP holds beyond it: with srp_sq_size 16 rdma_rw makes the QP of a
 * 128-credit channel hold 16 + 128 work requests on RoCE (three times the
 * credits more on iWARP), and 128 responses in flight would overflow a CQ
 * sized for 16 + 128 receives + 1.
 */
static void srpt_test_sq_slots(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(16, 16 + 128), 16);
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(16, 16 + 3 * 128), 16);
	/* Rounded up by the device. */
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(600, 1024), 600);
	/* Capped by the device: one stays free for the zero-length write. */
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(4096, 4096), 4095);
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(4096, 2048), 2047);
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(4, 5), 4);
	/* A QP without room: no slot, and no wrap-around. */
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(16, 1), 0);
	KUNIT_EXPECT_EQ(test, srpt_sq_slots(16, 0), 0);
}

static void srpt_test_sq_size(struct kunit *test)
{
	struct ib_device_attr attrs = {
		.max_qp_wr = 16384, .max_send_sge = 16, .max_sge_rd = 32,
	};
	/* 64 MiB in 255 descriptors, each touching up to two extra pages. */
	u32 big = DIV_ROUND_UP(SRPT_MAX_DATA_LEN / PAGE_SIZE + 2 * 255, 16) +
		255 + 1;
	u32 big1 = SRPT_MAX_DATA_LEN / PAGE_SIZE + 2 * 255 + 255 + 1;

	/* The largest command decides, not the attribute's 4096. */
	KUNIT_EXPECT_EQ(test, srpt_ch_sq_size(SRPT_DEF_SQ_SIZE, &attrs, 128),
			max_t(u32, big, 128 * SRPT_SQ_WR_PER_CREDIT));
	/* Many credits. */
	KUNIT_EXPECT_EQ(test, srpt_ch_sq_size(SRPT_MAX_SQ_SIZE, &attrs, 2048),
			2048 * SRPT_SQ_WR_PER_CREDIT);
	/* The attribute and the device cap it. */
	KUNIT_EXPECT_EQ(test, srpt_ch_sq_size(100, &attrs, 128), 100);
	attrs.max_qp_wr = 64;
	KUNIT_EXPECT_EQ(test, srpt_ch_sq_size(SRPT_DEF_SQ_SIZE, &attrs, 128),
			64);
	/* Fewer SGEs per work request need more slots; zero does not divide. */
	attrs.max_qp_wr = 1 << 20;
	attrs.max_sge_rd = 1;
	KUNIT_EXPECT_EQ(test, srpt_ch_sq_size(SRPT_MAX_SQ_SIZE, &attrs, 128),
			big1);
	attrs.max_send_sge = 0;
	KUNIT_EXPECT_EQ(test, srpt_ch_sq_size(SRPT_MAX_SQ_SIZE, &attrs, 128),
			big1);
	/* 255 odd-sized descriptors of 64 MiB need ~1275. */
	attrs.max_send_sge = 16;
	attrs.max_sge_rd = 16;
	KUNIT_EXPECT_GE(test, srpt_ch_sq_size(SRPT_DEF_SQ_SIZE, &attrs, 128),
			255 * DIV_ROUND_UP(SRPT_MAX_DATA_LEN / 255 / PAGE_SIZE + 2,
					   16) + 1);
}

static void srpt_test_cdb_len(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x00, 0, 0, 0);
	struct srp_cmd *cmd = (void *)img->buf;

	/* READ(10) in a bare 48-byte IU. */
	KUNIT_EXPECT_TRUE(test, srpt_cdb_len_ok(cmd, CMD_HDR));
	/* 7Fh with ADDITIONAL CDB LENGTH 24: 32 bytes, only 16 there. */
	cmd->cdb[0] = VARIABLE_LENGTH_CMD;
	cmd->cdb[7] = 24;
	KUNIT_EXPECT_FALSE(test, srpt_cdb_len_ok(cmd, CMD_HDR));
	KUNIT_EXPECT_FALSE(test, srpt_cdb_len_ok(cmd, CMD_HDR + 100));
	/* Eight additional bytes are not enough, sixteen are. */
	cmd->add_cdb_len = 8;
	KUNIT_EXPECT_FALSE(test, srpt_cdb_len_ok(cmd, CMD_HDR + 8));
	cmd->add_cdb_len = 16;
	KUNIT_EXPECT_TRUE(test, srpt_cdb_len_ok(cmd, CMD_HDR + 16));
	/* ... but only if they arrived. */
	KUNIT_EXPECT_FALSE(test, srpt_cdb_len_ok(cmd, CMD_HDR + 15));
	/* The reserved low bits do not count. */
	cmd->add_cdb_len = 16 | 3;
	KUNIT_EXPECT_TRUE(test, srpt_cdb_len_ok(cmd, CMD_HDR + 16));
	/* The largest variable-length CDB, 263 bytes, fits 16 + 252. */
	cmd->cdb[7] = 255;
	cmd->add_cdb_len = 244;
	KUNIT_EXPECT_FALSE(test, srpt_cdb_len_ok(cmd, CMD_HDR + 244));
	cmd->add_cdb_len = 248;
	KUNIT_EXPECT_TRUE(test, srpt_cdb_len_ok(cmd, CMD_HDR + 248));
	KUNIT_EXPECT_LE(test, 16 + 248, SRPT_MAX_CDB_LEN);
}

/**
 * struct cdb_dir_case - the data direction of a CDB by its opcode
 * @name: the opcode's name in the test report
 * @op: the opcode
 * @dir: the expected direction
 */
struct cdb_dir_case {
	const char *name;
	u8 op;
	enum dma_data_direction dir;
};

#define CDB_DIR(op, dir)	{ #op, op, dir }

static const struct cdb_dir_case cdb_dir_cases[] = {
	CDB_DIR(WRITE_6, DMA_TO_DEVICE), CDB_DIR(WRITE_10, DMA_TO_DEVICE),
	CDB_DIR(WRITE_12, DMA_TO_DEVICE), CDB_DIR(WRITE_16, DMA_TO_DEVICE),
	CDB_DIR(WRITE_VERIFY, DMA_TO_DEVICE),
	CDB_DIR(WRITE_VERIFY_16, DMA_TO_DEVICE),
	CDB_DIR(WRITE_SAME, DMA_TO_DEVICE), CDB_DIR(WRITE_SAME_16, DMA_TO_DEVICE),
	CDB_DIR(COMPARE_AND_WRITE, DMA_TO_DEVICE), CDB_DIR(UNMAP, DMA_TO_DEVICE),
	CDB_DIR(MODE_SELECT, DMA_TO_DEVICE),
	CDB_DIR(MODE_SELECT_10, DMA_TO_DEVICE),
	CDB_DIR(LOG_SELECT, DMA_TO_DEVICE),
	CDB_DIR(SEND_DIAGNOSTIC, DMA_TO_DEVICE),
	CDB_DIR(WRITE_BUFFER, DMA_TO_DEVICE),
	CDB_DIR(PERSISTENT_RESERVE_OUT, DMA_TO_DEVICE),
	CDB_DIR(EXTENDED_COPY, DMA_TO_DEVICE),
	CDB_DIR(MAINTENANCE_OUT, DMA_TO_DEVICE),
	CDB_DIR(SECURITY_PROTOCOL_OUT, DMA_TO_DEVICE),
	CDB_DIR(WRITE_ATTRIBUTE, DMA_TO_DEVICE),
	CDB_DIR(RESERVE_10, DMA_TO_DEVICE), CDB_DIR(RELEASE_10, DMA_TO_DEVICE),
	CDB_DIR(READ_6, DMA_FROM_DEVICE), CDB_DIR(READ_10, DMA_FROM_DEVICE),
	CDB_DIR(READ_12, DMA_FROM_DEVICE), CDB_DIR(READ_16, DMA_FROM_DEVICE),
	CDB_DIR(INQUIRY, DMA_FROM_DEVICE), CDB_DIR(MODE_SENSE, DMA_FROM_DEVICE),
	CDB_DIR(MODE_SENSE_10, DMA_FROM_DEVICE),
	CDB_DIR(READ_CAPACITY, DMA_FROM_DEVICE),
	CDB_DIR(SERVICE_ACTION_IN_16, DMA_FROM_DEVICE),
	CDB_DIR(REPORT_LUNS, DMA_FROM_DEVICE),
	CDB_DIR(REQUEST_SENSE, DMA_FROM_DEVICE),
	CDB_DIR(LOG_SENSE, DMA_FROM_DEVICE),
	CDB_DIR(RECEIVE_DIAGNOSTIC, DMA_FROM_DEVICE),
	CDB_DIR(READ_BUFFER, DMA_FROM_DEVICE),
	CDB_DIR(PERSISTENT_RESERVE_IN, DMA_FROM_DEVICE),
	CDB_DIR(MAINTENANCE_IN, DMA_FROM_DEVICE),
	CDB_DIR(RECEIVE_COPY_RESULTS, DMA_FROM_DEVICE),
	CDB_DIR(SECURITY_PROTOCOL_IN, DMA_FROM_DEVICE),
	CDB_DIR(READ_ATTRIBUTE, DMA_FROM_DEVICE),
	CDB_DIR(TEST_UNIT_READY, DMA_NONE), CDB_DIR(SYNCHRONIZE_CACHE, DMA_NONE),
	CDB_DIR(SYNCHRONIZE_CACHE_16, DMA_NONE), CDB_DIR(START_STOP, DMA_NONE),
	CDB_DIR(VERIFY, DMA_NONE), CDB_DIR(VERIFY_16, DMA_NONE),
	CDB_DIR(RESERVE, DMA_NONE), CDB_DIR(RELEASE, DMA_NONE),
};

KUNIT_ARRAY_PARAM_DESC(cdb_dir, cdb_dir_cases, name);

static void srpt_test_cdb_data_dir_table(struct kunit *test)
{
	const struct cdb_dir_case *c = test->param_value;
	u8 cdb[16] = { c->op };

	KUNIT_EXPECT_EQ(test, srpt_cdb_data_dir(cdb), c->dir);
}

static void srpt_test_cdb_data_dir_varlen(struct kunit *test)
{
	u8 cdb[16] = {};

	/* Variable-length CDBs: by service action. */
	cdb[0] = VARIABLE_LENGTH_CMD;
	cdb[9] = WRITE_SAME_32;
	KUNIT_EXPECT_EQ(test, srpt_cdb_data_dir(cdb), DMA_TO_DEVICE);
	cdb[9] = WRITE_32;
	KUNIT_EXPECT_EQ(test, srpt_cdb_data_dir(cdb), DMA_TO_DEVICE);
	cdb[9] = READ_32;
	KUNIT_EXPECT_EQ(test, srpt_cdb_data_dir(cdb), DMA_FROM_DEVICE);
	cdb[8] = 1;
	KUNIT_EXPECT_EQ(test, srpt_cdb_data_dir(cdb), DMA_NONE);
	/* SET TARGET PORT GROUPS with a data-in buffer is refused. */
	cdb[0] = MAINTENANCE_OUT;
	cdb[1] = MO_SET_TARGET_PGS;
	KUNIT_EXPECT_TRUE(test, srpt_cdb_dir_conflict(cdb, DMA_FROM_DEVICE));
}

static void srpt_test_ring_budget(struct kunit *test)
{
	s64 saved_bytes = atomic64_read(&srpt_ring_bytes);
	u64 saved_limit = srpt_ring_limit, bytes, ctx;
	struct srpt_rdma_ch *ch, *big;

	/* A quarter of RAM, at least two channels of the largest kind. */
	KUNIT_EXPECT_EQ(test, srpt_ring_budget(4ULL << 30), 1ULL << 30);
	KUNIT_EXPECT_EQ(test, srpt_ring_budget(0), SRPT_MIN_RING_BUDGET);
	big = kunit_kzalloc(test, sizeof(*big), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	big->rq_size = SRPT_MAX_RQ_SIZE;
	big->max_rsp_size = SRPT_MAX_RSP_SIZE;
	big->max_it_iu_len = SRPT_MAX_MAX_REQ_SIZE;
	big->imm_data_offset = SRPT_MIN_IMM_DATA_OFFSET + 1;
	KUNIT_EXPECT_GE(test, (u64)SRPT_MIN_RING_BUDGET,
			2 * srpt_ch_ring_bytes(big));

	/* What the slab allocator may take for a buffer, at worst. */
	KUNIT_EXPECT_EQ(test, srpt_buf_footprint(256), 512ULL);
	KUNIT_EXPECT_EQ(test, srpt_buf_footprint(PAGE_SIZE), (u64)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, srpt_buf_footprint(8960), 16384ULL);
	KUNIT_EXPECT_EQ(test, srpt_buf_footprint(262144), 262144ULL);
	KUNIT_EXPECT_EQ(test, srpt_buf_footprint(262144 + 444), 524288ULL);

	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	ch->sport = test_sport(test);
	ch->rq_size = 128;
	ch->max_rsp_size = 256;
	ch->max_it_iu_len = 8260;
	ch->imm_data_offset = 68;
	/* Receive buffers start 444 bytes in, so immediate data is aligned. */
	ctx = sizeof(struct srpt_send_ioctx) + sizeof(struct srpt_recv_ioctx);
	bytes = 128 * (ctx + 512 + 16384);
	KUNIT_EXPECT_EQ(test, srpt_ch_ring_bytes(ch), bytes);
	ch->use_srq = true;
	KUNIT_EXPECT_EQ(test, srpt_ch_ring_bytes(ch),
			128 * (sizeof(struct srpt_send_ioctx) + 512));
	ch->use_srq = false;

	atomic64_set(&srpt_ring_bytes, 0);
	srpt_ring_limit = 2 * bytes;
	KUNIT_EXPECT_TRUE(test, srpt_ring_charge(ch, 0));
	KUNIT_EXPECT_EQ(test, ch->ring_charge, bytes);
	ch->ring_charge = 0;
	KUNIT_EXPECT_TRUE(test, srpt_ring_charge(ch, 0));
	/* Full: refused, nothing taken, and alloc_ch_rings says so. */
	ch->ring_charge = 0;
	KUNIT_EXPECT_FALSE(test, srpt_ring_charge(ch, 0));
	KUNIT_EXPECT_EQ(test, ch->ring_charge, 0ULL);
	KUNIT_EXPECT_EQ(test, srpt_alloc_ch_rings(ch, 0), -ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic64_read(&srpt_ring_bytes), 2LL * bytes);
	/* A SINGLE login that replaces a channel may go beyond by that much. */
	KUNIT_EXPECT_FALSE(test, srpt_ring_charge(ch, bytes - 1));
	KUNIT_EXPECT_TRUE(test, srpt_ring_charge(ch, bytes));
	KUNIT_EXPECT_EQ(test, atomic64_read(&srpt_ring_bytes), 3LL * bytes);
	/* Freeing a channel's rings gives its bytes back. */
	srpt_free_ch_rings(ch);
	KUNIT_EXPECT_EQ(test, ch->ring_charge, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&srpt_ring_bytes), 2LL * bytes);
	srpt_free_ch_rings(ch);
	KUNIT_EXPECT_EQ(test, atomic64_read(&srpt_ring_bytes), 2LL * bytes);

	atomic64_set(&srpt_ring_bytes, saved_bytes);
	srpt_ring_limit = saved_limit;
}

static struct srpt_send_ioctx *test_ioctx(struct kunit *test,
					  enum srpt_command_state state);

/* Drops the holder of a test channel when the test ends (or before). */
static void test_drop_holder(void *data)
{
	struct srpt_rdma_ch *ch = data;

	srpt_put_holder(ch->sport->sdev, ch->holder);
	ch->holder = NULL;
}

/* Gives a test channel the holder of address @peer, as a login does. */
static void test_hold(struct kunit *test, struct srpt_rdma_ch *ch,
		      const char *peer)
{
	strscpy(ch->peer, peer, sizeof(ch->peer));
	ch->holder = srpt_get_holder(ch->sport->sdev, ch->peer);
	KUNIT_ASSERT_NOT_NULL(test, ch->holder);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_drop_holder,
							ch), 0);
}

static struct srpt_send_ioctx *test_peer_ioctx(struct kunit *test,
					       const char *peer);

/* What a test context's address holds now. */
static s64 test_held(struct srpt_send_ioctx *ioctx)
{
	return atomic64_read(&ioctx->ch->holder->held);
}

static void srpt_test_buf_budget(struct kunit *test)
{
	struct srpt_send_ioctx *a = test_peer_ioctx(test, "10.0.0.1");
	struct srpt_send_ioctx *b = test_peer_ioctx(test, "10.0.0.2");
	struct srpt_device *sdev = a->ch->sport->sdev;

	/* 1/16 of RAM ... */
	KUNIT_EXPECT_EQ(test, srpt_buf_budget(8ULL << 30), 512ULL << 20);
	KUNIT_EXPECT_EQ(test, srpt_buf_budget(256ULL << 30), 16ULL << 30);
	/* ... at least 256 MiB: its half holds two of the largest commands. */
	KUNIT_EXPECT_EQ(test, srpt_buf_budget(4ULL << 30), 256ULL << 20);
	KUNIT_EXPECT_EQ(test, srpt_buf_budget(1ULL << 30), 256ULL << 20);
	KUNIT_EXPECT_EQ(test, srpt_buf_budget(0), 256ULL << 20);
	KUNIT_EXPECT_GE(test, srpt_buf_budget(0) / 2, 2ULL * SRPT_MAX_DATA_LEN);

	/* The budget never lets more through, whatever the share. */
	sdev->buf_budget = 16 * PAGE_SIZE;
	atomic64_set(&sdev->buf_bytes, 15 * PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(a, 2 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, a->buf_charge, 0);
	KUNIT_EXPECT_EQ(test, test_held(a), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			15LL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_budget), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_share), 0);
	/* One page fits: taken from both the device and the address. */
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(a, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, a->buf_charge, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, test_held(a), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			16LL * PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(b, 1));
	/* Giving back returns both. */
	srpt_buf_uncharge(a);
	KUNIT_EXPECT_EQ(test, a->buf_charge, 0);
	KUNIT_EXPECT_EQ(test, test_held(a), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			15LL * PAGE_SIZE);
	atomic64_set(&sdev->buf_bytes, 0);
}

static void srpt_test_data_pages_zeroed(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);
	unsigned int i;
	u8 *p;

	/* A kept two-page buffer full of an earlier READ's data. */
	KUNIT_ASSERT_EQ(test, target_alloc_sgl(&ioctx->data_sg,
					       &ioctx->data_nents,
					       2 * PAGE_SIZE, false, false), 0);
	sg_init_marker(ioctx->data_sg, ioctx->data_nents);
	for (i = 0; i < 2; i++)
		memset(sg_virt(&ioctx->data_sg[i]), 0xa5, PAGE_SIZE);
	srpt_keep_data_buf(ioctx);

	/* A data-out command reuses it as it is (RDMA overwrites it). */
	ioctx->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_PTR_EQ(test, ioctx->data_sg, ioctx->keep_sg);
	srpt_keep_data_buf(ioctx);

	/* A data-in command of 8 KiB gets both pages zeroed. */
	ioctx->dir = DMA_FROM_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_PTR_EQ(test, ioctx->data_sg, ioctx->keep_sg);
	for (i = 0; i < 2; i++) {
		p = sg_virt(&ioctx->data_sg[i]);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(p, 0, PAGE_SIZE));
	}
	srpt_keep_data_buf(ioctx);

	/* A fresh data-in buffer (three pages) is zeroed too. */
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, 3 * PAGE_SIZE), 0);
	KUNIT_EXPECT_PTR_NE(test, ioctx->data_sg, ioctx->keep_sg);
	for (i = 0; i < 3; i++) {
		p = sg_virt(&ioctx->data_sg[i]);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(p, 0, PAGE_SIZE));
	}
	srpt_buf_uncharge(ioctx);
	srpt_keep_data_buf(ioctx);
	srpt_free_kept_buf(ioctx);
}

static void srpt_test_send_ioctx_reset(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx, *got;
	struct srpt_rdma_ch *ch;

	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	ioctx = kunit_kzalloc(test, sizeof(*ioctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	KUNIT_ASSERT_NOT_NULL(test, ioctx);
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->free_list);
	ioctx->ch = ch;
	/* Left over by an earlier command. */
	memset(ioctx->sense_data, 0x5a, sizeof(ioctx->sense_data));
	ioctx->buf_charge = 4096;
	ioctx->data_len = 8192;
	ioctx->dir = DMA_TO_DEVICE;
	ioctx->own_rsp = true;
	ioctx->cmd.tag = 7;
	ioctx->state = SRPT_STATE_DONE;
	/* Outlive a command: the kept buffer and the ring slot. */
	ioctx->keep_nents = 3;
	ioctx->ioctx.index = 5;
	list_add(&ioctx->free_list, &ch->free_list);
	ch->n_free = 1;

	got = srpt_get_send_ioctx(ch);
	KUNIT_ASSERT_PTR_EQ(test, got, ioctx);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(got->sense_data, 0,
					    sizeof(got->sense_data)));
	KUNIT_EXPECT_EQ(test, got->buf_charge, 0);
	KUNIT_EXPECT_EQ(test, got->data_len, 0);
	KUNIT_EXPECT_EQ(test, got->dir, DMA_NONE);
	KUNIT_EXPECT_FALSE(test, got->own_rsp);
	KUNIT_EXPECT_EQ(test, got->cmd.tag, 0);
	KUNIT_EXPECT_EQ(test, got->keep_nents, 3);
	KUNIT_EXPECT_EQ(test, got->ioctx.index, 5);
	KUNIT_EXPECT_TRUE(test, list_empty(&got->free_list));
	KUNIT_EXPECT_EQ(test, got->state, SRPT_STATE_NEW);
	KUNIT_EXPECT_EQ(test, ch->n_free, 0);
	KUNIT_EXPECT_NULL(test, srpt_get_send_ioctx(ch));
}

static void srpt_test_keep_data_buf(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);
	struct scatterlist *two;
	struct page *p0, *p1;
	u32 big;

	/* Nothing kept yet. */
	KUNIT_EXPECT_FALSE(test, srpt_reuse_data_buf(ioctx, 512));

	/* A two-page buffer is kept when its command ends. */
	KUNIT_ASSERT_EQ(test, target_alloc_sgl(&ioctx->data_sg,
					       &ioctx->data_nents,
					       2 * PAGE_SIZE, false, false), 0);
	two = ioctx->data_sg;
	p0 = sg_page(&two[0]);
	p1 = sg_page(&two[1]);
	srpt_keep_data_buf(ioctx);
	KUNIT_EXPECT_NULL(test, ioctx->data_sg);
	KUNIT_EXPECT_PTR_EQ(test, ioctx->keep_sg, two);
	KUNIT_EXPECT_EQ(test, ioctx->keep_nents, 2);

	/* A 100-byte command gets its first page, end mark after it. */
	KUNIT_ASSERT_TRUE(test, srpt_reuse_data_buf(ioctx, 100));
	KUNIT_EXPECT_PTR_EQ(test, ioctx->data_sg, two);
	KUNIT_EXPECT_EQ(test, ioctx->data_nents, 1);
	KUNIT_EXPECT_EQ(test, two[0].length, 100);
	KUNIT_EXPECT_EQ(test, two[0].offset, 0);
	KUNIT_EXPECT_TRUE(test, sg_is_last(&two[0]));
	KUNIT_EXPECT_EQ(test, sg_nents(two), 1);
	srpt_keep_data_buf(ioctx);
	KUNIT_EXPECT_PTR_EQ(test, ioctx->keep_sg, two);

	/* Then a command of one page and 904 bytes: both pages again. */
	KUNIT_ASSERT_TRUE(test, srpt_reuse_data_buf(ioctx, PAGE_SIZE + 904));
	KUNIT_EXPECT_EQ(test, ioctx->data_nents, 2);
	KUNIT_EXPECT_FALSE(test, sg_is_last(&two[0]));
	KUNIT_EXPECT_EQ(test, two[0].length, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, two[1].length, 904);
	KUNIT_EXPECT_TRUE(test, sg_is_last(&two[1]));
	KUNIT_EXPECT_PTR_EQ(test, sg_page(&two[0]), p0);
	KUNIT_EXPECT_PTR_EQ(test, sg_page(&two[1]), p1);
	KUNIT_EXPECT_EQ(test, sg_nents(two), 2);
	srpt_keep_data_buf(ioctx);

	/* Larger than kept: not reused; larger than SRPT_KEEP_PAGES: freed. */
	big = (SRPT_KEEP_PAGES + 1) * PAGE_SIZE;
	KUNIT_EXPECT_FALSE(test, srpt_reuse_data_buf(ioctx, big));
	KUNIT_ASSERT_EQ(test, target_alloc_sgl(&ioctx->data_sg,
					       &ioctx->data_nents,
					       big, false, false), 0);
	srpt_keep_data_buf(ioctx);
	KUNIT_EXPECT_PTR_EQ(test, ioctx->keep_sg, two);
	KUNIT_EXPECT_EQ(test, ioctx->keep_nents, 2);

	srpt_free_kept_buf(ioctx);
	KUNIT_EXPECT_NULL(test, ioctx->keep_sg);
	KUNIT_EXPECT_EQ(test, ioctx->keep_nents, 0);
}

static void srpt_test_kept_buf_in_budget(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);
	struct srpt_device *sdev = ioctx->ch->sport->sdev;

	sdev->buf_budget = 16 * PAGE_SIZE;
	/* A command's fresh two-page buffer is charged... */
	ioctx->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			2LL * PAGE_SIZE);
	/* ...and stays charged while it is kept after the command. */
	srpt_buf_uncharge(ioctx);
	srpt_keep_data_buf(ioctx);
	KUNIT_ASSERT_NOT_NULL(test, ioctx->keep_sg);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			2LL * PAGE_SIZE);
	/* A command that reuses it takes nothing more. */
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, PAGE_SIZE), 0);
	KUNIT_EXPECT_PTR_EQ(test, ioctx->data_sg, ioctx->keep_sg);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			2LL * PAGE_SIZE);
	srpt_buf_uncharge(ioctx);
	srpt_keep_data_buf(ioctx);
	/* Three fresh pages: charged while in use, freed afterwards. */
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, 3 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			5LL * PAGE_SIZE);
	srpt_buf_uncharge(ioctx);
	srpt_keep_data_buf(ioctx);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			2LL * PAGE_SIZE);
	/* Freeing the kept buffer gives its pages back. */
	srpt_free_kept_buf(ioctx);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes), 0LL);

	/* With the budget used up, a finished command's buffer is not kept. */
	sdev->buf_budget = 8 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, 2 * PAGE_SIZE), 0);
	srpt_buf_uncharge(ioctx);
	atomic64_set(&sdev->buf_bytes, 7 * PAGE_SIZE);
	srpt_keep_data_buf(ioctx);
	KUNIT_EXPECT_NULL(test, ioctx->keep_sg);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			7LL * PAGE_SIZE);
	/* Nor does a fresh buffer fit: -ENOBUFS, nothing taken. */
	KUNIT_EXPECT_NE(test, srpt_get_data_pages(ioctx, 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			7LL * PAGE_SIZE);
	/*
	 * Kept pages never take more than a quarter of the budget: with 3 of
	 * 8 pages in use a two-page buffer is not kept, though it would fit.
	 */
	atomic64_set(&sdev->buf_bytes, 0);
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, 2 * PAGE_SIZE), 0);
	srpt_buf_uncharge(ioctx);
	atomic64_set(&sdev->buf_bytes, 3 * PAGE_SIZE);
	srpt_keep_data_buf(ioctx);
	KUNIT_EXPECT_NULL(test, ioctx->keep_sg);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			3LL * PAGE_SIZE);
	atomic64_set(&sdev->buf_bytes, 0);
}

/* Gives back and frees a command's fresh buffer without keeping it. */
static void test_free_fresh(struct srpt_send_ioctx *ioctx)
{
	srpt_buf_uncharge(ioctx);
	target_free_sgl(ioctx->data_sg, ioctx->data_nents);
	ioctx->data_sg = NULL;
	ioctx->data_nents = 0;
}

/* A finished command's buffer of @pages pages, kept if it may be. */
static void test_finish_cmd(struct kunit *test, struct srpt_send_ioctx *ioctx,
			    unsigned int pages)
{
	ioctx->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(ioctx, pages * PAGE_SIZE), 0);
	srpt_buf_uncharge(ioctx);
	srpt_keep_data_buf(ioctx);
}

/*
 * One initiator address with many channels is one holder: it fills the
 * first-come half of the budget and then cannot take a page more, on any
 * of its channels, while a second address gets its share, half the budget
 * divided by two holders: one of the largest commands at the smallest
 * budget.
 */
static void srpt_test_buf_share_one_address(struct kunit *test)
{
	struct srpt_send_ioctx *a[8], *b, *b2;
	struct srpt_device *sdev;
	int i;

	for (i = 0; i < ARRAY_SIZE(a); i++)
		a[i] = test_peer_ioctx(test, "192.0.2.1");
	sdev = a[0]->ch->sport->sdev;
	KUNIT_ASSERT_EQ(test, sdev->buf_budget, 4ULL * SRPT_MAX_DATA_LEN);
	KUNIT_EXPECT_EQ(test, sdev->holders, 1);
	KUNIT_EXPECT_PTR_EQ(test, a[7]->ch->holder, a[0]->ch->holder);
	KUNIT_EXPECT_EQ(test, a[0]->ch->holder->refs, ARRAY_SIZE(a));

	/* First come: two of the largest commands take half the budget. */
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(a[0], SRPT_MAX_DATA_LEN));
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(a[1], SRPT_MAX_DATA_LEN));
	/* Alone, its share is that half: no channel of it gets more. */
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), 2ULL * SRPT_MAX_DATA_LEN);
	for (i = 2; i < ARRAY_SIZE(a); i++)
		KUNIT_EXPECT_FALSE(test, srpt_buf_charge(a[i], PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, test_held(a[0]), 2LL * SRPT_MAX_DATA_LEN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			2LL * SRPT_MAX_DATA_LEN);

	/* A second address: two holders, a quarter of the budget each. */
	b = test_peer_ioctx(test, "192.0.2.2");
	b2 = test_peer_ioctx(test, "192.0.2.2");
	KUNIT_EXPECT_EQ(test, sdev->holders, 2);
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), (u64)SRPT_MAX_DATA_LEN);
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(b, SRPT_MAX_DATA_LEN));
	KUNIT_EXPECT_EQ(test, test_held(b), SRPT_MAX_DATA_LEN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			3LL * SRPT_MAX_DATA_LEN);
	/* The budget has room, but both hold their share. */
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(b2, PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(a[2], PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_share),
			(s64)ARRAY_SIZE(a));
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_budget), 0);

	srpt_buf_uncharge(a[0]);
	srpt_buf_uncharge(a[1]);
	srpt_buf_uncharge(b);
	KUNIT_EXPECT_EQ(test, test_held(a[0]), 0);
	KUNIT_EXPECT_EQ(test, test_held(b), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes), 0);
}

/*
 * The share counts the most holders since the device last used at most
 * half its budget. A holds the first-come half (its commands stall), B
 * and C took their shares among six addresses, and two short-lived
 * addresses leave: the share must not grow into what was left for the
 * others (B cannot take more), D, which holds nothing, and a newcomer G
 * each still get it. Only when the device is back at half does the mark
 * come down to the holders then.
 */
static void srpt_test_buf_share_hwm(struct kunit *test)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	struct srpt_send_ioctx *x[ARRAY_SIZE(names)], *a2, *g;
	struct srpt_device *sdev;
	u64 half, share6, share4;
	int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		x[i] = test_peer_ioctx(test, names[i]);
	sdev = x[0]->ch->sport->sdev;
	half = sdev->buf_budget / 2;
	share6 = half / 6;
	share4 = half / 4;
	a2 = test_peer_ioctx(test, "a");
	KUNIT_EXPECT_EQ(test, sdev->holders, 6);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 6U);

	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(x[0], half / 2));
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(a2, half / 2));
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), share6);
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(x[1], share6));
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(x[2], share6));
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(x[1], PAGE_SIZE));

	/* E and F go: four holders, but the share stays a sixth of half. */
	test_drop_holder(x[4]->ch);
	test_drop_holder(x[5]->ch);
	KUNIT_EXPECT_EQ(test, sdev->holders, 4);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 6U);
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), share6);
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(x[1], share4 - share6));
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(x[0], PAGE_SIZE));
	/* D gets its share; so does G, which comes after them. */
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(x[3], share6));
	g = test_peer_ioctx(test, "g");
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), share6);
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(g, share6));
	/* Charges beyond half never lower the mark. */
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 6U);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			(s64)(half + 4 * share6));

	/* Half of A's commands complete: still over half, the mark 6... */
	srpt_buf_uncharge(x[0]);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 6U);
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), share6);
	/* ...then at most half in use: 5 holders, a fifth each. */
	srpt_buf_uncharge(a2);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 5U);
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), half / 5);
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(x[0], PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_share), 3);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_budget), 0);

	for (i = 0; i < 4; i++)
		srpt_buf_uncharge(x[i]);
	srpt_buf_uncharge(g);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes), 0);
}

/*
 * Kept buffers count for their address: they are kept only while the
 * address holds at most its share and the device at most a quarter of its
 * budget, so kept pages never stand in the way of first-come commands.
 */
static void srpt_test_kept_buf_share(struct kunit *test)
{
	struct srpt_send_ioctx *a1 = test_peer_ioctx(test, "192.0.2.1");
	struct srpt_send_ioctx *a2 = test_peer_ioctx(test, "192.0.2.1");
	struct srpt_send_ioctx *a3 = test_peer_ioctx(test, "192.0.2.1");
	struct srpt_send_ioctx *b1 = test_peer_ioctx(test, "192.0.2.2");
	struct srpt_send_ioctx *b2 = test_peer_ioctx(test, "192.0.2.2");
	struct srpt_send_ioctx *c1 = test_peer_ioctx(test, "192.0.2.3");
	struct srpt_device *sdev = a1->ch->sport->sdev;

	/* Half: 12 pages, a quarter 6; three addresses: a share of 4. */
	sdev->buf_budget = 24 * PAGE_SIZE;
	test_finish_cmd(test, a1, 2);
	test_finish_cmd(test, a2, 2);
	KUNIT_EXPECT_NOT_NULL(test, a1->keep_sg);
	KUNIT_EXPECT_NOT_NULL(test, a2->keep_sg);
	KUNIT_EXPECT_EQ(test, test_held(a1), 4LL * PAGE_SIZE);
	/* A holds its share: its third buffer is freed, though a quarter has room. */
	test_finish_cmd(test, a3, 2);
	KUNIT_EXPECT_NULL(test, a3->keep_sg);
	KUNIT_EXPECT_EQ(test, test_held(a1), 4LL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			4LL * PAGE_SIZE);
	/* B keeps one: a quarter is then kept, so its second is freed. */
	test_finish_cmd(test, b1, 2);
	test_finish_cmd(test, b2, 2);
	KUNIT_EXPECT_NOT_NULL(test, b1->keep_sg);
	KUNIT_EXPECT_NULL(test, b2->keep_sg);
	KUNIT_EXPECT_EQ(test, test_held(b1), 2LL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			6LL * PAGE_SIZE);
	/* C holds nothing, but kept pages never take more than a quarter. */
	test_finish_cmd(test, c1, 1);
	KUNIT_EXPECT_NULL(test, c1->keep_sg);
	KUNIT_EXPECT_EQ(test, test_held(c1), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			6LL * PAGE_SIZE);
	/* First-come commands still get the rest of half: 6 pages. */
	c1->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(c1, 6 * PAGE_SIZE), 0);
	test_free_fresh(c1);

	srpt_free_kept_buf(a1);
	srpt_free_kept_buf(a2);
	srpt_free_kept_buf(b1);
	KUNIT_EXPECT_EQ(test, test_held(a1), 0);
	KUNIT_EXPECT_EQ(test, test_held(b1), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes), 0);
}

/*
 * One address, alone on the device, keeps buffers on many contexts and
 * goes idle; four addresses log in once and leave. Kept pages stop at a
 * quarter of the budget, so a newcomer's command still runs first come,
 * and the high-water mark of holders comes down with it instead of
 * shrinking the newcomer's share for good.
 */
static void srpt_test_buf_kept_no_freeze(struct kunit *test)
{
	static const char *const names[] = { "x1", "x2", "x3", "x4" };
	struct srpt_send_ioctx *a[8], *x[ARRAY_SIZE(names)], *v;
	struct srpt_device *sdev;
	int i;

	for (i = 0; i < ARRAY_SIZE(a); i++)
		a[i] = test_peer_ioctx(test, "192.0.2.1");
	sdev = a[0]->ch->sport->sdev;
	sdev->buf_budget = 16 * PAGE_SIZE;
	for (i = 0; i < ARRAY_SIZE(a); i++)
		test_finish_cmd(test, a[i], 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			4LL * PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(x); i++)
		x[i] = test_peer_ioctx(test, names[i]);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 5U);
	for (i = 0; i < ARRAY_SIZE(x); i++)
		test_drop_holder(x[i]->ch);
	v = test_peer_ioctx(test, "192.0.2.9");
	v->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(v, 4 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 2U);
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), 4ULL * PAGE_SIZE);

	test_free_fresh(v);
	for (i = 0; i < ARRAY_SIZE(a); i++)
		srpt_free_kept_buf(a[i]);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes), 0);
}

/*
 * A charge or give-back that saw the device at most half used decides to
 * lower the high-water mark of holders to the holders it saw. If, before
 * it stores that, the device goes over half and an address logs in and
 * out again, the stale decision must not be stored: the mark stays, and
 * so does everyone's share. The next reset at half use lowers it.
 */
static void srpt_test_buf_hwm_stale_lower(struct kunit *test)
{
	static const char *const names[] = { "h1", "h2", "h3", "h4", "h5" };
	struct srpt_send_ioctx *x[ARRAY_SIZE(names)], *f;
	struct srpt_device *sdev;
	u64 half;
	s64 seen;
	long n;
	int i;

	for (i = 0; i < ARRAY_SIZE(x); i++)
		x[i] = test_peer_ioctx(test, names[i]);
	sdev = x[0]->ch->sport->sdev;
	half = sdev->buf_budget / 2;
	for (i = 2; i < ARRAY_SIZE(x); i++)
		test_drop_holder(x[i]->ch);
	KUNIT_EXPECT_EQ(test, sdev->holders, 2U);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 5U);

	/* Seen at most half used: lower to 2... */
	n = srpt_look_holders_hwm(sdev, &seen);
	KUNIT_EXPECT_EQ(test, n, 2L);
	/* ...but first the device goes over half, F logs in and out. */
	atomic64_set(&sdev->buf_bytes, half + PAGE_SIZE);
	f = test_peer_ioctx(test, "h6");
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 5U);
	test_drop_holder(f->ch);
	srpt_lower_holders_hwm(sdev, seen, n);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 5U);
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), half / 5);

	/* Still over half: a reset keeps the mark; at half it comes down. */
	srpt_reset_holders_hwm(sdev);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 5U);
	atomic64_set(&sdev->buf_bytes, half);
	srpt_reset_holders_hwm(sdev);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 2U);
	KUNIT_EXPECT_EQ(test, srpt_buf_share(sdev), half / 2);
	/* A lowering with nothing in between is stored. */
	f = test_peer_ioctx(test, "h7");
	test_drop_holder(f->ch);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 3U);
	n = srpt_look_holders_hwm(sdev, &seen);
	KUNIT_EXPECT_EQ(test, n, 2L);
	srpt_lower_holders_hwm(sdev, seen, n);
	KUNIT_EXPECT_EQ(test, srpt_holders_hwm(sdev), 2U);
	atomic64_set(&sdev->buf_bytes, 0);
}

/*
 * A fresh buffer that does not fit frees the context's own kept buffer
 * (too small to be reused) and is charged once more; another context's
 * kept buffer stays. If it still does not fit, it is refused and counted
 * once.
 */
static void srpt_test_buf_charge_frees_kept(struct kunit *test)
{
	struct srpt_send_ioctx *a1 = test_peer_ioctx(test, "192.0.2.1");
	struct srpt_send_ioctx *a2 = test_peer_ioctx(test, "192.0.2.1");
	struct srpt_send_ioctx *a3 = test_peer_ioctx(test, "192.0.2.1");
	struct srpt_device *sdev = a1->ch->sport->sdev;

	/* Half: 8 pages, also the share of the only address; a quarter 4. */
	sdev->buf_budget = 16 * PAGE_SIZE;
	test_finish_cmd(test, a1, 2);
	test_finish_cmd(test, a2, 1);
	KUNIT_ASSERT_NOT_NULL(test, a1->keep_sg);
	KUNIT_ASSERT_NOT_NULL(test, a2->keep_sg);
	/* A command of 4 pages in flight: 7 pages in use. */
	a3->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(a3, 4 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			7LL * PAGE_SIZE);

	/* 7 + 3 pages fit neither half nor the share; 5 + 3 do. */
	a1->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, srpt_get_data_pages(a1, 3 * PAGE_SIZE), 0);
	KUNIT_EXPECT_NULL(test, a1->keep_sg);
	KUNIT_EXPECT_EQ(test, a1->buf_charge, 3 * PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, a2->keep_sg);
	KUNIT_EXPECT_EQ(test, test_held(a1), 8LL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes),
			8LL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_share), 0);

	/* 7 + 4 pages do not fit even without a2's kept page: refused once. */
	a2->dir = DMA_TO_DEVICE;
	KUNIT_EXPECT_EQ(test, srpt_get_data_pages(a2, 4 * PAGE_SIZE), -ENOBUFS);
	KUNIT_EXPECT_NULL(test, a2->keep_sg);
	KUNIT_EXPECT_NULL(test, a2->data_sg);
	KUNIT_EXPECT_EQ(test, a2->buf_charge, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_share), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->refused_budget), 0);
	KUNIT_EXPECT_EQ(test, test_held(a1), 7LL * PAGE_SIZE);

	/* Three or four pages are more than a context keeps: freed when done. */
	srpt_buf_uncharge(a1);
	srpt_keep_data_buf(a1);
	srpt_buf_uncharge(a3);
	srpt_keep_data_buf(a3);
	KUNIT_EXPECT_EQ(test, test_held(a1), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->buf_bytes), 0);
}

/*
 * The data-buffers block of discovery_auth/logins: budget, use, holders,
 * their high-water mark and share, and the refusals by reason.
 */
static void srpt_test_dev_bufs_show(struct kunit *test)
{
	struct srpt_send_ioctx *a = test_peer_ioctx(test, "192.0.2.1");
	struct srpt_send_ioctx *b = test_peer_ioctx(test, "192.0.2.2");
	struct srpt_device *sdev = a->ch->sport->sdev;
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *want = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct srpt_show *s = srpt_show_new(page);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, s);
	sdev->device->dev.init_name = "kunit0";
	sdev->buf_budget = 16 * PAGE_SIZE;
	/* A takes the first-come half and is then beyond its share. */
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(a, 8 * PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, srpt_buf_charge(a, PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, srpt_buf_charge(b, 4 * PAGE_SIZE));
	srpt_dev_bufs(s, sdev);
	srpt_show_end(s);
	snprintf(want, PAGE_SIZE,
		 "kunit0 data buffers:\n\tbudget %lu\n\tin use %lu\n"
		 "\tholders 2\n\thigh-water mark 2\n\tshare %lu\n"
		 "\trefused by share 1\n\trefused by budget 0\n",
		 16 * PAGE_SIZE, 12 * PAGE_SIZE, 4 * PAGE_SIZE);
	KUNIT_EXPECT_STREQ(test, page, want);
	srpt_buf_uncharge(a);
	srpt_buf_uncharge(b);
}

static void srpt_test_cmd_indirect_wrong_direction_count(struct kunit *test)
{
	/* Data-out descriptors, but only the data-in count is set. */
	struct cmd_image *img = indirect_cmd(test, true, 2, 4096);
	struct srp_cmd *cmd = (void *)img->buf;
	struct srpt_desc_info info;

	cmd->data_out_desc_cnt = 0;
	cmd->data_in_desc_cnt = 2;
	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + IND_HDR + 2 * DESC, 0,
				    &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_len_mismatch(struct kunit *test)
{
	struct cmd_image *img = indirect_cmd(test, true, 2, 4096);
	u32 len = CMD_HDR + IND_HDR + 2 * DESC;
	struct srpt_desc_info info;

	put_ind_hdr(img, CMD_HDR, 2 * DESC, 8191);
	KUNIT_EXPECT_EQ(test, parse(test, img, len, 0, &info, NULL), -EINVAL);
	put_ind_hdr(img, CMD_HDR, 2 * DESC, 8193);
	KUNIT_EXPECT_EQ(test, parse(test, img, len, 0, &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_sum_overflow(struct kunit *test)
{
	/* 2 x 2^31 = 2^32: a 32-bit sum would wrap to the header's 0. */
	struct cmd_image *img = indirect_cmd(test, true, 2, 0x80000000);
	u32 len = CMD_HDR + IND_HDR + 2 * DESC;
	struct srpt_desc_info info;

	put_ind_hdr(img, CMD_HDR, 2 * DESC, 0);
	KUNIT_EXPECT_EQ(test, parse(test, img, len, 0, &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_huge_sum(struct kunit *test)
{
	/* 255 x (2^32 - 1): the sum must be exact in 64 bits. */
	struct cmd_image *img = indirect_cmd(test, false, 255, U32_MAX);
	u32 len = CMD_HDR + IND_HDR + 255 * DESC;
	struct srpt_desc_info info;

	/* The header holds the sum modulo 2^32: 0xfe_ffffff01. */
	put_ind_hdr(img, CMD_HDR, 255 * DESC, 0xffffff01);
	KUNIT_EXPECT_EQ(test, parse(test, img, len, 0, &info, NULL), -EINVAL);
}

static void srpt_test_cmd_indirect_with_add_cdb(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x02, 0, 2, 8);
	u32 base = CMD_HDR + 8;
	struct srpt_desc_info info;
	const u8 *iu;

	put_ind_hdr(img, base, 2 * DESC, 3000);
	put_desc(img, base + IND_HDR, 0x10000, 1, 1000);
	put_desc(img, base + IND_HDR + DESC, 0x20000, 2, 2000);
	KUNIT_ASSERT_EQ(test, parse(test, img, base + IND_HDR + 2 * DESC, 0,
				    &info, &iu), 0);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)info.bufs, iu + base + IND_HDR);
	KUNIT_EXPECT_EQ(test, info.data_len, 3000);
}

/* An immediate-data IU: descriptor at 48, @len bytes at @imm_off. */
static struct cmd_image *imm_cmd(struct kunit *test, u32 len)
{
	struct cmd_image *img = cmd_image(test, 0x30, 1, 0, 0);
	__be32 l = cpu_to_be32(len);

	memcpy(img->buf + CMD_HDR, &l, sizeof(l));
	return img;
}

static void srpt_test_cmd_imm(struct kunit *test)
{
	struct cmd_image *img = imm_cmd(test, 512);
	struct srpt_desc_info info;

	KUNIT_ASSERT_EQ(test, parse(test, img, 80 + 512, 80, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, info.fmt, SRP_DATA_DESC_IMM);
	KUNIT_EXPECT_EQ(test, info.imm_off, 80);
	KUNIT_EXPECT_EQ(test, info.imm_len, 512);
	KUNIT_EXPECT_EQ(test, info.data_len, 512);
}

static void srpt_test_cmd_imm_max(struct kunit *test)
{
	struct cmd_image *img = imm_cmd(test, 8192);
	struct srpt_desc_info info;

	KUNIT_ASSERT_EQ(test, parse(test, img, 80 + 8192, 80, &info, NULL),
			0);
	KUNIT_EXPECT_EQ(test, info.imm_len, 8192);
	KUNIT_EXPECT_EQ(test, info.data_len, 8192);
}

static void srpt_test_cmd_imm_not_negotiated(struct kunit *test)
{
	struct cmd_image *img = imm_cmd(test, 512);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, 80 + 512, 0, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_imm_beyond_iu(struct kunit *test)
{
	struct cmd_image *img = imm_cmd(test, 512);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, 80 + 511, 80, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, 80, 80, &info, NULL), -EINVAL);
}

static void srpt_test_cmd_imm_offset_beyond_iu(struct kunit *test)
{
	struct cmd_image *img = imm_cmd(test, 0);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, 100, 200, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, 100, U16_MAX, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_imm_len_wrap(struct kunit *test)
{
	/* offset + len wraps a u32 to 79: must not pass as "inside". */
	struct cmd_image *img = imm_cmd(test, U32_MAX);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, 1024, 80, &info, NULL),
			-EINVAL);
	img = imm_cmd(test, U32_MAX - 79);
	KUNIT_EXPECT_EQ(test, parse(test, img, 1024, 80, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_imm_desc_overlaps_data(struct kunit *test)
{
	struct cmd_image *img = imm_cmd(test, 16);
	struct srpt_desc_info info;

	/* The descriptor occupies bytes 48..51. */
	KUNIT_EXPECT_EQ(test, parse(test, img, 256, CMD_HDR + 3, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, 256, CMD_HDR, &info, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse(test, img, 256, 1, &info, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, parse(test, img, 256, CMD_HDR + 4, &info, NULL),
			0);
	KUNIT_EXPECT_EQ(test, info.imm_off, CMD_HDR + 4);
	KUNIT_EXPECT_EQ(test, info.imm_len, 16);
}

static void srpt_test_cmd_imm_with_add_cdb(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x30, 1, 0, 16);
	__be32 l = cpu_to_be32(100);
	struct srpt_desc_info info;

	memcpy(img->buf + CMD_HDR + 16, &l, sizeof(l));
	/* Descriptor at 64..67, so an offset of 64 overlaps it. */
	KUNIT_EXPECT_EQ(test, parse(test, img, 512, 64, &info, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, parse(test, img, 512, 68, &info, NULL), 0);
	KUNIT_EXPECT_EQ(test, info.imm_len, 100);
}

static void srpt_test_cmd_imm_data_in(struct kunit *test)
{
	struct cmd_image *img = cmd_image(test, 0x03, 0, 1, 0);
	__be32 l = cpu_to_be32(512);
	struct srpt_desc_info info;

	memcpy(img->buf + CMD_HDR, &l, sizeof(l));
	KUNIT_EXPECT_EQ(test, parse(test, img, 80 + 512, 80, &info, NULL),
			-EINVAL);
}

static void srpt_test_cmd_imm_desc_truncated(struct kunit *test)
{
	struct cmd_image *img = imm_cmd(test, 0);
	struct srpt_desc_info info;

	KUNIT_EXPECT_EQ(test, parse(test, img, CMD_HDR + 3, CMD_HDR + 4, &info,
				    NULL), -EINVAL);
}

/* ---- command state ---- */

/*
 * A send context in @state of a new channel of the test's port from
 * initiator address @peer (its holder registered, as a login does).
 */
static struct srpt_send_ioctx *test_ioctx_from(struct kunit *test,
					       enum srpt_command_state state,
					       const char *peer)
{
	struct srpt_send_ioctx *ioctx;
	struct srpt_rdma_ch *ch;

	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	spin_lock_init(&ch->lock);
	spin_lock_init(&ch->recv_lock);
	ch->sport = test_sport(test);
	test_hold(test, ch, peer);
	ioctx = kunit_kzalloc(test, sizeof(*ioctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ioctx);
	ioctx->ch = ch;
	ioctx->state = state;
	return ioctx;
}

static struct srpt_send_ioctx *test_ioctx(struct kunit *test,
					  enum srpt_command_state state)
{
	return test_ioctx_from(test, state, "kunit");
}

static struct srpt_send_ioctx *test_peer_ioctx(struct kunit *test,
					       const char *peer)
{
	return test_ioctx_from(test, SRPT_STATE_NEW, peer);
}

static void srpt_test_state_set_returns_previous(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);

	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_STATE_NEED_DATA),
			SRPT_STATE_NEW);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_NEED_DATA);
}

static void srpt_test_state_write_path(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);

	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_STATE_NEED_DATA),
			SRPT_STATE_NEW);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_STATE_DATA_IN),
			SRPT_STATE_NEED_DATA);
	KUNIT_EXPECT_EQ(test,
			srpt_set_cmd_state(ioctx, SRPT_STATE_CMD_RSP_SENT),
			SRPT_STATE_DATA_IN);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_STATE_DONE),
			SRPT_STATE_CMD_RSP_SENT);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DONE);
}

static void srpt_test_state_tmf_path(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);

	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_STATE_MGMT),
			SRPT_STATE_NEW);
	KUNIT_EXPECT_EQ(test,
			srpt_set_cmd_state(ioctx, SRPT_STATE_MGMT_RSP_SENT),
			SRPT_STATE_MGMT);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_STATE_DONE),
			SRPT_STATE_MGMT_RSP_SENT);
}

static void srpt_test_state_done_is_terminal(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_DONE);
	enum srpt_command_state s;

	for (s = SRPT_STATE_NEW; s <= SRPT_STATE_DONE; s++) {
		KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, s),
				SRPT_STATE_DONE);
		KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DONE);
	}
}

static void srpt_test_state_same_state(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_DATA_IN);

	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_STATE_DATA_IN),
			SRPT_STATE_DATA_IN);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DATA_IN);
}

static void srpt_test_state_abort_to_done(struct kunit *test)
{
	enum srpt_command_state s;

	for (s = SRPT_STATE_NEW; s < SRPT_STATE_DONE; s++) {
		struct srpt_send_ioctx *ioctx = test_ioctx(test, s);

		KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx,
							 SRPT_STATE_DONE), s);
		KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DONE);
	}
}

static void srpt_test_state_test_and_set_match(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEED_DATA);
	bool ok;

	ok = srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEED_DATA,
					 SRPT_STATE_DATA_IN);
	KUNIT_EXPECT_TRUE(test, ok);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DATA_IN);
}

static void srpt_test_state_test_and_set_mismatch(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);
	bool ok;

	ok = srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEED_DATA,
					 SRPT_STATE_DATA_IN);
	KUNIT_EXPECT_FALSE(test, ok);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_NEW);
}

static void srpt_test_state_test_and_set_once(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_NEW);
	bool ok;

	ok = srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEW,
					 SRPT_STATE_MGMT);
	KUNIT_EXPECT_TRUE(test, ok);
	ok = srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEW,
					 SRPT_STATE_MGMT);
	KUNIT_EXPECT_FALSE(test, ok);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_MGMT);
}

static void srpt_test_state_test_and_set_from_done(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_DONE);
	bool ok;

	ok = srpt_test_and_set_cmd_state(ioctx, SRPT_STATE_NEW,
					 SRPT_STATE_NEED_DATA);
	KUNIT_EXPECT_FALSE(test, ok);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DONE);
}

/* Every move a command may make: the diagram at the top of ib_srpt.c. */
static bool expected_move(enum srpt_command_state from,
			  enum srpt_command_state to)
{
	switch (from) {
	case SRPT_STATE_NEW:
		return to == SRPT_STATE_NEED_DATA || to == SRPT_STATE_DATA_IN ||
			to == SRPT_STATE_CMD_RSP_SENT ||
			to == SRPT_STATE_MGMT || to == SRPT_STATE_DONE;
	case SRPT_STATE_NEED_DATA:
		return to == SRPT_STATE_DATA_IN ||
			to == SRPT_STATE_CMD_RSP_SENT || to == SRPT_STATE_DONE;
	case SRPT_STATE_DATA_IN:
		return to == SRPT_STATE_CMD_RSP_SENT || to == SRPT_STATE_DONE;
	case SRPT_STATE_MGMT:
		return to == SRPT_STATE_MGMT_RSP_SENT || to == SRPT_STATE_DONE;
	case SRPT_STATE_CMD_RSP_SENT:
	case SRPT_STATE_MGMT_RSP_SENT:
		return to == SRPT_STATE_DONE;
	default:
		return false;
	}
}

static void srpt_test_state_only_allowed_moves(struct kunit *test)
{
	enum srpt_command_state from, to;
	bool moved;

	for (from = SRPT_STATE_NEW; from <= SRPT_STATE_DONE; from++) {
		for (to = SRPT_STATE_NEW; to <= SRPT_STATE_DONE; to++) {
			struct srpt_send_ioctx *ioctx = test_ioctx(test, from);
			bool ok = expected_move(from, to);

			KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, to),
					from);
			KUNIT_EXPECT_EQ_MSG(test, ioctx->state, ok ? to : from,
					    "%d -> %d", from, to);
			ioctx = test_ioctx(test, from);
			moved = srpt_test_and_set_cmd_state(ioctx, from, to);
			KUNIT_EXPECT_EQ_MSG(test, moved, ok, "%d -> %d", from,
					    to);
			KUNIT_EXPECT_EQ(test, ioctx->state, ok ? to : from);
		}
	}
}

static void srpt_test_state_free_list_cycle(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = test_ioctx(test, SRPT_STATE_DONE);
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct srpt_send_ioctx *got;

	INIT_LIST_HEAD(&ch->free_list);
	INIT_LIST_HEAD(&ch->cmd_wait_list);
	INIT_LIST_HEAD(&ch->rw_wait_list);
	list_add(&ioctx->free_list, &ch->free_list);
	ch->n_free = 1;
	ch->rq_size = 1;

	/* A context off the free list starts at NEW... */
	got = srpt_get_send_ioctx(ch);
	KUNIT_ASSERT_PTR_EQ(test, got, ioctx);
	KUNIT_EXPECT_EQ(test, got->state, SRPT_STATE_NEW);
	/* ...and goes back DONE, whatever it did (here: dropped IU)... */
	srpt_put_send_ioctx(got);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DONE);
	/* ...so a late response for the old command cannot revive it. */
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx,
						 SRPT_STATE_CMD_RSP_SENT),
			SRPT_STATE_DONE);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_STATE_DONE);
	got = srpt_get_send_ioctx(ch);
	KUNIT_ASSERT_PTR_EQ(test, got, ioctx);
	KUNIT_EXPECT_EQ(test, got->state, SRPT_STATE_NEW);
}

static void srpt_test_state_names(struct kunit *test)
{
	enum srpt_command_state a, b;

	for (a = SRPT_STATE_NEW; a <= SRPT_STATE_DONE; a++) {
		KUNIT_EXPECT_STRNEQ(test, srpt_cmd_state_name(a), "?");
		for (b = SRPT_STATE_NEW; b < a; b++)
			KUNIT_EXPECT_STRNEQ(test, srpt_cmd_state_name(a),
					    srpt_cmd_state_name(b));
	}
	KUNIT_EXPECT_STREQ(test, srpt_cmd_state_name(SRPT_STATE_NEED_DATA),
			   "NEED_DATA");
	KUNIT_EXPECT_STREQ(test, srpt_cmd_state_name(SRPT_STATE_DONE), "DONE");
	KUNIT_EXPECT_STREQ(test, srpt_cmd_state_name(SRPT_STATE_DONE + 1), "?");
	KUNIT_EXPECT_STREQ(test, srpt_cmd_state_name(-1), "?");
}

/* ---- credits ---- */

static struct srpt_rdma_ch *test_ch(struct kunit *test)
{
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ch);
	spin_lock_init(&ch->lock);
	spin_lock_init(&ch->recv_lock);
	ch->sport = test_sport(test);
	ch->rq_size = SRPT_MAX_RQ_SIZE;
	atomic_set(&ch->req_lim_delta, 0);
	return ch;
}

static void srpt_test_credit_take_empty(struct kunit *test)
{
	struct srpt_rdma_ch *ch = test_ch(test);

	KUNIT_EXPECT_EQ(test, srpt_credit_take(ch), 0);
	KUNIT_EXPECT_EQ(test, srpt_credit_take(ch), 0);
}

static void srpt_test_credit_return_one(struct kunit *test)
{
	struct srpt_rdma_ch *ch = test_ch(test);

	srpt_credit_return(ch);
	KUNIT_EXPECT_EQ(test, srpt_credit_take(ch), 1);
	KUNIT_EXPECT_EQ(test, srpt_credit_take(ch), 0);
}

static void srpt_test_credit_accumulate(struct kunit *test)
{
	struct srpt_rdma_ch *ch = test_ch(test);
	int i;

	for (i = 0; i < SRPT_MAX_RQ_SIZE; i++)
		srpt_credit_return(ch);
	KUNIT_EXPECT_EQ(test, srpt_credit_take(ch), SRPT_MAX_RQ_SIZE);
	KUNIT_EXPECT_EQ(test, srpt_credit_take(ch), 0);
}

static void srpt_test_credit_interleaved(struct kunit *test)
{
	struct srpt_rdma_ch *ch = test_ch(test);
	int total = 0, i;

	for (i = 0; i < 50; i++) {
		srpt_credit_return(ch);
		srpt_credit_return(ch);
		if (i % 3 == 0)
			total += srpt_credit_take(ch);
	}
	total += srpt_credit_take(ch);
	KUNIT_EXPECT_EQ(test, total, 100);
}

/* The info file is filled whole blocks at a time and says what it left out. */
static void srpt_test_show_whole_blocks(struct kunit *test)
{
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct srpt_show *s = srpt_show_new(page);
	int i, len, added = 0, cids = 0, addrs = 0;
	char want[32];
	const char *p;

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < 100; i++) {
		srpt_show_add(s, "CID: %d   Connection State: TARG_CONN_STATE_LOGGED_IN\n",
			      i);
		srpt_show_add(s, "   Address fe80:0000:0000:0000:0002:c903:00a1:b2c3 rdma_cm\n");
		added += srpt_show_commit(s);
	}
	len = srpt_show_end(s);
	KUNIT_EXPECT_GT(test, added, 0);
	KUNIT_EXPECT_LT(test, added, 100);
	KUNIT_EXPECT_LT(test, len, (int)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, (int)strlen(page), len);
	KUNIT_EXPECT_EQ(test, page[len - 1], '\n');
	for (p = page; (p = strstr(p, "CID: ")); p++)
		cids++;
	for (p = page; (p = strstr(p, "   Address ")); p++)
		addrs++;
	KUNIT_EXPECT_EQ(test, cids, added);
	KUNIT_EXPECT_EQ(test, addrs, added);
	snprintf(want, sizeof(want), "(%d more not shown)\n", 100 - added);
	KUNIT_EXPECT_STREQ(test, page + len - strlen(want), want);
}

/* Channel limits of a login: the nexus's and the source address's. */

/* The ACL of the test nexuses (none: all of them have the same key). */
static const struct srpt_acl_key test_acl;

/* A port with an empty nexus list, ready for srpt_count_login_chs(). */
static struct srpt_port *test_ch_sport(struct kunit *test)
{
	struct srpt_port *sport = test_sport(test);

	mutex_init(&sport->mutex);
	INIT_LIST_HEAD(&sport->nexus_list);
	return sport;
}

/* A nexus of @sport for initiator port ID @req, with no channels. */
static struct srpt_nexus *test_nexus(struct kunit *test,
				     struct srpt_port *sport,
				     const struct srp_login_req *req)
{
	struct srpt_nexus *nexus = kunit_kzalloc(test, sizeof(*nexus),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, nexus);
	INIT_LIST_HEAD(&nexus->ch_list);
	memcpy(nexus->i_port_id, req->initiator_port_id, 16);
	memcpy(nexus->t_port_id, req->target_port_id, 16);
	list_add_tail(&nexus->entry, &sport->nexus_list);
	return nexus;
}

/* @count channels from @peer in state @state, added to @nexus. */
static void test_add_chs(struct kunit *test, struct srpt_nexus *nexus,
			 const char *peer, enum srpt_ch_state state, int count)
{
	struct srpt_rdma_ch *ch;
	int i;

	for (i = 0; i < count; i++) {
		ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ch);
		strscpy(ch->peer, peer, sizeof(ch->peer));
		ch->state = state;
		list_add_tail(&ch->list, &nexus->ch_list);
	}
}

/* A login request like good_login() with initiator_ext @ext. */
static struct srp_login_req *login_ext(struct kunit *test, u64 ext, bool multi)
{
	struct srp_login_req *req = good_login(test);
	__be64 be = cpu_to_be64(ext);

	memcpy(req->initiator_port_id, &be, 8);
	req->req_flags = multi ? SRP_MULTICHAN_MULTI : SRP_MULTICHAN_SINGLE;
	return req;
}

/*
 * Only channels that are not closing count; the nexus count takes every
 * address, the address count every nexus of the port.
 */
static void srpt_test_count_login_chs(struct kunit *test)
{
	struct srpt_port *sport = test_ch_sport(test);
	struct srp_login_req *req = login_ext(test, 1, true);
	struct srpt_nexus *mine = test_nexus(test, sport, req);
	struct srpt_nexus *other = test_nexus(test, sport,
					      login_ext(test, 2, true));
	struct srpt_login_chs n;

	test_add_chs(test, mine, "192.0.2.1", CH_CONNECTING, 1);
	test_add_chs(test, mine, "192.0.2.1", CH_LIVE, 2);
	test_add_chs(test, mine, "192.0.2.1", CH_DISCONNECTING, 4);
	test_add_chs(test, mine, "192.0.2.2", CH_LIVE, 8);
	test_add_chs(test, other, "192.0.2.1", CH_LIVE, 16);
	test_add_chs(test, other, "192.0.2.1", CH_DISCONNECTED, 32);
	test_add_chs(test, other, "192.0.2.10", CH_LIVE, 64);
	srpt_count_login_chs(sport, req, &test_acl, "192.0.2.1", &n);
	KUNIT_EXPECT_EQ(test, n.nexus, 1 + 2 + 8);
	KUNIT_EXPECT_EQ(test, n.nexus_peer, 1 + 2);
	KUNIT_EXPECT_EQ(test, n.peer, 1 + 2 + 16);
	KUNIT_EXPECT_EQ(test, n.peer_all, 1 + 2 + 4 + 16 + 32);

	/* Another target port ID is another nexus. */
	req->target_port_id[0] ^= 1;
	srpt_count_login_chs(sport, req, &test_acl, "192.0.2.2", &n);
	KUNIT_EXPECT_EQ(test, n.nexus, 0);
	KUNIT_EXPECT_EQ(test, n.nexus_peer, 0);
	KUNIT_EXPECT_EQ(test, n.peer, 8);
}

/*
 * The same port IDs under another ACL, or the same ACL name in another
 * TPG, are another nexus: its channels count for the address only.
 */
static void srpt_test_count_login_chs_other_acl(struct kunit *test)
{
	struct srpt_port *sport = test_ch_sport(test);
	struct srp_login_req *req = login_ext(test, 1, true);
	struct srpt_nexus *victim = test_nexus(test, sport, req);
	struct srpt_acl_key other = { .name = "192.0.2.9" };
	struct srpt_login_chs n;

	test_add_chs(test, victim, "192.0.2.1", CH_LIVE, 3);
	srpt_count_login_chs(sport, req, &other, "192.0.2.9", &n);
	KUNIT_EXPECT_EQ(test, n.nexus, 0);
	KUNIT_EXPECT_EQ(test, n.peer, 0);
	other.name[0] = '\0';
	other.stpg = (const struct srpt_tpg *)sport;
	srpt_count_login_chs(sport, req, &other, "192.0.2.1", &n);
	KUNIT_EXPECT_EQ(test, n.nexus, 0);
	KUNIT_EXPECT_EQ(test, n.peer, 3);
	srpt_count_login_chs(sport, req, &test_acl, "192.0.2.1", &n);
	KUNIT_EXPECT_EQ(test, n.nexus, 3);
}

/* MULTI: the nexus limit first, then the address's; each at its number. */
static void srpt_test_ch_limit_multi(struct kunit *test)
{
	struct srpt_login_chs n = {
		.nexus = SRPT_MAX_CH_PER_NEXUS - 1,
		.nexus_peer = SRPT_MAX_CH_PER_NEXUS - 1,
		.peer = SRPT_MAX_CH_PER_PEER - 1,
	};

	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(false, &n), SRPT_CH_LIMIT_OK);
	n.peer++;
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(false, &n),
			SRPT_CH_LIMIT_PEER);
	n.nexus++;
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(false, &n),
			SRPT_CH_LIMIT_NEXUS);
	n.peer = 0;
	n.nexus_peer = 0;
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(false, &n),
			SRPT_CH_LIMIT_NEXUS);
	/* New port IDs: one channel per nexus, up to the address's limit. */
	n = (struct srpt_login_chs){ .peer = SRPT_MAX_CH_PER_PEER };
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(false, &n),
			SRPT_CH_LIMIT_PEER);
	/* The limits hold: 256 is four nexuses of 64. */
	KUNIT_EXPECT_EQ(test, SRPT_MAX_CH_PER_PEER, 4 * SRPT_MAX_CH_PER_NEXUS);
}

/*
 * SINGLE replaces the channels of its nexus: the nexus limit does not
 * apply, and the address's limit counts only its channels elsewhere.
 */
static void srpt_test_ch_limit_single(struct kunit *test)
{
	struct srpt_login_chs n = {
		.nexus = SRPT_MAX_CH_PER_NEXUS + 5,
		.nexus_peer = 1,
		.peer = SRPT_MAX_CH_PER_PEER,
	};

	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(true, &n), SRPT_CH_LIMIT_OK);
	n.nexus_peer = 0;
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(true, &n),
			SRPT_CH_LIMIT_PEER);
	n.peer = SRPT_MAX_CH_PER_PEER - 1;
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(true, &n), SRPT_CH_LIMIT_OK);
}

/*
 * Closing channels hold their resources until released: past
 * SRPT_MAX_CH_PER_PEER_ALL channels of an address, closing ones included,
 * neither a MULTI nor a SINGLE login fits, however few are open.
 */
static void srpt_test_ch_limit_closing(struct kunit *test)
{
	struct srpt_login_chs n = {
		.peer_all = SRPT_MAX_CH_PER_PEER_ALL - 1,
	};

	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(false, &n), SRPT_CH_LIMIT_OK);
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(true, &n), SRPT_CH_LIMIT_OK);
	n.peer_all++;
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(false, &n),
			SRPT_CH_LIMIT_PEER_ALL);
	KUNIT_EXPECT_EQ(test, srpt_login_ch_limit(true, &n),
			SRPT_CH_LIMIT_PEER_ALL);
}

/* 256 open and 256 closing channels of one address: the next is refused. */
static void srpt_test_login_over_limit_closing(struct kunit *test)
{
	struct srpt_port *sport = test_ch_sport(test);
	struct srpt_nexus *nexus;
	char why[96] = "";
	int i;

	for (i = 0; i < SRPT_MAX_CH_PER_PEER; i++) {
		nexus = test_nexus(test, sport,
				   login_ext(test, 0x100 + i, true));
		test_add_chs(test, nexus, "192.0.2.1", CH_DISCONNECTING, 1);
		test_add_chs(test, nexus, "192.0.2.1",
			     i ? CH_DISCONNECTED : CH_LIVE, 1);
	}
	mutex_lock(&srpt_dev_mutex);
	KUNIT_EXPECT_TRUE(test,
			  srpt_login_over_limit(sport,
						login_ext(test, 0x100, false),
						&test_acl, "192.0.2.1", why,
						sizeof(why)));
	KUNIT_EXPECT_STREQ(test, why,
			   "its source address has 512 channels on the port, closing ones included");
	mutex_unlock(&srpt_dev_mutex);
}

/*
 * The whole check on a port: one address with SRPT_MAX_CH_PER_PEER
 * channels, each in a nexus of its own, refuses a new port ID with the
 * reason in words; another address and a reconnect of one of its nexuses
 * still fit.
 */
static void srpt_test_login_over_limit(struct kunit *test)
{
	struct srpt_port *sport = test_ch_sport(test);
	char why[96] = "";
	bool over;
	int i;

	for (i = 0; i < SRPT_MAX_CH_PER_PEER; i++)
		test_add_chs(test, test_nexus(test, sport,
					      login_ext(test, 0x100 + i, true)),
			     "192.0.2.1", CH_LIVE, 1);
	mutex_lock(&srpt_dev_mutex);
	over = srpt_login_over_limit(sport, login_ext(test, 0x1000, true),
				     &test_acl, "192.0.2.1", why, sizeof(why));
	KUNIT_EXPECT_TRUE(test, over);
	KUNIT_EXPECT_STREQ(test, why,
			   "its source address has 256 channels on the port already");
	over = srpt_login_over_limit(sport, login_ext(test, 0x1000, false),
				     &test_acl, "192.0.2.1", why, sizeof(why));
	KUNIT_EXPECT_TRUE(test, over);
	KUNIT_EXPECT_FALSE(test,
			   srpt_login_over_limit(sport,
						 login_ext(test, 0x100, false),
						 &test_acl, "192.0.2.1", why,
						 sizeof(why)));
	KUNIT_EXPECT_FALSE(test,
			   srpt_login_over_limit(sport,
						 login_ext(test, 0x1000, true),
						 &test_acl, "192.0.2.2", why,
						 sizeof(why)));
	mutex_unlock(&srpt_dev_mutex);
}

/* ---- the ACL search of a login: srpt_setup_session() ---- */

/* How a login may be named: by its connection or by its port ID. */
enum acl_kind { ACL_ADDR, ACL_HEX, ACL_BARE };

#define SETUP_ADDR	"192.0.2.7"
#define SETUP_HEX	"0x0011223344556677fedcba9876543210"

static const char *const acl_kind_name[] = {
	[ACL_ADDR] = SETUP_ADDR,
	[ACL_HEX] = SETUP_HEX,
	[ACL_BARE] = SETUP_HEX + 2,
};

/**
 * struct setup_case - where a port's ACLs are and which one a login finds
 * @label: row name in the test report
 * @acls: the ACLs: bit ((tpg * 3) + kind) for an ACL named
 *	acl_kind_name[kind] in TPG tpg. TPGs 0 (disabled) and 1 are under the
 *	port's GUID-form WWN, 2 and 3 under its GID-form WWN.
 * @tpg: the TPG whose ACL the session must have, or -1 for none
 * @kind: the name the session must have
 */
struct setup_case {
	const char *label;
	u32 acls;
	int tpg;
	enum acl_kind kind;
};

#define ACL_AT(tpg, kind)	BIT((tpg) * 3 + (kind))

static const struct setup_case setup_cases[] = {
	{ "guid-wwn-first", ACL_AT(1, ACL_ADDR) | ACL_AT(2, ACL_ADDR),
	  1, ACL_ADDR },
	{ "disabled-tpg-skipped", ACL_AT(0, ACL_ADDR) | ACL_AT(2, ACL_HEX),
	  2, ACL_HEX },
	{ "address-before-port-id",
	  ACL_AT(2, ACL_HEX) | ACL_AT(2, ACL_BARE) | ACL_AT(2, ACL_ADDR),
	  2, ACL_ADDR },
	{ "0x-before-bare", ACL_AT(2, ACL_BARE) | ACL_AT(2, ACL_HEX),
	  2, ACL_HEX },
	{ "bare", ACL_AT(3, ACL_BARE), 3, ACL_BARE },
	{ "address-before-port-id-of-earlier-tpg",
	  ACL_AT(2, ACL_BARE) | ACL_AT(3, ACL_ADDR), 3, ACL_ADDR },
	{ "address-in-guid-wwn-before-port-id",
	  ACL_AT(1, ACL_ADDR) | ACL_AT(2, ACL_HEX), 1, ACL_ADDR },
	{ "tpg-order-among-port-ids", ACL_AT(3, ACL_HEX) | ACL_AT(2, ACL_BARE),
	  2, ACL_BARE },
	{ "no-port-id-on-guid-wwn", ACL_AT(1, ACL_HEX) | ACL_AT(1, ACL_BARE),
	  -1 },
	{ "only-disabled", ACL_AT(0, ACL_ADDR), -1 },
	{ "no-acl", 0, -1 },
};

KUNIT_ARRAY_PARAM_DESC(setup, setup_cases, label);

/* A WWN of @sport with no TPGs. */
static struct srpt_port_id *setup_wwn(struct kunit *test,
				      struct srpt_port *sport, bool gid_form)
{
	struct srpt_port_id *id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, id);
	mutex_init(&id->mutex);
	INIT_LIST_HEAD(&id->tpg_list);
	id->sport = sport;
	id->gid_form = gid_form;
	return id;
}

/* A TPG under @id as LIO sets it up, ready for target_setup_session(). */
static struct srpt_tpg *setup_tpg(struct kunit *test, struct srpt_port_id *id,
				  bool enabled)
{
	struct srpt_tpg *stpg = kunit_kzalloc(test, sizeof(*stpg), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, stpg);
	stpg->port_id = id;
	stpg->enabled = enabled;
	stpg->tpg.se_tpg_tfo = &srpt_template;
	mutex_init(&stpg->tpg.acl_node_mutex);
	INIT_LIST_HEAD(&stpg->tpg.acl_node_list);
	spin_lock_init(&stpg->tpg.session_lock);
	INIT_LIST_HEAD(&stpg->tpg.tpg_sess_list);
	list_add_tail(&stpg->entry, &id->tpg_list);
	return stpg;
}

/*
 * The first ACL that matches wins, looking at the TPGs of the GUID-form
 * WWN and then of the GID-form WWN, enabled ones only, first in all of
 * them for the connection's name and then, under a GID-form WWN only, for
 * the port ID with "0x" and without, TPG by TPG. The session gets that ACL
 * and name.
 */
static void srpt_test_setup_session_acl_order(struct kunit *test)
{
	const struct setup_case *c = test->param_value;
	struct srpt_rdma_ch *ch = test_ch(test);
	struct srpt_port *sport = ch->sport;
	u8 i_port_id[16];
	struct srpt_tpg *tpg[4];
	struct se_node_acl *acl;
	int t, k, ret;

	KUNIT_ASSERT_EQ(test, hex2bin(i_port_id, SETUP_HEX + 2, 16), 0);
	sport->guid_id = setup_wwn(test, sport, false);
	sport->gid_id = setup_wwn(test, sport, true);
	tpg[0] = setup_tpg(test, sport->guid_id, false);
	tpg[1] = setup_tpg(test, sport->guid_id, true);
	tpg[2] = setup_tpg(test, sport->gid_id, true);
	tpg[3] = setup_tpg(test, sport->gid_id, true);
	for (t = 0; t < ARRAY_SIZE(tpg); t++) {
		for (k = ACL_ADDR; k <= ACL_BARE; k++) {
			if (!(c->acls & ACL_AT(t, k)))
				continue;
			acl = add_acl(test, &tpg[t]->tpg, acl_kind_name[k]);
			kref_init(&acl->acl_kref);
			spin_lock_init(&acl->nacl_sess_lock);
			INIT_LIST_HEAD(&acl->acl_sess_list);
		}
	}
	strscpy(ch->sess_name, SETUP_ADDR, sizeof(ch->sess_name));

	ret = srpt_setup_session(ch, i_port_id);
	if (c->tpg < 0) {
		KUNIT_EXPECT_EQ(test, ret, -EACCES);
		KUNIT_EXPECT_NULL(test, ch->sess);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, ch->sess);
	KUNIT_EXPECT_PTR_EQ(test, ch->sess->se_tpg, &tpg[c->tpg]->tpg);
	KUNIT_EXPECT_STREQ(test, ch->sess->se_node_acl->initiatorname,
			   acl_kind_name[c->kind]);
	KUNIT_EXPECT_STREQ(test, ch->sess_name, acl_kind_name[c->kind]);
	KUNIT_EXPECT_PTR_EQ(test, ch->sess->fabric_sess_ptr, (void *)ch);
	target_remove_session(ch->sess);
}

/* ---- SRP_RSP of a SCSI command: srpt_build_cmd_rsp() ---- */

/**
 * struct cmd_rsp_case - one srpt_build_cmd_rsp() input and its response
 * @label: row name in the test report
 * @status: SCSI status
 * @dir: data direction of the command
 * @flags: SCF_UNDERFLOW_BIT or SCF_OVERFLOW_BIT, or 0
 * @sense_len: sense bytes LIO has for the command
 * @max_ti: the channel's max_ti_iu_len
 * @max_rsp: the channel's max_rsp_size
 * @rsp_flags: the expected flags byte
 * @do_res: the expected DATA-OUT RESIDUAL COUNT
 * @di_res: the expected DATA-IN RESIDUAL COUNT
 * @sense: the expected SENSE DATA LIST LENGTH
 */
struct cmd_rsp_case {
	const char *label;
	u8 status;
	enum dma_data_direction dir;
	u32 flags;
	u16 sense_len;
	u32 max_ti;
	u32 max_rsp;
	u8 rsp_flags;
	u32 do_res;
	u32 di_res;
	u32 sense;
};

#define RSP_HDR		((u32)sizeof(struct srp_rsp))	/* 36 */
#define RESID		0x12345

static const struct cmd_rsp_case cmd_rsp_cases[] = {
	{ "good", SAM_STAT_GOOD, DMA_FROM_DEVICE, 0, 0, 256, 256 },
	{ "read-underflow", SAM_STAT_GOOD, DMA_FROM_DEVICE, SCF_UNDERFLOW_BIT,
	  0, 256, 256, SRP_RSP_FLAG_DIUNDER, 0, RESID },
	{ "read-overflow", SAM_STAT_GOOD, DMA_FROM_DEVICE, SCF_OVERFLOW_BIT,
	  0, 256, 256, SRP_RSP_FLAG_DIOVER, 0, RESID },
	{ "write-underflow", SAM_STAT_GOOD, DMA_TO_DEVICE, SCF_UNDERFLOW_BIT,
	  0, 256, 256, SRP_RSP_FLAG_DOUNDER, RESID },
	{ "write-overflow", SAM_STAT_GOOD, DMA_TO_DEVICE, SCF_OVERFLOW_BIT,
	  0, 256, 256, SRP_RSP_FLAG_DOOVER, RESID },
	{ "no-data-no-residual", SAM_STAT_GOOD, DMA_NONE, SCF_UNDERFLOW_BIT,
	  0, 256, 256 },
	{ "sense", SAM_STAT_CHECK_CONDITION, DMA_NONE, 0, 18, 256, 256,
	  SRP_RSP_FLAG_SNSVALID, 0, 0, 18 },
	{ "sense-and-residual", SAM_STAT_CHECK_CONDITION, DMA_FROM_DEVICE,
	  SCF_UNDERFLOW_BIT, 18, 256, 256,
	  SRP_RSP_FLAG_SNSVALID | SRP_RSP_FLAG_DIUNDER, 0, RESID, 18 },
	{ "sense-cut-to-ti-iu-len", SAM_STAT_CHECK_CONDITION, DMA_NONE, 0, 18,
	  RSP_HDR + 10, 256, SRP_RSP_FLAG_SNSVALID, 0, 0, 10 },
	{ "sense-cut-to-rsp-size", SAM_STAT_CHECK_CONDITION, DMA_NONE, 0, 18,
	  256, RSP_HDR + 8, SRP_RSP_FLAG_SNSVALID, 0, 0, 8 },
	{ "sense-cut-to-sense-buffer", SAM_STAT_CHECK_CONDITION, DMA_NONE, 0,
	  TRANSPORT_SENSE_BUFFER + 4, 512, 512, SRP_RSP_FLAG_SNSVALID, 0, 0,
	  TRANSPORT_SENSE_BUFFER },
	{ "no-sense-with-good", SAM_STAT_GOOD, DMA_NONE, 0, 18, 256, 256 },
	{ "check-condition-without-sense", SAM_STAT_CHECK_CONDITION, DMA_NONE,
	  0, 0, 256, 256 },
};

KUNIT_ARRAY_PARAM_DESC(cmd_rsp, cmd_rsp_cases, label);

/*
 * The SRP_RSP byte for byte: the credits taken, the tag, the status, the
 * residual count of the command's direction with its flag, and as much
 * sense data as the initiator's IU size, our response buffers and LIO's
 * sense buffer allow. Every other byte is zero, and no byte after the
 * returned length is written.
 */
static void srpt_test_build_cmd_rsp(struct kunit *test)
{
	const struct cmd_rsp_case *c = test->param_value;
	struct srpt_rdma_ch *ch = test_ch(test);
	struct srpt_send_ioctx *ioctx;
	struct se_cmd *cmd;
	u8 *buf, *sense, *want;
	u64 tag = 0x8877665544332211ULL;
	int i, len;

	ioctx = kunit_kzalloc(test, sizeof(*ioctx), GFP_KERNEL);
	buf = kunit_kmalloc(test, 1024, GFP_KERNEL);
	sense = kunit_kmalloc(test, TRANSPORT_SENSE_BUFFER + 4, GFP_KERNEL);
	want = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ioctx);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, sense);
	KUNIT_ASSERT_NOT_NULL(test, want);
	memset(buf, 0xa5, 1024);
	for (i = 0; i < TRANSPORT_SENSE_BUFFER + 4; i++)
		sense[i] = 0x40 + i;
	ioctx->ioctx.buf = buf;
	ioctx->ch = ch;
	cmd = &ioctx->cmd;
	cmd->data_direction = c->dir;
	cmd->se_cmd_flags = c->flags;
	cmd->residual_count = c->flags ? RESID : 0;
	cmd->sense_buffer = sense;
	cmd->scsi_sense_length = c->sense_len;
	ch->max_ti_iu_len = c->max_ti;
	ch->max_rsp_size = c->max_rsp;
	atomic_set(&ch->req_lim_delta, 5);

	len = srpt_build_cmd_rsp(ch, ioctx, tag, c->status);

	KUNIT_EXPECT_EQ(test, len, (int)(RSP_HDR + c->sense));
	want[0] = SRP_RSP;
	put_unaligned_be32(5, &want[4]);
	memcpy(&want[8], &tag, 8);
	want[18] = c->rsp_flags;
	want[19] = c->status;
	put_unaligned_be32(c->do_res, &want[20]);
	put_unaligned_be32(c->di_res, &want[24]);
	put_unaligned_be32(c->sense, &want[28]);
	memcpy(&want[RSP_HDR], sense, c->sense);
	KUNIT_EXPECT_MEMEQ(test, buf, want, RSP_HDR + c->sense);
	for (i = RSP_HDR + c->sense; i < 1024; i++)
		if (buf[i] != 0xa5)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, 1024, "byte %d after the response written",
			    i);
	/* The credits went out with this response. */
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->req_lim_delta), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->cred_sent), 5);
}

/* Suite ib_srpt_mad: device-management MADs (the srp_daemon side). */
static struct kunit_case srpt_mad_test_cases[] = {
	KUNIT_CASE(srpt_test_class_port_info),
	KUNIT_CASE(srpt_test_class_port_info_reply),
	KUNIT_CASE(srpt_test_class_port_info_resp_time),
	KUNIT_CASE(srpt_test_iou_info),
	KUNIT_CASE(srpt_test_iou_info_reply),
	KUNIT_CASE(srpt_test_iou_info_attr_mod_ignored),
	KUNIT_CASE(srpt_test_set_ioc_odd_slot),
	KUNIT_CASE(srpt_test_set_ioc_even_slot),
	KUNIT_CASE(srpt_test_set_ioc_last_slots),
	KUNIT_CASE(srpt_test_set_ioc_clear),
	KUNIT_CASE(srpt_test_set_ioc_bad_slot),
	KUNIT_CASE(srpt_test_set_ioc_value_masked),
	KUNIT_CASE(srpt_test_ioc_profile),
	KUNIT_CASE(srpt_test_ioc_profile_reply),
	KUNIT_CASE(srpt_test_ioc_profile_fields),
	KUNIT_CASE(srpt_test_ioc_profile_sq_depth_hca_limit),
	KUNIT_CASE(srpt_test_ioc_profile_sq_depth_attr),
	KUNIT_CASE(srpt_test_ioc_profile_follows_settings),
	KUNIT_CASE(srpt_test_ioc_slot0),
	KUNIT_CASE(srpt_test_ioc_slot17),
	KUNIT_CASE(srpt_test_ioc_slot_huge),
	KUNIT_CASE(srpt_test_ioc_empty_slots),
	KUNIT_CASE(srpt_test_ioc_slot0_reply),
	KUNIT_CASE(srpt_test_ioc_slot17_reply),
	KUNIT_CASE(srpt_test_ioc_slot2_reply),
	KUNIT_CASE(srpt_test_ioc_slot16_reply),
	KUNIT_CASE(srpt_test_svc_entries),
	KUNIT_CASE(srpt_test_svc_entries_reply),
	KUNIT_CASE(srpt_test_svc_entries_name_and_id),
	KUNIT_CASE(srpt_test_svc_entries_uses_service_guid),
	KUNIT_CASE(srpt_test_svc_entries_hi_lt_lo),
	KUNIT_CASE(srpt_test_svc_entries_hi_too_big),
	KUNIT_CASE(srpt_test_svc_entries_range_too_long),
	KUNIT_CASE(srpt_test_svc_entries_slot0),
	KUNIT_CASE(srpt_test_svc_entries_slot17),
	KUNIT_CASE(srpt_test_svc_entries_empty_slot),
	KUNIT_CASE(srpt_test_svc_entries_bad_range_reply),
	KUNIT_CASE(srpt_test_svc_entries_modifier_decoding),
	KUNIT_CASE_PARAM(srpt_test_get_unknown_attr, unknown_attr_gen_params),
	KUNIT_CASE(srpt_test_method_get_unknown_attr),
	KUNIT_CASE(srpt_test_method_get_dispatch),
	KUNIT_CASE_PARAM(srpt_test_set_refused, set_attr_gen_params),
	KUNIT_CASE(srpt_test_set_ioc_profile_refused),
	KUNIT_CASE_PARAM(srpt_test_other_methods, other_method_gen_params),
	KUNIT_CASE_PARAM(srpt_test_responses_ignored,
			 response_method_gen_params),
	KUNIT_CASE(srpt_test_foreign_mads_ignored),
	KUNIT_CASE(srpt_test_reply_keeps_request_fields),
	KUNIT_CASE(srpt_test_register_idempotent),
	{}
};

static struct kunit_suite srpt_mad_test_suite = {
	.name = "ib_srpt_mad",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_mad_test_cases,
};

/* Suite ib_srpt_names: port IDs, GUIDs, ACL names, WWN names, GID changes. */
static struct kunit_case srpt_names_test_cases[] = {
	KUNIT_CASE_PARAM(srpt_test_port_id, port_id_gen_params),
	KUNIT_CASE_PARAM(srpt_test_guid, guid_gen_params),
	KUNIT_CASE(srpt_test_param_guid),
	KUNIT_CASE_PARAM(srpt_test_acl_name, acl_gen_params),
	KUNIT_CASE_PARAM(srpt_test_acl_init_normalises, acl_init_gen_params),
	KUNIT_CASE(srpt_test_acl_init_duplicate),
	KUNIT_CASE_PARAM(srpt_test_pr_acl, pr_acl_gen_params),
	KUNIT_CASE_PARAM(srpt_test_pr_other_commands, pr_other_gen_params),
	KUNIT_CASE(srpt_test_pr_passthrough),
	KUNIT_CASE(srpt_test_xcopy_refused),
	KUNIT_CASE(srpt_test_format_guid_name),
	KUNIT_CASE(srpt_test_format_gid_name),
	KUNIT_CASE(srpt_test_format_names_exact_size),
	KUNIT_CASE(srpt_test_format_names_round_trip),
	KUNIT_CASE(srpt_test_port_set_gid_first),
	KUNIT_CASE(srpt_test_port_set_gid_zero_first),
	KUNIT_CASE(srpt_test_port_set_gid_changed),
	KUNIT_CASE(srpt_test_wwn_name_current_mac),
	KUNIT_CASE(srpt_test_wwn_name_current_prefix),
	{}
};

static struct kunit_suite srpt_names_test_suite = {
	.name = "ib_srpt_names",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_names_test_cases,
};

/* Suite ib_srpt_login: login request checks and channel limits. */
static struct kunit_case srpt_login_test_cases[] = {
	KUNIT_CASE(srpt_test_login_accept),
	KUNIT_CASE(srpt_test_login_iu_len_bounds),
	KUNIT_CASE(srpt_test_login_iu_too_small),
	KUNIT_CASE(srpt_test_login_iu_too_large),
	KUNIT_CASE(srpt_test_login_iu_follows_param),
	KUNIT_CASE(srpt_test_login_port_disabled),
	KUNIT_CASE(srpt_test_login_wrong_target),
	KUNIT_CASE(srpt_test_login_target_follows_guid),
	KUNIT_CASE(srpt_test_login_buf_fmt_single),
	KUNIT_CASE(srpt_test_login_buf_fmt_none),
	KUNIT_CASE_PARAM(srpt_test_login_buf_fmt_unknown,
			 login_buf_fmt_gen_params),
	KUNIT_CASE(srpt_test_login_reason_order),
	KUNIT_CASE_PARAM(srpt_test_login_opcode, login_opcode_gen_params),
	KUNIT_CASE(srpt_test_login_rej_text),
	KUNIT_CASE(srpt_test_login_port_num),
	KUNIT_CASE_PARAM(srpt_test_login_rsp_iu_lens, login_it_len_gen_params),
	KUNIT_CASE(srpt_test_build_login_rsp),
	KUNIT_CASE_PARAM(srpt_test_setup_session_acl_order, setup_gen_params),
	KUNIT_CASE(srpt_test_count_login_chs),
	KUNIT_CASE(srpt_test_count_login_chs_other_acl),
	KUNIT_CASE(srpt_test_ch_limit_multi),
	KUNIT_CASE(srpt_test_ch_limit_single),
	KUNIT_CASE(srpt_test_login_over_limit),
	KUNIT_CASE(srpt_test_ch_limit_closing),
	KUNIT_CASE(srpt_test_login_over_limit_closing),
	{}
};

static struct kunit_suite srpt_login_test_suite = {
	.name = "ib_srpt_login",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_login_test_cases,
};

/* Suite ib_srpt_cmd: SRP_CMD descriptor and CDB parsing. */
static struct kunit_case srpt_cmd_test_cases[] = {
	KUNIT_CASE(srpt_test_cmd_no_data),
	KUNIT_CASE(srpt_test_cmd_header_truncated),
	KUNIT_CASE(srpt_test_cmd_direct_out),
	KUNIT_CASE(srpt_test_cmd_direct_in),
	KUNIT_CASE(srpt_test_cmd_direct_max_len),
	KUNIT_CASE(srpt_test_cmd_direct_truncated),
	KUNIT_CASE(srpt_test_cmd_add_cdb),
	KUNIT_CASE(srpt_test_cmd_add_cdb_reserved_bits),
	KUNIT_CASE(srpt_test_cmd_add_cdb_too_long),
	KUNIT_CASE_PARAM(srpt_test_cmd_bidirectional, bidi_buf_fmt_gen_params),
	KUNIT_CASE_PARAM(srpt_test_cmd_unknown_format,
			 unknown_cmd_buf_fmt_gen_params),
	KUNIT_CASE_PARAM(srpt_test_build_cmd_rsp, cmd_rsp_gen_params),
	KUNIT_CASE(srpt_test_cmd_indirect_out),
	KUNIT_CASE(srpt_test_cmd_indirect_in),
	KUNIT_CASE(srpt_test_cmd_indirect_one),
	KUNIT_CASE(srpt_test_cmd_indirect_255),
	KUNIT_CASE(srpt_test_cmd_indirect_truncated_list),
	KUNIT_CASE(srpt_test_cmd_indirect_truncated_hdr),
	KUNIT_CASE(srpt_test_cmd_indirect_external_table),
	KUNIT_CASE(srpt_test_cmd_indirect_zero_table),
	KUNIT_CASE(srpt_test_cmd_indirect_table_not_multiple),
	KUNIT_CASE(srpt_test_cmd_indirect_zero_count),
	KUNIT_CASE(srpt_test_cmd_indirect_count_exceeds_table),
	KUNIT_CASE(srpt_test_cmd_indirect_count_below_table),
	KUNIT_CASE(srpt_test_cmd_indirect_wrong_direction_count),
	KUNIT_CASE(srpt_test_cdb_dir_conflict),
	KUNIT_CASE(srpt_test_slice_sg),
	KUNIT_CASE(srpt_test_sq_size),
	KUNIT_CASE(srpt_test_sq_slots),
	KUNIT_CASE(srpt_test_cdb_len),
	KUNIT_CASE_PARAM(srpt_test_cdb_data_dir_table, cdb_dir_gen_params),
	KUNIT_CASE(srpt_test_cdb_data_dir_varlen),
	KUNIT_CASE(srpt_test_cmd_indirect_len_mismatch),
	KUNIT_CASE(srpt_test_cmd_indirect_sum_overflow),
	KUNIT_CASE(srpt_test_cmd_indirect_huge_sum),
	KUNIT_CASE(srpt_test_cmd_indirect_with_add_cdb),
	KUNIT_CASE(srpt_test_cmd_imm),
	KUNIT_CASE(srpt_test_cmd_imm_max),
	KUNIT_CASE(srpt_test_cmd_imm_not_negotiated),
	KUNIT_CASE(srpt_test_cmd_imm_beyond_iu),
	KUNIT_CASE(srpt_test_cmd_imm_offset_beyond_iu),
	KUNIT_CASE(srpt_test_cmd_imm_len_wrap),
	KUNIT_CASE(srpt_test_cmd_imm_desc_overlaps_data),
	KUNIT_CASE(srpt_test_cmd_imm_with_add_cdb),
	KUNIT_CASE(srpt_test_cmd_imm_data_in),
	KUNIT_CASE(srpt_test_cmd_imm_desc_truncated),
	{}
};

static struct kunit_suite srpt_cmd_test_suite = {
	.name = "ib_srpt_cmd",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_cmd_test_cases,
};

/* Suite ib_srpt_buf: data buffers: budget, zeroing, kept buffers. */
static struct kunit_case srpt_buf_test_cases[] = {
	KUNIT_CASE(srpt_test_buf_budget),
	KUNIT_CASE(srpt_test_ring_budget),
	KUNIT_CASE(srpt_test_data_pages_zeroed),
	KUNIT_CASE(srpt_test_send_ioctx_reset),
	KUNIT_CASE(srpt_test_show_whole_blocks),
	KUNIT_CASE(srpt_test_keep_data_buf),
	KUNIT_CASE(srpt_test_kept_buf_in_budget),
	KUNIT_CASE(srpt_test_buf_share_one_address),
	KUNIT_CASE(srpt_test_buf_share_hwm),
	KUNIT_CASE(srpt_test_kept_buf_share),
	KUNIT_CASE(srpt_test_buf_kept_no_freeze),
	KUNIT_CASE(srpt_test_buf_hwm_stale_lower),
	KUNIT_CASE(srpt_test_buf_charge_frees_kept),
	KUNIT_CASE(srpt_test_dev_bufs_show),
	{}
};

static struct kunit_suite srpt_buf_test_suite = {
	.name = "ib_srpt_buf",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_buf_test_cases,
};

/* Suite ib_srpt_state: command states and credit counting. */
static struct kunit_case srpt_state_test_cases[] = {
	KUNIT_CASE(srpt_test_state_set_returns_previous),
	KUNIT_CASE(srpt_test_state_write_path),
	KUNIT_CASE(srpt_test_state_tmf_path),
	KUNIT_CASE(srpt_test_state_done_is_terminal),
	KUNIT_CASE(srpt_test_state_same_state),
	KUNIT_CASE(srpt_test_state_abort_to_done),
	KUNIT_CASE(srpt_test_state_test_and_set_match),
	KUNIT_CASE(srpt_test_state_test_and_set_mismatch),
	KUNIT_CASE(srpt_test_state_test_and_set_once),
	KUNIT_CASE(srpt_test_state_test_and_set_from_done),
	KUNIT_CASE(srpt_test_state_only_allowed_moves),
	KUNIT_CASE(srpt_test_state_free_list_cycle),
	KUNIT_CASE(srpt_test_state_names),
	KUNIT_CASE(srpt_test_credit_take_empty),
	KUNIT_CASE(srpt_test_credit_return_one),
	KUNIT_CASE(srpt_test_credit_accumulate),
	KUNIT_CASE(srpt_test_credit_interleaved),
	{}
};

static struct kunit_suite srpt_state_test_suite = {
	.name = "ib_srpt_state",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_state_test_cases,
};

kunit_test_suites(&srpt_mad_test_suite, &srpt_names_test_suite,
		  &srpt_login_test_suite, &srpt_cmd_test_suite,
		  &srpt_buf_test_suite, &srpt_state_test_suite);

/*
 * Credits, send-queue accounting and receive dispatch. A fake HCA whose
 * post_send and post_srq_recv record what they are given stands in for the
 * adapter.
 */

/**
 * struct srpt_fake_posts - what the fake adapter saw
 * @fail: make post_send fail with -EIO
 * @fail_err: make post_send fail with this error instead of -EIO
 * @fail_next: make the next post_send (only) fail with this error
 * @n_send: post_send calls
 * @n_recv: post_srq_recv calls
 * @n_modify: modify_qp calls
 * @qp_state: the state of the last modify_qp
 * @sp_min: lowest stack address post_send was called at
 * @sp_max: highest stack address post_send was called at
 * @sent: send contexts of the SENDs posted (in order)
 */
struct srpt_fake_posts {
	bool fail;
	int fail_err;
	int fail_next;
	int n_send;
	int n_recv;
	int n_modify;
	enum ib_qp_state qp_state;
	unsigned long sp_min;
	unsigned long sp_max;
	struct srpt_send_ioctx *sent[32];
};

static struct srpt_fake_posts srpt_fake;

static int srpt_fake_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad)
{
	unsigned long sp = (unsigned long)__builtin_frame_address(0);

	if (!srpt_fake.n_send || sp < srpt_fake.sp_min)
		srpt_fake.sp_min = sp;
	if (!srpt_fake.n_send || sp > srpt_fake.sp_max)
		srpt_fake.sp_max = sp;
	if (wr && srpt_fake.n_send < ARRAY_SIZE(srpt_fake.sent))
		srpt_fake.sent[srpt_fake.n_send] =
			container_of(wr->wr_cqe, struct srpt_send_ioctx,
				     ioctx.cqe);
	srpt_fake.n_send++;
	if (srpt_fake.fail_next) {
		int err = srpt_fake.fail_next;

		srpt_fake.fail_next = 0;
		return err;
	}
	if (srpt_fake.fail)
		return srpt_fake.fail_err ?: -EIO;
	return 0;
}

static int srpt_fake_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			       int mask, struct ib_udata *udata)
{
	srpt_fake.n_modify++;
	if (mask & IB_QP_STATE)
		srpt_fake.qp_state = attr->qp_state;
	return 0;
}

static int srpt_fake_post_srq_recv(struct ib_srq *srq,
				   const struct ib_recv_wr *wr,
				   const struct ib_recv_wr **bad)
{
	srpt_fake.n_recv++;
	return 0;
}

/* A live SRQ channel with @n free send contexts on the fake adapter. */
static struct srpt_rdma_ch *fake_ch(struct kunit *test, int n)
{
	struct srpt_test_ctx *ctx = test->priv;
	struct srpt_rdma_ch *ch = test_ch(test);
	int i;

	memset(&srpt_fake, 0, sizeof(srpt_fake));
	ctx->ibdev->ops.post_send = srpt_fake_post_send;
	ctx->ibdev->ops.post_srq_recv = srpt_fake_post_srq_recv;
	ctx->ibdev->ops.modify_qp = srpt_fake_modify_qp;
	/* ib_modify_qp() looks at the port's protocol flags (none here). */
	ctx->ibdev->port_data = kunit_kcalloc(test, 2,
					      sizeof(*ctx->ibdev->port_data),
					      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->ibdev->port_data);
	ch->qp = kunit_kzalloc(test, sizeof(*ch->qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch->qp);
	ch->qp->device = ctx->ibdev;
	ch->qp->real_qp = ch->qp;
	ch->qp->qp_context = ch;
	kref_init(&ch->kref);
	ctx->sdev->srq = kunit_kzalloc(test, sizeof(*ctx->sdev->srq),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->sdev->srq);
	ctx->sdev->srq->device = ctx->ibdev;
	ch->use_srq = true;
	ch->state = CH_LIVE;
	ch->rq_size = n;
	ch->sq_wr_avail = 64;
	strscpy(ch->sess_name, "kunit", sizeof(ch->sess_name));
	INIT_LIST_HEAD(&ch->free_list);
	INIT_LIST_HEAD(&ch->rw_wait_list);
	INIT_LIST_HEAD(&ch->cmd_wait_list);
	for (i = 0; i < n; i++) {
		struct srpt_send_ioctx *io = kunit_kzalloc(test, sizeof(*io),
							   GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, io);
		io->ioctx.buf = kunit_kzalloc(test, SRPT_DEF_RSP_SIZE,
					      GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, io->ioctx.buf);
		io->ioctx.index = i;
		io->ch = ch;
		io->state = SRPT_STATE_DONE;	/* as on every free list */
		INIT_LIST_HEAD(&io->wait_list);
		list_add_tail(&io->free_list, &ch->free_list);
	}
	ch->n_free = n;
	return ch;
}

/* An IU of @len bytes starting with @opcode, as received on @ch. */
static struct srpt_recv_ioctx *fake_iu(struct kunit *test,
				       struct srpt_rdma_ch *ch, u8 opcode,
				       u32 len)
{
	struct srpt_recv_ioctx *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->ioctx.buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->ioctx.buf);
	((u8 *)r->ioctx.buf)[0] = opcode;
	r->byte_len = len;
	r->ch = ch;
	INIT_LIST_HEAD(&r->wait_list);
	return r;
}

/*
 * Completes every SEND the fake adapter accepted, including those posted
 * while doing so, and returns the sum of the REQUEST LIMIT DELTA fields of
 * the SRP_CRED_REQs among them.
 */
static int complete_cred_reqs(struct kunit *test)
{
	int i, sum = 0;

	for (i = 0; i < srpt_fake.n_send; i++) {
		struct srpt_send_ioctx *io = srpt_fake.sent[i];
		struct srp_cred_req *req = io->ioctx.buf;

		KUNIT_ASSERT_LT(test, i, (int)ARRAY_SIZE(srpt_fake.sent));
		KUNIT_EXPECT_EQ(test, req->opcode, SRP_CRED_REQ);
		sum += be32_to_cpu(req->req_lim_delta);
		srpt_sq_release(io->ch, io->sq_wr_held, true);
		srpt_send_finished(io);
	}
	return sum;
}

/**
 * struct iu_credit_case - whether an IU with an opcode takes a credit
 * @name: the opcode's name in the test report
 * @op: the opcode
 * @uses: the IU takes a credit
 */
struct iu_credit_case {
	const char *name;
	u8 op;
	bool uses;
};

static const struct iu_credit_case iu_credit_cases[] = {
	{ "SRP_CMD", SRP_CMD, true },
	{ "SRP_TSK_MGMT", SRP_TSK_MGMT, true },
	{ "SRP_LOGIN_REQ", SRP_LOGIN_REQ, true },
	{ "0x04", 0x04, true },
	{ "0x7f", 0x7f, true },
	{ "SRP_RSP", SRP_RSP, true },
	{ "SRP_CRED_REQ", SRP_CRED_REQ, true },
	{ "0xff", 0xff, true },
	{ "SRP_I_LOGOUT", SRP_I_LOGOUT, false },
	{ "SRP_CRED_RSP", SRP_CRED_RSP, false },
	{ "SRP_AER_RSP", SRP_AER_RSP, false },
};

KUNIT_ARRAY_PARAM_DESC(iu_credit, iu_credit_cases, name);

static void srpt_test_iu_uses_credit(struct kunit *test)
{
	const struct iu_credit_case *c = test->param_value;
	u8 iu[1] = { c->op };

	KUNIT_EXPECT_EQ(test, srpt_iu_uses_credit(iu, 1), c->uses);
	/* An empty IU has no opcode to go by: it counts. */
	KUNIT_EXPECT_TRUE(test, srpt_iu_uses_credit(iu, 0));
}

static void srpt_test_credit_use_login_grant(struct kunit *test)
{
	struct srpt_rdma_ch *ch = test_ch(test);
	int i;

	ch->rq_size = 4;
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, srpt_credit_use(ch));
	KUNIT_EXPECT_FALSE(test, srpt_credit_use(ch));
}

static void srpt_test_credit_use_after_delta(struct kunit *test)
{
	struct srpt_rdma_ch *ch = test_ch(test);
	int i;

	ch->rq_size = 4;
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, srpt_credit_use(ch));
	srpt_credit_return(ch);
	srpt_credit_return(ch);
	/* Returned but not yet sent: the initiator does not have them. */
	KUNIT_EXPECT_FALSE(test, srpt_credit_use(ch));

	ch = test_ch(test);
	ch->rq_size = 4;
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, srpt_credit_use(ch));
	srpt_credit_return(ch);
	srpt_credit_return(ch);
	KUNIT_EXPECT_EQ(test, srpt_credit_take(ch), 2);
	KUNIT_EXPECT_TRUE(test, srpt_credit_use(ch));
	KUNIT_EXPECT_TRUE(test, srpt_credit_use(ch));
	KUNIT_EXPECT_FALSE(test, srpt_credit_use(ch));
}

static void srpt_test_credit_use_long_run(struct kunit *test)
{
	struct srpt_rdma_ch *ch = test_ch(test);
	int i;

	/* Counters near the wrap: a compliant initiator stays accepted. */
	ch->rq_size = 128;
	atomic_set(&ch->req_ius, INT_MAX - 1000);
	atomic_set(&ch->cred_sent, INT_MAX - 1000);
	for (i = 0; i < 5000; i++) {
		KUNIT_ASSERT_TRUE(test, srpt_credit_use(ch));
		srpt_credit_return(ch);
		if (i % 7 == 0)
			srpt_credit_take(ch);
	}
	srpt_credit_take(ch);
	for (i = 0; i < 128; i++)
		KUNIT_EXPECT_TRUE(test, srpt_credit_use(ch));
	KUNIT_EXPECT_FALSE(test, srpt_credit_use(ch));
}

static void srpt_test_sq_release_iterative(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 8);
	struct srpt_send_ioctx *io;
	int i;

	/* 8 credit requests wait for the send queue; every post fails. */
	for (i = 0; i < 8; i++) {
		io = srpt_get_send_ioctx(ch);
		KUNIT_ASSERT_NOT_NULL(test, io);
		io->own_rsp = true;
		io->rsp_len = sizeof(struct srp_cred_req);
		io->sq_wr_held = 1;
		io->sq_wr_needed = 1;
		io->waiting_rsp = true;
		list_add_tail(&io->wait_list, &ch->rw_wait_list);
	}
	ch->rq_size = 9;	/* never idle: no new credit request */
	ch->sq_wr_avail = 0;
	/* As on a closing channel: no post closes the channel again. */
	srpt_fake.fail = true;
	srpt_fake.fail_err = -ENOTCONN;
	srpt_sq_release(ch, 1, true);

	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 8);
	/* Every post came from the same stack depth: no recursion. */
	KUNIT_EXPECT_EQ(test, srpt_fake.sp_max - srpt_fake.sp_min, 0UL);
	KUNIT_EXPECT_EQ(test, ch->sq_wr_avail, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->rw_wait_list));
	KUNIT_EXPECT_EQ(test, ch->n_free, 8);
	KUNIT_EXPECT_FALSE(test, ch->sq_releasing);
}

static void srpt_test_cred_req_when_idle(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 4);
	struct srp_cred_req *req;

	atomic_set(&ch->req_lim_delta, 10);
	srpt_credit_flush(ch);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 1);
	req = srpt_fake.sent[0]->ioctx.buf;
	KUNIT_EXPECT_EQ(test, req->opcode, SRP_CRED_REQ);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(req->req_lim_delta), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->cred_sent), 10);
	KUNIT_EXPECT_EQ(test, ch->n_free, 3);

	/* Not idle (the request is in flight): the next credits wait... */
	srpt_credit_return(ch);
	srpt_credit_flush(ch);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 1);
	/* ...until its completion frees the context. */
	srpt_sq_release(ch, 1, true);
	srpt_send_finished(srpt_fake.sent[0]);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 2);
	req = srpt_fake.sent[1]->ioctx.buf;
	KUNIT_EXPECT_EQ(test, be32_to_cpu(req->req_lim_delta), 1);
}

static void srpt_test_cred_req_not_after_close(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 4);
	struct srpt_send_ioctx *io;

	/* The close comes between the state check and the post. */
	io = srpt_get_send_ioctx(ch);
	KUNIT_ASSERT_NOT_NULL(test, io);
	io->own_rsp = true;
	io->rsp_len = sizeof(struct srp_cred_req);
	io->sq_wr_held = 1;
	KUNIT_ASSERT_TRUE(test, srpt_sq_reserve(ch, io, 1, true));
	ch->state = CH_DRAINING;
	srpt_post_response(io);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	KUNIT_EXPECT_EQ(test, ch->n_free, 4);
	KUNIT_EXPECT_EQ(test, ch->sq_wr_avail, 64);
}

static void srpt_test_ignored_ius_credits_returned(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 4);
	int i;

	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_TRUE(test,
				  srpt_handle_new_iu(ch, fake_iu(test, ch, 0x04,
								 64)));
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 10);
	KUNIT_EXPECT_EQ(test, complete_cred_reqs(test), 10);
	KUNIT_EXPECT_EQ(test, ch->n_free, 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->req_lim_delta), 0);
}

static void srpt_test_short_tsk_mgmt_credits_returned(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 4);
	int i;

	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_TRUE(test,
				  srpt_handle_new_iu(ch, fake_iu(test, ch,
								 SRP_TSK_MGMT,
								 16)));
	KUNIT_EXPECT_EQ(test, complete_cred_reqs(test), 6);
	KUNIT_EXPECT_EQ(test, ch->n_free, 4);
}

static void srpt_test_logout_credit_free(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 4);

	KUNIT_EXPECT_TRUE(test,
			  srpt_handle_new_iu(ch, fake_iu(test, ch,
							 SRP_CRED_RSP, 16)));
	KUNIT_EXPECT_TRUE(test,
			  srpt_handle_new_iu(ch, fake_iu(test, ch,
							 SRP_AER_RSP, 16)));
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 2);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->req_lim_delta), 0);
}

static void srpt_test_wait_list_restarted_by_put(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);
	struct srpt_recv_ioctx *r = fake_iu(test, ch, 0x04, 64);

	/* An IU waits (here: behind the list) while the context is busy. */
	KUNIT_ASSERT_NOT_NULL(test, io);
	list_add_tail(&r->wait_list, &ch->cmd_wait_list);
	/* LIO frees the context (srpt_release_cmd()). */
	srpt_put_send_ioctx(io);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->cmd_wait_list));
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 1);
	KUNIT_EXPECT_EQ(test, complete_cred_reqs(test), 1);
}

static void srpt_test_rdma_read_only_live(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 2);
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);

	KUNIT_ASSERT_NOT_NULL(test, io);
	io->n_rdma = 1;
	KUNIT_ASSERT_TRUE(test, srpt_sq_reserve(ch, io, 1, false));
	/* The channel closes between the reservation and the post. */
	ch->state = CH_DRAINING;
	KUNIT_EXPECT_EQ(test, srpt_post_rdma_read(io), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	KUNIT_EXPECT_EQ(test, ch->sq_wr_avail, 64);

	ch->state = CH_LIVE;
	KUNIT_ASSERT_TRUE(test, srpt_sq_reserve(ch, io, 1, false));
	KUNIT_EXPECT_EQ(test, srpt_post_rdma_read(io), 0);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 1);
	KUNIT_EXPECT_EQ(test, ch->sq_wr_avail, 63);
}

static void srpt_test_rsp_post_error_closes(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 4);
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);
	struct srp_cred_req *req;

	/* A response carrying 5 credits that the adapter refuses. */
	KUNIT_ASSERT_NOT_NULL(test, io);
	atomic_set(&ch->req_lim_delta, 5);
	ch->rq_size = 5;	/* not idle: no new credit request */
	io->own_rsp = true;
	req = io->ioctx.buf;
	req->opcode = SRP_CRED_REQ;
	req->req_lim_delta = cpu_to_be32(srpt_credit_take(ch));
	io->rsp_len = sizeof(*req);
	io->sq_wr_held = 1;
	KUNIT_ASSERT_TRUE(test, srpt_sq_reserve(ch, io, 1, true));
	srpt_fake.fail_next = -ENOMEM;
	srpt_post_response(io);

	/* The credits are lost to the initiator: the channel is closed. */
	KUNIT_EXPECT_GE(test, ch->state, CH_DISCONNECTING);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_modify, 1);
	KUNIT_EXPECT_EQ(test, srpt_fake.qp_state, IB_QPS_ERR);
	/* The response and then the zero-length write were posted. */
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 2);
	KUNIT_EXPECT_EQ(test, ch->n_free, 4);
	KUNIT_EXPECT_EQ(test, ch->sq_wr_avail, 64);
}

static void srpt_test_rtu_closing_channel(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);

	/* An IB/CM RTU that arrives after the channel started closing. */
	ch->using_rdma_cm = false;
	ch->state = CH_DISCONNECTING;
	ch->rtu_pending = true;
	srpt_cm_rtu_recv(ch);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_modify, 0);
	KUNIT_EXPECT_EQ(test, ch->state, CH_DISCONNECTING);
	KUNIT_EXPECT_FALSE(test, ch->rtu_busy);
	/* Its release no longer waits for the RTU. */
	KUNIT_EXPECT_FALSE(test, ch->rtu_pending);
	KUNIT_EXPECT_TRUE(test, srpt_ch_quiet(ch));
	/* The release waits while IUs or an RTU are being processed. */
	ch->processing_wait_list = true;
	KUNIT_EXPECT_FALSE(test, srpt_ch_quiet(ch));
	ch->processing_wait_list = false;
	ch->rtu_busy = true;
	KUNIT_EXPECT_FALSE(test, srpt_ch_quiet(ch));
	ch->rtu_busy = false;
}

static void srpt_test_rtu_processes_waiting_ius(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);
	struct srpt_recv_ioctx *r = fake_iu(test, ch, SRP_CRED_RSP, 16);

	/* An IU that arrived before the RTU (RDMA/CM: no QP change). */
	ch->using_rdma_cm = true;
	ch->state = CH_CONNECTING;
	list_add_tail(&r->wait_list, &ch->cmd_wait_list);
	srpt_cm_rtu_recv(ch);
	KUNIT_EXPECT_EQ(test, ch->state, CH_LIVE);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->cmd_wait_list));
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 1);
	KUNIT_EXPECT_FALSE(test, ch->processing_wait_list);
	/* A second RTU (or ESTABLISHED) changes nothing. */
	srpt_cm_rtu_recv(ch);
	KUNIT_EXPECT_EQ(test, ch->state, CH_LIVE);
}

static void srpt_test_rtu_live_not_pending(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);

	ch->using_rdma_cm = true;
	ch->state = CH_CONNECTING;
	ch->rtu_pending = true;
	srpt_cm_rtu_recv(ch);
	KUNIT_EXPECT_EQ(test, ch->state, CH_LIVE);
	KUNIT_EXPECT_FALSE(test, ch->rtu_pending);
}

static void srpt_test_cm_ended_not_pending(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);

	/* A REJ, DREQ or timeout from the CM: closed, no RTU to wait for. */
	ch->state = CH_CONNECTING;
	ch->rtu_pending = true;
	srpt_cm_ended(ch, "test");
	KUNIT_EXPECT_GE(test, ch->state, CH_DISCONNECTING);
	KUNIT_EXPECT_EQ(test, srpt_fake.qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_FALSE(test, ch->rtu_pending);
}

struct rtu_later {
	struct delayed_work dwork;
	struct srpt_rdma_ch *ch;
};

static void rtu_later_fn(struct work_struct *w)
{
	struct rtu_later *l = container_of(to_delayed_work(w), struct rtu_later,
					   dwork);

	srpt_set_rtu_pending(l->ch, false);
}

static void srpt_test_wait_rtu_until_rtu(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);
	struct rtu_later l = { .ch = ch };
	unsigned long t0, ms;

	/* Nothing pending: no wait. */
	t0 = jiffies;
	srpt_wait_rtu(ch);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0), 100U);

	/* The RTU comes 200 ms later: the release goes on then. */
	srpt_set_rtu_pending(ch, true);
	INIT_DELAYED_WORK_ONSTACK(&l.dwork, rtu_later_fn);
	t0 = jiffies;
	schedule_delayed_work(&l.dwork, msecs_to_jiffies(200));
	srpt_wait_rtu(ch);
	ms = jiffies_to_msecs(jiffies - t0);
	flush_delayed_work(&l.dwork);
	destroy_delayed_work_on_stack(&l.dwork);
	KUNIT_EXPECT_GE(test, ms, 150UL);
	KUNIT_EXPECT_LT(test, ms, (unsigned long)SRPT_RTU_WAIT_MS);
	KUNIT_EXPECT_FALSE(test, ch->rtu_pending);

	/* The HCA is going away: nobody waits for an RTU. */
	srpt_set_rtu_pending(ch, true);
	ch->sport->sdev->going_away = true;
	t0 = jiffies;
	srpt_wait_rtu(ch);
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0), 100U);
	ch->sport->sdev->going_away = false;
}

static void srpt_test_wait_rtu_bounded(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);
	unsigned long t0, ms;

	/* An initiator that never sends its RTU holds the release this long. */
	srpt_set_rtu_pending(ch, true);
	t0 = jiffies;
	srpt_wait_rtu(ch);
	ms = jiffies_to_msecs(jiffies - t0);
	KUNIT_EXPECT_GE(test, ms, (unsigned long)SRPT_RTU_WAIT_MS - 20);
	KUNIT_EXPECT_LT(test, ms, (unsigned long)SRPT_RTU_WAIT_MS + 2000);
}

static void srpt_test_iu_after_close_given_back(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);
	struct srpt_recv_ioctx *r = fake_iu(test, ch, SRP_CMD, 64);

	/* No send context: the IU waits while the channel is live. */
	KUNIT_ASSERT_NOT_NULL(test, srpt_get_send_ioctx(ch));
	srpt_process_ius(ch, r);
	KUNIT_EXPECT_FALSE(test, list_empty(&ch->cmd_wait_list));
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 0);
	KUNIT_EXPECT_FALSE(test, ch->processing_wait_list);
	list_del_init(&r->wait_list);
	/* Once the channel is closing, a new IU goes straight back. */
	ch->state = CH_DISCONNECTED;
	srpt_process_ius(ch, r);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->cmd_wait_list));
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 1);
	KUNIT_EXPECT_FALSE(test, ch->processing_wait_list);
}

/*
 * LIO may close a session while the login that created it is still being
 * answered (its ACL removed): the channel
 * must not start closing under the login, and must close once the login
 * response is out. LIO asks only once.
 */
static void srpt_test_close_during_login(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);
	struct se_session sess = { .fabric_sess_ptr = ch };

	ch->state = CH_CONNECTING;
	ch->login_busy = true;
	srpt_close_session(&sess);
	KUNIT_EXPECT_EQ(test, ch->state, CH_CONNECTING);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_modify, 0);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	/* Another close meanwhile keeps the first reason. */
	KUNIT_EXPECT_TRUE(test, srpt_close_ch(ch, "kunit"));
	KUNIT_EXPECT_STREQ(test, ch->close_why, "LIO closed the session");
	srpt_login_end(ch);
	KUNIT_EXPECT_FALSE(test, ch->login_busy);
	KUNIT_EXPECT_EQ(test, ch->state, CH_DRAINING);
	KUNIT_EXPECT_EQ(test, srpt_fake.qp_state, IB_QPS_ERR);
	/* The zero-length write. */
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 1);
	/* Once answered, a close is not held back. */
	KUNIT_EXPECT_FALSE(test, srpt_close_ch(ch, "kunit"));
}

/* Without a close during the login, its end changes nothing. */
static void srpt_test_login_end_without_close(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);

	ch->state = CH_CONNECTING;
	ch->login_busy = true;
	srpt_login_end(ch);
	KUNIT_EXPECT_FALSE(test, ch->login_busy);
	KUNIT_EXPECT_EQ(test, ch->state, CH_CONNECTING);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(srpt_test_kfree, kfree, const void *);

/*
 * A login's channel as srpt_join_nexus() gets it: a fake channel with a
 * LIO session of ACL @acl in TPG @stpg, and a spare nexus for @req.
 */
static struct srpt_rdma_ch *join_ch(struct kunit *test,
				    struct srpt_tpg *stpg,
				    struct se_node_acl *acl)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);
	struct se_session *sess = kunit_kzalloc(test, sizeof(*sess),
						GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sess);
	sess->se_tpg = &stpg->tpg;
	sess->se_node_acl = acl;
	ch->sess = sess;
	return ch;
}

/* srpt_join_nexus() of @ch for @req with a new spare nexus. */
static int join(struct kunit *test, struct srpt_rdma_ch *ch,
		const struct srp_login_req *req)
{
	struct srpt_nexus *spare = srpt_new_nexus(req);
	int flags;

	KUNIT_ASSERT_NOT_NULL(test, spare);
	flags = srpt_join_nexus(ch, req, spare);
	/* A spare that was not used is freed; the test frees a used one. */
	if (ch->nexus == spare) {
		int ret = kunit_add_action_or_reset(test, srpt_test_kfree,
						    spare);

		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	return flags;
}

/*
 * MULTI logins of one I_T nexus share it (channel IDs 0, 1, ...) and keep
 * its channels (MAINTAINED); another initiator port ID gets a nexus of its
 * own. A SINGLE login closes the other channels of its nexus (TERMINATED),
 * or finds none open (NO CHANNEL). Each channel joined is counted on its
 * port, its receive mode and its TPG, and takes its ACL from its session.
 */
static void srpt_test_join_nexus(struct kunit *test)
{
	struct srpt_port *sport = test_ch_sport(test);
	struct srpt_tpg *stpg = kunit_kzalloc(test, sizeof(*stpg), GFP_KERNEL);
	struct se_node_acl *acl = kunit_kzalloc(test, sizeof(*acl), GFP_KERNEL);
	struct srp_login_req *multi = login_ext(test, 1, true);
	struct srp_login_req *single = login_ext(test, 1, false);
	struct srp_login_req *other = login_ext(test, 2, true);
	struct srpt_rdma_ch *a, *b, *c, *d, *e;

	KUNIT_ASSERT_NOT_NULL(test, stpg);
	KUNIT_ASSERT_NOT_NULL(test, acl);

	a = join_ch(test, stpg, acl);
	KUNIT_EXPECT_EQ(test, join(test, a, multi),
			SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	KUNIT_ASSERT_NOT_NULL(test, a->nexus);
	KUNIT_EXPECT_EQ(test, a->cid, 0);
	KUNIT_EXPECT_PTR_EQ(test, a->nacl, acl);
	KUNIT_EXPECT_PTR_EQ(test, a->stpg, stpg);
	KUNIT_EXPECT_NE(test, a->login_time, 0);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&sport->nexus_list,
						   struct srpt_nexus, entry),
			    a->nexus);
	KUNIT_EXPECT_MEMEQ(test, a->nexus->i_port_id,
			   multi->initiator_port_id, 16);

	b = join_ch(test, stpg, acl);
	KUNIT_EXPECT_EQ(test, join(test, b, multi),
			SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	KUNIT_EXPECT_PTR_EQ(test, b->nexus, a->nexus);
	KUNIT_EXPECT_EQ(test, b->cid, 1);
	KUNIT_EXPECT_PTR_EQ(test, list_last_entry(&a->nexus->ch_list,
						  struct srpt_rdma_ch, list), b);
	KUNIT_EXPECT_EQ(test, a->state, CH_LIVE);

	c = join_ch(test, stpg, acl);
	KUNIT_EXPECT_EQ(test, join(test, c, other),
			SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	KUNIT_EXPECT_PTR_NE(test, c->nexus, a->nexus);
	KUNIT_EXPECT_EQ(test, c->cid, 0);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&sport->nexus_list), 2);

	KUNIT_EXPECT_EQ(test, atomic_read(&sport->refcount), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&sport->mode_chs[1]), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&sport->mode_chs[0]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&stpg->nr_ch), 3);

	/* SINGLE: a and b are closed, c of the other nexus is not. */
	d = join_ch(test, stpg, acl);
	KUNIT_EXPECT_EQ(test, join(test, d, single),
			SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	KUNIT_EXPECT_PTR_EQ(test, d->nexus, a->nexus);
	KUNIT_EXPECT_EQ(test, d->cid, 2);
	KUNIT_EXPECT_GE(test, a->state, CH_DISCONNECTING);
	KUNIT_EXPECT_GE(test, b->state, CH_DISCONNECTING);
	KUNIT_EXPECT_EQ(test, c->state, CH_LIVE);
	KUNIT_EXPECT_EQ(test, d->state, CH_LIVE);

	/*
	 * SINGLE again: a and b are closing already and d is the new login's
	 * own nexus partner, which it closes.
	 */
	e = join_ch(test, stpg, acl);
	KUNIT_EXPECT_EQ(test, join(test, e, single),
			SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	KUNIT_EXPECT_GE(test, d->state, CH_DISCONNECTING);
	KUNIT_EXPECT_EQ(test, atomic_read(&sport->refcount), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&stpg->nr_ch), 5);
}

/* A SINGLE login into a nexus with no open channel: NO CHANNEL. */
static void srpt_test_join_nexus_single_alone(struct kunit *test)
{
	struct srpt_port *sport = test_ch_sport(test);
	struct srpt_tpg *stpg = kunit_kzalloc(test, sizeof(*stpg), GFP_KERNEL);
	struct se_node_acl *acl = kunit_kzalloc(test, sizeof(*acl), GFP_KERNEL);
	struct srp_login_req *single = login_ext(test, 1, false);
	struct srpt_rdma_ch *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, stpg);
	KUNIT_ASSERT_NOT_NULL(test, acl);
	a = join_ch(test, stpg, acl);
	KUNIT_EXPECT_EQ(test, join(test, a, single),
			SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&sport->nexus_list), 1);
	/* Its only partner is closing already: nothing is terminated. */
	KUNIT_EXPECT_TRUE(test, srpt_close_ch(a, "kunit"));
	b = join_ch(test, stpg, acl);
	KUNIT_EXPECT_EQ(test, join(test, b, single),
			SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_EXPECT_PTR_EQ(test, b->nexus, a->nexus);
}

/* ---- max_hw_pending_time: the attribute and the stuck-channel check ---- */

/**
 * struct hw_pending_parse_case - a write of max_hw_pending_time
 * @in: the text written
 * @ret: what srpt_parse_hw_pending_time() returns
 * @val: the seconds it yields when @ret is 0
 */
struct hw_pending_parse_case {
	const char *in;
	int ret;
	u32 val;
};

/*
 * Seconds 0 .. 3600 in decimal, a trailing newline allowed; anything else,
 * a number too large for a u32 included, is -EINVAL, and the value is left
 * alone.
 */
static void srpt_test_hw_pending_parse(struct kunit *test)
{
	static const struct hw_pending_parse_case cases[] = {
		{ "0", 0, 0 }, { "2\n", 0, 2 }, { "60", 0, 60 },
		{ "3600\n", 0, 3600 }, { "3601", -EINVAL }, { "-1", -EINVAL },
		{ "", -EINVAL }, { "\n", -EINVAL }, { "abc", -EINVAL },
		{ "5s", -EINVAL }, { "5 ", -EINVAL }, { "0x10", -EINVAL },
		{ "4294967295", -EINVAL }, { "99999999999", -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct hw_pending_parse_case *c = &cases[i];
		u32 want = c->ret ? 12345 : c->val;
		u32 val = 12345;

		KUNIT_EXPECT_EQ_MSG(test, srpt_parse_hw_pending_time(c->in, &val),
				    c->ret, "input \"%s\"", c->in);
		KUNIT_EXPECT_EQ_MSG(test, val, want, "input \"%s\"", c->in);
	}
}

/*
 * The clock of srpt_ch_sq_stuck(): an empty queue is never stuck; work
 * posted to an empty queue starts the clock, more work does not restart
 * it, nor does a failed post that gives its slots back; a completion does.
 */
static void srpt_test_sq_progress(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 2);
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);
	const unsigned long limit = 2 * HZ;

	KUNIT_ASSERT_NOT_NULL(test, io);
	ch->sq_size = 64;
	ch->sq_wr_avail = 64;
	ch->sq_progress = jiffies - 10 * limit;
	KUNIT_EXPECT_FALSE(test, srpt_ch_sq_stuck(ch, limit));

	KUNIT_ASSERT_TRUE(test, srpt_sq_reserve(ch, io, 3, true));
	KUNIT_EXPECT_FALSE(test, srpt_ch_sq_stuck(ch, limit));
	ch->sq_progress -= limit;
	KUNIT_EXPECT_TRUE(test, srpt_ch_sq_stuck(ch, limit));
	KUNIT_ASSERT_TRUE(test, srpt_sq_reserve(ch, io, 1, true));
	KUNIT_EXPECT_TRUE(test, srpt_ch_sq_stuck(ch, limit));
	srpt_sq_release(ch, 1, false);
	KUNIT_EXPECT_TRUE(test, srpt_ch_sq_stuck(ch, limit));

	srpt_sq_release(ch, 1, true);
	KUNIT_EXPECT_EQ(test, ch->sq_wr_avail, 62);
	KUNIT_EXPECT_FALSE(test, srpt_ch_sq_stuck(ch, limit));
	ch->sq_progress -= limit;
	KUNIT_EXPECT_TRUE(test, srpt_ch_sq_stuck(ch, limit));
	srpt_sq_release(ch, 2, true);
	ch->sq_progress -= limit;
	KUNIT_EXPECT_FALSE(test, srpt_ch_sq_stuck(ch, limit));
	srpt_put_send_ioctx(io);
}

/**
 * struct progress_case - one row of srpt_test_wr_progress
 * @start: bytes of the command's data before a work request
 * @end: bytes up to its end
 * @signaled: whether it should be signaled
 */
struct progress_case {
	u64 start;
	u64 end;
	bool signaled;
};

static const struct progress_case progress_cases[] = {
	{ 0, 4096, false },
	{ 0, SZ_1M - 1, false },
	{ 0, SZ_1M, true },
	{ SZ_1M - 1, SZ_1M, true },
	{ SZ_1M, SZ_1M + 1, false },
	{ SZ_1M, 2 * SZ_1M - 1, false },
	{ SZ_512K, SZ_1M + SZ_512K, true },
	{ 0, 3 * SZ_1M, true },
	{ 63 * SZ_1M + 1, 64 * SZ_1M, true },
	{ 64 * SZ_1M, 64 * SZ_1M, false },
};

static void progress_case_desc(const struct progress_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%llu..%llu", c->start, c->end);
}

KUNIT_ARRAY_PARAM(progress, progress_cases, progress_case_desc);

static void srpt_test_wr_progress(struct kunit *test)
{
	const struct progress_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, srpt_wr_progress(c->start, c->end), c->signaled);
}

/*
 * The rdma_rw context kind of a list of RDMA work requests: private to
 * drivers/infiniband/core/rw.c (RDMA_RW_MULTI_WR, checked against Linux
 * 6.12), and the kind that needs no QP, memory region or DMA mapping to
 * chain. Were it to change, rdma_rw_ctx_wrs() would hit its BUG().
 */
#define SRPT_TEST_RW_MULTI_WR	1

/**
 * struct progress_shape - the work requests of a fake command
 * @n: transfers (descriptors)
 * @wrs: work requests per transfer
 * @sges: scatter/gather entries per RDMA READ
 * @sge_len: bytes per entry
 * @reg: every other work request, from the first, is a memory
 *	registration without entries, as rdma_rw's memory region path posts
 */
struct progress_shape {
	int n;
	int wrs;
	int sges;
	u32 sge_len;
	bool reg;
};

/* A command on @ch shaped as @p. */
static struct srpt_send_ioctx *progress_cmd(struct kunit *test,
					    struct srpt_rdma_ch *ch,
					    const struct progress_shape *p)
{
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);
	int i, j, k;

	KUNIT_ASSERT_NOT_NULL(test, io);
	io->rw_ctxs = kunit_kcalloc(test, p->n, sizeof(*io->rw_ctxs),
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io->rw_ctxs);
	for (i = 0; i < p->n; i++) {
		struct rdma_rw_ctx *rw = &io->rw_ctxs[i].rw;

		rw->type = SRPT_TEST_RW_MULTI_WR;
		rw->nr_ops = p->wrs;
		rw->map.wrs = kunit_kcalloc(test, p->wrs, sizeof(*rw->map.wrs),
					    GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, rw->map.wrs);
		for (j = 0; j < p->wrs; j++) {
			struct ib_send_wr *wr = &rw->map.wrs[j].wr;

			if (j + 1 < p->wrs)
				wr->next = &rw->map.wrs[j + 1].wr;
			if (p->reg && !(j & 1)) {
				wr->opcode = IB_WR_REG_MR;
				continue;
			}
			wr->opcode = IB_WR_RDMA_READ;
			wr->sg_list = kunit_kcalloc(test, p->sges,
						    sizeof(*wr->sg_list),
						    GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, wr->sg_list);
			for (k = 0; k < p->sges; k++)
				wr->sg_list[k].length = p->sge_len;
			wr->num_sge = p->sges;
		}
	}
	io->n_rw_ctx = p->n;
	io->n_rdma = p->n * p->wrs;
	return io;
}

/*
 * Walks the @n work requests before @end of a chain built by
 * srpt_chain_rw_ctxs() and returns a bit mask of those signaled for the
 * channel's progress.
 */
static u64 progress_signaled(struct kunit *test, struct srpt_rdma_ch *ch,
			     struct ib_send_wr *wr,
			     const struct ib_send_wr *end, int n)
{
	u64 mask = 0;
	int i;

	for (i = 0; i < n; i++, wr = wr->next) {
		KUNIT_ASSERT_NOT_NULL(test, wr);
		KUNIT_ASSERT_PTR_NE(test, wr, end);
		if (!(wr->send_flags & IB_SEND_SIGNALED) ||
		    wr->wr_cqe != &ch->progress_cqe)
			continue;
		mask |= BIT_ULL(i);
	}
	KUNIT_EXPECT_PTR_EQ(test, wr, end);
	return mask;
}

/*
 * Builds the chain of a command shaped as @p both ways, for a write
 * (its last work request signaled for the command) and for a read
 * (chained to the response, unsignaled), and expects @mask to be
 * signaled for progress in both.
 */
static void progress_expect(struct kunit *test, const struct progress_shape *p,
			    u64 mask)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 2);
	struct srpt_send_ioctx *io = progress_cmd(test, ch, p);
	struct ib_send_wr rsp = {}, *first, *last;

	first = srpt_chain_rw_ctxs(ch, io, &io->rdma_cqe, NULL);
	KUNIT_EXPECT_EQ(test, progress_signaled(test, ch, first, NULL,
						p->n * p->wrs), mask);
	last = &io->rw_ctxs[p->n - 1].rw.map.wrs[p->wrs - 1].wr;
	KUNIT_EXPECT_PTR_EQ(test, last->wr_cqe, &io->rdma_cqe);
	KUNIT_EXPECT_TRUE(test, last->send_flags & IB_SEND_SIGNALED);
	srpt_put_send_ioctx(io);

	io = progress_cmd(test, ch, p);
	first = srpt_chain_rw_ctxs(ch, io, NULL, &rsp);
	KUNIT_EXPECT_EQ(test, progress_signaled(test, ch, first, &rsp,
						p->n * p->wrs), mask);
	last = &io->rw_ctxs[p->n - 1].rw.map.wrs[p->wrs - 1].wr;
	KUNIT_EXPECT_FALSE(test, last->send_flags & IB_SEND_SIGNALED);
	srpt_put_send_ioctx(io);
}

/*
 * Eight 384 KiB descriptors of three 128 KiB work requests each: work
 * requests 7 and 15 end at 1 and 2 MiB; the 24th ends at 3 MiB, but it
 * is the command's last.
 */
static void srpt_test_chain_rw_ctxs(struct kunit *test)
{
	const struct progress_shape p = { 8, 3, 1, SZ_128K, false };

	progress_expect(test, &p, BIT_ULL(7) | BIT_ULL(15));
}

/*
 * One direct 16 MiB descriptor of 64 work requests of two 128 KiB entries:
 * every fourth is signaled, 15 in all (the 64th is the command's last).
 * One 4 MiB descriptor in memory regions of 1 MiB: the READs after the
 * first three registrations, never a registration.
 */
static void srpt_test_chain_rw_ctxs_one_desc(struct kunit *test)
{
	const struct progress_shape direct = { 1, 64, 2, SZ_128K, false };
	const struct progress_shape mr = { 1, 8, 1, SZ_1M, true };
	u64 mask = 0;
	int i;

	for (i = 3; i < 63; i += 4)
		mask |= BIT_ULL(i);
	progress_expect(test, &direct, mask);
	progress_expect(test, &mr, BIT_ULL(1) | BIT_ULL(3) | BIT_ULL(5));
}

/*
 * Commands with nothing to signal before their last work request: 255
 * descriptors of 4 KiB (less than a MiB), two of 512 KiB (the MiB ends
 * with the last work request), one 64 MiB work request.
 */
static void srpt_test_chain_rw_ctxs_unchanged(struct kunit *test)
{
	static const struct progress_shape shapes[] = {
		{ SRPT_MAX_DESCS, 1, 1, SZ_4K, false },
		{ 2, 2, 1, SZ_256K, false },
		{ 1, 1, 1, SZ_64M, false },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++)
		progress_expect(test, &shapes[i], 0);
}

/* A command without transfers: the chain is the response alone. */
static void srpt_test_chain_rw_ctxs_none(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 2);
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);
	struct ib_send_wr rsp = {};

	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_EXPECT_PTR_EQ(test, srpt_chain_rw_ctxs(ch, io, NULL, &rsp), &rsp);
	KUNIT_EXPECT_FALSE(test, rsp.send_flags & IB_SEND_SIGNALED);
	srpt_put_send_ioctx(io);
}

/*
 * A progress completion is progress; a flushed one is not and changes
 * nothing; a failed one is not either, and closes the channel.
 */
static void srpt_test_progress_done(struct kunit *test)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 2);
	struct ib_wc wc = {
		.wr_cqe = &ch->progress_cqe,
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = ch->qp,
	};
	const unsigned long old = jiffies - 10 * HZ;

	ch->sq_progress = old;
	srpt_progress_done(ch->cq, &wc);
	KUNIT_EXPECT_EQ(test, ch->sq_progress, old);
	KUNIT_EXPECT_EQ(test, ch->state, CH_LIVE);
	wc.status = IB_WC_SUCCESS;
	srpt_progress_done(ch->cq, &wc);
	KUNIT_EXPECT_TRUE(test, time_after(ch->sq_progress, old));

	ch->sq_progress = old;
	wc.status = IB_WC_REM_ACCESS_ERR;
	srpt_progress_done(ch->cq, &wc);
	KUNIT_EXPECT_EQ(test, ch->sq_progress, old);
	KUNIT_EXPECT_EQ(test, ch->state, CH_DRAINING);
	KUNIT_EXPECT_EQ(test, srpt_fake.qp_state, IB_QPS_ERR);
}

KUNIT_DEFINE_ACTION_WRAPPER(srpt_test_cancel_dwork, cancel_delayed_work_sync,
			    struct delayed_work *);

/*
 * A live channel joined for @req, with @used of its 64 send-queue slots in
 * use and its last send-queue progress @idle jiffies ago.
 */
static struct srpt_rdma_ch *hw_pending_ch(struct kunit *test,
					  struct srpt_tpg *stpg,
					  struct se_node_acl *acl,
					  const struct srp_login_req *req,
					  int used, unsigned long idle)
{
	struct srpt_rdma_ch *ch = join_ch(test, stpg, acl);

	KUNIT_EXPECT_EQ(test, join(test, ch, req),
			SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	ch->sq_size = 64;
	ch->sq_wr_avail = 64 - used;
	ch->sq_progress = jiffies - idle;
	return ch;
}

/*
 * The port's check closes, once, the live channel that has had work out
 * and no completion for max_hw_pending_time, and counts it: not a busy
 * channel with a recent completion, an idle one, one whose login is still
 * being answered, one that is not live yet; and none while the attribute
 * is 0.
 */
static void srpt_test_hw_pending_work(struct kunit *test)
{
	struct srpt_port *sport = test_ch_sport(test);
	struct srpt_tpg *stpg = kunit_kzalloc(test, sizeof(*stpg), GFP_KERNEL);
	struct se_node_acl *acl = kunit_kzalloc(test, sizeof(*acl), GFP_KERNEL);
	struct srp_login_req *multi = login_ext(test, 1, true);
	struct srpt_rdma_ch *stuck, *busy, *idle, *login, *connecting;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, stpg);
	KUNIT_ASSERT_NOT_NULL(test, acl);
	INIT_DELAYED_WORK(&sport->hw_pending_work, srpt_hw_pending_work);
	ret = kunit_add_action_or_reset(test, srpt_test_cancel_dwork,
					&sport->hw_pending_work);
	KUNIT_ASSERT_EQ(test, ret, 0);
	sport->port_attrib.max_hw_pending_time = 2;

	stuck = hw_pending_ch(test, stpg, acl, multi, 4, 3 * HZ);
	busy = hw_pending_ch(test, stpg, acl, multi, 4, HZ);
	idle = hw_pending_ch(test, stpg, acl, multi, 0, 3 * HZ);
	login = hw_pending_ch(test, stpg, acl, multi, 4, 3 * HZ);
	login->login_busy = true;
	connecting = hw_pending_ch(test, stpg, acl, multi, 4, 3 * HZ);
	connecting->state = CH_CONNECTING;

	srpt_hw_pending_work(&sport->hw_pending_work.work);
	KUNIT_EXPECT_EQ(test, stuck->state, CH_DRAINING);
	KUNIT_EXPECT_EQ(test, busy->state, CH_LIVE);
	KUNIT_EXPECT_EQ(test, idle->state, CH_LIVE);
	KUNIT_EXPECT_EQ(test, login->state, CH_LIVE);
	KUNIT_EXPECT_EQ(test, connecting->state, CH_CONNECTING);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sport->stuck_closed), 1);
	/* Live channels are left: it looks again. */
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&sport->hw_pending_work));

	srpt_hw_pending_work(&sport->hw_pending_work.work);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sport->stuck_closed), 1);

	sport->port_attrib.max_hw_pending_time = 0;
	busy->sq_progress -= 10 * HZ;
	srpt_hw_pending_work(&sport->hw_pending_work.work);
	KUNIT_EXPECT_EQ(test, busy->state, CH_LIVE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sport->stuck_closed), 1);
}

/* ---- comp_v_mask: the attribute and the vector of a new channel ---- */

/**
 * struct comp_v_parse_case - a write of comp_v_mask
 * @name: case name in the report
 * @in: the text written
 * @ret: what srpt_parse_comp_v_mask() returns
 * @lo: bits 0 to 63 of the mask when @ret is 0
 * @hi: bits 64 to 127 of the mask when @ret is 0 (none above)
 */
struct comp_v_parse_case {
	const char *name;
	const char *in;
	int ret;
	u64 lo;
	u64 hi;
};

static const struct comp_v_parse_case comp_v_parse_cases[] = {
	{ "vector-0", "0x1", 0, 0x1 },
	{ "vector-1-newline", "0x2\n", 0, 0x2 },
	{ "both", "0x3", 0, 0x3 },
	{ "upper-X", "0X3", 0, 0x3 },
	{ "upper-digits", "0xAbC", 0, 0xabc },
	{ "leading-zeros", "0x0001", 0, 0x1 },
	{ "64-vectors", "0xffffffffffffffff\n", 0, ~0ULL },
	{ "vector-64", "0x10000000000000000", 0, 0, 0x1 },
	{ "vectors-3-and-100", "0x10000000000000000000000008", 0, 0x8,
	  1ULL << 36 },
	{ "zero", "0x0", -EINVAL },
	{ "zeros", "0x0000\n", -EINVAL },
	{ "empty", "", -EINVAL },
	{ "newline", "\n", -EINVAL },
	{ "bare-0x", "0x", -EINVAL },
	{ "bare-0x-newline", "0x\n", -EINVAL },
	{ "no-0x", "3", -EINVAL },
	{ "no-0x-hex", "ff", -EINVAL },
	{ "decimal-0", "0", -EINVAL },
	{ "not-hex", "0xg", -EINVAL },
	{ "junk-after", "0x1z", -EINVAL },
	{ "trailing-space", "0x1 ", -EINVAL },
	{ "leading-space", " 0x1", -EINVAL },
	{ "two-newlines", "0x1\n\n", -EINVAL },
	{ "minus", "-0x1", -EINVAL },
	{ "minus-digits", "0x-1", -EINVAL },
	{ "comma-groups", "0x1,00000001", -EINVAL },
	{ "double-0x", "0x0x1", -EINVAL },
	{ "list", "0-1", -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(comp_v_parse, comp_v_parse_cases, name);

/* "0x" and hex digits, bit i for vector i; a mask of 0 and junk: -EINVAL. */
static void srpt_test_comp_v_parse(struct kunit *test)
{
	const struct comp_v_parse_case *c = test->param_value;
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	int ret = srpt_parse_comp_v_mask(c->in, mask);

	KUNIT_ASSERT_EQ_MSG(test, ret, c->ret, "\"%s\"", c->in);
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, (u64)bitmap_read(mask, 0, 32) |
			(u64)bitmap_read(mask, 32, 32) << 32, c->lo);
	KUNIT_EXPECT_EQ(test, (u64)bitmap_read(mask, 64, 32) |
			(u64)bitmap_read(mask, 96, 32) << 32, c->hi);
	KUNIT_EXPECT_GE(test, find_next_bit(mask, SRPT_COMP_V_BITS, 128),
			(unsigned long)SRPT_COMP_V_BITS);
}

/**
 * parse_long() - srpt_parse_comp_v_mask() of "0x", a digit, zeros and a tail
 * @test: the test
 * @digit: the first digit
 * @zeros: zeros that follow it
 * @tail: the end, for example "\n"
 * @mask: the parsed mask
 *
 * Return: what srpt_parse_comp_v_mask() returns.
 */
static int parse_long(struct kunit *test, char digit, int zeros,
		      const char *tail, unsigned long *mask)
{
	size_t tlen = strlen(tail);
	char *t = kunit_kzalloc(test, zeros + tlen + 4, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t[0] = '0';
	t[1] = 'x';
	t[2] = digit;
	memset(t + 3, '0', zeros);
	memcpy(t + 3 + zeros, tail, tlen);
	return srpt_parse_comp_v_mask(t, mask);
}

/*
 * The mask ends at vector 1023 (SRPT_COMP_V_BITS): a bit beyond is
 * -EINVAL, however the number is spelt; leading zeros are not.
 */
static void srpt_test_comp_v_parse_long(struct kunit *test)
{
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	const int top = SRPT_COMP_V_BITS / 4 - 1;

	KUNIT_EXPECT_EQ(test, parse_long(test, '8', top, "\n", mask), 0);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mask, SRPT_COMP_V_BITS), 1);
	KUNIT_EXPECT_TRUE(test, test_bit(SRPT_COMP_V_BITS - 1, mask));

	KUNIT_EXPECT_EQ(test, parse_long(test, '1', top + 1, "", mask),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, parse_long(test, 'f', top + 100, "", mask),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, parse_long(test, '0', 3000, "2\n", mask), 0);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mask, SRPT_COMP_V_BITS), 1);
	KUNIT_EXPECT_TRUE(test, test_bit(1, mask));
}

/*
 * What comp_v_mask shows: "0x", lowercase digits without leading zeros,
 * a newline; written back it is the same mask (targetcli saves and
 * restores every attribute that way).
 */
static void srpt_test_comp_v_format(struct kunit *test)
{
	static const char *const texts[] = {
		"0x1\n", "0x2\n", "0x3\n", "0x10\n", "0xabc\n",
		"0xffffffffffffffff\n", "0x10000000000000000\n",
	};
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	DECLARE_BITMAP(back, SRPT_COMP_V_BITS);
	char *buf = kunit_kzalloc(test, SRPT_COMP_V_TEXT_LEN, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(texts); i++) {
		KUNIT_ASSERT_EQ(test, srpt_parse_comp_v_mask(texts[i], mask), 0);
		KUNIT_EXPECT_EQ(test, srpt_format_comp_v_mask(mask, buf),
				(int)strlen(texts[i]));
		KUNIT_EXPECT_STREQ(test, buf, texts[i]);
	}

	/* The widest mask fills the buffer exactly and reads back. */
	bitmap_fill(mask, SRPT_COMP_V_BITS);
	KUNIT_EXPECT_EQ(test, srpt_format_comp_v_mask(mask, buf),
			SRPT_COMP_V_TEXT_LEN - 1);
	KUNIT_EXPECT_STREQ(test, buf + SRPT_COMP_V_TEXT_LEN - 3, "f\n");
	KUNIT_ASSERT_EQ(test, srpt_parse_comp_v_mask(buf, back), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(mask, back, SRPT_COMP_V_BITS));

	bitmap_zero(mask, SRPT_COMP_V_BITS);
	__set_bit(SRPT_COMP_V_BITS - 1, mask);
	__set_bit(5, mask);
	srpt_format_comp_v_mask(mask, buf);
	KUNIT_ASSERT_EQ(test, srpt_parse_comp_v_mask(buf, back), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(mask, back, SRPT_COMP_V_BITS));
}

/**
 * pick_seq() - the vectors srpt_pick_comp_vector() picks for seq 0..n-1
 * @mask_lo: bits 0 to 63 of the mask
 * @nvec: vectors of the device
 * @first: seq of the first pick
 * @n: picks, at most 8
 * @out: the picks
 */
static void pick_seq(u64 mask_lo, u32 nvec, u32 first, int n, u32 *out)
{
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	int i;

	bitmap_zero(mask, SRPT_COMP_V_BITS);
	bitmap_write(mask, lower_32_bits(mask_lo), 0, 32);
	bitmap_write(mask, upper_32_bits(mask_lo), 32, 32);
	for (i = 0; i < n; i++)
		out[i] = srpt_pick_comp_vector(mask, nvec, first + i);
}

/*
 * New channels take the allowed vectors of the device in turn; with none
 * of them allowed (fewer vectors than when the mask was set), all.
 */
static void srpt_test_pick_comp_vector(struct kunit *test)
{
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	u32 v[8];

	pick_seq(0x1, 2, 0, 4, v);
	KUNIT_EXPECT_EQ(test, v[0] | v[1] | v[2] | v[3], 0);
	pick_seq(0x2, 2, 0, 4, v);
	KUNIT_EXPECT_EQ(test, v[0] & v[1] & v[2] & v[3], 1);
	pick_seq(0x3, 2, 7, 4, v);
	KUNIT_EXPECT_EQ(test, v[0], 1);
	KUNIT_EXPECT_EQ(test, v[1], 0);
	KUNIT_EXPECT_EQ(test, v[2], 1);
	KUNIT_EXPECT_EQ(test, v[3], 0);
	/* Vectors 1, 2 and 4 of 8; bit 9 is beyond the device. */
	pick_seq(0x216, 8, 0, 6, v);
	KUNIT_EXPECT_EQ(test, v[0], 1);
	KUNIT_EXPECT_EQ(test, v[1], 2);
	KUNIT_EXPECT_EQ(test, v[2], 4);
	KUNIT_EXPECT_EQ(test, v[3], 1);
	KUNIT_EXPECT_EQ(test, v[4], 2);
	KUNIT_EXPECT_EQ(test, v[5], 4);
	/* Only vector 2 allowed, the device has 2: both take turns. */
	pick_seq(0x4, 2, 0, 4, v);
	KUNIT_EXPECT_EQ(test, v[0], 0);
	KUNIT_EXPECT_EQ(test, v[1], 1);
	KUNIT_EXPECT_EQ(test, v[2], 0);
	KUNIT_EXPECT_EQ(test, v[3], 1);
	/* The sequence number wraps around. */
	pick_seq(0x3, 2, U32_MAX, 2, v);
	KUNIT_EXPECT_EQ(test, v[0], 1);
	KUNIT_EXPECT_EQ(test, v[1], 0);
	/* One vector: always 0. */
	pick_seq(~0ULL, 1, 5, 3, v);
	KUNIT_EXPECT_EQ(test, v[0] | v[1] | v[2], 0);

	bitmap_fill(mask, SRPT_COMP_V_BITS);
	KUNIT_EXPECT_EQ(test, srpt_pick_comp_vector(mask, SRPT_COMP_V_BITS,
						    SRPT_COMP_V_BITS - 1),
			SRPT_COMP_V_BITS - 1);
	bitmap_zero(mask, SRPT_COMP_V_BITS);
	__set_bit(SRPT_COMP_V_BITS - 1, mask);
	KUNIT_EXPECT_EQ(test, srpt_pick_comp_vector(mask, SRPT_COMP_V_BITS, 3),
			SRPT_COMP_V_BITS - 1);
}

/*
 * Each port takes its own turns: with channels logging in to the two ports
 * of a device alternately, each port's channels still spread over the
 * vectors its mask allows. (One count per device gave port 1 only the even
 * turns: all its channels on vector 0 of two.)
 */
static void srpt_test_next_comp_vector(struct kunit *test)
{
	struct srpt_device *sdev;
	struct srpt_port *p1, *p2;
	u32 v1[4], v2[4];
	int i;

	sdev = kunit_kzalloc(test, struct_size(sdev, port, 2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	sdev->device = test_sport(test)->sdev->device;
	sdev->port_cnt = 2;
	p1 = &sdev->port[0];
	p2 = &sdev->port[1];
	for (i = 0; i < 2; i++) {
		sdev->port[i].sdev = sdev;
		sdev->port[i].port = i + 1;
		spin_lock_init(&sdev->port[i].comp_v_lock);
		bitmap_set(sdev->port[i].port_attrib.comp_v_mask, 0, 2);
	}
	for (i = 0; i < 4; i++) {
		v1[i] = srpt_next_comp_vector(p1, 2);
		v2[i] = srpt_next_comp_vector(p2, 2);
	}
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ_MSG(test, v1[i], i % 2, "port 1, channel %d", i);
		KUNIT_EXPECT_EQ_MSG(test, v2[i], i % 2, "port 2, channel %d", i);
	}

	/* Only vector 1 on port 2: port 1 keeps taking turns. */
	bitmap_zero(p2->port_attrib.comp_v_mask, SRPT_COMP_V_BITS);
	__set_bit(1, p2->port_attrib.comp_v_mask);
	for (i = 0; i < 4; i++) {
		v1[i] = srpt_next_comp_vector(p1, 2);
		v2[i] = srpt_next_comp_vector(p2, 2);
	}
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ_MSG(test, v1[i], i % 2, "port 1, channel %d", i);
		KUNIT_EXPECT_EQ_MSG(test, v2[i], 1, "port 2, channel %d", i);
	}
}

/*
 * Every parsed mask is taken, also one without a vector of the device (a
 * value saved on a machine with more of them must restore); bits beyond
 * the device's vectors are kept as written and what is shown is taken
 * back. The return value says whether a vector in use is allowed.
 */
static void srpt_test_set_comp_v_mask(struct kunit *test)
{
	struct srpt_port *sport = test_sport(test);
	DECLARE_BITMAP(mask, SRPT_COMP_V_BITS);
	char *buf = kunit_kzalloc(test, SRPT_COMP_V_TEXT_LEN, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	spin_lock_init(&sport->comp_v_lock);
	sport->sdev->device->num_comp_vectors = 1;
	bitmap_zero(sport->port_attrib.comp_v_mask, SRPT_COMP_V_BITS);
	__set_bit(0, sport->port_attrib.comp_v_mask);

	KUNIT_ASSERT_EQ(test, srpt_parse_comp_v_mask("0x6", mask), 0);
	KUNIT_EXPECT_FALSE(test, srpt_set_comp_v_mask(sport, mask));
	srpt_format_comp_v_mask(sport->port_attrib.comp_v_mask, buf);
	KUNIT_EXPECT_STREQ(test, buf, "0x6\n");
	/* What it shows is taken back, whatever vectors the device has. */
	KUNIT_ASSERT_EQ(test, srpt_parse_comp_v_mask(buf, mask), 0);
	KUNIT_EXPECT_FALSE(test, srpt_set_comp_v_mask(sport, mask));
	KUNIT_EXPECT_EQ(test, srpt_pick_comp_vector(sport->port_attrib.comp_v_mask,
						    1, 3), 0);

	KUNIT_ASSERT_EQ(test, srpt_parse_comp_v_mask("0xf", mask), 0);
	KUNIT_EXPECT_TRUE(test, srpt_set_comp_v_mask(sport, mask));
	srpt_format_comp_v_mask(sport->port_attrib.comp_v_mask, buf);
	KUNIT_EXPECT_STREQ(test, buf, "0xf\n");

	/* The widest mask, the default, round-trips too. */
	bitmap_fill(mask, SRPT_COMP_V_BITS);
	KUNIT_EXPECT_TRUE(test, srpt_set_comp_v_mask(sport, mask));
	srpt_format_comp_v_mask(sport->port_attrib.comp_v_mask, buf);
	KUNIT_ASSERT_EQ(test, srpt_parse_comp_v_mask(buf, mask), 0);
	KUNIT_EXPECT_TRUE(test, srpt_set_comp_v_mask(sport, mask));
	KUNIT_EXPECT_TRUE(test, bitmap_full(sport->port_attrib.comp_v_mask,
					    SRPT_COMP_V_BITS));
	KUNIT_EXPECT_EQ(test, srpt_comp_vectors(sport->sdev->device), 1);

	/* No vectors reported: the CQ pool still has vector 0. */
	sport->sdev->device->num_comp_vectors = 0;
	KUNIT_EXPECT_EQ(test, srpt_comp_vectors(sport->sdev->device), 1);
	/* Never more than the online CPUs (ib_cq_pool_get()). */
	sport->sdev->device->num_comp_vectors = 100000;
	KUNIT_EXPECT_EQ(test, srpt_comp_vectors(sport->sdev->device),
			min_t(u32, num_online_cpus(), SRPT_COMP_V_BITS));
}

/* LIO's delayed work, as srpt_end_task_attr() schedules it: counts runs. */
static atomic_t srpt_test_delayed_runs;

static void srpt_test_delayed_work(struct work_struct *w)
{
	atomic_inc(&srpt_test_delayed_runs);
}

/*
 * A command LIO aborted after it had started to run leaves LIO's task
 * attribute accounting once, and only when LIO left it there; the delayed
 * commands are restarted when there are any.
 */
static void srpt_test_end_task_attr(struct kunit *test)
{
	struct se_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct se_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	spin_lock_init(&dev->delayed_cmd_lock);
	INIT_WORK(&dev->delayed_cmd_work, srpt_test_delayed_work);
	atomic_set(&srpt_test_delayed_runs, 0);
	cmd->se_dev = dev;

	/* SIMPLE and HEAD OF QUEUE: the running count drops, once. */
	atomic_set(&dev->non_ordered, 2);
	cmd->sam_task_attr = TCM_SIMPLE_TAG;
	cmd->se_cmd_flags = SCF_TASK_ATTR_SET | SCF_ACK_KREF;
	srpt_end_task_attr(cmd);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->non_ordered), 1);
	KUNIT_EXPECT_EQ(test, cmd->se_cmd_flags, SCF_ACK_KREF);
	srpt_end_task_attr(cmd);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->non_ordered), 1);
	cmd->sam_task_attr = TCM_HEAD_TAG;
	cmd->se_cmd_flags = SCF_TASK_ATTR_SET;
	srpt_end_task_attr(cmd);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->non_ordered), 0);
	flush_work(&dev->delayed_cmd_work);
	KUNIT_EXPECT_EQ(test, atomic_read(&srpt_test_delayed_runs), 0);

	/* ORDERED: the mark goes and the delayed commands are restarted. */
	dev->ordered_sync_in_progress = true;
	atomic_set(&dev->delayed_cmd_count, 1);
	cmd->sam_task_attr = TCM_ORDERED_TAG;
	cmd->se_cmd_flags = SCF_TASK_ATTR_SET;
	srpt_end_task_attr(cmd);
	flush_work(&dev->delayed_cmd_work);
	KUNIT_EXPECT_FALSE(test, dev->ordered_sync_in_progress);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->non_ordered), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&srpt_test_delayed_runs), 1);

	/* LIO took the command off itself (flag clear): nothing changes. */
	dev->ordered_sync_in_progress = true;
	cmd->se_cmd_flags = 0;
	srpt_end_task_attr(cmd);
	flush_work(&dev->delayed_cmd_work);
	KUNIT_EXPECT_TRUE(test, dev->ordered_sync_in_progress);
	KUNIT_EXPECT_EQ(test, atomic_read(&srpt_test_delayed_runs), 1);
	atomic_set(&dev->non_ordered, 1);
	cmd->sam_task_attr = TCM_SIMPLE_TAG;
	srpt_end_task_attr(cmd);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->non_ordered), 1);

	/* A command without a device (refused before LUN lookup). */
	cmd->se_dev = NULL;
	cmd->se_cmd_flags = SCF_TASK_ATTR_SET;
	srpt_end_task_attr(cmd);
	KUNIT_EXPECT_EQ(test, cmd->se_cmd_flags, SCF_TASK_ATTR_SET);
}

static struct kunit_case srpt_credit_test_cases[] = {
	KUNIT_CASE(srpt_test_close_during_login),
	KUNIT_CASE(srpt_test_login_end_without_close),
	KUNIT_CASE(srpt_test_join_nexus),
	KUNIT_CASE(srpt_test_join_nexus_single_alone),
	KUNIT_CASE_PARAM(srpt_test_iu_uses_credit, iu_credit_gen_params),
	KUNIT_CASE(srpt_test_credit_use_login_grant),
	KUNIT_CASE(srpt_test_credit_use_after_delta),
	KUNIT_CASE(srpt_test_credit_use_long_run),
	KUNIT_CASE(srpt_test_sq_release_iterative),
	KUNIT_CASE(srpt_test_cred_req_when_idle),
	KUNIT_CASE(srpt_test_cred_req_not_after_close),
	KUNIT_CASE(srpt_test_ignored_ius_credits_returned),
	KUNIT_CASE(srpt_test_short_tsk_mgmt_credits_returned),
	KUNIT_CASE(srpt_test_logout_credit_free),
	KUNIT_CASE(srpt_test_wait_list_restarted_by_put),
	KUNIT_CASE(srpt_test_rdma_read_only_live),
	KUNIT_CASE(srpt_test_rsp_post_error_closes),
	KUNIT_CASE(srpt_test_rtu_closing_channel),
	KUNIT_CASE(srpt_test_rtu_processes_waiting_ius),
	KUNIT_CASE(srpt_test_rtu_live_not_pending),
	KUNIT_CASE(srpt_test_cm_ended_not_pending),
	KUNIT_CASE(srpt_test_wait_rtu_until_rtu),
	KUNIT_CASE(srpt_test_wait_rtu_bounded),
	KUNIT_CASE(srpt_test_iu_after_close_given_back),
	KUNIT_CASE(srpt_test_hw_pending_parse),
	KUNIT_CASE(srpt_test_sq_progress),
	KUNIT_CASE(srpt_test_hw_pending_work),
	KUNIT_CASE_PARAM(srpt_test_comp_v_parse, comp_v_parse_gen_params),
	KUNIT_CASE(srpt_test_comp_v_parse_long),
	KUNIT_CASE(srpt_test_comp_v_format),
	KUNIT_CASE(srpt_test_pick_comp_vector),
	KUNIT_CASE(srpt_test_next_comp_vector),
	KUNIT_CASE(srpt_test_set_comp_v_mask),
	KUNIT_CASE_PARAM(srpt_test_wr_progress, progress_gen_params),
	KUNIT_CASE(srpt_test_chain_rw_ctxs),
	KUNIT_CASE(srpt_test_chain_rw_ctxs_one_desc),
	KUNIT_CASE(srpt_test_chain_rw_ctxs_unchanged),
	KUNIT_CASE(srpt_test_chain_rw_ctxs_none),
	KUNIT_CASE(srpt_test_progress_done),
	KUNIT_CASE(srpt_test_end_task_attr),
	{}
};

static struct kunit_suite srpt_credit_test_suite = {
	.name = "ib_srpt_credit",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_credit_test_cases,
};

kunit_test_suite(srpt_credit_test_suite);

/*
 * ABORT TASK SET and CLEAR TASK SET on the fake channels above: which
 * commands a function marks, when it goes to LIO, and what becomes of a
 * marked command's response. LIO is a stand-in (tsk_fake_lio()) that
 * answers at once; the tests mark and release the contexts as
 * srpt_handle_task_set() and LIO would.
 */

/* Stand-ins for two logical units; only compared. */
static const struct se_device *const tsk_lu_a = (void *)&srpt_fake;
static const struct se_device *const tsk_lu_b = (void *)&srpt_fake.sent[1];

/* What tsk_fake_lio() saw and does. */
static struct {
	int n_submit;		/* functions handed to it */
	int n_sent_then;	/* srpt_fake.n_send at the first of them */
	int fail;		/* its return value */
} tsk_lio;

/* LIO stand-in for srpt_tsk_submit(): answers at once, as LIO 6.12 does. */
static int tsk_fake_lio(struct srpt_tsk_wait *w)
{
	if (!tsk_lio.n_submit++)
		tsk_lio.n_sent_then = srpt_fake.n_send;
	if (tsk_lio.fail)
		return tsk_lio.fail;
	srpt_queue_tm_rsp(&w->tmf->cmd);
	return 0;
}

static void tsk_exit(struct kunit *test)
{
	srpt_tsk_submit_hook = NULL;
	srpt_test_exit(test);
}

/* A fake channel of @n contexts with its ring, on a port ready for them. */
static struct srpt_rdma_ch *tsk_ch(struct kunit *test, int n)
{
	struct srpt_rdma_ch *ch = fake_ch(test, n);
	struct srpt_send_ioctx *io;
	struct srpt_port *sport = ch->sport;
	int i = 0;

	if (!srpt_tsk_wq)
		kunit_skip(test, "no srpt_tsk_wq: the module did not initialize");
	memset(&tsk_lio, 0, sizeof(tsk_lio));
	srpt_tsk_submit_hook = tsk_fake_lio;
	mutex_init(&sport->mutex);
	INIT_LIST_HEAD(&sport->nexus_list);
	spin_lock_init(&sport->tsk_lock);
	INIT_LIST_HEAD(&sport->tsk_waits);
	ch->ioctx_ring = kunit_kcalloc(test, n, sizeof(*ch->ioctx_ring),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch->ioctx_ring);
	list_for_each_entry(io, &ch->free_list, free_list)
		ch->ioctx_ring[i++] = io;
	return ch;
}

/* A SCSI command of logical unit @lu, as srpt_handle_cmd() leaves it. */
static struct srpt_send_ioctx *tsk_cmd(struct kunit *test,
				       struct srpt_rdma_ch *ch,
				       const struct se_device *lu, u64 tag)
{
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);

	KUNIT_ASSERT_NOT_NULL(test, io);
	io->tag = tag;
	io->lu = lu;
	/* As srpt_handle_cmd() publishes it to srpt_tsk_mark_ch(). */
	smp_store_release(&io->abortable, true);
	return io;
}

/* A task-set function as srpt_handle_tsk_mgmt() leaves it, and LIO's TMR. */
static struct srpt_send_ioctx *tsk_tmf(struct kunit *test,
				       struct srpt_rdma_ch *ch, u64 tag)
{
	struct srpt_send_ioctx *io = srpt_get_send_ioctx(ch);
	struct se_tmr_req *tmr = kunit_kzalloc(test, sizeof(*tmr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_ASSERT_NOT_NULL(test, tmr);
	tmr->function = TMR_ABORT_TASK_SET;
	/* LIO's answer to the function. */
	tmr->response = TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED;
	io->tag = tag;
	io->cmd.se_tmr_req = tmr;
	io->cmd.se_cmd_flags = SCF_SCSI_TMR_CDB;
	srpt_set_cmd_state(io, SRPT_STATE_MGMT);
	return io;
}

/* Starts a wait for @tmf on @ch, as srpt_handle_task_set() does. */
static struct srpt_tsk_wait *tsk_wait(struct kunit *test,
				      struct srpt_rdma_ch *ch,
				      struct srpt_send_ioctx *tmf)
{
	struct srpt_tsk_wait *w = srpt_tsk_wait_alloc(ch, tmf,
						      SRP_TSK_ABORT_TASK_SET,
						      0);

	KUNIT_ASSERT_NOT_NULL(test, w);
	return w;
}

/* Marks for @tmf as srpt_handle_task_set() does. */
static struct srpt_tsk_wait *tsk_start(struct kunit *test,
				       struct srpt_rdma_ch *ch,
				       struct srpt_send_ioctx *tmf,
				       const struct se_device *lu)
{
	struct srpt_tsk_wait *w = tsk_wait(test, ch, tmf);

	srpt_tsk_mark(ch, w, lu, false, false);
	srpt_tsk_wait_put(w);
	return w;
}

/* The task management response code of send @i, after the queued work. */
static int tsk_sent_code(struct kunit *test, int i, u64 tag)
{
	struct srp_rsp *rsp;

	KUNIT_EXPECT_LT(test, i, srpt_fake.n_send);
	if (i >= srpt_fake.n_send)
		return -1;
	rsp = srpt_fake.sent[i]->ioctx.buf;
	KUNIT_EXPECT_EQ(test, rsp->opcode, SRP_RSP);
	KUNIT_EXPECT_EQ(test, rsp->tag, tag);
	KUNIT_EXPECT_EQ(test, rsp->flags & SRP_RSP_FLAG_RSPVALID,
			SRP_RSP_FLAG_RSPVALID);
	return rsp->data[3];
}

static void srpt_test_tsk_idle_answered(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 4);
	struct srpt_send_ioctx *other = tsk_cmd(test, ch, tsk_lu_b, 1);
	struct srpt_send_ioctx *tmf = tsk_tmf(test, ch, 0x77);

	tsk_start(test, ch, tmf, tsk_lu_a);
	KUNIT_EXPECT_NULL(test, other->abort_by);
	/* Nothing to wait for: LIO gets it, its "not supported" is sent. */
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, tsk_lio.n_submit, 1);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 1);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 0, 0x77),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_EQ(test, tmf->state, SRPT_STATE_MGMT_RSP_SENT);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->sport->tsk_waits));
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->tsk_held), 0);
}

/*
 * LIO does not see the function while it waits for a marked command: a
 * LIO TMR would sit in the device's TMR list, which a LOGICAL UNIT RESET
 * or PREEMPT AND ABORT waits for without a timeout.
 */
static void srpt_test_tsk_waits_for_marked(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 5);
	struct srpt_send_ioctx *a1 = tsk_cmd(test, ch, tsk_lu_a, 1);
	struct srpt_send_ioctx *a2 = tsk_cmd(test, ch, tsk_lu_a, 2);
	struct srpt_send_ioctx *b = tsk_cmd(test, ch, tsk_lu_b, 3);
	struct srpt_send_ioctx *tmf = tsk_tmf(test, ch, 0x78);
	struct srpt_tsk_wait *w = tsk_start(test, ch, tmf, tsk_lu_a);

	KUNIT_EXPECT_PTR_EQ(test, a1->abort_by, w);
	KUNIT_EXPECT_PTR_EQ(test, a2->abort_by, w);
	KUNIT_EXPECT_NULL(test, b->abort_by);
	KUNIT_EXPECT_NULL(test, tmf->abort_by);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->tsk_held), 1);
	srpt_put_send_ioctx(a1);
	srpt_put_send_ioctx(b);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, tsk_lio.n_submit, 0);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	/* The last marked command is released: now LIO gets it. */
	srpt_put_send_ioctx(a2);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, tsk_lio.n_submit, 1);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 1);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 0, 0x78),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->tsk_held), 0);
	/* The contexts went back unmarked. */
	KUNIT_EXPECT_NULL(test, a1->abort_by);
	KUNIT_EXPECT_FALSE(test, a2->abortable);
}

static void srpt_test_tsk_lun_gone(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 3);
	struct srpt_send_ioctx *a = tsk_cmd(test, ch, tsk_lu_a, 1);
	struct srpt_send_ioctx *tmf = tsk_tmf(test, ch, 0x79);

	tsk_start(test, ch, tmf, tsk_lu_a);
	/* The LUN was removed while the function waited: the work is done. */
	tmf->cmd.se_tmr_req->response = TMR_LUN_DOES_NOT_EXIST;
	srpt_put_send_ioctx(a);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 1);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 0, 0x79),
			SRPT_TSK_MGMT_COMPLETE);
	/* Any other failure stays one. */
	KUNIT_EXPECT_EQ(test, srpt_tmr_rsp_code(TMR_FUNCTION_REJECTED, true),
			SRPT_TSK_MGMT_FUNC_NOT_SUPP);
	KUNIT_EXPECT_EQ(test, srpt_tmr_rsp_code(TMR_LUN_DOES_NOT_EXIST, false),
			SRPT_TSK_MGMT_FAILED);
}

static void srpt_test_tsk_ordered(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 4);
	struct srpt_send_ioctx *a = tsk_cmd(test, ch, tsk_lu_a, 1);
	struct srpt_send_ioctx *t1 = tsk_tmf(test, ch, 0x81);
	struct srpt_send_ioctx *t2 = tsk_tmf(test, ch, 0x82);
	struct srpt_tsk_wait *w1 = tsk_start(test, ch, t1, tsk_lu_a);
	struct srpt_tsk_wait *w2 = tsk_start(test, ch, t2, tsk_lu_a);

	/* The command stays with the first function; the second follows it. */
	KUNIT_EXPECT_PTR_EQ(test, a->abort_by, w1);
	KUNIT_EXPECT_TRUE(test, w2->ordered);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	srpt_put_send_ioctx(a);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 2);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 0, 0x81),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 1, 0x82),
			SRPT_TSK_MGMT_COMPLETE);
}

/*
 * An ordered function waits only for earlier functions of its own logical
 * unit: another logical unit's stalled command does not hold it back.
 */
static void srpt_test_tsk_ordered_same_lu(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 6);
	struct srpt_send_ioctx *a = tsk_cmd(test, ch, tsk_lu_a, 1);
	struct srpt_send_ioctx *b = tsk_cmd(test, ch, tsk_lu_b, 2);
	struct srpt_send_ioctx *ta = tsk_tmf(test, ch, 0x83);
	struct srpt_send_ioctx *tb1 = tsk_tmf(test, ch, 0x84);
	struct srpt_send_ioctx *tb2 = tsk_tmf(test, ch, 0x85);
	struct srpt_tsk_wait *wb2;

	tsk_start(test, ch, ta, tsk_lu_a);
	tsk_start(test, ch, tb1, tsk_lu_b);
	wb2 = tsk_start(test, ch, tb2, tsk_lu_b);
	KUNIT_EXPECT_TRUE(test, wb2->ordered);
	/* @a stays: lu_a's function waits, lu_b's two go in their order. */
	srpt_put_send_ioctx(b);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 2);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 0, 0x84),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 1, 0x85),
			SRPT_TSK_MGMT_COMPLETE);
	srpt_put_send_ioctx(a);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 3);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 2, 0x83),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->sport->tsk_waits));
}

/*
 * LIO has no memory for the function once its commands are released: the
 * driver has carried it out, so it is answered FUNCTION COMPLETE on its
 * tag, and its context goes back when that response was sent.
 */
static void srpt_test_tsk_lio_refuses(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 3);
	struct srpt_send_ioctx *a = tsk_cmd(test, ch, tsk_lu_a, 1);
	struct srpt_send_ioctx *tmf = tsk_tmf(test, ch, 0x7a);

	tsk_start(test, ch, tmf, tsk_lu_a);
	tsk_lio.fail = -ENOMEM;
	srpt_put_send_ioctx(a);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, tsk_lio.n_submit, 1);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 1);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 0, 0x7a),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->sport->tsk_waits));
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->tsk_held), 0);
	KUNIT_EXPECT_EQ(test, ch->n_free, 2);
	srpt_sq_release(ch, tmf->sq_wr_held, true);
	srpt_send_finished(tmf);
	KUNIT_EXPECT_EQ(test, ch->n_free, 3);
}

/* The session stops while the function waits: nothing is sent. */
static void srpt_test_tsk_lio_refuses_closing(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 3);
	struct srpt_send_ioctx *a = tsk_cmd(test, ch, tsk_lu_a, 1);
	struct srpt_send_ioctx *tmf = tsk_tmf(test, ch, 0x7c);

	tsk_start(test, ch, tmf, tsk_lu_a);
	tsk_lio.fail = -ESHUTDOWN;
	ch->state = CH_DISCONNECTING;
	srpt_put_send_ioctx(a);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, tsk_lio.n_submit, 1);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->sport->tsk_waits));
	KUNIT_EXPECT_EQ(test, ch->n_free, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->tsk_held), 0);
}

static void srpt_test_tsk_may_hold(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, SRPT_TSK_MAX_HELD + 2);
	struct srpt_send_ioctx *a = tsk_cmd(test, ch, tsk_lu_a, 1);
	int i;

	for (i = 0; i < SRPT_TSK_MAX_HELD; i++) {
		KUNIT_EXPECT_TRUE(test, srpt_tsk_may_hold(ch));
		tsk_start(test, ch, tsk_tmf(test, ch, 0x100 + i), tsk_lu_a);
	}
	KUNIT_EXPECT_FALSE(test, srpt_tsk_may_hold(ch));
	srpt_put_send_ioctx(a);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, SRPT_TSK_MAX_HELD);
	KUNIT_EXPECT_TRUE(test, srpt_tsk_may_hold(ch));
}

static void srpt_test_tsk_withhold(struct kunit *test)
{
	struct srpt_rdma_ch *ch = tsk_ch(test, 3);
	struct srpt_send_ioctx *a = tsk_cmd(test, ch, tsk_lu_a, 1);
	struct srpt_send_ioctx *tmf = tsk_tmf(test, ch, 0x7b);
	struct se_cmd *cmd = &a->cmd;
	u8 cdb[6] = { TEST_UNIT_READY };

	tsk_start(test, ch, tmf, tsk_lu_a);
	cmd->t_task_cdb = cdb;
	/* Marked: no response, whatever its status. */
	cmd->scsi_status = SAM_STAT_GOOD;
	KUNIT_EXPECT_TRUE(test, srpt_tsk_withhold(a));
	scsi_build_sense_buffer(0, a->sense_data, NOT_READY, 0x04, 0x00);
	cmd->scsi_status = SAM_STAT_CHECK_CONDITION;
	cmd->scsi_sense_length = 18;
	KUNIT_EXPECT_TRUE(test, srpt_tsk_withhold(a));
	/* A unit attention LIO has cleared is reported. */
	scsi_build_sense_buffer(0, a->sense_data, UNIT_ATTENTION, 0x29, 0x03);
	KUNIT_EXPECT_FALSE(test, srpt_tsk_withhold(a));
	scsi_build_sense_buffer(1, a->sense_data, UNIT_ATTENTION, 0x29, 0x03);
	KUNIT_EXPECT_FALSE(test, srpt_tsk_withhold(a));
	/* So is the sense data REQUEST SENSE returns. */
	cmd->scsi_status = SAM_STAT_GOOD;
	cdb[0] = REQUEST_SENSE;
	KUNIT_EXPECT_FALSE(test, srpt_tsk_withhold(a));
	cdb[0] = TEST_UNIT_READY;
	/* Another I_T nexus's command, TAS set: TASK ABORTED, no data. */
	a->abort_tas = true;
	cmd->se_cmd_flags |= SCF_UNDERFLOW_BIT;
	cmd->residual_count = 512;
	KUNIT_EXPECT_FALSE(test, srpt_tsk_withhold(a));
	KUNIT_EXPECT_EQ(test, cmd->scsi_status, SAM_STAT_TASK_ABORTED);
	KUNIT_EXPECT_TRUE(test, a->status_only);
	KUNIT_EXPECT_EQ(test, cmd->residual_count, 0);
	KUNIT_EXPECT_FALSE(test, cmd->se_cmd_flags & SCF_UNDERFLOW_BIT);
	/* Released: neither mark nor TAS is left for the context's next use. */
	cmd->scsi_status = SAM_STAT_GOOD;
	srpt_put_send_ioctx(a);
	KUNIT_EXPECT_NULL(test, a->abort_by);
	KUNIT_EXPECT_FALSE(test, a->abort_tas);
	KUNIT_EXPECT_FALSE(test, srpt_tsk_withhold(a));
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 1);
}

/* Puts @ch into @nexus, as srpt_join_nexus() does (nacl: only tested). */
static void tsk_join(struct srpt_nexus *nexus, struct srpt_rdma_ch *ch)
{
	ch->nexus = nexus;
	ch->nacl = (void *)nexus;
	list_add_tail(&ch->list, &nexus->ch_list);
}

static void srpt_test_tsk_scope(struct kunit *test)
{
	struct srpt_rdma_ch *ch0 = tsk_ch(test, 4);
	struct srpt_rdma_ch *ch1 = tsk_ch(test, 2);
	struct srpt_rdma_ch *ch2 = tsk_ch(test, 1);
	struct srpt_port *sport = ch0->sport;
	struct srpt_nexus *n1, *n2;
	struct srpt_send_ioctx *c0, *c1, *c1b, *c2, *t1, *t2;
	struct srpt_tsk_wait *w1, *w2;

	n1 = kunit_kzalloc(test, sizeof(*n1), GFP_KERNEL);
	n2 = kunit_kzalloc(test, sizeof(*n2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n1);
	KUNIT_ASSERT_NOT_NULL(test, n2);
	INIT_LIST_HEAD(&n1->ch_list);
	INIT_LIST_HEAD(&n2->ch_list);
	list_add_tail(&n1->entry, &sport->nexus_list);
	list_add_tail(&n2->entry, &sport->nexus_list);
	tsk_join(n1, ch0);
	tsk_join(n1, ch1);
	tsk_join(n2, ch2);
	c0 = tsk_cmd(test, ch0, tsk_lu_a, 1);
	c1 = tsk_cmd(test, ch1, tsk_lu_a, 2);
	c1b = tsk_cmd(test, ch1, tsk_lu_b, 3);
	c2 = tsk_cmd(test, ch2, tsk_lu_a, 4);
	t1 = tsk_tmf(test, ch0, 0x91);
	t2 = tsk_tmf(test, ch0, 0x92);

	/* ABORT TASK SET: every channel of the nexus, no other nexus. */
	w1 = tsk_wait(test, ch0, t1);
	srpt_tsk_mark(ch0, w1, tsk_lu_a, false, true);
	srpt_tsk_wait_put(w1);
	KUNIT_EXPECT_PTR_EQ(test, c0->abort_by, w1);
	KUNIT_EXPECT_PTR_EQ(test, c1->abort_by, w1);
	KUNIT_EXPECT_FALSE(test, c1->abort_tas);
	KUNIT_EXPECT_NULL(test, c1b->abort_by);
	KUNIT_EXPECT_NULL(test, c2->abort_by);

	/* CLEAR TASK SET: the other nexus too, TASK ABORTED there (TAS). */
	t2->cmd.se_tmr_req->function = TMR_CLEAR_TASK_SET;
	w2 = tsk_wait(test, ch0, t2);
	srpt_tsk_mark(ch0, w2, tsk_lu_a, true, true);
	srpt_tsk_wait_put(w2);
	KUNIT_EXPECT_PTR_EQ(test, c2->abort_by, w2);
	KUNIT_EXPECT_TRUE(test, c2->abort_tas);
	KUNIT_EXPECT_PTR_EQ(test, c1->abort_by, w1);
	KUNIT_EXPECT_TRUE(test, w2->ordered);

	srpt_put_send_ioctx(c2);
	srpt_put_send_ioctx(c1b);
	srpt_put_send_ioctx(c0);
	flush_workqueue(srpt_tsk_wq);
	/* The second waits for the first, which waits for c1. */
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	srpt_put_send_ioctx(c1);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_ASSERT_EQ(test, srpt_fake.n_send, 2);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 0, 0x91),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_EQ(test, tsk_sent_code(test, 1, 0x92),
			SRPT_TSK_MGMT_COMPLETE);
	KUNIT_EXPECT_TRUE(test, list_empty(&sport->tsk_waits));
}

/*
 * A channel in release keeps its commands in the task set until its rings
 * are freed: its ACL is forgotten first, while LIO may still run them.
 */
static void srpt_test_tsk_closing_channel(struct kunit *test)
{
	struct srpt_rdma_ch *ch0 = tsk_ch(test, 2);
	struct srpt_rdma_ch *ch1 = tsk_ch(test, 2);
	struct srpt_port *sport = ch0->sport;
	struct srpt_send_ioctx *c1, *t1, *t2;
	struct srpt_tsk_wait *w1, *w2;
	struct srpt_nexus *n;

	n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	INIT_LIST_HEAD(&n->ch_list);
	list_add_tail(&n->entry, &sport->nexus_list);
	tsk_join(n, ch0);
	tsk_join(n, ch1);
	c1 = tsk_cmd(test, ch1, tsk_lu_a, 1);
	t1 = tsk_tmf(test, ch0, 0x93);
	t2 = tsk_tmf(test, ch0, 0x94);
	/* As srpt_ch_forget_acl() leaves it. */
	ch1->nacl = NULL;
	w1 = tsk_wait(test, ch0, t1);
	srpt_tsk_mark(ch0, w1, tsk_lu_a, false, false);
	srpt_tsk_wait_put(w1);
	KUNIT_EXPECT_PTR_EQ(test, c1->abort_by, w1);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	srpt_put_send_ioctx(c1);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 1);
	/* Its rings are going: not looked at any more. */
	c1 = tsk_cmd(test, ch1, tsk_lu_a, 2);
	srpt_ch_rings_gone(ch1);
	KUNIT_EXPECT_TRUE(test, ch1->rings_gone);
	w2 = tsk_wait(test, ch0, t2);
	srpt_tsk_mark(ch0, w2, tsk_lu_a, false, false);
	srpt_tsk_wait_put(w2);
	KUNIT_EXPECT_NULL(test, c1->abort_by);
	flush_workqueue(srpt_tsk_wq);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 2);
	srpt_put_send_ioctx(c1);
}

static struct kunit_case srpt_tmf_test_cases[] = {
	KUNIT_CASE(srpt_test_tsk_idle_answered),
	KUNIT_CASE(srpt_test_tsk_waits_for_marked),
	KUNIT_CASE(srpt_test_tsk_lun_gone),
	KUNIT_CASE(srpt_test_tsk_ordered),
	KUNIT_CASE(srpt_test_tsk_ordered_same_lu),
	KUNIT_CASE(srpt_test_tsk_lio_refuses),
	KUNIT_CASE(srpt_test_tsk_lio_refuses_closing),
	KUNIT_CASE(srpt_test_tsk_may_hold),
	KUNIT_CASE(srpt_test_tsk_withhold),
	KUNIT_CASE(srpt_test_tsk_scope),
	KUNIT_CASE(srpt_test_tsk_closing_channel),
	{}
};

static struct kunit_suite srpt_tmf_test_suite = {
	.name = "ib_srpt_tmf",
	.init = srpt_test_init,
	.exit = tsk_exit,
	.test_cases = srpt_tmf_test_cases,
};

kunit_test_suite(srpt_tmf_test_suite);

/*
 * The connection managers' entry points. The name and login request of an
 * RDMA/CM connection request are pure functions, tested byte by byte. The
 * event handlers are run on the fake channels above, with an IB/CM or
 * RDMA/CM ID that belongs to no connection: a fake one where the handler
 * only reads its context, else a real, idle one from ib_create_cm_id() or
 * rdma_create_id() on which every CM call (REJ, DREP, DREQ, QP attributes)
 * fails with -EINVAL and sends nothing.
 */

/* ---- srpt_rdma_cm_src_name() ---- */

/**
 * struct src_name_case - an initiator address and its name
 * @label: case name
 * @family: AF_INET or AF_INET6
 * @addr: the address, as in4_pton()/in6_pton() read it
 * @scope: sin6_scope_id
 * @name: the expected name
 */
struct src_name_case {
	const char *label;
	sa_family_t family;
	const char *addr;
	u32 scope;
	const char *name;
};

static const struct src_name_case src_name_cases[] = {
	{ "ipv4", AF_INET, "192.0.2.1", 0, "192.0.2.1" },
	{ "ipv4-broadcast", AF_INET, "255.255.255.255", 0,
	  "255.255.255.255" },
	{ "ipv4-any", AF_INET, "0.0.0.0", 0, "0.0.0.0" },
	{ "ipv6-global", AF_INET6, "2001:db8::1", 0,
	  "2001:0db8:0000:0000:0000:0000:0000:0001" },
	{ "ipv6-loopback", AF_INET6, "::1", 0,
	  "0000:0000:0000:0000:0000:0000:0000:0001" },
	{ "ipv6-link-local-scope-dropped", AF_INET6, "fe80::2c9:300:a1:b2c3",
	  3, "fe80:0000:0000:0000:02c9:0300:00a1:b2c3" },
	{ "ipv6-longest-fits", AF_INET6,
	  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 0,
	  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
	{ "v4-mapped", AF_INET6, "::ffff:192.0.2.1", 0, "192.0.2.1" },
	{ "v4-mapped-any", AF_INET6, "::ffff:0.0.0.0", 0, "0.0.0.0" },
	{ "v4-compatible-is-ipv6", AF_INET6, "::c000:201", 0,
	  "0000:0000:0000:0000:0000:0000:c000:0201" },
	{ "nat64-is-ipv6", AF_INET6, "64:ff9b::c000:201", 0,
	  "0064:ff9b:0000:0000:0000:0000:c000:0201" },
};

KUNIT_ARRAY_PARAM_DESC(src_name, src_name_cases, label);

/* A sockaddr_storage holding @c's address, the rest of it garbage. */
static struct sockaddr_storage *src_sockaddr(struct kunit *test,
					     const struct src_name_case *c)
{
	struct sockaddr_storage *ss = kunit_kmalloc(test, sizeof(*ss),
						    GFP_KERNEL);
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	KUNIT_ASSERT_NOT_NULL(test, ss);
	memset(ss, 0x5a, sizeof(*ss));
	ss->ss_family = c->family;
	if (c->family == AF_INET) {
		KUNIT_ASSERT_EQ(test, in4_pton(c->addr, -1,
					       (u8 *)&sin->sin_addr, -1, NULL),
				1);
	} else {
		KUNIT_ASSERT_EQ(test, in6_pton(c->addr, -1,
					       sin6->sin6_addr.s6_addr, -1,
					       NULL), 1);
		sin6->sin6_scope_id = c->scope;
	}
	return ss;
}

/*
 * An IPv6 initiator is named by its full address, without its scope; an
 * IPv4 one, also behind an IPv4-mapped IPv6 address, in dotted quads. The
 * longest name fits the handlers' 40-byte buffer.
 */
static void srpt_test_rdma_cm_src_name(struct kunit *test)
{
	const struct src_name_case *c = test->param_value;
	struct sockaddr_storage *ss = src_sockaddr(test, c);
	char name[40];

	memset(name, 'x', sizeof(name));
	srpt_rdma_cm_src_name(name, sizeof(name), (struct sockaddr *)ss);
	KUNIT_EXPECT_STREQ(test, name, c->name);
}

/* ---- srpt_rdma_cm_login_req() ---- */

/**
 * struct pd_case - RDMA/CM private data of a login
 * @label: case name
 * @null: no private data (the pointer is NULL)
 * @len: private_data_len
 */
struct pd_case {
	const char *label;
	bool null;
	u8 len;
};

static const struct pd_case pd_cases[] = {
	{ "null", true, 0 },
	{ "null-with-length", true, sizeof(struct srp_login_req_rdma) },
	{ "empty", false, 0 },
	{ "half-tag", false, 4 },
	{ "up-to-opcode", false, 12 },
	{ "cut-in-initiator-port-id", false, 24 },
	{ "cut-in-target-port-id", false, 40 },
	{ "cut-in-imm-data-offset", false, 49 },
	{ "no-reserved-bytes", false, 50 },
	{ "full", false, sizeof(struct srp_login_req_rdma) },
	{ "longer-than-the-struct", false, 255 },
};

KUNIT_ARRAY_PARAM_DESC(pd, pd_cases, label);

/*
 * Where each field of struct srp_login_req comes from in struct
 * srp_login_req_rdma, spelt out apart from the code under test.
 */
static const struct {
	size_t out;
	size_t in;
	size_t len;
} pd_fields[] = {
	{ offsetof(struct srp_login_req, opcode),
	  offsetof(struct srp_login_req_rdma, opcode), 1 },
	{ offsetof(struct srp_login_req, tag),
	  offsetof(struct srp_login_req_rdma, tag), 8 },
	{ offsetof(struct srp_login_req, req_it_iu_len),
	  offsetof(struct srp_login_req_rdma, req_it_iu_len), 4 },
	{ offsetof(struct srp_login_req, req_buf_fmt),
	  offsetof(struct srp_login_req_rdma, req_buf_fmt), 2 },
	{ offsetof(struct srp_login_req, req_flags),
	  offsetof(struct srp_login_req_rdma, req_flags), 1 },
	{ offsetof(struct srp_login_req, imm_data_offset),
	  offsetof(struct srp_login_req_rdma, imm_data_offset), 2 },
	{ offsetof(struct srp_login_req, initiator_port_id),
	  offsetof(struct srp_login_req_rdma, initiator_port_id), 16 },
	{ offsetof(struct srp_login_req, target_port_id),
	  offsetof(struct srp_login_req_rdma, target_port_id), 16 },
};

/*
 * The private data is 255 bytes whose byte i is i + 1: every field of the
 * login request must hold the bytes the initiator sent (zero beyond
 * private_data_len, nothing from beyond the struct), every other byte of
 * it zero, whatever it held before.
 */
static void srpt_test_rdma_cm_login_req(struct kunit *test)
{
	const struct pd_case *c = test->param_value;
	u8 *data = kunit_kmalloc(test, 255, GFP_KERNEL);
	u8 *want = kunit_kzalloc(test, sizeof(struct srp_login_req),
				 GFP_KERNEL);
	struct srp_login_req *req = kunit_kmalloc(test, sizeof(*req),
						  GFP_KERNEL);
	size_t f, i;

	BUILD_BUG_ON(sizeof(struct srp_login_req_rdma) != 56);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, req);
	for (i = 0; i < 255; i++)
		data[i] = i + 1;
	for (f = 0; f < ARRAY_SIZE(pd_fields); f++)
		for (i = 0; i < pd_fields[f].len; i++)
			if (!c->null && pd_fields[f].in + i < c->len)
				want[pd_fields[f].out + i] =
					data[pd_fields[f].in + i];
	memset(req, 0xa5, sizeof(*req));
	srpt_rdma_cm_login_req(req, c->null ? NULL : data, c->len);
	KUNIT_EXPECT_MEMEQ(test, req, want, sizeof(*req));
}

/*
 * A full request reaches srpt_check_login() intact: the login of
 * good_login(), sent over RDMA/CM, is accepted.
 */
static void srpt_test_rdma_cm_login_req_accepted(struct kunit *test)
{
	const struct srp_login_req *good = good_login(test);
	struct srp_login_req_rdma rdma = {
		.tag = 0x0123456789abcdefULL,
		.req_buf_fmt = good->req_buf_fmt,
		.req_flags = SRP_MULTICHAN_MULTI,
		.opcode = SRP_LOGIN_REQ,
		.req_it_iu_len = good->req_it_iu_len,
		.imm_data_offset = cpu_to_be16(80),
	};
	struct srp_login_req req;

	memcpy(rdma.initiator_port_id, good->initiator_port_id, 16);
	memcpy(rdma.target_port_id, good->target_port_id, 16);
	srpt_rdma_cm_login_req(&req, &rdma, sizeof(rdma));
	KUNIT_EXPECT_EQ(test, srpt_check_login(&req, true), 0);
	KUNIT_EXPECT_EQ(test, req.tag, 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, req.req_flags, SRP_MULTICHAN_MULTI);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(req.imm_data_offset), 80);
}

/* ---- srpt_cm_handler(): IB/CM events ---- */

KUNIT_DEFINE_ACTION_WRAPPER(srpt_test_destroy_ib_cm_id, ib_destroy_cm_id,
			    struct ib_cm_id *);

/* An idle IB/CM ID with @context, destroyed at the end of the test. */
static struct ib_cm_id *idle_ib_cm_id(struct kunit *test, void *context)
{
	struct srpt_test_ctx *ctx = test->priv;
	struct ib_cm_id *cm_id;

	cm_id = ib_create_cm_id(ctx->ibdev, srpt_cm_handler, context);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cm_id);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test,
						  srpt_test_destroy_ib_cm_id,
						  cm_id), 0);
	return cm_id;
}

/**
 * struct cm_event_case - a connection manager event on a channel waiting
 *	for its RTU
 * @label: case name
 * @event: the event (enum ib_cm_event_type or enum rdma_cm_event_type)
 * @closes: whether the event ends the connection: closes the channel and
 *	clears its rtu_pending
 */
struct cm_event_case {
	const char *label;
	int event;
	bool closes;
};

static const struct cm_event_case ib_cm_event_cases[] = {
	{ "dreq", IB_CM_DREQ_RECEIVED, true },
	{ "dreq-error", IB_CM_DREQ_ERROR, true },
	{ "timewait-exit", IB_CM_TIMEWAIT_EXIT, true },
	{ "rep-error", IB_CM_REP_ERROR, true },
	{ "rej", IB_CM_REJ_RECEIVED, true },
	{ "drep", IB_CM_DREP_RECEIVED, false },
	{ "mra", IB_CM_MRA_RECEIVED, false },
	{ "lap", IB_CM_LAP_RECEIVED, false },
	{ "apr", IB_CM_APR_RECEIVED, false },
	{ "req-error", IB_CM_REQ_ERROR, false },
	{ "sidr-req", IB_CM_SIDR_REQ_RECEIVED, false },
};

KUNIT_ARRAY_PARAM_DESC(ib_cm_event, ib_cm_event_cases, label);

/*
 * The fake adapter's record of a close (QP in error, zero-length write),
 * and no RTU left to wait for.
 */
static void expect_closed(struct kunit *test, struct srpt_rdma_ch *ch)
{
	KUNIT_EXPECT_EQ(test, ch->state, CH_DRAINING);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_modify, 1);
	KUNIT_EXPECT_EQ(test, srpt_fake.qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 1);
	KUNIT_EXPECT_FALSE(test, ch->rtu_pending);
}

/* Nothing done to @ch, which is still in @state and waits for its RTU. */
static void expect_untouched(struct kunit *test, struct srpt_rdma_ch *ch,
			     enum srpt_ch_state state)
{
	KUNIT_EXPECT_EQ(test, ch->state, state);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_modify, 0);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 0);
	KUNIT_EXPECT_TRUE(test, ch->rtu_pending);
}

/*
 * A channel whose login response is out: CONNECTING, its RTU pending, on
 * an idle connection @cm_id (its DREQ and REJ fail and send nothing).
 */
static struct srpt_rdma_ch *answered_ch(struct kunit *test,
					struct ib_cm_id *cm_id)
{
	struct srpt_rdma_ch *ch = fake_ch(test, 1);

	ch->using_rdma_cm = !cm_id;
	ch->ib_cm_id = cm_id;
	ch->state = CH_CONNECTING;
	ch->rtu_pending = true;
	return ch;
}

/*
 * The IB/CM events that end a connection close the channel of a login
 * that has been answered (QP to the error state, the zero-length write
 * posted) and end its release's wait for the RTU; the others leave it
 * alone. A second ending event changes nothing more.
 */
static void srpt_test_ib_cm_event(struct kunit *test)
{
	const struct cm_event_case *c = test->param_value;
	struct ib_cm_id *cm_id = idle_ib_cm_id(test, NULL);
	struct srpt_rdma_ch *ch = answered_ch(test, cm_id);
	struct ib_cm_event ev = { .event = c->event };
	struct ib_cm_event again = { .event = IB_CM_TIMEWAIT_EXIT };

	cm_id->context = ch;
	KUNIT_EXPECT_EQ(test, srpt_cm_handler(cm_id, &ev), 0);
	if (!c->closes) {
		expect_untouched(test, ch, CH_CONNECTING);
		return;
	}
	expect_closed(test, ch);
	KUNIT_EXPECT_EQ(test, srpt_cm_handler(cm_id, &again), 0);
	expect_closed(test, ch);
}

/*
 * An RTU (or an established connection) of a channel that is live already
 * or closing changes nothing but the wait for it, which ends.
 */
static void srpt_test_ib_cm_rtu_not_connecting(struct kunit *test)
{
	static const enum ib_cm_event_type events[] = {
		IB_CM_RTU_RECEIVED, IB_CM_USER_ESTABLISHED,
	};
	static const enum srpt_ch_state states[] = {
		CH_LIVE, CH_DISCONNECTING, CH_DRAINING, CH_DISCONNECTED,
	};
	unsigned int e, s;

	for (e = 0; e < ARRAY_SIZE(events); e++) {
		for (s = 0; s < ARRAY_SIZE(states); s++) {
			struct ib_cm_id *cm_id = idle_ib_cm_id(test, NULL);
			struct srpt_rdma_ch *ch = answered_ch(test, cm_id);
			struct ib_cm_event ev = { .event = events[e] };

			cm_id->context = ch;
			ch->state = states[s];
			KUNIT_EXPECT_EQ(test, srpt_cm_handler(cm_id, &ev), 0);
			KUNIT_EXPECT_EQ(test, ch->state, states[s]);
			KUNIT_EXPECT_EQ(test, srpt_fake.n_modify, 0);
			KUNIT_EXPECT_EQ(test, srpt_fake.n_send, 0);
			KUNIT_EXPECT_FALSE(test, ch->rtu_pending);
			KUNIT_EXPECT_FALSE(test, ch->rtu_busy);
		}
	}
}

/*
 * An RTU of a connecting IB/CM channel moves its QP to RTS with the
 * attributes IB/CM gives; a connection that has none (idle here) cannot
 * be made ready, and the channel is closed instead of going live. Its
 * release does not wait for another RTU.
 */
static void srpt_test_ib_cm_rtu_without_attrs(struct kunit *test)
{
	struct ib_cm_id *cm_id = idle_ib_cm_id(test, NULL);
	struct srpt_rdma_ch *ch = answered_ch(test, cm_id);
	struct ib_cm_event ev = { .event = IB_CM_RTU_RECEIVED };

	cm_id->context = ch;
	KUNIT_EXPECT_EQ(test, srpt_cm_handler(cm_id, &ev), 0);
	expect_closed(test, ch);
	KUNIT_EXPECT_FALSE(test, ch->rtu_busy);
}

/*
 * An IB/CM REQ of login request @req on port @port to the fake HCA, with
 * the new idle IB/CM ID in *@cm_idp. Return: what srpt_cm_handler() did.
 */
static int ib_cm_req(struct kunit *test, u32 port, const void *req,
		     struct ib_cm_id **cm_idp)
{
	struct srpt_test_ctx *ctx = test->priv;
	struct sa_path_rec *path = kunit_kzalloc(test, sizeof(*path),
						 GFP_KERNEL);
	u8 *pd = kunit_kzalloc(test, IB_CM_REQ_PRIVATE_DATA_SIZE, GFP_KERNEL);
	struct ib_cm_event ev = { .event = IB_CM_REQ_RECEIVED };

	KUNIT_ASSERT_NOT_NULL(test, path);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	/* IB/CM zero-fills the private data to its full size. */
	memcpy(pd, req, sizeof(struct srp_login_req));
	path->dgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	path->dgid.global.interface_id = cpu_to_be64(SRPT_TEST_GUID + 1);
	path->pkey = cpu_to_be16(0xffff);
	ev.param.req_rcvd.port = port;
	ev.param.req_rcvd.primary_path = path;
	ev.param.req_rcvd.responder_resources = 4;
	ev.param.req_rcvd.initiator_depth = 4;
	ev.private_data = pd;
	*cm_idp = idle_ib_cm_id(test, ctx->sdev);
	return srpt_cm_handler(*cm_idp, &ev);
}

/* The logins rejected on the fake port, per reason, summed. */
static s64 rejected(struct kunit *test)
{
	struct srpt_port *sport = test_sport(test);
	s64 n = 0;
	int i;

	for (i = 0; i < SRPT_NR_REJ_REASONS; i++)
		n += atomic64_read(&sport->logins_rejected[i]);
	return n;
}

static s64 rejected_for(struct kunit *test, u32 reason)
{
	return atomic64_read(&test_sport(test)->logins_rejected[reason & 0xff]);
}

/*
 * A REQ is a login on the port IB/CM names: on the (disabled) port 1 it is
 * rejected for that and counted there; on a port the HCA does not have it
 * is rejected and counted nowhere. Either way IB/CM is told to destroy
 * the connection, which no longer points at the device.
 */
static void srpt_test_ib_cm_req_rejected(struct kunit *test)
{
	struct ib_cm_id *cm_id;

	KUNIT_EXPECT_EQ(test, ib_cm_req(test, 1, good_login(test), &cm_id),
			-ECONNREFUSED);
	KUNIT_EXPECT_NULL(test, cm_id->context);
	KUNIT_EXPECT_EQ(test,
			rejected_for(test, SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES),
			1);
	KUNIT_EXPECT_EQ(test, rejected(test), 1);

	KUNIT_EXPECT_EQ(test, ib_cm_req(test, 2, good_login(test), &cm_id),
			-ECONNREFUSED);
	KUNIT_EXPECT_NULL(test, cm_id->context);
	KUNIT_EXPECT_EQ(test, rejected(test), 1);
}

/* ---- srpt_rdma_cm_handler(): RDMA/CM events ---- */

static const struct cm_event_case rdma_cm_event_cases[] = {
	{ "disconnected", RDMA_CM_EVENT_DISCONNECTED, true },
	{ "timewait-exit", RDMA_CM_EVENT_TIMEWAIT_EXIT, true },
	{ "unreachable", RDMA_CM_EVENT_UNREACHABLE, true },
	{ "connect-error", RDMA_CM_EVENT_CONNECT_ERROR, true },
	{ "rejected", RDMA_CM_EVENT_REJECTED, true },
	{ "device-removal", RDMA_CM_EVENT_DEVICE_REMOVAL, true },
	{ "addr-change", RDMA_CM_EVENT_ADDR_CHANGE, true },
	{ "addr-resolved", RDMA_CM_EVENT_ADDR_RESOLVED, false },
	{ "route-error", RDMA_CM_EVENT_ROUTE_ERROR, false },
	{ "connect-response", RDMA_CM_EVENT_CONNECT_RESPONSE, false },
	{ "multicast-join", RDMA_CM_EVENT_MULTICAST_JOIN, false },
};

KUNIT_ARRAY_PARAM_DESC(rdma_cm_event, rdma_cm_event_cases, label);

/*
 * As for IB/CM: the events that end an RDMA/CM connection close the
 * channel of an answered login and end the wait for its RTU, once; the
 * others leave it alone. An event for an ID without a channel (a rejected
 * login's) does nothing.
 */
static void srpt_test_rdma_cm_event(struct kunit *test)
{
	const struct cm_event_case *c = test->param_value;
	struct srpt_rdma_ch *ch = answered_ch(test, NULL);
	struct rdma_cm_id *cm_id = kunit_kzalloc(test, sizeof(*cm_id),
						 GFP_KERNEL);
	struct rdma_cm_event ev = { .event = c->event };

	KUNIT_ASSERT_NOT_NULL(test, cm_id);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(cm_id, &ev), 0);
	expect_untouched(test, ch, CH_CONNECTING);
	cm_id->context = ch;
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(cm_id, &ev), 0);
	if (!c->closes) {
		expect_untouched(test, ch, CH_CONNECTING);
		return;
	}
	expect_closed(test, ch);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(cm_id, &ev), 0);
	expect_closed(test, ch);
}

/*
 * ESTABLISHED makes a connecting RDMA/CM channel live without touching its
 * QP (RDMA/CM moved it to RTS), processes the IUs that came first and ends
 * the wait for the RTU; a second one changes nothing.
 */
static void srpt_test_rdma_cm_established(struct kunit *test)
{
	struct srpt_rdma_ch *ch = answered_ch(test, NULL);
	struct srpt_recv_ioctx *r = fake_iu(test, ch, SRP_CRED_RSP, 16);
	struct rdma_cm_id *cm_id = kunit_kzalloc(test, sizeof(*cm_id),
						 GFP_KERNEL);
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ESTABLISHED };

	KUNIT_ASSERT_NOT_NULL(test, cm_id);
	cm_id->context = ch;
	list_add_tail(&r->wait_list, &ch->cmd_wait_list);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(cm_id, &ev), 0);
	KUNIT_EXPECT_EQ(test, ch->state, CH_LIVE);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_modify, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&ch->cmd_wait_list));
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 1);
	KUNIT_EXPECT_FALSE(test, ch->rtu_busy);
	KUNIT_EXPECT_FALSE(test, ch->rtu_pending);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(cm_id, &ev), 0);
	KUNIT_EXPECT_EQ(test, ch->state, CH_LIVE);
	KUNIT_EXPECT_EQ(test, srpt_fake.n_recv, 1);
}

/* A CONNECT_REQUEST from a device srpt does not serve is refused. */
static void srpt_test_rdma_cm_req_unknown_device(struct kunit *test)
{
	struct srpt_test_ctx *ctx = test->priv;
	struct rdma_cm_id *cm_id = kunit_kzalloc(test, sizeof(*cm_id),
						 GFP_KERNEL);
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_CONNECT_REQUEST };
	void *mark = &ev;

	KUNIT_ASSERT_NOT_NULL(test, cm_id);
	cm_id->device = ctx->ibdev;
	cm_id->port_num = 1;
	cm_id->context = mark;
	cm_id->route.addr.dst_addr.ss_family = AF_INET;
	ev.param.conn.private_data = good_login(test);
	ev.param.conn.private_data_len = sizeof(struct srp_login_req_rdma);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(cm_id, &ev), -ECONNREFUSED);
	KUNIT_EXPECT_PTR_EQ(test, cm_id->context, mark);
	KUNIT_EXPECT_EQ(test, rejected(test), 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(srpt_test_destroy_rdma_cm_id, rdma_destroy_id,
			    struct rdma_cm_id *);

/* Takes the fake HCA off srpt_dev_list again. */
static void srpt_test_unlist(void *data)
{
	struct srpt_device *sdev = data;

	mutex_lock(&srpt_dev_mutex);
	list_del(&sdev->list);
	mutex_unlock(&srpt_dev_mutex);
}

/* Detaches an idle RDMA/CM ID from the fake HCA before it is destroyed. */
static void srpt_test_detach(void *data)
{
	struct rdma_cm_id *cm_id = data;

	cm_id->device = NULL;
}

/*
 * An idle RDMA/CM ID for a CONNECT_REQUEST to the fake HCA, which is on
 * srpt_dev_list for the test; its initiator is 192.0.2.1.
 */
static struct rdma_cm_id *idle_rdma_cm_id(struct kunit *test)
{
	struct srpt_test_ctx *ctx = test->priv;
	struct sockaddr_in *sin;
	struct rdma_cm_id *cm_id;

	cm_id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL,
			       RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cm_id);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test,
						  srpt_test_destroy_rdma_cm_id,
						  cm_id), 0);
	cm_id->device = ctx->ibdev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, srpt_test_detach,
							cm_id), 0);
	cm_id->port_num = 1;
	cm_id->context = ctx->sdev;
	sin = (struct sockaddr_in *)&cm_id->route.addr.dst_addr;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0xc0000201);
	mutex_lock(&srpt_dev_mutex);
	list_add_tail(&ctx->sdev->list, &srpt_dev_list);
	mutex_unlock(&srpt_dev_mutex);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, srpt_test_unlist,
							ctx->sdev), 0);
	return cm_id;
}

/*
 * A login request cut short after its opcode (what iWARP delivers of a
 * short one) is read as zero-filled, as IB/CM delivers it: both are
 * rejected for their zero IU length, whatever follows the private data
 * in memory (here a valid IU length), and the RDMA/CM connection no
 * longer points at the device.
 */
static void srpt_test_rdma_cm_short_req_as_ib_cm(struct kunit *test)
{
	const u32 reason = SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
	struct srp_login_req_rdma *rdma = kunit_kzalloc(test, sizeof(*rdma),
							GFP_KERNEL);
	struct srp_login_req *ib = kunit_kzalloc(test, sizeof(*ib),
						 GFP_KERNEL);
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_CONNECT_REQUEST };
	struct rdma_cm_id *rdma_cm_id;
	struct ib_cm_id *ib_cm_id;

	KUNIT_ASSERT_NOT_NULL(test, rdma);
	KUNIT_ASSERT_NOT_NULL(test, ib);
	rdma->tag = 7;
	rdma->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT);
	rdma->opcode = SRP_LOGIN_REQ;
	rdma->req_it_iu_len = cpu_to_be32(SRPT_TEST_REQ_SIZE);
	ib->tag = 7;
	ib->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT);
	ib->opcode = SRP_LOGIN_REQ;

	KUNIT_EXPECT_EQ(test, ib_cm_req(test, 1, ib, &ib_cm_id),
			-ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, rejected_for(test, reason), 1);

	rdma_cm_id = idle_rdma_cm_id(test);
	ev.param.conn.private_data = rdma;
	ev.param.conn.private_data_len =
		offsetof(struct srp_login_req_rdma, req_it_iu_len);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(rdma_cm_id, &ev),
			-ECONNREFUSED);
	KUNIT_EXPECT_NULL(test, rdma_cm_id->context);
	KUNIT_EXPECT_EQ(test, rejected_for(test, reason), 2);
	KUNIT_EXPECT_EQ(test, rejected(test), 2);
}

/*
 * A full RDMA/CM login request on the disabled port 1 is rejected for
 * that: the request, the port and the device reach the login checks.
 */
static void srpt_test_rdma_cm_req_rejected(struct kunit *test)
{
	const struct srp_login_req *good = good_login(test);
	struct srp_login_req_rdma *rdma = kunit_kzalloc(test, sizeof(*rdma),
							GFP_KERNEL);
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_CONNECT_REQUEST };
	struct rdma_cm_id *cm_id;

	KUNIT_ASSERT_NOT_NULL(test, rdma);
	rdma->opcode = SRP_LOGIN_REQ;
	rdma->req_it_iu_len = good->req_it_iu_len;
	rdma->req_buf_fmt = good->req_buf_fmt;
	memcpy(rdma->initiator_port_id, good->initiator_port_id, 16);
	memcpy(rdma->target_port_id, good->target_port_id, 16);
	cm_id = idle_rdma_cm_id(test);
	ev.param.conn.private_data = rdma;
	ev.param.conn.private_data_len = sizeof(*rdma);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_handler(cm_id, &ev), -ECONNREFUSED);
	KUNIT_EXPECT_NULL(test, cm_id->context);
	KUNIT_EXPECT_EQ(test,
			rejected_for(test, SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES),
			1);
	KUNIT_EXPECT_EQ(test, rejected(test), 1);
}

/* ---- srpt_clamp_qp_attr(): retry limits from the initiator ---- */

/*
 * RNR retry 7 (for ever) and retry count 7 (for ever on soft-RoCE) become 6
 * and ACK timeout 0 (for ever) or above 20 becomes 20; values within the
 * limits and fields outside the mask stay as they are; an alternate path
 * and path migration are dropped from the mask.
 */
static void srpt_test_clamp_qp_attr(struct kunit *test)
{
	const int all = IB_QP_RNR_RETRY | IB_QP_TIMEOUT | IB_QP_RETRY_CNT;
	struct ib_qp_attr a = { .rnr_retry = 7, .timeout = 0, .retry_cnt = 7 };
	int mask = all;

	srpt_clamp_qp_attr(&a, &mask);
	KUNIT_EXPECT_EQ(test, a.rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, a.timeout, 20);
	KUNIT_EXPECT_EQ(test, a.retry_cnt, 6);
	KUNIT_EXPECT_EQ(test, mask, all);

	a = (struct ib_qp_attr){ .rnr_retry = 5, .timeout = 31, .retry_cnt = 5 };
	srpt_clamp_qp_attr(&a, &mask);
	KUNIT_EXPECT_EQ(test, a.rnr_retry, 5);
	KUNIT_EXPECT_EQ(test, a.timeout, 20);
	KUNIT_EXPECT_EQ(test, a.retry_cnt, 5);

	a = (struct ib_qp_attr){ .rnr_retry = 6, .timeout = 14, .retry_cnt = 6 };
	srpt_clamp_qp_attr(&a, &mask);
	KUNIT_EXPECT_EQ(test, a.rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, a.timeout, 14);
	KUNIT_EXPECT_EQ(test, a.retry_cnt, 6);

	a = (struct ib_qp_attr){ .rnr_retry = 7, .timeout = 0, .retry_cnt = 7 };
	mask = IB_QP_STATE;
	srpt_clamp_qp_attr(&a, &mask);
	KUNIT_EXPECT_EQ(test, a.rnr_retry, 7);
	KUNIT_EXPECT_EQ(test, a.timeout, 0);
	KUNIT_EXPECT_EQ(test, a.retry_cnt, 7);

	a = (struct ib_qp_attr){ .alt_timeout = 31 };
	mask = IB_QP_STATE | IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE;
	srpt_clamp_qp_attr(&a, &mask);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_STATE);
}

/* The order in which the fake adapter saw a drain and a destroy. */
static struct {
	int seq;
	int drained;
	int destroyed;
} srpt_fake_teardown;

static void srpt_fake_drain_rq(struct ib_qp *qp)
{
	srpt_fake_teardown.drained = ++srpt_fake_teardown.seq;
}

static int srpt_fake_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	srpt_fake_teardown.destroyed = ++srpt_fake_teardown.seq;
	return 0;
}

/*
 * A QP of the fake adapter that ib_destroy_qp() can take apart: plain
 * kzalloc(), since ib_destroy_qp() frees it.
 */
static struct ib_qp *fake_destroyable_qp(struct kunit *test,
					 struct srpt_rdma_ch *ch)
{
	struct srpt_test_ctx *ctx = test->priv;
	struct ib_qp *qp = kzalloc(sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->device = ctx->ibdev;
	qp->real_qp = qp;
	qp->qp_context = ch;
	spin_lock_init(&qp->mr_lock);
	INIT_LIST_HEAD(&qp->rdma_mrs);
	INIT_LIST_HEAD(&qp->sig_mrs);
	return qp;
}

/*
 * A ring-mode QP with posted receives is drained before it is destroyed:
 * soft-iWARP completes the receives of a destroyed QP with flush errors in
 * the pool CQ, after a refused login has freed the channel and its ring.
 * An SRQ-mode QP has no receives of its own.
 */
static void srpt_test_destroy_ch_ib_drains_ring(struct kunit *test)
{
	struct srpt_test_ctx *ctx = test->priv;
	struct srpt_rdma_ch *ch = test_ch(test);

	ctx->ibdev->ops.drain_rq = srpt_fake_drain_rq;
	ctx->ibdev->ops.destroy_qp = srpt_fake_destroy_qp;

	memset(&srpt_fake_teardown, 0, sizeof(srpt_fake_teardown));
	ch->use_srq = false;
	ch->ring_posted = true;
	ch->qp = fake_destroyable_qp(test, ch);
	srpt_destroy_ch_ib(ch);
	KUNIT_EXPECT_EQ(test, srpt_fake_teardown.drained, 1);
	KUNIT_EXPECT_EQ(test, srpt_fake_teardown.destroyed, 2);
	KUNIT_EXPECT_NULL(test, ch->qp);
	KUNIT_EXPECT_FALSE(test, ch->ring_posted);

	/* Nothing posted yet: the QP may be in RESET, which has no drain. */
	memset(&srpt_fake_teardown, 0, sizeof(srpt_fake_teardown));
	ch->qp = fake_destroyable_qp(test, ch);
	srpt_destroy_ch_ib(ch);
	KUNIT_EXPECT_EQ(test, srpt_fake_teardown.drained, 0);
	KUNIT_EXPECT_EQ(test, srpt_fake_teardown.destroyed, 1);

	memset(&srpt_fake_teardown, 0, sizeof(srpt_fake_teardown));
	ch->use_srq = true;
	ch->qp = fake_destroyable_qp(test, ch);
	srpt_destroy_ch_ib(ch);
	KUNIT_EXPECT_EQ(test, srpt_fake_teardown.drained, 0);
	KUNIT_EXPECT_EQ(test, srpt_fake_teardown.destroyed, 1);
	KUNIT_EXPECT_NULL(test, ch->qp);

	/* Without a QP (its creation failed) nothing is touched. */
	memset(&srpt_fake_teardown, 0, sizeof(srpt_fake_teardown));
	ch->use_srq = false;
	srpt_destroy_ch_ib(ch);
	KUNIT_EXPECT_EQ(test, srpt_fake_teardown.seq, 0);
}

static struct kunit_case srpt_cm_test_cases[] = {
	KUNIT_CASE(srpt_test_clamp_qp_attr),
	KUNIT_CASE_PARAM(srpt_test_rdma_cm_src_name, src_name_gen_params),
	KUNIT_CASE_PARAM(srpt_test_rdma_cm_login_req, pd_gen_params),
	KUNIT_CASE(srpt_test_rdma_cm_login_req_accepted),
	KUNIT_CASE_PARAM(srpt_test_ib_cm_event, ib_cm_event_gen_params),
	KUNIT_CASE(srpt_test_ib_cm_rtu_not_connecting),
	KUNIT_CASE(srpt_test_ib_cm_rtu_without_attrs),
	KUNIT_CASE(srpt_test_ib_cm_req_rejected),
	KUNIT_CASE_PARAM(srpt_test_rdma_cm_event, rdma_cm_event_gen_params),
	KUNIT_CASE(srpt_test_rdma_cm_established),
	KUNIT_CASE(srpt_test_rdma_cm_req_unknown_device),
	KUNIT_CASE(srpt_test_rdma_cm_short_req_as_ib_cm),
	KUNIT_CASE(srpt_test_rdma_cm_req_rejected),
	KUNIT_CASE(srpt_test_destroy_ch_ib_drains_ring),
	{}
};

static struct kunit_suite srpt_cm_test_suite = {
	.name = "ib_srpt_cm",
	.init = srpt_test_init,
	.exit = srpt_test_exit,
	.test_cases = srpt_cm_test_cases,
};

kunit_test_suite(srpt_cm_test_suite);
