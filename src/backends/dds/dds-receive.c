/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The receive side of the dds: backend: the dispatcher on top of the
 * per-kind pieces. Every sample a node sends (window writes, events,
 * snapshot traffic) takes the next number of its sequence and goes out on
 * one reliable keep-all topic, so the others receive it in the order it
 * was sent. Cyclone's listener (take_stream) takes samples off the topic
 * and rfm__dds_apply() applies them to this node's copy of the window; a
 * jump in a writer's sequence is a gap (records lost to a partition or an
 * exhausted history): counted and reported with an RFM_EVENT_LINK record,
 * never silent. The presence reader's listener is made here too, so that
 * both readers' samples are taken under the same lock.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "os/byteorder.h"
#include "backends/dds/dds-internal.h"

/* Samples taken off the stream per call. */
#define TAKE_MAX 64

static void report_gap(struct rfm_node *node, unsigned int writer, uint64_t missed)
{
	struct dds_node *d = node->priv;
	struct rfm_ev_record rec = {
		.type = RFM_EVENT_LINK,
		.sender = writer,
		.data = missed > UINT32_MAX ? UINT32_MAX : (uint32_t)missed,
	};

	__atomic_fetch_add(&d->recv.gaps, missed, __ATOMIC_RELAXED);
	rfm__dds_deliver(node, &rec);
	/* What the lost records wrote: ask their writer for its words. */
	rfm__dds_want_resync(node, writer);
}

/*
 * The writer's stream, taken in order, against the digests its MARKs carry
 * (dds-digest.c): one that differs means samples of another took the
 * place of the writer's own (an RTPS-level takeover, without DDS
 * Security). Those since the last good digest are reported lost, counted
 * as forged, and the writer's words are asked for again. A gap, or a
 * stream met mid-way, is followed from its next MARK.
 */
static void check_digest(struct rfm_node *node, struct dds_peer *p, const rfm_dds_Msg *m,
			 bool gap, bool new_stream)
{
	struct dds_node *d = node->priv;

	if (new_stream && m->seq == 1) {
		p->digest = rfm__dds_digest_start(m->inc);
		p->digest_ok = true;
		p->digest_seq = 0;
	} else if (gap || new_stream || m->kind == DDS_KIND_PLACE) {
		p->digest_ok = false; /* what was missed cannot be digested */
	}
	if (m->kind == DDS_KIND_MARK && (m->extra & DDS_MARK_DIGEST)) {
		if (p->digest_ok && p->digest != m->stamp) {
			uint64_t lost = m->seq - 1 - p->digest_seq;

			__atomic_fetch_add(&d->recv.forged, 1, __ATOMIC_RELAXED);
			report_gap(node, m->writer, lost ? lost : 1);
		}
		p->digest = m->stamp; /* the writer's: followed from here */
		p->digest_ok = true;
		p->digest_seq = m->seq;
	}
	if (p->digest_ok)
		p->digest = rfm__dds_digest(p->digest, m);
}

/*
 * callbacks=receive: may a callback run on this thread? Not inside a
 * write of this process (above), and not while a node of this network
 * lives in this process: its writes reach us inside its dds_write(), and
 * Cyclone runs one listener of a reader at a time, so two callbacks, here
 * and there, each writing to the other, would wait for each other.
 */
static bool callbacks_here(struct dds_node *d)
{
	return d->callbacks_receive && !rfm__dds_in_write() &&
	       !__atomic_load_n(&d->send.peer_in_process, __ATOMIC_RELAXED);
}

/* An EVENT, or the event a BATCH ends with: a callback on this thread
 * takes it, or it is queued if it is for us. A type no node sends is
 * refused. */
static void apply_event(struct rfm_node *node, const rfm_dds_Msg *m)
{
	struct dds_node *d = node->priv;

	if (m->to == d->id || m->to == RFM_NODE_ALL) {
		struct rfm_ev_record rec = {
			.type = m->type,
			.sender = m->writer,
			.data = m->word,
			.sent_ns = m->stamp,
		};
		if (rec.type > RFM_EVENT_INTR4) {
			rfm__dds_refuse(d);
			return;
		}
		if (callbacks_here(d) && rfm__event_claim_inline(node, &rec))
			d->inline_claimed = true; /* take_stream() runs it */
		else
			rfm__dds_deliver(node, &rec);
	}
}

/* Check a BATCH's pieces all fit, before applying any. */
static bool batch_valid(const struct dds_node *d, const uint8_t *p, uint32_t n)
{
	uint32_t at = 0;

	while (at < n) {
		struct dds_piece pc;
		uint64_t off, len;

		if (n - at < sizeof(pc))
			return false;
		memcpy(&pc, p + at, sizeof(pc));
		off = rfm__le64toh(pc.offset);
		len = rfm__le32toh(pc.len);
		at += sizeof(pc);
		if (((len + 7) & ~UINT64_C(7)) > n - at || off > d->size || len > d->size - off)
			return false;
		at += (uint32_t)((len + 7) & ~UINT64_C(7));
	}
	return true;
}

/* A BATCH's writes (dds-coalesce.c); false: malformed or outside the window. */
static bool apply_batch(struct dds_node *d, const rfm_dds_Msg *m)
{
	const uint8_t *p = m->data._buffer;
	uint32_t n = m->data._length, at = 0;

	if (!batch_valid(d, p, n))
		return false;
	while (at < n) {
		struct dds_piece pc;

		memcpy(&pc, p + at, sizeof(pc));
		at += sizeof(pc);
		/* Piece by piece in the writer's order, each highest address first. */
		rfm__dds_store(d, rfm__le64toh(pc.offset), p + at, rfm__le32toh(pc.len));
		at += (uint32_t)((rfm__le32toh(pc.len) + UINT64_C(7)) & ~UINT64_C(7));
	}
	return true;
}

void rfm__dds_apply(struct rfm_node *node, const rfm_dds_Msg *m)
{
	struct dds_node *d = node->priv;
	struct dds_peer *p = &d->peers[m->writer];
	uint64_t expected;

	/*
	 * Our own samples never come back (ignorelocal): one naming us as its
	 * writer is someone else's, and would write our own words of our copy.
	 */
	if (m->writer == d->id) {
		rfm__dds_refuse(d);
		return;
	}
	if (!d->join.joined) {
		/* The snapshot, answers and requests of joining (dds-join.c);
		 * anything else is applied after the snapshot. */
		if (rfm__dds_join_sample(node, m))
			rfm__dds_joined_apply_held(node);
		return;
	}
	if (p->other_size) {
		rfm__dds_refuse(d); /* another window: nothing of it fits ours */
		return;
	}
	expected = p->stream_inc == m->inc && p->next_seq ? p->next_seq : 1;
	if (p->stream_inc == m->inc && p->next_seq && m->seq < expected) {
		/* In the snapshot already; but a request for us, held while we
		 * joined, is one its giver could not answer for us. */
		if (m->kind == DDS_KIND_SNAP_REQ && m->to == d->id)
			rfm__dds_request(node, m);
		return;
	}
	if (m->seq > expected && m->seq - expected > RFM_DDS_SEQ_JUMP_MAX) {
		rfm__dds_refuse(d); /* forged: the stream goes on from where it was */
		return;
	}
	if (m->seq > expected)
		report_gap(node, m->writer, m->seq - expected);
	check_digest(node, p, m, m->seq > expected, p->stream_inc != m->inc);
	p->stream_inc = m->inc;
	p->next_seq = m->seq + 1;

	/* From here the sample has its place in the stream; what no node
	 * sends (outside the window, malformed, unknown) is refused. */
	switch (m->kind) {
	case DDS_KIND_WRITE:
		if (m->offset > d->size || m->data._length > d->size - m->offset)
			rfm__dds_refuse(d);
		else
			rfm__dds_store(d, m->offset, m->data._buffer, m->data._length);
		return;
	case DDS_KIND_EVENT:
		apply_event(node, m);
		return;
	case DDS_KIND_BATCH:
		if (!apply_batch(d, m))
			rfm__dds_refuse(d);
		else if (m->extra & DDS_BATCH_EVENT)
			apply_event(node, m);
		return;
	case DDS_KIND_SNAP:
		if (m->to == d->id && rfm__dds_snapshot_piece(node, m))
			rfm__dds_joined_apply_held(node); /* not while joined: never */
		return;
	case DDS_KIND_SNAP_REQ:
		if (m->to == d->id)
			rfm__dds_request(node, m);
		return;
	case DDS_KIND_MARK:
	case DDS_KIND_PLACE:
		return; /* only its place in the stream */
	default:
		rfm__dds_refuse(d);
		return;
	}
}

/* Joined: apply what was held meanwhile, in the order it came. */
void rfm__dds_joined_apply_held(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	struct dds_held *h = d->join.held;

	d->join.joined = true;
	d->join.held = NULL;
	d->join.held_tail = &d->join.held;
	while (h) {
		struct dds_held *next = h->next;

		rfm__dds_apply(node, &h->msg);
		free(h->msg.data._buffer);
		free(h);
		h = next;
	}
	pthread_cond_broadcast(&d->cond);
	/* Requests held meanwhile are queued now: the handle's thread answers. */
	if (d->answer.snap_pending)
		rfm__dds_thread_wake(d);
}

/*
 * A node id is its participant's: a sample naming another node's id from
 * a participant that id is not bound to is forged (dds-presence.c keeps
 * the binding). Naming us is left to rfm__dds_apply, which refuses it.
 */
static void take_sample(struct rfm_node *node, dds_entity_t reader, const rfm_dds_Msg *m,
			const dds_sample_info_t *info)
{
	struct dds_node *d = node->priv;
	dds_instance_handle_t pub = info->publication_handle;
	struct dds_writer_id w;

	/* An observer's request: from no node id, outside every stream. */
	if (m->kind == DDS_KIND_OBSERVE) {
		if (!d->observer && m->to == (uint32_t)d->id)
			rfm__dds_observe_request(node, m);
		return;
	}
	/*
	 * security=: node N's samples only from N's partition. Checked before
	 * the binding, so the writer bound to N (the common case, no look-up)
	 * has passed it already.
	 */
	if (m->kind == DDS_KIND_PLACE) {
		rfm__dds_refuse(d); /* ours alone, never on the wire */
		return;
	}
	if (d->security && (!pub || pub != d->peers[m->writer].stream_writer) &&
	    (!rfm__dds_writer_identity(d, reader, true, pub, &w) ||
	     !rfm__dds_security_writer_ok(d, &w, m->writer)))
		rfm__dds_refuse(d);
	else if (m->writer != d->id && !rfm__dds_bound(node, reader, m->writer, pub)) {
		rfm__dds_refuse(d);
		if (!rfm__dds_guid_known(&d->peers[m->writer].participant))
			d->recv.early[m->writer]++; /* maybe a node whose claim is on its way */
	} else
		rfm__dds_apply(node, m);
}

/*
 * Take what arrived and apply it, under the handle's lock. Called by
 * Cyclone's listener as each sample arrives: for a writer in this process
 * that is inside its dds_write(), so a peer in the same process has the
 * data in its copy when the writer's call returns, as on a card in the
 * same chassis; from other hosts it is Cyclone's delivery thread.
 */
static void take_stream(dds_entity_t reader, void *arg)
{
	struct rfm_node *node = arg;
	struct dds_node *d = __atomic_load_n(&node->priv, __ATOMIC_ACQUIRE);
	void *samples[TAKE_MAX] = { NULL };
	dds_sample_info_t infos[TAKE_MAX];
	int n;

	rfm__dds_receiving(true);
	pthread_mutex_lock(&d->lock);
	/* Again only after a full take: each call costs a round through Cyclone's locks. */
	do {
		n = dds_take(reader, samples, infos, TAKE_MAX, TAKE_MAX);
		for (int i = 0; i < n; i++)
			if (infos[i].valid_data)
				take_sample(node, reader, samples[i], &infos[i]);
		if (n > 0)
			dds_return_loan(reader, samples, n);
	} while (n == TAKE_MAX);
	bool claimed = d->inline_claimed;
	d->inline_claimed = false;
	pthread_mutex_unlock(&d->lock);
	if (__atomic_load_n(&d->answer.snap_pending, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&d->recv.resync_pending, __ATOMIC_RELAXED))
		rfm__dds_thread_wake(d); /* it answers */
	/*
	 * callbacks=receive: the callback of the record claimed above, with
	 * no lock of ours held (it may write, send, read node facts). Records
	 * after it were queued behind it. Last: it may close the handle.
	 */
	if (claimed)
		rfm__event_run_inline(node);
	rfm__dds_receiving(false);
}

static void take_presence(dds_entity_t reader, void *arg)
{
	struct rfm_node *node = arg;
	struct dds_node *d = __atomic_load_n(&node->priv, __ATOMIC_ACQUIRE);

	pthread_mutex_lock(&d->lock);
	rfm__dds_presence_take(node, reader);
	pthread_mutex_unlock(&d->lock);
	if (__atomic_load_n(&d->recv.resync_pending, __ATOMIC_RELAXED))
		rfm__dds_thread_wake(d); /* it asks */
}

/*
 * A stream endpoint matched or lost: wakes a joiner waiting for a match
 * (dds-join.c's wait_matched). A writer matched is learnt while Cyclone
 * still knows it (dds-identity.c); one lost takes its node down.
 */
static void matched(struct rfm_node *node, dds_entity_t reader, bool stream,
		    dds_instance_handle_t pub, int32_t change)
{
	struct dds_node *d = __atomic_load_n(&node->priv, __ATOMIC_ACQUIRE);

	pthread_mutex_lock(&d->lock);
	if (reader && pub && change)
		rfm__dds_writer_matched(node, reader, stream, pub, change < 0);
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

static void stream_matched(dds_entity_t reader, const dds_subscription_matched_status_t st,
			   void *arg)
{
	matched(arg, reader, true, st.last_publication_handle, st.current_count_change);
}

static void presence_matched(dds_entity_t reader, const dds_subscription_matched_status_t st,
			     void *arg)
{
	matched(arg, reader, false, st.last_publication_handle, st.current_count_change);
}

/*
 * A reader matched our writer, it may be late: what we sent before went
 * only to the readers matched then (the stream keeps nothing for late
 * ones), and it sees a gap, hence a LINK and a resync, only with our next
 * sample. That may never come, so the handle's thread sends one now.
 */
static void writer_matched(dds_entity_t writer, const dds_publication_matched_status_t st,
			   void *arg)
{
	struct rfm_node *node = arg;
	struct dds_node *d = __atomic_load_n(&node->priv, __ATOMIC_ACQUIRE);

	(void)writer;
	if (st.current_count_change > 0) {
		__atomic_store_n(&d->answer.mark_pending, true, __ATOMIC_RELAXED);
		rfm__dds_thread_wake(d);
	}
	matched(node, 0, false, 0, 0);
}

dds_listener_t *rfm__dds_listener(struct rfm_node *node, bool stream)
{
	dds_listener_t *l = dds_create_listener(node);

	if (l)
		dds_lset_data_available(l, stream ? take_stream : take_presence);
	if (l)
		dds_lset_subscription_matched(l, stream ? stream_matched : presence_matched);
	return l;
}

dds_listener_t *rfm__dds_match_listener(struct rfm_node *node)
{
	dds_listener_t *l = dds_create_listener(node);

	if (l)
		dds_lset_publication_matched(l, writer_matched);
	return l;
}
