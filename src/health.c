/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Heartbeats and the node monitor: one thread per handle beats into the
 * node's heartbeat area and watches the others' beat counters, turning
 * changes into NODE_UP / NODE_DOWN records in this node's event queues.
 *
 * A peer is judged by its counter moving, measured on our own clock, not
 * by its timestamps: nodes on a real network do not share a clock.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rfm/health.h>

#include "futex.h"
#include "wait-notify.h"
#include "internal.h"
#include "rt-internal.h"

#define PERIOD_MIN_NS UINT64_C(1000000)
#define PERIOD_MAX_NS UINT64_C(60000000000)

enum peer_state { PEER_UNKNOWN, PEER_WATCH, PEER_UP, PEER_DOWN };

struct peer {
	enum peer_state state;
	uint32_t incarnation;
	uint64_t beats;
	uint64_t changed_ns;	/* our clock when the counter last moved */
};

struct rfm_health {
	pthread_t thread;
	uint32_t stop;		/* a futex: non-zero ends the thread */
	uint64_t period_ns;
	uint32_t misses;
	uint64_t ups, downs;	/* atomic */
	struct peer peers[RFM_MAX_NODES];
};

static uint64_t clamp_period(uint64_t p)
{
	return p < PERIOD_MIN_NS ? PERIOD_MIN_NS : p > PERIOD_MAX_NS ? PERIOD_MAX_NS : p;
}

static int own_area(rfm_node *node, struct rfm_hb_area **areap)
{
	struct rfm_node_facts f = { 0 };

	if (!node->ops->node_facts || node->ops->node_facts(node, (unsigned int)node->id, &f) ||
	    !f.beat)
		return rfm__error(RFM_ENOTSUP, "%s: the %s: backend has no heartbeat area",
				  node->uri, node->ops->scheme);
	*areap = f.beat;
	return 0;
}

static void beat(rfm_node *node, struct rfm_hb_area *a, uint64_t period_ns)
{
	__atomic_store_n(&a->period_ns, period_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&a->beat_ns, rfm__now_ns(), __ATOMIC_RELAXED);
	__atomic_fetch_add(&a->beats, 1, __ATOMIC_RELEASE);
	/* Where the others cannot read our area (dds:), the backend carries it. */
	if (node->ops->beat)
		node->ops->beat(node, a);
}

RFM_API int rfm_health_beat(rfm_node *node, uint64_t period_ns)
{
	struct rfm_hb_area *a;
	int ret;

	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_health_beat: node is NULL");
	ret = own_area(node, &a);
	if (ret)
		return ret;
	beat(node, a, clamp_period(period_ns ? period_ns : RFM_HEALTH_PERIOD_DEFAULT_NS));
	return 0;
}

static void announce(rfm_node *node, struct rfm_health *h, unsigned int type, unsigned int id,
		     uint32_t incarnation)
{
	__atomic_fetch_add(type == RFM_EVENT_NODE_UP ? &h->ups : &h->downs, 1, __ATOMIC_RELAXED);
	rfm__event_post(node, (unsigned int)node->id, type, id, incarnation);
}

static void watch(rfm_node *node, struct rfm_health *h, unsigned int id, uint64_t now)
{
	struct peer *p = &h->peers[id];
	struct rfm_node_facts f = { 0 };

	if (node->ops->node_facts(node, id, &f) || !f.beat)
		return;
	uint64_t beats = __atomic_load_n(&f.beat->beats, __ATOMIC_ACQUIRE);
	uint64_t period = clamp_period(__atomic_load_n(&f.beat->period_ns, __ATOMIC_RELAXED));

	if (p->state == PEER_UNKNOWN) {
		/* First look: a counter already there may be a dead node's. */
		p->state = PEER_WATCH;
		p->beats = beats;
		p->incarnation = f.incarnation;
		p->changed_ns = now;
		return;
	}
	if (p->state == PEER_UP && (!f.attached || f.incarnation != p->incarnation)) {
		/* Detached, or restarted between two looks. */
		p->state = PEER_DOWN;
		announce(node, h, RFM_EVENT_NODE_DOWN, id, p->incarnation);
	}
	if (f.attached && beats != p->beats) {
		p->beats = beats;
		p->changed_ns = now;
		if (p->state != PEER_UP) {
			p->state = PEER_UP;
			p->incarnation = f.incarnation;
			announce(node, h, RFM_EVENT_NODE_UP, id, f.incarnation);
		}
		return;
	}
	if (p->state == PEER_UP && now - p->changed_ns > (uint64_t)h->misses * period) {
		p->state = PEER_DOWN;
		announce(node, h, RFM_EVENT_NODE_DOWN, id, p->incarnation);
	}
}

static void *health_main(void *arg)
{
	rfm_node *node = arg;
	struct rfm_health *h = node->health;
	struct rfm_hb_area *own = NULL;
	uint64_t next = rfm__now_ns();

	own_area(node, &own);
	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		uint64_t now = rfm__now_ns();

		beat(node, own, h->period_ns);
		for (unsigned int id = 0; id < RFM_MAX_NODES; id++)
			if ((int)id != node->id)
				watch(node, h, id, now);
		next += h->period_ns;
		if (next < now)
			next = now + h->period_ns;
		rfm__futex_wait(&h->stop, 0, next, false);
	}
	return NULL;
}

RFM_API int rfm_health_start(rfm_node *node, const struct rfm_health_config *config)
{
	struct rfm_health *h;
	struct rfm_hb_area *a;
	int ret, err;

	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_health_start: node is NULL");
	if (config && config->struct_size < offsetof(struct rfm_health_config, reserved))
		return rfm__error(RFM_EINVAL, "rfm_health_start: struct_size %u is too small",
				  config->struct_size);
	if (config && config->period_ns && (config->period_ns < PERIOD_MIN_NS ||
					    config->period_ns > PERIOD_MAX_NS))
		return rfm__error(RFM_EINVAL, "rfm_health_start: period %llu ns is not 1 ms..60 s",
				  (unsigned long long)config->period_ns);
	if (node->forked)
		return rfm__error(RFM_ECLOSED, "%s: handle inherited through fork()", node->uri);
	if (node->health)
		return rfm__error(RFM_EBUSY, "%s: the heartbeat is already running", node->uri);
	ret = own_area(node, &a);
	if (ret)
		return ret;
	h = calloc(1, sizeof(*h));
	if (!h)
		return rfm__error(RFM_ENOMEM, "rfm_health_start: out of memory");
	h->period_ns = config && config->period_ns ? config->period_ns
						   : RFM_HEALTH_PERIOD_DEFAULT_NS;
	h->misses = config && config->misses ? config->misses : RFM_HEALTH_MISSES_DEFAULT;
	node->health = h;
	err = rfm__rt_thread_create(node, &h->thread, health_main, node, "heartbeat");
	if (err) {
		node->health = NULL;
		free(h);
		return err;
	}
	return 0;
}

RFM_API int rfm_health_stop(rfm_node *node)
{
	struct rfm_health *h;

	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_health_stop: node is NULL");
	h = node->health;
	if (!h)
		return 0;
	if (!node->forked) {
		rfm__futex_bump_wake(&h->stop, false);
		pthread_join(h->thread, NULL);
	}
	node->health = NULL;
	free(h);
	return 0;
}

void rfm__health_close(struct rfm_node *node)
{
	rfm_health_stop(node);
}

RFM_API int rfm_health_nodes(rfm_node *node, struct rfm_node_status *rows, size_t max)
{
	char host[64] = "";
	uint64_t now = rfm__now_ns();
	int n = 0;

	if (!node || (!rows && max))
		return rfm__error(RFM_EINVAL, "rfm_health_nodes: NULL argument");
	if (!node->ops->node_facts)
		return rfm__error(RFM_ENOTSUP, "%s: the %s: backend has no node table", node->uri,
				  node->ops->scheme);
	/* One host: every node runs on this one. */
	if ((node->ops->caps & RFM__CAP_SINGLE_HOST) && gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	for (unsigned int id = 0; id < RFM_MAX_NODES; id++) {
		struct rfm_node_facts f = { 0 };

		if (node->ops->node_facts(node, id, &f))
			continue;
		uint64_t beats = f.beat ? __atomic_load_n(&f.beat->beats, __ATOMIC_ACQUIRE) : 0;
		if (!f.attached && !beats)
			continue;
		if ((size_t)n < max) {
			struct rfm_node_status *r = &rows[n];
			/* The beating node (maybe a thread of ours) writes these at any time. */
			uint64_t period = beats ? __atomic_load_n(&f.beat->period_ns, __ATOMIC_RELAXED) : 0;
			uint64_t at = beats ? __atomic_load_n(&f.beat->beat_ns, __ATOMIC_RELAXED) : 0;
			uint32_t misses = node->health ? node->health->misses
						       : RFM_HEALTH_MISSES_DEFAULT;

			memset(r, 0, sizeof(*r));
			r->id = id;
			r->attached = f.attached;
			r->incarnation = f.incarnation;
			r->beats = beats;
			r->period_ns = period;
			r->age_ns = !beats ? UINT64_MAX : at > now ? 0 : now - at;
			r->alive = f.attached && beats &&
				   r->age_ns <= (uint64_t)misses * clamp_period(period);
			r->pid = f.attached ? f.pid : 0;
			if (f.attached)
				memcpy(r->host, f.host[0] ? f.host : host, sizeof(r->host));
		}
		n++;
	}
	return n;
}

RFM_API int rfm_health_get_counters(rfm_node *node, struct rfm_health_counters *c)
{
	struct rfm_health_counters full = { 0 };
	struct rfm_event_stats es = { .struct_size = sizeof(es) };
	uint32_t want;

	if (!node || !c || c->struct_size < 8)
		return rfm__error(RFM_EINVAL, "rfm_health_get_counters: NULL or struct_size");
	want = c->struct_size < sizeof(full) ? c->struct_size : sizeof(full);
	full.struct_size = want;
	full.events_sent = __atomic_load_n(&node->ev_sent, __ATOMIC_RELAXED);
	if (node->ev && !rfm_event_get_stats(node, &es)) {
		full.events_received = es.delivered;
		full.events_dropped = es.dropped;
	}
	full.ring_lost = rfm__counted_ring_lost();
	full.record_retries = rfm__counted_record_retries();
	if (node->health) {
		full.node_downs = __atomic_load_n(&node->health->downs, __ATOMIC_RELAXED);
		full.node_ups = __atomic_load_n(&node->health->ups, __ATOMIC_RELAXED);
	}
	memcpy(c, &full, want);
	return 0;
}
