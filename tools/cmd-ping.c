/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping: round-trip latency between two nodes, by the method of the
 * field (node A writes a timestamp, node B echoes it, A measures the round
 * trip). The echo side is `rfm ping --echo` on the other node, or a forked
 * child with --local. The transports are in ping-slot.c (spin, event) and
 * ping-ring.c (ring); this file has the options, the measurement, the
 * local echoer and the report.
 *
 * With --rate the pinger sends on a fixed schedule and stamps the intended
 * send time, so a stall delays every later send and is counted in full
 * (no coordinated omission).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latency-hist.h"
#include "ping.h"

#define SLEEP_MARGIN_NS 50000u	/* --rate: wake this early, then spin */

const char *const ping_mode_names[] = { "spin", "event", "ring" };
/*
 * One round trip stamped @stamp, by the mode's transport: 0,
 * PING_INTERRUPTED, or an exit status after saying why.
 */
static int round_trip(struct ping *p, uint32_t seq, uint64_t stamp, uint32_t flags)
{
	uint64_t echoed = 0;
	int ret = p->mode == MODE_RING ? ring_round_trip(p, seq, stamp, flags, &echoed)
				       : slot_round_trip(p, seq, stamp, flags, &echoed);

	if (ret == RFM_ETIMEDOUT) {
		cli_error(p->cli, "no echo within %lld ms (is 'rfm ping --echo --mode %s' "
			  "running on the peer, at the same --offset?)",
			  (long long)(p->timeout_ns / MS), ping_mode_names[p->mode]);
		return CLI_EXIT_NOMATCH;
	}
	if (ret < 0)
		return cli_fail(p->cli);
	if (ret)
		return ret;
	if (echoed != stamp)
		return cli_error(p->cli, "echo %u carries another timestamp: is a second pinger "
				 "using this --offset?", seq);
	return 0;
}

/*
 * Wait until @t (absolute, CLOCK_MONOTONIC). In event mode sleep until
 * shortly before it (timer slack set to 1 ns by the caller), then spin the
 * rest: otherwise a late wake-up of the pinger itself would be counted
 * as network latency.
 */

static void wait_until(const struct ping *p, uint64_t t)
{
	if (p->mode == MODE_EVENT && t > now_ns() + SLEEP_MARGIN_NS) {
		uint64_t wake = t - SLEEP_MARGIN_NS;
		struct timespec ts = { .tv_sec = (time_t)(wake / 1000000000u),
				       .tv_nsec = (long)(wake % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			if (cli_interrupted())
				return;
	}
	for (uint64_t n; (n = now_ns()) < t && !cli_interrupted();)
		if (t - n > YIELD_AFTER_NS)
			sched_yield();
		else
			relax();
}

struct run_opts {
	uint64_t count, warmup, rate_hz;
};

static void show_progress(struct cli_progress *pr, const struct run_opts *o,
			  const struct lhist *rtt, bool warming)
{
	if (!cli_progress_due(pr))
		return;
	if (warming)
		fputs("rfm ping: warming up", stderr);
	else
		fprintf(stderr, "rfm ping: %llu of %llu round trips, P50 %llu ns, max %llu ns",
			(unsigned long long)rtt->count, (unsigned long long)o->count,
			(unsigned long long)lhist_quantile(rtt, 0.50),
			(unsigned long long)(rtt->count ? rtt->max : 0));
}

/*
 * Open the session (the echoer answers no earlier request), warm up, then
 * measure o->count round trips into @rtt. PING_INTERRUPTED on Ctrl-C, with
 * what was measured so far in @rtt.
 */
static int measure(struct ping *p, const struct run_opts *o, struct lhist *rtt,
		   uint64_t *late)
{
	uint32_t seq = p->mode == MODE_RING ? 0 : slot_last_seq(p);
	uint64_t period = o->rate_hz ? 1000000000u / o->rate_hz : 0;
	struct cli_progress pr;
	uint64_t start = 0;
	int ret;

	*late = 0;
	cli_progress_start(&pr);
	if (period)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	/* Ring mode said hello before the --local echoer was known to be there. */
	if (p->mode != MODE_RING) {
		ret = round_trip(p, ++seq, now_ns(), FLAG_HELLO);
		if (ret)
			goto out;
	}
	for (uint64_t i = 0; i < o->warmup; i++) {
		ret = round_trip(p, ++seq, now_ns(), 0);
		if (ret)
			goto out;
		show_progress(&pr, o, rtt, true);
	}
	start = now_ns();
	for (uint64_t i = 0; i < o->count; i++) {
		uint64_t stamp;

		if (cli_interrupted()) {
			ret = PING_INTERRUPTED;
			goto out;
		}
		if (period) {
			stamp = start + i * period;
			uint64_t t = now_ns();
			if (t < stamp)
				wait_until(p, stamp);
			else if (t - stamp >= period)
				(*late)++;	/* a whole period behind: a stall upstream */
		} else {
			stamp = now_ns();
		}
		ret = round_trip(p, ++seq, stamp, 0);
		if (ret)
			goto out;
		lhist_record(rtt, now_ns() - stamp);
		show_progress(&pr, o, rtt, false);
	}
	ret = cli_interrupted() ? PING_INTERRUPTED : 0;
out:
	cli_progress_end(&pr);
	return ret;
}

/* ---- options ---- */

enum {
	OPT_ECHO = 0x2000,
	OPT_LOCAL,
	OPT_WARMUP,
	OPT_RATE,
	OPT_SIZE,
	OPT_CPU,
	OPT_PEER,
	OPT_TIMEOUT,
	OPT_HIST_CSV,
	OPT_OFFSET,
};

static const struct option ping_options[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "count", required_argument, NULL, 'c' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "peer", required_argument, NULL, OPT_PEER },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "hist-csv", required_argument, NULL, OPT_HIST_CSV },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "echo", no_argument, NULL, OPT_ECHO },
	{ "local", no_argument, NULL, OPT_LOCAL },
	{ NULL, 0, NULL, 0 },
};

/* "--cpu A" or "--cpu A,B": this process on A, the --local echoer on B. */
static int parse_cpus(struct cli *cli, const char *text, int cpus[2])
{
	char first[32];
	const char *comma = strchr(text, ',');
	uint64_t v;
	int ret;

	if (comma && (size_t)(comma - text) >= sizeof(first))
		return cli_usage_error(cli, "bad --cpu '%s'", text);
	snprintf(first, sizeof(first), "%.*s", comma ? (int)(comma - text) : (int)strlen(text),
		 text);
	ret = cli_parse_u64(cli, "CPU", first, CPU_SETSIZE - 1, &v);
	if (ret)
		return ret;
	cpus[0] = (int)v;
	if (comma) {
		ret = cli_parse_u64(cli, "CPU", comma + 1, CPU_SETSIZE - 1, &v);
		if (ret)
			return ret;
		cpus[1] = (int)v;
	}
	return 0;
}

static int pin(struct cli *cli, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return cli_error(cli, "cannot run on CPU %d: %s", cpu, strerror(errno));
	return 0;
}

/*
 * The URI of the --local echoer: the pinger's URI without its node=
 * parameter, so that the child takes the first free id.
 */
static char *uri_without_node(const char *uri)
{
	char *copy = malloc(strlen(uri) + 1), *q = strchr(uri, '?');
	size_t n;

	if (!copy)
		return NULL;
	if (!q) {
		strcpy(copy, uri);
		return copy;
	}
	n = (size_t)(q - uri);
	memcpy(copy, uri, n);
	copy[n] = 0;
	char sep = '?';
	for (const char *param = q + 1; *param;) {
		size_t len = strcspn(param, "&");
		if (strncmp(param, "node=", 5)) {
			size_t at = strlen(copy);
			copy[at] = sep;
			memcpy(copy + at + 1, param, len);
			copy[at + 1 + len] = 0;
			sep = '&';
		}
		param += len;
		if (*param == '&')
			param++;
	}
	return copy;
}

/* The forked echoer of --local: reports its node id on @ready_fd, then echoes. */
static int echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed)
{
	return p->mode == MODE_RING ? ring_echo_loop(p, max_echoes, echoed)
				    : slot_echo_loop(p, max_echoes, echoed);
}

static int local_echoer(struct ping *parent, int cpu, int ready_fd)
{
	struct cli cli = *parent->cli;
	struct ping p = *parent;
	char *uri = uri_without_node(cli_effective_uri(parent->cli));
	int id = -1;

	cli.node = NULL;
	cli.uri = uri;
	p.cli = &cli;
	p.out = NULL;	/* the parent's: this side produces the reply ring */
	p.in = NULL;
	p.msg = NULL;
	if (uri && !pin(&cli, cpu) && !cli_open(&cli) &&
	    (p.mode != MODE_EVENT || !rfm_event_enable(cli.node, RFM_EVENT_BIT(RFM_EVENT_INTR1))) &&
	    !rfm_event_set_spin(cli.node, p.mode == MODE_RING ? YIELD_AFTER_NS : 0) &&
	    !rfm_mem_map(cli.node, (void **)&p.base, NULL))
		id = rfm_node_id(cli.node);
	if (id < 0 && uri)
		cli_fail(&cli);
	/* The request ring exists already: the parent made it before forking. */
	if (id >= 0 && p.mode == MODE_RING && ring_echo_setup(&p))
		id = -1;
	if (write(ready_fd, &id, sizeof(id)) != sizeof(id) || id < 0)
		return 1;
	close(ready_fd);
	p.timeout_ns = -1;	/* the parent stops us (a stop request, or a kill) */
	uint64_t echoed;
	int ret = echo_loop(&p, 0, &echoed);
	rfm_ring_close(p.out);
	rfm_ring_consumer_close(p.in);
	free(p.msg);
	rfm_close(cli.node);
	free(uri);
	return ret;
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

static void report(struct ping *p, const struct run_opts *o, const struct lhist *h,
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
	printf("  %-10s %8s %8s %8s %8s %8s %8s %9s  (ns)\n", "", "min", "mean", "P50", "P90",
	       "P99", "P99.9", "max");
	print_row("round trip", h, 1);
	print_row("one way", h, 2);
	printf("round trips:\n");
	lhist_print_text(h, stdout, "  ");
}

/* A session id for this run: differs from earlier runs' with near certainty. */
static uint32_t new_session(void)
{
	uint64_t t = now_ns() ^ ((uint64_t)getpid() << 20);
	uint32_t s = (uint32_t)(t ^ (t >> 32));

	return s ? s : 1;
}

/* What rfm ping's options say beside struct ping and struct run_opts. */
struct ping_args {
	const char *csv_path, *peer_text, *mode_text;
	bool echo, local, timeout_given, count_given;
	int cpus[2]; /* pinger's and local echoer's CPU, -1: any */
};

/*
 * The options into @p, @o and @a. Returns 0 with *done false to go on;
 * else *done is true and the result is the exit status (--help, usage).
 */
static int read_options(struct cli *cli, int argc, char **argv, struct ping *p,
			struct run_opts *o, struct ping_args *a, bool *done)
{
	int opt, ret;
	uint64_t v;

	*done = true;
	while ((opt = cli_getopt(cli, argc, argv, "m:c:", ping_options)) > 0) {
		ret = 0;
		switch (opt) {
		case 'm':
			a->mode_text = optarg;
			break;
		case 'c':
			ret = cli_parse_u64(cli, "count", optarg, UINT32_MAX, &o->count);
			a->count_given = true;
			break;
		case OPT_WARMUP:
			ret = cli_parse_u64(cli, "warmup", optarg, UINT32_MAX, &o->warmup);
			break;
		case OPT_RATE:
			ret = cli_parse_u64(cli, "rate", optarg, 1000000000, &o->rate_hz);
			break;
		case OPT_SIZE:
			ret = cli_parse_bytes(cli, "size", optarg, MAX_PAYLOAD, &v);
			p->size = (uint32_t)v;
			break;
		case OPT_CPU:
			ret = parse_cpus(cli, optarg, a->cpus);
			break;
		case OPT_PEER:
			a->peer_text = optarg;
			break;
		case OPT_TIMEOUT:
			ret = cli_parse_u64(cli, "timeout", optarg, INT64_MAX / MS, &v);
			p->timeout_ns = (int64_t)v * MS;
			a->timeout_given = true;
			break;
		case OPT_HIST_CSV:
			a->csv_path = optarg;
			break;
		case OPT_OFFSET:
			ret = cli_parse_bytes(cli, "offset", optarg, UINT64_MAX, &p->offset);
			break;
		case OPT_ECHO:
			a->echo = true;
			break;
		case OPT_LOCAL:
			a->local = true;
			break;
		}
		if (ret)
			return ret;
	}
	if (opt == CLI_OPT_STOP)
		return cli->status;
	ret = cli_check_args(cli, argc, argv, 0, 0);
	if (ret)
		return ret;
	*done = false;
	return 0;
}

/* The mode, the peer and the combinations of options. 0 or the exit status. */
static int check_options(struct cli *cli, struct ping *p, struct run_opts *o,
			 struct ping_args *a)
{
	uint64_t v;
	int ret;

	if (!strcmp(a->mode_text, "spin"))
		p->mode = MODE_SPIN;
	else if (!strcmp(a->mode_text, "event"))
		p->mode = MODE_EVENT;
	else if (!strcmp(a->mode_text, "ring"))
		p->mode = MODE_RING;
	else
		return cli_usage_error(cli, "unknown mode '%s' (use spin, event or ring)",
				       a->mode_text);
	if (p->offset % 8)
		return cli_usage_error(cli, "offset %llu is not a multiple of 8",
				       (unsigned long long)p->offset);
	if (p->mode == MODE_RING && p->offset % 64)
		return cli_usage_error(cli, "ring mode: offset %llu is not a multiple of 64",
				       (unsigned long long)p->offset);
	if (p->mode == MODE_RING && a->peer_text)
		return cli_usage_error(cli, "ring mode takes no --peer (the rings say who "
				       "answers)");
	if (a->echo && a->local)
		return cli_usage_error(cli, "--echo and --local exclude each other");
	if (a->echo && (a->csv_path || o->rate_hz || a->peer_text))
		return cli_usage_error(cli, "--echo takes only --mode, --count, --offset, --cpu "
				       "and --timeout");
	if (!o->count && !a->echo)
		return cli_usage_error(cli, "count must be at least 1");
	if (a->peer_text) {
		ret = cli_parse_u64(cli, "peer node", a->peer_text, RFM_NODE_ID_MAX, &v);
		if (ret)
			return ret;
		p->peer = (unsigned int)v;
	} else if (p->mode == MODE_EVENT && !a->echo && !a->local) {
		return cli_usage_error(cli, "event mode needs --peer NODE (or --local)");
	}
	if (a->echo && !a->timeout_given)
		p->timeout_ns = -1;
	/* An echoer serves until stopped, unless told how many to answer. */
	if (a->echo && !a->count_given)
		o->count = 0;
	return 0;
}

/* rfm ping --echo: answer until stopped (or @count answered), then say how many. */
static int run_echo(struct cli *cli, struct ping *p, uint64_t count, int cpu)
{
	uint64_t echoed;
	int ret;

	ret = pin(cli, cpu);
	if (!ret && p->mode == MODE_RING)
		ret = ring_echo_setup(p);
	if (!ret)
		ret = echo_loop(p, count, &echoed);
	if (ret == CLI_EXIT_NOMATCH)
		cli_error(cli, "no request within %lld ms", (long long)(p->timeout_ns / MS));
	if (ret == PING_INTERRUPTED)
		ret = CLI_EXIT_INTERRUPTED;
	else if (ret)
		return ret;
	if (cli->json) {
		struct json_object *obj = json_object_new_object();
		cli_json_add_string(obj, "mode", ping_mode_names[p->mode]);
		cli_json_add_u64(obj, "echoed", echoed);
		cli_json_add_bool(obj, "interrupted", ret == CLI_EXIT_INTERRUPTED);
		cli_json_print(obj);
	} else {
		printf("echoed %llu request(s)\n", (unsigned long long)echoed);
	}
	return ret;
}

/* rfm ping --local: fork the echoer (on @cpu); *child its pid, p->peer its node. */
static int start_local_echoer(struct cli *cli, struct ping *p, int cpu, pid_t *child)
{
	int ready[2], id = -1;

	if (pipe(ready))
		return cli_error(cli, "pipe: %s", strerror(errno));
	fflush(NULL);
	*child = fork();
	if (*child == 0) {
		/* Never outlive the pinger, even one killed with SIGKILL. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL);
		close(ready[0]);
		_exit(local_echoer(p, cpu, ready[1]));
	}
	close(ready[1]);
	if (*child < 0 || read(ready[0], &id, sizeof(id)) != sizeof(id) || id < 0) {
		close(ready[0]);
		return *child < 0 ? cli_error(cli, "fork: %s", strerror(errno))
				  : CLI_EXIT_FAILED;	/* the child said why */
	}
	close(ready[0]);
	p->peer = (unsigned int)id;
	return 0;
}

/*
 * Both sides: the payload, this thread's CPU, the node with its window
 * and event settings, and the slots (rings) of the exchange.
 */
static int ping_setup(struct cli *cli, struct ping *p, const struct ping_args *a)
{
	int ret;

	p->payload = calloc(1, p->size ? p->size : 1);
	ret = p->payload ? pin(cli, a->cpus[0]) : cli_error(cli, "out of memory");
	if (ret)
		return ret;
	for (uint32_t i = 0; i < p->size; i++)
		p->payload[i] = (uint8_t)i;
	ret = cli_open(cli);
	if (ret)
		return ret;
	if (rfm_mem_map(cli->node, (void **)&p->base, NULL) ||
	    (p->mode == MODE_EVENT &&
	     (rfm_event_enable(cli->node, RFM_EVENT_BIT(RFM_EVENT_INTR1)) ||
	      rfm_event_set_spin(cli->node, 0))) ||
	    /* Ring takes spin as spin mode does, then poll with yields. */
	    (p->mode == MODE_RING && rfm_event_set_spin(cli->node, YIELD_AFTER_NS)))
		return cli_fail(cli);
	/* Both slots (rings), at the largest payload the echoer will accept. */
	if (p->mode != MODE_RING) {
		ret = cli_check_range(cli, p->offset, slot_pair_span(p->size));
		if (!ret)
			ret = cli_guard_scratch(cli, p->offset, slot_pair_span(p->size),
						PING_OFFSET_HINT);
	} else if (!a->echo) {
		ret = ring_ping_setup(p);
	}
	return ret;
}

static int ping_run(struct cli *cli, int argc, char **argv)
{
	struct ping p = { .cli = cli, .mode = MODE_SPIN, .timeout_ns = 1000 * MS };
	struct run_opts o = { .count = 10000, .warmup = 1000 };
	struct ping_args a = { .mode_text = "spin", .cpus = { -1, -1 } };
	const char *csv_path;
	bool done;
	int ret;

	ret = read_options(cli, argc, argv, &p, &o, &a, &done);
	if (done)
		return ret;
	ret = check_options(cli, &p, &o, &a);
	if (ret)
		return ret;
	csv_path = a.csv_path;
	p.session = new_session();
	cli_catch_interrupt();

	/* Opened first, so that an unwritable path fails before the run. */
	struct cli_out_file csv = { 0 };
	if (csv_path && cli_out_open(cli, &csv, csv_path, false))
		return CLI_EXIT_FAILED;

	pid_t child = -1;
	struct lhist *hist = NULL;
	uint64_t late = 0;
	ret = ping_setup(cli, &p, &a);
	if (ret)
		goto out;

	if (a.echo) {
		ret = run_echo(cli, &p, o.count, a.cpus[0]);
		goto out;
	}
	if (a.local) {
		ret = start_local_echoer(cli, &p, a.cpus[1], &child);
		if (ret)
			goto out;
	}
	if (p.mode == MODE_RING) {
		ret = ring_open_peer(&p, ring_reply_offset(&p, p.size), "echo");
		if (!ret)
			ret = round_trip(&p, 0, 0, FLAG_HELLO);
		if (ret && ret != PING_INTERRUPTED)
			goto out;
	}

	hist = malloc(sizeof(*hist));
	if (!hist) {
		ret = cli_error(cli, "out of memory");
		goto out;
	}
	lhist_init(hist);
	if (!ret)
		ret = measure(&p, &o, hist, &late);
	if (a.local && !ret) {
		/* Ask the echoer to leave; it needs no answer. */
		ret = round_trip(&p, p.last_seq + 1, 0, FLAG_STOP);
	}
	/* Ctrl-C: report what was measured, honestly counted, and exit 130. */
	if (ret == PING_INTERRUPTED)
		ret = CLI_EXIT_INTERRUPTED;
	else if (ret)
		goto out;
	report(&p, &o, hist, late, ret == CLI_EXIT_INTERRUPTED);
	if (csv.fp && lhist_write_csv(hist, csv.fp) && ret == CLI_EXIT_OK)
		ret = cli_error(cli, "cannot write '%s': %s", csv_path, strerror(errno));

out:
	if (child > 0) {
		int status;
		if (ret)
			kill(child, SIGKILL);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			ret = cli_error(cli, "the local echoer failed");
	}
	/* A complete histogram (an interrupted run's too) replaces the file. */
	if (ret == CLI_EXIT_OK || ret == CLI_EXIT_INTERRUPTED) {
		int err = cli_out_commit(cli, &csv);
		ret = err ? err : ret;
	}
	cli_out_abort(&csv);
	rfm_ring_close(p.out);
	rfm_ring_consumer_close(p.in);
	free(p.msg);
	free(hist);
	free(p.payload);
	return ret;
}

const struct cli_command cli_cmd_ping = {
	.name = "ping",
	.args = "[--local | --echo | --peer NODE] [--mode spin|event|ring] [OPTIONS]",
	.summary = "Measure round-trip latency to another node (latency histogram)",
	.help = "Node A (this command) writes a timestamp, node B echoes it back, A measures\n"
		"the round trip; one way is half of it. Run 'rfm ping --echo' on the other\n"
		"node first, or use --local to fork the echoer on a second node of the same\n"
		"network. Both sides must use the same --mode and --offset.\n"
		"\n"
		"Modes:\n"
		"  spin    the peers spin on a sequence word (data, then the sequence)\n"
		"  event   the peers sleep in rfm_event_wait() for an INTR1 that follows the\n"
		"          data (network interrupts; blocking, no spinning)\n"
		"  ring    each side publishes on its own ring (rfm_ring_publish()) and\n"
		"          consumes the other's (rfm_ring_consume(), polling): the request\n"
		"          ring at --offset, the reply ring right after it\n"
		"\n"
		"Options:\n"
		"  -m, --mode MODE      spin (default), event or ring\n"
		"  -c, --count N        round trips to measure (default 10000); with --echo,\n"
		"                       requests to answer before exiting (default: no\n"
		"                       limit, the echoer runs until stopped)\n"
		"      --warmup N       round trips before measuring (default 1000)\n"
		"      --rate HZ        send HZ times a second on a fixed schedule, timing\n"
		"                       each round trip from its intended send time so that\n"
		"                       stalls are not hidden (default: back to back)\n"
		"      --size BYTES     payload carried each way, 0..65536 (default 0)\n"
		"      --cpu A[,B]      run on CPU A (the --local echoer on CPU B)\n"
		"      --peer NODE      the echoer's node id (event mode without --local)\n"
		"      --timeout MS     give up on a round trip after MS ms (default 1000);\n"
		"                       with --echo, on a request (default: wait forever)\n"
		"      --offset OFF     where the two slots lie (default 0; multiple of 8);\n"
		"                       ping uses 2 x (32 + size rounded up to 64) bytes;\n"
		"                       ring mode: two rings of 8 slots of 16 + size bytes\n"
		"                       (multiple of 64)\n"
		"      --hist-csv FILE  write the histogram: low_ns,high_ns,count,cumulative\n"
		"      --echo           be the echo side\n"
		"      --local          fork the echo side on another node of this network\n"
		"\n"
		"Output: min, mean, P50, P90, P99, P99.9 and max of the round trip and of\n"
		"one way, then a histogram in powers of two. Percentiles come from a log\n"
		"histogram (64 buckets per power of two: within 1.6 %).\n"
		"JSON keys: mode, count, warmup, size, rate_hz, late_sends, node, peer (event),\n"
		"offset, interrupted, min_ns, mean_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns,\n"
		"and one_way with the same *_ns keys. --echo --json prints mode, echoed and interrupted.\n"
		"On a terminal, progress is shown on stderr once a second. Ctrl-C stops the\n"
		"run and prints what was measured (JSON \"interrupted\": true), exit 130;\n"
		"the echoer prints how many requests it answered.\n"
		"Each run opens a session with a handshake: a request left behind by an\n"
		"aborted run is ignored by later echoers and pingers.\n"
		"Exit 3 when no echo (or, with --echo, no request) came within the timeout.\n",
	.run = ping_run,
};
