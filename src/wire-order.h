/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The wire byte order of the library's own structures in the window:
 * little-endian, as the vendor's PCI cards present memory to x86 hosts.
 * A big-endian node (a VME/PowerPC board, s390x) converts every word it
 * reads or writes, so that nodes of both orders share rings and heartbeat
 * tables (docs/architecture.md, "Byte order in the window").
 *
 * The conversions (os/byteorder.h: the compiler's byte order and byte-swap
 * builtins) are identities on little-endian hosts and byte swaps (one
 * instruction) on big-endian ones, so these cost nothing where most nodes
 * run. The atomic forms convert outside the atomic access:
 * a swapped word is still one aligned word, read or written whole.
 *
 * Bitwise operations (a directory word's lane bits) are done on the wire
 * value with a wire-order mask: OR and AND commute with a byte swap.
 */
#ifndef RFM_WIRE_ORDER_H
#define RFM_WIRE_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "os/byteorder.h"

#define rfm__wire16(v) rfm__htole16(v)
#define rfm__wire32(v) rfm__htole32(v)
#define rfm__wire64(v) rfm__htole64(v)
#define rfm__host16(v) rfm__le16toh(v)
#define rfm__host32(v) rfm__le32toh(v)
#define rfm__host64(v) rfm__le64toh(v)

/* Atomic loads and stores of wire-order words (mo: an __ATOMIC_* order). */
#define rfm__wload32(p, mo) ((uint32_t)rfm__le32toh(__atomic_load_n((p), (mo))))
#define rfm__wload64(p, mo) ((uint64_t)rfm__le64toh(__atomic_load_n((p), (mo))))
#define rfm__wstore32(p, v, mo) __atomic_store_n((p), rfm__htole32(v), (mo))
#define rfm__wstore64(p, v, mo) __atomic_store_n((p), rfm__htole64(v), (mo))
/* Signed 32-bit words (process ids). */
#define rfm__wloadi32(p, mo) ((int32_t)rfm__le32toh((uint32_t)__atomic_load_n((p), (mo))))
#define rfm__wstorei32(p, v, mo) __atomic_store_n((p), (int32_t)rfm__htole32((uint32_t)(v)), (mo))

/*
 * Atomic increment of a wire-order word, returning the new host value
 * (release order). An add does not commute with a byte swap, so a
 * big-endian host loops on a compare-and-swap; a little-endian one adds.
 */
static inline uint32_t rfm__wadd32_release(uint32_t *p, uint32_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __atomic_add_fetch(p, n, __ATOMIC_RELEASE);
#else
	uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED), v;

	do
		v = rfm__le32toh(old) + n;
	while (!__atomic_compare_exchange_n(p, &old, rfm__htole32(v), true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
	return v;
#endif
}

#endif /* RFM_WIRE_ORDER_H */
