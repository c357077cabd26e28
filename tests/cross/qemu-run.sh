#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# LOG_COMPILER of make check-cross: run one test program of a cross build
# under qemu-user (binfmt_misc may not be registered, so qemu is called by
# name, with the sysroot as its library prefix).
#   CROSS_QEMU     qemu-s390x, qemu-aarch64, qemu-arm, qemu-i386
#   CROSS_SYSROOT  the target's sysroot (mmdebstrap --variant=extract)
#   CROSS_BUILD    the cross build directory (its libraries)
# A libtool wrapper script is resolved to the program in .libs/ beside it.
set -eu
prog=$1
shift
dir=$(dirname "$prog")
base=$(basename "$prog")
if [ -x "$dir/.libs/$base" ] && head -c 2 "$prog" | grep -q '#!'; then
	prog=$dir/.libs/$base
fi
libs=$CROSS_BUILD/src/.libs:$CROSS_BUILD/src/librfm2g/.libs:$CROSS_BUILD/tests/backends/rfm2g/.libs
exec "$CROSS_QEMU" -L "$CROSS_SYSROOT" -E LD_LIBRARY_PATH="$libs" "$prog" "$@"
