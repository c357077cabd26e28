/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g event callbacks, run on librfm's dispatcher thread.
 *
 * The first RFM2gEnableEventCallback() of a handle routes its node's
 * records to intake() (rfm__event_route(), librfm's private entry): from
 * then on, until the handle is closed, librfm's dispatcher thread takes
 * them, sorts them into the RFM2g queues and calls the callback of each
 * record's type, one call at a time, on that one thread; waits for types
 * without a callback sleep until it has queued a record for them. Records
 * queued before the callback was installed go to it first, with Timeout 0
 * (the vendor library's probe); routing again makes the dispatcher call
 * intake() with no record, which delivers them.
 *
 * Kept from the RFM2g documentation: one callback per event type, which a
 * cancel ends; a callback may be installed before its event is enabled.
 * Deliberately different (docs/rfm2g-migration.md): the callbacks of every
 * type share one thread, instead of one thread each; no call runs after
 * RFM2gDisableEventCallback() returns (unless called from that callback),
 * and RFM2gClose() may be called from a callback.
 */
#include <string.h>

#include "librfm2g/compat.h"

/* Call @fn for the record @r of @type (lock held, released meanwhile). */
static void call_locked(struct rfm2g_compat *h, unsigned int type, struct rfm2g_record r,
			RFM2G_UINT32 timeout)
{
	RFM2G_EVENT_FUNCPTR fn = h->ev[type].cb;
	RFM2GEVENTINFO info;

	memset(&info, 0, sizeof(info));
	info.Event = (RFM2GEVENTTYPE) type;
	info.NodeId = r.node;
	info.ExtendedInfo = r.data;
	info.Timeout = timeout;
	rfm2g__views_refresh_locked(h);	/* LISR and the sender registers moved on */
	h->cb_running = type + 1;
	h->pub.callbackInfo[type].thread = pthread_self();
	pthread_mutex_unlock(&h->lock);
	rfm2g__set_in_callback(h);
	fn(&h->pub, &info);
	rfm2g__set_in_callback(NULL);
	pthread_mutex_lock(&h->lock);
	h->cb_running = 0;
	pthread_cond_broadcast(&h->cond);
}

/*
 * Hand the queued records of types with a callback to it (lock held).
 * False when a callback closed the handle: it is freed, the lock with it.
 */
static bool run_callbacks_locked(struct rfm2g_compat *h)
{
	for (unsigned int t = 0; t < RFM2G_COMPAT_NEVENTS; t++) {
		struct rfm2g_evq *q = &h->ev[t];

		while (q->cb_set && q->count && !h->closing) {
			RFM2G_UINT32 timeout = q->backlog ? 0 : RFM2G_INFINITE_TIMEOUT;

			call_locked(h, t, rfm2g__take_locked(q), timeout);
		}
		if (h->free_on_exit) {
			pthread_mutex_unlock(&h->lock);
			rfm2g__destroy(h);
			return false;
		}
	}
	return true;
}

/* librfm's dispatcher: a record of the handle's node, or (NULL) a turn to deliver. */
static void intake(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct rfm2g_compat *h = arg;

	(void) node;
	pthread_mutex_lock(&h->lock);
	if (ev)
		rfm2g__sort_locked(h, ev);
	if (run_callbacks_locked(h))
		pthread_mutex_unlock(&h->lock);
}

/* librfm's answer to routing, as an RFM2g status. */
static RFM2G_STATUS route_status(int r)
{
	if (r == 0)
		return RFM2G_SUCCESS;
	if (r == RFM_ENOTSUP)
		return RFM2G_NOT_SUPPORTED;
	return r == RFM_ENOMEM ? RFM2G_LOW_MEMORY : RFM2G_OS_ERROR;
}

STDRFM2GCALL RFM2gEnableEventCallback(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType,
				      RFM2G_EVENT_FUNCPTR pEventFunc)
{
	struct rfm2g_evq *q;
	bool was_routed;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!pEventFunc) {
		rfm2g__put(h);
		return RFM2G_BAD_PARAMETER_3;
	}
	q = &h->ev[EventType];
	pthread_mutex_lock(&h->lock);
	if (q->cb_set || q->waiting) {
		pthread_mutex_unlock(&h->lock);
		rfm2g__put(h);
		return RFM2G_EVENT_IN_USE;
	}
	q->cb = pEventFunc;
	q->cb_set = true;
	q->backlog = q->count;
	h->pub.callbackInfo[EventType].Callback = (void (*)(void *, RFM2GEVENTINFO *)) pEventFunc;
	h->pub.callbackInfo[EventType].CallbackStat = RFM2G_SUCCESS;
	/* From now on only the dispatcher takes: a wait taking now stops first. */
	was_routed = h->routed;
	h->routed = true;
	rfm2g__stop_taking_locked(h);
	pthread_mutex_unlock(&h->lock);
	st = route_status(rfm__event_route(h->node, intake, h));
	if (st != RFM2G_SUCCESS) {
		pthread_mutex_lock(&h->lock);
		rfm2g__forget_callback_locked(h, EventType);
		h->routed = was_routed;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put_wake(h);	/* waits now leave the taking to the dispatcher */
	return st;
}

STDRFM2GCALL RFM2gDisableEventCallback(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	pthread_mutex_lock(&h->lock);
	if (!h->ev[EventType].cb_set) {
		st = RFM2G_NOT_ENABLED;	/* the Linux library's answer */
	} else {
		rfm2g__forget_callback_locked(h, EventType);
		/*
		 * Unlike the vendor library, no call of the function runs after
		 * this returns (unless called from inside a callback, or that
		 * callback is closing the handle).
		 */
		if (!rfm2g__in_callback_of(h))
			while (h->cb_running == (unsigned int) EventType + 1 && !h->free_on_exit)
				pthread_cond_wait(&h->cond, &h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}
