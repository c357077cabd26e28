/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Claiming a node id on the dds: backend, at open: our presence instance
 * is written as a pending claim, the claims and nodes already there are
 * taken from the node reader for the join wait (dds-presence.c), and the
 * claim is held or given up. Of two claims of one id made at once, the
 * lower incarnation wins everywhere alike. Last, every node must have
 * the window size we take.
 */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "os/process.h"
#include "backends/dds/dds-internal.h"

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
	char host[64];

	rfm__os_hostname(host, sizeof(host));
	rfm_dds_Node me = {
		.id = (uint8_t)d->id,
		.inc = d->inc,
		.pending = pending,
		.pid = rfm__os_pid(),
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
	if (rfm__dds_rival_live(d, (unsigned int)d->id) && r->inc < d->inc)
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
		/* A tool (tool=1) takes its id from the range kept for tools. */
		int id = d->tool ? RFM_NODE_TOOL_FIRST : 0;

		while (id < RFM_MAX_NODES &&
		       (tried[id] || d->peers[id].alive || rfm__dds_rival_live(d, (unsigned int)id)))
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
			return rfm__dds_fail(uri, rc, "claiming a node id");
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

int rfm__dds_claim(struct rfm_node *node, const struct rfm_uri *uri, uint64_t *sizep,
		   bool size_given)
{
	struct dds_node *d = node->priv;
	int ret;

	/*
	 * Claim first, then wait: whoever is on the network shows up within
	 * the join wait, and so does a node claiming the same id right now.
	 * Claims already known to this process come with the reader, without
	 * a listener call: taken at the start of the wait and again after.
	 */
	if (d->id >= 0) {
		dds_return_t rc = write_claim(d, *sizep, true);

		if (rc < 0)
			return rfm__dds_fail(uri, rc, "claiming the node id");
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
		return rfm__dds_fail(uri, rc, "announcing the node");
	return 0;
}

int rfm__dds_find_size(struct rfm_node *node, const struct rfm_uri *uri, uint64_t *sizep,
		       bool size_given)
{
	struct dds_node *d = node->priv;
	bool anyone = false;
	int ret;

	pthread_mutex_lock(&d->lock);
	discover_locked(node, d->join_ms);
	for (int id = 0; id < RFM_MAX_NODES && !anyone; id++)
		anyone = d->peers[id].alive;
	ret = anyone ? sizes_agree_locked(d, uri, sizep, size_given)
		     : rfm__error(RFM_ENOENT,
				  "%s: no node of network '%s' answered within %u ms: an observer "
				  "reads a network, it does not make one",
				  uri->text, d->name, d->join_ms);
	pthread_mutex_unlock(&d->lock);
	return ret;
}
