/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bottom of the event stack: what every event file asks of a handle's
 * event state (which thread runs its callbacks) and the one thing they all
 * do to it (wake every sleeper). It calls no other event file, so event.c,
 * event-callback.c and event-wait.c can all stand on it without calling
 * each other back.
 */
#include "config.h"

#include "event-core.h"
#include "futex.h"

/* The handle whose callback this thread runs in rfm__event_run_inline(). */
static _Thread_local const struct rfm_events *inline_ev;

const struct rfm_events *rfm__event_set_inline(const struct rfm_events *ev)
{
	const struct rfm_events *outer = inline_ev;

	inline_ev = ev;
	return outer;
}

bool rfm__event_is_dispatcher(const struct rfm_events *ev)
{
	return ev->dispatcher_started && pthread_equal(ev->dispatcher, pthread_self());
}

bool rfm__event_in_inline_callback(const struct rfm_events *ev)
{
	return inline_ev == ev;
}

bool rfm__event_on_callback_thread(const struct rfm_events *ev)
{
	return rfm__event_in_inline_callback(ev) || rfm__event_is_dispatcher(ev);
}

void rfm__event_wake_all(struct rfm_node *node)
{
	struct rfm_events *ev = rfm__core(node)->ev;

	rfm__futex_bump_wake(&ev->drain_gen, false);
	if (EV_LOAD(ev->attached))
		node->ops->ev->wake(node);
}
