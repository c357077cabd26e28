/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librfm2g's pages on Windows (rfm2g-os.h): a pagefile-backed section per
 * page, since a view's offset must be a multiple of the 64 KiB
 * allocation granularity; private pages are a section of their own, so
 * that every address handed out is a view UnmapViewOfFile() takes.
 */
#include "config.h"

#include <windows.h>
#include <stdlib.h>

#include "librfm2g/rfm2g-os.h"

#define MAX_PAGES 8

struct rfm2g_pages {
	unsigned int n;
	size_t page;
	HANDLE section[MAX_PAGES];
	uint8_t *rw[MAX_PAGES];
};

static HANDLE new_section(size_t len)
{
	return CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE,
				  (DWORD)((uint64_t)len >> 32), (DWORD)len, NULL);
}

struct rfm2g_pages *rfm2g__pages_new(unsigned int n, size_t page)
{
	struct rfm2g_pages *p;

	if (n > MAX_PAGES || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->page = page;
	for (p->n = 0; p->n < n; p->n++) {
		HANDLE s = new_section(page);
		void *rw = s ? MapViewOfFile(s, FILE_MAP_WRITE, 0, 0, page) : NULL;

		if (!rw) {
			if (s)
				CloseHandle(s);
			rfm2g__pages_free(p);
			return NULL;
		}
		p->section[p->n] = s;
		p->rw[p->n] = rw;
	}
	return p;
}

uint8_t *rfm2g__pages_rw(struct rfm2g_pages *pages, unsigned int i)
{
	return pages->rw[i];
}

void *rfm2g__pages_view(struct rfm2g_pages *pages, unsigned int i)
{
	return MapViewOfFile(pages->section[i], FILE_MAP_READ, 0, 0, pages->page);
}

void rfm2g__pages_free(struct rfm2g_pages *pages)
{
	if (!pages)
		return;
	/* A view handed out keeps its section alive after its handle closes. */
	for (unsigned int i = 0; i < pages->n; i++) {
		UnmapViewOfFile(pages->rw[i]);
		CloseHandle(pages->section[i]);
	}
	free(pages);
}

void *rfm2g__private_pages(size_t len)
{
	HANDLE s = new_section(len);
	void *p;

	if (!s)
		return NULL;
	p = MapViewOfFile(s, FILE_MAP_WRITE, 0, 0, len);
	CloseHandle(s);
	return p;
}

int rfm2g__unmap_pages(void *addr, size_t len)
{
	(void)len;
	return UnmapViewOfFile(addr) ? 0 : -1;
}

void rfm2g__on_fork_child(void (*fn)(void))
{
	(void)fn;	/* Windows has no fork(): a new process starts with nothing */
}
