/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The handle's thread: one per dds: handle, for the work that neither a
 * caller nor Cyclone's receive thread may wait for.
 *
 *  - The batch of held writes no event took along goes out once per
 *    coalesce_ns while batches come (dds-coalesce.c). A batch begun since
 *    the last tick may go out early; none waits longer than a tick.
 *  - With callbacks=receive, the send backlog goes to Cyclone as its
 *    acknowledgements make room (dds-backlog.c): again after 50 µs, then
 *    twice as long each time, up to 5 ms.
 *  - Snapshot and resync requests are answered (dds-snapshot.c): sending
 *    a whole window may wait for acknowledgements, which a listener must
 *    never do. While the thread answers, the send lock is held for the whole
 *    copy, so a batch could not go out anyway. A request waiting for its
 *    requester's second (one answer of a kind a second) wakes it then.
 *  - A resync asked and not answered to its end is asked again
 *    (dds-answer.c): after 1 s without a piece of it, then 2, 4... 16 s.
 *  - While our stream moves, a MARK with its digest goes out at most every
 *    DIGEST_EVERY_NS (dds-digest.c).
 *  - When the heartbeat monitor reports a node down whose reader still
 *    matches our writer, the stream moves to a writer that does not wait
 *    for it, and back when it returns (dds-route.c).
 *
 * It sleeps on thread_futex, which whoever has work for it bumps, and
 * without a deadline once nothing comes. The tick looks before it locks:
 * the send lock is held for a whole dds_write(), and a tick blocked on it cost
 * the sender a futex wake when it let go. Where events follow the writes
 * (a request and its interrupt) the batch is nearly always empty at the
 * tick, so the lock is taken only to flush, to send the backlog, and to
 * fall asleep.
 */
#include "config.h"

#include <stdlib.h>

#include "backends/dds/dds-internal.h"

/* Ticks without a batch before the thread sleeps without a deadline. */
#define IDLE_TICKS 8u
#define RETRY_FIRST_US 50u
#define RETRY_LAST_US 5000u

/* A digest MARK (dds-digest.c) at most this often while the stream moves. */
#define DIGEST_EVERY_NS UINT64_C(200000000)

struct tick {
	uint32_t seen;		/* batches begun at the last tick */
	uint64_t marked_seq;	/* our stream's last sample when a digest MARK went */
	uint64_t mark_at;	/* when the next one goes (0: none due) */
	uint32_t quiet;		/* ticks since one began */
	uint32_t retry_us;	/* the backlog's next pause */
	uint64_t retry_at;	/* the earliest open resync's next ask (0: none) */
	uint64_t resyncs_seen;	/* resync requests sent when it was worked out */
};

/*
 * Look at the open resyncs only when one may be due: the earliest is,
 * or a request went out since (it may be due before the earliest). The
 * tick comes every coalesce_ns while writes flow; the look takes the
 * receive side's lock.
 */
static bool resync_retry_due(struct dds_node *d, const struct tick *t)
{
	if (!__atomic_load_n(&d->recv.resync_open, __ATOMIC_RELAXED))
		return t->retry_at != 0;
	return __atomic_load_n(&d->recv.resyncs, __ATOMIC_RELAXED) != t->resyncs_seen ||
	       rfm__now_ns() >= t->retry_at;
}

static bool requests_pending(struct dds_node *d)
{
	return __atomic_load_n(&d->answer.snap_pending, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&d->recv.resync_pending, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&d->answer.mark_pending, __ATOMIC_RELAXED);
}

/* Flush, send the backlog; when to look again (0: when woken). */
static uint64_t tick(struct dds_node *d, struct tick *t)
{
	uint32_t begun = __atomic_load_n(&d->send.batches, __ATOMIC_RELAXED);
	bool idle = false, left = false;

	t->quiet = begun == t->seen ? t->quiet + 1 : 0;
	t->seen = begun;
	if (!__atomic_load_n(&d->send.batch_len, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&d->send.backlog_bytes, __ATOMIC_RELAXED) && t->quiet < IDLE_TICKS)
		return rfm__now_ns() + d->send.coalesce_ns;
	rfm__dds_send_lock(d);
	if (d->send.batch_len)
		/* A failure loses a sequence number: receivers see a gap. */
		rfm__dds_flush_locked(d, NULL);
	if (d->send.backlog)
		left = rfm__dds_backlog_send_locked(d);
	/* Asleep only if nothing is left and no batch began since the look:
	 * the next batch, backlog or request wakes us. */
	if (!left && t->quiet >= IDLE_TICKS && d->send.batches == t->seen)
		idle = d->thread_idle = true;
	rfm__dds_send_unlock(d);
	if (left) {
		uint64_t at = rfm__now_ns() + (uint64_t)t->retry_us * 1000;

		t->retry_us = t->retry_us < RETRY_LAST_US / 2 ? t->retry_us * 2 : RETRY_LAST_US;
		return at;
	}
	t->retry_us = RETRY_FIRST_US;
	return idle ? 0 : rfm__now_ns() + d->send.coalesce_ns;
}

/*
 * The digest of our stream goes out in a MARK once it moved, at most every
 * DIGEST_EVERY_NS, so that a receiver sees within that time whether what
 * it took was ours (dds-digest.c); when to look again (0: when woken).
 */
static uint64_t digest_mark(struct dds_node *d, struct tick *t)
{
	uint64_t sent = __atomic_load_n(&d->send.sent_seq, __ATOMIC_RELAXED), now;

	if (sent == t->marked_seq)
		return 0;
	now = rfm__now_ns();
	if (!t->mark_at)
		t->mark_at = now + DIGEST_EVERY_NS;
	if (now < t->mark_at)
		return t->mark_at;
	if (!rfm__dds_send_digest(d))
		t->marked_seq = __atomic_load_n(&d->send.sent_seq, __ATOMIC_RELAXED);
	t->mark_at = 0;
	return 0;
}

static void *handle_main(void *arg)
{
	struct rfm_node *node = arg;
	struct dds_node *d = node->priv;
	struct tick t = { .retry_us = RETRY_FIRST_US };

	rfm__dds_on_handle_thread();
	for (;;) {
		uint32_t token = __atomic_load_n(&d->thread_futex, __ATOMIC_SEQ_CST);

		if (__atomic_load_n(&d->thread_stop, __ATOMIC_ACQUIRE))
			return NULL;
		/* Requests waiting for their requester's second: woken then. */
		uint64_t due = requests_pending(d) ? rfm__dds_snapshot_answer_pending(node) : 0;
		uint64_t at = tick(d, &t);

		if (due && (!at || due < at))
			at = due;

		if (resync_retry_due(d, &t)) {
			t.retry_at = rfm__dds_resync_retry(d, rfm__now_ns());
			t.resyncs_seen = __atomic_load_n(&d->recv.resyncs, __ATOMIC_RELAXED);
		}
		if (t.retry_at && (!at || t.retry_at < at))
			at = t.retry_at;
		/* A node reported down may be what holds our writes back. */
		uint64_t route = rfm__dds_route_step(d, false);
		if (route && (!at || route < at))
			at = route;
		uint64_t mark = digest_mark(d, &t);
		if (mark && (!at || mark < at))
			at = mark;
		rfm__futex_wait(&d->thread_futex, token, at, false);
	}
}

int rfm__dds_start_thread(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	int ret;

	if (d->send.coalesce_ns) {
		d->send.batch = malloc(RFM_DDS_BATCH_MAX);
		if (!d->send.batch)
			return rfm__error(RFM_ENOMEM, "dds:%s: out of memory", d->name);
	}
	d->send.scratch = malloc(RFM_DDS_CHUNK);
	if (!d->send.scratch)
		return rfm__error(RFM_ENOMEM, "dds:%s: out of memory", d->name);
	d->thread_idle = true;
	ret = rfm__rt_thread_create(node, &d->thread, handle_main, node, "dds handle");
	if (ret)
		return ret;
	d->thread_started = true;
	return 0;
}

void rfm__dds_stop_thread(struct dds_node *d)
{
	if (d->thread_started && !d->forked) {
		rfm__dds_send_lock(d);
		if (d->send.batch_len)
			rfm__dds_flush_locked(d, NULL); /* what was written goes out */
		rfm__dds_send_unlock(d);
		rfm__dds_backlog_drain(d); /* sent by the thread, still running */
		rfm__dds_send_lock(d);
		__atomic_store_n(&d->thread_stop, true, __ATOMIC_RELEASE);
		rfm__dds_send_unlock(d);
		rfm__dds_thread_wake(d);
		pthread_join(d->thread, NULL);
	}
	d->thread_started = false;
	rfm__dds_backlog_discard(d); /* left by a fork, or the drain's deadline */
	free(d->send.batch);
	d->send.batch = NULL;
	free(d->send.scratch);
	d->send.scratch = NULL;
}
