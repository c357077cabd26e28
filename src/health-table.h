/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The heartbeat table in the window: one 64-byte slot per node id, written
 * only by that node (one writer per word, so it works on real reflective
 * memory where each card holds its own copy). Readers judge liveness by
 * a slot's beat counter moving, on their own clock.
 *
 * Every word is little-endian on every host (wire-order.h), so nodes of
 * both byte orders see each other's beats.
 *
 * Its place: the URI's heartbeat=OFFSET, else the last
 * RFM_HEALTH_TABLE_SIZE bytes of the window (see health.h).
 */
#ifndef RFM_HEALTH_TABLE_H
#define RFM_HEALTH_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <rfm/health.h>
#include <rfm/node.h>

#include "wire-order.h"

struct rfm_node;
struct rfm_uri;

/* "RFHB": a slot some node has written (zero or garbage: never used). */
#define RFM__HB_MAGIC UINT32_C(0x42484652)
/* Slot state: beating, or stopped cleanly (rfm_health_stop/rfm_close). */
#define RFM__HB_BEATING 1u
#define RFM__HB_STOPPED 2u

struct rfm_hb_slot {
	uint64_t beats;		/* beats so far: written last (release) */
	uint64_t period_ns;	/* the writer's period */
	uint64_t beat_ns;	/* the writer's CLOCK_MONOTONIC: one host only */
	uint32_t magic;		/* RFM__HB_MAGIC */
	uint32_t incarnation;	/* the writer's attach count */
	int32_t pid;		/* the writer's process */
	uint32_t link;		/* RFM_LINK_* of the writer's card */
	uint32_t state;		/* RFM__HB_BEATING / RFM__HB_STOPPED */
	char host[20];		/* the writer's host name, NUL-padded (may be cut) */
};

_Static_assert(sizeof(struct rfm_hb_slot) == RFM_HEALTH_SLOT_SIZE, "one slot is 64 bytes");
/* The same offsets for 32-bit and 64-bit programs. */
_Static_assert(offsetof(struct rfm_hb_slot, magic) == 24 && offsetof(struct rfm_hb_slot, pid) == 32 &&
		       offsetof(struct rfm_hb_slot, state) == 40 &&
		       offsetof(struct rfm_hb_slot, host) == 44,
	       "heartbeat slot offsets");
_Static_assert(RFM_HEALTH_SLOT_SIZE * RFM_MAX_NODES == RFM_HEALTH_TABLE_SIZE,
	       "the table is one slot per node id");

/* core (node open): the URI's heartbeat=OFFSET into rfm__core(node)->hb_offset. */
int rfm__hb_options(struct rfm_node *node, struct rfm_uri *uri);

/* The table of @node (its offset is checked against the window), or an
 * error naming the reason (RFM_ESIZE: the window is too small). */
int rfm__hb_table(struct rfm_node *node, struct rfm_hb_slot **tablep);

#endif /* RFM_HEALTH_TABLE_H */
