# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2154,SC2164 # dep_* are read by win-deps.sh, which sets prefix, aux, jobs...; recipes run under set -e
#
# libmicrohttpd (rfm serve's page and metrics), from Debian's source
# package, with its own configure. Windows threads (MHD's native choice
# there: 0.9.75's configure checks for them only with --with-threads=auto,
# so auto, and the build checks that it chose them), no TLS: rfm serve speaks plain HTTP and leaves TLS to a proxy, as
# on Linux. No curl-based tests (there is no curl in the prefix): its own
# unit and socket tests stay.

dep_package=libmicrohttpd
dep_needs=
dep_tools="make"

dep_build() {
	local src=$1 build=$2 stage=$3
	cd "$build"
	autotools_configure "$src" --disable-static --with-threads=auto \
		--disable-https --without-gnutls --disable-curl --disable-nls \
		--disable-doc --disable-examples
	grep -q '^#define MHD_USE_W32_THREADS 1' MHD_config.h ||
		{ echo "configure did not choose Windows threads" >&2; return 1; }
	make -j"$jobs"
	make install DESTDIR="$stage"
}

# The library's own tests (src/microhttpd), under wine. The four
# *_hard_close tests are expected to fail there: the client resets the
# connection (SO_LINGER 0) and MHD must see a read error, but wine 8.0's
# recv() on a reset connection returns 0, an orderly close (Linux gives
# ECONNRESET, Windows documents WSAECONNRESET), so MHD reports a client
# abort. A wine that fixes it turns them into XPASS, a failure to look at.
dep_check() {
	local build=$1
	cd "$build"
	WINEPATH="$(win_dir "$build/src/microhttpd/.libs")" "$aux/win-env.sh" \
		make -C src/microhttpd check -j"$jobs" LOG_COMPILER="$aux/win-env.sh" AM_LOG_FLAGS=--run \
		XFAIL_TESTS="$(echo test_client_put{,_steps,_chunked,_chunked_steps}_hard_close.exe)"
}
