/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: the rings of the layout's regions, looked at with
 * rfm_ring_inspect() (read-only: the server takes no consumer entry and
 * never holds a producer back). A region with no valid ring in it is
 * listed with "ring": null.
 */
#include "config.h"

#include <string.h>

#include "serve.h"

bool serve_ring_look(struct serve *s, const struct rfm_region_info *region, struct serve_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->info.struct_size = sizeof(r->info);
	r->views[0].struct_size = sizeof(r->views[0]);
	return rfm_ring_inspect(s->cli->node, region->offset, &r->info, r->views, SERVE_RING_VIEWS,
				&r->count) == 0;
}

static struct json_object *consumer_json(const struct rfm_ring_consumer_view *v)
{
	struct json_object *o = json_object_new_object();

	cli_json_add_u64(o, "node", v->node);
	cli_json_add_u64(o, "entry", v->entry);
	json_object_object_add(o, "pid", json_object_new_int(v->pid));
	cli_json_add_u64(o, "cursor", v->cursor);
	cli_json_add_u64(o, "lag", v->lag);
	cli_json_add_u64(o, "laps", v->laps);
	json_object_object_add(o, "backpressure",
			       json_object_new_boolean(v->flags & RFM_RING_CONSUMER_BACKPRESSURE));
	json_object_object_add(o, "holding",
			       json_object_new_boolean(v->flags & RFM_RING_VIEW_HOLDING));
	json_object_object_add(o, "sleeping",
			       json_object_new_boolean(v->flags & RFM_RING_VIEW_SLEEPING));
	json_object_object_add(o, "dead", json_object_new_boolean(v->flags & RFM_RING_VIEW_DEAD));
	return o;
}

static struct json_object *ring_json(const struct serve_ring *r)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	size_t shown = r->count < SERVE_RING_VIEWS ? r->count : SERVE_RING_VIEWS;

	cli_json_add_u64(o, "producer", r->info.producer);
	cli_json_add_u64(o, "head", r->info.head);
	cli_json_add_u64(o, "slot_count", r->info.slot_count);
	cli_json_add_u64(o, "slot_size", r->info.slot_size);
	json_object_object_add(o, "notify",
			       json_object_new_boolean(r->info.flags & RFM_RING_F_NOTIFY));
	json_object_object_add(o, "backpressure",
			       json_object_new_boolean(r->info.flags & RFM_RING_F_BACKPRESSURE));
	cli_json_add_u64(o, "consumer_count", r->count);
	for (size_t i = 0; i < shown; i++)
		json_object_array_add(arr, consumer_json(&r->views[i]));
	json_object_object_add(o, "consumers", arr);
	return o;
}

struct json_object *serve_json_rings(struct serve *s)
{
	struct json_object *arr = json_object_new_array();
	struct serve_ring ring;

	for (size_t i = 0; i < rfm_layout_region_count(s->layout); i++) {
		struct rfm_region_info info = { .struct_size = sizeof(info) };
		struct json_object *o;

		if (rfm_layout_region_info(s->layout, i, &info))
			continue;
		o = json_object_new_object();
		cli_json_add_string(o, "region", info.name);
		cli_json_add_u64(o, "offset", info.offset);
		cli_json_add_u64(o, "size", info.size);
		cli_json_add_u64(o, "writer", info.writer);
		cli_json_add_string(o, "description", info.description);
		json_object_object_add(o, "ring",
				       serve_ring_look(s, &info, &ring) ? ring_json(&ring) : NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}
