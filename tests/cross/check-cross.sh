#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make check-cross: build librfm for other architectures with Debian's
# cross compilers and run the C suites under qemu-user.
#   s390x   64-bit big-endian: the wide set (every suite that qemu-user runs)
#   arm64, armhf (32-bit), i386 (32-bit): the core set
# then the mixed-host tests (tests/cross/mixed-hosts.sh): the s390x build,
# with the dds: backend on the sysroot's Cyclone DDS, beside a native node
# on one dds: network; an i386 and an armhf program beside a native one on
# one shm: network.
# Sysroots are made from Debian's archive with mmdebstrap (the mirror and
# suite this machine's apt uses) and kept in $RFM_CROSS_DIR/sysroot-ARCH,
# so a second run (or a second step of one CI run) reuses them; builds go
# to $RFM_CROSS_DIR/build-ARCH. Suites qemu-user cannot run are named with
# the reason (tests/README.md, "Cross builds").
#
# Usage: check-cross.sh SRCDIR NATIVE_BUILDDIR [ARCH...]
set -euo pipefail

srcdir=$(cd "$1" && pwd)
native=$(cd "$2" && pwd)
shift 2
arches=${*:-${RFM_CROSS_ARCHES:-s390x arm64 armhf i386}}
cross=${RFM_CROSS_DIR:-$native/cross}
jobs=${RFM_CROSS_JOBS:-2}
mkdir -p "$cross"

# Suites that need what qemu-user does not emulate.
declare -A skip=(
	[tests/core/test-rt]="prefault and mlock checks read /proc/self/pagemap and madvise(MADV_POPULATE_WRITE), which qemu-user does not emulate"
	[tests/backends/shm/test-hugepages]="hugetlbfs mappings (MAP_HUGETLB) fail with EINVAL under qemu-user"
	[tests/rings/test-rings-xproc]="a forked child of a threaded process aborts qemu-user 7.2 (plugins/core.c qemu_plugin_vcpu_init_hook)"
	[driver/tests/test-ivshmem-server]="it starts the lab's ivshmem server, a program of the target: qemu-user cannot exec one without binfmt_misc"
	[tests/health/test-health]="a forked child of a threaded process aborts qemu-user 7.2 (plugins/core.c qemu_plugin_vcpu_init_hook)"
)
# Suites that need more address space than a 32-bit process has.
declare -A skip32=(
	[tests/core/test-open]="it opens all 256 node ids of one shm: network in one process, and each handle maps the network's whole event-queue area (about 70 MiB at the default depth): 256 of them do not fit a 32-bit address space"
)
# Every C suite that qemu-user runs: the big-endian host.
wide="tests/core/test-errors tests/core/test-version tests/core/test-uri tests/core/test-open tests/core/test-memory
tests/core/test-access tests/backends/shm/test-corrupt tests/backends/shm/test-nospc tests/core/test-multinode tests/core/test-open-race
tests/core/test-publish tests/core/test-fault tests/core/test-rt tests/backends/shm/test-hugepages tests/backends/shm/test-shm-hostile
tests/cxx/test-cxx tests/cxx/test-cxx-api
tests/events/test-events-api tests/events/test-events-xproc tests/events/test-events-segment
tests/events/test-events-stress tests/events/test-events-unregister
tests/layout/test-layout-parse tests/layout/test-layout-access tests/layout/test-layout-seqlock
tests/layout/test-layout-header tests/layout/test-layout-limits
tests/librfm2g/test-rfm2g-api tests/librfm2g/test-rfm2g-events tests/librfm2g/test-rfm2g-xproc
tests/librfm2g/test-rfm2g-threads tests/librfm2g/test-rfm2g-sites tests/librfm2g/test-rfm2g-one-librfm
tests/librfm2g/test-rfm2g-cxx
tests/rings/test-rings-api tests/rings/test-rings-xproc tests/health/test-health
tests/records/test-record-notify tests/rings/test-rings-damage tests/rings/test-rings-copies
tests/rings/test-rings-inspect tests/rings/test-rings-wire
tests/backends/dev/test-dev tests/events/test-events-nodes driver/tests/test-evq driver/tests/test-ivs-mbox
driver/tests/test-ivshmem-server"
# The core: byte order, layouts, rings, events, the segment (32-bit and arm64).
core="tests/core/test-errors tests/core/test-open tests/core/test-memory tests/core/test-access tests/backends/shm/test-corrupt
tests/layout/test-layout-access tests/layout/test-layout-header tests/events/test-events-api
tests/rings/test-rings-api tests/rings/test-rings-wire tests/rings/test-rings-inspect
tests/librfm2g/test-rfm2g-api"

# The mirror and suite of this machine's apt (deb822 or one-line sources).
apt_mirror() {
	local m
	m=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v security | head -n 1 || true)
	[ -n "$m" ] || m=$(sed -n 's/^deb  *\(\[[^]]*\] *\)\{0,1\}\([^ ]*\).*/\2/p' \
		/etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1 || true)
	echo "${m:-http://deb.debian.org/debian}"
}
apt_suite() {
	. /etc/os-release
	echo "${VERSION_CODENAME:-bookworm}"
}

# The packages of a sysroot: the library's build dependencies, and for
# s390x Cyclone DDS and libcrypto too (its dds: build meets a native node;
# idlc is the build machine's, its C output is portable).
sysroot_packages() {
	local p=libc6-dev,libstdc++6,libyaml-dev,libjson-c-dev,libcmocka-dev
	[ "$1" = s390x ] && p=$p,cyclonedds-dev,libddsc0debian,libssl-dev
	echo "$p"
}

sysroot() {
	local arch=$1 dir=$cross/sysroot-$1 pkgs
	pkgs=$(sysroot_packages "$arch")
	# .complete names the packages, so a sysroot made with fewer is remade.
	if [ "$(cat "$dir/.complete" 2>/dev/null)" != "$pkgs" ]; then
		rm -rf "$dir"
		echo "== sysroot $arch from $(apt_mirror) $(apt_suite)" >&2
		mmdebstrap --quiet --arch="$arch" --variant=extract --include="$pkgs" \
			"$(apt_suite)" "$dir" "$(apt_mirror)"
		# qemu -L looks up every path in the sysroot first: /dev, /tmp and
		# /run must be the machine's (shm: files, sockets of native peers).
		rm -rf "${dir:?}/dev" "$dir/tmp" "$dir/run" "$dir/proc" "$dir/sys"
		echo "$pkgs" >"$dir/.complete"
	fi
	echo "$dir"
}

# The dds: suites on the big-endian host: the backend's own test-dds and
# the shared suites (HARNESS_SHARED_SUITE, as run-dds-suites.sh finds
# them) on dds:. Their nodes are handles of one process (Cyclone on
# loopback, a domain of its own: the harness); cases that fork skip on
# dds: by the harness's table. Not test-dds-callbacks and test-dds-rogue:
# they posix_spawn a program of the target (node 2, the rogue publisher),
# which qemu-user cannot exec without binfmt_misc; nor test-dds-boot
# (eight emulated Cyclone processes, for the cost: the mixed test's s390x
# node joins a native one).
dds_suites() {
	local build=$1 qemu=$2 sr=$3 t shared status=0
	shared=$(cd "$srcdir" && grep -rl --include='*.c' --include='*.cc' '^HARNESS_SHARED_SUITE(' tests |
		sed 's/\.cc*$//' | sort)
	for t in tests/backends/dds/test-dds $shared; do
		if CROSS_QEMU="$qemu" CROSS_SYSROOT="$sr" CROSS_BUILD="$build" RFM_TEST_BACKEND=dds \
			"$srcdir/tests/cross/qemu-run.sh" "$build/$t" >"$build/$t.dds.out" 2>&1; then
			echo "PASS: $t (dds:, s390x)"
		else
			tail -n 30 "$build/$t.dds.out"
			echo "FAIL: $t (dds:, s390x)"
			status=1
		fi
	done
	return $status
}

run_arch() {
	local arch=$1 triplet multiarch qemu set sr build t why tests="" skipped=0 dds=--without-dds
	case $arch in
	s390x) triplet=s390x-linux-gnu qemu=qemu-s390x set=$wide dds="--with-dds IDLC=$(command -v idlc)" ;;
	arm64) triplet=aarch64-linux-gnu qemu=qemu-aarch64 set=$core ;;
	armhf) triplet=arm-linux-gnueabihf qemu=qemu-arm set=$core ;;
	i386) triplet=i686-linux-gnu qemu=qemu-i386 set=$core ;;
	*) echo "check-cross: unknown architecture '$arch' (s390x arm64 armhf i386)" >&2; return 2 ;;
	esac
	multiarch=$triplet
	[ "$arch" = i386 ] && multiarch=i386-linux-gnu
	sr=$(sysroot "$arch" | tail -n 1)
	build=$cross/build-$arch
	mkdir -p "$build"
	# .configured names the dds: choice, so a tree configured otherwise is redone.
	if [ ! -e "$build/Makefile" ] || [ "$(cat "$build/.configured" 2>/dev/null)" != "$dds" ]; then
		echo "== configure $arch ($triplet)"
		rm -f "$build/.configured"
		# shellcheck disable=SC2086 # $dds is words
		(cd "$build" && PKG_CONFIG_LIBDIR="$sr/usr/lib/$multiarch/pkgconfig:$sr/usr/share/pkgconfig" \
			PKG_CONFIG_SYSROOT_DIR="$sr" "$srcdir/configure" --quiet --host="$triplet" \
			--with-sysroot="$sr" CC="$triplet-gcc --sysroot=$sr" \
			CXX="$triplet-g++ --sysroot=$sr" $dds --disable-bindings-python \
			--disable-bindings-tcl --enable-werror >configure.out 2>&1) ||
			{ cat "$build/configure.out"; return 1; }
		echo "$dds" >"$build/.configured"
	fi
	for t in $set; do
		why=${skip[$t]:-}
		case $arch in armhf | i386) [ -n "$why" ] || why=${skip32[$t]:-} ;; esac
		if [ -n "$why" ]; then
			echo "SKIP: $t on $arch: $why"
			skipped=$((skipped + 1))
		else
			tests="$tests $t"
		fi
	done
	echo "== build and check $arch:$(echo "$tests" | wc -w) suites, $skipped skipped"
	nice make -C "$build" -j"$jobs" --no-print-directory >"$build/make.out" 2>&1 ||
		{ tail -n 40 "$build/make.out"; return 1; }
	nice make -C "$build" -j"$jobs" --no-print-directory check TESTS="$tests" \
		LAYOUT_GEN_HEADER="$native/tests/layout/layout-gen-header" \
		LOG_COMPILER="$srcdir/tests/cross/qemu-run.sh" TEST_SUITE_LOG=tests-cross.log \
		CROSS_QEMU="$qemu" CROSS_SYSROOT="$sr" CROSS_BUILD="$build" 2>&1 |
		grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS|XFAIL|# [A-Z]+:)' || true
	grep -q '^# FAIL: *0$' "$build/tests-cross.log" && grep -q '^# ERROR: *0$' "$build/tests-cross.log" ||
		{ echo "check-cross: $arch failed (see $build/tests-cross.log)"; return 1; }
	[ "$arch" = s390x ] && { dds_suites "$build" "$qemu" "$sr" || return 1; }
	# The mixed-host tests (tests/cross/mixed-hosts.sh): 32-bit beside 64-bit
	# on one shm: network; big-endian beside little-endian on one dds:
	# network (a shm: segment of the other byte order is refused by design).
	local backend
	case $arch in
	armhf | i386) backend=shm ;;
	s390x) backend=dds ;;
	*) return 0 ;;
	esac
	make -C "$build" --no-print-directory tests/cross/mixed-peer >/dev/null
	"$srcdir/tests/cross/mixed-hosts.sh" "$native" "$build" "$qemu" "$sr" "$arch" "$backend" ||
		{ echo "check-cross: mixed $backend: test on $arch failed"; return 1; }
}

# The build machine's generator for the generated-header test, and the
# native side of the mixed-host tests.
make -C "$native" --no-print-directory tests/layout/layout-gen-header tests/cross/mixed-peer \
	tools/rfm >/dev/null
status=0
for arch in $arches; do
	start=$(date +%s)
	run_arch "$arch" || status=1
	echo "== $arch: $(( $(date +%s) - start )) s"
done
exit $status
