/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The backend contract: what a backend (src/backends/NAME/) gives the core
 * and what it may touch of the core's node handle. A backend is one const
 * struct rfm_backend_ops, named in node.c's table and chosen by the URI's
 * scheme; the core never asks which backend it runs on, only what the
 * table holds (an op or NULL) and the capability bits it declares.
 *
 * A backend's files include this header and their own only: what the core
 * lends a backend (errors, URI parameters, threads, the local event queue,
 * the clock and futexes) is declared at the end of this file or in the
 * small headers it includes for it, and what differs between operating
 * systems is the OS layer's (the headers in src/os/). The core's own part
 * of a handle is not visible here. tests/core/test-layering.sh holds
 * backends to this.
 *
 * Conventions for every op below:
 *  - Return 0 or a negative enum rfm_error code, with a message recorded
 *    by rfm__error() (below), unless the op says otherwise.
 *  - An op marked optional may be NULL; the comment says what the core
 *    does then. Everything not marked optional is required.
 *  - "Any thread" means the op may run concurrently with every other op
 *    of the same handle except open and close: the core calls open before
 *    the handle is visible to anyone and close after every thread of the
 *    core stopped using it. Ops never run with a lock of the core held
 *    unless they say so, so a backend's locks nest inside nothing.
 */
#ifndef RFM_BACKEND_H
#define RFM_BACKEND_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rfm/rfm.h>

#include "os/file.h" /* rfm__fd_keep_off_std(): every descriptor a backend opens */

struct rfm_uri;			/* below: the parsed URI */
struct rfm_backend_board_ops;	/* board.h: card controls for librfm2g */

/* ---- events ---- */

/* A record as a backend queues it; the core adds the sequence number. */
struct rfm_ev_record {
	uint32_t type;
	uint32_t sender;
	uint32_t data;
	uint64_t sent_ns;
};

/*
 * Network interrupts, one table per backend, grouped so that only the
 * event code (event*.c) reaches them. Each op is optional: without send
 * or attach the core answers RFM_ENOTSUP; the core does numbering, overflow
 * announcements, waiting policy, cancel, callbacks and the pollable
 * fd itself, so a backend only moves records and sleeps. A backend that
 * receives on threads of its own queues records with event-localq.h and
 * names its ev ops RFM__LOCALQ_EV_OPS.
 */
struct rfm_backend_ev_ops {
	/* Deliver @rec to node @to (0..255 or RFM_NODE_ALL; range, type and
	 * self-without-loopback already checked). Returns the number of
	 * receiving queues that took it, or RFM_ENODE. Any thread, lock-free
	 * (a sender never waits for a receiver). The core leaves
	 * rec->sent_ns 0: the backend reads the clock (rfm__now_ns()) as late
	 * as it likes, e.g. while a cache line it will write is on its way,
	 * and uses one time for every receiver. */
	int (*send)(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec);
	/* Is node @id attached to the network? Any thread. Optional: without
	 * it, sends to an absent node are not refused. */
	bool (*node_attached)(struct rfm_node *node, unsigned int id);
	/* Give the handle a receiving queue; *depth = its capacity. Called
	 * once, at the handle's first rfm_event_enable(), with the core's
	 * event lock held: it must not call back into the event API. */
	int (*attach)(struct rfm_node *node, uint32_t *depth);
	/* Which types the handle's queue takes (RFM_EVENT_BIT mask); records
	 * of other types are not queued. With the core's event lock held, as
	 * attach. */
	void (*set_mask)(struct rfm_node *node, uint32_t mask);
	/* Take up to @max records without blocking; returns how many. Calls
	 * are serialised by the core (its take lock is held, so take must
	 * not call back into the event API); ready may run
	 * concurrently from another thread. With @max 0, the core is about to
	 * sleep: do any housekeeping. */
	unsigned int (*take)(struct rfm_node *node, struct rfm_ev_record *recs, unsigned int max);
	/* Records lost to this handle so far (monotonic): full queue, and
	 * anything the backend had to skip. Any thread. */
	uint64_t (*dropped)(struct rfm_node *node);
	/* Is a record ready to take? Any thread, sometimes with the core's
	 * take lock held (the pollable fd's watcher): it must not call back
	 * into the event API. Cheap: it is what spinning waits poll. */
	bool (*ready)(struct rfm_node *node);
	/* Records queued now (approximate). Any thread. */
	uint64_t (*queued)(struct rfm_node *node);
	/* Sleeping without lost wake-ups: sleep_prepare registers the
	 * caller as a sleeper and returns a token; the caller re-checks its
	 * conditions, calls sleep (which returns early when anything was
	 * sent, wake was called, or at @deadline_ns, CLOCK_MONOTONIC, 0 =
	 * none, or whenever the backend wants a re-check), then always
	 * sleep_finish. Any thread, several sleepers at once. */
	uint32_t (*sleep_prepare)(struct rfm_node *node);
	void (*sleep)(struct rfm_node *node, uint32_t token, uint64_t deadline_ns);
	void (*sleep_finish)(struct rfm_node *node);
	/* Wake every sleeper of the handle's queue. Any thread, lock-free
	 * (it runs from cancel and close). */
	void (*wake)(struct rfm_node *node);
	/* The memory of the handle's queue, to prefault and lock right after
	 * attach (same lock). Optional: without it, lock=1 and prefault=1
	 * cover the window alone. */
	void (*queue_memory)(struct rfm_node *node, void **addr, size_t *len);
};

/* ---- health ---- */

/* What a backend knows of a node id besides its heartbeat slot (which
 * is in the window, health-table.h): shm: knows who holds each id. */
struct rfm_node_facts {
	bool attached;		/* held by a live process now */
	bool crashed;		/* not attached: its last holder died without closing */
	uint32_t incarnation;
	int32_t pid;
};

/* ---- the ops table ---- */

/*
 * What a backend can do that generic code must know about, so that it
 * asks the capability and never which backend it runs on.
 */
enum rfm_backend_caps {
	/* Every node of the network runs on this host: a process id names
	 * a process here (kill(pid, 0) means something) and the host name
	 * is every node's. */
	RFM__CAP_SINGLE_HOST = 1u << 0,
	/* The window can live in huge pages (hugepages=1, RFM_MEM_HUGEPAGES):
	 * the backend reads node->mem_flags at open and does it. */
	RFM__CAP_HUGE_WINDOW = 1u << 1,
	/* A thread of the backend's own stores into the node's copy of the
	 * window (each word atomically) while the program's threads read
	 * it: readers that copy out of the window and check the copy
	 * afterwards (ring consumers, the recorder) then copy with atomic
	 * loads (window-copy.h), so the two are no data race; without it
	 * they copy with memcpy(), as fast as the C library can. */
	RFM__CAP_WINDOW_THREAD = 1u << 2,
	/* It opens observers (node->observer, observe=1): see open below. */
	RFM__CAP_OBSERVE = 1u << 3,
};

struct rfm_backend_ops {
	const char *scheme; /* the URI scheme without ':': "shm", "dev", "rfm2g", "dds" */
	unsigned int caps; /* enum rfm_backend_caps bits */
	/*
	 * Attach @node to the network named by @uri. Must set node->base,
	 * size, id, incarnation and uri (see struct rfm_node), may set priv.
	 * It takes the parameters it knows with rfm__uri_take() (the core
	 * took its own before: loopback, spin, heartbeat, real-time) and
	 * refuses the URI with rfm__uri_check_all_used() if any is left, so
	 * a typo is an error. The core's event state already exists
	 * (receive threads may offer records at once). On failure, leave
	 * nothing behind: close is not called.
	 *
	 * node->observer (RFM__CAP_OBSERVE backends only): attach to read,
	 * changing nothing another node can see: hold no node id where ids are
	 * claimed (node->id = -1, no lock, no presence, no queue), or share the
	 * host's card's id where the card has it; never create a network; map
	 * the window read-only where possible. The core refuses every write,
	 * event and heartbeat of such a handle. node->tool: without node=, take
	 * the first free id of RFM_NODE_TOOL_FIRST..RFM_NODE_ID_MAX, and where
	 * the backend keeps who holds an id, note that a tool does, so that a
	 * node refused that id is told who holds it and why.
	 */
	int (*open)(struct rfm_node *node, struct rfm_uri *uri);
	/* Detach and release the backend's private state; never fails. The
	 * core stopped its own threads first; node->forked says the handle
	 * was inherited through fork() (the parent owns the node id). */
	void (*close)(struct rfm_node *node);
	/* Fill backend-specific parts of @info (optional: the core fills the
	 * generic ones either way). Any thread. */
	void (*get_info)(const struct rfm_node *node, struct rfm_node_info *info);
	/* Remove the network (optional: NULL means RFM_ENOTSUP). No handle
	 * is involved: @uri names the network, @flags are RFM_DESTROY_*. */
	int (*destroy)(struct rfm_uri *uri, unsigned int flags);
	/*
	 * In the child of a fork(): drop this process's share of the kernel
	 * objects that make the parent's node what it is (descriptors holding
	 * the node id...), without touching any shared state, so the parent's
	 * close still frees the id. Runs in the atfork child handler: only
	 * async-signal-safe calls. Optional.
	 */
	void (*forget)(struct rfm_node *node);

	/* Network interrupts: required, though each op in it is optional. */
	const struct rfm_backend_ev_ops *ev;

	/*
	 * Health (optional; any thread, the heartbeat thread included).
	 * node_facts fills what the backend knows of node @id (without it,
	 * the heartbeat slots alone say who is there). node_alive says
	 * whether @id is held by a live process with @incarnation (without
	 * it, the ring code trusts the heartbeats). link_status: this node's
	 * card now, RFM_LINK_* bits (without it, or 0: the card has no status).
	 */
	int (*node_facts)(struct rfm_node *node, unsigned int id, struct rfm_node_facts *facts);
	bool (*node_alive)(struct rfm_node *node, unsigned int id, uint32_t incarnation);
	uint32_t (*link_status)(struct rfm_node *node);
	/*
	 * The heartbeat monitor's verdict on node @id (optional): down (its
	 * beats stopped or it detached; @incarnation the one that went down)
	 * or up again. Called as the monitor announces NODE_DOWN or NODE_UP
	 * (its thread, or rfm_health_start()'s caller for the first look), no
	 * lock of the core held; it must not block
	 * (the monitor's next look waits for it). dds: a node seen down
	 * stops counting for its reliable stream's acknowledgements.
	 */
	void (*peer_verdict)(struct rfm_node *node, unsigned int id, uint32_t incarnation, bool up);

	/*
	 * Bulk transfer by the hardware (DMA), optional: called by
	 * rfm_mem_read/write after their checks (range and NULL done), from
	 * any thread. Returns 1 when it moved the data, 0 to let the core copy
	 * through the mapping, or an error.
	 */
	int (*mem_bulk)(struct rfm_node *node, uint64_t offset, void *buf, size_t len,
			bool to_window);

	/* Board controls of a card (board.h), for librfm2g; NULL: none. */
	const struct rfm_backend_board_ops *board;
	/*
	 * Replication by software (optional): after the library stored
	 * [offset, offset+len) of the window (rfm_mem_write, pokes, typed
	 * sets, records, rings, rfm_mem_flush), send it to the other nodes,
	 * in order with everything else the handle sent. Any thread. NULL
	 * where the hardware replicates every store (shm:, dev:, rfm2g:): the
	 * core then pays one predictable branch per store (rfm__published()).
	 */
	int (*publish)(struct rfm_node *node, uint64_t offset, uint64_t len);
	/*
	 * Samples from the network refused (rfm_event_stats' refused:
	 * forged, malformed, unasked...); any thread, no lock held. NULL: none can be (the
	 * hardware is the only writer).
	 */
	uint64_t (*refused)(struct rfm_node *node);
	/*
	 * Streams found taken over by another's samples (rfm_event_stats'
	 * forged); any thread, no lock held. NULL: none can be.
	 */
	uint64_t (*forged)(struct rfm_node *node);
};

/* The backends node.c chooses from by scheme. */
extern const struct rfm_backend_ops rfm__shm_ops;
extern const struct rfm_backend_ops rfm__rfm2g_ops;
extern const struct rfm_backend_ops rfm__dev_ops;
#ifdef HAVE_DDS
extern const struct rfm_backend_ops rfm__dds_ops;
#endif

/* ---- the node handle ---- */

/*
 * The node handle. base and size come first: every memory access reads
 * them and nothing else. The first group is the backend's to set in open;
 * the second it may read. The core's own state of the handle (its event
 * state, heartbeat, registry link, real-time options) follows this struct
 * in the same allocation (internal.h: struct rfm_node_core), out of a
 * backend's sight.
 */
struct rfm_node {
	/* Set by the backend's open. */
	uint8_t *base;		/* mapped window */
	uint64_t size;		/* window size in bytes */
	int id;			/* node id 0..255 */
	uint32_t incarnation;	/* attaches of this id, this one included */
	void *priv;		/* backend state: the backend's alone */
	char *uri;		/* canonical URI (malloc'd; the core frees it), or NULL */

	/* Set by the core before open; a backend may read them. */
	const struct rfm_backend_ops *ops;
	bool forked;		/* inherited through fork(): the parent owns the id */
	bool observer;		/* observe=1: reads, holds no id (open above) */
	bool tool;		/* tool=1: an id of the tool range unless node= */
	bool loopback;		/* may send to its own node id (relaxed atomic) */
	int64_t spin_ns;	/* spin of a blocking wait; -1: never sleep (relaxed atomic) */
	uint32_t mem_flags;	/* RFM_MEM_* asked for (options, URI lock=...), 0: none */
};

/* ---- what the core lends a backend ---- */

/*
 * The printf format archetype the C library's printf() follows: printf,
 * or gnu_printf where configure says so (mingw-w64, whose C99 printf,
 * __USE_MINGW_ANSI_STDIO, GCC would otherwise check as Microsoft's).
 */
#ifndef RFM_PRINTF_FORMAT
#define RFM_PRINTF_FORMAT printf
#endif

#define RFM_LIKELY(x) __builtin_expect(!!(x), 1)
#define RFM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RFM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Errors (error.c). */

/*
 * Record a detailed message for rfm_last_error() and return @code, so that
 * failure paths read "return rfm__error(RFM_ERANGE, "...", ...);".
 * Cold: it is never on a successful path.
 */
__attribute__((cold, format(RFM_PRINTF_FORMAT, 2, 3)))
int rfm__error(int code, const char *fmt, ...);
/* rfm__error() with a va_list (the recorder's HDF5 module reports through it). */
__attribute__((cold, format(RFM_PRINTF_FORMAT, 2, 0)))
int rfm__verror(int code, const char *fmt, va_list ap);

/* Map an errno value from a failed system call to an rfm_error code. */
int rfm__errno_code(int err);

/* True when the @len bytes at @p are all zero (util.c). */
bool rfm__all_zero(const void *p, size_t len);

/* The URI (uri.c): what open and destroy are given. */

#define RFM_URI_MAX_PARAMS 16

struct rfm_uri_param {
	char *key;
	char *value;
	bool used; /* set by the backend when it consumes the parameter */
};

/* "scheme:path?key=value&key=value", parsed into owned strings. */
struct rfm_uri {
	char *text; /* the whole URI as given (owned) */
	char *scheme;
	char *path;
	struct rfm_uri_param params[RFM_URI_MAX_PARAMS];
	unsigned int nparams;
};

/* The parameter's value, marked used, or NULL when absent. */
const char *rfm__uri_take(struct rfm_uri *uri, const char *key);
/* A 0/1 parameter into *out (untouched when absent): 0, or RFM_EURI. */
int rfm__uri_take_bool(struct rfm_uri *uri, const char *key, bool *out);
/* RFM_EURI naming the first parameter no backend consumed, or 0. */
int rfm__uri_check_all_used(const struct rfm_uri *uri);
/* Strict unsigned parsing in C notation (decimal, 0x hex, 0 octal). */
int rfm__parse_u64(const char *text, uint64_t *value);
/* As above, with an optional K/M/G suffix (powers of 1024). */
int rfm__parse_size(const char *text, uint64_t *value);

/*
 * Threads (rt-thread.c): start a thread the library owns (@what:
 * "dispatcher"...) with the handle's policy, priority and CPU set
 * (os/thread.h). Returns 0 or an rfm error with a message saying what
 * right is missing.
 */
int rfm__rt_thread_create(struct rfm_node *node, pthread_t *thread, void *(*fn)(void *),
			  void *arg, const char *what);

/*
 * Is the calling thread a heartbeat monitor's (health.c)? Its verdicts
 * are what end a stall caused by a dead peer, so its beats must never
 * wait for the network's back-pressure: a backend that makes writers wait
 * queues (or drops) them instead.
 */
bool rfm__health_monitor_thread(void);

/*
 * event-callback.c, for a backend that receives on threads of its own and
 * lets callbacks run there (dds: callbacks=receive). Claim: offer @rec,
 * just received, to the handle's callback of its type; true when it took
 * it (nothing queued or running before it: the callbacks' order holds),
 * false to queue it as usual. Call it where records are put in order (the
 * backend's receive lock). The claimant then calls rfm__event_run_inline()
 * once it holds no lock of its own: the callback may write, send, close.
 */
bool rfm__event_claim_inline(struct rfm_node *node, const struct rfm_ev_record *rec);
void rfm__event_run_inline(struct rfm_node *node);

/*
 * The rest of the contract, in headers of their own: the clock and the
 * spin hint (rfm__now_ns(), rfm__cpu_relax()), futex words
 * (rfm__futex_wait(), rfm__futex_bump_wake()...), and the local event
 * queue of a backend that receives on threads of its own
 * (rfm__localq_push(), RFM__LOCALQ_EV_OPS), the board table of a card's
 * controls (rfm_backend_ops.board), and word loads of a window its own
 * threads store to (rfm__copy_from_window()).
 */
#include "board.h"
#include "cpu-clock.h"
#include "futex.h"
#include "event-localq.h"
#include "window-load.h"

#endif /* RFM_BACKEND_H */
