/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Linux: os/thread.h. The policy, priority and CPU set are given to
 * pthread_create() itself (explicit scheduling), so a thread never runs a
 * single instruction at the wrong priority, and a refusal is an error of
 * the call that asked for the thread.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"
#include "os/thread.h"

#define CAP_SYS_NICE_BIT 23
/* Stack each scheduled thread maps (and locks, with lock_stack) before its loop. */
#define STACK_PREFAULT (64 * 1024)

int rfm__os_cpus_usable(struct rfm_os_cpus *set)
{
	cpu_set_t usable;

	if (sched_getaffinity(0, sizeof(usable), &usable) != 0)
		return -1;
	rfm__os_cpus_zero(set);
	for (unsigned int c = 0; c < RFM_OS_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &usable))
			rfm__os_cpus_add(set, c);
	return 0;
}

static int sched_policy(int policy)
{
	switch (policy) {
	case RFM_RT_FIFO: return SCHED_FIFO;
	case RFM_RT_RR: return SCHED_RR;
	default: return SCHED_OTHER;
	}
}

/* Is CAP_SYS_NICE in this thread's effective set? (/proc: no libcap needed) */
static bool has_cap_sys_nice(void)
{
	char line[128];
	bool found = false, yes = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			yes = caps >> CAP_SYS_NICE_BIT & 1;
		}
	}
	fclose(f);
	return yes;
}

int rfm__os_thread_error(const struct rfm_os_sched *s, const char *uri, const char *what, int err)
{
	static const struct rfm_os_sched none = { 0 };
	struct rlimit lim = { 0, 0 };
	char cpus[128];

	if (!s)
		s = &none;
	if (err == EPERM && (s->policy == RFM_RT_FIFO || s->policy == RFM_RT_RR)) {
		bool cap = has_cap_sys_nice();

		getrlimit(RLIMIT_RTPRIO, &lim);
		if (!cap && lim.rlim_cur < (rlim_t)s->priority)
			return rfm__error(RFM_EPERM,
					  "%s: the %s thread may not run at real-time priority %d "
					  "(SCHED_%s): the process lacks CAP_SYS_NICE and its "
					  "RLIMIT_RTPRIO is %llu; raise the limit (ulimit -r %d, "
					  "'rtprio' in /etc/security/limits.conf, LimitRTPRIO= in a "
					  "systemd unit) or grant the capability (setcap "
					  "cap_sys_nice+ep PROGRAM)",
					  uri, what, s->priority,
					  s->policy == RFM_RT_FIFO ? "FIFO" : "RR",
					  (unsigned long long)lim.rlim_cur, s->priority);
		return rfm__error(RFM_EPERM,
				  "%s: the %s thread may not run at real-time priority %d although "
				  "the process %s: its cgroup has no real-time runtime (give it "
				  "cpu.rt_runtime_us, or run it in the root cgroup)",
				  uri, what, s->priority,
				  cap ? "has CAP_SYS_NICE" : "has a high enough RLIMIT_RTPRIO");
	}
	if (err == EPERM)
		return rfm__error(RFM_EPERM, "%s: the %s thread may not take the policy asked: %s",
				  uri, what, strerror(err));
	if (err == EINVAL && s->cpus) {
		rfm__os_cpus_format(s->cpus, cpus, sizeof(cpus));
		return rfm__error(RFM_EINVAL,
				  "%s: the %s thread cannot run on CPUs %s: none of them is online "
				  "and allowed to this process (see taskset -p %d and its cpuset)",
				  uri, what, cpus, (int)getpid());
	}
	return rfm__error(rfm__errno_code(err), "%s: starting the %s thread: %s", uri, what,
			  strerror(err));
}

static int make_attr(const struct rfm_os_sched *s, pthread_attr_t *attr)
{
	int err = pthread_attr_init(attr);

	if (err)
		return err;
	if (s->policy != RFM_RT_INHERIT) {
		struct sched_param sp = { .sched_priority = s->priority };

		err = pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
		if (!err)
			err = pthread_attr_setschedpolicy(attr, sched_policy(s->policy));
		if (!err)
			err = pthread_attr_setschedparam(attr, &sp);
	}
	if (!err && s->cpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		for (unsigned int c = 0; c < RFM_OS_CPUS && c < CPU_SETSIZE; c++)
			if (rfm__os_cpus_has(s->cpus, c))
				CPU_SET(c, &set);
		err = pthread_attr_setaffinity_np(attr, sizeof(set), &set);
	}
	if (err)
		pthread_attr_destroy(attr);
	return err;
}

/* What a started thread runs first: its stack mapped (and locked) before its loop. */
struct start {
	void *(*fn)(void *);
	void *arg;
	bool lock;
};

__attribute__((noinline)) static void prefault_stack(bool lock)
{
	volatile uint8_t area[STACK_PREFAULT];
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < sizeof(area); i += (size_t)page)
		area[i] = 0;
	if (lock) {
		uintptr_t lo = (uintptr_t)area & ~((uintptr_t)page - 1);

		/* Best effort: the window's lock already told the user about limits. */
		(void)mlock((void *)lo, (uintptr_t)area + sizeof(area) - lo);
	}
}

static void *thread_main(void *p)
{
	struct start start = *(struct start *)p;

	free(p);
	prefault_stack(start.lock);
	return start.fn(start.arg);
}

int rfm__os_thread_start(pthread_t *thread, const struct rfm_os_sched *s, void *(*fn)(void *),
			 void *arg)
{
	struct start *start;
	pthread_attr_t attr;
	int err;

	if (!s)
		return pthread_create(thread, NULL, fn, arg);
	start = malloc(sizeof(*start));
	if (!start)
		return ENOMEM;
	*start = (struct start){ fn, arg, s->lock_stack };
	err = make_attr(s, &attr);
	if (!err) {
		err = pthread_create(thread, &attr, thread_main, start);
		pthread_attr_destroy(&attr);
	}
	if (err)
		free(start);
	return err;
}

void rfm__os_thread_precise_timers(void)
{
#if defined(HAVE_SYS_PRCTL_H) && defined(PR_SET_TIMERSLACK)
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}
