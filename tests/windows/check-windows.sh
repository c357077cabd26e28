#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make check-windows: cross-build librfm for Windows x64 with mingw-w64 in
# the Windows build directory (shared with check-windows-dds and
# check-windows-tools: tests/windows/win-build-dir.sh) and run the Windows test suites under wine
# (tests/windows/local.mk lists them, and each program's skips say why).
#
#   check-windows.sh SRCDIR WIN_BUILDDIR
#
# The dependencies (libyaml, cmocka, ...) come from build-aux/win-deps.sh's
# cache outside the clone, the wine prefix and WINEPATH from
# build-aux/win-env.sh (RFM_WIN_ENV and RFM_WIN_DEPS_SH name other copies).
# The build directory is configured once and kept: a second run only
# rebuilds what changed.
set -euo pipefail

srcdir=$(cd "$1" && pwd)
build=$2
jobs=${RFM_WIN_JOBS:-2}
env=${RFM_WIN_ENV:-$srcdir/build-aux/win-env.sh}
deps=${RFM_WIN_DEPS_SH:-$srcdir/build-aux/win-deps.sh}

for f in "$env" "$deps"; do
	if [ ! -x "$f" ]; then
		echo "check-windows: $f is missing (issue 38: the Windows dependency cache and wine environment)" >&2
		exit 1
	fi
done
command -v x86_64-w64-mingw32-gcc-posix >/dev/null ||
	{ echo "check-windows: x86_64-w64-mingw32-gcc-posix not found (Debian: gcc-mingw-w64-x86-64-posix)" >&2; exit 1; }
command -v wine >/dev/null || { echo "check-windows: wine not found (Debian: wine64)" >&2; exit 1; }

# The one Windows build directory, shared with check-windows-dds and
# check-windows-tools (win-build-dir.sh: dependencies, configure).
build=$("$srcdir/tests/windows/win-build-dir.sh" "$srcdir" "$build")
cd "$build"
"$env" make -j"$jobs" >make.out 2>&1 || { grep -E 'error|Error' make.out | head -40; exit 1; }
status=0
"$env" make -j"$jobs" check RFM_WIN_ENV="$env" >check.out 2>&1 || status=$?
grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):' check.out || true
# Every skip with its reason: a whole program's (its own SKIP: line), and
# each skipped case's ("skipped: WHY" before cmocka's SKIPPED line).
for log in $(sed -n 's/^SKIP: \(.*\)$/\1.log/p' check.out); do
	grep -h 'SKIP:' "$log" 2>/dev/null | sed 's/^/  /' | head -5 || true
done
for log in tests/windows/*.log; do
	grep -h -B1 '^\[  SKIPPED \] [a-z]' "$log" 2>/dev/null | grep '^skipped: ' |
		sed "s|^|  $(basename "$log" .log): |" || true
done
if [ $status -ne 0 ]; then
	[ -f test-suite.log ] && cat test-suite.log || tail -40 check.out
	exit 1
fi
sed -n 's/^# \(TOTAL\|PASS\|SKIP\|FAIL\|ERROR\):/check-windows: \1:/p' test-suite.log
