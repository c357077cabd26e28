/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shared test harness: backend choice, fresh networks, checks. What
 * differs between OSes (helper processes, the segment directory, the
 * program's name) is in harness-posix.c and harness-win.c
 * (harness-internal.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "harness.h"
#include "harness-internal.h"

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
	return harness_os_shm_unavailable();
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
	harness_os_setenv_default("CYCLONEDDS_URI", loopback);
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
char harness_progname[32];
bool harness_in_child;
#define progname harness_progname

/* ---- registries, for cleaning up after a failed test ---- */

#define MAX_NETWORKS 256

/* Every network handed out; all are destroyed at exit (gone ones are skipped). */
static char networks[MAX_NETWORKS][HARNESS_NETWORK_URI_MAX];

static void network_register(const char *uri)
{
	for (int i = 0; i < MAX_NETWORKS; i++)
		if (!networks[i][0]) {
			snprintf(networks[i], sizeof(networks[i]), "%s", uri);
			return;
		}
	/* Full: the network is still destroyed by the test itself. */
}

void harness_forget_networks(void)
{
	memset(networks, 0, sizeof(networks));
}

static void cleanup_at_exit(void)
{
	if (harness_in_child)
		return;
	harness_kill_children();
	for (int i = 0; i < MAX_NETWORKS; i++)
		if (networks[i][0]) {
			rfm_network_destroy(networks[i], RFM_DESTROY_FORCE);
			networks[i][0] = '\0';
		}
}

/* ---- setup ---- */

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
	if (!strcmp(what, "shared")) {
		const unsigned int *needs = harness_os_shared_suite_needs();

		exit(needs && (backend->caps & *needs) == *needs ? 0 : HARNESS_EXIT_SKIP);
	}
	fprintf(stderr, "%s: HARNESS_PROBE=%s: expected extra-pass or shared\n", progname, what);
	exit(HARNESS_EXIT_ERROR);
}

void harness_init(void)
{
	const char *want = getenv("RFM_TEST_BACKEND");
	const char *probing = getenv("HARNESS_PROBE");
	const char *why;

	/* "lt-" is libtool's prefix for the uninstalled binary. */
	const char *name = harness_os_progname();
	if (!strncmp(name, "lt-", 3))
		name += 3;
	snprintf(progname, sizeof(progname), "%.24s", name);
	/* A helper process started again from this program (Windows) runs
	 * its function here and never returns. */
	harness_os_child_main();

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

	harness_os_init();
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
	snprintf(buf, len, "%s/rfm-%s", harness_os_seg_dir(), net->name);
	return buf;
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
	if (harness_in_child) {
		fflush(NULL);
		_exit(1);
	}
	exit(HARNESS_EXIT_ERROR);
}
