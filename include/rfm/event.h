/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file event.h
 * @brief Network interrupts: send, wait, batch fetch, callbacks, a pollable fd.
 *
 * @defgroup events Events
 * @{
 * Any node may interrupt one node or all others with an event of type
 * INTR1..INTR4 or RESET, carrying a 32-bit data word and the sender's node
 * id, as the 5565 cards do. librfm gives every receiving handle its own
 * queue of at least 1024 records (::RFM_EVENT_QUEUE_MIN), numbers them, and
 * never loses one silently.
 *
 * **Receiving.** A handle receives nothing until it enables types with
 * rfm_event_enable(). Its records then arrive in one FIFO queue, which the
 * program drains in one of three ways (pick one per handle):
 * - rfm_event_wait() / rfm_event_fetch(): take one record or a batch,
 *   with a timeout (0 = poll, negative = forever), cancellable from another
 *   thread with rfm_event_cancel();
 * - rfm_event_fd(): a descriptor for epoll/poll/select that is readable
 *   while records are queued; drain it with rfm_event_fetch(..., 0)
 *   (on Windows, rfm_event_handle(): an event handle, signalled while
 *   records are queued, for WaitForMultipleObjects());
 * - rfm_event_callback_register(): functions per type, called on a
 *   dispatcher thread that the library runs for the handle.
 *
 * **Several handles on one node.** Two handles of the same node id each
 * have their own queue and each sees every event sent to the node. On the
 * `shm:` backend the second handle is opened with the URI parameter
 * `shared=1` (and `node=N`), in the same or another process; without it,
 * opening a live node id still fails with ::RFM_EINUSE. Each node id has
 * room for ::RFM_EVENT_HANDLES_PER_NODE receiving handles.
 *
 * **Overflow.** A record that finds the receiver's queue full is dropped
 * (the newest record loses: the queue keeps the oldest ones), counted, and
 * announced: the receiver's next take returns an ::RFM_EVENT_OVERFLOW record
 * whose data is the number of records dropped since the previous
 * announcement. It comes ahead of the records still queued. Totals are
 * in rfm_event_get_stats(). Senders never wait for a receiver: a stalled or
 * crashed receiver only loses its own records.
 *
 * **Ordering.** Within one sender, events to one receiver arrive in the
 * order sent. Everything a node wrote to the window before sending an
 * event is visible to the receiver when it takes the event ("interrupts
 * follow the data"); rfm_event_publish() does write, sequence flag and
 * event in that order in one call.
 *
 * **Loopback.** Sending to one's own node id fails with ::RFM_ESELF, and
 * a broadcast skips the own node, unless loopback is on for the sending
 * handle (URI parameter `loopback=1`, or rfm_node_set_loopback()); then
 * both reach the own node's receiving handles, the sender's included.
 *
 * **Waiting.** A blocking wait spins for a while (rfm_event_set_spin(),
 * URI parameter `spin=NS`; default ::RFM_EVENT_SPIN_DEFAULT_NS) and then
 * sleeps; a spin of -1 never sleeps (lowest latency, burns a core).
 *
 * Thread-safety: every function here may be called from several threads
 * on one handle at once, except that rfm_close() must not race with calls
 * other than waits (a thread blocked in rfm_event_wait() or
 * rfm_event_fetch() is woken by rfm_close() and returns ::RFM_ECLOSED
 * before the handle is freed). Send functions take no lock and make no
 * system call unless the receiver sleeps (then one futex wake).
 */
#ifndef RFM_EVENT_H
#define RFM_EVENT_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/**
 * Event types. Network types have the numbers the 5565 cards and the RFM2g
 * API give them; status types are made by the library (or the card) for
 * the receiver and can not be sent.
 */
enum rfm_event_type {
	RFM_EVENT_RESET = 0,	/**< Reset-node request, as on the cards. */
	RFM_EVENT_INTR1 = 1,	/**< Network interrupt 1. */
	RFM_EVENT_INTR2 = 2,	/**< Network interrupt 2. */
	RFM_EVENT_INTR3 = 3,	/**< Network interrupt 3. */
	RFM_EVENT_INTR4 = 4,	/**< Network interrupt 4 (the cards' "init" interrupt). */
	/** Records were dropped from this handle's full queue; data = how many. */
	RFM_EVENT_OVERFLOW = 16,
	/** A node's heartbeat started or came back (health.h); sender = that
	 *  node, data = its incarnation. Enable it like a network type. */
	RFM_EVENT_NODE_UP = 17,
	/** A node's heartbeat stopped or it detached (health.h); sender = that
	 *  node, data = the incarnation that went down. */
	RFM_EVENT_NODE_DOWN = 18,
	/** A link changed or lost records. Card status (rfm_health_start()'s
	 *  thread): sender = own node, data = the new RFM_LINK_* bits (node.h).
	 *  Records lost on the way (`dds:`: a partition outlasted delivery):
	 *  sender = that node, data = how many (the own copy is resynchronised
	 *  from that node's words); data 0: that node has a window of another
	 *  size and its records are ignored (docs/dds.md). Enable it like a
	 *  network type (since 0.2). */
	RFM_EVENT_LINK = 19,
};

/** Bit of @p type in an event mask. */
#define RFM_EVENT_BIT(type) (UINT32_C(1) << (type))
/** The types that can be sent: RESET and INTR1..INTR4. */
#define RFM_EVENT_MASK_NETWORK UINT32_C(0x1f)
/** The health types a handle may enable: NODE_UP and NODE_DOWN. */
#define RFM_EVENT_MASK_HEALTH (RFM_EVENT_BIT(RFM_EVENT_NODE_UP) | RFM_EVENT_BIT(RFM_EVENT_NODE_DOWN))
/** Highest type number; masks are 32 bits wide. */
#define RFM_EVENT_TYPE_MAX 31

/** Target of a send that reaches every other attached node (as RFM2G_NODE_ALL). */
#define RFM_NODE_ALL 0xffffu

/** Every receiving queue holds at least this many records. */
#define RFM_EVENT_QUEUE_MIN 1024
/** Receiving handles one node id may have at once (`shm:`). */
#define RFM_EVENT_HANDLES_PER_NODE 8
/** Default spin of a blocking wait before it sleeps, in nanoseconds. */
#define RFM_EVENT_SPIN_DEFAULT_NS 20000

/**
 * @brief One received event. Fixed layout (32 bytes, never changes):
 *
 * | offset | field   | meaning                                              |
 * |--------|---------|------------------------------------------------------|
 * | 0      | type    | ::rfm_event_type                                     |
 * | 4      | sender  | node id of the sender (status records: own node id)  |
 * | 8      | data    | the sender's 32-bit word (OVERFLOW: records dropped) |
 * | 12     | flags   | ::RFM_EVENT_F_LOOPBACK; other bits zero (reserved)    |
 * | 16     | seq     | this handle's sequence number: 1, 2, 3... with no gap |
 * | 24     | sent_ns | sender's CLOCK_MONOTONIC at the send, in ns (0 when the backend cannot carry it) |
 *
 * seq counts every record the handle returns, status records included;
 * loss shows as ::RFM_EVENT_OVERFLOW records, never as gaps. On `shm:` all
 * nodes share one clock, so rfm_event_now_ns() - sent_ns is the latency.
 */
/** rfm_event::flags: sent by this node id to itself (loopback). */
#define RFM_EVENT_F_LOOPBACK 0x1u

struct rfm_event {
	uint32_t type;
	uint32_t sender;
	uint32_t data;
	uint32_t flags;
	uint64_t seq;
	uint64_t sent_ns;
};

/** @brief Name of an event type ("intr1", "reset", "overflow"...); "?" if unknown. */
RFM_API const char *rfm_event_type_name(unsigned int type);

/**
 * @brief Parse an event type name as rfm_event_type_name() gives it (case-insensitive).
 * @return The type (>= 0), or ::RFM_EINVAL.
 */
RFM_API int rfm_event_type_parse(const char *name);

/** @brief CLOCK_MONOTONIC in ns, the clock of rfm_event::sent_ns. */
RFM_API uint64_t rfm_event_now_ns(void);

/**
 * @name Sending
 * @{
 */

/**
 * @brief Send an event to node @p to, or to all others with ::RFM_NODE_ALL.
 * @param node The sending handle.
 * @param to Target node id 0..255, or ::RFM_NODE_ALL.
 * @param type RESET or INTR1..INTR4.
 * @param data The 32-bit word delivered with it.
 * @return The number of receiving handles that queued the record (0 when
 *         the target has none with @p type enabled, or their queues were
 *         full: they learn of it by an ::RFM_EVENT_OVERFLOW record), or
 *         ::RFM_EINVAL (NULL node, type not sendable), ::RFM_ENODEID (@p to
 *         not 0..255 nor ::RFM_NODE_ALL), ::RFM_ENODE (target not
 *         attached), ::RFM_ESELF (own node without loopback),
 *         ::RFM_ENOTSUP (backend without events).
 *
 * Lock-free; no system call unless a receiver sleeps. A node whose process
 * died counts as attached until its id is taken again (then its queues are
 * reclaimed); records sent to it meanwhile are dropped once its queue is
 * full, and the sender never waits for it.
 */
RFM_API int rfm_event_send(rfm_node *node, unsigned int to, unsigned int type, uint32_t data);

/**
 * @brief Publish in one call: write a buffer, bump a sequence word, send an event.
 *
 * Copies @p len bytes from @p buf to @p offset of the window, then
 * increments the 32-bit word at @p seq_offset with release order (readers
 * that see the new value see the data), then sends @p type to @p to with
 * the new sequence value as data. The word is little-endian in the window
 * on every host (read it with le32toh(), as nodes of either byte order
 * share it: docs/architecture.md, "Byte order in the window"). Everything is checked before anything is
 * written; if the target detaches between the check and the send, the
 * write stays done and ::RFM_ENODE is returned.
 * @param seq_offset A 4-byte aligned offset outside [offset, offset+len),
 *        written by this node only: on real reflective memory each node
 *        holds its own copy of the window, and increments of one word
 *        from two nodes lose counts (processes of one node may share it).
 * @param[out] seqp Receives the new sequence value; may be NULL.
 * @return As rfm_event_send(), plus ::RFM_ERANGE, ::RFM_EALIGN.
 */
RFM_API int rfm_event_publish(rfm_node *node, uint64_t offset, const void *buf, size_t len,
			      uint64_t seq_offset, unsigned int to, unsigned int type,
			      uint32_t *seqp);

/** @} */

/**
 * @name Options of a handle
 * @{
 */

/**
 * @brief Allow this handle to send to its own node (also: URI `loopback=1`).
 * @param enable Non-zero: on; zero: off (the default).
 * @return 0 or ::RFM_EINVAL.
 */
RFM_API int rfm_node_set_loopback(rfm_node *node, int enable);

/** @brief 1 when loopback is on, 0 when off, ::RFM_EINVAL for NULL. */
RFM_API int rfm_node_get_loopback(const rfm_node *node);

/**
 * @brief How long a blocking wait spins before it sleeps (also: URI `spin=NS`).
 * @param spin_ns Nanoseconds (0: sleep at once), or -1: spin, never sleep.
 * @return 0 or ::RFM_EINVAL.
 */
RFM_API int rfm_event_set_spin(rfm_node *node, int64_t spin_ns);

/** @} */

/**
 * @name Receiving
 * @{
 */

/**
 * @brief Start receiving the types in @p mask on this handle.
 *
 * The first call gives the handle its queue. Events sent after the call
 * returns are queued. ::RFM_EVENT_OVERFLOW needs no enabling: it is always
 * delivered to a receiving handle.
 * @param mask RFM_EVENT_BIT() of network types (::RFM_EVENT_MASK_NETWORK for all).
 * @return 0, or ::RFM_EINVAL (NULL, empty mask, unknown bits), ::RFM_ENOTSUP
 *         (status or reserved types, or a backend without events),
 *         ::RFM_EBUSY (a type in @p mask is already enabled: nothing changes),
 *         ::RFM_EFULL (the node id has ::RFM_EVENT_HANDLES_PER_NODE receiving
 *         handles already), ::RFM_ENOSPC, ::RFM_ESYS.
 */
RFM_API int rfm_event_enable(rfm_node *node, uint32_t mask);

/**
 * @brief Stop queueing the types in @p mask. Records already queued stay
 * and can still be taken. Disabling a type that is not enabled is not an
 * error.
 * @return 0, or ::RFM_EINVAL (NULL, unknown bits).
 */
RFM_API int rfm_event_disable(rfm_node *node, uint32_t mask);

/** @brief The enabled mask into @p maskp. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_event_get_enabled(rfm_node *node, uint32_t *maskp);

/**
 * @brief Take one record, waiting up to @p timeout_ns for it.
 * @param timeout_ns 0: do not wait; < 0: wait forever; else nanoseconds.
 * @return 0 with @p ev filled, or ::RFM_EAGAIN (timeout 0, nothing queued),
 *         ::RFM_ETIMEDOUT, ::RFM_ECANCELED (rfm_event_cancel()),
 *         ::RFM_ECLOSED (the handle is being closed, or no type is enabled
 *         and nothing is queued), ::RFM_EBUSY (callbacks own this handle's
 *         records), ::RFM_EINVAL.
 */
RFM_API int rfm_event_wait(rfm_node *node, struct rfm_event *ev, int64_t timeout_ns);

/**
 * @brief Take up to @p max records, waiting up to @p timeout_ns for the first.
 * @return The number taken (1..max), or the errors of rfm_event_wait().
 */
RFM_API int rfm_event_fetch(rfm_node *node, struct rfm_event *evs, size_t max,
			    int64_t timeout_ns);

/**
 * @brief Wake every thread waiting on this handle: its wait returns
 * ::RFM_ECANCELED. When none is waiting, the next wait to start returns
 * ::RFM_ECANCELED at once (a cancel is never lost to a race).
 * Callbacks are not affected. Async-signal-safe (no lock, no allocation),
 * so a SIGINT handler may call it. @return 0 or ::RFM_EINVAL.
 */
RFM_API int rfm_event_cancel(rfm_node *node);

/**
 * @brief A descriptor for poll/epoll/select: readable while records are queued.
 *
 * Created on the first call, owned by the handle (do not close it; it is
 * closed by rfm_close()). Take records with rfm_event_fetch(node, ..., 0);
 * when that finds the queue empty the descriptor stops being readable. It
 * may rarely be readable with nothing to take (the fetch then returns
 * ::RFM_EAGAIN). On `shm:` a helper thread of the library watches the queue.
 * @return The descriptor (>= 0), or ::RFM_EINVAL, ::RFM_ESYS, ::RFM_ENOMEM.
 */
RFM_API int rfm_event_fd(rfm_node *node);

/**
 * @brief A Windows event handle, signalled while records are queued:
 * rfm_event_fd()'s counterpart for WaitForMultipleObjects() and
 * MsgWaitForMultipleObjects().
 *
 * Created on the first call, owned by the node (do not close it; rfm_close()
 * does), the same handle on every call. Take records with
 * rfm_event_fetch(node, ..., 0); when that finds the queue empty the handle
 * is reset. It may rarely be signalled with nothing to take (the fetch then
 * returns ::RFM_EAGAIN). A helper thread of the library watches the queue.
 * Linux has no such handles: there it fails with ::RFM_ENOTSUP and
 * rfm_event_fd() is the way in; on Windows rfm_event_fd() fails likewise.
 * Thread-safe: any thread may call it.
 *
 * @param node The receiving handle.
 * @param[out] handle Receives the event's `HANDLE` (a `void *`, as
 *        `<windows.h>` defines `HANDLE`), or NULL on failure.
 * @return 0, or a negative ::rfm_error code.
 * @retval ::RFM_EINVAL @p node or @p handle is NULL.
 * @retval ::RFM_ENOTSUP This OS has no waitable handles (Linux), or the
 *         backend has no events.
 * @retval ::RFM_ECLOSED The handle is being closed, or was inherited
 *         through fork().
 * @retval ::RFM_ENOMEM, ::RFM_ESYS The event or its watcher thread could
 *         not be made.
 */
RFM_API int rfm_event_handle(rfm_node *node, void **handle);

/**
 * @brief A function called for each record of one type.
 * @param node The receiving handle.
 * @param ev The record; valid only during the call.
 * @param arg The pointer given to rfm_event_callback_register().
 *
 * Runs on the handle's dispatcher thread, one call at a time; on a dds:
 * handle opened with callbacks=receive, on the thread that received the
 * event when nothing is queued before it (still one call at a time, in
 * order; it then holds up replication into the node's copy while it runs:
 * return quickly). It may call
 * any librfm function, including registering and unregistering callbacks
 * (its own too) and rfm_close() of its own handle (the close then completes
 * when the callback returns); rfm_event_wait()/fetch() on its own handle
 * return ::RFM_EBUSY.
 */
typedef void (*rfm_event_callback)(rfm_node *node, const struct rfm_event *ev, void *arg);

/**
 * @brief Call @p fn for every record of @p type, on a dispatcher thread.
 *
 * While any callback is registered the dispatcher takes every record of
 * the handle; records of a type without a callback are counted in
 * rfm_event_stats::unhandled. Enable the types too (rfm_event_enable()).
 * @param type A network type or ::RFM_EVENT_OVERFLOW.
 * @return 0, or ::RFM_EINVAL (NULL, unknown type), ::RFM_EBUSY (a callback
 *         for @p type is registered), ::RFM_ESYS (thread creation).
 */
RFM_API int rfm_event_callback_register(rfm_node *node, unsigned int type,
					rfm_event_callback fn, void *arg);

/**
 * @brief Remove the callback of @p type. When called outside the callback,
 * it returns only after any running call of it has finished, and it is not
 * called again. Safe inside any callback, its own included.
 * @return 0, or ::RFM_EINVAL, ::RFM_ENOTFOUND (none registered).
 */
RFM_API int rfm_event_callback_unregister(rfm_node *node, unsigned int type);

/**
 * @brief Counters of a receiving handle, in a versioned structure (set
 * @c struct_size to sizeof before the call).
 */
struct rfm_event_stats {
	uint32_t struct_size;	/**< Set by the caller: sizeof(struct rfm_event_stats). */
	uint32_t depth;		/**< Capacity of the queue in records (0: not receiving). */
	uint64_t delivered;	/**< Records returned, status records included (= last seq). */
	uint64_t dropped;	/**< Records dropped because the queue was full. */
	uint64_t overflows;	/**< ::RFM_EVENT_OVERFLOW records returned. */
	uint64_t queued;	/**< Records waiting now (approximate while senders run). */
	uint64_t unhandled;	/**< Records the dispatcher took that had no callback. */
	/** Samples from the network refused as forged or impossible (`dds:`:
	 *  naming this node as their writer, a sequence jump past any real
	 *  gap); 0 where the hardware is the only writer. Since 0.2 (was
	 *  reserved). */
	uint64_t refused;
	uint64_t reserved[7];	/**< Zero. */
};

/** @brief Fill @p stats for @p node. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_event_get_stats(rfm_node *node, struct rfm_event_stats *stats);

/** @} */

RFM_END_DECLS

/** @} */
#endif /* RFM_EVENT_H */
