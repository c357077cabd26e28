/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings declared in a layout: a region holds a ring of a given shape
 * (slots, slot size, entries per node, notify, back-pressure), its size
 * computed from that shape or checked against it, and its consumer table
 * only as large as the layout's node ids (`nodes:`), which the ring's
 * format 3 allows (ring.h). rfm_ring_create_region() creates the declared
 * ring; readers find its shape with rfm_layout_region_ring().
 */
#include "config.h"

#include <string.h>

#include "layout-internal.h"

#define HEX(x) ((unsigned long long)(x))

void rfm__layout_set_ring(rfm_layout *layout, uint32_t region, const struct rfm_ring_config *config,
			  struct lay_pos pos)
{
	struct lay_region *r = &layout->regions[region];
	size_t have = config->struct_size < sizeof(r->ring) ? config->struct_size : sizeof(r->ring);

	memset(&r->ring, 0, sizeof(r->ring));
	memcpy(&r->ring, config, have);
	r->ring.struct_size = sizeof(r->ring);
	r->has_ring = true;
	r->pos_ring = pos;
}

/* Does region @index hold variables or records? (A ring fills its region.) */
static bool has_contents(const rfm_layout *layout, uint32_t index)
{
	for (size_t i = 0; i < layout->nvars; i++)
		if (layout->vars[i].region == index)
			return true;
	for (size_t i = 0; i < layout->nrecords; i++)
		if (layout->records[i].region == index)
			return true;
	return false;
}

static void check_ring(rfm_layout *layout, struct rfm_diag_list *diags, uint32_t index)
{
	struct lay_region *r = &layout->regions[index];
	struct lay_pos at = r->pos_ring.line ? r->pos_ring : r->pos;
	uint64_t need;

	/* Rows for the layout's node ids only: 0 asks for all 256 (format 2). */
	r->ring.consumer_nodes = layout->max_nodes < RFM_MAX_NODES ? layout->max_nodes : 0;
	if (rfm_ring_footprint(&r->ring, &need)) {
		/* "ring: ..." from the library, as the ring's own check words it. */
		rfm__diag(diags, at, RFM_ELAYOUT, "region '%s': %s", r->name, rfm_last_error());
		r->has_ring = false;
		return;
	}
	if (r->offset % 64)
		rfm__diag(diags, r->pos_offset.line ? r->pos_offset : r->pos, RFM_ELAYOUT,
			  "region '%s' holds a ring: its offset 0x%llx must be a multiple of 64",
			  r->name, HEX(r->offset));
	if (has_contents(layout, index))
		rfm__diag(diags, at, RFM_ELAYOUT,
			  "region '%s' holds a ring, which fills it: move its variables and "
			  "records to a region of their own",
			  r->name);
	if (!r->size) {
		r->size = need;	/* no size given: the ring's */
		return;
	}
	if (r->size < need)
		rfm__diag(diags, r->pos_size.line ? r->pos_size : r->pos, RFM_ELAYOUT,
			  "region '%s' has %llu bytes; its ring (%u slots of %u bytes, %u consumer "
			  "entr%s for each of node ids 0..%u) needs %llu: make it that large, or "
			  "leave size out to have it computed",
			  r->name, HEX(r->size), r->ring.slot_count, r->ring.slot_size,
			  r->ring.max_consumers ? r->ring.max_consumers : RFM_RING_CONSUMERS_DEFAULT,
			  (r->ring.max_consumers ? r->ring.max_consumers
						 : RFM_RING_CONSUMERS_DEFAULT) == 1 ? "y" : "ies",
			  (r->ring.consumer_nodes ? r->ring.consumer_nodes : RFM_MAX_NODES) - 1,
			  HEX(need));
}

void rfm__layout_check_rings(rfm_layout *layout, struct rfm_diag_list *diags)
{
	for (size_t i = 0; i < layout->nregions; i++)
		if (layout->regions[i].has_ring)
			check_ring(layout, diags, (uint32_t)i);
}

RFM_API int rfm_layout_region_ring(const rfm_layout *layout, size_t index,
				   struct rfm_ring_config *config)
{
	const struct lay_region *r;
	size_t want;

	if (!layout || !config || config->struct_size < offsetof(struct rfm_ring_config,
								  consumer_nodes))
		return rfm__error(RFM_EINVAL, "rfm_layout_region_ring: NULL argument or struct_size");
	if (!layout->finished || index >= layout->nregions)
		return rfm__error(RFM_EINVAL, "rfm_layout_region_ring: no region %zu in %s", index,
				  layout->name);
	r = &layout->regions[index];
	if (!r->has_ring)
		return rfm__error(RFM_ENOTFOUND, "region '%s' of %s declares no ring", r->name,
				  layout->name);
	want = config->struct_size < sizeof(r->ring) ? config->struct_size : sizeof(r->ring);
	memcpy(config, &r->ring, want);
	config->struct_size = (uint32_t)want;
	return 0;
}
