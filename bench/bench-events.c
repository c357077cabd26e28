/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event round trip between two processes (ping-pong), against raw
 * baselines built into the same binary and measured in the same run:
 *   raw-flag    spin on a shared word, store the answer (no library)
 *   rfm-spin    rfm_event_send + rfm_event_wait, spin -1 (never sleeps)
 *   raw-futex   store + FUTEX_WAKE, FUTEX_WAIT on the answer (no library)
 *   rfm-block   rfm_event_send + rfm_event_wait, spin 0 (always sleeps)
 * The four run interleaved in rounds so that machine noise hits them
 * alike; every round trip is timed, and min/P50/P99/P99.9/max and the
 * ratios against the matching raw baseline are printed.
 *
 * With --pin each process is pinned to its own CPU (the first two allowed):
 * steadier on a dedicated machine, but on a shared one a pinned sleeper
 * waits for its CPU to be free, which swamps the blocking figures.
 *
 *   bench-events [--iterations N] [--pin] [--json]
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "raw-pingpong.h"
#include "stats.h"

#define ROUNDS 10
#define WARMUP 300

enum mode { RAW_FLAG, RFM_SPIN, RAW_FUTEX, RFM_BLOCK, MODES };
static const char *const mode_names[] = { "raw-flag", "rfm-spin", "raw-futex", "rfm-block" };

/* Shared between the two processes; each word on its own cache line. */
struct ctl {
	uint32_t phase __attribute__((aligned(64)));
	uint32_t mode;
	uint32_t count;
	struct raw_pp flag;
	struct raw_pp futex;
};

static void die(const char *what)
{
	fprintf(stderr, "bench-events: %s: %s\n", what, rfm_last_error());
	exit(1);
}

/* One round trip as the initiator (parent) or the responder (child). */
static void ping(struct ctl *c, rfm_node *node, enum mode m, uint32_t seq)
{
	struct rfm_event ev;

	switch (m) {
	case RAW_FLAG:
		raw_flag_ping(&c->flag, seq);
		break;
	case RAW_FUTEX:
		raw_futex_ping(&c->futex, seq);
		break;
	default:
		if (rfm_event_send(node, 2, RFM_EVENT_INTR1, seq) != 1)
			die("send");
		if (rfm_event_wait(node, &ev, -1) || ev.data != seq)
			die("wait");
		break;
	}
}

static void pong(struct ctl *c, rfm_node *node, enum mode m, uint32_t seq)
{
	struct rfm_event ev;

	switch (m) {
	case RAW_FLAG:
		raw_flag_pong(&c->flag, seq);
		break;
	case RAW_FUTEX:
		raw_futex_pong(&c->futex, seq);
		break;
	default:
		if (rfm_event_wait(node, &ev, -1) || ev.data != seq)
			die("wait");
		if (rfm_event_send(node, 1, RFM_EVENT_INTR1, seq) != 1)
			die("send");
		break;
	}
}

static rfm_node *open_node(const char *net, int id)
{
	char uri[128];
	rfm_node *node;

	snprintf(uri, sizeof(uri), "shm:%s?node=%d&size=64K", net, id);
	if (rfm_open(uri, &node) || rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)))
		die(uri);
	return node;
}

static void set_spin(rfm_node *node, enum mode m)
{
	if (m == RFM_SPIN)
		rfm_event_set_spin(node, -1);
	else if (m == RFM_BLOCK)
		rfm_event_set_spin(node, 0);
}

/* The responder: follows the phases the parent announces. */
static int child(struct ctl *c, const char *net, int ready_fd)
{
	rfm_node *node = open_node(net, 2);
	uint32_t seen = 0, seq = 0;
	char b = 'r';

	if (write(ready_fd, &b, 1) != 1)
		return 1;
	for (;;) {
		uint32_t phase;
		while ((phase = raw_load(&c->phase)) == seen)
			raw_futex_wait(&c->phase, seen);
		seen = phase;
		if (c->mode == MODES)
			break;
		set_spin(node, c->mode);
		for (uint32_t i = 0; i < c->count; i++)
			pong(c, node, c->mode, ++seq);
	}
	rfm_close(node);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t per_round = 20000;
	int json = 0, pin = 0, ready[2];
	char net[64];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--pin"))
			pin = 1;
		else if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			per_round = (uint32_t)strtoul(argv[++i], NULL, 0) / ROUNDS;
		else {
			fprintf(stderr, "usage: bench-events [--iterations N] [--pin] [--json]\n");
			return 2;
		}
	}
	if (per_round < 100)
		per_round = 100;
	snprintf(net, sizeof(net), "bench-events-%d", (int)getpid());
	struct ctl *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			     -1, 0);
	double *samples[MODES];
	size_t n[MODES] = { 0 };
	for (int m = 0; m < MODES; m++)
		if (!(samples[m] = malloc(sizeof(double) * per_round * ROUNDS)))
			die("out of memory");
	if (c == MAP_FAILED || pipe(ready))
		return 1;
	memset(c, 0, sizeof(*c));

	rfm_node *node = open_node(net, 1);
	pid_t pid = fork();
	if (pid == 0) {
		if (pin)
			raw_pin_to(1);
		_exit(child(c, net, ready[1]));
	}
	if (pin)
		raw_pin_to(0);
	char b;
	if (pid < 0 || read(ready[0], &b, 1) != 1)
		die("starting the responder");

	uint32_t seq = 0;
	for (int r = 0; r < ROUNDS; r++)
		for (int m = 0; m < MODES; m++) {
			set_spin(node, m);
			c->mode = (uint32_t)m;
			c->count = WARMUP + per_round;
			raw_store(&c->phase, c->phase + 1);
			raw_futex_wake(&c->phase);
			for (uint32_t i = 0; i < WARMUP; i++)
				ping(c, node, m, ++seq);
			for (uint32_t i = 0; i < per_round; i++) {
				uint64_t t0 = bench_now_ns();
				ping(c, node, m, ++seq);
				samples[m][n[m]++] = (double)(bench_now_ns() - t0);
			}
		}
	c->mode = MODES;
	raw_store(&c->phase, c->phase + 1);
	raw_futex_wake(&c->phase);
	int status;
	waitpid(pid, &status, 0);
	rfm_close(node);
	char uri[96];
	snprintf(uri, sizeof(uri), "shm:%s", net);
	rfm_network_destroy(uri, RFM_DESTROY_FORCE);

	struct bench_pct s[MODES];
	for (int m = 0; m < MODES; m++)
		s[m] = bench_percentiles(samples[m], n[m]);
	const enum mode base[MODES] = { RAW_FLAG, RAW_FLAG, RAW_FUTEX, RAW_FUTEX };

	if (json) {
		printf("{\"bench\":\"events\",\"round_trips\":%zu", n[0]);
		for (int m = 0; m < MODES; m++)
			printf(",\"%s\":{\"min\":%.0f,\"p50\":%.0f,\"p99\":%.0f,\"p99.9\":%.0f,"
			       "\"max\":%.0f}",
			       mode_names[m], s[m].min, s[m].p50, s[m].p99, s[m].p999, s[m].max);
		printf("}\n");
		return 0;
	}
	printf("bench-events: round trip between two processes, %zu per mode in %d "
	       "interleaved rounds (ns)\n",
	       n[0], ROUNDS);
	printf("  %-10s %8s %8s %8s %8s %9s   %s\n", "mode", "min", "P50", "P99", "P99.9", "max",
	       "ratio vs raw (P50 / P99.9)");
	for (int m = 0; m < MODES; m++) {
		printf("  %-10s", mode_names[m]);
		bench_print_pct(&s[m], 0);
		if (base[m] != (enum mode)m)
			printf("   %.3fx / %.3fx vs %s", s[m].p50 / s[base[m]].p50,
			       s[m].p999 / s[base[m]].p999, mode_names[base[m]]);
		printf("\n");
	}
	printf("  targets: rfm-block P50 <= 1.15x raw-futex (%.3fx), rfm-spin P50 <= 1.2x "
	       "raw-flag (%.3fx), P99.9 <= 1.5x raw (%.3fx, %.3fx)\n",
	       s[RFM_BLOCK].p50 / s[RAW_FUTEX].p50, s[RFM_SPIN].p50 / s[RAW_FLAG].p50,
	       s[RFM_BLOCK].p999 / s[RAW_FUTEX].p999, s[RFM_SPIN].p999 / s[RAW_FLAG].p999);
	return 0;
}
