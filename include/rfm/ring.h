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
 * Thread-safety: a producer handle (::rfm_ring) and a consumer handle
 * (::rfm_ring_consumer) are each used by ONE thread at a time: the library
 * does not lock them, and two threads taking from one consumer at once
 * may both get the same message and skip another. Serialise calls on a
 * handle (the Python binding does, with a lock per handle), or give each
 * thread a consumer of its own. Different handles are independent.
 */
#ifndef RFM_RING_H
#define RFM_RING_H

#include <rfm/common.h>
#include <rfm/layout.h>

RFM_BEGIN_DECLS

/** A producer's handle on a ring (opaque). */
typedef struct rfm_ring rfm_ring;
/** A consumer's handle on a ring (opaque). */
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
	uint32_t reserved[9];	/**< Zero. */
};

/**
 * @brief Bytes a ring of this shape occupies in the window.
 * @return 0 with @p bytes set, or ::RFM_EINVAL (bad shape, with a message).
 */
RFM_API int rfm_ring_footprint(const struct rfm_ring_config *config, uint64_t *bytes);

/**
 * @brief Create a ring at @p offset (64-byte aligned) in @p size bytes of the window.
 *
 * Writes the header and clears the stamps and the consumer table; any ring
 * there before is replaced (its consumers see ::RFM_ECORRUPT or lose track).
 * @param[out] ringp Receives the producer handle; free it with rfm_ring_close().
 * @return 0, ::RFM_EINVAL, ::RFM_EALIGN, ::RFM_ERANGE (does not fit @p size or
 *         the window), ::RFM_ENOMEM.
 */
RFM_API int rfm_ring_create(rfm_node *node, uint64_t offset, uint64_t size,
			    const struct rfm_ring_config *config, rfm_ring **ringp);

/**
 * @brief Create a ring filling the layout region @p region.
 * @return As rfm_ring_create(), plus ::RFM_ENOTFOUND (no such region) and
 *         ::RFM_EOWNER (the region's writer is another node).
 */
RFM_API int rfm_ring_create_region(rfm_node *node, const rfm_layout *layout, const char *region,
				   const struct rfm_ring_config *config, rfm_ring **ringp);

/**
 * @brief Take over an existing ring as its producer (a restarted producer).
 *
 * Validates the header; publishing goes on after the last committed message.
 * @return 0, the errors of rfm_ring_consumer_open(), ::RFM_EOWNER (the ring's
 *         producer is another node).
 */
RFM_API int rfm_ring_attach(rfm_node *node, uint64_t offset, rfm_ring **ringp);

/** @brief Free a producer handle (the ring stays in the window). NULL is ignored. */
RFM_API void rfm_ring_close(rfm_ring *ring);

/**
 * @brief Publish a copy of @p len bytes as the next message.
 * @param timeout_ns Back-pressure only: 0 fails at once, < 0 waits for ever,
 *        else waits up to this long for the slowest registered consumer.
 * @return 0, ::RFM_EINVAL (NULL, @p len > slot size), ::RFM_EOVERRUN (would
 *         lap a registered consumer), ::RFM_ETIMEDOUT.
 */
RFM_API int rfm_ring_publish(rfm_ring *ring, const void *buf, size_t len, int64_t timeout_ns);

/**
 * @brief Claim the next slot to write a message in place (zero copy).
 * @param[out] bufp The slot's payload (rfm_ring_info::slot_size bytes).
 * @return As rfm_ring_publish(), plus ::RFM_EBUSY (a claim is open).
 */
RFM_API int rfm_ring_claim(rfm_ring *ring, void **bufp, int64_t timeout_ns);

/**
 * @brief Commit the claimed slot as a message of @p len bytes.
 * @return 0, ::RFM_EINVAL (no claim open, @p len too big).
 */
RFM_API int rfm_ring_commit(rfm_ring *ring, size_t len);

/** Facts about a ring (both sides). */
struct rfm_ring_info {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t slot_size;
	uint32_t slot_count;
	uint32_t flags;
	uint32_t producer;	/**< Producer node id. */
	uint32_t notify_type;
	uint32_t ring_id;
	uint32_t max_consumers;
	uint64_t offset;	/**< Of the ring in the window. */
	uint64_t footprint;	/**< Its bytes. */
	uint64_t head;		/**< Messages published so far. */
	uint64_t reserved[4];
};

/** @brief Fill @p info for a producer handle. @return 0 or ::RFM_EINVAL. */
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
 * Validates the header. Claims a consumer-table entry when the ring has
 * notify or back-pressure (::RFM_EFULL when all are taken).
 * @param flags ::RFM_RING_CONSUMER_OLDEST or ::RFM_RING_CONSUMER_NEWEST, and
 *        ::RFM_RING_CONSUMER_BACKPRESSURE.
 * @param[out] consp Receives the handle; free it with rfm_ring_consumer_close().
 * @return 0, ::RFM_EINVAL, ::RFM_ERANGE, ::RFM_EALIGN, ::RFM_ECORRUPT (no valid
 *         ring there), ::RFM_EVERSION, ::RFM_ENOTSUP (back-pressure asked of a
 *         ring without it), ::RFM_EFULL, ::RFM_ENOMEM.
 */
RFM_API int rfm_ring_consumer_open(rfm_node *node, uint64_t offset, unsigned int flags,
				   rfm_ring_consumer **consp);

/** @brief As rfm_ring_consumer_open() for the ring filling layout region @p region. */
RFM_API int rfm_ring_consumer_open_region(rfm_node *node, const rfm_layout *layout,
					  const char *region, unsigned int flags,
					  rfm_ring_consumer **consp);

/** @brief Give back the table entry and free the handle. NULL is ignored. */
RFM_API void rfm_ring_consumer_close(rfm_ring_consumer *cons);

/** What a take returns beside the payload. */
struct rfm_ring_msg {
	uint64_t seq;		/**< Message number (0 for the ring's first). */
	uint64_t lost;		/**< Messages lost (lapped) right before this one. */
	uint32_t len;		/**< Payload bytes. */
	uint32_t reserved;
};

/**
 * @brief Take the next message by copy.
 * @param buf Receives min(len, @p cap) bytes; @p msg->len is the full length.
 * @param timeout_ns 0: do not wait; < 0: wait for ever; else ns. Blocking
 *        spins for the handle's spin time (rfm_event_set_spin()), then sleeps
 *        on the ring's notification (rings with ::RFM_RING_F_NOTIFY; others
 *        keep polling with yields).
 * @return 0, ::RFM_EAGAIN (timeout 0, nothing new), ::RFM_ETIMEDOUT,
 *         ::RFM_EINVAL, ::RFM_ECORRUPT (a slot's length is impossible; the
 *         message is skipped and counted as lost), ::RFM_EBUSY (a peek is open).
 */
RFM_API int rfm_ring_consume(rfm_ring_consumer *cons, void *buf, size_t cap,
			     struct rfm_ring_msg *msg, int64_t timeout_ns);

/**
 * @brief Look at the next message in place (zero copy); rfm_ring_release() ends it.
 * @param[out] datap Points into the window until the release.
 * @return As rfm_ring_consume().
 */
RFM_API int rfm_ring_peek(rfm_ring_consumer *cons, const void **datap, struct rfm_ring_msg *msg,
			  int64_t timeout_ns);

/**
 * @brief End a peek and move on.
 * @return 0, or ::RFM_ELAPPED when the producer overwrote the slot during
 *         the peek (what was read may be torn; it counts as lost), ::RFM_EINVAL.
 */
RFM_API int rfm_ring_release(rfm_ring_consumer *cons);

/** Called for each message on the dispatcher thread; @p data is valid during the call. */
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
 * @return 0, ::RFM_EINVAL, ::RFM_ENOTSUP (ring without notify), ::RFM_EBUSY
 *         (a callback for that type is registered on the handle).
 */
RFM_API int rfm_ring_consumer_set_callback(rfm_ring_consumer *cons, rfm_ring_callback fn,
					   void *arg);

/** Counters of a consumer. */
struct rfm_ring_consumer_stats {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t reserved0;
	uint64_t cursor;	/**< Next message number to take. */
	uint64_t taken;		/**< Messages returned. */
	uint64_t lost;		/**< Messages lost to laps. */
	uint64_t laps;		/**< Times the consumer was lapped. */
	uint64_t sleeps;	/**< Times a blocking take went to sleep. */
	uint64_t reserved[4];
};

/** @brief Fill @p stats. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_ring_consumer_get_stats(rfm_ring_consumer *cons,
					struct rfm_ring_consumer_stats *stats);

/** @brief Fill @p info (header as validated at open, head now). @return 0 or ::RFM_EINVAL. */
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
	uint32_t reserved0;
	uint64_t reserved[3];
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
 * @param info Filled as rfm_ring_get_info() does; set its @c struct_size.
 *        May be NULL.
 * @param views Receives up to @p cap consumers, by node id then entry.
 *        @c views[0].struct_size gives the size of each element (the
 *        caller's sizeof(struct rfm_ring_consumer_view)). NULL when @p cap is 0.
 * @param[out] count Receives the number of registered consumers, which may
 *        exceed @p cap (then only @p cap are filled). May be NULL.
 * @return 0, ::RFM_EINVAL, and the errors of rfm_ring_consumer_open()
 *         about the header (::RFM_ECORRUPT, ::RFM_EVERSION, ::RFM_ERANGE,
 *         ::RFM_EALIGN).
 * @since RFM_1.1
 */
RFM_API int rfm_ring_inspect(rfm_node *node, uint64_t offset, struct rfm_ring_info *info,
			     struct rfm_ring_consumer_view *views, size_t cap, size_t *count);

/**
 * @brief As rfm_ring_inspect() for the ring filling layout region @p region.
 * @return As rfm_ring_inspect(), plus ::RFM_ENOTFOUND (no such region).
 * @since RFM_1.1
 */
RFM_API int rfm_ring_inspect_region(rfm_node *node, const rfm_layout *layout, const char *region,
				    struct rfm_ring_info *info, struct rfm_ring_consumer_view *views,
				    size_t cap, size_t *count);

RFM_END_DECLS

/** @} */
#endif /* RFM_RING_H */
