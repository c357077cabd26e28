# SPDX-License-Identifier: LGPL-2.1-or-later
# Python side of `make bench`: peek32, a table get and an event round trip
# from Python against the same calls from C (bench-mem's, layout-bench's and
# bench-events' figures, measured in the same run). Runs before the C
# benchmarks, once everything it compares is built.
EXTRA_DIST += bench/python/peek32.py bench/python/tables_events.py

bench: bench-python
.PHONY: bench-python
if WITH_BINDINGS_PYTHON
bench-python: bench/bench-mem bench/layout-bench bench/bench-events bindings/python/rfm/_rfm_swig.so
	@PYTHONPATH="$(abs_top_builddir)/bindings/python:$(abs_top_srcdir)/bindings/python" \
	PYTHONDONTWRITEBYTECODE=1 \
	$(PYTHON) $(top_srcdir)/bench/python/peek32.py --c-bench bench/bench-mem && echo && \
	PYTHONPATH="$(abs_top_builddir)/bindings/python:$(abs_top_srcdir)/bindings/python" \
	PYTHONDONTWRITEBYTECODE=1 \
	$(PYTHON) $(top_srcdir)/bench/python/tables_events.py \
		--layout-bench bench/layout-bench --events-bench bench/bench-events && echo
else
bench-python:
	@echo "bench-python: skipped, Python bindings not built"
endif
