/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The harness on Windows (harness-internal.h). There is no fork(): a
 * helper process is this program started again (CreateProcess()) with
 *
 *   PROGRAM --harness-child=FN:GO:REPORT
 *
 * FN is the child function's offset in the program's image (the same
 * image, so the same code), GO and REPORT the handles of the child's ends
 * of two pipes, inherited by it alone. harness_init(), the first call of
 * every test's main(), sees the option, reads the argument's bytes that
 * the parent sent first on GO (harness_child_spawn()), runs the function
 * and exits with its result: the tests never run in the child. Then, as
 * on Linux: one 'R' byte on REPORT when ready, one 'G' byte on GO to go on,
 * reports on REPORT. The parent waits for a child by its process handle,
 * with the same hang guard, and kills it with TerminateProcess() (exit
 * status 137, as SIGKILL's 128 + 9). Children live in a job object that
 * kills them if the parent dies.
 *
 * The segment directory is the library's on Windows: $RFM_SHM_DIR, else
 * %LOCALAPPDATA%\librfm\shm (docs/windows.md).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <tlhelp32.h>

#include <rfm/rfm.h>

#include "harness.h"
#include "harness-internal.h"

#define progname harness_progname
#define CHILD_OPTION "--harness-child="
#define KILLED_STATUS HARNESS_EXIT_KILLED
/* Most bytes of a child's argument. */
#define ARG_MAX_LEN 65536

const unsigned int *harness_os_shared_suite_needs(void)
{
	/* No weak symbols in a PE program; the dds: passes that ask are Linux's. */
	return NULL;
}

const char *harness_os_progname(void)
{
	static char name[MAX_PATH];
	char path[MAX_PATH], *base, *dot;
	DWORD n = GetModuleFileNameA(NULL, path, sizeof(path));

	if (!n || n >= sizeof(path))
		return "test";
	base = strrchr(path, '\\');
	base = base ? base + 1 : path;
	snprintf(name, sizeof(name), "%s", base);
	dot = strrchr(name, '.');
	if (dot && !_stricmp(dot, ".exe"))
		*dot = '\0';
	return name;
}

const char *harness_os_seg_dir(void)
{
	static char dir[MAX_PATH + 32];
	const char *env = getenv("RFM_SHM_DIR"), *app = getenv("LOCALAPPDATA");

	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else
		snprintf(dir, sizeof(dir), "%s\\librfm\\shm", app ? app : ".");
	return dir;
}

const char *harness_os_shm_unavailable(void)
{
	static char why[MAX_PATH + 64];
	const char *dir = harness_os_seg_dir();
	DWORD attr;

	/* The library makes it on first use: only a path that cannot be one is fatal. */
	if (!getenv("RFM_SHM_DIR") && !getenv("LOCALAPPDATA"))
		return "neither RFM_SHM_DIR nor LOCALAPPDATA is set: no segment directory";
	attr = GetFileAttributesA(dir);
	if (attr != INVALID_FILE_ATTRIBUTES && !(attr & FILE_ATTRIBUTE_DIRECTORY)) {
		snprintf(why, sizeof(why), "the segment directory %s is not a directory", dir);
		return why;
	}
	return NULL;
}

void harness_os_setenv_default(const char *name, const char *value)
{
	if (!getenv(name))
		_putenv_s(name, value);
}

static VOID CALLBACK watchdog_fired(PVOID arg, BOOLEAN fired)
{
	fprintf(stderr, "%s: still running after %u s: giving up\n", progname,
		(unsigned int)(uintptr_t)arg);
	fflush(NULL);
	ExitProcess(HARNESS_EXIT_ERROR);
}

void harness_watchdog(unsigned int seconds)
{
	static HANDLE timer;

	if (timer)
		DeleteTimerQueueTimer(NULL, timer, NULL);
	timer = NULL;
	if (seconds)
		CreateTimerQueueTimer(&timer, NULL, watchdog_fired, (PVOID)(uintptr_t)seconds,
				      seconds * 1000u, 0, WT_EXECUTEONLYONCE);
}

void harness_os_init(void)
{
	/* A write to a pipe whose reader died fails with EPIPE here anyway. */
}

/* ---- registry of children, for cleaning up after a failed test ---- */

#define MAX_CHILDREN 64

struct child_record {
	HANDLE process; /* NULL: free slot */
	int go_fd;
	int report_fd;
};

static struct child_record children[MAX_CHILDREN];
static HANDLE job;

static struct child_record *child_record(HANDLE process)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i].process == process)
			return &children[i];
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		_close(*fd);
	*fd = -1;
}

static void child_forget(HANDLE process)
{
	struct child_record *rec = child_record(process);

	if (!rec)
		return;
	close_fd(&rec->go_fd);
	close_fd(&rec->report_fd);
	CloseHandle(rec->process);
	rec->process = NULL;
}

void harness_kill_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		HANDLE p = children[i].process;

		if (!p)
			continue;
		TerminateProcess(p, KILLED_STATUS);
		WaitForSingleObject(p, INFINITE);
		child_forget(p);
	}
}

/* The threads of this process now (a snapshot of the system's). */
int harness_thread_count(void)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
	THREADENTRY32 te = { .dwSize = sizeof(te) };
	DWORD me = GetCurrentProcessId();
	int n = 0;

	if (snap == INVALID_HANDLE_VALUE)
		return -1;
	for (BOOL ok = Thread32First(snap, &te); ok; ok = Thread32Next(snap, &te))
		if (te.th32OwnerProcessID == me)
			n++;
	CloseHandle(snap);
	return n;
}

/* ---- pipes ---- */

int harness_os_write_all(int fd, const void *buf, size_t len)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	const char *p = buf;

	while (len) {
		DWORD n;

		if (!WriteFile(h, p, (DWORD)len, &n, NULL) || !n)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* The hang guard: an overdue read of the reading thread is cancelled. */
static VOID CALLBACK cancel_read(PVOID thread, BOOLEAN fired)
{
	CancelSynchronousIo((HANDLE)thread);
}

/* Read exactly @len bytes; -1 on EOF, error or HARNESS_HANG_TIMEOUT_MS. */
int harness_os_read_all(int fd, void *buf, size_t len, bool guard)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd), thread = NULL, timer = NULL;
	char *p = buf;
	int ret = 0;

	if (guard &&
	    (!DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &thread,
			      0, FALSE, DUPLICATE_SAME_ACCESS) ||
	     !CreateTimerQueueTimer(&timer, NULL, cancel_read, thread, HARNESS_HANG_TIMEOUT_MS, 0,
				    WT_EXECUTEONLYONCE)))
		timer = NULL; /* no guard to be had: read as the child does */
	while (len) {
		DWORD n;

		if (!ReadFile(h, p, (DWORD)len, &n, NULL) || !n) {
			if (GetLastError() == ERROR_OPERATION_ABORTED)
				fprintf(stderr, "%s: peer silent for %d ms\n", progname,
					HARNESS_HANG_TIMEOUT_MS);
			ret = -1;
			break;
		}
		p += n;
		len -= n;
	}
	if (timer)
		DeleteTimerQueueTimer(NULL, timer, INVALID_HANDLE_VALUE);
	if (thread)
		CloseHandle(thread);
	return ret;
}

/* ---- the child's side ---- */

void harness_os_child_main(void)
{
	const char *cmd = GetCommandLineA(), *opt = strstr(cmd, CHILD_OPTION);
	unsigned long long fn_off, go, report;
	struct harness_link link;
	harness_child_fn fn;
	uint32_t len = 0;
	void *arg = NULL;
	int ret;

	if (!opt)
		return;
	if (sscanf(opt + strlen(CHILD_OPTION), "%llx:%llx:%llx", &fn_off, &go, &report) != 3) {
		fprintf(stderr, "%s: bad %s option\n", progname, CHILD_OPTION);
		ExitProcess(HARNESS_EXIT_ERROR);
	}
	harness_in_child = true;
	link.go_fd = _open_osfhandle((intptr_t)go, _O_RDONLY | _O_BINARY);
	link.report_fd = _open_osfhandle((intptr_t)report, _O_WRONLY | _O_BINARY);
	if (link.go_fd < 0 || link.report_fd < 0 ||
	    harness_os_read_all(link.go_fd, &len, sizeof(len), false) || len > ARG_MAX_LEN ||
	    (len && !(arg = malloc(len))) || (len && harness_os_read_all(link.go_fd, arg, len, false)))
		ExitProcess(HARNESS_EXIT_ERROR);
	fn = (harness_child_fn)((uintptr_t)GetModuleHandleA(NULL) + (uintptr_t)fn_off);
	ret = fn(&link, arg);
	fflush(NULL);
	ExitProcess(ret >= 0 && ret <= 255 ? (UINT)ret : 1);
}

/* ---- the parent's side ---- */

/* A pipe whose ends are not inherited; the child's end is made so for its start only. */
static void make_pipe(HANDLE *rd, HANDLE *wr)
{
	if (!CreatePipe(rd, wr, NULL, 0))
		harness_fail(__FILE__, __LINE__, "CreatePipe: error %lu", GetLastError());
}

/* Children die with the parent: a job that kills them when its last handle goes. */
static void join_job(HANDLE process)
{
	if (!job) {
		JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = { 0 };

		job = CreateJobObjectA(NULL, NULL);
		li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
		if (job)
			SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li,
						sizeof(li));
	}
	if (job)
		AssignProcessToJobObject(job, process); /* best effort */
}

void harness_child_spawn(struct harness_child *child, harness_child_fn fn, const void *arg,
			 size_t arg_len)
{
	struct child_record *rec = child_record(NULL);
	HANDLE go_rd, go_wr, rep_rd, rep_wr;
	char exe[MAX_PATH], cmd[MAX_PATH + 128];
	STARTUPINFOA si = { .cb = sizeof(si) };
	PROCESS_INFORMATION pi;
	uint32_t len = (uint32_t)arg_len;
	BOOL ok;

	if (!rec)
		harness_fail(__FILE__, __LINE__, "more than %d live children", MAX_CHILDREN);
	if (arg_len > ARG_MAX_LEN)
		harness_fail(__FILE__, __LINE__, "a child's argument of %zu bytes", arg_len);
	if (!GetModuleFileNameA(NULL, exe, sizeof(exe)))
		harness_fail(__FILE__, __LINE__, "GetModuleFileName: error %lu", GetLastError());
	make_pipe(&go_rd, &go_wr);
	make_pipe(&rep_rd, &rep_wr);
	snprintf(cmd, sizeof(cmd), "\"%s\" " CHILD_OPTION "%llx:%llx:%llx", exe,
		 (unsigned long long)((uintptr_t)fn - (uintptr_t)GetModuleHandleA(NULL)),
		 (unsigned long long)(uintptr_t)go_rd, (unsigned long long)(uintptr_t)rep_wr);
	fflush(NULL); /* the child shares stdout and stderr */
	SetHandleInformation(go_rd, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
	SetHandleInformation(rep_wr, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
	ok = CreateProcessA(exe, cmd, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi);
	CloseHandle(go_rd);
	CloseHandle(rep_wr);
	if (!ok)
		harness_fail(__FILE__, __LINE__, "CreateProcess: error %lu", GetLastError());
	join_job(pi.hProcess);
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);

	child->pid = (pid_t)pi.dwProcessId;
	child->process = pi.hProcess;
	child->go_fd = _open_osfhandle((intptr_t)go_wr, _O_WRONLY | _O_BINARY);
	child->report_fd = _open_osfhandle((intptr_t)rep_rd, _O_RDONLY | _O_BINARY);
	child->reaped = false;
	child->status = 0;
	rec->process = pi.hProcess;
	rec->go_fd = child->go_fd;
	rec->report_fd = child->report_fd;
	if (harness_os_write_all(child->go_fd, &len, sizeof(len)) ||
	    (len && harness_os_write_all(child->go_fd, arg, arg_len)))
		harness_fail(__FILE__, __LINE__, "the child died before its argument was sent");
}

void harness_child_start(struct harness_child *child, harness_child_fn fn, void *arg)
{
	/* No fork(): the child has none of our memory, and @arg points into it. */
	harness_fail(__FILE__, __LINE__,
		     "harness_child_start() forks: on Windows start children with "
		     "harness_child_spawn() and an argument of plain bytes");
	(void)child, (void)fn, (void)arg;
}

bool harness_can_fork(void)
{
	return false;
}

bool harness_vendor_dll_needed(void)
{
	return true;
}

void harness_quiet_before_fork(void)
{
	/* No fork() here. */
}

long harness_thread_id(void)
{
	return (long)GetCurrentThreadId();
}

bool harness_can_see_sleepers(void)
{
	return false;
}

/* Windows says a thread waits, not whether that wait is the library's. */
bool harness_thread_sleeping(long tid)
{
	(void)tid;
	return false;
}

int harness_event_ready(rfm_node *node, int timeout_ms)
{
	void *h = NULL;

	if (rfm_event_handle(node, &h) < 0)
		return -1;
	switch (WaitForSingleObject(h, timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms)) {
	case WAIT_OBJECT_0:
		return 1;
	case WAIT_TIMEOUT:
		return 0;
	default:
		return -1;
	}
}

void harness_os_child_exit(int code)
{
	ExitProcess((UINT)code);
}

/* An exit code as a Linux wait status reads: 0..255, else an exception. */
static int decode_status(int code)
{
	if (code >= 0 && code <= 255)
		return code;
	fprintf(stderr, "%s: a child ended with exception 0x%08x\n", progname, (unsigned int)code);
	return 128 + 6; /* as an abort */
}

int harness_child_wait(struct harness_child *child)
{
	DWORD code;

	if (child->reaped)
		return decode_status(child->status);
	if (WaitForSingleObject(child->process, HARNESS_HANG_TIMEOUT_MS) != WAIT_OBJECT_0) {
		fprintf(stderr, "%s: child %d still running after %d ms: killing it\n", progname,
			(int)child->pid, HARNESS_HANG_TIMEOUT_MS);
		harness_child_kill(child);
		return -1;
	}
	if (!GetExitCodeProcess(child->process, &code))
		code = (DWORD)-1;
	child->reaped = true;
	child->status = (int)code;
	child_forget(child->process);
	return decode_status(child->status);
}

bool harness_can_interrupt(void)
{
	return false;
}

/* A console control event reaches every process of a console group, the
 * parent's included: not one child's signal. */
bool harness_child_interrupt(struct harness_child *child)
{
	(void)child;
	return false;
}

void harness_child_kill(struct harness_child *child)
{
	DWORD code = KILLED_STATUS;

	if (child->reaped)
		return;
	TerminateProcess(child->process, KILLED_STATUS);
	WaitForSingleObject(child->process, INFINITE);
	GetExitCodeProcess(child->process, &code);
	child->reaped = true;
	child->status = (int)code;
	child_forget(child->process);
}
