/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fault lab's switch (lab-switch.c): state shared by its files. */
#ifndef LAB_SWITCH_H
#define LAB_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAB_PORTS_MAX 32
#define LAB_FRAME_MAX 65536
#define LAB_CLIENTS_MAX 8
#define LAB_MACS_MAX 256

/* The fault rule of one (from, to) pair. */
struct lab_rule {
	double drop, dup, reorder;
	uint64_t delay_ns, jitter_ns, reorder_ns;
};

/* Counters of frames by the port they came in on (its node's frames),
 * but out: frames written to the port. */
struct lab_counters {
	uint64_t in;		/* frames read from the port */
	uint64_t offered;	/* copies made for other ports (past partitions and links) */
	uint64_t dropped;	/* copies lost by the drop rule */
	uint64_t duplicated;	/* extra copies sent by the dup rule */
	uint64_t delayed;	/* copies that went through the time queue */
	uint64_t reordered;	/* copies delivered after a later frame of the same pair */
	uint64_t blocked;	/* copies not sent: partition or a link down */
	uint64_t out;		/* frames written to the port */
	uint64_t txfail;	/* writes to the port that failed (its queue full) */
	uint64_t replayed;	/* frames played back as this port's (lab-tape.c) */
	uint64_t tape_full;	/* frames not recorded: the tape was full */
};

/* A recorded frame: when, after the recording began. */
struct lab_frame {
	uint64_t at_ns;
	uint32_t len;
	uint8_t *data;
};

/* What one port sent, to play back as its own (lab-tape.c). */
#define LAB_TAPE_MAX (256u << 20)
struct lab_tape {
	uint8_t port;
	bool recording, replaying;
	uint64_t start_ns;	/* recording: when it began */
	uint64_t length_ns;	/* how long it recorded */
	struct lab_frame *frames;
	size_t n, cap, bytes;
	/* Replaying: until when, where this loop began, the next frame. */
	uint64_t replay_end_ns, loop_start_ns;
	size_t next;
};

struct lab_port {
	int fd;			/* the TAP, non-blocking */
	bool up;		/* carrier on */
	unsigned int group;	/* partition group; 0: everybody's */
	struct lab_counters c;
};

/* A copy of a frame waiting in the time queue. */
struct lab_pending {
	uint64_t due_ns;
	uint64_t order;		/* ties in due_ns keep arrival order */
	uint64_t pair_seq;	/* its place in its pair's arrivals */
	uint8_t from, to;
	uint32_t len;
	uint8_t *data;
};

/* A `hold MS` waiting for the switch's clock. */
struct lab_hold {
	int client;		/* fd; -1: none */
	uint64_t due_ns;
	uint64_t ms;
};

struct lab {
	unsigned int nports;	/* ports 1..nports */
	struct lab_port port[LAB_PORTS_MAX + 1];
	struct lab_rule rule[LAB_PORTS_MAX + 1][LAB_PORTS_MAX + 1];
	/* Per pair: arrivals numbered, the highest delivered, for "reordered". */
	uint64_t pair_in[LAB_PORTS_MAX + 1][LAB_PORTS_MAX + 1];
	uint64_t pair_out[LAB_PORTS_MAX + 1][LAB_PORTS_MAX + 1];
	struct { uint8_t mac[6]; uint8_t port; } macs[LAB_MACS_MAX];
	unsigned int nmacs, mac_next;
	struct lab_pending *queue;	/* a binary heap on (due_ns, order) */
	size_t queued, queue_cap;
	uint64_t order;
	int timerfd, epfd, listenfd;
	struct lab_hold holds[LAB_CLIENTS_MAX];
	uint64_t seed, rng;
	uint64_t start_ns;
	struct lab_tape tape;
	bool quit;
};

uint64_t lab_now_ns(void);
uint64_t lab_random(struct lab *lab);
/* A uniform double in [0, 1). */
double lab_uniform(struct lab *lab);

/* lab-fwd.c */
/* Make port @k as eth0 in the namespace named @netns. */
int lab_port_open(struct lab *lab, unsigned int k, const char *netns);
/* Read what port @k has and forward it. */
void lab_port_input(struct lab *lab, unsigned int k);
/* Forward one frame that came in on port @k (or is played back as its). */
void lab_forward_frame(struct lab *lab, unsigned int k, const uint8_t *frame, size_t len);
/* Send what is due; re-arm the timer for the next one. */
void lab_queue_run(struct lab *lab);
void lab_timer_arm(struct lab *lab);
int lab_link_set(struct lab *lab, unsigned int k, bool up);

/* lab-tape.c */
int lab_tape_record(struct lab *lab, unsigned int port);
void lab_tape_stop(struct lab *lab);
/* A frame port @port gave the switch: kept when the tape records it. */
void lab_tape_frame(struct lab *lab, unsigned int port, const uint8_t *data, size_t len);
/* Play the tape back for @ms; -1: nothing recorded, or still recording. */
int lab_tape_replay(struct lab *lab, uint64_t ms);
uint64_t lab_tape_due(const struct lab *lab);
void lab_tape_run(struct lab *lab);
void lab_tape_free(struct lab *lab);
/* Write the tape to @path as a pcap file; -1: it could not. */
int lab_tape_save(const struct lab *lab, const char *path);

/* lab-ctl.c */
/* One command line from a client; the answer written to @out. */
void lab_command(struct lab *lab, int client, char *line);
void lab_holds_run(struct lab *lab);
int lab_ctl_client(const char *path, int argc, char **argv);

/* lab-serve.c */
int lab_serve(const char *sock, uint64_t seed, int n, char **netns);

#endif
