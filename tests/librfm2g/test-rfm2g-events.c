/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g interrupt events in one process, between two handles on two node
 * ids: enabling, waiting, timeouts, counts, queue statistics, cancel,
 * callbacks (on librfm's dispatcher thread), self-disabling error events, and
 * the status codes of bad event input; and the one path of a record:
 * waits take it with no library thread, callbacks of every type share
 * librfm's one dispatcher thread. Threads signal readiness through
 * the library's own EVENT_IN_USE answer or semaphores, never by sleeping.
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "rfm2g-test.h"
#include "librfm2g/compat.h"	/* to inject error events, which shm: networks never raise */

#define NET_SIZE (1u << 20)

/* The shared fixture's network (harness_fixture_network), for the tests. */
static struct harness_network *net;
static RFM2GHANDLE tx, rx;	/* nodes 1 and 2 */

static int setup(void **state)
{
	unsetenv("RFM_URI");
	if (harness_fixture_network(state, NET_SIZE))
		return -1;
	net = *state;
	tx = rfm2g_test_open(net, 1);
	rx = rfm2g_test_open(net, 2);
	return 0;
}

static int teardown(void **state)
{
	assert_st(RFM2gClose(&tx), RFM2G_SUCCESS);
	assert_st(RFM2gClose(&rx), RFM2G_SUCCESS);
	return harness_fixture_teardown(state);
}

static RFM2GEVENTINFO wait_info(RFM2GEVENTTYPE type, RFM2G_UINT32 timeout)
{
	RFM2GEVENTINFO info;

	memset(&info, 0, sizeof(info));
	info.Event = type;
	info.Timeout = timeout;
	return info;
}

/*
 * Everything sent before a marker has been sorted into rx's queues once
 * the marker arrives: records reach them in order.
 */
static void sync_marker(void)
{
	RFM2GEVENTINFO info = wait_info(RFM2GEVENT_INTR4, RFM2G_INFINITE_TIMEOUT);

	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR4), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR4, 0x5EA1), RFM2G_SUCCESS);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.ExtendedInfo, 0x5EA1);
}

static void t_enable_before_wait(void **state)
{
	RFM2GEVENTINFO info = wait_info(RFM2GEVENT_INTR1, RFM2G_INFINITE_TIMEOUT);
	RFM2G_UINT32 count = 99;

	(void) state;
	/* Not enabled: no record is kept, and a wait says so instead of hanging. */
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 1), RFM2G_SUCCESS);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_NOT_ENABLED);
	assert_st(RFM2gGetEventCount(rx, RFM2GEVENT_INTR1, &count), RFM2G_SUCCESS);
	assert_int_equal(count, 0);

	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);	/* idempotent */
	info = wait_info(RFM2GEVENT_INTR1, RFM2G_NO_WAIT);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_TIMED_OUT);
	info = wait_info(RFM2GEVENT_INTR1, 5);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_TIMED_OUT);

	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 0xABCD1234), RFM2G_SUCCESS);
	info = wait_info(RFM2GEVENT_INTR1, RFM2G_INFINITE_TIMEOUT);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.NodeId, 1);
	assert_int_equal(info.ExtendedInfo, 0xABCD1234);
	assert_int_equal(info.Event, RFM2GEVENT_INTR1);
	assert_int_equal(info.Timeout, RFM2G_INFINITE_TIMEOUT);	/* unchanged */

	/* A queued record is taken even with RFM2G_NO_WAIT. */
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 7), RFM2G_SUCCESS);
	sync_marker();
	info = wait_info(RFM2GEVENT_INTR1, RFM2G_NO_WAIT);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.ExtendedInfo, 7);

	/* Disabled again: new records are not kept. */
	assert_st(RFM2gDisableEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 8), RFM2G_SUCCESS);
	sync_marker();
	assert_st(RFM2gGetEventCount(rx, RFM2GEVENT_INTR1, &count), RFM2G_SUCCESS);
	assert_int_equal(count, 2);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_NOT_ENABLED);
}

static void t_send_rules(void **state)
{
	RFM2GEVENTINFO info = wait_info(RFM2GEVENT_RESET, RFM2G_INFINITE_TIMEOUT);

	(void) state;
	assert_st(RFM2gSendEvent(tx, 1, RFM2GEVENT_INTR1, 0), RFM2G_NODE_ID_SELF);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_BAD_DATA, 0), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gSendEvent(tx, 2, (RFM2GEVENTTYPE) -1, 0), RFM2G_BAD_PARAMETER_3);
	/* The event type is checked before the node. */
	assert_st(RFM2gSendEvent(tx, 1, RFM2GEVENT_LAST, 0), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gSendEvent(tx, 256, RFM2GEVENT_INTR1, 0), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gSendEvent(tx, RFM2G_NODE_UNKNOWN, RFM2GEVENT_INTR1, 0),
		  RFM2G_BAD_PARAMETER_2);
	/* A node nobody has opened: the interrupt goes out and is lost, as on a ring. */
	assert_st(RFM2gSendEvent(tx, 200, RFM2GEVENT_INTR1, 0), RFM2G_SUCCESS);

	/* Broadcast reaches the other node; RESET reports node 0 and no data, as the driver. */
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_RESET), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(tx, RFM2GEVENT_RESET), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, RFM2G_NODE_ALL, RFM2GEVENT_RESET, 42), RFM2G_SUCCESS);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.NodeId, 0);
	assert_int_equal(info.ExtendedInfo, 0);
	/* ... and never the sender itself. */
	info = wait_info(RFM2GEVENT_RESET, RFM2G_NO_WAIT);
	assert_st(RFM2gWaitForEvent(tx, &info), RFM2G_TIMED_OUT);
}

static void t_bad_event_input(void **state)
{
	RFM2GEVENTINFO info = wait_info(RFM2GEVENT_LAST, RFM2G_NO_WAIT);
	RFM2GQINFO q;
	RFM2G_UINT32 count;

	(void) state;
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_LAST), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gEnableEvent(rx, (RFM2GEVENTTYPE) 1000), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gDisableEvent(rx, RFM2GEVENT_LAST), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gWaitForEvent(rx, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gCancelWaitForEvent(rx, RFM2GEVENT_LAST), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_LAST, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR1, NULL), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gDisableEventCallback(rx, RFM2GEVENT_LAST), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gDisableEventCallback(rx, RFM2GEVENT_INTR1), RFM2G_NOT_ENABLED);
	assert_st(RFM2gGetEventCount(rx, RFM2GEVENT_LAST, &count), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetEventCount(rx, RFM2GEVENT_INTR1, NULL), RFM2G_BAD_PARAMETER_3);
	/* RFM2GEVENT_LAST means "all" for the Clear calls, and no further. */
	assert_st(RFM2gClearEvent(rx, RFM2GEVENT_LAST), RFM2G_SUCCESS);
	assert_st(RFM2gClearEvent(rx, (RFM2GEVENTTYPE) 13), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gFlushEventQueue(rx, (RFM2GEVENTTYPE) 13), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gClearEventCount(rx, RFM2GEVENT_LAST), RFM2G_SUCCESS);
	assert_st(RFM2gClearEventCount(rx, (RFM2GEVENTTYPE) 13), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gClearEventStats(rx, (RFM2GEVENTTYPE) 13), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetEventStats(rx, NULL), RFM2G_BAD_PARAMETER_2);
	q.Event = RFM2GEVENT_LAST;
	assert_st(RFM2gGetEventStats(rx, &q), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gCancelWaitForEvent(rx, RFM2GEVENT_INTR2), RFM2G_EVENT_NOT_IN_USE);
	assert_st(RFM2gEnableEvent(NULL, RFM2GEVENT_INTR1), RFM2G_NULL_DESCRIPTOR);
	assert_st(RFM2gSendEvent(NULL, 2, RFM2GEVENT_INTR1, 0), RFM2G_NULL_DESCRIPTOR);
}

/* Counts go on past a full queue; statistics and clearing. */
static void t_counts_and_stats(void **state)
{
	RFM2GEVENTINFO info = wait_info(RFM2GEVENT_INTR1, RFM2G_NO_WAIT);
	const unsigned int sent = 1100;
	RFM2G_UINT32 count;
	RFM2GQINFO q;

	(void) state;
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	for (unsigned int i = 0; i < 4; i++)
		assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, i), RFM2G_SUCCESS);
	sync_marker();
	memset(&q, 0, sizeof(q));
	q.Event = RFM2GEVENT_INTR1;
	assert_st(RFM2gGetEventStats(rx, &q), RFM2G_SUCCESS);
	assert_int_equal(q.EventCount, 4);
	assert_int_equal(q.EventsQueued, 4);
	assert_int_equal(q.QueuePeak, 4);
	assert_int_equal(q.Overflowed, 0);
	assert_int_equal(q.QueueSize, RFM2G_COMPAT_QUEUE_DEPTH);
	/* FIFO order. */
	for (unsigned int i = 0; i < 2; i++) {
		assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
		assert_int_equal(info.ExtendedInfo, i);
	}
	assert_st(RFM2gClearEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_TIMED_OUT);
	assert_st(RFM2gGetEventCount(rx, RFM2GEVENT_INTR1, &count), RFM2G_SUCCESS);
	assert_int_equal(count, 4);	/* clearing the queue keeps the count */
	assert_st(RFM2gClearEventCount(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gGetEventCount(rx, RFM2GEVENT_INTR1, &count), RFM2G_SUCCESS);
	assert_int_equal(count, 0);

	/*
	 * Past the queue's depth: the oldest records stay, the flag says so.
	 * Sent in batches that librfm's own queue (also 1024 deep) holds, so
	 * that every record reaches the RFM2g queue and the count is exact.
	 */
	for (unsigned int i = 0; i < sent; i++) {
		assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, i), RFM2G_SUCCESS);
		if (i % 500 == 499)
			sync_marker();
	}
	sync_marker();
	assert_st(RFM2gGetEventStats(rx, &q), RFM2G_SUCCESS);
	assert_int_equal(q.EventsQueued, RFM2G_COMPAT_QUEUE_DEPTH);
	assert_int_equal(q.Overflowed, 8);
	assert_int_equal(q.EventCount, sent);	/* counted though not queued */
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.ExtendedInfo, 0);
	assert_st(RFM2gFlushEventQueue(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gGetEventStats(rx, &q), RFM2G_SUCCESS);
	assert_int_equal(q.EventsQueued, 0);
	assert_int_equal(q.Overflowed, 0);
	assert_st(RFM2gClearEventStats(rx, RFM2GEVENT_LAST), RFM2G_SUCCESS);
	assert_st(RFM2gGetEventStats(rx, &q), RFM2G_SUCCESS);
	assert_int_equal(q.EventCount, 0);
}

struct waiter {
	RFM2GHANDLE h;
	RFM2GEVENTINFO info;
	RFM2G_STATUS status;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->status = RFM2gWaitForEvent(w->h, &w->info);
	return NULL;
}

/* Block until the waiter thread is inside its wait: a second wait is refused. */
static void until_waiting(RFM2GHANDLE h, RFM2GEVENTTYPE type)
{
	RFM2GEVENTINFO probe = wait_info(type, RFM2G_NO_WAIT);

	while (RFM2gWaitForEvent(h, &probe) != RFM2G_EVENT_IN_USE)
		sched_yield();
}

static void t_wake_and_cancel(void **state)
{
	struct waiter w = { .h = rx };
	pthread_t thread;

	(void) state;
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR2), RFM2G_SUCCESS);
	/* A blocked waiter is woken by the event... */
	w.info = wait_info(RFM2GEVENT_INTR2, RFM2G_INFINITE_TIMEOUT);
	assert_int_equal(pthread_create(&thread, NULL, wait_thread, &w), 0);
	until_waiting(rx, RFM2GEVENT_INTR2);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR2, 0x77), RFM2G_SUCCESS);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_st(w.status, RFM2G_SUCCESS);
	assert_int_equal(w.info.ExtendedInfo, 0x77);
	assert_int_equal(w.info.NodeId, 1);

	/* ... or by a cancel, with a finite timeout too. */
	w.info = wait_info(RFM2GEVENT_INTR2, 3600 * 1000);
	assert_int_equal(pthread_create(&thread, NULL, wait_thread, &w), 0);
	until_waiting(rx, RFM2GEVENT_INTR2);
	assert_st(RFM2gCancelWaitForEvent(rx, RFM2GEVENT_INTR2), RFM2G_SUCCESS);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_st(w.status, RFM2G_WAIT_EVENT_CANCELED);
	assert_st(RFM2gCancelWaitForEvent(rx, RFM2GEVENT_INTR2), RFM2G_EVENT_NOT_IN_USE);

	/* Closing the handle wakes its waiters too (the vendor library does not). */
	w.info = wait_info(RFM2GEVENT_INTR2, RFM2G_INFINITE_TIMEOUT);
	assert_int_equal(pthread_create(&thread, NULL, wait_thread, &w), 0);
	until_waiting(rx, RFM2GEVENT_INTR2);
	assert_st(RFM2gClose(&rx), RFM2G_SUCCESS);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_st(w.status, RFM2G_WAIT_EVENT_CANCELED);
	rx = rfm2g_test_open(net, 2);
}

#define CB_MAX 16

static struct {
	sem_t calls;
	pthread_t thread[CB_MAX];
	RFM2GEVENTINFO info[CB_MAX];
	RFM2GHANDLE handle[CB_MAX];
	unsigned int n;
} cb;

static void on_event(RFM2GHANDLE h, RFM2GEVENTINFO *info)
{
	unsigned int i = __atomic_fetch_add(&cb.n, 1, __ATOMIC_SEQ_CST);

	if (i < CB_MAX) {
		cb.thread[i] = pthread_self();
		cb.info[i] = *info;
		cb.handle[i] = h;
	}
	sem_post(&cb.calls);
}

static void t_callbacks(void **state)
{
	RFM2GEVENTINFO info = wait_info(RFM2GEVENT_INTR3, RFM2G_NO_WAIT);

	(void) state;
	memset(&cb, 0, sizeof(cb));
	sem_init(&cb.calls, 0, 0);
	/* A callback on an event not enabled yet is accepted; it fires once enabled. */
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR3, on_event), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR3, on_event), RFM2G_EVENT_IN_USE);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_EVENT_IN_USE);
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR3), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR1, on_event), RFM2G_SUCCESS);
	for (unsigned int i = 0; i < 5; i++)
		assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR3, 100 + i), RFM2G_SUCCESS);
	for (unsigned int i = 0; i < 5; i++)
		assert_sem_posted(&cb.calls, "the callback");
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 200), RFM2G_SUCCESS);
	assert_sem_posted(&cb.calls, "the callback");
	assert_int_equal(cb.n, 6);
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(cb.info[i].Event, RFM2GEVENT_INTR3);
		assert_int_equal(cb.info[i].ExtendedInfo, 100 + i);
		assert_int_equal(cb.info[i].NodeId, 1);
		assert_ptr_equal(cb.handle[i], rx);
		/* librfm's dispatcher thread, not the caller's. */
		assert_true(pthread_equal(cb.thread[i], cb.thread[0]));
		assert_false(pthread_equal(cb.thread[i], pthread_self()));
	}
	assert_int_equal(cb.info[5].Event, RFM2GEVENT_INTR1);
	assert_int_equal(cb.info[5].ExtendedInfo, 200);
	/* Every type's callbacks share that one thread (they had one each). */
	assert_true(pthread_equal(cb.thread[5], cb.thread[0]));

	/* Disabled: no more calls once it returns; a wait may take the records. */
	assert_st(RFM2gDisableEventCallback(rx, RFM2GEVENT_INTR3), RFM2G_SUCCESS);
	assert_st(RFM2gDisableEventCallback(rx, RFM2GEVENT_INTR3), RFM2G_NOT_ENABLED);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR3, 300), RFM2G_SUCCESS);
	info = wait_info(RFM2GEVENT_INTR3, RFM2G_INFINITE_TIMEOUT);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.ExtendedInfo, 300);
	assert_int_equal(cb.n, 6);
	/* A cancel ends a callback too. */
	assert_st(RFM2gCancelWaitForEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gDisableEventCallback(rx, RFM2GEVENT_INTR1), RFM2G_NOT_ENABLED);
	/* The close in the teardown stops any callback left. */
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR2, on_event), RFM2G_SUCCESS);
	sem_destroy(&cb.calls);
}

static void t_one_event_path(void **state)
{
	RFM2GEVENTINFO info = wait_info(RFM2GEVENT_INTR1, RFM2G_INFINITE_TIMEOUT);
	int before = harness_thread_count();

	assert_true(before > 0);
	(void) state;
	memset(&cb, 0, sizeof(cb));
	sem_init(&cb.calls, 0, 0);
	/* A wait takes from librfm's queue itself: no thread is started. */
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR2), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR2, 21), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 11), RFM2G_SUCCESS);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.ExtendedInfo, 11);
	/* The INTR1 wait sorted the INTR2 record into its queue on the way. */
	info = wait_info(RFM2GEVENT_INTR2, RFM2G_NO_WAIT);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.ExtendedInfo, 21);
	assert_int_equal(harness_thread_count(), before);

	/* Two records queued before their callback is installed (sorted by a wait)... */
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR3), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR3, 31), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR3, 32), RFM2G_SUCCESS);
	sync_marker();
	/* ... reach it at once, with Timeout 0, on the one dispatcher thread. */
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR3, on_event), RFM2G_SUCCESS);
	for (unsigned int i = 0; i < 2; i++)
		assert_sem_posted(&cb.calls, "the callback");
	assert_int_equal(harness_thread_count(), before + 1);
	/* A second type's callback: the same thread, none more. */
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR1, on_event), RFM2G_SUCCESS);
	assert_int_equal(harness_thread_count(), before + 1);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 12), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR3, 33), RFM2G_SUCCESS);
	for (unsigned int i = 0; i < 2; i++)
		assert_sem_posted(&cb.calls, "the callback");
	assert_int_equal(cb.n, 4);
	assert_int_equal(cb.info[0].ExtendedInfo, 31);
	assert_int_equal(cb.info[0].Timeout, 0);
	assert_int_equal(cb.info[1].ExtendedInfo, 32);
	assert_int_equal(cb.info[1].Timeout, 0);
	assert_int_equal(cb.info[2].ExtendedInfo, 12);
	assert_int_equal(cb.info[2].Timeout, RFM2G_INFINITE_TIMEOUT);
	assert_int_equal(cb.info[3].ExtendedInfo, 33);
	for (unsigned int i = 1; i < 4; i++)
		assert_true(pthread_equal(cb.thread[i], cb.thread[0]));
	assert_false(pthread_equal(cb.thread[0], pthread_self()));
	/* Waits for other types now take what the dispatcher queues. */
	info = wait_info(RFM2GEVENT_INTR2, RFM2G_INFINITE_TIMEOUT);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR2, 22), RFM2G_SUCCESS);
	assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
	assert_int_equal(info.ExtendedInfo, 22);
	assert_int_equal(harness_thread_count(), before + 1);
	assert_int_equal(cb.n, 4);
	assert_st(RFM2gDisableEventCallback(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gDisableEventCallback(rx, RFM2GEVENT_INTR3), RFM2G_SUCCESS);
	sem_destroy(&cb.calls);
}

/*
 * A handle closed while the program still maps its memory keeps its node
 * (the mapping must stay valid): the dispatcher must stop calling into the
 * freed handle, and the records sent afterwards go nowhere.
 */
static void t_close_mapped_with_callback(void **state)
{
	RFM2GHANDLE h = rfm2g_test_open(net, 8);
	volatile void *p = NULL;

	(void) state;
	memset(&cb, 0, sizeof(cb));
	sem_init(&cb.calls, 0, 0);
	assert_st(RFM2gEnableEvent(h, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEventCallback(h, RFM2GEVENT_INTR1, on_event), RFM2G_SUCCESS);
	assert_st(RFM2gUserMemory(h, &p, 0, 1), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 8, RFM2GEVENT_INTR1, 81), RFM2G_SUCCESS);
	assert_sem_posted(&cb.calls, "the callback");
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
	for (RFM2G_UINT32 i = 0; i < 100; i++)
		assert_st(RFM2gSendEvent(tx, 8, RFM2GEVENT_INTR1, i), RFM2G_SUCCESS);
	/* The mapping still works, and tx's write reaches it. */
	assert_st(RFM2gPoke32(tx, 0x40, 0xC0FFEE), RFM2G_SUCCESS);
	assert_int_equal(((volatile RFM2G_UINT32 *) p)[0x10], 0xC0FFEE);
	assert_int_equal(cb.n, 1);
	assert_int_equal(cb.info[0].ExtendedInfo, 81);
	sem_destroy(&cb.calls);
}

/* Error events: none happen on shm:, so they are injected here. */
static void inject(RFM2GHANDLE h, RFM2GEVENTTYPE type)
{
	struct rfm2g_compat *c = (struct rfm2g_compat *) h;

	pthread_mutex_lock(&c->lock);
	rfm2g__deliver_locked(c, type, 0, 0);
	pthread_mutex_unlock(&c->lock);
}

static void t_error_events(void **state)
{
	RFM2GEVENTINFO info;
	RFM2G_UINT32 count;

	(void) state;
	for (int t = RFM2GEVENT_BAD_DATA; t <= RFM2GEVENT_LOCAL_MEM_PARITY_ERR; t++) {
		RFM2GEVENTTYPE type = (RFM2GEVENTTYPE) t;
		int self_disabling = type == RFM2GEVENT_BAD_DATA || type == RFM2GEVENT_SYNC_LOSS;

		info = wait_info(type, RFM2G_NO_WAIT);
		assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_NOT_ENABLED);
		assert_st(RFM2gEnableEvent(rx, type), RFM2G_SUCCESS);
		assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_TIMED_OUT);
		inject(rx, type);
		assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
		assert_int_equal(info.NodeId, 0);
		assert_int_equal(info.ExtendedInfo, 0);
		inject(rx, type);
		assert_st(RFM2gGetEventCount(rx, type, &count), RFM2G_SUCCESS);
		assert_int_equal(count, self_disabling ? 1 : 2);
		assert_st(RFM2gWaitForEvent(rx, &info),
			  self_disabling ? RFM2G_NOT_ENABLED : RFM2G_SUCCESS);
		/* Enabling again re-arms it. */
		assert_st(RFM2gEnableEvent(rx, type), RFM2G_SUCCESS);
		inject(rx, type);
		assert_st(RFM2gWaitForEvent(rx, &info), RFM2G_SUCCESS);
		assert_st(RFM2gDisableEvent(rx, type), RFM2G_SUCCESS);
	}
	/* The deprecated alias. */
	assert_int_equal(RFM2GEVENT_FIFO_AF, RFM2GEVENT_RXFIFO_AFULL);
}

static void on_event_close(RFM2GHANDLE h, RFM2GEVENTINFO *info)
{
	(void) info;
	/* Closing the handle from its own callback is allowed. */
	if (RFM2gClose(&h) == RFM2G_SUCCESS && h == NULL)
		sem_post(&cb.calls);
}

/* A wait inside a callback of the same handle, for INTR2. */
static RFM2G_STATUS nested_wait_st, nested_queued_st;

static void on_event_wait(RFM2GHANDLE h, RFM2GEVENTINFO *info)
{
	/* Not forever: before the fix this wait slept out its whole timeout. */
	RFM2GEVENTINFO w = wait_info(RFM2GEVENT_INTR2, 2000);

	(void) info;
	nested_wait_st = RFM2gWaitForEvent(h, &w);
	/* A record of INTR2 queued before this callback is served at once. */
	w = wait_info(RFM2GEVENT_INTR3, RFM2G_INFINITE_TIMEOUT);
	nested_queued_st = RFM2gWaitForEvent(h, &w);
	sem_post(&cb.calls);
}

/*
 * The handle's callbacks share librfm's dispatcher thread: a wait in one
 * for a record not yet queued answers at once instead of waiting for
 * itself forever; one already queued is taken.
 */
static void t_wait_inside_callback(void **state)
{
	(void) state;
	sem_init(&cb.calls, 0, 0);
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR2), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(rx, RFM2GEVENT_INTR3), RFM2G_SUCCESS);
	/* INTR3 first, then the INTR1 whose callback waits: in order. */
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR3, 3), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 2, RFM2GEVENT_INTR1, 1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEventCallback(rx, RFM2GEVENT_INTR1, on_event_wait), RFM2G_SUCCESS);
	assert_sem_posted(&cb.calls, "the callback");
	assert_st(nested_wait_st, RFM2G_EVENT_IN_USE);
	assert_st(nested_queued_st, RFM2G_SUCCESS);
	sem_destroy(&cb.calls);
}

static void t_close_from_callback(void **state)
{
	RFM2GHANDLE h = rfm2g_test_open(net, 9);

	(void) state;
	sem_init(&cb.calls, 0, 0);
	assert_st(RFM2gEnableEvent(h, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEventCallback(h, RFM2GEVENT_INTR1, on_event_close), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(tx, 9, RFM2GEVENT_INTR1, 1), RFM2G_SUCCESS);
	assert_sem_posted(&cb.calls, "the callback");
	sem_destroy(&cb.calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_enable_before_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(t_send_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(t_bad_event_input, setup, teardown),
		cmocka_unit_test_setup_teardown(t_counts_and_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(t_wake_and_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(t_callbacks, setup, teardown),
		/* Before a close from a callback, whose thread ends on its own. */
		cmocka_unit_test_setup_teardown(t_one_event_path, setup, teardown),
		cmocka_unit_test_setup_teardown(t_close_mapped_with_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(t_error_events, setup, teardown),
		cmocka_unit_test_setup_teardown(t_close_from_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(t_wait_inside_callback, setup, teardown),
	};

	harness_init();
	harness_require(HARNESS_CAP_ANY_NODE_ID, "opens boards of chosen node ids");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
