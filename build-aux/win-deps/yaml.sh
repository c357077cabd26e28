# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2154,SC2164 # dep_* are read by win-deps.sh, which sets prefix, aux, jobs...; recipes run under set -e
#
# libyaml (layout files), from Debian's source package, with autotools as
# Debian builds it, so the prefix gets yaml-0.1.pc (the CMake build installs
# no .pc file). The release tarball carries no configure: autoreconf first.
# The library's own objects are compiled with YAML_DECLARE_EXPORT, the
# header's switch for building the DLL (users get dllimport declarations).

dep_package=libyaml
dep_needs=
dep_tools="autoreconf libtoolize make"

dep_build() {
	local src=$1 build=$2 stage=$3
	(cd "$src" && autoreconf -fi)
	cd "$build"
	autotools_configure "$src" --disable-static
	make -C src -j"$jobs" CPPFLAGS=-DYAML_DECLARE_EXPORT
	make -j"$jobs"
	make install DESTDIR="$stage"
}

# test-version and test-reader, under wine.
dep_check() {
	local build=$1
	cd "$build"
	WINEPATH="$(win_dir "$build/src/.libs")" "$aux/win-env.sh" \
		make -C tests check LOG_COMPILER="$aux/win-env.sh" AM_LOG_FLAGS=--run
}
