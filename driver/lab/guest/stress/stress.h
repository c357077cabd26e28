/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stress.h - the shared helper of the vm-stress programs: what a
 * distribution's maintainer checks before shipping rfm.ko, one program per
 * scenario (make vm-stress runs them in one guest through vmstress.sh).
 *
 * A hang is reported as a failure once a generous deadline passes (the
 * deadline only guards against hanging forever; nothing measures time).
 * A program that leaves a thread stuck in the driver exits with
 * STRESS_STUCK: the runner then stops, as what follows would only hang too.
 */
#ifndef RFM_LAB_STRESS_H
#define RFM_LAB_STRESS_H

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

#include "../lab.h"

#define DEV "/dev/rfm0"
#define HANG_MS 30000	/* far beyond any legitimate wait in these tests */
#define OPENERS 40
#define REC sizeof(struct rfm_dev_event)
#define STRESS_STUCK 3	/* exit status: a thread is stuck in the driver */

/* The guest's one lab state: checks and their counts. */
extern struct lab L;

void stress_init(void);
int open_card(int flags);
void write_file(const char *path, const char *text);
long read_number(const char *path);
long mem_available_kib(void);
void on_signal(int sig);

/* ---- running something that may hang: a thread and a deadline ---- */

struct job {
	pthread_t thread;
	void (*fn)(struct job *);
	int fd;
	long ret;
	int err;
	int done;		/* set (release) when fn returned */
	int started;		/* set (release) just before the blocking call */
	pid_t tid;
	const char *path;	/* for jobs that write a sysfs file */
	void *buf;		/* for jobs that read records */
	size_t len;
};

void job_start(struct job *j, void (*fn)(struct job *), int fd);
/* Wait for a job to end; false (and the thread left alone) on a hang. */
bool job_wait(struct job *j, const char *what);
/* The job's thread sleeps (state S) after announcing its blocking call. */
bool job_wait_asleep(struct job *j);
/* One blocking call each: read() one record, FLUSH, SET_QUEUE_DEPTH 2048. */
void job_read(struct job *j);
void job_flush(struct job *j);
void job_resize(struct job *j);

/* ---- removal under load ---- */

/* Set to end the load loops. */
extern volatile int stop_load;
void job_mmap_loop(struct job *j);
/* DMA into fresh pages each round: every copy to the user faults. */
void job_dma_loop(struct job *j);
void job_flush_loop(struct job *j);
/* Writes "1" to j->path (a sysfs remove file). */
void job_remove(struct job *j);
/* A reader blocked in read() on @fd, then the three load loops, all running. */
void load_start(int fd, struct job *reader, struct job *mapper, struct job *dma,
		struct job *flusher);
/* Wait for the three load loops, each even when another one hung. */
bool load_wait(struct job *mapper, struct job *dma, struct job *flusher);
/* rfm0's PCI "remove" file. */
bool card_pci_path(char *out, size_t size);
/* DEV exists again (after a rescan or a reload), within HANG_MS. */
bool wait_for_card(void);

/* ---- loopback records with known data ---- */

/* Queues @n loopback INTR4 records with data 0..n-1. */
void queue_records(int fd, uint32_t n);
/*
 * Checks @n records in @buf: data @data0.. and consecutive sequence numbers
 * from @seq0 (any when 0). Returns the first one's.
 */
uint64_t check_records(const void *buf, size_t n, uint32_t data0, uint64_t seq0);

#endif /* RFM_LAB_STRESS_H */
