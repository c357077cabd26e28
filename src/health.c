/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Heartbeats and the node monitor: one thread per handle beats into the
 * node's slot of the heartbeat table in the window (health-table.h) and
 * watches the other slots' beat counters, turning changes into NODE_UP /
 * NODE_DOWN records in this node's event queues; it also watches this
 * node's card and turns status changes into LINK records.
 *
 * A peer is judged by its counter moving, measured on our own clock, not
 * by its timestamps: nodes on a real network do not share a clock. Each
 * slot has one writer, its node, which stores its words plainly (no
 * read-modify-write another node could race with: there is none across
 * cards).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/health.h>

#include "futex.h"
#include "health-table.h"
#include "wait-notify.h"
#include "internal.h"
#include "os/process.h"
#include "rt-internal.h"

#define PERIOD_MIN_NS UINT64_C(1000000)
#define PERIOD_MAX_NS UINT64_C(60000000000)

enum peer_state { PEER_UNKNOWN, PEER_WATCH, PEER_UP, PEER_DOWN };

struct peer {
	enum peer_state state;
	uint32_t incarnation;
	uint64_t beats;
};

struct rfm_health {
	pthread_t thread;
	uint32_t stop;		/* a futex: non-zero ends the thread */
	uint64_t period_ns;
	uint32_t misses;
	uint64_t ups, downs;	/* atomic */
	uint32_t link;		/* our card's status at the last look */
	uint64_t first_ns;	/* when rfm_health_start() made the first tick */
	struct rfm_hb_slot *table; /* the heartbeat table, found at start */
	struct peer peers[RFM_MAX_NODES];
};

/* What a handle has seen of each slot's counter, on its own clock: the
 * monitor and rfm_health_nodes() share it (under its lock: one per handle,
 * so a fork() while another handle's monitor holds its lock hangs nobody). */
struct rfm_hb_seen {
	pthread_mutex_t lock;
	uint64_t beats[RFM_MAX_NODES];
	uint64_t changed_ns[RFM_MAX_NODES]; /* 0: not seen to move yet */
	bool looked[RFM_MAX_NODES];
};

/* A peer's slot as read now (its writer may change it under us). */
struct slot_view {
	bool valid;		/* magic: some node wrote it */
	bool beating;		/* valid and not stopped */
	uint64_t beats, period_ns, beat_ns;
	uint32_t incarnation, link;
	int32_t pid;
	char host[sizeof(((struct rfm_hb_slot *)0)->host) + 1];
};

static uint64_t clamp_period(uint64_t p)
{
	return p < PERIOD_MIN_NS ? PERIOD_MIN_NS : p > PERIOD_MAX_NS ? PERIOD_MAX_NS : p;
}

static void read_slot(const struct rfm_hb_slot *s, struct slot_view *v)
{
	memset(v, 0, sizeof(*v));
	v->valid = rfm__wload32(&s->magic, __ATOMIC_ACQUIRE) == RFM__HB_MAGIC;
	if (!v->valid)
		return;
	v->beats = rfm__wload64(&s->beats, __ATOMIC_ACQUIRE);
	v->beating = rfm__wload32(&s->state, __ATOMIC_RELAXED) == RFM__HB_BEATING;
	v->period_ns = rfm__wload64(&s->period_ns, __ATOMIC_RELAXED);
	v->beat_ns = rfm__wload64(&s->beat_ns, __ATOMIC_RELAXED);
	v->incarnation = rfm__wload32(&s->incarnation, __ATOMIC_RELAXED);
	v->link = rfm__wload32(&s->link, __ATOMIC_RELAXED);
	v->pid = rfm__wloadi32(&s->pid, __ATOMIC_RELAXED);
	for (size_t i = 0; i < sizeof(s->host); i++)
		v->host[i] = __atomic_load_n(&s->host[i], __ATOMIC_RELAXED);
}

static uint32_t own_link(rfm_node *node)
{
	return node->ops->link_status ? node->ops->link_status(node) : 0;
}

/*
 * Our incarnation in the slot: the backend's count where it keeps one
 * (shm:), else one more than the slot's last writer of this id had, so a
 * restart shows on every backend.
 */
static uint32_t own_incarnation(rfm_node *node, const struct rfm_hb_slot *s)
{
	struct rfm_node_facts f = { 0 };

	if (node->ops->node_facts && !node->ops->node_facts(node, (unsigned int)node->id, &f) &&
	    f.incarnation)
		return f.incarnation;
	if (rfm__wload32(&s->magic, __ATOMIC_ACQUIRE) == RFM__HB_MAGIC)
		return rfm__wload32(&s->incarnation, __ATOMIC_RELAXED) + 1;
	return node->incarnation ? node->incarnation : 1;
}

/* The first beat of this handle: who we are, then the magic. */
static void claim_slot(rfm_node *node, struct rfm_hb_slot *s)
{
	/* Zeroed: the slot's field takes every byte, the ones after the
	 * name's end too (they went out as stack garbage: valgrind on dds:). */
	char host[64] = { 0 };
	uint64_t beats = rfm__wload32(&s->magic, __ATOMIC_ACQUIRE) == RFM__HB_MAGIC
				 ? rfm__wload64(&s->beats, __ATOMIC_RELAXED)
				 : 0;

	rfm__core(node)->hb_incarnation = own_incarnation(node, s);
	rfm__os_hostname(host, sizeof(host));
	for (size_t i = 0; i < sizeof(s->host); i++)
		__atomic_store_n(&s->host[i], i < sizeof(s->host) - 1 ? host[i] : 0,
				 __ATOMIC_RELAXED);
	rfm__wstore32(&s->incarnation, rfm__core(node)->hb_incarnation, __ATOMIC_RELAXED);
	rfm__wstorei32(&s->pid, rfm__os_pid(), __ATOMIC_RELAXED);
	/* Counting on from a dead predecessor's count: readers see a move. */
	rfm__wstore64(&s->beats, beats, __ATOMIC_RELAXED);
	rfm__wstore32(&s->magic, RFM__HB_MAGIC, __ATOMIC_RELEASE);
}

static void beat(rfm_node *node, struct rfm_hb_slot *s, uint64_t period_ns, uint32_t link)
{
	if (!rfm__core(node)->hb_incarnation ||
	    rfm__wload32(&s->magic, __ATOMIC_ACQUIRE) != RFM__HB_MAGIC)
		claim_slot(node, s);
	rfm__wstore64(&s->period_ns, period_ns, __ATOMIC_RELAXED);
	rfm__wstore64(&s->beat_ns, rfm__now_ns(), __ATOMIC_RELAXED);
	rfm__wstore32(&s->link, link, __ATOMIC_RELAXED);
	rfm__wstore32(&s->state, RFM__HB_BEATING, __ATOMIC_RELAXED);
	/* One writer: a plain store, never an atomic add. */
	rfm__wstore64(&s->beats, rfm__wload64(&s->beats, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
	/* Where software replicates the window (dds:), the slot goes out now. */
	rfm__published(node, s, sizeof(*s));
}

static int own_slot(rfm_node *node, struct rfm_hb_slot **slotp)
{
	struct rfm_hb_slot *table;
	int ret = rfm__hb_table(node, &table);

	if (!ret)
		*slotp = &table[node->id];
	return ret;
}

RFM_API int rfm_health_beat(rfm_node *node, uint64_t period_ns)
{
	struct rfm_hb_slot *s;
	int ret;

	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_health_beat: node is NULL");
	if (node->observer)
		return rfm__observer_refused(node, "rfm_health_beat");
	if (node->forked)
		return rfm__error(RFM_ECLOSED, "%s: handle inherited through fork()", node->uri);
	ret = own_slot(node, &s);
	if (ret)
		return ret;
	beat(node, s, clamp_period(period_ns ? period_ns : RFM_HEALTH_PERIOD_DEFAULT_NS),
	     own_link(node));
	return 0;
}

/*
 * Note the slot's counter as this handle sees it now. Returns our clock's
 * time when it was last seen to move, 0 when it has not been (yet).
 */
static struct rfm_hb_seen *seen_of(rfm_node *node)
{
	struct rfm_hb_seen *s = __atomic_load_n(&rfm__core(node)->hb_seen, __ATOMIC_ACQUIRE),
			   *none = NULL;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	/* Made by the first of the monitor and a reader: the loser frees its. */
	if (!__atomic_compare_exchange_n(&rfm__core(node)->hb_seen, &none, s, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		s = none;
	}
	return s;
}

static uint64_t observe(rfm_node *node, unsigned int id, uint64_t beats, uint64_t now)
{
	struct rfm_hb_seen *s = seen_of(node);
	uint64_t changed;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	if (s->looked[id] && s->beats[id] != beats)
		s->changed_ns[id] = now;
	s->looked[id] = true;
	s->beats[id] = beats;
	changed = s->changed_ns[id];
	pthread_mutex_unlock(&s->lock);
	return changed;
}

/* Attached, by the backend where it knows (shm:), else by the slot. */
static bool peer_attached(rfm_node *node, unsigned int id, const struct slot_view *v,
			  struct rfm_node_facts *f)
{
	if (node->ops->node_facts && !node->ops->node_facts(node, id, f))
		return f->attached && (!v->valid || v->beating);
	return v->beating;
}

static void announce(rfm_node *node, struct rfm_health *h, unsigned int type, unsigned int id,
		     uint32_t incarnation)
{
	if (type == RFM_EVENT_NODE_UP || type == RFM_EVENT_NODE_DOWN)
		__atomic_fetch_add(type == RFM_EVENT_NODE_UP ? &h->ups : &h->downs, 1,
				   __ATOMIC_RELAXED);
	rfm__event_post(node, (unsigned int)node->id, type, id, incarnation);
	/* The backend acts on it too (dds: a node down counts no more for
	 * acknowledgements). */
	if ((type == RFM_EVENT_NODE_UP || type == RFM_EVENT_NODE_DOWN) && node->ops->peer_verdict)
		node->ops->peer_verdict(node, id, incarnation, type == RFM_EVENT_NODE_UP);
}

static void watch(rfm_node *node, struct rfm_health *h, const struct rfm_hb_slot *slot,
		  unsigned int id, uint64_t now)
{
	struct peer *p = &h->peers[id];
	struct rfm_node_facts f = { 0 };
	struct slot_view v;

	read_slot(slot, &v);
	bool attached = peer_attached(node, id, &v, &f);
	uint64_t changed = observe(node, id, v.beats, now);
	uint64_t period = clamp_period(v.period_ns);

	if (p->state == PEER_UNKNOWN) {
		/* First look: a counter already there may be a dead node's. */
		p->state = PEER_WATCH;
		p->beats = v.beats;
		p->incarnation = v.incarnation;
		return;
	}
	if (p->state == PEER_UP && (!attached || v.incarnation != p->incarnation)) {
		/* Stopped, detached, or restarted between two looks. */
		p->state = PEER_DOWN;
		announce(node, h, RFM_EVENT_NODE_DOWN, id, p->incarnation);
	}
	if (v.valid && v.beats != p->beats) {
		p->beats = v.beats;
		/*
		 * It beat since the last look: a life, up; and if it is gone
		 * already (where the backend can tell a crash at once, shm:),
		 * down right after: no life is missed, however short. The last
		 * beats of a life already reported down are not a new one.
		 */
		bool reported = p->state == PEER_DOWN && v.incarnation == p->incarnation;
		if (p->state != PEER_UP && (attached || !reported)) {
			p->state = PEER_UP;
			p->incarnation = v.incarnation;
			announce(node, h, RFM_EVENT_NODE_UP, id, v.incarnation);
			if (!attached) {
				p->state = PEER_DOWN;
				announce(node, h, RFM_EVENT_NODE_DOWN, id, v.incarnation);
			}
		}
		return;
	}
	if (p->state == PEER_UP && changed && now - changed > (uint64_t)h->misses * period) {
		p->state = PEER_DOWN;
		announce(node, h, RFM_EVENT_NODE_DOWN, id, p->incarnation);
	}
}

/* The card's status: a LINK record when it changed since the last look. */
static void watch_link(rfm_node *node, struct rfm_health *h, uint32_t link)
{
	if (link != h->link)
		announce(node, h, RFM_EVENT_LINK, (unsigned int)node->id, link);
	h->link = link;
}

/* One period's work: our beat, our card, every other slot. */
static void tick(rfm_node *node, struct rfm_health *h)
{
	struct rfm_hb_slot *table = h->table;
	uint64_t now = rfm__now_ns();
	uint32_t link = own_link(node);

	beat(node, &table[node->id], h->period_ns, link);
	watch_link(node, h, link);
	for (unsigned int id = 0; id < RFM_MAX_NODES; id++)
		if ((int)id != node->id)
			watch(node, h, &table[id], id, now);
}

/* The monitor's thread: its beats never wait for back-pressure (backend.h). */
static _Thread_local bool monitor_thread;

bool rfm__health_monitor_thread(void)
{
	return monitor_thread;
}

/* Every period after the first, which rfm_health_start() made itself. */
static void *health_main(void *arg)
{
	rfm_node *node = arg;
	struct rfm_health *h = rfm__core(node)->health;
	uint64_t next = h->first_ns;

	monitor_thread = true;
	for (;;) {
		uint64_t now = rfm__now_ns();

		next += h->period_ns;
		if (next < now)
			next = now + h->period_ns;
		rfm__futex_wait(&h->stop, 0, next, false);
		if (__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
			break;
		tick(node, h);
	}
	return NULL;
}

/* A clean stop: others see us down now, not after our misses. */
static void mark_stopped(rfm_node *node)
{
	struct rfm_hb_slot *s;

	if (!own_slot(node, &s)) {
		rfm__wstore32(&s->state, RFM__HB_STOPPED, __ATOMIC_RELEASE);
		rfm__published(node, &s->state, sizeof(s->state));
	}
}

RFM_API int rfm_health_start(rfm_node *node, const struct rfm_health_config *config)
{
	struct rfm_health *h;
	struct rfm_hb_slot *table;
	int ret, err;

	if (!node)
		return rfm__error(RFM_EINVAL, "rfm_health_start: node is NULL");
	if (node->observer)
		return rfm__observer_refused(node, "rfm_health_start");
	if (config && config->struct_size < offsetof(struct rfm_health_config, reserved))
		return rfm__error(RFM_EINVAL, "rfm_health_start: struct_size %u is too small",
				  config->struct_size);
	if (config && config->period_ns && (config->period_ns < PERIOD_MIN_NS ||
					    config->period_ns > PERIOD_MAX_NS))
		return rfm__error(RFM_EINVAL, "rfm_health_start: period %llu ns is not 1 ms..60 s",
				  (unsigned long long)config->period_ns);
	if (node->forked)
		return rfm__error(RFM_ECLOSED, "%s: handle inherited through fork()", node->uri);
	if (rfm__core(node)->health)
		return rfm__error(RFM_EBUSY, "%s: the heartbeat is already running", node->uri);
	ret = rfm__hb_table(node, &table);
	if (ret)
		return ret;
	h = calloc(1, sizeof(*h));
	if (!h)
		return rfm__error(RFM_ENOMEM, "rfm_health_start: out of memory");
	h->period_ns = config && config->period_ns ? config->period_ns
						   : RFM_HEALTH_PERIOD_DEFAULT_NS;
	h->misses = config && config->misses ? config->misses : RFM_HEALTH_MISSES_DEFAULT;
	/* The status at start is no change: only later ones make records. */
	h->link = own_link(node);
	rfm__core(node)->health = h;
	/*
	 * The first beat and the first look at every slot before returning,
	 * not when the thread is first scheduled: a peer that starts after we
	 * return is then measured against counters taken before it, so a
	 * thread the scheduler runs late still reports its life (up, and down
	 * after its misses) instead of taking its last count for a baseline.
	 */
	h->table = table;
	h->first_ns = rfm__now_ns();
	tick(node, h);
	err = rfm__rt_thread_create(node, &h->thread, health_main, node, "heartbeat");
	if (err) {
		mark_stopped(node);
		rfm__core(node)->health = NULL;
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
	h = rfm__core(node)->health;
	if (!h)
		return 0;
	if (!node->forked) {
		rfm__futex_bump_wake(&h->stop, false);
		pthread_join(h->thread, NULL);
		mark_stopped(node);
	}
	rfm__core(node)->health = NULL;
	free(h);
	return 0;
}

void rfm__health_close(struct rfm_node *node)
{
	rfm_health_stop(node);
	if (rfm__core(node)->hb_seen) {
		pthread_mutex_destroy(&rfm__core(node)->hb_seen->lock);
		free(rfm__core(node)->hb_seen);
		rfm__core(node)->hb_seen = NULL;
	}
}

/*
 * Attached in the node table: by the backend where it knows (shm: a live
 * process holds the id; a slot stopped while its node stays attached is a
 * node without heartbeat), else by the slot. The monitor's "up" is
 * peer_attached(): a slot marked stopped is a goodbye it reports at once.
 */
static bool row_attached(rfm_node *node, unsigned int id, const struct slot_view *v,
			 struct rfm_node_facts *f, bool *facts)
{
	*facts = node->ops->node_facts && !node->ops->node_facts(node, id, f);
	return *facts ? f->attached : v->beating;
}

/* What the node is now (health.h, enum rfm_node_state). */
static uint32_t row_state(const struct slot_view *v, const struct rfm_node_facts *f, bool facts,
			  bool attached, bool alive)
{
	if (attached) {
		if (alive)
			return RFM_NODE_STATE_UP;
		/* Beating, but not within its misses: hung, or gone unseen. */
		return v->valid && v->beating && v->beats ? RFM_NODE_STATE_SILENT
							  : RFM_NODE_STATE_ATTACHED;
	}
	if (facts)
		return f->crashed ? RFM_NODE_STATE_CRASHED : RFM_NODE_STATE_LEFT;
	/* Only the slot to go by: a goodbye, or nothing since its last beat. */
	return v->valid && !v->beating ? RFM_NODE_STATE_LEFT : RFM_NODE_STATE_SILENT;
}

/* One row of rfm_health_nodes() from the slot and the backend's facts. */
static void fill_row(rfm_node *node, struct rfm_node_status *r, unsigned int id,
		     const struct slot_view *v, const struct rfm_node_facts *f, bool facts,
		     bool attached, const char *host, uint64_t now)
{
	uint32_t misses =
	    rfm__core(node)->health ? rfm__core(node)->health->misses : RFM_HEALTH_MISSES_DEFAULT;
	uint64_t changed = v->valid ? observe(node, id, v->beats, now) : 0;

	memset(r, 0, sizeof(*r));
	r->id = id;
	r->attached = attached;
	r->incarnation = v->valid ? v->incarnation : f->incarnation;
	r->beats = v->beats;
	r->period_ns = v->beats ? v->period_ns : 0;
	r->link = v->link;
	if (!v->beats)
		r->age_ns = UINT64_MAX;
	else if ((node->ops->caps & RFM__CAP_SINGLE_HOST) || (int)id == node->id)
		/* One host (or our own slot), one clock: the beater's time of
		 * its last beat. */
		r->age_ns = v->beat_ns > now ? 0 : now - v->beat_ns;
	else
		r->age_ns = changed ? now - changed : UINT64_MAX;
	r->alive = attached && v->beating && v->beats && r->age_ns != UINT64_MAX &&
		   r->age_ns <= (uint64_t)misses * clamp_period(v->period_ns);
	r->state = row_state(v, f, facts, attached, r->alive);
	/* The process of an attached node; a crashed one's dead process says which. */
	if (attached || r->state == RFM_NODE_STATE_CRASHED)
		r->pid = facts ? f->pid : v->pid;
	if (attached)
		memcpy(r->host, host ? host : v->host, host ? sizeof(r->host) : sizeof(v->host));
}

RFM_API const char *rfm_node_state_name(unsigned int state)
{
	static const char *const names[] = { "unknown", "up", "attached", "silent", "left",
					     "crashed" };

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}

RFM_API int rfm_health_nodes(rfm_node *node, struct rfm_node_status *rows, size_t max)
{
	struct rfm_hb_slot *table;
	char host[64] = "";
	uint64_t now = rfm__now_ns();
	int n = 0, ret;

	if (!node || (!rows && max))
		return rfm__error(RFM_EINVAL, "rfm_health_nodes: NULL argument");
	ret = rfm__hb_table(node, &table);
	/* A window too small for the table still has the backend's facts. */
	if (ret == RFM_ESIZE && node->ops->node_facts)
		table = NULL;
	else if (ret)
		return ret;
	/* One host: every node runs on this one. */
	bool one_host = node->ops->caps & RFM__CAP_SINGLE_HOST;
	if (one_host)
		rfm__os_hostname(host, sizeof(host));
	for (unsigned int id = 0; id < RFM_MAX_NODES; id++) {
		struct rfm_node_facts f = { 0 };
		struct slot_view v;
		bool facts;

		if (table)
			read_slot(&table[id], &v);
		else
			memset(&v, 0, sizeof(v));
		bool attached = row_attached(node, id, &v, &f, &facts);
		/* A holder that died without closing is listed, as crashed. */
		if (!attached && !v.beats && !(facts && f.crashed))
			continue;
		if ((size_t)n < max)
			fill_row(node, &rows[n], id, &v, &f, facts, attached, one_host ? host : NULL,
				 now);
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
	full.events_sent = __atomic_load_n(&rfm__core(node)->ev_sent, __ATOMIC_RELAXED);
	if (rfm__core(node)->ev && !rfm_event_get_stats(node, &es)) {
		full.events_received = es.delivered;
		full.events_dropped = es.dropped;
	}
	full.ring_lost = rfm__counted_ring_lost();
	full.record_retries = rfm__counted_record_retries();
	if (rfm__core(node)->health) {
		full.node_downs =
		    __atomic_load_n(&rfm__core(node)->health->downs, __ATOMIC_RELAXED);
		full.node_ups = __atomic_load_n(&rfm__core(node)->health->ups, __ATOMIC_RELAXED);
	}
	memcpy(c, &full, want);
	return 0;
}
