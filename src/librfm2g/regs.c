/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g register access on librfm networks.
 *
 * RFM2GMEM is the reflective memory itself: single accesses of the given
 * width. The control registers (RFM2GCTRLREGMEM) of the emulated board
 * read as a 5565 would (revision, board id, node id, LCSR, interrupt
 * enables, pending interrupts and their senders: views.c), and the LCSR
 * control bits can be written, set and cleared (the same soft state as the
 * RFM2gSet* calls). PLX registers (RFM2GCFGREGMEM) read what librfm can
 * tell (byte order, the sliding window) and are not writable.
 * On rfm2g: every register set goes to the card through the backend's
 * board op (the driver's READ_REG / WRITE_REG / SET_REG / CLEAR_REG).
 */
#include <string.h>

#include "librfm2g/compat.h"

#define CFG_LIMIT RFM2G_COMPAT_CFG_SIZE
/* LCSR bits software may change. */
#define LCSR_WRITABLE                                                              \
	(RFM2G_LCSR_LED | RFM2G_LCSR_TXDIS | RFM2G_LCSR_DARK_ON_DARK | RFM2G_LCSR_LOOPBACK | \
	 RFM2G_LCSR_PARITY | RFM2G_LCSR_OFF0 | RFM2G_LCSR_OFF1 | RFM2G_LCSR_OWN_DATA)

/* Width, then register set and offset, as documented. */
static RFM2G_STATUS check_reg(const struct rfm2g_compat *h, RFM2GREGSETTYPE regset,
			      RFM2G_UINT32 offset, RFM2G_UINT32 width)
{
	uint64_t limit;

	if (width != 1 && width != 2 && width != 4)
		return RFM2G_BAD_PARAMETER_4;
	switch (regset) {
	case RFM2GCFGREGMEM:
		limit = CFG_LIMIT;
		break;
	case RFM2GCTRLREGMEM:
		limit = RFM2G_REGSIZE;
		break;
	case RFM2GMEM:
		limit = h->pub.Config.MemorySize;
		break;
	default:
		return RFM2G_BAD_PARAMETER_2;
	}
	if ((uint64_t) offset + width > limit)
		return RFM2G_BAD_PARAMETER_3;
	return RFM2G_SUCCESS;
}

/* The emulated board's register at @offset of @regset (RFM2GCTRLREGMEM or RFM2GCFGREGMEM). */
static uint32_t image_read(const struct rfm2g_compat *h, RFM2GREGSETTYPE regset,
			   RFM2G_UINT32 offset, RFM2G_UINT32 width)
{
	uint8_t regs[RFM2G_COMPAT_CFG_SIZE > RFM2G_REGSIZE ? RFM2G_COMPAT_CFG_SIZE : RFM2G_REGSIZE];
	uint32_t v = 0;

	if (regset == RFM2GCTRLREGMEM)
		rfm2g__ctrl_image(h, regs);
	else
		rfm2g__cfg_image(h, regs);
	memcpy(&v, &regs[offset], width);
	return v;
}

static RFM2G_STATUS mem_read(struct rfm2g_compat *h, RFM2G_UINT32 offset, RFM2G_UINT32 width,
			     uint32_t *v)
{
	*v = 0;
	return rfm_mem_read(h->node, offset, v, width) ? RFM2G_OS_ERROR : RFM2G_SUCCESS;
}

static void set_lcsr_locked(struct rfm2g_compat *h, uint32_t v)
{
	h->flag[RFM__BOARD_LED] = v & RFM2G_LCSR_LED;
	h->flag[RFM__BOARD_TX_DISABLE] = v & RFM2G_LCSR_TXDIS;
	h->flag[RFM__BOARD_DARK_ON_DARK] = v & RFM2G_LCSR_DARK_ON_DARK;
	h->flag[RFM__BOARD_LOOPBACK] = v & RFM2G_LCSR_LOOPBACK;
	h->flag[RFM__BOARD_PARITY] = v & RFM2G_LCSR_PARITY;
	h->own_data = v & RFM2G_LCSR_OWN_DATA;
	h->mem_offset = ((v & RFM2G_LCSR_OFF0) ? 1u : 0u) | ((v & RFM2G_LCSR_OFF1) ? 2u : 0u);
}

/* A register's value after a write, set or clear of @arg. */
static uint32_t modified(uint32_t old, uint32_t arg, enum rfm_board_reg_op op)
{
	if (op == RFM__BOARD_REG_SET)
		return old | arg;
	if (op == RFM__BOARD_REG_CLEAR)
		return old & ~arg;
	return arg;
}

static RFM2G_STATUS reg_modify(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 offset,
			       RFM2G_UINT32 width, RFM2G_UINT32 value, enum rfm_board_reg_op op)
{
	uint32_t old = 0, v;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	st = check_reg(h, regset, offset, width);
	if (st != RFM2G_SUCCESS)
		goto out;
	if (h->board) {
		v = value;
		if (h->board->reg(h->node, op, regset, offset, width, &v) != 0)
			st = RFM2G_OS_ERROR;
		goto out;
	}
	pthread_mutex_lock(&h->lock);
	if (regset == RFM2GMEM) {
		st = mem_read(h, offset, width, &old);
		v = modified(old, value, op);
		if (st == RFM2G_SUCCESS && rfm_mem_write(h->node, offset, &v, width) != 0)
			st = RFM2G_OS_ERROR;
	} else if (regset == RFM2GCTRLREGMEM && offset == rfm2g_lcsr && width == 4) {
		old = rfm2g__lcsr(h);
		v = modified(old, value, op);
		set_lcsr_locked(h, (old & ~LCSR_WRITABLE) | (v & LCSR_WRITABLE));
	} else {
		st = RFM2G_NOT_SUPPORTED;
	}
	pthread_mutex_unlock(&h->lock);
out:
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gWriteReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			   RFM2G_UINT32 Width, RFM2G_UINT32 Value)
{
	return reg_modify(rh, regset, Offset, Width, Value, RFM__BOARD_REG_WRITE);
}

STDRFM2GCALL RFM2gSetReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			 RFM2G_UINT32 Width, RFM2G_UINT32 Mask)
{
	return reg_modify(rh, regset, Offset, Width, Mask, RFM__BOARD_REG_SET);
}

STDRFM2GCALL RFM2gClearReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			   RFM2G_UINT32 Width, RFM2G_UINT32 Mask)
{
	return reg_modify(rh, regset, Offset, Width, Mask, RFM__BOARD_REG_CLEAR);
}

STDRFM2GCALL RFM2gReadReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			  RFM2G_UINT32 Width, void *Value)
{
	uint32_t v = 0;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	st = check_reg(h, regset, Offset, Width);
	if (st == RFM2G_SUCCESS && !Value)
		st = RFM2G_BAD_PARAMETER_5;
	if (st == RFM2G_SUCCESS && h->board) {
		if (h->board->reg(h->node, RFM__BOARD_REG_READ, regset, Offset, Width, &v) != 0)
			st = RFM2G_OS_ERROR;
	} else if (st == RFM2G_SUCCESS) {
		pthread_mutex_lock(&h->lock);
		if (regset == RFM2GMEM)
			st = mem_read(h, Offset, Width, &v);
		else
			v = image_read(h, regset, Offset, Width);
		pthread_mutex_unlock(&h->lock);
	}
	if (st == RFM2G_SUCCESS)
		memcpy(Value, &v, Width);	/* 1, 2 or 4 bytes, little-endian */
	rfm2g__put(h);
	return st;
}
