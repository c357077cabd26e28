#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# make vm-check-rt's own checks, in one PREEMPT_RT guest with two virtual
# cards on one network (vm-run.sh -d 2), over the CLI as users run it:
#   - the guest kernel is PREEMPT_RT;
#   - every interrupt of the cards runs in one thread (irq/N-rfm-ivshmem),
#     never a forced primary thread beside it (irq/N-s-rfm-ivshmem);
#   - rfm selftest --system --rt-prio 60 fails while those threads sit at
#     the kernel's SCHED_FIFO 50, and passes once rfm.ko is loaded with
#     irq_prio=70 (every thread at 70 at once); irq_prio changed at run
#     time reaches the thread of the next interrupt; 100 is refused;
#   - rfm jitter (timer) and rfm ping --mode event between the two cards
#     at SCHED_FIFO 60 run, and print their figures (under emulation they
#     prove the path works, nothing about latency).
#   rt-smoke.sh --index 0 --nodes 1
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
check() { # check DESCRIPTION COMMAND...
	what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
param=/sys/module/rfm/parameters/irq_prio

# The card's interrupt threads, one "PID COMM POLICY PRIO" line each
# (/proc/PID/stat fields 41 and 40; these names have no spaces).
irq_threads() {
	for c in /proc/[0-9]*/comm; do
		read -r comm <"$c" 2>/dev/null || continue
		case $comm in irq/*rfm*) ;; *) continue ;; esac
		pid=${c#/proc/}
		pid=${pid%/comm}
		awk -v pid="$pid" '{ print pid, $2, $41, $40 }' "/proc/$pid/stat"
	done
}
# All of them SCHED_FIFO (policy 1) at PRIO, and N of them.
threads_at() {
	irq_threads | awk -v want="$1" -v n="$2" '
		{ all++ } $3 == 1 && $4 == want { at++ }
		END { exit !(all == n && at == n) }'
}
count_at() { irq_threads | awk -v want="$1" '$3 == 1 && $4 == want { n++ } END { print n + 0 }'; }
reload() { # reload [insmod ARGS]
	rmmod rfm && insmod /rfm.ko "$@" && echo "1af4 1110" >/sys/bus/pci/drivers/rfm/new_id ||
		return 1
	tries=0
	until [ -c /dev/rfm1 ]; do
		tries=$((tries + 1))
		[ $tries -lt 3000 ] || return 1
		usleep 10000
	done
}
selftest_irq() { # selftest_irq PRIO: the irq_thread status
	rfm selftest --system --rt-prio "$1" --json |
		tr -d '\n' | sed -n 's/.*"irq_thread": *{ *"status": *"\([a-z]*\)".*/\1/p'
}

uname -v | grep -q PREEMPT_RT
check "the guest kernel is PREEMPT_RT ($(uname -r))" [ $? = 0 ]

echo "# interrupt threads (pid comm policy prio):"
irq_threads | sed 's/^/#   /'
# Per card: vectors RESET, INTR1..4 and the bare doorbell.
threads=$(irq_threads | wc -l)
check "12 interrupt threads for 2 cards ($threads)" [ "$threads" = 12 ]
forced=$(irq_threads | awk '$2 ~ /^[(]?irq\/[0-9]*-s-/' | wc -l)
check "no forced primary thread beside them ($forced)" [ "$forced" = 0 ]

status=$(selftest_irq 60)
check "selftest --rt-prio 60 fails with the threads at the kernel's 50 ($status)" \
	[ "$status" = fail ]

check "rfm.ko reloaded with irq_prio=70" reload irq_prio=70
check "every interrupt thread at SCHED_FIFO 70 after the load" threads_at 70 12
status=$(selftest_irq 60)
check "selftest --rt-prio 60 passes with the threads at 70 ($status)" [ "$status" = ok ]
status=$(selftest_irq 70)
check "selftest --rt-prio 70 fails (a thread must be above the loop) ($status)" \
	[ "$status" = fail ]

# At run time: the thread of the next interrupt takes the new value.
check "irq_prio 80 accepted" sh -c "echo 80 > $param"
peer=$(rfm -u dev:/dev/rfm1 info --json | sed -n 's/.*"node_id": *\([0-9]*\).*/\1/p')
rfm -u dev:/dev/rfm0 send --to "$peer" --event intr1 --data 7 >/dev/null
n=0
tries=0
while [ $tries -lt 3000 ]; do
	n=$(count_at 80)
	[ "$n" = 1 ] && break
	tries=$((tries + 1))
	usleep 10000
done
check "the receiving card's INTR1 thread alone moved to 80 ($n)" [ "$n" = 1 ]
check "irq_prio 100 refused" sh -c "! echo 100 > $param 2>/dev/null"
check "irq_prio still 80" [ "$(cat $param)" = 80 ]

echo "# figures under software emulation (TCG): they show the path works on"
echo "# PREEMPT_RT; as latencies they mean nothing"
if out=$(rfm jitter --rate 1000 --count 2000 --rt-prio 60 2>&1); then
	ok "rfm jitter --rt-prio 60 (timer)"
else
	not_ok "rfm jitter --rt-prio 60 (timer)"
fi
echo "$out" | sed 's/^/#   /'
echo "$out" | sed -n "s/^ *\\(min .*\\)/bench: rt guest rfm jitter timer: \\1/p"

rfm -u dev:/dev/rfm1 ping --echo --mode event --rt-prio 60 --count 550 --timeout 60000 \
	>/tmp/echo.out 2>&1 &
echo_pid=$!
if out=$(rfm -u dev:/dev/rfm0 ping --mode event --peer "$peer" --rt-prio 60 --warmup 50 \
	--count 500 --timeout 30000 2>&1) && echo "$out" | grep -q "500 round trips"; then
	ok "rfm ping --mode event --rt-prio 60 between the cards"
else
	not_ok "rfm ping --mode event --rt-prio 60 between the cards"
fi
echo "$out" | sed 's/^/#   /'
echo "$out" | sed -n 's/^  *round/bench: rt guest rfm ping --mode event (ns): round/p'
wait "$echo_pid" || { cat /tmp/echo.out; not_ok "the echoer"; }

echo "# guest 0: $passed passed, $failed failed"
[ $failed = 0 ]
