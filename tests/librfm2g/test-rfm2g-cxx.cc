/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RFM2g compatibility headers compile and link as C++ (extern "C"
 * linkage of every call), and their structures have the vendor's sizes
 * and field offsets on this ABI. A program: what it proves is that it
 * builds, plus a few calls.
 */
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "rfm2g_api.h"
#include "rfm2g_version.h"

#if defined(__x86_64__)
static_assert(sizeof(RFM2GEVENTINFO) == 24, "RFM2GEVENTINFO size");
static_assert(offsetof(RFM2GEVENTINFO, NodeId) == 12, "NodeId offset");
static_assert(offsetof(RFM2GEVENTINFO, pDrvSpec) == 16, "pDrvSpec offset");
static_assert(sizeof(RFM2GCONFIG) == 244, "RFM2GCONFIG size");
static_assert(offsetof(RFM2GCONFIG, MemorySize) == 8, "MemorySize offset");
static_assert(offsetof(RFM2GCONFIG, Lcsr1) == 192, "Lcsr1 offset");
static_assert(offsetof(RFM2GCONFIG, PciConfig) == 196, "PciConfig offset");
static_assert(offsetof(RFM2GCONFIG, BuildId) == 240, "BuildId offset");
static_assert(sizeof(RFM2GPCICONFIG) == 44, "RFM2GPCICONFIG size");
static_assert(sizeof(RFM2GQINFO) == 24, "RFM2GQINFO size");
static_assert(sizeof(RFM2GATOMIC) == 16, "RFM2GATOMIC size");
static_assert(sizeof(RFM2GTRANSFER) == 16, "RFM2GTRANSFER size");
static_assert(sizeof(RFM2GLINUXREGINFO) == 16, "RFM2GLINUXREGINFO size");
static_assert(IOCTL_RFM2G_ATOMIC_PEEK == 0xC010EB0Au, "PEEK");
static_assert(IOCTL_RFM2G_ATOMIC_POKE == 0x4010EB0Bu, "POKE");
static_assert(IOCTL_RFM2G_ENABLE_EVENT == 0x4018EB14u, "ENABLE_EVENT");
static_assert(IOCTL_RFM2G_WAIT_FOR_EVENT == 0xC018EB17u, "WAIT_FOR_EVENT");
static_assert(IOCTL_RFM2G_GET_EVENT_STATS == 0xC018EB19u, "GET_EVENT_STATS");
static_assert(IOCTL_RFM2G_CLEAR_EVENT_STATS == 0x4001EB1Au, "CLEAR_EVENT_STATS");
static_assert(IOCTL_RFM2G_GET_CONFIG == 0xC0F4EB1Eu, "GET_CONFIG");
static_assert(IOCTL_RFM2G_SET_DMA_THRESHOLD == 0x4004EB22u, "SET_DMA_THRESHOLD");
static_assert(IOCTL_RFM2G_CHECK_RING_CONT == 0x8001EB34u, "CHECK_RING_CONT");
static_assert(IOCTL_RFM2G_GET_MEMORY_OFFSET == 0x8004EB3Eu, "GET_MEMORY_OFFSET");
static_assert(IOCTL_RFM2G_READ_REG == 0x8004EB41u, "READ_REG");
static_assert(IOCTL_RFM2G_CLEAR_EVENT == 0x4002EB47u, "CLEAR_EVENT");
static_assert(IOCTL_RFM2G_READ == 0x4008EB49u, "READ");
static_assert(IOCTL_RFM2G_WRITE == 0x4008EB4Au, "WRITE");
static_assert(IOCTL_RFM2G_SET_SPECIAL_MMAP_OFFSET == 0x4008EB4Du, "SPECIAL_MMAP");
static_assert(IOCTL_RFM2G_SET_SLIDING_WINDOW_OFFSET == 0x4004EB4Fu, "SLIDING_WINDOW");
#endif
static_assert(RFM2G_MAX_ERROR_CODE == 42, "status codes");
static_assert(RFM2GEVENT_LAST == 12, "event types");

static void on_event(RFM2GHANDLE, RFM2GEVENTINFO *) {}

int main()
{
	RFM2GHANDLE h = nullptr;
	RFM2G_UINT32 size = 0;
	RFM2G_EVENT_FUNCPTR fn = on_event;
	int failures = 0;

	if (RFM2gSize(h, &size) != RFM2G_NULL_DESCRIPTOR)
		failures++;
	if (RFM2gEnableEventCallback(h, RFM2GEVENT_INTR1, fn) != RFM2G_NULL_DESCRIPTOR)
		failures++;
	if (std::strcmp(RFM2gErrorMsg(RFM2G_SUCCESS), rfm2g_errlist[0]) != 0)
		failures++;
	if (std::strcmp(RFM2G_PRODUCT_VERSION, "R09.00") != 0)
		failures++;
	if (RFM2gOpen(nullptr, &h) != RFM2G_BAD_PARAMETER_1)
		failures++;
	if (failures)
		std::fprintf(stderr, "test-rfm2g-cxx: %d failures\n", failures);
	return failures ? 1 : 0;
}
