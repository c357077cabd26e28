# SPDX-License-Identifier: LGPL-2.1-or-later
if WITH_TESTS
# The rfm2g: backend against a scripted driver: librfm's objects are linked
# statically (the copy of the core in librfm2g.a) so that --wrap reaches
# their system calls.
check_PROGRAMS += tests/backends/rfm2g/test-rfm2g-backend
TESTS += tests/backends/rfm2g/test-rfm2g-backend
tests_backends_rfm2g_test_rfm2g_backend_SOURCES = tests/backends/rfm2g/test-rfm2g-backend.c
tests_backends_rfm2g_test_rfm2g_backend_CPPFLAGS = $(rfm2g_test_cppflags) -I$(top_srcdir)/src
tests_backends_rfm2g_test_rfm2g_backend_LDADD = src/librfm2g/librfm2g-core.la \
	src/librfm2g/librfm-static-core.la tests/harness/libharness.la $(CMOCKA_LIBS)
tests_backends_rfm2g_test_rfm2g_backend_LDFLAGS = \
	-Wl,--wrap=open,--wrap=close,--wrap=ioctl,--wrap=mmap,--wrap=munmap
endif
# Quick enough for `make check-valgrind` (tests/local.mk).
VALGRIND_TESTS += tests/backends/rfm2g/test-rfm2g-backend
