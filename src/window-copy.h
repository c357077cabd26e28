/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading bytes out of the window while another thread of this process
 * may be storing into it (a backend's receive thread filling the node's
 * copy, dds:), without a data race.
 */
#ifndef RFM_WINDOW_COPY_H
#define RFM_WINDOW_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "window-load.h" /* rfm__copy_from_window() */

/*
 * Does a thread of @node's backend fill the node's copy of the window
 * while the program reads it (RFM__CAP_WINDOW_THREAD: dds:)? A reader
 * asks once, when it is opened, and copies with rfm__window_copy().
 */
static inline bool rfm__window_filled_by_thread(const rfm_node *node)
{
	return node->ops->caps & RFM__CAP_WINDOW_THREAD;
}

/*
 * Copy @len bytes of the window at @src: with rfm__copy_from_window()
 * when @atomic (rfm__window_filled_by_thread()), else with memcpy(),
 * which moves a large copy in vector registers, several words a load.
 * Where the window is filled by other processes (shm:) or by a card,
 * there is no thread of this process to race, and the reader's check
 * (a seqlock, a ring slot's stamp) is what makes the copy good.
 */
static inline void rfm__window_copy(bool atomic, void *dst, const uint8_t *src, size_t len)
{
	if (atomic)
		rfm__copy_from_window(dst, src, len);
	else
		memcpy(dst, src, len);
}

/*
 * Store @len bytes into the window at @dst: with rfm__copy_to_window()
 * when @atomic (rfm__window_filled_by_thread(): dds:'s thread loads the
 * window's words to send them to a joining node), else with memcpy().
 */
static inline void rfm__window_store(bool atomic, uint8_t *dst, const void *src, size_t len)
{
	if (atomic)
		rfm__copy_to_window(dst, src, len);
	else
		memcpy(dst, src, len);
}

#endif /* RFM_WINDOW_COPY_H */
