/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network interrupts within one process: several handles of one network,
 * threads for cancel and close, callbacks and the waitable an event loop
 * watches (a descriptor on Linux, a handle on Windows), overflow with
 * exact counts, and every kind of bad input.
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "byteorder.h"
#include "ev-test.h"
#include "rfm-cmocka.h"

#define MS (1000 * 1000LL)

struct net {
	const char *name;
	rfm_node *n[4]; /* node ids 1..4 */
};

static int setup(void **state)
{
	struct net *t = calloc(1, sizeof(*t));

	t->name = strdup(ev_net("api"));
	for (int i = 0; i < 4; i++)
		EV_OPEN(ev_uri(t->name, i + 1, NULL), &t->n[i]);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct net *t = *state;

	for (int i = 0; i < 4; i++)
		rfm_close(t->n[i]);
	assert_int_equal(rfm_network_destroy(ev_uri(t->name, -1, NULL), 0), 0);
	free((char *)t->name);
	free(t);
	return 0;
}

static void test_type_names(void **state)
{
	(void)state;
	for (unsigned int t = RFM_EVENT_RESET; t <= RFM_EVENT_INTR4; t++)
		assert_int_equal(rfm_event_type_parse(rfm_event_type_name(t)), (int)t);
	assert_string_equal(rfm_event_type_name(RFM_EVENT_INTR3), "intr3");
	assert_string_equal(rfm_event_type_name(RFM_EVENT_OVERFLOW), "overflow");
	assert_int_equal(rfm_event_type_parse("INTR2"), RFM_EVENT_INTR2);
	assert_string_equal(rfm_event_type_name(12), "?");
	assert_int_equal(rfm_event_type_parse("intr5"), RFM_EINVAL);
	assert_int_equal(rfm_event_type_parse(NULL), RFM_EINVAL);
	assert_int_equal(sizeof(struct rfm_event), 32);
	assert_int_equal(offsetof(struct rfm_event, seq), 16);
	assert_int_equal(offsetof(struct rfm_event, sent_ns), 24);
}

static void test_send_wait(void **state)
{
	struct net *t = *state;
	struct rfm_event ev;
	uint64_t before = rfm_event_now_ns();

	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), RFM_EAGAIN);
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, 42), 1);
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), 0);
	assert_int_equal(ev.type, RFM_EVENT_INTR1);
	assert_int_equal(ev.sender, 1);
	assert_int_equal(ev.data, 42);
	assert_int_equal(ev.flags, 0);
	assert_int_equal(ev.seq, 1);
	assert_true(ev.sent_ns >= before && ev.sent_ns <= rfm_event_now_ns());
	/* Not enabled: not queued, and the send says nobody took it. */
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR2, 7), 0);
	/* Attached node that does not receive at all. */
	assert_int_equal(rfm_event_send(t->n[0], 3, RFM_EVENT_INTR1, 7), 0);
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), RFM_EAGAIN);
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 5 * MS), RFM_ETIMEDOUT);
	/* Every network type, in order, with a blocking wait. */
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_MASK_NETWORK & ~RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	for (unsigned int type = RFM_EVENT_RESET; type <= RFM_EVENT_INTR4; type++)
		assert_int_equal(rfm_event_send(t->n[3], 2, type, 100 + type), 1);
	for (unsigned int type = RFM_EVENT_RESET; type <= RFM_EVENT_INTR4; type++) {
		assert_int_equal(rfm_event_wait(t->n[1], &ev, -1), 0);
		assert_int_equal(ev.type, type);
		assert_int_equal(ev.sender, 4);
		assert_int_equal(ev.data, 100 + type);
		assert_int_equal(ev.seq, 2 + type);
	}
	uint32_t mask;
	EV_OK(rfm_event_get_enabled(t->n[1], &mask));
	assert_int_equal(mask, RFM_EVENT_MASK_NETWORK);
	EV_OK(rfm_event_disable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR4)));
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR4, 1), 0);
	/* Disabling stops queueing; what is queued stays. */
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR3, 3), 1);
	EV_OK(rfm_event_disable(t->n[1], RFM_EVENT_MASK_NETWORK));
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), 0);
	assert_int_equal(ev.data, 3);
	assert_int_equal(rfm_event_wait(t->n[1], &ev, -1), RFM_ECLOSED);
}

static void test_fetch_batch(void **state)
{
	struct net *t = *state;
	struct rfm_event evs[100];

	EV_OK(rfm_event_enable(t->n[2], RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	for (uint32_t i = 0; i < 250; i++)
		assert_int_equal(rfm_event_send(t->n[i % 2], 3, RFM_EVENT_INTR2, i), 1);
	uint32_t next = 0;
	while (next < 250) {
		int n = rfm_event_fetch(t->n[2], evs, 100, 0);
		assert_true(n > 0 && n <= 100);
		for (int i = 0; i < n; i++, next++) {
			assert_int_equal(evs[i].data, next);
			assert_int_equal(evs[i].sender, 1 + next % 2);
			assert_int_equal(evs[i].seq, next + 1);
		}
	}
	assert_int_equal(rfm_event_fetch(t->n[2], evs, 100, 0), RFM_EAGAIN);
	struct rfm_event_stats st = { .struct_size = sizeof(st) };
	EV_OK(rfm_event_get_stats(t->n[2], &st));
	assert_int_equal(st.delivered, 250);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.queued, 0);
	assert_int_equal(st.depth, RFM_EVENT_QUEUE_MIN);
}

static void test_broadcast(void **state)
{
	struct net *t = *state;
	struct rfm_event ev;

	for (int i = 0; i < 3; i++)
		EV_OK(rfm_event_enable(t->n[i], RFM_EVENT_BIT(RFM_EVENT_INTR3)));
	/* Nodes 2 and 3 receive, node 4 does not, the sender skips itself. */
	assert_int_equal(rfm_event_send(t->n[0], RFM_NODE_ALL, RFM_EVENT_INTR3, 9), 2);
	for (int i = 1; i < 3; i++) {
		assert_int_equal(rfm_event_wait(t->n[i], &ev, 0), 0);
		assert_int_equal(ev.data, 9);
		assert_int_equal(ev.sender, 1);
		assert_int_equal(rfm_event_wait(t->n[i], &ev, 0), RFM_EAGAIN);
	}
	assert_int_equal(rfm_event_wait(t->n[0], &ev, 0), RFM_EAGAIN);
	/* With loopback the broadcast reaches the own node too. */
	EV_OK(rfm_node_set_loopback(t->n[0], 1));
	assert_int_equal(rfm_event_send(t->n[0], RFM_NODE_ALL, RFM_EVENT_INTR3, 10), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rfm_event_wait(t->n[i], &ev, 0), 0);
		assert_int_equal(ev.data, 10);
	}
}

static void test_loopback(void **state)
{
	struct net *t = *state;
	struct rfm_event ev;
	rfm_node *lb;

	EV_OK(rfm_event_enable(t->n[0], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_int_equal(rfm_node_get_loopback(t->n[0]), 0);
	assert_int_equal(rfm_event_send(t->n[0], 1, RFM_EVENT_INTR1, 5), RFM_ESELF);
	assert_int_equal(rfm_event_wait(t->n[0], &ev, 0), RFM_EAGAIN);
	EV_OK(rfm_node_set_loopback(t->n[0], 1));
	assert_int_equal(rfm_node_get_loopback(t->n[0]), 1);
	assert_int_equal(rfm_event_send(t->n[0], 1, RFM_EVENT_INTR1, 6), 1);
	assert_int_equal(rfm_event_wait(t->n[0], &ev, 0), 0);
	assert_int_equal(ev.sender, 1);
	assert_int_equal(ev.data, 6);
	assert_int_equal(ev.flags, RFM_EVENT_F_LOOPBACK);
	EV_OK(rfm_node_set_loopback(t->n[0], 0));
	assert_int_equal(rfm_event_send(t->n[0], 1, RFM_EVENT_INTR1, 7), RFM_ESELF);

	/* The URI parameter. */
	EV_OPEN(ev_uri(t->name, 9, "loopback=1"), &lb);
	assert_int_equal(rfm_node_get_loopback(lb), 1);
	EV_OK(rfm_event_enable(lb, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	assert_int_equal(rfm_event_send(lb, 9, RFM_EVENT_INTR2, 8), 1);
	assert_int_equal(rfm_event_wait(lb, &ev, 0), 0);
	assert_int_equal(ev.data, 8);
	rfm_close(lb);
}

static void test_shared_handles(void **state)
{
	struct net *t = *state;
	struct rfm_event ev;
	rfm_node *h[RFM_EVENT_HANDLES_PER_NODE], *extra, *plain;

	/* A plain second open of a live id is refused; shared=1 joins it. */
	assert_int_equal(rfm_open(ev_uri(t->name, 2, NULL), &plain), RFM_EINUSE);
	h[0] = t->n[1];
	for (int i = 1; i < RFM_EVENT_HANDLES_PER_NODE; i++) {
		EV_OPEN(ev_uri(t->name, 2, "shared=1"), &h[i]);
		assert_int_equal(rfm_node_id(h[i]), 2);
	}
	assert_non_null(strstr(rfm_node_uri(h[1]), "shared=1"));
	for (int i = 0; i < RFM_EVENT_HANDLES_PER_NODE; i++)
		EV_OK(rfm_event_enable(h[i], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	/* Room for eight receiving handles per node id. */
	EV_OPEN(ev_uri(t->name, 2, "shared=1"), &extra);
	assert_int_equal(rfm_event_enable(extra, RFM_EVENT_BIT(RFM_EVENT_INTR1)), RFM_EFULL);
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, 77),
			 RFM_EVENT_HANDLES_PER_NODE);
	for (int i = 0; i < RFM_EVENT_HANDLES_PER_NODE; i++) {
		assert_int_equal(rfm_event_wait(h[i], &ev, 0), 0);
		assert_int_equal(ev.data, 77);
		assert_int_equal(ev.seq, 1);
	}
	/* A closed handle's queue is free again; the id stays while any handle is open. */
	rfm_close(h[7]);
	EV_OK(rfm_event_enable(extra, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	for (int i = 1; i < 7; i++)
		rfm_close(h[i]);
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, 78), 2);
	assert_int_equal(rfm_event_wait(extra, &ev, 0), 0);
	assert_int_equal(ev.data, 78);
	rfm_close(extra);
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, 79), 1);
	assert_int_equal(rfm_open(ev_uri(t->name, 2, NULL), &plain), RFM_EINUSE);
}

static void test_overflow_exact(void **state)
{
	struct net *t = *state;
	struct rfm_event *evs = calloc(2000, sizeof(*evs));
	int accepted = 0;

	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	for (uint32_t i = 0; i < RFM_EVENT_QUEUE_MIN + 100; i++) {
		int r = rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, i);
		assert_true(r == 0 || r == 1);
		accepted += r;
	}
	assert_int_equal(accepted, RFM_EVENT_QUEUE_MIN);
	struct rfm_event_stats st = { .struct_size = sizeof(st) };
	EV_OK(rfm_event_get_stats(t->n[1], &st));
	assert_int_equal(st.dropped, 100);
	assert_int_equal(st.queued, RFM_EVENT_QUEUE_MIN);

	/* The announcement first, then the records kept (the oldest ones). */
	int n = rfm_event_fetch(t->n[1], evs, 2000, 0);
	assert_int_equal(n, RFM_EVENT_QUEUE_MIN + 1);
	assert_int_equal(evs[0].type, RFM_EVENT_OVERFLOW);
	assert_int_equal(evs[0].data, 100);
	assert_int_equal(evs[0].sender, 2);
	assert_int_equal(evs[0].seq, 1);
	for (int i = 1; i < n; i++) {
		assert_int_equal(evs[i].type, RFM_EVENT_INTR1);
		assert_int_equal(evs[i].data, i - 1);
		assert_int_equal(evs[i].seq, i + 1);
	}
	/* A second episode is announced again, with its own count. */
	for (uint32_t i = 0; i < RFM_EVENT_QUEUE_MIN + 7; i++)
		rfm_event_send(t->n[2], 2, RFM_EVENT_INTR1, i);
	assert_int_equal(rfm_event_wait(t->n[1], &evs[0], 0), 0);
	assert_int_equal(evs[0].type, RFM_EVENT_OVERFLOW);
	assert_int_equal(evs[0].data, 7);
	assert_int_equal(evs[0].seq, RFM_EVENT_QUEUE_MIN + 2);
	n = rfm_event_fetch(t->n[1], evs, 2000, 0);
	assert_int_equal(n, RFM_EVENT_QUEUE_MIN);
	EV_OK(rfm_event_get_stats(t->n[1], &st));
	assert_int_equal(st.dropped, 107);
	assert_int_equal(st.overflows, 2);
	assert_int_equal(st.delivered, 2 * RFM_EVENT_QUEUE_MIN + 2);
	free(evs);
}

static void test_deeper_queue(void **state)
{
	(void)state;
	const char *name = ev_net("depth");
	rfm_node *a, *b, *c;
	int accepted = 0;

	EV_OPEN(ev_uri(name, 1, "depth=4096"), &a);
	/* The depth is the network's: a different one is refused. */
	assert_int_equal(rfm_open(ev_uri(name, 2, "depth=2048"), &b), RFM_ESIZE);
	EV_OPEN(ev_uri(name, 2, NULL), &b);
	EV_OPEN(ev_uri(name, 3, "depth=4K"), &c);
	EV_OK(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	for (int i = 0; i < 5000; i++)
		accepted += rfm_event_send(a, 2, RFM_EVENT_INTR1, (uint32_t)i);
	assert_int_equal(accepted, 4096);
	struct rfm_event_stats st = { .struct_size = sizeof(st) };
	EV_OK(rfm_event_get_stats(b, &st));
	assert_int_equal(st.depth, 4096);
	assert_int_equal(st.dropped, 5000 - 4096);
	rfm_close(a);
	rfm_close(b);
	rfm_close(c);
	assert_int_equal(rfm_network_destroy(ev_uri(name, -1, NULL), 0), 0);
}

static void test_publish(void **state)
{
	struct net *t = *state;
	struct rfm_event ev;
	uint8_t *base;
	const char msg[] = "data before the flag";
	uint32_t seq;

	EV_OK(rfm_mem_map(t->n[1], (void **)&base, NULL));
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	assert_int_equal(rfm_event_publish(t->n[0], 256, msg, sizeof(msg), 128, 2,
					   RFM_EVENT_INTR2, &seq), 1);
	assert_int_equal(seq, 1);
	assert_int_equal(rfm_event_publish(t->n[0], 256, msg, sizeof(msg), 128, 2,
					   RFM_EVENT_INTR2, &seq), 1);
	assert_int_equal(seq, 2);
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), 0);
	assert_int_equal(ev.data, 1);
	assert_memory_equal(base + 256, msg, sizeof(msg));
	/* The sequence word is little-endian in the window on every host. */
	assert_int_equal(le32toh(rfm_load32_acquire(base, 128)), 2);
	assert_int_equal(base[128], 2);
	assert_int_equal(base[129] | base[130] | base[131], 0);

	/* Checked before anything is written. */
	assert_int_equal(rfm_event_publish(t->n[0], 65536 - 4, msg, sizeof(msg), 128, 2,
					   RFM_EVENT_INTR2, NULL), RFM_ERANGE);
	assert_int_equal(rfm_event_publish(t->n[0], 256, msg, sizeof(msg), 65536, 2,
					   RFM_EVENT_INTR2, NULL), RFM_ERANGE);
	assert_int_equal(rfm_event_publish(t->n[0], 256, msg, sizeof(msg), 130, 2,
					   RFM_EVENT_INTR2, NULL), RFM_EALIGN);
	assert_int_equal(rfm_event_publish(t->n[0], 256, msg, sizeof(msg), 260, 2,
					   RFM_EVENT_INTR2, NULL), RFM_EINVAL);
	assert_int_equal(rfm_event_publish(t->n[0], 256, msg, sizeof(msg), 128, 77,
					   RFM_EVENT_INTR2, NULL), RFM_ENODE);
	assert_int_equal(rfm_event_publish(t->n[0], 256, msg, sizeof(msg), 128, 1,
					   RFM_EVENT_INTR2, NULL), RFM_ESELF);
	assert_int_equal(le32toh(rfm_load32(base, 128)), 2);
}

static void test_bad_input(void **state)
{
	struct net *t = *state;
	struct rfm_event ev;
	rfm_node *x;

	assert_int_equal(rfm_event_send(NULL, 2, RFM_EVENT_INTR1, 0), RFM_EINVAL);
	assert_int_equal(rfm_event_send(t->n[0], 2, 5, 0), RFM_EINVAL);
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_OVERFLOW, 0), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "can not be sent"));
	assert_int_equal(rfm_event_send(t->n[0], 256, RFM_EVENT_INTR1, 0), RFM_ENODEID);
	assert_int_equal(rfm_event_send(t->n[0], 0xfffe, RFM_EVENT_INTR1, 0), RFM_ENODEID);
	assert_int_equal(rfm_event_send(t->n[0], 1, RFM_EVENT_INTR1, 0), RFM_ESELF);
	assert_int_equal(rfm_event_send(t->n[0], 200, RFM_EVENT_INTR1, 0), RFM_ENODE);
	assert_non_null(strstr(rfm_last_error(), "200"));

	assert_int_equal(rfm_event_enable(NULL, 1), RFM_EINVAL);
	assert_int_equal(rfm_event_enable(t->n[1], 0), RFM_EINVAL);
	assert_int_equal(rfm_event_enable(t->n[1], RFM_EVENT_BIT(5)), RFM_EINVAL);
	assert_int_equal(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_OVERFLOW)), RFM_ENOTSUP);
	/* LINK is made by the health thread: enabled like a network type. */
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_LINK)));
	EV_OK(rfm_event_disable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_LINK)));
	/* Waiting with nothing enabled has nothing to wait for. */
	assert_int_equal(rfm_event_wait(t->n[1], &ev, -1), RFM_ECLOSED);
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	/* Enabling twice is refused and changes nothing. */
	assert_int_equal(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR1) |
						       RFM_EVENT_BIT(RFM_EVENT_INTR2)),
			 RFM_EBUSY);
	assert_non_null(strstr(rfm_last_error(), "already enabled"));
	uint32_t mask;
	EV_OK(rfm_event_get_enabled(t->n[1], &mask));
	assert_int_equal(mask, RFM_EVENT_BIT(RFM_EVENT_INTR1));
	assert_int_equal(rfm_event_get_enabled(t->n[1], NULL), RFM_EINVAL);
	assert_int_equal(rfm_event_disable(t->n[1], RFM_EVENT_BIT(9)), RFM_EINVAL);
	assert_int_equal(rfm_event_disable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR4)), 0);

	assert_int_equal(rfm_event_wait(NULL, &ev, 0), RFM_EINVAL);
	assert_int_equal(rfm_event_wait(t->n[1], NULL, 0), RFM_EINVAL);
	assert_int_equal(rfm_event_fetch(t->n[1], &ev, 0, 0), RFM_EINVAL);
	assert_int_equal(rfm_event_cancel(NULL), RFM_EINVAL);
	assert_int_equal(rfm_event_fd(NULL), RFM_EINVAL);
	assert_int_equal(rfm_event_set_spin(t->n[1], -2), RFM_EINVAL);
	assert_int_equal(rfm_event_set_spin(NULL, 0), RFM_EINVAL);
	assert_int_equal(rfm_node_set_loopback(NULL, 1), RFM_EINVAL);
	assert_int_equal(rfm_node_get_loopback(NULL), RFM_EINVAL);
	struct rfm_event_stats st = { .struct_size = 2 };
	assert_int_equal(rfm_event_get_stats(t->n[1], &st), RFM_EINVAL);
	assert_int_equal(rfm_event_get_stats(t->n[1], NULL), RFM_EINVAL);

	/* URI parameters. */
	assert_int_equal(rfm_open(ev_uri(t->name, 9, "loopback=2"), &x), RFM_EURI);
	assert_int_equal(rfm_open(ev_uri(t->name, 9, "spin=fast"), &x), RFM_EURI);
	assert_int_equal(rfm_open(ev_uri(t->name, -1, "shared=1"), &x), RFM_EURI);
	assert_int_equal(rfm_open(ev_uri(t->name, 9, "shared=yes"), &x), RFM_EURI);
	assert_int_equal(rfm_open(ev_uri(t->name, 9, "depth=1000"), &x), RFM_EURI);
	assert_int_equal(rfm_open(ev_uri(t->name, 9, "depth=512"), &x), RFM_EURI);
	EV_OPEN(ev_uri(t->name, 9, "spin=-1"), &x);
	rfm_close(x);
	EV_OPEN(ev_uri(t->name, 9, "spin=0&loopback=0"), &x);
	rfm_close(x);
}

/* ---- threads: cancel and close ---- */

struct waiter {
	rfm_node *node;
	int64_t timeout;
	int ret;
	long tid;
	sem_t started;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	struct rfm_event ev;

	w->tid = harness_thread_id();
	sem_post(&w->started);
	w->ret = rfm_event_wait(w->node, &ev, w->timeout);
	return NULL;
}

static void test_cancel(void **state)
{
	struct net *t = *state;
	struct rfm_event ev;
	struct waiter w = { .node = t->n[1], .timeout = -1 };
	pthread_t th;

	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	sem_init(&w.started, 0, 0);
	/* Whether the thread is already asleep or not, the cancel reaches it. */
	for (int round = 0; round < 20; round++) {
		assert_int_equal(pthread_create(&th, NULL, wait_thread, &w), 0);
		assert_sem_posted(&w.started, "the waiter thread started");
		EV_OK(rfm_event_cancel(t->n[1]));
		pthread_join(th, NULL);
		assert_int_equal(w.ret, RFM_ECANCELED);
		/* The cancel was consumed: the next poll is an ordinary one. */
		assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), RFM_EAGAIN);
	}
	/* A cancel with no waiter is kept for the next wait. */
	EV_OK(rfm_event_cancel(t->n[1]));
	assert_int_equal(rfm_event_wait(t->n[1], &ev, -1), RFM_ECANCELED);
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), RFM_EAGAIN);
	/* Spinning waits are cancelled too. */
	EV_OK(rfm_event_set_spin(t->n[1], -1));
	assert_int_equal(pthread_create(&th, NULL, wait_thread, &w), 0);
	assert_sem_posted(&w.started, "the waiter thread started");
	EV_OK(rfm_event_cancel(t->n[1]));
	pthread_join(th, NULL);
	assert_int_equal(w.ret, RFM_ECANCELED);
	sem_destroy(&w.started);
}

static void test_close_while_waiting(void **state)
{
	struct net *t = *state;
	struct waiter w = { .node = t->n[1], .timeout = -1 };
	pthread_t th;

	if (!harness_can_see_sleepers()) {
		print_message("skipped: this OS does not say when a thread sleeps in its wait\n");
		skip();
	}
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	sem_init(&w.started, 0, 0);
	assert_int_equal(pthread_create(&th, NULL, wait_thread, &w), 0);
	assert_sem_posted(&w.started, "the waiter thread started");
	/* Closing must not race with entering the wait: wait until it sleeps. */
	uint64_t give_up = rfm_event_now_ns() + HARNESS_HANG_TIMEOUT_MS * 1000000ull;
	while (!harness_thread_sleeping(w.tid)) {
		if (rfm_event_now_ns() > give_up)
			fail_msg("the waiter thread %ld never slept in its wait", w.tid);
		sched_yield();
	}
	rfm_close(t->n[1]); /* returns after the waiter has left */
	t->n[1] = NULL;
	pthread_join(th, NULL);
	assert_int_equal(w.ret, RFM_ECLOSED);
	sem_destroy(&w.started);
	/* The id is free again and a sender sees it gone. */
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, 1), RFM_ENODE);
	EV_OPEN(ev_uri(t->name, 2, NULL), &t->n[1]);
}

/* ---- callbacks ---- */

struct cb_state {
	rfm_node *self;
	rfm_node *peer;
	sem_t done;
	uint32_t got[8];
	unsigned int count;
	int wait_ret;
	int reenter_ret;
	unsigned int stop_after;
	bool close_self;
};

static void count_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct cb_state *s = arg;
	struct rfm_event other;

	if (node != s->self)
		s->wait_ret = 12345; /* seen by the test thread as a wrong value */
	if (s->count < 8)
		s->got[s->count] = ev->data;
	s->count++;
	/* Calling back into the library: waits are refused, sends work. */
	s->wait_ret = rfm_event_wait(node, &other, 0);
	s->reenter_ret = rfm_event_send(node, 1, RFM_EVENT_INTR4, ev->data);
	if (s->count == s->stop_after) {
		/* Unregistering oneself from inside the callback. */
		rfm_event_callback_unregister(node, ev->type);
		if (s->close_self)
			rfm_close(node);
		sem_post(&s->done);
	}
}

static void test_callbacks(void **state)
{
	struct net *t = *state;
	struct cb_state s = { .self = t->n[1], .stop_after = 3 };
	struct rfm_event ev;

	sem_init(&s.done, 0, 0);
	EV_OK(rfm_event_enable(t->n[0], RFM_EVENT_BIT(RFM_EVENT_INTR4)));
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	EV_OK(rfm_event_callback_register(t->n[1], RFM_EVENT_INTR1, count_cb, &s));
	assert_int_equal(rfm_event_callback_register(t->n[1], RFM_EVENT_INTR1, count_cb, &s),
			 RFM_EBUSY);
	assert_int_equal(rfm_event_callback_register(t->n[1], 7, count_cb, &s), RFM_EINVAL);
	assert_int_equal(rfm_event_callback_register(t->n[1], RFM_EVENT_INTR2, NULL, &s),
			 RFM_EINVAL);
	/* While callbacks own the records, waits are refused. */
	assert_int_equal(rfm_event_wait(t->n[1], &ev, 0), RFM_EBUSY);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, 10 + i), 1);
	assert_sem_posted(&s.done, "the callbacks' records");
	assert_int_equal(s.count, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(s.got[i], 10 + i);
	assert_int_equal(s.wait_ret, RFM_EBUSY);
	assert_int_equal(s.reenter_ret, 1);
	/* The callback sent three INTR4 back to node 1. */
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(rfm_event_wait(t->n[0], &ev, -1), 0);
		assert_int_equal(ev.data, 10 + i);
	}
	/* It unregistered itself: records are for waits again. */
	assert_int_equal(rfm_event_callback_unregister(t->n[1], RFM_EVENT_INTR1), RFM_ENOTFOUND);
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, 99), 1);
	assert_int_equal(rfm_event_wait(t->n[1], &ev, -1), 0);
	assert_int_equal(ev.data, 99);
	assert_int_equal(s.count, 3);

	/* An overflow callback: the announcement comes first; after it
	 * unregisters, the dispatcher parks and leaves the rest to waits. */
	struct cb_state o = { .self = t->n[1], .stop_after = 1 };
	struct rfm_event *evs = calloc(RFM_EVENT_QUEUE_MIN + 1, sizeof(*evs));
	sem_init(&o.done, 0, 0);
	for (uint32_t i = 0; i < RFM_EVENT_QUEUE_MIN + 5; i++)
		rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, i);
	EV_OK(rfm_event_callback_register(t->n[1], RFM_EVENT_OVERFLOW, count_cb, &o));
	assert_sem_posted(&o.done, "the overflow callback");
	assert_int_equal(o.count, 1);
	assert_int_equal(o.got[0], 5);
	uint32_t next = 0;
	while (next < RFM_EVENT_QUEUE_MIN) {
		int n = rfm_event_fetch(t->n[1], evs, RFM_EVENT_QUEUE_MIN + 1, -1);
		if (n == RFM_EBUSY)
			continue; /* the dispatcher has not seen the unregistration yet */
		assert_true(n > 0);
		for (int i = 0; i < n; i++, next++)
			assert_int_equal(evs[i].data, next);
	}

	/* Records of a type without a callback are taken and counted. */
	struct cb_state u = { .self = t->n[1], .stop_after = 1 };
	sem_init(&u.done, 0, 0);
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR1, i), 1);
	assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR2, 1234), 1);
	EV_OK(rfm_event_callback_register(t->n[1], RFM_EVENT_INTR2, count_cb, &u));
	assert_sem_posted(&u.done, "the INTR2 callback");
	assert_int_equal(u.got[0], 1234);
	struct rfm_event_stats st = { .struct_size = sizeof(st) };
	EV_OK(rfm_event_get_stats(t->n[1], &st));
	assert_int_equal(st.unhandled, 10);
	assert_int_equal(st.dropped, 5);
	free(evs);
	sem_destroy(&u.done);
	sem_destroy(&o.done);
	sem_destroy(&s.done);
}

static void test_callback_close(void **state)
{
	struct net *t = *state;
	struct cb_state s = { .self = t->n[2], .stop_after = 1, .close_self = true };
	rfm_node *again = NULL;

	sem_init(&s.done, 0, 0);
	EV_OK(rfm_event_enable(t->n[2], RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	EV_OK(rfm_event_callback_register(t->n[2], RFM_EVENT_INTR2, count_cb, &s));
	assert_int_equal(rfm_event_send(t->n[0], 3, RFM_EVENT_INTR2, 1), 1);
	assert_sem_posted(&s.done, "the callbacks' records");
	t->n[2] = NULL; /* closed by its own callback */
	/* The close finishes when the callback returns: then the id is free. */
	for (long i = 0; i < 100000000 && rfm_open(ev_uri(t->name, 3, NULL), &again); i++)
		sched_yield();
	assert_non_null(again);
	t->n[2] = again;
	sem_destroy(&s.done);
}

/* ---- the waitable an event loop watches ---- */

static void test_waitable(void **state)
{
	struct net *t = *state;
	struct rfm_event evs[16];
	void *handle = (void *)1;
	int fd = rfm_event_fd(t->n[1]);

	/* One kind per OS: a descriptor on Linux, a waitable handle on
	 * Windows; asked for the other, each says so, naming the right one. */
	if (fd >= 0) {
		assert_int_equal(rfm_event_fd(t->n[1]), fd);
		assert_int_equal(rfm_event_handle(t->n[1], &handle), RFM_ENOTSUP);
		assert_null(handle);
		assert_non_null(strstr(rfm_last_error(), "rfm_event_fd()"));
	} else {
		assert_int_equal(fd, RFM_ENOTSUP);
		assert_non_null(strstr(rfm_last_error(), "rfm_event_handle()"));
		EV_OK(rfm_event_handle(t->n[1], &handle));
		assert_non_null(handle);
	}
	assert_int_equal(rfm_event_handle(t->n[1], NULL), RFM_EINVAL);
	EV_OK(rfm_event_enable(t->n[1], RFM_EVENT_BIT(RFM_EVENT_INTR3)));
	assert_int_equal(harness_event_ready(t->n[1], 0), 0);
	for (uint32_t round = 0; round < 50; round++) {
		assert_int_equal(rfm_event_send(t->n[0], 2, RFM_EVENT_INTR3, round), 1);
		assert_int_equal(rfm_event_send(t->n[3], 2, RFM_EVENT_INTR3, round), 1);
		unsigned int got = 0;
		while (got < 2) {
			assert_int_equal(harness_event_ready(t->n[1], -1), 1);
			int n = rfm_event_fetch(t->n[1], evs, 16, 0);
			if (n == RFM_EAGAIN)
				continue; /* a rare spurious readiness */
			assert_true(n > 0);
			for (int i = 0; i < n; i++)
				assert_int_equal(evs[i].data, round);
			got += (unsigned int)n;
		}
		assert_int_equal(got, 2);
		/* Drained: after at most one empty fetch it is quiet. */
		if (harness_event_ready(t->n[1], 0))
			assert_int_equal(rfm_event_fetch(t->n[1], evs, 16, 0), RFM_EAGAIN);
		assert_int_equal(harness_event_ready(t->n[1], 0), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_names),
		cmocka_unit_test_setup_teardown(test_send_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fetch_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broadcast, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loopback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow_exact, setup, teardown),
		cmocka_unit_test(test_deeper_queue),
		cmocka_unit_test_setup_teardown(test_publish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_while_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callbacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waitable, setup, teardown),
	};

	harness_init();
	ev_require_shm("its cases choose node ids 1..9 in URIs, set shm: queue depths (depth=) and destroy the network");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
