/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm get NAME..., rfm set NAME VALUE, rfm watch NAME...: variables of a
 * layout (--layout FILE or $RFM_LAYOUT) by name, typed and converted by
 * the library.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "os/tool-os.h"

enum { OPT_FORCE = 'f', OPT_INTERVAL = 'i', OPT_COUNT = 'c', OPT_TIME = 0x2000 };

static const struct option get_options[] = {
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ NULL, 0, NULL, 0 },
};

static const struct option set_options[] = {
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 },
};

static const struct option watch_options[] = {
	{ "layout", required_argument, NULL, CLI_OPT_LAYOUT },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "time", required_argument, NULL, OPT_TIME },
	{ NULL, 0, NULL, 0 },
};

static const char *unit_of(rfm_var *var)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };

	return rfm_var_get_info(var, &info) ? "" : info.unit;
}

/* Text of a value; a static buffer grown as needed. */
static const char *value_text(struct cli *cli, rfm_var *var)
{
	static char *buf;
	static size_t len;
	int n;

	for (;;) {
		n = rfm_var_get_text(var, buf, len);
		if (n != RFM_ERANGE || len > (64u << 20))
			break;
		len = len ? 2 * len : 256;
		char *p = realloc(buf, len);
		if (!p)
			return NULL;
		buf = p;
	}
	if (n < 0) {
		cli_fail(cli);
		return NULL;
	}
	return buf;
}

static void json_var(struct json_object *obj, rfm_var *var)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };

	rfm_var_get_info(var, &info);
	cli_json_add_string(obj, "name", rfm_var_name(var));
	cli_json_add_string(obj, "type", rfm_type_name(info.type));
	if (info.unit[0])
		cli_json_add_string(obj, "unit", info.unit);
}

/* The JSON keys of a value's freshness: state, and why when stale. */
static void json_freshness(struct json_object *obj, const struct cli_freshness *f)
{
	cli_json_add_string(obj, "state", !f->known ? "unknown" : f->stale ? "stale" : "fresh");
	if (f->stale)
		cli_json_add_string(obj, "stale_reason", f->reason);
}

/*
 * Print one variable: the bare value, or NAME = VALUE UNIT when @labelled;
 * a stale value is marked (after a bare value, on stderr: stdout keeps
 * only the value for scripts) and sets *@stale.
 */
static int get_one(struct cli *cli, rfm_layout *layout, const char *name, bool labelled,
		   bool *stale)
{
	struct cli_freshness fresh;
	rfm_var *var;
	int ret = 0;

	if (cli_var_open(cli, layout, name, &var))
		return CLI_EXIT_FAILED;
	cli_var_freshness(cli, var, &fresh);
	*stale |= fresh.stale;
	if (cli->json) {
		struct json_object *obj = json_object_new_object(), *value;
		json_var(obj, var);
		ret = cli_var_json(cli, var, &value);
		if (!ret) {
			json_object_object_add(obj, "value", value);
			json_freshness(obj, &fresh);
			cli_json_print(obj);
		} else {
			json_object_put(obj);
		}
	} else {
		const char *text = value_text(cli, var);
		const char *unit = unit_of(var);
		if (!text) {
			ret = CLI_EXIT_FAILED;
		} else if (!labelled) {
			printf("%s\n", text);
			if (fresh.stale)
				fprintf(stderr, "rfm: get: %s is stale: its writer, node %u, %s\n",
					name, fresh.writer, fresh.why);
		} else {
			printf("%s = %s%s%s%s%s%s\n", name, text, unit[0] ? " " : "", unit,
			       fresh.stale ? "  [stale: " : "", fresh.stale ? fresh.reason : "",
			       fresh.stale ? "]" : "");
		}
	}
	rfm_var_close(var);
	return ret;
}

/* How many variables lie in region or record @name ("NAME." starts their names). */
static size_t member_count(const rfm_layout *layout, const char *name)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	size_t len = strlen(name), n = 0;

	for (size_t i = 0; i < rfm_layout_var_count(layout); i++)
		if (!rfm_layout_var_info(layout, i, &info) && !strncmp(info.name, name, len) &&
		    info.name[len] == '.')
			n++;
	return n;
}

int cli_run_get(struct cli *cli, int argc, char **argv)
{
	const char *layout_path = NULL;
	rfm_layout *layout = NULL;
	bool stale = false;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "", get_options)) > 0)
		if (opt == CLI_OPT_LAYOUT)
			layout_path = optarg;
	ret = cli_options_end(cli, opt, argc, argv, 1, 1000);
	if (!ret)
		ret = cli_load_layout(cli, layout_path, &layout);
	if (!ret)
		ret = cli_open(cli);
	for (int i = optind; !ret && i < argc; i++) {
		struct rfm_var_info info = { .struct_size = sizeof(info) };
		bool single = false;

		/* A region or record name stands for its variables, as in watch. */
		for (size_t k = 0; !single && k < rfm_layout_var_count(layout); k++)
			single = !rfm_layout_var_info(layout, k, &info) &&
				 !strcmp(info.name, argv[i]);
		if (single || !member_count(layout, argv[i])) {
			ret = get_one(cli, layout, argv[i], argc - optind > 1, &stale);
			continue;
		}
		size_t len = strlen(argv[i]);
		for (size_t k = 0; !ret && k < rfm_layout_var_count(layout); k++)
			if (!rfm_layout_var_info(layout, k, &info) &&
			    !strncmp(info.name, argv[i], len) && info.name[len] == '.')
				ret = get_one(cli, layout, info.name, true, &stale);
	}
	rfm_layout_free(layout);
	return !ret && stale ? CLI_EXIT_STALE : ret;
}

int cli_run_set(struct cli *cli, int argc, char **argv)
{
	const char *layout_path = NULL;
	rfm_layout *layout = NULL;
	rfm_var *var = NULL;
	bool force = false;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "", set_options)) > 0) {
		if (opt == CLI_OPT_LAYOUT)
			layout_path = optarg;
		else if (opt == OPT_FORCE)
			force = true;
	}
	ret = cli_options_end(cli, opt, argc, argv, 2, 2);
	if (!ret)
		ret = cli_load_layout(cli, layout_path, &layout);
	if (!ret)
		ret = cli_open(cli);
	if (!ret)
		ret = cli_var_open(cli, layout, argv[optind], &var);
	if (!ret && force)
		rfm_var_set_owner_check(var, false);
	if (!ret && rfm_var_set_text(var, argv[optind + 1]))
		ret = cli_fail(cli);
	if (!ret && cli->json) {
		struct json_object *obj = json_object_new_object(), *value;
		json_var(obj, var);
		ret = cli_var_json(cli, var, &value);
		if (!ret) {
			json_object_object_add(obj, "value", value);
			cli_json_print(obj);
		} else {
			json_object_put(obj);
		}
	}
	rfm_var_close(var);
	rfm_layout_free(layout);
	return ret;
}

/* ---- watch ---- */

struct watched {
	rfm_var *var;
	char *last;	/* text at the previous refresh */
};

/* Open NAME, or every variable of a region or record NAME; append to *list. */
static int add_watched(struct cli *cli, rfm_layout *layout, const char *name,
		       struct watched **list, size_t *n)
{
	size_t len = strlen(name), matched = 0;

	for (size_t i = 0; i <= rfm_layout_var_count(layout); i++) {
		struct rfm_var_info info = { .struct_size = sizeof(info) };
		const char *full = name;
		if (i < rfm_layout_var_count(layout)) {
			rfm_layout_var_info(layout, i, &info);
			if (strncmp(info.name, name, len) || info.name[len] != '.')
				continue;
			full = info.name;	/* a member of region/record NAME */
		} else if (matched) {
			break;
		}
		struct watched *p = realloc(*list, (*n + 1) * sizeof(**list));
		if (!p)
			return cli_error(cli, "out of memory");
		*list = p;
		p[*n].last = NULL;
		if (cli_var_open(cli, layout, full, &p[*n].var))
			return CLI_EXIT_FAILED;
		(*n)++;
		matched++;
	}
	return 0;
}

/* What rfm watch shows, and how. */
struct watch {
	struct watched *list;
	size_t n;
	uint64_t interval_ms;
	enum cli_clock clock;
	bool clock_given; /* --time: non-tty text output prints the time too */
	bool tty;	  /* redraw in place */
};

/* The heading of one refresh, before the variables (text output). */
static void watch_heading(struct cli *cli, const struct watch *w, uint64_t refresh,
			  const char *when)
{
	if (w->tty) {
		printf("\033[H\033[2J");	/* redraw in place */
		printf("rfm watch: %s every %llu ms, * = changed (Ctrl-C stops)\n%s\n\n",
		       cli_effective_uri(cli), (unsigned long long)w->interval_ms, when);
	} else {
		if (refresh > 1)
			putchar('\n');
		if (w->clock_given)
			printf("# %s\n", when);
	}
}

/* The variable's value as --json shows it, and that text; NULL with *ret set. */
static const char *json_now(struct cli *cli, rfm_var *var, struct json_object **value, int *ret)
{
	*ret = cli_var_json(cli, var, value);
	return *ret ? NULL : json_object_to_json_string_ext(*value, JSON_C_TO_STRING_PLAIN);
}

/* One refresh: every variable, marked where it changed since the last one. */
static int watch_refresh(struct cli *cli, struct watch *w, uint64_t refresh)
{
	struct json_object *obj = NULL, *values = NULL, *changed = NULL, *states = NULL;
	uint64_t now = rfm_event_now_ns();
	char when[64];
	int ret = 0;

	cli_format_time(w->clock, now, when, sizeof(when));
	if (cli->json) {
		obj = json_object_new_object();
		values = json_object_new_object();
		changed = json_object_new_array();
		states = json_object_new_object();
		cli_json_add_u64(obj, "refresh", refresh);
		cli_json_add_time(obj, "time", w->clock, now);
	} else {
		watch_heading(cli, w, refresh, when);
	}
	for (size_t i = 0; i < w->n && !ret; i++) {
		struct watched *v = &w->list[i];
		struct json_object *value = NULL;
		/*
		 * One read gives both what is shown and what is compared with
		 * the last refresh: two reads could straddle a write and show
		 * the new value unmarked (seen under wine's slower reads).
		 */
		const char *shown = cli->json ? json_now(cli, v->var, &value, &ret)
					      : value_text(cli, v->var);
		if (!shown) {
			ret = ret ? ret : CLI_EXIT_FAILED;
			break;
		}
		bool is_new = v->last && strcmp(v->last, shown);
		const char *name = rfm_var_name(v->var);
		struct cli_freshness fresh;
		cli_var_freshness(cli, v->var, &fresh);
		if (cli->json) {
			json_object_object_add(values, name, value);
			if (is_new)
				json_object_array_add(changed, json_object_new_string(name));
			json_object_object_add(states, name,
					       json_object_new_string(!fresh.known ? "unknown"
								      : fresh.stale ? "stale"
										    : "fresh"));
		} else {
			const char *unit = unit_of(v->var);
			printf("%c %s = %s%s%s%s%s%s\n", is_new ? '*' : ' ', name, shown,
			       unit[0] ? " " : "", unit, fresh.stale ? "  [stale: " : "",
			       fresh.stale ? fresh.reason : "", fresh.stale ? "]" : "");
		}
		free(v->last);
		v->last = strdup(shown);
	}
	if (cli->json) {
		json_object_object_add(obj, "values", values);
		json_object_object_add(obj, "changed", changed);
		json_object_object_add(obj, "state", states);
		if (!ret)
			cli_json_print(obj);
		else
			json_object_put(obj);
	}
	fflush(stdout);
	return ret;
}

int cli_run_watch(struct cli *cli, int argc, char **argv)
{
	const char *layout_path = NULL;
	rfm_layout *layout = NULL;
	struct watch w = { .interval_ms = 200, .clock = CLI_CLOCK_REALTIME };
	uint64_t count = 0;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "", watch_options)) > 0) {
		if (opt == CLI_OPT_LAYOUT)
			layout_path = optarg;
		else if (opt == OPT_INTERVAL &&
			 (ret = cli_parse_u64(cli, "--interval", optarg, 3600000, &w.interval_ms)))
			return ret;
		else if (opt == OPT_COUNT &&
			 (ret = cli_parse_u64(cli, "--count", optarg, UINT64_MAX, &count)))
			return ret;
		else if (opt == OPT_TIME) {
			ret = cli_parse_clock(cli, optarg, &w.clock);
			if (ret)
				return ret;
			w.clock_given = true;
		}
	}
	ret = cli_options_end(cli, opt, argc, argv, 1, 1000);
	if (!ret)
		ret = cli_load_layout(cli, layout_path, &layout);
	if (!ret)
		ret = cli_open(cli);
	for (int i = optind; !ret && i < argc; i++)
		ret = add_watched(cli, layout, argv[i], &w.list, &w.n);

	w.tty = tool_os_is_terminal(stdout);
	/* Until Ctrl-C (or SIGTERM): then it stops between two refreshes. */
	cli_catch_interrupt();
	for (uint64_t refresh = 1; !ret && (count == 0 || refresh <= count) && !cli_interrupted();
	     refresh++) {
		ret = watch_refresh(cli, &w, refresh);
		if (!ret && (count == 0 || refresh < count)) {
			struct timespec ts = { (time_t)(w.interval_ms / 1000),
					       (long)(w.interval_ms % 1000) * 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	for (size_t i = 0; i < w.n; i++) {
		rfm_var_close(w.list[i].var);
		free(w.list[i].last);
	}
	free(w.list);
	rfm_layout_free(layout);
	return ret;
}

#define LAYOUT_OPTION_HELP                                                              \
	"      --layout FILE   the layout naming the variables (default $RFM_LAYOUT)\n"

const char cli_help_get[] =
	"Print the value of each variable NAME (region.var, region.record.var,\n"
	"region.var[3]) of the layout, converted from its type and byte order;\n"
	"a region or record NAME stands for every variable in it, as in watch.\n"
	"One variable prints the bare value; several print NAME = VALUE UNIT lines.\n"
	"A variable in a record is read consistently. A value whose writer node\n"
	"is down (not attached, or its heartbeat stopped) is still printed but\n"
	"marked [stale: ...] (after a bare value, on stderr), and get exits 4.\n"
	"\n"
	"Options:\n" LAYOUT_OPTION_HELP
	"\n"
	"JSON: one line per variable with keys name, type, unit, value, state\n"
	"(fresh, stale, unknown) and, when stale, stale_reason.\n";

const char cli_help_set[] =
	"Parse VALUE for the type of variable NAME and write it: numbers in C\n"
	"notation, true/false, text for strings, hex for bytes, \"a, b, c\" for\n"
	"arrays. Refused when VALUE does not parse, is outside the variable's\n"
	"min/max, or the region belongs to another writer node than this one\n"
	"(choose the node with -u URI?node=N). A variable in a record is\n"
	"published as a one-variable update of the record.\n"
	"\n"
	"Options:\n" LAYOUT_OPTION_HELP
	"      --force         write even into a region of another writer node\n"
	"\n"
	"JSON keys: name, type, unit, value (as written).\n";

const char cli_help_watch[] =
	"Print the variables NAME (or every variable of a region or record\n"
	"NAME) every --interval milliseconds, marking with * those that changed\n"
	"since the previous refresh, and with [stale: ...] those whose writer\n"
	"node is down. On a terminal the display is redrawn in place; otherwise\n"
	"each refresh is a block of lines.\n"
	"\n"
	"Options:\n" LAYOUT_OPTION_HELP
	"      --interval MS   time between refreshes (default 200)\n"
	"      --count N       stop after N refreshes (default: run until killed)\n"
	"      --time CLOCK    the time of each refresh in realtime (default: UTC,\n"
	"                      ISO 8601) or monotonic (seconds) time; without a\n"
	"                      terminal, a line '# TIME' starts each refresh\n"
	"\n"
	"JSON: one line per refresh with keys refresh, time (in CLOCK), values\n"
	"(name: value), changed (names), state (name: fresh, stale or unknown).\n";
