/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dds: callbacks=receive: a callback runs on the thread that receives its
 * event, not on the handle's dispatcher, and keeps the dispatcher's
 * guarantees: it may read, write and send (and gets a clear error from
 * rfm_event_wait()); a record queued before it (the dispatcher busy) is
 * never overtaken and the callbacks never overlap; unregistering waits
 * for a running call; closing the handle from the callback does not
 * deadlock and is finished. Without the parameter callbacks stay on the
 * dispatcher.
 *
 * The events come from another process, tests/backends/dds/dds-peer (node 2),
 * driven line by line on the loopback interface: in one process a write
 * reaches the other handle inside the writer's call, where callbacks never
 * run (src/backends/dds/dds-receive.c). Every wait has a deadline that
 * is a hang guard only. Runs with RFM_TEST_BACKEND=dds
 * (tests/backends/dds/run-dds-suites.sh).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rfm-cmocka.h"
#include "event-core.h" /* the handle's dispatcher thread, to compare */

#define WINDOW (64 * 1024)
#define GUARD_S 20 /* a hang guard, not a timing assertion */
#define INTR_BITS (RFM_EVENT_BIT(RFM_EVENT_INTR1) | RFM_EVENT_BIT(RFM_EVENT_INTR2))
#define HELLO RFM_EVENT_INTR4 /* the link check's type, disabled after it */

extern char **environ;

static struct harness_network net;

/* ---- node 2, another process ---- */

static pid_t peer_pid = -1;
static FILE *peer_in, *peer_out;

static const char *peer_program(void)
{
	const char *p = getenv("RFM_DDS_PEER");

	return p ? p : "tests/backends/dds/dds-peer";
}

static void peer_start(void)
{
	int in[2], out[2];
	char line[256];
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)peer_program(), (char *)harness_node_uri(&net, 2), NULL };

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	/* exec, not fork alone: Cyclone's threads do not survive a fork. */
	assert_int_equal(posix_spawn(&peer_pid, argv[0], &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	peer_in = fdopen(in[1], "w");
	peer_out = fdopen(out[0], "r");
	assert_non_null(peer_in);
	assert_non_null(peer_out);
	assert_non_null(fgets(line, sizeof(line), peer_out));
	assert_string_equal(line, "ready 2\n");
}

/* One command, one answer line (without its newline). */
static const char *peer_ask(const char *cmd)
{
	static char line[256];
	size_t n;

	fprintf(peer_in, "%s\n", cmd);
	fflush(peer_in);
	if (!fgets(line, sizeof(line), peer_out))
		fail_msg("peer: no answer to '%s'", cmd);
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = 0;
	return line;
}

static void peer_ok(const char *cmd)
{
	const char *answer = peer_ask(cmd);

	if (strcmp(answer, "ok"))
		fail_msg("peer: %s -> %s", cmd, answer);
}

static void peer_stop(void)
{
	int status;

	if (peer_pid < 0)
		return;
	if (peer_in) {
		fprintf(peer_in, "quit\n");
		fclose(peer_in);
		peer_in = NULL;
	}
	/* Our pid, our child: by its pid if it does not leave by itself. */
	for (int i = 0; i < GUARD_S * 100 && waitpid(peer_pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(peer_pid, &status, WNOHANG) == 0) {
		kill(peer_pid, SIGKILL);
		waitpid(peer_pid, &status, 0);
	}
	if (peer_out)
		fclose(peer_out);
	peer_out = NULL;
	peer_pid = -1;
}

/*
 * Discovery between processes takes its time and a sample sent before it
 * is lost: say hello both ways (HELLO) until each side heard the other,
 * then forget the hellos, so that only the test's records are queued.
 */
static void link_up(rfm_node *a)
{
	struct rfm_event ev;
	bool heard = false;

	assert_rfm_ok(rfm_event_enable(a, RFM_EVENT_BIT(HELLO)));
	peer_ok("enable 10"); /* HELLO */
	for (int i = 0; i < GUARD_S * 10 && !heard; i++) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "send 1 %d 0", HELLO);
		peer_ask(cmd); /* RFM_ENODE until it knows node 1 */
		while (!heard && rfm_event_wait(a, &ev, 100000000) == 0)
			heard = ev.type == HELLO && ev.sender == 2;
	}
	assert_true(heard);
	heard = false;
	for (int i = 0; i < GUARD_S * 10 && !heard; i++) {
		char cmd[64];

		(void)rfm_event_send(a, 2, HELLO, 0);
		snprintf(cmd, sizeof(cmd), "wait %d 1 100", HELLO);
		heard = !strncmp(peer_ask(cmd), "event", 5);
	}
	assert_true(heard);
	assert_rfm_ok(rfm_event_disable(a, RFM_EVENT_BIT(HELLO)));
	while (rfm_event_wait(a, &ev, 0) == 0)
		;
}

/* ---- what the callbacks saw ---- */

struct seen {
	rfm_node *node;
	sem_t posted;
	uint32_t calls;		/* atomic */
	uint32_t inside;	/* callbacks running now (atomic) */
	bool overlapped;	/* two ran at once */
	uint32_t data[8];
	bool on_dispatcher[8];
	pthread_t thread[8];
	int wait_rc;
	char wait_error[256];
	char request[8];
	/* the blocking callbacks */
	sem_t entered, gate;
	uint32_t finished;	/* atomic */
	bool closed;
};

static struct seen seen;

static void seen_init(rfm_node *node)
{
	memset(&seen, 0, sizeof(seen));
	seen.node = node;
	sem_init(&seen.posted, 0, 0);
	sem_init(&seen.entered, 0, 0);
	sem_init(&seen.gate, 0, 0);
}

static void seen_free(void)
{
	sem_destroy(&seen.posted);
	sem_destroy(&seen.entered);
	sem_destroy(&seen.gate);
}

static void sem_wait_guarded(sem_t *sem, const char *what)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += GUARD_S;
	while (sem_timedwait(sem, &ts))
		if (errno != EINTR)
			fail_msg("no %s within %d s", what, GUARD_S);
}

static void enter(void)
{
	if (__atomic_add_fetch(&seen.inside, 1, __ATOMIC_SEQ_CST) > 1)
		__atomic_store_n(&seen.overlapped, true, __ATOMIC_SEQ_CST);
}

/* Note the call; true when there is room for it. */
static bool note(rfm_node *node, const struct rfm_event *ev)
{
	uint32_t i = __atomic_load_n(&seen.calls, __ATOMIC_SEQ_CST);

	if (i >= 8)
		return false;
	seen.data[i] = ev->data;
	seen.thread[i] = pthread_self();
	seen.on_dispatcher[i] = rfm__core(node)->ev->dispatcher_started &&
				pthread_equal(rfm__core(node)->ev->dispatcher, pthread_self());
	return true;
}

static void leave(void)
{
	__atomic_fetch_add(&seen.calls, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&seen.inside, 1, __ATOMIC_SEQ_CST);
	sem_post(&seen.posted);
}

/* The pong: read the request, write the reply, answer; try a wait. */
static void answer_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct rfm_event other;

	(void)arg;
	enter();
	if (note(node, ev)) {
		memset(seen.request, 0, sizeof(seen.request));
		if (rfm_mem_read(node, 0x100, seen.request, 5) ||
		    rfm_mem_write(node, 0x200, "pong", 4) ||
		    rfm_event_send(node, ev->sender, RFM_EVENT_INTR1, ev->data + 1) < 0)
			seen.request[0] = '!';
		seen.wait_rc = rfm_event_wait(node, &other, 0);
		snprintf(seen.wait_error, sizeof(seen.wait_error), "%s", rfm_last_error());
	}
	leave();
}

static void run_answer(rfm_node *a, bool on_dispatcher)
{
	pthread_t dispatcher;

	assert_rfm_ok(rfm_event_callback_register(a, RFM_EVENT_INTR1, answer_cb, NULL));
	peer_ok("enable 2");
	peer_ok("write 100 hello");
	peer_ok("send 1 1 7");
	sem_wait_guarded(&seen.posted, "callback");
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.data[0], 7);
	assert_string_equal(seen.request, "hello");
	assert_false(pthread_equal(seen.thread[0], pthread_self()));
	assert_true(rfm__core(a)->ev->dispatcher_started);
	dispatcher = rfm__core(a)->ev->dispatcher;
	assert_int_equal(pthread_equal(seen.thread[0], dispatcher) != 0, on_dispatcher);
	assert_int_equal(seen.on_dispatcher[0], on_dispatcher);
	/* Callbacks take the events: a wait in one is refused, never blocks. */
	assert_int_equal(seen.wait_rc, RFM_EBUSY);
	if (!on_dispatcher && !strstr(seen.wait_error, "receive thread"))
		fail_msg("the refused wait says: %s", seen.wait_error);
	/* The answer and its data reached node 2. */
	assert_string_equal(peer_ask("wait 1 1 20000"), "event 1 1 8");
	assert_string_equal(peer_ask("read 200 4"), "data pong");
}

static rfm_node *open_a(bool receive)
{
	rfm_node *a = NULL;

	assert_rfm_ok(rfm_open(harness_network_uri(&net, "node=1&size=%d&loopback=1%s", WINDOW,
						   receive ? "&callbacks=receive" : ""),
			       &a));
	assert_rfm_ok(rfm_event_enable(a, INTR_BITS));
	seen_init(a);
	peer_start();
	link_up(a);
	return a;
}

static int setup(void **state)
{
	(void)state;
	harness_network_new(&net, WINDOW);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	peer_stop();
	seen_free();
	harness_network_destroy(&net);
	return 0;
}

static void callbacks_run_on_the_receive_thread(void **state)
{
	rfm_node *a = open_a(true);

	(void)state;
	run_answer(a, false);
	rfm_close(a);
}

static void by_default_callbacks_run_on_the_dispatcher(void **state)
{
	rfm_node *a = open_a(false);

	(void)state;
	run_answer(a, true);
	rfm_close(a);
}

/* INTR2 on the dispatcher: holds it until the gate opens. */
static void blocker_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	(void)node;
	(void)ev;
	(void)arg;
	enter();
	sem_post(&seen.entered);
	sem_wait_guarded(&seen.gate, "gate");
	__atomic_sub_fetch(&seen.inside, 1, __ATOMIC_SEQ_CST);
}

static void record_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	(void)arg;
	enter();
	note(node, ev);
	leave();
}

static uint64_t queued(rfm_node *a)
{
	struct rfm_event_stats st = { .struct_size = sizeof(st) };

	assert_rfm_ok(rfm_event_get_stats(a, &st));
	return st.queued;
}

static void queued_records_are_not_overtaken(void **state)
{
	rfm_node *a = open_a(true);
	int i;

	(void)state;
	assert_rfm_ok(rfm_event_callback_register(a, RFM_EVENT_INTR1, record_cb, NULL));
	assert_rfm_ok(rfm_event_callback_register(a, RFM_EVENT_INTR2, blocker_cb, NULL));
	/* The dispatcher busy in a callback; record 1 queued behind it. */
	assert_int_equal(rfm_event_send(a, 1, RFM_EVENT_INTR2, 0), 1);
	sem_wait_guarded(&seen.entered, "blocker");
	assert_int_equal(rfm_event_send(a, 1, RFM_EVENT_INTR1, 1), 1);
	/* Record 2 comes from node 2 on the receive thread: queued behind 1. */
	peer_ok("send 1 1 2");
	for (i = 0; i < GUARD_S * 1000 && queued(a) < 2; i++)
		usleep(1000);
	assert_int_equal(queued(a), 2);
	assert_int_equal(seen.calls, 0);
	sem_post(&seen.gate);
	sem_wait_guarded(&seen.posted, "record 1");
	sem_wait_guarded(&seen.posted, "record 2");
	assert_int_equal(seen.data[0], 1);
	assert_int_equal(seen.data[1], 2);
	assert_true(seen.on_dispatcher[0]);
	assert_true(seen.on_dispatcher[1]);
	/* Nothing queued or held any more: the next runs on the receive thread. */
	for (i = 0; i < GUARD_S * 1000 &&
		    __atomic_load_n(&rfm__core(a)->ev->disp_holding, __ATOMIC_SEQ_CST);
	     i++)
		usleep(1000);
	peer_ok("send 1 1 3");
	sem_wait_guarded(&seen.posted, "record 3");
	assert_int_equal(seen.data[2], 3);
	assert_false(seen.on_dispatcher[2]);
	assert_false(seen.overlapped);
	rfm_close(a);
}

/* INTR1 on the receive thread: runs until it is unregistered. */
static void slow_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct rfm_events *ev_state = rfm__core(node)->ev;
	bool gone = false;

	(void)arg;
	enter();
	note(node, ev);
	sem_post(&seen.entered);
	for (int i = 0; i < GUARD_S * 1000 && !gone; i++) {
		pthread_mutex_lock(&ev_state->lock);
		gone = !ev_state->cb[RFM_EVENT_INTR1].fn;
		pthread_mutex_unlock(&ev_state->lock);
		if (!gone)
			usleep(1000);
	}
	/* The unregistering thread is waiting for us now, or about to. */
	__atomic_store_n(&seen.finished, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&seen.inside, 1, __ATOMIC_SEQ_CST);
}

static void unregister_waits_for_a_running_callback(void **state)
{
	rfm_node *a = open_a(true);

	(void)state;
	assert_rfm_ok(rfm_event_callback_register(a, RFM_EVENT_INTR1, slow_cb, NULL));
	peer_ok("send 1 1 1");
	sem_wait_guarded(&seen.entered, "callback");
	assert_false(seen.on_dispatcher[0]);
	assert_rfm_ok(rfm_event_callback_unregister(a, RFM_EVENT_INTR1));
	assert_int_equal(__atomic_load_n(&seen.finished, __ATOMIC_SEQ_CST), 1);
	rfm_close(a);
}

/* INTR1 on the receive thread: closes its own handle. */
static void closer_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	(void)arg;
	note(node, ev);
	rfm_close(node);
	seen.closed = true;
	__atomic_fetch_add(&seen.calls, 1, __ATOMIC_SEQ_CST);
	sem_post(&seen.posted);
}

static void close_from_a_callback_on_the_receive_thread(void **state)
{
	rfm_node *a = open_a(true);
	int i;

	(void)state;
	assert_string_equal(peer_ask("nodes"), "nodes 2");
	assert_rfm_ok(rfm_event_callback_register(a, RFM_EVENT_INTR1, closer_cb, NULL));
	peer_ok("send 1 1 1");
	sem_wait_guarded(&seen.posted, "callback");
	assert_true(seen.closed);
	assert_false(seen.on_dispatcher[0]);
	/*
	 * The close went through: node 2 sees node 1 leave (its presence is
	 * disposed by the dispatcher, which finishes the close). Not by
	 * opening node 1 again here: that would race the close still
	 * deleting the old node's DDS entities.
	 */
	for (i = 0; i < GUARD_S * 100 && strcmp(peer_ask("nodes"), "nodes 1"); i++)
		usleep(10000);
	assert_string_equal(peer_ask("nodes"), "nodes 1");
}

/*
 * A callback on the receive thread that writes more than Cyclone's writer
 * holds unacknowledged (WhcHigh, 500 kB by default): the acknowledgements
 * come in on the very thread that is writing, so a write that waited for
 * them would wait out the writer's 10 s and fail. The writes must all be
 * taken, in order, and reach node 2 behind them.
 */
#define FLOOD_WRITES 512 /* of 4 KiB: 2 MiB, four times WhcHigh */
#define FLOOD_CHUNK 4096

static struct {
	int failed_rc;
	char failed[256];
	uint32_t written;
} flood;

static void flood_cb(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	static uint8_t chunk[FLOOD_CHUNK];

	(void)arg;
	(void)ev;
	for (uint32_t i = 0; i < FLOOD_WRITES && !flood.failed_rc; i++) {
		memset(chunk, (int)(i & 0xff), sizeof(chunk));
		memcpy(chunk, &i, sizeof(i));
		int rc = rfm_mem_write(node, 0x1000 + (i % 8) * FLOOD_CHUNK, chunk, sizeof(chunk));

		if (rc) {
			flood.failed_rc = rc;
			snprintf(flood.failed, sizeof(flood.failed), "write %u: %s", i,
				 rfm_last_error());
		} else {
			flood.written++;
		}
	}
	if (!flood.failed_rc && (rfm_mem_write(node, 0x300, "done", 4) ||
				 rfm_event_send(node, 2, RFM_EVENT_INTR2, flood.written) < 0)) {
		flood.failed_rc = -1;
		snprintf(flood.failed, sizeof(flood.failed), "the last write: %s",
			 rfm_last_error());
	}
	__atomic_fetch_add(&seen.calls, 1, __ATOMIC_SEQ_CST);
	sem_post(&seen.posted);
}

static void a_callback_writing_more_than_the_writer_holds_is_not_stalled(void **state)
{
	rfm_node *a = open_a(true);
	char expect[64];

	(void)state;
	memset(&flood, 0, sizeof(flood));
	assert_rfm_ok(rfm_event_callback_register(a, RFM_EVENT_INTR1, flood_cb, NULL));
	peer_ok("enable 4"); /* INTR2 */
	peer_ok("send 1 1 1");
	sem_wait_guarded(&seen.posted, "callback");
	if (flood.failed_rc)
		fail_msg("in the callback: %s (%d)", flood.failed, flood.failed_rc);
	assert_int_equal(flood.written, FLOOD_WRITES);
	/* The event came behind every write: the last chunk of each slot is there. */
	snprintf(expect, sizeof(expect), "event 2 1 %u", FLOOD_WRITES);
	assert_string_equal(peer_ask("wait 2 1 20000"), expect);
	assert_string_equal(peer_ask("read 300 4"), "data done");
	rfm_close(a);
}

/*
 * The same flood from the program's own thread of a callbacks=receive
 * handle: its writer never waits either, so this thread queues behind
 * the backlog and waits while it is over 1 MiB, as a blocked write would.
 * Every write is taken and arrives before the event sent after them.
 */
static void another_thread_waits_for_the_backlog(void **state)
{
	rfm_node *a = open_a(true);
	static uint8_t chunk[FLOOD_CHUNK];
	char expect[64];

	(void)state;
	peer_ok("enable 4"); /* INTR2 */
	for (uint32_t i = 0; i < 2 * FLOOD_WRITES; i++) {
		memset(chunk, (int)(i & 0xff), sizeof(chunk));
		assert_rfm_ok(rfm_mem_write(a, 0x1000 + (i % 8) * FLOOD_CHUNK, chunk,
					    sizeof(chunk)));
	}
	assert_rfm_ok(rfm_mem_write(a, 0x300, "sent", 4));
	assert_true(rfm_event_send(a, 2, RFM_EVENT_INTR2, 2 * FLOOD_WRITES) >= 0);
	snprintf(expect, sizeof(expect), "event 2 1 %u", 2 * FLOOD_WRITES);
	assert_string_equal(peer_ask("wait 2 1 20000"), expect);
	assert_string_equal(peer_ask("read 300 4"), "data sent");
	rfm_close(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(callbacks_run_on_the_receive_thread, setup,
						teardown),
		cmocka_unit_test_setup_teardown(by_default_callbacks_run_on_the_dispatcher, setup,
						teardown),
		cmocka_unit_test_setup_teardown(queued_records_are_not_overtaken, setup, teardown),
		cmocka_unit_test_setup_teardown(unregister_waits_for_a_running_callback, setup,
						teardown),
		cmocka_unit_test_setup_teardown(close_from_a_callback_on_the_receive_thread, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			a_callback_writing_more_than_the_writer_holds_is_not_stalled, setup,
			teardown),
		cmocka_unit_test_setup_teardown(another_thread_waits_for_the_backlog, setup,
						teardown),
	};

	harness_init();
	harness_require_backend("dds");
	if (access(peer_program(), X_OK)) {
		fprintf(stderr, "test-dds-callbacks: SKIP: %s is not built\n", peer_program());
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
