/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the character device's files share between rfm-cdev.c (open,
 * release, read, poll, mmap) and rfm-ioctl.c (the requests): one open
 * file's state and its queue memory accounting.
 */
#ifndef RFM_FILE_H
#define RFM_FILE_H

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "rfm-core.h"
#include "rfm-evq.h"

/* Records a reader takes (and copies out) at a time. */
#define RFM_READ_BATCH 32

struct rfm_file {
	struct rfm_card *card;
	struct list_head node;		/* on card->files */
	struct address_space *mapping;	/* to revoke mmaps on removal */
	u32 mask;			/* enabled event types */
	spinlock_t lock;		/* protects q */
	struct rfm_evq q;
	wait_queue_head_t wq;
	u64 queue_bytes;		/* reserved in card->queue_bytes for q.rec */
};

/* Bytes a queue of @depth records takes (whole pages), and that storage. */
u64 rfm_evq_bytes(u32 depth);
struct rfm_dev_event *rfm_evq_storage(u32 depth);

/* Count @bytes of queue memory against the card's cap: 0 or -ENOSPC. */
int rfm_queue_reserve(struct rfm_card *card, u64 bytes);
void rfm_queue_unreserve(struct rfm_card *card, u64 bytes);

/* Tell the card driver which status events some file still wants. */
void rfm_card_update_mask(struct rfm_card *card);

/* The ioctl requests (rfm-ioctl.c). */
long rfm_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* RFM_FILE_H */
