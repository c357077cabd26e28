/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g configuration and board controls.
 *
 * Facts a librfm node has (node id, size, device name) come from the node.
 * The board controls of a 5565 (LED, transmitter, dark-on-dark, loopback,
 * parity, memory offset, own-data bit, byte swapping, DMA threshold, debug
 * flags) are kept per handle as the state of an emulated board: they read
 * back what was set and show in Lcsr1, and change nothing on the network.
 * On rfm2g: they are the card's, through the vendor driver's ioctls (any
 * failure: RFM2G_OS_ERROR, as the vendor library), except the DMA
 * threshold, which librfm's own descriptor uses (URI dma_threshold=).
 */
#include <stdio.h>
#include <string.h>

#include "compat.h"

static pthread_mutex_t debug_lock = PTHREAD_MUTEX_INITIALIZER;
static RFM2G_UINT32 debug_flags = RFM2G_DBERROR;	/* driver-global, as the driver's */

uint32_t rfm2g__lcsr(const struct rfm2g_compat *h)
{
	uint32_t v = RFM2G_LCSR_SIGNAL_DETECT;	/* the emulated ring is always closed */
	uint64_t mib = h->size >> 20;

	if (mib == 128)
		v |= 1u << RFM2G_LCSR_MEMSIZE_SHIFT;
	else if (mib == 256)
		v |= 2u << RFM2G_LCSR_MEMSIZE_SHIFT;
	else if (mib != 64)
		v |= 3u << RFM2G_LCSR_MEMSIZE_SHIFT;
	if (h->led)
		v |= RFM2G_LCSR_LED;
	if (h->tx_disabled)
		v |= RFM2G_LCSR_TXDIS;
	if (h->dark_on_dark)
		v |= RFM2G_LCSR_DARK_ON_DARK;
	if (h->loopback)
		v |= RFM2G_LCSR_LOOPBACK;
	if (h->parity)
		v |= RFM2G_LCSR_PARITY;
	if (h->mem_offset & 1)
		v |= RFM2G_LCSR_OFF0;
	if (h->mem_offset & 2)
		v |= RFM2G_LCSR_OFF1;
	if (h->own_data)
		v |= RFM2G_LCSR_OWN_DATA;
	return v;
}

STDRFM2GCALL RFM2gGetConfig(RFM2GHANDLE rh, RFM2GCONFIG *Config)
{
	RFM2G_ENTER(h, rh);
	if (!Config) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else if (h->hwfd >= 0) {
		if (!rfm2g__hw_ioctl(h, IOCTL_RFM2G_GET_CONFIG, Config))	/* Lcsr1 is live */
			st_ = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		h->pub.Config.Lcsr1 = rfm2g__lcsr(h);	/* live, as from the driver */
		*Config = h->pub.Config;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st_;
}

/* Getters of one cached fact: NULL → BAD_PARAMETER_2. */
#define DEFINE_GET(name, type, expr)                                          \
	STDRFM2GCALL name(RFM2GHANDLE rh, type *out)                          \
	{                                                                     \
		RFM2G_ENTER(h, rh);                                           \
		if (!out) {                                                   \
			st_ = RFM2G_BAD_PARAMETER_2;                          \
		} else {                                                      \
			pthread_mutex_lock(&h->lock);                         \
			*out = (expr);                                        \
			pthread_mutex_unlock(&h->lock);                       \
		}                                                             \
		rfm2g__put(h);                                                \
		return st_;                                                   \
	}

/* Setters of one soft control. */
#define DEFINE_SET(name, type, stmt)                                          \
	STDRFM2GCALL name(RFM2GHANDLE rh, type value)                         \
	{                                                                     \
		RFM2G_ENTER(h, rh);                                           \
		pthread_mutex_lock(&h->lock);                                 \
		stmt;                                                         \
		pthread_mutex_unlock(&h->lock);                               \
		rfm2g__put(h);                                                \
		return st_;                                                   \
	}

#define ONOFF(b) ((b) ? RFM2G_ON : RFM2G_OFF)

DEFINE_GET(RFM2gNodeID, RFM2G_NODE, h->pub.Config.NodeId)
DEFINE_GET(RFM2gBoardID, RFM2G_UINT8, h->pub.Config.BoardId)
DEFINE_GET(RFM2gSize, RFM2G_UINT32, h->pub.Config.MemorySize)
DEFINE_GET(RFM2gFirst, RFM2G_UINT32, 0)
DEFINE_GET(RFM2gGetDMAThreshold, RFM2G_UINT32, h->dma_threshold)
/*
 * A board flag: from the card's driver on rfm2g: (an 8-bit answer,
 * normalised to ON/OFF, inverted for the transmitter), else the soft state.
 */
#define DEFINE_BOARD_GET(name, request, invert, soft)                         \
	STDRFM2GCALL name(RFM2GHANDLE rh, RFM2G_BOOL *out)                    \
	{                                                                     \
		RFM2G_UINT8 v = 0;                                            \
		RFM2G_ENTER(h, rh);                                           \
		if (!out) {                                                   \
			st_ = RFM2G_BAD_PARAMETER_2;                          \
		} else if (h->hwfd >= 0) {                                    \
			if (rfm2g__hw_ioctl(h, (request), &v))                \
				*out = ONOFF((v != 0) != (invert));           \
			else                                                  \
				st_ = RFM2G_OS_ERROR;                         \
		} else {                                                      \
			pthread_mutex_lock(&h->lock);                         \
			*out = ONOFF(soft);                                   \
			pthread_mutex_unlock(&h->lock);                       \
		}                                                             \
		rfm2g__put(h);                                                \
		return st_;                                                   \
	}

/* A board flag set: the value goes to the driver by value on rfm2g:. */
#define DEFINE_BOARD_SET(name, request, invert, soft_stmt)                    \
	STDRFM2GCALL name(RFM2GHANDLE rh, RFM2G_BOOL value)                   \
	{                                                                     \
		RFM2G_ENTER(h, rh);                                           \
		if (h->hwfd >= 0) {                                           \
			if (!rfm2g__hw_ioctl_value(h, (request),              \
						   (value != 0) != (invert)))  \
				st_ = RFM2G_OS_ERROR;                         \
		} else {                                                      \
			pthread_mutex_lock(&h->lock);                         \
			soft_stmt;                                            \
			pthread_mutex_unlock(&h->lock);                       \
		}                                                             \
		rfm2g__put(h);                                                \
		return st_;                                                   \
	}

DEFINE_BOARD_GET(RFM2gGetDMAByteSwap, IOCTL_RFM2G_GET_DMA_BYTESWAP, false, h->dma_swap)
DEFINE_BOARD_GET(RFM2gGetPIOByteSwap, IOCTL_RFM2G_GET_PIO_BYTESWAP, false, h->pio_swap)
DEFINE_BOARD_GET(RFM2gGetLed, IOCTL_RFM2G_GET_LED, false, h->led)
DEFINE_BOARD_GET(RFM2gGetDarkOnDark, IOCTL_RFM2G_GET_DARK_ON_DARK, false, h->dark_on_dark)
DEFINE_BOARD_GET(RFM2gGetTransmit, IOCTL_RFM2G_GET_TRANSMIT_DISABLE, true, !h->tx_disabled)
DEFINE_BOARD_GET(RFM2gGetLoopback, IOCTL_RFM2G_GET_LOOPBACK, false, h->loopback)
DEFINE_BOARD_GET(RFM2gGetParityEnable, IOCTL_RFM2G_GET_PARITY_ENABLE, false, h->parity)

STDRFM2GCALL RFM2gGetMemoryOffset(RFM2GHANDLE rh, RFM2G_MEM_OFFSETTYPE *offset)
{
	RFM2G_UINT32 v = 0;

	RFM2G_ENTER(h, rh);
	if (!offset) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else if (h->hwfd >= 0) {
		if (rfm2g__hw_ioctl(h, IOCTL_RFM2G_GET_MEMORY_OFFSET, &v))
			*offset = (RFM2G_MEM_OFFSETTYPE) v;
		else
			st_ = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		*offset = (RFM2G_MEM_OFFSETTYPE) h->mem_offset;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st_;
}

/* Kept here for the DMA path of RFM2gRead/Write; on a card the driver's too. */
STDRFM2GCALL RFM2gSetDMAThreshold(RFM2GHANDLE rh, RFM2G_UINT32 value)
{
	RFM2G_ENTER(h, rh);
	if (h->hwfd >= 0 && !rfm2g__hw_ioctl(h, IOCTL_RFM2G_SET_DMA_THRESHOLD, &value)) {
		st_ = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		h->dma_threshold = value;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st_;
}
DEFINE_BOARD_SET(RFM2gSetLed, IOCTL_RFM2G_SET_LED, false, h->led = value != 0)
DEFINE_BOARD_SET(RFM2gSetDarkOnDark, IOCTL_RFM2G_SET_DARK_ON_DARK, false,
		 h->dark_on_dark = value != 0)
DEFINE_BOARD_SET(RFM2gSetTransmit, IOCTL_RFM2G_SET_TRANSMIT_DISABLE, true,
		 h->tx_disabled = value == 0)
DEFINE_BOARD_SET(RFM2gSetLoopback, IOCTL_RFM2G_SET_LOOPBACK, false, h->loopback = value != 0)
DEFINE_BOARD_SET(RFM2gSetParityEnable, IOCTL_RFM2G_SET_PARITY_ENABLE, false,
		 h->parity = value != 0)
/*
 * Byte swapping serves big-endian hosts on the little-endian RFM memory;
 * librfm's emulated boards have no swapping hardware, so only OFF is
 * accepted there.
 */
DEFINE_BOARD_SET(RFM2gSetDMAByteSwap, IOCTL_RFM2G_SET_DMA_BYTE_SWAP, false,
		 if (value) st_ = RFM2G_NOT_SUPPORTED; else h->dma_swap = false)
DEFINE_BOARD_SET(RFM2gSetPIOByteSwap, IOCTL_RFM2G_SET_PIO_BYTE_SWAP, false,
		 if (value) st_ = RFM2G_NOT_SUPPORTED; else h->pio_swap = false)

STDRFM2GCALL RFM2gSetMemoryOffset(RFM2GHANDLE rh, RFM2G_MEM_OFFSETTYPE offset)
{
	RFM2G_ENTER(h, rh);
	if ((unsigned int) offset > RFM2G_MEM_OFFSET3) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else if (h->hwfd >= 0) {
		if (!rfm2g__hw_ioctl_value(h, IOCTL_RFM2G_SET_MEMORY_OFFSET, offset))
			st_ = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		h->mem_offset = (unsigned int) offset;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gDeviceName(RFM2GHANDLE rh, char *NamePtr)
{
	RFM2G_ENTER(h, rh);
	if (!NamePtr)
		st_ = RFM2G_BAD_PARAMETER_2;
	else
		strcpy(NamePtr, h->pub.Config.Device);	/* < MAX_PATH bytes, as documented */
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gDllVersion(RFM2GHANDLE rh, char *VersionPtr)
{
	RFM2G_ENTER(h, rh);
	if (!VersionPtr)
		st_ = RFM2G_BAD_PARAMETER_2;
	else
		strcpy(VersionPtr, RFM2G_COMPAT_VERSION);	/* the API level implemented */
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gDriverVersion(RFM2GHANDLE rh, char *VersionPtr)
{
	RFM2G_ENTER(h, rh);
	if (!VersionPtr)
		st_ = RFM2G_BAD_PARAMETER_2;
	else
		strcpy(VersionPtr, RFM2G_COMPAT_VERSION);	/* as the Linux library */
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gCheckRingCont(RFM2GHANDLE rh)
{
	RFM2G_ENTER(h, rh);
	if (h->hwfd >= 0) {
		if (!rfm2g__hw_ioctl(h, IOCTL_RFM2G_CHECK_RING_CONT, NULL))
			st_ = RFM2G_LINK_TEST_FAIL;
		rfm2g__put(h);
		return st_;
	}
	pthread_mutex_lock(&h->lock);
	/* Own data comes back round the ring unless the transmitter is off. */
	if (h->tx_disabled)
		st_ = RFM2G_LINK_TEST_FAIL;
	else
		h->own_data = true;
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gClearOwnData(RFM2GHANDLE rh, RFM2G_BOOL *state)
{
	RFM2G_ENTER(h, rh);
	if (!state) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else if (h->hwfd >= 0) {
		RFM2G_UINT8 v = 0;

		if (rfm2g__hw_ioctl(h, IOCTL_RFM2G_CLEAR_OWN_DATA, &v))
			*state = ONOFF(v);
		else
			st_ = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		*state = ONOFF(h->own_data);
		h->own_data = false;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st_;
}

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
	RFM2GLINUXREGINFO ba = { .regset = RFM2GCFGREGMEM, .Offset = rfmor_las1ba, .Width = 4 };
	RFM2GLINUXREGINFO rr = { .regset = RFM2GCFGREGMEM, .Offset = rfmor_las1rr, .Width = 4 };
	RFM2GCONFIG c;

	if (!rfm2g__hw_ioctl(h, IOCTL_RFM2G_GET_CONFIG, &c))
		return RFM2G_OS_ERROR;
	if (c.BoardRevision < 0x8C)
		return RFM2G_NOT_SUPPORTED;
	if (!rfm2g__hw_ioctl(h, IOCTL_RFM2G_READ_REG, &ba) ||
	    !rfm2g__hw_ioctl(h, IOCTL_RFM2G_READ_REG, &rr))
		return RFM2G_OS_ERROR;
	*base = ba.Value & ~RFMOR_LAS1BA_ENABLE;
	*size = window_of_range(rr.Value);
	*installed = c.MemorySize;
	return *size ? RFM2G_SUCCESS : RFM2G_DRIVER_ERROR;
}

/* Emulated boards: the window is the whole memory, at offset 0. */
STDRFM2GCALL RFM2gGetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 *offset, RFM2G_UINT32 *size)
{
	RFM2G_UINT32 base = 0, win = 0, installed = 0;

	RFM2G_ENTER(h, rh);
	if (!offset) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else {
		if (h->hwfd >= 0)
			st_ = hw_window(h, &base, &win, &installed);
		else if (h->pub.Config.BoardRevision < 0x8C)
			st_ = RFM2G_NOT_SUPPORTED;	/* as the vendor: no window register */
		else
			win = h->pub.Config.MemorySize;
		if (st_ == RFM2G_SUCCESS || st_ == RFM2G_DRIVER_ERROR) {
			*offset = base;
			if (size)
				*size = win;
		}
	}
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gSetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 offset)
{
	RFM2G_UINT32 base = 0, window, installed;

	RFM2G_ENTER(h, rh);
	window = installed = h->pub.Config.MemorySize;
	if (h->hwfd < 0 && h->pub.Config.BoardRevision < 0x8C)
		st_ = RFM2G_NOT_SUPPORTED;
	if (h->hwfd >= 0) {
		st_ = hw_window(h, &base, &window, &installed);
		if (st_ == RFM2G_OS_ERROR)
			st_ = RFM2G_DRIVER_ERROR;	/* the vendor's answer for this call */
	}
	if (st_ == RFM2G_SUCCESS) {
		if (window == 0 || offset % window)
			st_ = RFM2G_BAD_PARAMETER_2;
		else if (offset > installed || (uint64_t) offset + window > installed)
			st_ = RFM2G_OUT_OF_RANGE;
		else if (h->hwfd >= 0 &&
			 !rfm2g__hw_ioctl_value(h, IOCTL_RFM2G_SET_SLIDING_WINDOW_OFFSET, offset))
			st_ = RFM2G_DRIVER_ERROR;
	}
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gGetDebugFlags(RFM2GHANDLE rh, RFM2G_UINT32 *Flags)
{
	RFM2G_ENTER(h, rh);
	if (!Flags) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else if (h->hwfd >= 0) {
		if (!rfm2g__hw_ioctl(h, IOCTL_RFM2G_GET_DEBUG_FLAGS, Flags))
			st_ = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&debug_lock);
		*Flags = debug_flags;
		pthread_mutex_unlock(&debug_lock);
	}
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gSetDebugFlags(RFM2GHANDLE rh, RFM2G_UINT32 Flags)
{
	RFM2G_ENTER(h, rh);
	if (h->hwfd >= 0) {
		if (!rfm2g__hw_ioctl_value(h, IOCTL_RFM2G_SET_DEBUG_FLAGS, Flags))
			st_ = RFM2G_OS_ERROR;
		rfm2g__put(h);
		return st_;
	}
	pthread_mutex_lock(&debug_lock);
	debug_flags = Flags;
	pthread_mutex_unlock(&debug_lock);
	rfm2g__put(h);
	return st_;
}
