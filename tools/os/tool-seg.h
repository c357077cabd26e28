/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The segment directory as rfm list and rfm info see it: the files of
 * the shm: networks on this host, looked at without attaching to any and
 * without taking any lock a node takes. What differs per OS (where the
 * directory is, how a file is walked to, stat'ed and read, how its
 * attached nodes are counted) is here; tools/cmd-list.c does the rest
 * once for both. tools/os/posix/tool-seg.c reads /dev/shm; tools/os/win/
 * tool-seg.c the directory the library uses on Windows
 * (%LOCALAPPDATA%\librfm\shm, or $RFM_SHM_DIR: docs/windows.md).
 */
#ifndef RFM_TOOLS_SEG_H
#define RFM_TOOLS_SEG_H

#include <stddef.h>
#include <stdint.h>

/* What the OS says of one segment file. */
struct tool_seg_file {
	uint64_t bytes;		/* room it takes on its file system (sparse: less than size) */
	uint64_t size;		/* its length */
	int mode;		/* permission bits; -1 where the OS has none (Windows: an ACL) */
	char owner[64];		/* its owner's name, "" when unknown */
	int64_t uid;		/* its owner's user id; -1 where the OS has none (Windows) */
};

/* The segment directory, for messages ("no networks in /dev/shm"). */
const char *tool_seg_dir(void);

/*
 * Call @fn with the name of every file in the segment directory (its own
 * name, not a path; the caller picks "rfm-NAME"), until @fn returns
 * non-zero. 0, or an errno value when the directory cannot be read (one
 * never made is empty: no network was ever opened there).
 */
int tool_seg_each(int (*fn)(const char *file, void *arg), void *arg);

/*
 * Network @name's segment file ("rfm-NAME"), not through a link: its
 * status into @f and its first @len bytes into @head, their number in
 * *@got. 0, or an errno value: EACCES when it may not be read, another
 * when it is not a regular file; then @f holds what is known (zeros, or
 * the status of what has the name).
 */
int tool_seg_read(const char *name, struct tool_seg_file *f, void *head, size_t len,
		  size_t *got);

/* Bytes network @name's segment file takes on its file system: 0 or -1. */
int tool_seg_footprint(const char *name, uint64_t *bytes);

/*
 * The nodes attached to network @name now, seen without taking any lock
 * a node holds or waits for; -1 when unknown (its lock file may not be
 * read). Asked only of networks of this version whose header was read.
 */
int tool_seg_attached(const char *name);

#endif /* RFM_TOOLS_SEG_H */
