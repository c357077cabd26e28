/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping's report: the round trip and one way (half of it) as min, mean,
 * P50..P99.9 and max, the histogram, and how the pinger ran (rate,
 * real-time setup); as text or as one JSON object.
 */
#include "config.h"

#include "ping.h"

/* How this process ran: --rt-prio, --cpu, --lock-memory. */
static void add_rt_json(struct json_object *obj, const struct rt_setup *rt)
{
	char cpus[128] = "";

	if (rt->has_cpus)
		rt_format_cpu_list(&rt->cpus, cpus, sizeof(cpus));
	cli_json_add_u64(obj, "rt_prio", (uint64_t)rt->rt_prio);
	cli_json_add_string(obj, "cpus", cpus);
	cli_json_add_bool(obj, "lock_memory", rt->lock_memory);
}

static void print_rt(const struct rt_setup *rt)
{
	char cpus[128] = "any";

	if (!rt->rt_prio && !rt->has_cpus && !rt->lock_memory)
		return;
	if (rt->has_cpus)
		rt_format_cpu_list(&rt->cpus, cpus, sizeof(cpus));
	if (rt->rt_prio)
		printf("  SCHED_FIFO priority %d", rt->rt_prio);
	else
		printf("  default policy");
	printf(", CPUs %s, memory %s\n", cpus, rt->lock_memory ? "locked" : "not locked");
}

static struct json_object *summary_json(const struct lhist *h, unsigned int div)
{
	struct json_object *o = json_object_new_object();

	cli_json_add_u64(o, "min_ns", (h->count ? h->min : 0) / div);
	cli_json_add_u64(o, "mean_ns", (uint64_t)(lhist_mean(h) / div + 0.5));
	cli_json_add_u64(o, "p50_ns", lhist_quantile(h, 0.50) / div);
	cli_json_add_u64(o, "p90_ns", lhist_quantile(h, 0.90) / div);
	cli_json_add_u64(o, "p99_ns", lhist_quantile(h, 0.99) / div);
	cli_json_add_u64(o, "p999_ns", lhist_quantile(h, 0.999) / div);
	cli_json_add_u64(o, "max_ns", h->max / div);
	return o;
}

static void print_row(const char *what, const struct lhist *h, unsigned int div)
{
	printf("  %-10s %8llu %8.0f %8llu %8llu %8llu %8llu %9llu\n", what,
	       (unsigned long long)((h->count ? h->min : 0) / div), lhist_mean(h) / div,
	       (unsigned long long)(lhist_quantile(h, 0.50) / div),
	       (unsigned long long)(lhist_quantile(h, 0.90) / div),
	       (unsigned long long)(lhist_quantile(h, 0.99) / div),
	       (unsigned long long)(lhist_quantile(h, 0.999) / div),
	       (unsigned long long)(h->max / div));
}

void ping_report(const struct ping *p, const struct ping_opts *o, const struct lhist *h,
		 uint64_t late, bool interrupted)
{
	if (p->cli->json) {
		struct json_object *obj = summary_json(h, 1);

		cli_json_add_bool(obj, "interrupted", interrupted);
		cli_json_add_string(obj, "mode", ping_mode_names[p->mode]);
		cli_json_add_u64(obj, "count", h->count);
		cli_json_add_u64(obj, "warmup", o->warmup);
		cli_json_add_u64(obj, "size", p->size);
		cli_json_add_u64(obj, "rate_hz", o->rate_hz);
		cli_json_add_u64(obj, "late_sends", late);
		cli_json_add_u64(obj, "node", (uint64_t)rfm_node_id(p->cli->node));
		if (p->mode == MODE_EVENT)
			cli_json_add_u64(obj, "peer", p->peer);
		cli_json_add_u64(obj, "offset", p->offset);
		add_rt_json(obj, &o->rt);
		json_object_object_add(obj, "one_way", summary_json(h, 2));
		cli_json_print(obj);
		return;
	}
	printf("rfm ping: %s mode, %llu round trips", ping_mode_names[p->mode],
	       (unsigned long long)h->count);
	if (p->mode == MODE_EVENT)
		printf(" with node %u", p->peer);
	printf(", %u-byte payload, ", p->size);
	if (interrupted)
		printf("interrupted, ");
	if (o->rate_hz)
		printf("%llu per second (%llu sends late by a period or more)\n",
		       (unsigned long long)o->rate_hz, (unsigned long long)late);
	else
		printf("back to back\n");
	print_rt(&o->rt);
	printf("  %-10s %8s %8s %8s %8s %8s %8s %9s  (ns)\n", "", "min", "mean", "P50", "P90",
	       "P99", "P99.9", "max");
	print_row("round trip", h, 1);
	print_row("one way", h, 2);
	printf("round trips:\n");
	lhist_print_text(h, stdout, "  ");
}
