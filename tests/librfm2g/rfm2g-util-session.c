/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GE's rfm2g_util session as a program: the commands a site types at
 * "UTIL0 >" to look at a board (size, boardid, peeks of the last words,
 * getslidingwindow / setslidingwindow, readreg of the LCSR and the PLX
 * window range), then what an orbit-feedback controller does at its fixed
 * offsets 0x01000000..0x03000000. Each check prints "ok" or "FAIL" with
 * the values; the exit status is the number of failures.
 *
 * Usage: rfm2g-util-session DEVICE [BYTES]   (BYTES: the board expected,
 * default 64 MiB, the default emulated board)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfm2g_api.h"
#include "rfm2g_regs.h"

static int failures;

static void check(int ok, const char *what, unsigned long long got, unsigned long long want)
{
	printf("%s %s: 0x%llx (want 0x%llx)\n", ok ? "ok" : "FAIL", what, got, want);
	failures += !ok;
}

static void check_st(RFM2G_STATUS st, const char *what)
{
	printf("%s %s: %s\n", st == RFM2G_SUCCESS ? "ok" : "FAIL", what, RFM2gErrorMsg(st));
	failures += st != RFM2G_SUCCESS;
}

/* The LCSR's memory size field (bits 21:20) of each 5565 model. */
static unsigned int memsize_field(RFM2G_UINT32 bytes)
{
	switch (bytes >> 20) {
	case 64: return 0;
	case 128: return 1;
	case 256: return 2;
	default: return 3;
	}
}

static void session(RFM2GHANDLE h, RFM2G_UINT32 want)
{
	RFM2G_UINT32 size = 0, v = 0, off = 1, win = 0, lcsr = 0, las1rr = 0;
	RFM2G_UINT64 v64 = 0;
	RFM2G_UINT8 bid = 0, b = 0;
	RFM2GCONFIG cfg;

	check_st(RFM2gSize(h, &size), "size");
	check(size == want, "size", size, want);
	check_st(RFM2gGetConfig(h, &cfg), "config");
	check(cfg.MemorySize == want, "config MemorySize", cfg.MemorySize, want);
	check_st(RFM2gBoardID(h, &bid), "boardid");
	check(bid == 0x65, "boardid", bid, 0x65);
	/* The last words of the board: poke them, peek them back. */
	check_st(RFM2gPoke32(h, want - 4, 0xC0FFEE01u), "poke32 last word");
	check_st(RFM2gPeek32(h, want - 4, &v), "peek32 last word");
	check(v == 0xC0FFEE01u, "peek32 last word", v, 0xC0FFEE01u);
	check_st(RFM2gPeek8(h, want - 1, &b), "peek8 last byte");
	check(b == 0xC0, "peek8 last byte", b, 0xC0);
	check_st(RFM2gPeek64(h, want - 8, &v64), "peek64 last double word");
	check((v64 >> 32) == 0xC0FFEE01u, "peek64 last double word", v64 >> 32, 0xC0FFEE01u);
	/* One past the end is refused, as on the card. */
	check(RFM2gPeek32(h, want, &v) == RFM2G_OUT_OF_RANGE, "peek32 past the end",
	      RFM2gPeek32(h, want, &v), RFM2G_OUT_OF_RANGE);
	/* getslidingwindow: "64 MByte window begins at offset 0". */
	check_st(RFM2gGetSlidingWindow(h, &off, &win), "getslidingwindow");
	check(off == 0 && win == want, "sliding window size", win, want);
	check_st(RFM2gSetSlidingWindow(h, 0), "setslidingwindow 0");
	/* readreg 2 0x08 4 (LCSR) and readreg 1 0xF0 4 (LAS1RR). */
	check_st(RFM2gReadReg(h, RFM2GCTRLREGMEM, rfm2g_lcsr, 4, &lcsr), "readreg lcsr");
	check((lcsr >> RFM2G_LCSR_MEMSIZE_SHIFT & 3) == memsize_field(want), "lcsr memory size",
	      lcsr >> RFM2G_LCSR_MEMSIZE_SHIFT & 3, memsize_field(want));
	check_st(RFM2gReadReg(h, RFM2GCFGREGMEM, rfmor_las1rr, 4, &las1rr), "readreg las1rr");
	check(las1rr == ~(want - 1u), "las1rr", las1rr, ~(want - 1u));
}

/* The orbit-feedback controller's blocks at fixed offsets up to 0x03000000. */
static void feedback_blocks(RFM2GHANDLE h, RFM2GHANDLE other)
{
	static const RFM2G_UINT32 offsets[] = { 0x01000000u, 0x02000000u, 0x03000000u };
	RFM2G_UINT32 out[256], in[256];

	for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
		char what[64];

		for (unsigned int i = 0; i < 256; i++)
			out[i] = offsets[k] + i;
		memset(in, 0, sizeof(in));
		snprintf(what, sizeof(what), "write 1 KiB at 0x%08X", offsets[k]);
		check_st(RFM2gWrite(h, offsets[k], out, sizeof(out)), what);
		snprintf(what, sizeof(what), "read it on a second handle");
		check_st(RFM2gRead(other, offsets[k], in, sizeof(in)), what);
		check(!memcmp(in, out, sizeof(in)), "same words", in[255], out[255]);
	}
}

int main(int argc, char **argv)
{
	RFM2GHANDLE h = NULL, other = NULL;
	RFM2G_UINT32 want = argc > 2 ? (RFM2G_UINT32) strtoul(argv[2], NULL, 0) : 64u << 20;
	RFM2G_STATUS st;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE [BYTES]\n", argv[0]);
		return 2;
	}
	st = RFM2gOpen(argv[1], &h);
	if (st != RFM2G_SUCCESS) {
		printf("FAIL open %s: %s\n", argv[1], RFM2gErrorMsg(st));
		return 1;
	}
	session(h, want);
	if (want > 0x03000000u + 1024u) {
		check_st(RFM2gOpen(argv[1], &other), "second open");
		if (other)
			feedback_blocks(h, other);
		RFM2gClose(&other);
	}
	RFM2gClose(&h);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
