#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# librfm2g as sites link it, from an installed tree (make install
# DESTDIR= into a temporary root):
#  - librfm2g.a is installed beside librfm2g.so; a program linked with
#    "-lrfm2g -lpthread" against the archive needs no librfm at run time,
#    one linked with the shared library does, and both run;
#  - pkg-config --static --libs rfm2g asks for nothing more than that;
#  - CMake: examples/rfm2g finds find_package(rfm) and find_package(rfm2g)
#    and builds rfm2g-echo (rfm::rfm2g) and rfm2g-echo-static
#    (rfm::rfm2g_static), and a librfm program builds with rfm::rfm; the
#    shared receiver answers the static sender on one network;
#  - the concept pages of section 7 are installed; with Doxygen
#    (configure's summary) the man3 pages, one per function, and the HTML
#    reference too.
# The programs meet on an emulated network of their own (shm:), whatever
# RFM_TEST_BACKEND says.

top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
# The build's compiler and flags (a sanitizer build's programs need its
# runtime, and its archive was compiled with it).
make_var() {
	sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1
}
CC=$(make_var CC)
CFLAGS=$(make_var CFLAGS)
LDFLAGS=$(make_var LDFLAGS)

for tool in "${CC%% *}" cmake pkg-config make realpath; do
	if ! command -v "$tool" >/dev/null; then
		echo "skipped: $tool is not installed"
		exit 77
	fi
done

work=$(mktemp -d) || exit 99
recv_pid=
cleanup() {
	[ -n "$recv_pid" ] && kill "$recv_pid" 2>/dev/null && wait "$recv_pid" 2>/dev/null
	rm -f "/dev/shm/rfm-$net" "/dev/shm/rfmlock-$net"
	rm -rf "$work"
}
net="t-installed-$$"
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

root="$work/root"
make -s -C "$top_builddir" install DESTDIR="$root" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "make install DESTDIR=$root"; }
archive=$(find "$root" -name librfm2g.a) && [ -n "$archive" ] || fail "no librfm2g.a installed"
lib=$(dirname "$archive")
[ -e "$lib/librfm2g.so" ] || fail "no librfm2g.so beside $archive"
api=$(find "$root" -path '*/rfm2g/rfm2g_api.h') && [ -n "$api" ] || fail "no rfm2g_api.h"
inc=$(dirname "$api")
prefix="$root$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")"
echo "installed: $archive, $inc"

echo "== linked both ways"
src="$top_srcdir/tests/librfm2g/rfm2g-util-session.c"
mkdir "$work/archive-only"
cp "$archive" "$work/archive-only/"
# The vendor way: -lrfm2g -lpthread, the archive found by -L.
$CC $CFLAGS -I"$inc" -DRFM2G_LINUX -o "$work/session-static" "$src" $LDFLAGS \
	-L"$work/archive-only" -lrfm2g -lpthread || fail "static link with -lrfm2g -lpthread"
$CC $CFLAGS -I"$inc" -DRFM2G_LINUX -o "$work/session-shared" "$src" $LDFLAGS \
	-L"$lib" -Wl,-rpath-link,"$lib" -lrfm2g || fail "shared link with -lrfm2g"
readelf -d "$work/session-static" | grep NEEDED
readelf -d "$work/session-static" | grep -q 'NEEDED.*librfm' && fail "the static program needs a librfm"
readelf -d "$work/session-shared" | grep -q 'NEEDED.*librfm2g\.so' || fail "the shared program does not need librfm2g.so"
uri="shm:$net?size=1M"
RFM_URI="$uri" "$work/session-static" /dev/rfm2g0 $((1 << 20)) | tail -n 1
RFM_URI="$uri" LD_LIBRARY_PATH="$lib" "$work/session-shared" /dev/rfm2g0 $((1 << 20)) | tail -n 1

echo "== pkg-config --static --libs rfm2g"
libs=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" pkg-config --static --libs rfm2g) ||
	fail "pkg-config rfm2g"
echo "$libs"
for word in $libs; do
	case "$word" in
	-L*|-lrfm2g|-lpthread|-pthread) ;;
	*) fail "pkg-config --static --libs rfm2g asks for $word" ;;
	esac
done

echo "== CMake: find_package(rfm) and find_package(rfm2g)"
cmake_flags="-DCMAKE_C_COMPILER=$CC"
cmake -S "$top_srcdir/examples/rfm2g" -B "$work/cmake" "$cmake_flags" \
	-DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS" \
	-DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_BUILD_RPATH="$lib" >"$work/cmake.log" 2>&1 ||
	{ cat "$work/cmake.log"; fail "cmake configure"; }
cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 ||
	{ cat "$work/cmake.log"; fail "cmake build"; }
mkdir "$work/rfm"
cat >"$work/rfm/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(uses_rfm C)
find_package(rfm 0.1 REQUIRED)
add_executable(uses-rfm main.c)
target_link_libraries(uses-rfm PRIVATE rfm::rfm)
CMAKE
cat >"$work/rfm/main.c" <<'C'
#include <stdio.h>
#include <rfm/rfm.h>
int main(int argc, char **argv)
{
	rfm_node *node;
	uint32_t v = 0;

	if (argc < 2 || rfm_open(argv[1], &node) != 0 || rfm_mem_peek32(node, 0x1000, &v) != 0)
		return 1;
	printf("uses-rfm: 0x%08x at 0x1000\n", (unsigned int) v);
	rfm_close(node);
	return v >> 16 == 0xa5a5u ? 0 : 1;	/* rfm2g-echo's pattern */
}
C
cmake -S "$work/rfm" -B "$work/rfm/build" "$cmake_flags" \
	-DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS" \
	-DCMAKE_PREFIX_PATH="$prefix" >>"$work/cmake.log" 2>&1 &&
	cmake --build "$work/rfm/build" >>"$work/cmake.log" 2>&1 ||
	{ cat "$work/cmake.log"; fail "cmake build with rfm::rfm"; }
readelf -d "$work/cmake/rfm2g-echo-static" | grep -q 'NEEDED.*librfm' &&
	fail "rfm2g-echo-static needs a librfm"

echo "== the shared receiver answers the static sender"
mkfifo "$work/ready"
RFM_URI="$uri" LD_LIBRARY_PATH="$lib" "$work/cmake/rfm2g-echo" receive >"$work/ready" &
recv_pid=$!
read -r line <"$work/ready" || fail "the receiver did not start"
echo "$line"
node=$(echo "$line" | sed -n 's/^receiver: node \([0-9]*\),.*/\1/p')
[ -n "$node" ] || fail "no node id in '$line'"
RFM_URI="$uri" "$work/cmake/rfm2g-echo-static" send "$node" 20 || fail "static sender"
kill "$recv_pid"
wait "$recv_pid" 2>/dev/null
recv_pid=
# The sender's block, read by the librfm program built with CMake.
LD_LIBRARY_PATH="$lib" "$work/rfm/build/uses-rfm" "$uri" || fail "uses-rfm"

echo "== man pages and HTML"
for name in librfm rfm-protocols rfm-events; do
	[ -n "$(find "$root" -path "*/man7/$name.7")" ] || fail "no man7/$name.7"
done
if grep -q '^DOXYGEN = .' "$top_builddir/Makefile"; then
	page=$(find "$root" -path '*/man3/rfm_open.3') && [ -n "$page" ] || fail "no man3/rfm_open.3"
	html=$(find "$root" -path '*/html/index.html') && [ -n "$html" ] || fail "no html/index.html"
	# A page of its own per function (not a link to its group's page),
	# with its errors: man rfm_event_send opens rfm_event_send.
	send="$(dirname "$page")/rfm_event_send.3"
	grep -q '^\.so' "$send" && fail "rfm_event_send.3 is a link: $(head -n 1 "$send")"
	grep -q '^\.TH rfm_event_send 3' "$send" || fail "rfm_event_send.3 is not its page"
	grep -q '^\.SH ERRORS' "$send" || fail "rfm_event_send.3 has no ERRORS"
	echo "$(ls "$(dirname "$page")" | wc -l) man3 pages, $html"
else
	echo "no Doxygen: make install installs no man3 pages (configure says so)"
	[ -z "$(find "$root" -path '*/man3/rfm_open.3')" ] || fail "man3 pages without Doxygen?"
fi
echo "PASS: librfm2g linked statically and shared, CMake packages, man pages from make install"
