/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g interrupt events over librfm events.
 *
 * Kept from the RFM2g documentation: an event is received only while
 * enabled; one waiter per event type (a second gets RFM2G_EVENT_IN_USE);
 * one callback per event type, on its own thread; BAD_DATA and SYNC_LOSS
 * disable themselves each time they fire; counts go on while a queue
 * overflows; RFM2G_NO_WAIT polls and RFM2G_INFINITE_TIMEOUT waits forever.
 *
 * Deliberately different (docs/rfm2g-migration.md): event state belongs to
 * the handle, not the whole board; each queue holds
 * RFM2G_COMPAT_QUEUE_DEPTH records instead of 1 (an overflow drops the
 * newest record and sets Overflowed); a wait on an event that is neither
 * enabled nor has records queued returns RFM2G_NOT_ENABLED at once instead
 * of blocking; RFM2gClose() stops callback threads and wakes waiters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat.h"

static bool valid_event(RFM2GEVENTTYPE e)
{
	return (unsigned int) e < RFM2G_COMPAT_NEVENTS;
}

/*
 * The handle, then the event type: RFM2G_BAD_PARAMETER_2 (and no
 * reference kept) for a type that is not one.
 */
static RFM2G_STATUS get_for_event(RFM2GHANDLE rh, RFM2GEVENTTYPE type, struct rfm2g_compat **h)
{
	RFM2G_STATUS st = rfm2g__get(rh, h);

	if (st == RFM2G_SUCCESS && !valid_event(type)) {
		rfm2g__put(*h);
		*h = NULL;
		st = RFM2G_BAD_PARAMETER_2;
	}
	return st;
}

static bool network_event(unsigned int e)
{
	return e <= RFM2GEVENT_INTR4;
}

void rfm2g__deliver_locked(struct rfm2g_compat *h, unsigned int type, uint16_t node,
			   uint32_t data)
{
	struct rfm2g_evq *q;

	if (type >= RFM2G_COMPAT_NEVENTS)
		return;
	q = &h->ev[type];
	if (!q->enabled)
		return;
	q->counter++;
	if (q->count == RFM2G_COMPAT_QUEUE_DEPTH) {
		q->overflowed = true;
	} else {
		q->ring[(q->head + q->count) % RFM2G_COMPAT_QUEUE_DEPTH] =
			(struct rfm2g_record){ .data = data, .node = node };
		q->count++;
		if (q->count > q->peak)
			q->peak = q->count;
	}
	/* Anti-flood, as on the cards: these stay off until enabled again. */
	if (type == RFM2GEVENT_BAD_DATA || type == RFM2GEVENT_SYNC_LOSS)
		q->enabled = false;
	rfm2g__views_refresh_locked(h);
	pthread_cond_broadcast(&h->cond);
}

static void forget_callback_locked(struct rfm2g_compat *h, unsigned int type);

static struct rfm2g_record take_locked(struct rfm2g_evq *q)
{
	struct rfm2g_record r = q->ring[q->head];

	q->head = (q->head + 1) % RFM2G_COMPAT_QUEUE_DEPTH;
	q->count--;
	return r;
}

/* librfm's dispatcher thread: sort records into the RFM2g queues. */
static void intake(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct rfm2g_compat *h = arg;

	(void) node;
	pthread_mutex_lock(&h->lock);
	if (ev->type == RFM_EVENT_OVERFLOW) {
		/* librfm's own queue dropped records: of unknown types. */
		for (unsigned int i = 0; i <= RFM2GEVENT_INTR4; i++)
			if (h->ev[i].enabled)
				h->ev[i].overflowed = true;
	} else if (ev->type == RFM2GEVENT_RESET) {
		/* The vendor driver reports a reset request with node id 0, no data. */
		rfm2g__deliver_locked(h, ev->type, 0, 0);
	} else {
		rfm2g__deliver_locked(h, ev->type, (uint16_t) ev->sender, ev->data);
	}
	pthread_mutex_unlock(&h->lock);
}

static RFM2G_STATUS start_intake(struct rfm2g_compat *h)
{
	if (h->intake)
		return RFM2G_SUCCESS;
	for (unsigned int t = 0; t <= RFM2GEVENT_INTR4; t++)
		if (rfm_event_callback_register(h->node, t, intake, h) != 0)
			return RFM2G_DRIVER_ERROR;
	if (rfm_event_callback_register(h->node, RFM_EVENT_OVERFLOW, intake, h) != 0)
		return RFM2G_DRIVER_ERROR;
	h->intake = true;
	return RFM2G_SUCCESS;
}

/*
 * The RFM2g queue is opened before librfm's mask: librfm queues records
 * from the moment rfm_event_enable() sets the mask, and the intake drops
 * records of types not enabled here. Enabled the other way round, a record
 * sent while RFM2gEnableEvent() ran could pass librfm (counted there as
 * delivered) and be dropped here, counted nowhere.
 */
STDRFM2GCALL RFM2gEnableEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	bool was_enabled;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	pthread_mutex_lock(&h->lock);
	was_enabled = h->ev[EventType].enabled;
	h->ev[EventType].enabled = true;
	if (network_event(EventType))
		st = start_intake(h);
	pthread_mutex_unlock(&h->lock);
	if (st == RFM2G_SUCCESS && network_event(EventType)) {
		int r = rfm_event_enable(h->node, RFM_EVENT_BIT(EventType));

		if (r == RFM_ENOTSUP)
			st = RFM2G_NOT_SUPPORTED;
		else if (r != 0 && r != RFM_EBUSY)	/* enabling twice is fine */
			st = RFM2G_DRIVER_ERROR;
	}
	if (st != RFM2G_SUCCESS) {
		pthread_mutex_lock(&h->lock);
		h->ev[EventType].enabled = was_enabled;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gDisableEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!valid_event(EventType)) {
		st = RFM2G_BAD_PARAMETER_2;
	} else {
		if (network_event(EventType) &&
		    rfm_event_disable(h->node, RFM_EVENT_BIT(EventType)) != 0)
			st = RFM2G_DRIVER_ERROR;
		pthread_mutex_lock(&h->lock);
		h->ev[EventType].enabled = false;	/* waiters are not woken */
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gSendEvent(RFM2GHANDLE rh, RFM2G_NODE ToNode, RFM2GEVENTTYPE EventType,
			    RFM2G_UINT32 ExtendedData)
{
	int r;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if ((unsigned int) EventType > RFM2GEVENT_INTR4)
		st = RFM2G_BAD_PARAMETER_3;
	else if (ToNode == h->pub.Config.NodeId)
		st = RFM2G_NODE_ID_SELF;
	else if (ToNode > RFM2G_NODE_MAX && ToNode != RFM2G_NODE_ALL)
		st = RFM2G_BAD_PARAMETER_2;
	if (st == RFM2G_SUCCESS) {
		r = rfm_event_send(h->node, ToNode == RFM2G_NODE_ALL ? RFM_NODE_ALL : ToNode,
				   EventType, ExtendedData);
		/*
		 * A card puts the interrupt on the fiber whether or not the
		 * target node exists: a missing target is not the sender's error.
		 */
		if (r < 0 && r != RFM_ENODE)
			st = RFM2G_DRIVER_ERROR;
	}
	rfm2g__put(h);
	return st;
}

/* Absolute CLOCK_MONOTONIC deadline @ms from now. */
static struct timespec deadline(uint32_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long) (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

STDRFM2GCALL RFM2gWaitForEvent(RFM2GHANDLE rh, RFM2GEVENTINFO *EventInfo)
{
	struct rfm2g_evq *q;
	struct timespec until;
	RFM2GEVENTTYPE type;
	uint32_t timeout;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!EventInfo || !valid_event(EventInfo->Event)) {
		rfm2g__put(h);
		return RFM2G_BAD_PARAMETER_2;
	}
	type = EventInfo->Event;
	timeout = EventInfo->Timeout;
	q = &h->ev[type];
	pthread_mutex_lock(&h->lock);
	if (q->waiting || q->cb_set) {
		st = RFM2G_EVENT_IN_USE;
		goto out;
	}
	if (!q->count && !q->enabled) {
		st = RFM2G_NOT_ENABLED;
		goto out;
	}
	if (!q->count && timeout == RFM2G_NO_WAIT) {
		st = RFM2G_TIMED_OUT;
		goto out;
	}
	until = deadline(timeout);
	q->waiting = true;
	q->cancel = false;
	while (!q->count && !q->cancel && !h->closing) {
		if (timeout == RFM2G_INFINITE_TIMEOUT) {
			pthread_cond_wait(&h->cond, &h->lock);
		} else if (pthread_cond_timedwait(&h->cond, &h->lock, &until) == ETIMEDOUT) {
			if (!q->count)
				st = RFM2G_TIMED_OUT;
			break;
		}
	}
	q->waiting = false;
	if (q->count) {
		struct rfm2g_record r = take_locked(q);

		EventInfo->NodeId = r.node;
		EventInfo->ExtendedInfo = r.data;
		st = RFM2G_SUCCESS;
	} else if (q->cancel || h->closing) {
		st = RFM2G_WAIT_EVENT_CANCELED;
	}
	q->cancel = false;
out:
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gCancelWaitForEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	struct rfm2g_evq *q;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	q = &h->ev[EventType];
	pthread_mutex_lock(&h->lock);
	if (q->cb_set) {
		/* Ends the callback thread too, as with the vendor driver. */
		forget_callback_locked(h, EventType);
	} else if (q->waiting) {
		q->cancel = true;
		pthread_cond_broadcast(&h->cond);
	} else {
		st = RFM2G_EVENT_NOT_IN_USE;
	}
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}

static void clear_queue(struct rfm2g_evq *q)
{
	q->head = q->count = q->peak = 0;
	q->overflowed = false;
}

/* Apply @fn to the queue of @type, or to every queue for RFM2GEVENT_LAST. */
static RFM2G_STATUS for_queues(RFM2GHANDLE rh, RFM2GEVENTTYPE type,
			       void (*fn)(struct rfm2g_evq *q))
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if ((unsigned int) type > RFM2GEVENT_LAST) {
		st = RFM2G_BAD_PARAMETER_2;
	} else {
		pthread_mutex_lock(&h->lock);
		for (unsigned int i = 0; i < RFM2G_COMPAT_NEVENTS; i++)
			if (type == RFM2GEVENT_LAST || i == (unsigned int) type)
				fn(&h->ev[i]);
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gClearEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	return for_queues(rh, EventType, clear_queue);
}

STDRFM2GCALL RFM2gFlushEventQueue(RFM2GHANDLE rh, RFM2GEVENTTYPE Event)
{
	return RFM2gClearEvent(rh, Event);
}

static void clear_count(struct rfm2g_evq *q)
{
	q->counter = 0;
	q->peak = q->count;
}

STDRFM2GCALL RFM2gClearEventCount(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	return for_queues(rh, EventType, clear_count);
}

STDRFM2GCALL RFM2gClearEventStats(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	return RFM2gClearEventCount(rh, EventType);
}

STDRFM2GCALL RFM2gGetEventCount(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType, RFM2G_UINT32 *Count)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!valid_event(EventType)) {
		st = RFM2G_BAD_PARAMETER_2;
	} else if (!Count) {
		st = RFM2G_BAD_PARAMETER_3;
	} else {
		pthread_mutex_lock(&h->lock);
		*Count = h->ev[EventType].counter;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gGetEventStats(RFM2GHANDLE rh, RFM2GQINFO *Qinfo)
{
	struct rfm2g_evq *q;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!Qinfo || Qinfo->Event >= RFM2G_COMPAT_NEVENTS) {
		rfm2g__put(h);
		return RFM2G_BAD_PARAMETER_2;
	}
	q = &h->ev[Qinfo->Event];
	pthread_mutex_lock(&h->lock);
	Qinfo->Overflowed = q->overflowed ? 8 : 0;	/* the driver's flag value */
	Qinfo->QueuePeak = (RFM2G_UINT8) (q->peak > 255 ? 255 : q->peak);
	Qinfo->reserved = 0;
	Qinfo->EventCount = q->counter;
	Qinfo->EventsQueued = q->count;
	Qinfo->QueueSize = RFM2G_COMPAT_QUEUE_DEPTH;
	Qinfo->MaxQueueSize = RFM2G_COMPAT_QUEUE_DEPTH;
	Qinfo->EventTimeout = 0;
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}

/* ---- callbacks: one detached thread per (handle, event type) ---- */

/* The handle whose callback this thread is running, if any. */
static __thread struct rfm2g_compat *in_callback;

bool rfm2g__in_callback_of(const struct rfm2g_compat *h)
{
	return in_callback == h;
}

struct cb_start {
	struct rfm2g_compat *h;
	unsigned int type;
	unsigned int gen;
};

static bool cb_current(const struct rfm2g_compat *h, const struct rfm2g_evq *q, unsigned int gen)
{
	return q->cb_set && q->cb_gen == gen && !h->closing;
}

static void *callback_thread(void *arg)
{
	struct cb_start *s = arg;
	struct rfm2g_compat *h = s->h;
	unsigned int type = s->type, gen = s->gen;
	struct rfm2g_evq *q = &h->ev[type];
	bool first = true, destroy;
	RFM2GEVENTINFO info;

	free(s);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		bool queued_at_start = first && q->count;
		struct rfm2g_record r;
		RFM2G_EVENT_FUNCPTR fn;

		first = false;
		q->waiting = true;
		while (!q->count && cb_current(h, q, gen))
			pthread_cond_wait(&h->cond, &h->lock);
		q->waiting = false;
		if (!cb_current(h, q, gen))
			break;
		r = take_locked(q);
		rfm2g__views_refresh_locked(h);	/* LISR and the sender registers moved on */
		fn = q->cb;
		memset(&info, 0, sizeof(info));
		info.Event = (RFM2GEVENTTYPE) type;
		info.NodeId = r.node;
		info.ExtendedInfo = r.data;
		info.Timeout = queued_at_start ? 0 : RFM2G_INFINITE_TIMEOUT;
		pthread_mutex_unlock(&h->lock);
		in_callback = h;
		fn(&h->pub, &info);
		in_callback = NULL;
		pthread_mutex_lock(&h->lock);
	}
	if (q->cb_gen == gen)
		h->pub.callbackInfo[type].CallbackStat = RFM2G_WAIT_EVENT_CANCELED;
	q->cb_done = gen;
	h->cb_threads--;
	destroy = h->free_on_exit && h->free_thread_set &&
		  pthread_equal(h->free_thread, pthread_self());
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	if (destroy)
		rfm2g__destroy(h);
	return NULL;
}

static void forget_callback_locked(struct rfm2g_compat *h, unsigned int type)
{
	h->ev[type].cb_set = false;
	h->ev[type].cb = NULL;
	h->pub.callbackInfo[type].Callback = NULL;
	pthread_cond_broadcast(&h->cond);
}

void rfm2g__stop_callbacks_locked(struct rfm2g_compat *h)
{
	for (unsigned int i = 0; i < RFM2G_COMPAT_NEVENTS; i++)
		if (h->ev[i].cb_set)
			forget_callback_locked(h, i);
}

STDRFM2GCALL RFM2gEnableEventCallback(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType,
				      RFM2G_EVENT_FUNCPTR pEventFunc)
{
	pthread_attr_t attr;
	struct cb_start *s;
	struct rfm2g_evq *q;
	pthread_t thread;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!pEventFunc) {
		rfm2g__put(h);
		return RFM2G_BAD_PARAMETER_3;
	}
	q = &h->ev[EventType];
	pthread_mutex_lock(&h->lock);
	if (q->cb_set || q->waiting) {
		st = RFM2G_EVENT_IN_USE;
		goto out;
	}
	s = malloc(sizeof(*s));
	if (!s) {
		st = RFM2G_LOW_MEMORY;
		goto out;
	}
	s->h = h;
	s->type = EventType;
	s->gen = ++q->cb_gen;
	q->cb = pEventFunc;
	q->cb_set = true;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&thread, &attr, callback_thread, s) != 0) {
		free(s);
		q->cb = NULL;
		q->cb_set = false;
		st = RFM2G_OS_ERROR;
	} else {
		h->cb_threads++;
		h->pub.callbackInfo[EventType].Callback =
			(void (*)(void *, RFM2GEVENTINFO *)) pEventFunc;
		h->pub.callbackInfo[EventType].thread = thread;
		h->pub.callbackInfo[EventType].CallbackStat = RFM2G_SUCCESS;
	}
	pthread_attr_destroy(&attr);
out:
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gDisableEventCallback(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	struct rfm2g_evq *q;
	unsigned int gen;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	q = &h->ev[EventType];
	pthread_mutex_lock(&h->lock);
	if (!q->cb_set) {
		st = RFM2G_NOT_ENABLED;	/* the Linux library's answer */
	} else {
		gen = q->cb_gen;
		forget_callback_locked(h, EventType);
		/*
		 * Unlike the vendor library, no call of the function runs after
		 * this returns (unless called from inside that very callback).
		 */
		if (!rfm2g__in_callback_of(h))
			while (q->cb_done != gen)
				pthread_cond_wait(&h->cond, &h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}
