/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers of the event test suites: networks from the shared harness,
 * child processes from the harness (started with a ready signal, stopped
 * by their recorded PID, on Linux and Windows), and small assertions that
 * print the library's message when a call fails.
 */
#ifndef RFM_EV_TEST_H
#define RFM_EV_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* A little-endian word of the window (the wire order) in host order. */
static inline uint32_t ev_le32(uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return v;
#else
	return __builtin_bswap32(v);
#endif
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

/*
 * Children are the harness's (harness_child_spawn()): forked on Linux, this
 * program started again on Windows. A child gets the network its test
 * named and one int, nothing else of the parent's memory, so it names its
 * network with c->net, not with the test's own variables.
 */
struct ev_child {
	struct harness_child h;
};

struct ev_child_ctx {
	struct harness_link *link;
	const char *net; /* the network's name, for ev_uri() */
	int arg;
};

typedef int (*ev_child_fn)(struct ev_child_ctx *);

/* What a child is sent: its network, its int, and its function (as an
 * offset from ev_child_main(), in the same program image). */
struct ev_spawn_msg {
	struct harness_network net;
	int arg;
	uint64_t fn;
};

/* The exit status of a child ev_kill() killed, on every OS. */
#define EV_KILLED_STATUS HARNESS_EXIT_KILLED

static inline int ev_child_main(struct harness_link *link, void *p)
{
	const struct ev_spawn_msg *m = p;
	struct harness_network *slot = &ev_nets()[0];
	ev_child_fn fn = (ev_child_fn)(void (*)(void))((uintptr_t)ev_child_main + (uintptr_t)m->fn);
	struct ev_child_ctx ctx = { link, slot->name, m->arg };

	*slot = m->net; /* as the parent described it: ev_uri() finds it */
	return fn(&ctx);
}

/* Child side: tell the parent we are ready / wait for its go. */
static inline void ev_child_ready(struct ev_child_ctx *c)
{
	harness_link_ready(c->link);
}

static inline void ev_child_wait_go(struct ev_child_ctx *c)
{
	harness_link_wait_go(c->link);
}

/* Start @fn(ctx) in a child on network @net, with @arg; its return value
 * becomes the exit status. */
static inline struct ev_child ev_spawn(ev_child_fn fn, const char *net, int arg)
{
	struct ev_spawn_msg m;
	struct ev_child c;

	memset(&m, 0, sizeof(m));
	m.net = *ev_network(net);
	m.arg = arg;
	m.fn = (uint64_t)((uintptr_t)(void (*)(void))fn - (uintptr_t)ev_child_main);
	harness_child_spawn(&c.h, ev_child_main, &m, sizeof(m));
	return c;
}

/* Parent side: wait until the child said it is ready; false if it died first. */
static inline int ev_wait_ready(struct ev_child *c)
{
	return harness_child_wait_ready(&c->h) == 0;
}

static inline void ev_go(struct ev_child *c)
{
	harness_child_go(&c->h);
}

/* Reap the child; returns its exit status, or 128 + signal. */
static inline int ev_reap(struct ev_child *c)
{
	return harness_child_wait(&c->h);
}

static inline void ev_kill(struct ev_child *c)
{
	harness_child_kill(&c->h);
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
