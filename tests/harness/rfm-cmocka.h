/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CMocka assertions that speak librfm: on failure they print the code's
 * name and rfm_last_error(), which is what one needs to see in the log.
 * For the test process only; children use HARNESS_CHECK() (harness.h).
 */
#ifndef RFM_TEST_RFM_CMOCKA_H
#define RFM_TEST_RFM_CMOCKA_H

/* cmocka.h needs these first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rfm/rfm.h>

#include "harness.h"

/* Skip the current test unless the backend under test is @name. */
#define skip_unless_backend(name)                                             \
	do {                                                                  \
		if (strcmp(harness_backend(), (name))) {                       \
			print_message("skipped: needs the %s: backend\n",     \
				      (name));                                 \
			skip();                                               \
		}                                                             \
	} while (0)

/* @expr must return exactly @code (0 or a negative RFM_E* value). */
#define assert_rfm_code(expr, code)                                           \
	do {                                                                  \
		int rfm_got_ = (expr), rfm_want_ = (code);                    \
		if (rfm_got_ != rfm_want_)                                    \
			fail_msg("%s returned %d (%s), expected %d (%s); "    \
				 "rfm_last_error: \"%s\"",                    \
				 #expr, rfm_got_, rfm_strerror(rfm_got_),      \
				 rfm_want_, rfm_strerror(rfm_want_),           \
				 rfm_last_error());                            \
	} while (0)

#define assert_rfm_ok(expr) assert_rfm_code(expr, 0)

/* The last error message of this thread must contain @needle. */
#define assert_last_error_has(needle)                                         \
	do {                                                                  \
		const char *rfm_msg_ = rfm_last_error();                       \
		if (!strstr(rfm_msg_, (needle)))                               \
			fail_msg("rfm_last_error() is \"%s\", expected it to " \
				 "mention \"%s\"", rfm_msg_, (needle));        \
	} while (0)

#endif /* RFM_TEST_RFM_CMOCKA_H */
