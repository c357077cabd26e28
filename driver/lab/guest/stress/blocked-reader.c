// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * blocked-reader.c - a vm-stress program (stress.h):
 * a blocked read() holds up neither FLUSH nor resizing.
 */
#include "stress.h"

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

int main(void)
{
	stress_init();
	t_blocked_reader();
	return lab_finish(&L);
}
