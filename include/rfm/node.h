/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file node.h
 * @brief Opening a node on a network by URI, closing it, describing it.
 *
 * @defgroup node Nodes
 * @{
 * A node is one attachment to a reflective-memory network: a card in a
 * host, a process on the emulated network, or a host of a `dds:` network.
 * Every backend is reached through the one constructor, rfm_open(), by
 * URI:
 *
 * | URI                                         | backend                                      |
 * |---------------------------------------------|----------------------------------------------|
 * | `shm:NAME[?node=N&size=BYTES&mode=0600...]` | emulated network on this host (POSIX shm)     |
 * | `dev:/dev/rfm0[?dma=BYTES&depth=N]`         | librfm's kernel driver (5565, QEMU cards)     |
 * | `rfm2g:/dev/rfm2g0[?dma=...]`               | the vendor's RFM2g kernel driver              |
 * | `dds:NAME[?node=N&size=BYTES&domain=D...]`  | several hosts over Cyclone DDS, a copy each   |
 *
 * A NULL or empty URI means `$RFM_URI`, or `shm:default` when that is unset.
 *
 * `shm:` parameters: `node` is the node id 0..255 (omitted: the first free
 * one); `size` the window in bytes, a multiple of 4096, with an optional
 * K, M or G suffix (powers of 1024; default ::RFM_SHM_DEFAULT_SIZE) — it
 * is fixed by whoever creates the network, and an attach asking another
 * size fails with ::RFM_ESIZE; `mode` the octal permission of a segment
 * being created (default 0600; 0660 shares it with the group); `depth` the
 * records per event queue, a power of two 1024..65536 fixed at creation
 * (default 1024; a different one at attach fails with ::RFM_ESIZE);
 * `shared=1` (needs `node`) opens another handle on a node id that is
 * live, beside its other handles (without it that is ::RFM_EINUSE);
 * `create=0` opens only a network that exists (else ::RFM_ENOENT);
 * `accept_owner=1` joins a segment another user created as it is
 * (docs/security.md).
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
 * `rfm2g:` opens a card through the vendor's driver (docs/rfm2g-migration.md
 * lists its parameters: DMA buffer and threshold).
 *
 * `dds:` parameters (docs/dds.md): NAME is the network, a DDS partition;
 * `node` and `size` as for `shm:` (`size` a multiple of 8, 4 KiB..4 GiB;
 * the first node's default 16 MiB); `domain` the DDS domain 0..230;
 * `lease`, `join` (milliseconds: how soon a dead node is seen gone, how
 * long an open listens for the nodes already there); `depth`; `coalesce`
 * (how long a write may wait for the ones that follow it, ns);
 * `callbacks=dispatcher|receive`; `security=DIR` (DDS Security). A node id
 * another live node holds fails with ::RFM_EINUSE, another window size
 * with ::RFM_ESIZE, no copy of the window from the running nodes within a
 * few seconds with ::RFM_ETIMEDOUT.
 *
 * Every backend takes `loopback=1` and `spin=NS` (see event.h), the
 * heartbeat table's place `heartbeat=OFFSET` (see health.h), and the
 * determinism options `prefault`, `lock`, `hugepages`, `rt_policy`,
 * `rt_prio` and `cpus` (see realtime.h and rfm_open_with_options()).
 *
 * **Observers and tools.** On a card network a node id belongs to a card,
 * not to whoever looks at it. A program that only looks (a monitor, a
 * recorder, `rfm watch`) opens an **observer**: `observe=1` in the URI, or
 * rfm_open_options::attach = ::RFM_ATTACH_OBSERVER. An observer reads the
 * window, the node table (rfm_health_nodes()), rings (rfm_ring_inspect(),
 * and consumers that take no table entry) and records, and holds no node id
 * a real node may need: on `shm:` and `dds:` it has none (rfm_node_id()
 * answers ::RFM_ENODEID; rfm_node_info::node_id is -1), takes no lock and
 * makes no queue, and never creates a network; on `dev:` and `rfm2g:` it
 * shares its card's id, as the vendors' tools do. Everything that would
 * change the window or act as a node is refused with ::RFM_EPERM: writes
 * (memory, variables, records), events (send, publish, enable: an observer
 * has no queue to receive on), ring production, back-pressure consumers,
 * heartbeats, the self-test. `observe=1` takes no `node=` or `shared=`.
 *
 * A program that must act as a node for a while, but is not one of the
 * network's (`rfm listen`, which receives events addressed to an id), is a
 * **tool**: `tool=1` or ::RFM_ATTACH_TOOL. Without `node=` it takes the
 * first free id of ::RFM_NODE_TOOL_FIRST..255, the range real nodes are
 * told to leave free; with `node=` it takes the id named. A node whose id
 * is held by a tool is refused with ::RFM_EINUSE and a message that says
 * so: which process holds it and how to free it.
 *
 * fork(): a child inherits its parent's handles, but not their node ids —
 * the parent alone holds those, and its rfm_close() frees them whatever
 * its children do. In the child, memory access through an inherited
 * handle still works (the window is shared); the child should
 * rfm_close() it and open a node of its own.
 *
 * @par Thread safety
 * A node handle may be used from several threads at once; rfm_close()
 * must not race with other calls on the same handle (a thread blocked in
 * an event wait is woken by it, see event.h). rfm_open() may be called
 * from any thread.
 *
 * @sa librfm(7)
 */
#ifndef RFM_NODE_H
#define RFM_NODE_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/** Highest node id on a network, as on 5565 cards (ids are 0..255). */
#define RFM_NODE_ID_MAX 255
/** Number of node ids on a network. */
#define RFM_MAX_NODES 256
/**
 * The first id of the range kept for tools (`tool=1`, ::RFM_ATTACH_TOOL,
 * the `rfm` commands that need an id): ids RFM_NODE_TOOL_FIRST..255. Give
 * the network's real nodes ids below it. Since RFM_1.2.
 */
#define RFM_NODE_TOOL_FIRST 240

/** @name How a handle attaches (rfm_open_options::attach, rfm_node_info::attach)
 * @{
 */
#define RFM_ATTACH_NODE 0u	/**< A node: holds the id named, or the first free one. */
#define RFM_ATTACH_OBSERVER 1u	/**< Reads without a node id (`observe=1`). Since RFM_1.2. */
#define RFM_ATTACH_TOOL 2u	/**< A tool: an id of the tool range unless named (`tool=1`). Since RFM_1.2. */
/** @} */

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
 *
 * Attaches to the network the URI names (creating an emulated one that
 * does not exist yet) and takes a node id on it. The URI grammar and each
 * backend's parameters are in librfm(7) (and node.h); rfm_last_error()
 * names what a refused URI got wrong.
 * @param uri The network and node to open; NULL or "" uses $RFM_URI, else
 *        ::RFM_DEFAULT_URI.
 * @param[out] nodep Receives the new handle; the caller frees it with
 *        rfm_close(). Left untouched on failure.
 * @return 0 on success, or a negative ::rfm_error code. A failed open
 *         changes nothing that other nodes can see.
 * @retval RFM_EINVAL @p nodep is NULL.
 * @retval RFM_EURI The URI is malformed: no scheme, a bad name, an
 *         unknown or repeated parameter, a value that does not parse.
 * @retval RFM_ESCHEME No backend has the URI's scheme (`dds:` in a build
 *         without Cyclone DDS, or in the static librfm2g.a).
 * @retval RFM_ENOTSUP The backend cannot do what a parameter asks
 *         (`hugepages=1` off `shm:` or without hugetlbfs, `security=` where
 *         Cyclone has no security plugin, `observe=1` where the backend
 *         has no observers, `observe=1` with `security=` on `dds:`).
 * @retval RFM_ENOENT No such device, or (`create=0`) no such network, or
 *         an observer found no network (observers never create one, unless
 *         the URI describes it: `size=` or `create=1` on `shm:`).
 * @retval RFM_EPERM No permission for the device or the segment, or the
 *         real-time scheduling asked is not allowed (the message names
 *         CAP_SYS_NICE and RLIMIT_RTPRIO).
 * @retval RFM_ENODEID `node=` is outside 0..255.
 * @retval RFM_EINUSE The node id is held by a live node (without `shared=1`).
 * @retval RFM_EFULL No node id is free on the network.
 * @retval RFM_ESIZE The window size is invalid, or differs from the
 *         network's; or the event queue depth differs from the network's.
 * @retval RFM_ECORRUPT The network's shared state failed validation.
 * @retval RFM_EVERSION The network or driver is of another version, or the
 *         segment of the other byte order.
 * @retval RFM_ENOSPC No room to create the network (a full /dev/shm: the
 *         message says how big a window fits).
 * @retval RFM_EBUSY `shm:` another process held the network's open lock
 *         too long, or the segment kept being removed during the open.
 * @retval RFM_ETIMEDOUT `dds:` no running node gave this one its copy of
 *         the window in time.
 * @retval RFM_EIO The device, or the DDS participant, failed.
 * @retval RFM_ENOMEM Out of memory, or (`lock=1`) the window cannot be
 *         locked within RLIMIT_MEMLOCK.
 * @retval RFM_ESYS Another system call failed (errno is kept).
 * @sa rfm_open_with_options(), rfm_close(), rfm_network_destroy()
 */
RFM_API int rfm_open(const char *uri, rfm_node **nodep);

/**
 * @brief Close a node: detach from the network and free the handle.
 *
 * Stops the handle's threads (event dispatcher, fd watcher, heartbeat),
 * wakes its blocked waits (they return ::RFM_ECLOSED), closes the
 * descriptor of rfm_event_fd() and frees the handle. The node id becomes
 * free for others; the pointer of rfm_mem_map() is no longer valid.
 * Called from one of the handle's own callbacks, the close completes when
 * the callback returns. Rings, consumers, variables and records opened on
 * the node must be closed first.
 * @param node The handle, or NULL (then nothing happens).
 * @sa rfm_open()
 */
RFM_API void rfm_close(rfm_node *node);

/**
 * @brief This node's id on the network.
 * @param node The handle.
 * @return The node id, 0..255, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 * @retval RFM_ENODEID An observer that holds none (`observe=1` on `shm:`
 *         or `dds:`).
 */
RFM_API int rfm_node_id(const rfm_node *node);

/**
 * @brief Size of the reflective window in bytes.
 * @param node The handle.
 * @return The window size, or 0 when @p node is NULL.
 */
RFM_API uint64_t rfm_node_size(const rfm_node *node);

/**
 * @brief Name of the node's backend: "shm", "dev", "rfm2g" or "dds".
 * @param node The handle.
 * @return The URI scheme without its colon: a static string owned by the
 *         library; "" when @p node is NULL.
 */
RFM_API const char *rfm_node_backend(const rfm_node *node);

/**
 * @brief The canonical URI of this node, with the node id it received.
 *
 * Opening it again reaches the same network and node id
 * (`shm:NAME?node=N&size=S`).
 * @param node The handle.
 * @return A string owned by the handle, valid until rfm_close(); "" when
 *         @p node is NULL.
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
	int32_t node_id;	/**< This node's id; -1 for an observer that holds none. */
	uint64_t size;		/**< Window size in bytes. */
	uint32_t max_nodes;	/**< Node ids on this network (256). */
	uint32_t nodes_attached; /**< Nodes attached now, this one included; 0 if unknown. */
	char backend[16];	/**< Backend name, NUL-terminated. */
	char uri[256];		/**< Canonical URI, NUL-terminated (truncated if longer). */
	uint32_t incarnation;	/**< How many times this node id has been attached. */
	/** The card's status now, ::RFM_LINK_KNOWN and other RFM_LINK_* bits;
	 *  0 on backends without a card (`shm:`). Since 0.2 (was reserved). */
	uint32_t link;
	/** How this handle attached: ::RFM_ATTACH_NODE, ::RFM_ATTACH_OBSERVER
	 *  (then @c node_id is -1 where it holds no id) or ::RFM_ATTACH_TOOL.
	 *  Since RFM_1.2 (was reserved). */
	uint32_t attach;
	uint32_t reserved[13];	/**< Zero; room for future fields. */
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
 *
 * The library fills as much of the structure as @c info->struct_size
 * says it has, and sets @c struct_size to what it filled.
 * @param node The handle.
 * @param[in,out] info The caller sets @c struct_size to
 *        sizeof(struct rfm_node_info); the rest is filled.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c info->struct_size is
 *         smaller than its first two fields.
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
 * parameters of the URI are ignored. A `dds:` network lives as long as
 * its nodes: there is nothing to remove, and the call succeeds.
 * @param uri A `shm:` URI (NULL or "" as in rfm_open()).
 * @param flags 0 or ::RFM_DESTROY_FORCE.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p flags has unknown bits.
 * @retval RFM_EURI The URI is malformed.
 * @retval RFM_ESCHEME No backend has the URI's scheme.
 * @retval RFM_ENOTSUP The backend has no network to remove (`dev:`, `rfm2g:`).
 * @retval RFM_ENOENT No such network.
 * @retval RFM_EBUSY Nodes are still attached (without ::RFM_DESTROY_FORCE).
 * @retval RFM_EPERM The segment belongs to another user.
 * @retval RFM_ESYS Removing it failed otherwise (errno is kept).
 * @par Thread safety
 * Any thread; the nodes of the network may be open in this process (they
 * are cut off, as those of other processes).
 */
RFM_API int rfm_network_destroy(const char *uri, unsigned int flags);

/**
 * @brief The library's version string at run time, e.g. "0.1.0".
 * @return A static string owned by the library, "MAJOR.MINOR.PATCH".
 */
RFM_API const char *rfm_version_string(void);

/**
 * @brief The library's version at run time, encoded as RFM_VERSION_ENCODE().
 *
 * Compare with ::RFM_VERSION (the headers' version at compile time) to
 * learn whether the library loaded is older than the headers used.
 * @return (major << 16) | (minor << 8) | patch.
 */
RFM_API unsigned int rfm_version(void);

RFM_END_DECLS

/** @} */
#endif /* RFM_NODE_H */
