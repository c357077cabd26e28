/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings across processes: several blocking consumers checking order and
 * checksums, back-pressure with zero loss over ten million messages, a
 * dead back-pressure consumer that stops holding the producer back,
 * consumers on two nodes that open at once (an entry each, both hold the
 * producer back, both get every record), and a
 * producer killed (SIGKILL, TerminateProcess()) reported to its consumer
 * by NODE_DOWN. Children signal readiness through the harness pipes and
 * are stopped by the PID recorded at their start; they are processes of
 * their own on Linux and on Windows (harness_child_spawn()).
 */
#include <sched.h>
#include <time.h>

#include "rfm-cmocka.h"

#define RING_OFF 4096
#define RING_SPACE (4 * 1024 * 1024)

/* The shared fixture's network (harness_fixture_network); children get a
 * copy (spawn()). */
static struct harness_network *net;

static int setup(void **state)
{
	int ret = harness_fixture_network(state, 8 * 1024 * 1024);

	net = *state;
	return ret;
}

static const char *uri_with(struct harness_network *n, int node, const char *extra)
{
	static char buf[HARNESS_URI_MAX + 64];

	snprintf(buf, sizeof(buf), "%s&%s", harness_node_uri(n, node), extra);
	return buf;
}

/*
 * What a child gets: the network and its node id, as bytes (on Windows a
 * child is this program started again, with none of our memory).
 */
struct kid_arg {
	struct harness_network net;
	int id;
};

static void spawn(struct harness_child *kid, harness_child_fn fn, int id)
{
	struct kid_arg a = { .net = *net, .id = id };

	harness_child_spawn(kid, fn, &a, sizeof(a));
}

/* ---- many consumers, blocking, with checksums ---- */

#define MANY_MSGS 100000u
#define MANY_CONSUMERS 3

struct msg64 {
	uint64_t seq;
	uint64_t words[6];
	uint64_t sum;
};

static void fill(struct msg64 *m, uint64_t seq)
{
	m->seq = seq;
	m->sum = seq;
	for (int i = 0; i < 6; i++) {
		m->words[i] = seq * 0x9e3779b97f4a7c15ull + (uint64_t)i;
		m->sum ^= m->words[i];
	}
}

struct report {
	uint64_t got, lost, bad, total;
};

static int consumer_child(struct harness_link *link, void *arg)
{
	struct kid_arg *a = arg;
	int id = a->id;
	rfm_node *node;
	rfm_ring_consumer *c;
	struct report rep = { 0 };

	/* spin=0: every empty take sleeps on the notification. */
	HARNESS_CHECK_RFM(rfm_open(uri_with(&a->net, id, "spin=0"), &node));
	HARNESS_CHECK_RFM(rfm_ring_consumer_open(node, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &c));
	harness_link_ready(link);
	for (uint64_t i = 0; i < MANY_MSGS; i++) {
		struct msg64 m;
		struct rfm_ring_msg info;

		HARNESS_CHECK_RFM(rfm_ring_consume(c, &m, sizeof(m), &info, -1));
		uint64_t sum = m.seq;
		for (int w = 0; w < 6; w++)
			sum ^= m.words[w];
		if (m.seq != i || info.seq != i || sum != m.sum || info.len != sizeof(m))
			rep.bad++;
		rep.lost += info.lost;
		rep.total += m.seq;
		rep.got++;
	}
	harness_link_send(link, &rep, sizeof(rep));
	rfm_ring_consumer_close(c);
	rfm_close(node);
	return 0;
}

static void test_many_consumers(void **state)
{
	struct harness_child kids[MANY_CONSUMERS];
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = sizeof(struct msg64),
		.slot_count = 256,
		.flags = RFM_RING_F_NOTIFY | RFM_RING_F_BACKPRESSURE,
	};
	rfm_node *prod;
	rfm_ring *r;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, RING_SPACE, &cfg, &r));
	for (int k = 0; k < MANY_CONSUMERS; k++) {
		spawn(&kids[k], consumer_child, 2 + k);
		assert_int_equal(harness_child_wait_ready(&kids[k]), 0);
	}
	for (uint64_t i = 0; i < MANY_MSGS; i++) {
		struct msg64 m;

		fill(&m, i);
		assert_rfm_ok(rfm_ring_publish(r, &m, sizeof(m), -1));
	}
	for (int k = 0; k < MANY_CONSUMERS; k++) {
		struct report rep;

		assert_int_equal(harness_child_recv(&kids[k], &rep, sizeof(rep)), 0);
		assert_int_equal(rep.got, MANY_MSGS);
		assert_int_equal(rep.bad, 0);
		assert_int_equal(rep.lost, 0);
		assert_int_equal(rep.total, (uint64_t)MANY_MSGS * (MANY_MSGS - 1) / 2);
		assert_int_equal(harness_child_wait(&kids[k]), 0);
	}
	rfm_ring_close(r);
	rfm_close(prod);
}

/* ---- back-pressure: ten million small messages, zero loss ---- */

#define BP_MSGS 10000000ull

static int bp_child(struct harness_link *link, void *arg)
{
	struct kid_arg *a = arg;
	rfm_node *node;
	rfm_ring_consumer *c;
	struct report rep = { 0 };

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(&a->net, 2), &node));
	HARNESS_CHECK_RFM(rfm_ring_consumer_open(node, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &c));
	harness_link_ready(link);
	for (uint64_t i = 0; i < BP_MSGS; i++) {
		uint64_t v;
		struct rfm_ring_msg info;

		HARNESS_CHECK_RFM(rfm_ring_consume(c, &v, sizeof(v), &info, -1));
		if (v != i || info.seq != i)
			rep.bad++;
		rep.lost += info.lost;
		rep.got++;
	}
	harness_link_send(link, &rep, sizeof(rep));
	rfm_ring_consumer_close(c);
	rfm_close(node);
	return 0;
}

static void test_backpressure_zero_loss(void **state)
{
	struct harness_child kid;
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = 8,
		.slot_count = 4096,
		.flags = RFM_RING_F_BACKPRESSURE,
	};
	struct report rep;
	rfm_node *prod;
	rfm_ring *r;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, RING_SPACE, &cfg, &r));
	spawn(&kid, bp_child, 0);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	for (uint64_t i = 0; i < BP_MSGS; i++)
		if (rfm_ring_publish(r, &i, sizeof(i), -1))
			fail_msg("publish %llu: %s", (unsigned long long)i, rfm_last_error());
	assert_int_equal(harness_child_recv(&kid, &rep, sizeof(rep)), 0);
	assert_int_equal(rep.got, BP_MSGS);
	assert_int_equal(rep.bad, 0);
	assert_int_equal(rep.lost, 0);
	assert_int_equal(harness_child_wait(&kid), 0);
	rfm_ring_close(r);
	rfm_close(prod);
}

/* ---- a dead back-pressure consumer stops holding the producer ---- */

static int idle_bp_child(struct harness_link *link, void *arg)
{
	struct kid_arg *a = arg;
	rfm_node *node;
	rfm_ring_consumer *c;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(&a->net, 3), &node));
	HARNESS_CHECK_RFM(rfm_ring_consumer_open(node, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &c));
	harness_link_ready(link);
	harness_link_wait_go(link); /* never comes: the parent kills us */
	return 0;
}

static void test_dead_consumer_releases(void **state)
{
	struct harness_child kid;
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = 8,
		.slot_count = 8,
		.flags = RFM_RING_F_BACKPRESSURE,
	};
	rfm_node *prod;
	rfm_ring *r;
	uint64_t v = 0;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, RING_SPACE, &cfg, &r));
	spawn(&kid, idle_bp_child, 0);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	for (int i = 0; i < 8; i++)
		assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 0), RFM_EOVERRUN);
	harness_child_kill(&kid);
	/* The producer notices on its own (liveness is looked at within a ms). */
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), -1));
	for (int i = 0; i < 100; i++)
		assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	rfm_ring_close(r);
	rfm_close(prod);
}

/* ---- consumers on two nodes open at once: one entry each ---- */

#define TWO_SLOTS 16u
#define TWO_WAIT_NS (20ll * 1000000000ll) /* bounds a take: a lost record fails, never hangs */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Wait until the producer's node sees @want registered consumers (where
 * each node has its own copy, their claims take a while to arrive).
 * Bounded: fails after TWO_WAIT_NS instead of hanging.
 */
static void wait_consumers_seen(rfm_node *prod, size_t want)
{
	struct rfm_ring_consumer_view v[4] = { [0].struct_size = sizeof(v[0]) };
	uint64_t start = mono_ns();
	size_t n = 0;

	for (;;) {
		assert_rfm_ok(rfm_ring_inspect(prod, RING_OFF, NULL, v, 4, &n));
		if (n >= want || mono_ns() - start > (uint64_t)TWO_WAIT_NS)
			break;
		sched_yield();
	}
	assert_int_equal(n, want);
	/* One entry each, on their own nodes' rows. */
	assert_int_equal(v[0].node, 2);
	assert_int_equal(v[1].node, 3);
	assert_int_equal(v[0].flags & RFM_RING_CONSUMER_BACKPRESSURE, RFM_RING_CONSUMER_BACKPRESSURE);
	assert_int_equal(v[1].flags & RFM_RING_CONSUMER_BACKPRESSURE, RFM_RING_CONSUMER_BACKPRESSURE);
	assert_int_equal(v[0].lag, 0);
	assert_int_equal(v[1].lag, 0);
}

/* Take @n records in order from @first; report how many matched. */
static uint64_t take_in_order(rfm_ring_consumer *c, uint64_t first, uint64_t n)
{
	uint64_t good = 0;

	for (uint64_t i = first; i < first + n; i++) {
		struct rfm_ring_msg m;
		uint64_t v = ~0ull;

		if (rfm_ring_consume(c, &v, sizeof(v), &m, TWO_WAIT_NS))
			break;
		good += v == i * 3 + 1 && m.seq == i && m.lost == 0;
	}
	return good;
}

static int two_nodes_child(struct harness_link *link, void *arg)
{
	struct kid_arg *a = arg;
	int id = a->id;
	rfm_node *node;
	rfm_ring_consumer *c;
	uint64_t good;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(&a->net, id), &node));
	HARNESS_CHECK_RFM(rfm_ring_consumer_open(node, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &c));
	harness_link_ready(link);
	harness_link_wait_go(link);
	good = take_in_order(c, 0, TWO_SLOTS);
	harness_link_send(link, &good, sizeof(good));
	harness_link_wait_go(link);
	good = take_in_order(c, TWO_SLOTS, 1);
	harness_link_send(link, &good, sizeof(good));
	harness_link_wait_go(link); /* stays registered until told */
	rfm_ring_consumer_close(c);
	rfm_close(node);
	return 0;
}

static void test_two_nodes_open_concurrently(void **state)
{
	struct harness_child kids[2];
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = 8,
		.slot_count = TWO_SLOTS,
		.flags = RFM_RING_F_BACKPRESSURE,
	};
	rfm_node *prod;
	rfm_ring *r;
	uint64_t v, good;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, RING_SPACE, &cfg, &r));
	/* Both start before either is waited for: their claims race. */
	spawn(&kids[0], two_nodes_child, 2);
	spawn(&kids[1], two_nodes_child, 3);
	assert_int_equal(harness_child_wait_ready(&kids[0]), 0);
	assert_int_equal(harness_child_wait_ready(&kids[1]), 0);
	wait_consumers_seen(prod, 2);

	/* One lap fits; the next record would lap both. */
	for (uint64_t i = 0; i < TWO_SLOTS; i++) {
		v = i * 3 + 1;
		assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	}
	v = TWO_SLOTS * 3 + 1;
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 0), RFM_EOVERRUN);

	/* Node 2 takes the lap; node 3 has not: still no room. */
	harness_child_go(&kids[0]);
	assert_int_equal(harness_child_recv(&kids[0], &good, sizeof(good)), 0);
	assert_int_equal(good, TWO_SLOTS);
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 0), RFM_EOVERRUN);

	/* Node 3 takes it too: room (once its cursor reaches the producer). */
	harness_child_go(&kids[1]);
	assert_int_equal(harness_child_recv(&kids[1], &good, sizeof(good)), 0);
	assert_int_equal(good, TWO_SLOTS);
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), TWO_WAIT_NS));

	for (int k = 0; k < 2; k++) {
		harness_child_go(&kids[k]);
		assert_int_equal(harness_child_recv(&kids[k], &good, sizeof(good)), 0);
		assert_int_equal(good, 1);
		harness_child_go(&kids[k]);
		assert_int_equal(harness_child_wait(&kids[k]), 0);
	}
	rfm_ring_close(r);
	rfm_close(prod);
}

/* ---- a producer killed with SIGKILL is reported by NODE_DOWN ---- */

static int producer_child(struct harness_link *link, void *arg)
{
	struct kid_arg *a = arg;
	struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = 5000000 };
	struct rfm_ring_config cfg = { .struct_size = sizeof(cfg), .slot_size = 8, .slot_count = 64 };
	rfm_node *node;
	rfm_ring *r;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(&a->net, 1), &node));
	HARNESS_CHECK_RFM(rfm_ring_create(node, RING_OFF, RING_SPACE, &cfg, &r));
	HARNESS_CHECK_RFM(rfm_health_start(node, &hc));
	for (uint64_t i = 0; i < 10; i++)
		HARNESS_CHECK_RFM(rfm_ring_publish(r, &i, sizeof(i), 0));
	harness_link_ready(link);
	harness_link_wait_go(link); /* never comes */
	return 0;
}

static void test_killed_producer(void **state)
{
	struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = 5000000 };
	struct harness_child kid;
	struct rfm_event ev;
	struct rfm_ring_msg m;
	rfm_node *node;
	rfm_ring_consumer *c;
	bool up = false;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &node));
	assert_rfm_ok(rfm_event_enable(node, RFM_EVENT_MASK_HEALTH));
	assert_rfm_ok(rfm_health_start(node, &hc));
	spawn(&kid, producer_child, 0);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	assert_rfm_ok(rfm_ring_consumer_open(node, RING_OFF, 0, &c));
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t v;
		assert_rfm_ok(rfm_ring_consume(c, &v, sizeof(v), &m, 0));
		assert_int_equal(v, i);
	}
	/* The producer is seen up, then killed and seen down. */
	while (!up) {
		assert_rfm_ok(rfm_event_wait(node, &ev, 10000000000ll));
		up = ev.type == RFM_EVENT_NODE_UP && ev.sender == 1;
	}
	harness_child_kill(&kid);
	for (;;) {
		assert_rfm_ok(rfm_event_wait(node, &ev, 10000000000ll));
		if (ev.type == RFM_EVENT_NODE_DOWN && ev.sender == 1)
			break;
	}
	assert_int_equal(ev.data, 1); /* the incarnation that died */
	rfm_ring_consumer_close(c);
	rfm_close(node);
}

/* ---- a producer killed while it holds a claimed slot ---- */

static int claiming_producer_child(struct harness_link *link, void *arg)
{
	struct kid_arg *a = arg;
	struct rfm_ring_config cfg = { .struct_size = sizeof(cfg), .slot_size = 64, .slot_count = 64 };
	struct msg64 m;
	rfm_node *node;
	rfm_ring *r;
	void *slot;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(&a->net, 1), &node));
	HARNESS_CHECK_RFM(rfm_ring_create(node, RING_OFF, RING_SPACE, &cfg, &r));
	for (uint64_t i = 0; i < 5; i++) {
		fill(&m, i);
		HARNESS_CHECK_RFM(rfm_ring_publish(r, &m, sizeof(m), 0));
	}
	/* Claim the next slot and write half a message into it, then die there. */
	HARNESS_CHECK_RFM(rfm_ring_claim(r, &slot, 0));
	fill(&m, 5);
	memcpy(slot, &m, sizeof(m) / 2);
	harness_link_ready(link);
	harness_link_wait_go(link); /* never comes: killed */
	return 0;
}

static void test_producer_killed_holding_slot(void **state)
{
	struct harness_child kid;
	struct rfm_ring_msg info;
	struct msg64 m;
	rfm_node *node, *heir;
	rfm_ring_consumer *c;
	rfm_ring *r;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &node));
	spawn(&kid, claiming_producer_child, 0);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	assert_rfm_ok(rfm_ring_consumer_open(node, RING_OFF, 0, &c));
	for (uint64_t i = 0; i < 5; i++) {
		assert_rfm_ok(rfm_ring_consume(c, &m, sizeof(m), &info, 0));
		assert_int_equal(m.seq, i);
	}
	/* The half-written slot is never handed out, before or after the death. */
	assert_rfm_code(rfm_ring_consume(c, &m, sizeof(m), &info, 0), RFM_EAGAIN);
	harness_child_kill(&kid);
	assert_int_equal(harness_child_wait(&kid), HARNESS_EXIT_KILLED);
	assert_rfm_code(rfm_ring_consume(c, &m, sizeof(m), &info, 0), RFM_EAGAIN);

	/* The id is reclaimed; a new producer takes the ring over and goes on. */
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &heir));
	assert_rfm_ok(rfm_ring_attach(heir, RING_OFF, &r));
	fill(&m, 5);
	assert_rfm_ok(rfm_ring_publish(r, &m, sizeof(m), 0));
	memset(&m, 0, sizeof(m));
	assert_rfm_ok(rfm_ring_consume(c, &m, sizeof(m), &info, 0));
	assert_int_equal(m.seq, 5);
	assert_int_equal(info.lost, 0);
	uint64_t sum = m.seq;
	for (int w = 0; w < 6; w++)
		sum ^= m.words[w];
	assert_int_equal(sum, m.sum);

	rfm_ring_close(r);
	rfm_close(heir);
	rfm_ring_consumer_close(c);
	rfm_close(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_many_consumers, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_backpressure_zero_loss, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_dead_consumer_releases, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_nodes_open_concurrently, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_killed_producer, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_producer_killed_holding_slot, setup, harness_fixture_teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
