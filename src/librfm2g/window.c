/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sliding window of a 5565 (board revision 0x8C and later): the part
 * of the board's memory the host's window shows. On rfm2g: read from the
 * card's PLX registers and moved by its driver, as the vendor library
 * does; an emulated board's window is the whole memory, at offset 0.
 */
#include "librfm2g/compat.h"

/* Sliding-window size from the PLX range register, 0 if unknown. */
static RFM2G_UINT32 window_of_range(RFM2G_UINT32 las1rr)
{
	switch (las1rr) {
	case 0xFFE00000u: return 2u << 20;
	case 0xFF000000u: return 16u << 20;
	case 0xFC000000u: return 64u << 20;
	case 0xF8000000u: return 128u << 20;
	case 0xF0000000u: return 256u << 20;
	default: return 0;
	}
}

/* The card's window (rfm2g:), as the vendor library reads it: rev, LAS1BA, LAS1RR. */
static RFM2G_STATUS hw_window(struct rfm2g_compat *h, RFM2G_UINT32 *base, RFM2G_UINT32 *size,
			      RFM2G_UINT32 *installed)
{
	uint32_t las1ba = 0, las1rr = 0;
	RFM2GCONFIG c;

	if (h->board->get_config(h->node, &c) != 0)
		return RFM2G_OS_ERROR;
	if (c.BoardRevision < 0x8C)
		return RFM2G_NOT_SUPPORTED;
	if (h->board->reg(h->node, RFM__BOARD_REG_READ, RFM2GCFGREGMEM, rfmor_las1ba, 4,
			  &las1ba) != 0 ||
	    h->board->reg(h->node, RFM__BOARD_REG_READ, RFM2GCFGREGMEM, rfmor_las1rr, 4,
			  &las1rr) != 0)
		return RFM2G_OS_ERROR;
	*base = las1ba & ~RFMOR_LAS1BA_ENABLE;
	*size = window_of_range(las1rr);
	*installed = c.MemorySize;
	return *size ? RFM2G_SUCCESS : RFM2G_DRIVER_ERROR;
}

/* Emulated boards: the window is the whole memory, at offset 0. */
STDRFM2GCALL RFM2gGetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 *offset, RFM2G_UINT32 *size)
{
	RFM2G_UINT32 base = 0, win = 0, installed = 0;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, offset != NULL, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (h->board)
		st = hw_window(h, &base, &win, &installed);
	else if (h->pub.Config.BoardRevision < 0x8C)
		st = RFM2G_NOT_SUPPORTED;	/* as the vendor: no window register */
	else
		win = h->pub.Config.MemorySize;
	if (st == RFM2G_SUCCESS || st == RFM2G_DRIVER_ERROR) {
		*offset = base;
		if (size)
			*size = win;
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gSetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 offset)
{
	RFM2G_UINT32 base = 0, window, installed;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	window = installed = h->pub.Config.MemorySize;
	if (!h->board && h->pub.Config.BoardRevision < 0x8C)
		st = RFM2G_NOT_SUPPORTED;
	if (h->board) {
		st = hw_window(h, &base, &window, &installed);
		if (st == RFM2G_OS_ERROR)
			st = RFM2G_DRIVER_ERROR;	/* the vendor's answer for this call */
	}
	if (st == RFM2G_SUCCESS) {
		if (window == 0 || offset % window)
			st = RFM2G_BAD_PARAMETER_2;
		else if (offset > installed || (uint64_t) offset + window > installed)
			st = RFM2G_OUT_OF_RANGE;
		else if (h->board &&
			 h->board->set_value(h->node, RFM__BOARD_WINDOW_OFFSET, offset) != 0)
			st = RFM2G_DRIVER_ERROR;
	}
	rfm2g__put(h);
	return st;
}
