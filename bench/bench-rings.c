/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ring benchmark: throughput and latency of librfm rings between
 * two processes, against a raw single-producer/single-consumer ring in
 * shared memory built in this binary and run in the same invocation, for
 * 64-byte and 1 KiB messages (--sizes LIST: others, up to 8 KiB). Then,
 * when bench/bench-rings-iox was built (iceoryx installed), the same
 * ping-pong through iceoryx, with RouDi started and stopped here (not
 * with --rings-only, nor for sizes other than the two default ones).
 *
 * Throughput: the producer publishes N messages with back-pressure (ours:
 * a back-pressure consumer; raw: the consumer's index), the consumer
 * checks each sequence number; rate = N / (last taken - first published).
 * Latency: ping-pong over two rings, one way = round trip / 2, busy
 * polling on both sides. Each figure is the median of RUNS runs. A take's
 * own cost: one thread fills the ring, then takes it empty, timed (the
 * copy out of the slot and the checks around it, without a second
 * process: the figure a loaded machine disturbs least).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "stats.h"

#define RUNS 3
#define PINGS 20000
#define SLOTS 1024u
#define RING_A 0x10000u
#define RING_B (32u << 20)
/* The largest message: 1024 slots of it fit the 16 MiB of a ring. */
#define MAX_SIZE 8192u
#define MAX_SIZES 8

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* ---- the raw baseline: SPSC ring, stamp per slot, consumer index ---- */

struct raw_slot {
	uint64_t stamp; /* position + 1 once written */
	uint32_t len;
	uint32_t pad;
	uint8_t data[];
};

struct raw_ring {
	uint64_t tail __attribute__((aligned(64))); /* consumer: next to take */
	uint8_t pad[56];
	uint8_t slots[] __attribute__((aligned(64)));
};

struct raw_side {
	struct raw_ring *r;
	uint32_t stride;
	uint64_t pos, cached_tail;
};

static struct raw_slot *raw_slot(struct raw_side *s, uint64_t pos)
{
	return (struct raw_slot *)(s->r->slots + (pos & (SLOTS - 1)) * s->stride);
}

static void raw_publish(struct raw_side *s, const void *buf, uint32_t len, bool flow)
{
	/* Full: spin a little, then yield, as librfm's back-pressure wait does. */
	if (flow)
		for (unsigned int i = 0; s->pos - s->cached_tail >= SLOTS; i++) {
			s->cached_tail = __atomic_load_n(&s->r->tail, __ATOMIC_ACQUIRE);
			if (i < 256)
				relax();
			else
				sched_yield();
		}
	struct raw_slot *sl = raw_slot(s, s->pos);
	memcpy(sl->data, buf, len);
	sl->len = len;
	__atomic_store_n(&sl->stamp, s->pos + 1, __ATOMIC_RELEASE);
	s->pos++;
}

static uint32_t raw_consume(struct raw_side *s, void *buf)
{
	struct raw_slot *sl = raw_slot(s, s->pos);

	while (__atomic_load_n(&sl->stamp, __ATOMIC_ACQUIRE) != s->pos + 1)
		relax();
	uint32_t len = sl->len;
	memcpy(buf, sl->data, len);
	s->pos++;
	__atomic_store_n(&s->r->tail, s->pos, __ATOMIC_RELEASE);
	return len;
}

/* ---- shared control block between the two processes ---- */

struct ctl {
	uint32_t ready, go, done;
	uint64_t t_end;
	uint64_t bad;
};

static void wait_flag(uint32_t *f, uint32_t v)
{
	while (__atomic_load_n(f, __ATOMIC_ACQUIRE) < v)
		relax();
}

static void set_flag(uint32_t *f, uint32_t v)
{
	__atomic_store_n(f, v, __ATOMIC_RELEASE);
}

static char net_name[64];

static const char *uri(int node)
{
	static char buf[2][160];

	snprintf(buf[node & 1], sizeof(buf[0]), "shm:%s?node=%d&size=64M&spin=-1", net_name, node);
	return buf[node & 1];
}

static void die(const char *what)
{
	fprintf(stderr, "bench-rings: %s: %s\n", what, rfm_last_error());
	exit(1);
}

static uint32_t stride_of(uint32_t size)
{
	return (16 + size + 63) & ~63u;
}

static struct raw_ring *raw_new(uint32_t size)
{
	size_t bytes = sizeof(struct raw_ring) + (size_t)SLOTS * stride_of(size);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* ---- throughput ---- */

static double thr_raw(struct ctl *ctl, uint32_t size, uint64_t n)
{
	struct raw_ring *r = raw_new(size);
	uint8_t buf[MAX_SIZE] = { 0 };
	pid_t pid;

	memset(ctl, 0, sizeof(*ctl));
	pid = fork();
	if (pid == 0) {
		struct raw_side s = { .r = r, .stride = stride_of(size) };
		uint64_t bad = 0, v;

		set_flag(&ctl->ready, 1);
		for (uint64_t i = 0; i < n; i++) {
			raw_consume(&s, buf);
			memcpy(&v, buf, 8);
			bad += v != i;
		}
		ctl->t_end = bench_now_ns();
		ctl->bad = bad;
		set_flag(&ctl->done, 1);
		_exit(0);
	}
	struct raw_side s = { .r = r, .stride = stride_of(size) };
	wait_flag(&ctl->ready, 1);
	uint64_t t0 = bench_now_ns();
	for (uint64_t i = 0; i < n; i++) {
		memcpy(buf, &i, 8);
		raw_publish(&s, buf, size, true);
	}
	wait_flag(&ctl->done, 1);
	waitpid(pid, NULL, 0);
	munmap(r, sizeof(struct raw_ring) + (size_t)SLOTS * stride_of(size));
	if (ctl->bad)
		fprintf(stderr, "bench-rings: raw ring: %llu bad messages\n",
			(unsigned long long)ctl->bad);
	return (double)n / ((double)(ctl->t_end - t0) / 1e9);
}

static double thr_rfm(struct ctl *ctl, uint32_t size, uint64_t n)
{
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = size,
		.slot_count = SLOTS,
		.flags = RFM_RING_F_BACKPRESSURE,
	};
	uint8_t buf[MAX_SIZE] = { 0 };
	rfm_node *node;
	rfm_ring *r;
	pid_t pid;

	if (rfm_open(uri(1), &node) || rfm_ring_create(node, RING_A, 16u << 20, &cfg, &r))
		die("producer");
	memset(ctl, 0, sizeof(*ctl));
	pid = fork();
	if (pid == 0) {
		rfm_node *cn;
		rfm_ring_consumer *c;
		struct rfm_ring_msg m;
		uint64_t bad = 0, v;

		if (rfm_open(uri(2), &cn) ||
		    rfm_ring_consumer_open(cn, RING_A, RFM_RING_CONSUMER_BACKPRESSURE, &c))
			die("consumer");
		set_flag(&ctl->ready, 1);
		for (uint64_t i = 0; i < n; i++) {
			if (rfm_ring_consume(c, buf, sizeof(buf), &m, -1))
				die("consume");
			memcpy(&v, buf, 8);
			bad += v != i || m.lost;
		}
		ctl->t_end = bench_now_ns();
		ctl->bad = bad;
		set_flag(&ctl->done, 1);
		rfm_ring_consumer_close(c);
		rfm_close(cn);
		_exit(0);
	}
	wait_flag(&ctl->ready, 1);
	uint64_t t0 = bench_now_ns();
	for (uint64_t i = 0; i < n; i++) {
		memcpy(buf, &i, 8);
		if (rfm_ring_publish(r, buf, size, -1))
			die("publish");
	}
	wait_flag(&ctl->done, 1);
	waitpid(pid, NULL, 0);
	rfm_ring_close(r);
	rfm_close(node);
	if (ctl->bad)
		fprintf(stderr, "bench-rings: rfm ring: %llu bad messages\n",
			(unsigned long long)ctl->bad);
	return (double)n / ((double)(ctl->t_end - t0) / 1e9);
}

/* ---- latency: ping-pong, one way = round trip / 2 ---- */

static struct bench_pct lat_raw(struct ctl *ctl, uint32_t size, double *samples)
{
	struct raw_ring *a = raw_new(size), *b = raw_new(size);
	uint8_t buf[MAX_SIZE] = { 0 };
	pid_t pid;

	memset(ctl, 0, sizeof(*ctl));
	pid = fork();
	if (pid == 0) {
		struct raw_side in = { .r = a, .stride = stride_of(size) };
		struct raw_side out = { .r = b, .stride = stride_of(size) };

		set_flag(&ctl->ready, 1);
		for (int i = 0; i < PINGS + 100; i++) {
			uint32_t len = raw_consume(&in, buf);
			raw_publish(&out, buf, len, true);
		}
		_exit(0);
	}
	struct raw_side out = { .r = a, .stride = stride_of(size) };
	struct raw_side in = { .r = b, .stride = stride_of(size) };
	wait_flag(&ctl->ready, 1);
	for (int i = 0; i < PINGS + 100; i++) {
		uint64_t t0 = bench_now_ns();
		raw_publish(&out, buf, size, true);
		raw_consume(&in, buf);
		if (i >= 100)
			samples[i - 100] = (double)(bench_now_ns() - t0) / 2;
	}
	waitpid(pid, NULL, 0);
	return bench_percentiles(samples, PINGS);
}

static struct bench_pct lat_rfm(struct ctl *ctl, uint32_t size, double *samples)
{
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = size,
		.slot_count = SLOTS,
	};
	uint8_t buf[MAX_SIZE] = { 0 };
	struct rfm_ring_msg m;
	rfm_node *node;
	rfm_ring *out;
	rfm_ring_consumer *in;
	pid_t pid;

	if (rfm_open(uri(1), &node) || rfm_ring_create(node, RING_A, 16u << 20, &cfg, &out))
		die("ping ring");
	memset(ctl, 0, sizeof(*ctl));
	pid = fork();
	if (pid == 0) {
		rfm_node *cn;
		rfm_ring *pong;
		rfm_ring_consumer *ping;

		if (rfm_open(uri(2), &cn) || rfm_ring_create(cn, RING_B, 16u << 20, &cfg, &pong) ||
		    rfm_ring_consumer_open(cn, RING_A, 0, &ping))
			die("pong side");
		set_flag(&ctl->ready, 1);
		for (int i = 0; i < PINGS + 100; i++) {
			if (rfm_ring_consume(ping, buf, sizeof(buf), &m, -1) ||
			    rfm_ring_publish(pong, buf, m.len, 0))
				die("pong");
		}
		rfm_ring_consumer_close(ping);
		rfm_ring_close(pong);
		rfm_close(cn);
		_exit(0);
	}
	wait_flag(&ctl->ready, 1);
	if (rfm_ring_consumer_open(node, RING_B, 0, &in))
		die("pong ring");
	for (int i = 0; i < PINGS + 100; i++) {
		uint64_t t0 = bench_now_ns();
		if (rfm_ring_publish(out, buf, size, 0) ||
		    rfm_ring_consume(in, buf, sizeof(buf), &m, -1))
			die("ping");
		if (i >= 100)
			samples[i - 100] = (double)(bench_now_ns() - t0) / 2;
	}
	waitpid(pid, NULL, 0);
	rfm_ring_consumer_close(in);
	rfm_ring_close(out);
	rfm_close(node);
	return bench_percentiles(samples, PINGS);
}

/* ---- a take's own cost: messages already in the ring, one thread ---- */

/* Rounds of filling the ring and taking it empty; each gives ns per take. */
#define TAKE_ROUNDS 101

static double take_raw(uint32_t size)
{
	struct raw_ring *r = raw_new(size);
	struct raw_side out = { .r = r, .stride = stride_of(size) };
	struct raw_side in = { .r = r, .stride = stride_of(size) };
	static uint8_t buf[MAX_SIZE];
	double per[TAKE_ROUNDS];

	for (int k = 0; k < TAKE_ROUNDS; k++) {
		for (uint32_t i = 0; i < SLOTS - 1; i++)
			raw_publish(&out, buf, size, true);
		uint64_t t0 = bench_now_ns();
		for (uint32_t i = 0; i < SLOTS - 1; i++)
			raw_consume(&in, buf);
		per[k] = (double)(bench_now_ns() - t0) / (SLOTS - 1);
	}
	munmap(r, sizeof(struct raw_ring) + (size_t)SLOTS * stride_of(size));
	return bench_median(per, TAKE_ROUNDS);
}

static double take_rfm(uint32_t size)
{
	struct rfm_ring_config cfg = {
		.struct_size = sizeof(cfg),
		.slot_size = size,
		.slot_count = SLOTS,
	};
	static uint8_t buf[MAX_SIZE];
	double per[TAKE_ROUNDS];
	struct rfm_ring_msg m;
	rfm_node *node, *cn;
	rfm_ring *r;
	rfm_ring_consumer *c;

	if (rfm_open(uri(1), &node) || rfm_ring_create(node, RING_A, 16u << 20, &cfg, &r) ||
	    rfm_open(uri(2), &cn) || rfm_ring_consumer_open(cn, RING_A, 0, &c))
		die("take");
	for (int k = 0; k < TAKE_ROUNDS; k++) {
		for (uint32_t i = 0; i < SLOTS - 1; i++)
			if (rfm_ring_publish(r, buf, size, 0))
				die("publish");
		uint64_t t0 = bench_now_ns();
		for (uint32_t i = 0; i < SLOTS - 1; i++)
			if (rfm_ring_consume(c, buf, sizeof(buf), &m, 0) || m.lost)
				die("take");
		per[k] = (double)(bench_now_ns() - t0) / (SLOTS - 1);
	}
	rfm_ring_consumer_close(c);
	rfm_close(cn);
	rfm_ring_close(r);
	rfm_close(node);
	return bench_median(per, TAKE_ROUNDS);
}

static void print_lat(const char *who, struct bench_pct l)
{
	printf("    %-8s one-way ns: min %7.0f  P50 %7.0f  P99 %7.0f  P99.9 %7.0f  max %8.0f\n", who,
	       l.min, l.p50, l.p99, l.p999, l.max);
}

/* Median run by P50 (its whole row is printed). */
static struct bench_pct median_lat(struct bench_pct *runs)
{
	double p50[RUNS];

	for (int i = 0; i < RUNS; i++)
		p50[i] = runs[i].p50;
	double m = bench_median(p50, RUNS);
	for (int i = 0; i < RUNS; i++)
		if (runs[i].p50 == m)
			return runs[i];
	return runs[0];
}

/* ---- iceoryx, through the helper program ---- */

static bool iox_run(const char *helper, uint32_t size, struct bench_pct *l)
{
	char cmd[600];
	FILE *p;
	bool ok = false;

	snprintf(cmd, sizeof(cmd), "%s %u %d", helper, size, PINGS);
	p = popen(cmd, "r");
	if (!p)
		return false;
	ok = fscanf(p, "%lf %lf %lf %lf %lf", &l->min, &l->p50, &l->p99, &l->p999, &l->max) == 5;
	return pclose(p) == 0 && ok;
}

static void bench_iceoryx(const char *self, struct bench_pct ours[2])
{
	char helper[512];
	const char *dir = strrchr(self, '/');
	pid_t roudi;

	int len = dir ? (int)(dir - self + 1) : 0;

	/* Run through libtool's wrapper, we live in .libs/ beside the helper's directory. */
	if (len >= 6 && !strncmp(self + len - 6, ".libs/", 6))
		len -= 6;
	snprintf(helper, sizeof(helper), "%.*sbench-rings-iox", len, self);
	printf("iceoryx: publish-to-receive latency, ping-pong between two processes, busy poll\n");
	if (access(helper, X_OK) || access("/usr/bin/iox-roudi", X_OK)) {
		printf("  skipped: iceoryx is not installed (apt-get install iceoryx "
		       "libiceoryx-binding-c-dev, then rebuild: make bench)\n");
		return;
	}
	/* RouDi's segments: its management one and one named after the user. */
	const struct passwd *pw = getpwuid(geteuid());
	char user_seg[300];

	snprintf(user_seg, sizeof(user_seg), "/dev/shm/%s", pw ? pw->pw_name : "");
	if (!pw || !access("/dev/shm/iceoryx_mgmt", F_OK) || !access(user_seg, F_OK)) {
		printf("  skipped: /dev/shm/iceoryx_mgmt or %s exists (another RouDi running, or "
		       "left by one that died: remove them if none runs)\n", user_seg);
		return;
	}
	roudi = fork();
	if (roudi == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl("/usr/bin/iox-roudi", "iox-roudi", (char *)NULL);
		_exit(127);
	}
	printf("  started iox-roudi, PID %d\n", (int)roudi);
	/* Ready once its management segment exists (bounded: 10 s). */
	for (int i = 0; i < 10000 && access("/dev/shm/iceoryx_mgmt", F_OK); i++)
		usleep(1000);
	for (int k = 0; k < 2; k++) {
		uint32_t size = k ? 1024 : 64;
		struct bench_pct runs[RUNS];
		bool ok = true;

		for (int i = 0; i < RUNS && ok; i++)
			ok = iox_run(helper, size, &runs[i]);
		if (!ok) {
			printf("  %u B: the iceoryx helper failed\n", size);
			continue;
		}
		struct bench_pct m = median_lat(runs);
		printf("  %u-byte messages:\n", size);
		print_lat("iceoryx", m);
		print_lat("librfm", ours[k]);
		printf("    ratio librfm/iceoryx: P50 %.2fx, P99 %.2fx (target <= 1.00x)\n",
		       ours[k].p50 / m.p50, ours[k].p99 / m.p99);
	}
	kill(roudi, SIGTERM);
	waitpid(roudi, NULL, 0);
	/* This RouDi's segments, when it leaves them behind (the user's is 142 MiB). */
	unlink("/dev/shm/iceoryx_mgmt");
	unlink(user_seg);
	printf("  stopped iox-roudi (SIGTERM to PID %d)\n", (int)roudi);
}

/* "64,1024,8192" into @sizes: how many, or 0 when it is not such a list. */
static int parse_sizes(const char *text, uint32_t *sizes)
{
	int n = 0;

	for (const char *p = text; *p && n < MAX_SIZES; n++) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || v < 8 || v > MAX_SIZE || (*end && *end != ','))
			return 0;
		sizes[n] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sizes", required_argument, NULL, 's' },
		{ "rings-only", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl *ctl = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double *samples = malloc(sizeof(double) * PINGS);
	uint32_t sizes[MAX_SIZES] = { 64, 1024 };
	struct bench_pct ours[MAX_SIZES];
	int nsizes = 2, opt;
	bool iceoryx = true;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 's' && (nsizes = parse_sizes(optarg, sizes)) > 0)
			continue;
		if (opt == 'r') {
			iceoryx = false;
			continue;
		}
		fprintf(stderr, "usage: bench-rings [--sizes LIST] [--rings-only]\n"
			"  --sizes 64,1024,8192   message sizes in bytes, 8 to %u (default 64,1024)\n"
			"  --rings-only           leave out the comparison with iceoryx\n", MAX_SIZE);
		return 2;
	}
	if (ctl == MAP_FAILED || !samples)
		return 1;
	snprintf(net_name, sizeof(net_name), "bench-rings-%d", (int)getpid());
	printf("rings: librfm ring vs raw SPSC shared-memory ring, two processes, %d runs "
	       "(medians)\n",
	       RUNS);
	for (int k = 0; k < nsizes; k++) {
		uint32_t size = sizes[k];
		uint64_t n = size <= 64 ? 2000000 : size <= 1024 ? 500000 : 200000;
		double tr[RUNS], to[RUNS];
		struct bench_pct lr[RUNS], lo[RUNS];

		for (int i = 0; i < RUNS; i++) {
			tr[i] = thr_raw(ctl, size, n);
			to[i] = thr_rfm(ctl, size, n);
			lr[i] = lat_raw(ctl, size, samples);
			lo[i] = lat_rfm(ctl, size, samples);
		}
		double mr = bench_median(tr, RUNS), mo = bench_median(to, RUNS);
		struct bench_pct r = median_lat(lr), o = median_lat(lo);
		printf("  %u-byte messages:\n", size);
		printf("    throughput (back-pressure, %llu msgs): raw %.2f M/s, librfm %.2f M/s, "
		       "ratio %.2fx (target >= 0.80x)\n",
		       (unsigned long long)n, mr / 1e6, mo / 1e6, mo / mr);
		print_lat("raw", r);
		print_lat("librfm", o);
		printf("    latency ratio librfm/raw: P50 %.2fx (target <= 1.20x), P99 %.2fx\n",
		       o.p50 / r.p50, o.p99 / r.p99);
		double kr = take_raw(size), ko = take_rfm(size);
		printf("    a take of a message in the ring (one thread, the ring full): raw %.1f ns, "
		       "librfm %.1f ns, ratio %.2fx\n", kr, ko, ko / kr);
		ours[k] = o;
	}
	rfm_network_destroy(uri(1), RFM_DESTROY_FORCE);
	printf("\n");
	/* iceoryx's helper measures the two default sizes. */
	if (iceoryx && nsizes == 2 && sizes[0] == 64 && sizes[1] == 1024)
		bench_iceoryx(argv[0], ours);
	free(samples);
	return 0;
}
