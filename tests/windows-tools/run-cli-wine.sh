#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The CLI test suite (tests/cli, pytest on Linux) against the Windows rfm
# tool under wine: rfm.exe and hold-node.exe of a Windows build tree run
# through small wrappers that start them in build-aux/win-env.sh's wine
# prefix (its launcher gives back their real exit status). Tests that
# need what Windows does not have are skipped with their reason
# (tests/windows-tools/cli-skips.txt, read by tests/cli/conftest.py).
#
#   run-cli-wine.sh SRCDIR WIN_BUILDDIR [TEST FILE]...
#
# TEST FILEs are files of tests/cli (test_ping.py), in shares that run
# side by side, split by ":" (test_a.py : test_b.py); without any, the
# default below: the files that concern a Windows tool on shm: most (not
# the dds:, recorder, browser, load and scale files, which need Linux
# peers, HDF5, a browser or minutes), within about three minutes. PYTEST_ADDOPTS passes options to pytest
# (-k EXPR, -x). It prints pytest's report and exits 0 when every test
# that ran passed.
set -euo pipefail

srcdir=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
shift 2
files=("$@")
# The default: what a Windows tool on shm: does, in two shares of about
# the same length that run side by side (each run of the tool waits on
# wine's start-up far more than it computes).
# rfm ping's --local and echo cases only: each of its 42 tests is a few
# seconds of round trips under wine.
[ ${#files[@]} -gt 0 ] || files=(test_cli.py test_patterns.py test_rings.py test_output_files.py
	test_serve.py test_shm_front_door.py : test_errors.py test_events.py test_messages.py test_variables.py
	test_ping.py::test_local_json test_ping.py::test_local_text_output
	test_ping.py::test_rate_and_size test_ping.py::test_echo_on_another_node
	test_ping.py::test_ring_local_count test_ping.py::test_hist_csv)
env=${RFM_WIN_ENV:-$srcdir/build-aux/win-env.sh}

for f in "$build/tools/rfm.exe" "$build/tests/windows-tools/hold-node.exe"; do
	[ -f "$f" ] || { echo "run-cli-wine: $f is missing: build it first" >&2; exit 99; }
done

# shellcheck source=../../build-aux/win-env.sh
. "$env"
wine=$(rfm_win_wine)
rfm_win_prefix
launcher=$(rfm_win_launcher)
WINEPATH="$(rfm_win_path "$build/src/.libs");$WINEPATH"
export WINEPATH

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Networks of this run only, in a directory of its own (the segment
# directory of the Windows build: RFM_SHM_DIR), removed with it.
mkdir "$tmp/shm"
export RFM_SHM_DIR
RFM_SHM_DIR=$(rfm_win_path "$tmp/shm")
export RFM_TEST_SHM_DIR=$tmp/shm
# The programs themselves, not libtool's wrappers of the same names (in
# .libs when libtool made one): a wrapper starts the program in a second
# process and turns a failed start into a silent exit status 127, and wine
# fails a start now and then (the launcher tries again only when it starts
# the program itself).
for prog in rfm:tools/rfm.exe hold-node:tests/windows-tools/hold-node.exe; do
	name=${prog%%:*}
	exe=$build/${prog#*:}
	real=$(dirname "$exe")/.libs/$(basename "$exe")
	[ ! -f "$real" ] || exe=$real
	printf '#!/bin/sh\nexec %q %q %q "$@"\n' "$wine" "$launcher" \
		"$(rfm_win_path "$exe")" >"$tmp/$name"
	chmod +x "$tmp/$name"
done

export RFM_TOOL=$tmp/rfm RFM_HOLD_NODE=$tmp/hold-node
export RFM_MANPAGE=$srcdir/man/rfm.1 RFM_SRCDIR=$srcdir
export RFM_CLI_SKIPS=$srcdir/tests/windows-tools/cli-skips.txt
export RFM_TOOL_OS=windows
unset RFM_URI
export PYTHONDONTWRITEBYTECODE=1

# wine's server up before the shares start their first runs side by side.
"$tmp/rfm" --version >/dev/null ||
	{ echo "run-cli-wine: rfm.exe --version failed under wine" >&2; exit 1; }

# One pytest per share (the shares are split at ":").
run_share() {
	"${PYTHON:-/usr/bin/python3}" -m pytest -q -p no:cacheprovider -c /dev/null -rs \
		--rootdir="$srcdir/tests/cli" "${@/#/$srcdir/tests/cli/}"
}
share=() pids=() n=0
for f in "${files[@]}" :; do
	if [ "$f" != : ]; then
		share+=("$f")
		continue
	fi
	[ ${#share[@]} -gt 0 ] || continue
	run_share "${share[@]}" >"$tmp/out.$n" 2>&1 &
	pids+=($!)
	n=$((n + 1))
	share=()
done
status=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || status=1
	cat "$tmp/out.$i"
done
# The counts of every share together.
cat "$tmp"/out.* | sed -n 's/^=* *//; s/ *=*$//; /^[0-9]* \(passed\|failed\|errors\?\|skipped\).* in [0-9.]*s/p' |
	awk '{ for (i = 1; i < NF; i++) if ($(i + 1) ~ /^(passed|failed|skipped|errors?|deselected)/) {
		k = $(i + 1); sub(/[,;]$/, "", k); c[k] += $i } }
	END { printf "run-cli-wine:"; for (k in c) printf " %d %s", c[k], k; printf "\n" }'
# The segment directory must be empty again: every test removed its networks.
left=$(ls -A "$tmp/shm")
if [ -n "$left" ]; then
	echo "run-cli-wine: networks left behind: $left" >&2
	status=1
fi
exit $status
