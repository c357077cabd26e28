/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A handle's own event queue in private memory, for the backends whose
 * records reach the handle through threads of its own (rfm2g:'s waiter
 * threads, dds:'s receive thread) rather than through a queue the network
 * fills (shm:'s segment, dev:'s driver): bounded, overflow counted, its
 * sleepers on a futex of this process. The backend puts records in with
 * rfm__localq_push(); the core takes them through the ev ops below, which
 * the backend's ops table names with RFM__LOCALQ_EV_OPS.
 *
 * Those ops find the queue without asking the backend: a backend using
 * them makes its private state (node->priv) begin with the queue.
 */
#ifndef RFM_EVENT_LOCALQ_H
#define RFM_EVENT_LOCALQ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

struct rfm_localq {
	pthread_mutex_t lock;		/* ring, head, mask, dropped */
	struct rfm_ev_record *ring;	/* NULL until the core attaches the handle */
	uint32_t depth, head;
	uint32_t count;			/* also read without the lock (atomic) */
	uint32_t mask;			/* the types it takes (RFM_EVENT_BIT) */
	uint64_t dropped;		/* records that found it full */
	uint32_t futex, sleepers;	/* bumped on a push that has sleepers */
};

/* An empty queue of @depth records (its memory comes at attach). */
void rfm__localq_init(struct rfm_localq *q, uint32_t depth);
void rfm__localq_destroy(struct rfm_localq *q);
/* Queue @rec if the handle takes its type, else drop it silently; a full
 * queue counts it as dropped. Wakes the sleepers. */
void rfm__localq_push(struct rfm_localq *q, const struct rfm_ev_record *rec);
/* Set the types the queue takes; returns the mask it had. */
uint32_t rfm__localq_set_mask(struct rfm_localq *q, uint32_t mask);

/* The ev ops on the queue that begins node->priv (internal.h says what each does). */
int rfm__localq_ev_attach(struct rfm_node *node, uint32_t *depth);
void rfm__localq_ev_set_mask(struct rfm_node *node, uint32_t mask);
unsigned int rfm__localq_ev_take(struct rfm_node *node, struct rfm_ev_record *recs,
				 unsigned int max);
uint64_t rfm__localq_ev_dropped(struct rfm_node *node);
bool rfm__localq_ev_ready(struct rfm_node *node);
uint64_t rfm__localq_ev_queued(struct rfm_node *node);
uint32_t rfm__localq_ev_sleep_prepare(struct rfm_node *node);
void rfm__localq_ev_sleep(struct rfm_node *node, uint32_t token, uint64_t deadline_ns);
void rfm__localq_ev_sleep_finish(struct rfm_node *node);
void rfm__localq_ev_wake(struct rfm_node *node);
void rfm__localq_ev_queue_memory(struct rfm_node *node, void **addr, size_t *len);

/*
 * The receiving side of a struct rfm_backend_ev_ops kept in the queue, for
 * the backend's table beside its own send (and set_mask, which a backend
 * that must also start or stop something writes itself).
 */
#define RFM__LOCALQ_EV_OPS                                        \
	.attach = rfm__localq_ev_attach,                          \
	.take = rfm__localq_ev_take,                              \
	.dropped = rfm__localq_ev_dropped,                        \
	.ready = rfm__localq_ev_ready,                             \
	.queued = rfm__localq_ev_queued,                          \
	.sleep_prepare = rfm__localq_ev_sleep_prepare,            \
	.sleep = rfm__localq_ev_sleep,                            \
	.sleep_finish = rfm__localq_ev_sleep_finish,              \
	.wake = rfm__localq_ev_wake,                              \
	.queue_memory = rfm__localq_ev_queue_memory

#endif /* RFM_EVENT_LOCALQ_H */
