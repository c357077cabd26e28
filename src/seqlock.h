/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sequence lock of records, as inline steps shared by record.c and
 * var.c. The sequence word lives in the window, in the record's byte
 * order, so nodes of either endianness agree on it.
 *
 * Writer: odd = seq | 1; store odd; release fence; data; store-release
 * odd + 1. (Starting from "seq | 1" lets a writer that died mid-publish,
 * leaving seq odd, be followed by a clean publish.)
 * Reader: s = load-acquire; odd -> retry; data; acquire fence; reload;
 * changed -> retry.
 */
#ifndef RFM_SEQLOCK_H
#define RFM_SEQLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <rfm/access.h>

#include "cpu-clock.h"

static inline uint32_t rfm__seq_fix(uint32_t raw, bool swap)
{
	return swap ? __builtin_bswap32(raw) : raw;
}

/* Start a read: the sequence seen; odd means a publish is in progress. */
static inline uint32_t rfm__seq_read_begin(const uint8_t *seq, bool swap)
{
	return rfm__seq_fix(rfm_load32_acquire(seq, 0), swap);
}

/* After copying the data: must the read be retried? */
static inline bool rfm__seq_read_retry(const uint8_t *seq, bool swap, uint32_t start)
{
	rfm_fence_acquire();
	return (start & 1) || rfm__seq_fix(rfm_load32(seq, 0), swap) != start;
}

/* Start a publish; returns the value rfm__seq_write_end() stores. */
static inline uint32_t rfm__seq_write_begin(uint8_t *seq, bool swap)
{
	uint32_t odd = rfm__seq_fix(rfm_load32(seq, 0), swap) | 1u;

	rfm_store32(seq, 0, rfm__seq_fix(odd, swap));
	rfm_fence_release(); /* the odd sequence is visible before any data */
	return odd + 1;
}

static inline void rfm__seq_write_end(uint8_t *seq, bool swap, uint32_t even)
{
	rfm_store32_release(seq, 0, rfm__seq_fix(even, swap));
}

#endif /* RFM_SEQLOCK_H */
