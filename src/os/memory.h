/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Memory that never faults on the hot path (the OS layer; docs/
 * architecture.md, "The OS layer"): the page size, mapping pages in ahead
 * of use, locking them in RAM, and what to tell a user whose lock the OS
 * refused. mem-lock.c decides what to prefault and lock; this says how.
 */
#ifndef RFM_OS_MEMORY_H
#define RFM_OS_MEMORY_H

#include <stddef.h>

/*
 * @size bytes aligned to @align (a power of two, at most a page), or NULL:
 * C11's aligned_alloc(), which not every C library has. Freed with
 * rfm__os_aligned_free() only.
 */
void *rfm__os_aligned_alloc(size_t align, size_t size);
void rfm__os_aligned_free(void *p);

/* The size of a page of memory (4096 unless the OS says otherwise). */
size_t rfm__os_page_size(void);

/* Map every page of [addr, addr+len) writable, without changing its contents. */
void rfm__os_prefault(void *addr, size_t len);

/* Lock the pages of [addr, addr+len) in RAM: 0 or an errno value. */
int rfm__os_mem_lock(void *addr, size_t len);

/*
 * The rfm error (rfm__error(), with its message) for a lock of @len bytes
 * of the @what (window, event queue) that failed with @err: which limit
 * of this OS stopped it, and how to raise it.
 */
int rfm__os_mem_lock_error(const char *uri, const char *what, size_t len, int err);

#endif /* RFM_OS_MEMORY_H */
