/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Linux: os/memory.h, madvise() and mlock() under RLIMIT_MEMLOCK. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"
#include "os/memory.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void *rfm__os_aligned_alloc(size_t align, size_t size)
{
	return aligned_alloc(align, (size + align - 1) & ~(align - 1));
}

void rfm__os_aligned_free(void *p)
{
	free(p);
}

size_t rfm__os_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

void rfm__os_prefault(void *addr, size_t len)
{
	uintptr_t page = rfm__os_page_size();
	uintptr_t lo = (uintptr_t)addr & ~(page - 1);
	uintptr_t hi = (uintptr_t)addr + len;

	if (!len)
		return;
	/*
	 * Linux 5.14+ maps the pages writable in one call, as a write fault
	 * would, without writing. Older kernels (EINVAL) get a read of each
	 * page, which maps it just the same. A card's window is a PFN map the
	 * driver fills at mmap (EFAULT here): nothing to do, and reading
	 * every page of it would only cost bus cycles.
	 */
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0 || errno != EINVAL)
		return;
	for (uintptr_t p = lo; p < hi; p += page)
		(void)*(volatile const uint8_t *)(p < (uintptr_t)addr ? (uintptr_t)addr : p);
}

int rfm__os_mem_lock(void *addr, size_t len)
{
	uintptr_t page = rfm__os_page_size();
	uintptr_t lo = (uintptr_t)addr & ~(page - 1);

	return mlock((void *)lo, (uintptr_t)addr + len - lo) == 0 ? 0 : errno;
}

int rfm__os_mem_lock_error(const char *uri, const char *what, size_t len, int err)
{
	struct rlimit lim = { 0, 0 };
	char limit[32];

	getrlimit(RLIMIT_MEMLOCK, &lim);
	if (lim.rlim_cur == RLIM_INFINITY)
		strcpy(limit, "unlimited");
	else
		snprintf(limit, sizeof(limit), "%llu KiB", (unsigned long long)lim.rlim_cur >> 10);
	if (err == ENOMEM || err == EPERM || err == EAGAIN)
		return rfm__error(err == EPERM ? RFM_EPERM : RFM_ENOMEM,
				  "%s: lock=1: cannot lock the %s (%zu KiB) in RAM: %s; "
				  "RLIMIT_MEMLOCK is %s and this process's locked memory counts "
				  "against it: raise it to at least %zu KiB more (ulimit -l, "
				  "'memlock' in /etc/security/limits.conf, LimitMEMLOCK= in a "
				  "systemd unit) or grant CAP_IPC_LOCK",
				  uri, what, len >> 10, strerror(err), limit, (len + 1023) >> 10);
	return rfm__error(rfm__errno_code(err), "%s: lock=1: locking the %s: %s", uri, what,
			  strerror(err));
}
