/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Taking records: numbering, overflow announcements, and waiting for
 * them — spin for the handle's spin time, then sleep on the backend's
 * queue — with cancel and close woken from other threads.
 */
#include "config.h"

#include <stdlib.h>

#include "event-core.h"
#include "futex.h"
#include "wait-notify.h"

#define TAKE_CHUNK 32

static void announce_overflow(struct rfm_node *node, struct rfm_events *ev, uint64_t dropped,
			      struct rfm_event *out)
{
	uint64_t n = dropped - ev->announced;
	uint32_t data = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;

	ev->announced += data;
	ev->overflows++;
	*out = (struct rfm_event){
		.type = RFM_EVENT_OVERFLOW,
		.sender = (uint32_t)node->id,
		.data = data,
		.seq = ++ev->seq,
		.sent_ns = rfm__now_ns(),
	};
}

/* The fd watcher signalled and the queue is now empty: unsignal it. */
static void drain_fd(struct rfm_node *node, struct rfm_events *ev)
{
	intptr_t ready = EV_LOAD(ev->ready);

	if (ready == RFM_OS_READY_NONE || node->ops->ev->ready(node) ||
	    !__atomic_exchange_n(&ev->fd_signalled, 0, __ATOMIC_ACQ_REL))
		return;
	rfm__os_ready_clear(ready);
	rfm__futex_bump_wake(&ev->drain_gen, false);
}

/* Take what is there, without waiting; first let the backend tidy up
 * (look for stalled slots) when we are about to sleep. */
static size_t try_take(struct rfm_node *node, struct rfm_events *ev, struct rfm_event *evs,
		       size_t max, bool before_sleep, bool dispatcher)
{
	const struct rfm_backend_ops *ops = node->ops;
	struct rfm_ev_record raw[TAKE_CHUNK];
	size_t n = 0;

	rfm__lock(&ev->take_lock);
	if (before_sleep)
		ops->ev->take(node, raw, 0);
	/* Drops are reported ahead of the records still queued. */
	uint64_t dropped = ops->ev->dropped(node);
	if (dropped != ev->announced)
		announce_overflow(node, ev, dropped, &evs[n++]);
	while (n < max) {
		unsigned int want = max - n < TAKE_CHUNK ? (unsigned int)(max - n) : TAKE_CHUNK;
		unsigned int got = ops->ev->take(node, raw, want);

		for (unsigned int i = 0; i < got; i++)
			evs[n++] = (struct rfm_event){
				.type = raw[i].type,
				.sender = raw[i].sender,
				.data = raw[i].data,
				.flags = raw[i].sender == (uint32_t)node->id
						 ? RFM_EVENT_F_LOOPBACK
						 : 0,
				.seq = ++ev->seq,
				.sent_ns = raw[i].sent_ns,
			};
		if (got < want)
			break;
	}
	ev->delivered += n;
	/* Under the take lock, so that no record is claimed for a callback
	 * on a receive thread while this one waits for its callback. */
	if (dispatcher && n)
		EV_STORE(ev->disp_holding, 1);
	drain_fd(node, ev);
	rfm__unlock(&ev->take_lock);
	return n;
}

/* Why a wait must stop now, or 0 to go on. */
static int stop_reason(struct rfm_events *ev, bool dispatcher, uint32_t gen0, uint32_t dgen)
{
	if (EV_LOAD(ev->closing))
		return RFM_ECLOSED;
	if (dispatcher)
		return EV_LOAD(ev->dispatch_gen) != dgen ? 1 : 0;
	if (EV_LOAD(ev->ncb))
		return RFM_EBUSY;
	if (EV_LOAD(ev->cancel_gen) != gen0)
		return RFM_ECANCELED;
	return 0;
}

enum spin_result {
	SPIN_READY = 0,	/* a record is ready: take it */
	SPIN_OVER,	/* spun for the handle's spin time: sleep now */
	SPIN_RECHECK,	/* a stop reason or the deadline may be due */
	SPIN_TIDY,	/* spinning for ever: let the backend tidy up, then spin on */
};

struct spin_state {
	struct rfm_node *node;
	bool (*ready)(struct rfm_node *);
	struct rfm_events *ev;
	uint64_t deadline, start;
	int64_t spin_ns;
	bool dispatcher;
	uint32_t gen0, dgen;
};

static bool spin_ready(void *arg)
{
	struct spin_state *s = arg;

	return s->ready(s->node);
}

/* Every 64 turns: cheap loads of our own flags, then the clock. */
static int spin_check(void *arg, unsigned int turn)
{
	struct spin_state *s = arg;

	if (stop_reason(s->ev, s->dispatcher, s->gen0, s->dgen))
		return SPIN_RECHECK;
	uint64_t now = rfm__now_ns();
	if (s->deadline && now >= s->deadline)
		return SPIN_RECHECK;
	if (s->spin_ns > 0 && now - s->start >= (uint64_t)s->spin_ns)
		return SPIN_OVER;
	if (s->spin_ns < 0 && turn % 65536 == 0)
		return SPIN_TIDY;
	return 0;
}

/*
 * Spin until a record is ready or the spin time is over (the library's
 * one spin loop, rfm__spin_until()). The queue's shared cache lines are
 * only read by the backend's ready op.
 */
static enum spin_result spin(struct rfm_node *node, struct rfm_events *ev, uint64_t deadline,
			     bool dispatcher, uint32_t gen0, uint32_t dgen)
{
	struct spin_state s = {
		.node = node,
		.ready = node->ops->ev->ready,
		.ev = ev,
		.deadline = deadline,
		.spin_ns = __atomic_load_n(&node->spin_ns, __ATOMIC_RELAXED),
		.dispatcher = dispatcher,
		.gen0 = gen0,
		.dgen = dgen,
	};

	if (!s.spin_ns)
		return SPIN_OVER;
	s.start = rfm__now_ns();
	return (enum spin_result)rfm__spin_until(spin_ready, spin_check, &s);
}

/* Announce a thread inside a wait (see wslot in event-core.h). */
static int enter_wait(struct rfm_events *ev)
{
	for (int i = 0; i < RFM_EV_WAIT_SLOTS; i++) {
		uint32_t free_ = 0;

		if (!__atomic_load_n(&ev->wslot[i].busy, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&ev->wslot[i].busy, &free_, 1, false,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return i;
	}
	__atomic_fetch_add(&ev->waiters, 1, __ATOMIC_SEQ_CST);
	return -1;
}

/*
 * Once the slot is given back, rfm_close() may free @ev at any moment: so
 * closing is read before, and after it only the futex address is used
 * (a private futex wake does not touch the memory). A wake-up missed by
 * this order costs rfm_close() at most its millisecond re-check.
 */
static void leave_wait(struct rfm_events *ev, int slot)
{
	bool closing = EV_LOAD(ev->closing);

	if (slot >= 0) {
		uint32_t *busy = &ev->wslot[slot].busy;

		__atomic_store_n(busy, 0, __ATOMIC_RELEASE);
		if (closing)
			rfm__futex_wake(busy, false);
	} else {
		uint32_t *waiters = &ev->waiters;

		if (__atomic_sub_fetch(waiters, 1, __ATOMIC_SEQ_CST) == 0 && closing)
			rfm__futex_wake(waiters, false);
	}
}

void rfm__event_wait_for_waiters(struct rfm_events *ev)
{
	uint32_t w;

	for (int i = 0; i < RFM_EV_WAIT_SLOTS; i++)
		while (EV_LOAD(ev->wslot[i].busy))
			rfm__futex_wait(&ev->wslot[i].busy, 1, rfm__now_ns() + 1000000, false);
	while ((w = EV_LOAD(ev->waiters)) != 0)
		rfm__futex_wait(&ev->waiters, w, rfm__now_ns() + 1000000, false);
}

/*
 * The status of a take that stop_reason() ends (@why: 1, or an error):
 * 0 for nothing taken on the dispatcher's way out, else the error with
 * its message; a cancel is used up.
 */
static int stopped(struct rfm_node *node, struct rfm_events *ev, int why)
{
	switch (why) {
	case 1:
		return 0;
	case RFM_ECANCELED:
		__atomic_store_n(&ev->cancel_sticky, 0, __ATOMIC_RELEASE);
		return rfm__error(why, "%s: the wait was cancelled", node->uri);
	case RFM_ECLOSED:
		return rfm__error(why, "%s: the handle is being closed", node->uri);
	case RFM_EBUSY:
		return rfm__error(why, "%s: callbacks take this handle's events", node->uri);
	default:
		return why;
	}
}

/*
 * Why a take that found nothing must not wait: nothing can come (no type
 * enabled), a poll (@timeout_ns 0), or its deadline passed. 0 to wait on.
 */
static int no_wait(struct rfm_node *node, struct rfm_events *ev, bool dispatcher,
		   int64_t timeout_ns, uint64_t deadline)
{
	if (!dispatcher && (!EV_LOAD(ev->attached) || !EV_LOAD(ev->mask)))
		return rfm__error(RFM_ECLOSED,
				  "%s: no event type is enabled on this handle and nothing "
				  "is queued (rfm_event_enable)",
				  node->uri);
	if (timeout_ns == 0)
		return rfm__error(RFM_EAGAIN, "%s: no event queued", node->uri);
	if (deadline && rfm__now_ns() >= deadline)
		return rfm__error(RFM_ETIMEDOUT, "%s: no event within %lld ns", node->uri,
				  (long long)timeout_ns);
	return 0;
}

/* Sleep in the backend until something may have changed, unless it did. */
static void sleep_once(struct rfm_node *node, struct rfm_events *ev, uint64_t deadline,
		       bool dispatcher, uint32_t gen0, uint32_t dgen)
{
	const struct rfm_backend_ev_ops *ops = node->ops->ev;
	uint32_t token = ops->sleep_prepare(node);

	if (!stop_reason(ev, dispatcher, gen0, dgen) && !ops->ready(node) &&
	    (dispatcher || EV_LOAD(ev->mask)))
		ops->sleep(node, token, deadline);
	ops->sleep_finish(node);
}

int rfm__event_take(struct rfm_node *node, struct rfm_event *evs, size_t max,
		    int64_t timeout_ns, bool dispatcher, uint32_t dgen)
{
	const struct rfm_backend_ops *ops = node->ops;
	struct rfm_events *ev = rfm__core(node)->ev;
	uint64_t deadline = timeout_ns > 0 ? rfm__now_ns() + (uint64_t)timeout_ns : 0;
	uint32_t gen0;
	size_t n;
	int ret, slot;

	slot = enter_wait(ev);
	gen0 = EV_LOAD(ev->cancel_gen);
	if (!dispatcher && EV_LOAD(ev->cancel_sticky) &&
	    __atomic_exchange_n(&ev->cancel_sticky, 0, __ATOMIC_ACQ_REL)) {
		ret = rfm__error(RFM_ECANCELED, "%s: the wait was cancelled", node->uri);
		goto out;
	}
	for (;;) {
		ret = stop_reason(ev, dispatcher, gen0, dgen);
		if (ret) {
			ret = stopped(node, ev, ret);
			break;
		}
		/* The take lock only when there is something to take (or a poll). */
		if (EV_LOAD(ev->attached) && (timeout_ns == 0 || ops->ev->ready(node))) {
			n = try_take(node, ev, evs, max, false, dispatcher);
			if (n) {
				ret = (int)n;
				break;
			}
		}
		ret = no_wait(node, ev, dispatcher, timeout_ns, deadline);
		if (ret)
			break;
		enum spin_result spun = spin(node, ev, deadline, dispatcher, gen0, dgen);
		if (spun == SPIN_READY) {
			/* Straight to the record: this is the latency that counts. */
			n = try_take(node, ev, evs, max, false, dispatcher);
			if (n) {
				ret = (int)n;
				break;
			}
			continue;
		}
		if (spun == SPIN_RECHECK)
			continue;
		if (EV_LOAD(ev->attached)) {
			n = try_take(node, ev, evs, max, true, dispatcher);
			if (n) {
				ret = (int)n;
				break;
			}
		}
		if (spun != SPIN_TIDY)
			sleep_once(node, ev, deadline, dispatcher, gen0, dgen);
	}
out:
	leave_wait(ev, slot);
	return ret;
}

int rfm__event_receiver_usable(struct rfm_node *node)
{
	if (!node->ops->ev->attach || !node->ops->ev->take)
		return rfm__error(RFM_ENOTSUP, "%s: the %s: backend has no events", node->uri,
				  node->ops->scheme);
	if (node->forked)
		return rfm__error(RFM_ECLOSED,
				  "%s: this handle was inherited through fork(); its events belong "
				  "to the parent: open a node of this process's own to receive them",
				  node->uri);
	return 0;
}

int rfm__event_enter(struct rfm_node *node, int check, bool receiver, struct rfm_events **evp)
{
	if (!check && receiver)
		check = rfm__event_receiver_usable(node);
	if (!check)
		*evp = rfm__event_lock(node);
	return check;
}

static int check_receiver(rfm_node *node, const char *what, const void *evs, size_t max)
{
	if (!node || !evs)
		return rfm__error(RFM_EINVAL, "%s: NULL argument", what);
	if (!max)
		return rfm__error(RFM_EINVAL, "%s: room for 0 records", what);
	/* It would hold up the very thread that brings the records. */
	if (rfm__core(node)->ev && rfm__event_in_inline_callback(rfm__core(node)->ev))
		return rfm__error(RFM_EBUSY,
				  "%s: %s from a callback that runs on the receive thread "
				  "(callbacks=receive) would stop the events it waits for",
				  node->uri, what);
	return rfm__event_receiver_usable(node);
}

RFM_API int rfm_event_wait(rfm_node *node, struct rfm_event *ev, int64_t timeout_ns)
{
	int ret = check_receiver(node, "rfm_event_wait", ev, 1);

	if (ret)
		return ret;
	ret = rfm__event_take(node, ev, 1, timeout_ns, false, 0);
	return ret > 0 ? 0 : ret;
}

RFM_API int rfm_event_fetch(rfm_node *node, struct rfm_event *evs, size_t max,
			    int64_t timeout_ns)
{
	int ret = check_receiver(node, "rfm_event_fetch", evs, max);

	if (ret)
		return ret;
	/* The count is returned as an int. */
	if (max > INT32_MAX)
		max = INT32_MAX;
	return rfm__event_take(node, evs, max, timeout_ns, false, 0);
}

int rfm__event_sleep(struct rfm_node *node, int64_t timeout_ns)
{
	struct rfm_event ev;

	return rfm_event_wait(node, &ev, timeout_ns);
}

void rfm__backoff_sleep(unsigned int step, uint64_t deadline_ns)
{
	uint64_t ns = step < 7 ? 10000u << step : 1000000u;

	if (deadline_ns) {
		uint64_t now = rfm__now_ns();
		if (now >= deadline_ns)
			return;
		if (deadline_ns - now < ns)
			ns = deadline_ns - now;
	}
	rfm__os_sleep_ns(ns);
}

int rfm__event_poll_stop(struct rfm_node *node)
{
	struct rfm_events *ev = rfm__core(node)->ev;

	if (!ev)
		return 0;
	if (EV_LOAD(ev->closing))
		return rfm__error(RFM_ECLOSED, "%s: the handle is being closed", node->uri);
	if (EV_LOAD(ev->cancel_sticky) &&
	    __atomic_exchange_n(&ev->cancel_sticky, 0, __ATOMIC_ACQ_REL))
		return rfm__error(RFM_ECANCELED, "%s: the wait was cancelled", node->uri);
	return 0;
}

RFM_API int rfm_event_cancel(rfm_node *node)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_event_cancel: node is NULL");
	struct rfm_events *ev = rfm__core(node)->ev;
	/* Sticky first: a wait starting now sees it or the new generation. */
	__atomic_store_n(&ev->cancel_sticky, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&ev->cancel_gen, 1, __ATOMIC_SEQ_CST);
	rfm__event_wake_all(node);
	return 0;
}
