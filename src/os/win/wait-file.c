/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: what processes sleeping on the words of one segment file share
 * (wait.c says how it is used): a named section holding a table of
 * sleepers, named from the file's identity (the volume serial and file
 * index: the same for every process that maps the file, and no field of
 * the segment a writer could change),
 *
 *   Local\librfm-<volume>-<index>-sleepers
 *
 * and each sleeping thread's own semaphore, named from its process and
 * thread ids, which a waker opens to wake that one thread:
 *
 *   Local\librfm-thread-<pid>-<tid>
 *
 * map.c takes a file's table with its first writable view and gives it
 * back with its last.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "os/win/win-internal.h"

struct rfm_win_wait_file {
	struct rfm_win_file_id id;
	unsigned int refs;		/* mappings of the file (map.c), under files_lock */
	HANDLE section;
	struct rfm_win_sleepers *table;	/* in the section */
	struct rfm_win_wait_file *next;
};

static SRWLOCK files_lock = SRWLOCK_INIT;
static struct rfm_win_wait_file *files;

static void wide_name(wchar_t *buf, size_t len, const char *name)
{
	if (!MultiByteToWideChar(CP_ACP, 0, name, -1, buf, (int)len))
		buf[0] = 0;
	buf[len - 1] = 0;
}

struct rfm_win_wait_file *rfm__win_wait_file_get(const struct rfm_win_file_id *id)
{
	struct rfm_win_wait_file *wf;
	char name[96];
	wchar_t wname[96];

	AcquireSRWLockExclusive(&files_lock);
	for (wf = files; wf; wf = wf->next)
		if (wf->id.volume == id->volume && wf->id.index == id->index) {
			wf->refs++;
			goto out;
		}
	wf = calloc(1, sizeof(*wf));
	if (!wf)
		goto out;
	wf->id = *id;
	snprintf(name, sizeof(name), "Local\\librfm-%08lx-%016llx-sleepers",
		 (unsigned long)id->volume, (unsigned long long)id->index);
	wide_name(wname, sizeof(wname) / sizeof(wname[0]), name);
	/* Pagefile-backed and named: every process of the file opens this one
	 * while any holds it; it starts zeroed. */
	wf->section = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
					 sizeof(struct rfm_win_sleepers), wname);
	if (wf->section)
		wf->table = MapViewOfFile(wf->section, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0,
					  sizeof(struct rfm_win_sleepers));
	if (!wf->table) {
		if (wf->section)
			CloseHandle(wf->section);
		free(wf);
		wf = NULL;
		goto out;
	}
	wf->refs = 1;
	wf->next = files;
	files = wf;
out:
	ReleaseSRWLockExclusive(&files_lock);
	return wf;
}

void rfm__win_wait_file_put(struct rfm_win_wait_file *wf)
{
	struct rfm_win_wait_file **pp;

	if (!wf)
		return;
	AcquireSRWLockExclusive(&files_lock);
	if (--wf->refs == 0) {
		for (pp = &files; *pp != wf; pp = &(*pp)->next)
			;
		*pp = wf->next;
		UnmapViewOfFile(wf->table);
		CloseHandle(wf->section);
		free(wf);
	}
	ReleaseSRWLockExclusive(&files_lock);
}

struct rfm_win_sleepers *rfm__win_wait_table(struct rfm_win_wait_file *wf)
{
	return wf->table;
}

/* ---- each thread's semaphore ---- */

static void thread_sem_name(wchar_t *buf, size_t len, uint32_t pid, uint32_t tid)
{
	char name[64];

	snprintf(name, sizeof(name), "Local\\librfm-thread-%lu-%lu", (unsigned long)pid,
		 (unsigned long)tid);
	wide_name(buf, len, name);
}

static DWORD sem_slot = FLS_OUT_OF_INDEXES;
static INIT_ONCE sem_once = INIT_ONCE_STATIC_INIT;

/* At a thread's end: its semaphore goes with it. */
static VOID WINAPI close_thread_sem(PVOID sem)
{
	if (sem)
		CloseHandle(sem);
}

static BOOL CALLBACK alloc_slot(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
	sem_slot = FlsAlloc(close_thread_sem);
	return TRUE;
}

HANDLE rfm__win_thread_sem(void)
{
	HANDLE sem;
	wchar_t name[64];

	InitOnceExecuteOnce(&sem_once, alloc_slot, NULL, NULL);
	if (sem_slot == FLS_OUT_OF_INDEXES)
		return NULL;
	sem = FlsGetValue(sem_slot);
	if (sem)
		return sem;
	thread_sem_name(name, sizeof(name) / sizeof(name[0]), GetCurrentProcessId(),
			GetCurrentThreadId());
	/* At most one permit: a wake that came after its sleeper left costs
	 * that thread's next sleep one early return, never more. */
	sem = CreateSemaphoreW(NULL, 0, 1, name);
	if (sem && !FlsSetValue(sem_slot, sem)) {
		CloseHandle(sem);
		sem = NULL;
	}
	return sem;
}

bool rfm__win_wake_thread(uint32_t pid, uint32_t tid)
{
	wchar_t name[64];
	HANDLE sem;

	thread_sem_name(name, sizeof(name) / sizeof(name[0]), pid, tid);
	sem = OpenSemaphoreW(SEMAPHORE_MODIFY_STATE, FALSE, name);
	if (!sem)
		/* No such object: its thread is gone (any other failure: not known). */
		return GetLastError() != ERROR_FILE_NOT_FOUND;
	ReleaseSemaphore(sem, 1, NULL); /* already one pending: it wakes anyway */
	CloseHandle(sem);
	return true;
}
