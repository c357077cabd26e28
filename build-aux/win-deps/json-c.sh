# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2154,SC2164 # dep_* are read by win-deps.sh, which sets prefix, aux, jobs...; recipes run under set -e
#
# json-c (the rfm tool's --json output), from Debian's source package, with
# CMake as Debian builds it; shared only (libjson-c-5.dll), without the
# json_parse app (not needed here).

dep_package=json-c
dep_needs=
dep_tools="cmake ninja"

dep_build() {
	cmake_project "$1" "$2" "$3" -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF -DBUILD_APPS=OFF \
		-DDISABLE_WERROR=ON -DBUILD_TESTING=ON
}

# json-c's tests are shell scripts (tests/*.test) that run
# $top_builddir/tests/NAME and compare its output with NAME.expected: give
# them a directory of stand-ins that run NAME.exe under wine with the
# carriage returns of Windows' text-mode stdout taken out.
# test_util_file is left out: json_object_to_file() opens its file without
# O_BINARY, so on Windows the file holds \r\n line ends and is longer than
# what read() in text mode returns, and the test's size check fails (a
# json-c trait on Windows, not of this build; librfm writes no JSON files
# with it).
dep_check() {
	local build=$1 shim=$1/wine-shim exe name
	rm -rf "$shim" && mkdir -p "$shim/tests"
	for exe in "$build"/tests/*.exe; do
		name=$(basename "$exe" .exe)
		cat >"$shim/tests/$name" <<-SHIM
			#!/bin/bash
			set -o pipefail
			"$aux/win-env.sh" --run "$exe" "\$@" | tr -d '\r'
		SHIM
		chmod +x "$shim/tests/$name"
	done
	cd "$build"
	WINEPATH="$(win_dir "$build")" top_builddir=$shim USE_VALGRIND=0 \
		"$aux/win-env.sh" ctest -j"$jobs" --output-on-failure -E '^test_util_file$'
	echo "SKIP: test_util_file (json_object_to_file writes text mode on Windows: see json-c.sh)"
}
