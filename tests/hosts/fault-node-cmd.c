/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fault lab node's commands, one line each on stdin, one line of
 * answer on stdout ("error CODE MESSAGE" when a call fails):
 *
 *   ring-create            -> ok          this node's ring (64 slots of 64 bytes)
 *   rings-open MS          -> ok          a consumer of every other node's ring
 *   health PERIOD_MS MISSES -> ok         rfm_health_start
 *   health-stop            -> ok
 *   traffic-start FIRST N PACE_US -> ok   rounds FIRST..FIRST+N-1 on a thread
 *   traffic-wait MS        -> sent N | timeout
 *   traffic-stop           -> sent N      end the rounds now, N of them done
 *   sent                   -> sent N      rounds done so far (while they run)
 *   count TYPE FROM        -> count N     NODE_UP (17), NODE_DOWN (18), LINK (19)
 *                                         records from FROM so far
 *   wait TYPE FROM N MS    -> ok | timeout HAVE   until count reaches N
 *   settle FROM LAST MS    -> ok | timeout  until the INTR1 numbers and the ring
 *                                         messages of FROM reach LAST or are
 *                                         covered by a reported loss
 *   digest [nobeats]       -> digest HEX  FNV-1a of this node's whole copy but
 *                                         the contested word (fault-node.h);
 *                                         nobeats: nor the heartbeat table (the
 *                                         window's last 16 KiB), which moves while
 *                                         nodes beat
 *   contest TEXT           -> ok          TEXT (8 bytes at most) into that word
 *   contested              -> contested TEXT  what this copy holds there
 *   vars FROM              -> vars COUNTER VALUE A
 *   report                 -> report K:events,skipped,bad,link_lost,links,ups,downs,
 *                             rec_reads,torn,rec_back,taken,gap,lost,ring_bad ...
 *                             stats:dropped,refused,forged
 *   quit                   -> bye
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fault-node.h"

static void reply_error(int code)
{
	printf("error %d %s\n", code, rfm_last_error());
}

static void ring_create(struct fnode *f)
{
	struct rfm_ring_config rc = { .struct_size = sizeof(rc), .slot_size = 64,
				      .slot_count = 64, .max_consumers = 1 };
	int ret = rfm_ring_create(f->node, FN_RING(f->id), FN_RING_SIZE, &rc, &f->ring);

	ret ? reply_error(ret) : (void)printf("ok\n");
}

static uint64_t count_of(struct fnode *f, unsigned int type, unsigned int from)
{
	const struct fn_peer *p = &f->peer[from];

	return type == RFM_EVENT_NODE_UP     ? p->ups :
	       type == RFM_EVENT_NODE_DOWN   ? p->downs :
	       type == RFM_EVENT_LINK        ? p->links :
	       type == RFM_EVENT_INTR1       ? p->events :
					       0;
}

/* CLOCK_REALTIME @ms from now, for pthread's timed waits. */
static struct timespec deadline(uint64_t ms)
{
	struct timespec end;

	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += (time_t)(ms / 1000);
	end.tv_nsec += (long)(ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	return end;
}

/* Wait on the accounts' condition until @done says so or the guard ends. */
static bool wait_for(struct fnode *f, uint64_t ms, bool (*done)(struct fnode *, const void *),
		     const void *arg)
{
	struct timespec end;
	bool ok;

	end = deadline(ms);
	pthread_mutex_lock(&f->lock);
	while (!(ok = done(f, arg)))
		if (pthread_cond_timedwait(&f->cond, &f->lock, &end))
			break;
	if (!ok)
		ok = done(f, arg);
	pthread_mutex_unlock(&f->lock);
	return ok;
}

struct count_goal { unsigned int type, from; uint64_t n; };

static bool count_reached(struct fnode *f, const void *arg)
{
	const struct count_goal *g = arg;

	return count_of(f, g->type, g->from) >= g->n;
}

struct settle_goal { unsigned int from; uint64_t last; };

/*
 * Every INTR1 of FROM up to LAST is here or counted lost (a LINK record
 * covers records, events among them), and its ring's last message is LAST
 * (a consumer always reaches the newest message, lost ones counted).
 */
static bool settled(struct fnode *f, const void *arg)
{
	const struct settle_goal *g = arg;
	const struct fn_peer *p = &f->peer[g->from];
	const struct fn_cons *c = &f->cons[g->from];
	bool events = p->last >= g->last || p->events + p->link_lost >= g->last;

	return events && (!c->cons || c->last >= g->last);
}

static uint64_t digest(struct fnode *f, bool beats, int *ret)
{
	static uint8_t buf[FN_WINDOW];
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	*ret = rfm_mem_read(f->node, 0, buf, sizeof(buf));
	memset(buf + FN_CONTESTED, 0, 8);
	if (!beats)
		memset(buf + FN_WINDOW - FN_BEATS_SIZE, 0, FN_BEATS_SIZE);
	for (size_t i = 0; i < sizeof(buf); i++)
		h = (h ^ buf[i]) * UINT64_C(0x100000001b3);
	return h;
}

static void report(struct fnode *f)
{
	struct rfm_event_stats st = { .struct_size = sizeof(st) };

	rfm_event_get_stats(f->node, &st);
	pthread_mutex_lock(&f->lock);
	printf("report");
	for (unsigned int k = 1; k <= f->nodes; k++) {
		const struct fn_peer *p = &f->peer[k];
		const struct fn_cons *c = &f->cons[k];

		if (k == f->id)
			continue;
		printf(" %u:%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64,
		       k, p->events, p->skipped, p->bad, p->link_lost, p->links, p->ups, p->downs,
		       p->rec_reads, p->torn, p->rec_back, c->taken, c->gap, c->lost, c->bad);
	}
	printf(" stats:%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", st.dropped, st.refused, st.forged);
	pthread_mutex_unlock(&f->lock);
}

static void traffic_start(struct fnode *f, uint64_t first, uint64_t n, uint64_t pace)
{
	if (f->traffic_running) {
		pthread_join(f->traffic_thread, NULL);
		f->traffic_running = false;
	}
	f->traffic_first = first;
	f->traffic_count = n;
	f->traffic_pace_us = pace;
	__atomic_store_n(&f->sent, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&f->traffic_stop, false, __ATOMIC_RELAXED);
	f->traffic_ret = 0;
	if (pthread_create(&f->traffic_thread, NULL, fn_traffic_main, f)) {
		printf("error %d no thread\n", RFM_ENOMEM);
		return;
	}
	f->traffic_running = true;
	printf("ok\n");
}

static void traffic_wait(struct fnode *f, uint64_t ms)
{
	struct timespec end;

	if (!f->traffic_running) {
		printf("error %d no traffic started\n", RFM_EINVAL);
		return;
	}
	end = deadline(ms);
	if (pthread_timedjoin_np(f->traffic_thread, NULL, &end)) {
		printf("timeout\n");
		return;
	}
	f->traffic_running = false;
	if (f->traffic_ret)
		printf("error %d traffic stopped after %" PRIu64 " rounds\n", f->traffic_ret, f->sent);
	else
		printf("sent %" PRIu64 "\n", f->sent);
}

static void vars(struct fnode *f, unsigned int from)
{
	uint32_t counter = 0;
	double value = 0;
	uint64_t r[3] = { 0, 0, 0 };
	int ret = rfm_var_get_u32(f->counter[from], 0, &counter);

	if (!ret)
		ret = rfm_var_get_f64(f->value[from], 0, &value);
	if (!ret)
		ret = rfm_record_read(f->rec[from], r, sizeof(r), NULL);
	ret < 0 ? reply_error(ret)
		: (void)printf("vars %u %.1f %" PRIu64 "\n", counter, value, r[0]);
}

/* One command; false: quit. */
static bool command(struct fnode *f, const char *line)
{
	char cmd[32], text[9];
	unsigned long long a = 0, b = 0, c = 0, d = 0;
	int ret;

	if (sscanf(line, "%31s", cmd) != 1)
		return true;
	if (!strcmp(cmd, "ring-create")) {
		ring_create(f);
	} else if (!strcmp(cmd, "rings-open") && sscanf(line, "%*s %llu", &a) == 1) {
		ret = fn_rings_open(f, a);
		ret ? reply_error(ret) : (void)printf("ok\n");
	} else if (!strcmp(cmd, "health") && sscanf(line, "%*s %llu %llu", &a, &b) == 2) {
		struct rfm_health_config hc = { .struct_size = sizeof(hc),
						.period_ns = a * 1000000,
						.misses = (uint32_t)b };
		ret = rfm_health_start(f->node, &hc);
		ret ? reply_error(ret) : (void)printf("ok\n");
	} else if (!strcmp(cmd, "health-stop")) {
		ret = rfm_health_stop(f->node);
		ret ? reply_error(ret) : (void)printf("ok\n");
	} else if (!strcmp(cmd, "traffic-start") &&
		   sscanf(line, "%*s %llu %llu %llu", &a, &b, &c) == 3 && a >= 1) {
		traffic_start(f, a, b, c);
	} else if (!strcmp(cmd, "traffic-wait") && sscanf(line, "%*s %llu", &a) == 1) {
		traffic_wait(f, a);
	} else if (!strcmp(cmd, "traffic-stop")) {
		__atomic_store_n(&f->traffic_stop, true, __ATOMIC_RELAXED);
		traffic_wait(f, 60000);
	} else if (!strcmp(cmd, "sent")) {
		printf("sent %" PRIu64 "\n", __atomic_load_n(&f->sent, __ATOMIC_RELAXED));
	} else if (!strcmp(cmd, "count") && sscanf(line, "%*s %llu %llu", &a, &b) == 2 &&
		   b >= 1 && b <= f->nodes) {
		pthread_mutex_lock(&f->lock);
		printf("count %" PRIu64 "\n", count_of(f, (unsigned int)a, (unsigned int)b));
		pthread_mutex_unlock(&f->lock);
	} else if (!strcmp(cmd, "wait") &&
		   sscanf(line, "%*s %llu %llu %llu %llu", &a, &b, &c, &d) == 4 && b >= 1 &&
		   b <= f->nodes) {
		struct count_goal g = { (unsigned int)a, (unsigned int)b, c };

		if (wait_for(f, d, count_reached, &g)) {
			printf("ok\n");
		} else {
			pthread_mutex_lock(&f->lock);
			printf("timeout %" PRIu64 "\n", count_of(f, g.type, g.from));
			pthread_mutex_unlock(&f->lock);
		}
	} else if (!strcmp(cmd, "settle") && sscanf(line, "%*s %llu %llu %llu", &a, &b, &c) == 3 &&
		   a >= 1 && a <= f->nodes) {
		struct settle_goal g = { (unsigned int)a, b };

		printf(wait_for(f, c, settled, &g) ? "ok\n" : "timeout\n");
	} else if (!strcmp(cmd, "digest")) {
		uint64_t h = digest(f, !strstr(line, "nobeats"), &ret);

		ret ? reply_error(ret) : (void)printf("digest %016" PRIx64 "\n", h);
	} else if (!strcmp(cmd, "contest") && sscanf(line, "%*s %8s", text) == 1) {
		char word[8] = { 0 };

		memcpy(word, text, strlen(text));
		ret = rfm_mem_write(f->node, FN_CONTESTED, word, sizeof(word));
		ret ? reply_error(ret) : (void)printf("ok\n");
	} else if (!strcmp(cmd, "contested")) {
		char word[9] = { 0 };

		ret = rfm_mem_read(f->node, FN_CONTESTED, word, 8);
		ret ? reply_error(ret) : (void)printf("contested %s\n", word[0] ? word : "-");
	} else if (!strcmp(cmd, "vars") && sscanf(line, "%*s %llu", &a) == 1 && a >= 1 &&
		   a <= f->nodes) {
		vars(f, (unsigned int)a);
	} else if (!strcmp(cmd, "report")) {
		report(f);
	} else if (!strcmp(cmd, "quit")) {
		return false;
	} else {
		printf("error %d bad command: %s", RFM_EINVAL, line);
	}
	return true;
}

void fn_command_loop(struct fnode *f)
{
	char line[256];

	while (fgets(line, sizeof(line), stdin) && command(f, line))
		;
}
