/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A userspace Ethernet switch for the fault lab (tests/hosts/netns-lab.sh
 * `up N switch`): one TAP device per node, made inside the node's network
 * namespace as its eth0, and frames forwarded between them with faults a
 * test turns on and off while it runs. The kernel here may have no
 * sch_netem, so the faults are made here, in the one place every frame
 * passes:
 *
 *   drop P       each copy of a frame lost with probability P
 *   dup P        sent twice with probability P
 *   delay MS, jitter MS   held MS + uniform(0, jitter) ms, in a time-ordered
 *                queue (one timerfd for all; nothing sleeps per frame)
 *   reorder P    held 1..reorder_ms more, so frames after it overtake it
 *   partition    groups of ports that cannot reach each other; heal
 *   link K up|down  node K's cable (the TAP's carrier)
 *   record K, replay MS   what node K sent, played back later as its own
 *                (a replay attack; lab-tape.c)
 *
 * Rules are per pair of ports (from, to). It learns source addresses and
 * floods broadcast, multicast and unknown destinations to every port, as a
 * plain switch does (Cyclone's discovery multicasts). Each copy a frame
 * makes (one per destination port) meets its pair's rule on its own.
 *
 *   lab-switch serve SOCKET SEED NETNS...   port K (1..) in the K-th namespace;
 *                                           SEED 0: one from the clock (printed)
 *   lab-switch ctl SOCKET COMMAND...        one command, its answer on stdout
 *
 * The commands (a line each over the unix socket; every answer ends with a
 * line "."): lab-ctl.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab-switch.h"

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "serve"))
		return lab_serve(argv[2], strtoull(argv[3], NULL, 0), argc - 4, argv + 4);
	if (argc >= 4 && !strcmp(argv[1], "ctl"))
		return lab_ctl_client(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: %s serve SOCKET SEED NETNS...\n"
			"       %s ctl SOCKET COMMAND...\n",
		argv[0], argv[0]);
	return 2;
}
