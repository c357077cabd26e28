/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the header that programs written for GE's
 * Windows package include before rfm2g_api.h. On Windows it brings
 * <windows.h>, as GE's does (such programs call Sleep() and friends
 * without including it themselves); elsewhere there is nothing to set up
 * and it is empty, so such a program compiles unchanged on Linux too.
 */
#ifndef RFM2G_WINDOWS_H
#define RFM2G_WINDOWS_H

#ifdef _WIN32
#include <windows.h>
#endif

#endif /* RFM2G_WINDOWS_H */
