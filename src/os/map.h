/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mappings (the OS layer; docs/architecture.md, "The OS layer"): a part of
 * a segment file mapped shared, so every process that maps it sees one
 * memory, and private zeroed memory in whole pages.
 *
 * Beyond the end of the file: a mapping may reach past the file's current
 * end (the shm: event slabs, made one by one). On Linux, touching a page
 * there faults, so callers touch only what rfm__os_file_reserve() made; on
 * Windows the file is sparse and the mapping makes it as long as it
 * reaches, without taking disk room for pages not written.
 *
 * Words of a shared mapping are what os/wait.h's shared waits sleep on:
 * on Windows the mapping's file identity names the objects sleepers of
 * other processes wait on, so map a file only through here.
 */
#ifndef RFM_OS_MAP_H
#define RFM_OS_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Flags of rfm__os_map(). */
#define RFM_OS_MAP_WRITE 1u	/* read-write (else read-only) */
#define RFM_OS_MAP_POPULATE 2u	/* map every page now (MAP_POPULATE) */

/*
 * Map @len bytes of file @fd from @offset (a multiple of the page size),
 * shared: the address, or NULL with errno.
 */
void *rfm__os_map(int fd, uint64_t offset, size_t len, unsigned int flags);
/* Undo rfm__os_map(@addr, @len). */
void rfm__os_unmap(void *addr, size_t len);

/* @len bytes of zeroed, private, read-write memory in whole pages, or NULL. */
void *rfm__os_map_private(size_t len);
void rfm__os_unmap_private(void *addr, size_t len);

#endif /* RFM_OS_MAP_H */
