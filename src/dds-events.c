/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events on the dds: backend. A send is an EVENT sample on the sender's
 * ordered stream, behind the writes made before it, so a receiver takes
 * the event only after its copy holds that data. The receive thread puts
 * the records for this node into the handle's own queue (private memory,
 * overflow counted); records for the own node (loopback, health, a ring's
 * consumer beside its producer) go straight into it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cpu-clock.h"
#include "futex.h"
#include "dds-internal.h"

void rfm__dds_deliver(struct rfm_node *node, const struct rfm_ev_record *rec)
{
	struct dds_node *d = node->priv;

	pthread_mutex_lock(&d->qlock);
	if (d->ring && (d->mask & RFM_EVENT_BIT(rec->type))) {
		if (d->count == d->depth) {
			d->dropped++;
		} else {
			d->ring[(d->head + d->count) % d->depth] = *rec;
			/* Read without the lock by ready/queued. */
			__atomic_store_n(&d->count, d->count + 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&d->qlock);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&d->sleepers, __ATOMIC_RELAXED))
		rfm__futex_bump_wake(&d->futex, false);
}

static int dds_ev_send(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec)
{
	struct dds_node *d = node->priv;
	bool self = to == (unsigned int)node->id ||
		    (to == RFM_NODE_ALL && __atomic_load_n(&node->loopback, __ATOMIC_RELAXED));
	int ret, n = 0;

	rec->sent_ns = rfm__now_ns();
	if (to != (unsigned int)node->id) {
		rfm_dds_Msg m = {
			.kind = DDS_KIND_EVENT,
			.to = (uint16_t)to,
			.type = rec->type,
			.word = rec->data,
			.stamp = rec->sent_ns,
		};

		if (d->forked)
			return rfm__error(RFM_ECLOSED, "%s: handle inherited through fork()",
					  node->uri);
		/* Writes held back go out with it, as one sample. */
		pthread_mutex_lock(&d->pub_lock);
		ret = d->batch_len ? rfm__dds_flush_locked(d, &m) : rfm__dds_send_locked(d, &m);
		pthread_mutex_unlock(&d->pub_lock);
		if (ret)
			return ret;
		n++; /* on the network; who takes it is not known here */
	}
	if (self) {
		rfm__dds_deliver(node, rec);
		n++;
	}
	return n;
}

static int dds_ev_attach(struct rfm_node *node, uint32_t *depth)
{
	struct dds_node *d = node->priv;
	struct rfm_ev_record *ring = calloc(d->depth, sizeof(*ring));

	if (!ring)
		return rfm__error(RFM_ENOMEM, "%s: out of memory for the event queue", node->uri);
	pthread_mutex_lock(&d->qlock);
	if (!d->ring) {
		d->ring = ring;
		ring = NULL;
	}
	pthread_mutex_unlock(&d->qlock);
	free(ring);
	*depth = d->depth;
	return 0;
}

static void dds_ev_set_mask(struct rfm_node *node, uint32_t mask)
{
	struct dds_node *d = node->priv;

	pthread_mutex_lock(&d->qlock);
	d->mask = mask;
	pthread_mutex_unlock(&d->qlock);
}

static unsigned int dds_ev_take(struct rfm_node *node, struct rfm_ev_record *recs,
				unsigned int max)
{
	struct dds_node *d = node->priv;
	unsigned int n = 0;

	pthread_mutex_lock(&d->qlock);
	while (n < max && d->count) {
		recs[n++] = d->ring[d->head];
		d->head = (d->head + 1) % d->depth;
		__atomic_store_n(&d->count, d->count - 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&d->qlock);
	return n;
}

static uint64_t dds_ev_dropped(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	uint64_t n;

	pthread_mutex_lock(&d->qlock);
	n = d->dropped;
	pthread_mutex_unlock(&d->qlock);
	return n;
}

static bool dds_ev_ready(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	return __atomic_load_n(&d->count, __ATOMIC_ACQUIRE) != 0;
}

static uint64_t dds_ev_queued(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	return __atomic_load_n(&d->count, __ATOMIC_RELAXED);
}

static uint32_t dds_ev_sleep_prepare(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	__atomic_fetch_add(&d->sleepers, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&d->futex, __ATOMIC_SEQ_CST);
}

static void dds_ev_sleep(struct rfm_node *node, uint32_t token, uint64_t deadline_ns)
{
	struct dds_node *d = node->priv;

	rfm__futex_wait(&d->futex, token, deadline_ns, false);
}

static void dds_ev_sleep_finish(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	__atomic_fetch_sub(&d->sleepers, 1, __ATOMIC_RELAXED);
}

static void dds_ev_wake(struct rfm_node *node)
{
	struct dds_node *d = node->priv;

	rfm__futex_bump_wake(&d->futex, false);
}

static void dds_ev_queue_memory(struct rfm_node *node, void **addr, size_t *len)
{
	struct dds_node *d = node->priv;

	*addr = d->ring;
	*len = d->ring ? d->depth * sizeof(*d->ring) : 0;
}

void rfm__dds_events_free(struct dds_node *d)
{
	free(d->ring);
	d->ring = NULL;
}

const struct rfm_backend_ev_ops rfm__dds_ev_ops = {
	.send = dds_ev_send,
	.attach = dds_ev_attach,
	.set_mask = dds_ev_set_mask,
	.take = dds_ev_take,
	.dropped = dds_ev_dropped,
	.ready = dds_ev_ready,
	.queued = dds_ev_queued,
	.sleep_prepare = dds_ev_sleep_prepare,
	.sleep = dds_ev_sleep,
	.sleep_finish = dds_ev_sleep_finish,
	.wake = dds_ev_wake,
	.queue_memory = dds_ev_queue_memory,
};
