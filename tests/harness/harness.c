/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shared test harness: backend choice, fresh networks, helper processes. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "harness.h"

/* ---- backends ---- */

/*
 * What the harness knows of a backend: how to make, name and remove its
 * networks and what it can do (HARNESS_CAP_*). Every difference between
 * backends that a suite or the harness meets is a field here, so nothing
 * else compares the backend's name.
 */
struct harness_backend {
	const char *name;
	unsigned int caps;		/* HARNESS_CAP_* bits */
	/* NULL when the backend can run here, else the reason it cannot. */
	const char *(*unavailable)(void);
	/* Make @net fresh once its name is chosen (NULL: remove a leftover
	 * of the name and register the network for removal at exit). */
	void (*network_new)(struct harness_network *net);
	/* The URI of node @node_id of @net into net->scratch (NULL: "URI?node=N&size=S"). */
	void (*node_uri)(struct harness_network *net, int node_id);
	/* Parameters every URI of the harness adds (NULL: none). */
	const char *(*uri_suffix)(void);
	/* Remove @net (NULL: rfm_network_destroy() with force). */
	int (*destroy)(struct harness_network *net);
	/* Without HARNESS_CAP_FORK: why a forked child cannot open nodes. */
	const char *no_fork;
	/* With HARNESS_CAP_SHARED_NODE_ID: the parameter that makes a second
	 * handle of a node id ("" when any open does). */
	const char *shared_param;
	/* `make check` runs the suites that declare HARNESS_SHARED_SUITE once
	 * more on it (tests/backends/dds/run-dds-suites.sh). */
	bool extra_pass;
};

static const char *shm_unavailable(void)
{
	if (access("/dev/shm", W_OK | X_OK) < 0)
		return "/dev/shm is missing or not writable";
	return NULL;
}

static const char *not_in_harness(void)
{
	return "the harness cannot create networks on this backend yet";
}

/*
 * dev: the network is the cards this machine has (/dev/rfm0..31, e.g. a
 * lab guest with several virtual cards on one ivshmem server). Node ids
 * name the card of that id; an id without a card falls back to the card
 * at (id mod cards), so tests that assert node ids skip on dev:.
 */
#define DEV_MAX_CARDS 32

static int dev_cards;				/* cards found */
static int dev_card_id[DEV_MAX_CARDS];		/* node id of card k */
static char dev_card_path[DEV_MAX_CARDS][24];	/* "/dev/rfmK" */

static const char *dev_unavailable(void)
{
	for (int k = 0; k < DEV_MAX_CARDS && dev_cards < DEV_MAX_CARDS; k++) {
		char uri[40];
		rfm_node *node;

		snprintf(uri, sizeof(uri), "dev:/dev/rfm%d", k);
		if (rfm_open(uri, &node))
			continue;
		snprintf(dev_card_path[dev_cards], sizeof(dev_card_path[0]), "/dev/rfm%d", k);
		dev_card_id[dev_cards++] = rfm_node_id(node);
		rfm_close(node);
	}
	if (!dev_cards)
		return "no usable /dev/rfmN (load rfm.ko on a machine with a card; see "
		       "driver/README.md)";
	return NULL;
}

/* The card for @node_id (see above); HARNESS_ANY_NODE: the first one. */
static const char *dev_card_for(int node_id)
{
	if (node_id == HARNESS_ANY_NODE)
		return dev_card_path[0];
	for (int k = 0; k < dev_cards; k++)
		if (dev_card_id[k] == node_id)
			return dev_card_path[k];
	return dev_card_path[node_id % dev_cards];
}

/* One physical network for every test: "fresh" means zeroed. */
static void dev_network_new(struct harness_network *net)
{
	rfm_node *node;
	void *base;
	uint64_t len;

	snprintf(net->uri, sizeof(net->uri), "dev:");
	net->size = 0;
	if (rfm_open(harness_node_uri(net, HARNESS_ANY_NODE), &node) == 0) {
		if (rfm_mem_map(node, &base, &len) == 0)
			memset(base, 0, len);
		rfm_close(node);
	}
}

static void dev_node_uri(struct harness_network *net, int node_id)
{
	snprintf(net->scratch, sizeof(net->scratch), "dev:%s", dev_card_for(node_id));
}

/* The cards' network is not ours to remove. */
static int dev_destroy(struct harness_network *net)
{
	(void)net;
	return 0;
}

int harness_thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int harness_dev_cards(void)
{
	return dev_cards;
}

/*
 * dds: each harness node is a handle of its own with its own copy of the
 * window, in this process. The traffic stays on this machine: unless the
 * caller set CYCLONEDDS_URI, Cyclone is told to use the loopback interface
 * only, unicast, and every program gets a DDS domain of its own (from its
 * pid) besides the unique network name, so suites running side by side do
 * not even discover each other.
 */
static unsigned int dds_domain;

static const char *dds_unavailable(void)
{
	static const char loopback[] =
		"<CycloneDDS><Domain Id=\"any\"><General><Interfaces>"
		"<NetworkInterface name=\"lo\"/></Interfaces>"
		"<AllowMulticast>false</AllowMulticast></General>"
		"<Discovery><ParticipantIndex>auto</ParticipantIndex>"
		"<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>"
		"<Peers><Peer Address=\"127.0.0.1\"/></Peers></Discovery>"
		"</Domain></CycloneDDS>";

	/* Without Cyclone the library does not know the scheme. */
	if (rfm_network_destroy("dds:probe", 0) == RFM_ESCHEME)
		return "librfm was built without Cyclone DDS (Debian: cyclonedds-dev "
		       "cyclonedds-tools, then configure again)";
	setenv("CYCLONEDDS_URI", loopback, 0);
	dds_domain = 20 + (unsigned int)getpid() % 200; /* 20..219 of Cyclone's 0..230 */
	return NULL;
}

/* dds: what every URI of the harness adds, so its traffic stays private. */
static const char *dds_suffix(void)
{
	static char buf[48];

	/* In-process peers are seen at once: a short discovery wait. */
	snprintf(buf, sizeof(buf), "domain=%u&join=50", dds_domain);
	return buf;
}

static const struct harness_backend backends[] = {
    {
	.name = "shm",
	.caps = HARNESS_CAP_FORK | HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_SHARED_NODE_ID |
		HARNESS_CAP_KNOWS_ATTACHED | HARNESS_CAP_OWN_NETWORKS | HARNESS_CAP_WINDOW_SIZE |
		HARNESS_CAP_SEGMENT | HARNESS_CAP_ONE_MEMORY | HARNESS_CAP_DEFAULT_URI,
	.unavailable = shm_unavailable,
	.shared_param = "shared=1",
    },
    {
	.name = "dev",
	.caps = HARNESS_CAP_FORK | HARNESS_CAP_SHARED_NODE_ID,
	.unavailable = dev_unavailable,
	.network_new = dev_network_new,
	.node_uri = dev_node_uri,
	.destroy = dev_destroy,
	.shared_param = "",
    },
    {
	.name = "rfm2g",
	.unavailable = not_in_harness,
    },
    {
	/* A node id is one handle, as one card is one node. */
	.name = "dds",
	.caps = HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_KNOWS_ATTACHED | HARNESS_CAP_OWN_NETWORKS,
	.unavailable = dds_unavailable,
	.uri_suffix = dds_suffix,
	.no_fork = "a forked child cannot use Cyclone DDS once its parent has (its threads "
		   "do not survive fork()); tests/backends/dds runs the multi-process cases "
		   "as separate programs",
	.extra_pass = true,
    },
};

static const struct harness_backend *backend;
static char progname[32];
static bool in_child;

/* ---- registries, for cleaning up after a failed test ---- */

#define MAX_NETWORKS 256
#define MAX_CHILDREN 64

/* Every network handed out; all are destroyed at exit (gone ones are skipped). */
static char networks[MAX_NETWORKS][HARNESS_NETWORK_URI_MAX];

struct child_record {
	pid_t pid; /* 0: free slot */
	int go_fd;
	int report_fd;
};

static struct child_record children[MAX_CHILDREN];

static void network_register(const char *uri)
{
	for (int i = 0; i < MAX_NETWORKS; i++)
		if (!networks[i][0]) {
			snprintf(networks[i], sizeof(networks[i]), "%s", uri);
			return;
		}
	/* Full: the network is still destroyed by the test itself. */
}

static struct child_record *child_record(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i].pid == pid)
			return &children[i];
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Forget a reaped child and close the parent's ends of its pipes. */
static void child_forget(pid_t pid)
{
	struct child_record *rec = child_record(pid);

	if (!rec)
		return;
	close_fd(&rec->go_fd);
	close_fd(&rec->report_fd);
	rec->pid = 0;
}

void harness_kill_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		pid_t pid = children[i].pid;

		if (!pid)
			continue;
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		child_forget(pid);
	}
}

static void cleanup_at_exit(void)
{
	if (in_child)
		return;
	harness_kill_children();
	for (int i = 0; i < MAX_NETWORKS; i++)
		if (networks[i][0]) {
			rfm_network_destroy(networks[i], RFM_DESTROY_FORCE);
			networks[i][0] = '\0';
		}
}

/* ---- setup ---- */

/*
 * Suites that run on every backend say so with HARNESS_SHARED_SUITE()
 * (harness.h), which defines this; elsewhere it stays undefined (NULL).
 */
extern const unsigned int harness_shared_suite_needs __attribute__((weak));

static const struct harness_backend *find_backend(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}

/*
 * HARNESS_PROBE, for tests/backends/dds/run-dds-suites.sh: "extra-pass"
 * prints the backends `make check` runs the shared suites on once more;
 * "shared" exits 0 when this program is a shared suite whose needs the
 * backend under test has, else 77. Neither runs a test.
 */
static void probe(const char *what)
{
	if (!strcmp(what, "extra-pass")) {
		for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
			if (backends[i].extra_pass)
				printf("%s\n", backends[i].name);
		exit(0);
	}
	if (!strcmp(what, "shared"))
		exit(&harness_shared_suite_needs &&
			     (backend->caps & harness_shared_suite_needs) == harness_shared_suite_needs ?
			     0 : HARNESS_EXIT_SKIP);
	fprintf(stderr, "%s: HARNESS_PROBE=%s: expected extra-pass or shared\n", progname, what);
	exit(HARNESS_EXIT_ERROR);
}

void harness_init(void)
{
	const char *want = getenv("RFM_TEST_BACKEND");
	const char *probing = getenv("HARNESS_PROBE");
	const char *why;

	/* "lt-" is libtool's prefix for the uninstalled binary. */
	const char *name = program_invocation_short_name;
	if (!strncmp(name, "lt-", 3))
		name += 3;
	snprintf(progname, sizeof(progname), "%.24s", name);

	if (!want || !want[0])
		want = "shm";
	backend = find_backend(want);
	if (!backend) {
		fprintf(stderr, "%s: SKIP: unknown backend RFM_TEST_BACKEND=%s (known: shm, dev, rfm2g, dds)\n",
			progname, want);
		exit(HARNESS_EXIT_SKIP);
	}
	if (probing && probing[0])
		probe(probing);
	why = backend->unavailable();
	if (why) {
		fprintf(stderr, "%s: SKIP: backend %s is not available: %s\n", progname, want, why);
		exit(HARNESS_EXIT_SKIP);
	}
	fprintf(stderr, "%s: backend %s\n", progname, backend->name);

	/* A child that died must show up as EPIPE, not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	atexit(cleanup_at_exit);
}

const char *harness_backend(void)
{
	return backend ? backend->name : "shm";
}

/* Before harness_init() (a constructor's question): shm:, the default. */
static const struct harness_backend *current(void)
{
	return backend ? backend : &backends[0];
}

bool harness_can(unsigned int caps)
{
	return (current()->caps & caps) == caps;
}

void harness_require(unsigned int caps, const char *why)
{
	if (!harness_can(caps)) {
		fprintf(stderr, "%s: SKIP: %s (not on %s:)\n", progname, why, harness_backend());
		exit(HARNESS_EXIT_SKIP);
	}
}

void harness_require_backend(const char *name)
{
	if (strcmp(harness_backend(), name)) {
		fprintf(stderr, "%s: SKIP: this program tests the %s: backend only (running %s:)\n",
			progname, name, harness_backend());
		exit(HARNESS_EXIT_SKIP);
	}
}

const char *harness_fork_unsupported(void)
{
	return harness_can(HARNESS_CAP_FORK) ? NULL : current()->no_fork;
}

int harness_node_ids(void)
{
	return harness_can(HARNESS_CAP_ANY_NODE_ID) ? 256 : dev_cards;
}

/* ---- networks ---- */

void harness_network_new(struct harness_network *net, uint64_t size)
{
	static unsigned int counter;

	memset(net, 0, sizeof(*net));
	snprintf(net->name, sizeof(net->name), "t-%s-%d-%u", progname, (int)getpid(), ++counter);
	net->size = size;
	snprintf(net->uri, sizeof(net->uri), "%s:%s", harness_backend(), net->name);
	if (current()->network_new) {
		current()->network_new(net);
		return;
	}
	/*
	 * A leftover of an earlier process that had our pid would not be fresh.
	 * Look before destroying, so rfm_last_error() is not touched needlessly.
	 */
	char path[128];
	if (harness_shm_path(net, path, sizeof(path)) && access(path, F_OK) == 0)
		rfm_network_destroy(net->uri, RFM_DESTROY_FORCE);
	network_register(net->uri);
}

static const char *suffix(void)
{
	return current()->uri_suffix ? current()->uri_suffix() : "";
}

const char *harness_node_uri(struct harness_network *net, int node_id)
{
	char node[32] = "", size[48] = "";

	if (current()->node_uri) {
		current()->node_uri(net, node_id);
		return net->scratch;
	}
	if (node_id != HARNESS_ANY_NODE)
		snprintf(node, sizeof(node), "node=%d", node_id);
	if (net->size)
		snprintf(size, sizeof(size), "%ssize=%llu", node[0] ? "&" : "",
			 (unsigned long long)net->size);
	const char *extra = suffix();
	snprintf(net->scratch, sizeof(net->scratch), "%s%s%s%s%s%s", net->uri,
		 node[0] || size[0] || extra[0] ? "?" : "", node, size,
		 (node[0] || size[0]) && extra[0] ? "&" : "", extra);
	return net->scratch;
}

const char *harness_shared_node_uri(struct harness_network *net, int node_id)
{
	const char *param = current()->shared_param;
	const char *uri;
	size_t len;

	if (!harness_can(HARNESS_CAP_SHARED_NODE_ID))
		return NULL;
	uri = harness_node_uri(net, node_id);
	len = strlen(uri);
	if (param[0])
		snprintf(net->scratch + len, sizeof(net->scratch) - len, "%s%s",
			 strchr(uri, '?') ? "&" : "?", param);
	return net->scratch;
}

const char *harness_network_uri(struct harness_network *net, const char *fmt, ...)
{
	/* Room for the dds: suffix too (48 bytes). */
	char query[HARNESS_URI_MAX - HARNESS_NETWORK_URI_MAX - 1 - 48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(query, sizeof(query), fmt, ap);
	va_end(ap);
	const char *extra = suffix();
	snprintf(net->scratch, sizeof(net->scratch), "%s%s%s%s%s", net->uri,
		 query[0] || extra[0] ? "?" : "", query, query[0] && extra[0] ? "&" : "", extra);
	return net->scratch;
}

int harness_network_destroy(struct harness_network *net)
{
	/*
	 * It stays registered: a test may recreate it by opening it again,
	 * and the exit handler must still remove it then.
	 */
	if (current()->destroy)
		return current()->destroy(net);
	int ret = rfm_network_destroy(net->uri, RFM_DESTROY_FORCE);

	return ret == RFM_ENOENT ? 0 : ret;
}

const char *harness_shm_path(const struct harness_network *net, char *buf, size_t len)
{
	if (!harness_can(HARNESS_CAP_SEGMENT))
		return NULL;
	snprintf(buf, len, "/dev/shm/rfm-%s", net->name);
	return buf;
}

/* ---- helper processes ---- */

static void setup_child(pid_t parent)
{
	/* CMocka catches these to unwind a failing test; a child must just die. */
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS, SIGABRT };

	in_child = true;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
	/* Die with the parent, so a crashed test leaves no process behind. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(HARNESS_EXIT_ERROR);
	/* The siblings' pipes are the parent's business, and so are its networks. */
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (!children[i].pid)
			continue; /* a free slot's fds mean nothing */
		close_fd(&children[i].go_fd);
		close_fd(&children[i].report_fd);
		children[i].pid = 0;
	}
	memset(networks, 0, sizeof(networks));
}

void harness_child_start(struct harness_child *child, harness_child_fn fn, void *arg)
{
	struct child_record *rec = child_record(0);
	int go[2], report[2];
	pid_t parent = getpid(), pid;

	if (!rec)
		harness_fail(__FILE__, __LINE__, "more than %d live children", MAX_CHILDREN);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0)
		harness_fail(__FILE__, __LINE__, "pipe2: %s", strerror(errno));
	fflush(NULL); /* or buffered output is printed twice */
	harness_quiet_before_fork();
	pid = fork();
	if (pid < 0)
		harness_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct harness_link link = { .go_fd = go[0], .report_fd = report[1] };
		int ret;

		close(go[1]);
		close(report[0]);
		setup_child(parent);
		ret = fn(&link, arg);
		close(link.go_fd);
		close(link.report_fd);
		fflush(NULL);
		_exit(ret >= 0 && ret <= 255 ? ret : 1);
	}
	close(go[0]);
	close(report[1]);
	child->pid = pid;
	child->go_fd = go[1];
	child->report_fd = report[0];
	child->reaped = false;
	child->status = 0;
	rec->pid = pid;
	rec->go_fd = go[1];
	rec->report_fd = report[0];
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read exactly @len bytes; -1 on EOF, error or HARNESS_HANG_TIMEOUT_MS. */
static int read_all(int fd, void *buf, size_t len, bool guard)
{
	char *p = buf;

	while (len) {
		if (guard) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			int n = poll(&pfd, 1, HARNESS_HANG_TIMEOUT_MS);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fprintf(stderr, "%s: peer silent for %d ms\n", progname,
					HARNESS_HANG_TIMEOUT_MS);
				return -1;
			}
		}
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void harness_link_ready(struct harness_link *link)
{
	if (write_all(link->report_fd, "R", 1) < 0)
		_exit(HARNESS_EXIT_ERROR); /* the parent is gone */
}

void harness_link_wait_go(struct harness_link *link)
{
	char c;

	/* No hang guard: a parent may keep a child waiting until it kills it. */
	if (read_all(link->go_fd, &c, 1, false) < 0 || c != 'G')
		_exit(HARNESS_EXIT_ERROR);
}

void harness_link_send(struct harness_link *link, const void *buf, size_t len)
{
	if (write_all(link->report_fd, buf, len) < 0)
		_exit(HARNESS_EXIT_ERROR);
}

int harness_child_wait_ready(struct harness_child *child)
{
	char c;

	if (read_all(child->report_fd, &c, 1, true) < 0 || c != 'R')
		return -1;
	return 0;
}

int harness_child_recv(struct harness_child *child, void *buf, size_t len)
{
	return read_all(child->report_fd, buf, len, true);
}

void harness_child_go(struct harness_child *child)
{
	/* A dead child shows up in harness_child_wait(); EPIPE here is not news. */
	write_all(child->go_fd, "G", 1);
}

static int decode_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

/* Block until @pid can be reaped, at most HARNESS_HANG_TIMEOUT_MS; false on timeout. */
static bool wait_exit(pid_t pid)
{
#ifdef SYS_pidfd_open
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (pidfd >= 0) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
		int n;

		do
			n = poll(&pfd, 1, HARNESS_HANG_TIMEOUT_MS);
		while (n < 0 && errno == EINTR);
		close(pidfd);
		return n != 0;
	}
#endif
	return true; /* no pidfd: the blocking waitpid() has to do */
}

int harness_child_wait(struct harness_child *child)
{
	int status;

	if (child->reaped)
		return decode_status(child->status);
	if (!wait_exit(child->pid)) {
		fprintf(stderr, "%s: child %d still running after %d ms: killing it\n", progname,
			(int)child->pid, HARNESS_HANG_TIMEOUT_MS);
		harness_child_kill(child);
		return -1;
	}
	while (waitpid(child->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			child_forget(child->pid);
			return -1;
		}
	}
	child->reaped = true;
	child->status = status;
	child_forget(child->pid);
	return decode_status(status);
}

void harness_child_kill(struct harness_child *child)
{
	int status;

	if (child->reaped)
		return;
	kill(child->pid, SIGKILL);
	while (waitpid(child->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			child_forget(child->pid);
			return;
		}
	}
	child->reaped = true;
	child->status = status;
	child_forget(child->pid);
}

/* ---- checks ---- */

void harness_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s[%d] %s:%d: ", progname, (int)getpid(), file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (rfm_last_error: \"%s\")\n", rfm_last_error());
	if (in_child) {
		fflush(NULL);
		_exit(1);
	}
	exit(HARNESS_EXIT_ERROR);
}
