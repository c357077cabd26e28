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

/* ---- URIs (uri.c) ---- */

#define RFM_URI_MAX_PARAMS 8

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
/* RFM_EURI naming the first parameter no backend consumed, or 0. */
int rfm__uri_check_all_used(const struct rfm_uri *uri);
/* Strict unsigned parsing in C notation (decimal, 0x hex, 0 octal). */
int rfm__parse_u64(const char *text, uint64_t *value);
/* As above, with an optional K/M/G suffix (powers of 1024). */
int rfm__parse_size(const char *text, uint64_t *value);
/* The URI to open for a NULL/empty argument: $RFM_URI or the default. */
const char *rfm__default_uri(const char *uri);

/* ---- backends ---- */

struct rfm_backend_ops {
	const char *scheme; /* "shm", "dev", "rfm2g" */
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
};

extern const struct rfm_backend_ops rfm__shm_ops;

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
};

/* ---- open nodes, for fork handling (node-registry.c) ---- */

void rfm__node_register(struct rfm_node *node);
void rfm__node_unregister(struct rfm_node *node);

#endif /* RFM_INTERNAL_H */
