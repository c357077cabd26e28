/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Raw UDP ping-pong, the floor under any protocol over the same network:
 * one datagram of SIZE bytes each way, blocking recvfrom() on both sides
 * (as a DDS receive thread blocks), no library. bench-hosts.py runs it
 * between two namespaces beside ddsperf and the dds: backend.
 *
 *   udp-pingpong pong PORT
 *       print "ready", echo every datagram until killed
 *   udp-pingpong ping HOST PORT SIZE COUNT [WARMUP]
 *       time COUNT round trips after WARMUP (default 1000); print one
 *       JSON object: count, size, min_ns, p50_ns, p99_ns, p999_ns, max_ns
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "stats.h"

#define MAX_SIZE 65000
#define TRIES 5 /* a datagram lost this many times in a row: give up */

static int parse_u(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' || *out < lo || *out > hi ? -1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: udp-pingpong pong PORT\n"
			"       udp-pingpong ping HOST PORT SIZE COUNT [WARMUP]\n");
	return 2;
}

static int pong(unsigned long port)
{
	static char buf[MAX_SIZE];
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&me, sizeof(me))) {
		perror("udp-pingpong: bind");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct sockaddr_in peer;
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&peer, &plen);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("udp-pingpong: recvfrom");
			return 1;
		}
		if (sendto(s, buf, (size_t)n, 0, (struct sockaddr *)&peer, plen) < 0)
			perror("udp-pingpong: sendto");
	}
}

/* One round trip carrying sequence number seq; 0 when answered. */
static int round_trip(int s, char *buf, size_t size, uint32_t seq)
{
	for (int t = 0; t < TRIES; t++) {
		memcpy(buf, &seq, sizeof(seq));
		if (send(s, buf, size, 0) < 0)
			return -1;
		for (;;) {
			uint32_t got;
			ssize_t n = recv(s, buf, size, 0);

			if (n < 0)
				break; /* timeout (or refused): send again */
			memcpy(&got, buf, sizeof(got));
			if ((size_t)n == size && got == seq)
				return 0;
			/* a late answer to an earlier try: skip it */
		}
	}
	return -1;
}

static int ping(const char *host, unsigned long port, unsigned long size, unsigned long count,
		unsigned long warmup)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tmo = { .tv_sec = 1 };
	char *buf = calloc(1, size);
	uint64_t *rtt = calloc(count, sizeof(*rtt));
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	uint32_t seq = 0;

	if (!buf || !rtt || s < 0) {
		perror("udp-pingpong");
		return 1;
	}
	if (inet_pton(AF_INET, host, &to.sin_addr) != 1) {
		fprintf(stderr, "udp-pingpong: '%s' is not an IPv4 address\n", host);
		return 2;
	}
	if (connect(s, (struct sockaddr *)&to, sizeof(to)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo))) {
		perror("udp-pingpong: connect");
		return 1;
	}
	for (unsigned long i = 0; i < warmup + count; i++) {
		uint64_t t0 = bench_now_ns();

		if (round_trip(s, buf, size, ++seq)) {
			fprintf(stderr, "udp-pingpong: no answer from %s:%lu after %d tries\n",
				host, port, TRIES);
			return 1;
		}
		if (i >= warmup)
			rtt[i - warmup] = bench_now_ns() - t0;
	}
	bench_print_rtt_json(rtt, count, size);
	free(rtt);
	free(buf);
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long port, size, count, warmup = 1000;

	if (argc == 3 && !strcmp(argv[1], "pong"))
		return parse_u(argv[2], 1, 65535, &port) ? usage() : pong(port);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "ping")) {
		if (parse_u(argv[3], 1, 65535, &port) || parse_u(argv[4], 4, MAX_SIZE, &size) ||
		    parse_u(argv[5], 1, 100000000, &count) ||
		    (argc == 7 && parse_u(argv[6], 0, 100000000, &warmup)))
			return usage();
		return ping(argv[2], port, size, count, warmup);
	}
	return usage();
}
