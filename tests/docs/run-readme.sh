#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README is a test: run every example of the documents below, in order,
# against this build (tests/docs/run-readme.py says how). make check runs
# this from the top build directory with $srcdir set; by hand:
#   srcdir=.. ../tests/docs/run-readme.sh [--keep]      (from a build dir)
# With --fresh-clone (make check-readme) it follows README.md as a new user
# does instead: in a fresh copy of the tree, from ./quickstart.sh demo on.
# A new document with commands in it belongs in this list.
top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
# Options (--keep, --fresh-clone) go to run-readme.py; documents named here replace the list.
docs=""
opts=""
fresh=no
for arg; do
	case $arg in
	--fresh-clone) fresh=yes; opts="$opts $arg" ;;
	-*) opts="$opts $arg" ;;
	*) docs="$docs $arg" ;;
	esac
done
if [ $fresh = yes ]; then
	exec /usr/bin/python3 "$top_srcdir/tests/docs/run-readme.py" --srcdir "$top_srcdir" $opts $docs
fi
if [ ! -x "$top_builddir/tools/rfm" ] || [ ! -x "$top_builddir/rfm-env" ]; then
	echo "run-readme: run from a configured and built build directory" >&2
	exit 99
fi
exec /usr/bin/python3 "$top_srcdir/tests/docs/run-readme.py" \
	--srcdir "$top_srcdir" --builddir "$top_builddir" $opts \
	${docs:-README.md docs/layout-format.md docs/rfm2g-migration.md docs/recording.md bindings/README.md}
