/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network interrupts on the emulated network: one queue per receiving
 * handle in the shared segment.
 *
 * Each node id owns 8 queues; a handle that starts receiving takes a free
 * one and holds that queue's OFD byte lock, so a queue whose receiver died
 * is recognised (lock free) and reclaimed. The node entry's event_queues
 * bits say which queues have a receiver; the header's listening bitmap
 * says which node ids have any, so a broadcast visits only those.
 *
 * A queue's memory is a slab after the window: the receiver takes a free
 * one or grows the file by one (rfm__os_file_reserve(): a full /dev/shm
 * fails the attach, never a later store), and records it in its node entry.
 * Senders check that slab number against the file's size before touching
 * it, and the slab's owner field against the queue, so a scribbled entry
 * costs a counted, skipped record, never a SIGBUS.
 *
 * A queue is a bounded multi-producer ring of 32-byte slots:
 *  - a sender claims position p by CAS on tail, if p < head + depth (else
 *    the record is dropped and the drop counter bumped: senders never
 *    wait); it fills the slot and stores stamp = p + 1 with release;
 *  - the receiver takes slot head when its stamp is head + 1 (acquire),
 *    then publishes head + 1 with release, which frees the slot;
 *  - a sender caches head + depth per queue, so it reads the receiver's
 *    cache line only once per lap, not once per record.
 * Wake-ups: a receiver about to sleep counts itself in sleepers, then
 * reads the futex word, re-checks the queue and sleeps on the word; a
 * sender stores the stamp, then (seq_cst RMW) reads sleepers and, if
 * anyone sleeps, bumps the word and wakes. One of the two always sees the
 * other's store, so no wake-up is lost, and a sender makes no system call
 * while its receivers spin.
 *
 * Everything read from the segment is untrusted: positions are masked
 * into the ring, records with an impossible type or sender are skipped
 * and counted, and a slot that a sender claimed but never filled (it was
 * killed in between) is skipped and counted after RFM_SHM_STALL_NS.
 * Known limit: a sender that was only stopped (SIGSTOP, a debugger) that
 * long inside the few instructions between claim and stamp, and then
 * resumes, writes into a slot that a later lap may be using; the record
 * there is then counted as lost, or in the worst case delivered with the
 * stale sender's fields.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "os/memory.h"
#include "os/process.h"
#include "backends/shm/shm-internal.h"

/* How long a claimed but unfilled slot may hold up its queue. */
#define RFM_SHM_STALL_NS 1000000000ull
#define NO_STALL UINT64_MAX
#define NODE_QUEUE_BITS ((1u << RFM_SHM_QUEUES_PER_NODE) - 1)

static struct rfm_shm_queue *slab_at(const struct shm_node *shm, unsigned int k)
{
	return (struct rfm_shm_queue *)(shm->events + (uint64_t)k * shm->stride);
}

static struct rfm_shm_slot *queue_slots(struct rfm_shm_queue *q)
{
	return (struct rfm_shm_slot *)((uint8_t *)q + RFM_SHM_QUEUE_HEADER);
}

static uint32_t node_queue_bits(const struct shm_node *shm, unsigned int id)
{
	return __atomic_load_n(&shm->nodes[id].event_queues, __ATOMIC_ACQUIRE) & NODE_QUEUE_BITS;
}

static void set_listening(struct shm_node *shm, unsigned int id, bool on)
{
	uint64_t bit = UINT64_C(1) << (id % 64);

	if (on)
		__atomic_fetch_or(&shm->header->listening[id / 64], bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&shm->header->listening[id / 64], ~bit, __ATOMIC_RELEASE);
}

/* Hold the byte lock of queue @qi alone: 0 or -errno (-EAGAIN: held). */
static int queue_lock(struct shm_node *shm, unsigned int qi)
{
	return rfm__os_byte_lock(shm->fd, RFM_SHM_QUEUE_LOCK_BASE + qi, RFM_OS_LOCK_EXCL);
}

static void queue_unlock(struct shm_node *shm, unsigned int qi)
{
	rfm__os_byte_lock(shm->fd, RFM_SHM_QUEUE_LOCK_BASE + qi, RFM_OS_UNLOCK);
}

void rfm__shm_reclaim_queues(struct shm_node *shm, int id)
{
	uint32_t bits = node_queue_bits(shm, (unsigned int)id);

	for (unsigned int j = 0; j < RFM_SHM_QUEUES_PER_NODE; j++) {
		unsigned int qi = (unsigned int)id * RFM_SHM_QUEUES_PER_NODE + j;

		if (!(bits & (1u << j)) || (int)qi == shm->queue ||
		    rfm__shm_byte_locked(shm->fd, RFM_SHM_QUEUE_LOCK_BASE + qi))
			continue;
		/* Its receiver died: senders stop at the cleared bit. */
		__atomic_fetch_and(&shm->nodes[id].event_queues, ~(1u << j), __ATOMIC_RELEASE);
	}
	if (!node_queue_bits(shm, (unsigned int)id))
		set_listening(shm, (unsigned int)id, false);
}

/* Mark in @used the slabs of receivers that are alive. The segment lock is held. */
static void find_used_slabs(struct shm_node *shm, uint8_t *used)
{
	for (unsigned int id = 0; id < RFM_MAX_NODES; id++) {
		uint32_t bits = node_queue_bits(shm, id);

		while (bits) {
			unsigned int j = (unsigned int)__builtin_ctz(bits);
			unsigned int qi = id * RFM_SHM_QUEUES_PER_NODE + j;
			uint32_t k = __atomic_load_n(&shm->nodes[id].queue_slab[j], __ATOMIC_RELAXED);

			bits &= bits - 1;
			if (!k || k > RFM_SHM_QUEUE_COUNT ||
			    !rfm__shm_byte_locked(shm->fd, RFM_SHM_QUEUE_LOCK_BASE + qi))
				continue;
			used[(k - 1) / 8] |= (uint8_t)(1u << ((k - 1) % 8));
		}
	}
}

void rfm__shm_refresh_size(struct shm_node *shm)
{
	uint64_t size, known = 0;

	if (rfm__os_file_size(shm->seg_fd, &size) == 0 && size > shm->map_size) {
		known = size - shm->map_size;
		if (known > shm->events_size)
			known = shm->events_size;
	}
	__atomic_store_n(&shm->events_known, known, __ATOMIC_RELEASE);
}

/* Take the lowest free slab and make sure the file holds it, reserved. */
static int take_slab(struct rfm_node *node, struct shm_node *shm, unsigned int *slab)
{
	uint8_t used[RFM_SHM_QUEUE_COUNT / 8];
	unsigned int k;
	uint64_t offset;
	int err;

	memset(used, 0, sizeof(used));
	find_used_slabs(shm, used);
	for (k = 0; k < RFM_SHM_QUEUE_COUNT; k++)
		if (!(used[k / 8] & (1u << (k % 8))))
			break;
	if (k == RFM_SHM_QUEUE_COUNT)
		return rfm__error(RFM_EFULL, "%s: all %u event queues of the network are in use",
				  node->uri, RFM_SHM_QUEUE_COUNT);
	offset = shm->map_size + (uint64_t)k * shm->stride;
	/* Reserve the slab's pages: a full /dev/shm fails here, not with SIGBUS. */
	err = rfm__os_file_reserve(shm->seg_fd, offset, shm->stride);
	if (err)
		return rfm__shm_no_room(node->uri, err, shm->stride, 0, "reserving an event queue");
	rfm__shm_refresh_size(shm);
	*slab = k;
	return 0;
}

static int shm_ev_attach(struct rfm_node *node, uint32_t *depth)
{
	struct shm_node *shm = node->priv;
	unsigned int qi = 0, slab = 0, j = 0;
	int ret, err = EAGAIN;

	if (shm->queue >= 0) {
		*depth = shm->depth;
		return 0;
	}
	ret = rfm__shm_lock(shm->fd, node->uri);
	if (ret)
		return ret;
	rfm__shm_reclaim_queues(shm, node->id);
	for (j = 0; j < RFM_SHM_QUEUES_PER_NODE; j++) {
		qi = (unsigned int)node->id * RFM_SHM_QUEUES_PER_NODE + j;
		if (node_queue_bits(shm, (unsigned int)node->id) & (1u << j))
			continue;
		err = -queue_lock(shm, qi);
		if (!err)
			break;
	}
	if (err) {
		rfm__os_file_unlock(shm->fd);
		if (err == EAGAIN || err == EACCES)
			return rfm__error(RFM_EFULL,
					  "%s: node %d already has %u handles receiving events",
					  node->uri, node->id, RFM_SHM_QUEUES_PER_NODE);
		errno = err;
		return rfm__error(RFM_ESYS, "%s: locking an event queue: %s", node->uri,
				  strerror(err));
	}
	ret = take_slab(node, shm, &slab);
	if (ret) {
		queue_unlock(shm, qi);
		rfm__os_file_unlock(shm->fd);
		return ret;
	}

	struct rfm_shm_queue *q = slab_at(shm, slab);
	/* Start after whatever a previous receiver left: positions only grow. */
	uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	__atomic_store_n(&q->mask, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&q->sleepers, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&q->head, tail, __ATOMIC_RELEASE);
	q->incarnation++;
	q->pid = rfm__os_pid();
	/* Senders holding an old view of this slab see the new owner and skip it. */
	__atomic_store_n(&q->owner, qi + 1, __ATOMIC_RELEASE);
	shm->queue = (int)qi;
	shm->slab = (int)slab;
	shm->q = q;
	shm->slots = queue_slots(q);
	__atomic_store_n(&shm->head, tail, __ATOMIC_RELAXED);
	shm->drop_base = __atomic_load_n(&q->dropped, __ATOMIC_RELAXED);
	shm->skipped = 0;
	shm->stall_pos = NO_STALL;
	/* The slab before the bit: a sender that sees the bit finds the slab. */
	__atomic_store_n(&shm->nodes[node->id].queue_slab[j], (uint16_t)(slab + 1),
			 __ATOMIC_RELEASE);
	__atomic_fetch_or(&shm->nodes[node->id].event_queues, 1u << j, __ATOMIC_RELEASE);
	set_listening(shm, (unsigned int)node->id, true);
	rfm__os_file_unlock(shm->fd);
	*depth = shm->depth;
	return 0;
}

void rfm__shm_release_queue(struct shm_node *shm, bool locked)
{
	if (shm->queue < 0)
		return;
	__atomic_store_n(&shm->q->mask, 0, __ATOMIC_RELEASE);
	__atomic_fetch_and(&shm->nodes[shm->id].event_queues,
			   ~(1u << (shm->queue % RFM_SHM_QUEUES_PER_NODE)), __ATOMIC_RELEASE);
	/* Only under the lock: an attach racing with us may have just set it. */
	if (locked && !node_queue_bits(shm, (unsigned int)shm->id))
		set_listening(shm, (unsigned int)shm->id, false);
	/* The entry keeps its slab number: a sender may still read it with the bit. */
	shm->queue = -1;
	shm->slab = -1;
	shm->q = NULL;
	shm->slots = NULL;
}

static void shm_ev_set_mask(struct rfm_node *node, uint32_t mask)
{
	struct shm_node *shm = node->priv;

	if (shm->q)
		__atomic_store_n(&shm->q->mask, mask, __ATOMIC_RELEASE);
}

/* ---- sending ---- */

/*
 * The slab of queue @j of node @id, or NULL. Everything here comes from
 * the segment: a slab number that is out of range or beyond the file
 * counts as damage (a scribbled entry); a slab owned by another queue is a
 * receiver that just left or arrived, and is skipped.
 */
static struct rfm_shm_queue *queue_of(struct shm_node *shm, unsigned int id, unsigned int j,
				      unsigned int *slab)
{
	uint32_t k = __atomic_load_n(&shm->nodes[id].queue_slab[j], __ATOMIC_ACQUIRE);
	uint64_t end;
	struct rfm_shm_queue *q;

	if (!k || k > RFM_SHM_QUEUE_COUNT)
		goto damaged;
	k--;
	end = (uint64_t)(k + 1) * shm->stride;
	if (end > __atomic_load_n(&shm->events_known, __ATOMIC_ACQUIRE)) {
		/* A slab made since we last looked, or a lie: ask the file. */
		rfm__shm_refresh_size(shm);
		if (end > __atomic_load_n(&shm->events_known, __ATOMIC_ACQUIRE))
			goto damaged;
	}
	q = slab_at(shm, k);
	if (__atomic_load_n(&q->owner, __ATOMIC_ACQUIRE) != id * RFM_SHM_QUEUES_PER_NODE + j + 1)
		return NULL;
	*slab = k;
	return q;
damaged:
	__atomic_fetch_add(&shm->damaged, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Claim, fill and stamp one slot of queue @q (slab @k); false when it is full. */
static bool push(struct shm_node *shm, struct rfm_shm_queue *q, unsigned int k,
		 struct rfm_ev_record *rec)
{
	uint64_t depth = shm->depth;
	uint64_t p = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);

	for (;;) {
		if (p >= __atomic_load_n(&shm->limits[k], __ATOMIC_ACQUIRE)) {
			/* Acquire: the receiver is done with the slots below head. */
			uint64_t head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);

			/*
			 * The queue is the receiver's, so its enable could not map it
			 * in this handle: with prefault or lock, the first send does,
			 * once, rather than the first lap faulting page by page.
			 */
			if (shm->prefault_sends && !__atomic_load_n(&shm->limits[k], __ATOMIC_RELAXED))
				rfm__os_prefault(q, shm->stride);

			__atomic_store_n(&shm->limits[k], head + depth, __ATOMIC_RELEASE);
			if (p >= head + depth) {
				__atomic_fetch_add(&q->dropped, 1, __ATOMIC_RELAXED);
				return false;
			}
		}
		if (__atomic_compare_exchange_n(&q->tail, &p, p + 1, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
	}

	struct rfm_shm_slot *slot = &queue_slots(q)[p & (depth - 1)];
	/*
	 * The slot's cache line is most likely in the receiver's cache: these
	 * stores send for it, and the clock is read while it travels, so the
	 * timestamp costs little on the way to the receiver.
	 */
	__atomic_store_n(&slot->data, rec->data, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->type, (uint16_t)rec->type, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->sender, (uint16_t)rec->sender, __ATOMIC_RELAXED);
	if (!rec->sent_ns)
		rec->sent_ns = rfm__now_ns();
	__atomic_store_n(&slot->sent_ns, rec->sent_ns, __ATOMIC_RELAXED);
	/* Release: the record, and everything written before the send, first. */
	__atomic_store_n(&slot->stamp, p + 1, __ATOMIC_RELEASE);
	return true;
}

/* Queue @rec on every receiving queue of node @id that takes its type. */
static int push_node(struct shm_node *shm, unsigned int id, struct rfm_ev_record *rec)
{
	uint32_t bits = node_queue_bits(shm, id);
	struct rfm_shm_queue *pushed[RFM_SHM_QUEUES_PER_NODE];
	int n = 0;

	while (bits) {
		unsigned int j = (unsigned int)__builtin_ctz(bits);
		unsigned int k = 0;
		struct rfm_shm_queue *q;

		bits &= bits - 1;
		q = queue_of(shm, id, j, &k);
		if (!q || !(__atomic_load_n(&q->mask, __ATOMIC_ACQUIRE) & RFM_EVENT_BIT(rec->type)))
			continue;
		if (push(shm, q, k, rec))
			pushed[n++] = q;
	}
	if (!n)
		return 0;
	/*
	 * Stamps before the sleeper counts: a seq_cst read-modify-write of
	 * sleepers pairs with the receiver's own RMW in
	 * shm_ev_sleep_prepare (both on one location, so one of them sees
	 * the other). Unlike a bare fence, ThreadSanitizer models this.
	 */
	for (int i = 0; i < n; i++)
		if (__atomic_fetch_add(&pushed[i]->sleepers, 0, __ATOMIC_SEQ_CST))
			rfm__futex_bump_wake(&pushed[i]->futex, true);
	return n;
}

static bool shm_ev_node_attached(struct rfm_node *node, unsigned int id)
{
	struct shm_node *shm = node->priv;

	return id <= RFM_NODE_ID_MAX &&
	       __atomic_load_n(&shm->nodes[id].state, __ATOMIC_ACQUIRE) == RFM_SHM_NODE_ATTACHED;
}

static int shm_ev_send(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec)
{
	struct shm_node *shm = node->priv;
	int n = 0;

	if (to != RFM_NODE_ALL) {
		uint64_t damaged = __atomic_load_n(&shm->damaged, __ATOMIC_RELAXED);

		if (!shm_ev_node_attached(node, to))
			return rfm__error(RFM_ENODE, "%s: node %u is not attached", node->uri, to);
		n = push_node(shm, to, rec);
		if (!n && __atomic_load_n(&shm->damaged, __ATOMIC_RELAXED) != damaged)
			return rfm__error(RFM_ECORRUPT,
					  "%s: node %u's event queue entry points outside the "
					  "network (scribbled by another process); nothing was sent",
					  node->uri, to);
		return n;
	}
	for (unsigned int w = 0; w < RFM_MAX_NODES / 64; w++) {
		uint64_t bits = __atomic_load_n(&shm->header->listening[w], __ATOMIC_ACQUIRE);

		while (bits) {
			unsigned int id = w * 64 + (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			if ((int)id != node->id || node->loopback)
				n += push_node(shm, id, rec);
		}
	}
	return n;
}

/* ---- receiving ---- */

static bool valid_record(const struct rfm_ev_record *r)
{
	return (r->type <= RFM_EVENT_INTR4 || r->type == RFM_EVENT_NODE_UP ||
		r->type == RFM_EVENT_NODE_DOWN || r->type == RFM_EVENT_LINK) && r->sender <= RFM_NODE_ID_MAX;
}

static void publish_head(struct shm_node *shm, uint64_t head)
{
	__atomic_store_n(&shm->head, head, __ATOMIC_RELAXED);
	/* Release: our reads of the slots are done before senders reuse them. */
	__atomic_store_n(&shm->q->head, head, __ATOMIC_RELEASE);
}

/*
 * Nothing at head: is a slot claimed but unfilled? A sender fills its slot
 * a few instructions after claiming it; one that takes longer than
 * RFM_SHM_STALL_NS was killed (or stopped) in between, and the slot is
 * skipped and counted so that the queue moves on.
 */
static void check_stall(struct shm_node *shm, uint64_t head)
{
	uint64_t tail = __atomic_load_n(&shm->q->tail, __ATOMIC_RELAXED);

	if (tail <= head || tail - head > shm->depth) {
		__atomic_store_n(&shm->stall_pos, NO_STALL, __ATOMIC_RELAXED);
		return;
	}
	uint64_t now = rfm__now_ns();
	if (__atomic_load_n(&shm->stall_pos, __ATOMIC_RELAXED) != head) {
		/* Sleepers read the two fields: since first, then the position. */
		__atomic_store_n(&shm->stall_since, now, __ATOMIC_RELAXED);
		__atomic_store_n(&shm->stall_pos, head, __ATOMIC_RELEASE);
		return;
	}
	if (now - shm->stall_since < RFM_SHM_STALL_NS)
		return;
	shm->skipped++;
	__atomic_store_n(&shm->stall_pos, NO_STALL, __ATOMIC_RELAXED);
	publish_head(shm, head + 1);
}

static unsigned int shm_ev_take(struct rfm_node *node, struct rfm_ev_record *recs, unsigned int max)
{
	struct shm_node *shm = node->priv;
	struct rfm_shm_slot *slots = shm->slots;
	uint64_t mask = shm->depth - 1, head, start;
	unsigned int n = 0;

	if (!shm->q)
		return 0;
	head = start = __atomic_load_n(&shm->head, __ATOMIC_RELAXED);
	if (!max) {
		/* Housekeeping before a sleep: only look for a stalled slot. */
		check_stall(shm, head);
		return 0;
	}
	while (n < max) {
		struct rfm_shm_slot *s = &slots[head & mask];
		struct rfm_ev_record *r = &recs[n];

		if (__atomic_load_n(&s->stamp, __ATOMIC_ACQUIRE) != head + 1)
			break;
		r->sent_ns = __atomic_load_n(&s->sent_ns, __ATOMIC_RELAXED);
		r->data = __atomic_load_n(&s->data, __ATOMIC_RELAXED);
		r->type = __atomic_load_n(&s->type, __ATOMIC_RELAXED);
		r->sender = __atomic_load_n(&s->sender, __ATOMIC_RELAXED);
		head++;
		if (valid_record(r))
			n++;
		else
			shm->skipped++; /* a corrupt slot: counted as lost */
	}
	if (head != start) {
		__atomic_store_n(&shm->stall_pos, NO_STALL, __ATOMIC_RELAXED);
		publish_head(shm, head);
	} else if (++shm->empty_takes % 64 == 0) {
		/* Not on every empty take: reading tail costs the senders a
		 * cache-line transfer on their next claim. */
		check_stall(shm, head);
	}
	return n;
}

static uint64_t shm_ev_dropped(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;

	if (!shm->q)
		return 0;
	return __atomic_load_n(&shm->q->dropped, __ATOMIC_RELAXED) - shm->drop_base + shm->skipped;
}

static bool shm_ev_ready(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;
	uint64_t head;

	if (!shm->slots)
		return false;
	head = __atomic_load_n(&shm->head, __ATOMIC_RELAXED);
	return __atomic_load_n(&shm->slots[head & (shm->depth - 1)].stamp, __ATOMIC_ACQUIRE) ==
	       head + 1;
}

static uint64_t shm_ev_queued(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;

	if (!shm->q)
		return 0;
	uint64_t head = __atomic_load_n(&shm->head, __ATOMIC_RELAXED);
	uint64_t tail = __atomic_load_n(&shm->q->tail, __ATOMIC_RELAXED);
	return tail > head ? (tail - head < shm->depth ? tail - head : shm->depth) : 0;
}

static uint32_t shm_ev_sleep_prepare(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;

	if (!shm->q)
		return 0;
	/* Count ourselves before reading the word and re-checking the queue. */
	__atomic_fetch_add(&shm->q->sleepers, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&shm->q->futex, __ATOMIC_SEQ_CST);
}

static void shm_ev_sleep(struct rfm_node *node, uint32_t token, uint64_t deadline_ns)
{
	struct shm_node *shm = node->priv;

	if (!shm->q)
		return;
	/* A stalled slot must be looked at again when it is due to be skipped. */
	if (__atomic_load_n(&shm->stall_pos, __ATOMIC_ACQUIRE) != NO_STALL) {
		uint64_t due = __atomic_load_n(&shm->stall_since, __ATOMIC_RELAXED) + RFM_SHM_STALL_NS;
		if (!deadline_ns || due < deadline_ns)
			deadline_ns = due;
	}
	rfm__futex_wait(&shm->q->futex, token, deadline_ns, true);
}

static void shm_ev_sleep_finish(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;

	if (shm->q)
		__atomic_fetch_sub(&shm->q->sleepers, 1, __ATOMIC_RELAXED);
}

static void shm_ev_wake(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;

	if (shm->q)
		rfm__futex_bump_wake(&shm->q->futex, true);
}

/* lock=1/prefault=1 (mem-lock.c): the handle's queue, header and slots. */
static void shm_ev_queue_memory(struct rfm_node *node, void **addr, size_t *len)
{
	struct shm_node *shm = node->priv;

	*addr = shm->q;
	*len = shm->q ? shm->stride : 0;
}

const struct rfm_backend_ev_ops rfm__shm_ev_ops = {
	.send = shm_ev_send,
	.node_attached = shm_ev_node_attached,
	.attach = shm_ev_attach,
	.set_mask = shm_ev_set_mask,
	.take = shm_ev_take,
	.dropped = shm_ev_dropped,
	.ready = shm_ev_ready,
	.queued = shm_ev_queued,
	.sleep_prepare = shm_ev_sleep_prepare,
	.sleep = shm_ev_sleep,
	.sleep_finish = shm_ev_sleep_finish,
	.wake = shm_ev_wake,
	.queue_memory = shm_ev_queue_memory,
};
