/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * "Data, then a sequence flag": the publication protocol every RFM program
 * builds on. A writer process publishes 100 000 samples, each by writing
 * the data words and then the sequence number with a release store; a
 * reader process on another node, whenever a load-acquire shows it
 * sequence s, must find data at least as new as s — never older.
 */
#include "config.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define WINDOW 4096
#define SEQ_OFFSET 0
#define READER_UP_OFFSET 2048	/* the reader's own word: "I am reading now" */
#define DATA_OFFSET 64	/* the data starts on another cache line than the flag */
#define DATA_WORDS 40	/* spans three cache lines */
#define SAMPLES 100000u

struct job {
	char uri[HARNESS_URI_MAX];
	/* the exported twins instead of the inline accessors */
	bool use_exported;
};

struct reader_report {
	uint64_t observations;	/* sequence loads that showed a new value */
	uint64_t violations;	/* data words older than the sequence seen */
	uint64_t regressions;	/* sequence went backwards */
	uint64_t data_ahead;	/* observations with data of a later sample (fine) */
	uint32_t last_seq;
};

/* The accessors under test, called through pointers. */
struct accessors {
	uint32_t (*load)(const void *, uint64_t);
	uint32_t (*load_acquire)(const void *, uint64_t);
	void (*store)(void *, uint64_t, uint32_t);
	void (*store_release)(void *, uint64_t, uint32_t);
};

static uint32_t inline_load(const void *b, uint64_t o) { return rfm_load32(b, o); }
static uint32_t inline_load_acquire(const void *b, uint64_t o) { return rfm_load32_acquire(b, o); }
static void inline_store(void *b, uint64_t o, uint32_t v) { rfm_store32(b, o, v); }
static void inline_store_release(void *b, uint64_t o, uint32_t v) { rfm_store32_release(b, o, v); }

static void *exported(const char *name)
{
	void *sym = dlvsym(RTLD_DEFAULT, name, "RFM_1.0");

	if (!sym)
		harness_fail(__FILE__, __LINE__, "%s@RFM_1.0 is not exported", name);
	return sym;
}

static struct accessors pick(bool use_exported)
{
	struct accessors a = { inline_load, inline_load_acquire, inline_store, inline_store_release };

	if (use_exported) {
		/* Looked up at run time: the names here would be the inline copies. */
		a.load = (uint32_t (*)(const void *, uint64_t))exported("rfm_load32");
		a.load_acquire = (uint32_t (*)(const void *, uint64_t))exported("rfm_load32_acquire");
		a.store = (void (*)(void *, uint64_t, uint32_t))exported("rfm_store32");
		a.store_release = (void (*)(void *, uint64_t, uint32_t))exported("rfm_store32_release");
	}
	return a;
}

static uint8_t *child_map(const struct job *job, rfm_node **nodep)
{
	void *base;

	HARNESS_CHECK_RFM(rfm_open(job->uri, nodep));
	HARNESS_CHECK_RFM(rfm_mem_map(*nodep, &base, NULL));
	return base;
}

static int writer(struct harness_link *link, void *arg)
{
	const struct job *job = arg;
	struct accessors a = pick(job->use_exported);
	rfm_node *node;
	uint8_t *base = child_map(job, &node);

	harness_link_ready(link);
	harness_link_wait_go(link);
	/* Start only once the reader reads, so the two really overlap. */
	while (!a.load_acquire(base, READER_UP_OFFSET))
		sched_yield();
	for (uint32_t s = 1; s <= SAMPLES; s++) {
		for (int w = 0; w < DATA_WORDS; w++) {
			a.store(base, DATA_OFFSET + 4 * (uint64_t)w, s);
			/*
			 * On a busy machine both may share one core: give the
			 * reader a look at a half-written sample now and then
			 * (newer data than the flag: allowed, and must not confuse it).
			 */
			if (w == DATA_WORDS / 2 && s % 512 == 0)
				sched_yield();
		}
		a.store_release(base, SEQ_OFFSET, s);
	}
	rfm_close(node);
	return 0;
}

static int reader(struct harness_link *link, void *arg)
{
	const struct job *job = arg;
	struct accessors a = pick(job->use_exported);
	struct reader_report r = { 0 };
	bool ahead;
	rfm_node *node;
	uint8_t *base = child_map(job, &node);
	uint32_t seen = 0;
	uint64_t idle = 0;

	harness_link_ready(link);
	harness_link_wait_go(link);
	a.store_release(base, READER_UP_OFFSET, 1);
	while (seen < SAMPLES) {
		uint32_t s = a.load_acquire(base, SEQ_OFFSET);

		if (s == seen) {
			if (++idle % 1024 == 0)
				sched_yield(); /* the writer may share our core */
			continue;
		}
		if (s < seen)
			r.regressions++;
		r.observations++;
		ahead = false;
		for (int w = 0; w < DATA_WORDS; w++) {
			uint32_t d = a.load(base, DATA_OFFSET + 4 * (uint64_t)w);

			if (d < s)
				r.violations++;
			else if (d > s)
				ahead = true;
		}
		if (ahead)
			r.data_ahead++;
		seen = s;
	}
	r.last_seq = seen;
	harness_link_send(link, &r, sizeof(r));
	rfm_close(node);
	return 0;
}

static void run_publication(bool use_exported)
{
	struct harness_network net;
	struct harness_child w, r;
	struct job wjob = { .use_exported = use_exported }, rjob = wjob;
	struct reader_report report;

	harness_network_new(&net, WINDOW);
	snprintf(wjob.uri, sizeof(wjob.uri), "%s", harness_node_uri(&net, 1));
	snprintf(rjob.uri, sizeof(rjob.uri), "%s", harness_node_uri(&net, 2));
	harness_child_spawn(&w, writer, &wjob, sizeof(wjob));
	harness_child_spawn(&r, reader, &rjob, sizeof(rjob));
	assert_int_equal(harness_child_wait_ready(&w), 0);
	assert_int_equal(harness_child_wait_ready(&r), 0);
	harness_child_go(&r);
	harness_child_go(&w);

	assert_int_equal(harness_child_recv(&r, &report, sizeof(report)), 0);
	assert_int_equal(harness_child_wait(&w), 0);
	assert_int_equal(harness_child_wait(&r), 0);
	print_message("%s accessors: reader saw %llu of %u sequence values, "
		      "%llu with newer data\n",
		      use_exported ? "exported" : "inline",
		      (unsigned long long)report.observations, SAMPLES,
		      (unsigned long long)report.data_ahead);
	assert_int_equal(report.violations, 0);
	assert_int_equal(report.regressions, 0);
	assert_int_equal(report.last_seq, SAMPLES);
	assert_in_range(report.observations, 1, SAMPLES);
	assert_rfm_ok(harness_network_destroy(&net));
}

static void data_then_sequence_flag_inline(void **state)
{
	run_publication(false);
}

static void data_then_sequence_flag_exported(void **state)
{
	run_publication(true);
}

static int teardown(void **state)
{
	harness_kill_children();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(data_then_sequence_flag_inline, teardown),
		cmocka_unit_test_teardown(data_then_sequence_flag_exported, teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
