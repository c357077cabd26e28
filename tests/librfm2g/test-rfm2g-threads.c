/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g programs as sites run them: threads and processes.
 *
 *  - concurrent RFM2gOpen() of one device in one process: every handle is
 *    the same board, with and without node= in the URI;
 *  - 8 threads opening, enabling and closing in a loop while another
 *    process sends them interrupts;
 *  - two receiver processes with the same RFM_URI are one node, and both
 *    get the interrupts sent to it;
 *  - the lost interrupt: a receiver process enables INTR3 while two sender
 *    threads of another process are sending; every record librfm took
 *    for the handle reaches the RFM2g queue (RFM2gGetEventCount equals
 *    librfm's delivered count), and every INTR3 sent after the enable
 *    returned is received, in order, none missing.
 *
 * Readiness and cycles travel over the harness pipes and the reflective
 * memory; nothing sleeps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/select.h>
#include <unistd.h>

#include "librfm2g/compat.h"
#include "rfm2g-test.h"

#define OPEN_THREADS 8
#define OPEN_ROUNDS 200
#define STRESS_LOOPS 150
#define SHARED_NODE 7
#define RX_NODE 5
#define TX_NODE 9

/* The shared fixture's network (harness_fixture_network), for the tests. */
static struct harness_network *net;

static int setup(void **state)
{
	if (harness_fixture_network(state, 1u << 20))
		return -1;
	net = *state;
	return 0;
}

static int teardown(void **state)
{
	unsetenv("RFM_URI");
	return harness_fixture_teardown(state);
}

/* ---- concurrent opens ---- */

struct opener {
	pthread_barrier_t *barrier;
	RFM2GHANDLE h;
	RFM2G_STATUS st;
	RFM2G_NODE node;
};

static void *open_at_once(void *arg)
{
	struct opener *o = arg;

	pthread_barrier_wait(o->barrier);
	o->st = RFM2gOpen((char *) "/dev/rfm2g0", &o->h);
	if (o->st == RFM2G_SUCCESS)
		RFM2gNodeID(o->h, &o->node);
	return NULL;
}

/* @threads open at the same moment, @rounds times: all succeed, one node id. */
static void open_together(const char *uri, int want_node)
{
	struct opener o[OPEN_THREADS];
	pthread_t t[OPEN_THREADS];
	pthread_barrier_t barrier;

	setenv("RFM_URI", uri, 1);
	pthread_barrier_init(&barrier, NULL, OPEN_THREADS);
	for (int round = 0; round < OPEN_ROUNDS; round++) {
		for (int i = 0; i < OPEN_THREADS; i++) {
			memset(&o[i], 0, sizeof(o[i]));
			o[i].barrier = &barrier;
			assert_int_equal(pthread_create(&t[i], NULL, open_at_once, &o[i]), 0);
		}
		for (int i = 0; i < OPEN_THREADS; i++)
			assert_int_equal(pthread_join(t[i], NULL), 0);
		for (int i = 0; i < OPEN_THREADS; i++) {
			assert_st(o[i].st, RFM2G_SUCCESS);
			assert_int_equal(o[i].node, o[0].node);
		}
		if (want_node >= 0)
			assert_int_equal(o[0].node, want_node);
		for (int i = 0; i < OPEN_THREADS; i++)
			assert_st(RFM2gClose(&o[i].h), RFM2G_SUCCESS);
	}
	pthread_barrier_destroy(&barrier);
}

static void t_concurrent_open_named_node(void **state)
{
	(void) state;
	open_together(harness_network_uri(net, "size=1M&node=%d", SHARED_NODE), SHARED_NODE);
}

static void t_concurrent_open_first_free(void **state)
{
	(void) state;
	open_together(harness_network_uri(net, "size=1M"), -1);
}

/* ---- 8 threads open and close while interrupts flow ---- */

/* A sender process: INTR1 to @arg's node until the parent says stop. */
static int flood(struct harness_link *link, void *arg)
{
	RFM2GHANDLE h = NULL;
	int to = *(int *) arg;
	fd_set set;

	unsetenv("RFM_URI");	/* it would name the receivers' board */
	HARNESS_CHECK(RFM2gOpen((char *) harness_node_uri(net, TX_NODE), &h) == RFM2G_SUCCESS);
	harness_link_ready(link);
	for (RFM2G_UINT32 i = 0;; i++) {
		struct timeval now = { 0, 0 };

		HARNESS_CHECK(RFM2gSendEvent(h, (RFM2G_NODE) to, RFM2GEVENT_INTR1, i) ==
			      RFM2G_SUCCESS);
		FD_ZERO(&set);
		FD_SET(link->go_fd, &set);
		if (i % 64 == 0 && select(link->go_fd + 1, &set, NULL, NULL, &now) > 0)
			break;	/* the go byte: stop */
	}
	HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	return 0;
}

static void *open_close_loop(void *arg)
{
	struct opener *o = arg;

	o->st = RFM2G_SUCCESS;
	for (int i = 0; i < STRESS_LOOPS && o->st == RFM2G_SUCCESS; i++) {
		RFM2GEVENTINFO info;
		RFM2GHANDLE h = NULL;
		RFM2G_NODE node = 0;

		o->st = RFM2gOpen((char *) "/dev/rfm2g0", &h);
		if (o->st != RFM2G_SUCCESS)
			break;
		RFM2gNodeID(h, &node);
		if (node != SHARED_NODE)
			o->st = RFM2G_DRIVER_ERROR;
		if (o->st == RFM2G_SUCCESS)
			o->st = RFM2gEnableEvent(h, RFM2GEVENT_INTR1);
		memset(&info, 0, sizeof(info));
		info.Event = RFM2GEVENT_INTR1;
		info.Timeout = RFM2G_NO_WAIT;
		if (o->st == RFM2G_SUCCESS) {
			RFM2G_STATUS w = RFM2gWaitForEvent(h, &info);

			if (w != RFM2G_SUCCESS && w != RFM2G_TIMED_OUT)
				o->st = w;
			else if (w == RFM2G_SUCCESS && info.NodeId != TX_NODE)
				o->st = RFM2G_DRIVER_ERROR;
			else if (w == RFM2G_SUCCESS)
				o->node++;	/* interrupts seen */
		}
		if (RFM2gClose(&h) != RFM2G_SUCCESS && o->st == RFM2G_SUCCESS)
			o->st = RFM2G_DRIVER_ERROR;
	}
	return NULL;
}

static void t_open_close_stress(void **state)
{
	struct harness_child sender;
	struct opener o[OPEN_THREADS];
	pthread_t t[OPEN_THREADS];
	RFM2GHANDLE keep = NULL;
	int to = SHARED_NODE;
	unsigned int seen = 0;

	(void) state;
	setenv("RFM_URI", harness_network_uri(net, "size=1M&node=%d", SHARED_NODE), 1);
	/* One handle stays open, so the node is attached the whole time. */
	assert_st(RFM2gOpen((char *) "/dev/rfm2g0", &keep), RFM2G_SUCCESS);
	harness_child_start(&sender, flood, &to);
	assert_int_equal(harness_child_wait_ready(&sender), 0);
	for (int i = 0; i < OPEN_THREADS; i++) {
		memset(&o[i], 0, sizeof(o[i]));
		assert_int_equal(pthread_create(&t[i], NULL, open_close_loop, &o[i]), 0);
	}
	for (int i = 0; i < OPEN_THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	harness_child_go(&sender);
	assert_int_equal(harness_child_wait(&sender), 0);
	for (int i = 0; i < OPEN_THREADS; i++) {
		assert_st(o[i].st, RFM2G_SUCCESS);
		seen += o[i].node;
	}
	print_message("open/close stress: %u interrupts received by short-lived handles\n", seen);
	assert_st(RFM2gClose(&keep), RFM2G_SUCCESS);
}

/* ---- two receiver processes, one node ---- */

#define XPROC_EVENTS 200

static int receiver(struct harness_link *link, void *arg)
{
	RFM2GEVENTINFO info;
	RFM2GHANDLE h = NULL;
	RFM2G_NODE me = 0;

	(void) arg;
	HARNESS_CHECK(RFM2gOpen((char *) "/dev/rfm2g0", &h) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gNodeID(h, &me) == RFM2G_SUCCESS);
	HARNESS_CHECK(RFM2gEnableEvent(h, RFM2GEVENT_INTR2) == RFM2G_SUCCESS);
	harness_link_send(link, &me, sizeof(me));
	for (RFM2G_UINT32 i = 0; i < XPROC_EVENTS; i++) {
		memset(&info, 0, sizeof(info));
		info.Event = RFM2GEVENT_INTR2;
		info.Timeout = 60000;
		HARNESS_CHECK(RFM2gWaitForEvent(h, &info) == RFM2G_SUCCESS);
		HARNESS_CHECK(info.ExtendedInfo == i);
		HARNESS_CHECK(info.NodeId == TX_NODE);
	}
	HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	return 0;
}

static void t_two_receiver_processes(void **state)
{
	struct harness_child rx[2];
	RFM2GHANDLE h = NULL;
	RFM2G_NODE id[2];

	(void) state;
	/* Another board is another URI (RFM_URI, set below, would win over the path). */
	assert_st(RFM2gOpen((char *) harness_node_uri(net, TX_NODE), &h), RFM2G_SUCCESS);
	/* Both processes: the same RFM_URI, as two programs on one host's card. */
	setenv("RFM_URI", harness_network_uri(net, "size=1M&node=%d", RX_NODE), 1);
	for (int i = 0; i < 2; i++) {
		harness_child_start(&rx[i], receiver, NULL);
		assert_int_equal(harness_child_recv(&rx[i], &id[i], sizeof(id[i])), 0);
		assert_int_equal(id[i], RX_NODE);
	}
	for (RFM2G_UINT32 i = 0; i < XPROC_EVENTS; i++)
		assert_st(RFM2gSendEvent(h, RX_NODE, RFM2GEVENT_INTR2, i), RFM2G_SUCCESS);
	for (int i = 0; i < 2; i++)
		assert_int_equal(harness_child_wait(&rx[i]), 0);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

/* ---- the lost interrupt ---- */

#define CYCLES 4000
#define PER_THREAD 60		/* sends per thread and cycle: far below any queue depth */
#define SENDERS 2
#define MARKER 0xFFFFu
#define OFF_ENABLED 0x100	/* cycle whose receiver has enabled INTR3 */
#define OFF_FIRST 0x110		/* per thread: cycle << 16 | first seq sent after that */
#define OFF_LAST 0x120		/* per thread: cycle << 16 | sends of the cycle */

static RFM2G_UINT32 data_of(unsigned int cycle, unsigned int thread, unsigned int seq)
{
	return (RFM2G_UINT32) ((cycle & 0xFFFFu) << 16 | thread << 12 | seq);
}

struct lost_sender {
	RFM2GHANDLE h;
	unsigned int thread;
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	unsigned int *cycle;		/* cycle to send for; 0 stop */
	unsigned int done;		/* last cycle finished */
	RFM2G_STATUS st;
};

static void *lost_sender_thread(void *arg)
{
	struct lost_sender *s = arg;
	unsigned int cycle = 0;

	for (;;) {
		bool seen = false;

		pthread_mutex_lock(s->lock);
		while (*s->cycle == cycle)
			pthread_cond_wait(s->cond, s->lock);
		cycle = *s->cycle;
		pthread_mutex_unlock(s->lock);
		if (cycle == 0)
			break;
		for (unsigned int seq = 0; seq < PER_THREAD; seq++) {
			RFM2G_UINT32 enabled = 0;
			RFM2G_STATUS st;

			if (!seen && RFM2gPeek32(s->h, OFF_ENABLED, &enabled) == RFM2G_SUCCESS &&
			    enabled == cycle) {
				/* Everything from here on must arrive. */
				RFM2gPoke32(s->h, OFF_FIRST + 4 * s->thread, cycle << 16 | seq);
				seen = true;
			}
			st = RFM2gSendEvent(s->h, RX_NODE, RFM2GEVENT_INTR3,
					    data_of(cycle, s->thread, seq));
			if (st != RFM2G_SUCCESS && s->st == RFM2G_SUCCESS)
				s->st = st;
		}
		pthread_mutex_lock(s->lock);
		s->done = cycle;
		pthread_cond_broadcast(s->cond);
		pthread_mutex_unlock(s->lock);
	}
	return NULL;
}

/* Receiver of one cycle: a fresh handle, INTR3 enabled while sends fly. */
static int lost_receiver(struct harness_link *link, void *arg)
{
	(void) arg;
	for (unsigned int cycle = 1; cycle <= CYCLES; cycle++) {
		int next[SENDERS] = { 0 }, first[SENDERS] = { -1, -1 };
		struct rfm_event_stats stats = { .struct_size = sizeof(stats) };
		RFM2G_UINT32 count = 0, received = 0, mark, last;
		struct rfm2g_compat *c;
		RFM2GEVENTINFO info;
		RFM2GQINFO q;
		RFM2GHANDLE h = NULL;
		RFM2G_STATUS st;

		HARNESS_CHECK(RFM2gOpen((char *) "/dev/rfm2g0", &h) == RFM2G_SUCCESS);
		harness_link_send(link, &cycle, sizeof(cycle));	/* senders start */
		for (volatile unsigned int spin = cycle * 37u % 2000u; spin; spin--)
			;	/* enable at varying points of the burst */
		HARNESS_CHECK(RFM2gEnableEvent(h, RFM2GEVENT_INTR3) == RFM2G_SUCCESS);
		HARNESS_CHECK(RFM2gPoke32(h, OFF_ENABLED, cycle) == RFM2G_SUCCESS);
		harness_link_send(link, &cycle, sizeof(cycle));	/* the marker may come */
		for (;;) {
			unsigned int t, seq;

			memset(&info, 0, sizeof(info));
			info.Event = RFM2GEVENT_INTR3;
			info.Timeout = 60000;	/* a hang guard, not a timing check */
			st = RFM2gWaitForEvent(h, &info);
			if (st != RFM2G_SUCCESS)
				harness_fail(__FILE__, __LINE__,
					     "cycle %u: wait: %s after %u records (next %d, %d)",
					     cycle, RFM2gErrorMsg(st), received, next[0], next[1]);
			HARNESS_CHECK(info.ExtendedInfo >> 16 == (cycle & 0xFFFFu));
			received++;
			if ((info.ExtendedInfo & 0xFFFFu) == MARKER)
				break;
			t = info.ExtendedInfo >> 12 & 0xFu;
			seq = info.ExtendedInfo & 0xFFFu;
			HARNESS_CHECK(t < SENDERS);
			/* In order, none missing once the first one came. */
			if (first[t] < 0)
				first[t] = (int) seq;
			else if ((int) seq != next[t])
				harness_fail(__FILE__, __LINE__,
					     "cycle %u thread %u: seq %u after %d (lost)", cycle, t,
					     seq, next[t] - 1);
			next[t] = (int) seq + 1;
		}
		/* The marker came after every send of the cycle. */
		for (unsigned int t = 0; t < SENDERS; t++) {
			HARNESS_CHECK(RFM2gPeek32(h, OFF_LAST + 4 * t, &last) == RFM2G_SUCCESS);
			HARNESS_CHECK(last == (cycle << 16 | PER_THREAD));
			HARNESS_CHECK(RFM2gPeek32(h, OFF_FIRST + 4 * t, &mark) == RFM2G_SUCCESS);
			if (mark >> 16 == cycle) {
				/* Sent after the enable returned: all of them arrived. */
				HARNESS_CHECK(first[t] >= 0 && first[t] <= (int) (mark & 0xFFFFu));
				HARNESS_CHECK(next[t] == PER_THREAD);
			} else if (first[t] >= 0) {
				HARNESS_CHECK(next[t] == PER_THREAD);
			}
		}
		/* Every record librfm delivered to the handle is counted here. */
		HARNESS_CHECK(RFM2gGetEventCount(h, RFM2GEVENT_INTR3, &count) == RFM2G_SUCCESS);
		memset(&q, 0, sizeof(q));
		q.Event = RFM2GEVENT_INTR3;
		HARNESS_CHECK(RFM2gGetEventStats(h, &q) == RFM2G_SUCCESS);
		HARNESS_CHECK(q.Overflowed == 0);
		HARNESS_CHECK(rfm2g__get(h, &c) == RFM2G_SUCCESS);
		HARNESS_CHECK(rfm_event_get_stats(c->node, &stats) == 0);
		rfm2g__put(c);
		if (count != received || stats.delivered - stats.overflows != count)
			harness_fail(__FILE__, __LINE__,
				     "cycle %u: librfm delivered %llu records, RFM2g counted %u, "
				     "received %u",
				     cycle, (unsigned long long) (stats.delivered - stats.overflows),
				     count, received);
		HARNESS_CHECK(RFM2gClose(&h) == RFM2G_SUCCESS);
	}
	return 0;
}

static void t_lost_interrupt(void **state)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct lost_sender s[SENDERS];
	pthread_t t[SENDERS];
	struct harness_child rx;
	unsigned int cycle = 0, want;
	RFM2GHANDLE h = NULL;

	(void) state;
	assert_st(RFM2gOpen((char *) harness_node_uri(net, TX_NODE), &h), RFM2G_SUCCESS);
	setenv("RFM_URI", harness_network_uri(net, "size=1M&node=%d", RX_NODE), 1);
	/* The receiver first: a child forked from a threaded process is fragile (TSan). */
	harness_child_start(&rx, lost_receiver, NULL);
	for (unsigned int i = 0; i < SENDERS; i++) {
		s[i] = (struct lost_sender){ .h = h, .thread = i, .lock = &lock, .cond = &cond,
					     .cycle = &cycle, .st = RFM2G_SUCCESS };
		assert_int_equal(pthread_create(&t[i], NULL, lost_sender_thread, &s[i]), 0);
	}
	for (unsigned int c = 1; c <= CYCLES; c++) {
		if (harness_child_recv(&rx, &want, sizeof(want)) != 0)
			break;	/* the receiver failed: its status says why */
		assert_int_equal(want, c);
		pthread_mutex_lock(&lock);
		cycle = c;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
		/* The receiver has enabled INTR3 (the senders may still be sending). */
		if (harness_child_recv(&rx, &want, sizeof(want)) != 0)
			break;
		assert_int_equal(want, c);
		pthread_mutex_lock(&lock);
		assert_cond_wait_until(&cond, &lock, s[0].done == c && s[1].done == c,
				       "both sender threads through the cycle");
		pthread_mutex_unlock(&lock);
		for (unsigned int i = 0; i < SENDERS; i++)
			assert_st(RFM2gPoke32(h, OFF_LAST + 4 * i, c << 16 | PER_THREAD),
				  RFM2G_SUCCESS);
		assert_st(RFM2gSendEvent(h, RX_NODE, RFM2GEVENT_INTR3, data_of(c, 0, MARKER)),
			  RFM2G_SUCCESS);
	}
	pthread_mutex_lock(&lock);
	cycle = 0;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (unsigned int i = 0; i < SENDERS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_st(s[i].st, RFM2G_SUCCESS);
	}
	assert_int_equal(harness_child_wait(&rx), 0);
	pthread_mutex_destroy(&lock);
	pthread_cond_destroy(&cond);
	assert_st(RFM2gClose(&h), RFM2G_SUCCESS);
}

/* ---- a refused open says why ---- */

/* Run RFM2gOpen(@path) with stderr captured into @out. */
static RFM2G_STATUS open_capturing(const char *path, RFM2GHANDLE *h, char *out, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	RFM2G_STATUS st;
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	st = RFM2gOpen((char *) path, h);
	fflush(stderr);
	assert_true(dup2(saved, 2) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return st;
}

static void t_open_failure_says_why(void **state)
{
	RFM2GHANDLE a = NULL, b = NULL;
	char msg[1024];

	(void) state;
	skip_unless_can(HARNESS_CAP_SEGMENT,
			"shared=0 refuses a second handle of a segment network");
	/* An explicit shared=0: a second handle of node 7 is refused, and told why. */
	setenv("RFM_URI", harness_network_uri(net, "size=1M&node=%d&shared=0", SHARED_NODE), 1);
	assert_st(open_capturing("/dev/rfm2g0", &a, msg, sizeof(msg)), RFM2G_SUCCESS);
	assert_string_equal(msg, "");
	assert_st(open_capturing("/dev/rfm2g0", &b, msg, sizeof(msg)), RFM2G_NOT_OPEN);
	assert_null(b);
	assert_non_null(strstr(msg, "RFM2gOpen(\"/dev/rfm2g0\")"));
	assert_non_null(strstr(msg, "in use"));
	assert_non_null(strstr(msg, "shared=1"));
	/* A vendor path on an emulated board: the message names the shm: limits. */
	assert_non_null(strstr(msg, "/proc/rfm2g"));
	assert_st(RFM2gClose(&a), RFM2G_SUCCESS);
	unsetenv("RFM_URI");
	assert_st(open_capturing("/no/such/board", &b, msg, sizeof(msg)), RFM2G_NO_RFM2G_BOARD);
	assert_non_null(strstr(msg, "RFM_URI is not set"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_concurrent_open_named_node, setup, teardown),
		cmocka_unit_test_setup_teardown(t_concurrent_open_first_free, setup, teardown),
		cmocka_unit_test_setup_teardown(t_open_close_stress, setup, teardown),
		cmocka_unit_test_setup_teardown(t_two_receiver_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(t_lost_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(t_open_failure_says_why, setup, teardown),
	};

	harness_init();
	harness_require(HARNESS_CAP_FORK | HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE |
			    HARNESS_CAP_SHARED_NODE_ID,
			"opens one node id from several threads and processes");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
