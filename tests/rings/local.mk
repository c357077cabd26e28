# SPDX-License-Identifier: LGPL-2.1-or-later
# Ring suites (src/ring*.c): in-process ring API, rings across processes,
# damage, copies, inspection. Backend: RFM_TEST_BACKEND; test-rings-damage
# forges the shm: segment, so it runs on shm: only.

if WITH_TESTS

ring_tests = \
	tests/rings/test-rings-api \
	tests/rings/test-rings-xproc \
	tests/rings/test-rings-damage \
	tests/rings/test-rings-copies \
	tests/rings/test-rings-inspect \
	tests/rings/test-rings-wire \
	tests/rings/test-rings-layout

check_PROGRAMS += $(ring_tests)
TESTS += $(ring_tests)

tests_rings_test_rings_api_SOURCES = tests/rings/test-rings-api.c
tests_rings_test_rings_api_CPPFLAGS = $(rfm_test_cppflags)
tests_rings_test_rings_api_LDADD = $(rfm_test_ldadd) -lpthread

tests_rings_test_rings_layout_SOURCES = tests/rings/test-rings-layout.c
tests_rings_test_rings_layout_CPPFLAGS = $(rfm_test_cppflags)
tests_rings_test_rings_layout_LDADD = $(rfm_test_ldadd)

tests_rings_test_rings_xproc_SOURCES = tests/rings/test-rings-xproc.c
tests_rings_test_rings_xproc_CPPFLAGS = $(rfm_test_cppflags)
tests_rings_test_rings_xproc_LDADD = $(rfm_test_ldadd)



tests_rings_test_rings_damage_SOURCES = tests/rings/test-rings-damage.c
tests_rings_test_rings_damage_CPPFLAGS = $(rfm_test_cppflags)
tests_rings_test_rings_damage_LDADD = $(rfm_test_ldadd) -lpthread

tests_rings_test_rings_copies_SOURCES = tests/rings/test-rings-copies.c
tests_rings_test_rings_copies_CPPFLAGS = $(rfm_test_cppflags)
tests_rings_test_rings_copies_LDADD = $(rfm_test_ldadd)

tests_rings_test_rings_inspect_SOURCES = tests/rings/test-rings-inspect.c
tests_rings_test_rings_inspect_CPPFLAGS = $(rfm_test_cppflags)
tests_rings_test_rings_inspect_LDADD = $(rfm_test_ldadd)

tests_rings_test_rings_wire_SOURCES = tests/rings/test-rings-wire.c
tests_rings_test_rings_wire_CPPFLAGS = $(rfm_test_cppflags)
tests_rings_test_rings_wire_LDADD = $(rfm_test_ldadd)

endif
