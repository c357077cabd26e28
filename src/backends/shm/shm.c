/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shm: backend: an emulated reflective-memory network on one host.
 *
 * One POSIX shared-memory segment per network. Cache coherence plays the
 * fibre: a store by one node is visible to every other at once.
 *
 * The files live in the OS's segment directory (os/file.h: /dev/shm on
 * Linux, a per-user directory on Windows), reached through the OS layer.
 * Two kinds of file lock do the coordination, and the OS drops both
 * when a process dies, so nothing goes stale (os/lock.h). They are taken
 * on a second file, rfmlock-NAME beside the segment, whose mode gives read
 * access only to those who may also write: a lock needs only an open
 * descriptor, so a process allowed merely to read the segment could
 * otherwise hold locks every node waits on (docs/security.md). Opening a
 * network needs write access.
 *  - the file lock (flock() on Linux) serialises creation, validation and
 *    node-id claims;
 *  - one open-file-description (OFD) byte lock per node id is held for as
 *    long as the node is attached. A node id whose table entry says
 *    "attached" but whose lock is free belonged to a crashed process and
 *    is reclaimed. The claim takes the byte exclusively (so a second plain
 *    open of a live id fails) and then keeps it as a shared lock, so that
 *    handles opened with shared=1 can join the id with shared locks.
 *  - one OFD byte lock per event queue, held by the handle receiving on it
 *    (shm-events.c): a queue marked in use whose lock is free is reclaimed.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/clock.h"
#include "os/map.h"
#include "os/process.h"
#include "backends/shm/shm-internal.h"

static int segment_path(const struct rfm_uri *uri, char *buf, size_t buflen)
{
	if (!rfm__shm_valid_name(uri->path))
		return rfm__error(RFM_EURI,
				  "%s: network name '%s' must be 1-%d characters of A-Z a-z 0-9 _ - . "
				  "not starting with '.' or '-'",
				  uri->text, uri->path, RFM_SHM_NAME_MAX);
	snprintf(buf, buflen, "/rfm-%s", uri->path);
	return 0;
}

static int sys_error(const struct rfm_uri *uri, const char *what)
{
	int err = errno;

	return rfm__error(rfm__errno_code(err), "%s: %s: %s", uri->text, what, strerror(err));
}

/* Is node @id held by some other open file description? */
static bool node_alive(int fd, int id)
{
	return rfm__shm_byte_locked(fd, RFM_SHM_LOCK_BASE + (uint64_t)id);
}

/*
 * Map a segment laid out as @h describes: everything up to the event area
 * populated at once, the event slabs apart, over the largest size the file
 * may grow to. Only the slabs that exist are ever touched: senders check a
 * slab against the file's size first (shm-events.c).
 *
 * The locks live on the lock file, so the segment's own descriptor can be
 * mapped: a fork()ed child keeping the mapping keeps no lock alive.
 */
static int map_segment(struct shm_node *shm, const struct rfm_uri *uri,
		       const struct rfm_shm_header *h)
{
	bool huge = h->version == RFM_SHM_VERSION_HUGE;

	/* A window in huge pages is a hole here: mapping it would fill it. */
	shm->seg_len = huge ? h->window_offset : h->event_offset;
	shm->segment = rfm__os_map(shm->seg_fd, 0, shm->seg_len,
				   RFM_OS_MAP_WRITE | RFM_OS_MAP_POPULATE);
	if (!shm->segment)
		return sys_error(uri, "mmap");
	shm->map_size = h->event_offset;
	if (huge && !shm->huge) {
		int ret = rfm__shm_huge_attach(shm, uri->text, uri->path, h->window_size,
					       h->huge_page_kib);

		if (ret)
			return ret;
	}
	shm->events = rfm__os_map(shm->seg_fd, h->event_offset, h->event_size, RFM_OS_MAP_WRITE);
	if (!shm->events)
		return sys_error(uri, "mmap of the event queues");
	shm->events_size = h->event_size;
	shm->depth = h->queue_depth;
	shm->stride = h->queue_stride;
	rfm__shm_refresh_size(shm);
	return 0;
}

/*
 * Lay out a new segment in @fd (locked, empty or never initialised), its
 * window in huge pages (shm-huge.c) when @huge.
 */
static int create_segment(struct shm_node *shm, const struct rfm_uri *uri, uint64_t window_size,
			  uint32_t depth, bool huge, unsigned int mode)
{
	struct rfm_shm_header header;
	uint32_t huge_page_kib = 0;
	uint64_t reserve;
	int err, ret;

	if (huge && (ret = rfm__shm_huge_create(shm, uri->text, uri->path, window_size, mode,
						&huge_page_kib)))
		return ret;
	memset(&header, 0, sizeof(header));
	rfm__shm_header_init(&header, window_size, depth, huge_page_kib);
	if (rfm__os_file_truncate(shm->seg_fd, 0) < 0)
		return sys_error(uri, "ftruncate");
	/*
	 * Reserve every page of header, node table and window now: on a full
	 * /dev/shm this fails cleanly here instead of raising SIGBUS at some
	 * later store into the window. Event slabs come when receivers do.
	 */
	reserve = huge ? header.window_offset : header.event_offset;
	err = rfm__os_file_reserve(shm->seg_fd, 0, reserve);
	if (!err && huge && rfm__os_file_truncate(shm->seg_fd, header.event_offset) < 0)
		err = errno;
	if (err) {
		/* Give back what was reserved first: the hint counts it as free. */
		if (rfm__os_file_truncate(shm->seg_fd, 0) < 0) {
			/* nothing more to undo: the caller removes a segment it created */
		}
		/* A window fits with the header, node table and one receiver's queue. */
		return rfm__shm_no_room(uri->text, err, reserve,
					header.window_offset + header.queue_stride,
					"reserving the segment");
	}
	ret = map_segment(shm, uri, &header);
	if (ret)
		return ret;
	memcpy(shm->segment, &header, sizeof(header));
	/*
	 * The magic goes last: a segment without it is known to be unfinished.
	 * We hold the open lock until the attach is done, so a later opener
	 * that finds no magic and no live node knows the creator died here.
	 */
	__atomic_store_n(&((struct rfm_shm_header *)shm->segment)->magic, RFM_SHM_MAGIC,
			 __ATOMIC_RELEASE);
	return 0;
}

/* Is any node id held by a live process? (Locks are the truth, not the table.) */
static bool any_node_alive(int fd)
{
	for (int id = 0; id < RFM_MAX_NODES; id++)
		if (node_alive(fd, id))
			return true;
	return false;
}

/* Validate an existing segment and map it. Sets *uninitialised when it is empty. */
static int attach_segment(struct shm_node *shm, const struct rfm_uri *uri, uint64_t file_size,
			  bool *uninitialised)
{
	struct rfm_shm_header header;
	void *page;
	size_t peek = file_size < RFM_SHM_PAGE ? (size_t)file_size : RFM_SHM_PAGE;
	int ret;

	*uninitialised = false;
	if (file_size == 0) {
		*uninitialised = true;
		return 0;
	}
	page = rfm__os_map(shm->seg_fd, 0, peek, 0);
	if (!page)
		return sys_error(uri, "mmap");
	/* Work on a private copy: a peer cannot change it under our checks. */
	memset(&header, 0, sizeof(header));
	memcpy(&header, page, peek < sizeof(header) ? peek : sizeof(header));
	bool blank = rfm__all_zero(page, peek);
	rfm__os_unmap(page, peek);

	/*
	 * No magic: the creator died before its last store (it held the open
	 * lock we hold now). Start over, unless a live node says otherwise:
	 * then someone scribbled on a network in use, and it is refused.
	 */
	if (blank || (header.magic == 0 && !any_node_alive(shm->fd))) {
		*uninitialised = true;
		return 0;
	}
	if (file_size < sizeof(header))
		return rfm__error(RFM_ECORRUPT, "%s: segment truncated: %llu bytes, no room for a header",
				  uri->text, (unsigned long long)file_size);
	ret = rfm__shm_header_validate(uri->text, &header, file_size);
	if (ret)
		return ret;
	return map_segment(shm, uri, &header);
}

static const struct rfm_shm_header *segment_header(const struct shm_node *shm)
{
	return (const struct rfm_shm_header *)shm->segment;
}

/* Take node id @id as a fresh attach: we hold its byte exclusively. */
static void take_node_id(struct rfm_node *node, struct shm_node *shm, int id)
{
	struct rfm_shm_node_entry *e = &shm->nodes[id];

	/* A previous holder that still shows "attached" has crashed: reclaim. */
	e->incarnation++;
	e->pid = rfm__os_pid();
	e->attach_ns = rfm__os_realtime_ns();
	e->holder = node->tool ? RFM_SHM_HOLDER_TOOL : 0;
	__atomic_store_n(&e->state, RFM_SHM_NODE_ATTACHED, __ATOMIC_RELEASE);
	node->id = id;
	node->incarnation = e->incarnation;
}

/* RFM_EINUSE for id @wanted: who holds it, and what to do about it. */
static int id_in_use(const struct shm_node *shm, const struct rfm_uri *uri, int wanted)
{
	const struct rfm_shm_node_entry *e = &shm->nodes[wanted];
	int pid = (int)__atomic_load_n(&e->pid, __ATOMIC_RELAXED);

	if (__atomic_load_n(&e->holder, __ATOMIC_RELAXED) == RFM_SHM_HOLDER_TOOL)
		return rfm__error(RFM_EINUSE,
				  "%s: node id %d is held by a tool (pid %d), such as an rfm "
				  "command run with this id; stop it, or let tools take their ids "
				  "from %d..%d (the rfm tool does unless told node=) and give "
				  "this node an id below %d",
				  uri->text, wanted, pid, RFM_NODE_TOOL_FIRST, RFM_NODE_ID_MAX,
				  RFM_NODE_TOOL_FIRST);
	return rfm__error(RFM_EINUSE,
			  "%s: node id %d is in use by a live node (pid %d): if that is a "
			  "monitor or a tool, open it with observe=1 (it then holds no id) or "
			  "tool=1 (an id of %d..%d); if it is another handle of this node, "
			  "add shared=1",
			  uri->text, wanted, pid, RFM_NODE_TOOL_FIRST, RFM_NODE_ID_MAX);
}

static int claim_node_id(struct rfm_node *node, struct shm_node *shm, const struct rfm_uri *uri,
			 int wanted, bool shared)
{
	/* Without node=: the first free id; a tool's of the range kept for tools. */
	int first = wanted >= 0 ? wanted : node->tool ? RFM_NODE_TOOL_FIRST : 0;
	int last = wanted >= 0 ? wanted : RFM_NODE_ID_MAX;

	for (int id = first; id <= last; id++) {
		int err;

		if (shared && node_alive(shm->fd, id)) {
			/* Join the live id beside its other handles. */
			err = rfm__shm_try_lock_node(shm->fd, id, RFM_OS_LOCK_SHARED);
			if (err) {
				errno = -err;
				return sys_error(uri, "sharing the node id");
			}
			node->id = id;
			node->incarnation = shm->nodes[id].incarnation;
		} else {
			err = rfm__shm_try_lock_node(shm->fd, id, RFM_OS_LOCK_EXCL);
			if (err == -EAGAIN || err == -EACCES)
				continue;
			if (err) {
				errno = -err;
				return sys_error(uri, "locking the node id");
			}
			take_node_id(node, shm, id);
			/* Keep it shared from now on, so shared=1 handles can join. */
			err = rfm__shm_try_lock_node(shm->fd, id, RFM_OS_LOCK_SHARED);
			if (err) {
				errno = -err;
				return sys_error(uri, "locking the node id");
			}
		}
		shm->id = id;
		/* Queues left by crashed receivers of this id are free again. */
		rfm__shm_reclaim_queues(shm, id);
		return 0;
	}
	if (wanted >= 0)
		return id_in_use(shm, uri, wanted);
	if (node->tool)
		return rfm__error(RFM_EFULL,
				  "%s: all %d ids kept for tools (%d..%d) are in use; name one "
				  "with node=, or stop a tool",
				  uri->text, RFM_NODE_ID_MAX - RFM_NODE_TOOL_FIRST + 1,
				  RFM_NODE_TOOL_FIRST, RFM_NODE_ID_MAX);
	return rfm__error(RFM_EFULL, "%s: all %d node ids are in use", uri->text, RFM_MAX_NODES);
}

struct shm_params {
	int node_id;		/* -1: first free */
	uint64_t size;		/* 0: the network's, or the default when creating */
	unsigned int mode;	/* permission bits (os/file.h: an ACL on Windows) */
	bool mode_given;	/* mode= was in the URI */
	bool shared;		/* join a live node id beside its other handles */
	uint32_t depth;		/* event queue depth; 0: the network's, or the default */
	bool create;		/* create the network when it does not exist (create=1) */
	bool accept_owner;	/* join a segment owned by another user as it is */
};

static int parse_params(struct rfm_uri *uri, struct shm_params *p)
{
	const char *v;
	uint64_t n;
	int ret;

	p->node_id = -1;
	p->size = 0;
	p->mode = 0600;
	p->mode_given = false;
	if ((v = rfm__uri_take(uri, "node"))) {
		if (rfm__parse_u64(v, &n))
			return rfm__error(RFM_EURI, "%s: node '%s' is not a number", uri->text, v);
		if (n > RFM_NODE_ID_MAX)
			return rfm__error(RFM_ENODEID, "%s: node id %s is outside 0..%d",
					  uri->text, v, RFM_NODE_ID_MAX);
		p->node_id = (int)n;
	}
	if ((v = rfm__uri_take(uri, "size"))) {
		if (rfm__parse_size(v, &p->size))
			return rfm__error(RFM_EURI, "%s: size '%s' is not a byte count", uri->text, v);
		ret = rfm__shm_check_window_size(uri->text, p->size);
		if (ret)
			return ret;
	}
	if ((v = rfm__uri_take(uri, "mode"))) {
		/* Octal only: "0x180" would parse as C notation but is not a mode. */
		if (v[0] != '0' || strspn(v, "01234567") != strlen(v) || rfm__parse_u64(v, &n) ||
		    n > 0777 || (n & 0600) != 0600 || (n & 0111))
			return rfm__error(RFM_EURI,
					  "%s: mode '%s' must be octal like 0600 or 0660, owner "
					  "read-write, no execute",
					  uri->text, v);
		p->mode = (unsigned int)n;
		p->mode_given = true;
	}
	p->shared = false;
	ret = rfm__uri_take_bool(uri, "shared", &p->shared);
	if (ret)
		return ret;
	if (p->shared && p->node_id < 0)
		return rfm__error(RFM_EURI, "%s: shared=1 needs node=N (the id to share)", uri->text);
	p->depth = 0;
	if ((v = rfm__uri_take(uri, "depth"))) {
		if (rfm__parse_size(v, &n))
			return rfm__error(RFM_EURI, "%s: depth '%s' is not a number", uri->text, v);
		ret = rfm__shm_check_depth(uri->text, n);
		if (ret)
			return ret;
		p->depth = (uint32_t)n;
	}
	p->create = true;
	ret = rfm__uri_take_bool(uri, "create", &p->create);
	if (ret)
		return ret;
	p->accept_owner = false;
	ret = rfm__uri_take_bool(uri, "accept_owner", &p->accept_owner);
	if (ret)
		return ret;
	return rfm__uri_check_all_used(uri);
}

static char *canonical_uri(const struct rfm_uri *uri, int id, uint64_t size, bool shared)
{
	char *text;

	if (asprintf(&text, "shm:%s?node=%d&size=%llu%s", uri->path, id, (unsigned long long)size,
		     shared ? "&shared=1" : "") < 0)
		return NULL;
	return text;
}

static void shm_release(struct shm_node *shm)
{
	if (shm->events)
		rfm__os_unmap(shm->events, shm->events_size);
	free(shm->limits);
	if (shm->segment)
		rfm__os_unmap(shm->segment, shm->seg_len);
	if (shm->huge)
		rfm__os_unmap(shm->huge, shm->huge_len);
	if (shm->fd >= 0)
		rfm__os_close(shm->fd);
	if (shm->seg_fd >= 0)
		rfm__os_close(shm->seg_fd);
	free(shm);
}

/*
 * The node id is held by a lock on the lock file's open file description,
 * which a fork() shares with the child: the child lets go of its
 * descriptor so that the parent's close really frees the id.
 */
static void shm_forget(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;

	if (shm->fd >= 0)
		rfm__os_close(shm->fd);
	shm->fd = -1;
}

/* ---- opening the files: the lock file first, the segment under its lock ---- */

static bool name_exists(const char *name)
{
	struct rfm_os_stat st;

	return rfm__os_seg_stat(name, &st) == 0;
}

/* Read bits only where the class may also write: readers get no lock file. */
static unsigned int lock_mode(unsigned int mode)
{
	mode &= 0666;
	if (!(mode & 0020))
		mode &= ~0040u;
	if (!(mode & 0002))
		mode &= ~0004u;
	return mode;
}

static int no_write_error(const struct rfm_uri *uri, const char *seg)
{
	struct rfm_os_stat st;

	if (rfm__os_seg_stat(seg, &st) < 0)
		return rfm__error(RFM_EPERM, "%s: no permission to open the network", uri->text);
	return rfm__error(RFM_EPERM,
			  "%s: no write permission on %s%s (owner %s, mode 0%03o): every node "
			  "takes locks others wait on, so opening needs write access; the owner "
			  "can share it with mode=0660 and a common group",
			  uri->text, rfm__os_seg_dir(), seg, st.owner, st.mode);
}

static int open_lock_file(struct shm_node *shm, const struct rfm_uri *uri,
			  const struct shm_params *p, const char *lock, const char *seg,
			  bool *lock_created)
{
	unsigned int mode = lock_mode(p->mode);

	for (int tries = 0;; tries++) {
		struct rfm_os_stat held, linked;
		int fd, ret;

		*lock_created = false;
		fd = rfm__os_seg_open(lock, 0, 0);
		if (fd < 0 && errno == ENOENT) {
			if (!p->create && !name_exists(seg))
				return rfm__shm_no_network(uri->text, uri->path);
			fd = rfm__os_seg_open(lock, RFM_OS_SEG_CREATE | RFM_OS_SEG_EXCL, mode);
			if (fd < 0 && errno == EEXIST && tries < 16)
				continue;
			*lock_created = fd >= 0;
		}
		if (fd < 0)
			return errno == EACCES ? no_write_error(uri, seg)
					       : sys_error(uri, "opening the network's lock file");
		/* The umask must not narrow the mode the caller asked for. */
		if (*lock_created && rfm__os_file_set_mode(fd, mode) < 0) {
			rfm__os_close(fd);
			return sys_error(uri, "fchmod");
		}
		ret = rfm__shm_lock_open(fd, uri);
		if (ret) {
			rfm__os_close(fd);
			return ret;
		}
		/* Still the file of that name? destroy removes it while others wait. */
		if (rfm__os_file_stat(fd, &held) == 0 && held.regular &&
		    rfm__os_seg_stat(lock, &linked) == 0 && held.ino == linked.ino &&
		    held.dev == linked.dev) {
			shm->fd = fd;
			return 0;
		}
		rfm__os_close(fd);
		if (tries >= 16)
			return rfm__error(RFM_EBUSY, "%s: %s%s keeps being removed under us",
					  uri->text, rfm__os_seg_dir(), lock);
	}
}

/* Open or create the segment itself; the open lock is held. */
static int open_segment_file(struct shm_node *shm, const struct rfm_uri *uri,
			     const struct shm_params *p, const char *seg, bool *created)
{
	int fd;

	*created = false;
	fd = rfm__os_seg_open(seg, 0, 0);
	if (fd < 0 && errno == ENOENT) {
		if (!p->create)
			return rfm__shm_no_network(uri->text, uri->path);
		fd = rfm__os_seg_open(seg, RFM_OS_SEG_CREATE | RFM_OS_SEG_EXCL, p->mode);
		*created = fd >= 0;
	}
	if (fd < 0)
		return errno == EACCES ? no_write_error(uri, seg)
				       : sys_error(uri, "opening the network segment");
	shm->seg_fd = fd;
	/* The umask must not narrow the mode the caller asked for. */
	if (*created && rfm__os_file_set_mode(shm->seg_fd, p->mode) < 0)
		return sys_error(uri, "fchmod");
	return 0;
}

/*
 * A name in the segment directory belongs to whoever created it first.
 * Refuse a segment another user owns when the opener asked for a mode of
 * its own (it expects its own network) or when anyone may write it (anyone
 * may have planted it), and a lock file that is not the network owner's.
 */
static int check_owner(const struct rfm_uri *uri, const struct shm_params *p, const char *seg,
		       const struct rfm_os_stat *s, const struct rfm_os_stat *l, bool lock_created)
{
	unsigned int smode = s->mode;
	char me[RFM_OS_ID_TEXT];

	if (p->accept_owner)
		return 0;
	rfm__os_user(me, sizeof(me));
	if (!s->mine && (p->mode_given || (s->mode & 0002)))
		return rfm__error(RFM_EPERM,
				  "%s: %s%s belongs to %s with mode 0%03o, not to %s%s: another "
				  "user created the name first; add accept_owner=1 to join it as "
				  "it is",
				  uri->text, rfm__os_seg_dir(), seg, s->owner, smode, me,
				  p->mode_given ? " as asked" : "");
	/*
	 * The lock file may belong to the network's owner, or to a member of
	 * a group that may write the network (who made it in the group's
	 * name); and it must give nobody more than the network's writers.
	 */
	bool member = (s->mode & 0020) && !strcmp(l->group, s->group);
	if (!lock_created &&
	    ((strcmp(l->owner, s->owner) && !member) || (l->mode & ~lock_mode(s->mode))))
		return rfm__error(RFM_EPERM,
				  "%s: its lock file belongs to %s with mode 0%03o, the network "
				  "to %s with mode 0%03o: another user may hold its locks; "
				  "destroy the network or add accept_owner=1",
				  uri->text, l->owner, l->mode, s->owner, smode);
	return 0;
}

/* A handle's state with nothing open yet, or NULL. */
static struct shm_node *shm_node_new(void)
{
	struct shm_node *shm = calloc(1, sizeof(*shm));

	if (!shm)
		return NULL;
	shm->fd = -1;
	shm->seg_fd = -1;
	shm->queue = -1;
	shm->slab = -1;
	/* Per-slab send limits: 16 KiB, so sends never allocate. */
	shm->limits = calloc(RFM_SHM_QUEUE_COUNT, sizeof(*shm->limits));
	if (!shm->limits) {
		free(shm);
		return NULL;
	}
	return shm;
}

/*
 * The lock file and the segment, opened (or created) and checked: a
 * regular file, owned by whom the opener may trust. Leaves the open lock
 * held and *@st the segment's status.
 */
static int open_files(struct shm_node *shm, const struct rfm_uri *uri, const struct shm_params *p,
		      const char *lock, const char *seg, bool *created, bool *lock_created,
		      struct rfm_os_stat *st)
{
	struct rfm_os_stat lst;
	int ret;

	ret = open_lock_file(shm, uri, p, lock, seg, lock_created);
	if (ret)
		return ret;
	ret = open_segment_file(shm, uri, p, seg, created);
	if (ret)
		return ret;
	if (rfm__os_file_stat(shm->seg_fd, st) < 0 || rfm__os_file_stat(shm->fd, &lst) < 0)
		return sys_error(uri, "fstat");
	if (!st->regular)
		return rfm__error(RFM_ECORRUPT, "%s: %s is not a regular shared-memory file",
				  uri->text, seg);
	/*
	 * A lock file we made for an existing network takes its group and
	 * mode (and its owner, when we are root), so its other users can
	 * open it too.
	 */
	if (*lock_created && !*created) {
		if (rfm__os_file_share_like(shm->fd, shm->seg_fd, lock_mode(st->mode)) == 0) {
			/* done; if not, the check below says why it cannot be used */
		}
		rfm__os_file_stat(shm->fd, &lst);
	}
	return check_owner(uri, p, seg, st, &lst, *lock_created);
}

/*
 * The attached segment is the network the URI asked for: its pages (huge
 * or not), its header unchanged since the mapping, its window and queue
 * sizes. Fills the handle's header and node table pointers, and the
 * window's size and offset as read once here.
 */
static int check_attached(struct shm_node *shm, const struct rfm_uri *uri,
			  const struct shm_params *p, bool want_huge, uint64_t *window_size,
			  uint64_t *window_offset)
{
	/* Huge pages are chosen at creation: never hand out less than asked. */
	if (want_huge && !shm->huge)
		return rfm__error(RFM_EINVAL,
				  "%s: hugepages=1, but network '%s' exists with its window in "
				  "ordinary shared memory; the window's pages are chosen when the "
				  "network is created: destroy it and open again with hugepages=1",
				  uri->text, uri->path);

	const struct rfm_shm_header *h = segment_header(shm);
	*window_size = h->window_size;
	*window_offset = h->window_offset;
	/* Re-check what we mapped: a peer may have rewritten the header meanwhile. */
	if (h->event_offset != shm->map_size || h->event_size != shm->events_size ||
	    h->queue_depth != shm->depth || h->queue_stride != shm->stride)
		return rfm__error(RFM_ECORRUPT, "%s: segment header changed during attach", uri->text);
	if (p->size && p->size != *window_size)
		return rfm__error(RFM_ESIZE,
				  "%s: the network's window is %llu bytes, not the %llu asked for",
				  uri->text, (unsigned long long)*window_size,
				  (unsigned long long)p->size);
	if (p->depth && p->depth != shm->depth)
		return rfm__error(RFM_ESIZE,
				  "%s: the network's event queues hold %u records, not the %u asked for",
				  uri->text, shm->depth, p->depth);
	shm->header = (struct rfm_shm_header *)shm->segment;
	shm->nodes = (struct rfm_shm_node_entry *)(shm->segment + h->node_table_offset);
	return 0;
}

static int shm_open_node(struct rfm_node *node, struct rfm_uri *uri)
{
	struct shm_params params;
	struct shm_node *shm;
	char seg[RFM_SHM_NAME_MAX + 16], lock[RFM_SHM_NAME_MAX + 16];
	bool created = false, lock_created = false, uninitialised;
	struct rfm_os_stat st;
	uint64_t window_size = 0, window_offset = 0;
	bool want_huge = node->mem_flags & RFM_MEM_HUGEPAGES;
	int ret;

	/* An observer takes nothing and makes nothing: shm-observe.c. */
	if (node->observer)
		return rfm__shm_observe_open(node, uri);
	ret = segment_path(uri, seg, sizeof(seg));
	if (ret)
		return ret;
	snprintf(lock, sizeof(lock), "/" RFM_SHM_LOCK_PREFIX "%s", uri->path);
	ret = parse_params(uri, &params);
	if (ret)
		return ret;
	shm = shm_node_new();
	if (!shm)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);

	ret = open_files(shm, uri, &params, lock, seg, &created, &lock_created, &st);
	if (ret)
		goto fail;
	ret = attach_segment(shm, uri, st.size, &uninitialised);
	if (ret)
		goto fail;
	if (uninitialised) {
		ret = create_segment(shm, uri, params.size ? params.size : RFM_SHM_DEFAULT_SIZE,
				     params.depth ? params.depth : RFM_SHM_DEPTH_DEFAULT, want_huge,
				     params.mode);
		if (ret)
			goto fail;
	}
	ret = check_attached(shm, uri, &params, want_huge, &window_size, &window_offset);
	if (ret)
		goto fail;
	ret = claim_node_id(node, shm, uri, params.node_id, params.shared);
	if (ret)
		goto fail;
	rfm__os_file_unlock(shm->fd);

	node->base = shm->huge ? shm->huge : shm->segment + window_offset;
	shm->prefault_sends = node->mem_flags & (RFM_MEM_PREFAULT | RFM_MEM_LOCK);
	node->size = window_size;
	node->priv = shm;
	node->uri = canonical_uri(uri, node->id, window_size, params.shared);
	if (!node->uri) {
		/* The entry stays "attached": our lock goes with the fd, so it reads as crashed. */
		shm_release(shm);
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	}
	return 0;

fail:
	/* Leave no half-made network behind for others to trip over. */
	if (created)
		rfm__os_seg_unlink(seg);
	if (shm->huge_created)
		rfm__shm_huge_remove(uri->path, -1);
	/*
	 * Nor a lock file without its network. We hold its lock: an opener
	 * waiting on it sees the name gone and starts afresh.
	 */
	if (shm->fd >= 0 && !name_exists(seg))
		rfm__os_seg_unlink(lock);
	shm_release(shm);
	return ret;
}

static void shm_close_node(struct rfm_node *node)
{
	struct shm_node *shm = node->priv;

	if (node->observer) {
		rfm__shm_observe_close(node);
		return;
	}
	/* A handle inherited through fork() owns nothing shared: no table
	 * entry, no queue (forget closed its descriptor). */
	if (!node->forked) {
		/*
		 * Bookkeeping under the segment lock, so it cannot interleave
		 * with a peer's open. If that lock cannot be had (a peer stopped
		 * inside an open), skip it: our locks go with the descriptor,
		 * and whatever the table still says then reads as a crashed
		 * node and is reclaimed.
		 */
		bool locked = rfm__shm_lock(shm->fd, node->uri) == 0;

		rfm__shm_release_queue(shm, locked);
		/* The last handle of the id (we can own its byte alone) marks it free. */
		if (locked && rfm__shm_try_lock_node(shm->fd, node->id, RFM_OS_LOCK_EXCL) == 0) {
			__atomic_store_n(&shm->nodes[node->id].pid, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&shm->nodes[node->id].state, RFM_SHM_NODE_FREE,
					 __ATOMIC_RELEASE);
		}
	}
	/* Closing the descriptor releases its locks: node id, queue, segment. */
	shm_release(shm);
}

/* Attached: the node table's rule (shm-health.c), so both count alike. */
static void shm_get_info(const struct rfm_node *node, struct rfm_node_info *info)
{
	uint32_t attached = 0;

	for (unsigned int id = 0; id < RFM_MAX_NODES; id++) {
		struct rfm_node_facts f = { 0 };

		if (!rfm__shm_node_facts((struct rfm_node *)node, id, &f) && f.attached)
			attached++;
	}
	info->nodes_attached = attached;
}

/* A lock file whose segment was removed by hand: remove it too, under its lock. */
static void remove_stale_lock(const char *seg, const char *lock)
{
	int lfd = rfm__os_seg_open(lock, 0, 0);

	if (lfd < 0)
		return;
	if (rfm__os_file_lock(lfd) == 0 && !name_exists(seg))
		rfm__os_seg_unlink(lock);
	rfm__os_close(lfd);
}

static int shm_destroy(struct rfm_uri *uri, unsigned int flags)
{
	char seg[RFM_SHM_NAME_MAX + 16], lock[RFM_SHM_NAME_MAX + 16];
	int fd, lfd, ret, alive = 0, first_alive = -1;

	ret = segment_path(uri, seg, sizeof(seg));
	if (ret)
		return ret;
	snprintf(lock, sizeof(lock), "/" RFM_SHM_LOCK_PREFIX "%s", uri->path);
	/* node parameters mean nothing here; accept them so any node URI works. */
	rfm__uri_take(uri, "node");
	rfm__uri_take(uri, "size");
	rfm__uri_take(uri, "mode");
	rfm__uri_take(uri, "shared");
	rfm__uri_take(uri, "depth");
	rfm__uri_take(uri, "loopback");
	rfm__uri_take(uri, "spin");
	rfm__uri_take(uri, "create");
	rfm__uri_take(uri, "accept_owner");
	ret = rfm__uri_check_all_used(uri);
	if (ret)
		return ret;

	fd = rfm__os_seg_open(seg, 0, 0);
	if (fd < 0) {
		bool gone = errno == ENOENT;

		ret = errno == EACCES ? no_write_error(uri, seg)
				      : sys_error(uri, "opening the network segment");
		remove_stale_lock(seg, lock);
		/* A huge-page window whose segment was removed by hand. */
		if (gone)
			rfm__shm_huge_remove(uri->path, -1);
		return ret;
	}
	/* A segment written by hand may have no lock file yet: make one to lock. */
	lfd = rfm__os_seg_open(lock, RFM_OS_SEG_CREATE, 0600);
	if (lfd < 0) {
		ret = errno == EACCES ? no_write_error(uri, seg)
				      : sys_error(uri, "opening the network's lock file");
		rfm__os_close(fd);
		return ret;
	}
	ret = rfm__shm_lock_open(lfd, uri);
	if (ret) {
		rfm__os_close(lfd);
		rfm__os_close(fd);
		return ret;
	}
	/* The locks are the truth even when the segment itself is corrupt. */
	for (int id = 0; id < RFM_MAX_NODES; id++)
		if (node_alive(lfd, id)) {
			alive++;
			if (first_alive < 0)
				first_alive = id;
		}
	if (alive && !(flags & RFM_DESTROY_FORCE)) {
		rfm__os_close(lfd);
		rfm__os_close(fd);
		return rfm__error(RFM_EBUSY,
				  "%s: %d node(s) still attached (node %d first); "
				  "close them or force the removal",
				  uri->text, alive, first_alive);
	}
	ret = rfm__os_seg_unlink(seg) < 0 ? sys_error(uri, "shm_unlink") : 0;
	/* A window in huge pages: its pages go back to the pool with the file. */
	if (!ret)
		rfm__shm_huge_remove(uri->path, fd);
	/* Openers waiting on this lock file see it gone and start afresh. */
	rfm__os_seg_unlink(lock);
	rfm__os_close(lfd);
	rfm__os_close(fd);
	return ret;
}

const struct rfm_backend_ops rfm__shm_ops = {
	.scheme = "shm",
	.caps = RFM__CAP_SINGLE_HOST | RFM__CAP_HUGE_WINDOW | RFM__CAP_OBSERVE,
	.open = shm_open_node,
	.close = shm_close_node,
	.get_info = shm_get_info,
	.destroy = shm_destroy,
	.forget = shm_forget,
	.ev = &rfm__shm_ev_ops,
	.node_facts = rfm__shm_node_facts,
	.node_alive = rfm__shm_node_alive,
};
