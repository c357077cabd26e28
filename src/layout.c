/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Layout objects: creation, the builder used by code and by the YAML
 * loader, loading entry points, reference counting and description.
 *
 * The builder stores what it is given without judging it; the validator
 * (layout-check.c) judges everything at once so that every problem is
 * reported in one pass, at its position.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout-internal.h"

/* Layout files are small; this bounds what a mistaken path can make us read. */

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int rfm__layout_create(const char *name, const char *source, uint64_t window_size,
		       rfm_layout **layoutp)
{
	rfm_layout *layout = calloc(1, sizeof(*layout));

	if (!layout)
		return rfm__error(RFM_ENOMEM, "out of memory creating a layout");
	layout->refs = 1;
	layout->name = dup_or_empty(name ? name : "layout");
	layout->source = dup_or_empty(source ? source : "<code>");
	layout->window_size = window_size;
	layout->max_nodes = RFM_MAX_NODES;
	if (!layout->name || !layout->source) {
		rfm__layout_unref(layout);
		return rfm__error(RFM_ENOMEM, "out of memory creating a layout");
	}
	*layoutp = layout;
	return 0;
}

static int push_item(rfm_layout *layout, enum lay_item_kind kind, size_t index)
{
	if (rfm__grow(&layout->items, &layout->cap_items, layout->nitems, sizeof(*layout->items)))
		return RFM_ENOMEM;
	layout->items[layout->nitems].kind = kind;
	layout->items[layout->nitems].index = (uint32_t)index;
	layout->nitems++;
	return 0;
}

static const struct lay_pos no_pos[6];

int rfm__layout_push_region(rfm_layout *layout, const struct rfm_region_spec *spec,
			    const struct lay_pos pos[4])
{
	struct lay_region *r;

	if (!pos)
		pos = no_pos;
	if (rfm__grow(&layout->regions, &layout->cap_regions, layout->nregions,
		      sizeof(*layout->regions)))
		return RFM_ENOMEM;
	r = &layout->regions[layout->nregions];
	memset(r, 0, sizeof(*r));
	r->name = dup_or_empty(spec->name);
	r->description = dup_or_empty(spec->description);
	if (!r->name || !r->description) {
		free(r->name);
		free(r->description);
		return RFM_ENOMEM;
	}
	r->offset = spec->offset;
	r->size = spec->size;
	r->writer = spec->writer;
	r->pos = pos[0];
	r->pos_offset = pos[1];
	r->pos_size = pos[2];
	r->pos_writer = pos[3];
	return (int)layout->nregions++;
}

static char *join(const char *a, const char *b, const char *c)
{
	char *s;
	int n = c ? asprintf(&s, "%s.%s.%s", a, b, c) : asprintf(&s, "%s.%s", a, b);

	return n < 0 ? NULL : s;
}

int rfm__layout_push_record(rfm_layout *layout, uint32_t region,
			    const struct rfm_record_spec *spec, const struct lay_pos pos[3])
{
	struct lay_record *r;

	if (!pos)
		pos = no_pos;
	if (rfm__grow(&layout->records, &layout->cap_records, layout->nrecords,
		      sizeof(*layout->records)))
		return RFM_ENOMEM;
	r = &layout->records[layout->nrecords];
	memset(r, 0, sizeof(*r));
	r->name = dup_or_empty(spec->name);
	r->full = join(layout->regions[region].name, spec->name ? spec->name : "", NULL);
	r->description = dup_or_empty(spec->description);
	if (!r->name || !r->full || !r->description)
		goto nomem;
	r->region = region;
	r->byte_order = spec->byte_order;
	r->offset = spec->offset;
	r->size_wanted = spec->size;
	r->notify = spec->notify;
	r->pos = pos[0];
	r->pos_offset = pos[1];
	r->pos_size = pos[2];
	if (push_item(layout, LAY_ITEM_RECORD, layout->nrecords))
		goto nomem;
	return (int)layout->nrecords++;
nomem:
	free(r->name);
	free(r->full);
	free(r->description);
	return RFM_ENOMEM;
}

int rfm__layout_push_var(rfm_layout *layout, uint32_t region, uint32_t record,
			 const struct rfm_var_spec *spec, const struct lay_pos pos[6])
{
	struct lay_var *v;
	const char *name = spec->name ? spec->name : "";

	if (!pos)
		pos = no_pos;
	if (rfm__grow(&layout->vars, &layout->cap_vars, layout->nvars, sizeof(*layout->vars)))
		return RFM_ENOMEM;
	v = &layout->vars[layout->nvars];
	memset(v, 0, sizeof(*v));
	v->name = dup_or_empty(name);
	v->full = record == LAY_NO_RECORD
			  ? join(layout->regions[region].name, name, NULL)
			  : join(layout->regions[region].name, layout->records[record].name, name);
	v->unit = dup_or_empty(spec->unit);
	v->description = dup_or_empty(spec->description);
	if (!v->name || !v->full || !v->unit || !v->description)
		goto nomem;
	v->type = spec->type;
	v->count = spec->count ? spec->count : 1;
	v->byte_order = spec->byte_order;
	v->region = region;
	v->record = record;
	v->offset = spec->offset;
	v->range = (struct lay_range){ spec->has_min, spec->has_max, spec->min, spec->max };
	v->pos = pos[0];
	v->pos_type = pos[1];
	v->pos_count = pos[2];
	v->pos_offset = pos[3];
	v->pos_min = pos[4];
	v->pos_max = pos[5];
	/* Record members are placed inside their record, not in the region's order. */
	if (record == LAY_NO_RECORD && push_item(layout, LAY_ITEM_VAR, layout->nvars))
		goto nomem;
	return (int)layout->nvars++;
nomem:
	free(v->name);
	free(v->full);
	free(v->unit);
	free(v->description);
	return RFM_ENOMEM;
}

rfm_layout *rfm__layout_ref(rfm_layout *layout)
{
	__atomic_add_fetch(&layout->refs, 1, __ATOMIC_RELAXED);
	return layout;
}

int rfm__layout_open_check(const char *what, const rfm_layout *layout, const rfm_node *node,
			   const char *name, const void *out)
{
	if (!layout || !node || !name || !out)
		return rfm__error(RFM_EINVAL, "%s: NULL argument", what);
	if (!layout->finished)
		return rfm__error(RFM_EINVAL, "%s: layout %s is not finished", what, layout->name);
	if (layout->window_size > node->size)
		return rfm__error(RFM_ESIZE, "%s: the layout is for a %llu-byte window, %s has %llu",
				  layout->name, (unsigned long long)layout->window_size,
				  node->uri ? node->uri : "the node",
				  (unsigned long long)node->size);
	return 0;
}

void rfm__layout_unref(rfm_layout *layout)
{
	if (!layout || __atomic_sub_fetch(&layout->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (size_t i = 0; i < layout->nregions; i++) {
		free(layout->regions[i].name);
		free(layout->regions[i].description);
	}
	for (size_t i = 0; i < layout->nrecords; i++) {
		free(layout->records[i].name);
		free(layout->records[i].full);
		free(layout->records[i].description);
	}
	for (size_t i = 0; i < layout->nvars; i++) {
		free(layout->vars[i].name);
		free(layout->vars[i].full);
		free(layout->vars[i].unit);
		free(layout->vars[i].description);
	}
	free(layout->regions);
	free(layout->records);
	free(layout->vars);
	free(layout->items);
	free(layout->name);
	free(layout->source);
	free(layout);
}

static bool name_is(const char *full, const char *name, size_t len)
{
	return strlen(full) == len && !memcmp(full, name, len);
}

long rfm__layout_find_var(const rfm_layout *layout, const char *full, size_t len)
{
	for (size_t i = 0; i < layout->nvars; i++)
		if (name_is(layout->vars[i].full, full, len))
			return (long)i;
	return -1;
}

long rfm__layout_find_record(const rfm_layout *layout, const char *full, size_t len)
{
	for (size_t i = 0; i < layout->nrecords; i++)
		if (name_is(layout->records[i].full, full, len))
			return (long)i;
	return -1;
}

static long find_region(const rfm_layout *layout, const char *name, size_t len)
{
	for (size_t i = 0; i < layout->nregions; i++)
		if (name_is(layout->regions[i].name, name, len))
			return (long)i;
	return -1;
}

/* ---- public builder ---- */

RFM_API int rfm_layout_new(const char *name, uint64_t window_size, rfm_layout **layoutp)
{
	if (!layoutp)
		return rfm__error(RFM_EINVAL, "rfm_layout_new: layoutp is NULL");
	return rfm__layout_create(name, "<code>", window_size, layoutp);
}

static int check_builder(rfm_layout *layout, const void *spec, uint32_t struct_size,
			 size_t min_size, const char *what)
{
	int ret = rfm__sized_check(what, layout, spec, struct_size, min_size);

	if (!ret && layout->finished)
		ret = rfm__error(RFM_EBUSY, "%s: layout %s is finished; nothing can be added",
				 what, layout->name);
	return ret;
}

/* Copy a caller's spec, possibly from older headers (smaller), zero-extended. */
#define COPY_SPEC(dst, src)                                                   \
	do {                                                                  \
		memset(&(dst), 0, sizeof(dst));                               \
		memcpy(&(dst), (src),                                         \
		       (src)->struct_size < sizeof(dst) ? (src)->struct_size  \
							: sizeof(dst));       \
	} while (0)

RFM_API int rfm_layout_add_region(rfm_layout *layout, const struct rfm_region_spec *spec)
{
	struct rfm_region_spec s;
	int ret = check_builder(layout, spec, spec ? spec->struct_size : 0,
				offsetof(struct rfm_region_spec, reserved), "rfm_layout_add_region");

	if (ret)
		return ret;
	COPY_SPEC(s, spec);
	ret = rfm__layout_push_region(layout, &s, NULL);
	return ret < 0 ? rfm__error(ret, "rfm_layout_add_region: out of memory") : 0;
}

RFM_API int rfm_layout_add_record(rfm_layout *layout, const char *region,
				  const struct rfm_record_spec *spec)
{
	struct rfm_record_spec s;
	int ret = check_builder(layout, spec, spec ? spec->struct_size : 0,
				offsetof(struct rfm_record_spec, reserved), "rfm_layout_add_record");

	if (ret)
		return ret;
	if (!region)
		return rfm__error(RFM_EINVAL, "rfm_layout_add_record: region is NULL");
	long r = find_region(layout, region, strlen(region));
	if (r < 0)
		return rfm__error(RFM_ENOTFOUND, "rfm_layout_add_record: no region '%s' in %s",
				  region, layout->name);
	COPY_SPEC(s, spec);
	if (s.notify > RFM_EVENT_INTR4)
		return rfm__error(RFM_EINVAL, "rfm_layout_add_record: notify type %u is not intr1..intr4",
				  s.notify);
	ret = rfm__layout_push_record(layout, (uint32_t)r, &s, NULL);
	return ret < 0 ? rfm__error(ret, "rfm_layout_add_record: out of memory") : 0;
}

RFM_API int rfm_layout_add_var(rfm_layout *layout, const char *parent,
			       const struct rfm_var_spec *spec)
{
	struct rfm_var_spec s;
	uint32_t record = LAY_NO_RECORD;
	int ret = check_builder(layout, spec, spec ? spec->struct_size : 0,
				offsetof(struct rfm_var_spec, reserved), "rfm_layout_add_var");

	if (ret)
		return ret;
	if (!parent)
		return rfm__error(RFM_EINVAL, "rfm_layout_add_var: parent is NULL");
	const char *dot = strchr(parent, '.');
	size_t region_len = dot ? (size_t)(dot - parent) : strlen(parent);
	long r = find_region(layout, parent, region_len);
	if (r < 0)
		return rfm__error(RFM_ENOTFOUND, "rfm_layout_add_var: no region '%.*s' in %s",
				  (int)region_len, parent, layout->name);
	if (dot) {
		long rec = rfm__layout_find_record(layout, parent, strlen(parent));
		if (rec < 0)
			return rfm__error(RFM_ENOTFOUND, "rfm_layout_add_var: no record '%s' in %s",
					  parent, layout->name);
		record = (uint32_t)rec;
	}
	COPY_SPEC(s, spec);
	ret = rfm__layout_push_var(layout, (uint32_t)r, record, &s, NULL);
	return ret < 0 ? rfm__error(ret, "rfm_layout_add_var: out of memory") : 0;
}

/* Validate @layout; on success it is finished, on failure *diagsp gets the list. */
static int finish(rfm_layout *layout, struct rfm_diag_list *diags, rfm_diag_list **diagsp)
{
	int ret = 0;

	/* Validate even after text problems: every problem is reported at once. */
	if (!diags->out_of_memory)
		rfm__layout_check(layout, diags);
	if (diags->count || diags->out_of_memory) {
		ret = rfm__diag_finish(diags);
		if (diagsp && diags->count) {
			*diagsp = diags;
			return ret;
		}
	} else {
		layout->finished = true;
	}
	rfm_diag_list_free(diags);
	return ret;
}

RFM_API int rfm_layout_finish(rfm_layout *layout, rfm_diag_list **diagsp)
{
	struct rfm_diag_list *diags;

	if (diagsp)
		*diagsp = NULL;
	if (!layout)
		return rfm__error(RFM_EINVAL, "rfm_layout_finish: layout is NULL");
	if (layout->finished)
		return rfm__error(RFM_EBUSY, "rfm_layout_finish: layout %s is already finished",
				  layout->name);
	diags = rfm__diag_list_new(layout->source);
	if (!diags)
		return rfm__error(RFM_ENOMEM, "out of memory validating layout %s", layout->name);
	return finish(layout, diags, diagsp);
}

RFM_API int rfm_layout_load_string(const char *text, size_t len, const char *source_name,
				   rfm_layout **layoutp, rfm_diag_list **diagsp)
{
	struct rfm_diag_list *diags;
	rfm_layout *layout = NULL;
	int ret;

	if (diagsp)
		*diagsp = NULL;
	if (!layoutp || (!text && len))
		return rfm__error(RFM_EINVAL, "rfm_layout_load_string: NULL argument");
	if (!source_name)
		source_name = "<string>";
	diags = rfm__diag_list_new(source_name);
	if (!diags)
		return rfm__error(RFM_ENOMEM, "out of memory loading %s", source_name);
	ret = rfm__layout_parse_yaml(text ? text : "", len, source_name, &layout, diags);
	if (ret && ret != RFM_ELAYOUT) {
		rfm_diag_list_free(diags);
		rfm__layout_unref(layout);
		return ret;
	}
	if (!layout) {
		/* Nothing to validate: the diagnostics say why. */
		ret = rfm__diag_finish(diags);
		if (diagsp)
			*diagsp = diags;
		else
			rfm_diag_list_free(diags);
		return ret;
	}
	ret = finish(layout, diags, diagsp);
	if (ret) {
		rfm__layout_unref(layout);
		return ret;
	}
	*layoutp = layout;
	return 0;
}

RFM_API int rfm_layout_load_file(const char *path, rfm_layout **layoutp,
				 rfm_diag_list **diagsp)
{
	struct stat st;
	char *text;
	size_t got = 0;
	int fd, ret;

	if (diagsp)
		*diagsp = NULL;
	if (!path || !layoutp)
		return rfm__error(RFM_EINVAL, "rfm_layout_load_file: NULL argument");
	fd = rfm__fd_keep_off_std(open(path, O_RDONLY | O_CLOEXEC));
	if (fd < 0) {
		int err = errno;
		return rfm__error(rfm__errno_code(err), "%s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0) {
		int err = errno;
		close(fd);
		return rfm__error(rfm__errno_code(err), "%s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return rfm__error(RFM_EINVAL, "%s: not a regular file", path);
	}
	if (st.st_size > LAY_TEXT_MAX) {
		close(fd);
		return rfm__error(RFM_ELAYOUT, "%s: %llu bytes, more than the %u a layout file may have",
				  path, (unsigned long long)st.st_size, LAY_TEXT_MAX);
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return rfm__error(RFM_ENOMEM, "%s: out of memory", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < (size_t)st.st_size) {
		int err = errno;
		close(fd);
		free(text);
		return rfm__error(RFM_ESYS, "%s: read failed: %s", path,
				  err ? strerror(err) : "file shrank");
	}
	close(fd);
	ret = rfm_layout_load_string(text, got, path, layoutp, diagsp);
	free(text);
	return ret;
}

RFM_API void rfm_layout_free(rfm_layout *layout)
{
	rfm__layout_unref(layout);
}

/* ---- description ---- */

RFM_API const char *rfm_layout_name(const rfm_layout *layout)
{
	return layout ? layout->name : "";
}

RFM_API uint64_t rfm_layout_window_size(const rfm_layout *layout)
{
	return layout ? layout->window_size : 0;
}

RFM_API size_t rfm_layout_region_count(const rfm_layout *layout)
{
	return layout ? layout->nregions : 0;
}

RFM_API size_t rfm_layout_record_count(const rfm_layout *layout)
{
	return layout ? layout->nrecords : 0;
}

RFM_API size_t rfm_layout_var_count(const rfm_layout *layout)
{
	return layout ? layout->nvars : 0;
}

static int info_args(const rfm_layout *layout, size_t index, size_t count, const void *info,
		     uint32_t struct_size, size_t min_size, const char *what)
{
	int ret = rfm__sized_check(what, layout, info, struct_size, min_size);

	if (ret)
		return ret;
	if (!layout->finished)
		return rfm__error(RFM_EINVAL, "%s: layout %s is not finished", what, layout->name);
	if (index >= count)
		return rfm__error(RFM_EINVAL, "%s: index %zu, layout %s has %zu", what, index,
				  layout->name, count);
	return 0;
}

static void region_info(const rfm_layout *layout, size_t index, struct rfm_region_info *full)
{
	const struct lay_region *r = &layout->regions[index];

	memset(full, 0, sizeof(*full));
	full->writer = r->writer;
	full->name = r->name;
	full->description = r->description;
	full->offset = r->offset;
	full->size = r->size;
}

void rfm__record_info(const rfm_layout *layout, size_t index, struct rfm_record_info *full)
{
	const struct lay_record *r = &layout->records[index];

	memset(full, 0, sizeof(*full));
	full->byte_order = r->byte_order;
	full->name = r->full;
	full->description = r->description;
	full->offset = r->abs;
	full->size = LAY_RECORD_HEADER + r->data_size;
	full->data_offset = r->abs + LAY_RECORD_HEADER;
	full->data_size = r->data_size;
	full->region = r->region;
}

void rfm__var_info(const rfm_layout *layout, size_t index, struct rfm_var_info *full)
{
	const struct lay_var *v = &layout->vars[index];

	memset(full, 0, sizeof(*full));
	full->type = v->type;
	full->name = v->full;
	full->unit = v->unit;
	full->description = v->description;
	full->offset = v->abs;
	full->count = v->count;
	full->element_size = rfm__type_size(v->type);
	full->size = (uint64_t)v->count * full->element_size;
	full->byte_order = v->byte_order;
	full->writer = layout->regions[v->region].writer;
	full->has_min = v->range.has_min;
	full->has_max = v->range.has_max;
	full->min = v->range.min;
	full->max = v->range.max;
	full->record = v->record == LAY_NO_RECORD ? -1 : (int32_t)v->record;
	full->region = v->region;
	full->record_offset = v->record == LAY_NO_RECORD ? 0 : v->offset;
}

/* What the three rfm_layout_*_info() functions describe. */
enum info_kind { INFO_REGION, INFO_RECORD, INFO_VAR };

static const struct {
	const char *fn;
	size_t min_size, size;	/* the first version's fields; the whole struct */
} info_kinds[] = {
	[INFO_REGION] = { "rfm_layout_region_info", offsetof(struct rfm_region_info, reserved),
			  sizeof(struct rfm_region_info) },
	[INFO_RECORD] = { "rfm_layout_record_info", offsetof(struct rfm_record_info, reserved),
			  sizeof(struct rfm_record_info) },
	[INFO_VAR] = { "rfm_layout_var_info", offsetof(struct rfm_var_info, reserved),
		       sizeof(struct rfm_var_info) },
};

/* Item @index of @kind into the caller's @info (struct_size first). */
static int layout_info(const rfm_layout *layout, enum info_kind kind, size_t index, void *info)
{
	union {
		struct rfm_region_info region;
		struct rfm_record_info record;
		struct rfm_var_info var;
	} full;
	size_t count = !layout		    ? 0
		       : kind == INFO_REGION ? layout->nregions
		       : kind == INFO_RECORD ? layout->nrecords
					     : layout->nvars;
	uint32_t struct_size = 0;

	if (info)
		memcpy(&struct_size, info, sizeof(struct_size));
	int ret = info_args(layout, index, count, info, struct_size, info_kinds[kind].min_size,
			    info_kinds[kind].fn);
	if (ret)
		return ret;
	if (kind == INFO_REGION)
		region_info(layout, index, &full.region);
	else if (kind == INFO_RECORD)
		rfm__record_info(layout, index, &full.record);
	else
		rfm__var_info(layout, index, &full.var);
	rfm__sized_fill(info, &full, info_kinds[kind].size);
	return 0;
}

RFM_API int rfm_layout_region_info(const rfm_layout *layout, size_t index,
				   struct rfm_region_info *info)
{
	return layout_info(layout, INFO_REGION, index, info);
}

RFM_API int rfm_layout_record_info(const rfm_layout *layout, size_t index,
				   struct rfm_record_info *info)
{
	return layout_info(layout, INFO_RECORD, index, info);
}

RFM_API int rfm_layout_var_info(const rfm_layout *layout, size_t index, struct rfm_var_info *info)
{
	return layout_info(layout, INFO_VAR, index, info);
}
