# SPDX-License-Identifier: LGPL-2.1-or-later
# RFM2g compatibility (src/librfm2g): programs written against the RFM2g API,
# built with the compatibility headers and run on shm: networks.

if WITH_TESTS

rfm2g_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/include/rfm2g \
	-I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS) -DRFM2G_LINUX
rfm2g_test_ldadd = tests/harness/libharness.la src/librfm2g/librfm2g.la src/librfm.la \
	$(CMOCKA_LIBS)

rfm2g_tests = \
	tests/librfm2g/test-rfm2g-api \
	tests/librfm2g/test-rfm2g-events \
	tests/librfm2g/test-rfm2g-xproc \
	tests/librfm2g/test-rfm2g-threads \
	tests/librfm2g/test-rfm2g-sites \
	tests/librfm2g/test-rfm2g-one-librfm \
	tests/librfm2g/test-rfm2g-cxx

check_PROGRAMS += $(rfm2g_tests)
TESTS += $(rfm2g_tests)

tests_librfm2g_test_rfm2g_api_SOURCES = tests/librfm2g/test-rfm2g-api.c tests/librfm2g/rfm2g-test.h
tests_librfm2g_test_rfm2g_api_CPPFLAGS = $(rfm2g_test_cppflags)
tests_librfm2g_test_rfm2g_api_LDADD = $(rfm2g_test_ldadd)

# Injects error events through the library's internals (shm: never raises them).
tests_librfm2g_test_rfm2g_events_SOURCES = tests/librfm2g/test-rfm2g-events.c tests/librfm2g/rfm2g-test.h
tests_librfm2g_test_rfm2g_events_CPPFLAGS = $(rfm2g_test_cppflags) -I$(top_srcdir)/src \
	-I$(top_srcdir)/src/librfm2g/$(RFM_OS)
tests_librfm2g_test_rfm2g_events_LDADD = tests/harness/libharness.la \
	src/librfm2g/librfm2g-core.la src/librfm.la $(CMOCKA_LIBS)

tests_librfm2g_test_rfm2g_xproc_SOURCES = tests/librfm2g/test-rfm2g-xproc.c tests/librfm2g/rfm2g-test.h
tests_librfm2g_test_rfm2g_xproc_CPPFLAGS = $(rfm2g_test_cppflags)
tests_librfm2g_test_rfm2g_xproc_LDADD = $(rfm2g_test_ldadd)

# Threads and processes as sites run them; reads librfm's
# counters of a handle through the library's internals.
tests_librfm2g_test_rfm2g_threads_SOURCES = tests/librfm2g/test-rfm2g-threads.c tests/librfm2g/rfm2g-test.h
tests_librfm2g_test_rfm2g_threads_CPPFLAGS = $(rfm2g_test_cppflags) -I$(top_srcdir)/src \
	-I$(top_srcdir)/src/librfm2g/$(RFM_OS)
tests_librfm2g_test_rfm2g_threads_LDADD = tests/harness/libharness.la \
	src/librfm2g/librfm2g-core.la src/librfm.la $(CMOCKA_LIBS) $(PTHREAD_LIBS)

# RFM2g programs as sites write them; also run on dev: by `make vm-check`.
tests_librfm2g_test_rfm2g_sites_SOURCES = tests/librfm2g/test-rfm2g-sites.c tests/librfm2g/rfm2g-test.h
tests_librfm2g_test_rfm2g_sites_CPPFLAGS = $(rfm2g_test_cppflags)
tests_librfm2g_test_rfm2g_sites_LDADD = $(rfm2g_test_ldadd) $(PTHREAD_LIBS)

# librfm2g calls the shared librfm: one librfm per process (one copy of
# the node registry, the fork handlers and the error state).
tests_librfm2g_test_rfm2g_one_librfm_SOURCES = tests/librfm2g/test-rfm2g-one-librfm.c \
	tests/librfm2g/rfm2g-test.h
tests_librfm2g_test_rfm2g_one_librfm_CPPFLAGS = $(rfm2g_test_cppflags)
tests_librfm2g_test_rfm2g_one_librfm_LDADD = $(rfm2g_test_ldadd)

# GE's rfm2g_util session on the default emulated board, in a private
# /dev/shm (root only): test-rfm2g-board.sh runs rfm2g-util-session.
check_PROGRAMS += tests/librfm2g/rfm2g-util-session
tests_librfm2g_rfm2g_util_session_SOURCES = tests/librfm2g/rfm2g-util-session.c
tests_librfm2g_rfm2g_util_session_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include/rfm2g \
	-DRFM2G_LINUX
# librfm too, as examples/rfm2g/rfm2g-echo: a cross linker has no
# -rpath-link to find librfm2g's librfm in the build tree.
tests_librfm2g_rfm2g_util_session_LDADD = src/librfm2g/librfm2g.la src/librfm.la
# Programs from Windows and VxWorks, built unchanged (their vendor header
# names, device names and entry points), run by test-rfm2g-board.sh.
check_PROGRAMS += tests/librfm2g/rfm2g-windows-style tests/librfm2g/rfm2g-vxworks-style
tests_librfm2g_rfm2g_windows_style_SOURCES = tests/librfm2g/rfm2g-windows-style.c
tests_librfm2g_rfm2g_windows_style_CPPFLAGS = $(tests_librfm2g_rfm2g_util_session_CPPFLAGS)
tests_librfm2g_rfm2g_windows_style_LDADD = $(tests_librfm2g_rfm2g_util_session_LDADD)
tests_librfm2g_rfm2g_vxworks_style_SOURCES = tests/librfm2g/rfm2g-vxworks-style.c \
	tests/librfm2g/rfm2g-vxworks-shell.c
tests_librfm2g_rfm2g_vxworks_style_CPPFLAGS = $(tests_librfm2g_rfm2g_util_session_CPPFLAGS)
tests_librfm2g_rfm2g_vxworks_style_LDADD = $(tests_librfm2g_rfm2g_util_session_LDADD)
# A VxWorks module declares its task entry and globals nowhere: the shell
# finds them by name.
tests_librfm2g_rfm2g_vxworks_style_CFLAGS = $(AM_CFLAGS) -Wno-missing-prototypes \
	-Wno-missing-variable-declarations
TESTS += tests/librfm2g/test-rfm2g-board.sh
EXTRA_DIST += tests/librfm2g/test-rfm2g-board.sh
# make install DESTDIR= into a temporary root: static and shared links,
# pkg-config --static, the CMake packages, man3 pages.
TESTS += tests/librfm2g/test-rfm2g-installed.sh
EXTRA_DIST += tests/librfm2g/test-rfm2g-installed.sh

tests_librfm2g_test_rfm2g_cxx_SOURCES = tests/librfm2g/test-rfm2g-cxx.cc
tests_librfm2g_test_rfm2g_cxx_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include/rfm2g -DRFM2G_LINUX
tests_librfm2g_test_rfm2g_cxx_CXXFLAGS = $(rfm_cxx_warn)
tests_librfm2g_test_rfm2g_cxx_LDADD = src/librfm2g/librfm2g.la src/librfm.la

endif

# Quick enough for `make check-valgrind` (tests/local.mk).
VALGRIND_TESTS += tests/librfm2g/test-rfm2g-api tests/librfm2g/test-rfm2g-events \
	tests/librfm2g/test-rfm2g-cxx
