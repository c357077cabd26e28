/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping: round-trip latency between two nodes, by the method of the
 * field (node A writes a timestamp, node B echoes it, A measures the round
 * trip). The echo side is `rfm ping --echo` on the other node, or a forked
 * child with --local.
 *
 * Wire format at --offset (both sides use the same offset and mode):
 *   request slot  OFF              written by the pinger
 *   reply slot    OFF + SLOT(size) written by the echoer
 * each slot: u32 seq (stored last, release), u32 size, u64 stamp,
 * u32 flags, u32 sender node id, u64 reserved, payload[size].
 * In spin mode the peers watch seq; in event mode an INTR1 event whose
 * data is seq follows the slot's data ("interrupts follow the data").
 *
 * Ring mode uses two rings instead (include/rfm/ring.h), each written only
 * by its producer: the pinger's request ring at OFF, the echoer's reply
 * ring right after it (OFF + the request ring's footprint, rounded up to
 * 64). A message is u32 seq, u32 flags, u64 stamp, payload[size]; the
 * echoer sizes its ring from the request ring, so only the pinger needs
 * --size. A side whose ring is already there (its own, same shape) takes
 * it over instead of re-creating it, so that a waiting peer keeps its place.
 * Each side consumes the other's ring from its newest point; the pinger
 * first sends a handshake (seq 0, FLAG_HELLO, a fresh stamp each time)
 * until one is echoed, so a request published before the echoer attached
 * is not lost, and echoes of an earlier run are told apart by their stamp.
 *
 * With --rate the pinger sends on a fixed schedule and stamps the intended
 * send time, so a stall delays every later send and is counted in full
 * (no coordinated omission).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rfm/ring.h>

#include "cli.h"
#include "latency-hist.h"

#define MS 1000000LL
#define HDR 32u			/* slot header bytes */
#define SEQ_OFF 0
#define SIZE_OFF 4
#define STAMP_OFF 8
#define FLAGS_OFF 16
#define SENDER_OFF 20		/* the pinger's node id: where event echoes go */
#define FLAG_STOP 1u		/* the pinger is done: the echoer exits */
#define FLAG_HELLO 2u		/* ring mode: a handshake, not counted by the echoer */
#define HELLO_RETRY_NS (10 * MS) /* ring mode: resend the handshake this often */
#define MAX_PAYLOAD 65536u
#define YIELD_AFTER_NS 50000u	/* spin this long before yielding the CPU */
#define SLEEP_MARGIN_NS 50000u	/* --rate: wake this early, then spin */
#define RING_HDR 16u		/* ring message header: seq, flags, stamp */
#define RING_SLOTS 8u		/* one request in flight: a few slots suffice */

enum ping_mode { MODE_SPIN, MODE_EVENT, MODE_RING };
static const char *const mode_names[] = { "spin", "event", "ring" };

struct ping {
	struct cli *cli;
	enum ping_mode mode;
	uint8_t *base;		/* the mapped window */
	uint64_t offset;	/* of the request slot */
	uint32_t size;		/* payload bytes */
	int64_t timeout_ns;	/* per round trip (echo: idle); < 0 forever */
	unsigned int peer;	/* event mode: the echoer's node id */
	uint8_t *payload;	/* what the pinger sends */
	rfm_ring *out;		/* ring mode: the ring this side produces */
	rfm_ring_consumer *in;	/* ring mode: the peer's ring */
	uint8_t *msg;		/* ring mode: one message (header + payload) */
	uint32_t msg_cap;	/* its bytes */
	uint32_t last_seq;	/* of the last request sent */
};

static uint64_t slot_span(uint32_t size)
{
	return (HDR + (uint64_t)size + 63) & ~(uint64_t)63;
}

static uint64_t now_ns(void)
{
	return rfm_event_now_ns();
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* ---- the two sides' slot I/O ---- */

static void slot_write(uint8_t *base, uint64_t slot, uint32_t seq, uint32_t size, uint64_t stamp,
		       uint32_t flags, uint32_t sender, const uint8_t *payload)
{
	rfm_store32(base, slot + SENDER_OFF, sender);
	rfm_store32(base, slot + SIZE_OFF, size);
	rfm_store64(base, slot + STAMP_OFF, stamp);
	rfm_store32(base, slot + FLAGS_OFF, flags);
	if (size)
		memcpy(base + slot + HDR, payload, size);
	rfm_store32_release(base, slot + SEQ_OFF, seq);
}

/*
 * Spin until the seq word at @slot differs from @old, or equals @want when
 * @equal. The clock is cheap but not free: it is read every 256 spins.
 * After YIELD_AFTER_NS of spinning each check yields the CPU, so that a
 * peer sharing this CPU (an oversubscribed machine) gets to answer within
 * a moment instead of a whole time slice.
 */
static int spin_for(const struct ping *p, uint64_t slot, uint32_t old, uint32_t want, bool equal,
		    uint32_t *seen)
{
	uint64_t start = now_ns();
	uint64_t deadline = p->timeout_ns < 0 ? UINT64_MAX : start + (uint64_t)p->timeout_ns;

	for (unsigned int spins = 1;; spins++) {
		uint32_t v = rfm_load32_acquire(p->base, slot + SEQ_OFF);

		if (equal ? v == want : v != old) {
			*seen = v;
			return 0;
		}
		if (!(spins & 255)) {
			uint64_t t = now_ns();
			if (t > deadline)
				return RFM_ETIMEDOUT;
			if (t - start > YIELD_AFTER_NS)
				sched_yield();
		}
		relax();
	}
}

/* Wait for an INTR1 whose data is @want (any, when !match); returns its record. */
static int event_for(const struct ping *p, uint32_t want, bool match, struct rfm_event *ev)
{
	for (;;) {
		int ret = rfm_event_wait(p->cli->node, ev, p->timeout_ns);

		if (ret)
			return ret;
		if (ev->type == RFM_EVENT_OVERFLOW)
			continue;	/* stale requests were dropped; the slot is current */
		if (ev->type == RFM_EVENT_INTR1 && (!match || ev->data == want))
			return 0;
	}
}

/* ---- ring mode ---- */

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
static int ring_open_peer(struct ping *p, uint64_t offset, const char *what)
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
static int ring_ping_setup(struct ping *p)
{
	struct rfm_ring_config c = ring_config(RING_HDR + p->size);
	int ret = cli_check_range(p->cli, p->offset, 2 * ring_span(&c));

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
static int ring_echo_setup(struct ping *p)
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

	memcpy(p->msg + SEQ_OFF, &seq, 4);
	memcpy(p->msg + 4, &flags, 4);
	memcpy(p->msg + 8, &stamp, 8);
	ret = rfm_ring_publish(p->out, p->msg, RING_HDR + p->size, 0);
	if (ret)
		return ret;	/* a library error: the caller reports it */
	for (;;) {
		uint64_t t = now_ns();
		int64_t left = deadline == UINT64_MAX ? -1 : t >= deadline ? 0
			     : (int64_t)(deadline - t);

		ret = rfm_ring_consume(p->in, p->msg, p->msg_cap, &m, left);
		if (ret == RFM_EAGAIN)
			return RFM_ETIMEDOUT;
		if (ret == RFM_ECORRUPT)
			continue;	/* a torn slot was skipped: the echo may follow */
		if (ret)
			return ret;
		memcpy(&got, p->msg + SEQ_OFF, 4);
		memcpy(&got_stamp, p->msg + 8, 8);
		if (m.len == RING_HDR + p->size && got == seq && got_stamp == stamp) {
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

/* Answer requests as echo_loop() does, from ring to ring. */
static int ring_echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed)
{
	struct rfm_ring_msg m;
	uint32_t flags;

	*echoed = 0;
	for (;;) {
		int ret = rfm_ring_consume(p->in, p->msg, p->msg_cap, &m, p->timeout_ns);

		if (ret == RFM_ETIMEDOUT)
			return CLI_EXIT_NOMATCH;
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
		if (flags & FLAG_STOP)
			return 0;
		if (!(flags & FLAG_HELLO) && ++*echoed == max_echoes)
			return 0;
	}
}

/* ---- the pinger ---- */

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
		if (now_ns() > deadline) {
			cli_error(p->cli, "node %u did not attach within %lld ms (start 'rfm ping "
				  "--echo --mode event' there)",
				  p->peer, (long long)(p->timeout_ns / MS));
			return CLI_EXIT_NOMATCH;
		}
		nanosleep(&pause, NULL);
	}
}

/* One round trip stamped @stamp; the echoed stamp comes back in @echoed. */
static int round_trip(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags)
{
	uint64_t reply = p->offset + slot_span(p->size), echoed = 0;
	struct rfm_event ev;
	uint32_t seen;
	int ret;

	p->last_seq = seq;
	if (p->mode == MODE_RING) {
		if (flags & FLAG_HELLO) {
			ret = ring_handshake(p);
			echoed = stamp;	/* each hello carries its own */
		} else {
			ret = ring_exchange(p, seq, stamp, flags, p->timeout_ns, &echoed);
		}
		goto check;
	}
	slot_write(p->base, p->offset, seq, p->size, stamp, flags,
		   (uint32_t)rfm_node_id(p->cli->node), p->payload);
	if (p->mode == MODE_SPIN || (flags & FLAG_STOP)) {
		/* A stop request is acknowledged in the slot only, without an event. */
		if (p->mode == MODE_EVENT &&
		    rfm_event_send(p->cli->node, p->peer, RFM_EVENT_INTR1, seq) < 0)
			return cli_fail(p->cli);
		ret = spin_for(p, reply, 0, seq, true, &seen);
	} else {
		ret = send_request(p, seq);
		if (ret)
			return ret;
		ret = event_for(p, seq, true, &ev);
		if (!ret && rfm_load32_acquire(p->base, reply + SEQ_OFF) != seq)
			return cli_error(p->cli, "echo %u: the reply slot does not match its event",
					 seq);
	}
	if (!ret)
		echoed = rfm_load64(p->base, reply + STAMP_OFF);
check:
	if (ret == RFM_ETIMEDOUT) {
		cli_error(p->cli, "no echo within %lld ms (is 'rfm ping --echo --mode %s' "
			  "running on the peer, at the same --offset?)",
			  (long long)(p->timeout_ns / MS), mode_names[p->mode]);
		return CLI_EXIT_NOMATCH;
	}
	if (ret)
		return cli_fail(p->cli);
	if (echoed != stamp)
		return cli_error(p->cli, "echo %u carries another timestamp: is a second pinger "
				 "using this --offset?", seq);
	return 0;
}

/*
 * Wait until @t (absolute, CLOCK_MONOTONIC). In event mode sleep until
 * shortly before it (timer slack set to 1 ns by the caller), then spin the
 * rest: otherwise a late wake-up of the pinger itself would be counted
 * as network latency.
 */
static void wait_until(const struct ping *p, uint64_t t)
{
	if (p->mode == MODE_EVENT && t > now_ns() + SLEEP_MARGIN_NS) {
		uint64_t wake = t - SLEEP_MARGIN_NS;
		struct timespec ts = { .tv_sec = (time_t)(wake / 1000000000u),
				       .tv_nsec = (long)(wake % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	for (uint64_t n; (n = now_ns()) < t;)
		if (t - n > YIELD_AFTER_NS)
			sched_yield();
		else
			relax();
}

struct run_opts {
	uint64_t count, warmup, rate_hz;
};

static int measure(struct ping *p, const struct run_opts *o, struct lhist *rtt,
		   uint64_t *late)
{
	uint32_t seq = p->mode == MODE_RING ? 0 : rfm_load32(p->base, p->offset + SEQ_OFF);
	uint64_t period = o->rate_hz ? 1000000000u / o->rate_hz : 0;
	uint64_t start = 0;
	int ret;

	*late = 0;
	if (period)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	for (uint64_t i = 0; i < o->warmup; i++) {
		ret = round_trip(p, ++seq, now_ns(), 0);
		if (ret)
			return ret;
	}
	start = now_ns();
	for (uint64_t i = 0; i < o->count; i++) {
		uint64_t stamp;

		if (period) {
			stamp = start + i * period;
			uint64_t t = now_ns();
			if (t < stamp)
				wait_until(p, stamp);
			else if (t - stamp >= period)
				(*late)++;	/* a whole period behind: a stall upstream */
		} else {
			stamp = now_ns();
		}
		ret = round_trip(p, ++seq, stamp, 0);
		if (ret)
			return ret;
		lhist_record(rtt, now_ns() - stamp);
	}
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

/* Answer request @seq; a stop request is answered too, so no stale one remains. */
static int answer(struct ping *p, uint32_t seq, bool *stop)
{
	uint32_t size = rfm_load32(p->base, p->offset + SIZE_OFF);
	uint32_t flags = rfm_load32(p->base, p->offset + FLAGS_OFF);
	uint32_t sender = rfm_load32(p->base, p->offset + SENDER_OFF);
	uint64_t reply = reply_slot(p, size);

	if (!reply)
		return cli_error(p->cli, "request %u: payload size %u does not fit the window at "
				 "offset %llu", seq, size, (unsigned long long)p->offset);
	uint64_t stamp = rfm_load64(p->base, p->offset + STAMP_OFF);
	rfm_store32(p->base, reply + SIZE_OFF, size);
	rfm_store64(p->base, reply + STAMP_OFF, stamp);
	if (size)
		memmove(p->base + reply + HDR, p->base + p->offset + HDR, size);
	rfm_store32_release(p->base, reply + SEQ_OFF, seq);
	*stop = flags & FLAG_STOP;
	if (p->mode == MODE_EVENT && !*stop && sender <= RFM_NODE_ID_MAX &&
	    rfm_event_send(p->cli->node, sender, RFM_EVENT_INTR1, seq) < 0)
		return cli_fail(p->cli);
	return 0;
}

/*
 * Answer requests until a stop request, @max_echoes of them (0: no limit)
 * or the timeout (CLI_EXIT_NOMATCH). In event mode the handle must have
 * INTR1 enabled before this starts, so that nothing falls between the
 * pending check and the first wait.
 */
static int echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed)
{
	uint32_t last, seq;
	struct rfm_event ev;
	bool stop = false;
	int ret;

	if (p->mode == MODE_RING)
		return ring_echo_loop(p, max_echoes, echoed);
	last = last_answered(p);
	*echoed = 0;
	for (;;) {
		seq = rfm_load32_acquire(p->base, p->offset + SEQ_OFF);
		if (seq == last) {
			if (p->mode == MODE_SPIN)
				ret = spin_for(p, p->offset, last, 0, false, &seq);
			else
				ret = event_for(p, 0, false, &ev);
			if (ret == RFM_ETIMEDOUT)
				return CLI_EXIT_NOMATCH;
			if (ret)
				return cli_fail(p->cli);
			continue;	/* an event may be stale: look at the slot again */
		}
		ret = answer(p, seq, &stop);
		if (ret)
			return ret;
		last = seq;
		if (stop)
			return 0;
		if (++*echoed == max_echoes)
			return 0;
	}
}

/* ---- options ---- */

enum {
	OPT_ECHO = 0x2000,
	OPT_LOCAL,
	OPT_WARMUP,
	OPT_RATE,
	OPT_SIZE,
	OPT_CPU,
	OPT_PEER,
	OPT_TIMEOUT,
	OPT_HIST_CSV,
	OPT_OFFSET,
};

static const struct option ping_options[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "count", required_argument, NULL, 'c' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "peer", required_argument, NULL, OPT_PEER },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "hist-csv", required_argument, NULL, OPT_HIST_CSV },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "echo", no_argument, NULL, OPT_ECHO },
	{ "local", no_argument, NULL, OPT_LOCAL },
	{ NULL, 0, NULL, 0 },
};

/* "--cpu A" or "--cpu A,B": this process on A, the --local echoer on B. */
static int parse_cpus(struct cli *cli, const char *text, int cpus[2])
{
	char first[32];
	const char *comma = strchr(text, ',');
	uint64_t v;
	int ret;

	if (comma && (size_t)(comma - text) >= sizeof(first))
		return cli_usage_error(cli, "bad --cpu '%s'", text);
	snprintf(first, sizeof(first), "%.*s", comma ? (int)(comma - text) : (int)strlen(text),
		 text);
	ret = cli_parse_u64(cli, "CPU", first, CPU_SETSIZE - 1, &v);
	if (ret)
		return ret;
	cpus[0] = (int)v;
	if (comma) {
		ret = cli_parse_u64(cli, "CPU", comma + 1, CPU_SETSIZE - 1, &v);
		if (ret)
			return ret;
		cpus[1] = (int)v;
	}
	return 0;
}

static int pin(struct cli *cli, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return cli_error(cli, "cannot run on CPU %d: %s", cpu, strerror(errno));
	return 0;
}

/*
 * The URI of the --local echoer: the pinger's URI without its node=
 * parameter, so that the child takes the first free id.
 */
static char *uri_without_node(const char *uri)
{
	char *copy = malloc(strlen(uri) + 1), *q = strchr(uri, '?');
	size_t n;

	if (!copy)
		return NULL;
	if (!q) {
		strcpy(copy, uri);
		return copy;
	}
	n = (size_t)(q - uri);
	memcpy(copy, uri, n);
	copy[n] = 0;
	char sep = '?';
	for (const char *param = q + 1; *param;) {
		size_t len = strcspn(param, "&");
		if (strncmp(param, "node=", 5)) {
			size_t at = strlen(copy);
			copy[at] = sep;
			memcpy(copy + at + 1, param, len);
			copy[at + 1 + len] = 0;
			sep = '&';
		}
		param += len;
		if (*param == '&')
			param++;
	}
	return copy;
}

/* The forked echoer of --local: reports its node id on @ready_fd, then echoes. */
static int local_echoer(struct ping *parent, int cpu, int ready_fd)
{
	struct cli cli = *parent->cli;
	struct ping p = *parent;
	char *uri = uri_without_node(cli_effective_uri(parent->cli));
	int id = -1;

	cli.node = NULL;
	cli.uri = uri;
	p.cli = &cli;
	p.out = NULL;	/* the parent's: this side produces the reply ring */
	p.in = NULL;
	p.msg = NULL;
	if (uri && !pin(&cli, cpu) && !cli_open(&cli) &&
	    (p.mode != MODE_EVENT || !rfm_event_enable(cli.node, RFM_EVENT_BIT(RFM_EVENT_INTR1))) &&
	    !rfm_event_set_spin(cli.node, p.mode == MODE_RING ? YIELD_AFTER_NS : 0) &&
	    !rfm_mem_map(cli.node, (void **)&p.base, NULL))
		id = rfm_node_id(cli.node);
	if (id < 0 && uri)
		cli_fail(&cli);
	/* The request ring exists already: the parent made it before forking. */
	if (id >= 0 && p.mode == MODE_RING && ring_echo_setup(&p))
		id = -1;
	if (write(ready_fd, &id, sizeof(id)) != sizeof(id) || id < 0)
		return 1;
	close(ready_fd);
	p.timeout_ns = -1;	/* the parent stops us (a stop request, or a kill) */
	uint64_t echoed;
	int ret = echo_loop(&p, 0, &echoed);
	rfm_ring_close(p.out);
	rfm_ring_consumer_close(p.in);
	free(p.msg);
	rfm_close(cli.node);
	free(uri);
	return ret;
}

static struct json_object *summary_json(const struct lhist *h, unsigned int div)
{
	struct json_object *o = json_object_new_object();

	cli_json_add_u64(o, "min_ns", h->min / div);
	cli_json_add_u64(o, "mean_ns", (uint64_t)(lhist_mean(h) / div + 0.5));
	cli_json_add_u64(o, "p50_ns", lhist_quantile(h, 0.50) / div);
	cli_json_add_u64(o, "p90_ns", lhist_quantile(h, 0.90) / div);
	cli_json_add_u64(o, "p99_ns", lhist_quantile(h, 0.99) / div);
	cli_json_add_u64(o, "p999_ns", lhist_quantile(h, 0.999) / div);
	cli_json_add_u64(o, "max_ns", h->max / div);
	return o;
}

static void print_row(const char *what, const struct lhist *h, unsigned int div)
{
	printf("  %-10s %8llu %8.0f %8llu %8llu %8llu %8llu %9llu\n", what,
	       (unsigned long long)(h->min / div), lhist_mean(h) / div,
	       (unsigned long long)(lhist_quantile(h, 0.50) / div),
	       (unsigned long long)(lhist_quantile(h, 0.90) / div),
	       (unsigned long long)(lhist_quantile(h, 0.99) / div),
	       (unsigned long long)(lhist_quantile(h, 0.999) / div),
	       (unsigned long long)(h->max / div));
}

static void report(struct ping *p, const struct run_opts *o, const struct lhist *h,
		   uint64_t late)
{
	if (p->cli->json) {
		struct json_object *obj = summary_json(h, 1);

		cli_json_add_string(obj, "mode", mode_names[p->mode]);
		cli_json_add_u64(obj, "count", h->count);
		cli_json_add_u64(obj, "warmup", o->warmup);
		cli_json_add_u64(obj, "size", p->size);
		cli_json_add_u64(obj, "rate_hz", o->rate_hz);
		cli_json_add_u64(obj, "late_sends", late);
		cli_json_add_u64(obj, "node", (uint64_t)rfm_node_id(p->cli->node));
		if (p->mode == MODE_EVENT)
			cli_json_add_u64(obj, "peer", p->peer);
		cli_json_add_u64(obj, "offset", p->offset);
		json_object_object_add(obj, "one_way", summary_json(h, 2));
		cli_json_print(obj);
		return;
	}
	printf("rfm ping: %s mode, %llu round trips", mode_names[p->mode],
	       (unsigned long long)h->count);
	if (p->mode == MODE_EVENT)
		printf(" with node %u", p->peer);
	printf(", %u-byte payload, ", p->size);
	if (o->rate_hz)
		printf("%llu per second (%llu sends late by a period or more)\n",
		       (unsigned long long)o->rate_hz, (unsigned long long)late);
	else
		printf("back to back\n");
	printf("  %-10s %8s %8s %8s %8s %8s %8s %9s  (ns)\n", "", "min", "mean", "P50", "P90",
	       "P99", "P99.9", "max");
	print_row("round trip", h, 1);
	print_row("one way", h, 2);
	printf("round trips:\n");
	lhist_print_text(h, stdout, "  ");
}

static int ping_run(struct cli *cli, int argc, char **argv)
{
	struct ping p = { .cli = cli, .mode = MODE_SPIN, .timeout_ns = 1000 * MS };
	struct run_opts o = { .count = 10000, .warmup = 1000 };
	const char *csv_path = NULL, *peer_text = NULL, *mode_text = "spin";
	bool echo = false, local = false, timeout_given = false;
	int cpus[2] = { -1, -1 }, opt, ret;
	uint64_t v;

	while ((opt = cli_getopt(cli, argc, argv, "m:c:", ping_options)) > 0) {
		ret = 0;
		switch (opt) {
		case 'm':
			mode_text = optarg;
			break;
		case 'c':
			ret = cli_parse_u64(cli, "count", optarg, UINT32_MAX, &o.count);
			break;
		case OPT_WARMUP:
			ret = cli_parse_u64(cli, "warmup", optarg, UINT32_MAX, &o.warmup);
			break;
		case OPT_RATE:
			ret = cli_parse_u64(cli, "rate", optarg, 1000000000, &o.rate_hz);
			break;
		case OPT_SIZE:
			ret = cli_parse_u64(cli, "size", optarg, MAX_PAYLOAD, &v);
			p.size = (uint32_t)v;
			break;
		case OPT_CPU:
			ret = parse_cpus(cli, optarg, cpus);
			break;
		case OPT_PEER:
			peer_text = optarg;
			break;
		case OPT_TIMEOUT:
			ret = cli_parse_u64(cli, "timeout", optarg, INT64_MAX / MS, &v);
			p.timeout_ns = (int64_t)v * MS;
			timeout_given = true;
			break;
		case OPT_HIST_CSV:
			csv_path = optarg;
			break;
		case OPT_OFFSET:
			ret = cli_parse_u64(cli, "offset", optarg, UINT64_MAX, &p.offset);
			break;
		case OPT_ECHO:
			echo = true;
			break;
		case OPT_LOCAL:
			local = true;
			break;
		}
		if (ret)
			return ret;
	}
	if (opt == CLI_OPT_STOP)
		return cli->status;
	ret = cli_check_args(cli, argc, argv, 0, 0);
	if (ret)
		return ret;
	if (!strcmp(mode_text, "spin"))
		p.mode = MODE_SPIN;
	else if (!strcmp(mode_text, "event"))
		p.mode = MODE_EVENT;
	else if (!strcmp(mode_text, "ring"))
		p.mode = MODE_RING;
	else
		return cli_usage_error(cli, "unknown mode '%s' (use spin, event or ring)",
				       mode_text);
	if (p.offset % 8)
		return cli_usage_error(cli, "offset %llu is not a multiple of 8",
				       (unsigned long long)p.offset);
	if (p.mode == MODE_RING && p.offset % 64)
		return cli_usage_error(cli, "ring mode: offset %llu is not a multiple of 64",
				       (unsigned long long)p.offset);
	if (p.mode == MODE_RING && peer_text)
		return cli_usage_error(cli, "ring mode takes no --peer (the rings say who "
				       "answers)");
	if (echo && local)
		return cli_usage_error(cli, "--echo and --local exclude each other");
	if (echo && (csv_path || o.rate_hz || peer_text))
		return cli_usage_error(cli, "--echo takes only --mode, --count, --offset, --cpu "
				       "and --timeout");
	if (!o.count && !echo)
		return cli_usage_error(cli, "count must be at least 1");
	if (peer_text) {
		ret = cli_parse_u64(cli, "peer node", peer_text, RFM_NODE_ID_MAX, &v);
		if (ret)
			return ret;
		p.peer = (unsigned int)v;
	} else if (p.mode == MODE_EVENT && !echo && !local) {
		return cli_usage_error(cli, "event mode needs --peer NODE (or --local)");
	}
	if (echo && !timeout_given)
		p.timeout_ns = -1;

	FILE *csv = NULL;
	if (csv_path && !(csv = fopen(csv_path, "w")))
		return cli_error(cli, "cannot write '%s': %s", csv_path, strerror(errno));

	pid_t child = -1;
	struct lhist *hist = NULL;
	uint64_t late = 0;
	p.payload = calloc(1, p.size ? p.size : 1);
	ret = pin(cli, cpus[0]);
	if (ret || !p.payload)
		goto out;
	for (uint32_t i = 0; i < p.size; i++)
		p.payload[i] = (uint8_t)i;
	ret = cli_open(cli);
	if (ret)
		goto out;
	if (rfm_mem_map(cli->node, (void **)&p.base, NULL) ||
	    (p.mode == MODE_EVENT &&
	     (rfm_event_enable(cli->node, RFM_EVENT_BIT(RFM_EVENT_INTR1)) ||
	      rfm_event_set_spin(cli->node, 0))) ||
	    /* Ring takes spin as spin mode does, then poll with yields. */
	    (p.mode == MODE_RING && rfm_event_set_spin(cli->node, YIELD_AFTER_NS))) {
		ret = cli_fail(cli);
		goto out;
	}
	/* Both slots (rings), at the largest payload the echoer will accept. */
	if (p.mode != MODE_RING)
		ret = cli_check_range(cli, p.offset, 2 * slot_span(p.size));
	else if (!echo)
		ret = ring_ping_setup(&p);
	if (ret)
		goto out;

	if (echo) {
		uint64_t echoed;

		ret = pin(cli, cpus[0]);
		if (!ret && p.mode == MODE_RING)
			ret = ring_echo_setup(&p);
		if (!ret)
			ret = echo_loop(&p, o.count, &echoed);
		if (ret == CLI_EXIT_NOMATCH)
			cli_error(cli, "no request within %lld ms", (long long)(p.timeout_ns / MS));
		if (ret)
			goto out;
		if (cli->json) {
			struct json_object *obj = json_object_new_object();
			cli_json_add_string(obj, "mode", mode_names[p.mode]);
			cli_json_add_u64(obj, "echoed", echoed);
			cli_json_print(obj);
		} else {
			printf("echoed %llu request(s)\n", (unsigned long long)echoed);
		}
		goto out;
	}

	if (local) {
		int ready[2], id = -1;

		if (pipe(ready)) {
			ret = cli_error(cli, "pipe: %s", strerror(errno));
			goto out;
		}
		fflush(NULL);
		child = fork();
		if (child == 0) {
			close(ready[0]);
			_exit(local_echoer(&p, cpus[1], ready[1]));
		}
		close(ready[1]);
		if (child < 0 || read(ready[0], &id, sizeof(id)) != sizeof(id) || id < 0) {
			close(ready[0]);
			ret = child < 0 ? cli_error(cli, "fork: %s", strerror(errno))
					: CLI_EXIT_FAILED;	/* the child said why */
			goto out;
		}
		close(ready[0]);
		p.peer = (unsigned int)id;
	}
	if (p.mode == MODE_RING) {
		struct rfm_ring_config c = ring_config(RING_HDR + p.size);

		ret = ring_open_peer(&p, p.offset + ring_span(&c), "echo");
		if (!ret)
			ret = round_trip(&p, 0, 0, FLAG_HELLO);
		if (ret)
			goto out;
	}

	hist = malloc(sizeof(*hist));
	if (!hist) {
		ret = cli_error(cli, "out of memory");
		goto out;
	}
	lhist_init(hist);
	ret = measure(&p, &o, hist, &late);
	if (local && !ret) {
		/* Ask the echoer to leave; it needs no answer. */
		ret = round_trip(&p, p.last_seq + 1, 0, FLAG_STOP);
	}
	if (ret)
		goto out;
	report(&p, &o, hist, late);
	if (csv && lhist_write_csv(hist, csv))
		ret = cli_error(cli, "cannot write '%s': %s", csv_path, strerror(errno));

out:
	if (child > 0) {
		int status;
		if (ret)
			kill(child, SIGKILL);
		waitpid(child, &status, 0);
		if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			ret = cli_error(cli, "the local echoer failed");
	}
	if (csv && fclose(csv) && !ret)
		ret = cli_error(cli, "cannot write '%s': %s", csv_path, strerror(errno));
	rfm_ring_close(p.out);
	rfm_ring_consumer_close(p.in);
	free(p.msg);
	free(hist);
	free(p.payload);
	return ret;
}

const struct cli_command cli_cmd_ping = {
	.name = "ping",
	.args = "[--local | --echo | --peer NODE] [--mode spin|event|ring] [OPTIONS]",
	.summary = "Measure round-trip latency to another node (latency histogram)",
	.help = "Node A (this command) writes a timestamp, node B echoes it back, A measures\n"
		"the round trip; one way is half of it. Run 'rfm ping --echo' on the other\n"
		"node first, or use --local to fork the echoer on a second node of the same\n"
		"network. Both sides must use the same --mode and --offset.\n"
		"\n"
		"Modes:\n"
		"  spin    the peers spin on a sequence word (data, then the sequence)\n"
		"  event   the peers sleep in rfm_event_wait() for an INTR1 that follows the\n"
		"          data (network interrupts; blocking, no spinning)\n"
		"  ring    each side publishes on its own ring (rfm_ring_publish()) and\n"
		"          consumes the other's (rfm_ring_consume(), polling): the request\n"
		"          ring at --offset, the reply ring right after it\n"
		"\n"
		"Options:\n"
		"  -m, --mode MODE      spin (default), event or ring\n"
		"  -c, --count N        round trips to measure (default 10000); with --echo,\n"
		"                       requests to answer before exiting (default: no limit)\n"
		"      --warmup N       round trips before measuring (default 1000)\n"
		"      --rate HZ        send HZ times a second on a fixed schedule, timing\n"
		"                       each round trip from its intended send time so that\n"
		"                       stalls are not hidden (default: back to back)\n"
		"      --size BYTES     payload carried each way, 0..65536 (default 0)\n"
		"      --cpu A[,B]      run on CPU A (the --local echoer on CPU B)\n"
		"      --peer NODE      the echoer's node id (event mode without --local)\n"
		"      --timeout MS     give up on a round trip after MS ms (default 1000);\n"
		"                       with --echo, on a request (default: wait forever)\n"
		"      --offset OFF     where the two slots lie (default 0; multiple of 8);\n"
		"                       ping uses 2 x (32 + size rounded up to 64) bytes;\n"
		"                       ring mode: two rings of 8 slots of 16 + size bytes\n"
		"                       (multiple of 64)\n"
		"      --hist-csv FILE  write the histogram: low_ns,high_ns,count,cumulative\n"
		"      --echo           be the echo side\n"
		"      --local          fork the echo side on another node of this network\n"
		"\n"
		"Output: min, mean, P50, P90, P99, P99.9 and max of the round trip and of\n"
		"one way, then a histogram in powers of two. Percentiles come from a log\n"
		"histogram (64 buckets per power of two: within 1.6 %).\n"
		"JSON keys: mode, count, warmup, size, rate_hz, late_sends, node, peer (event),\n"
		"offset, min_ns, mean_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns, and one_way\n"
		"with the same *_ns keys. --echo --json prints mode and echoed.\n"
		"Exit 3 when no echo (or, with --echo, no request) came within the timeout.\n",
	.run = ping_run,
};
