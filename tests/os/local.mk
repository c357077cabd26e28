# SPDX-License-Identifier: LGPL-2.1-or-later
# The OS layer (src/os/), function by function: internal functions, so the
# programs link the library's sources with their symbols visible
# (tests/fuzz/librfm-internal.la). Linux's half here; the Windows half runs
# under wine in tests/windows.

if WITH_TESTS
os_tests = tests/os/test-os-file-write
check_PROGRAMS += $(os_tests)
TESTS += $(os_tests)

tests_os_test_os_file_write_SOURCES = tests/os/test-os-file-write.c
tests_os_test_os_file_write_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src \
	-I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
tests_os_test_os_file_write_LDADD = tests/fuzz/librfm-internal.la $(CMOCKA_LIBS)
endif
EXTRA_DIST += tests/os/test-os-file-write.c
