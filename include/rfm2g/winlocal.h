/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the local Windows set-up header of GE's
 * Windows package (<windows.h> and the standard C headers under _WIN32,
 * nothing elsewhere). Empty on Linux, so that a program that includes it
 * compiles unchanged; it is installed with the RFM2g headers only.
 */
#ifndef RFM2G_WINLOCAL_H
#define RFM2G_WINLOCAL_H
#endif /* RFM2G_WINLOCAL_H */
