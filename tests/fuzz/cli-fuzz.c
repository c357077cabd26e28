/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer harness of the rfm tool's argument handling: the input is an
 * argument vector (NUL-separated); every vector must end in an exit code
 * — never a crash. The tool's main() is built as rfm_cli_main().
 *
 * Commands that wait for peers (listen, wait, watch...) are skipped: they
 * would block the fuzzer, and their parsing is shared with the others.
 * Run it in a private /dev/shm (run-fuzz.sh does): -u can name any network.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rfm_cli_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 16

/* record and replay run until stopped (or --loop); plot replaces the process with Python. */
static const char *const blocking[] = { "listen", "wait", "watch", "ping", "tail", "bench",
					"record", "replay", "plot" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int initialised;
	char *argv[MAX_ARGS + 2], *copy;
	int argc = 1;

	if (!initialised) {
		/* A small default network, no output, no terminal input. */
		setenv("RFM_URI", "shm:fuzzcli?size=4K", 0);
		unsetenv("RFM_LAYOUT");
		/* stderr stays: sanitizer reports go there (the tool's messages too). */
		if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout))
			return 0;
		initialised = 1;
	}
	if (size > 4096)
		return 0;
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = (char *)"rfm";
	for (char *p = copy; p < copy + size && argc <= MAX_ARGS;) {
		argv[argc++] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;
	for (int i = 1; i < argc; i++)
		for (size_t b = 0; b < sizeof(blocking) / sizeof(blocking[0]); b++)
			if (strstr(argv[i], blocking[b]))
				goto out;
	rfm_cli_main(argc, argv);
	fflush(stdout);
out:
	free(copy);
	return 0;
}
