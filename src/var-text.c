/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Values as text, for tools and bindings: formatting a variable's value
 * and parsing one for it. Not on any hot path (it allocates).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout-internal.h"

struct out {
	char *buf;
	size_t len, used;	/* used may exceed len: then it did not fit */
};

__attribute__((format(RFM_PRINTF_FORMAT, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = o->used < o->len ? o->len - o->used : 0;

	va_start(ap, fmt);
	int n = vsnprintf(room ? o->buf + o->used : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

static void put_elem(struct out *o, int type, const uint8_t *p)
{
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; int8_t i8; int16_t i16;
		int32_t i32; int64_t i64; float f32; double f64; } v;

	memcpy(&v, p, rfm__type_size(type));
	switch (type) {
	case RFM_TYPE_U8: put(o, "%" PRIu8, v.u8); break;
	case RFM_TYPE_U16: put(o, "%" PRIu16, v.u16); break;
	case RFM_TYPE_U32: put(o, "%" PRIu32, v.u32); break;
	case RFM_TYPE_U64: put(o, "%" PRIu64, v.u64); break;
	case RFM_TYPE_I8: put(o, "%" PRId8, v.i8); break;
	case RFM_TYPE_I16: put(o, "%" PRId16, v.i16); break;
	case RFM_TYPE_I32: put(o, "%" PRId32, v.i32); break;
	case RFM_TYPE_I64: put(o, "%" PRId64, v.i64); break;
	case RFM_TYPE_F32: put(o, "%.9g", (double)v.f32); break;
	case RFM_TYPE_F64: put(o, "%.17g", v.f64); break;
	case RFM_TYPE_BOOL: put(o, "%s", v.u8 ? "true" : "false"); break;
	}
}

static void put_string(struct out *o, const uint8_t *s, size_t n)
{
	put(o, "\"");
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '"' || s[i] == '\\')
			put(o, "\\%c", s[i]);
		else if (s[i] == '\n')
			put(o, "\\n");
		else if (s[i] < 0x20 || s[i] >= 0x7f)
			put(o, "\\x%02x", s[i]);
		else
			put(o, "%c", s[i]);
	}
	put(o, "\"");
}

RFM_API int rfm_var_get_text(const rfm_var *var, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	uint8_t *vals;
	int ret;

	if (!var || (!buf && len))
		return rfm__error(RFM_EINVAL, "rfm_var_get_text: NULL argument");
	vals = malloc((size_t)var->count * var->esize);
	if (!vals)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", var->name);
	ret = rfm__var_read_elems(var, 0, var->count, vals);
	if (ret)
		goto out;
	if (var->type == RFM_TYPE_STRING) {
		put_string(&o, vals, var->count);
	} else if (var->type == RFM_TYPE_BYTES) {
		for (uint32_t i = 0; i < var->count; i++)
			put(&o, "%02x", vals[i]);
	} else if (var->count == 1) {
		put_elem(&o, var->type, vals);
	} else {
		put(&o, "[");
		for (uint32_t i = 0; i < var->count; i++) {
			put(&o, i ? ", " : "");
			put_elem(&o, var->type, vals + (size_t)i * var->esize);
		}
		put(&o, "]");
	}
	if (o.used >= len)
		ret = rfm__error(RFM_ERANGE, "%s: its text needs %zu bytes, the buffer has %zu",
				 var->name, o.used + 1, len);
	else
		ret = (int)o.used;
out:
	free(vals);
	return ret;
}

/*
 * Store the @size low bytes of @bits in host order: an integer narrowed to
 * its type (two's complement, so signed and unsigned store alike).
 */
static void store_int(void *dst, uint64_t bits, size_t size)
{
	uint32_t u32 = (uint32_t)bits;
	uint16_t u16 = (uint16_t)bits;
	uint8_t u8 = (uint8_t)bits;

	memcpy(dst, size == 8 ? (void *)&bits : size == 4 ? (void *)&u32
		    : size == 2 ? (void *)&u16 : (void *)&u8,
	       size);
}

/* Parse one element of @type from @text (trimmed) into @dst. */
static int parse_elem(const rfm_var *var, const char *text, void *dst)
{
	int type = var->type;
	char *end;

	errno = 0;
	if (type == RFM_TYPE_BOOL) {
		uint8_t b;
		if (!strcmp(text, "true") || !strcmp(text, "1"))
			b = 1;
		else if (!strcmp(text, "false") || !strcmp(text, "0"))
			b = 0;
		else
			return rfm__error(RFM_EINVAL, "%s: '%s' is not a bool (true, false, 1, 0)",
					  var->name, text);
		memcpy(dst, &b, 1);
		return 0;
	}
	if (rfm__type_is_float(type)) {
		double d = strtod(text, &end);
		if (!text[0] || *end)
			return rfm__error(RFM_EINVAL, "%s: '%s' is not a number", var->name, text);
		if (type == RFM_TYPE_F32) {
			if (isfinite(d) && fabs(d) > FLT_MAX)
				return rfm__error(RFM_ERANGE, "%s: %s is too large for f32",
						  var->name, text);
			float f = (float)d;
			memcpy(dst, &f, 4);
		} else {
			memcpy(dst, &d, 8);
		}
		return 0;
	}
	double lo, hi;
	rfm__type_range(type, &lo, &hi);
	if (rfm__type_is_signed(type)) {
		long long v = strtoll(text, &end, 0);
		if (!text[0] || *end || isspace((unsigned char)text[0]))
			return rfm__error(RFM_EINVAL, "%s: '%s' is not an integer", var->name, text);
		if (errno == ERANGE || (double)v < lo || (double)v > hi)
			return rfm__error(RFM_ERANGE, "%s: %s is outside %s (%.0f..%.0f)", var->name,
					  text, rfm_type_name(type), lo, hi);
		store_int(dst, (uint64_t)v, rfm__type_size(type));
		return 0;
	}
	if (text[0] == '-' || !text[0] || isspace((unsigned char)text[0]))
		return rfm__error(text[0] == '-' ? RFM_ERANGE : RFM_EINVAL,
				  "%s: '%s' is not a %s value", var->name, text, rfm_type_name(type));
	unsigned long long v = strtoull(text, &end, 0);
	if (*end)
		return rfm__error(RFM_EINVAL, "%s: '%s' is not an integer", var->name, text);
	if (errno == ERANGE || (type != RFM_TYPE_U64 && (double)v > hi))
		return rfm__error(RFM_ERANGE, "%s: %s is outside %s (0..%.0f)", var->name, text,
				  rfm_type_name(type), hi);
	store_int(dst, v, rfm__type_size(type));
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int parse_bytes(const rfm_var *var, const char *text, uint8_t *dst)
{
	size_t n = strlen(text);

	if (n >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		text += 2;
		n -= 2;
	}
	if (n % 2)
		return rfm__error(RFM_EINVAL, "%s: hex bytes need an even number of digits",
				  var->name);
	if (n / 2 > var->count)
		return rfm__error(RFM_ERANGE, "%s: %zu bytes do not fit in its %u", var->name,
				  n / 2, var->count);
	memset(dst, 0, var->count);
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return rfm__error(RFM_EINVAL, "%s: '%.2s' is not a hex byte", var->name,
					  text + 2 * i);
		dst[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

RFM_API int rfm_var_set_text(rfm_var *var, const char *text)
{
	char *copy, *s;
	uint8_t *vals;
	int ret = 0;

	if (!var || !text)
		return rfm__error(RFM_EINVAL, "rfm_var_set_text: NULL argument");
	if (var->type == RFM_TYPE_STRING)
		return rfm_var_set_string(var, text);
	copy = strdup(text);
	vals = calloc(var->count, var->esize);
	if (!copy || !vals) {
		ret = rfm__error(RFM_ENOMEM, "%s: out of memory", var->name);
		goto out;
	}
	s = trim(copy);
	if (var->type == RFM_TYPE_BYTES) {
		ret = parse_bytes(var, s, vals);
	} else {
		size_t n = strlen(s);
		if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
			s[n - 1] = '\0';
			s = trim(s + 1);
		}
		uint32_t count = 0;
		char *item = s, *comma;
		do {
			comma = strchr(item, ',');
			if (comma)
				*comma = '\0';
			if (count == var->count) {
				ret = rfm__error(RFM_EINVAL, "%s: more than its %u values given",
						 var->name, var->count);
				goto out;
			}
			ret = parse_elem(var, trim(item), vals + (size_t)count * var->esize);
			if (ret)
				goto out;
			count++;
			if (comma)
				item = comma + 1;
		} while (comma);
		if (count != var->count) {
			ret = rfm__error(RFM_EINVAL, "%s: %u value%s given, it has %u elements",
					 var->name, count, count == 1 ? "" : "s", var->count);
			goto out;
		}
	}
	if (!ret)
		ret = rfm__var_write_elems(var, 0, var->count, vals);
out:
	free(copy);
	free(vals);
	return ret;
}
