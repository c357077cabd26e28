/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Futex helpers for the event path (the clock and the spin hint are in
 * cpu-clock.h). Futexes on the shared segment are "shared" ones (another
 * process sleeps on them); futexes in a handle are private to the
 * process, which is cheaper for the kernel.
 */
#ifndef RFM_FUTEX_H
#define RFM_FUTEX_H

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu-clock.h"

/*
 * Sleep while *word == expected, until @deadline_ns (CLOCK_MONOTONIC,
 * absolute; 0 = none). Returns 0 when woken or the word differs,
 * -ETIMEDOUT, or -EINTR. Spurious returns are possible: callers re-check.
 */
static inline int rfm__futex_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns,
				  bool shared)
{
	struct timespec ts, *tsp = NULL;
	int op = FUTEX_WAIT_BITSET | (shared ? 0 : FUTEX_PRIVATE_FLAG);

	if (deadline_ns) {
		ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
		ts.tv_nsec = (long)(deadline_ns % 1000000000u);
		tsp = &ts;
	}
	if (syscall(SYS_futex, word, op, expected, tsp, NULL, FUTEX_BITSET_MATCH_ANY) == 0)
		return 0;
	if (errno == EAGAIN)
		return 0;
	return -errno;
}

static inline void rfm__futex_wake(uint32_t *word, bool shared)
{
	syscall(SYS_futex, word, FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG), INT_MAX, NULL,
		NULL, 0);
}

/* Bump a futex word and wake all its sleepers. */
static inline void rfm__futex_bump_wake(uint32_t *word, bool shared)
{
	__atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
	rfm__futex_wake(word, shared);
}

/*
 * A lock for short critical sections on the event path: one atomic
 * exchange to take it, a plain release store to drop it. A waiter spins
 * briefly, then yields; holders never sleep while holding it.
 */
static inline void rfm__lock(uint32_t *lock)
{
	for (unsigned int i = 0;; i++) {
		if (!__atomic_load_n(lock, __ATOMIC_RELAXED) &&
		    !__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
			return;
		if (i < 128)
			rfm__cpu_relax();
		else
			sched_yield();
	}
}

static inline void rfm__unlock(uint32_t *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

#endif /* RFM_FUTEX_H */
