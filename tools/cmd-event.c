/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm send, rfm wait and rfm listen: network interrupts from the shell.
 * A receiving command enables its types when it starts; events sent before
 * that are not queued for it (send --json reports how many receivers
 * queued each event, which scripts can use as a ready signal).
 */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "cli.h"

#define MS 1000000LL

/* ---- shared parsing and printing ---- */

/* The types wait and listen take: the network's, node health, overflow announcements. */
#define OVERFLOW_BIT RFM_EVENT_BIT(RFM_EVENT_OVERFLOW)
#define LINK_BIT RFM_EVENT_BIT(RFM_EVENT_LINK)
#define MONITORED (RFM_EVENT_MASK_HEALTH | LINK_BIT)
#define RECEIVABLE (RFM_EVENT_MASK_NETWORK | MONITORED | OVERFLOW_BIT)

static int unknown_type(struct cli *cli, const char *name)
{
	static const char *const names[] = { "intr1", "intr2", "intr3", "intr4", "reset",
					     "node_up", "node_down", "link", "overflow" };
	const char *near = cli_suggest(name, names, sizeof(names) / sizeof(names[0]));

	return cli_usage_error(cli, "unknown event type '%s' (use intr1, intr2, intr3, intr4, "
			       "reset, node_up, node_down, link or overflow)%s%s%s", name,
			       near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* "intr1", "reset", or a comma-separated list of them, into a mask. */
static int parse_types(struct cli *cli, const char *text, uint32_t *mask)
{
	char buf[128], *next = buf;

	if (strlen(text) >= sizeof(buf))
		return cli_usage_error(cli, "event type list '%s' is too long", text);
	if (!*text)
		return cli_usage_error(cli, "no event type given");
	strcpy(buf, text);
	*mask = 0;
	/* By hand, not strtok_r(): "intr1," must not pass for "intr1". */
	while (next) {
		char *t = next, *comma = strchr(t, ',');

		if (comma)
			*comma = '\0';
		next = comma ? comma + 1 : NULL;
		if (!*t)
			return cli_usage_error(cli,
					       "event type list '%s' has an empty item (a stray comma)",
					       text);
		int type = rfm_event_type_parse(t);

		if (type < 0 || !(RECEIVABLE & RFM_EVENT_BIT(type)))
			return unknown_type(cli, t);
		*mask |= RFM_EVENT_BIT(type);
	}
	if (!*mask)
		return cli_usage_error(cli, "no event type given");
	return 0;
}

static int parse_timeout(struct cli *cli, const char *text, int64_t *timeout_ns)
{
	uint64_t ms;
	int ret = cli_parse_u64(cli, "timeout", text, INT64_MAX / MS, &ms);

	if (!ret)
		*timeout_ns = (int64_t)ms * MS;
	return ret;
}

static void print_event(struct cli *cli, const struct rfm_event *ev, enum cli_clock clock)
{
	uint64_t now = rfm_event_now_ns();
	uint64_t latency = ev->sent_ns && now >= ev->sent_ns ? now - ev->sent_ns : 0;
	char when[64];

	cli_format_time(clock, now, when, sizeof(when));
	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		cli_json_add_string(obj, "type", rfm_event_type_name(ev->type));
		cli_json_add_u64(obj, "sender", ev->sender);
		cli_json_add_u64(obj, "data", ev->data);
		cli_json_add_u64(obj, "seq", ev->seq);
		cli_json_add_u64(obj, "sent_ns", ev->sent_ns);
		cli_json_add_u64(obj, "received_ns", now);
		cli_json_add_time(obj, "time", clock, now);
		cli_json_print(obj);
	} else if (ev->type == RFM_EVENT_OVERFLOW) {
		printf("seq %llu: overflow: %u event(s) dropped, the queue was full, at %s\n",
		       (unsigned long long)ev->seq, ev->data, when);
	} else if (ev->type == RFM_EVENT_NODE_UP || ev->type == RFM_EVENT_NODE_DOWN) {
		printf("seq %llu: node %u %s (incarnation %u), at %s\n",
		       (unsigned long long)ev->seq, ev->sender,
		       ev->type == RFM_EVENT_NODE_UP ? "up" : "down", ev->data, when);
	} else if (ev->type == RFM_EVENT_LINK) {
		printf("seq %llu: link %s (card status 0x%02x), at %s\n",
		       (unsigned long long)ev->seq,
		       (ev->data & RFM_LINK_SIGNAL) && !(ev->data & RFM_LINK_SYNC_LOST) ? "up"
											   : "down",
		       ev->data, when);
	} else {
		printf("seq %llu: %s from node %u, data %u (0x%08x), latency %llu ns, at %s\n",
		       (unsigned long long)ev->seq, rfm_event_type_name(ev->type), ev->sender,
		       ev->data, ev->data, (unsigned long long)latency, when);
	}
	/* One line per event as it comes, even into a pipe. */
	fflush(stdout);
}

/*
 * Node and types of a receiving command; opens the node and enables them.
 * Overflow is always delivered, so asking for it alone listens to every
 * network type (whose records fill the queue) and shows only overflows.
 * Health types come from a monitor, which this handle then runs.
 */
static int start_receiving(struct cli *cli, uint32_t mask)
{
	uint32_t enable = mask & ~OVERFLOW_BIT;
	int ret = cli_open(cli);

	if (ret)
		return ret;
	if (rfm_event_enable(cli->node, enable ? enable : RFM_EVENT_MASK_NETWORK))
		return cli_fail(cli);
	if (mask & MONITORED) {
		ret = rfm_health_start(cli->node, NULL);
		if (ret && ret != RFM_EBUSY)
			return cli_fail(cli);
	}
	return 0;
}

/* Whether @ev is one the user asked to see (overflow announcements always are). */
static bool wanted(uint32_t mask, const struct rfm_event *ev)
{
	if (ev->type == RFM_EVENT_OVERFLOW)
		return true;
	return ev->type < 32 && (mask & RFM_EVENT_BIT(ev->type));
}

/* ---- rfm send ---- */

static const struct option send_options[] = {
	{ "to", required_argument, NULL, 't' },
	{ "event", required_argument, NULL, 'e' },
	{ "data", required_argument, NULL, 'd' },
	{ "loopback", no_argument, NULL, 'l' },
	{ NULL, 0, NULL, 0 },
};

int cli_run_send(struct cli *cli, int argc, char **argv)
{
	const char *to_text = NULL, *type_text = NULL, *data_text = NULL;
	bool loopback = false;
	uint64_t to = RFM_NODE_ALL, data = 0;
	uint32_t mask;
	int opt, ret, type;

	while ((opt = cli_getopt(cli, argc, argv, "t:e:d:l", send_options)) > 0) {
		if (opt == 't')
			to_text = optarg;
		else if (opt == 'e')
			type_text = optarg;
		else if (opt == 'd')
			data_text = optarg;
		else if (opt == 'l')
			loopback = true;
	}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	if (!to_text)
		return cli_usage_error(cli, "--to NODE or --to all is required");
	if (!type_text)
		return cli_usage_error(cli, "--event TYPE is required");
	if (strcasecmp(to_text, "all")) {
		ret = cli_parse_u64(cli, "target node", to_text, RFM_NODE_ID_MAX, &to);
		if (ret)
			return ret;
	}
	ret = parse_types(cli, type_text, &mask);
	if (ret)
		return ret;
	if (mask & ~RFM_EVENT_MASK_NETWORK)
		return cli_usage_error(cli, "send takes intr1, intr2, intr3, intr4 or reset, not "
				       "'%s' (the library makes the others)", type_text);
	if (mask & (mask - 1))
		return cli_usage_error(cli, "send takes one event type, not '%s'", type_text);
	type = __builtin_ctz(mask);
	if (data_text) {
		ret = cli_parse_u64(cli, "data", data_text, UINT32_MAX, &data);
		if (ret)
			return ret;
	}

	ret = cli_open(cli);
	if (ret)
		return ret;
	if (loopback)
		rfm_node_set_loopback(cli->node, 1);
	int receivers = rfm_event_send(cli->node, (unsigned int)to, (unsigned int)type,
				       (uint32_t)data);
	if (receivers < 0)
		return cli_fail(cli);
	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		if (to == RFM_NODE_ALL)
			cli_json_add_string(obj, "to", "all");
		else
			cli_json_add_u64(obj, "to", to);
		cli_json_add_string(obj, "type", rfm_event_type_name((unsigned int)type));
		cli_json_add_u64(obj, "data", data);
		cli_json_add_u64(obj, "sender", (uint64_t)rfm_node_id(cli->node));
		cli_json_add_u64(obj, "receivers", (uint64_t)receivers);
		cli_json_print(obj);
	} else {
		printf("sent %s data %llu to %s: queued by %d receiver(s)\n",
		       rfm_event_type_name((unsigned int)type), (unsigned long long)data,
		       to == RFM_NODE_ALL ? "all" : to_text, receivers);
	}
	return CLI_EXIT_OK;
}

const char cli_help_send[] =
	"Send the event TYPE (intr1, intr2, intr3, intr4 or reset) with the 32-bit\n"
	"word N (default 0) to node NODE (0..255), or to every other attached\n"
	"node with --to all. Sending to the own node needs --loopback.\n"
	"Prints how many receiving handles queued the event: 0 when the target\n"
	"does not listen for TYPE (or its queue was full).\n"
	"\n"
	"Options:\n"
	"  -t, --to NODE|all   target node id, or all\n"
	"  -e, --event TYPE    intr1, intr2, intr3, intr4 or reset\n"
	"  -d, --data N        the data word, 0..0xffffffff (default 0)\n"
	"  -l, --loopback      allow sending to this node itself\n"
	"\n"
	"JSON keys: to, type, data, sender, receivers.\n";

/* ---- rfm wait ---- */

enum { OPT_TIME = 0x2000 };

static const struct option wait_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "timeout", required_argument, NULL, 't' },
	{ "time", required_argument, NULL, OPT_TIME },
	{ NULL, 0, NULL, 0 },
};

int cli_run_wait(struct cli *cli, int argc, char **argv)
{
	enum cli_clock clock = CLI_CLOCK_REALTIME;
	const char *type_text = NULL;
	int64_t timeout_ns = -1;
	uint32_t mask;
	struct rfm_event ev;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "e:t:", wait_options)) > 0) {
		if (opt == 'e')
			type_text = optarg;
		else if (opt == 't' && (ret = parse_timeout(cli, optarg, &timeout_ns)))
			return ret;
		else if (opt == OPT_TIME && (ret = cli_parse_clock(cli, optarg, &clock)))
			return ret;
	}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	if (!type_text)
		return cli_usage_error(cli, "--event TYPE is required");
	ret = parse_types(cli, type_text, &mask);
	if (!ret)
		ret = start_receiving(cli, mask);
	if (ret)
		return ret;
	/* SIGINT, SIGTERM: the wait is cancelled, the node closed (it leaves). */
	cli_watch_node(cli->node);
	cli_catch_interrupt();
	/* Skip what was not asked for (overflow alone: the network's records). */
	uint64_t deadline = timeout_ns < 0 ? UINT64_MAX : rfm_event_now_ns() + (uint64_t)timeout_ns;
	for (;;) {
		uint64_t t = rfm_event_now_ns();
		int64_t left = timeout_ns < 0 ? -1 : t >= deadline ? 0 : (int64_t)(deadline - t);

		ret = rfm_event_wait(cli->node, &ev, left);
		if (ret || wanted(mask, &ev))
			break;
	}
	if (ret == RFM_ETIMEDOUT || ret == RFM_EAGAIN) {
		fprintf(stderr, "rfm: no %s event within %lld ms\n", type_text,
			(long long)(timeout_ns / MS));
		return CLI_EXIT_NOMATCH;
	}
	if (ret == RFM_ECANCELED && cli_interrupted())
		return CLI_EXIT_INTERRUPTED;
	if (ret)
		return cli_fail(cli);
	print_event(cli, &ev, clock);
	return CLI_EXIT_OK;
}

const char cli_help_wait[] =
	"Listen for the given event types on this node, wait for the first event\n"
	"and print it: sequence number, type, sender, data and latency. With\n"
	"--timeout, give up after MS milliseconds (0: only look) and exit 3;\n"
	"SIGINT or SIGTERM end the wait, and it exits 130 (its node closed).\n"
	"Events sent before rfm wait started listening are not seen.\n"
	"\n"
	"Options:\n"
	"  -e, --event TYPE    intr1, intr2, intr3, intr4, reset, node_up, node_down,\n"
	"                      link or overflow; a comma list\n"
	"  -t, --timeout MS    give up after MS milliseconds (default: never)\n"
	"      --time CLOCK    timestamps in realtime (default: UTC, ISO 8601) or\n"
	"                      monotonic (seconds) time\n"
	"\n"
	"node_up, node_down and link (its card's status changed: data = RFM_LINK_*\n"
	"bits) come from a node-health monitor that this command then runs on its\n"
	"node; overflow announces events its queue dropped.\n"
	"\n"
	"JSON keys: type, sender, data, seq, sent_ns, received_ns (monotonic ns),\n"
	"time (in CLOCK).\n";

/* ---- rfm listen ---- */

static const struct option listen_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "count", required_argument, NULL, 'c' },
	{ "timeout", required_argument, NULL, 't' },
	{ "time", required_argument, NULL, OPT_TIME },
	{ NULL, 0, NULL, 0 },
};

/* The node a signal stops listening on (a cancel is safe in a handler). */
int cli_run_listen(struct cli *cli, int argc, char **argv)
{
	enum cli_clock clock = CLI_CLOCK_REALTIME;
	uint32_t mask = RFM_EVENT_MASK_NETWORK;
	uint64_t count = 0, seen = 0;
	int64_t timeout_ns = -1;
	struct rfm_event evs[64];
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "e:c:t:", listen_options)) > 0) {
		if (opt == 'e' && (ret = parse_types(cli, optarg, &mask)))
			return ret;
		if (opt == 'c' && (ret = cli_parse_u64(cli, "count", optarg, UINT64_MAX, &count)))
			return ret;
		if (opt == 't' && (ret = parse_timeout(cli, optarg, &timeout_ns)))
			return ret;
		if (opt == OPT_TIME && (ret = cli_parse_clock(cli, optarg, &clock)))
			return ret;
	}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (!ret)
		ret = start_receiving(cli, mask);
	if (ret)
		return ret;

	/* Ctrl-C cancels the wait: the events shown so far stay shown. */
	cli_watch_node(cli->node);
	cli_catch_interrupt();
	while (!count || seen < count) {
		size_t room = count && count - seen < 64 ? (size_t)(count - seen) : 64;
		int n = rfm_event_fetch(cli->node, evs, room, timeout_ns);

		if (n == RFM_ECANCELED || n == RFM_ETIMEDOUT || n == RFM_EAGAIN)
			break; /* a signal, or quiet for --timeout: done */
		if (n < 0) {
			ret = cli_fail(cli);
			break;
		}
		for (int i = 0; i < n && (!count || seen < count); i++)
			if (wanted(mask, &evs[i])) {
				print_event(cli, &evs[i], clock);
				seen++;
			}
	}
	return ret;
}

const char cli_help_listen[] =
	"Listen for events on this node (all types unless --event says) and print\n"
	"each on one line as it arrives, overflow announcements included, until\n"
	"interrupted (SIGINT, SIGTERM: exit 0), N events were printed, or no event\n"
	"came for MS milliseconds.\n"
	"\n"
	"Options:\n"
	"  -e, --event TYPE    intr1, intr2, intr3, intr4, reset, node_up, node_down,\n"
	"                      link or overflow; a comma list\n"
	"  -c, --count N       stop after N events\n"
	"  -t, --timeout MS    stop after MS milliseconds without an event\n"
	"      --time CLOCK    timestamps in realtime (default: UTC, ISO 8601) or\n"
	"                      monotonic (seconds) time\n"
	"\n"
	"node_up, node_down and link (its card's status changed: data = RFM_LINK_*\n"
	"bits) come from a node-health monitor that this command then runs on its\n"
	"node.\n"
	"\n"
	"JSON: one object per line and event, with the keys type, sender, data,\n"
	"seq, sent_ns, received_ns (monotonic ns), time (in CLOCK).\n";

int cli_parse_event_types(struct cli *cli, const char *text, uint32_t *mask)
{
	return parse_types(cli, text, mask);
}

int cli_start_receiving(struct cli *cli, uint32_t mask)
{
	return start_receiving(cli, mask);
}
