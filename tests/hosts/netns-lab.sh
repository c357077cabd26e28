#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A lab of "hosts" on one machine: N network namespaces, each joined by a
# veth pair to a bridge that lives in a namespace of its own, on the private
# subnet 10.77.0.0/24 (node K is 10.77.0.K, interface eth0). Nothing is
# created in the caller's namespace, so no traffic leaves the veths, and two
# labs never see each other: parallel tests may run one each.
#
#   RFM_LAB=$(netns-lab.sh up N) || exit $?   # prints the lab's name
#   export RFM_LAB
#   netns-lab.sh exec K cmd...    # run cmd in node K's namespace
#   netns-lab.sh addr K           # 10.77.0.K
#   netns-lab.sh ns K             # node K's namespace name (for ip netns)
#   netns-lab.sh link K down|up   # pull / plug node K's cable (switch side)
#   netns-lab.sh down             # remove the lab; harmless when repeated
#
# The fault lab: `up N switch` joins the nodes through the userspace switch
# tests/hosts/lab-switch (the program named by RFM_LAB_SWITCH, else
# ./tests/hosts/lab-switch of the build tree) instead of the bridge: each
# node's eth0 is a TAP the switch made inside its namespace, and the switch
# drops, duplicates, delays, reorders and partitions frames when told:
#
#   netns-lab.sh ctl set drop=0.05          # any lab-switch command (lab-ctl.c)
#   netns-lab.sh ctl stats                  # per-port counters
#   netns-lab.sh link K down|up             # the TAP's carrier
#
# RFM_LAB_SEED=N repeats a run's random choices (the seed is in the log,
# /tmp/LAB.switch/log, and `ctl seed`). `down` stops the switch by its pid.
#
# Every command but `up` takes the lab from RFM_LAB. `up` uses RFM_LAB when
# it is set and names no existing lab, else a fresh unique name. Needs root
# and `ip netns`; otherwise prints why and exits 77 (automake's "skipped").

set -u

SUBNET=10.77.0
MAX_NODES=250

die() { echo "netns-lab: $*" >&2; exit 2; }
skip() { echo "skipped: $*" >&2; exit 77; }

node_ns() { echo "$RFM_LAB-n$1"; }
bridge_ns() { echo "$RFM_LAB-br"; }
# The switch's pid, log and control socket; its existence marks a switch lab.
switch_dir() { echo "/tmp/$RFM_LAB.switch"; }

need_lab() {
	[ -n "${RFM_LAB:-}" ] || die "RFM_LAB is not set (use the name \`up\` printed)"
	case $RFM_LAB in
	*[!A-Za-z0-9_.-]*) die "bad lab name '$RFM_LAB'" ;;
	esac
}

need_node() {
	case ${1:-} in
	'' | *[!0-9]*) die "node '${1:-}' is not a number 1..$MAX_NODES" ;;
	esac
	[ "$1" -ge 1 ] && [ "$1" -le "$MAX_NODES" ] || die "node $1 is not in 1..$MAX_NODES"
	ip netns list | grep -q "^$(node_ns "$1")\( \|$\)" ||
		die "lab '$RFM_LAB' has no node $1"
}

# The lab's namespaces, by name (ip netns list prints "name (id: N)").
lab_namespaces() {
	ip netns list | awk -v p="$RFM_LAB-" 'index($1, p) == 1 { print $1 }'
}

# Stops the lab's switch by the pid `up` recorded; waits (bounded) for it
# to go, so its TAPs are gone before the namespaces are.
stop_switch() {
	local dir pid
	dir=$(switch_dir)
	[ -d "$dir" ] || return 0
	pid=$(cat "$dir/pid" 2>/dev/null)
	# Only if that pid is still our switch (serving this lab's socket): a
	# switch that died may have left its pid to another process.
	if [ -n "$pid" ] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" |
		grep -qF " serve $dir/ctl " && kill "$pid" 2>/dev/null; then
		for _ in $(seq 1 500); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.01
		done
		kill -9 "$pid" 2>/dev/null
	fi
	rm -rf "$dir"
}

cmd_down() {
	need_lab
	local ns
	stop_switch
	# Deleting a namespace deletes its end of every veth, and with it the
	# other end: the bridge and all links go with the namespaces.
	for ns in $(lab_namespaces); do
		ip netns delete "$ns" 2>/dev/null || true
	done
	[ -z "$(lab_namespaces)" ] || die "could not remove: $(lab_namespaces | tr '\n' ' ')"
}

# Waits (bounded) until node K's eth0 has carrier: the bridge side came up.
wait_carrier() {
	local ns=$1 i
	for i in $(seq 1 200); do
		ip -n "$ns" link show eth0 2>/dev/null | grep -q 'LOWER_UP' && return 0
		sleep 0.01
	done
	return 1
}

# Node K's addresses and routes, once its eth0 exists.
node_addr() {
	local k=$1 ns
	ns=$(node_ns "$k")
	ip -n "$ns" link set lo up || exit 1
	ip -n "$ns" addr add "$SUBNET.$k/24" dev eth0 || exit 1
	ip -n "$ns" link set eth0 multicast on up || exit 1
	# Multicast leaves by eth0 even for a program that names no interface.
	ip -n "$ns" route add 224.0.0.0/4 dev eth0 || exit 1
}

# The fault lab: node namespaces, then the switch, which makes each node's
# eth0 (a TAP) inside it; ready when it says so in its log.
up_switch() {
	local n=$1 k dir sw pid namespaces=
	sw=${RFM_LAB_SWITCH:-./tests/hosts/lab-switch}
	[ -x "$sw" ] || skip "no switch program '$sw' (build tests/hosts/lab-switch, or set RFM_LAB_SWITCH)"
	[ -c /dev/net/tun ] || skip "no /dev/net/tun (TAP devices)"
	dir=$(switch_dir)
	mkdir "$dir" || die "cannot make $dir"
	for k in $(seq 1 "$n"); do
		ip netns add "$(node_ns "$k")" 2>/dev/null ||
			skip "cannot create a network namespace (ip netns add failed: no CAP_SYS_ADMIN?)"
		namespaces="$namespaces $(node_ns "$k")"
	done
	# Its own session: a test's terminal signals do not reach it; `down`
	# stops it by this pid.
	# shellcheck disable=SC2086
	setsid "$sw" serve "$dir/ctl" "${RFM_LAB_SEED:-0}" $namespaces \
		>"$dir/log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$dir/pid"
	for _ in $(seq 1 1000); do
		grep -qs '^ready$' "$dir/log" && break
		if ! kill -0 "$pid" 2>/dev/null; then
			grep -qs 'TUNSETIFF\|/dev/net/tun' "$dir/log" &&
				skip "the switch cannot make TAP devices: $(tail -1 "$dir/log")"
			die "the switch did not start: $(cat "$dir/log")"
		fi
		sleep 0.01
	done
	grep -qs '^ready$' "$dir/log" || die "the switch did not get ready: $(cat "$dir/log")"
	for k in $(seq 1 "$n"); do
		node_addr "$k"
	done
}

cmd_up() {
	local n=${1:-} mode=${2:-bridge}
	case $n in
	'' | *[!0-9]*) die "usage: up N [switch] (N nodes, 1..$MAX_NODES)" ;;
	esac
	case $mode in
	bridge | switch) ;;
	*) die "usage: up N [switch] (mode '$mode'?)" ;;
	esac
	[ "$mode" = bridge ] || [ "$n" -le 32 ] || die "the switch has 32 ports at most"
	[ "$n" -ge 1 ] && [ "$n" -le "$MAX_NODES" ] || die "N must be 1..$MAX_NODES"
	[ "$(id -u)" = 0 ] || skip "network namespaces need root"
	command -v ip >/dev/null || skip "no ip command (iproute2)"

	if [ -n "${RFM_LAB:-}" ]; then
		need_lab
		[ -z "$(lab_namespaces)" ] || die "lab '$RFM_LAB' exists already"
	else
		# Unique per invocation: pid + random, so parallel tests never collide.
		RFM_LAB="rfmlab$$x$RANDOM$RANDOM"
	fi

	local br k ns
	if [ "$mode" = switch ]; then
		[ ! -e "$(switch_dir)" ] || die "lab '$RFM_LAB' exists already ($(switch_dir))"
		trap 'cmd_down >/dev/null 2>&1' EXIT
		up_switch "$n"
		trap - EXIT
		echo "$RFM_LAB"
		return 0
	fi
	br=$(bridge_ns)
	ip netns add "$br" 2>/dev/null || skip "cannot create a network namespace (ip netns add failed: no CAP_SYS_ADMIN?)"
	# From here a failure removes whatever was made.
	trap 'cmd_down >/dev/null 2>&1' EXIT
	ip -n "$br" link add name br0 type bridge 2>/dev/null ||
		skip "no bridge support in this kernel"
	# No IGMP snooping: with no querier on the segment, multicast groups
	# would age out of the bridge after a link flap; flooding is what a
	# plain switch does and what DDS discovery expects.
	ip -n "$br" link set br0 type bridge mcast_snooping 0 forward_delay 0 stp_state 0 || exit 1
	ip -n "$br" link set br0 up || exit 1

	for k in $(seq 1 "$n"); do
		ns=$(node_ns "$k")
		ip netns add "$ns" || exit 1
		ip -n "$br" link add name "v$k" type veth peer name eth0 netns "$ns" 2>/dev/null ||
			skip "no veth support in this kernel"
		ip -n "$br" link set "v$k" master br0 up || exit 1
		node_addr "$k"
	done
	for k in $(seq 1 "$n"); do
		wait_carrier "$(node_ns "$k")" || die "node $k: eth0 got no carrier"
	done
	trap - EXIT
	echo "$RFM_LAB"
}

cmd_exec() {
	need_lab
	need_node "${1:-}"
	local ns
	ns=$(node_ns "$1")
	shift
	[ $# -gt 0 ] || die "usage: exec K cmd..."
	exec ip netns exec "$ns" "$@"
}

cmd_link() {
	need_lab
	need_node "${1:-}"
	case ${2:-} in
	down | up) ;;
	*) die "usage: link K down|up" ;;
	esac
	# The switch side: node K keeps its address and routes, as a host does
	# when its cable is pulled; eth0 just loses carrier.
	if [ -d "$(switch_dir)" ]; then
		cmd_ctl link "$1" "$2" >/dev/null || exit 1
	else
		ip -n "$(bridge_ns)" link set "v$1" "$2" || exit 1
	fi
	if [ "$2" = up ]; then
		wait_carrier "$(node_ns "$1")" || die "node $1: eth0 got no carrier"
	fi
}

# A command to the lab's switch (lab-ctl.c); its answer on stdout.
cmd_ctl() {
	need_lab
	[ -d "$(switch_dir)" ] || die "lab '$RFM_LAB' has no switch (made by \`up N switch\`?)"
	[ $# -gt 0 ] || die "usage: ctl COMMAND..."
	"${RFM_LAB_SWITCH:-./tests/hosts/lab-switch}" ctl "$(switch_dir)/ctl" "$@"
}

case ${1:-} in
up) shift; cmd_up "$@" ;;
ctl) shift; cmd_ctl "$@" ;;
down) cmd_down ;;
exec) shift; cmd_exec "$@" ;;
link) shift; cmd_link "$@" ;;
addr) need_lab; need_node "${2:-}"; echo "$SUBNET.$2" ;;
ns) need_lab; need_node "${2:-}"; node_ns "$2" ;;
*) die "usage: up N [switch] | exec K cmd... | addr K | ns K | link K down|up | ctl COMMAND... | down" ;;
esac
