/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer harness of the layout parser and validator: any input must
 * give a layout or RFM_ELAYOUT with diagnostics — never a crash, a leak
 * or undefined behaviour. A valid layout also goes through the
 * description calls and the header generator.
 */
#include <stdio.h>
#include <rfm/rfm.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	rfm_layout *layout = NULL;
	rfm_diag_list *diags = NULL;
	int ret;

	if (!sink)
		sink = fopen("/dev/null", "w");
	ret = rfm_layout_load_string((const char *)data, size, "fuzz.yaml", &layout, &diags);
	if (ret) {
		struct rfm_diag d = { .struct_size = sizeof(d) };
		for (size_t i = 0; i < rfm_diag_list_count(diags); i++)
			if (rfm_diag_list_get(diags, i, &d) || !d.text || !d.message)
				__builtin_trap();
		rfm_diag_list_free(diags);
		return 0;
	}
	for (size_t i = 0; i < rfm_layout_var_count(layout); i++) {
		struct rfm_var_info v = { .struct_size = sizeof(v) };
		if (rfm_layout_var_info(layout, i, &v) || v.offset + v.size > rfm_layout_window_size(layout))
			__builtin_trap(); /* a validated variable lies inside the window */
	}
	if (sink)
		rfm_layout_write_header(layout, NULL, sink);
	rfm_layout_free(layout);
	return 0;
}
