# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2154,SC2164 # win-deps.sh sets prefix, work, aux, jobs, triplet; recipes run under set -e
#
# What every recipe of win-deps.sh builds with: the cross toolchain's
# environment, the configure steps of autotools and CMake projects,
# unpacking a Debian source package and installing into the prefix. A
# change to a function here changes every dependency's key (the stamp), so
# every dependency rebuilds; a change to a recipe's build rebuilds that
# dependency and what needs it; comments rebuild nothing. (Fetching is in
# fetch.sh: what it fetches is in the key by its checksum, how it fetches
# is not.)
#
# Set by win-deps.sh before recipes run: prefix (the install prefix), work
# (the cache's private directory), aux (build-aux/), jobs, triplet.

# The cross toolchain, for recipes that run configure scripts or Makefiles.
# PKG_CONFIG_LIBDIR names the prefix only, so nothing of the build machine
# leaks into a Windows build.
mingw_env() {
	export CC=$triplet-gcc-posix CXX=$triplet-g++-posix
	export AR=$triplet-ar RANLIB=$triplet-ranlib STRIP=$triplet-strip
	export WINDRES=$triplet-windres RC=$triplet-windres NM=$triplet-nm
	export PKG_CONFIG=pkg-config PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig PKG_CONFIG_PATH=
	unset PKG_CONFIG_SYSROOT_DIR CFLAGS CXXFLAGS CPPFLAGS LDFLAGS
	export CFLAGS="-O2 -g" CXXFLAGS="-O2 -g"
}

# Runs the configure script of source tree $1, in the current directory,
# for a cross build into the prefix; more options follow.
autotools_configure() {
	local src=$1
	shift
	mingw_env
	"$src/configure" --host="$triplet" --build="$(gcc -dumpmachine)" --prefix="$prefix" \
		--disable-dependency-tracking "$@"
}

# Configures the CMake project of source tree $1 in build directory $2
# (the toolchain file, Ninja: less process churn than make on two cores),
# builds it and installs it into DESTDIR $3; more options follow.
cmake_project() {
	local src=$1 build=$2 stage=$3
	shift 3
	cmake -G Ninja -DCMAKE_TOOLCHAIN_FILE="$aux/mingw-w64-x86_64.cmake" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$prefix" \
		-DCMAKE_INSTALL_LIBDIR=lib -S "$src" -B "$build" "$@"
	cmake --build "$build" -j "$jobs"
	DESTDIR=$stage cmake --install "$build"
}

# Unpacks the source package of .dsc $1 into directory $2 with Debian's
# patches applied. dpkg-source checks each file against the .dsc's
# checksums; the .dsc itself was checked by apt against the signed index
# (hence --no-check, as apt-get source itself does).
deb_extract() {
	rm -rf "$2"
	dpkg-source --no-check --no-copy -x "$1" "$2" >/dev/null
}

# ---- Installing: staged, then merged into the prefix with a manifest -----
#
# A recipe installs into DESTDIR=$stage; the files under $stage$prefix are
# moved into the prefix and listed in $work/manifest/DEP, so a rebuild first
# removes what the previous build installed and a recipe that installs less
# leaves nothing stale behind. libtool's .la files are dropped (they pin
# absolute paths and are not needed with pkg-config).
stage_merge() {
	local dep=$1 stage=$2 root=$2$prefix f
	[ -d "$root" ] || die "$dep: its install step put nothing under $stage$prefix"
	find "$root" -name '*.la' -delete
	unstage "$dep"
	(cd "$root" && find . ! -type d | sed 's|^\./||' | sort) >"$work/manifest/$dep.new"
	while IFS= read -r f; do
		mkdir -p "$prefix/$(dirname "$f")"
		mv -f "$root/$f" "$prefix/$f"
	done <"$work/manifest/$dep.new"
	mv "$work/manifest/$dep.new" "$work/manifest/$dep"
	rm -rf "$stage"
}

# Removes the files dependency $1 installed (and directories left empty).
unstage() {
	local dep=$1 f d
	[ -f "$work/manifest/$dep" ] || return 0
	while IFS= read -r f; do
		rm -f "$prefix/$f"
		d=$(dirname "$prefix/$f")
		while [ "$d" != "$prefix" ] && rmdir "$d" 2>/dev/null; do
			d=$(dirname "$d")
		done
	done <"$work/manifest/$dep"
	rm -f "$work/manifest/$dep"
}

# A directory as wine names it (the Z: drive is the Unix root in every
# wine prefix), for WINEPATH.
win_dir() {
	local d
	d=$(cd "$1" && pwd) || return
	printf 'Z:%s\n' "${d//\//\\}"
}
