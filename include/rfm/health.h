/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file health.h
 * @brief Node health: heartbeats, the node table, up/down events, self-test, counters.
 *
 * @defgroup health Health
 * @{
 * rfm_health_start() starts a thread on the handle that beats at a period
 * into the node's heartbeat area (on `shm:`, words in the segment's node
 * table that only this node writes) and watches every other node's beats.
 * A node whose beat counter has not moved for @c misses of its own periods
 * (or that detached) goes **down**; one whose counter moves again, or that
 * starts beating, goes **up**. Each change becomes an ::RFM_EVENT_NODE_UP or
 * ::RFM_EVENT_NODE_DOWN record (sender = that node, data = its incarnation)
 * in the queues of this node's handles that enabled those types
 * (rfm_event_enable(node, ::RFM_EVENT_MASK_HEALTH)); they are taken by
 * rfm_event_wait() or by callbacks on the dispatcher thread like any event.
 * Run one monitor per node id.
 *
 * **Incarnation.** Every attach of a node id counts one more: incarnation 1
 * is a cold start of that id on this network, a larger one is a (warm)
 * restart. A node that restarts between two looks goes down (old
 * incarnation) and up (new one).
 *
 * Thread-safety: all functions may be called from any thread.
 */
#ifndef RFM_HEALTH_H
#define RFM_HEALTH_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/** Default heartbeat period. */
#define RFM_HEALTH_PERIOD_DEFAULT_NS UINT64_C(100000000)
/** Default beats missed before a node is down. */
#define RFM_HEALTH_MISSES_DEFAULT 3u

/** Options of rfm_health_start(). */
struct rfm_health_config {
	uint32_t struct_size;	/**< sizeof(struct rfm_health_config). */
	uint32_t misses;	/**< Periods without a beat before "down" (0: default). */
	uint64_t period_ns;	/**< Beat and watch period, >= 1 ms (0: default). */
	uint64_t reserved[4];	/**< Zero. */
};

/**
 * @brief Start beating and watching on a thread of this handle.
 * @param config NULL for defaults.
 * @return 0, ::RFM_EINVAL, ::RFM_EBUSY (already started), ::RFM_ENOTSUP
 *         (backend without heartbeat area), ::RFM_ESYS, ::RFM_ENOMEM.
 */
RFM_API int rfm_health_start(rfm_node *node, const struct rfm_health_config *config);

/** @brief Stop the thread (rfm_close() also does). @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_health_stop(rfm_node *node);

/**
 * @brief Beat once now (without a thread: programs that beat from their own loop).
 * @param period_ns The period others should expect (0: default).
 * @return 0, ::RFM_EINVAL, ::RFM_ENOTSUP.
 */
RFM_API int rfm_health_beat(rfm_node *node, uint64_t period_ns);

/** One row of the node table. */
struct rfm_node_status {
	uint32_t id;		/**< Node id. */
	uint32_t attached;	/**< 1: the id is attached to the network. */
	uint32_t alive;		/**< 1: attached and beating within its misses. */
	uint32_t incarnation;	/**< Attaches of this id so far. */
	uint64_t age_ns;	/**< Since the last beat (UINT64_MAX: never beat). */
	uint64_t beats;		/**< Beats so far. */
	uint64_t period_ns;	/**< Its period (0: never beat). */
	int32_t pid;		/**< Process (0: unknown). */
	uint32_t reserved0;
	char host[64];		/**< Host name ("" when unknown). */
	uint64_t reserved[4];
};

/**
 * @brief The node table: every node id that is attached or has beaten.
 * @param rows Receives up to @p max rows, by id.
 * @return The number of such nodes (may exceed @p max), or ::RFM_EINVAL, ::RFM_ENOTSUP.
 */
RFM_API int rfm_health_nodes(rfm_node *node, struct rfm_node_status *rows, size_t max);

/** Counters, in a versioned structure. */
struct rfm_health_counters {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t reserved0;
	uint64_t events_sent;	/**< Events this handle sent. */
	uint64_t events_received; /**< Records this handle took. */
	uint64_t events_dropped; /**< Records lost to this handle's full queue. */
	uint64_t ring_lost;	/**< Ring messages lost to laps (this process). */
	uint64_t record_retries; /**< Seqlock read retries (this process). */
	uint64_t node_downs;	/**< NODE_DOWN records this handle's monitor made. */
	uint64_t node_ups;	/**< NODE_UP records this handle's monitor made. */
	uint64_t reserved[6];
};

/** @brief Fill @p counters. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_health_get_counters(rfm_node *node, struct rfm_health_counters *counters);

/** Result of rfm_selftest(). */
struct rfm_selftest_result {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t memory_ok;	/**< 1: write/readback passed (0 when not run). */
	uint32_t memory_errors;	/**< Bytes that read back wrong. */
	uint32_t event_ok;	/**< 1: a loopback event came back with its data. */
	uint64_t event_latency_ns; /**< Its send-to-take time. */
	uint64_t reserved[6];
};

/** rfm_selftest() offset meaning "skip the write/readback". */
#define RFM_SELFTEST_NO_MEMORY UINT64_MAX

/**
 * @brief Own-node test: write/readback of 64 bytes at @p offset (restored
 * afterwards; another writer there would fail it), then an INTR4 event sent
 * to this node with loopback and taken back.
 *
 * Use a handle of its own: the event part enables INTR4 on it for the
 * test (if it is not enabled) and takes records from its queue.
 * @return 0 when every part run passed, ::RFM_EIO when one failed (see
 *         @p result), ::RFM_EINVAL, ::RFM_ERANGE, ::RFM_EBUSY (callbacks own the
 *         handle's records), ::RFM_ENOTSUP.
 */
RFM_API int rfm_selftest(rfm_node *node, uint64_t offset, struct rfm_selftest_result *result);

RFM_END_DECLS

/** @} */
#endif /* RFM_HEALTH_H */
