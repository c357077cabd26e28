// SPDX-License-Identifier: GPL-2.0
/*
 * Per-(sender, receiver) event rings in ivshmem memory.
 *
 * The memory is shared with other guests and host processes: every index
 * read from it is checked before use, and a broken ring is resynchronised
 * and counted instead of being followed.
 */
#include "rfm-ivs-mbox.h"

/*
 * The area is little-endian (rfm_ivshmem.h) whatever the node's byte
 * order: every access goes through these. The acquire/release pairs are
 * the ring protocol's: a head is published (release) after its slot, and
 * read (acquire) before the slot; a tail likewise for slot reuse.
 */
static u32 ld32(const __le32 *p)
{
	return le32_to_cpu(READ_ONCE(*p));
}

static u32 ld32_acquire(const __le32 *p)
{
	return le32_to_cpu(smp_load_acquire(p));	/* pairs with st32_release */
}

static void st32(__le32 *p, u32 v)
{
	WRITE_ONCE(*p, cpu_to_le32(v));
}

static void st32_release(__le32 *p, u32 v)
{
	smp_store_release(p, cpu_to_le32(v));	/* pairs with ld32_acquire */
}

static u64 ld64(const __le64 *p)
{
	return le64_to_cpu(READ_ONCE(*p));
}

static void st64(__le64 *p, u64 v)
{
	WRITE_ONCE(*p, cpu_to_le64(v));
}

static struct rfm_ivs_header *header(const struct rfm_ivs_mbox *m)
{
	return (struct rfm_ivs_header *)(m->area + RFM_IVS_HEADER_OFFSET);
}

static struct rfm_ivs_ring *ring(const struct rfm_ivs_mbox *m, u32 sender, u32 receiver)
{
	return (struct rfm_ivs_ring *)(m->area + RFM_IVS_RING_OFFSET(sender, receiver));
}

void rfm_ivs_mbox_format(void *area)
{
	struct rfm_ivs_header *h = (struct rfm_ivs_header *)((u8 *)area + RFM_IVS_HEADER_OFFSET);

	memset(area, 0, RFM_IVS_AREA_SIZE);
	st32(&h->version, RFM_IVS_VERSION);
	st32(&h->area_size, RFM_IVS_AREA_SIZE);
	st32(&h->max_nodes, RFM_IVS_MAX_NODES);
	st32(&h->ring_slots, RFM_IVS_RING_SLOTS);
	/* The magic last: whoever sees it sees a whole header. */
	st32_release(&h->magic, RFM_IVS_MAGIC);
}

int rfm_ivs_mbox_check(const void *area)
{
	const struct rfm_ivs_header *h =
		(const struct rfm_ivs_header *)((const u8 *)area + RFM_IVS_HEADER_OFFSET);
	u32 magic = ld32_acquire(&h->magic);

	/*
	 * Only the lab's server lays the header out: a blank area is memory
	 * of some other user of the device, never written by us.
	 */
	if (magic == 0)
		return -ENODEV;
	if (magic != RFM_IVS_MAGIC || ld32(&h->version) != RFM_IVS_VERSION ||
	    ld32(&h->area_size) != RFM_IVS_AREA_SIZE ||
	    ld32(&h->max_nodes) != RFM_IVS_MAX_NODES ||
	    ld32(&h->ring_slots) != RFM_IVS_RING_SLOTS)
		return -EPROTO;
	return 0;
}

int rfm_ivs_mbox_attach(struct rfm_ivs_mbox *m, void *area, u32 self)
{
	u32 n;
	int ret;

	if (self >= RFM_IVS_MAX_NODES)
		return -ERANGE;
	ret = rfm_ivs_mbox_check(area);
	if (ret)
		return ret;
	memset(m, 0, sizeof(*m));
	m->area = area;
	m->self = self;

	for (n = 0; n < RFM_IVS_MAX_NODES; n++) {
		struct rfm_ivs_ring *in = ring(m, n, self);
		struct rfm_ivs_ring *out = ring(m, self, n);
		u32 head = ld32_acquire(&in->head);
		u32 tail;

		/* Whatever waits for us was rung before we could hear it. */
		m->rx_tail[n] = head;
		st32_release(&in->tail, head);

		/* Our own rings: go on from the last incarnation's head. */
		head = ld32(&out->head);
		tail = ld32_acquire(&out->tail);
		if (head - tail > RFM_IVS_RING_SLOTS) {
			m->tx_errors++;
			head = tail;
			st32_release(&out->head, head);
		}
		m->tx_head[n] = head;
	}
	return 0;
}

void rfm_ivs_mbox_set_present(struct rfm_ivs_mbox *m, bool present)
{
	struct rfm_ivs_node *node = &header(m)->nodes[m->self];

	if (present) {
		st32(&node->incarnation, ld32(&node->incarnation) + 1);
		/* Peers that see us present see the new incarnation too. */
		st32_release(&node->state, RFM_IVS_NODE_PRESENT);
	} else {
		st32_release(&node->state, RFM_IVS_NODE_ABSENT);
	}
}

bool rfm_ivs_mbox_node_present(const struct rfm_ivs_mbox *m, u32 node)
{
	if (node >= RFM_IVS_MAX_NODES)
		return false;
	return ld32_acquire(&header(m)->nodes[node].state) == RFM_IVS_NODE_PRESENT;
}

int rfm_ivs_mbox_send(struct rfm_ivs_mbox *m, u32 target, u32 type, u32 data, u64 sent_ns)
{
	struct rfm_ivs_ring *r;
	struct rfm_ivs_slot *s;
	u32 head, tail;

	if (target >= RFM_IVS_MAX_NODES || type > RFM_DEV_EV_INTR4)
		return -EINVAL;
	if (!rfm_ivs_mbox_node_present(m, target))
		return -EHOSTUNREACH;

	r = ring(m, m->self, target);
	head = m->tx_head[target];
	/* The receiver's reads of the slot are done before it published this. */
	tail = ld32_acquire(&r->tail);
	if (head - tail > RFM_IVS_RING_SLOTS) {
		/* The receiver published a tail we never reached: resync. */
		m->tx_errors++;
		head = tail;
	} else if (head - tail == RFM_IVS_RING_SLOTS) {
		return -EAGAIN;
	}

	s = &r->slot[head % RFM_IVS_RING_SLOTS];
	st32(&s->type, type);
	st32(&s->data, data);
	st64(&s->sent_ns, sent_ns);
	/* The slot, and the window data written before the send, come first. */
	st32_release(&r->head, head + 1);
	m->tx_head[target] = head + 1;
	return 0;
}

u32 rfm_ivs_mbox_drain(struct rfm_ivs_mbox *m, rfm_ivs_deliver_fn deliver, void *ctx)
{
	u32 delivered = 0;
	u32 n;

	for (n = 0; n < RFM_IVS_MAX_NODES; n++) {
		struct rfm_ivs_ring *r = ring(m, n, m->self);
		/* Pairs with the sender's release: its slots are complete. */
		u32 head = ld32_acquire(&r->head);
		u32 tail = m->rx_tail[n];

		if (head == tail)
			continue;
		if (head - tail > RFM_IVS_RING_SLOTS) {
			/* A sender wrote a head that no ring of ours allows. */
			m->rx_errors++;
			tail = head;
		}
		for (; tail != head; tail++) {
			struct rfm_ivs_slot *s = &r->slot[tail % RFM_IVS_RING_SLOTS];
			u32 type = ld32(&s->type);
			u32 data = ld32(&s->data);
			u64 sent_ns = ld64(&s->sent_ns);

			if (type > RFM_DEV_EV_INTR4) {
				m->rx_errors++;
				continue;
			}
			deliver(ctx, n, type, data, sent_ns);
			delivered++;
		}
		m->rx_tail[n] = tail;
		/* Our reads of the slots are done before the sender may reuse them. */
		st32_release(&r->tail, tail);
	}
	return delivered;
}
