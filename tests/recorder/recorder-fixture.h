/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the recorder's suites share (test-recorder, with HDF5, and
 * test-recorder-csv, without): a layout, node 1 that writes it and node 2
 * that records it, and a file name in the directory the test runs in.
 */
#ifndef RFM_TESTS_RECORDER_FIXTURE_H
#define RFM_TESTS_RECORDER_FIXTURE_H

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rfm-cmocka.h"

static const char layout_text[] =
	"version: 1\n"
	"window: 1M\n"
	"regions:\n"
	"  - name: st\n"
	"    offset: 0x1000\n"
	"    size: 0x1000\n"
	"    writer: 1\n"
	"    variables:\n"
	"      - { name: ramp, type: u32 }\n"
	"      - { name: be, type: i32, byte_order: big }\n"
	"      - { name: flag, type: u8 }\n"
	"      - { name: vec, type: f32, count: 3, unit: m }\n"
	"    records:\n"
	"      - name: rec\n"
	"        variables:\n"
	"          - { name: n, type: u64 }\n"
	"          - { name: half, type: f64 }\n"
	"          - { name: tag, type: u32 }\n"
	"  - { name: log, offset: 0x8000, size: 0x8000, writer: 1 }\n";

struct rec_row {
	uint64_t n;
	double half;
	uint32_t tag;
};

struct fixture {
	struct harness_network net;
	rfm_layout *layout;
	rfm_node *writer, *reader;
	char path[256];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	harness_network_new(&f->net, 1024 * 1024);
	if (rfm_layout_load_string(layout_text, strlen(layout_text), "test", &f->layout, NULL) ||
	    rfm_open(harness_node_uri(&f->net, 1), &f->writer) ||
	    rfm_open(harness_node_uri(&f->net, 2), &f->reader))
		return -1;
	snprintf(f->path, sizeof(f->path), "t-recorder-%d.h5", (int)getpid());
	unlink(f->path);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rfm_close(f->reader);
	rfm_close(f->writer);
	rfm_layout_free(f->layout);
	harness_network_destroy(&f->net);
	unlink(f->path);
	free(f);
	return 0;
}

static struct rfm_recorder_config config(uint32_t mode)
{
	struct rfm_recorder_config c = { .struct_size = sizeof(c), .mode = mode };

	c.poll_ns = 20000;
	c.period_ns = 500000;	/* 2 kHz */
	c.queue_bytes = 8u << 20;
	c.flush_ns = 50000000;
	return c;
}

/* Wait, bounded by the harness's guard, until @ready holds. */
#define WAIT_UNTIL(ready)                                                            \
	do {                                                                         \
		uint64_t guard_ = rfm_event_now_ns() +                               \
				  (uint64_t)HARNESS_HANG_TIMEOUT_MS * 1000000u;      \
		while (!(ready)) {                                                   \
			assert_true(rfm_event_now_ns() < guard_);                    \
			struct timespec ts_ = { 0, 200000 };                         \
			nanosleep(&ts_, NULL);                                       \
		}                                                                    \
	} while (0)

/* @v's low @size bytes at @p, least significant first (the layout's order). */
static void store_le(uint8_t *p, uint64_t v, unsigned int size)
{
	for (unsigned int i = 0; i < size; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* The record's bytes as the window holds them: little-endian, as its
 * layout says, on a big-endian host too (check-cross runs s390x). */
static void publish(rfm_record *rec, uint64_t k)
{
	struct rec_row row = { k, (double)k * 0.5, (uint32_t)(k ^ 0xa5a5u) };
	uint8_t buf[24] = { 0 };
	uint64_t half_bits;

	memcpy(&half_bits, &row.half, 8);
	store_le(buf, row.n, 8);
	store_le(buf + 8, half_bits, 8);
	store_le(buf + 16, row.tag, 4);
	assert_rfm_ok(rfm_record_write(rec, buf, sizeof(buf)));
}

/* Wait until the reader's copy shows the record at @seq (dds: replication). */
static void wait_seq(struct fixture *f, uint32_t seq)
{
	rfm_record *mine;
	uint32_t now = 0;

	assert_rfm_ok(rfm_record_open(f->layout, f->reader, "st.rec", &mine));
	WAIT_UNTIL(!rfm_record_sequence(mine, &now) && now == seq);
	rfm_record_close(mine);
}

#endif /* RFM_TESTS_RECORDER_FIXTURE_H */
