#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Drive the built librfm.so from Python's ctypes only (tests/ffi/test_ctypes.py):
# the proof that a plain FFI needs nothing but the shared library. It opens
# emulated networks of its own (shm: URIs), whatever RFM_TEST_BACKEND says.
#
# make check runs this from the top build directory and exports $srcdir.
#   RFM_LIBRARY   the library (default: this build's src/.libs/librfm.so)
#   PYTHON        the interpreter with pytest (default /usr/bin/python3)

top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
RFM_LIBRARY=${RFM_LIBRARY:-$top_builddir/src/.libs/librfm.so}
RFM_INCLUDE_DIR=${RFM_INCLUDE_DIR:-$top_srcdir/include}
export RFM_LIBRARY RFM_INCLUDE_DIR
PYTHON=${PYTHON:-/usr/bin/python3}

if [ ! -f "$RFM_LIBRARY" ]; then
	echo "run-ffi-tests: $RFM_LIBRARY is missing: build first" >&2
	exit 99
fi
if ! "$PYTHON" -c 'import pytest' 2>/dev/null; then
	echo "run-ffi-tests: pytest not found for $PYTHON (Debian: python3-pytest)"
	exit 77
fi
unset RFM_URI
export PYTHONDONTWRITEBYTECODE=1

# A ThreadSanitizer runtime cannot be loaded into a running Python (it needs
# static TLS at start-up), as for the Python bindings in the TSan build.
if ldd "$RFM_LIBRARY" 2>/dev/null | grep -q 'libtsan'; then
	echo "run-ffi-tests: skipped: $RFM_LIBRARY is built with ThreadSanitizer"
	exit 77
fi

# A library built with AddressSanitizer loads into Python only when the
# ASan runtime comes first; Python's own allocations are not our leaks.
asan=$(ldd "$RFM_LIBRARY" 2>/dev/null | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p')
if [ -n "$asan" ]; then
	LD_PRELOAD="$asan${LD_PRELOAD:+ $LD_PRELOAD}"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export LD_PRELOAD ASAN_OPTIONS
fi

exec "$PYTHON" -m pytest -q -p no:cacheprovider -c /dev/null \
	--rootdir="$top_srcdir/tests/ffi" "$@" "$top_srcdir/tests/ffi"
