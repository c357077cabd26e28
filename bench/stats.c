/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The clock, medians, percentiles and report row of every benchmark (stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *values, size_t n)
{
	qsort(values, n, sizeof(*values), cmp_double);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct bench_pct bench_percentiles(double *samples, size_t n)
{
	qsort(samples, n, sizeof(*samples), cmp_double);
	return (struct bench_pct){
		.min = samples[0],
		.p50 = samples[n / 2],
		.p99 = samples[n * 99 / 100],
		.p999 = samples[n * 999 / 1000],
		.max = samples[n - 1],
	};
}

void bench_print_pct(const struct bench_pct *p, int decimals)
{
	printf(" %8.*f %8.*f %8.*f %8.*f %9.*f", decimals, p->min, decimals, p->p50, decimals,
	       p->p99, decimals, p->p999, decimals, p->max);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void bench_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t bench_quantile_u64(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n + 0.999999);

	return v[rank ? rank - 1 : 0];
}

void bench_print_rtt_json(uint64_t *rtt, size_t n, size_t size)
{
	bench_sort_u64(rtt, n);
	printf("{\"count\": %zu, \"size\": %zu, \"min_ns\": %llu, \"p50_ns\": %llu, "
	       "\"p99_ns\": %llu, \"p999_ns\": %llu, \"max_ns\": %llu}\n",
	       n, size, (unsigned long long)rtt[0],
	       (unsigned long long)bench_quantile_u64(rtt, n, 0.5),
	       (unsigned long long)bench_quantile_u64(rtt, n, 0.99),
	       (unsigned long long)bench_quantile_u64(rtt, n, 0.999),
	       (unsigned long long)rtt[n - 1]);
}

int bench_parse_u32(const char *s, unsigned long lo, unsigned long hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}
