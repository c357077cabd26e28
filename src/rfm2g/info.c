/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g configuration and board controls.
 *
 * Facts a librfm node has (node id, size, device name) come from the node.
 * The board controls of a 5565 (LED, transmitter, dark-on-dark, loopback,
 * parity, memory offset, own-data bit, byte swapping, DMA threshold, debug
 * flags) are kept per handle as the state of an emulated board: they read
 * back what was set and show in Lcsr1, and change nothing on the network.
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
DEFINE_GET(RFM2gGetDMAByteSwap, RFM2G_BOOL, ONOFF(h->dma_swap))
DEFINE_GET(RFM2gGetPIOByteSwap, RFM2G_BOOL, ONOFF(h->pio_swap))
DEFINE_GET(RFM2gGetLed, RFM2G_BOOL, ONOFF(h->led))
DEFINE_GET(RFM2gGetDarkOnDark, RFM2G_BOOL, ONOFF(h->dark_on_dark))
DEFINE_GET(RFM2gGetTransmit, RFM2G_BOOL, ONOFF(!h->tx_disabled))
DEFINE_GET(RFM2gGetLoopback, RFM2G_BOOL, ONOFF(h->loopback))
DEFINE_GET(RFM2gGetParityEnable, RFM2G_BOOL, ONOFF(h->parity))
DEFINE_GET(RFM2gGetMemoryOffset, RFM2G_MEM_OFFSETTYPE, (RFM2G_MEM_OFFSETTYPE) h->mem_offset)

DEFINE_SET(RFM2gSetDMAThreshold, RFM2G_UINT32, h->dma_threshold = value)
DEFINE_SET(RFM2gSetLed, RFM2G_BOOL, h->led = value != 0)
DEFINE_SET(RFM2gSetDarkOnDark, RFM2G_BOOL, h->dark_on_dark = value != 0)
DEFINE_SET(RFM2gSetTransmit, RFM2G_BOOL, h->tx_disabled = value == 0)
DEFINE_SET(RFM2gSetLoopback, RFM2G_BOOL, h->loopback = value != 0)
DEFINE_SET(RFM2gSetParityEnable, RFM2G_BOOL, h->parity = value != 0)
/*
 * Byte swapping serves big-endian hosts on the little-endian RFM memory;
 * librfm networks have no swapping hardware, so only OFF is accepted.
 */
DEFINE_SET(RFM2gSetDMAByteSwap, RFM2G_BOOL,
	   if (value) st_ = RFM2G_NOT_SUPPORTED; else h->dma_swap = false)
DEFINE_SET(RFM2gSetPIOByteSwap, RFM2G_BOOL,
	   if (value) st_ = RFM2G_NOT_SUPPORTED; else h->pio_swap = false)
DEFINE_SET(RFM2gSetMemoryOffset, RFM2G_MEM_OFFSETTYPE,
	   if ((unsigned int) value > RFM2G_MEM_OFFSET3) st_ = RFM2G_BAD_PARAMETER_2;
	   else h->mem_offset = (unsigned int) value)

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
	} else {
		pthread_mutex_lock(&h->lock);
		*state = ONOFF(h->own_data);
		h->own_data = false;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st_;
}

/* The window is the whole memory: one window at offset 0. */
STDRFM2GCALL RFM2gGetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 *offset, RFM2G_UINT32 *size)
{
	RFM2G_ENTER(h, rh);
	if (!offset) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else {
		*offset = 0;
		if (size)
			*size = h->pub.Config.MemorySize;
	}
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gSetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 offset)
{
	RFM2G_UINT32 window;

	RFM2G_ENTER(h, rh);
	window = h->pub.Config.MemorySize;
	if (window == 0 || offset % window)
		st_ = RFM2G_BAD_PARAMETER_2;
	else if (offset != 0)
		st_ = RFM2G_OUT_OF_RANGE;
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gGetDebugFlags(RFM2GHANDLE rh, RFM2G_UINT32 *Flags)
{
	RFM2G_ENTER(h, rh);
	if (!Flags) {
		st_ = RFM2G_BAD_PARAMETER_2;
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
	pthread_mutex_lock(&debug_lock);
	debug_flags = Flags;
	pthread_mutex_unlock(&debug_lock);
	rfm2g__put(h);
	return st_;
}
