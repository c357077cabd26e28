/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stranger on the DDS domain (dds-rogue, built from dds-wire.idl)
 * against real nodes: what the victims do with its samples. A sample
 * naming the receiver as its writer would write the receiver's own words
 * of its own copy; a sequence jump past any real gap would make every
 * real sample of that writer look old for good. Both are refused and
 * counted (rfm_event_stats' refused), and the stream goes on.
 * Runs with RFM_TEST_BACKEND=dds (tests/backends/dds/run-dds-suites.sh).
 */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rfm-cmocka.h"

extern char **environ;

#define WINDOW (64 * 1024)
#define GUARD_MS 10000 /* a hang guard, not a timing assertion */

static int setup(void **state)
{
	return harness_fixture_network(state, WINDOW);
}

static rfm_node *open_node(void **state, int id)
{
	rfm_node *node = NULL;

	assert_rfm_ok(rfm_open(harness_node_uri(*state, id), &node));
	return node;
}

/* The network's name and domain, from a node's canonical URI. */
static void name_and_domain(rfm_node *node, char *name, size_t len, char *domain, size_t dlen)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(node, &info));
	const char *q = strchr(info.uri, '?'), *d = strstr(info.uri, "domain=");
	assert_non_null(q);
	assert_non_null(d);
	snprintf(name, len, "%.*s", (int)(q - info.uri - 4), info.uri + 4);
	snprintf(domain, dlen, "%.*s", (int)strcspn(d + 7, "&"), d + 7);
}

/* Run the rogue: one WRITE "from" @writer; returns once the readers have it. */
static void rogue(rfm_node *victim, int writer, uint32_t inc, uint64_t seq, uint64_t off,
		  const char *text)
{
	char name[128], domain[16], w[8], i[16], s[24], o[24];
	char *argv[] = { "tests/backends/dds/dds-rogue", domain, name, w, i, s, o,
			 (char *)text, NULL };
	pid_t pid;
	int status;

	name_and_domain(victim, name, sizeof(name), domain, sizeof(domain));
	snprintf(w, sizeof(w), "%d", writer);
	snprintf(i, sizeof(i), "%u", inc);
	snprintf(s, sizeof(s), "%llu", (unsigned long long)seq);
	snprintf(o, sizeof(o), "%llu", (unsigned long long)off);
	assert_int_equal(posix_spawn(&pid, argv[0], NULL, NULL, argv, environ), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static uint64_t refused(rfm_node *node)
{
	struct rfm_event_stats st = { .struct_size = sizeof(st) };

	assert_rfm_ok(rfm_event_get_stats(node, &st));
	return st.refused;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Poll @node's copy until @off reads @text; false at the guard. */
static bool reads(rfm_node *node, uint64_t off, const char *text)
{
	char buf[64] = "";
	uint64_t end = now_ms() + GUARD_MS;

	for (;;) {
		assert_rfm_ok(rfm_mem_read(node, off, buf, strlen(text)));
		if (!memcmp(buf, text, strlen(text)))
			return true;
		if (now_ms() > end)
			return false;
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
}

/* A sample naming node 1 as its writer, at node 1: refused, its own copy untouched. */
static void a_sample_naming_the_receiver_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(a, &info));
	rogue(a, 1, info.incarnation, 1, 0x200, "EVIL");
	/* The rogue returned once every reader acknowledged the sample. */
	assert_int_equal(refused(a), 1);
	char buf[4];
	assert_rfm_ok(rfm_mem_read(a, 0x200, buf, 4));
	assert_memory_equal(buf, "\0\0\0\0", 4);
	/* Node 1's real writes still reach the other copy. */
	assert_rfm_ok(rfm_mem_write(a, 0x300, "GOOD", 4));
	assert_true(reads(b, 0x300, "GOOD"));
	rfm_close(b);
	rfm_close(a);
}

/* Sequence 2^62 as node 1, at node 2: refused, and node 1's stream goes on. */
static void a_sequence_jump_past_the_bound_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(a, &info));
	assert_rfm_ok(rfm_mem_write(a, 0x300, "ONE.", 4));
	assert_true(reads(b, 0x300, "ONE."));
	rogue(b, 1, info.incarnation, UINT64_C(1) << 62, 0x200, "EVIL");
	assert_int_equal(refused(b), 1);
	assert_rfm_ok(rfm_mem_write(a, 0x300, "TWO.", 4));
	assert_true(reads(b, 0x300, "TWO."));
	char buf[4];
	assert_rfm_ok(rfm_mem_read(b, 0x200, buf, 4));
	assert_memory_equal(buf, "\0\0\0\0", 4);
	rfm_close(b);
	rfm_close(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_sample_naming_the_receiver_is_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(a_sequence_jump_past_the_bound_is_refused, setup,
						harness_fixture_teardown),
	};

	harness_init();
	harness_require_backend("dds");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
