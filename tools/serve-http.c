/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: the HTTP side, on libmicrohttpd. One polling thread serves
 * every connection (epoll); event streams wait suspended (serve-sse.c), so
 * an open page holds no thread and no request slot. Limits on connections
 * in all and by address (serve-conns.c: an address at its limit pushes out
 * its own idle or stalled connections), on the time to send a head, on the
 * head and the body. Every
 * request is checked before anything is read or written: a bad one gets
 * a 4xx with a JSON {"error": ...} and changes nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "os/tool-os.h"
#include "serve.h"

/* One request in progress: its body as it arrives. */
struct request {
	char body[SERVE_MAX_BODY + 1];
	size_t len;
	bool too_big;
	bool answered;		/* refused on its head: the rest is not looked at */
};

static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned int status,
				 const char *type, const void *data, size_t len)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	/* The page fetches nothing but from this server. */
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"rfm serve\"");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *conn, unsigned int status,
				 struct json_object *obj)
{
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN);
	enum MHD_Result ret = send_text(conn, status, "application/json", text, strlen(text));

	json_object_put(obj);
	return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, unsigned int status,
				  const char *message)
{
	struct json_object *o = json_object_new_object();

	cli_json_add_string(o, "error", message);
	return send_json(conn, status, o);
}

/* ---- query arguments: only those an endpoint knows ---- */

struct query {
	const char *allowed;	/* the one argument allowed, or NULL */
	const char *value;	/* its value */
	const char *unknown;	/* the first other argument */
	unsigned int seen;	/* times the allowed one came */
};

static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct query *q = cls;

	if (q->allowed && !strcmp(key, q->allowed)) {
		q->value = value ? value : "";
		q->seen++;
	} else if (!q->unknown) {
		q->unknown = key;
	}
	return MHD_YES;
}

/* Check the query of a GET: 0, or the 400 was sent (*@ret). */
static int check_query(struct MHD_Connection *conn, struct query *q, enum MHD_Result *ret)
{
	char msg[200];

	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, query_arg, q);
	if (q->unknown) {
		snprintf(msg, sizeof(msg), "unknown query argument '%.80s'", q->unknown);
		*ret = send_error(conn, MHD_HTTP_BAD_REQUEST, msg);
		return -1;
	}
	if (q->seen > 1) {
		snprintf(msg, sizeof(msg), "query argument '%s' given twice", q->allowed);
		*ret = send_error(conn, MHD_HTTP_BAD_REQUEST, msg);
		return -1;
	}
	return 0;
}

/* ---- the server-sent events stream (serve-sse.c) ---- */

static enum MHD_Result send_events(struct MHD_Connection *conn, struct serve *s)
{
	struct serve_conn *sc = serve_conn_of(conn);
	struct MHD_Response *r;
	enum MHD_Result ret;
	char msg[200];
	bool full;

	/* Half an address's connections at most: its requests keep the rest. */
	if (!serve_conn_stream_admit(s, sc)) {
		snprintf(msg, sizeof(msg),
			 "too many event streams from your address (%u, half of "
			 "--max-per-address): try again later",
			 serve_streams_per_address(s));
		return send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
	}
	r = serve_sse_open(s, conn, sc, &full);
	if (!r)
		serve_conn_stream_undo(sc);
	if (full) {
		snprintf(msg, sizeof(msg), "too many event streams (%u, --max-streams): try again later",
			 s->max_streams);
		return send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
	}
	if (!r)
		return send_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	/* A page in the background still reads; only a stuck reader is dropped. */
	MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT,
				  (unsigned int)SERVE_IDLE_TIMEOUT_S);
	/*
	 * A stream only ever wants the latest snapshot: a small send buffer
	 * makes a client that stops reading stall after a few snapshots
	 * instead of being pushed megabytes the kernel holds for it.
	 */
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	int sndbuf = SERVE_STREAM_SNDBUF;
	if (ci)
		setsockopt(ci->connect_fd, SOL_SOCKET, SO_SNDBUF, (const void *)&sndbuf,
			   sizeof(sndbuf));
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- reads ---- */

static enum MHD_Result get(struct MHD_Connection *conn, struct serve *s, const char *url)
{
	struct query q = { 0 };
	struct json_object *obj = NULL;
	enum MHD_Result ret;

	for (const struct serve_asset *a = serve_assets; a->path; a++)
		if (!strcmp(url, a->path)) {
			if (check_query(conn, &q, &ret))
				return ret;
			return send_text(conn, MHD_HTTP_OK, a->type, a->data, a->size);
		}
	if (!strcmp(url, "/api/vars")) {
		const char *bad = NULL;
		char msg[200];

		q.allowed = "names";
		if (check_query(conn, &q, &ret))
			return ret;
		if (q.seen && !q.value[0])
			return send_error(conn, MHD_HTTP_BAD_REQUEST, "names= is empty");
		pthread_mutex_lock(&s->lock);
		obj = serve_json_vars(s, q.seen ? q.value : NULL, &bad);
		pthread_mutex_unlock(&s->lock);
		if (!obj) {
			snprintf(msg, sizeof(msg), "no variable '%s' in the layout (or too many names)",
				 bad);
			return send_error(conn, MHD_HTTP_BAD_REQUEST, msg);
		}
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "vars", obj);
		return send_json(conn, MHD_HTTP_OK, o);
	}
	if (check_query(conn, &q, &ret))
		return ret;
	if (!strcmp(url, "/api/events"))
		return send_events(conn, s);
	if (!strcmp(url, "/metrics")) {
		pthread_mutex_lock(&s->lock);
		char *text = serve_metrics(s);
		pthread_mutex_unlock(&s->lock);
		if (!text)
			return send_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
		ret = send_text(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text,
				strlen(text));
		free(text);
		return ret;
	}
	static const struct {
		const char *path, *key;
		struct json_object *(*build)(struct serve *);
	} api[] = {
		{ "/api/nodes", "nodes", serve_json_nodes },
		{ "/api/rings", "regions", serve_json_rings },
		{ "/api/stats", NULL, serve_json_stats },
		{ "/api/hist", "bins", serve_json_hist },
		{ "/api/snapshot", NULL, serve_json_snapshot },
		{ "/api/server", NULL, serve_json_server },
	};
	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++)
		if (!strcmp(url, api[i].path)) {
			pthread_mutex_lock(&s->lock);
			obj = api[i].build(s);
			pthread_mutex_unlock(&s->lock);
			if (api[i].key) {
				struct json_object *o = json_object_new_object();
				json_object_object_add(o, api[i].key, obj);
				obj = o;
			}
			return send_json(conn, MHD_HTTP_OK, obj);
		}
	return send_error(conn, MHD_HTTP_NOT_FOUND, "no such page");
}

/* ---- writes ---- */

static enum MHD_Result set_var(struct MHD_Connection *conn, struct serve *s,
			       struct json_object *body)
{
	struct json_object *name, *value;
	struct serve_var *v;
	char msg[512];

	if (!json_object_object_get_ex(body, "name", &name) ||
	    !json_object_is_type(name, json_type_string) ||
	    !json_object_object_get_ex(body, "value", &value) || json_object_is_type(value, json_type_null) ||
	    json_object_is_type(value, json_type_object) || json_object_is_type(value, json_type_array))
		return send_error(conn, MHD_HTTP_BAD_REQUEST,
				  "the body must be {\"name\": NAME, \"value\": VALUE}");
	pthread_mutex_lock(&s->lock);
	v = serve_find_var(s, json_object_get_string(name));
	if (!v) {
		pthread_mutex_unlock(&s->lock);
		snprintf(msg, sizeof(msg), "no variable '%.200s' in the layout",
			 json_object_get_string(name));
		return send_error(conn, MHD_HTTP_NOT_FOUND, msg);
	}
	/* The library parses the text as the variable's type and checks its range. */
	if (rfm_var_set_text(v->var, json_object_get_string(value))) {
		snprintf(msg, sizeof(msg), "%s", rfm_last_error());
		pthread_mutex_unlock(&s->lock);
		return send_error(conn, MHD_HTTP_CONFLICT, msg);
	}
	struct json_object *names = NULL;
	const char *bad = NULL;
	names = serve_json_vars(s, v->info.name, &bad);
	pthread_mutex_unlock(&s->lock);
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "var", json_object_get(json_object_array_get_idx(names, 0)));
	json_object_put(names);
	return send_json(conn, MHD_HTTP_OK, o);
}

static enum MHD_Result send_event(struct MHD_Connection *conn, struct serve *s,
				  struct json_object *body)
{
	struct json_object *to, *type, *data = NULL;
	char msg[512];
	int64_t dest, word = 0;
	int t;

	if (!json_object_object_get_ex(body, "to", &to) ||
	    !json_object_object_get_ex(body, "type", &type) ||
	    !json_object_is_type(type, json_type_string) ||
	    (json_object_object_get_ex(body, "data", &data) && !json_object_is_type(data, json_type_int)))
		return send_error(conn, MHD_HTTP_BAD_REQUEST,
				  "the body must be {\"to\": NODE or \"all\", \"type\": TYPE, "
				  "\"data\": NUMBER}");
	if (json_object_is_type(to, json_type_string) && !strcmp(json_object_get_string(to), "all"))
		dest = RFM_NODE_ALL;
	else if (json_object_is_type(to, json_type_int) &&
		 (dest = json_object_get_int64(to)) >= 0 && dest < RFM_MAX_NODES)
		;
	else
		return send_error(conn, MHD_HTTP_BAD_REQUEST, "\"to\" must be a node id 0..255 or \"all\"");
	if (data && ((word = json_object_get_int64(data)) < 0 || word > UINT32_MAX))
		return send_error(conn, MHD_HTTP_BAD_REQUEST, "\"data\" must be 0..4294967295");
	t = rfm_event_type_parse(json_object_get_string(type));
	if (t < 0)
		return send_error(conn, MHD_HTTP_BAD_REQUEST,
				  "\"type\" must be intr1, intr2, intr3, intr4 or reset");
	pthread_mutex_lock(&s->lock);
	int n = rfm_event_send(s->cli->node, (unsigned int)dest, (unsigned int)t, (uint32_t)word);
	if (n < 0)
		snprintf(msg, sizeof(msg), "%s", rfm_last_error());
	pthread_mutex_unlock(&s->lock);
	if (n < 0)
		return send_error(conn, n == RFM_EINVAL ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_CONFLICT, msg);
	struct json_object *o = json_object_new_object();
	cli_json_add_int(o, "queued", n);
	return send_json(conn, MHD_HTTP_OK, o);
}

static enum MHD_Result post(struct MHD_Connection *conn, struct serve *s, const char *url,
			    struct request *req)
{
	bool known = !strcmp(url, "/api/vars") || !strcmp(url, "/api/send");
	struct json_object *body;
	struct query q = { 0 };
	enum MHD_Result ret;

	if (!known)
		return send_error(conn, MHD_HTTP_NOT_FOUND, "no such page");
	if (!s->allow_write)
		return send_error(conn, MHD_HTTP_FORBIDDEN,
				  "this server is read-only (start it with --allow-write)");
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	if (!auth)
		return send_error(conn, MHD_HTTP_UNAUTHORIZED,
				  "a write needs the header Authorization: Bearer TOKEN");
	if (!serve_token_matches(s, auth))
		return send_error(conn, MHD_HTTP_FORBIDDEN, "wrong token");
	if (req->too_big)
		return send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, "the body is too large");
	if (check_query(conn, &q, &ret))
		return ret;
	req->body[req->len] = '\0';
	if (strlen(req->body) != req->len)
		return send_error(conn, MHD_HTTP_BAD_REQUEST, "the body is not JSON");
	body = json_tokener_parse(req->body);
	if (!body || !json_object_is_type(body, json_type_object)) {
		json_object_put(body);
		return send_error(conn, MHD_HTTP_BAD_REQUEST, "the body is not a JSON object");
	}
	ret = url[5] == 'v' ? set_var(conn, s, body) : send_event(conn, s, body);
	json_object_put(body);
	return ret;
}

/* What the head says, counted for the checks below. */
struct head {
	size_t bytes;		/* of the header lines, about as they came */
	unsigned int hosts;	/* Host headers */
};

static enum MHD_Result head_line(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct head *h = cls;

	h->bytes += strlen(key) + (value ? strlen(value) : 0) + 4;
	if (!strcasecmp(key, "Host"))
		h->hosts++;
	return MHD_YES;
}

/*
 * The head as a whole: over SERVE_MAX_HEADERS is 431; two Host headers are
 * 400 (RFC 9112 section 3.2: a proxy and this server could read different
 * ones). 0, or the answer was queued (*@ret).
 */
static int check_head(struct MHD_Connection *conn, const char *url, enum MHD_Result *ret)
{
	struct head h = { .bytes = strlen(url) };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, head_line, &h);
	if (h.bytes > SERVE_MAX_HEADERS) {
		*ret = send_error(conn, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
				  "the request head is too large");
		return -1;
	}
	if (h.hosts > 1) {
		*ret = send_error(conn, MHD_HTTP_BAD_REQUEST, "more than one Host header");
		return -1;
	}
	return 0;
}

/* A path that climbs, or names a file by a back door, is refused outright. */
static bool bad_path(const char *url)
{
	return url[0] != '/' || strstr(url, "..") || strstr(url, "//") || strchr(url, '\\') ||
	       strstr(url, "%2e") || strstr(url, "%2E");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct serve *s = cls;
	struct request *req = *con_cls;

	if (!req) {
		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		*con_cls = req;
		enum MHD_Result ret;
		if (check_head(conn, url, &ret)) {
			req->answered = true;
			serve_conn_request(serve_conn_of(conn), true);
			return ret;
		}
		/* A declared length over the limit is refused before the body comes. */
		const char *length =
			MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
		if (length && strtoull(length, NULL, 10) > SERVE_MAX_BODY) {
			req->too_big = true;
			serve_conn_request(serve_conn_of(conn), true);
			return send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, "the body is too large");
		}
		/* The head is here; until the body is, the connection may be pushed out. */
		serve_conn_request(serve_conn_of(conn), false);
		return MHD_YES;
	}
	if (req->answered) {
		*upload_data_size = 0;	/* the answer is queued: the body is dropped */
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (req->len + *upload_data_size > SERVE_MAX_BODY)
			req->too_big = true;
		else
			memcpy(req->body + req->len, upload_data, *upload_data_size);
		if (!req->too_big)
			req->len += *upload_data_size;
		*upload_data_size = 0;
		return MHD_YES;
	}
	serve_conn_request(serve_conn_of(conn), true);
	if (!serve_host_allowed(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host"),
				__atomic_load_n(&s->port, __ATOMIC_ACQUIRE)))
		return send_error(conn, MHD_HTTP_FORBIDDEN,
				  "the Host header does not name this server (use localhost or "
				  "its address)");
	if (bad_path(url))
		return send_error(conn, MHD_HTTP_BAD_REQUEST, "bad path");
	if (!strcmp(method, MHD_HTTP_METHOD_POST))
		return post(conn, s, url, req);
	if (req->too_big)
		return send_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, "the body is too large");
	if (req->len)
		return send_error(conn, MHD_HTTP_BAD_REQUEST, "only a POST has a body");
	if (!strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD))
		return get(conn, s, url);
	return send_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET, HEAD and POST");
}

static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	free(*con_cls);
	*con_cls = NULL;
	serve_conn_idle(serve_conn_of(conn));
}

/*
 * Descriptors for the connection limit: the soft limit is raised to the
 * hard one (1024 by default would not hold a control room's pages), and
 * a few are kept for the node, the layout and libmicrohttpd itself.
 */
static unsigned int connection_limit(void)
{
	unsigned int n = SERVE_MAX_CONNECTIONS;
	uint64_t limit;

	if (tool_os_raise_open_files(&limit))
		return 64;
	if (limit < (uint64_t)n + 64)
		n = limit > 128 ? (unsigned int)limit - 64 : 64;
	return n;
}

struct MHD_Daemon *serve_http_start(struct serve *s, const char *bind, uint16_t port,
				    uint16_t *chosen)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr *addr;
	/* No MHD_USE_ERROR_LOG: a page closed mid-stream is normal, not news for stderr. */
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
			     MHD_ALLOW_SUSPEND_RESUME;
	struct MHD_Daemon *d;

	if (inet_pton(AF_INET, bind, &a4.sin_addr) == 1) {
		addr = (struct sockaddr *)&a4;
	} else if (inet_pton(AF_INET6, bind, &a6.sin6_addr) == 1) {
		addr = (struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	} else {
		cli_usage_error(s->cli, "--bind '%s' is not an IPv4 or IPv6 address", bind);
		return NULL;
	}
	/* Known before the first request when given; with 0, the chosen one is
	 * stored below, before the ready line tells any client where it is. */
	__atomic_store_n(&s->port, port, __ATOMIC_RELEASE);
	s->max_connections = connection_limit();
	if (s->per_address > s->max_connections / SERVE_GLOBAL_PER_ADDRESS) {
		cli_usage_error(s->cli,
				"--max-per-address %u is more than 1/%u of the %u connections "
				"this server can hold (RLIMIT_NOFILE): one address could take "
				"them all",
				s->per_address, SERVE_GLOBAL_PER_ADDRESS, s->max_connections);
		return NULL;
	}
	/* Per address: serve-conns.c, which pushes out instead of refusing. */
	d = MHD_start_daemon(flags, port, serve_conns_admit, s, handle, s,
			     MHD_OPTION_SOCK_ADDR, addr,
			     MHD_OPTION_CONNECTION_LIMIT, s->max_connections,
			     MHD_OPTION_NOTIFY_CONNECTION, serve_conns_notify, s,
			     /* Room to read a head past SERVE_MAX_HEADERS and answer 431. */
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HEAD_MEMORY,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_HEAD_TIMEOUT_S,
			     MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
			     MHD_OPTION_END);
	if (!d) {
		cli_error(s->cli, "cannot listen on %s port %u: %m", bind, (unsigned int)port);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	*chosen = info ? info->port : port;
	__atomic_store_n(&s->port, *chosen, __ATOMIC_RELEASE); /* request threads read it */
	return d;
}
