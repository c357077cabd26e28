/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Determinism options of a handle (realtime.h): what rt-options.c parses
 * from the URI and the options structure, and what mem-lock.c and
 * rt-thread.c apply. Private to the library.
 */
#ifndef RFM_RT_INTERNAL_H
#define RFM_RT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <rfm/realtime.h>

#include "internal.h"
#include "os/thread.h"

/* A handle's options; rfm__core(node)->rt, NULL when none was asked. */
struct rfm_rt_opts {
	uint32_t mem_flags;	/* RFM_MEM_PREFAULT | RFM_MEM_LOCK */
	int policy;		/* enum rfm_rt_policy */
	int priority;		/* 1..99 for FIFO and RR */
	bool has_cpus;
	struct rfm_os_cpus cpus;
};

/* ---- rt-options.c ---- */

/*
 * Merge @options (may be NULL) with the URI's parameters into rfm__core(node)->rt and
 * check the process may use them (a probe thread with the same attributes):
 * RFM_EPERM with a message naming CAP_SYS_NICE and RLIMIT_RTPRIO otherwise.
 * Runs before the backend sees the URI, as rfm__event_options().
 */
int rfm__rt_options(struct rfm_node *node, struct rfm_uri *uri,
		    const struct rfm_open_options *options);
/* Mark the URI's determinism parameters used (rfm_network_destroy ignores them). */
void rfm__rt_uri_ignore(struct rfm_uri *uri);
/* Parse "0,2-3" into @set; RFM_EINVAL for anything else or CPUs >= RFM_OS_CPUS. */
int rfm__rt_parse_cpus(const char *text, struct rfm_os_cpus *set);

/* ---- rt-thread.c ---- */

/* rfm__rt_thread_create(): backend.h, which lends it to backends. */
/* Start and join a thread with @rt's attributes: 0, or the error it would get. */
int rfm__rt_probe(const struct rfm_rt_opts *rt, const char *uri);
/* rt-cpus.c: RFM_EINVAL naming the CPUs of @set this process cannot run on, and those it can. */
int rfm__rt_check_cpus(const char *uri, const struct rfm_os_cpus *set);

/* ---- mem-lock.c ---- */

/* After the backend's open: prefault and lock the window as rfm__core(node)->rt asks. */
int rfm__mem_window(struct rfm_node *node);
/* After the handle's event queue exists: the same for the queue's memory,
 * [addr, addr+len), as the backend's event ops told the event code. */
int rfm__mem_event_queue(struct rfm_node *node, void *addr, size_t len);

#endif /* RFM_RT_INTERNAL_H */
