# SPDX-License-Identifier: LGPL-2.1-or-later
# The dds: backend (Cyclone DDS), when configure found it: a convenience
# library of its own, so that every copy of the library's sources (tests)
# links it through src_librfm_la_LIBADD (src/local.mk). The wire types come
# from dds-wire.idl through idlc at build time, into this directory of the
# build tree; "backends/dds/dds-wire.h" is found with -I$(top_builddir)/src.
if HAVE_DDS
noinst_LTLIBRARIES += src/backends/dds/librfm-dds.la
src_backends_dds_librfm_dds_la_SOURCES = \
	src/backends/dds/dds-internal.h \
	src/backends/dds/dds-sample.c \
	src/backends/dds/dds-digest.c \
	src/backends/dds/dds-identity.c \
	src/backends/dds/dds-route.c \
	src/backends/dds/dds-backlog.c \
	src/backends/dds/dds-coalesce.c \
	src/backends/dds/dds-publish.c \
	src/backends/dds/dds-events.c \
	src/backends/dds/dds-answer.c \
	src/backends/dds/dds-snapshot.c \
	src/backends/dds/dds-presence.c \
	src/backends/dds/dds-receive.c \
	src/backends/dds/dds-thread.c \
	src/backends/dds/dds-join.c \
	src/backends/dds/dds-claim.c \
	src/backends/dds/dds-security-grant.c \
	src/backends/dds/dds-security-files.c \
	src/backends/dds/dds-security.c \
	src/backends/dds/dds-backend.c
nodist_src_backends_dds_librfm_dds_la_SOURCES = \
	src/backends/dds/dds-wire.c src/backends/dds/dds-wire.h
src_backends_dds_librfm_dds_la_CPPFLAGS = $(src_librfm_la_CPPFLAGS) -I$(top_builddir)/src
src_backends_dds_librfm_dds_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(DDS_CFLAGS)
src_backends_dds_librfm_dds_la_LIBADD = $(DDS_LIBS)
RFM_DDS_LIBADD = src/backends/dds/librfm-dds.la
BUILT_SOURCES += src/backends/dds/dds-wire.c src/backends/dds/dds-wire.h
CLEANFILES += src/backends/dds/dds-wire.c src/backends/dds/dds-wire.h
src/backends/dds/dds-wire.h: src/backends/dds/dds-wire.c
src/backends/dds/dds-wire.c: $(top_srcdir)/src/backends/dds/dds-wire.idl
	$(AM_V_GEN)$(MKDIR_P) src/backends/dds && cd src/backends/dds && \
		$(IDLC) -x final $(abs_top_srcdir)/src/backends/dds/dds-wire.idl
else
RFM_DDS_LIBADD =
endif
EXTRA_DIST += src/backends/dds/dds-wire.idl
