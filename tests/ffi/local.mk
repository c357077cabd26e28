# SPDX-License-Identifier: LGPL-2.1-or-later
# librfm.so from Python's ctypes alone: what any FFI (Rust, Go, Julia, .NET) needs.
if WITH_TESTS
TESTS += tests/ffi/run-ffi-tests.sh
endif
EXTRA_DIST += tests/ffi/run-ffi-tests.sh tests/ffi/test_ctypes.py
