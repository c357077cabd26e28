/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Modules (the OS layer; docs/architecture.md, "The OS layer"): shared
 * libraries the library opens at run time, so that what they need is
 * loaded only by a process that uses them (the HDF5 writer of recordings:
 * recorder-module.c). dlopen() on Linux, LoadLibraryExW() on Windows.
 * A module once opened stays for the life of the process: the libraries
 * it brings (HDF5) keep state that must not be unmapped under them.
 */
#ifndef RFM_OS_MODULE_H
#define RFM_OS_MODULE_H

#include <stddef.h>

/* The file name ending of a module: ".so" (Linux), ".dll" (Windows). */
const char *rfm__os_module_suffix(void);

/*
 * Open module file @path and what it needs, every symbol bound now and
 * none of them shown to other modules. Its handle, or NULL with why not
 * (the OS's words: a library it needs is missing, the file is no module
 * of this machine...) in @why (@len bytes, NUL-terminated).
 */
void *rfm__os_module_open(const char *path, char *why, size_t len);

/* The address of @name in @module, or NULL when it has none. */
void *rfm__os_module_symbol(void *module, const char *name);

/* Close @module (one that was refused): nothing of it may be in use. */
void rfm__os_module_close(void *module);

/*
 * The directory of the file this library was loaded from (librfm.so.1,
 * librfm-1.dll; in a build tree, its .libs directory), without a final
 * separator, in @buf: 0, or -1 with errno (ERANGE: @len is too small).
 */
int rfm__os_module_self_dir(char *buf, size_t len);

#endif /* RFM_OS_MODULE_H */
