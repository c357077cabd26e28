/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Many processes opening one network at the same moment: exactly one
 * creates it, everyone attaches to the same window, and the first-free
 * node ids they receive are all different. And a process that loses the
 * race to set a new network up, and then fails, must not remove the
 * network the winner made.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define RACERS 8
#define WINDOW 4096
#define ROUNDS 5

struct report {
	int ret;	/* rfm_open() result */
	int id;		/* node id received */
	uint64_t size;	/* window size seen */
};

static int racer(struct harness_link *link, void *arg)
{
	const char *uri = arg;
	struct report r = { 0 };
	rfm_node *node = NULL;

	/* Everyone waits at the start line, so the opens really overlap. */
	harness_link_ready(link);
	harness_link_wait_go(link);
	r.ret = rfm_open(uri, &node);
	if (!r.ret) {
		r.id = rfm_node_id(node);
		r.size = rfm_node_size(node);
		/* Mark our slot, so the parent can tell the windows are one. */
		HARNESS_CHECK_RFM(rfm_mem_poke8(node, (uint64_t)r.id, 1));
	} else {
		fprintf(stderr, "racer: %s\n", rfm_last_error());
	}
	harness_link_send(link, &r, sizeof(r));
	/* Hold the id until every racer has reported. */
	harness_link_wait_go(link);
	rfm_close(node);
	return 0;
}

static void simultaneous_first_opens(void **state)
{
	for (int round = 0; round < ROUNDS; round++) {
		struct harness_network net;
		struct harness_child children[RACERS];
		struct report reports[RACERS];
		bool taken[RACERS] = { false };
		char uri[HARNESS_URI_MAX];
		rfm_node *check;
		uint8_t marks[RACERS];

		/* The network does not exist yet: the racers also race to create it. */
		harness_network_new(&net, WINDOW);
		snprintf(uri, sizeof(uri), "%s", harness_node_uri(&net, HARNESS_ANY_NODE));
		for (int i = 0; i < RACERS; i++)
			harness_child_start(&children[i], racer, uri);
		for (int i = 0; i < RACERS; i++)
			assert_int_equal(harness_child_wait_ready(&children[i]), 0);
		for (int i = 0; i < RACERS; i++)
			harness_child_go(&children[i]);
		for (int i = 0; i < RACERS; i++) {
			assert_int_equal(harness_child_recv(&children[i], &reports[i],
							    sizeof(reports[i])),
					 0);
			assert_rfm_ok(reports[i].ret);
			assert_int_equal(reports[i].size, WINDOW);
			assert_in_range(reports[i].id, 0, RACERS - 1);
			if (taken[reports[i].id])
				fail_msg("round %d: node id %d handed out twice", round,
					 reports[i].id);
			taken[reports[i].id] = true;
		}

		/* One network: every racer's mark is in the same window. */
		assert_rfm_ok(rfm_open(harness_node_uri(&net, HARNESS_ANY_NODE), &check));
		assert_int_equal(rfm_node_id(check), RACERS);
		assert_rfm_ok(rfm_mem_read(check, 0, marks, RACERS));
		for (int i = 0; i < RACERS; i++)
			assert_int_equal(marks[i], 1);
		struct rfm_node_info info = { .struct_size = sizeof(info) };
		assert_rfm_ok(rfm_node_get_info(check, &info));
		assert_int_equal(info.nodes_attached, RACERS + 1);

		for (int i = 0; i < RACERS; i++)
			harness_child_go(&children[i]);
		for (int i = 0; i < RACERS; i++)
			assert_int_equal(harness_child_wait(&children[i]), 0);
		assert_rfm_ok(rfm_node_get_info(check, &info));
		assert_int_equal(info.nodes_attached, 1);
		rfm_close(check);
		assert_rfm_ok(harness_network_destroy(&net));
	}
}

/*
 * Interposed flock(): the shm: backend takes the segment's lock right after
 * creating the file. When armed, the first lock attempt first lets another
 * process open the same network, which deterministically puts that process
 * in the gap between our creating the file and our locking it.
 */
static struct harness_child *flock_hook_child;
static bool flock_hook_fired;

int flock(int fd, int operation)
{
	static int (*real_flock)(int, int);

	if (!real_flock)
		real_flock = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
	if (flock_hook_child && (operation & LOCK_EX)) {
		struct harness_child *child = flock_hook_child;

		flock_hook_child = NULL;
		flock_hook_fired = true;
		harness_child_go(child);
		if (harness_child_wait_ready(child) < 0)
			harness_fail(__FILE__, __LINE__, "the other opener died");
	}
	return real_flock(fd, operation);
}

static int other_opener(struct harness_link *link, void *arg)
{
	rfm_node *node;

	harness_link_wait_go(link);
	HARNESS_CHECK_RFM(rfm_open(arg, &node));
	HARNESS_CHECK_RFM(rfm_mem_poke32(node, 0, 0x600d));
	harness_link_ready(link);
	harness_link_wait_go(link);
	rfm_close(node);
	return 0;
}

static void losing_creator_leaves_the_network_alone(void **state)
{
	struct harness_network net;
	struct harness_child winner;
	char winner_uri[HARNESS_URI_MAX];
	rfm_node *loser = NULL, *check;
	uint32_t mark;
	int ret;

	skip_unless_can(HARNESS_CAP_SEGMENT | HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE,
			"races the creation of a segment file, node ids and sizes chosen");
	harness_network_new(&net, 0);
	snprintf(winner_uri, sizeof(winner_uri), "%s", harness_network_uri(&net, "node=0&size=8K"));
	harness_child_start(&winner, other_opener, winner_uri);

	/* We create the file; the winner sets it up as 8K before we lock; we asked 4K. */
	flock_hook_child = &winner;
	flock_hook_fired = false;
	ret = rfm_open(harness_network_uri(&net, "node=1&size=4K"), &loser);
	flock_hook_child = NULL;
	if (!flock_hook_fired) {
		print_message("skipped: the shm: backend no longer calls flock()\n");
		skip();
	}
	assert_rfm_code(ret, RFM_ESIZE);
	assert_null(loser);

	/* The winner's network is still there, with the winner on it. */
	assert_rfm_ok(rfm_open(harness_network_uri(&net, "node=2"), &check));
	assert_int_equal(rfm_node_size(check), 8192);
	assert_rfm_ok(rfm_mem_peek32(check, 0, &mark));
	assert_int_equal(mark, 0x600d);
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	assert_rfm_ok(rfm_node_get_info(check, &info));
	assert_int_equal(info.nodes_attached, 2);
	rfm_close(check);

	harness_child_go(&winner);
	assert_int_equal(harness_child_wait(&winner), 0);
	assert_rfm_ok(harness_network_destroy(&net));
}

static int teardown(void **state)
{
	harness_kill_children();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(simultaneous_first_opens, teardown),
		cmocka_unit_test_teardown(losing_creator_leaves_the_network_alone, teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
