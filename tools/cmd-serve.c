/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: a monitoring page, a JSON API, a Server-Sent-Events stream and
 * Prometheus metrics for the network, over HTTP (serve-http.c). This file
 * parses the options, opens the node and runs the sampler: at --rate HZ it
 * looks at the node table for changes (its monitor; not with --no-monitor),
 * takes the events queued for the server's handle and makes the snapshot
 * the SSE clients are sent. By default the server is an observer: it holds
 * no node id a real node may need, receives no events and writes nothing.
 * Given an id (node= in the URI) it is a tool on that id: it counts the
 * events sent to it, beats into that id's heartbeat slot (unless
 * --no-monitor) and, on request with --allow-write and the token, writes
 * variables and sends events.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "os/tool-os.h"
#include "serve.h"

enum {
	OPT_PORT = 'p',
	OPT_BIND = 'b',
	OPT_ALLOW_WRITE = 0x2000,
	OPT_RATE,
	OPT_HIST,
	OPT_MAX_STREAMS,
	OPT_MAX_PER_ADDRESS,
	OPT_NO_MONITOR,
};

static const struct option serve_options[] = {
	{ "port", required_argument, NULL, OPT_PORT },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "allow-write", no_argument, NULL, OPT_ALLOW_WRITE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "hist", required_argument, NULL, OPT_HIST },
	{ "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
	{ "max-per-address", required_argument, NULL, OPT_MAX_PER_ADDRESS },
	{ "no-monitor", no_argument, NULL, OPT_NO_MONITOR },
	{ NULL, 0, NULL, 0 },
};

static void catch_stop(void)
{
	cli_catch_interrupt();
	/* A client that hangs up mid-answer must not end the server. */
	tool_os_ignore_broken_pipe();
}

/* One step of the sampler: count the events, replace the snapshot, wake the clients. */
static void sample(struct serve *s)
{
	struct rfm_node_status rows[RFM_MAX_NODES];

	pthread_mutex_lock(&s->lock);
	serve_watch_nodes(s, rows, rfm_health_nodes(s->cli->node, rows, RFM_MAX_NODES));
	serve_take_events(s);
	serve_fresh_sample(s, rfm_event_now_ns());
	struct json_object *snap = serve_json_snapshot(s);
	struct json_object *changes = serve_take_node_changes(s);
	serve_sse_publish(s, json_object_to_json_string_ext(snap, JSON_C_TO_STRING_PLAIN),
			  changes);
	json_object_put(changes);
	json_object_put(snap);
	pthread_mutex_unlock(&s->lock);
	serve_sse_wake(s);
}

static void print_ready(struct serve *s, const char *bind, uint16_t port)
{
	bool v6 = strchr(bind, ':') != NULL;
	char url[128];

	snprintf(url, sizeof(url), "http://%s%s%s:%u/", v6 ? "[" : "", bind, v6 ? "]" : "",
		 (unsigned int)port);
	if (s->cli->json) {
		struct json_object *o = json_object_new_object();
		cli_json_add_string(o, "url", url);
		cli_json_add_u64(o, "port", port);
		/* null: an observer, which holds no node id. */
		if (s->observer)
			json_object_object_add(o, "node", NULL);
		else
			cli_json_add_u64(o, "node", (uint64_t)rfm_node_id(s->cli->node));
		if (s->allow_write)
			cli_json_add_string(o, "token", s->token);
		else
			json_object_object_add(o, "token", NULL);
		cli_json_print(o);
	} else {
		if (s->allow_write)
			printf("write token: %s\n", s->token);
		printf("serving %s (port %u)\n", url, (unsigned int)port);
	}
	fflush(stdout);
}

static int serve_loop(struct serve *s, const char *bind, uint16_t port, uint64_t rate)
{
	struct MHD_Daemon *d;
	uint16_t chosen = 0;
	uint64_t period_ns = 1000000000ull / rate;

	sample(s);	/* the first snapshot exists before the first client */
	d = serve_http_start(s, bind, port, &chosen);
	if (!d)
		return CLI_EXIT_FAILED;
	print_ready(s, bind, chosen);
	while (!cli_interrupted()) {
		struct timespec ts = { .tv_sec = (time_t)(period_ns / 1000000000ull),
				       .tv_nsec = (long)(period_ns % 1000000000ull) };
		nanosleep(&ts, NULL);	/* a signal ends it early (Windows: the period) */
		if (!cli_interrupted())
			sample(s);
	}
	serve_sse_stop(s);	/* libmicrohttpd stops no suspended connection */
	MHD_stop_daemon(d);
	return CLI_EXIT_OK;
}

int cli_run_serve(struct cli *cli, int argc, char **argv)
{
	struct serve s = { .cli = cli, .max_streams = SERVE_MAX_STREAMS,
			   .per_address = SERVE_PER_ADDRESS, .monitor = true };
	const char *bind = "127.0.0.1", *layout_path = NULL, *hist_path = NULL;
	uint64_t port = 8080, rate = 10, max_streams = SERVE_MAX_STREAMS,
		 per_address = SERVE_PER_ADDRESS;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "p:b:", serve_options)) > 0) {
		ret = 0;
		if (opt == OPT_PORT)
			ret = cli_parse_u64(cli, "port", optarg, 65535, &port);
		else if (opt == OPT_BIND)
			bind = optarg;
		else if (opt == CLI_OPT_LAYOUT)
			layout_path = optarg;
		else if (opt == OPT_ALLOW_WRITE)
			s.allow_write = true;
		else if (opt == OPT_HIST)
			hist_path = optarg;
		else if (opt == OPT_NO_MONITOR)
			s.monitor = false;
		else if (opt == OPT_MAX_STREAMS)
			ret = cli_parse_u64(cli, "max-streams", optarg, 100000, &max_streams);
		else if (opt == OPT_MAX_PER_ADDRESS && !(ret = cli_parse_u64(cli, "max-per-address",
									     optarg, 100000,
									     &per_address)) &&
			 per_address == 0)
			ret = cli_usage_error(cli, "--max-per-address must be 1 or more");
		else if (opt == OPT_RATE && !(ret = cli_parse_u64(cli, "rate", optarg, 1000, &rate)) &&
			 rate == 0)
			ret = cli_usage_error(cli, "--rate must be 1 to 1000 (updates a second)");
		if (ret)
			return ret;
	}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	s.max_streams = (unsigned int)max_streams;
	s.per_address = (unsigned int)per_address;
	unsigned char addr[16];
	if (inet_pton(AF_INET, bind, addr) != 1 && inet_pton(AF_INET6, bind, addr) != 1)
		return cli_usage_error(cli, "--bind '%s' is not an IPv4 or IPv6 address", bind);
	if (hist_path && (ret = serve_load_hist(&s, hist_path)))
		goto out;
	if (layout_path && (ret = cli_load_layout(cli, layout_path, &s.layout)))
		goto out;
	if (s.allow_write && serve_make_token(&s)) {
		ret = cli_error(cli, "no random token: getrandom: %m");
		goto out;
	}
	/*
	 * An observer unless the URI names an id: the server then holds it as
	 * a tool, to count the events sent to it, beat and write. A monitor
	 * must not make a network out of a mistyped name.
	 */
	s.observer = !cli_uri_names_node(cli);
	ret = cli_open_as(cli, s.observer ? CLI_ATTACH_OBSERVER : CLI_ATTACH_TOOL, true);
	if (ret)
		goto out;
	if (!s.observer && rfm_event_enable(cli->node, RFM_EVENT_MASK_NETWORK)) {
		ret = cli_fail(cli);
		goto out;
	}
	ret = serve_open_vars(&s);
	if (!ret)
		ret = serve_fresh_init(&s);
	if (ret)
		goto out;
	if (serve_counts_init(&s) || serve_conns_init(&s)) {
		ret = cli_error(cli, "out of memory");
		goto out;
	}
	/* Its own id's heartbeat, so that others see the monitor itself. */
	if (s.monitor && !s.observer && rfm_health_start(cli->node, NULL)) {
		ret = cli_fail(cli);
		goto out;
	}
	pthread_mutex_init(&s.lock, NULL);
	pthread_mutex_init(&s.sse_lock, NULL);
	s.start_ns = rfm_event_now_ns();
	catch_stop();
	ret = serve_loop(&s, bind, (uint16_t)port, rate);
	pthread_mutex_destroy(&s.sse_lock);
	pthread_mutex_destroy(&s.lock);
out:
	serve_conns_free(&s);
	serve_counts_free(&s);
	serve_fresh_free(&s);
	serve_close_vars(&s);
	rfm_layout_free(s.layout);
	if (s.frame)
		serve_frame_put(&s, s.frame);
	free(s.hist);
	return ret;
}

/* Its synopsis and summary as well: rfm --help says what this build has. */
const char cli_serve_args[] =
	"[--port PORT] [--bind ADDR] [--layout FILE] [--rate HZ] [--hist FILE] "
	"[--max-streams N] [--max-per-address N] [--no-monitor] [--allow-write]";
const char cli_serve_summary[] =
	"Serve a live monitoring page, a JSON API and Prometheus metrics over HTTP";
const char cli_help_serve[] =
	"Listen on ADDR:PORT (default 127.0.0.1:8080) and serve the network this\n"
	"node is on: the page / (node table, event counters, variables with\n"
	"out-of-range values marked, the latency histogram of --hist), the JSON\n"
	"API /api/nodes, /api/vars?names=A,B, /api/rings (the layout's regions),\n"
	"/api/stats, /api/hist, /api/snapshot (what one event of the stream\n"
	"carries), the Server-Sent-Events stream /api/events (a snapshot HZ\n"
	"times a second) and /metrics (Prometheus text format).\n"
	"It runs the library's health monitor on its node: it beats into its own\n"
	"heartbeat slot and reports each node going down or up (the page, the\n"
	"node table's down_count/up_count/change/since_s, rfm_node_down_total and\n"
	"rfm_node_up_total, a \"node\" event on the stream). Otherwise it only\n"
	"reads the window. Once listening it prints its URL and\n"
	"port (with --json: {url, port, node, token}); PORT 0 takes a free port.\n"
	"SIGINT or SIGTERM stop it.\n"
	"\n"
	"Options:\n"
	"  -p, --port PORT     TCP port (0: any free one; default 8080)\n"
	"  -b, --bind ADDR     IPv4 or IPv6 address to listen on (default 127.0.0.1)\n"
	"      --layout FILE   the variables of this layout (default: none)\n"
	"      --rate HZ       snapshots a second for /api/events (1-1000, default 10)\n"
	"      --hist FILE     the histogram rfm ping --hist-csv FILE wrote\n"
	"      --max-streams N open /api/events streams (default 1024; 0: none);\n"
	"                      one more is answered 503\n"
	"      --max-per-address N\n"
	"                      connections one client address may hold (default 64),\n"
	"                      half of them event streams at most; at the limit a\n"
	"                      new one pushes out the address's oldest connection\n"
	"                      without a whole request, or a stream that has not\n"
	"                      read for 2 s, and is refused only when there is\n"
	"                      none (all its connections in all: 8 times this at\n"
	"                      least); a head not sent within 5 s is dropped\n"
	"      --no-monitor    run no health monitor: the server does not beat, and\n"
	"                      no node change is reported (another node's monitor's\n"
	"                      records go to that node's queues only)\n"
	"      --allow-write   accept POST /api/vars {name, value} and POST /api/send\n"
	"                      {to, type, data}; a random token is printed at start\n"
	"                      and every write must send Authorization: Bearer TOKEN\n";
