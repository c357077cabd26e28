/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/clock.h's hot-path functions (read that header first). Out of
 * line here (src/os/win/clock.c): an inline body would need <windows.h>
 * in every core file that waits.
 */
#ifndef RFM_OS_WIN_CLOCK_INLINE_H
#define RFM_OS_WIN_CLOCK_INLINE_H

#include <stdint.h>

/* QueryPerformanceCounter() in nanoseconds: one clock for every process. */
uint64_t rfm__now_ns(void);
/* GetTickCount64() in nanoseconds. */
uint64_t rfm__os_coarse_ns(void);
/* SwitchToThread(). */
void rfm__os_yield(void);

#endif /* RFM_OS_WIN_CLOCK_INLINE_H */
