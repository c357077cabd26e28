# SPDX-License-Identifier: LGPL-2.1-or-later
# The C suites of a Windows build (configure --host=x86_64-w64-mingw32
# --enable-tests: WITH_TESTS_WIN), run under wine: `make check-windows` in
# a Linux build tree cross-builds and runs them (tests/windows/
# check-windows.sh, tests/README.md "Windows"). The programs are the
# shared suites' own sources, on the harness's Windows half
# (tests/harness/harness-win.c: children started with CreateProcess());
# suites not listed here need what Windows has not (fork() after threads,
# /proc, signals, Linux's files) and say so in tests/README.md.

if WITH_TESTS_WIN
check_LTLIBRARIES += tests/windows/libharness.la
tests_windows_libharness_la_SOURCES = \
	tests/harness/harness.h \
	tests/harness/harness.c \
	tests/harness/harness-internal.h \
	tests/harness/harness-win.c \
	tests/harness/rfm-cmocka.h
tests_windows_libharness_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
tests_windows_libharness_la_CFLAGS = $(win_test_cflags)
tests_windows_libharness_la_LIBADD = src/librfm.la

win_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
# GCC checks a mingw program's printf formats as Microsoft's (no %zu),
# cmocka's messages among them, though they print with mingw's C99 stdio.
win_test_cflags = $(AM_CFLAGS) -Wno-format
win_test_ldadd = tests/windows/libharness.la src/librfm.la $(CMOCKA_LIBS)

win_tests = \
	tests/windows/test-errors \
	tests/windows/test-version \
	tests/windows/test-uri \
	tests/windows/test-memory \
	tests/windows/test-rings-api \
	tests/windows/test-rings-copies \
	tests/windows/test-rings-wire \
	tests/windows/test-events-unregister \
	tests/windows/test-layout-parse \
	tests/windows/test-layout-stale \
	tests/windows/test-layout-v1-size \
	tests/windows/test-layout-limits \
	tests/windows/test-layout-access \
	tests/windows/test-events-xproc \
	tests/windows/test-events-nodes \
	tests/windows/test-events-api \
	tests/windows/test-rings-xproc \
	tests/windows/test-record-notify \
	tests/windows/test-multinode \
	tests/windows/test-observe \
	tests/windows/test-rings-layout \
	tests/windows/test-rings-inspect \
	tests/windows/test-health-states \
	tests/windows/test-recorder-csv \
	tests/windows/test-event-handle \
	tests/windows/test-msvc-abi
check_PROGRAMS += $(win_tests)
TESTS += $(win_tests)

tests_windows_test_errors_SOURCES = tests/core/test-errors.c
tests_windows_test_version_SOURCES = tests/core/test-version.c
tests_windows_test_memory_SOURCES = tests/core/test-memory.c
tests_windows_test_uri_SOURCES = tests/core/test-uri.c
tests_windows_test_rings_wire_SOURCES = tests/rings/test-rings-wire.c
tests_windows_test_rings_api_SOURCES = tests/rings/test-rings-api.c
tests_windows_test_rings_copies_SOURCES = tests/rings/test-rings-copies.c
tests_windows_test_events_unregister_SOURCES = tests/events/test-events-unregister.c
tests_windows_test_layout_parse_SOURCES = tests/layout/test-layout-parse.c
tests_windows_test_layout_stale_SOURCES = tests/layout/test-layout-stale.c
tests_windows_test_layout_limits_SOURCES = tests/layout/test-layout-limits.c
tests_windows_test_layout_access_SOURCES = tests/layout/test-layout-access.c
tests_windows_test_layout_v1_size_SOURCES = tests/layout/test-layout-v1-size.c
tests_windows_test_events_xproc_SOURCES = tests/events/test-events-xproc.c tests/events/ev-test.h
tests_windows_test_events_nodes_SOURCES = tests/events/test-events-nodes.c
tests_windows_test_events_api_SOURCES = tests/events/test-events-api.c tests/events/ev-test.h
tests_windows_test_rings_xproc_SOURCES = tests/rings/test-rings-xproc.c
tests_windows_test_record_notify_SOURCES = tests/records/test-record-notify.c
tests_windows_test_multinode_SOURCES = tests/core/test-multinode.c
tests_windows_test_observe_SOURCES = tests/core/test-observe.c
tests_windows_test_rings_layout_SOURCES = tests/rings/test-rings-layout.c
tests_windows_test_rings_inspect_SOURCES = tests/rings/test-rings-inspect.c
tests_windows_test_health_states_SOURCES = tests/health/test-health-states.c
tests_windows_test_recorder_csv_SOURCES = tests/recorder/test-recorder-csv.c
tests_windows_test_event_handle_SOURCES = tests/windows/test-event-handle.c
# It runs msvc-abi.exe (below), or skips saying why it was not built.
tests_windows_test_msvc_abi_SOURCES = tests/windows/test-msvc-abi.c
tests_windows_test_errors_CFLAGS = $(win_test_cflags)
tests_windows_test_errors_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_errors_LDADD = $(win_test_ldadd)
tests_windows_test_version_CFLAGS = $(win_test_cflags)
tests_windows_test_version_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_version_LDADD = $(win_test_ldadd)
tests_windows_test_memory_CFLAGS = $(win_test_cflags)
tests_windows_test_memory_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_memory_LDADD = $(win_test_ldadd)
tests_windows_test_rings_api_CFLAGS = $(win_test_cflags)
tests_windows_test_rings_api_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_rings_api_LDADD = $(win_test_ldadd)
tests_windows_test_rings_copies_CFLAGS = $(win_test_cflags)
tests_windows_test_rings_copies_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_rings_copies_LDADD = $(win_test_ldadd)
tests_windows_test_events_unregister_CFLAGS = $(win_test_cflags)
tests_windows_test_events_unregister_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/events
tests_windows_test_events_unregister_LDADD = $(win_test_ldadd)
tests_windows_test_layout_parse_CFLAGS = $(win_test_cflags)
# The examples' directory as wine names it (Z: is the Unix root).
tests_windows_test_layout_parse_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/layout \
	-DEXAMPLES_DIR='"Z:$(abs_top_srcdir)/examples/layouts"'
tests_windows_test_layout_parse_LDADD = $(win_test_ldadd)
tests_windows_test_layout_stale_CFLAGS = $(win_test_cflags)
tests_windows_test_layout_stale_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/layout
tests_windows_test_layout_stale_LDADD = $(win_test_ldadd)
tests_windows_test_layout_v1_size_CFLAGS = $(win_test_cflags)
tests_windows_test_layout_v1_size_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/layout
tests_windows_test_layout_v1_size_LDADD = $(win_test_ldadd)
tests_windows_test_layout_limits_CFLAGS = $(win_test_cflags)
tests_windows_test_layout_limits_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/layout
tests_windows_test_layout_limits_LDADD = $(win_test_ldadd)
tests_windows_test_layout_access_CFLAGS = $(win_test_cflags)
tests_windows_test_layout_access_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/layout
tests_windows_test_layout_access_LDADD = $(win_test_ldadd) -lm
tests_windows_test_events_xproc_CFLAGS = $(win_test_cflags)
tests_windows_test_events_xproc_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/events
tests_windows_test_events_xproc_LDADD = $(win_test_ldadd)
tests_windows_test_events_nodes_CFLAGS = $(win_test_cflags)
tests_windows_test_events_nodes_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_events_nodes_LDADD = $(win_test_ldadd)
tests_windows_test_events_api_CFLAGS = $(win_test_cflags)
tests_windows_test_events_api_CPPFLAGS = $(win_test_cppflags) -I$(top_srcdir)/tests/events
tests_windows_test_events_api_LDADD = $(win_test_ldadd)
tests_windows_test_rings_xproc_CFLAGS = $(win_test_cflags)
tests_windows_test_rings_xproc_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_rings_xproc_LDADD = $(win_test_ldadd)
tests_windows_test_record_notify_CFLAGS = $(win_test_cflags)
tests_windows_test_record_notify_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_record_notify_LDADD = $(win_test_ldadd)
tests_windows_test_multinode_CFLAGS = $(win_test_cflags)
tests_windows_test_multinode_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_multinode_LDADD = $(win_test_ldadd)
tests_windows_test_uri_CFLAGS = $(win_test_cflags)
tests_windows_test_uri_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_uri_LDADD = $(win_test_ldadd)
tests_windows_test_rings_wire_CFLAGS = $(win_test_cflags)
tests_windows_test_rings_wire_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_rings_wire_LDADD = $(win_test_ldadd)
tests_windows_test_observe_CFLAGS = $(win_test_cflags)
tests_windows_test_observe_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_observe_LDADD = $(win_test_ldadd)
tests_windows_test_rings_layout_CFLAGS = $(win_test_cflags)
tests_windows_test_rings_layout_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_rings_layout_LDADD = $(win_test_ldadd)
tests_windows_test_rings_inspect_CFLAGS = $(win_test_cflags)
tests_windows_test_rings_inspect_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_rings_inspect_LDADD = $(win_test_ldadd)
tests_windows_test_health_states_CFLAGS = $(win_test_cflags)
tests_windows_test_health_states_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_health_states_LDADD = $(win_test_ldadd)
tests_windows_test_recorder_csv_CFLAGS = $(win_test_cflags)
tests_windows_test_recorder_csv_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_recorder_csv_LDADD = $(win_test_ldadd)
tests_windows_test_event_handle_CFLAGS = $(win_test_cflags)
tests_windows_test_event_handle_CPPFLAGS = $(win_test_cppflags)
tests_windows_test_event_handle_LDADD = $(win_test_ldadd)

# The public headers in a Visual Studio program's compiler: C and C++ in
# clang-cl's MSVC mode (<rfm/rfm.h>: no MSVC C++ library here for
# <rfm/rfm.hpp>); C and C++ (rfm.hpp included) with mingw-w64's gcc. A
# header that does not compile fails `make check`.
win_header_flags = -I$(top_srcdir)/include -Iinclude
tests/windows/headers.ok: $(rfminclude_HEADERS:%=$(top_srcdir)/%) include/rfm/version.h
	$(AM_V_GEN)$(MKDIR_P) tests/windows && \
	printf '#include <rfm/rfm.h>\nint main(void) { return rfm_load32((void *)0, 0) != 0; }\n' \
		> tests/windows/headers-c.c && \
	printf '#include <rfm/rfm.hpp>\nint main() { return 0; }\n' > tests/windows/headers-cxx.cc && \
	$(CC) -std=c11 -Wall -Wextra -Werror $(win_header_flags) -c tests/windows/headers-c.c \
		-o tests/windows/headers-c.o && \
	$(CXX) -std=c++17 -Wall -Wextra -Werror $(win_header_flags) -c tests/windows/headers-cxx.cc \
		-o tests/windows/headers-cxx.o && touch $@
check_DATA += tests/windows/headers.ok
CLEANFILES += tests/windows/headers.ok tests/windows/headers-c.c tests/windows/headers-cxx.cc \
	tests/windows/headers-c.o tests/windows/headers-cxx.o
if HAVE_MSVC_ABI_TEST
msvc_flags = --target=x86_64-pc-windows-msvc /nologo /W4 /WX -imsvc $(MSVC_CRT_INCLUDE) \
	-imsvc $(MSVC_CRT_INCLUDE)/../windows \
	$(win_header_flags)
tests/windows/headers-msvc.ok: tests/windows/headers.ok
	$(AM_V_GEN)$(CLANG_CL) $(msvc_flags) /c /Tc tests/windows/headers-c.c \
		/Fotests/windows/headers-msvc-c.obj && \
	printf '#include <rfm/rfm.h>\nint main() { return rfm_load64(nullptr, 0) != 0; }\n' \
		> tests/windows/headers-msvc.cc && \
	$(CLANG_CL) $(msvc_flags) /EHsc /c /Tp tests/windows/headers-msvc.cc \
		/Fotests/windows/headers-msvc-cxx.obj && touch $@
check_DATA += tests/windows/headers-msvc.ok
CLEANFILES += tests/windows/headers-msvc.ok tests/windows/headers-msvc.cc \
	tests/windows/headers-msvc-c.obj tests/windows/headers-msvc-cxx.obj

# A Visual Studio program: MSVC's ABI, linked with lld-link against the
# import library llvm-dlltool made (src/librfm.lib), run under wine as a
# test (tests/windows/msvc-abi.c says what it checks).
tests/windows/kernel32.lib:
	$(AM_V_GEN)$(MKDIR_P) tests/windows && \
	printf 'LIBRARY kernel32.dll\nEXPORTS\n\tGetStdHandle\n\tWriteFile\n\tExitProcess\n\tGetCurrentProcessId\n' \
		> tests/windows/kernel32.def && \
	$(LLVM_DLLTOOL) -m i386:x86-64 -d tests/windows/kernel32.def -l $@
tests/windows/msvcrt.lib:
	$(AM_V_GEN)$(MKDIR_P) tests/windows && \
	printf 'LIBRARY msvcrt.dll\nEXPORTS\n\tmemset\n\tmemcpy\n' > tests/windows/msvcrt.def && \
	$(LLVM_DLLTOOL) -m i386:x86-64 -d tests/windows/msvcrt.def -l $@
tests/windows/msvc-abi.exe: $(top_srcdir)/tests/windows/msvc-abi.c src/librfm.lib \
		tests/windows/kernel32.lib tests/windows/msvcrt.lib $(rfminclude_HEADERS:%=$(top_srcdir)/%)
	$(AM_V_GEN)$(CLANG_CL) $(msvc_flags) /GS- /O2 /c /Fotests/windows/msvc-abi.obj \
		-- $(top_srcdir)/tests/windows/msvc-abi.c && \
	$(LLD_LINK) /nologo /entry:start /subsystem:console /nodefaultlib /out:$@ \
		tests/windows/msvc-abi.obj src/librfm.lib tests/windows/kernel32.lib \
		tests/windows/msvcrt.lib
check_DATA += tests/windows/msvc-abi.exe
CLEANFILES += tests/windows/msvc-abi.exe tests/windows/msvc-abi.obj tests/windows/kernel32.lib \
	tests/windows/kernel32.def tests/windows/msvcrt.lib tests/windows/msvcrt.def
endif

# Each program under wine, through build-aux/win-env.sh (RFM_WIN_ENV).
RFM_WIN_ENV = $(abs_top_srcdir)/build-aux/win-env.sh
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/windows/run-win.sh
AM_LOG_FLAGS = --env $(RFM_WIN_ENV)
endif
EXTRA_DIST += tests/windows/run-win.sh tests/windows/check-windows.sh tests/windows/msvc-abi.c \
	tests/windows/win-build-dir.sh

# `make check-windows` (in a Linux build): the Windows build in
# RFM_WIN_BUILD and its suites under wine (tests/windows/check-windows.sh).
RFM_WIN_BUILD = $(abs_top_builddir)/build-win
check-windows:
	$(SHELL) $(srcdir)/tests/windows/check-windows.sh $(srcdir) $(RFM_WIN_BUILD)
.PHONY: check-windows

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
# The Windows librfm is built with dds: in RFM_WIN_BUILD (check-windows's),
# configured once and kept. Skips, saying why, without mingw-w64, wine or dds:.
RFM_WIN_DDS_BUILD = $(RFM_WIN_BUILD)
check-windows-dds: src/librfm.la
	/usr/bin/time -f 'check-windows-dds: %e s wall, %U+%S s cpu' \
		$(SHELL) $(top_srcdir)/tests/windows/test-dds-mixed.sh $(top_srcdir) $(abs_top_builddir) \
		$(RFM_WIN_DDS_BUILD); \
	status=$$?; test $$status = 77 && status=0; exit $$status
.PHONY: check-windows-dds
EXTRA_DIST += tests/windows/dds-mixed-node.c tests/windows/test-dds-mixed.sh
