/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network interrupts, the three ways to receive them, on a private emulated
 * network with two nodes in one process:
 *  - node 1 publishes samples (data, then a sequence word, then INTR1) and
 *    a callback on node 2 reads each sample when its event arrives;
 *  - node 1 sends INTR2, which node 2 takes from an epoll-able descriptor;
 *  - node 1 sends RESET, which node 2 waits for with a timeout.
 *
 *   cc events.c $(pkg-config --cflags --libs rfm) && ./a.out
 */
#include <poll.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rfm/rfm.h>

#define SAMPLE_OFF 0x100
#define SEQ_OFF 0x80
#define SAMPLES 5

struct receiver {
	const uint8_t *base;
	sem_t done;
	int seen;
};

/* Runs on node 2's dispatcher thread: the sample is in memory before its event. */
static void on_sample(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct receiver *r = arg;
	double sample;

	(void)node;
	memcpy(&sample, r->base + SAMPLE_OFF, sizeof(sample));
	printf("callback: sample %u = %.2f from node %u, %llu ns after it was sent\n", ev->data,
	       sample, ev->sender, (unsigned long long)(rfm_event_now_ns() - ev->sent_ns));
	r->seen++;
	sem_post(&r->done);
}

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, rfm_last_error());
	return 1;
}

int main(void)
{
	char uri[96], net[64];
	rfm_node *tx, *rx;
	struct receiver r = { 0 };
	struct rfm_event ev;

	snprintf(net, sizeof(net), "shm:example-events-%d", (int)getpid());
	snprintf(uri, sizeof(uri), "%s?node=1&size=64K", net);
	if (rfm_open(uri, &tx))
		return fail("open node 1");
	snprintf(uri, sizeof(uri), "%s?node=2&size=64K", net);
	if (rfm_open(uri, &rx))
		return fail("open node 2");
	rfm_mem_map(rx, (void **)&r.base, NULL);
	sem_init(&r.done, 0, 0);

	/* 1. Callbacks: enable the type, register a function for it. */
	if (rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_INTR1)) ||
	    rfm_event_callback_register(rx, RFM_EVENT_INTR1, on_sample, &r))
		return fail("callback");
	for (int i = 0; i < SAMPLES; i++) {
		double sample = 20.0 + i * 0.25;
		uint32_t seq;

		if (rfm_event_publish(tx, SAMPLE_OFF, &sample, sizeof(sample), SEQ_OFF, 2,
				      RFM_EVENT_INTR1, &seq) < 0)
			return fail("publish");
		/* One sample in flight at a time: the callback has read it before the next. */
		sem_wait(&r.done);
	}
	printf("callback saw %d samples\n", r.seen);
	rfm_event_callback_unregister(rx, RFM_EVENT_INTR1);

	/* 2. A descriptor for poll/epoll: readable while events are queued. */
	int fd = rfm_event_fd(rx);
	if (fd < 0 || rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_INTR2)))
		return fail("fd");
	rfm_event_send(tx, 2, RFM_EVENT_INTR2, 0xcafe);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 1000) == 1 && rfm_event_fetch(rx, &ev, 1, 0) == 1)
		printf("fd: %s data 0x%x (seq %llu)\n", rfm_event_type_name(ev.type), ev.data,
		       (unsigned long long)ev.seq);

	/* 3. A plain wait with a timeout. */
	rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_RESET));
	rfm_event_send(tx, RFM_NODE_ALL, RFM_EVENT_RESET, 1);
	if (rfm_event_wait(rx, &ev, 1000000000) == 0)
		printf("wait: %s from node %u\n", rfm_event_type_name(ev.type), ev.sender);
	if (rfm_event_wait(rx, &ev, 1000000) == RFM_ETIMEDOUT)
		printf("wait: nothing more within 1 ms\n");

	rfm_close(rx);
	rfm_close(tx);
	rfm_network_destroy(net, RFM_DESTROY_FORCE);
	return 0;
}
