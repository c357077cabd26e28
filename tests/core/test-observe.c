/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Observers and tools (node.h, "Observers and tools"): a handle opened with
 * observe=1 reads the window, the node table and rings, and holds no node
 * id a real node may need: the node that wants id 0 opens beside it (it
 * used to fail: "node id 0 is in use by a live node"); every write, event
 * and heartbeat of the observer is refused with RFM_EPERM and changes
 * nothing; it never creates a network; the count of attached nodes leaves
 * it out. A tool (tool=1) takes an id of the tool range unless it names
 * one, and a node refused an id a tool holds is told so, with how to fix
 * it. On every backend with observers; the suite for dds: runs it too.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rfm-cmocka.h"

HARNESS_SHARED_SUITE(HARNESS_CAP_ANY_NODE_ID);

#define WINDOW (256 * 1024)
#define LAYOUT_TEXT                                                               \
	"version: 1\nwindow: 256K\nnodes: 8\nregions:\n"                         \
	"  - name: sim\n    offset: 0\n    size: 0x100\n    writer: 0\n"           \
	"    variables:\n      - { name: speed, type: f64 }\n"                     \
	"    records:\n      - name: state\n        variables:\n"                  \
	"          - { name: step, type: u32 }\n"                                 \
	"  - name: log\n    offset: 0x1000\n    writer: 0\n"                       \
	"    ring: { slots: 8, slot_size: 48, consumers: 1, notify: true }\n"

struct fixture {
	struct harness_network net;
	rfm_node *node0;	/* the real node 0, opened after the observer */
	rfm_node *obs;
	rfm_layout *layout;
};

static const char *observer_uri(struct harness_network *net)
{
	/* The network part, no node id: what a monitor is given. */
	return harness_network_uri(net, "observe=1");
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	harness_network_new(&f->net, WINDOW);
	/* The network exists: a node made it (observers never make one). */
	rfm_node *maker;
	if (rfm_open(harness_node_uri(&f->net, 5), &maker)) {
		print_error("setup: %s\n", rfm_last_error());
		free(f);
		return -1;
	}
	if (rfm_open(observer_uri(&f->net), &f->obs)) {
		print_error("setup: the observer: %s\n", rfm_last_error());
		rfm_close(maker);
		free(f);
		return -1;
	}
	rfm_close(maker);
	if (rfm_layout_load_string(LAYOUT_TEXT, strlen(LAYOUT_TEXT), "observe", &f->layout,
				   NULL)) {
		print_error("setup: layout: %s\n", rfm_last_error());
		rfm_close(f->obs);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	harness_kill_children();
	rfm_layout_free(f->layout);
	rfm_close(f->node0);
	rfm_close(f->obs);
	harness_network_destroy(&f->net);
	free(f);
	return 0;
}

/* Look until the word at @off of @node's copy is @want (a hang guard only). */
static void wait_word(rfm_node *node, uint64_t off, uint32_t want)
{
	uint64_t give_up = rfm_event_now_ns() + HARNESS_HANG_TIMEOUT_MS * 1000000ull;
	uint32_t got = 0;

	while (!rfm_mem_peek32(node, off, &got) && got != want) {
		if (rfm_event_now_ns() > give_up)
			fail_msg("0x%llx never became 0x%x (0x%x)", (unsigned long long)off, want, got);
		usleep(1000);
	}
}

/* Look until the ring at @off has a valid header and a message. */
static void wait_nonzero_head(rfm_node *node, uint64_t off)
{
	uint64_t give_up = rfm_event_now_ns() + HARNESS_HANG_TIMEOUT_MS * 1000000ull;
	struct rfm_ring_info info = { .struct_size = sizeof(info) };

	while (rfm_ring_inspect(node, off, &info, NULL, 0, NULL) || info.head == 0) {
		if (rfm_event_now_ns() > give_up)
			fail_msg("the ring at 0x%llx never reached the observer", (unsigned long long)off);
		usleep(1000);
	}
}

/* The case: a monitor running, the simulator opens node 0. */
static void test_observer_holds_no_id(void **state)
{
	struct fixture *f = *state;
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 0), &f->node0));
	assert_int_equal(rfm_node_id(f->node0), 0);
	assert_rfm_code(rfm_node_id(f->obs), RFM_ENODEID);
	assert_last_error_has("an observer holds no node id");
	assert_rfm_ok(rfm_node_get_info(f->obs, &info));
	assert_int_equal(info.attach, RFM_ATTACH_OBSERVER);
	if (harness_can(HARNESS_CAP_SEGMENT))
		assert_int_equal(info.node_id, -1);
	/* Attached: node 0; the observer is not one of them. */
	assert_int_equal(info.nodes_attached, 1);
	struct rfm_open_options o = { .struct_size = sizeof(o) };
	assert_rfm_ok(rfm_node_get_options(f->obs, &o));
	assert_int_equal(o.attach, RFM_ATTACH_OBSERVER);
	/* The node table lists node 0 and no row for the observer. */
	struct rfm_node_status rows[RFM_MAX_NODES];
	int n = rfm_health_nodes(f->obs, rows, RFM_MAX_NODES);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].id, 0);
}

/* It reads what the nodes write: memory, variables, records, rings. */
static void test_observer_reads(void **state)
{
	struct fixture *f = *state;
	rfm_var *speed, *mine;
	rfm_record *rec, *rec_obs;
	rfm_ring *ring;
	rfm_ring_consumer *c;
	double v = 0;
	uint32_t word = 0;

	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 0), &f->node0));
	assert_rfm_ok(rfm_var_open(f->layout, f->node0, "sim.speed", &mine));
	assert_rfm_ok(rfm_var_set_f64(mine, 0, 6120.5));
	assert_rfm_ok(rfm_mem_poke32(f->node0, 0x800, 0xfeedf00d));
	assert_rfm_ok(rfm_record_open(f->layout, f->node0, "sim.state", &rec));
	uint32_t step[2] = { 7, 0 };	/* the data rounds up to 8 bytes */
	assert_rfm_ok(rfm_record_write(rec, step, sizeof(step)));
	assert_rfm_ok(rfm_ring_create_region(f->node0, f->layout, "log", NULL, &ring));
	assert_rfm_ok(rfm_ring_publish(ring, "hello", 5, 0));
	/* Where each node holds a copy (dds:), the writes travel: out now, and
	 * the observer's copy has them once the last one is in. */
	assert_rfm_ok(rfm_mem_flush(f->node0, 0, rfm_node_size(f->node0)));
	wait_word(f->obs, 0x800, 0xfeedf00d);
	wait_nonzero_head(f->obs, 0x1000);

	assert_rfm_ok(rfm_mem_peek32(f->obs, 0x800, &word));
	assert_int_equal(word, 0xfeedf00d);
	assert_rfm_ok(rfm_var_open(f->layout, f->obs, "sim.speed", &speed));
	assert_rfm_ok(rfm_var_get_f64(speed, 0, &v));
	assert_true(v == 6120.5);
	assert_rfm_ok(rfm_record_open(f->layout, f->obs, "sim.state", &rec_obs));
	step[0] = 0;
	assert_rfm_ok(rfm_record_read(rec_obs, step, sizeof(step), NULL));
	assert_int_equal(step[0], 7);
	/* A ring with notify: the observer reads it without an entry. */
	assert_rfm_ok(rfm_ring_consumer_open_region(f->obs, f->layout, "log", 0, &c));
	char buf[64];
	struct rfm_ring_msg m;
	assert_rfm_ok(rfm_ring_consume(c, buf, sizeof(buf), &m, 0));
	assert_int_equal(m.len, 5);
	assert_memory_equal(buf, "hello", 5);
	size_t count = 99;
	assert_rfm_ok(rfm_ring_inspect_region(f->obs, f->layout, "log", NULL, NULL, 0, &count));
	assert_int_equal(count, 0);	/* it registered nothing */
	assert_rfm_ok(rfm_ring_publish(ring, "again", 5, 0));
	assert_rfm_ok(rfm_mem_flush(f->node0, 0, rfm_node_size(f->node0)));
	assert_rfm_ok(rfm_ring_consume(c, buf, sizeof(buf), &m, 10000000000ll));
	assert_memory_equal(buf, "again", 5);
	rfm_ring_consumer_close(c);
	rfm_ring_close(ring);
	rfm_record_close(rec_obs);
	rfm_record_close(rec);
	rfm_var_close(speed);
	rfm_var_close(mine);
}

/* Every way to change the window or act as a node is refused, and changes nothing. */
static void test_observer_never_writes(void **state)
{
	struct fixture *f = *state;
	uint8_t before[256], after[256];
	struct rfm_selftest_result st = { .struct_size = sizeof(st) };
	struct rfm_ring_config cfg = { .struct_size = sizeof(cfg), .slot_size = 16,
				       .slot_count = 4 };
	rfm_var *speed;
	rfm_record *rec;
	rfm_ring *ring;
	rfm_ring_consumer *c;

	assert_rfm_ok(rfm_mem_read(f->obs, 0, before, sizeof(before)));
	assert_rfm_code(rfm_mem_write(f->obs, 0, "x", 1), RFM_EPERM);
	assert_last_error_has("observes (observe=1)");
	assert_rfm_code(rfm_mem_poke8(f->obs, 8, 1), RFM_EPERM);
	assert_rfm_code(rfm_mem_poke16(f->obs, 8, 1), RFM_EPERM);
	assert_rfm_code(rfm_mem_poke32(f->obs, 8, 1), RFM_EPERM);
	assert_rfm_code(rfm_mem_poke64(f->obs, 8, 1), RFM_EPERM);
	assert_rfm_code(rfm_mem_flush(f->obs, 0, 8), RFM_EPERM);
	assert_rfm_ok(rfm_var_open(f->layout, f->obs, "sim.speed", &speed));
	assert_rfm_code(rfm_var_set_f64(speed, 0, 1.0), RFM_EPERM);
	/* Relaxing the owner check does not make an observer a writer. */
	assert_rfm_ok(rfm_var_set_owner_check(speed, false));
	assert_rfm_code(rfm_var_set_f64(speed, 0, 1.0), RFM_EPERM);
	assert_rfm_code(rfm_var_set_text(speed, "2"), RFM_EPERM);
	assert_last_error_has("opened through an observer");
	assert_rfm_ok(rfm_record_open(f->layout, f->obs, "sim.state", &rec));
	assert_rfm_ok(rfm_record_set_owner_check(rec, false));
	uint32_t step[2] = { 1, 0 };
	assert_rfm_code(rfm_record_write(rec, step, sizeof(step)), RFM_EPERM);
	assert_rfm_code(rfm_record_publish(rec), RFM_EPERM);
	assert_rfm_code(rfm_event_send(f->obs, RFM_NODE_ALL, RFM_EVENT_INTR1, 1), RFM_EPERM);
	assert_rfm_code(rfm_event_publish(f->obs, 0, "x", 1, 8, RFM_NODE_ALL, RFM_EVENT_INTR1,
					  NULL),
			RFM_EPERM);
	assert_rfm_code(rfm_event_enable(f->obs, RFM_EVENT_BIT(RFM_EVENT_INTR1)), RFM_EPERM);
	assert_rfm_code(rfm_event_enable(f->obs, RFM_EVENT_MASK_HEALTH), RFM_EPERM);
	assert_rfm_code(rfm_health_start(f->obs, NULL), RFM_EPERM);
	assert_rfm_code(rfm_health_beat(f->obs, 0), RFM_EPERM);
	assert_rfm_code(rfm_selftest(f->obs, RFM_SELFTEST_NO_MEMORY, &st), RFM_EPERM);
	assert_rfm_code(rfm_ring_create(f->obs, 0x2000, 0x8000, &cfg, &ring), RFM_EPERM);
	assert_rfm_code(rfm_ring_create_region(f->obs, f->layout, "log", NULL, &ring), RFM_EPERM);
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 0), &f->node0));
	assert_rfm_ok(rfm_ring_create_region(f->node0, f->layout, "log", NULL, &ring));
	assert_rfm_code(rfm_ring_attach(f->obs, 0x1000, &ring), RFM_EPERM);
	rfm_ring_close(ring);
	assert_rfm_code(rfm_ring_consumer_open(f->obs, 0x1000, RFM_RING_CONSUMER_BACKPRESSURE, &c),
			RFM_EPERM);
	/* Nothing of it reached the window (the ring was node 0's, at 0x1000). */
	assert_rfm_ok(rfm_mem_read(f->obs, 0, after, sizeof(after)));
	assert_memory_equal(before, after, sizeof(before));
	rfm_record_close(rec);
	rfm_var_close(speed);
}

static void test_observer_uri_rules(void **state)
{
	struct fixture *f = *state;
	rfm_node *n = NULL;

	assert_rfm_code(rfm_open(harness_network_uri(&f->net, "observe=1&node=3"), &n), RFM_EURI);
	assert_last_error_has("observe=1");
	assert_rfm_code(rfm_open(harness_network_uri(&f->net, "observe=1&tool=1"), &n), RFM_EURI);
	assert_last_error_has("exclude each other");
	assert_rfm_code(rfm_open(harness_network_uri(&f->net, "observe=2"), &n), RFM_EURI);
	/* The open option says the same as the URI (a node there to look at). */
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 0), &f->node0));
	struct rfm_open_options o = { .struct_size = sizeof(o), .attach = RFM_ATTACH_OBSERVER };
	assert_rfm_ok(rfm_open_with_options(harness_network_uri(&f->net, "%s", ""), &o, &n));
	assert_rfm_code(rfm_node_id(n), RFM_ENODEID);
	rfm_close(n);
	o.attach = 7;
	assert_rfm_code(rfm_open_with_options(harness_network_uri(&f->net, "%s", ""), &o, &n), RFM_EINVAL);
}

/* Observers make no network out of a mistyped name. */
static void test_observer_creates_nothing(void **state)
{
	(void)state;
	struct harness_network other;
	char path[256];
	rfm_node *n = NULL;

	if (!harness_can(HARNESS_CAP_SEGMENT))
		skip();
	harness_network_new(&other, WINDOW);
	assert_rfm_code(rfm_open(harness_network_uri(&other, "observe=1"), &n), RFM_ENOENT);
	assert_null(n);
	assert_int_equal(access(harness_shm_path(&other, path, sizeof(path)), F_OK), -1);
}

/* Tools: an id of 240..255 unless named; a node refused their id learns why. */
static void test_tool_range_and_refusal(void **state)
{
	struct fixture *f = *state;
	rfm_node *tool, *named, *n = NULL;

	assert_rfm_ok(rfm_open(harness_network_uri(&f->net, "tool=1"), &tool));
	assert_int_equal(rfm_node_id(tool), RFM_NODE_TOOL_FIRST);
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	assert_rfm_ok(rfm_node_get_info(tool, &info));
	assert_int_equal(info.attach, RFM_ATTACH_TOOL);
	/* A real node (no tool=) still takes the first free id from 0. */
	assert_rfm_ok(rfm_open(harness_network_uri(&f->net, "%s", ""), &f->node0));
	assert_int_equal(rfm_node_id(f->node0), 0);
	/* A tool that names an id holds that one. */
	assert_rfm_ok(rfm_open(harness_network_uri(&f->net, "tool=1&node=3"), &named));
	assert_int_equal(rfm_node_id(named), 3);
	/* The simulator wants id 3: refused, told a tool holds it, and how to fix it. */
	assert_rfm_code(rfm_open(harness_network_uri(&f->net, "node=3"), &n), RFM_EINUSE);
	char pid[32];
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	if (harness_can(HARNESS_CAP_SEGMENT)) {
		assert_last_error_has("held by a tool");
		assert_last_error_has(pid);
		assert_last_error_has("240..255");
	}
	/* A live node's id: the hint names both causes, not shared=1 alone. */
	assert_rfm_code(rfm_open(harness_network_uri(&f->net, "node=0"), &n), RFM_EINUSE);
	if (harness_can(HARNESS_CAP_SEGMENT)) {
		assert_last_error_has("shared=1");
		assert_last_error_has("observe=1");
	}
	rfm_close(named);
	rfm_close(tool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_observer_holds_no_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_observer_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_observer_never_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_observer_uri_rules, setup, teardown),
		cmocka_unit_test(test_observer_creates_nothing),
		cmocka_unit_test_setup_teardown(test_tool_range_and_refusal, setup, teardown),
	};

	harness_init();
	harness_require(HARNESS_CAP_OWN_NETWORKS | HARNESS_CAP_ANY_NODE_ID,
			"observers beside nodes the test opens at any id");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
