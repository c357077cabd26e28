# SPDX-License-Identifier: LGPL-2.1-or-later
# The C test suites: CMocka unit tests and multi-process tests. Every suite
# shares the harness in tests/harness/ and runs against the backend named by
# RFM_TEST_BACKEND (default shm). See tests/README.md.

if WITH_TESTS

check_LTLIBRARIES += tests/harness/libharness.la
tests_harness_libharness_la_SOURCES = \
	tests/harness/harness.h \
	tests/harness/harness.c \
	tests/harness/harness-internal.h \
	tests/harness/harness-posix.c \
	tests/harness/byteorder.h \
	tests/harness/fork-quiet.c \
	tests/harness/rfm-cmocka.h
tests_harness_libharness_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness
# Suites ask the harness for capabilities; only tests/backends/NAME/ names
# a backend.
TESTS += tests/harness/check-backend-names.sh

rfm_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
rfm_test_ldadd = tests/harness/libharness.la src/librfm.la $(CMOCKA_LIBS)

# Which backend the suite runs against: RFM_TEST_BACKEND from the make
# command line or the environment, else shm.
# In a TSan build, races inside Cyclone DDS (not built with TSan) are not
# ours: tests/backends/dds/tsan.supp (ignored by other builds).
AM_TESTS_ENVIRONMENT = \
	RFM_TEST_BACKEND="$${RFM_TEST_BACKEND:-shm}"; export RFM_TEST_BACKEND; \
	TSAN_OPTIONS="$${TSAN_OPTIONS:+$$TSAN_OPTIONS }suppressions=$(abs_top_srcdir)/tests/backends/dds/tsan.supp"; \
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

# One side of the mixed-host test: built natively and for each target.
check_PROGRAMS += tests/cross/mixed-peer
tests_cross_mixed_peer_SOURCES = tests/cross/mixed-peer.c tests/cross/mixed-peer.h \
	tests/cross/mixed-layout.c
tests_cross_mixed_peer_LDADD = src/librfm.la

endif
# Outside the conditional: automake wants every .PHONY in one condition.
.PHONY: check-backends

EXTRA_DIST += tests/README.md tests/harness/check-backend-names.sh

# `make check-cross`: the C suites built for s390x (big-endian), arm64,
# armhf and i386 (32-bit) and run under qemu-user (tests/cross/check-cross.sh;
# RFM_CROSS_ARCHES picks architectures, RFM_CROSS_DIR keeps sysroots and builds).
EXTRA_DIST += tests/cross/check-cross.sh tests/cross/qemu-run.sh tests/cross/mixed-hosts.sh
check-cross:
	$(SHELL) $(srcdir)/tests/cross/check-cross.sh $(srcdir) $(abs_top_builddir) $(RFM_CROSS_ARCHES)
.PHONY: check-cross

# `make check-valgrind`: the suites that finish in seconds under memcheck
# (the million-operation stress suites are left to ASan/TSan builds).
VALGRIND_TESTS = \
	tests/core/test-errors tests/core/test-version tests/core/test-uri tests/core/test-open \
	tests/core/test-memory tests/core/test-access tests/backends/shm/test-corrupt tests/core/test-multinode \
	tests/layout/test-layout-parse tests/layout/test-layout-access \
	tests/events/test-events-api tests/events/test-events-segment \
	tests/rings/test-rings-api tests/backends/dev/test-dev tests/core/test-fault
# The dds: backend's own suite and the ring suite once more on dds: (each
# node a handle of this process with its own copy), when it is built; run
# directly, as the dds: suite is not one of TESTS by itself.
if HAVE_DDS
VALGRIND_DDS_TESTS = tests/backends/dds/test-dds tests/rings/test-rings-api
CLEANFILES += tests/backends/dds/test-dds.valgrind-dds.log tests/rings/test-rings-api.valgrind-dds.log
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
