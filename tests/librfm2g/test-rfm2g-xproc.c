/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The vendor's sample flows, as two processes on one emulated network,
 * both opening the device path "/dev/rfm2g0" with $RFM_URI naming the
 * network (the documented way to run an RFM2g program on shm:):
 *
 *  - sender/receiver: the sender writes 256 words at 0x1000 and sends
 *    INTR1 to the receiver; the receiver waits for INTR1, copies the
 *    block to 0x2000 and answers INTR2 to the node the interrupt came
 *    from; the sender waits for INTR2 and checks the copy. Many rounds.
 *  - the same with the receiver answering from a callback.
 *  - mapped memory: a child maps one page with RFM2gUserMemory and
 *    writes through the pointer; the parent reads with RFM2gRead.
 *
 * Readiness travels over the harness pipes; nothing sleeps.
 */
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "rfm2g-test.h"

#define ROUNDS 200
#define WORDS 256
#define SEND_OFF 0x1000
#define ECHO_OFF 0x2000

/* The shared fixture's network (harness_fixture_network), for the tests. */
static struct harness_network *net;

static int setup(void **state)
{
	if (harness_fixture_network(state, 1u << 20))
		return -1;
	net = *state;
	setenv("RFM_URI", harness_network_uri(net, "size=1M"), 1);
	return 0;
}

static int teardown(void **state)
{
	unsetenv("RFM_URI");
	return harness_fixture_teardown(state);
}

/* The receiver sample: its node id to the parent once INTR1 is enabled. */
static int receiver(struct harness_link *link, void *arg)
{
	RFM2G_UINT32 block[WORDS];
	RFM2GEVENTINFO info;
	RFM2GHANDLE h = NULL;
	RFM2G_NODE me;

	(void) arg;
	HARNESS_CHECK(RFM2gOpen((char *) "/dev/rfm2g0", &h) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gNodeID(h, &me) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gEnableEvent(h, RFM2GEVENT_INTR1) == RFM2G_SUCCESS);
	harness_link_send(link, &me, sizeof(me));
	for (int round = 0; round < ROUNDS; round++) {
		memset(&info, 0, sizeof(info));
		info.Event = RFM2GEVENT_INTR1;
		info.Timeout = 60000;
		HARNESS_CHECK(RFM2gWaitForEvent(h, &info) == RFM2G_SUCCESS);
		HARNESS_CHECK(info.ExtendedInfo == (RFM2G_UINT32) round);
		HARNESS_CHECK(RFM2gRead(h, SEND_OFF, block, sizeof(block)) == RFM2G_SUCCESS);
		HARNESS_CHECK(RFM2gWrite(h, ECHO_OFF, block, sizeof(block)) == RFM2G_SUCCESS);
		HARNESS_CHECK(RFM2gSendEvent(h, info.NodeId, RFM2GEVENT_INTR2, 0) ==
			      RFM2G_SUCCESS);
	}
	HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	return 0;
}

/* The same receiver, answering from an INTR1 callback. */
static sem_t callback_done;
static int callback_rounds;
static int callback_failures;

static void on_intr1(RFM2GHANDLE h, RFM2GEVENTINFO *info)
{
	RFM2G_UINT32 block[WORDS];

	if (info->Event != RFM2GEVENT_INTR1 ||
	    info->ExtendedInfo != (RFM2G_UINT32) callback_rounds ||
	    RFM2gRead(h, SEND_OFF, block, sizeof(block)) != RFM2G_SUCCESS ||
	    RFM2gWrite(h, ECHO_OFF, block, sizeof(block)) != RFM2G_SUCCESS ||
	    RFM2gSendEvent(h, info->NodeId, RFM2GEVENT_INTR2, 0) != RFM2G_SUCCESS)
		callback_failures++;
	if (++callback_rounds == ROUNDS)
		sem_post(&callback_done);
}

static int callback_receiver(struct harness_link *link, void *arg)
{
	RFM2GHANDLE h = NULL;
	RFM2G_NODE me;

	(void) arg;
	sem_init(&callback_done, 0, 0);
	HARNESS_CHECK(RFM2gOpen((char *) "/dev/rfm2g0", &h) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gNodeID(h, &me) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gEnableEvent(h, RFM2GEVENT_INTR1) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gEnableEventCallback(h, RFM2GEVENT_INTR1, on_intr1) == RFM2G_SUCCESS);
	harness_link_send(link, &me, sizeof(me));
	HARNESS_CHECK(sem_wait(&callback_done) == 0);
	HARNESS_CHECK(RFM2gDisableEventCallback(h, RFM2GEVENT_INTR1) == RFM2G_SUCCESS);
	HARNESS_CHECK(callback_failures == 0);
	HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	return 0;
}

/* The sender sample, in the test process. */
static void run_sender(harness_child_fn peer)
{
	struct harness_child child;
	RFM2G_UINT32 out[WORDS], back[WORDS];
	RFM2GEVENTINFO info;
	RFM2GHANDLE h = NULL;
	RFM2G_NODE other, me;

	harness_child_start(&child, peer, NULL);
	assert_int_equal(harness_child_recv(&child, &other, sizeof(other)), 0);
	assert_st(RFM2gOpen((char *) "/dev/rfm2g0", &h), RFM2G_SUCCESS);
	assert_st(RFM2gNodeID(h, &me), RFM2G_SUCCESS);
	assert_int_not_equal(me, other);
	assert_st(RFM2gEnableEvent(h, RFM2GEVENT_INTR2), RFM2G_SUCCESS);
	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < WORDS; i++)
			out[i] = 0xa5a50000u + (RFM2G_UINT32) (i + round);
		assert_st(RFM2gWrite(h, SEND_OFF, out, sizeof(out)), RFM2G_SUCCESS);
		assert_st(RFM2gSendEvent(h, other, RFM2GEVENT_INTR1, (RFM2G_UINT32) round),
			  RFM2G_SUCCESS);
		memset(&info, 0, sizeof(info));
		info.Event = RFM2GEVENT_INTR2;
		info.Timeout = 60000;
		assert_st(RFM2gWaitForEvent(h, &info), RFM2G_SUCCESS);
		assert_int_equal(info.NodeId, other);
		/* The interrupt followed the receiver's data. */
		assert_st(RFM2gRead(h, ECHO_OFF, back, sizeof(back)), RFM2G_SUCCESS);
		assert_memory_equal(back, out, sizeof(out));
	}
	{
		RFM2G_UINT32 count;

		assert_st(RFM2gGetEventCount(h, RFM2GEVENT_INTR2, &count), RFM2G_SUCCESS);
		assert_int_equal(count, ROUNDS);
	}
	assert_int_equal(harness_child_wait(&child), 0);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

static void t_sender_receiver(void **state)
{
	(void) state;
	run_sender(receiver);
}

static void t_sender_callback_receiver(void **state)
{
	(void) state;
	run_sender(callback_receiver);
}

/* The map sample: write four words through a mapped page. */
static int mapper(struct harness_link *link, void *arg)
{
	volatile void *p = NULL;
	volatile RFM2G_UINT32 *w;
	RFM2GHANDLE h = NULL;

	(void) arg;
	HARNESS_CHECK(RFM2gOpen((char *) "/dev/rfm2g0", &h) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gUserMemory(h, &p, 0x4000, 1) == RFM2G_SUCCESS);
	w = (volatile RFM2G_UINT32 *) p;
	for (int i = 0; i < 4; i++)
		w[i] = 0xC0DE0000u + (RFM2G_UINT32) i;
	harness_link_ready(link);
	harness_link_wait_go(link);
	/* The parent's answer, seen through the mapping. */
	HARNESS_CHECK(w[4] == 0xACCE55u);
	HARNESS_CHECK(RFM2gUnMapUserMemory(h, &p, 1) == RFM2G_SUCCESS);
	HARNESS_CHECK(p == NULL);
	HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	return 0;
}

static void t_mapped_memory(void **state)
{
	struct harness_child child;
	RFM2G_UINT32 back[4];
	RFM2GHANDLE h = NULL;

	(void) state;
	harness_child_start(&child, mapper, NULL);
	assert_int_equal(harness_child_wait_ready(&child), 0);
	assert_st(RFM2gOpen((char *) "/dev/rfm2g0", &h), RFM2G_SUCCESS);
	assert_st(RFM2gRead(h, 0x4000, back, sizeof(back)), RFM2G_SUCCESS);
	for (int i = 0; i < 4; i++)
		assert_int_equal(back[i], 0xC0DE0000u + (RFM2G_UINT32) i);
	assert_st(RFM2gPoke32(h, 0x4010, 0xACCE55u), RFM2G_SUCCESS);
	harness_child_go(&child);
	assert_int_equal(harness_child_wait(&child), 0);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

static void on_nothing(RFM2GHANDLE h, RFM2GEVENTINFO *info)
{
	(void) h;
	(void) info;
}

/* A handle with a callback, inherited through fork(): the child can close it. */
static RFM2GHANDLE inherited;

static int fork_child(struct harness_link *link, void *arg)
{
	RFM2G_UINT32 size = 0;

	(void) link;
	(void) arg;
	HARNESS_CHECK(RFM2gSize(inherited, &size) == RFM2G_SUCCESS);
	HARNESS_CHECK(size == 1u << 20);
	HARNESS_CHECK(RFM2gClose(&inherited) == RFM2G_SUCCESS);
	return 0;
}

static void t_fork_inherits_handle(void **state)
{
	struct harness_child child;

	(void) state;
	assert_st(RFM2gOpen((char *) "/dev/rfm2g0", &inherited), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(inherited, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEventCallback(inherited, RFM2GEVENT_INTR1, on_nothing),
		  RFM2G_SUCCESS);
	harness_child_start(&child, fork_child, NULL);
	assert_int_equal(harness_child_wait(&child), 0);
	/* The parent's handle and callback are untouched. */
	assert_st(RFM2gEnableEventCallback(inherited, RFM2GEVENT_INTR1, on_nothing),
		  RFM2G_EVENT_IN_USE);
	assert_st(RFM2gClose(&inherited), RFM2G_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_sender_receiver, setup, teardown),
		cmocka_unit_test_setup_teardown(t_sender_callback_receiver, setup, teardown),
		cmocka_unit_test_setup_teardown(t_mapped_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(t_fork_inherits_handle, setup, teardown),
	};

	harness_init();
	/* RFM_URI names the network with its size; a child writes through a
	 * mapping what the parent reads at once. */
	harness_require(HARNESS_CAP_FORK | HARNESS_CAP_WINDOW_SIZE | HARNESS_CAP_ONE_MEMORY,
			"runs the vendor's samples as processes on one memory");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
