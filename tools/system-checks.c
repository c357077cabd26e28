/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The checks of rfm selftest --system. Each reads what the kernel exports
 * (/sys, /proc, prctl, rlimits), never changes anything, and says what it
 * found and the command or boot option that fixes it. docs/tuning.md is
 * organised by the same keys.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "rt-util.h"
#include "system-checks.h"

#define SYS_CPU "/sys/devices/system/cpu"
/* C-states that take longer than this to leave cost a loop its deadline. */
#define CSTATE_MAX_LATENCY_US 2
/* Timer slack above this delays a sleeping loop's wake-up measurably. */
#define TIMER_SLACK_MAX_NS 1000
/* The default shm: window: what lock=1 must be allowed to lock. */
#define MEMLOCK_WANT (64ull << 20)
#define CAP_IPC_LOCK_BIT 14
#define CAP_SYS_NICE_BIT 23

#define SAY(res, st, ...) \
	((res)->status = (st), snprintf((res)->finding, sizeof((res)->finding), __VA_ARGS__))
#define FIX(res, ...) snprintf((res)->fix, sizeof((res)->fix), __VA_ARGS__)

const char *check_status_name(enum check_status status)
{
	switch (status) {
	case CHECK_OK: return "ok";
	case CHECK_WARN: return "warn";
	case CHECK_FAIL: return "fail";
	default: return "unknown";
	}
}

/* A CPU-specific problem: a failure when the user named the CPUs, else a warning. */
static enum check_status cpu_problem(const struct check_scope *scope)
{
	return scope->cpus_chosen ? CHECK_FAIL : CHECK_WARN;
}

static bool has_cap(int bit)
{
	char line[128];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps >> bit & 1;
}

static void check_kernel(const struct check_scope *scope, struct check_result *res)
{
	char rt[16] = "";
	struct utsname u;

	(void)scope;
	uname(&u);
	if ((rt_read_line("/sys/kernel/realtime", rt, sizeof(rt)) && !strcmp(rt, "1")) ||
	    strstr(u.version, "PREEMPT_RT")) {
		SAY(res, CHECK_OK, "PREEMPT_RT kernel %s", u.release);
		return;
	}
	SAY(res, CHECK_WARN, "kernel %s is not PREEMPT_RT (%s): interrupt handlers and "
	    "spinlocks can delay a real-time thread by hundreds of microseconds",
	    u.release, strstr(u.version, "PREEMPT_DYNAMIC") ? "PREEMPT_DYNAMIC" :
	    strstr(u.version, "PREEMPT") ? "PREEMPT" : "no forced preemption");
	FIX(res, "card hosts: apt install linux-image-rt-amd64 and boot it; shm: benches: "
	    "preempt=full on the kernel command line of a PREEMPT_DYNAMIC kernel");
}

static void check_cpu_list_file(const struct check_scope *scope, struct check_result *res,
				const char *file, const char *what, const char *param)
{
	char path[128], text[256] = "", missing[128];
	rt_cpus set, lack;

	snprintf(path, sizeof(path), SYS_CPU "/%s", file);
	if (!rt_read_line(path, text, sizeof(text)) && strcmp(file, "nohz_full")) {
		SAY(res, CHECK_UNKNOWN, "%s is not readable", path);
		FIX(res, "%s=%s on the kernel command line", param, scope->cpu_list);
		return;
	}
	if (rt_parse_cpu_list(text, &set))
		rfm__os_cpus_zero(&set);
	rt_cpus_minus(&lack, &scope->cpus, &set);
	if (!rfm__os_cpus_count(&lack)) {
		SAY(res, CHECK_OK, "CPUs %s are %s", scope->cpu_list, what);
		return;
	}
	rt_format_cpu_list(&lack, missing, sizeof(missing));
	SAY(res, cpu_problem(scope), "CPUs %s are not %s (%s: %s)", missing, what, param,
	    rfm__os_cpus_count(&set) ? text : "none");
	FIX(res, "boot with %s=%.40s and run the loop there: "
	    "rfm jitter --cpu %.40s, URI cpus=%.40s", param, missing, missing, missing);
}

static void check_isolcpus(const struct check_scope *scope, struct check_result *res)
{
	check_cpu_list_file(scope, res, "isolated", "isolated from the scheduler", "isolcpus");
}

static void check_nohz_full(const struct check_scope *scope, struct check_result *res)
{
	check_cpu_list_file(scope, res, "nohz_full", "tickless (nohz_full)", "nohz_full");
	/* The tick costs a few microseconds a millisecond: worth fixing, never fatal. */
	if (res->status == CHECK_FAIL)
		res->status = CHECK_WARN;
}

static void check_governor(const struct check_scope *scope, struct check_result *res)
{
	char path[128], gov[64], bad[160] = "";
	int seen = 0;
	size_t len = 0;

	for (int c = 0; c < RFM_OS_CPUS; c++) {
		if (!rfm__os_cpus_has(&scope->cpus, (unsigned int)c))
			continue;
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpufreq/scaling_governor", c);
		if (!rt_read_line(path, gov, sizeof(gov)))
			continue;
		seen++;
		if (strcmp(gov, "performance") && len < sizeof(bad) - 32)
			len += (size_t)snprintf(bad + len, sizeof(bad) - len, "%scpu%d: %s",
						len ? ", " : "", c, gov);
	}
	if (!seen) {
		SAY(res, CHECK_OK, "no cpufreq driver: the kernel does not scale the frequency "
			"of CPUs %s (firmware or hypervisor may)", scope->cpu_list);
		return;
	}
	if (!len) {
		SAY(res, CHECK_OK, "CPUs %s run the performance governor", scope->cpu_list);
		return;
	}
	SAY(res, cpu_problem(scope), "frequency scaling on the loop's CPUs (%s): each "
	    "frequency change stalls the CPU and a slow CPU stretches the loop", bad);
	FIX(res, "cpupower -c %s frequency-set -g performance (package linux-cpupower), or "
	    "echo performance > " SYS_CPU "/cpuN/cpufreq/scaling_governor", scope->cpu_list);
}

static void check_cpuidle(const struct check_scope *scope, struct check_result *res)
{
	char path[160], text[64], bad[200] = "";
	size_t len = 0;
	bool any = false;

	for (int c = 0; c < RFM_OS_CPUS; c++) {
		if (!rfm__os_cpus_has(&scope->cpus, (unsigned int)c))
			continue;
		for (int s = 0; s < 16; s++) {
			snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpuidle/state%d/latency", c, s);
			if (!rt_read_line(path, text, sizeof(text)))
				break;
			any = true;
			long latency = atol(text);
			snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpuidle/state%d/disable", c, s);
			if (rt_read_line(path, text, sizeof(text)) && !strcmp(text, "1"))
				continue;
			if (latency <= CSTATE_MAX_LATENCY_US)
				continue;
			snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpuidle/state%d/name", c, s);
			rt_read_line(path, text, sizeof(text));
			if (len < sizeof(bad) - 48)
				len += (size_t)snprintf(bad + len, sizeof(bad) - len,
							"%scpu%d %s (%ld us)", len ? ", " : "",
							c, text, latency);
		}
	}
	if (!any) {
		SAY(res, CHECK_OK, "no cpuidle driver: CPUs %s idle by halting (shallow)",
		    scope->cpu_list);
		return;
	}
	if (!len) {
		SAY(res, CHECK_OK, "every enabled C-state of CPUs %s exits within %d us",
		    scope->cpu_list, CSTATE_MAX_LATENCY_US);
		return;
	}
	SAY(res, cpu_problem(scope), "deep C-states enabled on the loop's CPUs: %s; waking "
	    "from them adds their exit latency to every event", bad);
	FIX(res, "cpupower -c %s idle-set -D %d, or boot with intel_idle.max_cstate=1 "
	    "processor.max_cstate=1, or hold /dev/cpu_dma_latency at 0 while the loop runs",
	    scope->cpu_list, CSTATE_MAX_LATENCY_US);
}

static void check_irqbalance(const struct check_scope *scope, struct check_result *res)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300], comm[64];
	long pid = 0;

	if (!d) {
		SAY(res, CHECK_UNKNOWN, "/proc is not readable");
		return;
	}
	while (!pid && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (rt_read_line(path, comm, sizeof(comm)) && !strcmp(comm, "irqbalance"))
			pid = atol(e->d_name);
	}
	closedir(d);
	if (!pid) {
		SAY(res, CHECK_OK, "irqbalance is not running: interrupts stay where they are set");
		return;
	}
	SAY(res, CHECK_WARN, "irqbalance (pid %ld) moves interrupts, possibly onto CPUs %s",
	    pid, scope->cpu_list);
	FIX(res, "IRQBALANCE_BANNED_CPULIST=%s in /etc/default/irqbalance, or systemctl disable "
	    "--now irqbalance and set /proc/irq/N/smp_affinity_list yourself", scope->cpu_list);
}

/* The card's interrupts ("rfm" in their /proc/interrupts name) and the default affinity. */
static void check_irq_affinity(const struct check_scope *scope, struct check_result *res)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char line[1024], path[64], list[256], floating[200] = "", pinned[200] = "";
	size_t nf = 0, np = 0;
	rt_cpus set, overlap;

	if (!f) {
		SAY(res, CHECK_UNKNOWN, "/proc/interrupts is not readable");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned int irq;
		const char *name = strstr(line, "rfm");

		if (!name || sscanf(line, " %u:", &irq) != 1)
			continue;
		snprintf(path, sizeof(path), "/proc/irq/%u/smp_affinity_list", irq);
		if (!rt_read_line(path, list, sizeof(list)) || rt_parse_cpu_list(list, &set))
			continue;
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (rfm__os_cpus_count(&set) > 1 && nf < sizeof(floating) - 64)
			nf += (size_t)snprintf(floating + nf, sizeof(floating) - nf, "%sIRQ %u (%.24s) "
					       "on CPUs %.16s", nf ? ", " : "", irq, name, list);
		else if (np < sizeof(pinned) - 64)
			np += (size_t)snprintf(pinned + np, sizeof(pinned) - np, "%sIRQ %u (%.24s) on "
					       "CPU %.16s", np ? ", " : "", irq, name, list);
	}
	fclose(f);
	if (nf) {
		SAY(res, CHECK_WARN, "card interrupt not pinned: %s", floating);
		FIX(res, "echo CPU > /proc/irq/N/smp_affinity_list (the loop's CPU %s, or a "
		    "housekeeping one), with irqbalance off or banned from it", scope->cpu_list);
		return;
	}
	if (scope->cpus_chosen && rt_read_line("/proc/irq/default_smp_affinity", list,
					       sizeof(list))) {
		/* A hex mask, lowest CPUs last: enough for the first 64 CPUs. */
		unsigned long long mask = strtoull(list + (strlen(list) > 16 ? strlen(list) - 16 : 0),
						   NULL, 16);

		rfm__os_cpus_zero(&set);
		for (int c = 0; c < 64; c++)
			if (mask >> c & 1)
				rfm__os_cpus_add(&set, (unsigned int)c);
		rt_cpus_and(&overlap, &set, &scope->cpus);
		if (rfm__os_cpus_count(&overlap)) {
			SAY(res, CHECK_WARN, "%s%snew device interrupts may land on CPUs %s "
			    "(/proc/irq/default_smp_affinity %s)", pinned, np ? "; " : "",
			    scope->cpu_list, list);
			FIX(res, "write a mask of the housekeeping CPUs to "
			    "/proc/irq/default_smp_affinity (boot: irqaffinity=0)");
			return;
		}
	}
	SAY(res, CHECK_OK, "%s", np ? pinned : "no reflective-memory card interrupt on this "
	    "host; default interrupt affinity spares the chosen CPUs or none chosen");
}

static void check_thp(const struct check_scope *scope, struct check_result *res)
{
	char text[128];

	(void)scope;
	if (!rt_read_line("/sys/kernel/mm/transparent_hugepage/enabled", text, sizeof(text))) {
		SAY(res, CHECK_OK, "no transparent huge pages in this kernel");
		return;
	}
	if (strstr(text, "[always]")) {
		SAY(res, CHECK_WARN, "transparent huge pages: %s; khugepaged and compaction "
		    "stall page faults and move pages under the loop", text);
		FIX(res, "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled (boot: "
		    "transparent_hugepage=madvise)");
		return;
	}
	SAY(res, CHECK_OK, "transparent huge pages: %s", text);
}

static void check_swap(const struct check_scope *scope, struct check_result *res)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[256];
	int devices = -1; /* the header line */

	(void)scope;
	if (!f) {
		SAY(res, CHECK_UNKNOWN, "/proc/swaps is not readable");
		return;
	}
	while (fgets(line, sizeof(line), f))
		devices++;
	fclose(f);
	if (devices <= 0) {
		SAY(res, CHECK_OK, "no swap: anonymous memory is never paged out");
		return;
	}
	SAY(res, CHECK_WARN, "%d swap device(s): unlocked memory of the loop may be paged out "
	    "and fault back in on the hot path", devices);
	FIX(res, "open the node with lock=1 and run the loop with mlockall (rfm jitter "
	    "--lock-memory), or swapoff -a on a dedicated host");
}

static void check_timer_slack(const struct check_scope *scope, struct check_result *res)
{
	int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	(void)scope;
	if (slack < 0) {
		SAY(res, CHECK_UNKNOWN, "prctl(PR_GET_TIMERSLACK) failed");
		return;
	}
	if (slack <= TIMER_SLACK_MAX_NS) {
		SAY(res, CHECK_OK, "timer slack %d ns", slack);
		return;
	}
	SAY(res, CHECK_WARN, "timer slack %d ns (inherited by the loop unless it runs "
	    "SCHED_FIFO): timed sleeps may end that much late", slack);
	FIX(res, "run the loop SCHED_FIFO (--rt-prio, URI rt_prio), or call "
	    "prctl(PR_SET_TIMERSLACK, 1) in it");
}

static void check_rt_throttling(const struct check_scope *scope, struct check_result *res)
{
	char text[32];

	(void)scope;
	if (!rt_read_line("/proc/sys/kernel/sched_rt_runtime_us", text, sizeof(text))) {
		SAY(res, CHECK_UNKNOWN, "/proc/sys/kernel/sched_rt_runtime_us is not readable");
		return;
	}
	if (!strcmp(text, "-1")) {
		SAY(res, CHECK_OK, "RT throttling off: a real-time loop is never stopped");
		return;
	}
	SAY(res, CHECK_WARN, "RT throttling on: real-time threads get %s us per second; a "
	    "busy-polling loop is then stopped for the rest of each second", text);
	FIX(res, "echo -1 > /proc/sys/kernel/sched_rt_runtime_us (kernel.sched_rt_runtime_us=-1 "
	    "in /etc/sysctl.d) once the loop sleeps every period or a watchdog guards it");
}

static void check_rt_permission(const struct check_scope *scope, struct check_result *res)
{
	struct rlimit lim = { 0, 0 };

	(void)scope;
	getrlimit(RLIMIT_RTPRIO, &lim);
	if (has_cap(CAP_SYS_NICE_BIT)) {
		SAY(res, CHECK_OK, "CAP_SYS_NICE: any real-time priority is allowed");
		return;
	}
	if (lim.rlim_cur >= 1) {
		SAY(res, CHECK_OK, "RLIMIT_RTPRIO %llu: SCHED_FIFO up to that priority",
		    (unsigned long long)lim.rlim_cur);
		return;
	}
	SAY(res, CHECK_FAIL, "no CAP_SYS_NICE and RLIMIT_RTPRIO 0: the loop and the library's "
	    "threads cannot run SCHED_FIFO (rt_prio= fails with RFM_EPERM)");
	FIX(res, "'@rfm - rtprio 90' in /etc/security/limits.conf (LimitRTPRIO=90 in a systemd "
	    "unit), or setcap cap_sys_nice+ep PROGRAM");
}

static void check_memlock(const struct check_scope *scope, struct check_result *res)
{
	struct rlimit lim = { 0, 0 };

	(void)scope;
	getrlimit(RLIMIT_MEMLOCK, &lim);
	if (has_cap(CAP_IPC_LOCK_BIT) || lim.rlim_cur == RLIM_INFINITY) {
		SAY(res, CHECK_OK, "memory locking unlimited (%s)",
		    lim.rlim_cur == RLIM_INFINITY ? "RLIMIT_MEMLOCK unlimited" : "CAP_IPC_LOCK");
		return;
	}
	if (lim.rlim_cur >= MEMLOCK_WANT) {
		SAY(res, CHECK_OK, "RLIMIT_MEMLOCK %llu KiB", (unsigned long long)lim.rlim_cur >> 10);
		return;
	}
	SAY(res, CHECK_FAIL, "RLIMIT_MEMLOCK is %llu KiB: lock=1 on a %llu MiB window fails "
	    "with RFM_ENOMEM, and --lock-memory fails", (unsigned long long)lim.rlim_cur >> 10,
	    MEMLOCK_WANT >> 20);
	FIX(res, "ulimit -l unlimited, '@rfm - memlock unlimited' in /etc/security/limits.conf "
	    "(LimitMEMLOCK=infinity in a systemd unit), or CAP_IPC_LOCK");
}

static void check_hugepages(const struct check_scope *scope, struct check_result *res)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long total = -1, free_pages = -1, size_kb = 0;

	(void)scope;
	if (!f) {
		SAY(res, CHECK_UNKNOWN, "/proc/meminfo is not readable");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %ld", &total);
		sscanf(line, "HugePages_Free: %ld", &free_pages);
		sscanf(line, "Hugepagesize: %ld kB", &size_kb);
	}
	fclose(f);
	if (total < 0) {
		SAY(res, CHECK_UNKNOWN, "no huge page support in this kernel");
		return;
	}
	if (total > 0) {
		SAY(res, CHECK_OK, "%ld huge pages of %ld KiB reserved, %ld free (a shm: network "
		    "created with hugepages=1 keeps its window in them)", total, size_kb, free_pages);
		return;
	}
	long want = size_kb > 0 ? (long)((MEMLOCK_WANT >> 10) / (unsigned long)size_kb) : 32;
	SAY(res, CHECK_WARN, "no huge pages reserved: large buffers of the loop use %s pages "
	    "and take TLB misses", "4 KiB");
	FIX(res, "sysctl vm.nr_hugepages=%ld (%ld x %ld KiB = one 64 MiB window; "
	    "vm.nr_hugepages in /etc/sysctl.d, or hugepages=%ld at boot), a hugetlbfs mounted "
	    "(mount -t hugetlbfs none /dev/hugepages), then create shm: networks with "
	    "hugepages=1 to put their window in huge pages", want, want, size_kb, want);
}

const struct system_check system_checks[] = {
	{ "kernel_preempt", "kernel preemption model", check_kernel },
	{ "isolcpus", "CPU isolation (isolcpus)", check_isolcpus },
	{ "nohz_full", "tickless CPUs (nohz_full)", check_nohz_full },
	{ "cpu_governor", "CPU frequency governor", check_governor },
	{ "cpu_idle", "C-states (cpuidle)", check_cpuidle },
	{ "irqbalance", "interrupt balancing (irqbalance)", check_irqbalance },
	{ "irq_affinity", "card and default IRQ affinity", check_irq_affinity },
	{ "irq_thread", "card IRQ thread priority and CPUs", check_irq_thread },
	{ "transparent_hugepages", "transparent huge pages", check_thp },
	{ "swap", "swap", check_swap },
	{ "timer_slack", "timer slack", check_timer_slack },
	{ "rt_throttling", "RT throttling", check_rt_throttling },
	{ "rt_permission", "real-time priority allowed", check_rt_permission },
	{ "memlock_limit", "memory lock limit", check_memlock },
	{ "hugepages", "huge pages reserved", check_hugepages },
	{ NULL, NULL, NULL },
};
