/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file ring.h
 * @brief Ring channels: one producer node, any number of consumers on any nodes.
 *
 * @defgroup rings Rings
 * @{
 * A ring lives in a window range written by its producer node: a header,
 * then @c slot_count slots (a power of two) of @c slot_size payload bytes,
 * each with a sequence stamp, then a consumer table. The producer copies a
 * message in (rfm_ring_publish()) or claims a slot, writes in place and
 * commits it (rfm_ring_claim() / rfm_ring_commit()).
 *
 * **Stamps.** Message number @e p (0, 1, 2...) goes to slot @e p mod
 * @c slot_count. The producer stamps the slot 2p+1 (being written), writes
 * the data, then stamps it 2p+2 with release order. A consumer that wants
 * message @e p and finds a larger stamp knows it was lapped; it counts the
 * messages it lost and resynchronises to the oldest message still valid.
 *
 * **Consumers** each have their own cursor (the next message number they
 * take). A new consumer starts at the oldest valid message or at the
 * newest point (only messages published later). Copying takes
 * (rfm_ring_consume()) and zero-copy peeks (rfm_ring_peek() then
 * rfm_ring_release()) are both checked against the stamp, so a message
 * overwritten while it was read is reported, never returned torn.
 *
 * **Consumer table.** Consumers that block (notify), or hold the producer
 * back (back-pressure), claim an entry of the ring's consumer table and are
 * its only writer while they hold it: the entry carries their cursor, lap
 * count and a "sleeping" word. The table is partitioned by node id: each
 * node id has its own row of @c max_consumers entries and a directory word
 * saying which of them are held, and only that node writes them, so the
 * table works where each node holds its own copy of the window (real
 * reflective memory): no compare-and-swap ever crosses nodes. Processes of
 * one node share its copy and pick an entry of its row with a local one.
 * The producer only reads the table. rfm_ring_inspect() shows it.
 *
 * **Notify.** With ::RFM_RING_F_NOTIFY the producer, on commit, sends the
 * ring's event type (data: the ring id) to each consumer's node that
 * announced it is going to sleep, once per sleep: a burst costs one
 * interrupt per sleeping consumer. The producer reads the table's
 * directory once per clock tick of the coarse monotonic clock (a few ms)
 * and otherwise only the entries it found held: a consumer's sleeps in its
 * first tick after registering are cut to 1 ms. Where each node holds its
 * own copy of the window (not `shm:`), a sleep announced while a commit is
 * on its way can cross it unseen, so sleeps there last 10 ms at most. A consumer that blocks takes records
 * from its handle's event queue; give such a handle to ring consumers only
 * (open another handle with `shared=1` for other events).
 *
 * **Back-pressure.** With ::RFM_RING_F_BACKPRESSURE, consumers opened with
 * ::RFM_RING_CONSUMER_BACKPRESSURE publish their cursor in their entry, and
 * the producer never laps them: its publish fails with ::RFM_EOVERRUN
 * (timeout 0) or waits up to the timeout. A consumer whose node or process
 * is dead stops holding the producer back (and its entry is freed). The
 * producer looks at the table at least once a lap, so a consumer that
 * registers while the producer runs holds it back from its start on when
 * it starts at the newest point; one starting at the oldest may still be
 * lapped during its first lap (it is told, as any lapped consumer).
 *
 * **Footprint** (rfm_ring_footprint()): a 128-byte header; @c slot_count
 * slots of a stride that rounds 16 + @c slot_size up to 64 bytes, so that
 * the producer writing one slot never shares a cache line with a consumer
 * reading the one before (choose 48, 112, 240... bytes to waste none);
 * then the consumer table: a directory of 4 bytes per node id, padded to
 * 64, and @c max_consumers entries of 32 bytes per node id, for the node
 * ids 0..@c consumer_nodes-1. For 16 slots of 64 bytes: 19,584 bytes for
 * every node id and 2 entries each (the defaults), 2,496 for 8 node ids
 * and one entry each. Rings without notify or back-pressure use no entry,
 * but their table is there all the same (a consumer of another build may
 * ask for one).
 *
 * Everything read from the window is validated before use: a corrupt
 * header is refused with ::RFM_ECORRUPT or ::RFM_EVERSION, and a corrupt
 * slot is reported, never followed out of the ring. Slots or a head
 * scribbled over by a dead or hostile writer cost messages (counted in
 * rfm_ring_msg::lost), never a loop: every take ends by its timeout.
 *
 * Waits: a blocking take or back-pressure publish spins for the handle's
 * spin time (rfm_event_set_spin()), then sleeps: on the ring's event with
 * ::RFM_RING_F_NOTIFY, on a futex in the ring header for back-pressure
 * (woken by the consumer that makes room; a 5 ms slice bounds a lost
 * wake), else in pauses growing to 1 ms. rfm_event_cancel() on the handle
 * (say from a SIGTERM handler) ends any of them with ::RFM_ECANCELED.
 *
 * **Errors of a wait.** A blocking take or back-pressure publish also
 * ends with ::RFM_ECANCELED (rfm_event_cancel() on the node's handle) or
 * ::RFM_ECLOSED (the node's handle is being closed); a take that sleeps on
 * the ring's event may fail as rfm_event_enable() and rfm_event_wait() do
 * on that handle (::RFM_EBUSY when callbacks own its records, ::RFM_EFULL
 * when its node id has no room for another receiving handle...).
 *
 * @par Thread safety
 * A producer handle (::rfm_ring) and a consumer handle
 * (::rfm_ring_consumer) are each used by ONE thread at a time: the library
 * does not lock them, and two threads taking from one consumer at once
 * may both get the same message and skip another. Serialise calls on a
 * handle (the Python binding does, with a lock per handle), or give each
 * thread a consumer of its own. Different handles are independent, and
 * rfm_ring_footprint() and rfm_ring_inspect() may be called from any
 * thread.
 *
 * @sa rfm-protocols(7)
 */
#ifndef RFM_RING_H
#define RFM_RING_H

#include <rfm/common.h>
#include <rfm/layout.h>

RFM_BEGIN_DECLS

/** A producer's handle on a ring (opaque): made by rfm_ring_create(),
 *  rfm_ring_create_region() or rfm_ring_attach(), freed by rfm_ring_close(). */
typedef struct rfm_ring rfm_ring;
/** A consumer's handle on a ring (opaque): made by rfm_ring_consumer_open()
 *  or rfm_ring_consumer_open_region(), freed by rfm_ring_consumer_close(). */
typedef struct rfm_ring_consumer rfm_ring_consumer;

/** rfm_ring_config::flags: commits interrupt sleeping consumers. */
#define RFM_RING_F_NOTIFY 0x1u
/** rfm_ring_config::flags: registered consumers are never lapped. */
#define RFM_RING_F_BACKPRESSURE 0x2u

/** Largest slot payload, in bytes. */
#define RFM_RING_SLOT_MAX (1u << 20)
/** Largest slot count. */
#define RFM_RING_COUNT_MAX (1u << 24)
/** Most table entries per node (consumers one node may register at once). */
#define RFM_RING_CONSUMERS_MAX 32u
/** Table entries per node when rfm_ring_config::max_consumers is 0. */
#define RFM_RING_CONSUMERS_DEFAULT 2u

/** The shape of a ring, given at creation. */
struct rfm_ring_config {
	uint32_t struct_size;	/**< sizeof(struct rfm_ring_config). */
	uint32_t slot_size;	/**< Largest message, bytes (1..::RFM_RING_SLOT_MAX). */
	uint32_t slot_count;	/**< Slots: a power of two, 2..::RFM_RING_COUNT_MAX. */
	uint32_t flags;		/**< ::RFM_RING_F_NOTIFY, ::RFM_RING_F_BACKPRESSURE. */
	uint32_t notify_type;	/**< Event type of notifications: INTR1..INTR4 (0: INTR3). */
	uint32_t ring_id;	/**< The data word of notifications (any tag). */
	uint32_t max_consumers;	/**< Table entries per node id (0: default). */
	/**
	 * Node ids that may hold a table entry: 0..consumer_nodes-1 (0: all
	 * 256, a ring every librfm reads). A layout's ring takes its `nodes:`.
	 * Fewer ids make a smaller ring (format 3, which librfm before RFM_1.2
	 * refuses with ::RFM_EVERSION); a consumer on a higher id that needs an
	 * entry gets ::RFM_ENODEID, and reads as an observer does (no entry,
	 * never holds the producer back). Since RFM_1.2.
	 */
	uint32_t consumer_nodes;
	uint32_t reserved[8];	/**< Zero. */
};

/**
 * @brief Bytes a ring of this shape occupies in the window.
 *
 * Header, slots with their stamps, and the consumer table; what
 * rfm_ring_create() needs in its range.
 * @param config The shape.
 * @param[out] bytes Receives the footprint.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or the shape is bad (the
 *         message says which field).
 */
RFM_API int rfm_ring_footprint(const struct rfm_ring_config *config, uint64_t *bytes);

/**
 * @brief Create a ring at @p offset (64-byte aligned) in @p size bytes of the window.
 *
 * Writes the header and clears the stamps and the consumer table; any ring
 * there before is replaced (its consumers see ::RFM_ECORRUPT or lose track).
 * This node becomes the ring's producer, the one writer of its header
 * and slots.
 * @param node The producer's node.
 * @param offset Where the ring begins, a multiple of 64.
 * @param size Bytes of the window the ring may use (at least its
 *        footprint, rfm_ring_footprint()).
 * @param config The shape; read during the call only.
 * @param[out] ringp Receives the producer handle; the caller frees it with
 *        rfm_ring_close() (the ring stays in the window).
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or the shape is bad.
 * @retval RFM_EALIGN @p offset is not a multiple of 64.
 * @retval RFM_ERANGE The ring does not fit @p size or the window.
 * @retval RFM_EPERM The handle is an observer (`observe=1`): it never produces.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_EIO `dds:` the new ring could not be sent (see memory.h,
 *         "Errors of a store", for ::RFM_ETIMEDOUT, ::RFM_EAGAIN and
 *         ::RFM_ECLOSED there).
 */
RFM_API int rfm_ring_create(rfm_node *node, uint64_t offset, uint64_t size,
			    const struct rfm_ring_config *config, rfm_ring **ringp);

/**
 * @brief Create a ring filling the layout region @p region.
 *
 * As rfm_ring_create() at the region's offset, in the region's size.
 * @param node The producer's node: the region's writer.
 * @param layout A finished layout of the window.
 * @param region The region's name.
 * @param config The shape, read during the call only; or NULL for the
 *        ring the layout declares for the region (rfm_layout_region_ring()).
 * @param[out] ringp Receives the producer handle; the caller frees it with
 *        rfm_ring_close().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or the shape is bad.
 * @retval RFM_ENOTFOUND The layout has no such region, or @p config is
 *         NULL and the region declares no ring.
 * @retval RFM_EOWNER The region's writer is another node.
 * @retval RFM_EALIGN The region does not begin at a multiple of 64.
 * @retval RFM_ERANGE The ring does not fit the region.
 * @retval RFM_EPERM The handle is an observer (`observe=1`): it never produces.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_EIO `dds:` the new ring could not be sent.
 */
RFM_API int rfm_ring_create_region(rfm_node *node, const rfm_layout *layout, const char *region,
				   const struct rfm_ring_config *config, rfm_ring **ringp);

/**
 * @brief Declare that region @p region of an unfinished layout holds a ring
 *        of the shape @p config (the builder's `ring:` of a layout file).
 *
 * rfm_layout_finish() then checks the region: 64-byte aligned, no
 * variables or records in it, and room for the ring; a region added with
 * size 0 gets the ring's footprint as its size. The ring's consumer table
 * has rows for the layout's node ids (`nodes:`) only: its
 * @c consumer_nodes is set from them, whatever @p config says.
 * @param layout A layout being built (not finished).
 * @param region The name of one of its regions.
 * @param config The ring's shape, copied; its @c struct_size may be an
 *        older caller's.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c config->struct_size is
 *         below the shape's size before RFM_1.2 (without @c consumer_nodes).
 * @retval RFM_ENOTFOUND The layout has no such region.
 * @retval RFM_EBUSY The layout is finished, or the region declares a ring
 *         already.
 * A bad shape is reported by rfm_layout_finish(), naming the region.
 * @par Thread safety
 * As the layout builder's: one thread builds a layout.
 * @since RFM_1.2
 */
RFM_API int rfm_layout_add_ring(rfm_layout *layout, const char *region,
				const struct rfm_ring_config *config);

/**
 * @brief The ring that region @p index of a finished layout declares.
 * @param layout A finished layout.
 * @param index The region's index (rfm_layout_region_count()).
 * @param[in,out] config The caller sets @c struct_size; filled with the
 *        shape as rfm_ring_create() takes it (@c consumer_nodes: the
 *        layout's node ids, 0 for all).
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_ENOTFOUND The region declares no ring.
 * @retval RFM_EINVAL An argument is NULL, @c config->struct_size is below
 *         the shape's size before RFM_1.2, there is no region @p index, or
 *         the layout is not finished.
 * @par Thread safety
 * A finished layout is read-only: any thread, at any time.
 * @since RFM_1.2
 */
RFM_API int rfm_layout_region_ring(const rfm_layout *layout, size_t index,
				   struct rfm_ring_config *config);

/**
 * @brief Take over an existing ring as its producer (a restarted producer).
 *
 * Validates the header; publishing goes on after the last committed
 * message (a claim left open by the dead producer is overwritten).
 * @param node The producer's node, the one the ring names.
 * @param offset Where the ring begins.
 * @param[out] ringp Receives the producer handle; the caller frees it with
 *        rfm_ring_close().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p ringp is NULL.
 * @retval RFM_EALIGN @p offset is not a multiple of 64.
 * @retval RFM_ERANGE @p offset is outside the window.
 * @retval RFM_ECORRUPT No valid ring there (bad magic, impossible shape,
 *         or a big-endian ring of a library before 1.1).
 * @retval RFM_EVERSION A ring of another format (format 1: create it again).
 * @retval RFM_EOWNER The ring's producer is another node.
 * @retval RFM_EPERM The handle is an observer (`observe=1`): it never produces.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_ring_attach(rfm_node *node, uint64_t offset, rfm_ring **ringp);

/**
 * @brief Free a producer handle; the ring stays in the window.
 *
 * Consumers keep taking what was published; rfm_ring_attach() takes the
 * ring over again.
 * @param ring The handle, or NULL (then nothing happens).
 */
RFM_API void rfm_ring_close(rfm_ring *ring);

/**
 * @brief Publish a copy of @p len bytes as the next message.
 *
 * Stamps the slot odd, copies the data, stamps it even with release order
 * and moves the head; with ::RFM_RING_F_NOTIFY it then interrupts the
 * consumers that announced a sleep.
 * @param ring The producer handle.
 * @param buf The message; may be NULL when @p len is 0.
 * @param len Its length, at most the slot size.
 * @param timeout_ns Back-pressure only: 0 fails at once, < 0 waits for ever,
 *        else waits up to this long for the slowest registered consumer.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p ring is NULL, @p buf is NULL with @p len not 0, or
 *         @p len exceeds the slot size.
 * @retval RFM_EBUSY A claimed slot is not committed.
 * @retval RFM_EOVERRUN @p timeout_ns is 0 and the message would lap a
 *         registered back-pressure consumer.
 * @retval RFM_ETIMEDOUT No consumer made room within @p timeout_ns.
 * @retval RFM_ECANCELED rfm_event_cancel() on the node's handle ended the wait.
 * @retval RFM_ECLOSED The node's handle is being closed.
 */
RFM_API int rfm_ring_publish(rfm_ring *ring, const void *buf, size_t len, int64_t timeout_ns);

/**
 * @brief Claim the next slot to write a message in place (zero copy).
 *
 * Waits for room as rfm_ring_publish() does; rfm_ring_commit() ends the
 * claim and publishes the message.
 * @param ring The producer handle.
 * @param[out] bufp The slot's payload (rfm_ring_info::slot_size bytes), in
 *        the window: write the message there, then commit.
 * @param timeout_ns As for rfm_ring_publish().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p ring or @p bufp is NULL.
 * @retval RFM_EBUSY A claim is open already.
 * @retval RFM_EOVERRUN @p timeout_ns is 0 and the message would lap a
 *         registered back-pressure consumer.
 * @retval RFM_ETIMEDOUT No consumer made room within @p timeout_ns.
 * @retval RFM_ECANCELED rfm_event_cancel() on the node's handle ended the wait.
 * @retval RFM_ECLOSED The node's handle is being closed.
 */
RFM_API int rfm_ring_claim(rfm_ring *ring, void **bufp, int64_t timeout_ns);

/**
 * @brief Commit the claimed slot as a message of @p len bytes.
 * @param ring The producer handle.
 * @param len The message's length, at most the slot size.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p ring is NULL, no claim is open, or @p len exceeds
 *         the slot size (the claim stays open).
 */
RFM_API int rfm_ring_commit(rfm_ring *ring, size_t len);

/** Facts about a ring (both sides). */
struct rfm_ring_info {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t slot_size;	/**< Largest message, bytes. */
	uint32_t slot_count;	/**< Slots (a power of two). */
	uint32_t flags;		/**< ::RFM_RING_F_NOTIFY, ::RFM_RING_F_BACKPRESSURE. */
	uint32_t producer;	/**< Producer node id. */
	uint32_t notify_type;	/**< Event type of notifications (INTR1..INTR4). */
	uint32_t ring_id;	/**< The data word of notifications. */
	uint32_t max_consumers;	/**< Table entries per node id. */
	uint64_t offset;	/**< Of the ring in the window. */
	uint64_t footprint;	/**< Its bytes. */
	uint64_t head;		/**< Messages published so far. */
	/** Node ids with a table row: 0..consumer_nodes-1 (256: all). Since RFM_1.2. */
	uint32_t consumer_nodes;
	uint32_t reserved0;	/**< Zero. */
	uint64_t reserved[3];	/**< Zero. */
};

/**
 * @brief Describe the ring of a producer handle.
 *
 * The library fills as much of the structure as @c info->struct_size
 * says it has.
 * @param ring The producer handle.
 * @param[in,out] info The caller sets @c struct_size to
 *        sizeof(struct rfm_ring_info); the rest is filled.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c info->struct_size is below 8.
 */
RFM_API int rfm_ring_get_info(rfm_ring *ring, struct rfm_ring_info *info);

/** Start at the oldest message still in the ring (default). */
#define RFM_RING_CONSUMER_OLDEST 0x0u
/** Start after the newest message: take only what is published later. */
#define RFM_RING_CONSUMER_NEWEST 0x1u
/** Hold the producer back (the ring needs ::RFM_RING_F_BACKPRESSURE). */
#define RFM_RING_CONSUMER_BACKPRESSURE 0x2u

/**
 * @brief Attach a consumer to the ring at @p offset.
 *
 * Validates the header. Claims an entry of this node's row of the
 * consumer table when the ring has notify or back-pressure; the entry is
 * given back by rfm_ring_consumer_close() (or taken over by this node's
 * next claim when its holder died).
 * @param node The consumer's node (any node of the network).
 * @param offset Where the ring begins.
 * @param flags ::RFM_RING_CONSUMER_OLDEST or ::RFM_RING_CONSUMER_NEWEST, and
 *        ::RFM_RING_CONSUMER_BACKPRESSURE.
 * @param[out] consp Receives the handle; the caller frees it with
 *        rfm_ring_consumer_close().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p consp is NULL, or @p flags has unknown bits.
 * @retval RFM_EALIGN @p offset is not a multiple of 64.
 * @retval RFM_ERANGE @p offset is outside the window.
 * @retval RFM_ECORRUPT No valid ring there (bad magic, impossible shape,
 *         or a big-endian ring of a library before 1.1).
 * @retval RFM_EVERSION A ring of another format (format 1: create it again).
 * @retval RFM_ENOTSUP Back-pressure asked of a ring without it.
 * @retval RFM_EPERM Back-pressure asked by an observer (`observe=1`): it
 *         reads without an entry and never holds the producer back.
 * @retval RFM_ENODEID The ring gives its consumers table entries (notify
 *         or back-pressure) and the handle's node id has no row (the
 *         ring's @c consumer_nodes is not above it): an observer's handle
 *         reads it without one.
 * @retval RFM_EFULL Every entry of this node's row is taken.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_ring_consumer_open(rfm_node *node, uint64_t offset, unsigned int flags,
				   rfm_ring_consumer **consp);

/**
 * @brief As rfm_ring_consumer_open() for the ring filling layout region @p region.
 * @param node The consumer's node.
 * @param layout A finished layout of the window.
 * @param region The region's name.
 * @param flags As for rfm_ring_consumer_open().
 * @param[out] consp Receives the handle; the caller frees it with
 *        rfm_ring_consumer_close().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @p flags has unknown bits.
 * @retval RFM_ENOTFOUND The layout has no such region.
 * @retval RFM_EALIGN The region does not begin at a multiple of 64.
 * @retval RFM_ERANGE The region begins outside the window.
 * @retval RFM_ECORRUPT No valid ring in the region.
 * @retval RFM_EVERSION A ring of another format.
 * @retval RFM_ENOTSUP Back-pressure asked of a ring without it.
 * @retval RFM_EPERM Back-pressure asked by an observer (`observe=1`): it
 *         reads without an entry and never holds the producer back.
 * @retval RFM_ENODEID The ring gives its consumers table entries (notify
 *         or back-pressure) and the handle's node id has no row (the
 *         ring's @c consumer_nodes is not above it): an observer's handle
 *         reads it without one.
 * @retval RFM_EFULL Every entry of this node's row is taken.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_ring_consumer_open_region(rfm_node *node, const rfm_layout *layout,
					  const char *region, unsigned int flags,
					  rfm_ring_consumer **consp);

/**
 * @brief Give back the consumer's table entry and free the handle.
 *
 * A back-pressure consumer stops holding the producer back. Close a
 * consumer with a callback from another thread than its node's
 * dispatcher.
 * @param cons The handle, or NULL (then nothing happens).
 */
RFM_API void rfm_ring_consumer_close(rfm_ring_consumer *cons);

/** What a take returns beside the payload. */
struct rfm_ring_msg {
	uint64_t seq;		/**< Message number (0 for the ring's first). */
	uint64_t lost;		/**< Messages lost (lapped) right before this one. */
	uint32_t len;		/**< Payload bytes. */
	uint32_t reserved;	/**< Zero. */
};

/**
 * @brief Take the next message by copy.
 *
 * The copy is checked against the slot's stamp: a message overwritten
 * while it was copied is never returned, and messages the producer lapped
 * are counted in @p msg->lost of the next one returned.
 * @param cons The consumer handle.
 * @param[out] buf Receives min(len, @p cap) bytes; may be NULL when @p cap is 0.
 * @param cap Room in @p buf; a longer message is cut (@p msg->len says).
 * @param[out] msg Receives the message's number, length and the messages
 *        lost before it.
 * @param timeout_ns 0: do not wait; < 0: wait for ever; else ns. Blocking
 *        spins for the handle's spin time (rfm_event_set_spin()), then sleeps
 *        on the ring's notification (rings with ::RFM_RING_F_NOTIFY; others
 *        poll in pauses growing to 1 ms).
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p cons or @p msg is NULL, or @p buf is NULL with
 *         @p cap not 0.
 * @retval RFM_EAGAIN @p timeout_ns is 0 and nothing is new (rfm_last_error()
 *         is left as it was).
 * @retval RFM_ETIMEDOUT Nothing new within @p timeout_ns.
 * @retval RFM_EBUSY A peek is open; or callbacks own the node handle's
 *         records (a sleeping take).
 * @retval RFM_ECORRUPT A slot's length is impossible; the message is
 *         skipped and counted as lost.
 * @retval RFM_ECANCELED rfm_event_cancel() on the node's handle ended the wait.
 * @retval RFM_ECLOSED The node's handle is being closed.
 */
RFM_API int rfm_ring_consume(rfm_ring_consumer *cons, void *buf, size_t cap,
			     struct rfm_ring_msg *msg, int64_t timeout_ns);

/**
 * @brief Look at the next message in place (zero copy); rfm_ring_release() ends it.
 *
 * The producer may overwrite the slot during the peek (it does not wait
 * for peeks); rfm_ring_release() says whether it did.
 * @param cons The consumer handle.
 * @param[out] datap Points to the message in the window until the release.
 * @param[out] msg Receives the message's number, length and the messages
 *        lost before it.
 * @param timeout_ns As for rfm_ring_consume().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL.
 * @retval RFM_EAGAIN @p timeout_ns is 0 and nothing is new.
 * @retval RFM_ETIMEDOUT Nothing new within @p timeout_ns.
 * @retval RFM_EBUSY A peek is open already; or callbacks own the node
 *         handle's records (a sleeping take).
 * @retval RFM_ECORRUPT A slot's length is impossible; the message is
 *         skipped and counted as lost.
 * @retval RFM_ECANCELED rfm_event_cancel() on the node's handle ended the wait.
 * @retval RFM_ECLOSED The node's handle is being closed.
 */
RFM_API int rfm_ring_peek(rfm_ring_consumer *cons, const void **datap, struct rfm_ring_msg *msg,
			  int64_t timeout_ns);

/**
 * @brief End a peek and move on.
 * @param cons The consumer handle.
 * @return 0 when the message stayed whole during the peek, or a negative
 *         ::rfm_error code.
 * @retval RFM_ELAPPED The producer overwrote the slot during the peek:
 *         what was read may be torn; it counts as lost, and the consumer
 *         moves on all the same.
 * @retval RFM_EINVAL @p cons is NULL, or no peek is open.
 */
RFM_API int rfm_ring_release(rfm_ring_consumer *cons);

/**
 * @brief Called for each message on the node handle's dispatcher thread.
 * @param cons The consumer.
 * @param data The message, copied out of the ring; valid during the call.
 * @param msg Its number, length and the messages lost before it.
 * @param arg The pointer given to rfm_ring_consumer_set_callback().
 */
typedef void (*rfm_ring_callback)(rfm_ring_consumer *cons, const void *data,
				  const struct rfm_ring_msg *msg, void *arg);

/**
 * @brief Deliver every message to @p fn on the handle's event dispatcher thread.
 *
 * Needs a ring with ::RFM_RING_F_NOTIFY. Registers an event callback for
 * the ring's notify type on the consumer's node handle (one ring callback
 * consumer per handle and type). Messages torn by a lap are not delivered:
 * they count as lost in the next message's @c lost. While it is set, the
 * handle's blocking takes (rings and rfm_event_wait()) return ::RFM_EBUSY.
 * Close the consumer from another thread, not from its own callback.
 * @param cons The consumer handle.
 * @param fn The function.
 * @param arg Passed to @p fn as is; the library never touches it.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p cons or @p fn is NULL.
 * @retval RFM_ENOTSUP The ring has no notify flag.
 * @retval RFM_EBUSY A callback is set on this consumer already, or one for
 *         the ring's notify type is registered on the node's handle.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_EFULL `shm:` the node id has no room for another receiving handle.
 * @retval RFM_EPERM The dispatcher may not take the real-time scheduling
 *         the handle was opened with.
 * @retval RFM_ESYS The dispatcher thread's creation failed (errno is kept).
 */
RFM_API int rfm_ring_consumer_set_callback(rfm_ring_consumer *cons, rfm_ring_callback fn,
					   void *arg);

/** Counters of a consumer (rfm_ring_consumer_get_stats()). */
struct rfm_ring_consumer_stats {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t reserved0;	/**< Zero (aligns the next field). */
	uint64_t cursor;	/**< Next message number to take. */
	uint64_t taken;		/**< Messages returned. */
	uint64_t lost;		/**< Messages lost to laps. */
	uint64_t laps;		/**< Times the consumer was lapped. */
	uint64_t sleeps;	/**< Times a blocking take went to sleep. */
	uint64_t reserved[4];	/**< Zero. */
};

/**
 * @brief The counters of a consumer.
 *
 * The library fills as much of the structure as @c stats->struct_size
 * says it has.
 * @param cons The consumer handle.
 * @param[in,out] stats The caller sets @c struct_size to
 *        sizeof(struct rfm_ring_consumer_stats); the rest is filled.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c stats->struct_size is below 8.
 */
RFM_API int rfm_ring_consumer_get_stats(rfm_ring_consumer *cons,
					struct rfm_ring_consumer_stats *stats);

/**
 * @brief Describe the ring a consumer takes from.
 *
 * The header as validated at open, and the head now.
 * @param cons The consumer handle.
 * @param[in,out] info The caller sets @c struct_size to
 *        sizeof(struct rfm_ring_info); the rest is filled.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c info->struct_size is below 8.
 */
RFM_API int rfm_ring_consumer_get_info(rfm_ring_consumer *cons, struct rfm_ring_info *info);

/** rfm_ring_consumer_view::flags: the consumer is asleep, waiting for a record. */
#define RFM_RING_VIEW_SLEEPING 0x100u
/** rfm_ring_consumer_view::flags: a back-pressure consumer a whole lap
 *  behind: the producer waits for it (or fails with ::RFM_EOVERRUN). */
#define RFM_RING_VIEW_HOLDING 0x200u
/** rfm_ring_consumer_view::flags: its node or process is gone; the producer
 *  ignores it and a process of that node takes the entry over. */
#define RFM_RING_VIEW_DEAD 0x400u

/** One registered consumer as rfm_ring_inspect() sees it. */
struct rfm_ring_consumer_view {
	uint32_t struct_size;	/**< Set by the caller (see rfm_ring_inspect()). */
	uint32_t node;		/**< The consumer's node id. */
	int32_t pid;		/**< Its process id (on its node's host). */
	uint32_t flags;		/**< ::RFM_RING_CONSUMER_BACKPRESSURE, ::RFM_RING_VIEW_SLEEPING,
				 *   ::RFM_RING_VIEW_HOLDING, ::RFM_RING_VIEW_DEAD. */
	uint64_t cursor;	/**< The next message it takes, as it last published it
				 *   (back-pressure consumers publish every 1/16 ring
				 *   while they keep taking, and whenever they stop). */
	uint64_t lag;		/**< Messages published it has not taken (head - cursor). */
	uint64_t laps;		/**< Times the producer lapped it (it lost messages). */
	uint32_t entry;		/**< Its entry in its node's row (0..max_consumers-1). */
	uint32_t reserved0;	/**< Zero (aligns the next field). */
	uint64_t reserved[3];	/**< Zero. */
};

/**
 * @brief Look at a ring and its registered consumers without taking part (read-only).
 *
 * For monitors (`rfm serve`, `rfm ring stat`): validates the header as
 * rfm_ring_consumer_open() does, then reads the head and the consumer
 * table; writes nothing to the window. Consumers without a table entry
 * (rings with neither notify nor back-pressure) are not listed. On a
 * network where each node holds its own copy of the window, this is the
 * calling node's view: what the other nodes wrote has to reach it first.
 * @param node Any handle on the network.
 * @param offset Where the ring begins.
 * @param[in,out] info Filled as rfm_ring_get_info() does; set its
 *        @c struct_size. May be NULL.
 * @param[in,out] views Receives up to @p cap consumers, by node id then
 *        entry. @c views[0].struct_size gives the size of each element (the
 *        caller's sizeof(struct rfm_ring_consumer_view)). NULL when @p cap is 0.
 * @param cap Room in @p views, in elements.
 * @param[out] count Receives the number of registered consumers, which may
 *        exceed @p cap (then only @p cap are filled). May be NULL.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, @c info->struct_size is below 8,
 *         @p views is NULL with @p cap not 0, or @c views[0].struct_size is
 *         not a multiple of 8 from 8.
 * @retval RFM_EALIGN @p offset is not a multiple of 64.
 * @retval RFM_ERANGE @p offset is outside the window.
 * @retval RFM_ECORRUPT No valid ring there.
 * @retval RFM_EVERSION A ring of another format.
 * @since RFM_1.1
 */
RFM_API int rfm_ring_inspect(rfm_node *node, uint64_t offset, struct rfm_ring_info *info,
			     struct rfm_ring_consumer_view *views, size_t cap, size_t *count);

/**
 * @brief As rfm_ring_inspect() for the ring filling layout region @p region.
 * @param node Any handle on the network.
 * @param layout A finished layout of the window.
 * @param region The region's name.
 * @param[in,out] info As for rfm_ring_inspect().
 * @param[in,out] views As for rfm_ring_inspect().
 * @param cap As for rfm_ring_inspect().
 * @param[out] count As for rfm_ring_inspect().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL or a struct_size is bad (as for
 *         rfm_ring_inspect()).
 * @retval RFM_ENOTFOUND The layout has no such region.
 * @retval RFM_EALIGN The region does not begin at a multiple of 64.
 * @retval RFM_ERANGE The region begins outside the window.
 * @retval RFM_ECORRUPT No valid ring in the region.
 * @retval RFM_EVERSION A ring of another format.
 * @since RFM_1.1
 */
RFM_API int rfm_ring_inspect_region(rfm_node *node, const rfm_layout *layout, const char *region,
				    struct rfm_ring_info *info, struct rfm_ring_consumer_view *views,
				    size_t cap, size_t *count);

RFM_END_DECLS

/** @} */
#endif /* RFM_RING_H */
