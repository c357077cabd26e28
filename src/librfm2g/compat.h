/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librfm2g internals: an RFM2g handle over a librfm node.
 *
 * RFM2GHANDLE points at the public part (struct rfm2ghandle_s), the first
 * member of struct rfm2g_compat. A handle is only ever dereferenced after
 * it was found in the process's registry of open handles, so stale, freed
 * or made-up pointers get RFM2G_BAD_PARAMETER_1 instead of a crash.
 *
 * Events: librfm gives each node handle one FIFO; RFM2g programs wait per
 * event type. Whoever takes from librfm's queue sorts the records into one
 * deep queue per RFM2g event type here: a waiting RFM2gWaitForEvent()
 * itself (one at a time), or, once the handle has had a callback, librfm's
 * dispatcher thread, which also runs the callbacks (events.c, callbacks.c).
 */
#ifndef RFM2G_COMPAT_H
#define RFM2G_COMPAT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rfm/rfm.h>
#include "board.h"
#include "private.h"
#include "rfm2g_api.h"
#include "rfm2g_version.h"
#include "rfm2g-handle.h"	/* src/librfm2g/posix or win: the handle's definition */

/* Records each RFM2g event queue holds (the vendor driver holds 1). */
#define RFM2G_COMPAT_QUEUE_DEPTH 1024u
/* The page size of RFM2gUserMemory(): 4096 on Linux, whatever the system's. */
#define RFM2G_COMPAT_PAGE 4096u
#define RFM2G_COMPAT_STRUCT_ID 0x52464D32u
#define RFM2G_COMPAT_VERSION RFM2G_PRODUCT_VERSION
/* RFM2GCONFIG.Name as the vendor driver fills it. */
#define RFM2G_COMPAT_DRIVER_NAME RFM2G_PRODUCT_STRING
/*
 * The emulated board's revisions: a 5565 with the sliding window (the
 * vendor library refuses it below board revision 0x8C), PLX 9656 rev AB.
 */
#define RFM2G_COMPAT_BOARD_REVISION 0x8Cu
#define RFM2G_COMPAT_PCI_REVISION 0x01u
#define RFM2G_COMPAT_PLX_REVISION 0xACu
/* An emulated board a URI does not size: the smallest 5565 (64, 128, 256 MiB). */
#define RFM2G_COMPAT_BOARD_SIZE "64M"
/* Bytes of the PLX register view (BAR0 of a 5565). */
#define RFM2G_COMPAT_CFG_SIZE 512u
#define RFM2G_COMPAT_NEVENTS ((unsigned int) RFM2GEVENT_LAST)

struct rfm2g_record {
	uint32_t data;
	uint16_t node;
};

struct rfm2g_evq {
	bool enabled;
	bool overflowed;
	bool waiting;		/* a RFM2gWaitForEvent() waits */
	bool cancel;		/* wake the waiter with RFM2G_WAIT_EVENT_CANCELED */
	uint32_t head, count, peak;
	uint32_t counter;	/* records received while enabled (wraps) */
	struct rfm2g_record ring[RFM2G_COMPAT_QUEUE_DEPTH];
	/* callback */
	bool cb_set;		/* a callback is registered */
	uint32_t backlog;	/* records queued when it was: called with Timeout 0 */
	RFM2G_EVENT_FUNCPTR cb;
};

struct rfm2g_compat {
	rfm2ghandle_t pub;		/* what RFM2GHANDLE points at: keep first */
	struct rfm2g_compat *next;	/* registry */
	rfm_node *node;
	/* The card's controls through the node (rfm2g:); NULL: an emulated board. */
	const struct rfm_backend_board_ops *board;
	uint8_t *base;			/* the mapped window */
	uint64_t size;
	char uri[512];
	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t cond;		/* any change of event or handle state */
	unsigned int refs;		/* calls in progress */
	bool closing;
	bool free_on_exit;		/* closed from a callback: the dispatcher frees */
	bool taking;			/* a wait takes from librfm's queue (lock released) */
	bool routed;			/* librfm's dispatcher takes the records (callbacks) */
	unsigned int cb_running;	/* type + 1 of the callback running, or 0 */
	unsigned int maps;		/* RFM2gUserMemory() mappings outstanding */
	/* special mappings (views.c) */
	struct rfm2g_special *specials;	/* DMA buffers and register views handed out */
	uint8_t *dma;			/* the current DMA buffer, or NULL */
	size_t dma_len;
	struct rfm2g_pages *regs;	/* the register images (rfm2g-os.h), or NULL */
	struct rfm2g_evq ev[RFM2GEVENT_LAST];
	/* soft board state of emulated networks */
	uint32_t dma_threshold;
	bool flag[RFM__BOARD_NFLAGS];	/* the LCSR switches and byte swapping */
	bool own_data;
	uint32_t mem_offset;
};

/*
 * The files form a one-way stack: each calls only files listed before it
 * here, never one after (which would make a circle):
 *
 *   registry.c  the open handles (calls no other file)
 *   views.c     the emulated board's register images, LCSR, special maps
 *               (calls no other file)
 *   release.c   the end of a call and of a handle (registry, views)
 *   events.c    the RFM2g event queues and waits
 *   callbacks.c callbacks on librfm's dispatcher (events and before)
 *   info.c, memory.c, controls.c, window.c, regs.c: the other API calls
 *   open.c      RFM2gOpen/RFM2gClose (no file calls it)
 */

/* Store @v in the unsigned integer of @width bytes (1, 2, 4, 8) at @out. */
static inline void rfm2g__store(void *out, size_t width, uint64_t v)
{
	switch (width) {
	case 1:
		*(uint8_t *) out = (uint8_t) v;
		break;
	case 2:
		*(uint16_t *) out = (uint16_t) v;
		break;
	case 4:
		*(uint32_t *) out = (uint32_t) v;
		break;
	default:
		*(uint64_t *) out = v;
		break;
	}
}

/* registry.c */

/*
 * Find @rh among the open handles and take a reference (*@h): the first
 * thing every call does. RFM2G_NULL_DESCRIPTOR or RFM2G_BAD_PARAMETER_1
 * (and *@h NULL) when it is not one.
 */
RFM2G_STATUS rfm2g__get(RFM2GHANDLE rh, struct rfm2g_compat **h);
/* Drop the reference of rfm2g__get(), waking a close that waits (lock held). */
void rfm2g__unref_locked(struct rfm2g_compat *h);
/* List @h, fully made, in the registry. */
void rfm2g__registry_add(struct rfm2g_compat *h);
/* Take @rh out of the registry: the handle, or NULL if it was not listed. */
struct rfm2g_compat *rfm2g__registry_remove(RFM2GHANDLE rh);
/* Node id of an open handle whose URI is @uri, or -1. */
int rfm2g__registry_node_of(const char *uri);
/* In a fork()ed child: reset the locks and thread state of every handle. */
void rfm2g__registry_forget_threads(void);
/* Initialise @cond on CLOCK_MONOTONIC, the clock of the timed waits. */
void rfm2g__init_cond(pthread_cond_t *cond);

/* views.c */

/* LCSR value the emulated board shows, from its soft state. */
uint32_t rfm2g__lcsr(const struct rfm2g_compat *h);
/* Register images of the emulated board (RFM2G_REGSIZE / RFM2G_COMPAT_CFG_SIZE bytes). */
void rfm2g__ctrl_image(const struct rfm2g_compat *h, uint8_t *regs);
void rfm2g__cfg_image(const struct rfm2g_compat *h, uint8_t *regs);
/* Rewrite the register views, if any (lock held). */
void rfm2g__views_refresh_locked(struct rfm2g_compat *h);
/*
 * Map a DMA buffer (@offset has RFM2G_DMA_MMAP_OFFSET) or a register set
 * (@offset RFM2G_BAR0_MMAP_OFFSET or RFM2G_BAR2_MMAP_OFFSET) of @pages.
 */
RFM2G_STATUS rfm2g__map_special(struct rfm2g_compat *h, RFM2G_UINT64 offset, RFM2G_UINT32 pages,
				volatile void **ptr);
/* Unmap @addr if it is a special mapping of @h: true, and the status in *@st. */
bool rfm2g__unmap_special(struct rfm2g_compat *h, volatile void *addr, size_t len,
			  RFM2G_STATUS *st);
/* @buf..@buf+@len lies in the handle's DMA buffer (lock held or owner thread). */
bool rfm2g__in_dma_buffer(const struct rfm2g_compat *h, const void *buf, size_t len);
/* Forget the special mappings at close (the program's mappings stay). */
void rfm2g__views_release(struct rfm2g_compat *h);

/* release.c */

/*
 * rfm2g__get(), then the first argument check: @bad (and *@h NULL, no
 * reference kept) unless @arg_ok.
 */
RFM2G_STATUS rfm2g__get_arg(RFM2GHANDLE rh, bool arg_ok, RFM2G_STATUS bad,
			    struct rfm2g_compat **h);
/* Drop the reference of rfm2g__get(); the register views show the call's effect. */
void rfm2g__put(struct rfm2g_compat *h);
/* rfm2g__put(), waking the waits first: something they look at changed. */
void rfm2g__put_wake(struct rfm2g_compat *h);
/* Close a handle removed from the registry (from inside a callback too). */
void rfm2g__destroy(struct rfm2g_compat *h);

/* events.c */

/* rfm2g__get(), then RFM2G_BAD_PARAMETER_2 (no reference kept) if @type is not an event. */
RFM2G_STATUS rfm2g__get_for_event(RFM2GHANDLE rh, RFM2GEVENTTYPE type, struct rfm2g_compat **h);
/* Queue one event record for the RFM2g side (lock held by the caller). */
void rfm2g__deliver_locked(struct rfm2g_compat *h, unsigned int type, uint16_t node,
			   uint32_t data);
/* Sort one record taken from librfm's queue into the RFM2g queues (lock held). */
void rfm2g__sort_locked(struct rfm2g_compat *h, const struct rfm_event *ev);
/* The oldest record of @q (it has one; lock held). */
struct rfm2g_record rfm2g__take_locked(struct rfm2g_evq *q);
/* Forget the callback of @type; a running call finishes (lock held). */
void rfm2g__forget_callback_locked(struct rfm2g_compat *h, unsigned int type);
/* Forget every callback: none is called after a running one returns (lock held). */
void rfm2g__stop_callbacks_locked(struct rfm2g_compat *h);
/* True inside a callback of @h (on librfm's dispatcher thread). */
bool rfm2g__in_callback_of(const struct rfm2g_compat *h);
/* Mark this thread as running a callback of @h (NULL: none); callbacks.c does. */
void rfm2g__set_in_callback(struct rfm2g_compat *h);
/* Stop the wait that takes from librfm's queue, if any, and wait for it (lock held). */
void rfm2g__stop_taking_locked(struct rfm2g_compat *h);

#endif /* RFM2G_COMPAT_H */
