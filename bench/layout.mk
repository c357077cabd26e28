# SPDX-License-Identifier: LGPL-2.1-or-later
# Benchmark of typed-variable tables: "make bench-layout" builds and runs it.
noinst_PROGRAMS += bench/layout-bench
bench_layout_bench_SOURCES = bench/layout-bench.c
bench_layout_bench_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
bench_layout_bench_LDADD = src/librfm.la $(YAML_LIBS) -lm

bench-layout: bench/layout-bench$(EXEEXT)
	bench/layout-bench
.PHONY: bench-layout
