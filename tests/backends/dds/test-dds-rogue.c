/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stranger on the DDS domain (dds-rogue, built from dds-wire.idl)
 * against real nodes: what the victims do with its samples. A sample
 * naming the receiver as its writer would write the receiver's own words
 * of its own copy; a sequence jump past any real gap would make every
 * real sample of that writer look old for good; samples and presence
 * naming a node id bound to another participant would write, send events
 * and make nodes up or down as that node; requests from a node that does
 * not exist, or too many from one, would make a node send its window
 * again and again; a forged answer to a joiner's request would install
 * the stranger's window; a pending claim that never follows would block an id.
 * All are refused and counted (rfm_event_stats' refused), and the
 * victims go on (docs/security.md).
 * Runs with RFM_TEST_BACKEND=dds (tests/backends/dds/run-dds-suites.sh).
 */
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rfm-cmocka.h"

extern char **environ;

#define WINDOW (64 * 1024)
#define GUARD_MS 10000 /* a hang guard, not a timing assertion */

static int setup(void **state)
{
	return harness_fixture_network(state, WINDOW);
}

static rfm_node *open_node(void **state, int id)
{
	rfm_node *node = NULL;

	assert_rfm_ok(rfm_open(harness_node_uri(*state, id), &node));
	return node;
}

/* The network's name and domain, from a node's canonical URI. */
static void name_and_domain(rfm_node *node, char *name, size_t len, char *domain, size_t dlen)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(node, &info));
	const char *q = strchr(info.uri, '?'), *d = strstr(info.uri, "domain=");
	assert_non_null(q);
	assert_non_null(d);
	snprintf(name, len, "%.*s", (int)(q - info.uri - 4), info.uri + 4);
	snprintf(domain, dlen, "%.*s", (int)strcspn(d + 7, "&"), d + 7);
}

/*
 * Start the rogue: ACTION and its KEY=VALUE arguments (NULL-terminated),
 * its standard output on a pipe (*@fd) for the caller to read.
 */
static pid_t rogue_spawn(rfm_node *victim, int *fd, const char *action, va_list ap)
{
	char name[128], domain[16];
	char *argv[32] = { "tests/backends/dds/dds-rogue", domain, name, (char *)action };
	int n = 4, pipefd[2];
	posix_spawn_file_actions_t fa;
	pid_t pid;

	name_and_domain(victim, name, sizeof(name), domain, sizeof(domain));
	for (const char *a; n < 31 && (a = va_arg(ap, const char *));)
		argv[n++] = (char *)a;
	argv[n] = NULL;
	assert_int_equal(pipe(pipefd), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	assert_int_equal(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	*fd = pipefd[0];
	return pid;
}

static pid_t rogue_spawn_(rfm_node *victim, int *fd, const char *action, ...)
{
	va_list ap;

	va_start(ap, action);
	pid_t pid = rogue_spawn(victim, fd, action, ap);
	va_end(ap);
	return pid;
}

/* Run the rogue to its end (it returns once every reader has its samples);
 * what it printed into @out. */
static void rogue_out(rfm_node *victim, char *out, size_t len, const char *action, ...)
{
	va_list ap;
	int fd, status;
	size_t got = 0;
	ssize_t r;

	va_start(ap, action);
	pid_t pid = rogue_spawn(victim, &fd, action, ap);
	va_end(ap);
	while (got + 1 < len && (r = read(fd, out + got, len - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

#define rogue(victim, ...) do { char out_[256]; rogue_out(victim, out_, sizeof(out_), __VA_ARGS__, NULL); } while (0)

/* The rogue that stays, if any: stopped by the teardown when a case failed. */
static pid_t staying;

/* A rogue that stays (stay=1): started, its samples acknowledged ("ready"). */
static pid_t rogue_stay_(rfm_node *victim, const char *action, ...)
{
	va_list ap;
	int fd;
	char buf[16] = "";

	va_start(ap, action);
	pid_t pid = rogue_spawn(victim, &fd, action, ap);
	va_end(ap);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	staying = pid;
	assert_memory_equal(buf, "ready", 5);
	return pid;
}

#define rogue_stay(victim, ...) rogue_stay_(victim, __VA_ARGS__, NULL)

static void rogue_stop(pid_t pid)
{
	int status;

	staying = 0;
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

static int teardown(void **state)
{
	if (staying > 0)
		rogue_stop(staying);
	return harness_fixture_teardown(state);
}

static const char *arg(char *buf, size_t len, const char *key, unsigned long long v)
{
	snprintf(buf, len, "%s=%llu", key, v);
	return buf;
}
#define ARG(key, v) arg((char[48]){ 0 }, 48, key, (unsigned long long)(v))

static uint32_t incarnation(rfm_node *node)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(node, &info));
	return info.incarnation;
}

static uint32_t attached(rfm_node *node)
{
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(node, &info));
	return info.nodes_attached;
}

static uint64_t refused(rfm_node *node)
{
	struct rfm_event_stats st = { .struct_size = sizeof(st) };

	assert_rfm_ok(rfm_event_get_stats(node, &st));
	return st.refused;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Poll @node's copy until @off reads @text; false at the guard. */
static bool reads(rfm_node *node, uint64_t off, const char *text)
{
	char buf[64] = "";
	uint64_t end = now_ms() + GUARD_MS;

	for (;;) {
		assert_rfm_ok(rfm_mem_read(node, off, buf, strlen(text)));
		if (!memcmp(buf, text, strlen(text)))
			return true;
		if (now_ms() > end)
			return false;
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
}

/*
 * @node's refused count once it reached @n (the rogue returns when the
 * readers acknowledged its samples, which may be before the listener
 * took them); exactly @n, or the guard passed.
 */
static uint64_t refused_reach(rfm_node *node, uint64_t n)
{
	uint64_t end = now_ms() + GUARD_MS, got;

	while ((got = refused(node)) < n && now_ms() < end)
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	return got;
}

/* A sample naming node 1 as its writer, at node 1: refused, its own copy untouched. */
static void a_sample_naming_the_receiver_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(a, &info));
	rogue(a, "stream", "readers=2", "writer=1", ARG("inc", info.incarnation), "seq=1",
	      "offset=0x200", "text=EVIL");
	/* The rogue returned once every reader acknowledged the sample. */
	assert_int_equal(refused_reach(a, 1), 1);
	char buf[4];
	assert_rfm_ok(rfm_mem_read(a, 0x200, buf, 4));
	assert_memory_equal(buf, "\0\0\0\0", 4);
	/* Node 1's real writes still reach the other copy. */
	assert_rfm_ok(rfm_mem_write(a, 0x300, "GOOD", 4));
	assert_true(reads(b, 0x300, "GOOD"));
	rfm_close(b);
	rfm_close(a);
}

/* Sequence 2^62 as node 1, at node 2: refused, and node 1's stream goes on. */
static void a_sequence_jump_past_the_bound_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	struct rfm_node_info info = { .struct_size = sizeof(info) };

	assert_rfm_ok(rfm_node_get_info(a, &info));
	assert_rfm_ok(rfm_mem_write(a, 0x300, "ONE.", 4));
	assert_true(reads(b, 0x300, "ONE."));
	rogue(b, "stream", "readers=2", "writer=1", ARG("inc", info.incarnation),
	      ARG("seq", UINT64_C(1) << 62), "offset=0x200", "text=EVIL");
	assert_int_equal(refused_reach(b, 1), 1);
	assert_rfm_ok(rfm_mem_write(a, 0x300, "TWO.", 4));
	assert_true(reads(b, 0x300, "TWO."));
	char buf[4];
	assert_rfm_ok(rfm_mem_read(b, 0x200, buf, 4));
	assert_memory_equal(buf, "\0\0\0\0", 4);
	rfm_close(b);
	rfm_close(a);
}

/* The first record @node takes: the real INTR1 from node 1 with @data. */
static void next_is_real(rfm_node *node, uint32_t data)
{
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_wait(node, &ev, (int64_t)GUARD_MS * 1000000));
	assert_int_equal(ev.type, RFM_EVENT_INTR1);
	assert_int_equal(ev.sender, 1);
	assert_int_equal(ev.data, data);
}

/*
 * Writes as live node 1 from another participant, with node 1's own
 * incarnation, a plausible sequence, as a write, a resync answer and a
 * batchless event: refused at node 2, its copy untouched, no false LINK,
 * and node 1's real stream goes on.
 */
static void samples_naming_another_participants_node_are_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	uint32_t inc = incarnation(a);
	char buf[4];

	assert_rfm_ok(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR1) |
					      RFM_EVENT_BIT(RFM_EVENT_LINK)));
	assert_rfm_ok(rfm_mem_write(a, 0x300, "ONE.", 4));
	assert_true(reads(b, 0x300, "ONE."));
	rogue(b, "stream", "readers=2", "writer=1", ARG("inc", inc), "seq=1000", "offset=0x200",
	      "text=EVIL");
	rogue(b, "stream", "readers=2", "writer=1", ARG("inc", inc), "seq=1001", "kind=4", "type=3",
	      "to=2", "offset=0x204", "text=BAD!");
	rogue(b, "stream", "readers=2", "writer=1", ARG("inc", inc), "seq=1002", "kind=2", "to=2",
	      "type=1", "word=666");
	assert_true(rfm_event_send(a, 2, RFM_EVENT_INTR1, 42) >= 0);
	next_is_real(b, 42);
	assert_rfm_ok(rfm_mem_write(a, 0x300, "TWO.", 4));
	assert_true(reads(b, 0x300, "TWO."));
	assert_rfm_ok(rfm_mem_read(b, 0x200, buf, 4));
	assert_memory_equal(buf, "\0\0\0\0", 4);
	assert_rfm_ok(rfm_mem_read(b, 0x204, buf, 4));
	assert_memory_equal(buf, "\0\0\0\0", 4);
	assert_int_equal(refused_reach(b, 3), 3);
	rfm_close(b);
	rfm_close(a);
}

/* Another incarnation of live node 1, from another participant: no false LINK, no resync. */
static void a_spoofed_incarnation_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);

	assert_rfm_ok(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR1) |
					      RFM_EVENT_BIT(RFM_EVENT_LINK)));
	rogue(b, "stream", "readers=2", "writer=1", ARG("inc", incarnation(a) ^ 0x5a5a), "seq=300",
	      "offset=0x200", "text=EVIL");
	assert_true(rfm_event_send(a, 2, RFM_EVENT_INTR1, 7) >= 0);
	next_is_real(b, 7);
	assert_int_equal(refused_reach(b, 1), 1);
	rfm_close(b);
	rfm_close(a);
}

/* Events "from" node 7, which does not exist: never delivered. */
static void events_from_a_node_that_does_not_exist_are_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);

	assert_rfm_ok(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	rogue(b, "stream", "readers=2", "writer=7", "inc=77", "seq=1", "kind=2", "to=65535", "type=1",
	      "word=666", "count=5");
	assert_true(rfm_event_send(a, 2, RFM_EVENT_INTR1, 9) >= 0);
	next_is_real(b, 9);
	assert_int_equal(refused_reach(b, 5), 5);
	rfm_close(b);
	rfm_close(a);
}

/*
 * Presence forged from another participant: a dispose of live node 1's
 * claim, a claim of node 1 with another window size, a claim of node 9
 * by a participant without a stream writer. Node 2 still sees node 1
 * attached and takes its writes, and never sees a node 9.
 */
static void forged_presence_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	uint32_t inc = incarnation(a);

	assert_int_equal(attached(b), 2);
	rogue(b, "presence", "readers=2", "id=1", ARG("inc", inc), "dispose=1");
	rogue(b, "presence", "readers=2", "id=1", ARG("inc", inc), "size=8192");
	rogue(b, "presence", "readers=2", "id=9", "inc=99");
	assert_int_equal(attached(b), 2);
	assert_rfm_ok(rfm_mem_write(a, 0x300, "LIVE", 4));
	assert_true(reads(b, 0x300, "LIVE"));
	assert_int_equal(refused_reach(b, 2), 2);
	rfm_close(b);
	rfm_close(a);
}

/* 40 snapshot requests "from" node 9, which does not exist: none answered. */
static void requests_from_a_node_that_does_not_exist_are_not_answered(void **state)
{
	rfm_node *a = open_node(state, 1);
	char out[64];
	unsigned long long samples = 1, bytes = 1;

	rogue_out(a, out, sizeof(out), "stream", "writer=9", "inc=99", "seq=1", "kind=3", "to=1",
		  "type=0", "word=1", "count=40", "listen=1000", NULL);
	assert_int_equal(sscanf(out, "answers %llu %llu", &samples, &bytes), 2);
	assert_int_equal(bytes, 0);
	assert_int_equal(refused_reach(a, 40), 40);
	rfm_close(a);
}

/*
 * 40 requests from node 9, claimed by the asker's own participant: one
 * copy of the window at most (a copy per requester per second, one
 * request pending per requester), not 40.
 */
static void requests_are_rate_limited_per_requester(void **state)
{
	rfm_node *a = open_node(state, 1);
	char out[64];
	unsigned long long samples = 0, bytes = 0;

	rogue_out(a, out, sizeof(out), "stream", "claim=9", "writer=9", "inc=99", "seq=1",
		  "kind=3", "to=1", "type=0", "word=1", "count=40", "listen=1000", NULL);
	assert_int_equal(sscanf(out, "answers %llu %llu", &samples, &bytes), 2);
	assert_true(bytes <= WINDOW + sizeof(uint32_t) * 256 * 3);
	rfm_close(a);
}

/*
 * 20 resync requests (node 1's own words) from node 9, claimed by the
 * asker's own participant, one every 100 ms: node 1 answers one at once
 * and then the newest waiting one each second, and refuses (counts) every
 * request it does not answer. Before, it answered each (a node holding
 * 128 KiB sent 71.9 MB for 490 requests in 5 s).
 */
static void resync_requests_are_rate_limited_per_requester(void **state)
{
	rfm_node *a = open_node(state, 1);
	char out[96], words[4096];
	unsigned long long samples = 0, bytes = 0;

	memset(words, 0x5a, sizeof(words));
	assert_rfm_ok(rfm_mem_write(a, 0x1000, words, sizeof(words)));
	rogue_out(a, out, sizeof(out), "stream", "claim=9", "writer=9", "inc=99", "seq=1",
		  "kind=3", "to=1", "type=1", "word=1", "count=20", "pace_ms=100",
		  "listen=1500", NULL);
	assert_int_equal(sscanf(out, "answers %llu %llu", &samples, &bytes), 2);
	/* Whole answers only, each the 4 KiB and an empty end piece. */
	assert_int_equal(bytes % sizeof(words), 0);
	assert_int_equal(samples, 2 * (bytes / sizeof(words)));
	/* One at once, then one a second: the requests span 2 s, the
	 * listening 1.5 s more (a hang guard's margin: at most 5). */
	unsigned long long answered = bytes / sizeof(words);
	assert_true(answered >= 2 && answered <= 5);
	assert_int_equal(refused_reach(a, 20 - answered), 20 - answered);
	rfm_close(a);
}

/*
 * A forged answer to a late joiner's snapshot request: the stranger reads
 * the request off the wire (its nonce too) and answers first, as node 1,
 * the peer asked, with a window holding EVIL where node 1's holds REAL.
 * The joiner's copy is node 1's, and the forged pieces are refused.
 */
static void a_forged_snapshot_answer_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *c;
	char out[64] = "", buf[4];
	int fd, status;
	ssize_t got = 0, r;

	assert_rfm_ok(rfm_mem_write(a, 0x100, "REAL", 4));
	pid_t pid = rogue_spawn_(a, &fd, "answer", "readers=1", ARG("inc", incarnation(a)),
				 ARG("size", WINDOW), "offset=0x100", "text=EVIL", NULL);
	staying = pid;
	/* "ready": its reader sees the stream, so it sees node 3's request. */
	while (!strchr(out, '\n') && (r = read(fd, out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += r;
	assert_memory_equal(out, "ready\n", 6);
	c = open_node(state, 3);
	while ((r = read(fd, out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += r;
	out[got] = '\0';
	close(fd);
	staying = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(out, "ready\nanswered 3\n");
	assert_rfm_ok(rfm_mem_read(c, 0x100, buf, 4));
	assert_memory_equal(buf, "REAL", 4);
	assert_true(refused_reach(c, 3) >= 3);
	rfm_close(c);
	rfm_close(a);
}

/*
 * A node that saw a gap in a writer's stream asks it for its own words
 * (a resync). The request or its answer may be lost (after a partition, a
 * reader not yet matched again drops it for good), so an unanswered
 * resync is asked again: node 9 here (a participant that holds its id)
 * never answers, and node 1 asks it more than once, each time with a new
 * nonce. Before, one lost request left node 1's copy of node 9's words
 * stale until node 9 wrote them again.
 */
static void an_unanswered_resync_is_asked_again(void **state)
{
	rfm_node *a = open_node(state, 1);
	char out[96];
	unsigned long long samples = 1, bytes = 1, requests = 0;

	assert_rfm_ok(rfm_event_enable(a, RFM_EVENT_BIT(RFM_EVENT_LINK)));
	/* Its first sample is number 5: four lost, a LINK and a resync. */
	rogue_out(a, out, sizeof(out), "stream", "claim=9", "writer=9", "inc=99", "seq=5",
		  "offset=0x400", "text=NINE", "listen=3500", NULL);
	assert_int_equal(sscanf(out, "answers %llu %llu requests %llu", &samples, &bytes,
				&requests), 3);
	assert_true(requests >= 2);
	rfm_close(a);
}

/*
 * Samples no node sends, from a participant that holds node 9's id (so
 * the binding lets them through, and the next rule is what refuses them),
 * each from a rogue of its own (incarnation @inc: its stream starts
 * there, no gap): refused and counted, one each, and @victim's copy
 * untouched. The count is checked again after node 2's write reached
 * @victim: a sample is counted once.
 */
static void refused_exactly(rfm_node *victim, rfm_node *other, uint64_t n)
{
	assert_int_equal(refused_reach(victim, n), n);
	assert_rfm_ok(rfm_mem_write(other, 0x380, "SYNC", 4));
	assert_true(reads(victim, 0x380, "SYNC"));
	assert_int_equal(refused(victim), n);
}

static void untouched(rfm_node *node, uint64_t off)
{
	char buf[4];

	assert_rfm_ok(rfm_mem_read(node, off, buf, 4));
	assert_memory_equal(buf, "\0\0\0\0", 4);
}

/* A write past the window: 4 MiB into 64 KiB, one straddling its end, one
 * whose end wraps around 2^64. */
static void writes_outside_the_window_are_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);

	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=90", "seq=1", "offset=0",
	      "len=4194304");
	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=91", "seq=1",
	      ARG("offset", WINDOW - 2), "text=EVIL");
	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=92", "seq=1",
	      "offset=0xfffffffffffffffe", "text=EVIL");
	refused_exactly(a, b, 3);
	untouched(a, 0);
	untouched(a, WINDOW - 4);
	rfm_close(b);
	rfm_close(a);
}

/*
 * A batch whose piece says 16 bytes and carries 8, and one whose piece
 * ends past the window: refused whole, nothing of it applied.
 */
static void malformed_batches_are_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);

	/* Piece: offset 0x200, len 16, reserved 0; then only 8 bytes. */
	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=90", "seq=1", "kind=6",
	      "hex=0002000000000000" "10000000" "00000000" "4556494c4556494c");
	/* Offset WINDOW - 4, len 8, then 8 bytes. */
	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=91", "seq=1", "kind=6",
	      "hex=fcff000000000000" "08000000" "00000000" "4556494c4556494c");
	refused_exactly(a, b, 2);
	untouched(a, 0x200);
	untouched(a, WINDOW - 4);
	rfm_close(b);
	rfm_close(a);
}

/* A snapshot chunk and a resync piece for node 1, which asked for neither. */
static void unasked_snapshot_and_resync_pieces_are_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);

	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=90", "seq=1", "kind=4",
	      "type=1", "to=1", "word=12345", "offset=0x200", "text=EVIL");
	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=91", "seq=1", "kind=4",
	      "type=3", "to=1", "word=777", "offset=0x204", "text=EVIL");
	refused_exactly(a, b, 2);
	untouched(a, 0x200);
	untouched(a, 0x204);
	rfm_close(b);
	rfm_close(a);
}

/* Kinds no node sends: 9, and 0 (a held sample's place, never on the wire). */
static void unknown_kinds_are_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);

	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=90", "seq=1", "kind=9",
	      "offset=0x200", "text=EVIL");
	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=91", "seq=1", "kind=0",
	      "offset=0x200", "text=EVIL");
	refused_exactly(a, b, 2);
	untouched(a, 0x200);
	rfm_close(b);
	rfm_close(a);
}

/* An event of type 12 for node 1: refused, never delivered. */
static void an_event_of_an_unknown_type_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	struct rfm_event_stats st = { .struct_size = sizeof(st) };

	assert_rfm_ok(rfm_event_enable(a, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	rogue(a, "stream", "readers=2", "claim=9", "writer=9", "inc=90", "seq=1", "kind=2",
	      "to=1", "type=12", "word=666");
	refused_exactly(a, b, 1);
	assert_true(rfm_event_send(b, 1, RFM_EVENT_INTR1, 5) >= 0);
	struct rfm_event ev;
	assert_rfm_ok(rfm_event_wait(a, &ev, (int64_t)GUARD_MS * 1000000));
	assert_int_equal(ev.type, RFM_EVENT_INTR1);
	assert_int_equal(ev.sender, 2);
	assert_rfm_ok(rfm_event_get_stats(a, &st));
	assert_int_equal(st.delivered, 1);
	rfm_close(b);
	rfm_close(a);
}

/*
 * A snapshot request of a type no node sends (5): refused, and not
 * answered. Before, any type but "own words" and "busy" was answered with
 * a whole copy, outside the once-a-second limit of copies.
 */
static void a_request_of_an_unknown_type_is_refused(void **state)
{
	rfm_node *a = open_node(state, 1);
	char out[96];
	unsigned long long samples = 1, bytes = 1;

	rogue_out(a, out, sizeof(out), "stream", "claim=9", "writer=9", "inc=99", "seq=1",
		  "kind=3", "to=1", "type=5", "word=1", "count=3", "listen=1000", NULL);
	assert_int_equal(sscanf(out, "answers %llu %llu", &samples, &bytes), 2);
	assert_int_equal(bytes, 0);
	assert_int_equal(refused_reach(a, 3), 3);
	rfm_close(a);
}

/*
 * Node 9 claims a window of 8 KiB: met after opening, it is reported once
 * (RFM_EVENT_LINK, data 0) and every sample of it is refused.
 */
static void samples_from_a_node_with_another_window_size_are_refused(void **state)
{
	rfm_node *a = open_node(state, 1), *b = open_node(state, 2);
	struct rfm_event ev;

	assert_rfm_ok(rfm_event_enable(a, RFM_EVENT_BIT(RFM_EVENT_LINK)));
	rogue(a, "stream", "readers=2", "claim=9", "size=8192", "writer=9", "inc=90", "seq=1",
	      "offset=0x200", "text=EVIL", "count=2");
	refused_exactly(a, b, 2);
	untouched(a, 0x200);
	assert_rfm_ok(rfm_event_wait(a, &ev, (int64_t)GUARD_MS * 1000000));
	assert_int_equal(ev.type, RFM_EVENT_LINK);
	assert_int_equal(ev.sender, 9);
	assert_int_equal(ev.data, 0);
	rfm_close(b);
	rfm_close(a);
}

/* Node @id's URI with a discovery wait of @join ms (the harness's is 50). */
static const char *uri_with_join(void **state, int id, unsigned int join, char *buf, size_t len)
{
	const char *uri = harness_node_uri(*state, id), *j = strstr(uri, "join=");

	assert_non_null(j);
	snprintf(buf, len, "%.*sjoin=%u%s", (int)(j - uri), uri, join, j + strcspn(j, "&"));
	return buf;
}

/*
 * A pending claim of node 5 that never follows with a node, from a
 * participant that stays: node 5 opens once the claim expired (2 * join +
 * 1 s), while the stranger is still there. A join of 1 s lets the opener
 * see the claim each time, whatever the load.
 */
static void a_claim_that_never_follows_expires(void **state)
{
	rfm_node *a = open_node(state, 1), *five = NULL;
	pid_t pid = rogue_stay(a, "presence", "id=5", "inc=1", "pending=1", "stay=1");
	char uri[512];
	uint64_t end;
	int ret;

	uri_with_join(state, 5, 1000, uri, sizeof(uri));
	assert_rfm_code(rfm_open(uri, &five), RFM_EINUSE);
	end = now_ms() + 2 * GUARD_MS;
	while ((ret = rfm_open(uri, &five)) == RFM_EINUSE && now_ms() < end)
		;
	assert_rfm_ok(ret);
	rfm_close(five);
	rogue_stop(pid);
	rfm_close(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_sample_naming_the_receiver_is_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(a_sequence_jump_past_the_bound_is_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(samples_naming_another_participants_node_are_refused,
						setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(a_spoofed_incarnation_is_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(events_from_a_node_that_does_not_exist_are_refused,
						setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(forged_presence_is_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(
			requests_from_a_node_that_does_not_exist_are_not_answered, setup,
			harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(requests_are_rate_limited_per_requester, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(resync_requests_are_rate_limited_per_requester,
						setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(a_forged_snapshot_answer_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(an_unanswered_resync_is_asked_again, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(a_claim_that_never_follows_expires, setup, teardown),
		cmocka_unit_test_setup_teardown(writes_outside_the_window_are_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(malformed_batches_are_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(unasked_snapshot_and_resync_pieces_are_refused,
						setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(unknown_kinds_are_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(an_event_of_an_unknown_type_is_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(a_request_of_an_unknown_type_is_refused, setup,
						harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(
			samples_from_a_node_with_another_window_size_are_refused, setup,
			harness_fixture_teardown),
	};

	harness_init();
	harness_require_backend("dds");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
