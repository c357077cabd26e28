/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm_ring_inspect(): what a monitor sees of a ring after known publishes
 * and takes (head, each consumer's node, cursor, lag, laps, back-pressure
 * flags), a lapped consumer's lap count, the region variant, a format 1
 * ring refused with a clear error, and bad arguments.
 */
#include <unistd.h>

#include "byteorder.h"
#include "rfm-cmocka.h"

#define RING_OFF 4096
#define RING_SPACE (256 * 1024)

struct fixture {
	struct harness_network net;
	rfm_node *prod, *cons, *monitor;
};

#define FIXTURE_NODES(f) ((rfm_node **const[]){ &(f)->prod, &(f)->cons, &(f)->monitor })

static int setup(void **state)
{
	static const int ids[] = { 1, 2, 5 };
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || harness_fixture_nodes(&f->net, 1024 * 1024, ids, FIXTURE_NODES(f), 3)) {
		free(f);
		return -1;
	}
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

static const struct rfm_ring_config cfg = {
	.struct_size = sizeof(struct rfm_ring_config),
	.slot_size = 8,
	.slot_count = 8,
	.flags = RFM_RING_F_NOTIFY | RFM_RING_F_BACKPRESSURE,
	.ring_id = 9,
};

static void publish(rfm_ring *r, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		assert_rfm_ok(rfm_ring_publish(r, &i, sizeof(i), 0));
}

static void take(rfm_ring_consumer *c, uint64_t n, struct rfm_ring_msg *m)
{
	uint64_t v;

	for (uint64_t i = 0; i < n; i++)
		assert_rfm_ok(rfm_ring_consume(c, &v, sizeof(v), m, 0));
}

static void test_values(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rfm_ring_consumer_view v[3] = { [0].struct_size = sizeof(v[0]) };
	struct rfm_ring_msg m;
	rfm_ring *r;
	rfm_ring_consumer *bp, *plain;
	size_t n = 99;

	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_ok(rfm_ring_inspect(f->monitor, RING_OFF, &info, v, 3, &n));
	assert_int_equal(n, 0);
	assert_int_equal(info.head, 0);
	assert_int_equal(info.producer, 1);
	assert_int_equal(info.slot_count, 8);

	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, RFM_RING_CONSUMER_BACKPRESSURE, &bp));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &plain));
	publish(r, 5);
	take(bp, 3, &m);

	assert_rfm_ok(rfm_ring_inspect(f->monitor, RING_OFF, &info, v, 3, &n));
	assert_int_equal(info.head, 5);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].node, 2);
	assert_int_equal(v[0].pid, (int32_t)getpid());
	assert_int_equal(v[0].flags, RFM_RING_CONSUMER_BACKPRESSURE);
	assert_int_equal(v[0].cursor, 3); /* an 8-slot ring: published every take */
	assert_int_equal(v[0].lag, 2);
	assert_int_equal(v[0].laps, 0);
	assert_int_equal(v[1].node, 2);
	assert_int_equal(v[1].flags, 0);
	assert_int_equal(v[1].cursor, 0);
	assert_int_equal(v[1].lag, 5);

	/* Up to the back-pressure consumer's limit: 3 + 8. The plain one is lapped. */
	publish(r, 6);
	uint64_t x = 0;
	assert_rfm_code(rfm_ring_publish(r, &x, sizeof(x), 0), RFM_EOVERRUN);
	take(plain, 1, &m);
	assert_int_equal(m.seq, 3);
	assert_int_equal(m.lost, 3);

	assert_rfm_ok(rfm_ring_inspect(f->monitor, RING_OFF, &info, v, 3, &n));
	assert_int_equal(info.head, 11);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].lag, 8);
	assert_int_equal(v[0].flags, RFM_RING_CONSUMER_BACKPRESSURE | RFM_RING_VIEW_HOLDING);
	assert_int_equal(v[1].laps, 1);
	assert_int_equal(v[1].cursor, 4);
	assert_int_equal(v[1].lag, 7);

	/* Fewer views than consumers: the count says how many there are. */
	memset(v, 0, sizeof(v));
	v[0].struct_size = sizeof(v[0]);
	assert_rfm_ok(rfm_ring_inspect(f->monitor, RING_OFF, NULL, v, 1, &n));
	assert_int_equal(n, 2);
	assert_int_equal(v[0].cursor, 3);
	assert_int_equal(v[1].struct_size, 0); /* untouched */

	/* An older caller's smaller element: each gets its own size. */
	/* (Words of 32 bits, as the view's first two fields: the same on any host.) */
	uint32_t small[3][4] __attribute__((aligned(8))) = { { 16 } };
	assert_rfm_ok(rfm_ring_inspect(f->monitor, RING_OFF, NULL,
				       (struct rfm_ring_consumer_view *)small, 2, &n));
	assert_int_equal(n, 2);
	assert_int_equal(small[0][0], 16); /* struct_size 16 */
	assert_int_equal(small[0][1], 2);  /* node 2 */
	assert_int_equal(small[1][0], 16);
	assert_int_equal(small[1][1], 2);
	assert_int_equal(small[2][0] | small[2][1], 0); /* past the caller's two: not written */

	rfm_ring_consumer_close(plain);
	take(bp, 8, &m);
	assert_rfm_ok(rfm_ring_inspect(f->monitor, RING_OFF, &info, v, 3, &n));
	assert_int_equal(n, 1);
	assert_int_equal(v[0].cursor, 11);
	assert_int_equal(v[0].lag, 0);
	rfm_ring_consumer_close(bp);
	assert_rfm_ok(rfm_ring_inspect(f->monitor, RING_OFF, &info, NULL, 0, &n));
	assert_int_equal(n, 0);
	rfm_ring_close(r);
}

static void test_region(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "version: 1\n"
				   "window: 1M\n"
				   "regions:\n"
				   "  - { name: telemetry, offset: 0x10000, size: 0x20000, writer: 1 }\n";
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rfm_ring_consumer_view v = { .struct_size = sizeof(v) };
	rfm_layout *layout;
	rfm_ring *r;
	rfm_ring_consumer *c;
	size_t n;

	assert_rfm_ok(rfm_layout_load_string(text, sizeof(text) - 1, "test", &layout, NULL));
	assert_rfm_ok(rfm_ring_create_region(f->prod, layout, "telemetry", &cfg, &r));
	assert_rfm_ok(rfm_ring_consumer_open(f->cons, 0x10000, 0, &c));
	publish(r, 2);
	assert_rfm_ok(rfm_ring_inspect_region(f->monitor, layout, "telemetry", &info, &v, 1, &n));
	assert_int_equal(info.offset, 0x10000);
	assert_int_equal(info.head, 2);
	assert_int_equal(n, 1);
	assert_int_equal(v.lag, 2);
	assert_rfm_code(rfm_ring_inspect_region(f->monitor, layout, "nope", &info, &v, 1, &n),
			RFM_ENOTFOUND);
	rfm_ring_consumer_close(c);
	rfm_ring_close(r);
	rfm_layout_free(layout);
}

static void test_old_format_and_bad_input(void **state)
{
	struct fixture *f = *state;
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	struct rfm_ring_consumer_view v = { .struct_size = 7 };
	rfm_ring *r;
	rfm_ring_consumer *c;
	size_t n;

	assert_rfm_code(rfm_ring_inspect(f->monitor, RING_OFF, &info, NULL, 0, &n), RFM_ECORRUPT);
	assert_rfm_ok(rfm_ring_create(f->prod, RING_OFF, RING_SPACE, &cfg, &r));
	assert_rfm_code(rfm_ring_inspect(f->monitor, RING_OFF, &info, &v, 1, &n), RFM_EINVAL);
	assert_rfm_code(rfm_ring_inspect(f->monitor, RING_OFF, &info, NULL, 1, &n), RFM_EINVAL);
	assert_rfm_code(rfm_ring_inspect(NULL, RING_OFF, &info, NULL, 0, &n), RFM_EINVAL);
	assert_rfm_code(rfm_ring_inspect(f->monitor, RING_OFF + 8, &info, NULL, 0, &n),
			RFM_EALIGN);

	/* A ring of format 1 (the shared table) is refused, saying so. */
	assert_rfm_ok(rfm_mem_poke16(f->prod, RING_OFF + 4, htole16(1))); /* little-endian */
	assert_rfm_code(rfm_ring_inspect(f->monitor, RING_OFF, &info, NULL, 0, &n), RFM_EVERSION);
	assert_non_null(strstr(rfm_last_error(), "format 1"));
	assert_rfm_code(rfm_ring_consumer_open(f->cons, RING_OFF, 0, &c), RFM_EVERSION);
	assert_non_null(strstr(rfm_last_error(), "create the ring again"));
	rfm_ring_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_format_and_bad_input, setup, teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
