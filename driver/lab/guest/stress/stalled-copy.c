// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stalled-copy.c - a vm-stress program (stress.h):
 * a read() whose copy is stalled (userfaultfd) holds up no other reader
 * of the file, nor FLUSH, resizing or removal.
 */
#include <linux/userfaultfd.h>
#include <sys/syscall.h>

#include "stress.h"

static void job_read_buf(struct job *j)
{
	lab_store(&j->started, 1);
	j->ret = read(j->fd, j->buf, j->len);
	j->err = errno;
}

/*
 * A page registered with userfaultfd: the first touch (the driver's copy)
 * stalls until we resolve it. Returns the page or NULL.
 */
static char *stalling_page(int *uffd)
{
	struct uffdio_api api = { .api = UFFD_API };
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	CHECK(&L, *uffd >= 0, "userfaultfd: %s", strerror(errno));
	if (*uffd < 0 || page == MAP_FAILED)
		return NULL;
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)page, .len = 4096 },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	CHECK_OK(&L, ioctl(*uffd, UFFDIO_API, &api));
	CHECK_OK(&L, ioctl(*uffd, UFFDIO_REGISTER, &reg));
	return page;
}

/* Waits until some thread's fault on the page is pending: it is stalled. */
static bool wait_stalled(int uffd, char *page)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, HANG_MS) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		return false;
	return msg.event == UFFD_EVENT_PAGEFAULT &&
	       (msg.arg.pagefault.address & ~4095ull) == (uintptr_t)page;
}

static void resolve_stall(int uffd, char *page)
{
	struct uffdio_zeropage z = { .range = { .start = (uintptr_t)page, .len = 4096 } };

	CHECK_OK(&L, ioctl(uffd, UFFDIO_ZEROPAGE, &z));
}

/*
 * @remove: the card is removed while the copy is stalled (another reader of
 * the file then gets ENODEV, the stalled reader its records).
 */
static bool t_stalled_copy(bool remove)
{
	int fd = open_card(O_RDWR), uffd = -1;
	uint32_t mask = RFM_DEV_EV_BIT(RFM_DEV_EV_INTR4), depth = 2048;
	uint32_t total = remove ? 20 : 40, first;
	struct rfm_dev_event rest[64];
	struct job a = { 0 }, b = { 0 }, flush = { 0 }, resize = { 0 }, remover = { 0 };
	char remove_path[256];
	bool ok = true;

	lab_begin(&L, remove ? "removal while a read()'s copy is stalled (userfaultfd)"
			     : "a read() whose copy is stalled holds up no other reader, FLUSH or resizing");
	char *page = stalling_page(&uffd);
	if (!page) {
		close(fd);
		lab_end(&L);
		return true;
	}
	if (remove)
		CHECK(&L, card_pci_path(remove_path, sizeof(remove_path)), "no PCI device for rfm0");
	CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_MASK, &mask));
	queue_records(fd, total);
	a.buf = page;
	a.len = total * REC;
	job_start(&a, job_read_buf, fd);
	CHECK(&L, wait_stalled(uffd, page), "the reader's copy did not reach the page");

	if (remove) {
		remover.path = remove_path;
		job_start(&remover, job_remove, -1);
		if (job_wait(&remover, "sysfs remove beside a stalled copy"))
			CHECK_EQ(&L, remover.ret, 1);
	}
	/* Another reader of the same file: the rest of the queue, or ENODEV. */
	b.buf = rest;
	b.len = sizeof(rest);
	job_start(&b, job_read_buf, fd);
	bool b_done = job_wait(&b, "a second read() beside a stalled copy");
	if (b_done && remove)
		CHECK(&L, b.ret == -1 && b.err == ENODEV, "read: %ld errno %d", b.ret, b.err);
	/* Without removal: the records the stalled reader did not take (if any). */
	uint32_t b_got = b_done && !remove && b.ret > 0 ? (uint32_t)(b.ret / REC) : 0;
	if (!remove) {
		job_start(&flush, job_flush, fd);
		if (job_wait(&flush, "FLUSH beside a stalled copy"))
			CHECK_EQ(&L, flush.ret, 0);
		job_start(&resize, job_resize, fd);
		/* Records out with the stalled reader still count: EBUSY, at once. */
		if (job_wait(&resize, "SET_QUEUE_DEPTH beside a stalled copy"))
			CHECK(&L, resize.ret == -1 && resize.err == EBUSY, "resize: %ld errno %d",
			      resize.ret, resize.err);
	}
	/* Let the copy go on: the stalled reader gets its records, in order. */
	resolve_stall(uffd, page);
	if (!job_wait(&a, "the stalled read() after its page arrived"))
		return false;
	first = a.ret > 0 ? (uint32_t)(a.ret / REC) : 0;
	CHECK(&L, a.ret > 0 && a.ret % REC == 0, "stalled read: %ld errno %d", a.ret, a.err);
	uint64_t seq0 = check_records(page, first, 0, 0);
	/* Between them, every record once, in order. */
	CHECK(&L, first + b_got == total, "%u + %u records read, %u queued", first, b_got, total);
	if (b_got)
		check_records(rest, b_got, first, seq0 + first);
	if (!b_done) {
		/* Old drivers: the second reader may now wait for records that never come. */
		pthread_kill(b.thread, SIGUSR1);
		if (!job_wait(&b, "the second read() after the copy ended"))
			return false;
	}
	if (!remove) {
		if (!job_wait(&flush, "FLUSH after the copy ended") ||
		    !job_wait(&resize, "SET_QUEUE_DEPTH after the copy ended"))
			ok = false;
		/* Nothing left, nothing duplicated; now idle, it resizes. */
		int nb = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, nb | O_NONBLOCK);
		CHECK_ERRNO(&L, read(fd, rest, sizeof(rest)), EAGAIN);
		CHECK_OK(&L, ioctl(fd, RFM_IOC_SET_QUEUE_DEPTH, &depth));
	}
	close(uffd);
	munmap(page, 4096);
	close(fd);
	if (remove) {
		write_file("/sys/bus/pci/rescan", "1");
		CHECK(&L, wait_for_card(), DEV " did not come back after a rescan");
	}
	lab_end(&L);
	return ok;
}

int main(void)
{
	stress_init();
	if (!t_stalled_copy(false) || !t_stalled_copy(true)) {
		printf("# giving up: a thread is stuck in the driver\n");
		lab_finish(&L);
		return STRESS_STUCK;
	}
	return lab_finish(&L);
}
