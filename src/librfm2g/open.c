/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2gOpen / RFM2gClose, and the rule that turns an RFM2g device path
 * into a librfm URI:
 *
 *  1. $RFM_URI set and not empty: that URI, whatever the path;
 *  2. a path that is already a librfm URI (shm:, dev:, rfm2g:, dds:): itself;
 *  3. /dev/rfm2gN or /dev/rfm2g/N, or board N's name on Windows
 *     (\\.\rfm2gN) or VxWorks (/PCIRFM2G_N, RFM2G_N): "rfm2g:/dev/rfm2gN"
 *     when that device node exists (the vendor driver), else
 *     "dev:/dev/rfmN" when librfm's driver has that card (it lists them in
 *     /proc/rfm2g), else the emulated network "shm:rfm2gN";
 *  4. /dev/rfmN that exists: "dev:PATH" (librfm's own driver);
 *  5. anything else: RFM2G_NO_RFM2G_BOARD.
 *
 * On rfm2g: the board controls (configuration, LCSR bits, byte swapping,
 * registers, debug flags, ring test, DMA) that librfm's API has no call
 * for go through the node's board op (src/board.h), on the descriptor the
 * backend opened: the device is opened once.
 *
 * One board, one node id, as with a card: every RFM2gOpen() of a shm:
 * network that this process already has open joins that handle's node id
 * (URI parameters node=N&shared=1), and a URI that names its node id
 * (node=N) is always opened with shared=1, so that other processes opening
 * the same URI join the same node. The registry lookup, rfm_open() and the
 * listing of the new handle happen under one lock (open_lock): two threads
 * opening at once cannot both miss each other and claim two ids.
 *
 * The top of librfm2g's stack: no other file calls into this one. The
 * registry is registry.c; a handle is freed by release.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "librfm2g/compat.h"
#include "librfm2g/rfm2g-os.h"

/* Serialises whole opens: lookup of a shared node, rfm_open(), listing. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/*
 * In the child of a fork(): only the forking thread exists. Handles stay
 * usable (librfm keeps the parent's node ids), but no dispatcher thread or
 * waiter came along, and a lock another thread held would stay held.
 */
static void forget_threads_in_child(void)
{
	pthread_mutex_init(&open_lock, NULL);
	rfm2g__registry_forget_threads();
}

static void install_atfork(void)
{
	rfm2g__on_fork_child(forget_threads_in_child);
}

static bool has_scheme(const char *s)
{
	return !strncmp(s, "shm:", 4) || !strncmp(s, "dev:", 4) || !strncmp(s, "rfm2g:", 6) ||
	       !strncmp(s, "dds:", 4);
}

/*
 * The unit number at the end of a device path ("/dev/rfm2g3" -> 3), or -1;
 * @nocase: the prefix in any case (Windows and VxWorks device names).
 */
static int unit_of(const char *path, const char *prefix, bool nocase)
{
	size_t n = strlen(prefix);
	const char *p;
	char *end;
	long v;

	if (nocase ? strncasecmp(path, prefix, n) : strncmp(path, prefix, n))
		return -1;
	p = path + n;
	if (*p == '/')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	v = strtol(p, &end, 10);
	if (*end || v > 255)
		return -1;
	return (int) v;
}

/*
 * Board N of a vendor device path on any of GE's platforms, or -1: the
 * same program, moved to Linux, finds the same board with no RFM_URI.
 */
static int vendor_unit(const char *path)
{
	static const struct {
		const char *prefix;
		bool nocase;
	} names[] = {
		{ "/dev/rfm2g", false },	/* Linux: /dev/rfm2gN, /dev/rfm2g/N (devfs) */
		{ "\\\\.\\rfm2g", true },	/* Windows: \\.\rfm2gN (names have no case) */
		{ "/PCIRFM2G_", true },		/* VxWorks: the PCI driver's device */
		{ "RFM2G_", true },		/* VxWorks: the prefix of GE's samples */
	};
	int n;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((n = unit_of(path, names[i].prefix, names[i].nocase)) >= 0)
			return n;
	return -1;
}

static bool resolve(const char *path, char *uri, size_t len, int *unit)
{
	const char *env = getenv("RFM_URI");
	int n = vendor_unit(path);

	*unit = n >= 0 ? n : 0;
	if (env && *env) {
		snprintf(uri, len, "%s", env);
		return strlen(env) < len;
	}
	if (has_scheme(path)) {
		snprintf(uri, len, "%s", path);
		return strlen(path) < len;
	}
	if (n >= 0) {
		char card[32], node[32];

		/* Another platform's name: the Linux vendor driver's node of that board. */
		if (strncmp(path, "/dev/rfm2g", 10))
			snprintf(node, sizeof(node), "/dev/rfm2g%d", n);
		else
			snprintf(node, sizeof(node), "%s", path);
		/* librfm's driver lists its cards in /proc/rfm2g as units 0..n-1. */
		snprintf(card, sizeof(card), "/dev/rfm%d", n);
		if (access(node, F_OK) == 0)
			snprintf(uri, len, "rfm2g:%s", node);
		else if (access(card, F_OK) == 0)
			snprintf(uri, len, "dev:%s", card);
		else
			snprintf(uri, len, "shm:rfm2g%d", n);
		return true;
	}
	if ((n = unit_of(path, "/dev/rfm", false)) >= 0 && access(path, F_OK) == 0) {
		*unit = n;
		snprintf(uri, len, "dev:%s", path);
		return strlen(path) + 4 < len;
	}
	return false;
}

/* Does the query part of @uri have parameter @name? */
static bool has_param(const char *uri, const char *name)
{
	const char *q = strchr(uri, '?');
	size_t n = strlen(name);

	while (q) {
		q++;
		if (!strncmp(q, name, n) && q[n] == '=')
			return true;
		q = strchr(q, '&');
	}
	return false;
}

/*
 * The URI to open for @uri (call with open_lock held): on shm:, the node id
 * of a handle of this process on the same network, shared; else the
 * URI's own node=N, shared with other processes. Without node= and no
 * handle here yet, the first free id, as every process is a board.
 */
static void share_node(const char *uri, char *out, size_t len)
{
	char sep = strchr(uri, '?') ? '&' : '?';
	int node;

	snprintf(out, len, "%s", uri);
	if (strncmp(uri, "shm:", 4) || has_param(uri, "shared"))
		return;		/* an explicit shared= is the user's choice */
	node = rfm2g__registry_node_of(uri);
	if (has_param(uri, "node"))
		snprintf(out, len, "%s%cshared=1", uri, sep);
	else if (node >= 0)
		snprintf(out, len, "%s%cnode=%d&shared=1", uri, sep, node);
}

/*
 * Open @uri, a new emulated network (shm:, dds:) the size of a real
 * board: a 5565 has 64, 128 or 256 MiB and programs use fixed offsets up
 * to its end, so a URI without size= gets the smallest, 64 MiB. A network
 * that exists with another size (made by the rfm tool, say) is joined as
 * it is: its size is refused (RFM_ESIZE), and the URI as written opens.
 */
static int open_board(const char *uri, rfm_node **node)
{
	char sized[640];
	int r;

	if ((strncmp(uri, "shm:", 4) && strncmp(uri, "dds:", 4)) || has_param(uri, "size"))
		return rfm_open(uri, node);
	snprintf(sized, sizeof(sized), "%s%csize=%s", uri, strchr(uri, '?') ? '&' : '?',
		 RFM2G_COMPAT_BOARD_SIZE);
	r = rfm_open(sized, node);
	if (r == RFM_ESIZE)
		r = rfm_open(uri, node);
	return r;
}

static void fill_config(struct rfm2g_compat *h, const char *path, int unit)
{
	RFM2GCONFIG *c = &h->pub.Config;
	uint64_t size = h->size;

	if (size > 0xFFFFF000u)
		size = 0xFFFFF000u;	/* RFM2g sizes are 32-bit */
	memset(c, 0, sizeof(*c));
	c->NodeId = (RFM2G_NODE) rfm_node_id(h->node);
	c->BoardId = RFM2G_BID_5565;
	c->Unit = (RFM2G_UINT8) unit;
	c->MemorySize = (RFM2G_UINT32) size;
	snprintf(c->Device, sizeof(c->Device), "%s", path);
	/* The vendor driver's strings: programs print and compare them. */
	snprintf(c->Name, sizeof(c->Name), "%s", RFM2G_COMPAT_DRIVER_NAME);
	snprintf(c->DriverVersion, sizeof(c->DriverVersion), "%s", RFM2G_COMPAT_VERSION);
	c->BoardRevision = RFM2G_COMPAT_BOARD_REVISION;
	c->RevisionId = RFM2G_COMPAT_PCI_REVISION;
	c->PlxRevision = RFM2G_COMPAT_PLX_REVISION;
	c->Lcsr1 = rfm2g__lcsr(h);
	/* The register views of RFM2gMapDeviceMemory(): one page each, at offset 0. */
	c->PciConfig.rfm2gOrWindowSize = RFM2G_COMPAT_CFG_SIZE;
	c->PciConfig.rfm2gOrRegSize = RFM2G_COMPAT_CFG_SIZE;
	c->PciConfig.rfm2gCsWindowSize = RFM2G_REGSIZE;
	c->PciConfig.rfm2gCsRegSize = RFM2G_REGSIZE;
	c->PciConfig.rfm2gWindowSize = (RFM2G_UINT32) size;
	c->PciConfig.type = DEVICE_ID_PCI5565;
	c->PciConfig.revision = RFM2G_COMPAT_PCI_REVISION;
}

/*
 * A failed open says why on stderr: RFM2G_STATUS has no room for it, and
 * the program's user is the one who can fix a URI or start a driver. On
 * an emulated board it also names what shm: cannot provide (no kernel
 * driver: no /proc/rfm2g for utilities that count boards there).
 */
static void say_why(const char *path, const char *uri, const char *reason)
{
	bool emulated = uri && !strncmp(uri, "shm:", 4) && vendor_unit(path) >= 0;

	fprintf(stderr, "librfm2g: RFM2gOpen(\"%s\"): %s%s\n", path, reason,
		emulated ? " [a vendor device path on an emulated board (shm:): there is no "
			   "/proc/rfm2g there either; see docs/rfm2g-migration.md]" : "");
}

/*
 * An emulated board that /dev/shm cannot hold: the two fixes, in the terms
 * of an RFM2g program's user (the program itself is not changed).
 */
static void say_room(const char *uri)
{
	fprintf(stderr, "librfm2g: an emulated RFM2g board is 64 MiB (size=%s) unless its URI says "
		"otherwise (size=64M, 128M or 256M as the 5565 models; smaller for tests): "
		"either name a smaller one, e.g. RFM_URI='%.*s?size=16M', or give /dev/shm "
		"room for the board (docker run --shm-size=128m; mount -o remount,size=... "
		"/dev/shm)\n", RFM2G_COMPAT_BOARD_SIZE,
		(int) strcspn(uri, "?"), uri);
}

/* The vendor status of a failed open (librfm's @r). */
static RFM2G_STATUS open_status(int r)
{
	if (r == RFM_ENOENT)
		return RFM2G_NO_RFM2G_BOARD;
	return r == RFM_ENOMEM ? RFM2G_LOW_MEMORY : RFM2G_NOT_OPEN;
}

/* The rest of a handle whose node is open and mapped at @base (@size bytes). */
static void init_handle(struct rfm2g_compat *h, char *DevicePath, int unit, const char *uri,
			void *base, uint64_t size)
{
	h->base = base;
	h->size = size;
	snprintf(h->uri, sizeof(h->uri), "%s", uri);
	pthread_mutex_init(&h->lock, NULL);
	rfm2g__init_cond(&h->cond);
	h->dma_threshold = 0xFFFFFFFFu;
	h->pub.fd = h->board ? h->board->descriptor(h->node) : 1;
	if (!h->board)
		fill_config(h, DevicePath, unit);
	for (unsigned int i = 0; i < RFM2G_COMPAT_NEVENTS; i++) {
		h->pub.callbackInfo[i].Handle = &h->pub;
		h->pub.callbackInfo[i].Event = (RFM2GEVENTTYPE) i;
	}
	h->pub.struct_id = RFM2G_COMPAT_STRUCT_ID;
}

STDRFM2GCALL RFM2gOpen(char *DevicePath, RFM2GHANDLE *rh)
{
	char uri[512], shared[600];
	struct rfm2g_compat *h;
	uint64_t size;
	void *base;
	int unit, r;

	pthread_once(&atfork_once, install_atfork);
	if (!DevicePath)
		return RFM2G_BAD_PARAMETER_1;
	if (!resolve(DevicePath, uri, sizeof(uri), &unit)) {
		say_why(DevicePath, NULL,
			"no RFM2g board: not /dev/rfm2gN, /dev/rfmN or a librfm URI, and "
			"RFM_URI is not set");
		return RFM2G_NO_RFM2G_BOARD;
	}
	if (!rh)
		return RFM2G_BAD_PARAMETER_2;
	h = calloc(1, sizeof(*h));
	if (!h)
		return RFM2G_LOW_MEMORY;
	pthread_mutex_lock(&open_lock);
	share_node(uri, shared, sizeof(shared));
	r = open_board(shared, &h->node);
	if (r == 0)
		r = rfm_mem_map(h->node, &base, &size);
	if (r != 0) {
		pthread_mutex_unlock(&open_lock);
		say_why(DevicePath, uri, rfm_last_error());
		if (r == RFM_ENOSPC)
			say_room(uri);
		if (h->node)
			rfm_close(h->node);
		free(h);
		*rh = NULL;
		return open_status(r);
	}
	h->board = rfm__node_board(h->node);
	/* The vendor library reads the card's configuration at open. */
	if (h->board && h->board->get_config(h->node, &h->pub.Config) != 0) {
		pthread_mutex_unlock(&open_lock);
		say_why(DevicePath, uri, rfm_last_error());
		rfm_close(h->node);
		free(h);
		*rh = NULL;
		return RFM2G_OS_ERROR;	/* the vendor library leaks its descriptor here */
	}
	init_handle(h, DevicePath, unit, uri, base, size);
	rfm2g__registry_add(h);
	pthread_mutex_unlock(&open_lock);
	*rh = &h->pub;
	return RFM2G_SUCCESS;
}

STDRFM2GCALL RFM2gClose(RFM2GHANDLE *rh)
{
	struct rfm2g_compat *h;
	bool deferred, self;

	if (!rh)
		return RFM2G_BAD_PARAMETER_1;
	if (!*rh)
		return RFM2G_NULL_DESCRIPTOR;
	h = rfm2g__registry_remove(*rh);	/* new calls on it now fail */
	if (!h)
		return RFM2G_BAD_PARAMETER_1;

	self = rfm2g__in_callback_of(h);
	pthread_mutex_lock(&h->lock);
	h->closing = true;
	rfm2g__stop_callbacks_locked(h);
	/* Closed from inside a callback: the dispatcher frees once it returns. */
	h->free_on_exit = self;
	pthread_cond_broadcast(&h->cond);
	if (h->taking)
		rfm_event_cancel(h->node);	/* the wait that takes from librfm */
	/* Waits in progress see closing and leave. */
	while (h->refs)
		pthread_cond_wait(&h->cond, &h->lock);
	deferred = h->free_on_exit;
	pthread_mutex_unlock(&h->lock);
	*rh = NULL;
	if (!deferred)
		rfm2g__destroy(h);
	return RFM2G_SUCCESS;
}
