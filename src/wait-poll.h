/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For library waits that cannot sleep on the handle's event queue (rings
 * without notify, records without notify or with a publish under way,
 * back-pressure producers): how to pause, and when to give up because
 * the caller asked. Implemented in event-wait.c.
 */
#ifndef RFM_WAIT_POLL_H
#define RFM_WAIT_POLL_H

#include <stdint.h>

struct rfm_node;

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

#endif /* RFM_WAIT_POLL_H */
