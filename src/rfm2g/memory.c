/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g data transfer and user memory over librfm's window.
 *
 * Checks follow the documented order of each call. Deliberately better:
 * range checks are done in 64 bits (Offset + Length cannot wrap), and
 * RFM2gPeek64/RFM2gPoke64 work (the Linux library says NOT_IMPLEMENTED).
 * RFM2gUserMemory() hands out a pointer into the window librfm has
 * mapped; DMA buffers and register BARs cannot be mapped on librfm networks.
 */
#include <string.h>

#include "compat.h"

STDRFM2GCALL RFM2gRead(RFM2GHANDLE rh, RFM2G_UINT32 Offset, void *Buffer, RFM2G_UINT32 Length)
{
	RFM2G_ENTER(h, rh);
	if ((uint64_t) Offset + Length > h->pub.Config.MemorySize)
		st_ = RFM2G_OUT_OF_RANGE;
	else if (!Buffer)
		st_ = RFM2G_BAD_PARAMETER_3;
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
	} else if (Offset % RFM2G_COMPAT_PAGE) {
		/* DMA RAM, register BARs, or an offset mmap() would refuse. */
		st_ = RFM2G_MEM_NOT_MAPPED;
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

STDRFM2GCALL RFM2gMapDeviceMemory(RFM2GHANDLE rh, RFM2GREGSETTYPE regset,
				  volatile void **DeviceMemoryPtr)
{
	RFM2G_UINT32 pages;

	RFM2G_ENTER(h, rh);
	pages = h->pub.Config.MemorySize / RFM2G_COMPAT_PAGE;
	if (regset != RFM2GCFGREGMEM && regset != RFM2GCTRLREGMEM && regset != RFM2GMEM)
		st_ = RFM2G_BAD_PARAMETER_2;
	else if (!DeviceMemoryPtr)
		st_ = RFM2G_BAD_PARAMETER_3;
	rfm2g__put(h);
	if (st_ != RFM2G_SUCCESS)
		return st_;
	if (regset != RFM2GMEM)
		return RFM2G_MEM_NOT_MAPPED;	/* no register BARs to map on librfm networks */
	return map_user(rh, DeviceMemoryPtr, 0, pages);
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
	else if (regset != RFM2GMEM)
		st_ = RFM2G_OS_ERROR;	/* never mapped */
	rfm2g__put(h);
	if (st_ != RFM2G_SUCCESS)
		return st_;
	return unmap_user(rh, DeviceMemoryPtr, pages, RFM2G_BAD_PARAMETER_3);
}
