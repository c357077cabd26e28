/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping over two slots of the window (spin and event mode).
 *
 * Wire format at --offset (both sides use the same offset and mode):
 *   request slot  OFF              written by the pinger
 *   reply slot    OFF + SLOT(size) written by the echoer
 * each slot: u32 seq (stored last, release), u32 size, u64 stamp,
 * u32 flags, u32 sender node id, u32 session, u32 reserved, payload[size].
 * In spin mode the peers watch seq; in event mode an INTR1 event whose
 * data is seq follows the slot's data ("interrupts follow the data").
 *
 * Sessions: the slots outlive the processes, so a request of a pinger that
 * died (or whose echoer left) stays in the request slot. Each pinger run
 * draws a session id and opens it with a hello (FLAG_HELLO), resent until
 * answered within the timeout; the echoer answers a hello at any time and
 * afterwards only requests of that session. A new echoer therefore ignores
 * a measuring request left behind, and a stale hello costs it only an echo
 * nobody reads (its sender may have gone: that is not an error).
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "ping.h"

#define HDR 32u			/* slot header bytes */
#define SEQ_OFF 0
#define SIZE_OFF 4
#define STAMP_OFF 8
#define FLAGS_OFF 16
#define SENDER_OFF 20		/* the pinger's node id: where event echoes go */
#define SESSION_OFF 24
#define WAIT_SLICE_NS (100 * MS) /* event waits wake this often to notice Ctrl-C */

static uint64_t slot_span(uint32_t size)
{
	return (HDR + (uint64_t)size + 63) & ~(uint64_t)63;
}

uint64_t slot_pair_span(uint32_t size)
{
	return 2 * slot_span(size);
}

uint32_t slot_last_seq(const struct ping *p)
{
	return rfm_load32(p->base, p->offset + SEQ_OFF);
}

static void slot_write(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags)
{
	uint64_t slot = p->offset;

	rfm_store32(p->base, slot + SENDER_OFF, (uint32_t)rfm_node_id(p->cli->node));
	rfm_store32(p->base, slot + SESSION_OFF, p->session);
	rfm_store32(p->base, slot + SIZE_OFF, p->size);
	rfm_store64(p->base, slot + STAMP_OFF, stamp);
	rfm_store32(p->base, slot + FLAGS_OFF, flags);
	if (p->size)
		memcpy(p->base + slot + HDR, p->payload, p->size);
	rfm_store32_release(p->base, slot + SEQ_OFF, seq);
	/* dds: each node has its own copy: send the slot (a fence elsewhere). */
	rfm_mem_flush(p->cli->node, slot, HDR + p->size);
}

/*
 * Spin until the seq word at @slot differs from @old, or equals @want when
 * @equal. The clock is cheap but not free: it is read every 256 spins.
 * After YIELD_AFTER_NS of spinning each check yields the CPU, so that a
 * peer sharing this CPU (an oversubscribed machine) gets to answer within
 * a moment instead of a whole time slice.
 */
static int spin_for(const struct ping *p, uint64_t slot, uint32_t old, uint32_t want, bool equal)
{
	uint64_t start = now_ns();
	uint64_t deadline = p->timeout_ns < 0 ? UINT64_MAX : start + (uint64_t)p->timeout_ns;

	for (unsigned int spins = 1;; spins++) {
		uint32_t v = rfm_load32_acquire(p->base, slot + SEQ_OFF);

		if (equal ? v == want : v != old)
			return 0;
		if (!(spins & 255)) {
			uint64_t t = now_ns();
			if (cli_interrupted())
				return PING_INTERRUPTED;
			if (t > deadline)
				return RFM_ETIMEDOUT;
			if (t - start > YIELD_AFTER_NS)
				sched_yield();
		}
		relax();
	}
}

/*
 * Wait for an INTR1 whose data is @want (any, when !match). The wait is
 * cut in slices so that Ctrl-C is noticed; an event ends a slice at once.
 */
static int event_for(const struct ping *p, uint32_t want, bool match)
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
static int send_request(struct ping *p, uint32_t seq)
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

int slot_round_trip(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags,
		    uint64_t *echoed)
{
	uint64_t reply = p->offset + slot_span(p->size);
	int ret;

	p->last_seq = seq;
	slot_write(p, seq, stamp, flags);
	if (p->mode == MODE_SPIN || (flags & FLAG_STOP)) {
		/* A stop request is acknowledged in the slot only, without an event. */
		if (p->mode == MODE_EVENT &&
		    rfm_event_send(p->cli->node, p->peer, RFM_EVENT_INTR1, seq) < 0)
			return cli_fail(p->cli);
		ret = spin_for(p, reply, 0, seq, true);
	} else {
		ret = send_request(p, seq);
		if (ret)
			return ret;
		ret = event_for(p, seq, true);
		if (!ret && rfm_load32_acquire(p->base, reply + SEQ_OFF) != seq)
			return cli_error(p->cli, "echo %u: the reply slot does not match its event",
					 seq);
	}
	if (ret)
		return ret;
	if (rfm_load32(p->base, reply + SESSION_OFF) != p->session)
		return cli_error(p->cli, "echo %u belongs to another session: is a second pinger "
				 "using this --offset?", seq);
	*echoed = rfm_load64(p->base, reply + STAMP_OFF);
	return 0;
}

/* ---- the echoer ---- */

/* Where the echo of a request with @size payload bytes goes; 0 if it does not fit. */
static uint64_t reply_slot(const struct ping *p, uint32_t size)
{
	/* The request comes from another process: never trust its size. */
	if (size > MAX_PAYLOAD || p->offset + 2 * slot_span(size) > rfm_node_size(p->cli->node))
		return 0;
	return p->offset + slot_span(size);
}

/*
 * The last request answered: the reply slot's seq. A request whose seq
 * differs is pending, even one sent before this echoer started (before it
 * enabled events, whose interrupt it therefore never got).
 */
static uint32_t last_answered(const struct ping *p)
{
	uint64_t reply = reply_slot(p, rfm_load32(p->base, p->offset + SIZE_OFF));

	return reply ? rfm_load32_acquire(p->base, reply + SEQ_OFF)
		     : rfm_load32_acquire(p->base, p->offset + SEQ_OFF);
}

/*
 * Tell the pinger (node @sender) that request @seq is answered. A pinger
 * that left, or a request that names this very node (left behind by an
 * earlier run whose id this echoer now has), wants no event: skip it.
 */
static int notify(struct ping *p, uint32_t sender, uint32_t seq)
{
	int ret;

	if (sender > RFM_NODE_ID_MAX || sender == (uint32_t)rfm_node_id(p->cli->node))
		return 0;
	ret = rfm_event_send(p->cli->node, sender, RFM_EVENT_INTR1, seq);
	if (ret < 0 && ret != RFM_ENODE)
		return cli_fail(p->cli);
	return 0;
}

/* Answer request @seq; a stop request is answered too, so no stale one remains. */
static int answer(struct ping *p, uint32_t seq, uint32_t flags)
{
	uint32_t size = rfm_load32(p->base, p->offset + SIZE_OFF);
	uint32_t sender = rfm_load32(p->base, p->offset + SENDER_OFF);
	uint64_t reply = reply_slot(p, size);

	if (!reply)
		return cli_error(p->cli, "request %u: payload size %u does not fit the window at "
				 "offset %llu", seq, size, (unsigned long long)p->offset);
	uint64_t stamp = rfm_load64(p->base, p->offset + STAMP_OFF);
	rfm_store32(p->base, reply + SIZE_OFF, size);
	rfm_store64(p->base, reply + STAMP_OFF, stamp);
	rfm_store32(p->base, reply + SESSION_OFF, p->session);
	if (size)
		memmove(p->base + reply + HDR, p->base + p->offset + HDR, size);
	rfm_store32_release(p->base, reply + SEQ_OFF, seq);
	rfm_mem_flush(p->cli->node, reply, HDR + size);
	if (p->mode == MODE_EVENT && !(flags & FLAG_STOP))
		return notify(p, sender, seq);
	return 0;
}

/*
 * In event mode the handle must have INTR1 enabled before this starts, so
 * that nothing falls between the pending check and the first wait.
 */
int slot_echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed)
{
	uint32_t last = last_answered(p), seq, flags, session;
	int ret;

	*echoed = 0;
	p->session = 0;	/* none until a hello opens one */
	for (;;) {
		seq = rfm_load32_acquire(p->base, p->offset + SEQ_OFF);
		if (seq == last) {
			if (p->mode == MODE_SPIN)
				ret = spin_for(p, p->offset, last, 0, false);
			else
				ret = event_for(p, 0, false);
			if (ret == RFM_ETIMEDOUT)
				return CLI_EXIT_NOMATCH;
			if (ret < 0)
				return cli_fail(p->cli);
			if (ret)
				return ret;
			continue;	/* an event may be stale: look at the slot again */
		}
		last = seq;
		flags = rfm_load32(p->base, p->offset + FLAGS_OFF);
		session = rfm_load32(p->base, p->offset + SESSION_OFF);
		if (flags & FLAG_HELLO)
			p->session = session;
		else if (!p->session || session != p->session)
			continue;	/* left behind by a run this echoer never greeted */
		ret = answer(p, seq, flags);
		if (ret)
			return ret;
		if (flags & FLAG_STOP)
			return 0;
		if (!(flags & FLAG_HELLO) && ++*echoed == max_echoes)
			return 0;
	}
}
