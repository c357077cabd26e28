/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: the named objects processes sleep on for the words of one
 * segment file (wait.c says how they are used), named from the file's
 * identity: the volume serial and file index, the same for every process
 * that maps the file, and no field of the segment a writer could change.
 *
 *   Local\librfm-<volume>-<index>-sleepers   a section of 256 counters
 *   Local\librfm-<volume>-<index>-<bucket>   a semaphore per bucket
 *
 * map.c takes a file's objects with its first writable view and gives
 * them back with its last; the semaphores are opened on first use.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "os/win/win-internal.h"

struct rfm_win_wait_file {
	struct rfm_win_file_id id;
	unsigned int refs;		/* mappings of the file (map.c), under files_lock */
	HANDLE section;
	uint32_t *sleepers;		/* [RFM_WIN_WAIT_BUCKETS], in the section */
	HANDLE sem[RFM_WIN_WAIT_BUCKETS];	/* opened on first use (atomic) */
	struct rfm_win_wait_file *next;
};

static SRWLOCK files_lock = SRWLOCK_INIT;
static struct rfm_win_wait_file *files;

static void object_name(wchar_t *buf, size_t len, const struct rfm_win_file_id *id,
			const char *what)
{
	_snwprintf(buf, len, L"Local\\librfm-%08lx-%016llx-%hs", (unsigned long)id->volume,
		   (unsigned long long)id->index, what);
	buf[len - 1] = 0;
}

struct rfm_win_wait_file *rfm__win_wait_file_get(const struct rfm_win_file_id *id)
{
	struct rfm_win_wait_file *wf;
	wchar_t name[96];

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
	object_name(name, sizeof(name) / sizeof(name[0]), id, "sleepers");
	/* Pagefile-backed and named: every process of the file opens this
	 * one while any holds it; it starts zeroed. */
	wf->section = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
					 RFM_WIN_WAIT_BUCKETS * sizeof(uint32_t), name);
	if (wf->section)
		wf->sleepers = MapViewOfFile(wf->section, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0,
					     RFM_WIN_WAIT_BUCKETS * sizeof(uint32_t));
	if (!wf->sleepers) {
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
		for (unsigned int b = 0; b < RFM_WIN_WAIT_BUCKETS; b++)
			if (wf->sem[b])
				CloseHandle(wf->sem[b]);
		UnmapViewOfFile(wf->sleepers);
		CloseHandle(wf->section);
		free(wf);
	}
	ReleaseSRWLockExclusive(&files_lock);
}

HANDLE rfm__win_wait_sem(struct rfm_win_wait_file *wf, unsigned int b)
{
	HANDLE h = __atomic_load_n(&wf->sem[b], __ATOMIC_ACQUIRE), expected = NULL;
	wchar_t name[96];
	char what[16];

	if (h)
		return h;
	snprintf(what, sizeof(what), "%u", b);
	object_name(name, sizeof(name) / sizeof(name[0]), &wf->id, what);
	h = CreateSemaphoreW(NULL, 0, RFM_WIN_WAIT_PERMITS_MAX, name);
	if (!h)
		return NULL;
	/* Two threads may open it at once: one handle stays, the other goes. */
	if (!__atomic_compare_exchange_n(&wf->sem[b], &expected, h, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		CloseHandle(h);
		h = expected;
	}
	return h;
}

uint32_t *rfm__win_wait_sleepers(struct rfm_win_wait_file *wf, unsigned int b)
{
	return &wf->sleepers[b];
}
