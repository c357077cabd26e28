/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Describing a finished layout: its name, window, counts, and each
 * region's, record's and variable's info struct (versioned: an older
 * caller's smaller struct is filled as far as it reaches).
 */
#include "config.h"

#include <string.h>

#include "layout-internal.h"

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
	full->stale_after_ms = r->stale_after_ms;
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
	full->digits = v->digits;
	full->stale_after_ms = v->stale_after_ms;
}

/* What the three rfm_layout_*_info() functions describe. */
enum info_kind { INFO_REGION, INFO_RECORD, INFO_VAR };

static const struct {
	const char *fn;
	size_t min_size, size;	/* RFM_1.0's fields; the whole struct */
} info_kinds[] = {
	[INFO_REGION] = { "rfm_layout_region_info", LAY_REGION_INFO_SIZE_1_0,
			  sizeof(struct rfm_region_info) },
	[INFO_RECORD] = { "rfm_layout_record_info", LAY_RECORD_INFO_SIZE_1_0,
			  sizeof(struct rfm_record_info) },
	[INFO_VAR] = { "rfm_layout_var_info", LAY_VAR_INFO_SIZE_1_0, sizeof(struct rfm_var_info) },
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
