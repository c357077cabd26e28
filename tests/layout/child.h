/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A forked child of the layout suites and the pipes to talk to it
 * (test-layout-seqlock): Linux only, as fork() is.
 */
#ifndef RFM_TESTS_LAYOUT_CHILD_H
#define RFM_TESTS_LAYOUT_CHILD_H

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* A child process and the pipes to talk to it. */
struct child {
	pid_t pid;
	int to_child;	/* parent writes */
	int from_child; /* parent reads */
};

/* In the child: its ends of the pipes. */
struct child_io {
	int in, out;
};

static inline void child_signal(const struct child_io *io, char c)
{
	if (write(io->out, &c, 1) != 1)
		_exit(90);
}

static inline char child_wait(const struct child_io *io)
{
	char c = 0;

	if (read(io->in, &c, 1) != 1)
		_exit(91);
	return c;
}

/* Fork @body(io, arg); the child's exit status is body's return value. */
static inline struct child start_child(int (*body)(const struct child_io *, void *), void *arg)
{
	int down[2], up[2];
	struct child c;

	assert_int_equal(pipe(down), 0);
	assert_int_equal(pipe(up), 0);
	fflush(NULL);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		struct child_io io = { down[0], up[1] };
		close(down[1]);
		close(up[0]);
		_exit(body(&io, arg));
	}
	close(down[0]);
	close(up[1]);
	c.to_child = down[1];
	c.from_child = up[0];
	return c;
}

static inline void parent_signal(const struct child *c, char ch)
{
	assert_int_equal(write(c->to_child, &ch, 1), 1);
}

static inline char parent_wait(const struct child *c)
{
	char ch = 0;

	assert_int_equal(read(c->from_child, &ch, 1), 1);
	return ch;
}

/* Reap the child (by its recorded PID) and return its exit status. */
static inline int finish_child(struct child *c)
{
	int status = 0;

	close(c->to_child);
	close(c->from_child);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	c->pid = -1;
	if (!WIFEXITED(status))
		return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

#endif /* RFM_TESTS_LAYOUT_CHILD_H */
