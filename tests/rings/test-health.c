/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Health across processes: a node's heartbeat seen up, a clean detach
 * seen down, a warm restart seen up with the next incarnation, a SIGKILL
 * seen down by missed beats; the node table; self-test; counters; bad input.
 */
#include <signal.h>

#include "rfm-cmocka.h"

#define PERIOD_NS 5000000ull
#define EVENT_WAIT_NS 10000000000ll /* a hang guard, not a timing assertion */

static struct harness_network net;

static int setup(void **state)
{
	(void)state;
	harness_network_new(&net, 1024 * 1024);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	harness_kill_children();
	harness_network_destroy(&net);
	return 0;
}

static const struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = PERIOD_NS };

/* Beats on node 2; on "go" closes cleanly (if arg) or waits to be killed. */
static int beater(struct harness_link *link, void *arg)
{
	rfm_node *node;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(&net, 2), &node));
	HARNESS_CHECK_RFM(rfm_health_start(node, &hc));
	harness_link_ready(link);
	harness_link_wait_go(link);
	if (arg)
		rfm_close(node);
	return 0;
}

static void expect_event(rfm_node *node, unsigned int type, unsigned int sender, uint32_t data)
{
	struct rfm_event ev;

	for (;;) {
		assert_rfm_ok(rfm_event_wait(node, &ev, EVENT_WAIT_NS));
		if (ev.sender == sender)
			break;
	}
	assert_string_equal(rfm_event_type_name(ev.type), rfm_event_type_name(type));
	assert_int_equal(ev.data, data);
}

static void test_up_down_restart(void **state)
{
	struct harness_child kid;
	struct rfm_node_status rows[8];
	struct rfm_health_counters cnt = { .struct_size = sizeof(cnt) };
	rfm_node *mon;

	(void)state;
	if (harness_fork_unsupported()) {
		print_message("skipped: %s\n", harness_fork_unsupported());
		skip();
	}
#ifdef __SANITIZE_THREAD__
	/* The monitor thread runs while children are forked, and they start their own. */
	print_message("skipped: ThreadSanitizer cannot follow a fork of a threaded process\n");
	skip();
#endif
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 1), &mon));
	assert_rfm_ok(rfm_event_enable(mon, RFM_EVENT_MASK_HEALTH));
	assert_rfm_ok(rfm_health_start(mon, &hc));
	assert_rfm_code(rfm_health_start(mon, &hc), RFM_EBUSY);

	/* Cold start: incarnation 1. */
	harness_child_start(&kid, beater, (void *)1);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	expect_event(mon, RFM_EVENT_NODE_UP, 2, 1);
	int n = rfm_health_nodes(mon, rows, 8);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].id, 1);
	assert_int_equal(rows[1].id, 2);
	assert_int_equal(rows[1].alive, 1);
	assert_int_equal(rows[1].attached, 1);
	assert_int_equal(rows[1].incarnation, 1);
	assert_int_equal(rows[1].pid, kid.pid);
	assert_int_equal(rows[1].period_ns, PERIOD_NS);
	assert_true(rows[1].beats > 0);
	assert_true(rows[1].host[0] != 0);

	/* Clean detach. */
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait(&kid), 0);
	expect_event(mon, RFM_EVENT_NODE_DOWN, 2, 1);

	/* Warm restart: incarnation 2; then killed: missed beats. */
	harness_child_start(&kid, beater, NULL);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	expect_event(mon, RFM_EVENT_NODE_UP, 2, 2);
	harness_child_kill(&kid);
	expect_event(mon, RFM_EVENT_NODE_DOWN, 2, 2);
	n = rfm_health_nodes(mon, rows, 8);
	assert_int_equal(n, 2);
	assert_int_equal(rows[1].alive, 0);

	assert_rfm_ok(rfm_health_get_counters(mon, &cnt));
	assert_int_equal(cnt.node_ups, 2);
	assert_int_equal(cnt.node_downs, 2);
	assert_int_equal(cnt.events_received, 4);
	assert_rfm_ok(rfm_health_stop(mon));
	assert_rfm_ok(rfm_health_stop(mon));
	rfm_close(mon);
}

static void test_callback_down(void **state)
{
	(void)state;
	/* Health types may be handled by callbacks like network types. */
	rfm_node *mon;
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 1), &mon));
	/* LINK: records lost between nodes, where a backend can lose them (dds:). */
	if (!strcmp(harness_backend(), "dds"))
		assert_rfm_ok(rfm_event_enable(mon, RFM_EVENT_BIT(RFM_EVENT_LINK)));
	else
		assert_rfm_code(rfm_event_enable(mon, RFM_EVENT_BIT(RFM_EVENT_LINK)), RFM_ENOTSUP);
	assert_rfm_ok(rfm_event_enable(mon, RFM_EVENT_BIT(RFM_EVENT_NODE_DOWN)));
	rfm_close(mon);
}

static void test_selftest(void **state)
{
	struct rfm_selftest_result res = { .struct_size = sizeof(res) };
	struct rfm_health_counters cnt = { .struct_size = sizeof(cnt) };
	rfm_node *node;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 4), &node));
	assert_rfm_ok(rfm_mem_write(node, 256, "keep", 4));
	assert_rfm_ok(rfm_selftest(node, 192, &res));
	assert_int_equal(res.memory_ok, 1);
	assert_int_equal(res.memory_errors, 0);
	assert_int_equal(res.event_ok, 1);
	char keep[5] = "";
	assert_rfm_ok(rfm_mem_read(node, 256, keep, 4));
	assert_string_equal(keep, "keep"); /* restored */
	assert_int_equal(rfm_node_get_loopback(node), 0);
	uint32_t mask = 1;
	assert_rfm_ok(rfm_event_get_enabled(node, &mask));
	assert_int_equal(mask, 0);
	assert_rfm_ok(rfm_health_get_counters(node, &cnt));
	assert_int_equal(cnt.events_sent, 1);
	assert_int_equal(cnt.events_received, 1);
	assert_int_equal(cnt.events_dropped, 0);
	assert_rfm_ok(rfm_selftest(node, RFM_SELFTEST_NO_MEMORY, &res));
	assert_int_equal(res.memory_ok, 0);
	assert_rfm_code(rfm_selftest(node, 1024 * 1024 - 8, &res), RFM_ERANGE);
	rfm_close(node);
}

static void test_bad_input(void **state)
{
	struct rfm_health_config bad = { .struct_size = sizeof(bad), .period_ns = 10 };
	rfm_node *node;

	(void)state;
	assert_rfm_code(rfm_health_start(NULL, NULL), RFM_EINVAL);
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 1), &node));
	assert_rfm_code(rfm_health_start(node, &bad), RFM_EINVAL);
	bad.struct_size = 2;
	assert_rfm_code(rfm_health_start(node, &bad), RFM_EINVAL);
	assert_rfm_code(rfm_health_nodes(node, NULL, 4), RFM_EINVAL);
	assert_int_equal(rfm_health_nodes(node, NULL, 0), 1);
	assert_rfm_ok(rfm_health_beat(node, 0));
	assert_rfm_code(rfm_health_get_counters(node, NULL), RFM_EINVAL);
	/* Started and left running: rfm_close() stops it. */
	assert_rfm_ok(rfm_health_start(node, NULL));
	rfm_close(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_up_down_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selftest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
