# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2034,SC2154,SC2164 # dep_* are read by win-deps.sh, which sets prefix, aux, jobs...; recipes run under set -e
#
# CUnit, only to run Cyclone DDS's own test suite under wine once
# (win-deps.sh --check cyclonedds); librfm does not use it. Debian's source
# package, autotools as Debian builds it (autoreconf, no curses), a static
# library: the test programs are all it is for.

dep_package=cunit
dep_needs=
dep_tools="autoreconf libtoolize make"

dep_build() {
	local src=$1 build=$2 stage=$3
	(cd "$src" && autoreconf -fi)
	cd "$build"
	autotools_configure "$src" --disable-shared --enable-static --disable-curses \
		--disable-examples --disable-test
	make -j"$jobs" -C CUnit
	make -C CUnit install DESTDIR="$stage"
	make install-pkgconfigDATA DESTDIR="$stage"
}

dep_check() {
	echo "SKIP: CUnit's own examples (it is only Cyclone's test runner here)"
}
