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

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include <rfm/rfm.h>

#include "harness.h"

/*
 * The harness's hang guard (HARNESS_HANG_TIMEOUT_MS) from now, on
 * CLOCK_REALTIME: the clock of sem_timedwait() and of a pthread_cond_t
 * made with default attributes. For waits on another thread of the test
 * process, which the harness's child guard does not cover.
 */
static inline struct timespec harness_guard_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += HARNESS_HANG_TIMEOUT_MS / 1000;
	return ts;
}

/* sem_wait() for a post another thread must make: past the hang guard the
 * case fails naming @what, instead of hanging this and every later case. */
#define assert_sem_posted(sem, what)                                                   \
	do {                                                                           \
		struct timespec dl_ = harness_guard_deadline();                        \
		int r_;                                                                \
		while ((r_ = sem_timedwait((sem), &dl_)) != 0 && errno == EINTR)       \
			;                                                              \
		if (r_ != 0)                                                           \
			fail_msg("%s: not within %d s", (what),                        \
				 HARNESS_HANG_TIMEOUT_MS / 1000);                      \
	} while (0)

/* With @lock held: wait on @cond until @until is true. Past the hang guard
 * the lock is released and the case fails naming @what. */
#define assert_cond_wait_until(cond, lock, until, what)                                \
	do {                                                                           \
		struct timespec dl_ = harness_guard_deadline();                        \
		while (!(until)) {                                                     \
			if (pthread_cond_timedwait((cond), (lock), &dl_) == ETIMEDOUT &&  \
			    !(until)) {                                                \
				pthread_mutex_unlock(lock);                            \
				fail_msg("%s: not within %d s", (what),                \
					 HARNESS_HANG_TIMEOUT_MS / 1000);              \
			}                                                              \
		}                                                                      \
	} while (0)

/*
 * The fixture most suites share: a fresh network of @size bytes as the
 * test's state (setup), and, after the test, every child killed and the
 * network destroyed (teardown). A suite's setup calls the first with its
 * window size; the second is a CMocka teardown as it is.
 */
static inline int harness_fixture_network(void **state, uint64_t size)
{
	struct harness_network *net = calloc(1, sizeof(*net));

	if (!net)
		return -1;
	harness_network_new(net, size);
	*state = net;
	return 0;
}

static inline int harness_fixture_teardown(void **state)
{
	struct harness_network *net = *state;

	harness_kill_children();
	harness_network_destroy(net);
	free(net);
	return 0;
}

/*
 * The same for a suite whose fixture also holds open nodes: in its setup,
 * a fresh network of @size bytes in @net and node @ids[i] (or
 * HARNESS_ANY_NODE) opened into *@nodes[i], in order. 0, or -1 with the
 * library's message printed and every node opened so far closed (CMocka
 * then fails the test without calling the teardown).
 */
static inline int harness_fixture_nodes(struct harness_network *net, uint64_t size,
					const int *ids, rfm_node **const *nodes, size_t n)
{
	harness_network_new(net, size);
	for (size_t i = 0; i < n; i++)
		if (rfm_open(harness_node_uri(net, ids[i]), nodes[i])) {
			print_error("setup: node %d: %s\n", ids[i], rfm_last_error());
			while (i--) {
				rfm_close(*nodes[i]);
				*nodes[i] = NULL;
			}
			harness_network_destroy(net);
			return -1;
		}
	return 0;
}

/* Its teardown's half: every child killed, the @n nodes closed last one
 * first (NULL ones skipped), the network destroyed. The suite frees its
 * fixture. */
static inline void harness_fixture_nodes_close(struct harness_network *net,
					       rfm_node **const *nodes, size_t n)
{
	harness_kill_children();
	while (n--) {
		rfm_close(*nodes[n]);
		*nodes[n] = NULL;
	}
	harness_network_destroy(net);
}

/* Skip the current test, saying @why, unless the backend under test has
 * every capability in @caps (HARNESS_CAP_*). */
#define skip_unless_can(caps, why)                                                                 \
	do {                                                                                       \
		if (!harness_can(caps)) {                                                          \
			print_message("skipped: %s (not on %s:)\n", (why), harness_backend());     \
			skip();                                                                    \
		}                                                                                  \
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
