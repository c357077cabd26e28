/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runs msvc-abi.exe, the Visual Studio program of this directory (built by
 * clang-cl and lld-link, not by libtool, so not a test program of its own),
 * from the build directory, and passes on its exit status; a build without
 * clang-cl, lld-link and MSVC-compatible headers skips, saying so.
 */
#include "config.h"

#include <stdio.h>
#include <windows.h>

#define PROGRAM "tests\\windows\\msvc-abi.exe"

int main(void)
{
	STARTUPINFOA si = { .cb = sizeof(si) };
	PROCESS_INFORMATION pi;
	char cmd[] = PROGRAM;
	DWORD code = 99;

	if (GetFileAttributesA(PROGRAM) == INVALID_FILE_ATTRIBUTES) {
		fprintf(stderr, "test-msvc-abi: SKIP: " PROGRAM " was not built: configure found no "
				"clang-cl, lld-link, llvm-dlltool or MSVC-compatible C headers "
				"(Debian: clang, lld, llvm, libwine-dev)\n");
		return 77;
	}
	fflush(NULL);
	if (!CreateProcessA(PROGRAM, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
		fprintf(stderr, "test-msvc-abi: CreateProcess(" PROGRAM "): error %lu\n",
			GetLastError());
		return 99;
	}
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	return code <= 255 ? (int)code : 99;
}
