# SPDX-License-Identifier: LGPL-2.1-or-later
# Records (src/record.c): a record's notify: interrupt wakes a waiter in
# another process. Backend: RFM_TEST_BACKEND.

if WITH_TESTS
check_PROGRAMS += tests/records/test-record-notify
TESTS += tests/records/test-record-notify
tests_records_test_record_notify_SOURCES = tests/records/test-record-notify.c
tests_records_test_record_notify_CPPFLAGS = $(rfm_test_cppflags)
tests_records_test_record_notify_LDADD = $(rfm_test_ldadd)
endif
