/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's per-file event queue, compiled for user space: order,
 * sequence numbers, exact overflow counts and their announcement, and
 * records a reader takes out for a copy that may fault (take/settle).
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

/* Pops everything; checks the records' sequence numbers are first..last. */
static void expect_seqs(struct fixture *f, uint64_t first, uint64_t last)
{
	uint32_t n = rfm_evq_pop(&f->q, f->out, 4 * DEPTH);

	assert_int_equal(n, last - first + 1);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(f->out[i].seq, first + i);
	assert_true(rfm_evq_idle(&f->q));
}

static void a_fault_puts_the_undelivered_back_first(void **state)
{
	struct fixture *f = *state;
	struct rfm_dev_event batch[8];
	u64 gen;

	push_n(&f->q, 0, 5);
	assert_int_equal(rfm_evq_take(&f->q, batch, 8, &gen), 5);
	assert_true(rfm_evq_empty(&f->q));
	assert_false(rfm_evq_idle(&f->q));	/* resizing must wait for the copy */
	push_n(&f->q, 5, 2);			/* arrive during the copy */
	rfm_evq_settle(&f->q, batch, 5, 2, gen);	/* two reached the reader */
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 10), 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(f->out[i].seq, 3 + i);
		assert_int_equal(f->out[i].data, 2 + i);
	}
	assert_int_equal(f->q.queued, 7);
	assert_int_equal(f->q.dropped, 0);
}

static void slots_of_records_out_stay_reserved(void **state)
{
	struct fixture *f = *state;
	struct rfm_dev_event batch[DEPTH];
	u64 gen;

	push_n(&f->q, 0, DEPTH);
	assert_int_equal(rfm_evq_take(&f->q, batch, 10, &gen), 10);
	/* The queue counts as full: these three are dropped and announced. */
	push_n(&f->q, 0, 3);
	assert_int_equal(f->q.dropped, 3);
	rfm_evq_settle(&f->q, batch, 10, 0, gen);	/* all ten come back */
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4 * DEPTH), DEPTH + 1);
	for (int i = 0; i < DEPTH; i++)
		assert_int_equal(f->out[i].seq, i + 1);
	assert_int_equal(f->out[DEPTH].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[DEPTH].seq, DEPTH + 1);
	assert_int_equal(f->out[DEPTH].data, 3);
}

static void drops_while_the_overflow_record_is_out_are_announced(void **state)
{
	struct fixture *f = *state;
	struct rfm_dev_event batch[DEPTH + 1];
	u64 gen;

	push_n(&f->q, 0, DEPTH + 2);		/* overflow record says 2 */
	assert_int_equal(rfm_evq_take(&f->q, batch, DEPTH + 1, &gen), DEPTH + 1);
	assert_int_equal(batch[DEPTH].data, 2);
	push_n(&f->q, 0, 3);			/* no slot at all: held */
	assert_true(rfm_evq_empty(&f->q));
	rfm_evq_settle(&f->q, batch, DEPTH + 1, DEPTH + 1, gen);
	/* The reader saw 2; a new overflow record announces the other 3. */
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4), 1);
	assert_int_equal(f->out[0].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[0].data, 3);
	assert_int_equal(f->out[0].seq, batch[DEPTH].seq + 2);
	assert_int_equal(f->q.dropped, 5);
	push_n(&f->q, 0, 1);
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4), 1);
	assert_int_equal(f->out[0].seq, batch[DEPTH].seq + 5);
}

static void a_failed_copy_of_the_overflow_record_loses_no_count(void **state)
{
	struct fixture *f = *state;
	struct rfm_dev_event batch[DEPTH + 1];
	u64 gen;

	push_n(&f->q, 0, DEPTH + 2);
	assert_int_equal(rfm_evq_take(&f->q, batch, DEPTH + 1, &gen), DEPTH + 1);
	push_n(&f->q, 0, 3);
	rfm_evq_settle(&f->q, batch, DEPTH + 1, 0, gen);	/* nothing delivered */
	/* Every slot is taken again: the 3 are announced once room is made. */
	assert_int_equal(rfm_evq_pop(&f->q, f->out, 4 * DEPTH), DEPTH + 1);
	assert_int_equal(rfm_evq_pop(&f->q, f->out + DEPTH + 1, 4), 1);
	for (int i = 0; i < DEPTH; i++)
		assert_int_equal(f->out[i].seq, i + 1);
	assert_int_equal(f->out[DEPTH].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[DEPTH].seq, DEPTH + 1);
	assert_int_equal(f->out[DEPTH].data, 2);
	assert_int_equal(f->out[DEPTH + 1].type, RFM_DEV_EV_OVERFLOW);
	assert_int_equal(f->out[DEPTH + 1].seq, DEPTH + 3);
	assert_int_equal(f->out[DEPTH + 1].data, 3);
	assert_int_equal(f->q.dropped, 5);
}

static void two_readers_put_back_in_sequence_order(void **state)
{
	struct fixture *f = *state;
	struct rfm_dev_event a[4], b[4];
	u64 ga, gb;

	push_n(&f->q, 0, 10);
	assert_int_equal(rfm_evq_take(&f->q, a, 4, &ga), 4);	/* 1..4 */
	assert_int_equal(rfm_evq_take(&f->q, b, 4, &gb), 4);	/* 5..8 */
	rfm_evq_settle(&f->q, b, 4, 0, gb);			/* 5..8 back */
	rfm_evq_settle(&f->q, a, 4, 1, ga);			/* 2..4 back, before 5 */
	expect_seqs(f, 2, 10);
}

static void flush_discards_records_out_with_a_reader(void **state)
{
	struct fixture *f = *state;
	struct rfm_dev_event batch[8];
	u64 gen;

	push_n(&f->q, 0, 5);
	assert_int_equal(rfm_evq_take(&f->q, batch, 2, &gen), 2);
	rfm_evq_flush(&f->q);
	assert_false(rfm_evq_idle(&f->q));
	rfm_evq_settle(&f->q, batch, 2, 0, gen);	/* flushed: not put back */
	assert_true(rfm_evq_idle(&f->q));
	push_n(&f->q, 0, 1);
	expect_seqs(f, 6, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(fifo_order_and_fields, setup),
		cmocka_unit_test_setup(overflow_is_counted_and_announced, setup),
		cmocka_unit_test_setup(room_made_then_full_again, setup),
		cmocka_unit_test_setup(sequence_is_continuous_across_everything, setup),
		cmocka_unit_test_setup(a_fault_puts_the_undelivered_back_first, setup),
		cmocka_unit_test_setup(slots_of_records_out_stay_reserved, setup),
		cmocka_unit_test_setup(drops_while_the_overflow_record_is_out_are_announced, setup),
		cmocka_unit_test_setup(a_failed_copy_of_the_overflow_record_loses_no_count, setup),
		cmocka_unit_test_setup(two_readers_put_back_in_sequence_order, setup),
		cmocka_unit_test_setup(flush_discards_records_out_with_a_reader, setup),
	};

	return cmocka_run_group_tests_name("driver event queue", tests, NULL, NULL);
}
