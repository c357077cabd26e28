// SPDX-License-Identifier: GPL-2.0
/*
 * rfm-cdev.c - /dev/rfmN: card registration, per-file event queues, and
 * the file operations (mmap, read, poll, ioctl).
 *
 * Locking, outermost first:
 *   card->hw_sem (read)   held by every file operation that reaches the
 *                         card driver, so removal (write) waits for them;
 *   card->send_lock       one send at a time per card;
 *   card->files_lock      the list of open files and their masks;
 *   file->lock (spin)     one file's queue.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "rfm-core.h"
#include "rfm-evq.h"

#define RFM_MINORS 64
#define RFM_READ_BATCH 32

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
	struct rfm_dev_event batch[RFM_READ_BATCH];
};

/* ---- cards ---- */

static void rfm_card_release(struct device *dev)
{
	struct rfm_card *card = container_of(dev, struct rfm_card, dev);

	if (card->minor >= 0)
		ida_free(&rfm_minor_ida, card->minor);
	kfree(card);
}

struct rfm_card *rfm_card_alloc(struct device *parent, size_t priv_size)
{
	struct rfm_card *card = kzalloc(sizeof(*card) + priv_size, GFP_KERNEL);

	if (!card)
		return NULL;
	card->priv = card + 1;
	card->minor = -1;
	device_initialize(&card->dev);
	card->dev.parent = parent;
	card->dev.class = rfm_class;
	card->dev.release = rfm_card_release;
	init_rwsem(&card->hw_sem);
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

	down_write(&card->hw_sem);
	card->dead = true;
	up_write(&card->hw_sem);

	mutex_lock(&card->files_lock);
	list_for_each_entry(f, &card->files, node) {
		/* The window goes away with the device: later accesses fault. */
		if (f->mapping)
			unmap_mapping_range(f->mapping, 0, 0, 1);
		wake_up_interruptible_poll(&f->wq, EPOLLHUP | EPOLLERR);
	}
	mutex_unlock(&card->files_lock);
	wake_up_all(&card->diag_wq);
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

static struct rfm_dev_event *evq_storage(u32 depth)
{
	return kvcalloc(depth + 1, sizeof(struct rfm_dev_event), GFP_KERNEL);
}

static int rfm_open(struct inode *inode, struct file *file)
{
	struct rfm_card *card = container_of(inode->i_cdev, struct rfm_card, cdev);
	struct rfm_dev_event *storage;
	struct rfm_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	storage = evq_storage(RFM_DEV_QUEUE_DEFAULT);
	if (!f || !storage) {
		kfree(f);
		kvfree(storage);
		return -ENOMEM;
	}
	get_device(&card->dev);
	f->card = card;
	f->mapping = file->f_mapping;
	spin_lock_init(&f->lock);
	init_waitqueue_head(&f->wq);
	mutex_init(&f->read_lock);
	rfm_evq_init(&f->q, storage, RFM_DEV_QUEUE_DEFAULT);

	down_read(&card->hw_sem);
	if (card->dead) {
		up_read(&card->hw_sem);
		put_device(&card->dev);
		kvfree(storage);
		kfree(f);
		return -ENODEV;
	}
	mutex_lock(&card->files_lock);
	list_add_tail(&f->node, &card->files);
	mutex_unlock(&card->files_lock);
	up_read(&card->hw_sem);

	file->private_data = f;
	/* No file position: lseek fails with ESPIPE (no_llseek is gone in 6.12). */
	return stream_open(inode, file);
}

/* Tell the card driver which status events some file still wants. */
static void update_card_mask(struct rfm_card *card)
{
	struct rfm_file *f;
	u32 mask = 0;

	lockdep_assert_held(&card->hw_sem);
	mutex_lock(&card->files_lock);
	list_for_each_entry(f, &card->files, node)
		mask |= f->mask;
	mutex_unlock(&card->files_lock);
	if (!card->dead && card->ops->set_mask)
		card->ops->set_mask(card, mask);
}

static int rfm_release(struct inode *inode, struct file *file)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;

	down_read(&card->hw_sem);
	mutex_lock(&card->files_lock);
	list_del(&f->node);
	mutex_unlock(&card->files_lock);
	if (f->mask)
		update_card_mask(card);
	up_read(&card->hw_sem);

	kvfree(f->q.rec);
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

/* Copy out records without losing any: peek, copy, then consume. */
static ssize_t rfm_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;
	const size_t rec = sizeof(struct rfm_dev_event);
	size_t done = 0;
	int ret;

	if (count < rec)
		return -EINVAL;
	if (mutex_lock_interruptible(&f->read_lock))
		return -ERESTARTSYS;

	while (!has_records(f)) {
		if (READ_ONCE(card->dead)) {
			ret = -ENODEV;
			goto out;
		}
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(f->wq, has_records(f) || READ_ONCE(card->dead));
		if (ret)
			goto out;
	}

	while (count - done >= rec) {
		u32 want = min_t(size_t, (count - done) / rec, RFM_READ_BATCH);
		u32 n;

		spin_lock_irq(&f->lock);
		n = rfm_evq_peek(&f->q, f->batch, want);
		spin_unlock_irq(&f->lock);
		if (!n)
			break;
		if (copy_to_user(buf + done, f->batch, n * rec)) {
			ret = done ? 0 : -EFAULT;
			goto out;
		}
		/* Only this reader removes records, so the n oldest are the ones copied. */
		spin_lock_irq(&f->lock);
		rfm_evq_consume(&f->q, f->batch, n);
		spin_unlock_irq(&f->lock);
		done += n * rec;
	}
	ret = 0;
out:
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
	u64 off;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;	/* a private copy of reflective memory means nothing */
	if (vma->vm_pgoff >= pages || (len >> PAGE_SHIFT) > pages - vma->vm_pgoff)
		return -EINVAL;
	off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	down_read(&card->hw_sem);
	if (card->dead) {
		ret = -ENODEV;
		goto out;
	}
	if (card->caps & RFM_DEV_CAP_UNCACHED)
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
#else
	vma->vm_flags |= VM_IO | VM_DONTEXPAND | VM_DONTDUMP;
#endif
	ret = io_remap_pfn_range(vma, vma->vm_start, (card->window_phys + off) >> PAGE_SHIFT,
				 len, vma->vm_page_prot);
out:
	up_read(&card->hw_sem);
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

	info.queue_depth = f->q.depth;
	strscpy(info.driver_version, RFM_DRIVER_VERSION, sizeof(info.driver_version));
	if (card->ops->link)
		info.link = card->ops->link(card);
	return copy_out(argp, usize, &info, sizeof(info));
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
		if (mutex_lock_interruptible(&card->send_lock))
			return -ERESTARTSYS;
		ret = card->ops->send(card, s.type, s.target, s.data, now);
		mutex_unlock(&card->send_lock);
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

static int ioc_set_queue_depth(struct rfm_file *f, u32 __user *argp)
{
	struct rfm_dev_event *storage, *old = NULL;
	struct rfm_evq q;
	u32 depth;
	int ret = 0;

	if (get_user(depth, argp))
		return -EFAULT;
	if (depth < RFM_DEV_QUEUE_MIN || depth > RFM_DEV_QUEUE_MAX)
		return -EINVAL;
	storage = evq_storage(depth);
	if (!storage)
		return -ENOMEM;
	mutex_lock(&f->read_lock);
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
	mutex_unlock(&f->read_lock);
	kvfree(ret ? storage : old);
	return ret;
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

static int ioc_dma(struct rfm_file *f, void __user *argp, size_t usize)
{
	struct rfm_card *card = f->card;
	struct rfm_dev_dma d;
	int ret;

	ret = copy_struct_from_user(&d, sizeof(d), argp, usize);
	if (ret)
		return ret;
	if (d.flags || (d.dir != RFM_DEV_DMA_TO_CARD && d.dir != RFM_DEV_DMA_FROM_CARD))
		return -EINVAL;
	if (d.offset > card->window_size || d.length > card->window_size - d.offset)
		return -EINVAL;
	if (!d.length)
		return 0;
	if (!card->ops->dma)
		return -EOPNOTSUPP;
	ret = card->ops->dma(card, d.dir == RFM_DEV_DMA_TO_CARD, d.offset,
			     u64_to_user_ptr(d.buf), d.length);
	if (ret) {
		atomic64_inc(&card->stats.dma_errors);
		return ret;
	}
	atomic64_add(d.length, &card->stats.dma_bytes);
	return 0;
}

static int ioc_diag_kick(struct rfm_file *f, u32 __user *argp)
{
	struct rfm_card *card = f->card;
	u32 target;

	if (get_user(target, argp))
		return -EFAULT;
	if (!card->ops->diag_kick)
		return -EOPNOTSUPP;
	if (target >= card->max_nodes)
		return -EINVAL;
	return card->ops->diag_kick(card, target);
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
		/* No hardware is touched while sleeping: let removal proceed. */
		up_read(&card->hw_sem);
		left = wait_event_interruptible_timeout(card->diag_wq,
				(u64)atomic64_read(&card->diag_count) != w.count ||
				READ_ONCE(card->dead),
				msecs_to_jiffies(w.timeout_ms));
		down_read(&card->hw_sem);
		if (left < 0)
			return (int)left;
	}
	if (card->dead)
		return -ENODEV;
	ret = (u64)atomic64_read(&card->diag_count) == w.count ? -ETIMEDOUT : 0;
	w.count = atomic64_read(&card->diag_count);
	if (copy_out(argp, usize, &w, sizeof(w)))
		return -EFAULT;
	return ret;
}

/* The request must match ours in type, number and direction, and carry
 * at least the first published size of its structure. */
static bool cmd_ok(unsigned int cmd, unsigned int ours, size_t min_size)
{
	return _IOC_DIR(cmd) == _IOC_DIR(ours) && _IOC_SIZE(cmd) >= min_size &&
	       (min_size || _IOC_SIZE(cmd) == 0);
}

static long rfm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;
	void __user *argp = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != RFM_IOC_MAGIC)
		return -ENOTTY;

	down_read(&card->hw_sem);
	if (card->dead) {
		ret = -ENODEV;
		goto out;
	}

#define CASE(req, size) \
	case _IOC_NR(req): \
		if (!cmd_ok(cmd, req, size)) { \
			ret = -ENOTTY; \
			break; \
		}

	switch (_IOC_NR(cmd)) {
	CASE(RFM_IOC_GET_INFO, sizeof(struct rfm_dev_info))
		ret = ioc_get_info(f, argp, usize);
		break;
	CASE(RFM_IOC_SEND, sizeof(struct rfm_dev_send))
		ret = ioc_send(f, argp, usize);
		break;
	CASE(RFM_IOC_SET_MASK, sizeof(u32))
		ret = usize == sizeof(u32) ? ioc_set_mask(f, argp) : -ENOTTY;
		break;
	CASE(RFM_IOC_GET_MASK, sizeof(u32))
		ret = usize == sizeof(u32) ? put_user(f->mask, (u32 __user *)argp) : -ENOTTY;
		break;
	CASE(RFM_IOC_SET_QUEUE_DEPTH, sizeof(u32))
		ret = usize == sizeof(u32) ? ioc_set_queue_depth(f, argp) : -ENOTTY;
		break;
	CASE(RFM_IOC_FLUSH, 0)
		mutex_lock(&f->read_lock);	/* not between a reader's copy and consume */
		spin_lock_irq(&f->lock);
		rfm_evq_flush(&f->q);
		spin_unlock_irq(&f->lock);
		mutex_unlock(&f->read_lock);
		ret = 0;
		break;
	CASE(RFM_IOC_GET_COUNTERS, sizeof(struct rfm_dev_counters))
		ret = ioc_get_counters(f, argp, usize);
		break;
	CASE(RFM_IOC_DMA, sizeof(struct rfm_dev_dma))
		ret = ioc_dma(f, argp, usize);
		break;
	CASE(RFM_IOC_RING_TEST, 0)
		if (!card->ops->ring_test) {
			ret = -EOPNOTSUPP;
			break;
		}
		if (mutex_lock_interruptible(&card->send_lock)) {
			ret = -ERESTARTSYS;
			break;
		}
		ret = card->ops->ring_test(card);
		mutex_unlock(&card->send_lock);
		break;
	CASE(RFM_IOC_DIAG_KICK, sizeof(u32))
		ret = usize == sizeof(u32) ? ioc_diag_kick(f, argp) : -ENOTTY;
		break;
	CASE(RFM_IOC_DIAG_WAIT, sizeof(struct rfm_dev_diag_wait))
		ret = ioc_diag_wait(f, argp, usize);
		break;
	default:
		ret = -ENOTTY;
	}
#undef CASE
out:
	up_read(&card->hw_sem);
	return ret;
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
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
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
