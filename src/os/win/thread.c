/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/thread.h, over winpthreads. A thread cannot be created with
 * its priority and CPUs here, so it takes them first thing, before the
 * library's function runs, and tells its creator whether it could: a
 * refusal is still an error of the call that asked for the thread, and
 * the function never runs unscheduled.
 *
 * Priorities are best effort (docs/windows.md): a thread's priority is
 * relative to its process's priority class, which the library leaves to
 * the program (REALTIME_PRIORITY_CLASS needs a privilege and applies to
 * the whole process). rt_prio 1..99 maps onto ABOVE_NORMAL (1-32),
 * HIGHEST (33-65) and TIME_CRITICAL (66-99); rt_policy other is NORMAL.
 * CPUs are those of the thread's affinity mask: 0..63.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os/thread.h"
#include "os/win/win-internal.h"

/* Stack each scheduled thread maps (and locks, with lock_stack) before its loop. */
#define STACK_PREFAULT (64 * 1024)

int rfm__os_cpus_usable(struct rfm_os_cpus *set)
{
	DWORD_PTR process, system;

	if (!GetProcessAffinityMask(GetCurrentProcess(), &process, &system))
		return -1;
	rfm__os_cpus_zero(set);
	for (unsigned int c = 0; c < sizeof(process) * 8; c++)
		if (process >> c & 1)
			rfm__os_cpus_add(set, c);
	return 0;
}

static int priority_of(const struct rfm_os_sched *s)
{
	if (s->policy == RFM_RT_OTHER)
		return THREAD_PRIORITY_NORMAL;
	if (s->priority <= 32)
		return THREAD_PRIORITY_ABOVE_NORMAL;
	return s->priority <= 65 ? THREAD_PRIORITY_HIGHEST : THREAD_PRIORITY_TIME_CRITICAL;
}

/* Take @s's CPUs and priority: 0 or an errno value. */
static int take_sched(const struct rfm_os_sched *s)
{
	if (s->cpus) {
		DWORD_PTR mask = 0;

		for (unsigned int c = 0; c < sizeof(mask) * 8; c++)
			if (rfm__os_cpus_has(s->cpus, c))
				mask |= (DWORD_PTR)1 << c;
		if (!mask || !SetThreadAffinityMask(GetCurrentThread(), mask))
			return EINVAL;
	}
	if (s->policy != RFM_RT_INHERIT && !SetThreadPriority(GetCurrentThread(), priority_of(s)))
		return EPERM;
	return 0;
}

__attribute__((noinline)) static void prefault_stack(bool lock)
{
	volatile uint8_t area[STACK_PREFAULT];
	size_t page = 4096;

	for (size_t i = 0; i < sizeof(area); i += page)
		area[i] = 0;
	/* Best effort: the window's lock already told the user about limits. */
	if (lock)
		VirtualLock((void *)area, sizeof(area));
}

struct start {
	void *(*fn)(void *);
	void *arg;
	struct rfm_os_sched sched;
	struct rfm_os_cpus cpus;
	HANDLE ready;	/* set when err says how the start went */
	int err;
};

static void *thread_main(void *p)
{
	struct start *st = p;
	void *(*fn)(void *) = st->fn;
	void *arg = st->arg;
	bool lock = st->sched.lock_stack;
	int err = take_sched(&st->sched);

	st->err = err;
	SetEvent(st->ready); /* the creator owns st from here */
	if (err)
		return NULL;
	prefault_stack(lock);
	return fn(arg);
}

int rfm__os_thread_start(pthread_t *thread, const struct rfm_os_sched *s, void *(*fn)(void *),
			 void *arg)
{
	struct start *st;
	int err;

	if (!s)
		return pthread_create(thread, NULL, fn, arg);
	st = calloc(1, sizeof(*st));
	if (!st)
		return ENOMEM;
	*st = (struct start){ .fn = fn, .arg = arg, .sched = *s };
	if (s->cpus) {
		st->cpus = *s->cpus;
		st->sched.cpus = &st->cpus;
	}
	st->ready = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!st->ready) {
		free(st);
		return ENOMEM;
	}
	err = pthread_create(thread, NULL, thread_main, st);
	if (!err) {
		WaitForSingleObject(st->ready, INFINITE);
		err = st->err;
		if (err)
			pthread_join(*thread, NULL);
	}
	CloseHandle(st->ready);
	free(st);
	return err;
}

int rfm__os_thread_error(const struct rfm_os_sched *s, const char *uri, const char *what, int err)
{
	char cpus[128], usable_text[128];
	struct rfm_os_cpus usable;

	if (err == EPERM && s)
		return rfm__error(RFM_EPERM,
				  "%s: the %s thread may not take priority %d: Windows refused "
				  "SetThreadPriority()",
				  uri, what, s->priority);
	if (err == EINVAL && s && s->cpus) {
		rfm__os_cpus_format(s->cpus, cpus, sizeof(cpus));
		if (rfm__os_cpus_usable(&usable))
			snprintf(usable_text, sizeof(usable_text), "unknown");
		else
			rfm__os_cpus_format(&usable, usable_text, sizeof(usable_text));
		return rfm__error(RFM_EINVAL,
				  "%s: the %s thread cannot run on CPUs %s: none of them is in this "
				  "process's affinity mask (CPUs %s; CPUs above 63 are another "
				  "processor group)",
				  uri, what, cpus, usable_text);
	}
	return rfm__error(rfm__errno_code(err), "%s: starting the %s thread: %s", uri, what,
			  strerror(err));
}

/*
 * Nothing to do: Windows has no per-thread timer slack, and
 * rfm__os_sleep_until_ns() asks for a high-resolution timer itself.
 */
void rfm__os_thread_precise_timers(void)
{
}
