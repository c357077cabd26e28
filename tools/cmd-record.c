/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm record NAMES... -o FILE: a recording of variables, records, regions,
 * byte ranges, rings and events (the library's recorder, recorder.h) into
 * HDF5 or CSV, at a rate, on change or on an event, optionally from a
 * trigger on with the time before it. A progress line on a terminal;
 * Ctrl-C, the duration or a full disk end it cleanly.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	OPT_OUTPUT = 'o',
	OPT_RATE = 0x2100,
	OPT_ON_CHANGE,
	OPT_ON_EVENT,
	OPT_DURATION,
	OPT_TRIGGER,
	OPT_PRE,
	OPT_EVENTS,
	OPT_RING,
	OPT_BYTES,
	OPT_FORMAT,
	OPT_FORCE,
	OPT_POLL,
	OPT_QUEUE,
	OPT_FLUSH,
	OPT_SPIN,
	OPT_NO_CONVERT,
	OPT_QUIET,
};

static const struct option record_options[] = {
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "on-change", no_argument, NULL, OPT_ON_CHANGE },
	{ "on-event", required_argument, NULL, OPT_ON_EVENT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "pre", required_argument, NULL, OPT_PRE },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "bytes", required_argument, NULL, OPT_BYTES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "poll", required_argument, NULL, OPT_POLL },
	{ "queue", required_argument, NULL, OPT_QUEUE },
	{ "flush", required_argument, NULL, OPT_FLUSH },
	{ "spin", no_argument, NULL, OPT_SPIN },
	{ "no-convert", no_argument, NULL, OPT_NO_CONVERT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ NULL, 0, NULL, 0 },
};

#define MAX_EXTRA 64

struct record_args {
	const char *output, *layout_path, *trigger;
	struct rfm_recorder_config cfg;
	double rate_hz;
	uint64_t pre_ns;
	uint32_t event_mask;
	const char *rings[MAX_EXTRA], *bytes[MAX_EXTRA];
	int nrings, nbytes;
	bool quiet, rate_given, on_change;
};

/* Seconds (a decimal number, >= 0) into nanoseconds. */
static int parse_seconds(struct cli *cli, const char *what, const char *text, uint64_t *ns)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(text, &end);
	if (errno || end == text || *end || !(s >= 0) || s > 1e9)
		return cli_usage_error(cli, "%s: '%s' is not a number of seconds", what, text);
	*ns = (uint64_t)llround(s * 1e9);
	return 0;
}

static int parse_rate(struct cli *cli, const char *text, double *hz)
{
	char *end;

	errno = 0;
	*hz = strtod(text, &end);
	if (errno || end == text || *end || !(*hz > 0) || *hz > 1e7)
		return cli_usage_error(cli, "--rate: '%s' is not a rate in Hz (0 < HZ <= 1e7)",
				       text);
	return 0;
}

static int parse_option(struct cli *cli, int opt, struct record_args *a)
{
	uint64_t v;
	int ret = 0;

	switch (opt) {
	case OPT_OUTPUT: a->output = optarg; break;
	case CLI_OPT_LAYOUT: a->layout_path = optarg; break;
	case OPT_RATE:
		ret = parse_rate(cli, optarg, &a->rate_hz);
		a->rate_given = true;
		break;
	case OPT_ON_CHANGE: a->on_change = true; break;
	case OPT_ON_EVENT: {
		int type = rfm_event_type_parse(optarg);
		if (type < 0 || type > RFM_EVENT_INTR4)
			return cli_usage_error(cli, "--on-event: '%s' is not an event type that can "
					       "be sent (reset, intr1..intr4)", optarg);
		a->cfg.mode = RFM_REC_ON_EVENT;
		a->cfg.event_type = (uint32_t)type;
		break;
	}
	case OPT_DURATION: ret = parse_seconds(cli, "--duration", optarg, &a->cfg.duration_ns); break;
	case OPT_TRIGGER: a->trigger = optarg; break;
	case OPT_PRE: ret = parse_seconds(cli, "--pre", optarg, &a->pre_ns); break;
	case OPT_EVENTS: {
		uint32_t mask;
		ret = cli_parse_event_types(cli, optarg, &mask);
		if (!ret && (mask & ~RFM_EVENT_MASK_NETWORK))
			return cli_usage_error(cli, "--events: only network types are recorded "
					       "(reset, intr1..intr4)");
		a->event_mask |= mask;
		break;
	}
	case OPT_RING:
	case OPT_BYTES: {
		const char **list = opt == OPT_RING ? a->rings : a->bytes;
		int *n = opt == OPT_RING ? &a->nrings : &a->nbytes;
		if (*n == MAX_EXTRA)
			return cli_usage_error(cli, "at most %d --ring and --bytes each", MAX_EXTRA);
		list[(*n)++] = optarg;
		break;
	}
	case OPT_FORMAT:
		if (!strcmp(optarg, "hdf5"))
			a->cfg.format = RFM_REC_FORMAT_HDF5;
		else if (!strcmp(optarg, "csv"))
			a->cfg.format = RFM_REC_FORMAT_CSV;
		else
			return cli_usage_error(cli, "--format: '%s' is neither hdf5 nor csv", optarg);
		break;
	case OPT_FORCE: a->cfg.flags |= RFM_REC_F_OVERWRITE; break;
	case OPT_POLL:
		ret = cli_parse_u64(cli, "--poll", optarg, 1000000, &v);
		a->cfg.poll_ns = v * 1000;
		if (!ret && !v)
			ret = cli_usage_error(cli, "--poll: at least 1 microsecond");
		break;
	case OPT_QUEUE: ret = cli_parse_bytes(cli, "--queue", optarg, UINT64_C(1) << 40,
					      &a->cfg.queue_bytes); break;
	case OPT_FLUSH:
		ret = parse_seconds(cli, "--flush", optarg, &a->cfg.flush_ns);
		if (!ret && a->cfg.flush_ns < 1000000)
			ret = cli_usage_error(cli, "--flush: at least 0.001 seconds");
		break;
	case OPT_SPIN: a->cfg.flags |= RFM_REC_F_SPIN; break;
	case OPT_NO_CONVERT: a->cfg.flags |= RFM_REC_F_NO_CONVERT; break;
	case OPT_QUIET: a->quiet = true; break;
	}
	return ret;
}

/* "NAME=OFFSET" (a ring) or "NAME=OFFSET:LENGTH" (bytes); a ring may also be a region name. */
static int add_extra(struct cli *cli, rfm_recorder *rec, rfm_layout *layout, const char *spec,
		     bool ring)
{
	char name[128];
	const char *eq = strchr(spec, '='), *at = eq ? eq + 1 : NULL;
	uint64_t offset, length = 0;
	int ret;

	if (!eq && ring && layout) {
		/* A region of the layout that holds a ring. */
		for (size_t i = 0; i < rfm_layout_region_count(layout); i++) {
			struct rfm_region_info info = { .struct_size = sizeof(info) };
			if (!rfm_layout_region_info(layout, i, &info) && !strcmp(info.name, spec))
				return rfm_recorder_add_ring(rec, spec, info.offset) ? cli_fail(cli)
										       : 0;
		}
		return cli_usage_error(cli, "--ring: the layout has no region '%s' (or give "
				       "NAME=OFFSET)", spec);
	}
	if (!eq || (size_t)(eq - spec) >= sizeof(name))
		return cli_usage_error(cli, ring ? "--ring: '%s' is neither REGION nor NAME=OFFSET"
					     : "--bytes: '%s' is not NAME=OFFSET:LENGTH", spec);
	memcpy(name, spec, (size_t)(eq - spec));
	name[eq - spec] = '\0';
	if (ring) {
		ret = cli_parse_bytes(cli, "--ring OFFSET", at, UINT64_MAX, &offset);
		if (!ret && rfm_recorder_add_ring(rec, name, offset))
			ret = cli_fail(cli);
		return ret;
	}
	const char *colon = strchr(at, ':');
	char off_text[64];
	if (!colon || (size_t)(colon - at) >= sizeof(off_text))
		return cli_usage_error(cli, "--bytes: '%s' is not NAME=OFFSET:LENGTH", spec);
	memcpy(off_text, at, (size_t)(colon - at));
	off_text[colon - at] = '\0';
	ret = cli_parse_bytes(cli, "--bytes OFFSET", off_text, UINT64_MAX, &offset);
	if (!ret)
		ret = cli_parse_bytes(cli, "--bytes LENGTH", colon + 1, UINT64_MAX, &length);
	if (!ret && rfm_recorder_add_bytes(rec, name, offset, length))
		ret = cli_fail(cli);
	return ret;
}

/* --trigger TYPE or --trigger 'NAME OP VALUE' (OP: > >= < <= == !=). */
static int set_trigger(struct cli *cli, rfm_recorder *rec, const char *text, uint64_t pre_ns)
{
	static const struct { const char *op; int cmp; } ops[] = {
		{ ">=", RFM_REC_GE }, { "<=", RFM_REC_LE }, { "==", RFM_REC_EQ },
		{ "!=", RFM_REC_NE }, { ">", RFM_REC_GT }, { "<", RFM_REC_LT },
	};
	int type = rfm_event_type_parse(text);

	if (type >= 0) {
		if (rfm_recorder_set_trigger_event(rec, (unsigned int)type, pre_ns))
			return cli_fail(cli);
		return 0;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const char *at = strstr(text, ops[i].op);
		char name[256], *end;
		if (!at)
			continue;
		size_t n = (size_t)(at - text);
		while (n && text[n - 1] == ' ')
			n--;
		const char *start = text;
		while (*start == ' ' && n) {
			start++;
			n--;
		}
		if (!n || n >= sizeof(name))
			break;
		memcpy(name, start, n);
		name[n] = '\0';
		errno = 0;
		double value = strtod(at + strlen(ops[i].op), &end);
		while (*end == ' ')
			end++;
		if (errno || *end || end == at + strlen(ops[i].op))
			break;
		if (rfm_recorder_set_trigger_var(rec, name, ops[i].cmp, value, pre_ns))
			return cli_fail(cli);
		return 0;
	}
	return cli_usage_error(cli, "--trigger: '%s' is neither an event type (intr1..) nor "
			       "'NAME OP VALUE' (OP: > >= < <= == !=)", text);
}

static void human_bytes(uint64_t n, char *buf, size_t len)
{
	if (n >= (1u << 30))
		snprintf(buf, len, "%.2f GB", n / 1e9);
	else if (n >= (1u << 20))
		snprintf(buf, len, "%.1f MB", n / 1e6);
	else
		snprintf(buf, len, "%.1f kB", n / 1e3);
}

static uint64_t lost_of(const struct rfm_recorder_stats *st)
{
	return st->queue_drops + st->late_ticks + st->missed_updates + st->ring_lost +
	       st->event_overflow + st->torn_reads;
}

static void progress(const char *path, const struct rfm_recorder_stats *st, uint64_t now)
{
	static const char *const states[] = { "new", "waiting for the trigger", "recording",
					      "ended" };
	char size[32];
	double secs = st->start_ns ? (now - st->start_ns) / 1e9 : 0;

	human_bytes(st->file_bytes, size, sizeof(size));
	fprintf(stderr, "rfm record: %s: %s, %.0f s, %llu samples (%.0f/s), %llu lost, %s",
		path, states[st->state & 3], secs, (unsigned long long)st->samples,
		secs > 0 ? st->samples / secs : 0.0, (unsigned long long)lost_of(st), size);
}

static void summary(struct cli *cli, const char *path, const struct rfm_recorder_stats *st,
		    uint64_t end_ns, int error)
{
	double secs = st->start_ns ? (end_ns - st->start_ns) / 1e9 : 0;

	if (cli->json) {
		struct json_object *o = json_object_new_object();
		cli_json_add_string(o, "file", path);
		json_object_object_add(o, "seconds", json_object_new_double(secs));
		cli_json_add_u64(o, "samples", st->samples);
		cli_json_add_u64(o, "rows_written", st->rows_written);
		cli_json_add_u64(o, "queue_drops", st->queue_drops);
		cli_json_add_u64(o, "late_ticks", st->late_ticks);
		cli_json_add_u64(o, "missed_updates", st->missed_updates);
		cli_json_add_u64(o, "ring_lost", st->ring_lost);
		cli_json_add_u64(o, "event_overflow", st->event_overflow);
		cli_json_add_u64(o, "torn_reads", st->torn_reads);
		cli_json_add_u64(o, "pre_lost", st->pre_lost);
		cli_json_add_u64(o, "lag_max_ns", st->lag_max_ns);
		cli_json_add_u64(o, "file_bytes", st->file_bytes);
		cli_json_add_bool(o, "triggered", st->trigger_ns != 0);
		cli_json_add_string(o, "error", error ? rfm_strerror(error) : "");
		cli_json_print(o);
		return;
	}
	char size[32];
	human_bytes(st->file_bytes, size, sizeof(size));
	printf("%s: %llu rows in %.1f s, %s; lost: %llu", path,
	       (unsigned long long)st->rows_written, secs, size,
	       (unsigned long long)lost_of(st));
	if (lost_of(st))
		printf(" (queue full %llu, late ticks %llu, missed updates %llu, ring %llu, "
		       "events %llu, torn %llu)", (unsigned long long)st->queue_drops,
		       (unsigned long long)st->late_ticks, (unsigned long long)st->missed_updates,
		       (unsigned long long)st->ring_lost, (unsigned long long)st->event_overflow,
		       (unsigned long long)st->torn_reads);
	putchar('\n');
}

/* Build the recorder from the arguments: names, extras, trigger. */
static int configure(struct cli *cli, struct record_args *a, rfm_layout *layout, int argc,
		     char **argv, rfm_recorder **recp)
{
	rfm_recorder *rec;
	int ret = 0;

	if (rfm_recorder_new(cli->node, layout, a->output, &a->cfg, &rec))
		return cli_fail(cli);
	for (int i = optind; !ret && i < argc; i++)
		if (rfm_recorder_add(rec, argv[i]))
			ret = cli_fail(cli);
	for (int i = 0; !ret && i < a->nrings; i++)
		ret = add_extra(cli, rec, layout, a->rings[i], true);
	for (int i = 0; !ret && i < a->nbytes; i++)
		ret = add_extra(cli, rec, layout, a->bytes[i], false);
	if (!ret && a->event_mask && rfm_recorder_add_events(rec, a->event_mask))
		ret = cli_fail(cli);
	if (!ret && a->trigger)
		ret = set_trigger(cli, rec, a->trigger, a->pre_ns);
	if (ret) {
		rfm_recorder_free(rec);
		return ret;
	}
	*recp = rec;
	return 0;
}

int cli_run_record(struct cli *cli, int argc, char **argv)
{
	struct record_args a = { .cfg = { .struct_size = sizeof(a.cfg) }, .rate_hz = 1000 };
	struct rfm_recorder_stats st = { .struct_size = sizeof(st) };
	struct cli_progress pr;
	rfm_layout *layout = NULL;
	rfm_recorder *rec = NULL;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "o:", record_options)) > 0)
		if ((ret = parse_option(cli, opt, &a)))
			return ret;
	ret = cli_options_end(cli, opt, argc, argv, 0, 100000);
	if (ret)
		return ret;
	if (!a.output)
		return cli_usage_error(cli, "give the file to write with -o FILE");
	if (a.pre_ns && !a.trigger)
		return cli_usage_error(cli, "--pre keeps the time before a --trigger: give one");
	if (optind == argc && !a.nrings && !a.nbytes && !a.event_mask)
		return cli_usage_error(cli, "nothing to record: name variables, records or "
				       "regions, or give --ring, --bytes or --events");
	/* --rate with --on-change: frames at the rate, every record's publishes besides. */
	if (a.on_change && a.cfg.mode == RFM_REC_ON_EVENT)
		a.cfg.flags |= RFM_REC_F_RECORDS_ON_CHANGE;
	else if (a.on_change && a.rate_given)
		a.cfg.flags |= RFM_REC_F_RECORDS_ON_CHANGE;
	else if (a.on_change)
		a.cfg.mode = RFM_REC_ON_CHANGE;
	a.cfg.period_ns = (uint64_t)llround(1e9 / a.rate_hz);
	if (!a.cfg.period_ns)
		a.cfg.period_ns = 1;
	/* Names and a trigger on a variable need the layout; rings, bytes and events do not. */
	if (optind < argc || (a.trigger && rfm_event_type_parse(a.trigger) < 0) ||
	    getenv("RFM_LAYOUT") || a.layout_path)
		ret = cli_load_layout(cli, a.layout_path, &layout);
	/*
	 * Recording looks: an observer, which holds no node id a real node may
	 * need. Events are addressed to ids, so recording them needs one: the
	 * URI's, else one of the tool range (as when the URI names an id).
	 */
	if (!ret)
		ret = cli_open_as(cli, a.event_mask || cli_uri_names_node(cli) ? CLI_ATTACH_TOOL
									 : CLI_ATTACH_OBSERVER,
				  true);
	if (!ret)
		ret = configure(cli, &a, layout, argc, argv, &rec);
	if (ret)
		goto out;
	cli_catch_interrupt();
	if (rfm_recorder_start(rec)) {
		ret = cli_fail(cli);
		goto out;
	}
	cli_progress_start(&pr);
	if (a.quiet)
		pr.tty = false;
	while (rfm_recorder_wait(rec, 100000000) == RFM_ETIMEDOUT && !cli_interrupted()) {
		if (cli_progress_due(&pr)) {
			rfm_recorder_get_stats(rec, &st);
			progress(a.output, &st, rfm_event_now_ns());
		}
	}
	cli_progress_end(&pr);
	int stopped = rfm_recorder_stop(rec);
	uint64_t end = rfm_event_now_ns();
	rfm_recorder_get_stats(rec, &st);
	if (stopped)
		cli_fail(cli);
	summary(cli, a.output, &st, end, stopped);
	ret = stopped ? CLI_EXIT_FAILED : CLI_EXIT_OK;
out:
	rfm_recorder_free(rec);
	rfm_layout_free(layout);
	return ret;
}

const char cli_help_record[] =
	"Record variables, records and regions NAME of the layout, and rings,\n"
	"byte ranges and events, into FILE: HDF5 (docs/recording.md; h5py,\n"
	"pandas and MATLAB read it, and may watch it grow) or, for one stream, CSV.\n"
	"Every row carries the reader's monotonic and real-time stamps, records\n"
	"their sequence, rings their message number, events their sender; what\n"
	"could not be recorded is counted, never silent. Ctrl-C, --duration or a\n"
	"full disk end the recording cleanly; a kill leaves the file readable up\n"
	"to its last flush.\n"
	"\n"
	"When (one of):\n"
	"      --rate HZ       a frame of every NAME at HZ (default 1000)\n"
	"      --on-change     every publish of each record (a miss is counted from\n"
	"                      its sequence); other NAMEs when their bytes change\n"
	"                      (with --rate or --on-event: records on change, the\n"
	"                      other NAMEs in frames at the rate or on the event)\n"
	"      --on-event TYPE a frame each time event TYPE (intr1..) arrives\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the file to write (.csv: CSV, else HDF5)\n"
	"      --layout FILE   the layout naming the variables (default $RFM_LAYOUT)\n"
	"      --duration S    stop after S seconds (from the trigger, with one)\n"
	"      --trigger T     write nothing until event T (intr3) or the condition\n"
	"                      'NAME OP VALUE' (OP: > >= < <= == !=) holds\n"
	"      --pre S         with --trigger: keep the S seconds before it\n"
	"      --events TYPES  record these events (intr1,intr2...) as they arrive\n"
	"      --ring SPEC     record a ring's messages: REGION, or NAME=OFFSET\n"
	"      --bytes SPEC    record raw bytes: NAME=OFFSET:LENGTH\n"
	"      --format F      hdf5 or csv (default: by the file name)\n"
	"      --force         replace FILE if it exists\n"
	"      --poll US       how often records, rings and events are looked at\n"
	"                      (default 50 microseconds)\n"
	"      --queue SIZE    the sampler's queue (default 64M)\n"
	"      --flush S       seconds between flushes: what a crash loses (default 1)\n"
	"      --spin          spin between samples instead of sleeping (a core)\n"
	"      --no-convert    leave the finished file in the HDF5 1.10 format\n"
	"      --quiet         no progress line on a terminal\n"
	"\n"
	"Output: one summary line (rows, seconds, size, losses); JSON keys file,\n"
	"seconds, samples, rows_written, queue_drops, late_ticks, missed_updates,\n"
	"ring_lost, event_overflow, torn_reads, pre_lost, lag_max_ns, file_bytes,\n"
	"triggered, error. Exit status 1 when the recording ended early.\n";
