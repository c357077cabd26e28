/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hostile co-tenant suite (docs/security.md): a scribbler process writes
 * random and targeted garbage into one shared structure of a live shm:
 * network per case, while victim processes send, receive, consume and
 * read through the library (built with ASan in CI).
 *
 * Victims: node 1 produces two rings, publishes a record, sends events and
 * beats; node 2 receives events and reads the node table; node 3 consumes
 * both rings; node 4 reads and waits on the record; node 5 opens and
 * closes its node in a loop.
 *
 * A case passes when every victim ends by itself with status 0: no crash,
 * no sanitizer report (they exit non-zero), no hang (killed by PID after a
 * grace period). The scribbler goes on until every victim has ended, so a
 * library call that would not end by its timeout while the damage lasts
 * keeps its victim from ending: a hang, not a slow call (no assertion
 * here depends on how long a call took; the longest is printed). Damaged
 * data is allowed: errors and losses are counted and printed.
 *
 *   hostile-run [--list] [--seed N] [--seconds S] [CASE...]
 *
 * Every case runs with the seed printed (default: from the clock); run
 * one again with --seed and its name. RFM_HOSTILE_SECONDS sets the
 * scribbling time per case (default 2.5).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "harness.h"
#include "backends/shm/shm-segment.h"

#define WINDOW (1024 * 1024)
#define RING_A 0x10000		/* notify ring, produced by node 1 */
#define RING_B 0x40000		/* back-pressure ring, produced by node 1 */
#define RING_SPACE 0x20000
#define REC_OFF 0x80000		/* the layout's region */
#define CALL_TIMEOUT_NS (100 * 1000000ll)
#define GRACE_S 10			/* after the case: then a victim is hung */

static const char layout_text[] = "version: 1\n"
				  "window: 1M\n"
				  "regions:\n"
				  "  - name: state\n"
				  "    offset: 0x80000\n"
				  "    size: 0x1000\n"
				  "    writer: 1\n"
				  "    records:\n"
				  "      - name: frame\n"
				  "        notify: intr2\n"
				  "        variables: [ { name: x, type: u64 }, { name: y, type: u64 } ]\n";

static double seconds = 2.5;
static struct harness_network net;

/* ---- what a victim reports ---- */

struct report {
	char role[16];
	uint64_t ops, errors, timeouts, lost, max_call_ns;
	uint64_t taken;		/* messages or events received */
	int first_error;
};

static uint64_t now_ns(void)
{
	return rfm_event_now_ns();
}

/* Account one library call that started at @t0 (its duration is only printed). */
static void account(struct report *r, uint64_t t0, int ret)
{
	uint64_t took = now_ns() - t0;

	r->ops++;
	if (took > r->max_call_ns)
		r->max_call_ns = took;
	if (ret == RFM_ETIMEDOUT || ret == RFM_EAGAIN)
		r->timeouts++;
	else if (ret < 0) {
		if (!r->errors)
			r->first_error = ret;
		r->errors++;
	}
}

/* Calls that return a count or tries: 0 for any, else the error. */
static int code_of(int ret)
{
	return ret >= 0 ? 0 : ret;
}

#define CALL(r, expr)                                   \
	do {                                            \
		uint64_t t0_ = now_ns();                \
		int ret_ = (expr);                      \
		account((r), t0_, ret_);                \
	} while (0)

static rfm_node *open_node(int id)
{
	rfm_node *node;

	if (rfm_open(harness_node_uri(&net, id), &node)) {
		fprintf(stderr, "hostile: node %d: %s\n", id, rfm_last_error());
		exit(2);
	}
	return node;
}

static rfm_layout *load_layout(void)
{
	rfm_layout *layout = NULL;

	if (rfm_layout_load_string(layout_text, strlen(layout_text), "hostile", &layout, NULL)) {
		fprintf(stderr, "hostile: layout: %s\n", rfm_last_error());
		exit(2);
	}
	return layout;
}

static void finish(struct harness_link *link, struct report *r)
{
	harness_link_send(link, r, sizeof(*r));
}

/* ---- victims ---- */

/* Node 1: produces both rings, publishes the record, sends events, beats. */
static int producer(struct harness_link *link, void *arg)
{
	struct rfm_ring_config a = { .struct_size = sizeof(a), .slot_size = 64, .slot_count = 64,
				     .flags = RFM_RING_F_NOTIFY, .ring_id = 1 };
	struct rfm_ring_config b = { .struct_size = sizeof(b), .slot_size = 64, .slot_count = 64,
				     .flags = RFM_RING_F_BACKPRESSURE | RFM_RING_F_NOTIFY,
				     .notify_type = RFM_EVENT_INTR4, .ring_id = 2 };
	struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = 5000000 };
	struct report r = { .role = "producer" };
	rfm_node *node = open_node(1);
	rfm_layout *layout = load_layout();
	rfm_ring *ra, *rb;
	rfm_record *rec;
	uint64_t msg[8] = { 0 };

	(void)arg;
	if (rfm_ring_create(node, RING_A, RING_SPACE, &a, &ra) ||
	    rfm_ring_create(node, RING_B, RING_SPACE, &b, &rb) ||
	    rfm_record_open(layout, node, "state.frame", &rec) || rfm_health_start(node, &hc)) {
		fprintf(stderr, "hostile: producer setup: %s\n", rfm_last_error());
		return 2;
	}
	harness_link_ready(link);
	harness_link_wait_go(link);
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	for (uint64_t i = 0; now_ns() < end; i++) {
		uint64_t xy[2] = { i, ~i };

		msg[0] = i;
		CALL(&r, rfm_ring_publish(ra, msg, sizeof(msg), 0));
		CALL(&r, rfm_ring_publish(rb, msg, sizeof(msg), CALL_TIMEOUT_NS));
		CALL(&r, rfm_record_write(rec, xy, sizeof(xy)));
		CALL(&r, rfm_event_send(node, i % 2 ? 2 : RFM_NODE_ALL, RFM_EVENT_INTR1, (uint32_t)i));
	}
	rfm_health_stop(node);
	rfm_record_close(rec);
	rfm_ring_close(ra);
	rfm_ring_close(rb);
	rfm_layout_free(layout);
	rfm_close(node);
	finish(link, &r);
	return 0;
}

/* Node 2: receives events, reads the node table. */
static int receiver(struct harness_link *link, void *arg)
{
	struct report r = { .role = "receiver" };
	rfm_node *node = open_node(2);
	struct rfm_node_status rows[8];

	(void)arg;
	if (rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1))) {
		fprintf(stderr, "hostile: receiver setup: %s\n", rfm_last_error());
		return 2;
	}
	harness_link_ready(link);
	harness_link_wait_go(link);
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		struct rfm_event evs[16];

		int got = 0;

		CALL(&r, code_of(got = rfm_event_fetch(node, evs, 16, CALL_TIMEOUT_NS)));
		if (got > 0)
			r.taken += (uint64_t)got;
		CALL(&r, code_of(rfm_health_nodes(node, rows, 8)));
	}
	rfm_close(node);
	finish(link, &r);
	return 0;
}

/* Node 3: consumes both rings (and reopens its consumers now and then). */
static int consumer(struct harness_link *link, void *arg)
{
	struct report r = { .role = "consumer" };
	rfm_node *node = open_node(3);
	rfm_ring_consumer *ca = NULL, *cb = NULL;
	uint8_t buf[64];

	(void)arg;
	if (rfm_ring_consumer_open(node, RING_A, 0, &ca) ||
	    rfm_ring_consumer_open(node, RING_B, RFM_RING_CONSUMER_BACKPRESSURE, &cb)) {
		fprintf(stderr, "hostile: consumer setup: %s\n", rfm_last_error());
		return 2;
	}
	harness_link_ready(link);
	harness_link_wait_go(link);
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	for (uint64_t i = 1; now_ns() < end; i++) {
		struct rfm_ring_msg m = { 0 };

		if (ca) {
			int ret = rfm_ring_consume(ca, buf, sizeof(buf), &m, CALL_TIMEOUT_NS);
			CALL(&r, ret);
			if (!ret) {
				r.taken++;
				r.lost += m.lost;
			}
		}
		if (cb) {
			int ret = rfm_ring_consume(cb, buf, sizeof(buf), &m, CALL_TIMEOUT_NS);
			CALL(&r, ret);
			if (!ret) {
				r.taken++;
				r.lost += m.lost;
			}
		}
		if (i % 64 == 0) {
			/* Validation of a scribbled header happens at open. */
			rfm_ring_consumer_close(ca);
			rfm_ring_consumer_close(cb);
			ca = cb = NULL;
			CALL(&r, rfm_ring_consumer_open(node, RING_A, RFM_RING_CONSUMER_NEWEST, &ca));
			CALL(&r, rfm_ring_consumer_open(node, RING_B,
							RFM_RING_CONSUMER_NEWEST |
							RFM_RING_CONSUMER_BACKPRESSURE, &cb));
		}
	}
	rfm_ring_consumer_close(ca);
	rfm_ring_consumer_close(cb);
	rfm_close(node);
	finish(link, &r);
	return 0;
}

/* Node 4: reads and waits on the record, reads the window. */
static int reader(struct harness_link *link, void *arg)
{
	struct report r = { .role = "reader" };
	rfm_node *node = open_node(4);
	rfm_layout *layout = load_layout();
	rfm_record *rec;
	uint64_t xy[2], raw[16];
	uint32_t seq = 0;

	(void)arg;
	if (rfm_record_open(layout, node, "state.frame", &rec)) {
		fprintf(stderr, "hostile: reader setup: %s\n", rfm_last_error());
		return 2;
	}
	harness_link_ready(link);
	harness_link_wait_go(link);
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		CALL(&r, code_of(rfm_record_read(rec, xy, sizeof(xy), &seq)));
		CALL(&r, rfm_record_wait(rec, seq, CALL_TIMEOUT_NS, &seq));
		CALL(&r, rfm_mem_read(node, RING_A, raw, sizeof(raw)));
	}
	rfm_record_close(rec);
	rfm_layout_free(layout);
	rfm_close(node);
	finish(link, &r);
	return 0;
}

/* Node 5: opens and closes its node again and again (validation at attach). */
static int opener(struct harness_link *link, void *arg)
{
	struct report r = { .role = "opener" };

	(void)arg;
	harness_link_ready(link);
	harness_link_wait_go(link);
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end) {
		rfm_node *node = NULL;
		uint64_t t0 = now_ns();
		int ret = rfm_open(harness_node_uri(&net, 5), &node);

		/* An open waits for the network's open lock: 5 s at most. */
		account(&r, t0, ret);
		if (!ret) {
			r.taken++;
			rfm_close(node);
		}
	}
	finish(link, &r);
	return 0;
}

/* ---- the scribbler ---- */

struct area {
	uint64_t start, len;	/* in the segment file */
};

#define MAX_AREAS 64

struct hostile_case;
typedef void (*area_fn)(const struct rfm_shm_header *h, const uint8_t *seg, struct area *areas,
			size_t *n);

struct hostile_case {
	const char *name;
	const char *what;
	area_fn areas;
};

static void header_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
                        size_t *n)
{
	(void)seg;
	(void)h;
	a[(*n)++] = (struct area){ 0, sizeof(struct rfm_shm_header) };
}

static void node_table_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
                            size_t *n)
{
	(void)seg;
	a[(*n)++] = (struct area){ h->node_table_offset, 256 * sizeof(struct rfm_shm_node_entry) };
}

/* The heartbeat slots of the nodes in use: in the heartbeat table, the
 * window's last RFM_HEALTH_TABLE_SIZE bytes. */
static void heartbeat_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
                           size_t *n)
{
	(void)seg;
	for (int id = 1; id <= 4; id++)
		a[(*n)++] = (struct area){ h->window_offset + h->window_size -
						   RFM_HEALTH_TABLE_SIZE +
						   (uint64_t)id * RFM_HEALTH_SLOT_SIZE,
					   RFM_HEALTH_SLOT_SIZE };
}

/*
 * The queues of nodes 1..4 that have receivers: headers and slots. Queues
 * are slabs after the window, made when a handle enables events; the node
 * entry names each queue's slab (queue_slab[j] - 1).
 */
static void queue_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
		       size_t *n)
{
	for (int id = 1; id <= 4; id++) {
		const struct rfm_shm_node_entry *e =
			(const void *)(seg + h->node_table_offset +
				       (uint64_t)id * sizeof(struct rfm_shm_node_entry));

		for (unsigned int j = 0; j < RFM_SHM_QUEUES_PER_NODE && *n < MAX_AREAS; j++)
			if (e->queue_slab[j])
				a[(*n)++] = (struct area){ h->event_offset +
								   (uint64_t)(e->queue_slab[j] - 1) *
									   h->queue_stride,
							   h->queue_stride };
	}
}

static void ring_header_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
                             size_t *n)
{
	(void)seg;
	a[(*n)++] = (struct area){ h->window_offset + RING_A, 128 };
	a[(*n)++] = (struct area){ h->window_offset + RING_B, 128 };
}

/* Slots: 64 slots of 128 bytes after each header. */
static void ring_slot_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
                           size_t *n)
{
	(void)seg;
	a[(*n)++] = (struct area){ h->window_offset + RING_A + 128, 64 * 128 };
	a[(*n)++] = (struct area){ h->window_offset + RING_B + 128, 64 * 128 };
}

/* Consumer tables after the slots: the directory (1 KiB) and a row of two
 * 32-byte entries (cursor, owner, sleep, pid...) per node id. */
#define TABLE_BYTES (1024 + 256 * 2 * 32)

static void ring_cursor_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
                             size_t *n)
{
	(void)seg;
	a[(*n)++] = (struct area){ h->window_offset + RING_A + 128 + 64 * 128, TABLE_BYTES };
	a[(*n)++] = (struct area){ h->window_offset + RING_B + 128 + 64 * 128, TABLE_BYTES };
}

static void record_area(const struct rfm_shm_header *h, const uint8_t *seg, struct area *a,
                        size_t *n)
{
	(void)seg;
	a[(*n)++] = (struct area){ h->window_offset + REC_OFF, 64 };
}

static const struct hostile_case cases[] = {
	{ "segment-header", "the segment header (offsets, sizes, magic, listening)", header_area },
	{ "node-table", "the node table (state, incarnation, pid, queue bits)", node_table_area },
	{ "heartbeats", "the heartbeat slots of the nodes in use (in the window)", heartbeat_area },
	{ "event-queues", "event queue headers and slots of nodes 1-4", queue_area },
	{ "ring-headers", "both ring headers (shape, head, wait word)", ring_header_area },
	{ "ring-slots", "ring slots (stamps, lengths, data)", ring_slot_area },
	{ "ring-cursors", "ring consumer tables (directory; cursor, owner, sleep, pid)",
	  ring_cursor_area },
	{ "records", "the record's sequence word and data", record_area },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic from the printed seed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* A value hostile to whoever reads it as a count, offset or index. */
static uint64_t nasty(void)
{
	static const uint64_t v[] = { 0, 1, 0xff, 0xffff, 0xffffffffu, UINT64_MAX,
				      UINT64_MAX - 1, 1ull << 63, 0x7fffffffffffffffull,
				      0x100000000ull, 4096, 0xdeadbeef };

	return rnd() % 3 ? v[rnd() % (sizeof(v) / sizeof(v[0]))] : rnd();
}

static int scribbler(struct harness_link *link, void *arg)
{
	const struct hostile_case *c = arg;
	char path[256];
	struct rfm_shm_header h;
	struct area areas[MAX_AREAS];
	size_t nareas = 0;
	uint64_t writes = 0;
	struct stat st;
	int fd;

	if (!harness_shm_path(&net, path, sizeof(path)) || (fd = open(path, O_RDWR)) < 0 ||
	    fstat(fd, &st) < 0) {
		fprintf(stderr, "hostile: scribbler: cannot open %s: %s\n", path, strerror(errno));
		return 2;
	}
	uint8_t *seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (seg == MAP_FAILED)
		return 2;
	memcpy(&h, seg, sizeof(h)); /* where things are, before anything is damaged */
	c->areas(&h, seg, areas, &nareas);
	if (nareas == 0) {
		fprintf(stderr, "hostile: scribbler: %s: nothing to scribble on\n", c->name);
		return 2;
	}
	harness_link_ready(link);
	harness_link_wait_go(link);
	/* Until the parent's second go, sent once every victim has ended. */
	struct pollfd stop = { .fd = link->go_fd, .events = POLLIN };
	while (poll(&stop, 1, 0) == 0) {
		const struct area *a = &areas[rnd() % nareas];
		uint64_t off = a->start + (rnd() % a->len & ~7ull);

		if (off + 8 > (uint64_t)st.st_size)
			continue; /* beyond what we mapped: a queue not reserved */
		switch (rnd() % 4) {
		case 0: /* a hostile 64-bit value */
			__atomic_store_n((uint64_t *)(seg + off), nasty(), __ATOMIC_RELAXED);
			break;
		case 1: /* a hostile 32-bit value */
			__atomic_store_n((uint32_t *)(seg + off + (rnd() & 4)), (uint32_t)nasty(),
					 __ATOMIC_RELAXED);
			break;
		case 2: { /* a run of 0xff, as a dead writer's fill */
			uint64_t len = 8 + rnd() % 256;
			if (len > a->start + a->len - off)
				len = a->start + a->len - off;
			memset(seg + off, 0xff, len);
			break;
		}
		default: /* random bytes */
			for (int i = 0; i < 8; i++)
				seg[off + (uint64_t)i] = (uint8_t)rnd();
			break;
		}
		writes++;
		/* Let the victims run between bursts. */
		if (writes % 32 == 0) {
			struct timespec ts = { 0, 200000 };
			nanosleep(&ts, NULL);
		}
	}
	harness_link_send(link, &writes, sizeof(writes));
	return 0;
}

/* ---- running a case ---- */

struct victim {
	const char *role;
	harness_child_fn fn;
	struct harness_child child;
};

/* Wait for @child until @deadline_ns; kill it by PID past it. Its status, or -1 if hung. */
static int wait_or_kill(struct harness_child *child, uint64_t deadline_ns)
{
	for (;;) {
		int status;
		pid_t p = waitpid(child->pid, &status, WNOHANG);

		if (p == child->pid) {
			child->reaped = true;
			child->status = status;
			if (WIFEXITED(status))
				return WEXITSTATUS(status);
			return 128 + WTERMSIG(status);
		}
		if (now_ns() >= deadline_ns) {
			harness_child_kill(child);
			return -1;
		}
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
}

static bool run_case(const struct hostile_case *c, uint64_t seed)
{
	struct victim victims[] = {
		{ "producer", producer, { 0 } },
		{ "receiver", receiver, { 0 } },
		{ "consumer", consumer, { 0 } },
		{ "reader", reader, { 0 } },
		{ "opener", opener, { 0 } },
	};
	const size_t nv = sizeof(victims) / sizeof(victims[0]);
	struct harness_child scrib;
	bool ok = true;
	uint64_t writes = 0;

	printf("hostile: case %s (seed %" PRIu64 "): scribbling on %s for %.1f s\n", c->name,
	       seed, c->what, seconds);
	fflush(stdout);
	rng_state = seed ? seed : 1;
	harness_network_new(&net, WINDOW);
	/* The producer first: it creates the rings the consumer opens. */
	for (size_t i = 0; i < nv; i++) {
		harness_child_start(&victims[i].child, victims[i].fn, NULL);
		if (harness_child_wait_ready(&victims[i].child)) {
			printf("hostile: %s: victim %s died during setup\n", c->name,
			       victims[i].role);
			ok = false;
		}
	}
	harness_child_start(&scrib, scribbler, (void *)c);
	if (harness_child_wait_ready(&scrib)) {
		printf("hostile: %s: the scribbler died during setup\n", c->name);
		ok = false;
	}
	harness_child_go(&scrib);
	for (size_t i = 0; i < nv; i++)
		harness_child_go(&victims[i].child);

	uint64_t deadline = now_ns() + (uint64_t)((seconds + GRACE_S) * 1e9);
	for (size_t i = 0; i < nv; i++) {
		int st = wait_or_kill(&victims[i].child, deadline);
		struct report r;

		if (st != 0) {
			printf("hostile: %s: FAIL: victim %s %s %d\n", c->name, victims[i].role,
			       st < 0 ? "hung, killed by PID" : "ended with status", st);
			ok = false;
			continue;
		}
		if (harness_child_recv(&victims[i].child, &r, sizeof(r))) {
			printf("hostile: %s: FAIL: victim %s sent no report\n", c->name,
			       victims[i].role);
			ok = false;
			continue;
		}
		printf("hostile: %s: %-8s %8" PRIu64 " calls, %6" PRIu64 " errors (first %d), %6"
		       PRIu64 " timeouts, %7" PRIu64 " taken, %7" PRIu64
		       " lost, longest call %.3f s%s\n",
		       c->name, r.role, r.ops, r.errors, r.first_error, r.timeouts, r.taken, r.lost,
		       r.max_call_ns / 1e9, r.ops ? "" : ": FAIL: no call made");
		if (!r.ops)
			ok = false;
	}
	/* Every victim has ended (or was killed): now the damage may stop. */
	harness_child_go(&scrib);
	deadline = now_ns() + (uint64_t)GRACE_S * 1000000000ull;
	if (wait_or_kill(&scrib, deadline) != 0 || harness_child_recv(&scrib, &writes,
								      sizeof(writes))) {
		printf("hostile: %s: FAIL: the scribbler did not finish\n", c->name);
		ok = false;
	}
	if (writes == 0) { /* a case that damages nothing proves nothing */
		printf("hostile: %s: FAIL: the scribbler found nothing to damage\n", c->name);
		ok = false;
	}
	printf("hostile: %s: %" PRIu64 " scribbles: %s\n", c->name, writes, ok ? "pass" : "FAIL");
	fflush(stdout);
	harness_kill_children();
	harness_network_destroy(&net);
	return ok;
}

static const struct hostile_case *find_case(const char *name)
{
	for (size_t i = 0; i < NCASES; i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL);
	const struct hostile_case *chosen[NCASES];
	size_t nchosen = 0, failed = 0;
	const char *env = getenv("RFM_HOSTILE_SECONDS");

	if (env && atof(env) > 0)
		seconds = atof(env);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (size_t k = 0; k < NCASES; k++)
				printf("%-16s %s\n", cases[k].name, cases[k].what);
			return 0;
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (find_case(argv[i])) {
			if (nchosen < NCASES)
				chosen[nchosen++] = find_case(argv[i]);
		} else {
			fprintf(stderr, "usage: hostile-run [--list] [--seed N] [--seconds S] "
					"[CASE...]\nunknown case '%s' (--list shows them)\n",
				argv[i]);
			return 2;
		}
	}
	if (!nchosen)
		for (size_t k = 0; k < NCASES; k++)
			chosen[nchosen++] = &cases[k];
	harness_init();
	harness_require(HARNESS_CAP_SEGMENT | HARNESS_CAP_FORK | HARNESS_CAP_ANY_NODE_ID |
			    HARNESS_CAP_WINDOW_SIZE,
			"scribbles on the network's segment file while node processes work");
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < nchosen; i++)
		if (!run_case(chosen[i], seed + i))
			failed++;
	printf("hostile: %zu passed, %zu failed (seed %" PRIu64 "; one case again: "
	       "hostile-run --seed N CASE with the seed printed for it)\n",
	       nchosen - failed, failed, seed);
	return failed ? 1 : 0;
}
