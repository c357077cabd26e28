# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cmocka (the C test suites), from Debian's source package, with CMake as
# Debian builds it (the DLL is cmocka.dll: cmocka's own mingw naming).

dep_package=cmocka
dep_needs=
dep_tools="cmake ninja"

dep_build() {
	local src=$1 build=$2 stage=$3 args
	mapfile -t args < <(cmake_args)
	cmake "${args[@]}" -S "$src" -B "$build" \
		-DUNIT_TESTING=ON -DWITH_EXAMPLES=OFF -DWITH_STATIC_LIB=OFF
	cmake --build "$build" -j "$jobs"
	DESTDIR=$stage cmake --install "$build"
}

# cmocka's own tests (ctest starts them through win-env.sh, the toolchain
# file's emulator).
dep_check() {
	local build=$1
	cd "$build"
	WINEPATH="$(win_dir "$build/src")" ctest -j"$jobs" --output-on-failure
}
