/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Windows: os/ready.h, a manual-reset event (signalled until reset). */
#include "config.h"

#include "os/ready.h"
#include "os/win/win-internal.h"

const enum rfm_os_ready_kind rfm__os_ready_kind = RFM_OS_READY_HANDLE;

int rfm__os_ready_create(intptr_t *obj)
{
	HANDLE h = CreateEventW(NULL, TRUE, FALSE, NULL);

	if (!h)
		return -rfm__win_errno(GetLastError());
	*obj = (intptr_t)h;
	return 0;
}

void rfm__os_ready_set(intptr_t obj)
{
	SetEvent((HANDLE)obj);
}

void rfm__os_ready_clear(intptr_t obj)
{
	ResetEvent((HANDLE)obj);
}

void rfm__os_ready_close(intptr_t obj)
{
	CloseHandle((HANDLE)obj);
}
