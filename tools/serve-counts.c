/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: event records counted by sending node and type, with rates
 * the server computes from the counters' deltas (once a second or less
 * often, so a rate is never a fraction of one 10 Hz sample), and the
 * sequence words of the layout's records, read from the window; and the
 * node changes the server sees in the node table, sample by sample
 * (callers hold s->lock).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve.h"

/* Rates are recomputed when this much time has passed since the last. */
#define RATE_WINDOW_NS 1000000000ull

/* What the server saw of one node since it started. */
struct node_changes {
	uint64_t downs, ups;
	uint32_t last;		/* RFM_EVENT_NODE_UP or _NODE_DOWN; 0: nothing yet */
	uint32_t incarnation;	/* of the last */
	const char *reason;	/* of the last down: "left", "crashed"...; NULL for an up */
	double since_s;		/* wall clock of the last */
	bool at_start;		/* the last is the first sight of a node up at the start */
	bool up;		/* up (beating) at the last look */
	uint32_t seen_incarnation; /* at the last look */
};

struct serve_counts {
	struct node_changes nodes[RFM_MAX_NODES];
	uint64_t downs, ups;			/* of every node */
	struct json_object *pending;		/* changes for the next SSE frame */
	bool looked;				/* serve_watch_nodes() ran once */
	uint64_t count[RFM_MAX_NODES][32];	/* since the start */
	uint64_t prev[RFM_MAX_NODES][32];	/* at the last rate update */
	double rate[RFM_MAX_NODES][32];		/* records a second */
	uint64_t rate_ns;			/* our clock at the last rate update */
};

int serve_counts_init(struct serve *s)
{
	s->counts = calloc(1, sizeof(*s->counts));
	if (!s->counts)
		return -1;
	s->counts->rate_ns = rfm_event_now_ns();
	return 0;
}

void serve_counts_free(struct serve *s)
{
	if (s->counts)
		json_object_put(s->counts->pending);
	free(s->counts);
	s->counts = NULL;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Node @id went up or down (@reason: why it is down) at @wall: count and queue it. */
static void node_change(struct serve *s, unsigned int id, bool up, uint32_t incarnation,
			const char *reason, double wall)
{
	struct serve_counts *c = s->counts;
	struct node_changes *n = &c->nodes[id];

	n->at_start = false;
	*(up ? &n->ups : &n->downs) += 1;
	*(up ? &c->ups : &c->downs) += 1;
	n->last = up ? RFM_EVENT_NODE_UP : RFM_EVENT_NODE_DOWN;
	n->incarnation = incarnation;
	n->reason = up ? NULL : reason;
	n->since_s = wall;
	if (!c->pending)
		c->pending = json_object_new_array();
	struct json_object *o = json_object_new_object();
	cli_json_add_u64(o, "id", id);
	serve_node_changes_json(s, id, o);
	json_object_array_add(c->pending, o);
}

void serve_watch_nodes(struct serve *s, const struct rfm_node_status *rows, int n)
{
	struct serve_counts *c = s->counts;
	bool up[RFM_MAX_NODES] = { false };
	uint32_t inc[RFM_MAX_NODES] = { 0 };
	uint8_t state[RFM_MAX_NODES];
	double wall = wall_now();

	if (!c || !s->monitor)
		return;
	memset(state, SERVE_NODE_ABSENT, sizeof(state));
	for (int i = 0; i < n && i < RFM_MAX_NODES; i++)
		if (rows[i].id < RFM_MAX_NODES) {
			/* Up: beating within its misses (a node without heartbeat never
			 * goes up or down: nothing says it works). */
			up[rows[i].id] = rows[i].state == RFM_NODE_STATE_UP;
			inc[rows[i].id] = rows[i].incarnation;
			state[rows[i].id] = (uint8_t)serve_node_state(&rows[i]);
		}
	for (unsigned int id = 0; id < RFM_MAX_NODES; id++) {
		struct node_changes *ch = &c->nodes[id];

		if (!c->looked) {
			/* Up when the server starts: seen, not a change. */
			if (up[id]) {
				ch->last = RFM_EVENT_NODE_UP;
				ch->at_start = true;
				ch->incarnation = inc[id];
				ch->since_s = wall;
			}
		} else if (ch->up && (!up[id] || inc[id] != ch->seen_incarnation)) {
			/* Down; or restarted between two looks: down, then up again. */
			node_change(s, id, false, ch->seen_incarnation,
				    up[id] ? "restarted" : serve_node_state_name(state[id]), wall);
			if (up[id])
				node_change(s, id, true, inc[id], NULL, wall);
		} else if (!ch->up && up[id]) {
			node_change(s, id, true, inc[id], NULL, wall);
		}
		ch->up = up[id];
		ch->seen_incarnation = inc[id];
	}
	c->looked = true;
}

void serve_node_changes_json(struct serve *s, unsigned int id, struct json_object *o)
{
	const struct node_changes *n = s->counts && id < RFM_MAX_NODES ? &s->counts->nodes[id] : NULL;
	bool known = s->monitor && n;

	/* null without the monitor: nothing here would ever count, and a 0
	 * would say the node never went down. */
	json_object_object_add(o, "down_count", known ? json_object_new_uint64(n->downs) : NULL);
	json_object_object_add(o, "up_count", known ? json_object_new_uint64(n->ups) : NULL);
	json_object_object_add(o, "change",
			       known && n->last ? json_object_new_string(
							  n->last == RFM_EVENT_NODE_UP ? "up" : "down")
						: NULL);
	json_object_object_add(o, "change_reason",
			       known && n->reason ? json_object_new_string(n->reason) : NULL);
	json_object_object_add(o, "since_s",
			       known && n->last ? json_object_new_double(n->since_s) : NULL);
	cli_json_add_bool(o, "since_start", known && n->last && n->at_start);
	json_object_object_add(o, "change_incarnation",
			       known && n->last ? json_object_new_uint64(n->incarnation) : NULL);
}

void serve_each_node_change(struct serve *s,
			    void (*fn)(void *arg, unsigned int node, uint64_t downs, uint64_t ups),
			    void *arg)
{
	for (unsigned int id = 0; s->counts && id < RFM_MAX_NODES; id++)
		if (s->counts->nodes[id].last)
			fn(arg, id, s->counts->nodes[id].downs, s->counts->nodes[id].ups);
}

void serve_node_change_totals(struct serve *s, uint64_t *downs, uint64_t *ups)
{
	*downs = s->counts ? s->counts->downs : 0;
	*ups = s->counts ? s->counts->ups : 0;
}

struct json_object *serve_take_node_changes(struct serve *s)
{
	struct json_object *a = s->counts ? s->counts->pending : NULL;

	if (s->counts)
		s->counts->pending = NULL;
	return a;
}

void serve_count_event(struct serve *s, const struct rfm_event *ev)
{
	s->received[ev->type & 31]++;
	/* Status records (overflow) carry our own id; other senders are ids. */
	if (s->counts && ev->sender < RFM_MAX_NODES)
		s->counts->count[ev->sender][ev->type & 31]++;
}

void serve_update_rates(struct serve *s, uint64_t now_ns)
{
	struct serve_counts *c = s->counts;

	if (!c || now_ns - c->rate_ns < RATE_WINDOW_NS)
		return;
	double dt = (double)(now_ns - c->rate_ns) / 1e9;
	for (unsigned int n = 0; n < RFM_MAX_NODES; n++)
		for (unsigned int t = 0; t < 32; t++) {
			c->rate[n][t] = (double)(c->count[n][t] - c->prev[n][t]) / dt;
			c->prev[n][t] = c->count[n][t];
		}
	c->rate_ns = now_ns;
}

void serve_each_count(struct serve *s,
		      void (*fn)(void *arg, unsigned int node, const char *type, uint64_t count,
				 double rate),
		      void *arg)
{
	struct serve_counts *c = s->counts;

	if (!c)
		return;
	for (unsigned int n = 0; n < RFM_MAX_NODES; n++)
		for (unsigned int t = 0; t < 32; t++)
			if (c->count[n][t])
				fn(arg, n, rfm_event_type_name(t), c->count[n][t], c->rate[n][t]);
}

int serve_record_seq(struct serve *s, size_t index, const char **name, uint32_t *seq)
{
	struct rfm_record_info info = { .struct_size = sizeof(info) };
	uint8_t b[4];

	if (rfm_layout_record_info(s->layout, index, &info) ||
	    rfm_mem_read(s->cli->node, info.offset, b, sizeof(b)))
		return -1;
	*name = info.name;
	/* The sequence word in the record's byte order. */
	*seq = info.byte_order == RFM_ORDER_BIG
		       ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
		       : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return 0;
}

void serve_take_events(struct serve *s)
{
	struct rfm_event evs[64];
	int n;

	/* An observer has no queue: nothing is sent to it. */
	while (!s->observer && (n = rfm_event_fetch(s->cli->node, evs, 64, 0)) > 0)
		for (int i = 0; i < n; i++)
			serve_count_event(s, &evs[i]);
	serve_update_rates(s, rfm_event_now_ns());
}
