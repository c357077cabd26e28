/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file health.h
 * @brief Node health: heartbeats, the node table, up/down events, self-test, counters.
 *
 * @defgroup health Health
 * @{
 * rfm_health_start() starts a thread on the handle that beats at a period
 * into the node's slot of the **heartbeat table** and watches every other
 * node's beats.
 *
 * **The heartbeat table** is in the window, the same on every backend:
 * ::RFM_MAX_NODES slots of ::RFM_HEALTH_SLOT_SIZE bytes
 * (::RFM_HEALTH_TABLE_SIZE, 16 KiB), slot @c id written only by node
 * @c id (a beat counter, period, incarnation, pid, host name, card status),
 * so it works on real reflective memory where each card holds its own
 * copy. By default it is the **last 16 KiB of the window**; the URI
 * parameter `heartbeat=OFFSET` (a multiple of 64) puts it elsewhere, and
 * every node of a network must use the same place. Layouts keep out of
 * it: a layout region overlapping the window's last 16 KiB is an error
 * unless the layout declares the table as a region named `heartbeats`
 * (see rfm-layout(5)). Nothing is written there until a node beats.
 * Liveness comes from the reader seeing a slot's counter move against its
 * own clock (nodes on a real network share no clock); on `shm:`, where
 * every node runs on one host, the writer's time of the last beat is
 * also used, and the segment says who is attached.
 * A node whose beat counter has not moved for @c misses of its own periods
 * (or that detached) goes **down**; one whose counter moves again, or that
 * starts beating, goes **up**. Each change becomes an ::RFM_EVENT_NODE_UP or
 * ::RFM_EVENT_NODE_DOWN record (sender = that node, data = its incarnation)
 * in the queues of this node's handles that enabled those types
 * (rfm_event_enable(node, ::RFM_EVENT_MASK_HEALTH)); they are taken by
 * rfm_event_wait() or by callbacks on the dispatcher thread like any event.
 * Run one monitor per node id. A node that dies without closing (SIGKILL)
 * sends nothing: each other node's monitor reports it down once, by its
 * missed beats, and up again when a process takes its id. The records
 * are made by this node's own monitor, so a handle of a node that runs
 * none receives no NODE_UP or NODE_DOWN (except on `dds:`, whose presence
 * makes them too); rfm_health_nodes() reads the table without one.
 *
 * **Incarnation.** Every attach of a node id counts one more: incarnation 1
 * is a cold start of that id on this network, a larger one is a (warm)
 * restart. A node that restarts between two looks goes down (old
 * incarnation) and up (new one).
 *
 * @par Thread safety
 * Every function may be called from any thread, on a handle other
 * threads use; rfm_health_start() and rfm_health_stop() of one handle
 * must not race with each other.
 *
 * @sa rfm-events(7), rfm-protocols(7)
 */
#ifndef RFM_HEALTH_H
#define RFM_HEALTH_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/** Default heartbeat period. */
#define RFM_HEALTH_PERIOD_DEFAULT_NS UINT64_C(100000000)
/** Default beats missed before a node is down. */
#define RFM_HEALTH_MISSES_DEFAULT 3u
/** Bytes of one node's slot in the heartbeat table. */
#define RFM_HEALTH_SLOT_SIZE 64u
/** Bytes of the heartbeat table: one slot per node id. */
#define RFM_HEALTH_TABLE_SIZE (RFM_HEALTH_SLOT_SIZE * 256u)
/** Name of the layout region that declares the heartbeat table. */
#define RFM_HEALTH_REGION_NAME "heartbeats"

/** Options of rfm_health_start(). */
struct rfm_health_config {
	uint32_t struct_size;	/**< sizeof(struct rfm_health_config). */
	uint32_t misses;	/**< Periods without a beat before "down" (0: default). */
	uint64_t period_ns;	/**< Beat and watch period, >= 1 ms (0: default). */
	uint64_t reserved[4];	/**< Zero. */
};

/**
 * @brief Start beating and watching on a thread of this handle.
 *
 * The first beat and the first look at the other slots are made before
 * this returns: a peer that starts beating after it returns is reported
 * up (and down after its misses), however late the thread first runs.
 * The thread also watches this node's card (rfm_node_get_info()'s @c link)
 * and makes an ::RFM_EVENT_LINK record (data = the new RFM_LINK_* bits)
 * when it changes: link lost or restored, FIFO or sync errors.
 * rfm_health_stop() or rfm_close() stops it.
 * @param node The handle.
 * @param config The period and misses, or NULL for the defaults. Read
 *        during the call only.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, @c config->struct_size is too small,
 *         or the period is not 1 ms..60 s.
 * @retval RFM_EBUSY The heartbeat of this handle is running already.
 * @retval RFM_ECLOSED The handle was inherited through fork().
 * @retval RFM_ESIZE The window is smaller than the table.
 * @retval RFM_ERANGE The table (URI `heartbeat=`) does not fit the window.
 * @retval RFM_EPERM The heartbeat thread may not take the real-time
 *         scheduling the handle was opened with; or the handle is an
 *         observer (`observe=1`), which has no slot to beat in.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_ESYS The thread's creation failed (errno is kept).
 */
RFM_API int rfm_health_start(rfm_node *node, const struct rfm_health_config *config);

/**
 * @brief Stop the heartbeat thread and mark the slot stopped.
 *
 * Others see this node down at once, without waiting for its misses.
 * rfm_close() does the same. Stopping a handle without a heartbeat does
 * nothing.
 * @param node The handle.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 */
RFM_API int rfm_health_stop(rfm_node *node);

/**
 * @brief Beat once now (without a thread: programs that beat from their own loop).
 *
 * Writes this node's slot: the beat counter, the period others should
 * expect, pid, host and card status. Watching others needs
 * rfm_health_start() or rfm_health_nodes().
 * @param node The handle.
 * @param period_ns The period others should expect (0: default,
 *        ::RFM_HEALTH_PERIOD_DEFAULT_NS; clamped to 1 ms..60 s).
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL.
 * @retval RFM_ECLOSED The handle was inherited through fork().
 * @retval RFM_ESIZE The window is smaller than the table.
 * @retval RFM_ERANGE The table (URI `heartbeat=`) does not fit the window.
 * @retval RFM_EPERM The handle is an observer (`observe=1`), which has no
 *         slot to beat in.
 */
RFM_API int rfm_health_beat(rfm_node *node, uint64_t period_ns);

/**
 * What a node of the table is now (rfm_node_status::state): the one
 * answer `rfm nodes`, `rfm serve`'s page and /metrics give, from the
 * heartbeat slot and what the backend knows of the id. Leaving is not
 * dying: a node that closed (rfm_close(), rfm_health_stop()) has left;
 * one whose process died without closing has crashed, where the backend
 * can tell (`shm:` knows a process that held the id is gone); one still
 * attached whose beats stopped, or that stopped beating without a word
 * where nothing else is known (a card's node), is silent.
 * @since RFM_1.2
 */
enum rfm_node_state {
	/** Not known: a library before RFM_1.2 filled the row (it is 0 there). */
	RFM_NODE_STATE_UNKNOWN = 0,
	/** Attached and beating within its misses. */
	RFM_NODE_STATE_UP = 1,
	/** Attached, running no heartbeat (or stopped it and stays attached):
	 *  nothing says whether it works. */
	RFM_NODE_STATE_ATTACHED = 2,
	/** Its beats stopped without a goodbye: attached but hung, or gone
	 *  where the backend cannot tell (a card). */
	RFM_NODE_STATE_SILENT = 3,
	/** Closed cleanly: it said goodbye (its slot is marked stopped, or the
	 *  backend saw it detach). */
	RFM_NODE_STATE_LEFT = 4,
	/** Its process died without closing (killed, SIGINT without a handler,
	 *  a crash): the backend saw the id's holder gone while attached. */
	RFM_NODE_STATE_CRASHED = 5,
};

/**
 * @brief The name of a node state, as `rfm nodes`, `rfm serve` and its
 *        /metrics show it.
 * @param state An ::rfm_node_state.
 * @return "up", "attached", "silent", "left" or "crashed"; "unknown" for
 *         ::RFM_NODE_STATE_UNKNOWN and any other value. A static string.
 * @since RFM_1.2
 */
RFM_API const char *rfm_node_state_name(unsigned int state);

/** One row of the node table. */
struct rfm_node_status {
	uint32_t id;		/**< Node id. */
	uint32_t attached;	/**< 1: the id is attached to the network. */
	uint32_t alive;		/**< 1: attached and beating within its misses. */
	uint32_t incarnation;	/**< Attaches of this id so far. */
	/** Since the last beat: on `shm:` by the beater's clock, elsewhere since
	 *  this handle saw the counter move (UINT64_MAX: not seen to move yet;
	 *  look again after a period). */
	uint64_t age_ns;
	uint64_t beats;		/**< Beats so far. */
	uint64_t period_ns;	/**< Its period (0: never beat). */
	int32_t pid;		/**< Process (0: unknown). */
	uint32_t link;		/**< Its card's RFM_LINK_* bits at its last beat (since 0.2). */
	char host[64];		/**< Host name ("" when unknown; from the slot: at most 19 bytes). */
	uint32_t state;		/**< ::rfm_node_state (since RFM_1.2; 0 from older libraries). */
	uint32_t reserved0;	/**< Zero. */
	uint64_t reserved[3];	/**< Zero. */
};

/**
 * @brief The node table: every node id that is attached or has beaten, and
 *        (where the backend can tell) every id whose holder crashed.
 *
 * Each row has its ::rfm_node_state. `attached` is 1 for
 * ::RFM_NODE_STATE_UP, ::RFM_NODE_STATE_ATTACHED and an attached
 * ::RFM_NODE_STATE_SILENT node, and 0 for a node that left or crashed: a
 * process that died without closing never reads as attached.
 *
 * A reader: writes nothing to the window, and needs no heartbeat of its
 * own (an observer's handle will do). In a window too small for the
 * table, backends that know who is attached (`shm:`, `dds:`) still list
 * those nodes (none beats).
 * @param node Any handle on the network.
 * @param[out] rows Receives up to @p max rows, by id; may be NULL when
 *        @p max is 0 (to count).
 * @param max Room in @p rows.
 * @return The number of such nodes (may exceed @p max), or a negative
 *         ::rfm_error code.
 * @retval RFM_EINVAL @p node is NULL, or @p rows is NULL and @p max is not 0.
 * @retval RFM_ESIZE The window is smaller than the table.
 * @retval RFM_ERANGE The table (URI `heartbeat=`) does not fit the window.
 */
RFM_API int rfm_health_nodes(rfm_node *node, struct rfm_node_status *rows, size_t max);

/** Counters, in a versioned structure. */
struct rfm_health_counters {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t reserved0;	/**< Zero (aligns the next field). */
	uint64_t events_sent;	/**< Events this handle sent. */
	uint64_t events_received; /**< Records this handle took. */
	uint64_t events_dropped; /**< Records lost to this handle's full queue. */
	uint64_t ring_lost;	/**< Ring messages lost to laps (this process). */
	uint64_t record_retries; /**< Seqlock read retries (this process). */
	uint64_t node_downs;	/**< NODE_DOWN records this handle's monitor made. */
	uint64_t node_ups;	/**< NODE_UP records this handle's monitor made. */
	uint64_t reserved[6];	/**< Zero. */
};

/**
 * @brief The handle's link, event and loss counters.
 *
 * The library fills as much of the structure as @c counters->struct_size
 * says it has.
 * @param node The handle.
 * @param[in,out] counters The caller sets @c struct_size to
 *        sizeof(struct rfm_health_counters); the rest is filled.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c counters->struct_size is too small.
 */
RFM_API int rfm_health_get_counters(rfm_node *node, struct rfm_health_counters *counters);

/** Result of rfm_selftest(). */
struct rfm_selftest_result {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t memory_ok;	/**< 1: write/readback passed (0 when not run). */
	uint32_t memory_errors;	/**< Bytes that read back wrong. */
	uint32_t event_ok;	/**< 1: a loopback event came back with its data. */
	uint64_t event_latency_ns; /**< Its send-to-take time. */
	uint64_t reserved[6];	/**< Zero. */
};

/** rfm_selftest() offset meaning "skip the write/readback". */
#define RFM_SELFTEST_NO_MEMORY UINT64_MAX

/**
 * @brief Own-node test: memory write/readback, then an event to this node and back.
 *
 * Writes and reads back 64 bytes at @p offset in five patterns, restoring
 * what was there (another writer there would fail it), then sends INTR4
 * to this node with loopback and takes it back, measuring the time. Use a
 * handle of its own: the event part enables INTR4 on it for the test (if
 * it is not enabled) and takes records from its queue.
 * @param node The handle to test.
 * @param offset Where to test memory, or ::RFM_SELFTEST_NO_MEMORY to skip it.
 * @param[in,out] result The caller sets @c struct_size; receives what
 *        each part found, also when a part failed.
 * @return 0 when every part run passed, or a negative ::rfm_error code.
 * @retval RFM_EIO A part failed (see @p result).
 * @retval RFM_EINVAL An argument is NULL, or @c result->struct_size is too small.
 * @retval RFM_ERANGE The 64 bytes at @p offset are not inside the window.
 * @retval RFM_EBUSY Callbacks own the handle's records.
 * @retval RFM_ENOTSUP The backend has no events.
 * @retval RFM_ECLOSED The handle was inherited through fork().
 * @retval RFM_EFULL `shm:` the node id has no room for another receiving handle.
 * @retval RFM_EPERM The handle is an observer (`observe=1`), which neither
 *         writes nor receives.
 */
RFM_API int rfm_selftest(rfm_node *node, uint64_t offset, struct rfm_selftest_result *result);

RFM_END_DECLS

/** @} */
#endif /* RFM_HEALTH_H */
