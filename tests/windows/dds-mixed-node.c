/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One node of the mixed Windows/Linux dds: test (test-dds-mixed.sh): the
 * same program, built natively and with mingw-w64, runs once on Linux and
 * once under wine, the two nodes of one dds: network. Each does what the
 * other checks, both ways at once, step by step; every step is announced
 * to the peer with an INTR1 event whose data is the step's number, sent
 * after the step's writes (a dds: event follows its data), so each wait is
 * on the peer's word, never on time. Every wait has a deadline: a hang
 * guard, not a timing assertion.
 *
 *   nodes    NODE_UP of the peer (health monitors on both), its row in
 *            rfm_health_nodes(): attached, a host name, and the pid the
 *            peer wrote into the window
 *   memory   the peer's 64 KiB area, byte for byte: writes of 1, 13, 8 and
 *            61440 bytes at odd and even offsets, zeros around them
 *   vars     typed variables of every width, little- and big-endian,
 *            through a layout: values, and the window's bytes in the
 *            layout's order whatever the host's
 *   events   200 INTR3 of the peer, in order, each with its number
 *   ring     a ring each way: the producer on one node, its consumer (with
 *            back-pressure) on the other: 300 messages of 1..200 bytes,
 *            each checked
 *   record   200 publishes of a record each way; the last one read
 *   recording --record FILE: a CSV recorder on this node records the
 *            peer's record while the peer (--recorded) publishes 50 more,
 *            each after the recorder took the one before (INTR4 both
 *            ways): 50 rows, in order, every value checked, none missed
 *
 * Usage: dds-mixed-node URI ID PEER [--record FILE.csv | --recorded]
 * Prints "ok NAME" or "not ok NAME: why" for each check and "done"; exits
 * 0 when every check passed, 1 otherwise, 2 on a usage error.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rfm/rfm.h>

#define SECOND 1000000000ll
#define DEADLINE (60 * SECOND) /* a hang guard: wine's first start is slow */
#define AREA 0x10000u	       /* node N's raw area: N * AREA .. + AREA */
#define PID_AT 0xff00u	       /* in it: the writer's pid, a u32 */
#define BURST 200u
#define RING_MSGS 300u
/* Below the heartbeat table, the window's last 16 KiB (health.h). */
#define RING_AT(id) (0x34000u + ((id)-1u) * 0x4000u)
#define PUBLISHES 200u
#define RECORDED 50u /* publishes the peer's recorder takes one by one */

/* Region nN at 0x30000 + 0x100 * (N - 1), written by node N. */
static const char layout_text[] = "version: 1\n"
				  "window: 256K\n"
				  "regions:\n"
				  "%s";
static const char region_text[] = "  - name: n%u\n"
				  "    offset: 0x%x\n"
				  "    size: 0x100\n"
				  "    writer: %u\n"
				  "    variables:\n"
				  "      - { name: le16, type: u16 }\n"
				  "      - { name: be16, type: u16, byte_order: big }\n"
				  "      - { name: le32, type: u32 }\n"
				  "      - { name: be32, type: u32, byte_order: big }\n"
				  "      - { name: le64, type: u64 }\n"
				  "      - { name: be64, type: u64, byte_order: big }\n"
				  "      - { name: lei32, type: i32 }\n"
				  "      - { name: bei32, type: i32, byte_order: big }\n"
				  "      - { name: lef32, type: f32 }\n"
				  "      - { name: bef32, type: f32, byte_order: big }\n"
				  "      - { name: lef64, type: f64 }\n"
				  "      - { name: bef64, type: f64, byte_order: big }\n"
				  "    records:\n"
				  "      - name: rec\n"
				  "        variables:\n"
				  "          - { name: n, type: u32 }\n"
				  "          - { name: x, type: f64, byte_order: big }\n";

static unsigned int failures;
static rfm_node *node;
static unsigned int me, peer;

static void check(bool ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok %s\n", name);
		return;
	}
	failures++;
	printf("not ok %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The library's answer, for a check that failed on a call. */
static bool call_ok(int ret, const char *name, const char *what)
{
	if (ret >= 0)
		return true;
	check(false, name, "%s: %s (%d)", what, rfm_last_error(), ret);
	return false;
}

/* The bytes node @id writes as piece @piece: the same on both sides. */
static void pattern(unsigned int id, unsigned int piece, uint8_t *buf, size_t len)
{
	uint32_t x = 0x9e3779b9u * (id * 16 + piece + 1);

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)(x >> 11);
	}
}

static const struct piece {
	uint32_t offset, len;
} pieces[] = {{1, 1}, {3, 13}, {0x40, 8}, {0x100, 0xf000}};

/* ---- events: taken in order, the ones not waited for kept for later ---- */

static struct rfm_event backlog[1024];
static unsigned int backlog_n;

/* The next event of @type from @from, or false at the deadline. */
static bool wait_event(unsigned int type, unsigned int from, struct rfm_event *out)
{
	for (unsigned int i = 0; i < backlog_n; i++)
		if (backlog[i].type == type && backlog[i].sender == from) {
			*out = backlog[i];
			memmove(&backlog[i], &backlog[i + 1], (backlog_n - i - 1) * sizeof(*out));
			backlog_n--;
			return true;
		}
	for (;;) {
		struct rfm_event ev;
		int ret = rfm_event_wait(node, &ev, DEADLINE);

		if (ret) {
			printf("# waiting for event %u from %u: %s\n", type, from,
			       ret == RFM_ETIMEDOUT ? "timed out" : rfm_last_error());
			return false;
		}
		if (ev.type == type && ev.sender == from) {
			*out = ev;
			return true;
		}
		if (backlog_n == sizeof(backlog) / sizeof(backlog[0])) {
			printf("# event backlog full\n");
			return false;
		}
		backlog[backlog_n++] = ev;
	}
}

/* Tell the peer step @step is done (after its writes), then wait for its word. */
static bool step(unsigned int n, const char *name)
{
	struct rfm_event ev;
	int ret = rfm_event_send(node, peer, RFM_EVENT_INTR1, n);

	if (!call_ok(ret, name, "announcing the step"))
		return false;
	if (!wait_event(RFM_EVENT_INTR1, peer, &ev)) {
		check(false, name, "no word from node %u", peer);
		return false;
	}
	if (ev.data != n) {
		check(false, name, "node %u is at step %u, not %u", peer, ev.data, n);
		return false;
	}
	return true;
}

/* ---- nodes: NODE_UP and the peer's row ---- */

static void test_node_up(void)
{
	struct rfm_event ev;

	check(wait_event(RFM_EVENT_NODE_UP, peer, &ev), "node-up", "no NODE_UP of node %u", peer);
}

static void test_peer_row(void)
{
	struct rfm_node_status rows[8];
	uint32_t pid = 0;
	int n = rfm_health_nodes(node, rows, 8);

	if (!call_ok(n, "peer-row", "rfm_health_nodes") ||
	    !call_ok(rfm_mem_read(node, peer * AREA + PID_AT, &pid, sizeof(pid)), "peer-row",
		     "reading the peer's pid"))
		return;
	for (int i = 0; i < n; i++) {
		if (rows[i].id != peer)
			continue;
		/* Attached; "alive" needs a beat seen to move, a period after NODE_UP. */
		check(rows[i].attached && (uint32_t)rows[i].pid == pid && rows[i].host[0],
		      "peer-row", "node %u: attached %u pid %d (it says %u) host '%s'", peer,
		      rows[i].attached, rows[i].pid, pid, rows[i].host);
		return;
	}
	check(false, "peer-row", "no row of node %u among %d", peer, n);
}

/* ---- memory ---- */

static int write_memory(void)
{
	static uint8_t buf[0xf000];
	uint32_t pid = (uint32_t)getpid();

	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		pattern(me, (unsigned int)i, buf, pieces[i].len);
		int ret = rfm_mem_write(node, me * AREA + pieces[i].offset, buf, pieces[i].len);
		if (ret)
			return ret;
	}
	return rfm_mem_write(node, me * AREA + PID_AT, &pid, sizeof(pid));
}

static void test_memory(void)
{
	static uint8_t want[AREA], got[AREA];
	size_t first = AREA;

	memset(want, 0, sizeof(want));
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++)
		pattern(peer, (unsigned int)i, want + pieces[i].offset, pieces[i].len);
	if (!call_ok(rfm_mem_read(node, peer * AREA, got, AREA), "memory", "rfm_mem_read"))
		return;
	/* The pid is the peer's own: taken from what it wrote. */
	memcpy(want + PID_AT, got + PID_AT, 4);
	for (size_t i = 0; i < AREA && first == AREA; i++)
		if (got[i] != want[i])
			first = i;
	check(first == AREA, "memory", "node %u's area differs first at +0x%x: 0x%02x, not 0x%02x",
	      peer, (unsigned int)first, first < AREA ? got[first] : 0,
	      first < AREA ? want[first] : 0);
}

/* ---- typed variables, both byte orders ---- */

struct values {
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	int32_t i32;
	float f32;
	double f64;
};

static struct values values_of(unsigned int id)
{
	return (struct values){.u16 = (uint16_t)(0x1234u + id),
			       .u32 = 0x11223344u + id,
			       .u64 = UINT64_C(0x0102030405060708) + id,
			       .i32 = -1000000 - (int32_t)id,
			       .f32 = 1.5f * (float)id + 0.25f,
			       .f64 = -2.75 * id + 1e-9};
}

static int open_var(rfm_layout *layout, unsigned int id, const char *name, rfm_var **v)
{
	char full[32];

	snprintf(full, sizeof(full), "n%u.%s", id, name);
	return rfm_var_open(layout, node, full, v);
}

static int write_vars(rfm_layout *layout)
{
	static const char *const names[] = {"le16",  "be16",  "le32",  "be32",	"le64",	 "be64",
					    "lei32", "bei32", "lef32", "bef32", "lef64", "bef64"};
	struct values v = values_of(me);
	int ret = 0;

	for (size_t i = 0; i < 12 && !ret; i++) {
		rfm_var *var;

		ret = open_var(layout, me, names[i], &var);
		if (ret)
			break;
		switch (i / 2) {
		case 0:
			ret = rfm_var_set_u16(var, 0, v.u16);
			break;
		case 1:
			ret = rfm_var_set_u32(var, 0, v.u32);
			break;
		case 2:
			ret = rfm_var_set_u64(var, 0, v.u64);
			break;
		case 3:
			ret = rfm_var_set_i32(var, 0, v.i32);
			break;
		case 4:
			ret = rfm_var_set_f32(var, 0, v.f32);
			break;
		default:
			ret = rfm_var_set_f64(var, 0, v.f64);
			break;
		}
		rfm_var_close(var);
	}
	return ret;
}

/* The window's bytes of the peer's variable @name: @size bytes of @value in @big order. */
static void check_bytes(rfm_layout *layout, const char *name, uint64_t value, unsigned int size,
			bool big)
{
	struct rfm_var_info info = {.struct_size = sizeof(info)};
	uint8_t got[8], want[8];
	char label[40];
	rfm_var *var;

	snprintf(label, sizeof(label), "vars-bytes-%s", name);
	if (!call_ok(open_var(layout, peer, name, &var), label, "rfm_var_open"))
		return;
	int ret = rfm_var_get_info(var, &info);
	rfm_var_close(var);
	if (!call_ok(ret, label, "rfm_var_get_info") ||
	    !call_ok(rfm_mem_read(node, info.offset, got, size), label, "rfm_mem_read"))
		return;
	for (unsigned int i = 0; i < size; i++)
		want[big ? i : size - 1 - i] = (uint8_t)(value >> (8 * (size - 1 - i)));
	check(!memcmp(got, want, size) &&
		  info.byte_order == (big ? RFM_ORDER_BIG : RFM_ORDER_LITTLE),
	      label, "at 0x%llx: %02x %02x %02x %02x..., want %02x %02x %02x %02x...",
	      (unsigned long long)info.offset, got[0], got[1], got[2], got[3], want[0], want[1],
	      want[2], want[3]);
}

static void test_vars(rfm_layout *layout)
{
	struct values want = values_of(peer);
	bool big = false;

	for (int k = 0; k < 2; k++, big = true) {
		struct values got = {0};
		rfm_var *v[6];
		const char *pre = big ? "be" : "le";
		char n[6][8];
		int ret = 0;

		snprintf(n[0], 8, "%s16", pre);
		snprintf(n[1], 8, "%s32", pre);
		snprintf(n[2], 8, "%s64", pre);
		snprintf(n[3], 8, "%si32", pre);
		snprintf(n[4], 8, "%sf32", pre);
		snprintf(n[5], 8, "%sf64", pre);
		for (int i = 0; i < 6; i++)
			v[i] = NULL;
		for (int i = 0; i < 6 && !ret; i++)
			ret = open_var(layout, peer, n[i], &v[i]);
		if (!ret)
			ret = rfm_var_get_u16(v[0], 0, &got.u16) |
			      rfm_var_get_u32(v[1], 0, &got.u32) |
			      rfm_var_get_u64(v[2], 0, &got.u64) |
			      rfm_var_get_i32(v[3], 0, &got.i32) |
			      rfm_var_get_f32(v[4], 0, &got.f32) |
			      rfm_var_get_f64(v[5], 0, &got.f64);
		for (int i = 0; i < 6; i++)
			rfm_var_close(v[i]);
		if (!call_ok(ret, big ? "vars-big" : "vars-little", "reading the variables"))
			continue;
		check(got.u16 == want.u16 && got.u32 == want.u32 && got.u64 == want.u64 &&
			  got.i32 == want.i32 && got.f32 == want.f32 && got.f64 == want.f64,
		      big ? "vars-big" : "vars-little",
		      "node %u's %s-endian values: %#x %#x %#llx %d %g %.17g", peer, pre, got.u16,
		      got.u32, (unsigned long long)got.u64, got.i32, (double)got.f32, got.f64);
	}
	check_bytes(layout, "be16", want.u16, 2, true);
	check_bytes(layout, "le16", want.u16, 2, false);
	check_bytes(layout, "be32", want.u32, 4, true);
	check_bytes(layout, "le32", want.u32, 4, false);
	check_bytes(layout, "be64", want.u64, 8, true);
	check_bytes(layout, "le64", want.u64, 8, false);
}

/* ---- events ---- */

static int send_burst(void)
{
	for (uint32_t i = 1; i <= BURST; i++) {
		int ret = rfm_event_send(node, peer, RFM_EVENT_INTR3, i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void test_burst(void)
{
	struct rfm_event ev;

	for (uint32_t i = 1; i <= BURST; i++) {
		if (!wait_event(RFM_EVENT_INTR3, peer, &ev)) {
			check(false, "events", "%u of %u INTR3 of node %u came", i - 1, BURST,
			      peer);
			return;
		}
		if (ev.data != i) {
			check(false, "events", "INTR3 number %u of node %u has data %u", i, peer,
			      ev.data);
			return;
		}
	}
	check(true, "events", "%u INTR3", BURST);
}

/* ---- rings: this node produces into its own, consumes the peer's ---- */

static size_t ring_len(unsigned int id, uint32_t k)
{
	return 1 + (k * 37u + id) % 200u;
}

static void *produce(void *arg)
{
	rfm_ring *ring = arg;
	uint8_t buf[256];
	intptr_t ret = 0;

	for (uint32_t k = 0; k < RING_MSGS && !ret; k++) {
		size_t len = ring_len(me, k);

		pattern(me, 100 + k, buf, len);
		memcpy(buf, &k, len < 4 ? len : 4);
		ret = rfm_ring_publish(ring, buf, len, DEADLINE);
	}
	return (void *)ret;
}

static void test_rings(void)
{
	struct rfm_ring_config rc = {.struct_size = sizeof(rc),
				     .slot_size = 256,
				     .slot_count = 16,
				     .flags = RFM_RING_F_BACKPRESSURE,
				     .consumer_nodes = 4};
	rfm_ring *ring = NULL;
	rfm_ring_consumer *cons = NULL;
	pthread_t producer;
	uint32_t k = 0;
	void *res;

	/* Made here, announced; opened there, announced; then both run. */
	if (!call_ok(rfm_ring_create(node, RING_AT(me), 0x4000, &rc, &ring), "ring-create",
		     "rfm_ring_create") ||
	    !step(10, "ring-create") ||
	    !call_ok(rfm_ring_consumer_open(
			 node, RING_AT(peer),
			 RFM_RING_CONSUMER_OLDEST | RFM_RING_CONSUMER_BACKPRESSURE, &cons),
		     "ring-open", "rfm_ring_consumer_open") ||
	    !step(11, "ring-open")) {
		rfm_ring_close(ring);
		return;
	}
	if (pthread_create(&producer, NULL, produce, ring)) {
		check(false, "ring-produce", "no thread");
		rfm_ring_consumer_close(cons);
		rfm_ring_close(ring);
		return;
	}
	for (; k < RING_MSGS; k++) {
		uint8_t got[256], want[256];
		struct rfm_ring_msg msg;
		size_t len = ring_len(peer, k);
		int ret = rfm_ring_consume(cons, got, sizeof(got), &msg, DEADLINE);

		if (ret) {
			check(false, "ring-consume", "message %u of node %u: %s", k, peer,
			      rfm_last_error());
			break;
		}
		pattern(peer, 100 + k, want, len);
		memcpy(want, &k, len < 4 ? len : 4);
		if (msg.len != len || memcmp(got, want, len)) {
			check(false, "ring-consume", "message %u of node %u: %u bytes, %s", k, peer,
			      (unsigned int)msg.len,
			      msg.len != len ? "wrong length" : "wrong bytes");
			break;
		}
	}
	if (k == RING_MSGS)
		check(true, "ring-consume", "%u messages", RING_MSGS);
	pthread_join(producer, &res);
	check(res == NULL, "ring-produce", "rfm_ring_publish: %d", (int)(intptr_t)res);
	/* The peer has taken everything before either side closes its ring. */
	step(12, "ring-done");
	rfm_ring_consumer_close(cons);
	rfm_ring_close(ring);
}

/* ---- records, and the recording of the peer's ---- */

/* The record's variables n and x of @name, through the handle's image. */
static int open_record(rfm_layout *layout, unsigned int id, rfm_record **rec, rfm_var **n,
		       rfm_var **x)
{
	char name[16];
	int ret;

	*rec = NULL;
	*n = *x = NULL;
	snprintf(name, sizeof(name), "n%u.rec", id);
	ret = rfm_record_open(layout, node, name, rec);
	if (ret)
		return ret;
	ret = rfm_record_var(*rec, "n", n);
	if (!ret)
		ret = rfm_record_var(*rec, "x", x);
	if (ret) {
		rfm_var_close(*n);
		rfm_record_close(*rec);
		*rec = NULL;
	}
	return ret;
}

static void close_record(rfm_record *rec, rfm_var *n, rfm_var *x)
{
	rfm_var_close(n);
	rfm_var_close(x);
	rfm_record_close(rec);
}

/*
 * Publish n = @from..@to (x = n / 2). @paced: after each, say so to the
 * peer (INTR4, data n) and wait for its word that its recorder took it.
 */
static int publish_records(rfm_layout *layout, uint32_t from, uint32_t to, bool paced)
{
	rfm_record *rec;
	rfm_var *n, *x;
	int ret = open_record(layout, me, &rec, &n, &x);

	for (uint32_t k = from; k <= to && !ret; k++) {
		struct rfm_event ev;

		ret = rfm_var_set_u32(n, 0, k);
		if (!ret)
			ret = rfm_var_set_f64(x, 0, k * 0.5);
		if (!ret)
			ret = rfm_record_publish(rec);
		if (ret || !paced)
			continue;
		ret = rfm_event_send(node, peer, RFM_EVENT_INTR4, k);
		ret = ret < 0 ? ret : 0;
		if (!ret && (!wait_event(RFM_EVENT_INTR4, peer, &ev) || ev.data != k))
			ret = RFM_ETIMEDOUT;
	}
	if (rec)
		close_record(rec, n, x);
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The recorder's side of the paced publishes: for each, the peer's word
 * (the publish is in this node's copy: a dds: event follows its data),
 * then the recorder's count of rows reaching it, then our word back.
 */
/*
 * Wait until the recorder has taken @rows rows. Its sampler looks every
 * 50 us, and says nothing: a wait on its count, with a deadline.
 */
static bool recorder_rows(rfm_recorder *r, uint64_t rows)
{
	const struct timespec pause = {0, 200000};
	struct rfm_recorder_stats st = {.struct_size = sizeof(st)};
	uint64_t end = now_ns() + (uint64_t)DEADLINE;

	while (!rfm_recorder_get_stats(r, &st) && st.samples < rows &&
	       st.state == RFM_REC_STATE_RECORDING && now_ns() < end)
		nanosleep(&pause, NULL);
	if (st.samples >= rows)
		return true;
	check(false, "recording", "the recorder has %llu rows, not %llu (state %u)",
	      (unsigned long long)st.samples, (unsigned long long)rows, st.state);
	return false;
}

static bool record_paced(rfm_recorder *r, uint32_t from, uint32_t to)
{
	for (uint32_t k = from; k <= to; k++) {
		struct rfm_event ev;

		if (!wait_event(RFM_EVENT_INTR4, peer, &ev) || ev.data != k) {
			check(false, "recording", "no publish %u of node %u", k, peer);
			return false;
		}
		/* The initial row, then one per publish. */
		if (!recorder_rows(r, k - from + 2))
			return false;
		int ret = rfm_event_send(node, peer, RFM_EVENT_INTR4, k);
		if (!call_ok(ret, "recording", "answering"))
			return false;
	}
	return true;
}

static void test_record(rfm_layout *layout)
{
	rfm_record *rec = NULL;
	rfm_var *n, *x;
	uint32_t seq = 0, nv = 0;
	double xv = 0;

	if (!call_ok(open_record(layout, peer, &rec, &n, &x), "record", "opening it"))
		return;
	int ret = rfm_record_fetch(rec);
	if (ret >= 0)
		ret = rfm_record_sequence(rec, &seq);
	if (ret >= 0)
		ret = rfm_var_get_u32(n, 0, &nv);
	if (ret >= 0)
		ret = rfm_var_get_f64(x, 0, &xv);
	close_record(rec, n, x);
	if (!call_ok(ret, "record", "reading it"))
		return;
	check(seq == 2 * PUBLISHES && nv == PUBLISHES && xv == PUBLISHES * 0.5, "record",
	      "node %u's record: sequence %u, n %u, x %g", peer, seq, nv, xv);
}

static int start_recorder(rfm_layout *layout, const char *path, rfm_recorder **rp)
{
	struct rfm_recorder_config cfg = {.struct_size = sizeof(cfg),
					  .format = RFM_REC_FORMAT_CSV,
					  .mode = RFM_REC_ON_CHANGE,
					  .flags = RFM_REC_F_OVERWRITE};
	char name[16];
	int ret;

	snprintf(name, sizeof(name), "n%u.rec", peer);
	ret = rfm_recorder_new(node, layout, path, &cfg, rp);
	if (ret)
		return ret;
	ret = rfm_recorder_add(*rp, name);
	if (!ret)
		ret = rfm_recorder_start(*rp);
	if (ret) {
		rfm_recorder_free(*rp);
		*rp = NULL;
	}
	return ret;
}

/* Every publish of @from..@to a row of the CSV file, in order, with its values. */
static void test_recording(rfm_recorder *r, const char *path, uint32_t from, uint32_t to)
{
	struct rfm_recorder_stats st = {.struct_size = sizeof(st)};
	unsigned long long lines = 0, first = 0, last = 0, missed_sum = 0;
	char line[512];
	int ret = rfm_recorder_stop(r);

	if (!ret)
		ret = rfm_recorder_get_stats(r, &st);
	rfm_recorder_free(r);
	if (!call_ok(ret, "recording", "stopping the recorder"))
		return;
	FILE *in = fopen(path, "r");
	if (!in || !fgets(line, sizeof(line), in) ||
	    strcmp(line, "t,t_mono_ns,t_real_ns,seq,missed,n,x\n")) {
		check(false, "recording", "%s: no CSV header as expected: %s", path,
		      in ? line : "cannot open it");
		if (in)
			fclose(in);
		return;
	}
	while (fgets(line, sizeof(line), in)) {
		unsigned long long mono, seq, missed, n;
		long long real;
		double t, x;

		if (sscanf(line, "%lf,%llu,%lld,%llu,%llu,%llu,%lf", &t, &mono, &real, &seq,
			   &missed, &n, &x) != 7 ||
		    n != seq / 2 || x != n * 0.5 ||
		    (lines && (seq <= last || missed != (seq - last) / 2 - 1))) {
			check(false, "recording", "row %llu: %s", lines + 1, line);
			fclose(in);
			return;
		}
		missed_sum += lines ? missed : 0;
		if (!lines)
			first = seq;
		last = seq;
		lines++;
	}
	fclose(in);
	printf("# recording: %llu rows, %llu publishes missed (counted), sequence %llu..%llu\n",
	       lines, missed_sum, first, last);
	/* The initial row (the record as the recorder found it), then every publish. */
	check(lines == to - from + 2 && first == 2 * (from - 1) && last == 2 * to && !missed_sum &&
		  !st.missed_updates,
	      "recording", "%llu rows and %llu misses for sequence %llu..%llu (stats: %llu missed)",
	      lines, missed_sum, first, last, (unsigned long long)st.missed_updates);
}

int main(int argc, char **argv)
{
	struct rfm_health_config hc = {
	    .struct_size = sizeof(hc), .period_ns = 100000000, .misses = 50};
	const char *record_path = NULL;
	bool recorded = false;
	rfm_recorder *recorder = NULL;
	rfm_layout *layout = NULL;
	char regions[2 * sizeof(region_text) + 64], text[sizeof(layout_text) + sizeof(regions)];
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[4], "--record"))
		record_path = argv[5];
	else if (argc == 5 && !strcmp(argv[4], "--recorded"))
		recorded = true;
	else if (argc != 4) {
		fprintf(stderr, "usage: %s URI ID PEER [--record FILE.csv | --recorded]\n",
			argv[0]);
		return 2;
	}
	me = (unsigned int)atoi(argv[2]);
	peer = (unsigned int)atoi(argv[3]);
	if (me < 1 || me > 2 || peer < 1 || peer > 2 || me == peer) {
		fprintf(stderr, "%s: the ids are 1 and 2\n", argv[0]);
		return 2;
	}
	int at = snprintf(regions, sizeof(regions), region_text, 1u, 0x30000u, 1u);
	snprintf(regions + at, sizeof(regions) - (size_t)at, region_text, 2u, 0x30100u, 2u);
	snprintf(text, sizeof(text), layout_text, regions);
	ret = rfm_layout_load_string(text, strlen(text), "mixed", &layout, NULL);
	if (ret) {
		printf("not ok layout: %s\n", rfm_last_error());
		return 1;
	}
	ret = rfm_open(argv[1], &node);
	if (ret) {
		printf("not ok open: %s\n", rfm_last_error());
		rfm_layout_free(layout);
		return 1;
	}
	printf("# node %d open\n", rfm_node_id(node));
	ret =
	    rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1) | RFM_EVENT_BIT(RFM_EVENT_INTR3) |
				       RFM_EVENT_BIT(RFM_EVENT_INTR4) | RFM_EVENT_MASK_HEALTH);
	if (call_ok(ret, "open", "rfm_event_enable") &&
	    call_ok(rfm_health_start(node, &hc), "open", "rfm_health_start")) {
		test_node_up();
		if (call_ok(write_memory(), "memory", "writing") && step(1, "memory")) {
			test_memory();
			test_peer_row();
		}
		if (call_ok(write_vars(layout), "vars", "writing") && step(2, "vars"))
			test_vars(layout);
		if (call_ok(send_burst(), "events", "sending") && step(3, "events"))
			test_burst();
		test_rings();
		if (call_ok(publish_records(layout, 1, PUBLISHES, false), "record", "publishing") &&
		    step(20, "record"))
			test_record(layout);
		/* The recording: the recorder starts, says so, takes each publish. */
		if (record_path && !call_ok(start_recorder(layout, record_path, &recorder),
					    "recording", "starting the recorder"))
			record_path = NULL;
		if (recorder && !recorder_rows(recorder, 1)) {
			rfm_recorder_free(recorder);
			recorder = NULL;
		}
		if (step(30, "recording-ready")) {
			uint32_t from = PUBLISHES + 1, to = PUBLISHES + RECORDED;

			if (recorded)
				call_ok(publish_records(layout, from, to, true), "recorded",
					"publishing for the peer's recorder");
			if (recorder && record_paced(recorder, from, to))
				test_recording(recorder, record_path, from, to);
			else if (recorder)
				rfm_recorder_free(recorder);
		} else if (recorder) {
			rfm_recorder_free(recorder);
		}
		/* Neither closes while the other may still read from it. */
		step(99, "close");
	}
	rfm_close(node);
	rfm_layout_free(layout);
	/* This process's CPU time, wine's own start included (its Windows
	 * processes are no children a Linux parent waits for, so time(1)
	 * would not count them). */
	struct timespec cpu;
	if (!clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu))
		printf("# cpu %.2f s\n", (double)cpu.tv_sec + cpu.tv_nsec / 1e9);
	printf("done: %u failed\n", failures);
	return failures ? 1 : 0;
}
