/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A ring's layout in the window, and the handles of both sides.
 *
 *   offset + 0                 header: line 0 written once at creation,
 *                              line 1 holds head and room_wait (written by
 *                              the producer)
 *   offset + 128               slot_count slots of `stride` bytes:
 *                              stamp (8), len (4), reserved (4), payload
 *   offset + table_offset      the consumer table, all of it partitioned by
 *                              node id, for the node ids 0..consumer_nodes-1
 *                              (all 256 in format 2, fewer in format 3):
 *                              - a directory of consumer_nodes 32-bit words,
 *                                padded to 64 bytes: word n is the set of
 *                                lanes node n's consumers hold;
 *                              - consumer_nodes rows of max_consumers
 *                                32-byte entries (lanes): row n is node n's.
 *
 * Format 3 is format 2 with a table for fewer node ids than 256 (the
 * nodes a layout declares): the rows no node can ever hold were most of a
 * small ring (16 KiB of its 19 KiB for 16 slots of 64 bytes). A ring for
 * every node id is still written as format 2, byte for byte as before, so
 * older readers keep reading it; a format 3 ring is refused by them with
 * RFM_EVERSION, as any format they do not know.
 *
 * One writer NODE per word (docs/architecture.md, "One writer per word"):
 * only processes on node n write directory word n and row n. They share
 * that node's copy of the window, so they pick a lane among themselves
 * with a local compare-and-swap; no word is ever the target of a
 * read-modify-write from two nodes, and the producer only reads the table.
 * Format 1 claimed entries of a shared table with a compare-and-swap across
 * nodes, which fails where each node holds its own copy (two nodes both see
 * an entry free and both take it).
 *
 * Every word is little-endian on every host (wire-order.h): big-endian
 * nodes convert as they read and write, so nodes of both orders share a
 * ring. The header's format helpers are in ring-format.c. A consumer
 * validates the header once, copies it, and never re-reads it.
 */
#ifndef RFM_RING_INTERNAL_H
#define RFM_RING_INTERNAL_H

#include <rfm/ring.h>

#include "internal.h"
#include "os/clock.h"
#include "wire-order.h"

#define RING_MAGIC 0x474e4952u /* "RING" */
#define RING_VERSION 2u /* 1: consumer table claimed by a cross-node CAS */
#define RING_VERSION_NODES 3u /* 2 with consumer_nodes < 256 (see above) */
#define RING_HEADER_SIZE 128u
#define RING_SLOT_HEADER 16u
#define RING_ENTRY_SIZE 32u
#define RING_NODES (RFM_NODE_ID_MAX + 1u)	/* table rows at most: one per node id */
/* An entry's owner while its new holder fills it: this bit and the pid. */
#define RING_CLAIMING 0x80000000u

struct ring_header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_size;
	uint32_t slot_size;
	uint32_t slot_count;
	uint32_t stride;
	uint32_t flags;
	uint32_t producer;
	uint32_t notify_type;
	uint32_t ring_id;
	uint32_t max_consumers;
	uint64_t slots_offset;	/* from the ring's start */
	uint64_t table_offset;	/* from the ring's start */
	uint64_t footprint;
	uint64_t head;		/* messages committed (release) */
	uint32_t room_wait;	/* back-pressure: non-zero while the producer sleeps
				 * for room, a fresh value per sleep (a futex) */
	/* Format 3: rows in the consumer table (node ids 0..n-1), written
	 * once at creation like line 0; format 2: zero, meaning 256. */
	uint32_t consumer_nodes;
	uint8_t pad1[48];
};

struct ring_slot {
	uint64_t stamp;		/* 2p+1 while message p is written, 2p+2 once committed */
	uint32_t len;
	uint32_t reserved;
	uint8_t data[];
};

struct ring_entry {
	uint64_t cursor;	/* next message it takes (back-pressure) */
	uint32_t owner;		/* 0: free; RING_CLAIMING | pid while filled;
				 * else node id + 1 (always its row's node) */
	uint32_t incarnation;	/* the node id's incarnation at the claim */
	int32_t pid;
	uint32_t flags;		/* RFM_RING_CONSUMER_BACKPRESSURE */
	uint32_t sleep;		/* non-zero: sleeping, a fresh value per sleep */
	uint32_t laps;		/* times the holder was lapped (monitoring) */
};

_Static_assert(sizeof(struct ring_header) == RING_HEADER_SIZE, "ring header is 128 bytes");
_Static_assert(sizeof(struct ring_slot) == RING_SLOT_HEADER, "slot header is 16 bytes");
_Static_assert(sizeof(struct ring_entry) == RING_ENTRY_SIZE, "table entry is 32 bytes");
/* The same offsets for 32-bit and 64-bit programs (i386 aligns uint64_t to 4). */
_Static_assert(offsetof(struct ring_header, slots_offset) == 40 &&
		       offsetof(struct ring_header, head) == 64 &&
		       offsetof(struct ring_header, room_wait) == 72 &&
		       offsetof(struct ring_header, consumer_nodes) == 76,
	       "ring header offsets");
_Static_assert(offsetof(struct ring_entry, owner) == 8 && offsetof(struct ring_entry, pid) == 16 &&
		       offsetof(struct ring_entry, laps) == 28,
	       "table entry offsets");

/* The geometry shared by both sides, computed from a validated config. */
struct ring_geom {
	uint32_t slot_size, slot_count, stride, flags, notify_type, ring_id, max_consumers;
	uint32_t producer;
	uint32_t consumer_nodes;	/* table rows: node ids 0..consumer_nodes-1 */
	uint32_t dir_size;		/* the directory's bytes (padded to 64) */
	uint64_t slots_offset, table_offset, footprint;
};

int rfm__ring_geometry(const struct rfm_ring_config *c, struct ring_geom *g);

/* The producer's memory of a lane's liveness (it never writes the lane). */
struct ring_lane_check {
	uint64_t at;		/* ns of the look; 0: never */
	int32_t pid;		/* the holder looked at */
	uint32_t incarnation;
	bool dead;
};

struct rfm_ring {
	rfm_node *node;
	struct ring_header *hdr;
	uint8_t *slots;
	uint8_t *table;
	struct ring_geom g;
	uint64_t offset;
	uint64_t head;		/* private copy of hdr->head */
	uint64_t limit;		/* back-pressure: positions below are free */
	bool claimed;
	bool atomic_store;	/* messages stored as words (rfm__window_store()) */
	uint32_t room_gen;	/* last value stored in hdr->room_wait */
	uint32_t *notified;	/* per lane: sleep value already interrupted */
	struct ring_lane_check *checked; /* per lane: the last liveness look */
	/* The lanes the last directory scan found held (node * max_consumers
	 * + lane): commits and back-pressure waits read only these. The
	 * directory is scanned again by a commit in a later clock tick than
	 * the last scan, every RING_SCAN_COMMITS commits, and once the head
	 * moved a lap past the last scan (see rfm__ring_tick()). */
	uint32_t *held;
	uint32_t nheld;
	uint64_t scan_head;	/* head at the last scan */
	uint64_t scan_tick;	/* rfm__ring_tick() at the last scan */
	uint32_t since_scan;	/* commits since */
	bool scanned;
};

struct rfm_ring_consumer {
	rfm_node *node;
	struct ring_header *hdr;
	uint8_t *slots;
	uint8_t *table;
	struct ring_entry *entry;	/* ours, or NULL */
	uint32_t *dir_word;		/* our node's directory word */
	uint64_t claim_tick;		/* rfm__ring_tick() right after the claim */
	bool settled;			/* every commit now sees our entry */
	uint32_t lane;			/* our entry's lane in our node's row */
	struct ring_geom g;
	uint64_t offset;
	uint64_t cursor;
	uint64_t published;	/* cursor as last written to the entry */
	uint64_t batch;		/* publish the cursor at least this often */
	uint32_t sleep_gen;
	unsigned int flags;
	bool peeking;
	bool atomic_copy;	/* a backend thread fills the window (window-copy.h) */
	uint64_t taken, lost, laps, sleeps;
	uint64_t pending_lost;	/* lost since the last message returned */
	rfm_ring_callback cb;
	uint8_t *cb_buf;
	void *cb_arg;
};

static inline struct ring_slot *rfm__ring_slot(uint8_t *slots, const struct ring_geom *g,
					       uint64_t pos)
{
	return (struct ring_slot *)(slots + (pos & (g->slot_count - 1)) * (uint64_t)g->stride);
}

/* Commits between two directory scans at most (a scan reads 1 KiB). */
#define RING_SCAN_COMMITS 64u

/*
 * The coarse monotonic clock (a few ns to read, os/clock.h), in ns. A commit in a
 * later tick than the producer's last directory scan scans again, so a
 * consumer that read tick T after listing itself is seen by every commit
 * made in a tick after T; until then its sleeps are short (ring-consumer.c).
 */
static inline uint64_t rfm__ring_tick(void)
{
	return rfm__os_coarse_ns();
}

/* Directory word of node @node_id. */
static inline uint32_t *rfm__ring_dir(uint8_t *table, uint32_t node_id)
{
	return (uint32_t *)table + node_id;
}

/* Entry @lane of node @node_id's row. */
static inline struct ring_entry *rfm__ring_entry(uint8_t *table, const struct ring_geom *g,
						 uint32_t node_id, uint32_t lane)
{
	return (struct ring_entry *)(table + g->dir_size +
				     ((uint64_t)node_id * g->max_consumers + lane) *
					     RING_ENTRY_SIZE);
}

/* A back-pressure consumer made room: wake a producer asleep for it. */
void rfm__ring_wake_producer(struct ring_header *hdr);

/* Is the consumer holding @e (of node @node_id's row) alive? Asks the
 * backend about node and process. */
bool rfm__ring_entry_alive(rfm_node *node, uint32_t node_id, const struct ring_entry *e);

/* ring-format.c: copy and check the header at @offset into @g. */
int rfm__ring_validate(rfm_node *node, uint64_t offset, struct ring_geom *g);
/* ring-format.c: write the header's fields but the magic, in wire order. */
void rfm__ring_header_write(struct ring_header *h, const struct ring_geom *g);
/* ring-format.c: RFM_ECORRUPT naming the ring at @offset and @what is wrong. */
int rfm__ring_corrupt(uint64_t offset, const char *what);

/* ring.c */
int rfm__ring_region(rfm_node *node, const rfm_layout *layout, const char *name, bool writer,
		     uint64_t *offset, uint64_t *size);
void rfm__ring_fill_info(const struct ring_geom *g, uint64_t offset, uint64_t head,
			 struct rfm_ring_info *info);

/* counters.c: process-wide counters for the self-test report. */
void rfm__count_ring_lost(uint64_t lost);

#endif /* RFM_RING_INTERNAL_H */
