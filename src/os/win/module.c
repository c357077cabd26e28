/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/module.h with LoadLibraryExW(). A module's own DLLs are
 * looked for in its directory first (LOAD_WITH_ALTERED_SEARCH_PATH), as
 * a module installed with what it needs beside it expects.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/module.h"
#include "os/win/win-internal.h"

#define MODULE_PATH_MAX 32768

const char *rfm__os_module_suffix(void)
{
	return ".dll";
}

void *rfm__os_module_open(const char *path, char *why, size_t len)
{
	wchar_t *w = malloc(MODULE_PATH_MAX * sizeof(*w));
	HMODULE module = NULL;

	if (!w) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (!rfm__win_widen(path, w, MODULE_PATH_MAX)) {
		snprintf(why, len, "the path is not UTF-8 or too long");
	} else {
		module = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
		if (!module) {
			DWORD err = GetLastError();
			DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM |
						 FORMAT_MESSAGE_IGNORE_INSERTS, NULL, err, 0, why,
						 (DWORD)len, NULL);
			/* Windows ends its messages with a line break. */
			while (n && (why[n - 1] == '\n' || why[n - 1] == '\r' || why[n - 1] == '.'))
				why[--n] = '\0';
			if (!n)
				snprintf(why, len, "LoadLibraryExW() failed with error %lu",
					 (unsigned long)err);
		}
	}
	free(w);
	return (void *)module;
}

void *rfm__os_module_symbol(void *module, const char *name)
{
	return (void *)GetProcAddress((HMODULE)module, name);
}

void rfm__os_module_close(void *module)
{
	FreeLibrary((HMODULE)module);
}

int rfm__os_module_self_dir(char *buf, size_t len)
{
	HMODULE self;
	wchar_t *w = malloc(MODULE_PATH_MAX * sizeof(*w));
	int ret = -1;

	if (!w)
		return -1;
	/* This function's own address lies in the DLL. */
	if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
				GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
				(LPCWSTR)(void *)rfm__os_module_self_dir, &self)) {
		rfm__win_set_errno();
		goto out;
	}
	DWORD n = GetModuleFileNameW(self, w, MODULE_PATH_MAX);
	if (!n || n >= MODULE_PATH_MAX) {
		errno = ENAMETOOLONG;
		goto out;
	}
	while (n && w[n - 1] != L'\\' && w[n - 1] != L'/')
		n--;
	if (n > 1 && w[n - 2] != L':')
		n--;	/* drop the separator, as POSIX's half does (not a drive's: C:\) */
	w[n] = L'\0';
	if (!WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, (int)len, NULL, NULL)) {
		errno = ERANGE;
		goto out;
	}
	ret = 0;
out:
	free(w);
	return ret;
}
