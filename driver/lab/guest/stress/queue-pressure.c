// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * queue-pressure.c - a vm-stress program (stress.h):
 * event-queue memory under pressure: the openers of queue-limit beside a
 * hog holding all but a little of the guest's memory, and inside a memory
 * cgroup at its limit (ENOMEM): no OOM kill anywhere.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "stress.h"

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

int main(void)
{
	stress_init();
	t_queue_memory_hog();
	t_queue_memory_cgroup();
	return lab_finish(&L);
}
