/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shared segment of an emulated network (shm: backend): its layout in
 * memory, and the checks that every attach runs before trusting it.
 *
 *   0              header (one page)
 *   4096           node table: 256 entries of 64 bytes
 *   window_offset  the reflective window (page-aligned)
 *
 * Every field is validated against the layout this version computes for
 * the recorded window size, so a segment from another version, a corrupt
 * one or a hostile one is refused before any offset in it is used.
 */
#ifndef RFM_SHM_SEGMENT_H
#define RFM_SHM_SEGMENT_H

#include <stdint.h>

#define RFM_SHM_MAGIC UINT64_C(0x31304d454d464552) /* "REFMEM01" read as LE */
#define RFM_SHM_VERSION 1u
#define RFM_SHM_PAGE 4096u
#define RFM_SHM_MIN_WINDOW RFM_SHM_PAGE
#define RFM_SHM_MAX_WINDOW (UINT64_C(1) << 40)
#define RFM_SHM_NAME_MAX 64
/* Byte offsets of the per-node OFD locks (one byte per node id). */
#define RFM_SHM_LOCK_BASE 0

enum rfm_shm_node_state {
	RFM_SHM_NODE_FREE = 0,
	RFM_SHM_NODE_ATTACHED = 1,
};

struct rfm_shm_header {
	uint64_t magic;		/* written last, with release order, at creation */
	uint32_t version;
	uint32_t header_size;
	uint64_t segment_size;
	uint64_t window_offset;
	uint64_t window_size;
	uint64_t node_table_offset;
	uint32_t node_count;
	uint32_t node_entry_size;
	uint64_t created_ns;	/* CLOCK_REALTIME at creation */
	uint32_t reserved[16];
};

struct rfm_shm_node_entry {
	uint32_t state;		/* enum rfm_shm_node_state, atomic */
	uint32_t incarnation;	/* attaches of this id so far */
	int32_t pid;		/* process holding the id (informational) */
	uint32_t reserved0;
	uint64_t attach_ns;	/* CLOCK_REALTIME of the attach */
	uint8_t reserved[40];
};

_Static_assert(sizeof(struct rfm_shm_node_entry) == 64, "node entry is 64 bytes");
_Static_assert(sizeof(struct rfm_shm_header) <= RFM_SHM_PAGE, "header fits a page");

/* Where everything lies for a given window size. */
struct rfm_shm_layout {
	uint64_t node_table_offset;
	uint64_t window_offset;
	uint64_t segment_size;
};

void rfm__shm_layout(uint64_t window_size, struct rfm_shm_layout *layout);

/* 0, or RFM_ESIZE with a message, for a window size asked at creation. */
int rfm__shm_check_window_size(const char *uri, uint64_t size);

/* Fill a fresh header for @window_size (magic excluded: set it last). */
void rfm__shm_header_init(struct rfm_shm_header *h, uint64_t window_size);

/*
 * Validate a private copy of a header read from a segment of @file_size
 * bytes. Returns 0, RFM_ECORRUPT or RFM_EVERSION with a message naming
 * @uri and the failing field.
 */
int rfm__shm_header_validate(const char *uri, const struct rfm_shm_header *h,
			     uint64_t file_size);

#endif /* RFM_SHM_SEGMENT_H */
