/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel facilities that the driver's pure logic
 * files (event queue, ivshmem mailbox, 5565 register paths) use, so that
 * the same files compile in the kernel and in user-space unit tests.
 */
#ifndef RFM_PORTABLE_H
#define RFM_PORTABLE_H

#ifdef __KERNEL__

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>

#else /* user space: unit tests and lab tools */

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#ifndef BIT
#define BIT(n) (1UL << (n))
#endif

#ifndef READ_ONCE
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* The kernel's barriers, as C11 atomics: same pairing rules. */
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)	/* user-space twin */
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)	/* twin */
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)	/* user-space twin */
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)	/* user-space twin */
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)	/* user-space twin */
#endif

#define le32_to_cpu(x) ((u32)le32toh(x))
#define cpu_to_le32(x) ((__le32)htole32(x))
#define le64_to_cpu(x) ((u64)le64toh(x))
#define cpu_to_le64(x) ((__le64)htole64(x))

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "operation not supported" */
#endif

#endif /* __KERNEL__ */

#endif /* RFM_PORTABLE_H */
