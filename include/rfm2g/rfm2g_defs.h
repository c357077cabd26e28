/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): constants, events, configuration structures.
 */
#ifndef __RFM2G_DEFS_H
#define __RFM2G_DEFS_H

#include "rfm2g_types.h"
#include "rfm2g_errno.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RFM2G_ENABLE RFM2G_TRUE
#define RFM2G_DISABLE RFM2G_FALSE
#define RFM2G_ON RFM2G_TRUE
#define RFM2G_OFF RFM2G_FALSE

#define RFM2G_NODE_MIN 0
#define RFM2G_NODE_MAX 255
#define RFM2G_NODE_SPECIAL_MIN 0xFFFE
#define RFM2G_NODE_UNKNOWN 0xFFFE
/* Target of a broadcast. */
#define RFM2G_NODE_ALL 0xFFFF
#define RFM2G_NODE_SPECIAL_MAX 0xFFFF

/* PCI facts of the board (emulated boards report what they can). */
typedef struct rfm2gPciConfig {
	RFM2G_UINT32 rfm2gOrWindowSize;
	RFM2G_UINT32 rfm2gOrRegSize;
	RFM2G_UINT32 rfm2gCsWindowSize;
	RFM2G_UINT32 rfm2gCsRegSize;
	RFM2G_UINT32 rfm2gWindowSize;	/* reflective-memory window (BAR3) */
	RFM2G_UINT32 devfn;
	RFM2G_UINT16 type;
	RFM2G_UINT8 interruptNumber;
	RFM2G_UINT8 bus;
	RFM2G_UINT8 function;
	RFM2G_UINT8 revision;
	RFM2G_UINT32 rfm2gBase;
	RFM2G_UINT32 rfm2gCsBase;
	RFM2G_UINT32 rfm2gOrBase;
} RFM2GPCICONFIG;

/* What RFM2gGetConfig() returns (244 bytes on x86_64, as the driver's). */
typedef struct RFM2GCONFIG_ {
	RFM2G_NODE NodeId;
	RFM2G_UINT8 BoardId;
	RFM2G_UINT8 Unit;
	RFM2G_UINT8 PlxRevision;
	RFM2G_UINT32 MemorySize;
	char Device[MAX_PATH];
	char Name[32];
	char DriverVersion[16];
	RFM2G_UINT8 BoardRevision;
	RFM2G_UINT8 RevisionId;
	RFM2G_UINT32 Lcsr1;
	RFM2GPCICONFIG PciConfig;
	RFM2G_UINT16 BuildId;
} RFM2GCONFIG;

/* Event types: 0..4 can be sent, 5..11 are error events of the receiving board. */
typedef enum rfm2gEventType {
	RFM2GEVENT_RESET = 0,
	RFM2GEVENT_INTR1 = 1,
	RFM2GEVENT_INTR2 = 2,
	RFM2GEVENT_INTR3 = 3,
	RFM2GEVENT_INTR4 = 4,
	RFM2GEVENT_BAD_DATA = 5,
	RFM2GEVENT_RXFIFO_FULL = 6,
	RFM2GEVENT_ROGUE_PKT = 7,
	RFM2GEVENT_RXFIFO_AFULL = 8,
	RFM2GEVENT_SYNC_LOSS = 9,
	RFM2GEVENT_MEM_WRITE_INHIBITED = 10,
	RFM2GEVENT_LOCAL_MEM_PARITY_ERR = 11,
	RFM2GEVENT_LAST = 12	/* number of events; "all events" for the Clear calls */
} RFM2GEVENTTYPE;

/* One event: what to wait for (in) and what arrived (out). */
typedef struct rfm2gEventInfo {
	RFM2G_UINT32 ExtendedInfo;	/* the sender's 32-bit word */
	RFM2GEVENTTYPE Event;
	RFM2G_UINT32 Timeout;		/* ms, RFM2G_INFINITE_TIMEOUT or RFM2G_NO_WAIT */
	RFM2G_NODE NodeId;		/* the sender */
	void *pDrvSpec;
} RFM2GEVENTINFO;

/* Driver debug flags (RFM2gGetDebugFlags / RFM2gSetDebugFlags). */
#define RFM2G_DBERROR (1 << 0)
#define RFM2G_DBINIT (1 << 1)
#define RFM2G_DBINTR (1 << 2)
#define RFM2G_DBIOCTL (1 << 3)
#define RFM2G_DBMMAP (1 << 4)
#define RFM2G_DBOPEN (1 << 5)
#define RFM2G_DBCLOSE (1 << 6)
#define RFM2G_DBREAD (1 << 7)
#define RFM2G_DBWRITE (1 << 8)
#define RFM2G_DBPEEK (1 << 9)
#define RFM2G_DBPOKE (1 << 10)
#define RFM2G_DBSTRAT (1 << 11)
#define RFM2G_DBTIMER (1 << 12)
#define RFM2G_DBTRACE (1 << 13)
#define RFM2G_DBMUTEX (1 << 14)
#define RFM2G_DBINTR_NOT (1 << 15)
#define RFM2G_DBSLOW (1 << 16)
#define RFM2G_DBMINPHYS (1 << 17)
#define RFM2G_DBDMA (1 << 18)

/* Register sets of the board (RFM2gReadReg and friends). */
typedef enum rfm2gRegSetType {
	RFM2GCFGREGMEM = 0,	/* PLX local config/runtime/DMA registers (BAR0) */
	RFM2GCFGREGIO = 1,	/* the same through I/O space (BAR1); not on Linux */
	RFM2GCTRLREGMEM = 2,	/* RFM control and status registers (BAR2) */
	RFM2GMEM = 3,		/* reflective memory (BAR3) */
	RFM2GRESERVED0REG = 4,
	RFM2GRESERVED1REG = 5
} RFM2GREGSETTYPE;

/* Network address offset (RFM2gSetMemoryOffset). */
typedef enum rfm2gMemWindowType {
	RFM2G_MEM_OFFSET0 = 0,	/* 0 */
	RFM2G_MEM_OFFSET1 = 1,	/* 0x4000000 */
	RFM2G_MEM_OFFSET2 = 2,	/* 0x8000000 */
	RFM2G_MEM_OFFSET3 = 3	/* 0xC000000 */
} RFM2G_MEM_OFFSETTYPE;

#ifdef __cplusplus
}
#endif

#endif /* __RFM2G_DEFS_H */
