# SPDX-License-Identifier: LGPL-2.1-or-later
# Several "hosts" on one machine: tests/hosts/netns-lab.sh makes network
# namespaces joined by veth pairs to a private bridge, or (`up N switch`,
# the fault lab) by tests/hosts/lab-switch, a userspace switch that drops,
# duplicates, delays, reorders and partitions frames when told (root only;
# the tests skip with the reason otherwise).

if WITH_TESTS
TESTS += \
	tests/hosts/test-netns-lab.sh \
	tests/hosts/test-demo-hosts.sh \
	tests/hosts/test-dds-unicast.sh

check_PROGRAMS += tests/hosts/lab-switch
tests_hosts_lab_switch_SOURCES = \
	tests/hosts/lab-switch.c \
	tests/hosts/lab-switch.h \
	tests/hosts/lab-fwd.c \
	tests/hosts/lab-serve.c \
	tests/hosts/lab-tape.c \
	tests/hosts/lab-ctl.c

# The node each namespace of the fault tests runs (dds:, line-driven).
check_PROGRAMS += tests/hosts/fault-node
tests_hosts_fault_node_SOURCES = \
	tests/hosts/fault-node.c \
	tests/hosts/fault-node.h \
	tests/hosts/fault-node-threads.c \
	tests/hosts/fault-node-cmd.c
tests_hosts_fault_node_LDADD = src/librfm.la -lpthread

TESTS += \
	tests/hosts/test-lab-switch.sh \
	tests/hosts/test-faults-loss.py \
	tests/hosts/test-faults-heavy-loss.py \
	tests/hosts/test-faults-partition.py \
	tests/hosts/test-faults-disorder.py \
	tests/hosts/test-faults-late-match.py \
	tests/hosts/test-faults-replay.py \
	tests/hosts/test-faults-takeover.py
endif

EXTRA_DIST += \
	tests/hosts/netns-lab.sh \
	tests/hosts/udp-probe.py \
	tests/hosts/faultlab.py \
	tests/hosts/test-netns-lab.sh \
	tests/hosts/test-demo-hosts.sh \
	tests/hosts/test-dds-unicast.sh \
	tests/hosts/test-lab-switch.sh \
	tests/hosts/test-faults-loss.py \
	tests/hosts/test-faults-heavy-loss.py \
	tests/hosts/test-faults-partition.py \
	tests/hosts/test-faults-disorder.py \
	tests/hosts/test-faults-late-match.py \
	tests/hosts/test-faults-replay.py \
	tests/hosts/test-faults-takeover.py \
	tests/hosts/rtps_forge.py \
	examples/cyclonedds-unicast.xml
