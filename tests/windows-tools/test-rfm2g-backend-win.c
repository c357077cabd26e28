/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rfm2g: backend on Windows, which reaches the card through GE's DLL
 * loaded at run time (src/backends/rfm2g/rfm2g-win.c), under wine with no
 * card and no GE package:
 *  - without the DLL, rfm_open() says which DLL is missing and what to
 *    install (RFM_ENOTSUP), and changes nothing;
 *  - a DLL that is not GE's (kernel32.dll) is refused, naming a call it
 *    lacks;
 *  - with librfm2g's own rfm2g.dll standing in for GE's (RFM_RFM2G_DLL;
 *    it opens an emulated board, $RFM_URI), an rfm2g: node and a shm:
 *    node of that network exchange memory and interrupts both ways.
 */
#include "config.h"

#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/rfm.h>

#define DEVICE "rfm2g:\\\\.\\rfm2g0"
#define SECOND (INT64_C(1000000000))

static int failures;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "test-rfm2g-backend-win: FAIL: "); \
			fprintf(stderr, __VA_ARGS__);                      \
			fprintf(stderr, " (%s)\n", rfm_last_error());      \
			failures++;                                        \
		}                                                          \
	} while (0)

static void set_env(const char *name, const char *value)
{
	char text[600];

	snprintf(text, sizeof(text), "%s=%s", name, value);
	_putenv(text);
}

static void missing_dll(void)
{
	rfm_node *node = NULL;
	int ret;

	set_env("RFM_RFM2G_DLL", "");
	ret = rfm_open(DEVICE, &node);
	CHECK(ret == RFM_ENOTSUP && !node, "open without GE's DLL gave %d", ret);
	CHECK(strstr(rfm_last_error(), "rfm2gdll_stdc_64.dll") &&
		      strstr(rfm_last_error(), "install GE's RFM2g Windows driver package"),
	      "the message names neither the DLL nor what to install");
	printf("test-rfm2g-backend-win: without the DLL: %s\n", rfm_last_error());

	set_env("RFM_RFM2G_DLL", "kernel32.dll");
	ret = rfm_open(DEVICE, &node);
	CHECK(ret == RFM_ENOTSUP && !node, "open with kernel32.dll gave %d", ret);
	CHECK(strstr(rfm_last_error(), "exports no RFM2gOpen"), "kernel32.dll was not refused");
}

static void stand_in(void)
{
	char dll[MAX_PATH], uri[128], env[200], text[16] = "";
	rfm_node *card = NULL, *peer = NULL;
	struct rfm_event ev;
	uint32_t v = 0;

	GetFullPathNameA("src\\librfm2g\\.libs\\rfm2g.dll", sizeof(dll), dll, NULL);
	set_env("RFM_RFM2G_DLL", dll);
	snprintf(uri, sizeof(uri), "shm:r2g-backend-%lu", GetCurrentProcessId());
	snprintf(env, sizeof(env), "%s?size=1M", uri);
	set_env("RFM_URI", env);	/* where the stand-in's board 0 is */
	if (rfm_open(DEVICE, &card)) {
		CHECK(0, "open " DEVICE " through %s", dll);
		return;
	}
	if (rfm_open(uri, &peer)) {
		CHECK(0, "open %s", uri);
		rfm_close(card);
		return;
	}
	CHECK(rfm_node_size(card) == 1u << 20, "the card's window is %llu bytes",
	      (unsigned long long)rfm_node_size(card));
	CHECK(rfm_node_id(card) != rfm_node_id(peer), "both nodes have id %d", rfm_node_id(card));
	/* Memory both ways. */
	CHECK(rfm_mem_write(card, 0x100, "rfm2g:", 6) == 0, "write through rfm2g:");
	CHECK(rfm_mem_read(peer, 0x100, text, 6) == 0 && !memcmp(text, "rfm2g:", 6),
	      "the shm: node reads '%s'", text);
	CHECK(rfm_mem_poke32(peer, 0x200, 0xC0FFEE) == 0, "poke through shm:");
	CHECK(rfm_mem_peek32(card, 0x200, &v) == 0 && v == 0xC0FFEE, "rfm2g: reads 0x%x", v);
	/* Interrupts both ways. */
	CHECK(rfm_event_enable(card, RFM_EVENT_BIT(RFM_EVENT_INTR1)) == 0, "enable on rfm2g:");
	CHECK(rfm_event_enable(peer, RFM_EVENT_BIT(RFM_EVENT_INTR2)) == 0, "enable on shm:");
	CHECK(rfm_event_send(peer, (unsigned int)rfm_node_id(card), RFM_EVENT_INTR1, 0x1111) >= 0,
	      "send to the rfm2g: node");
	memset(&ev, 0, sizeof(ev));
	CHECK(rfm_event_wait(card, &ev, 10 * SECOND) == 0 && ev.type == RFM_EVENT_INTR1 &&
		      ev.sender == (uint32_t)rfm_node_id(peer) && ev.data == 0x1111,
	      "the rfm2g: node took type %u from %u with 0x%x", ev.type, ev.sender, ev.data);
	CHECK(rfm_event_send(card, (unsigned int)rfm_node_id(peer), RFM_EVENT_INTR2, 0x2222) >= 0,
	      "send from the rfm2g: node");
	memset(&ev, 0, sizeof(ev));
	CHECK(rfm_event_wait(peer, &ev, 10 * SECOND) == 0 && ev.type == RFM_EVENT_INTR2 &&
		      ev.sender == (uint32_t)rfm_node_id(card) && ev.data == 0x2222,
	      "the shm: node took type %u from %u with 0x%x", ev.type, ev.sender, ev.data);
	/* Disabling stops the waiter thread: the close below must not hang. */
	CHECK(rfm_event_disable(card, RFM_EVENT_BIT(RFM_EVENT_INTR1)) == 0, "disable");
	rfm_close(card);
	rfm_close(peer);
	CHECK(rfm_network_destroy(uri, 0) == 0, "destroy %s", uri);
	printf("test-rfm2g-backend-win: " DEVICE " through %s: memory and interrupts both ways\n",
	       dll);
}

int main(void)
{
	missing_dll();
	stand_in();
	return failures ? 1 : 0;
}
