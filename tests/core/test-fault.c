/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Faults: a node killed with SIGKILL in the middle of a seqlock publish or
 * a bulk write, and a node without permission to join. Every other node
 * keeps working, the dead node's id is reclaimed, and no reader ever
 * accepts a torn record.
 */
#include <endian.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define WINDOW (64 * 1024)
#define WORDS 63
#define KILL_ROUNDS 20

static const char layout_yaml[] =
	"version: 1\n"
	"window: 64K\n"
	"regions:\n"
	"  - { name: plant, offset: 0x0, size: 0x400, writer: 1, records: [ { name: state,"
	" variables: [ { name: words, type: u32, count: 63 }, { name: sum, type: u32 } ] } ] }\n";

struct sample {
	uint32_t words[WORDS];
	uint32_t sum;
};

static uint32_t checksum(const struct sample *s)
{
	uint32_t sum = 0x811c9dc5;

	for (int i = 0; i < WORDS; i++)
		sum = (sum ^ s->words[i]) * 16777619u;
	return sum;
}

static void fill(struct sample *s, uint32_t n)
{
	for (int i = 0; i < WORDS; i++)
		s->words[i] = n * 2654435761u + (uint32_t)i;
	s->sum = checksum(s);
}

static int setup(void **state)
{
	return harness_fixture_network(state, WINDOW);
}

static rfm_layout *load_layout(void)
{
	rfm_layout *layout = NULL;
	rfm_diag_list *diags = NULL;

	if (rfm_layout_load_string(layout_yaml, sizeof(layout_yaml) - 1, "fault.yaml", &layout,
				   &diags))
		return NULL;
	return layout;
}

/* Child: node 1 publishes the record as fast as it can until it is killed. */
static int publish_forever(struct harness_link *link, void *arg)
{
	rfm_layout *layout = load_layout();
	rfm_record *rec;
	rfm_node *node;
	struct sample s;

	HARNESS_CHECK(layout != NULL);
	HARNESS_CHECK_RFM(rfm_open(arg, &node));
	HARNESS_CHECK_RFM(rfm_record_open(layout, node, "plant.state", &rec));
	fill(&s, 1);
	HARNESS_CHECK_RFM(rfm_record_write(rec, &s, sizeof(s)));
	harness_link_ready(link);
	for (uint32_t n = 2;; n++) {
		fill(&s, n);
		rfm_record_write(rec, &s, sizeof(s));
	}
	return 0;
}

/* Read once: consistent (checksum right) or RFM_ETORN; never torn and accepted. */
static void read_never_torn(rfm_record *rec, int *torn_results)
{
	struct sample s;
	int ret = rfm_record_read(rec, &s, sizeof(s), NULL);

	if (ret == RFM_ETORN) {
		(*torn_results)++;
		return;
	}
	assert_true(ret >= 0);
	assert_int_equal(s.sum, checksum(&s));
}

static void writer_killed_during_publish(void **state)
{
	struct harness_network *net = *state;
	rfm_layout *layout = load_layout();
	rfm_node *reader_node, *writer_node;
	rfm_record *reader, *writer;
	char uri[HARNESS_URI_MAX];
	int torn_results = 0;
	struct sample s;

	assert_non_null(layout);
	reader_node = NULL;
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &reader_node));
	assert_rfm_ok(rfm_record_open(layout, reader_node, "plant.state", &reader));
	assert_rfm_ok(rfm_record_set_max_tries(reader, 50));
	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, 1));

	for (int round = 0; round < KILL_ROUNDS; round++) {
		struct harness_child child;

		harness_child_start(&child, publish_forever, uri);
		assert_int_equal(harness_child_wait_ready(&child), 0);
		for (int i = 0; i < 1000; i++)
			read_never_torn(reader, &torn_results);
		/* Killed wherever it is: often inside a publish. */
		harness_child_kill(&child);
		assert_int_equal(harness_child_wait(&child), 128 + SIGKILL);
		read_never_torn(reader, &torn_results);
	}

	/* The dead writer's id is reclaimed, and a new writer repairs the record. */
	assert_rfm_ok(rfm_open(uri, &writer_node));
	assert_rfm_ok(rfm_record_open(layout, writer_node, "plant.state", &writer));
	fill(&s, 12345);
	assert_rfm_ok(rfm_record_write(writer, &s, sizeof(s)));
	memset(&s, 0, sizeof(s));
	assert_true(rfm_record_read(reader, &s, sizeof(s), NULL) >= 0);
	assert_int_equal(s.words[0], 12345u * 2654435761u);
	assert_int_equal(s.sum, checksum(&s));
	print_message("killed %d writers; %d reads ended RFM_ETORN, none accepted torn data\n",
		      KILL_ROUNDS, torn_results);

	rfm_record_close(writer);
	rfm_record_close(reader);
	rfm_close(writer_node);
	rfm_close(reader_node);
	rfm_layout_free(layout);
}

/* A publish cut short leaves an odd sequence: readers refuse, a new publish repairs. */
static void publish_cut_short_is_refused_then_repaired(void **state)
{
	struct harness_network *net = *state;
	rfm_layout *layout = load_layout();
	rfm_node *writer_node, *reader_node;
	rfm_record *writer, *reader;
	struct rfm_record_info info = { .struct_size = sizeof(info) };
	struct sample s;
	uint32_t seq;

	assert_non_null(layout);
	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &writer_node));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &reader_node));
	assert_rfm_ok(rfm_record_open(layout, writer_node, "plant.state", &writer));
	assert_rfm_ok(rfm_record_open(layout, reader_node, "plant.state", &reader));
	assert_rfm_ok(rfm_record_set_max_tries(reader, 10));
	fill(&s, 7);
	assert_rfm_ok(rfm_record_write(writer, &s, sizeof(s)));
	assert_rfm_ok(rfm_record_get_info(reader, &info));

	/* What a writer killed between "sequence odd" and "sequence even" leaves. */
	assert_rfm_ok(rfm_record_sequence(reader, &seq));
	assert_rfm_ok(rfm_mem_poke32(writer_node, info.offset, htole32(seq + 1))); /* little-endian record */
	assert_rfm_code(rfm_record_read(reader, &s, sizeof(s), NULL), RFM_ETORN);
	assert_last_error_has("publish was in progress");

	fill(&s, 8);
	assert_rfm_ok(rfm_record_write(writer, &s, sizeof(s)));
	memset(&s, 0, sizeof(s));
	assert_true(rfm_record_read(reader, &s, sizeof(s), NULL) >= 0);
	assert_int_equal(s.sum, checksum(&s));
	assert_int_equal(s.words[1], 8u * 2654435761u + 1);

	rfm_record_close(writer);
	rfm_record_close(reader);
	rfm_close(writer_node);
	rfm_close(reader_node);
	rfm_layout_free(layout);
}

/* Child: node 3 rewrites the whole window until it is killed. */
static int write_forever(struct harness_link *link, void *arg)
{
	static uint8_t buf[WINDOW];
	rfm_node *node;

	HARNESS_CHECK_RFM(rfm_open(arg, &node));
	harness_link_ready(link);
	for (uint8_t n = 0;; n++) {
		memset(buf, n, sizeof(buf));
		rfm_mem_write(node, 0, buf, sizeof(buf));
	}
	return 0;
}

static void writer_killed_during_bulk_write(void **state)
{
	struct harness_network *net = *state;
	struct harness_child child;
	char uri[HARNESS_URI_MAX];
	rfm_node *other, *again;
	uint32_t v;

	assert_rfm_ok(rfm_open(harness_node_uri(net, 0), &other));
	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, 3));
	harness_child_start(&child, write_forever, uri);
	assert_int_equal(harness_child_wait_ready(&child), 0);
	harness_child_kill(&child);
	assert_int_equal(harness_child_wait(&child), 128 + SIGKILL);

	/* The survivors' access is untouched, and the id is free again. */
	assert_rfm_ok(rfm_mem_poke32(other, 0x100, 0xfeedbeef));
	assert_rfm_ok(rfm_mem_peek32(other, 0x100, &v));
	assert_int_equal(v, 0xfeedbeef);
	assert_rfm_ok(rfm_open(uri, &again));
	assert_rfm_ok(rfm_mem_peek32(again, 0x100, &v));
	assert_int_equal(v, 0xfeedbeef);
	rfm_close(again);
	rfm_close(other);
}

/* Child: join as an unprivileged user (uid 65534, group of the segment or not). */
static int join_as_nobody(struct harness_link *link, void *arg)
{
	const char *uri = arg;
	rfm_node *node;
	gid_t gid = (gid_t)atoi(uri + strlen(uri) + 1);
	int ret;

	HARNESS_CHECK(setgroups(0, NULL) == 0 && setgid(gid) == 0 && setuid(65534) == 0);
	ret = rfm_open(uri, &node);
	if (ret == 0)
		rfm_close(node);
	harness_link_send(link, &ret, sizeof(ret));
	return 0;
}

static int open_as_nobody(const char *uri, gid_t gid)
{
	struct harness_child child;
	char arg[HARNESS_URI_MAX + 16];
	int ret = 1;

	/* The URI, a NUL, then the group id: one buffer for the child. */
	snprintf(arg, sizeof(arg), "%s", uri);
	snprintf(arg + strlen(arg) + 1, sizeof(arg) - strlen(arg) - 1, "%u", (unsigned int)gid);
	harness_child_start(&child, join_as_nobody, arg);
	assert_int_equal(harness_child_recv(&child, &ret, sizeof(ret)), 0);
	assert_int_equal(harness_child_wait(&child), 0);
	return ret;
}

static void permission_denied_and_group_sharing(void **state)
{
	struct harness_network *net = *state;
	struct harness_network shared;
	rfm_node *owner, *group_owner;

	if (geteuid() != 0) {
		print_message("skipped: needs root to act as another user\n");
		skip();
	}
	skip_unless_can(HARNESS_CAP_SEGMENT, "the segment file's mode decides who joins");
	/* Default 0600: another user is refused, cleanly. */
	assert_rfm_ok(rfm_open(harness_node_uri(net, 0), &owner));
	assert_int_equal(open_as_nobody(harness_node_uri(net, 1), 0), RFM_EPERM);

	/* 0660: a member of the group joins. */
	harness_network_new(&shared, WINDOW);
	assert_rfm_ok(rfm_open(harness_network_uri(&shared, "size=64K&node=0&mode=0660"), &group_owner));
	assert_int_equal(open_as_nobody(harness_node_uri(&shared, 1), getegid()), 0);
	assert_int_equal(open_as_nobody(harness_node_uri(&shared, 1), 65534), RFM_EPERM);

	rfm_close(group_owner);
	harness_network_destroy(&shared);
	rfm_close(owner);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, harness_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(writer_killed_during_publish),
		TEST(publish_cut_short_is_refused_then_repaired),
		TEST(writer_killed_during_bulk_write),
		TEST(permission_denied_and_group_sharing),
	};

	harness_init();
	/* Children open nodes, the layout's writer is node 1, and a word one
	 * node pokes is what another reads next. */
	harness_require(HARNESS_CAP_FORK | HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_ONE_MEMORY,
			"kills writers in child processes and forges records through one memory");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
