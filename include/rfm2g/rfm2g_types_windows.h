/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the scalar types of GE's Windows package
 * (rfm2g_types.h includes this under _WIN32). Windows is LLP64: long is
 * 4 bytes, so RFM2G_UINT32 is GE's unsigned long there, the same width as
 * Linux's unsigned int; RFM2G_ADDR holds a pointer (GE: ULONG_PTR).
 * Calls are __cdecl and imported from rfm2g.dll (DEFINE_CODE, as in
 * GE's headers, when building the DLL itself).
 */
#ifndef RFM2G_TYPES_WINDOWS_H
#define RFM2G_TYPES_WINDOWS_H

typedef unsigned char RFM2G_UINT8;
typedef unsigned short RFM2G_UINT16;
typedef unsigned long RFM2G_UINT32;
typedef unsigned __int64 RFM2G_UINT64;
typedef signed char RFM2G_INT8;
typedef signed short RFM2G_INT16;
typedef signed long RFM2G_INT32;
typedef __int64 RFM2G_INT64;
typedef unsigned char RFM2G_BOOL;
typedef signed char RFM2G_CHAR;
#ifdef _WIN64
typedef unsigned __int64 RFM2G_ADDR;
#else
typedef unsigned long RFM2G_ADDR;
#endif
typedef RFM2G_UINT16 RFM2G_NODE;
typedef RFM2G_INT32 RFM2GRESULT;

/* <windows.h>'s value, so that including it afterwards redefines nothing. */
#ifndef MAX_PATH
#define MAX_PATH 260
#endif

#ifdef DEFINE_CODE
#define RFM2G_DLLSPEC __declspec(dllexport)
#else
#define RFM2G_DLLSPEC __declspec(dllimport)
#endif
#ifdef __cplusplus
#define _LibDeclSpec extern "C" RFM2G_DLLSPEC
#else
#define _LibDeclSpec RFM2G_DLLSPEC
#endif
#define _CallDeclSpec __cdecl

#endif /* RFM2G_TYPES_WINDOWS_H */
