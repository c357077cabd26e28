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
 *   bench-event-rtt echo URI SIZE
 *       print "ready", answer until the pinger says stop
 *   bench-event-rtt ping URI PEER SIZE COUNT [WARMUP]
 *       find PEER, time COUNT round trips after WARMUP (default 1000),
 *       print one JSON object: count, size, min_ns, p50_ns, p99_ns,
 *       p999_ns, max_ns
 *
 * The request lies at offset 0, the reply at 64 KiB: the window needs
 * 64 KiB + SIZE bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/rfm.h>

#include "repl-peer.h"
#include "stats.h"

#define REQUEST_OFF 0u
#define REPLY_OFF 65536u
#define MAX_SIZE 65536u
#define STOP 0xffffffffu	  /* INTR1 data: the run is over */
#define ANSWER_NS 5000000000	  /* a round trip within 5 s */
#define IDLE_NS 60000000000	  /* the echoer gives up after 60 s of silence */

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
	for (uint32_t i = 0; i < warmup + count; i++) {
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
		if (i >= warmup)
			rtt[i - warmup] = bench_now_ns() - t0;
		if (check_payload(rep, seq, "reply"))
			goto out;
	}
	if (rfm_event_send(node, peer, RFM_EVENT_INTR1, STOP) < 0)
		fail("stopping the echoer"); /* the figures stand; the echoer times out */
	bench_sort_u64(rtt, count);
	printf("{\"count\": %u, \"size\": %u, \"min_ns\": %llu, \"p50_ns\": %llu, "
	       "\"p99_ns\": %llu, \"p999_ns\": %llu, \"max_ns\": %llu}\n",
	       count, size, (unsigned long long)rtt[0],
	       (unsigned long long)bench_quantile_u64(rtt, count, 0.5),
	       (unsigned long long)bench_quantile_u64(rtt, count, 0.99),
	       (unsigned long long)bench_quantile_u64(rtt, count, 0.999),
	       (unsigned long long)rtt[count - 1]);
	rc = 0;
out:
	if (node)
		rfm_close(node);
	free(rtt);
	free(rep);
	free(req);
	return rc;
}

int main(int argc, char **argv)
{
	uint32_t peer, size, count, warmup = 1000;

	if (argc == 4 && !strcmp(argv[1], "echo") && !bench_parse_u32(argv[3], 4, MAX_SIZE, &size))
		return echo(argv[2], size);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "ping") &&
	    !bench_parse_u32(argv[3], 0, 255, &peer) && !bench_parse_u32(argv[4], 4, MAX_SIZE, &size) &&
	    !bench_parse_u32(argv[5], 1, 10000000, &count) &&
	    (argc == 6 || !bench_parse_u32(argv[6], 0, 10000000, &warmup)))
		return ping(argv[2], peer, size, count, warmup);
	fprintf(stderr, "usage: bench-event-rtt echo URI SIZE\n"
			"       bench-event-rtt ping URI PEER SIZE COUNT [WARMUP]\n"
			"       (SIZE 4..65536, PEER 0..255, COUNT 1..10000000)\n");
	return 2;
}
