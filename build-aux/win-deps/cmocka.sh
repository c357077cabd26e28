# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2154,SC2164 # dep_* are read by win-deps.sh, which sets prefix, aux, jobs...; recipes run under set -e
#
# cmocka (the C test suites), from Debian's source package, with CMake as
# Debian builds it (the DLL is cmocka.dll: cmocka's own mingw naming).

dep_package=cmocka
dep_needs=
dep_tools="cmake ninja"

dep_build() {
	cmake_project "$1" "$2" "$3" -DUNIT_TESTING=ON -DWITH_EXAMPLES=OFF -DWITH_STATIC_LIB=OFF \
		-DWINE_EXECUTABLE:STRING="$aux/win-env.sh;--run"
}

# cmocka's own tests. Its CMake runs them through WINE_EXECUTABLE, not the
# toolchain's emulator: both are win-env.sh --run (wine's own exit status
# loses the high bits of Windows exit codes).
dep_check() {
	local build=$1
	cd "$build"
	WINEPATH="$(win_dir "$build/src")" "$aux/win-env.sh" ctest -j"$jobs" --output-on-failure
}
