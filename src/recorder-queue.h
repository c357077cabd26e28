/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's queue: a byte ring between one producer thread (the
 * sampler) and one consumer thread (the writer), allocated once, with no
 * lock and no system call: the producer reserves room, fills it in place
 * and commits; the consumer peeks, uses and releases. An entry never
 * wraps: when it does not fit before the end, a padding entry fills the
 * rest and it starts at 0. A producer that finds no room drops its entry
 * (the caller counts it); it never waits.
 */
#ifndef RFM_RECORDER_QUEUE_H
#define RFM_RECORDER_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_queue {
	uint8_t *buf;
	uint64_t size;		/* a power of two */
	uint64_t head;		/* bytes committed, written by the producer */
	uint64_t tail;		/* bytes released, written by the consumer */
	uint64_t reserved_at;	/* producer's: where its open reservation starts */
	uint64_t reserved_len;	/* producer's: its length with padding */
};

/* Entries start 8-byte aligned; a length word of 0 is padding to the end. */
#define REC_Q_ALIGN 8u
#define REC_Q_PAD UINT32_MAX

/* Allocate @bytes (rounded up to a power of two, at least 64 KiB) and touch every page. */
int rfm__rec_q_init(struct rec_queue *q, uint64_t bytes);
void rfm__rec_q_free(struct rec_queue *q);

/* Producer: room for @len bytes (a 4-byte length word precedes it), or NULL when full. */
static inline void *rfm__rec_q_reserve(struct rec_queue *q, uint32_t len)
{
	uint64_t need = ((uint64_t)len + 8 + REC_Q_ALIGN - 1) & ~(uint64_t)(REC_Q_ALIGN - 1);
	uint64_t head = q->head;
	uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	uint64_t at = head & (q->size - 1);
	uint64_t pad = 0;

	if (at + need > q->size)
		pad = q->size - at;	/* skip to the start */
	if (need + pad > q->size - (head - tail))
		return NULL;
	if (pad)
		*(uint32_t *)(q->buf + at) = REC_Q_PAD;
	q->reserved_at = head + pad;
	q->reserved_len = pad + need;
	uint8_t *p = q->buf + ((head + pad) & (q->size - 1));
	*(uint32_t *)p = len;
	return p + 8;
}

/* Producer: publish the reservation. */
static inline void rfm__rec_q_commit(struct rec_queue *q)
{
	__atomic_store_n(&q->head, q->head + q->reserved_len, __ATOMIC_RELEASE);
}

/* Consumer: the next entry and its length, or NULL when empty. */
static inline const void *rfm__rec_q_peek(struct rec_queue *q, uint32_t *lenp)
{
	for (;;) {
		uint64_t head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
		uint64_t tail = q->tail;

		if (tail == head)
			return NULL;
		uint8_t *p = q->buf + (tail & (q->size - 1));
		uint32_t len = *(uint32_t *)p;
		if (len == REC_Q_PAD) {
			__atomic_store_n(&q->tail, tail + (q->size - (tail & (q->size - 1))),
					 __ATOMIC_RELEASE);
			continue;
		}
		*lenp = len;
		return p + 8;
	}
}

/* Consumer: done with the entry of @len bytes peeked last. */
static inline void rfm__rec_q_release(struct rec_queue *q, uint32_t len)
{
	uint64_t need = ((uint64_t)len + 8 + REC_Q_ALIGN - 1) & ~(uint64_t)(REC_Q_ALIGN - 1);

	__atomic_store_n(&q->tail, q->tail + need, __ATOMIC_RELEASE);
}

#endif /* RFM_RECORDER_QUEUE_H */
