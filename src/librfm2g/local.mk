# SPDX-License-Identifier: LGPL-2.1-or-later
# librfm2g: the RFM2g API over librfm (headers: include/rfm2g/local.mk), linked
# with the shared librfm: one librfm per process. The board ops come from
# librfm.so's private accessor (src/private.h, node RFM_PRIVATE).
# The code is built once as a convenience library so that tests can reach
# its internals; librfm2g.la exports only what librfm2g.map lists.

noinst_LTLIBRARIES += src/librfm2g/librfm2g-core.la
src_librfm2g_librfm2g_core_la_SOURCES = \
	src/librfm2g/compat.h \
	src/librfm2g/registry.c \
	src/librfm2g/views.c \
	src/librfm2g/release.c \
	src/librfm2g/events.c \
	src/librfm2g/callbacks.c \
	src/librfm2g/memory.c \
	src/librfm2g/info.c \
	src/librfm2g/controls.c \
	src/librfm2g/window.c \
	src/librfm2g/regs.c \
	src/librfm2g/open.c \
	src/librfm2g/errlist.c
src_librfm2g_librfm2g_core_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include/rfm2g \
	-I$(top_srcdir)/src
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

pkgconfig_DATA += rfm2g.pc
EXTRA_DIST += rfm2g.pc.in

EXTRA_DIST += docs/rfm2g-migration.md

if WITH_EXAMPLES
# An RFM2g program built only against the compatibility headers.
noinst_PROGRAMS += examples/rfm2g/rfm2g-echo
examples_rfm2g_rfm2g_echo_SOURCES = examples/rfm2g/rfm2g-echo.c
examples_rfm2g_rfm2g_echo_CPPFLAGS = -I$(top_srcdir)/include/rfm2g -DRFM2G_LINUX
examples_rfm2g_rfm2g_echo_LDADD = src/librfm2g/librfm2g.la
endif
