/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The iceoryx side of bench-rings: a ping-pong of SIZE-byte messages
 * between two processes through iceoryx publishers and subscribers (loan,
 * publish, take, release), busy polling like the librfm ping-pong it is
 * compared with. Needs a running RouDi (bench-rings starts it). Prints
 * "min p50 p99 p99.9 max" of the one-way time (round trip / 2) in ns.
 *
 * Usage: bench-rings-iox SIZE PINGS
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <iceoryx_binding_c/api.h>

#include "stats.h"

#define WARMUP 100

struct side {
	iox_pub_storage_t pub_storage;
	iox_sub_storage_t sub_storage;
	iox_pub_t pub;
	iox_sub_t sub;
};

static void open_side(struct side *s, const char *me, const char *out, const char *in,
		      const char *instance)
{
	iox_pub_options_t po;
	iox_sub_options_t so;

	iox_runtime_init(me);
	iox_pub_options_init(&po);
	po.historyCapacity = 0;
	iox_sub_options_init(&so);
	so.queueCapacity = 16;
	s->pub = iox_pub_init(&s->pub_storage, "rfmbench", instance, out, &po);
	s->sub = iox_sub_init(&s->sub_storage, "rfmbench", instance, in, &so);
	/* Messages published before both ends are connected are lost. */
	while (iox_sub_get_subscription_state(s->sub) != SubscribeState_SUBSCRIBED ||
	       !iox_pub_has_subscribers(s->pub))
		usleep(1000);
}

static void send(struct side *s, const void *buf, uint32_t size)
{
	void *chunk;

	while (iox_pub_loan_chunk(s->pub, &chunk, size) != AllocationResult_SUCCESS)
		;
	memcpy(chunk, buf, size);
	iox_pub_publish_chunk(s->pub, chunk);
}

static void receive(struct side *s, void *buf, uint32_t size)
{
	const void *chunk;

	while (iox_sub_take_chunk(s->sub, &chunk) != ChunkReceiveResult_SUCCESS)
		;
	memcpy(buf, chunk, size);
	iox_sub_release_chunk(s->sub, chunk);
}

int main(int argc, char **argv)
{
	uint32_t size;
	int pings;
	char instance[32], name[64];
	static uint8_t buf[1 << 16];
	struct side s;

	if (argc != 3 || (size = (uint32_t)atoi(argv[1])) == 0 || size > sizeof(buf) ||
	    (pings = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: bench-rings-iox SIZE PINGS\n");
		return 2;
	}
	iox_set_loglevel(Iceoryx_LogLevel_Warn);
	snprintf(instance, sizeof(instance), "i%d", (int)getpid());
	/* A hang guard: a busy-polling pair on a loaded 2-core machine can crawl. */
	alarm(120);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		snprintf(name, sizeof(name), "rfmbench-pong-%s", instance);
		open_side(&s, name, "pong", "ping", instance);
		for (int i = 0; i < pings + WARMUP; i++) {
			receive(&s, buf, size);
			send(&s, buf, size);
		}
		iox_sub_deinit(s.sub);
		iox_pub_deinit(s.pub);
		iox_runtime_shutdown();
		_exit(0);
	}
	snprintf(name, sizeof(name), "rfmbench-ping-%s", instance);
	open_side(&s, name, "ping", "pong", instance);
	double *ns = malloc(sizeof(double) * (size_t)pings);
	if (!ns)
		return 1;
	for (int i = 0; i < pings + WARMUP; i++) {
		uint64_t t0 = bench_now_ns();
		send(&s, buf, size);
		receive(&s, buf, size);
		if (i >= WARMUP)
			ns[i - WARMUP] = (double)(bench_now_ns() - t0) / 2;
	}
	int status;
	waitpid(pid, &status, 0);
	struct bench_pct p = bench_percentiles(ns, (size_t)pings);
	printf("%.0f %.0f %.0f %.0f %.0f\n", p.min, p.p50, p.p99, p.p999, p.max);
	iox_sub_deinit(s.sub);
	iox_pub_deinit(s.pub);
	iox_runtime_shutdown();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
