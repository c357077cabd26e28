/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file access.h
 * @brief Inline accessors for the mapped window, with acquire/release ordering.
 *
 * @defgroup access Inline access
 * @{
 * The hot path of a reflective-memory program is a load or store on the
 * mapped window (rfm_mem_map()). These inline functions make such accesses
 * single-copy atomic and give them the ordering a protocol needs, at the
 * cost of the plain instruction:
 *
 * - `rfm_loadN(base, off)` / `rfm_storeN(base, off, v)`: atomic, unordered;
 * - `rfm_loadN_acquire()`: later accesses cannot move before it;
 * - `rfm_storeN_release()`: earlier accesses cannot move after it.
 *
 * for N = 8, 16, 32, 64. They do no bounds or alignment checks: @p offset
 * must lie in the window and be a multiple of N/8 (use rfm_mem_peek32()
 * and friends for checked access).
 *
 * Publishing "data, then a sequence flag":
 * @code
 *   memcpy(base + DATA, &sample, sizeof sample);
 *   rfm_store32_release(base, SEQ, ++seq);      // data is visible first
 * @endcode
 * and reading it:
 * @code
 *   while (rfm_load32_acquire(base, SEQ) == last) ;  // then the data is current
 * @endcode
 *
 * Each function also exists as an exported symbol of the same name, for
 * FFI users and bindings that cannot use inline functions.
 */
#ifndef RFM_ACCESS_H
#define RFM_ACCESS_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

#ifndef RFM_INLINE
/** How the accessors are defined; the library redefines it to export them. */
#define RFM_INLINE static inline
#endif

/** @brief Load 8 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE uint8_t rfm_load8(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint8_t *)((const char *)base + offset), __ATOMIC_RELAXED);
}

/** @brief Load 8 bits; no later access moves before it. */
RFM_INLINE uint8_t rfm_load8_acquire(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint8_t *)((const char *)base + offset), __ATOMIC_ACQUIRE);
}

/** @brief Store 8 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE void rfm_store8(void *base, uint64_t offset, uint8_t value)
{
	__atomic_store_n((uint8_t *)((char *)base + offset), value, __ATOMIC_RELAXED);
}

/** @brief Store 8 bits; no earlier access moves after it. */
RFM_INLINE void rfm_store8_release(void *base, uint64_t offset, uint8_t value)
{
	__atomic_store_n((uint8_t *)((char *)base + offset), value, __ATOMIC_RELEASE);
}

/** @brief Load 16 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE uint16_t rfm_load16(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint16_t *)((const char *)base + offset), __ATOMIC_RELAXED);
}

/** @brief Load 16 bits; no later access moves before it. */
RFM_INLINE uint16_t rfm_load16_acquire(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint16_t *)((const char *)base + offset), __ATOMIC_ACQUIRE);
}

/** @brief Store 16 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE void rfm_store16(void *base, uint64_t offset, uint16_t value)
{
	__atomic_store_n((uint16_t *)((char *)base + offset), value, __ATOMIC_RELAXED);
}

/** @brief Store 16 bits; no earlier access moves after it. */
RFM_INLINE void rfm_store16_release(void *base, uint64_t offset, uint16_t value)
{
	__atomic_store_n((uint16_t *)((char *)base + offset), value, __ATOMIC_RELEASE);
}

/** @brief Load 32 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE uint32_t rfm_load32(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint32_t *)((const char *)base + offset), __ATOMIC_RELAXED);
}

/** @brief Load 32 bits; no later access moves before it. */
RFM_INLINE uint32_t rfm_load32_acquire(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint32_t *)((const char *)base + offset), __ATOMIC_ACQUIRE);
}

/** @brief Store 32 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE void rfm_store32(void *base, uint64_t offset, uint32_t value)
{
	__atomic_store_n((uint32_t *)((char *)base + offset), value, __ATOMIC_RELAXED);
}

/** @brief Store 32 bits; no earlier access moves after it. */
RFM_INLINE void rfm_store32_release(void *base, uint64_t offset, uint32_t value)
{
	__atomic_store_n((uint32_t *)((char *)base + offset), value, __ATOMIC_RELEASE);
}

/** @brief Load 64 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE uint64_t rfm_load64(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint64_t *)((const char *)base + offset), __ATOMIC_RELAXED);
}

/** @brief Load 64 bits; no later access moves before it. */
RFM_INLINE uint64_t rfm_load64_acquire(const void *base, uint64_t offset)
{
	return __atomic_load_n((const uint64_t *)((const char *)base + offset), __ATOMIC_ACQUIRE);
}

/** @brief Store 64 bits at @p offset of @p base, atomic and unordered. */
RFM_INLINE void rfm_store64(void *base, uint64_t offset, uint64_t value)
{
	__atomic_store_n((uint64_t *)((char *)base + offset), value, __ATOMIC_RELAXED);
}

/** @brief Store 64 bits; no earlier access moves after it. */
RFM_INLINE void rfm_store64_release(void *base, uint64_t offset, uint64_t value)
{
	__atomic_store_n((uint64_t *)((char *)base + offset), value, __ATOMIC_RELEASE);
}

/** @brief Acquire fence: no later access moves before it. */
RFM_INLINE void rfm_fence_acquire(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/** @brief Release fence: no earlier access moves after it. */
RFM_INLINE void rfm_fence_release(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/** @brief Full fence, for store-then-load protocols (Dekker-style flags). */
RFM_INLINE void rfm_fence_full(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

RFM_END_DECLS

/** @} */
#endif /* RFM_ACCESS_H */
