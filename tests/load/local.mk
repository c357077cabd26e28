# SPDX-License-Identifier: LGPL-2.1-or-later
# The load test: 16 processes for LOAD_SECONDS (default 60). Not part of
# `make check` (it takes a minute by design): `make check-load`.
if WITH_TESTS
check_PROGRAMS += tests/load/load-test
tests_load_load_test_SOURCES = tests/load/load-test.c
tests_load_load_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness
tests_load_load_test_LDADD = tests/harness/libharness.la src/librfm.la
endif
LOAD_SECONDS = 60
check-load: tests/load/load-test$(EXEEXT)
	LOAD_SECONDS=$(LOAD_SECONDS) tests/load/load-test
.PHONY: check-load
