/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rfm tool's OS layer on Windows (tools/os/tool-os.h). */
#include "config.h"

#include <windows.h>
#include <bcrypt.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/rfm.h>

#include "os/tool-os.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

bool tool_os_self_path(char *buf, size_t size)
{
	DWORD n = GetModuleFileNameA(NULL, buf, (DWORD)size);

	return n > 0 && n < size;
}

char *tool_os_realpath(const char *path)
{
	DWORD attrs = GetFileAttributesA(path);

	if (attrs == INVALID_FILE_ATTRIBUTES) {
		errno = ENOENT;
		return NULL;
	}
	return _fullpath(NULL, path, 0);
}

bool tool_os_is_dir_sep(char c)
{
	return c == '/' || c == '\\';
}

/*
 * One argument as the C runtime's parser reads it back (CommandLineToArgvW's
 * rules): quoted when it holds a space, a tab or a quote or is empty; a
 * quote escaped, and the backslashes before a quote or the closing quote
 * doubled.
 */
static size_t quote_arg(char *out, const char *arg)
{
	size_t n = 0, slashes = 0;
	bool quote = !*arg || strpbrk(arg, " \t\n\v\"");

	if (!quote) {
		n = strlen(arg);
		if (out)
			memcpy(out, arg, n);
		return n;
	}
	if (out)
		out[n] = '"';
	n++;
	for (const char *p = arg;; p++) {
		if (*p == '\\') {
			slashes++;
			continue;
		}
		size_t times = *p == '"' || !*p ? 2 * slashes + (*p == '"') : slashes;
		for (size_t i = 0; i < times; i++, n++)
			if (out)
				out[n] = '\\';
		slashes = 0;
		if (!*p)
			break;
		if (out)
			out[n] = *p;
		n++;
	}
	if (out)
		out[n] = '"';
	return n + 1;
}

int tool_os_exec(const char *path, char *const argv[], bool search)
{
	STARTUPINFOA si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;
	char exe[MAX_PATH], *line, *p;
	size_t len = 1;
	DWORD code = 1;

	if (search) {
		if (!SearchPathA(NULL, path, ".exe", sizeof(exe), exe, NULL))
			return ENOENT;
		path = exe;
	}
	for (int i = 0; argv[i]; i++)
		len += quote_arg(NULL, argv[i]) + 1;
	line = p = malloc(len);
	if (!line)
		return ENOMEM;
	for (int i = 0; argv[i]; i++) {
		if (i)
			*p++ = ' ';
		p += quote_arg(p, argv[i]);
	}
	*p = '\0';
	fflush(NULL);
	if (!CreateProcessA(path, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
		DWORD err = GetLastError();
		free(line);
		return err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? ENOENT : EACCES;
	}
	free(line);
	CloseHandle(pi.hThread);
	/* Windows has no exec(): the helper's status is ours once it ends. */
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	exit((int)code);
}

void tool_os_binary_stream(FILE *f)
{
	fflush(f);
	_setmode(_fileno(f), _O_BINARY);
}

int tool_os_sync_file(FILE *fp)
{
	return _commit(_fileno(fp));
}

int tool_os_replace_file(const char *tmp, const char *target)
{
	if (MoveFileExA(tmp, target, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
		return 0;
	return GetLastError() == ERROR_ACCESS_DENIED ? EACCES : EIO;
}

bool tool_os_is_terminal(FILE *f)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	DWORD mode;

	if (h == INVALID_HANDLE_VALUE || !GetConsoleMode(h, &mode))
		return false;	/* a file or a pipe */
	return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) ||
	       SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
}

int tool_os_setenv(const char *name, const char *value)
{
	return _putenv_s(name, value) ? errno : 0;
}

static void (*interrupt_fn)(void);

/* Runs in a thread the console starts; returning TRUE keeps the process. */
static BOOL WINAPI on_console_event(DWORD event)
{
	switch (event) {
	case CTRL_C_EVENT:
	case CTRL_BREAK_EVENT:
		interrupt_fn();
		return TRUE;
	case CTRL_CLOSE_EVENT:
		/* The console closes: stop cleanly within the seconds Windows allows. */
		interrupt_fn();
		Sleep(2000);
		return TRUE;
	}
	return FALSE;
}

void tool_os_on_interrupt(void (*fn)(void))
{
	interrupt_fn = fn;
	SetConsoleCtrlHandler(on_console_event, TRUE);
}

void tool_os_ignore_broken_pipe(void)
{
	/* Winsock reports a hung-up peer as an error of the send: no signal. */
}

int tool_os_raise_open_files(uint64_t *limit)
{
	/* Sockets are handles: no descriptor limit of POSIX's kind. */
	*limit = UINT64_MAX;
	return 0;
}

int tool_os_random(void *buf, size_t len)
{
	return BCRYPT_SUCCESS(
		   BCryptGenRandom(NULL, buf, (ULONG)len, BCRYPT_USE_SYSTEM_PREFERRED_RNG))
		   ? 0
		   : -1;
}

bool tool_os_sleep_until_ns(uint64_t t)
{
	/* One timer per thread: made on first use, kept for the thread's life. */
	static __thread HANDLE timer;
	uint64_t now = rfm_event_now_ns();
	LARGE_INTEGER due;

	if (t <= now)
		return false;
	if (!timer)
		timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
					       TIMER_ALL_ACCESS);
	if (!timer) /* before Windows 10 1803: the ordinary timer */
		timer = CreateWaitableTimerW(NULL, TRUE, NULL);
	/* Negative: relative, in units of 100 ns. */
	due.QuadPart = -(LONGLONG)((t - now + 99) / 100);
	if (!timer || !SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE)) {
		Sleep((DWORD)((t - now + 999999) / 1000000));
		return false;
	}
	WaitForSingleObject(timer, INFINITE);
	return false;
}

void tool_os_precise_timers(void)
{
	/* The high-resolution waitable timer of tool_os_sleep_until_ns() needs nothing more. */
}

void tool_os_yield(void)
{
	SwitchToThread();
}

int tool_os_allowed_cpus(struct rfm_os_cpus *set)
{
	DWORD_PTR process, system;

	rfm__os_cpus_zero(set);
	if (!GetProcessAffinityMask(GetCurrentProcess(), &process, &system))
		return -1;
	/* The process's processor group: the first 64 CPUs at most. */
	for (unsigned int c = 0; c < 8 * sizeof(process); c++)
		if (process >> c & 1)
			rfm__os_cpus_add(set, c);
	return 0;
}

int tool_os_set_affinity(const struct rfm_os_cpus *set)
{
	DWORD_PTR mask = 0;

	for (unsigned int c = 0; c < RFM_OS_CPUS; c++) {
		if (!rfm__os_cpus_has(set, c))
			continue;
		if (c >= 8 * sizeof(mask))
			return EINVAL; /* beyond the process's processor group */
		mask |= (DWORD_PTR)1 << c;
	}
	return SetThreadAffinityMask(GetCurrentThread(), mask) ? 0 : EINVAL;
}

int tool_os_set_rt_priority(int prio, char *why, size_t why_size)
{
	why[0] = '\0';
	/*
	 * Windows has no priority numbers of SCHED_FIFO's kind: the thread
	 * goes to the top of its class, and the process to the real-time
	 * class when the account may (else Windows keeps it at high).
	 */
	(void)prio;
	SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS);
	if (!SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL)) {
		snprintf(why, why_size, "SetThreadPriority failed (Windows error %lu)",
			 GetLastError());
		return EPERM;
	}
	return 0;
}

int tool_os_lock_memory(char *why, size_t why_size)
{
	/*
	 * Windows locks pages one range at a time (VirtualLock), within the
	 * working set: the nodes' lock=1 locks the window and queues; here
	 * the working set grows so that they fit.
	 */
	SIZE_T min, max;

	why[0] = '\0';
	if (GetProcessWorkingSetSize(GetCurrentProcess(), &min, &max) &&
	    SetProcessWorkingSetSize(GetCurrentProcess(), min + (64u << 20), max + (64u << 20)))
		return 0;
	snprintf(why, why_size, "SetProcessWorkingSetSize failed (Windows error %lu)",
		 GetLastError());
	return EPERM;
}
