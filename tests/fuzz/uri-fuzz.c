/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer harness of the URI parser and the parameter parsers every
 * backend uses: any text must parse or fail with a code — never a crash,
 * a leak or undefined behaviour.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "node", "size", "mode", "depth",
					    "loopback", "shared", "spin" };
	struct rfm_uri uri;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (rfm__uri_parse(text, &uri) == 0) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const char *value = rfm__uri_take(&uri, keys[i]);
			uint64_t n;

			if (value) {
				rfm__parse_u64(value, &n);
				rfm__parse_size(value, &n);
			}
		}
		rfm__uri_check_all_used(&uri);
		rfm__uri_free(&uri);
	}
	/* Whatever the last failure was, its message is a terminated string. */
	if (strlen(rfm_last_error()) >= 512)
		__builtin_trap();
	free(text);
	return 0;
}
