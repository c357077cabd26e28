/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The special mappings of RFM2gUserMemory() and RFM2gMapDeviceMemory():
 * a DMA buffer (Offset = physical address | RFM2G_DMA_MMAP_OFFSET) and the
 * register sets of BAR0 (PLX) and BAR2 (5565 control and status).
 *
 * On a card (rfm2g:) they are the vendor driver's, through the backend's
 * board op on the node's descriptor: the special-map ioctl, then mmap, as
 * the vendor library does; the DMA buffer becomes the descriptor's, and
 * RFM2gRead()/RFM2gWrite() of at least the DMA threshold with a buffer
 * inside it go through the driver's READ/WRITE ioctls, which DMA.
 *
 * On librfm networks (shm:, dev:) there is no physical RAM to map: the DMA
 * buffer is ordinary memory of the handle, as large as asked (the address
 * only names it), and transfers to and from it are copies like any other.
 * The register sets are read-only views of a 5565 showing the node: board
 * id and revision, node id, LCSR, and the interrupt registers (LIER: the
 * enabled events; LISR: events queued; sender id and data of the oldest
 * queued INTR1..4). They live in pages (rfm2g-os.h) that librfm2g rewrites after every
 * call on the handle and every event received, through its own mapping;
 * the program's mapping is PROT_READ, so a write faults, as writes to
 * registers librfm cannot honour should.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "librfm2g/compat.h"
#include "librfm2g/rfm2g-os.h"

/* Page of each register set in the register images (rfm2g-os.h). */
#define CFG_PAGE 0
#define CTRL_PAGE 1
#define REG_PAGES 2

struct rfm2g_special {
	struct rfm2g_special *next;
	void *addr;
	size_t len;
	bool dma;
};

static void put32(uint8_t *regs, unsigned int off, uint32_t v)
{
	memcpy(regs + off, &v, 4);	/* registers are little-endian, as the host */
}

/* LISR/LIER bit of each network event. */
static const uint32_t event_bit[] = {
	[RFM2GEVENT_RESET] = RFM2G_LISR_RESET_REQ,
	[RFM2GEVENT_INTR1] = RFM2G_LISR_INT1,
	[RFM2GEVENT_INTR2] = RFM2G_LISR_INT2,
	[RFM2GEVENT_INTR3] = RFM2G_LISR_INT3,
	[RFM2GEVENT_INTR4] = RFM2G_LISR_INIT_INT,
};

/* Sender data / sender id registers of INTR1..4. */
static const unsigned int data_reg[] = { 0, rfm2g_isd1, rfm2g_isd2, rfm2g_isd3, rfm2g_initd };
static const unsigned int id_reg[] = { 0, rfm2g_sid1, rfm2g_sid2, rfm2g_sid3, rfm2g_initn };

uint32_t rfm2g__lcsr(const struct rfm2g_compat *h)
{
	uint32_t v = RFM2G_LCSR_SIGNAL_DETECT;	/* the emulated ring is always closed */
	uint64_t mib = h->size >> 20;

	if (mib == 128)
		v |= 1u << RFM2G_LCSR_MEMSIZE_SHIFT;
	else if (mib == 256)
		v |= 2u << RFM2G_LCSR_MEMSIZE_SHIFT;
	else if (mib != 64)
		v |= 3u << RFM2G_LCSR_MEMSIZE_SHIFT;
	if (h->flag[RFM__BOARD_LED])
		v |= RFM2G_LCSR_LED;
	if (h->flag[RFM__BOARD_TX_DISABLE])
		v |= RFM2G_LCSR_TXDIS;
	if (h->flag[RFM__BOARD_DARK_ON_DARK])
		v |= RFM2G_LCSR_DARK_ON_DARK;
	if (h->flag[RFM__BOARD_LOOPBACK])
		v |= RFM2G_LCSR_LOOPBACK;
	if (h->flag[RFM__BOARD_PARITY])
		v |= RFM2G_LCSR_PARITY;
	if (h->mem_offset & 1)
		v |= RFM2G_LCSR_OFF0;
	if (h->mem_offset & 2)
		v |= RFM2G_LCSR_OFF1;
	if (h->own_data)
		v |= RFM2G_LCSR_OWN_DATA;
	return v;
}

void rfm2g__ctrl_image(const struct rfm2g_compat *h, uint8_t *regs)
{
	uint32_t lisr = RFM2G_LISR_GLOBAL_ENABLE, lier = 0;

	memset(regs, 0, RFM2G_REGSIZE);
	regs[rfm2g_brv] = h->pub.Config.BoardRevision;
	regs[rfm2g_bid] = RFM2G_BID_5565;
	regs[rfm2g_nid] = (uint8_t) h->pub.Config.NodeId;
	put32(regs, rfm2g_lcsr, rfm2g__lcsr(h));
	for (unsigned int t = RFM2GEVENT_RESET; t <= RFM2GEVENT_INTR4; t++) {
		const struct rfm2g_evq *q = &h->ev[t];

		if (q->enabled)
			lier |= event_bit[t];
		if (!q->count)
			continue;
		lisr |= event_bit[t];
		if (t != RFM2GEVENT_RESET) {
			put32(regs, data_reg[t], q->ring[q->head].data);
			put32(regs, id_reg[t], q->ring[q->head].node);
		}
	}
	put32(regs, rfm2g_lisr, lisr);
	put32(regs, rfm2g_lier, lier);
}

void rfm2g__cfg_image(const struct rfm2g_compat *h, uint8_t *regs)
{
	uint32_t bigend = (h->flag[RFM__BOARD_PIO_SWAP] ? RFMOR_BIGEND_PIO : 0) |
			  (h->flag[RFM__BOARD_DMA_SWAP] ? RFMOR_BIGEND_DMA0 : 0);

	memset(regs, 0, RFM2G_COMPAT_CFG_SIZE);
	put32(regs, rfmor_bigend, bigend);
	put32(regs, rfmor_intcsr, RFMOR_INTCSR_PCI_INT_ENABLE | RFMOR_INTCSR_LOCAL_INT_ENABLE);
	put32(regs, rfmor_cntrl, RFM2GOR_CNTRL_READ_MULTIPLE);
	regs[rfmor_revision] = h->pub.Config.PlxRevision;
	put32(regs, rfmor_dmathresh, h->dma_threshold);
	put32(regs, rfmor_las1rr, ~(h->pub.Config.MemorySize - 1u));
	put32(regs, rfmor_las1ba, RFMOR_LAS1BA_ENABLE);	/* window at 0, enabled */
}

void rfm2g__views_refresh_locked(struct rfm2g_compat *h)
{
	if (!h->regs)
		return;
	rfm2g__cfg_image(h, rfm2g__pages_rw(h->regs, CFG_PAGE));
	rfm2g__ctrl_image(h, rfm2g__pages_rw(h->regs, CTRL_PAGE));
}

/* The register images, made on first use (lock held). */
static RFM2G_STATUS reg_images_locked(struct rfm2g_compat *h)
{
	if (h->regs)
		return RFM2G_SUCCESS;
	h->regs = rfm2g__pages_new(REG_PAGES, RFM2G_COMPAT_PAGE);
	if (!h->regs)
		return RFM2G_MEM_NOT_MAPPED;
	rfm2g__views_refresh_locked(h);
	return RFM2G_SUCCESS;
}

static RFM2G_STATUS remember(struct rfm2g_compat *h, void *addr, size_t len, bool dma)
{
	struct rfm2g_special *s = malloc(sizeof(*s));

	if (!s)
		return RFM2G_LOW_MEMORY;
	s->addr = addr;
	s->len = len;
	s->dma = dma;
	pthread_mutex_lock(&h->lock);
	s->next = h->specials;
	h->specials = s;
	if (dma) {
		/* One DMA buffer per handle: a new one replaces it, as per descriptor. */
		h->dma = addr;
		h->dma_len = len;
	}
	pthread_mutex_unlock(&h->lock);
	return RFM2G_SUCCESS;
}

/* The card's special map (rfm2g:), through the backend's board op. */
static RFM2G_STATUS map_hw(struct rfm2g_compat *h, RFM2G_UINT64 offset, size_t len, void **out)
{
	int r = h->board->map_special(h->node, offset, len, out);

	if (r == RFM_ESYS)
		return RFM2G_MEM_NOT_MAPPED;	/* the mmap itself */
	return r ? RFM2G_OS_ERROR : RFM2G_SUCCESS;
}

RFM2G_STATUS rfm2g__map_special(struct rfm2g_compat *h, RFM2G_UINT64 offset, RFM2G_UINT32 pages,
				volatile void **ptr)
{
	size_t len = (size_t) pages * RFM2G_COMPAT_PAGE;
	bool dma = offset & RFM2G_DMA_MMAP_OFFSET;
	RFM2G_STATUS st;
	void *p;

	if (dma && (offset & ~(RFM2G_UINT64) RFM2G_DMA_MMAP_OFFSET) % RFM2G_COMPAT_PAGE)
		return RFM2G_MEM_NOT_MAPPED;	/* what mmap() of a misaligned address gives */
	if (h->board) {
		st = map_hw(h, offset, len, &p);
	} else if (dma) {
		p = rfm2g__private_pages(len);
		st = p ? RFM2G_SUCCESS : RFM2G_MEM_NOT_MAPPED;
	} else {
		/* A register set: one page of a few hundred bytes, as on the card. */
		if (pages != 1)
			return RFM2G_MEM_NOT_MAPPED;
		pthread_mutex_lock(&h->lock);
		st = reg_images_locked(h);
		pthread_mutex_unlock(&h->lock);
		if (st != RFM2G_SUCCESS)
			return st;
		p = rfm2g__pages_view(h->regs, offset == RFM2G_BAR0_MMAP_OFFSET ? CFG_PAGE
										 : CTRL_PAGE);
		st = p ? RFM2G_SUCCESS : RFM2G_MEM_NOT_MAPPED;
	}
	if (st != RFM2G_SUCCESS)
		return st;
	st = remember(h, p, len, dma);
	if (st != RFM2G_SUCCESS) {
		rfm2g__unmap_pages(p, len);
		return st;
	}
	*ptr = p;
	return RFM2G_SUCCESS;
}

bool rfm2g__unmap_special(struct rfm2g_compat *h, volatile void *addr, size_t len,
			  RFM2G_STATUS *st)
{
	struct rfm2g_special *s, **pp;

	pthread_mutex_lock(&h->lock);
	for (pp = &h->specials; (s = *pp); pp = &s->next)
		if (s->addr == (void *) (uintptr_t) addr)
			break;
	if (s) {
		*pp = s->next;
		if (s->dma && h->dma == s->addr) {
			h->dma = NULL;
			h->dma_len = 0;
		}
	}
	pthread_mutex_unlock(&h->lock);
	if (!s)
		return false;
	*st = RFM2G_SUCCESS;
	/* Disarm the descriptor's DMA buffer: the driver knows it by the low 32 bits. */
	if (s->dma && h->board && h->board->unarm_dma(h->node, s->addr) != 0)
		*st = RFM2G_OS_ERROR;
	(void) len;	/* what we mapped goes, whatever the program counts */
	if (rfm2g__unmap_pages(s->addr, s->len) != 0)
		*st = RFM2G_OS_ERROR;
	free(s);
	return true;
}

bool rfm2g__in_dma_buffer(const struct rfm2g_compat *h, const void *buf, size_t len)
{
	const uint8_t *p = buf, *b = h->dma;

	return b && p >= b && p < b + h->dma_len && len <= h->dma_len - (size_t) (p - b);
}

void rfm2g__views_release(struct rfm2g_compat *h)
{
	/*
	 * The program's mappings outlive RFM2gClose(), as with the vendor
	 * driver (munmap is the program's); only the bookkeeping and our own
	 * image mapping go. A register view then shows the last state.
	 */
	while (h->specials) {
		struct rfm2g_special *s = h->specials;

		h->specials = s->next;
		free(s);
	}
	rfm2g__pages_free(h->regs);
	h->regs = NULL;
}
