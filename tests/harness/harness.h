/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The test harness every librfm test suite shares.
 *
 * It does three jobs, so that the tests themselves only say what they check:
 *
 *  - picks the backend under test from $RFM_TEST_BACKEND (default "shm"),
 *    and skips the whole program (exit 77) when that backend is unknown or
 *    not available here;
 *  - hands out fresh networks with unique names (program, pid and a
 *    counter), and removes any that are still there when the program exits;
 *  - runs helper processes: fork a child running a function (on Windows,
 *    start this program again as the child: harness_child_spawn()),
 *    ready/go signalling and small reports over pipes, waiting for a child
 *    by the PID recorded at its start with its exit status, killing every
 *    child left when a test fails. Nothing here sleeps to wait for a peer.
 *
 * The harness does not depend on CMocka: a child process must never use
 * CMocka's assertions (a failure would unwind into the copy of the test
 * runner inside the child). Children check with HARNESS_CHECK() and report
 * through their exit status.
 */
#ifndef RFM_TEST_HARNESS_H
#define RFM_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit statuses understood by the Automake test driver. */
#define HARNESS_EXIT_SKIP 77
#define HARNESS_EXIT_ERROR 99
/* harness_child_wait()'s status for a child harness_child_kill() killed:
 * 128 + SIGKILL on Linux, the same on Windows (TerminateProcess()). */
#define HARNESS_EXIT_KILLED (128 + 9)

/*
 * Safety net against a hung peer, not a timing assertion: a wait that
 * exceeds it is reported as a failure instead of hanging `make check`.
 */
#define HARNESS_HANG_TIMEOUT_MS 60000

/* ---- backend selection ---- */

/*
 * Call first in every test program. Reads $RFM_TEST_BACKEND; exits with 77
 * (skipped) and a message when the backend is unknown or unavailable.
 */
void harness_init(void);

/* The backend under test, e.g. "shm": for messages and for the suites of
 * one backend; what differs between backends is asked with harness_can(). */
const char *harness_backend(void);

/*
 * What a backend can do, as the harness's table of backends (harness.c)
 * declares it; suites ask harness_can() instead of comparing names.
 */
enum harness_caps {
	/* A child forked by harness_child_start() may open nodes. */
	HARNESS_CAP_FORK = 1u << 0,
	/* Any node id 0..255 can be asked for (dev: has its cards' ids). */
	HARNESS_CAP_ANY_NODE_ID = 1u << 1,
	/* Two handles may hold one node id (harness_shared_node_uri()). */
	HARNESS_CAP_SHARED_NODE_ID = 1u << 2,
	/* The backend knows which nodes are attached besides their heartbeat
	 * slots (rfm_health_nodes() lists a node that never beat). */
	HARNESS_CAP_KNOWS_ATTACHED = 1u << 3,
	/* Each harness network is created and removed by the tests (dev: has
	 * the cards' one network, zeroed instead). */
	HARNESS_CAP_OWN_NETWORKS = 1u << 4,
	/* The URI's size= sets the window (a card's window is what it is). */
	HARNESS_CAP_WINDOW_SIZE = 1u << 5,
	/* The network is a segment file of this host (harness_shm_path()):
	 * tests may read and forge it, the handles' event queues included;
	 * the URI's mode= sets its permission; rfm_network_destroy() removes
	 * it, refuses while nodes are attached and checks its URI's
	 * parameters; rfm_node_uri() is "shm:NAME?node=N&size=S". */
	HARNESS_CAP_SEGMENT = 1u << 6,
	/* Every handle of a network maps one memory: a store through one
	 * handle (or its mapping) is what the next load through any other
	 * reads, with no copy per node to replicate (dds: keeps a copy per
	 * node; cards each hold one, reflected by the fibre). Tests may write
	 * or forge the window through one node and check it through another
	 * at once. */
	HARNESS_CAP_ONE_MEMORY = 1u << 7,
	/* The embedded default URI (RFM_DEFAULT_URI, what rfm_open(NULL)
	 * opens without $RFM_URI) names a network of this backend. */
	HARNESS_CAP_DEFAULT_URI = 1u << 8,
};

/* True when the backend under test has every capability in @caps. */
bool harness_can(unsigned int caps);

/* For main(), after harness_init(): exit 77 (skip the program), saying
 * @why, unless the backend has every capability in @caps. */
void harness_require(unsigned int caps, const char *why);

/* Exit 77 (skip the program) unless the backend under test is @name:
 * for the suites of one backend, and only there (tests/backends/NAME/;
 * tests/harness/check-backend-names.sh holds every other suite to
 * harness_require() and harness_can()). */
void harness_require_backend(const char *name);

/*
 * At file scope in a suite that runs on every backend with the
 * capabilities @needs (0: any): tests/backends/dds/run-dds-suites.sh
 * finds such programs by asking each (HARNESS_PROBE=shared) and runs them
 * once more on the backends whose table entry asks for an extra pass.
 */
#ifdef __cplusplus
#define HARNESS_SHARED_SUITE(needs) extern "C" const unsigned int harness_shared_suite_needs = (needs)
#else
#define HARNESS_SHARED_SUITE(needs) const unsigned int harness_shared_suite_needs = (needs)
#endif

extern
#ifdef __cplusplus
"C"
#endif
const unsigned int harness_shared_suite_needs;

/*
 * Safety net for a whole program, as alarm(@seconds) is on Linux: past it
 * the program ends (SIGALRM there; on Windows it says so and exits with
 * HARNESS_EXIT_ERROR), so a hang fails instead of stopping `make check`.
 */
void harness_watchdog(unsigned int seconds);

/* How many node ids a network of the backend has: 256, or dev:'s cards. */
int harness_node_ids(void);

/*
 * NULL when a child forked by harness_child_start() may open nodes of the
 * backend under test; else the reason it cannot, for the test to skip
 * with (dds: Cyclone's threads do not survive a fork of a process that
 * has used it).
 */
const char *harness_fork_unsupported(void);

/* ---- networks ---- */

#define HARNESS_URI_MAX 512
/* Room for "backend:NAME": the network part of every URI. */
#define HARNESS_NETWORK_URI_MAX 128

/* Pass as node id to let the network choose the first free one. */
#define HARNESS_ANY_NODE (-1)

struct harness_network {
	char name[64];			/* unique network name */
	uint64_t size;			/* window size asked for; 0 = backend default */
	char uri[HARNESS_NETWORK_URI_MAX]; /* the network, no parameters: "shm:NAME" */
	char scratch[HARNESS_URI_MAX];	/* last URI built by the calls below */
};

/*
 * Describe a fresh network of @size bytes (0: the backend's default). It
 * is created by the first rfm_open() of one of its URIs. Networks not
 * destroyed explicitly are removed when the program exits.
 */
void harness_network_new(struct harness_network *net, uint64_t size);

/*
 * URI of node @node_id (or HARNESS_ANY_NODE) on @net, with its size.
 * dev: the card whose node id is @node_id, else the card at (@node_id mod
 * cards); no size (the card has its own). Every dev: network is the one
 * network of the cards, zeroed by harness_network_new().
 * Returns net->scratch: valid until the next URI call on @net.
 */
const char *harness_node_uri(struct harness_network *net, int node_id);

/*
 * URI of a second handle of node @node_id on @net (beside one opened with
 * harness_node_uri()), or NULL without HARNESS_CAP_SHARED_NODE_ID.
 * Returns net->scratch: valid until the next URI call on @net.
 */
const char *harness_shared_node_uri(struct harness_network *net, int node_id);

/*
 * URI of @net with a query built from @fmt (printf-style, without the '?';
 * "" for none), for tests of the parameters themselves: e.g.
 * harness_network_uri(&net, "node=%d&size=%s", 3, "8K").
 * Returns net->scratch: valid until the next URI call on @net.
 */
__attribute__((format(printf, 2, 3)))
const char *harness_network_uri(struct harness_network *net, const char *fmt, ...);

/*
 * Remove @net, even with nodes attached. Returns 0 (also when it does not
 * exist) or the rfm error code.
 */
int harness_network_destroy(struct harness_network *net);

/* dev: the number of cards (/dev/rfmN) the harness found; 0 on other backends. */
int harness_dev_cards(void);

/* With HARNESS_CAP_SEGMENT, the file backing @net ("/dev/shm/rfm-NAME"); else NULL. */
const char *harness_shm_path(const struct harness_network *net, char *buf, size_t len);

/* The threads of this process now (/proc/self/task): what a library call
 * started or stopped shows as the difference. -1 if it cannot be read. */
int harness_thread_count(void);

/* The calling thread's id, for harness_thread_sleeping(). */
long harness_thread_id(void);

/* True where harness_thread_sleeping() can tell (Linux: /proc); false on
 * Windows. */
bool harness_can_see_sleepers(void);

/* True once thread @tid of this process sleeps in a system call (a wait
 * under way: nothing else on its way there blocks); false while it runs,
 * and always where harness_can_see_sleepers() is false. */
bool harness_thread_sleeping(long tid);

struct rfm_node;

/*
 * Wait up to @timeout_ms for @node's waitable to be ready, as an event
 * loop would: its rfm_event_fd() polled on Linux, its rfm_event_handle()
 * waited for on Windows. 1 when ready, 0 when the time ran out, -1 when
 * the node has no such waitable (the library's error is left set).
 */
int harness_event_ready(struct rfm_node *node, int timeout_ms);

/* ---- helper processes ---- */

/* The parent's view of a child. */
struct harness_child {
	pid_t pid;		/* recorded at its start; every wait and kill uses it */
	int go_fd;		/* write end: parent -> child */
	int report_fd;		/* read end: child -> parent (ready byte, reports) */
	bool reaped;
	int status;		/* raw wait status once reaped */
	void *process;		/* Windows: the child's process handle */
};

/* The child's view of its parent. */
struct harness_link {
	int go_fd;		/* read end */
	int report_fd;		/* write end */
};

/* Runs in the child; its return value becomes the exit status (0 = passed). */
typedef int (*harness_child_fn)(struct harness_link *link, void *arg);

/*
 * Fork a child that runs fn(link, arg) and exits with its result. The
 * child's CMocka signal handlers are reset, stdio is flushed before the
 * fork, and the child never runs the parent's exit handlers.
 */
void harness_child_start(struct harness_child *child, harness_child_fn fn, void *arg);

/*
 * As harness_child_start(), for a child that runs on every OS: it gets a
 * copy of the @arg_len bytes at @arg, which must hold no pointers. On
 * Windows the child is this program started again (CreateProcess()): @fn
 * runs there from harness_init(), with none of the parent's memory but
 * that copy (what the parent set up after harness_init(), the child does
 * not have).
 */
void harness_child_spawn(struct harness_child *child, harness_child_fn fn, const void *arg,
			 size_t arg_len);

/* True where harness_child_start() can fork (Linux); false on Windows,
 * where children are started with harness_child_spawn() only. */
bool harness_can_fork(void);

/* True where the rfm2g: backend reaches a card through GE's DLL, loaded
 * before any device is asked for (Windows); a test host has none, so
 * opening rfm2g: is refused as unsupported there, naming the DLL. */
bool harness_vendor_dll_needed(void);

/* Before fork(): under a sanitizer, wait (bounded) until every other thread
 * sleeps, as its allocator is not fork-safe (fork-quiet.c); else nothing.
 * harness_child_start() calls it. */
void harness_quiet_before_fork(void);

/* In the child: tell the parent we are ready. */
void harness_link_ready(struct harness_link *link);

/* In the child: block until the parent says go (exits if the parent is gone). */
void harness_link_wait_go(struct harness_link *link);

/* In the child: send @len bytes to the parent. */
void harness_link_send(struct harness_link *link, const void *buf, size_t len);

/* In the parent: wait for the child's ready byte. 0, or -1 if it died first. */
int harness_child_wait_ready(struct harness_child *child);

/* In the parent: receive exactly @len bytes. 0, or -1 if the child died first. */
int harness_child_recv(struct harness_child *child, void *buf, size_t len);

/* In the parent: let the child go on. */
void harness_child_go(struct harness_child *child);

/*
 * In the parent: wait for the child (by its recorded PID) to end. Returns
 * its exit status 0..255, 128 + signal number if a signal killed it, or -1
 * when it hung past HARNESS_HANG_TIMEOUT_MS (it is then killed).
 */
int harness_child_wait(struct harness_child *child);

/* In the parent: SIGKILL the child by its recorded PID and reap it. */
void harness_child_kill(struct harness_child *child);

/* True where harness_child_interrupt() can signal a child (Linux); false
 * on Windows, which has no signals between processes. */
bool harness_can_interrupt(void);

/* In the parent: SIGINT the child by its recorded PID, as Ctrl-C would,
 * without reaping it (harness_child_wait() says how it ended). False,
 * with nothing sent, where harness_can_interrupt() is false. */
bool harness_child_interrupt(struct harness_child *child);

/* Kill and reap every child of this process not reaped yet (for teardowns). */
void harness_kill_children(void);

/* ---- checks inside children ---- */

/* Report a failed check with the library's last error, then end the child. */
__attribute__((noreturn, format(printf, 3, 4)))
void harness_fail(const char *file, int line, const char *fmt, ...);

#define HARNESS_CHECK(cond)                                                   \
	do {                                                                  \
		if (!(cond))                                                  \
			harness_fail(__FILE__, __LINE__, "check failed: %s",  \
				     #cond);                                  \
	} while (0)

#define HARNESS_CHECK_RFM(expr)                                               \
	do {                                                                  \
		int harness_ret_ = (expr);                                    \
		if (harness_ret_ != 0)                                        \
			harness_fail(__FILE__, __LINE__, "%s returned %d",    \
				     #expr, harness_ret_);                    \
	} while (0)

#endif /* RFM_TEST_HARNESS_H */
