/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* POSIX: os/module.h with dlopen(). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/module.h"

const char *rfm__os_module_suffix(void)
{
	return ".so";
}

void *rfm__os_module_open(const char *path, char *why, size_t len)
{
	/* RTLD_LOCAL: what the module brings (HDF5) binds no other library's symbols. */
	void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!module) {
		const char *err = dlerror();
		snprintf(why, len, "%s", err ? err : "dlopen() failed");
	}
	return module;
}

void *rfm__os_module_symbol(void *module, const char *name)
{
	return dlsym(module, name);
}

void rfm__os_module_close(void *module)
{
	dlclose(module);
}

int rfm__os_module_self_dir(char *buf, size_t len)
{
	Dl_info info;
	char *path, *slash;

	/* This function's own address lies in the library's file. */
	if (!dladdr((void *)rfm__os_module_self_dir, &info) || !info.dli_fname) {
		errno = ENOENT;
		return -1;
	}
	path = realpath(info.dli_fname, NULL);
	if (!path)
		return -1;
	slash = strrchr(path, '/');
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= len) {
		free(path);
		errno = ERANGE;
		return -1;
	}
	memcpy(buf, path, n);
	buf[n] = '\0';
	free(path);
	return 0;
}
