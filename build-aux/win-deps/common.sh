# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What every recipe of win-deps.sh builds with: the cross toolchain's
# environment, Debian source packages fetched through a private apt
# configuration, and the configure/build steps of autotools and CMake
# projects. A change to this file changes every dependency's key (the
# stamp), so every dependency rebuilds; a change to one recipe rebuilds
# that recipe and what needs it.
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

# configure arguments of an autotools cross build into the prefix.
autotools_args() {
	printf '%s\n' --host="$triplet" --build="$(build_triplet)" --prefix="$prefix" \
		--disable-dependency-tracking
}

build_triplet() {
	gcc -dumpmachine 2>/dev/null || uname -m
}

# cmake arguments of a cross build into the prefix (Ninja: less process
# churn than make on two cores).
cmake_args() {
	printf '%s\n' -G Ninja -DCMAKE_TOOLCHAIN_FILE="$aux/mingw-w64-x86_64.cmake" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$prefix" \
		-DCMAKE_INSTALL_LIBDIR=lib
}

# ---- Debian source packages, through a private apt configuration --------
#
# The machine's apt configuration is never changed: the deb-src list is made
# from the machine's own deb lines (the same mirrors, suites and keyrings)
# into $work/apt, and apt keeps its lists and caches there too. The
# machine's apt.conf (proxies, for one) still applies.

apt_private_opts() {
	printf '%s\n' -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$work/apt/sources.list.d" \
		-o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts="$work/apt/preferences.d" \
		-o Dir::State="$work/apt/state" -o Dir::Cache="$work/apt/cache" \
		-o APT::Sandbox::User="$(id -un)" -o APT::Get::List-Cleanup=false
}

# The machine's Debian entries (deb822 files and one-line lists) as deb-src
# entries. Only suites of this release (its codename, and -updates,
# -security): third-party repositories rarely serve sources, and a missing
# Sources index would fail the update. $RFM_WIN_DEPS_APT_SOURCES names a
# deb822 file to use instead.
apt_write_sources() {
	local dir=$work/apt/sources.list.d codename
	mkdir -p "$dir" "$work/apt/preferences.d" "$work/apt/state/lists/partial" \
		"$work/apt/cache/archives/partial"
	if [ -n "${RFM_WIN_DEPS_APT_SOURCES:-}" ]; then
		cp "$RFM_WIN_DEPS_APT_SOURCES" "$dir/debian-src.sources"
		return
	fi
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "cannot tell this system's release (no VERSION_CODENAME in /etc/os-release); set RFM_WIN_DEPS_APT_SOURCES to a deb822 file of deb-src entries"
	{
		local f
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk -v codename="$codename" '
				BEGIN { RS = ""; FS = "\n" }
				{
					out = ""; deb = 0; ours = 0; enabled = 1
					for (i = 1; i <= NF; i++) {
						line = $i
						if (line ~ /^#/) continue
						if (line ~ /^Types:/) { deb = (line ~ /[ \t]deb([ \t]|$)/); line = "Types: deb-src" }
						if (line ~ /^Enabled:[ \t]*no/) enabled = 0
						if (line ~ /^Suites:/) {
							ours = 1; n = split(substr(line, 8), s, /[ \t]+/)
							for (j = 1; j <= n; j++)
								if (s[j] != "" && s[j] !~ ("^" codename "(-|$)")) ours = 0
						}
						out = out line "\n"
					}
					if (deb && ours && enabled) printf "%s\n", out
				}' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk -v codename="$codename" '
				$1 == "deb" {
					i = 2; opts = ""
					if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts " " $i; i++ } opts = opts " " $i; i++ }
					uri = $i; suite = $(i + 1); comps = ""
					for (j = i + 2; j <= NF; j++) comps = comps " " $j
					if (suite !~ ("^" codename "(-|$)")) next
					gsub(/^ \[|\]$/, "", opts)
					printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n", uri, suite, comps
					n = split(opts, o, /[ \t]+/)
					for (k = 1; k <= n; k++)
						if (o[k] ~ /^signed-by=/) printf "Signed-By: %s\n", substr(o[k], 11)
					printf "\n"
				}' "$f"
		done
	} >"$dir/debian-src.sources.new"
	[ -s "$dir/debian-src.sources.new" ] || die "no Debian '$codename' entries in /etc/apt/sources.list{,.d} to make a deb-src list from; set RFM_WIN_DEPS_APT_SOURCES to a deb822 file of deb-src entries"
	mv "$dir/debian-src.sources.new" "$dir/debian-src.sources"
}

apt_update() {
	local opts
	mapfile -t opts < <(apt_private_opts)
	apt_write_sources
	say "refreshing the private deb-src lists ($work/apt)"
	apt-get "${opts[@]}" -q update >"$work/log/apt-update.log" 2>&1 ||
		{ tail -20 "$work/log/apt-update.log" >&2; die "apt-get update of the private deb-src lists failed (log: $work/log/apt-update.log)"; }
	touch "$work/apt/updated"
}

# Sets deb_dsc to the .dsc of source package $1, downloading it (with its
# tarballs) into $work/dl/$1 when not there, or when $update_lists asks
# for the newest version. apt checks every file against the signed index.
deb_fetch() {
	local pkg=$1 dl=$work/dl/$1 opts
	mapfile -t opts < <(apt_private_opts)
	deb_dsc=
	[ ! -d "$dl" ] || deb_dsc=$(find "$dl" -maxdepth 1 -name "${pkg}_*.dsc" | sort | tail -1)
	if [ -n "$deb_dsc" ] && [ "$update_lists" != yes ]; then
		return 0
	fi
	if [ ! -e "$work/apt/updated" ] || [ "$update_lists" = yes ]; then
		[ "${apt_updated_now:-}" = yes ] || { apt_update; apt_updated_now=yes; }
	fi
	rm -rf "$dl.new" && mkdir -p "$dl.new"
	if ! (cd "$dl.new" && apt-get "${opts[@]}" -q source --download-only "$pkg") >"$work/log/apt-source-$pkg.log" 2>&1; then
		if [ "${apt_updated_now:-}" != yes ]; then
			# The lists may name a version the mirror no longer has.
			apt_update
			apt_updated_now=yes
			(cd "$dl.new" && apt-get "${opts[@]}" -q source --download-only "$pkg") >"$work/log/apt-source-$pkg.log" 2>&1
		else
			false
		fi || { tail -20 "$work/log/apt-source-$pkg.log" >&2; die "apt-get source $pkg failed (log: $work/log/apt-source-$pkg.log)"; }
	fi
	rm -rf "$dl" && mv "$dl.new" "$dl"
	deb_dsc=$(find "$dl" -maxdepth 1 -name "${pkg}_*.dsc" | sort | tail -1)
	[ -n "$deb_dsc" ] || die "apt-get source $pkg left no .dsc in $dl"
}

# The version of a .dsc ("Version:" field).
dsc_version() {
	sed -n 's/^Version: *//p' "$1" | head -1
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
