/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runs a fuzz harness over files, without libFuzzer: make check replays
 * every corpus and regression input through each harness, so inputs that
 * once crashed stay fixed with any compiler.
 *   fuzz-TARGET FILE...
 */
#include <stdio.h>

#undef main /* the cli harness renames the tool's main(), not ours */
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		unsigned char *buf;
		long len;

		if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 99;
		}
		buf = malloc((size_t)len + 1);
		if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 99;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)len);
		free(buf);
	}
	return 0;
}
