/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the local Windows set-up header of GE's
 * Windows package: <windows.h> and the standard C headers on Windows,
 * nothing elsewhere, so that a program that includes it compiles
 * unchanged on Linux; it is installed with the RFM2g headers only.
 */
#ifndef RFM2G_WINLOCAL_H
#define RFM2G_WINLOCAL_H

#ifdef _WIN32
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

#endif /* RFM2G_WINLOCAL_H */
