/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmbench - a benchmark, not a test: the round trip of a network event
 * between two guests through rfm.ko (send ioctl, mailbox, doorbell,
 * interrupt thread, per-file queue, blocking read) against a bare
 * doorbell round trip in the same guests (diagnostics doorbell: ioctl,
 * MSI-X, hard-IRQ wake-up, ioctl wait). Under TCG the absolute numbers
 * mean little; the ratio says what the driver's event path costs.
 *
 * Guest 0 measures; guest 1 echoes. Other guests only pass the barriers.
 */
#include "lab.h"

#define WARMUP 200
#define DEFAULT_ROUNDS 2000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t pct(const uint64_t *sorted, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);

	return sorted[i < n ? i : n - 1];
}

static void report(const char *name, uint64_t *ns, size_t n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	printf("bench: %-28s n=%zu min %7.1f  p50 %7.1f  p99 %7.1f  p99.9 %7.1f  max %7.1f us\n",
	       name, n, ns[0] / 1e3, pct(ns, n, 50) / 1e3, pct(ns, n, 99) / 1e3,
	       pct(ns, n, 99.9) / 1e3, ns[n - 1] / 1e3);
}

static void die_if(struct lab *l, bool bad, const char *what)
{
	if (bad)
		lab_fatal(l, what);
}

static void event_round_trips(struct lab *l, uint64_t *ns, int rounds)
{
	int fd = open("/dev/rfm0", O_RDWR | O_CLOEXEC); /* blocking reads */
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1);
	struct rfm_dev_event ev;

	die_if(l, fd < 0 || ioctl(fd, RFM_IOC_SET_MASK, &mask) < 0, "event file");
	lab_barrier(l);
	for (int i = -WARMUP; i < rounds; i++) {
		if (l->index == 0) {
			uint64_t t0 = lab_now_ns();

			die_if(l, lab_send(fd, RFM_DEV_EV_INTR1, l->node[1], (uint32_t)i, 0) < 0,
			       "send");
			die_if(l, read(fd, &ev, sizeof(ev)) != sizeof(ev), "read");
			die_if(l, ev.data != (uint32_t)i, "echo carries the wrong data");
			if (i >= 0)
				ns[i] = lab_now_ns() - t0;
		} else if (l->index == 1) {
			die_if(l, read(fd, &ev, sizeof(ev)) != sizeof(ev), "read");
			die_if(l, lab_send(fd, RFM_DEV_EV_INTR1, ev.sender, ev.data, 0) < 0, "echo");
		}
	}
	close(fd);
	lab_barrier(l);
}

static uint64_t diag_wait(struct lab *l, uint64_t seen)
{
	struct rfm_dev_diag_wait w = { .count = seen, .timeout_ms = LAB_WAIT_MS };

	die_if(l, ioctl(l->fd, RFM_IOC_DIAG_WAIT, &w) < 0, "diag wait");
	return w.count;
}

static void doorbell_round_trips(struct lab *l, uint64_t *ns, int rounds)
{
	struct rfm_dev_diag_wait w = { .count = UINT64_MAX };
	uint32_t peer = l->index == 0 ? l->node[1] : l->node[0];
	uint64_t seen;

	die_if(l, ioctl(l->fd, RFM_IOC_DIAG_WAIT, &w) < 0, "diag count");
	seen = w.count;
	lab_barrier(l);
	for (int i = -WARMUP; i < rounds; i++) {
		if (l->index == 0) {
			uint64_t t0 = lab_now_ns();

			die_if(l, ioctl(l->fd, RFM_IOC_DIAG_KICK, &peer) < 0, "kick");
			seen = diag_wait(l, seen);
			if (i >= 0)
				ns[i] = lab_now_ns() - t0;
		} else if (l->index == 1) {
			seen = diag_wait(l, seen);
			die_if(l, ioctl(l->fd, RFM_IOC_DIAG_KICK, &peer) < 0, "kick back");
		}
	}
	lab_barrier(l);
}

int main(int argc, char **argv)
{
	struct lab l;
	int rounds = DEFAULT_ROUNDS;

	lab_open(&l, argc, argv);
	if (l.nodes < 2) {
		printf("# vmbench needs two guests\n");
		return 1;
	}
	uint64_t *ev = calloc((size_t)rounds, sizeof(*ev));
	uint64_t *db = calloc((size_t)rounds, sizeof(*db));

	/* Alternate the two, so drift of the shared host hits both alike. */
	doorbell_round_trips(&l, db, rounds / 2);
	event_round_trips(&l, ev, rounds / 2);
	doorbell_round_trips(&l, db + rounds / 2, rounds - rounds / 2);
	event_round_trips(&l, ev + rounds / 2, rounds - rounds / 2);

	if (l.index == 0) {
		report("raw doorbell round trip", db, (size_t)rounds);
		report("rfm event round trip", ev, (size_t)rounds);
		printf("bench: ratio event/doorbell: p50 %.2fx  p99 %.2fx\n",
		       (double)pct(ev, (size_t)rounds, 50) / (double)pct(db, (size_t)rounds, 50),
		       (double)pct(ev, (size_t)rounds, 99) / (double)pct(db, (size_t)rounds, 99));
	}
	free(ev);
	free(db);
	printf("# guest %d: 1 passed, 0 failed\n", l.index);
	return 0;
}
