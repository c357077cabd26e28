/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * glibc's <endian.h> conversions for the suites: the C library's where it
 * has that header, else (mingw-w64) the compiler's byte order and byte
 * swaps under the same names.
 */
#ifndef RFM_TEST_BYTEORDER_H
#define RFM_TEST_BYTEORDER_H

#include <stdint.h>

#if defined(__has_include)
#if __has_include(<endian.h>)
#include <endian.h>
#endif
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HARNESS_LE(bits, v) ((uint##bits##_t)(v))
#define HARNESS_BE(bits, v) __builtin_bswap##bits((uint##bits##_t)(v))
#else
#define HARNESS_LE(bits, v) __builtin_bswap##bits((uint##bits##_t)(v))
#define HARNESS_BE(bits, v) ((uint##bits##_t)(v))
#endif

#ifndef htole16
#define htole16(v) HARNESS_LE(16, v)
#define le16toh(v) HARNESS_LE(16, v)
#define htole32(v) HARNESS_LE(32, v)
#define le32toh(v) HARNESS_LE(32, v)
#define htole64(v) HARNESS_LE(64, v)
#define le64toh(v) HARNESS_LE(64, v)
#define htobe16(v) HARNESS_BE(16, v)
#define be16toh(v) HARNESS_BE(16, v)
#define htobe32(v) HARNESS_BE(32, v)
#define be32toh(v) HARNESS_BE(32, v)
#define htobe64(v) HARNESS_BE(64, v)
#define be64toh(v) HARNESS_BE(64, v)
#endif

#endif /* RFM_TEST_BYTEORDER_H */
