/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dds: backend in one process, each node a handle with its own copy of
 * the window: URI errors, node ids in use and window sizes that differ
 * (both named), copies that are private until the library replicates,
 * rfm_mem_flush(), interrupts that follow their data in the writer's
 * order, records, typed variables (through views too), a late joiner's
 * snapshot, presence as NODE_UP/NODE_DOWN,
 * waits that sleep at once unless spin=NS says otherwise.
 * Runs with RFM_TEST_BACKEND=dds (tests/backends/dds/run-dds-suites.sh).
 */
#include <endian.h>
#include <pthread.h>
#include <unistd.h>

#include "rfm-cmocka.h"
#include "internal.h" /* the handle's spin, which has no getter */

#define WINDOW (64 * 1024)
#define WAIT_NS 10000000000ll /* a hang guard, not a timing assertion */

static struct harness_network net;

static int setup(void **state)
{
	(void)state;
	harness_network_new(&net, WINDOW);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	harness_network_destroy(&net);
	return 0;
}

static rfm_node *open_node(int id)
{
	rfm_node *node = NULL;

	assert_rfm_ok(rfm_open(harness_node_uri(&net, id), &node));
	return node;
}

/* A send returns how many queues took the record (1: it is on the network). */
static void send_ok(int ret)
{
	if (ret < 0)
		fail_msg("send failed: %d, %s", ret, rfm_last_error());
	assert_int_equal(ret, 1);
}

/* Wait for the next record of @type from @sender, skipping others. */
static struct rfm_event wait_from(rfm_node *node, unsigned int type, unsigned int sender)
{
	struct rfm_event ev;

	for (;;) {
		assert_rfm_ok(rfm_event_wait(node, &ev, WAIT_NS));
		if (ev.type == type && ev.sender == sender)
			return ev;
	}
}

static void bad_uris_are_refused(void **state)
{
	static const struct {
		const char *query;
		int code;
		const char *says;
	} cases[] = {
		{ "node=1&domain=231", RFM_EURI, "0..230" },
		{ "node=1&domain=x", RFM_EURI, "a DDS domain id" },
		{ "node=256", RFM_ENODEID, "outside 0..255" },
		{ "node=1&size=1000", RFM_ESIZE, "multiple of 8" },
		{ "node=1&lease=5", RFM_EURI, "lease" },
		{ "node=1&depth=10", RFM_EURI, "depth" },
		{ "node=1&coalesce=x", RFM_EURI, "how long a write may wait" },
		{ "node=1&coalesce=2000000000", RFM_EURI, "0..1000000000" },
		{ "node=1&callbacks=now", RFM_EURI, "callbacks 'now' must be receive" },
		{ "node=1&colour=red", RFM_EURI, "unknown parameter 'colour'" },
	};
	rfm_node *node;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* The harness's domain comes last and is not the one under test. */
		char uri[256];

		snprintf(uri, sizeof(uri), "dds:%s?%s", net.name, cases[i].query);
		assert_rfm_code(rfm_open(uri, &node), cases[i].code);
		assert_last_error_has(cases[i].says);
	}
	assert_rfm_code(rfm_open("dds:bad/name?node=1", &node), RFM_EURI);
	assert_last_error_has("network name");
}

static void a_node_id_is_held_once(void **state)
{
	char pid[32];
	rfm_node *a = open_node(1), *again;

	(void)state;
	snprintf(pid, sizeof(pid), "pid %d on host", (int)getpid());
	assert_rfm_code(rfm_open(harness_node_uri(&net, 1), &again), RFM_EINUSE);
	assert_last_error_has("node id 1 is in use");
	assert_last_error_has(pid);
	rfm_close(a);
	/* Closed: the id is free again. */
	again = open_node(1);
	rfm_close(again);
}

/* One rfm_open() on its own thread, released with the others by a barrier. */
struct claimer {
	char uri[512];
	pthread_barrier_t *go;
	int ret;
	char error[512];
	rfm_node *node;
};

static void *claimer_main(void *arg)
{
	struct claimer *c = arg;

	pthread_barrier_wait(c->go);
	c->ret = rfm_open(c->uri, &c->node);
	if (c->ret)
		snprintf(c->error, sizeof(c->error), "%s", rfm_last_error());
	return NULL;
}

/*
 * Two opens at the same instant, each with a discovery wait long enough
 * for the two participants to meet (the harness's 50 ms is for peers that
 * are open already): @query0 and @query1 are the node parts of the URIs.
 */
static void open_at_once(struct claimer c[2], const char *query0, const char *query1)
{
	pthread_barrier_t go;
	pthread_t t[2];

	pthread_barrier_init(&go, NULL, 2);
	for (int i = 0; i < 2; i++) {
		const char *uri = harness_network_uri(&net, "%s", i ? query1 : query0);
		const char *join = strstr(uri, "join=50");

		assert_non_null(join);
		snprintf(c[i].uri, sizeof(c[i].uri), "%.*sjoin=800%s", (int)(join - uri), uri,
			 join + strlen("join=50"));
		c[i].go = &go;
		c[i].node = NULL;
		assert_int_equal(pthread_create(&t[i], NULL, claimer_main, &c[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
}

/* Two claims of one id made at once: one wins, the other is told who has it. */
static void one_of_two_simultaneous_claims_wins(void **state)
{
	struct claimer c[2];
	char holder[64];

	(void)state;
	open_at_once(c, "node=7", "node=7");
	if ((c[0].ret == 0) == (c[1].ret == 0))
		fail_msg("one open must win: %d (%s), %d (%s)", c[0].ret, c[0].error, c[1].ret,
			 c[1].error);
	struct claimer *won = c[0].ret ? &c[1] : &c[0], *lost = c[0].ret ? &c[0] : &c[1];

	assert_int_equal(lost->ret, RFM_EINUSE);
	snprintf(holder, sizeof(holder), "pid %d on host", (int)getpid());
	assert_non_null(strstr(lost->error, "node id 7 is in use"));
	assert_non_null(strstr(lost->error, holder));
	assert_int_equal(rfm_node_id(won->node), 7);
	rfm_close(won->node);
	/* The loser's claim is gone with it: the id is free once the winner closes. */
	rfm_node *again = open_node(7);
	rfm_close(again);
}

/* Two opens without node= at once: two different ids. */
static void simultaneous_joiners_pick_different_ids(void **state)
{
	struct claimer c[2];

	(void)state;
	open_at_once(c, "size=65536", "size=65536");
	for (int i = 0; i < 2; i++)
		if (c[i].ret)
			fail_msg("open %d: %d, %s", i, c[i].ret, c[i].error);
	if (rfm_node_id(c[0].node) == rfm_node_id(c[1].node))
		fail_msg("both opens took node id %d", rfm_node_id(c[0].node));
	rfm_close(c[0].node);
	rfm_close(c[1].node);
}

/*
 * Two nodes opening at once that see each other as they join each ask the
 * other for its copy: the lower id answers with its own, both join.
 */
static void two_nodes_opening_at_once_both_join(void **state)
{
	struct claimer c[2];
	uint32_t v = 0x600dcafe, got = 0;
	struct rfm_event ev;

	(void)state;
	open_at_once(c, "node=1", "node=2");
	for (int i = 0; i < 2; i++)
		if (c[i].ret)
			fail_msg("open %d: %d, %s", i, c[i].ret, c[i].error);
	/* And they replicate to each other. */
	assert_rfm_ok(rfm_event_enable(c[1].node, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	assert_rfm_ok(rfm_mem_write(c[0].node, 0x40, &v, sizeof(v)));
	send_ok(rfm_event_send(c[0].node, 2, RFM_EVENT_INTR2, 1));
	ev = wait_from(c[1].node, RFM_EVENT_INTR2, 1);
	assert_int_equal(ev.data, 1);
	assert_rfm_ok(rfm_mem_read(c[1].node, 0x40, &got, sizeof(got)));
	assert_int_equal(got, v);
	rfm_close(c[0].node);
	rfm_close(c[1].node);
}

static void window_sizes_must_agree(void **state)
{
	rfm_node *a = open_node(1), *b;

	(void)state;
	assert_rfm_code(rfm_open(harness_network_uri(&net, "node=2&size=131072"), &b), RFM_ESIZE);
	assert_last_error_has("65536-byte window");
	assert_last_error_has("131072");
	/* Without size=, a joiner takes the network's. */
	assert_rfm_ok(rfm_open(harness_network_uri(&net, "node=2"), &b));
	assert_int_equal(rfm_node_size(b), WINDOW);
	rfm_close(b);
	rfm_close(a);
}

static void each_node_has_its_own_copy(void **state)
{
	rfm_node *a = open_node(1), *b = open_node(2);
	uint8_t *pa, *pb;
	uint64_t size;
	uint32_t v = 0;

	(void)state;
	assert_rfm_ok(rfm_mem_map(a, (void **)&pa, &size));
	assert_rfm_ok(rfm_mem_map(b, (void **)&pb, NULL));
	assert_ptr_not_equal(pa, pb);
	assert_rfm_ok(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR1)));

	/* A store through the pointer stays in a's copy... */
	pa[0x100] = 0x5a;
	send_ok(rfm_event_send(a, 2, RFM_EVENT_INTR1, 1));
	assert_int_equal(wait_from(b, RFM_EVENT_INTR1, 1).data, 1);
	assert_int_equal(pb[0x100], 0);
	/* ...until it is flushed; the event after it follows the data. */
	assert_rfm_ok(rfm_mem_flush(a, 0x100, 1));
	send_ok(rfm_event_send(a, 2, RFM_EVENT_INTR1, 2));
	assert_int_equal(wait_from(b, RFM_EVENT_INTR1, 1).data, 2);
	assert_int_equal(pb[0x100], 0x5a);

	/* Library writes go out by themselves: write, pokes. */
	assert_rfm_ok(rfm_mem_write(a, 0x200, "copy", 5));
	assert_rfm_ok(rfm_mem_poke32(a, 0x300, 0xfeedbeef));
	send_ok(rfm_event_send(a, 2, RFM_EVENT_INTR1, 3));
	wait_from(b, RFM_EVENT_INTR1, 1);
	assert_string_equal((char *)pb + 0x200, "copy");
	assert_rfm_ok(rfm_mem_peek32(b, 0x300, &v));
	assert_int_equal(v, 0xfeedbeef);

	/* A flush outside the window sends nothing and says so. */
	assert_rfm_code(rfm_mem_flush(a, size - 4, 8), RFM_ERANGE);
	assert_rfm_code(rfm_mem_flush(NULL, 0, 1), RFM_EINVAL);
	assert_rfm_ok(rfm_mem_flush(a, size, 0));
	rfm_close(b);
	rfm_close(a);
}

/* Many writes, each followed by an event: the receiver sees each write's data with its event. */
static void interrupts_follow_their_data(void **state)
{
	rfm_node *a = open_node(1), *b = open_node(2);

	(void)state;
	assert_rfm_ok(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	for (uint32_t i = 1; i <= 500; i++) {
		uint32_t seq;

		send_ok(rfm_event_publish(a, 0x1000, &i, sizeof(i), 0x2000, 2, RFM_EVENT_INTR2,
					  &seq));
		assert_int_equal(seq, i);
	}
	for (uint32_t i = 1; i <= 500; i++) {
		struct rfm_event ev = wait_from(b, RFM_EVENT_INTR2, 1);
		uint32_t flag = 0, data = 0;

		assert_int_equal(ev.data, i);
		assert_rfm_ok(rfm_mem_peek32(b, 0x2000, &flag));
		assert_rfm_ok(rfm_mem_peek32(b, 0x1000, &data));
		/* The copy may be ahead (later writes applied), never behind. */
		assert_true(le32toh(flag) >= i); /* the sequence word is little-endian */
		assert_true(data >= i);
	}
	rfm_close(b);
	rfm_close(a);
}

static const char layout_text[] = "version: 1\n"
				  "window: 64K\n"
				  "regions:\n"
				  "  - name: state\n"
				  "    offset: 0x1000\n"
				  "    size: 0x100\n"
				  "    writer: 1\n"
				  "    records:\n"
				  "      - name: frame\n"
				  "        notify: intr3\n"
				  "        variables: [ { name: x, type: u64 }, { name: y, type: u64 } ]\n"
				  "  - name: plant\n"
				  "    offset: 0x3000\n"
				  "    size: 0x100\n"
				  "    writer: 1\n"
				  "    variables: [ { name: a, type: u32 }, { name: b, type: f64 } ]\n";

static void records_reach_the_other_copy(void **state)
{
	rfm_node *a = open_node(1), *b = open_node(2);
	rfm_layout *layout = NULL;
	rfm_record *wa, *rb;
	uint64_t in[2] = { 7, 8 }, out[2] = { 0, 0 };
	uint32_t seq0 = 0, seq = 0;

	(void)state;
	assert_rfm_ok(rfm_layout_load_string(layout_text, strlen(layout_text), "t", &layout, NULL));
	assert_rfm_ok(rfm_record_open(layout, a, "state.frame", &wa));
	assert_rfm_ok(rfm_record_open(layout, b, "state.frame", &rb));
	assert_rfm_ok(rfm_record_sequence(rb, &seq0));
	assert_rfm_ok(rfm_record_write(wa, in, sizeof(in)));
	assert_rfm_ok(rfm_record_wait(rb, seq0, WAIT_NS, &seq));
	assert_int_equal(seq, seq0 + 2);
	assert_true(rfm_record_read(rb, out, sizeof(out), NULL) >= 0);
	assert_int_equal(out[0], 7);
	assert_int_equal(out[1], 8);
	rfm_record_close(rb);
	rfm_record_close(wa);
	rfm_layout_free(layout);
	rfm_close(b);
	rfm_close(a);
}

/* After node 1's sets: an event behind them, then node 2's copy holds @u and @d. */
static void copy_holds(rfm_node *a, rfm_node *b, rfm_var *ra, rfm_var *rb, uint32_t u, double d)
{
	uint32_t got_u = 0;
	double got_d = 0;

	send_ok(rfm_event_send(a, 2, RFM_EVENT_INTR1, u));
	wait_from(b, RFM_EVENT_INTR1, 1);
	assert_rfm_ok(rfm_var_get_u32(ra, 0, &got_u));
	assert_rfm_ok(rfm_var_get_f64(rb, 0, &got_d));
	assert_int_equal(got_u, u);
	assert_true(got_d == d);
}

/* Typed variables go out by themselves, the inline view's stores too. */
static void typed_variables_reach_the_other_copy(void **state)
{
	rfm_node *a = open_node(1), *b = open_node(2);
	struct rfm_var_view va = { .struct_size = sizeof(va) }, vb = { .struct_size = sizeof(vb) };
	rfm_layout *layout = NULL;
	rfm_var *wa, *wb, *ra, *rb;

	(void)state;
	assert_rfm_ok(rfm_layout_load_string(layout_text, strlen(layout_text), "t", &layout, NULL));
	assert_rfm_ok(rfm_var_open(layout, a, "plant.a", &wa));
	assert_rfm_ok(rfm_var_open(layout, a, "plant.b", &wb));
	assert_rfm_ok(rfm_var_open(layout, b, "plant.a", &ra));
	assert_rfm_ok(rfm_var_open(layout, b, "plant.b", &rb));
	assert_rfm_ok(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR1)));

	assert_rfm_ok(rfm_var_set_u32(wa, 0, 41));
	assert_rfm_ok(rfm_var_set_f64(wb, 0, 2.5));
	copy_holds(a, b, ra, rb, 41, 2.5);

	assert_rfm_ok(rfm_var_get_view(wa, &va));
	assert_rfm_ok(rfm_var_get_view(wb, &vb));
	assert_rfm_ok(rfm_view_set_u32(&va, 0, 42));
	assert_rfm_ok(rfm_view_set_f64(&vb, 0, 3.5));
	copy_holds(a, b, ra, rb, 42, 3.5);

	rfm_var_close(rb);
	rfm_var_close(ra);
	rfm_var_close(wb);
	rfm_var_close(wa);
	rfm_layout_free(layout);
	rfm_close(b);
	rfm_close(a);
}

static void a_late_joiner_gets_the_window(void **state)
{
	rfm_node *a = open_node(1), *b = open_node(2), *c;
	uint8_t pattern[WINDOW / 2], got[WINDOW / 2];

	(void)state;
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 3);
	assert_rfm_ok(rfm_mem_write(a, 0, pattern, sizeof(pattern) / 2));
	assert_rfm_ok(rfm_mem_write(b, sizeof(pattern) / 2, pattern + sizeof(pattern) / 2,
				    sizeof(pattern) / 2));
	/* c opens after both wrote: its open returns with their data. */
	c = open_node(3);
	assert_rfm_ok(rfm_mem_read(c, 0, got, sizeof(got)));
	assert_memory_equal(got, pattern, sizeof(got));
	/* And it goes on receiving. */
	assert_rfm_ok(rfm_event_enable(c, RFM_EVENT_BIT(RFM_EVENT_INTR4)));
	assert_rfm_ok(rfm_mem_poke64(a, WINDOW - 8, 0x1122334455667788ull));
	send_ok(rfm_event_send(a, 3, RFM_EVENT_INTR4, 9));
	assert_int_equal(wait_from(c, RFM_EVENT_INTR4, 1).data, 9);
	uint64_t v = 0;
	assert_rfm_ok(rfm_mem_peek64(c, WINDOW - 8, &v));
	assert_true(v == 0x1122334455667788ull);
	rfm_close(c);
	rfm_close(b);
	rfm_close(a);
}

static void presence_gives_node_up_and_down(void **state)
{
	static const struct rfm_health_config hc = { .struct_size = sizeof(hc),
						     .period_ns = 5000000 };
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	struct rfm_node_status rows[4];
	rfm_node *a = open_node(1), *b = open_node(2);

	(void)state;
	assert_rfm_ok(rfm_node_get_info(a, &info));
	assert_int_equal(info.nodes_attached, 2);
	assert_string_equal(info.backend, "dds");
	assert_rfm_ok(rfm_event_enable(a, RFM_EVENT_MASK_HEALTH));
	assert_rfm_ok(rfm_health_start(a, &hc));
	assert_rfm_ok(rfm_health_start(b, &hc));
	struct rfm_event up = wait_from(a, RFM_EVENT_NODE_UP, 2);
	assert_int_equal(rfm_health_nodes(a, rows, 4), 2);
	assert_int_equal(rows[1].id, 2);
	assert_int_equal(rows[1].attached, 1);
	assert_int_equal(rows[1].pid, getpid());
	char host[64] = "";
	gethostname(host, sizeof(host) - 1);
	assert_string_equal(rows[1].host, host);
	assert_int_equal(rows[1].incarnation, up.data);
	/* b closes: its presence is disposed, a hears it. */
	rfm_close(b);
	struct rfm_event down = wait_from(a, RFM_EVENT_NODE_DOWN, 2);
	assert_int_equal(down.data, up.data);
	assert_rfm_ok(rfm_node_get_info(a, &info));
	assert_int_equal(info.nodes_attached, 1);
	rfm_close(a);
}

/*
 * An event from another host takes tens of µs: the library's 20 µs spin
 * rarely catches one and takes the CPU from the receive thread, so dds:
 * waits sleep at once; spin=NS and rfm_event_set_spin() still rule.
 */
static void waits_sleep_at_once_unless_told(void **state)
{
	char uri[512];
	rfm_node *a, *b;

	(void)state;
	a = open_node(1);
	assert_int_equal(a->spin_ns, 0);
	snprintf(uri, sizeof(uri), "%s&spin=5000", harness_node_uri(&net, 2));
	assert_rfm_ok(rfm_open(uri, &b));
	assert_int_equal(b->spin_ns, 5000);
	assert_rfm_ok(rfm_event_set_spin(a, 7000));
	assert_int_equal(a->spin_ns, 7000);
	rfm_close(b);
	rfm_close(a);
}

/*
 * A handle runs one thread of its own (flushing held writes, the send
 * backlog, snapshot answers), with coalescing and with callbacks=receive.
 * Node 1 brings up Cyclone's threads for the domain; node 2 in the same
 * domain adds only its own.
 */
static void a_handle_runs_one_thread_of_its_own(void **state)
{
	char uri[512];
	rfm_node *a, *b;
	int before;

	(void)state;
	a = open_node(1);
	before = harness_thread_count();
	assert_true(before > 0);
	snprintf(uri, sizeof(uri), "%s&callbacks=receive", harness_node_uri(&net, 2));
	assert_rfm_ok(rfm_open(uri, &b));
	assert_int_equal(harness_thread_count(), before + 1);
	rfm_close(b);
	assert_int_equal(harness_thread_count(), before);
	rfm_close(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bad_uris_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(a_node_id_is_held_once, setup, teardown),
		cmocka_unit_test_setup_teardown(one_of_two_simultaneous_claims_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(simultaneous_joiners_pick_different_ids, setup,
						teardown),
		cmocka_unit_test_setup_teardown(two_nodes_opening_at_once_both_join, setup,
						teardown),
		cmocka_unit_test_setup_teardown(window_sizes_must_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(each_node_has_its_own_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(interrupts_follow_their_data, setup, teardown),
		cmocka_unit_test_setup_teardown(records_reach_the_other_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(typed_variables_reach_the_other_copy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_late_joiner_gets_the_window, setup, teardown),
		cmocka_unit_test_setup_teardown(presence_gives_node_up_and_down, setup, teardown),
		cmocka_unit_test_setup_teardown(waits_sleep_at_once_unless_told, setup, teardown),
		cmocka_unit_test_setup_teardown(a_handle_runs_one_thread_of_its_own, setup,
						teardown),
	};

	harness_init();
	harness_require_backend("dds");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
