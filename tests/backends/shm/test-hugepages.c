/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hugepages=1 on shm: (src/backends/shm/shm-huge.c). As root, in a mount
 * namespace of its own so that no mount it makes is seen outside: with no
 * hugetlbfs the error names the mount to make; with a pool too small, the
 * error gives the pages needed and free and how to reserve them, and
 * nothing is left in /dev/shm or on hugetlbfs; with pages reserved (a few
 * 2 MiB pages added to vm.nr_hugepages, the old value restored after), the
 * window is huge-page backed in every process (KernelPageSize in
 * /proc/self/smaps) and a second process shares data through it; destroy
 * gives the pages back; a window file another user owns is refused. Without
 * root those cases skip with the reason; the URI and segment checks run for
 * everyone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define WINDOW (4u << 20)
#define HUGE_MAGIC 0x958458f6u
#define SEG_VERSION_OFFSET 8	/* struct rfm_shm_header: magic, then version */
#define SEG_HUGE_KIB_OFFSET 92	/* ...and huge_page_kib, once reserved0 */

static struct {
	bool root;		/* in a private mount namespace: may mount and reserve */
	char mount[64];		/* the hugetlbfs this test mounted, or "" */
	char dir[256];		/* the hugetlbfs the library will use */
	unsigned long page_kib;
	long old_nr;		/* vm.nr_hugepages before, -1: untouched */
} g = { .old_nr = -1 };

static int setup(void **state)
{
	return harness_fixture_network(state, WINDOW);
}

static unsigned long default_page_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %lu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static long pool(const char *what)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%lukB/%s", g.page_kib,
		 what);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static bool set_nr(long nr)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%lukB/nr_hugepages",
		 g.page_kib);
	f = fopen(path, "we");
	if (!f)
		return false;
	fprintf(f, "%ld\n", nr);
	return fclose(f) == 0;
}

/* Every hugetlbfs mount of the default page size, as the library sees them. */
static int each_huge_mount(void (*fn)(const char *dir))
{
	FILE *m = fopen("/proc/self/mounts", "re");
	char dev[256], dir[256], type[64];
	int n = 0;

	if (!m)
		return 0;
	while (fscanf(m, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		struct statfs fs;

		if (strcmp(type, "hugetlbfs") || statfs(dir, &fs) ||
		    (unsigned long)fs.f_bsize != g.page_kib << 10)
			continue;
		n++;
		if (fn)
			fn(dir);
	}
	fclose(m);
	return n;
}

static void take_dir(const char *dir)
{
	if (!g.dir[0] || !strcmp(dir, "/dev/hugepages"))
		snprintf(g.dir, sizeof(g.dir), "%s", dir);
}

static void detach(const char *dir)
{
	umount2(dir, MNT_DETACH);
}

static int group_setup(void **state)
{
	(void)state;
	g.page_kib = default_page_kib();
	/* A namespace of our own: mounts made or undone here stay here. */
	g.root = geteuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
		 mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (g.old_nr >= 0)
		set_nr(g.old_nr);
	if (g.mount[0]) {
		umount2(g.mount, MNT_DETACH);
		rmdir(g.mount);
	}
	return 0;
}

static void require_root(void)
{
	if (!g.root) {
		print_message("skipped: needs root (a mount namespace, mount, vm.nr_hugepages)\n");
		skip();
	}
	if (!g.page_kib) {
		print_message("skipped: this kernel has no huge pages\n");
		skip();
	}
}

/* A hugetlbfs to work on: one already mounted, else one we mount (our namespace). */
static void require_mount(void)
{
	require_root();
	g.dir[0] = '\0';
	if (each_huge_mount(take_dir))
		return;
	if (!g.mount[0]) {
		snprintf(g.mount, sizeof(g.mount), "/tmp/rfm-test-huge-XXXXXX");
		assert_non_null(mkdtemp(g.mount));
		assert_int_equal(mount("none", g.mount, "hugetlbfs", 0, NULL), 0);
	}
	snprintf(g.dir, sizeof(g.dir), "%s", g.mount);
}

/* At least @pages free huge pages: vm.nr_hugepages raised (restored after). */
static void require_pages(long pages)
{
	long avail = pool("free_hugepages") - pool("resv_hugepages");

	if (avail >= pages)
		return;
	if (g.old_nr < 0)
		g.old_nr = pool("nr_hugepages");
	assert_true(set_nr(pool("nr_hugepages") + pages - avail));
	if (pool("free_hugepages") - pool("resv_hugepages") < pages) {
		print_message("skipped: the kernel could not reserve %ld huge pages of %lu KiB "
			      "(memory too fragmented)\n", pages, g.page_kib);
		skip();
	}
}

static bool file_exists(const char *dir, const char *prefix, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s%s", dir, prefix, name);
	return lstat(path, &st) == 0;
}

/* Nothing of network @net anywhere: segment, lock file, huge-page window. */
static void assert_nothing_left(const struct harness_network *net)
{
	assert_false(file_exists("/dev/shm", "rfm-", net->name));
	assert_false(file_exists("/dev/shm", "rfmlock-", net->name));
	if (g.dir[0])
		assert_false(file_exists(g.dir, "rfm-", net->name));
}

/* KernelPageSize (KiB) of the mapping holding @addr, from /proc/self/smaps. */
static unsigned long kernel_page_kib(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool in = false;
	unsigned long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
		else if (in && sscanf(line, "KernelPageSize: %lu kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

static void test_no_hugetlbfs(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = NULL;

	harness_require_backend("shm");
	require_root();
	/* Unmounted in our namespace only. */
	while (each_huge_mount(NULL))
		each_huge_mount(detach);
	g.mount[0] = g.dir[0] = '\0';
	assert_rfm_code(rfm_open(harness_network_uri(net, "size=4M&hugepages=1"), &node),
			RFM_ENOTSUP);
	assert_null(node);
	assert_last_error_has("mount -t hugetlbfs");
	assert_last_error_has("reserve 2 huge pages");
	assert_nothing_left(net);
}

static void test_pool_short(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = NULL;
	long avail, free_before;
	char want[64], size[32];

	harness_require_backend("shm");
	require_mount();
	free_before = pool("free_hugepages");
	avail = free_before - pool("resv_hugepages");
	/* Two pages more than the pool has free. */
	snprintf(size, sizeof(size), "%luK", (unsigned long)(avail + 2) * g.page_kib);
	assert_rfm_code(rfm_open(harness_network_uri(net, "size=%s&hugepages=1", size), &node),
			RFM_ENOMEM);
	assert_null(node);
	snprintf(want, sizeof(want), "needs %ld huge pages of %lu KiB and %ld are free", avail + 2,
		 g.page_kib, avail);
	assert_last_error_has(want);
	snprintf(want, sizeof(want), "sysctl vm.nr_hugepages=%ld", pool("nr_hugepages") + 2);
	assert_last_error_has(want);
	assert_nothing_left(net);
	/* The pages it could take went back. */
	assert_int_equal(pool("free_hugepages"), free_before);
}

struct peer {
	const char *uri;
};

/* Another process: opens without asking, finds huge pages, reads, answers. */
static int peer_main(struct harness_link *link, void *arg)
{
	const struct peer *p = arg;
	rfm_node *node;
	uint8_t *base;
	uint64_t size;

	(void)link;
	HARNESS_CHECK_RFM(rfm_open(p->uri, &node));
	HARNESS_CHECK_RFM(rfm_mem_map(node, (void **)&base, &size));
	HARNESS_CHECK(size == WINDOW);
	HARNESS_CHECK(kernel_page_kib(base) == g.page_kib);
	HARNESS_CHECK(memcmp(base + 12345, "from the creator", 16) == 0);
	HARNESS_CHECK(base[WINDOW - 1] == 0x5a);
	memcpy(base + WINDOW - 4096, "from the peer", 13);
	rfm_close(node);
	return 0;
}

static void test_window_in_huge_pages(void **state)
{
	struct harness_network *net = *state;
	struct rfm_open_options got = { .struct_size = sizeof(got) };
	struct harness_child child;
	struct peer peer;
	rfm_node *node = NULL;
	uint8_t *base;
	long free_before;

	harness_require_backend("shm");
	require_mount();
	require_pages(WINDOW / (g.page_kib << 10));
	free_before = pool("free_hugepages");
	assert_rfm_ok(rfm_open(harness_network_uri(net, "node=0&size=4M&hugepages=1"), &node));
	assert_rfm_ok(rfm_node_get_options(node, &got));
	assert_int_equal(got.mem_flags, RFM_MEM_HUGEPAGES);
	/* Taken from the pool at creation, all of them. */
	assert_int_equal(pool("free_hugepages"), free_before - (long)(WINDOW / (g.page_kib << 10)));
	assert_true(file_exists(g.dir, "rfm-", net->name));
	assert_rfm_ok(rfm_mem_map(node, (void **)&base, NULL));
	assert_int_equal(kernel_page_kib(base), g.page_kib);
	memcpy(base + 12345, "from the creator", 16);
	base[WINDOW - 1] = 0x5a;
	/* The peer opens without hugepages=1: the network's format decides. */
	peer.uri = harness_network_uri(net, "node=1");
	harness_child_start(&child, peer_main, &peer);
	assert_int_equal(harness_child_wait(&child), 0);
	assert_memory_equal(base + WINDOW - 4096, "from the peer", 13);
	/* Asking for huge pages on it again is fine; the window is the same. */
	rfm_node *again;
	uint8_t *base2;
	assert_rfm_ok(rfm_open(harness_network_uri(net, "node=2&hugepages=1"), &again));
	assert_rfm_ok(rfm_mem_map(again, (void **)&base2, NULL));
	assert_memory_equal(base2 + 12345, "from the creator", 16);
	rfm_close(again);
	rfm_close(node);
	/* Destroy gives the pages back and leaves nothing. */
	assert_int_equal(harness_network_destroy(net), 0);
	assert_nothing_left(net);
	assert_int_equal(pool("free_hugepages"), free_before);
}

static void test_window_file_missing(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = NULL;
	char path[512];

	harness_require_backend("shm");
	require_mount();
	require_pages(WINDOW / (g.page_kib << 10));
	assert_rfm_ok(rfm_open(harness_network_uri(net, "size=4M&hugepages=1"), &node));
	rfm_close(node);
	node = NULL;
	snprintf(path, sizeof(path), "%s/rfm-%s", g.dir, net->name);
	assert_int_equal(unlink(path), 0);
	assert_rfm_code(rfm_open(net->uri, &node), RFM_ENOENT);
	assert_last_error_has("window is in huge pages");
	assert_null(node);
}

/* A window file another user owns is refused, at attach and at creation. */
static void test_window_file_owner(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = NULL;
	char path[512];
	int fd;

	harness_require_backend("shm");
	require_mount();
	require_pages(WINDOW / (g.page_kib << 10));
	snprintf(path, sizeof(path), "%s/rfm-%s", g.dir, net->name);
	assert_rfm_ok(rfm_open(harness_network_uri(net, "size=4M&hugepages=1"), &node));
	rfm_close(node);
	node = NULL;
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_rfm_code(rfm_open(net->uri, &node), RFM_EPERM);
	assert_last_error_has("belongs to uid 65534, the network to uid 0");
	assert_null(node);
	/* Destroy leaves another user's file alone; a new network may not take it. */
	assert_int_equal(harness_network_destroy(net), 0);
	assert_true(file_exists(g.dir, "rfm-", net->name));
	assert_rfm_code(rfm_open(harness_network_uri(net, "size=4M&hugepages=1"), &node),
			RFM_EPERM);
	assert_last_error_has("exists and belongs to uid 65534");
	assert_null(node);
	assert_false(file_exists("/dev/shm", "rfm-", net->name));
	/* A stray file of our own is a window left behind: creation replaces it. */
	assert_int_equal(unlink(path), 0);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_rfm_ok(rfm_open(harness_network_uri(net, "size=4M&hugepages=1"), &node));
	rfm_close(node);
}

static void test_bad_uses(void **state)
{
	struct harness_network *net = *state;
	struct rfm_open_options o;
	rfm_node *node = NULL;

	assert_rfm_code(rfm_open(harness_network_uri(net, "hugepages=2"), &node), RFM_EURI);
	/* Not for a card: its window is the device's memory. */
	memset(&o, 0, sizeof(o));
	o.struct_size = sizeof(o);
	o.mem_flags = RFM_MEM_HUGEPAGES;
	assert_rfm_code(rfm_open_with_options("dev:/dev/rfm-nonexistent", &o, &node),
			RFM_ENOTSUP);
	assert_last_error_has("hugepages=1 is for shm:");
	assert_null(node);
	harness_require_backend("shm");
	/* A network that exists in ordinary pages is not silently handed out. */
	assert_rfm_ok(rfm_open(harness_network_uri(net, "size=64K"), &node));
	rfm_close(node);
	node = NULL;
	assert_rfm_code(rfm_open_with_options(net->uri, &o, &node),
			RFM_EINVAL);
	assert_last_error_has("ordinary shared memory");
	assert_null(node);
}

/* Write @value at @offset of the segment file of @net. */
static void poke_segment(struct harness_network *net, off_t offset, uint32_t value)
{
	char path[128];
	int fd;

	assert_non_null(harness_shm_path(net, path, sizeof(path)));
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &value, sizeof(value), offset), (ssize_t)sizeof(value));
	close(fd);
}

static void test_segment_checks(void **state)
{
	struct harness_network *net = *state;
	rfm_node *node = NULL;

	harness_require_backend("shm");
	assert_rfm_ok(rfm_open(harness_network_uri(net, "size=64K"), &node));
	rfm_close(node);
	node = NULL;
	/* Format 3 with a huge page size, and format 4 without one: corrupt. */
	poke_segment(net, SEG_HUGE_KIB_OFFSET, 2048);
	assert_rfm_code(rfm_open(net->uri, &node), RFM_ECORRUPT);
	assert_last_error_has("huge page size 2048 KiB");
	poke_segment(net, SEG_HUGE_KIB_OFFSET, 0);
	poke_segment(net, SEG_VERSION_OFFSET, 4);
	assert_rfm_code(rfm_open(net->uri, &node), RFM_ECORRUPT);
	poke_segment(net, SEG_HUGE_KIB_OFFSET, 3000);
	assert_rfm_code(rfm_open(net->uri, &node), RFM_ECORRUPT);
	/* A format from the future is a version error. */
	poke_segment(net, SEG_VERSION_OFFSET, 5);
	assert_rfm_code(rfm_open(net->uri, &node), RFM_EVERSION);
	assert_null(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_uses, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_segment_checks, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_hugetlbfs, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_pool_short, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_window_in_huge_pages, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_window_file_missing, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_window_file_owner, setup, harness_fixture_teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
