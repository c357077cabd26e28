/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings where each node holds its own copy of the window, as on real
 * reflective memory: no backend needed. Three shm: networks stand for the
 * copies of node 0 (the producer), node 1 and node 2 (consumers). A
 * replicator in this file carries each copy's writes to the others, in the
 * writer's order, only when the test says so; until then a node sees only
 * its own writes, as a card does before the packets arrive.
 *
 * The replicator sees a write as a changed 64-bit word since the copy was
 * last replicated (a store of the value already there is not carried);
 * every write this test depends on changes its word.
 *
 * Two consumers on nodes 1 and 2 open with back-pressure at the same time
 * (neither has seen the other's claim). Format 1 of the consumer table
 * gave both the same entry (each saw it free in its own copy): the
 * producer's copy then held one cursor for both, and when one consumer
 * took everything the producer lapped the other. Format 2 gives each node
 * its own row, and the producer stays held back by the slower one.
 */
#include "rfm-cmocka.h"

#define WINDOW (1024 * 1024)
#define RING_OFF 4096
#define RING_SPACE (512 * 1024)
#define SLOTS 8u

struct copy {
	struct harness_network net;
	rfm_node *node;		/* the node this copy belongs to */
	rfm_node *present[2];	/* other node ids alive on this copy */
	uint8_t *mem;		/* the window */
	uint8_t *shadow;	/* the window as last replicated */
};

struct write_log {
	size_t count;
	uint64_t *offset;
	uint64_t *value;
};

static struct copy copies[3];

/* Node @id's copy, with the ids in @present alive on it too (the producer
 * asks its backend whether a consumer's node lives). */
static void copy_open(struct copy *c, int id, int present0, int present1)
{
	void *base;
	uint64_t size;

	harness_network_new(&c->net, WINDOW);
	if (present0 >= 0)
		assert_rfm_ok(rfm_open(harness_node_uri(&c->net, present0), &c->present[0]));
	if (present1 >= 0)
		assert_rfm_ok(rfm_open(harness_node_uri(&c->net, present1), &c->present[1]));
	assert_rfm_ok(rfm_open(harness_node_uri(&c->net, id), &c->node));
	assert_rfm_ok(rfm_mem_map(c->node, &base, &size));
	assert_int_equal(size, WINDOW);
	c->mem = base;
	c->shadow = calloc(1, WINDOW);
	assert_non_null(c->shadow);
	memcpy(c->shadow, c->mem, WINDOW);
}

static void copy_close(struct copy *c)
{
	rfm_close(c->node);
	rfm_close(c->present[0]);
	rfm_close(c->present[1]);
	harness_network_destroy(&c->net);
	free(c->shadow);
	memset(c, 0, sizeof(*c));
}

/* What @c wrote since it was last replicated, in window order. */
static struct write_log capture(struct copy *c)
{
	struct write_log log = { 0 };
	const uint64_t *now = (const uint64_t *)c->mem;
	uint64_t *was = (uint64_t *)c->shadow;

	log.offset = malloc(WINDOW / 8 * sizeof(uint64_t));
	log.value = malloc(WINDOW / 8 * sizeof(uint64_t));
	assert_true(log.offset && log.value);
	for (size_t i = 0; i < WINDOW / 8; i++) {
		uint64_t v = __atomic_load_n(&now[i], __ATOMIC_ACQUIRE);

		if (v != was[i]) {
			log.offset[log.count] = i;
			log.value[log.count++] = v;
			was[i] = v;
		}
	}
	return log;
}

/* The writes in @log arrive at every copy but @from. */
static void deliver(struct write_log *log, const struct copy *from)
{
	for (int k = 0; k < 3; k++) {
		struct copy *to = &copies[k];

		if (to == from)
			continue;
		for (size_t i = 0; i < log->count; i++) {
			__atomic_store_n((uint64_t *)to->mem + log->offset[i], log->value[i],
					 __ATOMIC_RELEASE);
			((uint64_t *)to->shadow)[log->offset[i]] = log->value[i];
		}
	}
	free(log->offset);
	free(log->value);
}

static void replicate(struct copy *from)
{
	struct write_log log = capture(from);

	deliver(&log, from);
}

static int setup(void **state)
{
	(void)state;
	copy_open(&copies[0], 0, 1, 2); /* the producer's copy knows 1 and 2 live */
	copy_open(&copies[1], 1, -1, -1);
	copy_open(&copies[2], 2, -1, -1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int k = 0; k < 3; k++)
		copy_close(&copies[k]);
	return 0;
}

/* Take every message there is, checking they are 0..SLOTS-1 in order. */
static void take_all(rfm_ring_consumer *c)
{
	struct rfm_ring_msg m;
	uint64_t v;

	for (uint64_t i = 0; i < SLOTS; i++) {
		assert_rfm_ok(rfm_ring_consume(c, &v, sizeof(v), &m, 0));
		assert_int_equal(m.seq, i);
		assert_int_equal(m.lost, 0);
		assert_int_equal(v, i * 1000 + 7);
	}
	/* Nothing new: the consumer publishes its cursor in its entry. */
	assert_rfm_code(rfm_ring_consume(c, &v, sizeof(v), &m, 0), RFM_EAGAIN);
}

static void test_concurrent_claims_on_two_copies(void **state)
{
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = 8,
		.slot_count = SLOTS,
		.flags = RFM_RING_F_BACKPRESSURE,
	};
	struct rfm_node_info a = { .struct_size = sizeof(a) }, b = { .struct_size = sizeof(b) };
	rfm_ring *r;
	rfm_ring_consumer *c1, *c2;
	uint64_t v;

	(void)state;
	/* The liveness the producer asks about is the consumers' own. */
	assert_rfm_ok(rfm_node_get_info(copies[0].present[0], &a));
	assert_rfm_ok(rfm_node_get_info(copies[1].node, &b));
	assert_int_equal(a.incarnation, b.incarnation);

	assert_rfm_ok(rfm_ring_create(copies[0].node, RING_OFF, RING_SPACE, &cfg, &r));
	replicate(&copies[0]);

	/* Both open before either's claim reaches the other. */
	assert_rfm_ok(rfm_ring_consumer_open(copies[1].node, RING_OFF,
					     RFM_RING_CONSUMER_BACKPRESSURE, &c1));
	assert_rfm_ok(rfm_ring_consumer_open(copies[2].node, RING_OFF,
					     RFM_RING_CONSUMER_BACKPRESSURE, &c2));
	struct write_log from1 = capture(&copies[1]), from2 = capture(&copies[2]);
	deliver(&from1, &copies[1]);
	deliver(&from2, &copies[2]);

	/* A lap of messages; the next would lap both consumers. */
	for (uint64_t i = 0; i < SLOTS; i++) {
		v = i * 1000 + 7;
		assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));
	}
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 0), RFM_EOVERRUN);
	replicate(&copies[0]);

	/* Node 1 takes everything; node 2 has taken nothing yet. */
	take_all(c1);
	replicate(&copies[1]);
	assert_rfm_code(rfm_ring_publish(r, &v, sizeof(v), 0), RFM_EOVERRUN);

	/* Node 2 got every message too, and then there is room. */
	take_all(c2);
	replicate(&copies[2]);
	v = SLOTS * 1000 + 7;
	assert_rfm_ok(rfm_ring_publish(r, &v, sizeof(v), 0));

	rfm_ring_consumer_close(c1);
	rfm_ring_consumer_close(c2);
	rfm_ring_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_concurrent_claims_on_two_copies, setup,
						teardown),
	};

	harness_init();
	/* Each copy is a network of its own, one memory for the nodes on it. */
	harness_require(HARNESS_CAP_OWN_NETWORKS | HARNESS_CAP_ANY_NODE_ID |
			    HARNESS_CAP_WINDOW_SIZE | HARNESS_CAP_ONE_MEMORY,
			"stands three one-memory networks in for three nodes' copies");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
