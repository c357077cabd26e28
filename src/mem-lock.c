/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Memory that never faults on the hot path: the window (and each event
 * queue a handle receives on) mapped page by page at open or enable, and
 * with lock=1 locked in RAM, so the first access of a 10 kHz loop costs
 * what the thousandth does. The backends know nothing of this: the core
 * calls rfm__mem_window() after a backend's open and
 * rfm__mem_event_queue() with the queue memory its event attach made.
 * How a page is mapped in or locked is the OS layer's (os/memory.h).
 */
#include "config.h"

#include "os/memory.h"
#include "rt-internal.h"

static int apply(struct rfm_node *node, const char *what, void *addr, size_t len)
{
	const struct rfm_rt_opts *rt = rfm__core(node)->rt;

	if (!rt || !addr || !len)
		return 0;
	/*
	 * Map the pages writable first: mlock maps what it locks but, on a
	 * file system that tracks dirty pages, read-only, and the loop's first
	 * store would still fault. Prefault alone maps without pinning.
	 */
	if (rt->mem_flags & (RFM_MEM_PREFAULT | RFM_MEM_LOCK))
		rfm__os_prefault(addr, len);
	if (rt->mem_flags & RFM_MEM_LOCK) {
		int err = rfm__os_mem_lock(addr, len);

		if (err)
			return rfm__os_mem_lock_error(node->uri, what, len, err);
	}
	return 0;
}

int rfm__mem_window(struct rfm_node *node)
{
	return apply(node, "window", node->base, (size_t)node->size);
}

int rfm__mem_event_queue(struct rfm_node *node, void *addr, size_t len)
{
	if (!rfm__core(node)->rt)
		return 0;
	return apply(node, "event queue", addr, len);
}
