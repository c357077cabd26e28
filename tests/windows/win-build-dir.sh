#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The one Windows build directory that make check-windows,
# check-windows-dds and check-windows-tools share: librfm-1.dll with dds:
# (DDS Security included), rfm.exe, rfm2g.dll and the Windows test
# programs, cross-built once with mingw-w64 instead of once per check.
#
#   win-build-dir.sh SRCDIR WIN_BUILDDIR
#
# Builds the dependencies missing from build-aux/win-deps.sh's cache
# (outside the clone), configures WIN_BUILDDIR when it is new or configure
# changed, and prints its absolute path. The caller makes its own targets
# in it (through build-aux/win-env.sh), so concurrent callers must not
# share one directory: the quickstart's windows lane runs the three checks
# one after another.
set -euo pipefail

srcdir=$(cd "$1" && pwd)
build=$2
env=${RFM_WIN_ENV:-$srcdir/build-aux/win-env.sh}
deps=${RFM_WIN_DEPS_SH:-$srcdir/build-aux/win-deps.sh}

# libyaml for layouts, cmocka for the suites, json-c and libmicrohttpd for
# rfm serve: Debian's source packages. OpenSSL and Cyclone DDS for dds:;
# Cyclone's source is not in Debian's archive but in the shared dependency
# directory beside the clone: without it the build has no dds: (and
# check-windows-dds says so), the rest is tested all the same.
"$deps" yaml cmocka json-c microhttpd >&2
dds=--with-dds
if ! "$deps" openssl cyclonedds >&2; then
	echo "win-build-dir: the Windows build has no dds: (Cyclone DDS for Windows did not build: above)" >&2
	dds=--without-dds
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)
if [ ! -f "$build/config.status" ] || [ "$srcdir/configure" -nt "$build/config.status" ] ||
	[ "$(cat "$build/dds-choice" 2>/dev/null)" != "$dds" ]; then
	(cd "$build" && "$env" "$srcdir/configure" --host=x86_64-w64-mingw32 \
		CC=x86_64-w64-mingw32-gcc-posix CXX=x86_64-w64-mingw32-g++-posix \
		--enable-werror --enable-tests --disable-examples \
		--disable-bindings-python --disable-bindings-tcl \
		"$dds" --without-hdf5 >configure.out 2>&1) ||
		{ tail -40 "$build/configure.out" >&2; exit 1; }
	echo "$dds" >"$build/dds-choice"
fi
echo "$build"
