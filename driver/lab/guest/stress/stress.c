// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stress.c - what every vm-stress program shares (stress.h): the guest's
 * one lab state, files, jobs that may hang, the load loops removal runs
 * under, and loopback records with known data.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include "stress.h"

struct lab L;

int open_card(int flags)
{
	int fd = open(DEV, flags | O_CLOEXEC);

	if (fd < 0)
		lab_fatal(&L, "open " DEV);
	return fd;
}

void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, text, strlen(text));
		close(fd);
	}
	CHECK(&L, n == (ssize_t)strlen(text), "write %s to %s: %s", text, path, strerror(errno));
}

long read_number(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 0) : -1;
}

/* ---- running something that may hang: a thread and a deadline ---- */

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->tid = (pid_t)syscall(SYS_gettid);
	j->fn(j);
	lab_store(&j->done, 1);
	return NULL;
}

void job_start(struct job *j, void (*fn)(struct job *), int fd)
{
	j->fn = fn;
	j->fd = fd;
	j->done = 0;
	j->started = 0;
	if (pthread_create(&j->thread, NULL, job_main, j))
		lab_fatal(&L, "pthread_create");
}

/* Wait for a job to end; false (and the thread left alone) on a hang. */
bool job_wait(struct job *j, const char *what)
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

/* A reader blocked in read() on @fd, then the three load loops, all running. */
void load_start(int fd, struct job *reader, struct job *mapper, struct job *dma,
		struct job *flusher)
{
	stop_load = 0;
	job_start(reader, job_read, fd);
	CHECK(&L, job_wait_asleep(reader), "the reader did not block");
	job_start(mapper, job_mmap_loop, fd);
	job_start(dma, job_dma_loop, fd);
	job_start(flusher, job_flush_loop, fd);
	while (!lab_load(&mapper->started) || !lab_load(&dma->started) ||
	       !lab_load(&flusher->started))
		sched_yield();
}

/* Wait for the three load loops, each even when another one hung. */
bool load_wait(struct job *mapper, struct job *dma, struct job *flusher)
{
	bool a = job_wait(mapper, "the mmap loop");
	bool b = job_wait(dma, "the DMA loop");
	bool c = job_wait(flusher, "the FLUSH loop");

	return a && b && c;
}

/* The job's thread sleeps (state S) after announcing its blocking call. */
bool job_wait_asleep(struct job *j)
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

void on_signal(int sig)
{
	(void)sig;
}

long mem_available_kib(void)
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

/* ---- jobs of one blocking call ---- */

void job_read(struct job *j)
{
	struct rfm_dev_event ev;

	lab_store(&j->started, 1);
	j->ret = read(j->fd, &ev, sizeof(ev));
	j->err = errno;
}

void job_flush(struct job *j)
{
	j->ret = ioctl(j->fd, RFM_IOC_FLUSH);
	j->err = errno;
}

void job_resize(struct job *j)
{
	uint32_t depth = 2048;

	j->ret = ioctl(j->fd, RFM_IOC_SET_QUEUE_DEPTH, &depth);
	j->err = errno;
}

/* ---- removal under load ---- */

volatile int stop_load;

void job_mmap_loop(struct job *j)
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
void job_dma_loop(struct job *j)
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

void job_flush_loop(struct job *j)
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

void job_remove(struct job *j)
{
	int fd = open(j->path, O_WRONLY | O_CLOEXEC);

	j->ret = fd >= 0 ? write(fd, "1", 1) : -1;
	j->err = errno;
	if (fd >= 0)
		close(fd);
}

bool card_pci_path(char *out, size_t size)
{
	char link[256];
	ssize_t n = readlink("/sys/class/rfm/rfm0/device", link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = 0;
	snprintf(out, size, "/sys/bus/pci/devices/%s/remove", strrchr(link, '/') + 1);
	return true;
}

bool wait_for_card(void)
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

/* ---- loopback records with known data ---- */

/* Queues @n loopback INTR4 records with data 0..n-1. */
void queue_records(int fd, uint32_t n)
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
uint64_t check_records(const void *buf, size_t n, uint32_t data0, uint64_t seq0)
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

/*
 * The start of every program: the one guest's state (no peers: vm-stress
 * runs in one guest), line-buffered output, SIGUSR1 only interrupts (old
 * drivers' stuck threads are woken with it).
 */
void stress_init(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	memset(&L, 0, sizeof(L));
	L.index = 0;
	L.nodes = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGUSR1, &sa, NULL);
}
