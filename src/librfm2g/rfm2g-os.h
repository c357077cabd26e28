/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What librfm2g does differently on each OS, in src/librfm2g/posix/ and
 * src/librfm2g/win/ (the directory configure's RFM_OS names): the pages
 * it maps for programs on an emulated board (views.c): the register
 * images, which librfm2g rewrites and programs see through read-only
 * views that follow every change, and private pages standing in for a
 * DMA buffer (a memfd and mmap(); pagefile-backed sections and
 * MapViewOfFile()); and what a forked child must forget (Windows does
 * not fork).
 */
#ifndef RFM2G_OS_H
#define RFM2G_OS_H

#include <stddef.h>
#include <stdint.h>

struct rfm2g_pages;

/* @n shared pages of @page bytes, zeroed; NULL when the OS refuses. */
struct rfm2g_pages *rfm2g__pages_new(unsigned int n, size_t page);

/* librfm2g's writable mapping of page @i. */
uint8_t *rfm2g__pages_rw(struct rfm2g_pages *pages, unsigned int i);

/* A new read-only view of page @i for a program; NULL when refused. */
void *rfm2g__pages_view(struct rfm2g_pages *pages, unsigned int i);

/* Free librfm2g's mappings; the views handed out stay valid until unmapped. */
void rfm2g__pages_free(struct rfm2g_pages *pages);

/* @len bytes of private, zeroed, writable pages; NULL when refused. */
void *rfm2g__private_pages(size_t len);

/* Unmap a view or private pages (@len bytes at @addr): 0 or -1. */
int rfm2g__unmap_pages(void *addr, size_t len);

/* Call @fn in the child of every fork() (Linux); nothing where there is none. */
void rfm2g__on_fork_child(void (*fn)(void));

#endif /* RFM2G_OS_H */
