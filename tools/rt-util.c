/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU lists, small file reads and real-time setup for the rfm tool (rt-util.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "rt-util.h"

int rt_parse_cpu_list(const char *text, cpu_set_t *set)
{
	const char *p = text;

	CPU_ZERO(set);
	if (!strcmp(text, "") || !strcmp(text, "(null)"))
		return 0;
	while (*p) {
		char *end;
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			return -1;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -1;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || hi >= CPU_SETSIZE)
			return -1;
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, set);
		if (*end == ',' && end[1])
			end++;
		else if (*end && *end != '\n')
			return -1;
		else if (*end == '\n')
			break;
		p = end;
	}
	return 0;
}

void rt_format_cpu_list(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int hi = c;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		int n = hi > c ? snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", c, hi)
			       : snprintf(buf + len, size - len, "%s%d", len ? "," : "", c);
		if (n < 0 || (size_t)n >= size - len)
			return;
		len += (size_t)n;
		c = hi;
	}
}

bool rt_cpus_usable(const cpu_set_t *set, char *bad, size_t bad_size, char *usable,
		    size_t usable_size)
{
	cpu_set_t allowed, missing;

	bad[0] = usable[0] = '\0';
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return true;	/* unknown: setting the affinity has the last word */
	CPU_XOR(&missing, set, &allowed);
	CPU_AND(&missing, &missing, set);
	if (!CPU_COUNT(&missing))
		return true;
	rt_format_cpu_list(&missing, bad, bad_size);
	rt_format_cpu_list(&allowed, usable, usable_size);
	return false;
}

int rt_parse_cpu_option(struct cli *cli, const char *option, const char *arg, cpu_set_t *set)
{
	char bad[128], usable[128];

	if (rt_parse_cpu_list(arg, set) || !CPU_COUNT(set))
		return cli_usage_error(cli, "%s '%s' is not a CPU list such as 1 or 0,2-3", option,
				       arg);
	/* The kernel would drop the CPUs it cannot use and run on the rest. */
	if (!rt_cpus_usable(set, bad, sizeof(bad), usable, sizeof(usable)))
		return cli_usage_error(cli, "%s '%s': %s %s %s not online or not allowed to this "
				       "process; it may use CPUs %s", option, arg,
				       strpbrk(bad, ",-") ? "CPUs" : "CPU", bad,
				       strpbrk(bad, ",-") ? "are" : "is", usable);
	return 0;
}

bool rt_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

int rt_parse_option(struct cli *cli, int opt, const char *arg, struct rt_setup *setup)
{
	uint64_t v;
	int ret;

	switch (opt) {
	case RT_OPT_PRIO:
		ret = cli_parse_u64(cli, "--rt-prio", arg, 99, &v);
		if (ret)
			return ret;
		if (v == 0)
			return cli_usage_error(cli, "--rt-prio must be 1..99");
		setup->rt_prio = (int)v;
		return 0;
	case RT_OPT_CPU:
		ret = rt_parse_cpu_option(cli, "--cpu", arg, &setup->cpus);
		setup->has_cpus = ret == 0;
		return ret;
	case RT_OPT_LOCK:
		setup->lock_memory = true;
		return 0;
	}
	return cli_usage_error(cli, "unknown option");
}

/* The stack the loop will use, mapped now rather than on its first deep call. */
__attribute__((noinline)) static void prefault_stack(void)
{
	volatile char area[128 * 1024];

	for (size_t i = 0; i < sizeof(area); i += 4096)
		area[i] = 0;
}

int rt_apply(struct cli *cli, const struct rt_setup *setup)
{
	int err;

	if (setup->has_cpus && (err = pthread_setaffinity_np(pthread_self(), sizeof(setup->cpus),
							     &setup->cpus))) {
		char list[128];

		rt_format_cpu_list(&setup->cpus, list, sizeof(list));
		return cli_error(cli, "cannot run on CPUs %s: %s (see taskset -p and the cpuset)",
				 list, strerror(err));
	}
	if (setup->rt_prio) {
		struct sched_param sp = { .sched_priority = setup->rt_prio };

		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (err == EPERM) {
			struct rlimit lim = { 0, 0 };

			getrlimit(RLIMIT_RTPRIO, &lim);
			return cli_error(cli,
					 "SCHED_FIFO priority %d refused: the process lacks "
					 "CAP_SYS_NICE and RLIMIT_RTPRIO is %llu (ulimit -r %d, or "
					 "run as root); rfm selftest --system checks it",
					 setup->rt_prio, (unsigned long long)lim.rlim_cur,
					 setup->rt_prio);
		}
		if (err)
			return cli_error(cli, "SCHED_FIFO priority %d: %s", setup->rt_prio,
					 strerror(err));
	}
	/*
	 * MCL_ONFAULT: lock what is mapped as it is touched, rather than
	 * populate every mapping (the shm: segment's sparse event area would
	 * be allocated whole); the nodes' lock=1 maps the window and queues.
	 */
	if (setup->lock_memory && mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) {
		struct rlimit lim = { 0, 0 };

		err = errno;
		getrlimit(RLIMIT_MEMLOCK, &lim);
		return cli_error(cli,
				 "--lock-memory: mlockall: %s; RLIMIT_MEMLOCK is %llu KiB (ulimit -l "
				 "unlimited, or CAP_IPC_LOCK)",
				 strerror(err), (unsigned long long)lim.rlim_cur >> 10);
	}
	if (setup->lock_memory)
		prefault_stack();
	return 0;
}

int rt_open(struct cli *cli, const struct rt_setup *setup)
{
	struct rfm_open_options o;

	if (cli->node || !setup->lock_memory)
		return cli_open(cli);
	memset(&o, 0, sizeof(o));
	o.struct_size = sizeof(o);
	o.mem_flags = RFM_MEM_LOCK;
	if (rfm_open_with_options(cli_effective_uri(cli), &o, &cli->node)) {
		cli->node = NULL;
		return cli_fail(cli);
	}
	return 0;
}
