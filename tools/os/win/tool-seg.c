/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The segment directory on Windows (tools/os/tool-seg.h): the directory
 * the library keeps its shm: networks in (src/os/win/file.c,
 * docs/windows.md): $RFM_SHM_DIR (UTF-8), else %LOCALAPPDATA%\librfm\shm.
 * Listing never makes it: a directory that is not there holds no network.
 *
 * Files are opened to read only, sharing read, write and delete with
 * everyone, so a node that opens, grows or removes a network meanwhile
 * is never refused for it.
 *
 * Windows can see a byte-range lock only by trying to take it, so the
 * attached nodes are counted by the library: an observer (shm:NAME?
 * observe=1) takes no node id, no lock a node keeps and no queue, and
 * reads the node table as rfm nodes does; its looks at the nodes' lock
 * bytes are the OS layer's, which a node that attaches meanwhile waits
 * out (src/os/win/lock.c).
 */
#include "config.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/rfm.h>

#include "backends/shm/shm-segment.h" /* the files' names */
#include "os/tool-seg.h"

/* Longest path handled, in UTF-16 units, as the library's. */
#define PATH_UNITS 1024

static INIT_ONCE dir_once = INIT_ONCE_STATIC_INIT;
static wchar_t seg_wdir[PATH_UNITS];
static char seg_dir[3 * PATH_UNITS];

/* The directory as the library finds it, without making it. */
static BOOL CALLBACK find_dir(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
	const char *env = getenv("RFM_SHM_DIR");
	wchar_t app[PATH_UNITS];
	DWORD n;

	(void)once;
	(void)param;
	(void)ctx;
	if (env && *env) {
		if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, env, -1, seg_wdir,
					 PATH_UNITS))
			seg_wdir[0] = 0;
	} else {
		n = GetEnvironmentVariableW(L"LOCALAPPDATA", app, PATH_UNITS);
		if (n && n < PATH_UNITS - 16)
			_snwprintf(seg_wdir, PATH_UNITS, L"%ls\\librfm\\shm", app);
		seg_wdir[PATH_UNITS - 1] = 0;
	}
	if (!seg_wdir[0] || !WideCharToMultiByte(CP_UTF8, 0, seg_wdir, -1, seg_dir,
						 sizeof(seg_dir), NULL, NULL))
		snprintf(seg_dir, sizeof(seg_dir), "(no segment directory: set RFM_SHM_DIR)");
	return TRUE;
}

const char *tool_seg_dir(void)
{
	InitOnceExecuteOnce(&dir_once, find_dir, NULL, NULL);
	return seg_dir;
}

/* The path of segment-directory file "@prefix@name"; false when none fits. */
static bool seg_path(const char *prefix, const char *name, wchar_t *path)
{
	char file[RFM_SHM_NAME_MAX + 16];
	wchar_t wfile[RFM_SHM_NAME_MAX + 16];
	int n;

	InitOnceExecuteOnce(&dir_once, find_dir, NULL, NULL);
	n = snprintf(file, sizeof(file), "%s%s", prefix, name);
	if (!seg_wdir[0] || n < 0 || (size_t)n >= sizeof(file) ||
	    !MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, file, -1, wfile,
				 RFM_SHM_NAME_MAX + 16))
		return false;
	n = _snwprintf(path, PATH_UNITS, L"%ls\\%ls", seg_wdir, wfile);
	return n > 0 && n < PATH_UNITS;
}

int tool_seg_each(int (*fn)(const char *file, void *arg), void *arg)
{
	wchar_t pattern[PATH_UNITS];
	WIN32_FIND_DATAW fd;
	char name[3 * MAX_PATH];
	HANDLE find;
	DWORD err;

	if (!seg_path("", "*", pattern))
		return ENOENT;
	find = FindFirstFileExW(pattern, FindExInfoBasic, &fd, FindExSearchNameMatch, NULL, 0);
	if (find == INVALID_HANDLE_VALUE) {
		err = GetLastError();
		/* Empty, or never made: no network was ever opened there. */
		if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
			return 0;
		return err == ERROR_ACCESS_DENIED ? EACCES : EIO;
	}
	do {
		if (WideCharToMultiByte(CP_UTF8, 0, fd.cFileName, -1, name, sizeof(name), NULL,
					NULL) &&
		    fn(name, arg))
			break;
	} while (FindNextFileW(find, &fd));
	FindClose(find);
	return 0;
}

/* @text as the owner's name; a name too long for it is none, never half of one. */
static void utf8_owner(const wchar_t *text, struct tool_seg_file *f)
{
	if (!WideCharToMultiByte(CP_UTF8, 0, text, -1, f->owner, sizeof(f->owner), NULL, NULL))
		f->owner[0] = 0;
}

/* The owner of the file @h as "DOMAIN\user" (or its SID's text) into @f. */
static void owner_of(HANDLE h, struct tool_seg_file *f)
{
	wchar_t user[256], domain[256], text[520];
	DWORD ulen = 256, dlen = 256;
	PSECURITY_DESCRIPTOR sd = NULL;
	SID_NAME_USE use;
	PSID owner = NULL;
	LPWSTR sid_text;

	if (GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION, &owner, NULL, NULL,
			    NULL, &sd) != ERROR_SUCCESS)
		return;
	if (owner && LookupAccountSidW(NULL, owner, user, &ulen, domain, &dlen, &use)) {
		if (domain[0])
			_snwprintf(text, 520, L"%ls\\%ls", domain, user);
		else
			_snwprintf(text, 520, L"%ls", user);
		text[519] = 0;
		utf8_owner(text, f);
	} else if (owner && ConvertSidToStringSidW(owner, &sid_text)) {
		utf8_owner(sid_text, f);
		LocalFree(sid_text);
	}
	LocalFree(sd);
}

/* Size, room and owner of the open file @h: false when @h is no regular file. */
static bool stat_handle(HANDLE h, struct tool_seg_file *f)
{
	FILE_STANDARD_INFO std;
	BY_HANDLE_FILE_INFORMATION info;

	if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
	    !GetFileInformationByHandleEx(h, FileStandardInfo, &std, sizeof(std)))
		return false;
	/* Sparse: only the pages written take room (docs/windows.md). */
	f->bytes = (uint64_t)std.AllocationSize.QuadPart;
	f->size = (uint64_t)std.EndOfFile.QuadPart;
	owner_of(h, f);
	return !(info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT));
}

/* Open segment-directory file @path to look at; @follow: through a link. */
static HANDLE open_look(const wchar_t *path, bool follow)
{
	return CreateFileW(path, GENERIC_READ | READ_CONTROL,
			   FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			   OPEN_EXISTING, follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT, NULL);
}

int tool_seg_read(const char *name, struct tool_seg_file *f, void *head, size_t len,
		  size_t *got)
{
	wchar_t path[PATH_UNITS];
	DWORD n = 0;
	HANDLE h;
	bool regular;

	memset(f, 0, sizeof(*f));
	f->mode = -1; /* an ACL, not mode bits: rfm info and the library's messages say it */
	f->uid = -1;
	*got = 0;
	if (!seg_path(RFM_SHM_PREFIX, name, path))
		return ENODEV;
	h = open_look(path, false);
	if (h == INVALID_HANDLE_VALUE)
		return GetLastError() == ERROR_ACCESS_DENIED ? EACCES : ENODEV;
	regular = stat_handle(h, f);
	if (regular && ReadFile(h, head, (DWORD)len, &n, NULL))
		*got = n;
	CloseHandle(h);
	return regular ? 0 : ENODEV;
}

int tool_seg_footprint(const char *name, uint64_t *bytes)
{
	FILE_STANDARD_INFO std;
	wchar_t path[PATH_UNITS];
	bool ok;
	HANDLE h;

	if (!seg_path(RFM_SHM_PREFIX, name, path))
		return -1;
	h = open_look(path, true);
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	ok = GetFileInformationByHandleEx(h, FileStandardInfo, &std, sizeof(std));
	CloseHandle(h);
	if (!ok)
		return -1;
	*bytes = (uint64_t)std.AllocationSize.QuadPart;
	return 0;
}

int tool_seg_attached(const char *name)
{
	char uri[RFM_SHM_NAME_MAX + 32];
	struct rfm_node_info info = { .struct_size = sizeof(info) };
	rfm_node *node;
	int n = -1;

	snprintf(uri, sizeof(uri), "shm:%s?observe=1", name);
	if (rfm_open(uri, &node) < 0)
		return -1;
	if (rfm_node_get_info(node, &info) == 0)
		n = (int)info.nodes_attached;
	rfm_close(node);
	return n;
}
