/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Health across processes, on every backend (shm:, and dev: in the QEMU
 * lab): a node's heartbeat seen up, a clean detach seen down, a warm
 * restart seen up with the next incarnation, a SIGKILL seen down by missed
 * beats; the node table; the heartbeat table in the window (its place, one
 * writer per slot, readers write nothing); self-test; counters; bad input.
 */
#include "config.h"

#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rfm-cmocka.h"

/* Runs on every backend: `make check` runs it once more on each backend
 * the harness marks for an extra pass (dds:, run-dds-suites.sh). */
HARNESS_SHARED_SUITE(0);

/* The default period: long enough that a slow guest (the QEMU lab runs
 * under TCG) beats well within its misses. */
#define PERIOD_NS 100000000ull
#define EVENT_WAIT_NS 10000000000ll /* a hang guard, not a timing assertion */

/* The shared fixture's network (harness_fixture_network), for the
 * children too: they inherit it through fork(). */
static struct harness_network *net;

static int setup(void **state)
{
	int ret = harness_fixture_network(state, 1024 * 1024);

	net = *state;
	return ret;
}

static const struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = PERIOD_NS };

/* Backends that know who is attached besides the heartbeat slots: shm:
 * (its node table) and dds: (presence). On cards only beats show a node. */
static bool knows_attached(void)
{
	return harness_can(HARNESS_CAP_KNOWS_ATTACHED);
}

/* Backends with a card whose status they read (dev:, rfm2g:). */
static bool has_card(void)
{
	return !knows_attached();
}

/* Beats on node 2 (dev: the card the harness gives for 2), sends its id;
 * on "go" closes cleanly (if arg) or waits to be killed. */
static int beater(struct harness_link *link, void *arg)
{
	rfm_node *node;
	int id;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(net, 2), &node));
	HARNESS_CHECK_RFM(rfm_health_start(node, &hc));
	id = rfm_node_id(node);
	harness_link_send(link, &id, sizeof(id));
	harness_link_ready(link);
	harness_link_wait_go(link);
	if (arg)
		rfm_close(node);
	return 0;
}

static void expect_event(rfm_node *node, unsigned int type, unsigned int sender, uint32_t data)
{
	struct rfm_event ev;

	for (;;) {
		assert_rfm_ok(rfm_event_wait(node, &ev, EVENT_WAIT_NS));
		if (ev.sender == sender)
			break;
	}
	assert_string_equal(rfm_event_type_name(ev.type), rfm_event_type_name(type));
	assert_int_equal(ev.data, data);
}

static int start_beater(struct harness_child *kid, void *arg)
{
	int id = -1;

	harness_child_start(kid, beater, arg);
	assert_int_equal(harness_child_recv(kid, &id, sizeof(id)), 0);
	assert_int_equal(harness_child_wait_ready(kid), 0);
	return id;
}

/* The row of node @id in @rows, failing when there is none. */
static const struct rfm_node_status *row_of(const struct rfm_node_status *rows, int n, int id)
{
	for (int i = 0; i < n; i++)
		if ((int)rows[i].id == id)
			return &rows[i];
	fail_msg("node %d is not in the node table", id);
	return NULL;
}

/*
 * Node 1 with a health monitor and the health records enabled, for a case
 * whose peers are forked processes; skipped where they cannot be.
 */
static rfm_node *forked_peers_monitor(void)
{
	rfm_node *mon;

	if (harness_fork_unsupported()) {
		print_message("skipped: %s\n", harness_fork_unsupported());
		skip();
	}
#ifdef __SANITIZE_THREAD__
	/* The monitor thread runs while children are forked, and they start their own. */
	print_message("skipped: ThreadSanitizer cannot follow a fork of a threaded process\n");
	skip();
#endif
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &mon));
	assert_rfm_ok(rfm_event_enable(mon, RFM_EVENT_MASK_HEALTH));
	assert_rfm_ok(rfm_health_start(mon, &hc));
	return mon;
}

static void test_up_down_restart(void **state)
{
	struct harness_child kid;
	struct rfm_node_status rows[8];
	const struct rfm_node_status *r;
	struct rfm_health_counters cnt = { .struct_size = sizeof(cnt) };
	rfm_node *mon;
	int id;

	(void)state;
	mon = forked_peers_monitor();
	assert_rfm_code(rfm_health_start(mon, &hc), RFM_EBUSY);

	/* Cold start: incarnation 1 (the network is fresh on every backend). */
	id = start_beater(&kid, (void *)1);
	assert_int_not_equal(id, rfm_node_id(mon));
	expect_event(mon, RFM_EVENT_NODE_UP, id, 1);
	int n = rfm_health_nodes(mon, rows, 8);
	assert_int_equal(n, 2);
	r = row_of(rows, n, rfm_node_id(mon));
	assert_int_equal(r->alive, 1);
	r = row_of(rows, n, id);
	assert_int_equal(r->alive, 1);
	assert_int_equal(r->attached, 1);
	assert_int_equal(r->incarnation, 1);
	assert_int_equal(r->pid, kid.pid);
	assert_int_equal(r->period_ns, PERIOD_NS);
	assert_true(r->beats > 0);
	assert_true(r->age_ns != UINT64_MAX);
	assert_true(r->host[0] != 0);

	/* Clean detach. */
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait(&kid), 0);
	expect_event(mon, RFM_EVENT_NODE_DOWN, id, 1);

	/* Warm restart: incarnation 2; then killed: missed beats. */
	assert_int_equal(start_beater(&kid, NULL), id);
	expect_event(mon, RFM_EVENT_NODE_UP, id, 2);
	harness_child_kill(&kid);
	expect_event(mon, RFM_EVENT_NODE_DOWN, id, 2);
	n = rfm_health_nodes(mon, rows, 8);
	assert_int_equal(n, 2);
	assert_int_equal(row_of(rows, n, id)->alive, 0);

	assert_rfm_ok(rfm_health_get_counters(mon, &cnt));
	assert_int_equal(cnt.node_ups, 2);
	assert_int_equal(cnt.node_downs, 2);
	assert_int_equal(cnt.events_received, 4);
	assert_rfm_ok(rfm_health_stop(mon));
	assert_rfm_ok(rfm_health_stop(mon));
	rfm_close(mon);
}

/* What a survivor saw of one peer: its NODE_UP / NODE_DOWN records, in order. */
struct peer_log {
	uint32_t n;
	uint32_t type[8];
	uint32_t data[8];
};

/*
 * Take @node's records until @count more of @type from @peer came, logging
 * every record of that peer; for a child (HARNESS_CHECK) or the test
 * process alike: 0, or the rfm error of a wait that found nothing within
 * EVENT_WAIT_NS (a hang guard).
 */
static int log_peer(rfm_node *node, unsigned int peer, unsigned int type, unsigned int count,
		    struct peer_log *log)
{
	struct rfm_event ev;

	while (count) {
		int ret = rfm_event_wait(node, &ev, EVENT_WAIT_NS);

		if (ret)
			return ret;
		if (ev.sender != peer)
			continue;
		if (log->n < 8) {
			log->type[log->n] = ev.type;
			log->data[log->n] = ev.data;
		}
		log->n++;
		if (ev.type == type)
			count--;
	}
	return 0;
}

/* Node 3, a second survivor with a monitor of its own: logs node 2 until
 * it is up the second time and sends the log. */
static int survivor(struct harness_link *link, void *arg)
{
	struct peer_log log = { 0 };
	rfm_node *node;

	(void)arg;
	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(net, 3), &node));
	HARNESS_CHECK_RFM(rfm_event_enable(node, RFM_EVENT_MASK_HEALTH));
	HARNESS_CHECK_RFM(rfm_health_start(node, &hc));
	harness_link_ready(link);
	HARNESS_CHECK_RFM(log_peer(node, 2, RFM_EVENT_NODE_UP, 2, &log));
	harness_link_send(link, &log, sizeof(log));
	harness_link_wait_go(link);
	rfm_close(node);
	return 0;
}

/* Up (incarnation 1), down once (1), up again (2): nothing more, nothing twice. */
static void assert_down_once(const struct peer_log *log, const char *who)
{
	static const uint32_t types[] = { RFM_EVENT_NODE_UP, RFM_EVENT_NODE_DOWN,
					  RFM_EVENT_NODE_UP };
	static const uint32_t data[] = { 1, 1, 2 };

	if (log->n != 3)
		fail_msg("%s: %u records for the killed node, expected up, down, up", who,
			 log->n);
	for (unsigned int i = 0; i < 3; i++) {
		assert_string_equal(rfm_event_type_name(log->type[i]),
				    rfm_event_type_name(types[i]));
		assert_int_equal(log->data[i], data[i]);
	}
}

/*
 * A peer killed with SIGKILL sends nothing; each survivor's monitor sees
 * its beats stop and reports it down exactly once, then up with the next
 * incarnation when a new process takes its id (each survivor's records).
 */
static void test_killed_peer_down_once_at_each_survivor(void **state)
{
	struct rfm_health_counters cnt = { .struct_size = sizeof(cnt) };
	struct harness_child kid, other;
	struct peer_log mine = { 0 }, theirs = { 0 };
	rfm_node *mon;

	(void)state;
	mon = forked_peers_monitor();
	harness_child_start(&other, survivor, NULL);
	assert_int_equal(harness_child_wait_ready(&other), 0);

	assert_int_equal(start_beater(&kid, NULL), 2);
	assert_rfm_ok(log_peer(mon, 2, RFM_EVENT_NODE_UP, 1, &mine));
	harness_child_kill(&kid);
	assert_rfm_ok(log_peer(mon, 2, RFM_EVENT_NODE_DOWN, 1, &mine));
	/* The id reclaimed by a new process: up with incarnation 2. */
	assert_int_equal(start_beater(&kid, NULL), 2);
	assert_rfm_ok(log_peer(mon, 2, RFM_EVENT_NODE_UP, 1, &mine));
	assert_down_once(&mine, "node 1");
	assert_int_equal(harness_child_recv(&other, &theirs, sizeof(theirs)), 0);
	assert_down_once(&theirs, "node 3");
	/* Our monitor counted the one down (node 3 is still up). */
	assert_rfm_ok(rfm_health_get_counters(mon, &cnt));
	assert_int_equal(cnt.node_downs, 1);

	harness_child_go(&other);
	assert_int_equal(harness_child_wait(&other), 0);
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait(&kid), 0);
	rfm_close(mon);
}

/*
 * Interposed pthread_create(): when armed, the next thread made (the
 * monitor of rfm_health_start()) waits at a gate before it runs, as a
 * thread the scheduler runs late does. Opened by writing a byte to it.
 */
struct late_start {
	void *(*fn)(void *);
	void *arg;
};

static int late_gate[2] = { -1, -1 };
static bool late_armed, late_fired;

static void *late_main(void *arg)
{
	struct late_start start = *(struct late_start *)arg;
	char byte;

	free(arg);
	while (read(late_gate[0], &byte, 1) < 0 && errno == EINTR)
		;
	return start.fn(start.arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	struct late_start *start;

	if (!real_create)
		real_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				       void *))dlsym(RTLD_NEXT, "pthread_create");
	if (!__atomic_exchange_n(&late_armed, false, __ATOMIC_ACQ_REL))
		return real_create(thread, attr, fn, arg);
	start = malloc(sizeof(*start));
	if (!start)
		return EAGAIN;
	*start = (struct late_start){ fn, arg };
	late_fired = true;
	return real_create(thread, attr, late_main, start);
}

/*
 * A monitor whose thread first runs after a peer beat its only beat still
 * reports that peer: up, then down after its misses. rfm_health_start()
 * took its first look before returning, so the beat is a move.
 */
static void test_a_late_monitor_thread_misses_no_life(void **state)
{
	struct rfm_node_status rows[8];
	rfm_node *mon, *peer;

	(void)state;
	assert_int_equal(pipe(late_gate), 0);
	assert_rfm_ok(rfm_open(harness_node_uri(net, 3), &mon));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &peer));
	assert_rfm_ok(rfm_event_enable(mon, RFM_EVENT_MASK_HEALTH));
	late_armed = true;
	assert_rfm_ok(rfm_health_start(mon, &hc));
	assert_true(late_fired);
	/* One beat, no more: alive once, then silent while attached. */
	assert_rfm_ok(rfm_health_beat(peer, PERIOD_NS));
	assert_int_equal(write(late_gate[1], "", 1), 1);
	/* The incarnation: 1 on a fresh shm: network or card, dds:'s own elsewhere. */
	int n = rfm_health_nodes(mon, rows, 8);
	uint32_t incarnation = row_of(rows, n, rfm_node_id(peer))->incarnation;
	expect_event(mon, RFM_EVENT_NODE_UP, (unsigned int)rfm_node_id(peer), incarnation);
	expect_event(mon, RFM_EVENT_NODE_DOWN, (unsigned int)rfm_node_id(peer), incarnation);
	rfm_close(peer);
	rfm_close(mon);
	close(late_gate[0]);
	close(late_gate[1]);
}

static void test_callback_down(void **state)
{
	(void)state;
	/* Health types may be handled by callbacks like network types. */
	rfm_node *mon;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &mon));
	/* Card status changes are health records too (none on shm:), and on dds: records lost. */
	assert_rfm_ok(rfm_event_enable(mon, RFM_EVENT_BIT(RFM_EVENT_LINK)));
	assert_rfm_ok(rfm_event_enable(mon, RFM_EVENT_BIT(RFM_EVENT_NODE_DOWN)));
	rfm_close(mon);
}

/* Where the table is: the window's last 16 KiB, or the URI's heartbeat=. */
static uint64_t table_at(rfm_node *node)
{
	return rfm_node_size(node) - RFM_HEALTH_TABLE_SIZE;
}

static void read_table(rfm_node *node, uint64_t at, uint8_t *buf)
{
	assert_rfm_ok(rfm_mem_read(node, at, buf, RFM_HEALTH_TABLE_SIZE));
}

/* Slot fields the library documents by size only: beats first. */
static uint64_t slot_beats(const uint8_t *table, int id)
{
	uint64_t beats;

	memcpy(&beats, table + (size_t)id * RFM_HEALTH_SLOT_SIZE, sizeof(beats));
	return le64toh(beats); /* the table is little-endian on every host */
}

static void test_one_writer_per_slot(void **state)
{
	static uint8_t before[RFM_HEALTH_TABLE_SIZE], after[RFM_HEALTH_TABLE_SIZE];
	struct rfm_node_status rows[4];
	rfm_node *a, *b;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &a));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &b));
	int ida = rfm_node_id(a), idb = rfm_node_id(b);
	uint64_t at = table_at(a);

	/* Every byte of the table a canary, then three beats of node A. */
	memset(before, 0xa5, sizeof(before));
	assert_rfm_ok(rfm_mem_write(a, at, before, sizeof(before)));
	for (int i = 0; i < 3; i++)
		assert_rfm_ok(rfm_health_beat(a, PERIOD_NS));
	read_table(b, at, after);
	for (size_t i = 0; i < sizeof(after); i++)
		if (i / RFM_HEALTH_SLOT_SIZE != (size_t)ida && after[i] != 0xa5)
			fail_msg("node %d wrote byte %zu of node %zu's slot", ida, i,
				 i / RFM_HEALTH_SLOT_SIZE);
	assert_int_equal(slot_beats(after, ida), 3);

	/* A reader writes nothing: B's node table leaves the window as it was. */
	memcpy(before, after, sizeof(before));
	assert_int_equal(rfm_health_nodes(b, rows, 4), knows_attached() ? 2 : 1);
	assert_int_equal(row_of(rows, knows_attached() ? 2 : 1, ida)->beats, 3);
	read_table(b, at, after);
	assert_memory_equal(before, after, sizeof(before));

	/* B's beats go to B's slot only. */
	assert_rfm_ok(rfm_health_beat(b, PERIOD_NS));
	read_table(a, at, after);
	for (size_t i = 0; i < sizeof(after); i++)
		if (i / RFM_HEALTH_SLOT_SIZE != (size_t)idb && after[i] != before[i])
			fail_msg("node %d wrote byte %zu of node %zu's slot", idb, i,
				 i / RFM_HEALTH_SLOT_SIZE);
	assert_int_equal(slot_beats(after, idb), 1);
	rfm_close(b);
	rfm_close(a);
}

/* The URI of node @id with "heartbeat=@value" added. */
static const char *with_heartbeat(int id, const char *value)
{
	static char uri[HARNESS_URI_MAX];
	const char *base = harness_node_uri(net, id);

	snprintf(uri, sizeof(uri), "%s%cheartbeat=%s", base, strchr(base, '?') ? '&' : '?',
		 value);
	return uri;
}

/* Leaves 0xa5 in the stack below the caller's frame, where the next call's
 * locals will be (noinline: its own frame, the size a beat's may reach). */
__attribute__((noinline)) static void poison_stack(void)
{
	volatile uint8_t junk[8192];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

/* The slot's host name is NUL-padded (src/health-table.h: 20 bytes at 44):
 * after the name's end only zeros, never what the stack held (they were
 * the stack's bytes; on dds: they went out to every node, valgrind). */
static void test_host_name_is_nul_padded(void **state)
{
	static uint8_t table[RFM_HEALTH_TABLE_SIZE];
	rfm_node *node;
	size_t end;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &node));
	poison_stack();
	assert_rfm_ok(rfm_health_beat(node, PERIOD_NS));
	read_table(node, table_at(node), table);
	const uint8_t *host = table + (size_t)rfm_node_id(node) * RFM_HEALTH_SLOT_SIZE + 44;
	for (end = 0; end < 20 && host[end]; end++)
		;
	for (size_t i = end; i < 20; i++)
		if (host[i] != 0)
			fail_msg("byte %zu of the host name field is 0x%02x after the name's end at %zu",
				 i, host[i], end);
	rfm_close(node);
}

static void test_table_place(void **state)
{
	static uint8_t table[RFM_HEALTH_TABLE_SIZE];
	struct rfm_node_status rows[4];
	rfm_node *node, *reader;

	(void)state;
	assert_rfm_ok(rfm_open(with_heartbeat(1, "0x1000"), &node));
	assert_rfm_ok(rfm_open(with_heartbeat(2, "4K"), &reader));
	assert_rfm_ok(rfm_health_beat(node, PERIOD_NS));
	assert_rfm_ok(rfm_health_beat(node, PERIOD_NS));
	read_table(reader, 0x1000, table);
	assert_int_equal(slot_beats(table, rfm_node_id(node)), 2);
	int n = rfm_health_nodes(reader, rows, 4);
	assert_int_equal(row_of(rows, n, rfm_node_id(node))->beats, 2);
	/* Nothing at the default place. */
	read_table(reader, table_at(reader), table);
	assert_int_equal(slot_beats(table, rfm_node_id(node)), 0);
	rfm_close(reader);
	rfm_close(node);

	/* Bad places: a clear error, nothing written. */
	assert_rfm_code(rfm_open(with_heartbeat(1, "100"), &node), RFM_EURI);
	assert_non_null(strstr(rfm_last_error(), "multiple of 64"));
	assert_rfm_code(rfm_open(with_heartbeat(1, "x"), &node), RFM_EURI);
	assert_rfm_ok(rfm_open(with_heartbeat(1, "0x7fffffffffffffc0"), &node));
	assert_rfm_code(rfm_health_beat(node, 0), RFM_ERANGE);
	assert_non_null(strstr(rfm_last_error(), "does not fit"));
	assert_rfm_code(rfm_health_start(node, NULL), RFM_ERANGE);
	assert_rfm_code(rfm_health_nodes(node, rows, 4), RFM_ERANGE);
	rfm_close(node);
}

static void test_no_room_for_the_table(void **state)
{
	struct harness_network small;
	struct rfm_node_status rows[4];
	rfm_node *node;

	(void)state;
	if (!harness_can(HARNESS_CAP_WINDOW_SIZE))
		skip(); /* the cards' window is what it is */
	harness_network_new(&small, 8192);
	assert_rfm_ok(rfm_open(harness_node_uri(&small, 1), &node));
	assert_rfm_code(rfm_health_start(node, NULL), RFM_ESIZE);
	assert_non_null(strstr(rfm_last_error(), "no room for the 16384-byte heartbeat table"));
	assert_rfm_code(rfm_health_beat(node, 0), RFM_ESIZE);
	/* The node table still lists who is attached. */
	assert_int_equal(rfm_health_nodes(node, rows, 4), 1);
	assert_int_equal(rows[0].id, 1);
	assert_int_equal(rows[0].attached, 1);
	assert_int_equal(rows[0].beats, 0);
	assert_int_equal(rows[0].age_ns, UINT64_MAX);
	rfm_close(node);
	harness_network_destroy(&small);
}

/* The card's status: the virtual card (dev: in the lab) has a link that is
 * up; shm: has no card. A beat carries it to the slot for the others. */
static void test_card_status(void **state)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	struct rfm_node_status rows[4];
	rfm_node *node;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &node));
	assert_rfm_ok(rfm_node_get_info(node, &info));
	if (!has_card())
		assert_int_equal(info.link, 0);
	else
		assert_int_equal(info.link, RFM_LINK_KNOWN | RFM_LINK_SIGNAL);
	assert_rfm_ok(rfm_health_beat(node, PERIOD_NS));
	int n = rfm_health_nodes(node, rows, 4);
	assert_int_equal(row_of(rows, n, rfm_node_id(node))->link, info.link);
	rfm_close(node);
}

static void test_selftest(void **state)
{
	struct rfm_selftest_result res = { .struct_size = sizeof(res) };
	struct rfm_health_counters cnt = { .struct_size = sizeof(cnt) };
	rfm_node *node;

	(void)state;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 4), &node));
	assert_rfm_ok(rfm_mem_write(node, 256, "keep", 4));
	assert_rfm_ok(rfm_selftest(node, 192, &res));
	assert_int_equal(res.memory_ok, 1);
	assert_int_equal(res.memory_errors, 0);
	assert_int_equal(res.event_ok, 1);
	char keep[5] = "";
	assert_rfm_ok(rfm_mem_read(node, 256, keep, 4));
	assert_string_equal(keep, "keep"); /* restored */
	assert_int_equal(rfm_node_get_loopback(node), 0);
	uint32_t mask = 1;
	assert_rfm_ok(rfm_event_get_enabled(node, &mask));
	assert_int_equal(mask, 0);
	assert_rfm_ok(rfm_health_get_counters(node, &cnt));
	assert_int_equal(cnt.events_sent, 1);
	assert_int_equal(cnt.events_received, 1);
	assert_int_equal(cnt.events_dropped, 0);
	assert_rfm_ok(rfm_selftest(node, RFM_SELFTEST_NO_MEMORY, &res));
	assert_int_equal(res.memory_ok, 0);
	assert_rfm_code(rfm_selftest(node, rfm_node_size(node) - 8, &res), RFM_ERANGE);
	rfm_close(node);
}

static void test_bad_input(void **state)
{
	struct rfm_health_config bad = { .struct_size = sizeof(bad), .period_ns = 10 };
	rfm_node *node;

	(void)state;
	assert_rfm_code(rfm_health_start(NULL, NULL), RFM_EINVAL);
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &node));
	assert_rfm_code(rfm_health_start(node, &bad), RFM_EINVAL);
	bad.struct_size = 2;
	assert_rfm_code(rfm_health_start(node, &bad), RFM_EINVAL);
	assert_rfm_code(rfm_health_nodes(node, NULL, 4), RFM_EINVAL);
	/* shm: and dds: know who is attached; on cards only beats show a node. */
	assert_int_equal(rfm_health_nodes(node, NULL, 0), knows_attached() ? 1 : 0);
	assert_rfm_ok(rfm_health_beat(node, 0));
	assert_rfm_code(rfm_health_get_counters(node, NULL), RFM_EINVAL);
	/* Started and left running: rfm_close() stops it. */
	assert_rfm_ok(rfm_health_start(node, NULL));
	rfm_close(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_up_down_restart, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_killed_peer_down_once_at_each_survivor, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_a_late_monitor_thread_misses_no_life, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_callback_down, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_one_writer_per_slot, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_host_name_is_nul_padded, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_table_place, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_room_for_the_table, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_card_status, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_selftest, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, harness_fixture_teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
