/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of temporary files beside a path, for both halves (file-temp.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/file-temp.h"
#include "os/random.h"

/* Names tried before giving up (another process takes each). */
#define TEMP_TRIES 100

int rfm__os_temp_beside(const char *path, size_t dir_len, int (*create)(const char *name,
									unsigned int mode),
			unsigned int mode, char **tmpp)
{
	/* One case only: Windows' names ignore it. */
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(path) + sizeof("..rfm-XXXXXX");
	char *tmp = malloc(len);
	int err = EEXIST;

	if (!tmp)
		return -1;
	for (int i = 0; i < TEMP_TRIES && err == EEXIST; i++) {
		uint8_t rnd[6];
		char suffix[sizeof(rnd) + 1];
		int ret = rfm__os_random(rnd, sizeof(rnd));

		if (ret) {
			err = -ret;
			break;
		}
		for (size_t k = 0; k < sizeof(rnd); k++)
			suffix[k] = letters[rnd[k] % (sizeof(letters) - 1)];
		suffix[sizeof(rnd)] = '\0';
		snprintf(tmp, len, "%.*s.%s.rfm-%s", (int)dir_len, path, path + dir_len, suffix);
		if (create(tmp, mode) == 0) {
			*tmpp = tmp;
			return 0;
		}
		err = errno;
	}
	free(tmp);
	errno = err;
	return -1;
}
