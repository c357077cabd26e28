/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Determinism options of a handle (realtime.h): what rt-options.c parses
 * from the URI and the options structure, and what mem-lock.c and
 * rt-thread.c apply. Private to the library.
 */
#ifndef RFM_RT_INTERNAL_H
#define RFM_RT_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include <rfm/realtime.h>

#include "internal.h"

/* A handle's options; node->rt, NULL when none was asked. */
struct rfm_rt_opts {
	uint32_t mem_flags;	/* RFM_MEM_PREFAULT | RFM_MEM_LOCK */
	int policy;		/* enum rfm_rt_policy */
	int priority;		/* 1..99 for FIFO and RR */
	bool has_cpus;
	cpu_set_t cpus;
};

/* ---- rt-options.c ---- */

/*
 * Merge @options (may be NULL) with the URI's parameters into node->rt and
 * check the process may use them (a probe thread with the same attributes):
 * RFM_EPERM with a message naming CAP_SYS_NICE and RLIMIT_RTPRIO otherwise.
 * Runs before the backend sees the URI, as rfm__event_options().
 */
int rfm__rt_options(struct rfm_node *node, struct rfm_uri *uri,
		    const struct rfm_open_options *options);
/* Mark the URI's determinism parameters used (rfm_network_destroy ignores them). */
void rfm__rt_uri_ignore(struct rfm_uri *uri);
/* Parse "0,2-3" into @set; RFM_EINVAL for anything else or CPUs >= CPU_SETSIZE. */
int rfm__rt_parse_cpus(const char *text, cpu_set_t *set);

/* ---- rt-thread.c ---- */

/*
 * pthread_create() for a thread the library owns (@what: "dispatcher"...),
 * with the handle's policy, priority and CPU set. Returns 0 or an rfm error
 * with a message saying what right is missing.
 */
int rfm__rt_thread_create(struct rfm_node *node, pthread_t *thread, void *(*fn)(void *),
			  void *arg, const char *what);
/*
 * For the calling thread, which sleeps to absolute deadlines (the
 * recorder's sampler): wake as close to them as the OS allows (Linux:
 * no timer slack, which otherwise adds up to 50 us to every sleep of a
 * normal-policy thread). Best effort; nothing where the OS has no such knob.
 */
void rfm__rt_thread_precise_timers(void);
/* Start and join a thread with @rt's attributes: 0, or the error it would get. */
int rfm__rt_probe(const struct rfm_rt_opts *rt, const char *uri);
/* rt-cpus.c: RFM_EINVAL naming the CPUs of @set this process cannot run on, and those it can. */
int rfm__rt_check_cpus(const char *uri, const cpu_set_t *set);
/* @set as a CPU list ("0-3,6") in @buf. */
void rfm__rt_format_cpus(const cpu_set_t *set, char *buf, size_t size);

/* ---- mem-lock.c ---- */

/* After the backend's open: prefault and lock the window as node->rt asks. */
int rfm__mem_window(struct rfm_node *node);
/* After the handle's event queue exists: the same for the queue's memory,
 * [addr, addr+len), as the backend's event ops told the event code. */
int rfm__mem_event_queue(struct rfm_node *node, void *addr, size_t len);
/* Map every page of [addr, addr+len) without changing its contents. */
void rfm__mem_prefault(void *addr, size_t len);
/* mlock [addr, addr+len); 0 or RFM_ENOMEM/RFM_EPERM naming RLIMIT_MEMLOCK. */
int rfm__mem_lock(const char *uri, const char *what, void *addr, size_t len);

#endif /* RFM_RT_INTERNAL_H */
