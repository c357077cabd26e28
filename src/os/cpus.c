/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU sets as text (os/thread.h): the same on every OS. */
#include "config.h"

#include <stdio.h>

#include "os/thread.h"

void rfm__os_cpus_format(const struct rfm_os_cpus *set, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < RFM_OS_CPUS; c++) {
		unsigned int hi = c;
		int n;

		if (!rfm__os_cpus_has(set, c))
			continue;
		while (hi + 1 < RFM_OS_CPUS && rfm__os_cpus_has(set, hi + 1))
			hi++;
		n = hi > c ? snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", c, hi)
			   : snprintf(buf + len, size - len, "%s%u", len ? "," : "", c);
		if (n < 0 || (size_t)n >= size - len)
			return;	/* cut short: the start still says which */
		len += (size_t)n;
		c = hi;
	}
}
