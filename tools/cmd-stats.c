/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm stats: the event counters the library keeps for a receiving handle
 * (rfm_event_get_stats(): records delivered, dropped to a full queue,
 * overflow announcements) and for the handle and process
 * (rfm_health_get_counters(): sent, received, dropped, ring laps, seqlock
 * retries, node ups and downs), over a listening period, with the records
 * taken counted by type.
 */
#include "config.h"

#include "cli.h"

#define MS 1000000LL
#define SLICE_NS (100 * MS)	/* waits wake this often to notice Ctrl-C */

enum { OPT_DURATION = 0x2000 };

static const struct option stats_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ NULL, 0, NULL, 0 },
};

/* Take events for @duration_ns (or until Ctrl-C), counting them by type. */
static int take_events(struct cli *cli, uint64_t duration_ns, uint64_t by_type[32])
{
	uint64_t end = rfm_event_now_ns() + duration_ns;
	struct rfm_event evs[64];

	for (uint64_t t; !cli_interrupted() && (t = rfm_event_now_ns()) < end;) {
		int64_t left = (int64_t)(end - t) < SLICE_NS ? (int64_t)(end - t) : SLICE_NS;
		int n = rfm_event_fetch(cli->node, evs, 64, left);

		if (n == RFM_ETIMEDOUT || n == RFM_EAGAIN)
			continue;
		if (n < 0)
			return cli_fail(cli);
		for (int i = 0; i < n; i++)
			by_type[evs[i].type & 31]++;
	}
	return 0;
}

static void print_stats(struct cli *cli, uint64_t duration_ms, const uint64_t by_type[32],
			const struct rfm_event_stats *ev, const struct rfm_health_counters *hc,
			bool interrupted)
{
	static const struct { const char *key; size_t off; } counters[] = {
		{ "events_sent", offsetof(struct rfm_health_counters, events_sent) },
		{ "events_received", offsetof(struct rfm_health_counters, events_received) },
		{ "events_dropped", offsetof(struct rfm_health_counters, events_dropped) },
		{ "ring_lost", offsetof(struct rfm_health_counters, ring_lost) },
		{ "record_retries", offsetof(struct rfm_health_counters, record_retries) },
		{ "node_ups", offsetof(struct rfm_health_counters, node_ups) },
		{ "node_downs", offsetof(struct rfm_health_counters, node_downs) },
	};
#define COUNTER(i) (*(const uint64_t *)((const char *)hc + counters[i].off))
	if (cli->json) {
		struct json_object *obj = json_object_new_object(), *types;

		cli_json_add_u64(obj, "node", (uint64_t)rfm_node_id(cli->node));
		cli_json_add_u64(obj, "duration_ms", duration_ms);
		cli_json_add_bool(obj, "interrupted", interrupted);
		types = json_object_new_object();
		for (unsigned int t = 0; t < 32; t++)
			if (by_type[t])
				cli_json_add_u64(types, rfm_event_type_name(t), by_type[t]);
		json_object_object_add(obj, "taken", types);
		cli_json_add_u64(obj, "queue_depth", ev->depth);
		cli_json_add_u64(obj, "delivered", ev->delivered);
		cli_json_add_u64(obj, "dropped", ev->dropped);
		cli_json_add_u64(obj, "overflows", ev->overflows);
		cli_json_add_u64(obj, "queued", ev->queued);
		cli_json_add_u64(obj, "refused", ev->refused);
		cli_json_add_u64(obj, "forged", ev->forged);
		for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
			cli_json_add_u64(obj, counters[i].key, COUNTER(i));
		cli_json_print(obj);
		return;
	}
	printf("rfm stats: node %d, %llu ms%s\n", rfm_node_id(cli->node),
	       (unsigned long long)duration_ms, interrupted ? " (interrupted)" : "");
	printf("  taken by type:");
	bool any = false;
	for (unsigned int t = 0; t < 32; t++)
		if (by_type[t]) {
			printf(" %s %llu", rfm_event_type_name(t), (unsigned long long)by_type[t]);
			any = true;
		}
	printf("%s\n", any ? "" : " none");
	printf("  queue: depth %u, delivered %llu, dropped %llu, overflows %llu, queued %llu\n",
	       ev->depth, (unsigned long long)ev->delivered, (unsigned long long)ev->dropped,
	       (unsigned long long)ev->overflows, (unsigned long long)ev->queued);
	printf("  %-16s %llu\n", "refused", (unsigned long long)ev->refused);
	printf("  %-16s %llu\n", "forged", (unsigned long long)ev->forged);
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		printf("  %-16s %llu\n", counters[i].key, (unsigned long long)COUNTER(i));
#undef COUNTER
}

int cli_run_stats(struct cli *cli, int argc, char **argv)
{
	struct rfm_event_stats ev = { .struct_size = sizeof(ev) };
	struct rfm_health_counters hc = { .struct_size = sizeof(hc) };
	uint32_t mask = RFM_EVENT_MASK_NETWORK;
	uint64_t duration_ms = 1000, by_type[32] = { 0 };
	uint64_t start;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "e:", stats_options)) > 0) {
		if (opt == 'e' && (ret = cli_parse_event_types(cli, optarg, &mask)))
			return ret;
		if (opt == OPT_DURATION &&
		    (ret = cli_parse_u64(cli, "duration", optarg, INT64_MAX / MS, &duration_ms)))
			return ret;
	}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (!ret)
		ret = cli_start_receiving(cli, mask);
	if (ret)
		return ret;
	cli_catch_interrupt();
	start = rfm_event_now_ns();
	ret = take_events(cli, duration_ms * (uint64_t)MS, by_type);
	if (ret)
		return ret;
	if (rfm_event_get_stats(cli->node, &ev) || rfm_health_get_counters(cli->node, &hc))
		return cli_fail(cli);
	bool interrupted = cli_interrupted();
	print_stats(cli, interrupted ? (rfm_event_now_ns() - start) / MS : duration_ms, by_type,
		    &ev, &hc, interrupted);
	return interrupted ? CLI_EXIT_INTERRUPTED : CLI_EXIT_OK;
}

const char cli_help_stats[] =
	"Listen for the event types (all network types unless --event says) for\n"
	"MS milliseconds, taking every record, then print the records taken by\n"
	"type and the counters the library keeps: of this node's queue (depth,\n"
	"records delivered, dropped because the queue was full, overflow\n"
	"announcements, still queued, samples from the network refused:\n"
	"forged, malformed, unasked or over a requester's rate; streams found\n"
	"taken over by another's samples) and of the handle and process (events\n"
	"sent, received, dropped; ring messages lost to laps; seqlock read\n"
	"retries; node ups and downs seen by a health monitor). Ctrl-C ends the\n"
	"period early (exit 130, JSON \"interrupted\": true).\n"
	"\n"
	"Options:\n"
	"  -e, --event TYPE    intr1, intr2, intr3, intr4, reset, node_up, node_down\n"
	"                      or overflow; a comma list\n"
	"      --duration MS   how long to listen (default 1000; 0: only what is\n"
	"                      queued at once)\n"
	"\n"
	"JSON keys: node, duration_ms, interrupted, taken (type: count), queue_depth,\n"
	"delivered, dropped, overflows, queued, refused, events_sent, events_received,\n"
	"events_dropped, ring_lost, record_retries, node_ups, node_downs.\n";
