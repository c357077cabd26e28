/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings, the producer's side: creation, publish by copy, claim/commit in
 * place, coalesced notification of sleeping consumers and back-pressure.
 *
 * The hot path (a commit) is: stamp odd, data, stamp even with release,
 * head with release. Notification adds a full fence, a read of the coarse
 * clock and of each held entry's sleep word; the table's directory (1 KiB)
 * is read again once per clock tick or RING_SCAN_COMMITS commits.
 * Back-pressure adds nothing until the cached limit is reached.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/event.h>

#include "futex.h"
#include "os/process.h"
#include "wait-notify.h"
#include "ring-internal.h"
#include "window-copy.h"

/* The producer's handle of the ring at @offset, laid out as @g says; NULL: no memory. */
static rfm_ring *ring_new(rfm_node *node, uint64_t offset, const struct ring_geom *g)
{
	rfm_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->node = node;
	r->g = *g;
	r->offset = offset;
	r->hdr = (struct ring_header *)(node->base + offset);
	r->slots = node->base + offset + g->slots_offset;
	r->table = node->base + offset + g->table_offset;
	r->atomic_store = rfm__window_filled_by_thread(node);
	/* Back-pressure: look at the consumers before the first message. */
	r->limit = g->flags & RFM_RING_F_BACKPRESSURE ? 0 : UINT64_MAX;
	size_t lanes = (size_t)g->consumer_nodes * g->max_consumers;
	r->notified = calloc(lanes, sizeof(*r->notified));
	r->checked = calloc(lanes, sizeof(*r->checked));
	r->held = calloc(lanes, sizeof(*r->held));
	if (!r->notified || !r->checked || !r->held) {
		rfm_ring_close(r);
		return NULL;
	}
	return r;
}

RFM_API int rfm_ring_create(rfm_node *node, uint64_t offset, uint64_t size,
			    const struct rfm_ring_config *config, rfm_ring **ringp)
{
	struct ring_geom g;
	rfm_ring *r;
	int ret;

	if (!node || !ringp)
		return rfm__error(RFM_EINVAL, "rfm_ring_create: NULL argument");
	if (node->observer)
		return rfm__observer_refused(node, "rfm_ring_create");
	ret = rfm__ring_geometry(config, &g);
	if (ret)
		return ret;
	if (offset % 64)
		return rfm__error(RFM_EALIGN, "rfm_ring_create: offset 0x%llx is not 64-byte aligned",
				  (unsigned long long)offset);
	if (g.footprint > size)
		return rfm__error(RFM_ERANGE,
				  "rfm_ring_create: the ring needs %llu bytes, the range has %llu",
				  (unsigned long long)g.footprint, (unsigned long long)size);
	if (offset > node->size || g.footprint > node->size - offset)
		return rfm__error(RFM_ERANGE,
				  "rfm_ring_create: %llu bytes at 0x%llx do not fit the %llu-byte window",
				  (unsigned long long)g.footprint, (unsigned long long)offset,
				  (unsigned long long)node->size);
	g.producer = (uint32_t)node->id;
	r = ring_new(node, offset, &g);
	if (!r)
		return rfm__error(RFM_ENOMEM, "rfm_ring_create: out of memory");

	/* Unpublish first, so no consumer trusts a half-written ring. */
	rfm__wstore32(&r->hdr->magic, 0, __ATOMIC_RELEASE);
	/* Word stores: on dds: the handle's thread may be loading these
	 * words meanwhile (a joining node's copy). */
	rfm__zero_window((uint8_t *)r->table, g.footprint - g.table_offset);
	for (uint64_t i = 0; i < g.slot_count; i++) {
		struct ring_slot *s = rfm__ring_slot(r->slots, &g, i);

		__atomic_store_n(&s->stamp, (uint64_t)0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->len, (uint32_t)0, __ATOMIC_RELAXED);
	}
	struct ring_header *h = r->hdr;
	rfm__ring_header_write(h, &g);
	rfm__wstore32(&h->magic, RING_MAGIC, __ATOMIC_RELEASE);
	/* A copy per node (dds:): the whole ring, its magic landing last. */
	ret = rfm__published(node, h, g.footprint);
	if (ret) {
		rfm_ring_close(r);
		return ret;
	}
	*ringp = r;
	return 0;
}

/* The layout region @name: where it is, and (@writer) that @node writes it. */
int rfm__ring_region(rfm_node *node, const rfm_layout *layout, const char *name, bool writer,
		     uint64_t *offset, uint64_t *size)
{
	size_t n;

	if (!node || !layout || !name)
		return rfm__error(RFM_EINVAL, "ring: NULL argument");
	n = rfm_layout_region_count(layout);
	for (size_t i = 0; i < n; i++) {
		struct rfm_region_info ri = { .struct_size = sizeof(ri) };

		if (rfm_layout_region_info(layout, i, &ri) || strcmp(ri.name, name))
			continue;
		if (writer && ri.writer != (uint32_t)node->id)
			return rfm__error(RFM_EOWNER,
					  "ring: region '%s' is written by node %u, this is node %d",
					  name, ri.writer, node->id);
		*offset = ri.offset;
		*size = ri.size;
		return 0;
	}
	return rfm__error(RFM_ENOTFOUND, "ring: the layout has no region '%s'", name);
}

RFM_API int rfm_ring_create_region(rfm_node *node, const rfm_layout *layout, const char *region,
				   const struct rfm_ring_config *config, rfm_ring **ringp)
{
	struct rfm_ring_config declared = { .struct_size = sizeof(declared) };
	uint64_t offset, size;
	int ret;

	if (node && node->observer)
		return rfm__observer_refused(node, "rfm_ring_create_region");
	ret = rfm__ring_region(node, layout, region, true, &offset, &size);
	if (ret)
		return ret;
	/* No shape given: the layout's own (its `ring:`). */
	for (size_t i = 0; !config && i < rfm_layout_region_count(layout); i++) {
		struct rfm_region_info ri = { .struct_size = sizeof(ri) };

		if (!rfm_layout_region_info(layout, i, &ri) && !strcmp(ri.name, region)) {
			ret = rfm_layout_region_ring(layout, i, &declared);
			if (ret)
				return ret;
			config = &declared;
		}
	}
	return rfm_ring_create(node, offset, size, config, ringp);
}

RFM_API int rfm_ring_attach(rfm_node *node, uint64_t offset, rfm_ring **ringp)
{
	struct ring_geom g;
	rfm_ring *r;
	int ret;

	if (!node || !ringp)
		return rfm__error(RFM_EINVAL, "rfm_ring_attach: NULL argument");
	if (node->observer)
		return rfm__observer_refused(node, "rfm_ring_attach");
	ret = rfm__ring_validate(node, offset, &g);
	if (ret)
		return ret;
	if (g.producer != (uint32_t)node->id)
		return rfm__error(RFM_EOWNER, "ring at 0x%llx: its producer is node %u, this is node %d",
				  (unsigned long long)offset, g.producer, node->id);
	r = ring_new(node, offset, &g);
	if (!r)
		return rfm__error(RFM_ENOMEM, "rfm_ring_attach: out of memory");
	/* Go on after the last committed message (a claim left open is overwritten). */
	r->head = rfm__wload64(&r->hdr->head, __ATOMIC_ACQUIRE);
	*ringp = r;
	return 0;
}

RFM_API void rfm_ring_close(rfm_ring *ring)
{
	if (!ring)
		return;
	free(ring->notified);
	free(ring->checked);
	free(ring->held);
	free(ring);
}

/* ---- back-pressure ---- */

bool rfm__ring_entry_alive(rfm_node *node, uint32_t node_id, const struct ring_entry *e)
{
	uint32_t owner = rfm__wload32(&e->owner, __ATOMIC_ACQUIRE);
	uint32_t inc = rfm__wload32(&e->incarnation, __ATOMIC_RELAXED);
	int32_t pid = rfm__wloadi32(&e->pid, __ATOMIC_RELAXED);

	if (owner != node_id + 1)
		return false; /* free, being filled, or scribbled over */
	if (node->ops->node_alive && !node->ops->node_alive(node, node_id, inc))
		return false;
	/* One host, or our own node (its processes run beside us): a dead
	 * process is gone even if its node id lives on. */
	if (((node->ops->caps & RFM__CAP_SINGLE_HOST) || node_id == (uint32_t)node->id) &&
	    rfm__os_pid_gone(pid))
		return false;
	return true;
}

/*
 * Is the back-pressure consumer in lane @i (of node @node_id) dead? Looked
 * at most once a millisecond per holder. The producer never frees the
 * lane (it is not its word to write): it ignores it, and a process of
 * that node takes it over when it next claims one.
 */
static bool lane_dead(rfm_ring *r, uint32_t node_id, size_t i, const struct ring_entry *e,
		      uint64_t *now)
{
	struct ring_lane_check *k = &r->checked[i];
	int32_t pid = rfm__wloadi32(&e->pid, __ATOMIC_RELAXED);
	uint32_t inc = rfm__wload32(&e->incarnation, __ATOMIC_RELAXED);

	if (!*now)
		*now = rfm__now_ns();
	if (k->at && k->pid == pid && k->incarnation == inc && *now - k->at < 1000000)
		return k->dead;
	k->at = *now;
	k->pid = pid;
	k->incarnation = inc;
	k->dead = !rfm__ring_entry_alive(r->node, node_id, e);
	return k->dead;
}

/* Lanes of node @n the directory says are held (bits past the row ignored). */
static inline uint32_t held_lanes(rfm_ring *r, uint32_t n)
{
	uint32_t bits = rfm__wload32(rfm__ring_dir(r->table, n), __ATOMIC_ACQUIRE);

	return r->g.max_consumers < 32 ? bits & ((1u << r->g.max_consumers) - 1) : bits;
}

/* Note every held lane of the directory (1 KiB) in r->held. */
static void scan_directory(rfm_ring *r)
{
	/* The tick before the reads: a consumer listed before it is seen. */
	r->scan_tick = rfm__ring_tick();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	r->nheld = 0;
	for (uint32_t n = 0; n < r->g.consumer_nodes; n++)
		for (uint32_t bits = held_lanes(r, n); bits; bits &= bits - 1)
			r->held[r->nheld++] = n * r->g.max_consumers + (uint32_t)__builtin_ctz(bits);
	r->scan_head = r->head;
	r->since_scan = 0;
	r->scanned = true;
}

/*
 * Positions below the returned limit can be written without lapping any
 * live back-pressure consumer. The directory is scanned when the head has
 * moved a lap past the last scan (the limit never reaches further), so a
 * consumer that registers at the head is seen before it can be lapped;
 * while waiting for room only the lanes found held are read again.
 */
static uint64_t bp_limit(rfm_ring *r)
{
	uint64_t min = UINT64_MAX, now = 0;

	if (!r->scanned || r->head >= r->scan_head + r->g.slot_count)
		scan_directory(r);
	for (uint32_t k = 0; k < r->nheld; k++) {
		uint32_t n = r->held[k] / r->g.max_consumers, lane = r->held[k] % r->g.max_consumers;
		struct ring_entry *e = rfm__ring_entry(r->table, &r->g, n, lane);

		if (!(held_lanes(r, n) & (1u << lane)) ||
		    rfm__wload32(&e->owner, __ATOMIC_ACQUIRE) != n + 1 ||
		    !(rfm__wload32(&e->flags, __ATOMIC_ACQUIRE) & RFM_RING_CONSUMER_BACKPRESSURE))
			continue;
		uint64_t cur = rfm__wload64(&e->cursor, __ATOMIC_ACQUIRE);
		/* Only one holding us back may be dead: look at it. */
		if (cur + r->g.slot_count <= r->head && lane_dead(r, n, r->held[k], e, &now))
			continue;
		if (cur < min)
			min = cur;
	}
	/* None registered: up to one lap on, where the directory is read again. */
	uint64_t limit = (min == UINT64_MAX ? r->head : min) + r->g.slot_count;
	uint64_t rescan = r->scan_head + r->g.slot_count;
	return limit < rescan ? limit : rescan;
}

void rfm__ring_wake_producer(struct ring_header *hdr)
{
	/* Our cursor is stored; now read the wait word (pairs with sleep_for_room()). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (rfm__wload32(&hdr->room_wait, __ATOMIC_RELAXED))
		rfm__futex_wake(&hdr->room_wait, true);
}

/* Longest futex sleep: bounds the delay when a wake is lost (a consumer of
 * an older library, on another host, or a scribbled word) and how late a
 * dead consumer is noticed. */
#define ROOM_SLICE_NS 5000000u

/*
 * Sleep until a consumer moves its cursor (it wakes the futex in the
 * header), a slice passes or @deadline. The wait word is announced before
 * the cursors are read again, so a cursor stored before that read is seen
 * and one stored after it is followed by a wake.
 */
static void sleep_for_room(rfm_ring *r, uint64_t deadline)
{
	uint32_t *word = &r->hdr->room_wait;
	uint64_t until = rfm__now_ns() + ROOM_SLICE_NS;

	if (++r->room_gen == 0)
		r->room_gen = 1;
	rfm__wstore32(word, r->room_gen, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	r->limit = bp_limit(r);
	if (r->head >= r->limit) {
		if (deadline && deadline < until)
			until = deadline;
		/* The futex compares the word as stored: in wire order. */
		int ret = rfm__futex_wait(word, rfm__wire32(r->room_gen), until, true);
		/* Memory a futex cannot live in (a card's window): just pause. */
		if (ret == -EFAULT || ret == -ENOSYS)
			rfm__backoff_sleep(7, until);
	}
	__atomic_store_n(word, 0, __ATOMIC_RELAXED);
}

static bool room_ready(void *arg)
{
	rfm_ring *r = arg;

	r->limit = bp_limit(r);
	return r->head < r->limit;
}

static int room_spin_over(void *arg, unsigned int turn)
{
	(void)arg;
	return rfm__spin_turns_over(turn, 256);
}

static int wait_room(rfm_ring *r, int64_t timeout_ns)
{
	int64_t spin_ns = __atomic_load_n(&r->node->spin_ns, __ATOMIC_RELAXED);
	uint64_t start = 0, deadline = 0;
	int ret;

	if (room_ready(r))
		return 0;
	if (timeout_ns == 0)
		return rfm__error(RFM_EOVERRUN,
				  "ring at 0x%llx: message %llu would overrun a consumer",
				  (unsigned long long)r->offset, (unsigned long long)r->head);
	/* Consumers usually move on within a moment: spin first. */
	if (!rfm__spin_until(room_ready, room_spin_over, r))
		return 0;
	for (;;) {
		if (room_ready(r))
			return 0;
		uint64_t now = rfm__now_ns();
		if (!start) {
			start = now;
			if (timeout_ns > 0)
				deadline = now + (uint64_t)timeout_ns;
		}
		if (deadline && now >= deadline)
			return rfm__error(RFM_ETIMEDOUT,
					  "ring at 0x%llx: consumers did not make room in time",
					  (unsigned long long)r->offset);
		if ((ret = rfm__event_poll_stop(r->node)))
			return ret;
		/* Yield for the handle's spin time (room usually comes within
		 * a consumer's take), then sleep rather than burn a core. */
		if (spin_ns < 0 || now - start < (uint64_t)spin_ns)
			rfm__os_yield();
		else
			sleep_for_room(r, deadline);
	}
}

/* ---- publishing ---- */

static void notify(rfm_ring *r)
{
	rfm_node *node = r->node;

	/* Head is stored; now read sleep words (pairs with the consumer's fence). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (++r->since_scan >= RING_SCAN_COMMITS || rfm__ring_tick() != r->scan_tick)
		scan_directory(r);
	for (uint32_t k = 0; k < r->nheld; k++) {
		uint32_t i = r->held[k];
		uint32_t n = i / r->g.max_consumers, lane = i % r->g.max_consumers;
		struct ring_entry *e = rfm__ring_entry(r->table, &r->g, n, lane);
		uint32_t sleep = rfm__wload32(&e->sleep, __ATOMIC_RELAXED);

		if (!sleep || sleep == r->notified[i])
			continue;
		r->notified[i] = sleep;
		if (rfm__wload32(&e->owner, __ATOMIC_ACQUIRE) != n + 1)
			continue;
		/* Internal send: reaches our own node too (consumers beside us). */
		rfm__event_post(node, n, r->g.notify_type, (uint32_t)node->id, r->g.ring_id);
	}
}

static int check_room(rfm_ring *r, int64_t timeout_ns)
{
	if (RFM_LIKELY(r->head < r->limit))
		return 0;
	return wait_room(r, timeout_ns);
}

static inline void begin_slot(rfm_ring *r, struct ring_slot *s)
{
	rfm__wstore64(&s->stamp, 2 * r->head + 1, __ATOMIC_RELAXED);
	/* The odd stamp is visible before any byte of the new data. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	rfm__published(r->node, &s->stamp, sizeof(s->stamp));
}

static inline void end_slot(rfm_ring *r, struct ring_slot *s, size_t len)
{
	s->len = rfm__wire32((uint32_t)len);
	rfm__wstore64(&s->stamp, 2 * r->head + 2, __ATOMIC_RELEASE);
	/* A copy per node (dds:): data and length land before the stamp. */
	rfm__published(r->node, s, sizeof(*s) + len);
	r->head++;
	rfm__wstore64(&r->hdr->head, r->head, __ATOMIC_RELEASE);
	rfm__published(r->node, &r->hdr->head, sizeof(r->hdr->head));
	if (r->g.flags & RFM_RING_F_NOTIFY)
		notify(r);
}

/*
 * For @fn (publish, claim): the head slot, once it is free (waiting up to
 * @timeout_ns for room), with its write begun.
 */
static inline int start_slot(rfm_ring *r, const char *fn, int64_t timeout_ns,
			     struct ring_slot **sp)
{
	int ret;

	if (RFM_UNLIKELY(r->claimed))
		return rfm__error(RFM_EBUSY, "%s: a claimed slot is not committed", fn);
	ret = check_room(r, timeout_ns);
	if (ret)
		return ret;
	*sp = rfm__ring_slot(r->slots, &r->g, r->head);
	begin_slot(r, *sp);
	return 0;
}

RFM_API int rfm_ring_publish(rfm_ring *r, const void *buf, size_t len, int64_t timeout_ns)
{
	struct ring_slot *s = NULL;
	int ret;

	if (RFM_UNLIKELY(!r || (!buf && len)))
		return rfm__error(RFM_EINVAL, "rfm_ring_publish: NULL argument");
	if (RFM_UNLIKELY(len > r->g.slot_size))
		return rfm__error(RFM_EINVAL, "rfm_ring_publish: %zu bytes exceed the slot size %u",
				  len, r->g.slot_size);
	ret = start_slot(r, "rfm_ring_publish", timeout_ns, &s);
	if (ret)
		return ret;
	if (len)
		rfm__window_store(r->atomic_store, s->data, buf, len);
	end_slot(r, s, len);
	return 0;
}

RFM_API int rfm_ring_claim(rfm_ring *r, void **bufp, int64_t timeout_ns)
{
	struct ring_slot *s = NULL;
	int ret;

	if (!r || !bufp)
		return rfm__error(RFM_EINVAL, "rfm_ring_claim: NULL argument");
	ret = start_slot(r, "rfm_ring_claim", timeout_ns, &s);
	if (ret)
		return ret;
	r->claimed = true;
	*bufp = s->data;
	return 0;
}

RFM_API int rfm_ring_commit(rfm_ring *r, size_t len)
{
	if (!r)
		return rfm__error(RFM_EINVAL, "rfm_ring_commit: ring is NULL");
	if (!r->claimed)
		return rfm__error(RFM_EINVAL, "rfm_ring_commit: no slot is claimed");
	if (len > r->g.slot_size)
		return rfm__error(RFM_EINVAL, "rfm_ring_commit: %zu bytes exceed the slot size %u",
				  len, r->g.slot_size);
	r->claimed = false;
	end_slot(r, rfm__ring_slot(r->slots, &r->g, r->head), len);
	return 0;
}

void rfm__ring_fill_info(const struct ring_geom *g, uint64_t offset, uint64_t head,
			 struct rfm_ring_info *info)
{
	struct rfm_ring_info full = {
		.slot_size = g->slot_size,
		.slot_count = g->slot_count,
		.flags = g->flags,
		.producer = g->producer,
		.notify_type = g->notify_type,
		.ring_id = g->ring_id,
		.max_consumers = g->max_consumers,
		.offset = offset,
		.footprint = g->footprint,
		.head = head,
		.consumer_nodes = g->consumer_nodes,
	};
	uint32_t want = info->struct_size < sizeof(full) ? info->struct_size : sizeof(full);

	full.struct_size = want;
	memcpy(info, &full, want);
}

RFM_API int rfm_ring_get_info(rfm_ring *r, struct rfm_ring_info *info)
{
	if (!r || !info || info->struct_size < 8)
		return rfm__error(RFM_EINVAL, "rfm_ring_get_info: NULL argument or struct_size");
	rfm__ring_fill_info(&r->g, r->offset, r->head, info);
	return 0;
}
