/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Write the C header of a layout file to stdout: gen-header FILE [PREFIX]. */
#include <stdio.h>
#include <rfm/rfm.h>

int main(int argc, char **argv)
{
	rfm_layout *layout;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s LAYOUT.yaml [PREFIX]\n", argv[0]);
		return 2;
	}
	if (rfm_layout_load_file(argv[1], &layout, NULL) ||
	    rfm_layout_write_header(layout, argc == 3 ? argv[2] : NULL, stdout)) {
		fprintf(stderr, "%s\n", rfm_last_error());
		return 1;
	}
	rfm_layout_free(layout);
	return 0;
}
