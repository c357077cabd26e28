/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shared segment of an emulated network (shm: backend): its layout in
 * memory, and the checks that every attach runs before trusting it.
 *
 *   0              header (one page)
 *   4096           node table: 256 entries of 64 bytes
 *   window_offset  the reflective window (page-aligned); a hole when the
 *                  window is in huge pages (version 4, shm-huge.c)
 *   event_offset   event queue slabs, each a 256-byte queue header and
 *                  queue_depth 32-byte slots, page-aligned. The file ends
 *                  after the slabs in use so far: a handle that starts
 *                  receiving takes a free slab, or grows the file by one
 *                  (reserved with posix_fallocate), and its node entry
 *                  maps the queue to the slab. A network without
 *                  receivers is its window plus a few pages.
 *
 * Coordination locks live in a second file, /dev/shm/rfmlock-NAME, that
 * only processes with write access may open (see shm.c and
 * docs/security.md): a reader of the segment can block nobody.
 *
 * Every field is validated against the layout this version computes for
 * the recorded window size, so a segment from another version, a corrupt
 * one or a hostile one is refused before any offset in it is used.
 *
 * The control words are in the host's byte order (one host by definition);
 * a segment of the other order is refused saying so. They do not depend
 * on pointer or long size: fixed-width fields, each at its natural
 * alignment, so a 32-bit and a 64-bit program share a network (the
 * offsets are checked below; i386 aligns uint64_t to 4 in structs).
 */
#ifndef RFM_SHM_SEGMENT_H
#define RFM_SHM_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#define RFM_SHM_MAGIC UINT64_C(0x31304d454d464552) /* "REFMEM01" read as LE */
#define RFM_SHM_VERSION 3u /* 3: slabs allocated on demand, lock file */
/*
 * 4: as 3, but the window lives in huge pages, in a file of the same name
 * on a hugetlbfs mount (shm-huge.c); the segment's window bytes are a hole
 * nobody maps. Only such networks carry it, so a librfm that knows only 3
 * refuses them (RFM_EVERSION) instead of using the empty window here.
 */
#define RFM_SHM_VERSION_HUGE 4u
#define RFM_SHM_PAGE 4096u
#define RFM_SHM_MIN_WINDOW RFM_SHM_PAGE
#define RFM_SHM_MAX_WINDOW (UINT64_C(1) << 40)
#define RFM_SHM_NAME_MAX 64
/*
 * Where Linux's shm_open() puts a network's files (the library asks the OS
 * layer, rfm__os_seg_dir(): another directory on Windows; this is for the
 * Linux tests that look at the files), and the names of its two files.
 */
#define RFM_SHM_DIR "/dev/shm"
#define RFM_SHM_PREFIX "rfm-"
#define RFM_SHM_LOCK_PREFIX "rfmlock-"
/* Byte offsets of the per-node OFD locks (one byte per node id). */
#define RFM_SHM_LOCK_BASE 0
/* ...and of the per-queue OFD locks, held by the handle that receives on it. */
#define RFM_SHM_QUEUE_LOCK_BASE (RFM_SHM_LOCK_BASE + 256)

/* Event queues: per node id, per queue, records per queue (a power of two). */
#define RFM_SHM_QUEUES_PER_NODE 8u
#define RFM_SHM_QUEUE_COUNT (256u * RFM_SHM_QUEUES_PER_NODE)
#define RFM_SHM_DEPTH_MIN 1024u
#define RFM_SHM_DEPTH_MAX 65536u
#define RFM_SHM_DEPTH_DEFAULT RFM_SHM_DEPTH_MIN

enum rfm_shm_node_state {
	RFM_SHM_NODE_FREE = 0,
	RFM_SHM_NODE_ATTACHED = 1,
};

/* rfm_shm_node_entry::holder: a tool (tool=1) holds the id. */
#define RFM_SHM_HOLDER_TOOL 1u

struct rfm_shm_header {
	uint64_t magic;		/* written last, with release order, at creation */
	uint32_t version;
	uint32_t header_size;
	uint64_t segment_size;	/* the largest the file may grow: every slab in use */
	uint64_t window_offset;
	uint64_t window_size;
	uint64_t node_table_offset;
	uint32_t node_count;
	uint32_t node_entry_size;
	uint64_t created_ns;	/* CLOCK_REALTIME at creation */
	uint64_t event_offset;	/* first slab (page-aligned, after the window); the
				 * smallest valid file size */
	uint64_t event_size;	/* room for all slabs (most never exist) */
	uint32_t queue_depth;	/* records per queue, power of two */
	uint32_t queues_per_node;
	uint32_t queue_stride;	/* bytes from one queue to the next */
	uint32_t huge_page_kib;	/* version 4: the window's huge page size; else 0 */
	/* Node ids with at least one receiving queue: broadcasts visit only these. */
	uint64_t listening[4];
	uint32_t reserved[16];
};

struct rfm_shm_node_entry {
	uint32_t state;		/* enum rfm_shm_node_state, atomic */
	uint32_t incarnation;	/* attaches of this id so far */
	int32_t pid;		/* process holding the id (informational) */
	uint32_t event_queues;	/* bit j: queue j of this node has a receiver (atomic) */
	uint64_t attach_ns;	/* CLOCK_REALTIME of the attach */
	/* What holds the id: RFM_SHM_HOLDER_TOOL or 0 (a node), set with it;
	 * so that a node refused the id is told who has it. Was the low half
	 * of format 1's beat counter, never written since: old writers leave
	 * 0, old readers ignore it. */
	uint32_t holder;
	/* Heartbeat words of format 1, no longer written: heartbeats are in
	 * the window now (health-table.h); kept so the format stays. */
	uint32_t beats_high;
	uint64_t beat_ns;
	uint64_t beat_period_ns;
	/* Queue j of this node lives in slab queue_slab[j] - 1 (0: none). */
	uint16_t queue_slab[RFM_SHM_QUEUES_PER_NODE];
};

/*
 * One receiving queue: a multi-producer, single-consumer ring. Each field
 * group has its own cache line so senders and the receiver do not bounce
 * lines they do not need.
 */
struct rfm_shm_queue {
	/* Written by senders: the next position to claim (CAS). */
	uint64_t tail;
	uint8_t pad0[56];
	/* Written rarely: drops (senders), mask and owner (the receiver). */
	uint64_t dropped;	/* records dropped because the queue was full */
	uint32_t mask;		/* RFM_EVENT_BIT()s the receiver takes */
	uint32_t incarnation;	/* receivers this queue has had */
	int32_t pid;		/* receiving process (informational) */
	uint32_t owner;		/* queue index (node id * 8 + j) + 1 of the receiver */
	uint8_t pad1[40];
	/* Wake-up: a futex word senders bump, and how many receivers sleep. */
	uint32_t futex;
	uint32_t sleepers;
	uint8_t pad2[56];
	/* Written by the receiver: the next position to take. */
	uint64_t head;
	uint8_t pad3[56];
};

/* A record in a queue. The stamp, written last with release, is position + 1. */
struct rfm_shm_slot {
	uint64_t stamp;
	uint64_t sent_ns;
	uint32_t data;
	uint16_t type;
	uint16_t sender;
	uint64_t reserved;
};

#define RFM_SHM_QUEUE_HEADER 256u

_Static_assert(sizeof(struct rfm_shm_node_entry) == 64, "node entry is 64 bytes");
_Static_assert(sizeof(struct rfm_shm_queue) <= RFM_SHM_QUEUE_HEADER, "queue header fits");
_Static_assert(sizeof(struct rfm_shm_slot) == 32, "slot is 32 bytes");
_Static_assert(sizeof(struct rfm_shm_header) <= RFM_SHM_PAGE, "header fits a page");
/* The same offsets for 32-bit and 64-bit programs. */
_Static_assert(offsetof(struct rfm_shm_header, segment_size) == 16 &&
		       offsetof(struct rfm_shm_header, node_count) == 48 &&
		       offsetof(struct rfm_shm_header, created_ns) == 56 &&
		       offsetof(struct rfm_shm_header, queue_depth) == 80 &&
		       offsetof(struct rfm_shm_header, listening) == 96 &&
		       sizeof(struct rfm_shm_header) == 192,
	       "segment header offsets");
_Static_assert(offsetof(struct rfm_shm_node_entry, attach_ns) == 16 &&
		       offsetof(struct rfm_shm_node_entry, queue_slab) == 48,
	       "node entry offsets");
_Static_assert(offsetof(struct rfm_shm_queue, dropped) == 64 &&
		       offsetof(struct rfm_shm_queue, owner) == 84 &&
		       offsetof(struct rfm_shm_queue, futex) == 128 &&
		       offsetof(struct rfm_shm_queue, head) == 192,
	       "queue header offsets");
_Static_assert(offsetof(struct rfm_shm_slot, data) == 16 &&
		       offsetof(struct rfm_shm_slot, reserved) == 24,
	       "queue slot offsets");

/* Where everything lies for a given window size and queue depth. */
struct rfm_shm_layout {
	uint64_t node_table_offset;
	uint64_t window_offset;
	uint64_t event_offset;
	uint64_t event_size;
	uint32_t queue_stride;
	uint64_t segment_size;
};

void rfm__shm_layout(uint64_t window_size, uint32_t queue_depth, struct rfm_shm_layout *layout);

/* 0, or RFM_EURI with a message, for a queue depth asked at creation. */
int rfm__shm_check_depth(const char *uri, uint64_t depth);

/* 0, or RFM_ESIZE with a message, for a window size asked at creation. */
int rfm__shm_check_window_size(const char *uri, uint64_t size);

/*
 * Fill a fresh header (magic excluded: set it last). @huge_page_kib: 0, or
 * the huge page size of a window kept on hugetlbfs (format version 4).
 */
void rfm__shm_header_init(struct rfm_shm_header *h, uint64_t window_size, uint32_t queue_depth,
			  uint32_t huge_page_kib);

/*
 * Validate a private copy of a header read from a segment of @file_size
 * bytes. Returns 0, RFM_ECORRUPT or RFM_EVERSION with a message naming
 * @uri and the failing field.
 */
int rfm__shm_header_validate(const char *uri, const struct rfm_shm_header *h,
			     uint64_t file_size);

/* Bytes a network of @window_size occupies with @slabs receiving queues. */
uint64_t rfm__shm_footprint(uint64_t window_size, uint32_t queue_depth, unsigned int slabs);

#endif /* RFM_SHM_SEGMENT_H */
