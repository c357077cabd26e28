# SPDX-License-Identifier: LGPL-2.1-or-later
# Several hosts (issue 18): the dds: backend against Cyclone DDS's ddsperf
# and raw UDP, across two network namespaces (bench/bench-hosts.py; root,
# ddsperf from cyclonedds-tools; skipped with the reason otherwise).
# `make bench-dds` runs it (~40 s); BENCH_DDS_ARGS passes options, e.g.
# BENCH_DDS_ARGS="--markdown --seconds 10". `make bench` runs it too.
EXTRA_PROGRAMS += bench/udp-pingpong bench/bench-event-rtt bench/bench-repl-write
CLEANFILES += bench/udp-pingpong bench/bench-event-rtt bench/bench-repl-write
EXTRA_DIST += bench/bench-hosts.py

bench_udp_pingpong_SOURCES = bench/udp-pingpong.c bench/stats.h
bench_bench_event_rtt_SOURCES = bench/bench-event-rtt.c bench/repl-peer.h bench/stats.h
bench_bench_event_rtt_LDADD = src/librfm.la
bench_bench_repl_write_SOURCES = bench/bench-repl-write.c bench/repl-peer.h bench/stats.h
bench_bench_repl_write_LDADD = src/librfm.la

bench_dds_deps = bench/udp-pingpong$(EXEEXT) bench/bench-event-rtt$(EXEEXT) \
	bench/bench-repl-write$(EXEEXT)
bench-dds: $(bench_dds_deps)
	/usr/bin/python3 $(top_srcdir)/bench/bench-hosts.py --build $(abs_top_builddir) \
		--skip-ok $(BENCH_DDS_ARGS)
bench: bench-dds
.PHONY: bench-dds
