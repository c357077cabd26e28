/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One open file's event queue: a ring of records with exact,
 * announced overflow. Pure logic (the caller locks), shared by the driver
 * and its user-space unit tests.
 */
#ifndef RFM_EVQ_H
#define RFM_EVQ_H

#include "rfm-portable.h"
#include <rfm/uapi/rfm_dev.h>

/*
 * Holds up to @depth records, plus one slot kept for the overflow record.
 * When a record arrives and @depth records wait, it is dropped: the first
 * drop appends an RFM_DEV_EV_OVERFLOW record (its seq is the dropped
 * record's), later drops increment that record's data while it is still
 * the newest one. Every record meant for the file consumes one sequence
 * number, dropped or not.
 */
struct rfm_evq {
	struct rfm_dev_event *rec;	/* depth + 1 slots, owned by the caller */
	u32 depth;
	u32 head;			/* slot of the oldest record */
	u32 count;			/* records stored, overflow record included */
	u32 taken;			/* records out with readers, slots kept */
	u32 held;			/* drops not yet announced (no slot) */
	u64 held_seq;			/* sequence number of the first of them */
	u64 held_rx_ns;			/* and its arrival time */
	u64 gen;			/* changes when stored records are discarded */
	u64 next_seq;			/* sequence number of the next record */
	u64 queued;			/* records stored, ever */
	u64 dropped;			/* records dropped, ever */
	u64 overflows;			/* overflow records appended, ever */
};

/* @storage holds depth + 1 records. */
void rfm_evq_init(struct rfm_evq *q, struct rfm_dev_event *storage, u32 depth);

/*
 * Offer one record. Returns true when stored, false when dropped (and
 * counted in the overflow record).
 */
bool rfm_evq_push(struct rfm_evq *q, u16 type, u16 flags, u32 sender, u32 data,
		  u64 sent_ns, u64 rx_ns);

/* Move up to @max oldest records to @out; returns how many. */
u32 rfm_evq_pop(struct rfm_evq *q, struct rfm_dev_event *out, u32 max);

/*
 * A reader copies records to user space without holding the queue's lock
 * (the copy may fault and sleep): it takes up to @max oldest records to
 * @out, copies them, then settles with rfm_evq_settle(), saying how many
 * were delivered. Until then their slots stay reserved, so the undelivered
 * ones always fit back. *@gen identifies the queue's contents for settle.
 */
u32 rfm_evq_take(struct rfm_evq *q, struct rfm_dev_event *out, u32 max, u64 *gen);

/*
 * End a take of @n records of which the first @delivered reached the
 * reader: the others go back in sequence order (before newer records,
 * after older ones another reader put back), unless a flush discarded the
 * queue's records since (@gen differs). Drops that found no slot while
 * records were out are announced now by an overflow record.
 */
void rfm_evq_settle(struct rfm_evq *q, const struct rfm_dev_event *taken, u32 n,
		    u32 delivered, u64 gen);

/* Discard every stored record; sequence numbers go on. */
void rfm_evq_flush(struct rfm_evq *q);

static inline bool rfm_evq_empty(const struct rfm_evq *q)
{
	return q->count == 0;
}

/* Neither stored records nor records out with a reader. */
static inline bool rfm_evq_idle(const struct rfm_evq *q)
{
	return q->count == 0 && q->taken == 0;
}

#endif /* RFM_EVQ_H */
