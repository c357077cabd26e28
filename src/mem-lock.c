/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Memory that never faults on the hot path: the window (and each event
 * queue a handle receives on) mapped page by page at open or enable, and
 * with lock=1 locked in RAM, so the first access of a 10 kHz loop costs
 * what the thousandth does. The backends know nothing of this: the core
 * calls rfm__mem_window() after a backend's open and
 * rfm__mem_event_queue() with the queue memory its event attach made.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rt-internal.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static uintptr_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uintptr_t)p : 4096;
}

void rfm__mem_prefault(void *addr, size_t len)
{
	uintptr_t page = page_size();
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

int rfm__mem_lock(const char *uri, const char *what, void *addr, size_t len)
{
	uintptr_t page = page_size();
	uintptr_t lo = (uintptr_t)addr & ~(page - 1);
	struct rlimit lim = { 0, 0 };
	char limit[32];
	int err;

	if (!len || mlock((void *)lo, (uintptr_t)addr + len - lo) == 0)
		return 0;
	err = errno;
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

static int apply(struct rfm_node *node, const char *what, void *addr, size_t len)
{
	const struct rfm_rt_opts *rt = node->rt;

	if (!rt || !addr || !len)
		return 0;
	/*
	 * Map the pages writable first: mlock maps what it locks but, on a
	 * file system that tracks dirty pages, read-only, and the loop's first
	 * store would still fault. Prefault alone maps without pinning.
	 */
	if (rt->mem_flags & (RFM_MEM_PREFAULT | RFM_MEM_LOCK))
		rfm__mem_prefault(addr, len);
	if (rt->mem_flags & RFM_MEM_LOCK)
		return rfm__mem_lock(node->uri, what, addr, len);
	return 0;
}

int rfm__mem_window(struct rfm_node *node)
{
	return apply(node, "window", node->base, (size_t)node->size);
}

int rfm__mem_event_queue(struct rfm_node *node, void *addr, size_t len)
{
	if (!node->rt)
		return 0;
	return apply(node, "event queue", addr, len);
}
