/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event part of the shared segment under attack: corrupt header
 * fields, corrupt records, a sender that claimed a slot and died, and
 * absurd positions. Every case must give an error or a counted loss,
 * never a crash or a hang. This suite knows the segment layout
 * (src/backends/shm/shm-segment.h) to forge those states.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "ev-test.h"
#include "backends/shm/shm-segment.h"

struct seg {
	const char *name;
	rfm_node *tx, *rx;
	uint8_t *map;
	size_t size;
	struct rfm_shm_header *h;
};

static int setup(void **state)
{
	struct seg *s = calloc(1, sizeof(*s));
	char path[128];
	struct stat st;

	s->name = strdup(ev_net("seg"));
	EV_OPEN(ev_uri(s->name, 1, NULL), &s->tx);
	EV_OPEN(ev_uri(s->name, 2, NULL), &s->rx);
	snprintf(path, sizeof(path), "/dev/shm/rfm-%s", s->name);
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	/* Map as far as the file may grow: event slabs come with receivers. */
	struct rfm_shm_header h;
	assert_int_equal(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	s->size = (size_t)h.segment_size;
	s->map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(s->map != MAP_FAILED);
	close(fd);
	s->h = (struct rfm_shm_header *)s->map;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct seg *s = *state;

	munmap(s->map, s->size);
	rfm_close(s->tx);
	rfm_close(s->rx);
	assert_int_equal(rfm_network_destroy(ev_uri(s->name, -1, NULL), 0), 0);
	free((char *)s->name);
	free(s);
	return 0;
}

/* The queue node 2's handle receives on (it must be receiving). */
static struct rfm_shm_queue *rx_queue(struct seg *s)
{
	struct rfm_shm_node_entry *nodes =
		(struct rfm_shm_node_entry *)(s->map + s->h->node_table_offset);
	uint32_t bits = nodes[2].event_queues;

	assert_true(bits != 0);
	unsigned int slab = nodes[2].queue_slab[__builtin_ctz(bits)];
	assert_true(slab != 0);
	return (struct rfm_shm_queue *)(s->map + s->h->event_offset +
					(uint64_t)(slab - 1) * s->h->queue_stride);
}

static struct rfm_shm_slot *slot_at(struct seg *s, struct rfm_shm_queue *q, uint64_t pos)
{
	struct rfm_shm_slot *slots = (struct rfm_shm_slot *)((uint8_t *)q + RFM_SHM_QUEUE_HEADER);

	return &slots[pos & (s->h->queue_depth - 1)];
}

/* Open node 3 while one header field holds @value; restore it after. */
#define EXPECT_OPEN_FAILS(s, field, value, code)                                       \
	do {                                                                           \
		__typeof__((s)->h->field) saved_ = (s)->h->field;                      \
		rfm_node *n_ = NULL;                                                   \
		(s)->h->field = (value);                                               \
		assert_int_equal(rfm_open(ev_uri((s)->name, 3, NULL), &n_), (code));   \
		(s)->h->field = saved_;                                                \
	} while (0)

static void test_corrupt_header(void **state)
{
	struct seg *s = *state;
	rfm_node *n;

	assert_int_equal(s->h->version, RFM_SHM_VERSION);
	assert_int_equal(s->h->queue_depth, RFM_EVENT_QUEUE_MIN);
	EXPECT_OPEN_FAILS(s, queue_depth, 1000, RFM_ECORRUPT);
	EXPECT_OPEN_FAILS(s, queue_depth, 0, RFM_ECORRUPT);
	EXPECT_OPEN_FAILS(s, queue_depth, 2048, RFM_ECORRUPT); /* valid, but not this layout */
	EXPECT_OPEN_FAILS(s, queue_depth, 1u << 31, RFM_ECORRUPT);
	EXPECT_OPEN_FAILS(s, queues_per_node, 4, RFM_ECORRUPT);
	EXPECT_OPEN_FAILS(s, queue_stride, 64, RFM_ECORRUPT);
	EXPECT_OPEN_FAILS(s, event_offset, 4096, RFM_ECORRUPT);
	EXPECT_OPEN_FAILS(s, event_size, UINT64_MAX, RFM_ECORRUPT);
	EXPECT_OPEN_FAILS(s, version, 1, RFM_EVERSION);
	assert_non_null(strstr(rfm_last_error(), "version"));
	/* Restored: the network works as before. */
	EV_OPEN(ev_uri(s->name, 3, NULL), &n);
	rfm_close(n);
}

static void test_truncated_event_area(void **state)
{
	struct seg *s = *state;
	char path[128];
	rfm_node *n;

	snprintf(path, sizeof(path), "/dev/shm/rfm-%s", s->name);
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	/* Cut into the window: the file must hold at least up to the event slabs. */
	assert_int_equal(ftruncate(fd, (off_t)(s->h->event_offset - 4096)), 0);
	assert_int_equal(rfm_open(ev_uri(s->name, 3, NULL), &n), RFM_ECORRUPT);
	assert_non_null(strstr(rfm_last_error(), "truncated"));
	assert_int_equal(ftruncate(fd, st.st_size), 0);
	close(fd);
}

static void test_corrupt_record(void **state)
{
	struct seg *s = *state;
	struct rfm_event ev;

	EV_OK(rfm_event_enable(s->rx, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	struct rfm_shm_queue *q = rx_queue(s);
	/* A forged record with an impossible type, then a real one. */
	uint64_t p = q->tail++;
	struct rfm_shm_slot *slot = slot_at(s, q, p);
	slot->type = 99;
	slot->sender = 1;
	__atomic_store_n(&slot->stamp, p + 1, __ATOMIC_RELEASE);
	p = q->tail++;
	slot = slot_at(s, q, p);
	slot->type = RFM_EVENT_INTR1;
	slot->sender = 4000;
	__atomic_store_n(&slot->stamp, p + 1, __ATOMIC_RELEASE);
	assert_int_equal(rfm_event_send(s->tx, 2, RFM_EVENT_INTR1, 5), 1);
	/* Both forgeries are skipped and counted; the real record comes through. */
	assert_int_equal(rfm_event_wait(s->rx, &ev, 0), 0);
	assert_int_equal(ev.type, RFM_EVENT_INTR1);
	assert_int_equal(ev.data, 5);
	assert_int_equal(rfm_event_wait(s->rx, &ev, 0), 0);
	assert_int_equal(ev.type, RFM_EVENT_OVERFLOW);
	assert_int_equal(ev.data, 2);
	assert_int_equal(rfm_event_wait(s->rx, &ev, 0), RFM_EAGAIN);
}

static void test_dead_sender_slot(void **state)
{
	struct seg *s = *state;
	struct rfm_event ev;

	EV_OK(rfm_event_enable(s->rx, RFM_EVENT_BIT(RFM_EVENT_INTR2)));
	struct rfm_shm_queue *q = rx_queue(s);
	/* A sender claimed a position and died before filling it. */
	__atomic_fetch_add(&q->tail, 1, __ATOMIC_SEQ_CST);
	assert_int_equal(rfm_event_send(s->tx, 2, RFM_EVENT_INTR2, 42), 1);
	/* The record behind it waits... */
	assert_int_equal(rfm_event_wait(s->rx, &ev, 0), RFM_EAGAIN);
	/* ...until the stalled slot is given up (after about a second), counted. */
	assert_int_equal(rfm_event_wait(s->rx, &ev, -1), 0);
	assert_int_equal(ev.type, RFM_EVENT_OVERFLOW);
	assert_int_equal(ev.data, 1);
	assert_int_equal(rfm_event_wait(s->rx, &ev, 0), 0);
	assert_int_equal(ev.type, RFM_EVENT_INTR2);
	assert_int_equal(ev.data, 42);
	/* The queue works normally afterwards. */
	assert_int_equal(rfm_event_send(s->tx, 2, RFM_EVENT_INTR2, 43), 1);
	assert_int_equal(rfm_event_wait(s->rx, &ev, 0), 0);
	assert_int_equal(ev.data, 43);
}

static void test_absurd_positions(void **state)
{
	struct seg *s = *state;
	struct rfm_event evs[64];

	EV_OK(rfm_event_enable(s->rx, RFM_EVENT_BIT(RFM_EVENT_INTR3)));
	struct rfm_shm_queue *q = rx_queue(s);
	const uint64_t values[] = { UINT64_MAX - 3, 0, UINT64_MAX / 2, 12345 };
	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
		q->tail = values[v];
		q->head = values[(v + 1) % 4];
		q->sleepers = 7;
		for (int i = 0; i < 3000; i++) {
			int r = rfm_event_send(s->tx, 2, RFM_EVENT_INTR3, (uint32_t)i);
			assert_true(r == 0 || r == 1);
		}
		int n = rfm_event_fetch(s->rx, evs, 64, 0);
		assert_true(n > 0 || n == RFM_EAGAIN);
	}
	/* Hostile queue bits on a node that is not attached change nothing. */
	struct rfm_shm_node_entry *nodes =
		(struct rfm_shm_node_entry *)(s->map + s->h->node_table_offset);
	nodes[9].event_queues = 0xffffffff;
	assert_int_equal(rfm_event_send(s->tx, 9, RFM_EVENT_INTR3, 1), RFM_ENODE);
	nodes[9].event_queues = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_corrupt_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_event_area, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_sender_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absurd_positions, setup, teardown),
	};

	harness_init();
	ev_require_shm("it forges and corrupts the event queues in the shm: segment");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
