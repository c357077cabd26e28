/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A CPU list must name only CPUs the process may run on: online and in
 * its allowed set (the OS layer's rfm__os_cpus_usable() gives both at
 * once). Linux would take a list with one such CPU and quietly drop the
 * others, so a typo (cpus=0,1,7 on a 2-CPU machine) would run unnoticed
 * where it was not meant to; like taskset, the error names the CPUs that
 * can be used.
 */
#include "config.h"

#include "os/process.h"
#include "rt-internal.h"

int rfm__rt_check_cpus(const char *uri, const struct rfm_os_cpus *set)
{
	struct rfm_os_cpus usable, bad;
	char bad_text[128], usable_text[128];

	if (rfm__os_cpus_usable(&usable) != 0)
		return 0;	/* unknown: the thread's start has the last word */
	for (unsigned int i = 0; i < RFM_OS_CPUS / 64; i++)
		bad.bits[i] = set->bits[i] & ~usable.bits[i];
	if (!rfm__os_cpus_count(&bad))
		return 0;
	rfm__os_cpus_format(&bad, bad_text, sizeof(bad_text));
	rfm__os_cpus_format(&usable, usable_text, sizeof(usable_text));
	return rfm__error(RFM_EINVAL,
			  "%s: cpus names CPU%s %s, not online or not allowed to this process "
			  "(pid %d): it may run on CPUs %s",
			  uri, rfm__os_cpus_count(&bad) > 1 ? "s" : "", bad_text,
			  (int)rfm__os_pid(), usable_text);
}
