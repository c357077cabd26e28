/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/file.h. The segment directory is %LOCALAPPDATA%\librfm\shm
 * (the user's own: other users cannot reach it), or $RFM_SHM_DIR, made on
 * first use. Segment files are opened for sharing with every other open,
 * deletion included (so a network can be destroyed while nodes hold it, as
 * on Linux), never through a reparse point (a link), not inheritable, and
 * are sparse: a mapping may reach past what was written without taking
 * disk room (os/map.h). Access is the file's DACL: a mode's owner bits
 * for this user, its group bits for BUILTIN\Users, its other bits for
 * Everyone, protected from the directory's inherited entries.
 *
 * A file system that keeps no ACLs (FAT, a share that ignores them, wine,
 * which makes one up from the Unix mode and keeps none it is given) lets
 * everyone read and write: the first look at the directory finds out, with
 * a file made owner-only and read back, and the files there then report
 * mode 0666, which is what they grant.
 */
#include "config.h"

#include <aclapi.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winioctl.h>

#include "os/file.h"
#include "os/win/win-internal.h"

#define SEG_PATH_MAX 1024
/* FILE_INFO_BY_HANDLE_CLASS's FileDispositionInfoEx (Windows 10 1607), which
 * mingw-w64's headers show only to newer targets than Windows 10's first. */
#define DISPOSITION_INFO_EX ((FILE_INFO_BY_HANDLE_CLASS)21)

int rfm__fd_keep_off_std(int fd)
{
	int low[3], n = 0, moved = fd;

	/* The C library hands out the lowest free descriptor: dup until one
	 * is above stdin, stdout and stderr, then close the ones below. */
	while (moved >= 0 && moved <= 2 && n < 3) {
		low[n++] = moved;
		moved = _dup(moved);
	}
	int err = errno;
	for (int i = 0; i < n; i++)
		_close(low[i]);
	errno = err;
	return moved;
}

int rfm__os_open_read(const char *path)
{
	wchar_t wpath[SEG_PATH_MAX];
	DWORD attr;
	int fd;

	if (!rfm__win_widen(path, wpath, SEG_PATH_MAX)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = _wopen(wpath, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
	/* A directory cannot be opened here at all: say so, as read() would on Linux. */
	if (fd < 0 && errno == EACCES) {
		attr = GetFileAttributesW(wpath);
		if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
			errno = EISDIR;
	}
	return rfm__fd_keep_off_std(fd);
}

/* ---- the segment directory ---- */

static INIT_ONCE dir_once = INIT_ONCE_STATIC_INIT;
static char seg_dir[SEG_PATH_MAX];
static wchar_t seg_wdir[SEG_PATH_MAX];
static bool acls_kept;

static PACL mode_acl(unsigned int mode);
static unsigned int acl_mode(PACL acl, PSID owner);

/* Does the directory's file system keep the DACL of a file made in it? */
static bool keeps_acls(const wchar_t *dir)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, FALSE };
	SECURITY_DESCRIPTOR sd;
	PSECURITY_DESCRIPTOR got = NULL;
	PSID owner = NULL;
	PACL acl = mode_acl(0600), dacl = NULL;
	wchar_t path[SEG_PATH_MAX];
	bool kept = false;
	HANDLE h;

	if (!acl)
		return false;
	_snwprintf(path, SEG_PATH_MAX, L"%ls\\.acl-probe-%lu", dir, GetCurrentProcessId());
	path[SEG_PATH_MAX - 1] = 0;
	if (InitializeSecurityDescriptor(&sd, SECURITY_DESCRIPTOR_REVISION) &&
	    SetSecurityDescriptorDacl(&sd, TRUE, acl, FALSE) &&
	    SetSecurityDescriptorControl(&sd, SE_DACL_PROTECTED, SE_DACL_PROTECTED)) {
		sa.lpSecurityDescriptor = &sd;
		h = CreateFileW(path, READ_CONTROL, 0, &sa, CREATE_ALWAYS,
				FILE_FLAG_DELETE_ON_CLOSE, NULL);
		if (h != INVALID_HANDLE_VALUE) {
			if (GetSecurityInfo(h, SE_FILE_OBJECT,
					    OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
					    &owner, NULL, &dacl, NULL, &got) == ERROR_SUCCESS) {
				kept = acl_mode(dacl, owner) == 0600;
				LocalFree(got);
			}
			CloseHandle(h);
		}
	}
	LocalFree(acl);
	return kept;
}

static BOOL CALLBACK find_dir(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
	const char *env = getenv("RFM_SHM_DIR");
	wchar_t app[SEG_PATH_MAX];
	DWORD n;

	if (env && *env) {
		if (!rfm__win_widen(env, seg_wdir, SEG_PATH_MAX))
			seg_wdir[0] = 0;
	} else {
		n = GetEnvironmentVariableW(L"LOCALAPPDATA", app, SEG_PATH_MAX);
		if (n && n < SEG_PATH_MAX - 16) {
			_snwprintf(seg_wdir, SEG_PATH_MAX, L"%ls\\librfm", app);
			CreateDirectoryW(seg_wdir, NULL);
			_snwprintf(seg_wdir, SEG_PATH_MAX, L"%ls\\librfm\\shm", app);
			seg_wdir[SEG_PATH_MAX - 1] = 0;
		} else {
			seg_wdir[0] = 0;
		}
	}
	if (seg_wdir[0]) {
		CreateDirectoryW(seg_wdir, NULL); /* ERROR_ALREADY_EXISTS: fine */
		acls_kept = keeps_acls(seg_wdir);
	}
	if (!WideCharToMultiByte(CP_UTF8, 0, seg_wdir, -1, seg_dir, SEG_PATH_MAX, NULL, NULL))
		seg_dir[0] = 0;
	return TRUE;
}

const char *rfm__os_seg_dir(void)
{
	InitOnceExecuteOnce(&dir_once, find_dir, NULL, NULL);
	return seg_dir[0] ? seg_dir : "(no segment directory: set RFM_SHM_DIR)";
}

/* The path of segment-directory file @name ("/rfm-x"); false when none fits. */
static bool seg_path(const char *name, wchar_t *path)
{
	wchar_t wname[256];

	InitOnceExecuteOnce(&dir_once, find_dir, NULL, NULL);
	if (!seg_wdir[0] || !rfm__win_widen(name[0] == '/' ? name + 1 : name, wname, 256)) {
		errno = ENOENT;
		return false;
	}
	if (_snwprintf(path, SEG_PATH_MAX, L"%ls\\%ls", seg_wdir, wname) < 0) {
		errno = ENAMETOOLONG;
		return false;
	}
	path[SEG_PATH_MAX - 1] = 0;
	return true;
}

/* ---- access: a mode as a DACL, a DACL as a mode ---- */

static DWORD rights(unsigned int bits)
{
	return (bits & 4 ? FILE_GENERIC_READ : 0) | (bits & 2 ? FILE_GENERIC_WRITE : 0) |
	       (bits & 1 ? FILE_GENERIC_EXECUTE : 0);
}

static unsigned int bits(DWORD mask)
{
	return ((mask & FILE_READ_DATA) ? 4u : 0u) | ((mask & FILE_WRITE_DATA) ? 2u : 0u) |
	       ((mask & FILE_EXECUTE) ? 1u : 0u);
}

/* This process's user (its token's), in @buf (TOKEN_USER and the SID after it). */
static PSID token_user(void *buf, DWORD len)
{
	HANDLE token;
	DWORD got = 0;
	BOOL ok;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return NULL;
	ok = GetTokenInformation(token, TokenUser, buf, len, &got);
	CloseHandle(token);
	return ok ? ((TOKEN_USER *)buf)->User.Sid : NULL;
}

/* A DACL granting what @mode says (LocalFree() it), or NULL with errno. */
static PACL mode_acl(unsigned int mode)
{
	EXPLICIT_ACCESS_W ea[3];
	union {
		TOKEN_USER user;
		uint8_t bytes[256];
	} tu;
	SID_IDENTIFIER_AUTHORITY nt = { SECURITY_NT_AUTHORITY };
	SID_IDENTIFIER_AUTHORITY world = { SECURITY_WORLD_SID_AUTHORITY };
	PSID me = token_user(&tu, sizeof(tu)), users = NULL, everyone = NULL;
	PACL acl = NULL;
	ULONG n = 0;
	DWORD err;

	if (!me) {
		rfm__win_set_errno();
		return NULL;
	}
	memset(ea, 0, sizeof(ea));
	ea[n].grfAccessPermissions = rights(mode >> 6 & 7) | READ_CONTROL | WRITE_DAC | DELETE;
	ea[n].grfAccessMode = SET_ACCESS;
	ea[n].Trustee.TrusteeForm = TRUSTEE_IS_SID;
	ea[n].Trustee.TrusteeType = TRUSTEE_IS_USER;
	ea[n++].Trustee.ptstrName = me;
	if ((mode >> 3 & 7) &&
	    AllocateAndInitializeSid(&nt, 2, SECURITY_BUILTIN_DOMAIN_RID, DOMAIN_ALIAS_RID_USERS, 0,
				     0, 0, 0, 0, 0, &users)) {
		ea[n].grfAccessPermissions = rights(mode >> 3 & 7);
		ea[n].grfAccessMode = SET_ACCESS;
		ea[n].Trustee.TrusteeForm = TRUSTEE_IS_SID;
		ea[n].Trustee.TrusteeType = TRUSTEE_IS_ALIAS;
		ea[n++].Trustee.ptstrName = users;
	}
	if ((mode & 7) && AllocateAndInitializeSid(&world, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0,
						   0, &everyone)) {
		ea[n].grfAccessPermissions = rights(mode & 7);
		ea[n].grfAccessMode = SET_ACCESS;
		ea[n].Trustee.TrusteeForm = TRUSTEE_IS_SID;
		ea[n].Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
		ea[n++].Trustee.ptstrName = everyone;
	}
	err = SetEntriesInAclW(n, ea, NULL, &acl);
	if (users)
		FreeSid(users);
	if (everyone)
		FreeSid(everyone);
	if (err != ERROR_SUCCESS) {
		errno = rfm__win_errno(err);
		return NULL;
	}
	return acl;
}

static int set_dacl(HANDLE h, unsigned int mode)
{
	PACL acl = mode_acl(mode);
	DWORD err;

	if (!acl)
		return -1;
	err = SetSecurityInfo(h, SE_FILE_OBJECT,
			      DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION, NULL,
			      NULL, acl, NULL);
	LocalFree(acl);
	if (err != ERROR_SUCCESS) {
		errno = rfm__win_errno(err);
		return -1;
	}
	return 0;
}

/* The permission bits @acl grants to @owner, BUILTIN\Users and Everyone. */
static unsigned int acl_mode(PACL acl, PSID owner)
{
	SID_IDENTIFIER_AUTHORITY nt = { SECURITY_NT_AUTHORITY };
	SID_IDENTIFIER_AUTHORITY world = { SECURITY_WORLD_SID_AUTHORITY };
	PSID users = NULL, everyone = NULL;
	DWORD o = 0, g = 0, w = 0;

	if (!acl)
		return 0777; /* a NULL DACL grants everything to everyone */
	AllocateAndInitializeSid(&nt, 2, SECURITY_BUILTIN_DOMAIN_RID, DOMAIN_ALIAS_RID_USERS, 0, 0,
				 0, 0, 0, 0, &users);
	AllocateAndInitializeSid(&world, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0, 0, &everyone);
	for (DWORD i = 0; i < acl->AceCount; i++) {
		ACE_HEADER *ace;
		PSID sid;
		DWORD mask;

		if (!GetAce(acl, i, (void **)&ace) || ace->AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    (ace->AceFlags & INHERIT_ONLY_ACE))
			continue;
		mask = ((ACCESS_ALLOWED_ACE *)ace)->Mask;
		sid = &((ACCESS_ALLOWED_ACE *)ace)->SidStart;
		if (mask & GENERIC_ALL)
			mask |= FILE_ALL_ACCESS;
		if (mask & GENERIC_READ)
			mask |= FILE_GENERIC_READ;
		if (mask & GENERIC_WRITE)
			mask |= FILE_GENERIC_WRITE;
		if (owner && EqualSid(sid, owner))
			o |= mask;
		else if (users && EqualSid(sid, users))
			g |= mask;
		else if (everyone && EqualSid(sid, everyone))
			w |= mask;
	}
	if (users)
		FreeSid(users);
	if (everyone)
		FreeSid(everyone);
	return bits(o) << 6 | bits(g) << 3 | bits(w);
}

static void sid_text(PSID sid, char *buf, size_t len)
{
	char *s = NULL;

	if (sid && ConvertSidToStringSidA(sid, &s)) {
		snprintf(buf, len, "%s", s);
		LocalFree(s);
	} else {
		snprintf(buf, len, "%s", sid ? "(unknown)" : "");
	}
}

/* ---- the segment directory's files ---- */

int rfm__os_seg_open(const char *name, unsigned int flags, unsigned int mode)
{
	wchar_t path[SEG_PATH_MAX];
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, FALSE };
	SECURITY_DESCRIPTOR sd;
	PACL acl = NULL;
	DWORD disposition = !(flags & RFM_OS_SEG_CREATE) ? OPEN_EXISTING
			    : (flags & RFM_OS_SEG_EXCL)	    ? CREATE_NEW
							    : OPEN_ALWAYS;
	HANDLE h;
	bool created;
	int fd;

	if (!seg_path(name, path))
		return -1;
	if (flags & RFM_OS_SEG_CREATE) {
		acl = mode_acl(mode);
		if (!acl)
			return -1;
		if (!InitializeSecurityDescriptor(&sd, SECURITY_DESCRIPTOR_REVISION) ||
		    !SetSecurityDescriptorDacl(&sd, TRUE, acl, FALSE) ||
		    !SetSecurityDescriptorControl(&sd, SE_DACL_PROTECTED, SE_DACL_PROTECTED)) {
			rfm__win_set_errno();
			LocalFree(acl);
			return -1;
		}
		sa.lpSecurityDescriptor = &sd;
	}
	h = CreateFileW(path,
			(flags & RFM_OS_SEG_READ) ? GENERIC_READ : GENERIC_READ | GENERIC_WRITE,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa, disposition,
			FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	created = h != INVALID_HANDLE_VALUE &&
		  (disposition == CREATE_NEW ||
		   (disposition == OPEN_ALWAYS && GetLastError() != ERROR_ALREADY_EXISTS));
	if (acl)
		LocalFree(acl);
	if (h == INVALID_HANDLE_VALUE) {
		rfm__win_set_errno();
		return -1;
	}
	if (created) {
		DWORD got;

		/* Best effort: a file system without sparse files takes the room. */
		DeviceIoControl(h, FSCTL_SET_SPARSE, NULL, 0, NULL, 0, &got, NULL);
	}
	fd = _open_osfhandle((intptr_t)h,
			     ((flags & RFM_OS_SEG_READ) ? _O_RDONLY : _O_RDWR) | _O_BINARY);
	if (fd < 0) {
		CloseHandle(h);
		return -1;
	}
	return rfm__fd_keep_off_std(fd);
}

int rfm__os_seg_unlink(const char *name)
{
	wchar_t path[SEG_PATH_MAX];
	FILE_DISPOSITION_INFO_EX posix = {
		FILE_DISPOSITION_FLAG_DELETE | FILE_DISPOSITION_FLAG_POSIX_SEMANTICS
	};
	HANDLE h;

	if (!seg_path(name, path))
		return -1;
	/*
	 * The name goes now, as unlink() does, while nodes still hold the
	 * file (POSIX semantics, Windows 10 1709 and later); elsewhere it goes
	 * with the last handle, and opening it meanwhile is refused.
	 */
	h = CreateFileW(path, DELETE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		rfm__win_set_errno();
		return -1;
	}
	if (!SetFileInformationByHandle(h, DISPOSITION_INFO_EX, &posix, sizeof(posix))) {
		FILE_DISPOSITION_INFO del = { TRUE };

		if (!SetFileInformationByHandle(h, FileDispositionInfo, &del, sizeof(del))) {
			rfm__win_set_errno();
			CloseHandle(h);
			return -1;
		}
	}
	CloseHandle(h);
	return 0;
}

int rfm__os_seg_room(uint64_t *total, uint64_t *avail)
{
	ULARGE_INTEGER free_to_us, all;

	InitOnceExecuteOnce(&dir_once, find_dir, NULL, NULL);
	if (!GetDiskFreeSpaceExW(seg_wdir, &free_to_us, &all, NULL)) {
		rfm__win_set_errno();
		return -1;
	}
	*total = all.QuadPart;
	*avail = free_to_us.QuadPart;
	return 0;
}

const char *rfm__os_seg_more_room(void)
{
	return "free room on the disk that holds it, or set RFM_SHM_DIR to a directory on "
	       "another";
}

static int stat_handle(HANDLE h, struct rfm_os_stat *st)
{
	BY_HANDLE_FILE_INFORMATION info;
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL, group = NULL;
	PACL dacl = NULL;
	union {
		TOKEN_USER user;
		uint8_t bytes[256];
	} tu;
	PSID me;
	DWORD err;

	if (!GetFileInformationByHandle(h, &info)) {
		rfm__win_set_errno();
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->size = (uint64_t)info.nFileSizeHigh << 32 | info.nFileSizeLow;
	st->dev = info.dwVolumeSerialNumber;
	st->ino = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
	st->regular = GetFileType(h) == FILE_TYPE_DISK &&
		      !(info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY |
						 FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DEVICE));
	err = GetSecurityInfo(h, SE_FILE_OBJECT,
			      OWNER_SECURITY_INFORMATION | GROUP_SECURITY_INFORMATION |
				      DACL_SECURITY_INFORMATION,
			      &owner, &group, &dacl, NULL, &sd);
	if (err != ERROR_SUCCESS) {
		errno = rfm__win_errno(err);
		return -1;
	}
	me = token_user(&tu, sizeof(tu));
	st->mine = owner && me && EqualSid(owner, me);
	InitOnceExecuteOnce(&dir_once, find_dir, NULL, NULL);
	st->mode = acls_kept ? acl_mode(dacl, owner) : 0666;
	sid_text(owner, st->owner, sizeof(st->owner));
	sid_text(group, st->group, sizeof(st->group));
	LocalFree(sd);
	return 0;
}

int rfm__os_seg_stat(const char *name, struct rfm_os_stat *st)
{
	wchar_t path[SEG_PATH_MAX];
	HANDLE h;
	int ret;

	if (!seg_path(name, path))
		return -1;
	/* READ_CONTROL only: the status of a file we may not otherwise open. */
	h = CreateFileW(path, READ_CONTROL | FILE_READ_ATTRIBUTES,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		rfm__win_set_errno();
		return -1;
	}
	ret = stat_handle(h, st);
	CloseHandle(h);
	return ret;
}

int rfm__os_file_stat(int fd, struct rfm_os_stat *st)
{
	HANDLE h = rfm__win_handle(fd);

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	return stat_handle(h, st);
}

int rfm__os_file_size(int fd, uint64_t *size)
{
	HANDLE h = rfm__win_handle(fd);
	LARGE_INTEGER li;

	if (h == INVALID_HANDLE_VALUE || !GetFileSizeEx(h, &li)) {
		rfm__win_set_errno();
		return -1;
	}
	*size = (uint64_t)li.QuadPart;
	return 0;
}

void rfm__os_user(char *buf, size_t len)
{
	union {
		TOKEN_USER user;
		uint8_t bytes[256];
	} tu;

	sid_text(token_user(&tu, sizeof(tu)), buf, len);
}

/* @h reopened for changing its DACL (the descriptor's handle may lack WRITE_DAC). */
static int with_dac_handle(int fd, unsigned int mode)
{
	HANDLE h = rfm__win_handle(fd), dac;
	int ret;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	dac = ReOpenFile(h, READ_CONTROL | WRITE_DAC,
			 FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, 0);
	if (dac == INVALID_HANDLE_VALUE) {
		rfm__win_set_errno();
		return -1;
	}
	ret = set_dacl(dac, mode);
	CloseHandle(dac);
	return ret;
}

int rfm__os_file_set_mode(int fd, unsigned int mode)
{
	InitOnceExecuteOnce(&dir_once, find_dir, NULL, NULL);
	return acls_kept ? with_dac_handle(fd, mode) : 0;
}

int rfm__os_file_share_like(int fd, int like, unsigned int mode)
{
	/* No owner or group to give away (no root): the access is what matters. */
	return rfm__os_file_set_mode(fd, mode);
}

int rfm__os_file_truncate(int fd, uint64_t len)
{
	HANDLE h = rfm__win_handle(fd);
	FILE_END_OF_FILE_INFO eof = { .EndOfFile.QuadPart = (LONGLONG)len };

	if (h == INVALID_HANDLE_VALUE ||
	    !SetFileInformationByHandle(h, FileEndOfFileInfo, &eof, sizeof(eof))) {
		rfm__win_set_errno();
		return -1;
	}
	return 0;
}

/* Write zeros over [@from, @to): room taken on the disk for a hole. */
static int fill(HANDLE h, uint64_t from, uint64_t to)
{
	static const uint8_t zeros[65536];

	while (from < to) {
		OVERLAPPED ov = { 0 };
		DWORD n = to - from < sizeof(zeros) ? (DWORD)(to - from) : sizeof(zeros), done;

		ov.Offset = (DWORD)from;
		ov.OffsetHigh = (DWORD)(from >> 32);
		if (!WriteFile(h, zeros, n, &done, &ov) || !done)
			return rfm__win_errno(GetLastError());
		from += done;
	}
	return 0;
}

int rfm__os_file_reserve(int fd, uint64_t offset, uint64_t len)
{
	HANDLE h = rfm__win_handle(fd);
	FILE_ALLOCATED_RANGE_BUFFER ask, got[16];
	LARGE_INTEGER size;
	uint64_t end = offset + len, at = offset;
	DWORD bytes;

	if (h == INVALID_HANDLE_VALUE)
		return EBADF;
	if (!GetFileSizeEx(h, &size))
		return rfm__win_errno(GetLastError());
	if ((uint64_t)size.QuadPart < end) {
		FILE_END_OF_FILE_INFO eof = { .EndOfFile.QuadPart = (LONGLONG)end };

		if (!SetFileInformationByHandle(h, FileEndOfFileInfo, &eof, sizeof(eof)))
			return rfm__win_errno(GetLastError());
	}
	/*
	 * A sparse file's holes take disk room only when written, and a store
	 * into a mapped hole on a full disk raises an exception: fill the holes
	 * in the range with zeros now, so that a full disk fails here. Only
	 * holes: bytes written before (a slab's earlier receiver) stay.
	 */
	while (at < end) {
		ask.FileOffset.QuadPart = (LONGLONG)at;
		ask.Length.QuadPart = (LONGLONG)(end - at);
		if (!DeviceIoControl(h, FSCTL_QUERY_ALLOCATED_RANGES, &ask, sizeof(ask), got,
				     sizeof(got), &bytes, NULL) &&
		    GetLastError() != ERROR_MORE_DATA)
			return 0; /* not sparse, or no way to ask: the room is the file's */
		DWORD n = bytes / sizeof(got[0]);
		for (DWORD i = 0; i < n && at < end; i++) {
			uint64_t from = (uint64_t)got[i].FileOffset.QuadPart;
			uint64_t to = from + (uint64_t)got[i].Length.QuadPart;
			int err;

			if (from > at && (err = fill(h, at, from < end ? from : end)))
				return err;
			if (to > at)
				at = to;
		}
		if (n < sizeof(got) / sizeof(got[0])) {
			int err = at < end ? fill(h, at, end) : 0;

			return err;
		}
	}
	return 0;
}
