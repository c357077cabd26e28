/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the header that programs written for GE's
 * Windows package include before rfm2g_api.h. GE's sets up <windows.h>
 * and the compiler's warnings under _WIN32 and is empty elsewhere; on
 * Linux there is nothing to set up, so it is empty here too: such a
 * program compiles unchanged.
 */
#ifndef RFM2G_WINDOWS_H
#define RFM2G_WINDOWS_H
#endif /* RFM2G_WINDOWS_H */
