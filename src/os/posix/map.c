/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* POSIX: os/map.h, mmap(). */
#include "config.h"

#include <sys/mman.h>

#include "os/map.h"

void *rfm__os_map(int fd, uint64_t offset, size_t len, unsigned int flags)
{
	int prot = PROT_READ | (flags & RFM_OS_MAP_WRITE ? PROT_WRITE : 0);
	int mflags = MAP_SHARED | (flags & RFM_OS_MAP_POPULATE ? MAP_POPULATE : 0);
	void *p = mmap(NULL, len, prot, mflags, fd, (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

void rfm__os_unmap(void *addr, size_t len)
{
	munmap(addr, len);
}

void *rfm__os_map_private(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void rfm__os_unmap_private(void *addr, size_t len)
{
	munmap(addr, len);
}
