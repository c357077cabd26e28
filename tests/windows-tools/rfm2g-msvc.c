/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An RFM2g program as Windows sites write them with GE's package and
 * Visual Studio, built with clang-cl in Microsoft's mode (MSVC's ABI) and
 * linked with lld-link against rfm2g.lib, the import library of
 * rfm2g.dll: GE's headers (rfm2g_windows.h brings <windows.h>), the board
 * by its Windows name \\.\rfm2g0, the window mapped with RFM2gUserMemory,
 * RFM2gRead and RFM2gWrite, and an interrupt between two processes with
 * RFM2gEnableEvent, RFM2gSendEvent and RFM2gWaitForEvent. No C runtime
 * of its own (there is no MSVC one here): kernel32 and msvcrt.dll.
 *
 *   rfm2g-msvc.exe          the first node: starts the second, waits for
 *                           its interrupt, checks what it wrote; exit 0
 *   rfm2g-msvc.exe peer N   the second node: checks the first's block,
 *                           writes its own, interrupts node N
 *
 * $RFM_URI names the network (test-rfm2g-msvc.c sets it).
 */
#include "rfm2g_windows.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfm2gdll_stdc.h"
#include "rfm2g_api.h"

#define FIRST_BLOCK 0x2000	/* the first node writes here with RFM2gWrite */
#define PEER_MARK 0x1000	/* the second node's word, read through the mapping */
#define PEER_BLOCK 0x3000
#define WORDS 32
#define MAGIC 0x52464D32u	/* "RFM2", the interrupt's data */

static RFM2G_UINT32 pattern(RFM2G_UINT32 seed, unsigned int i)
{
	return seed * 2654435761u + i;
}

static int fail(const char *what, RFM2G_STATUS st)
{
	printf("rfm2g-msvc: FAILED: %s: %s\n", what, RFM2gErrorMsg(st));
	return 1;
}

static int peer(RFM2GHANDLE rh, RFM2G_NODE first)
{
	RFM2G_UINT32 buf[WORDS];
	RFM2G_NODE self = 0;
	RFM2G_STATUS st;
	unsigned int i;

	if ((st = RFM2gNodeID(rh, &self)) != RFM2G_SUCCESS)
		return fail("RFM2gNodeID", st);
	if ((st = RFM2gRead(rh, FIRST_BLOCK, buf, sizeof(buf))) != RFM2G_SUCCESS)
		return fail("RFM2gRead", st);
	for (i = 0; i < WORDS; i++)
		if (buf[i] != pattern(first, i)) {
			printf("rfm2g-msvc: FAILED: word %u of node %u's block is 0x%08lx\n", i,
			       (unsigned int)first, buf[i]);
			return 1;
		}
	for (i = 0; i < WORDS; i++)
		buf[i] = pattern(self, i);
	if ((st = RFM2gWrite(rh, PEER_BLOCK, buf, sizeof(buf))) != RFM2G_SUCCESS)
		return fail("RFM2gWrite", st);
	if ((st = RFM2gPoke32(rh, PEER_MARK, MAGIC ^ self)) != RFM2G_SUCCESS)
		return fail("RFM2gPoke32", st);
	if ((st = RFM2gSendEvent(rh, first, RFM2GEVENT_INTR1, MAGIC)) != RFM2G_SUCCESS)
		return fail("RFM2gSendEvent", st);
	return 0;
}

/* Start this program again as the second node; its process handle. */
static HANDLE start_peer(RFM2G_NODE self)
{
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	char exe[MAX_PATH], cmd[MAX_PATH + 32];

	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (!GetModuleFileNameA(NULL, exe, sizeof(exe)))
		return NULL;
	sprintf(cmd, "\"%s\" peer %u", exe, (unsigned int)self);
	if (!CreateProcessA(exe, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return NULL;
	CloseHandle(pi.hThread);
	return pi.hProcess;
}

static int first(RFM2GHANDLE rh)
{
	RFM2G_UINT32 buf[WORDS];
	volatile RFM2G_UINT32 *mem = NULL;
	RFM2GEVENTINFO info;
	RFM2GCONFIG cfg;
	RFM2G_STATUS st;
	DWORD code = 1;
	HANDLE child;
	unsigned int i;

	if ((st = RFM2gGetConfig(rh, &cfg)) != RFM2G_SUCCESS)
		return fail("RFM2gGetConfig", st);
	printf("rfm2g-msvc: %s, node %u, %lu bytes\n", cfg.Device, (unsigned int)cfg.NodeId,
	       cfg.MemorySize);
	if (strcmp(cfg.Device, "\\\\.\\rfm2g0") || cfg.Unit != 0) {
		printf("rfm2g-msvc: FAILED: device %s, unit %u\n", cfg.Device, (unsigned int)cfg.Unit);
		return 1;
	}
	if ((st = RFM2gUserMemory(rh, (volatile void **)&mem, 0, 4)) != RFM2G_SUCCESS)
		return fail("RFM2gUserMemory", st);
	mem[PEER_MARK / 4] = 0;
	for (i = 0; i < WORDS; i++)
		buf[i] = pattern(cfg.NodeId, i);
	if ((st = RFM2gWrite(rh, FIRST_BLOCK, buf, sizeof(buf))) != RFM2G_SUCCESS)
		return fail("RFM2gWrite", st);
	if ((st = RFM2gEnableEvent(rh, RFM2GEVENT_INTR1)) != RFM2G_SUCCESS)
		return fail("RFM2gEnableEvent", st);
	child = start_peer(cfg.NodeId);
	if (!child) {
		printf("rfm2g-msvc: FAILED: CreateProcess: error %lu\n", GetLastError());
		return 1;
	}
	memset(&info, 0, sizeof(info));
	info.Event = RFM2GEVENT_INTR1;
	info.Timeout = 20000;	/* ms: the peer is a new process under wine */
	st = RFM2gWaitForEvent(rh, &info);
	WaitForSingleObject(child, INFINITE);
	GetExitCodeProcess(child, &code);
	CloseHandle(child);
	if (code != 0) {
		printf("rfm2g-msvc: FAILED: the second node exited with %lu\n", code);
		return 1;
	}
	if (st != RFM2G_SUCCESS)
		return fail("RFM2gWaitForEvent", st);
	if (info.ExtendedInfo != MAGIC || info.NodeId == cfg.NodeId) {
		printf("rfm2g-msvc: FAILED: interrupt from node %u with 0x%08lx\n",
		       (unsigned int)info.NodeId, info.ExtendedInfo);
		return 1;
	}
	/* What the second node wrote, seen through this node's mapping. */
	if (mem[PEER_MARK / 4] != (MAGIC ^ info.NodeId)) {
		printf("rfm2g-msvc: FAILED: the mapped word is 0x%08lx\n",
		       (unsigned long)mem[PEER_MARK / 4]);
		return 1;
	}
	for (i = 0; i < WORDS; i++)
		if (mem[PEER_BLOCK / 4 + i] != pattern(info.NodeId, i)) {
			printf("rfm2g-msvc: FAILED: mapped word %u of the peer's block\n", i);
			return 1;
		}
	RFM2gDisableEvent(rh, RFM2GEVENT_INTR1);
	if ((st = RFM2gUnMapUserMemory(rh, (volatile void **)&mem, 4)) != RFM2G_SUCCESS)
		return fail("RFM2gUnMapUserMemory", st);
	printf("rfm2g-msvc: node %u took node %u's interrupt 0x%08lx and its block\n",
	       (unsigned int)cfg.NodeId, (unsigned int)info.NodeId, info.ExtendedInfo);
	return 0;
}

/* The word after the program's name on its command line, or NULL. */
static const char *argument(int n)
{
	const char *p = GetCommandLineA();
	static char word[64];

	for (int i = 0; i <= n; i++) {
		size_t len = 0;
		bool quoted = false;

		while (*p == ' ')
			p++;
		if (!*p)
			return NULL;
		for (; *p && (quoted || *p != ' '); p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (len + 1 < sizeof(word))
				word[len++] = *p;
		}
		word[len] = '\0';
	}
	return word;
}

void start(void);
void start(void)
{
	const char *role = argument(1);
	RFM2GHANDLE rh = NULL;
	RFM2G_STATUS st;
	int ret;

	st = RFM2gOpen("\\\\.\\rfm2g0", &rh);
	if (st != RFM2G_SUCCESS) {
		fail("RFM2gOpen(\\\\.\\rfm2g0)", st);
		ExitProcess(1);
	}
	if (role && !strcmp(role, "peer") && argument(2))
		ret = peer(rh, (RFM2G_NODE)atoi(argument(2)));
	else
		ret = first(rh);
	RFM2gClose(&rh);
	fflush(stdout);
	ExitProcess((UINT)ret);
}
