/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One side of a mixed-host network (make check-cross): a program built for
 * another architecture (i386 or armhf: 32-bit; s390x: big-endian), run
 * under qemu-user, and a native one share a shm: network. Each side
 *   - creates its ring and publishes three messages,
 *   - beats in the heartbeat table,
 *   - reads the peer's three messages (sequence and text) from the
 *     peer's ring, and sees the peer's beats move (alive, with its pid),
 *   - then raises its "done" word and keeps beating until the peer's is up.
 * The ring, the heartbeat table and the done words are the library's
 * little-endian wire format; the shm: segment is the host's own.
 * Usage: mixed-peer URI NODE PEER (prints "ok" and exits 0, or says why).
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rfm/rfm.h>

#define PERIOD_NS 20000000u
#define DEADLINE_NS (60ull * 1000000000u)
#define DONE_OFF(id) (0x1000u + 64u * (id))
#define RING_OFF(id) (0x10000u + 0x40000u * (id))

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fail(const char *what, int node)
{
	fprintf(stderr, "mixed-peer %d: %s: %s\n", node, what, rfm_last_error());
	return 1;
}

/* Beat, and pause a period: the wait for the peer is paced by our beats. */
static int beat(rfm_node *n)
{
	struct timespec p = { 0, PERIOD_NS };

	if (rfm_health_beat(n, PERIOD_NS))
		return -1;
	nanosleep(&p, NULL);
	return 0;
}

/* Has the peer beaten at least 3 times, alive, with a pid? */
static bool peer_alive(rfm_node *n, uint32_t peer)
{
	struct rfm_node_status rows[8];
	int k = rfm_health_nodes(n, rows, 8);

	for (int i = 0; i < k; i++)
		if (rows[i].id == peer)
			return rows[i].alive && rows[i].beats >= 3 && rows[i].pid > 0 &&
			       rows[i].period_ns == PERIOD_NS;
	return false;
}

static int read_peer_ring(rfm_node *n, int me, uint32_t peer, uint64_t deadline)
{
	rfm_ring_consumer *c = NULL;
	struct rfm_ring_msg m;
	char buf[64], want[64];

	while (rfm_ring_consumer_open(n, RING_OFF(peer), 0, &c)) {
		if (now_ns() > deadline)
			return fail("the peer's ring never appeared", me);
		if (beat(n))
			return fail("beat", me);
	}
	for (unsigned int k = 0; k < 3; k++) {
		int ret;

		while ((ret = rfm_ring_consume(c, buf, sizeof(buf) - 1, &m, PERIOD_NS)) ==
		       RFM_ETIMEDOUT) {
			if (now_ns() > deadline || beat(n))
				return fail("no message from the peer", me);
		}
		if (ret)
			return fail("consume", me);
		buf[m.len] = 0;
		snprintf(want, sizeof(want), "from node %u, message %u", peer, k);
		if (m.seq != k || m.lost || strcmp(buf, want)) {
			fprintf(stderr, "mixed-peer %d: message %llu lost %llu '%s', expected %u '%s'\n",
				me, (unsigned long long)m.seq, (unsigned long long)m.lost, buf, k, want);
			return 1;
		}
	}
	rfm_ring_consumer_close(c);
	return 0;
}

int main(int argc, char **argv)
{
	struct rfm_ring_config cfg = { .struct_size = sizeof(cfg), .slot_size = 48, .slot_count = 8 };
	uint64_t deadline = now_ns() + DEADLINE_NS;
	char uri[512], msg[64];
	rfm_node *n;
	rfm_ring *r;

	if (argc != 4) {
		fprintf(stderr, "usage: mixed-peer URI NODE PEER\n");
		return 2;
	}
	int me = atoi(argv[2]);
	uint32_t peer = (uint32_t)atoi(argv[3]);
	snprintf(uri, sizeof(uri), "%s%snode=%d", argv[1], strchr(argv[1], '?') ? "&" : "?", me);
	if (rfm_open(uri, &n))
		return fail("open", me);
	if (rfm_ring_create(n, RING_OFF(me), 0x40000, &cfg, &r))
		return fail("ring create", me);
	for (unsigned int k = 0; k < 3; k++) {
		snprintf(msg, sizeof(msg), "from node %d, message %u", me, k);
		if (rfm_ring_publish(r, msg, strlen(msg), 0))
			return fail("publish", me);
	}
	if (beat(n) || read_peer_ring(n, me, peer, deadline))
		return 1;
	while (!peer_alive(n, peer)) {
		if (now_ns() > deadline || beat(n))
			return fail("the peer's heartbeat never moved", me);
	}
	/* Done; beat on until the peer is done too (it may still be looking at us). */
	if (rfm_mem_poke32(n, DONE_OFF(me), htole32(1)))
		return fail("done word", me);
	for (;;) {
		uint32_t done = 0;

		if (rfm_mem_peek32(n, DONE_OFF(peer), &done))
			return fail("peer's done word", me);
		if (le32toh(done) == 1)
			break;
		if (now_ns() > deadline || beat(n))
			return fail("the peer never finished", me);
	}
	rfm_ring_close(r);
	rfm_close(n);
	printf("mixed-peer %d: ok (%zu-bit, %s-endian)\n", me, sizeof(void *) * 8,
	       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	return 0;
}
