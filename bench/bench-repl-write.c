/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Replicated write throughput: how many 4 KiB rfm_mem_write() calls per
 * second one node makes that another node's copy then holds. Meant for
 * networks where each node has its own copy (dds:), and run there by
 * bench-hosts.py beside ddsperf's 4 KiB publish/subscribe rate; it works on
 * any backend with events.
 *
 *   bench-repl-write read URI
 *       the receiving node: prints "ready", answers the writer, checks
 *       the window after the last write, exits
 *   bench-repl-write write URI PEER COUNT
 *       the writing node: finds PEER (INTR1 "hello" until INTR2 answers),
 *       makes COUNT writes of 4 KiB over SLOTS slots, sends INTR1 COUNT
 *       and waits for the reader's INTR2 COUNT: interrupts follow the
 *       data, so by then every write is in the reader's copy. Prints one
 *       JSON object: writes, bytes, seconds, writes_per_s, mib_per_s.
 *
 * The reader checks every slot holds the last write made to it (its
 * sequence number and fill pattern) and exits 3 if one does not: the rate
 * counts only writes that arrived, in order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/rfm.h>

#include "repl-peer.h"
#include "stats.h"

#define BLOCK 4096u
#define SLOTS 64u	   /* the window needs SLOTS * BLOCK = 256 KiB */
#define END_NS 60000000000 /* the last write must arrive within 60 s */

static int fail(const char *what)
{
	fprintf(stderr, "bench-repl-write: %s: %s\n", what, rfm_last_error());
	return 1;
}

/* Fills a block as write number seq (1-based) leaves it. */
static void fill_block(unsigned char *b, uint64_t seq)
{
	memset(b, (int)(seq * 131u & 0xffu), BLOCK);
	memcpy(b, &seq, sizeof(seq));
}

static uint64_t slot_offset(uint64_t seq)
{
	return (seq - 1) % SLOTS * BLOCK;
}

static rfm_node *open_node(const char *uri, unsigned int type)
{
	rfm_node *node;

	if (rfm_open(uri, &node)) {
		fail(uri);
		return NULL;
	}
	if (rfm_event_enable(node, RFM_EVENT_BIT(type))) {
		fail("rfm_event_enable");
		rfm_close(node);
		return NULL;
	}
	return node;
}

/* After write number count: does every slot hold its last write? */
static int check_window(rfm_node *node, uint64_t count)
{
	static unsigned char got[BLOCK], want[BLOCK];
	int bad = 0;

	for (uint64_t seq = count > SLOTS ? count - SLOTS + 1 : 1; seq <= count; seq++) {
		if (rfm_mem_read(node, slot_offset(seq), got, BLOCK))
			return fail("rfm_mem_read");
		fill_block(want, seq);
		if (memcmp(got, want, BLOCK)) {
			uint64_t had;

			memcpy(&had, got, sizeof(had));
			fprintf(stderr, "bench-repl-write: slot %llu holds write %llu, not %llu\n",
				(unsigned long long)(slot_offset(seq) / BLOCK),
				(unsigned long long)had, (unsigned long long)seq);
			bad = 3;
		}
	}
	return bad;
}

static int reader(const char *uri)
{
	rfm_node *node = open_node(uri, RFM_EVENT_INTR1);
	struct rfm_event ev;
	int rc;

	if (!node)
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		rc = rfm_event_wait(node, &ev, END_NS);
		if (rc) {
			rfm_close(node);
			return fail("waiting for the writer");
		}
		if (ev.type != RFM_EVENT_INTR1)
			continue;
		if (ev.data == 0) { /* hello: answer so the writer knows we are here */
			if (rfm_event_send(node, ev.sender, RFM_EVENT_INTR2, 0) < 0)
				fprintf(stderr, "bench-repl-write: answer: %s\n", rfm_last_error());
			continue;
		}
		rc = check_window(node, ev.data);
		if (rfm_event_send(node, ev.sender, RFM_EVENT_INTR2, ev.data) < 0)
			rc = fail("final answer");
		rfm_close(node);
		return rc;
	}
}

static int writer(const char *uri, unsigned int peer, uint32_t count)
{
	static unsigned char block[BLOCK];
	rfm_node *node = open_node(uri, RFM_EVENT_INTR2);
	uint64_t t0, t1;
	int rc;

	if (!node)
		return 1;
	if (repl_find_peer(node, peer, RFM_EVENT_INTR2, "bench-repl-write")) {
		rfm_close(node);
		return 1;
	}
	t0 = bench_now_ns();
	for (uint64_t seq = 1; seq <= count; seq++) {
		fill_block(block, seq);
		if (rfm_mem_write(node, slot_offset(seq), block, BLOCK)) {
			rfm_close(node);
			return fail("rfm_mem_write");
		}
	}
	rc = rfm_event_send(node, peer, RFM_EVENT_INTR1, count);
	if (rc < 0 || (rc = repl_wait(node, RFM_EVENT_INTR2, peer, count, END_NS)) != 0) {
		rfm_close(node);
		return fail("waiting for the last write to arrive");
	}
	t1 = bench_now_ns();
	rfm_close(node);
	double s = (double)(t1 - t0) / 1e9;
	printf("{\"writes\": %u, \"bytes\": %u, \"seconds\": %.6f, \"writes_per_s\": %.1f, "
	       "\"mib_per_s\": %.1f}\n",
	       count, BLOCK, s, count / s, count * (double)BLOCK / s / (1024.0 * 1024.0));
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t peer, count;

	if (argc == 3 && !strcmp(argv[1], "read"))
		return reader(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "write") && !bench_parse_u32(argv[3], 0, 255, &peer) &&
	    !bench_parse_u32(argv[4], 1, 0x7fffffff, &count))
		return writer(argv[2], peer, count);
	fprintf(stderr, "usage: bench-repl-write read URI\n"
			"       bench-repl-write write URI PEER COUNT   (PEER 0..255, COUNT >= 1)\n");
	return 2;
}
