/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RFM2g API in one process: handles, configuration, transfers,
 * peek/poke widths, user memory pages, board controls, registers, and the
 * status code of every kind of bad input, in the documented check order.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "rfm2g-test.h"

#define NET_SIZE (1u << 20)

/* The shared fixture's network (harness_fixture_network), for the tests. */
static struct harness_network *net;
static RFM2GHANDLE rh;

static int setup(void **state)
{
	unsetenv("RFM_URI");
	if (harness_fixture_network(state, NET_SIZE))
		return -1;
	net = *state;
	rh = rfm2g_test_open(net, 3);
	return 0;
}

static int teardown(void **state)
{
	if (rh)
		assert_st(RFM2gClose(&rh), RFM2G_SUCCESS);
	assert_null(rh);
	return harness_fixture_teardown(state);
}

static void t_errmsg(void **state)
{
	(void) state;
	assert_int_equal(rfm2g_nerr, 43);
	for (int i = 0; i < rfm2g_nerr; i++) {
		assert_non_null(rfm2g_errlist[i]);
		assert_ptr_equal(RFM2gErrorMsg((RFM2G_STATUS) i), rfm2g_errlist[i]);
		if (i)
			assert_string_not_equal(rfm2g_errlist[i], rfm2g_errlist[i - 1]);
	}
	assert_ptr_equal(RFM2gErrorMsg((RFM2G_STATUS) -1), rfm2g_errlist[RFM2G_MAX_ERROR_CODE]);
	assert_ptr_equal(RFM2gErrorMsg((RFM2G_STATUS) 43), rfm2g_errlist[RFM2G_MAX_ERROR_CODE]);
	assert_ptr_equal(RFM2gErrorMsg((RFM2G_STATUS) 100000),
			 rfm2g_errlist[RFM2G_MAX_ERROR_CODE]);
}

static void t_open_args(void **state)
{
	RFM2GHANDLE h = (RFM2GHANDLE) 0x1;

	(void) state;
	assert_st(RFM2gOpen(NULL, &h), RFM2G_BAD_PARAMETER_1);
	assert_st(RFM2gOpen((char *) "/no/such/rfm2g", &h), RFM2G_NO_RFM2G_BOARD);
	assert_st(RFM2gOpen((char *) harness_node_uri(net, 4), NULL), RFM2G_BAD_PARAMETER_2);
	/* A URI that librfm refuses: not opened, handle cleared. */
	assert_st(RFM2gOpen((char *) harness_network_uri(net, "size=5"), &h), RFM2G_NOT_OPEN);
	assert_null(h);
	/* Every scheme of librfm is a URI, dds: too (its URI reaches rfm_open()). */
	h = (RFM2GHANDLE) 0x1;
	assert_st(RFM2gOpen((char *) "dds:t-rfm2g-api?colour=red", &h), RFM2G_NOT_OPEN);
	assert_null(h);
	/* The URI of a node open in this process: another handle on that node. */
	assert_st(RFM2gOpen((char *) harness_node_uri(net, 3), &h), RFM2G_SUCCESS);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

/* Bytes free where @network's segment file would be; UINT64_MAX without one. */
static uint64_t segment_room(const struct harness_network *network)
{
	struct statvfs fs;
	char path[128];
	char *slash;

	if (!harness_shm_path(network, path, sizeof(path)) || !(slash = strrchr(path, '/')))
		return UINT64_MAX;
	*slash = '\0';
	if (statvfs(path, &fs))
		return UINT64_MAX;
	return (uint64_t)fs.f_bavail * fs.f_frsize;
}

/*
 * A new network opened through librfm2g is a 5565's 64 MiB, by RFM_URI or
 * as the device path: offsets up to its end work, 0x03000000 among them.
 * One that exists (setup made net at 1 MiB) is joined at its size.
 */
static void t_default_board(void **state)
{
	struct harness_network fresh;
	RFM2GHANDLE a = NULL, b = NULL, c = NULL;
	RFM2G_UINT32 size = 0, v = 0;

	(void) state;
	harness_network_new(&fresh, 0);
	/* A 64 MiB board needs its room: Docker's /dev/shm has 64 MiB in all. */
	if (segment_room(&fresh) < (65u << 20)) {
		print_message("%llu bytes free for segment files, less than a 64 MiB board needs "
			      "(test-rfm2g-board.sh tests it in a private /dev/shm)\n",
			      (unsigned long long)segment_room(&fresh));
		skip();
	}
	setenv("RFM_URI", fresh.uri, 1);
	assert_st(RFM2gOpen((char *) "/dev/rfm2g0", &a), RFM2G_SUCCESS);
	unsetenv("RFM_URI");
	assert_st(RFM2gSize(a, &size), RFM2G_SUCCESS);
	assert_int_equal(size, 64u << 20);
	assert_st(RFM2gPoke32(a, 0x03000000u, 0x5A5A0300u), RFM2G_SUCCESS);
	assert_st(RFM2gPoke32(a, (64u << 20) - 4, 0x5A5A03FCu), RFM2G_SUCCESS);
	/* The same network by its URI as device path: the same board. */
	assert_st(RFM2gOpen((char *) fresh.uri, &b), RFM2G_SUCCESS);
	assert_st(RFM2gPeek32(b, 0x03000000u, &v), RFM2G_SUCCESS);
	assert_int_equal(v, 0x5A5A0300u);
	assert_st(RFM2gPeek32(b, (64u << 20) - 4, &v), RFM2G_SUCCESS);
	assert_int_equal(v, 0x5A5A03FCu);
	assert_st(RFM2gClose(&b), RFM2G_SUCCESS);
	assert_st(RFM2gClose(&a), RFM2G_SUCCESS);
	harness_network_destroy(&fresh);
	/* net exists at 1 MiB: joined as it is, not refused for its size. */
	assert_st(RFM2gOpen((char *) net->uri, &c), RFM2G_SUCCESS);
	assert_st(RFM2gSize(c, &size), RFM2G_SUCCESS);
	assert_int_equal(size, NET_SIZE);
	assert_st(RFM2gClose(&c), RFM2G_SUCCESS);
}

/* $RFM_URI wins over any device path; a second open shares the node id. */
static void t_env_uri(void **state)
{
	RFM2GHANDLE a = NULL, b = NULL;
	RFM2G_NODE na, nb;
	char name[MAX_PATH];

	(void) state;
	setenv("RFM_URI", net->uri, 1);
	assert_st(RFM2gOpen((char *) "/dev/rfm2g2", &a), RFM2G_SUCCESS);
	assert_st(RFM2gOpen((char *) "/dev/rfm2g2", &b), RFM2G_SUCCESS);
	unsetenv("RFM_URI");
	assert_st(RFM2gNodeID(a, &na), RFM2G_SUCCESS);
	assert_st(RFM2gNodeID(b, &nb), RFM2G_SUCCESS);
	assert_int_equal(na, nb);
	assert_int_not_equal(na, 3);	/* the fixture holds 3 */
	assert_st(RFM2gDeviceName(a, name), RFM2G_SUCCESS);
	assert_string_equal(name, "/dev/rfm2g2");
	assert_int_equal(a->Config.Unit, 2);
	/* Same memory. */
	assert_st(RFM2gPoke32(a, 64, 0xfeedf00d), RFM2G_SUCCESS);
	{
		RFM2G_UINT32 v = 0;

		assert_st(RFM2gPeek32(rh, 64, &v), RFM2G_SUCCESS);
		assert_int_equal(v, 0xfeedf00d);
	}
	assert_st(RFM2gClose(&b), RFM2G_SUCCESS);
	assert_st(RFM2gClose(&a), RFM2G_SUCCESS);
}

static void t_bad_handles(void **state)
{
	struct rfm2ghandle_s fake;
	RFM2GHANDLE stale, h = NULL;
	RFM2G_UINT32 v;
	RFM2GEVENTINFO info = { .Event = RFM2GEVENT_INTR1 };

	(void) state;
	memset(&fake, 0, sizeof(fake));
	fake.struct_id = 0x52464D32;	/* right magic, not a handle we made */
	assert_st(RFM2gSize(NULL, &v), RFM2G_NULL_DESCRIPTOR);
	assert_st(RFM2gSize(&fake, &v), RFM2G_BAD_PARAMETER_1);
	assert_st(RFM2gWaitForEvent(&fake, &info), RFM2G_BAD_PARAMETER_1);
	assert_st(RFM2gPeek32((RFM2GHANDLE) 0x10, 0, &v), RFM2G_BAD_PARAMETER_1);
	assert_st(RFM2gClose(NULL), RFM2G_BAD_PARAMETER_1);
	assert_st(RFM2gClose(&h), RFM2G_NULL_DESCRIPTOR);

	h = rfm2g_test_open(net, 5);
	stale = h;
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
	assert_null(h);
	assert_st(RFM2gSize(stale, &v), RFM2G_BAD_PARAMETER_1);
	assert_st(RFM2gClose(&stale), RFM2G_BAD_PARAMETER_1);
}

static void t_config(void **state)
{
	RFM2GCONFIG c;
	RFM2G_NODE node;
	RFM2G_UINT8 board;
	RFM2G_UINT32 size, first;
	char buf[MAX_PATH];

	(void) state;
	assert_st(RFM2gNodeID(rh, &node), RFM2G_SUCCESS);
	assert_int_equal(node, 3);
	assert_int_equal(rh->Config.NodeId, 3);	/* programs read it directly */
	assert_st(RFM2gBoardID(rh, &board), RFM2G_SUCCESS);
	assert_int_equal(board, 0x65);
	assert_st(RFM2gSize(rh, &size), RFM2G_SUCCESS);
	assert_int_equal(size, NET_SIZE);
	assert_st(RFM2gFirst(rh, &first), RFM2G_SUCCESS);
	assert_int_equal(first, 0);
	assert_st(RFM2gDeviceName(rh, buf), RFM2G_SUCCESS);
	assert_string_equal(buf, harness_node_uri(net, 3));
	assert_st(RFM2gDllVersion(rh, buf), RFM2G_SUCCESS);
	assert_string_equal(buf, "R09.00");
	assert_st(RFM2gDriverVersion(rh, buf), RFM2G_SUCCESS);
	assert_string_equal(buf, "R09.00");
	assert_st(RFM2gGetConfig(rh, &c), RFM2G_SUCCESS);
	assert_int_equal(c.NodeId, 3);
	assert_int_equal(c.MemorySize, NET_SIZE);
	assert_int_equal(c.PciConfig.rfm2gWindowSize, NET_SIZE);
	/* The vendor driver's strings and a board with the sliding window, as sites see them. */
	assert_string_equal(c.Name, "SW-RFM2G-DRV-LNX");
	assert_string_equal(c.DriverVersion, "R09.00");
	assert_true(c.BoardRevision >= 0x8C);
	assert_int_equal(c.PciConfig.type, 0x5565);
	/* Register set sizes of the views RFM2gMapDeviceMemory() gives. */
	assert_int_equal(c.PciConfig.rfm2gOrWindowSize, 512);
	assert_int_equal(c.PciConfig.rfm2gOrRegSize, 512);
	assert_int_equal(c.PciConfig.rfm2gCsWindowSize, 0x40);
	assert_int_equal(c.PciConfig.rfm2gCsRegSize, 0x40);
	{
		RFM2G_UINT8 brv = 0;

		assert_st(RFM2gReadReg(rh, RFM2GCTRLREGMEM, 0, 1, &brv), RFM2G_SUCCESS);
		assert_int_equal(brv, c.BoardRevision);
	}

	assert_st(RFM2gNodeID(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gBoardID(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gSize(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gFirst(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gDeviceName(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gDllVersion(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gDriverVersion(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetConfig(rh, NULL), RFM2G_BAD_PARAMETER_2);
}

static void t_transfer(void **state)
{
	RFM2G_UINT32 out[64], in[64];

	(void) state;
	for (unsigned int i = 0; i < 64; i++)
		out[i] = 0xa5a50000u + i;
	assert_st(RFM2gWrite(rh, 0x1000, out, sizeof(out)), RFM2G_SUCCESS);
	memset(in, 0, sizeof(in));
	assert_st(RFM2gRead(rh, 0x1000, in, sizeof(in)), RFM2G_SUCCESS);
	assert_memory_equal(in, out, sizeof(in));
	/* Unaligned offsets and lengths are fine for bulk transfers. */
	assert_st(RFM2gRead(rh, 0x1001, in, 7), RFM2G_SUCCESS);
	assert_memory_equal(in, (char *) out + 1, 7);
	assert_st(RFM2gWrite(rh, NET_SIZE - 4, out, 4), RFM2G_SUCCESS);
	assert_st(RFM2gRead(rh, 0, NULL, 0), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gRead(rh, 0, in, 0), RFM2G_SUCCESS);

	/* Range before the buffer, as the library checks. */
	assert_st(RFM2gRead(rh, NET_SIZE - 3, NULL, 4), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gWrite(rh, NET_SIZE, NULL, 1), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gRead(rh, 0, NULL, 4), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gWrite(rh, 0, NULL, 4), RFM2G_BAD_PARAMETER_3);
	/* A sum that wraps in 32 bits is still out of range (64-bit checks). */
	assert_st(RFM2gRead(rh, 0xFFFFFF00u, in, 0x200), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gWrite(rh, 0xFFFFFF00u, in, 0x200), RFM2G_OUT_OF_RANGE);
}

static void t_peek_poke(void **state)
{
	RFM2G_UINT8 v8;
	RFM2G_UINT16 v16;
	RFM2G_UINT32 v32;
	RFM2G_UINT64 v64;

	(void) state;
	/* Peeks and pokes are in host order: the words are put little-endian
	 * (htole*), so the bytes below are the same on every host. */
	assert_st(RFM2gPoke64(rh, 0x200, htole64(0x1122334455667788ull)), RFM2G_SUCCESS);
	assert_st(RFM2gPeek8(rh, 0x200, &v8), RFM2G_SUCCESS);
	assert_int_equal(v8, 0x88);
	assert_st(RFM2gPeek16(rh, 0x202, &v16), RFM2G_SUCCESS);
	assert_int_equal(le16toh(v16), 0x5566);
	assert_st(RFM2gPeek32(rh, 0x204, &v32), RFM2G_SUCCESS);
	assert_int_equal(le32toh(v32), 0x11223344);
	assert_st(RFM2gPoke8(rh, 0x201, 0xAB), RFM2G_SUCCESS);
	assert_st(RFM2gPoke16(rh, 0x206, htole16(0xCDEF)), RFM2G_SUCCESS);
	assert_st(RFM2gPoke32(rh, 0x208, 0xDEADBEEF), RFM2G_SUCCESS);
	assert_st(RFM2gPeek64(rh, 0x200, &v64), RFM2G_SUCCESS);
	assert_true(le64toh(v64) == 0xCDEF33445566AB88ull);
	assert_st(RFM2gPeek32(rh, 0x208, &v32), RFM2G_SUCCESS);
	assert_int_equal(v32, 0xDEADBEEF);
	assert_st(RFM2gPeek8(rh, NET_SIZE - 1, &v8), RFM2G_SUCCESS);
	assert_st(RFM2gPoke64(rh, NET_SIZE - 8, 1), RFM2G_SUCCESS);

	/* NULL value first, then range, then alignment. */
	assert_st(RFM2gPeek8(rh, NET_SIZE, NULL), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gPeek16(rh, 1, NULL), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gPeek64(rh, 0, NULL), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gPeek8(rh, NET_SIZE, &v8), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPeek16(rh, NET_SIZE - 1, &v16), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPeek32(rh, NET_SIZE - 2, &v32), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPeek64(rh, NET_SIZE - 4, &v64), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPeek32(rh, 0xFFFFFFFFu, &v32), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPeek16(rh, 1, &v16), RFM2G_UNALIGNED_OFFSET);
	assert_st(RFM2gPeek32(rh, 2, &v32), RFM2G_UNALIGNED_OFFSET);
	assert_st(RFM2gPeek64(rh, 4, &v64), RFM2G_UNALIGNED_OFFSET);
	assert_st(RFM2gPoke8(rh, NET_SIZE, 0), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPoke16(rh, NET_SIZE - 1, 0), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPoke32(rh, NET_SIZE, 0), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPoke64(rh, NET_SIZE - 4, 0), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gPoke16(rh, 3, 0), RFM2G_UNALIGNED_OFFSET);
	assert_st(RFM2gPoke32(rh, 6, 0), RFM2G_UNALIGNED_OFFSET);
	assert_st(RFM2gPoke64(rh, 12, 0), RFM2G_UNALIGNED_OFFSET);
	/* Nothing was written by the refused pokes. */
	assert_st(RFM2gPeek32(rh, 4, &v32), RFM2G_SUCCESS);
	assert_int_equal(v32, 0);
}

static void t_user_memory(void **state)
{
	volatile void *p = NULL, *q = NULL;
	volatile RFM2G_UINT32 *w;
	RFM2G_UINT32 back[4];

	(void) state;
	/* The sample flow: map one page, write through it, read back. */
	assert_st(RFM2gUserMemory(rh, &p, 0, 1), RFM2G_SUCCESS);
	w = (volatile RFM2G_UINT32 *) p;
	for (unsigned int i = 0; i < 4; i++)
		w[i] = 0x1000u * (i + 1);
	assert_st(RFM2gRead(rh, 0, back, sizeof(back)), RFM2G_SUCCESS);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(back[i], 0x1000u * (i + 1));
	/* Offsets are bytes, lengths are 4096-byte pages. */
	assert_st(RFM2gUserMemory(rh, &q, 0x3000, 2), RFM2G_SUCCESS);
	assert_ptr_equal((volatile char *) q, (volatile char *) p + 0x3000);
	assert_st(RFM2gUnMapUserMemory(rh, &q, 2), RFM2G_SUCCESS);
	assert_null(q);
	assert_st(RFM2gUserMemoryBytes(rh, &q, 0x2000, 4097), RFM2G_SUCCESS);
	assert_ptr_equal((volatile char *) q, (volatile char *) p + 0x2000);
	assert_st(RFM2gUnMapUserMemoryBytes(rh, &q, 4097), RFM2G_SUCCESS);
	assert_null(q);
	/* The whole memory, and not a page more. */
	assert_st(RFM2gUserMemory(rh, &q, 0, NET_SIZE / 4096), RFM2G_SUCCESS);
	assert_st(RFM2gUnMapUserMemory(rh, &q, NET_SIZE / 4096), RFM2G_SUCCESS);

	assert_st(RFM2gUserMemory(rh, NULL, 0, 0), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gUserMemory(rh, &q, 0, 0), RFM2G_BAD_PARAMETER_4);
	assert_st(RFM2gUserMemory(rh, &q, 0, NET_SIZE / 4096 + 1), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gUserMemory(rh, &q, NET_SIZE - 4096, 2), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gUserMemory(rh, &q, 0x100000000ull, 1), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gUserMemory(rh, &q, 0x800, 1), RFM2G_MEM_NOT_MAPPED);
	assert_st(RFM2gUserMemory(rh, &q, 6, 1), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gUserMemory(rh, &q, 0x1000 | RFM2G_BAR2_MMAP_OFFSET, 1),
		  RFM2G_BAD_PARAMETER_3);
	/* Register sets and DMA buffers map, as the vendor's programs map them; a
	 * misaligned DMA address does not. */
	assert_st(RFM2gUserMemory(rh, &q, RFM2G_BAR0_MMAP_OFFSET, 2), RFM2G_MEM_NOT_MAPPED);
	assert_st(RFM2gUserMemory(rh, &q, 0x7F000800ull | RFM2G_DMA_MMAP_OFFSET, 1),
		  RFM2G_MEM_NOT_MAPPED);
	assert_null(q);
	assert_st(RFM2gUserMemory(rh, &q, RFM2G_BAR0_MMAP_OFFSET, 1), RFM2G_SUCCESS);
	assert_non_null(q);
	assert_st(RFM2gUnMapUserMemory(rh, &q, 1), RFM2G_SUCCESS);
	assert_null(q);
	assert_st(RFM2gUserMemory(rh, &q, 0x7F000000ull | RFM2G_DMA_MMAP_OFFSET, 1),
		  RFM2G_SUCCESS);
	assert_non_null(q);
	assert_st(RFM2gUnMapUserMemory(rh, &q, 1), RFM2G_SUCCESS);
	assert_null(q);
	/* Byte counts of 0 are refused before the handle is even looked at. */
	assert_st(RFM2gUserMemoryBytes(NULL, &q, 0, 0), RFM2G_BAD_PARAMETER_4);
	assert_st(RFM2gUnMapUserMemoryBytes(NULL, &q, 0), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gUserMemoryBytes(NULL, &q, 0, 1), RFM2G_NULL_DESCRIPTOR);

	assert_st(RFM2gUnMapUserMemory(rh, NULL, 1), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gUnMapUserMemory(rh, &q, 1), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gUnMapUserMemory(rh, &p, 0), RFM2G_BAD_PARAMETER_3);
	q = back;
	assert_st(RFM2gUnMapUserMemory(rh, &q, 1), RFM2G_OS_ERROR);
	assert_st(RFM2gUnMapUserMemory(rh, &p, 1), RFM2G_SUCCESS);
	assert_null(p);
}

static void t_board_controls(void **state)
{
	RFM2G_BOOL b;
	RFM2G_UINT32 v, off, size;
	RFM2G_MEM_OFFSETTYPE mo;
	RFM2GCONFIG c;

	(void) state;
	assert_st(RFM2gGetLed(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_OFF);
	assert_st(RFM2gSetLed(rh, 7), RFM2G_SUCCESS);
	assert_st(RFM2gGetLed(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	assert_st(RFM2gGetConfig(rh, &c), RFM2G_SUCCESS);
	assert_true(c.Lcsr1 & RFM2G_LCSR_LED);
	assert_st(RFM2gGetTransmit(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	assert_st(RFM2gSetTransmit(rh, RFM2G_OFF), RFM2G_SUCCESS);
	assert_st(RFM2gGetConfig(rh, &c), RFM2G_SUCCESS);
	assert_true(c.Lcsr1 & RFM2G_LCSR_TXDIS);	/* the API inverts the bit */
	assert_st(RFM2gCheckRingCont(rh), RFM2G_LINK_TEST_FAIL);
	assert_st(RFM2gSetTransmit(rh, RFM2G_ON), RFM2G_SUCCESS);
	assert_st(RFM2gCheckRingCont(rh), RFM2G_SUCCESS);
	assert_st(RFM2gClearOwnData(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	assert_st(RFM2gClearOwnData(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_OFF);
	assert_st(RFM2gSetDarkOnDark(rh, RFM2G_ON), RFM2G_SUCCESS);
	assert_st(RFM2gGetDarkOnDark(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	assert_st(RFM2gSetLoopback(rh, RFM2G_ON), RFM2G_SUCCESS);
	assert_st(RFM2gGetLoopback(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	assert_st(RFM2gSetParityEnable(rh, RFM2G_ON), RFM2G_SUCCESS);
	assert_st(RFM2gGetParityEnable(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	assert_st(RFM2gSetMemoryOffset(rh, RFM2G_MEM_OFFSET2), RFM2G_SUCCESS);
	assert_st(RFM2gGetMemoryOffset(rh, &mo), RFM2G_SUCCESS);
	assert_int_equal(mo, RFM2G_MEM_OFFSET2);
	assert_st(RFM2gSetMemoryOffset(rh, (RFM2G_MEM_OFFSETTYPE) 4), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetDMAThreshold(rh, &v), RFM2G_SUCCESS);
	assert_int_equal(v, 0xFFFFFFFFu);
	assert_st(RFM2gSetDMAThreshold(rh, 4096), RFM2G_SUCCESS);
	assert_st(RFM2gGetDMAThreshold(rh, &v), RFM2G_SUCCESS);
	assert_int_equal(v, 4096);
	assert_st(RFM2gSetPIOByteSwap(rh, RFM2G_ON), RFM2G_NOT_SUPPORTED);
	assert_st(RFM2gSetDMAByteSwap(rh, RFM2G_ON), RFM2G_NOT_SUPPORTED);
	assert_st(RFM2gSetPIOByteSwap(rh, RFM2G_OFF), RFM2G_SUCCESS);
	assert_st(RFM2gGetPIOByteSwap(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_OFF);
	assert_st(RFM2gGetDMAByteSwap(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_OFF);
	assert_st(RFM2gGetSlidingWindow(rh, &off, &size), RFM2G_SUCCESS);
	assert_int_equal(off, 0);
	assert_int_equal(size, NET_SIZE);
	assert_st(RFM2gGetSlidingWindow(rh, &off, NULL), RFM2G_SUCCESS);
	assert_st(RFM2gSetSlidingWindow(rh, 0), RFM2G_SUCCESS);
	assert_st(RFM2gSetSlidingWindow(rh, 4096), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gSetSlidingWindow(rh, NET_SIZE), RFM2G_OUT_OF_RANGE);
	assert_st(RFM2gSetDebugFlags(rh, RFM2G_DBINTR | RFM2G_DBDMA), RFM2G_SUCCESS);
	assert_st(RFM2gGetDebugFlags(rh, &v), RFM2G_SUCCESS);
	assert_int_equal(v, RFM2G_DBINTR | RFM2G_DBDMA);

	assert_st(RFM2gGetLed(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetTransmit(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetDarkOnDark(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetLoopback(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetParityEnable(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetMemoryOffset(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gClearOwnData(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetSlidingWindow(rh, NULL, &size), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetDebugFlags(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetDMAThreshold(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetPIOByteSwap(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gGetDMAByteSwap(rh, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gSetLed(NULL, 0), RFM2G_NULL_DESCRIPTOR);
	assert_st(RFM2gCheckRingCont(NULL), RFM2G_NULL_DESCRIPTOR);
}

static void t_registers(void **state)
{
	RFM2G_UINT8 v8 = 0;
	RFM2G_UINT32 v32 = 0;
	RFM2G_BOOL b;
	volatile void *p = NULL;

	(void) state;
	assert_st(RFM2gReadReg(rh, RFM2GCTRLREGMEM, rfm2g_bid, 1, &v8), RFM2G_SUCCESS);
	assert_int_equal(v8, RFM2G_BID_5565);
	assert_st(RFM2gReadReg(rh, RFM2GCTRLREGMEM, rfm2g_nid, 1, &v8), RFM2G_SUCCESS);
	assert_int_equal(v8, 3);
	assert_st(RFM2gSetReg(rh, RFM2GCTRLREGMEM, rfm2g_lcsr, 4, RFM2G_LCSR_LED), RFM2G_SUCCESS);
	assert_st(RFM2gGetLed(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_ON);
	assert_st(RFM2gReadReg(rh, RFM2GCTRLREGMEM, rfm2g_lcsr, 4, &v32), RFM2G_SUCCESS);
	assert_true(v32 & RFM2G_LCSR_LED);
	assert_st(RFM2gClearReg(rh, RFM2GCTRLREGMEM, rfm2g_lcsr, 4, RFM2G_LCSR_LED), RFM2G_SUCCESS);
	assert_st(RFM2gGetLed(rh, &b), RFM2G_SUCCESS);
	assert_int_equal(b, RFM2G_OFF);
	/* RFM2GMEM is the memory itself. */
	assert_st(RFM2gWriteReg(rh, RFM2GMEM, 0x400, 4, 0x0F0F0000), RFM2G_SUCCESS);
	assert_st(RFM2gSetReg(rh, RFM2GMEM, 0x400, 4, 0xF0), RFM2G_SUCCESS);
	assert_st(RFM2gClearReg(rh, RFM2GMEM, 0x400, 4, 0x0F000000), RFM2G_SUCCESS);
	assert_st(RFM2gPeek32(rh, 0x400, &v32), RFM2G_SUCCESS);
	assert_int_equal(v32, 0x000F00F0);
	assert_st(RFM2gReadReg(rh, RFM2GMEM, 0x401, 1, &v8), RFM2G_SUCCESS);
	assert_int_equal(v8, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0x00 : 0x0F); /* byte 1 */
	assert_st(RFM2gReadReg(rh, RFM2GCFGREGMEM, rfmor_las1rr, 4, &v32), RFM2G_SUCCESS);
	assert_int_equal(v32, ~(NET_SIZE - 1u));

	/* Width, then register set, then offset, then the value pointer. */
	assert_st(RFM2gReadReg(rh, (RFM2GREGSETTYPE) 9, 0x1000, 3, NULL), RFM2G_BAD_PARAMETER_4);
	assert_st(RFM2gReadReg(rh, RFM2GCFGREGIO, 0, 4, &v32), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gReadReg(rh, RFM2GRESERVED0REG, 0, 4, &v32), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gReadReg(rh, RFM2GCTRLREGMEM, 0x3E, 4, &v32), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gReadReg(rh, RFM2GCFGREGMEM, 511, 2, &v32), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gReadReg(rh, RFM2GMEM, NET_SIZE - 1, 2, &v32), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gReadReg(rh, RFM2GMEM, 0, 4, NULL), RFM2G_BAD_PARAMETER_5);
	assert_st(RFM2gWriteReg(rh, RFM2GMEM, 0, 8, 0), RFM2G_BAD_PARAMETER_4);
	assert_st(RFM2gSetReg(rh, RFM2GCFGREGIO, 0, 4, 0), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gClearReg(rh, RFM2GCTRLREGMEM, 0x40, 1, 0), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gWriteReg(rh, RFM2GCFGREGMEM, rfmor_las1ba, 4, 0), RFM2G_NOT_SUPPORTED);

	assert_st(RFM2gMapDeviceMemory(rh, RFM2GMEM, &p), RFM2G_SUCCESS);
	assert_non_null(p);
	assert_int_equal(((volatile RFM2G_UINT32 *) p)[0x100], 0x000F00F0);
	assert_st(RFM2gUnMapDeviceMemory(rh, RFM2GMEM, &p), RFM2G_SUCCESS);
	assert_null(p);
	/* The control registers: a read-only 5565 view of this node. */
	assert_st(RFM2gMapDeviceMemory(rh, RFM2GCTRLREGMEM, &p), RFM2G_SUCCESS);
	assert_int_equal(((volatile RFM2G_UINT8 *) p)[rfm2g_bid], 0x65);
	assert_int_equal(((volatile RFM2G_UINT8 *) p)[rfm2g_nid], 3);
	assert_st(RFM2gUnMapDeviceMemory(rh, RFM2GCTRLREGMEM, &p), RFM2G_SUCCESS);
	assert_null(p);
	assert_st(RFM2gMapDeviceMemory(rh, RFM2GCFGREGIO, NULL), RFM2G_BAD_PARAMETER_2);
	assert_st(RFM2gMapDeviceMemory(rh, RFM2GMEM, NULL), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gUnMapDeviceMemory(rh, RFM2GMEM, &p), RFM2G_BAD_PARAMETER_3);
	assert_st(RFM2gUnMapDeviceMemory(rh, (RFM2GREGSETTYPE) 7, &p), RFM2G_BAD_PARAMETER_2);
}

/* A mapping outlives RFM2gClose(), as with the vendor driver. */
static void t_mapping_survives_close(void **state)
{
	RFM2GHANDLE h = rfm2g_test_open(net, 6);
	volatile void *p = NULL;
	RFM2G_UINT32 v = 0;

	(void) state;
	assert_st(RFM2gUserMemory(h, &p, 0x8000, 1), RFM2G_SUCCESS);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
	*(volatile RFM2G_UINT32 *) p = 0x600D;
	assert_st(RFM2gPeek32(rh, 0x8000, &v), RFM2G_SUCCESS);
	assert_int_equal(v, 0x600D);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_errmsg, setup, teardown),
		cmocka_unit_test_setup_teardown(t_open_args, setup, teardown),
		cmocka_unit_test_setup_teardown(t_env_uri, setup, teardown),
		cmocka_unit_test_setup_teardown(t_default_board, setup, teardown),
		cmocka_unit_test_setup_teardown(t_bad_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(t_config, setup, teardown),
		cmocka_unit_test_setup_teardown(t_transfer, setup, teardown),
		cmocka_unit_test_setup_teardown(t_peek_poke, setup, teardown),
		cmocka_unit_test_setup_teardown(t_user_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(t_board_controls, setup, teardown),
		cmocka_unit_test_setup_teardown(t_registers, setup, teardown),
		cmocka_unit_test_setup_teardown(t_mapping_survives_close, setup, teardown),
	};

	harness_init();
	harness_require(HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE |
			    HARNESS_CAP_OWN_NETWORKS,
			"opens boards of chosen node ids on new networks of chosen sizes");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
