# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2154,SC2164 # dep_* are read by win-deps.sh, which sets prefix, aux, jobs...; recipes run under set -e
#
# Eclipse Cyclone DDS 0.10.2 (the dds: backend), the release tarball kept in
# the shared dependency directory (the same version as Debian 12's
# libddsc0debian; the archive here does not serve its orig tarball), with
# CMake and the toolchain file. With OpenSSL from the prefix and DDS
# Security (its authentication, access control and cryptographic plugins),
# and ddsperf (built with the native idlc of cyclonedds-tools, which
# Cyclone's cross build looks for on the build machine).
#
# Cyclone includes four Windows headers by names whose letter case differs
# from mingw-w64's (<Windows.h>, <WinSock2.h>, <BaseTsd.h>,
# <VersionHelpers.h>): harmless on Windows' case-blind file system, missing
# on Linux. A directory of one-line headers under those names, made from
# what the sources include, forwards each to mingw-w64's own (from its
# system directory, so that its code stays a system header: a program
# built with -Wextra -Werror gets no warnings of mingw-w64's); it is
# installed into the prefix's include directory too, because Cyclone's
# public headers include two of them (dds/ddsrt/types/windows.h:
# <VersionHelpers.h>, <WinSock2.h>).

dep_tarball=cyclonedds-0.10.2.tar.gz
dep_version=0.10.2
dep_needs=openssl
dep_check_needs=cunit
dep_tools="cmake ninja idlc"

# A header in $2 for every <Header.h> of the sources in $1 that mingw-w64
# has only in another letter case, including mingw-w64's.
case_shim() {
	local src=$1 shim=$2 inc h lower
	inc=$(echo '#include <windows.h>' | "$triplet-gcc-posix" -E -M -x c - |
		tr ' ' '\n' | grep '/windows\.h$' | head -1)
	inc=$(dirname "$inc")
	mkdir -p "$shim"
	grep -rhoE '#[[:space:]]*include[[:space:]]*<[A-Za-z0-9_]+\.h>' "$src/src" |
		sed -E 's/.*<(.*)>/\1/' | sort -u | while read -r h; do
		lower=$(printf '%s' "$h" | tr '[:upper:]' '[:lower:]')
		if [ "$h" != "$lower" ] && [ ! -e "$inc/$h" ] && [ -e "$inc/$lower" ]; then
			printf '/* <%s> as Windows spells it: mingw-w64 names it <%s>. */\n#include <%s>\n' \
				"$h" "$lower" "$lower" >"$shim/$h"
			echo "case shim: <$h> -> <$lower>"
		fi
	done
}

dep_build() {
	local src=$1 build=$2 stage=$3 testing=OFF
	[ "$with_tests" = no ] || testing=ON
	case_shim "$src" "$build/case-shim"
	cmake_project "$src" "$build/cmake" "$stage" -DCMAKE_C_FLAGS="-isystem $build/case-shim" \
		-DENABLE_SSL=ON -DENABLE_SECURITY=ON -DOPENSSL_ROOT_DIR="$prefix" -DOPENSSL_USE_STATIC_LIBS=TRUE \
		-DENABLE_SHM=OFF -DBUILD_IDLC=OFF -DBUILD_DDSPERF=ON \
		-D_idlc_executable="$(command -v idlc)" -DBUILD_TESTING=$testing -DBUILD_EXAMPLES=OFF
	cp "$build/case-shim"/*.h "$stage$prefix/include/"
}

# Cyclone's own CUnit suites of what differs on Windows and of DDS
# Security, under wine: the runtime layer (ddsrt: threads, sync, sockets,
# interfaces, dynamic libraries, ...) and the builtin security plugins
# (authentication, access control, cryptography), one program run per
# test as ctest starts them (through the toolchain's emulator). The
# multi-participant suites (ddsc, the security handshakes) are what
# tests/windows/test-dds-wire-mixed.sh covers between wine and Linux.
dep_check() {
	local build=$1/cmake
	cd "$build"
	WINEPATH="$(win_dir "$build/bin");$(win_dir "$build/lib")" "$aux/win-env.sh" \
		ctest -j"$jobs" --output-on-failure -R '^CUnit_(ddsrt|ddssec_builtin)_'
}
