# SPDX-License-Identifier: LGPL-2.1-or-later
# dds: networks with DDS Security (security=DIR): the files made with
# docs/security.md's commands, an authenticated network of dds-peer
# processes, and strangers (dds-stranger) without a certificate, with another
# CA's, or with permissions for another node id, asserted at the victims.
if WITH_TESTS
# The stranger with a participant that may carry DDS Security files (its
# options from the environment, see its head comment).
if HAVE_DDS
check_PROGRAMS += tests/backends/dds/security/dds-stranger
tests_backends_dds_security_dds_stranger_SOURCES = tests/backends/dds/security/dds-stranger.c
nodist_tests_backends_dds_security_dds_stranger_SOURCES = src/backends/dds/dds-wire.c
tests_backends_dds_security_dds_stranger_CPPFLAGS = -I$(top_builddir)/src $(DDS_CFLAGS)
tests_backends_dds_security_dds_stranger_LDADD = $(DDS_LIBS)
endif
TESTS += tests/backends/dds/security/test-dds-security.py
endif
EXTRA_DIST += tests/backends/dds/security/test-dds-security.py \
	tests/backends/dds/security/dds-stranger.c \
	tests/backends/dds/security/make-files.sh
