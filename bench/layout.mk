# SPDX-License-Identifier: LGPL-2.1-or-later
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
