/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: who holds the connections, and whom a new one pushes out.
 *
 * The server binds 127.0.0.1 by default, so every browser and scraper on
 * the host shares one client address with any local process. Refusing an
 * address at its limit (--max-per-address) would let one local process
 * that opens half-finished requests or streams it never reads take that
 * address for everyone. So at the limit a new connection evicts, in this
 * order, that address's connection that has waited longest for its next
 * request (a head or a body not sent whole: slowloris, an idle keep-alive,
 * a body trickling in), or an event stream that has not taken data for
 * SERVE_STALL_S while there was some to take; only when there is neither
 * is it refused. An address holds at most half its limit in streams
 * (serve_conn_stream_admit()), so requests always find room. A connection
 * is evicted by shutting its socket down: libmicrohttpd sees the end on
 * its next poll and closes it as any other.
 *
 * Every function here runs on libmicrohttpd's one polling thread (accept
 * policy, connection notices, request callbacks, stream reads), so the
 * table needs no lock.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "serve.h"

#define ADDR_BUCKETS 1024u

/* One client address: its connections, newest first. */
struct serve_addr {
	uint8_t key[16];	/* IPv6, or IPv4 mapped into it */
	unsigned int live;	/* connections not evicted */
	unsigned int streams;	/* of them, event streams */
	struct serve_conn *conns;
	struct serve_addr *next;	/* in its bucket */
};

enum conn_phase {
	CONN_WAIT_REQUEST,	/* no head yet, or idle between requests */
	CONN_READ_BODY,		/* head taken, body not whole yet */
	CONN_ANSWERING,		/* the request is being answered */
};

struct serve_conn {
	struct serve_addr *addr;
	MHD_socket fd;
	enum conn_phase phase;
	uint64_t since_ns;	/* when the phase began */
	bool stream;		/* an /api/events stream */
	bool evicted;
	uint64_t read_ns;	/* stream: when it last took data or waited for it */
	bool blocked;		/* stream: it has data to take (not waiting for a snapshot) */
	struct serve_conn *next;	/* in its address's list */
};

struct serve_conns {
	struct serve_addr *buckets[ADDR_BUCKETS];
	uint64_t evicted_no_request, evicted_stalled, refused;
};

int serve_conns_init(struct serve *s)
{
	s->conns = calloc(1, sizeof(*s->conns));
	return s->conns ? 0 : -1;
}

void serve_conns_free(struct serve *s)
{
	if (!s->conns)
		return;
	for (unsigned int b = 0; b < ADDR_BUCKETS; b++)
		while (s->conns->buckets[b]) {
			struct serve_addr *a = s->conns->buckets[b];

			s->conns->buckets[b] = a->next;
			while (a->conns) {
				struct serve_conn *c = a->conns;

				a->conns = c->next;
				free(c);
			}
			free(a);
		}
	free(s->conns);
	s->conns = NULL;
}

/* The address as a 16-byte key; false for a family that is neither. */
static bool addr_key(const struct sockaddr *sa, socklen_t len, uint8_t key[16])
{
	memset(key, 0, 16);
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return true;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return true;
	}
	return false;
}

static unsigned int bucket_of(const uint8_t key[16])
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % ADDR_BUCKETS;
}

static struct serve_addr *find_addr(struct serve_conns *t, const uint8_t key[16], bool make)
{
	unsigned int b = bucket_of(key);
	struct serve_addr *a;

	for (a = t->buckets[b]; a; a = a->next)
		if (!memcmp(a->key, key, 16))
			return a;
	if (!make || !(a = calloc(1, sizeof(*a))))
		return NULL;
	memcpy(a->key, key, 16);
	a->next = t->buckets[b];
	t->buckets[b] = a;
	return a;
}

static void drop_addr(struct serve_conns *t, struct serve_addr *a)
{
	for (struct serve_addr **p = &t->buckets[bucket_of(a->key)]; *p; p = &(*p)->next)
		if (*p == a) {
			*p = a->next;
			free(a);
			return;
		}
}

static bool stalled(const struct serve_conn *c, uint64_t now)
{
	return c->stream && c->blocked && now - c->read_ns >= SERVE_STALL_S * 1000000000ull;
}

static void evict(struct serve_conn *c)
{
	c->evicted = true;
	c->addr->live--;
	if (c->stream)
		c->addr->streams--;
	/* Not close(): the descriptor stays libmicrohttpd's until it closes it. */
	shutdown(c->fd, SHUT_RDWR);
}

/*
 * The connection @a can best do without (see the top of the file), or
 * NULL; *@stalled_pick says which kind it is. With @streams_only, only a
 * stalled stream will do (room for a stream, not for a connection).
 */
static struct serve_conn *victim(struct serve_addr *a, bool streams_only, uint64_t now,
				 bool *stalled_pick)
{
	struct serve_conn *best = NULL;

	*stalled_pick = false;
	for (struct serve_conn *c = a->conns; c && !streams_only; c = c->next)
		if (!c->evicted && c->phase != CONN_ANSWERING &&
		    (!best || c->since_ns < best->since_ns))
			best = c;
	if (best)
		return best;
	*stalled_pick = true;
	for (struct serve_conn *c = a->conns; c; c = c->next)
		if (!c->evicted && stalled(c, now) && (!best || c->read_ns < best->read_ns))
			best = c;
	return best;
}

/* Make room for one more connection (or stream) of @a: true when there is. */
static bool make_room(struct serve *s, struct serve_addr *a, bool stream)
{
	struct serve_conns *t = s->conns;
	struct serve_conn *c;
	bool stalled_pick;

	if (stream ? a->streams < serve_streams_per_address(s) : a->live < s->per_address)
		return true;
	c = victim(a, stream, rfm_event_now_ns(), &stalled_pick);
	if (!c) {
		t->refused++;
		return false;
	}
	evict(c);
	if (stalled_pick)
		t->evicted_stalled++;
	else
		t->evicted_no_request++;
	return true;
}

enum MHD_Result serve_conns_admit(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct serve *s = cls;
	uint8_t key[16];
	struct serve_addr *a;

	if (!addr_key(addr, len, key))
		return MHD_NO;
	a = find_addr(s->conns, key, false);
	return !a || make_room(s, a, false) ? MHD_YES : MHD_NO;
}

void serve_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			enum MHD_ConnectionNotificationCode code)
{
	struct serve *s = cls;
	struct serve_conn *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ca =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		uint8_t key[16];
		struct serve_addr *a;

		*socket_context = NULL;
		if (!fd || !ca || !ca->client_addr ||
		    !addr_key(ca->client_addr, sizeof(struct sockaddr_in6), key) ||
		    !(a = find_addr(s->conns, key, true)) || !(c = calloc(1, sizeof(*c)))) {
			/* Untracked, it can never be evicted: let it go now instead. */
			if (fd)
				shutdown(fd->connect_fd, SHUT_RDWR);
			return;
		}
		c->addr = a;
		c->fd = fd->connect_fd;
		c->phase = CONN_WAIT_REQUEST;
		c->since_ns = rfm_event_now_ns();
		c->next = a->conns;
		a->conns = c;
		a->live++;
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	struct serve_addr *a = c->addr;
	for (struct serve_conn **p = &a->conns; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	if (!c->evicted) {
		a->live--;
		if (c->stream)
			a->streams--;
	}
	free(c);
	*socket_context = NULL;
	if (!a->conns)
		drop_addr(s->conns, a);
}

struct serve_conn *serve_conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

void serve_conn_request(struct serve_conn *c, bool whole)
{
	if (!c)
		return;
	c->phase = whole ? CONN_ANSWERING : CONN_READ_BODY;
	c->since_ns = rfm_event_now_ns();
}

void serve_conn_idle(struct serve_conn *c)
{
	if (!c)
		return;
	c->phase = CONN_WAIT_REQUEST;
	c->since_ns = rfm_event_now_ns();
}

bool serve_conn_stream_admit(struct serve *s, struct serve_conn *c)
{
	if (!c || c->evicted || !make_room(s, c->addr, true))
		return false;
	c->stream = true;
	c->addr->streams++;
	c->read_ns = rfm_event_now_ns();
	return true;
}

void serve_conn_stream_undo(struct serve_conn *c)
{
	if (!c || !c->stream)
		return;
	c->stream = false;
	if (!c->evicted)
		c->addr->streams--;
}

void serve_conn_stream_read(struct serve_conn *c, bool blocked)
{
	if (!c)
		return;
	c->read_ns = rfm_event_now_ns();
	c->blocked = blocked;
}

unsigned int serve_streams_per_address(const struct serve *s)
{
	return s->per_address > 1 ? s->per_address / 2 : 1;
}

void serve_conns_counts(struct serve *s, uint64_t *no_request, uint64_t *stalled_stream,
			uint64_t *refused)
{
	*no_request = s->conns->evicted_no_request;
	*stalled_stream = s->conns->evicted_stalled;
	*refused = s->conns->refused;
}
