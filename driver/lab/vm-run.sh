#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# vm-run.sh - the virtual lab: boot N QEMU guests (TCG) from Debian's
# kernel, joined by one ivshmem-doorbell network (our rfm-ivshmem-server),
# run one test program in every guest, collect the results and console
# logs, and stop everything it started.
#
# Fails when a guest's test fails, a guest does not finish in time, or any
# guest kernel log shows a warning, BUG, oops or panic (PREEMPT_RT's
# "sleeping function called from invalid context" and "scheduling while
# atomic" included), a hung task, a lockdep report or an RCU stall.
#
#   vm-run.sh -M rfm.ko -s rfm-ivshmem-server -B prog [-B prog2 ...] [options] TEST [ARGS...]
#
#   -M FILE     the module to load in the guests (required)
#   -s FILE     rfm-ivshmem-server (required)
#   -B FILE     a program to put into the guests' /bin (repeat as needed):
#               static, a script, or dynamic (then the libraries it needs are
#               copied too, found with ldd and -L; guests set LD_LIBRARY_PATH)
#   -L DIR      where ldd finds libraries of dynamic -B programs that are not
#               installed (e.g. the build tree's src/.libs); repeat as needed
#   -d N        virtual cards per guest, all on the one network (default 1):
#               /dev/rfm0..N-1, so multi-node tests run inside one guest
#   -k DIR      kernel headers the module was built with; the guest kernel is
#               the matching Debian linux-image, from /boot when installed,
#               else downloaded once (default: newest
#               /usr/src/linux-headers-*[0-9]-amd64, the stock flavour)
#   -c DIR      cache for the guest kernel (default: ./vm-cache)
#   -o DIR      logs and results (default: ./vm-out)
#   -n N        guests (default 2)
#   -m SIZE     shared memory (default 64M)
#   -t SECONDS  give up after this long (default 150)
#   -X          stop the ivshmem server (SIGTERM) once every guest printed
#               RFMLAB-DOORBELLS-OK (its doorbells work): the running network
#               must not notice. (Stopping it earlier can cut QEMU off before
#               it read the peers' eventfds: QEMU drops unread messages when
#               the socket hangs up.)
#   -F FILE     also give every guest a foreign QEMU ivshmem-plain device
#               (same PCI id as ours) whose memory is FILE (shared, its size):
#               rfm.ko must leave it alone; the caller checks FILE afterwards
#   -H          hot-unplug on request: a guest printing
#               "RFMLAB-DEVICE-DEL: rfmC" has its card C removed by QEMU
#               (monitor device_del, an ACPI hot-unplug the guest sees)
#   -K          keep the initramfs staging directory
#
# TEST runs in guest I as: /bin/TEST --index I --nodes N ARGS...
set -eu

usage() {
	sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 2
}

foreign='' hotplug=''
module='' server='' kdir='' cache=./vm-cache out=./vm-out nodes=2 shm=64M timeout=150 keep='' stop_server=''
binaries=()
libdirs=()
cards=1
while getopts "M:s:B:L:d:k:c:o:n:m:t:F:HKXh" opt; do
	case $opt in
	M) module=$OPTARG ;;
	s) server=$OPTARG ;;
	B) binaries+=("$OPTARG") ;;
	L) libdirs+=("$(cd "$OPTARG" && pwd)") ;;
	d) cards=$OPTARG ;;
	k) kdir=$OPTARG ;;
	c) cache=$OPTARG ;;
	o) out=$OPTARG ;;
	n) nodes=$OPTARG ;;
	m) shm=$OPTARG ;;
	t) timeout=$OPTARG ;;
	F) foreign=$OPTARG ;;
	H) hotplug=1 ;;
	K) keep=1 ;;
	X) stop_server=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ -n "$module" ] && [ -n "$server" ] || usage
test_name=$1
shift
test_args=$(IFS=,; echo "$*")

say() { printf 'vm-run: %s\n' "$*"; }
die() { printf 'vm-run: error: %s\n' "$*" >&2; exit 1; }
# The guests have no C library of their own: dynamic programs bring theirs.
is_dynamic() { readelf -l "$1" 2>/dev/null | grep -q 'INTERP'; }

for tool in qemu-system-x86_64 cpio gzip dpkg-deb; do
	command -v "$tool" >/dev/null || die "$tool not found (Debian: qemu-system-x86 cpio dpkg)"
done
busybox=/bin/busybox
[ -x "$busybox" ] && ! is_dynamic "$busybox" || die "busybox-static is needed (Debian: busybox-static)"
[ -f "$module" ] || die "no module at $module"
[ -x "$server" ] || die "no server at $server"
case $nodes in '' | *[!0-9]*) die "bad guest count '$nodes'" ;; esac
[ "$nodes" -ge 1 ] && [ "$nodes" -le 16 ] || die "1 to 16 guests"
case $cards in '' | *[!0-9]*) die "bad card count '$cards'" ;; esac
[ "$cards" -ge 1 ] && [ "$cards" -le 8 ] && [ $((nodes * cards)) -le 32 ] ||
	die "1 to 8 cards per guest, 32 in all (node ids are below 32)"

# ---- the guest kernel: Debian's image matching the headers, cached ----
if [ -z "$kdir" ]; then
	kdir=$(ls -d /usr/src/linux-headers-*[0-9]-amd64 2>/dev/null | sort -V | tail -1)
fi
[ -n "$kdir" ] && [ -d "$kdir" ] || die "no kernel headers (Debian: linux-headers-amd64)"
kver=$(basename "$(readlink -f "$kdir")")
kver=${kver#linux-headers-}
tr '\0' '\n' <"$module" | grep -q "^vermagic=$kver " ||
	die "$module was not built for $kver"
mkdir -p "$cache" "$out"
cache=$(cd "$cache" && pwd)
out=$(cd "$out" && pwd)
vmlinuz=$cache/vmlinuz-$kver
# An installed image (linux-image-rt-amd64 puts one in /boot) needs no download.
if [ ! -s "$vmlinuz" ] && [ -r "/boot/vmlinuz-$kver" ]; then
	cp "/boot/vmlinuz-$kver" "$vmlinuz.tmp" && mv "$vmlinuz.tmp" "$vmlinuz"
fi
if [ ! -s "$vmlinuz" ]; then
	say "fetching the kernel image of linux-image-$kver (once)"
	dl=$(mktemp -d)
	(cd "$dl" && apt-get download -q "linux-image-$kver" >/dev/null 2>&1 ||
		apt-get download -q "linux-image-$kver-unsigned" >/dev/null) ||
		{ rm -rf "$dl"; die "apt-get download linux-image-$kver failed"; }
	dpkg-deb --fsys-tarfile "$dl"/linux-image-*.deb |
		tar -xf - -C "$dl" "./boot/vmlinuz-$kver"
	mv "$dl/boot/vmlinuz-$kver" "$vmlinuz.tmp" && mv "$vmlinuz.tmp" "$vmlinuz"
	rm -rf "$dl"
fi

# ---- everything we start is recorded, and stopped on any exit ----
pids=()
stage=
cleanup() {
	local pid
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	pids=()
	[ -n "$stage" ] && [ -z "$keep" ] && rm -rf "$stage"
	rm -f "$out/server.sock" "$out/server.ready" "$out"/monitor*.sock
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the initramfs: busybox, the module, the programs, /init ----
stage=$(mktemp -d "$out/initramfs.XXXXXX")
mkdir -p "$stage"/{bin,dev,proc,sys,tmp}
cp "$busybox" "$stage/bin/busybox"
cp "$module" "$stage/rfm.ko"
cp "$(dirname "$0")/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"
# Libraries go to /lib/rfmlab (the guest's LD_LIBRARY_PATH); the dynamic
# loader to the path the programs name.
copy_libraries() {
	local prog=$1 line lib interp
	interp=$(readelf -l "$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	[ -n "$interp" ] || die "$prog: no program interpreter"
	mkdir -p "$stage$(dirname "$interp")" "$stage/lib/rfmlab"
	cp -L "$interp" "$stage$interp"
	while read -r line; do
		case $line in
		*'=> not found'*) die "$prog: ${line%% *} not found (add -L DIR)" ;;
		*'=> '/*) lib=${line#*=> }; lib=${lib%% (*} ;;
		*) continue ;;
		esac
		cp -L "$lib" "$stage/lib/rfmlab/$(basename "$lib")"
	done < <(LD_LIBRARY_PATH=$(IFS=:; echo "${libdirs[*]:-}") ldd "$prog")
}
for b in "${binaries[@]}"; do
	is_dynamic "$b" && copy_libraries "$b"
	cp "$b" "$stage/bin/"
done
[ -x "$stage/bin/$test_name" ] || die "test program $test_name is not among the -B programs"
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out/initramfs.cpio.gz"

# ---- the network: our ivshmem server, ready before any guest connects ----
rm -f "$out/server.sock" "$out/server.ready"
mkfifo "$out/server.ready"
"$server" -S "$out/server.sock" -m "$shm" -n 6 -v -r 3 3>"$out/server.ready" \
	2>"$out/server.log" &
pids+=($!)
server_pid=$!
read -r -t 20 ready <"$out/server.ready" || ready=
[ "$ready" = ready ] || die "the ivshmem server did not start (see $out/server.log)"

# ---- the guests ----
# Nothing of an earlier run may be mistaken for this one's results.
rm -f "$out"/guest*.log "$out"/guest*.kernel-problems "$out"/qemu*.log
start=$(date +%s)
qemu_pids=()
for i in $(seq 0 $((nodes - 1))); do
	log=$out/guest$i.log
	card_args=()
	for c in $(seq 0 $((cards - 1))); do
		card_args+=(-chardev "socket,path=$out/server.sock,id=ivs$c"
			-device "ivshmem-doorbell,chardev=ivs$c,vectors=6,id=rfm$c")
	done
	if [ -n "$foreign" ]; then
		# First on the bus: probed before our cards.
		card_args=(-object "memory-backend-file,id=foreign,mem-path=$foreign,size=$(stat -c %s "$foreign"),share=on"
			-device "ivshmem-plain,memdev=foreign" "${card_args[@]}")
	fi
	monitor=none
	[ -n "$hotplug" ] && monitor="unix:$out/monitor$i.sock,server=on,wait=off"
	qemu-system-x86_64 -accel tcg -m 256M -smp 1 -nodefaults -display none \
		-monitor "$monitor" -serial "file:$log" -no-reboot \
		-kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 no_timer_check rfmlab.test=$test_name rfmlab.index=$i rfmlab.nodes=$nodes rfmlab.cards=$cards rfmlab.args=$test_args" \
		"${card_args[@]}" \
		</dev/null >"$out/qemu$i.log" 2>&1 &
	pids+=($!)
	qemu_pids+=($!)
done
say "$nodes guests running $test_name (logs in $out)"
deadline=$((start + timeout))
timed_out=

# Optionally take the server away under a running network.
server_stopped=
if [ -n "$stop_server" ]; then
	for i in $(seq 0 $((nodes - 1))); do
		until grep -aq RFMLAB-DOORBELLS-OK "$out/guest$i.log" 2>/dev/null; do
			[ "$(date +%s)" -lt "$deadline" ] || die "guest $i never confirmed its doorbells"
			kill -0 "${qemu_pids[$i]}" 2>/dev/null || break
			sleep 0.2
		done
	done
	kill -TERM "$server_pid"
	if wait "$server_pid"; then
		server_stopped=1
		say "server stopped (exit 0) under $nodes running guests"
	else
		die "the server did not shut down cleanly"
	fi
fi

# Hot-unplug requests of the guests, each carried out once.
unplugged=()
serve_unplugs() {
	local i=$1 id key
	[ -n "$hotplug" ] || return 0
	for id in $(grep -a -o 'RFMLAB-DEVICE-DEL: rfm[0-9]*' "$out/guest$i.log" 2>/dev/null |
		sed 's/.*: //'); do
		key="$i:$id"
		case " ${unplugged[*]:-} " in *" $key "*) continue ;; esac
		unplugged+=("$key")
		say "guest $i: device_del $id"
		/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(("device_del " + sys.argv[2] + "\n").encode()); time.sleep(0.5); s.close()' \
			"$out/monitor$i.sock" "$id" || say "guest $i: the monitor refused device_del $id"
	done
}

# Wait for every guest to power off, or give up at the deadline.
qemu_failed=
for i in $(seq 0 $((nodes - 1))); do
	pid=${qemu_pids[$i]}
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			timed_out=1
			break 2
		fi
		for g in $(seq 0 $((nodes - 1))); do serve_unplugs "$g"; done
		sleep 0.2
	done
	rc=0
	wait "$pid" || rc=$?
	if [ $rc != 0 ]; then
		say "guest $i: QEMU exited with status $rc (see $out/qemu$i.log)"
		qemu_failed=1
	fi
done
[ -n "$timed_out" ] && say "timed out after ${timeout}s: stopping the guests"
cleanup
elapsed=$(($(date +%s) - start))

# ---- verdict ----
status=0
[ -n "$qemu_failed" ] && status=1
passed=0
failed=0
[ -n "$timed_out" ] && status=1
for i in $(seq 0 $((nodes - 1))); do
	log=$out/guest$i.log
	exit_line=$(grep -a 'RFMLAB-EXIT:' "$log" 2>/dev/null | tail -1 | tr -d '\r' || true)
	rc=${exit_line##*: }
	if [ -z "$exit_line" ]; then
		say "guest $i: no result (see $log)"
		status=1
	elif [ "$rc" != 0 ]; then
		say "guest $i: test failed (exit $rc)"
		status=1
	fi
	grep -a '^not ok\|^#   FAILED' "$log" | tr -d '\r' | sed "s/^/  guest $i: /" || true
	# PREEMPT_RT's own complaints too: a sleeping lock taken in atomic
	# context ("BUG: sleeping function called from invalid context",
	# "BUG: scheduling while atomic", also when the image lacks
	# CONFIG_DEBUG_ATOMIC_SLEEP and a contended lock really slept), RCU stalls.
	if grep -a -E 'WARNING:|BUG:|Oops|general protection|Kernel panic|Call Trace|UBSAN|KASAN|refcount_t:|list_(add|del) corruption|INFO: task .* blocked|possible (circular|recursive) locking|inconsistent lock state|hung_task|sleeping function called from invalid context|scheduling while atomic|rcu_(preempt|sched) detected stall|rcu: INFO' \
		"$log" >"$out/guest$i.kernel-problems" 2>/dev/null; then
		say "guest $i: the kernel complained:"
		sed 's/^/    /' "$out/guest$i.kernel-problems" | head -20
		status=1
	fi
	summary=$(grep -a '^# guest .* passed' "$log" | tr -d '\r' | tail -1 || true)
	if [ -n "$summary" ]; then
		say "${summary#\# }"
		p=$(echo "$summary" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
		f=$(echo "$summary" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
		passed=$((passed + ${p:-0}))
		failed=$((failed + ${f:-0}))
	else
		failed=$((failed + 1))
	fi
done
# A guest or kernel failure that no test counted still counts once.
[ $status != 0 ] && [ $failed = 0 ] && failed=1
if [ $status = 0 ]; then
	say "PASS: $test_name on $nodes guests in ${elapsed}s${server_stopped:+ (server stopped mid-run)}"
else
	say "FAIL: $test_name on $nodes guests (logs in $out)"
fi
echo "$test_name: $passed passed, $failed failed"

exit $status
