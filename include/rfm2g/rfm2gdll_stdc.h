/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the API header of GE's Windows DLL
 * (rfm2gdll_stdc), which Windows programs include instead of, or beside,
 * rfm2g_api.h. It brings the same API and two timeout names; on Windows
 * RFM_INFINITE is Win32's INFINITE, the same 0xFFFFFFFF as
 * RFM2G_INFINITE_TIMEOUT.
 *
 * The DLL's extra exports (RFM2gRegOffset, RFM2gEventName, RFM2gPeekReg8
 * and the rest) are Windows-only and undocumented: they are not declared,
 * and a program that calls one does not build (an undeclared function;
 * docs/rfm2g-migration.md).
 */
#ifndef RFM2G_RFM2GDLL_STDC_H
#define RFM2G_RFM2GDLL_STDC_H

#include "rfm2g_types.h"
#include "rfm2g_api.h"

#ifndef RFM_INFINITE
#define RFM_INFINITE RFM2G_INFINITE_TIMEOUT
#endif
#ifndef INFINITE_TIMEOUT
#define INFINITE_TIMEOUT ((unsigned int) 0xFFFFFFFF)
#endif

#endif /* RFM2G_RFM2GDLL_STDC_H */
