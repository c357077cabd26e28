/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rfm tool's OS layer: what the tool (not the library) does
 * differently on Linux and on Windows, behind one small interface.
 * tools/os/posix/ and tools/os/win/ implement it; the build picks the
 * directory (RFM_OS), as it does for the library's src/os/. Command code
 * calls these and never asks which OS it runs on.
 */
#ifndef RFM_TOOLS_OS_H
#define RFM_TOOLS_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "os/thread.h" /* struct rfm_os_cpus: a CPU set, the same on every OS */

/* The full path of this program's own file into @buf; false if unknown. */
bool tool_os_self_path(char *buf, size_t size);

/* The absolute path of @path with links resolved (malloc'ed), or NULL with errno. */
char *tool_os_realpath(const char *path);

/* Whether @c separates directories in a path ('/'; on Windows '\\' too). */
bool tool_os_is_dir_sep(char c);

/*
 * Run @path (looked up in PATH when @search) with @argv in the place of
 * this program: its exit status becomes ours. Returns only when it could
 * not be started, with an errno value.
 */
int tool_os_exec(const char *path, char *const argv[], bool search);

/* Make @f (stdin, stdout) carry bytes as they are (Windows: no "\r\n" or ^Z translation). */
void tool_os_binary_stream(FILE *f);

/* Write @fp's file through to the disk (fsync; _commit on Windows): 0 or -1 with errno. */
int tool_os_sync_file(FILE *fp);

/* Put file @tmp in the place of @target, replacing it whole: 0 or an errno value. */
int tool_os_replace_file(const char *tmp, const char *target);

/*
 * Whether @f is a terminal that takes ANSI escape sequences (the tool's
 * progress line and rfm watch's redraw); on Windows a console, whose VT
 * processing this turns on (Windows 10 and later).
 */
bool tool_os_is_terminal(FILE *f);

/* setenv(@name, @value, 1): 0 or an errno value. */
int tool_os_setenv(const char *name, const char *value);

/*
 * Call @fn on Ctrl-C and on a request to terminate (SIGINT and SIGTERM;
 * on Windows the console's Ctrl-C, Ctrl-Break and close events). @fn may
 * only set flags and call rfm_event_cancel(): on Linux it runs in a
 * signal handler, on Windows in a thread of the console's.
 */
void tool_os_on_interrupt(void (*fn)(void));

/* Writing to a socket whose peer hung up fails instead of ending the process. */
void tool_os_ignore_broken_pipe(void);

/*
 * Raise this process's limit of open descriptors as far as allowed
 * (rfm serve's connections): 0 with the limit in *@limit (UINT64_MAX
 * when there is none), or -1 when unknown.
 */
int tool_os_raise_open_files(uint64_t *limit);

/* @len random bytes from the OS's generator: 0 or -1. */
int tool_os_random(void *buf, size_t len);

/*
 * Sleep until rfm_event_now_ns() reads @t, at the finest resolution
 * the OS offers to this thread (Linux: clock_nanosleep, with the slack
 * tool_os_precise_timers() set; Windows: a high-resolution waitable timer).
 * Returns early, with true, when interrupted by a signal.
 */
bool tool_os_sleep_until_ns(uint64_t t);

/* Ask the OS to wake this thread's sleeps on time (Linux: 1 ns timer slack). */
void tool_os_precise_timers(void);

/* Give the CPU to another thread that is ready to run. */
void tool_os_yield(void);

/* ---- real-time setup of a thread (rt-util.c) ---- */

/* The CPUs this process may run on into @set: 0, or -1 when unknown. */
int tool_os_allowed_cpus(struct rfm_os_cpus *set);

/* Run the calling thread on @set only: 0 or an errno value. */
int tool_os_set_affinity(const struct rfm_os_cpus *set);

/*
 * Run the calling thread at real-time priority @prio (1..99): 0, or an
 * errno value with what is missing said in @why (@why_size bytes).
 */
int tool_os_set_rt_priority(int prio, char *why, size_t why_size);

/* Lock the process's memory in RAM: 0, or an errno value with @why as above. */
int tool_os_lock_memory(char *why, size_t why_size);

#endif /* RFM_TOOLS_OS_H */
