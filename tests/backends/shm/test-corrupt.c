/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Corrupt, truncated and foreign segments, written straight into
 * /dev/shm/rfm-NAME: an open must refuse them with RFM_ECORRUPT or
 * RFM_EVERSION and a message naming the problem, must leave the file as
 * it found it, and nodes attached before a corruption keep working.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"
#include "backends/shm/shm-segment.h" /* the segment's private layout */

#define WINDOW 8192

struct fixture {
	struct harness_network net;
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	harness_network_new(&f->net, WINDOW);
	harness_shm_path(&f->net, f->path, sizeof(f->path));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	harness_network_destroy(&f->net);
	free(f);
	return 0;
}

/* A valid network with no node attached, and something in its window. */
static void make_network(struct fixture *f)
{
	rfm_node *node;

	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 0), &node));
	assert_rfm_ok(rfm_mem_poke32(node, 0, 0x600dda7a));
	rfm_close(node);
}

/* Overwrite a header field in place: @offset and @width come from FIELD(). */
static void write_field(const char *path, size_t offset, size_t width, uint64_t value)
{
	int fd = open(path, O_RDWR);
	uint32_t v32 = (uint32_t)value;

	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	assert_int_equal(pwrite(fd, width == 4 ? (void *)&v32 : (void *)&value, width,
				(off_t)offset),
			 (ssize_t)width);
	close(fd);
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* The whole file, to prove a refused open left it alone. */
static uint8_t *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *data;

	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	assert_int_equal(fstat(fd, &st), 0);
	*len = (size_t)st.st_size;
	data = malloc(*len + 1);
	assert_non_null(data);
	assert_int_equal(read(fd, data, *len), (ssize_t)*len);
	close(fd);
	return data;
}

/* Opening must fail with @code naming @problem, and change nothing. */
static void assert_refused(struct fixture *f, int code, const char *problem)
{
	size_t len_before, len_after;
	uint8_t *before = read_file(f->path, &len_before), *after;
	rfm_node *node = NULL;

	assert_rfm_code(rfm_open(harness_node_uri(&f->net, 1), &node), code);
	assert_null(node);
	assert_last_error_has(f->net.name);
	assert_last_error_has(problem);
	/* Attaching without a node id or size is refused the same way. */
	assert_rfm_code(rfm_open(f->net.uri, &node), code);

	after = read_file(f->path, &len_after);
	assert_int_equal(len_after, len_before);
	assert_memory_equal(after, before, len_before);
	free(before);
	free(after);
}

/* A corrupt segment can still be removed, and the name then works again. */
static void assert_removable(struct fixture *f)
{
	rfm_node *node;

	assert_rfm_ok(rfm_network_destroy(f->net.uri, 0));
	assert_int_not_equal(access(f->path, F_OK), 0);
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 1), &node));
	rfm_close(node);
}

/* Create a valid network and return its header as this version wrote it. */
static struct rfm_shm_header read_header(struct fixture *f)
{
	struct rfm_shm_header h;
	size_t len;
	uint8_t *bytes;

	make_network(f);
	bytes = read_file(f->path, &len);
	assert_true(len >= sizeof(h));
	memcpy(&h, bytes, sizeof(h));
	free(bytes);
	assert_int_equal(h.magic, RFM_SHM_MAGIC);
	assert_int_equal(h.window_size, WINDOW);
	return h;
}

#define FIELD(name) offsetof(struct rfm_shm_header, name), sizeof(((struct rfm_shm_header *)0)->name)

struct corruption {
	const char *what;
	size_t offset, width;
	uint64_t value;
	int code;
	const char *problem;
};

static void corrupt_header_fields(void **state)
{
	struct fixture *f = *state;
	struct rfm_shm_header layout = read_header(f);

	const struct corruption cases[] = {
		{ "magic", FIELD(magic), 0x4141414141414141ull, RFM_ECORRUPT,
		  "not an rfm network segment (bad magic 0x4141414141414141)" },
		{ "magic, one bit", FIELD(magic), RFM_SHM_MAGIC ^ 1, RFM_ECORRUPT, "bad magic" },
		{ "version 1", FIELD(version), 1, RFM_EVERSION,
		  "segment format version 1, this librfm speaks 3 and 4" },
		{ "version 2 (queues reserved up front)", FIELD(version), 2, RFM_EVERSION,
		  "segment format version 2, this librfm speaks 3 and 4" },
		{ "version 4 (huge pages) without a page size", FIELD(version), 4, RFM_ECORRUPT,
		  "recorded huge page size 0 KiB is invalid" },
		{ "version 5", FIELD(version), 5, RFM_EVERSION,
		  "segment format version 5, this librfm speaks 3 and 4" },
		{ "huge page size in version 3", FIELD(huge_page_kib), 2048, RFM_ECORRUPT,
		  "recorded huge page size 2048 KiB" },
		{ "version 0", FIELD(version), 0, RFM_EVERSION, "format version 0" },
		{ "version ~0", FIELD(version), UINT32_MAX, RFM_EVERSION, "format version" },
		{ "header size", FIELD(header_size), 64, RFM_ECORRUPT, "header size 64" },
		{ "window size 0", FIELD(window_size), 0, RFM_ECORRUPT,
		  "recorded window size 0 is invalid" },
		{ "window size odd", FIELD(window_size), 1000, RFM_ECORRUPT,
		  "recorded window size 1000 is invalid" },
		{ "window size huge", FIELD(window_size), UINT64_MAX, RFM_ECORRUPT,
		  "is invalid" },
		{ "window size valid but wrong", FIELD(window_size), 2 * WINDOW, RFM_ECORRUPT,
		  "layout fields are inconsistent" },
		{ "segment size", FIELD(segment_size), layout.segment_size + 4096, RFM_ECORRUPT,
		  "layout fields are inconsistent" },
		{ "window offset", FIELD(window_offset), 0, RFM_ECORRUPT,
		  "layout fields are inconsistent" },
		{ "window offset past the end", FIELD(window_offset), UINT64_MAX - 4095,
		  RFM_ECORRUPT, "inconsistent" },
		{ "node table offset", FIELD(node_table_offset), layout.window_offset,
		  RFM_ECORRUPT, "inconsistent" },
		{ "node count", FIELD(node_count), 255, RFM_ECORRUPT, "inconsistent" },
		{ "node count huge", FIELD(node_count), UINT32_MAX, RFM_ECORRUPT,
		  "inconsistent" },
		{ "node entry size", FIELD(node_entry_size), 32, RFM_ECORRUPT, "inconsistent" },
		{ "queue depth not a power of two", FIELD(queue_depth), 1000, RFM_ECORRUPT,
		  "event queue depth 1000 is invalid" },
		{ "queue depth valid but wrong", FIELD(queue_depth), 2 * layout.queue_depth,
		  RFM_ECORRUPT, "layout fields are inconsistent" },
		{ "queues per node", FIELD(queues_per_node), 1, RFM_ECORRUPT,
		  "layout fields are inconsistent" },
		{ "queue stride", FIELD(queue_stride), 64, RFM_ECORRUPT,
		  "layout fields are inconsistent" },
		{ "event offset", FIELD(event_offset), layout.window_offset, RFM_ECORRUPT,
		  "layout fields are inconsistent" },
		{ "event size", FIELD(event_size), UINT64_MAX, RFM_ECORRUPT,
		  "layout fields are inconsistent" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct corruption *c = &cases[i];

		print_message("corrupting: %s\n", c->what);
		make_network(f);
		write_field(f->path, c->offset, c->width, c->value);
		assert_refused(f, c->code, c->problem);
		assert_removable(f);
		assert_rfm_ok(rfm_network_destroy(f->net.uri, 0));
	}
}

static void hostile_consistent_header(void **state)
{
	struct fixture *f = *state;
	const uint64_t huge = RFM_SHM_MAX_WINDOW;
	uint64_t window_offset;

	/* Every field agrees with a 1 TiB window, but the file is small: no giant map. */
	struct rfm_shm_header h = read_header(f);
	window_offset = h.window_offset;
	write_field(f->path, FIELD(window_size), huge);
	write_field(f->path, FIELD(event_offset), window_offset + huge);
	write_field(f->path, FIELD(segment_size), window_offset + huge + h.event_size);
	assert_refused(f, RFM_ECORRUPT, "segment truncated");
	assert_removable(f);
}

static void truncated_segment(void **state)
{
	struct fixture *f = *state;
	const off_t sizes[] = { 64, 4096, 4096 + 1, RFM_SHM_PAGE * 5 + WINDOW - 1 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		print_message("truncating to %lld bytes\n", (long long)sizes[i]);
		make_network(f);
		assert_int_equal(truncate(f->path, sizes[i]), 0);
		assert_refused(f, RFM_ECORRUPT, "truncated");
		assert_removable(f);
		assert_rfm_ok(rfm_network_destroy(f->net.uri, 0));
	}
}

static void foreign_file(void **state)
{
	struct fixture *f = *state;
	static const char line[] = "this is somebody else's shared memory, not a network\n";
	char *garbage = malloc(3 * RFM_SHM_PAGE);
	size_t len = 3 * RFM_SHM_PAGE;

	for (size_t i = 0; i < len; i++)
		garbage[i] = line[i % (sizeof(line) - 1)];
	write_file(f->path, garbage, len);
	assert_refused(f, RFM_ECORRUPT, "not an rfm network segment");
	assert_removable(f);
	assert_rfm_ok(rfm_network_destroy(f->net.uri, 0));

	/* Too short to hold a header at all. */
	write_file(f->path, "hello", 5);
	assert_refused(f, RFM_ECORRUPT, "truncated");
	assert_removable(f);
	free(garbage);
}

static void blank_file_is_an_unfinished_creation(void **state)
{
	struct fixture *f = *state;
	uint8_t *zeros = calloc(1, RFM_SHM_PAGE);
	rfm_node *node;

	/* A creator that died before writing the header leaves zeros: start over. */
	write_file(f->path, zeros, RFM_SHM_PAGE);
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 2), &node));
	assert_int_equal(rfm_node_size(node), WINDOW);
	rfm_close(node);
	assert_rfm_ok(rfm_network_destroy(f->net.uri, 0));

	write_file(f->path, zeros, 0);
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 2), &node));
	assert_int_equal(rfm_node_size(node), WINDOW);
	rfm_close(node);
	free(zeros);
}

static void not_a_plain_file(void **state)
{
	struct fixture *f = *state;
	char target[160];
	rfm_node *node = NULL;
	struct stat st;

	/* A symbolic link is not followed, so its target is never touched. */
	snprintf(target, sizeof(target), "%s.target", f->path);
	write_file(target, "precious", 8);
	assert_int_equal(symlink(target, f->path), 0);
	assert_true(rfm_open(harness_node_uri(&f->net, 0), &node) < 0);
	assert_null(node);
	assert_last_error_has(f->net.name);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 8);
	assert_int_equal(unlink(f->path), 0);
	assert_int_equal(unlink(target), 0);

	/* Nor is a directory of that name. */
	assert_int_equal(mkdir(f->path, 0700), 0);
	assert_true(rfm_open(harness_node_uri(&f->net, 0), &node) < 0);
	assert_null(node);
	assert_int_equal(rmdir(f->path), 0);
}

static void corrupting_a_live_network(void **state)
{
	struct fixture *f = *state;
	rfm_node *a, *b, *late = NULL;
	uint8_t out[WINDOW], in[WINDOW];
	uint32_t v;

	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 0), &a));
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 1), &b));

	/* Someone scribbles over the header while both nodes are attached. */
	write_field(f->path, FIELD(magic), 0);
	write_field(f->path, FIELD(version), 77);
	write_field(f->path, FIELD(window_size), 1);
	write_field(f->path, FIELD(window_offset), UINT64_MAX);
	write_field(f->path, FIELD(segment_size), 0);

	/* The attached nodes checked the header once, and keep their window. */
	assert_rfm_ok(rfm_mem_poke32(a, 4, 0xa11ce));
	assert_rfm_ok(rfm_mem_peek32(b, 4, &v));
	assert_int_equal(v, 0xa11ce);
	for (size_t i = 0; i < WINDOW; i++)
		out[i] = (uint8_t)(i * 7);
	assert_rfm_ok(rfm_mem_write(b, 0, out, WINDOW));
	assert_rfm_ok(rfm_mem_read(a, 0, in, WINDOW));
	assert_memory_equal(in, out, WINDOW);
	assert_int_equal(rfm_node_size(a), WINDOW);
	assert_rfm_code(rfm_mem_poke8(a, WINDOW, 1), RFM_ERANGE);

	struct rfm_node_info info = { .struct_size = sizeof(info) };
	assert_rfm_ok(rfm_node_get_info(a, &info));
	assert_int_equal(info.nodes_attached, 2);

	/* Newcomers are refused; the network is busy, so not removable by default. */
	assert_rfm_code(rfm_open(harness_node_uri(&f->net, 2), &late), RFM_ECORRUPT);
	assert_null(late);
	assert_rfm_code(rfm_network_destroy(f->net.uri, 0), RFM_EBUSY);

	rfm_close(a);
	rfm_close(b);
	assert_rfm_ok(rfm_network_destroy(f->net.uri, 0));
}

static void scribbled_node_table(void **state)
{
	struct fixture *f = *state;
	rfm_node *a, *b, *c;
	uint8_t junk[256 * sizeof(struct rfm_shm_node_entry)];

	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 0), &a));
	memset(junk, 0xff, sizeof(junk));
	{
		int fd = open(f->path, O_RDWR);
		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, junk, sizeof(junk), RFM_SHM_PAGE), (ssize_t)sizeof(junk));
		close(fd);
	}
	/* Node ids are decided by locks, not by the table: still unique and correct. */
	assert_rfm_code(rfm_open(harness_node_uri(&f->net, 0), &b), RFM_EINUSE);
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, HARNESS_ANY_NODE), &b));
	assert_int_equal(rfm_node_id(b), 1);
	assert_rfm_ok(rfm_open(harness_node_uri(&f->net, 200), &c));

	struct rfm_node_info info = { .struct_size = sizeof(info) };
	assert_rfm_ok(rfm_node_get_info(b, &info));
	assert_int_equal(info.nodes_attached, 3);
	rfm_close(c);
	rfm_close(b);
	rfm_close(a);
}

/* Swap the bytes of the @width-byte word at @p in place. */
static void swap_word(uint8_t *p, size_t width)
{
	for (size_t i = 0; i < width / 2; i++) {
		uint8_t t = p[i];
		p[i] = p[width - 1 - i];
		p[width - 1 - i] = t;
	}
}

/*
 * The segment as a program of the other byte order makes it (a file
 * copied from another machine, or a program under qemu-user): every
 * header word swapped. Refused naming both byte orders, file untouched.
 */
static void other_byte_order(void **state)
{
	struct fixture *f = *state;
	static const size_t words[][2] = {
		{ FIELD(magic) }, { FIELD(version) }, { FIELD(header_size) },
		{ FIELD(segment_size) }, { FIELD(window_offset) }, { FIELD(window_size) },
		{ FIELD(node_table_offset) }, { FIELD(node_count) }, { FIELD(node_entry_size) },
		{ FIELD(created_ns) }, { FIELD(event_offset) }, { FIELD(event_size) },
		{ FIELD(queue_depth) }, { FIELD(queues_per_node) }, { FIELD(queue_stride) },
	};
	struct rfm_shm_header h = read_header(f);
	uint8_t raw[sizeof(h)];
	size_t len;
	uint8_t *bytes = read_file(f->path, &len);

	memcpy(raw, &h, sizeof(h));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		swap_word(raw + words[i][0], words[i][1]);
	memcpy(bytes, raw, sizeof(raw));
	write_file(f->path, bytes, len);
	free(bytes);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	assert_refused(f, RFM_EVERSION, "made by a big-endian program and this one is little-endian");
#else
	assert_refused(f, RFM_EVERSION, "made by a little-endian program and this one is big-endian");
#endif
	assert_last_error_has("dds:");
	assert_removable(f);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(corrupt_header_fields),
		TEST(hostile_consistent_header),
		TEST(truncated_segment),
		TEST(foreign_file),
		TEST(other_byte_order),
		TEST(blank_file_is_an_unfinished_creation),
		TEST(not_a_plain_file),
		TEST(corrupting_a_live_network),
		TEST(scribbled_node_table),
	};

	harness_init();
	harness_require_backend("shm");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
