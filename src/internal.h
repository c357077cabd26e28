/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private declarations shared by the library's core files: error and
 * small helpers, the parsed URI, and the core's side of opening, events,
 * health and counters. The backend contract (the ops tables, the node
 * handle, what a backend may touch) is backend.h, included here because
 * the core is the contract's other side. Nothing here is exported (the
 * library is built with -fvisibility=hidden).
 */
#ifndef RFM_INTERNAL_H
#define RFM_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <rfm/rfm.h>

#include "backend.h"

/* ---- errors, URIs, threads: backend.h, the core lending them to backends ---- */

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

/* ---- URIs (uri.c) ---- */

int rfm__uri_parse(const char *text, struct rfm_uri *uri);
void rfm__uri_free(struct rfm_uri *uri);
/* The URI to open for a NULL/empty argument: $RFM_URI or the default. */
const char *rfm__default_uri(const char *uri);

/* ---- the core's side of a handle ---- */

struct rfm_events;		/* event-core.h: the core's event state */
struct rfm_health;		/* health.c: the heartbeat thread */
struct rfm_hb_seen;		/* health.c: readers' view of the slots */
struct rfm_rt_opts;		/* rt-internal.h: prefault/lock/scheduling */

/* The core's own state of a handle, which backends do not see (backend.h). */
struct rfm_node_core {
	struct rfm_node *next_open; /* registry of open nodes (node-registry.c) */
	struct rfm_events *ev;	/* event state, from rfm_open() to rfm_close() */
	struct rfm_health *health; /* heartbeat thread, or NULL */
	uint64_t hb_offset;	/* heartbeat table (URI heartbeat=), RFM__HB_DEFAULT: the end */
	uint32_t hb_incarnation; /* written into our slot; 0 until the first beat */
	struct rfm_hb_seen *hb_seen; /* readers' view of the slots (health.c), or NULL */
	uint64_t ev_sent;	/* events this handle sent (relaxed atomic) */
	struct rfm_rt_opts *rt;	/* prefault/lock/scheduling (rt-internal.h), or NULL */
};

/* A handle as node.c allocates it: what backends see, then the core's own. */
struct rfm_node_alloc {
	struct rfm_node node;
	struct rfm_node_core core;
};

/* The core's part of @node: at a fixed offset, so no load (the node is
 * the first member of its allocation, so the cast is the allocation). */
static inline struct rfm_node_core *rfm__core(const struct rfm_node *node)
{
	return &((struct rfm_node_alloc *)(uintptr_t)node)->core;
}

/* core->hb_offset when the URI has no heartbeat=: the window's end. */
#define RFM__HB_DEFAULT UINT64_MAX

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

/* Open nodes, for fork handling (node-registry.c). */
void rfm__node_register(struct rfm_node *node);
void rfm__node_unregister(struct rfm_node *node);

/* event.c: the URI's event options (loopback, spin), taken before the
 * backend sees the URI; then the handle's event state, made before the
 * backend opens (its receive threads may offer records at once) and freed
 * after it closed (rfm__event_free). */
/*
 * node-attach.c: observe=, tool= and rfm_open_options::attach into
 * node->observer and node->tool (before the backend's open); the mode as
 * RFM_ATTACH_*; and RFM_EPERM with the message an observer's refused call
 * @what gets.
 */
struct rfm_open_options;
int rfm__attach_options(struct rfm_node *node, struct rfm_uri *uri,
			const struct rfm_open_options *options);
uint32_t rfm__attach_mode(const struct rfm_node *node);
__attribute__((cold)) int rfm__observer_refused(const struct rfm_node *node, const char *what);

int rfm__event_options(struct rfm_node *node, struct rfm_uri *uri);
int rfm__event_init(struct rfm_node *node);
/* Stop threads, wake waiters; false when the close must finish later
 * (called from the handle's own callback: the dispatcher finishes it and
 * then frees the handle with @free_node, lent by the caller because the
 * event files sit below the one that opens and frees handles). */
bool rfm__event_close(struct rfm_node *node, void (*free_node)(struct rfm_node *node));
void rfm__event_free(struct rfm_node *node);
/* health.c: stop the heartbeat thread before the handle goes. */
void rfm__health_close(struct rfm_node *node);
/* Process-wide counters (counters.c). */
void rfm__count_record_retry(uint64_t n);
uint64_t rfm__counted_ring_lost(void);
uint64_t rfm__counted_record_retries(void);

#endif /* RFM_INTERNAL_H */
