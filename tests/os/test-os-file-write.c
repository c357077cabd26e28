/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The OS layer's files the library writes (os/file.h): made only where
 * nothing has the name, built beside and put in place without replacing
 * a file that appeared meanwhile, removed, measured, and the room of
 * their file system. Internal functions: linked with the library's
 * sources (tests/fuzz/librfm-internal.la), in a directory of the test's own.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "os/file.h"
#include "rfm-cmocka.h"

struct dir {
	char path[64];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	snprintf(d->path, sizeof(d->path), "%s", "/tmp/rfm-os-file.XXXXXX");
	assert_non_null(mkdtemp(d->path));
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	assert_int_equal(system(cmd), 0);
	free(d);
	return 0;
}

static char *in(const struct dir *d, const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", d->path, name) > 0);
	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_text(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, text);
}

static void create_refuses_a_taken_name_unless_replacing(void **state)
{
	struct dir *d = *state;
	char *path = in(d, "run.csv"), *link_path = in(d, "dangling");
	int fd = rfm__os_file_create(path, false, 0644);

	assert_true(fd > 2);
	assert_int_equal(write(fd, "one", 3), 3);
	rfm__os_close(fd);

	errno = 0;
	assert_int_equal(rfm__os_file_create(path, false, 0644), -1);
	assert_int_equal(errno, EEXIST);
	assert_text(path, "one");

	/* A dangling link is a taken name too: nothing is made through it. */
	assert_int_equal(symlink("/nonexistent/target", link_path), 0);
	assert_int_equal(rfm__os_file_create(link_path, false, 0644), -1);
	assert_int_equal(errno, EEXIST);

	fd = rfm__os_file_create(path, true, 0644);
	assert_true(fd > 2);
	rfm__os_close(fd);
	assert_text(path, "");
	free(path);
	free(link_path);
}

static void path_taken_sees_files_directories_and_dangling_links(void **state)
{
	struct dir *d = *state;
	char *file = in(d, "f"), *link_path = in(d, "l"), *none = in(d, "none");

	write_text(file, "x");
	assert_int_equal(symlink("/nonexistent/target", link_path), 0);
	assert_true(rfm__os_path_taken(file));
	assert_true(rfm__os_path_taken(link_path));
	assert_true(rfm__os_path_taken(d->path));
	assert_false(rfm__os_path_taken(none));
	free(file);
	free(link_path);
	free(none);
}

static void temp_files_are_new_empty_and_beside_the_path(void **state)
{
	struct dir *d = *state;
	char *path = in(d, "run.h5"), *a = NULL, *b = NULL, *prefix = in(d, ".run.h5.rfm-");
	mode_t mask = umask(022);
	struct stat st;

	assert_int_equal(rfm__os_file_temp_beside(path, 0644, &a), 0);
	assert_int_equal(rfm__os_file_temp_beside(path, 0644, &b), 0);
	umask(mask);
	assert_string_not_equal(a, b);
	assert_memory_equal(a, prefix, strlen(prefix));
	assert_int_equal(strlen(a), strlen(prefix) + 6);
	assert_int_equal(lstat(a, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_false(rfm__os_path_taken(path));
	free(a);
	free(b);
	free(prefix);
	free(path);
}

static void temp_file_of_a_bare_name_is_in_the_current_directory(void **state)
{
	struct dir *d = *state;
	char *tmp = NULL, old[4096];

	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(d->path), 0);
	int ret = rfm__os_file_temp_beside("bare.h5", 0600, &tmp);
	assert_int_equal(chdir(old), 0);
	assert_int_equal(ret, 0);
	assert_memory_equal(tmp, ".bare.h5.rfm-", 13);
	free(tmp);
}

static void temp_file_in_a_missing_directory_says_enoent(void **state)
{
	struct dir *d = *state;
	char *path = in(d, "no/such/dir/run.h5"), *tmp = (char *)"untouched";

	errno = 0;
	assert_int_equal(rfm__os_file_temp_beside(path, 0644, &tmp), -1);
	assert_int_equal(errno, ENOENT);
	free(path);
}

static void move_without_replace_keeps_a_file_that_appeared(void **state)
{
	struct dir *d = *state;
	char *from = in(d, "built"), *to = in(d, "run.h5");

	write_text(from, "new");
	write_text(to, "theirs");
	errno = 0;
	assert_int_equal(rfm__os_file_move(from, to, false), -1);
	assert_int_equal(errno, EEXIST);
	assert_text(to, "theirs");
	assert_text(from, "new");

	assert_int_equal(rfm__os_file_move(from, to, true), 0);
	assert_text(to, "new");
	assert_false(rfm__os_path_taken(from));
	free(from);
	free(to);
}

static void move_without_replace_to_a_free_name(void **state)
{
	struct dir *d = *state;
	char *from = in(d, "built"), *to = in(d, "run.h5");

	write_text(from, "rows");
	assert_int_equal(rfm__os_file_move(from, to, false), 0);
	assert_text(to, "rows");
	assert_false(rfm__os_path_taken(from));
	free(from);
	free(to);
}

static void remove_and_size(void **state)
{
	struct dir *d = *state;
	char *path = in(d, "f");
	uint64_t size = 0;

	write_text(path, "12345");
	assert_int_equal(rfm__os_path_size(path, &size), 0);
	assert_int_equal(size, 5);
	assert_int_equal(rfm__os_file_remove(path), 0);
	assert_false(rfm__os_path_taken(path));
	errno = 0;
	assert_int_equal(rfm__os_file_remove(path), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(rfm__os_path_size(path, &size), -1);
	assert_int_equal(errno, ENOENT);
	free(path);
}

static void room_is_the_file_systems_room_for_this_user(void **state)
{
	struct dir *d = *state;
	char *path = in(d, "not-yet.h5");
	struct statvfs fs;
	uint64_t avail = 0;

	assert_int_equal(statvfs(d->path, &fs), 0);
	assert_int_equal(rfm__os_room_beside(path, &avail), 0);
	uint64_t expect = (uint64_t)fs.f_bavail * fs.f_frsize;
	/* Others write to the same file system meanwhile: within 64 MiB. */
	assert_true(avail + (64u << 20) >= expect && expect + (64u << 20) >= avail);
	errno = 0;
	assert_int_equal(rfm__os_room_beside("/nonexistent-rfm-dir/run.h5", &avail), -1);
	assert_int_equal(errno, ENOENT);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(create_refuses_a_taken_name_unless_replacing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(path_taken_sees_files_directories_and_dangling_links,
						setup, teardown),
		cmocka_unit_test_setup_teardown(temp_files_are_new_empty_and_beside_the_path, setup,
						teardown),
		cmocka_unit_test_setup_teardown(temp_file_of_a_bare_name_is_in_the_current_directory,
						setup, teardown),
		cmocka_unit_test_setup_teardown(temp_file_in_a_missing_directory_says_enoent, setup,
						teardown),
		cmocka_unit_test_setup_teardown(move_without_replace_keeps_a_file_that_appeared,
						setup, teardown),
		cmocka_unit_test_setup_teardown(move_without_replace_to_a_free_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(remove_and_size, setup, teardown),
		cmocka_unit_test_setup_teardown(room_is_the_file_systems_room_for_this_user, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
