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
#include <unistd.h>

#include "backends/dds/dds-internal.h"

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
