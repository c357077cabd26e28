/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Variable handles: a name resolved once into an address and a type, then
 * typed get/set with byte-order conversion, ownership and limits.
 *
 * The success path of a scalar get or set of a plain (non-record)
 * variable is a few compares and one atomic load or store; everything
 * else — errors, limits, records — goes out of line.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout-internal.h"
#include "seqlock.h"

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_ORDER RFM_ORDER_BIG
#else
#define HOST_ORDER RFM_ORDER_LITTLE
#endif

#define SWAP16(x) __builtin_bswap16(x)
#define SWAP32(x) __builtin_bswap32(x)
#define SWAP64(x) __builtin_bswap64(x)

void rfm__var_update_flags(struct rfm_var *var)
{
	bool writable = rfm__lay_handle_may_write(&var->lh);

	var->fast_get = !var->seq;
	var->fast_set = !var->seq && writable && !var->range.has_min && !var->range.has_max;
}

int rfm__var_new(rfm_layout *layout, size_t var_index, rfm_node *node, uint32_t first,
		 uint32_t count, uint8_t *addr, const char *name, rfm_var **varp)
{
	const struct lay_var *def = &layout->vars[var_index];
	struct rfm_var *var = calloc(1, sizeof(*var));

	if (!var || !(var->name = strdup(name))) {
		free(var);
		return rfm__error(RFM_ENOMEM, "%s: out of memory", name);
	}
	var->addr = addr;
	var->count = count;
	var->type = (uint8_t)def->type;
	var->esize = (uint8_t)rfm__type_size(def->type);
	var->swap = var->esize > 1 && def->byte_order != HOST_ORDER;
	var->range = def->range;
	rfm__lay_handle_init(&var->lh, layout, var_index, def->region, node);
	var->first = first;
	/* Set only where software replicates: one branch for the others. */
	var->node = node && node->ops->publish ? node : NULL;
	*varp = var;
	return 0;
}

/*
 * Resolve "region.var[index]" in @layout: the variable's index, the
 * first element and the number of elements covered.
 */
static int resolve(const rfm_layout *layout, const char *name, size_t *index, uint32_t *first,
		   uint32_t *count)
{
	size_t len;
	bool has_index;
	uint32_t element;

	if (rfm__split_index(name, &len, &has_index, &element))
		return rfm__error(RFM_EINVAL, "'%s' is not a variable name such as region.var or "
				  "region.var[3]", name);
	long i = rfm__layout_find_var(layout, name, len);
	if (i < 0) {
		if (rfm__layout_find_record(layout, name, len) >= 0)
			return rfm__error(RFM_ENOTFOUND,
					  "%s: '%.*s' is a record: open it with rfm_record_open() "
					  "or name one of its variables",
					  layout->name, (int)len, name);
		return rfm__error(RFM_ENOTFOUND, "%s: no variable named '%.*s'", layout->name,
				  (int)len, name);
	}
	const struct lay_var *v = &layout->vars[i];
	*index = (size_t)i;
	*first = 0;
	*count = v->count;
	if (has_index) {
		if (v->type == RFM_TYPE_STRING)
			return rfm__error(RFM_EINVAL, "%s: %s is a string: it has no elements",
					  layout->name, v->full);
		if (element >= v->count)
			return rfm__error(RFM_ENOTFOUND, "%s: %s has %u element%s: [%u] is beyond",
					  layout->name, v->full, v->count, v->count == 1 ? "" : "s",
					  element);
		*first = element;
		*count = 1;
	}
	return 0;
}

RFM_API int rfm_var_open(rfm_layout *layout, rfm_node *node, const char *name, rfm_var **varp)
{
	size_t index = 0;
	uint32_t first = 0, count = 0;
	int ret;

	ret = rfm__layout_open_check("rfm_var_open", layout, node, name, varp);
	if (ret)
		return ret;
	ret = resolve(layout, name, &index, &first, &count);
	if (ret)
		return ret;

	const struct lay_var *def = &layout->vars[index];
	unsigned int esize = rfm__type_size(def->type);
	rfm_var *var;
	ret = rfm__var_new(layout, index, node, first, count,
			   node->base + def->abs + (uint64_t)first * esize, name, &var);
	if (ret)
		return ret;
	if (def->record != LAY_NO_RECORD) {
		const struct lay_record *rec = &layout->records[def->record];
		var->seq = node->base + rec->abs;
		var->seq_swap = rec->byte_order != HOST_ORDER;
	}
	rfm__var_update_flags(var);
	*varp = var;
	return 0;
}

RFM_API void rfm_var_close(rfm_var *var)
{
	if (!var)
		return;
	rfm__lay_handle_release(&var->lh);
	free(var->name);
	free(var);
}

RFM_API int rfm_var_set_owner_check(rfm_var *var, bool enforce)
{
	if (!var)
		return rfm__error(RFM_EINVAL, "rfm_var_set_owner_check: var is NULL");
	var->lh.enforce_owner = enforce;
	rfm__var_update_flags(var);
	return 0;
}

RFM_API int rfm_var_get_info(const rfm_var *var, struct rfm_var_info *info)
{
	struct rfm_var_info full;
	int ret = rfm__sized_check("rfm_var_get_info", var, info, info ? info->struct_size : 0,
				 LAY_VAR_INFO_SIZE_1_0);

	if (ret)
		return ret;
	rfm__var_info(var->lh.layout, var->lh.index, &full);
	full.name = var->name;
	full.offset += (uint64_t)var->first * var->esize;
	full.record_offset += (uint64_t)var->first * var->esize;
	full.count = var->count;
	full.size = (uint64_t)var->count * var->esize;
	rfm__sized_fill(info, &full, sizeof(full));
	return 0;
}

RFM_API const char *rfm_var_name(const rfm_var *var)
{
	return var ? var->name : "";
}

/* ---- element access ---- */

/* Inlined: the typed scalars' fast path is these with a constant size. */
#define ELEM_INLINE static inline __attribute__((always_inline))

ELEM_INLINE void load_elem(const uint8_t *p, unsigned int esize, void *dst)
{
	switch (esize) {
	case 1: { uint8_t v = rfm_load8(p, 0); memcpy(dst, &v, 1); break; }
	case 2: { uint16_t v = rfm_load16(p, 0); memcpy(dst, &v, 2); break; }
	case 4: { uint32_t v = rfm_load32(p, 0); memcpy(dst, &v, 4); break; }
	default: { uint64_t v = rfm_load64(p, 0); memcpy(dst, &v, 8); break; }
	}
}

ELEM_INLINE void store_elem(uint8_t *p, unsigned int esize, const void *src)
{
	switch (esize) {
	case 1: { uint8_t v; memcpy(&v, src, 1); rfm_store8(p, 0, v); break; }
	case 2: { uint16_t v; memcpy(&v, src, 2); rfm_store16(p, 0, v); break; }
	case 4: { uint32_t v; memcpy(&v, src, 4); rfm_store32(p, 0, v); break; }
	default: { uint64_t v; memcpy(&v, src, 8); rfm_store64(p, 0, v); break; }
	}
}

/* Convert one element in place between the window's order and the host's. */
ELEM_INLINE void swap_elem(void *p, unsigned int esize)
{
	switch (esize) {
	case 2: { uint16_t v; memcpy(&v, p, 2); v = SWAP16(v); memcpy(p, &v, 2); break; }
	case 4: { uint32_t v; memcpy(&v, p, 4); v = SWAP32(v); memcpy(p, &v, 4); break; }
	case 8: { uint64_t v; memcpy(&v, p, 8); v = SWAP64(v); memcpy(p, &v, 8); break; }
	}
}

/* The element's value as a double, for limit checks. */
static double as_double(int type, const void *p)
{
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; int8_t i8; int16_t i16;
		int32_t i32; int64_t i64; float f32; double f64; } v;

	memcpy(&v, p, rfm__type_size(type));
	switch (type) {
	case RFM_TYPE_U8: return v.u8;
	case RFM_TYPE_U16: return v.u16;
	case RFM_TYPE_U32: return v.u32;
	case RFM_TYPE_U64: return (double)v.u64;
	case RFM_TYPE_I8: return v.i8;
	case RFM_TYPE_I16: return v.i16;
	case RFM_TYPE_I32: return v.i32;
	case RFM_TYPE_I64: return (double)v.i64;
	case RFM_TYPE_F32: return v.f32;
	case RFM_TYPE_F64: return v.f64;
	default: return 0;
	}
}

int rfm__var_read_elems(const struct rfm_var *var, uint32_t first, uint32_t n, void *dst)
{
	const uint8_t *src = var->addr + (uint64_t)first * var->esize;
	uint8_t *out = dst;
	uint32_t tries = 0;

	for (;;) {
		uint32_t start = var->seq ? rfm__seq_read_begin(var->seq, var->seq_swap) : 0;

		if (!(start & 1)) {
			for (uint32_t i = 0; i < n; i++)
				load_elem(src + (size_t)i * var->esize, var->esize,
					  out + (size_t)i * var->esize);
			if (!var->seq || !rfm__seq_read_retry(var->seq, var->seq_swap, start))
				break;
		}
		if (++tries >= var->lh.max_tries)
			return rfm__error(RFM_ETORN,
					  "%s: its record was being published during all %u tries "
					  "(is its writer alive?)",
					  var->name, var->lh.max_tries);
		rfm__cpu_relax();
	}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *e = out + (size_t)i * var->esize;
		if (var->swap)
			swap_elem(e, var->esize);
		if (var->type == RFM_TYPE_BOOL)
			*e = *e != 0;
	}
	return 0;
}

__attribute__((cold, noinline))
static int owner_error(const struct rfm_var *var)
{
	const rfm_layout *l = var->lh.layout;
	const struct lay_var *def = &l->vars[var->lh.index];

	if (var->lh.observer)
		return rfm__error(RFM_EPERM, "%s: opened through an observer (observe=1), which "
				  "never writes", var->name);
	return rfm__error(RFM_EOWNER,
			  "%s: region %s is written by node %u only (relax with "
			  "rfm_var_set_owner_check())",
			  var->name, l->regions[def->region].name, l->regions[def->region].writer);
}

static int check_limits(const struct rfm_var *var, uint32_t first, uint32_t n, const void *src)
{
	const struct lay_range *r = &var->range;

	if (!r->has_min && !r->has_max)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		double v = as_double(var->type, (const uint8_t *)src + (size_t)i * var->esize);

		if (isnan(v) || (r->has_min && v < r->min) || (r->has_max && v > r->max)) {
			char where[32] = "";
			if (var->count > 1 || first)
				snprintf(where, sizeof(where), "[%u]", var->first + first + i);
			if (r->has_min && r->has_max)
				return rfm__error(RFM_ERANGE, "%s%s: %g is outside its range %g..%g",
						  var->name, where, v, r->min, r->max);
			return rfm__error(RFM_ERANGE, "%s%s: %g is %s its %s %g", var->name, where, v,
					  r->has_min ? "below" : "above",
					  r->has_min ? "minimum" : "maximum",
					  r->has_min ? r->min : r->max);
		}
	}
	return 0;
}

/* After a store into the window through @var: replicate it (dds:). */
static inline int var_published(const struct rfm_var *var, const void *p, uint64_t len)
{
	if (RFM_LIKELY(!var->node))
		return 0;
	return rfm__published(var->node, p, len);
}

int rfm__var_write_elems(struct rfm_var *var, uint32_t first, uint32_t n, const void *src)
{
	uint8_t *dst = var->addr + (uint64_t)first * var->esize;
	const uint8_t *in = src;
	uint32_t even = 0;
	int ret;

	if (!rfm__lay_handle_may_write(&var->lh))
		return owner_error(var);
	ret = check_limits(var, first, n, src);
	if (ret)
		return ret;
	if (var->seq) {
		even = rfm__seq_write_begin(var->seq, var->seq_swap);
		/* A copy per node (dds:): the odd sequence goes out before the data. */
		ret = var_published(var, var->seq, 4);
		if (ret)
			return ret;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t e[8];
		memcpy(e, in + (size_t)i * var->esize, var->esize);
		if (var->type == RFM_TYPE_BOOL)
			e[0] = e[0] != 0;
		if (var->swap)
			swap_elem(e, var->esize);
		store_elem(dst + (size_t)i * var->esize, var->esize, e);
	}
	ret = var_published(var, dst, (uint64_t)n * var->esize);
	if (var->seq) {
		rfm__seq_write_end(var->seq, var->seq_swap, even);
		if (!ret)
			ret = var_published(var, var->seq, 4);
	}
	return ret;
}

/* ---- typed scalars ---- */

static const char *const c_names[] = {
	[RFM_TYPE_U8] = "u8",	[RFM_TYPE_U16] = "u16", [RFM_TYPE_U32] = "u32",
	[RFM_TYPE_U64] = "u64", [RFM_TYPE_I8] = "i8",	[RFM_TYPE_I16] = "i16",
	[RFM_TYPE_I32] = "i32", [RFM_TYPE_I64] = "i64", [RFM_TYPE_F32] = "f32",
	[RFM_TYPE_F64] = "f64", [RFM_TYPE_BOOL] = "bool",
};

/* Why a typed call cannot proceed (never returns 0). */
__attribute__((cold, noinline))
static int scalar_error(const rfm_var *var, uint32_t index, bool null_value, int type,
			const char *verb)
{
	if (!var || null_value)
		return rfm__error(RFM_EINVAL, "rfm_var_%s_%s: NULL argument", verb, c_names[type]);
	if (var->type != type) {
		const char *t = rfm_type_name(var->type);
		if (var->type == RFM_TYPE_STRING || var->type == RFM_TYPE_BYTES)
			return rfm__error(RFM_EINVAL, "%s is %s: use rfm_var_%s_%s", var->name, t,
					  verb, var->type == RFM_TYPE_STRING ? "string" : "array");
		return rfm__error(RFM_EINVAL, "%s is %s, not %s: use rfm_var_%s_%s", var->name, t,
				  c_names[type], verb, t);
	}
	return rfm__error(RFM_ERANGE, "%s: element %u is beyond its %u element%s", var->name,
			  index, var->count, var->count == 1 ? "" : "s");
}

__attribute__((noinline))
static int get_slow(const rfm_var *var, uint32_t index, void *value, int type)
{
	if (!var || !value || var->type != type || index >= var->count)
		return scalar_error(var, index, !value, type, "get");
	return rfm__var_read_elems(var, index, 1, value);
}

__attribute__((noinline))
static int set_slow(rfm_var *var, uint32_t index, const void *value, int type)
{
	if (!var || var->type != type || index >= var->count)
		return scalar_error(var, index, false, type, "set");
	return rfm__var_write_elems(var, index, 1, value);
}

/*
 * The fast path of every typed get and set, inlined into each with @size
 * a constant, so the element helpers' switches fold away: the checks open
 * did once (fast_get, fast_set) plus the type, the index and the value,
 * one load or store and the byte swap a foreign-order variable needs.
 * Anything else goes to the slow path, which says what is wrong.
 */
ELEM_INLINE int scalar_get(const rfm_var *var, uint32_t index, void *value, int type,
			   unsigned int size)
{
	uint8_t e[8];

	if (RFM_UNLIKELY(!var || !var->fast_get || var->type != type || index >= var->count ||
			 !value))
		return get_slow(var, index, value, type);
	load_elem(var->addr + (uint64_t)index * size, size, e);
	if (var->swap)
		swap_elem(e, size);
	memcpy(value, e, size);
	return 0;
}

ELEM_INLINE int scalar_set(rfm_var *var, uint32_t index, const void *value, int type,
			   unsigned int size)
{
	uint8_t *at;
	uint8_t e[8];

	if (RFM_UNLIKELY(!var || !var->fast_set || var->type != type || index >= var->count))
		return set_slow(var, index, value, type);
	at = var->addr + (uint64_t)index * size;
	memcpy(e, value, size);
	if (var->swap)
		swap_elem(e, size);
	store_elem(at, size, e);
	return var_published(var, at, size);
}

RFM_API int rfm_var_get_u8(const rfm_var *var, uint32_t index, uint8_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_U8, sizeof(*value));
}

RFM_API int rfm_var_set_u8(rfm_var *var, uint32_t index, uint8_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_U8, sizeof(value));
}

RFM_API int rfm_var_get_u16(const rfm_var *var, uint32_t index, uint16_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_U16, sizeof(*value));
}

RFM_API int rfm_var_set_u16(rfm_var *var, uint32_t index, uint16_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_U16, sizeof(value));
}

RFM_API int rfm_var_get_u32(const rfm_var *var, uint32_t index, uint32_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_U32, sizeof(*value));
}

RFM_API int rfm_var_set_u32(rfm_var *var, uint32_t index, uint32_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_U32, sizeof(value));
}

RFM_API int rfm_var_get_u64(const rfm_var *var, uint32_t index, uint64_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_U64, sizeof(*value));
}

RFM_API int rfm_var_set_u64(rfm_var *var, uint32_t index, uint64_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_U64, sizeof(value));
}

RFM_API int rfm_var_get_i8(const rfm_var *var, uint32_t index, int8_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_I8, sizeof(*value));
}

RFM_API int rfm_var_set_i8(rfm_var *var, uint32_t index, int8_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_I8, sizeof(value));
}

RFM_API int rfm_var_get_i16(const rfm_var *var, uint32_t index, int16_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_I16, sizeof(*value));
}

RFM_API int rfm_var_set_i16(rfm_var *var, uint32_t index, int16_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_I16, sizeof(value));
}

RFM_API int rfm_var_get_i32(const rfm_var *var, uint32_t index, int32_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_I32, sizeof(*value));
}

RFM_API int rfm_var_set_i32(rfm_var *var, uint32_t index, int32_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_I32, sizeof(value));
}

RFM_API int rfm_var_get_i64(const rfm_var *var, uint32_t index, int64_t *value)
{
	return scalar_get(var, index, value, RFM_TYPE_I64, sizeof(*value));
}

RFM_API int rfm_var_set_i64(rfm_var *var, uint32_t index, int64_t value)
{
	return scalar_set(var, index, &value, RFM_TYPE_I64, sizeof(value));
}

RFM_API int rfm_var_get_f32(const rfm_var *var, uint32_t index, float *value)
{
	return scalar_get(var, index, value, RFM_TYPE_F32, sizeof(*value));
}

RFM_API int rfm_var_set_f32(rfm_var *var, uint32_t index, float value)
{
	return scalar_set(var, index, &value, RFM_TYPE_F32, sizeof(value));
}

RFM_API int rfm_var_get_f64(const rfm_var *var, uint32_t index, double *value)
{
	return scalar_get(var, index, value, RFM_TYPE_F64, sizeof(*value));
}

RFM_API int rfm_var_set_f64(rfm_var *var, uint32_t index, double value)
{
	return scalar_set(var, index, &value, RFM_TYPE_F64, sizeof(value));
}

RFM_API int rfm_var_get_bool(const rfm_var *var, uint32_t index, bool *value)
{
	uint8_t raw;
	int ret = get_slow(var, index, value ? &raw : NULL, RFM_TYPE_BOOL);

	if (!ret)
		*value = raw != 0;
	return ret;
}

RFM_API int rfm_var_set_bool(rfm_var *var, uint32_t index, bool value)
{
	uint8_t raw = value ? 1 : 0;

	return set_slow(var, index, &raw, RFM_TYPE_BOOL);
}

/* ---- arrays and strings ---- */

static int range_args(const rfm_var *var, uint32_t first, uint32_t count, const void *buf,
		      size_t len, const char *what)
{
	if (!var || (!buf && count))
		return rfm__error(RFM_EINVAL, "%s: NULL argument", what);
	if (first > var->count || count > var->count - first)
		return rfm__error(RFM_ERANGE, "%s: elements [%u, %llu) are beyond the %u of %s",
				  what, first, (unsigned long long)first + count, var->count,
				  var->name);
	if (len / var->esize < count)
		return rfm__error(RFM_EINVAL, "%s: %zu bytes cannot hold %u %s elements of %s",
				  what, len, count, rfm_type_name(var->type), var->name);
	return 0;
}

RFM_API int rfm_var_get_array(const rfm_var *var, uint32_t first, uint32_t count, void *buf,
			      size_t len)
{
	int ret = range_args(var, first, count, buf, len, "rfm_var_get_array");

	return ret ? ret : rfm__var_read_elems(var, first, count, buf);
}

RFM_API int rfm_var_set_array(rfm_var *var, uint32_t first, uint32_t count, const void *buf,
			      size_t len)
{
	int ret = range_args(var, first, count, buf, len, "rfm_var_set_array");

	return ret ? ret : rfm__var_write_elems(var, first, count, buf);
}

RFM_API int rfm_var_get_string(const rfm_var *var, char *buf, size_t len)
{
	if (!var || !buf)
		return rfm__error(RFM_EINVAL, "rfm_var_get_string: NULL argument");
	if (var->type != RFM_TYPE_STRING)
		return rfm__error(RFM_EINVAL, "%s is %s, not string", var->name,
				  rfm_type_name(var->type));
	/* Read into the caller's buffer when it is big enough, else in pieces. */
	char tmp[256];
	char *dst = len > var->count ? buf : (var->count < sizeof(tmp) ? tmp : NULL);
	if (!dst) {
		dst = malloc(var->count + 1);
		if (!dst)
			return rfm__error(RFM_ENOMEM, "%s: out of memory", var->name);
	}
	int ret = rfm__var_read_elems(var, 0, var->count, dst);
	if (!ret) {
		size_t n = strnlen(dst, var->count);
		if (n >= len)
			ret = rfm__error(RFM_ERANGE, "%s: %zu characters do not fit in %zu bytes",
					 var->name, n, len);
		else {
			memmove(buf, dst, n);
			buf[n] = '\0';
			ret = (int)n;
		}
	}
	if (dst != buf && dst != tmp)
		free(dst);
	return ret;
}

RFM_API int rfm_var_set_string(rfm_var *var, const char *text)
{
	if (!var || !text)
		return rfm__error(RFM_EINVAL, "rfm_var_set_string: NULL argument");
	if (var->type != RFM_TYPE_STRING)
		return rfm__error(RFM_EINVAL, "%s is %s, not string", var->name,
				  rfm_type_name(var->type));
	size_t n = strlen(text);
	if (n > var->count)
		return rfm__error(RFM_ERANGE, "%s: %zu characters do not fit in its %u bytes",
				  var->name, n, var->count);
	char tmp[256];
	char *src = var->count <= sizeof(tmp) ? tmp : calloc(1, var->count);
	if (!src)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", var->name);
	memset(src, 0, var->count);
	memcpy(src, text, n);
	int ret = rfm__var_write_elems(var, 0, var->count, src);
	if (src != tmp)
		free(src);
	return ret;
}

RFM_API int rfm_var_get_view(rfm_var *var, struct rfm_var_view *view)
{
	struct rfm_var_view full;
	/* Every field is needed by the inline code: no smaller (older) layout exists yet. */
	int ret = rfm__sized_check("rfm_var_get_view", var, view, view ? view->struct_size : 0,
				 offsetof(struct rfm_var_view, reserved));

	if (ret)
		return ret;
	memset(&full, 0, sizeof(full));
	uint32_t key = var->type | (var->swap ? RFM_VIEW_SWAPPED : 0);
	full.count = var->count;
	/* Bool is not on the inline path: the library normalises it to 0/1. */
	bool plain = var->type != RFM_TYPE_BOOL && var->type != RFM_TYPE_STRING &&
		     var->type != RFM_TYPE_BYTES;
	full.get_key = plain && var->fast_get ? key : 0;
	/* A store that must be sent to the other copies (dds:, var->node set)
	 * is never inline: the caller's code cannot send it. */
	full.set_key = plain && var->fast_set && !var->node ? key : 0;
	full.addr = var->addr;
	full.var = var;
	rfm__sized_fill(view, &full, sizeof(full));
	return 0;
}
