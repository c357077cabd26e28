/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Threads the library owns (event dispatcher, event-fd watcher, heartbeat)
 * started with the handle's scheduling policy, priority and CPU set. The
 * attributes are given to pthread_create() itself (explicit scheduling),
 * so a thread never runs a single instruction at the wrong priority, and a
 * refusal is an error of the call that asked for the thread.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <unistd.h>

#include "rt-internal.h"

#define CAP_SYS_NICE_BIT 23
/* Stack each real-time thread maps (and locks, with lock=1) before its loop. */
#define RT_STACK_PREFAULT (64 * 1024)

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

/* The error for pthread_create() failing with @err under @rt's attributes. */
static int explain(const struct rfm_rt_opts *rt, const char *uri, const char *what, int err)
{
	struct rlimit lim = { 0, 0 };
	char cpus[128];

	if (err == EPERM && (rt->policy == RFM_RT_FIFO || rt->policy == RFM_RT_RR)) {
		bool cap = has_cap_sys_nice();

		getrlimit(RLIMIT_RTPRIO, &lim);
		if (!cap && lim.rlim_cur < (rlim_t)rt->priority)
			return rfm__error(RFM_EPERM,
					  "%s: the %s thread may not run at real-time priority %d "
					  "(SCHED_%s): the process lacks CAP_SYS_NICE and its "
					  "RLIMIT_RTPRIO is %llu; raise the limit (ulimit -r %d, "
					  "'rtprio' in /etc/security/limits.conf, LimitRTPRIO= in a "
					  "systemd unit) or grant the capability (setcap "
					  "cap_sys_nice+ep PROGRAM)",
					  uri, what, rt->priority,
					  rt->policy == RFM_RT_FIFO ? "FIFO" : "RR",
					  (unsigned long long)lim.rlim_cur, rt->priority);
		return rfm__error(RFM_EPERM,
				  "%s: the %s thread may not run at real-time priority %d although "
				  "the process %s: its cgroup has no real-time runtime (give it "
				  "cpu.rt_runtime_us, or run it in the root cgroup)",
				  uri, what, rt->priority,
				  cap ? "has CAP_SYS_NICE" : "has a high enough RLIMIT_RTPRIO");
	}
	if (err == EPERM)
		return rfm__error(RFM_EPERM, "%s: the %s thread may not take the policy asked: %s",
				  uri, what, strerror(err));
	if (err == EINVAL && rt->has_cpus) {
		rfm__rt_format_cpus(&rt->cpus, cpus, sizeof(cpus));
		return rfm__error(RFM_EINVAL,
				  "%s: the %s thread cannot run on CPUs %s: none of them is online "
				  "and allowed to this process (see taskset -p %d and its cpuset)",
				  uri, what, cpus, (int)getpid());
	}
	return rfm__error(rfm__errno_code(err), "%s: starting the %s thread: %s", uri, what,
			  strerror(err));
}

static int make_attr(const struct rfm_rt_opts *rt, pthread_attr_t *attr)
{
	int err = pthread_attr_init(attr);

	if (err)
		return err;
	if (rt && rt->policy != RFM_RT_INHERIT) {
		struct sched_param sp = { .sched_priority = rt->priority };

		err = pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
		if (!err)
			err = pthread_attr_setschedpolicy(attr, sched_policy(rt->policy));
		if (!err)
			err = pthread_attr_setschedparam(attr, &sp);
	}
	if (!err && rt && rt->has_cpus)
		err = pthread_attr_setaffinity_np(attr, sizeof(rt->cpus), &rt->cpus);
	if (err)
		pthread_attr_destroy(attr);
	return err;
}

/* What a started thread runs first: its stack mapped (and locked) before its loop. */
struct rt_start {
	void *(*fn)(void *);
	void *arg;
	bool lock;
};

__attribute__((noinline)) static void prefault_stack(bool lock)
{
	volatile uint8_t area[RT_STACK_PREFAULT];
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < sizeof(area); i += (size_t)page)
		area[i] = 0;
	if (lock) {
		uintptr_t lo = (uintptr_t)area & ~((uintptr_t)page - 1);

		/* Best effort: the window's lock already told the user about limits. */
		(void)mlock((void *)lo, (uintptr_t)area + sizeof(area) - lo);
	}
}

static void *rt_thread_main(void *p)
{
	struct rt_start start = *(struct rt_start *)p;

	free(p);
	prefault_stack(start.lock);
	return start.fn(start.arg);
}

void rfm__rt_thread_precise_timers(void)
{
#if defined(HAVE_SYS_PRCTL_H) && defined(PR_SET_TIMERSLACK)
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

static void *probe_main(void *arg)
{
	return arg;
}

int rfm__rt_probe(const struct rfm_rt_opts *rt, const char *uri)
{
	pthread_attr_t attr;
	pthread_t t;
	int err = make_attr(rt, &attr);

	if (!err) {
		err = pthread_create(&t, &attr, probe_main, NULL);
		pthread_attr_destroy(&attr);
		if (!err)
			pthread_join(t, NULL);
	}
	return err ? explain(rt, uri, "dispatcher/heartbeat", err) : 0;
}

int rfm__rt_thread_create(struct rfm_node *node, pthread_t *thread, void *(*fn)(void *),
			  void *arg, const char *what)
{
	const struct rfm_rt_opts *rt = node->rt;
	struct rt_start *start;
	pthread_attr_t attr;
	int err;

	if (!rt) {
		err = pthread_create(thread, NULL, fn, arg);
		return err ? explain(&(struct rfm_rt_opts){ 0 }, node->uri, what, err) : 0;
	}
	start = malloc(sizeof(*start));
	if (!start)
		return rfm__error(RFM_ENOMEM, "%s: out of memory starting the %s thread", node->uri,
				  what);
	*start = (struct rt_start){ fn, arg, (rt->mem_flags & RFM_MEM_LOCK) != 0 };
	err = make_attr(rt, &attr);
	if (!err) {
		err = pthread_create(thread, &attr, rt_thread_main, start);
		pthread_attr_destroy(&attr);
	}
	if (err) {
		free(start);
		return explain(rt, node->uri, what, err);
	}
	return 0;
}
