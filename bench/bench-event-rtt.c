/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event round trip with a payload each way, through the library only, as
 * ddsperf's ping-pong does it: the pinger writes SIZE bytes
 * (rfm_mem_write), sends INTR1 with the sequence number and sleeps in
 * rfm_event_wait(); the echoer, woken by it, reads the request
 * (rfm_mem_read), writes its reply and answers with INTR1; the pinger reads
 * the reply. Interrupts follow the data, so each side checks the payload it
 * reads carries the sequence number of the interrupt. On dds: every write
 * travels to the other node's copy; bench-hosts.py runs it between two
 * network namespaces beside ddsperf and raw UDP.
 *
 * The -cb modes do the same from INTR1 callbacks, as ddsperf's default
 * (listener) ping-pong answers from its listener: the echoer answers
 * inside its callback; the pinger's callback checks the reply, takes the
 * time and sends the next ping itself, and posts the main thread only at
 * the end. With dds:...&callbacks=receive the callbacks run on the thread
 * that receives the event, as ddsperf's listener does.
 *
 *   bench-event-rtt echo|echo-cb URI SIZE
 *       print "ready", answer until the pinger says stop
 *   bench-event-rtt ping|ping-cb URI PEER SIZE COUNT [WARMUP]
 *       find PEER, time COUNT round trips after WARMUP (default 1000) and
 *       after the first second, print one JSON object: count, size,
 *       min_ns, p50_ns, p99_ns, p999_ns, max_ns
 *
 * The first second is left out as ddsperf leaves it out: while Cyclone's
 * discovery still runs, its threads keep the CPUs awake and a round trip
 * pays no wake-up of a sleeping CPU (a short run read 20 µs there, 106 µs
 * after it, on an idle 2-CPU VM).
 *
 * The request lies at offset 0, the reply at 64 KiB: the window needs
 * 64 KiB + SIZE bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rfm/rfm.h>

#include "repl-peer.h"
#include "stats.h"

#define REQUEST_OFF 0u
#define REPLY_OFF 65536u
#define MAX_SIZE 65536u
#define STOP 0xffffffffu	  /* INTR1 data: the run is over */
#define ANSWER_NS 5000000000	  /* a round trip within 5 s */
#define IDLE_NS 60000000000	  /* the echoer gives up after 60 s of silence */
#define SETTLE_NS 1000000000	  /* round trips in the first second are not timed */

static int fail(const char *what)
{
	fprintf(stderr, "bench-event-rtt: %s: %s\n", what, rfm_last_error());
	return 1;
}

static rfm_node *open_node(const char *uri)
{
	rfm_node *node;

	if (rfm_open(uri, &node)) {
		fail(uri);
		return NULL;
	}
	if (rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1))) {
		fail("rfm_event_enable");
		rfm_close(node);
		return NULL;
	}
	return node;
}

/* Does the payload read back carry sequence number seq? */
static int check_payload(const unsigned char *buf, uint32_t seq, const char *which)
{
	uint32_t got;

	memcpy(&got, buf, sizeof(got));
	if (got == seq)
		return 0;
	fprintf(stderr, "bench-event-rtt: %s for %u carries %u: the interrupt overtook the data\n",
		which, seq, got);
	return -1;
}

static int echo(const char *uri, uint32_t size)
{
	unsigned char *buf = calloc(1, size);
	rfm_node *node = buf ? open_node(uri) : NULL;
	struct rfm_event ev;
	int rc = 1;

	if (!node)
		goto out;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (rfm_event_wait(node, &ev, IDLE_NS)) {
			fail("waiting for the pinger");
			goto out;
		}
		if (ev.type != RFM_EVENT_INTR1)
			continue;
		if (ev.data == STOP)
			break;
		if (ev.data != 0) {
			if (rfm_mem_read(node, REQUEST_OFF, buf, size)) {
				fail("reading the request");
				goto out;
			}
			if (check_payload(buf, ev.data, "request"))
				goto out;
			if (rfm_mem_write(node, REPLY_OFF, buf, size)) {
				fail("writing the reply");
				goto out;
			}
		}
		/* data 0 is the pinger's hello: answer it the same way. */
		if (rfm_event_send(node, ev.sender, RFM_EVENT_INTR1, ev.data) < 0) {
			fail("answering");
			goto out;
		}
	}
	rc = 0;
out:
	if (node)
		rfm_close(node);
	free(buf);
	return rc;
}

static int ping(const char *uri, unsigned int peer, uint32_t size, uint32_t count,
		uint32_t warmup)
{
	unsigned char *req = calloc(1, size), *rep = calloc(1, size);
	uint64_t *rtt = calloc(count, sizeof(*rtt));
	rfm_node *node = req && rep && rtt ? open_node(uri) : NULL;
	int rc = 1;

	if (!node)
		goto out;
	if (repl_find_peer(node, peer, RFM_EVENT_INTR1, "bench-event-rtt"))
		goto out;
	memset(req, 0xa5, size);
	uint64_t start = bench_now_ns();
	uint32_t timed = 0;

	for (uint32_t i = 0; timed < count; i++) {
		uint32_t seq = i + 1;
		uint64_t t0 = bench_now_ns();

		memcpy(req, &seq, sizeof(seq));
		if (rfm_mem_write(node, REQUEST_OFF, req, size) ||
		    rfm_event_send(node, peer, RFM_EVENT_INTR1, seq) < 0) {
			fail("sending the request");
			goto out;
		}
		if (repl_wait(node, RFM_EVENT_INTR1, peer, seq, ANSWER_NS)) {
			fail("waiting for the answer");
			goto out;
		}
		if (rfm_mem_read(node, REPLY_OFF, rep, size)) {
			fail("reading the reply");
			goto out;
		}
		if (i >= warmup && t0 - start >= SETTLE_NS)
			rtt[timed++] = bench_now_ns() - t0;
		if (check_payload(rep, seq, "reply"))
			goto out;
	}
	if (rfm_event_send(node, peer, RFM_EVENT_INTR1, STOP) < 0)
		fail("stopping the echoer"); /* the figures stand; the echoer times out */
	bench_print_rtt_json(rtt, count, size);
	rc = 0;
out:
	if (node)
		rfm_close(node);
	free(rtt);
	free(rep);
	free(req);
	return rc;
}

/* ---- the same from callbacks ---- */

/* What the callbacks of one side share with its main thread. */
struct cb_side {
	rfm_node *node;
	unsigned char *buf, *rep;
	uint32_t size;
	unsigned int peer;
	/* pinger: the round trip under way */
	uint32_t seq, done, warmup, count, timed;
	uint64_t start, t0;
	uint64_t *rtt;
	const char *error; /* set before the post: what failed */
	sem_t finished;
};

static void cb_finish(struct cb_side *s, const char *error)
{
	if (error)
		fprintf(stderr, "bench-event-rtt: %s: %s\n", error, rfm_last_error());
	s->error = error;
	sem_post(&s->finished);
}

/* Waits for the callbacks to post, at most @ns; 0 when they did. */
static int cb_wait(struct cb_side *s, int64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000);
	while (sem_timedwait(&s->finished, &ts))
		if (errno != EINTR)
			return -1;
	return s->error ? -1 : 0;
}

static void echo_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct cb_side *s = arg;

	if (ev->data == STOP) {
		cb_finish(s, NULL);
		return;
	}
	if (ev->data != 0) {
		if (rfm_mem_read(node, REQUEST_OFF, s->buf, s->size))
			return cb_finish(s, "reading the request");
		if (check_payload(s->buf, ev->data, "request"))
			return cb_finish(s, "the request");
		if (rfm_mem_write(node, REPLY_OFF, s->buf, s->size))
			return cb_finish(s, "writing the reply");
	}
	if (rfm_event_send(node, ev->sender, RFM_EVENT_INTR1, ev->data) < 0)
		cb_finish(s, "answering");
}

/* The next request: payload, then its interrupt. */
static int cb_send_ping(struct cb_side *s)
{
	s->seq++;
	memcpy(s->buf, &s->seq, sizeof(s->seq));
	s->t0 = bench_now_ns();
	if (rfm_mem_write(s->node, REQUEST_OFF, s->buf, s->size) ||
	    rfm_event_send(s->node, s->peer, RFM_EVENT_INTR1, s->seq) < 0)
		return -1;
	return 0;
}

static void ping_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct cb_side *s = arg;

	/* Late answers to the hellos carry 0. */
	if (ev->sender != s->peer || ev->data != s->seq)
		return;
	if (rfm_mem_read(node, REPLY_OFF, s->rep, s->size))
		return cb_finish(s, "reading the reply");
	if (s->done >= s->warmup && s->t0 - s->start >= SETTLE_NS)
		s->rtt[s->timed++] = bench_now_ns() - s->t0;
	if (check_payload(s->rep, s->seq, "reply"))
		return cb_finish(s, "the reply");
	s->done++;
	if (s->timed == s->count)
		return cb_finish(s, NULL);
	if (cb_send_ping(s))
		cb_finish(s, "sending the request");
}

static int cb_side_init(struct cb_side *s, const char *uri, uint32_t size)
{
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->buf = calloc(1, size);
	s->rep = calloc(1, size);
	sem_init(&s->finished, 0, 0);
	s->node = s->buf && s->rep ? open_node(uri) : NULL;
	return s->node ? 0 : -1;
}

static void cb_side_free(struct cb_side *s)
{
	if (s->node)
		rfm_close(s->node); /* waits for a callback still running */
	sem_destroy(&s->finished);
	free(s->rtt);
	free(s->rep);
	free(s->buf);
}

static int echo_callbacks(const char *uri, uint32_t size)
{
	struct cb_side s;
	int rc = 1;

	if (cb_side_init(&s, uri, size))
		goto out;
	if (rfm_event_callback_register(s.node, RFM_EVENT_INTR1, echo_cb, &s)) {
		fail("rfm_event_callback_register");
		goto out;
	}
	printf("ready\n");
	fflush(stdout);
	/* The pinger stops us; silence for IDLE_NS ends the run too. */
	if (cb_wait(&s, IDLE_NS)) {
		if (!s.error)
			fprintf(stderr, "bench-event-rtt: no stop from the pinger\n");
		goto out;
	}
	rc = 0;
out:
	cb_side_free(&s);
	return rc;
}

static int ping_callbacks(const char *uri, unsigned int peer, uint32_t size, uint32_t count,
			  uint32_t warmup)
{
	struct cb_side s;
	int rc = 1;

	if (cb_side_init(&s, uri, size))
		goto out;
	s.peer = peer;
	s.count = count;
	s.warmup = warmup;
	s.rtt = calloc(count, sizeof(*s.rtt));
	if (!s.rtt)
		goto out;
	if (repl_find_peer(s.node, peer, RFM_EVENT_INTR1, "bench-event-rtt"))
		goto out;
	memset(s.buf, 0xa5, size);
	/*
	 * The first ping, then the callback, which sends the others: from
	 * here on only the callbacks touch @s. An answer that comes before
	 * the callback is registered waits in the queue for it.
	 */
	s.start = bench_now_ns();
	if (cb_send_ping(&s)) {
		fail("sending the request");
		goto out;
	}
	if (rfm_event_callback_register(s.node, RFM_EVENT_INTR1, ping_cb, &s)) {
		fail("rfm_event_callback_register");
		goto out;
	}
	if (cb_wait(&s, (int64_t)ANSWER_NS + SETTLE_NS + (int64_t)(warmup + count) * 1000000)) {
		if (!s.error)
			fprintf(stderr, "bench-event-rtt: the round trips did not finish (%u timed of %u)\n",
				__atomic_load_n(&s.timed, __ATOMIC_RELAXED), count);
		goto out;
	}
	if (rfm_event_send(s.node, peer, RFM_EVENT_INTR1, STOP) < 0)
		fail("stopping the echoer");
	bench_print_rtt_json(s.rtt, count, size);
	rc = 0;
out:
	cb_side_free(&s);
	return rc;
}

int main(int argc, char **argv)
{
	uint32_t peer, size, count, warmup = 1000;

	bool cb = argc > 1 && (!strcmp(argv[1], "echo-cb") || !strcmp(argv[1], "ping-cb"));

	if (argc == 4 && (!strcmp(argv[1], "echo") || cb) &&
	    !bench_parse_u32(argv[3], 4, MAX_SIZE, &size))
		return cb ? echo_callbacks(argv[2], size) : echo(argv[2], size);
	if ((argc == 6 || argc == 7) && (!strcmp(argv[1], "ping") || cb) &&
	    !bench_parse_u32(argv[3], 0, 255, &peer) && !bench_parse_u32(argv[4], 4, MAX_SIZE, &size) &&
	    !bench_parse_u32(argv[5], 1, 10000000, &count) &&
	    (argc == 6 || !bench_parse_u32(argv[6], 0, 10000000, &warmup)))
		return cb ? ping_callbacks(argv[2], peer, size, count, warmup)
			  : ping(argv[2], peer, size, count, warmup);
	fprintf(stderr, "usage: bench-event-rtt echo|echo-cb URI SIZE\n"
			"       bench-event-rtt ping|ping-cb URI PEER SIZE COUNT [WARMUP]\n"
			"       (SIZE 4..65536, PEER 0..255, COUNT 1..10000000)\n");
	return 2;
}
