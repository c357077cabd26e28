/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/map.h. A view of a file mapping object. Views begin at a
 * multiple of the allocation granularity (64 KiB), so a view starts below
 * the offset asked and the address handed out lies inside it; the table
 * below remembers each view, for the unmap and for wait.c, which finds in
 * it the file a shared word belongs to. A writable mapping may reach past
 * the file's end: the mapping object makes the file that long (sparse,
 * os/win/file.c, so the pages not written take no disk room).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "os/map.h"
#include "os/win/win-internal.h"

struct view {
	uint8_t *addr;			/* what rfm__os_map() returned */
	size_t len;
	void *base;			/* the view, at or below addr */
	uint64_t offset;		/* of addr in the file */
	struct rfm_win_wait_file *wf;	/* writable views: the file's wait objects */
};

static SRWLOCK views_lock = SRWLOCK_INIT;
static struct view *views;
static size_t nviews, cap;

static DWORD granularity(void)
{
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	return si.dwAllocationGranularity;
}

static bool remember(const struct view *v)
{
	bool ok = true;

	AcquireSRWLockExclusive(&views_lock);
	if (rfm__grow(&views, &cap, nviews, sizeof(*views)) == 0)
		views[nviews++] = *v;
	else
		ok = false;
	ReleaseSRWLockExclusive(&views_lock);
	return ok;
}

void *rfm__os_map(int fd, uint64_t offset, size_t len, unsigned int flags)
{
	HANDLE file = rfm__win_handle(fd), mapping;
	bool write = flags & RFM_OS_MAP_WRITE;
	uint64_t start = offset & ~(uint64_t)(granularity() - 1), end = offset + len;
	BY_HANDLE_FILE_INFORMATION info;
	struct view v = { 0 };

	if (file == INVALID_HANDLE_VALUE || !len) {
		errno = EINVAL;
		return NULL;
	}
	if (!GetFileInformationByHandle(file, &info))
		goto fail;
	mapping = CreateFileMappingW(file, NULL, write ? PAGE_READWRITE : PAGE_READONLY,
				     (DWORD)(end >> 32), (DWORD)end, NULL);
	if (!mapping)
		goto fail;
	v.base = MapViewOfFile(mapping, write ? FILE_MAP_READ | FILE_MAP_WRITE : FILE_MAP_READ,
			       (DWORD)(start >> 32), (DWORD)start, (SIZE_T)(end - start));
	/* The view keeps the mapping object alive. */
	CloseHandle(mapping);
	if (!v.base)
		goto fail;
	v.addr = (uint8_t *)v.base + (offset - start);
	v.len = len;
	v.offset = offset;
	if (write) {
		struct rfm_win_file_id id = {
			.volume = info.dwVolumeSerialNumber,
			.index = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow,
		};

		v.wf = rfm__win_wait_file_get(&id);
		if (!v.wf) {
			UnmapViewOfFile(v.base);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (!remember(&v)) {
		rfm__win_wait_file_put(v.wf);
		UnmapViewOfFile(v.base);
		errno = ENOMEM;
		return NULL;
	}
	if (flags & RFM_OS_MAP_POPULATE) {
		/* What MAP_POPULATE does: every page in now, not at first touch. */
		WIN32_MEMORY_RANGE_ENTRY range = { v.base, (SIZE_T)(end - start) };

		PrefetchVirtualMemory(GetCurrentProcess(), 1, &range, 0);
	}
	return v.addr;
fail:
	rfm__win_set_errno();
	return NULL;
}

void rfm__os_unmap(void *addr, size_t len)
{
	struct view v = { 0 };

	AcquireSRWLockExclusive(&views_lock);
	for (size_t i = 0; i < nviews; i++)
		if (views[i].addr == addr) {
			v = views[i];
			views[i] = views[--nviews];
			break;
		}
	ReleaseSRWLockExclusive(&views_lock);
	if (!v.base)
		return;
	UnmapViewOfFile(v.base);
	rfm__win_wait_file_put(v.wf);
}

struct rfm_win_wait_file *rfm__win_map_find(const void *addr, uint64_t *offset)
{
	const uint8_t *p = addr;
	struct rfm_win_wait_file *wf = NULL;

	AcquireSRWLockShared(&views_lock);
	for (size_t i = 0; i < nviews; i++)
		if (views[i].wf && p >= views[i].addr && p < views[i].addr + views[i].len) {
			wf = views[i].wf;
			*offset = views[i].offset + (uint64_t)(p - views[i].addr);
			break;
		}
	ReleaseSRWLockShared(&views_lock);
	return wf;
}

void *rfm__os_map_private(size_t len)
{
	void *p = VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);

	if (!p)
		rfm__win_set_errno();
	return p;
}

void rfm__os_unmap_private(void *addr, size_t len)
{
	VirtualFree(addr, 0, MEM_RELEASE);
}
