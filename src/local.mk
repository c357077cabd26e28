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
	src/layout.c src/layout-index.c src/layout-check.c src/layout-diag.c src/layout-types.c \
	src/layout-info.c src/layout-header.c src/layout-ring.c \
	src/var.c src/var-text.c src/var-stale.c src/record.c \
	src/ring-internal.h src/wire-order.h src/window-copy.h src/window-load.h \
	src/ring.c src/ring-consumer.c src/ring-inspect.c src/ring-format.c \
	src/recorder-internal.h src/recorder-queue.h \
	src/recorder.c src/recorder-plan.c src/recorder-writer.c src/recorder-sampler.c \
	src/recorder-queue.c src/recorder-file.c src/recorder-csv.c src/textbuf.h src/textbuf.c \
	src/recorder-module.h src/recorder-module.c

# The recorder's HDF5 writer is a module librfm opens when an HDF5
# recording starts (src/recorder-module.h), installed in $(pkglibdir):
# the module links libhdf5, librfm does not, so no other process loads
# HDF5 and the 31 libraries it needs. Its only export is its entry; it
# reaches librfm's internals through the services librfm lends it.
if HAVE_HDF5
pkglib_LTLIBRARIES = src/rfm-hdf5.la
src_rfm_hdf5_la_SOURCES = src/recorder-hdf5.c src/recorder-hdf5-module.c
src_rfm_hdf5_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -I$(top_builddir)/src
src_rfm_hdf5_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(HDF5_CFLAGS)
src_rfm_hdf5_la_LIBADD = src/librfm.la $(HDF5_LIBS)
src_rfm_hdf5_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^rfm_recorder_module$$' $(RFM_LDFLAGS_DEFS)
endif
EXTRA_DIST += src/recorder-hdf5.c src/recorder-hdf5-module.c

# Which build a module is of (recorder-module.h): the text of the headers
# module and librfm both compile, summed. Made again when one changes.
rfm_rec_module_headers = $(top_srcdir)/include/rfm/recorder.h $(top_srcdir)/src/internal.h \
	$(top_srcdir)/src/layout-internal.h $(top_srcdir)/src/recorder-internal.h \
	$(top_srcdir)/src/recorder-queue.h $(top_srcdir)/src/recorder-module.h
src/recorder-module-id.h: $(rfm_rec_module_headers)
	$(AM_V_GEN)$(MKDIR_P) src && \
	sum=`cat $(rfm_rec_module_headers) | cksum | sed 's/ .*//'` && \
	{ echo '/* SPDX-License-Identifier: LGPL-2.1-or-later */' && \
	  echo '/* Made by make (src/local.mk): which build the recorder module is of. */' && \
	  echo "#define RFM_REC_MODULE_ID \"$(PACKAGE_VERSION)+$$sum\""; } > $@.tmp && \
	mv $@.tmp $@
BUILT_SOURCES += src/recorder-module-id.h
CLEANFILES += src/recorder-module-id.h
# Also for `make src/librfm.la` alone (BUILT_SOURCES are made by all and check).
src/librfm_la-recorder-module.lo src/rfm_hdf5_la-recorder-hdf5-module.lo: \
	src/recorder-module-id.h
# Internal headers are included by their path from src/ ("internal.h",
# "backends/shm/shm-internal.h"): every target that includes them has
# -I$(top_srcdir)/src.
# RFM_BUILDING_DLL: RFM_API exports (include/rfm/common.h; on Windows,
# dllexport rather than dllimport).
# RFM_PKGLIBDIR: where the recorder's HDF5 module is installed.
src_librfm_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -I$(top_builddir)/src \
	-DRFM_BUILDING_DLL -DRFM_PKGLIBDIR='"$(pkglibdir)"'
# Layout files are YAML (libyaml); -lm for the typed variables' limits;
# RFM_DDS_LIBADD is the dds: backend (src/backends/dds/local.mk);
# RFM_OS_LIBS what the OS layer needs (configure.ac). No libhdf5: the
# recorder's HDF5 module has it.
src_librfm_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(YAML_CFLAGS)
src_librfm_la_LIBADD = $(YAML_LIBS) -lm $(RFM_DDS_LIBADD) $(RFM_OS_LIBS)
src_librfm_la_LDFLAGS = -version-info $(RFM_LT_VERSION) $(RFM_LDFLAGS_DEFS)
if RFM_OS_WIN
# librfm-1.dll exports the names of src/librfm.map (the module-definition
# file src/librfm.def, made from it by src/librfm-def.sh; -no-undefined
# lets libtool make a DLL). After the link the build checks that the DLL
# exports exactly those: a name marked RFM_API but missing from the map,
# or listed but not defined, fails `make`. Beside mingw's import library
# (librfm.dll.a), librfm.lib is one for Visual Studio (llvm-dlltool).
src_librfm_la_LDFLAGS += -no-undefined -export-symbols src/librfm.def
EXTRA_src_librfm_la_DEPENDENCIES = src/librfm.map src/librfm.def
src/librfm.def: $(top_srcdir)/src/librfm.map $(top_srcdir)/src/librfm-def.sh
	$(AM_V_GEN)$(MKDIR_P) src && \
		$(SHELL) $(top_srcdir)/src/librfm-def.sh $(top_srcdir)/src/librfm.map > $@.tmp && \
		mv $@.tmp $@
src/librfm-exports.ok: src/librfm.la src/librfm.def
	$(AM_V_GEN)$(OBJDUMP) -p src/.libs/librfm-$(RFM_DLL_VERSION).dll > src/librfm-exports.txt && \
		$(SHELL) $(top_srcdir)/src/librfm-def.sh --check src/librfm.def \
			src/librfm-exports.txt && touch $@
noinst_DATA += src/librfm-exports.ok
CLEANFILES += src/librfm.def src/librfm-exports.txt src/librfm-exports.ok
if HAVE_LLVM_DLLTOOL
src/librfm.lib: src/librfm.def
	$(AM_V_GEN)$(LLVM_DLLTOOL) -m i386:x86-64 -d src/librfm.def \
		-D librfm-$(RFM_DLL_VERSION).dll -l $@
noinst_DATA += src/librfm.lib
CLEANFILES += src/librfm.lib
install-exec-hook: install-msvc-implib
uninstall-hook: uninstall-msvc-implib
install-msvc-implib: src/librfm.lib
	$(MKDIR_P) '$(DESTDIR)$(libdir)'
	$(INSTALL_DATA) src/librfm.lib '$(DESTDIR)$(libdir)/librfm.lib'
uninstall-msvc-implib:
	rm -f '$(DESTDIR)$(libdir)/librfm.lib'
endif
else
src_librfm_la_LDFLAGS += -Wl,--version-script=$(top_srcdir)/src/librfm.map
EXTRA_src_librfm_la_DEPENDENCIES = src/librfm.map
endif

# Outside the conditionals: automake wants every .PHONY in one condition.
.PHONY: install-msvc-implib uninstall-msvc-implib
EXTRA_DIST += src/librfm.map src/librfm-def.sh
