# SPDX-License-Identifier: LGPL-2.1-or-later
# The shm: backend itself (src/backends/shm): the segment file, its
# corruption, a full /dev/shm, co-tenants, huge pages, Docker's small
# /dev/shm. Each program skips on other backends.

if WITH_TESTS
shm_tests = \
	tests/backends/shm/test-corrupt \
	tests/backends/shm/test-nospc \
	tests/backends/shm/test-hugepages \
	tests/backends/shm/test-shm-hostile
check_PROGRAMS += $(shm_tests)
TESTS += $(shm_tests)
# Docker's 64 MiB /dev/shm, in a private mount namespace (root only): runs
# examples/minimal and the README's first C block, built here from README.md.
TESTS += tests/backends/shm/test-small-shm.sh
# A full /dev/shm names a window that fits, or says none does (root only).
TESTS += tests/backends/shm/test-shm-room.sh
EXTRA_DIST += tests/backends/shm/test-shm-room.sh
check_PROGRAMS += tests/backends/shm/readme-snippet
nodist_tests_backends_shm_readme_snippet_SOURCES = tests/backends/shm/readme-snippet.c
tests_backends_shm_readme_snippet_LDADD = src/librfm.la
tests/backends/shm/readme-snippet.c: $(top_srcdir)/README.md $(top_srcdir)/tests/backends/shm/readme-snippet.sh
	$(AM_V_GEN)$(MKDIR_P) tests/backends/shm && \
	$(SHELL) $(top_srcdir)/tests/backends/shm/readme-snippet.sh $(top_srcdir)/README.md >$@.tmp && mv $@.tmp $@
CLEANFILES += tests/backends/shm/readme-snippet.c

tests_backends_shm_test_hugepages_SOURCES = tests/backends/shm/test-hugepages.c
tests_backends_shm_test_hugepages_CPPFLAGS = $(rfm_test_cppflags)
tests_backends_shm_test_hugepages_LDADD = $(rfm_test_ldadd)

# Writes segments by hand, so it knows their private layout.
tests_backends_shm_test_corrupt_SOURCES = tests/backends/shm/test-corrupt.c
tests_backends_shm_test_corrupt_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_backends_shm_test_corrupt_LDADD = $(rfm_test_ldadd)

# Scribbles on segments by hand, so it knows their private layout.
tests_backends_shm_test_shm_hostile_SOURCES = tests/backends/shm/test-shm-hostile.c
tests_backends_shm_test_shm_hostile_CPPFLAGS = $(rfm_test_cppflags) -I$(top_srcdir)/src
tests_backends_shm_test_shm_hostile_LDADD = $(rfm_test_ldadd)

tests_backends_shm_test_nospc_SOURCES = tests/backends/shm/test-nospc.c
tests_backends_shm_test_nospc_CPPFLAGS = $(rfm_test_cppflags)
tests_backends_shm_test_nospc_LDADD = $(rfm_test_ldadd)
endif
EXTRA_DIST += tests/backends/shm/test-small-shm.sh tests/backends/shm/readme-snippet.sh
