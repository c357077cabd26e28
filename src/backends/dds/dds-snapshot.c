/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A late joiner's copy of the window on the dds: backend.
 *
 * The joiner asks one live peer (SNAP_REQ with a nonce). The peer answers
 * on its own stream, holding its send lock so that none of its own writes
 * slips in between: a HEADER with what it had applied of every writer's
 * stream (incarnation and last sequence number), CHUNKs of its copy, and
 * an END. Until the END the joiner keeps every other record it receives;
 * then it applies those newer than the header says (per writer), and from
 * there on treats a jump in a sequence as a gap. A write already in the
 * copy and applied again is harmless: it stores the same bytes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/dds/dds-internal.h"

struct dds_held *rfm__dds_held_new(const rfm_dds_Msg *m)
{
	struct dds_held *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->msg = *m;
	h->msg.data._buffer = NULL;
	h->msg.data._release = false;
	h->msg.data._maximum = m->data._length;
	if (m->data._length) {
		h->msg.data._buffer = malloc(m->data._length);
		if (!h->msg.data._buffer) {
			free(h);
			return NULL;
		}
		memcpy(h->msg.data._buffer, m->data._buffer, m->data._length);
	}
	return h;
}

void rfm__dds_hold(struct dds_node *d, const rfm_dds_Msg *m)
{
	struct dds_held *h = rfm__dds_held_new(m);

	if (!h) {
		d->gaps++; /* counted, like any record we could not apply */
		return;
	}
	*d->held_tail = h;
	d->held_tail = &h->next;
}

void rfm__dds_hold_seq(struct dds_node *d, const rfm_dds_Msg *m)
{
	rfm_dds_Msg place = *m;

	place.kind = 0; /* applied after the snapshot, it only moves the sequence on */
	place.data = (dds_sequence_octet){ 0 };
	rfm__dds_hold(d, &place);
}

void rfm__dds_held_free(struct dds_node *d)
{
	struct dds_held *h = d->held, *next;

	for (; h; h = next) {
		next = h->next;
		free(h->msg.data._buffer);
		free(h);
	}
	d->held = NULL;
	d->held_tail = &d->held;
}

void rfm__dds_snapshot_answer(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;

	/* A full list: the requester times out and asks again. */
	if (d->snap_pending < RFM_ARRAY_SIZE(d->snap_req)) {
		d->snap_req[d->snap_pending].to = req->writer;
		d->snap_req[d->snap_pending].nonce = req->word;
		d->snap_req[d->snap_pending].kind = req->type;
		__atomic_store_n(&d->snap_pending, d->snap_pending + 1, __ATOMIC_RELAXED);
	}
}

void rfm__dds_want_resync(struct rfm_node *node, unsigned int writer)
{
	struct dds_node *d = node->priv;

	if ((int)writer == d->id || !d->joined)
		return;
	d->resync_want[writer] = true;
	__atomic_store_n(&d->resync_pending, true, __ATOMIC_RELAXED);
}

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

		while (w < words && !(__atomic_load_n(&d->own[w / 64], __ATOMIC_RELAXED) >> (w % 64) & 1))
			w++;
		start = w;
		while (w < words && (w - start) * 8 < RFM_DDS_CHUNK &&
		       (__atomic_load_n(&d->own[w / 64], __ATOMIC_RELAXED) >> (w % 64) & 1))
			w++;
		end = w;
		if (end == start)
			break;
		uint32_t n = (uint32_t)((end - start) * 8);
		m.offset = start * 8;
		m.data = (dds_sequence_octet){ ._maximum = n, ._length = n,
					       ._buffer = d->window + start * 8 };
		ret = rfm__dds_send_locked(d, &m);
	}
	pthread_mutex_unlock(&d->pub_lock);
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

		pthread_mutex_lock(&d->lock);
		want = d->resync_want[w];
		d->resync_want[w] = false;
		pthread_mutex_unlock(&d->lock);
		if (!want)
			continue;
		rfm_dds_Msg req = { .kind = DDS_KIND_SNAP_REQ, .to = (uint16_t)w,
				    .type = DDS_REQ_OWN };
		if (rfm__dds_send(d, &req) == 0)
			__atomic_fetch_add(&d->resyncs, 1, __ATOMIC_RELAXED);
	}
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
	v->seq[d->id] = d->seq;
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
		ret = rfm__dds_send_locked(d, &m);
	}
	if (!ret) {
		m.type = DDS_SNAP_END;
		m.offset = 0;
		m.data = (dds_sequence_octet){ 0 };
		rfm__dds_send_locked(d, &m);
	}
	pthread_mutex_unlock(&d->pub_lock);
}

void rfm__dds_snapshot_answer_pending(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	struct dds_snap_vector *v = calloc(1, sizeof(*v));

	if (__atomic_exchange_n(&d->resync_pending, false, __ATOMIC_RELAXED))
		send_resyncs(d);
	if (!v)
		return; /* the joiner asks again */
	for (;;) {
		uint16_t to;
		uint32_t nonce, kind;

		pthread_mutex_lock(&d->lock);
		if (!d->snap_pending) {
			pthread_mutex_unlock(&d->lock);
			break;
		}
		to = d->snap_req[0].to;
		nonce = d->snap_req[0].nonce;
		kind = d->snap_req[0].kind;
		__atomic_store_n(&d->snap_pending, d->snap_pending - 1, __ATOMIC_RELAXED);
		memmove(&d->snap_req[0], &d->snap_req[1], d->snap_pending * sizeof(d->snap_req[0]));
		pthread_mutex_unlock(&d->lock);
		if (kind == DDS_REQ_BUSY)
			answer_busy(d, to, nonce);
		else if (kind == DDS_REQ_OWN)
			answer_own(d, to, nonce);
		else
			answer(d, v, to, nonce);
	}
	free(v);
}

/* Joined: apply what was held meanwhile, in the order it came. */
void rfm__dds_joined_apply_held(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	struct dds_held *h = d->held;

	d->joined = true;
	d->held = NULL;
	d->held_tail = &d->held;
	while (h) {
		struct dds_held *next = h->next;

		rfm__dds_apply(node, &h->msg);
		free(h->msg.data._buffer);
		free(h);
		h = next;
	}
	pthread_cond_broadcast(&d->cond);
	/* Requests held meanwhile are queued now: the handle's thread answers. */
	if (d->snap_pending)
		rfm__dds_thread_wake(d);
}

/* The END of our snapshot: take over its counters, then the held records. */
static void install(struct rfm_node *node, const rfm_dds_Msg *end)
{
	struct dds_node *d = node->priv;
	const struct dds_snap_vector *v = d->snap_vec;

	for (int w = 0; w < RFM_MAX_NODES; w++) {
		if (w == d->id)
			continue;
		d->peers[w].stream_inc = v->inc[w];
		d->peers[w].next_seq = v->inc[w] ? v->seq[w] + 1 : 0;
	}
	d->peers[end->writer].stream_inc = end->inc;
	d->peers[end->writer].next_seq = end->seq + 1;
	rfm__dds_joined_apply_held(node);
}

void rfm__dds_snapshot_piece(struct rfm_node *node, const rfm_dds_Msg *m)
{
	struct dds_node *d = node->priv;

	if (m->type == DDS_SNAP_OWN) {
		/* A resync we asked for: the giver's own words, in its order. */
		if (d->joined && m->offset <= d->size && m->data._length <= d->size - m->offset)
			rfm__dds_store(d, m->offset, m->data._buffer, m->data._length);
		return;
	}
	if (d->joined || m->writer != d->snap_from || m->word != d->snap_nonce)
		return; /* an answer to an earlier request */
	switch (m->type) {
	case DDS_SNAP_BUSY:
		d->snap_busy = true;
		pthread_cond_broadcast(&d->cond);
		return;
	case DDS_SNAP_HEADER:
		if (m->extra != d->size || m->data._length != sizeof(*d->snap_vec))
			return; /* presence checked sizes; a stray answer */
		memcpy(d->snap_vec, m->data._buffer, sizeof(*d->snap_vec));
		d->snap_header = true;
		return;
	case DDS_SNAP_CHUNK:
		if (d->snap_header && m->offset <= d->size &&
		    m->data._length <= d->size - m->offset)
			memcpy(d->window + m->offset, m->data._buffer, m->data._length);
		return;
	case DDS_SNAP_END:
		if (d->snap_header)
			install(node, m);
		return;
	default:
		return;
	}
}
