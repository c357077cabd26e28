/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RFM2g handle on Linux: programs see its definition in
 * rfm2g_osspec.h (they read rh->Config directly), so librfm2g needs
 * nothing more here. The Windows handle is opaque to programs and
 * defined in src/librfm2g/win/rfm2g-handle.h.
 */
#ifndef RFM2G_HANDLE_H
#define RFM2G_HANDLE_H
#endif /* RFM2G_HANDLE_H */
