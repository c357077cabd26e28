/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* POSIX: the inline half of os/clock.h (read that header first). */
#ifndef RFM_OS_POSIX_CLOCK_INLINE_H
#define RFM_OS_POSIX_CLOCK_INLINE_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: a vDSO read on Linux, no system call. */
static inline uint64_t rfm__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC_COARSE in nanoseconds: the last tick, a few ns to read. */
static inline uint64_t rfm__os_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void rfm__os_yield(void)
{
	sched_yield();
}

#endif /* RFM_OS_POSIX_CLOCK_INLINE_H */
