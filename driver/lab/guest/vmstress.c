// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vmstress.c - what a distribution's maintainer checks before shipping
 * rfm.ko, in one guest (make vm-stress):
 *   - a read-only open writes nothing to the network, and maps read-only;
 *   - the ioctl interface: foreign requests (rpmsg's on the old magic),
 *     oversized ones, and random requests with bad arguments;
 *   - event-queue memory: many openers at the maximum depth stay within the
 *     module's cap (queue_limit_kib), the rest get ENOSPC; the same with
 *     a hog holding all but a little of the guest's memory, and inside a
 *     memory cgroup at its limit (ENOMEM): no OOM kill anywhere;
 *   - a blocked read() holds up neither FLUSH nor resizing;
 *   - a read() whose copy to user space faults returns the whole records
 *     before the fault (or EFAULT) and loses none of the others;
 *   - a read() whose copy is stalled (userfaultfd) holds up no other reader
 *     of the file, nor FLUSH, resizing or removal;
 *   - removal (sysfs) while threads mmap, DMA into faulting pages, block in
 *     read() and FLUSH: it completes, every thread ends with ENODEV; then a
 *     rescan brings the card back; three rounds;
 *   - unload and reload of the module, three rounds;
 *   - last, QEMU's device_del (vm-run.sh -H: an ACPI hot-unplug) under the
 *     same load: the card goes for good;
 *   - a foreign ivshmem-plain device (vm-run.sh -F) stays unbound (the host
 *     checks its memory afterwards);
 *   - every request of the UAPI from a static 32-bit program (the kernel's
 *     compat path) gives what it gives a 64-bit one (vmcompat.c).
 * A hang is reported as a failure once a generous deadline passes (the
 * deadline only guards against hanging forever; nothing measures time).
 */
#include <dirent.h>
#include <linux/userfaultfd.h>
#include <sys/mount.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "lab.h"

#define DEV "/dev/rfm0"
#define HANG_MS 30000	/* far beyond any legitimate wait in these tests */
#define OPENERS 40

static struct lab L;

static int open_card(int flags)
{
	int fd = open(DEV, flags | O_CLOEXEC);

	if (fd < 0)
		lab_fatal(&L, "open " DEV);
	return fd;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, text, strlen(text));
		close(fd);
	}
	CHECK(&L, n == (ssize_t)strlen(text), "write %s to %s: %s", text, path, strerror(errno));
}

static long read_number(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 0) : -1;
}

/* ---- running something that may hang: a thread and a deadline ---- */

struct job {
	pthread_t thread;
	void (*fn)(struct job *);
	int fd;
	long ret;
	int err;
	int done;		/* set (release) when fn returned */
	int started;		/* set (release) just before the blocking call */
	pid_t tid;
	const char *path;	/* for jobs that write a sysfs file */
	void *buf;		/* for jobs that read records */
	size_t len;
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->tid = (pid_t)syscall(SYS_gettid);
	j->fn(j);
	lab_store(&j->done, 1);
	return NULL;
}

static void job_start(struct job *j, void (*fn)(struct job *), int fd)
{
	j->fn = fn;
	j->fd = fd;
	j->done = 0;
	j->started = 0;
	if (pthread_create(&j->thread, NULL, job_main, j))
		lab_fatal(&L, "pthread_create");
}

/* Wait for a job to end; false (and the thread left alone) on a hang. */
static bool job_wait(struct job *j, const char *what)
{
	uint64_t deadline = lab_now_ns() + (uint64_t)HANG_MS * 1000000u;

	while (!lab_load(&j->done)) {
		if (lab_now_ns() > deadline) {
			CHECK(&L, false, "%s did not return within %d ms: hung", what, HANG_MS);
			return false;
		}
		usleep(2000);
	}
	pthread_join(j->thread, NULL);
	return true;
}

/* Wait for the three load loops, each even when another one hung. */
static bool load_wait(struct job *mapper, struct job *dma, struct job *flusher)
{
	bool a = job_wait(mapper, "the mmap loop");
	bool b = job_wait(dma, "the DMA loop");
	bool c = job_wait(flusher, "the FLUSH loop");

	return a && b && c;
}

/* The job's thread sleeps (state S) after announcing its blocking call. */
static bool job_wait_asleep(struct job *j)
{
	char path[64], stat[256];
	uint64_t deadline = lab_now_ns() + (uint64_t)HANG_MS * 1000000u;

	while (!lab_load(&j->started))
		sched_yield();
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)j->tid);
	while (lab_now_ns() < deadline) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
		char *p;

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			stat[n] = 0;
			p = strrchr(stat, ')');
			if (p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D'))
				return true;
		}
		if (lab_load(&j->done))
			return false;
		sched_yield();
	}
	return false;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* ---- read-only opens ---- */

static void t_read_only(void)
{
	int rw = open_card(O_RDWR), ro = open_card(O_RDONLY);
	struct rfm_dev_info info;
	uint32_t v;
	uint8_t buf[64];

	lab_begin(&L, "a read-only open cannot write, and maps read-only");
	CHECK_OK(&L, ioctl(ro, RFM_IOC_GET_INFO, &info));
	/* Nothing that reaches the network or the card. */
	CHECK_ERRNO(&L, lab_send(ro, RFM_DEV_EV_RESET, RFM_DEV_NODE_ALL, 0, 0), EBADF);
	CHECK_ERRNO(&L, lab_send(ro, RFM_DEV_EV_INTR1, info.node_id, 7, RFM_DEV_SEND_LOOPBACK),
		    EBADF);
	struct rfm_dev_dma d = { .offset = LAB_DATA_OFFSET, .length = sizeof(buf),
				 .buf = (uintptr_t)buf, .dir = RFM_DEV_DMA_TO_CARD };
	memset(buf, 0xa5, sizeof(buf));
	CHECK_ERRNO(&L, ioctl(ro, RFM_IOC_DMA, &d), EBADF);
	CHECK_ERRNO(&L, ioctl(ro, RFM_IOC_RING_TEST), EBADF);
	v = info.node_id;
	CHECK_ERRNO(&L, ioctl(ro, RFM_IOC_DIAG_KICK, &v), EBADF);
	/* Per-file settings and reading are fine. */
	v = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1);
	CHECK_OK(&L, ioctl(ro, RFM_IOC_SET_MASK, &v));
	v = 64;
	CHECK_OK(&L, ioctl(ro, RFM_IOC_SET_QUEUE_DEPTH, &v));
	CHECK_OK(&L, ioctl(ro, RFM_IOC_FLUSH));

	/* The window as the writer left it: read through DMA and a read-only map. */
	uint32_t stamp = 0x5eed0000u | (uint32_t)getpid();
	d = (struct rfm_dev_dma){ .offset = LAB_DATA_OFFSET, .length = 4,
				  .buf = (uintptr_t)&stamp, .dir = RFM_DEV_DMA_TO_CARD };
	CHECK_OK(&L, ioctl(rw, RFM_IOC_DMA, &d));
	uint32_t back = 0;
	d = (struct rfm_dev_dma){ .offset = LAB_DATA_OFFSET, .length = 4,
				  .buf = (uintptr_t)&back, .dir = RFM_DEV_DMA_FROM_CARD };
	CHECK_OK(&L, ioctl(ro, RFM_IOC_DMA, &d));
	CHECK_EQ(&L, back, stamp);
	uint8_t *map = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(&L, map != MAP_FAILED, "mmap(PROT_READ, MAP_SHARED) of a read-only open: %s",
	      strerror(errno));
	if (map != MAP_FAILED) {
		CHECK_EQ(&L, *(volatile uint32_t *)(map + LAB_DATA_OFFSET), stamp);
		CHECK_ERRNO(&L, mprotect(map, 4096, PROT_READ | PROT_WRITE), EACCES);
		munmap(map, 2 * 4096);
	}
	CHECK_ERRNO(&L, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES);
	close(ro);
	close(rw);
	lab_end(&L);
}

/* ---- the ioctl interface ---- */

static bool allowed_errno(int e)
{
	switch (e) {
	case ENOTTY: case EINVAL: case EFAULT: case E2BIG: case EBADF: case EHOSTUNREACH:
	case EBUSY: case EOPNOTSUPP: case ETIMEDOUT: case ENOSPC: case EINTR: case ENOMEM:
		return true;
	default:
		return false;
	}
}

static void t_ioctls(void)
{
	int fd = open_card(O_RDWR | O_NONBLOCK);
	struct rfm_dev_event ev;
	struct rfm_dev_info info;
	uint32_t mask = RFM_DEV_MASK_ALL & ~RFM_DEV_EV_BIT(RFM_DEV_EV_OVERFLOW);
	static uint8_t page[5 * 4096] __attribute__((aligned(4096))); /* > any _IOC_SIZE */
	struct itimerval tick = { { 0, 20000 }, { 0, 20000 } };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned int seed = 12345;
	int bad = 0;

	lab_begin(&L, "foreign, oversized and random ioctls fail cleanly");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, &info));
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	/*
	 * rpmsg's RPMSG_CREATE_EPT_IOCTL, zeroed: on the old magic it was an
	 * RFM_IOC_SEND of a RESET to node 0. It must not be ours.
	 */
	struct {
		char name[32];
		uint32_t src, dst;
	} ept = { "", 0, 0 };
	CHECK_ERRNO(&L, ioctl(fd, _IOW(0xb5, 0x1, ept), &ept), ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOW(0xb5, 0x0, struct rfm_dev_info), &info), ENOTTY);
	/* Sizes: exact for __u32 requests, at most a page for structures. */
	memset(page, 0, sizeof(page));
	CHECK_ERRNO(&L, ioctl(fd, _IOW(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_SEND), char[8192]), page),
		    ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOR(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_GET_INFO), char[8192]),
			      page), ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOW(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_SET_MASK), uint64_t), page),
		    ENOTTY);
	CHECK_ERRNO(&L, ioctl(fd, _IOW(RFM_IOC_MAGIC, _IOC_NR(RFM_IOC_FLUSH), uint32_t), page),
		    ENOTTY);
	CHECK_ERRNO(&L, read(fd, &ev, sizeof(ev)), EAGAIN);	/* nothing was sent */

	/* Random requests; a timer signal ends any wait they start. */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);
	void *gone = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < 20000; i++) {
		unsigned int nr = (unsigned int)rand_r(&seed) % 0x30;
		unsigned int dir = (unsigned int)rand_r(&seed) % 4;
		unsigned int size = (unsigned int)rand_r(&seed) % 5 == 0 ?
			(unsigned int)rand_r(&seed) % 0x3fff : (unsigned int)rand_r(&seed) % 80;
		unsigned int type = (unsigned int)rand_r(&seed) % 16 == 0 ? 0xb5 : RFM_IOC_MAGIC;
		unsigned long cmd = _IOC(dir, type, nr, size);
		void *arg;

		for (size_t k = 0; k < 256; k++)
			page[k] = (uint8_t)rand_r(&seed);
		switch (rand_r(&seed) % 4) {
		case 0: arg = NULL; break;
		case 1: arg = gone; break;
		case 2: /* a kernel address: never ours to touch */
			arg = (void *)(uintptr_t)(0xffffffff81000000ull + (unsigned int)rand_r(&seed));
			break;
		default: arg = page; break;
		}
		errno = 0;
		long r = ioctl(fd, cmd, arg);
		if (r < 0 && !allowed_errno(errno)) {
			if (bad++ < 5)
				CHECK(&L, false, "ioctl 0x%lx: errno %d (%s)", cmd, errno,
				      strerror(errno));
		}
		/* Drain what random sends delivered, so queues stay small. */
		while (read(fd, page, 4096) > 0)
			;
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	munmap(gone, 4096);
	CHECK_EQ(&L, bad, 0);
	/* Still a working card afterwards. */
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, &info));
	close(fd);
	lab_end(&L);
}

/* ---- queue memory ---- */

static long mem_available_kib(void)
{
	char buf[4096];
	int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	char *p;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "MemAvailable:");
	return p ? strtol(p + 13, NULL, 10) : -1;
}

static void t_queue_memory(void)
{
	long limit_kib = read_number("/sys/module/rfm/parameters/queue_limit_kib");
	/* Queues are whole pages. */
	uint64_t per_max = ((uint64_t)(RFM_DEV_QUEUE_MAX + 1) * sizeof(struct rfm_dev_event) +
			    4095) & ~4095ull;
	uint64_t per_default = ((uint64_t)(RFM_DEV_QUEUE_DEFAULT + 1) *
				sizeof(struct rfm_dev_event) + 4095) & ~4095ull;
	long before = mem_available_kib();
	int fds[OPENERS], opened = 0, grown = 0, refused = 0, other = 0;

	lab_begin(&L, "many openers at the maximum depth stay within the cap");
	CHECK(&L, limit_kib > 0, "no queue_limit_kib module parameter");
	if (limit_kib <= 0)
		limit_kib = 1 << 30;
	for (int i = 0; i < OPENERS; i++) {
		uint32_t depth = RFM_DEV_QUEUE_MAX;

		fds[i] = open(DEV, O_RDWR | O_CLOEXEC);
		if (fds[i] < 0) {
			if (errno == ENOSPC)
				refused++;
			else
				other++;
			continue;
		}
		opened++;
		if (ioctl(fds[i], RFM_IOC_SET_QUEUE_DEPTH, &depth) == 0)
			grown++;
		else if (errno == ENOSPC)
			refused++;
		else
			other++;
	}
	long during = mem_available_kib();
	uint64_t charged = grown * per_max + (uint64_t)(opened - grown) * per_default;
	printf("# %d opened, %d at depth %u, %d refused (ENOSPC); cap %ld KiB; MemAvailable %ld -> %ld KiB\n",
	       opened, grown, RFM_DEV_QUEUE_MAX, refused, limit_kib, before, during);
	CHECK_EQ(&L, other, 0);
	CHECK(&L, grown >= 1, "not even one queue at the maximum depth");
	CHECK(&L, charged <= (uint64_t)limit_kib * 1024, "%" PRIu64 " bytes of queues over the cap",
	      charged);
	CHECK(&L, refused > 0, "all %d openers got the maximum depth", OPENERS);
	/* Memory taken stays near the cap (slack: allocator rounding, file structs). */
	CHECK(&L, before - during < limit_kib + 8192, "MemAvailable fell by %ld KiB",
	      before - during);
	for (int i = 0; i < OPENERS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* All of it comes back: the full set fits again. */
	int fd = open_card(O_RDWR);
	uint32_t depth = RFM_DEV_QUEUE_MAX;
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth));
	close(fd);
	lab_end(&L);
}

/* ---- queue memory under memory pressure ---- */

#define MIB (1024 * 1024)
#define CGROUP "/sys/fs/cgroup/rfm-vmstress"

static long vmstat_value(const char *name)
{
	static char buf[16384];
	int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	size_t len = strlen(name);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, name, len) && line[len] == ' ')
			return strtol(line + len + 1, NULL, 10);
	return -1;
}

struct open_counts {
	int opened, grown, enospc, enomem, other, last_other;
};

static void count_errno(struct open_counts *c, int e)
{
	if (e == ENOSPC)
		c->enospc++;
	else if (e == ENOMEM)
		c->enomem++;
	else {
		c->other++;
		c->last_other = e;
	}
}

/* OPENERS opens, each asking for the maximum depth; the files stay open. */
static void open_at_max(int *fds, struct open_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < OPENERS; i++) {
		uint32_t depth = RFM_DEV_QUEUE_MAX;

		fds[i] = open(DEV, O_RDWR | O_CLOEXEC);
		if (fds[i] < 0) {
			count_errno(c, errno);
			continue;
		}
		c->opened++;
		if (ioctl(fds[i], RFM_IOC_SET_QUEUE_DEPTH, &depth) == 0)
			c->grown++;
		else
			count_errno(c, errno);
	}
}

/*
 * As open_at_max(), but every file opened first and only then every queue
 * grown, and all closed before returning: inside a memory cgroup at its
 * limit the queues' growth is then the only memory charged (the kernel's
 * file structures and the caller's own pages are taken while there is
 * room), so an OOM kill can only come from a queue allocation.
 */
static void open_then_grow(int *fds, struct open_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < OPENERS; i++) {
		fds[i] = open(DEV, O_RDWR | O_CLOEXEC);
		if (fds[i] < 0)
			count_errno(c, errno);
		else
			c->opened++;
	}
	for (int i = 0; i < OPENERS; i++) {
		uint32_t depth = RFM_DEV_QUEUE_MAX;

		if (fds[i] < 0)
			continue;
		if (ioctl(fds[i], RFM_IOC_SET_QUEUE_DEPTH, &depth) == 0)
			c->grown++;
		else
			count_errno(c, errno);
	}
	for (int i = 0; i < OPENERS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * A child that takes memory and holds it: into @cgroup (if any), first
 * in line for the OOM killer, touching 1 MiB at a time until it holds
 * @take_mib or MemAvailable is down to @leave_kib. Returns its PID once it
 * says it holds its memory (-1 on failure).
 */
static pid_t start_hog(const char *cgroup, long take_mib, long leave_kib)
{
	int p[2];
	char ok = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open("/proc/self/oom_score_adj", O_WRONLY);

		if (fd >= 0 && write(fd, "1000", 4) != 4)
			_exit(1);
		if (cgroup) {
			char procs[128];

			snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
			fd = open(procs, O_WRONLY);
			if (fd < 0 || write(fd, "0", 1) != 1)
				_exit(1);
		}
		for (long held = 0; held < take_mib && mem_available_kib() > leave_kib; held++) {
			char *m = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				       -1, 0);
			if (m == MAP_FAILED)
				break;
			memset(m, 0x5a, MIB);
		}
		if (write(p[1], "1", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &ok, 1) != 1 || ok != '1') {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* Ends the hog; true when it was still alive (not OOM-killed meanwhile). */
static bool stop_hog(pid_t pid)
{
	int st;
	bool alive = waitpid(pid, &st, WNOHANG) == 0;

	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return alive;
}

static void print_counts(const char *what, const struct open_counts *c)
{
	printf("# %s: %d opened, %d at depth %u, %d ENOSPC, %d ENOMEM, %d other (errno %d)\n", what,
	       c->opened, c->grown, RFM_DEV_QUEUE_MAX, c->enospc, c->enomem, c->other,
	       c->last_other);
}

static uint64_t queue_bytes(const struct open_counts *c)
{
	uint64_t per_max = ((uint64_t)(RFM_DEV_QUEUE_MAX + 1) * sizeof(struct rfm_dev_event) +
			    4095) & ~4095ull;
	uint64_t per_default = ((uint64_t)(RFM_DEV_QUEUE_DEFAULT + 1) *
				sizeof(struct rfm_dev_event) + 4095) & ~4095ull;

	return c->grown * per_max + (uint64_t)(c->opened - c->grown) * per_default;
}

/* After a pressure test: every queue came back, the full depth fits again. */
static void check_memory_back(void)
{
	int fd = open_card(O_RDWR);
	uint32_t depth = RFM_DEV_QUEUE_MAX;

	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth));
	close(fd);
}

static void t_queue_memory_hog(void)
{
	long limit_kib = read_number("/sys/module/rfm/parameters/queue_limit_kib");
	long oom_before = vmstat_value("oom_kill");
	struct open_counts c;
	int fds[OPENERS];

	lab_begin(&L, "many openers at the maximum depth beside a memory hog: no OOM kill");
	CHECK(&L, oom_before >= 0, "no oom_kill in /proc/vmstat");
	/* All but the cap and 8 MiB: the cap must stop the queues, not the OOM killer. */
	pid_t hog = start_hog(NULL, 1 << 20, limit_kib + 8192);
	CHECK(&L, hog > 0, "the hog did not start");
	long avail = mem_available_kib();
	open_at_max(fds, &c);
	print_counts("beside the hog", &c);
	printf("# MemAvailable with the hog: %ld KiB, after the opens: %ld KiB; cap %ld KiB\n", avail,
	       mem_available_kib(), limit_kib);
	CHECK_EQ(&L, c.other, 0);
	CHECK(&L, c.enospc + c.enomem > 0, "all %d openers got the maximum depth", OPENERS);
	CHECK(&L, queue_bytes(&c) <= (uint64_t)limit_kib * 1024, "queues over the cap");
	for (int i = 0; i < OPENERS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (hog > 0)
		CHECK(&L, stop_hog(hog), "the hog was killed (OOM)");
	CHECK_EQ(&L, vmstat_value("oom_kill"), oom_before);
	check_memory_back();
	lab_end(&L);
}

static bool write_cgroup_file(const char *file, const char *text)
{
	char path[128];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), CGROUP "/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (fd >= 0)
		close(fd);
	return ok;
}

static long cgroup_event(const char *name)
{
	char buf[1024], *p;
	int fd = open(CGROUP "/memory.events", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (p = buf; (p = strstr(p, name)); p++)
		if ((p == buf || p[-1] == '\n') && p[strlen(name)] == ' ')
			return strtol(p + strlen(name) + 1, NULL, 10);
	return -1;
}

/*
 * Queues are charged to the opener's memory cgroup: at its limit (a hog in
 * the same group holds most of it) the openers get ENOMEM, and nobody in
 * the group is OOM-killed.
 */
static void t_queue_memory_cgroup(void)
{
	long oom_before = vmstat_value("oom_kill");
	struct open_counts c = { 0 };
	int p[2], st = -1;

	lab_begin(&L, "many openers at the maximum depth in a memory cgroup at its limit: ENOMEM, no OOM kill");
	if (mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL) && errno != EBUSY)
		CHECK(&L, false, "mount cgroup2: %s", strerror(errno));
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	CHECK(&L, mkdir(CGROUP, 0755) == 0 || errno == EEXIST, "mkdir " CGROUP ": %s", strerror(errno));
	/* 24 MiB, 16 of them the hog's: less left than queue_limit_kib allows. */
	CHECK(&L, write_cgroup_file("memory.max", "25165824"), "memory.max: %s", strerror(errno));
	pid_t hog = start_hog(CGROUP, 16, 0);
	CHECK(&L, hog > 0, "the hog did not start");
	CHECK(&L, pipe(p) == 0, "pipe");
	pid_t opener = fork();
	if (opener == 0) {
		int fds[OPENERS];

		if (!write_cgroup_file("cgroup.procs", "0"))
			_exit(2);
		open_then_grow(fds, &c);
		_exit(write(p[1], &c, sizeof(c)) == sizeof(c) ? 0 : 3);
	}
	close(p[1]);
	ssize_t n = read(p[0], &c, sizeof(c));
	close(p[0]);
	waitpid(opener, &st, 0);
	print_counts("in the cgroup", &c);
	printf("# cgroup memory.events: oom %ld, oom_kill %ld\n", cgroup_event("oom"),
	       cgroup_event("oom_kill"));
	CHECK(&L, WIFEXITED(st) && WEXITSTATUS(st) == 0, "the opener died (status %#x: %s)", st,
	      WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
	CHECK_EQ(&L, n, (ssize_t)sizeof(c));
	CHECK_EQ(&L, c.other, 0);
	CHECK(&L, c.enomem > 0, "no ENOMEM at the cgroup's limit (uncharged queues, or room made by the OOM killer)");
	CHECK(&L, c.grown >= 1, "not even one queue at the maximum depth");
	if (hog > 0)
		CHECK(&L, stop_hog(hog), "the hog was killed (OOM)");
	CHECK_EQ(&L, cgroup_event("oom_kill"), 0);
	CHECK_EQ(&L, vmstat_value("oom_kill"), oom_before);
	rmdir(CGROUP);
	check_memory_back();
	lab_end(&L);
}

/* ---- a blocked reader ---- */

static void job_read(struct job *j)
{
	struct rfm_dev_event ev;

	lab_store(&j->started, 1);
	j->ret = read(j->fd, &ev, sizeof(ev));
	j->err = errno;
}

static void job_flush(struct job *j)
{
	j->ret = ioctl(j->fd, RFM_IOC_FLUSH);
	j->err = errno;
}

static void job_resize(struct job *j)
{
	uint32_t depth = 2048;

	j->ret = ioctl(j->fd, RFM_IOC_SET_QUEUE_DEPTH, &depth);
	j->err = errno;
}

static void t_blocked_reader(void)
{
	int fd = open_card(O_RDWR);
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR2);
	struct job reader = { 0 }, flush = { 0 }, resize = { 0 };

	lab_begin(&L, "a blocked read() holds up neither FLUSH nor resizing");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	job_start(&reader, job_read, fd);
	CHECK(&L, job_wait_asleep(&reader), "the reader did not block");
	job_start(&flush, job_flush, fd);
	bool flushed = job_wait(&flush, "FLUSH beside a blocked read()");
	if (flushed)
		CHECK_EQ(&L, flush.ret, 0);
	job_start(&resize, job_resize, fd);
	bool resized = job_wait(&resize, "SET_QUEUE_DEPTH beside a blocked read()");
	if (resized)
		CHECK_EQ(&L, resize.ret, 0);
	/* An event ends the read. */
	struct rfm_dev_info info;
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, &info));
	CHECK_OK(&L, lab_send(fd, RFM_DEV_EV_INTR2, info.node_id, 5, RFM_DEV_SEND_LOOPBACK));
	if (!job_wait(&reader, "read() after an event arrived"))
		pthread_kill(reader.thread, SIGUSR1);
	CHECK_EQ(&L, reader.ret, sizeof(struct rfm_dev_event));
	if (!flushed || !resized) {
		/* Old drivers: let the stuck ones finish before going on. */
		job_wait(&flush, "FLUSH after the reader left");
		job_wait(&resize, "SET_QUEUE_DEPTH after the reader left");
	}
	close(fd);
	lab_end(&L);
}

/* ---- removal under load ---- */

static volatile int stop_load;

static void job_mmap_loop(struct job *j)
{
	j->ret = 0;
	lab_store(&j->started, 1);
	while (!stop_load) {
		void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, j->fd, 0);

		if (p == MAP_FAILED) {
			j->ret = -1;
			j->err = errno;
			return;
		}
		/* Not touched: once revoked, an access is SIGBUS (vmtest checks that). */
		munmap(p, 1 << 20);
	}
}

/* DMA into fresh pages each round: every copy to the user faults. */
static void job_dma_loop(struct job *j)
{
	lab_store(&j->started, 1);
	while (!stop_load) {
		size_t len = 256 << 10;
		void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct rfm_dev_dma d = { .offset = LAB_DATA_OFFSET, .length = len,
					 .buf = (uintptr_t)buf, .dir = RFM_DEV_DMA_FROM_CARD };
		long r = ioctl(j->fd, RFM_IOC_DMA, &d);
		int e = errno;

		munmap(buf, len);
		if (r < 0) {
			j->ret = -1;
			j->err = e;
			return;
		}
	}
}

static void job_flush_loop(struct job *j)
{
	lab_store(&j->started, 1);
	while (!stop_load) {
		if (ioctl(j->fd, RFM_IOC_FLUSH) < 0) {
			j->ret = -1;
			j->err = errno;
			return;
		}
	}
}

static void job_remove(struct job *j)
{
	int fd = open(j->path, O_WRONLY | O_CLOEXEC);

	j->ret = fd >= 0 ? write(fd, "1", 1) : -1;
	j->err = errno;
	if (fd >= 0)
		close(fd);
}

static bool card_pci_path(char *out, size_t size)
{
	char link[256];
	ssize_t n = readlink("/sys/class/rfm/rfm0/device", link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = 0;
	snprintf(out, size, "/sys/bus/pci/devices/%s/remove", strrchr(link, '/') + 1);
	return true;
}

static bool wait_for_card(void)
{
	uint64_t deadline = lab_now_ns() + (uint64_t)HANG_MS * 1000000u;
	struct stat st;

	while (stat(DEV, &st) != 0) {
		if (lab_now_ns() > deadline)
			return false;
		usleep(5000);
	}
	return true;
}

/* ---- copies to user space that fault or stall ---- */

#define REC sizeof(struct rfm_dev_event)

/* Queues @n loopback INTR4 records with data 0..n-1. */
static void queue_records(int fd, uint32_t n)
{
	struct rfm_dev_info info;

	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_INFO, &info));
	for (uint32_t i = 0; i < n; i++)
		CHECK_OK(&L, lab_send(fd, RFM_DEV_EV_INTR4, info.node_id, i, RFM_DEV_SEND_LOOPBACK));
}

/*
 * Checks @n records in @buf: data @data0.. and consecutive sequence numbers
 * from @seq0 (any when 0). Returns the first one's.
 */
static uint64_t check_records(const void *buf, size_t n, uint32_t data0, uint64_t seq0)
{
	const struct rfm_dev_event *ev = buf;

	for (size_t i = 0; i < n; i++) {
		CHECK(&L, ev[i].type == RFM_DEV_EV_INTR4 && ev[i].data == data0 + i,
		      "record %zu: type %u data %u, expected data %u", i, ev[i].type, ev[i].data,
		      (unsigned)(data0 + i));
		if (seq0)
			CHECK(&L, ev[i].seq == seq0 + i, "record %zu: seq %llu, expected %llu", i,
			      (unsigned long long)ev[i].seq, (unsigned long long)(seq0 + i));
	}
	return n ? ev[0].seq : 0;
}

static void t_read_fault(void)
{
	int fd = open_card(O_RDWR | O_NONBLOCK);
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR4);
	struct rfm_dev_event good[16];
	struct rfm_dev_counters c;
	char *base = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	lab_begin(&L, "a read() that faults mid-copy delivers whole records and loses none");
	CHECK(&L, base != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK_OK(&L, mprotect(base + 4096, 4096, PROT_NONE));
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	queue_records(fd, 12);
	/* Three records fit before the inaccessible page. */
	char *three = base + 4096 - 3 * REC;
	CHECK_EQ(&L, read(fd, three, 12 * REC), (ssize_t)(3 * REC));
	uint64_t seq0 = check_records(three, 3, 0, 0);
	CHECK_EQ(&L, read(fd, three, 12 * REC), (ssize_t)(3 * REC));
	check_records(three, 3, 3, seq0 + 3);
	/* Two and a half: the half-written record is delivered again later. */
	char *half = base + 4096 - 2 * REC - REC / 2;
	CHECK_EQ(&L, read(fd, half, 12 * REC), (ssize_t)(2 * REC));
	check_records(half, 2, 6, seq0 + 6);
	/* Nothing fits: EFAULT, nothing consumed. */
	CHECK_ERRNO(&L, read(fd, base + 4096, 12 * REC), EFAULT);
	CHECK_ERRNO(&L, read(fd, base + 4096 - REC / 2, 12 * REC), EFAULT);
	CHECK_EQ(&L, read(fd, good, sizeof(good)), (ssize_t)(4 * REC));
	check_records(good, 4, 8, seq0 + 8);
	CHECK_ERRNO(&L, read(fd, good, sizeof(good)), EAGAIN);
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_COUNTERS, &c));
	CHECK_EQ(&L, c.file_queued, 12);
	CHECK_EQ(&L, c.file_dropped, 0);
	munmap(base, 8192);
	close(fd);
	lab_end(&L);
}

static void job_read_buf(struct job *j)
{
	lab_store(&j->started, 1);
	j->ret = read(j->fd, j->buf, j->len);
	j->err = errno;
}

/*
 * A page registered with userfaultfd: the first touch (the driver's copy)
 * stalls until we resolve it. Returns the page or NULL.
 */
static char *stalling_page(int *uffd)
{
	struct uffdio_api api = { .api = UFFD_API };
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	CHECK(&L, *uffd >= 0, "userfaultfd: %s", strerror(errno));
	if (*uffd < 0 || page == MAP_FAILED)
		return NULL;
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)page, .len = 4096 },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	CHECK_OK(&L, ioctl(*uffd, UFFDIO_API, &api));
	CHECK_OK(&L, ioctl(*uffd, UFFDIO_REGISTER, &reg));
	return page;
}

/* Waits until some thread's fault on the page is pending: it is stalled. */
static bool wait_stalled(int uffd, char *page)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, HANG_MS) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		return false;
	return msg.event == UFFD_EVENT_PAGEFAULT &&
	       (msg.arg.pagefault.address & ~4095ull) == (uintptr_t)page;
}

static void resolve_stall(int uffd, char *page)
{
	struct uffdio_zeropage z = { .range = { .start = (uintptr_t)page, .len = 4096 } };

	CHECK_OK(&L, ioctl(uffd, UFFDIO_ZEROPAGE, &z));
}

/*
 * @remove: the card is removed while the copy is stalled (another reader of
 * the file then gets ENODEV, the stalled reader its records).
 */
static bool t_stalled_copy(bool remove)
{
	int fd = open_card(O_RDWR), uffd = -1;
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR4), depth = 2048;
	uint32_t total = remove ? 20 : 40, first;
	struct rfm_dev_event rest[64];
	struct job a = { 0 }, b = { 0 }, flush = { 0 }, resize = { 0 }, remover = { 0 };
	char remove_path[256];
	bool ok = true;

	lab_begin(&L, remove ? "removal while a read()'s copy is stalled (userfaultfd)"
			     : "a read() whose copy is stalled holds up no other reader, FLUSH or resizing");
	char *page = stalling_page(&uffd);
	if (!page) {
		close(fd);
		lab_end(&L);
		return true;
	}
	if (remove)
		CHECK(&L, card_pci_path(remove_path, sizeof(remove_path)), "no PCI device for rfm0");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	queue_records(fd, total);
	a.buf = page;
	a.len = total * REC;
	job_start(&a, job_read_buf, fd);
	CHECK(&L, wait_stalled(uffd, page), "the reader's copy did not reach the page");

	if (remove) {
		remover.path = remove_path;
		job_start(&remover, job_remove, -1);
		if (job_wait(&remover, "sysfs remove beside a stalled copy"))
			CHECK_EQ(&L, remover.ret, 1);
	}
	/* Another reader of the same file: the rest of the queue, or ENODEV. */
	b.buf = rest;
	b.len = sizeof(rest);
	job_start(&b, job_read_buf, fd);
	bool b_done = job_wait(&b, "a second read() beside a stalled copy");
	if (b_done && remove)
		CHECK(&L, b.ret == -1 && b.err == ENODEV, "read: %ld errno %d", b.ret, b.err);
	/* Without removal: the records the stalled reader did not take (if any). */
	uint32_t b_got = b_done && !remove && b.ret > 0 ? (uint32_t)(b.ret / REC) : 0;
	if (!remove) {
		job_start(&flush, job_flush, fd);
		if (job_wait(&flush, "FLUSH beside a stalled copy"))
			CHECK_EQ(&L, flush.ret, 0);
		job_start(&resize, job_resize, fd);
		/* Records out with the stalled reader still count: EBUSY, at once. */
		if (job_wait(&resize, "SET_QUEUE_DEPTH beside a stalled copy"))
			CHECK(&L, resize.ret == -1 && resize.err == EBUSY, "resize: %ld errno %d",
			      resize.ret, resize.err);
	}
	/* Let the copy go on: the stalled reader gets its records, in order. */
	resolve_stall(uffd, page);
	if (!job_wait(&a, "the stalled read() after its page arrived"))
		return false;
	first = a.ret > 0 ? (uint32_t)(a.ret / REC) : 0;
	CHECK(&L, a.ret > 0 && a.ret % REC == 0, "stalled read: %ld errno %d", a.ret, a.err);
	uint64_t seq0 = check_records(page, first, 0, 0);
	/* Between them, every record once, in order. */
	CHECK(&L, first + b_got == total, "%u + %u records read, %u queued", first, b_got, total);
	if (b_got)
		check_records(rest, b_got, first, seq0 + first);
	if (!b_done) {
		/* Old drivers: the second reader may now wait for records that never come. */
		pthread_kill(b.thread, SIGUSR1);
		if (!job_wait(&b, "the second read() after the copy ended"))
			return false;
	}
	if (!remove) {
		if (!job_wait(&flush, "FLUSH after the copy ended") ||
		    !job_wait(&resize, "SET_QUEUE_DEPTH after the copy ended"))
			ok = false;
		/* Nothing left, nothing duplicated; now idle, it resizes. */
		int nb = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, nb | O_NONBLOCK);
		CHECK_ERRNO(&L, read(fd, rest, sizeof(rest)), EAGAIN);
		CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth));
	}
	close(uffd);
	munmap(page, 4096);
	close(fd);
	if (remove) {
		write_file("/sys/bus/pci/rescan", "1");
		CHECK(&L, wait_for_card(), DEV " did not come back after a rescan");
	}
	lab_end(&L);
	return ok;
}

static bool t_removal_round(int round)
{
	char remove_path[256];
	struct job mapper = { 0 }, dma = { 0 }, reader = { 0 }, flusher = { 0 }, remover = { 0 };
	int fd = open_card(O_RDWR);
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR3);
	bool ok = true;

	lab_begin(&L, round == 0 ? "removal under mmap, DMA, a blocked read and FLUSH"
				 : "removal again after a rescan");
	CHECK(&L, card_pci_path(remove_path, sizeof(remove_path)), "no PCI device for rfm0");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	volatile uint32_t *page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(&L, page != MAP_FAILED, "mmap: %s", strerror(errno));

	stop_load = 0;
	job_start(&reader, job_read, fd);
	CHECK(&L, job_wait_asleep(&reader), "the reader did not block");
	job_start(&mapper, job_mmap_loop, fd);
	job_start(&dma, job_dma_loop, fd);
	job_start(&flusher, job_flush_loop, fd);
	while (!lab_load(&mapper.started) || !lab_load(&dma.started) || !lab_load(&flusher.started))
		sched_yield();

	remover.path = remove_path;
	job_start(&remover, job_remove, -1);
	if (!job_wait(&remover, "sysfs remove under load")) {
		/* Old drivers: wake the reader, which lets removal go on. */
		pthread_kill(reader.thread, SIGUSR1);
		ok = job_wait(&remover, "sysfs remove after the reader was signalled");
		if (!ok)
			return false;
	} else {
		CHECK_EQ(&L, remover.ret, 1);
	}
	if (!job_wait(&reader, "the blocked read() after removal"))
		return false;
	CHECK(&L, reader.ret == -1 && reader.err == ENODEV, "read: %ld errno %d", reader.ret,
	      reader.err);
	stop_load = 1;
	ok = load_wait(&mapper, &dma, &flusher);
	if (!ok)
		return false;
	/* Each loop either saw the removal (ENODEV) or was stopped first. */
	CHECK(&L, mapper.ret == 0 || mapper.err == ENODEV, "mmap: errno %d", mapper.err);
	CHECK(&L, dma.ret == 0 || dma.err == ENODEV, "DMA: errno %d", dma.err);
	CHECK(&L, flusher.ret == 0 || flusher.err == ENODEV, "FLUSH: errno %d", flusher.err);
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_FLUSH), ENODEV);
	if (page != MAP_FAILED)
		munmap((void *)page, 4096);
	close(fd);

	/* The card comes back with a rescan (the driver still claims the id). */
	write_file("/sys/bus/pci/rescan", "1");
	CHECK(&L, wait_for_card(), DEV " did not come back after a rescan");
	int again = open(DEV, O_RDWR | O_CLOEXEC);
	struct rfm_dev_info info;
	CHECK(&L, again >= 0, "open after rescan: %s", strerror(errno));
	if (again >= 0) {
		CHECK_OK(&L, ioctl(again, RFM_IOC_GET_INFO, &info));
		close(again);
	}
	lab_end(&L);
	return true;
}

/* ---- unload and reload ---- */

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void t_reload(void)
{
	lab_begin(&L, "unload and reload, three rounds");
	for (int i = 0; i < 3; i++) {
		int fd = open_card(O_RDWR);
		void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

		/* Busy while open: refused, nothing hangs. */
		CHECK(&L, run("rmmod rfm 2>/dev/null") != 0, "rmmod succeeded with an open file");
		if (p != MAP_FAILED)
			munmap(p, 4096);
		close(fd);
		CHECK_EQ(&L, run("rmmod rfm"), 0);
		CHECK_EQ(&L, run("insmod /rfm.ko"), 0);
		write_file("/sys/bus/pci/drivers/rfm/new_id", "1af4 1110");
		CHECK(&L, wait_for_card(), DEV " missing after reload");
	}
	lab_end(&L);
}

/* ---- QEMU takes the card away (ACPI hot-unplug) ---- */

static bool wait_for_card_gone(void)
{
	uint64_t deadline = lab_now_ns() + (uint64_t)HANG_MS * 1000000u;
	struct stat st;

	while (stat(DEV, &st) == 0) {
		if (lab_now_ns() > deadline)
			return false;
		usleep(5000);
	}
	return true;
}

static void t_device_del(void)
{
	struct job mapper = { 0 }, dma = { 0 }, reader = { 0 }, flusher = { 0 };
	int fd = open_card(O_RDWR);
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR3);

	lab_begin(&L, "QEMU device_del under mmap, DMA, a blocked read and FLUSH");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	stop_load = 0;
	job_start(&reader, job_read, fd);
	CHECK(&L, job_wait_asleep(&reader), "the reader did not block");
	job_start(&mapper, job_mmap_loop, fd);
	job_start(&dma, job_dma_loop, fd);
	job_start(&flusher, job_flush_loop, fd);
	while (!lab_load(&mapper.started) || !lab_load(&dma.started) || !lab_load(&flusher.started))
		sched_yield();
	/* vm-run.sh -H reads this on the console and asks QEMU. */
	printf("RFMLAB-DEVICE-DEL: rfm0\n");
	fflush(stdout);
	bool gone = wait_for_card_gone();
	CHECK(&L, gone, DEV " still there after device_del: the removal hangs");
	if (!gone)
		pthread_kill(reader.thread, SIGUSR1);
	if (job_wait(&reader, "the blocked read() after device_del"))
		CHECK(&L, reader.ret == -1 && reader.err == ENODEV, "read: %ld errno %d",
		      reader.ret, reader.err);
	stop_load = 1;
	if (load_wait(&mapper, &dma, &flusher)) {
		CHECK(&L, mapper.ret == 0 || mapper.err == ENODEV, "mmap: errno %d", mapper.err);
		CHECK(&L, dma.ret == 0 || dma.err == ENODEV, "DMA: errno %d", dma.err);
		CHECK(&L, flusher.ret == 0 || flusher.err == ENODEV, "FLUSH: errno %d",
		      flusher.err);
	}
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_GET_INFO, &(struct rfm_dev_info){ 0 }), ENODEV);
	close(fd);
	lab_end(&L);
}

/* ---- the foreign ivshmem device ---- */

static void t_foreign(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int ivshmem = 0, bound = 0, unbound = 0;
	char path[512], link[256];

	lab_begin(&L, "a foreign ivshmem device is left alone");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		long vendor = read_number(path);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", e->d_name);
		long device = read_number(path);
		if (vendor != 0x1af4 || device != 0x1110)
			continue;
		ivshmem++;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", e->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n > 0)
			bound++;
		else
			unbound++;
	}
	if (d)
		closedir(d);
	printf("# ivshmem devices: %d, bound to rfm: %d, unbound: %d\n", ivshmem, bound, unbound);
	CHECK_EQ(&L, unbound, 1);	/* vm-run.sh -F gives every guest exactly one */
	CHECK(&L, bound >= 1, "our card is not bound");
	lab_end(&L);
}

/* ---- 32-bit programs (compat_ioctl) ---- */

/* Runs @prog; its output (up to @size - 1 bytes) in @out. Returns its exit status. */
static int run_capture(const char *prog, char *out, size_t size)
{
	int p[2], st = -1;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = 0;
	close(p[0]);
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		return WEXITSTATUS(st);
	return -1;
}

/* The transcript lines ("T ...") of @out, in order, into @t. */
static void transcript(const char *out, char *t, size_t size)
{
	size_t len = 0;

	t[0] = 0;
	for (const char *line = out; *line; ) {
		const char *end = strchr(line, '\n');
		size_t l = end ? (size_t)(end - line) + 1 : strlen(line);

		if (!strncmp(line, "T ", 2) && len + l < size) {
			memcpy(t + len, line, l);
			len += l;
			t[len] = 0;
		}
		line += l;
	}
}

static void print_indented(const char *tag, const char *out)
{
	for (const char *line = out; *line; ) {
		const char *end = strchr(line, '\n');
		int l = end ? (int)(end - line) : (int)strlen(line);

		printf("#   [%s] %.*s\n", tag, l, line);
		line += end ? l + 1 : l;
	}
}

static void t_compat(void)
{
	static char out64[16384], out32[16384], t64[8192], t32[8192];

	lab_begin(&L, "every request from a static 32-bit program gives what a 64-bit one gets");
	int rc64 = run_capture("/bin/vmcompat64", out64, sizeof(out64));
	int rc32 = run_capture("/bin/vmcompat32", out32, sizeof(out32));
	print_indented("64", out64);
	print_indented("32", out32);
	CHECK_EQ(&L, rc64, 0);
	CHECK_EQ(&L, rc32, 0);
	CHECK(&L, strstr(out32, "32-bit program") != NULL, "vmcompat32 is not a 32-bit program");
	transcript(out64, t64, sizeof(t64));
	transcript(out32, t32, sizeof(t32));
	int lines = 0;
	for (const char *c = t64; *c; c++)
		lines += *c == '\n';
	printf("# %d transcript lines from each\n", lines);
	CHECK(&L, lines >= 20, "only %d transcript lines", lines);
	CHECK(&L, strcmp(t64, t32) == 0, "the 32-bit transcript differs from the 64-bit one");
	lab_end(&L);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	memset(&L, 0, sizeof(L));
	L.index = 0;
	L.nodes = 1;
	/* "--only NAME": that test alone (to watch it on an older driver). */
	for (int i = 1; i + 1 < argc; i++) {
		const char *only = argv[i + 1];

		if (strcmp(argv[i], "--only"))
			continue;
		setvbuf(stdout, NULL, _IOLBF, 0);
		sigaction(SIGUSR1, &sa, NULL);
		if (!strcmp(only, "device_del"))
			t_device_del();
		else if (!strcmp(only, "read_fault"))
			t_read_fault();
		else if (!strcmp(only, "pressure"))
			(t_queue_memory_hog(), t_queue_memory_cgroup());
		else if (!strcmp(only, "compat"))
			t_compat();
		else if (!strcmp(only, "stalled_copy"))
			(void)(t_stalled_copy(false) && t_stalled_copy(true));
		else
			CHECK(&L, false, "--only %s: no such test", only);
		return lab_finish(&L);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGUSR1, &sa, NULL);
	printf("# vmstress: %s\n", DEV);

	t_foreign();
	t_compat();
	t_read_only();
	t_ioctls();
	t_queue_memory();
	t_queue_memory_hog();
	t_queue_memory_cgroup();
	t_blocked_reader();
	t_read_fault();
	if (!t_stalled_copy(false) || !t_stalled_copy(true)) {
		printf("# giving up: a thread is stuck in the driver\n");
		return lab_finish(&L);
	}
	for (int round = 0; round < 3; round++)
		if (!t_removal_round(round)) {
			printf("# giving up: a thread is stuck in the driver\n");
			lab_end(&L);
			return lab_finish(&L);
		}
	t_reload();
	t_device_del();	/* last: the card does not come back */
	return lab_finish(&L);
}
