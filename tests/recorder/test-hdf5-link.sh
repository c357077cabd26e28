#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# librfm does not link libhdf5 (docs/recording.md, "How librfm depends on
# HDF5"): the recorder's HDF5 writer is a module of its own, rfm-hdf5.so,
# opened only when an HDF5 recording starts, and rfm replay is a program
# of its own, rfm-replay. So neither librfm, nor the rfm tool, nor a
# program linked with them (the pkg-config file asks for no hdf5) maps
# libhdf5 and what it needs; the module and rfm-replay do. Read with ldd,
# which lists every library a file brings, its libraries' included.
#
# make check runs this from the top build directory, on a build with HDF5.
set -u

fail=0
if ! command -v ldd >/dev/null 2>&1; then
	echo "SKIP: no ldd"
	exit 77
fi

# No libhdf5 among what @1 brings.
without() {
	if [ ! -e "$1" ]; then
		echo "FAIL: $1 is missing (build first)"
		fail=1
	elif ldd "$1" | grep -i hdf5; then
		echo "FAIL: $1 brings libhdf5 (above): $2"
		fail=1
	else
		echo "ok: $1 brings no libhdf5"
	fi
}

# libhdf5 among what @1 brings.
with() {
	if ! ldd "$1" | grep -q 'libhdf5.* => /'; then
		echo "FAIL: $1 does not bring libhdf5: $2"
		ldd "$1"
		fail=1
	else
		echo "ok: $1 brings libhdf5"
	fi
}

without src/.libs/librfm.so.1 "the HDF5 writer belongs in the module rfm-hdf5.so"
without tools/.libs/rfm "reading HDF5 (rfm replay) belongs in rfm-replay"
if [ -e bindings/python/.libs/_rfm_swig.so ]; then
	without bindings/python/.libs/_rfm_swig.so "the Python binding links librfm alone"
fi
with src/.libs/rfm-hdf5.so "it is the module that writes HDF5"
with tools/.libs/rfm-replay "it is the program that reads HDF5"

# A program built against librfm asks for no HDF5 either.
for pc in rfm.pc rfm-uninstalled.pc; do
	if grep -E '^(Requires|Libs)' "$pc" | grep -i 'hdf5'; then
		echo "FAIL: $pc names hdf5 (above): a program linked with librfm must not need it"
		fail=1
	else
		echo "ok: $pc names no hdf5"
	fi
done
exit $fail
