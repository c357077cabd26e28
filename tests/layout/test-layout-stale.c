/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm_var_stale(): a variable is stale while its region's writer is down
 * (never attached, detached, or its beat stopped) and fresh while it is
 * attached, beating or not beating at all.
 */
#include <time.h>

#include "helpers.h"

#define HANG_ALARM_S 60

static const char *const layout_lines[] = {
	"version: 1",
	"window: 1M",
	"regions:",
	"  - name: a",
	"    offset: 0",
	"    size: 0x100",
	"    writer: 3",
	"    variables:",
	"      - { name: x, type: f64 }",
	"  - name: b",
	"    offset: 0x100",
	"    size: 0x100",
	"    writer: 1",
	"    variables:",
	"      - { name: y, type: u32 }",
	NULL,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether node @id reads alive in the table seen through @node. */
static int alive(rfm_node *node, uint32_t id)
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	int n = rfm_health_nodes(node, rows, RFM_MAX_NODES);

	for (int i = 0; i < n && i < RFM_MAX_NODES; i++)
		if (rows[i].id == id)
			return (int)rows[i].alive;
	return 0;
}

static void test_writer_states(void **state)
{
	const char *net = test_net("stale");
	rfm_layout *layout = NULL;
	rfm_var *x = NULL, *y = NULL;
	rfm_node *me, *writer;

	(void)state;
	assert_int_equal(load_lines(layout_lines, &layout, NULL), 0);
	me = open_node(net, 1);
	assert_int_equal(rfm_var_open(layout, me, "a.x", &x), 0);
	assert_int_equal(rfm_var_open(layout, me, "b.y", &y), 0);

	/* Node 3 was never on the network: a.x has no writer. */
	assert_int_equal(rfm_var_stale(me, x), 1);
	/* Node 1 writes b.y: attached, it runs no health monitor. */
	assert_int_equal(rfm_var_stale(me, y), 0);

	writer = open_node(net, 3);
	assert_int_equal(rfm_var_stale(me, x), 0);		/* attached, never beat */
	assert_int_equal(rfm_health_beat(writer, 10000000), 0);	/* 10 ms */
	assert_int_equal(rfm_var_stale(me, x), 0);		/* beating */
	/* No more beats: once it reads not alive, its data is stale. */
	uint64_t give_up = now_ns() + 10000000000ull;
	while (alive(me, 3)) {
		assert_true(now_ns() < give_up);
		struct timespec ts = { .tv_nsec = 5000000 };
		nanosleep(&ts, NULL);	/* waiting out its misses: no signal marks that */
	}
	assert_int_equal(rfm_var_stale(me, x), 1);
	rfm_close(writer);
	assert_int_equal(rfm_var_stale(me, x), 1);		/* detached */
	/* Back, beating again: fresh. (Attached again without a beat it still
	 * reads the stopped beat of its last life, so it stays stale.) */
	writer = open_node(net, 3);
	assert_int_equal(rfm_health_beat(writer, 10000000), 0);
	assert_int_equal(rfm_var_stale(me, x), 0);
	rfm_close(writer);

	assert_int_equal(rfm_var_stale(NULL, x), RFM_EINVAL);
	assert_int_equal(rfm_var_stale(me, NULL), RFM_EINVAL);
	rfm_var_close(x);
	rfm_var_close(y);
	rfm_close(me);
	rfm_layout_free(layout);
	destroy_net(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_states),
	};

	harness_watchdog(HANG_ALARM_S);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
