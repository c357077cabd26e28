/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mailbox that carries each network interrupt's data
 * word and sender on a virtual (ivshmem) card; layout in
 * <rfm/uapi/rfm_ivshmem.h>. Pure logic over a mapped mailbox area, shared
 * by the driver, its unit tests and host-side lab tools.
 */
#ifndef RFM_IVS_MBOX_H
#define RFM_IVS_MBOX_H

#include "rfm-portable.h"
#include <rfm/uapi/rfm_dev.h>
#include <rfm/uapi/rfm_ivshmem.h>

struct rfm_ivs_mbox {
	u8 *area;				/* RFM_IVS_AREA_SIZE bytes, shared */
	u32 self;				/* this node's id */
	u32 rx_tail[RFM_IVS_MAX_NODES];		/* next slot to read, per sender */
	u32 tx_head[RFM_IVS_MAX_NODES];		/* next slot to fill, per receiver */
	u64 rx_errors;				/* inconsistencies found and repaired ... */
	u64 tx_errors;				/* ... by drain and by send (own locks) */
};

typedef void (*rfm_ivs_deliver_fn)(void *ctx, u32 sender, u32 type, u32 data, u64 sent_ns);

/*
 * Lay out a blank mailbox header in @area (RFM_IVS_AREA_SIZE bytes,
 * cleared): the network's owner (the lab's ivshmem server) does this once,
 * before any node attaches.
 */
void rfm_ivs_mbox_format(void *area);

/*
 * Read-only check that @area holds our mailbox, of this version: 0, else
 * -ENODEV (blank: not an rfm network) or -EPROTO (another layout).
 */
int rfm_ivs_mbox_check(const void *area);

/*
 * Join the mailbox as node @self: check the header first and write
 * nothing unless it is ours and of this version (rfm_ivs_mbox_check); skip
 * whatever was queued for @self before (those doorbells are lost anyway)
 * and continue our own rings where the last incarnation left them.
 */
int rfm_ivs_mbox_attach(struct rfm_ivs_mbox *m, void *area, u32 self);

/* Publish (or withdraw) this node's presence; attach first. */
void rfm_ivs_mbox_set_present(struct rfm_ivs_mbox *m, bool present);

bool rfm_ivs_mbox_node_present(const struct rfm_ivs_mbox *m, u32 node);

/*
 * Queue one event for @target. 0 when queued (ring the doorbell next),
 * -EAGAIN when the receiver's ring is full, -EHOSTUNREACH when @target is
 * absent, -EINVAL for a bad target or type.
 */
int rfm_ivs_mbox_send(struct rfm_ivs_mbox *m, u32 target, u32 type, u32 data, u64 sent_ns);

/* Deliver every record waiting for this node, oldest first per sender. */
u32 rfm_ivs_mbox_drain(struct rfm_ivs_mbox *m, rfm_ivs_deliver_fn deliver, void *ctx);

#endif /* RFM_IVS_MBOX_H */
