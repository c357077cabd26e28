/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fault lab's node program (fault-node.c): state shared by its files. */
#ifndef FAULT_NODE_H
#define FAULT_NODE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rfm/rfm.h>

#define FN_NODES_MAX 8
#define FN_WINDOW (512u * 1024u)
/* Node k's region: variables and its record first, then raw bytes. */
#define FN_REGION(k) (0x1000u * (k))
#define FN_REGION_SIZE 0x1000u
#define FN_RAW_OFF 0x100u
#define FN_RAW_LEN 0x700u
/* A word no region owns, that a test may have two nodes write (the
 * documented outcome is that copies differ): `digest` leaves it out. */
#define FN_CONTESTED 0xf000u
/* The heartbeat table: the window's last 16 KiB (health.h's default). */
#define FN_BEATS_SIZE 0x4000u
/* Node k's ring. */
#define FN_RING(k) (0x10000u + 0x8000u * ((k) - 1))
#define FN_RING_SIZE 0x8000u

/* What this node got from one other node. */
struct fn_peer {
	/* INTR1 events: data 1, 2, 3... */
	uint64_t events, skipped, bad;	/* bad: a number not above the last */
	uint32_t last;
	uint64_t link_lost;		/* sum of RFM_EVENT_LINK data */
	uint64_t links;			/* LINK records */
	uint64_t ups, downs;		/* NODE_UP, NODE_DOWN records */
	/* Its record, read while written. */
	uint64_t rec_reads, torn, rec_back;	/* rec_back: a older than one read before */
	uint64_t rec_last;
};

/* A consumer of another node's ring, on a thread of its own. */
struct fn_cons {
	rfm_ring_consumer *cons;
	pthread_t thread;
	bool started;
	struct fnode *f;
	unsigned int from;
	/* Under fnode.lock. */
	uint64_t taken, gap, lost, bad, last;
};

struct fnode {
	rfm_node *node;
	unsigned int id, nodes;
	rfm_layout *layout;
	rfm_record *rec[FN_NODES_MAX + 1];
	rfm_var *counter[FN_NODES_MAX + 1], *value[FN_NODES_MAX + 1];
	rfm_ring *ring;
	struct fn_cons cons[FN_NODES_MAX + 1];

	pthread_mutex_t lock;	/* the accounts below and in cons[] */
	pthread_cond_t cond;	/* an account changed */
	struct fn_peer peer[FN_NODES_MAX + 1];
	bool stop;		/* atomic: the threads end */
	pthread_t events_thread, records_thread, traffic_thread;
	bool traffic_running;
	/* The traffic worker (traffic-start / traffic-wait). */
	uint64_t traffic_first, traffic_count, traffic_pace_us, sent;
	bool traffic_stop;	/* atomic: traffic-stop ends the rounds */
	int traffic_ret;
};

/* fault-node-threads.c */
int fn_threads_start(struct fnode *f);
void fn_threads_stop(struct fnode *f);
int fn_rings_open(struct fnode *f, uint64_t guard_ms);
/* Traffic round i (1, 2, ...): raw bytes, variables, record, event, ring. */
int fn_traffic_round(struct fnode *f, uint64_t i);
void *fn_traffic_main(void *arg);
uint64_t fn_now_ms(void);

/* fault-node-cmd.c */
void fn_command_loop(struct fnode *f);

#endif
