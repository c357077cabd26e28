/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Windows: os/process.h. */
#include "config.h"

#include <stdlib.h>

#include "os/process.h"
#include "os/win/win-internal.h"

int32_t rfm__os_pid(void)
{
	return (int32_t)GetCurrentProcessId();
}

bool rfm__os_pid_gone(int32_t pid)
{
	HANDLE h;
	bool gone;

	if (pid <= 0)
		return false;
	h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, (DWORD)pid);
	if (!h)
		/* No such process; ERROR_ACCESS_DENIED: one we may not look at, running. */
		return GetLastError() == ERROR_INVALID_PARAMETER;
	/* A handle keeps an exited process's id taken: ask whether it ended. */
	gone = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
	CloseHandle(h);
	return gone;
}

const char *rfm__os_getenv(const char *name)
{
	/* Windows has no set-uid programs: the environment is the caller's own. */
	return getenv(name);
}

void rfm__os_at_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	/* No fork(): a handle is never inherited by a child process. */
}

void rfm__os_hostname(char *buf, size_t len)
{
	DWORD n = (DWORD)len;

	if (!len)
		return;
	if (!GetComputerNameExA(ComputerNameDnsHostname, buf, &n))
		buf[0] = '\0';
	buf[len - 1] = '\0';
}
