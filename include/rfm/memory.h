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
 * release store between them (see access.h and rfm-protocols(7)).
 *
 * Every access is checked: a range outside the window is refused with
 * ::RFM_ERANGE, and a refused access reads or writes nothing.
 *
 * **Errors of a store.** On the `dds:` backend each node holds its own
 * copy of the window and the library sends what it stores to the others;
 * every function that stores (rfm_mem_write(), the pokes,
 * rfm_mem_flush()) may then also fail with ::RFM_EIO (Cyclone DDS refused
 * the sample), ::RFM_ENOMEM, ::RFM_ETIMEDOUT (for seconds no node
 * acknowledged what was sent before: a stuck peer), ::RFM_EAGAIN (called
 * from a callback on the receive thread while the send backlog is full)
 * or ::RFM_ECLOSED (a handle inherited through fork()). The local copy
 * holds the data in every case.
 *
 * @par Thread safety
 * Every function here may be called from several threads at once on one
 * handle. On cards and `shm:` they take no lock, make no system call
 * (but the driver's bulk transfer of long reads and writes on `dev:` and
 * `rfm2g:`) and allocate nothing; on `dds:` a store takes the handle's
 * send lock.
 *
 * @sa rfm-protocols(7)
 */
#ifndef RFM_MEMORY_H
#define RFM_MEMORY_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/**
 * @brief Map the window: a zero-copy pointer to this node's copy.
 *
 * Loads and stores through the pointer reach the window with no check;
 * use the accessors of access.h for atomic and ordered ones. On `dds:`
 * stores made through it stay in this node's copy until rfm_mem_flush().
 * An observer's window (`observe=1`) is mapped read-only on `shm:`, `dev:`
 * and `rfm2g:`: a store through the pointer faults (SIGSEGV), as the
 * accessors' stores are refused.
 * @param node The node.
 * @param[out] basep Receives the base address, owned by the handle and
 *        valid until rfm_close().
 * @param[out] sizep Receives the window size in bytes; may be NULL.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p basep is NULL.
 */
RFM_API int rfm_mem_map(rfm_node *node, void **basep, uint64_t *sizep);

/**
 * @brief Copy @p len bytes at @p offset of the window into @p buf.
 *
 * Reads this node's copy of the window. On `dev:` and `rfm2g:` a read of
 * the URI's `dma=` length or more uses the driver's bulk transfer. @p buf
 * may lie in the window itself.
 * @param node The node.
 * @param offset Byte offset in the window.
 * @param[out] buf Receives the bytes; may be NULL when @p len is 0.
 * @param len Bytes to copy.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, or @p buf is NULL and @p len is not 0.
 * @retval RFM_ERANGE [offset, offset+len) is not inside the window;
 *         nothing is copied.
 * @retval RFM_EIO The driver's bulk transfer failed (the card was removed).
 * @retval RFM_ESYS The bulk transfer failed otherwise (errno is kept).
 */
RFM_API int rfm_mem_read(rfm_node *node, uint64_t offset, void *buf, size_t len);

/**
 * @brief Copy @p len bytes from @p buf to @p offset of the window.
 *
 * On `dev:` and `rfm2g:` a write of the URI's `dma=` length or more uses
 * the driver's bulk transfer; on `dds:` the bytes are sent to the other
 * nodes.
 * @param node The node.
 * @param offset Byte offset in the window.
 * @param buf The bytes; may be NULL when @p len is 0.
 * @param len Bytes to copy.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, or @p buf is NULL and @p len is not 0.
 * @retval RFM_ERANGE [offset, offset+len) is not inside the window;
 *         nothing is written.
 * @retval RFM_EPERM The handle is an observer (`observe=1`), which never
 *         writes.
 * @retval RFM_EIO The driver's bulk transfer failed, or (`dds:`) Cyclone
 *         refused the data.
 * @retval RFM_ESYS The bulk transfer failed otherwise (errno is kept).
 * @retval RFM_ENOMEM `dds:` no memory to hold the data for sending.
 * @retval RFM_ETIMEDOUT `dds:` no node acknowledged earlier data for seconds.
 * @retval RFM_EAGAIN `dds:` called from a receive-thread callback while
 *         the send backlog is full.
 * @retval RFM_ECLOSED `dds:` the handle was inherited through fork().
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
 * sent next arrives after the data). Elsewhere it is a release fence and
 * does nothing more.
 * @param node The node.
 * @param offset Byte offset in the window.
 * @param len Bytes to publish; 0 makes only the fence.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 * @retval RFM_ERANGE [offset, offset+len) is not inside the window;
 *         nothing is sent.
 * @retval RFM_EPERM The handle is an observer (`observe=1`), which never
 *         writes.
 * @retval RFM_EIO `dds:` Cyclone refused the data.
 * @retval RFM_ENOMEM `dds:` no memory to hold the data for sending.
 * @retval RFM_ETIMEDOUT `dds:` no node acknowledged earlier data for seconds.
 * @retval RFM_EAGAIN `dds:` called from a receive-thread callback while
 *         the send backlog is full.
 * @retval RFM_ECLOSED `dds:` the handle was inherited through fork().
 * @since 1.1 (version node RFM_1.1)
 */
RFM_API int rfm_mem_flush(rfm_node *node, uint64_t offset, uint64_t len);

/**
 * @name Peek and poke
 * Single-copy atomic loads and stores of 8, 16, 32 and 64 bits at a
 * naturally aligned offset, in host byte order, one function per width:
 * rfm_mem_peekN() and rfm_mem_pokeN() for N = 8, 16, 32, 64. Each has its
 * own manual page; they differ only in the width of @p value.
 * @{
 */

/**
 * @brief Load 8 bits from the window, checked and atomic.
 *
 * A single-copy atomic load of the function's width (8, 16, 32 or 64
 * bits) at @p offset, which must be a multiple of the width in bytes. A
 * reader never sees half of a concurrent poke. The value is in host byte
 * order: convert data that the layout declares in another order (or use
 * typed variables, layout.h).
 * @param node The node.
 * @param offset Byte offset in the window, a multiple of the width in bytes.
 * @param[out] value Receives the value.
 * @return 0 on success, or a negative ::rfm_error code; on error nothing
 *         is read.
 * @retval RFM_EINVAL @p node or @p value is NULL.
 * @retval RFM_ERANGE The word is not inside the window.
 * @retval RFM_EALIGN @p offset is not a multiple of the width.
 * @sa rfm_load32_acquire() for the unchecked inline load with ordering.
 */
RFM_API int rfm_mem_peek8(rfm_node *node, uint64_t offset, uint8_t *value);
/** @brief Load 16 bits from the window, checked and atomic. @copydetails rfm_mem_peek8() */
RFM_API int rfm_mem_peek16(rfm_node *node, uint64_t offset, uint16_t *value);
/** @brief Load 32 bits from the window, checked and atomic. @copydetails rfm_mem_peek8() */
RFM_API int rfm_mem_peek32(rfm_node *node, uint64_t offset, uint32_t *value);
/** @brief Load 64 bits from the window, checked and atomic. @copydetails rfm_mem_peek8() */
RFM_API int rfm_mem_peek64(rfm_node *node, uint64_t offset, uint64_t *value);

/**
 * @brief Store 8 bits into the window, checked and atomic.
 *
 * A single-copy atomic store of the function's width (8, 16, 32 or 64
 * bits) at @p offset, which must be a multiple of the width in bytes, in
 * host byte order. Unordered: use rfm_fence_release() (or the inline
 * rfm_store32_release()) before a store that publishes data written
 * before it. On `dds:` the word is sent to the other nodes.
 * @param node The node.
 * @param offset Byte offset in the window, a multiple of the width in bytes.
 * @param value The value to store.
 * @return 0 on success, or a negative ::rfm_error code; on an argument
 *         error nothing is written.
 * @retval RFM_EINVAL @p node is NULL.
 * @retval RFM_ERANGE The word is not inside the window.
 * @retval RFM_EALIGN @p offset is not a multiple of the width.
 * @retval RFM_EPERM The handle is an observer (`observe=1`), which never
 *         writes.
 * @retval RFM_EIO `dds:` Cyclone refused the data (the local copy has it).
 * @retval RFM_ENOMEM `dds:` no memory to hold the data for sending.
 * @retval RFM_ETIMEDOUT `dds:` no node acknowledged earlier data for seconds.
 * @retval RFM_EAGAIN `dds:` called from a receive-thread callback while
 *         the send backlog is full.
 * @retval RFM_ECLOSED `dds:` the handle was inherited through fork().
 */
RFM_API int rfm_mem_poke8(rfm_node *node, uint64_t offset, uint8_t value);
/** @brief Store 16 bits into the window, checked and atomic. @copydetails rfm_mem_poke8() */
RFM_API int rfm_mem_poke16(rfm_node *node, uint64_t offset, uint16_t value);
/** @brief Store 32 bits into the window, checked and atomic. @copydetails rfm_mem_poke8() */
RFM_API int rfm_mem_poke32(rfm_node *node, uint64_t offset, uint32_t value);
/** @brief Store 64 bits into the window, checked and atomic. @copydetails rfm_mem_poke8() */
RFM_API int rfm_mem_poke64(rfm_node *node, uint64_t offset, uint64_t value);
/** @} */

RFM_END_DECLS

/** @} */
#endif /* RFM_MEMORY_H */
