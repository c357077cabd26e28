/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The raw ping-pong baselines, without the library: one process stores a
 * sequence number, the other answers with the same number.
 *   flag   both sides spin on a shared word
 *   futex  store, then FUTEX_WAKE; the waiter sleeps in FUTEX_WAIT
 * Shared by bench-events (against rfm events) and bench-baselines (the
 * suite's table, against rfm ping). The words live in memory both
 * processes map (MAP_SHARED).
 */
#ifndef BENCH_RAW_PINGPONG_H
#define BENCH_RAW_PINGPONG_H

#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One ping-pong channel; each word on its own cache line. */
struct raw_pp {
	uint32_t ping __attribute__((aligned(64)));
	uint32_t pong __attribute__((aligned(64)));
};

static inline void raw_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline void raw_futex_wait(uint32_t *w, uint32_t v)
{
	syscall(SYS_futex, w, FUTEX_WAIT, v, NULL, NULL, 0);
}

static inline void raw_futex_wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static inline uint32_t raw_load(uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

static inline void raw_store(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
}

static inline void raw_flag_ping(struct raw_pp *c, uint32_t seq)
{
	raw_store(&c->ping, seq);
	while (raw_load(&c->pong) != seq)
		raw_relax();
}

static inline void raw_flag_pong(struct raw_pp *c, uint32_t seq)
{
	while (raw_load(&c->ping) != seq)
		raw_relax();
	raw_store(&c->pong, seq);
}

static inline void raw_futex_ping(struct raw_pp *c, uint32_t seq)
{
	uint32_t v;

	raw_store(&c->ping, seq);
	raw_futex_wake(&c->ping);
	while ((v = raw_load(&c->pong)) != seq)
		raw_futex_wait(&c->pong, v);
}

static inline void raw_futex_pong(struct raw_pp *c, uint32_t seq)
{
	uint32_t v;

	while ((v = raw_load(&c->ping)) != seq)
		raw_futex_wait(&c->ping, v);
	raw_store(&c->pong, seq);
	raw_futex_wake(&c->pong);
}

/*
 * Pin the calling process to the @nth CPU it may run on (no-op if absent).
 * Spinning peers must not share a CPU: pinned to two, they cannot.
 */
static inline void raw_pin_to(int nth)
{
	cpu_set_t allowed, one;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || seen++ != nth)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
		return;
	}
}

/* Undo raw_pin_to(): every CPU the machine has. */
static inline void raw_unpin(void)
{
	cpu_set_t all;

	CPU_ZERO(&all);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &all);
	sched_setaffinity(0, sizeof(all), &all);
}

#endif /* BENCH_RAW_PINGPONG_H */
