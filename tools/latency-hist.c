/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Log-linear latency histogram; see latency-hist.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latency-hist.h"

void lhist_init(struct lhist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static unsigned int bucket_of(uint64_t v)
{
	if (v < LHIST_LINEAR)
		return (unsigned int)v;
	unsigned int msb = 63u - (unsigned int)__builtin_clzll(v);	/* >= 7 */
	unsigned int shift = msb - 6;	/* v >> shift lies in [64, 128) */

	return LHIST_LINEAR + (msb - 7) * LHIST_SUB + (unsigned int)((v >> shift) - LHIST_SUB);
}

uint64_t lhist_bucket_low(unsigned int i)
{
	if (i < LHIST_LINEAR)
		return i;
	unsigned int k = i - LHIST_LINEAR, msb = 7 + k / LHIST_SUB;

	return (uint64_t)(LHIST_SUB + k % LHIST_SUB) << (msb - 6);
}

uint64_t lhist_bucket_high(unsigned int i)
{
	if (i < LHIST_LINEAR)
		return i;
	unsigned int k = i - LHIST_LINEAR, msb = 7 + k / LHIST_SUB;

	return lhist_bucket_low(i) + ((uint64_t)1 << (msb - 6)) - 1;
}

void lhist_record(struct lhist *h, uint64_t value)
{
	h->buckets[bucket_of(value)]++;
	h->count++;
	h->sum += (double)value;
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
}

uint64_t lhist_quantile(const struct lhist *h, double q)
{
	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	/* The rank of the value at q, 1-based: the ceiling of q * count. */
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned int i = 0; i < LHIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			uint64_t v = lhist_bucket_high(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

double lhist_mean(const struct lhist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

static void print_ns(FILE *out, uint64_t ns)
{
	if (ns < 10000)
		fprintf(out, "%6llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		fprintf(out, "%6llu us", (unsigned long long)(ns / 1000));
	else
		fprintf(out, "%6llu ms", (unsigned long long)(ns / 1000000));
}

void lhist_print_text(const struct lhist *h, FILE *out, const char *indent)
{
	enum { WIDTH = 50 };
	uint64_t lines[65] = { 0 }, fullest = 0;
	int lo = 64, hi = 0;

	if (!h->count)
		return;
	/* Coarse lines by power of two: [2^p, 2^(p+1)), with 0 and 1 in line 0. */
	for (unsigned int i = 0; i < LHIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		uint64_t low = lhist_bucket_low(i);
		int p = low ? 63 - __builtin_clzll(low) : 0;
		lines[p] += h->buckets[i];
		lo = p < lo ? p : lo;
		hi = p > hi ? p : hi;
	}
	for (int p = lo; p <= hi; p++)
		fullest = lines[p] > fullest ? lines[p] : fullest;
	for (int p = lo; p <= hi; p++) {
		int bar = (int)((lines[p] * WIDTH + fullest - 1) / fullest);
		fprintf(out, "%s", indent);
		print_ns(out, p ? (uint64_t)1 << p : 0);
		fprintf(out, " .. ");
		print_ns(out, p < 63 ? ((uint64_t)1 << (p + 1)) - 1 : UINT64_MAX);
		fprintf(out, " %10llu |%.*s\n", (unsigned long long)lines[p], bar,
			"##################################################");
	}
}

int lhist_write_csv(const struct lhist *h, FILE *out)
{
	uint64_t seen = 0;

	fprintf(out, "low_ns,high_ns,count,cumulative\n");
	for (unsigned int i = 0; i < LHIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		seen += h->buckets[i];
		fprintf(out, "%llu,%llu,%llu,%.6f\n", (unsigned long long)lhist_bucket_low(i),
			(unsigned long long)lhist_bucket_high(i),
			(unsigned long long)h->buckets[i], (double)seen / (double)h->count);
	}
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* One bin line; @prev the bin before it (NULL for the first). */
static bool parse_bin(const char *line, const struct lhist_bin *prev, struct lhist_bin *b)
{
	int used = -1;

	if (sscanf(line, "%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%lf%n", &b->low_ns, &b->high_ns,
		   &b->count, &b->cumulative, &used) != 4 || used < 0)
		return false;
	if (strcmp(line + used, "\n") && strcmp(line + used, "\r\n") && line[used])
		return false;
	/* Only what the writer writes: digits, commas, a point (no sign, space, exponent). */
	if (line[strspn(line, "0123456789,.\r\n")] || b->high_ns < b->low_ns ||
	    !isfinite(b->cumulative) || b->cumulative < 0 || b->cumulative > 1.0000005)
		return false;
	if (prev && (b->low_ns <= prev->high_ns || b->cumulative < prev->cumulative))
		return false;
	return true;
}

int lhist_read_csv(FILE *in, struct lhist_bin **bins, size_t *n, unsigned int *lineno)
{
	char line[256];
	struct lhist_bin *v = NULL;
	size_t count = 0;

	*bins = NULL;
	*n = 0;
	*lineno = 0;
	while (fgets(line, sizeof(line), in)) {
		struct lhist_bin b;

		++*lineno;
		if (*lineno == 1) {
			if (strcmp(line, "low_ns,high_ns,count,cumulative\n") &&
			    strcmp(line, "low_ns,high_ns,count,cumulative\r\n"))
				goto bad;
			continue;
		}
		if (!strchr(line, '\n') && !feof(in))
			goto bad;	/* longer than any line the writer makes */
		if (count >= LHIST_CSV_MAX_BINS || !parse_bin(line, count ? &v[count - 1] : NULL, &b))
			goto bad;
		struct lhist_bin *p = realloc(v, (count + 1) * sizeof(*p));
		if (!p) {
			*lineno = 0;
			goto bad;
		}
		v = p;
		v[count++] = b;
	}
	if (ferror(in)) {
		*lineno = 0;
		if (!errno)
			errno = EIO;
		goto bad;
	}
	if (*lineno == 0) {
		*lineno = 1;	/* an empty file: its first line is not the header */
		goto bad;
	}
	*bins = v;
	*n = count;
	return 0;
bad:
	free(v);
	return -1;
}
