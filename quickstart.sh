#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# One command from a fresh Debian 12 clone to a running system:
#   ./quickstart.sh demo    install what is needed, build, run a multi-node demo
#   ./quickstart.sh demo-hosts
#                           the same on two "hosts" (network namespaces, root)
#                           over dds: (Cyclone DDS), each with its own copy
#   ./quickstart.sh test    install what is needed, build, run every test suite
#                           (gcc -Werror, clang -Werror, ASan+UBSan, make distcheck)
#   ./quickstart.sh build   install what is needed and build into ./build
#   ./quickstart.sh package build the Debian packages into build-deb/
#   ./quickstart.sh install-check
#                           install those packages and use them as a user would:
#                           the tools, and programs built with pkg-config (C, C++)
#   ./quickstart.sh bench   build, then run the benchmark suite
#   ./quickstart.sh deps    only install the Debian packages
set -eu

cd "$(dirname "$0")"
top=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

# Debian packages, each for a reason. The demo needs only the build:
# the toolchain and autotools build it; json-c formats the CLI's --json
# output; libyaml parses layout files; libmicrohttpd serves rfm serve's page.
DEMO_PACKAGES="build-essential autoconf automake autoconf-archive libtool pkg-config
	libjson-c-dev libyaml-dev libmicrohttpd-dev"
# The tests need the rest: cmocka runs the C tests; python3-pytest runs the
# CLI and binding tests; clang is the second compiler CI builds with; swig,
# python3-dev and tcl-dev build the Python bindings and the Tcl one that
# shows the interface is neutral; valgrind runs make check-valgrind;
# python3-matplotlib draws the latency plot of bench/plot-latency.py (the
# README test runs it); doxygen writes the man pages and API reference
# (make doc); bash-completion says where the rfm tool's completion goes;
# linux-headers build the kernel module, and QEMU, busybox and cpio boot the
# virtual lab where two guests run it on a virtual RFM card (make vm-check);
# linux-headers-6.12-amd64 too, so make driver-check builds rfm.ko for both
# of Debian 12's kernels (6.1 and 6.12); linux-headers-rt-amd64 (6.1) and
# linux-headers-6.12-rt-amd64 build it for their PREEMPT_RT flavours too,
# and linux-image-rt-amd64 and linux-image-6.12-rt-amd64 are those kernels,
# booted by make vm-stress and vm-check-rt (vm-run.sh takes them from /boot);
# sparse checks the driver there.
# iceoryx and its C binding are what bench-rings compares rings against.
# stress-ng is the CPU and memory load of make bench-jitter (real-time options under load).
# chromium, chromium-driver and python3-selenium drive rfm serve's page in a
# headless browser (tests/cli/test_serve_browser.py, make monitor-screenshot).
# gcc-i686-linux-gnu and libc6-dev-i386-cross (its C library, only
# recommended) build the static 32-bit program with which make vm-stress
# checks rfm.ko's compat_ioctl path (driver/lab/guest/vmcompat.c);
# gcc-i686-linux-gnu is also make check-cross's i386 compiler;
# g++-i686-linux-gnu, g++-s390x-linux-gnu, g++-aarch64-linux-gnu and
# g++-arm-linux-gnueabihf (with their gcc) cross-build librfm for
# make check-cross, mmdebstrap makes its sysroots from Debian's archive and
# qemu-user runs the suites (s390x: big-endian; armhf, i386: 32-bit);
# linux-source-6.1 is where Debian ships checkpatch.pl (inside its tarball),
# which make driver-check runs on rfm.ko's sources.
# cyclonedds-dev (Cyclone DDS's C library) and cyclonedds-tools (its idlc
# compiles src/backends/dds/dds-wire.idl; ddsperf is the dds: benchmark's
# yardstick) build and test the dds: backend, several hosts without cards;
# iproute2 makes the network namespaces of its multi-host tests.
# openssl makes the DDS Security files (a CA, node certificates, signed
# governance and permissions) of the authenticated dds: networks' tests.
# curl asks rfm serve's API in the README's example (the README test runs it).
# prometheus scrapes rfm serve in its tests; its promtool checks /metrics and
# examples/prometheus/rfm-alerts.yml (tests/cli/test_serve_prometheus.py).
# cmake builds examples/rfm2g against an installed tree with the CMake
# packages (find_package(rfm), tests/librfm2g/test-rfm2g-installed.sh).
# llvm (llvm-dlltool) makes librfm.lib, the Windows DLL's import library for
# Visual Studio; clang's clang-cl, lld (lld-link) and libwine-dev (wine's
# MSVC-compatible C headers) build the Visual Studio program of make
# check-windows and compile the public headers in MSVC mode.
TEST_PACKAGES="libcmocka-dev python3 python3-pytest python3-matplotlib clang
	cyclonedds-dev cyclonedds-tools iproute2 cmake
	swig python3-dev tcl-dev valgrind doxygen bash-completion
	linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-rt-amd64 linux-headers-6.12-rt-amd64
	linux-image-rt-amd64 linux-image-6.12-rt-amd64
	sparse qemu-system-x86 busybox-static cpio
	iceoryx libiceoryx-binding-c-dev stress-ng chromium chromium-driver python3-selenium
	gcc-i686-linux-gnu libc6-dev-i386-cross g++-i686-linux-gnu g++-s390x-linux-gnu
	g++-aarch64-linux-gnu g++-arm-linux-gnueabihf mmdebstrap qemu-user linux-source-6.1
	curl prometheus openssl llvm lld libwine-dev"
PACKAGES="$DEMO_PACKAGES $TEST_PACKAGES"

# The lab's suites each end with "NAME: N passed, N failed" (NAME may be
# a program or script name: vmtest, vmstress.sh, dev-suite.sh).
lab_count() {
	grep -E '^[a-z][a-z0-9.-]*: [0-9]+ passed, [0-9]+ failed' "$1" || true
	for n in $(sed -n 's/^[a-z][a-z0-9.-]*: \([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p' "$1"); do
		total_pass=$((total_pass + n))
	done
}

# lab_run TARGET: make TARGET into build/TARGET.out, its suites counted.
lab_run() {
	vm_status=0
	make -C build "$1" >"build/$1.out" 2>&1 || vm_status=$?
	lab_count "build/$1.out"
	if [ $vm_status -ne 0 ]; then
		tail -60 "build/$1.out"
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	fi
}

say() { printf '\n== %s\n' "$*"; }

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "quickstart: need root or sudo to run: $*" >&2
		exit 1
	fi
}

# deps [PACKAGES]: install those of the list (default: all) that are missing.
deps() {
	missing=""
	for p in ${1:-$PACKAGES}; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		say "Debian packages: all present"
		return
	fi
	say "installing Debian packages:$missing"
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

bootstrap() {
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		say "bootstrapping (autoreconf)"
		./autogen.sh >/dev/null 2>&1 || ./autogen.sh
	fi
}

# configure_and_build DIR [configure args...]
configure_and_build() {
	dir=$1
	shift
	mkdir -p "$dir"
	(cd "$dir" && "$top/configure" --enable-werror "$@" >configure.out 2>&1) || {
		cat "$dir/configure.out"
		exit 1
	}
	sed -n '/^librfm /,$p' "$dir/configure.out"
	make -C "$dir" -j"$jobs" >/dev/null
}

build() {
	deps
	bootstrap
	say "building (gcc, -Werror) in build/"
	configure_and_build build
}

total_pass=0
total_fail=0
total_skip=0

# check DIR LABEL: make check, then fold its counts into the totals.
check() {
	say "make check: $2"
	status=0
	make -C "$1" -j"$jobs" check >"$1/check.out" 2>&1 || status=$?
	grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):' "$1/check.out" || true
	log="$1/test-suite.log"
	if [ -f "$log" ]; then
		pass=$(sed -n 's/^# PASS: *//p' "$log")
		fail=$(sed -n 's/^# FAIL: *//p' "$log")
		error=$(sed -n 's/^# ERROR: *//p' "$log")
		skip=$(sed -n 's/^# SKIP: *//p' "$log")
		total_pass=$((total_pass + ${pass:-0}))
		total_fail=$((total_fail + ${fail:-0} + ${error:-0}))
		total_skip=$((total_skip + ${skip:-0}))
	fi
	if [ $status -ne 0 ]; then
		[ -f "$log" ] && cat "$log" || tail -50 "$1/check.out"
		echo "test: $total_pass passed, $((total_fail > 0 ? total_fail : 1)) failed, $total_skip skipped"
		exit 1
	fi
}

# make check-windows: librfm cross-built for Windows x64 and its suites
# under wine (tests/windows/check-windows.sh), timed.
check_windows() {
	say "make check-windows: the Windows build (mingw-w64) and its suites under wine"
	/usr/bin/time -f 'check-windows: %e s wall, %U+%S s cpu' -o build/check-windows.time \
		make -C build check-windows >build/check-windows.out 2>&1 || {
		tail -60 build/check-windows.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep -E '^(SKIP|FAIL|  .*SKIP)' build/check-windows.out || true
	grep -E '^check-windows: ' build/check-windows.out build/check-windows.time | sed 's/^[^:]*://'
	total_pass=$((total_pass + $(grep -c '^PASS:' build/check-windows.out || true)))
	total_skip=$((total_skip + $(grep -c '^SKIP:' build/check-windows.out || true)))
}

run_tests() {
	build
	check build "gcc"

	say "building (clang, -Werror) in build-clang/"
	configure_and_build build-clang CC=clang CXX=clang++
	check build-clang "clang"

	say "building (ASan + UBSan) in build-asan/"
	san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
	configure_and_build build-asan CFLAGS="-O1 -g $san" CXXFLAGS="-O1 -g $san" LDFLAGS="$san"
	export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
	check build-asan "ASan + UBSan"

	say "hostile co-tenants, ASan build (make check-hostile)"
	make -C build-asan check-hostile >build-asan/hostile.out 2>&1 || {
		cat build-asan/hostile.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep -E '^hostile: ([a-z-]+: [0-9]+ scribbles|[0-9]+ passed)' build-asan/hostile.out
	hostile_pass=$(sed -n 's/^hostile: \([0-9][0-9]*\) passed.*/\1/p' build-asan/hostile.out)
	total_pass=$((total_pass + ${hostile_pass:-0}))

	say "building (TSan) in build-tsan/"
	# -Wno-tsan: the public API's fences are meant for callers; the library's
	# own synchronisation uses atomics that TSan models.
	configure_and_build build-tsan CFLAGS="-O1 -g -fsanitize=thread -Wno-tsan" \
		LDFLAGS="-fsanitize=thread" --disable-bindings-python --disable-bindings-tcl
	# Tests fork children from threaded processes; TSan's default kills those.
	export TSAN_OPTIONS=die_after_fork=0
	check build-tsan "TSan"

	say "valgrind memcheck (make check-valgrind)"
	make -C build check-valgrind >build/valgrind.out 2>&1 || {
		tail -40 build/valgrind.out
		[ -f build/tests-valgrind.log ] && cat build/tests-valgrind.log
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep -E '^(PASS|FAIL|ERROR):' build/valgrind.out || true
	vg_pass=$(sed -n 's/^# PASS: *//p' build/tests-valgrind.log)
	total_pass=$((total_pass + ${vg_pass:-0}))

	say "load test: 16 processes for ${LOAD_SECONDS:-60} s (make check-load)"
	make -C build check-load LOAD_SECONDS="${LOAD_SECONDS:-60}" >build/load.out 2>&1 || {
		cat build/load.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep '^load:' build/load.out
	load_pass=$(sed -n 's/^load: \([0-9][0-9]*\) passed.*/\1/p' build/load.out)
	total_pass=$((total_pass + ${load_pass:-0}))

	say "fuzzing: each libFuzzer harness for ${FUZZ_SECONDS:-15} s (make fuzz)"
	make -C build fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-15}" >build/fuzz.out 2>&1 || {
		tail -60 build/fuzz.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep -E '^fuzzing |number_of_executed_units' build/fuzz.out || true

	say "dds: against ddsperf and raw UDP across two namespaces, a short run (make bench-dds)"
	make -C build bench-dds BENCH_DDS_ARGS="--seconds 3 --count 2000 --writes 20000" \
		>build/bench-dds.out 2>&1 || {
		cat build/bench-dds.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep -E '^(bench-hosts: skipped|  [a-z]|round trip P50|throughput, )' build/bench-dds.out || true

	say "make check-cross: C suites for s390x (big-endian), arm64, armhf and i386 (32-bit) under qemu-user; mixed hosts (s390x beside x86-64 on dds:, i386 and armhf beside x86-64 on shm:)"
	make -C build check-cross RFM_CROSS_DIR="$PWD/build-cross" >build/check-cross.out 2>&1 || {
		grep -E '^(FAIL|ERROR|check-cross:)' build/check-cross.out || tail -60 build/check-cross.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep -E '^(SKIP|PASS: mixed|== [a-z0-9]+: [0-9]+ s|== build)' build/check-cross.out || true
	total_pass=$((total_pass + $(grep -c '^PASS:' build/check-cross.out || true)))
	total_skip=$((total_skip + $(grep -c '^SKIP:' build/check-cross.out || true)))

	check_windows

	say "make doc: a man page for every exported function"
	make -C build doc >build/doc.out 2>&1 || {
		tail -20 build/doc.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	tail -1 build/doc.out

	say "make distcheck"
	make -C build distcheck >build/distcheck.out 2>&1 || {
		tail -60 build/distcheck.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep -E 'archives ready' build/distcheck.out | head -3

	say "make driver-check: rfm.ko against every installed kernel's headers, W=1"
	make -C build driver-check >build/driver-check.out 2>&1 || {
		tail -60 build/driver-check.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	grep '^driver-check:' build/driver-check.out
	dc_pass=$(sed -n 's/^driver-check: \([0-9][0-9]*\) passed.*/\1/p' build/driver-check.out)
	total_pass=$((total_pass + ${dc_pass:-0}))

	say "make vm-stress: rfm.ko removal under load, reloads, permissions, a foreign ivshmem device, on every kernel (RT too)"
	make -C build vm-stress >build/vm-stress.out 2>&1 || {
		tail -60 build/vm-stress.out
		echo "test: $total_pass passed, 1 failed, $total_skip skipped"
		exit 1
	}
	lab_count build/vm-stress.out

	say "make vm-check: rfm.ko in two QEMU guests on a virtual RFM card"
	lab_run vm-check
	say "make vm-check-rt: the same in PREEMPT_RT guests, and the RT smoke test"
	lab_run vm-check-rt
	# The RT guest's jitter and event ping: figures under emulation (TCG),
	# printed to show the path works on PREEMPT_RT; as latencies they mean nothing.
	grep '^bench: rt guest' build/vm-check-rt.out || true

	echo
	echo "test: $total_pass passed, $total_fail failed, $total_skip skipped"
}

# The packages are built from the files git tracks, as they are in the work tree.
package() {
	deps
	for p in debhelper dpkg-dev fakeroot dh-python dh-dkms doxygen bash-completion; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			PACKAGING_MISSING="${PACKAGING_MISSING:-} $p"
	done
	if [ -n "${PACKAGING_MISSING:-}" ]; then
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $PACKAGING_MISSING
	fi
	say "building Debian packages in build-deb/"
	rm -rf build-deb
	mkdir -p build-deb/librfm
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C build-deb/librfm
	(cd build-deb/librfm && dpkg-buildpackage -us -uc -b >../dpkg-buildpackage.out 2>&1) || {
		tail -60 build-deb/dpkg-buildpackage.out
		exit 1
	}
	ls build-deb/*.deb
}

install_check() {
	say "installing the packages"
	as_root dpkg -i build-deb/librfm1_*.deb build-deb/librfm2g0_*.deb build-deb/librfm-dev_*.deb \
		build-deb/rfm-tools_*.deb build-deb/python3-rfm_*.deb
	out=build-deb/installed
	rm -rf "$out"
	mkdir -p "$out/tools" "$out/examples"
	ln -s /usr/bin/rfm "$out/tools/rfm"
	say "building the examples against the installed library (pkg-config rfm)"
	flags=$(pkg-config --cflags --libs rfm)
	for e in minimal publish-sender publish-receiver; do
		cc -Wall -Wextra -Werror examples/$e.c $flags -lm -o "$out/examples/$e"
	done
	c++ -std=c++17 -Wall -Wextra -Werror -x c++ examples/minimal.c $flags -o "$out/examples/minimal-cxx"
	c++ -std=c++17 -Wall -Wextra -Werror examples/cxx/two-node.cc $flags -o "$out/examples/two-node"
	rfm --version
	say "the manuals: man rfm, rfm-layout(5), rfm_open(3)"
	man -w rfm rfm-layout rfm_open
	test -f "$(pkg-config --variable=completionsdir bash-completion 2>/dev/null ||
		echo /usr/share/bash-completion/completions)/rfm"
	"$out/examples/minimal" "shm:install-check-$$?size=4K"
	"$out/examples/minimal-cxx" "shm:install-check-$$"
	TWO_NODE="$out/examples/two-node" sh tests/cxx/run-two-node.sh
	say "an RFM2g program built against the installed compatibility library (pkg-config rfm2g)"
	cc -Wall -Wextra -Werror examples/rfm2g/rfm2g-echo.c $(pkg-config --cflags --libs rfm2g) \
		-o "$out/examples/rfm2g-echo"
	# librfm2g uses the installed librfm.so.1, not a copy of its own.
	ldd "$out/examples/rfm2g-echo" | grep -q 'librfm\.so\.1 => /'
	readelf -d "$(ldd "$out/examples/rfm2g-echo" | sed -n 's/.*librfm2g\.so\.0 => \([^ ]*\).*/\1/p')" |
		grep -q 'NEEDED.*\[librfm\.so\.1\]'
	say "the installed Python package"
	(cd / && /usr/bin/python3 -c "
import rfm
with rfm.open('shm:install-check-$$') as node:
    node.poke32(16, 0xfeed)
    assert node.peek32(16) == 0xfeed
    print('python3-rfm', rfm.version, 'node', node.node_id, 'ok')
")
	rfm -u "shm:install-check-$$" destroy
	say "the demo, from the installed tools and library"
	examples/demo.sh "$out" 500
}

case "${1:-}" in
deps) deps ;;
package) package ;;
install-check) install_check ;;
build) build ;;
demo)
	# Only what the demo needs: no test suites (their packages are test's).
	deps "$DEMO_PACKAGES"
	bootstrap
	say "building (gcc, -Werror) in build/"
	configure_and_build build --disable-tests
	say "demo: three nodes on the emulated network"
	examples/demo.sh build
	;;
demo-hosts)
	# The demo's packages, Cyclone DDS (the library, and idlc for the wire
	# types) for the dds: backend, iproute2 for the hosts' namespaces.
	deps "$DEMO_PACKAGES cyclonedds-dev cyclonedds-tools iproute2"
	bootstrap
	say "building (gcc, -Werror) in build/"
	configure_and_build build --disable-tests --with-dds
	say "demo-hosts: a simulator and its controller on two hosts over dds:"
	as_root examples/demo-hosts.sh build
	;;
test) run_tests ;;
bench)
	build
	say "benchmarks (medians and ratios against raw baselines, measured in this run)"
	# Every benchmark, bench-serve and bench-jitter (idle and under stress-ng) last.
	make -C build bench
	;;
*)
	# The usage is the comment at the top, from its fourth line.
	sed -n '4,/^set -eu/s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac
