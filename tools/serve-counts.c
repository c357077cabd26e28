/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: event records counted by sending node and type, with rates
 * the server computes from the counters' deltas (once a second or less
 * often, so a rate is never a fraction of one 10 Hz sample), and the
 * sequence words of the layout's records, read from the window; and the
 * node changes the server's health monitor reports as NODE_UP/NODE_DOWN
 * records (callers hold s->lock).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve.h"

/* Rates are recomputed when this much time has passed since the last. */
#define RATE_WINDOW_NS 1000000000ull

/* What the monitor said of one node since the server started. */
struct node_changes {
	uint64_t downs, ups;
	uint32_t last;		/* RFM_EVENT_NODE_UP or _NODE_DOWN; 0: nothing yet */
	uint32_t incarnation;	/* of the last */
	double since_s;		/* wall clock of the last */
	bool at_start;		/* the last is the first sight of a node up at the start */
	bool beat_at_start;	/* attached and beating when the server started */
	uint32_t start_incarnation;
};

struct serve_counts {
	struct node_changes nodes[RFM_MAX_NODES];
	uint64_t downs, ups;			/* of every node */
	struct json_object *pending;		/* changes for the next SSE frame */
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

void serve_note_start_nodes(struct serve *s)
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	int n = rfm_health_nodes(s->cli->node, rows, RFM_MAX_NODES);

	for (int i = 0; s->counts && i < n && i < RFM_MAX_NODES; i++)
		if (rows[i].id < RFM_MAX_NODES && rows[i].attached && rows[i].beats) {
			s->counts->nodes[rows[i].id].beat_at_start = true;
			s->counts->nodes[rows[i].id].start_incarnation = rows[i].incarnation;
		}
}

/* The wall-clock time of a record our own monitor made (its clock is ours). */
static double wall_time_of(const struct rfm_event *ev)
{
	struct timespec ts;
	uint64_t now = rfm_event_now_ns();
	double wall;

	clock_gettime(CLOCK_REALTIME, &ts);
	wall = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (ev->sent_ns && ev->sent_ns <= now)
		wall -= (double)(now - ev->sent_ns) / 1e9;
	return wall;
}

static void node_change(struct serve *s, const struct rfm_event *ev)
{
	struct serve_counts *c = s->counts;
	struct node_changes *n = &c->nodes[ev->sender];
	bool up = ev->type == RFM_EVENT_NODE_UP;

	/* The monitor's first look at a node already beating makes a NODE_UP
	 * one period later: that is the server seeing it, not it coming up. */
	n->at_start = up && !n->last && n->beat_at_start && ev->data == n->start_incarnation;
	if (!n->at_start) {
		*(up ? &n->ups : &n->downs) += 1;
		*(up ? &c->ups : &c->downs) += 1;
	}
	n->last = ev->type;
	n->incarnation = ev->data;
	n->since_s = wall_time_of(ev);
	if (!c->pending)
		c->pending = json_object_new_array();
	struct json_object *o = json_object_new_object();
	cli_json_add_u64(o, "id", ev->sender);
	serve_node_changes_json(s, ev->sender, o);
	json_object_array_add(c->pending, o);
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
	if (s->counts && ev->sender < RFM_MAX_NODES &&
	    (ev->type == RFM_EVENT_NODE_UP || ev->type == RFM_EVENT_NODE_DOWN))
		node_change(s, ev);
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
