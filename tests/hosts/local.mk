# SPDX-License-Identifier: LGPL-2.1-or-later
# Several "hosts" on one machine: tests/hosts/netns-lab.sh makes network
# namespaces joined by veth pairs to a private bridge (root only; the tests
# skip with the reason otherwise).

if WITH_TESTS
TESTS += \
	tests/hosts/test-netns-lab.sh \
	tests/hosts/test-demo-hosts.sh \
	tests/hosts/test-dds-unicast.sh
# Under ThreadSanitizer, Cyclone DDS (not built with TSan) looks racy inside
# itself: silence what libddsc's own calls do, for every test that opens
# dds: nodes (tests/tsan-cyclone.supp says what is and is not silenced).
AM_TESTS_ENVIRONMENT += \
	TSAN_OPTIONS="$${TSAN_OPTIONS:+$$TSAN_OPTIONS:}suppressions=$(abs_top_srcdir)/tests/tsan-cyclone.supp"; \
	export TSAN_OPTIONS;
endif

EXTRA_DIST += \
	tests/hosts/netns-lab.sh \
	tests/hosts/udp-probe.py \
	tests/hosts/test-netns-lab.sh \
	tests/hosts/test-demo-hosts.sh \
	tests/hosts/test-dds-unicast.sh \
	examples/cyclonedds-unicast.xml \
	tests/tsan-cyclone.supp
