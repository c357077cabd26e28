/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping over two rings (ring mode, include/rfm/ring.h), each written
 * only by its producer: the pinger's request ring at --offset, the
 * echoer's reply ring right after it (--offset + the request ring's
 * footprint, rounded up to 64). A message is u32 seq, u32 flags, u64
 * stamp (little-endian), payload[size]; the echoer sizes its ring from the request ring,
 * so only the pinger needs --size. A side whose ring is already there (its
 * own, same shape) takes it over instead of re-creating it, so that a
 * waiting peer keeps its place. Each side consumes the other's ring from
 * its newest point; the pinger first sends a handshake (seq 0, FLAG_HELLO,
 * a fresh stamp each time) until one is echoed, so a request published
 * before the echoer attached is not lost, and echoes of an earlier run are
 * told apart by their stamp.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "os/byteorder.h"
#include "ping.h"

#define SEQ_OFF 0
#define HELLO_RETRY_NS (10 * MS) /* resend the handshake this often */
#define RING_SLOTS 8u		/* one request in flight: a few slots suffice */
#define WAIT_SLICE_NS (100 * MS) /* waits wake this often to notice Ctrl-C */

static struct rfm_ring_config ring_config(uint32_t slot_size)
{
	struct rfm_ring_config c = { .struct_size = sizeof(c), .slot_size = slot_size,
				     .slot_count = RING_SLOTS };
	return c;
}

/* A ring's bytes, rounded up to 64 so that the next ring is aligned. */
static uint64_t ring_span(const struct rfm_ring_config *c)
{
	uint64_t bytes = 0;

	rfm_ring_footprint(c, &bytes);
	return (bytes + 63) & ~(uint64_t)63;
}

/* Take over this node's ring at @offset when it has the shape @c, else create it. */
static int ring_produce(struct ping *p, uint64_t offset, const struct rfm_ring_config *c)
{
	struct rfm_ring_info info = { .struct_size = sizeof(info) };

	if (!rfm_ring_attach(p->cli->node, offset, &p->out)) {
		if (!rfm_ring_get_info(p->out, &info) && info.slot_size == c->slot_size &&
		    info.slot_count == c->slot_count && !info.flags)
			return 0;
		rfm_ring_close(p->out);
		p->out = NULL;
	}
	if (rfm_ring_create(p->cli->node, offset, ring_span(c), c, &p->out))
		return cli_fail(p->cli);
	return 0;
}

/*
 * Consume the peer's ring at @offset from its newest point (older
 * messages belong to an earlier run), waiting up to the timeout for the
 * peer to create it. Exit 3 on timeout (the pinger says why; @p what
 * names the ring, NULL for the echoer).
 */
int ring_open_peer(struct ping *p, uint64_t offset, const char *what)
{
	uint64_t deadline = p->timeout_ns < 0 ? UINT64_MAX : now_ns() + (uint64_t)p->timeout_ns;
	struct timespec pause = { .tv_nsec = 1000000 };

	for (;;) {
		int ret = rfm_ring_consumer_open(p->cli->node, offset, RFM_RING_CONSUMER_NEWEST,
						 &p->in);

		if (!ret)
			return 0;
		if (ret != RFM_ECORRUPT)
			return cli_fail(p->cli);
		if (cli_interrupted())
			return PING_INTERRUPTED;
		if (now_ns() > deadline) {
			if (what)
				cli_error(p->cli, "no %s ring at offset %llu within %lld ms (is 'rfm "
					  "ping --echo --mode ring' running on the peer, at the "
					  "same --offset?)", what, (unsigned long long)offset,
					  (long long)(p->timeout_ns / MS));
			return CLI_EXIT_NOMATCH;
		}
		nanosleep(&pause, NULL);
	}
}

/* The pinger's side, before the echoer starts: its request ring and message buffer. */
int ring_ping_setup(struct ping *p)
{
	struct rfm_ring_config c = ring_config(RING_HDR + p->size);
	int ret = cli_check_range(p->cli, p->offset, 2 * ring_span(&c));

	if (!ret)
		ret = cli_guard_scratch(p->cli, p->offset, 2 * ring_span(&c), PING_OFFSET_HINT);
	if (ret)
		return ret;
	p->msg_cap = RING_HDR + p->size;
	p->msg = calloc(1, p->msg_cap);
	if (!p->msg)
		return cli_error(p->cli, "out of memory");
	if (p->size)
		memcpy(p->msg + RING_HDR, p->payload, p->size);
	return ring_produce(p, p->offset, &c);
}

/* The echoer's side: consume the request ring, then produce a reply ring of its shape. */
int ring_echo_setup(struct ping *p)
{
	struct rfm_ring_info info = { .struct_size = sizeof(info) };
	int ret = ring_open_peer(p, p->offset, NULL);

	if (ret)
		return ret;
	rfm_ring_consumer_get_info(p->in, &info);
	if (info.slot_size < RING_HDR)
		return cli_error(p->cli, "the ring at offset %llu is not a ping ring (%u-byte "
				 "slots)", (unsigned long long)p->offset, info.slot_size);
	struct rfm_ring_config c = ring_config(info.slot_size);
	uint64_t reply = p->offset + ring_span(&c);
	ret = cli_check_range(p->cli, reply, ring_span(&c));
	if (!ret)
		ret = cli_guard_scratch(p->cli, reply, ring_span(&c), PING_OFFSET_HINT);
	if (ret)
		return ret;
	p->msg_cap = info.slot_size;
	p->msg = malloc(p->msg_cap);
	if (!p->msg)
		return cli_error(p->cli, "out of memory");
	return ring_produce(p, reply, &c);
}

/* Send request @seq and wait up to @wait_ns for its echo (its stamp comes back in @echoed). */
static int ring_exchange(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags,
			 int64_t wait_ns, uint64_t *echoed)
{
	uint64_t deadline = wait_ns < 0 ? UINT64_MAX : now_ns() + (uint64_t)wait_ns;
	struct rfm_ring_msg m;
	uint64_t got_stamp;
	uint32_t got;
	int ret;

	/* The message's words are little-endian, as ping-slot.c's are. */
	uint32_t le_seq = rfm__htole32(seq), le_flags = rfm__htole32(flags);
	uint64_t le_stamp = rfm__htole64(stamp);

	memcpy(p->msg + SEQ_OFF, &le_seq, 4);
	memcpy(p->msg + 4, &le_flags, 4);
	memcpy(p->msg + 8, &le_stamp, 8);
	ret = rfm_ring_publish(p->out, p->msg, RING_HDR + p->size, 0);
	if (ret)
		return ret;	/* a library error: the caller reports it */
	for (;;) {
		uint64_t t = now_ns();
		int64_t left = deadline == UINT64_MAX ? WAIT_SLICE_NS : t >= deadline ? 0
			     : (int64_t)(deadline - t);

		if (cli_interrupted())
			return PING_INTERRUPTED;
		if (left > WAIT_SLICE_NS)
			left = WAIT_SLICE_NS;
		ret = rfm_ring_consume(p->in, p->msg, p->msg_cap, &m, left);
		if ((ret == RFM_EAGAIN || ret == RFM_ETIMEDOUT) && now_ns() < deadline)
			continue;
		if (ret == RFM_EAGAIN)
			return RFM_ETIMEDOUT;
		if (ret == RFM_ECORRUPT)
			continue;	/* a torn slot was skipped: the echo may follow */
		if (ret)
			return ret;
		memcpy(&got, p->msg + SEQ_OFF, 4);
		memcpy(&got_stamp, p->msg + 8, 8);
		if (m.len == RING_HDR + p->size && got == le_seq && got_stamp == le_stamp) {
			*echoed = stamp;
			return 0;
		}
		/* The echo of an earlier run's request, still in the ring: skip it. */
	}
}

/* The handshake: resend a hello until one is echoed, for up to the timeout. */
static int ring_handshake(struct ping *p)
{
	uint64_t deadline = p->timeout_ns < 0 ? UINT64_MAX : now_ns() + (uint64_t)p->timeout_ns;

	for (;;) {
		uint64_t stamp = now_ns();
		int64_t wait = HELLO_RETRY_NS;

		if (deadline != UINT64_MAX && deadline - stamp < (uint64_t)wait)
			wait = stamp >= deadline ? 0 : (int64_t)(deadline - stamp);
		uint64_t echoed;
		int ret = ring_exchange(p, 0, stamp, FLAG_HELLO, wait, &echoed);

		if (ret != RFM_ETIMEDOUT || now_ns() >= deadline)
			return ret;
	}
}

uint64_t ring_reply_offset(const struct ping *p, uint32_t size)
{
	struct rfm_ring_config c = ring_config(RING_HDR + size);

	return p->offset + ring_span(&c);
}

int ring_round_trip(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags,
		    uint64_t *echoed)
{
	p->last_seq = seq;
	if (flags & FLAG_HELLO) {
		*echoed = stamp;	/* each hello carries its own */
		return ring_handshake(p);
	}
	return ring_exchange(p, seq, stamp, flags, p->timeout_ns, echoed);
}

int ring_echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed)
{
	uint64_t idle_since = now_ns();
	struct rfm_ring_msg m;
	uint32_t flags;

	*echoed = 0;
	for (;;) {
		if (cli_interrupted())
			return PING_INTERRUPTED;
		int ret = rfm_ring_consume(p->in, p->msg, p->msg_cap, &m, WAIT_SLICE_NS);

		if (ret == RFM_ETIMEDOUT || ret == RFM_EAGAIN) {
			if (p->timeout_ns >= 0 && now_ns() - idle_since > (uint64_t)p->timeout_ns)
				return CLI_EXIT_NOMATCH;
			continue;
		}
		idle_since = now_ns();
		if (ret == RFM_ECORRUPT)
			continue;	/* skipped; its pinger times out and says so */
		if (ret)
			return cli_fail(p->cli);
		if (m.len < RING_HDR || m.len > p->msg_cap)
			return cli_error(p->cli, "request %llu: %u bytes is not a ping message",
					 (unsigned long long)m.seq, m.len);
		if (rfm_ring_publish(p->out, p->msg, m.len, 0))
			return cli_fail(p->cli);
		memcpy(&flags, p->msg + 4, 4);
		flags = rfm__le32toh(flags);
		if (flags & FLAG_STOP)
			return 0;
		if (!(flags & FLAG_HELLO) && ++*echoed == max_echoes)
			return 0;
	}
}
