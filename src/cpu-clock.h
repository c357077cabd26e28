/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The two primitives every library wait is made of: the monotonic clock
 * it measures spin times and deadlines with, and the hint it gives the
 * core while it spins. One definition, so that event, ring, record and
 * variable waits spin alike.
 */
#ifndef RFM_CPU_CLOCK_H
#define RFM_CPU_CLOCK_H

#include <stdint.h>

/* rfm__now_ns(): CLOCK_MONOTONIC in nanoseconds, the clock of every
 * deadline and sent_ns; inline on every OS (os/clock.h). */
#include "os/clock.h"

/*
 * A hint to the core that we spin; lets a sibling thread run. Also a
 * compiler barrier, so a spin loop re-reads what it polls.
 */
static inline void rfm__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* RFM_CPU_CLOCK_H */
