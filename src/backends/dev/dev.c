/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dev: backend: librfm's own kernel driver (rfm.ko), one character
 * device /dev/rfmN per card (5565 or QEMU ivshmem virtual card), reached
 * through include/rfm/uapi/rfm_dev.h. Memory is the device's mapping;
 * bulk reads and writes above a threshold go through RFM_IOC_DMA; events
 * are in dev-events.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "backends/dev/dev-internal.h"

/* Default bulk threshold on cards with a DMA engine: below it the CPU
 * copy through the mapping is cheaper than setting up a transfer. */
#define DEV_DMA_DEFAULT_MIN (64u * 1024)

struct dev_params {
	uint64_t dma_min;	/* UINT64_MAX: never; 0: not given */
	bool dma_given;
	uint32_t depth;		/* 0: driver default */
};

static int parse_params(struct rfm_uri *uri, struct dev_params *p)
{
	const char *v;
	uint64_t n;

	memset(p, 0, sizeof(*p));
	if ((v = rfm__uri_take(uri, "dma"))) {
		if (rfm__parse_size(v, &n))
			return rfm__error(RFM_EURI,
					  "%s: dma '%s' must be a byte count (bulk threshold; 0 = never)",
					  uri->text, v);
		p->dma_given = true;
		p->dma_min = n ? n : UINT64_MAX;
	}
	if ((v = rfm__uri_take(uri, "depth"))) {
		if (rfm__parse_u64(v, &n) || n < RFM_EVENT_QUEUE_MIN || n > RFM_DEV_QUEUE_MAX)
			return rfm__error(RFM_EURI, "%s: depth '%s' must be %u..%u records",
					  uri->text, v, RFM_EVENT_QUEUE_MIN, RFM_DEV_QUEUE_MAX);
		p->depth = (uint32_t)n;
	}
	return rfm__uri_check_all_used(uri);
}

static int check_path(const struct rfm_uri *uri)
{
	size_t len = strlen(uri->path);

	if (!len)
		return rfm__error(RFM_EURI, "%s: no device path (expected dev:/dev/rfm0)", uri->text);
	if (uri->path[0] != '/')
		return rfm__error(RFM_EURI, "%s: the device path '%s' must be absolute (dev:/dev/rfm0)",
				  uri->text, uri->path);
	if (len >= PATH_MAX)
		return rfm__error(RFM_EURI, "%s: the device path is too long", uri->text);
	return 0;
}

static int open_error(const struct rfm_uri *uri, int err)
{
	switch (err) {
	case ENOENT:
		return rfm__error(RFM_ENOENT, "%s: no device %s (is rfm.ko loaded?)", uri->text,
				  uri->path);
	case ENXIO:
	case ENODEV:
		return rfm__error(RFM_ENOENT, "%s: device %s has no card behind it", uri->text,
				  uri->path);
	case EACCES:
	case EPERM:
	case EROFS:
		return rfm__error(RFM_EPERM,
				  "%s: no permission to open %s read-write (see driver/README.md for a "
				  "udev rule)",
				  uri->text, uri->path);
	case EISDIR:
	case ENOTDIR:
		return rfm__error(RFM_EVERSION, "%s: %s is not an rfm device", uri->text, uri->path);
	default:
		return rfm__error(rfm__errno_code(err), "%s: opening %s: %s", uri->text, uri->path,
				  strerror(err));
	}
}

/*
 * Before opening read-write: the path must be a character device of
 * rfm.ko's class, as sysfs tells. Opening some other device (a watchdog,
 * a tty) can have effects of its own, so a wrong path must not get that
 * far. Without sysfs (some containers) the check is left to the ioctl.
 */
static int check_device(const struct rfm_uri *uri)
{
	char link[64], target[256];
	const char *class;
	struct stat st;
	ssize_t n;

	if (stat(uri->path, &st) < 0)
		return open_error(uri, errno);
	if (!S_ISCHR(st.st_mode))
		return rfm__error(RFM_EVERSION, "%s: %s is not a character device, not an rfm.ko device",
				  uri->text, uri->path);
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/subsystem", major(st.st_rdev),
		 minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		if (access("/sys/dev/char", F_OK) < 0)
			return 0; /* no sysfs here */
		return rfm__error(RFM_EVERSION, "%s: %s belongs to no device class, not an rfm.ko device",
				  uri->text, uri->path);
	}
	target[n] = '\0';
	class = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	if (strcmp(class, "rfm"))
		return rfm__error(RFM_EVERSION, "%s: %s is a '%s' device, not an rfm.ko device",
				  uri->text, uri->path, class);
	return 0;
}

/* Ask the driver who it is; anything unexpected means "not our device". */
static int identify(const struct rfm_uri *uri, int fd, struct rfm_dev_info *info)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return rfm__error(rfm__errno_code(errno), "%s: fstat: %s", uri->text, strerror(errno));
	if (!S_ISCHR(st.st_mode))
		return rfm__error(RFM_EVERSION, "%s: %s is not a character device, not an rfm.ko device",
				  uri->text, uri->path);
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, RFM_IOC_GET_INFO, info) < 0) {
		if (errno == ENODEV)
			return rfm__error(RFM_ENOENT, "%s: the card behind %s was removed", uri->text,
					  uri->path);
		return rfm__error(RFM_EVERSION,
				  "%s: %s does not answer RFM_IOC_GET_INFO (%s): not an rfm.ko device "
				  "or a driver of another interface version",
				  uri->text, uri->path, strerror(errno));
	}
	if (info->abi_version != RFM_DEV_ABI_VERSION)
		return rfm__error(RFM_EVERSION,
				  "%s: the driver speaks interface version %u, this librfm %u",
				  uri->text, info->abi_version, RFM_DEV_ABI_VERSION);
	if (info->event_size != sizeof(struct rfm_dev_event))
		return rfm__error(RFM_EVERSION, "%s: the driver's event records are %u bytes, not %zu",
				  uri->text, info->event_size, sizeof(struct rfm_dev_event));
	if (info->node_id > RFM_NODE_ID_MAX || info->max_nodes == 0 ||
	    info->max_nodes > RFM_MAX_NODES || info->node_id >= info->max_nodes)
		return rfm__error(RFM_ECORRUPT, "%s: the driver reports node id %u of %u nodes",
				  uri->text, info->node_id, info->max_nodes);
	if (!info->window_size || info->window_size > SIZE_MAX ||
	    info->window_size % (uint64_t)sysconf(_SC_PAGESIZE))
		return rfm__error(RFM_ESIZE, "%s: the driver reports a window of %llu bytes",
				  uri->text, (unsigned long long)info->window_size);
	return 0;
}

/*
 * Map the card's window (@dev->info says how big) and name the handle's
 * URI: 0, or the error with nothing left mapped.
 */
static int map_window(struct rfm_node *node, struct rfm_uri *uri, struct dev_node *dev,
		      void **basep)
{
	/* An observer shares the card's id (as the vendor's tools do) and reads:
	 * its mapping cannot write either. */
	void *base = mmap(NULL, (size_t)dev->info.window_size,
			  node->observer ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED,
			  dev->fd, 0);

	if (base == MAP_FAILED)
		return rfm__error(rfm__errno_code(errno), "%s: mapping the %llu-byte window: %s",
				  uri->text, (unsigned long long)dev->info.window_size,
				  strerror(errno));
	if (asprintf(&node->uri, "dev:%s", uri->path) < 0) {
		node->uri = NULL;
		munmap(base, (size_t)dev->info.window_size);
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	}
	*basep = base;
	return 0;
}

static int dev_open_node(struct rfm_node *node, struct rfm_uri *uri)
{
	struct dev_params params;
	struct dev_node *dev;
	void *base = NULL;
	int ret;

	ret = check_path(uri);
	if (!ret)
		ret = parse_params(uri, &params);
	if (!ret)
		ret = check_device(uri);
	if (ret)
		return ret;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return rfm__error(RFM_ENOMEM, "%s: out of memory", uri->text);
	dev->fd = rfm__fd_keep_off_std(open(uri->path, O_RDWR | O_CLOEXEC | O_NONBLOCK));
	if (dev->fd < 0) {
		ret = open_error(uri, errno);
		goto err_free;
	}
	ret = identify(uri, dev->fd, &dev->info);
	if (ret)
		goto err_close;
	ret = map_window(node, uri, dev, &base);
	if (ret)
		goto err_close;
	dev->want_depth = params.depth;
	pthread_mutex_init(&dev->sleep_lock, NULL);
	pthread_mutex_init(&dev->local_lock, NULL);
	node->base = base;
	node->size = dev->info.window_size;
	node->id = (int)dev->info.node_id;
	node->incarnation = 1;
	node->priv = dev;
	if (params.dma_given)
		dev->bulk_min = params.dma_min;
	else if (dev->info.caps & RFM_DEV_CAP_DMA)
		dev->bulk_min = DEV_DMA_DEFAULT_MIN;
	else
		dev->bulk_min = UINT64_MAX;
	return 0;

err_close:
	close(dev->fd);
err_free:
	free(dev);
	return ret;
}

static void dev_close_node(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;

	munmap(node->base, (size_t)node->size);
	if (dev->fd >= 0)
		close(dev->fd);
	pthread_mutex_destroy(&dev->sleep_lock);
	pthread_mutex_destroy(&dev->local_lock);
	free(dev->buf);
	free(dev);
	node->priv = NULL;
}

static void dev_get_info(const struct rfm_node *node, struct rfm_node_info *info)
{
	const struct dev_node *dev = node->priv;

	info->max_nodes = dev->info.max_nodes;
	info->nodes_attached = 0; /* the card does not know */
}

/* The card's status now (GET_INFO reads LCSR on a 5565), as RFM_LINK_*. */
static uint32_t dev_link_status(struct rfm_node *node)
{
	struct dev_node *dev = node->priv;
	struct rfm_dev_info info;
	uint32_t l, link = RFM_LINK_KNOWN;

	memset(&info, 0, sizeof(info));
	if (ioctl(dev->fd, RFM_IOC_GET_INFO, &info) < 0)
		return RFM_LINK_KNOWN; /* the card is gone: no signal */
	l = info.link;
	if (l & RFM_DEV_LINK_SIGNAL)
		link |= RFM_LINK_SIGNAL;
	if (l & RFM_DEV_LINK_SYNC_LOST)
		link |= RFM_LINK_SYNC_LOST;
	if (l & RFM_DEV_LINK_OWN_DATA)
		link |= RFM_LINK_OWN_DATA;
	if (l & RFM_DEV_LINK_BAD_DATA)
		link |= RFM_LINK_BAD_DATA;
	if (l & RFM_DEV_LINK_RXFIFO_FULL)
		link |= RFM_LINK_RXFIFO_FULL;
	return link;
}

/* rfm_mem_read/write of bulk_min bytes and more: RFM_IOC_DMA (1), else
 * the core copies through the mapping (0). */
static int dev_mem_bulk(struct rfm_node *node, uint64_t offset, void *buf, size_t len,
			bool to_window)
{
	struct dev_node *dev = node->priv;

	if (len < dev->bulk_min)
		return 0;
	struct rfm_dev_dma dma = {
		.offset = offset,
		.length = len,
		.buf = (uint64_t)(uintptr_t)buf,
		.dir = to_window ? RFM_DEV_DMA_TO_CARD : RFM_DEV_DMA_FROM_CARD,
	};

	for (;;) {
		int moved = ioctl(dev->fd, RFM_IOC_DMA, &dma);

		if (moved == 0)
			return 1;
		if (moved > 0) {
			/* A signal ended it after @moved bytes: go on from there. */
			dma.offset += (uint64_t)moved;
			dma.buf += (uint64_t)moved;
			dma.length -= (uint64_t)moved;
			continue;
		}
		if (errno != EINTR)
			return rfm__dev_sys_error(node,
						  to_window ? "rfm_mem_write (DMA)"
							    : "rfm_mem_read (DMA)",
						  errno);
	}
}

const struct rfm_backend_ops rfm__dev_ops = {
	.scheme = "dev",
	.caps = RFM__CAP_OBSERVE,
	.open = dev_open_node,
	.close = dev_close_node,
	.get_info = dev_get_info,
	.link_status = dev_link_status,
	/* No .forget: the card, not the descriptor, holds the node id. A
	 * fork()ed child keeps the descriptor, so it can still send; the core
	 * refuses it the parent's queue, and its close only drops its copy. */
	.ev = &rfm__dev_ev_ops,
	.mem_bulk = dev_mem_bulk,
};
