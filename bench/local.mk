# SPDX-License-Identifier: LGPL-2.1-or-later
# Benchmarks: built by `make bench` (not by `make all`), run by it in order:
# the Python comparisons, the programs of BENCHMARKS, the suite, then the
# benchmarks that are make targets (bench-serve, bench-jitter). Each has a
# section below.
BENCHMARKS = bench/bench-mem
# Scripts run after the programs (built by their own rules, not programs).
BENCH_AFTER =
EXTRA_PROGRAMS += $(BENCHMARKS)
CLEANFILES += $(BENCHMARKS)

# Every benchmark's clock, medians, percentiles and report row.
BENCH_STATS = bench/stats.c bench/stats.h

bench_bench_mem_SOURCES = bench/bench-mem.c $(BENCH_STATS)
bench_bench_mem_LDADD = src/librfm.la
# Sub-nanosecond loops: without a fixed loop alignment the comparison
# measures where the linker happened to put each loop, not the accessors.
bench_bench_mem_CFLAGS = $(AM_CFLAGS) -falign-loops=64

# Programs a benchmark runs (built with them, not run by the loop).
BENCH_HELPERS =
# Then the benchmarks that are make targets of their own (bench-serve,
# bench-jitter): every benchmark runs in `make bench`.
BENCH_TARGETS =

.PHONY: bench
bench: $(BENCHMARKS) $(BENCH_AFTER) $(BENCH_HELPERS)
	@for b in $(BENCHMARKS) $(BENCH_AFTER); do ./$$b || exit 1; echo; done
	@for t in $(BENCH_TARGETS); do $(MAKE) $(AM_MAKEFLAGS) $$t || exit 1; echo; done

# The C++ layer (rfm.hpp) against the same C calls: typed get/set, ring publish.
BENCHMARKS += bench/bench-cxx
EXTRA_PROGRAMS += bench/bench-cxx
CLEANFILES += bench/bench-cxx
bench_bench_cxx_SOURCES = bench/bench-cxx.cc $(BENCH_STATS)
bench_bench_cxx_LDADD = src/librfm.la
bench_bench_cxx_CXXFLAGS = -std=c++17 $(RFM_WARN_CXXFLAGS) -falign-loops=64

# ---- layout-bench ----
# Benchmark of typed-variable tables: run by `make bench`, alone by
# `make bench-layout`.
BENCHMARKS += bench/layout-bench
EXTRA_PROGRAMS += bench/layout-bench
CLEANFILES += bench/layout-bench
bench_layout_bench_SOURCES = bench/layout-bench.c $(BENCH_STATS)
bench_layout_bench_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
bench_layout_bench_LDADD = src/librfm.la $(YAML_LIBS) -lm

bench-layout: bench/layout-bench$(EXEEXT)
	bench/layout-bench
.PHONY: bench-layout

# ---- bench-events ----
# Event round-trip benchmark, run by `make bench` after the others.
BENCHMARKS += bench/bench-events
EXTRA_PROGRAMS += bench/bench-events
CLEANFILES += bench/bench-events

bench_bench_events_SOURCES = bench/bench-events.c $(BENCH_STATS) bench/raw-pingpong.h
bench_bench_events_LDADD = src/librfm.la

# ---- bench-rings ----
# Ring benchmark, run by `make bench` after the others. Its
# iceoryx helper is built when configure found iceoryx's C binding
# (Debian: iceoryx, libiceoryx-binding-c-dev); bench-rings skips that part
# with a message otherwise.
BENCHMARKS += bench/bench-rings
EXTRA_PROGRAMS += bench/bench-rings bench/bench-rings-iox
CLEANFILES += bench/bench-rings bench/bench-rings-iox

bench_bench_rings_SOURCES = bench/bench-rings.c $(BENCH_STATS)
bench_bench_rings_LDADD = src/librfm.la

bench_bench_rings_iox_SOURCES = bench/bench-rings-iox.c $(BENCH_STATS)
bench_bench_rings_iox_CPPFLAGS = $(AM_CPPFLAGS) $(IOX_CFLAGS)
bench_bench_rings_iox_LDADD = $(IOX_LIBS)
if WITH_ICEORYX
BENCH_HELPERS += bench/bench-rings-iox
endif

# ---- the suite ----
# The benchmark suite: raw baselines (bench-baselines), then
# rfm ping and rfm bench, then a table of ratios (bench/run-suite.py).
# It runs last in `make bench`; `make bench-suite` runs it alone.
BENCH_AFTER += bench/bench-suite
EXTRA_PROGRAMS += bench/bench-baselines
CLEANFILES += bench/bench-baselines bench/bench-suite

bench_bench_baselines_SOURCES = bench/bench-baselines.c bench/raw-pingpong.h $(BENCH_STATS) \
	tools/latency-hist.h tools/latency-hist.c
EXTRA_DIST += bench/run-suite.py bench/plot-latency.py docs/ping-latency.png

# A one-line wrapper, so that the `bench` loop can run the suite like a program.
bench/bench-suite: $(top_srcdir)/bench/run-suite.py bench/bench-baselines$(EXEEXT) tools/rfm$(EXEEXT)
	$(AM_V_GEN)printf '#!/bin/sh\nexec /usr/bin/python3 "%s" --build "%s" "$$@"\n' \
		"$(abs_top_srcdir)/bench/run-suite.py" "$(abs_top_builddir)" > $@ && chmod +x $@

bench-suite: bench/bench-suite
	bench/bench-suite
.PHONY: bench-suite

# ---- Python ----
# Python side of `make bench`: peek32, a table get and an event round trip
# from Python against the same calls from C (bench-mem's, layout-bench's and
# bench-events' figures, measured in the same run). Runs before the C
# benchmarks, once everything it compares is built.
EXTRA_DIST += bench/python/peek32.py bench/python/tables_events.py

bench: bench-python
.PHONY: bench-python
if WITH_BINDINGS_PYTHON
bench-python: bench/bench-mem bench/layout-bench bench/bench-events bindings/python/rfm/_rfm_swig.so
	@PYTHONPATH="$(abs_top_builddir)/bindings/python:$(abs_top_srcdir)/bindings/python" \
	PYTHONDONTWRITEBYTECODE=1 \
	$(PYTHON) $(top_srcdir)/bench/python/peek32.py --c-bench bench/bench-mem && echo && \
	PYTHONPATH="$(abs_top_builddir)/bindings/python:$(abs_top_srcdir)/bindings/python" \
	PYTHONDONTWRITEBYTECODE=1 \
	$(PYTHON) $(top_srcdir)/bench/python/tables_events.py \
		--layout-bench bench/layout-bench --events-bench bench/bench-events && echo
else
bench-python:
	@echo "bench-python: skipped, Python bindings not built"
endif

# ---- bench-serve ----
# rfm serve's cost: its CPU time with 256 nodes, 1000 watched
# variables and 4 SSE clients at 10 Hz, and the change-to-client delay.
# Run at the end of `make bench`; `make bench-serve` alone (~15 s);
# BENCH_SERVE_ARGS passes options, e.g. BENCH_SERVE_ARGS="--seconds 30".
EXTRA_DIST += bench/bench-serve.py

bench-serve: tools/rfm$(EXEEXT)
	/usr/bin/python3 $(top_srcdir)/bench/bench-serve.py --build $(abs_top_builddir) \
		$(BENCH_SERVE_ARGS)
.PHONY: bench-serve
if WITH_SERVE
BENCH_TARGETS += bench-serve
endif

# ---- bench-jitter ----
# Jitter benchmark: the event round trip idle and under a
# stress-ng load, default policy against SCHED_FIFO + locked memory.
# Run last by `make bench` (~4 min: three rounds of six 10-second runs;
# without stress-ng it says so and runs
# the idle cases), alone by `make bench-jitter`; BENCH_JITTER_ARGS passes
# options, e.g.
# BENCH_JITTER_ARGS="--count 5000 --repeat 5 --plot jitter.png".
EXTRA_DIST += bench/bench-jitter.py docs/tuning.md

bench-jitter: tools/rfm$(EXEEXT)
	/usr/bin/python3 $(top_srcdir)/bench/bench-jitter.py --build $(abs_top_builddir) \
		$(BENCH_JITTER_ARGS)
.PHONY: bench-jitter
if WITH_TOOLS
BENCH_TARGETS += bench-jitter
endif

# ---- bench-dds (several hosts: dds: against ddsperf and raw UDP) ----
# Several hosts: the dds: backend against Cyclone DDS's ddsperf
# and raw UDP, across two network namespaces (bench/bench-hosts.py; root,
# ddsperf from cyclonedds-tools; skipped with the reason otherwise).
# `make bench-dds` runs it (~80 s); BENCH_DDS_ARGS passes options, e.g.
# BENCH_DDS_ARGS="--markdown --seconds 10". `make bench` runs it too.
EXTRA_PROGRAMS += bench/udp-pingpong bench/bench-event-rtt bench/bench-repl-write
CLEANFILES += bench/udp-pingpong bench/bench-event-rtt bench/bench-repl-write
EXTRA_DIST += bench/bench-hosts.py

bench_udp_pingpong_SOURCES = bench/udp-pingpong.c $(BENCH_STATS)
bench_bench_event_rtt_SOURCES = bench/bench-event-rtt.c bench/repl-peer.h $(BENCH_STATS)
bench_bench_event_rtt_LDADD = src/librfm.la
bench_bench_repl_write_SOURCES = bench/bench-repl-write.c bench/repl-peer.h $(BENCH_STATS)
bench_bench_repl_write_LDADD = src/librfm.la

bench_dds_deps = bench/udp-pingpong$(EXEEXT) bench/bench-event-rtt$(EXEEXT) \
	bench/bench-repl-write$(EXEEXT)
bench-dds: $(bench_dds_deps)
	/usr/bin/python3 $(top_srcdir)/bench/bench-hosts.py --build $(abs_top_builddir) \
		--skip-ok $(BENCH_DDS_ARGS)
bench: bench-dds
.PHONY: bench-dds

# What DDS Security costs: plain dds: against signed against encrypted, on
# loopback, in one run (bench/bench-dds-security.py; openssl makes the files
# with docs/security.md's commands). BENCH_DDS_SECURITY_ARGS passes options.
EXTRA_DIST += bench/bench-dds-security.py
bench-dds-security: $(bench_dds_deps)
	/usr/bin/python3 $(top_srcdir)/bench/bench-dds-security.py --build $(abs_top_builddir) \
		$(BENCH_DDS_SECURITY_ARGS)
.PHONY: bench-dds-security

# Simultaneous boot: 8, 16 and 32 processes, one node each, released by one
# barrier, open at once (tests/backends/dds/test-dds-boot); prints the open
# times' P50 and max. BENCH_BOOT_NODES picks the counts.
BENCH_BOOT_NODES = 8 16 32
bench-dds-boot: tests/backends/dds/test-dds-boot$(EXEEXT)
	tests/backends/dds/test-dds-boot --bench $(BENCH_BOOT_NODES)
.PHONY: bench-dds-boot

# ---- bench-record ----
# Recording a rig (issue 39): 1,000 variables and a 4 KiB region at 10 kHz
# and a record on change, by a minimal C loop with plain HDF5 calls (the
# limit), by librfm's recorder and by rfm watch --json, 60 s each.
# `make bench-record` runs it; BENCH_RECORD_SECONDS=2 makes it a smoke run.
# Needs libhdf5.
if HAVE_HDF5
EXTRA_PROGRAMS += bench/bench-record
CLEANFILES += bench/bench-record
bench_bench_record_SOURCES = bench/bench-record.c $(BENCH_STATS)
bench_bench_record_CFLAGS = $(AM_CFLAGS) $(HDF5_CFLAGS)
bench_bench_record_LDADD = src/librfm.la $(HDF5_LIBS)
BENCH_TARGETS += bench-record
endif
EXTRA_DIST += bench/bench-record.c
BENCH_RECORD_SECONDS = 60
bench-record: bench/bench-record$(EXEEXT) tools/rfm$(EXEEXT)
	bench/bench-record --seconds $(BENCH_RECORD_SECONDS) --tool tools/rfm
.PHONY: bench-record
