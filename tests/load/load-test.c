/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Load test: 16 processes hammer one emulated network for LOAD_SECONDS
 * (default 60) on however few cores the machine has:
 *   nodes 0-3    publish 256-byte records with a checksum (seqlock writers)
 *   nodes 4-5    read all four records back, checking every checksum
 *   nodes 6-9    two sender->receiver pairs flooding network interrupts
 *   nodes 10-15  two ring producers, each with two consumers on other nodes
 * and the parent samples every child's RSS once a second.
 *
 * It passes when nothing is lost beyond what is counted (for every event
 * pair, records taken + records announced dropped == records sent, in
 * order; for every ring consumer, messages taken + messages reported lost
 * == messages published, in order, checksums right), no torn record is
 * ever accepted, every process finishes (no deadlock, no crash), and no
 * process's RSS grows by more than RSS_GROWTH_LIMIT_KB between the first
 * and the last sample.
 *
 *   make check-load [LOAD_SECONDS=60]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "harness.h"

#define PROCESSES 16
#define WRITERS 4
#define READERS 2
#define FIRST_EVENT_NODE (WRITERS + READERS)	/* pairs: even sends to odd */
#define FIRST_RING_NODE 10			/* 10, 13 produce; 11-12, 14-15 consume */
#define RING_OFFSET(r) (0x20000 + (uint64_t)(r) * 0x40000)
#define RING_SPACE 0x40000
#define WORDS 63
#define RSS_GROWTH_LIMIT_KB 1024
/* Per pair or ring, past the layout's regions: sent count and done flag. */
#define PAIR_AREA 0x10000
#define RING_AREA 0x11000

static const char layout_yaml[] =
	"version: 1\n"
	"window: 1M\n"
	"regions:\n"
	"  - { name: w0, offset: 0x0000, size: 0x400, writer: 0, records: [ { name: rec, variables: [ { name: words, type: u32, count: 63 }, { name: sum, type: u32 } ] } ] }\n"
	"  - { name: w1, offset: 0x0400, size: 0x400, writer: 1, records: [ { name: rec, variables: [ { name: words, type: u32, count: 63 }, { name: sum, type: u32 } ] } ] }\n"
	"  - { name: w2, offset: 0x0800, size: 0x400, writer: 2, records: [ { name: rec, variables: [ { name: words, type: u32, count: 63 }, { name: sum, type: u32 } ] } ] }\n"
	"  - { name: w3, offset: 0x0c00, size: 0x400, writer: 3, records: [ { name: rec, variables: [ { name: words, type: u32, count: 63 }, { name: sum, type: u32 } ] } ] }\n";

struct sample {
	uint32_t words[WORDS];
	uint32_t sum;
};

/* What each child reports to the parent at the end. */
struct report {
	uint64_t ops;		/* records published/read, events sent/taken */
	uint64_t dropped;	/* events announced dropped (receivers) */
	uint64_t torn_retries;	/* RFM_ETORN results (readers: allowed, counted) */
	uint64_t bad;		/* checksum mismatches, disorder, lost records */
};

struct role {
	struct harness_network *net;
	int node_id;
	double seconds;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t checksum(const struct sample *s)
{
	uint32_t sum = 0x9e3779b9;

	for (int i = 0; i < WORDS; i++)
		sum = (sum ^ s->words[i]) * 16777619u;
	return sum;
}

static rfm_record *open_record(rfm_node *node, rfm_layout **layoutp, int writer)
{
	rfm_diag_list *diags = NULL;
	rfm_record *rec = NULL;
	char name[16];

	HARNESS_CHECK_RFM(rfm_layout_load_string(layout_yaml, sizeof(layout_yaml) - 1, "load.yaml",
						 layoutp, &diags));
	snprintf(name, sizeof(name), "w%d.rec", writer);
	HARNESS_CHECK_RFM(rfm_record_open(*layoutp, node, name, &rec));
	return rec;
}

static int record_writer(struct harness_link *link, struct role *role, rfm_node *node,
			 struct report *r)
{
	rfm_layout *layout;
	rfm_record *rec = open_record(node, &layout, role->node_id);
	struct sample s;
	uint64_t end;

	harness_link_ready(link);
	harness_link_wait_go(link);
	end = now_ns() + (uint64_t)(role->seconds * 1e9);
	for (uint32_t n = 0; now_ns() < end; n++) {
		for (int i = 0; i < WORDS; i++)
			s.words[i] = n * 2654435761u + (uint32_t)i;
		s.sum = checksum(&s);
		HARNESS_CHECK_RFM(rfm_record_write(rec, &s, sizeof(s)));
		r->ops++;
	}
	rfm_record_close(rec);
	rfm_layout_free(layout);
	return 0;
}

static int record_reader(struct harness_link *link, struct role *role, rfm_node *node,
			 struct report *r)
{
	rfm_layout *layout;
	rfm_record *recs[WRITERS];
	struct sample s;
	uint64_t end;

	for (int w = 0; w < WRITERS; w++)
		recs[w] = open_record(node, &layout, w), rfm_layout_free(layout);
	harness_link_ready(link);
	harness_link_wait_go(link);
	end = now_ns() + (uint64_t)(role->seconds * 1e9);
	for (uint32_t n = 0; now_ns() < end; n++) {
		uint32_t seq;
		int ret = rfm_record_read(recs[n % WRITERS], &s, sizeof(s), &seq);

		if (ret == RFM_ETORN) {
			r->torn_retries++;
			continue;
		}
		HARNESS_CHECK(ret >= 0); /* the number of retries it took */
		if (seq == 0)
			continue; /* not published yet: the writers start at the same time */
		if (s.sum != checksum(&s))
			r->bad++; /* a torn record was accepted */
		r->ops++;
	}
	for (int w = 0; w < WRITERS; w++)
		rfm_record_close(recs[w]);
	return 0;
}

static int event_sender(struct harness_link *link, struct role *role, rfm_node *node,
			struct report *r)
{
	int pair = (role->node_id - FIRST_EVENT_NODE) / 2;
	uint8_t *base;
	uint64_t end;

	HARNESS_CHECK_RFM(rfm_mem_map(node, (void **)&base, NULL));
	harness_link_ready(link);
	harness_link_wait_go(link);
	end = now_ns() + (uint64_t)(role->seconds * 1e9);
	while (now_ns() < end) {
		/* A full queue drops the record (0 queues reached): the receiver counts it. */
		HARNESS_CHECK(rfm_event_send(node, (unsigned int)role->node_id + 1, RFM_EVENT_INTR1,
					     (uint32_t)r->ops) >= 0);
		r->ops++;
	}
	/* Data, then the flag: the receiver reads the count once it sees the flag. */
	rfm_store64(base, PAIR_AREA + pair * 16, r->ops);
	rfm_store64_release(base, PAIR_AREA + pair * 16 + 8, 1);
	return 0;
}

static int event_receiver(struct harness_link *link, struct role *role, rfm_node *node,
			  struct report *r)
{
	int pair = (role->node_id - FIRST_EVENT_NODE) / 2;
	uint64_t expect_next = 0, sent = 0;
	struct rfm_event ev;
	uint8_t *base;

	HARNESS_CHECK_RFM(rfm_mem_map(node, (void **)&base, NULL));
	HARNESS_CHECK_RFM(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	harness_link_ready(link);
	harness_link_wait_go(link);
	for (;;) {
		int ret = rfm_event_wait(node, &ev, 100000000);

		if (ret == RFM_ETIMEDOUT) {
			if (!rfm_load64_acquire(base, PAIR_AREA + pair * 16 + 8))
				continue;
			sent = rfm_load64(base, PAIR_AREA + pair * 16);
			if (r->ops + r->dropped >= sent)
				break; /* everything sent is accounted for */
			continue;
		}
		HARNESS_CHECK(ret >= 0);
		if (ev.type == RFM_EVENT_OVERFLOW) {
			r->dropped += ev.data;
			continue;
		}
		/* In order, and every gap covered by an overflow announcement. */
		if (ev.type != RFM_EVENT_INTR1 || ev.data < (uint32_t)expect_next)
			r->bad++;
		expect_next = (uint64_t)ev.data + 1;
		r->ops++;
	}
	if (r->ops + r->dropped != sent)
		r->bad++;
	return 0;
}

struct ring_msg {
	uint64_t seq;
	uint64_t words[6];
	uint64_t sum;
};

static uint64_t ring_msg_sum(const struct ring_msg *m)
{
	uint64_t sum = m->seq;

	for (int i = 0; i < 6; i++)
		sum = (sum ^ m->words[i]) * 0x100000001b3ull;
	return sum;
}

static int ring_producer(struct harness_link *link, struct role *role, rfm_node *node,
			 struct report *r)
{
	struct rfm_ring_config cfg = { .struct_size = sizeof(cfg), .slot_size = sizeof(struct ring_msg),
				       .slot_count = 1024 };
	int ring = (role->node_id - FIRST_RING_NODE) / 3;
	struct ring_msg m;
	uint8_t *base;
	rfm_ring *rg;
	uint64_t end;

	HARNESS_CHECK_RFM(rfm_mem_map(node, (void **)&base, NULL));
	HARNESS_CHECK_RFM(rfm_ring_create(node, RING_OFFSET(ring), RING_SPACE, &cfg, &rg));
	harness_link_ready(link); /* consumers start once the ring exists */
	harness_link_wait_go(link);
	end = now_ns() + (uint64_t)(role->seconds * 1e9);
	while (now_ns() < end) {
		m.seq = r->ops;
		for (int i = 0; i < 6; i++)
			m.words[i] = m.seq * 0x9e3779b97f4a7c15ull + (uint64_t)i;
		m.sum = ring_msg_sum(&m);
		/* Without back-pressure the producer never waits: slow consumers are lapped. */
		HARNESS_CHECK_RFM(rfm_ring_publish(rg, &m, sizeof(m), 0));
		r->ops++;
	}
	rfm_store64(base, RING_AREA + ring * 16, r->ops);
	rfm_store64_release(base, RING_AREA + ring * 16 + 8, 1);
	rfm_ring_close(rg);
	return 0;
}

static int ring_consumer(struct harness_link *link, struct role *role, rfm_node *node,
			 struct report *r)
{
	int ring = (role->node_id - FIRST_RING_NODE) / 3;
	uint64_t expect = 0, published = 0;
	struct rfm_ring_msg info;
	rfm_ring_consumer *c;
	struct ring_msg m;
	uint8_t *base;

	HARNESS_CHECK_RFM(rfm_mem_map(node, (void **)&base, NULL));
	HARNESS_CHECK_RFM(rfm_ring_consumer_open(node, RING_OFFSET(ring), 0, &c));
	harness_link_ready(link);
	harness_link_wait_go(link);
	for (;;) {
		int ret = rfm_ring_consume(c, &m, sizeof(m), &info, 100000000);

		if (ret == RFM_ETIMEDOUT || ret == RFM_EAGAIN) {
			if (!rfm_load64_acquire(base, RING_AREA + ring * 16 + 8))
				continue;
			published = rfm_load64(base, RING_AREA + ring * 16);
			if (r->ops + r->dropped >= published)
				break;
			continue;
		}
		HARNESS_CHECK_RFM(ret);
		/* In order: every gap is exactly the loss the ring reports. */
		if (info.seq != expect + info.lost || m.seq != info.seq || m.sum != ring_msg_sum(&m))
			r->bad++;
		r->dropped += info.lost;
		expect = info.seq + 1;
		r->ops++;
	}
	if (r->ops + r->dropped != published)
		r->bad++;
	rfm_ring_consumer_close(c);
	return 0;
}

enum role_kind { WRITER, READER, EVENT_SENDER, EVENT_RECEIVER, RING_PRODUCER, RING_CONSUMER };

static enum role_kind role_of(int id)
{
	if (id < WRITERS)
		return WRITER;
	if (id < FIRST_EVENT_NODE)
		return READER;
	if (id < FIRST_RING_NODE)
		return (id - FIRST_EVENT_NODE) % 2 == 0 ? EVENT_SENDER : EVENT_RECEIVER;
	return (id - FIRST_RING_NODE) % 3 == 0 ? RING_PRODUCER : RING_CONSUMER;
}

static int run_role(struct harness_link *link, void *arg)
{
	struct role *role = arg;
	struct report r = { 0 };
	rfm_node *node;
	int ret;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(role->net, role->node_id), &node));
	switch (role_of(role->node_id)) {
	case WRITER:
		ret = record_writer(link, role, node, &r);
		break;
	case READER:
		ret = record_reader(link, role, node, &r);
		break;
	case EVENT_SENDER:
		ret = event_sender(link, role, node, &r);
		break;
	case EVENT_RECEIVER:
		ret = event_receiver(link, role, node, &r);
		break;
	case RING_PRODUCER:
		ret = ring_producer(link, role, node, &r);
		break;
	default:
		ret = ring_consumer(link, role, node, &r);
		break;
	}
	rfm_close(node);
	harness_link_send(link, &r, sizeof(r));
	return ret;
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(void)
{
	static struct harness_child children[PROCESSES];
	static struct role roles[PROCESSES];
	long rss_first[PROCESSES], rss_last[PROCESSES];
	struct harness_network net;
	const char *env = getenv("LOAD_SECONDS");
	double seconds = env ? atof(env) : 60;
	const char *names[] = { "record writer", "record reader", "event sender",
				"event receiver", "ring producer", "ring consumer" };
	int failures = 0;

	if (seconds <= 0)
		seconds = 60;
	harness_init();
	harness_network_new(&net, 1 << 20);
	/* Ring producers first: their consumers open rings that must exist. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < PROCESSES; i++) {
			if ((role_of(i) == RING_PRODUCER) != (pass == 0))
				continue;
			roles[i] = (struct role){ .net = &net, .node_id = i, .seconds = seconds };
			harness_child_start(&children[i], run_role, &roles[i]);
		}
		for (int i = 0; i < PROCESSES; i++) {
			if ((role_of(i) == RING_PRODUCER) != (pass == 0))
				continue;
			if (harness_child_wait_ready(&children[i])) {
				fprintf(stderr, "load: child %d died before it was ready\n", i);
				harness_kill_children();
				return 1;
			}
		}
	}
	for (int i = 0; i < PROCESSES; i++)
		harness_child_go(&children[i]);

	printf("load: %d processes on %ld cores for %.0f s\n", PROCESSES, sysconf(_SC_NPROCESSORS_ONLN),
	       seconds);
	/* Sample memory once a second while the load runs (sampling, not syncing). */
	const struct timespec second = { 1, 0 };
	for (int t = 0; t <= (int)seconds; t++) {
		for (int i = 0; i < PROCESSES; i++) {
			long kb = rss_kb(children[i].pid);

			if (t == 0)
				rss_first[i] = kb;
			if (kb > 0)
				rss_last[i] = kb;
		}
		if (t < (int)seconds)
			nanosleep(&second, NULL);
	}

	printf("load: %-3s %-15s %14s %10s %10s %6s %12s\n", "id", "role", "operations", "dropped",
	       "etorn", "bad", "RSS KiB");
	for (int i = 0; i < PROCESSES; i++) {
		struct report r;
		int role = (int)role_of(i);

		if (harness_child_recv(&children[i], &r, sizeof(r)) ||
		    harness_child_wait(&children[i]) != 0) {
			printf("load: node %d (%s) did not finish cleanly\n", i, names[role]);
			failures++;
			continue;
		}
		printf("load: %-3d %-15s %14llu %10llu %10llu %6llu %5ld->%ld\n", i, names[role],
		       (unsigned long long)r.ops, (unsigned long long)r.dropped,
		       (unsigned long long)r.torn_retries, (unsigned long long)r.bad,
		       rss_first[i], rss_last[i]);
		if (r.bad || r.ops == 0)
			failures++;
		if (rss_last[i] - rss_first[i] > RSS_GROWTH_LIMIT_KB) {
			printf("load: node %d grew by %ld KiB\n", i, rss_last[i] - rss_first[i]);
			failures++;
		}
	}
	harness_network_destroy(&net);
	printf("load: %d passed, %d failed\n", PROCESSES - failures, failures);
	return failures ? 1 : 0;
}
