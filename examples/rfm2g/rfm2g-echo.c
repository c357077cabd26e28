/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An RFM2g program, written against the RFM2g API only (rfm2g_api.h,
 * -lrfm2g), in the style of the vendor's sender/receiver samples. It runs
 * on a card or, with RFM_URI=shm:NAME, on librfm's emulated network.
 *
 *   rfm2g-echo receive [DEVICE]            answer every INTR1 (Ctrl-C ends)
 *   rfm2g-echo send NODE [ROUNDS [DEVICE]] write 1 KiB at 0x1000, send INTR1
 *                                          to NODE, wait for INTR2, check
 *                                          the copy NODE wrote at 0x2000
 *
 * DEVICE defaults to /dev/rfm2g0. See docs/rfm2g-migration.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfm2g_api.h"

#define WORDS 256
#define SEND_OFFSET 0x1000
#define ECHO_OFFSET 0x2000
#define TIMEOUT_MS 60000

static int fail(const char *what, RFM2G_STATUS st)
{
	fprintf(stderr, "rfm2g-echo: %s: %s (%d)\n", what, RFM2gErrorMsg(st), (int) st);
	return 1;
}

static int receive(RFM2GHANDLE h)
{
	RFM2G_UINT32 block[WORDS];
	RFM2GEVENTINFO info;
	RFM2G_STATUS st;
	RFM2G_NODE me;

	RFM2gNodeID(h, &me);
	st = RFM2gEnableEvent(h, RFM2GEVENT_INTR1);
	if (st != RFM2G_SUCCESS)
		return fail("RFM2gEnableEvent", st);
	printf("receiver: node %u, waiting for INTR1\n", me);
	fflush(stdout);
	for (;;) {
		memset(&info, 0, sizeof(info));
		info.Event = RFM2GEVENT_INTR1;
		info.Timeout = RFM2G_INFINITE_TIMEOUT;
		st = RFM2gWaitForEvent(h, &info);
		if (st != RFM2G_SUCCESS)
			return fail("RFM2gWaitForEvent", st);
		if ((st = RFM2gRead(h, SEND_OFFSET, block, sizeof(block))) != RFM2G_SUCCESS ||
		    (st = RFM2gWrite(h, ECHO_OFFSET, block, sizeof(block))) != RFM2G_SUCCESS ||
		    (st = RFM2gSendEvent(h, info.NodeId, RFM2GEVENT_INTR2, info.ExtendedInfo)) !=
			    RFM2G_SUCCESS)
			return fail("echo", st);
	}
}

static int do_send(RFM2GHANDLE h, RFM2G_NODE to, unsigned long rounds)
{
	RFM2G_UINT32 out[WORDS], back[WORDS];
	RFM2GEVENTINFO info;
	RFM2G_STATUS st;

	st = RFM2gEnableEvent(h, RFM2GEVENT_INTR2);
	if (st != RFM2G_SUCCESS)
		return fail("RFM2gEnableEvent", st);
	for (unsigned long r = 0; r < rounds; r++) {
		for (int i = 0; i < WORDS; i++)
			out[i] = 0xa5a50000u + (RFM2G_UINT32) (i + r);
		if ((st = RFM2gWrite(h, SEND_OFFSET, out, sizeof(out))) != RFM2G_SUCCESS)
			return fail("RFM2gWrite", st);
		if ((st = RFM2gSendEvent(h, to, RFM2GEVENT_INTR1, (RFM2G_UINT32) r)) != RFM2G_SUCCESS)
			return fail("RFM2gSendEvent", st);
		memset(&info, 0, sizeof(info));
		info.Event = RFM2GEVENT_INTR2;
		info.Timeout = TIMEOUT_MS;
		if ((st = RFM2gWaitForEvent(h, &info)) != RFM2G_SUCCESS)
			return fail("RFM2gWaitForEvent", st);
		if ((st = RFM2gRead(h, ECHO_OFFSET, back, sizeof(back))) != RFM2G_SUCCESS)
			return fail("RFM2gRead", st);
		if (memcmp(out, back, sizeof(out))) {
			fprintf(stderr, "rfm2g-echo: round %lu: the copy differs\n", r);
			return 1;
		}
	}
	printf("sender: %lu rounds echoed by node %u\n", rounds, to);
	return 0;
}

int main(int argc, char **argv)
{
	const char *device = "/dev/rfm2g0";
	RFM2GHANDLE h = NULL;
	RFM2G_STATUS st;
	int ret;

	if (argc >= 2 && !strcmp(argv[1], "receive") && argc <= 3) {
		if (argc == 3)
			device = argv[2];
	} else if (argc >= 3 && !strcmp(argv[1], "send") && argc <= 5) {
		if (argc == 5)
			device = argv[4];
	} else {
		fprintf(stderr, "usage: rfm2g-echo receive [DEVICE]\n"
				"       rfm2g-echo send NODE [ROUNDS [DEVICE]]\n");
		return 2;
	}
	st = RFM2gOpen((char *) device, &h);
	if (st != RFM2G_SUCCESS)
		return fail(device, st);
	if (argv[1][0] == 'r')
		ret = receive(h);
	else
		ret = do_send(h, (RFM2G_NODE) strtoul(argv[2], NULL, 0),
			      argc >= 4 ? strtoul(argv[3], NULL, 0) : 1000);
	RFM2gClose(&h);
	return ret;
}
