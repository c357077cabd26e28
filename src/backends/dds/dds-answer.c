/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The giver's side of a snapshot on the dds: backend, run by the handle's
 * thread (dds-thread.c): the requests the receive side noted
 * (rfm__dds_snapshot_answer in dds-snapshot.c) are answered here, on our
 * own stream: a whole copy (HEADER, CHUNKs, END, holding the send lock so
 * that none of our own writes slips in between), our own words for a
 * resync, or BUSY while we are joining too (dds-join.c). The resync
 * requests the receive side wants are sent from here as well. Sending a
 * whole window may wait for acknowledgements, which a listener must never
 * do: hence the thread.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "backends/dds/dds-internal.h"

/*
 * Resync: send @to the words we wrote ourselves, in runs, on our stream.
 * Only ours: our copy of the others' words may be as stale as theirs.
 */
static void answer_own(struct dds_node *d, uint16_t to, uint32_t nonce)
{
	rfm_dds_Msg m = { .kind = DDS_KIND_SNAP, .to = to, .word = nonce,
			  .type = DDS_SNAP_OWN };
	uint64_t words = d->size / 8, w = 0;
	int ret = rfm__dds_lock_to_send(d);

	if (ret)
		return; /* the backlog stayed full: no answer (the message says why) */
	while (!ret && w < words) {
		uint64_t start, end;

		while (w < words &&
		       !(__atomic_load_n(&d->answer.own[w / 64], __ATOMIC_RELAXED) >> (w % 64) & 1))
			w++;
		start = w;
		while (w < words && (w - start) * 8 < RFM_DDS_CHUNK &&
		       (__atomic_load_n(&d->answer.own[w / 64], __ATOMIC_RELAXED) >> (w % 64) & 1))
			w++;
		end = w;
		if (end == start)
			break;
		uint32_t n = (uint32_t)((end - start) * 8);
		m.offset = start * 8;
		m.data = (dds_sequence_octet){ ._maximum = n, ._length = n,
					       ._buffer = d->window + start * 8 };
		ret = rfm__dds_backlog_room_locked(d);
		if (!ret)
			ret = rfm__dds_send_locked(d, &m);
	}
	/* The end, a piece with no data: the asker has every word (it asks
	 * again until this comes, even when we wrote nothing). */
	if (!ret) {
		m.offset = 0;
		m.data = (dds_sequence_octet){ 0 };
		rfm__dds_send_locked(d, &m);
	}
	rfm__dds_send_unlock(d);
}

/* We are joining too and @to has the lower id: it must not wait for us. */
static void answer_busy(struct dds_node *d, uint16_t to, uint32_t nonce)
{
	rfm_dds_Msg m = { .kind = DDS_KIND_SNAP, .to = to, .word = nonce,
			  .type = DDS_SNAP_BUSY };

	rfm__dds_send(d, &m); /* lost: it times out and asks the next peer */
}

/* Ask the writers we lost records of for their words (the handle's thread). */
static void send_resyncs(struct dds_node *d)
{
	for (int w = 0; w < RFM_MAX_NODES; w++) {
		bool want;

		uint32_t nonce;

		pthread_mutex_lock(&d->lock);
		want = d->recv.resync_want[w];
		d->recv.resync_want[w] = false;
		pthread_mutex_unlock(&d->lock);
		if (!want)
			continue;
		nonce = rfm__dds_nonce();
		pthread_mutex_lock(&d->lock);
		/* Its answers carry it; one to the request before is late. */
		d->recv.resync_nonce_before[w] = d->recv.resync_nonce[w];
		d->recv.resync_nonce[w] = nonce;
		if (!d->recv.resync_open_ns[w])
			__atomic_store_n(&d->recv.resync_open, d->recv.resync_open + 1,
					 __ATOMIC_RELAXED);
		d->recv.resync_open_ns[w] = rfm__now_ns();
		pthread_mutex_unlock(&d->lock);
		rfm_dds_Msg req = { .kind = DDS_KIND_SNAP_REQ, .to = (uint16_t)w, .word = nonce,
				    .type = DDS_REQ_OWN };
		if (rfm__dds_send(d, &req) == 0)
			__atomic_fetch_add(&d->recv.resyncs, 1, __ATOMIC_RELAXED);
	}
}

/* Unanswered this long (doubling with each try, up to 16 s): ask again. */
#define RESYNC_RETRY_NS UINT64_C(1000000000)
#define RESYNC_RETRY_MAX_SHIFT 4u

uint64_t rfm__dds_resync_retry(struct dds_node *d, uint64_t now)
{
	uint64_t next = 0;
	bool due = false;

	if (!__atomic_load_n(&d->recv.resync_open, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&d->lock);
	for (int w = 0; w < RFM_MAX_NODES; w++) {
		uint32_t shift = d->recv.resync_tries[w] < RESYNC_RETRY_MAX_SHIFT
				     ? d->recv.resync_tries[w]
				     : RESYNC_RETRY_MAX_SHIFT;
		uint64_t at = d->recv.resync_open_ns[w] + (RESYNC_RETRY_NS << shift);

		if (!d->recv.resync_open_ns[w])
			continue;
		/* A writer cut off is asked once it is back (its presence). */
		if (at <= now && d->peers[w].alive) {
			d->recv.resync_want[w] = true;
			d->recv.resync_tries[w]++;
			due = true;
			at = now;
		} else if (at <= now) {
			at = now + RESYNC_RETRY_NS;
		}
		next = !next || at < next ? at : next;
	}
	pthread_mutex_unlock(&d->lock);
	if (due)
		__atomic_store_n(&d->recv.resync_pending, true, __ATOMIC_RELAXED);
	return next;
}

int rfm__dds_send_digest(struct dds_node *d)
{
	/* The digest is filled in as it is numbered (dds-backlog.c). */
	rfm_dds_Msg m = { .kind = DDS_KIND_MARK, .to = RFM_NODE_ALL, .extra = DDS_MARK_DIGEST };
	int ret = rfm__dds_lock_to_send(d);

	if (ret)
		return ret;
	if (d->send.seq)
		ret = rfm__dds_send_locked(d, &m);
	rfm__dds_send_unlock(d);
	return ret;
}

/* A reader matched late: our stream's place, if we sent anything before
 * it (a gap there reports what it missed; it asks for our words). */
static void send_mark(struct dds_node *d)
{
	rfm__dds_send_digest(d);
}

/* Send our copy to @to: header, chunks, end, with no write of ours between. */
static void answer(struct dds_node *d, struct dds_snap_vector *v, uint16_t to, uint32_t nonce)
{
	rfm_dds_Msg m = { .kind = DDS_KIND_SNAP, .to = to, .word = nonce };

	if (rfm__dds_lock_to_send(d))
		return; /* the backlog stayed full: no answer (the message says why) */
	/*
	 * What we had applied of each stream. Records applied while the
	 * chunks go out may be in the copy too: the joiner applies them again
	 * after the END, which stores the same bytes.
	 */
	pthread_mutex_lock(&d->lock);
	for (int w = 0; w < RFM_MAX_NODES; w++) {
		v->inc[w] = d->peers[w].stream_inc;
		v->seq[w] = d->peers[w].next_seq ? d->peers[w].next_seq - 1 : 0;
	}
	pthread_mutex_unlock(&d->lock);
	v->inc[d->id] = d->inc;
	v->seq[d->id] = d->send.seq;
	m.type = DDS_SNAP_HEADER;
	m.extra = d->size;
	m.data = (dds_sequence_octet){ ._maximum = sizeof(*v), ._length = sizeof(*v),
				       ._buffer = (uint8_t *)v };
	int ret = rfm__dds_send_locked(d, &m);
	for (uint64_t off = 0; !ret && off < d->size; off += RFM_DDS_CHUNK) {
		uint32_t n = d->size - off < RFM_DDS_CHUNK ? (uint32_t)(d->size - off)
							    : RFM_DDS_CHUNK;

		m.type = DDS_SNAP_CHUNK;
		m.offset = off;
		m.data = (dds_sequence_octet){ ._maximum = n, ._length = n,
					       ._buffer = d->window + off };
		ret = rfm__dds_backlog_room_locked(d);
		if (!ret)
			ret = rfm__dds_send_locked(d, &m);
	}
	if (!ret) {
		m.type = DDS_SNAP_END;
		m.offset = 0;
		m.data = (dds_sequence_octet){ 0 };
		rfm__dds_send_locked(d, &m);
	}
	rfm__dds_send_unlock(d);
}

/* Under lock: the first request due at @now, taken off the list; false:
 * none is due, and *@next is when the first waiting one is (0: none). */
static bool take_due(struct dds_node *d, uint64_t now, uint32_t *to, uint32_t *nonce,
		     uint32_t *kind, uint64_t *next)
{
	*next = 0;
	for (uint32_t i = 0; i < d->answer.snap_pending; i++) {
		uint64_t due = d->answer.snap_req[i].due_ns;

		if (due > now) {
			*next = !*next || due < *next ? due : *next;
			continue;
		}
		*to = d->answer.snap_req[i].to;
		*nonce = d->answer.snap_req[i].nonce;
		*kind = d->answer.snap_req[i].kind;
		if (*to < RFM_MAX_NODES)
			d->peers[*to].answered_ns[*kind] = now; /* its next one waits a second */
		else
			d->observer_copy_ns = now; /* observers' (RFM_DDS_TO_OBSERVER) */
		__atomic_store_n(&d->answer.snap_pending, d->answer.snap_pending - 1,
				 __ATOMIC_RELAXED);
		memmove(&d->answer.snap_req[i], &d->answer.snap_req[i + 1],
			(d->answer.snap_pending - i) * sizeof(d->answer.snap_req[0]));
		return true;
	}
	return false;
}

uint64_t rfm__dds_snapshot_answer_pending(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	struct dds_snap_vector *v = calloc(1, sizeof(*v));
	uint64_t next = 0;

	if (__atomic_exchange_n(&d->answer.mark_pending, false, __ATOMIC_RELAXED))
		send_mark(d);
	if (__atomic_exchange_n(&d->recv.resync_pending, false, __ATOMIC_RELAXED))
		send_resyncs(d);
	if (!v)
		return rfm__now_ns() + 1000000; /* no memory now: again in 1 ms */
	for (;;) {
		uint32_t to, nonce, kind;

		pthread_mutex_lock(&d->lock);
		bool due = take_due(d, rfm__now_ns(), &to, &nonce, &kind, &next);
		pthread_mutex_unlock(&d->lock);
		if (!due)
			break;
		if (kind == DDS_REQ_BUSY)
			answer_busy(d, (uint16_t)to, nonce);
		else if (kind == DDS_REQ_OWN)
			answer_own(d, (uint16_t)to, nonce);
		else
			answer(d, v, (uint16_t)to, nonce);
	}
	free(v);
	return next;
}
