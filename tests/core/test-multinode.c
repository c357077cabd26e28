/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Several nodes as separate processes on one network, the way a real
 * installation uses it: every node writes only its own region, and reads
 * everyone else's.
 *
 *  - regions: each node writes a distinct pattern into its region (each by
 *    a different means: write, poke, inline store), says ready, and on "go"
 *    verifies every other node's region byte for byte;
 *  - token ring: the nodes take turns by a token word; on its turn a node
 *    checks what its predecessor wrote in this round, writes its own round
 *    data, and passes the token on with a release store.
 */
#include "config.h"

#include <sched.h>
#include <stdlib.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define NODES 4			/* child processes; the test process is one more node */
#define REGION (16 * 1024)	/* bytes each node owns */
#define WINDOW (NODES * REGION + 4096)
#define TOKEN_OFFSET (NODES * REGION) /* last page: the ring's token word */
#define ROUNDS 200

struct job {
	char uri[HARNESS_URI_MAX];	/* this child's node on the network */
	int node;			/* this child's node id and region index */
};

/* Word @index of node @node's region: distinct for every node and every word. */
static uint64_t pattern_word(int node, uint64_t index, uint64_t round)
{
	uint64_t x = ((uint64_t)node + 1) * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0xbf58476d1ce4e5b9ull;

	return x ^ (round * 0x94d049bb133111ebull) ^ (x >> 29);
}

static void expected_region(uint8_t *buf, int node, uint64_t round)
{
	for (uint64_t i = 0; i < REGION / 8; i++) {
		uint64_t w = pattern_word(node, i, round);

		memcpy(buf + i * 8, &w, 8);
	}
}

static uint64_t region_offset(int node)
{
	return (uint64_t)node * REGION;
}

static rfm_node *child_open(const struct job *job)
{
	rfm_node *node;

	HARNESS_CHECK_RFM(rfm_open(job->uri, &node));
	HARNESS_CHECK(rfm_node_id(node) == job->node);
	HARNESS_CHECK(rfm_node_size(node) == WINDOW);
	return node;
}

/* Write this node's region, each node by another route to the same bytes. */
static void write_region(rfm_node *node, int id, uint64_t round)
{
	uint8_t *buf = malloc(REGION), *base;
	uint64_t off = region_offset(id);
	void *map;

	HARNESS_CHECK(buf);
	expected_region(buf, id, round);
	HARNESS_CHECK_RFM(rfm_mem_map(node, &map, NULL));
	base = map;
	switch (id % 4) {
	case 0: /* bulk writes in odd-sized pieces */
		for (uint64_t done = 0; done < REGION;) {
			size_t piece = REGION - done < 1000 ? REGION - done : 1000;

			HARNESS_CHECK_RFM(rfm_mem_write(node, off + done, buf + done, piece));
			done += piece;
		}
		break;
	case 1: /* 64-bit pokes */
		for (uint64_t i = 0; i < REGION; i += 8) {
			uint64_t w;

			memcpy(&w, buf + i, 8);
			HARNESS_CHECK_RFM(rfm_mem_poke64(node, off + i, w));
		}
		break;
	case 2: /* 32-, 16- and 8-bit pokes */
		for (uint64_t i = 0; i < REGION; i += 8) {
			uint32_t w32;
			uint16_t w16;

			memcpy(&w32, buf + i, 4);
			HARNESS_CHECK_RFM(rfm_mem_poke32(node, off + i, w32));
			memcpy(&w16, buf + i + 4, 2);
			HARNESS_CHECK_RFM(rfm_mem_poke16(node, off + i + 4, w16));
			HARNESS_CHECK_RFM(rfm_mem_poke8(node, off + i + 6, buf[i + 6]));
			HARNESS_CHECK_RFM(rfm_mem_poke8(node, off + i + 7, buf[i + 7]));
		}
		break;
	default: /* inline stores through the mapping */
		for (uint64_t i = 0; i < REGION; i += 8) {
			uint64_t w;

			memcpy(&w, buf + i, 8);
			rfm_store64_release(base, off + i, w);
		}
		break;
	}
	free(buf);
}

/* Number of bytes of node @owner's region that differ from its pattern. */
static size_t region_mismatches(rfm_node *node, int owner, uint64_t round)
{
	uint8_t *want = malloc(REGION), *got = malloc(REGION);
	size_t bad = 0;

	HARNESS_CHECK(want && got);
	expected_region(want, owner, round);
	HARNESS_CHECK_RFM(rfm_mem_read(node, region_offset(owner), got, REGION));
	for (size_t i = 0; i < REGION; i++)
		if (got[i] != want[i]) {
			if (!bad)
				fprintf(stderr, "node region %d: first difference at byte %zu\n",
					owner, i);
			bad++;
		}
	free(want);
	free(got);
	return bad;
}

static int region_node(struct harness_link *link, void *arg)
{
	const struct job *job = arg;
	rfm_node *node = child_open(job);
	size_t bad = 0;

	write_region(node, job->node, 0);
	HARNESS_CHECK(region_mismatches(node, job->node, 0) == 0);
	harness_link_ready(link);
	harness_link_wait_go(link);

	/* Everyone has written: every region is complete. */
	for (int other = 0; other < NODES; other++)
		bad += region_mismatches(node, other, 0);
	rfm_close(node);
	if (bad)
		fprintf(stderr, "node %d: %zu bytes differ from the writers' patterns\n", job->node,
			bad);
	return bad ? 1 : 0;
}

struct fixture {
	struct harness_network net;
	rfm_node *observer; /* the test process's own node */
	struct job jobs[NODES];
	struct harness_child children[NODES];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const int observer_id = NODES;
	rfm_node **const nodes[] = { &f->observer };

	if (!f || harness_fixture_nodes(&f->net, WINDOW, &observer_id, nodes, 1)) {
		free(f);
		return -1;
	}
	for (int i = 0; i < NODES; i++) {
		snprintf(f->jobs[i].uri, sizeof(f->jobs[i].uri), "%s",
			 harness_node_uri(&f->net, i));
		f->jobs[i].node = i;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	rfm_node **const nodes[] = { &f->observer };

	harness_fixture_nodes_close(&f->net, nodes, 1);
	free(f);
	return 0;
}

static void nodes_verify_each_others_regions(void **state)
{
	struct fixture *f = *state;

	for (int i = 0; i < NODES; i++)
		harness_child_spawn(&f->children[i], region_node, &f->jobs[i], sizeof(f->jobs[i]));
	for (int i = 0; i < NODES; i++)
		assert_int_equal(harness_child_wait_ready(&f->children[i]), 0);

	/* All attached at once: the children and the test process, itself a node. */
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	assert_rfm_ok(rfm_node_get_info(f->observer, &info));
	assert_int_equal(info.nodes_attached, NODES + 1);

	/* The test process sees every region complete. */
	for (int i = 0; i < NODES; i++)
		assert_int_equal(region_mismatches(f->observer, i, 0), 0);

	for (int i = 0; i < NODES; i++)
		harness_child_go(&f->children[i]);
	for (int i = 0; i < NODES; i++)
		if (harness_child_wait(&f->children[i]) != 0)
			fail_msg("node %d (pid %d) found a bad region or failed a check", i,
				 (int)f->children[i].pid);

	/* Their writes outlive them. */
	for (int i = 0; i < NODES; i++)
		assert_int_equal(region_mismatches(f->observer, i, 0), 0);
}

/* Spin until the token shows @want; be polite to the other processes meanwhile. */
static void wait_token(const uint8_t *base, uint32_t want)
{
	while (rfm_load32_acquire(base, TOKEN_OFFSET) != want)
		sched_yield();
}

/* Token value for node @id's turn in @round (never 0: 0 is "not started"). */
static uint32_t turn(int id, uint32_t round)
{
	return round * NODES + (uint32_t)id + 1;
}

static int ring_node(struct harness_link *link, void *arg)
{
	const struct job *job = arg;
	rfm_node *node = child_open(job);
	int prev = (job->node + NODES - 1) % NODES;
	uint8_t *base;
	void *map;

	HARNESS_CHECK_RFM(rfm_mem_map(node, &map, NULL));
	base = map;
	harness_link_ready(link);
	harness_link_wait_go(link);

	for (uint32_t round = 0; round < ROUNDS; round++) {
		wait_token(base, turn(job->node, round));
		/* The predecessor wrote its data for this round (or the last) before the token. */
		uint32_t prev_round = job->node == 0 ? round - 1 : round;
		if (round > 0 || job->node > 0)
			HARNESS_CHECK(region_mismatches(node, prev, prev_round) == 0);
		/* Our data of the last round is still intact: nobody else wrote it. */
		if (round > 0)
			HARNESS_CHECK(region_mismatches(node, job->node, round - 1) == 0);
		/* Every round changes every word of the region. */
		write_region(node, job->node, round);
		rfm_store32_release(base, TOKEN_OFFSET, turn(job->node, round) + 1);
	}
	rfm_close(node);
	return 0;
}

static void nodes_pass_a_token_ring(void **state)
{
	struct fixture *f = *state;
	void *map;

	assert_rfm_ok(rfm_mem_map(f->observer, &map, NULL));
	for (int i = 0; i < NODES; i++)
		harness_child_spawn(&f->children[i], ring_node, &f->jobs[i], sizeof(f->jobs[i]));
	for (int i = 0; i < NODES; i++)
		assert_int_equal(harness_child_wait_ready(&f->children[i]), 0);
	for (int i = 0; i < NODES; i++)
		harness_child_go(&f->children[i]);

	/* Start the ring: node 0's first turn. */
	rfm_store32_release(map, TOKEN_OFFSET, turn(0, 0));
	for (int i = 0; i < NODES; i++)
		if (harness_child_wait(&f->children[i]) != 0)
			fail_msg("ring node %d (pid %d) failed", i, (int)f->children[i].pid);

	/* Every turn was taken exactly once, in order. */
	assert_int_equal(rfm_load32_acquire(map, TOKEN_OFFSET), turn(0, ROUNDS));
	for (int i = 0; i < NODES; i++)
		assert_int_equal(region_mismatches(f->observer, i, ROUNDS - 1), 0);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(nodes_verify_each_others_regions),
		TEST(nodes_pass_a_token_ring),
	};

	harness_init();
	/* Children open node ids of their own and read each other's stores at
	 * once, through the mapping too. (dev: runs the same checks across
	 * guests in driver/lab/guest/vmtest.c.) */
	harness_require(HARNESS_CAP_FORK | HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE |
			    HARNESS_CAP_KNOWS_ATTACHED | HARNESS_CAP_ONE_MEMORY,
			"node processes of chosen ids read each other's stores at once");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
