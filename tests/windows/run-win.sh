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
# The program itself, not libtool's wrapper of the same name: the wrapper
# starts it in a second process and turns a failed start into a silent
# exit status 127 (wine fails a start now and then; the launcher tries again
# only when it starts the program itself).
prog=$1
shift
real=$(dirname "$prog")/.libs/$(basename "$prog")
[ ! -f "$real" ] || prog=$real
set -- "$prog" "$@"
# wine now and then exits before it starts the launcher, with nothing
# said: the launcher marks its start (RFM_WIN_RUN_STARTED, win-run.c) and a
# run that never started is run again (up to three tries).
mark=$(mktemp -u "${TMPDIR:-/tmp}/rfm-win-started.XXXXXX")
RFM_WIN_RUN_STARTED="Z:$(printf '%s' "$mark" | sed 's,/,\\,g')"
export RFM_WIN_RUN_STARTED
for attempt in 1 2 3; do
	status=0
	timeout --kill-after=10 "$limit" "$env" --run "$@" || status=$?
	[ $status -ne 0 ] && [ ! -e "$mark" ] && [ $attempt -lt 3 ] || break
	echo "run-win.sh: wine did not start $1 (exit status $status): running it again" >&2
done
rm -f "$mark"
[ $status -ne 124 ] && [ $status -ne 137 ] ||
	echo "run-win.sh: $1 did not finish within $limit s: stopped" >&2
exit $status
