# SPDX-License-Identifier: LGPL-2.1-or-later
# The hostile co-tenant suite (docs/security.md): a scribbler damages one shared
# structure per case while victim processes work; no victim may crash,
# hang, overrun a timeout or trip a sanitizer. About 30 s: not part of
# `make check`; `make check-hostile` (quickstart runs it on the ASan build).

if WITH_TESTS
check_PROGRAMS += tests/hostile/hostile-run
tests_hostile_hostile_run_SOURCES = tests/hostile/hostile.c
tests_hostile_hostile_run_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness \
	-I$(top_srcdir)/src
tests_hostile_hostile_run_LDADD = tests/harness/libharness.la src/librfm.la
endif
HOSTILE_SECONDS = 2.5
check-hostile: tests/hostile/hostile-run$(EXEEXT)
	RFM_HOSTILE_SECONDS=$(HOSTILE_SECONDS) tests/hostile/hostile-run $(HOSTILE_CASES)
.PHONY: check-hostile
