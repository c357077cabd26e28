/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the Windows handle (rfm2g_osspec.h
 * includes this under _WIN32). As in GE's Windows package, a program
 * holds RFM2GHANDLE as an opaque pointer and asks for the configuration
 * with RFM2gGetConfig(); there are no ioctls, no <pthread.h> and no
 * RFM2gGetEventStats(), RFM2gFlushEventQueue() or RFM2gClearEventStats().
 */
#ifndef RFM2G_OSSPEC_WINDOWS_H
#define RFM2G_OSSPEC_WINDOWS_H

#include "rfm2g_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every RFM2g call returns an RFM2G_STATUS (GE: DECL_SPEC(RFM2G_STATUS)). */
#define STDRFM2GCALL _LibDeclSpec RFM2G_STATUS _CallDeclSpec

typedef struct rfm2ghandle_s *RFM2GHANDLE;

#ifdef __cplusplus
}
#endif

#endif /* RFM2G_OSSPEC_WINDOWS_H */
