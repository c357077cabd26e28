#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck source-path=SCRIPTDIR
#
# win-deps.sh: cross-build librfm's Windows x64 dependencies with Debian's
# mingw-w64 (posix threads flavour) into a cache outside the clone.
#
# Usage: build-aux/win-deps.sh [OPTION]... [DEP]...
#   DEP       yaml cmocka json-c microhttpd openssl cyclonedds (default: all);
#             a DEP brings what it needs (cyclonedds: openssl; and with
#             --check, what its test suite runs on: cunit)
#   --check   also run each named dependency's own test suite under wine
#             (slow; proves a build once, not for CI)
#   --update  refresh the private deb-src lists first: newer Debian source
#             versions (security updates) then rebuild what changed
#   --force   rebuild the named dependencies even when their stamps match
#   --list    say, for every dependency, its version and whether it is built
#   --clean   remove the kept source and build trees (the prefix stays)
#   --prefix  print the prefix and exit
#   -j N      parallel jobs (default: $RFM_WIN_DEPS_JOBS, else nproc)
#
# The prefix is $RFM_WIN_DEPS, else $XDG_CACHE_HOME/librfm/win64, else
# ~/.cache/librfm/win64: headers in include/, DLLs in bin/, import libraries
# and pkg-config files in lib/ and lib/pkgconfig/, CMake packages in lib/cmake/.
# Its .win-deps/ directory keeps the downloads, the private apt state, the
# source and build trees, logs, install manifests and stamps.
#
# Cross builds against the prefix (what this script does, and what the
# Windows build of librfm does):
#   CMake       -DCMAKE_TOOLCHAIN_FILE=build-aux/mingw-w64-x86_64.cmake
#   pkg-config  PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig PKG_CONFIG_PATH=
#               (the prefix only; build-aux/win-env.sh sets both)
#   autotools   ./configure --host=x86_64-w64-mingw32 \
#                   CC=x86_64-w64-mingw32-gcc-posix CXX=x86_64-w64-mingw32-g++-posix
# and Windows programs run with build-aux/win-env.sh --run PROG.exe ARGS.
#
# Sources: libyaml, json-c, cmocka, libmicrohttpd and openssl are Debian's
# source packages, fetched with apt-get source through a private deb-src list
# made from this machine's own apt entries (the machine's apt configuration
# is never changed); Cyclone DDS is the checksummed release tarball in the
# shared dependency directory ($RFM_SHARED_DEPS, else ../shared/deps or
# ../../shared/deps beside the clone; read only).
#
# Each dependency's build is stamped with a key: its source version and
# checksum, its recipe (build-aux/win-deps/DEP.sh) and the shared build
# steps (win-deps/common.sh) as bash reads them (functions, not comments;
# not the test step), the toolchain file, the compilers' versions, the
# prefix and the keys of what it needs. A run whose keys all match does
# nothing (seconds, offline); a changed recipe rebuilds that dependency and
# those that need it. One run at a time per prefix (a lock: two worktrees
# sharing the cache wait for each other).
set -euo pipefail

aux=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$aux")
triplet=x86_64-w64-mingw32
all_deps="yaml cmocka json-c microhttpd openssl cyclonedds"
# Built only for --check: what a dependency's own test suite runs on.
check_deps="cunit"

say() { printf 'win-deps: %s\n' "$*"; }
die() { printf 'win-deps: error: %s\n' "$*" >&2; exit 1; }

usage() {
	sed -n '/^# Usage:/,/^# -j N/p' "$0" | sed 's/^# \{0,1\}//'
}

# shellcheck source=win-deps/common.sh
. "$aux/win-deps/common.sh"
# shellcheck source=win-deps/fetch.sh
. "$aux/win-deps/fetch.sh"

# A recipe's variables, read in a subshell so recipes never see each other.
recipe_var() {
	(
		# shellcheck disable=SC2034 # the recipe's variables, read by the eval
		dep_package='' dep_tarball='' dep_version='' dep_needs='' dep_check_needs='' dep_tools=
		# shellcheck disable=SC1090
		. "$aux/win-deps/$1.sh"
		eval "printf '%s\n' \"\$dep_$2\""
	)
}

# The wanted dependencies and what they need, in build order (and what
# their test suites need when --check runs them), into order.
add_with_needs() {
	local d n
	for n in $(recipe_var "$1" needs); do add_with_needs "$n"; done
	if [ $check = yes ] && [[ " ${wanted[*]} " == *" $1 "* ]]; then
		for n in $(recipe_var "$1" check_needs); do add_with_needs "$n"; done
	fi
	for d in ${order[@]+"${order[@]}"}; do [ "$d" = "$1" ] && return; done
	order+=("$1")
}

# ---- tools ------------------------------------------------------------------
declare -A tool_package=(
	[$triplet-gcc-posix]=gcc-mingw-w64-x86-64-posix
	[$triplet-g++-posix]=g++-mingw-w64-x86-64-posix
	[$triplet-windres]=binutils-mingw-w64-x86-64
	[apt-get]=apt [dpkg-source]=dpkg-dev [flock]=util-linux [sha256sum]=coreutils
	[pkg-config]=pkg-config [cmake]=cmake [ninja]=ninja-build [make]=make
	[autoreconf]="autoconf automake" [libtoolize]=libtool [perl]=perl [xz]=xz-utils
	[wine]="wine wine64" [idlc]=cyclonedds-tools [gcc]=gcc
)
need_tools() {
	local t missing=()
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t (Debian: ${tool_package[$t]:-?})")
	done
	[ ${#missing[@]} -eq 0 ] || die "missing tools: ${missing[*]}"
}

# ---- keys and stamps ----------------------------------------------------------
compiler_id() {
	"$triplet-gcc-posix" -dumpfullversion
	"$triplet-g++-posix" -dumpfullversion
	dpkg-query -W -f='${Package} ${Version}\n' gcc-mingw-w64-x86-64-posix \
		g++-mingw-w64-x86-64-posix mingw-w64-x86-64-dev binutils-mingw-w64-x86-64 2>/dev/null || true
}

shared_deps_dir() {
	local d
	for d in ${RFM_SHARED_DEPS:-} "$top/../shared/deps" "$top/../../shared/deps"; do
		[ -n "$d" ] && [ -f "$d/SHA256SUMS" ] && { (cd "$d" && pwd); return; }
	done
	die "no shared dependency directory with SHA256SUMS (tried \$RFM_SHARED_DEPS, $top/../shared/deps, $top/../../shared/deps)"
}

# Sets src_id (what the key says about the source) and src_version, fetching
# Debian sources when they are not in the cache yet.
declare -A src_id src_version src_origin
# With "offline", fails instead of fetching.
resolve_source() {
	local dep=$1 pkg tarball dir sum
	[ -z "${src_id[$dep]:-}" ] || return 0
	pkg=$(recipe_var "$dep" package)
	tarball=$(recipe_var "$dep" tarball)
	if [ -n "$pkg" ]; then
		if [ "${2:-}" = offline ]; then
			deb_dsc=$(find "$work/dl/$pkg" -maxdepth 1 -name "${pkg}_*.dsc" 2>/dev/null | sort | tail -1) || true
			[ -n "$deb_dsc" ] || return 1
		else
			deb_fetch "$pkg"
		fi
		src_version[$dep]=$(dsc_version "$deb_dsc")
		src_origin[$dep]=$deb_dsc
		src_id[$dep]="debian $pkg ${src_version[$dep]} $(sha256sum <"$deb_dsc" | cut -d' ' -f1)"
	else
		dir=$(shared_deps_dir)
		grep -q "  $tarball\$" "$dir/SHA256SUMS" || die "$dir/SHA256SUMS has no line for $tarball"
		(cd "$dir" && grep "  $tarball\$" SHA256SUMS | sha256sum -c --quiet -) ||
			die "$dir/$tarball does not match its SHA256SUMS line"
		sum=$(grep "  $tarball\$" "$dir/SHA256SUMS" | cut -d' ' -f1)
		src_version[$dep]=$(recipe_var "$dep" version)
		src_origin[$dep]=$dir/$tarball
		src_id[$dep]="tarball $tarball $sum"
	fi
}

# What of a recipe (or of common.sh) shapes a build, as bash reads it: its
# functions but its test step, and the variables naming the source and
# what it needs. Comments and dep_check are not part of it: editing them
# rebuilds nothing.
build_code() {
	bash -c '
		set -e
		dep_package= dep_tarball= dep_version= dep_needs=
		. "$1"
		unset -f dep_check
		declare -f
		declare -p dep_package dep_tarball dep_version dep_needs' build_code "$1"
}

declare -A key
compute_key() {
	local dep=$1 n
	resolve_source "$dep" "${2:-}" || return 1
	key[$dep]=$(
		echo "source ${src_id[$dep]}"
		echo "recipe $(build_code "$aux/win-deps/$dep.sh" | sha256sum)"
		echo "common $(build_code "$aux/win-deps/common.sh" | sha256sum)"
		echo "toolchain $(sha256sum <"$aux/mingw-w64-x86_64.cmake")"
		echo "prefix $prefix"
		compiler_id
		for n in $(recipe_var "$dep" needs); do echo "needs $n ${key[$n]}"; done
	)
	key[$dep]=$(printf '%s\n' "${key[$dep]}" | sha256sum | cut -d' ' -f1)
}

stamp_field() {
	sed -n "s/^$2=//p" "$work/stamp/$1" 2>/dev/null | head -1
}

# Built from the same inputs (and with its test programs when --check
# wants them: a recipe may leave them out of an ordinary build).
up_to_date() {
	[ "$(stamp_field "$1" key)" = "${key[$1]}" ] &&
		{ ! checking "$1" || [ "$(stamp_field "$1" with_tests)" = yes ]; }
}

# Whether this run tests dependency $1 (--check tests the named ones).
checking() {
	[ $check = yes ] && [[ " ${wanted[*]} " == *" $1 "* ]]
}

# ---- building ---------------------------------------------------------------
# Sets cpu to the user+system seconds of this shell's waited-for children
# (bash's times, second line; run here, not in a subshell of its own).
cpu_now() {
	times >"$work/times"
	cpu=$(sed -n 2p "$work/times" | awk '{
		t = 0
		for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] }
		printf "%.1f", t }')
}

build_dep() {
	local dep=$1 src=$work/src/$1 build=$work/build/$1 stage=$work/stage/$1 cpu
	local log=$work/log/$1.log origin=${src_origin[$1]} t0 t1 c0 c1 rc tests=no
	! checking "$dep" || tests=yes
	rm -f "$work/stamp/$dep"
	rm -rf "$src" "$build" "$stage"
	mkdir -p "$build"
	case $origin in
	*.dsc) deb_extract "$origin" "$src" ;;
	*) mkdir -p "$src" && tar -xf "$origin" -C "$src" --strip-components=1 ;;
	esac
	say "$dep ${src_version[$dep]}: building (log: $log)"
	t0=$EPOCHREALTIME
	cpu_now
	c0=$cpu
	set +e
	(
		set -e
		# shellcheck disable=SC1090
		. "$aux/win-deps/$dep.sh"
		# shellcheck disable=SC2034 # read by the recipe
		with_tests=$tests
		dep_build "$src" "$build" "$stage"
	) >"$log" 2>&1
	rc=$?
	set -e
	t1=$EPOCHREALTIME
	cpu_now
	c1=$cpu
	if [ $rc -ne 0 ]; then
		tail -40 "$log" >&2
		die "$dep: build failed (exit $rc; log: $log)"
	fi
	stage_merge "$dep" "$stage"
	local wall cpu
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	cpu=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", b - a }')
	cat >"$work/stamp/$dep" <<-EOF
		key=${key[$dep]}
		version=${src_version[$dep]}
		source=${src_id[$dep]}
		built=$(date -u +%Y-%m-%dT%H:%M:%SZ)
		wall_seconds=$wall
		cpu_seconds=$cpu
		jobs=$jobs
		with_tests=$tests
	EOF
	say "$dep ${src_version[$dep]}: built in $wall s wall, $cpu s cpu (-j$jobs)"
}

check_dep() {
	local dep=$1 log=$work/log/$1-check.log rc
	if [ ! -d "$work/build/$dep" ] || [ "$(stamp_field "$dep" with_tests)" != yes ]; then
		build_dep "$dep"
	fi
	say "$dep: its own tests under wine (log: $log)"
	set +e
	(
		set -e
		# shellcheck disable=SC1090
		. "$aux/win-deps/$dep.sh"
		dep_check "$work/build/$dep"
	) >"$log" 2>&1
	rc=$?
	set -e
	[ $rc -eq 0 ] || { tail -40 "$log" >&2; die "$dep: its tests failed under wine (exit $rc; log: $log)"; }
	say "$dep: its tests passed under wine"
}

# Options and dependency names into the globals the functions below use.
parse_args() {
	prefix=${RFM_WIN_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/librfm/win64}
	jobs=${RFM_WIN_DEPS_JOBS:-$(nproc 2>/dev/null || echo 2)}
	check=no update_lists=no force=no list=no clean=no
	wanted=()
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help) usage; exit 0 ;;
		--check) check=yes ;;
		--update) update_lists=yes ;;
		--force) force=yes ;;
		--list) list=yes ;;
		--clean) clean=yes ;;
		--prefix) echo "$prefix"; exit 0 ;;
		-j) [ $# -ge 2 ] || die "-j needs a number"; jobs=$2; shift ;;
		-j*) jobs=${1#-j} ;;
		-*) die "unknown option $1 (see --help)" ;;
		libyaml) wanted+=(yaml) ;;
		libmicrohttpd | mhd) wanted+=(microhttpd) ;;
		jsonc | json_c) wanted+=(json-c) ;;
		cyclone | cyclone-dds) wanted+=(cyclonedds) ;;
		*) wanted+=("$1") ;;
		esac
		shift
	done
	case $jobs in '' | *[!0-9]* | 0) die "-j wants a positive number, not '$jobs'" ;; esac
	case $prefix in /*) ;; *) die "the prefix must be an absolute path, not '$prefix' (RFM_WIN_DEPS)" ;; esac
	for d in ${wanted[@]+"${wanted[@]}"}; do
		[ -f "$aux/win-deps/$d.sh" ] || die "unknown dependency '$d' (known: $all_deps $check_deps)"
	done
	[ ${#wanted[@]} -gt 0 ] || read -ra wanted <<<"$all_deps"
	work=$prefix/.win-deps
}

# ---- main ---------------------------------------------------------------------
# Everything runs from main, called on the script's last line: bash has
# then read the whole file, and an edit of it during a long build (or a
# git checkout in the worktree) cannot change what the run does.
main() {
	parse_args "$@"
	order=()
	for d in "${wanted[@]}"; do add_with_needs "$d"; done

	if [ $clean = yes ]; then
		rm -rf "$work/src" "$work/build" "$work/stage"
		say "removed the source and build trees under $work (the prefix and stamps stay)"
		exit 0
	fi

	tools=("$triplet-gcc-posix" "$triplet-g++-posix" "$triplet-windres" apt-get dpkg-source flock sha256sum pkg-config gcc)
	for d in "${order[@]}"; do
		read -ra t <<<"$(recipe_var "$d" tools)"
		tools+=(${t[@]+"${t[@]}"})
	done
	[ $check = no ] || tools+=(wine)
	need_tools "${tools[@]}"

	# --list reads only what is here: no lock, no network.
	if [ $list = yes ]; then
		for d in $all_deps $check_deps; do
			if ! compute_key "$d" offline; then
				printf '%-11s %-22s %s\n' "$d" "?" "not fetched"
				continue
			fi
			if up_to_date "$d"; then state="built $(stamp_field "$d" built), $(stamp_field "$d" wall_seconds) s wall, $(stamp_field "$d" cpu_seconds) s cpu"
			elif [ -f "$work/stamp/$d" ]; then state="stale (built from other sources or another recipe)"
			else state="not built"; fi
			printf '%-11s %-22s %s\n' "$d" "${src_version[$d]}" "$state"
		done
		exit 0
	fi

	mkdir -p "$prefix" "$work"/{log,stamp,manifest,dl,src,build,stage}
	exec 9>"$work/lock"
	if ! flock -n 9; then
		say "waiting for the other win-deps.sh run on $prefix (pid $(cat "$work/lock.owner" 2>/dev/null || echo ?))"
		flock 9
	fi
	echo $$ >"$work/lock.owner"

	if [ $update_lists = yes ]; then
		apt_update
		# shellcheck disable=SC2034 # read by fetch.sh
		apt_updated_now=yes
	fi

	say "prefix $prefix"
	t_start=$EPOCHREALTIME
	for d in "${order[@]}"; do
		compute_key "$d"
		if [ $force = yes ] && [[ " ${wanted[*]} " == *" $d "* ]]; then
			build_dep "$d"
		elif up_to_date "$d"; then
			say "$d ${src_version[$d]}: up to date"
		else
			build_dep "$d"
		fi
	done
	if [ $check = yes ]; then
		for d in "${wanted[@]}"; do check_dep "$d"; done
	fi
	say "done in $(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
}

main "$@"; exit $?
