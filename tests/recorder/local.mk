# SPDX-License-Identifier: LGPL-2.1-or-later
# The recorder (recorder.h): known writers recorded and the files read
# back with HDF5's C API. Backend: RFM_TEST_BACKEND (a shared suite: the
# dds: pass runs it too). Needs libhdf5.

if WITH_TESTS
if HAVE_HDF5
check_PROGRAMS += tests/recorder/test-recorder
TESTS += tests/recorder/test-recorder
tests_recorder_test_recorder_SOURCES = tests/recorder/test-recorder.c
tests_recorder_test_recorder_CPPFLAGS = $(rfm_test_cppflags) $(HDF5_CFLAGS)
tests_recorder_test_recorder_LDADD = $(rfm_test_ldadd) $(HDF5_LIBS) -lm
endif
endif
EXTRA_DIST += tests/recorder/test-recorder.c
