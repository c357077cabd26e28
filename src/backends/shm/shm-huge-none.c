/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hugepages=1 where the OS has no file system of huge pages that
 * processes open by name (hugetlbfs is Linux's; Windows has large pages,
 * but only for a process's private memory and a locked-memory right):
 * the window stays in the segment, and a network made with hugepages=1
 * elsewhere (format version 4) is refused, saying why.
 */
#include "config.h"

#include "backends/shm/shm-internal.h"

int rfm__shm_huge_create(struct shm_node *shm, const char *uri, const char *name, uint64_t size,
			 unsigned int mode, uint32_t *page_kib)
{
	return rfm__error(RFM_ENOTSUP,
			  "%s: hugepages=1: this OS has no file system of huge pages (Linux's "
			  "hugetlbfs) for a window that other processes open by name",
			  uri);
}

int rfm__shm_huge_attach(struct shm_node *shm, const char *uri, const char *name, uint64_t size,
			 uint32_t page_kib)
{
	return rfm__error(RFM_ENOTSUP,
			  "%s: the network's window is in huge pages of %u KiB (made on Linux "
			  "with hugepages=1), which this OS cannot map",
			  uri, page_kib);
}

void rfm__shm_huge_remove(const char *name, int owner_fd)
{
	/* No window files of huge pages exist here. */
}
