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
#include <rfm/rfm.h>

#include "backend.h"

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

/* ---- errors (error.c) ---- */

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

/* ---- the core's side of a handle ---- */

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
