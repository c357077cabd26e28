/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/file.h's files the library writes (recordings). Paths are
 * UTF-8, of any length Windows takes; '/' and '\' both separate names.
 * Files are opened for sharing with every other open, deletion included,
 * as on Linux, in binary mode (no newline translation).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/file.h"
#include "os/file-temp.h"
#include "os/win/win-internal.h"

#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

/* @s as a new wide string (free() it), or NULL with errno. */
static wchar_t *widen(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	w = malloc((size_t)n * sizeof(*w));
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		errno = EINVAL;
		return NULL;
	}
	return w;
}

/* A descriptor for file handle @h (closed if none can be had), off 0-2. */
static int handle_fd(HANDLE h, int flags)
{
	int fd = _open_osfhandle((intptr_t)h, flags | _O_BINARY);

	if (fd < 0) {
		CloseHandle(h);
		return -1;
	}
	return rfm__fd_keep_off_std(fd);
}

/* Create @path (wide) with @disposition: a handle, or INVALID_HANDLE_VALUE with errno. */
static HANDLE create(const wchar_t *path, DWORD disposition)
{
	HANDLE h = CreateFileW(path, GENERIC_WRITE, SHARE_ALL, NULL, disposition,
			       FILE_ATTRIBUTE_NORMAL, NULL);

	if (h == INVALID_HANDLE_VALUE)
		rfm__win_set_errno();
	return h;
}

int rfm__os_file_create(const char *path, bool replace, unsigned int mode)
{
	wchar_t *w = widen(path);
	HANDLE h;

	(void)mode;	/* the file takes what its directory passes on */
	if (!w)
		return -1;
	h = create(w, replace ? CREATE_ALWAYS : CREATE_NEW);
	free(w);
	return h == INVALID_HANDLE_VALUE ? -1 : handle_fd(h, _O_WRONLY);
}

bool rfm__os_path_taken(const char *path)
{
	wchar_t *w = widen(path);
	bool taken = w && GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES;

	free(w);
	return taken;
}

/* The length of @path's directory, its last separator (or drive's colon) included. */
static size_t dir_len(const char *path)
{
	size_t n = 0;

	for (size_t i = 0; path[i]; i++)
		if (path[i] == '/' || path[i] == '\\' || (i == 1 && path[i] == ':'))
			n = i + 1;
	return n;
}

/* Make @name only where nothing has it, and close it: 0 or -1 with errno. */
static int create_new(const char *name, unsigned int mode)
{
	wchar_t *w = widen(name);
	HANDLE h;

	(void)mode;	/* the file takes what its directory passes on */
	if (!w)
		return -1;
	h = create(w, CREATE_NEW);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	CloseHandle(h);
	return 0;
}

int rfm__os_file_temp_beside(const char *path, unsigned int mode, char **tmpp)
{
	return rfm__os_temp_beside(path, dir_len(path), create_new, mode, tmpp);
}

int rfm__os_file_move(const char *from, const char *to, bool replace)
{
	wchar_t *wfrom = widen(from), *wto = wfrom ? widen(to) : NULL;
	int ret = -1;

	/* Without MOVEFILE_REPLACE_EXISTING the move fails when @to exists: nothing is replaced. */
	if (wto && MoveFileExW(wfrom, wto, replace ? MOVEFILE_REPLACE_EXISTING : 0))
		ret = 0;
	else if (wto)
		rfm__win_set_errno();
	free(wfrom);
	free(wto);
	return ret;
}

int rfm__os_file_remove(const char *path)
{
	wchar_t *w = widen(path);
	int ret = -1;

	if (w && DeleteFileW(w))
		ret = 0;
	else if (w)
		rfm__win_set_errno();
	free(w);
	return ret;
}

int rfm__os_path_size(const char *path, uint64_t *size)
{
	wchar_t *w = widen(path);
	WIN32_FILE_ATTRIBUTE_DATA a;
	int ret = -1;

	if (w && GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
		*size = (uint64_t)a.nFileSizeHigh << 32 | a.nFileSizeLow;
		ret = 0;
	} else if (w) {
		rfm__win_set_errno();
	}
	free(w);
	return ret;
}

int rfm__os_room_beside(const char *path, uint64_t *avail)
{
	size_t dl = dir_len(path);
	char *dir = dl ? malloc(dl + 1) : NULL;
	wchar_t *w = NULL;
	ULARGE_INTEGER free_to_us;
	int ret = -1;

	if (dl && !dir)
		return -1;
	if (dir) {
		memcpy(dir, path, dl);
		dir[dl] = '\0';
		w = widen(dir);
		free(dir);
		if (!w)
			return -1;
	}
	/* NULL: the current directory's disk, where a bare name is made. */
	if (GetDiskFreeSpaceExW(w, &free_to_us, NULL, NULL)) {
		*avail = free_to_us.QuadPart;
		ret = 0;
	} else {
		rfm__win_set_errno();
	}
	free(w);
	return ret;
}
