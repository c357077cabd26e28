/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Clocks, pauses and yields (the OS layer; docs/architecture.md, "The OS
 * layer"). rfm__now_ns() and rfm__os_yield() are on the hot path of every
 * wait: they come from the OS's own inline header, os-clock-inline.h,
 * found through the OS's include directory (src/os/posix or src/os/win,
 * on every target's path by Makefile.am's AM_CPPFLAGS), so on Linux they
 * stay the inline clock_gettime() and sched_yield() calls they always were.
 *
 * The OS's inline header provides:
 *   uint64_t rfm__now_ns(void);   the monotonic clock in nanoseconds, the
 *                                 clock of every deadline and of sent_ns;
 *                                 one clock for every process of the host
 *   uint64_t rfm__os_coarse_ns(void);  a monotonic clock in nanoseconds that
 *                                 advances in ticks (a few ms) and costs a
 *                                 few ns to read; one for every process
 *   void rfm__os_yield(void);     give the CPU to another ready thread
 */
#ifndef RFM_OS_CLOCK_H
#define RFM_OS_CLOCK_H

#include <stdint.h>

#include "os-clock-inline.h"

/* Wall-clock time: nanoseconds since 1970-01-01 UTC (attach stamps). */
uint64_t rfm__os_realtime_ns(void);

/* Sleep for about @ns nanoseconds (at least the OS's timer resolution). */
void rfm__os_sleep_ns(uint64_t ns);

/*
 * Sleep until the monotonic clock (rfm__now_ns()) reads @deadline_ns, for
 * a thread that must wake on time (the recorder's sampler): an absolute
 * deadline, so a late wake-up does not shift the next one.
 */
void rfm__os_sleep_until_ns(uint64_t deadline_ns);

#endif /* RFM_OS_CLOCK_H */
