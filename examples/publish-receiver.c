/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Receiver half of the data-then-sequence-flag example.
 *
 *   publish-receiver URI
 *
 * Sleeps until the sender's network interrupt says a sample is out (or
 * polls the sequence word with acquire loads if the backend has no
 * events); then copies the sample from the buffer the sequence names and
 * re-reads the sequence: if the sender has since moved two or more samples
 * on, the buffer may have been rewritten during the copy, so the copy is
 * discarded (counted as a retry). Every accepted sample's checksum and
 * sequence are verified.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rfm/rfm.h>

#include "publish.h"

int main(int argc, char **argv)
{
	uint64_t last = 0, received = 0, skipped = 0, retries = 0, bad = 0;
	rfm_node *node;
	uint8_t *base;
	const struct timespec pause = { 0, 20000 };
	struct rfm_event ev;
	bool events;

	if (argc != 2) {
		fprintf(stderr, "usage: %s URI\n", argv[0]);
		return 2;
	}
	if (rfm_open(argv[1], &node) || rfm_mem_map(node, (void **)&base, NULL)) {
		fprintf(stderr, "%s\n", rfm_last_error());
		return 1;
	}
	events = rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1) |
					RFM_EVENT_BIT(RFM_EVENT_INTR2)) == 0;
	printf("receiver node %d: waiting for samples (%s)\n", rfm_node_id(node),
	       events ? "woken by network interrupts" : "polling");
	fflush(stdout); /* the demo script waits for this line */
	for (;;) {
		uint64_t seq = rfm_load64_acquire(base, PUBLISH_SEQ);

		if (seq == last) {
			if (rfm_load64_acquire(base, PUBLISH_DONE) &&
			    rfm_load64_acquire(base, PUBLISH_SEQ) == last)
				break;
			/* Nothing new: sleep until the next interrupt (or a short pause). */
			if (!events || rfm_event_wait(node, &ev, 100000000) < 0)
				nanosleep(&pause, NULL);
			continue;
		}
		struct sample s;
		memcpy(&s, base + PUBLISH_BUFFER(seq), sizeof(s));
		rfm_fence_acquire();
		if (rfm_load64(base, PUBLISH_SEQ) - seq >= 2) {
			retries++; /* overwritten while we copied: take the next one */
			continue;
		}
		if (s.seq != seq || s.checksum != sample_checksum(&s))
			bad++;
		skipped += seq - last - 1;
		last = seq;
		received++;
	}
	printf("receiver node %d: %llu samples received, %llu skipped (sender faster than "
	       "reader), %llu retried copies, %llu inconsistent, last sequence %llu\n",
	       rfm_node_id(node), (unsigned long long)received, (unsigned long long)skipped,
	       (unsigned long long)retries, (unsigned long long)bad, (unsigned long long)last);
	rfm_close(node);
	return bad != 0;
}
