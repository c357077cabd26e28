/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Validation and placement of a layout, in one pass that reports every
 * problem: names, types, counts, limits, writers, automatic offsets,
 * alignment, bounds, overlaps and duplicates.
 *
 * Placement: an item without an offset goes to the first naturally
 * aligned offset after the end of the item declared before it in the
 * same region (or record). Alignment is that of the absolute window
 * offset, so a region need not start aligned for its variables to be.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/health.h>

#include "layout-internal.h"

#define HEX(x) ((unsigned long long)(x))

/* One laid-out range, for overlap and duplicate checks. */
struct span {
	uint64_t start, end;
	const char *name;
	const char *kind;
	struct lay_pos pos;
	size_t decl;		/* declaration order, to report at the later item */
};

static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->decl < y->decl ? -1 : x->decl > y->decl;
}

static int by_name(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->decl < y->decl ? -1 : x->decl > y->decl;
}

/* Report every span that starts before an earlier-starting span ends. */
static void check_overlaps(struct rfm_diag_list *diags, struct span *spans, size_t n,
			   const char *where)
{
	const struct span *widest = NULL;

	qsort(spans, n, sizeof(*spans), by_start);
	for (size_t i = 0; i < n; i++) {
		const struct span *s = &spans[i];

		if (s->end == s->start)
			continue;
		if (widest && s->start < widest->end) {
			const struct span *later = s->decl > widest->decl ? s : widest;
			const struct span *earlier = later == s ? widest : s;
			rfm__diag(diags, later->pos, RFM_ELAYOUT,
				  "%s '%s' [0x%llx, 0x%llx) overlaps %s '%s' [0x%llx, 0x%llx)%s",
				  later->kind, later->name, HEX(later->start), HEX(later->end),
				  earlier->kind, earlier->name, HEX(earlier->start),
				  HEX(earlier->end), where);
		}
		if (!widest || s->end > widest->end)
			widest = s;
	}
}

static void check_duplicates(struct rfm_diag_list *diags, struct span *spans, size_t n)
{
	qsort(spans, n, sizeof(*spans), by_name);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(spans[i].name, spans[i - 1].name))
			rfm__diag(diags, spans[i].pos, RFM_ELAYOUT,
				  "duplicate name '%s': already used by a %s declared before",
				  spans[i].name, spans[i - 1].kind);
}

static uint64_t align_up(uint64_t value, uint64_t align)
{
	uint64_t rem = value % align;

	return rem ? value + (align - rem) : value;
}

static unsigned int var_align(int type)
{
	return rfm__type_is_numeric(type) ? rfm__type_size(type) : 1;
}

/* Does [off, off+size) fit in [0, limit)? Overflow-safe. */
static bool fits(uint64_t off, uint64_t size, uint64_t limit)
{
	return size <= limit && off <= limit - size;
}

static void check_name(struct rfm_diag_list *diags, struct lay_pos pos, const char *kind,
		       const char *name, const char *context)
{
	if (!name[0])
		rfm__diag(diags, pos, RFM_ELAYOUT, "%s%s has no name", kind, context);
	else if (!rfm__valid_name(name))
		rfm__diag(diags, pos, RFM_ELAYOUT,
			  "%s name '%s'%s is not an identifier: 1-%d characters of A-Z a-z 0-9 _, "
			  "starting with a letter",
			  kind, name, context, LAY_NAME_MAX);
}

static void check_order(struct rfm_diag_list *diags, struct lay_pos pos, const char *name,
			uint32_t order)
{
	if (order != RFM_ORDER_LITTLE && order != RFM_ORDER_BIG)
		rfm__diag(diags, pos, RFM_ELAYOUT, "'%s': byte order %u is neither little (0) nor big (1)",
			  name, order);
}

/* Checks of a variable that do not depend on where it is placed. */
static bool check_var_alone(struct rfm_diag_list *diags, const struct lay_var *v)
{
	unsigned int esize = rfm__type_size(v->type);

	check_name(diags, v->pos, "variable", v->name, "");
	check_order(diags, v->pos, v->full, v->byte_order);
	if (!esize) {
		rfm__diag(diags, v->pos_type, RFM_ELAYOUT,
			  "'%s': unknown type %d (expected u8, u16, u32, u64, i8, i16, i32, i64, "
			  "f32, f64, bool, string or bytes)",
			  v->full, v->type);
		return false;
	}
	if (v->count == 0)
		rfm__diag(diags, v->pos_count, RFM_ELAYOUT, "'%s': count must be at least 1",
			  v->full);
	const struct lay_range *r = &v->range;

	if ((r->has_min || r->has_max) && !rfm__type_is_numeric(v->type)) {
		rfm__diag(diags, r->has_min ? v->pos_min : v->pos_max, RFM_ELAYOUT,
			  "'%s': min and max apply to numbers, not to %s", v->full,
			  rfm_type_name(v->type));
		return true;
	}
	double lo, hi;
	rfm__type_range(v->type, &lo, &hi);
	if (r->has_min && (isnan(r->min) || r->min < lo || r->min > hi))
		rfm__diag(diags, v->pos_min, RFM_ELAYOUT, "'%s': min %g is not a %s value",
			  v->full, r->min, rfm_type_name(v->type));
	if (r->has_max && (isnan(r->max) || r->max < lo || r->max > hi))
		rfm__diag(diags, v->pos_max, RFM_ELAYOUT, "'%s': max %g is not a %s value",
			  v->full, r->max, rfm_type_name(v->type));
	if (r->has_min && r->has_max && r->min > r->max)
		rfm__diag(diags, v->pos_max, RFM_ELAYOUT, "'%s': max %g is below min %g", v->full,
			  r->max, r->min);
	return true;
}

/*
 * Place @v at or after *cursor (relative to @base, an absolute offset used
 * for alignment) inside a container of @limit bytes; return its span.
 */
static void place_var(struct rfm_diag_list *diags, struct lay_var *v, uint64_t base,
		      uint64_t limit, const char *container, uint64_t *cursor, bool *overflowed,
		      struct span *span)
{
	unsigned int esize = rfm__type_size(v->type);
	unsigned int align = var_align(v->type);
	uint64_t size = (uint64_t)v->count * esize;
	bool automatic = v->offset == RFM_OFFSET_AUTO;

	if (automatic) {
		v->offset = align_up(base + *cursor, align) - base;
	} else if ((base + v->offset) % align) {
		rfm__diag(diags, v->pos_offset, RFM_ELAYOUT,
			  "'%s': offset 0x%llx (window 0x%llx) is not a multiple of %u, "
			  "the size of a %s",
			  v->full, HEX(v->offset), HEX(base + v->offset), align,
			  rfm_type_name(v->type));
	}
	/*
	 * After one item overflows its container, automatically placed items
	 * behind it overflow too: report the cause, not every consequence.
	 */
	if (!fits(v->offset, size, limit) && !(automatic && *overflowed)) {
		rfm__diag(diags, automatic ? v->pos : v->pos_offset, RFM_ELAYOUT,
			  "'%s': %llu bytes at offset 0x%llx do not fit in the %llu bytes of %s",
			  v->full, HEX(size), HEX(v->offset), HEX(limit), container);
		*overflowed = true;
	}
	*cursor = v->offset + size < v->offset ? UINT64_MAX : v->offset + size;
	span->start = v->offset;
	span->end = *cursor;
	span->name = v->full;
	span->kind = "variable";
	span->pos = v->pos;
}

/*
 * The children of each region and record, so that placement is linear in
 * the layout's size instead of visiting every item once per region and
 * every variable once per record (20000 regions took seconds that way).
 */
struct placement {
	struct lay_groups region_items;	/* items (declaration order) per region */
	struct lay_groups record_vars;	/* variables per record */
	struct lay_groups region_vars;	/* variables per region */
};

static bool placement_build(rfm_layout *layout, struct placement *p)
{
	size_t n = layout->nitems > layout->nvars ? layout->nitems : layout->nvars;
	uint32_t *owner = malloc((n ? n : 1) * sizeof(*owner));
	bool ok = owner != NULL;

	for (size_t i = 0; ok && i < layout->nitems; i++) {
		const struct lay_item *it = &layout->items[i];
		owner[i] = it->kind == LAY_ITEM_VAR ? layout->vars[it->index].region
						    : layout->records[it->index].region;
	}
	ok = ok && rfm__lay_groups_build(&p->region_items, layout->nregions, owner, layout->nitems);
	for (size_t i = 0; ok && i < layout->nvars; i++)
		owner[i] = layout->vars[i].record;
	ok = ok && rfm__lay_groups_build(&p->record_vars, layout->nrecords, owner, layout->nvars);
	for (size_t i = 0; ok && i < layout->nvars; i++)
		owner[i] = layout->vars[i].region;
	ok = ok && rfm__lay_groups_build(&p->region_vars, layout->nregions, owner, layout->nvars);
	free(owner);
	return ok;
}

static void placement_free(struct placement *p)
{
	rfm__lay_groups_free(&p->region_items);
	rfm__lay_groups_free(&p->record_vars);
	rfm__lay_groups_free(&p->region_vars);
}

static void place_record_members(rfm_layout *layout, struct rfm_diag_list *diags,
				 struct lay_record *rec, size_t rindex, struct span *spans,
				 const struct placement *pl)
{
	uint64_t cursor = 0, end = 0;
	uint64_t limit = rec->size_wanted ? rec->size_wanted : UINT64_MAX;
	bool overflowed = false;
	uint64_t base = rec->abs + LAY_RECORD_HEADER;
	size_t n = 0;
	char container[96];

	snprintf(container, sizeof(container), "record %s", rec->full);
	LAY_GROUP_FOR(&pl->record_vars, rindex, i) {
		struct lay_var *v = &layout->vars[i];

		if (!check_var_alone(diags, v))
			continue;
		place_var(diags, v, base, limit, container, &cursor, &overflowed, &spans[n]);
		spans[n].decl = i;
		if (spans[n].end > end)
			end = spans[n].end;
		n++;
	}
	if (rec->size_wanted)
		rec->data_size = rec->size_wanted;
	else if (n)
		rec->data_size = align_up(end, LAY_RECORD_ALIGN);
	else
		rfm__diag(diags, rec->pos, RFM_ELAYOUT,
			  "record '%s' has no variables and no size", rec->full);
	check_overlaps(diags, spans, n, "");
}

/*
 * Place record @index of region @r after *@cursor (its offset when it
 * asks for one) and check it fits; its span into @span, the cursor after
 * it. *@overflowed: the region overflowed already (an automatic offset
 * past it is not reported again).
 */
static void place_region_record(rfm_layout *layout, struct rfm_diag_list *diags,
				struct lay_region *r, uint32_t index, const char *container,
				struct span *member_spans, const struct placement *pl,
				uint64_t *cursor, bool *overflowed, struct span *span)
{
	struct lay_record *rec = &layout->records[index];
	bool rec_auto = rec->offset == RFM_OFFSET_AUTO;
	uint64_t size;

	check_name(diags, rec->pos, "record", rec->name, "");
	check_order(diags, rec->pos, rec->full, rec->byte_order);
	if (rec_auto)
		rec->offset = align_up(r->offset + *cursor, LAY_RECORD_ALIGN) - r->offset;
	else if ((r->offset + rec->offset) % LAY_RECORD_ALIGN)
		rfm__diag(diags, rec->pos_offset, RFM_ELAYOUT,
			  "record '%s': offset 0x%llx (window 0x%llx) is not a multiple of %u",
			  rec->full, HEX(rec->offset), HEX(r->offset + rec->offset),
			  LAY_RECORD_ALIGN);
	rec->abs = r->offset + rec->offset;
	place_record_members(layout, diags, rec, index, member_spans, pl);
	size = LAY_RECORD_HEADER + rec->data_size; /* known once its members are placed */
	if (!fits(rec->offset, size, r->size) && !(rec_auto && *overflowed) &&
	    (*overflowed = true))
		rfm__diag(diags, rec->pos_offset.line ? rec->pos_offset : rec->pos, RFM_ELAYOUT,
			  "record '%s': %llu bytes at offset 0x%llx do not fit in the %llu "
			  "bytes of %s",
			  rec->full, HEX(size), HEX(rec->offset), HEX(r->size), container);
	*cursor = rec->offset + size < rec->offset ? UINT64_MAX : rec->offset + size;
	span->start = rec->offset;
	span->end = *cursor;
	span->name = rec->full;
	span->kind = "record";
	span->pos = rec->pos;
}

static void place_region(rfm_layout *layout, struct rfm_diag_list *diags, size_t rindex,
			 struct span *spans, struct span *member_spans, const struct placement *pl)
{
	struct lay_region *r = &layout->regions[rindex];
	uint64_t cursor = 0;
	bool overflowed = false;
	size_t n = 0;
	char container[96];

	snprintf(container, sizeof(container), "region %s", r->name);
	LAY_GROUP_FOR(&pl->region_items, rindex, i) {
		const struct lay_item *it = &layout->items[i];

		if (it->kind == LAY_ITEM_VAR) {
			struct lay_var *v = &layout->vars[it->index];
			if (!check_var_alone(diags, v))
				continue;
			place_var(diags, v, r->offset, r->size, container, &cursor, &overflowed,
				  &spans[n]);
			spans[n].decl = i;
			n++;
			continue;
		}
		place_region_record(layout, diags, r, it->index, container, member_spans, pl,
				    &cursor, &overflowed, &spans[n]);
		spans[n].decl = i;
		n++;
	}
	check_overlaps(diags, spans, n, "");
	/* Window offsets, now that every relative offset is known. */
	LAY_GROUP_FOR(&pl->region_vars, rindex, i) {
		struct lay_var *v = &layout->vars[i];
		if (v->offset == RFM_OFFSET_AUTO)
			continue;
		v->abs = v->record == LAY_NO_RECORD
				 ? r->offset + v->offset
				 : layout->records[v->record].abs + LAY_RECORD_HEADER + v->offset;
	}
}

/*
 * The heartbeat table (health.h) is in the window too: by default its last
 * RFM_HEALTH_TABLE_SIZE bytes. A layout either keeps out of them or
 * declares the table as a region named RFM_HEALTH_REGION_NAME (anywhere,
 * with nodes opened with heartbeat=OFFSET), big enough and slot-aligned.
 */
static void check_heartbeat_table(rfm_layout *layout, struct rfm_diag_list *diags)
{
	uint64_t w = layout->window_size;
	uint64_t start = w - RFM_HEALTH_TABLE_SIZE;

	if (w < RFM_HEALTH_TABLE_SIZE)
		return; /* no room for a table: health refuses such windows */
	for (size_t i = 0; i < layout->nregions; i++) {
		const struct lay_region *r = &layout->regions[i];

		if (strcmp(r->name, RFM_HEALTH_REGION_NAME))
			continue;
		if (r->size < RFM_HEALTH_TABLE_SIZE || r->offset % RFM_HEALTH_SLOT_SIZE)
			rfm__diag(diags, r->pos, RFM_ELAYOUT,
				  "region '%s' holds the heartbeat table: it needs %u bytes at a "
				  "multiple of %u (it has 0x%llx bytes at 0x%llx)",
				  r->name, RFM_HEALTH_TABLE_SIZE, RFM_HEALTH_SLOT_SIZE, HEX(r->size),
				  HEX(r->offset));
		return;
	}
	for (size_t i = 0; i < layout->nregions; i++) {
		const struct lay_region *r = &layout->regions[i];

		if (r->size && fits(r->offset, r->size, w) && r->offset + r->size > start) {
			/* One problem: the first region in the way says what to do. */
			rfm__diag(diags, r->pos_offset.line ? r->pos_offset : r->pos, RFM_ELAYOUT,
				  "region '%s' [0x%llx, 0x%llx) overlaps the heartbeat table, the "
				  "window's last %u bytes [0x%llx, 0x%llx): end it before 0x%llx, or "
				  "declare the table as a region named '%s' (and open nodes with "
				  "heartbeat=OFFSET)",
				  r->name, HEX(r->offset), HEX(r->offset + r->size),
				  RFM_HEALTH_TABLE_SIZE, HEX(start), HEX(w), HEX(start),
				  RFM_HEALTH_REGION_NAME);
			return;
		}
	}
}

/* Region @i's name, writer and bounds; its span into @span. */
static void check_region(const rfm_layout *layout, struct rfm_diag_list *diags, size_t i,
			 struct span *span)
{
	const struct lay_region *r = &layout->regions[i];

	check_name(diags, r->pos, "region", r->name, "");
	if (r->writer >= layout->max_nodes)
		rfm__diag(diags, r->pos_writer, RFM_ELAYOUT,
			  "region '%s': writer node %u is out of range 0..%u", r->name, r->writer,
			  layout->max_nodes - 1);
	if (r->size == 0)
		rfm__diag(diags, r->pos_size, RFM_ELAYOUT, "region '%s': size is 0", r->name);
	else if (!fits(r->offset, r->size, layout->window_size))
		rfm__diag(diags, r->pos_offset.line ? r->pos_offset : r->pos, RFM_ELAYOUT,
			  "region '%s' [0x%llx, +0x%llx) goes past the end of the "
			  "0x%llx-byte window",
			  r->name, HEX(r->offset), HEX(r->size), HEX(layout->window_size));
	span->start = r->offset;
	span->end = fits(r->offset, r->size, UINT64_MAX) ? r->offset + r->size : UINT64_MAX;
	span->name = r->name;
	span->kind = "region";
	span->pos = r->pos;
	span->decl = i;
}

/* Names of variables and records, in one namespace per parent. */
static void check_member_names(const rfm_layout *layout, struct rfm_diag_list *diags,
			       struct span *spans)
{
	size_t n = 0;

	for (size_t i = 0; i < layout->nrecords; i++, n++)
		spans[n] = (struct span){ .name = layout->records[i].full, .kind = "record",
					  .pos = layout->records[i].pos };
	for (size_t i = 0; i < layout->nvars; i++, n++)
		spans[n] = (struct span){ .name = layout->vars[i].full, .kind = "variable",
					  .pos = layout->vars[i].pos };
	/* Report at the later position: order by position, not by array. */
	for (size_t i = 0; i < n; i++)
		spans[i].decl = ((size_t)spans[i].pos.line << 20) + spans[i].pos.column;
	check_duplicates(diags, spans, n);
}

void rfm__layout_check(rfm_layout *layout, struct rfm_diag_list *diags)
{
	size_t nspans = layout->nregions + layout->nrecords + layout->nvars + 1;
	struct span *spans = calloc(nspans, sizeof(*spans));
	struct span *members = calloc(nspans, sizeof(*members));
	struct placement pl;

	memset(&pl, 0, sizeof(pl));
	if (!spans || !members || !placement_build(layout, &pl)) {
		diags->out_of_memory = true;
		goto out;
	}
	if (layout->window_size == 0)
		rfm__diag(diags, layout->pos_window, RFM_ELAYOUT, "the window size must not be 0");
	if (!rfm__valid_name(layout->name))
		rfm__diag(diags, (struct lay_pos){ 0, 0 }, RFM_ELAYOUT,
			  "layout name '%s' is not an identifier", layout->name);

	/* Rings first: a ring region's size may be the ring's footprint. */
	rfm__layout_check_rings(layout, diags);
	/* Regions: names, writers, bounds, then overlaps among them. */
	for (size_t i = 0; i < layout->nregions; i++)
		check_region(layout, diags, i, &spans[i]);
	check_duplicates(diags, spans, layout->nregions);
	check_overlaps(diags, spans, layout->nregions, "");
	check_heartbeat_table(layout, diags);

	/* Placement and checks of each region's contents. */
	for (size_t i = 0; i < layout->nregions; i++)
		place_region(layout, diags, i, spans, members, &pl);

	check_member_names(layout, diags, spans);
out:
	placement_free(&pl);
	free(spans);
	free(members);
}
