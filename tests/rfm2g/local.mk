# SPDX-License-Identifier: LGPL-2.1-or-later
# RFM2g compatibility (issue 9): programs written against the RFM2g API,
# built with the compatibility headers and run on shm: networks.

if WITH_TESTS

rfm2g_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/include/rfm2g \
	-I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS) -DRFM2G_LINUX
rfm2g_test_ldadd = tests/harness/libharness.la src/librfm2g/librfm2g.la src/librfm.la \
	$(CMOCKA_LIBS)

rfm2g_tests = \
	tests/rfm2g/test-rfm2g-api \
	tests/rfm2g/test-rfm2g-events \
	tests/rfm2g/test-rfm2g-xproc \
	tests/rfm2g/test-rfm2g-threads \
	tests/rfm2g/test-rfm2g-sites \
	tests/rfm2g/test-rfm2g-one-librfm \
	tests/rfm2g/test-rfm2g-cxx

check_PROGRAMS += $(rfm2g_tests)
TESTS += $(rfm2g_tests)

tests_rfm2g_test_rfm2g_api_SOURCES = tests/rfm2g/test-rfm2g-api.c tests/rfm2g/rfm2g-test.h
tests_rfm2g_test_rfm2g_api_CPPFLAGS = $(rfm2g_test_cppflags)
tests_rfm2g_test_rfm2g_api_LDADD = $(rfm2g_test_ldadd)

# Injects error events through the library's internals (shm: never raises them).
tests_rfm2g_test_rfm2g_events_SOURCES = tests/rfm2g/test-rfm2g-events.c tests/rfm2g/rfm2g-test.h
tests_rfm2g_test_rfm2g_events_CPPFLAGS = $(rfm2g_test_cppflags) -I$(top_srcdir)/src
tests_rfm2g_test_rfm2g_events_LDADD = tests/harness/libharness.la \
	src/librfm2g/librfm2g-core.la src/librfm.la $(CMOCKA_LIBS)

tests_rfm2g_test_rfm2g_xproc_SOURCES = tests/rfm2g/test-rfm2g-xproc.c tests/rfm2g/rfm2g-test.h
tests_rfm2g_test_rfm2g_xproc_CPPFLAGS = $(rfm2g_test_cppflags)
tests_rfm2g_test_rfm2g_xproc_LDADD = $(rfm2g_test_ldadd)

# Threads and processes as sites run them (issue 14); reads librfm's
# counters of a handle through the library's internals.
tests_rfm2g_test_rfm2g_threads_SOURCES = tests/rfm2g/test-rfm2g-threads.c tests/rfm2g/rfm2g-test.h
tests_rfm2g_test_rfm2g_threads_CPPFLAGS = $(rfm2g_test_cppflags) -I$(top_srcdir)/src
tests_rfm2g_test_rfm2g_threads_LDADD = tests/harness/libharness.la \
	src/librfm2g/librfm2g-core.la src/librfm.la $(CMOCKA_LIBS) $(PTHREAD_LIBS)

# RFM2g programs as sites write them; also run on dev: by `make vm-check`.
tests_rfm2g_test_rfm2g_sites_SOURCES = tests/rfm2g/test-rfm2g-sites.c tests/rfm2g/rfm2g-test.h
tests_rfm2g_test_rfm2g_sites_CPPFLAGS = $(rfm2g_test_cppflags)
tests_rfm2g_test_rfm2g_sites_LDADD = $(rfm2g_test_ldadd) $(PTHREAD_LIBS)

# librfm2g calls the shared librfm: one librfm per process (issue 19).
tests_rfm2g_test_rfm2g_one_librfm_SOURCES = tests/rfm2g/test-rfm2g-one-librfm.c \
	tests/rfm2g/rfm2g-test.h
tests_rfm2g_test_rfm2g_one_librfm_CPPFLAGS = $(rfm2g_test_cppflags)
tests_rfm2g_test_rfm2g_one_librfm_LDADD = $(rfm2g_test_ldadd)

tests_rfm2g_test_rfm2g_cxx_SOURCES = tests/rfm2g/test-rfm2g-cxx.cc
tests_rfm2g_test_rfm2g_cxx_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include/rfm2g -DRFM2G_LINUX
tests_rfm2g_test_rfm2g_cxx_CXXFLAGS = $(rfm_cxx_warn)
tests_rfm2g_test_rfm2g_cxx_LDADD = src/librfm2g/librfm2g.la src/librfm.la

endif

if WITH_TESTS
# The rfm2g: backend against a scripted driver: librfm's objects are linked
# statically (a convenience copy) so that --wrap reaches their system calls.
check_LTLIBRARIES += tests/rfm2g/librfm-wrapped.la
tests_rfm2g_librfm_wrapped_la_SOURCES = $(src_librfm_la_SOURCES)
tests_rfm2g_librfm_wrapped_la_CPPFLAGS = $(src_librfm_la_CPPFLAGS)
tests_rfm2g_librfm_wrapped_la_CFLAGS = $(src_librfm_la_CFLAGS)
tests_rfm2g_librfm_wrapped_la_LIBADD = $(src_librfm_la_LIBADD)

check_PROGRAMS += tests/rfm2g/test-rfm2g-backend
TESTS += tests/rfm2g/test-rfm2g-backend
tests_rfm2g_test_rfm2g_backend_SOURCES = tests/rfm2g/test-rfm2g-backend.c
tests_rfm2g_test_rfm2g_backend_CPPFLAGS = $(rfm2g_test_cppflags) -I$(top_srcdir)/src
tests_rfm2g_test_rfm2g_backend_LDADD = src/librfm2g/librfm2g-core.la \
	tests/rfm2g/librfm-wrapped.la tests/harness/libharness.la $(CMOCKA_LIBS)
tests_rfm2g_test_rfm2g_backend_LDFLAGS = \
	-Wl,--wrap=open,--wrap=close,--wrap=ioctl,--wrap=mmap,--wrap=munmap
endif

# Quick enough for `make check-valgrind` (tests/local.mk).
VALGRIND_TESTS += tests/rfm2g/test-rfm2g-api tests/rfm2g/test-rfm2g-events \
	tests/rfm2g/test-rfm2g-backend tests/rfm2g/test-rfm2g-cxx
