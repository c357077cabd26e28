# SPDX-License-Identifier: LGPL-2.1-or-later
# Unit tests of the dev: backend without a card or module: the library's
# sources are linked into the test with open/stat/ioctl/mmap/read/poll/close
# (and friends) wrapped (-Wl,--wrap=) by a pretend device (tpm2-tss style).

if WITH_TESTS

check_PROGRAMS += tests/dev/test-dev
TESTS += tests/dev/test-dev

tests_dev_test_dev_SOURCES = \
	$(src_librfm_la_SOURCES) \
	tests/dev/fake-dev.h \
	tests/dev/fake-dev.c \
	tests/dev/test-dev.c
tests_dev_test_dev_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src \
	-I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
tests_dev_test_dev_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
tests_dev_test_dev_LDADD = $(CMOCKA_LIBS) $(src_librfm_la_LIBADD)
tests_dev_test_dev_LDFLAGS = \
	-Wl,--wrap=open,--wrap=stat,--wrap=fstat,--wrap=readlink,--wrap=ioctl \
	-Wl,--wrap=mmap,--wrap=munmap \
	-Wl,--wrap=read,--wrap=poll,--wrap=ppoll,--wrap=close

endif

# Events between nodes, for every backend (written for dev:, where
# delivery is asynchronous; the shm: suites in tests/events assume more).
if WITH_TESTS
check_PROGRAMS += tests/dev/test-events-nodes
TESTS += tests/dev/test-events-nodes
tests_dev_test_events_nodes_SOURCES = tests/dev/test-events-nodes.c
tests_dev_test_events_nodes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
tests_dev_test_events_nodes_LDADD = tests/harness/libharness.la src/librfm.la $(CMOCKA_LIBS)
endif
