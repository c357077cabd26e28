/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): scalar types of the RFM2g API.
 * Written for librfm from the documented interface; same names, sizes and
 * values as the vendor's Linux package so RFM2g programs compile unchanged.
 */
#ifndef __RFM2G_TYPES_H
#define __RFM2G_TYPES_H

#ifdef _WIN32
/* GE's Windows package: its own widths and names (rfm2g_types_windows.h). */
#include "rfm2g_types_windows.h"
#else
typedef unsigned char RFM2G_UINT8;
typedef unsigned short int RFM2G_UINT16;
typedef unsigned int RFM2G_UINT32;
typedef unsigned long long int RFM2G_UINT64;
typedef signed char RFM2G_INT8;
typedef signed short int RFM2G_INT16;
typedef signed int RFM2G_INT32;
typedef signed long long int RFM2G_INT64;
typedef unsigned char RFM2G_BOOL;
typedef char RFM2G_CHAR;
/* Wide enough for a pointer (8 bytes on LP64). */
typedef unsigned long RFM2G_ADDR;
/* Node ids 0..255, plus the special values of rfm2g_defs.h. */
typedef RFM2G_UINT16 RFM2G_NODE;
#endif

#define RFM2G_TRUE ((RFM2G_BOOL) 1)
#define RFM2G_FALSE ((RFM2G_BOOL) 0)

/* Widths of single accesses, in bytes. */
typedef enum rfm2gDataWidth {
	RFM2G_BYTE = 1,
	RFM2G_WORD = 2,
	RFM2G_LONG = 4,
	RFM2G_LONGLONG = 8
} RFM2GDATAWIDTH;

#ifndef MAX_PATH
#define MAX_PATH 128
#endif

#ifndef _WIN32
#ifdef __cplusplus
#define _LibDeclSpec extern "C"
#else
#define _LibDeclSpec
#endif
#define _CallDeclSpec
#endif

#endif /* __RFM2G_TYPES_H */
