// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/rfmN: card registration, per-file event queues, and
 * the file operations (mmap, read, poll, ioctl).
 *
 * Lifetime and locking. Removal (rfm_card_unregister) marks the card dead,
 * wakes every sleeper, waits for the card's SRCU read sections and revokes
 * the mappings. Those sections cover only hardware accesses: no user copy
 * and no wait a user controls happens inside one, and ->mmap takes no lock
 * (only the SRCU read side), so nothing a user does can hold removal up.
 * Locks, outermost first:
 *   card->send_lock       one send (or ring test) at a time per card;
 *                         taken killably, before entering the SRCU section;
 *   f->read_lock          serialises the readers of one file (and only
 *                         them) across their copy-out; taken interruptibly;
 *   card->files_lock      the list of open files, their masks and the
 *                         card's queue memory;
 *   f->lock (spin)        one file's queue.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "rfm-core.h"
#include "rfm-evq.h"

#define RFM_MINORS 64
#define RFM_READ_BATCH 32

/*
 * Event queues are kernel memory a user pins by opening files: charged to
 * the opener's memory cgroup and capped per card.
 */
static unsigned int queue_limit_kib = 16384;
module_param(queue_limit_kib, uint, 0644);
MODULE_PARM_DESC(queue_limit_kib,
		 "event-queue memory of all open files of one card, KiB (default 16384); opens and RFM_IOC_SET_QUEUE_DEPTH beyond it fail with ENOSPC");

static dev_t rfm_devt;
static struct class *rfm_class;
static DEFINE_IDA(rfm_minor_ida);

struct rfm_file {
	struct rfm_card *card;
	struct list_head node;		/* on card->files */
	struct address_space *mapping;	/* to revoke mmaps on removal */
	u32 mask;			/* enabled event types */
	spinlock_t lock;		/* protects q */
	struct rfm_evq q;
	wait_queue_head_t wq;
	struct mutex read_lock;		/* one reader copies out at a time */
	u64 queue_bytes;		/* reserved in card->queue_bytes for q.rec */
	struct rfm_dev_event batch[RFM_READ_BATCH];
};

/* ---- cards ---- */

static void rfm_card_release(struct device *dev)
{
	struct rfm_card *card = container_of(dev, struct rfm_card, dev);

	if (card->minor >= 0)
		ida_free(&rfm_minor_ida, card->minor);
	cleanup_srcu_struct(&card->srcu);
	kfree(card);
}

struct rfm_card *rfm_card_alloc(struct device *parent, size_t priv_size)
{
	struct rfm_card *card = kzalloc(sizeof(*card) + priv_size, GFP_KERNEL);

	if (!card)
		return NULL;
	if (init_srcu_struct(&card->srcu)) {
		kfree(card);
		return NULL;
	}
	card->priv = card + 1;
	card->minor = -1;
	device_initialize(&card->dev);
	card->dev.parent = parent;
	card->dev.class = rfm_class;
	card->dev.release = rfm_card_release;
	card->dev.groups = rfm_card_groups;
	mutex_init(&card->send_lock);
	mutex_init(&card->files_lock);
	INIT_LIST_HEAD(&card->files);
	init_waitqueue_head(&card->diag_wq);
	return card;
}

void rfm_card_put(struct rfm_card *card)
{
	put_device(&card->dev);
}

static const struct file_operations rfm_fops;

int rfm_card_register(struct rfm_card *card)
{
	int ret;

	ret = ida_alloc_max(&rfm_minor_ida, RFM_MINORS - 1, GFP_KERNEL);
	if (ret < 0)
		return ret;
	card->minor = ret;
	card->dev.devt = MKDEV(MAJOR(rfm_devt), card->minor);
	ret = dev_set_name(&card->dev, "rfm%d", card->minor);
	if (ret)
		return ret;
	cdev_init(&card->cdev, &rfm_fops);
	card->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&card->cdev, &card->dev);
	if (ret)
		return ret;
	dev_info(&card->dev, "%s card, node %u, window %llu bytes\n",
		 card->card_type == RFM_DEV_CARD_5565 ? "5565" : "virtual (ivshmem)",
		 card->node_id, card->window_size);
	return 0;
}

void rfm_card_unregister(struct rfm_card *card)
{
	struct rfm_file *f;

	cdev_device_del(&card->cdev, &card->dev);

	/* From here on nobody enters the hardware; sleepers wake and leave. */
	WRITE_ONCE(card->dead, true);
	mutex_lock(&card->files_lock);
	list_for_each_entry(f, &card->files, node)
		wake_up_interruptible_poll(&f->wq, EPOLLHUP | EPOLLERR);
	mutex_unlock(&card->files_lock);
	wake_up_all(&card->diag_wq);
	if (card->ops && card->ops->unplug)
		card->ops->unplug(card);

	/* Only hardware accesses (bounded, and cut short by dead) to wait for. */
	synchronize_srcu(&card->srcu);

	/*
	 * Every ->mmap that saw the card alive has finished: revoke all
	 * mappings, later accesses fault (SIGBUS).
	 */
	mutex_lock(&card->files_lock);
	list_for_each_entry(f, &card->files, node)
		if (f->mapping)
			unmap_mapping_range(f->mapping, 0, 0, 1);
	mutex_unlock(&card->files_lock);
}

void rfm_card_deliver(struct rfm_card *card, u32 type, u32 sender, u32 data,
		      u64 sent_ns, u16 flags)
{
	u64 now = ktime_get_ns();
	bool claimed = false;
	struct rfm_file *f;
	unsigned long irqflags;

	bool loopback = flags & RFM_DEV_EVF_LOOPBACK;

	if (!loopback)
		atomic64_inc(&card->stats.rx_events);
	mutex_lock(&card->files_lock);
	list_for_each_entry(f, &card->files, node) {
		if (!(f->mask & RFM_DEV_EV_BIT(type)))
			continue;
		claimed = true;
		spin_lock_irqsave(&f->lock, irqflags);
		rfm_evq_push(&f->q, type, flags, sender, data, sent_ns, now);
		spin_unlock_irqrestore(&f->lock, irqflags);
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	}
	mutex_unlock(&card->files_lock);
	if (!claimed && !loopback)
		atomic64_inc(&card->stats.rx_unclaimed);
}

void rfm_card_diag_ring(struct rfm_card *card)
{
	atomic64_inc(&card->diag_count);
	wake_up_all(&card->diag_wq);
}

/* ---- open / release ---- */

/*
 * What a queue really takes: its storage comes from vmalloc, whole pages
 * (kvmalloc would round a large queue up to a power of two).
 */
static u64 evq_bytes(u32 depth)
{
	return PAGE_ALIGN((u64)(depth + 1) * sizeof(struct rfm_dev_event));
}

static struct rfm_dev_event *evq_storage(u32 depth)
{
	return __vmalloc(evq_bytes(depth), GFP_KERNEL_ACCOUNT | __GFP_ZERO);
}

/* Count @bytes of queue memory against the card's cap (queue_limit_kib). */
static int reserve_queue(struct rfm_card *card, u64 bytes)
{
	u64 limit = (u64)READ_ONCE(queue_limit_kib) << 10;
	int ret = 0;

	mutex_lock(&card->files_lock);
	if (card->queue_bytes + bytes > limit)
		ret = -ENOSPC;
	else
		card->queue_bytes += bytes;
	mutex_unlock(&card->files_lock);
	return ret;
}

static void unreserve_queue(struct rfm_card *card, u64 bytes)
{
	mutex_lock(&card->files_lock);
	card->queue_bytes -= bytes;
	mutex_unlock(&card->files_lock);
}

static int rfm_open(struct inode *inode, struct file *file)
{
	struct rfm_card *card = container_of(inode->i_cdev, struct rfm_card, cdev);
	u64 bytes = evq_bytes(RFM_DEV_QUEUE_DEFAULT);
	struct rfm_dev_event *storage;
	struct rfm_file *f;
	int ret;

	ret = reserve_queue(card, bytes);
	if (ret)
		return ret;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	storage = evq_storage(RFM_DEV_QUEUE_DEFAULT);
	if (!f || !storage) {
		ret = -ENOMEM;
		goto err;
	}
	f->card = card;
	f->mapping = file->f_mapping;
	f->queue_bytes = bytes;
	spin_lock_init(&f->lock);
	init_waitqueue_head(&f->wq);
	mutex_init(&f->read_lock);
	rfm_evq_init(&f->q, storage, RFM_DEV_QUEUE_DEFAULT);

	/* Under files_lock: removal either sees this file or we see it dead. */
	mutex_lock(&card->files_lock);
	if (card->dead) {
		mutex_unlock(&card->files_lock);
		ret = -ENODEV;
		goto err;
	}
	get_device(&card->dev);
	list_add_tail(&f->node, &card->files);
	mutex_unlock(&card->files_lock);

	file->private_data = f;
	/* No file position: lseek fails with ESPIPE (no_llseek is gone in 6.12). */
	return stream_open(inode, file);

err:
	unreserve_queue(card, bytes);
	vfree(storage);
	kfree(f);
	return ret;
}

/* Tell the card driver which status events some file still wants. */
static void update_card_mask(struct rfm_card *card)
{
	struct rfm_file *f;
	u32 mask = 0;
	int idx;

	if (!card->ops->set_mask)
		return;
	mutex_lock(&card->files_lock);
	list_for_each_entry(f, &card->files, node)
		mask |= f->mask;
	mutex_unlock(&card->files_lock);
	idx = rfm_card_enter(card);
	if (!rfm_card_gone(card))
		card->ops->set_mask(card, mask);
	rfm_card_exit(card, idx);
}

static int rfm_release(struct inode *inode, struct file *file)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;

	mutex_lock(&card->files_lock);
	list_del(&f->node);
	card->queue_bytes -= f->queue_bytes;
	mutex_unlock(&card->files_lock);
	if (f->mask)
		update_card_mask(card);

	vfree(f->q.rec);
	kfree(f);
	put_device(&card->dev);
	return 0;
}

/* ---- read / poll ---- */

static bool has_records(struct rfm_file *f)
{
	unsigned long irqflags;
	bool ret;

	spin_lock_irqsave(&f->lock, irqflags);
	ret = !rfm_evq_empty(&f->q);
	spin_unlock_irqrestore(&f->lock, irqflags);
	return ret;
}

/*
 * Consume the @n records a reader copied, unless FLUSH (or a resize)
 * removed them meanwhile: then the queue's oldest record is another one.
 */
static void consume_copied(struct rfm_file *f, u32 n)
{
	struct rfm_dev_event oldest;

	spin_lock_irq(&f->lock);
	if (rfm_evq_peek(&f->q, &oldest, 1) == 1 && oldest.seq == f->batch[0].seq)
		rfm_evq_consume(&f->q, f->batch, n);
	spin_unlock_irq(&f->lock);
}

/*
 * Copy out records without losing any: peek, copy, then consume. The wait
 * holds no lock; read_lock keeps only this file's other readers out while
 * records are copied (FLUSH and resizing do not take it).
 */
static ssize_t rfm_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;
	const size_t rec = sizeof(struct rfm_dev_event);
	size_t done = 0;
	int ret;

	if (count < rec)
		return -EINVAL;
	for (;;) {
		while (!has_records(f)) {
			if (rfm_card_gone(card))
				return -ENODEV;
			if (file->f_flags & O_NONBLOCK)
				return -EAGAIN;
			ret = wait_event_interruptible(f->wq, has_records(f) || rfm_card_gone(card));
			if (ret)
				return ret;
		}
		if (mutex_lock_interruptible(&f->read_lock))
			return -ERESTARTSYS;
		if (has_records(f))
			break;
		/* Another reader took them. */
		mutex_unlock(&f->read_lock);
	}

	ret = 0;
	while (count - done >= rec) {
		u32 want = min_t(size_t, (count - done) / rec, RFM_READ_BATCH);
		u32 n;

		spin_lock_irq(&f->lock);
		n = rfm_evq_peek(&f->q, f->batch, want);
		spin_unlock_irq(&f->lock);
		if (!n)
			break;
		if (copy_to_user(buf + done, f->batch, n * rec)) {
			ret = -EFAULT;
			break;
		}
		consume_copied(f, n);
		done += n * rec;
	}
	mutex_unlock(&f->read_lock);
	return done ? (ssize_t)done : ret;
}

static __poll_t rfm_poll(struct file *file, poll_table *wait)
{
	struct rfm_file *f = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &f->wq, wait);
	if (has_records(f))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(f->card->dead))
		mask |= EPOLLHUP | EPOLLERR;
	return mask;
}

/* ---- mmap ---- */

static int rfm_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 pages = card->window_size >> PAGE_SHIFT;
	int ret, idx;
	u64 off;

	/*
	 * VM_MAYSHARE, not VM_SHARED: the kernel clears VM_SHARED on a
	 * MAP_SHARED mapping of a file opened read-only.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;	/* a private copy of reflective memory means nothing */
	if (!(file->f_mode & FMODE_WRITE)) {
		/* A read-only open never writes the network, not even after mprotect. */
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
#ifdef RFM_HAVE_VM_FLAGS_SET
		vm_flags_clear(vma, VM_MAYWRITE);
#else
		vma->vm_flags &= ~VM_MAYWRITE;
#endif
	}
	if (vma->vm_pgoff >= pages || (len >> PAGE_SHIFT) > pages - vma->vm_pgoff)
		return -EINVAL;
	off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (card->caps & RFM_DEV_CAP_UNCACHED)
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
#ifdef RFM_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
#else
	vma->vm_flags |= VM_IO | VM_DONTEXPAND | VM_DONTDUMP;
#endif
	/*
	 * No lock (mmap_lock is held): the SRCU read side only makes removal
	 * revoke mappings after this one exists.
	 */
	idx = rfm_card_enter(card);
	if (rfm_card_gone(card))
		ret = -ENODEV;
	else
		ret = io_remap_pfn_range(vma, vma->vm_start,
					 (card->window_phys + off) >> PAGE_SHIFT,
					 len, vma->vm_page_prot);
	rfm_card_exit(card, idx);
	return ret;
}

/* ---- ioctl ---- */

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
	update_card_mask(card);
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
	bytes = evq_bytes(depth);
	ret = reserve_queue(card, bytes);
	if (ret)
		return ret;
	storage = evq_storage(depth);
	if (!storage) {
		unreserve_queue(card, bytes);
		return -ENOMEM;
	}
	spin_lock_irq(&f->lock);
	if (!rfm_evq_empty(&f->q)) {
		ret = -EBUSY;	/* read or flush the queue first */
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
				(u64)atomic64_read(&card->diag_count) != w.count ||
				rfm_card_gone(card),
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

static long rfm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
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

static const struct file_operations rfm_fops = {
	.owner = THIS_MODULE,
	.open = rfm_open,
	.release = rfm_release,
	.read = rfm_read,
	.poll = rfm_poll,
	.mmap = rfm_mmap,
	.unlocked_ioctl = rfm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

int rfm_chrdev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&rfm_devt, 0, RFM_MINORS, RFM_DRIVER_NAME);
	if (ret)
		return ret;
#ifdef RFM_HAVE_CLASS_CREATE_NAME
	rfm_class = class_create(RFM_DRIVER_NAME);
#else
	rfm_class = class_create(THIS_MODULE, RFM_DRIVER_NAME);
#endif
	if (IS_ERR(rfm_class)) {
		unregister_chrdev_region(rfm_devt, RFM_MINORS);
		return PTR_ERR(rfm_class);
	}
	return 0;
}

void rfm_chrdev_exit(void)
{
	class_destroy(rfm_class);
	unregister_chrdev_region(rfm_devt, RFM_MINORS);
}
