/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/memory.h. VirtualLock() keeps pages in the process's working
 * set, up to its minimum size: a lock that does not fit grows the working
 * set by what it needs (SetProcessWorkingSetSize(), allowed to every
 * process within the system's limits) and tries again.
 */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <string.h>

#include "internal.h"
#include "os/memory.h"
#include "os/win/win-internal.h"

void *rfm__os_aligned_alloc(size_t align, size_t size)
{
	/* The C runtime's: its blocks go back through _aligned_free() only. */
	return _aligned_malloc(size, align);
}

void rfm__os_aligned_free(void *p)
{
	_aligned_free(p);
}

size_t rfm__os_page_size(void)
{
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	return si.dwPageSize ? si.dwPageSize : 4096;
}

void rfm__os_prefault(void *addr, size_t len)
{
	uintptr_t page = rfm__os_page_size();
	uintptr_t lo = (uintptr_t)addr & ~(page - 1), hi = (uintptr_t)addr + len;
	WIN32_MEMORY_RANGE_ENTRY range = { (void *)lo, hi - lo };

	if (!len)
		return;
	PrefetchVirtualMemory(GetCurrentProcess(), 1, &range, 0);
	/* Then a touch of each page, as a fault would, without changing it. */
	for (uintptr_t p = lo; p < hi; p += page)
		(void)*(volatile const uint8_t *)(p < (uintptr_t)addr ? (uintptr_t)addr : p);
}

int rfm__os_mem_lock(void *addr, size_t len)
{
	SIZE_T lo, hi;

	if (VirtualLock(addr, len))
		return 0;
	if (GetLastError() != ERROR_WORKING_SET_QUOTA ||
	    !GetProcessWorkingSetSize(GetCurrentProcess(), &lo, &hi) ||
	    !SetProcessWorkingSetSize(GetCurrentProcess(), lo + len + 65536, hi + len + 65536) ||
	    !VirtualLock(addr, len))
		return rfm__win_errno(GetLastError());
	return 0;
}

int rfm__os_mem_lock_error(const char *uri, const char *what, size_t len, int err)
{
	SIZE_T lo = 0, hi = 0;

	GetProcessWorkingSetSize(GetCurrentProcess(), &lo, &hi);
	return rfm__error(err == EACCES ? RFM_EPERM : RFM_ENOMEM,
			  "%s: lock=1: cannot lock the %s (%zu KiB) in RAM: %s; Windows locks "
			  "pages within the process's working set (now %zu to %zu KiB) and could "
			  "not grow it by that much: raise the process's working set quota or "
			  "free memory",
			  uri, what, len >> 10, strerror(err), (size_t)lo >> 10, (size_t)hi >> 10);
}
