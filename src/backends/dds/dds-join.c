/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who gives a joining node its copy of the window (dds: backend), and what
 * a node that is joining itself does with the requests of others.
 *
 * Nodes started together are all joining at once: none holds a copy yet,
 * and a joiner cannot answer before it has one. If each held the others'
 * requests until joined, three or more would wait in a cycle. The rule is a
 * total order on node ids, so no cycle can form:
 *
 *  - a joiner asks the lowest live peer first, then the next higher ones;
 *  - a joiner asked by a HIGHER id keeps the request and answers it as soon
 *    as it has a copy (the higher one waits on a lower one: allowed);
 *  - a joiner asked by a LOWER id answers BUSY at once (no one waits on a
 *    higher id for more than one round trip);
 *  - a joiner whose every live peer has a higher id and answered BUSY is the
 *    origin: its own (fresh, zeroed) copy is the network's, and it answers
 *    the requests it kept.
 *
 * Waiting edges only point from a higher id to a lower one, so they end at
 * the lowest joiner, which waits on no one: every node opens within its
 * discovery wait plus one snapshot transfer. A node that has joined answers
 * every request, so a joiner meeting a running network takes its copy from
 * the lowest running node as before.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/dds/dds-internal.h"

/* How long one peer gets to send its copy, plus time per MiB of window. */
#define SNAP_WAIT_MS 3000u
#define SNAP_WAIT_PER_MIB_MS 100u
#define SNAP_TRIES 3

/*
 * The next peer to ask: the lowest live one that did not answer BUSY, the
 * fewest timeouts first. -1: there is none, so we are the origin: only a
 * higher id answers BUSY, hence every live peer is higher and joining too
 * (or there is no peer at all).
 */
static int next_peer(const struct dds_node *d, const bool *busy, const uint8_t *timeouts)
{
	int best = -1;

	for (int id = 0; id < RFM_MAX_NODES; id++) {
		if (id == d->id || !d->peers[id].alive || busy[id])
			continue;
		if (best < 0 || timeouts[id] < timeouts[best])
			best = id;
	}
	return best;
}

/*
 * Under d->lock: wait until @peer's stream reader and writer match ours,
 * at most until @until. Its presence can arrive before its stream
 * endpoints are discovered, and a request sent then reaches no one (the
 * stream keeps nothing for late readers): a lost request was what left
 * joiners waiting out the whole snapshot wait. False: still not matched.
 */
static bool wait_matched(struct dds_node *d, int peer, const struct timespec *until)
{
	for (;;) {
		dds_guid_t who = d->peers[peer].participant;

		if (!rfm__dds_guid_known(&who))
			return true; /* not known: ask at once, as before */
		pthread_mutex_unlock(&d->lock);
		bool both = rfm__dds_matches(__atomic_load_n(&d->writer, __ATOMIC_ACQUIRE), true,
					     &who) &&
			    rfm__dds_matches(d->reader, false, &who);
		pthread_mutex_lock(&d->lock);
		if (both || !d->peers[peer].alive)
			return both;
		if (pthread_cond_timedwait(&d->cond, &d->lock, until) == ETIMEDOUT)
			return false;
	}
}

/* Under d->lock: ask @peer for its copy, wait for it, a BUSY, or the time. */
static int ask(struct rfm_node *node, int peer, uint32_t wait_ms, bool *timed_out)
{
	struct dds_node *d = node->priv;

	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)wait_ms * 1000000u;
	until.tv_sec += (time_t)(ns / 1000000000u);
	until.tv_nsec = (long)(ns % 1000000000u);
	*timed_out = false;
	d->join.snap_from = peer;
	d->join.snap_nonce = rfm__dds_nonce(); /* a stranger cannot guess it */
	/* Remembered: an answer to it that comes after the next ask is late. */
	uint32_t slot = d->join.snap_asks++ % RFM_ARRAY_SIZE(d->join.snap_asked);
	d->join.snap_asked[slot].peer = (uint16_t)peer;
	d->join.snap_asked[slot].nonce = d->join.snap_nonce;
	d->join.snap_header = false;
	d->join.snap_busy = false;
	if (!wait_matched(d, peer, &until)) {
		*timed_out = !d->join.joined;
		return 0;
	}
	rfm_dds_Msg req = {.kind = DDS_KIND_SNAP_REQ,
			   .to = (uint16_t)peer,
			   .word = d->join.snap_nonce,
			   .type = DDS_REQ_COPY};
	pthread_mutex_unlock(&d->lock);
	int ret;
	/* An observer has no stream of its own: its request stands alone. */
	if (d->observer) {
		req.kind = DDS_KIND_OBSERVE;
		ret = rfm__dds_write(d, &req) < 0 ? rfm__error(RFM_EIO, "dds:%s: asking node %d for "
							      "its copy failed", d->name, peer)
						  : 0;
	} else {
		ret = rfm__dds_send(d, &req);
	}
	pthread_mutex_lock(&d->lock);
	if (ret)
		return ret;

	/*
	 * A copy still arriving is waited for: each wait that ends with more
	 * of it taken than before starts another. Under heavy loss or load a
	 * large copy can take longer than one wait; a peer that sends nothing
	 * more costs one wait. Bounded by the copy's pieces (each wait needs
	 * a new one; a peer that trickles them is answered with its end).
	 */
	uint32_t seen = d->join.snap_pieces;
	uint32_t more = (uint32_t)(d->size / RFM_DDS_CHUNK) + 2;

	while (!d->join.joined && !d->join.snap_busy) {
		if (pthread_cond_timedwait(&d->cond, &d->lock, &until) != ETIMEDOUT)
			continue;
		if (d->join.snap_pieces == seen || !more--) {
			*timed_out = !d->join.joined && !d->join.snap_busy;
			break;
		}
		seen = d->join.snap_pieces;
		until.tv_sec += (time_t)(wait_ms / 1000u);
		until.tv_nsec += (long)(wait_ms % 1000u) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	return 0;
}

int rfm__dds_join(struct rfm_node *node)
{
	struct dds_node *d = node->priv;
	uint32_t wait_ms = SNAP_WAIT_MS + (uint32_t)(d->size >> 20) * SNAP_WAIT_PER_MIB_MS;
	bool busy[RFM_MAX_NODES] = { false };
	uint8_t timeouts[RFM_MAX_NODES] = { 0 };
	int asked = -1, tries = 0, ret = 0;

	d->join.snap_vec = calloc(1, sizeof(*d->join.snap_vec));
	if (!d->join.snap_vec)
		return rfm__error(RFM_ENOMEM, "dds:%s: out of memory", d->name);
	pthread_mutex_lock(&d->lock);
	while (!d->join.joined && tries < SNAP_TRIES) {
		bool timed_out;
		int peer = next_peer(d, busy, timeouts);

		if (peer < 0 && d->observer) {
			/* Nobody has a copy yet (all joining): a round, then again. */
			memset(busy, 0, sizeof(busy));
			tries++;
			peer = next_peer(d, busy, timeouts);
			if (peer < 0 || tries >= SNAP_TRIES)
				break;
		}
		if (peer < 0) {
			/* The lowest of the joiners (or alone): ours is the network's copy. */
			rfm__dds_joined_apply_held(node);
			break;
		}
		asked = peer;
		ret = ask(node, peer, wait_ms, &timed_out);
		if (ret)
			break;
		if (d->join.snap_busy)
			busy[peer] = true;
		if (timed_out) {
			timeouts[peer]++;
			tries++;
		}
	}
	bool joined = d->join.joined;
	pthread_mutex_unlock(&d->lock);
	if (ret)
		return ret;
	if (!joined)
		return rfm__error(RFM_ETIMEDOUT,
				  "dds:%s: no copy of the window from node %d within %u ms (%d tries): "
				  "is the peer reachable both ways? (CYCLONEDDS_URI, firewall)",
				  d->name, asked, wait_ms, SNAP_TRIES);
	return 0;
}
