/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * State of a dds: handle, shared by the backend's files.
 *
 * Each node holds its own copy of the window in private memory, as a card
 * does. Whatever the library writes goes out as samples on ONE reliable,
 * keep-all topic per network, so each writer's writes and events reach
 * every other node in the order they were made ("interrupts follow the
 * data"), and a receiver applies them to its copy in that order.
 *
 * The files form a one-way stack: each calls only files listed before it
 * (docs/architecture.md names them in this order).
 * Bottom first:
 *
 *  dds-security-grant.c   whether permissions.p7s grants node.pem's
 *                   subject, valid now (its XML, read as Cyclone does)
 *  dds-security-files.c   security=DIR's files checked with OpenSSL
 *                   before Cyclone sees them: each wrong one named, why
 *  dds-security.c   security=DIR: DDS Security's participant qos from
 *                   DIR's files, the partition of each node id, whether a
 *                   writer's partition is the node id its sample names
 *  dds-sample.c     one sample to Cyclone (rfm__dds_write), one piece into
 *                   our copy (rfm__dds_store), a copy of a sample for a list,
 *                   the event queue push, the refused counter, nonces, the
 *                   thread-local modes, the wake of the handle's thread
 *  dds-digest.c     the running digest of a stream's samples, which
 *                   MARKs carry: a node's stream taken over (no DDS
 *                   Security) shows as a digest that differs
 *  dds-identity.c   who wrote a sample: participant and partition per
 *                   publication handle, cached
 *  dds-route.c      which readers our stream waits for: a node the
 *                   monitor reports down is left out by moving the stream
 *                   to a writer its reader does not match
 *  send side
 *   dds-backlog.c   the send lock, its one owner (rfm__dds_send_lock() and
 *                   the rest); numbering a sample and handing it to Cyclone
 *                   or, callbacks=receive, to the backlog behind what waits
 *                   (rfm__dds_emit_locked)
 *   dds-coalesce.c  writes held in a batch; rfm__dds_send_locked(), which
 *                   every sample goes through so held writes go first
 *   dds-publish.c   the handle's writes (ops->publish)
 *   dds-events.c    the handle's event send and queue ops (ops->ev)
 *   dds-answer.c    a giver's snapshot and resync answers, resync requests
 *  receive side
 *   dds-snapshot.c  the joiner's side: held samples, the pieces, the install,
 *                   requests noted for the handle's thread
 *   dds-presence.c  presence samples (node ids, liveliness, the peers'
 *                   facts), which participant each node id is bound to,
 *                   and the core's questions about nodes
 *   dds-receive.c   the dispatcher: Cyclone's listeners (both readers, the
 *                   matches), rfm__dds_apply per kind, a BATCH's pieces, the
 *                   held samples applied once joined
 *  dds-thread.c     the handle's thread: flushes batches, sends the backlog,
 *                   answers requests (dds-answer.c)
 *  dds-join.c       at open: who gives us our copy, an order with no wait
 *                   cycle
 *  dds-claim.c      at open: claiming a node id, the sizes agree
 *  dds-backend.c    URI, the participant, topics, readers and writers, open
 *                   and close, node facts, the ops table
 *  dds-wire.idl     the wire types; idlc makes dds-wire.[ch] of it in the
 *                   build tree (src/backends/dds/local.mk)
 *
 * Where a lower layer must make an upper one act, it does not call it:
 *  - work for the handle's thread (a backlog begun, a request noted, a
 *    batch begun while it sleeps) is a bump of d->thread_futex
 *    (rfm__dds_thread_wake, dds-sample.c), the word the thread waits on;
 *  - the END of a joiner's snapshot: dds-snapshot.c returns true and the
 *    dispatcher (dds-receive.c) applies the held samples, which is
 *    applying samples again;
 *  - a presence sample: its listener is the dispatcher's, which calls down
 *    into dds-presence.c; a match wakes a joiner through d->cond, which
 *    dds-join.c (above) waits on;
 *  - what a joiner's requests need answered is noted under lock by the
 *    receive side and sent by the handle's thread (dds-answer.c), which
 *    is below it in data but above it in calls only through the futex.
 *
 * Lock order: the send lock, then lock. The send lock (taken by
 * rfm__dds_lock_to_send() or rfm__dds_send_lock(), released by
 * rfm__dds_send_unlock(): dds-backlog.c alone touches it) covers our
 * sequence, the batch and the backlog;
 * lock covers what the receive side learnt (peers, join state, requests).
 * A thread holding lock never takes the send lock: the receive side drops lock
 * before it sends (dds-join.c's requests, dds-answer.c's resyncs), so a
 * snapshot answer may take lock inside the send lock to copy the window
 * consistently.
 *
 * Three thread-local modes (dds-sample.c), because Cyclone may run a
 * reader of this process on the writer's own thread, inside dds_write():
 *  receiving      set by dds-receive.c's listeners, on a Cyclone receive
 *                 thread; read by dds-backlog.c: a full backlog fails with
 *                 RFM_EAGAIN instead of waiting, since the thread that
 *                 would drain it may be waiting for this one. (So does the
 *                 heartbeat monitor's thread, rfm__health_monitor_thread()
 *                 in backend.h: its verdict ends a stall, dds-route.c.)
 *  handle_thread  set by dds-thread.c; read by dds-backlog.c: the handle's
 *                 thread never waits for the backlog, which it is the one
 *                 to send; it sends what waits first.
 *  writing        set inside rfm__dds_write(); read by dds-receive.c: a
 *                 reader of this process applies the sample on this thread,
 *                 which may hold the send lock, so callbacks=receive runs no
 *                 callback there (it is queued for the ordinary take
 *                 instead).
 */
#ifndef RFM_DDS_INTERNAL_H
#define RFM_DDS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <dds/dds.h>

#include "backend.h"
#include "backends/dds/dds-wire.h"

/*
 * The largest jump in a writer's sequence taken as records lost: 2^40
 * samples is 12 days of a million a second. A bigger one is forged, and
 * taking it would make every real sample after it look old.
 */
#define RFM_DDS_SEQ_JUMP_MAX (UINT64_C(1) << 40)

/* Cyclone's default port mapping gives domain ids 0..230. */
#define RFM_DDS_DOMAIN_MAX 230
/* Largest piece of the window one sample carries. */
#define RFM_DDS_CHUNK (64u * 1024u)
#define RFM_DDS_NAME_MAX 64
#define RFM_DDS_LEASE_DEFAULT_MS 2000u
#define RFM_DDS_JOIN_DEFAULT_MS 300u
#define RFM_DDS_QUEUE_MAX (1u << 20)

enum dds_kind {
	/* Never on the wire (refused there): a sample held while joining of
	 * which only the place in its writer's sequence is kept. */
	DDS_KIND_PLACE = 0,
	DDS_KIND_WRITE = 1,	/* data -> window[offset] */
	DDS_KIND_EVENT = 2,	/* to, type, word, stamp = sent_ns */
	DDS_KIND_SNAP_REQ = 3,	/* to = the peer asked, word = nonce */
	DDS_KIND_SNAP = 4,	/* to = requester; type = enum dds_snap_part */
	/* 5 is not used: heartbeats are window words (health.c's table). */
	DDS_KIND_BATCH = 6,	/* data = writes (struct dds_piece each), in order;
				 * extra & DDS_BATCH_EVENT: then the event of to,
				 * type, word, stamp, as EVENT */
	DDS_KIND_MARK = 7,	/* our stream's place, sent when a reader matches
				 * our writer (dds-answer.c) and while the stream
				 * moves: extra & DDS_MARK_DIGEST: stamp = the
				 * digest of our samples before it (dds-digest.c) */
	DDS_KIND_OBSERVE = 8,	/* an observer's request for a copy, outside every
				 * stream (it has no node id): to = the peer asked,
				 * word = nonce; answered as a COPY to
				 * RFM_DDS_TO_OBSERVER with that nonce */
};
#define DDS_MARK_DIGEST UINT64_C(1)

/* The "to" of a snapshot's pieces for an observer (no node id): the
 * nonce says whose. Never a node id, nor RFM_NODE_ALL. */
#define RFM_DDS_TO_OBSERVER 0xfffeu

/* A BATCH sample's data: a run of these, each followed by len bytes
 * padded to 8. */
struct dds_piece {
	uint64_t offset;
	uint32_t len;
	uint32_t reserved;
};
#define DDS_BATCH_EVENT UINT64_C(1)
/* Most bytes of writes a BATCH holds (pieces and their headers). */
#define RFM_DDS_BATCH_MAX 65536u
#define RFM_DDS_COALESCE_DEFAULT_NS 1000000u
/* The send backlog (dds-backlog.c): other threads wait while it holds
 * more than WAIT bytes, for at most BLOCK_NS (the writer's old
 * max_blocking_time); the receive thread's writes fail past MAX. A
 * dds_write() waits at most WRITE_BLOCK_NS for room in Cyclone (0 with
 * callbacks=receive): then the sample joins the backlog. */
#define RFM_DDS_BACKLOG_WAIT (1024u * 1024u)
#define RFM_DDS_BACKLOG_MAX (64u * 1024u * 1024u)
#define RFM_DDS_BLOCK_NS 10000000000ull
#define RFM_DDS_WRITE_BLOCK_NS 50000000ull

enum dds_snap_part {
	DDS_SNAP_HEADER = 0,	/* data = struct dds_snap_vector, extra = window size */
	DDS_SNAP_CHUNK = 1,	/* data -> window[offset] */
	DDS_SNAP_END = 2,
	DDS_SNAP_OWN = 3,	/* resync: data -> window[offset], words the giver wrote */
	DDS_SNAP_BUSY = 4,	/* no copy: the giver is joining too and the requester has
				 * the lower id, so it must not wait (dds-join.c) */
};

/* SNAP_REQ type: a whole copy (joining) or the giver's own words (resync). */
enum dds_req_kind {
	DDS_REQ_COPY = 0,
	DDS_REQ_OWN = 1,
	/* Never on the wire: a queued BUSY answer to a COPY request. */
	DDS_REQ_BUSY = 2,
	DDS_REQ_KINDS
};

/* What a snapshot's giver had applied of each writer's stream. */
struct dds_snap_vector {
	uint32_t inc[RFM_MAX_NODES];
	uint64_t seq[RFM_MAX_NODES];
};

/* The writer of a sample (dds-identity.c). */
#define RFM_DDS_PARTITION_MAX 127
struct dds_writer_id {
	dds_guid_t participant;	/* its DDS participant */
	bool stream;		/* a writer of the stream topic (else of the node topic) */
	/* security=: the node id all its partitions name (-1: none, or not
	 * one for all; dds-security.c rfm__dds_partition_node). */
	int node;
};
/* Writers remembered: two per node, and room for strangers. */
#define RFM_DDS_WRITERS_MAX 128
struct dds_writer_entry {
	dds_instance_handle_t handle; /* 0: free */
	struct dds_writer_id id;
};

/* A node as this handle knows it (presence, stream). */
struct dds_peer {
	bool alive;		/* its presence instance is alive (liveliness) */
	uint32_t inc;		/* incarnation token of its presence */
	int32_t pid;
	uint64_t size;
	char host[64];
	/*
	 * The DDS participant its held claim came from (zero: not known): the
	 * id is bound to it, and only its samples name this id. Kept when the
	 * node goes down, until another participant holds the id.
	 */
	dds_guid_t participant;
	/* The stream writer last seen bound to it: the fast path of the check. */
	dds_instance_handle_t stream_writer;
	/* A stream writer of its participant matched ours: a node, not only
	 * a presence sample (dds-presence.c). */
	bool confirmed;
	/* When we last answered it each kind of request (enum dds_req_kind):
	 * at most one answer of a kind a second (dds-snapshot.c). */
	uint64_t answered_ns[DDS_REQ_KINDS];
	bool other_size;	/* its window size is not ours: its records are ignored */
	/* Its stream as applied here. */
	uint32_t stream_inc;
	uint64_t next_seq;	/* the next seq expected; 0: none seen yet */
	/* The digest of what we took of it (dds-digest.c): valid since its
	 * first sample or the MARK at digest_seq, until a gap. */
	bool digest_ok;
	uint64_t digest, digest_seq;
};

/* A participant whose reader our stream no longer waits for (dds-route.c). */
struct dds_excluded {
	uint32_t id, inc;	/* the node the monitor reported down */
	dds_guid_t participant;
};

/* Most partitions of a writer that leaves some out: every node id, two
 * incarnations of each (a node and a claim pending), the observers'. */
#define ROUTE_PARTS_MAX (3 * RFM_MAX_NODES + 1)

/* Which readers our stream waits for (dds-route.c). */
struct dds_route {
	dds_qos_t *qos;		/* the stream writer's, partitions aside */
	dds_listener_t *listener; /* the stream writer's */
	/* Under lock: the monitor's verdicts, who may be left out. */
	struct dds_excluded excluded[RFM_MAX_NODES];
	uint32_t nexcluded;
	/* The handle's thread's: */
	uint64_t key;		/* the current writer's partitions (parts_key) */
	bool excluding;		/* it leaves someone out (atomic: looked at by the tick) */
	dds_entity_t next;	/* a writer being matched before it takes over (0: none) */
	uint64_t next_key, next_since_ns;
	dds_entity_t retired[4]; /* former writers keeping what was not acknowledged */
	uint32_t nretired;
	char (*store)[RFM_DDS_PARTITION_MAX + 1]; /* ROUTE_PARTS_MAX partition names */
	bool ready;		/* made at open (atomic: the thread runs before) */
	bool pending;		/* a verdict came: look (atomic) */
	uint64_t swaps;		/* writers taken over (atomic) */
};

/* A record held back while the joiner waits for its snapshot. */
struct dds_held {
	struct dds_held *next;
	rfm_dds_Msg msg;	/* data owned (copied) */
};

/*
 * The send side (dds-backlog.c, dds-coalesce.c, dds-publish.c, the handle's
 * thread): our stream, under the send lock.
 */
struct dds_send {
	/* One sequence for every sample of ours, under the send lock, which
	 * dds-backlog.c alone takes (rfm__dds_send_lock() and the rest). */
	pthread_mutex_t pub_lock;
	uint64_t seq;		/* last seq sent */
	uint64_t sent_seq;	/* the same, for the thread (atomic) */
	uint64_t digest;	/* of every sample numbered so far (dds-digest.c) */
	/* A sample's data from the window, copied before it is digested and
	 * sent: what the digest covers is what goes out (RFM_DDS_CHUNK bytes). */
	uint8_t *scratch;
	/* Coalescing (dds-coalesce.c), under the send lock: writes held back for
	 * the event that usually follows them, to go out as one sample. */
	uint64_t coalesce_ns;	/* how long a write may wait; 0: never held */
	uint8_t *batch;		/* RFM_DDS_BATCH_MAX bytes of pieces */
	/* Both also read by the handle's thread without the lock (atomic stores). */
	uint32_t batch_len;
	uint32_t batches;	/* batches begun: the thread sees activity */
	bool peer_in_process;	/* a peer of this process: never hold (atomic) */
	/* callbacks=receive (dds-backlog.c), under the send lock: the samples the
	 * writer could not take yet, in order; the handle's thread sends them. */
	struct dds_held *backlog, **backlog_tail;
	uint64_t backlog_bytes;	/* atomic stores: the thread looks without the lock */
	uint64_t backlog_lost;	/* refused by Cyclone for good (atomic) */
	pthread_cond_t backlog_cond;	/* with the send lock: the backlog shrank */
};

/*
 * The receive side (dds-receive.c, dds-identity.c, dds-presence.c): what
 * the streams of others brought, under lock unless said, and the resyncs
 * we ask of them.
 */
struct dds_receive {
	uint64_t gaps;		/* records missed, all writers (counted) */
	/* Samples refused: forged, malformed, unasked, of a kind or type no
	 * node sends, or from a node whose window has another size (atomic:
	 * read without the lock). */
	uint64_t refused;
	/* Samples of another in a node's stream, found by its digest
	 * (dds-digest.c; atomic: read without the lock). */
	uint64_t forged;
	/* Writers' identities (dds-identity.c), under lock. */
	struct dds_writer_entry writers[RFM_DDS_WRITERS_MAX];
	uint32_t writers_next;
	/* A node met late, whose stream and presence race: its samples refused
	 * before its claim came (reported as lost when it comes). */
	uint32_t early[RFM_MAX_NODES];
	/* Resync: the peers we lost records of, to ask for theirs (the
	 * handle's thread asks). */
	bool resync_want[RFM_MAX_NODES];
	uint32_t resync_nonce[RFM_MAX_NODES]; /* of the resync asked (0: none) */
	uint32_t resync_nonce_before[RFM_MAX_NODES]; /* the one it replaced: late, not unasked */
	/* A resync asked and not yet answered to its end: when it was asked
	 * or its last piece came (0: none open), and how often it was asked.
	 * The request or the answer may be lost (a reader not yet matched
	 * after a partition drops it for good): asked again until answered. */
	uint64_t resync_open_ns[RFM_MAX_NODES];
	uint32_t resync_tries[RFM_MAX_NODES];
	uint32_t resync_open;	/* how many are open (atomic: the thread looks) */
	bool resync_pending;	/* a resync is to be asked (atomic) */
	uint64_t resyncs;	/* resync requests sent */
};

/*
 * The join side (dds-join.c, dds-snapshot.c): the copy of the network's
 * window we asked for, under lock.
 */
struct dds_join {
	bool joined;		/* the window is a copy of the network's */
	uint32_t snap_nonce;
	int snap_from;		/* the peer asked, -1: none */
	/* Every copy asked so far (the last 8): an answer to an earlier one
	 * (a retry's) is late, not unasked. */
	struct { uint16_t peer; uint32_t nonce; } snap_asked[8];
	uint32_t snap_asks;
	bool snap_busy;		/* it answered BUSY: ask the next one */
	bool snap_header;	/* its header arrived */
	uint32_t snap_pieces;	/* pieces of it taken: a copy still arriving is waited for */
	struct dds_snap_vector *snap_vec;
	struct dds_held *held, **held_tail;
};

/*
 * What we owe others (dds-snapshot.c notes it under lock, dds-answer.c
 * sends it on the handle's thread): copies of our window, resyncs, a MARK.
 */
struct dds_answer {
	/* Requests for our copy, answered by the handle's thread once due
	 * (0: at once; else when the requester's second is up). */
	uint32_t snap_pending;	/* how many in snap_req[] */
	struct { uint16_t to; uint32_t nonce; uint32_t kind; uint64_t due_ns; } snap_req[64];
	/* The 8-byte words we wrote (bit per word, atomic: set by every
	 * write, dds-publish.c): what a resync sends. */
	uint64_t *own;
	/* A resync request from a node met late, before its claim came:
	 * answered when it comes. */
	bool owe[RFM_MAX_NODES];
	uint32_t owe_nonce[RFM_MAX_NODES];
	bool mark_pending;	/* a reader matched our writer: send a MARK (atomic) */
};

struct dds_node {
	/* First: the event queue (dds-events.c), the records for this handle. */
	struct rfm_localq q;
	char name[RFM_DDS_NAME_MAX + 1];
	uint32_t domain;
	char *security;		/* security=DIR (owned), NULL: none */
	uint32_t lease_ms;
	uint32_t join_ms;
	uint32_t inc;		/* our incarnation token */
	int id;			/* -1: an observer (observe=1), which holds none */
	bool observer;		/* reads the network, takes no id, writes nothing */
	bool tool;		/* tool=1: an id of RFM_NODE_TOOL_FIRST.. unless node= */
	uint64_t observer_copy_ns; /* the last copy sent to an observer (rate limit) */
	uint8_t *window;	/* our copy (anonymous private mapping) */
	uint64_t size;

	/* writer: the one carrying our stream now; dds-route.c replaces it
	 * under the send lock (atomic loads elsewhere). */
	dds_entity_t participant, topic, reader, writer;
	dds_entity_t node_topic, node_reader, node_writer;
	/* node_reader, stored under lock once made: for the stream's listener,
	 * which may run while node_reader is being stored. */
	dds_entity_t presence_reader;
	/* The handle's thread (dds-thread.c) sleeps on thread_futex; bump it
	 * to give it work. thread_stop is atomic (it looks without a lock). */
	pthread_t thread;
	bool thread_started;
	uint32_t thread_futex;
	bool thread_stop;
	bool thread_idle;	/* under the send lock: asleep with no deadline */
	bool forked;
	bool announced;		/* our presence is written: close disposes it */

	/* The network as the receive side learnt it, which every side reads;
	 * lock covers it, and the receive, join and answer state below. */
	pthread_mutex_t lock;
	/* callbacks=receive: callbacks run on the receive thread (set at open).
	 * inline_claimed (under lock): take_stream() runs the one claimed. */
	bool callbacks_receive;
	bool inline_claimed;
	pthread_cond_t cond;
	struct dds_peer peers[RFM_MAX_NODES];
	/*
	 * Claims still pending elsewhere (in their discovery wait), the lowest
	 * incarnation per id: of two claims made at once, that one wins.
	 */
	struct dds_rival {
		uint32_t inc;	/* 0: none */
		int32_t pid;
		char host[64];
		dds_guid_t participant;
		int64_t stamp;	/* its source timestamp (ns since 1970): it expires */
	} rivals[RFM_MAX_NODES];

	/* Each side's own state, in the handle's one allocation. */
	struct dds_send send;
	struct dds_receive recv;
	struct dds_join join;
	struct dds_answer answer;
	struct dds_route route;
};

/* dds-sample.c: the bottom */
/* dds_write() of @m, marked as a write of this thread (no callback inline). */
dds_return_t rfm__dds_write(struct dds_node *d, const rfm_dds_Msg *m);
/* The thread-local modes (above). */
bool rfm__dds_in_write(void);
void rfm__dds_receiving(bool on);
bool rfm__dds_in_receive(void);
void rfm__dds_on_handle_thread(void);
bool rfm__dds_in_handle_thread(void);
/* Give the handle's thread work: a batch, the backlog, a request (any thread). */
void rfm__dds_thread_wake(struct dds_node *d);
/* Store @len bytes at @off of the window, highest address first. */
void rfm__dds_store(struct dds_node *d, uint64_t off, const uint8_t *src, uint64_t len);
/* A copy of @m and its data, for a list; NULL: out of memory. */
struct dds_held *rfm__dds_held_new(const rfm_dds_Msg *m);
/* Queue a record for this handle (takes the queue's lock). */
void rfm__dds_deliver(struct rfm_node *node, const struct rfm_ev_record *rec);
/* Count a sample refused (a rule of docs/security.md); the count
 * (rfm_event_stats' refused). */
void rfm__dds_refuse(struct dds_node *d);
uint64_t rfm__dds_refused(struct rfm_node *node);
/* Streams found taken over (rfm_event_stats' forged). */
uint64_t rfm__dds_forged(struct rfm_node *node);
/* A Cyclone failure @rc while doing @what, as RFM_EIO naming the URI. */
int rfm__dds_fail(const struct rfm_uri *uri, dds_return_t rc, const char *what);

/* dds-digest.c */
/* The digest of a stream of incarnation @inc before its first sample. */
uint64_t rfm__dds_digest_start(uint32_t inc);
/* @h, and sample @m after it. */
uint64_t rfm__dds_digest(uint64_t h, const rfm_dds_Msg *m);

/* A random 32-bit nonce (getrandom(2)), never 0. */
uint32_t rfm__dds_nonce(void);

/* dds-identity.c (the lock is held) */
/*
 * The identity of the writer behind publication handle @h of @reader (a
 * SampleInfo's publication_handle, a match status's last one): its
 * participant and partitions, from the cache or from Cyclone (learnt
 * then). @stream: @reader is the stream reader (not d->reader: a
 * listener may run before that is stored). False: not known (the writer
 * is gone and was never seen).
 * This is the lookup for binding other facts (certificates, partitions)
 * to a writer.
 */
bool rfm__dds_writer_identity(struct dds_node *d, dds_entity_t reader, bool stream,
			      dds_instance_handle_t h, struct dds_writer_id *out);
/* The same from the cache only (a writer that is gone). */
bool rfm__dds_writer_cached(struct dds_node *d, dds_instance_handle_t h, struct dds_writer_id *out);
/* Is a stream writer of participant @who known? */
bool rfm__dds_stream_writer_of(const struct dds_node *d, const dds_guid_t *who);
bool rfm__dds_same_participant(const dds_guid_t *a, const dds_guid_t *b);
bool rfm__dds_guid_known(const dds_guid_t *g);
/* Does @e (a stream writer or reader of ours) match an endpoint of participant @who? */
bool rfm__dds_matches(dds_entity_t e, bool writer, const dds_guid_t *who);

/* dds-route.c */
/* At open: the stream writer's qos and listener, for the writers to come. */
int rfm__dds_route_init(struct dds_node *d, const dds_qos_t *qos, const dds_listener_t *listener);
void rfm__dds_route_fini(struct dds_node *d);
/* The monitor's verdict on node @id (the backend's peer_verdict op). */
void rfm__dds_route_verdict(struct rfm_node *node, unsigned int id, uint32_t incarnation, bool up);
/* Move the stream to the writer the verdicts ask for, a step at a time (the
 * handle's thread; @send_locked: it holds the send lock); when to look
 * again (0: when woken). */
uint64_t rfm__dds_route_step(struct dds_node *d, bool send_locked);
/* On the handle's thread (send lock held), before a sample of a long answer:
 * send what waits until at most RFM_DDS_BACKLOG_WAIT does (moving the
 * stream when a verdict asks), at most RFM_DDS_BLOCK_NS. Here, above
 * dds-backlog.c, because the route is what may free the backlog. */
int rfm__dds_backlog_room_locked(struct dds_node *d);

/* dds-backlog.c: the owner of the send lock, the one file that takes and
 * releases it (the others through these). */
void rfm__dds_send_lock_init(struct dds_node *d);
void rfm__dds_send_lock_destroy(struct dds_node *d);
/* The send lock, for a thread about to send: waits while the backlog is
 * full (0, locked), or fails with the message set (unlocked). */
int rfm__dds_lock_to_send(struct dds_node *d);
/* The send lock without that wait: for the handle's thread and the route,
 * which empty the backlog or only move the stream, and for close. */
void rfm__dds_send_lock(struct dds_node *d);
void rfm__dds_send_unlock(struct dds_node *d);
/* Number @msg (seq, inc, writer) and hand it to Cyclone or the backlog
 * (send lock held); no batch flushed: use rfm__dds_send_locked(). */
int rfm__dds_emit_locked(struct dds_node *d, rfm_dds_Msg *msg);
/* Queue @m behind the backlog (send lock held). */
int rfm__dds_backlog_add(struct dds_node *d, const rfm_dds_Msg *m);
/* Hand what Cyclone takes now to it (send lock held); true: some is left. */
bool rfm__dds_backlog_send_locked(struct dds_node *d);
/* At close: wait for the handle's thread to send it, at most RFM_DDS_BLOCK_NS. */
void rfm__dds_backlog_drain(struct dds_node *d);
/* Free what is left, counted as lost (send lock held, or no other thread). */
void rfm__dds_backlog_discard(struct dds_node *d);

/* dds-coalesce.c */
/* Hold a write of [offset, offset+len) in the batch; false: send it now. */
bool rfm__dds_hold_write(struct dds_node *d, uint64_t offset, uint64_t len, int *ret);
/* Send the held writes as one BATCH (send lock held); @ev: with this event. */
int rfm__dds_flush_locked(struct dds_node *d, const rfm_dds_Msg *ev);
/* Send one sample of ours, held writes first; _locked: send lock held. */
int rfm__dds_send_locked(struct dds_node *d, rfm_dds_Msg *msg);
int rfm__dds_send(struct dds_node *d, rfm_dds_Msg *msg);

/* dds-publish.c */
int rfm__dds_publish(struct rfm_node *node, uint64_t offset, uint64_t len);

/* dds-events.c */
extern const struct rfm_backend_ev_ops rfm__dds_ev_ops;

/* dds-answer.c */
/* A MARK with our stream's digest (dds-digest.c), if we sent anything. */
int rfm__dds_send_digest(struct dds_node *d);
/* In the handle's thread: answer the requests noted that are due, send
 * resync requests; when the next one falls due (0: none waits). */
uint64_t rfm__dds_snapshot_answer_pending(struct rfm_node *node);
/* In the handle's thread: ask again the resyncs unanswered for too long;
 * when to look again (0: none is open). */
uint64_t rfm__dds_resync_retry(struct dds_node *d, uint64_t now);

/* dds-snapshot.c (the lock is held for all but held_free) */
/* A SNAP_REQ for us from the network: refused unless a kind we answer. */
void rfm__dds_request(struct rfm_node *node, const rfm_dds_Msg *req);
/* A request to answer (ours: a BUSY, a resync owed): note it for the handle's thread. */
void rfm__dds_snapshot_answer(struct rfm_node *node, const rfm_dds_Msg *req);
/* An observer's OBSERVE for us: a copy (at most one a second), or BUSY
 * while we join; noted for the handle's thread. */
void rfm__dds_observe_request(struct rfm_node *node, const rfm_dds_Msg *req);
/* Ask @writer for its own words again. */
void rfm__dds_want_resync(struct rfm_node *node, unsigned int writer);
/* A SNAP piece for us (refused unless asked for and well formed); true:
 * it was the END that installed our copy, the caller applies what was
 * held (rfm__dds_joined_apply_held). */
bool rfm__dds_snapshot_piece(struct rfm_node *node, const rfm_dds_Msg *m);
/* A sample while we are joining: held, or taken; true as above. */
bool rfm__dds_join_sample(struct rfm_node *node, const rfm_dds_Msg *m);
/* Before the snapshot: keep @m to apply after it. */
void rfm__dds_hold(struct dds_node *d, const rfm_dds_Msg *m);
/* Keep only @m's place in its writer's sequence, to apply after the snapshot. */
void rfm__dds_hold_seq(struct dds_node *d, const rfm_dds_Msg *m);
void rfm__dds_held_free(struct dds_node *d);

/* dds-presence.c (the lock is held but for the node_ functions) */
/* Take presence samples: liveliness changes of peers. */
void rfm__dds_presence_take(struct rfm_node *node, dds_entity_t reader);
/* May a stream sample from writer @pub of @reader name node id @id? */
bool rfm__dds_bound(struct rfm_node *node, dds_entity_t reader, unsigned int id,
		    dds_instance_handle_t pub);
/* A writer of @reader (the stream's: @stream) matched (@lost false) or went away. */
void rfm__dds_writer_matched(struct rfm_node *node, dds_entity_t reader, bool stream,
			     dds_instance_handle_t pub, bool lost);
/* Is node @id up: presence held and confirmed by its stream writer? */
bool rfm__dds_peer_up(struct dds_node *d, unsigned int id);
/* A pending claim of @id that still counts (not expired). */
bool rfm__dds_rival_live(const struct dds_node *d, unsigned int id);
int rfm__dds_node_facts(struct rfm_node *node, unsigned int id, struct rfm_node_facts *facts);
bool rfm__dds_node_alive(struct rfm_node *node, unsigned int id, uint32_t incarnation);
bool rfm__dds_node_attached(struct rfm_node *node, unsigned int id);

/* dds-receive.c */
/* The listener that applies what arrives: the stream's or the presence's. */
dds_listener_t *rfm__dds_listener(struct rfm_node *node, bool stream);
/* The stream writer's: its matches wake a joiner (d->cond). */
dds_listener_t *rfm__dds_match_listener(struct rfm_node *node);
/* Apply one sample (the lock is held). */
void rfm__dds_apply(struct rfm_node *node, const rfm_dds_Msg *m);
/* Joined: apply what was held meanwhile (the lock is held). */
void rfm__dds_joined_apply_held(struct rfm_node *node);

/* dds-thread.c */
/* Start the handle's thread (and the batch, with coalescing). */
int rfm__dds_start_thread(struct rfm_node *node);
/* Send what is held and queued, then stop it (at close). */
void rfm__dds_stop_thread(struct dds_node *d);

/* dds-join.c */
int rfm__dds_join(struct rfm_node *node);

/* dds-claim.c */
/* Claim our id (or the first free one), then every node's size agrees
 * with *@sizep (taken from the others unless @size_given). */
int rfm__dds_claim(struct rfm_node *node, const struct rfm_uri *uri, uint64_t *sizep,
		   bool size_given);
/* An observer's: claim nothing; find the nodes there are (RFM_ENOENT:
 * none, nobody to take a copy from) and their window size as above. */
int rfm__dds_find_size(struct rfm_node *node, const struct rfm_uri *uri, uint64_t *sizep,
		       bool size_given);

/* dds-security-grant.c */
/* Does permissions document @doc (its text, signature checked) grant
 * certificate subject @subject (RFC 2253), valid now? 0, or RFM_EPERM
 * naming DIR/permissions.p7s and why. A document it cannot read: 0. */
int rfm__dds_permissions_check(const char *uri, const char *dir, const char *doc,
			       const char *subject);

/* dds-security-files.c */
/* Check security=DIR's files (@crl: crl.pem is there) with OpenSSL; 0, or
 * the error naming the file that is wrong and why. */
int rfm__dds_security_files_check(const char *uri, const char *dir, bool crl);

/* dds-security.c */
/* The participant's qos for security=DIR into *@qp (NULL without it). */
int rfm__dds_security_qos(struct dds_node *d, const char *uri, dds_qos_t **qp);
/* Cyclone refused the participant (or a @writer) with @rc: the error naming the files. */
int rfm__dds_security_refused(struct dds_node *d, const char *uri, dds_return_t rc, bool writer);
/* The partition of a writer (ours: our node id's) or of a reader (all). */
void rfm__dds_security_partition(const struct dds_node *d, dds_qos_t *q, bool writer);
/* The stream reader's: the network's (as above), and the "to" ones naming
 * our node id (when node= gave it) and our incarnation (dds-route.c). */
void rfm__dds_stream_reader_partitions(const struct dds_node *d, dds_qos_t *q);
/* The "to" partition of node @id (-1: observers), or of incarnation @inc
 * (not 0: any node's), for our stream writer (@writer) or reader, into @buf. */
void rfm__dds_to_partition(const struct dds_node *d, int id, uint32_t inc, bool writer, char *buf,
			   size_t len);
/* The node id @partition names (security=: "NAME.node.N", or a "to"
 * partition of a writer of node N); -1: none. */
int rfm__dds_partition_node(const struct dds_node *d, const char *partition);
/* May writer @w publish as node @id? Without security, always; with it,
 * only from the partition of @id ("NAME.node.ID"), which only the holder
 * of node ID's permissions can publish in. */
bool rfm__dds_security_writer_ok(const struct dds_node *d, const struct dds_writer_id *w,
				 unsigned int id);

#endif /* RFM_DDS_INTERNAL_H */
