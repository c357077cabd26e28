/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g programs as sites write them, from the RFM2g API documentation
 * (not from any vendor source), on any librfm network: shm: in `make
 * check`, dev: (rfm.ko's virtual cards) in `make vm-check`.
 *
 *  - a multithreaded sender: four threads of one process share a handle,
 *    each writes its block and sends INTR1 to a receiver process;
 *  - two receiver processes on one node: both open /dev/rfm2g0 with the
 *    same RFM_URI, get the same node id, and both see every interrupt;
 *  - a DMA-buffer user: maps its DMA buffer with RFM2G_DMA_MMAP_OFFSET at
 *    start-up, as data-acquisition sources do, and moves data between it
 *    and the reflective memory with RFM2gRead/RFM2gWrite above and below
 *    the DMA threshold;
 *  - a register reader: RFM2gGetConfig, the sliding window, and the
 *    control and PLX register sets through RFM2gMapDeviceMemory, whose
 *    interrupt registers follow the node's events;
 *  - the diagnostic utility's start: count the boards in /proc/rfm2g
 *    (dev: only; rfm.ko writes it) and open /dev/rfm2g0..n-1.
 *
 * The harness only picks the networks' URIs; readiness travels over its
 * pipes. Nothing sleeps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfm2g-test.h"

/* The shared fixture's network (harness_fixture_network), for the tests. */
static struct harness_network *net;
static char rx_uri[HARNESS_URI_MAX], tx_uri[HARNESS_URI_MAX];

static int setup(void **state)
{
	if (harness_fixture_network(state, 1u << 20))
		return -1;
	net = *state;
	/* Two boards: two URIs (on dev:, two cards). */
	snprintf(rx_uri, sizeof(rx_uri), "%s", harness_node_uri(net, 1));
	snprintf(tx_uri, sizeof(tx_uri), "%s", harness_node_uri(net, 2));
	unsetenv("RFM_URI");
	return 0;
}

static int teardown(void **state)
{
	unsetenv("RFM_URI");
	return harness_fixture_teardown(state);
}

static RFM2GEVENTINFO wait_for(RFM2GEVENTTYPE type)
{
	RFM2GEVENTINFO info;

	memset(&info, 0, sizeof(info));
	info.Event = type;
	info.Timeout = 60000;	/* a hang guard, not a timing check */
	return info;
}

/* ---- the multithreaded sender ---- */

#define SEND_THREADS 4
#define SENDS 100
#define BLOCK 64		/* words per thread */
#define BLOCK_OFF 0x10000

static int counting_receiver(struct harness_link *link, void *arg)
{
	int next[SEND_THREADS] = { 0 };
	RFM2G_UINT32 block[BLOCK];
	RFM2GEVENTINFO info;
	RFM2GHANDLE h = NULL;
	RFM2G_NODE me;

	(void) arg;
	HARNESS_CHECK(RFM2gOpen(rx_uri, &h) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gNodeID(h, &me) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gEnableEvent(h, RFM2GEVENT_INTR1) == RFM2G_SUCCESS);
	harness_link_send(link, &me, sizeof(me));
	for (int n = 0; n < SEND_THREADS * SENDS; n++) {
		unsigned int t, seq;

		info = wait_for(RFM2GEVENT_INTR1);
		HARNESS_CHECK(RFM2gWaitForEvent(h, &info) == RFM2G_SUCCESS);
		t = info.ExtendedInfo >> 16;
		seq = info.ExtendedInfo & 0xFFFFu;
		HARNESS_CHECK(t < SEND_THREADS);
		HARNESS_CHECK(seq == (unsigned int) next[t]);	/* each thread's in order */
		next[t]++;
		/* The thread's block was written before its interrupt. */
		HARNESS_CHECK(RFM2gRead(h, BLOCK_OFF + t * sizeof(block), block, sizeof(block)) ==
			      RFM2G_SUCCESS);
		HARNESS_CHECK(block[0] >= (t << 16 | seq));
	}
	HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	return 0;
}

struct send_job {
	RFM2GHANDLE h;
	RFM2G_NODE to;
	unsigned int thread;
	RFM2G_STATUS st;
};

static void *send_thread(void *arg)
{
	struct send_job *j = arg;
	RFM2G_UINT32 block[BLOCK];

	for (unsigned int seq = 0; seq < SENDS && j->st == RFM2G_SUCCESS; seq++) {
		for (int i = 0; i < BLOCK; i++)
			block[i] = j->thread << 16 | seq;
		j->st = RFM2gWrite(j->h, BLOCK_OFF + j->thread * sizeof(block), block,
				   sizeof(block));
		if (j->st == RFM2G_SUCCESS)
			j->st = RFM2gSendEvent(j->h, j->to, RFM2GEVENT_INTR1, j->thread << 16 | seq);
	}
	return NULL;
}

static void t_multithreaded_sender(void **state)
{
	struct send_job job[SEND_THREADS];
	pthread_t t[SEND_THREADS];
	struct harness_child rx;
	RFM2GHANDLE h = NULL;
	RFM2G_NODE to;

	(void) state;
	harness_child_start(&rx, counting_receiver, NULL);
	assert_int_equal(harness_child_recv(&rx, &to, sizeof(to)), 0);
	assert_st(RFM2gOpen(tx_uri, &h), RFM2G_SUCCESS);
	for (unsigned int i = 0; i < SEND_THREADS; i++) {
		job[i] = (struct send_job){ .h = h, .to = to, .thread = i, .st = RFM2G_SUCCESS };
		assert_int_equal(pthread_create(&t[i], NULL, send_thread, &job[i]), 0);
	}
	for (unsigned int i = 0; i < SEND_THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_st(job[i].st, RFM2G_SUCCESS);
	}
	assert_int_equal(harness_child_wait(&rx), 0);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

/* ---- two receiver processes on one node ---- */

#define SHARED_EVENTS 100

static int shared_receiver(struct harness_link *link, void *arg)
{
	RFM2GEVENTINFO info;
	RFM2GHANDLE h = NULL;
	RFM2G_NODE me;

	(void) arg;
	/* The program's own device path; RFM_URI says which board it is. */
	HARNESS_CHECK(RFM2gOpen((char *) "/dev/rfm2g0", &h) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gNodeID(h, &me) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gEnableEvent(h, RFM2GEVENT_INTR2) == RFM2G_SUCCESS);
	harness_link_send(link, &me, sizeof(me));
	for (RFM2G_UINT32 i = 0; i < SHARED_EVENTS; i++) {
		info = wait_for(RFM2GEVENT_INTR2);
		HARNESS_CHECK(RFM2gWaitForEvent(h, &info) == RFM2G_SUCCESS);
		HARNESS_CHECK(info.ExtendedInfo == i);
	}
	HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	return 0;
}

static void t_two_receivers_one_node(void **state)
{
	struct harness_child rx[2];
	RFM2GHANDLE h = NULL;
	RFM2G_NODE id[2], me;

	(void) state;
	assert_st(RFM2gOpen(tx_uri, &h), RFM2G_SUCCESS);
	assert_st(RFM2gNodeID(h, &me), RFM2G_SUCCESS);
	setenv("RFM_URI", rx_uri, 1);
	for (int i = 0; i < 2; i++) {
		harness_child_start(&rx[i], shared_receiver, NULL);
		assert_int_equal(harness_child_recv(&rx[i], &id[i], sizeof(id[i])), 0);
	}
	assert_int_equal(id[0], id[1]);	/* one board, one node id */
	assert_int_not_equal(id[0], me);
	for (RFM2G_UINT32 i = 0; i < SHARED_EVENTS; i++)
		assert_st(RFM2gSendEvent(h, id[0], RFM2GEVENT_INTR2, i), RFM2G_SUCCESS);
	for (int i = 0; i < 2; i++)
		assert_int_equal(harness_child_wait(&rx[i]), 0);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

/* ---- the DMA-buffer user ---- */

#define DMA_PHYS 0x7F000000ull	/* what a site reserved with memmap= */
#define DMA_PAGES 16
#define DMA_BYTES (DMA_PAGES * 4096u)

static void t_dma_buffer_user(void **state)
{
	volatile void *dma = NULL;
	RFM2G_UINT8 *buf, *back;
	RFM2G_UINT32 threshold = 0;
	RFM2GHANDLE h = NULL, peer = NULL;

	(void) state;
	assert_st(RFM2gOpen(rx_uri, &h), RFM2G_SUCCESS);
	assert_st(RFM2gOpen(tx_uri, &peer), RFM2G_SUCCESS);
	assert_st(RFM2gSetDMAThreshold(h, 4096), RFM2G_SUCCESS);
	assert_st(RFM2gGetDMAThreshold(h, &threshold), RFM2G_SUCCESS);
	assert_int_equal(threshold, 4096);
	assert_st(RFM2gUserMemoryBytes(h, &dma, DMA_PHYS | RFM2G_DMA_MMAP_OFFSET, DMA_BYTES),
		  RFM2G_SUCCESS);
	assert_non_null(dma);
	buf = (RFM2G_UINT8 *) (uintptr_t) dma;
	back = buf + DMA_BYTES / 2;
	/* Out of the buffer onto the network, above the threshold... */
	for (unsigned int i = 0; i < DMA_BYTES / 2; i++)
		buf[i] = (RFM2G_UINT8) (i * 7u + 1u);
	assert_st(RFM2gWrite(h, 0x20000, buf, DMA_BYTES / 2), RFM2G_SUCCESS);
	/* ...seen by another board... */
	{
		RFM2G_UINT8 *copy = malloc(DMA_BYTES / 2);

		assert_non_null(copy);
		assert_st(RFM2gRead(peer, 0x20000, copy, DMA_BYTES / 2), RFM2G_SUCCESS);
		assert_memory_equal(copy, buf, DMA_BYTES / 2);
		free(copy);
	}
	/* ...and back into the buffer, above and below the threshold. */
	memset(back, 0, DMA_BYTES / 2);
	assert_st(RFM2gRead(h, 0x20000, back, DMA_BYTES / 2), RFM2G_SUCCESS);
	assert_memory_equal(back, buf, DMA_BYTES / 2);
	memset(back, 0, 64);
	assert_st(RFM2gRead(h, 0x20000 + 3, back, 64), RFM2G_SUCCESS);
	assert_memory_equal(back, buf + 3, 64);
	/* A misaligned physical address is refused, as mmap() would. */
	{
		volatile void *bad = NULL;

		assert_st(RFM2gUserMemory(h, &bad, (DMA_PHYS + 8) | RFM2G_DMA_MMAP_OFFSET, 1),
			  RFM2G_MEM_NOT_MAPPED);
		assert_null(bad);
	}
	assert_st(RFM2gUnMapUserMemoryBytes(h, &dma, DMA_BYTES), RFM2G_SUCCESS);
	assert_null(dma);
	assert_st(RFM2gClose(&peer), RFM2G_SUCCESS);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

/* ---- the register reader ---- */

static RFM2G_UINT32 reg32(volatile void *regs, unsigned int off)
{
	return *(volatile RFM2G_UINT32 *) ((volatile RFM2G_UINT8 *) regs + off);
}

static void t_register_reader(void **state)
{
	volatile void *cs = NULL, *or = NULL;
	RFM2G_UINT32 off = 1, size = 0;
	RFM2GEVENTINFO info;
	RFM2GHANDLE h = NULL, peer = NULL;
	RFM2G_NODE from;
	RFM2GCONFIG c;

	(void) state;
	assert_st(RFM2gOpen(rx_uri, &h), RFM2G_SUCCESS);
	assert_st(RFM2gOpen(tx_uri, &peer), RFM2G_SUCCESS);
	assert_st(RFM2gNodeID(peer, &from), RFM2G_SUCCESS);
	assert_st(RFM2gGetConfig(h, &c), RFM2G_SUCCESS);
	/* What a register display checks before it starts. */
	assert_true(c.PciConfig.rfm2gCsRegSize >= 0x40);
	assert_true(c.PciConfig.rfm2gOrRegSize >= 0x100);
	assert_true(c.BoardRevision >= 0x8C);
	assert_st(RFM2gGetSlidingWindow(h, &off, &size), RFM2G_SUCCESS);
	assert_int_equal(off, 0);
	assert_int_equal(size, c.MemorySize);

	assert_st(RFM2gMapDeviceMemory(h, RFM2GCTRLREGMEM, &cs), RFM2G_SUCCESS);
	assert_st(RFM2gMapDeviceMemory(h, RFM2GCFGREGMEM, &or), RFM2G_SUCCESS);
	assert_int_equal(((volatile RFM2G_UINT8 *) cs)[rfm2g_bid], RFM2G_BID_5565);
	assert_int_equal(((volatile RFM2G_UINT8 *) cs)[rfm2g_brv], c.BoardRevision);
	assert_int_equal(((volatile RFM2G_UINT8 *) cs)[rfm2g_nid], c.NodeId);
	assert_int_equal(reg32(cs, rfm2g_lcsr), c.Lcsr1);
	assert_int_equal(reg32(or, rfmor_las1rr), ~(c.MemorySize - 1u));
	assert_int_equal(((volatile RFM2G_UINT8 *) or)[rfmor_revision], c.PlxRevision);

	/* The LCSR follows the board controls. */
	assert_st(RFM2gSetLed(h, RFM2G_ON), RFM2G_SUCCESS);
	assert_true(reg32(cs, rfm2g_lcsr) & RFM2G_LCSR_LED);
	assert_st(RFM2gSetLed(h, RFM2G_OFF), RFM2G_SUCCESS);
	assert_false(reg32(cs, rfm2g_lcsr) & RFM2G_LCSR_LED);

	/* LIER: enabled interrupts; LISR, SID1, ISD1: one queued INTR1 and its sender. */
	assert_int_equal(reg32(cs, rfm2g_lier) & RFM2G_LIER_INT1, 0);
	assert_st(RFM2gEnableEvent(h, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_st(RFM2gEnableEvent(h, RFM2GEVENT_INTR2), RFM2G_SUCCESS);
	assert_true(reg32(cs, rfm2g_lier) & RFM2G_LIER_INT1);
	assert_int_equal(reg32(cs, rfm2g_lisr) & RFM2G_LISR_INT1, 0);
	assert_st(RFM2gSendEvent(peer, c.NodeId, RFM2GEVENT_INTR1, 0xD00D), RFM2G_SUCCESS);
	assert_st(RFM2gSendEvent(peer, c.NodeId, RFM2GEVENT_INTR2, 2), RFM2G_SUCCESS);
	info = wait_for(RFM2GEVENT_INTR2);	/* INTR1 came first: it is queued now */
	assert_st(RFM2gWaitForEvent(h, &info), RFM2G_SUCCESS);
	assert_true(reg32(cs, rfm2g_lisr) & RFM2G_LISR_INT1);
	assert_int_equal(reg32(cs, rfm2g_isd1), 0xD00D);
	assert_int_equal(reg32(cs, rfm2g_sid1), from);
	info = wait_for(RFM2GEVENT_INTR1);
	assert_st(RFM2gWaitForEvent(h, &info), RFM2G_SUCCESS);
	assert_int_equal(reg32(cs, rfm2g_lisr) & RFM2G_LISR_INT1, 0);
	assert_st(RFM2gDisableEvent(h, RFM2GEVENT_INTR1), RFM2G_SUCCESS);
	assert_int_equal(reg32(cs, rfm2g_lier) & RFM2G_LIER_INT1, 0);

	assert_st(RFM2gUnMapDeviceMemory(h, RFM2GCTRLREGMEM, &cs), RFM2G_SUCCESS);
	assert_null(cs);
	assert_st(RFM2gUnMapDeviceMemory(h, RFM2GCFGREGMEM, &or), RFM2G_SUCCESS);
	assert_null(or);
	assert_st(RFM2gClose(&peer), RFM2G_SUCCESS);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

/* ---- the diagnostic utility's start: /proc/rfm2g ---- */

static void t_proc_rfm2g(void **state)
{
	char line[256], key[64];
	unsigned int count = 0, boards = 0, fields = 0;
	FILE *f;

	(void) state;
	f = fopen("/proc/rfm2g", "r");
	/* rfm.ko writes it for its cards (the lab has no vendor driver). */
	if (harness_dev_cards())
		assert_non_null(f);
	if (!f) {
		/* shm: has no kernel driver to write it (docs/rfm2g-migration.md). */
		print_message("no /proc/rfm2g on %s: (only rfm.ko or the vendor driver write it)\n",
			      harness_backend());
		skip();
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		unsigned int i;

		print_message("/proc/rfm2g: %s", line);	/* for the lab's log */
		if (sscanf(line, "RFM2G_DEVICE_COUNT %u", &count) == 1)
			continue;
		if (sscanf(line, "DEVICE_%u_%63s %lli", &i, key, &v) == 3 && i < count) {
			fields++;
			if (!strcmp(key, "MEMORY_SIZE") && v > 0)
				boards++;
		}
	}
	fclose(f);
	if (harness_dev_cards())
		assert_int_equal(count, harness_dev_cards());
	assert_int_equal(boards, count);
	assert_int_equal(fields, count * 12);	/* 12 lines per board */
	/* As the utility: open every board by its vendor path. */
	for (unsigned int i = 0; i < count; i++) {
		RFM2GHANDLE h = NULL, by_uri = NULL;
		RFM2G_NODE a, b;
		char path[32], uri[40];

		snprintf(path, sizeof(path), "/dev/rfm2g%u", i);
		snprintf(uri, sizeof(uri), "dev:/dev/rfm%u", i);
		assert_st(RFM2gOpen(path, &h), RFM2G_SUCCESS);
		assert_st(RFM2gOpen(uri, &by_uri), RFM2G_SUCCESS);
		assert_st(RFM2gNodeID(h, &a), RFM2G_SUCCESS);
		assert_st(RFM2gNodeID(by_uri, &b), RFM2G_SUCCESS);
		assert_int_equal(a, b);
		assert_st(RFM2gClose(&by_uri), RFM2G_SUCCESS);
		assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_multithreaded_sender, setup, teardown),
		cmocka_unit_test_setup_teardown(t_two_receivers_one_node, setup, teardown),
		cmocka_unit_test_setup_teardown(t_dma_buffer_user, setup, teardown),
		cmocka_unit_test_setup_teardown(t_register_reader, setup, teardown),
		cmocka_unit_test_setup_teardown(t_proc_rfm2g, setup, teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
