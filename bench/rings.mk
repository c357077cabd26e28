# SPDX-License-Identifier: LGPL-2.1-or-later
# Ring benchmark (issue 5), run by `make bench` after the others. The
# iceoryx helper is built only when iceoryx's C binding is installed
# (Debian: iceoryx, libiceoryx-binding-c-dev); bench-rings skips that part
# with a message otherwise.
BENCHMARKS += bench/bench-rings
EXTRA_PROGRAMS += bench/bench-rings
CLEANFILES += bench/bench-rings bench/bench-rings-iox

bench_bench_rings_SOURCES = bench/bench-rings.c bench/stats.h
bench_bench_rings_LDADD = src/librfm.la
EXTRA_DIST += bench/bench-rings-iox.c

bench: bench/bench-rings-iox
bench/bench-rings-iox: $(srcdir)/bench/bench-rings-iox.c
	@rm -f $@
	@inc=`ls -d /usr/include/iceoryx/v*/ 2>/dev/null | tail -n 1`; \
	if test -n "$$inc" && test -f "$$inc/iceoryx_binding_c/api.h"; then \
		echo "  CC       $@"; \
		$(CC) -std=gnu11 -O2 -D_DEFAULT_SOURCE -I"$$inc" \
			-o $@ $(srcdir)/bench/bench-rings-iox.c -liceoryx_binding_c; \
	else \
		echo "  (iceoryx C binding not installed: bench/bench-rings-iox not built)"; \
	fi
