#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make check-windows-tools: cross-build the rfm tool for Windows x64 with
# mingw-w64 in its own build directory and run the CLI suite (tests/cli)
# against rfm.exe under wine (run-cli-wine.sh: every skip has its reason
# in cli-skips.txt).
#
#   check-windows-tools.sh SRCDIR WIN_BUILDDIR
#
# The dependencies (libyaml, json-c, libmicrohttpd) come from
# build-aux/win-deps.sh's cache outside the clone, the wine prefix from
# build-aux/win-env.sh. The build directory is configured once and kept.
set -euo pipefail

srcdir=$(cd "$1" && pwd)
build=$2
jobs=${RFM_WIN_JOBS:-2}
env=${RFM_WIN_ENV:-$srcdir/build-aux/win-env.sh}
deps=${RFM_WIN_DEPS_SH:-$srcdir/build-aux/win-deps.sh}

command -v x86_64-w64-mingw32-gcc-posix >/dev/null ||
	{ echo "check-windows-tools: x86_64-w64-mingw32-gcc-posix not found (Debian: gcc-mingw-w64-x86-64-posix)" >&2; exit 1; }
command -v wine >/dev/null || { echo "check-windows-tools: wine not found (Debian: wine64)" >&2; exit 1; }

"$deps" yaml json-c microhttpd
mkdir -p "$build"
cd "$build"
build=$(pwd)
if [ ! -f config.status ] || [ "$srcdir/configure" -nt config.status ]; then
	"$env" "$srcdir/configure" --host=x86_64-w64-mingw32 \
		CC=x86_64-w64-mingw32-gcc-posix CXX=x86_64-w64-mingw32-g++-posix \
		--enable-werror --disable-tests --disable-examples \
		--disable-bindings-python --disable-bindings-tcl --without-dds --without-hdf5 \
		>configure.out 2>&1 || { tail -40 configure.out; exit 1; }
fi
"$env" make -j"$jobs" tools/rfm.exe tests/windows-tools/hold-node.exe >make.out 2>&1 ||
	{ grep -E 'error|Error' make.out | head -40; exit 1; }
status=0
"$srcdir/tests/windows-tools/run-cli-wine.sh" "$srcdir" "$build" >check.out 2>&1 || status=$?
# Failures in full, then the skips with their reasons and the counts.
[ $status -eq 0 ] || sed -n '/^=* FAILURES =*$/,/^=* short test summary/p' check.out
grep -E '^SKIPPED' check.out | sed 's/^/  /' || true
grep -E '^run-cli-wine' check.out | sed 's/^run-cli-wine/check-windows-tools/'
exit $status
