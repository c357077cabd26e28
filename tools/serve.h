/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: the state one server shares between its HTTP threads and the
 * sampler (cmd-serve.c), and the pieces that build its answers:
 * serve-state.c (what is read from the node), serve-json.c (the JSON API),
 * serve-metrics.c (Prometheus text), serve-http.c (routing and limits),
 * serve-sse.c (the event stream), serve-token.c (the write token),
 * serve-hist.c (ping's histogram file), serve-fresh.c (stale data),
 * serve-rings.c (the rings of the layout's regions), serve-conns.c
 * (connections by address, and eviction) and serve-assets.c (the page, generated from tools/serve/ at build time).
 */
#ifndef RFM_TOOLS_SERVE_H
#define RFM_TOOLS_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tool-net.h"	/* before microhttpd.h, which needs the socket types */
#include <microhttpd.h>

#include "cli.h"
#include "latency-hist.h"

/* Limits of one request: larger ones are refused and change nothing. */
#define SERVE_MAX_BODY 4096		/* bytes of a POST body (413 beyond) */
#define SERVE_MAX_HEADERS 8192		/* bytes of the request head (431 beyond) */
#define SERVE_HEAD_MEMORY (32 * 1024)	/* a connection's buffers: a larger head is read whole */
/*
 * Connections: no thread each (one polling thread, streams suspended
 * between snapshots), so the limits are about descriptors and fairness.
 * One address may hold SERVE_PER_ADDRESS of them (--max-per-address), so
 * that one host cannot take every one; a connection has SERVE_HEAD_TIMEOUT_S
 * to send its request head (a slow-head attack holds one for seconds only),
 * then SERVE_IDLE_TIMEOUT_S of no progress between requests or on a
 * stream nobody reads.
 */
#define SERVE_MAX_CONNECTIONS 4096	/* fewer when RLIMIT_NOFILE is lower */
#define SERVE_PER_ADDRESS 64
#define SERVE_MAX_STREAMS 1024		/* SSE clients (--max-streams), 503 beyond */
#define SERVE_HEAD_TIMEOUT_S 5
#define SERVE_IDLE_TIMEOUT_S 30
#define SERVE_STREAM_SNDBUF (32 * 1024)	/* bytes the kernel holds for a stream (twice this) */
/*
 * An address at its limit pushes out its own connection that has no whole
 * request, or a stream that has not taken data for this long while it had
 * some to take (serve-conns.c). Global limit: at least this many times one
 * address's.
 */
#define SERVE_STALL_S 2
#define SERVE_GLOBAL_PER_ADDRESS 8
#define SERVE_MAX_NAMES 1024		/* names in one /api/vars?names= */

/* A variable of the layout the server reads. */
struct serve_var {
	rfm_var *var;
	struct rfm_var_info info;
	/* With the layout's stale_after (serve-fresh.c): the last value and
	 * room for one new read (2 * info.size), when it last changed. */
	uint8_t *last;
	uint64_t changed_ns;
	bool seen;
};

/* A record of the layout, as serve-fresh.c watches its sequence word. */
struct serve_record {
	uint32_t writer;		/* its region's writer */
	uint32_t stale_after_ms;	/* the layout's, 0: none */
	uint32_t seq;			/* the sequence last seen */
	uint64_t changed_ns;		/* when it last advanced */
	bool seen;
};

struct serve {
	struct cli *cli;		/* its node is the server's own handle */
	pthread_mutex_t lock;		/* the library handles and the counters below */
	rfm_layout *layout;		/* NULL without --layout */
	struct serve_var *vars;
	size_t nvars;
	struct serve_record *records;	/* one per record of the layout */
	size_t nrecords;
	uint64_t received[32];		/* records taken by type, since the start */
	uint64_t start_ns;
	/* Snapshots for the SSE clients: the sampler replaces @frame. */
	struct serve_frame *frame;	/* the latest; NULL before the first */
	uint64_t generation;		/* counts snapshots */
	/* Writing: only with --allow-write, with this token. */
	bool allow_write;
	char token[65];
	/* The histogram of --hist FILE, read at start. */
	struct lhist_bin *hist;
	size_t nhist;
	const char *hist_path;
	uint16_t port;			/* the port it listens on (atomic: request threads read it) */
	unsigned int per_address;	/* connections one address may hold */
	unsigned int max_connections;	/* connections in all (set when listening) */
	struct serve_conns *conns;	/* by address (serve-conns.c; the HTTP thread's) */
	/* The event streams (serve-sse.c), under sse_lock. */
	pthread_mutex_t sse_lock;
	struct sse_client *sse_waiting;	/* suspended until the next snapshot */
	unsigned int sse_streams, max_streams;
	bool sse_stopping;
	struct serve_counts *counts;	/* by node and type (serve-counts.c) */
	/* The server watches the node table for changes (not with
	 * --no-monitor; serve_watch_nodes()), and beats when it holds an id. */
	bool monitor;
	/* It observes (observe=1): no node id, no queue, no events counted. */
	bool observer;
};

/* ---- serve-counts.c: counters by node and type, rates, record sequences ---- */

/* Allocate s->counts. 0 or -1 (no memory). */
int serve_counts_init(struct serve *s);
void serve_counts_free(struct serve *s);
/* Count one record taken from the server's queue. */
void serve_count_event(struct serve *s, const struct rfm_event *ev);
/* Take the events queued for the server's handle, counting them by type. */
void serve_take_events(struct serve *s);
/*
 * The server's monitor: a look at the node table (@rows, @n of them), each
 * sample; a node that went up or down since the last look (a restart
 * between two looks is both) is a change, counted and queued for the
 * stream, a down with its reason (left, crashed, silent...). The first
 * look's up nodes are seen, not changed: they count no "up". It only reads,
 * so an observer runs it as any server does.
 */
void serve_watch_nodes(struct serve *s, const struct rfm_node_status *rows, int n);
/* The node changes of @id into the node's JSON object @o (null without the monitor). */
void serve_node_changes_json(struct serve *s, unsigned int id, struct json_object *o);
/* Call @fn for every node the monitor reported, by id, with its counts. */
void serve_each_node_change(struct serve *s,
			    void (*fn)(void *arg, unsigned int node, uint64_t downs, uint64_t ups),
			    void *arg);
/* Down and up changes of all nodes since the start. */
void serve_node_change_totals(struct serve *s, uint64_t *downs, uint64_t *ups);
/* The node changes since the last call, as a JSON array (the caller puts it). */
struct json_object *serve_take_node_changes(struct serve *s);
/* Recompute the rates from the deltas when a second has passed since the last time. */
void serve_update_rates(struct serve *s, uint64_t now_ns);
/* Call @fn for every (node, type) with a count, in node then type order. */
void serve_each_count(struct serve *s,
		      void (*fn)(void *arg, unsigned int node, const char *type, uint64_t count,
				 double rate),
		      void *arg);
/* The name and sequence word of record @index of s->layout. 0 or -1. */
int serve_record_seq(struct serve *s, size_t index, const char **name, uint32_t *seq);

/* ---- serve-conns.c: connections by address, eviction (the HTTP thread only) ---- */

struct serve_conn;

/* Allocate s->conns. 0 or -1 (no memory). */
int serve_conns_init(struct serve *s);
void serve_conns_free(struct serve *s);
/* libmicrohttpd's accept policy: room for @addr, made by eviction if need be. */
enum MHD_Result serve_conns_admit(void *cls, const struct sockaddr *addr, socklen_t len);
/* libmicrohttpd's connection notices. */
void serve_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			enum MHD_ConnectionNotificationCode code);
/* The table's entry of @conn, or NULL (untracked). */
struct serve_conn *serve_conn_of(struct MHD_Connection *conn);
/* A request's head came (@whole: and its body: it is being answered). */
void serve_conn_request(struct serve_conn *c, bool whole);
/* The request was answered: the connection waits for the next. */
void serve_conn_idle(struct serve_conn *c);
/* May @c become an event stream (its address holds half its limit at most,
 * a stalled stream of it pushed out if need be)? Counts it if so. */
bool serve_conn_stream_admit(struct serve *s, struct serve_conn *c);
/* The stream was not opened after all (the global cap, no memory). */
void serve_conn_stream_undo(struct serve_conn *c);
/* The stream took data (@blocked: it has more in flight), or waits for a snapshot. */
void serve_conn_stream_read(struct serve_conn *c, bool blocked);
/* Streams one address may hold: half its connections. */
unsigned int serve_streams_per_address(const struct serve *s);
/* Connections evicted (no whole request; a stalled stream) and refused so far. */
void serve_conns_counts(struct serve *s, uint64_t *no_request, uint64_t *stalled_stream,
			uint64_t *refused);

/* ---- serve-host.c ---- */

/* Whether a request's Host header names this server in a way DNS cannot
 * rebind: localhost or an IP literal, with @port if it has a port. */
bool serve_host_allowed(const char *host, uint16_t port);

/* ---- serve-state.c: reading the node (callers hold s->lock) ---- */

/* Open a handle on every variable of s->layout. 0 or an exit code. */
int serve_open_vars(struct serve *s);
void serve_close_vars(struct serve *s);

/* The variable named @name, or NULL. */
struct serve_var *serve_find_var(struct serve *s, const char *name);

/*
 * The value of @v as JSON (number, bool, string, hex, array); @number gets
 * the numeric value of a numeric scalar (else NAN). NULL on a read error.
 */
struct json_object *serve_var_value(struct serve *s, struct serve_var *v, double *number);

/* Whether the numeric @value lies outside the variable's min/max. */
bool serve_out_of_range(const struct serve_var *v, double value);

/*
 * A node is up when it is attached and, if it beats, beats within its
 * misses: a node that runs no health monitor is up while attached.
 */
bool serve_node_up(const struct rfm_node_status *r);

/*
 * What the page and /metrics say of a node, from the library's state
 * (enum rfm_node_state): up (beating within its misses), attached but
 * running no health monitor (nothing says whether it works), silent (its
 * beats stopped without a goodbye), left (it closed: not a fault), crashed
 * (its process died without closing). Ids not in the node table are
 * SERVE_NODE_ABSENT.
 */
enum serve_node_state {
	SERVE_NODE_ABSENT,
	SERVE_NODE_UP,
	SERVE_NODE_NO_HEARTBEAT,
	SERVE_NODE_SILENT,
	SERVE_NODE_LEFT,
	SERVE_NODE_CRASHED,
	SERVE_NODE_STATES
};

enum serve_node_state serve_node_state(const struct rfm_node_status *r);
/* "up", "no_heartbeat", "silent", "left", "crashed", "absent". */
const char *serve_node_state_name(enum serve_node_state state);
/* Whether @state calls for an operator: silent or crashed (not left). */
bool serve_node_down(enum serve_node_state state);
/* The state of every node id, from one read of the node table. */
void serve_node_states(struct serve *s, uint8_t states[RFM_MAX_NODES]);
/*
 * Whether data written by node @writer is stale: its writer is down or
 * not on the network. A writer that is attached without a heartbeat is
 * taken at its word (fresh): nothing says it stopped. The rule of
 * rfm_var_stale(), applied to one read of the node table for every
 * variable of a snapshot (that call reads the table each time).
 */
bool serve_writer_stale(const uint8_t states[RFM_MAX_NODES], uint32_t writer);

/* ---- serve-fresh.c: stale data (callers hold s->lock) ---- */

/* Watch what the layout gives a stale_after, and every record. 0 or an exit code. */
int serve_fresh_init(struct serve *s);
void serve_fresh_free(struct serve *s);
/* The sampler's look at every watched value and sequence word. */
void serve_fresh_sample(struct serve *s, uint64_t now_ns);

struct serve_reason {
	char text[48];
};
/*
 * Why a variable (a record) is stale: "writer down", "not written for
 * N.N s" (its stale_after passed with no change, or no publish); NULL
 * when it is fresh. The text may be in @out.
 */
const char *serve_var_stale(const struct serve_var *v, const uint8_t states[RFM_MAX_NODES],
			    uint64_t now_ns, struct serve_reason *out);
const char *serve_record_stale(const struct serve *s, size_t index,
			       const uint8_t states[RFM_MAX_NODES], uint64_t now_ns,
			       struct serve_reason *out);

/* ---- serve-json.c: the JSON API (callers hold s->lock) ---- */

struct json_object *serve_json_nodes(struct serve *s);
/* @names: comma list or NULL for all. NULL after setting *@bad to the bad name. */
struct json_object *serve_json_vars(struct serve *s, const char *names, const char **bad);
struct json_object *serve_json_stats(struct serve *s);
/* Counters and rates by node and type; the layout's records' sequences. */
struct json_object *serve_json_events(struct serve *s);
struct json_object *serve_json_records(struct serve *s);
struct json_object *serve_json_hist(struct serve *s);
/* What the page's header shows: network URI, node, host, layout name, --hist file. */
struct json_object *serve_json_server(struct serve *s);
/* Everything the page shows: nodes, stats, vars, as one object. */
struct json_object *serve_json_snapshot(struct serve *s);

/* ---- serve-rings.c (callers hold s->lock) ---- */

#define SERVE_RING_VIEWS 64	/* consumers shown per ring (the count says all) */

struct serve_ring {
	struct rfm_ring_info info;
	struct rfm_ring_consumer_view views[SERVE_RING_VIEWS];
	size_t count;		/* consumers registered */
};

/* The ring in @region, if there is a valid one. */
bool serve_ring_look(struct serve *s, const struct rfm_region_info *region, struct serve_ring *r);
/* The layout's regions, each with its ring or null. */
struct json_object *serve_json_rings(struct serve *s);

/* ---- serve-metrics.c ---- */

/* The Prometheus text exposition of the node (malloc'd; NULL: no memory). */
char *serve_metrics(struct serve *s);

/* ---- serve-token.c ---- */

/* Fill s->token with 64 hex digits from getrandom(). 0 or -1 (errno). */
int serve_make_token(struct serve *s);

/* Whether the Authorization header value @auth is "Bearer " + the token. */
bool serve_token_matches(const struct serve *s, const char *auth);

/* ---- serve-hist.c ---- */

/* Read ping's --hist-csv FILE (lhist_read_csv()). 0 or an exit code. */
int serve_load_hist(struct serve *s, const char *path);

/* ---- serve-sse.c ---- */

struct MHD_Connection;
struct MHD_Response;

/*
 * One snapshot as the event a stream sends, made once by the sampler and
 * shared by every stream that has not sent it yet (a thousand clients do
 * not make a thousand copies). Counted references, under s->lock.
 */
struct serve_frame {
	unsigned int refs;
	size_t len;
	char text[];
};

/*
 * Make @json the latest frame (s->lock held), after one "node" event per
 * element of @changes (may be NULL). -1: no memory, the old one stays.
 */
int serve_sse_publish(struct serve *s, const char *json, struct json_object *changes);
void serve_frame_put(struct serve *s, struct serve_frame *f);

/* The response of a new stream on @conn (tracked as @sc); NULL with *@full
 * at the cap, or no memory. */
struct MHD_Response *serve_sse_open(struct serve *s, struct MHD_Connection *conn,
				    struct serve_conn *sc, bool *full);
/* After a new snapshot: resume the streams waiting for it. */
void serve_sse_wake(struct serve *s);
/* Before the daemon stops: end every stream. */
void serve_sse_stop(struct serve *s);

/* ---- serve-http.c ---- */

struct MHD_Daemon;

/* Start listening on @bind:@port (0: any free port); NULL after reporting. */
struct MHD_Daemon *serve_http_start(struct serve *s, const char *bind, uint16_t port,
				    uint16_t *chosen);

/* ---- serve-assets.c (generated) ---- */

struct serve_asset {
	const char *path;		/* "/", "/app.js" */
	const char *type;		/* Content-Type */
	const unsigned char *data;
	size_t size;
};

extern const struct serve_asset serve_assets[];	/* ends with a NULL path */

#endif /* RFM_TOOLS_SERVE_H */
