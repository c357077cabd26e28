/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A Visual Studio program's view of librfm-1.dll: built with clang-cl in
 * Microsoft's mode (MSVC's ABI, its headers' branch of <rfm/access.h> and
 * <rfm/layout.h>), linked with lld-link against librfm.lib, the import
 * library llvm-dlltool made from src/librfm.def; no C runtime of its own
 * (nothing of MSVC's is at hand here): it talks through kernel32, and
 * takes memset() from msvcrt.dll.
 * It calls the mingw-built DLL through what a program uses most: opening
 * by URI, a versioned out-struct, the window through the inline accessors
 * and the exported calls, an event with its record struct, errors with
 * their strings, closing and removing the network. Exit status 0 when
 * every value is what Linux gives, else the number of the failed check.
 */
#include <rfm/rfm.h>

/* kernel32, declared here (<windows.h> is more than this needs). */
__declspec(dllimport) void *__stdcall GetStdHandle(unsigned long which);
__declspec(dllimport) int __stdcall WriteFile(void *h, const void *buf, unsigned long len,
					      unsigned long *done, void *overlapped);
__declspec(dllimport) __declspec(noreturn) void __stdcall ExitProcess(unsigned int code);
__declspec(dllimport) unsigned long __stdcall GetCurrentProcessId(void);
#define STD_OUTPUT_HANDLE ((unsigned long)-11)

static void say(const char *s)
{
	unsigned long len = 0, done;

	while (s[len])
		len++;
	WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), s, len, &done, 0);
}

static void check(int ok, unsigned int n, const char *what)
{
	if (ok)
		return;
	say("msvc-abi: FAILED: ");
	say(what);
	say(": ");
	say(rfm_last_error());
	say("\n");
	ExitProcess(n);
}

/* "shm:msvc-abi-PID" + @rest: a network of this run alone. */
static const char *uri(char *buf, size_t size, const char *rest)
{
	char digits[16];
	unsigned long pid = GetCurrentProcessId();
	size_t at = 0, n = 0;

	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) && n < sizeof(digits));
	for (const char *p = "shm:msvc-abi-"; *p && at + 1 < size; p++)
		buf[at++] = *p;
	while (n && at + 1 < size)
		buf[at++] = digits[--n];
	while (*rest && at + 1 < size)
		buf[at++] = *rest++;
	buf[at] = 0;
	return buf;
}

void start(void);
void start(void)
{
	char u1[256], u2[256];
	rfm_node *a, *b, *none;
	struct rfm_node_info info;
	struct rfm_event ev;
	void *base;
	uint64_t size, v64 = 0;
	uint32_t v32 = 0;

	check(rfm_version() != 0 && rfm_version_string()[0], 1, "version");
	check(rfm_open(uri(u1, sizeof(u1), "?node=1&size=65536"), &a) == 0, 2, "open node 1");
	check(rfm_open(uri(u2, sizeof(u2), "?node=2"), &b) == 0, 3, "open node 2");
	check(rfm_node_id(b) == 2 && rfm_node_size(b) == 65536, 4, "id and size");

	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	check(rfm_node_get_info(b, &info) == 0 && info.node_id == 2 && info.size == 65536 &&
		      info.nodes_attached == 2 && info.backend[0] == 's' && info.uri[0] == 's',
	      5, "node info");

	check(rfm_mem_map(a, &base, &size) == 0 && size == 65536, 6, "map");
	rfm_store32_release(base, 64, 0xfeedf00du);
	rfm_store64(base, 128, UINT64_C(0x0123456789abcdef));
	check(rfm_mem_peek32(b, 64, &v32) == 0 && v32 == 0xfeedf00du, 7, "inline store, peek");
	check(rfm_mem_peek64(b, 128, &v64) == 0 && v64 == UINT64_C(0x0123456789abcdef), 8,
	      "64-bit store, peek");
	check(rfm_mem_poke32(b, 72, 0x5a5a5a5au) == 0 &&
		      rfm_load32_acquire(base, 72) == 0x5a5a5a5au,
	      9, "poke, inline load");

	check(rfm_event_enable(b, RFM_EVENT_BIT(RFM_EVENT_INTR3)) == 0, 10, "enable");
	check(rfm_event_send(a, 2, RFM_EVENT_INTR3, 0xabcdu) == 1, 11, "send");
	check(rfm_event_wait(b, &ev, INT64_C(10000000000)) == 0, 12, "wait");
	check(ev.type == RFM_EVENT_INTR3 && ev.sender == 1 && ev.data == 0xabcdu && ev.seq == 1, 13,
	      "event record");

	check(rfm_open("nosuch:x", &none) == RFM_ESCHEME, 14, "an unknown scheme's error");
	check(rfm_strerror(RFM_ESCHEME)[0] != 0, 15, "error string");

	rfm_close(b);
	rfm_close(a);
	check(rfm_network_destroy(u2, 0) == 0, 16, "destroy");
	say("msvc-abi: ok\n");
	ExitProcess(0);
}
