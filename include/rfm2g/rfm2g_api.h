/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the RFM2g application interface.
 *
 * Programs written for the vendor's RFM2g API include this header, link
 * with -lrfm2g (pkg-config rfm2g) and run on any librfm network: the
 * emulated one (shm:), librfm's driver (dev:) or the vendor's (rfm2g:).
 * Which network RFM2gOpen() opens is described in docs/rfm2g-migration.md:
 * $RFM_URI when set, else a rule from the device path.
 *
 * Every function returns an RFM2G_STATUS; RFM2gErrorMsg() explains it.
 * Invalid handles, NULL pointers, bad offsets, unaligned accesses and
 * unknown events give their status code and never crash.
 */
#ifndef __RFM2G_API_H
#define __RFM2G_API_H

#include "rfm2g_osspec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*RFM2G_EVENT_FUNCPTR)(RFM2GHANDLE, RFM2GEVENTINFO *);

#define RFM2G_INFINITE_TIMEOUT ((unsigned int) 0xFFFFFFFF)
#define RFM2G_NO_WAIT ((unsigned int) 0x0)

/* Open and close */
STDRFM2GCALL RFM2gOpen(char *DevicePath, RFM2GHANDLE *rh);
STDRFM2GCALL RFM2gClose(RFM2GHANDLE *rh);

/* Configuration */
STDRFM2GCALL RFM2gGetConfig(RFM2GHANDLE rh, RFM2GCONFIG *Config);
STDRFM2GCALL RFM2gUserMemory(RFM2GHANDLE rh, volatile void **UserMemoryPtr,
			     RFM2G_UINT64 Offset, RFM2G_UINT32 Pages);
STDRFM2GCALL RFM2gUserMemoryBytes(RFM2GHANDLE rh, volatile void **UserMemoryPtr,
				  RFM2G_UINT64 Offset, RFM2G_UINT32 Bytes);
STDRFM2GCALL RFM2gUnMapUserMemory(RFM2GHANDLE rh, volatile void **UserMemoryPtr,
				  RFM2G_UINT32 Pages);
STDRFM2GCALL RFM2gUnMapUserMemoryBytes(RFM2GHANDLE rh, volatile void **UserMemoryPtr,
				       RFM2G_UINT32 Bytes);
STDRFM2GCALL RFM2gNodeID(RFM2GHANDLE rh, RFM2G_NODE *NodeIdPtr);
STDRFM2GCALL RFM2gBoardID(RFM2GHANDLE rh, RFM2G_UINT8 *BoardIdPtr);
STDRFM2GCALL RFM2gSize(RFM2GHANDLE rh, RFM2G_UINT32 *SizePtr);
STDRFM2GCALL RFM2gFirst(RFM2GHANDLE rh, RFM2G_UINT32 *FirstPtr);
STDRFM2GCALL RFM2gDeviceName(RFM2GHANDLE rh, char *NamePtr);
STDRFM2GCALL RFM2gDllVersion(RFM2GHANDLE rh, char *VersionPtr);
STDRFM2GCALL RFM2gDriverVersion(RFM2GHANDLE rh, char *VersionPtr);
STDRFM2GCALL RFM2gGetDMAThreshold(RFM2GHANDLE rh, RFM2G_UINT32 *Threshold);
STDRFM2GCALL RFM2gSetDMAThreshold(RFM2GHANDLE rh, RFM2G_UINT32 Threshold);
STDRFM2GCALL RFM2gSetDMAByteSwap(RFM2GHANDLE rh, RFM2G_BOOL byteSwap);
STDRFM2GCALL RFM2gGetDMAByteSwap(RFM2GHANDLE rh, RFM2G_BOOL *byteSwap);
STDRFM2GCALL RFM2gSetPIOByteSwap(RFM2GHANDLE rh, RFM2G_BOOL byteSwap);
STDRFM2GCALL RFM2gGetPIOByteSwap(RFM2GHANDLE rh, RFM2G_BOOL *byteSwap);

/* Data transfer */
STDRFM2GCALL RFM2gRead(RFM2GHANDLE rh, RFM2G_UINT32 Offset, void *Buffer, RFM2G_UINT32 Length);
STDRFM2GCALL RFM2gWrite(RFM2GHANDLE rh, RFM2G_UINT32 Offset, void *Buffer, RFM2G_UINT32 Length);
STDRFM2GCALL RFM2gPeek8(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT8 *Value);
STDRFM2GCALL RFM2gPeek16(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT16 *Value);
STDRFM2GCALL RFM2gPeek32(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT32 *Value);
STDRFM2GCALL RFM2gPeek64(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT64 *Value);
STDRFM2GCALL RFM2gPoke8(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT8 Value);
STDRFM2GCALL RFM2gPoke16(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT16 Value);
STDRFM2GCALL RFM2gPoke32(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT32 Value);
STDRFM2GCALL RFM2gPoke64(RFM2GHANDLE rh, RFM2G_UINT32 Offset, RFM2G_UINT64 Value);

/* Interrupt events */
STDRFM2GCALL RFM2gEnableEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);
STDRFM2GCALL RFM2gDisableEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);
STDRFM2GCALL RFM2gSendEvent(RFM2GHANDLE rh, RFM2G_NODE ToNode, RFM2GEVENTTYPE EventType,
			    RFM2G_UINT32 ExtendedData);
STDRFM2GCALL RFM2gWaitForEvent(RFM2GHANDLE rh, RFM2GEVENTINFO *EventInfo);
STDRFM2GCALL RFM2gEnableEventCallback(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType,
				      RFM2G_EVENT_FUNCPTR pEventFunc);
STDRFM2GCALL RFM2gDisableEventCallback(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);
STDRFM2GCALL RFM2gClearEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);
STDRFM2GCALL RFM2gCancelWaitForEvent(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);
STDRFM2GCALL RFM2gClearEventCount(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType);
STDRFM2GCALL RFM2gGetEventCount(RFM2GHANDLE rh, RFM2GEVENTTYPE EventType, RFM2G_UINT32 *Count);

/* Utility */
_LibDeclSpec char *RFM2gErrorMsg(RFM2G_STATUS ErrorCode);
STDRFM2GCALL RFM2gGetLed(RFM2GHANDLE rh, RFM2G_BOOL *Led);
STDRFM2GCALL RFM2gSetLed(RFM2GHANDLE rh, RFM2G_BOOL Led);
STDRFM2GCALL RFM2gCheckRingCont(RFM2GHANDLE rh);
STDRFM2GCALL RFM2gGetDarkOnDark(RFM2GHANDLE rh, RFM2G_BOOL *state);
STDRFM2GCALL RFM2gSetDarkOnDark(RFM2GHANDLE rh, RFM2G_BOOL state);
STDRFM2GCALL RFM2gClearOwnData(RFM2GHANDLE rh, RFM2G_BOOL *state);
STDRFM2GCALL RFM2gGetTransmit(RFM2GHANDLE rh, RFM2G_BOOL *state);
STDRFM2GCALL RFM2gSetTransmit(RFM2GHANDLE rh, RFM2G_BOOL state);
STDRFM2GCALL RFM2gGetLoopback(RFM2GHANDLE rh, RFM2G_BOOL *state);
STDRFM2GCALL RFM2gSetLoopback(RFM2GHANDLE rh, RFM2G_BOOL state);
STDRFM2GCALL RFM2gGetParityEnable(RFM2GHANDLE rh, RFM2G_BOOL *state);
STDRFM2GCALL RFM2gSetParityEnable(RFM2GHANDLE rh, RFM2G_BOOL state);
STDRFM2GCALL RFM2gGetMemoryOffset(RFM2GHANDLE rh, RFM2G_MEM_OFFSETTYPE *offset);
STDRFM2GCALL RFM2gSetMemoryOffset(RFM2GHANDLE rh, RFM2G_MEM_OFFSETTYPE offset);
STDRFM2GCALL RFM2gGetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 *offset, RFM2G_UINT32 *size);
STDRFM2GCALL RFM2gSetSlidingWindow(RFM2GHANDLE rh, RFM2G_UINT32 offset);
STDRFM2GCALL RFM2gGetDebugFlags(RFM2GHANDLE rh, RFM2G_UINT32 *Flags);
STDRFM2GCALL RFM2gSetDebugFlags(RFM2GHANDLE rh, RFM2G_UINT32 Flags);
STDRFM2GCALL RFM2gWriteReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			   RFM2G_UINT32 Width, RFM2G_UINT32 Value);
STDRFM2GCALL RFM2gReadReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			  RFM2G_UINT32 Width, void *Value);
STDRFM2GCALL RFM2gSetReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			 RFM2G_UINT32 Width, RFM2G_UINT32 Mask);
STDRFM2GCALL RFM2gClearReg(RFM2GHANDLE rh, RFM2GREGSETTYPE regset, RFM2G_UINT32 Offset,
			   RFM2G_UINT32 Width, RFM2G_UINT32 Mask);
STDRFM2GCALL RFM2gMapDeviceMemory(RFM2GHANDLE rh, RFM2GREGSETTYPE regset,
				  volatile void **DeviceMemoryPtr);
STDRFM2GCALL RFM2gUnMapDeviceMemory(RFM2GHANDLE rh, RFM2GREGSETTYPE regset,
				    volatile void **DeviceMemoryPtr);

#ifdef __cplusplus
}
#endif

#endif /* __RFM2G_API_H */
