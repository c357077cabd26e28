/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings, the consumers' side: validation of the header, a cursor per
 * consumer, lap detection and resynchronisation, blocking takes (spin,
 * then sleep on the ring's notification), zero-copy peeks and callbacks
 * on the event dispatcher thread.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/event.h>

#include "futex.h"
#include "os/process.h"
#include "wait-notify.h"
#include "window-copy.h"
#include "ring-internal.h"

enum look { LOOK_READY, LOOK_EMPTY, LOOK_LAPPED };

/*
 * May a process of our node take lane @e of our row, now holding @owner?
 * Free, or its holder is gone: a claim left half done by a dead process,
 * a holder whose node incarnation or process ended, or a scribbled word.
 */
static bool lane_takeable(rfm_ring_consumer *c, const struct ring_entry *e, uint32_t owner)
{
	if (!owner)
		return true;
	if (owner & RING_CLAIMING) {
		return rfm__os_pid_gone((int32_t)(owner & ~RING_CLAIMING));
	}
	return !rfm__ring_entry_alive(c->node, (uint32_t)c->node->id, e);
}

/*
 * Take a lane of our node's row. Only processes of this node write the
 * row and its directory word, and they share this node's copy of the
 * window: the compare-and-swap and the OR below never race with another
 * node (docs/architecture.md, "One writer per word").
 */
static int claim_entry(rfm_ring_consumer *c)
{
	uint32_t me = (uint32_t)c->node->id;
	uint32_t mark = RING_CLAIMING | ((uint32_t)rfm__os_pid() & ~RING_CLAIMING);

	if (c->node->id < 0)
		return rfm__error(RFM_ENODEID, "ring at 0x%llx: a handle without a node id has no "
				  "table row", (unsigned long long)c->offset);
	if (me >= c->g.consumer_nodes)
		return rfm__error(RFM_ENODEID,
				  "ring at 0x%llx: its consumer table has rows for node ids 0..%u "
				  "(the nodes it was made for), not for node %u; a consumer there "
				  "can only read without an entry (observe=1)",
				  (unsigned long long)c->offset, c->g.consumer_nodes - 1, me);
	for (uint32_t lane = 0; lane < c->g.max_consumers; lane++) {
		struct ring_entry *e = rfm__ring_entry(c->table, &c->g, me, lane);
		uint32_t old = __atomic_load_n(&e->owner, __ATOMIC_ACQUIRE);

		/* Compared and swapped in wire order, judged in host order. */
		if (!lane_takeable(c, e, rfm__host32(old)) ||
		    !__atomic_compare_exchange_n(&e->owner, &old, rfm__wire32(mark), false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		/* Fill, then publish the owner: the producer never sees a stale cursor. */
		rfm__wstore64(&e->cursor, c->cursor, __ATOMIC_RELAXED);
		rfm__wstore32(&e->laps, 0, __ATOMIC_RELAXED);
		c->published = c->cursor;
		c->batch = c->g.slot_count / 16 ? c->g.slot_count / 16 : 1;
		e->incarnation = rfm__wire32(c->node->incarnation);
		e->pid = (int32_t)rfm__wire32((uint32_t)rfm__os_pid());
		e->flags = rfm__wire32(c->flags & RFM_RING_CONSUMER_BACKPRESSURE);
		rfm__wstore32(&e->sleep, 0, __ATOMIC_RELAXED);
		rfm__wstore32(&e->owner, me + 1, __ATOMIC_RELEASE);
		/* Then tell the producer the lane is held (a lane taken over from a
		 * dead holder has its bit already). */
		c->dir_word = rfm__ring_dir(c->table, me);
		__atomic_fetch_or(c->dir_word, rfm__wire32(1u << lane), __ATOMIC_RELEASE);
		/* A copy per node (dds:): the entry, then the directory word. */
		rfm__published(c->node, e, RING_ENTRY_SIZE);
		rfm__published(c->node, c->dir_word, sizeof(*c->dir_word));
		/* Listed; from the next tick on, every commit sees us (ring.c notify()). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		c->claim_tick = rfm__ring_tick();
		c->entry = e;
		c->lane = lane;
		/* Sleep values unique to this consumer: the producer remembers the
		 * last value it woke per entry, and a new holder must not match it. */
		c->sleep_gen = (uint32_t)(rfm__now_ns() ^ ((uint64_t)(uint32_t)rfm__os_pid() << 20));
		return 0;
	}
	return rfm__error(RFM_EFULL,
			  "ring at 0x%llx: all %u consumer entries of node %u are taken",
			  (unsigned long long)c->offset, c->g.max_consumers, me);
}

/* The lap count in our entry, for monitors (rfm_ring_inspect()). */
static void count_lap(rfm_ring_consumer *c)
{
	c->laps++;
	if (c->entry) {
		rfm__wstore32(&c->entry->laps, (uint32_t)c->laps, __ATOMIC_RELAXED);
		rfm__published(c->node, &c->entry->laps, sizeof(c->entry->laps));
	}
}

static inline uint64_t stamp_of(const struct ring_slot *s)
{
	return rfm__wload64(&s->stamp, __ATOMIC_ACQUIRE);
}

static inline enum look look(rfm_ring_consumer *c, struct ring_slot **sp)
{
	struct ring_slot *s = rfm__ring_slot(c->slots, &c->g, c->cursor);
	uint64_t want = 2 * c->cursor + 2, st = stamp_of(s);

	*sp = s;
	if (RFM_LIKELY(st == want))
		return LOOK_READY;
	if (st < want)
		return LOOK_EMPTY;
	/*
	 * A stamp past ours means the producer began message cursor + n, which
	 * it does only after committing cursor + n - 1: the head is past the
	 * cursor. Otherwise the stamp is garbage (a dead or hostile writer):
	 * nothing is there yet, and the producer rewrites the slot on its way.
	 */
	return rfm__wload64(&c->hdr->head, __ATOMIC_ACQUIRE) > c->cursor ? LOOK_LAPPED
									       : LOOK_EMPTY;
}

static void publish_cursor(rfm_ring_consumer *c)
{
	if (c->entry && c->published != c->cursor) {
		rfm__wstore64(&c->entry->cursor, c->cursor, __ATOMIC_RELEASE);
		rfm__published(c->node, &c->entry->cursor, sizeof(c->entry->cursor));
		c->published = c->cursor;
		if (c->flags & RFM_RING_CONSUMER_BACKPRESSURE)
			rfm__ring_wake_producer(c->hdr);
	}
}

/*
 * While it keeps taking, a back-pressure consumer publishes its cursor
 * every 1/16 of the ring: the producer reads that line only when it runs
 * out of room, and a line written per message would bounce between the
 * two. Whenever it stops (nothing new, or about to wait) it publishes.
 */
static inline void publish_cursor_lazy(rfm_ring_consumer *c)
{
	if (c->cursor - c->published >= c->batch)
		publish_cursor(c);
}

/* Losses are reported with the next message returned. */
static void skip_to(rfm_ring_consumer *c, uint64_t pos)
{
	if (pos > c->cursor) {
		c->pending_lost += pos - c->cursor;
		c->lost += pos - c->cursor;
		rfm__count_ring_lost(pos - c->cursor);
		c->cursor = pos;
		publish_cursor(c);
	}
}

/*
 * The oldest message still valid, at or after the cursor: start from
 * head - slot_count and step past slots that were overwritten since.
 */
static uint64_t oldest_valid(rfm_ring_consumer *c)
{
	uint64_t n = c->g.slot_count;

	for (int round = 0; round < 4; round++) {
		uint64_t head = rfm__wload64(&c->hdr->head, __ATOMIC_ACQUIRE);
		uint64_t pos = head > n ? head - n : 0;

		if (pos < c->cursor)
			pos = c->cursor;
		for (uint64_t i = 0; i <= n; i++, pos++) {
			uint64_t st = stamp_of(rfm__ring_slot(c->slots, &c->g, pos));

			if (st <= 2 * pos + 2)
				return pos; /* valid, or not written yet: the new cursor */
		}
	}
	return c->cursor;
}

static void start_cursor(rfm_ring_consumer *c, bool newest)
{
	c->cursor = 0;
	if (newest)
		c->cursor = rfm__wload64(&c->hdr->head, __ATOMIC_ACQUIRE);
	else
		c->cursor = oldest_valid(c);
}

static int open_at(rfm_node *node, uint64_t offset, unsigned int flags, rfm_ring_consumer **consp)
{
	rfm_ring_consumer *c;
	int ret;

	if (!node || !consp)
		return rfm__error(RFM_EINVAL, "rfm_ring_consumer_open: NULL argument");
	if (flags & ~(RFM_RING_CONSUMER_NEWEST | RFM_RING_CONSUMER_BACKPRESSURE))
		return rfm__error(RFM_EINVAL, "rfm_ring_consumer_open: unknown flags 0x%x", flags);
	/* Holding the producer back is acting on the ring: an observer only reads. */
	if ((flags & RFM_RING_CONSUMER_BACKPRESSURE) && node->observer)
		return rfm__observer_refused(node, "rfm_ring_consumer_open with back-pressure");
	c = calloc(1, sizeof(*c));
	if (!c)
		return rfm__error(RFM_ENOMEM, "rfm_ring_consumer_open: out of memory");
	ret = rfm__ring_validate(node, offset, &c->g);
	if (ret)
		goto fail;
	if ((flags & RFM_RING_CONSUMER_BACKPRESSURE) && !(c->g.flags & RFM_RING_F_BACKPRESSURE)) {
		ret = rfm__error(RFM_ENOTSUP,
				 "ring at 0x%llx was created without back-pressure",
				 (unsigned long long)offset);
		goto fail;
	}
	c->node = node;
	c->atomic_copy = rfm__window_filled_by_thread(node);
	c->offset = offset;
	c->flags = flags;
	c->hdr = (struct ring_header *)(node->base + offset);
	c->slots = node->base + offset + c->g.slots_offset;
	c->table = node->base + offset + c->g.table_offset;
	start_cursor(c, flags & RFM_RING_CONSUMER_NEWEST);
	/* An observer takes no entry: it reads by its own cursor, polls instead
	 * of sleeping on the ring's notify, and never holds the producer back. */
	if ((c->g.flags & (RFM_RING_F_NOTIFY | RFM_RING_F_BACKPRESSURE)) && !node->observer) {
		ret = claim_entry(c);
		if (ret)
			goto fail;
		/* The producer may have lapped the start while we claimed: look again. */
		if (!(flags & RFM_RING_CONSUMER_NEWEST)) {
			c->cursor = oldest_valid(c);
			publish_cursor(c);
		}
	}
	*consp = c;
	return 0;
fail:
	free(c);
	return ret;
}

RFM_API int rfm_ring_consumer_open(rfm_node *node, uint64_t offset, unsigned int flags,
				   rfm_ring_consumer **consp)
{
	return open_at(node, offset, flags, consp);
}

RFM_API int rfm_ring_consumer_open_region(rfm_node *node, const rfm_layout *layout,
					  const char *region, unsigned int flags,
					  rfm_ring_consumer **consp)
{
	uint64_t offset, size;
	int ret = rfm__ring_region(node, layout, region, false, &offset, &size);

	return ret ? ret : open_at(node, offset, flags, consp);
}

RFM_API void rfm_ring_consumer_close(rfm_ring_consumer *c)
{
	if (!c)
		return;
	if (c->cb)
		rfm_event_callback_unregister(c->node, c->g.notify_type);
	if (c->entry) {
		/* Unlisted first, so the producer never reads a half-freed lane. */
		__atomic_fetch_and(c->dir_word, rfm__wire32(~(1u << c->lane)), __ATOMIC_RELEASE);
		rfm__wstore32(&c->entry->sleep, 0, __ATOMIC_RELAXED);
		rfm__wstore32(&c->entry->owner, 0, __ATOMIC_RELEASE);
		rfm__published(c->node, c->entry, RING_ENTRY_SIZE);
		rfm__published(c->node, c->dir_word, sizeof(*c->dir_word));
		if (c->flags & RFM_RING_CONSUMER_BACKPRESSURE)
			rfm__ring_wake_producer(c->hdr); /* no longer holds it back */
	}
	free(c->cb_buf);
	free(c);
}

/* ---- taking ---- */

/*
 * Find the next ready slot without waiting: LOOK_READY with *sp set and
 * *lost counting what laps skipped on the way, or LOOK_EMPTY.
 */
static enum look find(rfm_ring_consumer *c, struct ring_slot **sp)
{
	/* Bounded: a damaged ring (or a producer lapping us forever) must
	 * not keep us here. */
	for (int tries = 0;; tries++) {
		enum look l = look(c, sp);

		if (l != LOOK_LAPPED)
			return l;
		if (tries == 8)
			return LOOK_EMPTY; /* the caller waits, or says "nothing new" */
		count_lap(c);
		uint64_t pos = oldest_valid(c);
		if (pos <= c->cursor || tries >= 3) {
			/*
			 * No valid message between us and the head (slots
			 * scribbled over), or a producer too fast to catch:
			 * go to the head; look() then sees at most garbage
			 * stamps, which read as empty.
			 */
			pos = rfm__wload64(&c->hdr->head, __ATOMIC_ACQUIRE);
			if (pos <= c->cursor)
				return LOOK_EMPTY;
		}
		skip_to(c, pos);
	}
}

/* Longest sleep while a commit may still miss us (see settle_bound()). */
#define UNSETTLED_SLICE_NS 1000000
/* Longest sleep where each node holds its own copy of the window: a sleep
 * announced while a commit is on its way crosses it, and neither side sees
 * the other's write in time (the fence pairing needs one memory). */
#define COPIES_SLICE_NS 10000000

/*
 * How long a sleep may last (-1: no bound). A consumer listed in clock
 * tick T is seen by every commit of a later tick; commits within tick T
 * may have used the producer's older list, so until the tick has passed
 * a sleep is cut short and the slot looked at again.
 */
static int64_t settle_bound(rfm_ring_consumer *c)
{
	if (!(c->node->ops->caps & RFM__CAP_SINGLE_HOST))
		return COPIES_SLICE_NS;
	if (!c->settled && rfm__ring_tick() > c->claim_tick)
		c->settled = true;
	return c->settled ? -1 : UNSETTLED_SLICE_NS;
}

static bool sleepable(rfm_ring_consumer *c)
{
	return c->entry && (c->g.flags & RFM_RING_F_NOTIFY);
}

/* Announce a sleep; the producer interrupts us once for it. */
static void arm(rfm_ring_consumer *c)
{
	if (++c->sleep_gen == 0)
		c->sleep_gen = 1;
	rfm__wstore32(&c->entry->sleep, c->sleep_gen, __ATOMIC_RELAXED);
	/* Sleep word stored before we look at the slot again (pairs with notify()). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	rfm__published(c->node, &c->entry->sleep, sizeof(c->entry->sleep));
}

static void disarm(rfm_ring_consumer *c)
{
	rfm__wstore32(&c->entry->sleep, 0, __ATOMIC_RELAXED);
	rfm__published(c->node, &c->entry->sleep, sizeof(c->entry->sleep));
}

static int enable_notify(rfm_ring_consumer *c)
{
	int ret = rfm__event_enable_notify(c->node, c->g.notify_type);

	/* Turned on now: the caller arms and looks again before it sleeps. */
	return ret < 0 ? ret : 0;
}

struct slot_spin {
	rfm_ring_consumer *c;
	uint64_t start, deadline;
	int64_t spin_ns;
};

static bool slot_ready(void *arg)
{
	struct slot_spin *sp = arg;
	struct ring_slot *s;

	return look(sp->c, &s) != LOOK_EMPTY;
}

static int slot_spin_check(void *arg, unsigned int turn)
{
	struct slot_spin *sp = arg;
	uint64_t now = rfm__now_ns();
	int ret;

	(void)turn;
	if (sp->deadline && now >= sp->deadline)
		return rfm__error(RFM_ETIMEDOUT, "ring at 0x%llx: nothing new in time",
				  (unsigned long long)sp->c->offset);
	if ((ret = rfm__event_poll_stop(sp->c->node)))
		return ret; /* rfm_event_cancel() from a signal handler */
	if (sp->spin_ns >= 0 && now - sp->start >= (uint64_t)sp->spin_ns)
		return RFM__SPIN_OVER;
	return 0;
}

/* Wait until the slot at the cursor is ready (or lapped). */
static int nothing_in_time(const rfm_ring_consumer *c)
{
	return rfm__error(RFM_ETIMEDOUT, "ring at 0x%llx: nothing new in time",
			  (unsigned long long)c->offset);
}

/* No interrupt will come: poll, sleeping longer each time (to 1 ms). */
static int poll_ready(rfm_ring_consumer *c, uint64_t deadline)
{
	struct ring_slot *s;
	int ret;

	for (unsigned int step = 0;; step++) {
		if (look(c, &s) != LOOK_EMPTY)
			return 0;
		if (deadline && rfm__now_ns() >= deadline)
			return nothing_in_time(c);
		if ((ret = rfm__event_poll_stop(c->node)))
			return ret;
		rfm__backoff_sleep(step, deadline);
	}
}

/* Sleep on the ring's interrupt until a message is ready or @deadline. */
static int sleep_ready(rfm_ring_consumer *c, uint64_t deadline)
{
	struct ring_slot *s;
	int ret = enable_notify(c);

	if (ret)
		return ret;
	for (;;) {
		int64_t left = -1;

		arm(c);
		if (look(c, &s) != LOOK_EMPTY) {
			disarm(c);
			return 0;
		}
		if (deadline) {
			uint64_t now = rfm__now_ns();
			if (now >= deadline) {
				disarm(c);
				return nothing_in_time(c);
			}
			left = (int64_t)(deadline - now);
		}
		int64_t bound = settle_bound(c);
		if (bound >= 0 && (left < 0 || left > bound))
			left = bound; /* a timeout of ours: the loop looks again */
		c->sleeps++;
		ret = rfm__event_sleep(c->node, left);
		disarm(c);
		if (ret && ret != RFM_ETIMEDOUT)
			return ret;
	}
}

static int wait_ready(rfm_ring_consumer *c, int64_t timeout_ns)
{
	uint64_t start = rfm__now_ns();
	uint64_t deadline = timeout_ns > 0 ? start + (uint64_t)timeout_ns : 0;
	int64_t spin_ns = __atomic_load_n(&c->node->spin_ns, __ATOMIC_RELAXED);
	int ret;

	/*
	 * A head behind our cursor went backwards: a scribbled head sent us
	 * ahead and the producer has since rewritten it. Follow the producer
	 * again instead of waiting for a position it will not reach for ages.
	 */
	uint64_t head = rfm__wload64(&c->hdr->head, __ATOMIC_ACQUIRE);
	if (head + 1 < c->cursor) {
		c->cursor = head;
		publish_cursor(c);
	}

	/* Spin on our slot's stamp. */
	struct slot_spin spin = { c, start, deadline, spin_ns };
	ret = rfm__spin_until(slot_ready, slot_spin_check, &spin);
	if (ret != RFM__SPIN_OVER)
		return ret;
	return sleepable(c) ? sleep_ready(c, deadline) : poll_ready(c, deadline);
}

/*
 * Next ready slot, waiting as the timeout says. *deadline (0 at a call's
 * start) holds the end of the whole call, so slots that keep turning out
 * damaged or overwritten cannot stretch it past its timeout.
 */
static int next(rfm_ring_consumer *c, struct ring_slot **sp, int64_t timeout_ns,
		uint64_t *deadline)
{
	for (;;) {
		if (find(c, sp) == LOOK_READY)
			return 0;
		publish_cursor(c);
		if (timeout_ns == 0)
			return RFM_EAGAIN; /* the common "nothing new": no message formatting */
		int64_t left = -1;
		if (timeout_ns > 0) {
			uint64_t now = rfm__now_ns();
			if (!*deadline)
				*deadline = now + (uint64_t)timeout_ns;
			if (now >= *deadline)
				return rfm__error(RFM_ETIMEDOUT, "ring at 0x%llx: nothing new in time",
						  (unsigned long long)c->offset);
			left = (int64_t)(*deadline - now);
		}
		int ret = wait_ready(c, left);
		if (ret)
			return ret;
	}
}

/* After reading slot @s as message cursor: still the same message? */
static inline bool still(rfm_ring_consumer *c, struct ring_slot *s)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return rfm__wload64(&s->stamp, __ATOMIC_RELAXED) == 2 * c->cursor + 2;
}

static inline void deliver(rfm_ring_consumer *c, struct rfm_ring_msg *msg, uint32_t len)
{
	msg->seq = c->cursor;
	msg->lost = c->pending_lost;
	msg->len = len;
	msg->reserved = 0;
	c->pending_lost = 0;
}

static void advance(rfm_ring_consumer *c)
{
	c->cursor++;
	c->taken++;
	publish_cursor_lazy(c);
}

/*
 * Consume and peek: wait for the message at the cursor and describe it in
 * @msg. Consuming (@datap NULL) copies up to @cap bytes of it into @buf
 * and moves on; peeking hands out its slot's data in *@datap and holds the
 * cursor there until rfm_ring_release(). Inlined into both, so that
 * consume, the hot path, is compiled with @datap NULL folded away.
 */
__attribute__((always_inline))
static inline int take(rfm_ring_consumer *c, const char *what, void *buf, size_t cap,
		       struct rfm_ring_msg *msg, int64_t timeout_ns, const void **datap)
{
	struct ring_slot *s;
	uint64_t deadline = 0;

	if (RFM_UNLIKELY(c->peeking))
		return rfm__error(RFM_EBUSY, "%s: a peek is not released", what);
	for (;;) {
		int ret = next(c, &s, timeout_ns, &deadline);

		if (ret)
			return ret;
		uint32_t len = rfm__wload32(&s->len, __ATOMIC_RELAXED);
		if (RFM_UNLIKELY(len > c->g.slot_size)) {
			if (!still(c, s))
				continue; /* overwritten under us: find() sees the lap */
			skip_to(c, c->cursor + 1);
			return rfm__ring_corrupt(c->offset, "a slot's length exceeds the slot size");
		}
		if (cap)	/* a backend's thread may fill the slot meanwhile (dds:) */
			rfm__window_copy(c->atomic_copy, buf, s->data, len < cap ? len : cap);
		if (RFM_UNLIKELY(!still(c, s)))
			continue;
		deliver(c, msg, len);
		if (datap) {
			c->peeking = true;
			*datap = s->data;
		} else {
			advance(c);
		}
		return 0;
	}
}

RFM_API int rfm_ring_consume(rfm_ring_consumer *c, void *buf, size_t cap,
			     struct rfm_ring_msg *msg, int64_t timeout_ns)
{
	if (RFM_UNLIKELY(!c || !msg || (!buf && cap)))
		return rfm__error(RFM_EINVAL, "rfm_ring_consume: NULL argument");
	return take(c, "rfm_ring_consume", buf, cap, msg, timeout_ns, NULL);
}

RFM_API int rfm_ring_peek(rfm_ring_consumer *c, const void **datap, struct rfm_ring_msg *msg,
			  int64_t timeout_ns)
{
	if (!c || !datap || !msg)
		return rfm__error(RFM_EINVAL, "rfm_ring_peek: NULL argument");
	return take(c, "rfm_ring_peek", NULL, 0, msg, timeout_ns, datap);
}

RFM_API int rfm_ring_release(rfm_ring_consumer *c)
{
	if (!c)
		return rfm__error(RFM_EINVAL, "rfm_ring_release: consumer is NULL");
	if (!c->peeking)
		return rfm__error(RFM_EINVAL, "rfm_ring_release: no peek is open");
	c->peeking = false;
	if (!still(c, rfm__ring_slot(c->slots, &c->g, c->cursor))) {
		count_lap(c);
		skip_to(c, c->cursor + 1);
		return rfm__error(RFM_ELAPPED,
				  "ring at 0x%llx: the message was overwritten while peeked",
				  (unsigned long long)c->offset);
	}
	advance(c);
	return 0;
}

/* ---- callbacks ---- */

static void on_notify(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	rfm_ring_consumer *c = arg;
	uint8_t *buf = c->cb_buf;
	struct rfm_ring_msg msg;

	(void)node;
	(void)ev;
	for (;;) {
		int ret;

		while ((ret = rfm_ring_consume(c, buf, c->g.slot_size, &msg, 0)) != RFM_EAGAIN)
			if (!ret)
				c->cb(c, buf, &msg, c->cb_arg);
		arm(c);
		struct ring_slot *s;
		if (look(c, &s) == LOOK_EMPTY)
			return; /* stays armed: the producer's next commit wakes us */
		disarm(c);
	}
}

RFM_API int rfm_ring_consumer_set_callback(rfm_ring_consumer *c, rfm_ring_callback fn, void *arg)
{
	int ret;

	if (!c || !fn)
		return rfm__error(RFM_EINVAL, "rfm_ring_consumer_set_callback: NULL argument");
	if (!sleepable(c))
		return rfm__error(RFM_ENOTSUP,
				  "ring at 0x%llx has no notify flag: callbacks need it",
				  (unsigned long long)c->offset);
	if (c->cb)
		return rfm__error(RFM_EBUSY, "rfm_ring_consumer_set_callback: already set");
	/* The callback copies each message into a buffer behind the handle. */
	if (!c->cb_buf && !(c->cb_buf = malloc(c->g.slot_size)))
		return rfm__error(RFM_ENOMEM, "rfm_ring_consumer_set_callback: out of memory");
	ret = enable_notify(c);
	if (ret)
		return ret;
	c->cb = fn;
	c->cb_arg = arg;
	ret = rfm_event_callback_register(c->node, c->g.notify_type, on_notify, c);
	if (ret) {
		c->cb = NULL;
		return ret;
	}
	/*
	 * Commits of our claim's clock tick may not have interrupted us: wait
	 * for the next tick (a few ms at most), so that the kick below takes
	 * what they published and every later commit interrupts us.
	 */
	while (c->node->ops->caps & RFM__CAP_SINGLE_HOST && rfm__ring_tick() <= c->claim_tick)
		rfm__os_sleep_ns(500000);
	/* Kick the dispatcher once for what is already in the ring. */
	rfm__event_post(c->node, (unsigned int)c->node->id, c->g.notify_type,
			(uint32_t)c->node->id, c->g.ring_id);
	return 0;
}

RFM_API int rfm_ring_consumer_get_stats(rfm_ring_consumer *c,
					struct rfm_ring_consumer_stats *stats)
{
	struct rfm_ring_consumer_stats full;
	uint32_t want;

	if (!c || !stats || stats->struct_size < 8)
		return rfm__error(RFM_EINVAL, "rfm_ring_consumer_get_stats: NULL or struct_size");
	want = stats->struct_size < sizeof(full) ? stats->struct_size : sizeof(full);
	full = (struct rfm_ring_consumer_stats){
		.struct_size = want,
		.cursor = c->cursor,
		.taken = c->taken,
		.lost = c->lost,
		.laps = c->laps,
		.sleeps = c->sleeps,
	};
	memcpy(stats, &full, want);
	return 0;
}

RFM_API int rfm_ring_consumer_get_info(rfm_ring_consumer *c, struct rfm_ring_info *info)
{
	if (!c || !info || info->struct_size < 8)
		return rfm__error(RFM_EINVAL, "rfm_ring_consumer_get_info: NULL or struct_size");
	rfm__ring_fill_info(&c->g, c->offset, rfm__wload64(&c->hdr->head, __ATOMIC_ACQUIRE),
			    info);
	return 0;
}
