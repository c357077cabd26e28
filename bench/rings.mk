# SPDX-License-Identifier: LGPL-2.1-or-later
# Ring benchmark (issue 5), run by `make bench` after the others. Its
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
