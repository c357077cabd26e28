/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers shared by the benchmarks: a monotonic clock in ns and the
 * median of repeated runs (the machine is shared and noisy: medians of
 * several runs, and ratios against a raw baseline measured in the same
 * run, are what mean something).
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n values (sorts them in place). */
static inline double bench_median(double *values, size_t n)
{
	qsort(values, n, sizeof(*values), bench_cmp_double);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

#endif /* BENCH_STATS_H */
