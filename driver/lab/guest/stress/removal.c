// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * removal.c - a vm-stress program (stress.h):
 * removal (sysfs) while threads mmap, DMA into faulting pages, block in
 * read() and FLUSH: it completes, every thread ends with ENODEV; then a
 * rescan brings the card back; three rounds.
 */
#include "stress.h"

static bool t_removal_round(int round)
{
	char remove_path[256];
	struct job mapper = { 0 }, dma = { 0 }, reader = { 0 }, flusher = { 0 }, remover = { 0 };
	int fd = open_card(O_RDWR);
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR3);
	bool ok = true;

	lab_begin(&L, round == 0 ? "removal under mmap, DMA, a blocked read and FLUSH"
				 : "removal again after a rescan");
	CHECK(&L, card_pci_path(remove_path, sizeof(remove_path)), "no PCI device for rfm0");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	volatile uint32_t *page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(&L, page != MAP_FAILED, "mmap: %s", strerror(errno));

	load_start(fd, &reader, &mapper, &dma, &flusher);

	remover.path = remove_path;
	job_start(&remover, job_remove, -1);
	if (!job_wait(&remover, "sysfs remove under load")) {
		/* Old drivers: wake the reader, which lets removal go on. */
		pthread_kill(reader.thread, SIGUSR1);
		ok = job_wait(&remover, "sysfs remove after the reader was signalled");
		if (!ok)
			return false;
	} else {
		CHECK_EQ(&L, remover.ret, 1);
	}
	if (!job_wait(&reader, "the blocked read() after removal"))
		return false;
	CHECK(&L, reader.ret == -1 && reader.err == ENODEV, "read: %ld errno %d", reader.ret,
	      reader.err);
	stop_load = 1;
	ok = load_wait(&mapper, &dma, &flusher);
	if (!ok)
		return false;
	/* Each loop either saw the removal (ENODEV) or was stopped first. */
	CHECK(&L, mapper.ret == 0 || mapper.err == ENODEV, "mmap: errno %d", mapper.err);
	CHECK(&L, dma.ret == 0 || dma.err == ENODEV, "DMA: errno %d", dma.err);
	CHECK(&L, flusher.ret == 0 || flusher.err == ENODEV, "FLUSH: errno %d", flusher.err);
	CHECK_ERRNO(&L, ioctl(fd, RFM_IOC_FLUSH), ENODEV);
	if (page != MAP_FAILED)
		munmap((void *)page, 4096);
	close(fd);

	/* The card comes back with a rescan (the driver still claims the id). */
	write_file("/sys/bus/pci/rescan", "1");
	CHECK(&L, wait_for_card(), DEV " did not come back after a rescan");
	int again = open(DEV, O_RDWR | O_CLOEXEC);
	struct rfm_dev_info info;
	CHECK(&L, again >= 0, "open after rescan: %s", strerror(errno));
	if (again >= 0) {
		CHECK_OK(&L, ioctl(again, RFM_IOC_GET_INFO, &info));
		close(again);
	}
	lab_end(&L);
	return true;
}

int main(void)
{
	stress_init();
	for (int round = 0; round < 3; round++)
		if (!t_removal_round(round)) {
			printf("# giving up: a thread is stuck in the driver\n");
			lab_end(&L);
			lab_finish(&L);
			return STRESS_STUCK;
		}
	return lab_finish(&L);
}
