/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Layout files for the commands that work by variable name. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/*
 * A layout file that is not there: name the file looked for. A relative
 * path is the directory rfm runs in's (a $RFM_LAYOUT exported in another
 * directory means another file here), so the message says which.
 */
static int no_layout_file(struct cli *cli, const char *path, bool from_env)
{
	char cwd[4096];
	const char *origin = from_env ? "$RFM_LAYOUT" : "--layout";

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return cli_error(cli, "layout '%s' (%s): %s", path, origin, strerror(errno));
	return cli_error(cli,
			 "layout '%s/%s' (%s '%s', relative to the directory rfm runs in, %s): "
			 "%s; give a path from here or an absolute one",
			 cwd, path, origin, path, cwd, strerror(errno));
}

int cli_load_layout(struct cli *cli, const char *path, rfm_layout **layoutp)
{
	rfm_diag_list *diags = NULL;
	bool from_env = !path || !path[0];
	struct stat st;
	int ret;

	if (from_env)
		path = getenv("RFM_LAYOUT");
	if (!path || !path[0])
		return cli_usage_error(cli, "no layout: give --layout FILE or set RFM_LAYOUT");
	if (stat(path, &st) < 0)
		return no_layout_file(cli, path, from_env);
	ret = rfm_layout_load_file(path, layoutp, &diags);
	if (ret == RFM_ELAYOUT && diags) {
		struct rfm_diag d = { .struct_size = sizeof(d) };
		for (size_t i = 0; i < rfm_diag_list_count(diags); i++)
			if (!rfm_diag_list_get(diags, i, &d))
				fprintf(stderr, "rfm: %s\n", d.text);
		rfm_diag_list_free(diags);
		return CLI_EXIT_FAILED;
	}
	return ret ? cli_fail(cli) : 0;
}

/* The region holding @offset, or -1. */
static long region_at(const rfm_layout *layout, uint64_t offset, struct rfm_region_info *info)
{
	for (size_t i = 0; i < rfm_layout_region_count(layout); i++) {
		info->struct_size = sizeof(*info);
		if (rfm_layout_region_info(layout, i, info) == 0 && offset >= info->offset &&
		    offset - info->offset < info->size)
			return (long)i;
	}
	return -1;
}

/* The refusal of a write into another node's region: fill, poke, write and bench say it alike. */
static int refuse_foreign(struct cli *cli, uint64_t at, const struct rfm_region_info *info,
			  int self, const char *hint)
{
	return cli_error(cli, "refusing to write at 0x%llx: region '%s' belongs to node %u, "
			 "this is node %d (%s)", (unsigned long long)at, info->name, info->writer,
			 self, hint);
}

/*
 * The layout a raw write of @length bytes is guarded by: $RFM_LAYOUT's, loaded
 * into *layoutp (named by *pathp). Returns 0 with *layoutp NULL when nothing
 * is to be guarded (no layout set, or an empty range), else cli_load_layout()'s
 * status.
 */
static int guard_layout(struct cli *cli, uint64_t length, const char **pathp,
			rfm_layout **layoutp)
{
	*pathp = getenv("RFM_LAYOUT");
	*layoutp = NULL;
	if (!*pathp || !(*pathp)[0] || length == 0)
		return 0;
	return cli_load_layout(cli, *pathp, layoutp);
}

int cli_guard_write(struct cli *cli, uint64_t offset, uint64_t length)
{
	rfm_layout *layout;
	const char *path;
	int ret = guard_layout(cli, length, &path, &layout);

	if (ret || !layout)
		return ret;
	ret = cli_guard_in_layout(cli, layout, path, offset, length);
	rfm_layout_free(layout);
	return ret;
}

int cli_guard_in_layout(struct cli *cli, const rfm_layout *layout, const char *path,
			uint64_t offset, uint64_t length)
{
	int self = rfm_node_id(cli->node), ret = 0;
	struct rfm_region_info info;

	/* Walk the range region by region: every byte must be in one of ours. */
	for (uint64_t at = offset; at - offset < length;) {
		if (region_at(layout, at, &info) < 0) {
			ret = cli_error(cli,
					"refusing to write at 0x%llx: no region of %s covers it "
					"(unset RFM_LAYOUT to write raw memory)",
					(unsigned long long)at, path);
			break;
		}
		if (info.writer != (uint32_t)self) {
			ret = refuse_foreign(cli, at, &info, self,
					     "unset RFM_LAYOUT to write raw memory");
			break;
		}
		at = info.offset + info.size;
	}
	return ret;
}

int cli_guard_foreign(struct cli *cli, const rfm_layout *layout, uint64_t offset,
		      uint64_t length, const char *hint)
{
	int self = rfm_node_id(cli->node);
	struct rfm_region_info info, first = { 0 };
	uint64_t first_at = UINT64_MAX;

	/* Name the lowest foreign byte, as the walk of cli_guard_write() would. */
	for (size_t i = 0; i < rfm_layout_region_count(layout); i++) {
		info.struct_size = sizeof(info);
		if (rfm_layout_region_info(layout, i, &info) || info.writer == (uint32_t)self ||
		    !info.size || info.offset >= offset + length ||
		    offset >= info.offset + info.size)
			continue;
		uint64_t at = info.offset > offset ? info.offset : offset;
		if (at < first_at) {
			first_at = at;
			first = info;
		}
	}
	return first_at == UINT64_MAX ? 0 : refuse_foreign(cli, first_at, &first, self, hint);
}

static struct json_object *element_json(int type, const uint8_t *p)
{
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; int8_t i8; int16_t i16;
		int32_t i32; int64_t i64; float f32; double f64; } v;

	memcpy(&v, p, 8);
	switch (type) {
	case RFM_TYPE_U8: return json_object_new_int64(v.u8);
	case RFM_TYPE_U16: return json_object_new_int64(v.u16);
	case RFM_TYPE_U32: return json_object_new_int64(v.u32);
	case RFM_TYPE_U64: return json_object_new_uint64(v.u64);
	case RFM_TYPE_I8: return json_object_new_int64(v.i8);
	case RFM_TYPE_I16: return json_object_new_int64(v.i16);
	case RFM_TYPE_I32: return json_object_new_int64(v.i32);
	case RFM_TYPE_I64: return json_object_new_int64(v.i64);
	case RFM_TYPE_F32: return json_object_new_double(v.f32);
	case RFM_TYPE_F64: return json_object_new_double(v.f64);
	default: return json_object_new_boolean(v.u8 != 0);
	}
}

int cli_var_json(struct cli *cli, rfm_var *var, struct json_object **valuep)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	uint8_t *buf;

	if (rfm_var_get_info(var, &info))
		return cli_fail(cli);
	buf = calloc((size_t)info.size + 8, 1);
	if (!buf)
		return cli_error(cli, "out of memory");
	if (rfm_var_get_array(var, 0, info.count, buf, (size_t)info.size)) {
		free(buf);
		return cli_fail(cli);
	}
	if (info.type == RFM_TYPE_STRING) {
		*valuep = json_object_new_string_len((const char *)buf,
						     (int)strnlen((const char *)buf, info.count));
	} else if (info.type == RFM_TYPE_BYTES) {
		char *hex = malloc(2 * (size_t)info.count + 1);
		if (!hex) {
			free(buf);
			return cli_error(cli, "out of memory");
		}
		for (uint32_t i = 0; i < info.count; i++)
			sprintf(hex + 2 * i, "%02x", buf[i]);
		hex[2 * info.count] = '\0';
		*valuep = json_object_new_string(hex);
		free(hex);
	} else if (info.count == 1) {
		*valuep = element_json(info.type, buf);
	} else {
		*valuep = json_object_new_array();
		for (uint32_t i = 0; i < info.count; i++)
			json_object_array_add(*valuep,
					      element_json(info.type,
							   buf + (size_t)i * info.element_size));
	}
	free(buf);
	return 0;
}

int cli_guard_scratch(struct cli *cli, uint64_t offset, uint64_t length, const char *hint)
{
	rfm_layout *layout;
	const char *path;
	int ret = guard_layout(cli, length, &path, &layout);

	if (ret || !layout)
		return ret;
	ret = cli_guard_foreign(cli, layout, offset, length, hint);
	rfm_layout_free(layout);
	return ret;
}

/* ---- variables by name: did you mean, and whether a value is current ---- */

/* Every name get, set and watch take: variables, records and regions. */
static const char **layout_names(rfm_layout *layout, size_t *n)
{
	size_t nvars = rfm_layout_var_count(layout), nrecs = rfm_layout_record_count(layout);
	size_t nregs = rfm_layout_region_count(layout);
	const char **names = calloc(nvars + nrecs + nregs + 1, sizeof(*names));

	*n = 0;
	if (!names)
		return NULL;
	for (size_t i = 0; i < nvars; i++) {
		struct rfm_var_info info = { .struct_size = sizeof(info) };
		if (!rfm_layout_var_info(layout, i, &info))
			names[(*n)++] = info.name;
	}
	for (size_t i = 0; i < nrecs; i++) {
		struct rfm_record_info info = { .struct_size = sizeof(info) };
		if (!rfm_layout_record_info(layout, i, &info))
			names[(*n)++] = info.name;
	}
	for (size_t i = 0; i < nregs; i++) {
		struct rfm_region_info info = { .struct_size = sizeof(info) };
		if (!rfm_layout_region_info(layout, i, &info))
			names[(*n)++] = info.name;
	}
	return names;
}

/*
 * The library's "no variable named" with the name nearest to @name, by
 * the rule of the command suggestions; an index ("x[2]") is kept as typed.
 */
static int unknown_var(struct cli *cli, rfm_layout *layout, const char *name)
{
	char msg[1024], base[128];
	size_t n, len = strcspn(name, "[");
	const char **names = layout_names(layout, &n);
	const char *near = NULL;

	cli_user_message(cli, rfm_last_error(), msg, sizeof(msg));
	if (names && len < sizeof(base)) {
		memcpy(base, name, len);
		base[len] = '\0';
		near = cli_suggest(base, names, n);
	}
	if (near)
		fprintf(stderr, "rfm: %s; did you mean '%s%s'?\n", msg, near, name + len);
	else
		fprintf(stderr, "rfm: %s\n", msg);
	free(names);
	return CLI_EXIT_FAILED;
}

int cli_var_open(struct cli *cli, rfm_layout *layout, const char *name, rfm_var **varp)
{
	int ret = rfm_var_open(layout, cli->node, name, varp);

	if (ret == RFM_ENOTFOUND)
		return unknown_var(cli, layout, name);
	return ret ? cli_fail(cli) : 0;
}

/* Why node @id's data is not current, from its row of the node table. */
static const char *writer_down_reason(const struct rfm_node_status *rows, int n, uint32_t id)
{
	for (int i = 0; i < n && i < RFM_MAX_NODES; i++)
		if (rows[i].id == id)
			return !rows[i].attached ? "is not attached" : "stopped beating";
	return "is not on the network";
}

void cli_var_freshness(struct cli *cli, rfm_var *var, struct cli_freshness *f)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	struct rfm_node_status *rows;
	int stale, n;

	memset(f, 0, sizeof(*f));
	/* The library's rule, the one Python and rfm serve apply. */
	stale = rfm_var_stale(cli->node, var);
	if (stale < 0 || rfm_var_get_info(var, &info))
		return;	/* nothing to tell it by (no writer node, no node table) */
	f->known = true;
	f->stale = stale == 1;
	if (!f->stale)
		return;
	rows = calloc(RFM_MAX_NODES, sizeof(*rows));
	n = rows ? rfm_health_nodes(cli->node, rows, RFM_MAX_NODES) : -1;
	f->writer = info.writer;
	f->why = n >= 0 ? writer_down_reason(rows, n, info.writer) : "is down";
	snprintf(f->reason, sizeof(f->reason), "writer node %u %s", f->writer, f->why);
	free(rows);
}
