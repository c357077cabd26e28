/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Node ids and presence on the dds: backend. Each node keeps one instance
 * of the "rfm_node" topic (key: its node id) alive: DDS liveliness with
 * the node's lease. A node that closes disposes it; one that dies or is
 * cut off loses it when the lease runs out. The facts the health monitor
 * reads (attached, incarnation, heartbeat) come from here and from the
 * BEAT samples of each node's stream.
 *
 * This file takes what the node reader receives (the receive side,
 * dds-receive.c, calls it under the handle's lock) and answers what the
 * core asks about nodes. Claiming our own id at open is dds-claim.c, above
 * it; the topics, readers and writers are made in dds-backend.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/process.h"
#include "backends/dds/dds-internal.h"

/*
 * A pending claim counts for 2 * join + 1 s after it was written (its
 * source timestamp): a real claimer holds or drops its claim within its
 * own join wait, so one older than that was left by a participant that
 * never follows with a node. Nodes of one network use like join waits
 * (docs/security.md says what a much longer one risks).
 */
static int64_t pending_max_ns(const struct dds_node *d)
{
	return ((int64_t)d->join_ms * 2 + 1000) * 1000000;
}

bool rfm__dds_rival_live(const struct dds_node *d, unsigned int id)
{
	const struct dds_rival *r = &d->rivals[id];
	int64_t age = dds_time() - r->stamp;

	return r->inc && age < pending_max_ns(d) && age > -pending_max_ns(d);
}

/* A pending claim from elsewhere: the lowest incarnation per id is kept. */
static void note_rival(struct dds_node *d, const rfm_dds_Node *s, const dds_sample_info_t *info,
		       const struct dds_writer_id *w)
{
	struct dds_rival *r = &d->rivals[s->id];

	if (info->instance_state != DDS_IST_ALIVE ||
	    (rfm__dds_rival_live(d, s->id) && r->inc <= s->inc))
		return;
	r->inc = s->inc;
	r->pid = s->pid;
	r->participant = w->participant;
	r->stamp = info->source_timestamp;
	snprintf(r->host, sizeof(r->host), "%s", s->host ? s->host : "");
}

/* That claim is held now, or gone. */
static void forget_rival(struct dds_node *d, const rfm_dds_Node *s)
{
	if (d->rivals[s->id].inc == s->inc)
		d->rivals[s->id].inc = 0;
}

/* Is @p's id held, up, by another participant than @who? */
static bool held_by_other(const struct dds_peer *p, const dds_guid_t *who)
{
	return p->alive && rfm__dds_guid_known(&p->participant) &&
	       !rfm__dds_same_participant(&p->participant, who);
}

/*
 * @id's claim is taken. Met late, its stream may have come first: what of
 * it we refused (not yet known to be its) is lost, reported and resynced;
 * a resync it asked for then is answered now.
 */
static void met_late(struct rfm_node *node, unsigned int id)
{
	struct dds_node *d = node->priv;
	uint32_t refused = d->recv.early[id];

	d->recv.early[id] = 0;
	if (!d->peers[id].alive || d->peers[id].other_size)
		return; /* another window: nothing of it is ours to miss (reported once) */
	if (refused && d->join.joined) {
		struct rfm_ev_record rec = { .type = RFM_EVENT_LINK, .sender = id, .data = refused };

		__atomic_fetch_add(&d->recv.gaps, refused, __ATOMIC_RELAXED);
		rfm__dds_deliver(node, &rec);
		rfm__dds_want_resync(node, id);
	}
	if (d->answer.owe[id]) {
		d->answer.owe[id] = false;
		rfm__dds_snapshot_answer(node, &(rfm_dds_Msg){.writer = (uint16_t)id,
							      .word = d->answer.owe_nonce[id],
							      .type = DDS_REQ_OWN});
		rfm__dds_thread_wake(d);
	}
}

/* A held claim of @s->id from @w: the id is bound to its participant. */
static void take_claim(struct rfm_node *node, const rfm_dds_Node *s,
		       const dds_sample_info_t *info, const struct dds_writer_id *w)
{
	struct dds_node *d = node->priv;
	struct dds_peer *p = &d->peers[s->id];
	bool back = !p->alive && p->inc == s->inc && d->join.joined;

	forget_rival(d, s);
	if (!rfm__dds_same_participant(&p->participant, &w->participant)) {
		p->participant = w->participant;
		p->stream_writer = 0;
		p->confirmed = false;
	}
	/* Its stream writer, learnt when it matched: a node, not a lone claim. */
	if (!p->confirmed)
		p->confirmed = rfm__dds_stream_writer_of(d, &w->participant);
	p->alive = info->instance_state == DDS_IST_ALIVE;
	p->inc = s->inc;
	/* Back after a partition: its words may have changed. */
	if (back && p->alive)
		rfm__dds_want_resync(node, s->id);
	p->pid = s->pid;
	p->size = s->size;
	snprintf(p->host, sizeof(p->host), "%s", s->host ? s->host : "");
	if (d->join.joined && p->size != d->size && !p->other_size) {
		/*
		 * Met after opening (two networks of one name joined by a
		 * healed partition): say so once, with both sizes known to
		 * the caller's info.
		 */
		p->other_size = true;
		struct rfm_ev_record rec = { .type = RFM_EVENT_LINK, .sender = s->id, .data = 0 };
		rfm__dds_deliver(node, &rec);
	} else if (p->size == d->size) {
		p->other_size = false;
	}
	met_late(node, s->id);
}

/* One presence sample: a claim, or a change of its instance's state. */
static void take_one(struct rfm_node *node, dds_entity_t reader, const rfm_dds_Node *s,
		     const dds_sample_info_t *info)
{
	struct dds_node *d = node->priv;
	struct dds_peer *p = &d->peers[s->id];
	struct dds_writer_id w;
	bool known = rfm__dds_writer_identity(d, reader, false, info->publication_handle, &w);

	/* security=: a claim or a dispose of node N only from N's partition. */
	if (known && !rfm__dds_security_writer_ok(d, &w, s->id)) {
		rfm__dds_refuse(d);
		return;
	}
	if (info->valid_data) {
		if (s->inc == d->inc)
			return; /* our own claim */
		if (!known)
			return; /* its writer is gone: the liveliness change follows */
		if (s->pending) {
			note_rival(d, s, info, &w);
			return;
		}
		/* A live node's id is its participant's: another's claim is forged. */
		if (held_by_other(p, &w.participant)) {
			rfm__dds_refuse(d);
			return;
		}
		take_claim(node, s, info, &w);
		return;
	}
	if (info->instance_state == DDS_IST_ALIVE)
		return;
	/*
	 * Unregistered or disposed (closed), or no writer left (lease ran
	 * out). A dispose names its writer: only the node's own participant
	 * may end its claim. With no writer left, no one holds it.
	 */
	if (info->instance_state == DDS_IST_NOT_ALIVE_DISPOSED && p->inc == s->inc && p->alive &&
	    (!known || held_by_other(p, &w.participant))) {
		rfm__dds_refuse(d);
		return;
	}
	forget_rival(d, s);
	if (p->inc == s->inc)
		p->alive = false;
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
		for (int i = 0; i < n; i++)
			take_one(node, reader, samples[i], &infos[i]);
		dds_return_loan(reader, samples, n);
	}
	/* A peer in this process reads our writes as our calls return: hold none. */
	bool in_process = false;
	for (int id = 0; id < RFM_MAX_NODES; id++)
		if (id != d->id && d->peers[id].alive && d->peers[id].pid == rfm__os_pid())
			in_process = true;
	__atomic_store_n(&d->send.peer_in_process, in_process, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&d->cond);
}

bool rfm__dds_bound(struct rfm_node *node, dds_entity_t reader, unsigned int id,
		    dds_instance_handle_t pub)
{
	struct dds_node *d = node->priv;
	struct dds_peer *p = &d->peers[id];
	struct dds_writer_id w;

	if (pub && p->stream_writer == pub)
		return true;
	if (!rfm__dds_writer_identity(d, reader, true, pub, &w))
		return false; /* gone before it was ever seen: not known to be anyone's */
	for (int pass = 0; pass < 2; pass++) {
		if (rfm__dds_guid_known(&p->participant) &&
		    rfm__dds_same_participant(&p->participant, &w.participant)) {
			p->stream_writer = pub;
			p->confirmed = true;
			return true;
		}
		/* Its claim may have arrived and not been taken yet. */
		if (pass == 0 && d->presence_reader > 0)
			rfm__dds_presence_take(node, d->presence_reader);
	}
	/* A node opening again: its held claim is on its way. */
	if (!p->alive && rfm__dds_rival_live(d, id) &&
	    rfm__dds_same_participant(&d->rivals[id].participant, &w.participant))
		return true;
	return false;
}

void rfm__dds_writer_matched(struct rfm_node *node, dds_entity_t reader, bool stream,
			     dds_instance_handle_t pub, bool lost)
{
	struct dds_node *d = node->priv;
	struct dds_writer_id w;

	if (!lost) {
		/* Learnt now, while Cyclone still knows it. */
		if (rfm__dds_writer_identity(d, reader, stream, pub, &w) && stream)
			for (int id = 0; id < RFM_MAX_NODES; id++)
				if (rfm__dds_same_participant(&d->peers[id].participant,
							      &w.participant))
					d->peers[id].confirmed = true;
		return;
	}
	/*
	 * A node's writer gone is the node gone, even when a stranger's
	 * dispose was refused before and the instance shows nothing more;
	 * but not a stream writer it replaced with another (dds-route.c).
	 */
	if (!rfm__dds_writer_cached(d, pub, &w))
		return;
	if (stream && rfm__dds_matches(reader, false, &w.participant))
		return;
	for (int id = 0; id < RFM_MAX_NODES; id++)
		if (d->peers[id].alive &&
		    rfm__dds_same_participant(&d->peers[id].participant, &w.participant))
			d->peers[id].alive = false;
}

bool rfm__dds_peer_up(struct dds_node *d, unsigned int id)
{
	return d->peers[id].alive && d->peers[id].confirmed;
}

int rfm__dds_node_facts(struct rfm_node *node, unsigned int id, struct rfm_node_facts *facts)
{
	struct dds_node *d = node->priv;

	if (id > RFM_NODE_ID_MAX)
		return RFM_ENODEID;
	if ((int)id == d->id) {
		facts->attached = true;
		facts->incarnation = d->inc;
		facts->pid = rfm__os_pid();
		return 0;
	}
	pthread_mutex_lock(&d->lock);
	facts->attached = rfm__dds_peer_up(d, id);
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
	alive = rfm__dds_peer_up(d, id) && d->peers[id].inc == incarnation;
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
	alive = rfm__dds_peer_up(d, id);
	pthread_mutex_unlock(&d->lock);
	return alive;
}
