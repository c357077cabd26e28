/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One side of a mixed-host network (make check-cross): a program built for
 * another architecture (i386 or armhf: 32-bit, on shm:; s390x: big-endian,
 * on dds: over loopback), run under qemu-user, and a native one. Each side
 *   - writes a block of memory and a little-endian word,
 *   - sets typed variables of every number type in both byte orders, a
 *     string and arrays, and keeps publishing two records (one of each
 *     order) with a counter until the peer has checked them,
 *   - creates its ring and publishes three messages,
 *   - runs the health monitor (heartbeats, NODE_UP events),
 *   - raises its "written" word;
 * then, once the peer's is up, sends the peer an rfm_event_publish() and
 * checks the peer's memory, variables (typed and as bytes), records
 * (consistent snapshots, counter moving), ring (sequence and text of each
 * message), the peer's publish (its sequence word little-endian in the
 * window, the data there), a NODE_UP event from the peer and the peer
 * alive in the node table; raises its "checked" word and goes on
 * publishing until the peer's is up too. The words are in the window,
 * little-endian: the ready signals of both sides.
 * Usage: mixed-peer URI NODE PEER (prints "ok" and exits 0, or says why).
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rfm/rfm.h>

#include "mixed-peer.h"

#define PERIOD_NS 20000000u
#define DEADLINE_NS (180ull * 1000000000u)
#define FLAG_OFF(id) (0x1000u + 64u * (id))
#define MEM_OFF(id) (0x4000u + 0x2000u * (id))
#define MEM_LEN 4096u
/* rfm_event_publish()'s sequence word and data, after each node's block. */
#define PSEQ_OFF(id) (MEM_OFF(id) + MEM_LEN + 8u)
#define PUB_OFF(id) (MEM_OFF(id) + MEM_LEN + 64u)
#define PUB_LEN 16u
#define RING_OFF(id) (0x40000u + 0x40000u * (id))
#define RING_LEN 0x10000u
#define WRITTEN 1u
#define CHECKED 2u
#define FAILED 0xdeadu

struct side {
	rfm_node *n;
	struct mixed_typed *typed;
	uint32_t me, peer, k;
	uint64_t deadline;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fail(const struct side *s, const char *what)
{
	fprintf(stderr, "mixed-peer %u: %s: %s\n", s->me, what, rfm_last_error());
	return -1;
}

/* One step of every wait: publish the records once more (the peer sees the
 * counter move), pause a period; give up at the deadline, or at once when
 * the peer has failed (it says so in its flag word). */
static int step(struct side *s, const char *waiting_for)
{
	struct timespec p = { 0, PERIOD_NS };
	uint32_t flag = 0;

	if (rfm_mem_peek32(s->n, FLAG_OFF(s->peer), &flag) == 0 && le32toh(flag) == FAILED) {
		fprintf(stderr, "mixed-peer %u: the peer failed while this node waited for %s\n",
			s->me, waiting_for);
		return -1;
	}
	if (now_ns() > s->deadline) {
		fprintf(stderr, "mixed-peer %u: gave up waiting for %s\n", s->me, waiting_for);
		return -1;
	}
	if (mixed_records_publish(s->typed, ++s->k))
		return -1;
	nanosleep(&p, NULL);
	return 0;
}

static int wait_flag(struct side *s, uint32_t want, const char *what)
{
	for (;;) {
		uint32_t v = 0;

		if (rfm_mem_peek32(s->n, FLAG_OFF(s->peer), &v))
			return fail(s, "peer's flag word");
		if (le32toh(v) >= want && le32toh(v) != FAILED)
			return 0;
		if (step(s, what))
			return -1;
	}
}

static uint8_t mem_byte(uint32_t id, uint32_t i)
{
	return (uint8_t)(i * 7u + id * 31u + (i >> 8));
}

static int write_memory(struct side *s)
{
	uint8_t buf[MEM_LEN];

	for (uint32_t i = 0; i < MEM_LEN; i++)
		buf[i] = mem_byte(s->me, i);
	if (rfm_mem_write(s->n, MEM_OFF(s->me), buf, sizeof(buf)) ||
	    rfm_mem_poke64(s->n, MEM_OFF(s->me) + MEM_LEN, htole64(0x0102030405060708ull * s->me)))
		return fail(s, "memory write");
	return 0;
}

static int check_memory(struct side *s)
{
	uint8_t buf[MEM_LEN];
	uint64_t word = 0;

	if (rfm_mem_read(s->n, MEM_OFF(s->peer), buf, sizeof(buf)) ||
	    rfm_mem_peek64(s->n, MEM_OFF(s->peer) + MEM_LEN, &word))
		return fail(s, "memory read");
	for (uint32_t i = 0; i < MEM_LEN; i++)
		if (buf[i] != mem_byte(s->peer, i)) {
			fprintf(stderr, "mixed-peer %u: peer's memory byte %u is 0x%02x, expected 0x%02x\n",
				s->me, i, buf[i], mem_byte(s->peer, i));
			return -1;
		}
	if (le64toh(word) != 0x0102030405060708ull * s->peer) {
		fprintf(stderr, "mixed-peer %u: peer's little-endian word 0x%llx\n", s->me,
			(unsigned long long)le64toh(word));
		return -1;
	}
	return 0;
}

static int read_peer_ring(struct side *s)
{
	rfm_ring_consumer *c = NULL;
	struct rfm_ring_msg m;
	char buf[64], want[64];

	while (rfm_ring_consumer_open(s->n, RING_OFF(s->peer), 0, &c))
		if (step(s, "the peer's ring"))
			return -1;
	for (unsigned int k = 0; k < 3; k++) {
		int ret;

		while ((ret = rfm_ring_consume(c, buf, sizeof(buf) - 1, &m, 0)) == RFM_ETIMEDOUT ||
		       ret == RFM_EAGAIN)
			if (step(s, "a message of the peer's ring"))
				return -1;
		if (ret)
			return fail(s, "consume");
		buf[m.len] = 0;
		snprintf(want, sizeof(want), "from node %u, message %u", s->peer, k);
		if (m.seq != k || m.lost || strcmp(buf, want)) {
			fprintf(stderr, "mixed-peer %u: message %llu lost %llu '%s', expected %u '%s'\n",
				s->me, (unsigned long long)m.seq, (unsigned long long)m.lost, buf, k, want);
			return -1;
		}
	}
	rfm_ring_consumer_close(c);
	return 0;
}

/* The peer's records: consistent every time, and the counter seen to move
 * three times (the peer publishes on every step of its waits). */
static int check_records(struct side *s)
{
	uint32_t k = 0, last = 0;
	int moves = -1;

	for (;;) {
		if (mixed_records_check(s->typed, &k))
			return -1;
		if (k == 0) {
			fprintf(stderr, "mixed-peer %u: the peer's records were never published\n", s->me);
			return -1;
		}
		if (k != last) {
			moves++;
			last = k;
		}
		if (moves >= 3)
			return 0;
		if (step(s, "the peer's records to move"))
			return -1;
	}
}

static void pub_data(uint32_t id, uint8_t *buf)
{
	for (uint32_t i = 0; i < PUB_LEN; i++)
		buf[i] = (uint8_t)(0xe0u + i + id);
}

/* The peer's rfm_event_publish(): the event's data is the new sequence
 * (1), and the sequence word in the window is that value in wire order,
 * little-endian, whatever the publisher's host; the data is there. */
static int check_published(struct side *s, const struct rfm_event *ev)
{
	uint8_t raw[4], data[PUB_LEN], want[PUB_LEN];

	pub_data(s->peer, want);
	if (rfm_mem_read(s->n, PSEQ_OFF(s->peer), raw, 4) ||
	    rfm_mem_read(s->n, PUB_OFF(s->peer), data, PUB_LEN))
		return fail(s, "published data");
	if (ev->data != 1 || raw[0] != 1 || raw[1] || raw[2] || raw[3] ||
	    memcmp(data, want, PUB_LEN)) {
		fprintf(stderr, "mixed-peer %u: the peer's publish: event data %u, sequence word "
			"bytes %02x %02x %02x %02x (expected 01 00 00 00), data %s\n", s->me, ev->data,
			raw[0], raw[1], raw[2], raw[3], memcmp(data, want, PUB_LEN) ? "wrong" : "right");
		return -1;
	}
	return 0;
}

/* The peer's published event, a NODE_UP event from the peer, and the
 * peer alive in the node table. */
static int check_events(struct side *s)
{
	struct rfm_event ev;
	int up = 0, published = 0;

	while (!up || !published) {
		int ret = rfm_event_wait(s->n, &ev, 0);

		if (ret == 0 && ev.sender == s->peer && ev.type == RFM_EVENT_NODE_UP)
			up = 1;
		if (ret == 0 && ev.sender == s->peer && ev.type == RFM_EVENT_INTR1) {
			if (check_published(s, &ev))
				return -1;
			published = 1;
		}
		if (ret && ret != RFM_ETIMEDOUT && ret != RFM_EAGAIN)
			return fail(s, "event wait");
		if (ret && step(s, up ? "the peer's published event" : "NODE_UP from the peer"))
			return -1;
	}
	for (;;) {
		struct rfm_node_status rows[8];
		int k = rfm_health_nodes(s->n, rows, 8);

		if (k < 0)
			return fail(s, "node table");
		for (int i = 0; i < k; i++)
			if (rows[i].id == s->peer && rows[i].alive && rows[i].beats >= 3 &&
			    rows[i].pid > 0 && rows[i].period_ns == PERIOD_NS)
				return 0;
		if (step(s, "the peer alive in the node table"))
			return -1;
	}
}

/* Once the peer has enabled its events (its written word is up). */
static int publish_event(struct side *s)
{
	uint8_t data[PUB_LEN];
	uint32_t seq = 0;

	pub_data(s->me, data);
	if (rfm_event_publish(s->n, PUB_OFF(s->me), data, PUB_LEN, PSEQ_OFF(s->me), s->peer,
			      RFM_EVENT_INTR1, &seq) < 0)
		return fail(s, "event publish");
	if (seq != 1) {
		fprintf(stderr, "mixed-peer %u: the first publish's sequence is %u\n", s->me, seq);
		return -1;
	}
	return 0;
}

static int publish_all(struct side *s, rfm_ring **r)
{
	struct rfm_ring_config cfg = { .struct_size = sizeof(cfg), .slot_size = 48, .slot_count = 8 };
	struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = PERIOD_NS };
	char msg[64];

	if (rfm_event_enable(s->n, RFM_EVENT_MASK_HEALTH | RFM_EVENT_BIT(RFM_EVENT_INTR1)) ||
	    rfm_health_start(s->n, &hc))
		return fail(s, "health monitor");
	if (write_memory(s) || mixed_typed_set(s->typed) || mixed_records_publish(s->typed, ++s->k))
		return -1;
	if (rfm_ring_create(s->n, RING_OFF(s->me), RING_LEN, &cfg, r))
		return fail(s, "ring create");
	for (unsigned int k = 0; k < 3; k++) {
		snprintf(msg, sizeof(msg), "from node %u, message %u", s->me, k);
		if (rfm_ring_publish(*r, msg, strlen(msg), 0))
			return fail(s, "publish");
	}
	if (rfm_mem_poke32(s->n, FLAG_OFF(s->me), htole32(WRITTEN)))
		return fail(s, "written word");
	return 0;
}

int main(int argc, char **argv)
{
	struct side s = { .deadline = now_ns() + DEADLINE_NS };
	char uri[512];
	rfm_ring *r = NULL;
	int bad;

	if (argc != 4) {
		fprintf(stderr, "usage: mixed-peer URI NODE PEER\n");
		return 2;
	}
	s.me = (uint32_t)atoi(argv[2]);
	s.peer = (uint32_t)atoi(argv[3]);
	snprintf(uri, sizeof(uri), "%s%snode=%u", argv[1], strchr(argv[1], '?') ? "&" : "?", s.me);
	if (rfm_open(uri, &s.n))
		return fail(&s, "open"), 1;
	if (!(s.typed = mixed_typed_open(s.n, s.me, s.peer)))
		return 1;
	bad = publish_all(&s, &r) || wait_flag(&s, WRITTEN, "the peer's written word") ||
	      publish_event(&s) || check_memory(&s) || mixed_typed_check(s.typed) ||
	      check_records(&s) || read_peer_ring(&s) || check_events(&s);
	/* Checked; publish on until the peer has checked us too. */
	if (!bad && rfm_mem_poke32(s.n, FLAG_OFF(s.me), htole32(CHECKED)))
		bad = fail(&s, "checked word");
	bad = bad || wait_flag(&s, CHECKED, "the peer's checked word");
	if (bad) /* so the peer stops waiting for this node */
		rfm_mem_poke32(s.n, FLAG_OFF(s.me), htole32(FAILED));
	rfm_ring_close(r);
	mixed_typed_close(s.typed);
	rfm_close(s.n);
	if (bad)
		return 1;
	printf("mixed-peer %u: ok (%zu-bit, %s-endian)\n", s.me, sizeof(void *) * 8,
	       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	return 0;
}
