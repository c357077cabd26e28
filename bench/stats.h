/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every benchmark shares (bench/stats.c): a monotonic clock in ns,
 * the median of repeated runs, the percentiles of a set of samples and
 * their report row. The machine is shared and noisy: medians of several
 * runs, and ratios against a raw baseline measured in the same run, are
 * what mean something.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);

/* Median of @n values (sorts them in place). */
double bench_median(double *values, size_t n);

/* The spread of a set of samples. */
struct bench_pct {
	double min, p50, p99, p999, max;
};

/* Percentiles of @n > 0 samples (sorts them in place): the sample at rank n * q. */
struct bench_pct bench_percentiles(double *samples, size_t n);

/*
 * The five columns min, P50, P99, P99.9, max of @p, each 8 wide (max 9)
 * with @decimals places, after a space each; no newline.
 */
void bench_print_pct(const struct bench_pct *p, int decimals);

/* Sort @n integer samples (nanoseconds) in place, for bench_quantile_u64(). */
void bench_sort_u64(uint64_t *v, size_t n);

/* The value at quantile @q of @n sorted values: the ceil(q*n)-th smallest. */
uint64_t bench_quantile_u64(const uint64_t *v, size_t n, double q);

/*
 * Sort @n > 0 round-trip times (ns) and print them as one JSON line:
 * count, size (@size, the payload), min_ns, p50_ns, p99_ns, p999_ns,
 * max_ns. bench-hosts.py reads it from every round-trip program.
 */
void bench_print_rtt_json(uint64_t *rtt, size_t n, size_t size);

/* @s as a whole number in [lo, hi] (0x and 0 prefixes taken); -1 if not. */
int bench_parse_u32(const char *s, unsigned long lo, unsigned long hi, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_STATS_H */
