/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* librfm2g's pages on Linux (rfm2g-os.h): one memfd, views of it with mmap(). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "librfm2g/rfm2g-os.h"

struct rfm2g_pages {
	int fd;
	size_t page;
	unsigned int n;
	uint8_t *rw;	/* librfm2g's mapping of all of them */
};

struct rfm2g_pages *rfm2g__pages_new(unsigned int n, size_t page)
{
	struct rfm2g_pages *p = malloc(sizeof(*p));
	void *rw;

	if (!p)
		return NULL;
	p->fd = memfd_create("rfm2g-registers", MFD_CLOEXEC);
	if (p->fd < 0)
		goto fail;
	if (ftruncate(p->fd, (off_t)(n * page)) != 0)
		goto fail_fd;
	rw = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (rw == MAP_FAILED)
		goto fail_fd;
	p->rw = rw;
	p->n = n;
	p->page = page;
	return p;
fail_fd:
	close(p->fd);
fail:
	free(p);
	return NULL;
}

uint8_t *rfm2g__pages_rw(struct rfm2g_pages *pages, unsigned int i)
{
	return pages->rw + (size_t)i * pages->page;
}

void *rfm2g__pages_view(struct rfm2g_pages *pages, unsigned int i)
{
	void *v = mmap(NULL, pages->page, PROT_READ, MAP_SHARED, pages->fd,
		       (off_t)((size_t)i * pages->page));

	return v == MAP_FAILED ? NULL : v;
}

void rfm2g__pages_free(struct rfm2g_pages *pages)
{
	if (!pages)
		return;
	munmap(pages->rw, pages->n * pages->page);
	close(pages->fd);
	free(pages);
}

void *rfm2g__private_pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int rfm2g__unmap_pages(void *addr, size_t len)
{
	return munmap(addr, len);
}

void rfm2g__on_fork_child(void (*fn)(void))
{
	pthread_atfork(NULL, NULL, fn);
}
