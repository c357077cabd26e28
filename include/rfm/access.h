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

#define RFM__ACCESSORS(bits)                                                   \
	RFM_INLINE uint##bits##_t rfm_load##bits(const void *base,            \
						 uint64_t offset)              \
	{                                                                      \
		return __atomic_load_n(                                        \
			(const uint##bits##_t *)((const char *)base + offset), \
			__ATOMIC_RELAXED);                                     \
	}                                                                      \
	RFM_INLINE uint##bits##_t rfm_load##bits##_acquire(const void *base,  \
							   uint64_t offset)    \
	{                                                                      \
		return __atomic_load_n(                                        \
			(const uint##bits##_t *)((const char *)base + offset), \
			__ATOMIC_ACQUIRE);                                     \
	}                                                                      \
	RFM_INLINE void rfm_store##bits(void *base, uint64_t offset,          \
					uint##bits##_t value)                  \
	{                                                                      \
		__atomic_store_n((uint##bits##_t *)((char *)base + offset),    \
				 value, __ATOMIC_RELAXED);                     \
	}                                                                      \
	RFM_INLINE void rfm_store##bits##_release(void *base, uint64_t offset,\
						  uint##bits##_t value)        \
	{                                                                      \
		__atomic_store_n((uint##bits##_t *)((char *)base + offset),    \
				 value, __ATOMIC_RELEASE);                     \
	}

RFM__ACCESSORS(8)
RFM__ACCESSORS(16)
RFM__ACCESSORS(32)
RFM__ACCESSORS(64)

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
