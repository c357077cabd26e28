/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* POSIX: os/clock.h's functions that are not inline. */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "os/clock.h"

uint64_t rfm__os_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rfm__os_sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

void rfm__os_sleep_until_ns(uint64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000u),
			       (long)(deadline_ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
