#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# One Windows test program under wine, for `make check` in a Windows build
# (tests/windows/local.mk's LOG_COMPILER):
#   run-win.sh --env WIN_ENV PROGRAM.exe [ARG]...
# WIN_ENV is build-aux/win-env.sh (the wine prefix, WINEPATH with the
# dependencies' DLLs); this build's own DLL directory goes first on WINEPATH.
set -eu
[ "${1:-}" = --env ] || { echo "usage: run-win.sh --env WIN_ENV PROGRAM.exe [ARG]..." >&2; exit 99; }
env=$2
shift 2
if [ ! -x "$env" ]; then
	echo "run-win.sh: $env is missing: the Windows tests run through build-aux/win-env.sh" >&2
	exit 99
fi
dlls=$(pwd)/src/.libs
WINEPATH="Z:$(printf '%s' "$dlls" | sed 's,/,\\,g')${WINEPATH:+;$WINEPATH}"
export WINEPATH
# A program that hangs under wine must not hold the suite (and CI) for
# good: stopped after RFM_WIN_TEST_TIMEOUT seconds, it fails saying so (the
# launcher's job object takes the program with it).
limit=${RFM_WIN_TEST_TIMEOUT:-300}
status=0
timeout --kill-after=10 "$limit" "$env" --run "$@" || status=$?
[ $status -ne 124 ] && [ $status -ne 137 ] ||
	echo "run-win.sh: $1 did not finish within $limit s: stopped" >&2
exit $status
