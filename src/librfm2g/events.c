/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g interrupt events over librfm events: enabling, sending, waiting,
 * and the per-type queues and counts (callbacks: callbacks.c).
 *
 * Kept from the RFM2g documentation: an event is received only while
 * enabled; one waiter per event type (a second gets RFM2G_EVENT_IN_USE);
 * one callback per event type; BAD_DATA and SYNC_LOSS disable themselves
 * each time they fire; counts go on while a queue overflows; RFM2G_NO_WAIT
 * polls and RFM2G_INFINITE_TIMEOUT waits forever.
 *
 * The path of a record: librfm's queue of the handle's node, then the
 * RFM2g queue of its type. With no callback, a waiting RFM2gWaitForEvent()
 * takes from librfm's queue itself, no library thread in between: one wait
 * at a time takes (h->taking) and sorts what it takes into the per-type
 * queues; the other waits sleep on h->cond until their type has a record
 * or the taker leaves, and then one of them takes. Calls that report
 * counts or disable an event first take what librfm holds, so that the
 * counts include it. Once the handle has had a callback, librfm's
 * dispatcher thread takes instead (callbacks.c) and waits only sleep.
 *
 * Deliberately different (docs/rfm2g-migration.md): event state belongs to
 * the handle, not the whole board; each queue holds
 * RFM2G_COMPAT_QUEUE_DEPTH records instead of 1 (an overflow drops the
 * newest record and sets Overflowed); a wait on an event that is neither
 * enabled nor has records queued returns RFM2G_NOT_ENABLED at once instead
 * of blocking; RFM2gClose() stops callbacks and wakes waiters.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "librfm2g/compat.h"

/* Records one take from librfm's queue moves at most. */
#define TAKE_BATCH 64

static bool valid_event(RFM2GEVENTTYPE e)
{
	return (unsigned int) e < RFM2G_COMPAT_NEVENTS;
}

/* The handle whose callback this thread is running, if any. */
static _Thread_local struct rfm2g_compat *in_callback;

bool rfm2g__in_callback_of(const struct rfm2g_compat *h)
{
	return in_callback == h;
}

void rfm2g__set_in_callback(struct rfm2g_compat *h)
{
	in_callback = h;
}

void rfm2g__forget_callback_locked(struct rfm2g_compat *h, unsigned int type)
{
	h->ev[type].cb_set = false;
	h->ev[type].cb = NULL;
	h->ev[type].backlog = 0;
	h->pub.callbackInfo[type].Callback = NULL;
	h->pub.callbackInfo[type].CallbackStat = RFM2G_WAIT_EVENT_CANCELED;
	pthread_cond_broadcast(&h->cond);
}

void rfm2g__stop_callbacks_locked(struct rfm2g_compat *h)
{
	for (unsigned int i = 0; i < RFM2G_COMPAT_NEVENTS; i++)
		if (h->ev[i].cb_set)
			rfm2g__forget_callback_locked(h, i);
}

RFM2G_STATUS rfm2g__get_for_event(RFM2GHANDLE rh, RFM2GEVENTTYPE type, struct rfm2g_compat **h)
{
	return rfm2g__get_arg(rh, valid_event(type), RFM2G_BAD_PARAMETER_2, h);
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

void rfm2g__sort_locked(struct rfm2g_compat *h, const struct rfm_event *ev)
{
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
}

struct rfm2g_record rfm2g__take_locked(struct rfm2g_evq *q)
{
	struct rfm2g_record r = q->ring[q->head];

	q->head = (q->head + 1) % RFM2G_COMPAT_QUEUE_DEPTH;
	q->count--;
	if (q->backlog)
		q->backlog--;	/* the backlog is the head of the queue */
	return r;
}

/*
 * May this thread take from librfm's queue? One wait at a time, never once
 * the dispatcher takes, and only while a network event is enabled (else
 * librfm has nothing to give).
 */
static bool may_take(const struct rfm2g_compat *h)
{
	if (h->taking || h->routed || h->closing)
		return false;
	for (unsigned int t = 0; t <= RFM2GEVENT_INTR4; t++)
		if (h->ev[t].enabled)
			return true;
	return false;
}

/*
 * Take what librfm's queue holds for the handle, waiting up to @timeout_ns
 * (-1 forever, 0 poll), and sort it (lock held, released meanwhile). The
 * number taken, or librfm's code.
 */
static int take_from_librfm(struct rfm2g_compat *h, int64_t timeout_ns)
{
	struct rfm_event evs[TAKE_BATCH];
	int n;

	h->taking = true;
	pthread_mutex_unlock(&h->lock);
	n = rfm_event_fetch(h->node, evs, TAKE_BATCH, timeout_ns);
	pthread_mutex_lock(&h->lock);
	h->taking = false;
	for (int i = 0; i < n; i++)
		rfm2g__sort_locked(h, &evs[i]);
	pthread_cond_broadcast(&h->cond);	/* records for other waits, or their turn */
	return n;
}

/* Sort everything librfm holds now, unless someone else takes (lock held). */
static void take_all_locked(struct rfm2g_compat *h)
{
	while (may_take(h) && take_from_librfm(h, 0) == TAKE_BATCH)
		;
}

void rfm2g__stop_taking_locked(struct rfm2g_compat *h)
{
	if (!h->taking)
		return;
	rfm_event_cancel(h->node);	/* the taker returns RFM_ECANCELED and looks again */
	while (h->taking)
		pthread_cond_wait(&h->cond, &h->lock);
}

/*
 * The RFM2g queue is opened before librfm's mask: librfm queues records
 * from the moment rfm_event_enable() sets the mask, and sorting drops
 * records of types not enabled here. Enabled the other way round, a record
 * sent while RFM2gEnableEvent() ran could pass librfm (counted there as
 * delivered) and be dropped here, counted nowhere.
 */
STDRFM2GCALL RFM2gEnableEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	bool was_enabled;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	pthread_mutex_lock(&h->lock);
	was_enabled = h->ev[EventType].enabled;
	h->ev[EventType].enabled = true;
	pthread_mutex_unlock(&h->lock);
	if (network_event(EventType)) {
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
	rfm2g__put_wake(h);	/* a sleeping wait may take now */
	return st;
}

/* Records that came before the disable are kept: they are taken first. */
STDRFM2GCALL RFM2gDisableEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (network_event(EventType) && rfm_event_disable(h->node, RFM_EVENT_BIT(EventType)) != 0)
		st = RFM2G_DRIVER_ERROR;
	pthread_mutex_lock(&h->lock);
	take_all_locked(h);
	h->ev[EventType].enabled = false;	/* waiters are not woken */
	pthread_mutex_unlock(&h->lock);
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

/* CLOCK_MONOTONIC (the clock of h->cond and librfm) in ns, as a timespec. */
static struct timespec timespec_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t) (ns / 1000000000u),
				  .tv_nsec = (long) (ns % 1000000000u) };
}

/*
 * RFM2G_NO_WAIT: a record of @q, taking what librfm holds first (lock
 * held). Not a waiter: a wait that starts meanwhile is not refused.
 */
static RFM2G_STATUS poll_locked(struct rfm2g_compat *h, struct rfm2g_evq *q,
				struct rfm2g_record *r)
{
	if (!q->count && may_take(h))
		take_from_librfm(h, 0);
	if (!q->count)
		return RFM2G_TIMED_OUT;
	*r = rfm2g__take_locked(q);
	return RFM2G_SUCCESS;
}

/*
 * Wait until @q has a record (taking from librfm's queue when it is this
 * wait's turn), is cancelled, or @timeout ms pass (lock held).
 */
static RFM2G_STATUS wait_locked(struct rfm2g_compat *h, struct rfm2g_evq *q, uint32_t timeout,
				struct rfm2g_record *r)
{
	bool forever = timeout == RFM2G_INFINITE_TIMEOUT, expired = false;
	uint64_t until = rfm_event_now_ns() + (uint64_t) timeout * 1000000u;
	struct timespec ts = timespec_of(until);
	RFM2G_STATUS st;

	q->waiting = true;
	q->cancel = false;
	for (;;) {
		if (q->count) {
			*r = rfm2g__take_locked(q);
			st = RFM2G_SUCCESS;
			break;
		}
		if (q->cancel || h->closing) {
			st = RFM2G_WAIT_EVENT_CANCELED;
			break;
		}
		if (expired) {
			st = RFM2G_TIMED_OUT;
			break;
		}
		if (may_take(h)) {
			uint64_t now = rfm_event_now_ns();
			int n = take_from_librfm(h, forever ? -1 : now < until ? (int64_t) (until - now) : 0);

			expired = n == RFM_ETIMEDOUT || n == RFM_EAGAIN;
			/* Else nothing to take there (no network type enabled): sleep. */
			if (n >= 0 || expired || n == RFM_ECANCELED || n == RFM_EBUSY)
				continue;
		}
		if (forever)
			pthread_cond_wait(&h->cond, &h->lock);
		else
			expired = pthread_cond_timedwait(&h->cond, &h->lock, &ts) == ETIMEDOUT;
	}
	q->waiting = false;
	q->cancel = false;
	return st;
}

STDRFM2GCALL RFM2gWaitForEvent(RFM2GHANDLE rh, RFM2GEVENTINFO *EventInfo)
{
	struct rfm2g_record r;
	struct rfm2g_evq *q;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(rh, EventInfo ? EventInfo->Event : RFM2GEVENT_LAST,
					      &h);

	if (st != RFM2G_SUCCESS)
		return st;
	q = &h->ev[EventInfo->Event];
	pthread_mutex_lock(&h->lock);
	if (q->waiting || q->cb_set)
		st = RFM2G_EVENT_IN_USE;
	else if (!q->count && !q->enabled)
		st = RFM2G_NOT_ENABLED;
	else if (EventInfo->Timeout == RFM2G_NO_WAIT)
		st = poll_locked(h, q, &r);
	else if (!q->count && rfm2g__in_callback_of(h))
		/*
		 * The handle's callbacks share the thread that brings its
		 * records: waiting in one for a record not queued yet would
		 * wait for itself (the vendor's thread per callback could).
		 */
		st = RFM2G_EVENT_IN_USE;
	else
		st = wait_locked(h, q, EventInfo->Timeout, &r);
	pthread_mutex_unlock(&h->lock);
	if (st == RFM2G_SUCCESS) {
		EventInfo->NodeId = r.node;
		EventInfo->ExtendedInfo = r.data;
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gCancelWaitForEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	struct rfm2g_evq *q;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	q = &h->ev[EventType];
	pthread_mutex_lock(&h->lock);
	if (q->cb_set) {
		/* Ends the callback too, as with the vendor driver. */
		rfm2g__forget_callback_locked(h, EventType);
	} else if (q->waiting) {
		q->cancel = true;
		pthread_cond_broadcast(&h->cond);
		if (h->taking)
			rfm_event_cancel(h->node);	/* that wait may be the taker */
	} else {
		st = RFM2G_EVENT_NOT_IN_USE;
	}
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}

static void clear_queue(struct rfm2g_evq *q)
{
	q->head = q->count = q->peak = q->backlog = 0;
	q->overflowed = false;
}

static void clear_count(struct rfm2g_evq *q)
{
	q->counter = 0;
	q->peak = q->count;
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
		take_all_locked(h);	/* what came before the call goes too */
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

STDRFM2GCALL RFM2gClearEventCount(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	return for_queues(rh, EventType, clear_count);
}

STDRFM2GCALL RFM2gClearEventStats(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType)
{
	return RFM2gClearEventCount(rh, EventType);
}

/* The queue of @type with what librfm holds sorted in (lock taken: unlock after). */
static const struct rfm2g_evq *counted_queue(struct rfm2g_compat *h, unsigned int type)
{
	pthread_mutex_lock(&h->lock);
	take_all_locked(h);
	return &h->ev[type];
}

STDRFM2GCALL RFM2gGetEventCount(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType, RFM2G_UINT32 *Count)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(rh, EventType, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!Count) {
		st = RFM2G_BAD_PARAMETER_3;
	} else {
		*Count = counted_queue(h, EventType)->counter;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gGetEventStats(RFM2GHANDLE rh, RFM2GQINFO *Qinfo)
{
	const struct rfm2g_evq *q;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_for_event(
		rh, Qinfo ? (RFM2GEVENTTYPE) Qinfo->Event : RFM2GEVENT_LAST, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	q = counted_queue(h, Qinfo->Event);
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
