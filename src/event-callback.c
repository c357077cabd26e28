/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Callbacks per event type, run on one dispatcher thread per handle.
 *
 * The dispatcher takes one record at a time and calls the type's function
 * without holding any lock, so a callback may call back into the library:
 * (un)register callbacks, send, even close its own handle (the close is
 * then finished by the dispatcher once the callback returns). Unregistering
 * from another thread waits until a running call of that callback is over.
 * While no callback is registered the dispatcher parks and the handle's
 * records are left for rfm_event_wait()/fetch(). librfm2g routes the
 * records no callback takes to one function of its own (rfm__event_route).
 *
 * A backend that receives on threads of its own may run a callback there
 * instead (dds: callbacks=receive), one wake-up less per event: it claims
 * the record as it receives it, in order, and runs the callback once it
 * holds no lock. A claim succeeds only when nothing is queued and no
 * callback runs or waits to run, so the callbacks of a handle still run one
 * at a time and in the records' order; otherwise the record is queued for
 * the dispatcher as always. A close from such a callback is finished by
 * the dispatcher (the receive thread must return for the backend to stop).
 */
#include "config.h"

#include <string.h>

#include "event-core.h"
#include "futex.h"
#include "private.h"
#include "rt-internal.h"

/* The dispatcher is done with the record it took (lock held). */
static void dispatch_done(struct rfm_events *ev)
{
	EV_STORE(ev->disp_holding, 0);
	pthread_cond_broadcast(&ev->cb_cond);
}

/*
 * Take one record for the dispatcher, the event lock held (dropped while
 * it waits in the backend): true with *@rec filled, false to look again.
 */
static bool dispatcher_take(struct rfm_node *node, struct rfm_events *ev, struct rfm_event *rec)
{
	uint32_t dgen = EV_LOAD(ev->dispatch_gen);
	int n;

	ev->in_take = true;
	ev->take_dgen = dgen;
	pthread_mutex_unlock(&ev->lock);

	n = rfm__event_take(node, rec, 1, -1, true, dgen);

	pthread_mutex_lock(&ev->lock);
	ev->in_take = false;
	pthread_cond_broadcast(&ev->cb_cond);
	return n > 0;
}

/*
 * Run the callback of @recp's type, or the route's (@recp NULL: the
 * route's turn), with the event lock dropped; a record nobody handles is
 * counted. Returns with the lock held and the dispatch done.
 */
static void dispatcher_run(struct rfm_node *node, struct rfm_events *ev,
			   const struct rfm_event *recp)
{
	struct rfm_event_cb cb = recp ? ev->cb[recp->type] : (struct rfm_event_cb){ NULL, NULL };

	ev->in_route = !cb.fn;
	if (!cb.fn)
		cb = ev->route;
	if (!cb.fn) {
		if (recp)
			__atomic_fetch_add(&ev->unhandled, 1, __ATOMIC_RELAXED);
		dispatch_done(ev);
		return;
	}
	ev->in_callback = true;
	ev->cb_type = recp ? recp->type : RFM_EVENT_TYPE_MAX + 1;
	pthread_mutex_unlock(&ev->lock);

	cb.fn(node, recp, cb.arg);

	pthread_mutex_lock(&ev->lock);
	ev->in_callback = false;
	dispatch_done(ev);
}

static void *dispatcher_main(void *arg)
{
	struct rfm_node *node = arg;
	struct rfm_events *ev = rfm__core(node)->ev;
	struct rfm_event rec;
	bool deferred;

	pthread_mutex_lock(&ev->lock);
	for (;;) {
		while (!EV_LOAD(ev->closing) && !ev->route_kick &&
		       (!EV_LOAD(ev->ncb) || !EV_LOAD(ev->attached)))
			pthread_cond_wait(&ev->cb_cond, &ev->lock);
		if (EV_LOAD(ev->closing))
			break;

		const struct rfm_event *recp = NULL;
		if (!ev->route_kick) {
			if (!dispatcher_take(node, ev, &rec))
				continue;
			recp = &rec;
		} else {
			ev->route_kick = false;	/* the route has its turn now */
		}
		/* A callback on a receive thread began before: it goes first. */
		while (ev->inline_running && !EV_LOAD(ev->closing))
			pthread_cond_wait(&ev->cb_cond, &ev->lock);
		if (EV_LOAD(ev->closing)) {
			dispatch_done(ev);
			break;
		}
		dispatcher_run(node, ev, recp);
		if (ev->close_deferred)
			break;
	}
	deferred = ev->close_deferred;
	/* Closed from a callback on a receive thread: it returns first. */
	while (deferred && ev->inline_running)
		pthread_cond_wait(&ev->cb_cond, &ev->lock);
	pthread_mutex_unlock(&ev->lock);
	if (deferred) {
		/* rfm_close() was called from a callback: nobody will join us. */
		pthread_detach(pthread_self());
		rfm__event_finish_close(node);
		ev->free_node(node);
	}
	return NULL;
}

/* Start the dispatcher if it is not running yet (ev->lock held). */
static int start_dispatcher(struct rfm_node *node, struct rfm_events *ev)
{
	int ret = 0;

	if (!ev->dispatcher_started) {
		ret = rfm__rt_thread_create(node, &ev->dispatcher, dispatcher_main, node,
					    "event dispatcher");
		ev->dispatcher_started = ret == 0;
	}
	return ret;
}

/* The arguments of (un)registering: a node and a type that has callbacks. */
static int check_type(const char *what, const rfm_node *node, unsigned int type)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "%s: NULL argument", what);
	if (type > RFM_EVENT_INTR4 && type != RFM_EVENT_OVERFLOW && type != RFM_EVENT_NODE_UP &&
	    type != RFM_EVENT_NODE_DOWN && type != RFM_EVENT_LINK)
		return rfm__error(RFM_EINVAL,
				  "%s: event type %u (%s) has no callbacks: use reset, intr1..intr4 "
				  "overflow, node_up, node_down or link",
				  what, type, rfm_event_type_name(type));
	return 0;
}

RFM_API int rfm_event_callback_register(rfm_node *node, unsigned int type,
					rfm_event_callback fn, void *arg)
{
	struct rfm_events *ev;
	int ret = rfm__event_enter(
		node, check_type("rfm_event_callback_register", fn ? node : NULL, type), true, &ev);

	if (ret)
		return ret;
	if (ev->cb[type].fn) {
		ret = rfm__error(RFM_EBUSY, "%s: a callback for %s is already registered",
				 node->uri, rfm_event_type_name(type));
		goto out;
	}
	ret = start_dispatcher(node, ev);
	if (ret)
		goto out;
	ev->cb[type] = (struct rfm_event_cb){ fn, arg };
	__atomic_fetch_add(&ev->ncb, 1, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&ev->cb_cond);
out:
	pthread_mutex_unlock(&ev->lock);
	/* Waits in other threads now return RFM_EBUSY. */
	if (!ret)
		rfm__event_wake_all(node);
	return ret;
}

RFM_API int rfm_event_callback_unregister(rfm_node *node, unsigned int type)
{
	struct rfm_events *ev;
	int ret = rfm__event_enter(node, check_type("rfm_event_callback_unregister", node, type),
				   false, &ev);

	if (ret)
		return ret;
	if (!ev->cb[type].fn) {
		pthread_mutex_unlock(&ev->lock);
		return rfm__error(RFM_ENOTFOUND, "%s: no callback for %s is registered", node->uri,
				  rfm_event_type_name(type));
	}
	ev->cb[type] = (struct rfm_event_cb){ NULL, NULL };
	__atomic_fetch_sub(&ev->ncb, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&ev->dispatch_gen, 1, __ATOMIC_SEQ_CST);
	/* From another thread: return only once the callback is not running. */
	if (!rfm__event_on_callback_thread(ev))
		while ((ev->in_callback && ev->cb_type == type) ||
		       (ev->inline_running && ev->inline_type == type))
			pthread_cond_wait(&ev->cb_cond, &ev->lock);
	pthread_mutex_unlock(&ev->lock);
	/* Let the dispatcher notice (it parks when none is left). */
	rfm__event_wake_all(node);
	/*
	 * And return only once a take the dispatcher began before this call has
	 * ended: a record sent after we return must reach rfm_event_wait() (or
	 * the callbacks still registered), never a dispatcher that no longer
	 * has a callback for it.
	 */
	if (!rfm__event_is_dispatcher(ev)) {
		pthread_mutex_lock(&ev->lock);
		while (ev->in_take && ev->take_dgen != EV_LOAD(ev->dispatch_gen))
			pthread_cond_wait(&ev->cb_cond, &ev->lock);
		pthread_mutex_unlock(&ev->lock);
	}
	return 0;
}

RFM_PRIVATE_API int rfm__event_route(rfm_node *node, rfm_event_callback fn, void *arg)
{
	struct rfm_events *ev;
	int ret;

	if (!node)
		return rfm__error(RFM_EINVAL, "rfm__event_route: NULL node");
	ret = rfm__event_receiver_usable(node);
	if (ret)
		return ret;
	ev = rfm__event_lock(node);
	ret = fn ? start_dispatcher(node, ev) : 0;
	if (!ret) {
		if (!ev->route.fn != !fn) {
			if (fn)
				__atomic_fetch_add(&ev->ncb, 1, __ATOMIC_SEQ_CST);
			else
				__atomic_fetch_sub(&ev->ncb, 1, __ATOMIC_SEQ_CST);
		}
		ev->route = (struct rfm_event_cb){ fn, arg };
		ev->route_kick = fn != NULL;
		__atomic_fetch_add(&ev->dispatch_gen, 1, __ATOMIC_SEQ_CST);
		pthread_cond_broadcast(&ev->cb_cond);
		/* Removed from another thread: return once no call of it runs. */
		if (!fn && !rfm__event_is_dispatcher(ev))
			while (ev->in_callback && ev->in_route)
				pthread_cond_wait(&ev->cb_cond, &ev->lock);
	}
	pthread_mutex_unlock(&ev->lock);
	if (!ret)
		rfm__event_wake_all(node);	/* waits return RFM_EBUSY; the dispatcher looks */
	return ret;
}

void rfm__event_stop_threads(struct rfm_node *node)
{
	struct rfm_events *ev = rfm__core(node)->ev;

	/* closing is set and everybody woken: the dispatcher leaves its loop. */
	if (ev->dispatcher_started)
		pthread_join(ev->dispatcher, NULL);
}

void rfm__event_finish_close(struct rfm_node *node)
{
	struct rfm_events *ev = rfm__core(node)->ev;

	if (ev->watcher_started)
		pthread_join(ev->watcher, NULL);
	/* Waits woken by the close leave before the handle is freed. */
	rfm__event_wait_for_waiters(ev);
	if (ev->ready != RFM_OS_READY_NONE)
		rfm__os_ready_close(ev->ready);
	EV_STORE(ev->ready, RFM_OS_READY_NONE);
}

bool rfm__event_claim_inline(struct rfm_node *node, const struct rfm_ev_record *rec)
{
	struct rfm_events *ev = rfm__core(node)->ev;
	const struct rfm_backend_ev_ops *ops = node->ops->ev;
	bool claimed = false;

	/* Cheap first: most records of a handle without callbacks end here. */
	if (rec->type > RFM_EVENT_TYPE_MAX || !EV_LOAD(ev->ncb) ||
	    !(EV_LOAD(ev->mask) & RFM_EVENT_BIT(rec->type)))
		return false;
	pthread_mutex_lock(&ev->lock);
	struct rfm_event_cb cb = ev->cb[rec->type];
	if (cb.fn && EV_LOAD(ev->attached) && !EV_LOAD(ev->closing) && !ev->in_callback &&
	    !ev->inline_running) {
		rfm__lock(&ev->take_lock);
		/* Nothing before it, nor a drop to announce first. */
		if (!EV_LOAD(ev->disp_holding) && !ops->queued(node) &&
		    ops->dropped(node) == ev->announced) {
			ev->inline_rec = (struct rfm_event){
				.type = rec->type,
				.sender = rec->sender,
				.data = rec->data,
				.flags = rec->sender == (uint32_t)node->id ? RFM_EVENT_F_LOOPBACK : 0,
				.seq = ++ev->seq,
				.sent_ns = rec->sent_ns,
			};
			ev->delivered++;
			claimed = true;
		}
		rfm__unlock(&ev->take_lock);
	}
	if (claimed) {
		ev->inline_running = true;
		ev->inline_type = rec->type;
		ev->inline_cb = cb;
	}
	pthread_mutex_unlock(&ev->lock);
	return claimed;
}

void rfm__event_run_inline(struct rfm_node *node)
{
	struct rfm_events *ev = rfm__core(node)->ev;
	const struct rfm_events *outer;

	pthread_mutex_lock(&ev->lock);
	struct rfm_event_cb cb = ev->inline_cb;
	struct rfm_event rec = ev->inline_rec;
	/* Closed since the claim: dropped, as the queued records are. */
	bool run = !EV_LOAD(ev->closing);
	pthread_mutex_unlock(&ev->lock);

	if (run) {
		outer = rfm__event_set_inline(ev);
		cb.fn(node, &rec, cb.arg);
		rfm__event_set_inline(outer);
	}

	pthread_mutex_lock(&ev->lock);
	ev->inline_running = false;
	pthread_cond_broadcast(&ev->cb_cond);
	/* The last touch: after it a close (deferred, or waiting in
	 * rfm__event_close()) may free the handle. */
	pthread_mutex_unlock(&ev->lock);
}
