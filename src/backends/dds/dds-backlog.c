/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The send backlog of the dds: backend.
 *
 * A reliable writer keeps what it sent until every reader has
 * acknowledged it, and a write waits while it keeps more than Cyclone's
 * WhcHigh (500 kB by default). The stream writer waits at most
 * RFM_DDS_WRITE_BLOCK_NS for that (a healthy reader acknowledges within
 * milliseconds), and with callbacks=receive not at all: the
 * acknowledgements come in on Cyclone's receive thread, where those
 * callbacks run, so a callback's write that waited would wait for itself.
 * A sample Cyclone cannot take yet is copied here, and every sample after
 * it joins it, in order, until the handle's thread (dds-thread.c) has
 * handed them all to Cyclone as the acknowledgements let it. So no
 * thread waits inside Cyclone holding pub_lock for long: the heartbeat
 * monitor's beats go on, and when a dead node's reader is what holds the
 * acknowledgements back, the stream can move to a writer that does not
 * wait for it (dds-route.c).
 *
 * The receive thread and the heartbeat monitor's never wait for the
 * backlog: past RFM_DDS_BACKLOG_MAX their writes fail with RFM_EAGAIN.
 * Every other thread waits before it sends while the backlog holds more
 * than RFM_DDS_BACKLOG_WAIT: the back-pressure the blocking writer gave
 * it, for at most RFM_DDS_BLOCK_NS, then RFM_ETIMEDOUT. Samples already in
 * the backlog are never taken back: a close sends them first, for at most
 * RFM_DDS_BLOCK_NS.
 *
 * rfm__dds_emit_locked() is the last step of every send: it numbers the
 * sample and hands it to Cyclone, or to the backlog behind what waits.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/dds/dds-internal.h"

static uint64_t item_bytes(const rfm_dds_Msg *m)
{
	return sizeof(struct dds_held) + m->data._length;
}

static void set_bytes(struct dds_node *d, uint64_t bytes)
{
	/* The handle's thread looks at it without the lock. */
	__atomic_store_n(&d->send.backlog_bytes, bytes, __ATOMIC_RELAXED);
}

void rfm__dds_send_lock_init(struct dds_node *d)
{
	pthread_mutex_init(&d->send.pub_lock, NULL);
}

void rfm__dds_send_lock_destroy(struct dds_node *d)
{
	pthread_mutex_destroy(&d->send.pub_lock);
}

void rfm__dds_send_lock(struct dds_node *d)
{
	pthread_mutex_lock(&d->send.pub_lock);
}

void rfm__dds_send_unlock(struct dds_node *d)
{
	pthread_mutex_unlock(&d->send.pub_lock);
}

int rfm__dds_lock_to_send(struct dds_node *d)
{
	struct dds_send *s = &d->send;
	struct timespec until;

	pthread_mutex_lock(&s->pub_lock);
	if (!s->backlog)
		return 0;
	if (rfm__dds_in_handle_thread()) {
		/* A snapshot answer: what waits goes first, never wait for ourselves. */
		rfm__dds_backlog_send_locked(d);
		return 0;
	}
	if (rfm__dds_in_receive() || rfm__health_monitor_thread()) {
		if (s->backlog_bytes <= RFM_DDS_BACKLOG_MAX)
			return 0;
		pthread_mutex_unlock(&s->pub_lock);
		return rfm__error(RFM_EAGAIN,
				  "dds:%s: %llu bytes wait for acknowledgements, and a callback "
				  "on the receive thread or a heartbeat cannot wait for them",
				  d->name, (unsigned long long)s->backlog_bytes);
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += RFM_DDS_BLOCK_NS / 1000000000;
	while (s->backlog && s->backlog_bytes > RFM_DDS_BACKLOG_WAIT)
		if (pthread_cond_timedwait(&s->backlog_cond, &s->pub_lock, &until) == ETIMEDOUT &&
		    s->backlog && s->backlog_bytes > RFM_DDS_BACKLOG_WAIT) {
			uint64_t bytes = s->backlog_bytes;

			pthread_mutex_unlock(&s->pub_lock);
			return rfm__error(RFM_ETIMEDOUT,
					  "dds:%s: for %d s no node acknowledged the %llu bytes "
					  "sent before: is a peer stuck?",
					  d->name, (int)(RFM_DDS_BLOCK_NS / 1000000000),
					  (unsigned long long)bytes);
		}
	return 0;
}

int rfm__dds_backlog_add(struct dds_node *d, const rfm_dds_Msg *m)
{
	struct dds_held *h = rfm__dds_held_new(m);

	if (!h)
		return rfm__error(RFM_ENOMEM, "dds:%s: out of memory for the send backlog",
				  d->name);
	if (!d->send.backlog) {
		/* The handle's thread sends it: wake it if it sleeps without a deadline. */
		d->thread_idle = false;
		rfm__dds_thread_wake(d);
	}
	*d->send.backlog_tail = h;
	d->send.backlog_tail = &h->next;
	set_bytes(d, d->send.backlog_bytes + item_bytes(m));
	return 0;
}

int rfm__dds_emit_locked(struct dds_node *d, rfm_dds_Msg *msg)
{
	dds_return_t rc;
	const uint8_t *data = msg->data._buffer;

	msg->inc = d->inc;
	msg->writer = (uint8_t)d->id;
	msg->seq = ++d->send.seq;
	/*
	 * What the digest covers is what goes out (dds-digest.c): data taken
	 * from the window, which the node's other threads may be storing to
	 * meanwhile, is copied first, a word at a time as rfm__dds_store()
	 * stores it (a memcpy() racing those stores is a data race).
	 */
	if (data && data >= d->window && data < d->window + d->size &&
	    msg->data._length <= RFM_DDS_CHUNK && d->send.scratch) {
		rfm__copy_from_window(d->send.scratch, data, msg->data._length);
		msg->data._buffer = d->send.scratch;
	}
	if (msg->kind == DDS_KIND_MARK && (msg->extra & DDS_MARK_DIGEST))
		msg->stamp = d->send.digest;
	d->send.digest = rfm__dds_digest(d->send.digest, msg);
	__atomic_store_n(&d->send.sent_seq, msg->seq, __ATOMIC_RELAXED);
	/* Its thread sends the digest while the stream moves: not asleep. */
	if (d->thread_idle) {
		d->thread_idle = false;
		rfm__dds_thread_wake(d);
	}
	/* callbacks=receive: behind what waits already, or first to wait. */
	if (d->send.backlog)
		return rfm__dds_backlog_add(d, msg);
	rc = rfm__dds_write(d, msg);
	if (rc == DDS_RETCODE_TIMEOUT)
		return rfm__dds_backlog_add(d, msg);
	if (rc < 0)
		return rfm__error(RFM_EIO, "dds:%s: sending a sample: %s", d->name,
				  dds_strretcode(rc));
	return 0;
}

/* Free the first sample: Cyclone took it, or refused it for good. */
static void backlog_pop(struct dds_node *d)
{
	struct dds_held *h = d->send.backlog;

	d->send.backlog = h->next;
	if (!d->send.backlog)
		d->send.backlog_tail = &d->send.backlog;
	set_bytes(d, d->send.backlog_bytes - item_bytes(&h->msg));
	free(h->msg.data._buffer);
	free(h);
}

bool rfm__dds_backlog_send_locked(struct dds_node *d)
{
	bool moved = false;

	while (d->send.backlog) {
		dds_return_t rc = rfm__dds_write(d, &d->send.backlog->msg);

		if (rc == DDS_RETCODE_TIMEOUT)
			break; /* still no room: later */
		if (rc < 0)
			/* Its number is lost: the receivers see a gap and resync. */
			__atomic_fetch_add(&d->send.backlog_lost, 1, __ATOMIC_RELAXED);
		backlog_pop(d);
		moved = true;
	}
	if (moved)
		pthread_cond_broadcast(&d->send.backlog_cond);
	return d->send.backlog != NULL;
}

void rfm__dds_backlog_drain(struct dds_node *d)
{
	struct dds_send *s = &d->send;
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += RFM_DDS_BLOCK_NS / 1000000000;
	pthread_mutex_lock(&s->pub_lock);
	/* The thread sends it; a close waits as long as a blocked write would. */
	while (s->backlog &&
	       pthread_cond_timedwait(&s->backlog_cond, &s->pub_lock, &until) != ETIMEDOUT)
		;
	rfm__dds_backlog_discard(d);
	pthread_mutex_unlock(&s->pub_lock);
}

void rfm__dds_backlog_discard(struct dds_node *d)
{
	while (d->send.backlog) {
		__atomic_fetch_add(&d->send.backlog_lost, 1, __ATOMIC_RELAXED);
		backlog_pop(d);
	}
}
