# SPDX-License-Identifier: LGPL-2.1-or-later
# librfm2g: the RFM2g API over librfm (headers: include/rfm2g/local.mk), linked
# with the shared librfm: one librfm per process. The board ops come from
# librfm.so's private accessor (src/private.h, node RFM_PRIVATE).
# The code is built once as a convenience library so that tests can reach
# its internals; librfm2g.la exports only what librfm2g.map lists.
# On Windows it is rfm2g.dll (below). What differs between the OSes is in
# src/librfm2g/posix and src/librfm2g/win (rfm2g-os.h, rfm2g-handle.h).

# In the stack's order (compat.h): open/close, the API groups, release,
# then the registry at the bottom.
rfm2g_sources = \
	src/librfm2g/compat.h src/librfm2g/rfm2g-os.h src/librfm2g/open.c \
	src/librfm2g/memory.c src/librfm2g/window.c src/librfm2g/events.c \
	src/librfm2g/callbacks.c src/librfm2g/info.c src/librfm2g/views.c \
	src/librfm2g/controls.c src/librfm2g/regs.c src/librfm2g/errlist.c \
	src/librfm2g/release.c src/librfm2g/registry.c \
	src/librfm2g/$(RFM_OS)/rfm2g-os.c src/librfm2g/$(RFM_OS)/rfm2g-handle.h
rfm2g_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/include/rfm2g -I$(top_srcdir)/src \
	-I$(top_srcdir)/src/librfm2g/$(RFM_OS)
EXTRA_DIST += src/librfm2g/posix/rfm2g-os.c src/librfm2g/posix/rfm2g-handle.h \
	src/librfm2g/win/rfm2g-os.c src/librfm2g/win/rfm2g-handle.h

if RFM_OS_POSIX
noinst_LTLIBRARIES += src/librfm2g/librfm2g-core.la
src_librfm2g_librfm2g_core_la_SOURCES = $(rfm2g_sources)
src_librfm2g_librfm2g_core_la_CPPFLAGS = $(rfm2g_cppflags)
src_librfm2g_librfm2g_core_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)

lib_LTLIBRARIES += src/librfm2g/librfm2g.la
src_librfm2g_librfm2g_la_SOURCES =
src_librfm2g_librfm2g_la_LIBADD = src/librfm2g/librfm2g-core.la src/librfm.la \
	$(PTHREAD_LIBS)
src_librfm2g_librfm2g_la_LDFLAGS = \
	-version-info 0:0:0 \
	-Wl,--version-script=$(top_srcdir)/src/librfm2g/librfm2g.map \
	$(RFM_LDFLAGS_DEFS)
EXTRA_src_librfm2g_librfm2g_la_DEPENDENCIES = src/librfm2g/librfm2g.map
EXTRA_DIST += src/librfm2g/librfm2g.map

# The static librfm2g.a, built by default beside the shared library, holds
# librfm2g and the core of librfm it calls, so that a program links with
# "-lrfm2g -lpthread" alone, as with GE's library; a static program has
# one copy of the core, the archive's (docs/rfm2g-migration.md, Linking).
# The core is a second build of librfm's sources without dds: (that needs
# Cyclone DDS's shared library); the archive is both convenience archives
# merged (GNU ar's MRI script). test-rfm2g-backend links the same copy.
noinst_LTLIBRARIES += src/librfm2g/librfm-static-core.la
src_librfm2g_librfm_static_core_la_SOURCES = $(src_librfm_la_SOURCES)
src_librfm2g_librfm_static_core_la_CPPFLAGS = $(src_librfm_la_CPPFLAGS) -DRFM_NO_DDS_BACKEND
src_librfm2g_librfm_static_core_la_CFLAGS = $(src_librfm_la_CFLAGS)

rfm2g_static = src/librfm2g/librfm2g.a
all-local: $(rfm2g_static)
$(rfm2g_static): src/librfm2g/librfm2g-core.la src/librfm2g/librfm-static-core.la
	$(AM_V_AR)rm -f $@ && \
	printf 'create %s\naddlib %s\naddlib %s\nsave\nend\n' $@ \
		src/librfm2g/.libs/librfm2g-core.a src/librfm2g/.libs/librfm-static-core.a | \
		$(AR) -M && $(RANLIB) $@
CLEANFILES += $(rfm2g_static)
install-exec-local: install-rfm2g-static
# uninstall-rfm2g-static runs from uninstall-local (docs/local.mk).
install-rfm2g-static: $(rfm2g_static)
	$(MKDIR_P) '$(DESTDIR)$(libdir)'
	$(INSTALL_DATA) $(rfm2g_static) '$(DESTDIR)$(libdir)/librfm2g.a'
pkgconfig_DATA += rfm2g.pc
endif
uninstall-rfm2g-static:
	rm -f '$(DESTDIR)$(libdir)/librfm2g.a'
.PHONY: install-rfm2g-static uninstall-rfm2g-static
EXTRA_DIST += rfm2g.pc.in

EXTRA_DIST += docs/rfm2g-migration.md examples/rfm2g/CMakeLists.txt

if RFM_OS_WIN
# rfm2g.dll: the RFM2g API for Windows programs, GE's header set
# (rfm2g_api.h with rfm2g_types_windows.h and rfm2g_osspec_windows.h under
# _WIN32), over librfm-N.dll. It exports the names of librfm2g.map
# (src/librfm2g/rfm2g.def, made by src/librfm-def.sh and checked against
# the DLL after the link); beside mingw's import library rfm2g.dll.a,
# rfm2g.lib is one for Visual Studio (llvm-dlltool).
lib_LTLIBRARIES += src/librfm2g/rfm2g.la
src_librfm2g_rfm2g_la_SOURCES = $(rfm2g_sources)
# DEFINE_CODE: GE's headers then declare the calls dllexport, not dllimport.
src_librfm2g_rfm2g_la_CPPFLAGS = $(rfm2g_cppflags) -DDEFINE_CODE
src_librfm2g_rfm2g_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
src_librfm2g_rfm2g_la_LIBADD = src/librfm.la $(PTHREAD_LIBS)
src_librfm2g_rfm2g_la_LDFLAGS = -module -avoid-version -no-undefined \
	-export-symbols src/librfm2g/rfm2g.def
EXTRA_src_librfm2g_rfm2g_la_DEPENDENCIES = src/librfm2g/rfm2g.def
src/librfm2g/rfm2g.def: $(top_srcdir)/src/librfm2g/librfm2g.map $(top_srcdir)/src/librfm-def.sh
	$(AM_V_GEN)$(MKDIR_P) src/librfm2g && \
		$(SHELL) $(top_srcdir)/src/librfm-def.sh $(top_srcdir)/src/librfm2g/librfm2g.map \
			> $@.tmp && mv $@.tmp $@
src/librfm2g/rfm2g-exports.ok: src/librfm2g/rfm2g.la src/librfm2g/rfm2g.def
	$(AM_V_GEN)$(OBJDUMP) -p src/librfm2g/.libs/rfm2g.dll > src/librfm2g/rfm2g-exports.txt && \
		$(SHELL) $(top_srcdir)/src/librfm-def.sh --check src/librfm2g/rfm2g.def \
			src/librfm2g/rfm2g-exports.txt && touch $@
noinst_DATA += src/librfm2g/rfm2g-exports.ok
CLEANFILES += src/librfm2g/rfm2g.def src/librfm2g/rfm2g-exports.txt \
	src/librfm2g/rfm2g-exports.ok
if HAVE_LLVM_DLLTOOL
src/librfm2g/rfm2g.lib: src/librfm2g/rfm2g.def
	$(AM_V_GEN)$(LLVM_DLLTOOL) -m i386:x86-64 -d src/librfm2g/rfm2g.def -D rfm2g.dll -l $@
noinst_DATA += src/librfm2g/rfm2g.lib
CLEANFILES += src/librfm2g/rfm2g.lib
install-exec-hook: install-rfm2g-implib
uninstall-hook: uninstall-rfm2g-implib
install-rfm2g-implib: src/librfm2g/rfm2g.lib
	$(MKDIR_P) '$(DESTDIR)$(libdir)'
	$(INSTALL_DATA) src/librfm2g/rfm2g.lib '$(DESTDIR)$(libdir)/rfm2g.lib'
uninstall-rfm2g-implib:
	rm -f '$(DESTDIR)$(libdir)/rfm2g.lib'
endif
endif
.PHONY: install-rfm2g-implib uninstall-rfm2g-implib

if RFM_OS_POSIX
if WITH_EXAMPLES
# An RFM2g program built only against the compatibility headers.
noinst_PROGRAMS += examples/rfm2g/rfm2g-echo
examples_rfm2g_rfm2g_echo_SOURCES = examples/rfm2g/rfm2g-echo.c
examples_rfm2g_rfm2g_echo_CPPFLAGS = -I$(top_srcdir)/include/rfm2g -DRFM2G_LINUX
# librfm too, though the program calls only RFM2g: a cross linker finds
# librfm2g's own dependency only on the command line (no -rpath-link).
examples_rfm2g_rfm2g_echo_LDADD = src/librfm2g/librfm2g.la src/librfm.la
endif
endif
