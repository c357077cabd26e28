# SPDX-License-Identifier: LGPL-2.1-or-later
# rfm serve's cost (issue 17): its CPU time with 256 nodes, 1000 watched
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
