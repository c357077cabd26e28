/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A record sent after rfm_event_callback_unregister() returns reaches
 * rfm_event_wait(). The dispatcher used to be able to take it inside a take
 * begun while the callback was still registered, find no callback and drop
 * it (counted as unhandled): about one round in 500 lost an event.
 * Plain program (no CMocka): exit 0 pass, 1 fail, 77 skip.
 */
#include <stdio.h>
#include <string.h>

#include <rfm/rfm.h>

#include "harness.h"

#define ROUNDS 3000
#define WAIT_NS (30 * 1000000000ll) /* a hang guard, not a timing check */

static unsigned int calls;

static void count_call(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	(void)node;
	(void)ev;
	(void)arg;
	__atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
}

int main(void)
{
	struct harness_network net;
	rfm_node *a, *b;
	unsigned int lost = 0;

	harness_init();
	harness_network_new(&net, 64 * 1024);
	if (rfm_open(harness_node_uri(&net, 0), &a) || rfm_open(harness_node_uri(&net, 1), &b) ||
	    rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR1))) {
		fprintf(stderr, "setup: %s\n", rfm_last_error());
		return HARNESS_EXIT_ERROR;
	}
	for (unsigned int i = 0; i < ROUNDS && lost == 0; i++) {
		struct rfm_event ev;

		__atomic_store_n(&calls, 0, __ATOMIC_SEQ_CST);
		if (rfm_event_callback_register(b, RFM_EVENT_INTR1, count_call, NULL) ||
		    rfm_event_send(a, 1, RFM_EVENT_INTR1, 2 * i) < 0) {
			fprintf(stderr, "round %u: %s\n", i, rfm_last_error());
			return 1;
		}
		/* The callback ran: the dispatcher is back in a take, now unregister. */
		while (!__atomic_load_n(&calls, __ATOMIC_SEQ_CST))
			;
		if (rfm_event_callback_unregister(b, RFM_EVENT_INTR1) ||
		    rfm_event_send(a, 1, RFM_EVENT_INTR1, 2 * i + 1) < 0) {
			fprintf(stderr, "round %u: %s\n", i, rfm_last_error());
			return 1;
		}
		if (rfm_event_wait(b, &ev, WAIT_NS) < 0) {
			fprintf(stderr, "round %u: the event sent after unregistering was lost: %s\n",
				i, rfm_last_error());
			lost++;
		} else if (ev.type != RFM_EVENT_INTR1 || ev.data != 2 * i + 1) {
			fprintf(stderr, "round %u: got %s data %u, want intr1 data %u\n", i,
				rfm_event_type_name(ev.type), ev.data, 2 * i + 1);
			lost++;
		}
	}
	rfm_close(a);
	rfm_close(b);
	harness_network_destroy(&net);
	printf("test-events-unregister: %s\n", lost ? "FAIL" : "3000 rounds, nothing lost");
	return lost ? 1 : 0;
}
