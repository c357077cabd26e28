/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g configuration, identity and versions.
 *
 * Facts a librfm node has (node id, size, device name) come from the node.
 * On rfm2g: the configuration is the card's driver's, through the node's
 * board op (any failure: RFM2G_OS_ERROR, as the vendor library); elsewhere
 * the emulated board's (controls.c has its switches and values).
 */
#include <stdio.h>
#include <string.h>

#include "librfm2g/compat.h"

STDRFM2GCALL RFM2gGetConfig(RFM2GHANDLE rh, RFM2GCONFIG *Config)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, Config != NULL, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (h->board) {
		if (h->board->get_config(h->node, Config) != 0)	/* Lcsr1 is live */
			st = RFM2G_OS_ERROR;
	} else {
		pthread_mutex_lock(&h->lock);
		h->pub.Config.Lcsr1 = rfm2g__lcsr(h);	/* live, as from the driver */
		*Config = h->pub.Config;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

/* The facts one getter each reads from the handle. */
enum fact { FACT_NODE_ID, FACT_BOARD_ID, FACT_SIZE, FACT_FIRST, FACT_DMA_THRESHOLD };

static uint32_t fact_of(const struct rfm2g_compat *h, enum fact what)
{
	switch (what) {
	case FACT_NODE_ID:
		return h->pub.Config.NodeId;
	case FACT_BOARD_ID:
		return h->pub.Config.BoardId;
	case FACT_SIZE:
		return h->pub.Config.MemorySize;
	case FACT_DMA_THRESHOLD:
		return h->dma_threshold;
	case FACT_FIRST:
		break;
	}
	return 0;	/* the first offset of the memory */
}

/* A getter of one fact into the @width-byte integer at @out: the handle, then @out. */
static RFM2G_STATUS get_fact(RFM2GHANDLE rh, enum fact what, void *out, size_t width)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, out != NULL, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	pthread_mutex_lock(&h->lock);
	rfm2g__store(out, width, fact_of(h, what));
	pthread_mutex_unlock(&h->lock);
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gNodeID(RFM2GHANDLE rh, RFM2G_NODE *NodeIdPtr)
{
	return get_fact(rh, FACT_NODE_ID, NodeIdPtr, sizeof(*NodeIdPtr));
}

STDRFM2GCALL RFM2gBoardID(RFM2GHANDLE rh, RFM2G_UINT8 *BoardIdPtr)
{
	return get_fact(rh, FACT_BOARD_ID, BoardIdPtr, sizeof(*BoardIdPtr));
}

STDRFM2GCALL RFM2gSize(RFM2GHANDLE rh, RFM2G_UINT32 *SizePtr)
{
	return get_fact(rh, FACT_SIZE, SizePtr, sizeof(*SizePtr));
}

STDRFM2GCALL RFM2gFirst(RFM2GHANDLE rh, RFM2G_UINT32 *FirstPtr)
{
	return get_fact(rh, FACT_FIRST, FirstPtr, sizeof(*FirstPtr));
}

STDRFM2GCALL RFM2gGetDMAThreshold(RFM2GHANDLE rh, RFM2G_UINT32 *Threshold)
{
	return get_fact(rh, FACT_DMA_THRESHOLD, Threshold, sizeof(*Threshold));
}

/*
 * The device name, or the version string (the API level implemented, the
 * Linux library's answer for the driver's too), into @out: < MAX_PATH
 * bytes, as documented.
 */
static RFM2G_STATUS get_string(RFM2GHANDLE rh, char *out, bool device)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, out != NULL, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	strcpy(out, device ? h->pub.Config.Device : RFM2G_COMPAT_VERSION);
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gDeviceName(RFM2GHANDLE rh, char *NamePtr)
{
	return get_string(rh, NamePtr, true);
}

STDRFM2GCALL RFM2gDllVersion(RFM2GHANDLE rh, char *VersionPtr)
{
	return get_string(rh, VersionPtr, false);
}

STDRFM2GCALL RFM2gDriverVersion(RFM2GHANDLE rh, char *VersionPtr)
{
	return get_string(rh, VersionPtr, false);
}
