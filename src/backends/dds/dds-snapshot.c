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

#include "backends/dds/dds-internal.h"

void rfm__dds_hold(struct dds_node *d, const rfm_dds_Msg *m)
{
	struct dds_held *h = rfm__dds_held_new(m);

	if (!h) {
		d->recv.gaps++; /* counted, like any record we could not apply */
		return;
	}
	*d->join.held_tail = h;
	d->join.held_tail = &h->next;
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
	struct dds_held *h = d->join.held, *next;

	for (; h; h = next) {
		next = h->next;
		free(h->msg.data._buffer);
		free(h);
	}
	d->join.held = NULL;
	d->join.held_tail = &d->join.held;
}

/*
 * Every request makes us send (a whole copy, our own words, a BUSY), so a
 * requester gets at most one answer of each kind a second: a whole copy
 * asked again within it is refused (a joiner asks again only after its
 * wait of seconds); the other kinds wait for their second, the newest
 * replacing the one waiting (the replaced one is refused: it will not be
 * answered). A flood of resync requests gets one answer a second, not
 * one each (490 in 5 s once made a node send 71.9 MB).
 */
#define ANSWER_EVERY_NS UINT64_C(1000000000)

void rfm__dds_snapshot_answer(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;
	struct dds_peer *p = &d->peers[req->writer];
	uint64_t last = p->answered_ns[req->type], now = rfm__now_ns();
	bool recent = last && now - last < ANSWER_EVERY_NS;

	/*
	 * Only a node whose held claim we took is answered (not only its
	 * pending one: a joiner asks after it holds its id). Not "alive": a
	 * node back from a partition may ask before its presence is back.
	 */
	if (!rfm__dds_guid_known(&p->participant)) {
		rfm__dds_refuse(d);
		if (req->type == DDS_REQ_OWN) {
			/* Answered if its claim comes: a node met late may ask first. */
			d->answer.owe[req->writer] = true;
			d->answer.owe_nonce[req->writer] = req->word;
		}
		return;
	}
	if (req->type == DDS_REQ_COPY && recent) {
		rfm__dds_refuse(d);
		return;
	}
	for (uint32_t i = 0; i < d->answer.snap_pending; i++)
		if (d->answer.snap_req[i].to == req->writer &&
		    d->answer.snap_req[i].kind == req->type) {
			d->answer.snap_req[i].nonce = req->word;
			rfm__dds_refuse(d); /* the one it replaces */
			return;
		}
	/* A full list: the requester times out and asks again. */
	if (d->answer.snap_pending < RFM_ARRAY_SIZE(d->answer.snap_req)) {
		d->answer.snap_req[d->answer.snap_pending].to = req->writer;
		d->answer.snap_req[d->answer.snap_pending].nonce = req->word;
		d->answer.snap_req[d->answer.snap_pending].kind = req->type;
		d->answer.snap_req[d->answer.snap_pending].due_ns =
		    recent ? last + ANSWER_EVERY_NS : 0;
		__atomic_store_n(&d->answer.snap_pending, d->answer.snap_pending + 1,
				 __ATOMIC_RELAXED);
	} else {
		rfm__dds_refuse(d);
	}
}

void rfm__dds_request(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;

	/* Only what a node asks: a type of ours (BUSY is never on the wire)
	 * would otherwise be answered as whatever it falls through to. */
	if (req->type != DDS_REQ_COPY && req->type != DDS_REQ_OWN) {
		rfm__dds_refuse(d);
		return;
	}
	rfm__dds_snapshot_answer(node, req);
}

void rfm__dds_observe_request(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;
	uint32_t kind = d->join.joined ? DDS_REQ_COPY : DDS_REQ_BUSY;
	uint64_t now = rfm__now_ns();

	/*
	 * Anyone may ask (an observer has no id to check): all observers
	 * together get one answer a second (a copy, or a BUSY while we join),
	 * so that forged requests cannot keep the giver sending its window; a
	 * refused observer asks again after its wait. What it gets is what
	 * any reader of our stream sees anyway.
	 */
	if (d->observer_copy_ns && now - d->observer_copy_ns < ANSWER_EVERY_NS) {
		rfm__dds_refuse(d);
		return;
	}
	for (uint32_t i = 0; i < d->answer.snap_pending; i++)
		if (d->answer.snap_req[i].to == RFM_DDS_TO_OBSERVER) {
			rfm__dds_refuse(d); /* one observer's answer already waits */
			return;
		}
	if (d->answer.snap_pending < RFM_ARRAY_SIZE(d->answer.snap_req)) {
		d->answer.snap_req[d->answer.snap_pending].to = RFM_DDS_TO_OBSERVER;
		d->answer.snap_req[d->answer.snap_pending].nonce = req->word;
		d->answer.snap_req[d->answer.snap_pending].kind = kind;
		d->answer.snap_req[d->answer.snap_pending].due_ns = 0;
		__atomic_store_n(&d->answer.snap_pending, d->answer.snap_pending + 1,
				 __ATOMIC_RELAXED);
	} else {
		rfm__dds_refuse(d);
	}
}

void rfm__dds_want_resync(struct rfm_node *node, unsigned int writer)
{
	struct dds_node *d = node->priv;

	if ((int)writer == d->id || !d->join.joined)
		return;
	d->recv.resync_want[writer] = true;
	__atomic_store_n(&d->recv.resync_pending, true, __ATOMIC_RELAXED);
}

/* The END of our snapshot: take over its counters (the caller applies
 * the held records, rfm__dds_joined_apply_held()). */
static void install(struct rfm_node *node, const rfm_dds_Msg *end)
{
	struct dds_node *d = node->priv;
	const struct dds_snap_vector *v = d->join.snap_vec;

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
		if (d->recv.resync_open_ns[m->writer])
			d->recv.resync_open_ns[m->writer] = rfm__now_ns();
		return;
	}
	if (d->recv.resync_open_ns[m->writer]) {
		d->recv.resync_open_ns[m->writer] = 0;
		d->recv.resync_tries[m->writer] = 0;
		__atomic_store_n(&d->recv.resync_open, d->recv.resync_open - 1, __ATOMIC_RELAXED);
	}
}

/* Was @nonce one of the copies we asked @peer for (an answer to a retry's
 * request that came late, not one nobody asked for)? */
static bool copy_asked(const struct dds_node *d, unsigned int peer, uint32_t nonce)
{
	for (size_t i = 0; i < RFM_ARRAY_SIZE(d->join.snap_asked); i++)
		if (i < d->join.snap_asks && d->join.snap_asked[i].peer == peer &&
		    d->join.snap_asked[i].nonce == nonce)
			return true;
	return false;
}

/* A resync piece: used if it answers the resync we asked, refused if
 * nobody asked it or it does not fit (late answers are left alone). */
static void resync_answer(struct dds_node *d, const rfm_dds_Msg *m)
{
	uint32_t asked = d->recv.resync_nonce[m->writer];

	if (d->join.joined && asked && m->word == asked) {
		if (m->offset <= d->size && m->data._length <= d->size - m->offset)
			resync_piece(d, m);
		else
			rfm__dds_refuse(d);
	} else if (!m->word || m->word != d->recv.resync_nonce_before[m->writer]) {
		rfm__dds_refuse(d);
	}
}

/* A piece of the copy we asked for (writer and nonce checked); refused
 * when it is not a well-formed part in its place. */
static bool copy_piece(struct rfm_node *node, const rfm_dds_Msg *m)
{
	struct dds_node *d = node->priv;

	switch (m->type) {
	case DDS_SNAP_BUSY:
		d->join.snap_busy = true;
		pthread_cond_broadcast(&d->cond);
		return false;
	case DDS_SNAP_HEADER:
		/* Presence checked the sizes: another size is no answer of its. */
		if (m->extra != d->size || m->data._length != sizeof(*d->join.snap_vec)) {
			rfm__dds_refuse(d);
			return false;
		}
		memcpy(d->join.snap_vec, m->data._buffer, sizeof(*d->join.snap_vec));
		d->join.snap_header = true;
		d->join.snap_pieces++;
		return false;
	case DDS_SNAP_CHUNK:
		if (d->join.snap_header && m->offset <= d->size &&
		    m->data._length <= d->size - m->offset) {
			memcpy(d->window + m->offset, m->data._buffer, m->data._length);
			d->join.snap_pieces++;
		} else {
			rfm__dds_refuse(d);
		}
		return false;
	case DDS_SNAP_END:
		if (!d->join.snap_header) {
			rfm__dds_refuse(d);
			return false;
		}
		install(node, m);
		return true;
	default:
		rfm__dds_refuse(d);
		return false;
	}
}

bool rfm__dds_snapshot_piece(struct rfm_node *node, const rfm_dds_Msg *m)
{
	struct dds_node *d = node->priv;

	if (m->type == DDS_SNAP_OWN) {
		/* A resync we asked for: the giver's own words, in its order,
		 * then a piece with no data, its end. */
		resync_answer(d, m);
		return false;
	}
	if (d->join.joined || m->writer != d->join.snap_from || m->word != d->join.snap_nonce) {
		if (!copy_asked(d, m->writer, m->word))
			rfm__dds_refuse(d); /* nobody asked for it */
		return false; /* else an answer to an earlier request */
	}
	return copy_piece(node, m);
}

/* A COPY request for us while we join: BUSY to a lower id, kept otherwise. */
static void joining_request(struct rfm_node *node, const rfm_dds_Msg *req)
{
	struct dds_node *d = node->priv;

	if (req->type != DDS_REQ_COPY || req->writer > d->id) {
		rfm__dds_hold(d, req); /* answered (or refused) once we have a copy */
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
	if (m->type == DDS_SNAP_BUSY || m->writer != d->join.snap_from ||
	    m->word != d->join.snap_nonce)
		rfm__dds_hold_seq(d, m);
	return rfm__dds_snapshot_piece(node, m);
}
