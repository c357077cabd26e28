#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# make vm-stress inside its one guest: every vm-stress program
# (driver/lab/guest/stress/, one scenario each), in this order:
# device-del last (the card does not come back). A program that leaves a
# thread stuck in the driver exits 3: the rest would only hang too.
# Prints "# guest 0: P passed, F failed" (the programs' tests) for vm-run.sh.
#   vmstress.sh --index 0 --nodes 1 [PROGRAM...]   (default: all)
while [ $# -gt 0 ]; do
	case $1 in
	--index | --nodes) shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- foreign compat read-only ioctls queue-limit queue-pressure \
	blocked-reader read-fault stalled-copy removal reload device-del

echo "# vmstress: /dev/rfm0"
passed=0 failed=0
for name in "$@"; do
	echo "RFMLAB-STRESS: $name"
	# Live on the console (vm-run.sh -H acts on what device-del prints).
	{ "/bin/stress-$name" 2>&1; echo $? >/tmp/stress.rc; } | tee /tmp/stress.out
	rc=$(cat /tmp/stress.rc)
	summary=$(grep '^# guest 0: [0-9]* passed, [0-9]* failed' /tmp/stress.out | tail -1)
	if [ -n "$summary" ]; then
		p=$(echo "$summary" | sed 's/^# guest 0: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/')
		f=$(echo "$summary" | sed 's/^# guest 0: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/')
		passed=$((passed + p))
		failed=$((failed + f))
	fi
	# Died before its summary, or failed without counting it: one failure.
	if [ -z "$summary" ] || { [ $rc != 0 ] && [ "$f" = 0 ]; }; then
		echo "not ok - stress-$name (exit $rc)"
		failed=$((failed + 1))
	fi
	[ $rc = 3 ] && break
done
echo "# guest 0: $passed passed, $failed failed (vm-stress programs)"
[ $failed = 0 ]
