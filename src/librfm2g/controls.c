/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The board controls of a 5565: its switches (LED, transmitter,
 * dark-on-dark, loopback, parity, byte swapping), its values (memory
 * offset, DMA threshold, the driver's debug flags), the ring test and the
 * own-data bit.
 *
 * On rfm2g: they are the card's, through the node's board op (any
 * failure: RFM2G_OS_ERROR, as the vendor library). Elsewhere they are
 * kept per handle as the state of an emulated board: they read back what
 * was set and show in Lcsr1, and change nothing on the network.
 */
#include "librfm2g/compat.h"

static RFM2G_BOOL on_off(bool on)
{
	return on ? RFM2G_ON : RFM2G_OFF;
}

/*
 * Read a switch into *@out. @invert: the API asks the opposite of the
 * board's bit (RFM2gGetTransmit() of "transmitter disabled").
 */
static RFM2G_STATUS get_switch(RFM2GHANDLE rh, enum rfm_board_flag flag, bool invert,
			       RFM2G_BOOL *out)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, out != NULL, RFM2G_BAD_PARAMETER_2, &h);
	bool on = false;

	if (st != RFM2G_SUCCESS)
		return st;
	if (h->board) {
		if (h->board->get_flag(h->node, flag, &on) != 0)
			st = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		on = h->flag[flag];
		pthread_mutex_unlock(&h->lock);
	}
	if (st == RFM2G_SUCCESS)
		*out = on_off(on != invert);
	rfm2g__put(h);
	return st;
}

/*
 * Set a switch. Byte swapping serves big-endian hosts on the
 * little-endian RFM memory; librfm's emulated boards have no swapping
 * hardware, so only OFF is accepted there.
 */
static RFM2G_STATUS set_switch(RFM2GHANDLE rh, enum rfm_board_flag flag, bool invert,
			       RFM2G_BOOL value)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);
	bool on = (value != 0) != invert;
	bool swap = flag == RFM__BOARD_DMA_SWAP || flag == RFM__BOARD_PIO_SWAP;

	if (st != RFM2G_SUCCESS)
		return st;
	if (h->board) {
		if (h->board->set_flag(h->node, flag, on) != 0)
			st = RFM2G_OS_ERROR;
	} else if (swap && on) {
		st = RFM2G_NOT_SUPPORTED;
	} else {
		pthread_mutex_lock(&h->lock);
		h->flag[flag] = on;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gGetDMAByteSwap(RFM2GHANDLE rh, RFM2G_BOOL *byteSwap)
{
	return get_switch(rh, RFM__BOARD_DMA_SWAP, false, byteSwap);
}

STDRFM2GCALL RFM2gSetDMAByteSwap(RFM2GHANDLE rh, RFM2G_BOOL byteSwap)
{
	return set_switch(rh, RFM__BOARD_DMA_SWAP, false, byteSwap);
}

STDRFM2GCALL RFM2gGetPIOByteSwap(RFM2GHANDLE rh, RFM2G_BOOL *byteSwap)
{
	return get_switch(rh, RFM__BOARD_PIO_SWAP, false, byteSwap);
}

STDRFM2GCALL RFM2gSetPIOByteSwap(RFM2GHANDLE rh, RFM2G_BOOL byteSwap)
{
	return set_switch(rh, RFM__BOARD_PIO_SWAP, false, byteSwap);
}

STDRFM2GCALL RFM2gGetLed(RFM2GHANDLE rh, RFM2G_BOOL *Led)
{
	return get_switch(rh, RFM__BOARD_LED, false, Led);
}

STDRFM2GCALL RFM2gSetLed(RFM2GHANDLE rh, RFM2G_BOOL Led)
{
	return set_switch(rh, RFM__BOARD_LED, false, Led);
}

STDRFM2GCALL RFM2gGetDarkOnDark(RFM2GHANDLE rh, RFM2G_BOOL *state)
{
	return get_switch(rh, RFM__BOARD_DARK_ON_DARK, false, state);
}

STDRFM2GCALL RFM2gSetDarkOnDark(RFM2GHANDLE rh, RFM2G_BOOL state)
{
	return set_switch(rh, RFM__BOARD_DARK_ON_DARK, false, state);
}

STDRFM2GCALL RFM2gGetTransmit(RFM2GHANDLE rh, RFM2G_BOOL *state)
{
	return get_switch(rh, RFM__BOARD_TX_DISABLE, true, state);
}

STDRFM2GCALL RFM2gSetTransmit(RFM2GHANDLE rh, RFM2G_BOOL state)
{
	return set_switch(rh, RFM__BOARD_TX_DISABLE, true, state);
}

STDRFM2GCALL RFM2gGetLoopback(RFM2GHANDLE rh, RFM2G_BOOL *state)
{
	return get_switch(rh, RFM__BOARD_LOOPBACK, false, state);
}

STDRFM2GCALL RFM2gSetLoopback(RFM2GHANDLE rh, RFM2G_BOOL state)
{
	return set_switch(rh, RFM__BOARD_LOOPBACK, false, state);
}

STDRFM2GCALL RFM2gGetParityEnable(RFM2GHANDLE rh, RFM2G_BOOL *state)
{
	return get_switch(rh, RFM__BOARD_PARITY, false, state);
}

STDRFM2GCALL RFM2gSetParityEnable(RFM2GHANDLE rh, RFM2G_BOOL state)
{
	return set_switch(rh, RFM__BOARD_PARITY, false, state);
}

/*
 * Where the emulated board keeps value @what: in the handle, except the
 * driver's debug flags, which are global as the driver's. Accessed
 * atomically (and under the handle's lock, for the handle's readers).
 */
static uint32_t *soft_value(struct rfm2g_compat *h, enum rfm_board_value what)
{
	static uint32_t debug_flags = RFM2G_DBERROR;

	if (what == RFM__BOARD_MEMORY_OFFSET)
		return &h->mem_offset;
	if (what == RFM__BOARD_DMA_THRESHOLD)
		return &h->dma_threshold;
	return &debug_flags;
}

/* Read value @what into the @width-byte integer at @out: the handle, then @out. */
static RFM2G_STATUS get_value(RFM2GHANDLE rh, enum rfm_board_value what, void *out,
			      size_t width)
{
	uint32_t v = 0;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, out != NULL, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (h->board) {
		if (h->board->get_value(h->node, what, &v) != 0)
			st = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		v = __atomic_load_n(soft_value(h, what), __ATOMIC_RELAXED);
		pthread_mutex_unlock(&h->lock);
	}
	if (st == RFM2G_SUCCESS)
		rfm2g__store(out, width, v);
	rfm2g__put(h);
	return st;
}

/*
 * Set value @what to @v: the handle, then @valid (else RFM2G_BAD_PARAMETER_2).
 * The DMA threshold is also kept here on a card, for the DMA path of
 * RFM2gRead/Write.
 */
static RFM2G_STATUS set_value(RFM2GHANDLE rh, enum rfm_board_value what, uint32_t v, bool valid)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, valid, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (h->board && h->board->set_value(h->node, what, v) != 0) {
		st = RFM2G_OS_ERROR;
	} else if (!h->board || what == RFM__BOARD_DMA_THRESHOLD) {
		pthread_mutex_lock(&h->lock);
		__atomic_store_n(soft_value(h, what), v, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gGetMemoryOffset(RFM2GHANDLE rh, RFM2G_MEM_OFFSETTYPE *offset)
{
	return get_value(rh, RFM__BOARD_MEMORY_OFFSET, offset, sizeof(*offset));
}

STDRFM2GCALL RFM2gSetMemoryOffset(RFM2GHANDLE rh, RFM2G_MEM_OFFSETTYPE offset)
{
	return set_value(rh, RFM__BOARD_MEMORY_OFFSET, (uint32_t) offset,
			 (unsigned int) offset <= RFM2G_MEM_OFFSET3);
}

STDRFM2GCALL RFM2gSetDMAThreshold(RFM2GHANDLE rh, RFM2G_UINT32 value)
{
	return set_value(rh, RFM__BOARD_DMA_THRESHOLD, value, true);
}

STDRFM2GCALL RFM2gGetDebugFlags(RFM2GHANDLE rh, RFM2G_UINT32 *Flags)
{
	return get_value(rh, RFM__BOARD_DEBUG_FLAGS, Flags, sizeof(*Flags));
}

STDRFM2GCALL RFM2gSetDebugFlags(RFM2GHANDLE rh, RFM2G_UINT32 Flags)
{
	return set_value(rh, RFM__BOARD_DEBUG_FLAGS, Flags, true);
}

STDRFM2GCALL RFM2gCheckRingCont(RFM2GHANDLE rh)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (h->board) {
		if (h->board->ring_test(h->node) != 0)
			st = RFM2G_LINK_TEST_FAIL;
		rfm2g__put(h);
		return st;
	}
	pthread_mutex_lock(&h->lock);
	/* Own data comes back round the ring unless the transmitter is off. */
	if (h->flag[RFM__BOARD_TX_DISABLE])
		st = RFM2G_LINK_TEST_FAIL;
	else
		h->own_data = true;
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gClearOwnData(RFM2GHANDLE rh, RFM2G_BOOL *state)
{
	bool was_set = false;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, state != NULL, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!h->board) {
		pthread_mutex_lock(&h->lock);
		was_set = h->own_data;
		h->own_data = false;
		pthread_mutex_unlock(&h->lock);
	} else if (h->board->clear_own_data(h->node, &was_set) != 0) {
		st = RFM2G_OS_ERROR;
	}
	if (st == RFM2G_SUCCESS)
		*state = on_off(was_set);
	rfm2g__put(h);
	return st;
}
