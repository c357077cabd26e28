# SPDX-License-Identifier: LGPL-2.1-or-later
# Fuzzing. `make fuzz [FUZZ_SECONDS=20]` runs every libFuzzer harness for a
# bounded time (clang); `make fuzz-TARGET` one of them. `make check` replays
# every seed and regression input through each harness with the normal
# compiler (tests/fuzz/replay-corpora.sh), so fixed crashes stay fixed.

FUZZ_TARGETS = uri segment layout cli
FUZZ_SECONDS = 20

# run-fuzz.sh compiles the library's and the tool's sources once more with
# libFuzzer's instrumentation: the lists are this build's (the OS's half;
# never the recorder's HDF5 writer, a module of its own), never a glob of
# the tree.
FUZZ_ENV = \
	RFM_FUZZ_LIB_SOURCES='$(src_librfm_la_SOURCES)' \
	RFM_FUZZ_DDS_SOURCES='$(src_backends_dds_librfm_dds_la_SOURCES)' \
	RFM_FUZZ_TOOL_SOURCES='$(tools_rfm_SOURCES)' \
	RFM_FUZZ_PKGLIBDIR='$(pkglibdir)'
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		$(FUZZ_ENV) $(SHELL) $(srcdir)/tests/fuzz/run-fuzz.sh $$t $(abs_top_srcdir) \
			$(abs_top_builddir) $(FUZZ_SECONDS) || exit 1; \
	done
fuzz-uri fuzz-segment fuzz-layout fuzz-cli:
	@$(FUZZ_ENV) $(SHELL) $(srcdir)/tests/fuzz/run-fuzz.sh $(@:fuzz-%=%) $(abs_top_srcdir) \
		$(abs_top_builddir) $(FUZZ_SECONDS)
.PHONY: fuzz fuzz-uri fuzz-segment fuzz-layout fuzz-cli

if WITH_TESTS
# The library's sources once more, with internal symbols visible to the
# URI harness (the shared library hides them).
check_LTLIBRARIES += tests/fuzz/librfm-internal.la
tests_fuzz_librfm_internal_la_SOURCES = $(src_librfm_la_SOURCES)
tests_fuzz_librfm_internal_la_CPPFLAGS = $(src_librfm_la_CPPFLAGS)
tests_fuzz_librfm_internal_la_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
tests_fuzz_librfm_internal_la_LIBADD = $(YAML_LIBS) -lm $(RFM_DDS_LIBADD)

fuzz_replays = \
	tests/fuzz/replay-uri \
	tests/fuzz/replay-segment \
	tests/fuzz/replay-layout \
	tests/fuzz/replay-cli
check_PROGRAMS += $(fuzz_replays)

tests_fuzz_replay_uri_SOURCES = tests/fuzz/uri-fuzz.c tests/fuzz/standalone-main.c
tests_fuzz_replay_uri_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_fuzz_replay_uri_LDADD = tests/fuzz/librfm-internal.la

tests_fuzz_replay_segment_SOURCES = tests/fuzz/segment-fuzz.c tests/fuzz/standalone-main.c
tests_fuzz_replay_segment_LDADD = src/librfm.la

tests_fuzz_replay_layout_SOURCES = tests/fuzz/layout-fuzz.c tests/fuzz/standalone-main.c
tests_fuzz_replay_layout_LDADD = src/librfm.la

tests_fuzz_replay_cli_SOURCES = tests/fuzz/cli-fuzz.c tests/fuzz/standalone-main.c \
	$(tools_rfm_SOURCES)
nodist_tests_fuzz_replay_cli_SOURCES = $(nodist_tools_rfm_SOURCES)
tests_fuzz_replay_cli_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/src \
	-I$(top_srcdir)/tools/os/$(RFM_OS) -I$(top_srcdir)/bench -Dmain=rfm_cli_main
# main() renamed has no prototype in the tool's own sources.
tests_fuzz_replay_cli_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS) \
	-Wno-missing-prototypes
tests_fuzz_replay_cli_LDADD = src/librfm.la $(JSONC_LIBS) $(MHD_LIBS) -lm

TESTS += tests/fuzz/replay-corpora.sh
endif

EXTRA_DIST += \
	tests/fuzz/run-fuzz.sh \
	tests/fuzz/replay-corpora.sh \
	tests/fuzz/standalone-main.c \
	tests/fuzz/uri-fuzz.c \
	tests/fuzz/segment-fuzz.c \
	tests/fuzz/layout-fuzz.c \
	tests/fuzz/cli-fuzz.c \
	tests/fuzz/uri-corpus \
	tests/fuzz/segment-corpus \
	tests/fuzz/layout-corpus \
	tests/fuzz/cli-corpus
