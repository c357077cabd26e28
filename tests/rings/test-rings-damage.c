/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings and records that a dead or hostile writer damaged, and waits that
 * must sleep (a dead writer must cost neither a lost consumer nor a core):
 *  - slots filled with 0xff, and a scribbled head: a consumer reports what
 *    it lost and returns when its timeout ends, then follows the producer
 *    again; it never spins for ever;
 *  - rfm_event_cancel() (what a SIGTERM handler calls) ends a blocking
 *    take on a ring without notify;
 *  - a back-pressure publish that waits 3 s, and rfm_record_wait() on a
 *    notify record left odd by a dead writer, sleep: the waiting thread
 *    blocks in the kernel (its voluntary context switches, getrusage
 *    RUSAGE_THREAD: a wait that spins or yields makes none) and wakes no
 *    more often than its documented slices allow (a poll in short pauses
 *    makes thousands), and both still return when another process
 *    provides the condition.
 * A hang is turned into a failure by alarm(): SIGALRM ends the program.
 */
/* RUSAGE_THREAD */
#define _GNU_SOURCE
#include <endian.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rfm-cmocka.h"

#define RING_OFF 4096
#define HANG_ALARM_S 60
/* The back-pressure wait that times out. */
#define BP_WAIT_MS 3000

/* The shared fixture's network (harness_fixture_network), for the
 * children too: they inherit it through fork(). */
static struct harness_network *net;

static int setup(void **state)
{
	int ret = harness_fixture_network(state, 1024 * 1024);

	net = *state;
	alarm(HANG_ALARM_S);
	return ret;
}

static int teardown(void **state)
{
	alarm(0);
	return harness_fixture_teardown(state);
}

static struct rfm_ring_config config(uint32_t count, uint32_t flags)
{
	return (struct rfm_ring_config){
		.struct_size = sizeof(struct rfm_ring_config),
		.slot_size = 8,
		.slot_count = count,
		.flags = flags,
		.ring_id = 5,
	};
}

/*
 * Voluntary context switches of the calling thread so far: each is a
 * block in the kernel (a futex or a pause). A spinning wait makes none
 * and a yielding one none either (sched_yield() leaves the thread
 * runnable, counted as involuntary when another task runs), so these
 * counts, not CPU time, say that a wait slept and how often it woke.
 */
static uint64_t blocks_so_far(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
	return (uint64_t)ru.ru_nvcsw;
}

/* The ring's slot area as the window holds it: header, then 64-byte slots. */
static uint8_t *slots_of(rfm_node *node)
{
	uint8_t *base;

	assert_rfm_ok(rfm_mem_map(node, (void **)&base, NULL));
	return base + RING_OFF + 128;
}

static void fill_slots(rfm_node *node, uint32_t count)
{
	memset(slots_of(node), 0xff, (size_t)count * 64);
}

static void set_head(rfm_node *node, uint64_t head)
{
	uint8_t *base;

	assert_rfm_ok(rfm_mem_map(node, (void **)&base, NULL));
	/* The ring's words are little-endian on every host. */
	__atomic_store_n((uint64_t *)(base + RING_OFF + 64), htole64(head), __ATOMIC_RELEASE);
}

/* ---- item 6: damaged slots and head ---- */

static void check_ff_slots(uint32_t flags)
{
	struct rfm_ring_config cfg = config(8, flags);
	rfm_node *prod, *cons;
	rfm_ring *r;
	rfm_ring_consumer *c;
	struct rfm_ring_msg m;
	uint64_t v;

	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &cons));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, 64 * 1024, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(cons, RING_OFF, 0, &c));
	for (v = 0; v < 3; v++)
		assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	/* The producer "dies" and its slots turn to 0xff. */
	fill_slots(cons, 8);
	assert_int_equal(rfm_ring_consume(c, &v, sizeof(v), &m, 0), RFM_EAGAIN);
	assert_int_equal(rfm_ring_consume(c, &v, sizeof(v), &m, 50 * 1000000ll), RFM_ETIMEDOUT);
	/* A producer on its way again: the next message comes, the loss is told. */
	v = 100;
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	v = 0;
	assert_rfm_ok(rfm_ring_consume(c, &v, sizeof(v), &m, 1000 * 1000000ll));
	assert_int_equal(v, 100);
	assert_int_equal(m.seq, 3);
	assert_int_equal(m.lost, 3);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
	rfm_close(cons);
	rfm_close(prod);
}

static void test_ff_slots_plain(void **state)
{
	(void)state;
	check_ff_slots(0);
}

static void test_ff_slots_notify(void **state)
{
	(void)state;
	check_ff_slots(RFM_RING_F_NOTIFY);
}

static void test_scribbled_head(void **state)
{
	struct rfm_ring_config cfg = config(8, RFM_RING_F_NOTIFY);
	rfm_node *prod, *cons;
	rfm_ring *r;
	rfm_ring_consumer *c;
	struct rfm_ring_msg m;
	uint64_t v = 1;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &cons));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, 64 * 1024, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(cons, RING_OFF, 0, &c));
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	fill_slots(cons, 8);
	set_head(cons, UINT64_MAX - 3);
	assert_int_equal(rfm_ring_consume(c, &v, sizeof(v), &m, 50 * 1000000ll), RFM_ETIMEDOUT);
	/* The producer writes its own head back with its next messages. */
	for (v = 10; v < 12; v++)
		assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	assert_int_equal(rfm_ring_consume(c, &v, sizeof(v), &m, 50 * 1000000ll), RFM_ETIMEDOUT);
	v = 12;
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	v = 0;
	assert_rfm_ok(rfm_ring_consume(c, &v, sizeof(v), &m, 1000 * 1000000ll));
	assert_int_equal(v, 12);
	assert_int_equal(m.seq, 3);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
	rfm_close(cons);
	rfm_close(prod);
}

/* ---- cancel ends a wait that polls ---- */

static void test_cancel_plain_wait(void **state)
{
	struct rfm_ring_config cfg = config(8, 0);
	rfm_node *prod, *cons;
	rfm_ring *r;
	rfm_ring_consumer *c;
	struct rfm_ring_msg m;
	uint64_t v;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &cons));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, 64 * 1024, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(cons, RING_OFF, 0, &c));
	/* As `rfm ring tail`'s SIGTERM handler does; the cancel is kept for the wait. */
	assert_rfm_ok(rfm_event_cancel(cons));
	assert_int_equal(rfm_ring_consume(c, &v, sizeof(v), &m, -1), RFM_ECANCELED);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
	rfm_close(cons);
	rfm_close(prod);
}

/* ---- item 8: a back-pressure publish that waits sleeps ---- */

static int bp_consumer(struct harness_link *link, void *arg)
{
	rfm_node *node;
	rfm_ring_consumer *c;
	struct rfm_ring_msg m;
	uint64_t v, got = 0;

	(void)arg;
	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(net, 2), &node));
	HARNESS_CHECK_RFM(rfm_ring_consumer_open(node, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE,
						 &c));
	harness_link_ready(link);
	harness_link_wait_go(link);
	/* Take everything: the 8 that filled the ring and the one that waited. */
	for (uint64_t i = 0; i < 9; i++) {
		HARNESS_CHECK_RFM(rfm_ring_consume(c, &v, sizeof(v), &m, 10000 * 1000000ll));
		HARNESS_CHECK(v == i);
		got++;
	}
	harness_link_send(link, &got, sizeof(got));
	rfm_ring_consumer_close(c);
	rfm_close(node);
	return 0;
}

struct publisher {
	rfm_ring *r;
	uint64_t v;
	int ret;
};

static void *publish_thread(void *arg)
{
	struct publisher *p = arg;

	p->ret = rfm_ring_publish(p->r, &p->v, sizeof(p->v), 20000 * 1000000ll);
	return NULL;
}

static void test_backpressure_wait_sleeps(void **state)
{
	struct rfm_ring_config cfg = config(8, RFM_RING_F_BACKPRESSURE);
	struct harness_child kid;
	rfm_node *prod;
	rfm_ring *r;
	uint64_t v, blocks0, blocks, got = 0;
	pthread_t t;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &prod));
	/* No yield phase: every turn of the wait past its spin must sleep. */
	assert_rfm_ok(rfm_event_set_spin(prod, 0));
	assert_rfm_ok(rfm_ring_create(prod, RING_OFF, 64 * 1024, &cfg, &r));
	harness_child_start(&kid, bp_consumer, NULL);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	for (v = 0; v < 8; v++)
		assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	blocks0 = blocks_so_far();
	assert_int_equal(rfm_ring_publish(r, &v, sizeof(v), BP_WAIT_MS * 1000000ll), RFM_ETIMEDOUT);
	blocks = blocks_so_far() - blocks0;
	printf("# back-pressure wait of 3 s blocked %llu times\n", (unsigned long long)blocks);
	/*
	 * It sleeps on the header's futex in slices of at most 5 ms (ring.h),
	 * and nobody wakes it: at least one block, and no more than one per
	 * slice (a slow machine makes fewer, never more). Spinning or yielding
	 * blocks 0 times; a poll in 10 us-1 ms pauses 3000 times or more.
	 */
	assert_true(blocks >= 1);
	assert_true(blocks <= BP_WAIT_MS / 5 + 16);
	/* The consumer makes room from its process: the waiting publish goes through. */
	struct publisher p = { .r = r, .v = 8 };
	assert_int_equal(pthread_create(&t, NULL, publish_thread, &p), 0);
	harness_child_go(&kid);
	pthread_join(t, NULL);
	assert_rfm_ok(p.ret);
	assert_int_equal(harness_child_recv(&kid, &got, sizeof(got)), 0);
	assert_int_equal(got, 9);
	assert_int_equal(harness_child_wait(&kid), 0);
	rfm_ring_close(r);
	rfm_close(prod);
}

/* ---- item 8: a record left odd by a dead writer ---- */

static const char layout_text[] = "version: 1\n"
				  "window: 1M\n"
				  "regions:\n"
				  "  - name: state\n"
				  "    offset: 0x40000\n"
				  "    size: 0x100\n"
				  "    writer: 1\n"
				  "    records:\n"
				  "      - name: frame\n"
				  "        notify: intr2\n"
				  "        variables: [ { name: x, type: u64 } ]\n";

static int record_writer(struct harness_link *link, void *arg)
{
	rfm_layout *layout = NULL;
	rfm_node *node;
	rfm_record *rec;
	uint64_t x = 7;

	(void)arg;
	HARNESS_CHECK_RFM(rfm_layout_load_string(layout_text, strlen(layout_text), "t", &layout,
						 NULL));
	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(net, 1), &node));
	HARNESS_CHECK_RFM(rfm_record_open(layout, node, "state.frame", &rec));
	harness_link_ready(link);
	harness_link_wait_go(link);
	HARNESS_CHECK_RFM(rfm_record_write(rec, &x, sizeof(x)));
	rfm_record_close(rec);
	rfm_close(node);
	rfm_layout_free(layout);
	return 0;
}

struct waiter {
	rfm_record *rec;
	uint32_t last, seq;
	int ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->ret = rfm_record_wait(w->rec, w->last, 20000 * 1000000ll, &w->seq);
	return NULL;
}

static void test_record_wait_odd_sleeps(void **state)
{
	struct rfm_record_info info = { .struct_size = sizeof(info) };
	rfm_layout *layout = NULL;
	struct harness_child kid;
	rfm_node *node;
	rfm_record *rec;
	uint8_t *base;
	uint32_t seq0, seq;
	uint64_t blocks0, blocks, x = 0;
	pthread_t t;

	(void)state;
	assert_rfm_ok(rfm_layout_load_string(layout_text, strlen(layout_text), "t", &layout, NULL));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &node));
	assert_rfm_ok(rfm_record_open(layout, node, "state.frame", &rec));
	assert_rfm_ok(rfm_record_get_info(rec, &info));
	assert_rfm_ok(rfm_mem_map(node, (void **)&base, NULL));
	assert_rfm_ok(rfm_record_sequence(rec, &seq0));
	/* A writer died in the middle of a publish: the sequence stays odd. */
	__atomic_store_n((uint32_t *)(base + info.offset), htole32(seq0 | 1), /* little-endian */
			 __ATOMIC_RELEASE);
	blocks0 = blocks_so_far();
	assert_int_equal(rfm_record_wait(rec, seq0, 3000 * 1000000ll, &seq), RFM_ETIMEDOUT);
	blocks = blocks_so_far() - blocks0;
	printf("# record wait of 3 s on an odd sequence blocked %llu times\n",
	       (unsigned long long)blocks);
	/*
	 * Past its yields it sleeps on the record's event (intr2), which no
	 * one sends: a handful of blocks (the sleep, the enable), where a
	 * spinning or yielding wait makes none and a poll thousands.
	 */
	assert_true(blocks >= 1);
	assert_true(blocks <= 16);
	/* A new writer publishes from its process: the wait returns with it. */
	harness_child_start(&kid, record_writer, NULL);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	struct waiter w = { .rec = rec, .last = seq0 };
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	harness_child_go(&kid);
	pthread_join(t, NULL);
	assert_rfm_ok(w.ret);
	assert_int_equal(w.seq, (seq0 | 1) + 1);
	assert_true(rfm_record_read(rec, &x, sizeof(x), NULL) >= 0);
	assert_int_equal(x, 7);
	assert_int_equal(harness_child_wait(&kid), 0);
	rfm_record_close(rec);
	rfm_close(node);
	rfm_layout_free(layout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ff_slots_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ff_slots_notify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scribbled_head, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_plain_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backpressure_wait_sleeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_wait_odd_sleeps, setup, teardown),
	};

	harness_init();
	harness_require(HARNESS_CAP_FORK | HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE |
			    HARNESS_CAP_ONE_MEMORY,
			"scribbles on a ring through one node's mapping while others use it");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
