/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the Windows half of the OS layer shares between its files, and the
 * only place <windows.h> is included: no header of the core sees it (its
 * macros, near and far among them, would collide with the core's names).
 */
#ifndef RFM_OS_WIN_INTERNAL_H
#define RFM_OS_WIN_INTERNAL_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* errno for a Win32 error code (GetLastError()), and errno set from the last error. */
int rfm__win_errno(DWORD err);
void rfm__win_set_errno(void);

/* The HANDLE behind C library descriptor @fd, or INVALID_HANDLE_VALUE. */
HANDLE rfm__win_handle(int fd);

/* A file's identity on this host: the volume and the file's index on it. */
struct rfm_win_file_id {
	uint32_t volume;
	uint64_t index;
};

/*
 * What processes sleeping on words of one file share (wait-file.c): a table
 * of who sleeps on which word, in a section named from the file's identity,
 * taken with a file's first writable view and given back with its last
 * (map.c); and each sleeping thread's own named semaphore.
 */
#define RFM_WIN_SLEEPERS 256
struct rfm_win_sleeper {
	uint32_t state;		/* RFM_WIN_SLOT_* (atomic) */
	uint32_t pid, tid;	/* the sleeping thread */
	uint32_t pad;
	uint64_t offset;	/* the word's offset in the file */
};
enum { RFM_WIN_SLOT_FREE, RFM_WIN_SLOT_TAKEN, RFM_WIN_SLOT_SLEEPING };
struct rfm_win_sleepers {
	uint32_t active;	/* slots not free (atomic): 0 spares wakers the scan */
	uint32_t pad;
	struct rfm_win_sleeper slot[RFM_WIN_SLEEPERS];
};
struct rfm_win_wait_file;
struct rfm_win_wait_file *rfm__win_wait_file_get(const struct rfm_win_file_id *file);
void rfm__win_wait_file_put(struct rfm_win_wait_file *wf);
struct rfm_win_sleepers *rfm__win_wait_table(struct rfm_win_wait_file *wf);
/* This thread's semaphore (made on first use, closed at the thread's end), or NULL. */
HANDLE rfm__win_thread_sem(void);
/* Wake thread @tid of process @pid: false only when it is gone for sure. */
bool rfm__win_wake_thread(uint32_t pid, uint32_t tid);

/* Whose memory a shared word is in (map.c): the file's wait objects and the
 * word's offset in the file, when @addr lies in a writable mapping of
 * rfm__os_map(); NULL otherwise. */
struct rfm_win_wait_file *rfm__win_map_find(const void *addr, uint64_t *offset);

/* Milliseconds until @deadline_ns (rfm__now_ns() clock; 0: INFINITE),
 * rounded up; 0 when it has passed. */
DWORD rfm__win_ms_until(uint64_t deadline_ns);

/* UTF-8 to a wide string of at most @len characters: false when it does not fit. */
bool rfm__win_widen(const char *s, wchar_t *out, size_t len);

/* This process's user (its token's) in @buf (TOKEN_USER and the SID after
 * it, file.c): the SID, or NULL. */
PSID rfm__win_token_user(void *buf, DWORD len);

#endif /* RFM_OS_WIN_INTERNAL_H */
