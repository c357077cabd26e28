/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The wire byte order of the library's structures in the window: a ring's
 * header, slots and consumer table, and a heartbeat slot, are
 * little-endian on every host (docs/architecture.md, "Byte order in the
 * window"). Each word is read here byte by byte, so the test means the same
 * on both kinds of host; on a big-endian host (s390x under qemu-user) a
 * library that wrote host order fails it. Also: a ring forged byte by byte
 * in little-endian order is read, and one in big-endian order (an older
 * library on a big-endian host) is refused saying so.
 * It reads and forges the window directly, so it needs one memory for
 * every node (on dds: that would be one node's copy).
 */
#include <unistd.h>

#include "rfm-cmocka.h"

#define RING_OFF 4096
#define FORGED_OFF (64 * 1024)
#define RING_SPACE (48 * 1024)
#define WINDOW (1024 * 1024)

struct fixture {
	struct harness_network net;
	rfm_node *prod;
	rfm_node *cons;
	uint8_t *base;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const int ids[] = { 1, 2 };

	if (!f)
		return -1;
	rfm_node **const nodes[] = { &f->prod, &f->cons };
	if (harness_fixture_nodes(&f->net, WINDOW, ids, nodes, 2)) {
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
	rfm_node **const nodes[] = { &f->prod, &f->cons };

	harness_fixture_nodes_close(&f->net, nodes, 2);
	free(f);
	return 0;
}

/* Little-endian words, byte by byte: the same on every host. */
static uint64_t le_get(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static void le_put(uint8_t *p, unsigned int bytes, uint64_t v)
{
	for (unsigned int i = 0; i < bytes; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void be_put(uint8_t *p, unsigned int bytes, uint64_t v)
{
	for (unsigned int i = bytes; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

/* The window at @off (shm: one memory for every node: no wait). */
static const uint8_t *window(struct fixture *f, uint64_t off)
{
	return f->base + off;
}

static void test_ring_words(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = 24,
		.slot_count = 8,
		.flags = RFM_RING_F_NOTIFY | RFM_RING_F_BACKPRESSURE,
		.ring_id = 0x01020304,
		.max_consumers = 3,
	};
	uint64_t footprint;
	rfm_ring *r;
	rfm_ring_consumer *c;

	assert_rfm_ok(rfm_ring_footprint(&cfg, &footprint));
	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &c));
	assert_rfm_ok(rfm_ring_publish(r, "hello", 5, 0));

	const uint8_t *h = window(f, RING_OFF);
	assert_memory_equal(h, "RING", 4);
	assert_int_equal(le_get(h + 4, 2), 2);		/* format */
	assert_int_equal(le_get(h + 6, 2), 128);	/* header size */
	assert_int_equal(le_get(h + 8, 4), 24);		/* slot size */
	assert_int_equal(le_get(h + 12, 4), 8);		/* slot count */
	assert_int_equal(le_get(h + 16, 4), 64);	/* stride: 16 + 24 rounded to 64 */
	assert_int_equal(le_get(h + 20, 4), cfg.flags);
	assert_int_equal(le_get(h + 24, 4), 1);		/* producer */
	assert_int_equal(le_get(h + 28, 4), RFM_EVENT_INTR3);
	assert_int_equal(le_get(h + 32, 4), 0x01020304);
	assert_int_equal(le_get(h + 36, 4), 3);
	assert_int_equal(le_get(h + 40, 8), 128);	/* slots offset */
	assert_int_equal(le_get(h + 48, 8), 128 + 8 * 64); /* table offset */
	assert_int_equal(le_get(h + 56, 8), footprint);
	assert_int_equal(le_get(h + 64, 8), 1);		/* head */

	const uint8_t *s = h + 128;
	assert_int_equal(le_get(s, 8), 2);		/* stamp: message 0 committed */
	assert_int_equal(le_get(s + 8, 4), 5);		/* length */
	assert_memory_equal(s + 16, "hello", 5);

	/* Node 2's directory word holds lane 0; its entry names it and us. */
	const uint8_t *table = h + 128 + 8 * 64;
	assert_int_equal(le_get(table + 2 * 4, 4), 1);
	const uint8_t *e = table + 256 * 4 + 2 * 3 * 32;
	assert_int_equal(le_get(e + 8, 4), 3);		/* owner: node id + 1 */
	assert_int_equal(le_get(e + 16, 4), (uint32_t)getpid());
	assert_int_equal(le_get(e + 20, 4), RFM_RING_CONSUMER_BACKPRESSURE);

	struct rfm_ring_msg m;
	char buf[24];
	assert_rfm_ok(rfm_ring_consume(c, buf, sizeof(buf), &m, 0));
	assert_int_equal(m.len, 5);
	assert_memory_equal(buf, "hello", 5);
	rfm_ring_consumer_close(c);
	h = window(f, RING_OFF);
	assert_int_equal(le_get(table + 2 * 4, 4), 0);	/* unlisted on close */
	rfm_ring_close(r);
}

/* A ring of 4 slots of 8 bytes holding message 0 "abc", in either order. */
static void forge_ring(uint8_t *at, void (*put)(uint8_t *, unsigned int, uint64_t))
{
	memset(at, 0, 128 + 4 * 64);
	put(at + 4, 2, 2);
	put(at + 6, 2, 128);
	put(at + 8, 4, 8);
	put(at + 12, 4, 4);
	put(at + 16, 4, 64);
	put(at + 24, 4, 1);
	put(at + 28, 4, RFM_EVENT_INTR3);
	put(at + 32, 4, 9);
	put(at + 36, 4, 1);
	put(at + 40, 8, 128);
	put(at + 48, 8, 128 + 4 * 64);
	put(at + 56, 8, 128 + 4 * 64 + 256 * 4 + 256 * 32);
	put(at + 64, 8, 1);
	put(at + 128, 8, 2);
	put(at + 128 + 8, 4, 3);
	memcpy(at + 128 + 16, "abc", 3);
	put(at, 4, 0x474e4952); /* "RING" */
}

static void test_forged_little_endian(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rfm_ring_msg m;
	rfm_ring_consumer *c;
	char buf[8];

	forge_ring(f->base + FORGED_OFF, le_put);
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, FORGED_OFF, 0, &c));
	assert_rfm_ok(rfm_ring_consumer_get_info(c, &info));
	assert_int_equal(info.slot_count, 4);
	assert_int_equal(info.ring_id, 9);
	assert_int_equal(info.head, 1);
	assert_rfm_ok(rfm_ring_consume(c, buf, sizeof(buf), &m, 0));
	assert_int_equal(m.seq, 0);
	assert_int_equal(m.len, 3);
	assert_memory_equal(buf, "abc", 3);
	assert_rfm_code(rfm_ring_consume(c, buf, sizeof(buf), &m, 0), RFM_EAGAIN);
	rfm_ring_consumer_close(c);
}

static void test_forged_big_endian(void **state)
{
	struct fixture *f = *state;
	rfm_ring_consumer *c = NULL;

	forge_ring(f->base + FORGED_OFF, be_put);
	assert_rfm_code(rfm_ring_consumer_open(f->cons, FORGED_OFF, 0, &c), RFM_ECORRUPT);
	assert_last_error_has("big-endian");
	assert_null(c);
}

static void test_heartbeat_words(void **state)
{
	struct fixture *f = *state;
	const uint64_t period = 20000000;

	assert_rfm_ok(rfm_health_beat(f->prod, period));
	assert_rfm_ok(rfm_health_beat(f->prod, period));
	uint64_t table = WINDOW - RFM_HEALTH_TABLE_SIZE;
	const uint8_t *s = window(f, table + 1 * RFM_HEALTH_SLOT_SIZE);
	assert_int_equal(le_get(s, 8), 2);		/* beats */
	assert_int_equal(le_get(s + 8, 8), period);
	assert_true(le_get(s + 16, 8) != 0);		/* the writer's clock */
	assert_memory_equal(s + 24, "RFHB", 4);
	assert_true(le_get(s + 28, 4) >= 1);		/* incarnation */
	assert_int_equal(le_get(s + 32, 4), (uint32_t)getpid());
	assert_int_equal(le_get(s + 40, 4), 1);		/* beating */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ring_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_little_endian, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_big_endian, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heartbeat_words, setup, teardown),
	};

	harness_init();
	harness_require(HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE | HARNESS_CAP_ONE_MEMORY,
			"reads and forges the window through one node's mapping");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
