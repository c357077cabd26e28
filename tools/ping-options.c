/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping's options: read them, then check the mode, the peer and the
 * combinations. The real-time options (--rt-prio, --cpu, --lock-memory)
 * are rt-util.c's, as rfm jitter has them; --echo-cpu moves the --local
 * echoer to other CPUs.
 */
#include "config.h"

#include <string.h>

#include "ping.h"

/* --mode's words, by enum ping_mode; the report and the echoer print them. */
const char *const ping_mode_names[] = { "spin", "event", "ring" };

enum {
	OPT_ECHO = 0x2100,	/* above rt-util.h's RT_OPT_* */
	OPT_LOCAL,
	OPT_WARMUP,
	OPT_RATE,
	OPT_SIZE,
	OPT_ECHO_CPU,
	OPT_PEER,
	OPT_TIMEOUT,
	OPT_HIST_CSV,
	OPT_OFFSET,
};

const struct option ping_options[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "count", required_argument, NULL, 'c' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "echo-cpu", required_argument, NULL, OPT_ECHO_CPU },
	{ "peer", required_argument, NULL, OPT_PEER },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "hist-csv", required_argument, NULL, OPT_HIST_CSV },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "echo", no_argument, NULL, OPT_ECHO },
	{ "local", no_argument, NULL, OPT_LOCAL },
	RT_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* What the options say before they are checked against each other. */
struct ping_args {
	const char *peer_text, *mode_text;
	bool timeout_given, count_given, echo_cpu_given;
	rt_cpus echo_cpus;
};

/* One option @opt with @arg into @p, @o or @a. 0 or CLI_EXIT_USAGE. */
static int read_option(struct cli *cli, int opt, const char *arg, struct ping *p,
		       struct ping_opts *o, struct ping_args *a)
{
	uint64_t v;
	int ret = 0;

	switch (opt) {
	case 'm':
		a->mode_text = arg;
		break;
	case 'c':
		ret = cli_parse_u64(cli, "count", arg, UINT32_MAX, &o->count);
		a->count_given = true;
		break;
	case OPT_WARMUP:
		ret = cli_parse_u64(cli, "warmup", arg, UINT32_MAX, &o->warmup);
		break;
	case OPT_RATE:
		ret = cli_parse_u64(cli, "rate", arg, 1000000000, &o->rate_hz);
		break;
	case OPT_SIZE:
		ret = cli_parse_bytes(cli, "size", arg, MAX_PAYLOAD, &v);
		p->size = (uint32_t)v;
		break;
	case OPT_ECHO_CPU:
		ret = rt_parse_cpu_option(cli, "--echo-cpu", arg, &a->echo_cpus);
		if (ret)
			return ret;
		a->echo_cpu_given = true;
		break;
	case OPT_PEER:
		a->peer_text = arg;
		break;
	case OPT_TIMEOUT:
		ret = cli_parse_u64(cli, "timeout", arg, INT64_MAX / MS, &v);
		p->timeout_ns = (int64_t)v * MS;
		a->timeout_given = true;
		break;
	case OPT_HIST_CSV:
		o->csv_path = arg;
		break;
	case OPT_OFFSET:
		ret = cli_parse_bytes(cli, "offset", arg, UINT64_MAX, &p->offset);
		break;
	case OPT_ECHO:
		o->echo = true;
		break;
	case OPT_LOCAL:
		o->local = true;
		break;
	default:
		ret = rt_parse_option(cli, opt, arg, &o->rt);
	}
	return ret;
}

static int parse_mode(struct cli *cli, const char *text, enum ping_mode *mode)
{
	for (int m = MODE_SPIN; m <= MODE_RING; m++)
		if (!strcmp(text, ping_mode_names[m])) {
			*mode = (enum ping_mode)m;
			return 0;
		}
	return cli_usage_error(cli, "unknown mode '%s' (use spin, event or ring)", text);
}

/* Where the slots (rings) lie and who answers. 0 or the exit status. */
static int check_place(struct cli *cli, struct ping *p, const struct ping_opts *o,
		       const struct ping_args *a)
{
	uint64_t v;
	int ret;

	if (p->offset % 8)
		return cli_usage_error(cli, "offset %llu is not a multiple of 8",
				       (unsigned long long)p->offset);
	if (p->mode == MODE_RING && p->offset % 64)
		return cli_usage_error(cli, "ring mode: offset %llu is not a multiple of 64",
				       (unsigned long long)p->offset);
	if (p->mode == MODE_RING && a->peer_text)
		return cli_usage_error(cli, "ring mode takes no --peer (the rings say who "
				       "answers)");
	if (a->peer_text) {
		ret = cli_parse_u64(cli, "peer node", a->peer_text, RFM_NODE_ID_MAX, &v);
		if (ret)
			return ret;
		p->peer = (unsigned int)v;
	} else if (p->mode == MODE_EVENT && !o->echo && !o->local) {
		return cli_usage_error(cli, "event mode needs --peer NODE (or --local)");
	}
	return 0;
}

/* The mode, the peer and the combinations of options. 0 or the exit status. */
static int check_options(struct cli *cli, struct ping *p, struct ping_opts *o,
			 const struct ping_args *a)
{
	int ret = parse_mode(cli, a->mode_text, &p->mode);

	if (ret)
		return ret;
	if (o->echo && o->local)
		return cli_usage_error(cli, "--echo and --local exclude each other");
	if (o->echo && (o->csv_path || o->rate_hz || a->peer_text))
		return cli_usage_error(cli, "--echo takes only --mode, --count, --offset, "
				       "--timeout, --cpu, --rt-prio and --lock-memory");
	if (a->echo_cpu_given && !o->local)
		return cli_usage_error(cli, "--echo-cpu places the --local echoer: give --local");
	if (!o->count && !o->echo)
		return cli_usage_error(cli, "count must be at least 1");
	ret = check_place(cli, p, o, a);
	if (ret)
		return ret;
	if (o->echo && !a->timeout_given)
		p->timeout_ns = -1;
	/* An echoer serves until stopped, unless told how many to answer. */
	if (o->echo && !a->count_given)
		o->count = 0;
	/* The --local echoer runs as this process does, on --echo-cpu if given. */
	o->echo_rt = o->rt;
	if (a->echo_cpu_given) {
		o->echo_rt.has_cpus = true;
		o->echo_rt.cpus = a->echo_cpus;
	}
	return 0;
}

int ping_parse_options(struct cli *cli, int argc, char **argv, struct ping *p,
		       struct ping_opts *o)
{
	struct ping_args a = { .mode_text = "spin" };
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "m:c:", ping_options)) > 0) {
		ret = read_option(cli, opt, optarg, p, o, &a);
		if (ret)
			return ret;
	}
	ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	return check_options(cli, p, o, &a);
}
