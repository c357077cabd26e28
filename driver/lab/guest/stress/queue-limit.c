// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * queue-limit.c - a vm-stress program (stress.h):
 * event-queue memory: many openers at the maximum depth stay within the
 * module's cap (queue_limit_kib), the rest get ENOSPC.
 */
#include "stress.h"

static void t_queue_memory(void)
{
	long limit_kib = read_number("/sys/module/rfm/parameters/queue_limit_kib");
	/* Queues are whole pages. */
	uint64_t per_max = ((uint64_t)(RFM_DEV_QUEUE_MAX + 1) * sizeof(struct rfm_dev_event) +
			    4095) & ~4095ull;
	uint64_t per_default = ((uint64_t)(RFM_DEV_QUEUE_DEFAULT + 1) *
				sizeof(struct rfm_dev_event) + 4095) & ~4095ull;
	long before = mem_available_kib();
	int fds[OPENERS], opened = 0, grown = 0, refused = 0, other = 0;

	lab_begin(&L, "many openers at the maximum depth stay within the cap");
	CHECK(&L, limit_kib > 0, "no queue_limit_kib module parameter");
	if (limit_kib <= 0)
		limit_kib = 1 << 30;
	for (int i = 0; i < OPENERS; i++) {
		uint32_t depth = RFM_DEV_QUEUE_MAX;

		fds[i] = open(DEV, O_RDWR | O_CLOEXEC);
		if (fds[i] < 0) {
			if (errno == ENOSPC)
				refused++;
			else
				other++;
			continue;
		}
		opened++;
		if (ioctl(fds[i], RFM_IOC_SET_QUEUE_DEPTH, &depth) == 0)
			grown++;
		else if (errno == ENOSPC)
			refused++;
		else
			other++;
	}
	long during = mem_available_kib();
	uint64_t charged = grown * per_max + (uint64_t)(opened - grown) * per_default;
	printf("# %d opened, %d at depth %u, %d refused (ENOSPC); cap %ld KiB; MemAvailable %ld -> %ld KiB\n",
	       opened, grown, RFM_DEV_QUEUE_MAX, refused, limit_kib, before, during);
	CHECK_EQ(&L, other, 0);
	CHECK(&L, grown >= 1, "not even one queue at the maximum depth");
	CHECK(&L, charged <= (uint64_t)limit_kib * 1024, "%" PRIu64 " bytes of queues over the cap",
	      charged);
	CHECK(&L, refused > 0, "all %d openers got the maximum depth", OPENERS);
	/* Memory taken stays near the cap (slack: allocator rounding, file structs). */
	CHECK(&L, before - during < limit_kib + 8192, "MemAvailable fell by %ld KiB",
	      before - during);
	for (int i = 0; i < OPENERS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* All of it comes back: the full set fits again. */
	int fd = open_card(O_RDWR);
	uint32_t depth = RFM_DEV_QUEUE_MAX;
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth));
	close(fd);
	lab_end(&L);
}

int main(void)
{
	stress_init();
	t_queue_memory();
	return lab_finish(&L);
}
