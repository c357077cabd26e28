/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The error convention: rfm_strerror() for every code, rfm_last_error() per thread. */
#include "config.h"

#include <limits.h>
#include <pthread.h>

#include "harness.h"
#include "rfm-cmocka.h"

/* Every code of enum rfm_error, with its value spelled out: the values are ABI. */
static const struct {
	int code;
	int value;
	const char *name;
} codes[] = {
	{ RFM_OK, 0, "RFM_OK" },
	{ RFM_EINVAL, -1, "RFM_EINVAL" },
	{ RFM_ENOMEM, -2, "RFM_ENOMEM" },
	{ RFM_ESYS, -3, "RFM_ESYS" },
	{ RFM_EURI, -4, "RFM_EURI" },
	{ RFM_ESCHEME, -5, "RFM_ESCHEME" },
	{ RFM_ENOTSUP, -6, "RFM_ENOTSUP" },
	{ RFM_ENOENT, -7, "RFM_ENOENT" },
	{ RFM_EPERM, -8, "RFM_EPERM" },
	{ RFM_ENODEID, -9, "RFM_ENODEID" },
	{ RFM_EINUSE, -10, "RFM_EINUSE" },
	{ RFM_EFULL, -11, "RFM_EFULL" },
	{ RFM_ESIZE, -12, "RFM_ESIZE" },
	{ RFM_ECORRUPT, -13, "RFM_ECORRUPT" },
	{ RFM_EVERSION, -14, "RFM_EVERSION" },
	{ RFM_ENOSPC, -15, "RFM_ENOSPC" },
	{ RFM_ERANGE, -16, "RFM_ERANGE" },
	{ RFM_EALIGN, -17, "RFM_EALIGN" },
	{ RFM_EBUSY, -18, "RFM_EBUSY" },
	{ RFM_ETIMEDOUT, -19, "RFM_ETIMEDOUT" },
	{ RFM_ECANCELED, -20, "RFM_ECANCELED" },
	{ RFM_ECLOSED, -21, "RFM_ECLOSED" },
	{ RFM_EAGAIN, -22, "RFM_EAGAIN" },
	{ RFM_EOVERFLOW, -23, "RFM_EOVERFLOW" },
	{ RFM_ESELF, -24, "RFM_ESELF" },
	{ RFM_ENODE, -25, "RFM_ENODE" },
	{ RFM_EOWNER, -26, "RFM_EOWNER" },
	{ RFM_ELAYOUT, -27, "RFM_ELAYOUT" },
	{ RFM_ENOTFOUND, -28, "RFM_ENOTFOUND" },
	{ RFM_ETORN, -29, "RFM_ETORN" },
	{ RFM_EOVERRUN, -30, "RFM_EOVERRUN" },
	{ RFM_ELAPPED, -31, "RFM_ELAPPED" },
	{ RFM_EIO, -32, "RFM_EIO" },
};

#define NCODES (sizeof(codes) / sizeof(codes[0]))
/* The first value past the table: must be unknown until a code is appended. */
#define FIRST_UNUSED_CODE (-(int)NCODES)

static const char *const unknown = "unknown error code";

static void codes_keep_their_values(void **state)
{
	for (size_t i = 0; i < NCODES; i++) {
		if (codes[i].code != codes[i].value)
			fail_msg("%s is %d, its ABI value is %d", codes[i].name, codes[i].code,
				 codes[i].value);
		assert_int_equal(codes[i].value, -(int)i); /* dense, no gaps */
	}
}

static void every_code_has_its_own_sentence(void **state)
{
	for (size_t i = 0; i < NCODES; i++) {
		const char *msg = rfm_strerror(codes[i].code);

		assert_non_null(msg);
		if (!msg[0] || !strcmp(msg, unknown))
			fail_msg("%s has no sentence (\"%s\")", codes[i].name, msg);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(msg, rfm_strerror(codes[j].code)))
				fail_msg("%s and %s share the sentence \"%s\"", codes[i].name,
					 codes[j].name, msg);
	}
	assert_string_equal(rfm_strerror(RFM_OK), "success");
}

static void sign_of_the_code_is_ignored(void **state)
{
	for (size_t i = 0; i < NCODES; i++)
		assert_string_equal(rfm_strerror(-codes[i].code), rfm_strerror(codes[i].code));
}

static void unknown_codes_have_a_sentence_too(void **state)
{
	const int bad[] = { FIRST_UNUSED_CODE, -FIRST_UNUSED_CODE, -1000, 1000,
			    INT_MAX, INT_MIN, INT_MIN + 1 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *msg = rfm_strerror(bad[i]);

		assert_non_null(msg);
		assert_string_equal(msg, unknown);
	}
}

static void *first_message_of_a_new_thread(void *arg)
{
	/* A thread that has not failed yet sees "", whatever other threads did. */
	return (void *)(strcmp(rfm_last_error(), "") == 0 ? "empty" : rfm_last_error());
}

static void last_error_starts_empty(void **state)
{
	pthread_t t;
	void *result;

	assert_rfm_code(rfm_open("no-colon", NULL), RFM_EINVAL); /* make this thread fail */
	assert_int_equal(pthread_create(&t, NULL, first_message_of_a_new_thread, NULL), 0);
	assert_int_equal(pthread_join(t, &result), 0);
	assert_string_equal((const char *)result, "empty");
}

static void last_error_names_the_failure(void **state)
{
	rfm_node *node = (rfm_node *)0x1; /* must stay untouched */

	assert_rfm_code(rfm_open("bogus:thing", &node), RFM_ESCHEME);
	assert_ptr_equal(node, (rfm_node *)0x1);
	assert_last_error_has("bogus:thing");
	assert_last_error_has("unknown scheme");

	assert_rfm_code(rfm_open(NULL, NULL), RFM_EINVAL);
	assert_last_error_has("nodep");
}

static void last_error_survives_successful_calls(void **state)
{
	char before[512];

	assert_rfm_code(rfm_node_id(NULL), RFM_EINVAL);
	snprintf(before, sizeof(before), "%s", rfm_last_error());
	assert_true(before[0] != '\0');
	/* Calls that succeed leave the message of the last failure alone. */
	assert_non_null(rfm_strerror(RFM_EIO));
	assert_non_null(rfm_version_string());
	assert_string_equal(rfm_last_error(), before);
}

struct thread_failure {
	pthread_barrier_t *barrier;
	const char *uri;
	int ret;
	char message[512];
};

static void *fail_in_thread(void *arg)
{
	struct thread_failure *f = arg;
	rfm_node *node;

	f->ret = rfm_open(f->uri, &node);
	/* Both threads have failed before either reads its message. */
	pthread_barrier_wait(f->barrier);
	snprintf(f->message, sizeof(f->message), "%s", rfm_last_error());
	return NULL;
}

static void last_error_is_per_thread(void **state)
{
	pthread_barrier_t barrier;
	struct thread_failure a = { .barrier = &barrier, .uri = "first-thread:x" };
	struct thread_failure b = { .barrier = &barrier, .uri = "second-thread" };
	pthread_t ta, tb;

	assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
	assert_int_equal(pthread_create(&ta, NULL, fail_in_thread, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, fail_in_thread, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&barrier);

	assert_rfm_code(a.ret, RFM_EURI); /* "first-thread" has a '-': bad scheme */
	assert_rfm_code(b.ret, RFM_EURI);
	assert_non_null(strstr(a.message, "first-thread:x"));
	assert_null(strstr(a.message, "second-thread"));
	assert_non_null(strstr(b.message, "second-thread"));
	assert_null(strstr(b.message, "first-thread"));
}

static void long_messages_are_truncated_safely(void **state)
{
	/* An unknown scheme of ~1000 characters: the message quotes it twice. */
	char uri[1001];

	memset(uri, 'a', sizeof(uri) - 1);
	memcpy(uri + sizeof(uri) - 3, ":x", 3);
	assert_rfm_code(rfm_open(uri, &(rfm_node *){ NULL }), RFM_ESCHEME);
	assert_true(strlen(rfm_last_error()) > 100);
	assert_true(strlen(rfm_last_error()) < 4096);
	assert_last_error_has("aaaa");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codes_keep_their_values),
		cmocka_unit_test(every_code_has_its_own_sentence),
		cmocka_unit_test(sign_of_the_code_is_ignored),
		cmocka_unit_test(unknown_codes_have_a_sentence_too),
		cmocka_unit_test(last_error_starts_empty),
		cmocka_unit_test(last_error_names_the_failure),
		cmocka_unit_test(last_error_survives_successful_calls),
		cmocka_unit_test(last_error_is_per_thread),
		cmocka_unit_test(long_messages_are_truncated_safely),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
