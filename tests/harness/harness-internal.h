/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the harness's common part (harness.c) asks of its per-OS part:
 * harness-posix.c (Linux: fork(), pipes) or harness-win.c (Windows:
 * CreateProcess(), the program started again as the child).
 */
#ifndef RFM_TEST_HARNESS_INTERNAL_H
#define RFM_TEST_HARNESS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* The program's name, for messages and network names (harness.c sets it). */
extern char harness_progname[32];
/* True in a helper process: its exit handlers touch no network. */
extern bool harness_in_child;

/* In a helper process: the parent's networks are not ours to remove. */
void harness_forget_networks(void);

/* HARNESS_SHARED_SUITE()'s needs in this program, or NULL when it is not
 * a shared suite (or, on Windows, where no probe asks: NULL). */
const unsigned int *harness_os_shared_suite_needs(void);

/* The program's file name without its directory. */
const char *harness_os_progname(void);
/* In a helper process started again from this program, run its function
 * and exit; elsewhere return at once. */
void harness_os_child_main(void);
/* Once harness_init() chose the backend: what the OS needs set up. */
void harness_os_init(void);
/* The directory of shm: segments (/dev/shm), and NULL when it can be used,
 * else why not. */
const char *harness_os_seg_dir(void);
const char *harness_os_shm_unavailable(void);
/* The pipes between parent and child: write all of @len bytes, read
 * exactly @len (with @guard, -1 once the peer is silent for
 * HARNESS_HANG_TIMEOUT_MS); 0, or -1 on EOF or an error. */
int harness_os_write_all(int fd, const void *buf, size_t len);
int harness_os_read_all(int fd, void *buf, size_t len, bool guard);
/* End a helper process at once, running none of the parent's exit handlers. */
__attribute__((noreturn)) void harness_os_child_exit(int code);
/* setenv(@name, @value) unless @name is set already. */
void harness_os_setenv_default(const char *name, const char *value);

#endif /* RFM_TEST_HARNESS_INTERNAL_H */
