/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU lists, small file reads and real-time setup for the rfm tool (rt-util.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt-util.h"

int rt_parse_cpu_list(const char *text, rt_cpus *set)
{
	const char *p = text;

	rfm__os_cpus_zero(set);
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
		if (hi < lo || hi >= RFM_OS_CPUS)
			return -1;
		for (unsigned long c = lo; c <= hi; c++)
			rfm__os_cpus_add(set, (unsigned int)c);
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

void rt_format_cpu_list(const rt_cpus *set, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < RFM_OS_CPUS; c++) {
		if (!rfm__os_cpus_has(set, c))
			continue;
		unsigned int hi = c;
		while (hi + 1 < RFM_OS_CPUS && rfm__os_cpus_has(set, hi + 1))
			hi++;
		int n = hi > c ? snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", c, hi)
			       : snprintf(buf + len, size - len, "%s%u", len ? "," : "", c);
		if (n < 0 || (size_t)n >= size - len)
			return;
		len += (size_t)n;
		c = hi;
	}
}

bool rt_cpus_usable(const rt_cpus *set, char *bad, size_t bad_size, char *usable,
		    size_t usable_size)
{
	rt_cpus allowed, missing;

	bad[0] = usable[0] = '\0';
	if (tool_os_allowed_cpus(&allowed) != 0)
		return true;	/* unknown: setting the affinity has the last word */
	rt_cpus_minus(&missing, set, &allowed);
	if (!rfm__os_cpus_count(&missing))
		return true;
	rt_format_cpu_list(&missing, bad, bad_size);
	rt_format_cpu_list(&allowed, usable, usable_size);
	return false;
}

int rt_parse_cpu_option(struct cli *cli, const char *option, const char *arg, rt_cpus *set)
{
	char bad[128], usable[128];

	if (rt_parse_cpu_list(arg, set) || !rfm__os_cpus_count(set))
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
	char why[256];
	int err;

	if (setup->has_cpus && (err = tool_os_set_affinity(&setup->cpus))) {
		char list[128];

		rt_format_cpu_list(&setup->cpus, list, sizeof(list));
		return cli_error(cli, "cannot run on CPUs %s: %s (see taskset -p and the cpuset)",
				 list, strerror(err));
	}
	if (setup->rt_prio && (err = tool_os_set_rt_priority(setup->rt_prio, why, sizeof(why)))) {
		if (why[0])
			return cli_error(cli, "SCHED_FIFO priority %d refused: %s; rfm selftest "
					 "--system checks it", setup->rt_prio, why);
		return cli_error(cli, "SCHED_FIFO priority %d: %s", setup->rt_prio,
				 strerror(err));
	}
	if (setup->lock_memory && tool_os_lock_memory(why, sizeof(why)))
		return cli_error(cli, "--lock-memory: %s", why);
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
