# SPDX-License-Identifier: LGPL-2.1-or-later
# The C test suites: CMocka unit tests and multi-process tests. Every suite
# shares the harness in tests/harness/ and runs against the backend named by
# RFM_TEST_BACKEND (default shm). See tests/README.md.

if WITH_TESTS

check_LTLIBRARIES += tests/harness/libharness.la
tests_harness_libharness_la_SOURCES = \
	tests/harness/harness.h \
	tests/harness/harness.c \
	tests/harness/rfm-cmocka.h
tests_harness_libharness_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness

rfm_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
rfm_test_ldadd = tests/harness/libharness.la src/librfm.la $(CMOCKA_LIBS)

rfm_c_tests = \
	tests/test-errors \
	tests/test-version \
	tests/test-uri \
	tests/test-open \
	tests/test-memory \
	tests/test-access \
	tests/test-corrupt \
	tests/test-nospc \
	tests/test-multinode \
	tests/test-open-race \
	tests/test-publish \
	tests/test-fault \
	tests/test-rt \
	tests/test-hugepages \
	tests/test-shm-hostile \
	tests/test-cxx

check_PROGRAMS += $(rfm_c_tests)
TESTS += $(rfm_c_tests)
# Docker's 64 MiB /dev/shm, in a private mount namespace (root only): runs
# examples/minimal and the README's first C block, built here from README.md.
TESTS += tests/test-small-shm.sh
check_PROGRAMS += tests/readme-snippet
nodist_tests_readme_snippet_SOURCES = tests/readme-snippet.c
tests_readme_snippet_LDADD = src/librfm.la
tests/readme-snippet.c: $(top_srcdir)/README.md $(top_srcdir)/tests/readme-snippet.sh
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/tests/readme-snippet.sh $(top_srcdir)/README.md >$@.tmp && mv $@.tmp $@
CLEANFILES += tests/readme-snippet.c
EXTRA_DIST += tests/test-small-shm.sh tests/readme-snippet.sh

tests_test_rt_SOURCES = tests/test-rt.c
tests_test_rt_CPPFLAGS = $(rfm_test_cppflags)
tests_test_rt_LDADD = $(rfm_test_ldadd)

tests_test_hugepages_SOURCES = tests/test-hugepages.c
tests_test_hugepages_CPPFLAGS = $(rfm_test_cppflags)
tests_test_hugepages_LDADD = $(rfm_test_ldadd)

tests_test_fault_SOURCES = tests/test-fault.c
tests_test_fault_CPPFLAGS = $(rfm_test_cppflags)
tests_test_fault_LDADD = $(rfm_test_ldadd)

tests_test_errors_SOURCES = tests/test-errors.c
tests_test_errors_CPPFLAGS = $(rfm_test_cppflags)
tests_test_errors_LDADD = $(rfm_test_ldadd)

tests_test_version_SOURCES = tests/test-version.c
tests_test_version_CPPFLAGS = $(rfm_test_cppflags)
tests_test_version_LDADD = $(rfm_test_ldadd)

tests_test_uri_SOURCES = tests/test-uri.c
tests_test_uri_CPPFLAGS = $(rfm_test_cppflags)
tests_test_uri_LDADD = $(rfm_test_ldadd)

tests_test_open_SOURCES = tests/test-open.c
tests_test_open_CPPFLAGS = $(rfm_test_cppflags)
tests_test_open_LDADD = $(rfm_test_ldadd)

tests_test_memory_SOURCES = tests/test-memory.c
tests_test_memory_CPPFLAGS = $(rfm_test_cppflags)
tests_test_memory_LDADD = $(rfm_test_ldadd)

# Looks the exported accessor twins up with dlsym().
tests_test_access_SOURCES = tests/test-access.c
tests_test_access_CPPFLAGS = $(rfm_test_cppflags) \
	-DLIBRFM_MAP='"$(abs_top_srcdir)/src/librfm.map"'
tests_test_access_LDADD = $(rfm_test_ldadd) -ldl

# Writes segments by hand, so it knows their private layout.
tests_test_corrupt_SOURCES = tests/test-corrupt.c
tests_test_corrupt_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_test_corrupt_LDADD = $(rfm_test_ldadd)

# Scribbles on segments by hand, so it knows their private layout.
tests_test_shm_hostile_SOURCES = tests/test-shm-hostile.c
tests_test_shm_hostile_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_test_shm_hostile_LDADD = $(rfm_test_ldadd)

tests_test_nospc_SOURCES = tests/test-nospc.c
tests_test_nospc_CPPFLAGS = $(rfm_test_cppflags)
tests_test_nospc_LDADD = $(rfm_test_ldadd)

tests_test_multinode_SOURCES = tests/test-multinode.c
tests_test_multinode_CPPFLAGS = $(rfm_test_cppflags)
tests_test_multinode_LDADD = $(rfm_test_ldadd)

# Interposes flock() (dlsym RTLD_NEXT) to stage a creation race exactly.
tests_test_open_race_SOURCES = tests/test-open-race.c
tests_test_open_race_CPPFLAGS = $(rfm_test_cppflags)
tests_test_open_race_LDADD = $(rfm_test_ldadd) -ldl

tests_test_publish_SOURCES = tests/test-publish.c
tests_test_publish_CPPFLAGS = $(rfm_test_cppflags)
tests_test_publish_LDADD = $(rfm_test_ldadd) -ldl

# The public headers must compile as C++ too (extern "C", inline accessors).
tests_test_cxx_SOURCES = tests/test-cxx.cc
tests_test_cxx_CPPFLAGS = $(AM_CPPFLAGS)
tests_test_cxx_LDADD = src/librfm.la
# The project's warnings (and -Werror) minus the two that g++ rejects for C++.
rfm_cxx_warn_c = $(RFM_WARN_CFLAGS:-Wmissing-prototypes=)
rfm_cxx_warn = $(rfm_cxx_warn_c:-Wstrict-prototypes=)
tests_test_cxx_CXXFLAGS = $(rfm_cxx_warn)

# Which backend the suite runs against: RFM_TEST_BACKEND from the make
# command line or the environment, else shm.
# In a TSan build, races inside Cyclone DDS (not built with TSan) are not
# ours: tests/dds/tsan.supp (ignored by other builds).
AM_TESTS_ENVIRONMENT = \
	RFM_TEST_BACKEND="$${RFM_TEST_BACKEND:-shm}"; export RFM_TEST_BACKEND; \
	TSAN_OPTIONS="$${TSAN_OPTIONS:+$$TSAN_OPTIONS }suppressions=$(abs_top_srcdir)/tests/dds/tsan.supp"; \
	export TSAN_OPTIONS;

# `make check-backends`: the whole suite once per backend this machine has
# (each run keeps its summary in tests-BACKEND.log).
RFM_TEST_BACKENDS = shm
check-backends:
	@for backend in $(RFM_TEST_BACKENDS); do \
		echo "== make check, backend $$backend =="; \
		$(MAKE) $(AM_MAKEFLAGS) check RFM_TEST_BACKEND=$$backend \
			TEST_SUITE_LOG=tests-$$backend.log || exit 1; \
	done
CLEANFILES += tests-*.log

endif
# Outside the conditional: automake wants every .PHONY in one condition.
.PHONY: check-backends

EXTRA_DIST += tests/README.md

# `make check-valgrind`: the suites that finish in seconds under memcheck
# (the million-operation stress suites are left to ASan/TSan builds).
VALGRIND_TESTS = \
	tests/test-errors tests/test-version tests/test-uri tests/test-open \
	tests/test-memory tests/test-access tests/test-corrupt tests/test-multinode \
	tests/layout/test-layout-parse tests/layout/test-layout-access \
	tests/events/test-events-api tests/events/test-events-segment \
	tests/rings/test-rings-api tests/dev/test-dev tests/test-fault
# The dds: backend's own suite and the ring suite once more on dds: (each
# node a handle of this process with its own copy), when it is built; run
# directly, as the dds: suite is not one of TESTS by itself.
if HAVE_DDS
VALGRIND_DDS_TESTS = tests/dds/test-dds tests/rings/test-rings-api
CLEANFILES += tests/dds/test-dds.valgrind-dds.log tests/rings/test-rings-api.valgrind-dds.log
else
VALGRIND_DDS_TESTS =
endif
VALGRIND_COMMAND = $(abs_top_builddir)/libtool --mode=execute valgrind -q \
	--error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
check-valgrind:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(VALGRIND_TESTS)" \
		LOG_COMPILER="$(VALGRIND_COMMAND)" TEST_SUITE_LOG=tests-valgrind.log
	@for t in $(VALGRIND_DDS_TESTS); do \
		RFM_TEST_BACKEND=dds $(VALGRIND_COMMAND) $$t >$$t.valgrind-dds.log 2>&1 || { \
			cat $$t.valgrind-dds.log; echo "FAIL: $$t (dds:)"; exit 1; }; \
		echo "PASS: $$t (dds:)"; \
	done
.PHONY: check-valgrind
