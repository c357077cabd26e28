/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The element types of typed-variable tables, and the names they go by. */
#include "config.h"

#include <float.h>
#include <string.h>

#include "layout-internal.h"

struct type_desc {
	const char *name;
	unsigned int size;
};

static const struct type_desc types[] = {
	[RFM_TYPE_U8] = { "u8", 1 },	   [RFM_TYPE_U16] = { "u16", 2 },
	[RFM_TYPE_U32] = { "u32", 4 },	   [RFM_TYPE_U64] = { "u64", 8 },
	[RFM_TYPE_I8] = { "i8", 1 },	   [RFM_TYPE_I16] = { "i16", 2 },
	[RFM_TYPE_I32] = { "i32", 4 },	   [RFM_TYPE_I64] = { "i64", 8 },
	[RFM_TYPE_F32] = { "f32", 4 },	   [RFM_TYPE_F64] = { "f64", 8 },
	[RFM_TYPE_BOOL] = { "bool", 1 },   [RFM_TYPE_STRING] = { "string", 1 },
	[RFM_TYPE_BYTES] = { "bytes", 1 },
};

static bool known(int type)
{
	return type > 0 && (size_t)type < RFM_ARRAY_SIZE(types);
}

RFM_API const char *rfm_type_name(int type)
{
	return known(type) ? types[type].name : "";
}

unsigned int rfm__type_size(int type)
{
	return known(type) ? types[type].size : 0;
}

bool rfm__type_is_integer(int type)
{
	return type >= RFM_TYPE_U8 && type <= RFM_TYPE_I64;
}

bool rfm__type_is_signed(int type)
{
	return type >= RFM_TYPE_I8 && type <= RFM_TYPE_I64;
}

bool rfm__type_is_float(int type)
{
	return type == RFM_TYPE_F32 || type == RFM_TYPE_F64;
}

bool rfm__type_is_numeric(int type)
{
	return rfm__type_is_integer(type) || rfm__type_is_float(type);
}

void rfm__type_range(int type, double *lo, double *hi)
{
	switch (type) {
	case RFM_TYPE_U8: *lo = 0; *hi = UINT8_MAX; break;
	case RFM_TYPE_U16: *lo = 0; *hi = UINT16_MAX; break;
	case RFM_TYPE_U32: *lo = 0; *hi = UINT32_MAX; break;
	case RFM_TYPE_U64: *lo = 0; *hi = (double)UINT64_MAX; break;
	case RFM_TYPE_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
	case RFM_TYPE_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
	case RFM_TYPE_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
	case RFM_TYPE_I64: *lo = (double)INT64_MIN; *hi = (double)INT64_MAX; break;
	case RFM_TYPE_F32: *lo = -FLT_MAX; *hi = FLT_MAX; break;
	default: *lo = -DBL_MAX; *hi = DBL_MAX; break;
	}
}

int rfm__type_from_name(const char *name)
{
	for (size_t i = 1; i < RFM_ARRAY_SIZE(types); i++)
		if (!strcmp(types[i].name, name))
			return (int)i;
	return 0;
}

bool rfm__valid_name(const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (len == 0 || len > LAY_NAME_MAX)
		return false;
	if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

int rfm__split_index(const char *name, size_t *name_len, bool *has_index, uint32_t *index)
{
	const char *open = strchr(name, '[');
	uint64_t value = 0;

	*has_index = false;
	*index = 0;
	if (!open) {
		*name_len = strlen(name);
		return 0;
	}
	*name_len = (size_t)(open - name);
	const char *p = open + 1;
	if (*p < '0' || *p > '9')
		return RFM_EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		value = value * 10 + (uint64_t)(*p - '0');
		if (value > UINT32_MAX)
			return RFM_EINVAL;
	}
	if (p[0] != ']' || p[1] != '\0')
		return RFM_EINVAL;
	*has_index = true;
	*index = (uint32_t)value;
	return 0;
}
