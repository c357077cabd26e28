/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The layout file: YAML read with libyaml's document loader, walked into
 * the builder. This file judges only the shape of the text (keys, kinds of
 * nodes, numbers, names of types); everything about the map itself is
 * left to the validator, so the two together report every problem in one
 * pass. The format is described in docs/layout-format.md.
 *
 * Anchors and aliases are refused: a node reached twice is an error, which
 * also keeps a hostile file from making the walk exponential.
 *
 * The document comes from layout-yaml-doc.c, which builds it from
 * libyaml's events within the limits of layout-internal.h.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "layout-internal.h"
#include "layout-yaml.h"

/* Parent index meaning "check the text but add nothing". */
#define NO_PARENT UINT32_MAX

struct yaml_walk {
	yaml_document_t *doc;
	struct rfm_diag_list *diags;
	rfm_layout *layout;
	uint8_t *visited;
	size_t nnodes;
	bool nomem;
	bool over[3];		/* a count limit was reported: regions, records, vars */
};

static struct lay_pos pos_of(const yaml_node_t *n)
{
	return (struct lay_pos){ (uint32_t)n->start_mark.line + 1,
				 (uint32_t)n->start_mark.column + 1 };
}

enum { OVER_REGIONS, OVER_RECORDS, OVER_VARS };

/* Room for one more of a kind under its limit? Reported once per kind. */
static bool room_for(struct yaml_walk *w, const yaml_node_t *n, int kind)
{
	static const char *const names[] = { "regions", "records", "variables" };
	static const unsigned int max[] = { LAY_REGIONS_MAX, LAY_RECORDS_MAX, LAY_VARS_MAX };
	size_t have = kind == OVER_REGIONS   ? w->layout->nregions
		      : kind == OVER_RECORDS ? w->layout->nrecords
					     : w->layout->nvars;

	if (have < max[kind])
		return true;
	if (!w->over[kind])
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  "more than %u %s: the limit of a layout", max[kind], names[kind]);
	w->over[kind] = true;
	return false;
}

static yaml_node_t *get_node(struct yaml_walk *w, int index)
{
	yaml_node_t *n = yaml_document_get_node(w->doc, index);

	if (!n)
		return NULL;
	size_t i = (size_t)(index - 1);
	if (i < w->nnodes && w->visited[i]++) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  "the value anchored here is used again through an alias: aliases are "
			  "not supported, write the value out again");
		return NULL;
	}
	return n;
}

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

static bool expect(struct yaml_walk *w, const yaml_node_t *n, yaml_node_type_t type,
		   const char *what)
{
	static const char *const names[] = {
		[YAML_SCALAR_NODE] = "a scalar value",
		[YAML_SEQUENCE_NODE] = "a list",
		[YAML_MAPPING_NODE] = "a mapping of keys",
	};

	if (n->type == type)
		return true;
	rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT, "%s must be %s, not %s", what,
		  names[type], kind_name(n));
	return false;
}

/* The text of a scalar, or NULL (reported) when it is not one or holds a NUL. */
static const char *scalar(struct yaml_walk *w, const yaml_node_t *n, const char *what)
{
	if (!expect(w, n, YAML_SCALAR_NODE, what))
		return NULL;
	const char *text = (const char *)n->data.scalar.value;
	if (strlen(text) != n->data.scalar.length) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT, "%s contains a NUL character", what);
		return NULL;
	}
	return text;
}

/*
 * Sort a mapping's values into @values by the key names in @keys
 * (NULL-terminated); report unknown, repeated and non-scalar keys.
 */
static bool read_keys(struct yaml_walk *w, yaml_node_t *map, const char *const *keys,
		      yaml_node_t **values, const char *what)
{
	size_t nkeys = 0;

	while (keys[nkeys])
		values[nkeys++] = NULL;
	if (!expect(w, map, YAML_MAPPING_NODE, what))
		return false;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *key = get_node(w, p->key);
		yaml_node_t *value = get_node(w, p->value);
		const char *name;
		size_t k;

		if (!key || !value)
			continue;
		if (key->type != YAML_SCALAR_NODE || !(name = scalar(w, key, "a key"))) {
			if (key->type != YAML_SCALAR_NODE)
				rfm__diag(w->diags, pos_of(key), RFM_ELAYOUT,
					  "a key in %s must be a plain word", what);
			continue;
		}
		for (k = 0; k < nkeys && strcmp(keys[k], name); k++)
			;
		if (k == nkeys) {
			char expected[256] = "";
			for (size_t j = 0; j < nkeys; j++) {
				strncat(expected, j ? ", " : "", sizeof(expected) - strlen(expected) - 1);
				strncat(expected, keys[j], sizeof(expected) - strlen(expected) - 1);
			}
			rfm__diag(w->diags, pos_of(key), RFM_ELAYOUT,
				  "unknown key '%.64s' in %s (expected %s)", name, what, expected);
			continue;
		}
		if (values[k]) {
			rfm__diag(w->diags, pos_of(key), RFM_ELAYOUT, "key '%s' given twice in %s",
				  name, what);
			continue;
		}
		values[k] = value;
	}
	return true;
}

static bool missing(struct yaml_walk *w, const yaml_node_t *map, const yaml_node_t *value,
		    const char *key, const char *what)
{
	if (value)
		return false;
	rfm__diag(w->diags, pos_of(map), RFM_ELAYOUT, "%s has no '%s'", what, key);
	return true;
}

/*
 * The 'name' every entry (@what: "a region", "a record", "a variable")
 * must have; NULL (reported) when it is missing or not text.
 */
static const char *entry_name(struct yaml_walk *w, const yaml_node_t *map, const yaml_node_t *n,
			      const char *what)
{
	char label[32];

	if (missing(w, map, n, "name", what))
		return NULL;
	snprintf(label, sizeof(label), "%s's name", what);
	return scalar(w, n, label);
}

/* An unsigned number in C notation, optionally with K/M/G when @size. */
static bool number(struct yaml_walk *w, const yaml_node_t *n, const char *what, bool size,
		   uint64_t max, uint64_t *value);

/* A variable's 'count' or 'length' (@what) at @n: a number from 1 up into *@count. */
static bool element_count(struct yaml_walk *w, const yaml_node_t *n, const char *what,
			  uint32_t *count)
{
	uint64_t v;

	if (!number(w, n, what, false, UINT32_MAX, &v))
		return false;
	if (v == 0) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT, "%s must be at least 1", what);
		return false;
	}
	*count = (uint32_t)v;
	return true;
}

static bool number(struct yaml_walk *w, const yaml_node_t *n, const char *what, bool size,
		   uint64_t max, uint64_t *value)
{
	const char *text = scalar(w, n, what);
	uint64_t v;

	if (!text)
		return false;
	if ((size ? rfm__parse_size(text, &v) : rfm__parse_u64(text, &v))) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  size ? "%s '%.64s' is not a byte count (such as 4096, 0x1000 or 4K)"
			       : "%s '%.64s' is not an unsigned number (such as 12 or 0xc)",
			  what, text);
		return false;
	}
	if (v > max) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT, "%s %llu is larger than %llu", what,
			  (unsigned long long)v, (unsigned long long)max);
		return false;
	}
	*value = v;
	return true;
}

static bool real(struct yaml_walk *w, const yaml_node_t *n, const char *what, double *value)
{
	const char *text = scalar(w, n, what);
	char *end;

	if (!text)
		return false;
	errno = 0;
	*value = strtod(text, &end);
	if (!text[0] || end == text || *end || errno == ERANGE) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT, "%s '%.64s' is not a number", what,
			  text);
		return false;
	}
	return true;
}

static bool byte_order(struct yaml_walk *w, const yaml_node_t *n, uint32_t *order)
{
	const char *text;

	if (!n)
		return true;
	text = scalar(w, n, "byte_order");
	if (!text)
		return false;
	if (!strcmp(text, "little"))
		*order = RFM_ORDER_LITTLE;
	else if (!strcmp(text, "big"))
		*order = RFM_ORDER_BIG;
	else {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  "byte_order '%.64s' must be little or big", text);
		return false;
	}
	return true;
}

/* A record's or variable's optional 'offset' at @n into *@offset, its place into *@pos. */
static bool placed_offset(struct yaml_walk *w, const yaml_node_t *n, uint64_t *offset,
			  struct lay_pos *pos)
{
	if (!n)
		return true;
	*pos = pos_of(n);
	return number(w, n, "offset", true, UINT64_MAX - 1, offset);
}

static const char *text_or_null(struct yaml_walk *w, const yaml_node_t *n, const char *what)
{
	return n ? scalar(w, n, what) : NULL;
}

static void pushed(struct yaml_walk *w, int ret)
{
	if (ret < 0)
		w->nomem = true;
}

enum { V_NAME, V_TYPE, V_COUNT, V_LENGTH, V_OFFSET, V_ORDER, V_UNIT, V_DESC, V_MIN, V_MAX,
       V_DIGITS, V_STALE, V_N };
static const char *const var_keys[] = { "name", "type", "count", "length", "offset",
					"byte_order", "unit", "description", "min", "max",
					"digits", "stale_after", NULL };

/*
 * A 'stale_after' period at @n into milliseconds: a positive number with
 * a unit, ms, s or min (500ms, 2s, 1.5s), up to 24 hours. The unit is
 * required: a bare 2 could be read as either.
 */
static bool stale_after(struct yaml_walk *w, const yaml_node_t *n, uint32_t *ms)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "min", 60000 },
	};
	const char *text = scalar(w, n, "stale_after");
	double v, scale = 0;
	char *end;

	if (!text)
		return false;
	errno = 0;
	v = strtod(text, &end);
	for (size_t i = 0; end != text && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			scale = units[i].ms;
	if (!scale || errno == ERANGE || !(text[0] >= '0' && text[0] <= '9')) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  "stale_after '%.64s' is not a duration (such as 500ms, 2s or 1min)", text);
		return false;
	}
	v *= scale;
	if (!(v >= 1) || v > 86400000.0) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  "stale_after '%.64s' must be 1ms to 24 hours", text);
		return false;
	}
	*ms = (uint32_t)(v + 0.5);
	return true;
}

/* A float's 'digits' (significant digits to show) at @n: 1 to RFM_VAR_MAX_DIGITS. */
static bool digits(struct yaml_walk *w, const yaml_node_t *n, int type, uint32_t *out)
{
	uint64_t d;

	if (type && type != RFM_TYPE_F32 && type != RFM_TYPE_F64) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  "only f32 and f64 have 'digits' (a %s is shown whole)", rfm_type_name(type));
		return false;
	}
	if (!number(w, n, "digits", false, RFM_VAR_MAX_DIGITS, &d))
		return false;
	if (d == 0) {
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT, "'digits' must be 1 to %d",
			  RFM_VAR_MAX_DIGITS);
		return false;
	}
	*out = (uint32_t)d;
	return true;
}

/* A variable's 'type' into spec->type (its place into *@pos). */
static bool var_type(struct yaml_walk *w, yaml_node_t *map, yaml_node_t **v,
		     struct rfm_var_spec *spec, struct lay_pos *pos)
{
	const char *t;

	if (missing(w, map, v[V_TYPE], "type", "a variable"))
		return false;
	t = scalar(w, v[V_TYPE], "type");
	*pos = pos_of(v[V_TYPE]);
	if (!t)
		return false;
	spec->type = rfm__type_from_name(t);
	if (!spec->type) {
		rfm__diag(w->diags, *pos, RFM_ELAYOUT,
			  "unknown type '%.64s' (expected u8, u16, u32, u64, i8, i16, i32, "
			  "i64, f32, f64, bool, string or bytes)",
			  t);
		return false;
	}
	return true;
}

/*
 * A variable's 'count' (elements of an array) or 'length' (bytes of a
 * string or bytes, which must have one) into spec->count, for the type
 * already read (0 when it was wrong: no complaint about the other key).
 */
static bool var_count(struct yaml_walk *w, yaml_node_t *map, yaml_node_t **v,
		      struct rfm_var_spec *spec, struct lay_pos *pos)
{
	bool sized = spec->type == RFM_TYPE_STRING || spec->type == RFM_TYPE_BYTES;
	bool ok = true;

	if (v[V_COUNT]) {
		*pos = pos_of(v[V_COUNT]);
		if (sized)
			rfm__diag(w->diags, *pos, RFM_ELAYOUT,
				  "a %s has a 'length' in bytes, not a 'count'",
				  rfm_type_name(spec->type));
		ok = !sized && element_count(w, v[V_COUNT], "count", &spec->count);
	}
	if (v[V_LENGTH]) {
		*pos = pos_of(v[V_LENGTH]);
		bool wrong = spec->type && !sized;
		if (wrong)
			rfm__diag(w->diags, *pos, RFM_ELAYOUT,
				  "only string and bytes have a 'length'; use 'count' for an array of %s",
				  rfm_type_name(spec->type));
		ok = !wrong && element_count(w, v[V_LENGTH], "length", &spec->count) && ok;
	} else if (sized) {
		rfm__diag(w->diags, pos_of(map), RFM_ELAYOUT, "a %s needs a 'length' in bytes",
			  rfm_type_name(spec->type));
		ok = false;
	}
	return ok;
}

static void walk_var(struct yaml_walk *w, yaml_node_t *map, uint32_t region, uint32_t record,
		     uint32_t order)
{
	yaml_node_t *v[V_N];
	struct rfm_var_spec spec = {
		.struct_size = sizeof(spec),
		.byte_order = order,
		.offset = RFM_OFFSET_AUTO,
		.count = 1,
	};
	struct lay_pos pos[6] = { pos_of(map) };
	bool ok = true;

	if (!read_keys(w, map, var_keys, v, "a variable"))
		return;

	if (!(spec.name = entry_name(w, map, v[V_NAME], "a variable")))
		ok = false;
	if (!var_type(w, map, v, &spec, &pos[1]))
		ok = false;
	if (!var_count(w, map, v, &spec, &pos[2]))
		ok = false;
	if (!placed_offset(w, v[V_OFFSET], &spec.offset, &pos[3]))
		ok = false;
	if (!byte_order(w, v[V_ORDER], &spec.byte_order))
		ok = false;
	spec.unit = text_or_null(w, v[V_UNIT], "unit");
	spec.description = text_or_null(w, v[V_DESC], "description");
	if (v[V_MIN]) {
		pos[4] = pos_of(v[V_MIN]);
		spec.has_min = true;
		if (!real(w, v[V_MIN], "min", &spec.min))
			ok = false;
	}
	if (v[V_MAX]) {
		pos[5] = pos_of(v[V_MAX]);
		spec.has_max = true;
		if (!real(w, v[V_MAX], "max", &spec.max))
			ok = false;
	}
	if (v[V_DIGITS] && !digits(w, v[V_DIGITS], spec.type, &spec.digits))
		ok = false;
	if (v[V_STALE] && !stale_after(w, v[V_STALE], &spec.stale_after_ms))
		ok = false;
	if (ok && region != NO_PARENT && room_for(w, map, OVER_VARS))
		pushed(w, rfm__layout_push_var(w->layout, region, record, &spec, pos));
}

static void walk_vars(struct yaml_walk *w, yaml_node_t *list, uint32_t region, uint32_t record,
		      uint32_t order)
{
	if (!list || !expect(w, list, YAML_SEQUENCE_NODE, "variables"))
		return;
	for (yaml_node_item_t *i = list->data.sequence.items.start;
	     i < list->data.sequence.items.top; i++) {
		yaml_node_t *n = get_node(w, *i);
		if (n)
			walk_var(w, n, region, record, order);
	}
}

enum { C_NAME, C_OFFSET, C_SIZE, C_ORDER, C_DESC, C_VARS, C_NOTIFY, C_STALE, C_N };
static const char *const record_keys[] = { "name", "offset", "size", "byte_order",
					   "description", "variables", "notify",
					   "stale_after", NULL };

static void walk_record(struct yaml_walk *w, yaml_node_t *map, uint32_t region, uint32_t order)
{
	yaml_node_t *v[C_N];
	struct rfm_record_spec spec = {
		.struct_size = sizeof(spec),
		.offset = RFM_OFFSET_AUTO,
		.byte_order = order,
	};
	struct lay_pos pos[3] = { pos_of(map) };
	bool ok = true;
	uint32_t index = NO_PARENT;

	if (!read_keys(w, map, record_keys, v, "a record"))
		return;
	if (!(spec.name = entry_name(w, map, v[C_NAME], "a record")))
		ok = false;
	if (!placed_offset(w, v[C_OFFSET], &spec.offset, &pos[1]))
		ok = false;
	if (v[C_SIZE]) {
		pos[2] = pos_of(v[C_SIZE]);
		if (!number(w, v[C_SIZE], "size", true, UINT64_MAX / 2, &spec.size))
			ok = false;
		else if (spec.size == 0) {
			rfm__diag(w->diags, pos[2], RFM_ELAYOUT, "a record's size must not be 0");
			ok = false;
		}
	}
	if (!byte_order(w, v[C_ORDER], &spec.byte_order))
		ok = false;
	spec.description = text_or_null(w, v[C_DESC], "description");
	if (v[C_NOTIFY]) {
		const char *t = scalar(w, v[C_NOTIFY], "notify");
		int type = t ? rfm_event_type_parse(t) : -1;

		if (type >= (int)RFM_EVENT_INTR1 && type <= (int)RFM_EVENT_INTR4) {
			spec.notify = (uint32_t)type;
		} else {
			if (t)
				rfm__diag(w->diags, pos_of(v[C_NOTIFY]), RFM_ELAYOUT,
					  "notify must be intr1, intr2, intr3 or intr4, not '%s'", t);
			ok = false;
		}
	}
	if (v[C_STALE] && !stale_after(w, v[C_STALE], &spec.stale_after_ms))
		ok = false;
	if (missing(w, map, v[C_VARS], "variables", "a record"))
		ok = false;
	if (ok && region != NO_PARENT && room_for(w, map, OVER_RECORDS)) {
		int ret = rfm__layout_push_record(w->layout, region, &spec, pos);
		pushed(w, ret);
		if (ret >= 0)
			index = (uint32_t)ret;
	}
	walk_vars(w, v[C_VARS], index == NO_PARENT ? NO_PARENT : region, index, spec.byte_order);
}

enum { G_SLOTS, G_SLOT_SIZE, G_CONSUMERS, G_NOTIFY, G_BACKPRESSURE, G_ID, G_N };
static const char *const ring_keys[] = { "slots", "slot_size", "consumers", "notify",
					 "backpressure", "id", NULL };

/* true or false at @n (YAML's spellings of them) into *@out. */
static bool flag(struct yaml_walk *w, const yaml_node_t *n, const char *what, bool *out)
{
	const char *t = scalar(w, n, what);

	if (t && (!strcmp(t, "true") || !strcmp(t, "yes") || !strcmp(t, "on"))) {
		*out = true;
		return true;
	}
	if (t && (!strcmp(t, "false") || !strcmp(t, "no") || !strcmp(t, "off"))) {
		*out = false;
		return true;
	}
	if (t)
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT, "%s must be true or false, not '%.64s'",
			  what, t);
	return false;
}

/*
 * A region's 'ring' at @map: the shape of the ring it holds. Its checks
 * against the region (room, alignment, contents) come with the layout's
 * (layout-ring.c).
 */
/* A ring's notify: true (intr3), false, or the event type. */
static bool ring_notify(struct yaml_walk *w, yaml_node_t *n, struct rfm_ring_config *c)
{
	const char *t = scalar(w, n, "notify");
	int type = t ? rfm_event_type_parse(t) : -1;

	if (type >= (int)RFM_EVENT_INTR1 && type <= (int)RFM_EVENT_INTR4) {
		c->flags |= RFM_RING_F_NOTIFY;
		c->notify_type = (uint32_t)type;
		return true;
	}
	if (t && (!strcmp(t, "true") || !strcmp(t, "false"))) {
		if (t[0] == 't')
			c->flags |= RFM_RING_F_NOTIFY;
		return true;
	}
	if (t)
		rfm__diag(w->diags, pos_of(n), RFM_ELAYOUT,
			  "a ring's notify must be true, false or intr1..intr4, not '%.64s'", t);
	return false;
}

static bool walk_ring(struct yaml_walk *w, yaml_node_t *map, struct rfm_ring_config *c)
{
	yaml_node_t *v[G_N];
	uint64_t n;
	bool ok = true, on;

	memset(c, 0, sizeof(*c));
	c->struct_size = sizeof(*c);
	if (!read_keys(w, map, ring_keys, v, "a ring"))
		return false;
	if (missing(w, map, v[G_SLOTS], "slots", "a ring") ||
	    !number(w, v[G_SLOTS], "slots", false, UINT32_MAX, &n))
		ok = false;
	else
		c->slot_count = (uint32_t)n;
	if (missing(w, map, v[G_SLOT_SIZE], "slot_size", "a ring") ||
	    !number(w, v[G_SLOT_SIZE], "slot_size", true, UINT32_MAX, &n))
		ok = false;
	else
		c->slot_size = (uint32_t)n;
	if (v[G_CONSUMERS]) {
		if (!number(w, v[G_CONSUMERS], "consumers", false, UINT32_MAX, &n))
			ok = false;
		else if (n == 0) {
			rfm__diag(w->diags, pos_of(v[G_CONSUMERS]), RFM_ELAYOUT,
				  "consumers (table entries per node id) must be 1 to %u",
				  RFM_RING_CONSUMERS_MAX);
			ok = false;
		} else
			c->max_consumers = (uint32_t)n;
	}
	if (v[G_NOTIFY] && !ring_notify(w, v[G_NOTIFY], c))
		ok = false;
	if (v[G_BACKPRESSURE]) {
		if (!flag(w, v[G_BACKPRESSURE], "backpressure", &on))
			ok = false;
		else if (on)
			c->flags |= RFM_RING_F_BACKPRESSURE;
	}
	if (v[G_ID]) {
		if (!number(w, v[G_ID], "id", false, UINT32_MAX, &n))
			ok = false;
		else
			c->ring_id = (uint32_t)n;
	}
	return ok;
}

enum { R_NAME, R_OFFSET, R_SIZE, R_WRITER, R_DESC, R_ORDER, R_VARS, R_RECORDS, R_RING, R_N };
static const char *const region_keys[] = { "name", "offset", "size", "writer", "description",
					   "byte_order", "variables", "records", "ring", NULL };

/*
 * A region's variables and records, in the order they appear, so that
 * automatic placement follows the text.
 */
static void walk_region_children(struct yaml_walk *w, yaml_node_t **v, uint32_t index,
				 uint32_t order)
{
	bool vars_first = !v[R_RECORDS] || !v[R_VARS] ||
			  v[R_VARS]->start_mark.index < v[R_RECORDS]->start_mark.index;

	if (vars_first)
		walk_vars(w, v[R_VARS], index, LAY_NO_RECORD, order);
	if (v[R_RECORDS] && expect(w, v[R_RECORDS], YAML_SEQUENCE_NODE, "records")) {
		yaml_node_t *list = v[R_RECORDS];
		for (yaml_node_item_t *i = list->data.sequence.items.start;
		     i < list->data.sequence.items.top; i++) {
			yaml_node_t *rec = get_node(w, *i);
			if (rec)
				walk_record(w, rec, index, order);
		}
	}
	if (!vars_first)
		walk_vars(w, v[R_VARS], index, LAY_NO_RECORD, order);
}

static void walk_region(struct yaml_walk *w, yaml_node_t *map, uint32_t order)
{
	yaml_node_t *v[R_N];
	struct rfm_region_spec spec = { .struct_size = sizeof(spec) };
	struct lay_pos pos[4] = { pos_of(map) };
	struct rfm_ring_config ring;
	bool ok = true;
	uint64_t n;
	uint32_t index = NO_PARENT;

	if (!read_keys(w, map, region_keys, v, "a region"))
		return;
	if (v[R_RING] && !walk_ring(w, v[R_RING], &ring))
		ok = false;
	if (!(spec.name = entry_name(w, map, v[R_NAME], "a region")))
		ok = false;
	if (missing(w, map, v[R_OFFSET], "offset", "a region") ||
	    !number(w, v[R_OFFSET], "offset", true, UINT64_MAX, &spec.offset))
		ok = false;
	else
		pos[1] = pos_of(v[R_OFFSET]);
	/* A ring's region may leave its size to the ring (0: computed). */
	if (!v[R_SIZE] && v[R_RING])
		;
	else if (missing(w, map, v[R_SIZE], "size", "a region") ||
		 !number(w, v[R_SIZE], "size", true, UINT64_MAX, &spec.size))
		ok = false;
	else
		pos[2] = pos_of(v[R_SIZE]);
	if (missing(w, map, v[R_WRITER], "writer", "a region") ||
	    !number(w, v[R_WRITER], "writer", false, UINT32_MAX, &n))
		ok = false;
	else {
		pos[3] = pos_of(v[R_WRITER]);
		spec.writer = (uint32_t)n;
	}
	spec.description = text_or_null(w, v[R_DESC], "description");
	if (!byte_order(w, v[R_ORDER], &order))
		ok = false;
	if (ok && room_for(w, map, OVER_REGIONS)) {
		int ret = rfm__layout_push_region(w->layout, &spec, pos);
		pushed(w, ret);
		if (ret >= 0)
			index = (uint32_t)ret;
		if (ret >= 0 && v[R_RING])
			rfm__layout_set_ring(w->layout, index, &ring, pos_of(v[R_RING]));
	}
	walk_region_children(w, v, index, order);
}

enum { L_VERSION, L_NAME, L_DESC, L_WINDOW, L_NODES, L_ORDER, L_REGIONS, L_N };
static const char *const layout_keys[] = { "version", "name", "description", "window",
					   "nodes", "byte_order", "regions", NULL };

/* "dir/rig-2.yaml" -> "rig_2" when that is an identifier, else "layout". */
static void name_from_source(const char *source, char *buf, size_t len)
{
	const char *base = strrchr(source, '/');
	size_t n;

	base = base ? base + 1 : source;
	n = strcspn(base, ".");
	if (n == 0 || n >= len) {
		snprintf(buf, len, "layout");
		return;
	}
	memcpy(buf, base, n);
	buf[n] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	if (!rfm__valid_name(buf))
		snprintf(buf, len, "layout");
}

/*
 * The layout's version: true to read on (a missing one is reported, the
 * rest still read), false when the rest may mean something else.
 */
static bool layout_version(struct yaml_walk *w, yaml_node_t *root, yaml_node_t **v)
{
	uint64_t n;

	if (missing(w, root, v[L_VERSION], "version", "the layout"))
		return true;
	if (!number(w, v[L_VERSION], "version", false, UINT32_MAX, &n))
		return false;
	if (n == 0 || n > RFM_LAYOUT_VERSION) {
		rfm__diag(w->diags, pos_of(v[L_VERSION]), RFM_ELAYOUT,
			  "layout version %llu is not supported: this librfm reads "
			  "version 1 to %d",
			  (unsigned long long)n, RFM_LAYOUT_VERSION);
		return false;
	}
	return true;
}

/* The layout's 'name', or one made from @source's file name (into @buf). */
static const char *layout_name(struct yaml_walk *w, yaml_node_t **v, const char *source,
			       char *buf, size_t cap)
{
	const char *name = NULL;

	if (v[L_NAME] && (name = scalar(w, v[L_NAME], "name")) && !rfm__valid_name(name)) {
		rfm__diag(w->diags, pos_of(v[L_NAME]), RFM_ELAYOUT,
			  "layout name '%.64s' is not an identifier (A-Z a-z 0-9 _, starting "
			  "with a letter)",
			  name);
		name = NULL;
	}
	if (!name) {
		name_from_source(source, buf, cap);
		name = buf;
	}
	return name;
}

static void walk_root(struct yaml_walk *w, yaml_node_t *root, const char *source)
{
	yaml_node_t *v[L_N];
	uint64_t n, window = 0;
	uint32_t order = RFM_ORDER_LITTLE;
	char default_name[LAY_NAME_MAX + 1];
	const char *name;

	if (!read_keys(w, root, layout_keys, v, "the layout"))
		return;
	if (!layout_version(w, root, v))
		return;
	name = layout_name(w, v, source, default_name, sizeof(default_name));
	/* A problem below is reported and the rest read, to report all at once. */
	if (!missing(w, root, v[L_WINDOW], "window", "the layout") &&
	    number(w, v[L_WINDOW], "window", true, UINT64_MAX, &window) && window == 0)
		rfm__diag(w->diags, pos_of(v[L_WINDOW]), RFM_ELAYOUT, "the window size must not be 0");
	if (v[L_DESC])
		scalar(w, v[L_DESC], "description");
	byte_order(w, v[L_ORDER], &order);
	if (rfm__layout_create(name, source, window, &w->layout)) {
		w->nomem = true;
		return;
	}
	if (v[L_WINDOW])
		w->layout->pos_window = pos_of(v[L_WINDOW]);
	if (!v[L_WINDOW] || !window)
		w->layout->window_size = window ? window : UINT64_MAX; /* reported already */
	if (v[L_NODES]) {
		n = 0;
		if (number(w, v[L_NODES], "nodes", false, RFM_MAX_NODES, &n) && n == 0)
			rfm__diag(w->diags, pos_of(v[L_NODES]), RFM_ELAYOUT,
				  "nodes must be 1 to %d", RFM_MAX_NODES);
		else if (n)
			w->layout->max_nodes = (uint32_t)n;
	}
	if (missing(w, root, v[L_REGIONS], "regions", "the layout") ||
	    !expect(w, v[L_REGIONS], YAML_SEQUENCE_NODE, "regions"))
		return;
	yaml_node_t *list = v[L_REGIONS];
	for (yaml_node_item_t *i = list->data.sequence.items.start;
	     i < list->data.sequence.items.top; i++) {
		yaml_node_t *region = get_node(w, *i);
		if (region)
			walk_region(w, region, order);
	}
}

/* A second document would be ignored silently: refuse it. */
static void refuse_second_document(struct lay_yaml_reader *rd, struct rfm_diag_list *diags)
{
	yaml_document_t extra;

	if (rfm__yaml_reader_next(rd, &extra) > 0) {
		yaml_node_t *second = yaml_document_get_root_node(&extra);
		if (second)
			rfm__diag(diags, pos_of(second), RFM_ELAYOUT,
				  "a layout file holds one YAML document; remove the second");
		yaml_document_delete(&extra);
	}
}

int rfm__layout_parse_yaml(const char *text, size_t len, const char *source,
			   rfm_layout **layoutp, struct rfm_diag_list *diags)
{
	struct yaml_walk w = { .diags = diags };
	struct lay_yaml_reader *rd;
	yaml_document_t doc;
	yaml_node_t *root;
	int ret = 0, got;

	*layoutp = NULL;
	if (len > LAY_TEXT_MAX) {
		rfm__diag(diags, (struct lay_pos){ 1, 1 }, RFM_ELAYOUT,
			  "%zu bytes: more than the %u a layout file may have", len, LAY_TEXT_MAX);
		return RFM_ELAYOUT;
	}
	rd = rfm__yaml_reader_new(text, len, diags);
	if (!rd)
		return rfm__error(RFM_ENOMEM, "%s: out of memory starting the YAML parser", source);
	got = rfm__yaml_reader_next(rd, &doc);
	if (got < 0) {
		rfm__yaml_reader_free(rd);
		return diags->out_of_memory && !diags->count
			       ? rfm__error(RFM_ENOMEM, "%s: out of memory", source)
			       : RFM_ELAYOUT;
	}
	if (got == 0 || !(root = yaml_document_get_root_node(&doc))) {
		rfm__diag(diags, (struct lay_pos){ 1, 1 }, RFM_ELAYOUT,
			  "the file is empty: a layout starts with 'version: 1'");
		if (got)
			goto out_doc;
		rfm__yaml_reader_free(rd);
		return RFM_ELAYOUT;
	}
	refuse_second_document(rd, diags);
	w.doc = &doc;
	w.nnodes = (size_t)(doc.nodes.top - doc.nodes.start);
	w.visited = calloc(w.nnodes ? w.nnodes : 1, 1);
	if (!w.visited) {
		ret = rfm__error(RFM_ENOMEM, "%s: out of memory", source);
		goto out_doc;
	}
	(void)get_node(&w, 1); /* the root is node 1: mark it visited */
	walk_root(&w, root, source);
	free(w.visited);
	if (w.nomem)
		diags->out_of_memory = true;
	*layoutp = w.layout;
out_doc:
	rfm__yaml_reader_free(rd);
	yaml_document_delete(&doc);
	if (!ret && (diags->count || diags->out_of_memory))
		ret = RFM_ELAYOUT;
	return ret;
}
