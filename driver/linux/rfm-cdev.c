// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/rfmN: card registration, per-file event queues, and
 * the file operations (mmap, read, poll; the ioctl requests are in
 * rfm-ioctl.c).
 *
 * Lifetime and locking. Removal (rfm_card_unregister) marks the card dead,
 * wakes every sleeper, waits for the card's SRCU read sections and revokes
 * the mappings. Those sections cover only hardware accesses: no user copy
 * and no wait a user controls happens inside one, and ->mmap takes no lock
 * (only the SRCU read side), so nothing a user does can hold removal up.
 * Locks, outermost first:
 *   card->send_lock       one send (or ring test) at a time per card;
 *                         taken killably, before entering the SRCU section;
 *   card->files_lock      the list of open files, their masks and the
 *                         card's queue memory;
 *   f->lock (spin)        one file's queue.
 * No lock is held across a copy to or from user space: read() takes records
 * out of the queue and puts the undelivered ones back (rfm_evq_take/settle).
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
#include "rfm-file.h"

#define RFM_MINORS 64

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
u64 rfm_evq_bytes(u32 depth)
{
	return PAGE_ALIGN((u64)(depth + 1) * sizeof(struct rfm_dev_event));
}

/*
 * Up to 2.5 MiB a user asks for: under memory pressure (global, or the
 * opener's memory cgroup at its limit) fail with ENOMEM rather than wake
 * the OOM killer, which would kill some other process (or the opener).
 */
struct rfm_dev_event *rfm_evq_storage(u32 depth)
{
	return __vmalloc(rfm_evq_bytes(depth),
			 GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
}

/* Count @bytes of queue memory against the card's cap (queue_limit_kib). */
int rfm_queue_reserve(struct rfm_card *card, u64 bytes)
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

void rfm_queue_unreserve(struct rfm_card *card, u64 bytes)
{
	mutex_lock(&card->files_lock);
	card->queue_bytes -= bytes;
	mutex_unlock(&card->files_lock);
}

static int rfm_open(struct inode *inode, struct file *file)
{
	struct rfm_card *card = container_of(inode->i_cdev, struct rfm_card, cdev);
	u64 bytes = rfm_evq_bytes(RFM_DEV_QUEUE_DEFAULT);
	struct rfm_dev_event *storage;
	struct rfm_file *f;
	int ret;

	ret = rfm_queue_reserve(card, bytes);
	if (ret)
		return ret;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	storage = rfm_evq_storage(RFM_DEV_QUEUE_DEFAULT);
	if (!f || !storage) {
		ret = -ENOMEM;
		goto err;
	}
	f->card = card;
	f->mapping = file->f_mapping;
	f->queue_bytes = bytes;
	spin_lock_init(&f->lock);
	init_waitqueue_head(&f->wq);
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
	rfm_queue_unreserve(card, bytes);
	vfree(storage);
	kfree(f);
	return ret;
}

/* Tell the card driver which status events some file still wants. */
void rfm_card_update_mask(struct rfm_card *card)
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
		rfm_card_update_mask(card);

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
 * No lock is held across the copy to user space (it may fault, and the
 * page may be stalled by userfaultfd or a slow file for as long as its
 * owner likes): records are taken out of the queue into a kernel buffer
 * under the queue's spinlock, copied without it, and the undelivered ones
 * (a fault) go back in order; their slots stay reserved meanwhile, so no
 * record is lost. Other readers of the file, FLUSH, resizing and removal
 * never wait for a copy.
 */
static ssize_t rfm_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct rfm_file *f = file->private_data;
	struct rfm_card *card = f->card;
	const size_t rec = sizeof(struct rfm_dev_event);
	struct rfm_dev_event *batch;
	size_t done = 0;
	int ret;

	if (count < rec)
		return -EINVAL;
	while (!has_records(f)) {
		if (rfm_card_gone(card))
			return -ENODEV;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(f->wq, has_records(f) || rfm_card_gone(card));
		if (ret)
			return ret;
	}
	batch = kmalloc_array(RFM_READ_BATCH, rec, GFP_KERNEL);
	if (!batch)
		return -ENOMEM;

	ret = 0;
	while (count - done >= rec) {
		u32 want = min_t(size_t, (count - done) / rec, RFM_READ_BATCH);
		u32 n, delivered;
		unsigned long left;
		u64 gen;

		spin_lock_irq(&f->lock);
		n = rfm_evq_take(&f->q, batch, want, &gen);
		spin_unlock_irq(&f->lock);
		if (!n)
			break;
		left = copy_to_user(buf + done, batch, n * rec);
		/* Whole records only: a partly written one is delivered again. */
		delivered = (n * rec - left) / rec;
		spin_lock_irq(&f->lock);
		rfm_evq_settle(&f->q, batch, n, delivered, gen);
		spin_unlock_irq(&f->lock);
		done += delivered * rec;
		if (delivered < n) {
			/* Records went back: another reader may take them. */
			wake_up_interruptible(&f->wq);
			ret = -EFAULT;
			break;
		}
	}
	kfree(batch);
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
