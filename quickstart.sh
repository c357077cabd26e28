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
# output; libyaml parses layout files; libmicrohttpd serves rfm serve's page;
# libhdf5-dev writes and replays recordings (rfm record, rfm replay).
# The README's next steps after the demo use the Python package: swig and
# python3-dev build its extension, python3-venv, python3-setuptools and
# python3-wheel install it with pip into a venv (offline: Debian's, through
# --system-site-packages), python3-pytest runs the example bench with its plugin.
# python3-h5py, python3-numpy and python3-pandas read recordings back
# (rfm.recording, the README's recording example); python3-matplotlib draws
# them (rfm plot).
DEMO_PACKAGES="build-essential autoconf automake autoconf-archive libtool pkg-config
	libjson-c-dev libyaml-dev libmicrohttpd-dev libhdf5-dev
	swig python3-dev python3-venv python3-setuptools python3-wheel python3-pytest
	python3-h5py python3-numpy python3-pandas python3-matplotlib"
# The tests need the rest: cmocka runs the C tests; python3-pytest runs the
# CLI and binding tests; python3-mypy type-checks the Python package, its
# tests and examples (make check-mypy); clang is the second compiler CI builds with; swig,
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
# libssl-dev (OpenSSL's libcrypto, which Cyclone's security plugins use
# too) checks a dds: node's security=DIR files before Cyclone takes them,
# so that a bad one is named with why.
# openssl makes the DDS Security files (a CA, node certificates, signed
# governance and permissions) of the authenticated dds: networks' tests.
# curl asks rfm serve's API in the README's example (the README test runs it).
# prometheus scrapes rfm serve in its tests; its promtool checks /metrics and
# examples/prometheus/rfm-alerts.yml (tests/cli/test_serve_prometheus.py).
# cmake builds examples/rfm2g against an installed tree with the CMake
# packages (find_package(rfm), tests/librfm2g/test-rfm2g-installed.sh).
# hdf5-tools' h5dump, h5ls and h5clear are the documented way to look into
# a recording and to mark one left by a crash as closed (docs/recording.md).
# groff-base and man-db check that the manual pages render without a
# warning and that apropos finds them (tests/docs/check-man-pages.sh, make doc).
# Windows x64 builds: gcc-mingw-w64-x86-64-posix and g++-mingw-w64-x86-64-posix
# are mingw-w64's compilers in the posix threads flavour (libwinpthread,
# std::thread); mingw-w64-tools has the x86_64-w64-mingw32-pkg-config that a
# --host=x86_64-w64-mingw32 configure looks for; dpkg-dev's dpkg-source
# unpacks the Debian source packages that build-aux/win-deps.sh cross-builds
# (libyaml, json-c, cmocka, libmicrohttpd, openssl) into its cache outside
# the clone, ninja-build runs its CMake builds (Cyclone DDS among them); wine
# and wine64 run the Windows programs and suites (build-aux/win-env.sh).
# llvm (llvm-dlltool) makes librfm.lib, the Windows DLL's import library for
# Visual Studio; clang's clang-cl, lld (lld-link) and libwine-dev (wine's
# MSVC-compatible C headers) build the Visual Studio program of make
# check-windows and compile the public headers in MSVC mode.
TEST_PACKAGES="libcmocka-dev python3 python3-pytest python3-mypy clang
	hdf5-tools
	cyclonedds-dev cyclonedds-tools libssl-dev iproute2 cmake
	swig python3-dev tcl-dev valgrind doxygen bash-completion
	linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-rt-amd64 linux-headers-6.12-rt-amd64
	linux-image-rt-amd64 linux-image-6.12-rt-amd64
	sparse qemu-system-x86 busybox-static cpio
	iceoryx libiceoryx-binding-c-dev stress-ng chromium chromium-driver python3-selenium
	gcc-i686-linux-gnu libc6-dev-i386-cross g++-i686-linux-gnu g++-s390x-linux-gnu
	g++-aarch64-linux-gnu g++-arm-linux-gnueabihf mmdebstrap qemu-user linux-source-6.1
	curl prometheus openssl groff-base man-db
	gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix mingw-w64-tools dpkg-dev ninja-build
	wine wine64 llvm lld libwine-dev"
PACKAGES="$DEMO_PACKAGES $TEST_PACKAGES"

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

# ---- ./quickstart.sh test: every suite, in lanes that run side by side ----
#
# Many suites wait more than they compute (peers, timeouts, discovery,
# guests booting), so the steps run in lanes, side by side; a lane is a
# chain of steps where each needs what the one before made:
#   gcc       make check, then what reads the gcc build: load, fuzz,
#             bench-dds, check-cross, doc, distcheck, the driver and its labs
#   valgrind  memcheck over the gcc build, once that make check built it
#   tree      checks of the tree rather than of one compiler's build, run
#             once after the gcc make check: the Python package installed
#             with pip into a fresh venv and its example bench run with the
#             plugin there; mypy over the package, its tests and examples;
#             the README followed top to bottom in a fresh clone
#   san       clang, ASan+UBSan with the hostile co-tenants, TSan (builds
#             of their own)
#   windows   librfm, rfm.exe and rfm2g.dll cross-built for Windows x64 with
#             mingw-w64 in one build directory: the C suites and RFM2g
#             programs under wine (make check-windows), a Windows and a
#             Linux node on one dds: network (make check-windows-dds), the
#             CLI suite against rfm.exe (make check-windows-tools); the
#             dependencies come from build-aux/win-deps.sh's cache outside
#             the clone, built on the first run
# A step's output goes to build/ci/STEP.out and its wall and CPU seconds to
# build/ci/STEP.time; a line says when it ends. Once every lane has ended,
# the steps are summed up in a fixed order and a failure is shown in full.
ci=build/ci

# step NAME COMMAND...: one step of a lane; a failed step ends its lane.
step() {
	name=$1
	shift
	echo "-- $name: started $(date +%T)"
	start=$(date +%s)
	rc=0
	(
		status=0
		"$@" >"$ci/$name.out" 2>&1 </dev/null || status=$?
		# The second line of `times` (not in a pipe: that would be a
		# process of its own): the CPU seconds, user and system, of every
		# process this step waited for.
		times >"$ci/$name.cpu"
		exit $status
	) || rc=$?
	cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); sub("s", "", t[2]); n += t[1] * 60 + t[2] } printf "%d", n }' "$ci/$name.cpu" 2>/dev/null || true)
	cpu=${cpu:-?}
	echo "$(($(date +%s) - start)) $cpu" >"$ci/$name.time"
	if [ $rc -eq 0 ]; then
		echo "-- $name: passed ($(cut -d' ' -f1 "$ci/$name.time") s, $cpu s CPU)"
	else
		echo "-- $name: FAILED, exit $rc ($(cut -d' ' -f1 "$ci/$name.time") s)"
		echo "$name" >>"$ci/failed"
	fi
	return $rc
}

asan_flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

check_in() { make -C "$1" -j"$jobs" check; }
build_clang() { configure_and_build build-clang CC=clang CXX=clang++; }
build_asan() {
	configure_and_build build-asan CFLAGS="-O1 -g $asan_flags" \
		CXXFLAGS="-O1 -g $asan_flags" LDFLAGS="$asan_flags"
}
# -Wno-tsan: the public API's fences are meant for callers; the library's
# own synchronisation uses atomics that TSan models.
build_tsan() {
	configure_and_build build-tsan CFLAGS="-O1 -g -fsanitize=thread -Wno-tsan" \
		LDFLAGS="-fsanitize=thread" --disable-bindings-python --disable-bindings-tcl
}

lane_san() {
	step build-clang build_clang &&
		step check-clang check_in build-clang &&
		step build-asan build_asan &&
		(
			export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
			step check-asan check_in build-asan &&
				step hostile make -C build-asan check-hostile
		) &&
		step build-tsan build_tsan &&
		(
			# Tests fork children from threaded processes; TSan's default kills those.
			export TSAN_OPTIONS=die_after_fork=0
			step check-tsan check_in build-tsan
		)
}

lane_gcc() {
	step check-gcc check_in build || return 1
	step valgrind make -C build check-valgrind &
	valgrind_pid=$!
	lane_tree &
	tree_pid=$!
	lane_status=0
	{
		step load make -C build check-load LOAD_SECONDS="${LOAD_SECONDS:-60}" &&
			step fuzz make -C build fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-15}" &&
			step bench-dds make -C build bench-dds \
				BENCH_DDS_ARGS="--seconds 3 --count 2000 --writes 20000" &&
			step check-cross make -C build check-cross RFM_CROSS_DIR="$PWD/build-cross" \
				RFM_CROSS_SYSROOTS="${XDG_CACHE_HOME:-$HOME/.cache}/librfm/cross" &&
			step doc make -C build doc &&
			step distcheck make -C build distcheck &&
			step driver-check make -C build driver-check &&
			step vm-stress make -C build vm-stress &&
			step vm-check make -C build vm-check &&
			step vm-check-rt make -C build vm-check-rt
	} || lane_status=1
	wait $valgrind_pid || lane_status=1
	wait $tree_pid || lane_status=1
	return $lane_status
}

# The three share one Windows build directory (build/build-win), so they
# run one after another.
lane_windows() {
	step check-windows make -C build check-windows &&
		step check-windows-dds make -C build check-windows-dds &&
		step check-windows-tools make -C build check-windows-tools
}

lane_tree() {
	step check-python-install make -C build check-python-install &&
		step check-mypy make -C build check-mypy &&
		step check-readme make -C build check-readme
}

total_pass=0
total_fail=0
total_skip=0

# tally_suite DIR LOG: fold an Automake test-suite log's counts into the totals.
tally_suite() {
	log="$1/$2"
	[ -f "$log" ] || return 0
	pass=$(sed -n 's/^# PASS: *//p' "$log")
	fail=$(sed -n 's/^# FAIL: *//p' "$log")
	error=$(sed -n 's/^# ERROR: *//p' "$log")
	skip=$(sed -n 's/^# SKIP: *//p' "$log")
	total_pass=$((total_pass + ${pass:-0}))
	total_fail=$((total_fail + ${fail:-0} + ${error:-0}))
	total_skip=$((total_skip + ${skip:-0}))
}

# count_lab OUT: the lab's suites each end with "NAME: N passed, N failed"
# (NAME may be a program or script name: vmtest, vmstress.sh, dev-suite.sh).
count_lab() {
	grep -E '^[a-z][a-z0-9.-]*: [0-9]+ passed, [0-9]+ failed' "$1" || true
	for n in $(sed -n 's/^[a-z][a-z0-9.-]*: \([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p' "$1"); do
		total_pass=$((total_pass + n))
	done
}

# check_dir STEP: the build directory of a make check step.
check_dir() {
	case $1 in
	check-gcc) echo build ;;
	*) echo "build-${1#check-}" ;;
	esac
}

# summarize STEP TITLE: what the step found, its counts folded into the totals.
summarize() {
	out="$ci/$1.out"
	[ -f "$out" ] || return 0
	say "$2 ($(cut -d' ' -f1 "$ci/$1.time" 2>/dev/null || echo '?') s, $(cut -d' ' -f2 "$ci/$1.time" 2>/dev/null || echo '?') s CPU)"
	case $1 in
	build-*) sed -n '/^librfm /,$p' "$out" | head -40 ;;
	check-python-install | check-mypy | check-readme)
		grep -E '^(SKIP|FAIL|[a-z-]+: [0-9]+ passed, [0-9]+ failed)' "$out" || true
		for n in $(sed -n 's/^[a-z-]*: \([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p' "$out"); do
			total_pass=$((total_pass + n))
		done
		;;
	check-cross)
		grep -E '^(SKIP|PASS: mixed|== [a-z0-9]+: [0-9]+ s|== build)' "$out" || true
		total_pass=$((total_pass + $(grep -c '^PASS:' "$out" || true)))
		total_skip=$((total_skip + $(grep -c '^SKIP:' "$out" || true)))
		;;
	check-gcc | check-clang | check-asan | check-tsan)
		grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):' "$out" || true
		tally_suite "$(check_dir "$1")" test-suite.log
		;;
	check-windows)
		# Each program's verdict, and every skipped case with its reason.
		grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):|^  ' "$out" || true
		tally_suite build/build-win test-suite.log
		;;
	check-windows-dds)
		grep -E '^(FAIL|SKIP)|^check-windows-dds: [0-9]+ passed' "$out" || true
		n=$(sed -n 's/^check-windows-dds: \([0-9][0-9]*\) passed.*/\1/p' "$out")
		total_pass=$((total_pass + ${n:-0}))
		;;
	check-windows-tools)
		# The suite's skips, each with its reason, and the counts.
		grep -E '^  SKIPPED|^check-windows-tools: ' "$out" || true
		n=$(sed -n 's/^check-windows-tools: \([0-9][0-9]*\) passed.*/\1/p' "$out")
		total_pass=$((total_pass + ${n:-0}))
		n=$(sed -n 's/^check-windows-tools: .* \([0-9][0-9]*\) skipped.*/\1/p' "$out")
		total_skip=$((total_skip + ${n:-0}))
		;;
	hostile)
		grep -E '^hostile: ([a-z-]+: [0-9]+ scribbles|[0-9]+ passed)' "$out" || true
		n=$(sed -n 's/^hostile: \([0-9][0-9]*\) passed.*/\1/p' "$out")
		total_pass=$((total_pass + ${n:-0}))
		;;
	valgrind)
		grep -E '^(PASS|FAIL|ERROR):' "$out" || true
		tally_suite build tests-valgrind.log
		;;
	load)
		grep '^load:' "$out" || true
		n=$(sed -n 's/^load: \([0-9][0-9]*\) passed.*/\1/p' "$out")
		total_pass=$((total_pass + ${n:-0}))
		;;
	fuzz) grep -E '^fuzzing |number_of_executed_units' "$out" || true ;;
	bench-dds) grep -E '^(bench-hosts: skipped|  [a-z]|round trip P50|throughput, )' "$out" || true ;;
	doc) tail -1 "$out" ;;
	distcheck) grep -E 'archives ready' "$out" | head -3 ;;
	driver-check)
		grep '^driver-check:' "$out" || true
		n=$(sed -n 's/^driver-check: \([0-9][0-9]*\) passed.*/\1/p' "$out")
		total_pass=$((total_pass + ${n:-0}))
		;;
	vm-*)
		count_lab "$out"
		# The RT guest's jitter and event ping: figures under emulation
		# (TCG), printed to show the path works on PREEMPT_RT; as
		# latencies they mean nothing.
		grep '^bench: rt guest' "$out" || true
		;;
	esac
}

# show_failure STEP: the whole story of a failed step.
show_failure() {
	out="$ci/$1.out"
	say "FAILED: $1"
	case $1 in
	check-cross) grep -E '^(FAIL|ERROR|check-cross:)' "$out" || tail -60 "$out" ;;
	check-windows)
		[ -f build/build-win/test-suite.log ] && cat build/build-win/test-suite.log || tail -60 "$out"
		;;
	check-gcc | check-clang | check-asan | check-tsan)
		dir=$(check_dir "$1")
		[ -f "$dir/test-suite.log" ] && cat "$dir/test-suite.log" || tail -50 "$out"
		;;
	valgrind)
		tail -40 "$out"
		[ -f build/tests-valgrind.log ] && cat build/tests-valgrind.log
		;;
	hostile | load) cat "$out" ;;
	*) tail -60 "$out" ;;
	esac
}

run_tests() {
	build
	rm -rf "$ci"
	mkdir -p "$ci"
	say "the suites, in lanes side by side (each step's output in $ci/)"
	lane_gcc &
	gcc_pid=$!
	lane_san &
	san_pid=$!
	lane_windows &
	windows_pid=$!
	lanes_status=0
	wait $gcc_pid || lanes_status=1
	wait $san_pid || lanes_status=1
	wait $windows_pid || lanes_status=1

	summarize check-gcc "make check: gcc"
	summarize check-python-install "make check-python-install: pip install into a fresh venv, the example bench with the plugin"
	summarize check-mypy "make check-mypy"
	summarize check-readme "make check-readme: the README top to bottom in a fresh clone"
	summarize valgrind "valgrind memcheck (make check-valgrind)"
	summarize load "load test: 16 processes for ${LOAD_SECONDS:-60} s (make check-load)"
	summarize fuzz "fuzzing: each libFuzzer harness for ${FUZZ_SECONDS:-15} s (make fuzz)"
	summarize bench-dds "dds: against ddsperf and raw UDP across two namespaces, a short run (make bench-dds)"
	summarize check-cross "make check-cross: C suites for s390x (big-endian), arm64, armhf and i386 (32-bit) under qemu-user; mixed hosts (s390x beside x86-64 on dds:, i386 and armhf beside x86-64 on shm:)"
	summarize doc "make doc: a man page for every exported function"
	summarize distcheck "make distcheck"
	summarize driver-check "make driver-check: rfm.ko against every installed kernel's headers, W=1"
	summarize vm-stress "make vm-stress: rfm.ko removal under load, reloads, permissions, a foreign ivshmem device, on every kernel (RT too)"
	summarize vm-check "make vm-check: rfm.ko in two QEMU guests on a virtual RFM card"
	summarize vm-check-rt "make vm-check-rt: the same in PREEMPT_RT guests, and the RT smoke test"
	summarize build-clang "building (clang, -Werror) in build-clang/"
	summarize check-clang "make check: clang"
	summarize build-asan "building (ASan + UBSan) in build-asan/"
	summarize check-asan "make check: ASan + UBSan"
	summarize hostile "hostile co-tenants, ASan build (make check-hostile)"
	summarize build-tsan "building (TSan) in build-tsan/"
	summarize check-tsan "make check: TSan"
	summarize check-windows "make check-windows: librfm for Windows x64 (mingw-w64), its C suites and RFM2g programs under wine"
	summarize check-windows-dds "make check-windows-dds: a Windows node under wine and a Linux node on one dds: network, plain and secured"
	summarize check-windows-tools "make check-windows-tools: the CLI suite against rfm.exe under wine"

	say "steps: wall and CPU seconds"
	for t in "$ci"/*.time; do
		printf '  %-22s %5s s wall %5s s CPU\n' "$(basename "$t" .time)" $(cat "$t")
	done

	if [ $lanes_status -ne 0 ] || [ -s "$ci/failed" ]; then
		for f in $(cat "$ci/failed" 2>/dev/null); do
			show_failure "$f"
		done
		echo "test: $total_pass passed, $((total_fail > 0 ? total_fail : 1)) failed, $total_skip skipped"
		exit 1
	fi
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
	as_root dpkg -i build-deb/librfm1_*.deb build-deb/librfm1-hdf5_*.deb build-deb/librfm2g0_*.deb \
		build-deb/librfm-dev_*.deb build-deb/rfm-tools_*.deb build-deb/python3-rfm_*.deb
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
	say "librfm without HDF5; an HDF5 recording through librfm1-hdf5's module, replayed"
	if ldd "$(ldconfig -p | sed -n 's/.*librfm\.so\.1 .*=> //p' | head -n 1)" | grep hdf5; then
		echo "quickstart: the installed librfm.so.1 brings libhdf5 (above)" >&2
		exit 1
	fi
	rfm -u "shm:install-check-$$?node=3&size=64K" record --bytes raw=0:16 --rate 100 \
		--duration 0.05 -o "$out/run.h5"
	rfm -u "shm:install-check-$$?node=3" replay "$out/run.h5" --force
	rfm -u "shm:install-check-$$" destroy
	say "the manuals: rfm(1), rfm-layout(5), the concept pages of section 7, a page per function"
	man -w rfm rfm-layout librfm rfm-protocols rfm-events rfm_open rfm_event_send
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
	say "the installed pytest plugin (python3-rfm's entry point): the example bench"
	(cd / && /usr/bin/python3 -m pytest -p no:cacheprovider -q "$top/examples/python/test_hil_plant.py")
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
	# types) and libcrypto (security= files' checks) for the dds: backend,
	# iproute2 for the hosts' namespaces.
	deps "$DEMO_PACKAGES cyclonedds-dev cyclonedds-tools libssl-dev iproute2"
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
