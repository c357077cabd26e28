/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A CPU list must name only CPUs the process may run on: online and in
 * its allowed set (sched_getaffinity() gives both at once). The kernel
 * would take a list with one such CPU and quietly drop the others, so a
 * typo (cpus=0,1,7 on a 2-CPU machine) would run unnoticed where it was
 * not meant to; like taskset, the error names the CPUs that can be used.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "rt-internal.h"

void rfm__rt_format_cpus(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int hi = c, n;

		if (!CPU_ISSET(c, set))
			continue;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		n = hi > c ? snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", c, hi)
			   : snprintf(buf + len, size - len, "%s%d", len ? "," : "", c);
		if (n < 0 || (size_t)n >= size - len)
			return;	/* cut short: the start still says which */
		len += (size_t)n;
		c = hi;
	}
}

int rfm__rt_check_cpus(const char *uri, const cpu_set_t *set)
{
	cpu_set_t usable, bad;
	char bad_text[128], usable_text[128];

	if (sched_getaffinity(0, sizeof(usable), &usable) != 0)
		return 0;	/* unknown: pthread_attr_setaffinity_np() has the last word */
	CPU_XOR(&bad, set, &usable);
	CPU_AND(&bad, &bad, set);
	if (!CPU_COUNT(&bad))
		return 0;
	rfm__rt_format_cpus(&bad, bad_text, sizeof(bad_text));
	rfm__rt_format_cpus(&usable, usable_text, sizeof(usable_text));
	return rfm__error(RFM_EINVAL,
			  "%s: cpus names CPU%s %s, not online or not allowed to this process "
			  "(pid %d): it may run on CPUs %s",
			  uri, CPU_COUNT(&bad) > 1 ? "s" : "", bad_text, (int)getpid(), usable_text);
}
