/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Little-endian conversions without <endian.h> (glibc's; mingw and other
 * C libraries have none): the compiler's byte order macro and byte-swap
 * builtins, so a conversion is nothing on a little-endian host and one
 * instruction on a big-endian one, on every OS the library builds for.
 * The same on every OS: this header has no per-OS half.
 */
#ifndef RFM_OS_BYTEORDER_H
#define RFM_OS_BYTEORDER_H

#include <stdint.h>

#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__)
#error "the compiler must define __BYTE_ORDER__ (GCC and Clang do)"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define rfm__htole16(v) ((uint16_t)(v))
#define rfm__htole32(v) ((uint32_t)(v))
#define rfm__htole64(v) ((uint64_t)(v))
#else
#define rfm__htole16(v) __builtin_bswap16((uint16_t)(v))
#define rfm__htole32(v) __builtin_bswap32((uint32_t)(v))
#define rfm__htole64(v) __builtin_bswap64((uint64_t)(v))
#endif
/* A swap is its own inverse. */
#define rfm__le16toh(v) rfm__htole16(v)
#define rfm__le32toh(v) rfm__htole32(v)
#define rfm__le64toh(v) rfm__htole64(v)

#endif /* RFM_OS_BYTEORDER_H */
