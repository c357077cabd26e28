/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm_event_handle() on Windows: the event handle a program's loop waits
 * on (WaitForMultipleObjects()) is signalled exactly while records are
 * queued, across processes, and rfm_event_fd() says there is none of its
 * kind here. Built for Windows only (tests/windows/local.mk).
 */
#include "config.h"

#include <windows.h>

#include "rfm-cmocka.h"

static struct harness_network net;

static void test_handle_signalled_while_queued(void **state)
{
	rfm_node *rx, *tx;
	struct rfm_event ev;
	void *h = NULL, *again = NULL;

	harness_network_new(&net, 64 * 1024);
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 1), &rx));
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 2), &tx));
	assert_rfm_ok(rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_rfm_ok(rfm_event_handle(rx, &h));
	assert_non_null(h);
	assert_rfm_ok(rfm_event_handle(rx, &again));
	assert_ptr_equal(h, again);
	assert_int_equal(WaitForSingleObject(h, 0), WAIT_TIMEOUT);

	assert_int_equal(rfm_event_send(tx, 1, RFM_EVENT_INTR1, 7), 1);
	assert_int_equal(WaitForSingleObject(h, HARNESS_HANG_TIMEOUT_MS), WAIT_OBJECT_0);
	assert_int_equal(rfm_event_fetch(rx, &ev, 1, 0), 1);
	assert_int_equal(ev.data, 7);
	/* Empty again: the fetch that found nothing more reset it. */
	assert_int_equal(rfm_event_fetch(rx, &ev, 1, 0), RFM_EAGAIN);
	assert_int_equal(WaitForSingleObject(h, 0), WAIT_TIMEOUT);
	rfm_close(tx);
	rfm_close(rx);
}

static void test_no_descriptor_here(void **state)
{
	rfm_node *node;

	harness_network_new(&net, 64 * 1024);
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 1), &node));
	assert_int_equal(rfm_event_fd(node), RFM_ENOTSUP);
	assert_last_error_has("rfm_event_handle()");
	assert_int_equal(rfm_event_handle(NULL, NULL), RFM_EINVAL);
	rfm_close(node);
}

/* The sender: another process, which the handle's watcher must hear. */
static int sender_child(struct harness_link *link, void *arg)
{
	const struct harness_network *n = arg;
	struct harness_network copy = *n;
	rfm_node *tx;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(&copy, 2), &tx));
	harness_link_ready(link);
	harness_link_wait_go(link);
	HARNESS_CHECK(rfm_event_send(tx, 1, RFM_EVENT_INTR2, 42) == 1);
	rfm_close(tx);
	return 0;
}

static void test_handle_across_processes(void **state)
{
	struct harness_child kid;
	rfm_node *rx;
	struct rfm_event ev;
	void *h;

	harness_network_new(&net, 64 * 1024);
	assert_rfm_ok(rfm_open(harness_node_uri(&net, 1), &rx));
	assert_rfm_ok(rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	assert_rfm_ok(rfm_event_handle(rx, &h));
	harness_child_spawn(&kid, sender_child, &net, sizeof(net));
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	assert_int_equal(WaitForSingleObject(h, 0), WAIT_TIMEOUT);
	harness_child_go(&kid);
	assert_int_equal(WaitForSingleObject(h, HARNESS_HANG_TIMEOUT_MS), WAIT_OBJECT_0);
	assert_int_equal(rfm_event_fetch(rx, &ev, 1, 0), 1);
	assert_int_equal(ev.type, RFM_EVENT_INTR2);
	assert_int_equal(ev.data, 42);
	assert_int_equal(harness_child_wait(&kid), 0);
	rfm_close(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handle_signalled_while_queued),
		cmocka_unit_test(test_no_descriptor_here),
		cmocka_unit_test(test_handle_across_processes),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
