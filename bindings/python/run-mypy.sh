#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# mypy (Debian's python3-mypy) over the Python package, its tests and
# examples/python, with bindings/python/pyproject.toml's settings: the
# package fully annotated, the tests' and examples' bodies checked against
# it. make check-mypy runs it from the top build directory (its cache goes
# there); by hand: srcdir=.. ../bindings/python/run-mypy.sh
top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -m mypy --version >/dev/null 2>&1 || {
	echo "SKIP: run-mypy: mypy not found for $PYTHON (Debian: python3-mypy)"
	exit 77
}
cd "$top_srcdir/bindings/python" || exit 99
"$PYTHON" -m mypy --config-file pyproject.toml --cache-dir "$top_builddir/.mypy_cache" \
	--python-executable "$PYTHON" rfm tests ../../examples/python
status=$?
[ $status -eq 0 ] && echo "run-mypy: 1 passed, 0 failed" || echo "run-mypy: 0 passed, 1 failed"
exit $status
