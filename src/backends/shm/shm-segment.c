/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Layout and validation of the emulated network's shared segment. */
#include "config.h"

#include <string.h>

#include "backend.h"
#include "os/clock.h"
#include "backends/shm/shm-segment.h"

static uint64_t round_up_page(uint64_t v)
{
	return (v + RFM_SHM_PAGE - 1) & ~(uint64_t)(RFM_SHM_PAGE - 1);
}

void rfm__shm_layout(uint64_t window_size, uint32_t queue_depth, struct rfm_shm_layout *layout)
{
	layout->node_table_offset = RFM_SHM_PAGE;
	layout->window_offset = round_up_page(layout->node_table_offset +
					      RFM_MAX_NODES * sizeof(struct rfm_shm_node_entry));
	layout->event_offset = layout->window_offset + window_size;
	/* Page-aligned slabs: the file grows by one when a receiver needs it. */
	layout->queue_stride = (uint32_t)round_up_page(RFM_SHM_QUEUE_HEADER +
						       (uint64_t)queue_depth *
							       sizeof(struct rfm_shm_slot));
	layout->event_size = (uint64_t)RFM_SHM_QUEUE_COUNT * layout->queue_stride;
	layout->segment_size = layout->event_offset + layout->event_size;
}

static bool valid_depth(uint64_t depth)
{
	return depth >= RFM_SHM_DEPTH_MIN && depth <= RFM_SHM_DEPTH_MAX && !(depth & (depth - 1));
}

int rfm__shm_check_depth(const char *uri, uint64_t depth)
{
	if (!valid_depth(depth))
		return rfm__error(RFM_EURI,
				  "%s: event queue depth %llu must be a power of two between %u and %u",
				  uri, (unsigned long long)depth, RFM_SHM_DEPTH_MIN, RFM_SHM_DEPTH_MAX);
	return 0;
}

int rfm__shm_check_window_size(const char *uri, uint64_t size)
{
	if (size < RFM_SHM_MIN_WINDOW || size > RFM_SHM_MAX_WINDOW || size % RFM_SHM_PAGE)
		return rfm__error(RFM_ESIZE,
				  "%s: window size %llu must be a multiple of %u between %u and 2^40",
				  uri, (unsigned long long)size, RFM_SHM_PAGE, RFM_SHM_MIN_WINDOW);
	return 0;
}

void rfm__shm_header_init(struct rfm_shm_header *h, uint64_t window_size, uint32_t queue_depth,
			  uint32_t huge_page_kib)
{
	struct rfm_shm_layout layout;

	rfm__shm_layout(window_size, queue_depth, &layout);
	h->version = huge_page_kib ? RFM_SHM_VERSION_HUGE : RFM_SHM_VERSION;
	h->huge_page_kib = huge_page_kib;
	h->header_size = sizeof(*h);
	h->segment_size = layout.segment_size;
	h->window_offset = layout.window_offset;
	h->window_size = window_size;
	h->node_table_offset = layout.node_table_offset;
	h->node_count = RFM_MAX_NODES;
	h->node_entry_size = sizeof(struct rfm_shm_node_entry);
	h->created_ns = rfm__os_realtime_ns();
	h->event_offset = layout.event_offset;
	h->event_size = layout.event_size;
	h->queue_depth = queue_depth;
	h->queues_per_node = RFM_SHM_QUEUES_PER_NODE;
	h->queue_stride = layout.queue_stride;
}

#define HOST_LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

int rfm__shm_header_validate(const char *uri, const struct rfm_shm_header *h,
			     uint64_t file_size)
{
	struct rfm_shm_layout layout;

	if (h->magic == __builtin_bswap64(RFM_SHM_MAGIC))
		return rfm__error(RFM_EVERSION,
				  "%s: the segment was made by a %s-endian program and this one is "
				  "%s-endian (a file copied from another machine, or a program under "
				  "qemu-user): an shm: network's control words are in its host's byte "
				  "order, so only programs of one byte order share it; join hosts of "
				  "both orders over dds:",
				  uri, HOST_LITTLE ? "big" : "little", HOST_LITTLE ? "little" : "big");
	if (h->magic != RFM_SHM_MAGIC)
		return rfm__error(RFM_ECORRUPT,
				  "%s: not an rfm network segment (bad magic 0x%016llx)",
				  uri, (unsigned long long)h->magic);
	if (h->version != RFM_SHM_VERSION && h->version != RFM_SHM_VERSION_HUGE)
		return rfm__error(RFM_EVERSION,
				  "%s: segment format version %u, this librfm speaks %u and %u",
				  uri, h->version, RFM_SHM_VERSION, RFM_SHM_VERSION_HUGE);
	/* A huge page is a power of two from 64 KiB (arm64) to 16 GiB (ppc64). */
	if (h->version == RFM_SHM_VERSION_HUGE
		    ? h->huge_page_kib < 64 || h->huge_page_kib > (16u << 20) ||
			      (h->huge_page_kib & (h->huge_page_kib - 1))
		    : h->huge_page_kib != 0)
		return rfm__error(RFM_ECORRUPT, "%s: recorded huge page size %u KiB is invalid",
				  uri, h->huge_page_kib);
	if (h->header_size != sizeof(*h))
		return rfm__error(RFM_ECORRUPT, "%s: header size %u, expected %zu",
				  uri, h->header_size, sizeof(*h));
	if (h->window_size < RFM_SHM_MIN_WINDOW || h->window_size > RFM_SHM_MAX_WINDOW ||
	    h->window_size % RFM_SHM_PAGE)
		return rfm__error(RFM_ECORRUPT, "%s: recorded window size %llu is invalid",
				  uri, (unsigned long long)h->window_size);
	if (!valid_depth(h->queue_depth))
		return rfm__error(RFM_ECORRUPT, "%s: recorded event queue depth %u is invalid",
				  uri, h->queue_depth);
	rfm__shm_layout(h->window_size, h->queue_depth, &layout);
	if (h->queues_per_node != RFM_SHM_QUEUES_PER_NODE ||
	    h->queue_stride != layout.queue_stride ||
	    h->event_offset != layout.event_offset ||
	    h->event_size != layout.event_size ||
	    h->node_count != RFM_MAX_NODES ||
	    h->node_entry_size != sizeof(struct rfm_shm_node_entry) ||
	    h->node_table_offset != layout.node_table_offset ||
	    h->window_offset != layout.window_offset ||
	    h->segment_size != layout.segment_size)
		return rfm__error(RFM_ECORRUPT,
				  "%s: segment layout fields are inconsistent (corrupt header)", uri);
	/* The window must be all there; slabs past it are checked before each use. */
	if (file_size < h->event_offset)
		return rfm__error(RFM_ECORRUPT, "%s: segment truncated: %llu of %llu bytes",
				  uri, (unsigned long long)file_size,
				  (unsigned long long)h->event_offset);
	return 0;
}

uint64_t rfm__shm_footprint(uint64_t window_size, uint32_t queue_depth, unsigned int slabs)
{
	struct rfm_shm_layout layout;

	rfm__shm_layout(window_size, queue_depth, &layout);
	return layout.event_offset + (uint64_t)slabs * layout.queue_stride;
}
