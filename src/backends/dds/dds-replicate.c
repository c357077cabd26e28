/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ordered stream of the dds: backend. Every sample a node sends (window
 * writes, events, snapshot traffic) takes the next number of
 * its sequence and goes out on one reliable keep-all topic, so the others
 * receive it in the order it was sent. One thread per handle takes samples
 * off the topic and applies them to this node's copy of the window; a jump
 * in a writer's sequence is a gap (records lost to a partition or an
 * exhausted history): counted and reported with an RFM_EVENT_LINK record,
 * never silent.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu-clock.h"
#include "backends/dds/dds-internal.h"

/*
 * Inside a dds_write() of this process: a reader in this process is
 * applying the sample on the writer's thread, which may hold its handle's
 * pub_lock and be inside another callback; no callback runs here.
 */
static _Thread_local unsigned int writing;

/* Samples taken off the stream per call. */
#define TAKE_MAX 64

dds_return_t rfm__dds_write(struct dds_node *d, const rfm_dds_Msg *m)
{
	dds_return_t rc;

	writing++;
	rc = dds_write(d->writer, m);
	writing--;
	return rc;
}

int rfm__dds_send_locked(struct dds_node *d, rfm_dds_Msg *msg)
{
	dds_return_t rc;

	if (d->batch_len && msg->kind != DDS_KIND_BATCH) {
		/* Held writes first: the writer's order. */
		int ret = rfm__dds_flush_locked(d, NULL);

		if (ret)
			return ret;
	}
	msg->inc = d->inc;
	msg->writer = (uint8_t)d->id;
	msg->seq = ++d->seq;
	/* callbacks=receive: behind what waits already, or first to wait. */
	if (d->backlog)
		return rfm__dds_backlog_add(d, msg);
	rc = rfm__dds_write(d, msg);
	if (rc == DDS_RETCODE_TIMEOUT && d->callbacks_receive)
		return rfm__dds_backlog_add(d, msg);
	if (rc < 0)
		return rfm__error(RFM_EIO, "dds:%s: sending a sample: %s", d->name,
				  dds_strretcode(rc));
	return 0;
}

int rfm__dds_send(struct dds_node *d, rfm_dds_Msg *msg)
{
	int ret = rfm__dds_lock_to_send(d);

	if (ret)
		return ret;
	ret = rfm__dds_send_locked(d, msg);
	pthread_mutex_unlock(&d->pub_lock);
	return ret;
}

/*
 * Mark the words of [offset, offset+len) as ours, for a resync: 64 words
 * per bitmap word, and no atomic at all when they are marked already (a
 * writer rewrites the same places; one locked OR per 8 bytes was a fifth
 * of a 4 KiB write's time).
 */
static void mark_own(struct dds_node *d, uint64_t offset, uint64_t len)
{
	uint64_t w = offset / 8, end = (offset + len + 7) / 8;

	while (w < end) {
		uint64_t bit = w % 64, n = end - w < 64 - bit ? end - w : 64 - bit;
		uint64_t mask = (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1) << bit;
		uint64_t *word = &d->own[w / 64];

		if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != mask)
			__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
		w += n;
	}
}

int rfm__dds_publish(struct rfm_node *node, uint64_t offset, uint64_t len)
{
	struct dds_node *d = node->priv;
	int ret;

	if (d->forked)
		return rfm__error(RFM_ECLOSED, "%s: handle inherited through fork()", node->uri);
	if (!len)
		return 0; /* nothing to send, as before batches */
	mark_own(d, offset, len);
	ret = rfm__dds_lock_to_send(d);
	if (ret)
		return ret;
	if (rfm__dds_hold_write(d, offset, len, &ret)) {
		pthread_mutex_unlock(&d->pub_lock);
		return ret;
	}
	while (len && !ret) {
		uint32_t n = len < RFM_DDS_CHUNK ? (uint32_t)len : RFM_DDS_CHUNK;
		/* Serialised from the window itself: no copy. */
		rfm_dds_Msg m = {
			.kind = DDS_KIND_WRITE,
			.to = RFM_NODE_ALL,
			.offset = offset,
			.data = { ._maximum = n, ._length = n, ._buffer = d->window + offset },
		};

		ret = rfm__dds_send_locked(d, &m);
		offset += n;
		len -= n;
	}
	pthread_mutex_unlock(&d->pub_lock);
	return ret;
}

void rfm__dds_store(struct dds_node *d, uint64_t off, const uint8_t *src, uint64_t len)
{
	uint8_t *dst = d->window + off;
	uint64_t i = len;

	/*
	 * Highest address first, each store a release: a guard word placed
	 * before its data (a ring slot's stamp, a record's sequence) lands
	 * after the data, as the writer's own stores did.
	 */
	while (i && ((uintptr_t)(dst + i) & 7))
		i--, __atomic_store_n(dst + i, src[i], __ATOMIC_RELEASE);
	while (i >= 8) {
		uint64_t v;

		i -= 8;
		memcpy(&v, src + i, 8);
		__atomic_store_n((uint64_t *)(void *)(dst + i), v, __ATOMIC_RELEASE);
	}
	while (i)
		i--, __atomic_store_n(dst + i, src[i], __ATOMIC_RELEASE);
}

static void report_gap(struct rfm_node *node, unsigned int writer, uint64_t missed)
{
	struct dds_node *d = node->priv;
	struct rfm_ev_record rec = {
		.type = RFM_EVENT_LINK,
		.sender = writer,
		.data = missed > UINT32_MAX ? UINT32_MAX : (uint32_t)missed,
	};

	__atomic_fetch_add(&d->gaps, missed, __ATOMIC_RELAXED);
	rfm__dds_deliver(node, &rec);
	/* What the lost records wrote: ask their writer for its words. */
	rfm__dds_want_resync(node, writer);
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
	return d->callbacks_receive && !writing &&
	       !__atomic_load_n(&d->peer_in_process, __ATOMIC_RELAXED);
}

/* An EVENT, or the event a BATCH ends with: a callback on this thread
 * takes it, or it is queued if it is for us. */
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
		if (rec.type > RFM_EVENT_INTR4)
			return;
		if (callbacks_here(d) && rfm__event_claim_inline(node, &rec))
			d->inline_claimed = true; /* take_stream() runs it */
		else
			rfm__dds_deliver(node, &rec);
	}
}

static void refuse(struct dds_node *d)
{
	__atomic_fetch_add(&d->refused, 1, __ATOMIC_RELAXED);
}

uint64_t rfm__dds_refused(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	return __atomic_load_n(&d->refused, __ATOMIC_RELAXED);
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
		refuse(d);
		return;
	}
	if (!d->joined) {
		/* The snapshot, answers and requests of joining (dds-join.c);
		 * anything else is applied after the snapshot. */
		if (!rfm__dds_join_sample(node, m))
			rfm__dds_hold(d, m);
		return;
	}
	if (p->other_size) {
		d->mismatched++; /* another window: nothing of it fits ours */
		return;
	}
	expected = p->stream_inc == m->inc && p->next_seq ? p->next_seq : 1;
	if (p->stream_inc == m->inc && p->next_seq && m->seq < expected) {
		/* In the snapshot already; but a request for us, held while we
		 * joined, is one its giver could not answer for us. */
		if (m->kind == DDS_KIND_SNAP_REQ && m->to == d->id)
			rfm__dds_snapshot_answer(node, m);
		return;
	}
	if (m->seq > expected && m->seq - expected > RFM_DDS_SEQ_JUMP_MAX) {
		refuse(d); /* forged: the stream goes on from where it was */
		return;
	}
	if (m->seq > expected)
		report_gap(node, m->writer, m->seq - expected);
	p->stream_inc = m->inc;
	p->next_seq = m->seq + 1;

	switch (m->kind) {
	case DDS_KIND_WRITE:
		if (m->offset > d->size || m->data._length > d->size - m->offset) {
			d->mismatched++; /* a node with another window size */
			return;
		}
		rfm__dds_store(d, m->offset, m->data._buffer, m->data._length);
		return;
	case DDS_KIND_EVENT:
		apply_event(node, m);
		return;
	case DDS_KIND_BATCH:
		if (!rfm__dds_apply_batch(d, m)) {
			d->mismatched++; /* a node with another window size */
			return;
		}
		if (m->extra & DDS_BATCH_EVENT)
			apply_event(node, m);
		return;
	case DDS_KIND_SNAP:
		if (m->to == d->id)
			rfm__dds_snapshot_piece(node, m);
		return;
	case DDS_KIND_SNAP_REQ:
		if (m->to == d->id)
			rfm__dds_snapshot_answer(node, m);
		return;
	default:
		return;
	}
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
				rfm__dds_apply(node, samples[i]);
		if (n > 0)
			dds_return_loan(reader, samples, n);
	} while (n == TAKE_MAX);
	bool claimed = d->inline_claimed;
	d->inline_claimed = false;
	pthread_mutex_unlock(&d->lock);
	if (__atomic_load_n(&d->snap_pending, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&d->resync_pending, __ATOMIC_RELAXED))
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
	if (__atomic_load_n(&d->resync_pending, __ATOMIC_RELAXED))
		rfm__dds_thread_wake(d); /* it asks */
}

static void reader_matched(dds_entity_t reader, const dds_subscription_matched_status_t st,
			   void *arg)
{
	(void)reader;
	(void)st;
	rfm__dds_matched(arg);
}

static void writer_matched(dds_entity_t writer, const dds_publication_matched_status_t st,
			   void *arg)
{
	(void)writer;
	(void)st;
	rfm__dds_matched(arg);
}

dds_listener_t *rfm__dds_listener(struct rfm_node *node, bool stream)
{
	dds_listener_t *l = dds_create_listener(node);

	if (l)
		dds_lset_data_available(l, stream ? take_stream : take_presence);
	if (l && stream)
		dds_lset_subscription_matched(l, reader_matched);
	return l;
}

dds_listener_t *rfm__dds_match_listener(struct rfm_node *node)
{
	dds_listener_t *l = dds_create_listener(node);

	if (l)
		dds_lset_publication_matched(l, writer_matched);
	return l;
}
