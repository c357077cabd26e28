/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Windows: os/random.h, the system's preferred generator (BCryptGenRandom). */
#include "config.h"

#include <errno.h>

#include "os/random.h"
#include "os/win/win-internal.h"

#include <bcrypt.h>

int rfm__os_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ULONG n = len > 0x40000000u ? 0x40000000u : (ULONG)len;

		if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, p, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}
