/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: /metrics in the Prometheus text exposition format (0.0.4).
 * The metric names and labels are part of the tool's interface (rfm(1)
 * lists them): dashboards and alerts are written against them, so they
 * never change meaning.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"
#include "textbuf.h"

/* The page as it grows (a textbuf: mingw has no open_memstream()). */
struct text {
	struct rfm_textbuf tb;
};

static void head(struct text *t, const char *name, const char *type, const char *help)
{
	rfm__textbuf_printf(&t->tb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, escaped as the format asks (\\, \" and \n). */
static void label_value(struct rfm_textbuf *fp, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			rfm__textbuf_printf(fp, "\\%c", *v);
		else if (*v == '\n')
			rfm__textbuf_puts(fp, "\\n");
		else
			rfm__textbuf_putc(fp, *v);
	}
}

/* A sample value: Prometheus spells the special floats NaN, +Inf, -Inf. */
static void value(struct rfm_textbuf *fp, double v)
{
	if (isnan(v))
		rfm__textbuf_puts(fp, "NaN");
	else if (isinf(v))
		rfm__textbuf_puts(fp, v > 0 ? "+Inf" : "-Inf");
	else
		rfm__textbuf_printf(fp, "%.17g", v);
}

static void nodes(struct text *t, struct serve *s)
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	int n = rfm_health_nodes(s->cli->node, rows, RFM_MAX_NODES);

	if (n > RFM_MAX_NODES)
		n = RFM_MAX_NODES;
	head(t, "rfm_node_up", "gauge",
	     "1 when the node is attached and, if it beats, within its misses");
	for (int i = 0; i < n; i++)
		rfm__textbuf_printf(&t->tb, "rfm_node_up{node=\"%u\"} %d\n",
				    rows[i].id, serve_node_up(&rows[i]));
	/* A state set: one series per state, 1 for the node's own. Leaving is
	 * not dying: alert on crashed and silent, not on left. */
	head(t, "rfm_node_state", "gauge",
	     "1 for the node's state: up, no_heartbeat (attached, no health monitor), silent "
	     "(beats stopped without a goodbye), left (closed cleanly), crashed (died "
	     "without closing)");
	for (int i = 0; i < n; i++) {
		enum serve_node_state now = serve_node_state(&rows[i]);

		for (int st = SERVE_NODE_UP; st < SERVE_NODE_STATES; st++)
			rfm__textbuf_printf(&t->tb, "rfm_node_state{node=\"%u\",state=\"%s\"} %d\n",
					    rows[i].id,
				serve_node_state_name((enum serve_node_state)st), (int)st == (int)now);
	}
	head(t, "rfm_node_incarnation", "gauge", "Attaches of the node id so far");
	for (int i = 0; i < n; i++)
		rfm__textbuf_printf(&t->tb, "rfm_node_incarnation{node=\"%u\"} %u\n", rows[i].id,
			rows[i].incarnation);
	head(t, "rfm_heartbeat_age_seconds", "gauge",
	     "Seconds since the node's last heartbeat (nodes that have beaten)");
	for (int i = 0; i < n; i++)
		if (rows[i].age_ns != UINT64_MAX) {
			rfm__textbuf_printf(&t->tb, "rfm_heartbeat_age_seconds{node=\"%u\"} ",
					    rows[i].id);
			value(&t->tb, (double)rows[i].age_ns / 1e9);
			rfm__textbuf_putc(&t->tb, '\n');
		}
	head(t, "rfm_heartbeat_period_seconds", "gauge",
	     "The heartbeat period the node announces (nodes that have beaten)");
	for (int i = 0; i < n; i++)
		if (rows[i].period_ns) {
			rfm__textbuf_printf(&t->tb, "rfm_heartbeat_period_seconds{node=\"%u\"} ",
					    rows[i].id);
			value(&t->tb, (double)rows[i].period_ns / 1e9);
			rfm__textbuf_putc(&t->tb, '\n');
		}
	head(t, "rfm_heartbeats_total", "counter", "Heartbeats of the node so far");
	for (int i = 0; i < n; i++)
		rfm__textbuf_printf(&t->tb, "rfm_heartbeats_total{node=\"%u\"} %llu\n", rows[i].id,
			(unsigned long long)rows[i].beats);
	head(t, "rfm_node_link_up", "gauge",
	     "1 when the node's card has signal and sync (nodes whose card reports status)");
	for (int i = 0; i < n; i++)
		if (rows[i].link & RFM_LINK_KNOWN)
			rfm__textbuf_printf(&t->tb, "rfm_node_link_up{node=\"%u\"} %d\n",
					    rows[i].id,
				(rows[i].link & RFM_LINK_SIGNAL) && !(rows[i].link & RFM_LINK_SYNC_LOST));
}

static void node_downs(void *arg, unsigned int node, uint64_t downs, uint64_t ups)
{
	(void)ups;
	rfm__textbuf_printf(&((struct text *)arg)->tb, "rfm_node_down_total{node=\"%u\"} %llu\n",
			    node,
		(unsigned long long)downs);
}

static void node_ups(void *arg, unsigned int node, uint64_t downs, uint64_t ups)
{
	(void)downs;
	rfm__textbuf_printf(&((struct text *)arg)->tb, "rfm_node_up_total{node=\"%u\"} %llu\n",
			    node,
		(unsigned long long)ups);
}

/*
 * Without the monitor nothing would ever count: the families are left out
 * rather than shown as zeros that say no node ever went down.
 */
static void node_changes(struct text *t, struct serve *s)
{
	if (!s->monitor)
		return;
	head(t, "rfm_node_down_total", "counter",
	     "Times the server saw the node go down (left, crashed, silent or restarted)");
	serve_each_node_change(s, node_downs, t);
	head(t, "rfm_node_up_total", "counter",
	     "Times the server saw the node come up (one up when the server started is not "
	     "counted)");
	serve_each_node_change(s, node_ups, t);
}

static void by_node_count(void *arg, unsigned int node, const char *type, uint64_t count,
			  double rate)
{
	struct text *t = arg;

	(void)rate;
	rfm__textbuf_printf(&t->tb, "rfm_events_received_by_node_total{node=\"%u\",type=\"%s\"} %llu\n",
		node, type, (unsigned long long)count);
}

static void by_node_rate(void *arg, unsigned int node, const char *type, uint64_t count,
			 double rate)
{
	struct text *t = arg;

	(void)count;
	rfm__textbuf_printf(&t->tb, "rfm_events_received_by_node_rate{node=\"%u\",type=\"%s\"} ",
			    node, type);
	value(&t->tb, rate);
	rfm__textbuf_putc(&t->tb, '\n');
}

static void counters(struct text *t, struct serve *s)
{
	struct rfm_event_stats ev = { .struct_size = sizeof(ev) };
	struct rfm_health_counters hc = { .struct_size = sizeof(hc) };

	rfm_event_get_stats(s->cli->node, &ev);
	rfm_health_get_counters(s->cli->node, &hc);
	head(t, "rfm_events_received_total", "counter",
	     "Event records the server's node received, by type");
	for (unsigned int type = 0; type < 32; type++) {
		const char *name = rfm_event_type_name(type);
		if (name && strcmp(name, "?"))
			rfm__textbuf_printf(&t->tb, "rfm_events_received_total{type=\"%s\"} %llu\n",
					    name,
				(unsigned long long)s->received[type]);
	}
	head(t, "rfm_events_received_by_node_total", "counter",
	     "Event records the server's node received, by sending node and type");
	serve_each_count(s, by_node_count, t);
	head(t, "rfm_events_received_by_node_rate", "gauge",
	     "Records a second over the last second or more, by sending node and type");
	serve_each_count(s, by_node_rate, t);
	head(t, "rfm_record_sequence", "gauge",
	     "Sequence word of each record of the layout (even: published, odd: mid-publish)");
	for (size_t i = 0; i < rfm_layout_record_count(s->layout); i++) {
		const char *name;
		uint32_t seq;

		if (serve_record_seq(s, i, &name, &seq))
			continue;
		rfm__textbuf_puts(&t->tb, "rfm_record_sequence{record=\"");
		label_value(&t->tb, name);
		rfm__textbuf_printf(&t->tb, "\"} %u\n", seq);
	}
	head(t, "rfm_event_overflows_total", "counter",
	     "Overflow announcements: records lost to the server's full queue were reported");
	rfm__textbuf_printf(&t->tb, "rfm_event_overflows_total %llu\n",
			    (unsigned long long)ev.overflows);
	head(t, "rfm_events_dropped_total", "counter",
	     "Event records dropped because the server's queue was full");
	rfm__textbuf_printf(&t->tb, "rfm_events_dropped_total %llu\n",
			    (unsigned long long)ev.dropped);
	head(t, "rfm_samples_refused_total", "counter",
	     "Samples from the network refused: forged, malformed, unasked or over a "
	     "requester's rate (dds:)");
	rfm__textbuf_printf(&t->tb, "rfm_samples_refused_total %llu\n",
			    (unsigned long long)ev.refused);
	head(t, "rfm_streams_forged_total", "counter",
	     "Node streams found taken over by another's samples (dds:, no DDS Security)");
	rfm__textbuf_printf(&t->tb, "rfm_streams_forged_total %llu\n",
			    (unsigned long long)ev.forged);
	head(t, "rfm_ring_lost_total", "counter", "Ring messages lost to laps in the server");
	rfm__textbuf_printf(&t->tb, "rfm_ring_lost_total %llu\n", (unsigned long long)hc.ring_lost);
	head(t, "rfm_record_retries_total", "counter", "Seqlock read retries in the server");
	rfm__textbuf_printf(&t->tb, "rfm_record_retries_total %llu\n",
			    (unsigned long long)hc.record_retries);
}

static void vars(struct text *t, struct serve *s)
{
	head(t, "rfm_var_value", "gauge",
	     "Numeric scalar variables of the layout, in their unit");
	for (size_t i = 0; i < s->nvars; i++) {
		struct serve_var *v = &s->vars[i];
		struct json_object *j;
		double number;

		if (v->info.type < RFM_TYPE_U8 || v->info.type > RFM_TYPE_BOOL || v->info.count > 1)
			continue;
		j = serve_var_value(s, v, &number);
		if (v->info.type == RFM_TYPE_BOOL && j)
			number = json_object_get_boolean(j);
		json_object_put(j);
		rfm__textbuf_puts(&t->tb, "rfm_var_value{name=\"");
		label_value(&t->tb, v->info.name);
		rfm__textbuf_puts(&t->tb, "\",unit=\"");
		label_value(&t->tb, v->info.unit);
		rfm__textbuf_puts(&t->tb, "\"} ");
		value(&t->tb, number);
		rfm__textbuf_putc(&t->tb, '\n');
	}
	head(t, "rfm_var_out_of_range", "gauge",
	     "1 when the variable lies outside the min/max of the layout");
	for (size_t i = 0; i < s->nvars; i++) {
		struct serve_var *v = &s->vars[i];
		double number;

		if (!v->info.has_min && !v->info.has_max)
			continue;
		if (v->info.type < RFM_TYPE_U8 || v->info.type > RFM_TYPE_F64 || v->info.count > 1)
			continue;
		json_object_put(serve_var_value(s, v, &number));
		rfm__textbuf_puts(&t->tb, "rfm_var_out_of_range{name=\"");
		label_value(&t->tb, v->info.name);
		rfm__textbuf_printf(&t->tb, "\"} %d\n", serve_out_of_range(v, number));
	}
	/*
	 * Stale values keep their samples (a dashboard shows the last one):
	 * this says they are stale, so an alert or a graph can tell.
	 */
	uint8_t states[RFM_MAX_NODES];
	uint64_t now = rfm_event_now_ns();
	serve_node_states(s, states);
	head(t, "rfm_var_stale", "gauge",
	     "1 when the variable's writer node is down or not on the network, or it has not "
	     "changed within the layout's stale_after");
	for (size_t i = 0; i < s->nvars; i++) {
		struct serve_var *v = &s->vars[i];
		struct serve_reason why;

		rfm__textbuf_puts(&t->tb, "rfm_var_stale{name=\"");
		label_value(&t->tb, v->info.name);
		rfm__textbuf_printf(&t->tb, "\",writer=\"%u\"} %d\n", v->info.writer,
			serve_var_stale(v, states, now, &why) != NULL);
	}
}

/* The labels of one ring consumer: region, node, entry (unique per ring). */
static void consumer_labels(struct rfm_textbuf *fp, const char *region,
			    const struct rfm_ring_consumer_view *v)
{
	rfm__textbuf_puts(fp, "{region=\"");
	label_value(fp, region);
	rfm__textbuf_printf(fp, "\",node=\"%u\",entry=\"%u\"}", v->node, v->entry);
}

static void rings(struct text *t, struct serve *s)
{
	static const struct {
		const char *name, *type, *help;
	} m[] = {
		{ "rfm_ring_head", "gauge", "Messages the ring's producer has published" },
		{ "rfm_ring_consumers", "gauge", "Consumers registered in the ring's table" },
		{ "rfm_ring_consumer_lag", "gauge",
		  "Messages published that the consumer has not taken yet" },
		{ "rfm_ring_consumer_laps_total", "counter",
		  "Times the producer lapped the consumer (it lost messages)" },
		{ "rfm_ring_consumer_backpressure", "gauge",
		  "1 when the consumer holds the producer back (registered with back-pressure)" },
		{ "rfm_ring_consumer_holding", "gauge",
		  "1 when the back-pressure consumer is a whole lap behind: the producer waits" },
	};
	size_t n = rfm_layout_region_count(s->layout);
	/* One look per region, so every family shows the same moment. */
	struct serve_ring *rs = calloc(n ? n : 1, sizeof(*rs));
	struct rfm_region_info *infos = calloc(n ? n : 1, sizeof(*infos));
	bool *ok = calloc(n ? n : 1, sizeof(*ok));

	if (!rs || !infos || !ok)
		goto out;
	for (size_t i = 0; i < n; i++) {
		infos[i].struct_size = sizeof(infos[i]);
		ok[i] = !rfm_layout_region_info(s->layout, i, &infos[i]) &&
			serve_ring_look(s, &infos[i], &rs[i]);
	}
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		head(t, m[k].name, m[k].type, m[k].help);
		for (size_t i = 0; i < n; i++) {
			const struct serve_ring *r = &rs[i];
			size_t shown;

			if (!ok[i])
				continue;
			if (k < 2) {
				rfm__textbuf_printf(&t->tb, "%s{region=\"", m[k].name);
				label_value(&t->tb, infos[i].name);
				rfm__textbuf_printf(&t->tb, "\"} %llu\n",
					(unsigned long long)(k == 0 ? r->info.head : r->count));
				continue;
			}
			shown = r->count < SERVE_RING_VIEWS ? r->count : SERVE_RING_VIEWS;
			for (size_t c = 0; c < shown; c++) {
				const struct rfm_ring_consumer_view *v = &r->views[c];
				uint64_t x = k == 2   ? v->lag
					     : k == 3 ? v->laps
					     : k == 4 ? !!(v->flags & RFM_RING_CONSUMER_BACKPRESSURE)
						      : !!(v->flags & RFM_RING_VIEW_HOLDING);

				rfm__textbuf_puts(&t->tb, m[k].name);
				consumer_labels(&t->tb, infos[i].name, v);
				rfm__textbuf_printf(&t->tb, " %llu\n", (unsigned long long)x);
			}
		}
	}
out:
	free(rs);
	free(infos);
	free(ok);
}

/* What the per-address limit did: pushed out (and why) or refused. */
static void connections(struct text *t, struct serve *s)
{
	uint64_t no_request, stalled, refused;

	serve_conns_counts(s, &no_request, &stalled, &refused);
	head(t, "rfm_serve_evictions_total", "counter",
	     "Connections pushed out to make room for another of their address: "
	     "no_request (no whole request sent), stalled_stream (an event stream "
	     "that stopped reading)");
	rfm__textbuf_printf(&t->tb, "rfm_serve_evictions_total{reason=\"no_request\"} %llu\n",
		(unsigned long long)no_request);
	rfm__textbuf_printf(&t->tb, "rfm_serve_evictions_total{reason=\"stalled_stream\"} %llu\n",
		(unsigned long long)stalled);
	head(t, "rfm_serve_refused_connections_total", "counter",
	     "Connections refused: their address was at its limit with nothing to push out");
	rfm__textbuf_printf(&t->tb, "rfm_serve_refused_connections_total %llu\n",
			    (unsigned long long)refused);
}

char *serve_metrics(struct serve *s)
{
	struct text t = { 0 };

	nodes(&t, s);
	node_changes(&t, s);
	counters(&t, s);
	vars(&t, s);
	rings(&t, s);
	connections(&t, s);
	head(&t, "rfm_serve_uptime_seconds", "gauge", "Seconds since rfm serve started");
	rfm__textbuf_puts(&t.tb, "rfm_serve_uptime_seconds ");
	value(&t.tb, (double)(rfm_event_now_ns() - s->start_ns) / 1e9);
	rfm__textbuf_putc(&t.tb, '\n');
	if (t.tb.nomem || !t.tb.text) {
		rfm__textbuf_free(&t.tb);
		return NULL;
	}
	return t.tb.text;	/* the caller frees it, as before */
}
