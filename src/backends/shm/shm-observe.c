/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Observers on the shm: backend (observe=1, node.h "Observers and tools"):
 * the segment mapped read-only, its header checked as every attach checks
 * it, and nothing taken: no node id, no byte lock, no open lock, no event
 * queue, no entry in the node table. A network that does not exist is not
 * made. The lock file is opened read-only, when the observer may, only to
 * ask who holds each id (a read lock query takes nothing); a user who may
 * read the segment but not its lock file judges liveness by process ids.
 *
 * What a peer does meanwhile cannot hurt the observer: its header copy is
 * private and checked before any offset in it is used, as for a node.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/clock.h"
#include "os/file.h"
#include "os/lock.h"
#include "os/map.h"
#include "backends/shm/shm-internal.h"

struct observe_params {
	uint64_t size;		/* 0: the network's; else checked against it */
};

static int parse_observe_params(struct rfm_uri *uri, struct observe_params *p)
{
	static const char *const node_only[] = { "node", "shared", "create", "mode", "depth",
						 "accept_owner" };
	const char *v;

	for (size_t i = 0; i < RFM_ARRAY_SIZE(node_only); i++)
		if (rfm__uri_take(uri, node_only[i]))
			return rfm__error(RFM_EURI,
					  "%s: observe=1 takes no %s=: an observer holds no node "
					  "id and makes no network",
					  uri->text, node_only[i]);
	p->size = 0;
	if ((v = rfm__uri_take(uri, "size")) && rfm__parse_size(v, &p->size))
		return rfm__error(RFM_EURI, "%s: size '%s' is not a byte count", uri->text, v);
	return rfm__uri_check_all_used(uri);
}

static int sys_error(const struct rfm_uri *uri, const char *what)
{
	int err = errno;

	return rfm__error(rfm__errno_code(err), "%s: %s: %s", uri->text, what, strerror(err));
}

/* The segment, read-only; ENOENT: no such network (named as shm.c names it). */
static int open_segment(struct shm_node *shm, const struct rfm_uri *uri)
{
	char seg[RFM_SHM_NAME_MAX + 16], lock[RFM_SHM_NAME_MAX + 16];
	int fd;

	if (!rfm__shm_valid_name(uri->path))
		return rfm__error(RFM_EURI,
				  "%s: network name '%s' must be 1-%d characters of A-Z a-z 0-9 _ - . "
				  "not starting with '.' or '-'",
				  uri->text, uri->path, RFM_SHM_NAME_MAX);
	snprintf(seg, sizeof(seg), "/" RFM_SHM_PREFIX "%s", uri->path);
	snprintf(lock, sizeof(lock), "/" RFM_SHM_LOCK_PREFIX "%s", uri->path);
	fd = rfm__os_seg_open(seg, RFM_OS_SEG_READ, 0);
	if (fd < 0 && errno == ENOENT)
		return rfm__shm_no_network(uri->text, uri->path);
	if (fd < 0)
		return errno == EACCES ? rfm__error(RFM_EPERM,
						    "%s: no read permission on the network",
						    uri->text)
				       : sys_error(uri, "opening the network segment");
	shm->seg_fd = fd;
	/* Only to ask who holds each id: without it, process ids say. */
	shm->fd = rfm__os_seg_open(lock, RFM_OS_SEG_READ, 0);
	return 0;
}

/*
 * Whether a node is making the network now: its maker holds the open lock
 * until the magic is written. A try, let go at once, takes nothing a node
 * keeps (an opener that meets it tries again a millisecond later, as it
 * does after any other opener). Without the lock file to ask, assume so:
 * the wait is bounded anyway.
 */
static bool being_made(const struct shm_node *shm)
{
	if (shm->fd < 0 || rfm__os_file_lock(shm->fd) < 0)
		return true;
	rfm__os_file_unlock(shm->fd);
	return false;
}

/* A copy of the header once the network is made; RFM_EBUSY if it never is. */
static int read_header(struct shm_node *shm, const struct rfm_uri *uri,
		       struct rfm_shm_header *h, struct rfm_os_stat *st)
{
	bool maker_gone = false;

	for (int waited = 0;; waited++) {
		uint64_t magic = 0;

		if (rfm__os_file_stat(shm->seg_fd, st) < 0)
			return sys_error(uri, "reading the network segment's status");
		if (!st->regular)
			return rfm__error(RFM_ECORRUPT,
					  "%s: the network segment is not a regular file", uri->text);
		if (st->size >= sizeof(*h)) {
			void *page = rfm__os_map(shm->seg_fd, 0, sizeof(*h), 0);

			if (!page)
				return sys_error(uri, "mapping the network segment");
			/* The magic comes last at creation (release): it first, then the rest. */
			magic = __atomic_load_n(&((const struct rfm_shm_header *)page)->magic,
						__ATOMIC_ACQUIRE);
			memcpy(h, page, sizeof(*h));
			h->magic = magic;
			rfm__os_unmap(page, sizeof(*h));
		}
		if (magic)
			return 0;
		/*
		 * The lock found free: its maker may have written the magic and let
		 * go between our read and our try. Only a magic still missing when
		 * read after the free lock means the maker stopped.
		 */
		if (maker_gone || waited >= RFM_SHM_OPEN_WAIT_MS)
			return rfm__error(RFM_EBUSY,
					  "%s: the network was left half made (its maker stopped): "
					  "open a node of it, which makes it again", uri->text);
		maker_gone = !being_made(shm);
		if (!maker_gone)
			rfm__os_sleep_ns(1000000);
	}
}

/* Its header, copied and checked; then the header, node table and window, read-only. */
static int map_read_only(struct shm_node *shm, const struct rfm_uri *uri, uint64_t want_size)
{
	struct rfm_shm_header h;
	struct rfm_os_stat st;
	int ret;

	ret = read_header(shm, uri, &h, &st);
	if (ret)
		return ret;
	ret = rfm__shm_header_validate(uri->text, &h, st.size);
	if (ret)
		return ret;
	if (want_size && want_size != h.window_size)
		return rfm__error(RFM_ESIZE,
				  "%s: the network's window is %llu bytes, not the %llu asked for",
				  uri->text, (unsigned long long)h.window_size,
				  (unsigned long long)want_size);
	bool huge = h.version == RFM_SHM_VERSION_HUGE;
	/* Up to the window's end; in huge pages, the window is a file of its own. */
	shm->seg_len = huge ? h.window_offset : h.event_offset;
	shm->segment = rfm__os_map(shm->seg_fd, 0, shm->seg_len, 0);
	if (!shm->segment)
		return sys_error(uri, "mapping the network segment");
	if (huge && (ret = rfm__shm_huge_attach(shm, uri->text, uri->path, h.window_size,
						h.huge_page_kib)))
		return ret;
	shm->header = (struct rfm_shm_header *)shm->segment;
	shm->nodes = (struct rfm_shm_node_entry *)(shm->segment + h.node_table_offset);
	shm->map_size = h.event_offset;
	shm->depth = h.queue_depth;
	shm->stride = h.queue_stride;
	return 0;
}

static void observe_release(struct shm_node *shm)
{
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

int rfm__shm_observe_open(struct rfm_node *node, struct rfm_uri *uri)
{
	struct observe_params p;
	struct shm_node *shm;
	int ret = parse_observe_params(uri, &p);

	if (ret)
		return ret;
	shm = calloc(1, sizeof(*shm));
	if (!shm)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	shm->fd = -1;
	shm->seg_fd = -1;
	shm->queue = -1;
	shm->slab = -1;
	shm->id = -1;
	ret = open_segment(shm, uri);
	if (!ret)
		ret = map_read_only(shm, uri, p.size);
	if (ret) {
		observe_release(shm);
		return ret;
	}
	const struct rfm_shm_header *h = shm->header;
	node->base = shm->huge ? shm->huge : shm->segment + h->window_offset;
	node->size = h->window_size;
	node->id = -1;
	node->incarnation = 0;
	node->priv = shm;
	if (asprintf(&node->uri, "shm:%s?observe=1&size=%llu", uri->path,
		     (unsigned long long)h->window_size) < 0) {
		node->uri = NULL;
		observe_release(shm);
		node->priv = NULL;
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	}
	return 0;
}

void rfm__shm_observe_close(struct rfm_node *node)
{
	observe_release(node->priv);
	node->priv = NULL;
}
