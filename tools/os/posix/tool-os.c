/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rfm tool's OS layer on Linux (tools/os/tool-os.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "os/tool-os.h"

bool tool_os_self_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

char *tool_os_realpath(const char *path)
{
	return realpath(path, NULL);
}

bool tool_os_is_dir_sep(char c)
{
	return c == '/';
}

int tool_os_exec(const char *path, char *const argv[], bool search)
{
	if (search)
		execvp(path, argv);
	else
		execv(path, argv);
	return errno;
}

void tool_os_binary_stream(FILE *f)
{
	(void)f; /* POSIX streams make no text/binary difference */
}

int tool_os_sync_file(FILE *fp)
{
	return fsync(fileno(fp));
}

int tool_os_replace_file(const char *tmp, const char *target)
{
	return rename(tmp, target) ? errno : 0;
}

bool tool_os_is_terminal(FILE *f)
{
	return isatty(fileno(f)) == 1;
}

int tool_os_setenv(const char *name, const char *value)
{
	return setenv(name, value, 1) ? errno : 0;
}

static void (*interrupt_fn)(void);

static void on_signal(int sig)
{
	(void)sig;
	interrupt_fn();
}

void tool_os_on_interrupt(void (*fn)(void))
{
	struct sigaction sa;

	interrupt_fn = fn;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a sleep ends early, and the loop sees the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void tool_os_ignore_broken_pipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

int tool_os_raise_open_files(uint64_t *limit)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	*limit = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
	return 0;
}

int tool_os_random(void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom((char *)buf + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

bool tool_os_sleep_until_ns(uint64_t t)
{
	struct timespec ts = {.tv_sec = (time_t)(t / 1000000000u),
			      .tv_nsec = (long)(t % 1000000000u)};

	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR;
}

void tool_os_precise_timers(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

void tool_os_yield(void)
{
	sched_yield();
}

int tool_os_allowed_cpus(struct rfm_os_cpus *set)
{
	cpu_set_t allowed;

	rfm__os_cpus_zero(set);
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return -1;
	for (unsigned int c = 0; c < CPU_SETSIZE && c < RFM_OS_CPUS; c++)
		if (CPU_ISSET(c, &allowed))
			rfm__os_cpus_add(set, c);
	return 0;
}

int tool_os_set_affinity(const struct rfm_os_cpus *set)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	for (unsigned int c = 0; c < CPU_SETSIZE && c < RFM_OS_CPUS; c++)
		if (rfm__os_cpus_has(set, c))
			CPU_SET(c, &cpus);
	return pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
}

int tool_os_set_rt_priority(int prio, char *why, size_t why_size)
{
	struct sched_param sp = {.sched_priority = prio};
	int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	why[0] = '\0';
	if (err == EPERM) {
		struct rlimit lim = {0, 0};

		getrlimit(RLIMIT_RTPRIO, &lim);
		snprintf(why, why_size,
			 "the process lacks CAP_SYS_NICE and RLIMIT_RTPRIO is %llu (ulimit -r %d, "
			 "or run as root)",
			 (unsigned long long)lim.rlim_cur, prio);
	}
	return err;
}

int tool_os_lock_memory(char *why, size_t why_size)
{
	struct rlimit lim = {0, 0};
	int err;

	why[0] = '\0';
	/*
	 * MCL_ONFAULT: lock what is mapped as it is touched, rather than
	 * populate every mapping (the shm: segment's sparse event area would
	 * be allocated whole); the nodes' lock=1 maps the window and queues.
	 */
	if (!mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT))
		return 0;
	err = errno;
	getrlimit(RLIMIT_MEMLOCK, &lim);
	snprintf(why, why_size,
		 "mlockall: %s; RLIMIT_MEMLOCK is %llu KiB (ulimit -l unlimited, "
		 "or CAP_IPC_LOCK)",
		 strerror(err), (unsigned long long)lim.rlim_cur >> 10);
	return err;
}
