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
 * records are left for rfm_event_wait()/fetch().
 */
#include "config.h"

#include <string.h>

#include "event-core.h"
#include "rt-internal.h"

bool rfm__event_is_dispatcher(const struct rfm_events *ev)
{
	return ev->dispatcher_started && pthread_equal(ev->dispatcher, pthread_self());
}

static void *dispatcher_main(void *arg)
{
	struct rfm_node *node = arg;
	struct rfm_events *ev = node->ev;
	bool deferred;

	pthread_mutex_lock(&ev->lock);
	for (;;) {
		while (!EV_LOAD(ev->closing) && (!EV_LOAD(ev->ncb) || !EV_LOAD(ev->attached)))
			pthread_cond_wait(&ev->cb_cond, &ev->lock);
		if (EV_LOAD(ev->closing))
			break;
		uint32_t dgen = EV_LOAD(ev->dispatch_gen);
		ev->in_take = true;
		ev->take_dgen = dgen;
		pthread_mutex_unlock(&ev->lock);

		struct rfm_event rec;
		int n = rfm__event_take(node, &rec, 1, -1, true, dgen);

		pthread_mutex_lock(&ev->lock);
		ev->in_take = false;
		pthread_cond_broadcast(&ev->cb_cond);
		if (n <= 0)
			continue;
		struct rfm_event_cb cb = ev->cb[rec.type];
		if (!cb.fn) {
			__atomic_fetch_add(&ev->unhandled, 1, __ATOMIC_RELAXED);
			continue;
		}
		ev->in_callback = true;
		ev->cb_type = rec.type;
		pthread_mutex_unlock(&ev->lock);

		cb.fn(node, &rec, cb.arg);

		pthread_mutex_lock(&ev->lock);
		ev->in_callback = false;
		pthread_cond_broadcast(&ev->cb_cond);
		if (ev->close_deferred)
			break;
	}
	deferred = ev->close_deferred;
	pthread_mutex_unlock(&ev->lock);
	if (deferred) {
		/* rfm_close() was called from a callback: nobody will join us. */
		pthread_detach(pthread_self());
		rfm__event_finish_close(node);
		rfm__node_free(node);
	}
	return NULL;
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
	if (!ev->dispatcher_started) {
		ret = rfm__rt_thread_create(node, &ev->dispatcher, dispatcher_main, node,
					    "event dispatcher");
		if (ret)
			goto out;
		ev->dispatcher_started = true;
	}
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
	if (!rfm__event_is_dispatcher(ev))
		while (ev->in_callback && ev->cb_type == type)
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

void rfm__event_stop_threads(struct rfm_node *node)
{
	struct rfm_events *ev = node->ev;

	/* closing is set and everybody woken: the dispatcher leaves its loop. */
	if (ev->dispatcher_started)
		pthread_join(ev->dispatcher, NULL);
}
