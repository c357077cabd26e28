/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's writer thread: takes rows from the queue and hands them
 * to the sink (HDF5, CSV), flushes the file every flush period, and at
 * the end closes it. Before a trigger it holds the rows in a buffer of
 * its own instead, as many as fit, and once the trigger fired writes
 * those of the pre-trigger time first. A write that fails (a full disk)
 * ends the recording: the sampler is told to stop, the file is closed
 * as it was at its last flush.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "recorder-internal.h"
#include "wait-notify.h"

/* Rows taken per look at the clock. */
#define DRAIN_BATCH 4096
/* rfm__backoff_sleep()'s step of its longest pause (1 ms). */
#define WRITER_PAUSE_STEP 7
/* Time slices of the pre-trigger time that count rows the hold buffer lost. */
#define PRE_SLICES 64

struct writer {
	struct rfm_recorder *r;
	bool holding;		/* before the trigger */
	struct rec_queue hold;
	uint64_t trigger;
	/* Rows evicted from the hold buffer, by time slice of the pre time. */
	uint64_t slice_ns;
	uint64_t slice_id[PRE_SLICES];
	uint64_t slice_count[PRE_SLICES];
};

void rfm__rec_fail(struct rfm_recorder *r, int err)
{
	int32_t none = 0;

	__atomic_compare_exchange_n(&r->n.error, &none, err, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
}

static int append(struct rfm_recorder *r, const struct rec_entry *e)
{
	int ret = r->sink->append(r, &r->streams[e->stream], e, (const uint8_t *)(e + 1));

	if (!ret)
		REC_ADD(r->n.rows_written, 1);
	return ret;
}

/* Keep @e (and its payload) until the trigger, evicting the oldest rows when full. */
static void hold(struct writer *w, const struct rec_entry *e)
{
	uint32_t len = (uint32_t)sizeof(*e) + e->len;
	void *p;

	while (!(p = rfm__rec_q_reserve(&w->hold, len))) {
		uint32_t old_len;
		const struct rec_entry *old = rfm__rec_q_peek(&w->hold, &old_len);
		if (!old)
			return;	/* cannot happen: every row fits the queue */
		uint64_t id = old->t_mono / w->slice_ns;
		unsigned int k = (unsigned int)(id % PRE_SLICES);
		if (w->slice_id[k] != id) {
			w->slice_id[k] = id;
			w->slice_count[k] = 0;
		}
		w->slice_count[k]++;
		rfm__rec_q_release(&w->hold, old_len);
	}
	memcpy(p, e, len);
	rfm__rec_q_commit(&w->hold);
}

/* The trigger fired: write the held rows of the pre-trigger time. */
static int release(struct writer *w)
{
	struct rfm_recorder *r = w->r;
	uint64_t from = w->trigger > r->pre_ns ? w->trigger - r->pre_ns : 0;
	const struct rec_entry *e;
	uint32_t len;
	int ret = 0;

	for (unsigned int k = 0; k < PRE_SLICES; k++)
		if (w->slice_count[k] && w->slice_id[k] >= from / w->slice_ns)
			REC_ADD(r->n.pre_lost, w->slice_count[k]);
	r->origin_ns = w->trigger;
	while (!ret && (e = rfm__rec_q_peek(&w->hold, &len))) {
		if (e->t_mono >= from)
			ret = append(r, e);
		rfm__rec_q_release(&w->hold, len);
	}
	w->holding = false;
	rfm__rec_q_free(&w->hold);
	return ret;
}

static int take(struct writer *w, const struct rec_entry *e)
{
	struct rfm_recorder *r = w->r;

	if (w->holding) {
		uint64_t trigger = REC_GET(r->n.trigger_ns);
		if (!trigger || e->t_mono < trigger) {
			hold(w, e);
			return 0;
		}
		w->trigger = trigger;
		int ret = release(w);
		if (ret)
			return ret;
	}
	return append(r, e);
}

/* Up to DRAIN_BATCH rows from the queue: how many, or an error of the sink. */
static int drain(struct writer *w)
{
	struct rfm_recorder *r = w->r;
	int n = 0;

	for (; n < DRAIN_BATCH; n++) {
		uint32_t len;
		const struct rec_entry *e = rfm__rec_q_peek(&r->queue, &len);

		if (!e)
			break;
		int ret = take(w, e);
		rfm__rec_q_release(&r->queue, len);
		if (ret)
			return ret;
	}
	return n;
}

static int flush(struct rfm_recorder *r)
{
	int ret = r->sink->flush(r);

	if (!ret)
		REC_SET(r->n.flushed_ns, rfm__now_ns());
	return ret;
}

/* After a failure: empty the queue until the sampler has stopped, writing nothing. */
static void discard(struct rfm_recorder *r)
{
	unsigned int step = 0;

	for (;;) {
		uint32_t len;
		bool done = __atomic_load_n(&r->sampler_done, __ATOMIC_ACQUIRE);

		while (rfm__rec_q_peek(&r->queue, &len))
			rfm__rec_q_release(&r->queue, len);
		if (done)
			return;
		rfm__backoff_sleep(step++, 0);
	}
}

void *rfm__rec_writer_main(void *arg)
{
	struct rfm_recorder *r = arg;
	struct writer w = { .r = r, .holding = r->trigger_kind != 0 };
	uint64_t next_flush = rfm__now_ns() + r->cfg.flush_ns;
	int ret = 0;

	if (w.holding) {
		w.slice_ns = r->pre_ns / PRE_SLICES ? r->pre_ns / PRE_SLICES : 1;
		ret = rfm__rec_q_init(&w.hold, r->cfg.queue_bytes);
	}
	while (!ret) {
		/* Read before draining: rows queued before the sampler ended are all seen. */
		bool done = __atomic_load_n(&r->sampler_done, __ATOMIC_ACQUIRE);
		int n = drain(&w);

		if (n < 0) {
			ret = n;
			break;
		}
		uint64_t now = rfm__now_ns();
		if (now >= next_flush && !w.holding) {
			ret = flush(r);
			next_flush = now + r->cfg.flush_ns;
		}
		if (n == 0 && done)
			break;
		/*
		 * Nothing queued: sleep a whole pause (1 ms) rather than look
		 * again at once. The writer has no deadline but the flush, and
		 * the queue holds far more than a millisecond of rows: waking
		 * per row would cost more than writing it.
		 */
		if (n == 0)
			rfm__backoff_sleep(WRITER_PAUSE_STEP, next_flush);
	}
	if (w.holding && !ret && REC_GET(r->n.trigger_ns)) {
		/* The trigger fired in the last pass: its rows are held. */
		w.trigger = REC_GET(r->n.trigger_ns);
		ret = release(&w);
	}
	rfm__rec_q_free(&w.hold);
	if (!ret)
		ret = flush(r);
	if (ret) {
		rfm__rec_fail(r, ret);
		discard(r);
	}
	int closed = r->sink->close(r, ret == 0);
	if (!ret && closed)
		rfm__rec_fail(r, closed);
	__atomic_store_n(&r->writer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}
