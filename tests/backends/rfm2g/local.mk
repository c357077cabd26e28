# SPDX-License-Identifier: LGPL-2.1-or-later
if WITH_TESTS
# The rfm2g: backend against a scripted driver: librfm's objects are linked
# statically (a convenience copy) so that --wrap reaches their system calls.
check_LTLIBRARIES += tests/backends/rfm2g/librfm-wrapped.la
tests_backends_rfm2g_librfm_wrapped_la_SOURCES = $(src_librfm_la_SOURCES)
tests_backends_rfm2g_librfm_wrapped_la_CPPFLAGS = $(src_librfm_la_CPPFLAGS)
tests_backends_rfm2g_librfm_wrapped_la_CFLAGS = $(src_librfm_la_CFLAGS)
tests_backends_rfm2g_librfm_wrapped_la_LIBADD = $(src_librfm_la_LIBADD)

check_PROGRAMS += tests/backends/rfm2g/test-rfm2g-backend
TESTS += tests/backends/rfm2g/test-rfm2g-backend
tests_backends_rfm2g_test_rfm2g_backend_SOURCES = tests/backends/rfm2g/test-rfm2g-backend.c
tests_backends_rfm2g_test_rfm2g_backend_CPPFLAGS = $(rfm2g_test_cppflags) -I$(top_srcdir)/src
tests_backends_rfm2g_test_rfm2g_backend_LDADD = src/librfm2g/librfm2g-core.la \
	tests/backends/rfm2g/librfm-wrapped.la tests/harness/libharness.la $(CMOCKA_LIBS)
tests_backends_rfm2g_test_rfm2g_backend_LDFLAGS = \
	-Wl,--wrap=open,--wrap=close,--wrap=ioctl,--wrap=mmap,--wrap=munmap
endif
# Quick enough for `make check-valgrind` (tests/local.mk).
VALGRIND_TESTS += tests/backends/rfm2g/test-rfm2g-backend
