/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file node.h
 * @brief Opening a node on a network by URI, closing it, describing it.
 *
 * @defgroup node Nodes
 * @{
 * A node is one attachment to a reflective-memory network: a card in a
 * host, or a process on the emulated network. Every backend is reached
 * through the one constructor, rfm_open(), by URI:
 *
 * | URI                                   | backend                                  |
 * |---------------------------------------|------------------------------------------|
 * | `shm:NAME[?node=N&size=BYTES&mode=0600]` | emulated network on this host (POSIX shm) |
 * | `dev:/dev/rfm0`                        | librfm's kernel driver (5565, QEMU cards) |
 * | `rfm2g:/dev/rfm2g0`                    | the vendor's RFM2g kernel driver          |
 *
 * A NULL or empty URI means `$RFM_URI`, or `shm:default` when that is unset.
 *
 * `shm:` parameters: `node` is the node id 0..255 (omitted: the first free
 * one); `size` the window in bytes, a multiple of 4096, with an optional
 * K, M or G suffix (powers of 1024; default 64M) — it is fixed by whoever
 * creates the network, and an attach asking another size fails with
 * ::RFM_ESIZE; `mode` the octal permission of a segment being created
 * (default 0600; 0660 shares it with the group); `depth` the records per
 * event queue, a power of two 1024..65536 fixed at creation (default 1024;
 * a different one at attach fails with ::RFM_ESIZE); `shared=1` (needs
 * `node`) opens another handle on a node id that is live, beside its other
 * handles (without it that is ::RFM_EINUSE).
 *
 * `dev:` parameters: the path names the card's device (node id, window
 * and node count are the card's); `dma=BYTES` is the length from which
 * rfm_mem_read()/rfm_mem_write() use the driver's bulk transfer (default
 * 64K on cards with a DMA engine, never on others; 0 = never); `depth`
 * the handle's event queue in the driver, 1024..65536. Errors: no such
 * device ::RFM_ENOENT, no permission ::RFM_EPERM, not an rfm.ko device or
 * another interface version ::RFM_EVERSION. rfm_event_send() returns 1
 * when the card took the record (it cannot count receiving handles).
 *
 * Every backend takes `loopback=1` and `spin=NS` (see event.h), and the
 * determinism options `prefault`, `lock`, `rt_policy`, `rt_prio` and `cpus`
 * (see realtime.h and rfm_open_with_options()).
 *
 * Thread-safety: a node handle may be used from several threads at once
 * for memory access; rfm_close() must not race with other calls on the
 * same handle.
 *
 * fork(): a child inherits its parent's handles, but not their node ids —
 * the parent alone holds those, and its rfm_close() frees them whatever
 * its children do. In the child, memory access through an inherited
 * handle still works (the window is shared); the child should
 * rfm_close() it and open a node of its own.
 */
#ifndef RFM_NODE_H
#define RFM_NODE_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/** Highest node id on a network, as on 5565 cards (ids are 0..255). */
#define RFM_NODE_ID_MAX 255
/** Number of node ids on a network. */
#define RFM_MAX_NODES 256
/** The URI opened when the caller gives none and $RFM_URI is unset. */
#define RFM_DEFAULT_URI "shm:default"
/**
 * Default window size of a new emulated network: 16 MiB, so that a network
 * fits with room to spare in the 64 MiB /dev/shm of a default Docker
 * container. Ask for more with size= (64M is the smallest 5565 card).
 */
#define RFM_SHM_DEFAULT_SIZE (16ull << 20)

/**
 * @brief Open a node by URI.
 * @param uri The network and node to open (see above); NULL or "" uses
 *        $RFM_URI, else ::RFM_DEFAULT_URI.
 * @param[out] nodep Receives the new handle; the caller frees it with
 *        rfm_close(). Left untouched on failure.
 * @return 0, or ::RFM_EURI, ::RFM_ESCHEME, ::RFM_ENOTSUP, ::RFM_ENODEID,
 *         ::RFM_EINUSE, ::RFM_EFULL, ::RFM_ESIZE, ::RFM_ECORRUPT,
 *         ::RFM_EVERSION, ::RFM_ENOSPC, ::RFM_EPERM, ::RFM_ENOENT,
 *         ::RFM_ENOMEM, ::RFM_ESYS. A failed open changes nothing that
 *         other nodes can see.
 */
RFM_API int rfm_open(const char *uri, rfm_node **nodep);

/**
 * @brief Close a node: detach from the network and free the handle.
 *
 * The node id becomes free for others; mappings from rfm_mem_map() die.
 * @param node The handle, or NULL (then nothing happens).
 */
RFM_API void rfm_close(rfm_node *node);

/** @brief This node's id on the network (0..255), or ::RFM_EINVAL for NULL. */
RFM_API int rfm_node_id(const rfm_node *node);

/** @brief Size of the reflective window in bytes; 0 for NULL. */
RFM_API uint64_t rfm_node_size(const rfm_node *node);

/**
 * @brief Name of the backend ("shm", "dev" or "rfm2g").
 * @return A static string owned by the library; "" for NULL.
 */
RFM_API const char *rfm_node_backend(const rfm_node *node);

/**
 * @brief The canonical URI of this node, with the node id it received.
 * @return A string owned by the handle, valid until rfm_close(); "" for NULL.
 */
RFM_API const char *rfm_node_uri(const rfm_node *node);

/**
 * @brief Facts about a node, in a versioned structure.
 *
 * The caller sets @c struct_size to sizeof(struct rfm_node_info) before
 * the call; the library fills only what fits, so programs built against
 * older headers keep working when fields are appended.
 */
struct rfm_node_info {
	uint32_t struct_size;	/**< Set by the caller: sizeof(struct rfm_node_info). */
	int32_t node_id;	/**< This node's id. */
	uint64_t size;		/**< Window size in bytes. */
	uint32_t max_nodes;	/**< Node ids on this network (256). */
	uint32_t nodes_attached; /**< Nodes attached now, this one included; 0 if unknown. */
	char backend[16];	/**< Backend name, NUL-terminated. */
	char uri[256];		/**< Canonical URI, NUL-terminated (truncated if longer). */
	uint32_t incarnation;	/**< How many times this node id has been attached. */
	/** The card's status now, ::RFM_LINK_KNOWN and other RFM_LINK_* bits;
	 *  0 on backends without a card (`shm:`). Since 0.2 (was reserved). */
	uint32_t link;
	uint32_t reserved[14];	/**< Zero; room for future fields. */
};

/** @name Card status bits (rfm_node_info::link, rfm_node_status::link, ::RFM_EVENT_LINK)
 * From the 5565 LCSR register through the driver; the virtual card says
 * ::RFM_LINK_KNOWN | ::RFM_LINK_SIGNAL. The link is up when SIGNAL is set
 * and SYNC_LOST is not; OWN_DATA says this node's writes came back round
 * the ring (the ring is closed).
 * @{
 */
#define RFM_LINK_KNOWN 0x01u	   /**< The card reports its status: the other bits mean something. */
#define RFM_LINK_SIGNAL 0x02u	   /**< Signal detected on the receiver. */
#define RFM_LINK_SYNC_LOST 0x04u   /**< The receiver lost sync. */
#define RFM_LINK_OWN_DATA 0x08u	   /**< Own data came back round the ring. */
#define RFM_LINK_BAD_DATA 0x10u	   /**< Bad data received. */
#define RFM_LINK_RXFIFO_FULL 0x20u /**< The receive FIFO filled (writes may be lost). */
/** @} */

/**
 * @brief Fill @p info with facts about @p node.
 * @return 0, or ::RFM_EINVAL when an argument is NULL or
 *         info->struct_size is smaller than the first two fields.
 */
RFM_API int rfm_node_get_info(const rfm_node *node, struct rfm_node_info *info);

/** Flag for rfm_network_destroy(): remove even while nodes are attached. */
#define RFM_DESTROY_FORCE 0x1u

/**
 * @brief Remove a network (the `shm:` segment named by @p uri).
 *
 * Attached nodes keep their mapping of the removed segment but are cut
 * off from nodes that open the name afterwards, so by default a network
 * with live nodes is refused with ::RFM_EBUSY. The node and size
 * parameters of the URI are ignored.
 * @param uri A `shm:` URI (NULL or "" as in rfm_open()).
 * @param flags 0 or ::RFM_DESTROY_FORCE.
 * @return 0, or ::RFM_ENOENT, ::RFM_EBUSY, ::RFM_EPERM, ::RFM_ENOTSUP
 *         (backends without a removable network), ::RFM_EURI.
 */
RFM_API int rfm_network_destroy(const char *uri, unsigned int flags);

/** @brief The library's version string at run time, e.g. "0.1.0". */
RFM_API const char *rfm_version_string(void);

/** @brief The library's version at run time, encoded as RFM_VERSION_ENCODE(). */
RFM_API unsigned int rfm_version(void);

RFM_END_DECLS

/** @} */
#endif /* RFM_NODE_H */
