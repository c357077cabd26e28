/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The indexes that keep every walk over a layout linear in its size:
 *
 *  - names: regions by name, records and variables by full name, in hash
 *    tables filled as the builder adds each one. Opening a handle, adding
 *    a child to a region and `rfm get REGION` look names up; a scan per
 *    look-up made opening every variable of a large layout quadratic
 *    (20,000 variables of one region: tens of seconds).
 *  - groups: the children of each region or record in declaration order,
 *    by a counting sort, for placement (layout-check.c) and the header
 *    (layout-header.c), which once visited every variable once per region.
 *
 * A name given twice keeps its first entry, as the scan it replaces did;
 * the validator reports the duplicate.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "layout-internal.h"

static uint32_t name_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

static const char *name_at(const rfm_layout *layout, enum lay_name_kind kind, uint32_t index)
{
	switch (kind) {
	case LAY_NAME_REGION:
		return layout->regions[index].name;
	case LAY_NAME_RECORD:
		return layout->records[index].full;
	default:
		return layout->vars[index].full;
	}
}

static bool name_is(const char *name, const char *want, size_t len)
{
	return strlen(name) == len && !memcmp(name, want, len);
}

/* The slot of @want in @ix (empty when it is not there); @ix has slots. */
static struct lay_name_slot *probe(const rfm_layout *layout, const struct lay_names *ix,
				   enum lay_name_kind kind, const char *want, size_t len,
				   uint32_t hash)
{
	size_t mask = ix->cap - 1;

	for (size_t at = hash & mask;; at = (at + 1) & mask) {
		struct lay_name_slot *s = &ix->slots[at];

		if (!s->index_plus_1 ||
		    (s->hash == hash && name_is(name_at(layout, kind, s->index_plus_1 - 1), want, len)))
			return s;
	}
}

/* Room for one more at most half full: the probe above always ends. */
static int names_grow(struct lay_names *ix)
{
	if (2 * (ix->count + 1) <= ix->cap)
		return 0;
	size_t cap = ix->cap ? 2 * ix->cap : 64;
	struct lay_name_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return RFM_ENOMEM;
	for (size_t i = 0; i < ix->cap; i++) {
		const struct lay_name_slot *s = &ix->slots[i];
		size_t at = s->hash & (cap - 1);

		if (!s->index_plus_1)
			continue;
		while (slots[at].index_plus_1)
			at = (at + 1) & (cap - 1);
		slots[at] = *s;
	}
	free(ix->slots);
	ix->slots = slots;
	ix->cap = cap;
	return 0;
}

int rfm__lay_names_add(rfm_layout *layout, enum lay_name_kind kind, size_t index)
{
	struct lay_names *ix = &layout->names[kind];
	const char *name = name_at(layout, kind, (uint32_t)index);
	size_t len = strlen(name);
	uint32_t hash = name_hash(name, len);

	if (names_grow(ix))
		return RFM_ENOMEM;
	struct lay_name_slot *s = probe(layout, ix, kind, name, len, hash);

	if (!s->index_plus_1) {
		s->index_plus_1 = (uint32_t)index + 1;
		s->hash = hash;
		ix->count++;
	}
	return 0;
}

long rfm__lay_names_find(const rfm_layout *layout, enum lay_name_kind kind, const char *name,
			 size_t len)
{
	const struct lay_names *ix = &layout->names[kind];

	if (!ix->count)
		return -1;
	const struct lay_name_slot *s = probe(layout, ix, kind, name, len, name_hash(name, len));

	return s->index_plus_1 ? (long)s->index_plus_1 - 1 : -1;
}

void rfm__lay_names_free(rfm_layout *layout)
{
	for (size_t k = 0; k < RFM_ARRAY_SIZE(layout->names); k++) {
		free(layout->names[k].slots);
		layout->names[k] = (struct lay_names){ 0 };
	}
}

void rfm__lay_groups_free(struct lay_groups *g)
{
	free(g->first);
	free(g->idx);
	g->first = NULL;
	g->idx = NULL;
}

bool rfm__lay_groups_build(struct lay_groups *g, size_t ngroups, const uint32_t *owner, size_t n)
{
	g->first = calloc(ngroups + 2, sizeof(*g->first));
	g->idx = malloc((n ? n : 1) * sizeof(*g->idx));
	if (!g->first || !g->idx) {
		rfm__lay_groups_free(g);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (owner[i] < ngroups)
			g->first[owner[i] + 2]++;
	for (size_t k = 2; k < ngroups + 2; k++)
		g->first[k] += g->first[k - 1];
	/* first[k + 1] is now where group k starts; fill it, moving it to its end. */
	for (size_t i = 0; i < n; i++)
		if (owner[i] < ngroups)
			g->idx[g->first[owner[i] + 1]++] = (uint32_t)i;
	return true;
}
