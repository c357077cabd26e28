/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Futex helpers for the event path (the clock and the spin hint are in
 * cpu-clock.h), over the OS layer's word waits (os/wait.h: futexes on
 * Linux). Words on the shared segment are "shared" ones (another process
 * sleeps on them); words in a handle are private to the process, which is
 * cheaper for the kernel.
 */
#ifndef RFM_FUTEX_H
#define RFM_FUTEX_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu-clock.h"
#include "os/wait.h"

/*
 * Sleep while *word == expected, until @deadline_ns (CLOCK_MONOTONIC,
 * absolute; 0 = none). Returns 0 when woken or the word differs,
 * -ETIMEDOUT, or -EINTR. Spurious returns are possible: callers re-check.
 * A shared word lies in a segment other processes map (os/wait.h).
 */
static inline int rfm__futex_wait(uint32_t *word, uint32_t expected, uint64_t deadline_ns,
				  bool shared)
{
	return rfm__os_wait(word, expected, deadline_ns, shared);
}

static inline void rfm__futex_wake(uint32_t *word, bool shared)
{
	rfm__os_wake(word, shared);
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
			rfm__os_yield();
	}
}

static inline void rfm__unlock(uint32_t *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

#endif /* RFM_FUTEX_H */
