/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Seqlock stress: a writer process publishes a 256-byte record as fast as
 * it can, each publish self-checking (counter, payload derived from it,
 * checksum over both); a reader process reads it at least a million
 * times. A read that returns success with a bad checksum is a torn read
 * accepted: there must be none.
 */
#include <time.h>

#include "helpers.h"
#include "child.h"

#define RECORD_SIZE 256
#define WANTED_READS 1000000u
/* A bound on the test's run time, not an assertion about speed. */

static const char *const layout_lines[] = {
	"version: 1",
	"window: 1M",
	"regions:",
	"  - name: pub",
	"    offset: 0",
	"    size: 0x1000",
	"    writer: 1",
	"    records:",
	"      - name: frame",
	"        size: 256",
	"        variables:",
	"          - { name: counter, type: u64 }",
	"          - { name: payload, type: u8, count: 240 }",
	"          - { name: checksum, type: u64 }",
	"  - name: ctl",
	"    offset: 0x1000",
	"    size: 0x100",
	"    writer: 2",
	"    variables:",
	"      - { name: stop, type: u32 }",
	NULL,
};

struct frame {
	uint64_t counter;
	uint8_t payload[240];
	uint64_t checksum;
};
_Static_assert(sizeof(struct frame) == RECORD_SIZE, "frame is the record");

static uint64_t checksum(const struct frame *fr)
{
	const uint8_t *p = (const uint8_t *)fr;
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < offsetof(struct frame, checksum); i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static void fill(struct frame *fr, uint64_t counter)
{
	fr->counter = counter;
	for (size_t i = 0; i < sizeof(fr->payload); i++)
		fr->payload[i] = (uint8_t)(counter * 131 + i * 7);
	fr->checksum = checksum(fr);
}

struct args {
	const char *net;
	rfm_layout *layout;
};

static int writer_body(const struct child_io *io, void *arg)
{
	struct args *a = arg;
	rfm_node *node;
	rfm_record *rec;
	rfm_var *stop;
	struct frame fr;
	uint64_t n = 0;
	uint32_t stopped = 0;

	if (rfm_open(node_uri(a->net, 1), &node) || rfm_record_open(a->layout, node, "pub.frame", &rec) ||
	    rfm_var_open(a->layout, node, "ctl.stop", &stop))
		return 2;
	fill(&fr, 0);
	if (rfm_record_write(rec, &fr, sizeof(fr)))
		return 3;
	child_signal(io, 'R');
	while (!stopped) {
		for (int i = 0; i < 64; i++) {
			fill(&fr, ++n);
			if (rfm_record_write(rec, &fr, sizeof(fr)))
				return 4;
		}
		if (rfm_var_get_u32(stop, 0, &stopped))
			return 5;
	}
	if (write(io->out, &n, sizeof(n)) != sizeof(n))
		return 6;
	rfm_var_close(stop);
	rfm_record_close(rec);
	rfm_close(node);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_no_torn_reads(void **state)
{
	const char *net = test_net("seqlock");
	rfm_layout *layout;
	rfm_node *node;
	rfm_record *rec;
	rfm_var *stop;
	struct frame fr;
	uint64_t good = 0, torn_accepted = 0, etorn = 0, retries = 0, changes = 0, last = 0;
	uint64_t raw_torn = 0, published = 0;

	assert_int_equal(load_lines(layout_lines, &layout, NULL), 0);
	node = open_node(net, 2);
	assert_int_equal(rfm_record_open(layout, node, "pub.frame", &rec), 0);
	assert_int_equal(rfm_var_open(layout, node, "ctl.stop", &stop), 0);
	assert_int_equal(rfm_record_size(rec), RECORD_SIZE);
	assert_int_equal(rfm_record_set_max_tries(rec, 1000000), 0);

	struct args a = { net, layout };
	struct child c = start_child(writer_body, &a);
	assert_int_equal(parent_wait(&c), 'R');

	double start = now();
	while (good < WANTED_READS) {
		int ret = rfm_record_read(rec, &fr, sizeof(fr), NULL);

		if (ret == RFM_ETORN) {
			etorn++;
		} else {
			assert_true(ret >= 0);
			retries += (uint64_t)ret;
			good++;
			if (fr.checksum != checksum(&fr))
				torn_accepted++;
			if (fr.counter != last) {
				changes++;
				last = fr.counter;
			}
		}
		/*
		 * No time limit (a sanitizer build is many times slower): a read
		 * either succeeds or, after a million tries, fails; only a writer
		 * stuck mid-publish makes every read fail, so stop on those.
		 */
		if (etorn > 100)
			break;
	}
	double elapsed = now() - start;

	/* The control: the same copy without the sequence lock does tear. */
	void *base;
	struct rfm_record_info info = { .struct_size = sizeof(info) };
	assert_int_equal(rfm_mem_map(node, &base, NULL), 0);
	assert_int_equal(rfm_record_get_info(rec, &info), 0);
	for (int i = 0; i < 100000; i++) {
		memcpy(&fr, (char *)base + info.data_offset, sizeof(fr));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (fr.checksum != checksum(&fr))
			raw_torn++;
	}

	assert_int_equal(rfm_var_set_u32(stop, 0, 1), 0);
	assert_int_equal(read(c.from_child, &published, sizeof(published)), sizeof(published));
	assert_int_equal(finish_child(&c), 0);

	print_message("seqlock: %llu consistent reads in %.2f s (%llu retries, %llu ETORN), "
		      "%llu publishes, %llu distinct frames seen; unlocked copies torn: "
		      "%llu of 100000\n",
		      (unsigned long long)good, elapsed, (unsigned long long)retries,
		      (unsigned long long)etorn, (unsigned long long)published,
		      (unsigned long long)changes, (unsigned long long)raw_torn);
	assert_int_equal(torn_accepted, 0);
	assert_true(good >= WANTED_READS);
	assert_true(changes > 1);	/* the writer really ran during the reads */

	rfm_var_close(stop);
	rfm_record_close(rec);
	rfm_close(node);
	rfm_layout_free(layout);
	destroy_net(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_torn_reads),
	};

	static const int writers[] = { 1, 2 };

	harness_init();
	require_node_ids(writers, sizeof(writers) / sizeof(writers[0]));
	return cmocka_run_group_tests_name("layout-seqlock", tests, NULL, NULL);
}
