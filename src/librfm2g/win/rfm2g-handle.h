/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RFM2g handle on Windows, which programs hold as an opaque pointer
 * (rfm2g_osspec_windows.h): the fields librfm2g keeps there on Linux,
 * and the Linux-only calls and definitions rfm2g.dll still exports (one
 * librfm2g on both OSes).
 */
#ifndef RFM2G_HANDLE_H
#define RFM2G_HANDLE_H

#include <pthread.h>

#include "rfm2g_defs_linux.h"
#include "rfm2g_regs.h"

typedef struct rfm2gCallbackInfo {
	int CallbackStat;
	void (*Callback)(void *, RFM2GEVENTINFO *);
	pthread_t thread;
	RFM2GHANDLE Handle;
	RFM2GEVENTTYPE Event;
} rfm2gCallbackInfo_t;

typedef struct rfm2ghandle_s {
	RFM2G_INT32 fd;
	RFM2GCONFIG Config;
	rfm2gCallbackInfo_t callbackInfo[RFM2GEVENT_LAST];
	RFM2G_UINT32 struct_id;
} rfm2ghandle_t;

STDRFM2GCALL RFM2gGetEventStats(RFM2GHANDLE rh, RFM2GQINFO *Qinfo);
STDRFM2GCALL RFM2gFlushEventQueue(RFM2GHANDLE rh, RFM2GEVENTTYPE Event);
STDRFM2GCALL RFM2gClearEventStats(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);

#endif /* RFM2G_HANDLE_H */
