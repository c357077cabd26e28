/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Determinism options (realtime.h): prefault and lock of the window and
 * of the event queue, checked through mincore(), /proc/self/pagemap and
 * VmLck; the scheduling of the library's threads, checked from inside the
 * dispatcher (sched_getscheduler, sched_getaffinity) and through the
 * heartbeat thread's entry in /proc/self/task; and the errors a process
 * without the right gets (children that drop CAP_SYS_NICE / CAP_IPC_LOCK).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define WINDOW (1024 * 1024)

/*
 * ASan and TSan replace mlock() by a no-op that returns 0 (locking their
 * terabytes of shadow would hang the kernel): under them, what lock=1
 * pins cannot be seen, so the checks of VmLck and of the memlock limit
 * are left out.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MLOCK_IS_REAL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MLOCK_IS_REAL 0
#endif
#endif
#ifndef MLOCK_IS_REAL
#define MLOCK_IS_REAL 1
#endif
#define PRIO 41

static int setup(void **state)
{
	return harness_fixture_network(state, WINDOW);
}

/* The node URI with extra parameters appended. */
static const char *uri_with(struct harness_network *net, const char *extra)
{
	static char buf[HARNESS_URI_MAX];
	const char *base = harness_node_uri(net, HARNESS_ANY_NODE);

	snprintf(buf, sizeof(buf), "%s%s%s", base, strchr(base, '?') ? "&" : "?", extra);
	return buf;
}

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Pages of [addr, addr+len) that mincore() says are resident. */
static size_t resident_pages(const void *addr, size_t len)
{
	size_t pages = (len + (size_t)page_size() - 1) / (size_t)page_size();
	unsigned char *vec = calloc(pages, 1);
	size_t n = 0;

	assert_non_null(vec);
	assert_int_equal(mincore((void *)addr, len, vec), 0);
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

/* Pages of [addr, addr+len) mapped in this process's page tables (pagemap bit 63). */
static size_t mapped_pages(const void *addr, size_t len)
{
	FILE *f = fopen("/proc/self/pagemap", "re");
	size_t pages = len / (size_t)page_size(), n = 0;
	uint64_t entry;

	assert_non_null(f);
	assert_int_equal(fseeko(f, (off_t)((uintptr_t)addr / (uintptr_t)page_size() * 8), SEEK_SET),
			 0);
	for (size_t i = 0; i < pages; i++) {
		assert_int_equal(fread(&entry, sizeof(entry), 1, f), 1);
		n += entry >> 63;
	}
	fclose(f);
	return n;
}

/* VmLck of this process in KiB. */
static unsigned long locked_kib(void)
{
	char line[128];
	unsigned long kib = 0;
	FILE *f = fopen("/proc/self/status", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "VmLck: %lu kB", &kib);
	fclose(f);
	return kib;
}

static void test_bad_parameters(void **state)
{
	static const char *const bad[] = {
		"lock=2", "prefault=yes", "rt_prio=0", "rt_prio=100", "rt_prio=-1",
		"rt_policy=idle", "cpus=abc", "cpus=3-1", "cpus=1,", "cpus=99999",
		"rt_policy=other&rt_prio=5",
	};
	struct harness_network *net = *state;
	rfm_node *node = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rfm_open(uri_with(net, bad[i]), &node), RFM_EURI);
		assert_null(node);
	}
	/* A CPU that exists in no cpu_set_t of this machine: refused at open. */
	assert_int_equal(rfm_open(uri_with(net, "cpus=1000"), &node), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "cpus names CPU 1000, not online or not allowed"));
	/* A policy without a priority is refused with the reason. */
	assert_int_equal(rfm_open(uri_with(net, "rt_policy=fifo"), &node), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "priority 1..99"));
}

/*
 * A list naming one usable CPU and one this process may not run on (not
 * online, or outside its affinity): refused, naming both, not run on the
 * usable one alone; the same through the options structure.
 */
static void test_cpus_not_usable(void **state)
{
	struct harness_network *net = *state;
	struct rfm_open_options o;
	char extra[64], want[96];
	rfm_node *node = NULL;
	cpu_set_t allowed;
	int first = -1, missing = -1;

	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	for (int c = 0; c < RFM_RT_CPUS_MAX && (first < 0 || missing < 0); c++) {
		if (CPU_ISSET(c, &allowed) && first < 0)
			first = c;
		else if (!CPU_ISSET(c, &allowed) && missing < 0)
			missing = c;
	}
	assert_true(first >= 0 && missing >= 0);
	snprintf(extra, sizeof(extra), "cpus=%d,%d", first, missing);
	assert_int_equal(rfm_open(uri_with(net, extra), &node), RFM_EINVAL);
	assert_null(node);
	snprintf(want, sizeof(want), "cpus names CPU %d, not online or not allowed", missing);
	assert_non_null(strstr(rfm_last_error(), want));
	assert_non_null(strstr(rfm_last_error(), "it may run on CPUs "));
	assert_non_null(strstr(rfm_last_error(), extra));
	memset(&o, 0, sizeof(o));
	o.struct_size = sizeof(o);
	o.cpus[first / 64] |= UINT64_C(1) << (first % 64);
	o.cpus[missing / 64] |= UINT64_C(1) << (missing % 64);
	assert_int_equal(rfm_open_with_options(harness_node_uri(net, HARNESS_ANY_NODE), &o, &node),
			 RFM_EINVAL);
	assert_null(node);
	assert_non_null(strstr(rfm_last_error(), want));
	/* The usable CPU alone opens. */
	snprintf(extra, sizeof(extra), "cpus=%d", first);
	assert_int_equal(rfm_open(uri_with(net, extra), &node), 0);
	rfm_close(node);
}

static void test_bad_struct(void **state)
{
	struct harness_network *net = *state;
	const char *uri = harness_node_uri(net, HARNESS_ANY_NODE);
	struct rfm_open_options o;
	rfm_node *node = NULL;

	memset(&o, 0, sizeof(o));
	o.struct_size = 8;
	assert_int_equal(rfm_open_with_options(uri, &o, &node), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "struct_size"));
	o.struct_size = sizeof(o);
	o.reserved[3] = 1;
	assert_int_equal(rfm_open_with_options(uri, &o, &node), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "reserved"));
	o.reserved[3] = 0;
	/* A newer program's larger structure: zero tail accepted, set tail refused. */
	struct {
		struct rfm_open_options o;
		uint32_t newer[4];
	} big;
	memset(&big, 0, sizeof(big));
	big.o.struct_size = sizeof(big);
	big.o.mem_flags = RFM_MEM_PREFAULT;
	assert_int_equal(rfm_open_with_options(uri, &big.o, &node), 0);
	rfm_close(node);
	node = NULL;
	big.newer[2] = 1;
	assert_int_equal(rfm_open_with_options(uri, &big.o, &node), RFM_EINVAL);
	assert_non_null(strstr(rfm_last_error(), "does not know"));
	o.mem_flags = 0x80;
	assert_int_equal(rfm_open_with_options(uri, &o, &node), RFM_EINVAL);
	o.mem_flags = 0;
	o.rt_policy = 7;
	assert_int_equal(rfm_open_with_options(uri, &o, &node), RFM_EINVAL);
	o.rt_policy = RFM_RT_FIFO;
	o.rt_priority = 0;
	assert_int_equal(rfm_open_with_options(uri, &o, &node), RFM_EINVAL);
	o.rt_policy = RFM_RT_OTHER;
	o.rt_priority = 3;
	assert_int_equal(rfm_open_with_options(uri, &o, &node), RFM_EINVAL);
	assert_null(node);
	/* NULL options: exactly rfm_open(). */
	assert_int_equal(rfm_open_with_options(uri, NULL, &node), 0);
	struct rfm_open_options got = { .struct_size = sizeof(got) };
	assert_int_equal(rfm_node_get_options(node, &got), 0);
	assert_int_equal(got.mem_flags, 0);
	assert_int_equal(got.rt_policy, RFM_RT_INHERIT);
	rfm_close(node);
}

static void test_prefault_and_lock_window(void **state)
{
	struct harness_network *net = *state;
	unsigned long before = locked_kib();
	rfm_node *node;
	void *base;

	assert_int_equal(rfm_open(uri_with(net, "prefault=1"), &node), 0);
	assert_int_equal(rfm_mem_map(node, &base, NULL), 0);
	assert_int_equal(resident_pages(base, WINDOW), WINDOW / page_size());
	assert_int_equal(mapped_pages(base, WINDOW), WINDOW / page_size());
	assert_int_equal(locked_kib(), before); /* prefault alone pins nothing */
	rfm_close(node);

	assert_int_equal(rfm_open(uri_with(net, "lock=1"), &node), 0);
	assert_int_equal(rfm_mem_map(node, &base, NULL), 0);
	assert_int_equal(mapped_pages(base, WINDOW), WINDOW / page_size());
	if (MLOCK_IS_REAL)
		assert_true(locked_kib() >= before + WINDOW / 1024);
	struct rfm_open_options got = { .struct_size = sizeof(got) };
	assert_int_equal(rfm_node_get_options(node, &got), 0);
	assert_int_equal(got.mem_flags, RFM_MEM_LOCK | RFM_MEM_PREFAULT);
	rfm_close(node);
	assert_int_equal(locked_kib(), before);
}

/* The slots of the handle's queue: every page mapped at enable with prefault. */
static size_t queue_pages_mapped(struct harness_network *net, const char *extra,
				 size_t *total)
{
	rfm_node *node;
	void *base;
	char path[64];
	size_t n = 0;

	assert_int_equal(rfm_open(uri_with(net, extra), &node), 0);
	assert_int_equal(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)), 0);
	assert_int_equal(rfm_mem_map(node, &base, NULL), 0);
	/* The queue lies in the segment's event area, mapped apart: find it by its file. */
	assert_non_null(harness_shm_path(net, path, sizeof(path)));
	FILE *maps = fopen("/proc/self/maps", "re");
	char line[512];
	*total = 0;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi, off;

		if (!strstr(line, path + strlen("/dev/shm")) ||
		    sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) != 3 || off == 0)
			continue;
		n += mapped_pages((void *)lo, hi - lo);
		*total += (hi - lo) / (size_t)page_size();
	}
	fclose(maps);
	rfm_close(node);
	return n;
}

/*
 * Queues of the deepest kind: 2 MiB of slots, far more than the 64 KiB the
 * kernel maps around a read fault, so a queue mapped whole was prefaulted
 * and not merely touched once (a 1024-slot queue, 36 KiB, is mapped whole
 * by its first read either way).
 */
#define DEEP "depth=65536"
#define DEEP_QUEUE_BYTES (256 + 65536 * 32)

static void test_prefault_event_queue(void **state)
{
	struct harness_network *net = *state;
	size_t total, plain, prefaulted;
	size_t queue = (DEEP_QUEUE_BYTES + (size_t)page_size() - 1) / (size_t)page_size();

	skip_unless_can(HARNESS_CAP_SEGMENT, "finds the handle's event queue by the segment file");
	plain = queue_pages_mapped(net, "loopback=0&" DEEP, &total);
	prefaulted = queue_pages_mapped(net, "prefault=1", &total);
	assert_true(total > 0);
	/* A queue is a 256-byte header and 65536 32-byte slots: 513 pages. */
	assert_int_equal(prefaulted, queue);
	/* Without prefault the slots are mapped as events arrive (none yet). */
	assert_true(plain < queue / 4);
}

/*
 * The mappings of the network's event area: those of the file at the
 * largest offset (the segment's own mapping may show as several pieces).
 */
static size_t event_mappings(struct harness_network *net, unsigned long *lo, unsigned long *hi,
			     size_t max)
{
	char path[64], line[512];
	unsigned long top = 0;
	size_t n = 0;

	assert_non_null(harness_shm_path(net, path, sizeof(path)));
	for (int pass = 0; pass < 2; pass++) {
		FILE *maps = fopen("/proc/self/maps", "re");

		assert_non_null(maps);
		while (fgets(line, sizeof(line), maps)) {
			unsigned long a, b, off;

			if (!strstr(line, path + strlen("/dev/shm")) ||
			    sscanf(line, "%lx-%lx %*s %lx", &a, &b, &off) != 3)
				continue;
			if (pass == 0 && off > top)
				top = off;
			if (pass == 1 && off == top && n < max) {
				lo[n] = a;
				hi[n++] = b;
			}
		}
		fclose(maps);
	}
	return n;
}

/*
 * Pages of a sender's mapping of the receiver's queue after one send: the
 * sender opened with @extra, the receiver plainly.
 */
static size_t sender_queue_pages(struct harness_network *net, const char *extra)
{
	unsigned long lo0[4], hi0[4], lo[4], hi[4];
	rfm_node *receiver, *sender;
	size_t before, after, n = 0;

	assert_rfm_ok(rfm_open(uri_with(net, "loopback=0&" DEEP), &receiver));
	assert_rfm_ok(rfm_event_enable(receiver, RFM_EVENT_BIT(RFM_EVENT_INTR1)));
	before = event_mappings(net, lo0, hi0, 4);
	assert_rfm_ok(rfm_open(uri_with(net, extra), &sender));
	after = event_mappings(net, lo, hi, 4);
	assert_int_equal(after, before + 1);
	assert_int_equal(rfm_event_send(sender, (unsigned int)rfm_node_id(receiver),
					RFM_EVENT_INTR1, 7),
			 1);
	for (size_t i = 0; i < after; i++) {
		bool old = false;

		for (size_t j = 0; j < before; j++)
			old |= lo[i] == lo0[j];
		if (!old) /* the sender's: only the receiver's slab was ever touched in it */
			n = mapped_pages((void *)lo[i], hi[i] - lo[i]);
	}
	rfm_close(sender);
	rfm_close(receiver);
	return n;
}

static void test_prefault_sender_queue(void **state)
{
	struct harness_network *net = *state;
	size_t queue = (DEEP_QUEUE_BYTES + (size_t)page_size() - 1) / (size_t)page_size();

	skip_unless_can(HARNESS_CAP_SEGMENT, "finds the receiver's queue by the segment file");
	/* Without: the pages around the queue's header and the one slot written. */
	assert_true(sender_queue_pages(net, "loopback=0") < queue / 4);
	/* With: the whole queue at the first send, not page by page in the first lap. */
	assert_int_equal(sender_queue_pages(net, "prefault=1"), queue);
	assert_int_equal(sender_queue_pages(net, "lock=1"), queue);
}

struct seen {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	int policy;
	int priority;
	cpu_set_t cpus;
};

static void record_thread(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	struct seen *s = arg;
	struct sched_param sp;

	(void)node;
	(void)ev;
	pthread_mutex_lock(&s->lock);
	s->policy = sched_getscheduler(0);
	sched_getparam(0, &sp);
	s->priority = sp.sched_priority;
	sched_getaffinity(0, sizeof(s->cpus), &s->cpus);
	s->done = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Policy, priority and CPUs of the dispatcher, as it sees itself. */
static void dispatcher_facts(rfm_node *node, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	assert_int_equal(rfm_event_enable(node, RFM_EVENT_BIT(RFM_EVENT_INTR1)), 0);
	assert_int_equal(rfm_event_callback_register(node, RFM_EVENT_INTR1, record_thread, s), 0);
	assert_int_equal(rfm_event_send(node, (unsigned int)rfm_node_id(node), RFM_EVENT_INTR1, 1),
			 1);
	pthread_mutex_lock(&s->lock);
	assert_cond_wait_until(&s->cond, &s->lock, s->done, "the callback on the dispatcher");
	pthread_mutex_unlock(&s->lock);
	assert_int_equal(rfm_event_callback_unregister(node, RFM_EVENT_INTR1), 0);
}

/* Real-time priority @prio allowed to this process (tests run as root; others skip). */
static void require_rt_priority(int prio)
{
	struct rlimit lim;

	if (geteuid() != 0 && (getrlimit(RLIMIT_RTPRIO, &lim) || lim.rlim_cur < (rlim_t)prio)) {
		printf("  (not root and RLIMIT_RTPRIO < %d: skipped)\n", prio);
		skip();
	}
}

/* The last CPU this process may use: the one the library's threads are pinned to. */
static int last_cpu(void)
{
	cpu_set_t set;
	int last = -1;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	return last;
}

static void test_dispatcher_scheduling(void **state)
{
	struct harness_network *net = *state;
	char extra[128];
	struct seen s;
	rfm_node *node;
	int cpu = last_cpu();

	require_rt_priority(PRIO + 1);
	/* Default: the dispatcher runs as its creator, time-shared. */
	assert_int_equal(rfm_open(uri_with(net, "loopback=1"), &node), 0);
	dispatcher_facts(node, &s);
	assert_int_equal(s.policy, SCHED_OTHER);
	rfm_close(node);

	snprintf(extra, sizeof(extra), "loopback=1&rt_prio=%d&cpus=%d", PRIO, cpu);
	assert_int_equal(rfm_open(uri_with(net, extra), &node), 0);
	dispatcher_facts(node, &s);
	assert_int_equal(s.policy, SCHED_FIFO);
	assert_int_equal(s.priority, PRIO);
	assert_int_equal(CPU_COUNT(&s.cpus), 1);
	assert_true(CPU_ISSET(cpu, &s.cpus));
	rfm_close(node);

	/* The structure, with rr from the URI overriding its fifo. */
	struct rfm_open_options o;
	memset(&o, 0, sizeof(o));
	o.struct_size = sizeof(o);
	o.rt_policy = RFM_RT_FIFO;
	o.rt_priority = PRIO + 1;
	o.cpus[cpu / 64] = UINT64_C(1) << (cpu % 64);
	assert_int_equal(rfm_open_with_options(uri_with(net, "loopback=1&rt_policy=rr"), &o, &node),
			 0);
	dispatcher_facts(node, &s);
	assert_int_equal(s.policy, SCHED_RR);
	assert_int_equal(s.priority, PRIO + 1);
	assert_int_equal(CPU_COUNT(&s.cpus), 1);
	struct rfm_open_options got = { .struct_size = sizeof(got) };
	assert_int_equal(rfm_node_get_options(node, &got), 0);
	assert_int_equal(got.rt_policy, RFM_RT_RR);
	assert_int_equal(got.rt_priority, PRIO + 1);
	assert_int_equal(got.cpus[cpu / 64], UINT64_C(1) << (cpu % 64));
	rfm_close(node);
}

/* Threads of this process other than the caller that run SCHED_FIFO at @prio. */
static int fifo_threads(int prio)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		struct sched_param sp;

		if (tid <= 0 || tid == (pid_t)syscall(SYS_gettid))
			continue;
		if (sched_getscheduler(tid) == SCHED_FIFO && sched_getparam(tid, &sp) == 0 &&
		    sp.sched_priority == prio)
			n++;
	}
	closedir(d);
	return n;
}

static void test_heartbeat_scheduling(void **state)
{
	struct harness_network *net = *state;
	char extra[64];
	rfm_node *node;

	require_rt_priority(PRIO + 2);
	snprintf(extra, sizeof(extra), "rt_prio=%d", PRIO + 2);
	assert_int_equal(rfm_open(uri_with(net, extra), &node), 0);
	assert_int_equal(fifo_threads(PRIO + 2), 0);
	assert_int_equal(rfm_health_start(node, NULL), 0);
	assert_int_equal(fifo_threads(PRIO + 2), 1);
	assert_int_equal(rfm_health_stop(node), 0);
	rfm_close(node);
}

/* ---- without the right: children that drop capabilities ---- */

static void drop_caps(unsigned int cap_a, unsigned int cap_b)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	HARNESS_CHECK(syscall(SYS_capget, &hdr, data) == 0);
	for (int i = 0; i < 2; i++) {
		uint32_t mask = ~((cap_a / 32 == (unsigned int)i ? 1u << (cap_a % 32) : 0) |
				  (cap_b / 32 == (unsigned int)i ? 1u << (cap_b % 32) : 0));
		data[i].effective &= mask;
		data[i].permitted &= mask;
		data[i].inheritable &= mask;
	}
	HARNESS_CHECK(syscall(SYS_capset, &hdr, data) == 0);
}

struct verdict {
	int ret;
	char message[400];
};

struct unprivileged_args {
	const char *uri;
	rlim_t rtprio;
	rlim_t memlock;
};

static int open_unprivileged(struct harness_link *link, void *arg)
{
	const struct unprivileged_args *a = arg;
	struct rlimit rtprio = { a->rtprio, a->rtprio };
	struct rlimit memlock = { a->memlock, a->memlock };
	struct verdict v;
	rfm_node *node = NULL;

	HARNESS_CHECK(setrlimit(RLIMIT_RTPRIO, &rtprio) == 0);
	/* RLIM_INFINITY: keep the limit (raising it needs CAP_SYS_RESOURCE). */
	HARNESS_CHECK(a->memlock == RLIM_INFINITY || setrlimit(RLIMIT_MEMLOCK, &memlock) == 0);
	drop_caps(CAP_SYS_NICE, CAP_IPC_LOCK);
	memset(&v, 0, sizeof(v));
	v.ret = rfm_open(a->uri, &node);
	if (v.ret)
		snprintf(v.message, sizeof(v.message), "%s", rfm_last_error());
	else {
		struct seen s;

		/* Allowed by RLIMIT_RTPRIO alone: the dispatcher really runs at it. */
		dispatcher_facts(node, &s);
		snprintf(v.message, sizeof(v.message), "policy %d prio %d", s.policy, s.priority);
		rfm_close(node);
	}
	harness_link_send(link, &v, sizeof(v));
	return 0;
}

static struct verdict run_unprivileged(const char *uri, rlim_t rtprio, rlim_t memlock)
{
	struct unprivileged_args a = { uri, rtprio, memlock };
	struct harness_child child;
	struct verdict v;

	harness_child_start(&child, open_unprivileged, &a);
	assert_int_equal(harness_child_recv(&child, &v, sizeof(v)), 0);
	assert_int_equal(harness_child_wait(&child), 0);
	return v;
}

static void test_no_privilege(void **state)
{
	struct harness_network *net = *state;
	struct verdict v;
	char expect[64];

	if (geteuid() != 0) {
		printf("  (not root: cannot drop what it does not have; skipped)\n");
		skip();
	}
	v = run_unprivileged(uri_with(net, "rt_prio=80"), 0, RLIM_INFINITY);
	assert_int_equal(v.ret, RFM_EPERM);
	assert_non_null(strstr(v.message, "CAP_SYS_NICE"));
	assert_non_null(strstr(v.message, "RLIMIT_RTPRIO is 0"));
	assert_non_null(strstr(v.message, "ulimit -r 80"));

	/*
	 * RLIMIT_RTPRIO high enough is a right of its own; raising the hard
	 * limit needs CAP_SYS_RESOURCE, which containers often withhold.
	 */
	struct rlimit lim;
	assert_int_equal(getrlimit(RLIMIT_RTPRIO, &lim), 0);
	if (lim.rlim_max >= 80) {
		v = run_unprivileged(uri_with(net, "loopback=1&rt_prio=80"), 80, RLIM_INFINITY);
		assert_int_equal(v.ret, 0);
		snprintf(expect, sizeof(expect), "policy %d prio 80", SCHED_FIFO);
		assert_string_equal(v.message, expect);
	} else {
		printf("  (RLIMIT_RTPRIO hard limit %llu < 80: the rtprio-limit case is not run)\n",
		       (unsigned long long)lim.rlim_max);
	}

	if (!MLOCK_IS_REAL)
		return;
	v = run_unprivileged(uri_with(net, "lock=1"), 0, 64 * 1024);
	assert_int_equal(v.ret, RFM_ENOMEM);
	assert_non_null(strstr(v.message, "RLIMIT_MEMLOCK is 64 KiB"));
	assert_non_null(strstr(v.message, "1024 KiB"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_parameters, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_cpus_not_usable, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_struct, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_prefault_and_lock_window, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_prefault_event_queue, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_prefault_sender_queue, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_dispatcher_scheduling, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_heartbeat_scheduling, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_privilege, setup, harness_fixture_teardown),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
