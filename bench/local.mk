# SPDX-License-Identifier: LGPL-2.1-or-later
# Benchmarks: built by `make bench` (not by `make all`), run by it in order.
BENCHMARKS = bench/bench-mem
# Scripts run after the programs (built by their own rules, not programs).
BENCH_AFTER =
EXTRA_PROGRAMS = $(BENCHMARKS)
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
