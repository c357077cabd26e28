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

bool rfm_evq_push(struct rfm_evq *q, u16 type, u16 flags, u32 sender, u32 data,
		  u64 sent_ns, u64 rx_ns)
{
	struct rfm_dev_event *ev;
	u64 seq = q->next_seq++;

	if (q->count < q->depth) {
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
	ev = slot(q, q->count - 1);
	if (ev->type == RFM_DEV_EV_OVERFLOW && ev->data != 0xffffffffu) {
		ev->data++;
		return false;
	}
	/*
	 * count == depth here: data records never take the spare slot, and
	 * a saturated overflow record is followed by a fresh one only after
	 * the reader made room (count < depth + 1 again).
	 */
	if (q->count > q->depth)
		return false; /* 2^32 drops without a read: counted in ->dropped */
	ev = slot(q, q->count++);
	ev->type = RFM_DEV_EV_OVERFLOW;
	ev->flags = 0;
	ev->sender = RFM_DEV_NODE_NONE;
	ev->data = 1;
	ev->reserved = 0;
	ev->seq = seq;
	ev->sent_ns = 0;
	ev->rx_ns = rx_ns;
	q->overflows++;
	return false;
}

u32 rfm_evq_pop(struct rfm_evq *q, struct rfm_dev_event *out, u32 max)
{
	u32 n = 0;

	while (n < max && q->count) {
		out[n++] = *slot(q, 0);
		q->head = (q->head + 1) % (q->depth + 1);
		q->count--;
	}
	return n;
}

u32 rfm_evq_peek(const struct rfm_evq *q, struct rfm_dev_event *out, u32 max)
{
	u32 n;

	for (n = 0; n < max && n < q->count; n++)
		out[n] = *slot(q, n);
	return n;
}

void rfm_evq_consume(struct rfm_evq *q, const struct rfm_dev_event *copied, u32 n)
{
	struct rfm_dev_event *last;

	if (n > q->count)
		n = q->count;
	if (!n)
		return;
	last = slot(q, n - 1);
	if (last->type == RFM_DEV_EV_OVERFLOW && last->data != copied[n - 1].data) {
		/* Drops counted after the copy stay announced by this record. */
		last->seq += copied[n - 1].data;
		last->data -= copied[n - 1].data;
		n--;
	}
	q->head = (q->head + n) % (q->depth + 1);
	q->count -= n;
}

void rfm_evq_flush(struct rfm_evq *q)
{
	q->head = 0;
	q->count = 0;
}
