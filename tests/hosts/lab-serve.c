/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fault lab switch's loop: one epoll over the TAPs, the control socket
 * and its clients, and a timerfd for the time queue and `hold`s. Nothing
 * spins: with no frame and nothing due it sleeps in epoll_wait.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>

#include "lab-switch.h"

/* epoll data: what an fd is. */
#define TAG_TIMER 0x100u
#define TAG_LISTEN 0x101u
#define TAG_SIGNAL 0x102u
#define TAG_CLIENT 0x10000u /* | fd */

uint64_t lab_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: small, and a seed repeats a run's choices exactly. */
uint64_t lab_random(struct lab *lab)
{
	lab->rng ^= lab->rng >> 12;
	lab->rng ^= lab->rng << 25;
	lab->rng ^= lab->rng >> 27;
	return lab->rng * UINT64_C(2685821657736338717);
}

double lab_uniform(struct lab *lab)
{
	return (double)(lab_random(lab) >> 11) * 0x1.0p-53;
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "lab-switch: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8)) {
		fprintf(stderr, "lab-switch: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void watch(struct lab *lab, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	if (epoll_ctl(lab->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		fprintf(stderr, "lab-switch: epoll: %s\n", strerror(errno));
		exit(1);
	}
}

static void client_accept(struct lab *lab)
{
	int fd = accept4(lab->listenfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (fd >= 0xffff) {
		close(fd);
		return;
	}
	watch(lab, fd, TAG_CLIENT | (uint32_t)fd);
}

static void client_close(struct lab *lab, int fd)
{
	for (unsigned int i = 0; i < LAB_CLIENTS_MAX; i++)
		if (lab->holds[i].client == fd)
			lab->holds[i].client = -1;
	epoll_ctl(lab->epfd, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
}

/*
 * A client sends one command line (lab_ctl_client); reading it whole with
 * one recv is enough for a local stream socket and a line this short. The
 * answer goes back at once, or for `hold` when it is due.
 */
static void client_input(struct lab *lab, int fd)
{
	char line[512];
	ssize_t n = recv(fd, line, sizeof(line) - 1, 0);
	char *nl;

	if (n <= 0) {
		client_close(lab, fd);
		return;
	}
	line[n] = 0;
	nl = strchr(line, '\n');
	if (nl)
		*nl = 0;
	lab_command(lab, fd, line);
}

static int setup(struct lab *lab, const char *sock, uint64_t seed, int n, char **netns)
{
	sigset_t set;

	lab->start_ns = lab_now_ns();
	lab->seed = seed ? seed : (lab->start_ns ^ ((uint64_t)getpid() << 32)) | 1;
	lab->rng = lab->seed;
	for (unsigned int i = 0; i < LAB_CLIENTS_MAX; i++)
		lab->holds[i].client = -1;
	if (n < 1 || n > LAB_PORTS_MAX) {
		fprintf(stderr, "lab-switch: 1..%d ports\n", LAB_PORTS_MAX);
		return -1;
	}
	lab->nports = (unsigned int)n;
	for (int k = 1; k <= n; k++)
		if (lab_port_open(lab, (unsigned int)k, netns[k - 1]))
			return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN); /* a client gone mid-answer */
	lab->epfd = epoll_create1(EPOLL_CLOEXEC);
	lab->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	lab->listenfd = listen_on(sock);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (lab->epfd < 0 || lab->timerfd < 0 || lab->listenfd < 0 || sfd < 0)
		return -1;
	watch(lab, lab->timerfd, TAG_TIMER);
	watch(lab, lab->listenfd, TAG_LISTEN);
	watch(lab, sfd, TAG_SIGNAL);
	for (unsigned int k = 1; k <= lab->nports; k++)
		watch(lab, lab->port[k].fd, k);
	return 0;
}

/*
 * The lab's wire runs SCHED_FIFO when it may (root): a real switch is not
 * held back by the hosts' load, and on a loaded CI host this process,
 * starved for seconds, stopped every frame between the nodes at once (each
 * healthy node saw the other down in test-faults-replay, with the replay's
 * frames queued in front). It sleeps in epoll_wait whenever nothing is due,
 * so it takes no more CPU than before; without the right it runs as it did.
 */
static void run_as_wire(void)
{
	struct sched_param param = { .sched_priority = 50 };

	if (sched_setscheduler(0, SCHED_FIFO, &param))
		fprintf(stderr, "lab-switch: runs without SCHED_FIFO (%s): a loaded host may "
			"hold its frames back\n", strerror(errno));
}

int lab_serve(const char *sock, uint64_t seed, int n, char **netns)
{
	static struct lab lab; /* large: the rule and pair tables */
	struct epoll_event evs[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup(&lab, sock, seed, n, netns))
		return 1;
	run_as_wire();
	/* The seed first: a failing run is repeated with it. */
	printf("seed %llu\nready\n", (unsigned long long)lab.seed);
	while (!lab.quit) {
		int got = epoll_wait(lab.epfd, evs, 64, -1);

		if (got < 0 && errno != EINTR)
			return 1;
		for (int i = 0; i < got; i++) {
			uint32_t tag = evs[i].data.u32;

			if (tag >= 1 && tag <= lab.nports)
				lab_port_input(&lab, tag);
			else if (tag == TAG_LISTEN)
				client_accept(&lab);
			else if (tag == TAG_SIGNAL)
				lab.quit = true;
			else if (tag & TAG_CLIENT)
				client_input(&lab, (int)(tag & 0xffff));
			else if (tag == TAG_TIMER) {
				uint64_t ticks;

				if (read(lab.timerfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					return 1;
			}
		}
		lab_queue_run(&lab);
		lab_tape_run(&lab);
		lab_holds_run(&lab);
		lab_timer_arm(&lab);
	}
	lab_tape_free(&lab);
	unlink(sock);
	printf("bye\n");
	return 0;
}
