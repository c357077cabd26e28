# SPDX-License-Identifier: LGPL-2.1-or-later
# The core (src/: errors, versions, URIs, nodes, memory, accessors,
# faults, real-time options) on the backend under test, RFM_TEST_BACKEND.

if WITH_TESTS
core_tests = \
	tests/core/test-errors \
	tests/core/test-version \
	tests/core/test-uri \
	tests/core/test-open \
	tests/core/test-memory \
	tests/core/test-access \
	tests/core/test-multinode \
	tests/core/test-open-race \
	tests/core/test-publish \
	tests/core/test-fault \
	tests/core/test-rt \
	tests/core/test-observe
check_PROGRAMS += $(core_tests)
TESTS += $(core_tests)

tests_core_test_observe_SOURCES = tests/core/test-observe.c
tests_core_test_observe_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_observe_LDADD = $(rfm_test_ldadd)

tests_core_test_rt_SOURCES = tests/core/test-rt.c
tests_core_test_rt_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_rt_LDADD = $(rfm_test_ldadd)

tests_core_test_fault_SOURCES = tests/core/test-fault.c
tests_core_test_fault_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_fault_LDADD = $(rfm_test_ldadd)

tests_core_test_errors_SOURCES = tests/core/test-errors.c
tests_core_test_errors_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_errors_LDADD = $(rfm_test_ldadd)

tests_core_test_version_SOURCES = tests/core/test-version.c
tests_core_test_version_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_version_LDADD = $(rfm_test_ldadd)

tests_core_test_uri_SOURCES = tests/core/test-uri.c
tests_core_test_uri_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_uri_LDADD = $(rfm_test_ldadd)

tests_core_test_open_SOURCES = tests/core/test-open.c
tests_core_test_open_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_open_LDADD = $(rfm_test_ldadd)

tests_core_test_memory_SOURCES = tests/core/test-memory.c
tests_core_test_memory_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_memory_LDADD = $(rfm_test_ldadd)

# Looks the exported accessor twins up with dlsym().
tests_core_test_access_SOURCES = tests/core/test-access.c
tests_core_test_access_CPPFLAGS = $(rfm_test_cppflags) \
	-DLIBRFM_MAP='"$(abs_top_srcdir)/src/librfm.map"'
tests_core_test_access_LDADD = $(rfm_test_ldadd) -ldl

tests_core_test_multinode_SOURCES = tests/core/test-multinode.c
tests_core_test_multinode_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_multinode_LDADD = $(rfm_test_ldadd)

# Interposes flock() (dlsym RTLD_NEXT) to stage a creation race exactly.
tests_core_test_open_race_SOURCES = tests/core/test-open-race.c
tests_core_test_open_race_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_open_race_LDADD = $(rfm_test_ldadd) -ldl

tests_core_test_publish_SOURCES = tests/core/test-publish.c
tests_core_test_publish_CPPFLAGS = $(rfm_test_cppflags)
tests_core_test_publish_LDADD = $(rfm_test_ldadd) -ldl

# The one-way stacks of docs/architecture.md, read from the built objects
# with nm: the list of libtool objects of librfm, librfm2g and the dds:
# backend is written by make, so the test follows the sources lists.
TESTS += tests/core/test-layering.sh
layering_objects = $(src_librfm_la_OBJECTS) $(src_librfm2g_librfm2g_core_la_OBJECTS) \
	$(src_backends_dds_librfm_dds_la_OBJECTS)
tests/core/layering-objects.list: $(layering_objects)
	$(AM_V_GEN)$(MKDIR_P) tests/core && printf '%s\n' $(layering_objects) >$@
check_DATA += tests/core/layering-objects.list
CLEANFILES += tests/core/layering-objects.list

endif
EXTRA_DIST += tests/core/test-layering.sh tests/core/layering-allow.txt
