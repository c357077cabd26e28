/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sender half of the data-then-sequence-flag example.
 *
 *   publish-sender URI COUNT RATE_HZ
 *
 * For each sample: write it into the buffer for its sequence number, then
 * publish the sequence number with a release store. The release orders the
 * stores, so a receiver that sees sequence n with an acquire load also sees
 * sample n. Then send network interrupt 1 to every node, so receivers can
 * sleep instead of polling: interrupts follow the data. INTR2 says "done".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <rfm/rfm.h>

#include "publish.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	rfm_node *node;
	uint8_t *base;
	uint64_t size;

	if (argc != 4) {
		fprintf(stderr, "usage: %s URI COUNT RATE_HZ\n", argv[0]);
		return 2;
	}
	uint64_t count = strtoull(argv[2], NULL, 0);
	double rate = atof(argv[3]);
	if (count == 0 || rate <= 0) {
		fprintf(stderr, "COUNT and RATE_HZ must be positive\n");
		return 2;
	}
	if (rfm_open(argv[1], &node) || rfm_mem_map(node, (void **)&base, &size)) {
		fprintf(stderr, "%s\n", rfm_last_error());
		return 1;
	}
	if (size < PUBLISH_REGION + 0x100) {
		fprintf(stderr, "window too small\n");
		rfm_close(node);
		return 1;
	}

	uint64_t period = (uint64_t)(1e9 / rate), next = now_ns();
	for (uint64_t seq = 1; seq <= count; seq++) {
		struct sample s = {
			.seq = seq,
			.time_ns = now_ns(),
			.position = sin((double)seq / 100.0),
			.velocity = cos((double)seq / 100.0) / 100.0,
		};
		s.checksum = sample_checksum(&s);

		memcpy(base + PUBLISH_BUFFER(seq), &s, sizeof(s));	/* data... */
		rfm_store64_release(base, PUBLISH_SEQ, seq);		/* ...then flag, */
		/* ...then an interrupt, which arrives after the data it follows. */
		rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_INTR1, (uint32_t)seq);

		next += period;
		while (now_ns() < next)
			; /* fixed-rate pacing, as a real-time loop would */
	}
	rfm_store64_release(base, PUBLISH_DONE, 1);
	rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_INTR2, (uint32_t)count);
	printf("sender node %d: published %llu samples at %.0f Hz\n", rfm_node_id(node),
	       (unsigned long long)count, rate);
	rfm_close(node);
	return 0;
}
