/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 5565 register paths (driver/linux/rfm5565-hw.c) against a simulated
 * register file. The simulation follows the public register facts:
 *  - LISR status bits 0..13 clear when written 0, the rest is plain;
 *  - each interrupt FIFO holds (data, sender); reading ISDn shows the
 *    oldest data word, reading SIDn returns its sender and pops both; the
 *    LISR bit is set again by the card as long as the FIFO holds entries
 *    (acknowledging a bit of a non-empty FIFO does not clear it); writing
 *    0 to SIDn empties the FIFO;
 *  - NIC 0x04 to our own node sets LCSR own-data after a few polls;
 *  - PLX DMA channel 0 copies between "host" and card memory when started,
 *    counts the bytes left down in its count register, sets DMACSR done
 *    (bit 4) and raises INTCSR bit 21; a stalled transfer stops only when
 *    abort (bit 2) is written while enable (bit 0) is clear, then reports
 *    done;
 *  - a card that is gone reads all ones everywhere.
 * These are our reading of the facts, not a card: see driver/README.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rfm5565-hw.h"

#define LOG_MAX 4096
#define HOST_BUS 0x123400000ull		/* above 4 GiB: DAC must carry the high word */
#define HOST_SIZE (1u << 20)

struct access {
	char op;			/* 'r' or 'w' */
	int bar;
	u32 off;
	u32 value;
};

struct sim {
	u8 plx[256];
	u8 regs[64];
	struct {
		u32 data[RFM5565_FIFO_DEPTH];
		u32 sender[RFM5565_FIFO_DEPTH];
		int n;
	} fifo[4];
	u8 *card;			/* card memory */
	u64 card_size;
	u8 *host;			/* host memory at HOST_BUS */
	int own_data_after;		/* polls until own data returns; <0: never */
	bool dma_never_completes;
	u32 dma_progress;		/* bytes a stalled transfer moved */
	int wait_result;		/* wait_dma's answer instead of the claim (e.g. -EINTR) */
	int arms;			/* arm_dma calls */
	int aborts;			/* aborts that took effect */
	int aborts_ignored;		/* abort written with enable still set */
	u32 lisr_arrives_on_read;	/* status bits the card sets right after a LISR read */
	bool gone;			/* surprise removal: all ones */
	int sleeps_ms;
	int dma_starts;
	u32 dma_counts[64];
	struct rfm5565 *hw;		/* for the IRQ step inside wait_dma */
	struct access log[LOG_MAX];
	int nlog;
};

static struct sim *S;

static u32 get32(u8 *p, u32 off)
{
	u32 v;

	memcpy(&v, p + off, 4);
	return v;
}

static void put32(u8 *p, u32 off, u32 v)
{
	memcpy(p + off, &v, 4);
}

static void logit(char op, int bar, u32 off, u32 value)
{
	if (S->nlog < LOG_MAX)
		S->log[S->nlog++] = (struct access){ op, bar, off, value };
}

static const u32 fifo_bit[4] = { 1u << 0, 1u << 1, 1u << 2, 1u << 7 };

static int fifo_of_reg(u32 off, bool *is_sid)
{
	if (off < 0x20 || off > 0x3c || off % 4)
		return -1;
	*is_sid = (off - 0x20) % 8 == 4;
	return (int)(off - 0x20) / 8;
}

static u32 sim_read32(void *ctx, int bar, u32 off)
{
	u32 v = 0;
	bool sid;
	int f;

	(void)ctx;
	if (S->gone) {
		v = 0xffffffffu;
	} else if (bar == RFM5565_BAR_PLX) {
		v = get32(S->plx, off);
	} else if ((f = fifo_of_reg(off, &sid)) >= 0) {
		if (S->fifo[f].n == 0) {
			v = 0;
		} else if (!sid) {
			v = S->fifo[f].data[0];
		} else {
			v = S->fifo[f].sender[0];
			S->fifo[f].n--;
			memmove(S->fifo[f].data, S->fifo[f].data + 1, S->fifo[f].n * 4);
			memmove(S->fifo[f].sender, S->fifo[f].sender + 1, S->fifo[f].n * 4);
			if (S->fifo[f].n)	/* more entries: the status stays */
				put32(S->regs, RFM_REG_LISR,
				      get32(S->regs, RFM_REG_LISR) | fifo_bit[f]);
		}
	} else {
		v = get32(S->regs, off);
		if (off == RFM_REG_LCSR && S->own_data_after > 0 && --S->own_data_after == 0)
			put32(S->regs, RFM_REG_LCSR, v | LCSR_OWN_DATA);
		if (off == RFM_REG_LISR && S->lisr_arrives_on_read) {
			put32(S->regs, off, v | S->lisr_arrives_on_read);
			S->lisr_arrives_on_read = 0;
		}
	}
	logit('r', bar, off, v);
	return v;
}

static u8 sim_read8(void *ctx, int bar, u32 off)
{
	(void)ctx;
	u8 v = S->gone ? 0xff : bar == RFM5565_BAR_PLX ? S->plx[off] : S->regs[off];

	logit('r', bar, off, v);
	return v;
}

static void start_dma(void)
{
	u32 mode = get32(S->plx, PLX_DMA0_MODE);
	u64 bus = get32(S->plx, PLX_DMA0_PCIADDR) | (u64)get32(S->plx, PLX_DMA0_DAC) << 32;
	u32 local = get32(S->plx, PLX_DMA0_LOCADDR);
	u32 count = get32(S->plx, PLX_DMA0_COUNT);
	bool to_pci = get32(S->plx, PLX_DMA0_DESC) & PLX_DMA0_DESC_TO_PCI;

	assert_int_equal(mode, PLX_DMA0_MODE_VALUE);
	assert_true(bus >= HOST_BUS && bus + count <= HOST_BUS + HOST_SIZE);
	assert_true((u64)local + count <= S->card_size);
	S->dma_counts[S->dma_starts++ % 64] = count;
	S->plx[PLX_DMA0_CSR] &= (u8)~PLX_DMA_CSR_DONE;
	if (S->dma_never_completes) {
		u32 part = S->dma_progress < count ? S->dma_progress : count;

		if (to_pci)
			memcpy(S->host + (bus - HOST_BUS), S->card + local, part);
		else
			memcpy(S->card + local, S->host + (bus - HOST_BUS), part);
		put32(S->plx, PLX_DMA0_COUNT, count - part);
		return;
	}
	if (to_pci)
		memcpy(S->host + (bus - HOST_BUS), S->card + local, count);
	else
		memcpy(S->card + local, S->host + (bus - HOST_BUS), count);
	put32(S->plx, PLX_DMA0_COUNT, 0);
	S->plx[PLX_DMA0_CSR] |= PLX_DMA_CSR_DONE;
	put32(S->plx, PLX_INTCSR, get32(S->plx, PLX_INTCSR) | PLX_INTCSR_DMA0_INT_ACTIVE);
}

static void sim_write32(void *ctx, int bar, u32 off, u32 value)
{
	bool sid;
	int f;

	(void)ctx;
	logit('w', bar, off, value);
	if (bar == RFM5565_BAR_PLX) {
		put32(S->plx, off, value);
	} else if (off == RFM_REG_LISR) {
		u32 old = get32(S->regs, off);
		/* Status bits clear when written 0; enable bits are plain. */
		u32 status = old & value & LIxR_EVENTS;

		put32(S->regs, off, status | (value & ~LIxR_EVENTS));
		/* A FIFO that still holds entries keeps (re-asserts) its bit. */
		for (f = 0; f < 4; f++)
			if (S->fifo[f].n)
				put32(S->regs, off, get32(S->regs, off) | fifo_bit[f]);
	} else if (off == RFM_REG_LCSR) {
		u32 old = get32(S->regs, off);

		put32(S->regs, off, (value & 0xffff0000u) | (old & value & 0xffffu));
	} else if ((f = fifo_of_reg(off, &sid)) >= 0) {
		if (sid && value == 0)
			S->fifo[f].n = 0;
	} else {
		put32(S->regs, off, value);
	}
}

static void sim_write8(void *ctx, int bar, u32 off, u8 value)
{
	(void)ctx;
	logit('w', bar, off, value);
	if (bar == RFM5565_BAR_PLX && off == PLX_DMA0_CSR) {
		u8 old = S->plx[off];

		/* Done is read-only; abort works only with enable already clear. */
		S->plx[off] = (u8)((value & ~PLX_DMA_CSR_DONE) | (old & PLX_DMA_CSR_DONE));
		if (value & PLX_DMA_CSR_ABORT) {
			if (old & PLX_DMA_CSR_ENABLE) {
				S->aborts_ignored++;
			} else {
				S->aborts++;
				S->plx[off] |= PLX_DMA_CSR_DONE;
			}
		}
	}
	if (bar == RFM5565_BAR_PLX) {
		if (off != PLX_DMA0_CSR)
			S->plx[off] = value;
		if (off == PLX_DMA0_CSR && (value & PLX_DMA_CSR_START))
			start_dma();
		if (off == PLX_DMA0_CSR && (value & PLX_DMA_CSR_CLEAR_INT))
			put32(S->plx, PLX_INTCSR,
			      get32(S->plx, PLX_INTCSR) & ~PLX_INTCSR_DMA0_INT_ACTIVE);
		return;
	}
	S->regs[off] = value;
	if (off == RFM_REG_NIC && value == NIC_OWN_DATA_TEST && S->regs[RFM_REG_NTN] == S->regs[RFM_REG_NID] &&
	    S->own_data_after == 0)
		S->own_data_after = 3;
}

static void sim_sleep(void *ctx, unsigned int ms)
{
	(void)ctx;
	S->sleeps_ms += (int)ms;
}

/* The "interrupt" of a finished transfer is the hard-IRQ claim, as in the driver. */
static int sim_wait_dma(void *ctx, unsigned int timeout_ms)
{
	bool done;

	(void)ctx;
	if (S->wait_result)
		return S->wait_result;
	rfm5565_irq_claim(S->hw, &done);
	if (!done)
		S->sleeps_ms += (int)timeout_ms;
	return done ? 0 : -ETIMEDOUT;
}

static void sim_arm_dma(void *ctx)
{
	(void)ctx;
	S->arms++;
}

static const struct rfm5565_io sim_io = {
	.read32 = sim_read32,
	.read8 = sim_read8,
	.write32 = sim_write32,
	.write8 = sim_write8,
	.sleep_ms = sim_sleep,
	.wait_dma = sim_wait_dma,
	.arm_dma = sim_arm_dma,
};

static struct rfm5565 hw;

/* A 128 MiB board, node 9, revision 0x90 with the window at 0x2000. */
static int setup(void **state)
{
	(void)state;
	S = calloc(1, sizeof(*S));
	S->card_size = 128u << 20;
	S->card = calloc(1, S->card_size);
	S->host = calloc(1, HOST_SIZE);
	S->regs[RFM_REG_BID] = RFM_BID_5565;
	S->regs[RFM_REG_BRV] = 0x90;
	S->regs[RFM_REG_NID] = 9;
	put32(S->regs, RFM_REG_LCSR, (1u << LCSR_MEMSIZE_SHIFT) | LCSR_LED | LCSR_SIGNAL);
	put32(S->plx, PLX_REVISION, 0xad);
	put32(S->plx, PLX_LAS1BA, 0x2000 | PLX_LAS1BA_ENABLE);
	put32(S->plx, PLX_CNTRL, 0x12345670);
	S->hw = &hw;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(S->card);
	free(S->host);
	free(S);
	return 0;
}

static void started(void)
{
	assert_int_equal(rfm5565_identify(&hw, &sim_io), 0);
	rfm5565_start(&hw);
	S->nlog = 0;
}

/* ---- identification and start ---- */

static void identifies_the_board(void **state)
{
	(void)state;
	assert_int_equal(rfm5565_identify(&hw, &sim_io), 0);
	assert_int_equal(hw.node_id, 9);
	assert_int_equal(hw.board_rev, 0x90);
	assert_int_equal(hw.memory_size, 128u << 20);
	assert_int_equal(hw.window_base, 0x2000);
	assert_int_equal(hw.plx_rev, 0xad);

	for (u32 code = 0; code < 3; code++) {
		put32(S->regs, RFM_REG_LCSR, code << LCSR_MEMSIZE_SHIFT);
		assert_int_equal(rfm5565_identify(&hw, &sim_io), 0);
		assert_int_equal(hw.memory_size, (64ull << 20) << code);
	}
	/* Older boards have no sliding window. */
	S->regs[RFM_REG_BRV] = 0x8b;
	assert_int_equal(rfm5565_identify(&hw, &sim_io), 0);
	assert_int_equal(hw.window_base, 0);
}

static void refuses_what_it_does_not_know(void **state)
{
	(void)state;
	put32(S->regs, RFM_REG_LCSR, 3u << LCSR_MEMSIZE_SHIFT);
	assert_int_equal(rfm5565_identify(&hw, &sim_io), -ENODEV);
	put32(S->regs, RFM_REG_LCSR, 0);
	S->regs[RFM_REG_BID] = 0x64;
	assert_int_equal(rfm5565_identify(&hw, &sim_io), -ENODEV);
}

static void start_quiesces_then_enables(void **state)
{
	(void)state;
	S->fifo[0].n = 5;
	S->fifo[3].n = 2;
	assert_int_equal(rfm5565_identify(&hw, &sim_io), 0);
	S->nlog = 0;
	rfm5565_start(&hw);
	assert_int_equal(S->fifo[0].n, 0);
	assert_int_equal(S->fifo[3].n, 0);
	assert_int_equal(get32(S->regs, RFM_REG_LIER),
			 rfm5565_event_bit(RFM_DEV_EV_RESET) | rfm5565_event_bit(RFM_DEV_EV_INTR1) |
			 rfm5565_event_bit(RFM_DEV_EV_INTR2) | rfm5565_event_bit(RFM_DEV_EV_INTR3) |
			 rfm5565_event_bit(RFM_DEV_EV_INTR4));
	assert_true(get32(S->regs, RFM_REG_LISR) & LIxR_GLOBAL_EN);
	assert_false(get32(S->regs, RFM_REG_LCSR) & LCSR_LED);
	assert_int_equal(get32(S->plx, PLX_CNTRL), 0x1234567c);
	/* No interrupt reaches the bus before the handler is registered... */
	assert_int_equal(get32(S->plx, PLX_INTCSR) & (PLX_INTCSR_PCI_INT_EN | PLX_INTCSR_LOCAL_INT_EN),
			 0);
	/* ... which then lets them through. */
	rfm5565_irq_enable(&hw);
	assert_int_equal(get32(S->plx, PLX_INTCSR) & (PLX_INTCSR_PCI_INT_EN | PLX_INTCSR_LOCAL_INT_EN),
			 PLX_INTCSR_PCI_INT_EN | PLX_INTCSR_LOCAL_INT_EN);
	/* The first LIER write disables everything before the FIFOs are cleared. */
	assert_int_equal(S->log[0].op, 'w');
	assert_int_equal(S->log[0].off, RFM_REG_LIER);
	assert_int_equal(S->log[0].value, 0);

	/* Before free_irq: quiet for good, the IRQ thread cannot unmask. */
	rfm5565_irq_disable(&hw);
	assert_int_equal(get32(S->regs, RFM_REG_LIER), 0);
	rfm5565_unmask(&hw, 0);
	assert_int_equal(get32(S->regs, RFM_REG_LIER), 0);
	assert_int_equal(get32(S->plx, PLX_INTCSR) & PLX_INTCSR_PCI_INT_EN, 0);
	/* The writes were flushed by reading back. */
	assert_int_equal(S->log[S->nlog - 1].op, 'r');

	rfm5565_stop(&hw);
	assert_int_equal(get32(S->regs, RFM_REG_LIER), 0);
	assert_int_equal(get32(S->plx, PLX_INTCSR) & (PLX_INTCSR_PCI_INT_EN | PLX_INTCSR_LOCAL_INT_EN |
						     PLX_INTCSR_DMA0_INT_EN), 0);
}

/* ---- sending ---- */

static void send_writes_data_then_target_then_command(void **state)
{
	static const u8 commands[] = { 0x00, 0x01, 0x02, 0x03, 0x07 };

	(void)state;
	started();
	for (u32 type = RFM_DEV_EV_RESET; type <= RFM_DEV_EV_INTR4; type++) {
		S->nlog = 0;
		assert_int_equal(rfm5565_send(&hw, type, 42, 0xdeadbeef), 0);
		assert_int_equal(S->nlog, 3);
		assert_int_equal(S->log[0].off, RFM_REG_NTD);
		assert_int_equal(S->log[0].value, 0xdeadbeef);
		assert_int_equal(S->log[1].off, RFM_REG_NTN);
		assert_int_equal(S->log[1].value, 42);
		assert_int_equal(S->log[2].off, RFM_REG_NIC);
		assert_int_equal(S->log[2].value, commands[type]);
	}
	S->nlog = 0;
	assert_int_equal(rfm5565_send(&hw, RFM_DEV_EV_INTR3, RFM_DEV_NODE_ALL, 1), 0);
	assert_int_equal(S->log[2].value, 0x03 | NIC_GLOBAL);

	S->nlog = 0;
	assert_int_equal(rfm5565_send(&hw, RFM_DEV_EV_INTR4 + 1, 1, 0), -EINVAL);
	assert_int_equal(rfm5565_send(&hw, RFM_DEV_EV_INTR1, 256, 0), -EINVAL);
	assert_int_equal(rfm5565_send(&hw, RFM_DEV_EV_INTR1, 0xfffe, 0), -EINVAL);
	assert_int_equal(S->nlog, 0);
}

/* ---- receiving ---- */

struct rx {
	u32 type, sender, data;
};

static struct rx rx[512];
static int nrx;

static void collect(void *ctx, u32 type, u32 sender, u32 data)
{
	(void)ctx;
	rx[nrx++ % 512] = (struct rx){ type, sender, data };
}

static void arrive(int fifo, u32 sender, u32 data)
{
	int n = S->fifo[fifo].n++;

	S->fifo[fifo].data[n] = data;
	S->fifo[fifo].sender[n] = sender;
	put32(S->regs, RFM_REG_LISR, get32(S->regs, RFM_REG_LISR) | fifo_bit[fifo]);
}

static void fifo_is_drained_data_before_sender(void **state)
{
	bool dma;

	(void)state;
	started();
	nrx = 0;
	arrive(0, 0x105, 11);	/* the id register may carry more than the node id */
	arrive(0, 6, 12);
	arrive(0, 7, 13);
	arrive(3, 200, 0xfeed);

	u32 pending = rfm5565_irq_claim(&hw, &dma);
	assert_false(dma);
	assert_int_equal(pending, fifo_bit[0] | fifo_bit[3]);
	assert_int_equal(get32(S->regs, RFM_REG_LIER), 0);	/* masked until serviced */
	assert_int_equal(rfm5565_irq_claim(&hw, &dma), 0);	/* masked: nothing new */

	S->nlog = 0;
	assert_int_equal(rfm5565_service(&hw, pending, collect, NULL), 4);
	assert_int_equal(nrx, 4);
	assert_int_equal(rx[0].type, RFM_DEV_EV_INTR1);
	assert_int_equal(rx[0].sender, 5);
	assert_int_equal(rx[0].data, 11);
	assert_int_equal(rx[1].sender, 6);
	assert_int_equal(rx[2].data, 13);
	assert_int_equal(rx[3].type, RFM_DEV_EV_INTR4);
	assert_int_equal(rx[3].sender, 200);
	assert_int_equal(rx[3].data, 0xfeed);
	/* Every sender-id read comes right after the data read of its FIFO. */
	for (int i = 0; i < S->nlog; i++) {
		bool sid;
		int f = fifo_of_reg(S->log[i].off, &sid);

		if (S->log[i].op == 'r' && S->log[i].bar == RFM5565_BAR_REGS && f >= 0 && sid) {
			assert_true(i > 0);
			assert_int_equal(S->log[i - 1].off, RFM_REG_ISD(f));
		}
	}
	/* Acknowledged, global enable kept, then unmasked. */
	assert_int_equal(get32(S->regs, RFM_REG_LISR) & LIxR_EVENTS, 0);
	assert_true(get32(S->regs, RFM_REG_LISR) & LIxR_GLOBAL_EN);
	rfm5565_unmask(&hw, pending);
	assert_int_equal(get32(S->regs, RFM_REG_LIER), hw.lier);
	assert_true(hw.lier & fifo_bit[0]);
}

static void a_full_fifo_is_drained_in_one_service(void **state)
{
	bool dma;

	(void)state;
	started();
	nrx = 0;
	for (u32 i = 0; i < RFM5565_FIFO_DEPTH; i++)
		arrive(1, i % 256, i);
	u32 pending = rfm5565_irq_claim(&hw, &dma);
	assert_int_equal(rfm5565_service(&hw, pending, collect, NULL), RFM5565_FIFO_DEPTH);
	for (int i = 0; i < RFM5565_FIFO_DEPTH; i++)
		assert_int_equal(rx[i].data, i);
	assert_int_equal(S->fifo[1].n, 0);
}

static void status_events_and_self_disabling(void **state)
{
	u32 bad = rfm5565_event_bit(RFM_DEV_EV_BAD_DATA);
	u32 full = rfm5565_event_bit(RFM_DEV_EV_RXFIFO_FULL);
	bool dma;

	(void)state;
	started();
	nrx = 0;
	/* Not enabled: ignored. */
	put32(S->regs, RFM_REG_LISR, get32(S->regs, RFM_REG_LISR) | bad);
	assert_int_equal(rfm5565_irq_claim(&hw, &dma), 0);

	rfm5565_set_status_events(&hw, RFM_DEV_EV_BIT(RFM_DEV_EV_BAD_DATA) |
					       RFM_DEV_EV_BIT(RFM_DEV_EV_RXFIFO_FULL));
	assert_true(get32(S->regs, RFM_REG_LIER) & bad);
	put32(S->regs, RFM_REG_LISR, get32(S->regs, RFM_REG_LISR) | full);
	u32 pending = rfm5565_irq_claim(&hw, &dma);
	assert_int_equal(pending, bad | full);
	assert_int_equal(rfm5565_service(&hw, pending, collect, NULL), 2);
	assert_int_equal(rx[0].type, RFM_DEV_EV_BAD_DATA);
	assert_int_equal(rx[0].sender, RFM_DEV_NODE_NONE);
	assert_int_equal(rx[1].type, RFM_DEV_EV_RXFIFO_FULL);
	rfm5565_unmask(&hw, pending);
	/* BAD_DATA turned itself off (no flood); RXFIFO_FULL stays on. */
	assert_false(get32(S->regs, RFM_REG_LIER) & bad);
	assert_true(get32(S->regs, RFM_REG_LIER) & full);
	/* Setting the mask again re-arms it. */
	rfm5565_set_status_events(&hw, RFM_DEV_EV_BIT(RFM_DEV_EV_BAD_DATA));
	assert_true(get32(S->regs, RFM_REG_LIER) & bad);
	assert_false(get32(S->regs, RFM_REG_LIER) & full);
	/* While masked by the IRQ path, a mask change waits for the unmask. */
	put32(S->regs, RFM_REG_LISR, get32(S->regs, RFM_REG_LISR) | bad);
	pending = rfm5565_irq_claim(&hw, &dma);
	rfm5565_set_status_events(&hw, RFM_DEV_EV_BIT(RFM_DEV_EV_RXFIFO_FULL));
	assert_int_equal(get32(S->regs, RFM_REG_LIER), 0);
	rfm5565_service(&hw, pending, collect, NULL);
	rfm5565_unmask(&hw, pending);
	assert_true(get32(S->regs, RFM_REG_LIER) & full);
}

static void reset_requests_carry_no_sender(void **state)
{
	u32 bit = rfm5565_event_bit(RFM_DEV_EV_RESET);
	bool dma;

	(void)state;
	started();
	nrx = 0;
	put32(S->regs, RFM_REG_LISR, get32(S->regs, RFM_REG_LISR) | bit);
	u32 pending = rfm5565_irq_claim(&hw, &dma);
	assert_int_equal(rfm5565_service(&hw, pending, collect, NULL), 1);
	assert_int_equal(rx[0].type, RFM_DEV_EV_RESET);
	assert_int_equal(rx[0].sender, RFM_DEV_NODE_NONE);
	assert_int_equal(get32(S->regs, RFM_REG_LISR) & bit, 0);
}

/* ---- link and ring ---- */

static void link_flags_follow_lcsr(void **state)
{
	(void)state;
	started();
	put32(S->regs, RFM_REG_LCSR, LCSR_SIGNAL | LCSR_SYNC_LOST | LCSR_RXFIFO_FULL);
	assert_int_equal(rfm5565_link(&hw),
			 RFM_DEV_LINK_SIGNAL | RFM_DEV_LINK_SYNC_LOST | RFM_DEV_LINK_RXFIFO_FULL);
	put32(S->regs, RFM_REG_LCSR, LCSR_OWN_DATA | LCSR_BAD_DATA);
	assert_int_equal(rfm5565_link(&hw), RFM_DEV_LINK_OWN_DATA | RFM_DEV_LINK_BAD_DATA);
}

static void ring_test_sees_own_data_come_back(void **state)
{
	(void)state;
	started();
	put32(S->regs, RFM_REG_LCSR, get32(S->regs, RFM_REG_LCSR) | LCSR_OWN_DATA); /* stale */
	assert_int_equal(rfm5565_ring_test(&hw), 0);
	assert_int_equal(S->regs[RFM_REG_NTN], 9);
	assert_int_equal(S->regs[RFM_REG_NIC], NIC_OWN_DATA_TEST);
	assert_true(S->sleeps_ms > 0 && S->sleeps_ms <= 30);
}

static void ring_test_fails_after_two_seconds(void **state)
{
	(void)state;
	started();
	S->own_data_after = -1;	/* broken ring */
	assert_int_equal(rfm5565_ring_test(&hw), -EIO);
	assert_int_equal(S->sleeps_ms, 2000);
}

/* ---- DMA ---- */

static void dma_moves_data_both_ways(void **state)
{
	u32 moved;

	(void)state;
	started();
	for (u32 i = 0; i < 4096; i++)
		S->host[i] = (u8)(i * 7);
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, 0x10000, 4096, &moved), 0);
	/* The card address is the window base plus the offset. */
	assert_memory_equal(S->card + 0x2000 + 0x10000, S->host, 4096);
	assert_int_equal(get32(S->plx, PLX_DMA0_DAC), (u32)(HOST_BUS >> 32));

	memset(S->host, 0, 4096);
	assert_int_equal(rfm5565_dma(&hw, false, HOST_BUS, 0x10000, 4096, &moved), 0);
	for (u32 i = 0; i < 4096; i++)
		assert_int_equal(S->host[i], (u8)(i * 7));
	assert_int_equal(get32(S->plx, PLX_DMA0_DESC), PLX_DMA0_DESC_TO_PCI);
	assert_int_equal(moved, 4096);
	assert_int_equal(S->dma_starts, 2);
	/* The completion was acknowledged: interrupt off, status cleared. */
	assert_false(get32(S->plx, PLX_INTCSR) & PLX_INTCSR_DMA0_INT_EN);
	assert_false(get32(S->plx, PLX_INTCSR) & PLX_INTCSR_DMA0_INT_ACTIVE);
}

static void dma_chunks_follow_the_plx_revision(void **state)
{
	u32 moved;

	(void)state;
	started();
	hw.plx_rev = 0xac;	/* erratum: 256-byte transfers */
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, 0, 1000, &moved), 0);
	assert_int_equal(S->dma_starts, 4);
	assert_int_equal(moved, 1000);
	/* The completion is re-armed for every transfer, not only after errors. */
	assert_int_equal(S->arms, 4);
	assert_int_equal(S->dma_counts[0], 256);
	assert_int_equal(S->dma_counts[3], 1000 - 3 * 256);
	assert_int_equal(rfm5565_dma_chunk(&hw, 256), PLX_DMA_CHUNK_MAX);

	hw.plx_rev = 0xad;
	assert_int_equal(rfm5565_dma_chunk(&hw, 1000), PLX_DMA_CHUNK_MAX);
	S->dma_starts = 0;
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, 0, HOST_SIZE, &moved), 0);
	assert_int_equal(S->dma_starts, 1);
}

/* The DMACSR writes of the test, in order. */
static int csr_writes(u8 *out, int max)
{
	int n = 0;

	for (int i = 0; i < S->nlog && n < max; i++)
		if (S->log[i].op == 'w' && S->log[i].bar == RFM5565_BAR_PLX &&
		    S->log[i].off == PLX_DMA0_CSR)
			out[n++] = (u8)S->log[i].value;
	return n;
}

static void dma_timeout_aborts_the_channel(void **state)
{
	u8 csr[8];
	u32 moved;

	(void)state;
	started();
	S->dma_never_completes = true;
	S->dma_progress = 100;
	assert_int_equal(rfm5565_dma(&hw, false, HOST_BUS, 0, 512, &moved), -ETIMEDOUT);
	assert_int_equal(S->sleeps_ms, PLX_DMA_TIMEOUT_MS);
	/* Start; enable off; abort; clear the interrupt once done. */
	assert_int_equal(csr_writes(csr, 8), 4);
	assert_int_equal(csr[0], PLX_DMA_CSR_ENABLE | PLX_DMA_CSR_START);
	assert_int_equal(csr[1], 0);
	assert_int_equal(csr[2], PLX_DMA_CSR_ABORT);
	assert_int_equal(csr[3], PLX_DMA_CSR_CLEAR_INT);
	assert_int_equal(S->aborts, 1);
	assert_int_equal(S->aborts_ignored, 0);
	assert_true(S->plx[PLX_DMA0_CSR] & PLX_DMA_CSR_DONE);
	assert_false(get32(S->plx, PLX_INTCSR) & PLX_INTCSR_DMA0_INT_EN);
	/* What arrived before the abort is reported. */
	assert_int_equal(moved, 100);
}

static void dma_interrupted_reports_the_bytes_moved(void **state)
{
	u32 moved;

	(void)state;
	started();
	hw.plx_rev = 0xac;	/* 256-byte transfers: the third one is interrupted */
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, 0, 512, &moved), 0);
	S->dma_never_completes = true;
	S->dma_progress = 40;
	S->wait_result = -EINTR;
	S->dma_starts = 0;
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, 0, 1000, &moved), -EINTR);
	assert_int_equal(S->dma_starts, 1);
	assert_int_equal(moved, 40);
	assert_int_equal(S->aborts, 1);
	/* Removal ends a transfer the same way. */
	S->wait_result = -ENODEV;
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, 0, 100, &moved), -ENODEV);
	assert_int_equal(moved, 40);
	assert_int_equal(S->aborts, 2);
}

static void stop_aborts_a_running_transfer(void **state)
{
	(void)state;
	started();
	S->plx[PLX_DMA0_CSR] = PLX_DMA_CSR_ENABLE;	/* a transfer under way */
	rfm5565_stop(&hw);
	assert_int_equal(S->aborts, 1);
	assert_int_equal(S->aborts_ignored, 0);
	assert_int_equal(get32(S->regs, RFM_REG_LIER), 0);
}

static void all_ones_is_no_card_not_status(void **state)
{
	bool done;

	(void)state;
	started();
	put32(S->regs, RFM_REG_LISR, get32(S->regs, RFM_REG_LISR) | fifo_bit[0]);
	S->gone = true;
	assert_int_equal(rfm5565_irq_claim(&hw, &done), 0);
	assert_false(done);
	assert_int_equal(rfm5565_service(&hw, fifo_bit[0], NULL, NULL), 0);
	assert_int_equal(rfm5565_link(&hw), 0);
	assert_int_equal(rfm5565_ring_test(&hw), -ENODEV);
	assert_int_equal(S->sleeps_ms, 0);
}

static int ndelivered;

static void count_delivery(void *ctx, u32 type, u32 sender, u32 data)
{
	(void)ctx;
	(void)type;
	(void)sender;
	(void)data;
	ndelivered++;
}

static void ack_is_a_constant_and_loses_no_bit(void **state)
{
	u32 bad = rfm5565_event_bit(RFM_DEV_EV_BAD_DATA);
	bool done;

	(void)state;
	started();
	S->fifo[0].data[0] = 1;
	S->fifo[0].sender[0] = 3;
	S->fifo[0].n = 1;
	put32(S->regs, RFM_REG_LISR, get32(S->regs, RFM_REG_LISR) | fifo_bit[0]);
	assert_int_equal(rfm5565_irq_claim(&hw, &done), fifo_bit[0]);
	/* The mask write is flushed by a read-back before the handler returns. */
	assert_int_equal(S->log[S->nlog - 2].op, 'w');
	assert_int_equal(S->log[S->nlog - 2].off, RFM_REG_LIER);
	assert_int_equal(S->log[S->nlog - 1].op, 'r');
	assert_int_equal(S->log[S->nlog - 1].off, RFM_REG_LIER);
	/* BAD_DATA arrives while the interrupt is serviced. */
	S->lisr_arrives_on_read = bad;
	S->nlog = 0;
	ndelivered = 0;
	assert_int_equal(rfm5565_service(&hw, fifo_bit[0], count_delivery, NULL), 1);
	assert_int_equal(ndelivered, 1);
	for (int i = 0; i < S->nlog; i++)
		if (S->log[i].op == 'w' && S->log[i].off == RFM_REG_LISR)
			assert_int_equal(S->log[i].value, (LIxR_EVENTS & ~fifo_bit[0]) | LIxR_GLOBAL_EN);
	assert_true(get32(S->regs, RFM_REG_LISR) & bad);
	assert_false(get32(S->regs, RFM_REG_LISR) & fifo_bit[0]);
}

static void dma_range_is_checked(void **state)
{
	(void)state;
	started();
	u64 room = hw.memory_size - hw.window_base;

	u32 moved;

	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, room - 4, 8, &moved), -EINVAL);
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, room + 4096, 8, &moved), -EINVAL);
	assert_int_equal(S->dma_starts, 0);
	hw.window_base = (u32)hw.memory_size + 4096;	/* garbage from the register */
	assert_int_equal(rfm5565_dma(&hw, true, HOST_BUS, 0, 8, &moved), -EINVAL);
	assert_int_equal(moved, 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(identifies_the_board),
		T(refuses_what_it_does_not_know),
		T(start_quiesces_then_enables),
		T(send_writes_data_then_target_then_command),
		T(fifo_is_drained_data_before_sender),
		T(a_full_fifo_is_drained_in_one_service),
		T(status_events_and_self_disabling),
		T(reset_requests_carry_no_sender),
		T(link_flags_follow_lcsr),
		T(ring_test_sees_own_data_come_back),
		T(ring_test_fails_after_two_seconds),
		T(dma_moves_data_both_ways),
		T(dma_chunks_follow_the_plx_revision),
		T(dma_timeout_aborts_the_channel),
		T(dma_interrupted_reports_the_bytes_moved),
		T(stop_aborts_a_running_transfer),
		T(all_ones_is_no_card_not_status),
		T(ack_is_a_constant_and_loses_no_bit),
		T(dma_range_is_checked),
	};

	return cmocka_run_group_tests_name("5565 register paths (simulated card)", tests, NULL, NULL);
}
