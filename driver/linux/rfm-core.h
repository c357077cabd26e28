/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the card drivers (5565, ivshmem) and the character
 * device share: struct rfm_card, its ops, registration and event delivery.
 */
#ifndef RFM_CORE_H
#define RFM_CORE_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <rfm/uapi/rfm_dev.h>

#define RFM_DRIVER_NAME "rfm"
#define RFM_DRIVER_VERSION "0.1.0"

struct rfm_card;

/* What a card type provides; NULL members mean "not on this card". */
struct rfm_card_ops {
	/*
	 * Send @type with @data to @target (a node other than our own, or
	 * RFM_DEV_NODE_ALL). Process context; card->send_lock is held.
	 */
	int (*send)(struct rfm_card *card, u32 type, u32 target, u32 data, u64 sent_ns);
	/* The union of the open files' enable masks changed. */
	void (*set_mask)(struct rfm_card *card, u32 mask);
	/*
	 * Move @len bytes between user memory and the window (range checked).
	 * Called outside the card's SRCU read section: the card driver enters
	 * it (rfm_card_enter) only around its own accesses to the hardware,
	 * never across a user copy. Returns the bytes moved when a signal or
	 * fault ended the transfer after some progress, else 0 or -errno.
	 */
	long (*dma)(struct rfm_card *card, bool to_card, u64 offset, void __user *buf, u64 len);
	int (*ring_test)(struct rfm_card *card);
	u32 (*link)(struct rfm_card *card);
	int (*diag_kick)(struct rfm_card *card, u32 target);
	/*
	 * Removal began (card->dead is set): wake the card driver's own
	 * sleepers inside the SRCU section so removal need not wait them out.
	 */
	void (*unplug)(struct rfm_card *card);
};

struct rfm_card_stats {
	atomic64_t tx_events;
	atomic64_t rx_events;
	atomic64_t rx_unclaimed;
	atomic64_t irqs;
	atomic64_t tx_timeouts;
	atomic64_t mailbox_errors;
	atomic64_t dma_bytes;
	atomic64_t dma_errors;
};

struct rfm_card {
	/* Filled by the card driver before rfm_card_register(). */
	const struct rfm_card_ops *ops;
	u32 card_type;			/* RFM_DEV_CARD_* */
	u32 node_id;
	u32 max_nodes;
	u32 caps;			/* RFM_DEV_CAP_* */
	u32 board_id;
	u32 board_revision;
	phys_addr_t window_phys;	/* bus address mmap maps */
	u64 window_size;		/* page multiple */
	u64 memory_size;
	void *priv;			/* the card driver's state */

	/* Owned by the core. */
	struct device dev;		/* its refcount is the card's lifetime */
	struct cdev cdev;
	int minor;
	/*
	 * Every access to the hardware happens inside an SRCU read section
	 * (rfm_card_enter/exit) that never spans a user copy or a wait a user
	 * controls; removal sets @dead, wakes every sleeper and waits only for
	 * those sections.
	 */
	struct srcu_struct srcu;
	bool dead;			/* removed: file ops fail with -ENODEV */
	struct mutex send_lock;		/* one sender at a time per card */
	u64 queue_bytes;		/* event-queue storage of all open files; files_lock */
	struct mutex files_lock;	/* protects files */
	struct list_head files;
	wait_queue_head_t diag_wq;
	atomic64_t diag_count;		/* bare doorbells received */
	struct rfm_card_stats stats;
};

/* A zeroed card with @priv_size bytes of driver state at card->priv. */
struct rfm_card *rfm_card_alloc(struct device *parent, size_t priv_size);
/* Create /dev/rfmN; the card is live for users afterwards. */
int rfm_card_register(struct rfm_card *card);
/*
 * Remove /dev/rfmN, fail every later file operation, wake sleepers and
 * revoke user mappings. Afterwards no file operation touches the hardware.
 */
void rfm_card_unregister(struct rfm_card *card);

/* Sysfs attributes of /sys/class/rfm/rfmN (rfm-sysfs.c). */
extern const struct attribute_group *rfm_card_groups[];
/*
 * The card's SRCU read section: inside it, once rfm_card_gone() said no,
 * the hardware stays until rfm_card_exit(). Sleeping inside is allowed,
 * but only for the hardware (bounded, and ended by removal), never for a
 * user copy or anything else a user can hold up.
 */
static inline int rfm_card_enter(struct rfm_card *card) __acquires(&card->srcu)
{
	return srcu_read_lock(&card->srcu);
}

static inline void rfm_card_exit(struct rfm_card *card, int idx) __releases(&card->srcu)
{
	srcu_read_unlock(&card->srcu, idx);
}

static inline bool rfm_card_gone(const struct rfm_card *card)
{
	return READ_ONCE(card->dead);
}

/* Drop the driver's reference; the card is freed after the last file closes. */
void rfm_card_put(struct rfm_card *card);

/*
 * Hand one received event to every open file that enabled its type.
 * Process context (IRQ threads, ioctl loopback).
 */
void rfm_card_deliver(struct rfm_card *card, u32 type, u32 sender, u32 data,
		      u64 sent_ns, u16 flags);

/* Wake RFM_IOC_DIAG_WAIT sleepers: callable from hard-IRQ context. */
void rfm_card_diag_ring(struct rfm_card *card);

int rfm_chrdev_init(void);
void rfm_chrdev_exit(void);

/* Card drivers, bound by the one PCI driver in rfm-main.c. */
int rfm_ivs_probe(struct pci_dev *pdev);
void rfm_ivs_remove(struct pci_dev *pdev);
int rfm_5565_probe(struct pci_dev *pdev);
void rfm_5565_remove(struct pci_dev *pdev);
void rfm_5565_shutdown(struct pci_dev *pdev);
int rfm_5565_suspend(struct device *dev);
int rfm_5565_resume(struct device *dev);
void rfm_ivs_shutdown(struct pci_dev *pdev);

#endif /* RFM_CORE_H */
