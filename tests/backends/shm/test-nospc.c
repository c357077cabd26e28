/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A window bigger than /dev/shm can hold: the open fails with RFM_ENOSPC
 * and a message saying so, leaves no segment behind, and does not disturb
 * other networks.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define PAGE 4096ull
#define MAX_WINDOW (1ull << 40)

/*
 * A window that cannot fit. We ask for more than the whole file system,
 * not just more than its free space: tmpfs refuses that at once, whereas
 * a size between "free" and "total" would be filled page by page first,
 * pressing the machine's memory for nothing.
 */
static uint64_t impossible_window(void)
{
	struct statvfs fs;
	uint64_t total, free_bytes, want;

	if (statvfs("/dev/shm", &fs) < 0)
		fail_msg("statvfs /dev/shm: %s", strerror(errno));
	total = (uint64_t)fs.f_blocks * fs.f_frsize;
	free_bytes = (uint64_t)fs.f_bavail * fs.f_frsize;
	if (total == 0) {
		print_message("skipped: /dev/shm reports no size limit\n");
		skip();
	}
	want = (total > free_bytes ? total : free_bytes) + (64ull << 20);
	want = (want + PAGE - 1) / PAGE * PAGE;
	if (want > MAX_WINDOW) {
		print_message("skipped: /dev/shm is larger than the biggest window\n");
		skip();
	}
	assert_true(want > free_bytes);
	return want;
}

static void window_larger_than_dev_shm(void **state)
{
	struct harness_network net, bystander;
	rfm_node *node = NULL, *other;
	char path[128];
	uint64_t size = impossible_window();
	uint32_t v;

	/* A network that exists before, and must be untouched after. */
	harness_network_new(&bystander, 4096);
	assert_rfm_ok(rfm_open(harness_node_uri(&bystander, 0), &other));
	assert_rfm_ok(rfm_mem_poke32(other, 0, 0xb1574d3));

	harness_network_new(&net, size);
	harness_shm_path(&net, path, sizeof(path));
	assert_rfm_code(rfm_open(harness_node_uri(&net, 0), &node), RFM_ENOSPC);
	assert_null(node);
	assert_last_error_has(net.name);
	assert_last_error_has("/dev/shm full");
	if (access(path, F_OK) == 0)
		fail_msg("the failed open left %s behind", path);

	/* Not a one-off: the same again, and the name is usable at a sane size. */
	assert_rfm_code(rfm_open(harness_node_uri(&net, HARNESS_ANY_NODE), &node), RFM_ENOSPC);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_rfm_ok(rfm_open(harness_network_uri(&net, "size=4K"), &node));
	rfm_close(node);
	assert_rfm_ok(harness_network_destroy(&net));

	assert_rfm_ok(rfm_mem_peek32(other, 0, &v));
	assert_int_equal(v, 0xb1574d3);
	rfm_close(other);
	assert_rfm_ok(harness_network_destroy(&bystander));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_larger_than_dev_shm),
	};

	harness_init();
	harness_require_backend("shm");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
