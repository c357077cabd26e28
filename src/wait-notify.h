/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the modules beside the event code (rings, records, health) use to
 * wait and to notify, so that only the event code (event*.c) reaches the
 * backend's event ops:
 *
 *  - waits that cannot sleep on the handle's event queue (rings without
 *    notify, records without notify or with a publish under way,
 *    back-pressure producers): how to pause, and when to give up because
 *    the caller asked;
 *  - waits that can: turn the notify type on, then sleep on the queue;
 *  - notifications: post an internal event.
 *
 * Implemented in event.c and event-wait.c.
 */
#ifndef RFM_WAIT_NOTIFY_H
#define RFM_WAIT_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu-clock.h"

struct rfm_node;

/* A spin looks at the clock and its stop conditions once per this many
 * polls: reading the clock costs more than a poll. */
#define RFM__SPIN_CHECK_EVERY 64u

/* What a spin's check returns to end the spin without an error. */
#define RFM__SPIN_OVER 1

/*
 * The spin of every library wait (events, ring consumers, ring producers,
 * records), so that they all spin alike: poll @ready(@arg) with the CPU's
 * spin hint between polls; every RFM__SPIN_CHECK_EVERY polls, @check(@arg,
 * turn) says whether to stop (non-zero: returned, e.g. RFM__SPIN_OVER, an
 * rfm error code). Returns 0 as soon as @ready is true. Inline: the
 * callers' @ready and @check are static functions, inlined into the loop.
 */
static inline int rfm__spin_until(bool (*ready)(void *arg),
				  int (*check)(void *arg, unsigned int turn), void *arg)
{
	for (unsigned int turn = 1;; turn++) {
		if (ready(arg))
			return 0;
		rfm__cpu_relax();
		if (turn % RFM__SPIN_CHECK_EVERY == 0) {
			int ret = check(arg, turn);

			if (ret)
				return ret;
		}
	}
}

/* A @check for rfm__spin_until() that ends the spin after @turns polls. */
static inline int rfm__spin_turns_over(unsigned int turn, unsigned int turns)
{
	return turn >= turns ? RFM__SPIN_OVER : 0;
}

/*
 * One pause of a poll: 10 us doubling with @step up to 1 ms, never past
 * @deadline_ns (CLOCK_MONOTONIC, absolute; 0 = none). A poll that lasts
 * uses well under 1% of a core and sees its condition within 1 ms.
 */
void rfm__backoff_sleep(unsigned int step, uint64_t deadline_ns);

/*
 * The error to stop with when rfm_event_cancel() (say from a SIGTERM
 * handler) or rfm_close() was called, consuming the cancel as
 * rfm_event_wait() does; else 0.
 */
int rfm__event_poll_stop(struct rfm_node *node);

/*
 * Turn on event type @type on the handle (see rfm_event_enable()), for a
 * wait that will sleep on it. Returns 0 when it was on already, 1 when it
 * was turned on now or another thread is turning it on (RFM_EBUSY), so a
 * notification sent before is not queued: look at the condition again
 * before sleeping. Else the rfm error code.
 */
int rfm__event_enable_notify(struct rfm_node *node, unsigned int type);

/*
 * Sleep on the handle's event queue until an event arrives (it is taken
 * and dropped: it only says "look again"), @timeout_ns passes (-1: none)
 * or the wait is cancelled; as rfm_event_wait().
 */
int rfm__event_sleep(struct rfm_node *node, int64_t timeout_ns);

/*
 * Post an internal event: @type from @sender with @data to node @to (our
 * own node included, whatever loopback says: the receivers are consumers
 * beside us). Not counted as sent by the handle. Returns what the
 * backend's send returns, or RFM_ENOTSUP without events.
 */
int rfm__event_post(struct rfm_node *node, unsigned int to, unsigned int type, uint32_t sender,
		    uint32_t data);

#endif /* RFM_WAIT_NOTIFY_H */
