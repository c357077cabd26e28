/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g programs on Windows, under wine, on an emulated network of their
 * own ($RFM_URI, set here for them):
 *  - rfm2g-windows-style.exe (tests/librfm2g/rfm2g-windows-style.c, the
 *    program Windows sites write, built unchanged with mingw-w64 against
 *    rfm2g.dll): board 0 typed on its stdin as GE's samples ask, a block
 *    at 0x03000000 and its marker at 0x1000, checked here through librfm;
 *  - rfm2g-msvc.exe (clang-cl and lld-link, MSVC's ABI, rfm2g.lib): two
 *    processes, an interrupt and blocks between them; its peer's marker
 *    checked here through librfm. Skipped, saying why, when it was not
 *    built.
 * Every network is destroyed at the end.
 */
#include "config.h"

#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/rfm.h>

#define WINDOWS_STYLE "tests\\windows-tools\\rfm2g-windows-style.exe"
#define MSVC "tests\\windows-tools\\rfm2g-msvc.exe"

static int failures;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "test-rfm2g-windows: FAIL: ");     \
			fprintf(stderr, __VA_ARGS__);                      \
			fputc('\n', stderr);                               \
			failures++;                                        \
		}                                                          \
	} while (0)

/* Run @cmd with @input on its stdin (NULL: none); its exit code, or -1. */
static long run(const char *cmd, const char *input)
{
	SECURITY_ATTRIBUTES sa = { .nLength = sizeof(sa), .bInheritHandle = TRUE };
	STARTUPINFOA si = { .cb = sizeof(si) };
	PROCESS_INFORMATION pi;
	HANDLE rd = NULL, wr = NULL;
	char line[512];
	DWORD code = (DWORD)-1, done;

	snprintf(line, sizeof(line), "%s", cmd);
	if (input) {
		if (!CreatePipe(&rd, &wr, &sa, 0))
			return -1;
		SetHandleInformation(wr, HANDLE_FLAG_INHERIT, 0);
		si.dwFlags = STARTF_USESTDHANDLES;
		si.hStdInput = rd;
		si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
		si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	}
	fflush(NULL);
	if (!CreateProcessA(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
		fprintf(stderr, "test-rfm2g-windows: CreateProcess(%s): error %lu\n", cmd,
			GetLastError());
		if (input) {
			CloseHandle(rd);
			CloseHandle(wr);
		}
		return -1;
	}
	if (input) {
		CloseHandle(rd);
		WriteFile(wr, input, (DWORD)strlen(input), &done, NULL);
		CloseHandle(wr);
	}
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	return (long)code;
}

/* The 32-bit word at @offset of network @uri, read by an observer. */
static uint32_t word_at(const char *uri, uint64_t offset)
{
	char observe[256];
	rfm_node *node;
	uint32_t v = 0;

	snprintf(observe, sizeof(observe), "%s?observe=1", uri);
	if (rfm_open(observe, &node)) {
		fprintf(stderr, "test-rfm2g-windows: %s: %s\n", observe, rfm_last_error());
		return 0;
	}
	if (rfm_mem_read(node, offset, &v, sizeof(v)))
		fprintf(stderr, "test-rfm2g-windows: read: %s\n", rfm_last_error());
	rfm_close(node);
	return v;
}

/* $RFM_URI for the programs: @name?size=@size, of this process alone. */
static void set_uri(char *uri, size_t len, const char *name, const char *size)
{
	char env[300];

	snprintf(uri, len, "shm:%s-%lu", name, GetCurrentProcessId());
	snprintf(env, sizeof(env), "RFM_URI=%s?size=%s", uri, size);
	_putenv(env);
}

/* rfm2g.dll is not installed: the programs take the build's, from PATH. */
static void find_build_dll(void)
{
	const char *old = getenv("PATH");
	char *path = malloc(strlen(old ? old : "") + 64);

	sprintf(path, "PATH=src\\librfm2g\\.libs;%s", old ? old : "");
	_putenv(path);
	free(path);
}

int main(void)
{
	char uri[128];
	long code;

	find_build_dll();
	/* The block at 0x03000000 needs a 5565-sized board: 64 MiB. */
	set_uri(uri, sizeof(uri), "r2g-winstyle", "64M");
	code = run(WINDOWS_STYLE, "0\n");
	CHECK(code == 0, "%s exited with %ld", WINDOWS_STYLE, code);
	if (code == 0) {
		CHECK(word_at(uri, 0x1000) == 0x57494E00u, "no marker of the Windows-style program");
		CHECK(word_at(uri, 0x03000000) == 0xB10C0000u, "no block at 0x03000000");
		CHECK(rfm_network_destroy(uri, 0) == 0, "destroy %s: %s", uri, rfm_last_error());
	}
	printf("test-rfm2g-windows: %s: %s\n", WINDOWS_STYLE, code == 0 ? "ok" : "FAILED");

	if (GetFileAttributesA(MSVC) == INVALID_FILE_ATTRIBUTES) {
		printf("test-rfm2g-windows: SKIP: " MSVC " was not built: configure found no "
		       "clang-cl, lld-link, llvm-dlltool or MSVC-compatible C headers (Debian: "
		       "clang, lld, llvm, libwine-dev)\n");
		return failures ? 1 : 77;
	}
	set_uri(uri, sizeof(uri), "r2g-msvc", "1M");
	code = run(MSVC, NULL);
	CHECK(code == 0, "%s exited with %ld", MSVC, code);
	if (code == 0) {
		/* The peer (node 1) wrote MAGIC ^ 1 at 0x1000: seen from a third process. */
		CHECK(word_at(uri, 0x1000) == (0x52464D32u ^ 1u),
		      "no marker of the MSVC program's peer");
		CHECK(rfm_network_destroy(uri, 0) == 0, "destroy %s: %s", uri, rfm_last_error());
	}
	printf("test-rfm2g-windows: %s: %s\n", MSVC, code == 0 ? "ok" : "FAILED");
	return failures ? 1 : 0;
}
