/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register paths of VMIC/GE/Abaco 5565-family cards:
 * identification, interrupt enable/status/acknowledge, sending network
 * interrupts, draining the receive FIFOs, the ring-continuity test and
 * PLX 9656 DMA.
 *
 * Written from public register facts and pure logic: every access goes
 * through struct rfm5565_io, so the same file runs in the kernel (MMIO)
 * and in user-space unit tests against a simulated register file. No
 * locking here: the caller serialises (see the notes per function).
 */
#ifndef RFM5565_HW_H
#define RFM5565_HW_H

#include "rfm-portable.h"
#include <rfm/uapi/rfm_dev.h>

#define RFM5565_VENDOR 0x114a
#define RFM5565_DEVICE 0x5565

/* PCI BARs */
#define RFM5565_BAR_PLX 0		/* PLX 9656 local configuration */
#define RFM5565_BAR_REGS 2		/* RFM control and status */
#define RFM5565_BAR_MEM 3		/* the reflective memory window */

/* PLX 9656 registers (BAR0) */
#define PLX_BIGEND 0x0c
#define PLX_INTCSR 0x68
#define  PLX_INTCSR_PCI_INT_EN BIT(8)
#define  PLX_INTCSR_LOCAL_INT_EN BIT(11)
#define  PLX_INTCSR_LOCAL_INT_ACTIVE BIT(15)
#define  PLX_INTCSR_DMA0_INT_EN BIT(18)
#define  PLX_INTCSR_DMA0_INT_ACTIVE BIT(21)
#define PLX_CNTRL 0x6c
#define  PLX_CNTRL_READ_CMD_MASK 0xfu
#define  PLX_CNTRL_READ_MULTIPLE 0xcu
#define PLX_REVISION 0x74
#define PLX_DMA0_MODE 0x80
/* 32-bit bus, ready, BTERM, burst, done interrupt to PCI */
#define  PLX_DMA0_MODE_VALUE 0x000205c3u
#define PLX_DMA0_PCIADDR 0x84
#define PLX_DMA0_LOCADDR 0x88
#define PLX_DMA0_COUNT 0x8c
#define PLX_DMA0_DESC 0x90
#define  PLX_DMA0_DESC_TO_PCI 0x8u		/* local (card) -> PCI (host) */
#define PLX_DMA0_CSR 0xa8			/* 8-bit */
#define  PLX_DMA_CSR_ENABLE 0x01
#define  PLX_DMA_CSR_START 0x02
#define  PLX_DMA_CSR_ABORT 0x04		/* with ENABLE clear: abort; DONE follows */
#define  PLX_DMA_CSR_CLEAR_INT 0x08
#define  PLX_DMA_CSR_DONE 0x10			/* read-only: channel done (or aborted) */
#define PLX_DMA_ABORT_POLLS 100			/* x 1 ms for DONE after an abort */
#define PLX_DMA0_DAC 0xb4
#define PLX_LAS1BA 0xf4
#define  PLX_LAS1BA_ENABLE 0x1u

#define PLX_DMA_CHUNK_MAX 0x7fff80u		/* bytes per transfer */
#define PLX_DMA_CHUNK_ERRATUM 0x100u		/* on PLX revisions before 0xad */
#define PLX_DMA_REV_FIXED 0xad
#define PLX_DMA_TIMEOUT_MS 8000

/* RFM registers (BAR2) */
#define RFM_REG_BRV 0x00			/* 8-bit board revision */
#define RFM_REG_BID 0x01			/* 8-bit board id */
#define  RFM_BID_5565 0x65
#define RFM_REG_NID 0x04			/* 8-bit node id */
#define RFM_REG_LCSR 0x08
#define  LCSR_LED BIT(31)
#define  LCSR_MEMSIZE_SHIFT 20
#define  LCSR_MEMSIZE_MASK (3u << 20)
#define  LCSR_RXFIFO_FULL BIT(5)
#define  LCSR_SYNC_LOST BIT(3)
#define  LCSR_SIGNAL BIT(2)
#define  LCSR_BAD_DATA BIT(1)
#define  LCSR_OWN_DATA BIT(0)
#define RFM_REG_LISR 0x10
#define RFM_REG_LIER 0x14
#define  LIxR_GLOBAL_EN BIT(14)		/* LISR: always written back set */
#define  LIxR_EVENTS 0x3fffu
#define  LISR_DISABLE_VALUE 0xffff03f3u		/* written when the driver leaves */
#define RFM_REG_NTD 0x18			/* 32-bit data to send */
#define RFM_REG_NTN 0x1c			/* 8-bit target node */
#define RFM_REG_NIC 0x1d			/* 8-bit command */
#define  NIC_GLOBAL 0x08
#define  NIC_OWN_DATA_TEST 0x04
#define RFM_REG_ISD(n) (0x20 + 8 * (n))		/* FIFO n = 0..3: data ... */
#define RFM_REG_SID(n) (0x24 + 8 * (n))		/* ... and sender id; read data first */

#define RFM5565_FIFO_DEPTH 127
#define RFM5565_RING_TEST_POLLS 200		/* x 10 ms: 2 s */

struct rfm5565_io {
	u32 (*read32)(void *ctx, int bar, u32 off);
	u8 (*read8)(void *ctx, int bar, u32 off);
	void (*write32)(void *ctx, int bar, u32 off, u32 value);
	void (*write8)(void *ctx, int bar, u32 off, u8 value);
	void (*sleep_ms)(void *ctx, unsigned int ms);
	/*
	 * Wait until rfm5565_irq_claim() reported DMA done: 0, -ETIMEDOUT,
	 * -EINTR (a signal), -ENODEV (the card is being removed).
	 */
	int (*wait_dma)(void *ctx, unsigned int timeout_ms);
	/*
	 * Forget any earlier "DMA done": called with the lock held just before
	 * each transfer starts, so a stale completion cannot end its wait.
	 */
	void (*arm_dma)(void *ctx);
	/*
	 * Optional: exclude the hard-IRQ handler (which holds the same lock
	 * around rfm5565_irq_claim()) while DMA registers are changed.
	 */
	void (*lock)(void *ctx);
	void (*unlock)(void *ctx);
	void *ctx;
};

struct rfm5565 {
	const struct rfm5565_io *io;
	u8 node_id;
	u8 board_id;
	u8 board_rev;
	u8 plx_rev;
	u64 memory_size;	/* installed memory */
	u32 window_base;	/* card address of the PCI window (sliding window) */
	u32 lier;		/* event bits the driver wants enabled */
	bool masked;		/* LIER held at 0 until the IRQ thread ran */
	bool quiet;		/* interrupts disabled for good: unmask leaves LIER at 0 */
};

/* A read of all ones: the card is gone (surprise removal) or broken. */
#define RFM5565_GONE32 0xffffffffu

typedef void (*rfm5565_deliver_fn)(void *ctx, u32 type, u32 sender, u32 data);

/* Read the identity registers; -ENODEV if this is no 5565 card we know. */
int rfm5565_identify(struct rfm5565 *c, const struct rfm5565_io *io);

/*
 * Quiesce FIFOs and interrupts, then enable network interrupts on the
 * card; the PLX still passes none to the bus (rfm5565_irq_enable).
 */
void rfm5565_start(struct rfm5565 *c);

/* Let the PLX raise the PCI interrupt: after the handler is registered. */
void rfm5565_irq_enable(struct rfm5565 *c);

/*
 * Stop the card raising interrupts (LIER and the PLX's PCI enable, read
 * back so the writes have landed) and keep the IRQ thread from unmasking
 * again: before free_irq(). Caller holds the irq_claim lock.
 */
void rfm5565_irq_disable(struct rfm5565 *c);

/*
 * Abort a transfer still running (waiting for the channel's done bit: it
 * sleeps), then disable every interrupt source before the driver lets go
 * and before the DMA buffer is freed. After free_irq(), so no lock.
 */
void rfm5565_stop(struct rfm5565 *c);

/* The LISR/LIER bit of an event type, 0 for types the card lacks. */
u32 rfm5565_event_bit(u32 type);

/*
 * Enable the status events in @mask (RFM_DEV_EV_BIT set) besides the
 * always-enabled network interrupts; re-arms self-disabled ones. Caller
 * holds the lock it also holds around rfm5565_irq_claim().
 */
void rfm5565_set_status_events(struct rfm5565 *c, u32 mask);

/*
 * Send RESET or INTR1..4 to @target (0..255 or RFM_DEV_NODE_ALL): NTD,
 * then NTN, then NIC. Callers serialise sends.
 */
int rfm5565_send(struct rfm5565 *c, u32 type, u32 target, u32 data);

/*
 * Hard-IRQ part: acknowledge a finished DMA (*dma_done = true) and, when
 * events are pending, mask them (LIER = 0) so the shared line drops.
 * Returns the pending event bits for rfm5565_service().
 */
u32 rfm5565_irq_claim(struct rfm5565 *c, bool *dma_done);

/*
 * Thread part, no lock held (it calls @deliver): for each pending bit read
 * the FIFO (data, then sender id, which pops both), acknowledge in LISR,
 * deliver, and repeat while the bit stays set; status events are
 * delivered once. Returns the number of events delivered.
 */
u32 rfm5565_service(struct rfm5565 *c, u32 pending, rfm5565_deliver_fn deliver, void *ctx);

/*
 * After rfm5565_service(), with the irq_claim lock held: BAD_DATA and
 * SYNC_LOSS among @pending disable themselves (no interrupt flood) until
 * rfm5565_set_status_events() re-arms them; the rest is unmasked.
 */
void rfm5565_unmask(struct rfm5565 *c, u32 pending);

/* RFM_DEV_LINK_* flags from LCSR. */
u32 rfm5565_link(struct rfm5565 *c);

/*
 * Own-data loopback round the ring: 0, -EIO when it did not return in 2 s,
 * -ENODEV when the card reads all ones.
 */
int rfm5565_ring_test(struct rfm5565 *c);

/*
 * Move @len bytes between host bus address @bus and window offset @offset
 * with PLX DMA channel 0, in chunks the chip allows, waiting up to 8 s for
 * each. A wait that ends early (signal, removal, timeout) aborts the
 * channel and waits for its done bit before returning, so the buffer is
 * free again; *@moved says how many bytes arrived (whole chunks plus what
 * the count register says of the aborted one). Callers serialise
 * transfers and check the range.
 */
int rfm5565_dma(struct rfm5565 *c, bool to_card, u64 bus, u64 offset, u32 len, u32 *moved);

/* Largest chunk the PLX revision allows for a transfer of @len bytes. */
u32 rfm5565_dma_chunk(const struct rfm5565 *c, u32 len);

#endif /* RFM5565_HW_H */
