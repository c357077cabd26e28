/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping, shared between its files: the state of one side, its options,
 * and the transports. ping-slot.c carries requests in two slots of the
 * window (spin mode; event mode with ping-event.c's interrupts),
 * ping-ring.c on two rings (ring mode). cmd-ping.c is the core (set up,
 * measure), ping-options.c parses, ping-echoer.c answers (--echo, and the
 * forked --local echoer), ping-report.c prints the result.
 */
#ifndef RFM_TOOLS_PING_H
#define RFM_TOOLS_PING_H

#include <sched.h>

#include <rfm/ring.h>

#include "cli.h"
#include "latency-hist.h"
#include "rt-util.h"

#define MS 1000000LL
#define FLAG_STOP 1u		/* the pinger is done: the echoer exits */
#define FLAG_HELLO 2u		/* a handshake opening a session, not counted */
#define MAX_PAYLOAD 65536u
#define YIELD_AFTER_NS 50000u	/* spin this long before yielding the CPU */
#define RING_HDR 16u		/* ring message header: seq, flags, stamp */

enum ping_mode { MODE_SPIN, MODE_EVENT, MODE_RING };
extern const char *const ping_mode_names[]; /* ping-options.c */

/* How to move ping's slots or rings off another node's region of $RFM_LAYOUT. */
#define PING_OFFSET_HINT "give --offset outside the other nodes' regions, or unset RFM_LAYOUT"

struct ping {
	struct cli *cli;
	enum ping_mode mode;
	uint8_t *base;		/* the mapped window */
	uint64_t offset;	/* of the request slot */
	uint32_t size;		/* payload bytes */
	int64_t timeout_ns;	/* per round trip (echo: idle); < 0 forever */
	unsigned int peer;	/* event mode: the echoer's node id */
	uint8_t *payload;	/* what the pinger sends */
	/*
	 * Slot modes: the pinger's session, fresh for each run and carried
	 * in every request; the echoer answers only the session whose
	 * hello it saw, so a request an aborted run left behind is ignored.
	 */
	uint32_t session;
	rfm_ring *out;		/* ring mode: the ring this side produces */
	rfm_ring_consumer *in;	/* ring mode: the peer's ring */
	uint8_t *msg;		/* ring mode: one message (header + payload) */
	uint32_t msg_cap;	/* its bytes */
	uint32_t last_seq;	/* of the last request sent */
};

/* What rfm ping's options say beside struct ping. */
struct ping_opts {
	uint64_t count;		/* round trips to measure; --echo: answers (0: no limit) */
	uint64_t warmup;
	uint64_t rate_hz;	/* 0: back to back */
	const char *csv_path;	/* --hist-csv */
	bool echo, local;
	struct rt_setup rt;	 /* this process: --rt-prio, --cpu, --lock-memory */
	struct rt_setup echo_rt; /* the --local echoer: the same, on --echo-cpu if given */
};

static inline uint64_t now_ns(void)
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

/* Outcome of a transport's round trip, before cmd-ping.c words it. */
#define PING_INTERRUPTED 1	/* Ctrl-C: stop and report what was measured */

/* ---- options (ping-options.c) ---- */

/* The options of the command line, as the help in cmd-ping.c lists them. */
extern const struct option ping_options[];

/*
 * Parse and check the options into @p and @o (defaults already there).
 * 0 to go on; else the exit status (CLI_EXIT_DONE after --help).
 */
int ping_parse_options(struct cli *cli, int argc, char **argv, struct ping *p,
		       struct ping_opts *o);

/* ---- the echo side (ping-echoer.c) ---- */

/* rfm ping --echo: answer until stopped (or o->count answered), then say how many. */
int ping_run_echo(struct ping *p, const struct ping_opts *o);

/*
 * The --local echoer on a second node of the pinger's network, run by
 * the echoer's side: opens its node, calls @ready with its node id (-1
 * when it could not, after saying why), then echoes until stopped.
 * Returns the echoer's exit status.
 */
int ping_local_echoer(struct ping *parent, const struct rt_setup *rt,
		      void (*ready)(void *arg, int id), void *arg);

/*
 * The --local echoer's process (Linux: forked; Windows: a thread, as
 * Windows cannot fork; tools/os/.../ping-local.c).
 */
struct ping_local;

/* rfm ping --local: start the echoer; *local its handle, p->peer its node. */
int ping_start_local_echoer(struct ping *p, const struct ping_opts *o, struct ping_local **local);

/*
 * Reap the --local echoer @local (NULL: none; stopped first unless @ret
 * is 0); the exit status: @ret, or a failure if the echoer failed.
 */
int ping_reap_local_echoer(struct cli *cli, struct ping_local *local, int ret);

/* ---- the report (ping-report.c) ---- */

void ping_report(const struct ping *p, const struct ping_opts *o, const struct lhist *h,
		 uint64_t late, bool interrupted);

/* ---- event mode's interrupts (ping-event.c) ---- */

/*
 * Wait for an INTR1 whose data is @want (any, when !match): 0, a library
 * error, or PING_INTERRUPTED.
 */
int event_for(const struct ping *p, uint32_t want, bool match);

/* Interrupt the echoer about request @seq, waiting up to the timeout for it to attach. */
int event_send_request(struct ping *p, uint32_t seq);

/* Tell the pinger (node @sender) that request @seq is answered. */
int event_notify(struct ping *p, uint32_t sender, uint32_t seq);

/* ---- slots (ping-slot.c) ---- */

/* Bytes the two slots of @size payload bytes take from --offset. */
uint64_t slot_pair_span(uint32_t size);

/*
 * One request @seq stamped @stamp with @flags, and its echo: 0, a library
 * error (RFM_ETIMEDOUT...), PING_INTERRUPTED, or an exit status already
 * reported (CLI_EXIT_*, > PING_INTERRUPTED).
 */
int slot_round_trip(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags,
		    uint64_t *echoed);

/* The seq of the request slot now: the pinger continues from it. */
uint32_t slot_last_seq(const struct ping *p);

/*
 * Answer requests until a stop request, @max_echoes of them (0: no limit),
 * the idle timeout (CLI_EXIT_NOMATCH) or Ctrl-C (PING_INTERRUPTED).
 */
int slot_echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed);

/* ---- rings (ping-ring.c) ---- */

/* The offset of the echoer's reply ring for @size payload bytes. */
uint64_t ring_reply_offset(const struct ping *p, uint32_t size);

/* The pinger's side: its request ring and message buffer. */
int ring_ping_setup(struct ping *p);

/* The echoer's side: consume the request ring, produce a reply ring of its shape. */
int ring_echo_setup(struct ping *p);

/* Consume the peer's ring at @offset, waiting up to the timeout for it. */
int ring_open_peer(struct ping *p, uint64_t offset, const char *what);

/* As slot_round_trip(); FLAG_HELLO makes it the handshake. */
int ring_round_trip(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags,
		    uint64_t *echoed);

/* As slot_echo_loop(), from ring to ring. */
int ring_echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed);

#endif /* RFM_TOOLS_PING_H */
