/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping --local on Linux: the echoer is a forked child, which never
 * outlives the pinger (PR_SET_PDEATHSIG) and is killed when the pinger
 * fails, so that it cannot stay behind as a node of the network.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ping.h"

struct ping_local {
	pid_t pid;
};

/* In the child: the node id to the pinger, through the pipe. */
static void report_ready(void *arg, int id)
{
	int fd = *(int *)arg;

	if (write(fd, &id, sizeof(id)) != sizeof(id))
		_exit(1);
	close(fd);
}

int ping_start_local_echoer(struct ping *p, const struct ping_opts *o, struct ping_local **local)
{
	struct cli *cli = p->cli;
	int ready[2], id = -1;
	pid_t child;

	*local = malloc(sizeof(**local));
	if (!*local)
		return cli_error(cli, "out of memory");
	(*local)->pid = -1;
	if (pipe(ready))
		return cli_error(cli, "pipe: %s", strerror(errno));
	fflush(NULL);
	child = fork();
	if (child == 0) {
		/* Never outlive the pinger, even one killed with SIGKILL. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL);
		close(ready[0]);
		_exit(ping_local_echoer(p, &o->echo_rt, report_ready, &ready[1]));
	}
	(*local)->pid = child;
	close(ready[1]);
	if (child < 0 || read(ready[0], &id, sizeof(id)) != sizeof(id) || id < 0) {
		close(ready[0]);
		return child < 0 ? cli_error(cli, "fork: %s", strerror(errno))
				 : CLI_EXIT_FAILED; /* the child said why */
	}
	close(ready[0]);
	p->peer = (unsigned int)id;
	return 0;
}

int ping_reap_local_echoer(struct cli *cli, struct ping_local *local, int ret)
{
	int status = 0;
	pid_t child = local ? local->pid : -1;

	free(local);
	if (child <= 0)
		return ret;
	if (ret)
		kill(child, SIGKILL);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		ret = cli_error(cli, "the local echoer failed");
	return ret;
}
