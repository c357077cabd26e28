#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# win-env.sh: the environment in which Windows x64 builds of librfm are made
# and run under wine, on top of the dependency prefix of win-deps.sh.
#
#   build-aux/win-env.sh --run PROG.exe [ARG]...
#         run a Windows program under wine and exit with its status: its
#         exit code, or 128 + a signal number for an exception (see
#         build-aux/win-run.c); CMake's toolchain file and Automake's
#         LOG_COMPILER use this form
#   build-aux/win-env.sh COMMAND [ARG]...
#         run a Linux command (make, ctest, a test script) in the environment
#   . build-aux/win-env.sh
#         set the environment in this (bash) shell; win_run PROG.exe ARGS
#         then runs a Windows program as --run does
#   build-aux/win-env.sh --print     the environment as shell assignments
#   build-aux/win-env.sh --init      make the wine prefix now (else on first use)
#   build-aux/win-env.sh --reset     remove the wine prefix and make it again
#
# The environment:
#   RFM_WIN_DEPS        the dependency prefix (win-deps.sh's rule)
#   WINEPREFIX          a cached prefix, $RFM_WINEPREFIX, else
#                       $XDG_CACHE_HOME/librfm/wine64 (~/.cache/librfm/wine64):
#                       made once (wineboot takes about ten seconds), reused,
#                       made again when it is found broken
#   WINEPATH            the caller's WINEPATH (a build's own DLL directories),
#                       then $RFM_WIN_DEPS/bin, then mingw-w64's runtime DLLs
#                       (libwinpthread-1.dll, libgcc_s_seh-1.dll, libstdc++-6.dll)
#   WINEDEBUG           -all unless set (wine's own diagnostics drown test logs)
#   WINEDLLOVERRIDES    mscoree and mshtml off: no Mono or Gecko install prompts
#   PKG_CONFIG_LIBDIR   $RFM_WIN_DEPS/lib/pkgconfig only, PKG_CONFIG_PATH empty:
#                       cross builds see the prefix's packages, nothing of Linux
#   RFM_WIN_TOOLCHAIN   this directory's CMake toolchain file
#
# One prefix is shared by every run of the same user (one wineserver): the
# programs that run in it at once see each other's named kernel objects and
# files under C:\, so tests name what they create uniquely, as they do in
# /dev/shm on Linux.

rfm_win_triplet=x86_64-w64-mingw32

# The directory of this file, whether run or sourced.
rfm_win_aux=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

rfm_win_say() { printf 'win-env: %s\n' "$*" >&2; }

# A Unix path as wine names it (Z: is the Unix root in every prefix).
rfm_win_path() {
	local p=$1
	case $p in /*) ;; *) p=$PWD/$p ;; esac
	printf 'Z:%s\n' "${p//\//\\}"
}

rfm_win_setup() {
	local cache=${XDG_CACHE_HOME:-$HOME/.cache}/librfm dll dirs=() d
	export RFM_WIN_DEPS=${RFM_WIN_DEPS:-$cache/win64}
	export WINEPREFIX=${RFM_WINEPREFIX:-$cache/wine64}
	export WINEDEBUG=${WINEDEBUG:--all}
	export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
	export PKG_CONFIG_LIBDIR=$RFM_WIN_DEPS/lib/pkgconfig PKG_CONFIG_PATH=
	export RFM_WIN_TOOLCHAIN=$rfm_win_aux/mingw-w64-x86_64.cmake
	unset PKG_CONFIG_SYSROOT_DIR
	# Once per environment: sourcing twice (or --run inside a wrapped
	# command) must not pile the directories up.
	if [ "${RFM_WIN_PATH_SET:-}" != "$RFM_WIN_DEPS" ]; then
		dirs=("$RFM_WIN_DEPS/bin")
		for dll in libwinpthread-1.dll libgcc_s_seh-1.dll libstdc++-6.dll; do
			d=$("$rfm_win_triplet-gcc-posix" -print-file-name="$dll" 2>/dev/null) || d=
			case $d in /*) d=$(cd "$(dirname "$d")" && pwd -P) ;; *) continue ;; esac
			case " ${dirs[*]} " in *" $d "*) ;; *) dirs+=("$d") ;; esac
		done
		for d in "${dirs[@]}"; do
			WINEPATH=${WINEPATH:+$WINEPATH;}$(rfm_win_path "$d")
		done
		export WINEPATH RFM_WIN_PATH_SET=$RFM_WIN_DEPS
	fi
}

# wine, for the prefix this machine has (wine64 runs 64-bit programs
# without the 32-bit half Debian's wine wrapper asks for).
rfm_win_wine() {
	if command -v wine64 >/dev/null 2>&1; then
		echo wine64
	elif [ -x /usr/lib/wine/wine64 ]; then
		echo /usr/lib/wine/wine64
	elif command -v wine >/dev/null 2>&1; then
		echo wine
	else
		rfm_win_say "wine is not installed (Debian: wine wine64)"
		return 1
	fi
}

rfm_win_wineserver() {
	if command -v wineserver >/dev/null 2>&1; then
		echo wineserver
	else
		echo /usr/lib/wine/wineserver64
	fi
}

# Whether the wine prefix was made to its end and still has what every
# program needs (its registry, its system directory).
rfm_win_prefix_ok() {
	[ -f "$WINEPREFIX/.librfm-ready" ] && [ -s "$WINEPREFIX/system.reg" ] &&
		[ -f "$WINEPREFIX/drive_c/windows/system32/kernel32.dll" ]
}

# Makes the wine prefix when it is missing or broken (a wineboot that was
# interrupted, a removed registry or system directory), under a lock so
# that two first runs do not both make it. --reset makes it again anyway.
rfm_win_prefix() {
	local wine mark=$WINEPREFIX/.librfm-ready
	rfm_win_prefix_ok && return 0
	wine=$(rfm_win_wine) || return 1
	mkdir -p "$(dirname "$WINEPREFIX")"
	(
		flock 8
		rfm_win_prefix_ok && exit 0
		if [ -e "$WINEPREFIX" ]; then
			rfm_win_say "the wine prefix $WINEPREFIX is incomplete or broken: making it again"
			"$(rfm_win_wineserver)" -k >/dev/null 2>&1 || true
			rm -rf "$WINEPREFIX"
		fi
		rfm_win_say "making the wine prefix $WINEPREFIX (once; about ten seconds)"
		"$wine" wineboot --init >/dev/null 2>&1 || true
		# Windows 10, not wine's default 7: what the programs meet in the field.
		"$wine" winecfg /v win10 >/dev/null 2>&1 || true
		# wineboot returns before the prefix is written out: wait for
		# its wineserver (and so the prefix) to finish.
		"$(rfm_win_wineserver)" -w 2>/dev/null || true
		"$wine" --version >"$mark.new" 2>/dev/null && mv "$mark.new" "$mark"
		rfm_win_prefix_ok || { rfm_win_say "wineboot did not make $WINEPREFIX"; exit 1; }
	) 8>"$WINEPREFIX.lock"
}

# The launcher (build-aux/win-run.c), built once per version of its source
# into the wine prefix's directory.
rfm_win_launcher() {
	local src=$rfm_win_aux/win-run.c sum exe
	sum=$(sha256sum <"$src" | cut -c1-16)
	exe=$WINEPREFIX/.librfm-win-run-$sum.exe
	if [ ! -f "$exe" ]; then
		"$rfm_win_triplet-gcc-posix" -O2 -Wall -Wextra -Werror -o "$exe.$$" "$src" || return 1
		mv -f "$exe.$$" "$exe"
	fi
	echo "$exe"
}

# Runs Windows program $1 with arguments under wine, in the environment,
# in place of this shell (its exit status is the program's, see
# win-run.c): a test driver's timeout that kills the pid it started kills
# the launcher, whose job object then takes the program and every process
# it started with it.
win_exec() {
	local wine launcher prog
	[ $# -ge 1 ] || { rfm_win_say "win_run: no program"; exit 126; }
	rfm_win_setup
	wine=$(rfm_win_wine) || exit 127
	rfm_win_prefix || exit 126
	launcher=$(rfm_win_launcher) || { rfm_win_say "cannot build the launcher win-run.exe"; exit 126; }
	prog=$1
	shift
	case $prog in
	*/*) [ -e "$prog" ] || [ -e "$prog.exe" ] || { rfm_win_say "$prog: not found"; exit 127; }
		prog=$(rfm_win_path "$prog") ;;
	esac
	exec "$wine" "$launcher" "$prog" "$@"
}

# The same for a shell that sourced this file, in a subshell.
win_run() {
	(win_exec "$@")
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	# Sourced.
	rfm_win_setup
	return 0
fi

set -eu
case ${1:-} in
--run)
	shift
	win_exec "$@"
	;;
--print)
	rfm_win_setup
	for v in RFM_WIN_DEPS WINEPREFIX WINEPATH WINEDEBUG WINEDLLOVERRIDES PKG_CONFIG_LIBDIR PKG_CONFIG_PATH RFM_WIN_TOOLCHAIN; do
		printf '%s=%q\n' "$v" "${!v}"
	done
	printf 'export RFM_WIN_DEPS WINEPREFIX WINEPATH WINEDEBUG WINEDLLOVERRIDES PKG_CONFIG_LIBDIR PKG_CONFIG_PATH RFM_WIN_TOOLCHAIN\n'
	;;
--init)
	rfm_win_setup
	rfm_win_prefix
	;;
--reset)
	rfm_win_setup
	rm -f "$WINEPREFIX/.librfm-ready"
	rfm_win_prefix
	;;
-h | --help | '')
	sed -n '/^# win-env.sh:/,/^# One prefix/p' "$0" | sed 's/^# \{0,1\}//'
	;;
*)
	rfm_win_setup
	exec "$@"
	;;
esac
