/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Checked access to the mapped window. The checks are two compares and a
 * mask (and for a write, whether the handle is an observer, which never
 * writes); failures are reported out of line so the success path stays a
 * handful of instructions.
 */
#include "config.h"

#include <string.h>

#include "internal.h"
#include "window-copy.h"

/*
 * Does [a, a+alen) overlap [b, b+blen)? A buffer may lie in the window
 * (memmove() semantics); word copies are for buffers outside it.
 */
static inline bool overlaps(const void *a, size_t alen, const void *b, size_t blen)
{
	return (uintptr_t)a < (uintptr_t)b + blen && (uintptr_t)b < (uintptr_t)a + alen;
}

/*
 * A backend whose thread stores into the node's copy of the window, or
 * copies from it to send it, while the program reads or writes it (dds:):
 * the program's bytes move as word loads and stores (window-load.h), not
 * memmove(), which would race those threads in C11's terms. Elsewhere
 * (shm:, cards) no thread of this process touches the window behind the
 * program's back, and memmove() moves a large copy fastest.
 */
static inline bool word_copies(const rfm_node *node, const void *buf, size_t len,
			       uint64_t offset)
{
	return rfm__window_filled_by_thread(node) && !overlaps(buf, len, node->base + offset, len);
}

RFM_API int rfm_mem_map(rfm_node *node, void **basep, uint64_t *sizep)
{
	if (!node || !basep)
		return rfm__error(RFM_EINVAL, "rfm_mem_map: NULL argument");
	*basep = node->base;
	if (sizep)
		*sizep = node->size;
	return 0;
}

__attribute__((cold, noinline))
static int range_error(const rfm_node *node, const char *what, uint64_t offset, uint64_t len)
{
	if (!node)
		return rfm__error(RFM_EINVAL, "%s: node is NULL", what);
	return rfm__error(RFM_ERANGE,
			  "%s: %llu bytes at offset 0x%llx lie outside the %llu-byte window",
			  what, (unsigned long long)len, (unsigned long long)offset,
			  (unsigned long long)node->size);
}

/* True when [offset, offset+len) lies inside the window (overflow-safe). */
static inline bool in_window(const rfm_node *node, uint64_t offset, uint64_t len)
{
	return len <= node->size && offset <= node->size - len;
}

RFM_API int rfm_mem_read(rfm_node *node, uint64_t offset, void *buf, size_t len)
{
	if (RFM_UNLIKELY(!node || !in_window(node, offset, len)))
		return range_error(node, "rfm_mem_read", offset, len);
	if (RFM_UNLIKELY(!buf && len))
		return rfm__error(RFM_EINVAL, "rfm_mem_read: buffer is NULL");
	if (len && node->ops->mem_bulk) {
		int ret = node->ops->mem_bulk(node, offset, buf, len, false);

		if (ret)
			return ret < 0 ? ret : 0;
	}
	if (len && RFM_UNLIKELY(word_copies(node, buf, len, offset)))
		rfm__copy_from_window(buf, node->base + offset, len);
	else if (len)
		memmove(buf, node->base + offset, len); /* buf may lie in the window */
	return 0;
}

RFM_API int rfm_mem_write(rfm_node *node, uint64_t offset, const void *buf, size_t len)
{
	if (RFM_UNLIKELY(!node || !in_window(node, offset, len)))
		return range_error(node, "rfm_mem_write", offset, len);
	if (RFM_UNLIKELY(node->observer))
		return rfm__observer_refused(node, "rfm_mem_write");
	if (RFM_UNLIKELY(!buf && len))
		return rfm__error(RFM_EINVAL, "rfm_mem_write: buffer is NULL");
	if (len && node->ops->mem_bulk) {
		int ret = node->ops->mem_bulk(node, offset, (void *)buf, len, true);

		if (ret)
			return ret < 0 ? ret : 0;
	}
	if (len && RFM_UNLIKELY(word_copies(node, buf, len, offset)))
		rfm__copy_to_window(node->base + offset, buf, len);
	else if (len)
		memmove(node->base + offset, buf, len);
	return rfm__published(node, node->base + offset, len);
}

RFM_API int rfm_mem_flush(rfm_node *node, uint64_t offset, uint64_t len)
{
	if (RFM_UNLIKELY(!node || !in_window(node, offset, len)))
		return range_error(node, "rfm_mem_flush", offset, len);
	if (RFM_UNLIKELY(node->observer))
		return rfm__observer_refused(node, "rfm_mem_flush");
	/* Stores through the mapping made before this call are ordered
	 * before whatever the handle stores or sends next, on every backend
	 * (free on x86: its stores are never reordered with later stores). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return len ? rfm__published(node, node->base + offset, len) : 0;
}

__attribute__((cold, noinline))
static int access_error(const rfm_node *node, const char *what, uint64_t offset,
			unsigned int width, bool null_value, bool store)
{
	if (!node || null_value)
		return rfm__error(RFM_EINVAL, "%s: NULL argument", what);
	if (!in_window(node, offset, width))
		return range_error(node, what, offset, width);
	if (store && node->observer)
		return rfm__observer_refused(node, what);
	return rfm__error(RFM_EALIGN, "%s: offset 0x%llx is not a multiple of %u",
			  what, (unsigned long long)offset, width);
}

/* Valid node, inside the window, naturally aligned. */
#define ACCESS_OK(node, offset, width)                                        \
	RFM_LIKELY((node) && in_window((node), (offset), (width)) &&          \
		   ((offset) & ((width) - 1)) == 0)
/* The same for a store: and not an observer's. */
#define STORE_OK(node, offset, width)                                         \
	RFM_LIKELY((node) && in_window((node), (offset), (width)) &&          \
		   ((offset) & ((width) - 1)) == 0 && !(node)->observer)

/*
 * The peeks and pokes, inlined into each with @width a constant (the
 * switch folds away): the checks, one relaxed load or store, and for a
 * poke the replication software backends need.
 */
#define ACCESS_INLINE static inline __attribute__((always_inline))

ACCESS_INLINE int peek(rfm_node *node, uint64_t offset, void *value, unsigned int width,
		       const char *what)
{
	if (ACCESS_OK(node, offset, width) && RFM_LIKELY(value)) {
		switch (width) {
		case 1: *(uint8_t *)value = rfm_load8(node->base, offset); break;
		case 2: *(uint16_t *)value = rfm_load16(node->base, offset); break;
		case 4: *(uint32_t *)value = rfm_load32(node->base, offset); break;
		default: *(uint64_t *)value = rfm_load64(node->base, offset); break;
		}
		return 0;
	}
	/* Out of line, with !value computed there: the fast path tests it once. */
	return access_error(node, what, offset, width, !value, false);
}

ACCESS_INLINE int poke(rfm_node *node, uint64_t offset, uint64_t value, unsigned int width,
		       const char *what)
{
	if (!STORE_OK(node, offset, width))
		return access_error(node, what, offset, width, false, true);
	switch (width) {
	case 1: rfm_store8(node->base, offset, (uint8_t)value); break;
	case 2: rfm_store16(node->base, offset, (uint16_t)value); break;
	case 4: rfm_store32(node->base, offset, (uint32_t)value); break;
	default: rfm_store64(node->base, offset, value); break;
	}
	return rfm__published(node, node->base + offset, width);
}

RFM_API int rfm_mem_peek8(rfm_node *node, uint64_t offset, uint8_t *value)
{
	return peek(node, offset, value, sizeof(*value), "rfm_mem_peek8");
}

RFM_API int rfm_mem_poke8(rfm_node *node, uint64_t offset, uint8_t value)
{
	return poke(node, offset, value, sizeof(value), "rfm_mem_poke8");
}

RFM_API int rfm_mem_peek16(rfm_node *node, uint64_t offset, uint16_t *value)
{
	return peek(node, offset, value, sizeof(*value), "rfm_mem_peek16");
}

RFM_API int rfm_mem_poke16(rfm_node *node, uint64_t offset, uint16_t value)
{
	return poke(node, offset, value, sizeof(value), "rfm_mem_poke16");
}

RFM_API int rfm_mem_peek32(rfm_node *node, uint64_t offset, uint32_t *value)
{
	return peek(node, offset, value, sizeof(*value), "rfm_mem_peek32");
}

RFM_API int rfm_mem_poke32(rfm_node *node, uint64_t offset, uint32_t value)
{
	return poke(node, offset, value, sizeof(value), "rfm_mem_poke32");
}

RFM_API int rfm_mem_peek64(rfm_node *node, uint64_t offset, uint64_t *value)
{
	return peek(node, offset, value, sizeof(*value), "rfm_mem_peek64");
}

RFM_API int rfm_mem_poke64(rfm_node *node, uint64_t offset, uint64_t value)
{
	return poke(node, offset, value, sizeof(value), "rfm_mem_poke64");
}
