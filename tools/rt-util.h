/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the real-time commands of the rfm tool share (rfm jitter, rfm ping,
 * rfm selftest --system): CPU lists as the kernel writes them ("0-3,6"),
 * small /proc and /sys reads, and putting the calling thread under
 * SCHED_FIFO on chosen CPUs with its memory locked.
 */
#ifndef RFM_TOOLS_RT_UTIL_H
#define RFM_TOOLS_RT_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "os/tool-os.h"

/* A set of CPUs (the OS layer's, the same on every OS). */
typedef struct rfm_os_cpus rt_cpus;

/* @out = the CPUs of @a that are not in @b. */
static inline void rt_cpus_minus(rt_cpus *out, const rt_cpus *a, const rt_cpus *b)
{
	for (unsigned int i = 0; i < RFM_OS_CPUS / 64; i++)
		out->bits[i] = a->bits[i] & ~b->bits[i];
}

/* @out = the CPUs in both @a and @b. */
static inline void rt_cpus_and(rt_cpus *out, const rt_cpus *a, const rt_cpus *b)
{
	for (unsigned int i = 0; i < RFM_OS_CPUS / 64; i++)
		out->bits[i] = a->bits[i] & b->bits[i];
}

/* Parse a kernel CPU list ("1", "0,2-3"; "" and "(null)" are empty). 0 or -1. */
int rt_parse_cpu_list(const char *text, rt_cpus *set);

/* Write @set as a CPU list into @buf ("" when empty). */
void rt_format_cpu_list(const rt_cpus *set, char *buf, size_t size);

/*
 * Does @set name only CPUs this process may run on (online and allowed)?
 * If not, the CPUs it may not use in @bad and those it may in @usable.
 */
bool rt_cpus_usable(const rt_cpus *set, char *bad, size_t bad_size, char *usable,
		    size_t usable_size);

/*
 * A CPU-list option (--cpu, --echo-cpu) into @set: a usage error naming
 * @option unless @arg is a list of CPUs this process may run on (the error
 * names those it may, as taskset does). 0 or CLI_EXIT_USAGE.
 */
int rt_parse_cpu_option(struct cli *cli, const char *option, const char *arg, rt_cpus *set);

/* The first line of a small file without its newline; false if unreadable. */
bool rt_read_line(const char *path, char *buf, size_t size);

/* What rt_apply() does to the calling thread. */
struct rt_setup {
	int rt_prio;		/* 0: keep the policy; 1..99: SCHED_FIFO (Windows: time-critical) */
	bool has_cpus;
	rt_cpus cpus;
	bool lock_memory;	/* lock the process in RAM (Linux: mlockall) */
};

/*
 * The --rt-prio, --cpu and --lock-memory options of a command: parse the
 * option @opt (one of the RT_OPT_* values below) with @arg into @setup.
 * Returns 0 or CLI_EXIT_USAGE after reporting.
 */
#define RT_OPT_PRIO 0x2001
#define RT_OPT_CPU 0x2002
#define RT_OPT_LOCK 0x2003
#define RT_OPTIONS                                                       \
	{ "rt-prio", required_argument, NULL, RT_OPT_PRIO },             \
	{ "cpu", required_argument, NULL, RT_OPT_CPU },                  \
	{ "lock-memory", no_argument, NULL, RT_OPT_LOCK }
int rt_parse_option(struct cli *cli, int opt, const char *arg, struct rt_setup *setup);

/*
 * Apply @setup to the calling thread (and lock the process's memory).
 * Returns 0 or CLI_EXIT_FAILED after saying which right is missing.
 */
int rt_apply(struct cli *cli, const struct rt_setup *setup);

/*
 * cli_open(), with the window and event queues mapped and locked
 * (RFM_MEM_LOCK) when @setup says --lock-memory. 0 or CLI_EXIT_FAILED.
 */
int rt_open(struct cli *cli, const struct rt_setup *setup);

#endif /* RFM_TOOLS_RT_UTIL_H */
