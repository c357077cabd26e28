// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win-run.exe: start a Windows program and give back its exit status the way
 * a Unix shell and Automake's test driver read it (build-aux/win-env.sh
 * builds it and runs programs through it under wine).
 *
 * wine's own exit status is the program's 32-bit exit code cut to 8 bits:
 * an exception (0xC0000005, access violation) comes back as 5, and
 * 0xC000004D as 77, which Automake counts as a skip. This launcher reads
 * the whole code with GetExitCodeProcess() and maps it:
 *   0..255                      the code itself
 *   an exception (NTSTATUS)     128 + the Unix signal it stands for (access
 *                               violation 139, illegal instruction 132,
 *                               divide by zero 134/136, fail-fast 134,
 *                               breakpoint 133, Ctrl-C 130), or 125 for any
 *                               other code, with the code on stderr
 *   a program that cannot start 127 (not found) or 126 (wine's own
 *                               failure to create a process is tried again,
 *                               see start_suspended())
 * The child runs in a job object that kills it when the launcher goes (a
 * test driver's timeout kills the launcher; nothing is left behind).
 *
 * Usage (under wine): win-run.exe PROGRAM [ARG]...  The rest of the command
 * line after win-run.exe's own name is passed to CreateProcess verbatim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <wchar.h>

struct exception_signal {
	DWORD code;
	int signal;
	const char *what;
};

static const struct exception_signal exception_signals[] = {
	{ 0xC0000005, 11, "access violation" },
	{ 0xC00000FD, 11, "stack overflow" },
	{ 0xC0000006, 7, "in-page error" },
	{ 0xC000001D, 4, "illegal instruction" },
	{ 0xC0000096, 4, "privileged instruction" },
	{ 0xC0000094, 8, "integer divide by zero" },
	{ 0xC0000095, 8, "integer overflow" },
	{ 0xC000008E, 8, "floating-point divide by zero" },
	{ 0xC0000090, 8, "floating-point invalid operation" },
	{ 0xC0000409, 6, "fail-fast (stack buffer overrun or __fastfail)" },
	{ 0xC0000374, 6, "heap corruption" },
	{ 0x80000003, 5, "breakpoint" },
	{ 0xC000013A, 2, "Ctrl-C" },
};

/* The command line after the launcher's own name (argv[0] ends at the
 * closing quote when quoted, else at the first blank). */
static wchar_t *child_command_line(void)
{
	wchar_t *p = GetCommandLineW();

	if (*p == L'"') {
		p++;
		while (*p && *p != L'"')
			p++;
		if (*p)
			p++;
	} else {
		while (*p && *p != L' ' && *p != L'\t')
			p++;
	}
	while (*p == L' ' || *p == L'\t')
		p++;
	return p;
}

static int exit_status(DWORD code)
{
	size_t i;

	if (code <= 255)
		return (int)code;
	for (i = 0; i < sizeof(exception_signals) / sizeof(exception_signals[0]); i++) {
		if (exception_signals[i].code == code) {
			fprintf(stderr, "win-run: the program ended with exception 0x%08lX (%s)\n",
				(unsigned long)code, exception_signals[i].what);
			return 128 + exception_signals[i].signal;
		}
	}
	fprintf(stderr, "win-run: the program ended with exit code 0x%08lX, which does not fit a Unix exit status\n",
		(unsigned long)code);
	return 125;
}

/*
 * CreateProcess, suspended. wine now and then fails to create a process
 * with ERROR_INTERNAL_ERROR (1359) when many start at once (about one start
 * in a thousand in the CLI suite's two shares): nothing of the program ran,
 * so starting it again changes nothing it does. Any other error is the
 * program's (not found, not an executable) and is given back at once.
 */
static BOOL start_suspended(wchar_t *command, STARTUPINFOW *startup, PROCESS_INFORMATION *child)
{
	int attempt;

	for (attempt = 0;; attempt++) {
		if (CreateProcessW(NULL, command, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL,
				   startup, child))
			return TRUE;
		if (GetLastError() != ERROR_INTERNAL_ERROR || attempt == 4)
			return FALSE;
		Sleep(50 << attempt);
	}
}

/*
 * wine itself fails now and then to start a program (this launcher) and
 * exits 1 or 127 with nothing said (WINEDEBUG=-all). A caller that set
 * RFM_WIN_RUN_STARTED to a file's path learns from that file that the
 * launcher did start: a run without it never reached the program and can be
 * tried again (tests/cli/conftest.py, tests/windows/run-win.sh).
 */
static void mark_started(void)
{
	const char *path = getenv("RFM_WIN_RUN_STARTED");
	HANDLE mark;

	if (!path || !*path)
		return;
	mark = CreateFileA(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	if (mark != INVALID_HANDLE_VALUE)
		CloseHandle(mark);
}

int main(void)
{
	wchar_t *command = child_command_line();
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0 };
	STARTUPINFOW startup = { 0 };
	PROCESS_INFORMATION child;
	HANDLE job;
	DWORD code;

	mark_started();
	if (!*command) {
		fprintf(stderr, "usage: win-run.exe PROGRAM [ARG]...\n");
		return 126;
	}
	job = CreateJobObjectW(NULL, NULL);
	if (!job) {
		fprintf(stderr, "win-run: CreateJobObject failed (error %lu)\n", GetLastError());
		return 126;
	}
	limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof(limits));

	startup.cb = sizeof(startup);
	startup.dwFlags = STARTF_USESTDHANDLES;
	startup.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	startup.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
	startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	if (!start_suspended(command, &startup, &child)) {
		DWORD error = GetLastError();

		fprintf(stderr, "win-run: cannot start %ls (error %lu)\n", command, error);
		return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ? 127 : 126;
	}
	/* In the job before it runs a single instruction, so nothing it starts
	 * escapes the kill-on-close. */
	AssignProcessToJobObject(job, child.hProcess);
	ResumeThread(child.hThread);
	CloseHandle(child.hThread);
	if (WaitForSingleObject(child.hProcess, INFINITE) != WAIT_OBJECT_0 ||
	    !GetExitCodeProcess(child.hProcess, &code)) {
		fprintf(stderr, "win-run: cannot wait for %ls (error %lu)\n", command, GetLastError());
		return 126;
	}
	return exit_status(code);
}
