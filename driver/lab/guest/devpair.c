/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * devpair - librfm's dev: backend across two guests: memory both ways
 * (through the mapping and through RFM_IOC_DMA), events both ways and
 * broadcast, 200 publish round trips (the data is there when the event
 * is), and, as a figure rather than a test, the library's event round
 * trip across the guests (what `rfm ping --mode event` will measure).
 * The rendezvous uses lab.h's control page on the raw device.
 */
#include <rfm/rfm.h>

#include "lab.h"

#define REGION (64 * 1024)
#define WAIT_NS ((int64_t)LAB_WAIT_MS * 1000000)
#define ROUNDS 200
#define BENCH_ROUNDS 500

static uint8_t pattern(int guest, int salt, size_t i)
{
	return (uint8_t)(i * 131 + (size_t)guest * 17 + (size_t)salt * 7 + 1);
}

static rfm_node *open_node(struct lab *l, const char *uri)
{
	rfm_node *node;
	int ret = rfm_open(uri, &node);

	if (ret) {
		printf("# rfm_open(%s): %s\n", uri, rfm_last_error());
		errno = EIO;
		lab_fatal(l, "rfm_open");
	}
	return node;
}

#define CHECK_RFM(l, call)                                                              \
	({                                                                              \
		int r_ = (call);                                                        \
		CHECK((l), r_ >= 0, "%s = %d: %s", #call, r_, rfm_last_error());         \
		r_;                                                                     \
	})

/* Each guest writes its own region, then checks every other guest's. */
static void memory_both_ways(struct lab *l, const char *uri, int salt)
{
	rfm_node *node = open_node(l, uri);
	static uint8_t buf[REGION];
	uint64_t base = LAB_DATA_OFFSET + (uint64_t)salt * REGION * LAB_MAX_GUESTS;

	for (size_t i = 0; i < REGION; i++)
		buf[i] = pattern(l->index, salt, i);
	CHECK_RFM(l, rfm_mem_write(node, base + (uint64_t)l->index * REGION, buf, REGION));
	lab_barrier(l);
	for (int g = 0; g < l->nodes; g++) {
		if (g == l->index)
			continue;
		memset(buf, 0, sizeof(buf));
		CHECK_RFM(l, rfm_mem_read(node, base + (uint64_t)g * REGION, buf, REGION));
		size_t bad = 0;
		for (size_t i = 0; i < REGION; i++)
			bad += buf[i] != pattern(g, salt, i);
		CHECK(l, bad == 0, "%s: %zu of %d bytes from guest %d differ", uri, bad, REGION, g);
	}
	lab_barrier(l);
	rfm_close(node);
}

static void events_both_ways(struct lab *l, rfm_node *node)
{
	struct rfm_event ev;
	uint64_t seq = 0;

	/* Each guest in turn sends every type to the other, then a broadcast. */
	for (int sender = 0; sender < 2; sender++) {
		lab_barrier(l);
		if (l->index == sender) {
			for (unsigned int t = RFM_EVENT_RESET; t <= RFM_EVENT_INTR4; t++)
				CHECK_RFM(l, rfm_event_send(node, l->node[1 - sender], t, 0x100 * sender + t));
			CHECK_RFM(l, rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_INTR1, 0xb0 + sender));
			continue;
		}
		for (unsigned int t = RFM_EVENT_RESET; t <= RFM_EVENT_INTR4; t++) {
			if (CHECK_RFM(l, rfm_event_wait(node, &ev, WAIT_NS)) != 0)
				continue;
			CHECK_EQ(l, ev.type, t);
			CHECK_EQ(l, ev.sender, l->node[sender]);
			CHECK_EQ(l, ev.data, 0x100 * sender + t);
			CHECK_EQ(l, ev.seq, ++seq);
			CHECK_EQ(l, ev.flags, 0);
		}
		if (CHECK_RFM(l, rfm_event_wait(node, &ev, WAIT_NS)) == 0) {
			CHECK_EQ(l, ev.type, RFM_EVENT_INTR1);
			CHECK_EQ(l, ev.data, 0xb0 + sender);
			CHECK_EQ(l, ev.seq, ++seq);
		}
	}
	lab_barrier(l);
	/* Nothing else arrived: no duplicates, no own broadcast without loopback. */
	CHECK_EQ(l, rfm_event_wait(node, &ev, 0), RFM_EAGAIN);
	lab_barrier(l);
}

/* Strict ping-pong of publishes: guest 0 pings, guest 1 answers; each
 * side checks the other's data the moment the event arrives. */
#define PUBLISH_DATA(g) (0x180000u + (uint64_t)(g) * 0x1000u)
#define PUBLISH_SEQ(g) (0x188000u + (uint64_t)(g) * 64u)

static bool take_publish(struct lab *l, rfm_node *node, int peer, uint32_t round)
{
	struct rfm_event ev;
	uint8_t in[256];
	size_t bad = 0;

	if (CHECK_RFM(l, rfm_event_wait(node, &ev, WAIT_NS)) != 0)
		return false;
	CHECK_EQ(l, ev.type, RFM_EVENT_INTR2);
	CHECK_EQ(l, ev.sender, l->node[peer]);
	CHECK_EQ(l, ev.data, round);
	CHECK_RFM(l, rfm_mem_read(node, PUBLISH_DATA(peer), in, sizeof(in)));
	for (size_t i = 0; i < sizeof(in); i++)
		bad += in[i] != pattern(peer, (int)round, i);
	return CHECK(l, bad == 0, "round %u: %zu bytes not there with the event", round, bad);
}

static bool give_publish(struct lab *l, rfm_node *node, int peer, uint32_t round)
{
	uint8_t out[256];
	uint32_t seq = 0;

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = pattern(l->index, (int)round, i);
	CHECK_RFM(l, rfm_event_publish(node, PUBLISH_DATA(l->index), out, sizeof(out),
				       PUBLISH_SEQ(l->index), l->node[peer], RFM_EVENT_INTR2, &seq));
	return CHECK_EQ(l, seq, round);
}

static void publish_round_trips(struct lab *l, rfm_node *node)
{
	int peer = 1 - l->index;

	if (!CHECK(l, PUBLISH_SEQ(1) + 4 <= rfm_node_size(node), "window too small"))
		return;
	lab_barrier(l);
	for (uint32_t round = 1; round <= ROUNDS; round++) {
		bool ok = l->index == 0 ? give_publish(l, node, peer, round) &&
						  take_publish(l, node, peer, round)
					: take_publish(l, node, peer, round) &&
						  give_publish(l, node, peer, round);
		if (!ok)
			break;
	}
	lab_barrier(l);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void event_round_trip_figure(struct lab *l, rfm_node *node, int64_t spin_ns)
{
	static uint64_t rtt[BENCH_ROUNDS];
	int peer = 1 - l->index;
	struct rfm_event ev;

	CHECK_RFM(l, rfm_event_set_spin(node, spin_ns));
	lab_barrier(l);
	for (int i = 0; i < BENCH_ROUNDS; i++) {
		if (l->index == 0) {
			uint64_t t0 = rfm_event_now_ns();
			CHECK_RFM(l, rfm_event_send(node, l->node[peer], RFM_EVENT_INTR3, (uint32_t)i));
			if (CHECK_RFM(l, rfm_event_wait(node, &ev, WAIT_NS)) != 0)
				return;
			rtt[i] = rfm_event_now_ns() - t0;
		} else {
			if (CHECK_RFM(l, rfm_event_wait(node, &ev, WAIT_NS)) != 0)
				return;
			CHECK_RFM(l, rfm_event_send(node, l->node[peer], RFM_EVENT_INTR3, ev.data));
		}
	}
	if (l->index == 0) {
		qsort(rtt, BENCH_ROUNDS, sizeof(rtt[0]), cmp_u64);
		printf("bench: librfm dev: event round trip across guests (us, %d rounds, spin %lld ns, "
		       "TCG): min %.0f P50 %.0f P99 %.0f max %.0f\n",
		       BENCH_ROUNDS, (long long)spin_ns, rtt[0] / 1e3, rtt[BENCH_ROUNDS / 2] / 1e3,
		       rtt[BENCH_ROUNDS * 99 / 100] / 1e3, rtt[BENCH_ROUNDS - 1] / 1e3);
	}
	lab_barrier(l);
}

int main(int argc, char **argv)
{
	struct lab l;
	rfm_node *node;

	lab_open(&l, argc, argv);
	if (l.nodes != 2) {
		printf("# devpair runs on two guests\n");
		return 2;
	}

	lab_begin(&l, "memory both ways through the mapping");
	memory_both_ways(&l, "dev:/dev/rfm0", 0);
	lab_end(&l);
	lab_begin(&l, "memory both ways through RFM_IOC_DMA (dma=1)");
	memory_both_ways(&l, "dev:/dev/rfm0?dma=1", 1);
	lab_end(&l);

	node = open_node(&l, "dev:/dev/rfm0");
	CHECK_RFM(&l, rfm_event_enable(node, RFM_EVENT_MASK_NETWORK));
	lab_begin(&l, "events both ways and broadcast");
	events_both_ways(&l, node);
	lab_end(&l);
	lab_begin(&l, "200 publish round trips: the data comes before the event");
	publish_round_trips(&l, node);
	lab_end(&l);
	lab_begin(&l, "event round trip (a figure), default spin");
	event_round_trip_figure(&l, node, RFM_EVENT_SPIN_DEFAULT_NS);
	lab_end(&l);
	lab_begin(&l, "event round trip (a figure), no spin");
	event_round_trip_figure(&l, node, 0);
	lab_end(&l);
	rfm_close(node);
	return lab_finish(&l);
}
