/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shm: segment against hostile co-tenants and careless callers
 * (docs/security.md), its footprint and create=0:
 *  - a program with stdout or stderr closed cannot write into the segment;
 *  - a user who may only read the segment can block nobody;
 *  - a name squatted by another user is refused unless accept_owner=1;
 *  - a queue entry pointing outside the file, or a truncated event area,
 *    is counted damage for senders, never a SIGBUS;
 *  - a creator killed before storing the magic does not brick the name;
 *  - a network occupies its window, a few pages and one slab per receiver;
 *  - create=0 opens only existing networks.
 * Items that act as another user need root (skipped otherwise).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "rfm-cmocka.h"
#include "backends/shm/shm-segment.h" /* the segment's private layout */

#define WINDOW 65536
#define NOBODY 65534

static int setup(void **state)
{
	return harness_fixture_network(state, WINDOW);
}

static void need_root(void)
{
	if (geteuid() != 0) {
		print_message("skipped: needs root to act as another user\n");
		skip();
	}
}

static void become_nobody(void)
{
	HARNESS_CHECK(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0);
}

static char *lock_path(const struct harness_network *net, char *buf, size_t len)
{
	snprintf(buf, len, RFM_SHM_DIR "/" RFM_SHM_LOCK_PREFIX "%s", net->name);
	return buf;
}

static uint64_t allocated_bytes(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_blocks * 512;
}

/* ---- item 1: closed standard descriptors ---- */

/* Child: with stdin, stdout and stderr closed, open a node and "print". */
static int open_with_std_closed(struct harness_link *link, void *arg)
{
	const char *uri = arg;
	rfm_node *node;
	uint32_t v = 0;
	int ok = 1;

	close(0);
	close(1);
	close(2);
	if (rfm_open(uri, &node))
		return 10;
	if (rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)))
		return 11;
	/* What a program prints must go nowhere, not into the segment. */
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			ok = 0;
	if (write(1, "rfm: rfm: oops\n", 15) != -1 || write(2, "rfm: rfm: oops\n", 15) != -1)
		ok = 0;
	rfm_mem_peek32(node, 0, &v);
	rfm_close(node);
	harness_link_send(link, &ok, sizeof(ok));
	return 0;
}

static void closed_std_descriptors_never_hold_the_segment(void **state)
{
	struct harness_network *net = *state;
	struct harness_child child;
	rfm_node *node;
	int ok = 0;
	uint32_t v;

	/* The child creates the network itself: the creating path too. */
	harness_child_start(&child, open_with_std_closed, (void *)harness_node_uri(net, 1));
	assert_int_equal(harness_child_recv(&child, &ok, sizeof(ok)), 0);
	assert_int_equal(harness_child_wait(&child), 0);
	assert_int_equal(ok, 1);
	/* The header is intact: another node opens and works. */
	assert_rfm_ok(rfm_open(harness_node_uri(net, 2), &node));
	assert_rfm_ok(rfm_mem_poke32(node, 0, 0x600d));
	assert_rfm_ok(rfm_mem_peek32(node, 0, &v));
	assert_int_equal(v, 0x600d);
	rfm_close(node);
}

/* ---- item 3: a read-only user blocks nobody ---- */

struct reader_arg {
	char seg[128];
	char lock[128];
	char uri[HARNESS_URI_MAX];
};

/*
 * Child as uid nobody on a 0644 network: the library refuses it, and what
 * a hand-written program can do with read access (every lock a descriptor
 * allows) is held while the parent works.
 */
static int hostile_reader(struct harness_link *link, void *arg)
{
	struct reader_arg *a = arg;
	rfm_node *node;
	int report[3];
	int fd;

	become_nobody();
	report[0] = rfm_open(a->uri, &node);
	if (!report[0])
		rfm_close(node);
	report[1] = open(a->lock, O_RDONLY) < 0 ? errno : 0;
	fd = open(a->seg, O_RDONLY);
	HARNESS_CHECK(fd >= 0);
	/* Every lock a reader can take on the segment, held until killed. */
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 4096 };
	report[2] = fcntl(fd, F_OFD_SETLK, &fl) == 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
	harness_link_send(link, report, sizeof(report));
	harness_link_wait_go(link);
	return 0;
}

static void read_only_user_blocks_nobody(void **state)
{
	struct harness_network *net = *state;
	struct harness_child child;
	struct reader_arg a;
	rfm_node *owner, *nodes[3];
	int report[3];

	need_root();
	assert_rfm_ok(rfm_open(harness_network_uri(net, "size=64K&node=0&mode=0644"), &owner));
	harness_shm_path(net, a.seg, sizeof(a.seg));
	lock_path(net, a.lock, sizeof(a.lock));
	snprintf(a.uri, sizeof(a.uri), "%s", harness_node_uri(net, 1));

	harness_child_start(&child, hostile_reader, &a);
	assert_int_equal(harness_child_recv(&child, report, sizeof(report)), 0);
	/* The library: refused, clearly, before taking anything. */
	assert_int_equal(report[0], RFM_EPERM);
	/* The lock file is closed to readers. */
	assert_int_equal(report[1], EACCES);
	/* It did grab what it could on the segment... */
	assert_int_equal(report[2], 1);
	/* ...and every writer still opens, with the ids it asks for. */
	for (int i = 0; i < 3; i++) {
		assert_rfm_ok(rfm_open(harness_node_uri(net, 10 + i), &nodes[i]));
		assert_int_equal(rfm_node_id(nodes[i]), 10 + i);
	}
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	assert_rfm_ok(rfm_node_get_info(owner, &info));
	assert_int_equal(info.nodes_attached, 4);
	for (int i = 0; i < 3; i++)
		rfm_close(nodes[i]);
	rfm_close(owner);
	/* Nobody attached as far as the locks go: destroy works unforced. */
	assert_rfm_ok(rfm_network_destroy(net->uri, 0));
	harness_child_go(&child);
	assert_int_equal(harness_child_wait(&child), 0);
}

/* ---- item 4: a squatted name ---- */

struct squat_arg {
	char path[128];
	mode_t mode;
};

/* Child as uid nobody: pre-create a file in /dev/shm with a wide mode. */
static int squat(struct harness_link *link, void *arg)
{
	struct squat_arg *a = arg;
	int fd;

	(void)link;
	become_nobody();
	fd = open(a->path, O_RDWR | O_CREAT | O_EXCL, a->mode);
	HARNESS_CHECK(fd >= 0);
	HARNESS_CHECK(fchmod(fd, a->mode) == 0);
	close(fd);
	return 0;
}

static void squat_as_nobody(const char *path, mode_t mode)
{
	struct harness_child child;
	struct squat_arg a;

	snprintf(a.path, sizeof(a.path), "%s", path);
	a.mode = mode;
	harness_child_start(&child, squat, &a);
	assert_int_equal(harness_child_wait(&child), 0);
}

static void squatted_name_is_refused(void **state)
{
	struct harness_network *net = *state;
	char path[128], want[64];
	rfm_node *node = NULL;
	uint32_t v;

	need_root();
	squat_as_nobody(harness_shm_path(net, path, sizeof(path)), 0666);
	assert_rfm_code(rfm_open(harness_network_uri(net, "size=64K&mode=0600"), &node), RFM_EPERM);
	assert_null(node);
	assert_last_error_has("uid 65534");
	assert_last_error_has("mode 0666");
	assert_last_error_has("accept_owner=1");
	/* World-writable and someone else's: refused without mode= too. */
	assert_rfm_code(rfm_open(harness_network_uri(net, "size=64K"), &node), RFM_EPERM);
	/* Nothing was written into it. */
	assert_int_equal(allocated_bytes(path), 0);
	/* Accepted explicitly, it is joined as it is. */
	assert_rfm_ok(rfm_open(harness_network_uri(net, "size=64K&mode=0600&accept_owner=1"),
			       &node));
	assert_rfm_ok(rfm_mem_poke32(node, 0, 1));
	assert_rfm_ok(rfm_mem_peek32(node, 0, &v));
	assert_int_equal(v, 1);
	rfm_close(node);
	assert_rfm_ok(rfm_network_destroy(net->uri, RFM_DESTROY_FORCE));

	/* A squatted lock file (the locks others wait on) is refused as well. */
	squat_as_nobody(lock_path(net, path, sizeof(path)), 0666);
	assert_rfm_code(rfm_open(harness_node_uri(net, 0), &node), RFM_EPERM);
	snprintf(want, sizeof(want), "lock file belongs to uid %d", NOBODY);
	assert_last_error_has(want);
	unlink(path);
}

/* ---- item 5: hostile queue fields; item 10: a truncated event area ---- */

struct seg_map {
	uint8_t *map;
	size_t size;
	struct rfm_shm_header *h;
	struct rfm_shm_node_entry *nodes;
};

static void map_segment(struct harness_network *net, struct seg_map *m)
{
	char path[128];
	struct rfm_shm_header h;
	int fd = open(harness_shm_path(net, path, sizeof(path)), O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	m->size = (size_t)h.event_offset;
	m->map = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(m->map != MAP_FAILED);
	close(fd);
	m->h = (struct rfm_shm_header *)m->map;
	m->nodes = (struct rfm_shm_node_entry *)(m->map + m->h->node_table_offset);
}

static void hostile_queue_entries_are_counted_damage(void **state)
{
	struct harness_network *net = *state;
	struct seg_map m;
	struct rfm_event ev;
	rfm_node *tx, *rx;

	assert_rfm_ok(rfm_open(harness_node_uri(net, 1), &tx));
	assert_rfm_ok(rfm_open(harness_node_uri(net, 200), &rx));
	assert_rfm_ok(rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	map_segment(net, &m);
	uint32_t bits = m.nodes[200].event_queues;
	assert_int_equal(bits, 1);
	uint16_t slab = m.nodes[200].queue_slab[0];

	/* A co-tenant points node 200's queue far past the file, and invents more. */
	m.nodes[200].queue_slab[0] = 2000;
	m.nodes[200].queue_slab[1] = UINT16_MAX;
	m.nodes[200].queue_slab[2] = 0;
	m.nodes[200].event_queues = 0x7;
	m.nodes[77].event_queues = 0xff;
	m.nodes[77].state = RFM_SHM_NODE_ATTACHED;
	memset(m.nodes[77].queue_slab, 0xee, sizeof(m.nodes[77].queue_slab));
	m.h->listening[1] |= UINT64_C(1) << (77 - 64);
	assert_rfm_code(rfm_event_send(tx, 200, RFM_EVENT_INTR1, 1), RFM_ECORRUPT);
	assert_last_error_has("points outside");
	assert_rfm_code(rfm_event_send(tx, 77, RFM_EVENT_INTR1, 2), RFM_ECORRUPT);
	assert_rfm_ok(rfm_event_send(tx, RFM_NODE_ALL, RFM_EVENT_INTR1, 3));
	/* A slab in the file but owned by another queue: skipped, not delivered. */
	m.nodes[200].queue_slab[0] = slab;
	m.nodes[77].queue_slab[0] = slab;
	m.nodes[77].event_queues = 1;
	assert_rfm_ok(rfm_event_send(tx, 77, RFM_EVENT_INTR1, 4));
	/* Restored, node 200 gets exactly what reached its real queue. */
	m.nodes[200].event_queues = bits;
	assert_int_equal(rfm_event_send(tx, 200, RFM_EVENT_INTR1, 5), 1); /* one queue */
	assert_rfm_ok(rfm_event_wait(rx, &ev, 1000));
	assert_int_equal(ev.data, 5);
	assert_rfm_code(rfm_event_wait(rx, &ev, 0), RFM_EAGAIN);
	munmap(m.map, m.size);
	rfm_close(rx);
	rfm_close(tx);
}

/* Child: receive events on node 200 and stay until killed. */
static int receiver(struct harness_link *link, void *arg)
{
	rfm_node *rx;

	HARNESS_CHECK_RFM(rfm_open(arg, &rx));
	HARNESS_CHECK_RFM(rfm_event_enable(rx, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	harness_link_ready(link);
	harness_link_wait_go(link);
	return 0;
}

/*
 * Child: open after the truncation (the window is intact, so the file is
 * accepted), send to one node and to all; report the codes (a SIGBUS ends
 * it). A sender that used the queue before the truncation trusts the
 * size it saw then and may fault: truncation needs write access, and
 * docs/security.md says what that allows.
 */
static int sender(struct harness_link *link, void *arg)
{
	rfm_node *tx;
	int codes[2];

	HARNESS_CHECK_RFM(rfm_open(arg, &tx));
	codes[0] = rfm_event_send(tx, 200, RFM_EVENT_INTR1, 1);
	codes[1] = rfm_event_send(tx, RFM_NODE_ALL, RFM_EVENT_INTR1, 2);
	harness_link_send(link, codes, sizeof(codes));
	rfm_close(tx);
	return 0;
}

static void truncated_event_area_does_not_kill_senders(void **state)
{
	struct harness_network *net = *state;
	struct harness_child rx, tx;
	char path[128], uri[HARNESS_URI_MAX];
	struct rfm_shm_header h;
	struct stat st;
	int codes[2] = { 1, 1 };
	int fd;

	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, 200));
	harness_child_start(&rx, receiver, uri);
	assert_int_equal(harness_child_wait_ready(&rx), 0);

	/* A co-tenant with write access cuts the file back to the window. */
	fd = open(harness_shm_path(net, path, sizeof(path)), O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	assert_true((uint64_t)st.st_size > h.event_offset);
	assert_int_equal(ftruncate(fd, (off_t)h.event_offset), 0);

	snprintf(uri, sizeof(uri), "%s", harness_node_uri(net, 1));
	harness_child_start(&tx, sender, uri);
	assert_int_equal(harness_child_recv(&tx, codes, sizeof(codes)), 0);
	assert_int_equal(harness_child_wait(&tx), 0);
	assert_int_equal(codes[0], RFM_ECORRUPT);
	assert_int_equal(codes[1], 0);

	/* The receiver's own slab is gone: it is not woken (it would fault). */
	harness_child_kill(&rx);
	assert_int_equal(ftruncate(fd, st.st_size), 0);
	close(fd);
}

/* ---- item 7: a creator killed before the magic ---- */

static void creator_killed_before_the_magic_does_not_brick(void **state)
{
	struct harness_network *net = *state;
	char path[128];
	rfm_node *node;
	uint32_t v;
	int fd;

	/*
	 * The state a creator SIGKILLed between writing the header and
	 * storing the magic leaves: a full header, magic 0, nobody attached,
	 * the open lock free.
	 */
	assert_rfm_ok(rfm_open(harness_node_uri(net, 0), &node));
	assert_rfm_ok(rfm_mem_poke32(node, 0, 0xdead));
	rfm_close(node);
	fd = open(harness_shm_path(net, path, sizeof(path)), O_RDWR);
	assert_true(fd >= 0);
	uint64_t zero = 0;
	assert_int_equal(pwrite(fd, &zero, sizeof(zero), offsetof(struct rfm_shm_header, magic)),
			 (ssize_t)sizeof(zero));
	close(fd);

	/* The next opener makes the network afresh. */
	assert_rfm_ok(rfm_open(harness_node_uri(net, 3), &node));
	assert_int_equal(rfm_node_id(node), 3);
	assert_int_equal(rfm_node_size(node), WINDOW);
	assert_rfm_ok(rfm_mem_peek32(node, 0, &v));
	assert_int_equal(v, 0);
	rfm_close(node);
}

/* ---- footprint: window + header pages + one slab per receiver ---- */

static void footprint_follows_the_receivers(void **state)
{
	struct harness_network *net = *state;
	struct harness_network big;
	struct statvfs fs;
	char path[128];
	rfm_node *nodes[3];
	uint64_t bytes, none;

	(void)state;
	harness_network_new(net, 1 << 20);
	assert_rfm_ok(rfm_open(harness_node_uri(net, 0), &nodes[0]));
	none = allocated_bytes(harness_shm_path(net, path, sizeof(path)));
	print_message("shm:x?size=1M, no receiver:        %llu bytes\n", (unsigned long long)none);
	assert_true(none <= (1 << 20) + 5 * RFM_SHM_PAGE);
	rfm_close(nodes[0]);
	for (int i = 0; i < 3; i++) {
		assert_rfm_ok(rfm_open(harness_node_uri(net, i), &nodes[i]));
		assert_rfm_ok(rfm_event_enable(nodes[i], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	}
	bytes = allocated_bytes(path);
	print_message("shm:x?size=1M, 3 receiving handles: %llu bytes (target <= %u)\n",
		      (unsigned long long)bytes, 3u << 19);
	assert_true(bytes <= 3u << 19);
	assert_true(bytes > none);
	/* A receiver that leaves frees its slab for the next one: no growth. */
	rfm_close(nodes[2]);
	assert_rfm_ok(rfm_open(harness_node_uri(net, 9), &nodes[2]));
	assert_rfm_ok(rfm_event_enable(nodes[2], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	assert_int_equal(allocated_bytes(path), bytes);
	for (int i = 0; i < 3; i++)
		rfm_close(nodes[i]);

	/* 64 MiB, when /dev/shm has room for it. */
	if (statvfs(RFM_SHM_DIR, &fs) == 0 &&
	    (uint64_t)fs.f_bavail * fs.f_frsize > (80ull << 20)) {
		harness_network_new(&big, 64ull << 20);
		assert_rfm_ok(rfm_open(harness_node_uri(&big, 0), &nodes[0]));
		assert_rfm_ok(rfm_event_enable(nodes[0], RFM_EVENT_BIT(RFM_EVENT_INTR1)));
		bytes = allocated_bytes(harness_shm_path(&big, path, sizeof(path)));
		print_message("shm:x?size=64M, 1 receiving handle: %llu bytes (target <= %llu)\n",
			      (unsigned long long)bytes, 66ull << 20);
		assert_true(bytes <= 66ull << 20);
		rfm_close(nodes[0]);
		assert_rfm_ok(harness_network_destroy(&big));
	} else {
		print_message("64 MiB case skipped: /dev/shm has less than 80 MiB free\n");
	}
}

/* ---- create=0 ---- */

static void create_0_opens_only_existing_networks(void **state)
{
	struct harness_network *net = *state;
	struct harness_network near;
	char path[128], want[160];
	rfm_node *node = NULL;
	struct stat st;

	assert_rfm_code(rfm_open(harness_network_uri(net, "create=0"), &node), RFM_ENOENT);
	assert_null(node);
	snprintf(want, sizeof(want), "no network '%s'", net->name);
	assert_last_error_has(want);
	assert_int_equal(stat(harness_shm_path(net, path, sizeof(path)), &st), -1);
	assert_int_equal(stat(lock_path(net, path, sizeof(path)), &st), -1);

	/* A near miss names the network that exists. */
	harness_network_new(&near, WINDOW);
	snprintf(near.name + strlen(near.name), sizeof(near.name) - strlen(near.name), "xy");
	snprintf(near.uri, sizeof(near.uri), "shm:%s", near.name);
	assert_rfm_ok(rfm_open(harness_node_uri(&near, 0), &node));
	rfm_close(node);
	struct harness_network typo = near;
	size_t len = strlen(typo.name);
	typo.name[len - 2] = 'y';
	typo.name[len - 1] = 'x';
	snprintf(typo.uri, sizeof(typo.uri), "shm:%s", typo.name);
	assert_rfm_code(rfm_open(harness_network_uri(&typo, "create=0"), &node), RFM_ENOENT);
	snprintf(want, sizeof(want), "did you mean '%s'?", near.name);
	assert_last_error_has(want);
	assert_rfm_ok(rfm_network_destroy(near.uri, 0));

	/* Existing: opened as usual. A bad value is a URI error. */
	assert_rfm_ok(rfm_open(harness_node_uri(net, 0), &node));
	rfm_close(node);
	assert_rfm_ok(rfm_open(harness_network_uri(net, "create=0&node=4"), &node));
	assert_int_equal(rfm_node_id(node), 4);
	rfm_close(node);
	assert_rfm_code(rfm_open(harness_network_uri(net, "create=yes"), &node), RFM_EURI);
	assert_rfm_code(rfm_open(harness_network_uri(net, "accept_owner=2"), &node), RFM_EURI);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, harness_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(closed_std_descriptors_never_hold_the_segment),
		TEST(read_only_user_blocks_nobody),
		TEST(squatted_name_is_refused),
		TEST(hostile_queue_entries_are_counted_damage),
		TEST(truncated_event_area_does_not_kill_senders),
		TEST(creator_killed_before_the_magic_does_not_brick),
		TEST(footprint_follows_the_receivers),
		TEST(create_0_opens_only_existing_networks),
	};

	harness_init();
	harness_require_backend("shm");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
