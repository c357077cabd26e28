// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * read-fault.c - a vm-stress program (stress.h):
 * a read() whose copy to user space faults returns the whole records
 * before the fault (or EFAULT) and loses none of the others.
 */
#include "stress.h"

static void t_read_fault(void)
{
	int fd = open_card(O_RDWR | O_NONBLOCK);
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR4);
	struct rfm_dev_event good[16];
	struct rfm_dev_counters c;
	char *base = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	lab_begin(&L, "a read() that faults mid-copy delivers whole records and loses none");
	CHECK(&L, base != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK_OK(&L, mprotect(base + 4096, 4096, PROT_NONE));
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	queue_records(fd, 12);
	/* Three records fit before the inaccessible page. */
	char *three = base + 4096 - 3 * REC;
	CHECK_EQ(&L, read(fd, three, 12 * REC), (ssize_t)(3 * REC));
	uint64_t seq0 = check_records(three, 3, 0, 0);
	CHECK_EQ(&L, read(fd, three, 12 * REC), (ssize_t)(3 * REC));
	check_records(three, 3, 3, seq0 + 3);
	/* Two and a half: the half-written record is delivered again later. */
	char *half = base + 4096 - 2 * REC - REC / 2;
	CHECK_EQ(&L, read(fd, half, 12 * REC), (ssize_t)(2 * REC));
	check_records(half, 2, 6, seq0 + 6);
	/* Nothing fits: EFAULT, nothing consumed. */
	CHECK_ERRNO(&L, read(fd, base + 4096, 12 * REC), EFAULT);
	CHECK_ERRNO(&L, read(fd, base + 4096 - REC / 2, 12 * REC), EFAULT);
	CHECK_EQ(&L, read(fd, good, sizeof(good)), (ssize_t)(4 * REC));
	check_records(good, 4, 8, seq0 + 8);
	CHECK_ERRNO(&L, read(fd, good, sizeof(good)), EAGAIN);
	CHECK_OK(&L, ioctl(fd, RFM_IOC_GET_COUNTERS, &c));
	CHECK_EQ(&L, c.file_queued, 12);
	CHECK_EQ(&L, c.file_dropped, 0);
	munmap(base, 8192);
	close(fd);
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_read_fault();
	return lab_finish(&L);
}
