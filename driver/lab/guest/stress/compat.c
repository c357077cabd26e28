// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compat.c - a vm-stress program (stress.h):
 * every request of the UAPI from a static 32-bit program (the kernel's
 * compat path) gives what it gives a 64-bit one (vmcompat.c).
 */
#include <sys/wait.h>

#include "stress.h"

/* Runs @prog; its output (up to @size - 1 bytes) in @out. Returns its exit status. */
static int run_capture(const char *prog, char *out, size_t size)
{
	int p[2], st = -1;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = 0;
	close(p[0]);
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		return WEXITSTATUS(st);
	return -1;
}

/* The transcript lines ("T ...") of @out, in order, into @t. */
static void transcript(const char *out, char *t, size_t size)
{
	size_t len = 0;

	t[0] = 0;
	for (const char *line = out; *line; ) {
		const char *end = strchr(line, '\n');
		size_t l = end ? (size_t)(end - line) + 1 : strlen(line);

		if (!strncmp(line, "T ", 2) && len + l < size) {
			memcpy(t + len, line, l);
			len += l;
			t[len] = 0;
		}
		line += l;
	}
}

static void print_indented(const char *tag, const char *out)
{
	for (const char *line = out; *line; ) {
		const char *end = strchr(line, '\n');
		int l = end ? (int)(end - line) : (int)strlen(line);

		printf("#   [%s] %.*s\n", tag, l, line);
		line += end ? l + 1 : l;
	}
}

static void t_compat(void)
{
	static char out64[16384], out32[16384], t64[8192], t32[8192];

	lab_begin(&L, "every request from a static 32-bit program gives what a 64-bit one gets");
	int rc64 = run_capture("/bin/vmcompat64", out64, sizeof(out64));
	int rc32 = run_capture("/bin/vmcompat32", out32, sizeof(out32));
	print_indented("64", out64);
	print_indented("32", out32);
	CHECK_EQ(&L, rc64, 0);
	CHECK_EQ(&L, rc32, 0);
	CHECK(&L, strstr(out32, "32-bit program") != NULL, "vmcompat32 is not a 32-bit program");
	transcript(out64, t64, sizeof(t64));
	transcript(out32, t32, sizeof(t32));
	int lines = 0;
	for (const char *c = t64; *c; c++)
		lines += *c == '\n';
	printf("# %d transcript lines from each\n", lines);
	CHECK(&L, lines >= 20, "only %d transcript lines", lines);
	CHECK(&L, strcmp(t64, t32) == 0, "the 32-bit transcript differs from the 64-bit one");
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_compat();
	return lab_finish(&L);
}
