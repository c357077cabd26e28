/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private declarations shared by the library's source files: the node
 * structure, the backend ops table, the parsed URI and error helpers.
 * Nothing here is exported (the library is built with -fvisibility=hidden).
 */
#ifndef RFM_INTERNAL_H
#define RFM_INTERNAL_H

#include <stdbool.h>
#include <rfm/rfm.h>

#define RFM_LIKELY(x) __builtin_expect(!!(x), 1)
#define RFM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RFM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors (error.c) ---- */

/*
 * Record a detailed message for rfm_last_error() and return @code, so that
 * failure paths read "return rfm__error(RFM_ERANGE, "...", ...);".
 * Cold: it is never on a successful path.
 */
__attribute__((cold, format(printf, 2, 3)))
int rfm__error(int code, const char *fmt, ...);

/* Map an errno value from a failed system call to an rfm_error code. */
int rfm__errno_code(int err);

/* ---- small shared helpers (util.c) ---- */

/*
 * The versioned structs of the API (struct_size, a uint32_t, first; the
 * caller's may be older and smaller): @fn's check that @obj and @st are
 * given and that the caller's @struct_size reaches @min_size, the end of
 * the fields every version has. 0, or RFM_EINVAL with a message naming @fn.
 */
int rfm__sized_check(const char *fn, const void *obj, const void *st, uint32_t struct_size,
		     size_t min_size);

/*
 * Copy @full (@full_size bytes, struct_size first) into @out as far as the
 * caller's struct_size (an older, smaller struct) holds, and say in @out's
 * struct_size how much that was.
 */
void rfm__sized_fill(void *out, void *full, size_t full_size);

/* Grow *@arrayp (*@cap elements of @size, @count used) so one more fits. 0 or RFM_ENOMEM. */
int rfm__grow(void *arrayp, size_t *cap, size_t count, size_t size);

/* True when the @len bytes at @p are all zero. */
bool rfm__all_zero(const void *p, size_t len);

/* ---- URIs (uri.c) ---- */

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

int rfm__uri_parse(const char *text, struct rfm_uri *uri);
void rfm__uri_free(struct rfm_uri *uri);
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
/* The URI to open for a NULL/empty argument: $RFM_URI or the default. */
const char *rfm__default_uri(const char *uri);

/* ---- events (event*.c and the backends) ---- */

/* A record as a backend queues it; the core adds the sequence number. */
struct rfm_ev_record {
	uint32_t type;
	uint32_t sender;
	uint32_t data;
	uint64_t sent_ns;
};

/* The core's per-handle event state (event-core.h). */
struct rfm_events;

/* ---- health (health*.c and the backends) ---- */

/* What a backend knows of a node id besides its heartbeat slot (which
 * is in the window, health-table.h): shm: knows who holds each id. */
struct rfm_node_facts {
	bool attached;
	uint32_t incarnation;
	int32_t pid;
};

struct rfm_health;
struct rfm_hb_seen;

/* node->hb_offset when the URI has no heartbeat=: the window's end. */
#define RFM__HB_DEFAULT UINT64_MAX

/* ---- backends ---- */

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
	 * the backend reads node->rt at open and does it. */
	RFM__CAP_HUGE_WINDOW = 1u << 1,
};

/*
 * Network interrupts, one table per backend, grouped so that only the
 * event code (event*.c) reaches them. Each op is optional: without send
 * or attach the core answers RFM_ENOTSUP; the core does numbering, overflow
 * announcements, waiting policy, cancel, callbacks and the pollable
 * fd itself, so a backend only moves records and sleeps.
 */
struct rfm_backend_ev_ops {
	/* Deliver @rec to node @to (0..255 or RFM_NODE_ALL; range, type and
	 * self-without-loopback already checked). Returns the number of
	 * receiving queues that took it, or RFM_ENODE. Lock-free. The core
	 * leaves rec->sent_ns 0: the backend reads the clock (rfm__now_ns())
	 * as late as it likes, e.g. while a cache line it will write is on
	 * its way, and uses one time for every receiver. */
	int (*send)(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec);
	/* Is node @id attached to the network? (optional) */
	bool (*node_attached)(struct rfm_node *node, unsigned int id);
	/* Give the handle a receiving queue; *depth = its capacity. */
	int (*attach)(struct rfm_node *node, uint32_t *depth);
	/* Which types the handle's queue takes (RFM_EVENT_BIT mask). */
	void (*set_mask)(struct rfm_node *node, uint32_t mask);
	/* Take up to @max records without blocking. Calls are serialised by
	 * the core; ready may run concurrently from another thread. With
	 * @max 0, the core is about to sleep: do any housekeeping. */
	unsigned int (*take)(struct rfm_node *node, struct rfm_ev_record *recs, unsigned int max);
	/* Records lost to this handle so far (monotonic): full queue, and
	 * anything the backend had to skip. */
	uint64_t (*dropped)(struct rfm_node *node);
	/* Is a record ready to take? Cheap: it is what spinning waits poll. */
	bool (*ready)(struct rfm_node *node);
	/* Records queued now (approximate). */
	uint64_t (*queued)(struct rfm_node *node);
	/* Sleeping without lost wake-ups: sleep_prepare registers the
	 * caller as a sleeper and returns a token; the caller re-checks its
	 * conditions, calls sleep (which returns early when anything was
	 * sent, wake was called, or at @deadline_ns, CLOCK_MONOTONIC, 0 =
	 * none, or whenever the backend wants a re-check), then always
	 * sleep_finish. */
	uint32_t (*sleep_prepare)(struct rfm_node *node);
	void (*sleep)(struct rfm_node *node, uint32_t token, uint64_t deadline_ns);
	void (*sleep_finish)(struct rfm_node *node);
	/* Wake every sleeper of the handle's queue. */
	void (*wake)(struct rfm_node *node);
	/* The memory of the handle's queue, to prefault and lock (optional). */
	void (*queue_memory)(struct rfm_node *node, void **addr, size_t *len);
};

struct rfm_backend_board_ops;

struct rfm_backend_ops {
	const char *scheme; /* "shm", "dev", "rfm2g" */
	unsigned int caps; /* enum rfm_backend_caps bits */
	/* Attach @node to the network named by @uri: fill base, size, id. */
	int (*open)(struct rfm_node *node, struct rfm_uri *uri);
	/* Detach and release the backend's private state; never fails. */
	void (*close)(struct rfm_node *node);
	/* Fill backend-specific parts of @info (optional). */
	void (*get_info)(const struct rfm_node *node, struct rfm_node_info *info);
	/* Remove the network (optional: NULL means RFM_ENOTSUP). */
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
	 * Health (optional). node_facts fills what the backend knows of node
	 * @id (without it, the heartbeat slots alone say who is there).
	 * node_alive says whether @id is held by a live process with
	 * @incarnation. link_status: this node's card now, RFM_LINK_* bits
	 * (0: the card has no status).
	 */
	int (*node_facts)(struct rfm_node *node, unsigned int id, struct rfm_node_facts *facts);
	bool (*node_alive)(struct rfm_node *node, unsigned int id, uint32_t incarnation);
	uint32_t (*link_status)(struct rfm_node *node);

	/*
	 * Bulk transfer by the hardware (DMA), optional: called by
	 * rfm_mem_read/write after their checks. Returns 1 when it moved the
	 * data, 0 to let the core copy through the mapping, or an error.
	 */
	int (*mem_bulk)(struct rfm_node *node, uint64_t offset, void *buf, size_t len,
			bool to_window);

	/* Board controls of a card (board.h), for librfm2g; NULL: none. */
	const struct rfm_backend_board_ops *board;
	/*
	 * Replication by software (optional): after the library stored
	 * [offset, offset+len) of the window (rfm_mem_write, pokes, typed
	 * sets, records, rings, rfm_mem_flush), send it to the other nodes,
	 * in order with everything else the handle sent. NULL where the
	 * hardware replicates every store (shm:, dev:, rfm2g:).
	 */
	int (*publish)(struct rfm_node *node, uint64_t offset, uint64_t len);
};

extern const struct rfm_backend_ops rfm__shm_ops;
extern const struct rfm_backend_ops rfm__rfm2g_ops;
extern const struct rfm_backend_ops rfm__dev_ops;
#ifdef HAVE_DDS
extern const struct rfm_backend_ops rfm__dds_ops;
#endif

/*
 * The node handle. base and size come first: every memory access reads
 * them and nothing else.
 */
struct rfm_node {
	uint8_t *base;		/* mapped window */
	uint64_t size;		/* window size in bytes */
	int id;			/* node id 0..255 */
	uint32_t incarnation;	/* attaches of this id, this one included */
	const struct rfm_backend_ops *ops;
	void *priv;		/* backend state */
	char *uri;		/* canonical URI */
	bool forked;		/* inherited through fork(): the parent owns the id */
	struct rfm_node *next_open; /* registry of open nodes (node-registry.c) */
	bool loopback;		/* may send to its own node id */
	int64_t spin_ns;	/* spin of a blocking wait; -1: never sleep */
	struct rfm_events *ev;	/* event state, from rfm_open() to rfm_close() */
	struct rfm_health *health; /* heartbeat thread, or NULL */
	uint64_t hb_offset;	/* heartbeat table (URI heartbeat=), RFM__HB_DEFAULT: the end */
	uint32_t hb_incarnation; /* written into our slot; 0 until the first beat */
	struct rfm_hb_seen *hb_seen; /* readers' view of the slots (health.c), or NULL */
	uint64_t ev_sent;	/* events this handle sent (relaxed atomic) */
	struct rfm_rt_opts *rt;	/* prefault/lock/scheduling (rt-internal.h), or NULL */
};

/*
 * After a library store of @len bytes at @p in the window: replicate it
 * where software must (the dds: backend). One predictable branch on the
 * backends whose hardware does it. 0, or the backend's error.
 */
static inline int rfm__published(struct rfm_node *node, const void *p, uint64_t len)
{
	if (RFM_LIKELY(!node->ops->publish))
		return 0;
	return node->ops->publish(node, (uint64_t)((const uint8_t *)p - node->base), len);
}

/*
 * Every descriptor the library opens goes through this: one on 0-2 (the
 * caller runs with stdin, stdout or stderr closed) is moved to 3 or above,
 * close-on-exec. Returns the descriptor to use, or -1 with errno.
 */
int rfm__fd_keep_off_std(int fd);

/* ---- open nodes, for fork handling (node-registry.c) ---- */

void rfm__node_register(struct rfm_node *node);
void rfm__node_unregister(struct rfm_node *node);

/* event.c: the URI's event options (loopback, spin), taken before the
 * backend sees the URI; then the handle's event state, made before the
 * backend opens (its receive threads may offer records at once) and freed
 * after it closed (rfm__event_free). */
int rfm__event_options(struct rfm_node *node, struct rfm_uri *uri);
int rfm__event_init(struct rfm_node *node);
/* Stop threads, wake waiters; false when the close must finish later
 * (called from the handle's own callback: the dispatcher finishes it). */
bool rfm__event_close(struct rfm_node *node);
void rfm__event_free(struct rfm_node *node);
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
/* health.c: stop the heartbeat thread before the handle goes. */
void rfm__health_close(struct rfm_node *node);
/* Process-wide counters (counters.c). */
void rfm__count_record_retry(uint64_t n);
uint64_t rfm__counted_ring_lost(void);
uint64_t rfm__counted_record_retries(void);
/* node.c: detach from the backend and free the handle. */
void rfm__node_free(struct rfm_node *node);

#endif /* RFM_INTERNAL_H */
