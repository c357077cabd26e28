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
 *
 * On `dds:` stores through the mapping stay in this node's copy until
 * rfm_mem_flush() sends them (memory.h).
 *
 * @par Thread safety
 * Any number of threads may use them at once: each is one atomic
 * instruction (or fence), with no lock, no system call and no allocation.
 *
 * @sa rfm-protocols(7)
 */
#ifndef RFM_ACCESS_H
#define RFM_ACCESS_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

#ifndef RFM_INLINE
/** How the accessors are defined (static inline); the library defines it
 *  otherwise in src/ffi.c to export each as a real symbol. */
#define RFM_INLINE static inline
#endif

/** @cond RFM_INTERNAL */
/*
 * How each compiler makes an access atomic and ordered. GCC and Clang
 * (Linux, mingw-w64): their __atomic builtins. Microsoft's compiler (and
 * clang-cl, which takes the same branch): aligned volatile accesses, which
 * are single-copy atomic on x64 and ARM64, ordered by a compiler barrier
 * on x64 (whose loads acquire and stores release in hardware) and by a
 * data memory barrier on ARM64. 32-bit x86 is not supported there: its
 * 64-bit accesses are not atomic.
 */
#if defined(_MSC_VER)
/* The intrinsics, declared as <intrin.h> does (which not every C library's
 * headers let clang-cl include). */
#if defined(_M_X64) || defined(_M_AMD64)
void _ReadWriteBarrier(void);
long _InterlockedOr(long volatile *value, long mask);
#pragma intrinsic(_ReadWriteBarrier, _InterlockedOr)
#define RFM__ORDER() _ReadWriteBarrier()
/* A locked instruction: what MemoryBarrier() is on x64. */
#define RFM__FENCE_SEQ()                                                               \
	do {                                                                           \
		long volatile rfm__f_ = 0;                                             \
		_InterlockedOr(&rfm__f_, 0);                                           \
	} while (0)
#elif defined(_M_ARM64) || defined(_M_ARM64EC)
void __dmb(unsigned int type);
#pragma intrinsic(__dmb)
#define RFM__ORDER() __dmb(0xB) /* _ARM64_BARRIER_ISH */
#define RFM__FENCE_SEQ() __dmb(0xB)
#else
#error "<rfm/access.h> with Microsoft's compiler needs x64 or ARM64"
#endif
#define RFM__LOAD(T, p) return *(const volatile T *)(p)
#define RFM__LOAD_ACQUIRE(T, p)                                                        \
	T rfm__v_ = *(const volatile T *)(p);                                          \
	RFM__ORDER();                                                                  \
	return rfm__v_
#define RFM__STORE(T, p, v) *(volatile T *)(p) = (v)
#define RFM__STORE_RELEASE(T, p, v)                                                    \
	RFM__ORDER();                                                                  \
	*(volatile T *)(p) = (v)
#define RFM__FENCE_ACQUIRE() RFM__ORDER()
#define RFM__FENCE_RELEASE() RFM__ORDER()
#define RFM__FENCE_FULL() RFM__FENCE_SEQ()
#else
#define RFM__LOAD(T, p) return __atomic_load_n((const T *)(p), __ATOMIC_RELAXED)
#define RFM__LOAD_ACQUIRE(T, p) return __atomic_load_n((const T *)(p), __ATOMIC_ACQUIRE)
#define RFM__STORE(T, p, v) __atomic_store_n((T *)(p), (v), __ATOMIC_RELAXED)
#define RFM__STORE_RELEASE(T, p, v) __atomic_store_n((T *)(p), (v), __ATOMIC_RELEASE)
#define RFM__FENCE_ACQUIRE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define RFM__FENCE_RELEASE() __atomic_thread_fence(__ATOMIC_RELEASE)
#define RFM__FENCE_FULL() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
/** @endcond */

/**
 * @brief Load 8 bits at @p offset of @p base, atomic and unordered.
 *
 * A single-copy atomic load of the function's width (8, 16, 32 or 64
 * bits), relaxed: it orders nothing around it. There is no bounds or
 * alignment check: @p offset must lie in the window and be a multiple of
 * the width in bytes (rfm_mem_peek8() and its family check both).
 * @param base The window, from rfm_mem_map().
 * @param offset Byte offset in the window, a multiple of the width in bytes.
 * @return The value, in host byte order.
 */
RFM_INLINE uint8_t rfm_load8(const void *base, uint64_t offset)
{
	RFM__LOAD(uint8_t, (const char *)base + offset);
}

/**
 * @brief Load 8 bits; no later access moves before it.
 *
 * As rfm_load8() and its family (one atomic load of the function's width,
 * no check), with acquire order: the loads and stores that follow it in
 * this thread are not done before it, so the data a writer stored before
 * its release store of the value read here is seen.
 * @param base The window, from rfm_mem_map().
 * @param offset Byte offset in the window, a multiple of the width in bytes.
 * @return The value, in host byte order.
 */
RFM_INLINE uint8_t rfm_load8_acquire(const void *base, uint64_t offset)
{
	RFM__LOAD_ACQUIRE(uint8_t, (const char *)base + offset);
}

/**
 * @brief Store 8 bits at @p offset of @p base, atomic and unordered.
 *
 * A single-copy atomic store of the function's width (8, 16, 32 or 64
 * bits), relaxed: it orders nothing around it. There is no bounds or
 * alignment check: @p offset must lie in the window and be a multiple of
 * the width in bytes (rfm_mem_poke8() and its family check both).
 * @param base The window, from rfm_mem_map().
 * @param offset Byte offset in the window, a multiple of the width in bytes.
 * @param value The value, in host byte order.
 */
RFM_INLINE void rfm_store8(void *base, uint64_t offset, uint8_t value)
{
	RFM__STORE(uint8_t, (char *)base + offset, value);
}

/**
 * @brief Store 8 bits; no earlier access moves after it.
 *
 * As rfm_store8() and its family (one atomic store of the function's
 * width, no check), with release order: the loads and stores before it in
 * this thread are done before it, so a reader whose acquire load sees
 * @p value sees the data written before it ("data, then a sequence flag").
 * @param base The window, from rfm_mem_map().
 * @param offset Byte offset in the window, a multiple of the width in bytes.
 * @param value The value, in host byte order.
 */
RFM_INLINE void rfm_store8_release(void *base, uint64_t offset, uint8_t value)
{
	RFM__STORE_RELEASE(uint8_t, (char *)base + offset, value);
}

/** @brief Load 16 bits at @p offset of @p base, atomic and unordered. @copydetails rfm_load8() */
RFM_INLINE uint16_t rfm_load16(const void *base, uint64_t offset)
{
	RFM__LOAD(uint16_t, (const char *)base + offset);
}

/** @brief Load 16 bits; no later access moves before it. @copydetails rfm_load8_acquire() */
RFM_INLINE uint16_t rfm_load16_acquire(const void *base, uint64_t offset)
{
	RFM__LOAD_ACQUIRE(uint16_t, (const char *)base + offset);
}

/** @brief Store 16 bits at @p offset of @p base, atomic and unordered. @copydetails rfm_store8() */
RFM_INLINE void rfm_store16(void *base, uint64_t offset, uint16_t value)
{
	RFM__STORE(uint16_t, (char *)base + offset, value);
}

/** @brief Store 16 bits; no earlier access moves after it. @copydetails rfm_store8_release() */
RFM_INLINE void rfm_store16_release(void *base, uint64_t offset, uint16_t value)
{
	RFM__STORE_RELEASE(uint16_t, (char *)base + offset, value);
}

/** @brief Load 32 bits at @p offset of @p base, atomic and unordered. @copydetails rfm_load8() */
RFM_INLINE uint32_t rfm_load32(const void *base, uint64_t offset)
{
	RFM__LOAD(uint32_t, (const char *)base + offset);
}

/** @brief Load 32 bits; no later access moves before it. @copydetails rfm_load8_acquire() */
RFM_INLINE uint32_t rfm_load32_acquire(const void *base, uint64_t offset)
{
	RFM__LOAD_ACQUIRE(uint32_t, (const char *)base + offset);
}

/** @brief Store 32 bits at @p offset of @p base, atomic and unordered. @copydetails rfm_store8() */
RFM_INLINE void rfm_store32(void *base, uint64_t offset, uint32_t value)
{
	RFM__STORE(uint32_t, (char *)base + offset, value);
}

/** @brief Store 32 bits; no earlier access moves after it. @copydetails rfm_store8_release() */
RFM_INLINE void rfm_store32_release(void *base, uint64_t offset, uint32_t value)
{
	RFM__STORE_RELEASE(uint32_t, (char *)base + offset, value);
}

/** @brief Load 64 bits at @p offset of @p base, atomic and unordered. @copydetails rfm_load8() */
RFM_INLINE uint64_t rfm_load64(const void *base, uint64_t offset)
{
	RFM__LOAD(uint64_t, (const char *)base + offset);
}

/** @brief Load 64 bits; no later access moves before it. @copydetails rfm_load8_acquire() */
RFM_INLINE uint64_t rfm_load64_acquire(const void *base, uint64_t offset)
{
	RFM__LOAD_ACQUIRE(uint64_t, (const char *)base + offset);
}

/** @brief Store 64 bits at @p offset of @p base, atomic and unordered. @copydetails rfm_store8() */
RFM_INLINE void rfm_store64(void *base, uint64_t offset, uint64_t value)
{
	RFM__STORE(uint64_t, (char *)base + offset, value);
}

/** @brief Store 64 bits; no earlier access moves after it. @copydetails rfm_store8_release() */
RFM_INLINE void rfm_store64_release(void *base, uint64_t offset, uint64_t value)
{
	RFM__STORE_RELEASE(uint64_t, (char *)base + offset, value);
}

/**
 * @brief Acquire fence: no later access moves before it.
 *
 * Makes the relaxed loads before it acquire loads: after
 * rfm_load32() of a sequence flag, this fence orders the data reads that
 * follow after it.
 */
RFM_INLINE void rfm_fence_acquire(void)
{
	RFM__FENCE_ACQUIRE();
}

/**
 * @brief Release fence: no earlier access moves after it.
 *
 * Makes the relaxed stores after it release stores: data written before
 * the fence is visible to a reader that sees a flag stored after it.
 */
RFM_INLINE void rfm_fence_release(void)
{
	RFM__FENCE_RELEASE();
}

/**
 * @brief Full fence, for store-then-load protocols (Dekker-style flags).
 *
 * Orders every access before it with every access after it, stores
 * before loads included: "I announce, then I look" between two threads
 * or processes sharing one copy of the window.
 */
RFM_INLINE void rfm_fence_full(void)
{
	RFM__FENCE_FULL();
}

RFM_END_DECLS

/** @} */
#endif /* RFM_ACCESS_H */
