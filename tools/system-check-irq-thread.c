/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm selftest --system's irq_thread check: the card's interrupt threads
 * (irq/N-rfm-ivshmem, irq/N-rfm-5565, the vendor's irq/N-rfm2g; on
 * PREEMPT_RT also the forced primary irq/N-s-...) must run above the
 * loop's SCHED_FIFO priority, or an event waits until the loop sleeps;
 * and for chosen CPUs, either on them or off them, not floating across
 * both. It reads /proc only.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt-util.h"
#include "system-checks.h"

#define SAY(res, st, ...) \
	((res)->status = (st), snprintf((res)->finding, sizeof((res)->finding), __VA_ARGS__))
#define FIX(res, ...) snprintf((res)->fix, sizeof((res)->fix), __VA_ARGS__)

struct irq_thread {
	long pid;
	char comm[32];
	int policy;		/* SCHED_OTHER 0, FIFO 1, RR 2, ... (/proc/PID/stat field 41) */
	int prio;		/* rt_priority (field 40) */
	rt_cpus cpus;		/* Cpus_allowed_list */
	char cpu_list[64];
};

/* irq/N-rfm... or irq/N-s-rfm... (names are cut at 15 characters). */
static bool is_card_thread(const char *comm)
{
	return !strncmp(comm, "irq/", 4) && strstr(comm, "rfm");
}

static bool read_sched(long pid, struct irq_thread *t)
{
	char path[64], buf[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Fields after the command's closing parenthesis start at 3 (state). */
	char *p = strrchr(buf, ')');
	int field = 2;
	long rt_priority = -1, policy = -1;

	for (char *tok = p ? strtok(p + 1, " ") : NULL; tok; tok = strtok(NULL, " ")) {
		field++;
		if (field == 40)
			rt_priority = atol(tok);
		else if (field == 41)
			policy = atol(tok);
	}
	if (rt_priority < 0 || policy < 0)
		return false;
	t->prio = (int)rt_priority;
	t->policy = (int)policy;
	return true;
}

static bool read_cpus(long pid, struct irq_thread *t)
{
	char path[64], line[256];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			char *v = line + 18;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(t->cpu_list, sizeof(t->cpu_list), "%s", v);
			found = !rt_parse_cpu_list(v, &t->cpus);
		}
	fclose(f);
	return found;
}

/* The card's interrupt threads, up to @max; returns how many were found. */
static size_t find_threads(struct irq_thread *t, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300];
	size_t n = 0;

	while (d && n < max && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		memset(&t[n], 0, sizeof(t[n]));
		t[n].pid = atol(e->d_name);
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (rt_read_line(path, t[n].comm, sizeof(t[n].comm)) && is_card_thread(t[n].comm) &&
		    read_sched(t[n].pid, &t[n]) && read_cpus(t[n].pid, &t[n]))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static const char *policy_name(int policy)
{
	return policy == 1 ? "SCHED_FIFO" : policy == 2 ? "SCHED_RR" : "not real-time";
}

/* On some of the loop's CPUs and on others too: it lands on either. */
static bool floats_across(const struct check_scope *scope, const struct irq_thread *t)
{
	rt_cpus in, out;

	rt_cpus_and(&in, &t->cpus, &scope->cpus);
	rt_cpus_minus(&out, &t->cpus, &in);
	return rfm__os_cpus_count(&in) && rfm__os_cpus_count(&out);
}

void check_irq_thread(const struct check_scope *scope, struct check_result *res)
{
	struct irq_thread t[64];
	size_t n = find_threads(t, sizeof(t) / sizeof(t[0])), len = 0;
	char list[700] = "";
	const struct irq_thread *low = NULL, *floating = NULL;

	if (!n) {
		SAY(res, CHECK_OK, "no card interrupt thread (irq/N-rfm...) on this host");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		bool rt = t[i].policy == 1 || t[i].policy == 2;

		if (!low && (!rt || (scope->rt_prio && t[i].prio <= scope->rt_prio)))
			low = &t[i];
		if (!floating && scope->cpus_chosen && floats_across(scope, &t[i]))
			floating = &t[i];
		if (len < sizeof(list) - 80)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s (pid %ld) %s %d "
						"on CPUs %s", len ? ", " : "", t[i].comm, t[i].pid,
						policy_name(t[i].policy), t[i].prio, t[i].cpu_list);
	}
	if (low) {
		SAY(res, scope->rt_prio ? CHECK_FAIL : CHECK_WARN, "%s is at %s %d, not above the "
		    "loop's %d: its events wait while the loop runs; %s", low->comm,
		    policy_name(low->policy), low->prio, scope->rt_prio, list);
		FIX(res, "rfm.ko: echo %d > /sys/module/rfm/parameters/irq_prio (options rfm "
		    "irq_prio=%d in /etc/modprobe.d), or chrt -f -p %d %ld for each such thread",
		    scope->rt_prio + 1, scope->rt_prio + 1, scope->rt_prio + 1, low->pid);
		return;
	}
	if (floating) {
		SAY(res, CHECK_WARN, "%s may run on CPUs %s, the loop on %s: some events are "
		    "served on the loop's CPU, some elsewhere; %s", floating->comm,
		    floating->cpu_list, scope->cpu_list, list);
		FIX(res, "echo CPU > /proc/irq/N/smp_affinity_list (its thread follows the IRQ): "
		    "the loop's CPU %s or a housekeeping one", scope->cpu_list);
		return;
	}
	SAY(res, CHECK_OK, "%s%s", list, scope->rt_prio ? "" :
	    " (give --rt-prio with the loop's priority to compare)");
}
