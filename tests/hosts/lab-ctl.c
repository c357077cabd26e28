/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fault lab switch's control protocol: one command a line over its
 * unix socket, every answer ending with a line ".". `lab-switch ctl SOCKET
 * COMMAND...` sends one and prints the answer (exit 2 when it is an error).
 *
 *   set [from=PORTS] [to=PORTS] [drop=P] [dup=P] [reorder=P] [delay=MS]
 *       [jitter=MS] [reorder_ms=MS]     the rule of every (from, to) pair
 *                                       named (PORTS: * or 1,2,5; default *);
 *                                       keys not given keep their value
 *   clear                               no faults on any pair
 *   partition PORTS PORTS...            groups that cannot reach each other
 *                                       (ports not named: a group of their own)
 *   heal                                one group again
 *   link K up|down                      node K's carrier
 *   stats                               a line per port: in offered dropped
 *                                       duplicated delayed reordered blocked
 *                                       out txfail replayed tape_full; then
 *                                       "clock MS" "queued N"
 *   zero                                every counter to 0
 *   clock                               ms since the switch started
 *   hold MS                             answers "held MS" when MS ms passed
 *                                       on the switch's clock (timer queue)
 *   seed                                the PRNG seed of this run
 *   record K                            record what port K sends (lab-tape.c)
 *   record stop                         stop recording; the tape is kept
 *   replay MS                           play the tape back as its port's
 *                                       frames, looping, for MS ms
 *   save PATH                           the tape as a pcap file
 *   quit                                stop the switch
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lab-switch.h"

static void answer(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void answer(int fd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && send(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1,
			  MSG_NOSIGNAL) < 0)
		return; /* the client left; it sees nothing */
}

/* "*" or "1,2,5" into a bit set of ports; false: a bad list. */
static bool parse_ports(const struct lab *lab, const char *s, uint64_t *set)
{
	*set = 0;
	if (!strcmp(s, "*")) {
		for (unsigned int k = 1; k <= lab->nports; k++)
			*set |= UINT64_C(1) << k;
		return true;
	}
	while (*s) {
		char *end;
		unsigned long k = strtoul(s, &end, 10);

		if (end == s || k < 1 || k > lab->nports || (*end && *end != ','))
			return false;
		*set |= UINT64_C(1) << k;
		s = *end ? end + 1 : end;
	}
	return *set != 0;
}

static bool parse_prob(const char *v, double *p)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !(x >= 0 && x <= 1))
		return false;
	*p = x;
	return true;
}

static bool parse_ms(const char *v, uint64_t *ns)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !(x >= 0 && x <= 60000))
		return false;
	*ns = (uint64_t)(x * 1e6);
	return true;
}

/* One key=value of `set` into @r; 0, or the key is bad (-1). */
static int set_key(struct lab_rule *r, const char *key, const char *v)
{
	if (!strcmp(key, "drop"))
		return parse_prob(v, &r->drop) ? 0 : -1;
	if (!strcmp(key, "dup"))
		return parse_prob(v, &r->dup) ? 0 : -1;
	if (!strcmp(key, "reorder"))
		return parse_prob(v, &r->reorder) ? 0 : -1;
	if (!strcmp(key, "delay"))
		return parse_ms(v, &r->delay_ns) ? 0 : -1;
	if (!strcmp(key, "jitter"))
		return parse_ms(v, &r->jitter_ns) ? 0 : -1;
	if (!strcmp(key, "reorder_ms"))
		return parse_ms(v, &r->reorder_ns) ? 0 : -1;
	return -1;
}

/*
 * `set`: the keys are checked on a scratch rule first, so a bad one
 * changes nothing; then every named pair takes the keys given.
 */
static void cmd_set(struct lab *lab, int fd, char **argv, int argc)
{
	uint64_t from = 0, to = 0;
	struct lab_rule scratch = { 0 };

	parse_ports(lab, "*", &from);
	to = from;
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			answer(fd, "error '%s' is not key=value\n.\n", argv[i]);
			return;
		}
		*eq = 0;
		if (!strcmp(argv[i], "from") || !strcmp(argv[i], "to")) {
			if (!parse_ports(lab, eq + 1, argv[i][0] == 'f' ? &from : &to)) {
				answer(fd, "error bad port list '%s'\n.\n", eq + 1);
				return;
			}
		} else if (set_key(&scratch, argv[i], eq + 1)) {
			answer(fd, "error bad %s=%s\n.\n", argv[i], eq + 1);
			return;
		}
		*eq = '=';
	}
	for (unsigned int a = 1; a <= lab->nports; a++)
		for (unsigned int b = 1; b <= lab->nports; b++) {
			if (!(from >> a & 1) || !(to >> b & 1))
				continue;
			for (int i = 0; i < argc; i++) {
				char *eq = strchr(argv[i], '=');

				*eq = 0;
				set_key(&lab->rule[a][b], argv[i], eq + 1);
				*eq = '=';
			}
		}
	answer(fd, "ok\n.\n");
}

static void cmd_partition(struct lab *lab, int fd, char **argv, int argc)
{
	unsigned int group[LAB_PORTS_MAX + 1];
	uint64_t seen = 0;

	if (argc < 1) {
		answer(fd, "error usage: partition PORTS PORTS...\n.\n");
		return;
	}
	/* Ports not named are a group of their own, cut off from the named ones. */
	for (unsigned int k = 1; k <= lab->nports; k++)
		group[k] = (unsigned int)argc + 1;
	for (int g = 0; g < argc; g++) {
		uint64_t set;

		if (!parse_ports(lab, argv[g], &set) || (set & seen)) {
			answer(fd, "error bad or repeated port list '%s'\n.\n", argv[g]);
			return;
		}
		seen |= set;
		for (unsigned int k = 1; k <= lab->nports; k++)
			if (set >> k & 1)
				group[k] = (unsigned int)g + 1;
	}
	for (unsigned int k = 1; k <= lab->nports; k++)
		lab->port[k].group = group[k];
	answer(fd, "ok\n.\n");
}

static void cmd_stats(struct lab *lab, int fd)
{
	for (unsigned int k = 1; k <= lab->nports; k++) {
		const struct lab_counters *c = &lab->port[k].c;

		answer(fd,
		       "port %u in %llu offered %llu dropped %llu duplicated %llu delayed %llu "
		       "reordered %llu blocked %llu out %llu txfail %llu replayed %llu "
		       "tape_full %llu\n",
		       k, (unsigned long long)c->in, (unsigned long long)c->offered,
		       (unsigned long long)c->dropped, (unsigned long long)c->duplicated,
		       (unsigned long long)c->delayed, (unsigned long long)c->reordered,
		       (unsigned long long)c->blocked, (unsigned long long)c->out,
		       (unsigned long long)c->txfail, (unsigned long long)c->replayed,
		       (unsigned long long)c->tape_full);
	}
	answer(fd, "clock %llu\nqueued %zu\n.\n",
	       (unsigned long long)((lab_now_ns() - lab->start_ns) / 1000000), lab->queued);
}

static void cmd_hold(struct lab *lab, int fd, const char *ms)
{
	uint64_t ns;

	if (!ms || !parse_ms(ms, &ns)) {
		answer(fd, "error usage: hold MS (0..60000)\n.\n");
		return;
	}
	for (unsigned int i = 0; i < LAB_CLIENTS_MAX; i++)
		if (lab->holds[i].client < 0) {
			lab->holds[i] = (struct lab_hold){ .client = fd,
							   .due_ns = lab_now_ns() + ns,
							   .ms = ns / 1000000 };
			return; /* answered by lab_holds_run() */
		}
	answer(fd, "error too many holds\n.\n");
}

void lab_holds_run(struct lab *lab)
{
	uint64_t now = lab_now_ns();

	for (unsigned int i = 0; i < LAB_CLIENTS_MAX; i++)
		if (lab->holds[i].client >= 0 && lab->holds[i].due_ns <= now) {
			answer(lab->holds[i].client, "held %llu\n.\n",
			       (unsigned long long)lab->holds[i].ms);
			lab->holds[i].client = -1;
		}
}

static void cmd_record(struct lab *lab, int fd, char **argv, int argc)
{
	uint64_t set;

	if (argc == 1 && !strcmp(argv[0], "stop")) {
		lab_tape_stop(lab);
		answer(fd, "ok %zu frames %zu bytes\n.\n", lab->tape.n, lab->tape.bytes);
		return;
	}
	if (argc != 1 || !parse_ports(lab, argv[0], &set) || (set & (set - 1))) {
		answer(fd, "error usage: record K|stop\n.\n");
		return;
	}
	lab_tape_record(lab, (unsigned int)__builtin_ctzll(set));
	answer(fd, "ok\n.\n");
}

static void cmd_replay(struct lab *lab, int fd, const char *ms)
{
	uint64_t ns;

	if (!ms || !parse_ms(ms, &ns))
		answer(fd, "error usage: replay MS (0..60000)\n.\n");
	else if (lab_tape_replay(lab, ns / 1000000))
		answer(fd, "error nothing to replay: record a port first, then stop\n.\n");
	else
		answer(fd, "ok\n.\n");
}

static void cmd_link(struct lab *lab, int fd, char **argv, int argc)
{
	uint64_t set;
	unsigned int k;

	if (argc != 2 || !parse_ports(lab, argv[0], &set) || (set & (set - 1)) ||
	    (strcmp(argv[1], "up") && strcmp(argv[1], "down"))) {
		answer(fd, "error usage: link K up|down\n.\n");
		return;
	}
	k = (unsigned int)__builtin_ctzll(set);
	if (lab_link_set(lab, k, !strcmp(argv[1], "up")))
		answer(fd, "error link %u: %s\n.\n", k, strerror(errno));
	else
		answer(fd, "ok\n.\n");
}

void lab_command(struct lab *lab, int fd, char *line)
{
	char *argv[LAB_PORTS_MAX + 8], *save = NULL, *tok;
	int argc = 0;

	for (tok = strtok_r(line, " \t\r", &save); tok && argc < (int)(sizeof(argv) / sizeof(*argv));
	     tok = strtok_r(NULL, " \t\r", &save))
		argv[argc++] = tok;
	if (!argc)
		answer(fd, "error empty command\n.\n");
	else if (!strcmp(argv[0], "set"))
		cmd_set(lab, fd, argv + 1, argc - 1);
	else if (!strcmp(argv[0], "clear") && argc == 1) {
		memset(lab->rule, 0, sizeof(lab->rule));
		answer(fd, "ok\n.\n");
	} else if (!strcmp(argv[0], "partition"))
		cmd_partition(lab, fd, argv + 1, argc - 1);
	else if (!strcmp(argv[0], "heal") && argc == 1) {
		for (unsigned int k = 1; k <= lab->nports; k++)
			lab->port[k].group = 0;
		answer(fd, "ok\n.\n");
	} else if (!strcmp(argv[0], "link"))
		cmd_link(lab, fd, argv + 1, argc - 1);
	else if (!strcmp(argv[0], "stats") && argc == 1)
		cmd_stats(lab, fd);
	else if (!strcmp(argv[0], "zero") && argc == 1) {
		for (unsigned int k = 1; k <= lab->nports; k++)
			memset(&lab->port[k].c, 0, sizeof(lab->port[k].c));
		answer(fd, "ok\n.\n");
	} else if (!strcmp(argv[0], "clock") && argc == 1)
		answer(fd, "clock %llu\n.\n",
		       (unsigned long long)((lab_now_ns() - lab->start_ns) / 1000000));
	else if (!strcmp(argv[0], "hold") && argc == 2)
		cmd_hold(lab, fd, argv[1]);
	else if (!strcmp(argv[0], "record"))
		cmd_record(lab, fd, argv + 1, argc - 1);
	else if (!strcmp(argv[0], "replay") && argc == 2)
		cmd_replay(lab, fd, argv[1]);
	else if (!strcmp(argv[0], "save") && argc == 2) {
		if (lab_tape_save(lab, argv[1]))
			answer(fd, "error save %s: %s\n.\n", argv[1], strerror(errno));
		else
			answer(fd, "ok %zu frames\n.\n", lab->tape.n);
	} else if (!strcmp(argv[0], "seed") && argc == 1)
		answer(fd, "seed %llu\n.\n", (unsigned long long)lab->seed);
	else if (!strcmp(argv[0], "quit") && argc == 1) {
		lab->quit = true;
		answer(fd, "bye\n.\n");
	} else
		answer(fd, "error unknown command '%s' (set clear partition heal link stats zero "
			   "clock hold record replay save seed quit)\n.\n", argv[0]);
}

/* The client side: one command, its answer to stdout, exit 2 for an error. */
int lab_ctl_client(const char *path, int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[65536];
	char line[512] = "";
	size_t have = 0;
	int fd, rc = 0;

	for (int i = 0; i < argc; i++) {
		if (strlen(line) + strlen(argv[i]) + 2 >= sizeof(line)) {
			fprintf(stderr, "lab-switch ctl: command too long\n");
			return 2;
		}
		strcat(line, argv[i]);
		strcat(line, i + 1 < argc ? " " : "\n");
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return 2;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		fprintf(stderr, "lab-switch ctl: %s: %s\n", path, strerror(errno));
		return 2;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *end;

		if (n <= 0) {
			fprintf(stderr, "lab-switch ctl: the switch closed without an answer\n");
			return 2;
		}
		have += (size_t)n;
		buf[have] = 0;
		end = strstr(buf, "\n.\n");
		if (end || (have == 2 && !strcmp(buf, ".\n"))) {
			if (end)
				end[1] = 0;
			rc = !strncmp(buf, "error", 5) ? 2 : 0;
			fputs(buf, rc ? stderr : stdout);
			break;
		}
		if (have == sizeof(buf) - 1) {
			fprintf(stderr, "lab-switch ctl: an answer longer than %zu bytes\n", have);
			return 2;
		}
	}
	close(fd);
	return rc;
}
