/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files (the OS layer; docs/architecture.md, "The OS layer"): descriptors
 * kept off 0-2, files read whole (layouts), the files of a shm: network
 * in the OS's segment directory, with their owner and access, and the
 * files the library writes (recordings).
 *
 * A descriptor is an int on every OS: a C library descriptor, which on
 * Windows stands for a HANDLE (_get_osfhandle()). Functions that fail
 * return -1 (or an errno value where they say so) with errno set, errno
 * values the core maps with rfm__errno_code(): on Windows the OS's error
 * is translated (ERROR_FILE_NOT_FOUND is ENOENT, ERROR_ACCESS_DENIED
 * EACCES, ERROR_DISK_FULL ENOSPC, a lock held elsewhere EAGAIN...).
 */
#ifndef RFM_OS_FILE_H
#define RFM_OS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every descriptor the library opens goes through this: one on 0-2 (the
 * caller runs with stdin, stdout or stderr closed) is moved to 3 or above,
 * close-on-exec. Returns the descriptor to use, or -1 with errno.
 */
int rfm__fd_keep_off_std(int fd);

/* Open @path for reading (not inherited by children, off 0-2): fd or -1. */
int rfm__os_open_read(const char *path);

/* Close @fd; the locks it holds (os/lock.h) go with it. */
void rfm__os_close(int fd);

/*
 * ---- the segment directory ----
 *
 * Where shm: networks live, one directory per host (Linux: /dev/shm, what
 * shm_open() uses) or per user (Windows: %LOCALAPPDATA%\librfm\shm, or
 * $RFM_SHM_DIR; made on first use), for the messages that name it.
 */
const char *rfm__os_seg_dir(void);

/* Flags of rfm__os_seg_open(). */
#define RFM_OS_SEG_CREATE 1u	/* create the file when it does not exist */
#define RFM_OS_SEG_EXCL 2u	/* with CREATE: fail with EEXIST when it does */
#define RFM_OS_SEG_READ 4u	/* read-only (an observer's), never with CREATE */

/*
 * Open segment-directory file @name ("/rfm-NAME", as shm_open() takes it)
 * read-write (read-only with RFM_OS_SEG_READ), never through a symbolic
 * link, not inherited by children, off 0-2; created (with @flags) with access @mode (POSIX permission bits;
 * on Windows an ACL that grants the same, rfm__os_file_set_mode()).
 * Returns the descriptor, or -1 with errno.
 */
int rfm__os_seg_open(const char *name, unsigned int flags, unsigned int mode);

/* Remove segment-directory file @name: 0, or -1 with errno. */
int rfm__os_seg_unlink(const char *name);

/* Room in the segment directory's file system: 0, or -1 with errno. */
int rfm__os_seg_room(uint64_t *total, uint64_t *avail);
/* How a user gives the segment directory more room ("give /dev/shm more room ..."). */
const char *rfm__os_seg_more_room(void);

/*
 * ---- owner and access ----
 *
 * What the shm: backend checks before it trusts a network's files. The
 * owner and group are text, compared as such and shown to users: "uid
 * 1000" and "gid 100" on POSIX, security identifiers (S-1-5-21-...) on
 * Windows. The mode is POSIX permission bits; on Windows the bits the
 * file's ACL grants: the owner's (0600), the group's (given to the users
 * of the host, BUILTIN\Users: 0060) and others' (Everyone: 0006).
 */
#define RFM_OS_ID_TEXT 200

struct rfm_os_stat {
	uint64_t size;			/* bytes */
	uint64_t dev, ino;		/* the file's identity on this host */
	bool regular;			/* a regular file (no device, directory, link) */
	bool mine;			/* owned by this process's (effective) user */
	unsigned int mode;		/* permission bits, 0777 at most */
	char owner[RFM_OS_ID_TEXT];	/* its owner, as text */
	char group[RFM_OS_ID_TEXT];	/* its group, as text ("" where none) */
};

/* Segment-directory file @name's status, not following a link: 0 or -1 with errno. */
int rfm__os_seg_stat(const char *name, struct rfm_os_stat *st);
/* An open file's status: 0 or -1 with errno. */
int rfm__os_file_stat(int fd, struct rfm_os_stat *st);
/* An open file's size in bytes: 0 or -1 with errno (cheaper than the status). */
int rfm__os_file_size(int fd, uint64_t *size);
/* This process's user, as the owner text of its files. */
void rfm__os_user(char *buf, size_t len);

/* Give @fd exactly the access @mode grants (the umask does not narrow it): 0 or -1. */
int rfm__os_file_set_mode(int fd, unsigned int mode);
/*
 * Give @fd, a file we just created beside the open file @like, @like's
 * group (and owner, when we may give files away: root), and access @mode:
 * 0, or -1 with errno when it could not (the caller's owner check then
 * says why).
 */
int rfm__os_file_share_like(int fd, int like, unsigned int mode);

/* ---- size and room ---- */

/* Make the file @len bytes long: 0 or -1 with errno. */
int rfm__os_file_truncate(int fd, uint64_t len);
/*
 * Make sure the file's bytes [@offset, @offset+@len) exist and have room
 * on the disk (growing the file if needed), so a store into a mapping of
 * them never fails for lack of room: 0, or an errno value (ENOSPC...).
 */
int rfm__os_file_reserve(int fd, uint64_t offset, uint64_t len);

/*
 * ---- files the library writes (recordings) ----
 *
 * Paths are the caller's (UTF-8 on Windows). A file is either made where
 * nothing has the name, or built whole under a name of its own beside
 * it and then given its name without replacing a file that appeared
 * there meanwhile: a refusal never costs a user an existing file.
 */

/*
 * Create @path for writing (not inherited by children, off 0-2), with
 * access @mode as the umask leaves it (Windows: what the directory
 * passes on). Fails with EEXIST when the name is taken, by anything,
 * unless @replace: then a file there is emptied. The descriptor, or -1
 * with errno.
 */
int rfm__os_file_create(const char *path, bool replace, unsigned int mode);

/* Does anything have the name @path (a file, a directory, a link, even a dangling one)? */
bool rfm__os_path_taken(const char *path);

/*
 * Make a new, empty file beside @path, in its directory, under a name of
 * its own (".NAME.rfm-XXXXXX"), with access @mode as the umask leaves it.
 * 0 with the name in *@tmpp (the caller frees it), or -1 with errno.
 */
int rfm__os_file_temp_beside(const char *path, unsigned int mode, char **tmpp);

/*
 * Give file @from the name @to. With @replace, a file called @to is
 * replaced (atomically on POSIX); without, EEXIST when @to is taken, even
 * by a file that appeared a moment ago, which stays as it is (Linux:
 * link(), or renameat2(RENAME_NOREPLACE) where a file system has no
 * hard links; Windows: MoveFileExW() without MOVEFILE_REPLACE_EXISTING).
 * 0, or -1 with errno and @from as it was.
 */
int rfm__os_file_move(const char *from, const char *to, bool replace);

/* Remove file @path: 0, or -1 with errno. */
int rfm__os_file_remove(const char *path);

/* The size in bytes of file @path: 0 or -1 with errno. */
int rfm__os_path_size(const char *path, uint64_t *size);

/*
 * The bytes this user may still write on the file system that holds (or
 * will hold) file @path, in its directory (statvfs()'s f_bavail,
 * GetDiskFreeSpaceExW()'s bytes free to the caller): 0 or -1 with errno.
 */
int rfm__os_room_beside(const char *path, uint64_t *avail);

#endif /* RFM_OS_FILE_H */
