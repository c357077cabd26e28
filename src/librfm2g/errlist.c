/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RFM2g status messages (librfm's own wording) and RFM2gErrorMsg(). */
#include "librfm2g/compat.h"

const char *rfm2g_errlist[] = {
	[RFM2G_SUCCESS] = "Success",
	[RFM2G_NOT_IMPLEMENTED] = "Not implemented",
	[RFM2G_DRIVER_ERROR] = "Driver error (unspecified)",
	[RFM2G_TIMED_OUT] = "Timed out waiting for the event",
	[RFM2G_LOW_MEMORY] = "Out of memory",
	[RFM2G_MEM_NOT_MAPPED] = "Memory is not mapped for this device",
	[RFM2G_OS_ERROR] = "The operating system reported an error",
	[RFM2G_EVENT_IN_USE] = "Somebody already waits on this event",
	[RFM2G_NOT_SUPPORTED] = "Not supported by this board or network",
	[RFM2G_NOT_OPEN] = "Device not open",
	[RFM2G_NO_RFM2G_BOARD] = "No RFM2g device (or librfm network) for this path",
	[RFM2G_BAD_PARAMETER_1] = "Parameter 1 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_2] = "Parameter 2 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_3] = "Parameter 3 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_4] = "Parameter 4 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_5] = "Parameter 5 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_6] = "Parameter 6 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_7] = "Parameter 7 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_8] = "Parameter 8 is NULL or invalid",
	[RFM2G_BAD_PARAMETER_9] = "Parameter 9 is NULL or invalid",
	[RFM2G_OUT_OF_RANGE] = "Offset or length outside the board's memory",
	[RFM2G_MAP_NOT_ALLOWED] = "This offset may not be mapped",
	[RFM2G_LINK_TEST_FAIL] = "Ring continuity test failed",
	[RFM2G_MEM_READ_ONLY] = "Memory outside the user area is read-only",
	[RFM2G_UNALIGNED_OFFSET] = "Offset not aligned to the access width",
	[RFM2G_UNALIGNED_ADDRESS] = "Address not aligned to the access width",
	[RFM2G_LSEEK_ERROR] = "Seek failed",
	[RFM2G_READ_ERROR] = "Read failed",
	[RFM2G_WRITE_ERROR] = "Write failed",
	[RFM2G_HANDLE_NOT_NULL] = "Handle pointer must be NULL to be initialised",
	[RFM2G_MODULE_NOT_LOADED] = "Driver not loaded",
	[RFM2G_NOT_ENABLED] = "Event not enabled",
	[RFM2G_ALREADY_ENABLED] = "Event already enabled",
	[RFM2G_EVENT_NOT_IN_USE] = "Nobody waits on this event",
	[RFM2G_BAD_RFM2G_BOARD_ID] = "Invalid board id",
	[RFM2G_NULL_DESCRIPTOR] = "Handle is NULL",
	[RFM2G_WAIT_EVENT_CANCELED] = "Wait for the event was cancelled",
	[RFM2G_DMA_FAILED] = "DMA transfer failed",
	[RFM2G_NOT_INITIALIZED] = "Not initialised",
	[RFM2G_UNALIGNED_LENGTH] = "Length not a multiple of 4 bytes",
	[RFM2G_SIGNALED] = "Interrupted by a signal",
	[RFM2G_NODE_ID_SELF] = "A node cannot send an event to itself",
	[RFM2G_MAX_ERROR_CODE] = "Invalid error code",
};

const int rfm2g_nerr = RFM2G_MAX_ERROR_CODE + 1;

char *RFM2gErrorMsg(RFM2G_STATUS ErrorCode)
{
	int code = (int) ErrorCode;

	if (code < 0 || code > RFM2G_MAX_ERROR_CODE)
		code = RFM2G_MAX_ERROR_CODE;
	/* The API returns char *; the strings must still not be modified. */
	return (char *) rfm2g_errlist[code];
}
