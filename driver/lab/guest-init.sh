#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /init of the lab's guests: load rfm.ko, run the test named on the kernel
# command line, print its result and the kernel log, power off.
#   rfmlab.test=PROGRAM rfmlab.index=I rfmlab.nodes=N rfmlab.cards=C rfmlab.args=A,B,C
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# Dynamic programs' libraries (vm-run.sh -B copies them here).
export LD_LIBRARY_PATH=/lib/rfmlab

test=; index=0; nodes=1; cards=1; args=
for word in $(cat /proc/cmdline); do
	case "$word" in
	rfmlab.test=*) test=${word#rfmlab.test=} ;;
	rfmlab.index=*) index=${word#rfmlab.index=} ;;
	rfmlab.nodes=*) nodes=${word#rfmlab.nodes=} ;;
	rfmlab.cards=*) cards=${word#rfmlab.cards=} ;;
	rfmlab.args=*) args=$(echo "${word#rfmlab.args=}" | tr ',' ' ') ;;
	esac
done

echo "RFMLAB-BOOT: guest $index of $nodes, test $test"
echo "RFMLAB-KERNEL: $(uname -r) $(uname -v)"
# Hangs are reported within the run, not after the lab gave up.
echo 10 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
rc=1
if insmod /rfm.ko; then
	# rfm.ko binds QEMU's generic ivshmem id only on request.
	echo "1af4 1110" >/sys/bus/pci/drivers/rfm/new_id
	if [ -c "/dev/rfm$((cards - 1))" ]; then
		# shellcheck disable=SC2086 # args are split on purpose
		"/bin/$test" --index "$index" --nodes "$nodes" $args
		rc=$?
	else
		echo "RFMLAB-ERROR: /dev/rfm$((cards - 1)) missing after insmod"
	fi
	rmmod rfm || rc=1
else
	echo "RFMLAB-ERROR: insmod rfm.ko failed"
fi
echo "RFMLAB-DMESG-BEGIN"
dmesg
echo "RFMLAB-DMESG-END"
echo "RFMLAB-EXIT: $rc"
poweroff -f
