/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records with a `notify` key: a publish broadcasts the event with the new
 * sequence, and rfm_record_wait() in another process sleeps on it; a bad
 * notify value is a layout error with its position.
 */
#include "rfm-cmocka.h"

/* Runs on every backend: `make check` runs it once more on each backend
 * the harness marks for an extra pass (dds:, run-dds-suites.sh). */
HARNESS_SHARED_SUITE(0);

static const char layout_text[] = "version: 1\n"
				  "window: 1M\n"
				  "regions:\n"
				  "  - name: state\n"
				  "    offset: 0x1000\n"
				  "    size: 0x100\n"
				  "    writer: 1\n"
				  "    records:\n"
				  "      - name: frame\n"
				  "        notify: intr2\n"
				  "        variables: [ { name: x, type: u64 } ]\n";

static int setup(void **state)
{
	return harness_fixture_network(state, 1024 * 1024);
}

static rfm_layout *load(const char *text)
{
	rfm_layout *layout = NULL;

	if (rfm_layout_load_string(text, strlen(text), "test", &layout, NULL))
		return NULL;
	return layout;
}

static int waiter(struct harness_link *link, void *arg)
{
	rfm_layout *layout = load(layout_text);
	rfm_node *node;
	rfm_record *rec;
	uint32_t seq0, seq;
	uint64_t x = 0;

	HARNESS_CHECK(layout);
	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(arg, 2), &node));
	HARNESS_CHECK_RFM(rfm_record_open(layout, node, "state.frame", &rec));
	HARNESS_CHECK_RFM(rfm_event_set_spin(node, 0));
	/* Enabled before "ready": the publish's event is queued for us. */
	HARNESS_CHECK_RFM(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	HARNESS_CHECK_RFM(rfm_record_sequence(rec, &seq0));
	harness_link_ready(link);
	HARNESS_CHECK_RFM(rfm_record_wait(rec, seq0, -1, &seq));
	HARNESS_CHECK(seq == seq0 + 2);
	HARNESS_CHECK(rfm_record_read(rec, &x, sizeof(x), NULL) >= 0);
	HARNESS_CHECK(x == 42);
	harness_link_send(link, &seq, sizeof(seq));
	rfm_record_close(rec);
	rfm_close(node);
	rfm_layout_free(layout);
	return 0;
}

static void test_publish_wakes_waiter(void **state)
{
	rfm_layout *layout = load(layout_text);
	struct harness_child kid;
	rfm_node *node;
	rfm_record *rec;
	uint64_t x = 42;
	uint32_t seq, got;
	struct harness_network *net = *state;

	if (harness_fork_unsupported()) {
		print_message("skipped: %s\n", harness_fork_unsupported());
		rfm_layout_free(layout);
		skip();
	}
	assert_non_null(layout);
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &node));
	assert_rfm_ok(rfm_record_open(layout, node, "state.frame", &rec));
	assert_rfm_ok(rfm_record_sequence(rec, &seq));
	assert_rfm_code(rfm_record_wait(rec, seq, 0, NULL), RFM_EAGAIN);
	assert_rfm_code(rfm_record_wait(rec, seq, 1000000, NULL), RFM_ETIMEDOUT);
	harness_child_spawn(&kid, waiter, net, sizeof(*net));
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	assert_rfm_ok(rfm_record_write(rec, &x, sizeof(x)));
	assert_int_equal(harness_child_recv(&kid, &got, sizeof(got)), 0);
	assert_int_equal(got, seq + 2);
	assert_int_equal(harness_child_wait(&kid), 0);
	/* An older sequence is answered at once. */
	assert_rfm_ok(rfm_record_wait(rec, seq, 0, &got));
	assert_int_equal(got, seq + 2);
	assert_rfm_code(rfm_record_wait(NULL, 0, 0, NULL), RFM_EINVAL);
	rfm_record_close(rec);
	rfm_close(node);
	rfm_layout_free(layout);
}

static void test_bad_notify(void **state)
{
	static const char bad[] = "version: 1\n"
				  "window: 1M\n"
				  "regions:\n"
				  "  - name: state\n"
				  "    offset: 0x1000\n"
				  "    size: 0x100\n"
				  "    writer: 1\n"
				  "    records:\n"
				  "      - name: frame\n"
				  "        notify: intr9\n"
				  "        variables: [ { name: x, type: u64 } ]\n";
	rfm_layout *layout = NULL;
	rfm_diag_list *diags = NULL;
	struct rfm_diag d = { .struct_size = sizeof(d) };

	(void)state;
	assert_rfm_code(rfm_layout_load_string(bad, sizeof(bad) - 1, "bad", &layout, &diags),
			RFM_ELAYOUT);
	assert_int_equal(rfm_diag_list_count(diags), 1);
	assert_rfm_ok(rfm_diag_list_get(diags, 0, &d));
	assert_int_equal(d.line, 10);
	assert_non_null(strstr(d.message, "intr9"));
	rfm_diag_list_free(diags);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_publish_wakes_waiter, setup, harness_fixture_teardown),
		cmocka_unit_test(test_bad_notify),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
