// SPDX-License-Identifier: GPL-2.0
/*
 * 5565 register paths over struct rfm5565_io.
 *
 * Facts used (see driver/README.md for what has run on hardware):
 * - BAR2 BID 0x65 identifies the card; LCSR bits 21:20 give 64/128/256 MiB.
 * - A network interrupt is sent by writing NTD (data), NTN (target), NIC
 *   (command; +0x08 for all nodes).
 * - Each received interrupt type has a FIFO of data words slaved to a FIFO
 *   of sender ids: read the data word first; reading the id pops both;
 *   writing 0 to the id register clears the FIFO.
 * - LISR status bits clear when written 0 and keep when written 1, so an
 *   event is acknowledged by a constant: every status bit but its own, and
 *   the global enable (bit 14). No read-modify-write, which would clear a
 *   bit the card set between the read and the write.
 * - PLX 9656 DMA channel 0 is aborted by clearing its enable bit and then
 *   writing the abort bit (DMACSR bit 2); the done bit (bit 4) says when
 *   the channel stopped. Writing bit 3 alone clears the interrupt; it does
 *   not stop a transfer.
 * - Every register reads all ones once the card is gone (surprise
 *   removal); such a value is never taken for status.
 * - PLX 9656 DMA channel 0 moves at most 0x7fff80 bytes per transfer, 256
 *   on chip revisions before 0xad.
 */
#include "rfm5565-hw.h"

static inline u32 R32(const struct rfm5565 *c, int bar, u32 off)
{
	return c->io->read32(c->io->ctx, bar, off);
}

static inline u8 R8(const struct rfm5565 *c, int bar, u32 off)
{
	return c->io->read8(c->io->ctx, bar, off);
}

static inline void W32(const struct rfm5565 *c, int bar, u32 off, u32 v)
{
	c->io->write32(c->io->ctx, bar, off, v);
}

static inline void W8(const struct rfm5565 *c, int bar, u32 off, u8 v)
{
	c->io->write8(c->io->ctx, bar, off, v);
}

/* LISR/LIER bit of each event type (RFM_DEV_EV_*); 0 = none. */
static const u32 event_bits[RFM_DEV_EV_MAX + 1] = {
	[RFM_DEV_EV_RESET] = 1u << 3,
	[RFM_DEV_EV_INTR1] = 1u << 0,
	[RFM_DEV_EV_INTR2] = 1u << 1,
	[RFM_DEV_EV_INTR3] = 1u << 2,
	[RFM_DEV_EV_INTR4] = 1u << 7,
	[RFM_DEV_EV_BAD_DATA] = 1u << 8,
	[RFM_DEV_EV_RXFIFO_FULL] = 1u << 10,
	[RFM_DEV_EV_ROGUE_PKT] = 1u << 6,
	[RFM_DEV_EV_RXFIFO_AFULL] = 1u << 9,
	[RFM_DEV_EV_SYNC_LOSS] = 1u << 11,
	[RFM_DEV_EV_WRITE_INHIBITED] = 1u << 12,
	[RFM_DEV_EV_PARITY_ERR] = 1u << 13,
};

/* NIC command of each sendable type. */
static const u8 nic_commands[RFM_DEV_EV_INTR4 + 1] = {
	[RFM_DEV_EV_RESET] = 0x00,
	[RFM_DEV_EV_INTR1] = 0x01,
	[RFM_DEV_EV_INTR2] = 0x02,
	[RFM_DEV_EV_INTR3] = 0x03,
	[RFM_DEV_EV_INTR4] = 0x07,
};

/* FIFO index (ISDn/SIDn) of the interrupts that carry data, else -1. */
static int fifo_of(u32 type)
{
	switch (type) {
	case RFM_DEV_EV_INTR1:
	case RFM_DEV_EV_INTR2:
	case RFM_DEV_EV_INTR3:
	case RFM_DEV_EV_INTR4:
		return (int)type - RFM_DEV_EV_INTR1;
	default:
		return -1;
	}
}

#define NETWORK_BITS \
	((1u << 3) | (1u << 0) | (1u << 1) | (1u << 2) | (1u << 7))
#define SELF_DISABLING_BITS ((1u << 8) | (1u << 11))

u32 rfm5565_event_bit(u32 type)
{
	return type <= RFM_DEV_EV_MAX ? event_bits[type] : 0;
}

int rfm5565_identify(struct rfm5565 *c, const struct rfm5565_io *io)
{
	u32 lcsr, code;

	memset(c, 0, sizeof(*c));
	c->io = io;
	c->board_id = R8(c, RFM5565_BAR_REGS, RFM_REG_BID);
	if (c->board_id != RFM_BID_5565)
		return -ENODEV;
	lcsr = R32(c, RFM5565_BAR_REGS, RFM_REG_LCSR);
	code = (lcsr & LCSR_MEMSIZE_MASK) >> LCSR_MEMSIZE_SHIFT;
	if (code > 2)
		return -ENODEV;
	c->memory_size = (u64)64 << 20 << code;
	c->board_rev = R8(c, RFM5565_BAR_REGS, RFM_REG_BRV);
	c->node_id = R8(c, RFM5565_BAR_REGS, RFM_REG_NID);
	c->plx_rev = (u8)R32(c, RFM5565_BAR_PLX, PLX_REVISION);
	/* Boards from revision 0x8c on have a sliding window (PLX LAS1BA). */
	if (c->board_rev >= 0x8c)
		c->window_base = R32(c, RFM5565_BAR_PLX, PLX_LAS1BA) & ~PLX_LAS1BA_ENABLE;
	return 0;
}

void rfm5565_start(struct rfm5565 *c)
{
	u32 v;
	int n;

	W32(c, RFM5565_BAR_REGS, RFM_REG_LIER, 0);
	for (n = 0; n < 4; n++)
		W32(c, RFM5565_BAR_REGS, RFM_REG_SID(n), 0);	/* empty the FIFOs */
	W32(c, RFM5565_BAR_REGS, RFM_REG_LISR, LIxR_GLOBAL_EN);
	v = R32(c, RFM5565_BAR_REGS, RFM_REG_LCSR);
	W32(c, RFM5565_BAR_REGS, RFM_REG_LCSR, v & ~LCSR_LED);	/* fail LED off */
	v = R32(c, RFM5565_BAR_PLX, PLX_CNTRL);
	W32(c, RFM5565_BAR_PLX, PLX_CNTRL,
	    (v & ~PLX_CNTRL_READ_CMD_MASK) | PLX_CNTRL_READ_MULTIPLE);

	/* Network interrupts stay enabled: unclaimed ones are drained and counted. */
	c->lier = NETWORK_BITS;
	c->masked = false;
	c->quiet = false;
	W32(c, RFM5565_BAR_REGS, RFM_REG_LIER, c->lier);
}

void rfm5565_irq_enable(struct rfm5565 *c)
{
	u32 v = R32(c, RFM5565_BAR_PLX, PLX_INTCSR);

	if (v == RFM5565_GONE32)
		return;
	W32(c, RFM5565_BAR_PLX, PLX_INTCSR, v | PLX_INTCSR_PCI_INT_EN | PLX_INTCSR_LOCAL_INT_EN);
}

void rfm5565_irq_disable(struct rfm5565 *c)
{
	u32 v;

	c->quiet = true;
	c->lier = 0;
	W32(c, RFM5565_BAR_REGS, RFM_REG_LIER, 0);
	v = R32(c, RFM5565_BAR_PLX, PLX_INTCSR);
	if (v != RFM5565_GONE32)
		W32(c, RFM5565_BAR_PLX, PLX_INTCSR,
		    v & ~(PLX_INTCSR_PCI_INT_EN | PLX_INTCSR_LOCAL_INT_EN));
	/* Reads flush the posted writes: the line is quiet once we return. */
	(void)R32(c, RFM5565_BAR_REGS, RFM_REG_LIER);
	(void)R32(c, RFM5565_BAR_PLX, PLX_INTCSR);
}

/*
 * Abort the channel and wait for its done bit; returns the bytes of the
 * @n-byte transfer still to go (the count register), or -ENODEV/-EIO.
 * Sleeps: the caller holds no lock (the hard IRQ only ever writes the
 * clear-interrupt bit to DMACSR, which neither starts nor stops it).
 */
static long dma_abort(struct rfm5565 *c, u32 n)
{
	u32 left;
	u8 csr;
	int i;

	csr = R8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR);
	if (csr == 0xff)
		return -ENODEV;
	if (!(csr & PLX_DMA_CSR_DONE)) {
		W8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR, 0);	/* enable off first */
		W8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR, PLX_DMA_CSR_ABORT);
		for (i = 0; i < PLX_DMA_ABORT_POLLS; i++) {
			csr = R8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR);
			if (csr == 0xff)
				return -ENODEV;
			if (csr & PLX_DMA_CSR_DONE)
				break;
			c->io->sleep_ms(c->io->ctx, 1);
		}
		if (i == PLX_DMA_ABORT_POLLS)
			return -EIO;
	}
	left = R32(c, RFM5565_BAR_PLX, PLX_DMA0_COUNT);
	return left > n ? n : left;
}

/* Interrupt off, status cleared: nothing of this transfer is left to fire. */
static void dma_quiet(struct rfm5565 *c)
{
	u32 v;

	W8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR, PLX_DMA_CSR_CLEAR_INT);
	v = R32(c, RFM5565_BAR_PLX, PLX_INTCSR);
	if (v != RFM5565_GONE32)
		W32(c, RFM5565_BAR_PLX, PLX_INTCSR, v & ~PLX_INTCSR_DMA0_INT_EN);
}

void rfm5565_stop(struct rfm5565 *c)
{
	u32 v;

	/* A transfer still running would write into a buffer about to go. */
	if (R8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR) & PLX_DMA_CSR_ENABLE)
		dma_abort(c, 0);
	c->quiet = true;
	W32(c, RFM5565_BAR_REGS, RFM_REG_LIER, 0);
	W32(c, RFM5565_BAR_REGS, RFM_REG_LISR, LISR_DISABLE_VALUE);
	v = R32(c, RFM5565_BAR_PLX, PLX_INTCSR);
	if (v != RFM5565_GONE32)
		W32(c, RFM5565_BAR_PLX, PLX_INTCSR,
		    v & ~(PLX_INTCSR_PCI_INT_EN | PLX_INTCSR_LOCAL_INT_EN |
			  PLX_INTCSR_DMA0_INT_EN));
	c->lier = 0;
}

void rfm5565_set_status_events(struct rfm5565 *c, u32 mask)
{
	u32 lier = NETWORK_BITS;
	u32 type;

	for (type = RFM_DEV_EV_BAD_DATA; type <= RFM_DEV_EV_MAX; type++)
		if (mask & RFM_DEV_EV_BIT(type))
			lier |= event_bits[type];
	c->lier = lier;
	if (!c->masked)
		W32(c, RFM5565_BAR_REGS, RFM_REG_LIER, lier);
}

int rfm5565_send(struct rfm5565 *c, u32 type, u32 target, u32 data)
{
	u8 cmd;

	if (type > RFM_DEV_EV_INTR4)
		return -EINVAL;
	if (target > RFM_DEV_NODE_MAX && target != RFM_DEV_NODE_ALL)
		return -EINVAL;
	cmd = nic_commands[type];
	if (target == RFM_DEV_NODE_ALL)
		cmd |= NIC_GLOBAL;
	W32(c, RFM5565_BAR_REGS, RFM_REG_NTD, data);
	W8(c, RFM5565_BAR_REGS, RFM_REG_NTN, (u8)target);
	W8(c, RFM5565_BAR_REGS, RFM_REG_NIC, cmd);
	return 0;
}

u32 rfm5565_irq_claim(struct rfm5565 *c, bool *dma_done)
{
	u32 intcsr = R32(c, RFM5565_BAR_PLX, PLX_INTCSR);
	u32 pending;

	*dma_done = false;
	if (intcsr == RFM5565_GONE32)
		return 0;	/* no card behind the line: not ours, nothing done */
	if ((intcsr & PLX_INTCSR_DMA0_INT_ACTIVE) && (intcsr & PLX_INTCSR_DMA0_INT_EN)) {
		W32(c, RFM5565_BAR_PLX, PLX_INTCSR, intcsr & ~PLX_INTCSR_DMA0_INT_EN);
		W8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR, PLX_DMA_CSR_CLEAR_INT);
		*dma_done = true;
	}
	if (c->masked)
		return 0;
	pending = R32(c, RFM5565_BAR_REGS, RFM_REG_LISR);
	if (pending == RFM5565_GONE32)
		return 0;
	pending &= c->lier & LIxR_EVENTS;
	if (pending) {
		c->masked = true;
		W32(c, RFM5565_BAR_REGS, RFM_REG_LIER, 0);
		/* Flush the posted write: the shared line must drop before we return. */
		(void)R32(c, RFM5565_BAR_REGS, RFM_REG_LIER);
	}
	return pending;
}

static void ack(struct rfm5565 *c, u32 bit)
{
	W32(c, RFM5565_BAR_REGS, RFM_REG_LISR, (LIxR_EVENTS & ~bit) | LIxR_GLOBAL_EN);
}

u32 rfm5565_service(struct rfm5565 *c, u32 pending, rfm5565_deliver_fn deliver, void *ctx)
{
	u32 delivered = 0;
	u32 type;

	for (type = 0; type <= RFM_DEV_EV_MAX; type++) {
		u32 bit = event_bits[type];
		int fifo = fifo_of(type);
		int n;

		if (!bit || !(pending & bit))
			continue;
		if (fifo < 0) {
			ack(c, bit);
			deliver(ctx, type, RFM_DEV_NODE_NONE, 0);
			delivered++;
			continue;
		}
		/* The bit may stand for several FIFO entries: drain while it stays set. */
		for (n = 0; n < RFM5565_FIFO_DEPTH; n++) {
			u32 data = R32(c, RFM5565_BAR_REGS, RFM_REG_ISD(fifo));
			u32 sid = R32(c, RFM5565_BAR_REGS, RFM_REG_SID(fifo));
			u32 lisr;

			if (sid == RFM5565_GONE32)
				return delivered;	/* the card went away */
			ack(c, bit);
			deliver(ctx, type, sid & 0xff, data);
			delivered++;
			lisr = R32(c, RFM5565_BAR_REGS, RFM_REG_LISR);
			if (lisr == RFM5565_GONE32 || !(lisr & bit))
				break;
		}
	}
	return delivered;
}

void rfm5565_unmask(struct rfm5565 *c, u32 pending)
{
	c->lier &= ~(pending & SELF_DISABLING_BITS);
	c->masked = false;
	if (!c->quiet)
		W32(c, RFM5565_BAR_REGS, RFM_REG_LIER, c->lier);
}

u32 rfm5565_link(struct rfm5565 *c)
{
	u32 lcsr = R32(c, RFM5565_BAR_REGS, RFM_REG_LCSR);
	u32 link = 0;

	if (lcsr == RFM5565_GONE32)
		return 0;	/* no card: no signal */

	if (lcsr & LCSR_SIGNAL)
		link |= RFM_DEV_LINK_SIGNAL;
	if (lcsr & LCSR_SYNC_LOST)
		link |= RFM_DEV_LINK_SYNC_LOST;
	if (lcsr & LCSR_OWN_DATA)
		link |= RFM_DEV_LINK_OWN_DATA;
	if (lcsr & LCSR_BAD_DATA)
		link |= RFM_DEV_LINK_BAD_DATA;
	if (lcsr & LCSR_RXFIFO_FULL)
		link |= RFM_DEV_LINK_RXFIFO_FULL;
	return link;
}

int rfm5565_ring_test(struct rfm5565 *c)
{
	u32 lcsr = R32(c, RFM5565_BAR_REGS, RFM_REG_LCSR);
	int n;

	if (lcsr == RFM5565_GONE32)
		return -ENODEV;
	W32(c, RFM5565_BAR_REGS, RFM_REG_LCSR, lcsr & ~LCSR_OWN_DATA);
	W8(c, RFM5565_BAR_REGS, RFM_REG_NTN, c->node_id);
	W8(c, RFM5565_BAR_REGS, RFM_REG_NIC, NIC_OWN_DATA_TEST);
	for (n = 0; n < RFM5565_RING_TEST_POLLS; n++) {
		lcsr = R32(c, RFM5565_BAR_REGS, RFM_REG_LCSR);
		if (lcsr == RFM5565_GONE32)
			return -ENODEV;	/* all ones would pass as own data */
		if (lcsr & LCSR_OWN_DATA)
			return 0;
		c->io->sleep_ms(c->io->ctx, 10);
	}
	return -EIO;
}

static void lock(struct rfm5565 *c)
{
	if (c->io->lock)
		c->io->lock(c->io->ctx);
}

static void unlock(struct rfm5565 *c)
{
	if (c->io->unlock)
		c->io->unlock(c->io->ctx);
}

u32 rfm5565_dma_chunk(const struct rfm5565 *c, u32 len)
{
	if (c->plx_rev < PLX_DMA_REV_FIXED && len > PLX_DMA_CHUNK_ERRATUM)
		return PLX_DMA_CHUNK_ERRATUM;
	return PLX_DMA_CHUNK_MAX;
}

int rfm5565_dma(struct rfm5565 *c, bool to_card, u64 bus, u64 offset, u32 len, u32 *moved)
{
	u32 chunk = rfm5565_dma_chunk(c, len);

	*moved = 0;
	if (c->window_base > c->memory_size || offset > c->memory_size - c->window_base ||
	    len > c->memory_size - c->window_base - offset)
		return -EINVAL;
	while (len) {
		u32 n = len < chunk ? len : chunk;
		long left;
		u32 v;
		int ret;

		lock(c);
		W32(c, RFM5565_BAR_PLX, PLX_DMA0_MODE, PLX_DMA0_MODE_VALUE);
		W32(c, RFM5565_BAR_PLX, PLX_DMA0_PCIADDR, (u32)bus);
		W32(c, RFM5565_BAR_PLX, PLX_DMA0_DAC, (u32)(bus >> 32));
		W32(c, RFM5565_BAR_PLX, PLX_DMA0_LOCADDR, c->window_base + (u32)offset);
		W32(c, RFM5565_BAR_PLX, PLX_DMA0_COUNT, n);
		W32(c, RFM5565_BAR_PLX, PLX_DMA0_DESC, to_card ? 0 : PLX_DMA0_DESC_TO_PCI);
		v = R32(c, RFM5565_BAR_PLX, PLX_INTCSR);
		W32(c, RFM5565_BAR_PLX, PLX_INTCSR,
		    v | PLX_INTCSR_DMA0_INT_EN | PLX_INTCSR_PCI_INT_EN);
		/* Re-armed for this transfer only: an older "done" cannot end its wait. */
		if (c->io->arm_dma)
			c->io->arm_dma(c->io->ctx);
		W8(c, RFM5565_BAR_PLX, PLX_DMA0_CSR, PLX_DMA_CSR_ENABLE | PLX_DMA_CSR_START);
		unlock(c);

		ret = c->io->wait_dma(c->io->ctx, PLX_DMA_TIMEOUT_MS);
		if (ret) {
			/* Stop the channel, wait until it did, then report what arrived. */
			left = dma_abort(c, n);
			lock(c);
			dma_quiet(c);
			unlock(c);
			if (left < 0)
				return (int)left;
			*moved += n - (u32)left;
			return ret;
		}
		*moved += n;
		bus += n;
		offset += n;
		len -= n;
	}
	return 0;
}
