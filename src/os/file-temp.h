/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inside the OS layer: the name of a temporary file beside a path, as
 * both halves make it (os/file.h, rfm__os_file_temp_beside()). Not for the
 * core: it calls rfm__os_file_temp_beside().
 */
#ifndef RFM_OS_FILE_TEMP_H
#define RFM_OS_FILE_TEMP_H

#include <stddef.h>

/*
 * Names ".NAME.rfm-XXXXXX" beside @path (its directory being its first
 * @dir_len bytes), each tried with @create(name, @mode), which makes the
 * file only where nothing has the name (0, or -1 with errno); a name
 * taken (EEXIST) is followed by another. 0 with the name in *@tmpp (the
 * caller frees it), or -1 with errno.
 */
int rfm__os_temp_beside(const char *path, size_t dir_len, int (*create)(const char *name,
									unsigned int mode),
			unsigned int mode, char **tmpp);

#endif /* RFM_OS_FILE_TEMP_H */
