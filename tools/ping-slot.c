/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping over two slots of the window (spin and event mode; event
 * mode's interrupts are in ping-event.c).
 *
 * Wire format at --offset (both sides use the same offset and mode):
 *   request slot  OFF              written by the pinger
 *   reply slot    OFF + SLOT(size) written by the echoer
 * each slot: u32 seq (stored last, release), u32 size, u64 stamp,
 * u32 flags, u32 sender node id, u32 session, u32 reserved, payload[size].
 * Every word is little-endian, as the library's own structures in the
 * window are, so a pinger and an echoer of different byte orders meet.
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

#include "os/byteorder.h"
#include "ping.h"

#define HDR 32u			/* slot header bytes */
#define SEQ_OFF 0
#define SIZE_OFF 4
#define STAMP_OFF 8
#define FLAGS_OFF 16
#define SENDER_OFF 20		/* the pinger's node id: where event echoes go */
#define SESSION_OFF 24

/* The slot's words in wire order (identities on little-endian hosts). */
static inline uint32_t le_load32(const void *base, uint64_t off)
{
	return rfm__le32toh(rfm_load32(base, off));
}

static inline uint32_t le_load32_acquire(const void *base, uint64_t off)
{
	return rfm__le32toh(rfm_load32_acquire(base, off));
}

static inline uint64_t le_load64(const void *base, uint64_t off)
{
	return rfm__le64toh(rfm_load64(base, off));
}

static inline void le_store32(void *base, uint64_t off, uint32_t v)
{
	rfm_store32(base, off, rfm__htole32(v));
}

static inline void le_store32_release(void *base, uint64_t off, uint32_t v)
{
	rfm_store32_release(base, off, rfm__htole32(v));
}

static inline void le_store64(void *base, uint64_t off, uint64_t v)
{
	rfm_store64(base, off, rfm__htole64(v));
}

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
	return le_load32(p->base, p->offset + SEQ_OFF);
}

static void slot_write(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags)
{
	uint64_t slot = p->offset;

	le_store32(p->base, slot + SENDER_OFF, (uint32_t)rfm_node_id(p->cli->node));
	le_store32(p->base, slot + SESSION_OFF, p->session);
	le_store32(p->base, slot + SIZE_OFF, p->size);
	le_store64(p->base, slot + STAMP_OFF, stamp);
	le_store32(p->base, slot + FLAGS_OFF, flags);
	if (p->size)
		memcpy(p->base + slot + HDR, p->payload, p->size);
	le_store32_release(p->base, slot + SEQ_OFF, seq);
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
		uint32_t v = le_load32_acquire(p->base, slot + SEQ_OFF);

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
		ret = event_send_request(p, seq);
		if (ret)
			return ret;
		ret = event_for(p, seq, true);
		if (!ret && le_load32_acquire(p->base, reply + SEQ_OFF) != seq)
			return cli_error(p->cli, "echo %u: the reply slot does not match its event",
					 seq);
	}
	if (ret)
		return ret;
	if (le_load32(p->base, reply + SESSION_OFF) != p->session)
		return cli_error(p->cli, "echo %u belongs to another session: is a second pinger "
				 "using this --offset?", seq);
	*echoed = le_load64(p->base, reply + STAMP_OFF);
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
	uint64_t reply = reply_slot(p, le_load32(p->base, p->offset + SIZE_OFF));

	return reply ? le_load32_acquire(p->base, reply + SEQ_OFF)
		     : le_load32_acquire(p->base, p->offset + SEQ_OFF);
}

/* Answer request @seq; a stop request is answered too, so no stale one remains. */
static int answer(struct ping *p, uint32_t seq, uint32_t flags)
{
	uint32_t size = le_load32(p->base, p->offset + SIZE_OFF);
	uint32_t sender = le_load32(p->base, p->offset + SENDER_OFF);
	uint64_t reply = reply_slot(p, size);

	if (!reply)
		return cli_error(p->cli, "request %u: payload size %u does not fit the window at "
				 "offset %llu", seq, size, (unsigned long long)p->offset);
	uint64_t stamp = le_load64(p->base, p->offset + STAMP_OFF);
	le_store32(p->base, reply + SIZE_OFF, size);
	le_store64(p->base, reply + STAMP_OFF, stamp);
	le_store32(p->base, reply + SESSION_OFF, p->session);
	if (size)
		memmove(p->base + reply + HDR, p->base + p->offset + HDR, size);
	le_store32_release(p->base, reply + SEQ_OFF, seq);
	rfm_mem_flush(p->cli->node, reply, HDR + size);
	if (p->mode == MODE_EVENT && !(flags & FLAG_STOP))
		return event_notify(p, sender, seq);
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
		seq = le_load32_acquire(p->base, p->offset + SEQ_OFF);
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
		flags = le_load32(p->base, p->offset + FLAGS_OFF);
		session = le_load32(p->base, p->offset + SESSION_OFF);
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
