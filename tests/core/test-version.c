/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The compile-time version macros agree with the library's run-time version. */
#include "config.h"

#include <stdio.h>

#include "harness.h"
#include "rfm-cmocka.h"

static void runtime_matches_headers(void **state)
{
	assert_int_equal(rfm_version(), RFM_VERSION);
	assert_string_equal(rfm_version_string(), RFM_VERSION_STRING);
}

static void headers_match_the_package(void **state)
{
	/* PACKAGE_VERSION comes from AC_INIT, the one place the version is set. */
	assert_string_equal(RFM_VERSION_STRING, PACKAGE_VERSION);
}

static void string_spells_the_numbers(void **state)
{
	unsigned int major, minor, patch;
	char rest;

	assert_int_equal(sscanf(rfm_version_string(), "%u.%u.%u%c", &major, &minor, &patch, &rest),
			 3);
	assert_int_equal(major, RFM_VERSION_MAJOR);
	assert_int_equal(minor, RFM_VERSION_MINOR);
	assert_int_equal(patch, RFM_VERSION_PATCH);
	assert_int_equal(rfm_version(), RFM_VERSION_ENCODE(major, minor, patch));
}

static void encoding_orders_versions(void **state)
{
	/* Fields must not bleed into each other. */
	assert_int_equal(RFM_VERSION_ENCODE(1, 2, 3), 0x010203);
	assert_true(RFM_VERSION_ENCODE(1, 0, 0) > RFM_VERSION_ENCODE(0, 255, 255));
	assert_true(RFM_VERSION_ENCODE(0, 2, 0) > RFM_VERSION_ENCODE(0, 1, 255));
	assert_int_equal((rfm_version() >> 16) & 0xff, RFM_VERSION_MAJOR);
	assert_int_equal((rfm_version() >> 8) & 0xff, RFM_VERSION_MINOR);
	assert_int_equal(rfm_version() & 0xff, RFM_VERSION_PATCH);
}

static void check_version_macro(void **state)
{
	assert_true(RFM_CHECK_VERSION(0, 0, 0));
	assert_true(RFM_CHECK_VERSION(RFM_VERSION_MAJOR, RFM_VERSION_MINOR, RFM_VERSION_PATCH));
	assert_false(RFM_CHECK_VERSION(RFM_VERSION_MAJOR, RFM_VERSION_MINOR, RFM_VERSION_PATCH + 1));
	assert_false(RFM_CHECK_VERSION(RFM_VERSION_MAJOR, RFM_VERSION_MINOR + 1, 0));
	assert_false(RFM_CHECK_VERSION(RFM_VERSION_MAJOR + 1, 0, 0));
#if !RFM_CHECK_VERSION(0, 1, 0)
	fail_msg("RFM_CHECK_VERSION must work in #if");
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(runtime_matches_headers),
		cmocka_unit_test(headers_match_the_package),
		cmocka_unit_test(string_spells_the_numbers),
		cmocka_unit_test(encoding_orders_versions),
		cmocka_unit_test(check_version_macro),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
