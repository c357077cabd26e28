/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event queue a handle keeps in its own memory (event-localq.h), for
 * the rfm2g: and dds: backends. The lock orders pushes, takes and mask
 * changes; count is also stored atomically so that ready and queued, which
 * spinning waits poll, read it without the lock.
 */
#include "config.h"

#include <stdlib.h>

#include "event-localq.h"
#include "futex.h"

void rfm__localq_init(struct rfm_localq *q, uint32_t depth)
{
	*q = (struct rfm_localq){ .depth = depth };
	pthread_mutex_init(&q->lock, NULL);
}

void rfm__localq_destroy(struct rfm_localq *q)
{
	pthread_mutex_destroy(&q->lock);
	free(q->ring);
	q->ring = NULL;
}

void rfm__localq_push(struct rfm_localq *q, const struct rfm_ev_record *rec)
{
	pthread_mutex_lock(&q->lock);
	if (q->ring && (q->mask & RFM_EVENT_BIT(rec->type))) {
		if (q->count == q->depth) {
			q->dropped++;
		} else {
			q->ring[(q->head + q->count) % q->depth] = *rec;
			/* Read without the lock by ready/queued. */
			__atomic_store_n(&q->count, q->count + 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&q->lock);
	/* With sleep_prepare's: a sleeper that registered before this fence is
	 * woken; one after it finds the record when it checks ready. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->sleepers, __ATOMIC_RELAXED))
		rfm__futex_bump_wake(&q->futex, false);
}

uint32_t rfm__localq_set_mask(struct rfm_localq *q, uint32_t mask)
{
	uint32_t old;

	pthread_mutex_lock(&q->lock);
	old = q->mask;
	q->mask = mask;
	pthread_mutex_unlock(&q->lock);
	return old;
}

/* The queue a backend using these ops keeps first in its private state. */
static struct rfm_localq *localq(const struct rfm_node *node)
{
	return node->priv;
}

int rfm__localq_ev_attach(struct rfm_node *node, uint32_t *depth)
{
	struct rfm_localq *q = localq(node);
	struct rfm_ev_record *ring = calloc(q->depth, sizeof(*ring));

	if (!ring)
		return rfm__error(RFM_ENOMEM, "%s: out of memory for the event queue",
				  node->uri ? node->uri : node->ops->scheme);
	pthread_mutex_lock(&q->lock);
	if (!q->ring) {
		q->ring = ring;
		ring = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	free(ring);
	*depth = q->depth;
	return 0;
}

void rfm__localq_ev_set_mask(struct rfm_node *node, uint32_t mask)
{
	rfm__localq_set_mask(localq(node), mask);
}

unsigned int rfm__localq_ev_take(struct rfm_node *node, struct rfm_ev_record *recs,
				 unsigned int max)
{
	struct rfm_localq *q = localq(node);
	unsigned int n = 0;

	pthread_mutex_lock(&q->lock);
	while (n < max && q->count) {
		recs[n++] = q->ring[q->head];
		q->head = (q->head + 1) % q->depth;
		__atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

uint64_t rfm__localq_ev_dropped(struct rfm_node *node)
{
	struct rfm_localq *q = localq(node);
	uint64_t n;

	pthread_mutex_lock(&q->lock);
	n = q->dropped;
	pthread_mutex_unlock(&q->lock);
	return n;
}

bool rfm__localq_ev_ready(struct rfm_node *node)
{
	return __atomic_load_n(&localq(node)->count, __ATOMIC_ACQUIRE) != 0;
}

uint64_t rfm__localq_ev_queued(struct rfm_node *node)
{
	return __atomic_load_n(&localq(node)->count, __ATOMIC_RELAXED);
}

uint32_t rfm__localq_ev_sleep_prepare(struct rfm_node *node)
{
	struct rfm_localq *q = localq(node);

	__atomic_fetch_add(&q->sleepers, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&q->futex, __ATOMIC_SEQ_CST);
}

void rfm__localq_ev_sleep(struct rfm_node *node, uint32_t token, uint64_t deadline_ns)
{
	rfm__futex_wait(&localq(node)->futex, token, deadline_ns, false);
}

void rfm__localq_ev_sleep_finish(struct rfm_node *node)
{
	__atomic_fetch_sub(&localq(node)->sleepers, 1, __ATOMIC_RELAXED);
}

void rfm__localq_ev_wake(struct rfm_node *node)
{
	rfm__futex_bump_wake(&localq(node)->futex, false);
}

/* lock=1/prefault=1 (mem-lock.c): the queue the backend's threads fill. */
void rfm__localq_ev_queue_memory(struct rfm_node *node, void **addr, size_t *len)
{
	struct rfm_localq *q = localq(node);

	*addr = q->ring;
	*len = q->ring ? q->depth * sizeof(*q->ring) : 0;
}
