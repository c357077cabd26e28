# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2154,SC2164 # dep_* are read by win-deps.sh, which sets prefix, aux, jobs...; recipes run under set -e
#
# OpenSSL (Cyclone DDS's security plugins: authentication, access control,
# cryptography; and its TLS), from Debian's source package with its patches,
# with its own Configure for the mingw64 target and the posix-flavour
# compilers under the cross prefix.
#
# Static libraries only (no-shared): OpenSSL 3.0 compiles every source twice
# when it builds a DLL beside the static library (that build took 651 s of
# CPU here without its tests, this one 370 s with them), and a static
# libcrypto in each plugin DLL also spares
# Windows' applink requirement (an OpenSSL DLL handed FILE pointers wants
# applink.c in the executable: Cyclone's plugins call BIO_new_fp and
# BIO_new_file). Without what no user of the prefix calls: the legacy
# provider (MD4, DES-era ciphers) and ENGINEs. Without its test programs
# unless --check asks for them (they are a third of the build).

dep_package=openssl
dep_needs=
dep_tools="perl make"

dep_build() {
	local src=$1 build=$2 stage=$3 tests=no-tests
	[ "$with_tests" = no ] || tests=
	# The binary test files of Debian's patches (a quilt patch carries no
	# binary), unpacked as Debian's rules do before configuring.
	[ ! -f "$src/debian/binary.tar" ] || tar -xf "$src/debian/binary.tar" -C "$src"
	cd "$build"
	# Configure reads CC, CXX, RC, AR and RANLIB (prefixed with the cross
	# prefix): give it the flavour, not mingw_env's full names.
	env -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS \
		CC=gcc-posix CXX=g++-posix RC=windres AR=ar RANLIB=ranlib \
		perl "$src/Configure" mingw64 no-shared no-legacy no-engine $tests \
		--cross-compile-prefix="$triplet-" --prefix="$prefix" --libdir=lib \
		--openssldir="$prefix/ssl"
	make -j"$jobs" build_sw
	make install_sw DESTDIR="$stage"
}

# The suites of what Cyclone's plugins use: the EVP crypto (AES-GCM, SHA-2,
# HMAC, ECDH and DH key agreement, RSA and ECDSA signatures), X.509 and
# chain verification, PKCS#7 and CMS (the signed governance and permissions
# documents), random numbers, under wine. wrap.pl gives each program its
# module and configuration paths, win-env.sh runs it. OPENSSL_WIN32_UTF8:
# test_x509 passes a Greek PKCS#12 password on the command line, and
# msvcrt's argv holds it in the ANSI code page, which has no Greek; with
# this switch the apps read the UTF-16 command line instead (test_pkcs12
# sets it itself). Under native Windows Perl the bytes round-trip through
# the code page unchanged; wine's command line from Linux is UTF-16.
dep_check() {
	local build=$1
	cd "$build"
	WINEPATH="$(win_dir "$build");$(win_dir "$build/providers")" OPENSSL_WIN32_UTF8=1 \
		"$aux/win-env.sh" make test V=1 \
		EXE_SHELL="$build/util/wrap.pl $aux/win-env.sh --run" \
		TESTS="test_evp test_evp_extra test_evp_kdf test_ec test_ecdsa test_rand test_x509 test_verify test_pkcs7 test_cms"
}
