# SPDX-License-Identifier: LGPL-2.1-or-later
# Event round-trip benchmark (issue 3), run by `make bench` after the others.
BENCHMARKS += bench/bench-events
EXTRA_PROGRAMS += bench/bench-events
CLEANFILES += bench/bench-events

bench_bench_events_SOURCES = bench/bench-events.c $(BENCH_STATS) bench/raw-pingpong.h
bench_bench_events_LDADD = src/librfm.la
