# SPDX-License-Identifier: LGPL-2.1-or-later
# Jitter benchmark (issue 21): the event round trip idle and under a
# stress-ng load, default policy against SCHED_FIFO + locked memory.
# Run last by `make bench` (~1 min; without stress-ng it says so and runs
# the idle cases), alone by `make bench-jitter`; BENCH_JITTER_ARGS passes
# options, e.g.
# BENCH_JITTER_ARGS="--count 5000 --plot jitter.png".
EXTRA_DIST += bench/bench-jitter.py docs/tuning.md

bench-jitter: tools/rfm$(EXEEXT)
	/usr/bin/python3 $(top_srcdir)/bench/bench-jitter.py --build $(abs_top_builddir) \
		$(BENCH_JITTER_ARGS)
.PHONY: bench-jitter
if WITH_TOOLS
BENCH_TARGETS += bench-jitter
endif
