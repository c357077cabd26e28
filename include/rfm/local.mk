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
	include/rfm/recorder.h \
	include/rfm/rfm.hpp
# The C++ layer's classes, one header each, behind rfm.hpp.
rfmcxxincludedir = $(includedir)/rfm/cxx
rfmcxxinclude_HEADERS = \
	include/rfm/cxx/error.hpp \
	include/rfm/cxx/span.hpp \
	include/rfm/cxx/window.hpp \
	include/rfm/cxx/event-callback.hpp \
	include/rfm/cxx/var.hpp \
	include/rfm/cxx/layout.hpp \
	include/rfm/cxx/record.hpp \
	include/rfm/cxx/ring.hpp \
	include/rfm/cxx/ring-consumer.hpp \
	include/rfm/cxx/node.hpp \
	include/rfm/cxx/recorder.hpp
nodist_rfminclude_HEADERS = include/rfm/version.h
