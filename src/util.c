/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers several modules share (internal.h): the versioned
 * out-structs of the API, growing an array, a zero test.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

int rfm__sized_check(const char *fn, const void *obj, const void *st, uint32_t struct_size,
		     size_t min_size)
{
	if (!obj || !st)
		return rfm__error(RFM_EINVAL, "%s: NULL argument", fn);
	if (struct_size < min_size)
		return rfm__error(RFM_EINVAL, "%s: struct_size %u is too small (set it to sizeof)",
				  fn, struct_size);
	return 0;
}

void rfm__sized_fill(void *out, void *full, size_t full_size)
{
	uint32_t want, n;

	memcpy(&want, out, sizeof(want));
	n = want < full_size ? want : (uint32_t)full_size;
	memcpy(full, &n, sizeof(n));
	memcpy(out, full, n);
}

int rfm__grow(void *arrayp, size_t *cap, size_t count, size_t size)
{
	void **array = arrayp;

	if (count < *cap)
		return 0;
	size_t ncap = *cap ? 2 * *cap : 8;
	void *p = realloc(*array, ncap * size);
	if (!p)
		return RFM_ENOMEM;
	*array = p;
	*cap = ncap;
	return 0;
}

bool rfm__all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}
