/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A ring's format in the window, used by both sides: the geometry a
 * config implies, the header written in wire order (little-endian, see
 * wire-order.h) and read back into host order and checked. The slots'
 * and the consumer table's words are converted where they are accessed
 * (inline helpers in ring-internal.h, the hot path).
 */
#include "config.h"

#include <stddef.h>

#include <rfm/event.h>

#include "ring-internal.h"
#include "window-copy.h"

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int rfm__ring_geometry(const struct rfm_ring_config *c, struct ring_geom *g)
{
	if (!c)
		return rfm__error(RFM_EINVAL, "ring: config is NULL");
	if (c->struct_size < offsetof(struct rfm_ring_config, consumer_nodes))
		return rfm__error(RFM_EINVAL, "ring: config struct_size %u is too small",
				  c->struct_size);
	if (!c->slot_size || c->slot_size > RFM_RING_SLOT_MAX)
		return rfm__error(RFM_EINVAL, "ring: slot size %u is not 1..%u", c->slot_size,
				  RFM_RING_SLOT_MAX);
	if (c->slot_count < 2 || c->slot_count > RFM_RING_COUNT_MAX || !is_pow2(c->slot_count))
		return rfm__error(RFM_EINVAL, "ring: slot count %u is not a power of two 2..%u",
				  c->slot_count, RFM_RING_COUNT_MAX);
	if (c->flags & ~(RFM_RING_F_NOTIFY | RFM_RING_F_BACKPRESSURE))
		return rfm__error(RFM_EINVAL, "ring: unknown flags 0x%x", c->flags);
	if (c->notify_type > RFM_EVENT_INTR4 || c->notify_type == RFM_EVENT_RESET) {
		if (c->notify_type != 0)
			return rfm__error(RFM_EINVAL, "ring: notify type %u is not intr1..intr4",
					  c->notify_type);
	}
	if (c->max_consumers > RFM_RING_CONSUMERS_MAX)
		return rfm__error(RFM_EINVAL, "ring: %u consumers per node is more than %u",
				  c->max_consumers, RFM_RING_CONSUMERS_MAX);
	/* consumer_nodes came with RFM_1.2: an older caller's struct stops before it. */
	uint32_t nodes = c->struct_size >= offsetof(struct rfm_ring_config, consumer_nodes) +
						   sizeof(c->consumer_nodes)
				 ? c->consumer_nodes
				 : 0;
	if (nodes > RING_NODES)
		return rfm__error(RFM_EINVAL, "ring: %u consumer nodes is more than the %u node ids",
				  nodes, RING_NODES);
	g->slot_size = c->slot_size;
	g->slot_count = c->slot_count;
	g->stride = (RING_SLOT_HEADER + c->slot_size + 63u) & ~63u;
	g->flags = c->flags;
	g->notify_type = c->notify_type ? c->notify_type : RFM_EVENT_INTR3;
	g->ring_id = c->ring_id;
	g->max_consumers = c->max_consumers ? c->max_consumers : RFM_RING_CONSUMERS_DEFAULT;
	g->consumer_nodes = nodes ? nodes : RING_NODES;
	/* A whole number of cache lines: format 2's 1 KiB for 256 node ids. */
	g->dir_size = (g->consumer_nodes * 4u + 63u) & ~63u;
	g->slots_offset = RING_HEADER_SIZE;
	g->table_offset = g->slots_offset + (uint64_t)g->stride * g->slot_count;
	/* Directory, then a row of max_consumers entries per node id. */
	g->footprint = g->table_offset + g->dir_size +
		       (uint64_t)g->consumer_nodes * g->max_consumers * RING_ENTRY_SIZE;
	return 0;
}

RFM_API int rfm_ring_footprint(const struct rfm_ring_config *config, uint64_t *bytes)
{
	struct ring_geom g;
	int ret;

	if (!bytes)
		return rfm__error(RFM_EINVAL, "rfm_ring_footprint: bytes is NULL");
	ret = rfm__ring_geometry(config, &g);
	if (!ret)
		*bytes = g.footprint;
	return ret;
}

/*
 * Write every field of @h but the magic (published last, by the caller).
 * Made in a copy and stored as words: on dds: the handle's thread loads
 * the window's words meanwhile (to send them to a joining node), and a
 * plain store would race with its loads.
 */
void rfm__ring_header_write(struct ring_header *hdr, const struct ring_geom *g)
{
	bool all = g->consumer_nodes == RING_NODES;
	struct ring_header copy = { 0 }, *h = &copy;
	size_t from = offsetof(struct ring_header, version);
	size_t to = offsetof(struct ring_header, pad1);

	/* A table for every node id is format 2, as every reader knows it. */
	h->version = rfm__wire16((uint16_t)(all ? RING_VERSION : RING_VERSION_NODES));
	h->consumer_nodes = rfm__wire32(all ? 0 : g->consumer_nodes);
	h->header_size = rfm__wire16((uint16_t)RING_HEADER_SIZE);
	h->slot_size = rfm__wire32(g->slot_size);
	h->slot_count = rfm__wire32(g->slot_count);
	h->stride = rfm__wire32(g->stride);
	h->flags = rfm__wire32(g->flags);
	h->producer = rfm__wire32(g->producer);
	h->notify_type = rfm__wire32(g->notify_type);
	h->ring_id = rfm__wire32(g->ring_id);
	h->max_consumers = rfm__wire32(g->max_consumers);
	h->slots_offset = rfm__wire64(g->slots_offset);
	h->table_offset = rfm__wire64(g->table_offset);
	h->footprint = rfm__wire64(g->footprint);
	h->head = 0;
	h->room_wait = 0;
	rfm__copy_to_window((uint8_t *)hdr + from, (const uint8_t *)h + from, to - from);
}

/* A host-order copy of the header at @h (line 0 and the head). */
static void header_read(const struct ring_header *h, struct ring_header *copy)
{
	rfm__copy_from_window(copy, (const uint8_t *)h, sizeof(*copy));
	copy->magic = rfm__host32(copy->magic);
	copy->version = rfm__host16(copy->version);
	copy->header_size = rfm__host16(copy->header_size);
	copy->slot_size = rfm__host32(copy->slot_size);
	copy->slot_count = rfm__host32(copy->slot_count);
	copy->stride = rfm__host32(copy->stride);
	copy->flags = rfm__host32(copy->flags);
	copy->producer = rfm__host32(copy->producer);
	copy->notify_type = rfm__host32(copy->notify_type);
	copy->ring_id = rfm__host32(copy->ring_id);
	copy->max_consumers = rfm__host32(copy->max_consumers);
	copy->slots_offset = rfm__host64(copy->slots_offset);
	copy->table_offset = rfm__host64(copy->table_offset);
	copy->footprint = rfm__host64(copy->footprint);
	copy->head = rfm__host64(copy->head);
	copy->room_wait = rfm__host32(copy->room_wait);
	copy->consumer_nodes = rfm__host32(copy->consumer_nodes);
}

int rfm__ring_corrupt(uint64_t offset, const char *what)
{
	return rfm__error(RFM_ECORRUPT, "ring at 0x%llx: %s", (unsigned long long)offset, what);
}

/*
 * The header's magic at @h, loaded with acquire: its creator stores it
 * last, with release, so the fields read after it are the creator's.
 */
static int check_magic(const struct ring_header *h, uint64_t offset)
{
	uint32_t magic = __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE);

	if (magic == __builtin_bswap32(rfm__wire32(RING_MAGIC)))
		return rfm__ring_corrupt(offset,
					 "a ring in big-endian byte order (from librfm before 1.1 on "
					 "a big-endian host); this library keeps rings little-endian "
					 "on every host: create it again with this library");
	if (rfm__host32(magic) != RING_MAGIC)
		return rfm__ring_corrupt(offset, "no ring there (bad magic)");
	return 0;
}

/* The copied header's format: 0, or why it is no ring this library reads. */
static int check_format(const struct ring_header *copy, uint64_t offset)
{
	if (copy->version == 1)
		return rfm__error(RFM_EVERSION,
				  "ring at 0x%llx: format 1 (a consumer table shared by all nodes, "
				  "from librfm before 1.1); this library reads format %u: "
				  "create the ring again with this library",
				  (unsigned long long)offset, RING_VERSION);
	if (copy->version != RING_VERSION && copy->version != RING_VERSION_NODES)
		return rfm__error(RFM_EVERSION,
				  "ring at 0x%llx: format %u, this library reads formats %u and %u",
				  (unsigned long long)offset, copy->version, RING_VERSION,
				  RING_VERSION_NODES);
	/* Format 2 has a row per node id (its word was padding); format 3 fewer. */
	if (copy->version == RING_VERSION_NODES &&
	    (copy->consumer_nodes == 0 || copy->consumer_nodes >= RING_NODES))
		return rfm__ring_corrupt(offset, "format 3 with a consumer node count out of 1..255");
	if (copy->header_size != RING_HEADER_SIZE)
		return rfm__ring_corrupt(offset, "header size is wrong");
	return 0;
}

int rfm__ring_validate(rfm_node *node, uint64_t offset, struct ring_geom *g)
{
	const struct ring_header *h;
	struct ring_header copy;
	struct rfm_ring_config c;
	int ret;

	if (offset % 64)
		return rfm__error(RFM_EALIGN, "ring: offset 0x%llx is not 64-byte aligned",
				  (unsigned long long)offset);
	if (offset > node->size || node->size - offset < RING_HEADER_SIZE)
		return rfm__error(RFM_ERANGE, "ring: offset 0x%llx is outside the window",
				  (unsigned long long)offset);
	h = (const struct ring_header *)(node->base + offset);
	ret = check_magic(h, offset);
	if (ret)
		return ret;
	/* Copy the header to host order and check every field against what
	 * its config implies. */
	header_read(h, &copy);
	ret = check_format(&copy, offset);
	if (ret)
		return ret;
	c = (struct rfm_ring_config){
		.struct_size = sizeof(c),
		.slot_size = copy.slot_size,
		.slot_count = copy.slot_count,
		.flags = copy.flags,
		.notify_type = copy.notify_type,
		.ring_id = copy.ring_id,
		.max_consumers = copy.max_consumers,
		.consumer_nodes = copy.version == RING_VERSION_NODES ? copy.consumer_nodes : 0,
	};
	if (rfm__ring_geometry(&c, g))
		return rfm__error(RFM_ECORRUPT, "ring at 0x%llx: impossible shape: %s",
				  (unsigned long long)offset, rfm_last_error());
	if (!copy.notify_type || !copy.max_consumers)
		return rfm__ring_corrupt(offset, "notify type or table size is zero");
	if (copy.stride != g->stride || copy.slots_offset != g->slots_offset ||
	    copy.table_offset != g->table_offset || copy.footprint != g->footprint)
		return rfm__ring_corrupt(offset, "offsets do not match the shape");
	if (copy.producer > RFM_NODE_ID_MAX)
		return rfm__ring_corrupt(offset, "producer node id out of range");
	if (g->footprint > node->size - offset)
		return rfm__error(RFM_ECORRUPT, "ring at 0x%llx: %llu bytes run past the window",
				  (unsigned long long)offset, (unsigned long long)g->footprint);
	g->producer = copy.producer;
	return 0;
}
