/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file realtime.h
 * @brief Determinism options of a node: memory that never faults on the
 *        hot path, and real-time scheduling of the threads the library owns.
 * @defgroup realtime Real-time options
 * @{
 * A closed loop at 1-10 kHz is ruined by its tail, not its median: a page
 * fault on the first touch of the window, the event dispatcher thread
 * running at normal priority behind a compiler, an interrupt on the loop's
 * core. These options remove the first two; `rfm selftest --system` and
 * docs/tuning.md cover the machine.
 *
 * The same options come from the URI (what a user types) or from a
 * ::rfm_open_options structure (what a program sets); a URI parameter
 * overrides the structure's field:
 *
 * | URI parameter        | field                 | effect |
 * |----------------------|-----------------------|--------|
 * | `prefault=1`         | ::RFM_MEM_PREFAULT    | every page of the window is mapped at open, the handle's event queue when it starts receiving, and (`shm:`) each queue it sends to at its first send there |
 * | `lock=1`             | ::RFM_MEM_LOCK        | as prefault, and the pages are locked in RAM (mlock): never paged out |
 * | `hugepages=1`        | ::RFM_MEM_HUGEPAGES   | `shm:` only: the window of a network this open creates lives in huge pages (a file on a hugetlbfs mount), mapped at open; opening an existing network whose window is not in huge pages fails |
 * | `rt_policy=fifo\|rr\|other` | rt_policy      | scheduling policy of the library's threads |
 * | `rt_prio=1..99`      | rt_priority           | their real-time priority (alone it implies `fifo`) |
 * | `cpus=LIST`          | cpus                  | the CPUs they may run on, e.g. `1` or `0,2-3` |
 *
 * The library's threads are the event dispatcher (rfm_event_callback_register()),
 * the event-fd watcher (rfm_event_fd()), the heartbeat (rfm_health_start())
 * and, on `rfm2g:`, the threads that wait for the card's interrupts.
 * Rings live in the window, so their slots are covered by the window's options.
 *
 * Rights are checked when the node is opened, so a program learns at once
 * that it would not get what it asked for, never silently running at
 * normal priority: a policy or priority the process may not use fails with
 * ::RFM_EPERM (the message names CAP_SYS_NICE and RLIMIT_RTPRIO and how to
 * raise them); a lock beyond RLIMIT_MEMLOCK fails with ::RFM_ENOMEM
 * (naming the limit and the size needed); a CPU the process may not run on
 * fails with ::RFM_EURI or ::RFM_EINVAL.
 *
 * @par Thread safety
 * Both functions may be called from any thread; rfm_node_get_options()
 * on a handle other threads use.
 *
 * @sa rfm(1), librfm(7)
 */
#ifndef RFM_REALTIME_H
#define RFM_REALTIME_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/** rfm_open_options.mem_flags: map every page of the window at open. */
#define RFM_MEM_PREFAULT 0x1u
/** rfm_open_options.mem_flags: prefault and lock the pages in RAM (implies ::RFM_MEM_PREFAULT). */
#define RFM_MEM_LOCK 0x2u
/**
 * rfm_open_options.mem_flags (`shm:` only): back the window with huge
 * pages, from a file named `rfm-NAME` on a hugetlbfs mount (/dev/hugepages
 * preferred) that every process of the network opens by name. The pages
 * are taken from the kernel's reserved pool when the network is created;
 * too few reserved fails with ::RFM_ENOMEM, the message saying how many
 * are needed, how many are free and how to reserve them
 * (`sysctl vm.nr_hugepages=N`). Other backends: ::RFM_ENOTSUP.
 * Since librfm 1.1.
 */
#define RFM_MEM_HUGEPAGES 0x4u

/** Scheduling policy of the library's threads. */
enum rfm_rt_policy {
	RFM_RT_INHERIT = 0,	/**< As the thread that starts them (default). */
	RFM_RT_OTHER = 1,	/**< SCHED_OTHER: normal time sharing. */
	RFM_RT_FIFO = 2,	/**< SCHED_FIFO at rt_priority. */
	RFM_RT_RR = 3,		/**< SCHED_RR at rt_priority. */
};

/** CPUs an ::rfm_open_options can name (bits of rfm_open_options.cpus). */
#define RFM_RT_CPUS_MAX 1024

/**
 * @brief Options of rfm_open_with_options(), in a versioned structure.
 * Zero the structure, set @c struct_size to sizeof(struct rfm_open_options),
 * then the fields wanted: zero everywhere means "as rfm_open()". Fields
 * appended in later versions lie in @c reserved, which must stay zero; a
 * program built with a newer, larger structure runs on this library as
 * long as it leaves the fields this library lacks zero (else ::RFM_EINVAL).
 */
struct rfm_open_options {
	uint32_t struct_size;	/**< Set by the caller: sizeof(struct rfm_open_options). */
	uint32_t mem_flags;	/**< ::RFM_MEM_PREFAULT, ::RFM_MEM_LOCK, ::RFM_MEM_HUGEPAGES. */
	int32_t rt_policy;	/**< An ::rfm_rt_policy value. */
	int32_t rt_priority;	/**< 1..99 for ::RFM_RT_FIFO and ::RFM_RT_RR, else 0. */
	/** CPU set of the library's threads: bit c of cpus[c / 64] is CPU c; all zero: inherit. */
	uint64_t cpus[RFM_RT_CPUS_MAX / 64];
	/** How the handle attaches (node.h, "Observers and tools"): ::RFM_ATTACH_NODE
	 *  (0), ::RFM_ATTACH_OBSERVER or ::RFM_ATTACH_TOOL; the URI's `observe=1` or
	 *  `tool=1` takes precedence. Since RFM_1.2 (was reserved). */
	uint32_t attach;
	uint32_t reserved[15];	/**< Zero; room for future fields. */
};

/**
 * @brief Open a node by URI with determinism options.
 *
 * As rfm_open(), then the options of @p options with the URI's parameters
 * (`prefault`, `lock`, `hugepages`, `rt_policy`, `rt_prio`, `cpus`:
 * realtime.h) taking precedence. Rights are checked here: an open that
 * could not give what it was asked fails, never runs without it.
 * @param uri As for rfm_open().
 * @param options The options, or NULL for none (then this is rfm_open()).
 *        Read during the call only.
 * @param[out] nodep Receives the handle; the caller frees it with
 *        rfm_close(). Left untouched on failure.
 * @return 0 on success, or a negative ::rfm_error code: any of
 *         rfm_open()'s, and those below.
 * @retval RFM_EINVAL @p nodep is NULL, or the structure is bad:
 *         struct_size too small, unknown flags or policy, non-zero
 *         reserved bytes or fields this library does not know, priority
 *         out of range, CPUs the process may not use.
 * @retval RFM_EURI One of those URI parameters does not parse, or
 *         names CPUs the process may not use.
 * @retval RFM_EPERM The process may not use the scheduling asked (the
 *         message names CAP_SYS_NICE and RLIMIT_RTPRIO).
 * @retval RFM_ENOMEM The pages cannot be locked within RLIMIT_MEMLOCK, too
 *         few huge pages are reserved, or out of memory.
 * @retval RFM_ENOTSUP ::RFM_MEM_HUGEPAGES on a backend other than `shm:`
 *         or with no hugetlbfs mounted.
 */
RFM_API int rfm_open_with_options(const char *uri, const struct rfm_open_options *options,
				  rfm_node **nodep);

/**
 * @brief The options a node was opened with, URI parameters merged.
 *
 * What rfm_open_with_options() made of its structure and the URI:
 * ::RFM_MEM_LOCK shows with ::RFM_MEM_PREFAULT, which it implies.
 * @param node The handle.
 * @param[in,out] options The caller sets @c struct_size; the library fills
 *        what fits.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c options->struct_size is
 *         smaller than the fields before @c reserved.
 */
RFM_API int rfm_node_get_options(const rfm_node *node, struct rfm_open_options *options);

RFM_END_DECLS

/** @} */
#endif /* RFM_REALTIME_H */
