/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual card's mailbox, compiled for user space: two nodes on one
 * area exchange records; full rings, absent nodes, re-attaching, and a
 * corrupted area (repaired and counted, never followed).
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rfm-ivs-mbox.h"

struct got {
	u32 sender, type, data;
	u64 sent_ns;
};

static struct got got[256];
static unsigned int ngot;

static void collect(void *ctx, u32 sender, u32 type, u32 data, u64 sent_ns)
{
	(void)ctx;
	got[ngot++ % 256] = (struct got){ sender, type, data, sent_ns };
}

static u8 *area;

static int setup(void **state)
{
	area = calloc(1, RFM_IVS_AREA_SIZE);
	ngot = 0;
	(void)state;
	if (!area)
		return -1;
	rfm_ivs_mbox_format(area);
	return 0;
}

static int teardown(void **state)
{
	free(area);
	(void)state;
	return 0;
}

static struct rfm_ivs_header *hdr(void)
{
	return (struct rfm_ivs_header *)area;
}

static struct rfm_ivs_ring *ring(u32 s, u32 r)
{
	return (struct rfm_ivs_ring *)(area + RFM_IVS_RING_OFFSET(s, r));
}

static void layout_fits(void **state)
{
	(void)state;
	assert_true(sizeof(struct rfm_ivs_header) <= RFM_IVS_RINGS_OFFSET);
	assert_true(RFM_IVS_RING_OFFSET(RFM_IVS_MAX_NODES - 1, RFM_IVS_MAX_NODES - 1) +
		    sizeof(struct rfm_ivs_ring) <= RFM_IVS_AREA_SIZE);
	assert_int_equal(sizeof(struct rfm_ivs_slot), 16);
	assert_int_equal(offsetof(struct rfm_ivs_ring, tail), 64);
}

/* Memory of another user of the device (blank here) is never written. */
static void attach_to_blank_memory_writes_nothing(void **state)
{
	struct rfm_ivs_mbox a;
	u8 *blank = calloc(1, RFM_IVS_AREA_SIZE);
	size_t i;

	(void)state;
	assert_non_null(blank);
	assert_int_equal(rfm_ivs_mbox_check(blank), -ENODEV);
	assert_int_equal(rfm_ivs_mbox_attach(&a, blank, 0), -ENODEV);
	for (i = 0; i < RFM_IVS_AREA_SIZE; i++)
		if (blank[i])
			break;
	assert_int_equal(i, RFM_IVS_AREA_SIZE);
	free(blank);
}

static void attach_checks_the_header(void **state)
{
	struct rfm_ivs_mbox a, b;

	(void)state;
	assert_int_equal(rfm_ivs_mbox_check(area), 0);
	assert_int_equal(rfm_ivs_mbox_attach(&a, area, 0), 0);
	assert_int_equal(le32toh(hdr()->magic), RFM_IVS_MAGIC); /* little-endian area */
	assert_int_equal(le32toh(hdr()->version), RFM_IVS_VERSION);
	assert_int_equal(le32toh(hdr()->ring_slots), RFM_IVS_RING_SLOTS);
	assert_int_equal(rfm_ivs_mbox_attach(&b, area, 1), 0);

	hdr()->version = htole32(RFM_IVS_VERSION + 1);
	assert_int_equal(rfm_ivs_mbox_attach(&b, area, 1), -EPROTO);
	hdr()->version = htole32(RFM_IVS_VERSION);
	hdr()->magic = htole32(0x12345678);
	assert_int_equal(rfm_ivs_mbox_attach(&b, area, 1), -EPROTO);
	assert_int_equal(rfm_ivs_mbox_attach(&b, area, RFM_IVS_MAX_NODES), -ERANGE);
}

static void records_travel_with_sender_and_order(void **state)
{
	struct rfm_ivs_mbox a, b;

	(void)state;
	rfm_ivs_mbox_attach(&a, area, 2);
	rfm_ivs_mbox_attach(&b, area, 5);
	assert_int_equal(rfm_ivs_mbox_send(&a, 5, RFM_DEV_EV_INTR1, 1, 10), -EHOSTUNREACH);
	rfm_ivs_mbox_set_present(&b, true);
	assert_int_equal(le32toh(hdr()->nodes[5].incarnation), 1);
	assert_true(rfm_ivs_mbox_node_present(&a, 5));
	assert_false(rfm_ivs_mbox_node_present(&a, 2));
	assert_false(rfm_ivs_mbox_node_present(&a, 999));

	for (u32 i = 0; i < 10; i++)
		assert_int_equal(rfm_ivs_mbox_send(&a, 5, RFM_DEV_EV_INTR1 + i % 4, 100 + i, 1000 + i), 0);
	assert_int_equal(rfm_ivs_mbox_drain(&a, collect, NULL), 0); /* nothing for node 2 */
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), 10);
	for (u32 i = 0; i < 10; i++) {
		assert_int_equal(got[i].sender, 2);
		assert_int_equal(got[i].type, RFM_DEV_EV_INTR1 + i % 4);
		assert_int_equal(got[i].data, 100 + i);
		assert_int_equal(got[i].sent_ns, 1000 + i);
	}
	assert_int_equal(le32toh(ring(2, 5)->tail), 10);
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), 0);
	assert_int_equal(a.rx_errors + a.tx_errors + b.rx_errors + b.tx_errors, 0);
}

static void full_ring_waits_for_the_receiver(void **state)
{
	struct rfm_ivs_mbox a, b;

	(void)state;
	rfm_ivs_mbox_attach(&a, area, 0);
	rfm_ivs_mbox_attach(&b, area, 1);
	rfm_ivs_mbox_set_present(&b, true);
	for (u32 i = 0; i < RFM_IVS_RING_SLOTS; i++)
		assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR2, i, 0), 0);
	assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR2, 99, 0), -EAGAIN);
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), RFM_IVS_RING_SLOTS);
	assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR2, 99, 0), 0);
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), 1);
	assert_int_equal(got[RFM_IVS_RING_SLOTS].data, 99);
	/* Bad arguments. */
	assert_int_equal(rfm_ivs_mbox_send(&a, RFM_IVS_MAX_NODES, RFM_DEV_EV_INTR2, 0, 0), -EINVAL);
	assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_OVERFLOW, 0, 0), -EINVAL);
}

static void reattach_skips_stale_and_continues_heads(void **state)
{
	struct rfm_ivs_mbox a, b;

	(void)state;
	rfm_ivs_mbox_attach(&a, area, 0);
	rfm_ivs_mbox_attach(&b, area, 1);
	rfm_ivs_mbox_set_present(&b, true);
	for (u32 i = 0; i < 5; i++)
		rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR3, i, 0);
	/* Node 1 restarts: what was queued for its last life is skipped. */
	rfm_ivs_mbox_attach(&b, area, 1);
	rfm_ivs_mbox_set_present(&b, true);
	assert_int_equal(le32toh(hdr()->nodes[1].incarnation), 2);
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), 0);
	/* Node 0 restarts: its rings go on from where they were. */
	rfm_ivs_mbox_attach(&a, area, 0);
	assert_int_equal(a.tx_head[1], 5);
	rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR3, 77, 0);
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), 1);
	assert_int_equal(got[0].data, 77);
	rfm_ivs_mbox_set_present(&b, false);
	assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR3, 1, 0), -EHOSTUNREACH);
}

static void corruption_is_repaired_and_counted(void **state)
{
	struct rfm_ivs_mbox a, b;

	(void)state;
	rfm_ivs_mbox_attach(&a, area, 0);
	rfm_ivs_mbox_attach(&b, area, 1);
	rfm_ivs_mbox_set_present(&b, true);

	/* A hostile sender claims a million records. */
	ring(0, 1)->head = htole32(1000000);
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), 0);
	assert_int_equal(b.rx_errors, 1);
	assert_int_equal(le32toh(ring(0, 1)->tail), 1000000);

	/* A slot with a type no card sends is skipped. */
	a.tx_head[1] = 1000000;
	assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR1, 5, 0), 0);
	ring(0, 1)->slot[1000000 % RFM_IVS_RING_SLOTS].type = htole32(0xdead);
	assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR1, 6, 0), 0);
	assert_int_equal(rfm_ivs_mbox_drain(&b, collect, NULL), 1);
	assert_int_equal(got[0].data, 6);
	assert_int_equal(b.rx_errors, 2);

	/* A receiver's tail that ran ahead of our head: resync, no wait. */
	ring(0, 1)->tail = htole32(a.tx_head[1] + 500);
	assert_int_equal(rfm_ivs_mbox_send(&a, 1, RFM_DEV_EV_INTR1, 7, 0), 0);
	assert_int_equal(a.tx_errors, 1);

	/* An inconsistent ring found at attach is reset, not trusted. */
	ring(0, 2)->head = htole32(12345);
	rfm_ivs_mbox_attach(&a, area, 0);
	assert_int_equal(a.tx_head[2], le32toh(ring(0, 2)->tail));
	assert_true(a.tx_errors >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_fits),
		cmocka_unit_test_setup_teardown(attach_to_blank_memory_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(attach_checks_the_header, setup, teardown),
		cmocka_unit_test_setup_teardown(records_travel_with_sender_and_order, setup, teardown),
		cmocka_unit_test_setup_teardown(full_ring_waits_for_the_receiver, setup, teardown),
		cmocka_unit_test_setup_teardown(reattach_skips_stale_and_continues_heads, setup, teardown),
		cmocka_unit_test_setup_teardown(corruption_is_repaired_and_counted, setup, teardown),
	};

	return cmocka_run_group_tests_name("driver ivshmem mailbox", tests, NULL, NULL);
}
