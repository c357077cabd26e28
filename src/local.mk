# SPDX-License-Identifier: LGPL-2.1-or-later
# librfm: the generic core is listed here; each backend appends its own
# sources in src/backends/NAME/local.mk, included right after this file
# (Makefile.am). The RFM2g compatibility library librfm2g is
# src/librfm2g/local.mk's.
lib_LTLIBRARIES += src/librfm.la

# One line a module, each in its stack's order, top first
# (docs/architecture.md, "Module stacks").
src_librfm_la_SOURCES = \
	src/backend.h src/internal.h src/board.h src/private.h src/private.c \
	src/node.c src/node-attach.c src/node-registry.c src/memory.c src/ffi.c src/mem-lock.c \
	src/version.c src/error.c src/util.c src/uri.c src/counters.c src/selftest.c \
	src/rt-internal.h src/rt-options.c src/rt-cpus.c src/rt-thread.c \
	src/health.c src/health-table.h src/health-table.c \
	src/futex.h src/cpu-clock.h src/wait-notify.h src/event-core.h src/event-localq.h \
	src/event.c src/event-callback.c src/event-wait.c src/event-state.c \
	src/event-fd.c src/event-types.c src/event-localq.c \
	src/layout-internal.h src/layout-yaml.h src/seqlock.h \
	src/layout-load.c src/layout-yaml.c src/layout-yaml-doc.c src/layout-builder.c \
	src/layout.c src/layout-check.c src/layout-diag.c src/layout-types.c \
	src/layout-info.c src/layout-header.c src/layout-ring.c \
	src/var.c src/var-text.c src/var-stale.c src/record.c \
	src/ring-internal.h src/wire-order.h src/window-copy.h \
	src/ring.c src/ring-consumer.c src/ring-inspect.c src/ring-format.c \
	src/recorder-internal.h src/recorder-queue.h \
	src/recorder.c src/recorder-plan.c src/recorder-writer.c src/recorder-sampler.c \
	src/recorder-queue.c src/recorder-file.c src/recorder-csv.c
# The recorder's HDF5 file, or its refusal in a build without libhdf5.
if HAVE_HDF5
src_librfm_la_SOURCES += src/recorder-hdf5.c
else
src_librfm_la_SOURCES += src/recorder-hdf5-missing.c
endif
EXTRA_DIST += src/recorder-hdf5.c src/recorder-hdf5-missing.c
# Internal headers are included by their path from src/ ("internal.h",
# "backends/shm/shm-internal.h"): every target that includes them has
# -I$(top_srcdir)/src.
# RFM_BUILDING_DLL: RFM_API exports (include/rfm/common.h; on Windows,
# dllexport rather than dllimport).
src_librfm_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -DRFM_BUILDING_DLL
# Layout files are YAML (libyaml); -lm for the typed variables' limits;
# recordings are HDF5 (libhdf5, when configure found it);
# RFM_DDS_LIBADD is the dds: backend (src/backends/dds/local.mk);
# RFM_OS_LIBS what the OS layer needs (configure.ac).
src_librfm_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(YAML_CFLAGS) $(HDF5_CFLAGS)
src_librfm_la_LIBADD = $(YAML_LIBS) -lm $(RFM_DDS_LIBADD) $(HDF5_LIBS) $(RFM_OS_LIBS)
src_librfm_la_LDFLAGS = -version-info $(RFM_LT_VERSION) $(RFM_LDFLAGS_DEFS)
if RFM_OS_WIN
# A DLL (librfm-1.dll) exports what RFM_API marks; -no-undefined lets
# libtool make one. The version script is ELF's.
src_librfm_la_LDFLAGS += -no-undefined
else
src_librfm_la_LDFLAGS += -Wl,--version-script=$(top_srcdir)/src/librfm.map
endif
EXTRA_src_librfm_la_DEPENDENCIES = src/librfm.map

EXTRA_DIST += src/librfm.map
