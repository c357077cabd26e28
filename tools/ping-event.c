/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping's event transport: in event mode the slots of ping-slot.c carry
 * the data, and an INTR1 whose data is the request's seq follows it each
 * way ("interrupts follow the data"). Both sides sleep in
 * rfm_event_wait() instead of spinning.
 */
#include "config.h"

#include <time.h>

#include "ping.h"

#define WAIT_SLICE_NS (100 * MS) /* event waits wake this often to notice Ctrl-C */

/*
 * Wait for an INTR1 whose data is @want (any, when !match). The wait is
 * cut in slices so that Ctrl-C is noticed; an event ends a slice at once.
 */
int event_for(const struct ping *p, uint32_t want, bool match)
{
	uint64_t deadline = p->timeout_ns < 0 ? UINT64_MAX : now_ns() + (uint64_t)p->timeout_ns;
	struct rfm_event ev;

	for (;;) {
		uint64_t t = now_ns();
		int64_t slice = WAIT_SLICE_NS;

		if (cli_interrupted())
			return PING_INTERRUPTED;
		if (deadline != UINT64_MAX && deadline - t < (uint64_t)slice)
			slice = t >= deadline ? 0 : (int64_t)(deadline - t);
		int ret = rfm_event_wait(p->cli->node, &ev, slice);

		if (ret == RFM_ETIMEDOUT && now_ns() < deadline)
			continue;
		if (ret)
			return ret;
		if (ev.type == RFM_EVENT_OVERFLOW)
			continue;	/* stale requests were dropped; the slot is current */
		if (ev.type == RFM_EVENT_INTR1 && (!match || ev.data == want))
			return 0;
	}
}

/*
 * Interrupt the echoer about request @seq. An echoer that has not attached
 * yet (started at the same moment) gets until the timeout to appear; one
 * that attached but does not listen yet finds the request pending when it
 * starts.
 */
int event_send_request(struct ping *p, uint32_t seq)
{
	uint64_t deadline = p->timeout_ns < 0 ? UINT64_MAX : now_ns() + (uint64_t)p->timeout_ns;
	struct timespec pause = { .tv_nsec = 1000000 };

	for (;;) {
		int ret = rfm_event_send(p->cli->node, p->peer, RFM_EVENT_INTR1, seq);

		if (ret >= 0)
			return 0;
		if (ret != RFM_ENODE)
			return cli_fail(p->cli);
		if (cli_interrupted())
			return PING_INTERRUPTED;
		if (now_ns() > deadline) {
			cli_error(p->cli, "node %u did not attach within %lld ms (start 'rfm ping "
				  "--echo --mode event' there)",
				  p->peer, (long long)(p->timeout_ns / MS));
			return CLI_EXIT_NOMATCH;
		}
		nanosleep(&pause, NULL);
	}
}

/*
 * Tell the pinger (node @sender) that request @seq is answered. A pinger
 * that left, or a request that names this very node (left behind by an
 * earlier run whose id this echoer now has), wants no event: skip it.
 */
int event_notify(struct ping *p, uint32_t sender, uint32_t seq)
{
	int ret;

	if (sender > RFM_NODE_ID_MAX || sender == (uint32_t)rfm_node_id(p->cli->node))
		return 0;
	ret = rfm_event_send(p->cli->node, sender, RFM_EVENT_INTR1, seq);
	if (ret < 0 && ret != RFM_ENODE)
		return cli_fail(p->cli);
	return 0;
}
