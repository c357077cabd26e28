/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network interrupts between nodes, written for every backend: on shm:
 * three processes' worth of nodes in one process, on dev: three cards of
 * one network (e.g. a lab guest with three virtual cards). Nothing here
 * assumes delivery is synchronous: every receive is a blocking wait (with
 * a generous timeout so a lost event fails instead of hanging CI), and
 * ordering is only asserted within one sender, or for loopback (which is
 * delivered during the send on every backend).
 */
#include "config.h"

#include "byteorder.h"
#include "rfm-cmocka.h"

/* Runs on every backend: `make check` runs it once more on each backend
 * the harness marks for an extra pass (dds:, run-dds-suites.sh). */
HARNESS_SHARED_SUITE(0);

#define WAIT_NS (30 * 1000 * 1000 * 1000LL)
#define ALL_TYPES RFM_EVENT_MASK_NETWORK

struct fixture {
	struct harness_network net;
	rfm_node *a, *b, *c;
	int ida, idb, idc;
};

#define FIXTURE_NODES(f) ((rfm_node **const[]){ &(f)->a, &(f)->b, &(f)->c })

static int setup(void **state)
{
	static const int ids[] = { 1, 2, 3 };
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || harness_fixture_nodes(&f->net, 64 * 1024, ids, FIXTURE_NODES(f), 3)) {
		free(f);
		return -1;
	}
	f->ida = rfm_node_id(f->a);
	f->idb = rfm_node_id(f->b);
	f->idc = rfm_node_id(f->c);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	harness_fixture_nodes_close(&f->net, FIXTURE_NODES(f), 3);
	free(f);
	return 0;
}

static struct rfm_event wait_one(rfm_node *node)
{
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_wait(node, &ev, WAIT_NS));
	return ev;
}

static void send_ok(rfm_node *node, int to, unsigned int type, uint32_t data)
{
	int ret = rfm_event_send(node, (unsigned int)to, type, data);

	if (ret < 0)
		fail_msg("rfm_event_send to %d: %s: %s", to, rfm_strerror(ret), rfm_last_error());
}

static void every_type_both_ways(void **state)
{
	struct fixture *f = *state;
	uint64_t before = rfm_event_now_ns();

	assert_rfm_ok(rfm_event_enable(f->b, ALL_TYPES));
	for (unsigned int t = RFM_EVENT_RESET; t <= RFM_EVENT_INTR4; t++)
		send_ok(f->a, f->idb, t, 100 + t);
	for (unsigned int t = RFM_EVENT_RESET; t <= RFM_EVENT_INTR4; t++) {
		struct rfm_event ev = wait_one(f->b);
		assert_int_equal(ev.type, t);
		assert_int_equal(ev.sender, f->ida);
		assert_int_equal(ev.data, 100 + t);
		assert_int_equal(ev.seq, t + 1);
		assert_int_equal(ev.flags, 0);
		/* One host's clock (shm:, or cards in one guest). */
		assert_true(ev.sent_ns >= before && ev.sent_ns <= rfm_event_now_ns());
	}
	assert_rfm_ok(rfm_event_enable(f->a, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	send_ok(f->b, f->ida, RFM_EVENT_INTR2, 0xdeadbeef);
	struct rfm_event ev = wait_one(f->a);
	assert_int_equal(ev.type, RFM_EVENT_INTR2);
	assert_int_equal(ev.sender, f->idb);
	assert_int_equal(ev.data, 0xdeadbeef);
	struct rfm_event none;
	assert_rfm_code(rfm_event_wait(f->a, &none, 1000000), RFM_ETIMEDOUT);
}

/* 200 strict round trips: the data written before each event is there. */
static void interrupts_follow_the_data(void **state)
{
	struct fixture *f = *state;
	uint8_t out[256], in[256];

	assert_rfm_ok(rfm_event_enable(f->b, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_rfm_ok(rfm_event_enable(f->a, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	for (uint32_t round = 1; round <= 200; round++) {
		uint32_t seq;

		for (size_t i = 0; i < sizeof(out); i++)
			out[i] = (uint8_t)(round * 31 + i);
		int ret = rfm_event_publish(f->a, 0x1000, out, sizeof(out), 0x800, (unsigned)f->idb,
					    RFM_EVENT_INTR1, &seq);
		if (ret < 0)
			fail_msg("publish: %s", rfm_last_error());
		assert_int_equal(seq, round);
		struct rfm_event ev = wait_one(f->b);
		assert_int_equal(ev.data, round);
		uint32_t flag;
		assert_rfm_ok(rfm_mem_peek32(f->b, 0x800, &flag));
		assert_int_equal(le32toh(flag), round); /* little-endian: the wire order */
		assert_rfm_ok(rfm_mem_read(f->b, 0x1000, in, sizeof(in)));
		assert_memory_equal(in, out, sizeof(in));
		send_ok(f->b, f->ida, RFM_EVENT_INTR2, round);
		assert_int_equal(wait_one(f->a).data, round);
	}
}

static void broadcast_reaches_every_other_node_once(void **state)
{
	struct fixture *f = *state;
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_enable(f->a, RFM_EVENT_BIT(RFM_EVENT_INTR3)));
	assert_rfm_ok(rfm_event_enable(f->b, RFM_EVENT_BIT(RFM_EVENT_INTR3)));
	assert_rfm_ok(rfm_event_enable(f->c, RFM_EVENT_BIT(RFM_EVENT_INTR3)));
	send_ok(f->a, RFM_NODE_ALL, RFM_EVENT_INTR3, 77);
	/* Then a unicast from the same sender: it must come next, no copy between. */
	send_ok(f->a, f->idb, RFM_EVENT_INTR3, 1);
	send_ok(f->a, f->idc, RFM_EVENT_INTR3, 2);
	ev = wait_one(f->b);
	assert_int_equal(ev.sender, f->ida);
	assert_int_equal(ev.data, 77);
	assert_int_equal(wait_one(f->b).data, 1);
	ev = wait_one(f->c);
	assert_int_equal(ev.data, 77);
	assert_int_equal(wait_one(f->c).data, 2);
	/* Not to the sender (no loopback): the first thing it gets is b's marker. */
	send_ok(f->b, f->ida, RFM_EVENT_INTR3, 3);
	ev = wait_one(f->a);
	assert_int_equal(ev.sender, f->idb);
	assert_int_equal(ev.data, 3);
}

static void loopback(void **state)
{
	struct fixture *f = *state;
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_enable(f->a, RFM_EVENT_BIT(RFM_EVENT_INTR4)));
	assert_rfm_ok(rfm_event_enable(f->b, RFM_EVENT_BIT(RFM_EVENT_INTR4)));
	assert_rfm_code(rfm_event_send(f->a, (unsigned)f->ida, RFM_EVENT_INTR4, 1), RFM_ESELF);
	assert_rfm_ok(rfm_node_set_loopback(f->a, 1));
	send_ok(f->a, f->ida, RFM_EVENT_INTR4, 5);
	/* Delivered during the send: no waiting needed. */
	assert_rfm_ok(rfm_event_wait(f->a, &ev, 0));
	assert_int_equal(ev.sender, f->ida);
	assert_int_equal(ev.data, 5);
	assert_int_equal(ev.flags, RFM_EVENT_F_LOOPBACK);
	send_ok(f->a, RFM_NODE_ALL, RFM_EVENT_INTR4, 6);
	assert_rfm_ok(rfm_event_wait(f->a, &ev, 0));
	assert_int_equal(ev.data, 6);
	assert_int_equal(ev.flags, RFM_EVENT_F_LOOPBACK);
	ev = wait_one(f->b);
	assert_int_equal(ev.data, 6);
	assert_int_equal(ev.flags, 0);
}

/* A full queue keeps the oldest records and counts every drop. */
static void overflow_counted_exactly(void **state)
{
	struct fixture *f = *state;
	struct rfm_event_stats st = { .struct_size = sizeof(st) };
	static struct rfm_event evs[1200];

	assert_rfm_ok(rfm_node_set_loopback(f->a, 1));
	assert_rfm_ok(rfm_event_enable(f->a, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_rfm_ok(rfm_event_get_stats(f->a, &st));
	assert_int_equal(st.depth, RFM_EVENT_QUEUE_MIN);
	for (uint32_t i = 0; i < RFM_EVENT_QUEUE_MIN + 100; i++)
		send_ok(f->a, f->ida, RFM_EVENT_INTR1, i);
	int n = rfm_event_fetch(f->a, evs, 1200, 0);
	int got = n;
	while (n > 0 && got < RFM_EVENT_QUEUE_MIN + 1 && (n = rfm_event_fetch(f->a, evs + got, 1200 - (size_t)got, 0)) > 0)
		got += n;
	assert_int_equal(got, RFM_EVENT_QUEUE_MIN + 1);
	assert_int_equal(evs[0].type, RFM_EVENT_OVERFLOW);
	assert_int_equal(evs[0].data, 100);
	for (int i = 1; i < got; i++) {
		assert_int_equal(evs[i].type, RFM_EVENT_INTR1);
		assert_int_equal(evs[i].data, (uint32_t)(i - 1));
		assert_int_equal(evs[i].seq, (uint64_t)i + 1);
	}
	assert_rfm_code(rfm_event_fetch(f->a, evs, 1, 0), RFM_EAGAIN);
	assert_rfm_ok(rfm_event_get_stats(f->a, &st));
	assert_int_equal(st.dropped, 100);
	assert_int_equal(st.overflows, 1);
	assert_int_equal(st.delivered, RFM_EVENT_QUEUE_MIN + 1);
}

static void two_handles_on_one_node_both_see(void **state)
{
	struct fixture *f = *state;
	rfm_node *b2;

	if (!harness_can(HARNESS_CAP_SHARED_NODE_ID)) {
		/* A node id is one handle there, as one card is one node. */
		assert_rfm_code(rfm_open(harness_node_uri(&f->net, f->idb), &b2), RFM_EINUSE);
		assert_last_error_has("in use by pid");
		return;
	}
	assert_rfm_ok(rfm_open(harness_shared_node_uri(&f->net, f->idb), &b2));
	assert_int_equal(rfm_node_id(b2), f->idb);
	assert_rfm_ok(rfm_event_enable(f->b, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_rfm_ok(rfm_event_enable(b2, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	send_ok(f->a, f->idb, RFM_EVENT_INTR1, 11);
	assert_int_equal(wait_one(f->b).data, 11);
	assert_int_equal(wait_one(b2).data, 11);
	rfm_close(b2);
}

/* The waitable an event loop watches (rfm_event_fd() on Linux,
 * rfm_event_handle() on Windows) becomes ready once an event is queued. */
static void the_waitable_becomes_ready(void **state)
{
	struct fixture *f = *state;
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_enable(f->c, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	assert_int_equal(harness_event_ready(f->c, 0), 0);
	send_ok(f->b, f->idc, RFM_EVENT_INTR2, 9);
	assert_int_equal(harness_event_ready(f->c, 30000), 1);
	assert_rfm_ok(rfm_event_wait(f->c, &ev, 0));
	assert_int_equal(ev.data, 9);
	assert_int_equal(ev.sender, f->idb);
}

static void cancel_and_timeout(void **state)
{
	struct fixture *f = *state;
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_enable(f->c, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	assert_rfm_code(rfm_event_wait(f->c, &ev, 1000000), RFM_ETIMEDOUT);
	assert_rfm_ok(rfm_event_cancel(f->c)); /* sticky: the next wait returns */
	assert_rfm_code(rfm_event_wait(f->c, &ev, -1), RFM_ECANCELED);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(every_type_both_ways),
		TEST(interrupts_follow_the_data),
		TEST(broadcast_reaches_every_other_node_once),
		TEST(loopback),
		TEST(overflow_counted_exactly),
		TEST(two_handles_on_one_node_both_see),
		TEST(the_waitable_becomes_ready),
		TEST(cancel_and_timeout),
	};

	harness_init();
	if (harness_node_ids() < 3) {
		fprintf(stderr, "SKIP: needs three node ids on one network, found %d\n",
			harness_node_ids());
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
