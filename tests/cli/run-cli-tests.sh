#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run the CLI test suite (pytest) against the rfm tool of this build.
#
# make check runs this from the top build directory and exports $srcdir
# (the automake test harness does both), so the paths below follow from
# them. Any of them may be set in the environment to run the suite by hand:
#   RFM_TOOL       the rfm program (the libtool wrapper tools/rfm works)
#   RFM_HOLD_NODE  the tests/cli/hold-node helper
#   RFM_MANPAGE    man/rfm.1
#   PYTHON         the interpreter with pytest (default /usr/bin/python3)
# Extra arguments go to pytest (e.g. -k peek -v).

top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
testdir=$top_srcdir/tests/cli

RFM_TOOL=${RFM_TOOL:-$top_builddir/tools/rfm}
RFM_HOLD_NODE=${RFM_HOLD_NODE:-$top_builddir/tests/cli/hold-node}
RFM_MANPAGE=${RFM_MANPAGE:-$top_srcdir/man/rfm.1}
export RFM_TOOL RFM_HOLD_NODE RFM_MANPAGE
# The layout tests check the examples of the source tree.
RFM_SRCDIR=${RFM_SRCDIR:-$top_srcdir}
export RFM_SRCDIR
# The tests name every network themselves; a URI from the caller must not leak in.
unset RFM_URI
# The source tree may be read-only (make distcheck): write no caches into it.
export PYTHONDONTWRITEBYTECODE=1

for f in "$RFM_TOOL" "$RFM_HOLD_NODE"; do
	if [ ! -x "$f" ]; then
		echo "run-cli-tests: $f is missing: build first (make check does)" >&2
		exit 99
	fi
done

# In a sanitizer build, rfm plot's Python loads a module linked with the
# sanitizer's runtime, which must then come first: rfm plot runs the
# interpreter RFM_PYTHON names, here one that preloads it (a user's build
# has no sanitizer). Python's own allocations at exit are not our leaks.
runtime=$(ldd "$top_builddir/src/.libs/librfm.so" 2>/dev/null |
	sed -n 's/^[[:space:]]*lib[at]san[^ ]* => \([^ ]*\) .*/\1/p')
if [ -n "$runtime" ] && [ -z "${RFM_PYTHON:-}" ]; then
	launcher_dir=$(mktemp -d) || exit 99
	trap 'rm -rf "$launcher_dir"' EXIT
	printf '#!/bin/sh\nLD_PRELOAD="%s${LD_PRELOAD:+ $LD_PRELOAD}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" exec %s "$@"\n' \
		"$runtime" "${PYTHON:-/usr/bin/python3}" >"$launcher_dir/python3"
	chmod +x "$launcher_dir/python3"
	RFM_PYTHON=$launcher_dir/python3
	export RFM_PYTHON
fi

${PYTHON:-/usr/bin/python3} -m pytest -q -p no:cacheprovider -c /dev/null \
	--rootdir="$testdir" "$@" "$testdir"
status=$?
case $status in
0)
	exit 0 ;;
5)
	# pytest: no tests collected. A suite that silently vanished is a failure.
	echo "run-cli-tests: pytest collected no tests in $testdir" >&2
	exit 1 ;;
*)
	exit 1 ;;
esac
