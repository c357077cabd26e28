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
 * On rfm2g: every register set goes to the card through the driver's
 * READ_REG / WRITE_REG / SET_REG / CLEAR_REG ioctls.
 */
#include <string.h>

#include "compat.h"

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

static uint32_t ctrl_read(const struct rfm2g_compat *h, RFM2G_UINT32 offset, RFM2G_UINT32 width)
{
	uint8_t regs[RFM2G_REGSIZE];
	uint32_t v = 0;

	rfm2g__ctrl_image(h, regs);
	memcpy(&v, &regs[offset], width);
	return v;
}

static uint32_t cfg_read(const struct rfm2g_compat *h, RFM2G_UINT32 offset, RFM2G_UINT32 width)
{
	uint8_t regs[RFM2G_COMPAT_CFG_SIZE];
	uint32_t v = 0;

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
	h->led = v & RFM2G_LCSR_LED;
	h->tx_disabled = v & RFM2G_LCSR_TXDIS;
	h->dark_on_dark = v & RFM2G_LCSR_DARK_ON_DARK;
	h->loopback = v & RFM2G_LCSR_LOOPBACK;
	h->parity = v & RFM2G_LCSR_PARITY;
	h->own_data = v & RFM2G_LCSR_OWN_DATA;
	h->mem_offset = ((v & RFM2G_LCSR_OFF0) ? 1u : 0u) | ((v & RFM2G_LCSR_OFF1) ? 2u : 0u);
}

enum reg_op { REG_WRITE, REG_SET, REG_CLEAR };

static RFM2G_STATUS reg_modify(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 offset,
			       RFM2G_UINT32 width, RFM2G_UINT32 value, enum reg_op op)
{
	uint32_t old = 0, v;

	RFM2G_ENTER(h, rh);
	st_ = check_reg(h, regset, offset, width);
	if (st_ != RFM2G_SUCCESS)
		goto out;
	if (h->hwfd >= 0) {
		RFM2GLINUXREGINFO ri = { .regset = regset, .Offset = offset, .Width = width,
					 .Value = value };
		unsigned long request = op == REG_WRITE ? IOCTL_RFM2G_WRITE_REG :
					op == REG_SET	? IOCTL_RFM2G_SET_REG :
							  IOCTL_RFM2G_CLEAR_REG;

		if (!rfm2g__hw_ioctl(h, request, &ri))
			st_ = RFM2G_OS_ERROR;
		goto out;
	}
	pthread_mutex_lock(&h->lock);
	if (regset == RFM2GMEM) {
		st_ = mem_read(h, offset, width, &old);
		v = op == REG_WRITE ? value : op == REG_SET ? old | value : old & ~value;
		if (st_ == RFM2G_SUCCESS && rfm_mem_write(h->node, offset, &v, width) != 0)
			st_ = RFM2G_OS_ERROR;
	} else if (regset == RFM2GCTRLREGMEM && offset == rfm2g_lcsr && width == 4) {
		old = rfm2g__lcsr(h);
		v = op == REG_WRITE ? value : op == REG_SET ? old | value : old & ~value;
		set_lcsr_locked(h, (old & ~LCSR_WRITABLE) | (v & LCSR_WRITABLE));
	} else {
		st_ = RFM2G_NOT_SUPPORTED;
	}
	pthread_mutex_unlock(&h->lock);
out:
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gWriteReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			   RFM2G_UINT32 Width, RFM2G_UINT32 Value)
{
	return reg_modify(rh, regset, Offset, Width, Value, REG_WRITE);
}

STDRFM2GCALL RFM2gSetReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			 RFM2G_UINT32 Width, RFM2G_UINT32 Mask)
{
	return reg_modify(rh, regset, Offset, Width, Mask, REG_SET);
}

STDRFM2GCALL RFM2gClearReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			   RFM2G_UINT32 Width, RFM2G_UINT32 Mask)
{
	return reg_modify(rh, regset, Offset, Width, Mask, REG_CLEAR);
}

STDRFM2GCALL RFM2gReadReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			  RFM2G_UINT32 Width, void *Value)
{
	uint32_t v = 0;

	RFM2G_ENTER(h, rh);
	st_ = check_reg(h, regset, Offset, Width);
	if (st_ == RFM2G_SUCCESS && !Value)
		st_ = RFM2G_BAD_PARAMETER_5;
	if (st_ == RFM2G_SUCCESS && h->hwfd >= 0) {
		RFM2GLINUXREGINFO ri = { .regset = regset, .Offset = Offset, .Width = Width };

		if (rfm2g__hw_ioctl(h, IOCTL_RFM2G_READ_REG, &ri))
			v = ri.Value;
		else
			st_ = RFM2G_OS_ERROR;
	} else if (st_ == RFM2G_SUCCESS) {
		pthread_mutex_lock(&h->lock);
		if (regset == RFM2GMEM)
			st_ = mem_read(h, Offset, Width, &v);
		else if (regset == RFM2GCTRLREGMEM)
			v = ctrl_read(h, Offset, Width);
		else
			v = cfg_read(h, Offset, Width);
		pthread_mutex_unlock(&h->lock);
	}
	if (st_ == RFM2G_SUCCESS)
		memcpy(Value, &v, Width);	/* 1, 2 or 4 bytes, little-endian */
	rfm2g__put(h);
	return st_;
}
