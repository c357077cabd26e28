# SPDX-License-Identifier: LGPL-2.1-or-later
# The README is a test: tests/docs/run-readme.sh runs the examples of
# README.md, docs/*.md and bindings/README.md against this build; the
# selftest shows the runner fails where a reader would.

if WITH_TESTS
TESTS += \
	tests/docs/selftest-run-readme.py \
	tests/docs/run-readme.sh \
	tests/docs/check-completion.sh \
	tests/docs/check-commands.sh \
	tests/docs/check-pkgconfig.sh \
	tests/docs/check-man-pages.sh
# The C examples are built with this build's compiler and flags (an ASan
# build's snippets link against its ASan library).
AM_TESTS_ENVIRONMENT += \
	RFM_DOCS_CC='$(CC)'; RFM_DOCS_CFLAGS='$(CFLAGS)'; RFM_DOCS_LDFLAGS='$(LDFLAGS)'; \
	export RFM_DOCS_CC RFM_DOCS_CFLAGS RFM_DOCS_LDFLAGS;
endif

# README.md followed as a new user does, in a fresh copy of the tree from
# ./quickstart.sh demo on (the packages must be installed): once per CI
# run, by ./quickstart.sh test, not in every build's make check.
check-readme:
	$(AM_V_at)srcdir='$(top_srcdir)' $(SHELL) $(top_srcdir)/tests/docs/run-readme.sh --fresh-clone
.PHONY: check-readme

EXTRA_DIST += \
	tests/docs/run-readme.sh \
	tests/docs/run-readme.py \
	tests/docs/selftest-run-readme.py \
	tests/docs/check-completion.sh \
	tests/docs/check-commands.sh \
	tests/docs/check-pkgconfig.sh \
	tests/docs/check-man-pages.sh \
	bindings/python/rfm-env.in
