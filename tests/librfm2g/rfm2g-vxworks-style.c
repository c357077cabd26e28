/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A module as sites write them for VxWorks with GE's package, built here
 * unchanged: the platform's own headers behind RFM2G_VXWORKS (as GE's
 * samples guard them), no main() but a task entry the VxWorks shell would
 * call, the board named "/PCIRFM2G_0" as the VxWorks PCI driver names it
 * and "RFM2G_" plus its number as GE's samples do. rfm2g-vxworks-shell.c
 * plays the shell. It reads what rfm2g-windows-style wrote to the same
 * board and answers at 0x1004.
 */
#if defined(RFM2G_VXWORKS)
#include "vxWorks.h"
#include "taskLib.h"
#endif

#include <stdio.h>
#include <string.h>

#include "rfm2g_api.h"

#define DEVICE_PREFIX "RFM2G_"
#define BLOCK_OFFSET 0x03000000
#define MARK_OFFSET 0x1000
#define WORDS 64

RFM2G_INT32 rfmBoard = 0;	/* set from the shell before the task runs */

static RFM2G_INT32 check_board(const char *device)
{
	RFM2G_UINT32 block[WORDS], mark = 0;
	RFM2GHANDLE rfmHandle = 0;
	RFM2G_STATUS rfmStatus;

	rfmStatus = RFM2gOpen((char *) device, &rfmHandle);
	if (rfmStatus != RFM2G_SUCCESS) {
		printf("ERROR: RFM2gOpen(%s): %s\n", device, RFM2gErrorMsg(rfmStatus));
		return -1;
	}
	memset(block, 0, sizeof(block));
	if (RFM2gRead(rfmHandle, BLOCK_OFFSET, block, sizeof(block)) != RFM2G_SUCCESS ||
	    RFM2gPeek32(rfmHandle, MARK_OFFSET, &mark) != RFM2G_SUCCESS)
		return -1;
	printf("%s: mark 0x%08X, block[63] 0x%08X\n", device, mark, block[WORDS - 1]);
	if (mark != 0x57494E00u + (RFM2G_UINT32) rfmBoard || block[WORDS - 1] != 0xB10C0000u + 63)
		return -1;
	if (RFM2gPoke32(rfmHandle, MARK_OFFSET + 4, 0x56580000u + (RFM2G_UINT32) rfmBoard) !=
	    RFM2G_SUCCESS)
		return -1;
	RFM2gClose(&rfmHandle);
	return 0;
}

RFM2G_INT32 rfmHilTask(void)
{
	char device[40];

	if (rfmBoard == 0 && check_board("/PCIRFM2G_0") != 0)
		return -1;
	snprintf(device, sizeof(device), "/PCIRFM2G_%d", (int) rfmBoard);
	if (check_board(device) != 0)
		return -1;
	snprintf(device, sizeof(device), "%s%d", DEVICE_PREFIX, (int) rfmBoard);
	return check_board(device);
}
