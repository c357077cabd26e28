/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rfm2g: backend's state, shared by its files: rfm2g.c (open, memory,
 * events) and rfm2g-board.c (the board controls librfm2g uses). One
 * descriptor of the vendor driver serves both.
 */
#ifndef RFM_RFM2G_INTERNAL_H
#define RFM_RFM2G_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rfm2g/rfm2g_ioctl.h>

#include "backend.h"

#define R2G_NET_TYPES 5		/* RESET, INTR1..INTR4 */

struct r2g_node {
	/* First: the handle's event queue, which the waiter threads fill. */
	struct rfm_localq q;
	int fd;
	char path[256];		/* the device, for messages */
	void *map;
	size_t map_len;
	RFM2GCONFIG cfg;

	pthread_mutex_t dma_lock;	/* one transfer through the buffer at a time */
	void *dma;			/* NULL: no DMA */
	size_t dma_len;
	uint64_t dma_threshold;

	pthread_mutex_t lock;	/* the waiter threads */
	bool joinable[R2G_NET_TYPES];	/* a thread was created and not joined */
	bool alive[R2G_NET_TYPES];	/* ... and still waits on the driver */
	bool stopping[R2G_NET_TYPES];
	pthread_t thread[R2G_NET_TYPES];
};

/* rfm2g-board.c: a failed call of the driver as a librfm error, with a
 * message naming @what. */
int rfm__r2g_errno(int err, const char *what, const char *path);

/*
 * The driver calls the backend's DMA and librfm2g's maps share
 * (rfm2g-board.c); each returns 0 or an errno.
 *
 * A special map of @len bytes: SET_SPECIAL_MMAP_OFFSET with @special
 * (a physical address | RFM2G_DMA_MMAP_OFFSET, or a BAR's offset), then
 * mmap; *@what names the step that failed.
 */
int rfm__r2g_map_special(int fd, uint64_t special, size_t len, void **addr, const char **what);
/* Disarm the descriptor's DMA buffer at @addr. */
int rfm__r2g_unarm_dma(int fd, void *addr);
/* One transfer by the card's DMA engine through the buffer @buf. */
int rfm__r2g_transfer(int fd, bool to_window, uint32_t offset, void *buf, uint32_t len);

/* The board controls of the card (rfm2g-board.c). */
extern const struct rfm_backend_board_ops rfm__r2g_board_ops;

#endif /* RFM_RFM2G_INTERNAL_H */
