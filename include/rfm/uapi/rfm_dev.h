/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR LGPL-2.1-or-later */
/*
 * rfm_dev.h - the user-space interface of librfm's kernel driver (rfm.ko).
 *
 * One character device /dev/rfmN per card: a real 5565-family card
 * (PCI 114a:5565) or a virtual one (QEMU ivshmem-doorbell, PCI 1af4:1110).
 *
 *   mmap   the reflective window, offset 0 .. window_size (MAP_SHARED only;
 *          uncached on real cards).
 *   read   struct rfm_dev_event records, oldest first; blocks unless
 *          O_NONBLOCK; the size must hold at least one record.
 *   poll   EPOLLIN while records are queued; EPOLLHUP|EPOLLERR once the
 *          card is gone.
 *   ioctl  the RFM_IOC_* requests below.
 *
 * Every open file has its own event queue (default RFM_DEV_QUEUE_DEFAULT
 * records) and its own enable mask: two files on one node both receive
 * every event they enabled. A full queue drops the newest records and
 * says so: the first dropped record turns into one RFM_DEV_EV_OVERFLOW
 * record whose data counts the records dropped until the reader made room.
 * Sequence numbers count every record meant for the file, dropped ones
 * included, so after an overflow record with sequence S and data D the
 * next record has sequence S + D: nothing is lost silently.
 *
 * Structures have fixed-width fields and no implicit padding. Each ioctl
 * encodes the size of its structure; the driver accepts any size from the
 * first published one up: fields a newer program knows and the driver does
 * not must be zero, fields the driver fills and an older program does not
 * know are left out.
 */
#ifndef RFM_UAPI_RFM_DEV_H
#define RFM_UAPI_RFM_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Incremented when the interface changes incompatibly. */
#define RFM_DEV_ABI_VERSION 2	/* 2: ioctl magic 0xD5 (1 used 0xB5, rpmsg's) */

/* ---- event types: 0..4 as on the cards, then status types ---- */
#define RFM_DEV_EV_RESET 0		/* network reset request */
#define RFM_DEV_EV_INTR1 1		/* network interrupts with 32-bit data */
#define RFM_DEV_EV_INTR2 2
#define RFM_DEV_EV_INTR3 3
#define RFM_DEV_EV_INTR4 4		/* "init" interrupt on 5565 cards */
#define RFM_DEV_EV_OVERFLOW 8		/* this file's queue dropped `data` records */
#define RFM_DEV_EV_BAD_DATA 9		/* 5565 status events, sender RFM_DEV_NODE_NONE */
#define RFM_DEV_EV_RXFIFO_FULL 10
#define RFM_DEV_EV_ROGUE_PKT 11
#define RFM_DEV_EV_RXFIFO_AFULL 12
#define RFM_DEV_EV_SYNC_LOSS 13
#define RFM_DEV_EV_WRITE_INHIBITED 14
#define RFM_DEV_EV_PARITY_ERR 15
#define RFM_DEV_EV_MAX 15

#define RFM_DEV_EV_BIT(type) (1u << (type))
/* Types a program may send. */
#define RFM_DEV_SENDABLE_MASK 0x001fu
/* Types a file may enable; overflow records are always delivered. */
#define RFM_DEV_MASK_ALL 0xfe1fu

/* ---- node ids ---- */
#define RFM_DEV_NODE_MAX 255		/* ids are 0..255 on the fibre */
#define RFM_DEV_NODE_ALL 0xffffu	/* send target: every other node */
#define RFM_DEV_NODE_NONE 0xffffffffu	/* sender of status events */

/* ---- one received event, as read(2) returns it ---- */
#define RFM_DEV_EVF_LOOPBACK 0x1	/* sent by this node to itself */

struct rfm_dev_event {
	__u16 type;		/* RFM_DEV_EV_* */
	__u16 flags;		/* RFM_DEV_EVF_* */
	__u32 sender;		/* node id, or RFM_DEV_NODE_NONE */
	__u32 data;		/* the 32-bit data word; dropped count for OVERFLOW */
	__u32 reserved;		/* zero */
	__u64 seq;		/* per-file sequence number, from 1 */
	__u64 sent_ns;		/* sender's CLOCK_MONOTONIC, 0 if the card cannot carry it */
	__u64 rx_ns;		/* this node's CLOCK_MONOTONIC when the driver took it */
};

/* ---- card facts ---- */
#define RFM_DEV_CARD_5565 1		/* VMIC/GE/Abaco 5565 family */
#define RFM_DEV_CARD_IVSHMEM 2		/* QEMU ivshmem-doorbell virtual card */

#define RFM_DEV_CAP_DMA 0x01		/* RFM_IOC_DMA uses a DMA engine (else a CPU copy) */
#define RFM_DEV_CAP_RING_TEST 0x02	/* RFM_IOC_RING_TEST is available */
#define RFM_DEV_CAP_NODE_PRESENCE 0x04	/* sends to absent nodes fail (EHOSTUNREACH) */
#define RFM_DEV_CAP_SENT_TIME 0x08	/* events carry the sender's timestamp */
#define RFM_DEV_CAP_DIAG_DOORBELL 0x10	/* RFM_IOC_DIAG_KICK/WAIT are available */
#define RFM_DEV_CAP_UNCACHED 0x20	/* mmap gives an uncached mapping */

#define RFM_DEV_LINK_SIGNAL 0x01	/* optical signal detected */
#define RFM_DEV_LINK_SYNC_LOST 0x02	/* receiver lost sync */
#define RFM_DEV_LINK_OWN_DATA 0x04	/* own data came back round the ring */
#define RFM_DEV_LINK_BAD_DATA 0x08
#define RFM_DEV_LINK_RXFIFO_FULL 0x10

#define RFM_DEV_QUEUE_DEFAULT 1024
#define RFM_DEV_QUEUE_MIN 16
#define RFM_DEV_QUEUE_MAX 65536

struct rfm_dev_info {
	__u32 abi_version;	/* RFM_DEV_ABI_VERSION */
	__u32 card_type;	/* RFM_DEV_CARD_* */
	__u32 node_id;		/* this node's id */
	__u32 max_nodes;	/* node ids this card can address (ids 0..max_nodes-1) */
	__u64 window_size;	/* bytes that mmap and RFM_IOC_DMA reach */
	__u64 memory_size;	/* memory on the card (5565) or shared memory size (ivshmem) */
	__u32 caps;		/* RFM_DEV_CAP_* */
	__u32 queue_depth;	/* this file's queue capacity in records */
	__u32 event_size;	/* sizeof(struct rfm_dev_event) */
	__u32 link;		/* RFM_DEV_LINK_* now */
	__u32 board_id;		/* 5565: BID register; ivshmem: 0 */
	__u32 board_revision;	/* 5565: BRV register; ivshmem: PCI revision */
	char driver_version[16]; /* NUL-terminated, e.g. "0.1.0" */
	__u32 reserved[8];	/* zero */
};

/* ---- sending ---- */
#define RFM_DEV_SEND_LOOPBACK 0x1	/* also (or, for target == own id, only) deliver here */

struct rfm_dev_send {
	__u32 type;		/* RFM_DEV_EV_RESET or RFM_DEV_EV_INTR1..4 */
	__u32 target;		/* node id, or RFM_DEV_NODE_ALL */
	__u32 data;		/* carried to the receiver (RESET carries none on 5565) */
	__u32 flags;		/* RFM_DEV_SEND_* */
};

/* ---- bulk transfers ---- */
#define RFM_DEV_DMA_TO_CARD 0		/* user buffer -> window */
#define RFM_DEV_DMA_FROM_CARD 1		/* window -> user buffer */

struct rfm_dev_dma {
	__u64 offset;		/* window offset */
	__u64 length;		/* bytes; 0 is allowed */
	__u64 buf;		/* user address */
	__u32 dir;		/* RFM_DEV_DMA_* */
	__u32 flags;		/* zero */
};

/* ---- counters: the card's, then this open file's ---- */
struct rfm_dev_counters {
	__u64 tx_events;	/* events this node sent (a broadcast counts once) */
	__u64 rx_events;	/* network events the card received */
	__u64 rx_unclaimed;	/* received events no open file had enabled */
	__u64 irqs;		/* interrupts taken */
	__u64 tx_timeouts;	/* ivshmem: a receiver's mailbox stayed full */
	__u64 mailbox_errors;	/* ivshmem: inconsistent mailbox state found and repaired */
	__u64 dma_bytes;	/* bytes moved by RFM_IOC_DMA */
	__u64 dma_errors;	/* failed transfers */
	__u64 file_queued;	/* records queued to this file */
	__u64 file_dropped;	/* records this file's full queue dropped */
	__u64 file_overflows;	/* overflow records this file received */
	__u64 reserved[5];	/* zero */
};

/* ---- diagnostics: a bare doorbell, for baselines (virtual cards only) ---- */
struct rfm_dev_diag_wait {
	__u64 count;		/* in: last count seen; out: count now */
	__u32 timeout_ms;	/* 0: do not wait */
	__u32 reserved;		/* zero */
};

/*
 * 0xD5, numbers 0x00-0x2F: free in Documentation/userspace-api/ioctl/
 * ioctl-number.rst (0xB5, used by ABI 1, is rpmsg's). The driver checks
 * every request's type, number, direction and size: exact for __u32 and
 * argument-less requests, for structures at least the first published
 * size and at most 4096 bytes (unknown trailing bytes must be zero).
 * Requests that act on the network or the card (SEND, DMA to the card,
 * RING_TEST, DIAG_KICK) need a file opened for writing (EBADF otherwise).
 * RFM_IOC_DMA returns 0 when every byte moved, or the number of bytes
 * moved when a signal or a fault ended it after some progress.
 */
#define RFM_IOC_MAGIC 0xD5

#define RFM_IOC_GET_INFO	_IOR(RFM_IOC_MAGIC, 0x00, struct rfm_dev_info)
#define RFM_IOC_SEND		_IOW(RFM_IOC_MAGIC, 0x01, struct rfm_dev_send)
#define RFM_IOC_SET_MASK	_IOW(RFM_IOC_MAGIC, 0x02, __u32)
#define RFM_IOC_GET_MASK	_IOR(RFM_IOC_MAGIC, 0x03, __u32)
#define RFM_IOC_SET_QUEUE_DEPTH	_IOW(RFM_IOC_MAGIC, 0x04, __u32)
#define RFM_IOC_FLUSH		_IO(RFM_IOC_MAGIC, 0x05)
#define RFM_IOC_GET_COUNTERS	_IOR(RFM_IOC_MAGIC, 0x06, struct rfm_dev_counters)
#define RFM_IOC_DMA		_IOW(RFM_IOC_MAGIC, 0x07, struct rfm_dev_dma)
#define RFM_IOC_RING_TEST	_IO(RFM_IOC_MAGIC, 0x08)
#define RFM_IOC_DIAG_KICK	_IOW(RFM_IOC_MAGIC, 0x20, __u32)
#define RFM_IOC_DIAG_WAIT	_IOWR(RFM_IOC_MAGIC, 0x21, struct rfm_dev_diag_wait)

#endif /* RFM_UAPI_RFM_DEV_H */
