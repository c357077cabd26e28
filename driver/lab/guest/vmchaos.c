/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vmchaos - a guest dies in the middle: guest 1 takes one event, then
 * powers off at once (no close, no module unload), as a crash would.
 * Guest 0 keeps sending to it: the sends must end in EHOSTUNREACH once the
 * ivshmem server saw the guest go, never hang, and the kernel must not
 * complain. Broadcasts go on (to nobody). Two guests.
 */
#include <sys/reboot.h>

#include "lab.h"

#define GIVE_UP_NS (120ull * 1000000000u)

static void dying_guest(struct lab *l, int fd)
{
	struct rfm_dev_event ev;

	lab_begin(l, "take one event, then die");
	CHECK_EQ(l, lab_read_event(fd, &ev, LAB_WAIT_MS), 1);
	CHECK_EQ(l, ev.sender, l->node[0]);
	lab_end(l);
	printf("# guest %d: powering off without closing anything\n", l->index);
	/* The lab reads this guest's verdict here: init never runs again. */
	printf("RFMLAB-EXIT: %d\n", lab_finish(l));
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	lab_fatal(l, "reboot");
}

static void surviving_guest(struct lab *l)
{
	uint32_t peer = l->node[1];
	uint64_t deadline = lab_now_ns() + GIVE_UP_NS;
	unsigned long sent = 0, timeouts = 0;
	struct rfm_dev_counters c;
	int err = 0;

	lab_begin(l, "sends to a node that died end in EHOSTUNREACH");
	CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR1, peer, 1, 0));
	while (lab_now_ns() < deadline) {
		if (lab_send(l->fd, RFM_DEV_EV_INTR1, peer, 2, 0) == 0) {
			sent++;	/* its mailbox ring still had room */
			continue;
		}
		err = errno;
		if (err == ETIMEDOUT) {	/* ring full, node not yet known gone */
			timeouts++;
			continue;
		}
		break;
	}
	CHECK(l, err == EHOSTUNREACH, "last send: %s", strerror(err));
	printf("# guest %d: %lu sends queued, %lu timed out before the node was gone\n", l->index,
	       sent, timeouts);
	lab_end(l);

	lab_begin(l, "broadcast and diagnostics with nobody listening");
	CHECK_OK(l, lab_send(l->fd, RFM_DEV_EV_INTR2, RFM_DEV_NODE_ALL, 3, 0));
	CHECK_OK(l, ioctl(l->fd, RFM_IOC_DIAG_KICK, &peer));
	CHECK_OK(l, ioctl(l->fd, RFM_IOC_GET_COUNTERS, &c));
	CHECK_EQ(l, c.tx_timeouts, timeouts);
	CHECK_EQ(l, c.mailbox_errors, 0);
	lab_end(l);
}

int main(int argc, char **argv)
{
	struct lab l;
	int fd;

	lab_open(&l, argc, argv);
	if (l.nodes != 2) {
		printf("# vmchaos needs exactly two guests\n");
		return 1;
	}
	fd = lab_open_events(&l, RFM_DEV_EV_BIT(RFM_DEV_EV_INTR1));
	lab_barrier(&l);
	if (l.index == 1)
		dying_guest(&l, fd);
	surviving_guest(&l);
	close(fd);
	return lab_finish(&l);
}
