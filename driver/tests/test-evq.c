/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's per-file event queue, compiled for user space: order,
 * sequence numbers, exact overflow counts and their announcement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rfm-evq.h"

#define DEPTH 16

struct fixture {
	struct rfm_evq q;
	struct rfm_dev_event storage[DEPTH + 1];
	struct rfm_dev_event out[4 * DEPTH];
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	rfm_evq_init(&f.q, f.storage, DEPTH);
	*state = &f;
	return 0;
}

static void push_n(struct rfm_evq *q, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		rfm_evq_push(q, RFM_DEV_EV_INTR1, 0, 3, first + i, 100 + i, 200 + i);
}

static void fifo_order_and_fields(void **state)
{
	struct fixture *f = *state;

	assert_true(rfm_evq_empty(&f->q));
	assert_true(rfm_evq_push(&f->q, RFM_DEV_EV_INTR2, RFM_DEV_EVF_LOOPBACK, 7, 0xabc, 11, 22));
	push_n(&f->q, 0, 3);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 10), 4);
	assert_int_equal(f->out[0].type, RFM_DEV_EV_INTR2);
	assert_int_equal(f->out[0].flags, RFM_DEV_EVF_LOOPBACK);
	assert_int_equal(f->out[0].sender, 7);
	assert_int_equal(f->out[0].data, 0xabc);
	assert_int_equal(f->out[0].sent_ns, 11);
	assert_int_equal(f->out[0].rx_ns, 22);
	for (int i = 0; i < 4; i++)
		assert_int_equal(f->out[i].seq, i + 1);
	for (int i = 1; i < 4; i++)
		assert_int_equal(f->out[i].data, i - 1);
	assert_true(rfm_evq_empty(&f->q));
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 10), 0);
}

static void overflow_is_counted_and_announced(void **state)
{
	struct fixture *f = *state;

	push_n(&f->q, 0, DEPTH + 5);
	assert_int_equal(f->q.queued, DEPTH);
	assert_int_equal(f->q.dropped, 5);
	assert_int_equal(f->q.overflows, 1);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4 * DEPTH), DEPTH + 1);
	for (int i = 0; i < DEPTH; i++) {
		assert_int_equal(f->out[i].data, i);
		assert_int_equal(f->out[i].seq, i + 1);
	}
	assert_int_equal(f->out[DEPTH].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[DEPTH].data, 5);
	assert_int_equal(f->out[DEPTH].seq, DEPTH + 1);
	assert_int_equal(f->out[DEPTH].sender, RFM_DEV_NODE_NONE);

	/* After the drops, sequence numbers account for them. */
	push_n(&f->q, 1000, 1);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4), 1);
	assert_int_equal(f->out[0].seq, DEPTH + 5 + 1);
}

static void room_made_then_full_again(void **state)
{
	struct fixture *f = *state;

	push_n(&f->q, 0, DEPTH + 2);		/* DEPTH records + overflow(2) */
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 1), 1);
	/* Still DEPTH records stored (the overflow one included): drops go on
	 * into the same overflow record, which is still the newest. */
	push_n(&f->q, 100, 1);
	assert_int_equal(f->q.dropped, 3);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4 * DEPTH), DEPTH);
	assert_int_equal(f->out[DEPTH - 1].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[DEPTH - 1].data, 3);

	/* Empty again: new records are stored, and a new overflow record
	 * follows them when the queue fills. */
	push_n(&f->q, 0, DEPTH + 1);
	assert_int_equal(f->q.overflows, 2);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4 * DEPTH), DEPTH + 1);
	assert_int_equal(f->out[DEPTH].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[DEPTH].data, 1);
	assert_int_equal(f->out[DEPTH].seq, f->out[DEPTH - 1].seq + 1);
}

static void sequence_is_continuous_across_everything(void **state)
{
	struct fixture *f = *state;
	uint64_t next = 1, total = 0;

	for (int round = 0; round < 50; round++) {
		uint32_t n = (uint32_t)(round * 7 % (2 * DEPTH)) + 1;

		push_n(&f->q, 0, n);
		total += n;
		uint32_t got = rfm_evq_pop(&f->q, f->out, (uint32_t)(round % 3 == 0 ? 3 : 64));
		for (uint32_t i = 0; i < got; i++) {
			assert_int_equal(f->out[i].seq, next);
			next += f->out[i].type == RFM_DEV_EV_OVERFLOW ? f->out[i].data : 1;
		}
	}
	uint32_t got;
	while ((got = rfm_evq_pop(&f->q, f->out, 64)))
		for (uint32_t i = 0; i < got; i++) {
			assert_int_equal(f->out[i].seq, next);
			next += f->out[i].type == RFM_DEV_EV_OVERFLOW ? f->out[i].data : 1;
		}
	assert_int_equal(next - 1, total);
	assert_int_equal(f->q.queued + f->q.dropped, total);
}

static void consume_keeps_drops_counted_after_a_copy(void **state)
{
	struct fixture *f = *state;
	struct rfm_dev_event copy[4 * DEPTH];

	push_n(&f->q, 0, DEPTH + 2);		/* overflow record says 2 */
	uint32_t n = rfm_evq_peek(&f->q, copy, 4 * DEPTH);
	assert_int_equal(n, DEPTH + 1);
	assert_int_equal(copy[DEPTH].data, 2);
	/* While the reader copies out, three more are dropped. */
	push_n(&f->q, 0, 3);
	rfm_evq_consume(&f->q, copy, n);
	/* The reader saw 2; the overflow record now holds the other 3. */
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4), 1);
	assert_int_equal(f->out[0].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[0].data, 3);
	assert_int_equal(f->out[0].seq, copy[DEPTH].seq + 2);
	assert_int_equal(f->q.dropped, 5);
}

static void peek_does_not_remove_and_flush_keeps_sequence(void **state)
{
	struct fixture *f = *state;

	push_n(&f->q, 0, 5);
	assert_int_equal(rfm_evq_peek(&f->q, f->out, 2), 2);
	assert_int_equal(rfm_evq_peek(&f->q, f->out, 10), 5);
	rfm_evq_consume(&f->q, f->out, 2);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 10), 3);
	assert_int_equal(f->out[0].seq, 3);
	push_n(&f->q, 0, 4);
	rfm_evq_flush(&f->q);
	assert_true(rfm_evq_empty(&f->q));
	push_n(&f->q, 0, 1);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 10), 1);
	assert_int_equal(f->out[0].seq, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(fifo_order_and_fields, setup),
		cmocka_unit_test_setup(overflow_is_counted_and_announced, setup),
		cmocka_unit_test_setup(room_made_then_full_again, setup),
		cmocka_unit_test_setup(sequence_is_continuous_across_everything, setup),
		cmocka_unit_test_setup(consume_keeps_drops_counted_after_a_copy, setup),
		cmocka_unit_test_setup(peek_does_not_remove_and_flush_keeps_sequence, setup),
	};

	return cmocka_run_group_tests_name("driver event queue", tests, NULL, NULL);
}
