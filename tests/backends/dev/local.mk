# SPDX-License-Identifier: LGPL-2.1-or-later
# Unit tests of the dev: backend without a card or module: the library's
# sources are linked into the test with open/stat/ioctl/mmap/read/poll/close
# (and friends) wrapped (-Wl,--wrap=) by a pretend device (tpm2-tss style).

if WITH_TESTS

check_PROGRAMS += tests/backends/dev/test-dev
TESTS += tests/backends/dev/test-dev

tests_backends_dev_test_dev_SOURCES = \
	$(src_librfm_la_SOURCES) \
	tests/backends/dev/fake-dev.h \
	tests/backends/dev/fake-dev.c \
	tests/backends/dev/test-dev.c
tests_backends_dev_test_dev_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src -I$(top_builddir)/src \
	-DRFM_PKGLIBDIR='"$(pkglibdir)"' -I$(top_srcdir)/tests/harness $(CMOCKA_CFLAGS)
tests_backends_dev_test_dev_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
tests_backends_dev_test_dev_LDADD = $(CMOCKA_LIBS) $(src_librfm_la_LIBADD)
tests_backends_dev_test_dev_LDFLAGS = \
	-Wl,--wrap=open,--wrap=stat,--wrap=fstat,--wrap=readlink,--wrap=ioctl \
	-Wl,--wrap=mmap,--wrap=munmap \
	-Wl,--wrap=read,--wrap=poll,--wrap=ppoll,--wrap=close

endif
