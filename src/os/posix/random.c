/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Linux: os/random.h, getrandom(2). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

#include "os/random.h"

int rfm__os_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t got = getrandom(p, len, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		p += got;
		len -= (size_t)got;
	}
	return 0;
}
