/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The window: mapping, bounded reads and writes of any length, peek/poke
 * of every width, the edges of the window, alignment, what a second node
 * sees, and that a refused access reads or writes nothing.
 */
#include "config.h"

#include <stdlib.h>

#include "harness.h"
#include "rfm-cmocka.h"

/* 64 KiB on shm:; on dev: the card's own window (set by setup). */
static uint64_t window = 64 * 1024;
#define WINDOW window

struct fixture {
	struct harness_network net;
	rfm_node *a, *b;	/* two nodes on one network */
	uint8_t *base_a;	/* a's mapping */
};

#define FIXTURE_NODES(f) ((rfm_node **const[]){ &(f)->a, &(f)->b })

static int setup(void **state)
{
	static const int ids[] = { 1, 2 };
	struct fixture *f = calloc(1, sizeof(*f));
	void *base;

	if (!f || harness_fixture_nodes(&f->net, 64 * 1024, ids, FIXTURE_NODES(f), 2)) {
		free(f);
		return -1;
	}
	if (rfm_mem_map(f->a, &base, NULL)) {
		print_error("setup: %s\n", rfm_last_error());
		harness_fixture_nodes_close(&f->net, FIXTURE_NODES(f), 2);
		free(f);
		return -1;
	}
	f->base_a = base;
	window = rfm_node_size(f->a);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	harness_fixture_nodes_close(&f->net, FIXTURE_NODES(f), 2);
	free(f);
	return 0;
}

/* Byte @i of a pattern that differs per @seed and never repeats within 255 bytes. */
static uint8_t pattern(unsigned int seed, uint64_t i)
{
	return (uint8_t)(i * 131u + seed * 31u + (i >> 8));
}

static void fill_pattern(uint8_t *buf, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(seed, i);
}

static void map_gives_the_window(void **state)
{
	struct fixture *f = *state;
	void *base_b = NULL;
	uint64_t size = 0;

	assert_rfm_ok(rfm_mem_map(f->b, &base_b, &size));
	assert_non_null(base_b);
	assert_int_equal(size, WINDOW);
	assert_rfm_ok(rfm_mem_map(f->b, &base_b, NULL)); /* sizep is optional */

	/* A fresh network is all zeros. */
	for (size_t i = 0; i < WINDOW; i++)
		if (((uint8_t *)base_b)[i])
			fail_msg("byte %zu of a new window is 0x%02x", i, ((uint8_t *)base_b)[i]);

	/* Two nodes, two mappings, one memory. */
	f->base_a[100] = 0x42;
	assert_int_equal(__atomic_load_n((uint8_t *)base_b + 100, __ATOMIC_ACQUIRE), 0x42);

	assert_rfm_code(rfm_mem_map(NULL, &base_b, &size), RFM_EINVAL);
	assert_rfm_code(rfm_mem_map(f->a, NULL, &size), RFM_EINVAL);
	assert_last_error_has("NULL");
}

static void whole_window_round_trip(void **state)
{
	struct fixture *f = *state;
	uint8_t *out = malloc(WINDOW), *in = malloc(WINDOW);

	fill_pattern(out, WINDOW, 1);
	assert_rfm_ok(rfm_mem_write(f->a, 0, out, WINDOW));
	memset(in, 0, WINDOW);
	assert_rfm_ok(rfm_mem_read(f->b, 0, in, WINDOW)); /* through the other node */
	assert_memory_equal(in, out, WINDOW);
	assert_memory_equal(f->base_a, out, WINDOW);
	free(out);
	free(in);
}

static void any_length_at_any_offset(void **state)
{
	struct fixture *f = *state;
	static const size_t lengths[] = { 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097 };
	static const uint64_t offsets[] = { 0, 1, 3, 4, 7, 8, 4093, 4096, 30001 };
	uint8_t out[4097], in[4097 + 2];

	for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++)
		for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
			uint64_t off = offsets[o];
			size_t len = lengths[l];
			unsigned int seed = (unsigned int)(o * 16 + l);

			memset(f->base_a, 0, WINDOW);
			fill_pattern(out, len, seed);
			assert_rfm_ok(rfm_mem_write(f->a, off, out, len));
			/* Read one guard byte either side where the window allows. */
			uint64_t from = off ? off - 1 : off;
			size_t span = len + (off ? 1 : 0) + (off + len < WINDOW ? 1 : 0);
			memset(in, 0xee, sizeof(in));
			assert_rfm_ok(rfm_mem_read(f->b, from, in, span));
			const uint8_t *data = in + (off ? 1 : 0);
			if (memcmp(data, out, len))
				fail_msg("%zu bytes at %llu did not round-trip", len,
					 (unsigned long long)off);
			if (off)
				assert_int_equal(in[0], 0);
			if (off + len < WINDOW)
				assert_int_equal(data[len], 0);
		}
}

static void zero_length(void **state)
{
	struct fixture *f = *state;
	uint8_t byte = 0x77;

	/* Zero bytes anywhere up to and including the end; a NULL buffer is fine. */
	assert_rfm_ok(rfm_mem_write(f->a, 0, &byte, 0));
	assert_rfm_ok(rfm_mem_write(f->a, WINDOW, &byte, 0));
	assert_rfm_ok(rfm_mem_write(f->a, 10, NULL, 0));
	assert_rfm_ok(rfm_mem_read(f->a, 0, &byte, 0));
	assert_rfm_ok(rfm_mem_read(f->a, WINDOW, &byte, 0));
	assert_rfm_ok(rfm_mem_read(f->a, 10, NULL, 0));
	assert_int_equal(byte, 0x77);
	assert_int_equal(f->base_a[0], 0);
	/* Past the end is out of range even for nothing. */
	assert_rfm_code(rfm_mem_read(f->a, WINDOW + 1, &byte, 0), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, UINT64_MAX, &byte, 0), RFM_ERANGE);
}

static void edges_of_the_window(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 }, in[16];

	/* Last bytes: fine. */
	assert_rfm_ok(rfm_mem_write(f->a, WINDOW - 16, buf, 16));
	assert_rfm_ok(rfm_mem_read(f->a, WINDOW - 16, in, 16));
	assert_memory_equal(in, buf, 16);
	assert_rfm_ok(rfm_mem_write(f->a, WINDOW - 1, buf, 1));

	/* One byte over: refused, with the numbers in the message. */
	assert_rfm_code(rfm_mem_write(f->a, WINDOW - 15, buf, 16), RFM_ERANGE);
	char msg[96];
	snprintf(msg, sizeof(msg), "16 bytes at offset 0x%llx lie outside the %llu-byte window",
		 (unsigned long long)(WINDOW - 15), (unsigned long long)WINDOW);
	assert_last_error_has(msg);
	assert_rfm_code(rfm_mem_read(f->a, WINDOW - 15, in, 16), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, WINDOW, buf, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_read(f->a, WINDOW, in, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_read(f->a, 0, in, WINDOW + 1), RFM_ERANGE);
	assert_last_error_has("rfm_mem_read");
}

static void offset_plus_length_overflow(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[8] = { 0 };

	/* offset + len wraps around to a small number: must not pass the check. */
	assert_rfm_code(rfm_mem_write(f->a, UINT64_MAX, buf, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_read(f->a, UINT64_MAX, buf, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, UINT64_MAX - 3, buf, 8), RFM_ERANGE);
	assert_rfm_code(rfm_mem_read(f->a, UINT64_MAX - 6, buf, 8), RFM_ERANGE);
	assert_rfm_code(rfm_mem_read(f->a, 1, buf, SIZE_MAX), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, 8, buf, SIZE_MAX - 7), RFM_ERANGE);
	assert_rfm_code(rfm_mem_read(f->a, (uint64_t)1 << 63, buf, 8), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke64(f->a, UINT64_MAX - 7, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke32(f->a, UINT64_MAX - 3, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke16(f->a, UINT64_MAX - 1, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke8(f->a, UINT64_MAX, 1), RFM_ERANGE);
	uint64_t v = 5;
	assert_rfm_code(rfm_mem_peek64(f->a, UINT64_MAX - 7, &v), RFM_ERANGE);
	assert_int_equal(v, 5);
}

static void peek_poke_every_width(void **state)
{
	struct fixture *f = *state;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	/* Extreme values: no sign extension, no truncation. */
	assert_rfm_ok(rfm_mem_poke8(f->a, 1, 0xff));
	assert_rfm_ok(rfm_mem_poke16(f->a, 2, 0x8001));
	assert_rfm_ok(rfm_mem_poke32(f->a, 4, 0x80000001u));
	assert_rfm_ok(rfm_mem_poke64(f->a, 8, 0x8000000000000001ull));
	assert_rfm_ok(rfm_mem_poke64(f->a, 16, UINT64_MAX));

	assert_rfm_ok(rfm_mem_peek8(f->b, 1, &v8));
	assert_int_equal(v8, 0xff);
	assert_rfm_ok(rfm_mem_peek16(f->b, 2, &v16));
	assert_int_equal(v16, 0x8001);
	assert_rfm_ok(rfm_mem_peek32(f->b, 4, &v32));
	assert_int_equal(v32, 0x80000001u);
	assert_rfm_ok(rfm_mem_peek64(f->b, 8, &v64));
	assert_int_equal(v64, 0x8000000000000001ull);
	assert_rfm_ok(rfm_mem_peek64(f->b, 16, &v64));
	assert_int_equal(v64, UINT64_MAX);
	assert_rfm_ok(rfm_mem_peek8(f->b, 0, &v8));
	assert_int_equal(v8, 0); /* the neighbour of the 8-bit poke */

	/* Host byte order: a 32-bit poke is the same bytes as a memcpy of the value. */
	uint32_t word = 0x11223344;
	assert_rfm_ok(rfm_mem_poke32(f->a, 32, word));
	assert_memory_equal(f->base_a + 32, &word, 4);
	uint16_t first_half;
	memcpy(&first_half, &word, sizeof(first_half));
	assert_rfm_ok(rfm_mem_peek16(f->b, 32, &v16));
	assert_int_equal(v16, first_half); /* the half stored first in memory */

	/* Reads of wider and narrower widths see the same bytes. */
	assert_rfm_ok(rfm_mem_poke64(f->a, 40, 0x0102030405060708ull));
	uint8_t bytes[8];
	assert_rfm_ok(rfm_mem_read(f->b, 40, bytes, 8));
	uint64_t back;
	memcpy(&back, bytes, 8);
	assert_int_equal(back, 0x0102030405060708ull);
}

static void peek_poke_last_slot(void **state)
{
	struct fixture *f = *state;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	assert_rfm_ok(rfm_mem_poke8(f->a, WINDOW - 1, 0xa1));
	assert_rfm_ok(rfm_mem_peek8(f->b, WINDOW - 1, &v8));
	assert_int_equal(v8, 0xa1);
	assert_rfm_ok(rfm_mem_poke16(f->a, WINDOW - 2, 0xa1b2));
	assert_rfm_ok(rfm_mem_peek16(f->b, WINDOW - 2, &v16));
	assert_int_equal(v16, 0xa1b2);
	assert_rfm_ok(rfm_mem_poke32(f->a, WINDOW - 4, 0xa1b2c3d4));
	assert_rfm_ok(rfm_mem_peek32(f->b, WINDOW - 4, &v32));
	assert_int_equal(v32, 0xa1b2c3d4);
	assert_rfm_ok(rfm_mem_poke64(f->a, WINDOW - 8, 0xa1b2c3d4e5f60718ull));
	assert_rfm_ok(rfm_mem_peek64(f->b, WINDOW - 8, &v64));
	assert_int_equal(v64, 0xa1b2c3d4e5f60718ull);

	/* The next slot of each width is past the end. */
	assert_rfm_code(rfm_mem_poke8(f->a, WINDOW, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke16(f->a, WINDOW, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke32(f->a, WINDOW, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke64(f->a, WINDOW, 1), RFM_ERANGE);
	/* Aligned for a narrower width, but the wide access would cross the end. */
	assert_rfm_code(rfm_mem_poke64(f->a, WINDOW - 4, 1), RFM_ERANGE);
	assert_rfm_code(rfm_mem_peek32(f->a, WINDOW - 2, &v32), RFM_ERANGE);
	assert_last_error_has("rfm_mem_peek32");
	char msg[64];
	snprintf(msg, sizeof(msg), "outside the %llu-byte window", (unsigned long long)WINDOW);
	assert_last_error_has(msg);
}

static void misaligned_access(void **state)
{
	struct fixture *f = *state;
	uint16_t v16 = 0x1616;
	uint32_t v32 = 0x32323232;
	uint64_t v64 = 0x6464646464646464;

	for (uint64_t off = 1; off < 8; off++) {
		if (off % 2) {
			assert_rfm_code(rfm_mem_poke16(f->a, off, 1), RFM_EALIGN);
			assert_rfm_code(rfm_mem_peek16(f->a, off, &v16), RFM_EALIGN);
		}
		if (off % 4) {
			assert_rfm_code(rfm_mem_poke32(f->a, off, 1), RFM_EALIGN);
			assert_rfm_code(rfm_mem_peek32(f->a, off, &v32), RFM_EALIGN);
		}
		assert_rfm_code(rfm_mem_poke64(f->a, off, 1), RFM_EALIGN);
		assert_rfm_code(rfm_mem_peek64(f->a, off, &v64), RFM_EALIGN);
	}
	assert_rfm_code(rfm_mem_poke64(f->a, 4100, 1), RFM_EALIGN);
	assert_last_error_has("rfm_mem_poke64: offset 0x1004 is not a multiple of 8");
	/* Misaligned near the end: still an alignment error, not a range error. */
	assert_rfm_code(rfm_mem_poke32(f->a, WINDOW - 6, 1), RFM_EALIGN);

	/* Nothing was read into the outputs, nothing written to the window. */
	assert_int_equal(v16, 0x1616);
	assert_int_equal(v32, 0x32323232);
	assert_int_equal(v64, 0x6464646464646464);
	for (size_t i = 0; i < WINDOW; i++)
		if (f->base_a[i])
			fail_msg("a refused poke wrote byte %zu", i);
}

static void refused_access_writes_nothing(void **state)
{
	struct fixture *f = *state;
	uint8_t *before = malloc(WINDOW), *junk = malloc(WINDOW + 64);
	uint64_t v64 = 7;
	uint32_t v32 = 7;

	fill_pattern(before, WINDOW, 9);
	assert_rfm_ok(rfm_mem_write(f->a, 0, before, WINDOW));
	memset(junk, 0xcc, WINDOW + 64);

	assert_rfm_code(rfm_mem_write(f->a, WINDOW - 8, junk, 9), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, 1, junk, WINDOW), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, 0, junk, WINDOW + 64), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, UINT64_MAX - 2, junk, 8), RFM_ERANGE);
	assert_rfm_code(rfm_mem_write(f->a, 0, NULL, 8), RFM_EINVAL);
	assert_last_error_has("buffer is NULL");
	assert_rfm_code(rfm_mem_poke64(f->a, WINDOW - 4, UINT64_MAX), RFM_ERANGE);
	assert_rfm_code(rfm_mem_poke32(f->a, 2, UINT32_MAX), RFM_EALIGN);
	assert_rfm_code(rfm_mem_poke16(f->a, 3, UINT16_MAX), RFM_EALIGN);
	assert_memory_equal(f->base_a, before, WINDOW);

	/* And a refused read leaves the caller's buffer alone. */
	memset(junk, 0xcc, WINDOW + 64);
	assert_rfm_code(rfm_mem_read(f->a, WINDOW - 8, junk, 9), RFM_ERANGE);
	assert_rfm_code(rfm_mem_read(f->a, 0, NULL, 8), RFM_EINVAL);
	for (size_t i = 0; i < WINDOW + 64; i++)
		if (junk[i] != 0xcc)
			fail_msg("a refused read wrote byte %zu of the buffer", i);
	assert_rfm_code(rfm_mem_peek64(f->a, WINDOW, &v64), RFM_ERANGE);
	assert_rfm_code(rfm_mem_peek32(f->a, 6, &v32), RFM_EALIGN);
	assert_int_equal(v64, 7);
	assert_int_equal(v32, 7);
	free(before);
	free(junk);
}

static void null_arguments(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[8];
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	assert_rfm_code(rfm_mem_read(NULL, 0, buf, 1), RFM_EINVAL);
	assert_last_error_has("rfm_mem_read: node is NULL");
	assert_rfm_code(rfm_mem_write(NULL, 0, buf, 1), RFM_EINVAL);
	assert_rfm_code(rfm_mem_read(f->a, 0, NULL, 1), RFM_EINVAL);

	assert_rfm_code(rfm_mem_peek8(NULL, 0, &v8), RFM_EINVAL);
	assert_rfm_code(rfm_mem_peek16(NULL, 0, &v16), RFM_EINVAL);
	assert_rfm_code(rfm_mem_peek32(NULL, 0, &v32), RFM_EINVAL);
	assert_rfm_code(rfm_mem_peek64(NULL, 0, &v64), RFM_EINVAL);
	assert_rfm_code(rfm_mem_poke8(NULL, 0, 1), RFM_EINVAL);
	assert_rfm_code(rfm_mem_poke16(NULL, 0, 1), RFM_EINVAL);
	assert_rfm_code(rfm_mem_poke32(NULL, 0, 1), RFM_EINVAL);
	assert_rfm_code(rfm_mem_poke64(NULL, 0, 1), RFM_EINVAL);
	assert_last_error_has("rfm_mem_poke64");

	assert_rfm_code(rfm_mem_peek8(f->a, 0, NULL), RFM_EINVAL);
	assert_rfm_code(rfm_mem_peek16(f->a, 0, NULL), RFM_EINVAL);
	assert_rfm_code(rfm_mem_peek32(f->a, 0, NULL), RFM_EINVAL);
	assert_rfm_code(rfm_mem_peek64(f->a, 0, NULL), RFM_EINVAL);
	assert_last_error_has("rfm_mem_peek64: NULL argument");
	/* NULL wins over a bad offset: the caller's first mistake is named. */
	assert_rfm_code(rfm_mem_peek64(f->a, 3, NULL), RFM_EINVAL);
}

static void writes_are_seen_by_the_other_node(void **state)
{
	struct fixture *f = *state;
	void *base_b;
	uint32_t v32;
	uint8_t buf[256], in[256];

	assert_rfm_ok(rfm_mem_map(f->b, &base_b, NULL));
	/* Every way of writing on one node against every way of reading on the other. */
	assert_rfm_ok(rfm_mem_poke32(f->a, 1024, 0xdeadbeef));
	assert_rfm_ok(rfm_mem_peek32(f->b, 1024, &v32));
	assert_int_equal(v32, 0xdeadbeef);
	assert_int_equal(rfm_load32_acquire(base_b, 1024), 0xdeadbeef);

	rfm_store32_release(base_b, 2048, 0xfeedface);
	assert_rfm_ok(rfm_mem_peek32(f->a, 2048, &v32));
	assert_int_equal(v32, 0xfeedface);

	fill_pattern(buf, sizeof(buf), 3);
	assert_rfm_ok(rfm_mem_write(f->b, 3000, buf, sizeof(buf)));
	assert_rfm_ok(rfm_mem_read(f->a, 3000, in, sizeof(in)));
	assert_memory_equal(in, buf, sizeof(buf));
	assert_memory_equal(f->base_a + 3000, buf, sizeof(buf));

	/* A third node joining later sees the current contents. */
	rfm_node *c;
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, HARNESS_ANY_NODE), &c));
	assert_rfm_ok(rfm_mem_peek32(c, 1024, &v32));
	assert_int_equal(v32, 0xdeadbeef);
	assert_rfm_ok(rfm_mem_read(c, 3000, in, sizeof(in)));
	assert_memory_equal(in, buf, sizeof(buf));
	rfm_close(c);
}

static void contents_outlive_the_nodes(void **state)
{
	struct fixture *f = *state;
	uint64_t v;

	/* Like a card's memory: the network keeps its contents while it exists. */
	assert_rfm_ok(rfm_mem_poke64(f->a, 512, 0x1122334455667788ull));
	rfm_close(f->a);
	rfm_close(f->b);
	f->a = f->b = NULL;
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 9), &f->a));
	assert_rfm_ok(rfm_mem_peek64(f->a, 512, &v));
	assert_int_equal(v, 0x1122334455667788ull);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

/* rfm_mem_flush(): where the memory replicates by itself, a checked fence. */
static void flush_checks_its_range(void **state)
{
	struct fixture *f = *state;

	f->base_a[10] = 0x77;
	assert_rfm_ok(rfm_mem_flush(f->a, 10, 1));
	assert_rfm_ok(rfm_mem_flush(f->a, 0, WINDOW));
	assert_rfm_ok(rfm_mem_flush(f->a, WINDOW, 0));
	assert_rfm_code(rfm_mem_flush(f->a, WINDOW - 4, 8), RFM_ERANGE);
	assert_last_error_has("rfm_mem_flush");
	assert_rfm_code(rfm_mem_flush(f->a, UINT64_MAX, 2), RFM_ERANGE);
	assert_rfm_code(rfm_mem_flush(NULL, 0, 1), RFM_EINVAL);
	uint8_t v = 0;
	assert_rfm_ok(rfm_mem_peek8(f->b, 10, &v));
	assert_int_equal(v, 0x77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(map_gives_the_window),
		TEST(whole_window_round_trip),
		TEST(any_length_at_any_offset),
		TEST(zero_length),
		TEST(edges_of_the_window),
		TEST(offset_plus_length_overflow),
		TEST(peek_poke_every_width),
		TEST(peek_poke_last_slot),
		TEST(misaligned_access),
		TEST(refused_access_writes_nothing),
		TEST(null_arguments),
		TEST(writes_are_seen_by_the_other_node),
		TEST(contents_outlive_the_nodes),
		TEST(flush_checks_its_range),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
