/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private structures of typed-variable tables, shared by the builder
 * (layout.c), the YAML loader (layout-yaml.c), the validator
 * (layout-check.c), the header writer (layout-header.c) and the handles
 * (var.c, var-text.c, record.c).
 *
 * A layout is three flat arrays — regions, records, variables — that
 * refer to each other by index, plus an "items" array keeping the order
 * in which regions' children were declared (automatic placement follows
 * it). Everything is filled in by the builder unchecked; the validator
 * decides what is wrong, so one pass can report every problem, each at
 * the position the loader recorded.
 */
#ifndef RFM_LAYOUT_INTERNAL_H
#define RFM_LAYOUT_INTERNAL_H

#include <rfm/layout.h>
#include <rfm/ring.h>

#include "internal.h"

/*
 * The smallest struct_size each versioned layout struct accepts: its
 * fields as RFM_1.0 shipped them (up to its reserved words then), so a
 * program built against that header keeps working. It must not follow
 * the reserved words, which shrink each time a field is taken from them
 * (digits and stale_after_ms, RFM_1.1): a newer field is read from a spec
 * or filled in an info only when struct_size covers it.
 */
#define LAY_REGION_SPEC_SIZE_1_0 offsetof(struct rfm_region_spec, reserved)
#define LAY_RECORD_SPEC_SIZE_1_0 offsetof(struct rfm_record_spec, stale_after_ms)
#define LAY_VAR_SPEC_SIZE_1_0 offsetof(struct rfm_var_spec, digits)
#define LAY_REGION_INFO_SIZE_1_0 offsetof(struct rfm_region_info, reserved)
#define LAY_RECORD_INFO_SIZE_1_0 offsetof(struct rfm_record_info, stale_after_ms)
#define LAY_VAR_INFO_SIZE_1_0 offsetof(struct rfm_var_info, digits)

#define LAY_NAME_MAX 63
/* A record: sequence word, reserved word, then the data (8-aligned). */
#define LAY_RECORD_HEADER 8u
#define LAY_RECORD_ALIGN 8u
#define LAY_NO_RECORD UINT32_MAX

/*
 * Limits of a layout text, reported as errors (a hostile file must not
 * exhaust memory or time): they
 * keep every load linear in the text and bounded in memory, whatever the
 * file holds. Real layouts are far below them (docs/layout-format.md).
 */
#define LAY_TEXT_MAX (16u << 20)	/* bytes of YAML */
#define LAY_DEPTH_MAX 32u		/* nested lists and mappings */
#define LAY_NODES_MAX (3u << 20)	/* YAML nodes: scalars, lists, mappings (~100 B each) */
#define LAY_ALIASES_MAX 16u		/* aliases reported before giving up */
#define LAY_REGIONS_MAX 131072u
#define LAY_RECORDS_MAX 262144u
#define LAY_VARS_MAX 1048576u
#define LAY_DIAGS_MAX 1000u		/* problems listed; the rest are counted */

/* A source position, 1-based; line 0 = built in code. */
struct lay_pos {
	uint32_t line;
	uint32_t column;
};

struct lay_region {
	char *name;
	char *description;
	uint64_t offset;
	uint64_t size;		/* 0 with a ring: the ring's footprint (layout-ring.c) */
	uint32_t writer;
	struct lay_pos pos, pos_offset, pos_size, pos_writer;
	/* A ring the region holds (layout key `ring`, rfm_layout_add_ring()):
	 * its shape; consumer_nodes is the layout's node count, set at check. */
	bool has_ring;
	struct rfm_ring_config ring;
	struct lay_pos pos_ring;
};

struct lay_record {
	char *name;		/* short */
	char *full;		/* region.record */
	char *description;
	uint32_t region;
	uint32_t byte_order;
	uint64_t offset;	/* in region; RFM_OFFSET_AUTO until finished */
	uint64_t size_wanted;	/* data bytes asked for, 0 = fit */
	uint64_t data_size;	/* set by finish */
	uint64_t abs;		/* window offset of the sequence word, set by finish */
	uint32_t notify;	/* event type sent after a publish, 0: none */
	uint32_t stale_after_ms; /* shown stale past this without a publish, 0: never */
	struct lay_pos pos, pos_offset, pos_size;
};

/* A numeric variable's limits, as the layout declares them. */
struct lay_range {
	bool has_min, has_max;
	double min, max;
};

struct lay_var {
	char *name;		/* short */
	char *full;		/* region.var or region.record.var */
	char *unit;
	char *description;
	int type;
	uint32_t count;		/* elements; bytes for string/bytes */
	uint32_t byte_order;
	uint32_t region;
	uint32_t record;	/* LAY_NO_RECORD when directly in the region */
	uint64_t offset;	/* in region or record data; RFM_OFFSET_AUTO until finished */
	uint64_t abs;		/* window offset, set by finish */
	struct lay_range range;
	uint32_t digits;	/* significant digits to show, 0: not set */
	uint32_t stale_after_ms; /* shown stale past this unchanged, 0: never */
	struct lay_pos pos, pos_type, pos_count, pos_offset, pos_min, pos_max;
};

enum lay_item_kind { LAY_ITEM_VAR, LAY_ITEM_RECORD };

struct lay_item {
	enum lay_item_kind kind;
	uint32_t index;
};

struct rfm_diag_entry {
	struct lay_pos pos;
	int code;
	char *message;
	char *text;
};

struct rfm_diag_list {
	char *file;
	struct rfm_diag_entry *entries;
	size_t count, capacity;
	size_t dropped;		/* past LAY_DIAGS_MAX: counted, not stored */
	bool out_of_memory;	/* a diagnostic could not be stored */
};

/* What the name indexes (layout-index.c) hold: one table per kind. */
enum lay_name_kind { LAY_NAME_REGION, LAY_NAME_RECORD, LAY_NAME_VAR, LAY_NAME_KINDS };

struct lay_name_slot {
	uint32_t index_plus_1;	/* 0: empty */
	uint32_t hash;
};

/* Open addressing, at most half full; cap a power of two. */
struct lay_names {
	struct lay_name_slot *slots;
	size_t cap, count;
};

struct rfm_layout {
	unsigned int refs;	/* atomic: the caller's plus one per open handle */
	bool finished;
	char *name;
	char *source;		/* file name for diagnostics */
	char *text;		/* the YAML it was loaded from (recordings keep it), or NULL */
	size_t text_len;
	uint64_t window_size;
	uint32_t max_nodes;	/* writers must be below this */
	struct lay_pos pos_window, pos_nodes;

	struct lay_region *regions;
	size_t nregions, cap_regions;
	struct lay_record *records;
	size_t nrecords, cap_records;
	struct lay_var *vars;
	size_t nvars, cap_vars;
	struct lay_item *items;
	size_t nitems, cap_items;
	/* Names to indexes, filled as the builder adds (layout-index.c). */
	struct lay_names names[LAY_NAME_KINDS];
};

/*
 * What a handle on one entry of a layout holds, variables and records
 * alike: the layout (referenced for the handle's life), the entry, and
 * the ownership and read settings. rfm__lay_handle_init() sets it up,
 * rfm__lay_handle_release() lets the layout go.
 */
struct lay_handle {
	rfm_layout *layout;	/* referenced */
	size_t index;		/* into layout->vars or layout->records */
	uint32_t max_tries;	/* seqlock reads before RFM_ETORN */
	bool foreign;		/* the node is not the region's writer */
	bool enforce_owner;	/* refuse writes when foreign */
	bool observer;		/* opened through an observer: never writes, whatever the check */
};

/*
 * A variable resolved on a node. The first fields are all a successful
 * get or set reads: the element address, the bounds and the flags that
 * say whether the one-load (one-store) fast path applies.
 */
struct rfm_var {
	uint8_t *addr;		/* element 0 of what the handle covers */
	uint32_t count;		/* elements covered */
	uint8_t type;
	uint8_t esize;
	bool swap;		/* byte order differs from the host's */
	bool fast_get;		/* not in a record: a get is one atomic load */
	bool fast_set;		/* and writable, no limits: a set is one store */
	bool seq_swap;
	uint8_t *seq;		/* sequence word of its record (direct handles), or NULL */
	struct lay_range range;	/* a set outside it fails */
	struct lay_handle lh;	/* index into layout->vars */
	uint32_t first;		/* first element covered */
	char *name;		/* as resolved, with [index] */
	rfm_node *node;		/* a node whose backend replicates by software (dds:), else NULL */
};

/* A record resolved on a node. */
struct rfm_record {
	uint8_t *seq;
	uint8_t *data;
	size_t size;
	bool swap;
	bool atomic_copy;	/* data moved as words (rfm__window_copy(), dds:) */
	struct lay_handle lh;	/* index into layout->records */
	uint8_t *image;		/* private copy for fetch/publish */
	rfm_node *node;
	uint32_t notify;	/* event type broadcast after a publish, 0: none */
};

/* var.c: refresh the fast-path flags after a change of the handle's settings. */
void rfm__var_update_flags(struct rfm_var *var);
/* Consistent copy of elements [first, first+n) of @var into @dst, host order. */
int rfm__var_read_elems(const struct rfm_var *var, uint32_t first, uint32_t n, void *dst);
/* Checked store of elements from @src (host order): owner, limits, record. */
int rfm__var_write_elems(struct rfm_var *var, uint32_t first, uint32_t n, const void *src);
/*
 * Set up a handle on @var_index of @layout at @addr (shared by var and
 * record code), opened through @node, or NULL for a variable of a
 * record's private image (never foreign, never replicated).
 */
int rfm__var_new(rfm_layout *layout, size_t var_index, rfm_node *node, uint32_t first,
		 uint32_t count, uint8_t *addr, const char *name, rfm_var **varp);

/* ---- types (layout-types.c) ---- */

/* Bytes of one element; 0 for an unknown type. */
unsigned int rfm__type_size(int type);
bool rfm__type_is_integer(int type);
bool rfm__type_is_signed(int type);
bool rfm__type_is_float(int type);
/* Has a numeric value (integers and floats, not bool/string/bytes). */
bool rfm__type_is_numeric(int type);
/* Representable range as doubles, for limit checks. */
void rfm__type_range(int type, double *lo, double *hi);
/* The type named @name, or 0. */
int rfm__type_from_name(const char *name);
/* Layout names: [A-Za-z][A-Za-z0-9_]*, at most LAY_NAME_MAX characters. */
bool rfm__valid_name(const char *name);

/* ---- diagnostics (layout-diag.c) ---- */

struct rfm_diag_list *rfm__diag_list_new(const char *file);
__attribute__((format(RFM_PRINTF_FORMAT, 4, 5)))
void rfm__diag(struct rfm_diag_list *list, struct lay_pos pos, int code, const char *fmt, ...);
/* Sort by position; set rfm_last_error(); return RFM_ELAYOUT (or ENOMEM). */
int rfm__diag_finish(struct rfm_diag_list *list);

/* ---- the object, its internal builder, lookups (layout.c) ---- */

int rfm__layout_create(const char *name, const char *source, uint64_t window_size,
		       rfm_layout **layoutp);
/* Each returns the new index, or a negative error (only RFM_ENOMEM). */
int rfm__layout_push_region(rfm_layout *layout, const struct rfm_region_spec *spec,
			    const struct lay_pos pos[4]);
int rfm__layout_push_record(rfm_layout *layout, uint32_t region,
			    const struct rfm_record_spec *spec, const struct lay_pos pos[3]);
int rfm__layout_push_var(rfm_layout *layout, uint32_t region, uint32_t record,
			 const struct rfm_var_spec *spec, const struct lay_pos pos[6]);
void rfm__layout_unref(rfm_layout *layout);
/*
 * Set up @lh on entry @index of @layout, whose region is @region, opened
 * through @node (NULL: no node, never foreign): a reference to the
 * layout, ownership enforced, the default read tries.
 */
void rfm__lay_handle_init(struct lay_handle *lh, rfm_layout *layout, size_t index,
			  uint32_t region, const rfm_node *node);
/* Drop @lh's reference to its layout. */
void rfm__lay_handle_release(struct lay_handle *lh);
/* Whether a handle may write its entry: its node's region, or the check relaxed. */
static inline bool rfm__lay_handle_may_write(const struct lay_handle *lh)
{
	return !(lh->foreign && lh->enforce_owner) && !lh->observer;
}
/*
 * The checks of opening a handle on @layout's @name through @node
 * (@what: the function, for messages): no NULL argument (@out: where the
 * handle goes), a finished layout, a window as large as the layout's.
 */
int rfm__layout_open_check(const char *what, const rfm_layout *layout, const rfm_node *node,
			   const char *name, const void *out);
/* Index of the variable/record with this full (dotted) name, or -1. */
long rfm__layout_find_var(const rfm_layout *layout, const char *full, size_t len);
long rfm__layout_find_record(const rfm_layout *layout, const char *full, size_t len);
/* Index of the region named by the first @len bytes of @name, or -1. */
long rfm__layout_find_region(const rfm_layout *layout, const char *name, size_t len);
/* Validate @layout (layout-check.c) with @diags, which it takes: on
 * success the layout is finished; on failure *@diagsp (when given and
 * there are problems) gets the list. 0 or the first problem's code. */
int rfm__layout_validate(rfm_layout *layout, struct rfm_diag_list *diags, rfm_diag_list **diagsp);
/* Full descriptions (layout-info.c), for the public info calls and handles. */
void rfm__record_info(const rfm_layout *layout, size_t index, struct rfm_record_info *full);
void rfm__var_info(const rfm_layout *layout, size_t index, struct rfm_var_info *full);

/* ---- indexes (layout-index.c) ---- */

/* Note entry @index of @kind under its name (the first of a name stays). */
int rfm__lay_names_add(rfm_layout *layout, enum lay_name_kind kind, size_t index);
/* The entry of @kind named by the @len bytes at @name, or -1. */
long rfm__lay_names_find(const rfm_layout *layout, enum lay_name_kind kind, const char *name,
			 size_t len);
void rfm__lay_names_free(rfm_layout *layout);

/*
 * Indexes grouped by an owner (region or record), each group in the
 * original order: group g holds idx[first[g] .. first[g + 1]). Built by a
 * counting sort, so walking every region's (record's) children is linear
 * in the layout's size.
 */
struct lay_groups {
	size_t *first;
	uint32_t *idx;
};

/* @owner[i] is the group of element i, or a value >= @ngroups for none;
 * false: out of memory (nothing to free). */
bool rfm__lay_groups_build(struct lay_groups *g, size_t ngroups, const uint32_t *owner, size_t n);
void rfm__lay_groups_free(struct lay_groups *g);

#define LAY_GROUP_FOR(g, k, var)                                                    \
	for (size_t var##_at = (g)->first[k], var;                                  \
	     var##_at < (g)->first[(k) + 1] && ((var = (g)->idx[var##_at]), true); \
	     var##_at++)

/* ---- rings declared in regions (layout-ring.c) ---- */

/* Give region @region the ring @config (copied; its struct_size may be an
 * older caller's), declared at @pos. */
void rfm__layout_set_ring(rfm_layout *layout, uint32_t region, const struct rfm_ring_config *config,
			  struct lay_pos pos);
/* Before the regions are checked: each ring's table rows (the layout's
 * nodes), its footprint as the region's size when none was given, and what
 * is wrong with a ring region (alignment, room, contents). */
void rfm__layout_check_rings(rfm_layout *layout, struct rfm_diag_list *diags);

/* ---- validation and placement (layout-check.c) ---- */

/* Place automatic offsets and report every problem into @diags. */
void rfm__layout_check(rfm_layout *layout, struct rfm_diag_list *diags);

/* ---- YAML (layout-yaml.c) ---- */

int rfm__layout_parse_yaml(const char *text, size_t len, const char *source,
			   rfm_layout **layoutp, struct rfm_diag_list *diags);

/* ---- handle helpers ---- */

/*
 * Split "name[index]" into the name's length and the index; *has_index
 * tells whether brackets were present. RFM_ENOTFOUND/EINVAL on bad syntax.
 */
int rfm__split_index(const char *name, size_t *name_len, bool *has_index, uint32_t *index);

#endif /* RFM_LAYOUT_INTERNAL_H */
