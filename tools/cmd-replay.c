/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm replay FILE [NAMES...]: a recording written back into the network
 * at its recorded times (scaled by --speed), from --from to --to, once
 * or --loop, every stream merged in time order: variables, records and
 * regions written, ring messages published, events re-sent in the order
 * they came. What it may write is replay-check.c's business.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay.h"

enum { OPT_SPEED = 0x2200, OPT_LOOP, OPT_FROM, OPT_TO, OPT_FORCE };

static const struct option replay_options[] = {
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "speed", required_argument, NULL, OPT_SPEED },
	{ "loop", no_argument, NULL, OPT_LOOP },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 },
};

struct replay_opts {
	const char *layout_path;
	double speed, from, to;
	bool loop, force;
};

static int parse_number(struct cli *cli, const char *what, const char *text, double min,
			double *v)
{
	char *end;

	errno = 0;
	*v = strtod(text, &end);
	if (errno || end == text || *end || !(*v >= min) || !isfinite(*v))
		return cli_usage_error(cli, "%s: '%s' is not a number of at least %g", what, text,
				       min);
	return 0;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	/* Ctrl-C ends the sleep (EINTR): the loop looks at the flag. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

struct totals {
	uint64_t rows, events, passes, late_max;
	double seconds;
};

/* One pass over the chosen time range. 0, CLI_EXIT_INTERRUPTED or an error. */
static int one_pass(struct cli *cli, struct replay *rp, const struct replay_opts *o,
		    struct totals *tot)
{
	uint64_t t0 = UINT64_MAX;
	int ret = replay_select_time(cli, rp, o->from, o->to);

	for (size_t i = 0; !ret && i < rp->nstreams; i++) {
		struct rstream *s = &rp->streams[i];
		s->cur = s->first;
		s->block_len = 0;
		if (s->cur < s->end && !(ret = replay_load(cli, rp, s, s->cur)) && s->times[0] < t0)
			t0 = s->times[0];
	}
	uint64_t start = rfm_event_now_ns();
	while (!ret) {
		struct rstream *next = NULL;
		uint64_t t = UINT64_MAX;

		for (size_t i = 0; i < rp->nstreams; i++) {
			struct rstream *s = &rp->streams[i];
			if (s->cur < s->end && s->times[s->cur - s->block_at] < t) {
				t = s->times[s->cur - s->block_at];
				next = s;
			}
		}
		if (!next)
			break;
		uint64_t target = start + (uint64_t)llround((double)(t - t0) / o->speed);
		while (rfm_event_now_ns() < target && !cli_interrupted())
			sleep_until(target);
		if (cli_interrupted())
			return CLI_EXIT_INTERRUPTED;
		uint64_t now = rfm_event_now_ns();
		if (now - target > tot->late_max)
			tot->late_max = now - target;
		ret = replay_apply(cli, rp, next, next->cur, o->force, &tot->events);
		tot->rows++;
		next->cur++;
		if (!ret && next->cur < next->end && next->cur >= next->block_at + next->block_len)
			ret = replay_load(cli, rp, next, next->cur);
	}
	tot->passes++;
	tot->seconds += (rfm_event_now_ns() - start) / 1e9;
	return ret;
}

static void report(struct cli *cli, const char *path, const struct totals *t, bool interrupted)
{
	if (cli->json) {
		struct json_object *o = json_object_new_object();
		cli_json_add_string(o, "file", path);
		cli_json_add_u64(o, "rows", t->rows);
		cli_json_add_u64(o, "events_sent", t->events);
		cli_json_add_u64(o, "passes", t->passes);
		json_object_object_add(o, "seconds", json_object_new_double(t->seconds));
		cli_json_add_u64(o, "late_max_ns", t->late_max);
		cli_json_add_bool(o, "interrupted", interrupted);
		cli_json_print(o);
		return;
	}
	printf("%s: replayed %llu rows, %llu events sent, in %.3f s (%llu pass%s); latest "
	       "row %.3f ms behind its time%s\n", path, (unsigned long long)t->rows,
	       (unsigned long long)t->events, t->seconds, (unsigned long long)t->passes,
	       t->passes == 1 ? "" : "es", t->late_max / 1e6, interrupted ? " (interrupted)" : "");
}

int cli_run_replay(struct cli *cli, int argc, char **argv)
{
	struct replay_opts o = { .speed = 1, .from = -INFINITY, .to = -1 };
	struct totals tot = { 0 };
	struct replay rp = { .file = H5I_INVALID_HID };
	rfm_layout *layout = NULL;
	int opt, ret;
	bool have_to = false;

	while ((opt = cli_getopt(cli, argc, argv, "", replay_options)) > 0) {
		ret = 0;
		switch (opt) {
		case CLI_OPT_LAYOUT: o.layout_path = optarg; break;
		case OPT_SPEED:
			ret = parse_number(cli, "--speed", optarg, 1e-6, &o.speed);
			break;
		case OPT_LOOP: o.loop = true; break;
		case OPT_FROM: ret = parse_number(cli, "--from", optarg, -1e12, &o.from); break;
		case OPT_TO:
			ret = parse_number(cli, "--to", optarg, -1e12, &o.to);
			have_to = true;
			break;
		case OPT_FORCE: o.force = true; break;
		}
		if (ret)
			return ret;
	}
	ret = cli_options_end(cli, opt, argc, argv, 1, 100000);
	if (ret)
		return ret;
	if (!have_to)
		o.to = -1;
	else if (o.to < 0 || o.to < o.from)
		return cli_usage_error(cli, "--to must be at least 0 and --from");
	if (have_to && o.to < 0)
		o.to = 0;
	ret = replay_open(cli, &rp, argv[optind]);
	/* The network's layout: the one named, else the one recorded. */
	if (!ret && (o.layout_path || getenv("RFM_LAYOUT")))
		ret = cli_load_layout(cli, o.layout_path, &layout);
	else if (!ret && rp.layout_text &&
		 rfm_layout_load_string(rp.layout_text, strlen(rp.layout_text), argv[optind],
					&layout, NULL))
		ret = cli_fail(cli);
	if (!ret)
		ret = cli_open(cli);
	if (!ret)
		ret = replay_prepare(cli, &rp, layout, argv + optind + 1, argc - optind - 1, o.force);
	if (!ret) {
		cli_catch_interrupt();
		do
			ret = one_pass(cli, &rp, &o, &tot);
		while (!ret && o.loop);
		if (!ret || ret == CLI_EXIT_INTERRUPTED)
			report(cli, argv[optind], &tot, ret == CLI_EXIT_INTERRUPTED);
	}
	replay_release(&rp);
	replay_close(&rp);
	rfm_layout_free(layout);
	return ret;
}
