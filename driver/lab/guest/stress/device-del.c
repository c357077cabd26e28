// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * device-del.c - a vm-stress program (stress.h):
 * QEMU's device_del (vm-run.sh -H: an ACPI hot-unplug) under the load of
 * the removal rounds: the card goes for good, so this runs last.
 */
#include <sys/stat.h>

#include "stress.h"

static bool wait_for_card_gone(void)
{
	uint64_t deadline = lab_now_ns() + (uint64_t)HANG_MS * 1000000u;
	struct stat st;

	while (stat(DEV, &st) == 0) {
		if (lab_now_ns() > deadline)
			return false;
		usleep(5000);
	}
	return true;
}

static void t_device_del(void)
{
	struct job mapper = { 0 }, dma = { 0 }, reader = { 0 }, flusher = { 0 };
	int fd = open_card(O_RDWR);
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR3);

	lab_begin(&L, "QEMU device_del under mmap, DMA, a blocked read and FLUSH");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	load_start(fd, &reader, &mapper, &dma, &flusher);
	/* vm-run.sh -H reads this on the console and asks QEMU. */
	printf("RFMLAB-DEVICE-DEL: rfm0\n");
	fflush(stdout);
	bool gone = wait_for_card_gone();
	CHECK(&L, gone, DEV " still there after device_del: the removal hangs");
	if (!gone)
		pthread_kill(reader.thread, SIGUSR1);
	if (job_wait(&reader, "the blocked read() after device_del"))
		CHECK(&L, reader.ret == -1 && reader.err == ENODEV, "read: %ld errno %d",
		      reader.ret, reader.err);
	stop_load = 1;
	if (load_wait(&mapper, &dma, &flusher)) {
		CHECK(&L, mapper.ret == 0 || mapper.err == ENODEV, "mmap: errno %d", mapper.err);
		CHECK(&L, dma.ret == 0 || dma.err == ENODEV, "DMA: errno %d", dma.err);
		CHECK(&L, flusher.ret == 0 || flusher.err == ENODEV, "FLUSH: errno %d",
		      flusher.err);
	}
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_GET_INFO, &(struct rfm_dev_info){ 0 }), ENODEV);
	close(fd);
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_device_del();
	return lab_finish(&L);
}
