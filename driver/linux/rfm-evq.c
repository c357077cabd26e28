// SPDX-License-Identifier: GPL-2.0
/* Per-file event queue with counted, announced overflow. */
#include "rfm-evq.h"

void rfm_evq_init(struct rfm_evq *q, struct rfm_dev_event *storage, u32 depth)
{
	memset(q, 0, sizeof(*q));
	q->rec = storage;
	q->depth = depth;
	q->next_seq = 1;
}

static struct rfm_dev_event *slot(const struct rfm_evq *q, u32 n)
{
	return &q->rec[(q->head + n) % (q->depth + 1)];
}

/* The spare slot, kept for the overflow record, counts: @used <= depth. */
static void append_overflow(struct rfm_evq *q, u64 seq, u32 dropped, u64 rx_ns)
{
	struct rfm_dev_event *ev = slot(q, q->count++);

	ev->type = RFM_DEV_EV_OVERFLOW;
	ev->flags = 0;
	ev->sender = RFM_DEV_NODE_NONE;
	ev->data = dropped;
	ev->reserved = 0;
	ev->seq = seq;
	ev->sent_ns = 0;
	ev->rx_ns = rx_ns;
	q->overflows++;
}

/* Drops held while their overflow record (or every slot) was out: announce. */
static void announce_held(struct rfm_evq *q)
{
	if (!q->held || q->count + q->taken > q->depth)
		return;
	append_overflow(q, q->held_seq, q->held, q->held_rx_ns);
	q->held = 0;
}

bool rfm_evq_push(struct rfm_evq *q, u16 type, u16 flags, u32 sender, u32 data,
		  u64 sent_ns, u64 rx_ns)
{
	struct rfm_dev_event *ev;
	u64 seq = q->next_seq++;

	announce_held(q);
	/* Records out with a reader keep their slots: they may come back. */
	if (!q->held && q->count + q->taken < q->depth) {
		ev = slot(q, q->count++);
		ev->type = type;
		ev->flags = flags;
		ev->sender = sender;
		ev->data = data;
		ev->reserved = 0;
		ev->seq = seq;
		ev->sent_ns = sent_ns;
		ev->rx_ns = rx_ns;
		q->queued++;
		return true;
	}

	q->dropped++;
	if (q->held) {
		if (q->held != 0xffffffffu)
			q->held++;	/* beyond: counted in ->dropped only */
		return false;
	}
	if (q->count) {
		ev = slot(q, q->count - 1);
		if (ev->type == RFM_DEV_EV_OVERFLOW && ev->data != 0xffffffffu) {
			ev->data++;
			return false;
		}
	}
	/*
	 * Data records never take the spare slot. When it is taken too (by
	 * a saturated overflow record, or the overflow record is out with a
	 * reader), the drops are held and announced once there is room.
	 */
	if (q->count + q->taken > q->depth) {
		q->held = 1;
		q->held_seq = seq;
		q->held_rx_ns = rx_ns;
		return false;
	}
	append_overflow(q, seq, 1, rx_ns);
	return false;
}

u32 rfm_evq_take(struct rfm_evq *q, struct rfm_dev_event *out, u32 max, u64 *gen)
{
	u32 n = 0;

	while (n < max && q->count) {
		out[n++] = *slot(q, 0);
		q->head = (q->head + 1) % (q->depth + 1);
		q->count--;
	}
	q->taken += n;
	*gen = q->gen;
	return n;
}

void rfm_evq_settle(struct rfm_evq *q, const struct rfm_dev_event *taken, u32 n,
		    u32 delivered, u64 gen)
{
	u32 slots = q->depth + 1, k, older, i;

	if (delivered > n)
		delivered = n;
	k = n - delivered;
	if (k && gen == q->gen) {
		/*
		 * Back before every stored record with a higher sequence number:
		 * only records another reader put back can be older. The k slots
		 * before head are free: they were reserved (taken) until now.
		 */
		for (older = 0; older < q->count; older++)
			if (slot(q, older)->seq > taken[delivered].seq)
				break;
		q->head = (q->head + slots - k) % slots;
		for (i = 0; i < older; i++)
			*slot(q, i) = *slot(q, i + k);
		for (i = 0; i < k; i++)
			*slot(q, older + i) = taken[delivered + i];
		q->count += k;
	}
	q->taken -= n;
	announce_held(q);
}

u32 rfm_evq_pop(struct rfm_evq *q, struct rfm_dev_event *out, u32 max)
{
	u64 gen;
	u32 n = rfm_evq_take(q, out, max, &gen);

	rfm_evq_settle(q, out, n, n, gen);
	return n;
}

void rfm_evq_flush(struct rfm_evq *q)
{
	q->head = 0;
	q->count = 0;
	q->held = 0;
	q->gen++;	/* records out with readers are not put back */
}
