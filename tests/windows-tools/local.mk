# SPDX-License-Identifier: LGPL-2.1-or-later
# Windows: the rfm tool and RFM2g programs (issue 38, docs/windows-tools.md).
#
# In a Windows build's `make check` (WITH_TESTS_WIN, beside
# tests/windows/local.mk): RFM2g programs under wine on rfm2g.dll, the
# Windows-style program built unchanged with mingw-w64 and an MSVC-ABI one
# (clang-cl, lld-link, rfm2g.lib).
#
# In a Linux build: `make check-windows-tools` cross-builds rfm.exe and
# runs the CLI suite (tests/cli) against it under wine
# (tests/windows-tools/check-windows-tools.sh).

if WITH_TESTS_WIN
check_PROGRAMS += tests/windows-tools/rfm2g-windows-style tests/windows-tools/test-rfm2g-windows \
	tests/windows-tools/test-rfm2g-backend-win
TESTS += tests/windows-tools/test-rfm2g-windows tests/windows-tools/test-rfm2g-backend-win
# rfm2g: through GE's DLL, with rfm2g.dll standing in for it (and none at all).
tests_windows_tools_test_rfm2g_backend_win_SOURCES = tests/windows-tools/test-rfm2g-backend-win.c
tests_windows_tools_test_rfm2g_backend_win_LDADD = src/librfm.la
EXTRA_tests_windows_tools_test_rfm2g_backend_win_DEPENDENCIES = src/librfm2g/rfm2g.la
# The program Windows sites write, built unchanged: GE's Windows headers.
tests_windows_tools_rfm2g_windows_style_SOURCES = tests/librfm2g/rfm2g-windows-style.c
tests_windows_tools_rfm2g_windows_style_CPPFLAGS = -I$(top_srcdir)/include/rfm2g
tests_windows_tools_rfm2g_windows_style_CFLAGS = $(AM_CFLAGS) -Wno-format
tests_windows_tools_rfm2g_windows_style_LDADD = src/librfm2g/.libs/rfm2g.dll.a
tests_windows_tools_rfm2g_windows_style_DEPENDENCIES = src/librfm2g/rfm2g.la
tests_windows_tools_test_rfm2g_windows_SOURCES = tests/windows-tools/test-rfm2g-windows.c
tests_windows_tools_test_rfm2g_windows_LDADD = src/librfm.la

if HAVE_MSVC_ABI_TEST
# The MSVC-ABI program: kernel32 and the UCRT (wine's MSVC-compatible
# headers call printf through ucrtbase.dll), import libraries made from
# the few names it takes.
r2g_msvc_flags = --target=x86_64-pc-windows-msvc /nologo /W4 /WX -imsvc $(MSVC_CRT_INCLUDE) \
	-imsvc $(MSVC_CRT_INCLUDE)/../windows -I$(top_srcdir)/include/rfm2g
tests/windows-tools/kernel32.lib:
	$(AM_V_GEN)$(MKDIR_P) tests/windows-tools && \
	printf 'LIBRARY kernel32.dll\nEXPORTS\n%s\n' "CloseHandle CreateProcessA ExitProcess \
		GetCommandLineA GetExitCodeProcess GetLastError GetModuleFileNameA \
		WaitForSingleObject" | tr ' ' '\n' | sed '/^$$/d' > tests/windows-tools/kernel32.def && \
	$(LLVM_DLLTOOL) -m i386:x86-64 -d tests/windows-tools/kernel32.def -l $@
tests/windows-tools/ucrtbase.lib:
	$(AM_V_GEN)$(MKDIR_P) tests/windows-tools && \
	printf 'LIBRARY ucrtbase.dll\nEXPORTS\n%s\n' "__acrt_iob_func __stdio_common_vfprintf \
		__stdio_common_vsprintf atoi fflush strcmp memset" | tr ' ' '\n' | sed '/^$$/d' \
		> tests/windows-tools/ucrtbase.def && \
	$(LLVM_DLLTOOL) -m i386:x86-64 -d tests/windows-tools/ucrtbase.def -l $@
tests/windows-tools/rfm2g-msvc.exe: $(top_srcdir)/tests/windows-tools/rfm2g-msvc.c \
		src/librfm2g/rfm2g.lib tests/windows-tools/kernel32.lib tests/windows-tools/ucrtbase.lib \
		$(rfm2ginclude_HEADERS:%=$(top_srcdir)/%)
	$(AM_V_GEN)$(CLANG_CL) $(r2g_msvc_flags) /GS- /O2 /c /Fotests/windows-tools/rfm2g-msvc.obj \
		-- $(top_srcdir)/tests/windows-tools/rfm2g-msvc.c && \
	$(LLD_LINK) /nologo /entry:start /subsystem:console /nodefaultlib /out:$@ \
		tests/windows-tools/rfm2g-msvc.obj src/librfm2g/rfm2g.lib \
		tests/windows-tools/kernel32.lib tests/windows-tools/ucrtbase.lib
check_DATA += tests/windows-tools/rfm2g-msvc.exe
CLEANFILES += tests/windows-tools/rfm2g-msvc.exe tests/windows-tools/rfm2g-msvc.obj \
	tests/windows-tools/kernel32.lib tests/windows-tools/kernel32.def \
	tests/windows-tools/ucrtbase.lib tests/windows-tools/ucrtbase.def
endif
endif

# The CLI suite's helper for a Windows tool build: a node held open.
if RFM_OS_WIN
if WITH_TOOLS
noinst_PROGRAMS += tests/windows-tools/hold-node
tests_windows_tools_hold_node_SOURCES = tests/cli/hold-node.c
tests_windows_tools_hold_node_LDADD = src/librfm.la
endif
endif

EXTRA_DIST += tests/windows-tools/rfm2g-msvc.c tests/windows-tools/test-rfm2g-windows.c \
	tests/windows-tools/check-windows-tools.sh tests/windows-tools/run-cli-wine.sh \
	tests/windows-tools/cli-skips.txt

# `make check-windows-tools` (in a Linux build): rfm.exe in the shared
# Windows build directory and the CLI suite against it under wine.
RFM_WIN_TOOLS_BUILD = $(RFM_WIN_BUILD)
check-windows-tools:
	$(SHELL) $(srcdir)/tests/windows-tools/check-windows-tools.sh $(srcdir) \
		$(RFM_WIN_TOOLS_BUILD)
.PHONY: check-windows-tools
