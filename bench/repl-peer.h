/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding the other node of a two-node benchmark on a network where nodes
 * appear by discovery (dds:): say hello (INTR1, data 0) until the peer
 * answers, as rfm_event_send() fails with RFM_ENODE until then. Shared by
 * bench-repl-write and bench-event-rtt.
 */
#ifndef BENCH_REPL_PEER_H
#define BENCH_REPL_PEER_H

#include <stdio.h>

#include <rfm/rfm.h>

#include "stats.h"

#define REPL_FIND_NS 20000000000 /* the peer must answer within 20 s */
#define REPL_STEP_NS 100000000	 /* hello every 100 ms until then */

/* Waits up to timeout_ns for @type from @from with @data; skips other records. */
static inline int repl_wait(rfm_node *node, unsigned int type, unsigned int from, uint32_t data,
			    int64_t timeout_ns)
{
	uint64_t end = bench_now_ns() + (uint64_t)timeout_ns;
	struct rfm_event ev;

	for (;;) {
		uint64_t now = bench_now_ns();
		int rc;

		if (now >= end)
			return RFM_ETIMEDOUT;
		rc = rfm_event_wait(node, &ev, (int64_t)(end - now));
		if (rc)
			return rc;
		if (ev.type == type && ev.sender == from && ev.data == data)
			return 0;
	}
}

/* Says hello to @peer until it answers with @answer_type, data 0. */
static inline int repl_find_peer(rfm_node *node, unsigned int peer, unsigned int answer_type,
				 const char *who)
{
	uint64_t end = bench_now_ns() + REPL_FIND_NS;

	while (bench_now_ns() < end) {
		int rc = rfm_event_send(node, peer, RFM_EVENT_INTR1, 0);

		if (rc < 0 && rc != RFM_ENODE) {
			fprintf(stderr, "%s: hello: %s\n", who, rfm_last_error());
			return -1;
		}
		rc = repl_wait(node, answer_type, peer, 0, REPL_STEP_NS);
		if (rc == 0)
			return 0;
		if (rc != RFM_ETIMEDOUT) {
			fprintf(stderr, "%s: waiting for node %u: %s\n", who, peer, rfm_last_error());
			return -1;
		}
	}
	fprintf(stderr, "%s: node %u did not answer in %d s\n", who, peer,
		(int)(REPL_FIND_NS / 1000000000));
	return -1;
}

#endif /* BENCH_REPL_PEER_H */
