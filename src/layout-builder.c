/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public builder: a layout made by code (rfm_layout_new, add_region,
 * add_record, add_var, add_ring, finish) into the same object the YAML loader fills,
 * validated by the same checks.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "layout-internal.h"

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

/*
 * The checks of an addition below @parent, the argument called @arg (a
 * region; for a variable, a region or region.record): the builder's, then
 * the index of the parent's region (the part before a dot when @dotted),
 * or a negative code with the error set.
 */
static long check_child(rfm_layout *layout, const void *spec, uint32_t struct_size,
			size_t min_size, const char *what, const char *arg, const char *parent,
			bool dotted)
{
	int ret = check_builder(layout, spec, struct_size, min_size, what);

	if (ret)
		return ret;
	if (!parent)
		return rfm__error(RFM_EINVAL, "%s: %s is NULL", what, arg);
	const char *dot = dotted ? strchr(parent, '.') : NULL;
	size_t len = dot ? (size_t)(dot - parent) : strlen(parent);
	long r = rfm__layout_find_region(layout, parent, len);
	if (r < 0)
		return rfm__error(RFM_ENOTFOUND, "%s: no region '%.*s' in %s", what, (int)len,
				  parent, layout->name);
	return r;
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
				LAY_REGION_SPEC_SIZE_1_0, "rfm_layout_add_region");

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
	long r = check_child(layout, spec, spec ? spec->struct_size : 0, LAY_RECORD_SPEC_SIZE_1_0,
			     "rfm_layout_add_record", "region", region, false);
	int ret;

	if (r < 0)
		return (int)r;
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
	long r = check_child(layout, spec, spec ? spec->struct_size : 0, LAY_VAR_SPEC_SIZE_1_0,
			     "rfm_layout_add_var", "parent", parent, true);
	int ret;

	if (r < 0)
		return (int)r;
	if (strchr(parent, '.')) {
		long rec = rfm__layout_find_record(layout, parent, strlen(parent));
		if (rec < 0)
			return rfm__error(RFM_ENOTFOUND, "rfm_layout_add_var: no record '%s' in %s",
					  parent, layout->name);
		record = (uint32_t)rec;
	}
	COPY_SPEC(s, spec);
	if (s.digits > RFM_VAR_MAX_DIGITS)
		return rfm__error(RFM_EINVAL, "rfm_layout_add_var: digits %u is over %d",
				  s.digits, RFM_VAR_MAX_DIGITS);
	ret = rfm__layout_push_var(layout, (uint32_t)r, record, &s, NULL);
	return ret < 0 ? rfm__error(ret, "rfm_layout_add_var: out of memory") : 0;
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
	return rfm__layout_validate(layout, diags, diagsp);
}

RFM_API int rfm_layout_add_ring(rfm_layout *layout, const char *region,
				const struct rfm_ring_config *config)
{
	long index;

	if (!config)
		return rfm__error(RFM_EINVAL, "rfm_layout_add_ring: config is NULL");
	index = check_child(layout, config, config->struct_size,
			    offsetof(struct rfm_ring_config, consumer_nodes), "rfm_layout_add_ring",
			    "region", region, false);
	if (index < 0)
		return (int)index;
	if (layout->regions[index].has_ring)
		return rfm__error(RFM_EBUSY, "rfm_layout_add_ring: region '%s' already holds a ring",
				  region);
	rfm__layout_set_ring(layout, (uint32_t)index, config, (struct lay_pos){ 0, 0 });
	return 0;
}
