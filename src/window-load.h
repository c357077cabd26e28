/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Moving bytes of the window as words that another thread of this
 * process may be loading or storing meanwhile: rfm__copy_from_window(),
 * rfm__copy_to_window(), rfm__zero_window(). The core's
 * readers reach it through window-copy.h, a backend through backend.h
 * (dds: copies from its own window what it sends).
 */
#ifndef RFM_WINDOW_LOAD_H
#define RFM_WINDOW_LOAD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Copy @len bytes of the window at @src: 8-byte relaxed atomic loads where
 * @src is aligned, single bytes at the edges. Where a backend's thread
 * fills the node's copy of the window while another thread reads it (dds:
 * stores each word atomically, rfm__dds_store()), a plain memcpy() would
 * be a data race in C11's terms (and ThreadSanitizer says so); these
 * loads are the plain moves memcpy() makes of small copies on the hosts
 * we run on. For readers whose copy is checked afterwards anyway (a
 * seqlock, a ring slot's stamp): the recorder, ring consumers.
 */
static inline void rfm__copy_from_window(void *dst, const uint8_t *src, size_t len)
{
	uint8_t *d = dst;
	size_t i = 0;

	while (i < len && ((uintptr_t)(src + i) & 7))
		d[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED), i++;
	for (; i + 8 <= len; i += 8) {
		uint64_t v = __atomic_load_n((const uint64_t *)(const void *)(src + i),
					     __ATOMIC_RELAXED);
		__builtin_memcpy(d + i, &v, 8);
	}
	for (; i < len; i++)
		d[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
}

/*
 * Copy @len bytes into the window at @dst: 8-byte relaxed atomic stores
 * where @dst is aligned, single bytes at the edges; the counterpart of
 * rfm__copy_from_window() for a program's write into a window that a
 * backend's thread reads meanwhile (dds: copies it to send it to a
 * joining node). @src must not overlap @dst.
 */
static inline void rfm__copy_to_window(uint8_t *dst, const void *src, size_t len)
{
	const uint8_t *s = src;
	size_t i = 0;

	while (i < len && ((uintptr_t)(dst + i) & 7))
		__atomic_store_n(dst + i, s[i], __ATOMIC_RELAXED), i++;
	for (; i + 8 <= len; i += 8) {
		uint64_t v;

		__builtin_memcpy(&v, s + i, 8);
		__atomic_store_n((uint64_t *)(void *)(dst + i), v, __ATOMIC_RELAXED);
	}
	for (; i < len; i++)
		__atomic_store_n(dst + i, s[i], __ATOMIC_RELAXED);
}

/*
 * Zero @len bytes of the window at @dst with relaxed atomic stores (words
 * where aligned), for the same reason as rfm__copy_to_window(): memset()
 * would race with a backend thread's loads of the same words.
 */
static inline void rfm__zero_window(uint8_t *dst, size_t len)
{
	size_t i = 0;

	while (i < len && ((uintptr_t)(dst + i) & 7))
		__atomic_store_n(dst + i, (uint8_t)0, __ATOMIC_RELAXED), i++;
	for (; i + 8 <= len; i += 8)
		__atomic_store_n((uint64_t *)(void *)(dst + i), (uint64_t)0, __ATOMIC_RELAXED);
	for (; i < len; i++)
		__atomic_store_n(dst + i, (uint8_t)0, __ATOMIC_RELAXED);
}

#endif /* RFM_WINDOW_LOAD_H */
