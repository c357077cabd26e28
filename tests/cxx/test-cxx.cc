/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public headers compile and link as C++: extern "C" linkage, the
 * inline accessors, the version macros. A program, not a CMocka suite:
 * what it proves is mostly that it builds.
 */
#include <cstdio>
#include <cstring>

#include <rfm/rfm.h>

static_assert(RFM_VERSION == RFM_VERSION_ENCODE(RFM_VERSION_MAJOR, RFM_VERSION_MINOR,
						 RFM_VERSION_PATCH),
	      "version macros agree");

static int failures;

static void check(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "test-cxx: FAIL: %s\n", what);
		failures++;
	}
}

int main()
{
	unsigned char window[64] = {};
	rfm_node *node = nullptr;

	check(rfm_version() == RFM_VERSION, "rfm_version() == RFM_VERSION");
	check(std::strcmp(rfm_version_string(), RFM_VERSION_STRING) == 0, "version string");
	check(std::strcmp(rfm_strerror(RFM_ERANGE), "") != 0, "rfm_strerror");
	check(rfm_open("nope:x", &node) == RFM_ESCHEME && node == nullptr, "rfm_open error path");
	check(std::strstr(rfm_last_error(), "nope:x") != nullptr, "rfm_last_error");

	rfm_store64_release(window, 8, 0x0102030405060708ull);
	check(rfm_load64_acquire(window, 8) == 0x0102030405060708ull, "64-bit accessors");
	rfm_store8(window, 1, 0xff);
	check(rfm_load8(window, 1) == 0xff, "8-bit accessors");
	rfm_fence_full();

	struct rfm_node_info info = {};
	info.struct_size = sizeof(info);
	check(rfm_node_get_info(nullptr, &info) == RFM_EINVAL, "rfm_node_get_info(NULL)");
	return failures ? 1 : 0;
}
