/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The harness on Linux (harness-internal.h): helper processes are fork()ed
 * children with a pair of pipes, the segment directory is /dev/shm.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "harness.h"
#include "harness-internal.h"

#define progname harness_progname
#define in_child harness_in_child

/*
 * Suites that run on every backend say so with HARNESS_SHARED_SUITE()
 * (harness.h), which defines this; elsewhere it stays undefined (NULL).
 */
extern const unsigned int harness_shared_suite_needs __attribute__((weak));

const unsigned int *harness_os_shared_suite_needs(void)
{
	return &harness_shared_suite_needs;
}

const char *harness_os_progname(void)
{
	return program_invocation_short_name;
}

void harness_os_child_main(void)
{
	/* fork() children start in harness_child_start(), not in main(). */
}

void harness_os_init(void)
{
	/* A child that died must show up as EPIPE, not kill the test. */
	signal(SIGPIPE, SIG_IGN);
}

const char *harness_os_seg_dir(void)
{
	return "/dev/shm";
}

const char *harness_os_shm_unavailable(void)
{
	if (access("/dev/shm", W_OK | X_OK) < 0)
		return "/dev/shm is missing or not writable";
	return NULL;
}

void harness_watchdog(unsigned int seconds)
{
	alarm(seconds);
}

void harness_os_setenv_default(const char *name, const char *value)
{
	setenv(name, value, 0);
}

/* ---- registry of children, for cleaning up after a failed test ---- */

#define MAX_CHILDREN 64

struct child_record {
	pid_t pid; /* 0: free slot */
	int go_fd;
	int report_fd;
};

static struct child_record children[MAX_CHILDREN];

static struct child_record *child_record(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i].pid == pid)
			return &children[i];
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Forget a reaped child and close the parent's ends of its pipes. */
static void child_forget(pid_t pid)
{
	struct child_record *rec = child_record(pid);

	if (!rec)
		return;
	close_fd(&rec->go_fd);
	close_fd(&rec->report_fd);
	rec->pid = 0;
}

void harness_kill_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		pid_t pid = children[i].pid;

		if (!pid)
			continue;
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		child_forget(pid);
	}
}

/* The threads of this process now (/proc/self/task). */
int harness_thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* ---- helper processes ---- */

static void setup_child(pid_t parent)
{
	/* CMocka catches these to unwind a failing test; a child must just die. */
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS, SIGABRT };

	in_child = true;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
	/* Die with the parent, so a crashed test leaves no process behind. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(HARNESS_EXIT_ERROR);
	/* The siblings' pipes are the parent's business, and so are its networks. */
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (!children[i].pid)
			continue; /* a free slot's fds mean nothing */
		close_fd(&children[i].go_fd);
		close_fd(&children[i].report_fd);
		children[i].pid = 0;
	}
	harness_forget_networks();
}

void harness_child_start(struct harness_child *child, harness_child_fn fn, void *arg)
{
	struct child_record *rec = child_record(0);
	int go[2], report[2];
	pid_t parent = getpid(), pid;

	if (!rec)
		harness_fail(__FILE__, __LINE__, "more than %d live children", MAX_CHILDREN);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0)
		harness_fail(__FILE__, __LINE__, "pipe2: %s", strerror(errno));
	fflush(NULL); /* or buffered output is printed twice */
	harness_quiet_before_fork();
	pid = fork();
	if (pid < 0)
		harness_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct harness_link link = { .go_fd = go[0], .report_fd = report[1] };
		int ret;

		close(go[1]);
		close(report[0]);
		setup_child(parent);
		ret = fn(&link, arg);
		close(link.go_fd);
		close(link.report_fd);
		fflush(NULL);
		_exit(ret >= 0 && ret <= 255 ? ret : 1);
	}
	close(go[0]);
	close(report[1]);
	child->pid = pid;
	child->go_fd = go[1];
	child->report_fd = report[0];
	child->reaped = false;
	child->status = 0;
	child->process = NULL;
	rec->pid = pid;
	rec->go_fd = go[1];
	rec->report_fd = report[0];
}

bool harness_can_fork(void)
{
	return true;
}

bool harness_vendor_dll_needed(void)
{
	return false;
}

void harness_child_spawn(struct harness_child *child, harness_child_fn fn, const void *arg,
			 size_t arg_len)
{
	/* The forked child has the parent's memory, @arg's bytes with it. */
	(void)arg_len;
	harness_child_start(child, fn, (void *)arg);
}

int harness_os_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read exactly @len bytes; -1 on EOF, error or HARNESS_HANG_TIMEOUT_MS. */
int harness_os_read_all(int fd, void *buf, size_t len, bool guard)
{
	char *p = buf;

	while (len) {
		if (guard) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			int n = poll(&pfd, 1, HARNESS_HANG_TIMEOUT_MS);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fprintf(stderr, "%s: peer silent for %d ms\n", progname,
					HARNESS_HANG_TIMEOUT_MS);
				return -1;
			}
		}
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

long harness_thread_id(void)
{
	return (long)syscall(SYS_gettid);
}

bool harness_can_see_sleepers(void)
{
	return true;
}

/*
 * Which call a thread sleeps in cannot always be asked: /proc/.../syscall
 * gives the number of the kernel's own architecture, which under
 * qemu-user (make check-cross) is the build machine's, not this
 * program's. So the state (S) and "blocked in a call" are checked, and the
 * call is SYS_futex where the kernel's numbers are ours (our own read()
 * of /proc/self/syscall shows up as SYS_read).
 */
static long own_read_number(void)
{
	char buf[512];
	FILE *f = fopen("/proc/self/syscall", "r");
	char *line;

	if (!f)
		return -1;
	line = fgets(buf, sizeof(buf), f);
	fclose(f);
	return line ? atol(line) : -1;
}

/* The first line of /proc/self/task/@tid/@what into @buf; false if none. */
static bool task_line(long tid, const char *what, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/%s", tid, what);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

bool harness_thread_sleeping(long tid)
{
	static int native = -1;
	char buf[512];
	char *state;

	if (native < 0)
		native = own_read_number() == SYS_read;
	if (!task_line(tid, "stat", buf, sizeof(buf)))
		return false;
	state = strrchr(buf, ')'); /* after "pid (comm)" */
	if (!state || state[1] != ' ' || state[2] != 'S')
		return false;
	/* "running" while it runs in user space; else the call's number. */
	if (!task_line(tid, "syscall", buf, sizeof(buf)) || buf[0] < '0' || buf[0] > '9')
		return false;
	return !native || atol(buf) == SYS_futex;
}

int harness_event_ready(rfm_node *node, int timeout_ms)
{
	struct pollfd p = { .fd = rfm_event_fd(node), .events = POLLIN };
	int n;

	if (p.fd < 0)
		return -1;
	while ((n = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
		;
	return n < 0 ? -1 : n > 0;
}

void harness_os_child_exit(int code)
{
	_exit(code);
}

static int decode_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

/* Block until @pid can be reaped, at most HARNESS_HANG_TIMEOUT_MS; false on timeout. */
static bool wait_exit(pid_t pid)
{
#ifdef SYS_pidfd_open
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (pidfd >= 0) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
		int n;

		do
			n = poll(&pfd, 1, HARNESS_HANG_TIMEOUT_MS);
		while (n < 0 && errno == EINTR);
		close(pidfd);
		return n != 0;
	}
#endif
	return true; /* no pidfd: the blocking waitpid() has to do */
}

int harness_child_wait(struct harness_child *child)
{
	int status;

	if (child->reaped)
		return decode_status(child->status);
	if (!wait_exit(child->pid)) {
		fprintf(stderr, "%s: child %d still running after %d ms: killing it\n", progname,
			(int)child->pid, HARNESS_HANG_TIMEOUT_MS);
		harness_child_kill(child);
		return -1;
	}
	while (waitpid(child->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			child_forget(child->pid);
			return -1;
		}
	}
	child->reaped = true;
	child->status = status;
	child_forget(child->pid);
	return decode_status(status);
}

bool harness_can_interrupt(void)
{
	return true;
}

bool harness_child_interrupt(struct harness_child *child)
{
	return !child->reaped && kill(child->pid, SIGINT) == 0;
}

void harness_child_kill(struct harness_child *child)
{
	int status;

	if (child->reaped)
		return;
	kill(child->pid, SIGKILL);
	while (waitpid(child->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			child_forget(child->pid);
			return;
		}
	}
	child->reaped = true;
	child->status = status;
	child_forget(child->pid);
}

