// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel glue for 5565-family cards: PCI resources, MMIO
 * accessors for the register paths in rfm5565-hw.c, the interrupt
 * handlers and DMA through a coherent bounce buffer (no reserved memory,
 * no boot parameter).
 *
 * The hard-IRQ handler only claims: it acknowledges a finished DMA and
 * masks pending events (the line is shared); the IRQ thread drains the
 * receive FIFOs, delivers and unmasks.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/uaccess.h>

#include "rfm-core.h"
#include "rfm-irq-prio.h"
#include "rfm5565-hw.h"

#define RFM5565_BOUNCE_MAX BIT(20)
#define RFM5565_BOUNCE_MIN (64u << 10)

struct rfm_5565 {
	struct pci_dev *pdev;
	struct rfm_card *card;
	void __iomem *bar[RFM5565_BAR_REGS + 1];	/* BAR0 (PLX) and BAR2 (RFM) */
	struct rfm5565 hw;
	struct rfm5565_io io;
	/*
	 * Hard IRQ vs LIER and DMA register changes. Raw: every section is a
	 * few register accesses (never a sleep), and on PREEMPT_RT a sleeping
	 * lock here would let a preempted holder stall the shared line's
	 * claim; raw locks are also annotated for sparse in every kernel's
	 * headers (6.1's RT spinlocks are not).
	 */
	raw_spinlock_t irq_lock;
	u32 pending;			/* claimed, not yet serviced; under irq_lock */
	wait_queue_head_t dma_wq;	/* the transfer's waiter */
	bool dma_finished;		/* done reported for the armed transfer; irq_lock */
	struct mutex dma_lock;		/* one transfer at a time */
	void *bounce;
	dma_addr_t bounce_bus;
	size_t bounce_size;
	int irq;
	bool irq_requested;
	u32 status_mask;		/* last set_mask, restored on resume; irq_lock */
};

/* ---- MMIO accessors for rfm5565-hw.c ---- */

static u32 io_read32(void *ctx, int bar, u32 off)
{
	struct rfm_5565 *p = ctx;

	return ioread32(p->bar[bar] + off);
}

static u8 io_read8(void *ctx, int bar, u32 off)
{
	struct rfm_5565 *p = ctx;

	return ioread8(p->bar[bar] + off);
}

static void io_write32(void *ctx, int bar, u32 off, u32 value)
{
	struct rfm_5565 *p = ctx;

	iowrite32(value, p->bar[bar] + off);
}

static void io_write8(void *ctx, int bar, u32 off, u8 value)
{
	struct rfm_5565 *p = ctx;

	iowrite8(value, p->bar[bar] + off);
}

static void io_sleep_ms(void *ctx, unsigned int ms)
{
	msleep(ms);
}

static bool dma_finished(struct rfm_5565 *p)
{
	bool done;

	raw_spin_lock_irq(&p->irq_lock);
	done = p->dma_finished;
	raw_spin_unlock_irq(&p->irq_lock);
	return done;
}

/* Ends on completion, a signal, removal (unplug wakes us) or the timeout. */
static int io_wait_dma(void *ctx, unsigned int timeout_ms)
{
	struct rfm_5565 *p = ctx;
	long left;

	left = wait_event_interruptible_timeout(p->dma_wq,
						dma_finished(p) || rfm_card_gone(p->card),
						msecs_to_jiffies(timeout_ms));
	if (dma_finished(p))
		return 0;
	if (rfm_card_gone(p->card))
		return -ENODEV;
	return left < 0 ? -EINTR : -ETIMEDOUT;
}

/* Called with irq_lock held, just before the transfer starts. */
static void io_arm_dma(void *ctx)
{
	struct rfm_5565 *p = ctx;

	p->dma_finished = false;
}

static void io_lock(void *ctx) __acquires(ctx)
{
	struct rfm_5565 *p = ctx;

	raw_spin_lock_irq(&p->irq_lock);
}

static void io_unlock(void *ctx) __releases(ctx)
{
	struct rfm_5565 *p = ctx;

	raw_spin_unlock_irq(&p->irq_lock);
}

/* ---- interrupts ---- */

static irqreturn_t rfm_5565_hardirq(int irq, void *data)
{
	struct rfm_5565 *p = data;
	bool dma_done;
	u32 pending;

	raw_spin_lock(&p->irq_lock);
	pending = rfm5565_irq_claim(&p->hw, &dma_done);
	p->pending |= pending;
	if (dma_done)
		p->dma_finished = true;
	raw_spin_unlock(&p->irq_lock);

	if (!pending && !dma_done)
		return IRQ_NONE;	/* another device on the shared line, or no card */
	atomic64_inc(&p->card->stats.irqs);
	if (dma_done)
		wake_up(&p->dma_wq);
	return pending ? IRQ_WAKE_THREAD : IRQ_HANDLED;
}

static void deliver(void *ctx, u32 type, u32 sender, u32 data)
{
	struct rfm_5565 *p = ctx;

	rfm_card_deliver(p->card, type, sender, data, 0, 0);
}

static irqreturn_t rfm_5565_thread(int irq, void *data)
{
	struct rfm_5565 *p = data;
	u32 pending;

	rfm_irq_thread_prio();
	raw_spin_lock_irq(&p->irq_lock);
	pending = p->pending;
	p->pending = 0;
	raw_spin_unlock_irq(&p->irq_lock);

	rfm5565_service(&p->hw, pending, deliver, p);

	raw_spin_lock_irq(&p->irq_lock);
	rfm5565_unmask(&p->hw, pending);
	raw_spin_unlock_irq(&p->irq_lock);
	return IRQ_HANDLED;
}

/* ---- card ops ---- */

static int rfm_5565_send(struct rfm_card *card, u32 type, u32 target, u32 data, u64 sent_ns)
{
	struct rfm_5565 *p = card->priv;

	return rfm5565_send(&p->hw, type, target, data);
}

static void rfm_5565_set_mask(struct rfm_card *card, u32 mask)
{
	struct rfm_5565 *p = card->priv;

	raw_spin_lock_irq(&p->irq_lock);
	p->status_mask = mask;
	rfm5565_set_status_events(&p->hw, mask);
	raw_spin_unlock_irq(&p->irq_lock);
}

/*
 * User memory is copied to and from a kernel buffer outside every lock
 * and outside the card's SRCU section; only the transfer through the
 * coherent buffer runs inside them, so a user copy that faults or blocks
 * holds up neither other transfers nor removal.
 */
static long rfm_5565_dma(struct rfm_card *card, bool to_card, u64 offset, void __user *buf,
			 u64 len)
{
	struct rfm_5565 *p = card->priv;
	size_t chunk;
	u64 done = 0;
	long ret = 0;
	void *kbuf;

	if (!p->bounce)
		return -EOPNOTSUPP;	/* no coherent memory for a bounce buffer */
	chunk = min_t(u64, len, p->bounce_size);
	kbuf = kvmalloc(chunk, GFP_KERNEL_ACCOUNT);
	if (!kbuf)
		return -ENOMEM;
	while (done < len) {
		u32 n = min_t(u64, len - done, chunk);
		u32 moved;
		int idx;

		if (to_card && copy_from_user(kbuf, buf + done, n)) {
			ret = -EFAULT;
			break;
		}
		if (mutex_lock_killable(&p->dma_lock)) {
			ret = -EINTR;
			break;
		}
		idx = rfm_card_enter(card);
		if (rfm_card_gone(card)) {
			ret = -ENODEV;
			moved = 0;
		} else {
			if (to_card)
				memcpy(p->bounce, kbuf, n);
			ret = rfm5565_dma(&p->hw, to_card, p->bounce_bus, offset + done, n, &moved);
			if (!to_card)
				memcpy(kbuf, p->bounce, moved);
		}
		rfm_card_exit(card, idx);
		mutex_unlock(&p->dma_lock);
		/* Whatever arrived counts, even when a signal ended the transfer. */
		if (!to_card && moved && copy_to_user(buf + done, kbuf, moved)) {
			ret = -EFAULT;
			break;
		}
		done += moved;
		if (ret)
			break;
	}
	kvfree(kbuf);
	return ret && done && ret != -ENODEV ? (long)done : ret;
}

static int rfm_5565_ring_test(struct rfm_card *card)
{
	struct rfm_5565 *p = card->priv;

	return rfm5565_ring_test(&p->hw);
}

static u32 rfm_5565_link(struct rfm_card *card)
{
	struct rfm_5565 *p = card->priv;

	return rfm5565_link(&p->hw);
}

/* Removal began: end a transfer's wait (it aborts the channel itself). */
static void rfm_5565_unplug(struct rfm_card *card)
{
	struct rfm_5565 *p = card->priv;

	wake_up(&p->dma_wq);
}

static const struct rfm_card_ops rfm_5565_ops = {
	.unplug = rfm_5565_unplug,
	.send = rfm_5565_send,
	.set_mask = rfm_5565_set_mask,
	.dma = rfm_5565_dma,
	.ring_test = rfm_5565_ring_test,
	.link = rfm_5565_link,
};

/* ---- probe / remove ---- */

static void alloc_bounce(struct rfm_5565 *p)
{
	struct device *dev = &p->pdev->dev;
	size_t size;

	if (dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64)) &&
	    dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32)))
		return;
	for (size = RFM5565_BOUNCE_MAX; size >= RFM5565_BOUNCE_MIN; size /= 2) {
		p->bounce = dmam_alloc_coherent(dev, size, &p->bounce_bus, GFP_KERNEL);
		if (p->bounce) {
			p->bounce_size = size;
			return;
		}
	}
}

static void quiesce(struct rfm_5565 *p);

int rfm_5565_probe(struct pci_dev *pdev)
{
	struct device *dev = &pdev->dev;
	struct rfm_card *card;
	struct rfm_5565 *p;
	u64 bar_len;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(RFM5565_BAR_PLX) | BIT(RFM5565_BAR_REGS),
				 RFM_DRIVER_NAME);
	if (ret)
		return ret;
	ret = pci_request_region(pdev, RFM5565_BAR_MEM, RFM_DRIVER_NAME);
	if (ret)
		return ret;

	card = rfm_card_alloc(dev, sizeof(*p));
	if (!card)
		return -ENOMEM;
	p = card->priv;
	p->pdev = pdev;
	p->card = card;
	p->bar[RFM5565_BAR_PLX] = pcim_iomap_table(pdev)[RFM5565_BAR_PLX];
	p->bar[RFM5565_BAR_REGS] = pcim_iomap_table(pdev)[RFM5565_BAR_REGS];
	raw_spin_lock_init(&p->irq_lock);
	init_waitqueue_head(&p->dma_wq);
	mutex_init(&p->dma_lock);
	p->io = (struct rfm5565_io){
		.read32 = io_read32,
		.read8 = io_read8,
		.write32 = io_write32,
		.write8 = io_write8,
		.sleep_ms = io_sleep_ms,
		.wait_dma = io_wait_dma,
		.arm_dma = io_arm_dma,
		.lock = io_lock,
		.unlock = io_unlock,
		.ctx = p,
	};

	ret = rfm5565_identify(&p->hw, &p->io);
	if (ret) {
		dev_err(dev, "not a 5565 card this driver knows (board id 0x%02x)\n",
			p->hw.board_id);
		goto err_put;
	}

	pci_set_master(pdev);
	alloc_bounce(p);
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_ALL_TYPES);
	if (ret < 0)
		goto err_put;
	p->irq = pci_irq_vector(pdev, 0);
	/*
	 * The card is started (quiet FIFOs, known state) before the shared
	 * handler can run, and the PLX passes interrupts on only after the
	 * handler is there.
	 */
	rfm5565_start(&p->hw);
	ret = request_threaded_irq(p->irq, rfm_5565_hardirq, rfm_5565_thread, IRQF_SHARED,
				   "rfm-5565", p);
	if (ret) {
		rfm5565_stop(&p->hw);
		goto err_put;
	}
	p->irq_requested = true;
	raw_spin_lock_irq(&p->irq_lock);
	rfm5565_irq_enable(&p->hw);
	raw_spin_unlock_irq(&p->irq_lock);

	bar_len = pci_resource_len(pdev, RFM5565_BAR_MEM);
	card->ops = &rfm_5565_ops;
	card->card_type = RFM_DEV_CARD_5565;
	card->node_id = p->hw.node_id;
	card->max_nodes = RFM_DEV_NODE_MAX + 1;
	card->caps = RFM_DEV_CAP_RING_TEST | RFM_DEV_CAP_UNCACHED;
	if (p->bounce)
		card->caps |= RFM_DEV_CAP_DMA;
	card->board_id = p->hw.board_id;
	card->board_revision = p->hw.board_rev;
	card->window_phys = pci_resource_start(pdev, RFM5565_BAR_MEM);
	card->window_size = min_t(u64, p->hw.memory_size, bar_len) & PAGE_MASK;
	card->memory_size = p->hw.memory_size;

	ret = rfm_card_register(card);
	if (ret)
		goto err_stop;
	pci_set_drvdata(pdev, card);
	return 0;

err_stop:
	quiesce(p);
err_put:
	rfm_card_put(card);
	return ret;
}

/*
 * The card stops raising interrupts, the handler goes (free_irq waits for
 * a running IRQ thread, which can no longer unmask), then the card stops:
 * a transfer still running is aborted before its buffer is freed.
 */
static void quiesce(struct rfm_5565 *p)
{
	raw_spin_lock_irq(&p->irq_lock);
	rfm5565_irq_disable(&p->hw);
	raw_spin_unlock_irq(&p->irq_lock);
	if (p->irq_requested) {
		free_irq(p->irq, p);
		p->irq_requested = false;
	}
	rfm5565_stop(&p->hw);
}

void rfm_5565_remove(struct pci_dev *pdev)
{
	struct rfm_card *card = pci_get_drvdata(pdev);
	struct rfm_5565 *p = card->priv;

	rfm_card_unregister(card);
	quiesce(p);
	rfm_card_put(card);
}

/* Power off or kexec: the card must not DMA into memory being reused. */
void rfm_5565_shutdown(struct pci_dev *pdev)
{
	struct rfm_card *card = pci_get_drvdata(pdev);
	struct rfm_5565 *p = card->priv;

	raw_spin_lock_irq(&p->irq_lock);
	rfm5565_irq_disable(&p->hw);
	raw_spin_unlock_irq(&p->irq_lock);
	synchronize_irq(p->irq);
	rfm5565_stop(&p->hw);
}

int rfm_5565_suspend(struct device *dev)
{
	rfm_5565_shutdown(to_pci_dev(dev));
	return 0;
}

/* The card lost its state: start it again as probe did. */
int rfm_5565_resume(struct device *dev)
{
	struct rfm_card *card = dev_get_drvdata(dev);
	struct rfm_5565 *p = card->priv;

	rfm5565_start(&p->hw);
	raw_spin_lock_irq(&p->irq_lock);
	rfm5565_set_status_events(&p->hw, p->status_mask);
	rfm5565_irq_enable(&p->hw);
	raw_spin_unlock_irq(&p->irq_lock);
	return 0;
}
