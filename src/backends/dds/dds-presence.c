/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Node ids and presence on the dds: backend. Each node keeps one instance
 * of the "rfm_node" topic (key: its node id) alive: DDS liveliness with
 * the node's lease. A node that closes disposes it; one that dies or is
 * cut off loses it when the lease runs out. The facts the health monitor
 * reads (attached, incarnation, heartbeat) come from here and from the
 * BEAT samples of each node's stream.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/dds/dds-internal.h"

static int dds_fail(const struct rfm_uri *uri, dds_return_t rc, const char *what)
{
	return rfm__error(RFM_EIO, "%s: %s: %s (Cyclone DDS; see CYCLONEDDS_URI in docs/dds.md)",
			  uri->text, what, dds_strretcode(rc));
}

/*
 * Topic @name of type @desc into *@topic (an error naming @what), and in
 * *@qp the qos its reader and writer start from: the network's partition,
 * reliable.
 */
static int create_topic(struct rfm_node *node, const struct rfm_uri *uri,
			const dds_topic_descriptor_t *desc, const char *name, const char *what,
			dds_entity_t *topic, dds_qos_t **qp)
{
	struct dds_node *d = node->priv;
	dds_entity_t e = dds_create_topic(d->participant, desc, name, NULL, NULL);
	const char *part = d->name;

	if (e < 0)
		return dds_fail(uri, e, what);
	*topic = e;
	*qp = dds_create_qos();
	dds_qset_partition(*qp, 1, &part);
	dds_qset_reliability(*qp, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	return 0;
}

/*
 * The reader of @topic with qos @q (released here) and our listener, the
 * stream's or the presence's (@stream); then whether it and its @writer
 * were made, as an error naming @what.
 */
static int create_reader(struct rfm_node *node, const struct rfm_uri *uri, dds_entity_t topic,
			 dds_qos_t *q, bool stream, dds_entity_t writer, dds_entity_t *reader,
			 const char *what)
{
	struct dds_node *d = node->priv;
	dds_listener_t *l = rfm__dds_listener(node, stream);

	*reader = dds_create_reader(d->participant, topic, q, l);
	dds_delete_listener(l);
	dds_delete_qos(q);
	if (writer < 0 || *reader < 0)
		return dds_fail(uri, writer < 0 ? writer : *reader, what);
	return 0;
}

/* Create both topics, their readers (with listeners) and writers. */
static int create_entities(struct rfm_node *node, const struct rfm_uri *uri)
{
	struct dds_node *d = node->priv;
	dds_qos_t *q;
	int ret;

	ret = create_topic(node, uri, &rfm_dds_Node_desc, "rfm_node", "creating the node topic",
			   &d->node_topic, &q);
	if (ret)
		return ret;
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_MSECS(d->lease_ms));
	d->node_writer = dds_create_writer(d->participant, d->node_topic, q, NULL);
	/* Any lease is accepted from others: ours is what we promise. */
	dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_INFINITY);
	ret = create_reader(node, uri, d->node_topic, q, false, d->node_writer, &d->node_reader,
			    "creating the node reader and writer");
	if (ret)
		return ret;

	ret = create_topic(node, uri, &rfm_dds_Msg_desc, "rfm_stream", "creating the stream topic",
			   &d->topic, &q);
	if (ret)
		return ret;
	/* Keep every sample until each reader has it: order and no loss. */
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_ignorelocal(q, DDS_IGNORELOCAL_PARTICIPANT);
	/* callbacks=receive: a write never waits, what Cyclone cannot take
	 * waits in the backlog (dds-backlog.c). */
	if (d->callbacks_receive)
		dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, 0);
	dds_listener_t *wl = rfm__dds_match_listener(node);
	d->writer = dds_create_writer(d->participant, d->topic, q, wl);
	dds_delete_listener(wl);
	return create_reader(node, uri, d->topic, q, true, d->writer, &d->reader,
			     "creating the stream reader and writer");
}

static uint64_t deadline_after_ms(uint32_t ms, struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	uint64_t ns = (uint64_t)ts->tv_nsec + (uint64_t)ms * 1000000u;
	ts->tv_sec += (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
	return ns;
}

/* Writes our claim of d->id: pending while we wait, then held. */
static dds_return_t write_claim(struct dds_node *d, uint64_t size, bool pending)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	rfm_dds_Node me = {
		.id = (uint8_t)d->id,
		.inc = d->inc,
		.pending = pending,
		.pid = (int32_t)getpid(),
		.size = size,
		.host = host,
	};
	dds_return_t rc = dds_write(d->node_writer, &me);

	if (rc >= 0)
		d->announced = true;
	return rc;
}

/* Drops our claim of d->id (a pending one we lost). */
static void drop_claim(struct dds_node *d)
{
	dds_unregister_instance(d->node_writer,
				&(rfm_dds_Node){ .id = (uint8_t)d->id, .inc = d->inc });
	d->announced = false;
}

/* Under d->lock: take the claims that arrive for @ms. */
static void discover_locked(struct rfm_node *node, uint32_t ms)
{
	struct dds_node *d = node->priv;
	struct timespec until;

	deadline_after_ms(ms, &until);
	rfm__dds_presence_take(node, d->node_reader);
	while (pthread_cond_timedwait(&d->cond, &d->lock, &until) != ETIMEDOUT)
		;
	rfm__dds_presence_take(node, d->node_reader);
}

/*
 * Under d->lock: does someone else have d->id? A node that holds it, or a
 * claim made at the same time as ours with a lower incarnation: every
 * claimer sees the same claims during its wait and decides alike, so one
 * of two simultaneous claims wins, never both.
 */
static int claim_lost_locked(const struct dds_node *d, const struct rfm_uri *uri)
{
	const struct dds_peer *p = &d->peers[d->id];
	const struct dds_rival *r = &d->rivals[d->id];

	if (p->alive)
		return rfm__error(RFM_EINUSE, "%s: node id %d is in use by pid %d on host %s",
				  uri->text, d->id, (int)p->pid, p->host);
	if (r->inc && r->inc < d->inc)
		return rfm__error(RFM_EINUSE,
				  "%s: node id %d is in use by pid %d on host %s, which claimed "
				  "it at the same time and keeps it",
				  uri->text, d->id, (int)r->pid, r->host);
	return 0;
}

/*
 * Under d->lock: no node= given, so take the lowest id nobody holds or
 * claims. Two nodes doing this at once may pick the same one: each claims
 * it, waits a quarter of the join wait (they know each other by now) and
 * the loser tries the next.
 */
static int claim_free_id_locked(struct rfm_node *node, const struct rfm_uri *uri,
				uint64_t size)
{
	struct dds_node *d = node->priv;
	bool tried[RFM_MAX_NODES] = { false };

	for (;;) {
		int id = 0;

		while (id < RFM_MAX_NODES &&
		       (tried[id] || d->peers[id].alive || d->rivals[id].inc))
			id++;
		if (id == RFM_MAX_NODES) {
			d->id = -1;
			return rfm__error(RFM_EFULL, "%s: all %d node ids are in use", uri->text,
					  RFM_MAX_NODES);
		}
		tried[id] = true;
		d->id = id;
		pthread_mutex_unlock(&d->lock); /* our reader takes the write at once */
		dds_return_t rc = write_claim(d, size, true);
		pthread_mutex_lock(&d->lock);
		if (rc < 0)
			return dds_fail(uri, rc, "claiming a node id");
		discover_locked(node, d->join_ms / 4);
		if (!claim_lost_locked(d, uri))
			return 0;
		pthread_mutex_unlock(&d->lock);
		drop_claim(d);
		pthread_mutex_lock(&d->lock);
	}
}

/* Under d->lock: every node has the window size we take (or were given). */
static int sizes_agree_locked(const struct dds_node *d, const struct rfm_uri *uri,
			      uint64_t *sizep, bool size_given)
{
	int holder = -1;

	for (int id = 0; id < RFM_MAX_NODES; id++) {
		const struct dds_peer *p = &d->peers[id];

		if (!p->alive)
			continue;
		if (!size_given && holder < 0) {
			*sizep = p->size;
			holder = id;
		}
		if (p->size != *sizep)
			return rfm__error(RFM_ESIZE,
					  "%s: node %d (pid %d on %s) has a %llu-byte window, not "
					  "the %llu bytes %s",
					  uri->text, id, (int)p->pid, p->host,
					  (unsigned long long)p->size, (unsigned long long)*sizep,
					  holder >= 0 ? "of the others" : "asked for");
	}
	if (!*sizep)
		*sizep = RFM_SHM_DEFAULT_SIZE;
	return 0;
}

int rfm__dds_presence_open(struct rfm_node *node, const struct rfm_uri *uri, uint64_t *sizep,
			   bool size_given)
{
	struct dds_node *d = node->priv;
	int ret;

	dds_entity_t e = dds_create_participant((dds_domainid_t)d->domain, NULL, NULL);
	if (e < 0)
		return dds_fail(uri, e, "joining the DDS domain");
	d->participant = e;
	ret = rfm__dds_start_thread(node);
	if (ret)
		return ret;
	ret = create_entities(node, uri);
	if (ret)
		return ret;

	/*
	 * Claim first, then wait: whoever is on the network shows up within
	 * the join wait, and so does a node claiming the same id right now.
	 * Claims already known to this process come with the reader, without
	 * a listener call: taken at the start of the wait and again after.
	 */
	if (d->id >= 0) {
		dds_return_t rc = write_claim(d, *sizep, true);

		if (rc < 0)
			return dds_fail(uri, rc, "claiming the node id");
	}
	pthread_mutex_lock(&d->lock);
	discover_locked(node, d->join_ms);
	if (d->id >= 0)
		ret = claim_lost_locked(d, uri);
	else
		ret = claim_free_id_locked(node, uri, *sizep);
	if (!ret)
		ret = sizes_agree_locked(d, uri, sizep, size_given);
	pthread_mutex_unlock(&d->lock);
	if (ret)
		return ret;

	dds_return_t rc = write_claim(d, *sizep, false);
	if (rc < 0)
		return dds_fail(uri, rc, "announcing the node");
	return 0;
}

/* A pending claim from elsewhere: the lowest incarnation per id is kept. */
static void note_rival(struct dds_node *d, const rfm_dds_Node *s, bool alive)
{
	struct dds_rival *r = &d->rivals[s->id];

	if (!alive || (r->inc && r->inc <= s->inc))
		return;
	r->inc = s->inc;
	r->pid = s->pid;
	snprintf(r->host, sizeof(r->host), "%s", s->host ? s->host : "");
}

/* That claim is held now, or gone. */
static void forget_rival(struct dds_node *d, const rfm_dds_Node *s)
{
	if (d->rivals[s->id].inc == s->inc)
		d->rivals[s->id].inc = 0;
}

/* The participant that wrote @info's sample, for the joiner's wait for
 * its stream endpoints (dds-join.c). */
static void note_participant(dds_entity_t reader, const dds_sample_info_t *info,
			     struct dds_peer *p)
{
	dds_builtintopic_endpoint_t *ep =
		dds_get_matched_publication_data(reader, info->publication_handle);

	if (!ep)
		return; /* gone already: the liveliness change follows */
	p->participant = ep->participant_key;
	dds_builtintopic_free_endpoint(ep);
}

/*
 * @reader is the node reader: the listener's argument, since a listener may
 * run before dds_create_reader() has returned and d->node_reader is set.
 */
void rfm__dds_presence_take(struct rfm_node *node, dds_entity_t reader)
{
	struct dds_node *d = node->priv;
	void *samples[16] = { NULL };
	dds_sample_info_t infos[16];
	int n;

	while ((n = dds_take(reader, samples, infos, 16, 16)) > 0) {
		for (int i = 0; i < n; i++) {
			const rfm_dds_Node *s = samples[i];
			struct dds_peer *p = &d->peers[s->id];

			if (infos[i].valid_data) {
				if (s->inc == d->inc)
					continue; /* our own claim */
				if (s->pending) {
					note_rival(d, s, infos[i].instance_state == DDS_IST_ALIVE);
					continue;
				}
				forget_rival(d, s);
				bool back = !p->alive && p->inc == s->inc && d->joined;

				p->alive = infos[i].instance_state == DDS_IST_ALIVE;
				p->inc = s->inc;
				/* Back after a partition: its words may have changed. */
				if (back && p->alive)
					rfm__dds_want_resync(node, s->id);
				p->pid = s->pid;
				p->size = s->size;
				note_participant(reader, &infos[i], p);
				snprintf(p->host, sizeof(p->host), "%s", s->host ? s->host : "");
				if (d->joined && p->size != d->size && !p->other_size) {
					/*
					 * Met after opening (two networks of one name
					 * joined by a healed partition): say so once,
					 * with both sizes known to the caller's info.
					 */
					p->other_size = true;
					struct rfm_ev_record rec = { .type = RFM_EVENT_LINK,
								     .sender = s->id,
								     .data = 0 };
					rfm__dds_deliver(node, &rec);
				} else if (p->size == d->size) {
					p->other_size = false;
				}
			} else if (infos[i].instance_state != DDS_IST_ALIVE) {
				/* Unregistered (closed) or no writer left (lease ran out). */
				forget_rival(d, s);
				if (p->inc == s->inc)
					p->alive = false;
			}
		}
		dds_return_loan(reader, samples, n);
	}
	/* A peer in this process reads our writes as our calls return: hold none. */
	bool near = false;
	for (int id = 0; id < RFM_MAX_NODES; id++)
		if (id != d->id && d->peers[id].alive && d->peers[id].pid == (int32_t)getpid())
			near = true;
	__atomic_store_n(&d->peer_in_process, near, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&d->cond);
}

int rfm__dds_node_facts(struct rfm_node *node, unsigned int id, struct rfm_node_facts *facts)
{
	struct dds_node *d = node->priv;

	if (id > RFM_NODE_ID_MAX)
		return RFM_ENODEID;
	if ((int)id == d->id) {
		facts->attached = true;
		facts->incarnation = d->inc;
		facts->pid = (int32_t)getpid();
		return 0;
	}
	pthread_mutex_lock(&d->lock);
	facts->attached = d->peers[id].alive;
	facts->incarnation = d->peers[id].inc;
	facts->pid = d->peers[id].pid;
	pthread_mutex_unlock(&d->lock);
	return 0;
}

bool rfm__dds_node_alive(struct rfm_node *node, unsigned int id, uint32_t incarnation)
{
	struct dds_node *d = node->priv;
	bool alive;

	if (id > RFM_NODE_ID_MAX)
		return false;
	if ((int)id == d->id)
		return incarnation == d->inc;
	pthread_mutex_lock(&d->lock);
	alive = d->peers[id].alive && d->peers[id].inc == incarnation;
	pthread_mutex_unlock(&d->lock);
	return alive;
}

bool rfm__dds_node_attached(struct rfm_node *node, unsigned int id)
{
	struct dds_node *d = node->priv;
	bool alive;

	if (id > RFM_NODE_ID_MAX)
		return false;
	if ((int)id == d->id)
		return true;
	pthread_mutex_lock(&d->lock);
	alive = d->peers[id].alive;
	pthread_mutex_unlock(&d->lock);
	return alive;
}
