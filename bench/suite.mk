# SPDX-License-Identifier: LGPL-2.1-or-later
# The benchmark suite (issue 6): raw baselines (bench-baselines), then
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
