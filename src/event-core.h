/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The core's per-handle event state, shared by event.c (configuration,
 * sending), event-wait.c (taking and waiting), event-callback.c (the
 * dispatcher thread) and event-fd.c (the pollable descriptor).
 *
 * The files form a stack, each calling only those below it: event.c over
 * event-callback.c over event-wait.c over event-state.c (and event-fd.c,
 * event-types.c). A lower file that must reach up is handed a function:
 * the close a callback began is finished with rfm__event_close()'s
 * free_node.
 *
 * Locks: @lock guards configuration (mask, queue, callbacks, threads) and
 * is never held while a callback runs or a thread sleeps on the queue;
 * @take_lock serialises takes from the queue and guards the counters.
 * Flags read on the wait path are accessed atomically.
 */
#ifndef RFM_EVENT_CORE_H
#define RFM_EVENT_CORE_H

#include <pthread.h>

#include "internal.h"
#include "os/ready.h"

#define RFM_EV_WAIT_SLOTS 8

struct rfm_event_cb {
	rfm_event_callback fn;
	void *arg;
};

struct rfm_events {
	pthread_mutex_t lock;
	uint32_t mask;		/* enabled types (atomic) */
	uint32_t attached;	/* the backend gave us a queue (atomic, set once) */
	uint32_t depth;

	uint32_t take_lock;	/* rfm__lock() */
	uint64_t seq;		/* last sequence number given */
	uint64_t announced;	/* drops already reported by OVERFLOW records */
	uint64_t delivered;
	uint64_t overflows;
	uint64_t unhandled;	/* taken by the dispatcher, no callback (atomic) */

	uint32_t closing;	/* rfm_close() has begun (atomic) */
	uint32_t cancel_gen;	/* bumped by rfm_event_cancel() (atomic) */
	uint32_t cancel_sticky;	/* a cancel no wait has consumed yet (atomic) */
	uint32_t waiters;	/* waits that found no free slot below; a futex */

	struct rfm_event_cb cb[RFM_EVENT_TYPE_MAX + 1];
	struct rfm_event_cb route;	/* rfm__event_route(): records no cb[] takes */
	bool route_kick;	/* call route once with no record (rfm__event_route) */
	bool in_route;		/* the running callback is route's */
	uint32_t ncb;		/* callbacks registered, route included (atomic) */
	uint32_t dispatch_gen;	/* bumped to make the dispatcher re-check (atomic) */
	pthread_cond_t cb_cond;	/* dispatcher parked / a callback finished */
	pthread_t dispatcher;
	bool dispatcher_started;
	bool in_callback;
	bool in_take;		/* the dispatcher is inside a take (under lock) */
	uint32_t take_dgen;	/* the dispatch_gen that take started with */
	unsigned int cb_type;	/* type whose callback runs, when in_callback */
	bool close_deferred;	/* rfm_close() called from a callback */
	/* What frees the handle once a deferred close is over: the caller of
	 * rfm__event_close() (node.c) lends it, as the dispatcher that finishes
	 * the close must not call up into the file that opens handles. */
	void (*free_node)(struct rfm_node *node);
	/*
	 * A callback run by the thread that received its record (dds:
	 * callbacks=receive), from rfm__event_claim_inline() to the end of
	 * rfm__event_run_inline(). One at a time, never beside the
	 * dispatcher's: a record the dispatcher took waits for it to end
	 * (disp_holding keeps the claim out meanwhile, in the other
	 * direction).
	 */
	bool inline_running;
	unsigned int inline_type;
	struct rfm_event inline_rec;
	struct rfm_event_cb inline_cb;
	uint32_t disp_holding;	/* the dispatcher took a record and has not
				 * finished its callback (atomic; set under
				 * take_lock, cleared under lock) */

	intptr_t ready;		/* rfm_event_fd()'s object (os/ready.h), or
				 * RFM_OS_READY_NONE (atomic) */
	pthread_t watcher;
	bool watcher_started;
	uint32_t drain_gen;	/* a futex: bumped when a take drains a signalled fd */
	uint32_t fd_signalled;	/* the watcher has set ready (atomic) */

	/*
	 * Every thread inside a wait holds a slot (or counts in waiters), so
	 * that rfm_close() can wait for them to leave. A slot is taken with a
	 * CAS before the wait spins and given back with a plain store, which
	 * keeps atomic read-modify-writes off the path from "record seen" to
	 * "record returned".
	 */
	struct {
		uint32_t busy; /* a futex */
	} __attribute__((aligned(64))) wslot[RFM_EV_WAIT_SLOTS];
};

#define EV_LOAD(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)
#define EV_STORE(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELEASE)

/* event-wait.c: take up to @max records, waiting as rfm_event_fetch()
 * does. The dispatcher passes @dispatcher and its dispatch_gen snapshot:
 * it ignores cancels and returns 0 when @dgen goes stale; a record it
 * takes sets disp_holding. */
int rfm__event_take(struct rfm_node *node, struct rfm_event *evs, size_t max,
		    int64_t timeout_ns, bool dispatcher, uint32_t dgen);

/*
 * 0 when @node (not NULL) can receive events here: its backend has them
 * and the handle was not inherited through fork(). Else the error.
 */
int rfm__event_receiver_usable(struct rfm_node *node);

/* Take @node's event lock (ev->lock, for enabling and callbacks); its event state. */
static inline struct rfm_events *rfm__event_lock(struct rfm_node *node)
{
	pthread_mutex_lock(&rfm__core(node)->ev->lock);
	return rfm__core(node)->ev;
}

/*
 * The way into the handle's event state of every function that changes it
 * (enable, disable, callbacks, the fd): @check is the result of the
 * caller's own argument checks; when it is 0 and the caller will receive
 * (@receiver), the handle must be able to (rfm__event_receiver_usable);
 * then the event lock is taken and *@evp is the state. Returns the first
 * error, with nothing locked.
 */
int rfm__event_enter(struct rfm_node *node, int check, bool receiver, struct rfm_events **evp);

/* Return once no thread is inside a wait (closing is set). */
void rfm__event_wait_for_waiters(struct rfm_events *ev);

/* event-state.c: wake every thread of the handle that sleeps on the
 * queue or a flag. */
void rfm__event_wake_all(struct rfm_node *node);
/* event-state.c: which thread this is. */
bool rfm__event_is_dispatcher(const struct rfm_events *ev);
/* This thread runs a callback of @ev now: the dispatcher, or a receive
 * thread inside rfm__event_run_inline(). */
bool rfm__event_on_callback_thread(const struct rfm_events *ev);
bool rfm__event_in_inline_callback(const struct rfm_events *ev);
/* Mark this thread as running @ev's callbacks inline (NULL: none); the
 * previous mark, to restore after a nested call. */
const struct rfm_events *rfm__event_set_inline(const struct rfm_events *ev);

/* event-callback.c / event-fd.c: threads, stopped by rfm__event_close(). */
void rfm__event_stop_threads(struct rfm_node *node);
/* The end of rfm_close(), from whichever thread finishes it. */
void rfm__event_finish_close(struct rfm_node *node);

#endif /* RFM_EVENT_CORE_H */
