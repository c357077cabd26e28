/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Simultaneous boot on the dds: backend: N processes (8 by default), each
 * one node, released together by one barrier (a pipe they all block on,
 * closed by the parent), then all open with join=1000 at the same instant,
 * as a rig whose nodes power up together. Each must open, with no snapshot
 * request asked twice (ONE_TRANSFER_MS), write its own word and see every
 * other node's: the windows converge.
 *
 *   test-dds-boot [N [JOIN_MS]]     the test (exit 0, 1 on failure, 77: no dds:)
 *   test-dds-boot --bench N...      prints the open times' P50 and max per N
 *
 * The parent never touches Cyclone (a forked child could not use it then);
 * each program run gets a DDS domain of its own from its pid, and the
 * traffic stays on loopback unless CYCLONEDDS_URI says otherwise.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rfm/rfm.h>

#define MAX_NODES 32
#define WORD_OFF(id) (0x100u + 8u * (unsigned int)(id))
/* A hang guard for convergence, not a timing assertion. */
#define CONVERGE_MS 30000u
/*
 * How long the library waits for one snapshot transfer before it asks
 * again (dds-join.c, for a 64 KiB window). An open that took longer than
 * the discovery wait plus this had a request left unanswered: a wait
 * cycle among the joiners, which the rule of who answers whom excludes.
 */
#define ONE_TRANSFER_MS 3000u

static const char loopback[] = "<CycloneDDS><Domain Id=\"any\"><General><Interfaces>"
			       "<NetworkInterface name=\"lo\"/></Interfaces>"
			       "<AllowMulticast>false</AllowMulticast></General>"
			       "<Discovery><ParticipantIndex>auto</ParticipantIndex>"
			       "<MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>"
			       "<Peers><Peer Address=\"127.0.0.1\"/></Peers></Discovery>"
			       "</Domain></CycloneDDS>";

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* What a node reports: opened (open time), converged, or the error. */
struct report {
	int id;
	int ret;		/* rfm_open's, or RFM_ETIMEDOUT: did not converge */
	uint64_t open_us;
	char msg[200];
};

static void report(int fd, const struct report *r)
{
	ssize_t n = write(fd, r, sizeof(*r));

	(void)n; /* the parent counts what arrived */
}

/* One node, released: open, write our word, see all of them, then stay
 * until @stay_fd closes (every node has converged). */
static void child(int id, int nodes, const char *name, unsigned int domain, unsigned int join,
		  int stay_fd, int out_fd)
{
	struct report r = { .id = id };
	char uri[160], c;
	rfm_node *node = NULL;

	snprintf(uri, sizeof(uri), "dds:%s?node=%d&size=65536&domain=%u&join=%u", name, id, domain,
		 join);
	uint64_t t0 = now_us();
	r.ret = rfm_open(uri, &node);
	r.open_us = now_us() - t0;
	if (!r.ret && r.open_us > (uint64_t)(join + ONE_TRANSFER_MS) * 1000u) {
		snprintf(r.msg, sizeof(r.msg),
			 "opened in %llu ms: a snapshot request went unanswered and was sent "
			 "again", (unsigned long long)r.open_us / 1000u);
		r.ret = RFM_ETIMEDOUT;
		report(out_fd, &r);
		_exit(1);
	}
	if (r.ret) {
		snprintf(r.msg, sizeof(r.msg), "%s", rfm_last_error());
		report(out_fd, &r);
		_exit(1);
	}
	uint64_t mine = 0x5eed0000u + (uint64_t)id + 1;
	r.ret = rfm_mem_write(node, WORD_OFF(id), &mine, sizeof(mine));
	uint64_t end = now_us() + CONVERGE_MS * 1000u;
	int seen = 0;
	while (!r.ret && seen < nodes) {
		seen = 0;
		for (int k = 0; k < nodes; k++) {
			uint64_t v = 0;

			/* A word read while the receive thread stores: one
			 * atomic load, as the library's own readers do. */
			r.ret = rfm_mem_peek64(node, WORD_OFF(k), &v);
			if (r.ret)
				break;
			seen += v == 0x5eed0000u + (uint64_t)k + 1;
		}
		if (seen < nodes && now_us() > end) {
			r.ret = RFM_ETIMEDOUT;
			snprintf(r.msg, sizeof(r.msg), "saw %d of %d nodes' words", seen, nodes);
		}
		if (seen < nodes)
			nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	report(out_fd, &r);
	/* Stay until every node has converged: our word must reach them all. */
	if (read(stay_fd, &c, 1) < 0)
		_exit(2);
	rfm_close(node);
	_exit(r.ret ? 1 : 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Start @nodes together; 0: all opened and converged. Open times in @us. */
static int boot(int nodes, unsigned int join, uint64_t *us, bool verbose)
{
	static unsigned int runs;
	int go[2], stay[2], out[2];
	pid_t pids[MAX_NODES];
	char name[64];
	unsigned int domain = 20 + ((unsigned int)getpid() + runs * 7) % 200;
	int failed = 0, got = 0;

	snprintf(name, sizeof(name), "boot%d_%u", (int)getpid(), runs++);
	if (pipe(go) || pipe(stay) || pipe(out)) {
		perror("pipe");
		return -1;
	}
	for (int id = 0; id < nodes; id++) {
		pids[id] = fork();
		if (pids[id] < 0) {
			perror("fork");
			return -1;
		}
		if (pids[id] == 0) {
			close(go[1]);
			close(stay[1]);
			close(out[0]);
			/* The barrier: every child blocks on go until it closes. */
			char c;
			if (read(go[0], &c, 1) < 0)
				_exit(2);
			child(id, nodes, name, domain, join, stay[0], out[1]);
		}
	}
	close(go[0]);
	close(stay[0]);
	close(out[1]);
	close(go[1]); /* all released at once */
	struct report r;
	while (got < nodes && read(out[0], &r, sizeof(r)) == (ssize_t)sizeof(r)) {
		us[got++] = r.open_us;
		if (r.ret) {
			failed++;
			fprintf(stderr, "node %d: %d %s\n", r.id, r.ret, r.msg);
		} else if (verbose) {
			printf("node %d opened in %llu ms\n", r.id, (unsigned long long)r.open_us / 1000);
		}
	}
	close(stay[1]); /* every report is in: let them close */
	for (int id = 0; id < nodes; id++) {
		int status;

		if (waitpid(pids[id], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed++; /* its report, if any, said why */
	}
	close(out[0]);
	if (got < nodes) {
		fprintf(stderr, "%d of %d nodes reported\n", got, nodes);
		return 1;
	}
	qsort(us, (size_t)nodes, sizeof(*us), cmp_u64);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t us[MAX_NODES];

	if (rfm_network_destroy("dds:probe", 0) == RFM_ESCHEME) {
		printf("SKIP: librfm was built without Cyclone DDS\n");
		return 77;
	}
	setenv("CYCLONEDDS_URI", loopback, 0);
	if (argc > 1 && !strcmp(argv[1], "--bench")) {
		int ret = 0;

		printf("%-6s %10s %10s  (join=1000, one process per node, started together)\n",
		       "nodes", "P50 ms", "max ms");
		for (int i = 2; i < argc; i++) {
			int n = atoi(argv[i]);

			if (n < 2 || n > MAX_NODES) {
				fprintf(stderr, "%s: node counts are 2..%d\n", argv[0], MAX_NODES);
				return 2;
			}
			int fail = boot(n, 1000, us, false);
			printf("%-6d %10.0f %10.0f%s\n", n, us[n / 2] / 1000.0, us[n - 1] / 1000.0,
			       fail ? "  FAILED" : "");
			fflush(stdout);
			ret |= fail;
		}
		return ret ? 1 : 0;
	}
	int nodes = argc > 1 ? atoi(argv[1]) : 8;
	unsigned int join = argc > 2 ? (unsigned int)atoi(argv[2]) : 1000;
	if (nodes < 2 || nodes > MAX_NODES) {
		fprintf(stderr, "%s: node counts are 2..%d\n", argv[0], MAX_NODES);
		return 2;
	}
	int ret = boot(nodes, join, us, true);
	printf("%s: %d nodes started together %s\n", ret ? "FAIL" : "PASS", nodes,
	       ret ? "did not all open and converge" : "all opened and converged");
	return ret ? 1 : 0;
}
