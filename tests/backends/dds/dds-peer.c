/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A node driven line by line, for the multi-host tests (tests/backends/dds/
 * test-dds-hosts.py runs one in each network namespace). Opens the URI of
 * argv[1], prints "ready ID" (or "error CODE MESSAGE" and exits 1), then
 * answers each command on stdin with one line:
 *
 *   write OFF TEXT        -> ok            rfm_mem_write of TEXT
 *   read OFF LEN          -> data TEXT     rfm_mem_read, as text
 *   until OFF TEXT MS     -> ok | timeout  poll the copy until it reads TEXT
 *   enable MASK           -> ok            rfm_event_enable (hex mask)
 *   send TO TYPE DATA     -> ok
 *   burst N OFF TO TYPE   -> ok            N times: the 4-byte count I (1..N)
 *                                          written at OFF, then event TYPE, data I
 *   check N OFF FROM TYPE MS -> ok | bad I V | timeout
 *                                          N events of a burst, each after its data:
 *                                          the word at OFF reads at least I
 *   wait TYPE FROM MS     -> event TYPE FROM DATA | timeout (others kept for later waits)
 *   health PERIOD_MS MISSES -> ok          rfm_health_start
 *   rwrite X              -> ok            the record state.frame = X
 *   rread                 -> record X
 *   ring-create           -> ok            a ring at 0x4000 (64 slots of 64 bytes)
 *   ring-open             -> ok            a consumer of that ring
 *   ring-pub TEXT         -> ok
 *   ring-take MS          -> msg TEXT | timeout
 *   nodes                 -> nodes N       rfm_node_get_info's nodes_attached
 *   quit                  -> bye           and exits 0
 *
 * Every wait has a deadline given by the test: a hang guard, not a timing
 * assertion. Errors answer "error CODE MESSAGE".
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rfm/rfm.h>

static const char layout_text[] = "version: 1\n"
				  "window: 64K\n"
				  "regions:\n"
				  "  - name: state\n"
				  "    offset: 0x1000\n"
				  "    size: 0x100\n"
				  "    writer: 1\n"
				  "    records:\n"
				  "      - name: frame\n"
				  "        notify: intr2\n"
				  "        variables: [ { name: x, type: u64 } ]\n";

static void reply_error(int code)
{
	printf("error %d %s\n", code, rfm_last_error());
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void until(rfm_node *node, unsigned long off, const char *text, unsigned long ms)
{
	size_t len = strlen(text);
	char buf[256];
	uint64_t end = now_ms() + ms;
	const struct timespec pause = { 0, 2000000 };

	if (len >= sizeof(buf)) {
		printf("error %d text too long\n", RFM_EINVAL);
		return;
	}
	for (;;) {
		int ret = rfm_mem_read(node, off, buf, len);

		if (ret) {
			reply_error(ret);
			return;
		}
		if (!memcmp(buf, text, len)) {
			printf("ok\n");
			return;
		}
		if (now_ms() > end) {
			printf("timeout\n");
			return;
		}
		nanosleep(&pause, NULL);
	}
}

static void burst(rfm_node *node, unsigned long n, unsigned long off, unsigned int to,
		  unsigned int type)
{
	for (uint32_t i = 1; i <= n; i++) {
		int ret = rfm_mem_write(node, off, &i, sizeof(i));

		if (!ret) {
			ret = rfm_event_send(node, to, type, i);
			ret = ret < 0 ? ret : 0;
		}
		if (ret) {
			reply_error(ret);
			return;
		}
	}
	printf("ok\n");
}

/* Events taken while waiting for another one, for a later wait. */
static struct rfm_event backlog[256];
static unsigned int backlog_n;

static void wait_event(rfm_node *node, unsigned int type, unsigned int from, unsigned long ms)
{
	uint64_t end = now_ms() + ms;
	struct rfm_event ev;

	for (unsigned int i = 0; i < backlog_n; i++)
		if (backlog[i].type == type && backlog[i].sender == from) {
			ev = backlog[i];
			memmove(&backlog[i], &backlog[i + 1], (backlog_n - i - 1) * sizeof(ev));
			backlog_n--;
			printf("event %u %u %u\n", ev.type, ev.sender, ev.data);
			return;
		}
	for (;;) {
		uint64_t now = now_ms();
		int ret;

		if (now > end) {
			printf("timeout\n");
			return;
		}
		ret = rfm_event_wait(node, &ev, (int64_t)(end - now) * 1000000);
		if (ret == RFM_ETIMEDOUT) {
			printf("timeout\n");
			return;
		}
		if (ret) {
			reply_error(ret);
			return;
		}
		if (ev.type == type && ev.sender == from) {
			printf("event %u %u %u\n", ev.type, ev.sender, ev.data);
			return;
		}
		if (backlog_n < sizeof(backlog) / sizeof(backlog[0]))
			backlog[backlog_n++] = ev;
	}
}

static void check_burst(rfm_node *node, unsigned long n, unsigned long off, unsigned int from,
			unsigned int type, unsigned long ms)
{
	uint64_t end = now_ms() + ms;
	uint32_t next = 1;
	struct rfm_event ev;

	while (next <= n) {
		uint64_t now = now_ms();
		uint32_t word = 0;
		int ret;

		if (now > end) {
			printf("timeout\n");
			return;
		}
		ret = rfm_event_wait(node, &ev, (int64_t)(end - now) * 1000000);
		if (ret == RFM_ETIMEDOUT) {
			printf("timeout\n");
			return;
		}
		if (!ret && (ev.type != type || ev.sender != from))
			continue;
		if (!ret) /* atomic: the burst's later writes may be landing */
			ret = rfm_mem_peek32(node, off, &word);
		if (ret) {
			reply_error(ret);
			return;
		}
		/* In order, and never ahead of the data it follows. */
		if (ev.data != next || word < next) {
			printf("bad %u %u\n", ev.data, word);
			return;
		}
		next++;
	}
	printf("ok\n");
}

int main(int argc, char **argv)
{
	rfm_node *node;
	rfm_layout *layout = NULL;
	rfm_record *rec = NULL;
	rfm_ring *ring = NULL;
	rfm_ring_consumer *cons = NULL;
	char line[512];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s URI\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rfm_open(argv[1], &node);
	if (ret) {
		reply_error(ret);
		return 1;
	}
	if (rfm_layout_load_string(layout_text, strlen(layout_text), "peer", &layout, NULL) ||
	    rfm_record_open(layout, node, "state.frame", &rec)) {
		reply_error(RFM_ELAYOUT);
		return 1;
	}
	printf("ready %d\n", rfm_node_id(node));
	while (fgets(line, sizeof(line), stdin)) {
		char cmd[16], text[256];
		unsigned long a = 0, b = 0, c = 0, d = 0, e = 0;

		text[0] = 0;
		if (sscanf(line, "%15s", cmd) != 1)
			continue;
		if (!strcmp(cmd, "write") && sscanf(line, "%*s %lx %255s", &a, text) == 2) {
			ret = rfm_mem_write(node, a, text, strlen(text));
			ret ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "read") && sscanf(line, "%*s %lx %lu", &a, &b) == 2 &&
			   b < sizeof(text)) {
			memset(text, 0, sizeof(text));
			ret = rfm_mem_read(node, a, text, b);
			ret ? reply_error(ret) : (void)printf("data %s\n", text);
		} else if (!strcmp(cmd, "until") &&
			   sscanf(line, "%*s %lx %255s %lu", &a, text, &b) == 3) {
			until(node, a, text, b);
		} else if (!strcmp(cmd, "enable") && sscanf(line, "%*s %lx", &a) == 1) {
			ret = rfm_event_enable(node, (uint32_t)a);
			ret ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "send") && sscanf(line, "%*s %lu %lu %lu", &a, &b, &c) == 3) {
			ret = rfm_event_send(node, (unsigned int)a, (unsigned int)b, (uint32_t)c);
			ret < 0 ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "burst") &&
			   sscanf(line, "%*s %lu %lx %lu %lu", &a, &b, &c, &d) == 4) {
			burst(node, a, b, (unsigned int)c, (unsigned int)d);
		} else if (!strcmp(cmd, "check") &&
			   sscanf(line, "%*s %lu %lx %lu %lu %lu", &a, &b, &c, &d, &e) == 5) {
			check_burst(node, a, b, (unsigned int)c, (unsigned int)d, e);
		} else if (!strcmp(cmd, "wait") && sscanf(line, "%*s %lu %lu %lu", &a, &b, &c) == 3) {
			wait_event(node, (unsigned int)a, (unsigned int)b, c);
		} else if (!strcmp(cmd, "health") && sscanf(line, "%*s %lu %lu", &a, &b) == 2) {
			struct rfm_health_config hc = { .struct_size = sizeof(hc),
							.period_ns = a * 1000000,
							.misses = (uint32_t)b };
			ret = rfm_health_start(node, &hc);
			ret ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "rwrite") && sscanf(line, "%*s %lu", &a) == 1) {
			uint64_t x = a;
			ret = rfm_record_write(rec, &x, sizeof(x));
			ret ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "rread")) {
			uint64_t x = 0;
			ret = rfm_record_read(rec, &x, sizeof(x), NULL);
			ret < 0 ? reply_error(ret) : (void)printf("record %llu\n", (unsigned long long)x);
		} else if (!strcmp(cmd, "ring-create")) {
			/* Polled, not notified: no event needs the consumer's entry first. */
			struct rfm_ring_config rc = { .struct_size = sizeof(rc), .slot_size = 64,
						      .slot_count = 64 };
			ret = rfm_ring_create(node, 0x4000, 0x8000, &rc, &ring);
			ret ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "ring-open")) {
			ret = rfm_ring_consumer_open(node, 0x4000, 0, &cons);
			ret ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "ring-pub") && ring && sscanf(line, "%*s %63s", text) == 1) {
			ret = rfm_ring_publish(ring, text, strlen(text) + 1, 5000000000ll);
			ret ? reply_error(ret) : (void)printf("ok\n");
		} else if (!strcmp(cmd, "ring-take") && cons && sscanf(line, "%*s %lu", &a) == 1) {
			struct rfm_ring_msg msg;
			memset(text, 0, sizeof(text));
			ret = rfm_ring_consume(cons, text, 64, &msg, (int64_t)a * 1000000);
			if (ret == RFM_ETIMEDOUT)
				printf("timeout\n");
			else
				ret ? reply_error(ret) : (void)printf("msg %s\n", text);
		} else if (!strcmp(cmd, "nodes")) {
			struct rfm_node_info info = { .struct_size = sizeof(info) };
			ret = rfm_node_get_info(node, &info);
			ret ? reply_error(ret) : (void)printf("nodes %u\n", info.nodes_attached);
		} else if (!strcmp(cmd, "quit")) {
			break;
		} else {
			printf("error %d bad command: %s", RFM_EINVAL, line);
		}
	}
	rfm_ring_consumer_close(cons);
	rfm_ring_close(ring);
	rfm_record_close(rec);
	rfm_layout_free(layout);
	rfm_close(node);
	printf("bye\n");
	return 0;
}
