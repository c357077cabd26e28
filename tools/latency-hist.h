/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A latency histogram in the manner of HdrHistogram (Debian packages no C
 * HdrHistogram): values below 128 ns get a bucket each; above, every
 * power of two is split into 64 equal buckets, so any recorded value is
 * known to within 1/64 (1.6 %) over the whole range, in a fixed 30 KiB.
 * Exact minimum, maximum and sum are kept beside the buckets.
 * Used by rfm ping and by the benchmarks; not thread-safe.
 */
#ifndef RFM_LATENCY_HIST_H
#define RFM_LATENCY_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LHIST_LINEAR 128	/* values below this have a bucket each */
#define LHIST_SUB 64		/* buckets per power of two above it */
#define LHIST_BUCKETS (LHIST_LINEAR + (64 - 7) * LHIST_SUB)

struct lhist {
	uint64_t count;
	uint64_t min, max;
	double sum;
	uint64_t buckets[LHIST_BUCKETS];
};

void lhist_init(struct lhist *h);
void lhist_record(struct lhist *h, uint64_t value);

/* Lowest and highest value that land in bucket @i. */
uint64_t lhist_bucket_low(unsigned int i);
uint64_t lhist_bucket_high(unsigned int i);

/*
 * The value at quantile @q (0..1): the highest value equivalent to the
 * bucket holding that rank, clamped to [min, max]. 0 when empty.
 */
uint64_t lhist_quantile(const struct lhist *h, double q);
double lhist_mean(const struct lhist *h);

/*
 * Text picture: one line per power of two from min to max, with count and
 * a bar scaled to the fullest line, each line indented by @indent.
 */
void lhist_print_text(const struct lhist *h, FILE *out, const char *indent);

/*
 * CSV: "low_ns,high_ns,count,cumulative" for every non-empty bucket,
 * cumulative the fraction of values up to and including the bucket.
 * Returns 0 or -1 (errno set) when writing failed.
 */
int lhist_write_csv(const struct lhist *h, FILE *out);

/* One line of that CSV. */
struct lhist_bin {
	uint64_t low_ns, high_ns, count;
	double cumulative;	/* fraction of values up to this bucket, 0..1 */
};

#define LHIST_CSV_MAX_BINS 100000

/*
 * Read what lhist_write_csv() wrote: the header line, then bins in rising
 * order (low <= high, above the last bin), cumulative fractions rising to
 * at most 1. The one parser of that format, so that the reader cannot
 * drift from the writer. 0 with *@bins (malloc'd) and *@n; -1 with
 * *@lineno the first bad line, or 0 when reading or memory failed (errno).
 */
int lhist_read_csv(FILE *in, struct lhist_bin **bins, size_t *n, unsigned int *lineno);

#endif /* RFM_LATENCY_HIST_H */
