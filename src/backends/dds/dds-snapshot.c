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
 *
 * This file is the joiner's side, below the receive side's dispatcher
 * (dds-receive.c): what to hold, the pieces, the install. When the END is
 * in, it returns true and the dispatcher applies what was held
 * (rfm__dds_joined_apply_held), since that applies samples again. The
 * requests it notes are answered by the handle's thread (dds-answer.c).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-clock.h"
#include "backends/dds/dds-internal.h"

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

/* Whole copies a requester gets at most once per this long: a joiner asks
 * again only after its wait of seconds. */
#define COPY_EVERY_NS UINT64_C(1000000000)

void rfm__dds_snapshot_answer(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;
	struct dds_peer *p = &d->peers[req->writer];

	/*
	 * Only a node whose held claim we took is answered (not only its
	 * pending one: a joiner asks after it holds its id). Not "alive": a
	 * node back from a partition may ask before its presence is back.
	 * What a requester asked again replaces what it asked before.
	 */
	if (!rfm__dds_guid_known(&p->participant)) {
		rfm__dds_refuse(d);
		if (req->type == DDS_REQ_OWN) {
			/* Answered if its claim comes: a node met late may ask first. */
			d->owe[req->writer] = true;
			d->owe_nonce[req->writer] = req->word;
		}
		return;
	}
	if (req->type == DDS_REQ_COPY && p->copy_ns && rfm__now_ns() - p->copy_ns < COPY_EVERY_NS) {
		rfm__dds_refuse(d);
		return;
	}
	for (uint32_t i = 0; i < d->snap_pending; i++)
		if (d->snap_req[i].to == req->writer && d->snap_req[i].kind == req->type) {
			d->snap_req[i].nonce = req->word;
			return;
		}
	/* A full list: the requester times out and asks again. */
	if (d->snap_pending < RFM_ARRAY_SIZE(d->snap_req)) {
		d->snap_req[d->snap_pending].to = req->writer;
		d->snap_req[d->snap_pending].nonce = req->word;
		d->snap_req[d->snap_pending].kind = req->type;
		__atomic_store_n(&d->snap_pending, d->snap_pending + 1, __ATOMIC_RELAXED);
	}
}

void rfm__dds_observe_request(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;
	uint32_t kind = DDS_REQ_COPY;

	/*
	 * Anyone may ask (an observer has no id to check): a copy goes out at
	 * most once a second, so that forged requests cannot keep the giver
	 * sending its window; a refused observer asks again after its wait.
	 * What it gets is what any reader of our stream sees anyway.
	 */
	if (!d->joined)
		kind = DDS_REQ_BUSY;
	else if (d->observer_copy_ns && rfm__now_ns() - d->observer_copy_ns < COPY_EVERY_NS) {
		rfm__dds_refuse(d);
		return;
	}
	if (d->snap_pending < RFM_ARRAY_SIZE(d->snap_req)) {
		d->snap_req[d->snap_pending].to = RFM_DDS_TO_OBSERVER;
		d->snap_req[d->snap_pending].nonce = req->word;
		d->snap_req[d->snap_pending].kind = kind;
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

/* The END of our snapshot: take over its counters (the caller applies
 * the held records, rfm__dds_joined_apply_held()). */
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
}

/* A piece of the resync we asked @m's writer for: it makes progress (the
 * retry waits from here) or it is the end (nothing left to ask). */
static void resync_piece(struct dds_node *d, const rfm_dds_Msg *m)
{
	if (m->data._length) {
		rfm__dds_store(d, m->offset, m->data._buffer, m->data._length);
		if (d->resync_open_ns[m->writer])
			d->resync_open_ns[m->writer] = rfm__now_ns();
		return;
	}
	if (d->resync_open_ns[m->writer]) {
		d->resync_open_ns[m->writer] = 0;
		d->resync_tries[m->writer] = 0;
		__atomic_store_n(&d->resync_open, d->resync_open - 1, __ATOMIC_RELAXED);
	}
}

bool rfm__dds_snapshot_piece(struct rfm_node *node, const rfm_dds_Msg *m)
{
	struct dds_node *d = node->priv;

	if (m->type == DDS_SNAP_OWN) {
		/* A resync we asked for: the giver's own words, in its order,
		 * then a piece with no data, its end. */
		if (d->joined && d->resync_nonce[m->writer] && m->word == d->resync_nonce[m->writer] &&
		    m->offset <= d->size && m->data._length <= d->size - m->offset)
			resync_piece(d, m);
		return false;
	}
	if (d->joined || m->writer != d->snap_from || m->word != d->snap_nonce)
		return false; /* an answer to an earlier request */
	switch (m->type) {
	case DDS_SNAP_BUSY:
		d->snap_busy = true;
		pthread_cond_broadcast(&d->cond);
		return false;
	case DDS_SNAP_HEADER:
		if (m->extra != d->size || m->data._length != sizeof(*d->snap_vec))
			return false; /* presence checked sizes; a stray answer */
		memcpy(d->snap_vec, m->data._buffer, sizeof(*d->snap_vec));
		d->snap_header = true;
		return false;
	case DDS_SNAP_CHUNK:
		if (d->snap_header && m->offset <= d->size &&
		    m->data._length <= d->size - m->offset)
			memcpy(d->window + m->offset, m->data._buffer, m->data._length);
		return false;
	case DDS_SNAP_END:
		if (!d->snap_header)
			return false;
		install(node, m);
		return true;
	default:
		return false;
	}
}

/* A COPY request for us while we join: BUSY to a lower id, kept otherwise. */
static void joining_request(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;

	if (req->type != DDS_REQ_COPY || req->writer > d->id) {
		rfm__dds_hold(d, req); /* answered once we have a copy */
		return;
	}
	rfm__dds_hold_seq(d, req);
	rfm__dds_snapshot_answer(node, &(rfm_dds_Msg){ .writer = req->writer, .word = req->word,
						      .type = DDS_REQ_BUSY });
}

bool rfm__dds_join_sample(struct rfm_node *node, const rfm_dds_Msg *m)
{
	struct dds_node *d = node->priv;
	/* An observer's pieces come to RFM_DDS_TO_OBSERVER, its nonce says whose. */
	uint32_t me = d->observer ? RFM_DDS_TO_OBSERVER : (uint32_t)d->id;

	if (!d->observer && m->to == me && m->kind == DDS_KIND_SNAP_REQ) {
		joining_request(node, m);
		return false;
	}
	if (m->to != me || m->kind != DDS_KIND_SNAP) {
		rfm__dds_hold(d, m); /* applied after the snapshot */
		return false;
	}
	/*
	 * The snapshot we join with: its END sets the sequence counters. Of
	 * anything else (a BUSY, a late answer to an earlier request) only its
	 * place in the writer's sequence is kept: no false gap after it.
	 */
	if (m->type == DDS_SNAP_BUSY || m->writer != d->snap_from || m->word != d->snap_nonce)
		rfm__dds_hold_seq(d, m);
	return rfm__dds_snapshot_piece(node, m);
}
