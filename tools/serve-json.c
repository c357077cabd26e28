/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: the JSON API. Every answer is built from what the library
 * reports at the moment of the request (callers hold s->lock).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"

/* A card's status (RFM_LINK_*), or null where the node has no card status. */
static struct json_object *link_json(uint32_t link)
{
	struct json_object *o;

	if (!(link & RFM_LINK_KNOWN))
		return NULL;
	o = json_object_new_object();
	cli_json_add_bool(o, "up", (link & RFM_LINK_SIGNAL) && !(link & RFM_LINK_SYNC_LOST));
	cli_json_add_bool(o, "signal", link & RFM_LINK_SIGNAL);
	cli_json_add_bool(o, "sync_lost", link & RFM_LINK_SYNC_LOST);
	cli_json_add_bool(o, "own_data", link & RFM_LINK_OWN_DATA);
	cli_json_add_bool(o, "bad_data", link & RFM_LINK_BAD_DATA);
	cli_json_add_bool(o, "rxfifo_full", link & RFM_LINK_RXFIFO_FULL);
	return o;
}

/* The server's own node id, or null for an observer (which holds none). */
static struct json_object *own_node_json(struct serve *s)
{
	return s->observer ? NULL : json_object_new_uint64((uint64_t)rfm_node_id(s->cli->node));
}

/* Which node of the layout's regions writes, and what: "sim", "daq, log". */
static struct json_object *role_json(struct serve *s, uint32_t id)
{
	char text[256] = "";
	size_t len = 0;

	for (size_t i = 0; s->layout && i < rfm_layout_region_count(s->layout); i++) {
		struct rfm_region_info ri = { .struct_size = sizeof(ri) };

		if (rfm_layout_region_info(s->layout, i, &ri) || ri.writer != id)
			continue;
		int n = snprintf(text + len, sizeof(text) - len, "%s%s", len ? ", " : "", ri.name);
		if (n < 0 || (size_t)n >= sizeof(text) - len)
			break;
		len += (size_t)n;
	}
	return len ? json_object_new_string(text) : NULL;
}

struct json_object *serve_json_nodes(struct serve *s)
{
	struct rfm_node_info me = { .struct_size = sizeof(me) };
	struct rfm_node_status rows[RFM_MAX_NODES];
	struct json_object *arr = json_object_new_array();
	int n = rfm_health_nodes(s->cli->node, rows, RFM_MAX_NODES);

	rfm_node_get_info(s->cli->node, &me);

	/* A backend without a node table (ENOTSUP) has an empty one. */
	for (int i = 0; i < n && i < RFM_MAX_NODES; i++) {
		const struct rfm_node_status *r = &rows[i];
		struct json_object *o = json_object_new_object();

		cli_json_add_u64(o, "id", r->id);
		/* What it is on this rig: the layout regions it writes. */
		json_object_object_add(o, "role", role_json(s, r->id));
		cli_json_add_bool(o, "up", serve_node_up(r));
		cli_json_add_bool(o, "down", serve_node_down(serve_node_state(r)));
		cli_json_add_string(o, "state", serve_node_state_name(serve_node_state(r)));
		cli_json_add_bool(o, "attached", r->attached);
		cli_json_add_bool(o, "alive", r->alive);
		cli_json_add_u64(o, "incarnation", r->incarnation);
		if (r->age_ns == UINT64_MAX)
			json_object_object_add(o, "heartbeat_age_s", NULL);
		else
			json_object_object_add(o, "heartbeat_age_s",
					       json_object_new_double((double)r->age_ns / 1e9));
		/* null: the node never beat (it runs no health monitor). */
		json_object_object_add(o, "heartbeat_period_s",
				       r->period_ns ? json_object_new_double((double)r->period_ns / 1e9)
						    : NULL);
		cli_json_add_u64(o, "beats", r->beats);
		if (r->pid > 0)
			cli_json_add_int(o, "pid", r->pid);
		else
			json_object_object_add(o, "pid", NULL);
		cli_json_add_string(o, "host", r->host);
		bool self = !s->observer && (int)r->id == rfm_node_id(s->cli->node);
		cli_json_add_bool(o, "self", self);
		/* Ours now; another node's as it wrote it with its last beat. */
		json_object_object_add(o, "link", link_json(self ? me.link : r->link));
		serve_node_changes_json(s, r->id, o);
		json_object_array_add(arr, o);
	}
	return arr;
}

/* "state" ("fresh" or "stale") and "stale_reason" (null when fresh) into @o. */
static void add_freshness(struct json_object *o, const char *reason)
{
	cli_json_add_string(o, "state", reason ? "stale" : "fresh");
	json_object_object_add(o, "stale_reason", reason ? json_object_new_string(reason) : NULL);
}

/*
 * "unchanged_s": how long the sampler has seen no change of what the
 * layout gives a stale_after, at the moment the state was judged (null
 * for what is not watched, or not looked at yet): the state follows from
 * it and stale_after_s, so a client can check the rule on any snapshot.
 */
static void add_unchanged(struct json_object *o, bool watched, bool seen, uint64_t changed_ns,
			  uint64_t now_ns)
{
	json_object_object_add(o, "unchanged_s",
			       watched && seen && now_ns >= changed_ns
				       ? json_object_new_double((double)(now_ns - changed_ns) / 1e9)
				       : NULL);
}

/* The layout's stale_after in seconds, null where it sets none. */
static struct json_object *period_json(uint32_t ms)
{
	return ms ? json_object_new_double(ms / 1e3) : NULL;
}

static struct json_object *var_json(struct serve *s, struct serve_var *v,
				    const uint8_t states[RFM_MAX_NODES])
{
	struct json_object *o = json_object_new_object(), *value;
	struct serve_reason why;
	double number;

	cli_json_add_string(o, "name", v->info.name);
	cli_json_add_string(o, "type", rfm_type_name(v->info.type));
	cli_json_add_string(o, "unit", v->info.unit);
	value = serve_var_value(s, v, &number);
	json_object_object_add(o, "value", value);
	if (v->info.has_min)
		json_object_object_add(o, "min", json_object_new_double(v->info.min));
	if (v->info.has_max)
		json_object_object_add(o, "max", json_object_new_double(v->info.max));
	cli_json_add_bool(o, "out_of_range", serve_out_of_range(v, number));
	cli_json_add_u64(o, "writer", v->info.writer);
	uint64_t now = rfm_event_now_ns();
	add_freshness(o, serve_var_stale(v, states, now, &why));
	add_unchanged(o, v->last, v->seen, v->changed_ns, now);
	json_object_object_add(o, "stale_after_s", period_json(v->info.stale_after_ms));
	/* The layout's significant digits for a float, null where it sets none. */
	json_object_object_add(o, "digits",
			       v->info.digits ? json_object_new_int64(v->info.digits) : NULL);
	return o;
}

struct json_object *serve_json_vars(struct serve *s, const char *names, const char **bad)
{
	struct json_object *arr = json_object_new_array();
	static _Thread_local char badname[128];
	uint8_t states[RFM_MAX_NODES];

	serve_node_states(s, states);
	if (!names) {
		for (size_t i = 0; i < s->nvars; i++)
			json_object_array_add(arr, var_json(s, &s->vars[i], states));
		return arr;
	}
	size_t count = 0;
	for (const char *p = names;; p++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct serve_var *v = NULL;

		for (size_t i = 0; len && i < s->nvars && !v; i++)
			if (strlen(s->vars[i].info.name) == len &&
			    !memcmp(s->vars[i].info.name, p, len))
				v = &s->vars[i];
		if (!v || ++count > SERVE_MAX_NAMES) {
			snprintf(badname, sizeof(badname), "%.*s", (int)(len < 100 ? len : 100), p);
			*bad = badname;
			json_object_put(arr);
			return NULL;
		}
		json_object_array_add(arr, var_json(s, v, states));
		if (!end)
			break;
		p = end;
	}
	return arr;
}

struct json_object *serve_json_stats(struct serve *s)
{
	struct rfm_event_stats ev = { .struct_size = sizeof(ev) };
	struct rfm_health_counters hc = { .struct_size = sizeof(hc) };
	struct json_object *o = json_object_new_object(), *types = json_object_new_object();

	rfm_event_get_stats(s->cli->node, &ev);
	rfm_health_get_counters(s->cli->node, &hc);
	json_object_object_add(o, "node", own_node_json(s));
	/* An observer receives nothing: its counters say nothing of the network. */
	cli_json_add_bool(o, "observer", s->observer);
	json_object_object_add(o, "uptime_s",
			       json_object_new_double((double)(rfm_event_now_ns() - s->start_ns) / 1e9));
	for (unsigned int t = 0; t < 32; t++) {
		const char *name = rfm_event_type_name(t);
		if (name && strcmp(name, "?"))
			cli_json_add_u64(types, name, s->received[t]);
	}
	json_object_object_add(o, "received", types);
	cli_json_add_u64(o, "queue_depth", ev.depth);
	cli_json_add_u64(o, "delivered", ev.delivered);
	cli_json_add_u64(o, "dropped", ev.dropped);
	cli_json_add_u64(o, "overflows", ev.overflows);
	cli_json_add_u64(o, "queued", ev.queued);
	cli_json_add_u64(o, "events_sent", hc.events_sent);
	cli_json_add_u64(o, "ring_lost", hc.ring_lost);
	cli_json_add_u64(o, "record_retries", hc.record_retries);
	/* Node changes of every node, as the server's monitor reported them. */
	uint64_t downs, ups;
	serve_node_change_totals(s, &downs, &ups);
	cli_json_add_bool(o, "monitor", s->monitor);
	json_object_object_add(o, "node_downs", s->monitor ? json_object_new_uint64(downs) : NULL);
	json_object_object_add(o, "node_ups", s->monitor ? json_object_new_uint64(ups) : NULL);
	json_object_object_add(o, "by_node", serve_json_events(s));
	json_object_object_add(o, "records", serve_json_records(s));
	return o;
}

static void add_count(void *arg, unsigned int node, const char *type, uint64_t count,
		      double rate)
{
	struct json_object *o = json_object_new_object();

	cli_json_add_u64(o, "node", node);
	cli_json_add_string(o, "type", type);
	cli_json_add_u64(o, "count", count);
	json_object_object_add(o, "rate_per_s", json_object_new_double(rate));
	json_object_array_add(arg, o);
}

struct json_object *serve_json_events(struct serve *s)
{
	struct json_object *arr = json_object_new_array();

	serve_each_count(s, add_count, arr);
	return arr;
}

struct json_object *serve_json_records(struct serve *s)
{
	struct json_object *arr = json_object_new_array();
	uint8_t states[RFM_MAX_NODES];

	serve_node_states(s, states);
	for (size_t i = 0; i < rfm_layout_record_count(s->layout); i++) {
		struct rfm_record_info rec = { .struct_size = sizeof(rec) };
		struct rfm_region_info reg = { .struct_size = sizeof(reg) };
		struct serve_reason why;
		struct json_object *o;
		const char *name;
		uint32_t seq;

		if (serve_record_seq(s, i, &name, &seq) ||
		    rfm_layout_record_info(s->layout, i, &rec) ||
		    rfm_layout_region_info(s->layout, rec.region, &reg))
			continue;
		o = json_object_new_object();
		cli_json_add_string(o, "name", name);
		cli_json_add_u64(o, "seq", seq);
		cli_json_add_u64(o, "writer", reg.writer);
		uint64_t now = rfm_event_now_ns();
		add_freshness(o, serve_record_stale(s, i, states, now, &why));
		const struct serve_record *r = i < s->nrecords ? &s->records[i] : NULL;
		add_unchanged(o, r && r->stale_after_ms, r && r->seen, r ? r->changed_ns : 0, now);
		json_object_object_add(o, "stale_after_s", period_json(rec.stale_after_ms));
		json_object_array_add(arr, o);
	}
	return arr;
}

struct json_object *serve_json_hist(struct serve *s)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < s->nhist; i++) {
		struct json_object *o = json_object_new_object();
		cli_json_add_u64(o, "low_ns", s->hist[i].low_ns);
		cli_json_add_u64(o, "high_ns", s->hist[i].high_ns);
		cli_json_add_u64(o, "count", s->hist[i].count);
		json_object_array_add(arr, o);
	}
	return arr;
}

/*
 * The variables of a snapshot: name, value, out_of_range, state and its reason only.
 * The sampler makes one HZ times a second, so what never changes (type,
 * unit, min, max, writer) is left to /api/vars, which the page reads once.
 */
static struct json_object *snapshot_vars(struct serve *s)
{
	struct json_object *arr = json_object_new_array();
	uint8_t states[RFM_MAX_NODES];
	uint64_t now = rfm_event_now_ns();

	serve_node_states(s, states);
	for (size_t i = 0; i < s->nvars; i++) {
		struct json_object *o = json_object_new_object();
		struct serve_reason why;
		double number;

		cli_json_add_string(o, "name", s->vars[i].info.name);
		json_object_object_add(o, "value", serve_var_value(s, &s->vars[i], &number));
		cli_json_add_bool(o, "out_of_range", serve_out_of_range(&s->vars[i], number));
		add_freshness(o, serve_var_stale(&s->vars[i], states, now, &why));
		add_unchanged(o, s->vars[i].last, s->vars[i].seen, s->vars[i].changed_ns, now);
		json_object_array_add(arr, o);
	}
	return arr;
}

struct json_object *serve_json_snapshot(struct serve *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "time_s", json_object_new_double((double)rfm_event_now_ns() / 1e9));
	json_object_object_add(o, "nodes", serve_json_nodes(s));
	json_object_object_add(o, "stats", serve_json_stats(s));
	json_object_object_add(o, "vars", snapshot_vars(s));
	json_object_object_add(o, "rings", serve_json_rings(s));
	return o;
}

struct json_object *serve_json_server(struct serve *s)
{
	struct json_object *o = json_object_new_object();
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	cli_json_add_string(o, "network", rfm_node_uri(s->cli->node));
	json_object_object_add(o, "node", own_node_json(s));
	cli_json_add_bool(o, "observer", s->observer);
	cli_json_add_string(o, "host", host);
	if (s->layout)
		cli_json_add_string(o, "layout", rfm_layout_name(s->layout));
	else
		json_object_object_add(o, "layout", NULL);
	if (s->hist_path)
		cli_json_add_string(o, "hist_file", s->hist_path);
	else
		json_object_object_add(o, "hist_file", NULL);
	cli_json_add_string(o, "version", rfm_version_string());
	struct json_object *limits = json_object_new_object();
	cli_json_add_u64(limits, "connections", s->max_connections);
	cli_json_add_u64(limits, "per_address", s->per_address);
	cli_json_add_u64(limits, "streams_per_address", serve_streams_per_address(s));
	cli_json_add_u64(limits, "streams", s->max_streams);
	json_object_object_add(o, "limits", limits);
	return o;
}
