# SPDX-License-Identifier: LGPL-2.1-or-later
# librfm's public headers, installed in $(includedir)/rfm (pkg-config rfm);
# the library itself is built by src/local.mk. version.h is made by
# configure from version.h.in.

rfmincludedir = $(includedir)/rfm
rfminclude_HEADERS = \
	include/rfm/rfm.h \
	include/rfm/common.h \
	include/rfm/error.h \
	include/rfm/node.h \
	include/rfm/memory.h \
	include/rfm/access.h \
	include/rfm/event.h \
	include/rfm/ring.h \
	include/rfm/health.h \
	include/rfm/realtime.h \
	include/rfm/layout.h \
	include/rfm/rfm.hpp
nodist_rfminclude_HEADERS = include/rfm/version.h
