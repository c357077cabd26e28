/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rfm2g: backend: a user-space client of the vendor's RFM2g Linux
 * driver (/dev/rfm2gN) through its ioctl interface, with no vendor
 * library. URI: rfm2g:/dev/rfm2g0.
 *
 * Memory: the driver's reflective-memory window (BAR3) mapped with mmap at
 * offset 0; the node's size is that window (it may be smaller than the
 * board's memory when a sliding window is configured).
 *
 * DMA (URI parameters dma=PHYS, dma_size=BYTES, dma_threshold=BYTES):
 * PHYS is the physical address of RAM reserved from Linux for the card
 * (boot option mem= or memmap=), mapped through the driver's special mmap.
 * rfm_mem_read/write of dma_threshold bytes or more (default 4096) then go
 * through that buffer with the driver's READ/WRITE ioctls, which DMA when
 * the buffer lies in the mapping; shorter ones copy through the window.
 *
 * Events: the driver only offers a blocking WAIT_FOR_EVENT ioctl per event
 * type, with one waiter per board and event and a queue of depth 1. For
 * each enabled type a thread of this handle waits there and moves every
 * interrupt into this handle's own deep queue (event-localq.h:
 * RFM_EVENT_QUEUE_MIN records, overflow counted), which the core drains
 * like any other backend's.
 * Disabling a type stops its thread with CANCEL_EVENT. Event state on
 * the board is shared by every process that opened it: a second handle
 * waiting on the same type finds the driver busy (EALREADY), and its thread
 * ends, counting nothing; the first one keeps receiving.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rfm2g/rfm2g_ioctl.h>

#include "backends/rfm2g/rfm2g-internal.h"

struct r2g_waiter {
	struct rfm_node *node;
	unsigned int type;
};

/* Optional DMA buffer from the URI; 0 when none was asked for. */
static int map_dma(struct r2g_node *r, struct rfm_uri *uri)
{
	const char *phys_s = rfm__uri_take(uri, "dma");
	const char *size_s = rfm__uri_take(uri, "dma_size");
	const char *thr_s = rfm__uri_take(uri, "dma_threshold");
	uint64_t phys = 0, size = 0, thr = 4096;
	const char *what;
	RFM2G_UINT32 thr32;
	int err;

	if (!phys_s && !size_s && !thr_s)
		return 0;
	if (!phys_s || !size_s)
		return rfm__error(RFM_EURI, "%s: dma needs both dma=PHYS and dma_size=BYTES",
				  uri->text);
	if (rfm__parse_u64(phys_s, &phys) || !phys || phys % 4096)
		return rfm__error(RFM_EURI, "%s: dma '%s' is not a page-aligned physical address",
				  uri->text, phys_s);
	if (rfm__parse_size(size_s, &size) || !size || size % 4096 || size > 0x7FFF0000u)
		return rfm__error(RFM_EURI, "%s: dma_size '%s' is not a number of pages",
				  uri->text, size_s);
	if (thr_s && (rfm__parse_size(thr_s, &thr) || thr > 0xFFFFFFFFu))
		return rfm__error(RFM_EURI, "%s: dma_threshold '%s' is not a byte count",
				  uri->text, thr_s);
	err = rfm__r2g_map_special(r->fd, phys | RFM2G_DMA_MMAP_OFFSET, size, &r->dma, &what);
	if (err) {
		r->dma = NULL;
		return rfm__r2g_errno(err, what, uri->path);
	}
	r->dma_len = size;
	r->dma_threshold = thr;
	thr32 = (RFM2G_UINT32) thr;
	if (ioctl(r->fd, IOCTL_RFM2G_SET_DMA_THRESHOLD, &thr32) != 0)
		return rfm__r2g_errno(errno, "SET_DMA_THRESHOLD", uri->path);
	return 0;
}

static void unmap_dma(struct r2g_node *r)
{
	if (!r->dma)
		return;
	(void) rfm__r2g_unarm_dma(r->fd, r->dma);	/* closing: nothing to tell */
	munmap(r->dma, r->dma_len);
	r->dma = NULL;
}

/*
 * The card's configuration (GET_CONFIG) into r->cfg, and the size of its
 * window (the PCI window, else the whole memory) into *@window: 0, or an
 * error naming what the driver reported.
 */
static int read_config(struct r2g_node *r, const char *path, size_t *window)
{
	if (ioctl(r->fd, IOCTL_RFM2G_GET_CONFIG, &r->cfg) != 0)
		return rfm__r2g_errno(errno, "GET_CONFIG", path);
	if (r->cfg.NodeId > RFM_NODE_ID_MAX)
		return rfm__error(RFM_EIO, "%s: the driver reports node id %u", path,
				  r->cfg.NodeId);
	*window = r->cfg.PciConfig.rfm2gWindowSize;
	if (!*window || *window > r->cfg.MemorySize)
		*window = r->cfg.MemorySize;
	if (!*window || *window % 4096)
		return rfm__error(RFM_EIO, "%s: the driver reports a window of %zu bytes", path,
				  *window);
	return 0;
}

static int r2g_open(struct rfm_node *node, struct rfm_uri *uri)
{
	struct r2g_node *r;
	size_t window = 0;
	int err;

	if (!uri->path || !*uri->path)
		return rfm__error(RFM_EURI, "%s: rfm2g: needs a device path, e.g. rfm2g:/dev/rfm2g0",
				  uri->text);
	r = calloc(1, sizeof(*r));
	if (!r)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	snprintf(r->path, sizeof(r->path), "%s", uri->path);
	r->fd = rfm__fd_keep_off_std(open(uri->path, O_RDWR | O_CLOEXEC));
	if (r->fd < 0) {
		err = rfm__r2g_errno(errno, "open", uri->path);
		free(r);
		return err;
	}
	err = read_config(r, uri->path, &window);
	if (err)
		goto fail;
	/* An observer shares the card's id, as the vendor's tools do, and reads. */
	r->map = mmap(NULL, window, node->observer ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, 0);
	if (r->map == MAP_FAILED) {
		err = rfm__r2g_errno(errno, "mmap", uri->path);
		goto fail;
	}
	r->map_len = window;
	err = map_dma(r, uri);
	if (!err)
		err = rfm__uri_check_all_used(uri);
	if (err) {
		unmap_dma(r);
		munmap(r->map, r->map_len);
		goto fail;
	}
	rfm__localq_init(&r->q, RFM_EVENT_QUEUE_MIN);
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->dma_lock, NULL);
	node->priv = r;
	node->base = r->map;
	node->size = window;
	node->id = r->cfg.NodeId;
	node->incarnation = 1;
	return 0;
fail:
	close(r->fd);
	free(r);
	return err;
}

/* Ask the waiter thread of @type to end, and join it (lock not held). */
static void stop_waiter(struct r2g_node *r, unsigned int type)
{
	RFM2GEVENTINFO info = { .Event = (RFM2GEVENTTYPE) type };
	pthread_t thread;

	pthread_mutex_lock(&r->lock);
	if (!r->joinable[type] || r->stopping[type]) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	r->stopping[type] = true;
	thread = r->thread[type];
	pthread_mutex_unlock(&r->lock);
	/*
	 * CANCEL_EVENT wakes the board's waiter of that type (EIDRM). Retry
	 * while the thread has not reached its wait yet (ENOSYS: nobody waits).
	 */
	for (;;) {
		bool alive;

		pthread_mutex_lock(&r->lock);
		alive = r->alive[type];
		pthread_mutex_unlock(&r->lock);
		if (!alive)
			break;
		if (ioctl(r->fd, IOCTL_RFM2G_CANCEL_EVENT, &info) != 0 && errno != ENOSYS)
			break;
		sched_yield();
	}
	pthread_join(thread, NULL);
	pthread_mutex_lock(&r->lock);
	r->joinable[type] = false;
	r->stopping[type] = false;
	pthread_mutex_unlock(&r->lock);
}

static void r2g_close(struct rfm_node *node)
{
	struct r2g_node *r = node->priv;

	for (unsigned int t = 0; t < R2G_NET_TYPES; t++)
		stop_waiter(r, t);
	unmap_dma(r);
	munmap(r->map, r->map_len);
	close(r->fd);
	pthread_mutex_destroy(&r->dma_lock);
	pthread_mutex_destroy(&r->lock);
	rfm__localq_destroy(&r->q);
	free(r);
}

static void r2g_get_info(const struct rfm_node *node, struct rfm_node_info *info)
{
	(void) node;
	info->nodes_attached = 0;	/* the card does not know */
}

static void push(struct rfm_node *node, const RFM2GEVENTINFO *info, unsigned int type);

static int r2g_ev_send(struct rfm_node *node, unsigned int to, struct rfm_ev_record *rec)
{
	struct r2g_node *r = node->priv;
	RFM2GEVENTINFO info = {
		.ExtendedInfo = rec->data,
		.Event = (RFM2GEVENTTYPE) rec->type,
		.NodeId = (RFM2G_NODE) (to == RFM_NODE_ALL ? RFM2G_NODE_ALL : to),
	};

	/* Health records (NODE_UP, NODE_DOWN, LINK) the library makes for this
	 * node: the card carries network types only, so they go to this
	 * handle's own queue. */
	if (rec->type > RFM_EVENT_INTR4) {
		if (to != (unsigned int)node->id)
			return rfm__error(RFM_ENOTSUP, "%s: the card carries only network types",
					  node->uri);
		info.NodeId = (RFM2G_NODE)rec->sender;
		push(node, &info, rec->type);
		return 1;
	}
	/* The core has checked the type (0..4): the driver must never see another. */
	if (ioctl(r->fd, IOCTL_RFM2G_SEND_EVENT, &info) != 0)
		return rfm__r2g_errno(errno, "SEND_EVENT", node->uri ? node->uri : "rfm2g");
	return 1;	/* on the fiber; who takes it is not known here */
}

static void push(struct rfm_node *node, const RFM2GEVENTINFO *info, unsigned int type)
{
	struct r2g_node *r = node->priv;

	rfm__localq_push(&r->q, &(struct rfm_ev_record){
		.type = type,
		.sender = info->NodeId,
		.data = info->ExtendedInfo,
	});
}

static void *waiter_thread(void *arg)
{
	struct r2g_waiter w = *(struct r2g_waiter *) arg;
	struct r2g_node *r = w.node->priv;

	free(arg);
	for (;;) {
		RFM2GEVENTINFO info = {
			.Event = (RFM2GEVENTTYPE) w.type,
			.Timeout = 0xFFFFFFFFu,
		};
		bool stop;

		if (ioctl(r->fd, IOCTL_RFM2G_WAIT_FOR_EVENT, &info) == 0) {
			push(w.node, &info, w.type);
			continue;
		}
		pthread_mutex_lock(&r->lock);
		stop = r->stopping[w.type];
		pthread_mutex_unlock(&r->lock);
		if (stop)
			break;
		/* Spurious ends of a wait: go on. Anything else: this thread ends. */
		if (errno == EINTR || errno == ETIMEDOUT || errno == ENOSYS || errno == EIDRM)
			continue;
		break;	/* EALREADY: another handle or process owns this event */
	}
	pthread_mutex_lock(&r->lock);
	r->alive[w.type] = false;
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void start_waiter(struct rfm_node *node, unsigned int type)
{
	struct r2g_node *r = node->priv;
	RFM2GEVENTINFO info = { .Event = (RFM2GEVENTTYPE) type };
	struct r2g_waiter *w;

	if (ioctl(r->fd, IOCTL_RFM2G_ENABLE_EVENT, &info) != 0)
		return;
	/* A thread that ended by itself (EALREADY) is joined before a new one. */
	stop_waiter(r, type);
	w = malloc(sizeof(*w));
	if (!w)
		return;
	w->node = node;
	w->type = type;
	pthread_mutex_lock(&r->lock);
	r->alive[type] = true;
	/* The card's interrupts reach the queue through it: the handle's rt_prio/cpus. */
	r->joinable[type] = rfm__rt_thread_create(node, &r->thread[type], waiter_thread, w,
						  "rfm2g event waiter") == 0;
	if (!r->joinable[type]) {
		r->alive[type] = false;
		free(w);
	}
	pthread_mutex_unlock(&r->lock);
}

static void r2g_ev_set_mask(struct rfm_node *node, uint32_t mask)
{
	struct r2g_node *r = node->priv;
	uint32_t old = rfm__localq_set_mask(&r->q, mask);

	for (unsigned int t = 0; t < R2G_NET_TYPES; t++) {
		uint32_t bit = RFM_EVENT_BIT(t);

		if ((mask & bit) && !(old & bit))
			start_waiter(node, t);
		else if (!(mask & bit) && (old & bit))
			stop_waiter(r, t);	/* the board's enable stays: others may use it */
	}
}

static int r2g_mem_bulk(struct rfm_node *node, uint64_t offset, void *buf, size_t len,
			bool to_window)
{
	struct r2g_node *r = node->priv;
	int ret = 1, err;

	if (!r->dma || len < r->dma_threshold)
		return 0;
	pthread_mutex_lock(&r->dma_lock);
	while (len) {
		size_t n = len < r->dma_len ? len : r->dma_len;

		if (to_window)
			memcpy(r->dma, buf, n);
		err = rfm__r2g_transfer(r->fd, to_window, (uint32_t) offset, r->dma, (uint32_t) n);
		if (err) {
			ret = rfm__r2g_errno(err, to_window ? "WRITE" : "READ", r->path);
			break;
		}
		if (!to_window)
			memcpy(buf, r->dma, n);
		buf = (char *) buf + n;
		offset += n;
		len -= n;
	}
	pthread_mutex_unlock(&r->dma_lock);
	return ret;
}

/* The queue's ops find it first in struct r2g_node. */
_Static_assert(offsetof(struct r2g_node, q) == 0, "the event queue begins an rfm2g: handle");

static const struct rfm_backend_ev_ops r2g_ev_ops = {
	.send = r2g_ev_send,
	.set_mask = r2g_ev_set_mask,
	RFM__LOCALQ_EV_OPS,
};

const struct rfm_backend_ops rfm__rfm2g_ops = {
	.scheme = "rfm2g",
	.caps = RFM__CAP_OBSERVE,
	.open = r2g_open,
	.close = r2g_close,
	.get_info = r2g_get_info,
	.ev = &r2g_ev_ops,
	.mem_bulk = r2g_mem_bulk,
	.board = &rfm__r2g_board_ops,
};
