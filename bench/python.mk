# SPDX-License-Identifier: LGPL-2.1-or-later
# Python side of `make bench`: peek32 from Python against the same call from
# C (bench-mem's figures, measured in the same run). Runs before the C
# benchmarks, once everything it compares is built.
EXTRA_DIST += bench/python/peek32.py

bench: bench-python
.PHONY: bench-python
if WITH_BINDINGS_PYTHON
bench-python: bench/bench-mem bindings/python/rfm/_rfm_swig.so
	@PYTHONPATH="$(abs_top_builddir)/bindings/python:$(abs_top_srcdir)/bindings/python" \
	PYTHONDONTWRITEBYTECODE=1 \
	$(PYTHON) $(top_srcdir)/bench/python/peek32.py --c-bench bench/bench-mem && echo
else
bench-python:
	@echo "bench-python: skipped, Python bindings not built"
endif
