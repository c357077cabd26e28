# SPDX-License-Identifier: LGPL-2.1-or-later
# Several "hosts" on one machine: tests/hosts/netns-lab.sh makes network
# namespaces joined by veth pairs to a private bridge (root only; the tests
# skip with the reason otherwise).

if WITH_TESTS
TESTS += \
	tests/hosts/test-netns-lab.sh \
	tests/hosts/test-demo-hosts.sh \
	tests/hosts/test-dds-unicast.sh
endif

EXTRA_DIST += \
	tests/hosts/netns-lab.sh \
	tests/hosts/udp-probe.py \
	tests/hosts/test-netns-lab.sh \
	tests/hosts/test-demo-hosts.sh \
	tests/hosts/test-dds-unicast.sh \
	examples/cyclonedds-unicast.xml
