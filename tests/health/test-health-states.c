/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Leaving is not dying: the node table says what each node is now
 * (enum rfm_node_state). A node that closes cleanly has left; one whose
 * process dies without closing (SIGKILL, SIGINT with no handler) has
 * crashed and never reads as attached, whether it beat or not (it used to
 * stay "attached" with a dead pid: a ghost row); one still attached whose
 * beats stop is silent; one that stops its heartbeat but stays attached is
 * attached. rfm_node_get_info()'s count of attached nodes agrees with the
 * table's. On backends that know who holds each id (shm:), from processes.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rfm-cmocka.h"

#define PERIOD_NS 20000000ull	/* 20 ms: silent after 3 misses, 60 ms */

static struct harness_network *net;

static int setup(void **state)
{
	int ret = harness_fixture_network(state, 1024 * 1024);

	net = *state;
	return ret;
}

enum how { CLOSE, STAY_SILENT, STOP_HEALTH, WAIT_FOR_SIGNAL };

struct child_plan {
	int id;
	bool beat;		/* run a heartbeat thread */
	enum how how;		/* after "go" */
};

/* Opens node plan->id (beating if asked), reports ready; on "go" does plan->how. */
static int node_child(struct harness_link *link, void *arg)
{
	const struct child_plan *p = arg;
	const struct rfm_health_config hc = { .struct_size = sizeof(hc), .period_ns = PERIOD_NS };
	rfm_node *node;

	HARNESS_CHECK_RFM(rfm_open(harness_node_uri(net, p->id), &node));
	if (p->beat)
		HARNESS_CHECK_RFM(rfm_health_start(node, &hc));
	if (p->how == STAY_SILENT) {
		/* Beats by hand, once: attached, then silent. */
		HARNESS_CHECK_RFM(rfm_health_beat(node, PERIOD_NS));
	}
	harness_link_ready(link);
	harness_link_wait_go(link);
	if (p->how == CLOSE) {
		rfm_close(node);
		return 0;
	}
	if (p->how == STOP_HEALTH) {
		HARNESS_CHECK_RFM(rfm_health_stop(node));
		harness_link_ready(link);
	}
	/* Attached until killed, or until the parent says go again. */
	harness_link_wait_go(link);
	rfm_close(node);
	return 0;
}

static void start(struct harness_child *kid, struct child_plan *plan)
{
	harness_child_start(kid, node_child, plan);
	assert_int_equal(harness_child_wait_ready(kid), 0);
}

/* The row of node @id now; false when the table has none. */
static bool row(rfm_node *watcher, int id, struct rfm_node_status *out)
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	int n = rfm_health_nodes(watcher, rows, RFM_MAX_NODES);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++)
		if ((int)rows[i].id == id) {
			*out = rows[i];
			return true;
		}
	return false;
}

/* Look at the table until node @id is in @state (a hang guard, not a timing assertion). */
static struct rfm_node_status wait_state(rfm_node *watcher, int id, uint32_t state)
{
	struct rfm_node_status r = { 0 };
	uint64_t give_up = rfm_event_now_ns() + HARNESS_HANG_TIMEOUT_MS * 1000000ull;

	while (!row(watcher, id, &r) || r.state != state) {
		if (rfm_event_now_ns() > give_up)
			fail_msg("node %d: state %s, not %s", id, rfm_node_state_name(r.state),
				 rfm_node_state_name(state));
		usleep(1000);
	}
	return r;
}

static uint32_t attached_count(rfm_node *watcher)
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	int n = rfm_health_nodes(watcher, rows, RFM_MAX_NODES);
	uint32_t attached = 0;

	for (int i = 0; i < n; i++)
		attached += rows[i].attached;
	assert_rfm_ok(rfm_node_get_info(watcher, &info));
	/* One source of truth: the count info gives is the table's. */
	assert_int_equal(info.nodes_attached, attached);
	return attached;
}

static rfm_node *watcher(void)
{
	rfm_node *node;

	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &node));
	return node;
}

static void test_clean_close_is_left(void **state)
{
	(void)state;
	rfm_node *w = watcher();
	struct child_plan plan = { .id = 3, .beat = true, .how = CLOSE };
	struct harness_child kid;

	start(&kid, &plan);
	struct rfm_node_status r = wait_state(w, 3, RFM_NODE_STATE_UP);
	assert_int_equal(r.attached, 1);
	assert_int_equal(r.pid, kid.pid);
	assert_int_equal(attached_count(w), 2);
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait(&kid), 0);
	r = wait_state(w, 3, RFM_NODE_STATE_LEFT);
	assert_int_equal(r.attached, 0);
	assert_int_equal(r.alive, 0);
	assert_int_equal(r.pid, 0);
	assert_string_equal(rfm_node_state_name(r.state), "left");
	assert_int_equal(attached_count(w), 1);
	rfm_close(w);
}

static void killed_is_crashed(int sig, bool beat)
{
	rfm_node *w = watcher();
	struct child_plan plan = { .id = 3, .beat = beat, .how = WAIT_FOR_SIGNAL };
	struct harness_child kid;
	struct rfm_node_status r;

	start(&kid, &plan);
	r = wait_state(w, 3, beat ? RFM_NODE_STATE_UP : RFM_NODE_STATE_ATTACHED);
	assert_int_equal(attached_count(w), 2);
	pid_t pid = kid.pid;
	kill(pid, sig);
	assert_int_equal(harness_child_wait(&kid), 128 + sig);
	/* At once: the holder's lock went with its process. */
	assert_true(row(w, 3, &r));
	assert_string_equal(rfm_node_state_name(r.state), "crashed");
	assert_int_equal(r.attached, 0);
	assert_int_equal(r.alive, 0);
	assert_int_equal(r.pid, pid);	/* which process it was */
	assert_int_equal(attached_count(w), 1);
	/* The id is free for a restart, which is up (or attached) again. */
	struct child_plan again = { .id = 3, .beat = beat, .how = CLOSE };
	start(&kid, &again);
	r = wait_state(w, 3, beat ? RFM_NODE_STATE_UP : RFM_NODE_STATE_ATTACHED);
	assert_int_equal(r.pid, kid.pid);
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait(&kid), 0);
	rfm_close(w);
}

static void test_sigkill_is_crashed(void **state)
{
	(void)state;
	killed_is_crashed(SIGKILL, true);
}

static void test_sigint_is_crashed(void **state)
{
	(void)state;
	killed_is_crashed(SIGINT, true);
}

/* The ghost: a node that never beat, killed, stayed "attached". */
static void test_killed_without_heartbeat_is_no_ghost(void **state)
{
	(void)state;
	killed_is_crashed(SIGINT, false);
}

static void test_stopped_beats_are_silent(void **state)
{
	(void)state;
	rfm_node *w = watcher();
	struct child_plan plan = { .id = 4, .how = STAY_SILENT };
	struct harness_child kid;

	start(&kid, &plan);
	struct rfm_node_status r = wait_state(w, 4, RFM_NODE_STATE_SILENT);
	assert_int_equal(r.attached, 1);
	assert_int_equal(r.alive, 0);
	assert_int_equal(r.pid, kid.pid);
	harness_child_go(&kid);
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait(&kid), 0);
	rfm_close(w);
}

static void test_health_stopped_but_attached(void **state)
{
	(void)state;
	rfm_node *w = watcher();
	struct child_plan plan = { .id = 5, .beat = true, .how = STOP_HEALTH };
	struct harness_child kid;

	start(&kid, &plan);
	wait_state(w, 5, RFM_NODE_STATE_UP);
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait_ready(&kid), 0);
	struct rfm_node_status r = wait_state(w, 5, RFM_NODE_STATE_ATTACHED);
	assert_int_equal(r.attached, 1);
	assert_int_equal(attached_count(w), 2);
	harness_child_go(&kid);
	assert_int_equal(harness_child_wait(&kid), 0);
	wait_state(w, 5, RFM_NODE_STATE_LEFT);
	rfm_close(w);
}

static void test_state_names(void **state)
{
	(void)state;
	static const char *const names[] = { "unknown", "up", "attached", "silent", "left",
					     "crashed" };

	for (unsigned int s = 0; s < 6; s++)
		assert_string_equal(rfm_node_state_name(s), names[s]);
	assert_string_equal(rfm_node_state_name(99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_names),
		cmocka_unit_test_setup_teardown(test_clean_close_is_left, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_is_crashed, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_sigint_is_crashed, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_killed_without_heartbeat_is_no_ghost, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stopped_beats_are_silent, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_health_stopped_but_attached, setup,
						harness_fixture_teardown),
	};

	harness_init();
	harness_require(HARNESS_CAP_FORK | HARNESS_CAP_KNOWS_ATTACHED | HARNESS_CAP_ANY_NODE_ID,
			"the states need processes holding node ids a backend knows of");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
