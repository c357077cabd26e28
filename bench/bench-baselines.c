/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The raw baselines of the benchmark suite, none of which uses librfm:
 *   flag     shared-memory flag ping-pong between two processes (spin)
 *   futex    futex ping-pong between two processes (sleep)
 *   udp      UDP ping-pong over loopback (the "ordinary Ethernet" path:
 *            socket calls and the kernel's network stack)
 *   memcpy   copy bandwidth of 4 KiB and 64 KiB blocks in private memory
 *   ring     a plain single-producer single-consumer ring of 64-byte
 *            messages between two processes (throughput)
 * --pin puts the spinning peers (flag, ring) on the first two CPUs allowed.
 * bench/run-suite.py runs this, then rfm ping and rfm bench, and prints
 * the table of ratios. Latencies are round trips in ns.
 *
 *   bench-baselines [--count N] [--warmup N] [--pin] [--json]
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tools/latency-hist.h"
#include "raw-pingpong.h"
#include "stats.h"

#define RING_SLOTS 1024		/* power of two */
#define RING_MSG 64
#define RING_MESSAGES 2000000u

static uint32_t count = 20000, warmup = 1000;
static int pin;			/* --pin: spinning peers on CPUs of their own */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void *shared_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 0, len);
	return p;
}

static void reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the responder failed");
}

/* ---- flag and futex ping-pong ---- */

static void pingpong(struct lhist *h, int futex)
{
	struct raw_pp *c = shared_map(sizeof(*c));
	uint32_t total = warmup + count;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (pin && !futex)
			raw_pin_to(1);
		for (uint32_t seq = 1; seq <= total; seq++)
			futex ? raw_futex_pong(c, seq) : raw_flag_pong(c, seq);
		_exit(0);
	}
	if (pin && !futex)
		raw_pin_to(0);
	for (uint32_t seq = 1; seq <= total; seq++) {
		uint64_t t0 = bench_now_ns();
		futex ? raw_futex_ping(c, seq) : raw_flag_ping(c, seq);
		if (seq > warmup)
			lhist_record(h, bench_now_ns() - t0);
	}
	reap(pid);
	if (pin && !futex)
		raw_unpin();
	munmap(c, sizeof(*c));
}

/* ---- UDP over loopback ---- */

static int udp_socket(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof(*addr)) ||
	    getsockname(fd, (struct sockaddr *)addr, &len))
		die("udp socket");
	return fd;
}

static void udp_pingpong(struct lhist *h)
{
	struct sockaddr_in a, b;
	int fa = udp_socket(&a), fb = udp_socket(&b);
	uint32_t total = warmup + count;
	uint64_t msg;

	if (connect(fa, (struct sockaddr *)&b, sizeof(b)) ||
	    connect(fb, (struct sockaddr *)&a, sizeof(a)))
		die("udp connect");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (uint32_t i = 0; i < total; i++)
			if (recv(fb, &msg, sizeof(msg), 0) != sizeof(msg) ||
			    send(fb, &msg, sizeof(msg), 0) != sizeof(msg))
				_exit(1);
		_exit(0);
	}
	for (uint32_t i = 0; i < total; i++) {
		uint64_t t0 = bench_now_ns();
		msg = t0;
		if (send(fa, &msg, sizeof(msg), 0) != sizeof(msg) ||
		    recv(fa, &msg, sizeof(msg), 0) != sizeof(msg) || msg != t0)
			die("udp ping");
		if (i >= warmup)
			lhist_record(h, bench_now_ns() - t0);
	}
	reap(pid);
	close(fa);
	close(fb);
}

/* ---- memcpy ---- */

static double memcpy_mb_per_s(size_t size)
{
	uint8_t *src = malloc(size), *dst = malloc(size);
	double best[5];

	if (!src || !dst)
		die("malloc");
	memset(src, 0x5a, size);
	memset(dst, 0, size);
	for (int r = 0; r < 5; r++) {
		uint64_t ops = 0, t0 = bench_now_ns(), elapsed;
		do {
			for (int k = 0; k < 256; k++) {
				memcpy(dst, src, size);
				__asm__ __volatile__("" ::: "memory");
			}
			ops += 256;
			elapsed = bench_now_ns() - t0;
		} while (elapsed < 20000000u);
		best[r] = (double)ops * (double)size * 1e3 / (double)elapsed;
	}
	free(src);
	free(dst);
	return bench_median(best, 5);
}

/* ---- a plain SPSC ring ---- */

struct ring {
	uint32_t head __attribute__((aligned(64)));	/* written by the producer */
	uint32_t tail __attribute__((aligned(64)));	/* written by the consumer */
	uint8_t slot[RING_SLOTS][RING_MSG] __attribute__((aligned(64)));
};

static double ring_msgs_per_s(void)
{
	struct ring *r = shared_map(sizeof(*r));
	uint8_t msg[RING_MSG] = { 0 };
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		uint32_t tail = 0, sum = 0;
		if (pin)
			raw_pin_to(1);
		while (tail < RING_MESSAGES) {
			uint32_t head = raw_load(&r->head);
			if (head == tail) {
				raw_relax();
				continue;
			}
			for (; tail != head; tail++) {
				memcpy(msg, r->slot[tail % RING_SLOTS], RING_MSG);
				sum += msg[0];
			}
			raw_store(&r->tail, tail);
		}
		_exit(sum == (uint32_t)-1);	/* use sum: the copies must happen */
	}
	if (pin)
		raw_pin_to(0);
	uint64_t t0 = bench_now_ns();
	for (uint32_t head = 0; head < RING_MESSAGES; head++) {
		while (head - raw_load(&r->tail) >= RING_SLOTS)
			raw_relax();
		msg[0] = (uint8_t)head;
		memcpy(r->slot[head % RING_SLOTS], msg, RING_MSG);
		raw_store(&r->head, head + 1);
	}
	while (raw_load(&r->tail) != RING_MESSAGES)
		raw_relax();
	uint64_t elapsed = bench_now_ns() - t0;
	reap(pid);
	if (pin)
		raw_unpin();
	munmap(r, sizeof(*r));
	return (double)RING_MESSAGES * 1e9 / (double)elapsed;
}

/* ---- output ---- */

static void print_lat_json(const char *name, const struct lhist *h)
{
	printf("\"%s\":{\"count\":%llu,\"min_ns\":%llu,\"mean_ns\":%.0f,\"p50_ns\":%llu,"
	       "\"p90_ns\":%llu,\"p99_ns\":%llu,\"p999_ns\":%llu,\"max_ns\":%llu}",
	       name, (unsigned long long)h->count, (unsigned long long)h->min, lhist_mean(h),
	       (unsigned long long)lhist_quantile(h, 0.5),
	       (unsigned long long)lhist_quantile(h, 0.9),
	       (unsigned long long)lhist_quantile(h, 0.99),
	       (unsigned long long)lhist_quantile(h, 0.999), (unsigned long long)h->max);
}

static void print_lat_text(const char *name, const struct lhist *h)
{
	printf("  %-12s %8llu %8.0f %8llu %8llu %8llu %8llu %9llu\n", name,
	       (unsigned long long)h->min, lhist_mean(h),
	       (unsigned long long)lhist_quantile(h, 0.5),
	       (unsigned long long)lhist_quantile(h, 0.9),
	       (unsigned long long)lhist_quantile(h, 0.99),
	       (unsigned long long)lhist_quantile(h, 0.999), (unsigned long long)h->max);
}

int main(int argc, char **argv)
{
	static struct lhist flag, futex, udp;
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--pin"))
			pin = 1;
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
			warmup = (uint32_t)strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: bench-baselines [--count N] [--warmup N] [--pin] [--json]\n");
			return 2;
		}
	}
	if (!count) {
		fprintf(stderr, "bench-baselines: --count must be at least 1\n");
		return 2;
	}
	lhist_init(&flag);
	lhist_init(&futex);
	lhist_init(&udp);
	pingpong(&flag, 0);
	pingpong(&futex, 1);
	udp_pingpong(&udp);
	double m4k = memcpy_mb_per_s(4096), m64k = memcpy_mb_per_s(65536);
	double ring = ring_msgs_per_s();

	if (json) {
		printf("{\"bench\":\"baselines\",");
		print_lat_json("flag", &flag);
		putchar(',');
		print_lat_json("futex", &futex);
		putchar(',');
		print_lat_json("udp", &udp);
		printf(",\"memcpy_4096_mb_per_s\":%.0f,\"memcpy_65536_mb_per_s\":%.0f,"
		       "\"ring_msg_bytes\":%d,\"ring_msgs_per_s\":%.0f,\"ring_mb_per_s\":%.0f}\n",
		       m4k, m64k, RING_MSG, ring, ring * RING_MSG / 1e6);
		return 0;
	}
	printf("bench-baselines: raw round trips between two processes, %u each (ns)\n", count);
	printf("  %-12s %8s %8s %8s %8s %8s %8s %9s\n", "", "min", "mean", "P50", "P90", "P99",
	       "P99.9", "max");
	print_lat_text("flag", &flag);
	print_lat_text("futex", &futex);
	print_lat_text("udp", &udp);
	printf("  memcpy 4 KiB %.0f MB/s, 64 KiB %.0f MB/s (private memory)\n", m4k, m64k);
	printf("  SPSC ring of %d-byte messages: %.0f messages/s (%.0f MB/s)\n", RING_MSG, ring,
	       ring * RING_MSG / 1e6);
	return 0;
}
