/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program as sites write them on Windows with GE's package, built here
 * unchanged: it includes rfm2g_windows.h, winlocal.h and rfm2gdll_stdc.h
 * without a platform guard, names the board the Windows way
 * ("\\.\rfm2g" and the number typed on stdin, as GE's samples ask for
 * it), waits with RFM_INFINITE, and writes its block at 0x03000000 and a
 * marker at 0x1000 for tests/librfm2g/test-rfm2g-board.sh to look for.
 */
#include "rfm2g_windows.h"
#include "winlocal.h"

#include <stdio.h>
#include <string.h>

#include "rfm2gdll_stdc.h"
#include "rfm2g_api.h"

#define DEVICE_PREFIX "\\\\.\\rfm2g"
#define BLOCK_OFFSET 0x03000000
#define MARK_OFFSET 0x1000
#define WORDS 64

int main(void)
{
	RFM2G_UINT32 out[WORDS], in[WORDS], size = 0;
	RFM2GHANDLE Handle = 0;
	RFM2GCONFIG cfg;
	char device[40];
	int numDevice = 0;
	RFM2G_STATUS result;

	printf("Please enter device number (0-4): ");
	if (!fgets(device, sizeof(device), stdin) || sscanf(device, "%d", &numDevice) != 1)
		return 2;
	sprintf(device, "%s%d", DEVICE_PREFIX, numDevice);
	result = RFM2gOpen(device, &Handle);
	if (result != RFM2G_SUCCESS) {
		printf("ERROR: RFM2gOpen(%s): %s\n", device, RFM2gErrorMsg(result));
		return 1;
	}
	if (RFM2gGetConfig(Handle, &cfg) != RFM2G_SUCCESS || RFM2gSize(Handle, &size) != RFM2G_SUCCESS)
		return 1;
	printf("\n%s: unit %u, %u bytes, device %s\n", device, cfg.Unit, size, cfg.Device);
	if (cfg.Unit != numDevice || strcmp(cfg.Device, device))
		return 1;
	for (unsigned int i = 0; i < WORDS; i++)
		out[i] = 0xB10C0000u + i;
	if (RFM2gWrite(Handle, BLOCK_OFFSET, out, sizeof(out)) != RFM2G_SUCCESS ||
	    RFM2gRead(Handle, BLOCK_OFFSET, in, sizeof(in)) != RFM2G_SUCCESS ||
	    memcmp(in, out, sizeof(in)) ||
	    RFM2gPoke32(Handle, MARK_OFFSET, 0x57494E00u + (RFM2G_UINT32) numDevice) != RFM2G_SUCCESS)
		return 1;
	/* RFM_INFINITE is the API's wait-forever timeout on Linux too. */
	if (RFM_INFINITE != RFM2G_INFINITE_TIMEOUT || INFINITE_TIMEOUT != RFM2G_INFINITE_TIMEOUT)
		return 1;
	printf("block written at 0x%08X\n", BLOCK_OFFSET);
	RFM2gClose(&Handle);
	return 0;
}
