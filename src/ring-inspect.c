/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings seen from outside, for monitors: the header as a consumer checks
 * it, the head, and each registered consumer's entry. Only reads: a
 * monitor on any node may look at any ring without a table entry of its
 * own, and never disturbs the producer or the consumers.
 */
#include "config.h"

#include <string.h>

#include "ring-internal.h"

/* The view of the entry in lane @lane of node @n; false: not a held entry. */
static bool view_of(rfm_node *node, uint8_t *table, const struct ring_geom *g, uint64_t head,
		    uint32_t n, uint32_t lane, struct rfm_ring_consumer_view *v)
{
	const struct ring_entry *e = rfm__ring_entry(table, g, n, lane);
	uint32_t flags;

	if (rfm__wload32(&e->owner, __ATOMIC_ACQUIRE) != n + 1)
		return false; /* being claimed, or scribbled over */
	flags = rfm__wload32(&e->flags, __ATOMIC_RELAXED) & RFM_RING_CONSUMER_BACKPRESSURE;
	*v = (struct rfm_ring_consumer_view){
		.node = n,
		.pid = rfm__wloadi32(&e->pid, __ATOMIC_RELAXED),
		.cursor = rfm__wload64(&e->cursor, __ATOMIC_ACQUIRE),
		.laps = rfm__wload32(&e->laps, __ATOMIC_RELAXED),
		.entry = lane,
	};
	v->lag = head > v->cursor ? head - v->cursor : 0;
	if (rfm__wload32(&e->sleep, __ATOMIC_RELAXED))
		flags |= RFM_RING_VIEW_SLEEPING;
	if (!rfm__ring_entry_alive(node, n, e))
		flags |= RFM_RING_VIEW_DEAD;
	else if ((flags & RFM_RING_CONSUMER_BACKPRESSURE) && (g->flags & RFM_RING_F_BACKPRESSURE) &&
		 v->lag >= g->slot_count)
		flags |= RFM_RING_VIEW_HOLDING;
	v->flags = flags;
	return true;
}

static int inspect_at(rfm_node *node, uint64_t offset, struct rfm_ring_info *info,
		      struct rfm_ring_consumer_view *views, size_t cap, size_t *count)
{
	struct ring_geom g;
	uint32_t stride = 0;
	size_t found = 0;
	int ret;

	if (!node || (info && info->struct_size < 8) || (cap && !views))
		return rfm__error(RFM_EINVAL, "rfm_ring_inspect: NULL argument or struct_size");
	if (cap) {
		stride = views[0].struct_size;
		if (stride < 8 || stride % 8)
			return rfm__error(RFM_EINVAL,
					  "rfm_ring_inspect: views[0].struct_size %u is not a "
					  "multiple of 8 from 8",
					  stride);
	}
	ret = rfm__ring_validate(node, offset, &g);
	if (ret)
		return ret;
	struct ring_header *h = (struct ring_header *)(node->base + offset);
	uint8_t *table = node->base + offset + g.table_offset;
	uint64_t head = rfm__wload64(&h->head, __ATOMIC_ACQUIRE);

	if (info)
		rfm__ring_fill_info(&g, offset, head, info);
	for (uint32_t n = 0; n < g.consumer_nodes; n++) {
		uint32_t bits = rfm__wload32(rfm__ring_dir(table, n), __ATOMIC_ACQUIRE);

		for (uint32_t lane = 0; lane < g.max_consumers; lane++) {
			struct rfm_ring_consumer_view v;

			if (!(bits & (1u << lane)) || !view_of(node, table, &g, head, n, lane, &v))
				continue;
			if (found < cap) {
				uint8_t *to = (uint8_t *)views + found * stride;

				v.struct_size = stride < sizeof(v) ? stride : (uint32_t)sizeof(v);
				memcpy(to, &v, v.struct_size);
			}
			found++;
		}
	}
	if (count)
		*count = found;
	return 0;
}

RFM_API int rfm_ring_inspect(rfm_node *node, uint64_t offset, struct rfm_ring_info *info,
			     struct rfm_ring_consumer_view *views, size_t cap, size_t *count)
{
	return inspect_at(node, offset, info, views, cap, count);
}

RFM_API int rfm_ring_inspect_region(rfm_node *node, const rfm_layout *layout, const char *region,
				    struct rfm_ring_info *info, struct rfm_ring_consumer_view *views,
				    size_t cap, size_t *count)
{
	uint64_t offset, size;
	int ret = rfm__ring_region(node, layout, region, false, &offset, &size);

	return ret ? ret : inspect_at(node, offset, info, views, cap, count);
}
