# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests of typed-variable tables (layouts). CMocka programs; each exits 0,
# 77 when skipped, anything else on failure.

EXTRA_DIST += \
	tests/layout/helpers.h tests/layout/child.h \
	tests/layout/header.yaml \
	docs/layout-format.md \
	examples/layouts/test-rig.yaml \
	examples/layouts/hil-sim.yaml \
	examples/layouts/minimal.yaml

if WITH_TESTS
# Networks come from the shared harness (tests/harness): RFM_TEST_BACKEND.
layout_test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -I$(top_srcdir)/tests/harness \
	-DEXAMPLES_DIR='"$(abs_top_srcdir)/examples/layouts"'
layout_test_ldadd = tests/harness/libharness.la src/librfm.la $(CMOCKA_LIBS)

check_PROGRAMS += \
	tests/layout/test-layout-parse \
	tests/layout/test-layout-access \
	tests/layout/test-layout-seqlock \
	tests/layout/test-layout-header \
	tests/layout/test-layout-limits \
	tests/layout/test-layout-stale \
	tests/layout/test-layout-v1-size
TESTS += \
	tests/layout/test-layout-parse \
	tests/layout/test-layout-access \
	tests/layout/test-layout-seqlock \
	tests/layout/test-layout-header \
	tests/layout/test-layout-limits \
	tests/layout/test-layout-stale \
	tests/layout/test-layout-v1-size

tests_layout_test_layout_limits_SOURCES = tests/layout/test-layout-limits.c
tests_layout_test_layout_limits_CFLAGS = $(layout_test_cflags)
tests_layout_test_layout_limits_LDADD = $(layout_test_ldadd)

tests_layout_test_layout_v1_size_SOURCES = tests/layout/test-layout-v1-size.c
tests_layout_test_layout_v1_size_CFLAGS = $(layout_test_cflags)
tests_layout_test_layout_v1_size_LDADD = $(layout_test_ldadd)

tests_layout_test_layout_stale_SOURCES = tests/layout/test-layout-stale.c
tests_layout_test_layout_stale_CFLAGS = $(layout_test_cflags)
tests_layout_test_layout_stale_LDADD = $(layout_test_ldadd)

tests_layout_test_layout_parse_SOURCES = tests/layout/test-layout-parse.c
tests_layout_test_layout_parse_CFLAGS = $(layout_test_cflags)
tests_layout_test_layout_parse_LDADD = $(layout_test_ldadd)

tests_layout_test_layout_access_SOURCES = tests/layout/test-layout-access.c
tests_layout_test_layout_access_CFLAGS = $(layout_test_cflags)
tests_layout_test_layout_access_LDADD = $(layout_test_ldadd)

tests_layout_test_layout_seqlock_SOURCES = tests/layout/test-layout-seqlock.c
tests_layout_test_layout_seqlock_CFLAGS = $(layout_test_cflags)
tests_layout_test_layout_seqlock_LDADD = $(layout_test_ldadd)

# The generated-header test: a header made from tests/layout/header.yaml at
# make-check time, compiled into a program that checks it against the
# library's own offsets and uses it on a live window.
check_PROGRAMS += tests/layout/layout-gen-header
tests_layout_layout_gen_header_SOURCES = tests/layout/layout-gen-header.c
tests_layout_layout_gen_header_LDADD = src/librfm.la

# A cross build cannot run its own generator: make check-cross points
# LAYOUT_GEN_HEADER at the build machine's (the header does not depend on
# the host that generates it).
LAYOUT_GEN_HEADER = tests/layout/layout-gen-header$(EXEEXT)
tests/layout/generated-layout.h: $(LAYOUT_GEN_HEADER) $(srcdir)/tests/layout/header.yaml
	$(AM_V_GEN)$(LAYOUT_GEN_HEADER) $(srcdir)/tests/layout/header.yaml tst > $@.tmp && mv $@.tmp $@
CLEANFILES += tests/layout/generated-layout.h tests/layout/generated-layout.h.tmp

# header.yaml's text as a C string literal, so that the program carries
# its layout (a lab guest has no source tree).
tests/layout/header-yaml.h: $(srcdir)/tests/layout/header.yaml
	$(AM_V_GEN)$(MKDIR_P) tests/layout && \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		$(srcdir)/tests/layout/header.yaml > $@.tmp && mv $@.tmp $@
CLEANFILES += tests/layout/header-yaml.h tests/layout/header-yaml.h.tmp

nodist_tests_layout_test_layout_header_SOURCES = tests/layout/generated-layout.h \
	tests/layout/header-yaml.h
tests_layout_test_layout_header_SOURCES = tests/layout/test-layout-header.c
tests_layout_test_layout_header_CFLAGS = $(layout_test_cflags) -I$(builddir)/tests/layout
tests_layout_test_layout_header_LDADD = $(layout_test_ldadd)
tests/layout/test_layout_header-test-layout-header.$(OBJEXT): tests/layout/generated-layout.h \
	tests/layout/header-yaml.h
endif
