/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Threads the library owns (event dispatcher, event-fd watcher, heartbeat)
 * started with the handle's scheduling policy, priority and CPU set; how a
 * thread gets them, and what a refusal means, is the OS layer's
 * (os/thread.h).
 */
#include "config.h"

#include "rt-internal.h"

/* The scheduling @rt asks for, as the OS layer takes it. */
static struct rfm_os_sched sched_of(const struct rfm_rt_opts *rt)
{
	return (struct rfm_os_sched){
		.policy = rt->policy,
		.priority = rt->priority,
		.cpus = rt->has_cpus ? &rt->cpus : NULL,
		.lock_stack = (rt->mem_flags & RFM_MEM_LOCK) != 0,
	};
}

static void *probe_main(void *arg)
{
	return arg;
}

int rfm__rt_probe(const struct rfm_rt_opts *rt, const char *uri)
{
	struct rfm_os_sched s = sched_of(rt);
	pthread_t t;
	int err;

	s.lock_stack = false;
	err = rfm__os_thread_start(&t, &s, probe_main, NULL);
	if (!err)
		pthread_join(t, NULL);
	return err ? rfm__os_thread_error(&s, uri, "dispatcher/heartbeat", err) : 0;
}

int rfm__rt_thread_create(struct rfm_node *node, pthread_t *thread, void *(*fn)(void *),
			  void *arg, const char *what)
{
	struct rfm_os_sched s;
	int err;

	if (rfm__core(node)->rt)
		s = sched_of(rfm__core(node)->rt);
	err = rfm__os_thread_start(thread, rfm__core(node)->rt ? &s : NULL, fn, arg);
	return err ? rfm__os_thread_error(rfm__core(node)->rt ? &s : NULL, node->uri, what, err)
		   : 0;
}
