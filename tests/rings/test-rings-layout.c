/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings in layouts, and the ring header's overhead: a layout region can
 * declare a ring (slots, slot size, entries per node, notify,
 * back-pressure), gets its size computed from that shape or checked
 * against it, and the ring's consumer table then has rows for the
 * layout's node ids only (format 3): 16 slots of 64 bytes fit a 4 KiB
 * region of an 8-node layout (they needed 19,584 bytes, 11,392 with one
 * entry per node). A ring for all 256 node ids stays format 2, byte for
 * byte; a format this library does not read is refused naming it; the
 * one-writer rule holds (the region's writer creates it, consumers claim
 * entries in their own node's row only).
 */
#include <endian.h>

#include "rfm-cmocka.h"

/* Runs on every backend: `make check` runs it once more on each backend
 * the harness marks for an extra pass (dds:, run-dds-suites.sh). */
HARNESS_SHARED_SUITE(0);

#define WINDOW (1024 * 1024)

struct fixture {
	struct harness_network net;
	rfm_node *prod;	/* node 1: the log region's writer */
	rfm_node *cons;	/* node 2 */
};

#define FIXTURE_NODES(f) ((rfm_node **const[]){ &(f)->prod, &(f)->cons })

static int setup(void **state)
{
	static const int ids[] = { 1, 2 };
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || harness_fixture_nodes(&f->net, WINDOW, ids, FIXTURE_NODES(f), 2)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	harness_fixture_nodes_close(&f->net, FIXTURE_NODES(f), 2);
	free(f);
	return 0;
}

static rfm_layout *load(const char *text, rfm_diag_list **diags)
{
	rfm_layout *layout = NULL;
	int ret = rfm_layout_load_string(text, strlen(text), "rings.yaml", &layout, diags);

	if (!diags)
		assert_rfm_ok(ret);
	return layout;
}

/* The region named @name: its index, filling @info. */
static size_t region(const rfm_layout *layout, const char *name, struct rfm_region_info *info)
{
	for (size_t i = 0; i < rfm_layout_region_count(layout); i++) {
		info->struct_size = sizeof(*info);
		assert_rfm_ok(rfm_layout_region_info(layout, i, info));
		if (!strcmp(info->name, name))
			return i;
	}
	fail_msg("no region %s", name);
	return 0;
}

static uint64_t footprint(uint32_t slot_size, uint32_t slots, uint32_t consumers, uint32_t nodes)
{
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = slot_size,
				     .slot_count = slots, .max_consumers = consumers,
				     .consumer_nodes = nodes };
	uint64_t bytes = 0;

	assert_rfm_ok(rfm_ring_footprint(&c, &bytes));
	return bytes;
}

/* The overhead as documented in ring.h, for the ring. */
static void test_footprints(void **state)
{
	(void)state;
	/* Every node id (format 2, as before): unchanged. */
	assert_int_equal(footprint(64, 16, 0, 0), 19584);
	assert_int_equal(footprint(64, 16, 1, 0), 11392);
	assert_int_equal(footprint(64, 16, 0, 256), 19584);
	/* Eight node ids, one entry each: header, slots, a 64-byte directory, 8 entries. */
	assert_int_equal(footprint(64, 16, 1, 8), 128 + 16 * 128 + 64 + 8 * 32);
	assert_int_equal(footprint(48, 16, 1, 8), 128 + 16 * 64 + 64 + 8 * 32);
	/* 17 node ids need two cache lines of directory. */
	assert_int_equal(footprint(48, 16, 2, 17), 128 + 16 * 64 + 128 + 17 * 2 * 32);
	struct rfm_ring_config bad = { .struct_size = sizeof(bad), .slot_size = 64,
				       .slot_count = 16, .consumer_nodes = 257 };
	uint64_t bytes;
	assert_rfm_code(rfm_ring_footprint(&bad, &bytes), RFM_EINVAL);
	assert_last_error_has("257 consumer nodes");
	/* A caller built before consumer_nodes: its struct ends before it. */
	bad.consumer_nodes = 8;
	bad.struct_size = offsetof(struct rfm_ring_config, consumer_nodes);
	assert_rfm_ok(rfm_ring_footprint(&bad, &bytes));
	assert_int_equal(bytes, 19584);
}

static const char rig[] = "version: 1\n"
			  "window: 1M\n"
			  "nodes: 8\n"
			  "regions:\n"
			  "  - name: sim\n"
			  "    offset: 0\n"
			  "    size: 0x1000\n"
			  "    writer: 1\n"
			  "    variables:\n"
			  "      - { name: speed, type: f64 }\n"
			  "  - name: log\n"
			  "    offset: 0x1000\n"
			  "    writer: 1\n"
			  "    ring: { slots: 16, slot_size: 64, consumers: 1, notify: intr2, id: 9 }\n"
			  "  - name: events\n"
			  "    offset: 0x2000\n"
			  "    size: 0x1000\n"
			  "    writer: 2\n"
			  "    ring: { slots: 16, slot_size: 64, backpressure: true }\n";

static void test_layout_declares_a_ring(void **state)
{
	struct fixture *f = *state;
	rfm_layout *layout = load(rig, NULL);
	struct rfm_region_info ri;
	struct rfm_ring_config c = { .struct_size = sizeof(c) };
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rfm_ring_consumer_view views[4] = { { .struct_size = sizeof(views[0]) } };
	size_t count;
	rfm_ring *r;
	rfm_ring_consumer *cons;

	/* No size given: the ring's, for the layout's 8 node ids. */
	size_t log = region(layout, "log", &ri);
	assert_int_equal(ri.size, 128 + 16 * 128 + 64 + 8 * 32);
	assert_rfm_ok(rfm_layout_region_ring(layout, log, &c));
	assert_int_equal(c.slot_count, 16);
	assert_int_equal(c.slot_size, 64);
	assert_int_equal(c.max_consumers, 1);
	assert_int_equal(c.flags, RFM_RING_F_NOTIFY);
	assert_int_equal(c.notify_type, RFM_EVENT_INTR2);
	assert_int_equal(c.ring_id, 9);
	assert_int_equal(c.consumer_nodes, 8);
	size_t ev = region(layout, "events", &ri);
	assert_int_equal(ri.size, 0x1000);
	assert_rfm_ok(rfm_layout_region_ring(layout, ev, &c));
	assert_int_equal(c.flags, RFM_RING_F_BACKPRESSURE);
	assert_int_equal(c.max_consumers, 0);	/* the default: 2 per node */
	assert_rfm_code(rfm_layout_region_ring(layout, region(layout, "sim", &ri), &c),
			RFM_ENOTFOUND);
	assert_last_error_has("region 'sim' of rings declares no ring");

	/* Created from the declaration, by its writer only. */
	assert_rfm_code(rfm_ring_create_region(f->cons, layout, "log", NULL, &r), RFM_EOWNER);
	assert_rfm_code(rfm_ring_create_region(f->prod, layout, "sim", NULL, &r), RFM_ENOTFOUND);
	assert_rfm_ok(rfm_ring_create_region(f->prod, layout, "log", NULL, &r));
	assert_rfm_ok(rfm_ring_get_info(r, &info));
	assert_int_equal(info.footprint, 128 + 16 * 128 + 64 + 8 * 32);
	assert_int_equal(info.consumer_nodes, 8);
	assert_int_equal(info.notify_type, RFM_EVENT_INTR2);

	/* A consumer of node 2 claims an entry in its own row. */
	assert_rfm_ok(rfm_ring_consumer_open_region(f->cons, layout, "log", 0, &cons));
	uint64_t v = 42;
	struct rfm_ring_msg m;
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	v = 0;
	assert_rfm_ok(rfm_ring_consume(cons, &v, sizeof(v), &m, 0));
	assert_int_equal(v, 42);
	assert_rfm_ok(rfm_ring_inspect_region(f->cons, layout, "log", &info, views, 4, &count));
	assert_int_equal(count, 1);
	assert_int_equal(views[0].node, 2);
	assert_int_equal(info.consumer_nodes, 8);
	rfm_ring_consumer_close(cons);
	rfm_ring_close(r);
	rfm_layout_free(layout);
}

/* A node id past the layout's nodes has no row: refused, saying why. */
static void test_node_without_a_row(void **state)
{
	struct fixture *f = *state;
	rfm_layout *layout = load(rig, NULL);
	rfm_node *far = NULL;
	rfm_ring_consumer *cons;
	rfm_ring *r;

	if (!harness_can(HARNESS_CAP_ANY_NODE_ID)) {
		rfm_layout_free(layout);
		skip();
	}
	assert_rfm_ok(rfm_ring_create_region(f->prod, layout, "log", NULL, &r));
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 9), &far));
	assert_rfm_code(rfm_ring_consumer_open_region(far, layout, "log", 0, &cons), RFM_ENODEID);
	assert_last_error_has("rows for node ids 0..7");
	assert_last_error_has("not for node 9");
	rfm_close(far);
	rfm_ring_close(r);
	rfm_layout_free(layout);
}

/* Little-endian words read byte by byte: the same on every host. */
static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The header as it lies in the window: format 3 names its rows, 2 does not. */
static void test_header_formats(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = 64, .slot_count = 16,
				     .max_consumers = 1, .consumer_nodes = 8 };
	uint8_t *base;
	rfm_ring *r;

	rfm_mem_map(f->prod, (void **)&base, NULL);
	assert_rfm_ok(rfm_ring_create(f->prod, 0x8000, 0x8000, &c, &r));
	rfm_ring_close(r);
	assert_int_equal(base[0x8004] | base[0x8005] << 8, 3);	/* format */
	assert_int_equal(le32_at(base + 0x8000 + 76), 8);	/* consumer_nodes */
	assert_int_equal(le32_at(base + 0x8000 + 56), 2496);	/* footprint */
	c.consumer_nodes = 0;
	assert_rfm_ok(rfm_ring_create(f->prod, 0x8000, 0x8000, &c, &r));
	rfm_ring_close(r);
	assert_int_equal(base[0x8004] | base[0x8005] << 8, 2);
	assert_int_equal(le32_at(base + 0x8000 + 76), 0);
	assert_int_equal(le32_at(base + 0x8000 + 56), 11392);
}

/* Formats it does not read are refused by name, never guessed at. */
static void test_unknown_format_refused(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = 64, .slot_count = 16,
				     .max_consumers = 1, .consumer_nodes = 8 };
	uint8_t *base;
	rfm_ring_consumer *cons;
	rfm_ring *r;

	if (!harness_can(HARNESS_CAP_SEGMENT))
		skip();	/* forging a word of the header is one node's copy elsewhere */
	rfm_mem_map(f->prod, (void **)&base, NULL);
	assert_rfm_ok(rfm_ring_create(f->prod, 0x8000, 0x8000, &c, &r));
	rfm_ring_close(r);
	base[0x8004] = 4;
	assert_rfm_code(rfm_ring_consumer_open(f->cons, 0x8000, 0, &cons), RFM_EVERSION);
	assert_last_error_has("format 4, this library reads formats 2 and 3");
	/* Format 3 with no rows, or all 256 (format 2's job), is damage. */
	base[0x8004] = 3;
	memset(base + 0x8000 + 76, 0, 4);
	assert_rfm_code(rfm_ring_consumer_open(f->cons, 0x8000, 0, &cons), RFM_ECORRUPT);
	base[0x8000 + 77] = 1;	/* 256 */
	assert_rfm_code(rfm_ring_consumer_open(f->cons, 0x8000, 0, &cons), RFM_ECORRUPT);
	assert_last_error_has("consumer node count");
	/* Back to 8, but a footprint that does not match: refused as before. */
	base[0x8000 + 76] = 8;
	base[0x8000 + 77] = 0;
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, 0x8000, 0, &cons));
	rfm_ring_consumer_close(cons);
	base[0x8000 + 76] = 9;
	assert_rfm_code(rfm_ring_consumer_open(f->cons, 0x8000, 0, &cons), RFM_ECORRUPT);
}

static void expect_problem(const char *text, const char *needle, unsigned int line)
{
	rfm_diag_list *diags = NULL;
	struct rfm_diag d = { .struct_size = sizeof(d) };
	rfm_layout *layout = NULL;
	bool found = false;

	assert_rfm_code(rfm_layout_load_string(text, strlen(text), "rings.yaml", &layout, &diags),
			RFM_ELAYOUT);
	assert_null(layout);
	for (size_t i = 0; i < rfm_diag_list_count(diags); i++) {
		assert_rfm_ok(rfm_diag_list_get(diags, i, &d));
		if (strstr(d.text, needle)) {
			found = true;
			assert_int_equal(d.line, line);
		}
	}
	if (!found)
		fail_msg("no problem mentions \"%s\" (first: %s)", needle,
			 rfm_diag_list_count(diags) ? d.text : "none");
	rfm_diag_list_free(diags);
}

static void test_layout_ring_problems(void **state)
{
	(void)state;
	/* The case: a 4 KiB region of a layout for every node id. */
	expect_problem("version: 1\nwindow: 1M\nregions:\n"
		       "  - name: log\n    offset: 0\n    size: 0x1000\n    writer: 1\n"
		       "    ring: { slots: 16, slot_size: 64 }\n",
		       "region 'log' has 4096 bytes; its ring (16 slots of 64 bytes, 2 consumer "
		       "entries for each of node ids 0..255) needs 19584", 6);
	expect_problem("version: 1\nwindow: 1M\nnodes: 4\nregions:\n"
		       "  - name: log\n    offset: 0x20\n    writer: 1\n"
		       "    ring: { slots: 16, slot_size: 64 }\n",
		       "its offset 0x20 must be a multiple of 64", 6);
	expect_problem("version: 1\nwindow: 1M\nnodes: 4\nregions:\n"
		       "  - name: log\n    offset: 0\n    writer: 1\n"
		       "    ring: { slots: 12, slot_size: 64 }\n"
		       "    variables:\n      - { name: x, type: u32 }\n",
		       "slot count 12 is not a power of two", 8);
	expect_problem("version: 1\nwindow: 1M\nnodes: 4\nregions:\n"
		       "  - name: log\n    offset: 0\n    writer: 1\n"
		       "    ring: { slots: 16, slot_size: 64 }\n"
		       "    variables:\n      - { name: x, type: u32 }\n",
		       "move its variables and records to a region of their own", 8);
	expect_problem("version: 1\nwindow: 1M\nregions:\n"
		       "  - name: log\n    offset: 0\n    size: 64K\n    writer: 1\n"
		       "    ring: { slots: 16, slot_size: 64, notify: loud }\n",
		       "notify must be true, false or intr1..intr4, not 'loud'", 8);
	expect_problem("version: 1\nwindow: 1M\nregions:\n"
		       "  - name: log\n    offset: 0\n    size: 64K\n    writer: 1\n"
		       "    ring: { slot_size: 64, slots_per_node: 2 }\n",
		       "unknown key 'slots_per_node' in a ring", 8);
	expect_problem("version: 1\nwindow: 1M\nregions:\n"
		       "  - name: log\n    offset: 0\n    writer: 1\n",
		       "a region has no 'size'", 4);
}

/* The builder declares the same, and finish() computes and checks it. */
static void test_builder_ring(void **state)
{
	(void)state;
	struct rfm_region_spec spec = { .struct_size = sizeof(spec), .writer = 1, .name = "log",
					.offset = 0x40 };
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = 48, .slot_count = 16,
				     .max_consumers = 1 };
	struct rfm_region_info ri = { .struct_size = sizeof(ri) };
	rfm_diag_list *diags = NULL;
	rfm_layout *layout;

	assert_rfm_ok(rfm_layout_new("b", WINDOW, &layout));
	assert_rfm_ok(rfm_layout_add_region(layout, &spec));
	assert_rfm_code(rfm_layout_add_ring(layout, "nope", &c), RFM_ENOTFOUND);
	assert_rfm_ok(rfm_layout_add_ring(layout, "log", &c));
	assert_rfm_code(rfm_layout_add_ring(layout, "log", &c), RFM_EBUSY);
	assert_rfm_ok(rfm_layout_finish(layout, &diags));
	assert_rfm_ok(rfm_layout_region_info(layout, 0, &ri));
	/* No nodes: given: rows for every node id (format 2). */
	assert_int_equal(ri.size, 128 + 16 * 64 + 1024 + 256 * 32);
	assert_rfm_code(rfm_layout_add_ring(layout, "log", &c), RFM_EBUSY);
	rfm_layout_free(layout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_footprints),
		cmocka_unit_test_setup_teardown(test_layout_declares_a_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_without_a_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_format_refused, setup, teardown),
		cmocka_unit_test(test_layout_ring_problems),
		cmocka_unit_test(test_builder_ring),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
