# SPDX-License-Identifier: LGPL-2.1-or-later
# Jitter benchmark (issue 21): the event round trip idle and under a
# stress-ng load, default policy against SCHED_FIFO + locked memory.
# Not part of `make bench` (it needs stress-ng and runs ~4 min: three
# rounds of six 10-second runs): `make bench-jitter` runs it;
# BENCH_JITTER_ARGS passes options, e.g.
# BENCH_JITTER_ARGS="--count 5000 --repeat 5 --plot jitter.png".
EXTRA_DIST += bench/bench-jitter.py docs/tuning.md

bench-jitter: tools/rfm$(EXEEXT)
	/usr/bin/python3 $(top_srcdir)/bench/bench-jitter.py --build $(abs_top_builddir) \
		$(BENCH_JITTER_ARGS)
.PHONY: bench-jitter
