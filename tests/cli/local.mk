# SPDX-License-Identifier: LGPL-2.1-or-later
# CLI tests: pytest spawns the built rfm tool and checks its output and exit codes.

if WITH_TESTS
check_PROGRAMS += tests/cli/hold-node
TESTS += tests/cli/run-cli-tests.sh
endif

# No file circles in the tool (tests/core/test-layering.sh on its objects):
# make writes each program's list of objects, so the test follows tools/local.mk.
# It reads the objects with nm: a Linux build's (WITH_TESTS), not Windows'.
if WITH_TESTS
if WITH_TOOLS
TESTS += tests/cli/test-tools-layering.sh
check_DATA += tests/cli/layering-rfm.list
if HAVE_HDF5
check_DATA += tests/cli/layering-rfm-replay.list
endif
endif
endif
tests/cli/layering-rfm.list: $(tools_rfm_OBJECTS)
	$(AM_V_GEN)$(MKDIR_P) tests/cli && printf '%s\n' $(tools_rfm_OBJECTS) >$@
tests/cli/layering-rfm-replay.list: $(tools_rfm_replay_OBJECTS)
	$(AM_V_GEN)$(MKDIR_P) tests/cli && printf '%s\n' $(tools_rfm_replay_OBJECTS) >$@
CLEANFILES += tests/cli/layering-rfm.list tests/cli/layering-rfm-replay.list
EXTRA_DIST += tests/cli/test-tools-layering.sh tests/cli/layering-allow.txt

tests_cli_hold_node_SOURCES = tests/cli/hold-node.c
tests_cli_hold_node_LDADD = src/librfm.la

EXTRA_DIST += \
	tests/cli/run-cli-tests.sh \
	tests/cli/conftest.py \
	tests/cli/test_cli.py \
	tests/cli/test_errors.py \
	tests/cli/test_patterns.py \
	tests/cli/test_layout.py \
	tests/cli/test_layout_scale.py \
	tests/cli/test_write_guard.py \
	tests/cli/test_events.py \
	tests/cli/test_ping.py \
	tests/cli/test_ping_sessions.py \
	tests/cli/test_output_files.py \
	tests/cli/test_messages.py \
	tests/cli/test_conventions.py \
	tests/cli/test_bench.py \
	tests/cli/test_rings.py \
	tests/cli/test_realtime.py \
	tests/cli/test_shm_front_door.py \
	tests/cli/serve_helpers.py \
	tests/cli/test_serve.py \
	tests/cli/test_dds.py \
	tests/cli/test_record.py \
	tests/cli/test_record_module.py \
	tests/cli/test_variables.py \
	tests/cli/test_observers.py

EXTRA_DIST += tests/cli/test_serve_browser.py tests/cli/test_serve_load.py \
	tests/cli/test_serve_stale.py tests/cli/test_serve_prometheus.py \
	tests/cli/test_serve_evict.py

# The picture of rfm serve's page that the README shows, taken by the
# browser test in headless Chromium (it needs chromium and chromium-driver).
monitor-screenshot: tools/rfm tests/cli/hold-node
	rm -f $(abs_top_srcdir)/docs/monitor.png.tmp
	RFM_SCREENSHOT=$(abs_top_srcdir)/docs/monitor.png.tmp srcdir=$(srcdir) \
		$(SHELL) $(srcdir)/tests/cli/run-cli-tests.sh -k test_page_fits_every_width -rs
	test -s $(abs_top_srcdir)/docs/monitor.png.tmp || \
		{ echo "monitor-screenshot: no screenshot (was the browser test skipped?)" >&2; exit 1; }
	mv $(abs_top_srcdir)/docs/monitor.png.tmp $(abs_top_srcdir)/docs/monitor.png
.PHONY: monitor-screenshot
