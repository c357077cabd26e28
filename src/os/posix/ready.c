/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Linux: os/ready.h, an eventfd (readable while its count is not 0). */
#include "config.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "os/file.h"
#include "os/ready.h"

const enum rfm_os_ready_kind rfm__os_ready_kind = RFM_OS_READY_FD;

int rfm__os_ready_create(intptr_t *obj)
{
	int fd = rfm__fd_keep_off_std(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));

	if (fd < 0)
		return -errno;
	*obj = fd;
	return 0;
}

void rfm__os_ready_set(intptr_t obj)
{
	uint64_t one = 1;

	if (write((int)obj, &one, sizeof(one)) < 0) {
		/* cannot overflow: every clear reads it back to 0 */
	}
}

void rfm__os_ready_clear(intptr_t obj)
{
	uint64_t count;

	if (read((int)obj, &count, sizeof(count)) < 0) {
		/* EAGAIN: already clear */
	}
}

void rfm__os_ready_close(intptr_t obj)
{
	close((int)obj);
}
