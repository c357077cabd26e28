/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Windows: Win32 errors as the errno values the core maps (os/file.h). */
#include "config.h"

#include <errno.h>
#include <io.h>

#include "os/win/win-internal.h"

int rfm__win_errno(DWORD err)
{
	switch (err) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_DRIVE:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_PRIVILEGE_NOT_HELD:
		return EACCES;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_LOCK_VIOLATION:
		return EAGAIN;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
	case ERROR_COMMITMENT_LIMIT:
	case ERROR_WORKING_SET_QUOTA:
	case ERROR_NO_SYSTEM_RESOURCES:
		return ENOMEM;
	case ERROR_INVALID_HANDLE:
		return EBADF;
	case ERROR_INVALID_PARAMETER:
	case ERROR_FILE_INVALID:
		return EINVAL;
	case ERROR_TIMEOUT:
	case WAIT_TIMEOUT:
		return ETIMEDOUT;
	case ERROR_BUSY:
	case ERROR_USER_MAPPED_FILE:
		return EBUSY;
	case ERROR_NOT_SUPPORTED:
	case ERROR_CALL_NOT_IMPLEMENTED:
		return ENOTSUP;
	case ERROR_CANT_RESOLVE_FILENAME:
	case ERROR_CANT_ACCESS_FILE:
		return ELOOP;
	default:
		return EIO;
	}
}

void rfm__win_set_errno(void)
{
	errno = rfm__win_errno(GetLastError());
}

HANDLE rfm__win_handle(int fd)
{
	return (HANDLE)_get_osfhandle(fd);
}

bool rfm__win_widen(const char *s, wchar_t *out, size_t len)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, out, (int)len);

	return n > 0;
}
