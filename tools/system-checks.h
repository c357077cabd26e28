/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm selftest --system: the machine checked the way a real-time
 * integrator would, one finding per check, each with its fix. The list of
 * checks is fixed (their keys are the JSON keys; docs/tuning.md explains
 * each), so scripts and tests can rely on every key being present.
 */
#ifndef RFM_TOOLS_SYSTEM_CHECKS_H
#define RFM_TOOLS_SYSTEM_CHECKS_H

#include <stdbool.h>

#include "cli.h"
#include "rt-util.h"

enum check_status {
	CHECK_OK,	/* nothing to change */
	CHECK_WARN,	/* costs tail latency: worth fixing */
	CHECK_FAIL,	/* wrong for the chosen CPUs: a loop there will miss deadlines */
	CHECK_UNKNOWN,	/* the machine does not say (file missing) */
};

struct check_result {
	enum check_status status;
	char finding[1024];	/* what was found */
	char fix[1024];		/* what to do ("" when nothing) */
};

/* What the checks look at. */
struct check_scope {
	rt_cpus cpus;		/* the loop's CPUs: --cpu, else the CPUs allowed */
	bool cpus_chosen;	/* --cpu was given: CPU-specific problems are failures */
	char cpu_list[128];	/* cpus as a list, for messages */
	int rt_prio;		/* the loop's SCHED_FIFO priority: --rt-prio, 0 when not given */
};

struct system_check {
	const char *key;	/* JSON key, e.g. "cpu_governor" */
	const char *title;	/* for the text report */
	void (*run)(const struct check_scope *scope, struct check_result *res);
};

/* Every check, in report order; NULL-terminated by key. */
extern const struct system_check system_checks[];

const char *check_status_name(enum check_status status);

/* The card's interrupt threads above the loop's priority (system-check-irq-thread.c). */
void check_irq_thread(const struct check_scope *scope, struct check_result *res);

/* rfm selftest --system [--cpu LIST] [--rt-prio P]: called by rfm selftest (cmd-health.c). */
int cli_selftest_system(struct cli *cli, int argc, char **argv);

#endif /* RFM_TOOLS_SYSTEM_CHECKS_H */
