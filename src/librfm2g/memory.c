/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g data transfer and user memory over librfm's window.
 *
 * Checks follow the documented order of each call. Deliberately better:
 * range checks are done in 64 bits (Offset + Length cannot wrap), and
 * RFM2gPeek64/RFM2gPoke64 work (the Linux library says NOT_IMPLEMENTED).
 * RFM2gUserMemory() hands out a pointer into the window librfm has
 * mapped; DMA buffers and register sets are special mappings (views.c).
 * On a card, a transfer of at least the DMA threshold whose buffer lies in
 * the handle's DMA buffer goes through the vendor driver, which DMAs.
 */
#include <string.h>

#include "librfm2g/compat.h"

/*
 * A transfer the vendor driver would DMA: on a card, a DMA buffer mapped on
 * this handle holds @buf and @len reaches the threshold. True when done so
 * (*@st its status); false to copy through the window.
 */
static bool hw_dma(struct rfm2g_compat *h, bool to_window, RFM2G_UINT32 offset,
		   void *buf, RFM2G_UINT32 len, RFM2G_STATUS *st)
{
	bool eligible;

	if (!h->board || !len)
		return false;
	pthread_mutex_lock(&h->lock);
	eligible = len >= h->dma_threshold && rfm2g__in_dma_buffer(h, buf, len);
	pthread_mutex_unlock(&h->lock);
	if (!eligible)
		return false;
	*st = h->board->dma(h->node, to_window, offset, buf, len) ? RFM2G_OS_ERROR : RFM2G_SUCCESS;
	return true;
}

/* RFM2gRead() (@to_window false) and RFM2gWrite(), checked in the documented order. */
static RFM2G_STATUS transfer(RFM2GHANDLE rh, RFM2G_UINT32 offset, void *buf, RFM2G_UINT32 len,
			     bool to_window)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);
	int r = 0;

	if (st != RFM2G_SUCCESS)
		return st;
	if ((uint64_t) offset + len > h->pub.Config.MemorySize)
		st = RFM2G_OUT_OF_RANGE;
	else if (!buf)
		st = RFM2G_BAD_PARAMETER_3;
	else if (hw_dma(h, to_window, offset, buf, len, &st))
		;	/* the driver's DMA to or from the DMA buffer */
	else if (len && to_window)
		r = rfm_mem_write(h->node, offset, buf, len);
	else if (len)
		r = rfm_mem_read(h->node, offset, buf, len);
	if (r != 0)
		st = RFM2G_OS_ERROR;
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gRead(RFM2GHANDLE rh, RFM2G_UINT32 Offset, void *Buffer, RFM2G_UINT32 Length)
{
	return transfer(rh, Offset, Buffer, Length, false);
}

STDRFM2GCALL RFM2gWrite(RFM2GHANDLE rh, RFM2G_UINT32 Offset, void *Buffer, RFM2G_UINT32 Length)
{
	return transfer(rh, Offset, Buffer, Length, true);
}

/* Range, then alignment, as the RFM2g library checks a single access. */
static RFM2G_STATUS check_single(const struct rfm2g_compat *h, RFM2G_UINT32 offset,
				 unsigned int width)
{
	if ((uint64_t) offset + width > h->pub.Config.MemorySize)
		return RFM2G_OUT_OF_RANGE;
	if (offset & (width - 1))
		return RFM2G_UNALIGNED_OFFSET;
	return RFM2G_SUCCESS;
}

/* One naturally aligned, single access of @width bytes through librfm. */
static int peek_width(rfm_node *node, RFM2G_UINT32 offset, unsigned int width, uint64_t *v)
{
	uint8_t v8 = 0;
	uint16_t v16 = 0;
	uint32_t v32 = 0;
	int r;

	switch (width) {
	case 1:
		r = rfm_mem_peek8(node, offset, &v8);
		*v = v8;
		return r;
	case 2:
		r = rfm_mem_peek16(node, offset, &v16);
		*v = v16;
		return r;
	case 4:
		r = rfm_mem_peek32(node, offset, &v32);
		*v = v32;
		return r;
	default:
		return rfm_mem_peek64(node, offset, v);
	}
}

static int poke_width(rfm_node *node, RFM2G_UINT32 offset, unsigned int width, uint64_t v)
{
	switch (width) {
	case 1:
		return rfm_mem_poke8(node, offset, (uint8_t) v);
	case 2:
		return rfm_mem_poke16(node, offset, (uint16_t) v);
	case 4:
		return rfm_mem_poke32(node, offset, (uint32_t) v);
	default:
		return rfm_mem_poke64(node, offset, v);
	}
}

/*
 * A peek of @width bytes into *@value, checked as documented: the handle,
 * Value, range, alignment.
 */
static RFM2G_STATUS peek(RFM2GHANDLE rh, RFM2G_UINT32 offset, void *value, unsigned int width)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);
	uint64_t v = 0;

	if (st != RFM2G_SUCCESS)
		return st;
	if (!value)
		st = RFM2G_BAD_PARAMETER_3;
	else
		st = check_single(h, offset, width);
	if (st == RFM2G_SUCCESS && peek_width(h->node, offset, width, &v) != 0)
		st = RFM2G_OS_ERROR;
	if (st == RFM2G_SUCCESS)
		rfm2g__store(value, width, v);
	rfm2g__put(h);
	return st;
}

static RFM2G_STATUS poke(RFM2GHANDLE rh, RFM2G_UINT32 offset, unsigned int width, uint64_t v)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	st = check_single(h, offset, width);
	if (st == RFM2G_SUCCESS && poke_width(h->node, offset, width, v) != 0)
		st = RFM2G_OS_ERROR;
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gPeek8(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT8 *Value)
{
	return peek(rh, Offset, Value, sizeof(*Value));
}

STDRFM2GCALL RFM2gPeek16(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT16 *Value)
{
	return peek(rh, Offset, Value, sizeof(*Value));
}

STDRFM2GCALL RFM2gPeek32(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT32 *Value)
{
	return peek(rh, Offset, Value, sizeof(*Value));
}

STDRFM2GCALL RFM2gPeek64(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT64 *Value)
{
	return peek(rh, Offset, Value, sizeof(*Value));
}

STDRFM2GCALL RFM2gPoke8(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT8 Value)
{
	return poke(rh, Offset, sizeof(Value), Value);
}

STDRFM2GCALL RFM2gPoke16(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT16 Value)
{
	return poke(rh, Offset, sizeof(Value), Value);
}

STDRFM2GCALL RFM2gPoke32(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT32 Value)
{
	return poke(rh, Offset, sizeof(Value), Value);
}

STDRFM2GCALL RFM2gPoke64(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT64 Value)
{
	return poke(rh, Offset, sizeof(Value), Value);
}

static RFM2G_UINT32 pages_of(RFM2G_UINT32 bytes)
{
	return (RFM2G_UINT32) (((uint64_t) bytes + RFM2G_COMPAT_PAGE - 1) / RFM2G_COMPAT_PAGE);
}

static RFM2G_STATUS map_user(RFM2GHANDLE rh, volatile void **ptr, RFM2G_UINT64 Offset,
			     RFM2G_UINT32 Pages)
{
	uint64_t bytes = (uint64_t) Pages * RFM2G_COMPAT_PAGE;
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get_arg(rh, ptr != NULL, RFM2G_BAD_PARAMETER_2, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!Pages) {
		st = RFM2G_BAD_PARAMETER_4;
	} else if (!(Offset & RFM2G_DMA_MMAP_OFFSET) &&
		   (bytes > h->pub.Config.MemorySize ||
		    Offset + bytes > h->pub.Config.MemorySize)) {
		st = RFM2G_OUT_OF_RANGE;
	} else if ((Offset & RFM2G_BAR0_MMAP_OFFSET) && Offset != RFM2G_BAR0_MMAP_OFFSET) {
		st = RFM2G_BAD_PARAMETER_3;
	} else if ((Offset & RFM2G_BAR2_MMAP_OFFSET) && Offset != RFM2G_BAR2_MMAP_OFFSET) {
		st = RFM2G_BAD_PARAMETER_3;
	} else if (Offset & (RFM2G_DMA_MMAP_OFFSET | RFM2G_BAR0_MMAP_OFFSET |
			     RFM2G_BAR2_MMAP_OFFSET)) {
		st = rfm2g__map_special(h, Offset, Pages, ptr);
	} else if (Offset % RFM2G_COMPAT_PAGE) {
		st = RFM2G_MEM_NOT_MAPPED;	/* an offset mmap() would refuse */
	} else {
		*ptr = h->base + Offset;
		pthread_mutex_lock(&h->lock);
		h->maps++;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gUserMemory(RFM2GHANDLE rh, volatile void **UserMemoryPtr, RFM2G_UINT64 Offset,
			     RFM2G_UINT32 Pages)
{
	return map_user(rh, UserMemoryPtr, Offset, Pages);
}

STDRFM2GCALL RFM2gUserMemoryBytes(RFM2GHANDLE rh, volatile void **UserMemoryPtr,
				  RFM2G_UINT64 Offset, RFM2G_UINT32 Bytes)
{
	if (!Bytes)
		return RFM2G_BAD_PARAMETER_4;	/* before the handle, as documented */
	return map_user(rh, UserMemoryPtr, Offset, pages_of(Bytes));
}

static RFM2G_STATUS unmap_user(RFM2GHANDLE rh, volatile void **ptr, RFM2G_UINT32 Pages,
			       RFM2G_STATUS bad_pages)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	if (!ptr || !*ptr) {
		st = RFM2G_BAD_PARAMETER_2;
	} else if (!Pages) {
		st = bad_pages;
	} else if (rfm2g__unmap_special(h, *ptr, (size_t) Pages * RFM2G_COMPAT_PAGE, &st)) {
		if (st == RFM2G_SUCCESS)
			*ptr = NULL;
	} else {
		const volatile uint8_t *p = (const volatile uint8_t *) *ptr;
		uint64_t bytes = (uint64_t) Pages * RFM2G_COMPAT_PAGE;

		/* What munmap() of a pointer we never handed out would refuse. */
		if (p < h->base || p >= h->base + h->size ||
		    (uint64_t) (p - h->base) % RFM2G_COMPAT_PAGE ||
		    (uint64_t) (p - h->base) + bytes > h->size) {
			st = RFM2G_OS_ERROR;
		} else {
			*ptr = NULL;
			pthread_mutex_lock(&h->lock);
			if (h->maps)
				h->maps--;
			pthread_mutex_unlock(&h->lock);
		}
	}
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gUnMapUserMemory(RFM2GHANDLE rh, volatile void **UserMemoryPtr,
				  RFM2G_UINT32 Pages)
{
	return unmap_user(rh, UserMemoryPtr, Pages, RFM2G_BAD_PARAMETER_3);
}

STDRFM2GCALL RFM2gUnMapUserMemoryBytes(RFM2GHANDLE rh, volatile void **UserMemoryPtr,
				       RFM2G_UINT32 Bytes)
{
	if (!Bytes)
		return RFM2G_BAD_PARAMETER_3;	/* before the handle, as documented */
	return unmap_user(rh, UserMemoryPtr, pages_of(Bytes), RFM2G_BAD_PARAMETER_3);
}

/* Where a register set starts in its page: the BAR's sub-page offset. */
static RFM2G_UINT32 reg_page_offset(const struct rfm2g_compat *h, RFM2GREGSETTYPE regset)
{
	const RFM2GPCICONFIG *pci = &h->pub.Config.PciConfig;

	return (regset == RFM2GCFGREGMEM ? pci->rfm2gOrBase : pci->rfm2gCsBase) &
	       (RFM2G_COMPAT_PAGE - 1);
}

/*
 * The checks of both device-memory calls, in the vendor's order: the
 * handle, the register set (RFM2G_BAD_PARAMETER_2), then @ptr_ok (else
 * RFM2G_BAD_PARAMETER_3). The window's pages into *@pages, a register
 * set's offset in its page into *@sub.
 */
static RFM2G_STATUS check_device_map(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, bool ptr_ok,
				     RFM2G_UINT32 *pages, RFM2G_UINT32 *sub)
{
	struct rfm2g_compat *h;
	RFM2G_STATUS st = rfm2g__get(rh, &h);

	if (st != RFM2G_SUCCESS)
		return st;
	*pages = h->pub.Config.MemorySize / RFM2G_COMPAT_PAGE;
	*sub = 0;
	if (regset != RFM2GCFGREGMEM && regset != RFM2GCTRLREGMEM && regset != RFM2GMEM)
		st = RFM2G_BAD_PARAMETER_2;
	else if (!ptr_ok)
		st = RFM2G_BAD_PARAMETER_3;
	else if (regset != RFM2GMEM)
		*sub = reg_page_offset(h, regset);
	rfm2g__put(h);
	return st;
}

STDRFM2GCALL RFM2gMapDeviceMemory(RFM2GHANDLE rh, RFM2GREGSETTYPE regset,
				  volatile void **DeviceMemoryPtr)
{
	RFM2G_UINT32 pages, sub;
	RFM2G_STATUS st = check_device_map(rh, regset, DeviceMemoryPtr != NULL, &pages, &sub);

	if (st != RFM2G_SUCCESS)
		return st;
	if (regset == RFM2GMEM)
		return map_user(rh, DeviceMemoryPtr, 0, pages);
	st = map_user(rh, DeviceMemoryPtr,
		       regset == RFM2GCFGREGMEM ? RFM2G_BAR0_MMAP_OFFSET : RFM2G_BAR2_MMAP_OFFSET, 1);
	if (st == RFM2G_SUCCESS)
		*DeviceMemoryPtr = (volatile uint8_t *) *DeviceMemoryPtr + sub;
	return st;
}

STDRFM2GCALL RFM2gUnMapDeviceMemory(RFM2GHANDLE rh, RFM2GREGSETTYPE regset,
				    volatile void **DeviceMemoryPtr)
{
	RFM2G_UINT32 pages, sub;
	RFM2G_STATUS st = check_device_map(rh, regset, DeviceMemoryPtr && *DeviceMemoryPtr, &pages,
					   &sub);

	if (st != RFM2G_SUCCESS)
		return st;
	if (regset != RFM2GMEM) {
		/* Back to the page start (the vendor masks with 0xFFFFF000, losing 64-bit bits). */
		volatile void *page = (volatile void *) ((uintptr_t) *DeviceMemoryPtr &
							  ~(uintptr_t) (RFM2G_COMPAT_PAGE - 1));

		st = unmap_user(rh, &page, 1, RFM2G_BAD_PARAMETER_3);
		if (st == RFM2G_SUCCESS)
			*DeviceMemoryPtr = NULL;
		return st;
	}
	return unmap_user(rh, DeviceMemoryPtr, pages, RFM2G_BAD_PARAMETER_3);
}
