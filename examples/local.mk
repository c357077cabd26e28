# SPDX-License-Identifier: LGPL-2.1-or-later
if WITH_EXAMPLES
noinst_PROGRAMS += \
	examples/minimal \
	examples/publish-sender \
	examples/publish-receiver \
	examples/events

examples_minimal_SOURCES = examples/minimal.c
examples_minimal_LDADD = src/librfm.la

examples_publish_sender_SOURCES = examples/publish-sender.c examples/publish.h
examples_publish_sender_LDADD = src/librfm.la -lm

examples_publish_receiver_SOURCES = examples/publish-receiver.c examples/publish.h
examples_publish_receiver_LDADD = src/librfm.la

examples_events_SOURCES = examples/events.c
examples_events_LDADD = src/librfm.la
endif
EXTRA_DIST += examples/demo.sh

# The two-host demo (examples/demo-hosts.sh, ./quickstart.sh demo-hosts).
if WITH_EXAMPLES
noinst_PROGRAMS += examples/hosts-demo
examples_hosts_demo_SOURCES = examples/hosts-demo.c
examples_hosts_demo_LDADD = src/librfm.la
endif
EXTRA_DIST += examples/demo-hosts.sh examples/layouts/hosts-demo.yaml
EXTRA_DIST += examples/prometheus/rfm-alerts.yml examples/prometheus/rfm-alerts-test.yml
