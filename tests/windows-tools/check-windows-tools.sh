#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make check-windows-tools: cross-build the rfm tool for Windows x64 with
# mingw-w64 in the Windows build directory and run the CLI suite (tests/cli)
# against rfm.exe under wine (run-cli-wine.sh: every skip has its reason
# in cli-skips.txt).
#
#   check-windows-tools.sh SRCDIR WIN_BUILDDIR
#
# The build directory, shared with check-windows and check-windows-dds, is
# configured once and kept (tests/windows/win-build-dir.sh: the
# dependencies from build-aux/win-deps.sh's cache outside the clone); the
# wine prefix comes from build-aux/win-env.sh.
set -euo pipefail

srcdir=$(cd "$1" && pwd)
build=$2
jobs=${RFM_WIN_JOBS:-2}
env=${RFM_WIN_ENV:-$srcdir/build-aux/win-env.sh}

command -v x86_64-w64-mingw32-gcc-posix >/dev/null ||
	{ echo "check-windows-tools: x86_64-w64-mingw32-gcc-posix not found (Debian: gcc-mingw-w64-x86-64-posix)" >&2; exit 1; }
command -v wine >/dev/null || { echo "check-windows-tools: wine not found (Debian: wine64)" >&2; exit 1; }

# The Windows build directory check-windows and check-windows-dds share.
build=$("$srcdir/tests/windows/win-build-dir.sh" "$srcdir" "$build")
cd "$build"
"$env" make -j"$jobs" tools/rfm.exe tests/windows-tools/hold-node.exe >make.out 2>&1 ||
	{ grep -E 'error|Error' make.out | head -40; exit 1; }
status=0
"$srcdir/tests/windows-tools/run-cli-wine.sh" "$srcdir" "$build" >check.out 2>&1 || status=$?
# Failures in full, then the skips with their reasons and the counts.
[ $status -eq 0 ] || sed -n '/^=* FAILURES =*$/,/^=* short test summary/p' check.out
grep -E '^SKIPPED' check.out | sed 's/^/  /' || true
grep -E '^run-cli-wine' check.out | sed 's/^run-cli-wine/check-windows-tools/'
exit $status
