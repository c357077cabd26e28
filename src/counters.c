/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Process-wide counters of rare events (ring laps, seqlock retries) for
 * rfm_health_get_counters(). Only touched off the fast path.
 */
#include "config.h"

#include "internal.h"
#include "ring-internal.h"

static uint64_t ring_lost;
static uint64_t record_retries;

void rfm__count_ring_lost(uint64_t n)
{
	__atomic_fetch_add(&ring_lost, n, __ATOMIC_RELAXED);
}

void rfm__count_record_retry(uint64_t n)
{
	__atomic_fetch_add(&record_retries, n, __ATOMIC_RELAXED);
}

uint64_t rfm__counted_ring_lost(void)
{
	return __atomic_load_n(&ring_lost, __ATOMIC_RELAXED);
}

uint64_t rfm__counted_record_retries(void)
{
	return __atomic_load_n(&record_retries, __ATOMIC_RELAXED);
}
