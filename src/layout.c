/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Layout objects: creation, the internal builder that the public one
 * (layout-builder.c) and the YAML loader (layout-yaml.c) both fill,
 * validation, lookups by name (layout-index.c's tables) and reference
 * counting. Loading is layout-load.c's, description layout-info.c's.
 *
 * The builder stores what it is given without judging it; the validator
 * (layout-check.c) judges everything at once so that every problem is
 * reported in one pass, at its position.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "layout-internal.h"

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

/* The next slot of one of the layout's growing arrays, zeroed; NULL: no memory. */
static void *next_slot(void *arrayp, size_t *cap, size_t count, size_t size)
{
	if (rfm__grow(arrayp, cap, count, size))
		return NULL;
	return memset((char *)*(void **)arrayp + count * size, 0, size);
}

int rfm__layout_push_region(rfm_layout *layout, const struct rfm_region_spec *spec,
			    const struct lay_pos pos[4])
{
	struct lay_region *r;

	if (!pos)
		pos = no_pos;
	r = next_slot(&layout->regions, &layout->cap_regions, layout->nregions, sizeof(*r));
	if (!r)
		return RFM_ENOMEM;
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
	if (rfm__lay_names_add(layout, LAY_NAME_REGION, layout->nregions)) {
		free(r->name);
		free(r->description);
		return RFM_ENOMEM;
	}
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
	r = next_slot(&layout->records, &layout->cap_records, layout->nrecords, sizeof(*r));
	if (!r)
		return RFM_ENOMEM;
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
	r->stale_after_ms = spec->stale_after_ms;
	r->pos = pos[0];
	r->pos_offset = pos[1];
	r->pos_size = pos[2];
	if (push_item(layout, LAY_ITEM_RECORD, layout->nrecords))
		goto nomem;
	if (rfm__lay_names_add(layout, LAY_NAME_RECORD, layout->nrecords)) {
		layout->nitems--;
		goto nomem;
	}
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
	v = next_slot(&layout->vars, &layout->cap_vars, layout->nvars, sizeof(*v));
	if (!v)
		return RFM_ENOMEM;
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
	v->digits = spec->digits;
	v->stale_after_ms = spec->stale_after_ms;
	v->pos = pos[0];
	v->pos_type = pos[1];
	v->pos_count = pos[2];
	v->pos_offset = pos[3];
	v->pos_min = pos[4];
	v->pos_max = pos[5];
	/* Record members are placed inside their record, not in the region's order. */
	if (record == LAY_NO_RECORD && push_item(layout, LAY_ITEM_VAR, layout->nvars))
		goto nomem;
	if (rfm__lay_names_add(layout, LAY_NAME_VAR, layout->nvars)) {
		if (record == LAY_NO_RECORD)
			layout->nitems--;
		goto nomem;
	}
	return (int)layout->nvars++;
nomem:
	free(v->name);
	free(v->full);
	free(v->unit);
	free(v->description);
	return RFM_ENOMEM;
}

void rfm__lay_handle_init(struct lay_handle *lh, rfm_layout *layout, size_t index,
			  uint32_t region, const rfm_node *node)
{
	__atomic_add_fetch(&layout->refs, 1, __ATOMIC_RELAXED);
	lh->layout = layout;
	lh->index = index;
	lh->max_tries = RFM_RECORD_DEFAULT_TRIES;
	lh->foreign = node && (uint32_t)node->id != layout->regions[region].writer;
	lh->enforce_owner = true;
	lh->observer = node && node->observer;
}

void rfm__lay_handle_release(struct lay_handle *lh)
{
	rfm__layout_unref(lh->layout);
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
	rfm__lay_names_free(layout);
	free(layout->name);
	free(layout->source);
	free(layout->text);
	free(layout);
}

long rfm__layout_find_var(const rfm_layout *layout, const char *full, size_t len)
{
	return rfm__lay_names_find(layout, LAY_NAME_VAR, full, len);
}

long rfm__layout_find_record(const rfm_layout *layout, const char *full, size_t len)
{
	return rfm__lay_names_find(layout, LAY_NAME_RECORD, full, len);
}

long rfm__layout_find_region(const rfm_layout *layout, const char *name, size_t len)
{
	return rfm__lay_names_find(layout, LAY_NAME_REGION, name, len);
}

int rfm__layout_validate(rfm_layout *layout, struct rfm_diag_list *diags, rfm_diag_list **diagsp)
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

RFM_API void rfm_layout_free(rfm_layout *layout)
{
	rfm__layout_unref(layout);
}
