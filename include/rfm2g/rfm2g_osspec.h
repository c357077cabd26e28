/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the Linux handle and Linux-only calls.
 *
 * The handle keeps the vendor's public fields (programs read
 * rh->Config.NodeId and rh->Config.BoardId directly); librfm keeps its own
 * state behind it. Treat every field as read-only.
 */
#ifndef RFM2G_OSSPEC_H
#define RFM2G_OSSPEC_H

#ifdef _WIN32
/* GE's Windows package has a handle of its own and no ioctls. */
#include "rfm2g_osspec_windows.h"
#else

#include <pthread.h>
#include <semaphore.h>
#include "rfm2g_defs_linux.h"
#include "rfm2g_ioctl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every RFM2g call returns an RFM2G_STATUS. */
#define STDRFM2GCALL _LibDeclSpec RFM2G_STATUS _CallDeclSpec

/* Deprecated name of RFM2GEVENT_RXFIFO_AFULL. */
#define RFM2GEVENT_FIFO_AF RFM2GEVENT_RXFIFO_AFULL

typedef struct rfm2ghandle_s *RFM2GHANDLE;

/* One event's callback slot of a handle. */
typedef struct rfm2gCallbackInfo {
	int CallbackStat;	/* status the dispatcher thread ended with */
	void (*Callback)(void *, RFM2GEVENTINFO *);
	pthread_t thread;
	RFM2GHANDLE Handle;
	RFM2GEVENTTYPE Event;
	sem_t callbackdispachSemId;	/* unused by librfm */
} rfm2gCallbackInfo_t, *RFM2GCALLBACKINFO;

typedef struct rfm2ghandle_s {
	RFM2G_INT32 fd;		/* librfm: 1 while open (no descriptor is exposed) */
	RFM2GCONFIG Config;	/* cached at open */
	rfm2gCallbackInfo_t callbackInfo[RFM2GEVENT_LAST];
	RFM2G_UINT32 struct_id;
} rfm2ghandle_t;

STDRFM2GCALL RFM2gGetEventStats(RFM2GHANDLE rh, RFM2GQINFO *Qinfo);
STDRFM2GCALL RFM2gFlushEventQueue(RFM2GHANDLE rh, RFM2GEVENTTYPE Event);
STDRFM2GCALL RFM2gClearEventStats(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);

#ifdef __cplusplus
}
#endif

#endif /* _WIN32 */

#endif /* RFM2G_OSSPEC_H */
