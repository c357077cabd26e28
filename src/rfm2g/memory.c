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

#include <sys/ioctl.h>

#include "compat.h"

/*
 * A transfer the vendor driver would DMA: on a card, a DMA buffer mapped on
 * this handle holds @buf and @len reaches the threshold. True when done so
 * (*@st its status); false to copy through the window.
 */
static bool hw_dma(struct rfm2g_compat *h, unsigned long request, RFM2G_UINT32 offset,
		   void *buf, RFM2G_UINT32 len, RFM2G_STATUS *st)
{
	RFM2GTRANSFER t = { .Offset = offset, .Length = len, .Buffer = buf };
	bool eligible;

	if (h->hwfd < 0 || !len)
		return false;
	pthread_mutex_lock(&h->lock);
	eligible = len >= h->dma_threshold && rfm2g__in_dma_buffer(h, buf, len);
	pthread_mutex_unlock(&h->lock);
	if (!eligible)
		return false;
	*st = rfm2g__hw_ioctl(h, request, &t) ? RFM2G_SUCCESS : RFM2G_OS_ERROR;
	return true;
}

STDRFM2GCALL RFM2gRead(RFM2GHANDLE rh, RFM2G_UINT32 Offset, void *Buffer, RFM2G_UINT32 Length)
{
	RFM2G_ENTER(h, rh);
	if ((uint64_t) Offset + Length > h->pub.Config.MemorySize)
		st_ = RFM2G_OUT_OF_RANGE;
	else if (!Buffer)
		st_ = RFM2G_BAD_PARAMETER_3;
	else if (hw_dma(h, IOCTL_RFM2G_READ, Offset, Buffer, Length, &st_))
		;	/* the driver's DMA into the DMA buffer */
	else if (Length && rfm_mem_read(h->node, Offset, Buffer, Length) != 0)
		st_ = RFM2G_OS_ERROR;
	rfm2g__put(h);
	return st_;
}

STDRFM2GCALL RFM2gWrite(RFM2GHANDLE rh, RFM2G_UINT32 Offset, void *Buffer, RFM2G_UINT32 Length)
{
	RFM2G_ENTER(h, rh);
	if ((uint64_t) Offset + Length > h->pub.Config.MemorySize)
		st_ = RFM2G_OUT_OF_RANGE;
	else if (!Buffer)
		st_ = RFM2G_BAD_PARAMETER_3;
	else if (hw_dma(h, IOCTL_RFM2G_WRITE, Offset, Buffer, Length, &st_))
		;	/* the driver's DMA from the DMA buffer */
	else if (Length && rfm_mem_write(h->node, Offset, Buffer, Length) != 0)
		st_ = RFM2G_OS_ERROR;
	rfm2g__put(h);
	return st_;
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

#define DEFINE_PEEK(bits, type)                                                       \
	STDRFM2GCALL RFM2gPeek##bits(RFM2GHANDLE rh, RFM2G_UINT32 Offset, type *Value) \
	{                                                                             \
		RFM2G_ENTER(h, rh);                                                   \
		if (!Value)                                                           \
			st_ = RFM2G_BAD_PARAMETER_3;                                  \
		else                                                                  \
			st_ = check_single(h, Offset, (bits) / 8);                    \
		if (st_ == RFM2G_SUCCESS) {                                           \
			uint##bits##_t v;                                             \
			if (rfm_mem_peek##bits(h->node, Offset, &v) != 0)             \
				st_ = RFM2G_OS_ERROR;                                 \
			else                                                          \
				*Value = v;                                           \
		}                                                                     \
		rfm2g__put(h);                                                        \
		return st_;                                                           \
	}

#define DEFINE_POKE(bits, type)                                                       \
	STDRFM2GCALL RFM2gPoke##bits(RFM2GHANDLE rh, RFM2G_UINT32 Offset, type Value)  \
	{                                                                             \
		RFM2G_ENTER(h, rh);                                                   \
		st_ = check_single(h, Offset, (bits) / 8);                            \
		if (st_ == RFM2G_SUCCESS &&                                           \
		    rfm_mem_poke##bits(h->node, Offset, Value) != 0)                  \
			st_ = RFM2G_OS_ERROR;                                         \
		rfm2g__put(h);                                                        \
		return st_;                                                           \
	}

DEFINE_PEEK(8, RFM2G_UINT8)
DEFINE_PEEK(16, RFM2G_UINT16)
DEFINE_PEEK(32, RFM2G_UINT32)
DEFINE_PEEK(64, RFM2G_UINT64)
DEFINE_POKE(8, RFM2G_UINT8)
DEFINE_POKE(16, RFM2G_UINT16)
DEFINE_POKE(32, RFM2G_UINT32)
DEFINE_POKE(64, RFM2G_UINT64)

static RFM2G_UINT32 pages_of(RFM2G_UINT32 bytes)
{
	return (RFM2G_UINT32) (((uint64_t) bytes + RFM2G_COMPAT_PAGE - 1) / RFM2G_COMPAT_PAGE);
}

static RFM2G_STATUS map_user(RFM2GHANDLE rh, volatile void **ptr, RFM2G_UINT64 Offset,
			     RFM2G_UINT32 Pages)
{
	uint64_t bytes = (uint64_t) Pages * RFM2G_COMPAT_PAGE;

	RFM2G_ENTER(h, rh);
	if (!ptr) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else if (!Pages) {
		st_ = RFM2G_BAD_PARAMETER_4;
	} else if (!(Offset & RFM2G_DMA_MMAP_OFFSET) &&
		   (bytes > h->pub.Config.MemorySize ||
		    Offset + bytes > h->pub.Config.MemorySize)) {
		st_ = RFM2G_OUT_OF_RANGE;
	} else if ((Offset & RFM2G_BAR0_MMAP_OFFSET) && Offset != RFM2G_BAR0_MMAP_OFFSET) {
		st_ = RFM2G_BAD_PARAMETER_3;
	} else if ((Offset & RFM2G_BAR2_MMAP_OFFSET) && Offset != RFM2G_BAR2_MMAP_OFFSET) {
		st_ = RFM2G_BAD_PARAMETER_3;
	} else if (Offset & (RFM2G_DMA_MMAP_OFFSET | RFM2G_BAR0_MMAP_OFFSET |
			     RFM2G_BAR2_MMAP_OFFSET)) {
		st_ = rfm2g__map_special(h, Offset, Pages, ptr);
	} else if (Offset % RFM2G_COMPAT_PAGE) {
		st_ = RFM2G_MEM_NOT_MAPPED;	/* an offset mmap() would refuse */
	} else {
		*ptr = h->base + Offset;
		pthread_mutex_lock(&h->lock);
		h->maps++;
		pthread_mutex_unlock(&h->lock);
	}
	rfm2g__put(h);
	return st_;
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
	RFM2G_ENTER(h, rh);
	if (!ptr || !*ptr) {
		st_ = RFM2G_BAD_PARAMETER_2;
	} else if (!Pages) {
		st_ = bad_pages;
	} else if (rfm2g__unmap_special(h, *ptr, (size_t) Pages * RFM2G_COMPAT_PAGE, &st_)) {
		if (st_ == RFM2G_SUCCESS)
			*ptr = NULL;
	} else {
		const volatile uint8_t *p = (const volatile uint8_t *) *ptr;
		uint64_t bytes = (uint64_t) Pages * RFM2G_COMPAT_PAGE;

		/* What munmap() of a pointer we never handed out would refuse. */
		if (p < h->base || p >= h->base + h->size ||
		    (uint64_t) (p - h->base) % RFM2G_COMPAT_PAGE ||
		    (uint64_t) (p - h->base) + bytes > h->size) {
			st_ = RFM2G_OS_ERROR;
		} else {
			*ptr = NULL;
			pthread_mutex_lock(&h->lock);
			if (h->maps)
				h->maps--;
			pthread_mutex_unlock(&h->lock);
		}
	}
	rfm2g__put(h);
	return st_;
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

STDRFM2GCALL RFM2gMapDeviceMemory(RFM2GHANDLE rh, RFM2GREGSETTYPE regset,
				  volatile void **DeviceMemoryPtr)
{
	RFM2G_UINT32 pages, sub = 0;

	RFM2G_ENTER(h, rh);
	pages = h->pub.Config.MemorySize / RFM2G_COMPAT_PAGE;
	if (regset != RFM2GCFGREGMEM && regset != RFM2GCTRLREGMEM && regset != RFM2GMEM)
		st_ = RFM2G_BAD_PARAMETER_2;
	else if (!DeviceMemoryPtr)
		st_ = RFM2G_BAD_PARAMETER_3;
	else if (regset != RFM2GMEM)
		sub = reg_page_offset(h, regset);
	rfm2g__put(h);
	if (st_ != RFM2G_SUCCESS)
		return st_;
	if (regset == RFM2GMEM)
		return map_user(rh, DeviceMemoryPtr, 0, pages);
	st_ = map_user(rh, DeviceMemoryPtr,
		       regset == RFM2GCFGREGMEM ? RFM2G_BAR0_MMAP_OFFSET : RFM2G_BAR2_MMAP_OFFSET, 1);
	if (st_ == RFM2G_SUCCESS)
		*DeviceMemoryPtr = (volatile uint8_t *) *DeviceMemoryPtr + sub;
	return st_;
}

STDRFM2GCALL RFM2gUnMapDeviceMemory(RFM2GHANDLE rh, RFM2GREGSETTYPE regset,
				    volatile void **DeviceMemoryPtr)
{
	RFM2G_UINT32 pages;

	RFM2G_ENTER(h, rh);
	pages = h->pub.Config.MemorySize / RFM2G_COMPAT_PAGE;
	if (regset != RFM2GCFGREGMEM && regset != RFM2GCTRLREGMEM && regset != RFM2GMEM)
		st_ = RFM2G_BAD_PARAMETER_2;
	else if (!DeviceMemoryPtr || !*DeviceMemoryPtr)
		st_ = RFM2G_BAD_PARAMETER_3;
	rfm2g__put(h);
	if (st_ != RFM2G_SUCCESS)
		return st_;
	if (regset != RFM2GMEM) {
		/* Back to the page start (the vendor masks with 0xFFFFF000, losing 64-bit bits). */
		volatile void *page = (volatile void *) ((uintptr_t) *DeviceMemoryPtr &
							  ~(uintptr_t) (RFM2G_COMPAT_PAGE - 1));

		st_ = unmap_user(rh, &page, 1, RFM2G_BAD_PARAMETER_3);
		if (st_ == RFM2G_SUCCESS)
			*DeviceMemoryPtr = NULL;
		return st_;
	}
	return unmap_user(rh, DeviceMemoryPtr, pages, RFM2G_BAD_PARAMETER_3);
}
