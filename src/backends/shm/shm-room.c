/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a full segment directory (/dev/shm on Linux, os/file.h) says: how big it is, how much is free, what was
 * needed, and a fix that can work. When a window was being sized, the hint
 * names the largest window that fits what is free once the header, the
 * node table and one receiver's event queue are counted, rounded down to
 * the 4096-byte rule; when none fits, or nothing can be made smaller (an
 * event queue of an existing network), only more room will do.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/shm/shm-internal.h"

/* @v bytes as a size= value: the largest unit that divides it. */
static void size_text(uint64_t v, char *buf, size_t len)
{
	if (v && v % (UINT64_C(1) << 30) == 0)
		snprintf(buf, len, "%lluG", (unsigned long long)(v >> 30));
	else if (v && v % (UINT64_C(1) << 20) == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)(v >> 10));
}

uint64_t rfm__shm_window_that_fits(uint64_t avail, uint64_t overhead)
{
	uint64_t w;

	if (avail <= overhead)
		return 0;
	w = (avail - overhead) / RFM_SHM_PAGE * RFM_SHM_PAGE;
	return w < RFM_SHM_MIN_WINDOW ? 0 : w;
}

int rfm__shm_no_room(const char *uri, int err, uint64_t needed, uint64_t overhead,
		     const char *what)
{
	const char *more = rfm__os_seg_more_room();
	uint64_t total = 0, avail = 0;
	char fix[192], fit[32];
	uint64_t w;

	if (rfm__errno_code(err) != RFM_ENOSPC) /* ENOSPC, EDQUOT, EFBIG */
		return rfm__error(rfm__errno_code(err), "%s: %s: %s", uri, what, strerror(err));
	if (rfm__os_seg_room(&total, &avail) < 0)
		total = avail = 0;
	w = overhead ? rfm__shm_window_that_fits(avail, overhead) : 0;
	if (w) {
		size_text(w, fit, sizeof(fit));
		snprintf(fix, sizeof(fix), "ask for a window that fits (size=%s) or %s", fit, more);
	} else if (overhead) {
		snprintf(fix, sizeof(fix), "no window fits in what is free: %s", more);
	} else {
		snprintf(fix, sizeof(fix), "%s", more);
	}
	return rfm__error(RFM_ENOSPC,
			  "%s: %s: is %s full? it holds %llu bytes, %llu are free and %llu "
			  "are needed; %s",
			  uri, what, rfm__os_seg_dir(), (unsigned long long)total, (unsigned long long)avail,
			  (unsigned long long)needed, fix);
}
