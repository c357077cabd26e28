/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Threads the library starts, with a scheduling policy, a priority and a
 * set of CPUs (the OS layer; docs/architecture.md, "The OS layer").
 * Threads are POSIX threads on every OS (Windows builds use winpthreads),
 * so pthread_t, mutexes and conditions need no wrapping; what differs is
 * how a thread gets its policy, priority and CPUs, and what a user must
 * change when the OS refuses them. rt-thread.c decides which threads get
 * what; this says how.
 */
#ifndef RFM_OS_THREAD_H
#define RFM_OS_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The CPUs a set can name: 0 .. RFM_OS_CPUS - 1 (Linux's CPU_SETSIZE). */
#define RFM_OS_CPUS 1024

/* A set of CPUs by number, the same on every OS. */
struct rfm_os_cpus {
	uint64_t bits[RFM_OS_CPUS / 64];
};

static inline void rfm__os_cpus_zero(struct rfm_os_cpus *set)
{
	for (unsigned int i = 0; i < RFM_OS_CPUS / 64; i++)
		set->bits[i] = 0;
}

static inline void rfm__os_cpus_add(struct rfm_os_cpus *set, unsigned int cpu)
{
	if (cpu < RFM_OS_CPUS)
		set->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

static inline bool rfm__os_cpus_has(const struct rfm_os_cpus *set, unsigned int cpu)
{
	return cpu < RFM_OS_CPUS && (set->bits[cpu / 64] >> (cpu % 64) & 1);
}

static inline unsigned int rfm__os_cpus_count(const struct rfm_os_cpus *set)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < RFM_OS_CPUS / 64; i++)
		n += (unsigned int)__builtin_popcountll(set->bits[i]);
	return n;
}

/* @set as a CPU list ("0-3,6") in @buf (cut short when it does not fit). */
void rfm__os_cpus_format(const struct rfm_os_cpus *set, char *buf, size_t size);

/*
 * The CPUs this process may run on (online and allowed: its affinity), in
 * *@set: 0, or -1 when the OS will not say.
 */
int rfm__os_cpus_usable(struct rfm_os_cpus *set);

/* How a library thread is scheduled (from the handle's determinism options). */
struct rfm_os_sched {
	int policy;			/* enum rfm_rt_policy (RFM_RT_INHERIT: as the caller) */
	int priority;			/* 1..99 with RFM_RT_FIFO and RFM_RT_RR */
	const struct rfm_os_cpus *cpus;	/* NULL: as the caller */
	bool lock_stack;		/* lock the thread's stack in RAM (lock=1) */
};

/*
 * Start @fn(@arg) on a new joinable thread scheduled as @sched says (NULL:
 * as the caller, nothing else done). Its first stack pages are mapped
 * (and, with lock_stack, locked) before @fn runs, so its loop never
 * faults on them. Where the OS can (Linux), the thread is created with its
 * policy, priority and CPUs, so it never runs an instruction otherwise;
 * elsewhere it takes them before @fn runs. Returns 0, or the errno value
 * the OS refused with (rfm__os_thread_error() explains it).
 */
int rfm__os_thread_start(pthread_t *thread, const struct rfm_os_sched *sched,
			 void *(*fn)(void *), void *arg);

/*
 * The rfm error (rfm__error(), with its message) for the @what thread of
 * @uri that could not start with @sched: @err from rfm__os_thread_start().
 * Names the right or limit of this OS that is missing, and how to get it.
 */
int rfm__os_thread_error(const struct rfm_os_sched *sched, const char *uri, const char *what,
			 int err);

/*
 * For the calling thread, which sleeps to absolute deadlines (the
 * recorder's sampler): wake as close to them as the OS allows (Linux: no
 * timer slack, which otherwise adds up to 50 us to every sleep of a
 * normal-policy thread). Best effort; nothing where the OS has no such knob.
 */
void rfm__os_thread_precise_timers(void);

#endif /* RFM_OS_THREAD_H */
