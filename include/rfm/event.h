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
 * **Errors of a send.** Besides its own, every send (rfm_event_send(),
 * rfm_event_publish()) may fail as the backend carries the record:
 * ::RFM_EIO (the card or Cyclone DDS refused it), ::RFM_ECORRUPT (`shm:`
 * the target's queue entry was scribbled over by another process: nothing
 * was sent), ::RFM_ESYS; on `dds:` also ::RFM_ECLOSED (a handle inherited
 * through fork()), ::RFM_ENOMEM, ::RFM_ETIMEDOUT and ::RFM_EAGAIN (see
 * memory.h, "Errors of a store").
 *
 * @par Thread safety
 * Every function here may be called from several threads on one handle
 * at once, except that rfm_close() must not race with calls other than
 * waits (a thread blocked in rfm_event_wait() or rfm_event_fetch() is
 * woken by rfm_close() and returns ::RFM_ECLOSED before the handle is
 * freed). On `shm:` and cards a send takes no lock and makes no system
 * call unless the receiver sleeps (then one futex wake); `dev:` sends
 * through the driver (one ioctl); `dds:` takes the handle's send lock.
 *
 * @sa rfm-events(7)
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

/** rfm_event::flags: sent by this node id to itself (loopback). */
#define RFM_EVENT_F_LOOPBACK 0x1u

/**
 * @brief One received event. Fixed layout (32 bytes, never changes):
 *
 * | offset | field   | meaning                                              |
 * |--------|---------|------------------------------------------------------|
 * | 0      | type    | ::rfm_event_type                                     |
 * | 4      | sender  | node id of the sender (status records: see the type) |
 * | 8      | data    | the sender's 32-bit word (OVERFLOW: records dropped) |
 * | 12     | flags   | ::RFM_EVENT_F_LOOPBACK; other bits zero (reserved)    |
 * | 16     | seq     | this handle's sequence number: 1, 2, 3... with no gap |
 * | 24     | sent_ns | sender's CLOCK_MONOTONIC at the send, in ns (0 when the backend cannot carry it) |
 *
 * seq counts every record the handle returns, status records included;
 * loss shows as ::RFM_EVENT_OVERFLOW records, never as gaps. On `shm:` all
 * nodes share one clock, so rfm_event_now_ns() - sent_ns is the latency.
 */
struct rfm_event {
	uint32_t type;		/**< The ::rfm_event_type. */
	/** Node id of the sender; for status records the node they are about
	 *  (NODE_UP, NODE_DOWN, LINK of a peer) or this node (OVERFLOW, card
	 *  status). */
	uint32_t sender;
	/** The sender's 32-bit word; OVERFLOW: records dropped since the last
	 *  announcement; NODE_UP/NODE_DOWN: the incarnation; LINK: see the type. */
	uint32_t data;
	uint32_t flags;		/**< ::RFM_EVENT_F_LOOPBACK; other bits zero (reserved). */
	uint64_t seq;		/**< This handle's record number: 1, 2, 3... with no gap. */
	/** The sender's CLOCK_MONOTONIC at the send, in ns (rfm_event_now_ns());
	 *  0 when the backend cannot carry it. Comparable with this host's
	 *  clock only when sender and receiver share one (`shm:`). */
	uint64_t sent_ns;
};

/**
 * @brief Name of an event type ("intr1", "reset", "overflow"...).
 * @param type An ::rfm_event_type value.
 * @return A static string owned by the library, in lower case; "?" for a
 *         number that is no event type.
 */
RFM_API const char *rfm_event_type_name(unsigned int type);

/**
 * @brief Parse an event type name as rfm_event_type_name() gives it (case-insensitive).
 * @param name "reset", "intr1".."intr4", "overflow", "node_up",
 *        "node_down" or "link", in any case.
 * @return The ::rfm_event_type (>= 0), or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p name is NULL or names no event type.
 */
RFM_API int rfm_event_type_parse(const char *name);

/**
 * @brief CLOCK_MONOTONIC in ns, the clock of rfm_event::sent_ns.
 * @return Nanoseconds since an arbitrary point (the boot, on Linux).
 */
RFM_API uint64_t rfm_event_now_ns(void);

/**
 * @name Sending
 * @{
 */

/**
 * @brief Send an event to node @p to, or to all others with ::RFM_NODE_ALL.
 *
 * Everything this node wrote to the window before the call is visible to
 * a receiver when it takes the event. A broadcast skips this node unless
 * loopback is on. The sender never waits for a receiver: a node whose
 * process died counts as attached until its id is taken again (then its
 * queues are reclaimed), and records sent to it meanwhile are dropped
 * once its queue is full.
 * @param node The sending handle.
 * @param to Target node id 0..255, or ::RFM_NODE_ALL.
 * @param type ::RFM_EVENT_RESET or ::RFM_EVENT_INTR1..::RFM_EVENT_INTR4.
 * @param data The 32-bit word delivered with it.
 * @return The number of receiving handles that queued the record, or a
 *         negative ::rfm_error code. 0: the target has no handle with
 *         @p type enabled, or their queues were full (they learn of it by
 *         an ::RFM_EVENT_OVERFLOW record). Backends that cannot see the
 *         receivers (`dev:`, `rfm2g:`, `dds:`) count a record on its way
 *         as 1.
 * @retval RFM_EINVAL @p node is NULL, or @p type cannot be sent.
 * @retval RFM_ENODEID @p to is neither 0..255 nor ::RFM_NODE_ALL.
 * @retval RFM_ESELF @p to is this node and loopback is off.
 * @retval RFM_EPERM The handle is an observer (`observe=1`): it sends nothing.
 * @retval RFM_ENOTSUP The backend has no events.
 * @retval RFM_ENODE The target is not attached (or beyond the card's node ids).
 * @retval RFM_ECORRUPT `shm:` the target's queue entry was scribbled over;
 *         nothing was sent.
 * @retval RFM_EIO The card or Cyclone DDS refused the record.
 * @retval RFM_ECLOSED `dds:` the handle was inherited through fork().
 * @retval RFM_ENOMEM `dds:` no memory to hold the record for sending.
 * @retval RFM_ETIMEDOUT `dds:` no node acknowledged earlier data for seconds.
 * @retval RFM_EAGAIN `dds:` called from a receive-thread callback while
 *         the send backlog is full.
 * @retval RFM_ESYS A system call failed (errno is kept).
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
 * share it: rfm-protocols(7)). Everything is checked before anything is
 * written; if the target detaches between the check and the send, the
 * write stays done and ::RFM_ENODE is returned.
 * @param node The sending handle.
 * @param offset Where the data goes in the window.
 * @param buf The data; may be NULL when @p len is 0.
 * @param len Bytes of data.
 * @param seq_offset A 4-byte aligned offset outside [offset, offset+len),
 *        written by this node only: on real reflective memory each node
 *        holds its own copy of the window, and increments of one word
 *        from two nodes lose counts (processes of one node may share it).
 * @param to Target node id 0..255, or ::RFM_NODE_ALL.
 * @param type ::RFM_EVENT_RESET or ::RFM_EVENT_INTR1..::RFM_EVENT_INTR4.
 * @param[out] seqp Receives the new sequence value; may be NULL.
 * @return As rfm_event_send(): the receiving handles that queued the
 *         record, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, @p type cannot be sent, @p buf is
 *         NULL with @p len not 0, or the sequence word lies in the data.
 * @retval RFM_ERANGE The data or the sequence word is not inside the window.
 * @retval RFM_EALIGN @p seq_offset is not a multiple of 4.
 * @retval RFM_ENODEID @p to is neither 0..255 nor ::RFM_NODE_ALL.
 * @retval RFM_ESELF @p to is this node and loopback is off.
 * @retval RFM_EPERM The handle is an observer (`observe=1`): it sends nothing.
 * @retval RFM_ENOTSUP The backend has no events.
 * @retval RFM_ENODE The target is not attached (checked before writing;
 *         a target that detaches later leaves the write done).
 * @retval RFM_ECORRUPT `shm:` the target's queue entry was scribbled over;
 *         the data and sequence are written, the event is not sent.
 * @retval RFM_EIO The card or Cyclone DDS refused the record or the data.
 * @retval RFM_ECLOSED `dds:` the handle was inherited through fork().
 * @retval RFM_ENOMEM `dds:` no memory to hold the data for sending.
 * @retval RFM_ETIMEDOUT `dds:` no node acknowledged earlier data for seconds.
 * @retval RFM_EAGAIN `dds:` called from a receive-thread callback while
 *         the send backlog is full.
 * @retval RFM_ESYS A system call failed (errno is kept).
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
 *
 * With loopback on, a send to this node's id reaches its receiving
 * handles (this one included) with ::RFM_EVENT_F_LOOPBACK set, and a
 * broadcast reaches them too.
 * @param node The handle.
 * @param enable Non-zero: on; zero: off (the default).
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 */
RFM_API int rfm_node_set_loopback(rfm_node *node, int enable);

/**
 * @brief Whether this handle may send to its own node.
 * @param node The handle.
 * @return 1 when loopback is on, 0 when off, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 */
RFM_API int rfm_node_get_loopback(const rfm_node *node);

/**
 * @brief How long a blocking wait spins before it sleeps (also: URI `spin=NS`).
 *
 * Applies to the handle's event waits and to the ring takes, record waits
 * and back-pressure publishes made through it. The default is
 * ::RFM_EVENT_SPIN_DEFAULT_NS (`dds:`: 0, as a record from another host
 * takes longer than a spin).
 * @param node The handle.
 * @param spin_ns Nanoseconds (0: sleep at once), or -1: spin, never sleep
 *        (lowest latency; burns a core).
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, or @p spin_ns is below -1.
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
 * The first call gives the handle its queue (with `lock=1` or
 * `prefault=1`, its pages are mapped now). Events sent after the call
 * returns are queued. ::RFM_EVENT_OVERFLOW needs no enabling: it is always
 * delivered to a receiving handle.
 * @param node The handle.
 * @param mask RFM_EVENT_BIT() of network types (::RFM_EVENT_MASK_NETWORK
 *        for all), of ::RFM_EVENT_NODE_UP and ::RFM_EVENT_NODE_DOWN
 *        (::RFM_EVENT_MASK_HEALTH) and of ::RFM_EVENT_LINK.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, @p mask is empty or has bits of no type.
 * @retval RFM_ENOTSUP @p mask has ::RFM_EVENT_OVERFLOW, or the backend has
 *         no events.
 * @retval RFM_EBUSY A type in @p mask is already enabled: nothing changes.
 * @retval RFM_ECLOSED The handle was inherited through fork(): its events
 *         belong to the parent.
 * @retval RFM_EFULL `shm:` the node id has ::RFM_EVENT_HANDLES_PER_NODE
 *         receiving handles already.
 * @retval RFM_ENOSPC `shm:` the network has no room for another queue.
 * @retval RFM_ECORRUPT `shm:` the network's event area failed validation.
 * @retval RFM_ENOMEM Out of memory, or (`lock=1`) the queue cannot be
 *         locked within RLIMIT_MEMLOCK.
 * @retval RFM_EPERM `lock=1` and the process may not lock memory; or the
 *         handle is an observer (`observe=1`), which has no queue.
 * @retval RFM_ESYS A system call failed (errno is kept).
 */
RFM_API int rfm_event_enable(rfm_node *node, uint32_t mask);

/**
 * @brief Stop queueing the types in @p mask.
 *
 * Records already queued stay and can still be taken. Disabling a type
 * that is not enabled is not an error. Waits that are left with nothing
 * enabled and nothing queued return ::RFM_ECLOSED.
 * @param node The handle.
 * @param mask RFM_EVENT_BIT() of the types to stop.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, or @p mask has bits of no type.
 * @retval RFM_ENOTSUP @p mask has ::RFM_EVENT_OVERFLOW (never enabled by hand).
 */
RFM_API int rfm_event_disable(rfm_node *node, uint32_t mask);

/**
 * @brief The types this handle receives.
 * @param node The handle.
 * @param[out] maskp Receives the RFM_EVENT_BIT() mask of enabled types.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p maskp is NULL.
 */
RFM_API int rfm_event_get_enabled(rfm_node *node, uint32_t *maskp);

/**
 * @brief Take one record, waiting up to @p timeout_ns for it.
 *
 * Records come in the order they were queued; an ::RFM_EVENT_OVERFLOW
 * record comes first when records were dropped since the last one. A
 * blocking wait spins for the handle's spin time (rfm_event_set_spin()),
 * then sleeps.
 * @param node The receiving handle.
 * @param[out] ev Receives the record.
 * @param timeout_ns 0: do not wait; < 0: wait forever; else nanoseconds.
 * @return 0 with @p ev filled, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p ev is NULL.
 * @retval RFM_EAGAIN @p timeout_ns is 0 and nothing is queued.
 * @retval RFM_ETIMEDOUT Nothing came within @p timeout_ns.
 * @retval RFM_ECANCELED rfm_event_cancel() ended the wait.
 * @retval RFM_ECLOSED The handle is being closed, or no type is enabled
 *         and nothing is queued, or the handle was inherited through fork().
 * @retval RFM_EBUSY Callbacks own this handle's records, or the call is
 *         made from a callback that runs on the receive thread.
 * @retval RFM_ENOTSUP The backend has no events.
 */
RFM_API int rfm_event_wait(rfm_node *node, struct rfm_event *ev, int64_t timeout_ns);

/**
 * @brief Take up to @p max records, waiting up to @p timeout_ns for the first.
 *
 * As rfm_event_wait(), but takes every record queued, up to @p max, in
 * one call; with @p timeout_ns 0 it is the way to drain the queue after
 * rfm_event_fd() became readable.
 * @param node The receiving handle.
 * @param[out] evs Receives the records, in order.
 * @param max Room in @p evs, in records (at least 1; counts above
 *        INT32_MAX are capped).
 * @param timeout_ns 0: do not wait; < 0: wait forever; else nanoseconds,
 *        for the first record.
 * @return The number of records taken (1..max), or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p evs is NULL, or @p max is 0.
 * @retval RFM_EAGAIN @p timeout_ns is 0 and nothing is queued.
 * @retval RFM_ETIMEDOUT Nothing came within @p timeout_ns.
 * @retval RFM_ECANCELED rfm_event_cancel() ended the wait.
 * @retval RFM_ECLOSED The handle is being closed, or no type is enabled
 *         and nothing is queued, or the handle was inherited through fork().
 * @retval RFM_EBUSY Callbacks own this handle's records, or the call is
 *         made from a callback that runs on the receive thread.
 * @retval RFM_ENOTSUP The backend has no events.
 */
RFM_API int rfm_event_fetch(rfm_node *node, struct rfm_event *evs, size_t max,
			    int64_t timeout_ns);

/**
 * @brief Wake every thread waiting on this handle: its wait returns ::RFM_ECANCELED.
 *
 * When none is waiting, the next wait to start returns ::RFM_ECANCELED at
 * once (a cancel is never lost to a race). Ends the handle's ring takes,
 * record waits and back-pressure publishes the same way. Callbacks are
 * not affected.
 * @param node The handle.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 * @par Thread safety
 * Any thread, and async-signal-safe (no lock, no allocation): a SIGINT or
 * SIGTERM handler may call it.
 */
RFM_API int rfm_event_cancel(rfm_node *node);

/**
 * @brief A descriptor for poll/epoll/select: readable while records are queued.
 *
 * Created on the first call (later calls return the same one). Take
 * records with rfm_event_fetch(node, ..., 0); when that finds the queue
 * empty the descriptor stops being readable. It may rarely be readable
 * with nothing to take (the fetch then returns ::RFM_EAGAIN). A helper
 * thread of the library (the event-fd watcher, realtime.h) watches the
 * queue.
 * @param node The receiving handle.
 * @return The descriptor (>= 0), owned by the handle: do not close it,
 *         rfm_close() does. Or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 * @retval RFM_ENOTSUP The backend has no events.
 * @retval RFM_ECLOSED The handle was inherited through fork().
 * @retval RFM_EPERM The watcher thread may not take the real-time
 *         scheduling the handle was opened with.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_ESYS eventfd() or the thread's creation failed (errno is kept).
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
 * The first registration starts the handle's dispatcher thread. While any
 * callback is registered the dispatcher takes every record of the handle
 * (rfm_event_wait() and rfm_event_fetch() return ::RFM_EBUSY); records of
 * a type without a callback are counted in rfm_event_stats::unhandled.
 * Enable the types too (rfm_event_enable()).
 * @param node The receiving handle.
 * @param type A network type, ::RFM_EVENT_OVERFLOW, ::RFM_EVENT_NODE_UP,
 *        ::RFM_EVENT_NODE_DOWN or ::RFM_EVENT_LINK.
 * @param fn The function; see ::rfm_event_callback for what it may do.
 * @param arg Passed to @p fn as is; the library never touches it.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p fn is NULL, or @p type has no callbacks.
 * @retval RFM_EBUSY A callback for @p type is registered already.
 * @retval RFM_ENOTSUP The backend has no events.
 * @retval RFM_ECLOSED The handle was inherited through fork().
 * @retval RFM_EPERM The dispatcher may not take the real-time scheduling
 *         the handle was opened with.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_ESYS The thread's creation failed (errno is kept).
 */
RFM_API int rfm_event_callback_register(rfm_node *node, unsigned int type,
					rfm_event_callback fn, void *arg);

/**
 * @brief Remove the callback of @p type.
 *
 * When called outside the callback, it returns only after any running
 * call of it has finished, and it is not called again; a record sent
 * after it returns reaches the handle's other callbacks or, when none is
 * left, rfm_event_wait(). Safe inside any callback, its own included.
 * @param node The receiving handle.
 * @param type The type given to rfm_event_callback_register().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, or @p type has no callbacks.
 * @retval RFM_ENOTFOUND No callback for @p type is registered.
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
	/** Samples from the network refused (`dds:`: forged, malformed,
	 *  unasked, of a kind no node sends, over a requester's rate, or from
	 *  a node with another window size; docs/security.md lists each
	 *  rule); 0 where the hardware is the only writer. Since 0.2 (was
	 *  reserved). */
	uint64_t refused;
	/** `dds:` streams found taken over: samples of another took the place
	 *  of a node's own (an RTPS-level takeover, possible without DDS
	 *  Security), seen as a difference in the stream's digest; each is
	 *  also reported with ::RFM_EVENT_LINK and resynchronised. 0 where the
	 *  hardware is the only writer. Since 0.2 (was reserved). */
	uint64_t forged;
	uint64_t reserved[6];	/**< Zero. */
};

/**
 * @brief The counters of a receiving handle.
 *
 * The library fills as much of the structure as @c stats->struct_size
 * says it has. A handle that never enabled a type has depth 0.
 * @param node The handle.
 * @param[in,out] stats The caller sets @c struct_size to
 *        sizeof(struct rfm_event_stats); the rest is filled.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c stats->struct_size is too small.
 */
RFM_API int rfm_event_get_stats(rfm_node *node, struct rfm_event_stats *stats);

/** @} */

RFM_END_DECLS

/** @} */
#endif /* RFM_EVENT_H */
