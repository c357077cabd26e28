/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network interrupts between processes: ordering against the data,
 * broadcast, blocking wake-ups, a crashed receiver, shared node ids.
 * Children signal readiness through pipes and are reaped by PID; they are
 * processes of their own on Linux and on Windows (harness_child_spawn()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ev-test.h"

#define WORD_OFF 0	/* written before every INTR1 */
#define SEQ_OFF 128	/* publish's sequence word */
#define DATA_OFF 4096	/* publish's data: four copies of the next sequence */
#define ACK_EVERY 256
#define WINDOW 512	/* events in flight per receiver, well below a queue */

static const char *net_name;

static int setup(void **state)
{
	(void)state;
	net_name = strdup(ev_net("xproc"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rfm_network_destroy(ev_uri(net_name, -1, NULL), RFM_DESTROY_FORCE);
	free((char *)net_name);
	return 0;
}

/* ---- data then event, across processes, under flow control ---- */

#define ORDER_EVENTS 200000u

static int order_receiver(struct ev_child_ctx *c)
{
	rfm_node *node;
	uint8_t *base;
	struct rfm_event evs[64];
	uint32_t next_word = 0, next_seq = 1, got = 0;

	/* spin=0: every wait sleeps in the futex, the path that can lose wake-ups. */
	EV_CHILD_CHECK(!rfm_open(ev_uri(c->net, 2, "spin=0"), &node), 2, "open");
	EV_CHILD_CHECK(!rfm_mem_map(node, (void **)&base, NULL), 3, "map");
	EV_CHILD_CHECK(!rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1) |
						       RFM_EVENT_BIT(RFM_EVENT_INTR3)),
		       4, "enable");
	ev_child_ready(c);
	while (got < ORDER_EVENTS) {
		int n = rfm_event_fetch(node, evs, 64, -1);
		EV_CHILD_CHECK(n > 0, 5, "fetch %d", n);
		for (int i = 0; i < n; i++) {
			const struct rfm_event *e = &evs[i];

			EV_CHILD_CHECK(e->sender == 1, 6, "sender %u", e->sender);
			if (e->type == RFM_EVENT_INTR1) {
				/* The word was written before the send: at least this value. */
				EV_CHILD_CHECK(e->data == next_word, 7, "intr1 %u, expected %u",
					       e->data, next_word);
				EV_CHILD_CHECK(rfm_load32_acquire(base, WORD_OFF) >= e->data, 8,
					       "word %u behind event %u",
					       rfm_load32(base, WORD_OFF), e->data);
				next_word = e->data + 2;
			} else {
				EV_CHILD_CHECK(e->type == RFM_EVENT_INTR3, 9, "type %u", e->type);
				EV_CHILD_CHECK(e->data == next_seq, 10, "seq %u, expected %u",
					       e->data, next_seq);
				/* Little-endian in the window (wire order). */
				EV_CHILD_CHECK(ev_le32(rfm_load32_acquire(base, SEQ_OFF)) >= e->data, 11,
					       "sequence word behind");
				for (int w = 0; w < 4; w++)
					EV_CHILD_CHECK(rfm_load32(base, DATA_OFF + 4 * w) >= e->data,
						       12, "published data behind its event");
				next_seq++;
			}
			if (++got % ACK_EVERY == 0)
				EV_CHILD_CHECK(rfm_event_send(node, 1, RFM_EVENT_INTR2, got) == 1,
					       13, "ack");
		}
	}
	struct rfm_event_stats st = { .struct_size = sizeof(st) };
	rfm_event_get_stats(node, &st);
	EV_CHILD_CHECK(st.dropped == 0 && st.delivered == ORDER_EVENTS, 14, "stats");
	rfm_close(node);
	return 0;
}

static void test_order_across_processes(void **state)
{
	(void)state;
	rfm_node *node;
	uint8_t *base;
	struct rfm_event ack;
	uint32_t acked = 0, seq = 0;

	EV_OPEN(ev_uri(net_name, 1, "spin=0"), &node);
	EV_OK(rfm_mem_map(node, (void **)&base, NULL));
	EV_OK(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	struct ev_child rx = ev_spawn(order_receiver, net_name, 0);
	assert_true(ev_wait_ready(&rx));
	for (uint32_t i = 0; i < ORDER_EVENTS; i++) {
		while (i - acked >= WINDOW) {
			EV_OK(rfm_event_wait(node, &ack, -1));
			acked = ack.data;
		}
		if (i % 2 == 0) {
			rfm_store32(base, WORD_OFF, i);
			assert_int_equal(rfm_event_send(node, 2, RFM_EVENT_INTR1, i), 1);
		} else {
			uint32_t next = seq + 1, data[4] = { next, next, next, next }, got;
			assert_int_equal(rfm_event_publish(node, DATA_OFF, data, sizeof(data), SEQ_OFF,
							   2, RFM_EVENT_INTR3, &got), 1);
			assert_int_equal(got, next);
			seq = next;
		}
	}
	assert_int_equal(ev_reap(&rx), 0);
	rfm_close(node);
}

/* ---- broadcast to three processes ---- */

#define BCAST_EVENTS 30000u

static int bcast_receiver(struct ev_child_ctx *c)
{
	int id = c->arg;
	rfm_node *node;
	struct rfm_event evs[32];
	uint32_t got = 0;

	EV_CHILD_CHECK(!rfm_open(ev_uri(c->net, id, NULL), &node), 2, "open");
	EV_CHILD_CHECK(!rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR2)), 3, "enable");
	ev_child_ready(c);
	while (got < BCAST_EVENTS) {
		int n = rfm_event_fetch(node, evs, 32, -1);
		EV_CHILD_CHECK(n > 0, 4, "fetch %d", n);
		for (int i = 0; i < n; i++) {
			EV_CHILD_CHECK(evs[i].type == RFM_EVENT_INTR2 && evs[i].data == got, 5,
				       "got type %u data %u, expected %u", evs[i].type, evs[i].data,
				       got);
			EV_CHILD_CHECK(evs[i].seq == got + 1, 6, "seq");
			if (++got % ACK_EVERY == 0)
				rfm_event_send(node, 1, RFM_EVENT_INTR1, got);
		}
	}
	rfm_close(node);
	return 0;
}

static void test_broadcast_processes(void **state)
{
	(void)state;
	rfm_node *node;
	struct rfm_event ack;
	int ids[3] = { 2, 3, 4 };
	struct ev_child rx[3];
	uint32_t acked[5] = { 0 };

	EV_OPEN(ev_uri(net_name, 1, NULL), &node);
	EV_OK(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	for (int i = 0; i < 3; i++) {
		rx[i] = ev_spawn(bcast_receiver, net_name, ids[i]);
		assert_true(ev_wait_ready(&rx[i]));
	}
	for (uint32_t i = 0; i < BCAST_EVENTS; i++) {
		for (;;) {
			uint32_t low = acked[2];
			for (int k = 3; k <= 4; k++)
				low = acked[k] < low ? acked[k] : low;
			if (i - low < WINDOW)
				break;
			EV_OK(rfm_event_wait(node, &ack, -1));
			assert_true(ack.sender >= 2 && ack.sender <= 4);
			acked[ack.sender] = ack.data;
		}
		assert_int_equal(rfm_event_send(node, RFM_NODE_ALL, RFM_EVENT_INTR2, i), 3);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(ev_reap(&rx[i]), 0);
	rfm_close(node);
}

/* ---- blocking ping-pong: a lost wake-up would hang here ---- */

#define PINGS 20000u

static int pong(struct ev_child_ctx *c)
{
	rfm_node *node;
	struct rfm_event ev;

	EV_CHILD_CHECK(!rfm_open(ev_uri(c->net, 2, "spin=0"), &node), 2, "open");
	EV_CHILD_CHECK(!rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)), 3, "enable");
	ev_child_ready(c);
	for (uint32_t i = 0; i < PINGS; i++) {
		EV_CHILD_CHECK(!rfm_event_wait(node, &ev, -1), 4, "wait");
		EV_CHILD_CHECK(ev.data == i, 5, "ping %u, expected %u", ev.data, i);
		EV_CHILD_CHECK(rfm_event_send(node, 1, RFM_EVENT_INTR1, i) == 1, 6, "pong");
	}
	rfm_close(node);
	return 0;
}

static void test_blocking_ping_pong(void **state)
{
	(void)state;
	rfm_node *node;
	struct rfm_event ev;

	EV_OPEN(ev_uri(net_name, 1, "spin=0"), &node);
	EV_OK(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	struct ev_child peer = ev_spawn(pong, net_name, 0);
	assert_true(ev_wait_ready(&peer));
	for (uint32_t i = 0; i < PINGS; i++) {
		assert_int_equal(rfm_event_send(node, 2, RFM_EVENT_INTR1, i), 1);
		EV_OK(rfm_event_wait(node, &ev, -1));
		assert_int_equal(ev.data, i);
		assert_int_equal(ev.sender, 2);
	}
	assert_int_equal(ev_reap(&peer), 0);
	rfm_close(node);
}

/* ---- a receiver that crashed ---- */

static int enable_and_hang(struct ev_child_ctx *c)
{
	rfm_node *node;

	EV_CHILD_CHECK(!rfm_open(ev_uri(c->net, 2, NULL), &node), 2, "open");
	EV_CHILD_CHECK(!rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)), 3, "enable");
	ev_child_ready(c);
	ev_child_wait_go(c); /* killed before the go ever comes */
	return 4;
}

static void test_crashed_receiver(void **state)
{
	(void)state;
	rfm_node *tx, *again;
	struct rfm_event ev;
	int accepted = 0;

	EV_OPEN(ev_uri(net_name, 1, NULL), &tx);
	struct ev_child victim = ev_spawn(enable_and_hang, net_name, 0);
	assert_true(ev_wait_ready(&victim));
	ev_kill(&victim);
	assert_int_equal(ev_reap(&victim), EV_KILLED_STATUS);

	/* Its queue fills and then drops: the sender never waits for it. */
	for (uint32_t i = 0; i < 5000; i++) {
		int r = rfm_event_send(tx, 2, RFM_EVENT_INTR1, i);
		assert_true(r == 0 || r == 1);
		accepted += r;
	}
	assert_int_equal(accepted, RFM_EVENT_QUEUE_MIN);
	assert_int_equal(rfm_event_send(tx, RFM_NODE_ALL, RFM_EVENT_INTR1, 1), 0);

	/* The id is reclaimed, and the dead queue with it: one receiver, fresh. */
	EV_OPEN(ev_uri(net_name, 2, NULL), &again);
	EV_OK(rfm_event_enable(again, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_int_equal(rfm_event_send(tx, 2, RFM_EVENT_INTR1, 7777), 1);
	assert_int_equal(rfm_event_wait(again, &ev, 0), 0);
	assert_int_equal(ev.data, 7777);
	assert_int_equal(ev.seq, 1);
	assert_int_equal(rfm_event_wait(again, &ev, 0), RFM_EAGAIN);
	rfm_close(again);
	/* Closed cleanly: now the sender is told the node is gone. */
	assert_int_equal(rfm_event_send(tx, 2, RFM_EVENT_INTR1, 1), RFM_ENODE);
	rfm_close(tx);
}

/* ---- two processes share one node id ---- */

static int shared_receiver(struct ev_child_ctx *c)
{
	rfm_node *node;
	struct rfm_event ev;

	EV_CHILD_CHECK(!rfm_open(ev_uri(c->net, 3, "shared=1"), &node), 2, "open shared");
	EV_CHILD_CHECK(rfm_node_id(node) == 3, 3, "id");
	EV_CHILD_CHECK(!rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR4)), 4, "enable");
	ev_child_ready(c);
	EV_CHILD_CHECK(!rfm_event_wait(node, &ev, -1), 5, "wait");
	EV_CHILD_CHECK(ev.data == 31337 && ev.sender == 1 && ev.seq == 1, 6, "record");
	rfm_close(node);
	return 0;
}

static void test_shared_node_processes(void **state)
{
	(void)state;
	rfm_node *tx, *rx;
	struct rfm_event ev;

	EV_OPEN(ev_uri(net_name, 1, NULL), &tx);
	EV_OPEN(ev_uri(net_name, 3, NULL), &rx);
	EV_OK(rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_INTR4)));
	struct ev_child other = ev_spawn(shared_receiver, net_name, 0);
	assert_true(ev_wait_ready(&other));
	assert_int_equal(rfm_event_send(tx, 3, RFM_EVENT_INTR4, 31337), 2);
	EV_OK(rfm_event_wait(rx, &ev, -1));
	assert_int_equal(ev.data, 31337);
	assert_int_equal(ev_reap(&other), 0);
	/* The other handle left: the id stays attached through ours. */
	assert_int_equal(rfm_event_send(tx, 3, RFM_EVENT_INTR4, 1), 1);
	rfm_close(rx);
	rfm_close(tx);
}

/* ---- fork(): an inherited receiving handle stays the parent's ---- */

static rfm_node *inherited;

/* A forked child: it has the parent's memory, @inherited with it. */
static int close_inherited(struct harness_link *link, void *arg)
{
	struct rfm_event ev;

	(void)arg;
	/* The parent's threads do not exist here and its queue is not ours. */
	HARNESS_CHECK(rfm_event_wait(inherited, &ev, 0) == RFM_ECLOSED);
	HARNESS_CHECK(rfm_event_enable(inherited, RFM_EVENT_BIT(RFM_EVENT_INTR3)) == RFM_ECLOSED);
	rfm_close(inherited); /* must neither hang nor release the parent's queue */
	harness_link_ready(link);
	return 0;
}

static void test_fork_keeps_parent_queue(void **state)
{
	(void)state;
	rfm_node *tx;
	struct rfm_event ev;
	struct harness_child child;
	void *handle;

	if (!harness_can_fork()) {
		print_message("skipped: this OS has no fork(): no child ever inherits a handle\n");
		skip();
	}
	EV_OPEN(ev_uri(net_name, 1, NULL), &tx);
	EV_OPEN(ev_uri(net_name, 2, NULL), &inherited);
	EV_OK(rfm_event_enable(inherited, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	/* A watcher thread the child will not have. */
	if (rfm_event_fd(inherited) < 0)
		EV_OK(rfm_event_handle(inherited, &handle));
	harness_child_start(&child, close_inherited, NULL);
	assert_int_equal(harness_child_wait_ready(&child), 0);
	assert_int_equal(harness_child_wait(&child), 0);
	/* The parent still receives on its queue. */
	assert_int_equal(rfm_event_send(tx, 2, RFM_EVENT_INTR2, 5), 1);
	EV_OK(rfm_event_wait(inherited, &ev, -1));
	assert_int_equal(ev.data, 5);
	rfm_close(inherited);
	rfm_close(tx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_across_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broadcast_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocking_ping_pong, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crashed_receiver, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_node_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_keeps_parent_queue, setup, teardown),
	};

	harness_init();
	ev_require_shm("its processes choose their node ids (node=N) and share one (shared=1); dev: cards have fixed ids");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
