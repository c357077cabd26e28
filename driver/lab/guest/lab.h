/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lab.h - helpers for programs that run inside the lab's guests over the
 * raw driver interface: checks that report and go on, a rendezvous of all
 * guests through flags in the reflective window, event reads with
 * deadlines. Header-only: each guest program is one static binary.
 *
 * The first page of the window is the lab's control page: guest i writes
 * only its own slot (node id, then phase numbers, release stores) and
 * reads the others' (acquire loads). Nobody sleeps to wait for a peer.
 */
#ifndef RFM_LAB_H
#define RFM_LAB_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rfm/uapi/rfm_dev.h>

#define LAB_MAX_GUESTS 16
#define LAB_CTL_MAGIC 0x4c4d4652u	/* "RFML" */
#define LAB_DATA_OFFSET 4096		/* tests use the window from here */
#define LAB_WAIT_MS 30000		/* longest wait for a peer before giving up */

struct lab_slot {
	uint32_t node_id_plus1;		/* 0 until published */
	uint32_t phase;
	uint32_t value;			/* free for tests: one word a guest publishes */
	uint32_t pad[13];
};

struct lab_ctl {
	struct lab_slot slot[LAB_MAX_GUESTS];
};

struct lab {
	int index;			/* this guest's index 0..nodes-1 (given, not a node id) */
	int nodes;			/* guests in the run */
	int fd;				/* /dev/rfm0 */
	struct rfm_dev_info info;
	uint8_t *win;			/* the whole window, mapped */
	struct lab_ctl *ctl;
	uint32_t phase;
	uint32_t node[LAB_MAX_GUESTS];	/* node id of each guest index */
	int checks;
	int failures;
	int test_failures;
	const char *test;
	int tests_run;
	int tests_failed;
};

static inline uint64_t lab_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define lab_load(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define lab_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* ---- checks: report the failure with its place, and go on ---- */

static inline bool lab_check_(struct lab *l, bool ok, const char *file, int line,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static inline bool lab_check_(struct lab *l, bool ok, const char *file, int line,
			      const char *fmt, ...)
{
	va_list ap;

	l->checks++;
	if (ok)
		return true;
	l->failures++;
	l->test_failures++;
	printf("#   FAILED %s:%d (%s, guest %d): ", file, line, l->test ? l->test : "-", l->index);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return false;
}

#define CHECK(l, cond, ...) lab_check_((l), (cond), __FILE__, __LINE__, __VA_ARGS__)
/* Each operand is evaluated once. */
#define CHECK_EQ(l, a, b) \
	({ \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
		int e_ = errno; \
		CHECK((l), a_ == b_, "%s == %s: %" PRIu64 " != %" PRIu64 " (errno %d)", #a, #b, \
		      a_, b_, e_); \
	})
/* A system call that must fail with errno @err. */
#define CHECK_ERRNO(l, call, err) \
	do { \
		errno = 0; \
		long r_ = (long)(call); \
		int e_ = errno; \
		CHECK((l), r_ == -1 && e_ == (err), "%s: returned %ld errno %d (%s), wanted %s", \
		      #call, r_, e_, strerror(e_), #err); \
	} while (0)
#define CHECK_OK(l, call) \
	do { \
		errno = 0; \
		long r_ = (long)(call); \
		CHECK((l), r_ >= 0, "%s: returned %ld errno %d (%s)", #call, r_, errno, \
		      strerror(errno)); \
	} while (0)

static inline void lab_fatal(struct lab *l, const char *what) __attribute__((noreturn));

static inline void lab_fatal(struct lab *l, const char *what)
{
	printf("not ok - guest %d: %s: %s\n", l->index, what, strerror(errno));
	printf("# guest %d: giving up\n", l->index);
	fflush(stdout);
	exit(1);
}

/* ---- rendezvous ---- */

/* Every guest reaches the next phase before anyone goes on. */
static inline void lab_barrier(struct lab *l)
{
	uint64_t deadline = lab_now_ns() + (uint64_t)LAB_WAIT_MS * 1000000u;
	uint32_t phase = ++l->phase;

	lab_store(&l->ctl->slot[l->index].phase, phase);
	for (int g = 0; g < l->nodes; g++)
		while (lab_load(&l->ctl->slot[g].phase) < phase) {
			if (lab_now_ns() > deadline) {
				errno = ETIMEDOUT;
				printf("# guest %d: guest %d never reached phase %u\n", l->index, g,
				       phase);
				lab_fatal(l, "rendezvous");
			}
			sched_yield();
		}
}

/* Publish one word for the others (then pass a barrier before reading theirs). */
static inline void lab_publish(struct lab *l, uint32_t value)
{
	lab_store(&l->ctl->slot[l->index].value, value);
}

static inline uint32_t lab_peer_value(struct lab *l, int g)
{
	return lab_load(&l->ctl->slot[g].value);
}

/* ---- device ---- */

static inline void lab_usage(const char *prog)
{
	fprintf(stderr, "usage: %s --index I --nodes N [--dev /dev/rfm0]\n", prog);
	exit(2);
}

static inline void lab_open(struct lab *l, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "index", required_argument, NULL, 'i' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "/dev/rfm0";
	int c;

	memset(l, 0, sizeof(*l));
	l->index = -1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i': l->index = atoi(optarg); break;
		case 'n': l->nodes = atoi(optarg); break;
		case 'd': dev = optarg; break;
		default: lab_usage(argv[0]);
		}
	}
	if (l->index < 0 || l->nodes < 1 || l->nodes > LAB_MAX_GUESTS || l->index >= l->nodes)
		lab_usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	l->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (l->fd < 0)
		lab_fatal(l, dev);
	if (ioctl(l->fd, RFM_IOC_GET_INFO, &l->info) < 0)
		lab_fatal(l, "RFM_IOC_GET_INFO");
	l->win = mmap(NULL, l->info.window_size, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0);
	if (l->win == MAP_FAILED)
		lab_fatal(l, "mmap of the window");
	l->ctl = (struct lab_ctl *)l->win;
	lab_store(&l->ctl->slot[l->index].node_id_plus1, l->info.node_id + 1);
	printf("# guest %d of %d: node %u, window %" PRIu64 " bytes\n", l->index, l->nodes,
	       l->info.node_id, (uint64_t)l->info.window_size);

	/* Learn every guest's node id: ids depend on connection order. */
	uint64_t deadline = lab_now_ns() + (uint64_t)LAB_WAIT_MS * 1000000u;
	for (int g = 0; g < l->nodes; g++) {
		uint32_t v;

		while (!(v = lab_load(&l->ctl->slot[g].node_id_plus1))) {
			if (lab_now_ns() > deadline) {
				errno = ETIMEDOUT;
				lab_fatal(l, "waiting for the other guests to start");
			}
			sched_yield();
		}
		l->node[g] = v - 1;
	}
	lab_barrier(l);
}

/* A fresh file on the device with @mask enabled. */
static inline int lab_open_events(struct lab *l, uint32_t mask)
{
	int fd = open("/dev/rfm0", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		lab_fatal(l, "open /dev/rfm0");
	if (ioctl(fd, RFM_IOC_SET_MASK, &mask) < 0)
		lab_fatal(l, "RFM_IOC_SET_MASK");
	return fd;
}

static inline int lab_send(int fd, uint32_t type, uint32_t target, uint32_t data, uint32_t flags)
{
	struct rfm_dev_send s = { .type = type, .target = target, .data = data, .flags = flags };

	return ioctl(fd, RFM_IOC_SEND, &s);
}

static inline void lab_dump_counters(int fd, const char *why)
{
	struct rfm_dev_counters c;

	if (ioctl(fd, RFM_IOC_GET_COUNTERS, &c) < 0)
		return;
	printf("# %s: tx %" PRIu64 " rx %" PRIu64 " unclaimed %" PRIu64 " irqs %" PRIu64
	       " file queued %" PRIu64 " dropped %" PRIu64 " mailbox errors %" PRIu64 "\n", why,
	       (uint64_t)c.tx_events, (uint64_t)c.rx_events, (uint64_t)c.rx_unclaimed,
	       (uint64_t)c.irqs, (uint64_t)c.file_queued, (uint64_t)c.file_dropped,
	       (uint64_t)c.mailbox_errors);
}

/* Read one record, waiting up to @ms: 1 when read, 0 on timeout, -1 on error. */
static inline int lab_read_event(int fd, struct rfm_dev_event *ev, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		n = read(fd, ev, sizeof(*ev));
		if (n == (ssize_t)sizeof(*ev))
			return 1;
		if (n >= 0 || errno != EAGAIN)
			return -1;
		int r = poll(&p, 1, ms);
		if (r == 0) {
			if (ms)
				lab_dump_counters(fd, "timed out waiting for an event");
			return 0;
		}
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* ---- test bookkeeping, TAP-like ---- */

static inline void lab_begin(struct lab *l, const char *name)
{
	l->test = name;
	l->test_failures = 0;
}

static inline void lab_end(struct lab *l)
{
	l->tests_run++;
	if (l->test_failures)
		l->tests_failed++;
	printf("%s %d - %s (guest %d)\n", l->test_failures ? "not ok" : "ok", l->tests_run,
	       l->test, l->index);
	l->test = NULL;
}

static inline int lab_finish(struct lab *l)
{
	printf("# guest %d: %d passed, %d failed (%d checks)\n", l->index,
	       l->tests_run - l->tests_failed, l->tests_failed, l->checks);
	return l->tests_failed ? 1 : 0;
}

#endif /* RFM_LAB_H */
