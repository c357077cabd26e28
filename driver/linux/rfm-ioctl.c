// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl requests of /dev/rfmN: each checked whole (type, number,
 * direction, size), write-class ones only on files open for writing; user
 * memory is copied outside the card's SRCU section (rfm-cdev.c explains
 * the lifetime rules).
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "rfm-core.h"
#include "rfm-evq.h"
#include "rfm-file.h"

/* Fill a user structure of @usize bytes from @k (@ksize bytes). */
static int copy_out(void __user *uptr, size_t usize, const void *k, size_t ksize)
{
	if (copy_to_user(uptr, k, min(usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(uptr + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

static int ioc_get_info(struct rfm_file *f, void __user *argp, size_t usize)
{
	struct rfm_card *card = f->card;
	struct rfm_dev_info info = {
		.abi_version = RFM_DEV_ABI_VERSION,
		.card_type = card->card_type,
		.node_id = card->node_id,
		.max_nodes = card->max_nodes,
		.window_size = card->window_size,
		.memory_size = card->memory_size,
		.caps = card->caps,
		.event_size = sizeof(struct rfm_dev_event),
		.board_id = card->board_id,
		.board_revision = card->board_revision,
	};
	int idx;

	spin_lock_irq(&f->lock);
	info.queue_depth = f->q.depth;
	spin_unlock_irq(&f->lock);
	strscpy(info.driver_version, RFM_DRIVER_VERSION, sizeof(info.driver_version));
	if (card->ops->link) {
		idx = rfm_card_enter(card);
		if (rfm_card_gone(card)) {
			rfm_card_exit(card, idx);
			return -ENODEV;
		}
		info.link = card->ops->link(card);
		rfm_card_exit(card, idx);
	}
	return copy_out(argp, usize, &info, sizeof(info));
}

/* Hand @type to the card driver: one sender at a time, inside the card. */
static int card_send(struct rfm_card *card, u32 type, u32 target, u32 data, u64 now)
{
	int ret, idx;

	if (mutex_lock_killable(&card->send_lock))
		return -EINTR;
	idx = rfm_card_enter(card);
	ret = rfm_card_gone(card) ? -ENODEV : card->ops->send(card, type, target, data, now);
	rfm_card_exit(card, idx);
	mutex_unlock(&card->send_lock);
	return ret;
}

static int ioc_send(struct rfm_file *f, void __user *argp, size_t usize)
{
	struct rfm_card *card = f->card;
	struct rfm_dev_send s;
	bool local, remote;
	u64 now;
	int ret;

	ret = copy_struct_from_user(&s, sizeof(s), argp, usize);
	if (ret)
		return ret;
	if (s.type > RFM_DEV_EV_MAX || !(RFM_DEV_SENDABLE_MASK & RFM_DEV_EV_BIT(s.type)))
		return -EINVAL;
	if (s.flags & ~RFM_DEV_SEND_LOOPBACK)
		return -EINVAL;
	if (s.target != RFM_DEV_NODE_ALL && s.target >= card->max_nodes)
		return -EINVAL;
	local = s.flags & RFM_DEV_SEND_LOOPBACK;
	if (s.target == card->node_id && !local)
		return -EINVAL;	/* to ourselves only with loopback */
	remote = s.target != card->node_id;

	now = ktime_get_ns();
	if (remote) {
		ret = card_send(card, s.type, s.target, s.data, now);
		if (ret)
			return ret;
		atomic64_inc(&card->stats.tx_events);
	}
	if (local)
		rfm_card_deliver(card, s.type, card->node_id, s.data, now, RFM_DEV_EVF_LOOPBACK);
	return 0;
}

static int ioc_set_mask(struct rfm_file *f, u32 __user *argp)
{
	struct rfm_card *card = f->card;
	u32 mask;

	if (get_user(mask, argp))
		return -EFAULT;
	if (mask & ~RFM_DEV_MASK_ALL)
		return -EINVAL;
	mutex_lock(&card->files_lock);
	f->mask = mask;
	mutex_unlock(&card->files_lock);
	/* Also re-arms status events that disabled themselves. */
	rfm_card_update_mask(card);
	return 0;
}

/* Nothing else waits: a blocked reader holds up neither resizing nor FLUSH. */
static int ioc_set_queue_depth(struct rfm_file *f, u32 __user *argp)
{
	struct rfm_card *card = f->card;
	struct rfm_dev_event *storage, *old = NULL;
	u64 bytes, old_bytes = 0;
	struct rfm_evq q;
	u32 depth;
	int ret = 0;

	if (get_user(depth, argp))
		return -EFAULT;
	if (depth < RFM_DEV_QUEUE_MIN || depth > RFM_DEV_QUEUE_MAX)
		return -EINVAL;
	bytes = rfm_evq_bytes(depth);
	ret = rfm_queue_reserve(card, bytes);
	if (ret)
		return ret;
	storage = rfm_evq_storage(depth);
	if (!storage) {
		rfm_queue_unreserve(card, bytes);
		return -ENOMEM;
	}
	spin_lock_irq(&f->lock);
	if (!rfm_evq_idle(&f->q)) {
		/* Read or flush the queue first; a reader's copy still out counts. */
		ret = -EBUSY;
	} else {
		q = f->q;
		old = q.rec;
		rfm_evq_init(&f->q, storage, depth);
		f->q.next_seq = q.next_seq;
		f->q.queued = q.queued;
		f->q.dropped = q.dropped;
		f->q.overflows = q.overflows;
	}
	spin_unlock_irq(&f->lock);
	mutex_lock(&card->files_lock);
	if (ret) {
		card->queue_bytes -= bytes;
	} else {
		old_bytes = f->queue_bytes;
		f->queue_bytes = bytes;
		card->queue_bytes -= old_bytes;
	}
	mutex_unlock(&card->files_lock);
	vfree(ret ? storage : old);
	return ret;
}

static int ioc_flush(struct rfm_file *f)
{
	/* A reader between copy and consume notices (consume_copied). */
	spin_lock_irq(&f->lock);
	rfm_evq_flush(&f->q);
	spin_unlock_irq(&f->lock);
	return 0;
}

static int ioc_get_counters(struct rfm_file *f, void __user *argp, size_t usize)
{
	struct rfm_card_stats *st = &f->card->stats;
	struct rfm_dev_counters c = {
		.tx_events = atomic64_read(&st->tx_events),
		.rx_events = atomic64_read(&st->rx_events),
		.rx_unclaimed = atomic64_read(&st->rx_unclaimed),
		.irqs = atomic64_read(&st->irqs),
		.tx_timeouts = atomic64_read(&st->tx_timeouts),
		.mailbox_errors = atomic64_read(&st->mailbox_errors),
		.dma_bytes = atomic64_read(&st->dma_bytes),
		.dma_errors = atomic64_read(&st->dma_errors),
	};

	spin_lock_irq(&f->lock);
	c.file_queued = f->q.queued;
	c.file_dropped = f->q.dropped;
	c.file_overflows = f->q.overflows;
	spin_unlock_irq(&f->lock);
	return copy_out(argp, usize, &c, sizeof(c));
}

/*
 * 0 when every byte moved; the number of bytes moved when a signal or a
 * fault ended the transfer after some progress; else -errno.
 */
static long ioc_dma(struct rfm_file *f, fmode_t mode, void __user *argp, size_t usize)
{
	struct rfm_card *card = f->card;
	struct rfm_dev_dma d;
	long ret;

	ret = copy_struct_from_user(&d, sizeof(d), argp, usize);
	if (ret)
		return ret;
	if (d.flags || (d.dir != RFM_DEV_DMA_TO_CARD && d.dir != RFM_DEV_DMA_FROM_CARD))
		return -EINVAL;
	if (d.dir == RFM_DEV_DMA_TO_CARD && !(mode & FMODE_WRITE))
		return -EBADF;	/* a read-only open never writes the network */
	if (d.offset > card->window_size || d.length > card->window_size - d.offset)
		return -EINVAL;
	if (!d.length)
		return 0;
	if (!card->ops->dma)
		return -EOPNOTSUPP;
	ret = card->ops->dma(card, d.dir == RFM_DEV_DMA_TO_CARD, d.offset,
			     u64_to_user_ptr(d.buf), d.length);
	if (ret < 0) {
		atomic64_inc(&card->stats.dma_errors);
		return ret;
	}
	atomic64_add(ret ? ret : d.length, &card->stats.dma_bytes);
	return ret;
}

static int ioc_ring_test(struct rfm_card *card)
{
	int ret, idx;

	if (!card->ops->ring_test)
		return -EOPNOTSUPP;
	if (mutex_lock_killable(&card->send_lock))
		return -EINTR;
	idx = rfm_card_enter(card);
	ret = rfm_card_gone(card) ? -ENODEV : card->ops->ring_test(card);
	rfm_card_exit(card, idx);
	mutex_unlock(&card->send_lock);
	return ret;
}

static int ioc_diag_kick(struct rfm_file *f, u32 __user *argp)
{
	struct rfm_card *card = f->card;
	u32 target;
	int ret, idx;

	if (get_user(target, argp))
		return -EFAULT;
	if (!card->ops->diag_kick)
		return -EOPNOTSUPP;
	if (target >= card->max_nodes)
		return -EINVAL;
	idx = rfm_card_enter(card);
	ret = rfm_card_gone(card) ? -ENODEV : card->ops->diag_kick(card, target);
	rfm_card_exit(card, idx);
	return ret;
}

static int ioc_diag_wait(struct rfm_file *f, void __user *argp, size_t usize)
{
	struct rfm_card *card = f->card;
	struct rfm_dev_diag_wait w;
	long left;
	int ret;

	ret = copy_struct_from_user(&w, sizeof(w), argp, usize);
	if (ret)
		return ret;
	if (w.reserved)
		return -EINVAL;
	if (!(card->caps & RFM_DEV_CAP_DIAG_DOORBELL))
		return -EOPNOTSUPP;
	if (w.timeout_ms && (u64)atomic64_read(&card->diag_count) == w.count) {
		left = wait_event_interruptible_timeout(card->diag_wq,
							(u64)atomic64_read(&card->diag_count) !=
							w.count || rfm_card_gone(card),
							msecs_to_jiffies(w.timeout_ms));
		if (left < 0)
			return (int)left;
	}
	if (rfm_card_gone(card))
		return -ENODEV;
	ret = (u64)atomic64_read(&card->diag_count) == w.count ? -ETIMEDOUT : 0;
	w.count = atomic64_read(&card->diag_count);
	if (copy_out(argp, usize, &w, sizeof(w)))
		return -EFAULT;
	return ret;
}

/* How a request's size may differ from the structure it was defined with. */
enum rfm_ioc_size {
	RFM_IOC_EXACT,		/* fixed: exactly this size */
	RFM_IOC_EXTENSIBLE,	/* at least the first published size, at most a page */
};

/*
 * The whole request is checked: type, number, direction, and size (exact
 * for fixed arguments; for extensible structures at least the first
 * published size and at most a page).
 */
static bool cmd_ok(unsigned int cmd, unsigned int ours, enum rfm_ioc_size kind)
{
	size_t size = _IOC_SIZE(cmd), want = _IOC_SIZE(ours);

	if (_IOC_TYPE(cmd) != _IOC_TYPE(ours) || _IOC_NR(cmd) != _IOC_NR(ours) ||
	    _IOC_DIR(cmd) != _IOC_DIR(ours))
		return false;
	if (kind == RFM_IOC_EXACT)
		return size == want;
	return size >= want && size <= PAGE_SIZE;
}

/*
 * Every request: its canonical encoding, how its size may vary, and
 * whether it acts on the network or the card (a file open for writing).
 */
struct rfm_ioc_desc {
	unsigned int cmd;
	enum rfm_ioc_size kind;
	bool needs_write;
};

static const struct rfm_ioc_desc rfm_iocs[] = {
	{ RFM_IOC_GET_INFO, RFM_IOC_EXTENSIBLE, false },
	{ RFM_IOC_SEND, RFM_IOC_EXTENSIBLE, true },
	{ RFM_IOC_SET_MASK, RFM_IOC_EXACT, false },
	{ RFM_IOC_GET_MASK, RFM_IOC_EXACT, false },
	{ RFM_IOC_SET_QUEUE_DEPTH, RFM_IOC_EXACT, false },
	{ RFM_IOC_FLUSH, RFM_IOC_EXACT, false },
	{ RFM_IOC_GET_COUNTERS, RFM_IOC_EXTENSIBLE, false },
	{ RFM_IOC_DMA, RFM_IOC_EXTENSIBLE, false },	/* checked per direction */
	{ RFM_IOC_RING_TEST, RFM_IOC_EXACT, true },
	{ RFM_IOC_DIAG_KICK, RFM_IOC_EXACT, true },
	{ RFM_IOC_DIAG_WAIT, RFM_IOC_EXTENSIBLE, false },
};

static const struct rfm_ioc_desc *find_ioc(unsigned int cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rfm_iocs); i++)
		if (cmd_ok(cmd, rfm_iocs[i].cmd, rfm_iocs[i].kind))
			return &rfm_iocs[i];
	return NULL;
}

long rfm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;
	void __user *argp = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);
	const struct rfm_ioc_desc *d;

	d = find_ioc(cmd);
	if (!d)
		return -ENOTTY;
	if (rfm_card_gone(card))
		return -ENODEV;
	if (d->needs_write && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	switch (d->cmd) {
	case RFM_IOC_GET_INFO:
		return ioc_get_info(f, argp, usize);
	case RFM_IOC_SEND:
		return ioc_send(f, argp, usize);
	case RFM_IOC_SET_MASK:
		return ioc_set_mask(f, argp);
	case RFM_IOC_GET_MASK:
		return put_user(f->mask, (u32 __user *)argp);
	case RFM_IOC_SET_QUEUE_DEPTH:
		return ioc_set_queue_depth(f, argp);
	case RFM_IOC_FLUSH:
		return ioc_flush(f);
	case RFM_IOC_GET_COUNTERS:
		return ioc_get_counters(f, argp, usize);
	case RFM_IOC_DMA:
		return ioc_dma(f, file->f_mode, argp, usize);
	case RFM_IOC_RING_TEST:
		return ioc_ring_test(card);
	case RFM_IOC_DIAG_KICK:
		return ioc_diag_kick(f, argp);
	case RFM_IOC_DIAG_WAIT:
		return ioc_diag_wait(f, argp, usize);
	}
	return -ENOTTY;
}

