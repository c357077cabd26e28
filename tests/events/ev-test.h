/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers of the event test suites: networks from the shared harness,
 * child processes started with a ready pipe and stopped by their recorded
 * PID, and small assertions that print the library's message when a call
 * fails.
 */
#ifndef RFM_EV_TEST_H
#define RFM_EV_TEST_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "harness.h"

/*
 * Networks come from the shared harness (tests/harness): the backend is
 * $RFM_TEST_BACKEND, names are unique, and whatever a test leaves behind
 * is removed at exit. Tests name a network by the string ev_net()
 * returned; the harness's description of it is looked up by that name.
 */
#define EV_MAX_NETS 64

static inline struct harness_network *ev_nets(void)
{
	static struct harness_network nets[EV_MAX_NETS];

	return nets;
}

/* A fresh 64 KiB network; @tag only documents the call site. */
static inline const char *ev_net(const char *tag)
{
	static unsigned int used;
	struct harness_network *net = &ev_nets()[used++ % EV_MAX_NETS];

	(void)tag;
	harness_network_new(net, 64 * 1024);
	return net->name;
}

static inline struct harness_network *ev_network(const char *name)
{
	for (int i = 0; i < EV_MAX_NETS; i++)
		if (!strcmp(ev_nets()[i].name, name))
			return &ev_nets()[i];
	fprintf(stderr, "no test network '%s'\n", name);
	abort();
}

/*
 * The URI of node @node (-1: the network itself) with @extra parameters
 * ("a=1&b=2" or NULL), in a static buffer (one of four, round robin).
 * shm: "shm:NET?node=N&size=65536&extra".
 */
static inline const char *ev_uri(const char *net, int node, const char *extra)
{
	static char bufs[4][HARNESS_URI_MAX];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	struct harness_network *h = ev_network(net);
	const char *base = harness_node_uri(h, node < 0 ? HARNESS_ANY_NODE : node);

	snprintf(b, HARNESS_URI_MAX, "%s%s%s", base, !extra ? "" : strchr(base, '?') ? "&" : "?",
		 extra ? extra : "");
	return b;
}

/*
 * For main(), after harness_init(): skip the program on other backends,
 * saying what in it is specific to shm:.
 */
static inline void ev_require_shm(const char *why)
{
	harness_require(HARNESS_CAP_SEGMENT, why);
}

/* Open or fail the test, with the library's message. */
#define EV_OPEN(uri, nodep)                                                            \
	do {                                                                           \
		int ev_open_ret_ = rfm_open((uri), (nodep));                           \
		if (ev_open_ret_)                                                      \
			fail_msg("rfm_open(%s): %s: %s", (uri),                         \
				 rfm_strerror(ev_open_ret_), rfm_last_error());        \
	} while (0)

#define EV_OK(call)                                                                    \
	do {                                                                           \
		int ev_ok_ret_ = (call);                                               \
		if (ev_ok_ret_ < 0)                                                    \
			fail_msg("%s = %d (%s): %s", #call, ev_ok_ret_,                  \
				 rfm_strerror(ev_ok_ret_), rfm_last_error());          \
	} while (0)

/* ---- child processes ---- */

struct ev_child {
	pid_t pid;
	int ready_fd; /* parent end: the child writes one byte when ready */
	int go_fd;    /* parent end: the parent writes one byte to release the child */
};

struct ev_child_ctx {
	int ready_fd;
	int go_fd;
	void *arg;
};

/* Child side: tell the parent we are ready / wait for its go. */
static inline void ev_child_ready(struct ev_child_ctx *c)
{
	char b = 'r';

	if (write(c->ready_fd, &b, 1) != 1)
		_exit(90);
}

static inline void ev_child_wait_go(struct ev_child_ctx *c)
{
	char b;

	if (read(c->go_fd, &b, 1) != 1)
		_exit(91);
}

/* Start @fn(ctx) in a child; its return value becomes the exit status. */
static inline struct ev_child ev_spawn(int (*fn)(struct ev_child_ctx *), void *arg)
{
	int ready[2], go[2];
	struct ev_child c;

	if (pipe(ready) || pipe(go)) {
		perror("pipe");
		exit(99);
	}
	fflush(NULL);
	c.pid = fork();
	if (c.pid < 0) {
		perror("fork");
		exit(99);
	}
	if (c.pid == 0) {
		struct ev_child_ctx ctx = { ready[1], go[0], arg };

		/* Die with the test, never outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);

		close(ready[0]);
		close(go[1]);
		_exit(fn(&ctx));
	}
	close(ready[1]);
	close(go[0]);
	c.ready_fd = ready[0];
	c.go_fd = go[1];
	return c;
}

/* Parent side: wait until the child said it is ready; false if it died first. */
static inline int ev_wait_ready(struct ev_child *c)
{
	char b;

	return read(c->ready_fd, &b, 1) == 1;
}

static inline void ev_go(struct ev_child *c)
{
	char b = 'g';

	if (write(c->go_fd, &b, 1) != 1) {
		/* the child died: its exit status tells */
	}
}

/* Reap the child; returns its exit status, or 128 + signal. */
static inline int ev_reap(struct ev_child *c)
{
	int status;

	close(c->ready_fd);
	close(c->go_fd);
	while (waitpid(c->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	c->pid = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static inline void ev_kill(struct ev_child *c)
{
	if (c->pid > 0)
		kill(c->pid, SIGKILL);
}

/* Child-side check: report and exit with @code when @cond fails. */
#define EV_CHILD_CHECK(cond, code, ...)                                                \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "child %d: %s:%d: ", (int)getpid(), __FILE__,    \
				__LINE__);                                             \
			fprintf(stderr, __VA_ARGS__);                                  \
			fprintf(stderr, " [%s]\n", rfm_last_error());                  \
			return (code);                                                 \
		}                                                                      \
	} while (0)

#endif /* RFM_EV_TEST_H */
