// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU's ivshmem-doorbell device as a virtual RFM card.
 *
 * BAR2 is the shared memory: its first part is the reflective window, its
 * last RFM_IVS_AREA_SIZE bytes the mailbox (rfm-ivs-mbox.c). IVPosition
 * is the node id. A network interrupt of type T is a mailbox record plus
 * a doorbell on the receiver's vector T; vector RFM_IVS_VECTOR_DIAG is a
 * bare doorbell for baselines.
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "rfm-core.h"
#include "rfm-irq-prio.h"
#include "rfm-ivs-mbox.h"

/* How long a sender waits for a receiver to make room in its mailbox ring. */
#define RFM_IVS_SEND_TIMEOUT_MS 1000
/* RFM_IOC_DMA copies through a kernel buffer of this size, per call. */
#define RFM_IVS_COPY_CHUNK (64u << 10)

struct rfm_ivs {
	struct pci_dev *pdev;
	struct rfm_card *card;
	void __iomem *regs;		/* BAR0 */
	u8 *shm;			/* BAR2, cached: it is RAM on the host */
	resource_size_t shm_size;
	struct rfm_ivs_mbox mbox;	/* tx side under card->send_lock, rx side under rx_lock */
	struct mutex rx_lock;
	u64 rx_errors_seen;		/* mailbox errors already added to the card's counter */
	u64 tx_errors_seen;
	int irqs_requested;
};

static void ring_doorbell(struct rfm_ivs *ivs, u32 peer, u32 vector)
{
	/* writel orders the mailbox stores (and the user's data) before it. */
	writel((peer << 16) | vector, ivs->regs + RFM_IVS_REG_DOORBELL);
}

static void sync_error_counter(struct rfm_ivs *ivs, u64 errors_now, u64 *seen)
{
	if (errors_now != *seen) {
		atomic64_add(errors_now - *seen, &ivs->card->stats.mailbox_errors);
		*seen = errors_now;
	}
}

/* ---- receive ---- */

/*
 * On PREEMPT_RT the kernel would move a primary handler into a thread of
 * its own (irq/N-rfm-ivshmem, waking irq/N-s-rfm-ivshmem): two thread
 * wake-ups per event. The primary only counts (an atomic, safe in hard
 * IRQ context there too), so ONESHOT keeps it in hard IRQ context and one
 * thread drains. MSI-X vectors are exclusive, and forced threading would
 * mask them (ONESHOT) anyway; stock kernels keep the unmasked vector.
 */
#define RFM_IVS_IRQ_FLAGS (IS_ENABLED(CONFIG_PREEMPT_RT) ? IRQF_ONESHOT : 0)

static irqreturn_t rfm_ivs_hardirq(int irq, void *data)
{
	struct rfm_ivs *ivs = data;

	/* MSI-X needs no acknowledge: count it and let the thread drain. */
	atomic64_inc(&ivs->card->stats.irqs);
	return IRQ_WAKE_THREAD;
}

static void deliver(void *ctx, u32 sender, u32 type, u32 data, u64 sent_ns)
{
	struct rfm_ivs *ivs = ctx;

	rfm_card_deliver(ivs->card, type, sender, data, sent_ns, 0);
}

static irqreturn_t rfm_ivs_thread(int irq, void *data)
{
	struct rfm_ivs *ivs = data;

	rfm_irq_thread_prio();
	mutex_lock(&ivs->rx_lock);
	rfm_ivs_mbox_drain(&ivs->mbox, deliver, ivs);
	sync_error_counter(ivs, ivs->mbox.rx_errors, &ivs->rx_errors_seen);
	mutex_unlock(&ivs->rx_lock);
	return IRQ_HANDLED;
}

static irqreturn_t rfm_ivs_diag_irq(int irq, void *data)
{
	struct rfm_ivs *ivs = data;

	/* In hard IRQ context on stock kernels; the thread on PREEMPT_RT. */
	rfm_irq_thread_prio();
	atomic64_inc(&ivs->card->stats.irqs);
	rfm_card_diag_ring(ivs->card);
	return IRQ_HANDLED;
}

/* ---- send ---- */

/*
 * Queue one record for @target and ring it, waiting for ring space until
 * @deadline (shared by a broadcast's nodes, so a send never holds the
 * card for more than RFM_IVS_SEND_TIMEOUT_MS). Called inside the card's
 * SRCU section: removal ends the wait.
 */
static int send_one(struct rfm_ivs *ivs, u32 target, u32 type, u32 data, u64 sent_ns,
		    unsigned long deadline)
{
	int ret;

	for (;;) {
		ret = rfm_ivs_mbox_send(&ivs->mbox, target, type, data, sent_ns);
		if (ret != -EAGAIN)
			break;
		/* The receiver's IRQ thread empties the ring; give it time. */
		if (time_after(jiffies, deadline)) {
			atomic64_inc(&ivs->card->stats.tx_timeouts);
			return -ETIMEDOUT;
		}
		if (rfm_card_gone(ivs->card))
			return -ENODEV;
		if (signal_pending(current))
			return -EINTR;
		usleep_range(20, 200);
	}
	if (!ret)
		ring_doorbell(ivs, target, type);
	return ret;
}

static int rfm_ivs_send(struct rfm_card *card, u32 type, u32 target, u32 data, u64 sent_ns)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(RFM_IVS_SEND_TIMEOUT_MS);
	struct rfm_ivs *ivs = card->priv;
	int ret = 0;
	u32 n;

	if (target != RFM_DEV_NODE_ALL) {
		ret = send_one(ivs, target, type, data, sent_ns, deadline);
	} else {
		/*
		 * No broadcast on ivshmem: one record and doorbell per present
		 * node. Every node gets its chance; the first failure (a node
		 * that left meanwhile, a ring that stayed full) is reported.
		 */
		for (n = 0; n < RFM_IVS_MAX_NODES; n++) {
			int r;

			if (n == card->node_id || !rfm_ivs_mbox_node_present(&ivs->mbox, n))
				continue;
			r = send_one(ivs, n, type, data, sent_ns, deadline);
			if (r && !ret)
				ret = r;
			if (r == -EINTR || r == -ENODEV)
				break;
		}
	}
	sync_error_counter(ivs, ivs->mbox.tx_errors, &ivs->tx_errors_seen);
	return ret;
}

static int rfm_ivs_diag_kick(struct rfm_card *card, u32 target)
{
	struct rfm_ivs *ivs = card->priv;

	ring_doorbell(ivs, target, RFM_IVS_VECTOR_DIAG);
	return 0;
}

/*
 * Bulk copy: no DMA engine, so a CPU copy with the same contract. User
 * memory is copied through a kernel buffer outside the card's SRCU
 * section; only the copy to or from the window is inside it, so a user
 * copy that faults or blocks never holds up removal.
 */
static long rfm_ivs_dma(struct rfm_card *card, bool to_card, u64 offset, void __user *buf,
			u64 len)
{
	struct rfm_ivs *ivs = card->priv;
	size_t chunk = min_t(u64, len, RFM_IVS_COPY_CHUNK);
	u64 done = 0;
	long ret = 0;
	void *bounce;

	bounce = kvmalloc(chunk, GFP_KERNEL_ACCOUNT);
	if (!bounce)
		return -ENOMEM;
	while (done < len) {
		size_t n = min_t(u64, len - done, chunk);
		int idx;

		if (to_card && copy_from_user(bounce, buf + done, n)) {
			ret = -EFAULT;
			break;
		}
		idx = rfm_card_enter(card);
		if (rfm_card_gone(card)) {
			rfm_card_exit(card, idx);
			ret = -ENODEV;
			break;
		}
		if (to_card)
			memcpy(ivs->shm + offset + done, bounce, n);
		else
			memcpy(bounce, ivs->shm + offset + done, n);
		rfm_card_exit(card, idx);
		if (!to_card && copy_to_user(buf + done, bounce, n)) {
			ret = -EFAULT;
			break;
		}
		done += n;
		if (done < len && signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	kvfree(bounce);
	/* Interrupted or faulted after some progress: say how far it got. */
	return ret && done && ret != -ENODEV ? (long)done : ret;
}

static u32 rfm_ivs_link(struct rfm_card *card)
{
	return RFM_DEV_LINK_SIGNAL;
}

static const struct rfm_card_ops rfm_ivs_ops = {
	.send = rfm_ivs_send,
	.dma = rfm_ivs_dma,
	.link = rfm_ivs_link,
	.diag_kick = rfm_ivs_diag_kick,
};

/* ---- probe / remove ---- */

static void free_irqs(struct rfm_ivs *ivs)
{
	while (ivs->irqs_requested > 0) {
		int v = --ivs->irqs_requested;

		free_irq(pci_irq_vector(ivs->pdev, v), ivs);
	}
}

static int request_irqs(struct rfm_ivs *ivs)
{
	struct pci_dev *pdev = ivs->pdev;
	int v, ret;

	for (v = 0; v < RFM_IVS_VECTORS; v++) {
		int irq = pci_irq_vector(pdev, v);

		if (v == RFM_IVS_VECTOR_DIAG && IS_ENABLED(CONFIG_PREEMPT_RT))
			/* A thread anyway: one that can take irq_prio. */
			ret = request_threaded_irq(irq, NULL, rfm_ivs_diag_irq, IRQF_ONESHOT,
						   "rfm-ivshmem-diag", ivs);
		else if (v == RFM_IVS_VECTOR_DIAG)
			ret = request_irq(irq, rfm_ivs_diag_irq, 0, "rfm-ivshmem-diag", ivs);
		else
			ret = request_threaded_irq(irq, rfm_ivs_hardirq, rfm_ivs_thread,
						   RFM_IVS_IRQ_FLAGS, "rfm-ivshmem", ivs);
		if (ret) {
			free_irqs(ivs);
			return ret;
		}
		ivs->irqs_requested++;
	}
	return 0;
}

int rfm_ivs_probe(struct pci_dev *pdev)
{
	struct device *dev = &pdev->dev;
	struct rfm_card *card;
	struct rfm_ivs *ivs;
	resource_size_t start;
	u32 node;
	int ret, v;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), RFM_DRIVER_NAME);
	if (ret)
		return ret;
	if (!(pci_resource_flags(pdev, 2) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 2) < RFM_IVS_MIN_SHM_SIZE) {
		dev_err(dev, "BAR2 must be shared memory of at least %u bytes\n",
			RFM_IVS_MIN_SHM_SIZE);
		return -ENODEV;
	}
	ret = pci_request_region(pdev, 2, RFM_DRIVER_NAME);
	if (ret)
		return ret;

	card = rfm_card_alloc(dev, sizeof(*ivs));
	if (!card)
		return -ENOMEM;
	ivs = card->priv;
	ivs->pdev = pdev;
	ivs->card = card;
	mutex_init(&ivs->rx_lock);
	ivs->regs = pcim_iomap_table(pdev)[0];
	start = pci_resource_start(pdev, 2);
	ivs->shm_size = pci_resource_len(pdev, 2);
	ivs->shm = devm_memremap(dev, start, ivs->shm_size, MEMREMAP_WB);
	if (IS_ERR(ivs->shm)) {
		ret = PTR_ERR(ivs->shm);
		goto err_put;
	}

	/*
	 * Nothing is written to the device or its memory before it proved to
	 * be a virtual rfm card: our server's signature in the mailbox area,
	 * a node id we can use, and the doorbell vectors.
	 */
	ret = rfm_ivs_mbox_check(ivs->shm + ivs->shm_size - RFM_IVS_AREA_SIZE);
	if (ret) {
		dev_info(dev, "ivshmem memory without the rfm signature (%s): not ours, left alone\n",
			 ret == -ENODEV ? "blank" : "another layout");
		ret = -ENODEV;
		goto err_put;
	}
	node = readl(ivs->regs + RFM_IVS_REG_IVPOSITION);
	if (node >= RFM_IVS_MAX_NODES) {
		dev_err(dev, "peer id %u is not a node id below %u\n", node, RFM_IVS_MAX_NODES);
		ret = -ERANGE;
		goto err_put;
	}
	if (pci_msix_vec_count(pdev) < RFM_IVS_VECTORS) {
		dev_err(dev, "needs ivshmem-doorbell with vectors=%u (MSI-X)\n", RFM_IVS_VECTORS);
		ret = -ENODEV;
		goto err_put;
	}

	/* Without bus mastering the MSI-X writes of the doorbells are dropped. */
	pci_set_master(pdev);
	ret = pci_alloc_irq_vectors(pdev, RFM_IVS_VECTORS, RFM_IVS_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(dev, "needs ivshmem-doorbell with vectors=%u (MSI-X): %d\n",
			RFM_IVS_VECTORS, ret);
		goto err_put;
	}
	ret = rfm_ivs_mbox_attach(&ivs->mbox, ivs->shm + ivs->shm_size - RFM_IVS_AREA_SIZE, node);
	if (ret) {
		dev_err(dev, "the mailbox area changed under us: %d\n", ret);
		goto err_put;
	}
	atomic64_set(&card->stats.mailbox_errors, ivs->mbox.tx_errors);
	ivs->tx_errors_seen = ivs->mbox.tx_errors;
	ret = request_irqs(ivs);
	if (ret)
		goto err_put;
	/* Interrupts are live: peers may ring us from now on. */
	rfm_ivs_mbox_set_present(&ivs->mbox, true);
	/*
	 * Each interrupt thread runs once now (a doorbell to ourselves on
	 * every vector finds no mailbox record), so it takes irq_prio at once.
	 */
	if (rfm_irq_prio())
		for (v = 0; v < RFM_IVS_VECTORS; v++)
			ring_doorbell(ivs, node, v);

	card->ops = &rfm_ivs_ops;
	card->card_type = RFM_DEV_CARD_IVSHMEM;
	card->node_id = node;
	card->max_nodes = RFM_IVS_MAX_NODES;
	card->caps = RFM_DEV_CAP_NODE_PRESENCE | RFM_DEV_CAP_SENT_TIME | RFM_DEV_CAP_DIAG_DOORBELL;
	card->board_revision = pdev->revision;
	card->window_phys = start;
	card->window_size = ivs->shm_size - RFM_IVS_AREA_SIZE;
	card->memory_size = ivs->shm_size;

	ret = rfm_card_register(card);
	if (ret)
		goto err_absent;
	pci_set_drvdata(pdev, card);
	return 0;

err_absent:
	rfm_ivs_mbox_set_present(&ivs->mbox, false);
	free_irqs(ivs);
err_put:
	rfm_card_put(card);
	return ret;
}

void rfm_ivs_remove(struct pci_dev *pdev)
{
	struct rfm_card *card = pci_get_drvdata(pdev);
	struct rfm_ivs *ivs = card->priv;

	rfm_ivs_mbox_set_present(&ivs->mbox, false);
	rfm_card_unregister(card);
	free_irqs(ivs);
	rfm_card_put(card);
}

/* Power off or kexec: peers stop sending to a node that is going away. */
void rfm_ivs_shutdown(struct pci_dev *pdev)
{
	struct rfm_card *card = pci_get_drvdata(pdev);
	struct rfm_ivs *ivs = card->priv;

	rfm_ivs_mbox_set_present(&ivs->mbox, false);
}
