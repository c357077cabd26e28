# SPDX-License-Identifier: LGPL-2.1-or-later
# Windows x64: the cross-build tools (build-aux/win-deps.sh, win-env.sh, the
# CMake toolchain file) and the mixed Windows/Linux dds: wire test.
#
# `make check-windows-dds-wire`: a Windows node under wine and a Linux node
# exchange librfm's dds: wire types on one DDS domain over loopback, plain
# and with DDS Security (tests/windows/test-dds-wire-mixed.sh). Needs the
# dependency prefix (build-aux/win-deps.sh); skips, saying why, without it.
check-windows-dds-wire:
	$(top_srcdir)/tests/windows/test-dds-wire-mixed.sh; \
	status=$$?; test $$status = 77 && status=0; exit $$status
.PHONY: check-windows-dds-wire

EXTRA_DIST += \
	build-aux/win-deps.sh \
	build-aux/win-deps/common.sh \
	build-aux/win-deps/fetch.sh \
	build-aux/win-deps/yaml.sh \
	build-aux/win-deps/cmocka.sh \
	build-aux/win-deps/json-c.sh \
	build-aux/win-deps/microhttpd.sh \
	build-aux/win-deps/openssl.sh \
	build-aux/win-deps/cyclonedds.sh \
	build-aux/win-env.sh \
	build-aux/win-run.c \
	build-aux/mingw-w64-x86_64.cmake \
	tests/windows/dds-wire-peer.c \
	tests/windows/test-dds-wire-mixed.sh

# `make check-windows-dds`: a Windows node (librfm-1.dll under wine) and a
# Linux node (this build's librfm.so) on one dds: network through the
# public API, plain and with DDS Security (tests/windows/test-dds-mixed.sh).
# The Windows librfm is built with dds: in RFM_WIN_DDS_BUILD, configured
# once and kept. Skips, saying why, without mingw-w64, wine or dds:.
RFM_WIN_DDS_BUILD = $(abs_top_builddir)/build-win-dds
check-windows-dds: src/librfm.la
	/usr/bin/time -f 'check-windows-dds: %e s wall, %U+%S s cpu' \
		$(SHELL) $(top_srcdir)/tests/windows/test-dds-mixed.sh $(top_srcdir) $(abs_top_builddir) \
		$(RFM_WIN_DDS_BUILD); \
	status=$$?; test $$status = 77 && status=0; exit $$status
.PHONY: check-windows-dds
EXTRA_DIST += tests/windows/dds-mixed-node.c tests/windows/test-dds-mixed.sh
