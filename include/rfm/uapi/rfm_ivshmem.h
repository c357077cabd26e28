/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR LGPL-2.1-or-later */
/*
 * rfm_ivshmem.h - how a virtual RFM card uses QEMU's ivshmem-doorbell device.
 *
 * A wire format between nodes (guests running rfm.ko, the lab's ivshmem
 * server, host processes joining as peers), not an ioctl interface.
 *
 * The shared memory (BAR2, the same bytes on every peer) is split:
 *
 *   0 .. size - RFM_IVS_AREA_SIZE     the reflective window users map
 *   size - RFM_IVS_AREA_SIZE .. size  the reserved mailbox area below
 *
 * Peer ids (IVPosition) are node ids and must be below RFM_IVS_MAX_NODES.
 * A network interrupt of type T (RFM_DEV_EV_RESET..INTR4) rings the
 * receiver's doorbell vector T; vector RFM_IVS_VECTOR_DIAG is a bare
 * doorbell for baselines. The 32-bit data word and the sender travel in
 * the mailbox area: one single-producer/single-consumer ring per
 * (sender, receiver) pair, so senders never write the same bytes. The
 * sender fills the slot at head, then publishes head + 1 (release), then
 * rings the doorbell; the receiver reads slots up to head (acquire) and
 * publishes its tail (release). A full ring makes the sender wait for the
 * receiver. head and tail are free-running counters; the slot of counter c
 * is c % RFM_IVS_RING_SLOTS.
 *
 * All fields are little-endian. Readers validate everything: a ring whose
 * head is more than RFM_IVS_RING_SLOTS ahead of the tail, or a slot with
 * an unknown type, is discarded and counted, never trusted.
 */
#ifndef RFM_UAPI_RFM_IVSHMEM_H
#define RFM_UAPI_RFM_IVSHMEM_H

#include <linux/types.h>

#define RFM_IVS_MAGIC 0x564d4652u	/* "RFMV" */
#define RFM_IVS_VERSION 1
#define RFM_IVS_MAX_NODES 32
#define RFM_IVS_RING_SLOTS 64
#define RFM_IVS_AREA_SIZE (2u << 20)	/* reserved at the end of the shared memory */
#define RFM_IVS_MIN_SHM_SIZE (4u << 20)	/* at least 2 MiB of window */

/* Doorbell vectors: one per sendable event type, then the bare one. */
#define RFM_IVS_VECTOR_DIAG 5
#define RFM_IVS_VECTORS 6

/* BAR0 registers of the ivshmem device. */
#define RFM_IVS_REG_INTRMASK 0x00
#define RFM_IVS_REG_INTRSTATUS 0x04
#define RFM_IVS_REG_IVPOSITION 0x08
#define RFM_IVS_REG_DOORBELL 0x0c

/* rfm_ivs_node.state */
#define RFM_IVS_NODE_ABSENT 0
#define RFM_IVS_NODE_PRESENT 1		/* driver attached, interrupts enabled */

struct rfm_ivs_node {
	__le32 state;		/* RFM_IVS_NODE_*; written by the node (and cleared by the server when it leaves) */
	__le32 incarnation;	/* attaches of this id so far */
	__le32 reserved[14];
};

struct rfm_ivs_header {
	__le32 magic;		/* RFM_IVS_MAGIC once initialised */
	__le32 version;		/* RFM_IVS_VERSION */
	__le32 area_size;	/* RFM_IVS_AREA_SIZE */
	__le32 max_nodes;	/* RFM_IVS_MAX_NODES */
	__le32 ring_slots;	/* RFM_IVS_RING_SLOTS */
	__le32 reserved[11];
	struct rfm_ivs_node nodes[RFM_IVS_MAX_NODES];
};

struct rfm_ivs_slot {
	__le32 type;		/* RFM_DEV_EV_RESET..INTR4 */
	__le32 data;
	__le64 sent_ns;		/* sender's CLOCK_MONOTONIC */
};

struct rfm_ivs_ring {
	__le32 head;		/* written by the sender only */
	__le32 head_pad[15];	/* head and tail on their own cache lines */
	__le32 tail;		/* written by the receiver only */
	__le32 tail_pad[15];
	struct rfm_ivs_slot slot[RFM_IVS_RING_SLOTS];
};

/* Offsets inside the mailbox area. */
#define RFM_IVS_HEADER_OFFSET 0
#define RFM_IVS_RINGS_OFFSET 4096
#define RFM_IVS_RING_OFFSET(sender, receiver) \
	(RFM_IVS_RINGS_OFFSET + \
	 ((sender) * RFM_IVS_MAX_NODES + (receiver)) * sizeof(struct rfm_ivs_ring))

#endif /* RFM_UAPI_RFM_IVSHMEM_H */
