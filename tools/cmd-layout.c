/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm layout check FILE [--list] and rfm layout header FILE [-o OUT]
 * [--prefix NAME]: validate a layout file, list its map, write its C
 * header. Thin: the library does the work.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

enum { OPT_LIST = 'l', OPT_OUTPUT = 'o', OPT_PREFIX = 'p' };

static const struct option layout_options[] = {
	{ "list", no_argument, NULL, OPT_LIST },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ NULL, 0, NULL, 0 },
};

static int check_json_failure(const char *path, rfm_diag_list *diags)
{
	struct json_object *obj = json_object_new_object();
	struct json_object *problems = json_object_new_array();
	struct rfm_diag d = { .struct_size = sizeof(d) };

	for (size_t i = 0; i < rfm_diag_list_count(diags); i++) {
		struct json_object *p = json_object_new_object();
		rfm_diag_list_get(diags, i, &d);
		cli_json_add_u64(p, "line", d.line);
		cli_json_add_u64(p, "column", d.column);
		cli_json_add_string(p, "message", d.message);
		cli_json_add_string(p, "text", d.text);
		json_object_array_add(problems, p);
	}
	cli_json_add_string(obj, "file", path);
	cli_json_add_bool(obj, "valid", false);
	json_object_object_add(obj, "problems", problems);
	cli_json_print(obj);
	return CLI_EXIT_FAILED;
}

/* The ring region @r declares, if any: its shape and the bytes it takes. */
static void list_ring(const rfm_layout *l, size_t r, const struct rfm_region_info *ri)
{
	struct rfm_ring_config c = { .struct_size = sizeof(c) };
	uint64_t bytes = 0;

	if (rfm_layout_region_ring(l, r, &c) || rfm_ring_footprint(&c, &bytes))
		return;
	uint32_t per = c.max_consumers ? c.max_consumers : RFM_RING_CONSUMERS_DEFAULT;
	printf("0x%08llx %8llu    ring: %u slots of %u bytes, %u consumer entr%s for each of "
	       "node ids 0..%u%s%s\n",
	       (unsigned long long)ri->offset, (unsigned long long)bytes, c.slot_count,
	       c.slot_size, per, per == 1 ? "y" : "ies",
	       (c.consumer_nodes ? c.consumer_nodes : RFM_MAX_NODES) - 1,
	       c.flags & RFM_RING_F_NOTIFY ? ", notify" : "",
	       c.flags & RFM_RING_F_BACKPRESSURE ? ", back-pressure" : "");
}

static void list_var(const rfm_layout *l, size_t v)
{
	struct rfm_var_info vi = { .struct_size = sizeof(vi) };
	char type[32];

	rfm_layout_var_info(l, v, &vi);
	snprintf(type, sizeof(type), vi.count > 1 || vi.type >= RFM_TYPE_STRING ? "%s[%u]" : "%s",
		 rfm_type_name(vi.type), vi.count);
	printf("0x%08llx %8llu    %-10s %s%s%s%s\n", (unsigned long long)vi.offset,
	       (unsigned long long)vi.size, type, vi.name,
	       vi.byte_order == RFM_ORDER_BIG && vi.element_size > 1 ? " (big-endian)" : "",
	       vi.unit[0] ? " " : "", vi.unit);
}

/*
 * Every region, then its variables in the layout's order. The variables
 * are grouped by region once (a counting sort), not looked for once per
 * region: that made a 10 MB layout take minutes.
 */
static int list_map(struct cli *cli, const rfm_layout *l)
{
	size_t nregions = rfm_layout_region_count(l), nvars = rfm_layout_var_count(l);
	size_t *first = calloc(nregions + 2, sizeof(*first));
	size_t *order = malloc((nvars ? nvars : 1) * sizeof(*order));
	uint32_t *region = malloc((nvars ? nvars : 1) * sizeof(*region));

	if (!first || !order || !region) {
		free(first);
		free(order);
		free(region);
		return cli_error(cli, "out of memory listing %zu variables", nvars);
	}
	for (size_t v = 0; v < nvars; v++) {
		struct rfm_var_info vi = { .struct_size = sizeof(vi) };

		rfm_layout_var_info(l, v, &vi);
		region[v] = vi.region;
		first[vi.region + 2]++;
	}
	for (size_t r = 2; r < nregions + 2; r++)
		first[r] += first[r - 1];
	/* first[r + 1] is where region r's variables start: fill it to their end. */
	for (size_t v = 0; v < nvars; v++)
		order[first[region[v] + 1]++] = v;
	for (size_t r = 0; r < nregions; r++) {
		struct rfm_region_info ri = { .struct_size = sizeof(ri) };

		rfm_layout_region_info(l, r, &ri);
		printf("0x%08llx %8llu  region %s (writer %u)%s%s\n",
		       (unsigned long long)ri.offset, (unsigned long long)ri.size, ri.name,
		       ri.writer, ri.description[0] ? ": " : "", ri.description);
		list_ring(l, r, &ri);
		for (size_t at = first[r]; at < first[r + 1]; at++)
			list_var(l, order[at]);
	}
	free(first);
	free(order);
	free(region);
	return 0;
}

static int layout_check(struct cli *cli, const char *path, bool list)
{
	rfm_layout *layout;
	rfm_diag_list *diags = NULL;
	int ret;

	if (!cli->json) {
		ret = cli_load_layout(cli, path, &layout);
		if (ret)
			return ret;
		if (list && list_map(cli, layout)) {
			rfm_layout_free(layout);
			return CLI_EXIT_FAILED;
		}
		printf("%s: valid: %zu regions, %zu records, %zu variables in a %llu-byte window\n",
		       path, rfm_layout_region_count(layout), rfm_layout_record_count(layout),
		       rfm_layout_var_count(layout),
		       (unsigned long long)rfm_layout_window_size(layout));
		rfm_layout_free(layout);
		return CLI_EXIT_OK;
	}
	ret = rfm_layout_load_file(path, &layout, &diags);
	if (ret == RFM_ELAYOUT && diags) {
		ret = check_json_failure(path, diags);
		rfm_diag_list_free(diags);
		return ret;
	}
	if (ret)
		return cli_fail(cli);
	struct json_object *obj = json_object_new_object();
	cli_json_add_string(obj, "file", path);
	cli_json_add_bool(obj, "valid", true);
	cli_json_add_string(obj, "name", rfm_layout_name(layout));
	cli_json_add_u64(obj, "window", rfm_layout_window_size(layout));
	cli_json_add_u64(obj, "regions", rfm_layout_region_count(layout));
	cli_json_add_u64(obj, "records", rfm_layout_record_count(layout));
	cli_json_add_u64(obj, "variables", rfm_layout_var_count(layout));
	cli_json_print(obj);
	rfm_layout_free(layout);
	return CLI_EXIT_OK;
}

static int layout_header(struct cli *cli, const char *path, const char *output,
			 const char *prefix)
{
	struct cli_out_file file = { 0 };
	rfm_layout *layout;
	FILE *out = stdout;
	int ret = cli_load_layout(cli, path, &layout);

	if (ret)
		return ret;
	if (output && strcmp(output, "-")) {
		ret = cli_out_open(cli, &file, output, false);
		if (ret)
			goto done;
		out = file.fp;
	}
	if (rfm_layout_write_header(layout, prefix, out)) {
		/* Never half a header: the old file, if any, stays as it was. */
		cli_out_abort(&file);
		ret = cli_fail(cli);
	} else {
		ret = cli_out_commit(cli, &file);
	}
done:
	rfm_layout_free(layout);
	return ret;
}

int cli_run_layout(struct cli *cli, int argc, char **argv)
{
	const char *output = NULL, *prefix = NULL;
	bool list = false;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "o:", layout_options)) > 0) {
		if (opt == OPT_LIST)
			list = true;
		else if (opt == OPT_OUTPUT)
			output = optarg;
		else if (opt == OPT_PREFIX)
			prefix = optarg;
	}
	ret = cli_options_end(cli, opt, argc, argv, 2, 2);
	if (ret)
		return ret;
	const char *action = argv[optind], *path = argv[optind + 1];
	if (!strcmp(action, "check")) {
		if (output || prefix)
			return cli_usage_error(cli, "--output and --prefix belong to 'layout header'");
		return layout_check(cli, path, list);
	}
	if (!strcmp(action, "header")) {
		if (list)
			return cli_usage_error(cli, "--list belongs to 'layout check'");
		return layout_header(cli, path, output, prefix);
	}
	return cli_usage_error(cli, "unknown action '%s' (expected check or header)", action);
}

const char cli_help_layout[] =
	"check: load and validate the layout FILE (docs/layout-format.md) and\n"
	"print a summary; every problem is reported as FILE:LINE:COLUMN: message.\n"
	"header: write a C header for FILE: offset macros, a packed struct per\n"
	"region and a _Static_assert on every offset and size.\n"
	"\n"
	"Options:\n"
	"      --list          check: also print the map (offset, size, type, name)\n"
	"  -o, --output OUT    header: write to OUT instead of standard output\n"
	"      --prefix NAME   header: prefix of every name (default: the layout's name)\n"
	"\n"
	"JSON keys (check): file, valid, and name, window, regions, records,\n"
	"variables when valid, or problems (line, column, message, text).\n";
