/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Node lifetime: open and close, the info calls, the default URI, node ids
 * (explicit, first free, reuse, reclaimed from a killed process, in use,
 * all taken, out of range), window sizes, the segment's mode, and
 * removing a network.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define WINDOW 4096

static int setup(void **state)
{
	return harness_fixture_network(state, WINDOW);
}

static rfm_node *open_node(struct harness_network *net, int id)
{
	rfm_node *node = NULL;

	assert_rfm_ok(rfm_open(harness_node_uri(net, id), &node));
	assert_non_null(node);
	return node;
}

static struct rfm_node_info node_info(const rfm_node *node)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(node, &info));
	return info;
}

/* dev: the network is the cards': their ids, windows, and no network
 * to create or remove. */
static bool on_cards(void)
{
	return !harness_can(HARNESS_CAP_OWN_NETWORKS);
}

/* The node id that opening node @id of @net gives: @id, except on dev:
 * where the harness picks a card (see harness.h). */
static int expected_id(struct harness_network *net, int id)
{
	if (!on_cards())
		return id;
	rfm_node *node = open_node(net, id);
	int got = rfm_node_id(node);
	rfm_close(node);
	return got;
}

/* Node ids chosen by the network, segments and removal are shm: facts;
 * a card's node id is set by its hardware and the cards' network is not
 * created or removed by programs. */
#define skip_on_cards()                                                         \
	do {                                                                  \
		if (on_cards()) {                                               \
			print_message("skipped: dev: node ids come from the " \
				      "cards and there is no network to "     \
				      "create or remove\n");                  \
			skip();                                               \
		}                                                             \
	} while (0)

static void open_close_and_describe(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = open_node(net, HARNESS_ANY_NODE);
	char want[HARNESS_URI_MAX];

	if (on_cards()) {
		/* A card: its own id, window and node count; attached nodes unknown. */
		struct rfm_node_info info = node_info(node);
		assert_true(rfm_node_id(node) >= 0 && rfm_node_id(node) <= RFM_NODE_ID_MAX);
		assert_int_equal(info.node_id, rfm_node_id(node));
		assert_true(rfm_node_size(node) > 0 && rfm_node_size(node) % 4096 == 0);
		assert_int_equal(info.size, rfm_node_size(node));
		assert_true(info.max_nodes > (uint32_t)info.node_id && info.max_nodes <= RFM_MAX_NODES);
		assert_int_equal(info.nodes_attached, 0);
		assert_string_equal(info.backend, harness_backend());
		assert_string_equal(info.uri, harness_node_uri(net, HARNESS_ANY_NODE));
		assert_string_equal(rfm_node_uri(node), info.uri);
		rfm_close(node);
		return;
	}
	assert_int_equal(rfm_node_id(node), 0);
	assert_int_equal(rfm_node_size(node), WINDOW);
	assert_string_equal(rfm_node_backend(node), harness_backend());
	if (harness_can(HARNESS_CAP_SEGMENT)) {
		snprintf(want, sizeof(want), "shm:%s?node=0&size=%d", net->name, WINDOW);
		assert_string_equal(rfm_node_uri(node), want);
	}

	struct rfm_node_info info = node_info(node);
	assert_int_equal(info.struct_size, sizeof(info));
	assert_int_equal(info.node_id, 0);
	assert_int_equal(info.size, WINDOW);
	assert_int_equal(info.max_nodes, RFM_MAX_NODES);
	assert_int_equal(info.nodes_attached, 1);
	assert_string_equal(info.backend, harness_backend());
	assert_string_equal(info.uri, rfm_node_uri(node));
	assert_int_equal(info.incarnation, 1);
	for (size_t i = 0; i < sizeof(info.reserved) / sizeof(info.reserved[0]); i++)
		assert_int_equal(info.reserved[i], 0);
	rfm_close(node);
}

static void canonical_uri_reopens_the_same_node(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = open_node(net, 42);
	char uri[HARNESS_URI_MAX];
	int id = expected_id(net, 42);
	uint64_t size = rfm_node_size(node);

	assert_int_equal(rfm_node_id(node), id);
	snprintf(uri, sizeof(uri), "%s", rfm_node_uri(node));
	rfm_close(node);
	assert_rfm_ok(rfm_open(uri, &node));
	assert_int_equal(rfm_node_id(node), id);
	assert_int_equal(rfm_node_size(node), on_cards() ? size : WINDOW);
	assert_string_equal(rfm_node_uri(node), uri);
	rfm_close(node);
}

static void info_struct_is_versioned(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = open_node(net, 9);
	const int id = expected_id(net, 9);
	union {
		struct rfm_node_info info;
		unsigned char bytes[sizeof(struct rfm_node_info) + 64];
	} buf;
	const uint32_t oldest = offsetof(struct rfm_node_info, size);

	/* An old caller knowing only the first two fields: nothing past them is written. */
	memset(&buf, 0xa5, sizeof(buf));
	buf.info.struct_size = oldest;
	assert_rfm_ok(rfm_node_get_info(node, &buf.info));
	assert_int_equal(buf.info.struct_size, oldest);
	assert_int_equal(buf.info.node_id, id);
	for (size_t i = oldest; i < sizeof(buf); i++)
		if (buf.bytes[i] != 0xa5)
			fail_msg("byte %zu past struct_size %u was written", i, oldest);

	/* A newer caller with a bigger struct: told how much was filled. */
	memset(&buf, 0xa5, sizeof(buf));
	buf.info.struct_size = sizeof(buf);
	assert_rfm_ok(rfm_node_get_info(node, &buf.info));
	assert_int_equal(buf.info.struct_size, sizeof(struct rfm_node_info));
	assert_int_equal(buf.info.node_id, id);
	assert_int_equal(buf.info.size, rfm_node_size(node));
	for (size_t i = sizeof(struct rfm_node_info); i < sizeof(buf); i++)
		if (buf.bytes[i] != 0xa5)
			fail_msg("byte %zu past the library's struct was written", i);

	/* Too small to be any version of the struct. */
	buf.info.struct_size = oldest - 1;
	assert_rfm_code(rfm_node_get_info(node, &buf.info), RFM_EINVAL);
	assert_last_error_has("struct_size");
	buf.info.struct_size = 0;
	assert_rfm_code(rfm_node_get_info(node, &buf.info), RFM_EINVAL);
	rfm_close(node);
}

static void null_arguments(void **state)
{
	struct harness_network *net = *state;
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	rfm_node *node;
	char path[128];

	assert_rfm_code(rfm_open(harness_node_uri(net, 1), NULL), RFM_EINVAL);
	assert_last_error_has("nodep is NULL");
	if (harness_shm_path(net, path, sizeof(path)))
		assert_int_not_equal(access(path, F_OK), 0); /* nothing was created */

	rfm_close(NULL);
	assert_rfm_code(rfm_node_id(NULL), RFM_EINVAL);
	assert_int_equal(rfm_node_size(NULL), 0);
	assert_string_equal(rfm_node_backend(NULL), "");
	assert_string_equal(rfm_node_uri(NULL), "");
	assert_rfm_code(rfm_node_get_info(NULL, &info), RFM_EINVAL);

	node = open_node(net, 1);
	assert_rfm_code(rfm_node_get_info(node, NULL), RFM_EINVAL);
	assert_last_error_has("NULL");
	rfm_close(node);
}

static void explicit_node_ids(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	const int ids[] = { 0, 17, 128, RFM_NODE_ID_MAX };
	rfm_node *nodes[4];

	for (int i = 0; i < 4; i++) {
		nodes[i] = open_node(net, ids[i]);
		assert_int_equal(rfm_node_id(nodes[i]), ids[i]);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(node_info(nodes[i]).nodes_attached, 4);
	for (int i = 0; i < 4; i++)
		rfm_close(nodes[i]);
}

static void first_free_node_ids(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	rfm_node *one = open_node(net, 1), *nodes[3];

	/* Lowest free id first, stepping over the one already taken. */
	for (int i = 0; i < 3; i++)
		nodes[i] = open_node(net, HARNESS_ANY_NODE);
	assert_int_equal(rfm_node_id(nodes[0]), 0);
	assert_int_equal(rfm_node_id(nodes[1]), 2);
	assert_int_equal(rfm_node_id(nodes[2]), 3);
	for (int i = 0; i < 3; i++)
		rfm_close(nodes[i]);
	rfm_close(one);
}

static void node_id_reused_after_close(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	rfm_node *a = open_node(net, HARNESS_ANY_NODE);
	rfm_node *b = open_node(net, HARNESS_ANY_NODE);
	rfm_node *c = open_node(net, HARNESS_ANY_NODE);

	assert_int_equal(rfm_node_id(b), 1);
	assert_int_equal(node_info(b).incarnation, 1);
	rfm_close(b);
	assert_int_equal(node_info(a).nodes_attached, 2);

	b = open_node(net, HARNESS_ANY_NODE);
	assert_int_equal(rfm_node_id(b), 1);
	assert_int_equal(node_info(b).incarnation, 2); /* the second attach of id 1 */
	assert_int_equal(node_info(c).incarnation, 1);

	rfm_close(a);
	a = open_node(net, 0);
	assert_int_equal(node_info(a).incarnation, 2);
	rfm_close(a);
	rfm_close(b);
	rfm_close(c);
}

static void node_id_in_use(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	rfm_node *first = open_node(net, 5), *second = (rfm_node *)0x1;
	char pid[32];

	assert_rfm_ok(rfm_mem_poke32(first, 0, 0xfeedf00d));
	assert_rfm_code(rfm_open(harness_node_uri(net, 5), &second), RFM_EINUSE);
	assert_ptr_equal(second, (rfm_node *)0x1);
	assert_last_error_has("node id 5 is in use");
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	assert_last_error_has(pid);

	/* The refused open disturbed nothing. */
	uint32_t v;
	assert_rfm_ok(rfm_mem_peek32(first, 0, &v));
	assert_int_equal(v, 0xfeedf00d);
	assert_int_equal(node_info(first).nodes_attached, 1);
	assert_int_equal(node_info(first).incarnation, 1);
	rfm_close(first);

	/* Free again once closed. */
	second = open_node(net, 5);
	rfm_close(second);
}

static void all_node_ids_taken(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	rfm_node **nodes = calloc(RFM_MAX_NODES, sizeof(*nodes));
	rfm_node *extra = NULL;

	assert_non_null(nodes);
	for (int i = 0; i < RFM_MAX_NODES; i++) {
		nodes[i] = open_node(net, HARNESS_ANY_NODE);
		assert_int_equal(rfm_node_id(nodes[i]), i);
	}
	assert_int_equal(node_info(nodes[77]).nodes_attached, RFM_MAX_NODES);

	assert_rfm_code(rfm_open(harness_node_uri(net, HARNESS_ANY_NODE), &extra), RFM_EFULL);
	assert_last_error_has("all 256 node ids are in use");
	assert_null(extra);
	assert_rfm_code(rfm_open(harness_node_uri(net, 10), &extra), RFM_EINUSE);

	/* One closes: exactly its id comes free. */
	rfm_close(nodes[100]);
	nodes[100] = open_node(net, HARNESS_ANY_NODE);
	assert_int_equal(rfm_node_id(nodes[100]), 100);

	for (int i = 0; i < RFM_MAX_NODES; i++)
		rfm_close(nodes[i]);
	free(nodes);
}

static void node_id_out_of_range(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = NULL;

	skip_unless_can(HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE,
			"the network's URI takes node= and size=");
	assert_rfm_code(rfm_open(harness_network_uri(net, "node=256"), &node), RFM_ENODEID);
	assert_last_error_has("outside 0..255");
	assert_rfm_code(rfm_open(harness_network_uri(net, "node=1000&size=4K"), &node),
			RFM_ENODEID);
	assert_null(node);
}

static void size_mismatch(void **state)
{
	struct harness_network *net = *state;
	rfm_node *creator, *other = NULL;

	skip_unless_can(HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE,
			"the network's URI takes node= and size=");
	assert_rfm_ok(rfm_open(harness_network_uri(net, "node=0&size=8K"), &creator));
	assert_rfm_ok(rfm_mem_poke64(creator, 8184, 0x0123456789abcdefull));

	assert_rfm_code(rfm_open(harness_network_uri(net, "node=1&size=4K"), &other), RFM_ESIZE);
	assert_last_error_has("window is 8192 bytes, not the 4096 asked for");
	assert_null(other);
	assert_rfm_code(rfm_open(harness_network_uri(net, "node=1&size=16K"), &other), RFM_ESIZE);

	/* The same size, or none at all, attaches. */
	assert_rfm_ok(rfm_open(harness_network_uri(net, "node=1&size=8192"), &other));
	assert_int_equal(rfm_node_size(other), 8192);
	rfm_close(other);
	assert_rfm_ok(rfm_open(harness_network_uri(net, "node=1"), &other));
	assert_int_equal(rfm_node_size(other), 8192);

	uint64_t v;
	assert_rfm_ok(rfm_mem_peek64(other, 8184, &v));
	assert_int_equal(v, 0x0123456789abcdefull);
	assert_int_equal(node_info(creator).nodes_attached, 2);
	rfm_close(other);
	rfm_close(creator);
}

static void default_window_size(void **state)
{
	struct harness_network net;
	rfm_node *node;

	skip_unless_can(HARNESS_CAP_SEGMENT,
			"a new segment network's window is RFM_SHM_DEFAULT_SIZE");
	harness_network_new(&net, 0);
	assert_rfm_ok(rfm_open(harness_node_uri(&net, HARNESS_ANY_NODE), &node));
	assert_int_equal(rfm_node_size(node), RFM_SHM_DEFAULT_SIZE);
	assert_int_equal(RFM_SHM_DEFAULT_SIZE, 16u << 20); /* fits Docker's 64 MiB /dev/shm */
	rfm_close(node);
	assert_rfm_ok(harness_network_destroy(&net));
}

static mode_t segment_mode(const struct harness_network *net)
{
	char path[128];
	struct stat st;

	harness_shm_path(net, path, sizeof(path));
	if (stat(path, &st) < 0)
		fail_msg("stat %s: %s", path, strerror(errno));
	assert_int_equal(st.st_uid, geteuid());
	return st.st_mode & 07777;
}

static void segment_mode_is_private_by_default(void **state)
{
	struct harness_network *net = *state;
	mode_t old_umask = umask(0); /* a lax umask must not widen it */
	rfm_node *node = NULL;
	int ret;

	skip_unless_can(HARNESS_CAP_SEGMENT, "reads the segment file's mode");
	ret = rfm_open(harness_node_uri(net, 0), &node);
	umask(old_umask);
	assert_rfm_ok(ret);
	assert_int_equal(segment_mode(net), 0600);
	rfm_close(node);
}

static void segment_mode_parameter(void **state)
{
	struct harness_network *net = *state;
	mode_t old_umask = umask(077); /* a strict umask must not narrow it */
	rfm_node *node = NULL, *other = NULL;
	int ret;

	skip_unless_can(HARNESS_CAP_SEGMENT, "the segment file's mode= and umask");
	ret = rfm_open(harness_network_uri(net, "size=4K&mode=0660"), &node);
	umask(old_umask);
	assert_rfm_ok(ret);
	assert_int_equal(segment_mode(net), 0660);

	/* The mode belongs to the creator: a later attach does not change it. */
	assert_rfm_ok(rfm_open(harness_network_uri(net, "mode=0600"), &other));
	assert_int_equal(segment_mode(net), 0660);
	rfm_close(other);
	rfm_close(node);
}

static void default_uri_from_environment(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node;
	char uri[HARNESS_URI_MAX];

	const int id12 = expected_id(net, 12), id13 = expected_id(net, 13);

	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, 12));
	assert_int_equal(setenv("RFM_URI", uri, 1), 0);

	assert_rfm_ok(rfm_open(NULL, &node));
	assert_int_equal(rfm_node_id(node), id12);
	if (!on_cards())
		assert_int_equal(rfm_node_size(node), WINDOW);
	rfm_close(node);
	assert_rfm_ok(rfm_open("", &node));
	assert_int_equal(rfm_node_id(node), id12);
	rfm_close(node);

	/* An explicit URI wins over $RFM_URI. */
	if (on_cards())
		assert_int_equal(setenv("RFM_URI", "dev:/nonexistent-rfm-device", 1), 0);
	assert_rfm_ok(rfm_open(harness_node_uri(net, 13), &node));
	assert_int_equal(rfm_node_id(node), id13);
	rfm_close(node);

	/* A bad $RFM_URI is reported as such. */
	assert_int_equal(setenv("RFM_URI", "nope:from-env", 1), 0);
	assert_rfm_code(rfm_open(NULL, &node), RFM_ESCHEME);
	assert_last_error_has("nope:from-env");
	unsetenv("RFM_URI");
}

/* Opens the built-in default network; removes it only if it was ours. */
static void check_embedded_default(const char *arg)
{
	const char *path = "/dev/shm/rfm-" "default";
	bool existed = access(path, F_OK) == 0;
	rfm_node *node = NULL;
	int ret;

	ret = rfm_open(arg, &node);
	if (ret && existed) {
		/* Someone else's shm:default (another size, or in use): not ours to judge. */
		print_message("skipped: an existing shm:default refused us: %s\n", rfm_last_error());
		skip();
	}
	assert_rfm_ok(ret);
	assert_string_equal(rfm_node_backend(node), harness_backend());
	assert_true(!strncmp(rfm_node_uri(node),
			     RFM_DEFAULT_URI "?node=", strlen(RFM_DEFAULT_URI "?node=")));
	assert_int_equal(access(path, F_OK), 0);
	rfm_close(node);
	if (!existed)
		rfm_network_destroy(RFM_DEFAULT_URI, 0); /* EBUSY: someone joined meanwhile */
}

static void embedded_default_uri(void **state)
{
	skip_unless_can(HARNESS_CAP_DEFAULT_URI, "opens the embedded default network");
	assert_string_equal(RFM_DEFAULT_URI, "shm:default");
	unsetenv("RFM_URI");
	check_embedded_default(NULL);
	check_embedded_default("");
	/* An empty $RFM_URI counts as unset. */
	assert_int_equal(setenv("RFM_URI", "", 1), 0);
	check_embedded_default(NULL);
	unsetenv("RFM_URI");
}

/* Child: attach as the node in @arg's URI, say ready, then wait to be killed. */
static int hold_node(struct harness_link *link, void *arg)
{
	rfm_node *node;

	HARNESS_CHECK_RFM(rfm_open(arg, &node));
	HARNESS_CHECK_RFM(rfm_mem_poke32(node, 0, 0xc0ffee));
	harness_link_ready(link);
	harness_link_wait_go(link);
	rfm_close(node);
	return 0;
}

static void killed_node_id_is_reclaimed(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	struct harness_child child;
	rfm_node *watcher, *node = NULL;
	char uri[HARNESS_URI_MAX], pid[32];
	uint32_t v;

	watcher = open_node(net, 0);
	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, 7));
	harness_child_start(&child, hold_node, uri);
	assert_int_equal(harness_child_wait_ready(&child), 0);

	assert_rfm_code(rfm_open(uri, &node), RFM_EINUSE);
	snprintf(pid, sizeof(pid), "pid %d", (int)child.pid);
	assert_last_error_has(pid);
	assert_int_equal(node_info(watcher).nodes_attached, 2);
	assert_rfm_ok(rfm_mem_peek32(watcher, 0, &v));
	assert_int_equal(v, 0xc0ffee);

	/* No rfm_close(): the process dies holding id 7. */
	harness_child_kill(&child);
	assert_int_equal(harness_child_wait(&child), 128 + SIGKILL);
	assert_int_equal(node_info(watcher).nodes_attached, 1);

	node = open_node(net, 7);
	assert_int_equal(node_info(node).incarnation, 2);
	assert_int_equal(node_info(watcher).nodes_attached, 2);
	/* The dead node's writes stay in the window, like on a card. */
	assert_rfm_ok(rfm_mem_peek32(node, 0, &v));
	assert_int_equal(v, 0xc0ffee);
	rfm_close(node);
	rfm_close(watcher);
}

static void killed_node_id_is_first_free_again(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	struct harness_child child;
	rfm_node *node;
	char uri[HARNESS_URI_MAX];

	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, HARNESS_ANY_NODE));
	harness_child_start(&child, hold_node, uri);
	assert_int_equal(harness_child_wait_ready(&child), 0);
	node = open_node(net, HARNESS_ANY_NODE);
	assert_int_equal(rfm_node_id(node), 1); /* the child holds 0 */
	rfm_close(node);

	harness_child_kill(&child);
	node = open_node(net, HARNESS_ANY_NODE);
	assert_int_equal(rfm_node_id(node), 0);
	assert_int_equal(node_info(node).incarnation, 2);
	rfm_close(node);
}

/* Child: use the handle inherited through fork(), then close it. */
static int use_inherited_handle(struct harness_link *link, void *arg)
{
	rfm_node *inherited = arg;
	uint32_t v;

	/* The window is shared: memory access through the inherited handle works. */
	HARNESS_CHECK_RFM(rfm_mem_poke32(inherited, 8, 0xfeed));
	HARNESS_CHECK_RFM(rfm_mem_peek32(inherited, 0, &v));
	HARNESS_CHECK(v == 0xabc);
	harness_link_ready(link);
	harness_link_wait_go(link);
	/* Closing it must not free what the parent (or its successor) holds. */
	rfm_close(inherited);
	return 0;
}

static void forked_child_does_not_keep_parents_id(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	struct harness_child child;
	rfm_node *watcher, *node, *again;
	uint32_t v;

	watcher = open_node(net, 0);
	node = open_node(net, 5);
	assert_rfm_ok(rfm_mem_poke32(node, 0, 0xabc));
	harness_child_start(&child, use_inherited_handle, node);
	assert_int_equal(harness_child_wait_ready(&child), 0);
	assert_rfm_ok(rfm_mem_peek32(watcher, 8, &v));
	assert_int_equal(v, 0xfeed);

	/* The parent closes while the child still lives: the id is free at once. */
	rfm_close(node);
	assert_int_equal(node_info(watcher).nodes_attached, 1);
	again = open_node(net, 5);
	assert_int_equal(node_info(watcher).nodes_attached, 2);

	harness_child_go(&child);
	assert_int_equal(harness_child_wait(&child), 0);
	/* The child's close of its inherited copy left the new holder alone. */
	assert_int_equal(node_info(watcher).nodes_attached, 2);
	assert_rfm_code(rfm_open(harness_node_uri(net, 5), &node), RFM_EINUSE);
	rfm_close(again);
	rfm_close(watcher);
}

static void child_closing_cleanly_frees_its_id(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	struct harness_child child;
	rfm_node *node;
	char uri[HARNESS_URI_MAX];

	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, 3));
	harness_child_start(&child, hold_node, uri);
	assert_int_equal(harness_child_wait_ready(&child), 0);
	harness_child_go(&child);
	assert_int_equal(harness_child_wait(&child), 0);
	node = open_node(net, 3);
	rfm_close(node);
}

static bool network_exists(const struct harness_network *net)
{
	char path[128];

	return harness_shm_path(net, path, sizeof(path)) && access(path, F_OK) == 0;
}

static void destroy_refuses_busy_network(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	rfm_node *node = open_node(net, 3);

	assert_rfm_code(rfm_network_destroy(net->uri, 0), RFM_EBUSY);
	assert_last_error_has("1 node(s) still attached (node 3 first)");
	/* Still whole: the node works, and others can still join. */
	assert_rfm_ok(rfm_mem_poke8(node, 1, 0x5a));
	rfm_node *other = open_node(net, HARNESS_ANY_NODE);
	uint8_t v;
	assert_rfm_ok(rfm_mem_peek8(other, 1, &v));
	assert_int_equal(v, 0x5a);
	rfm_close(other);
	rfm_close(node);

	assert_rfm_ok(rfm_network_destroy(net->uri, 0));
	if (harness_can(HARNESS_CAP_SEGMENT))
		assert_false(network_exists(net));
	assert_rfm_code(rfm_network_destroy(net->uri, 0), RFM_ENOENT);
	assert_last_error_has(net->name);
}

static void destroy_force_cuts_off_attached_nodes(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	rfm_node *old = open_node(net, 0), *fresh;
	uint32_t v;

	assert_rfm_ok(rfm_mem_poke32(old, 64, 111));
	assert_rfm_ok(rfm_network_destroy(harness_node_uri(net, 99), RFM_DESTROY_FORCE));
	if (harness_can(HARNESS_CAP_SEGMENT))
		assert_false(network_exists(net));

	/* The old node keeps its (now private) window... */
	assert_rfm_ok(rfm_mem_peek32(old, 64, &v));
	assert_int_equal(v, 111);
	assert_rfm_ok(rfm_mem_poke32(old, 64, 222));

	/* ...and the name now belongs to a new, empty network. */
	fresh = open_node(net, 0);
	assert_int_equal(node_info(fresh).incarnation, 1);
	assert_rfm_ok(rfm_mem_peek32(fresh, 64, &v));
	assert_int_equal(v, 0);
	assert_rfm_ok(rfm_mem_poke32(fresh, 68, 333));
	assert_rfm_ok(rfm_mem_peek32(old, 68, &v));
	assert_int_equal(v, 0);
	rfm_close(old);
	rfm_close(fresh);
}

static void destroy_bad_arguments(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = open_node(net, 0);

	assert_rfm_code(rfm_network_destroy(net->uri, 0x2), RFM_EINVAL);
	assert_last_error_has("unknown flags 0x2");
	assert_rfm_code(rfm_network_destroy(net->uri, ~0u), RFM_EINVAL);
	assert_rfm_code(rfm_network_destroy("nope:x", 0), RFM_ESCHEME);
	assert_rfm_code(rfm_network_destroy("dev:/dev/rfm0", 0), RFM_ENOTSUP);
	assert_last_error_has("dev: backend has no network to remove");
	assert_rfm_code(rfm_network_destroy("no-colon", 0), RFM_EURI);
	assert_rfm_code(rfm_network_destroy("shm:bad/name", 0), RFM_EURI);
	if (harness_can(HARNESS_CAP_SEGMENT)) {
		assert_rfm_code(rfm_network_destroy(harness_network_uri(net, "colour=red"),
						    RFM_DESTROY_FORCE),
				RFM_EURI);
		assert_last_error_has("unknown parameter 'colour'");
		assert_rfm_code(rfm_network_destroy(harness_network_uri(net, "node"),
						    RFM_DESTROY_FORCE),
				RFM_EURI);
	}
	/* None of that touched the network. */
	assert_int_equal(node_info(node).nodes_attached, on_cards() ? 0 : 1);
	assert_rfm_ok(rfm_mem_poke8(node, 0, 1));
	rfm_close(node);
}

static void destroy_default_uri_from_environment(void **state)
{
	skip_on_cards();
	struct harness_network *net = *state;
	rfm_node *node = open_node(net, 0);

	rfm_close(node);
	assert_int_equal(setenv("RFM_URI", harness_node_uri(net, 0), 1), 0);
	assert_rfm_ok(rfm_network_destroy(NULL, 0));
	unsetenv("RFM_URI");
	if (harness_can(HARNESS_CAP_SEGMENT))
		assert_false(network_exists(net));
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, harness_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(open_close_and_describe),
		TEST(canonical_uri_reopens_the_same_node),
		TEST(info_struct_is_versioned),
		TEST(null_arguments),
		TEST(explicit_node_ids),
		TEST(first_free_node_ids),
		TEST(node_id_reused_after_close),
		TEST(node_id_in_use),
		TEST(all_node_ids_taken),
		TEST(node_id_out_of_range),
		TEST(size_mismatch),
		TEST(default_window_size),
		TEST(segment_mode_is_private_by_default),
		TEST(segment_mode_parameter),
		TEST(default_uri_from_environment),
		TEST(embedded_default_uri),
		TEST(killed_node_id_is_reclaimed),
		TEST(killed_node_id_is_first_free_again),
		TEST(child_closing_cleanly_frees_its_id),
		TEST(forked_child_does_not_keep_parents_id),
		TEST(destroy_refuses_busy_network),
		TEST(destroy_force_cuts_off_attached_nodes),
		TEST(destroy_bad_arguments),
		TEST(destroy_default_uri_from_environment),
	};

	harness_init();
	/* The suite decides where nodes go; an inherited $RFM_URI must not. */
	unsetenv("RFM_URI");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
