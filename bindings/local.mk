# SPDX-License-Identifier: LGPL-2.1-or-later
# SWIG bindings: one language-neutral interface, bindings/rfm.i, which
# %includes the public headers; one generated module per language.

# A wrapper is stale when the interface, a language file or a header changes.
SWIG_COMMON_DEPS = \
	$(top_srcdir)/bindings/rfm.i \
	$(rfminclude_HEADERS:%=$(top_srcdir)/%) \
	include/rfm/version.h
SWIG_INCLUDES = -I$(top_srcdir)/bindings -I$(top_srcdir)/include -I$(top_builddir)/include

EXTRA_DIST += \
	bindings/README.md \
	bindings/rfm.i \
	bindings/python/rfm_python.i \
	bindings/python/rfm_python_events.i \
	bindings/python/rfm_python_layout.i \
	bindings/python/rfm_python_rings.i \
	bindings/python/rfm_python_recorder.i \
	bindings/python/run-pytest.in \
	bindings/python/pyproject.toml \
	bindings/python/setup.py \
	bindings/python/check-install.sh \
	bindings/python/run-mypy.sh \
	bindings/python/tests/conftest.py \
	bindings/python/tests/peer.py \
	bindings/python/tests/test_api.py \
	bindings/python/tests/test_errors.py \
	bindings/python/tests/test_bad_input.py \
	bindings/python/tests/test_memory_view.py \
	bindings/python/tests/test_dds.py \
	bindings/python/tests/test_processes.py \
	bindings/python/tests/test_threads.py \
	bindings/python/tests/test_leaks.py \
	bindings/python/tests/test_lowlevel.py \
	bindings/python/tests/test_events.py \
	bindings/python/tests/test_event_callbacks.py \
	bindings/python/tests/test_event_processes.py \
	bindings/python/tests/test_layout.py \
	bindings/python/tests/test_rings.py \
	bindings/python/tests/test_recorder.py \
	bindings/python/tests/test_example_bench.py \
	bindings/python/tests/test_builtin_errors.py \
	bindings/python/tests/test_deadlines.py \
	bindings/python/tests/test_asyncio.py \
	bindings/python/tests/test_pytest_plugin.py \
	bindings/python/tests/test_types.py \
	examples/python/test_bench.py \
	examples/python/plant.py \
	examples/python/test_hil_plant.py \
	examples/python/hil-bench.yaml \
	bindings/tcl/rfm_tcl.i \
	bindings/tcl/run-smoke.in \
	bindings/tcl/smoke.tcl

# ---- Python: package rfm = the Python files + the SWIG module rfm._rfm_swig ----

if WITH_BINDINGS_PYTHON
rfmpythondir = $(pythondir)/rfm
rfmpython_PYTHON = \
	bindings/python/rfm/__init__.py \
	bindings/python/rfm/_errors.py \
	bindings/python/rfm/_events.py \
	bindings/python/rfm/_layout.py \
	bindings/python/rfm/_node.py \
	bindings/python/rfm/_rings.py \
	bindings/python/rfm/_waits.py \
	bindings/python/rfm/pytest_plugin.py \
	bindings/python/rfm/_recorder.py \
	bindings/python/rfm/recording.py \
	bindings/python/rfm/plot.py
# PEP 561: the package carries its types (inline and in the .pyi stubs).
dist_rfmpython_DATA = bindings/python/rfm/py.typed bindings/python/rfm/_rfm_swig.pyi

# What pip would write beside the package: its name and version, and the
# pytest11 entry point that loads rfm.pytest_plugin wherever rfm is
# installed (make install, the Debian package), as pyproject.toml declares.
rfmdistinfodir = $(pythondir)/rfm-$(VERSION).dist-info
rfmdistinfo_DATA = \
	bindings/python/dist-info/METADATA \
	bindings/python/dist-info/entry_points.txt \
	bindings/python/dist-info/top_level.txt
bindings/python/dist-info/METADATA: Makefile
	$(AM_V_GEN)$(MKDIR_P) bindings/python/dist-info && \
	printf 'Metadata-Version: 2.1\nName: rfm\nVersion: %s\nSummary: %s\nLicense: LGPL-2.1-or-later\n' \
		'$(VERSION)' 'Reflective-memory networks, real and emulated: librfm for Python test benches' >$@
bindings/python/dist-info/entry_points.txt: $(top_srcdir)/bindings/python/pyproject.toml
	$(AM_V_GEN)$(MKDIR_P) bindings/python/dist-info && \
	sed -n '/^\[project.entry-points.pytest11\]/,/^\[/{s/^\[project.entry-points.\(pytest11\)\]/[\1]/p;/^[a-z]/{s/"//g;p;};}' \
		$(top_srcdir)/bindings/python/pyproject.toml >$@ && grep -q '^rfm = ' $@
bindings/python/dist-info/top_level.txt: Makefile
	$(AM_V_GEN)$(MKDIR_P) bindings/python/dist-info && echo rfm >$@

rfmpyexecdir = $(pyexecdir)/rfm
rfmpyexec_LTLIBRARIES = bindings/python/_rfm_swig.la
nodist_bindings_python__rfm_swig_la_SOURCES = bindings/python/rfm_python_wrap.c
bindings_python__rfm_swig_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
bindings_python__rfm_swig_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
# Python supplies its own symbols when it loads the module: no -z defs here.
bindings_python__rfm_swig_la_LDFLAGS = -module -avoid-version -shared
bindings_python__rfm_swig_la_LIBADD = src/librfm.la

# -builtin: C types and functions only, no generated .py proxy (we write our
# own layer); -threads: GIL release where rfm_python.i asks for it.
bindings/python/rfm_python_wrap.c: $(SWIG_COMMON_DEPS) $(top_srcdir)/bindings/python/rfm_python.i \
		$(top_srcdir)/bindings/python/rfm_python_events.i \
		$(top_srcdir)/bindings/python/rfm_python_layout.i \
		$(top_srcdir)/bindings/python/rfm_python_rings.i \
		$(top_srcdir)/bindings/python/rfm_python_recorder.i
	$(AM_V_GEN)$(MKDIR_P) bindings/python && \
	$(SWIG) -python -builtin -threads -module rfm_swig $(SWIG_INCLUDES) \
		-outdir bindings/python -o $@ $(top_srcdir)/bindings/rfm.i && \
	rm -f bindings/python/rfm_swig.py

# The build tree's rfm/ holds the module; rfm/__init__.py joins it to the
# source tree's rfm/ (pkgutil.extend_path), so tests import without install.
noinst_DATA += bindings/python/rfm/_rfm_swig.so
bindings/python/rfm/_rfm_swig.so: bindings/python/_rfm_swig.la
	$(AM_V_GEN)$(MKDIR_P) bindings/python/rfm && \
	cp -f bindings/python/.libs/_rfm_swig.so $@

CLEANFILES += \
	bindings/python/rfm_python_wrap.c \
	bindings/python/rfm/_rfm_swig.so \
	$(rfmdistinfo_DATA)
endif

# The package as users install and type-check it, once per CI run (by
# ./quickstart.sh test, not make check: neither depends on the compiler):
# pip into a fresh venv and the example bench with the plugin; mypy.
check-python-install: all
	$(AM_V_at)srcdir='$(top_srcdir)' PYTHON='$(PYTHON)' $(SHELL) $(top_srcdir)/bindings/python/check-install.sh
check-mypy:
	$(AM_V_at)srcdir='$(top_srcdir)' PYTHON='$(PYTHON)' $(SHELL) $(top_srcdir)/bindings/python/run-mypy.sh
.PHONY: check-python-install check-mypy

# ---- Tcl: the same interface again, built for its smoke test only ----

if WITH_BINDINGS_TCL
check_LTLIBRARIES += bindings/tcl/rfm.la
nodist_bindings_tcl_rfm_la_SOURCES = bindings/tcl/rfm_tcl_wrap.c
bindings_tcl_rfm_la_CPPFLAGS = $(AM_CPPFLAGS) $(TCL_CFLAGS)
# SWIG's Tcl runtime shadows a local and initialises its tables flat.
bindings_tcl_rfm_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -Wno-shadow -Wno-missing-braces
# -rpath: a loadable module, not a convenience library, though never installed.
bindings_tcl_rfm_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
bindings_tcl_rfm_la_LIBADD = src/librfm.la $(TCL_LIBS)

bindings/tcl/rfm_tcl_wrap.c: $(SWIG_COMMON_DEPS) $(top_srcdir)/bindings/tcl/rfm_tcl.i
	$(AM_V_GEN)$(MKDIR_P) bindings/tcl && \
	$(SWIG) -tcl $(SWIG_INCLUDES) -o $@ $(top_srcdir)/bindings/rfm.i

CLEANFILES += bindings/tcl/rfm_tcl_wrap.c
endif

# ---- tests: each wrapper exits 77 (skip) with the reason when its part is off ----

if WITH_TESTS
TESTS += bindings/python/run-pytest bindings/tcl/run-smoke
endif
