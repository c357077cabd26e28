/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file common.h
 * @brief Export macro and the opaque types shared by every librfm header.
 */
#ifndef RFM_COMMON_H
#define RFM_COMMON_H

#include <stddef.h>
#include <stdint.h>

/** @def RFM_BEGIN_DECLS
 *  Opens C linkage around the declarations of a header (`extern "C" {` in C++). */
/** @def RFM_END_DECLS
 *  Closes what RFM_BEGIN_DECLS opened. */
#ifdef __cplusplus
#define RFM_BEGIN_DECLS extern "C" {
#define RFM_END_DECLS }
#else
#define RFM_BEGIN_DECLS
#define RFM_END_DECLS
#endif

/**
 * Marks a symbol as part of the public ABI. The library is built with
 * -fvisibility=hidden, so everything not marked stays private. On Windows
 * librfm-1.dll exports what it marks (its own build defines
 * RFM_BUILDING_DLL) and a program imports it; a program that links the
 * library's objects statically defines RFM_STATIC.
 */
#if defined(SWIG) || (defined(_WIN32) && defined(RFM_STATIC))
#define RFM_API
#elif defined(_WIN32) && defined(RFM_BUILDING_DLL)
#define RFM_API __declspec(dllexport)
#elif defined(_WIN32)
#define RFM_API __declspec(dllimport)
#elif defined(__GNUC__)
#define RFM_API __attribute__((visibility("default")))
#else
#define RFM_API
#endif

/**
 * @brief A node on a reflective-memory network, opened by URI.
 *
 * Opaque: created by rfm_open() or rfm_open_with_options(), freed by
 * rfm_close(). Every object made on a node (rings, consumers, variable
 * and record handles) must be closed before the node is.
 */
typedef struct rfm_node rfm_node;

#endif /* RFM_COMMON_H */
