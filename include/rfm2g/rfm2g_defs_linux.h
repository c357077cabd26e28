/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): Linux-specific constants and structures.
 */
#ifndef RFM2G_DEFS_LINUX_H
#define RFM2G_DEFS_LINUX_H

#include "rfm2g_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags in RFM2gUserMemory()'s Offset selecting special mappings. */
#define RFM2G_DMA_MMAP_OFFSET 1	/* OR into a physical address: reserved DMA RAM */
#define RFM2G_BAR0_MMAP_OFFSET 2	/* the PLX registers */
#define RFM2G_BAR2_MMAP_OFFSET 4	/* the RFM control/status registers */

#define QFLAG_HALF_FULL (1 << 0)
#define QFLAG_OVERFLOWED (1 << 1)
#define QFLAG_DEQUEUED (1 << 2)

typedef struct rfm2gLinuxRegInfo {
	RFM2GREGSETTYPE regset;
	RFM2G_UINT32 Offset;
	RFM2G_UINT32 Width;
	RFM2G_UINT32 Value;
} RFM2GLINUXREGINFO;

/* Statistics of one event's queue (RFM2gGetEventStats). */
typedef struct rfm2gQInfo {
	RFM2G_UINT8 Event;	/* in: which event */
	RFM2G_BOOL Overflowed;	/* non-zero (8, as the driver) after an overflow */
	RFM2G_UINT8 QueuePeak;	/* peak depth, saturating at 255 */
	RFM2G_UINT8 reserved;
	RFM2G_UINT32 EventCount;
	RFM2G_UINT32 EventsQueued;
	RFM2G_UINT32 QueueSize;
	RFM2G_UINT32 MaxQueueSize;
	RFM2G_UINT32 EventTimeout;
} RFM2GQINFO, *PRFM2GQINFO;

#ifdef __cplusplus
}
#endif

#endif /* RFM2G_DEFS_LINUX_H */
