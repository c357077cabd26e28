/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which readers our stream waits for. A reliable writer keeps what it
 * sent until every matched reader acknowledged it, and a write waits once
 * it keeps too much: one reader that stops acknowledging stops us all. A
 * dead node's reader does so until Cyclone forgets its participant, which
 * its lease ends (10 s by default), and never while something replays the
 * dead node's captured traffic (DDS has no replay protection, DDS
 * Security neither): the replay renews the lease, and our writes waited
 * for a reader that was gone (fault lab: 149 write rounds in 12.3 s
 * instead of 245, and a healthy node reported down by another).
 *
 * Cyclone 0.10 has no call to stop waiting for one reader while its
 * participant is known. What it has is matching: so when the heartbeat
 * monitor (rfm_health_start()) has reported a node down whose reader
 * still matches our writer, and our writes wait (the send backlog began),
 * the stream moves to a new writer that this reader does not match, and
 * the old writer is retired, kept until what it holds is acknowledged or
 * no longer needed:
 *
 *  - every stream reader reads the network's partition and two of its
 *    own: "NAME:to:ID" (its node id) and "NAME:to:ID:INC" (this
 *    incarnation of it; dds-security.c names them);
 *  - the normal writer publishes in the network's partition; a writer
 *    that leaves out the participants in `excluded` publishes in
 *    "NAME:to:ID" of every node id none of them held, and in
 *    "NAME:to:ID:INC" of the other incarnations known of the ids they
 *    held (a node that opened again while its dead predecessor is
 *    replayed), plus the observers' one;
 *  - the new writer goes into service (the send lock) once it matches every
 *    reader the old one matches but the excluded ones, or after
 *    READY_MAX_NS: a reader that never matches is one the sequence's gap
 *    reports (LINK) and resyncs;
 *  - a node the monitor sees up again, or whose participant went away,
 *    is excluded no more, and the stream moves again (to the network's
 *    partition when nobody is left out): a MARK on the new writer shows
 *    the returning node the gap, and it resyncs what it missed.
 *
 * The bound a dead peer costs the others is the monitor's verdict
 * (misses x period) plus a discovery round trip; the writes meanwhile wait
 * in the send backlog (dds-backlog.c), so the writing threads and the
 * monitor's own beats go on. The moves are the handle's thread's
 * (dds-thread.c) and of the handle's writes' when they wait for room.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/dds/dds-internal.h"

/* How long a new writer may take to match the old one's readers. */
#define READY_MAX_NS UINT64_C(1000000000)
/* How often the thread looks while someone is left out, or a writer is retired. */
#define LOOK_NS UINT64_C(100000000)
/* How soon it looks again while a new writer is being matched. */
#define MATCH_LOOK_NS UINT64_C(5000000)

/* A cheap fingerprint of a partition list (FNV-1a over the names). */
static uint64_t parts_key(char *const *parts, uint32_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (uint32_t i = 0; i < n; i++)
		for (const char *c = parts[i];; c++) {
			h = (h ^ (uint8_t)*c) * UINT64_C(0x100000001b3);
			if (!*c)
				break;
		}
	return h;
}

/* The network's partition, that of the writer that leaves nobody out. */
static uint32_t partition_all(struct dds_node *d, char **parts)
{
	if (d->security)
		snprintf(d->route.store[0], sizeof(d->route.store[0]), "%s.node.%d", d->name, d->id);
	else
		snprintf(d->route.store[0], sizeof(d->route.store[0]), "%s", d->name);
	parts[0] = d->route.store[0];
	return 1;
}

int rfm__dds_route_init(struct dds_node *d, const dds_qos_t *qos, const dds_listener_t *listener)
{
	struct dds_route *r = &d->route;
	char *parts[1];

	r->qos = dds_create_qos();
	r->listener = dds_create_listener(NULL);
	r->store = malloc(ROUTE_PARTS_MAX * sizeof(*r->store));
	if (!r->qos || !r->listener || !r->store)
		return rfm__error(RFM_ENOMEM, "dds:%s: out of memory", d->name);
	dds_copy_qos(r->qos, qos);
	dds_copy_listener(r->listener, listener);
	r->key = parts_key(parts, partition_all(d, parts)); /* the writer made at open */
	/* The handle's thread runs already: it looks from now on. */
	__atomic_store_n(&r->ready, true, __ATOMIC_RELEASE);
	return 0;
}

void rfm__dds_route_fini(struct dds_node *d)
{
	struct dds_route *r = &d->route;

	/* The writers go with the participant. */
	if (r->qos)
		dds_delete_qos(r->qos);
	if (r->listener)
		dds_delete_listener(r->listener);
	free(r->store);
	r->qos = NULL;
	r->listener = NULL;
	r->store = NULL;
}

/* Under lock: drop excluded[@i] (nexcluded stored atomically: the thread
 * looks at it without the lock). */
static void unexclude(struct dds_route *r, uint32_t i)
{
	uint32_t n = r->nexcluded - 1;

	r->excluded[i] = r->excluded[n];
	__atomic_store_n(&r->nexcluded, n, __ATOMIC_RELAXED);
}

void rfm__dds_route_verdict(struct rfm_node *node, unsigned int id, uint32_t incarnation, bool up)
{
	struct dds_node *d = node->priv;
	struct dds_route *r = &d->route;

	if (id >= RFM_MAX_NODES || (int)id == d->id)
		return;
	const struct dds_peer *p = &d->peers[id];

	pthread_mutex_lock(&d->lock);
	if (up) {
		/* That incarnation beats again: it counts again. */
		for (uint32_t i = 0; i < r->nexcluded; i++)
			if (r->excluded[i].id == id && r->excluded[i].inc == incarnation)
				unexclude(r, i--);
	} else if (p->inc == incarnation && rfm__dds_guid_known(&p->participant) &&
		   r->nexcluded < RFM_ARRAY_SIZE(r->excluded)) {
		bool known = false;

		for (uint32_t i = 0; i < r->nexcluded; i++)
			known |= rfm__dds_same_participant(&r->excluded[i].participant,
							   &p->participant);
		if (!known) {
			r->excluded[r->nexcluded] = (struct dds_excluded){
				.id = id, .inc = incarnation, .participant = p->participant
			};
			__atomic_store_n(&r->nexcluded, r->nexcluded + 1, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&d->lock);
	__atomic_store_n(&r->pending, true, __ATOMIC_RELEASE);
	rfm__dds_thread_wake(d);
}

/* The writers of ours that still carry a reader of @who: current, next, retired. */
static bool still_matched(const struct dds_node *d, const dds_guid_t *who)
{
	const struct dds_route *r = &d->route;

	if (rfm__dds_matches(__atomic_load_n(&d->writer, __ATOMIC_ACQUIRE), true, who) ||
	    (r->next > 0 && rfm__dds_matches(r->next, true, who)))
		return true;
	for (uint32_t i = 0; i < r->nretired; i++)
		if (rfm__dds_matches(r->retired[i], true, who))
			return true;
	return false;
}

/*
 * Who is left out now: the participants judged down whose readers still
 * match one of our writers (Cyclone's calls outside the lock: a listener
 * of ours may be waiting for it inside Cyclone). Into @out; how many.
 */
static uint32_t excluded_now(struct dds_node *d, struct dds_excluded *out)
{
	struct dds_route *r = &d->route;
	uint32_t n, kept = 0;

	pthread_mutex_lock(&d->lock);
	n = r->nexcluded;
	memcpy(out, r->excluded, n * sizeof(*out));
	pthread_mutex_unlock(&d->lock);
	for (uint32_t i = 0; i < n; i++)
		if (still_matched(d, &out[i].participant))
			out[kept++] = out[i];
	if (kept == n)
		return kept;
	/* Gone from Cyclone (its lease ended, the replay stopped): forgotten. */
	pthread_mutex_lock(&d->lock);
	for (uint32_t i = 0; i < r->nexcluded; i++) {
		bool keep = false;

		for (uint32_t k = 0; k < kept; k++)
			keep |= rfm__dds_same_participant(&out[k].participant,
							  &r->excluded[i].participant);
		if (!keep)
			unexclude(r, i--);
	}
	pthread_mutex_unlock(&d->lock);
	return kept;
}

/* Is (@id, @inc) one of the @n left out? */
static bool left_out(const struct dds_excluded *ex, uint32_t n, unsigned int id, uint32_t inc)
{
	for (uint32_t i = 0; i < n; i++)
		if (ex[i].id == id && ex[i].inc == inc)
			return true;
	return false;
}

/*
 * The partitions of a writer that leaves out the @n in @ex (none: the
 * network's), into @parts (strings in d->route.store); how many: the id
 * of every node none of them held (a joiner with node= reads it before we
 * know its incarnation), the incarnation of every node known alive or
 * claiming but theirs (a node without node=, or one that opened again
 * while its dead predecessor is replayed, reads only that), and the
 * observers' (participants that read without a node id).
 */
static uint32_t partitions(struct dds_node *d, const struct dds_excluded *ex, uint32_t n,
			   char **parts)
{
	char (*store)[RFM_DDS_PARTITION_MAX + 1] = d->route.store;
	uint32_t k = 0;

	if (!n)
		return partition_all(d, parts);
	pthread_mutex_lock(&d->lock);
	for (unsigned int id = 0; id < RFM_MAX_NODES; id++) {
		const struct dds_peer *p = &d->peers[id];
		/* A claim pending (expired or not: one partition too many is harmless). */
		uint32_t incs[2] = { p->alive ? p->inc : 0, d->rivals[id].inc };
		bool held = false;

		for (uint32_t i = 0; i < n; i++)
			held |= ex[i].id == id;
		if (!held)
			rfm__dds_to_partition(d, (int)id, 0, true, store[k++], sizeof(store[0]));
		for (int j = 0; j < 2; j++)
			if (incs[j] && !left_out(ex, n, id, incs[j]) && (j == 0 || incs[1] != incs[0]))
				rfm__dds_to_partition(d, (int)id, incs[j], true, store[k++],
						      sizeof(store[0]));
	}
	pthread_mutex_unlock(&d->lock);
	rfm__dds_to_partition(d, -1, 0, true, store[k++], sizeof(store[0]));
	for (uint32_t i = 0; i < k; i++)
		parts[i] = store[i];
	return k;
}

/* The participants of the readers @w matches, into @who; how many. */
static uint32_t readers_of(dds_entity_t w, dds_guid_t *who, uint32_t max)
{
	dds_instance_handle_t h[2 * RFM_MAX_NODES];
	dds_return_t got = dds_get_matched_subscriptions(w, h, RFM_ARRAY_SIZE(h));
	uint32_t n = 0;

	for (dds_return_t i = 0; i < got && i < (dds_return_t)RFM_ARRAY_SIZE(h) && n < max; i++) {
		dds_builtintopic_endpoint_t *ep = dds_get_matched_subscription_data(w, h[i]);

		if (ep) {
			who[n++] = ep->participant_key;
			dds_builtintopic_free_endpoint(ep);
		}
	}
	return n;
}

static bool among(const dds_guid_t *g, const dds_guid_t *set, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (rfm__dds_same_participant(g, &set[i]))
			return true;
	return false;
}

/* Does @next match every reader @cur matches, but those of participants left out? */
static bool ready(dds_entity_t cur, dds_entity_t next, const struct dds_excluded *ex, uint32_t n)
{
	dds_guid_t had[2 * RFM_MAX_NODES], has[2 * RFM_MAX_NODES];
	uint32_t nhad = readers_of(cur, had, RFM_ARRAY_SIZE(had));
	uint32_t nhas = readers_of(next, has, RFM_ARRAY_SIZE(has));

	for (uint32_t i = 0; i < nhad; i++) {
		bool needed = true;

		for (uint32_t k = 0; needed && k < n; k++)
			needed = !rfm__dds_same_participant(&had[i], &ex[k].participant);
		if (needed && !among(&had[i], has, nhas))
			return false;
	}
	return true;
}

/* Retired writers whose samples every reader has are deleted (at once:
 * nothing lingers); the oldest goes anyway when there are too many. */
static void retire(struct dds_node *d, dds_entity_t old)
{
	struct dds_route *r = &d->route;

	if (old > 0 && r->nretired == RFM_ARRAY_SIZE(r->retired)) {
		dds_delete(r->retired[0]); /* may linger for Cyclone's WriterLingerDuration */
		memmove(&r->retired[0], &r->retired[1], --r->nretired * sizeof(r->retired[0]));
	}
	if (old > 0)
		r->retired[r->nretired++] = old;
	for (uint32_t i = 0; i < r->nretired; i++)
		if (dds_wait_for_acks(r->retired[i], 0) == DDS_RETCODE_OK) {
			dds_delete(r->retired[i]);
			memmove(&r->retired[i], &r->retired[i + 1],
				(--r->nretired - i) * sizeof(r->retired[0]));
			i--;
		}
}

/* The stream goes to @next from now on (send lock held or taken). */
static void swap(struct dds_node *d, bool send_locked, uint64_t key, bool excluding)
{
	struct dds_route *r = &d->route;
	dds_entity_t old;

	if (!send_locked)
		rfm__dds_send_lock(d);
	old = d->writer;
	__atomic_store_n(&d->writer, r->next, __ATOMIC_RELEASE);
	if (!send_locked)
		rfm__dds_send_unlock(d);
	r->next = 0;
	r->key = key;
	__atomic_store_n(&r->excluding, excluding, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->swaps, 1, __ATOMIC_RELAXED);
	/* Our place in the stream for a reader that matched only now. */
	__atomic_store_n(&d->answer.mark_pending, true, __ATOMIC_RELAXED);
	rfm__dds_thread_wake(d);
	retire(d, old);
}

uint64_t rfm__dds_route_step(struct dds_node *d, bool send_locked)
{
	struct dds_route *r = &d->route;
	struct dds_excluded ex[RFM_MAX_NODES];
	char *parts[ROUTE_PARTS_MAX];
	uint64_t now = rfm__now_ns();

	bool pending = __atomic_exchange_n(&r->pending, false, __ATOMIC_ACQ_REL);

	if (!__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) ||
	    (!pending && !r->next && !r->nretired &&
			!__atomic_load_n(&r->excluding, __ATOMIC_RELAXED) &&
			!__atomic_load_n(&r->nexcluded, __ATOMIC_RELAXED)))
		return 0;
	uint32_t n = excluded_now(d, ex);

	/*
	 * Left out only once they hold our writes back (the backlog began):
	 * a node seen down whose reader still acknowledges (beats late, a
	 * process paused) costs nothing, and leaving it out would cost it a
	 * resync. The backlog's start wakes this thread.
	 */
	if (n && !r->excluding && !r->next &&
	    !__atomic_load_n(&d->send.backlog_bytes, __ATOMIC_RELAXED))
		return now + LOOK_NS;
	uint32_t nparts = partitions(d, ex, n, parts);
	uint64_t key = parts_key(parts, nparts);

	if (r->next > 0 && r->next_key != key) {
		dds_delete(r->next); /* made for another set: it carries nothing yet */
		r->next = 0;
	}
	if (!r->next && key != r->key) {
		dds_qos_t *q = dds_create_qos();

		if (q) {
			dds_copy_qos(q, r->qos);
			dds_qset_partition(q, nparts, (const char **)parts);
			r->next = dds_create_writer(d->participant, d->topic, q, r->listener);
			dds_delete_qos(q);
		}
		if (r->next <= 0) {
			r->next = 0;
			return now + LOOK_NS; /* try again */
		}
		r->next_key = key;
		r->next_since_ns = now;
	}
	if (r->next > 0) {
		if (!ready(__atomic_load_n(&d->writer, __ATOMIC_ACQUIRE), r->next, ex, n) &&
		    now - r->next_since_ns < READY_MAX_NS)
			return now + MATCH_LOOK_NS;
		swap(d, send_locked, key, n != 0);
	} else {
		retire(d, 0);
	}
	return n || r->nretired || __atomic_load_n(&r->nexcluded, __ATOMIC_RELAXED) ? now + LOOK_NS
										   : 0;
}

/* The backlog waits on the route: a dead reader may be what holds it back. */
int rfm__dds_backlog_room_locked(struct dds_node *d)
{
	uint64_t start = 0;

	/* callbacks=receive: no write waits in Cyclone, the backlog takes all. */
	while (d->send.backlog && d->send.backlog_bytes > RFM_DDS_BACKLOG_WAIT &&
	       !d->callbacks_receive) {
		uint64_t t = rfm__now_ns();

		if (!start)
			start = t;
		if (t - start > RFM_DDS_BLOCK_NS)
			return rfm__error(RFM_ETIMEDOUT,
					  "dds:%s: for %d s no node acknowledged the %llu bytes "
					  "sent before: is a peer stuck?",
					  d->name, (int)(RFM_DDS_BLOCK_NS / 1000000000),
					  (unsigned long long)d->send.backlog_bytes);
		/* Each try waits in Cyclone for room, at most RFM_DDS_WRITE_BLOCK_NS. */
		if (!rfm__dds_backlog_send_locked(d))
			break;
		rfm__dds_route_step(d, true); /* a dead reader may be what holds it */
	}
	return 0;
}
