/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings in one process: ordering, exact lap counts, peek/release,
 * claim/commit, back-pressure refusals, blocking takes and callbacks,
 * layout regions, and corrupt headers refused with an error.
 */
#include "byteorder.h"
#include <pthread.h>

#include "rfm-cmocka.h"

/* Runs on every backend: `make check` runs it once more on each backend
 * the harness marks for an extra pass (dds:, run-dds-suites.sh). */
HARNESS_SHARED_SUITE(0);

#define RING_OFF 4096
#define RING_SPACE (256 * 1024)

struct fixture {
	struct harness_network net;
	rfm_node *prod;
	rfm_node *cons;
	uint8_t *base;
};

#define FIXTURE_NODES(f) ((rfm_node **const[]){ &(f)->prod, &(f)->cons })

static int setup(void **state)
{
	static const int ids[] = { 1, 2 };
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || harness_fixture_nodes(&f->net, 1024 * 1024, ids, FIXTURE_NODES(f), 2)) {
		free(f);
		return -1;
	}
	rfm_mem_map(f->cons, (void **)&f->base, NULL);
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

static struct rfm_ring_config config(uint32_t slot_size, uint32_t count, uint32_t flags)
{
	return (struct rfm_ring_config){
		.struct_size = sizeof(struct rfm_ring_config),
		.slot_size = slot_size,
		.slot_count = count,
		.flags = flags,
		.ring_id = 77,
	};
}

static void publish_u64(rfm_ring *r, uint64_t v)
{
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
}

static uint64_t consume_u64(rfm_ring_consumer *c, struct rfm_ring_msg *m)
{
	uint64_t v = 0;

	assert_rfm_ok(rfm_ring_consume(c, &v, sizeof(v), m, 0));
	assert_int_equal(m->len, sizeof(v));
	return v;
}

static void test_order(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(32, 16, 0);
	struct rfm_ring_msg m;
	rfm_ring *r;
	rfm_ring_consumer *c;
	uint64_t v;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	assert_rfm_code(rfm_ring_consume(c, &v, sizeof(v), &m, 0), RFM_EAGAIN);
	for (uint64_t i = 0; i < 1000; i++) {
		publish_u64(r, i * 3);
		assert_int_equal(consume_u64(c, &m), i * 3);
		assert_int_equal(m.seq, i);
		assert_int_equal(m.lost, 0);
	}
	/* A short buffer gets the prefix; len says the whole. */
	uint8_t big[20] = { 1, 2, 3, 4, 5 }, small[2];
	assert_rfm_ok(rfm_ring_publish(r, big, sizeof(big), 0));
	assert_rfm_ok(rfm_ring_consume(c, small, sizeof(small), &m, 0));
	assert_int_equal(m.len, 20);
	assert_int_equal(small[1], 2);
	/* Empty messages exist too. */
	assert_rfm_ok(rfm_ring_publish(r, NULL, 0, 0));
	assert_rfm_ok(rfm_ring_consume(c, NULL, 0, &m, 0));
	assert_int_equal(m.len, 0);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
}

static void test_exact_laps(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(8, 8, 0);
	struct rfm_ring_consumer_stats st = { .struct_size = sizeof(st) };
	struct rfm_ring_msg m;
	rfm_ring *r;
	rfm_ring_consumer *c, *newest;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	for (uint64_t i = 0; i < 20; i++)
		publish_u64(r, i);
	/* 20 published into 8 slots: 12 lost, the oldest valid is 12. */
	assert_int_equal(consume_u64(c, &m), 12);
	assert_int_equal(m.seq, 12);
	assert_int_equal(m.lost, 12);
	for (uint64_t i = 13; i < 20; i++) {
		assert_int_equal(consume_u64(c, &m), i);
		assert_int_equal(m.lost, 0);
	}
	assert_rfm_ok(rfm_ring_consumer_get_stats(c, &st));
	assert_int_equal(st.lost, 12);
	assert_int_equal(st.laps, 1);
	assert_int_equal(st.taken, 8);
	assert_int_equal(st.cursor, 20);

	/* A second lap of exactly 8 + 5 messages. */
	for (uint64_t i = 20; i < 33; i++)
		publish_u64(r, i);
	assert_int_equal(consume_u64(c, &m), 25);
	assert_int_equal(m.lost, 5);

	/* New consumers: oldest starts at the oldest valid, newest after the head. */
	rfm_ring_consumer *oldest;
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, RFM_RING_CONSUMER_OLDEST, &oldest));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, RFM_RING_CONSUMER_NEWEST, &newest));
	assert_int_equal(consume_u64(oldest, &m), 25);
	assert_int_equal(m.lost, 0);
	uint64_t v;
	assert_rfm_code(rfm_ring_consume(newest, &v, sizeof(v), &m, 0), RFM_EAGAIN);
	publish_u64(r, 33);
	assert_int_equal(consume_u64(newest, &m), 33);
	assert_int_equal(m.seq, 33);
	rfm_ring_consumer_close(oldest);
	rfm_ring_consumer_close(newest);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
}

static void test_peek_release(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(16, 4, 0);
	struct rfm_ring_msg m;
	const void *data;
	rfm_ring *r;
	rfm_ring_consumer *c;
	void *slot;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	/* Zero copy on both sides. */
	assert_rfm_ok(rfm_ring_claim(r, &slot, 0));
	assert_rfm_code(rfm_ring_claim(r, &slot, 0), RFM_EBUSY);
	assert_rfm_code(rfm_ring_consume(c, NULL, 0, &m, 0), RFM_EAGAIN); /* not committed */
	memcpy(slot, "hello", 6);
	assert_rfm_ok(rfm_ring_commit(r, 6));
	assert_rfm_code(rfm_ring_commit(r, 6), RFM_EINVAL);
	assert_rfm_ok(rfm_ring_peek(c, &data, &m, 0));
	assert_string_equal(data, "hello");
	assert_rfm_code(rfm_ring_peek(c, &data, &m, 0), RFM_EBUSY);
	assert_rfm_ok(rfm_ring_release(c));
	assert_rfm_code(rfm_ring_release(c), RFM_EINVAL);

	/* Overwritten while peeked: the release says so and it counts as lost. */
	publish_u64(r, 1);
	assert_rfm_ok(rfm_ring_peek(c, &data, &m, 0));
	assert_int_equal(m.seq, 1);
	for (uint64_t i = 2; i < 6; i++)
		publish_u64(r, i);
	assert_rfm_code(rfm_ring_release(c), RFM_ELAPPED);
	assert_int_equal(consume_u64(c, &m), 2);
	assert_int_equal(m.lost, 1);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
}

static void test_backpressure(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(8, 4, RFM_RING_F_BACKPRESSURE);
	struct rfm_ring_msg m;
	rfm_ring *r;
	rfm_ring_consumer *bp, *plain;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &bp));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &plain));
	for (uint64_t i = 0; i < 4; i++)
		publish_u64(r, i);
	uint64_t v = 4;
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 0), RFM_EOVERRUN);
	assert_last_error_has("overrun");
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 1000000), RFM_ETIMEDOUT);
	void *slot;
	assert_rfm_code(rfm_ring_claim(r, &slot, 0), RFM_EOVERRUN);
	/* The plain consumer does not hold the producer back. */
	assert_int_equal(consume_u64(plain, &m), 0);
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 0), RFM_EOVERRUN);
	assert_int_equal(consume_u64(bp, &m), 0);
	publish_u64(r, 4);
	/* Closing the registered consumer frees the producer. */
	rfm_ring_consumer_close(bp);
	for (uint64_t i = 5; i < 40; i++)
		publish_u64(r, i);
	rfm_ring_consumer_close(plain);

	/* Back-pressure asked of a ring without it. */
	struct rfm_ring_config cfg2 = config(8, 4, 0);
	rfm_ring *r2;
	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg2, &r2));
	assert_rfm_code(rfm_ring_consumer_open(f->cons, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &bp),
			RFM_ENOTSUP);
	rfm_ring_close(r2);
	rfm_ring_close(r);
}

static void test_table_full(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(8, 4, RFM_RING_F_NOTIFY);
	rfm_ring_consumer *c[3];
	rfm_ring *r;

	cfg.max_consumers = 2;
	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c[0]));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c[1]));
	assert_rfm_code(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c[2]), RFM_EFULL);
	rfm_ring_consumer_close(c[0]);
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c[2]));
	rfm_ring_consumer_close(c[1]);
	rfm_ring_consumer_close(c[2]);
	rfm_ring_close(r);
}

static void test_blocking(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(8, 16, RFM_RING_F_NOTIFY);
	struct rfm_ring_msg m;
	rfm_ring *r;
	rfm_ring_consumer *c;
	uint64_t v;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_event_set_spin(f->cons, 0));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	assert_rfm_code(rfm_ring_consume(c, &v, sizeof(v), &m, 1000000), RFM_ETIMEDOUT);
	/* The failed wait left an armed sleep: one publish sends one interrupt. */
	publish_u64(r, 9);
	assert_int_equal(consume_u64(c, &m), 9);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
}

struct cb_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t count, next, bad;
};

static void on_msg(rfm_ring_consumer *c, const void *data, const struct rfm_ring_msg *m, void *arg)
{
	struct cb_state *s = arg;
	uint64_t v;

	(void)c;
	memcpy(&v, data, sizeof(v));
	pthread_mutex_lock(&s->lock);
	if (v != s->next || m->seq != s->next || m->lost)
		s->bad++;
	s->next++;
	s->count++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void test_callback(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(8, 1024, RFM_RING_F_NOTIFY);
	struct cb_state s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0 };
	rfm_ring *r;
	rfm_ring_consumer *c, *plain;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &plain));
	/* Messages published before the callback are delivered too. */
	for (uint64_t i = 0; i < 10; i++)
		publish_u64(r, i);
	assert_rfm_ok(rfm_ring_consumer_set_callback(c, on_msg, &s));
	assert_rfm_code(rfm_ring_consumer_set_callback(c, on_msg, &s), RFM_EBUSY);
	for (uint64_t i = 10; i < 1000; i++)
		publish_u64(r, i);
	pthread_mutex_lock(&s.lock);
	assert_cond_wait_until(&s.cond, &s.lock, s.count >= 1000, "1000 messages to the callback");
	pthread_mutex_unlock(&s.lock);
	assert_int_equal(s.bad, 0);
	rfm_ring_consumer_close(c);
	rfm_ring_consumer_close(plain);
	rfm_ring_close(r);

	/* Callbacks need notify. */
	struct rfm_ring_config cfg2 = config(8, 4, 0);
	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg2, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	assert_rfm_code(rfm_ring_consumer_set_callback(c, on_msg, &s), RFM_ENOTSUP);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
}

static void test_bad_input(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = config(8, 6, 0);
	rfm_ring *r;
	uint64_t bytes;

	assert_rfm_code(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r), RFM_EINVAL);
	assert_last_error_has("power of two");
	cfg = config(0, 8, 0);
	assert_rfm_code(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r), RFM_EINVAL);
	cfg = config(8, 8, 0x80);
	assert_rfm_code(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r), RFM_EINVAL);
	cfg = config(8, 8, 0);
	cfg.notify_type = RFM_EVENT_OVERFLOW;
	assert_rfm_code(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r), RFM_EINVAL);
	cfg = config(8, 8, 0);
	assert_rfm_code(rfm_ring_create(f->prod, RING_OFF + 8, RING_SPACE, &cfg, &r), RFM_EALIGN);
	assert_rfm_code(rfm_ring_create(f->prod, RING_OFF, 64, &cfg, &r), RFM_ERANGE);
	assert_rfm_code(rfm_ring_create(f->prod, 1024 * 1024 - 64, 1 << 20, &cfg, &r), RFM_ERANGE);
	assert_rfm_code(rfm_ring_create(NULL, RING_OFF, RING_SPACE, &cfg, &r), RFM_EINVAL);
	assert_rfm_ok(rfm_ring_footprint(&cfg, &bytes));
	/* Header, slots, the 1 KiB directory, a row of the default 2 entries
	 * of 32 bytes per node id. */
	assert_int_equal(bytes, 128 + 8 * 64 + 1024 + 256 * 2 * 32);
	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	uint8_t big[9] = { 0 };
	assert_rfm_code(rfm_ring_publish(r, big, sizeof(big), 0), RFM_EINVAL);
	assert_rfm_code(rfm_ring_publish(NULL, big, 1, 0), RFM_EINVAL);
	assert_rfm_code(rfm_ring_commit(r, 1), RFM_EINVAL);
	rfm_ring_consumer *c;
	assert_rfm_code(rfm_ring_consumer_open(f->cons, RING_OFF, 0x100, &c), RFM_EINVAL);
	assert_rfm_code(rfm_ring_consumer_open(f->cons, 2 << 20, 0, &c), RFM_ERANGE);
	rfm_ring_close(r);
	rfm_ring_close(NULL);
	rfm_ring_consumer_close(NULL);
}

/*
 * Rewrite one header word and expect the consumer to refuse the ring. The
 * ring's words are little-endian on every host (architecture.md, "Byte
 * order in the window"): @value is stored in that order, so a big-endian
 * host corrupts the field the case names, with the value it names.
 */
static void expect_corrupt(struct fixture *f, size_t field, uint32_t value, int code)
{
	struct rfm_ring_config cfg = config(8, 8, 0);
	rfm_ring *r;
	rfm_ring_consumer *c = NULL;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	rfm_store32(f->base, RING_OFF + field, htole32(value));
	assert_rfm_code(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c), code);
	assert_null(c);
	rfm_ring_close(r);
}

/*
 * A valid rewrite is read as written: the producer word set to 3 in wire
 * order (a host-order store on a big-endian host reads as 0x03000000 and
 * is refused).
 */
static void producer_rewrite_read_as_written(struct fixture *f)
{
	struct rfm_ring_config cfg = config(8, 8, 0);
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	rfm_ring *r;
	rfm_ring_consumer *c;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	rfm_store32(f->base, RING_OFF + 24, htole32(3));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	assert_rfm_ok(rfm_ring_consumer_get_info(c, &info));
	assert_int_equal(info.producer, 3);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
}

static void test_corrupt_header(void **state)
{
	struct fixture *f = *state;

	expect_corrupt(f, 0, 0xdeadbeef, RFM_ECORRUPT);	/* magic */
	expect_corrupt(f, 4, 0x00800009, RFM_EVERSION);	/* version 9 */
	expect_corrupt(f, 8, 0, RFM_ECORRUPT);		/* slot size 0 */
	expect_corrupt(f, 12, 7, RFM_ECORRUPT);		/* slot count not a power of two */
	expect_corrupt(f, 12, 1u << 23, RFM_ECORRUPT);	/* runs past the window */
	expect_corrupt(f, 16, 4096, RFM_ECORRUPT);	/* stride */
	expect_corrupt(f, 24, 300, RFM_ECORRUPT);	/* producer id */
	expect_corrupt(f, 36, 1000, RFM_ECORRUPT);	/* consumer table size */
	expect_corrupt(f, 48, 0xffffff, RFM_ECORRUPT);	/* table offset */

	producer_rewrite_read_as_written(f);

	/* A slot length beyond the slot size: reported and skipped. */
	struct rfm_ring_config cfg = config(8, 8, 0);
	struct rfm_ring_msg m;
	rfm_ring *r;
	rfm_ring_consumer *c;
	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c));
	publish_u64(r, 1);
	publish_u64(r, 2);
	rfm_store32(f->base, RING_OFF + 128 + 8, htole32(0x7fffffff)); /* little-endian */
	uint64_t v;
	assert_rfm_code(rfm_ring_consume(c, &v, sizeof(v), &m, 0), RFM_ECORRUPT);
	assert_int_equal(consume_u64(c, &m), 2);
	assert_int_equal(m.lost, 1);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
}

static void test_layout_region(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "version: 1\n"
				   "window: 1M\n"
				   "regions:\n"
				   "  - { name: telemetry, offset: 0x10000, size: 0x10000, writer: 1 }\n";
	struct rfm_ring_config cfg = config(32, 64, 0);
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rfm_ring_msg m;
	rfm_layout *layout;
	rfm_ring *r;
	rfm_ring_consumer *c;

	assert_rfm_ok(rfm_layout_load_string(text, sizeof(text) - 1, "test", &layout, NULL));
	assert_rfm_code(rfm_ring_create_region(f->cons, layout, "telemetry", &cfg, &r), RFM_EOWNER);
	assert_rfm_code(rfm_ring_create_region(f->prod, layout, "nope", &cfg, &r), RFM_ENOTFOUND);
	assert_rfm_ok(rfm_ring_create_region(f->prod, layout, "telemetry", &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open_region(f->cons, layout, "telemetry", 0, &c));
	assert_rfm_ok(rfm_ring_consumer_get_info(c, &info));
	assert_int_equal(info.offset, 0x10000);
	assert_int_equal(info.producer, 1);
	assert_int_equal(info.slot_count, 64);
	publish_u64(r, 5);
	assert_int_equal(consume_u64(c, &m), 5);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
	rfm_layout_free(layout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exact_laps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peek_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layout_region, setup, teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
