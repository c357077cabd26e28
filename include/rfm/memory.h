/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file memory.h
 * @brief The reflective window: mapping, bounded reads and writes, peek/poke.
 *
 * @defgroup memory Memory
 * @{
 * Writes are posted, as on the cards: a call returns when the local copy
 * has the data, and peers see it at once (emulated) or within about a
 * microsecond (fibre). Publish with "data, then a sequence flag" and a
 * release store between them (see access.h).
 *
 * All functions here are thread-safe, take no lock, make no system call
 * and allocate nothing.
 */
#ifndef RFM_MEMORY_H
#define RFM_MEMORY_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/**
 * @brief Map the window: a zero-copy pointer to this node's copy.
 * @param node The node.
 * @param[out] basep Receives the base address, valid until rfm_close().
 * @param[out] sizep Receives the window size in bytes; may be NULL.
 * @return 0, ::RFM_EINVAL, or ::RFM_ENOTSUP for a backend that cannot map.
 */
RFM_API int rfm_mem_map(rfm_node *node, void **basep, uint64_t *sizep);

/**
 * @brief Copy @p len bytes at @p offset of the window into @p buf.
 * @return 0, ::RFM_EINVAL (NULL arguments), or ::RFM_ERANGE when
 *         [offset, offset+len) is not inside the window (nothing is copied).
 */
RFM_API int rfm_mem_read(rfm_node *node, uint64_t offset, void *buf, size_t len);

/**
 * @brief Copy @p len bytes from @p buf to @p offset of the window.
 * @return 0, ::RFM_EINVAL, or ::RFM_ERANGE (nothing is written).
 */
RFM_API int rfm_mem_write(rfm_node *node, uint64_t offset, const void *buf, size_t len);

/**
 * @brief Send what was stored through the mapped pointer in
 *        [offset, offset+len) to the other nodes.
 *
 * On a card every store goes out on the fibre by itself. On the `dds:`
 * backend each node holds its own copy in ordinary memory: the library's
 * own writes (rfm_mem_write(), pokes, typed variables, records, rings,
 * rfm_event_publish()) are replicated, but stores a program makes through
 * the pointer of rfm_mem_map() stay local until this call publishes the
 * range, in order with everything the handle sends after it (an event
 * sent next arrives after the data). Elsewhere it is a memory fence and
 * does nothing more.
 * @return 0, ::RFM_EINVAL, ::RFM_ERANGE (nothing is sent), or ::RFM_EIO
 *         when the network refused the data.
 * @since 1.1 (version node RFM_1.1)
 */
RFM_API int rfm_mem_flush(rfm_node *node, uint64_t offset, uint64_t len);

/**
 * @name Peek and poke
 * Single-copy atomic loads and stores of 8, 16, 32 and 64 bits at a
 * naturally aligned offset, in host byte order. A reader never sees half
 * of a concurrent poke. Errors: ::RFM_EINVAL (NULL), ::RFM_ERANGE (outside
 * the window), ::RFM_EALIGN (offset not a multiple of the width); on error
 * nothing is read or written.
 * @{
 */
RFM_API int rfm_mem_peek8(rfm_node *node, uint64_t offset, uint8_t *value);
RFM_API int rfm_mem_peek16(rfm_node *node, uint64_t offset, uint16_t *value);
RFM_API int rfm_mem_peek32(rfm_node *node, uint64_t offset, uint32_t *value);
RFM_API int rfm_mem_peek64(rfm_node *node, uint64_t offset, uint64_t *value);
RFM_API int rfm_mem_poke8(rfm_node *node, uint64_t offset, uint8_t value);
RFM_API int rfm_mem_poke16(rfm_node *node, uint64_t offset, uint16_t value);
RFM_API int rfm_mem_poke32(rfm_node *node, uint64_t offset, uint32_t value);
RFM_API int rfm_mem_poke64(rfm_node *node, uint64_t offset, uint64_t value);
/** @} */

RFM_END_DECLS

/** @} */
#endif /* RFM_MEMORY_H */
